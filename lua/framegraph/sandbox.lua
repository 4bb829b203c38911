-- framegraph.sandbox: runs a pipeline file that may not be the user's own
-- (`framegraph check` and `report` in a pre-commit hook or CI job checking
-- someone else's branch) in a restricted environment:
--  * no process spawning and no files: no os.execute, io.popen, io.open,
--    os.remove... (reading could block inside C, where nothing is counted);
--    no __gc metamethods (they would run after the check);
--  * no native modules: no package.loadlib, no C searchers; `require` finds
--    "framegraph" (a plan-only subset: no device, runtime, watcher or file
--    writing) and Lua files beside the pipeline, nothing else;
--  * no load/dofile/coroutine, and a debug table with getinfo alone (no
--    function values: they could hand out the unrestricted pcall);
--  * a limit on Lua instructions (a count hook, so it means the same on any
--    machine), over loading the file and compiling it, with pcall and xpcall
--    wrapped so the file cannot catch the limit's error and go on.
-- fg.watch and the viewer run the user's own files with the full library;
-- `framegraph check --trust` does too.
local M = {}

-- About 2 s of Lua on a slow machine; the examples use under 2 %. The
-- environment variable FRAMEGRAPH_INSTRUCTION_LIMIT (millions) sets another:
-- it belongs to whoever runs the check, not to the file checked.
M.instruction_limit = (tonumber(os.getenv("FRAMEGRAPH_INSTRUCTION_LIMIT") or "") or 200) * 1000 * 1000
local STEP = 10000  -- the count hook's period
-- What the count cannot see: one C call that never returns (a backtracking
-- string pattern, os.date with a huge format) and memory (s = s .. s forty
-- times). A CPU-time backstop ends the process naming the file, and the
-- state may grow by a bounded number of bytes while the file runs
-- (csrc/lua/limits.c). Both belong to whoever runs the check:
-- FRAMEGRAPH_CPU_LIMIT (seconds) and FRAMEGRAPH_MEMORY_LIMIT (MiB).
M.cpu_limit = tonumber(os.getenv("FRAMEGRAPH_CPU_LIMIT") or "") or 20
M.memory_limit = (tonumber(os.getenv("FRAMEGRAPH_MEMORY_LIMIT") or "") or 1024) * 1024 * 1024
local MESSAGE_MAX = 8192  -- longer error messages are cut: error(("x"):rep(1e9)) printed a gigabyte

local LIMIT_TAG = "framegraph.sandbox: instruction limit"

local function copy(t, only)
  local c = {}
  for k, v in pairs(t) do if not only or only[k] then c[k] = v end end
  return c
end

local function set(list)
  local s = {}
  for _, v in ipairs(list) do s[v] = true end
  return s
end

-- The framegraph functions a pipeline file may call while being checked:
-- they plan, they never touch a device or write a file.
local fg_allowed = set({ "version", "vocab", "compile", "pack", "pack_load", "check_packing", "shader", "shader_dir" })

-- new(path) -> env, run
-- env: the environment the file's chunk gets; run(fn, handler, ...) calls fn
-- under the instruction limit like xpcall(fn, handler, ...): true, results...
-- or false, handler(error); past the limit false and a message naming the file.
function M.new(path)
  local dir = path:match("^(.*)[/\\][^/\\]*$") or "."
  local env = {}
  local exceeded = false
  local limit_msg = string.format(
    "%s: stopped after %d million Lua instructions: a pipeline file must build its table quickly "
      .. "(an endless loop?); if you trust this file, run with --trust to lift the limit",
    path, math.floor(M.instruction_limit / 1000000))
  local memory_msg = string.format(
    "%s: stopped at the memory limit (%d MiB): a pipeline file must not build huge strings or tables; if you "
      .. "trust this file, run with --trust to lift the limit (or set FRAMEGRAPH_MEMORY_LIMIT, in MiB)",
    path, math.floor(M.memory_limit / 1048576))
  local cpu_msg = string.format(
    "%s: stopped after %g s of CPU time, work the instruction count does not see (a string pattern that "
      .. "backtracks without end, one huge library call?); if you trust this file, run with --trust to lift the limit (or set FRAMEGRAPH_CPU_LIMIT, in seconds)",
    path, M.cpu_limit)
  local memory_hit = false

  for _, k in ipairs({ "assert", "error", "ipairs", "pairs", "next", "select", "tonumber", "tostring", "type",
                       "rawequal", "rawget", "rawset", "rawlen", "print",
                       "_VERSION" }) do
    env[k] = _G[k]
  end
  -- the string metatable is shared with the checker itself: a file that
  -- replaced its __index would run code after the sandbox has ended
  env.getmetatable = function(o)
    if type(o) == "string" then return nil end
    return getmetatable(o)
  end
  env.string, env.table, env.math, env.utf8 = copy(string), copy(table), copy(math), copy(utf8)
  -- a __gc would run when the checker's state closes, past every limit
  env.setmetatable = function(t, mt)
    if type(mt) == "table" and rawget(mt, "__gc") ~= nil then
      error("setmetatable: __gc is not allowed while a pipeline file is checked (it would run after the "
              .. "check); use --trust for your own files", 2)
    end
    return setmetatable(t, mt)
  end
  env.string.dump = nil
  env.os = copy(os, set({ "clock", "time", "date", "difftime" }))
  -- no file access at all: writing is the harm, and reading could block or
  -- never end inside C where no instruction is counted (/dev/zero, a FIFO)
  env.io = {}
  env.debug = {
    getinfo = function(level, what)
      if type(level) == "number" and level >= 1 then level = level + 1 end
      if type(level) ~= "number" then error("debug.getinfo: only a stack level is allowed here", 2) end
      local info = debug.getinfo(level, (type(what) == "string" and what or "Sl"):gsub("[fL]", ""))
      if info then info.func, info.activelines = nil, nil end
      return info
    end,
    traceback = function(msg) return tostring(msg or "") end,
  }

  -- pcall/xpcall that cannot swallow the limit: once it is reached, every
  -- protected call re-raises it
  local function rethrow(ok, ...)
    if exceeded then error(limit_msg, 0) end
    if not ok and (...) == "not enough memory" then memory_hit = true end
    if memory_hit then error(memory_msg, 0) end
    return ok, ...
  end
  env.pcall = function(f, ...) return rethrow(pcall(f, ...)) end
  env.xpcall = function(f, handler, ...)
    return rethrow(xpcall(f, function(e) if exceeded then return e end return handler(e) end, ...))
  end

  -- require: framegraph (plan-only) and Lua files beside the pipeline
  local loaded = {}
  local function safe_fg()
    local fg = require("framegraph")
    local t = {}
    for k in pairs(fg_allowed) do t[k] = fg[k] end
    -- the rest says why it is missing, at the caller's line
    return setmetatable(t, { __index = function(_, k)
      if fg[k] == nil then return nil end
      return function()
        error(string.format("fg.%s: not available while a pipeline file is checked: framegraph check and report "
                              .. "plan without a device and run the file in a sandbox; guard device work with "
                              .. "`if dev then ... end` (or use --trust for your own files)", k), 2)
      end
    end })
  end
  env.package = { path = dir .. "/?.lua", cpath = "", loaded = loaded, config = package.config }
  env.require = function(name)
    if type(name) ~= "string" then error("require: expected a module name, got " .. type(name), 2) end
    if loaded[name] ~= nil then return loaded[name] end
    if name == "framegraph" then loaded[name] = safe_fg() return loaded[name] end
    if not name:match("^[%w_]+$") then
      error(string.format("require '%s': while a pipeline file is checked, only 'framegraph' and Lua files beside "
                            .. "it (%s/NAME.lua) can be required; use --trust for your own files", name, dir), 2)
    end
    local file = dir .. "/" .. name .. ".lua"
    -- a bounded read: a link to /dev/zero must not read forever; a FIFO would block inside C
    local chunk, err
    local _, _, kind = require("framegraph.core").mtime(file)
    local f, ferr
    if kind and kind ~= "file" then ferr = file .. " is not a regular file (" .. kind .. ")"
    else f, ferr = io.open(file, "rb") end
    if not f then err = ferr
    else
      local text = f:read(16 * 1024 * 1024) or ""
      f:close()
      chunk, err = load(text, "@" .. file, "t", env)
    end
    if not chunk then
      error(string.format("require '%s': %s (only 'framegraph' and Lua files beside the pipeline are found while "
                            .. "it is checked)", name, err), 2)
    end
    local res = chunk(name, file)
    if res == nil then res = true end
    loaded[name] = res
    return res
  end
  env._G = env
  -- what the sandbox leaves out says so when it is called
  for lib, t in pairs({ os = env.os, io = env.io, package = env.package, debug = env.debug }) do
    setmetatable(t, { __index = function(_, k)
      if _G[lib] == nil or _G[lib][k] == nil then return nil end
      return function()
        error(string.format("%s.%s is not available while a pipeline file is checked (no commands, no file writing, "
                              .. "no native modules); use --trust for your own files", lib, tostring(k)), 2)
      end
    end })
  end

  local core = require("framegraph.core")
  local function run(fn, handler, ...)
    local count = 0
    core.sandbox_limits(M.cpu_limit, M.memory_limit, cpu_msg)
    debug.sethook(function()
      count = count + STEP
      if count >= M.instruction_limit then
        exceeded = true
        error(LIMIT_TAG, 0)
      end
    end, "", STEP)
    local res = table.pack(xpcall(fn, function(e)
      if exceeded then return limit_msg end
      if memory_hit or e == "not enough memory" then memory_hit = true return memory_msg end
      return handler(e)
    end, ...))
    debug.sethook()
    if core.sandbox_release() then memory_hit = true end
    if exceeded then return false, limit_msg end
    if memory_hit then return false, memory_msg end
    if not res[1] and type(res[2]) == "string" and #res[2] > MESSAGE_MAX then
      res[2] = res[2]:sub(1, MESSAGE_MAX) .. string.format(" ... (%d more bytes cut)", #res[2] - MESSAGE_MAX)
    end
    return table.unpack(res, 1, res.n)
  end
  return env, run
end

return M
