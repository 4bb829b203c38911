-- framegraph.watch: live reload of a pipeline file.
--   w = fg.watch(rt, path [, opts])   -- rt runs `path` (or what it was made from)
--   w:poll() -> "reloaded", changes | "error", message | nil (nothing new)
--   w:last_error() -> message | nil (the last poll's error, until a good reload)
--   w:close()
--   opts.content = false: trust mtime and size, never read the file
--   opts.reload = function(rt, path) -> ok, changes | nil, message: how a
--     change is applied (default rt:reload(path)); a host that adds nodes of
--     its own to the file's pipeline (framegraph view) loads it there.
-- Call w:poll() between frames; rt:frame never polls (no hidden file I/O in a
-- frame). A poll costs one stat() and, unless opts.content == false, one read
-- of the file: the kernel's file clock is coarser than the nanosecond mtime, so
-- two saves in a row can share mtime and size; comparing the text catches them.
-- A save that does not change the text reloads nothing. An empty file is an
-- editor saving in place (it truncates, then writes): no pipeline file is
-- empty, so the poll looks again next time instead of reporting an error that
-- the rest of the save is about to undo. A bad edit (syntax
-- error, invalid pipeline, error while the file runs) leaves the last good
-- pipeline running and is reported as "error" with file, line and node; an
-- error inside a node's run during the first frame after a reload makes
-- rt:frame roll back (see framegraph.runtime) and the next poll reports it.
local core = require("framegraph.core")
local runtime = require("framegraph.runtime")
local source = require("framegraph.source")

local M = {}
local W = {}
W.__index = W

local function read_all(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local text = f:read("a")
  f:close()
  return text
end

function M.watch(rt, path, opts)
  if type(rt) ~= "userdata" or type(rt.reload) ~= "function" then
    error("fg.watch: argument #1 must be a runtime (fg.runtime)", 2)
  end
  if type(path) ~= "string" then error("fg.watch: argument #2 must be the pipeline file's path", 2) end
  if path:find("\0", 1, true) then error("fg.watch: the path holds a NUL byte; paths cannot contain NUL", 2) end
  opts = require("framegraph.opts").check(opts, "fg.watch", { content = true, reload = true })
  if opts.reload ~= nil and type(opts.reload) ~= "function" then
    error("fg.watch: opts.reload must be a function(rt, path)", 2)
  end
  local mtime, size, kind = core.mtime(path)
  if not mtime then error("fg.watch: " .. size, 2) end
  local regular, why = source.regular(path, kind)
  if not regular then error(("fg.watch: %s: %s"):format(path, why), 2) end
  return setmetatable({
    rt = rt, path = path, content = opts.content ~= false, reload = opts.reload,
    mtime = mtime, size = size, kind = kind, text = read_all(path),
    seen = #runtime._rollbacks(rt),  -- rollbacks reported so far
    err = nil,
  }, W)
end

function W:poll()
  if not self.rt then error("watcher is closed", 2) end
  if self.polling then error("w:poll inside its own opts.reload is refused: the reload is already under way", 2) end
  local state = core.runtime_state(self.rt)
  if state == "closed" or state == "closing" then
    error("watcher is closed: the runtime it reloads was closed", 2)
  end
  if state == "recording" then
    error("w:poll inside a node's run is refused: a reload would destroy objects the frame being recorded uses; "
          .. "poll between frames", 2)
  end
  local rollbacks = runtime._rollbacks(self.rt)
  if #rollbacks > self.seen then
    self.seen = #rollbacks
    self.err = rollbacks[#rollbacks]
    return "error", self.err
  end
  local mtime, size, kind = core.mtime(self.path)
  if not mtime then return nil end  -- mid-save (editors replace the file): look again next time
  if kind ~= "file" then
    -- replaced by a fifo or a device: reading it could block the poll for good;
    -- said once, then quiet until it is a file again
    local said = self.kind ~= "file"
    self.kind = kind
    if said then return nil end
    self.err = ("%s: %s"):format(self.path, select(2, source.regular(self.path, kind)))
    return "error", self.err
  end
  self.kind = kind
  if size == 0 then return nil end  -- saved in place, not yet written: look again next time
  if mtime == self.mtime and size == self.size and not self.content then return nil end
  local text = self.content and read_all(self.path) or nil
  self.mtime, self.size = mtime, size
  if self.content then
    if text == nil or text == self.text then return nil end
    self.text = text
  end
  local ok, changes
  if self.reload then
    -- the host's reload: not re-entered from itself, and held to its contract
    -- (a malformed answer was reported as "reloaded" or as an error without a message)
    self.polling = true
    local pok, a, b = pcall(self.reload, self.rt, self.path)
    self.polling = false
    if not pok then error(a, 0) end
    if not ((a == true and type(b) == "table") or (a == nil and type(b) == "string")) then
      error(("fg.watch: opts.reload must return true, changes (a table) or nil, message (a string); it returned %s, %s")
              :format(type(a), type(b)), 2)
    end
    ok, changes = a, b
  else ok, changes = self.rt:reload(self.path) end
  if not ok then
    self.err = changes
    return "error", changes
  end
  self.err = nil
  return "reloaded", changes
end

function W:last_error() return self.err end

function W:close()
  self.rt = nil
  self.text = nil
end

W.__close = W.close

function W:__tostring()
  return ("framegraph.watch (%s%s)"):format(self.path, self.rt and "" or ", closed")
end

return M
