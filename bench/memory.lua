-- bench/memory: VkDeviceMemory actually allocated by the runtime for each
-- example pipeline: aliased ("best"), no aliasing ("none") and reuse only
-- between identical descriptions ("pool"), after one frame has run.
-- Run: . scripts/env.sh && lua5.4 bench/memory.lua   (FG_DEVICE=gpu for a GPU)
package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
local fg = require("framegraph")

local examples = { "examples/deferred.lua", "examples/vr_ssaa.lua" }
local solvers = { "best", "pool", "none" }
local dev = fg.vulkan{ validation = false, prefer = "software" }
local info = dev:info()
print(("device: %s (%s), image alignment %d, bufferImageGranularity %d, %d memory types")
  :format(info.name, info.type, info.image_alignment, info.limits.buffer_image_granularity,
          #info.memory_types))
print(("%-22s %-6s %14s %6s %14s %10s"):format("example", "solver", "VkDeviceMemory", "allocs",
  "LOAD", "vs none"))

local function mib(b) return ("%.2f MiB"):format(b / 1048576) end
for _, ex in ipairs(examples) do
  local bytes = {}
  for _, solver in ipairs(solvers) do
    local rt = fg.runtime(dev, ex, { solver = solver })
    rt:frame()
    local m = rt:memory()
    local st = rt:graph():stats()
    bytes[solver] = { total = m.total, allocs = m.allocations, load = st.load_bytes }
    rt:close()
  end
  for _, solver in ipairs(solvers) do
    local b = bytes[solver]
    print(("%-22s %-6s %14s %6d %14s %9.1f%%"):format(ex:match("[^/]+$"), solver, mib(b.total),
      b.allocs, mib(b.load), 100 * b.total / bytes.none.total))
  end
end
dev:close()
