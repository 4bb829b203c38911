-- bench/schedule: node order "declared" vs "memory" (opts.schedule), side by
-- side, on the examples and on generated frame-graph-like DAGs.
--   1. examples, planned (profile lavapipe): heap and LOAD each way; the
--      screenshot's 4 tiles against one tile
--   2. examples, run on the device (2 frames): real VkDeviceMemory, barriers
--      per frame and planned barriers each way, outputs compared bit for bit
--   3. generated DAGs (spec/support/frame_dags.lua: shadow-cascade fan-out,
--      bloom chains, per-eye and per-tile copies, TAA history; and random
--      DAGs), 50..2000 node instances, 5 seeds each: heap memory/declared
--      (mean, min, max) and compile time each way (median)
-- Run: . scripts/env.sh && lua5.4 bench/schedule.lua [--no-device]
--      (FG_DEVICE=gpu for a GPU; lavapipe otherwise)
--      lua5.4 bench/schedule.lua --svg DIR: only writes DIR/schedule_{declared,memory}.html,
--      the screenshot's memory timeline (graph:svg()) each way (docs/images/ are
--      their chromium screenshots at 1320x556)
package.path = "examples/?.lua;lua/?.lua;lua/?/init.lua;" .. package.path
local fg = require("framegraph")
local ex = require("common")
local dags = dofile("spec/support/frame_dags.lua")

local no_device = arg and arg[1] == "--no-device"
if arg and arg[1] == "--svg" then
  local p = ex.load("examples/screenshot.lua")
  for _, sched in ipairs({ "declared", "memory" }) do
    local path = arg[2] .. "/schedule_" .. sched .. ".html"
    local f = assert(io.open(path, "w"))
    f:write("<!doctype html><html><body style='margin:0;background:#fff'>", fg.compile(p, { schedule = sched }):svg(),
            "</body></html>")
    f:close()
    print(path)
  end
  return
end
local function mib(b) return ("%.2f MiB"):format(b / 1048576) end

local EXAMPLES = { "screenshot", "vr", "vr_ssaa", "split_screen", "deferred", "taa" }

print("## 1. examples, planned (profile lavapipe)")
print(("%-13s %12s %12s %12s %12s %7s %6s"):format("example", "heap decl", "heap memory", "LOAD decl", "LOAD memory",
      "mem/decl", "moved"))
for _, name in ipairs(EXAMPLES) do
  local p = ex.load("examples/" .. name .. ".lua")
  local d, m = fg.compile(p, { schedule = "declared" }):stats(), fg.compile(p, { schedule = "memory" }):stats()
  print(("%-13s %12s %12s %12s %12s %7.3f %6d"):format(name, mib(d.heap_bytes), mib(m.heap_bytes), mib(d.load_bytes),
        mib(m.load_bytes), m.heap_bytes / d.heap_bytes, m.moved))
end
do
  local p = ex.load("examples/screenshot.lua")
  local one = fg.compile(p, { dimensions = { tile = 1 } }):stats().heap_bytes
  local d = fg.compile(p, { schedule = "declared" }):stats().heap_bytes
  local m = fg.compile(p, { schedule = "memory" }):stats().heap_bytes
  print(("screenshot, 4 tiles vs one tile (%s): declared %.2fx, memory %.2fx"):format(mib(one), d / one, m / one))
end

if not no_device then
  print("\n## 2. examples, run (2 frames)")
  local dev = fg.vulkan{ validation = false, prefer = os.getenv("FG_DEVICE") or "software" }
  print("device: " .. dev:info().name)
  print(("%-13s %-9s %14s %9s %9s %9s %s"):format("example", "schedule", "VkDeviceMemory", "barriers", "planned/2",
        "batches", "outputs"))
  for _, name in ipairs(EXAMPLES) do
    local images = {}
    for _, sched in ipairs({ "declared", "memory" }) do
      local p = ex.load("examples/" .. name .. ".lua", dev)
      local rt = fg.runtime(dev, p, { schedule = sched })
      local st
      for _ = 1, 2 do st = rt:frame() end
      local out = {}
      for _, o in ipairs(p.outputs or {}) do
        for _, idx in ipairs(ex.output_indices(rt:graph(), o)) do out[#out + 1] = rt:read(o, idx or nil) or "" end
      end
      images[sched] = table.concat(out)
      local has_run = false
      for _, nd in ipairs(p.nodes) do has_run = has_run or nd.run ~= nil end
      local same = sched ~= "memory" and "" or not has_run and "n/a (no run: contents undefined)"
                   or tostring(images.memory == images.declared)
      local pb = rt:stats().planned_barriers  -- per frame parity
      print(("%-13s %-9s %14s %9d %9s %9d %s"):format(name, sched, mib(rt:memory().total), st.barriers,
            pb[1] .. "+" .. pb[2], st.batches, same == "" and "" or "identical: " .. same))
      rt:close()
    end
  end
  dev:close()
end

print("\n## 3. generated DAGs (5 seeds per size)")
print(("%-7s %6s %9s %18s %12s %12s %6s"):format("kind", "inst", "instances", "heap mem/decl", "compile decl",
      "compile mem", "wins"))
local function median(t)
  table.sort(t)
  return t[(#t + 1) // 2]
end
-- the default budget, then the large frame DAGs with time_budget_ms = 20 (packer and local search)
local runs = {}
for _, kind in ipairs({ "frame", "random" }) do
  for _, n in ipairs({ 50, 100, 200, 500, 1000, 2000 }) do runs[#runs + 1] = { kind, n } end
end
runs[#runs + 1] = { "frame", 500, 20 }
runs[#runs + 1] = { "frame", 1000, 20 }
for _, run in ipairs(runs) do
  local kind, n, budget = run[1], run[2], run[3]
  do
    local ratios, td, tm, inst, wins = {}, {}, {}, 0, 0
    for seed = 1, 5 do
      local p = kind == "frame" and dags.frame(seed, n) or dags.random(seed, n)
      local ok, d = pcall(fg.compile, p, { schedule = "declared", time_budget_ms = budget })
      if ok then
        local m = fg.compile(p, { schedule = "memory", time_budget_ms = budget })
        local sd, sm = d:stats(), m:stats()
        assert(sm.heap_bytes <= sm.heap_declared, "memory order packed larger than declared")
        ratios[#ratios + 1] = sm.heap_bytes / sm.heap_declared
        td[#td + 1], tm[#tm + 1] = sd.compile_ms, sm.compile_ms
        inst = inst + sm.instances
        if sm.schedule == "memory" then wins = wins + 1 end
      end
    end
    if #ratios > 0 then
      local sum, lo, hi = 0, math.huge, 0
      for _, r in ipairs(ratios) do sum, lo, hi = sum + r, math.min(lo, r), math.max(hi, r) end
      print(("%-7s %6d %9d %6.3f [%.3f %.3f] %9.2f ms %9.2f ms %3d/%d%s"):format(kind, n, inst // #ratios,
            sum / #ratios, lo, hi, median(td), median(tm), wins, #ratios,
            budget and ("  time_budget_ms = " .. budget) or ""))
    end
  end
end
