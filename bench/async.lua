-- bench/async: what async compute buys on a device with a second queue.
-- Runs examples/async.lua (SSAO and bloom on the async queue) and its serial
-- twin (the same pipeline, one queue) for N frames each, alternating in
-- rounds (a device's clocks and a machine's load drift), and prints:
--  - per-pass GPU times (rt:timings(), median over the frames read) with the
--    queue and start of each pass, serial vs async;
--  - GPU frame time (first pass's start to last pass's end), serial vs async;
--  - the overlap achieved: the sum of the passes' times minus the frame time
--    (0 on one queue; how much ran at once);
--  - the heap: the async plan's, the serial plan's, and the baseline of
--    lifetimes extended over whole fork/join regions.
-- Run: . scripts/env.sh; lua5.4 bench/async.lua [frames=300] [WxH=1920x1080] [rounds=3]
--   FG_DEVICE=software for lavapipe (it has no second queue: FG_ASYNC_QUEUE=same
--   exercises the submissions, without overlap); FG_ASYNC_QUEUE=off|same|auto.
package.path = "lua/?.lua;lua/?/init.lua;examples/?.lua;" .. package.path
local fg = require("framegraph")

local FRAMES = tonumber(arg and arg[1]) or 300
local W, H = ((arg and arg[2]) or "1920x1080"):match("^(%d+)x(%d+)$")
W, H = tonumber(W) or 1920, tonumber(H) or 1080
local ROUNDS = tonumber(arg and arg[3]) or 3
local prefer = os.getenv("FG_DEVICE") == "software" and "software" or "gpu"
local dev = fg.vulkan{ validation = false, prefer = prefer }
local info = dev:info()

local function load(serial)
  local chunk = assert(loadfile("examples/async.lua"))
  return chunk(dev, { serial = serial, width = W, height = H })
end

local function median(t)
  if #t == 0 then return 0 end
  local c = table.move(t, 1, #t, 1, {})
  table.sort(c)
  return c[(#c + 1) // 2]
end

-- One run of `frames` frames; timings of every finished frame read back.
local function run(serial, acc)
  local rt = fg.runtime(dev, load(serial))
  local seen
  for _ = 1, FRAMES do
    rt:frame()
    local t = rt:timings()
    if t and t.frame and t.frame ~= seen and t.frame >= 2 then   -- skip the first frames (warm-up)
      seen = t.frame
      acc.frame[#acc.frame + 1] = t.frame_ms
      local sum = 0
      for i, e in ipairs(t) do
        acc.pass[i] = acc.pass[i] or { name = e.name, queue = e.queue or "graphics", ms = {}, start = {} }
        local p = acc.pass[i]
        p.ms[#p.ms + 1] = e.gpu_ms
        p.start[#p.start + 1] = e.start_ms or 0
        sum = sum + e.gpu_ms
      end
      acc.sum[#acc.sum + 1] = sum
    end
  end
  dev:wait_idle()
  acc.mem = rt:memory().total
  acc.stats = rt:stats()
  acc.graph = rt:graph():stats()
  rt:close()
end

local res = { serial = { frame = {}, sum = {}, pass = {} }, async = { frame = {}, sum = {}, pass = {} } }
for _ = 1, ROUNDS do
  run(true, res.serial)
  run(false, res.async)
end

print(("device: %s (%s), async queue: %s; %dx%d, %d frames x %d rounds per pipeline")
  :format(info.name, info.type, info.async_queue, W, H, FRAMES, ROUNDS))
print(("async runtime: %s, %d submissions per frame (serial: %d)")
  :format(res.async.stats.async_queue and "second submission stream" or "one queue (no async queue on this device)",
          res.async.stats.submits, res.serial.stats.submits))
print()
print(("%-14s %-9s %10s %10s %10s"):format("pass", "queue", "serial ms", "async ms", "starts at"))
local bynameS = {}
for _, p in ipairs(res.serial.pass) do bynameS[p.name] = p end
for _, p in ipairs(res.async.pass) do
  local s = bynameS[p.name]
  print(("%-14s %-9s %10.3f %10.3f %10.3f"):format(p.name, p.queue, s and median(s.ms) or 0, median(p.ms), median(p.start)))
end
print()
local fs, fa = median(res.serial.frame), median(res.async.frame)
local ss, sa = median(res.serial.sum), median(res.async.sum)
print(("GPU frame time (median): serial %.3f ms, async %.3f ms (%+.1f%%)"):format(fs, fa, fs > 0 and 100 * (fa - fs) / fs or 0))
print(("sum of pass times:       serial %.3f ms, async %.3f ms"):format(ss, sa))
print(("overlap achieved:        %.3f ms (sum of passes - frame time; serial: %.3f ms)"):format(sa - fa, ss - fs))
local a = res.async.graph.async
print(("heap: async plan %.2f MiB, serial plan %.2f MiB (+%.2f MiB for async), whole fork/join regions %.2f MiB; "
       .. "VkDeviceMemory async %.2f MiB, serial %.2f MiB")
  :format(a.heap_bytes / 2 ^ 20, res.serial.graph.heap_bytes / 2 ^ 20, (a.heap_bytes - res.serial.graph.heap_bytes) / 2 ^ 20,
          a.region_bytes / 2 ^ 20, res.async.mem / 2 ^ 20, res.serial.mem / 2 ^ 20))
dev:close()
