-- File helpers the shell-driven specs share (report page, viewer, reload).
local M = {}

function M.write(path, text)
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
end

-- Replaces path's text whole, as an editor's save does (write beside, then
-- rename): a process watching path never reads a half-written file, which
-- it would take for an edit of its own.
function M.put(path, text)
  M.write(path .. ".new", text)
  assert(os.rename(path .. ".new", path))
end

-- The file's contents, or nil when it cannot be opened.
function M.read(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

-- s single-quoted for sh.
function M.quote(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end

-- Runs bin/framegraph with args (each quoted) after prefix (environment
-- settings, a `timeout N `; "" for none): its exit status and its output,
-- stderr included.
function M.framegraph(prefix, ...)
  local args = {}
  for i, a in ipairs({ ... }) do args[i] = M.quote(a) end
  local p = io.popen(prefix .. "bin/framegraph " .. table.concat(args, " ") .. " 2>&1")
  local out = p:read("a")
  local _, _, code = p:close()
  return code, out
end

-- Runs a Lua source in its own lua5.4 process (a crash or a hang takes
-- only that case down: timeout 120 s), after prefix (environment settings;
-- none when nil); its exit code and its output.
function M.child(source, prefix)
  local path = os.tmpname()
  M.write(path, source)
  local p = io.popen((prefix or "") .. "timeout 120 lua5.4 " .. path .. " 2>&1")
  local out = p:read("a")
  local _, _, code = p:close()
  os.remove(path)
  return code, out
end

return M
