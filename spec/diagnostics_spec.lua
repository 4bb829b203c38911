-- Mistaken pipelines as an artist writes them: each message names the
-- misspelt name, the file:line where it is written and the closest name in
-- scope, first; what the mistake pruned follows, indented, and never sends
-- the reader to a healthy node. The same text from fg.compile, `framegraph
-- check` and `framegraph report` (rt:reload and fg.watch: the reload specs;
-- the viewer: view_spec).
local fg = require("framegraph")

local sh = require("support.sh")
local sh_quote = sh.quote

local function write_temp(text)
  local path = os.tmpname()
  os.remove(path)
  path = path .. ".lua"
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
  return path
end

local function line_of(text, marker)
  local n = 0
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    n = n + 1
    if line:find(marker, 1, true) then return n end
  end
  error("no line with " .. marker)
end

local function cli(...) return sh.framegraph("", ...) end

local HEAD = [[
local T = { format = "rgba8_unorm", size = "main" }
local function run(cmd, ctx) end
return {
  resolutions = { main = { 64, 64 } },
  outputs = { "final" },
  nodes = {
]]
local TAIL = "  },\n}\n"

-- {name, nodes text (the mistake's line carries -- HERE), misspelt, suggestion, extra expected lines}
local cases = {
  { "a read of ao_ instead of ao", [[
    { name = "ssao", create = { ao = T }, run = run },
    { name = "resolve",
      read = { "ao_" },                                   -- HERE
      create = { accum = T }, run = run },
    { name = "tonemap", read = { "accum" }, create = { final = T }, run = run },
]], "read 'ao_'", "did you mean 'ao'?",
    { "  pruned because of it: node 'resolve' is broken",
      "  node 'tonemap' is broken (read 'accum': its creator 'resolve' is broken)",
      "  outputs: 'final' is never produced (its producer 'tonemap' is broken)" } },
  { "history = { acum = ... }", [[
    { name = "render", create = { current = T }, run = run },
    { name = "resolve", read = { "current" },
      create = { accum = { format = "rgba16_sfloat", size = "main", history = "clear" } },
      history = { acum = "sampled" },                     -- HERE
      run = run },
    { name = "tonemap", read = { "accum" }, create = { final = T }, run = run },
]], "history 'acum'", "did you mean 'accum'?", {} },
  { "a modify of an unknown name", [[
    { name = "a", create = { final = T }, run = run },
    { name = "grade", modify = { fnial = "storage" },     -- HERE
      run = run, side_effects = true },
]], "modify 'fnial'", "did you mean 'final'?", { "  pruned because of it: node 'grade' is broken" } },
  { "a rename of an unknown name", [[
    { name = "a", create = { hdr = T }, run = run },
    { name = "b",
      rename = { hrd = "final" },                         -- HERE
      run = run },
]], "rename 'hrd'", "did you mean 'hdr'?", {} },
  { "a pass attachment of an unknown name", [[
    { name = "a", create = { final = T },
      pass = { color = { "finl" } },                      -- HERE
      run = run },
]], "pass color 'finl'", "did you mean 'final'?", {} },
  { "an after of an unknown node", [[
    { name = "blur", create = { final = T }, run = run },
    { name = "late", side_effects = true, run = run,
      after = { "blurr" } },                              -- HERE
]], "after 'blurr'", "did you mean 'blur'?", {} },
}

describe("diagnostics of mistaken pipelines", function()
  for _, c in ipairs(cases) do
    local function expect(first_lines, path, line)
      local first = first_lines[1]
      assert.are.equal(1, select(2, first:gsub("^" .. path:gsub("%p", "%%%0") .. ":" .. line .. ": ", "")), first)
      assert.matches(c[3], first, 1, true)
      assert.matches(c[4], first, 1, true)
      for i, want in ipairs(c[5]) do assert.are.equal(want, first_lines[1 + i]) end
      -- the pruned lines follow the cause and advise fixing nothing
      for i = 2, #first_lines do
        assert.not_matches("fix '", first_lines[i], 1, true)
      end
    end

    it(c[1] .. ": fg.compile, check and report give the written line and the suggestion", function()
      local text = HEAD .. c[2] .. TAIL
      local path = write_temp(text)
      local line = line_of(text, "-- HERE")
      local ok, err = pcall(function() return fg.compile(dofile(path)) end)
      assert.is_false(ok)
      local lines = {}
      for l in tostring(err):gmatch("[^\n]+") do lines[#lines + 1] = l end
      expect(lines, path, line)

      local code, out = cli("check", path)
      assert.are.equal(1, code)
      local cl = {}
      for l in out:gmatch("[^\n]+") do cl[#cl + 1] = l end
      expect(cl, path, line)
      assert.are.same(lines, cl)  -- the same text

      local report = path .. ".html"
      code, out = cli("report", path, "-o", report, "--no-graphviz")
      assert.are.equal(1, code)
      assert.are.equal(cl[1], out:match("[^\n]+"))
      os.remove(path)
    end)
  end

  it("without run functions the command still finds the written line", function()
    local text = HEAD .. [[
    { name = "ssao", create = { ao = T } },
    { name = "tonemap",
      read = { "ao_" },                                   -- HERE
      create = { final = T } },
]] .. TAIL
    local path = write_temp(text)
    local code, out = cli("check", path)
    assert.are.equal(1, code)
    assert.are.equal(("%s:%d: node 'tonemap': read 'ao_': no node creates 'ao_' and it is not external; did you mean 'ao'?")
      :format(path, line_of(text, "-- HERE")), out:match("[^\n]+"))
    os.remove(path)
  end)

  it("an optional read of an unknown name is fine", function()
    local path = write_temp(HEAD .. [[
    { name = "a", read = { ao_ = { optional = true } }, create = { final = T }, run = run },
]] .. TAIL)
    local g = fg.compile(dofile(path))
    assert.are.equal(1, g:stats().nodes_active)
    os.remove(path)
  end)

  it("a name nothing provides and nothing resembles, away from the outputs, stays a broken node", function()
    local path = write_temp(HEAD .. [[
    { name = "a", create = { final = T }, run = run },
    { name = "dirt", read = { "lens_dirt_texture" }, create = { dirty = T }, run = run },
]] .. TAIL)
    local g = fg.compile(dofile(path))
    for _, n in ipairs(g:nodes()) do
      if n.name == "dirt" then assert.are.equal("broken", n.state) end
    end
    os.remove(path)
  end)
end)

describe("fg.compile of a path", function()
  local fg = require("framegraph")
  local function tmpfile(text)
    local path = os.tmpname()
    local f = assert(io.open(path, "w")) f:write(text) f:close()
    return path
  end
  it("names the file and the line of a misspelt read, with the suggestion, without run functions", function()
    local path = tmpfile([[
return {
  resolutions = { main = { 8, 8 } },
  outputs = { "final" },
  nodes = {
    { name = "ssao", create = { ao = { format = "r8_unorm", size = "main" } } },
    { name = "tonemap",
      read = { "ao_" },
      create = { final = { format = "rgba8_unorm", size = "main" } } },
  },
}]])
    local ok, err = pcall(fg.compile, path)
    os.remove(path)
    assert.is_false(ok)
    assert.truthy(err:find(path .. ":7: node 'tonemap': read 'ao_'", 1, true), err)
    assert.truthy(err:find("did you mean 'ao'?", 1, true), err)
  end)
  it("returns nil and a message for a file that is not there, and compiles a good one", function()
    local g, err = fg.compile("/nonexistent/pipe.lua")
    assert.is_nil(g)
    assert.truthy(err:find("/nonexistent/pipe.lua", 1, true))
    local path = tmpfile([[return { outputs = { "o" }, nodes = { { name = "a", create = { o = { buffer = 16 } } } } }]])
    g = fg.compile(path)
    os.remove(path)
    assert.are.same({ "a" }, g:order())
    g:close()
  end)
end)
