-- The main job: compile examples/deferred.lua and print its plan (execution
-- order, node states with reasons, physical resources with their lifetimes and
-- offsets, memory stats), then render it on a Vulkan device (a GPU when there
-- is one, else lavapipe) with validation and synchronization validation on:
-- once per solver (no aliasing, pool, our plan, our plan on poisoned memory),
-- reporting the VkDeviceMemory really allocated and checking the images are
-- bit-identical. Writes out/deferred.png and the report page
-- out/deferred-report.html (when framegraph.report has one) and says where.
--   bash scripts/main.sh   or   . scripts/env.sh && lua5.4 examples/main.lua [pipeline.lua] [profile] [solver]
-- FG_NO_DEVICE=1 stops after the plan; FG_DEVICE=software forces lavapipe.
local fg = require("framegraph")

local dir = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
package.path = dir .. "/?.lua;" .. package.path
local ex = require("common")
local path = arg[1] or (dir .. "/deferred.lua")
local name = path:match("([^/]+)%.lua$") or "pipeline"
local root = dir == "examples" and "." or (dir:match("^(.*)/examples$") or (dir .. "/.."))
local out_dir = root .. "/out"
local pipeline = ex.load(path)             -- no device yet: the declarations, for the plan
local opts = { profile = arg[2] or "lavapipe", solver = arg[3] }

local graph = fg.compile(pipeline, opts)
local p = print

p(string.format("pipeline '%s' (%s), profile %s, solver %s", pipeline.name or "?", path, opts.profile,
                opts.solver or "best"))
p("\nexecution order:")
for i, name in ipairs(graph:order()) do p(string.format("  %2d  %s", i, name)) end

p("\nnodes:")
for _, n in ipairs(graph:nodes()) do
  p(string.format("  %-14s %-7s x%d  %s", n.name, n.state, n.instances, n.reason))
end

local function human(b)
  if b >= 1 << 20 then return string.format("%.2f MiB", b / (1 << 20)) end
  if b >= 1 << 10 then return string.format("%.1f KiB", b / (1 << 10)) end
  return string.format("%d B", b)
end

p("\nresources (physical: one copy per frame parity):")
p(string.format("  %-12s %-5s %-9s %-14s %-11s %10s %12s  %-10s %s", "name", "frame", "kind", "format",
                "extent", "bytes", "offset", "[first,stop)", "users"))
for _, r in ipairs(graph:resources()) do
  local users = {}
  for _, u in ipairs(r.users) do users[#users + 1] = u.instance .. ":" .. u.access end
  p(string.format("  %-12s %-5d %-9s %-14s %-11s %10s %12s  [%d,%d)%s  %s", r.name, r.frame, r.kind,
                  r.format or "-", r.width and (r.width .. "x" .. r.height) or "-", r.heap and human(r.bytes) or "-",
                  r.heap and tostring(r.offset) or "-", r.first, r.stop, r.history and " H" or "",
                  table.concat(users, " ")))
end

local s = graph:stats()
p("\nmemory:")
p(string.format("  naive (no aliasing) %s, heap %s, LOAD %s, saved %.1f%%, makespan/LOAD %.3f",
                human(s.naive_bytes), human(s.heap_bytes), human(s.load_bytes),
                s.naive_bytes > 0 and 100 * (1 - s.heap_bytes / s.naive_bytes) or 0,
                s.load_bytes > 0 and s.heap_bytes / s.load_bytes or 1))
for i, h in ipairs(s.heaps) do
  p(string.format("  heap %d: memory type %d, %s (LOAD %s), %d resources", i, h.memory_type, human(h.bytes),
                  human(h.load), h.resources))
end
p(string.format("  nodes: %d active, %d culled, %d broken; %d instances, T = %d; compiled in %.3f ms",
                s.nodes_active, s.nodes_culled, s.nodes_broken, s.instances, s.period, s.compile_ms))

if os.getenv("FG_NO_DEVICE") then return end

-- Run the same pipeline on a device: real heaps, barriers, recorded frames.
local ok, dev = pcall(ex.device)
if not ok then
  p("\nno Vulkan device: " .. tostring(dev))
  os.exit(1)
end
local info = dev:info()
p(string.format("\ndevice: %s (%s), image alignment %d, bufferImageGranularity %d, %d memory types",
                info.name, info.type, info.image_alignment, info.limits.buffer_image_granularity,
                #info.memory_types))
local live, extras = ex.load(path, dev)     -- with the device: shaders and run functions
extras = extras or {}
os.execute("mkdir -p '" .. out_dir:gsub("'", "'\\''") .. "'")
local pngs, record_us = {}, {}
local runs = ex.memory(dev, live, {
  frames = extras.frames or 2, poison = true, solvers = { "none", "pool", opts.solver or "best" },
  each = function(rt, label)
    if label == (opts.solver or "best") then
      pngs = ex.save_outputs(rt, live, out_dir, name)
      if extras.after then extras.after(rt, { dev = dev, pipeline = live, out_dir = out_dir, ex = ex, name = name,
                                              path = path }) end
    end
    record_us[label] = rt:frame().record_us     -- one more frame, timed (after the images are taken)
  end,
})
p("")
ex.print_memory(pipeline.name or name, runs)
for _, r in ipairs(runs) do
  p(string.format("  %-12s %d VkDeviceMemory allocation(s), %d barriers/frame, record %.1f us/frame", r.label,
                  r.allocations, r.barriers, record_us[r.label] or 0))
end
local same = ex.identical(runs)

-- The report page (framegraph.report.html, when the installed module has it).
local has, report = pcall(require, "framegraph.report")
local page
if has and type(report) == "table" and type(report.html) == "function" then
  page = out_dir .. "/" .. name .. "-report.html"
  local f = assert(io.open(page, "w"))
  f:write(report.html(graph, { title = "framegraph: " .. (pipeline.name or name), source = path }))
  f:close()
else
  p("\n(no report page: this framegraph.report has no html())")
end
p("")
for _, f in ipairs(pngs) do p("image:       " .. f) end
if page then p("report page: " .. page) end

local nmsg = ex.report_messages(dev)
dev:close()
if nmsg > 0 or not same then os.exit(1) end
