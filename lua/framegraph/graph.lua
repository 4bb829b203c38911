-- framegraph.graph: fg.compile and the graph methods written in Lua
-- (update for hot reload, dot/svg pictures). The compiler itself is C
-- (csrc/core/graph.c through csrc/lua/graph.c).
local core = require("framegraph.core")
local report = require("framegraph.report")
local schema = require("framegraph.schema")

local M = {}

-- fg.compile(pipeline, opts): the schema check first (every problem in one
-- error), then the C compiler, which never calls back into Lua modules.
function M.compile(pipeline, opts)
  schema.check(pipeline, opts)
  -- C errors name node, resource and field themselves: no "graph.lua:N:" prefix
  local ok, graph = pcall(core.compile, pipeline, opts)
  if not ok then error(graph, 0) end
  return graph
end

local methods = core.graph_methods

-- Deterministic text of a value; functions by their stripped bytecode so a
-- reloaded but identical function compares equal.
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
      return a < b
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
local function signature(v)
  local out = {}
  serialize(v, out, {})
  return table.concat(out)
end

local function node_signatures(node)
  local run = node.run
  local copy = {}
  for k, v in pairs(node) do if k ~= "run" then copy[k] = v end end
  return signature(copy), run and signature(run) or ""
end

local function top_signature(p)
  local copy = {}
  for k, v in pairs(p) do if k ~= "nodes" then copy[k] = v end end
  return signature(copy)
end

-- graph:update(pipeline) -> changes
-- Re-declares only the nodes whose table changed (by name and content). The
-- new pipeline is fully checked first, so a failing update raises and leaves
-- the graph as it was. changes = {added = {names}, removed = {names},
-- changed = {names} (declarations differ), run_changed = {names} (only the
-- run function differs), recompiled = bool, full = bool (pipeline-level
-- fields changed: everything re-declared)}.
function methods:update(new)
  if type(new) ~= "table" then error("bad argument #1 to 'update' (pipeline table expected)", 2) end
  local old = self:pipeline()
  local opts = self:_opts()
  M.compile(new, opts):close()  -- raises with every problem; nothing touched yet
  local changes = { added = {}, removed = {}, changed = {}, run_changed = {}, recompiled = false, full = false }
  local old_by_name, new_by_name = {}, {}
  for i, n in ipairs(old.nodes) do old_by_name[n.name] = { i = i, node = n } end
  for i, n in ipairs(new.nodes) do new_by_name[n.name] = { i = i, node = n } end
  if top_signature(old) ~= top_signature(new) then
    changes.full = true
    for name in pairs(old_by_name) do
      if not new_by_name[name] then changes.removed[#changes.removed + 1] = name end
    end
    for i, n in ipairs(new.nodes) do
      local o = old_by_name[n.name]
      if not o then changes.added[#changes.added + 1] = n.name
      elseif signature(o.node) ~= signature(n) then changes.changed[#changes.changed + 1] = n.name end
    end
    table.sort(changes.removed)
    self:_replace(new)
    changes.recompiled = true
    return changes
  end
  local structural = false
  local removed = {}
  for name in pairs(old_by_name) do if not new_by_name[name] then removed[#removed + 1] = name end end
  table.sort(removed)
  for _, name in ipairs(removed) do
    self:_node_remove(self:_node_find(name))
    changes.removed[#changes.removed + 1] = name
    structural = true
  end
  for i, n in ipairs(new.nodes) do
    local o = old_by_name[n.name]
    if not o then
      self:_node_redeclare(nil, n, i)
      changes.added[#changes.added + 1] = n.name
      structural = true
    else
      local s_old, r_old = node_signatures(o.node)
      local s_new, r_new = node_signatures(n)
      local ci = self:_node_find(n.name)
      if s_old ~= s_new then
        self:_node_redeclare(ci, n, i)
        changes.changed[#changes.changed + 1] = n.name
        structural = true
      else
        if r_old ~= r_new then changes.run_changed[#changes.run_changed + 1] = n.name end
        if o.i ~= i then self:_node_set_user(ci, i) end
      end
    end
  end
  if structural then
    self:_recompile(new)
    changes.recompiled = true
  else
    self:_set_pipeline(new)
  end
  return changes
end

methods.dot = report.dot
methods.svg = report.svg

return M
