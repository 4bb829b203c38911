-- examples/common.lua: what every runnable example shares.
-- A pipeline file under examples/ is a Lua chunk that receives the device as
-- its first argument (`local dev = ...`) and returns the pipeline table. With
-- no device (fg.compile, `framegraph report`, `framegraph check`) it must still
-- return the table: shaders are only created when there is a device, and
-- `run` functions are only called on one.
--   local ex = require("common")         -- examples/ is on package.path when run from there
--   local dev = ex.device()              -- FG_DEVICE=gpu|software, default: a GPU when present
--   local p = ex.load("examples/taa.lua", dev)
--   local r = ex.memory(dev, p, { frames = 4, outputs = { "final" } })
--   ex.print_memory(p.name, r)
local fg = require("framegraph")

local M = {}

-- Directory of the examples (for shaders and output paths).
M.dir = (debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$")) or "examples"

function M.device(prefer)
  return fg.vulkan{ validation = true, prefer = prefer or os.getenv("FG_DEVICE") or "gpu" }
end

-- Load a pipeline file, giving it the device (nil: plan only). Returns the
-- pipeline and its extras, `{ frames = n, after = function(rt, env) end, ... }`
-- (see examples/run.lua): the file's second return value, else
-- `pipeline.example`. The schema refuses unknown pipeline fields, so a file
-- that wants `fg.compile(dofile(path))` to keep working provides `example`
-- through the table's metatable (`setmetatable(p, {__index = {example = x}})`).
function M.load(path, dev)
  local chunk, err = loadfile(path)
  if not chunk then error(err, 2) end
  local p, extras = chunk(dev)
  if type(p) ~= "table" then error(path .. ": a pipeline file must return a table", 2) end
  return p, extras or p.example
end

-- Shaders by name: `{ scene = "ex_scene.frag.spv", blur = { "ex_blur.comp.spv", {...opts} } }`.
-- Without a device the table is empty (the pipeline is only compiled).
function M.shaders(dev, list)
  local out = {}
  if not dev then return out end
  for k, v in pairs(list) do
    if type(v) == "table" then out[k] = fg.shader(dev, v[1], v[2]) else out[k] = fg.shader(dev, v) end
  end
  return out
end

-- The lit scene that vr.lua, split_screen.lua and screenshot.lua render per
-- view (the vr_* shaders). Its shaders: shadow, gbuffer, light, tonemap, and
-- with want.bloom down and up, with want.compose compose.
function M.scene_shaders(dev, want)
  local list = {
    shadow = { "vr_shadow.frag.spv", { depth_test = true, depth_write = true } },
    gbuffer = "vr_gbuffer.frag.spv",
    light = "vr_light.frag.spv",
    tonemap = "vr_tonemap.frag.spv",
  }
  if want and want.bloom then list.down, list.up = "vr_down.frag.spv", "vr_up.frag.spv" end
  if want and want.compose then list.compose = "shot_compose.comp.spv" end
  return M.shaders(dev, list)
end

local function copy(v) return type(v) == "table" and table.move(v, 1, #v, 1, {}) or v end
local function nearest(name) return { name, sampler = "nearest" } end

-- Its nodes up to the lit HDR image: the shadow map (view independent,
-- rendered once for every view), then per view (multiplex = { o.multiplex })
-- the G-buffer and the lighting into `hdr`, each texture o.size. Both read
-- the CPU blob o.view; o.push(ctx) gives their camera push constants.
function M.scene_nodes(sh, o)
  local mx = { o.multiplex }
  return {
    { name = "shadows",
      create = { shadow_map = { format = "d32_sfloat", size = { 1024, 1024 } } },
      pass = { depth = { "shadow_map", clear = 1.0 } },
      run = function(cmd, ctx) cmd:draw(sh.shadow, {}, 3, { ctx.width + 0.0, ctx.height + 0.0, 0.0, 0.0 }) end },
    { name = "gbuffer", multiplex = mx,
      read = { [o.view] = "none" },
      create = { albedo = { format = "rgba8_unorm", size = copy(o.size) },
                 normal = { format = "rgba16_sfloat", size = copy(o.size) },
                 depth = { format = "r32_sfloat", size = copy(o.size) } },
      pass = { color = { "albedo", "normal", "depth" } },
      run = function(cmd, ctx) cmd:draw(sh.gbuffer, {}, 3, o.push(ctx)) end },
    { name = "lighting", multiplex = copy(mx),
      read = { "albedo", "normal", "depth", "shadow_map", [o.view] = "none" },
      create = { hdr = { format = "rgba16_sfloat", size = copy(o.size) } },
      pass = { color = { "hdr" } },
      run = function(cmd, ctx)
        cmd:draw(sh.light, { [0] = nearest("albedo"), [1] = nearest("normal"), [2] = nearest("depth"),
                             [3] = nearest("shadow_map") }, 3, o.push(ctx))
      end },
  }
end

-- The image `target` (of the resolution named the same) that the views are
-- composed into, cleared to black, and the CPU blob `grid` holding its size.
function M.scene_layout(target)
  return { name = "layout",
    create = { [target] = { format = "rgba8_unorm", size = target }, grid = { blob = true } },
    run = function(cmd, ctx)
      cmd:clear(target, { 0.0, 0.0, 0.0, 1.0 })
      local grid = ctx.blob("grid")
      grid.width, grid.height = ctx.width, ctx.height
    end }
end

-- Node o.name, per view (o.multiplex): the view's image o.src into its cell
-- of o.target (a view node may modify the narrower, unmultiplexed target;
-- the views' writes are ordered), with a dark frame o.frame pixels wide.
function M.scene_compose(sh, o)
  local dim = o.multiplex
  return { name = o.name, multiplex = { dim },
    read = { [o.src] = "sampled", grid = "none" },
    modify = { [o.target] = "storage" },
    run = function(cmd, ctx)
      local grid = ctx.blob("grid")
      cmd:dispatch(sh.compose, { [0] = nearest(o.src), [1] = o.target }, (grid.width + 7) // 8,
                   (grid.height + 7) // 8, 1, { ctx.index[dim] - 1, o.frame })
    end }
end

-- Its bloom over `hdr`, appended to `nodes`: three downsamples (level i is
-- size(i)) and two upsamples, per view, ending in "bloom_up1".
function M.scene_bloom(nodes, sh, multiplex, size)
  local function add(node) nodes[#nodes + 1] = node end
  local src = "hdr"
  for i = 1, 3 do
    local from, dst = src, "bloom" .. i
    add({ name = "bloom_down" .. i, multiplex = { multiplex },
          read = { from }, create = { [dst] = { format = "rgba16_sfloat", size = size(i) } },
          pass = { color = { dst } },
          run = function(cmd) cmd:draw(sh.down, { [0] = from }, 3, { i == 1 and 1.0 or 0.0 }) end })
    src = dst
  end
  for i = 2, 1, -1 do
    local small, level, dst = src, "bloom" .. i, "bloom_up" .. i
    add({ name = "bloom_up" .. i, multiplex = { multiplex },
          read = { small, level }, create = { [dst] = { format = "rgba16_sfloat", size = size(i) } },
          pass = { color = { dst } },
          run = function(cmd) cmd:draw(sh.up, { [0] = small, [1] = level }, 3) end })
    src = dst
  end
end

-- Workgroup counts for an 8x8 compute shader over the node's extent.
function M.groups(ctx, size)
  size = size or 8
  return (ctx.width + size - 1) // size, (ctx.height + size - 1) // size
end

function M.human(b)
  if b >= 1 << 20 then return string.format("%.2f MiB", b / (1 << 20)) end
  if b >= 1 << 10 then return string.format("%.1f KiB", b / (1 << 10)) end
  return string.format("%d B", b)
end

-- Index tables of every instance of an output: {nil} when it is not multiplexed,
-- else one index table per multiplex combination the resource has.
function M.output_indices(graph, name)
  local seen, list = {}, {}
  for _, r in ipairs(graph:resources()) do
    if r.name == name and r.frame == 0 then
      local key = {}
      for k, v in pairs(r.index or {}) do key[#key + 1] = k .. "=" .. v end
      table.sort(key)
      key = table.concat(key, ",")
      if not seen[key] then
        seen[key] = true
        list[#list + 1] = next(r.index or {}) and r.index or false
      end
    end
  end
  if #list == 0 then list[1] = false end
  return list
end

-- Run the pipeline with each solver (default: none = no aliasing, pool =
-- identical descriptions share, best = our plan), `frames` frames each, and
-- collect the planned heap, LOAD, the VkDeviceMemory really allocated and the
-- outputs' bytes (every multiplex instance). opts.poison adds a poisoned run
-- of `best`. opts.each(rt, label) runs after the frames (save PNGs there).
-- opts.profile (as for fg.runtime) inflates alignments to plan like a real GPU.
function M.memory(dev, pipeline, opts)
  opts = opts or {}
  local frames = opts.frames or 4
  local runs = {}
  local solvers = opts.solvers or { "none", "pool", "best" }
  local list = {}
  for _, s in ipairs(solvers) do list[#list + 1] = { label = s, solver = s } end
  if opts.poison then list[#list + 1] = { label = "best+poison", solver = "best", poison = true } end
  for _, run in ipairs(list) do
    local rt = fg.runtime(dev, pipeline, { solver = run.solver, poison = run.poison, seed = 1234,
                                         resolutions = opts.resolutions, dimensions = opts.dimensions,
                                         profile = opts.profile })
    local st
    for f = 1, frames do st = rt:frame(opts.inputs and opts.inputs(f)) end
    local graph = rt:graph()
    local s = graph:stats()
    local mem = rt:memory()
    local images = {}
    for _, name in ipairs(pipeline.outputs or {}) do
      for _, idx in ipairs(M.output_indices(graph, name)) do
        local key = name
        if idx then
          local parts = {}
          for k, v in pairs(idx) do parts[#parts + 1] = k .. "=" .. v end
          table.sort(parts)
          key = name .. "[" .. table.concat(parts, ",") .. "]"
        end
        images[key] = assert(rt:read(name, idx or nil))
      end
    end
    runs[#runs + 1] = { label = run.label, solver = run.solver, heap = s.heap_bytes, naive = s.naive_bytes,
                        load = s.load_bytes, device = mem.total, allocations = mem.allocations,
                        barriers = st.barriers, images = images }
    if opts.each then opts.each(rt, run.label) end
    rt:close()
  end
  return runs
end

-- Save every output instance of the last completed frame as a PNG under
-- out_dir: `base.png` when the pipeline has one output image, else
-- `base_<output>[_<dim><n>...].png`. Returns the paths written.
function M.save_outputs(rt, pipeline, out_dir, base)
  local graph = rt:graph()
  local list = {}
  for _, name in ipairs(pipeline.outputs or {}) do
    for _, idx in ipairs(M.output_indices(graph, name)) do list[#list + 1] = { name = name, index = idx or nil } end
  end
  local paths = {}
  for _, o in ipairs(list) do
    local file = base
    if #list > 1 then
      file = file .. "_" .. o.name
      local parts = {}
      for k, v in pairs(o.index or {}) do parts[#parts + 1] = k .. v end
      table.sort(parts)
      if #parts > 0 then file = file .. "_" .. table.concat(parts, "_") end
    end
    local path = out_dir .. "/" .. file .. ".png"
    assert(rt:save_png(o.name, path, o.index))
    paths[#paths + 1] = path
  end
  return paths
end

-- True when every run's outputs are byte-identical to the first run's.
function M.identical(runs)
  local ref = runs[1].images
  for i = 2, #runs do
    for k, v in pairs(ref) do
      if runs[i].images[k] ~= v then return false, runs[i].label .. " differs in " .. k end
    end
  end
  return true
end

function M.print_memory(title, runs)
  print(("%s: transient memory"):format(title))
  print(("  %-12s %14s %14s %16s %12s"):format("solver", "planned heap", "LOAD", "VkDeviceMemory", "barriers"))
  for _, r in ipairs(runs) do
    print(("  %-12s %14s %14s %16s %12d"):format(r.label, M.human(r.heap), M.human(r.load), M.human(r.device),
                                                  r.barriers))
  end
  local by = {}
  for _, r in ipairs(runs) do by[r.label] = r end
  if by.none and by.best then
    print(("  our plan uses %.1f%% of no aliasing (%s vs %s)%s"):format(100 * by.best.device / by.none.device,
          M.human(by.best.device), M.human(by.none.device),
          by.pool and (", pool " .. M.human(by.pool.device)) or ""))
  end
  local same, why = M.identical(runs)
  print(("  outputs identical across runs: %s%s"):format(tostring(same), same and "" or (" (" .. why .. ")")))
end

-- Validation messages collected on dev; prints them and returns their count.
function M.report_messages(dev)
  local msgs = dev:messages()
  print(("validation messages: %d"):format(#msgs))
  for _, m in ipairs(msgs) do print("  " .. m) end
  return #msgs
end

return M
