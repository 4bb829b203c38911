-- examples/run.lua NAME [out_dir]: runs examples/NAME.lua on a Vulkan device
-- (FG_DEVICE=gpu|software; a GPU when there is one, else lavapipe) with
-- validation and synchronization validation on. It runs the example's frames
-- once per solver (none = no aliasing, pool = only identical descriptions
-- share, best = our plan, and best again with poison = true: fresh aliased
-- memory filled with garbage), prints the memory table, checks that the
-- outputs are bit-identical across the four runs, saves the outputs of the
-- `best` run as PNGs in out_dir (default out/) and exits non-zero on any
-- validation message or mismatch.
--   bash scripts/example.sh NAME [out_dir]     (sets up, builds, then runs this)
-- The example's file may return extras after its pipeline:
--   { frames = n,                       -- frames per run (default 2)
--     after = function(rt, env) end }   -- after the best run's frames; env =
--                                       -- {dev, pipeline, out_dir, ex, name, path}; return false
--                                       -- to fail, or the list of files it wrote
local dir = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "examples"
package.path = dir .. "/?.lua;" .. package.path
local ex = require("common")

local name, out_dir = arg[1], arg[2] or "out"
if not name or name:find("[^%w_%-]") then
  io.stderr:write("usage: lua5.4 examples/run.lua NAME [out_dir]   (NAME: a file examples/NAME.lua)\n")
  os.exit(2)
end
local path = dir .. "/" .. name .. ".lua"
os.execute("mkdir -p '" .. out_dir:gsub("'", "'\\''") .. "'")

local dev = ex.device()
local info = dev:info()
print(("device: %s (%s)"):format(info.name, info.type))
local pipeline, extras = ex.load(path, dev)
extras = extras or {}
local frames = extras.frames or 2

local t0 = os.clock()
local saved, ok_after, later = {}, true, {}
local timings, timings_err
local runs = ex.memory(dev, pipeline, {
  frames = frames, poison = true,
  each = function(rt, label)
    if label ~= "best" then return end
    dev:wait_idle()  -- the last frame's timestamps are then readable
    timings, timings_err = rt:timings()
    saved = ex.save_outputs(rt, pipeline, out_dir, name)
    if extras.after then
      -- what the example prints goes below the memory table
      local print0 = print
      print = function(...)
        local t = table.pack(...)
        for i = 1, t.n do t[i] = tostring(t[i]) end
        later[#later + 1] = table.concat(t, "\t")
      end
      local ok, res = pcall(extras.after, rt, { dev = dev, pipeline = pipeline, out_dir = out_dir, ex = ex,
                                               name = name, path = path })
      print = print0
      if not ok then error(res, 0) end
      ok_after = res ~= false
      if type(res) == "table" then  -- the files it wrote
        for _, f in ipairs(res) do saved[#saved + 1] = f end
      end
    end
  end,
})
print(("%s: %d frames per run, %d runs in %.1f s CPU"):format(name, frames, #runs, os.clock() - t0))
ex.print_memory(pipeline.name or name, runs)
-- GPU time per pass of the best run's last frame (rt:timings()), in order
if timings and #timings > 0 then
  print(("GPU time per pass (last frame, %s): %.3f ms"):format(info.name, timings.frame_ms))
  print(("  %-28s %10s %7s"):format("pass", "gpu_ms", "share"))
  for _, e in ipairs(timings) do
    print(("  %-28s %10.3f %6.1f%%"):format(e.name, e.gpu_ms,
          timings.frame_ms > 0 and 100 * e.gpu_ms / timings.frame_ms or 0))
  end
elseif timings_err then
  print("GPU time per pass: " .. timings_err)
end
for _, l in ipairs(later) do print(l) end
for _, p in ipairs(saved) do print("wrote " .. p) end
local same = ex.identical(runs)
local nmsg = ex.report_messages(dev)
dev:close()
if not same or nmsg > 0 or not ok_after then
  print(("FAILED: %s%s%s"):format(same and "" or "outputs differ across runs; ",
                                  nmsg > 0 and (nmsg .. " validation messages; ") or "",
                                  ok_after and "" or "the example's own check failed"))
  os.exit(1)
end
