-- `framegraph check` and `report` on files that are not the user's own: a
-- hostile pipeline file neither runs commands, writes files, loads native
-- code nor hangs; each refusal names the file and line; --trust opts out.
-- The instruction limit is a count of Lua instructions, so these tests do
-- not depend on the machine's speed (the timeout below is a guard for a
-- true hang only, far above any run).
local sh = require("support.sh")
local sh_quote = sh.quote

local dir = os.tmpname()
os.remove(dir)
assert(os.execute("mkdir -p " .. sh_quote(dir)))

local function write(name, text)
  local f = assert(io.open(dir .. "/" .. name, "wb"))
  f:write(text)
  f:close()
  return dir .. "/" .. name
end
local function exists(path)
  local f = io.open(path, "rb")
  if f then f:close() return true end
  return false
end

-- runs bin/framegraph ARGS; returns exit status and stdout..stderr
local limit = ""  -- FRAMEGRAPH_INSTRUCTION_LIMIT=N for the next runs
local function run(...) return sh.framegraph(limit .. "timeout 300 ", ...) end

local GOOD = 'return { outputs = { "o" }, nodes = { { name = "a", create = { o = { buffer = 64 } } } } }\n'

describe("framegraph check runs pipeline files in a sandbox", function()
  teardown(function() os.execute("rm -rf " .. sh_quote(dir)) end)

  local cases = {
    { "os.execute", 'os.execute("touch ' .. dir .. '/PWNED")\n' .. GOOD, "os.execute is not available", ":1:" },
    { "io.popen", 'io.popen("touch ' .. dir .. '/PWNED")\n' .. GOOD, "io.popen is not available", ":1:" },
    { "writing a file", 'io.open("' .. dir .. '/PWNED", "w")\n' .. GOOD, "io.open is not available", ":1:" },
    { "reading /dev/zero", 'io.open("/dev/zero"):read("a")\n' .. GOOD, "io.open is not available", ":1:" },
    { "a __gc that runs after the check", 'setmetatable({}, { __gc = function() while true do end end })\n' .. GOOD,
      "__gc is not allowed", ":1:" },
    { "os.remove", 'os.remove("' .. dir .. '/keep")\n' .. GOOD, "os.remove is not available", ":1:" },
    { "package.loadlib", 'package.loadlib("libc.so.6", "system")\n' .. GOOD, "package.loadlib is not available", ":1:" },
    { "a C module through require", 'require("lfs")\n' .. GOOD, "only 'framegraph' and Lua files beside", ":1:" },
    { "a module path through require", 'require("../x")\n' .. GOOD, "only 'framegraph' and Lua files beside", ":1:" },
    { "load", 'load("os.execute(\'touch ' .. dir .. '/PWNED\')")()\n' .. GOOD, "nil", ":1:" },
    { "the device through fg", 'require("framegraph").vulkan{}\n' .. GOOD, "fg.vulkan: not available while", ":1:" },
    { "the shared string metatable", 'getmetatable("").__index = function() while true do end end\n' .. GOOD,
      "attempt to index a nil value", ":1:" },
    { "fg.core", 'require("framegraph").core.compile({})\n' .. GOOD, "field 'core'", ":1:" },
  }
  for _, c in ipairs(cases) do
    it("refuses " .. c[1] .. " with the file's line", function()
      write("keep", "x")
      local path = write("hostile.lua", c[2])
      local code, out = run("check", path)
      assert.are.equal(1, code, out)
      assert.truthy(out:find(path .. c[4], 1, true), out)
      assert.truthy(out:find(c[3], 1, true), out)
      assert.is_false(exists(dir .. "/PWNED"), "the command ran")
      assert.is_true(exists(dir .. "/keep"), "the file was removed")
    end)
  end

  it("ends an endless loop at the default limit", function()
    local path = write("loop.lua", "while true do end")
    local code, out = run("check", path)
    assert.are.equal(1, code, out)
    assert.truthy(out:find(path .. ": stopped after 200 million Lua instructions", 1, true), out)
  end)

  it("ends an endless loop with a message naming the file, even one that catches errors", function()
    limit = "FRAMEGRAPH_INSTRUCTION_LIMIT=20 "
    finally(function() limit = "" end)
    for _, text in ipairs({ "while true do end", "while true do pcall(function() while true do end end) end",
                            "while true do xpcall(function() while true do end end, function() end) end",
                            "return setmetatable({}, { __pairs = function() while true do end end })" }) do
      local path = write("loop.lua", text)
      local code, out = run("check", path)
      assert.are.equal(1, code, out)
      assert.truthy(out:find(path .. ": stopped after 20 million Lua instructions", 1, true), out)
      assert.truthy(out:find("--trust", 1, true), out)
      code, out = run("report", path, "-o", dir .. "/r.html", "--no-graphviz")
      assert.are.equal(1, code, out)
      assert.truthy(out:find("stopped after", 1, true), out)
    end
  end)

  -- work inside one C call (no instruction is counted there) and memory: a
  -- CPU-time backstop and a bound on the state's growth, set small here
  it("ends work inside one library call at the CPU limit, naming the file", function()
    limit = "FRAMEGRAPH_CPU_LIMIT=1 "
    finally(function() limit = "" end)
    for _, text in ipairs({ 'string.find(("a"):rep(3000), ("a*"):rep(30) .. "b")',
                            '(("a"):rep(5000)):match(("a-"):rep(40) .. "b")',
                            'local s = ("a"):rep(200000) s:gsub(".-.-.-.-b", "")' }) do
      local path = write("pattern.lua", text .. "\n" .. GOOD)
      local code, out = run("check", path)
      assert.are.equal(1, code, out)
      assert.truthy(out:find(path .. ": stopped after 1 s of CPU time", 1, true), out)
      assert.truthy(out:find("--trust", 1, true), out)
    end
  end)

  it("ends a memory bomb at the memory limit, naming the file, even one that catches errors", function()
    limit = "FRAMEGRAPH_MEMORY_LIMIT=64 "
    finally(function() limit = "" end)
    for _, text in ipairs({ 'local s = "x" for i = 1, 40 do s = s .. s end',
                            'local t = {} for i = 1, 1e9 do t[i] = i end',
                            'local s = string.format("%099d", 1):rep(1e6)',
                            'local t = {} while true do pcall(function() t[#t + 1] = ("x"):rep(1e6) .. #t end) end',
                            'local s = ("x"):rep(1e6):gsub("x", ("y"):rep(1e4))' }) do
      local path = write("bomb.lua", text .. "\n" .. GOOD)
      local code, out = run("check", path)
      assert.are.equal(1, code, out)
      assert.truthy(out:find(path .. ": stopped at the memory limit (64 MiB)", 1, true), out)
    end
  end)

  it("refuses a FIFO as the pipeline file or a helper beside it instead of blocking", function()
    local fifo = dir .. "/pipe.lua"
    assert(os.execute("mkfifo " .. sh_quote(fifo)))
    local code, out = run("check", fifo)
    assert.are.equal(1, code, out)
    assert.truthy(out:find(fifo .. ":1: cannot read the pipeline file: it is not a regular file (fifo)", 1, true), out)
    assert(os.execute("ln -s " .. sh_quote(fifo) .. " " .. sh_quote(dir .. "/helperfifo.lua")))
    local path = write("usesfifo.lua", 'local h = require("helperfifo")\n' .. GOOD)
    code, out = run("check", path)
    assert.are.equal(1, code, out)
    assert.truthy(out:find("is not a regular file (fifo)", 1, true), out)
    os.remove(dir .. "/helperfifo.lua")
    os.remove(fifo)
  end)

  -- with --trust too, and for every command that reads a pipeline file: the
  -- read of a fifo nobody writes (or of /dev/zero) would never end. Each run
  -- is under `timeout 20`, far above a refusal, so a regression fails
  -- instead of hanging the spec.
  it("refuses a FIFO, a directory, a device and a link to a FIFO with --trust too, in check, report and view",
     function()
    local fifo = dir .. "/trusted_pipe.lua"
    assert(os.execute("mkfifo " .. sh_quote(fifo)))
    assert(os.execute("ln -s " .. sh_quote(fifo) .. " " .. sh_quote(dir .. "/link_to_fifo.lua")))
    assert(os.execute("mkdir -p " .. sh_quote(dir .. "/adir.lua")))
    local kinds = { { fifo, "fifo" }, { dir .. "/link_to_fifo.lua", "fifo" }, { dir .. "/adir.lua", "directory" },
                    { "/dev/zero", "special" } }
    -- a socket, where python3 can bind one
    local sock = dir .. "/sock.lua"
    if os.execute("python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "
                  .. sh_quote(sock) .. " 2>/dev/null") then
      kinds[#kinds + 1] = { sock, "special" }
    end
    local function quick(...) return sh.framegraph("timeout 20 env -u DISPLAY ", ...) end
    for _, k in ipairs(kinds) do
      local path, kind = k[1], k[2]
      local want = ("%s:1: cannot read the pipeline file: it is not a regular file (%s)"):format(path, kind)
      for _, args in ipairs({ { "check", "--trust", path }, { "check", path }, { "report", "--trust", path, "-o", dir .. "/r.html" },
                              { "report", path, "-o", dir .. "/r.html" } }) do
        local code, out = quick(table.unpack(args))
        assert.are_not.equal(124, code, "blocked: " .. table.concat(args, " "))
        assert.are.equal(1, code, out)
        assert.truthy(out:find(want, 1, true), table.concat(args, " ") .. ": " .. out)
        assert.truthy(out:find("save it to a regular file", 1, true), out)
      end
    end
    -- the viewer loads the file with the same loader (headless: a screenshot run)
    local code, out = quick("view", fifo, "--device", "software", "--frames", "1", "--screenshot", dir .. "/v.png")
    assert.are_not.equal(124, code, "framegraph view blocked on a fifo")
    assert.are.equal(1, code, out)
    assert.truthy(out:find(fifo .. ": cannot read the pipeline file: it is not a regular file (fifo)", 1, true), out)
    os.remove(dir .. "/link_to_fifo.lua")
    os.remove(fifo)
    os.remove(sock)
    os.execute("rmdir " .. sh_quote(dir .. "/adir.lua"))
  end)

  it("fg.compile, fg.runtime, rt:reload and fg.watch refuse a FIFO; a watched file replaced by one is said once",
     function()
    local fifo = dir .. "/lib_pipe.lua"
    assert(os.execute("mkfifo " .. sh_quote(fifo)))
    local good = write("watched.lua", 'return { outputs = { "o" }, nodes = { { name = "a", create = { o = { buffer = 64 } }, '
                                      .. 'run = function() end } } }\n')
    local script = write("lib_fifo.lua", ([[
      local fg = require("framegraph")
      local out = {}
      local function say(...) local t = table.pack(...) for i = 1, t.n do out[#out + 1] = tostring(t[i]) end end
      say(fg.compile(%q))
      local dev = fg.vulkan{ validation = true, prefer = "software" }
      say(pcall(fg.runtime, dev, %q))
      local rt = fg.runtime(dev, %q)
      say(rt:reload(%q))
      say(pcall(fg.watch, rt, %q))
      local w = fg.watch(rt, %q)
      os.remove(%q)
      assert(os.execute("mkfifo " .. %q))
      say(w:poll())
      say(w:poll())
      print(table.concat(out, "\n"))
      print("MESSAGES " .. #dev:messages())
    ]]):format(fifo, fifo, good, fifo, fifo, good, good, sh_quote(good)))
    local p = io.popen("timeout 60 lua5.4 " .. sh_quote(script) .. " 2>&1")
    local out = p:read("a")
    local _, _, code = p:close()
    os.remove(fifo)
    os.remove(good)
    assert.are.equal(0, code, out)
    local lines = {}
    for l in out:gmatch("[^\n]+") do lines[#lines + 1] = l end
    local refusal = "cannot read the pipeline file: it is not a regular file (fifo)"
    -- fg.compile: nil, message (a file that cannot be read)
    assert.are.equal("nil", lines[1], out)
    assert.truthy(lines[2]:find(fifo .. ": " .. refusal, 1, true), out)
    -- fg.runtime: raises
    assert.are.equal("false", lines[3], out)
    assert.truthy(lines[4]:find(refusal, 1, true), out)
    -- rt:reload: nil, message
    assert.are.equal("nil", lines[5], out)
    assert.truthy(lines[6]:find(refusal, 1, true), out)
    -- fg.watch: raises
    assert.are.equal("false", lines[7], out)
    assert.truthy(lines[8]:find("fg.watch: " .. fifo .. ": " .. refusal, 1, true), out)
    -- the watched file became a fifo: "error" once, then quiet
    assert.are.equal("error", lines[9], out)
    assert.truthy(lines[10]:find(good .. ": " .. refusal, 1, true), out)
    assert.are.equal("nil", lines[11], out)
    assert.truthy(out:find("MESSAGES 0", 1, true), out)
  end)

  it("cuts a huge error message", function()
    local path = write("bigerror.lua", 'error(("x"):rep(1e6))\n' .. GOOD)
    local code, out = run("check", path)
    assert.are.equal(1, code, out)
    assert.truthy(out:find("more bytes cut", 1, true), out)
    assert.is_true(#out < 20000, "printed " .. #out .. " bytes")
  end)

  it("lets a pipeline require Lua files beside it and framegraph", function()
    write("helper.lua", 'local fg = require("framegraph")\nreturn { size = #fg.vocab.usages > 0 and 4096 or 0 }\n')
    local path = write("withhelper.lua", 'local h = require("helper")\n'
                                         .. 'return { outputs = { "o" }, nodes = { { name = "a", create = { o = { buffer = h.size } } } } }\n')
    local code, out = run("check", path)
    assert.are.equal(0, code, out)
    assert.truthy(out:find("ok: " .. path .. ", 1 node, 4.0 KiB", 1, true), out)
  end)

  it("checks the examples, which read debug.getinfo and package.path", function()
    local code, out = run("check", "examples/vr.lua", "examples/taa.lua")
    assert.are.equal(0, code, out)
  end)

  it("says a file without an `if dev` guard ran without a device, at the file's line", function()
    local path = write("noguard.lua", 'local dev = ...\nlocal fg = require("framegraph")\n'
                                      .. 'local sh = fg.shader(dev, "ex_blur.comp.spv")\n' .. GOOD)
    for _, trust in ipairs({ false, true }) do
      local code, out
      if trust then code, out = run("check", "--trust", path) else code, out = run("check", path) end
      assert.are.equal(1, code, out)
      assert.truthy(out:find(path .. ":3: fg.shader: no device", 1, true), out)
      assert.truthy(out:find("if dev then", 1, true), out)
      assert.falsy(out:find("vulkan.lua", 1, true), out)
    end
  end)

  it("--trust runs the file with the full library", function()
    local path = write("trusted.lua", 'local f = assert(io.open("' .. dir .. '/TRUSTED", "w"))\nf:close()\n' .. GOOD)
    local code, out = run("check", "--trust", path)
    assert.are.equal(0, code, out)
    assert.is_true(exists(dir .. "/TRUSTED"))
  end)
end)
