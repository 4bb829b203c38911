-- framegraph.source: where a pipeline's declarations are written, so that a
-- compiler or schema message can say `file:line:`. Lua keeps no line for a
-- table constructor, so the text is searched: a node by its `name = "..."`
-- field, a resource by its quoted name (`read = { "ao_" }`) or key
-- (`history = { acum = ... }`) inside that node's lines.
--   source.file_of(pipeline) -> path, anchors | nil: the file the pipeline's
--     run functions come from (when it declares the nodes); anchors[node] is
--     the line its run is defined at (several pipelines in one file: the
--     nearest `name =` above it is the node)
--   source.map(path [, anchors]) -> map with map.node[name] = line, map.key(k, from)
--   source.line_for(map, msg) -> line of one message
--   source.caller_file(pipeline, level) -> path | nil: the first file up the stack (from level) that
--     declares one of the nodes
--   source.annotate(msg, path [, anchors, strict]) -> every message line prefixed with
--     "path:line: " (indented lines, which explain the one above, stay as they are;
--     strict: only lines whose subject is found in the file)
--   source.load(path, ...) -> pipeline | nil, message, missing: runs a pipeline file
--     (with ... as the chunk's arguments); missing is true when the file cannot be opened
--     or is not a regular file
--   source.regular(path [, kind]) -> true | nil, why: a pipeline file is a regular file (why:
--     what it is instead and how to fix it, without the path); kind: core.mtime's third
--     answer, when the caller has it (no second stat)
local M = {}

-- A FIFO, a device (/dev/zero), a socket or a directory as a pipeline file:
-- reading it whole blocks inside C (no writer, or no end), past every limit
-- (framegraph check's instruction count, a watcher's poll); refused before
-- it is opened. A path that cannot be stat'ed is left to the open's message.
function M.regular(path, kind)
  if kind == nil then kind = select(3, require("framegraph.core").mtime(path)) end
  if kind == nil or kind == "file" then return true end
  return nil, ("cannot read the pipeline file: it is not a regular file (%s); a pipeline file is read whole, "
               .. "and a fifo or device could block for good: save it to a regular file first "
               .. "(git show branch:file > file.lua)"):format(kind)
end

function M.load(path, ...)
  if path:find("\0", 1, true) then
    return nil, ("the path '%s' holds a NUL byte; paths cannot contain NUL"):format((path:gsub("%z", "\\0")))
  end
  local regular, why = M.regular(path)
  if not regular then return nil, path .. ": " .. why, true end
  local chunk, err = loadfile(path, "t")
  if not chunk then
    local f = io.open(path, "r")
    if f then f:close() end
    return nil, err, f == nil
  end
  local ok, p = pcall(chunk, ...)
  if not ok then return nil, tostring(p) end
  if type(p) ~= "table" then return nil, ("%s: a pipeline file must return a table, got %s"):format(path, type(p)) end
  return p
end

local function read_lines(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local text = f:read("a")
  f:close()
  local lines = {}
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do lines[#lines + 1] = line end
  return lines
end

local function esc(s) return (s:gsub("[%^%$%(%)%%%.%[%]%*%+%-%?]", "%%%0")) end

-- Lines of `name = "n"` (any quote or [[n]]) for every node name.
local function node_lines(lines)
  local at = {}
  for i, line in ipairs(lines) do
    for _, n in line:gmatch("name%s*=%s*([\"'])(.-)%1") do
      at[n] = at[n] or {}
      at[n][#at[n] + 1] = i
    end
    for n in line:gmatch("name%s*=%s*%[%[(.-)%]%]") do
      at[n] = at[n] or {}
      at[n][#at[n] + 1] = i
    end
  end
  return at
end

function M.map(path, anchors)
  local lines = read_lines(path) or {}
  local all = node_lines(lines)
  local map = { node = {}, count = {}, lines = lines, path = path }
  for n, list in pairs(all) do
    map.count[n] = #list
    local pick = list[1]
    local near = anchors and anchors[n]
    if near then  -- the last `name =` at or above its run function
      for _, l in ipairs(list) do if l <= near then pick = l end end
    end
    map.node[n] = pick
  end
  -- the line after which the node starting at `start` ends: the next node's name line
  local starts = {}
  for _, list in pairs(all) do for _, l in ipairs(list) do starts[#starts + 1] = l end end
  table.sort(starts)
  function map.stop(start)
    for _, l in ipairs(starts) do if l > start then return l - 1 end end
    return #lines
  end
  -- first line declaring `key =` (a pipeline field, an external, a resource)
  function map.key(k, from, to)
    local pat = "%f[%w_]" .. esc(k) .. "%s*=[^=]"
    local qpat = "%[%s*[\"']" .. esc(k) .. "[\"']%s*%]%s*="
    for i = from or 1, to or #lines do
      local l = lines[i] .. " "
      if l:find(pat) or l:find(qpat) then return i end
    end
    return nil
  end
  -- first line where `word` is written as a quoted string or as a key
  function map.word(word, from, to)
    local q1, q2 = '"' .. esc(word) .. '"', "'" .. esc(word) .. "'"
    local pat = "%f[%w_]" .. esc(word) .. "%s*=[^=]"
    local qpat = "%[%s*[\"']" .. esc(word) .. "[\"']%s*%]%s*="
    for i = from or 1, to or #lines do
      local l = lines[i] .. " "
      if l:find(q1) or l:find(q2) or l:find(pat) or l:find(qpat) then return i end
    end
    return nil
  end
  return map
end

-- The line a compiler or schema message is about (strict: nil when the
-- message names nothing that is written in the file).
function M.line_for(map, msg, strict)
  local n = msg:match("^node '([^']+)'") or msg:match("^cycle: ([^%s%[]+)")
  if n and map.node[n] then
    local start = map.node[n]
    -- "node 'a': read 'ao_': ..." / "unknown field 'reed'": where it is written in this node
    local what = msg:match("^node '[^']+': [^']-'([^']+)'")
    if what then
      local at = map.word(what, start, map.stop(start))
      if at then return at end
    end
    return start
  end
  local ext = msg:match("^external '([^']+)'")
  if ext then
    local at = map.key("external")
    return (at and map.key(ext, at)) or at or 1
  end
  local field = msg:match("^([%a_]+)")
  if field and field ~= "pipeline" and field ~= "node" and field ~= "cycle" then
    local at = map.key(field)
    if at then
      local what = msg:match("^[%a_]+: [^']-'([^']+)'")
      return (what and map.word(what, at, math.min(#map.lines, at + 20))) or at
    end
  end
  -- any quoted node name in the message
  for word in msg:gmatch("'([^']+)'") do
    if map.node[word] then return map.node[word] end
  end
  if strict then return nil end
  return map.key("nodes") or 1
end

-- The file a pipeline table was written in, from its run functions' debug
-- information; only a file that declares one of the nodes counts.
function M.file_of(pipeline)
  if type(pipeline) ~= "table" or type(pipeline.nodes) ~= "table" then return nil end
  local path, anchors = nil, {}
  for _, n in ipairs(pipeline.nodes) do
    if type(n) == "table" and type(n.run) == "function" and type(n.name) == "string" then
      local info = debug.getinfo(n.run, "S")
      if info.source:sub(1, 1) == "@" then
        local src = info.source:sub(2)
        if not path or src == path then
          path = path or src
          anchors[n.name] = info.linedefined
        end
      end
    end
  end
  if not path then return nil end
  local map = M.map(path, anchors)
  for name in pairs(anchors) do
    if map.node[name] then return path, anchors end
  end
  return nil
end

-- The file of a Lua function on the stack (level as debug.getinfo) when it
-- declares one of the pipeline's nodes: a pipeline written inline in a
-- script or spec that calls fg.compile.
function M.caller_file(pipeline, level)
  if type(pipeline) ~= "table" or type(pipeline.nodes) ~= "table" then return nil end
  local tried = {}
  for l = level + 1, level + 8 do  -- through pcall and framegraph's own functions
    local info = debug.getinfo(l, "S")
    if not info then break end
    local path = info.source:sub(1, 1) == "@" and info.source:sub(2)
    if path and not tried[path] and not path:find("framegraph[/\\][%w_]+%.lua$") then
      tried[path] = true
      -- only a file that declares each of the nodes once: a file of many
      -- pipelines (a spec) would send the reader to another pipeline's line
      local map, found, unique = M.map(path), false, true
      for _, n in ipairs(pipeline.nodes) do
        if type(n) == "table" and type(n.name) == "string" then
          found = found or map.node[n.name] ~= nil
          unique = unique and (map.count[n.name] or 0) <= 1
        end
      end
      if found and unique then return path end
    end
  end
  return nil
end

local located = "^[^\n:]+:%d+: "

function M.annotate(msg, path, anchors, strict)
  msg = tostring(msg)
  if not path then return msg end
  local map = M.map(path, anchors)
  if #map.lines == 0 then return msg end
  local out = {}
  for line in (msg .. "\n"):gmatch("([^\n]*)\n") do
    local at = not (line == "" or line:find("^%s") or line:find(located)) and M.line_for(map, line, strict)
    out[#out + 1] = at and ("%s:%d: %s"):format(path, at, line) or line
  end
  return table.concat(out, "\n")
end

return M
