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
-- pipeline and the file's optional second value, its example-specific extras
-- ({frames =, after = function(rt, out_dir, ex)}): the schema refuses unknown
-- top-level pipeline fields, so they cannot live in the pipeline table.
function M.load(path, dev)
  local chunk, err = loadfile(path)
  if not chunk then error(err, 2) end
  local p, extras = chunk(dev)
  if type(p) ~= "table" then error(path .. ": a pipeline file must return a table", 2) end
  return p, extras
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
local function output_indices(graph, name)
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
-- of `best`. opts.each(rt, solver) runs after the frames (save PNGs there).
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
                                         resolutions = opts.resolutions, dimensions = opts.dimensions })
    local st
    for f = 1, frames do st = rt:frame(opts.inputs and opts.inputs(f)) end
    local graph = rt:graph()
    local s = graph:stats()
    local mem = rt:memory()
    local images = {}
    for _, name in ipairs(pipeline.outputs or {}) do
      for _, idx in ipairs(output_indices(graph, name)) do
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
