-- framegraph.diff: what changed between two pipeline tables (rt:reload).
--   diff.changes(old, new) -> { added = {names}, removed = {names}, changed = {names}
--     (declarations differ), run_changed = {names} (only `run` differs), moved = {names}
--     (same node at another position), full = bool (pipeline-level fields differ),
--     structural = bool (the graph must be compiled again) }
-- Values are compared by content; functions by their stripped bytecode, so a
-- reloaded but identical function compares equal (upvalues are not compared:
-- a reload always takes the new run functions).
--   diff.copy(t) -> the copy a graph or runtime keeps of a pipeline given to it
local M = {}

-- A deep copy of the tables, read raw (no metamethod runs): functions,
-- userdata and metatables are shared (they are the caller's code), shared
-- subtables and cycles stay shared and cyclic. fg.compile, graph:update,
-- fg.runtime and rt:reload keep one, so a caller's later change to the table
-- it passed cannot reach a re-plan or the next update's diff. Iterative: a
-- deeply nested table cannot overflow the stack. A metatable's __gc is left
-- out of the copy's (it would run the caller's finalizer once more, and
-- outside framegraph check's limits).
function M.copy(t)
  if type(t) ~= "table" then return t end
  local seen, todo = {}, {}
  local function get(x)
    if type(x) ~= "table" then return x end
    local c = seen[x]
    if not c then
      c = {}
      seen[x] = c
      todo[#todo + 1] = x
    end
    return c
  end
  local root = get(t)
  while #todo > 0 do
    local src = todo[#todo]
    todo[#todo] = nil
    local dst = seen[src]
    for k, v in next, src do dst[get(k)] = get(v) end  -- dst has no metatable yet: raw
    local mt = debug.getmetatable(src)
    if type(mt) == "table" then
      if rawget(mt, "__gc") ~= nil then
        local m = {}
        for k, v in next, mt do if k ~= "__gc" then m[k] = v end end
        mt = m
      end
      setmetatable(dst, mt)
    end
  end
  return root
end

local function serialize(v, out, seen)
  local t = type(v)
  if t == "table" then
    if seen[v] then out[#out + 1] = "<cycle>" return end
    seen[v] = true
    local keys = {}
    for k in pairs(v) do keys[#keys + 1] = k end
    table.sort(keys, function(a, b)
      local ta, tb = type(a), type(b)
      if ta ~= tb then return ta < tb end
      if ta == "number" or ta == "string" then return a < b end
      return tostring(a) < tostring(b)
    end)
    out[#out + 1] = "{"
    for _, k in ipairs(keys) do
      serialize(k, out, seen)
      out[#out + 1] = "="
      serialize(v[k], out, seen)
      out[#out + 1] = ","
    end
    out[#out + 1] = "}"
    seen[v] = nil
  elseif t == "function" then
    local ok, code = pcall(string.dump, v, true)
    out[#out + 1] = ok and ("fn:" .. code) or tostring(v)
  elseif t == "string" then
    out[#out + 1] = string.format("%q", v)
  else
    out[#out + 1] = tostring(v)
  end
end

function M.signature(v)
  local out = {}
  serialize(v, out, {})
  return table.concat(out)
end

-- Declaration and run signatures of a node.
local function node_signatures(node)
  local copy = {}
  for k, v in pairs(node) do if k ~= "run" then copy[k] = v end end
  return M.signature(copy), node.run and M.signature(node.run) or ""
end

local function top_signature(p)
  local copy = {}
  for k, v in pairs(p) do if k ~= "nodes" then copy[k] = v end end
  return M.signature(copy)
end

local function nodes_of(p)
  return type(p.nodes) == "table" and p.nodes or {}
end

function M.changes(old, new)
  local c = { added = {}, removed = {}, changed = {}, run_changed = {}, moved = {}, full = false, structural = false }
  local old_by_name, new_by_name = {}, {}
  -- only string names are keys (a NaN name would raise here, not in the schema)
  for i, n in ipairs(nodes_of(old)) do if type(n) == "table" and type(n.name) == "string" then old_by_name[n.name] = { i = i, node = n } end end
  for i, n in ipairs(nodes_of(new)) do if type(n) == "table" and type(n.name) == "string" then new_by_name[n.name] = { i = i, node = n } end end
  c.full = top_signature(old) ~= top_signature(new)
  for name in pairs(old_by_name) do
    if not new_by_name[name] then c.removed[#c.removed + 1] = tostring(name) end
  end
  table.sort(c.removed)
  for i, n in ipairs(nodes_of(new)) do
    if type(n) ~= "table" or type(n.name) ~= "string" then
      c.structural = true  -- not a node the compiler accepts: let it say why
    else
      local o = old_by_name[n.name]
      if not o then
        c.added[#c.added + 1] = tostring(n.name)
      else
        local s_old, r_old = node_signatures(o.node)
        local s_new, r_new = node_signatures(n)
        if s_old ~= s_new then c.changed[#c.changed + 1] = n.name
        elseif r_old ~= r_new then c.run_changed[#c.run_changed + 1] = n.name end
        if o.i ~= i then c.moved[#c.moved + 1] = n.name end
      end
    end
  end
  c.structural = c.structural or c.full or #c.added > 0 or #c.removed > 0 or #c.changed > 0
    or #nodes_of(old) ~= #nodes_of(new)
  return c
end

return M
