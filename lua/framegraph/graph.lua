-- framegraph.graph: fg.compile and the graph methods written in Lua
-- (update for hot reload, dot/svg pictures). The compiler itself is C
-- (csrc/core/graph.c through csrc/lua/graph.c).
local core = require("framegraph.core")
local diff = require("framegraph.diff")
local report = require("framegraph.report")
local schema = require("framegraph.schema")
local source = require("framegraph.source")

local M = {}

-- fg.compile(pipeline, opts): the schema check first (every problem in one
-- error), then the C compiler, which never calls back into Lua modules.
-- When the nodes' run functions come from a file that declares them, each
-- message line starts with that file's `file:line:` (framegraph.source).
-- A path instead of a table loads that file (it must return the pipeline),
-- and every message then starts with `path:line:`, run functions or not.
function M.compile(pipeline, opts)
  local path
  if type(pipeline) == "string" then
    path = pipeline
    local p, err, missing = source.load(path)
    if not p then
      if missing then return nil, err end  -- a file that is not there: the world's failure
      error(err, 0)                         -- a NUL in the path, or the file's own mistake
    end
    pipeline = p
  end
  -- The graph keeps a copy (diff.copy): graph:update diffs against what was
  -- compiled, whatever the caller does to its table afterwards.
  local own = diff.copy(pipeline)
  opts = diff.copy(opts)  -- kept too: graph:update checks and compiles with them
  -- C errors name node, resource and field themselves: no "graph.lua:N:" prefix
  local ok, err = pcall(schema.check, own, opts)
  if not ok then error(M.locate(err, pipeline, path, 2), 0) end
  local graph
  ok, graph = pcall(core.compile, own, opts)
  if not ok then error(M.locate(graph, pipeline, path, 2), 0) end
  return graph
end

-- A compile message with `file:line:` where the pipeline's file is known
-- (path given, or found from its run functions, or the file of the function
-- `level` on the stack when it declares the nodes); else the message as it is.
function M.locate(msg, pipeline, path, level)
  local anchors, inferred = nil, not path
  if not path then path, anchors = source.file_of(pipeline) end
  if not path and level then path = source.caller_file(pipeline, level + 1) end
  -- a file found from the pipeline, not given: only lines whose subject is written there
  return source.annotate(msg, path, anchors, inferred)
end

local methods = core.graph_methods
-- not methods: no graph object offers them to a user
local hooks = core.graph_hooks

-- The C calls of an incremental update, each logged with how to undo it, so
-- that a failing compile puts the previous declarations back.
local function apply(self, old, new, d, undo)
  local old_by_name, changed = {}, {}
  for i, n in ipairs(old.nodes) do old_by_name[n.name] = { i = i, node = n } end
  for _, name in ipairs(d.changed) do changed[name] = true end
  for _, name in ipairs(d.removed) do
    local o, ci = old_by_name[name], hooks.node_find(self, name)
    undo[#undo + 1] = function() hooks.node_redeclare(self, ci, o.node, o.i) end
    hooks.node_remove(self, ci)
  end
  for i, n in ipairs(new.nodes) do
    local o = old_by_name[n.name]
    if not o then
      -- _node_redeclare appends before it can fail: undo finds the node by name
      undo[#undo + 1] = function()
        local ci = hooks.node_find(self, n.name)
        if ci then hooks.node_remove(self, ci) end
      end
      hooks.node_redeclare(self, nil, n, i)
    else
      local ci = hooks.node_find(self, n.name)
      if changed[n.name] then
        undo[#undo + 1] = function() hooks.node_redeclare(self, ci, o.node, o.i) end
        hooks.node_redeclare(self, ci, n, i)
      elseif o.i ~= i then
        undo[#undo + 1] = function() hooks.node_set_user(self, ci, o.i) end
        hooks.node_set_user(self, ci, i)
      end
    end
  end
  hooks.recompile(self, new)
end

-- graph:update(pipeline) -> changes
-- Re-declares only the nodes whose table changed (by name and content) and
-- compiles once. The new pipeline's schema is checked first; if the C
-- compile then fails, the previous declarations are put back and compiled
-- again, so a failing update raises and leaves the graph as it was.
-- The graph keeps a copy of `new` (graph:pipeline() returns the graph's copy).
-- changes = {added = {names}, removed = {names}, changed = {names}
-- (declarations differ), run_changed = {names} (only the run function
-- differs), recompiled = bool, full = bool (pipeline-level fields changed:
-- everything re-declared)}.
local update

-- The update reads the pipeline's tables, whose metamethods are user code:
-- it runs with the graph busy (hooks.busy), so a g:close() there waits for
-- its end (it freed the graph under a C declaration) and the graph's methods
-- there are refused.
function methods:update(new)
  if type(new) ~= "table" then error("bad argument #1 to 'update' (pipeline table expected)", 2) end
  local state = hooks.busy(self)
  if state == "closed" then error("graph:update: graph is closed (g:close() was called)", 2) end
  if state == "busy" then
    error("graph:update during graph:update is refused (called by a metamethod of the pipeline's tables?): the "
          .. "graph is being re-declared; call it after graph:update returns", 2)
  end
  local old = self:pipeline()
  hooks.busy(self, true)
  local res = table.pack(pcall(update, self, old, new))
  if hooks.busy(self, false) then
    error("graph:update: the graph was closed during the call (g:close() called by a metamethod of the pipeline's "
          .. "tables?); it is closed now: close it after graph:update returns", 2)
  end
  if not res[1] then error(res[2], 0) end
  return res[2]
end

function update(self, old, new)
  -- diffed against the graph's own copy of what it compiled, and kept as a
  -- copy: a caller that changes its table and passes it again gets the
  -- change (the graph held the caller's table, so the diff saw none)
  new = diff.copy(new)
  -- raises with every problem (at their file:line, as fg.compile); nothing touched yet
  local checked, why = pcall(schema.check, new, hooks.opts(self))
  if not checked then error(M.locate(why, new), 0) end
  local d = diff.changes(old, new)
  local changes = { added = d.added, removed = d.removed, changed = d.changed, run_changed = d.run_changed,
                    recompiled = false, full = d.full }
  if d.full then
    -- everything is declared anew: a node whose run alone differs counts as changed
    local differs = {}
    for _, name in ipairs(d.changed) do differs[name] = true end
    for _, name in ipairs(d.run_changed) do differs[name] = true end
    changes.changed, changes.run_changed = {}, {}
    for _, n in ipairs(new.nodes) do
      if differs[n.name] then changes.changed[#changes.changed + 1] = n.name end
    end
    local replaced, err = pcall(hooks.replace, self, new)  -- compiles into a new graph, swapped in only on success
    if not replaced then error(M.locate(err, new), 0) end
    changes.recompiled = true
  elseif d.structural then
    local undo = {}
    local ok, err = pcall(apply, self, old, new, d, undo)
    if not ok then
      for k = #undo, 1, -1 do undo[k]() end
      hooks.recompile(self, old)
      error(M.locate(err, new), 0)
    end
    changes.recompiled = true
  else
    local old_by_name = {}
    for i, n in ipairs(old.nodes) do old_by_name[n.name] = i end
    for i, n in ipairs(new.nodes) do
      if old_by_name[n.name] ~= i then hooks.node_set_user(self, hooks.node_find(self, n.name), i) end
    end
    hooks.set_pipeline(self, new)
  end
  return changes
end

methods.dot = report.dot
methods.svg = report.svg

return M
