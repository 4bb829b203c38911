-- bench/frame: CPU cost of recording a frame per node (user callbacks
-- excluded: nodes have no run function, and the runtime's record clock stops
-- around callbacks anyway) and barriers per frame, for 10/100/1000-node graphs.
-- Then the cost of GPU timestamps (rt:timings()) on recording: the same graph
-- with opts.timestamps on and off, alternated over rounds (this machine's
-- load drifts), as the range of per-round overheads.
-- Run: LUA_CPATH='build/?.so;;' lua5.4 bench/frame.lua [frames] [rounds]
package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
local fg = require("framegraph")

local FRAMES = tonumber(arg and arg[1]) or 200
local ROUNDS = tonumber(arg and arg[2]) or 5
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

-- Timestamps on vs off: median record time of FRAMES frames per runtime,
-- both runtimes alive and measured in alternation within each round, each
-- frame recorded with the device idle (on lavapipe the previous frame's
-- execution, longer with timestamps, shares the CPU with the recording).
print(("\ntimestamps: record_us median of %d frames, on vs off, %d rounds"):format(FRAMES, ROUNDS))
print(("%-6s %12s %12s %22s"):format("nodes", "on_us", "off_us", "overhead % (min..max)"))
for _, n in ipairs{ 100, 1000 } do
  local rts = { on = fg.runtime(dev, pipeline(n, false), { solver = "best", time_budget_ms = 200 }),
                off = fg.runtime(dev, pipeline(n, false), { solver = "best", time_budget_ms = 200, timestamps = false }) }
  for _, rt in pairs(rts) do for _ = 1, 10 do rt:frame() end end
  local lo, hi, ons, offs = math.huge, -math.huge, {}, {}
  for _ = 1, ROUNDS do
    local rec = { on = {}, off = {} }
    for _ = 1, FRAMES do
      for _, k in ipairs{ "on", "off" } do
        dev:wait_idle()  -- lavapipe's frame work would compete with the recording thread for the CPU
        rec[k][#rec[k] + 1] = rts[k]:frame().record_us
      end
    end
    local on, off = median(rec.on), median(rec.off)
    ons[#ons + 1], offs[#offs + 1] = on, off
    local o = 100 * (on - off) / off
    lo, hi = math.min(lo, o), math.max(hi, o)
  end
  assert(rts.on:timings()) -- on really records them
  print(("%-6d %12.1f %12.1f %14.1f..%.1f"):format(n, median(ons), median(offs), lo, hi))
  for _, rt in pairs(rts) do rt:close() end
end

-- The same with real node callbacks (examples/deferred.lua, 18 passes, at a
-- small size: recording does not depend on it): record + callback time.
package.path = "examples/?.lua;" .. package.path
local p = require("common").load("examples/deferred.lua", dev)
local small = { resolutions = { main = { 64, 36 }, shadow = { 64, 64 } } }
local rts = { on = fg.runtime(dev, p, small),
              off = fg.runtime(dev, p, { resolutions = small.resolutions, timestamps = false }) }
for _, rt in pairs(rts) do for _ = 1, 5 do rt:frame() end end
local lo, hi, ons, offs = math.huge, -math.huge, {}, {}
for _ = 1, ROUNDS do
  local rec = { on = {}, off = {} }
  for _ = 1, FRAMES // 4 do
    for _, k in ipairs{ "on", "off" } do
      dev:wait_idle()
      local st = rts[k]:frame()
      rec[k][#rec[k] + 1] = st.record_us + st.callback_us
    end
  end
  local on, off = median(rec.on), median(rec.off)
  ons[#ons + 1], offs[#offs + 1] = on, off
  lo, hi = math.min(lo, 100 * (on - off) / off), math.max(hi, 100 * (on - off) / off)
end
print(("%-12s %8.1f %12.1f %14.1f..%.1f   (record + callback us)"):format("deferred", median(ons), median(offs),
  lo, hi))
for _, rt in pairs(rts) do rt:close() end
dev:close()
