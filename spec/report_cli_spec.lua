-- The `framegraph` command (bin/framegraph, lua/framegraph/cli.lua), run as
-- a person runs it: a separate process from the tree, without LUA_PATH, GPU
-- or Vulkan device.

local function sh_quote(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end

-- runs bin/framegraph; returns exit status, stdout, stderr
local function run(...)
  local args = {}
  for i, a in ipairs({ ... }) do args[i] = sh_quote(a) end
  local errf = os.tmpname()
  local p = io.popen("env -u LUA_PATH -u LUA_CPATH -u LUA_PATH_5_4 -u LUA_CPATH_5_4 bin/framegraph "
                     .. table.concat(args, " ") .. " 2>" .. errf)
  local out = p:read("a")
  local _, _, code = p:close()
  local f = io.open(errf, "rb")
  local err = f:read("a")
  f:close()
  os.remove(errf)
  return code, out, err
end

-- a fresh temporary name with an extension (os.tmpname creates its own file)
local function temp_name(ext)
  local base = os.tmpname()
  os.remove(base)
  return base .. ext
end

local function write_temp(text)
  local path = temp_name(".lua")
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
  return path
end

local function lines(s)
  local t = {}
  for l in s:gmatch("[^\n]+") do t[#t + 1] = l end
  return t
end

-- the line where `pattern` first appears in a file
local function line_of(path, pattern)
  local i = 0
  for l in io.lines(path) do
    i = i + 1
    if l:find(pattern, 1, true) then return i end
  end
end

describe("framegraph check", function()
  it("prints a broken node at the line of what broke it, a culled node at its node's line, and fails", function()
    local code, out = run("check", "examples/deferred.lua")
    assert.are.equal(1, code)
    local l = lines(out)
    assert.are.equal(2, #l)
    assert.are.equal(("examples/deferred.lua:%d: node 'lens_dirt' is broken: read 'dirt_texture': no node creates it and it is not external")
                       :format(line_of("examples/deferred.lua", 'read = { "dirt_texture" }')), l[1])
    assert.are.equal(("examples/deferred.lua:%d: warning: node 'debug_normals' is culled: its products reach no output, history read or side-effect node")
                       :format(line_of("examples/deferred.lua", 'name = "debug_normals"')), l[2])
  end)

  it("prints one ok line per good file and succeeds", function()
    local code, out, err = run("check", "examples/vr_ssaa.lua", "--profile", "nvidia", "--solver", "thesis")
    assert.are.equal(0, code)
    assert.truthy(out:match("^ok: examples/vr_ssaa%.lua, 6 nodes, [%d.]+ [KMG]i?B, saves %d+ %%\n$"), out)
    assert.are.equal("", err)
    -- several files: a line each, and one bad file fails the run
    code, out = run("check", "examples/vr_ssaa.lua", "examples/vr.lua")
    assert.are.equal(0, code)
    local l = lines(out)
    assert.are.equal(2, #l)
    assert.truthy(l[1]:find("^ok: examples/vr_ssaa%.lua, "), l[1])
    assert.truthy(l[2]:find("^ok: examples/vr%.lua, "), l[2])
    code, out = run("check", "examples/vr_ssaa.lua", "examples/deferred.lua")
    assert.are.equal(1, code)
    assert.truthy(out:find("^ok: examples/vr_ssaa%.lua"), out)
    assert.truthy(out:find("node 'lens_dirt' is broken", 1, true), out)
  end)

  it("fails on culled nodes with --strict only", function()
    local path = write_temp([[
return {
  outputs = { "b" },
  nodes = {
    { name = "keep", create = { b = { buffer = 64 } } },
    { name = "unused", create = { c = { buffer = 64 } } },
  },
}
]])
    local code, out = run("check", path)
    assert.are.equal(0, code)
    assert.are.equal(path .. ":5: warning: node 'unused' is culled: its products reach no output, history read or side-effect node\n"
                       .. "ok: " .. path .. ", 2 nodes, 64 B, saves 50 %\n", out)
    assert.are.equal(1, (run("check", path, "--strict")))
    os.remove(path)
  end)

  it("reports every schema problem at the offending node's or field's line", function()
    local path = write_temp([[
return {
  resolutions = { main = { 64, 64 } },
  outputs = { "out" },
  nodes = {
    { name = "a",
      create = { t = { format = "bogus", size = "main" } } },
    { name = "b", reed = { "t" },
      create = { out = { format = "rgba8_unorm", size = "main" } } },
  },
}
]])
    local code, out = run("check", path)
    assert.are.equal(1, code)
    local l = lines(out)
    assert.are.equal(2, #l)
    assert.truthy(l[1]:find(path .. ":6: node 'a': create 't': unknown format 'bogus'", 1, true), l[1])
    assert.truthy(l[2]:find(path .. ":7: node 'b': unknown field 'reed'", 1, true), l[2])
    os.remove(path)
  end)

  it("puts a cycle at its first node and a bad pipeline field at its line", function()
    local path = write_temp([[
return {
  resolutions = { main = { 64, 64 } },
  outputs = { "out" },
  nodes = {
    { name = "a", after = "b",
      create = { t = { format = "rgba8_unorm", size = "main" } } },
    { name = "b", read = { "t" },
      create = { out = { format = "rgba8_unorm", size = "main" } } },
  },
}
]])
    local code, out = run("check", path)
    assert.are.equal(1, code)
    assert.are.equal(path .. ":5: cycle: a -> b -> a (break it by removing an after/before or a resource use)\n", out)
    os.remove(path)
    path = write_temp([[
return {
  resolutions = { main = { 64, 64 } },

  dimensions = { eye = 0 },
  nodes = {},
}
]])
    code, out = run("check", path)
    assert.are.equal(1, code)
    assert.truthy(out:find("^" .. path:gsub("%p", "%%%0") .. ":4: dimensions: 'eye' must be a positive integer"), out)
    os.remove(path)
  end)

  it("gives syntax and runtime errors of the file with their line", function()
    local path = write_temp('return {\n  nodes = {\n    { name = "a" create = {} },\n  },\n}\n')
    local code, out = run("check", path)
    assert.are.equal(1, code)
    assert.truthy(out:find("^" .. path:gsub("%p", "%%%0") .. ":3: '}' expected near 'create'"), out)
    os.remove(path)
    path = write_temp('local sizes = {}\nreturn {\n  nodes = {\n    { name = "a", create = { t = { buffer = sizes.big.bytes } } },\n  },\n}\n')
    code, out = run("check", path)
    assert.are.equal(1, code)
    assert.truthy(out:find("^" .. path:gsub("%p", "%%%0") .. ":4: attempt to index a nil value"), out)
    os.remove(path)
    path = write_temp('return 42\n')
    code, out = run("check", path)
    assert.are.equal(1, code)
    assert.truthy(out:find(":1: the file must return a pipeline table", 1, true), out)
    os.remove(path)
  end)

  it("refuses bad usage with status 2", function()
    local code, out, err = run("check")
    assert.are.equal(2, code)
    assert.truthy(err:find("expected a pipeline file, got 0", 1, true), err)
    assert.truthy(err:find("usage: framegraph", 1, true))
    assert.are.equal("", out)
    code, _, err = run("check", "examples/deferred.lua", "--solver", "magic")
    assert.are.equal(2, code)
    assert.truthy(err:find("--solver must be one of best", 1, true))
    code, _, err = run("check", "examples/deferred.lua", "--profile", "amd")
    assert.are.equal(2, code)
    assert.truthy(err:find("--profile must be nvidia or lavapipe", 1, true))
    code, _, err = run("check", "examples/deferred.lua", "--frobnicate")
    assert.are.equal(2, code)
    assert.truthy(err:find("unknown option --frobnicate", 1, true))
    code, _, err = run("paint", "examples/deferred.lua")
    assert.are.equal(2, code)
    assert.truthy(err:find("unknown command 'paint'", 1, true))
    code, out = run("--help")
    assert.are.equal(0, code)
    assert.truthy(out:find("framegraph check", 1, true))
  end)

  it("says when the file cannot be read", function()
    local code, out = run("check", "/nonexistent/pipeline.lua")
    assert.are.equal(1, code)
    assert.are.equal("/nonexistent/pipeline.lua:1: cannot read the pipeline file\n", out)
  end)
end)

describe("framegraph report", function()
  it("writes the HTML page for a pipeline and summarises it", function()
    local html = temp_name(".html")
    local code, out, err = run("report", "examples/deferred.lua", "-o", html, "--profile", "nvidia", "--solver", "bysize",
                               "--title", "Deferred frame")
    assert.are.equal(0, code, err)
    assert.truthy(out:find("^" .. html:gsub("%p", "%%%0") .. ": [%d%.]+ MiB with aliasing, [%d%.]+ MiB without %(saves [%d%.]+%%%)"), out)
    assert.truthy(out:find("1 culled, 1 broken nodes", 1, true))
    local f = assert(io.open(html, "rb"))
    local page = f:read("a")
    f:close()
    os.remove(html)
    -- the same page the library makes for the same compile
    local fg = require("framegraph")
    local g = fg.compile(dofile("examples/deferred.lua"), { profile = "nvidia", solver = "bysize" })
    assert.truthy(page:find("<title>Deferred frame</title>", 1, true))
    assert.truthy(page:find("profile nvidia, solver bysize", 1, true))
    local n = 0
    for _ in page:gmatch('<rect class="res ') do n = n + 1 end
    local packed = 0
    for _, r in ipairs(g:resources()) do if r.heap then packed = packed + 1 end end
    assert.are.equal(packed, n)
    assert.truthy(page:find("read 'dirt_texture': no node creates it", 1, true))
  end)

  it("shows the DOT source instead of the picture with --no-graphviz", function()
    local html = temp_name(".html")
    local code = run("report", "examples/vr_ssaa.lua", "-o", html, "--no-graphviz")
    assert.are.equal(0, code)
    local f = assert(io.open(html, "rb"))
    local page = f:read("a")
    f:close()
    os.remove(html)
    assert.truthy(page:find('<pre class="dot">digraph framegraph', 1, true))
    assert.falsy(page:find('<div class="figure graph">', 1, true))
    assert.truthy(page:find("<title>framegraph report: vr_ssaa</title>", 1, true))
  end)

  it("prints the problems and writes nothing for a pipeline that does not compile", function()
    local path = write_temp('return { nodes = { { name = "a", create = { t = { format = "bogus", size = {4, 4} } } } } }\n')
    local html = temp_name(".html")
    local code, out = run("report", path, "-o", html)
    assert.are.equal(1, code)
    assert.truthy(out:find(path .. ":1: node 'a': create 't': unknown format 'bogus'", 1, true), out)
    assert.is_nil(io.open(html, "rb"))
    os.remove(path)
  end)

  it("fails when the page cannot be written", function()
    local code, _, err = run("report", "examples/deferred.lua", "-o", "/nonexistent-dir/r.html")
    assert.are.equal(1, code)
    assert.truthy(err:find("/nonexistent-dir/r.html", 1, true))
  end)
end)
