-- framegraph.runtime: fg.runtime(dev, pipeline_or_path, opts) -> rt, and rt:reload.
-- The runtime itself is C (csrc/lua/runtime.c, csrc/vk/runtime.c); this file
-- is the one pipeline-file loader and the reload policy.
--   opts.solver   packing strategy passed to the compiler ("best", "none" = unaliased, ...)
--   opts.profile  {alignment = n, granularity = n}: inflate the driver's alignment and
--                 bufferImageGranularity (exercise real-driver placement on lavapipe)
--   opts.poison   fill every activated resource with garbage before its first use
--   opts.dimensions / opts.resolutions  as for fg.compile
--   opts.upload_bytes    size of the per-frame upload ring (default 4 MiB, made on first upload)
--   opts.upload_segment  its segment size (power of two >= 256; default upload_bytes / 16, at most 256 KiB)
--   opts.timestamps      false: no GPU timestamp queries (rt:timings() then returns nil, message)
-- Methods: rt:frame([inputs]) -> {barriers, batches, ...}; rt:read(name [, index]) -> bytes;
-- rt:save_png(name, path [, index]); rt:memory() -> {{bytes, planned, memory_type}, total, allocations};
-- rt:stats(); rt:reload(pipeline_or_path) -> true, changes | nil, err; rt:set_resolution(name, w, h);
-- rt:graph(); rt:close(); rt:timings() -> {{name, node, gpu_ms}..., frame_ms, frame} (GPU time per
-- instance of the newest finished frame; {} before one; docs/runtime.md "GPU time and names").
-- rt:upload(bytes [, align]) -> upload | nil, err: bytes for the next frame only, in host-visible
-- memory; in run, cmd:copy(upload, name [, offset]) or a dispatch/draw binding {[n] = upload}
-- (readonly storage or uniform buffer); ctx.upload(bytes [, align]) does the same while recording.
-- upload:size(), upload:offset(), upload:valid(); rt:upload_stats() -> {size, bytes, allocations, ...}.
--
-- Reload (docs/api.md "Reload and watch"):
--  * A pipeline file is a Lua chunk returning the pipeline table; it receives the
--    device as its first argument (`local dev = ...`). While it runs, fg.shader
--    returns the shader object an earlier load of this runtime made from the same
--    SPIR-V and options, so unchanged nodes keep their shaders and VkPipelines.
--  * rt:reload compiles at most once: a change of run functions only (or of node
--    positions) swaps callbacks; anything else compiles the new pipeline once and
--    places it, keeping the contents of history resources whose description did
--    not change. A bad file or pipeline returns nil, message and changes nothing.
--  * A reloaded pipeline is on probation until one of its frames completes: when a
--    node's run raises during that frame, rt:frame rolls back to the last good
--    pipeline, renders the frame with it and returns its stats with
--    `rolled_back = message` (node, file:line); watchers report it too.
local core = require("framegraph.core")
local schema = require("framegraph.schema")
local diff = require("framegraph.diff")
local vulkan = require("framegraph.vulkan")

local M = {}

-- Per runtime: { dev, shaders = {[key] = shader}, good = {graph, pipeline} (while on
-- probation), rollbacks = {messages} }. Weak keys: the runtime's lifetime decides.
local state = setmetatable({}, { __mode = "k" })

-- A shader cache for one load: hits come from the previous load's shaders; what
-- this load uses becomes the next load's cache once it is adopted.
local function shader_cache(st)
  local used = {}
  return {
    dev = st.dev, used = used,
    get = function(key)
      local sh = used[key] or st.shaders[key]
      if sh and pcall(sh.info, sh) then used[key] = sh return sh end  -- closed ones are made again
    end,
    put = function(key, sh) used[key] = sh end,
  }
end

-- The one loader of pipeline files: -> pipeline, cache | nil, message (with file:line).
local function load_file(path, st)
  local cache = shader_cache(st)
  local saved = vulkan._shader_cache
  vulkan._shader_cache = cache
  local t, err = require("framegraph.source").load(path, st.dev)
  vulkan._shader_cache = saved
  if not t then return nil, err end
  return t, cache
end

-- "reload: ... does not compile" and the compiler's lines, each at the
-- file:line where its subject is written (framegraph.source).
local function not_compiling(msg, path, pipeline)
  return "reload: the new pipeline does not compile (still running the previous one):\n"
         .. require("framegraph.graph").locate(msg, pipeline, path)
end

function M.runtime(dev, pipeline, opts)
  local st = { dev = dev, shaders = {}, rollbacks = {} }
  local p, cache = pipeline, nil
  if type(pipeline) == "string" then
    p, cache = load_file(pipeline, st)
    if not p then error("fg.runtime: " .. tostring(cache), 2) end
  end
  if type(p) ~= "table" then error("fg.runtime: pipeline must be a table or a file path", 2) end
  -- the runtime's own (diff.copy): the caller's later changes to either reach
  -- no re-plan (a reload compiles with these options)
  p, opts = diff.copy(p), diff.copy(opts)
  schema.check(p, opts, "runtime")  -- the C runtime compiles without calling back into Lua
  local rt, err = core.runtime(dev, p, opts)
  if not rt then return rt, err end
  if cache then st.shaders = cache.used end
  state[rt] = st
  return rt
end

-- The bodies of the runtime's methods written in Lua (graph, reload, frame):
-- the C method table calls them (core.runtime_lua, at the end of this file)
-- and is never patched. What they are made of are hooks (hooks.name(rt, ...)),
-- not methods: no user object offers them. rhooks.compile is looked up at
-- each call, so a spec can count compiles.
local methods = {}
local rhooks = core.runtime_hooks
local c_graph = rhooks.graph
local ghooks = core.graph_hooks
local MUTATORS = {
  close = "close the runtime with rt:close()",
  set_resolution = "use rt:set_resolution(name, w, h)",
  set_dimension = "use rt:set_dimension(name, n)",
  update = "use rt:reload(pipeline)",
  _node_redeclare = "use rt:reload(pipeline)", _node_remove = "use rt:reload(pipeline)",
  _node_set_user = "use rt:reload(pipeline)", _recompile = "use rt:reload(pipeline)",
  _set_pipeline = "use rt:reload(pipeline)", _replace = "use rt:reload(pipeline)",
}
local view_rt = setmetatable({}, { __mode = "k" })   -- view -> runtime
local rt_view = setmetatable({}, { __mode = "k" })   -- runtime -> its view

local function view_graph(v, level)
  local rt = view_rt[v]
  local st = rt and core.runtime_state(rt)
  if not st or st == "closed" or st == "closing" then
    error("graph is closed: the runtime this rt:graph() view belongs to was closed", level + 1)
  end
  return c_graph(rt)
end

-- view:pipeline() is a copy (diff.copy): it handed out the runtime's own
-- table, so view:pipeline().nodes[1].run = nil silently dropped the node's
-- run at the next re-plan (set_resolution / set_dimension rebuild the runs
-- from it).
local View = {}
View.__name = "framegraph.graph (runtime view)"
function View.__index(v, k)
  local fix = MUTATORS[k]
  if fix then
    return function()
      error(("graph:%s is refused: rt:graph() is a read-only view of the runtime's plan; %s"):format(k, fix), 2)
    end
  end
  local f = core.graph_methods[k]
  if type(f) ~= "function" then return f end
  return function(self, ...)
    if self ~= v then error(("graph:%s: call it with ':' on the view"):format(k), 2) end
    if k == "pipeline" then return diff.copy(f(view_graph(v, 2), ...)) end
    return f(view_graph(v, 2), ...)
  end
end
function View.__tostring(v)
  local ok, g = pcall(view_graph, v, 1)
  return ok and tostring(g):gsub("^framegraph.graph", "framegraph.graph view") or "framegraph.graph view (closed)"
end

function methods:graph()
  c_graph(self)  -- raises when the runtime is closed
  local v = rt_view[self]
  if not v then
    v = setmetatable({}, View)
    view_rt[v] = self
    rt_view[self] = v
  end
  return v
end

local function state_of(rt)
  local st = state[rt]
  if not st then  -- made by core.runtime directly
    st = { shaders = {}, rollbacks = {} }
    state[rt] = st
  end
  return st
end

-- Points a graph at a pipeline whose nodes are the graph's, maybe moved
-- (a node's run function is found by its position).
local function set_pipeline(g, p)
  local before = g:pipeline().nodes
  ghooks.set_pipeline(g, p)
  for i, n in ipairs(p.nodes) do
    local b = before[i]
    if not (type(b) == "table" and b.name == n.name) then
      local ci = ghooks.node_find(g, n.name)
      if ci then ghooks.node_set_user(g, ci, i) end
    end
  end
end

-- The runtime's compile options plus what rt:set_resolution / rt:set_dimension
-- changed since (the runtime keeps them), for the names the new pipeline
-- still declares (nil: none).
local function compile_opts(rt, new)
  local dyn = rhooks.dynamic(rt)
  if not next(dyn.resolutions or {}) and not next(dyn.dimensions or {}) then return nil end
  local base, opts = rhooks.opts(rt), {}
  for k, v in pairs(base) do opts[k] = v end
  for _, key in ipairs{ "resolutions", "dimensions" } do
    local merged, declared = {}, type(new[key]) == "table" and new[key] or {}
    for k, v in pairs(type(base[key]) == "table" and base[key] or {}) do merged[k] = v end
    for name, v in pairs(dyn[key] or {}) do
      if declared[name] ~= nil then merged[name] = v end
    end
    opts[key] = next(merged) and merged or nil
  end
  return opts
end

-- rt:reload(pipeline_or_path) -> true, changes | nil, message
-- changes = diff.changes(...) plus recompiled = bool, kept_history = copies kept.
-- The runtime keeps a copy of the new pipeline (diff.copy). Its work reads
-- the pipeline's tables, whose metamethods are the caller's code: it runs
-- with the runtime busy (hooks.busy), so an rt:close() there waits for the
-- end of rt:reload (which then raises, saying so) and a re-plan, reload,
-- frame or read-back there is refused.
local function reload(self, p, st, path)
  local new, cache = p, nil
  if path then
    new, cache = load_file(path, st)
    if not new then return nil, ("reload '%s': %s (still running the previous pipeline)"):format(path, cache) end
  end
  new = diff.copy(new)
  local g = c_graph(self)
  local old = g:pipeline()
  local changes = diff.changes(old, new)
  if not changes.structural then
    -- a run-only edit is not compiled, but it is checked: `run = "clear"`
    -- would otherwise only fail (and roll back) in the next frame
    local problems = schema.problems(new, nil, "runtime")
    if #problems > 0 then
      return nil, not_compiling(table.concat(problems, "\n"), path, new)
    end
    set_pipeline(g, new)
    rhooks.slots(self)
    changes.recompiled = false
    changes.kept_history = 0
  else
    -- The C compile does not call back into Lua: the schema check comes first.
    local ok, ng = pcall(function()
      schema.check(new, nil, "runtime")
      return rhooks.compile(self, new, compile_opts(self, new))
    end)
    if not ok then
      local now = core.runtime_state(self)
      if now == "closing" or now == "closed" then error(ng, 0) end  -- closed meanwhile: rt:reload says so
      return nil, not_compiling(tostring(ng), path, new)
    end
    local done, kept = rhooks.adopt(self, ng)
    if not done then ng:close() return nil, kept end
    changes.recompiled = true
    changes.kept_history = kept
  end
  if cache then st.shaders = cache.used end
  -- The last good pipeline stays the one that last completed a frame.
  if not st.good then st.good = { graph = g, pipeline = old } end
  return true, changes
end

-- Runs f(self, ...) marked busy with `what`; an rt:close() called meanwhile
-- (by a metamethod of the pipeline's tables) closes the runtime at the end,
-- and the call raises saying so, at the caller's line (level).
local function busy(what, level, f, self, ...)
  rhooks.busy(self, what)
  local res = table.pack(pcall(f, self, ...))
  if rhooks.busy(self, false) then
    error(("%s: the runtime was closed during the call (rt:close() called by a metamethod of the pipeline's "
           .. "tables?); it is closed now: close it after %s returns, or make a new one with fg.runtime")
          :format(what, what), level + 1)
  end
  if not res[1] then error(res[2], 0) end
  return table.unpack(res, 2, res.n)
end

function methods:reload(p)
  local state = core.runtime_state(self)
  if state == "recording" then
    error("rt:reload inside a node's run is refused: it would destroy objects the frame being recorded uses; "
          .. "reload between frames (after rt:frame returns)", 3)  -- 3: past the C method
  end
  local during = rhooks.busy(self)
  if during then
    error(("rt:reload during %s is refused (called by a metamethod of the pipeline's tables?): %s is changing "
           .. "the runtime's plan; reload after it returns"):format(during, during), 3)
  end
  if type(p) ~= "string" and type(p) ~= "table" then
    error(("bad argument #1 to 'reload' (pipeline table or file path expected, got %s)"):format(type(p)), 3)
  end
  return busy("rt:reload", 3, reload, self, p, state_of(self), type(p) == "string" and p or nil)
end

-- Back to the last good pipeline; the message says why.
local function rollback(rt, st, why)
  local good = st.good
  st.good = nil
  if c_graph(rt) ~= good.graph then
    local ok, err = rhooks.adopt(rt, good.graph)
    if not ok then error(why .. "\nand rolling back failed: " .. tostring(err), 0) end
  end
  set_pipeline(good.graph, good.pipeline)
  rhooks.slots(rt)
  st.rollbacks[#st.rollbacks + 1] = why
end

-- A frame whose node's run raised (the runtime says so: hooks.failure) -> its
-- message plus where that run is defined; nil for any other failure.
local function run_error(rt, msg)
  local kind, _, node = rhooks.failure(rt)
  if kind ~= "run" then return nil end
  local n = c_graph(rt):pipeline().nodes[node]
  if type(n) == "table" and type(n.run) == "function" then
    local info = debug.getinfo(n.run, "S")
    return ("%s (run defined at %s:%d)"):format(msg, info.short_src, info.linedefined)
  end
  return msg
end

-- rt:frame, plus the probation of a reloaded pipeline: when a node's run
-- raises before one of its frames completed, back to the last good one.
local c_frame = rhooks.frame
local function frame(self, inputs)
  local st = state[self]
  if not (st and st.good) then return c_frame(self, inputs) end
  local ok, res, err = pcall(c_frame, self, inputs)
  if ok then
    if res then st.good = nil end  -- a frame completed: the reloaded pipeline is good
    return res, err
  end
  -- closed by its own run: nothing to roll back to
  if core.runtime_state(self) == "closed" then error(res, 0) end
  -- reads the pipeline's tables (their metamethods are the caller's code): busy
  local why = busy("rt:frame", 3, function()
    local why = run_error(self, tostring(res))
    if not why then error(res, 0) end
    why = "reload rolled back: " .. why .. "; running the last good pipeline"
    rollback(self, st, why)
    return why
  end, self)
  local stats, ferr = c_frame(self, inputs)
  if stats then stats.rolled_back = why end
  return stats, ferr
end
methods.frame = frame
core.runtime_lua(methods)

-- For fg.watch: the rollback messages of a runtime so far (a list that grows).
function M._rollbacks(rt)
  return state_of(rt).rollbacks
end

return M
