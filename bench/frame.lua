-- bench/frame: CPU cost of recording a frame per node (user callbacks
-- excluded: nodes have no run function, and the runtime's record clock stops
-- around callbacks anyway) and barriers per frame, for 10/100/1000-node graphs.
-- Run: LUA_CPATH='build/?.so;;' lua5.4 bench/frame.lua [frames]
package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
local fg = require("framegraph")

local FRAMES = tonumber(arg and arg[1]) or 200
local dev = fg.vulkan{ validation = false, prefer = "software" }

-- A chain with skip connections: node i reads t[i-1] (and t[i-2]) and creates
-- t[i]; every 8th node is a render pass drawing into its own target.
local function noop() end

local function pipeline(n, with_run)
  local nodes = {}
  for i = 1, n do
    local node = { name = "n" .. i, create = {}, read = {} }
    if i % 8 == 0 then
      node.create["t" .. i] = { format = "rgba8_unorm", size = { 64, 64 } }
      node.pass = { color = { "t" .. i } }
      if i > 1 then node.read["t" .. (i - 1)] = "sampled" end
    else
      node.create["t" .. i] = { format = "rgba8_unorm", size = { 64, 64 } }
      if i > 1 then node.read["t" .. (i - 1)] = "storage" end
      if i > 2 and i % 3 == 0 then node.read["t" .. (i - 2)] = "storage" end
    end
    if with_run then node.run = noop end
    nodes[i] = node
  end
  return { name = "bench" .. n, nodes = nodes, outputs = { "t" .. n } }
end

local function median(t)
  table.sort(t)
  return t[(#t + 1) // 2]
end

print(("%-6s %-5s %12s %12s %14s %10s %10s %16s"):format("nodes", "run", "record_us", "us/node", "barriers/frame",
  "batches", "heap_KiB", "callback_us/node"))
for _, case in ipairs{ {10, false}, {100, false}, {1000, false}, {10, true}, {100, true}, {1000, true} } do
  local n, with_run = case[1], case[2]
  local rt = fg.runtime(dev, pipeline(n, with_run), { solver = "best", time_budget_ms = 200 })
  for _ = 1, 10 do rt:frame() end
  local rec, cbs, bars, batches = {}, {}, 0, 0
  for _ = 1, FRAMES do
    local st = rt:frame()
    rec[#rec + 1] = st.record_us
    cbs[#cbs + 1] = st.callback_us
    bars, batches = st.barriers, st.batches
  end
  local us = median(rec)
  print(("%-6d %-5s %12.1f %12.3f %14d %10d %10.1f %16.3f"):format(n, with_run and "noop" or "none", us, us / n, bars,
    batches, rt:memory().total / 1024, median(cbs) / n))
  rt:close()
end
dev:close()
