-- bench/memory: transient memory of every example pipeline on a real device:
-- the plan's heap and its lower bound (LOAD), and the VkDeviceMemory the
-- runtime really allocated after one frame, with no aliasing ("none"), reuse
-- only between identical descriptions ("pool") and our plan ("best").
-- Run: . scripts/env.sh && lua5.4 bench/memory.lua   (FG_DEVICE=gpu|software)
package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
local fg = require("framegraph")

local examples = { "deferred", "taa", "vr", "screenshot", "split_screen", "vr_ssaa" }
local solvers = { "none", "pool", "best" }
local dev = fg.vulkan{ validation = false, prefer = "software" }
local info = dev:info()
print(("device: %s (%s), image alignment %d, bufferImageGranularity %d, %d memory types")
  :format(info.name, info.type, info.image_alignment, info.limits.buffer_image_granularity,
          #info.memory_types))
print(("| %-13s | %13s | %13s | %13s | %13s | %13s | %8s |"):format("example", "none", "pool", "best",
  "best planned", "LOAD", "best/none"))
print("|---|---:|---:|---:|---:|---:|---:|")

local function mib(b) return ("%.2f MiB"):format(b / 1048576) end
for _, name in ipairs(examples) do
  local r = {}
  for _, solver in ipairs(solvers) do
    local rt = fg.runtime(dev, "examples/" .. name .. ".lua", { solver = solver })
    rt:frame()
    local st = rt:graph():stats()
    r[solver] = { total = rt:memory().total, heap = st.heap_bytes, load = st.load_bytes }
    rt:close()
  end
  print(("| %-13s | %13s | %13s | %13s | %13s | %13s | %7.1f%% |"):format(name, mib(r.none.total),
    mib(r.pool.total), mib(r.best.total), mib(r.best.heap), mib(r.best.load),
    100 * r.best.total / r.none.total))
end
dev:close()
