-- bench/soak: the artist's day in one run. Phase 1 recompiles a pipeline N
-- times through graph:update (a structural edit each time, a fresh
-- fg.compile every 10th); phase 2 renders M frames on the device with a
-- reload every 100 frames (structural and run-only edits alternating) and
-- per-frame uploads. Prints resident memory (RSS) and the runtime's
-- VkDeviceMemory at the first, middle and last sample of each phase; they
-- must stay flat (docs/RELIABILITY.md, "Soak").
-- Run: . scripts/env.sh; lua5.4 bench/soak.lua [recompiles=10000] [frames=10000]
-- (spec/soak_spec.lua runs a short version through run() below.)
package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
local fg = require("framegraph")

local M = { uploads = 0 }

local PAGE = 4096
local function rss()
  local f = io.open("/proc/self/statm")
  if not f then return 0 end
  local _, res = f:read("n", "n")
  f:close()
  return (res or 0) * PAGE
end

-- The edited pipeline: a chain of `n` nodes over w x w textures, a buffer
-- the first node copies this frame's upload into, and an output.
local function pipeline(w, n, tag)
  local nodes = {
    { name = "upload", create = { params = { buffer = 256, usage = "transfer_dst" } },
      run = function(cmd, ctx)
        M.uploads = M.uploads + 1  -- the frames really record (the spec checks the count)
        local h = assert(ctx.upload(string.rep(string.char(ctx.frame % 251), 256)))
        cmd:copy(h, "params")
      end },
  }
  for i = 1, n do
    local node = { name = "n" .. i, read = { params = "transfer_src" },
                   create = { ["t" .. i] = { format = "rgba8_unorm", size = { "main", 1 / i }, usage = "transfer_dst" } },
                   run = function(cmd) cmd:clear("t" .. i, { i / n, tag, 0, 1 }) end }
    if i > 1 then node.read["t" .. (i - 1)] = "sampled" end
    nodes[#nodes + 1] = node
  end
  return { name = "soak", resolutions = { main = { w, w } }, outputs = { "t" .. n }, nodes = nodes }
end

local function sample(list, i, extra)
  collectgarbage("collect")
  local s = { at = i, rss = rss() }
  for k, v in pairs(extra or {}) do s[k] = v end
  list[#list + 1] = s
end

-- Samples at 1, N/2 and N (and every tenth in between, for the spec's checks).
local function should_sample(i, N) return i == 1 or i == N or i == N // 2 or i % math.max(1, N // 10) == 0 end

function M.recompiles(N)
  local out = {}
  local g = fg.compile(pipeline(16, 4, 0))
  for i = 1, N do
    if i % 10 == 0 then
      g:close()
      g = fg.compile(pipeline(16 + i % 7, 3 + i % 4, 0))
    else
      g:update(pipeline(16 + i % 5, 3 + i % 3, 0))
    end
    if should_sample(i, N) then sample(out, i, { heap = g:stats().heap_bytes }) end
  end
  g:close()
  return out
end

function M.frames(F, dev)
  local out = {}
  local own = not dev
  dev = dev or fg.vulkan{ validation = false, prefer = "software" }
  local rt = assert(fg.runtime(dev, pipeline(16, 4, 0), { upload_bytes = 64 * 1024 }))
  local reloads, structural = 0, 0
  for f = 1, F do
    rt:frame()
    if f % 100 == 0 then
      -- alternate: a structural edit (other extent and node count) and back,
      -- with a run-only edit (another clear colour) in between
      local k = (f // 100) % 4
      local p = k == 1 and pipeline(24, 5, 0) or k == 3 and pipeline(16, 4, 0.5) or pipeline(16, 4, 0)
      local ok, changes = rt:reload(p)
      assert(ok, changes)
      reloads = reloads + 1
      if changes.recompiled then structural = structural + 1 end
    end
    if should_sample(f, F) then
      local mem = rt:memory()
      sample(out, f, { device = mem.total, allocations = mem.allocations })
    end
  end
  rt:close()
  if own then dev:close() end
  return out, reloads, structural
end

local function mib(b) return ("%.1f MiB"):format(b / 1048576) end

function M.report(rec, frm)
  local function pick(list) return { list[1], list[(#list + 1) // 2], list[#list] } end
  local lines = {}
  for _, s in ipairs(pick(rec)) do
    lines[#lines + 1] = ("recompile %6d: RSS %s"):format(s.at, mib(s.rss))
  end
  for _, s in ipairs(pick(frm)) do
    lines[#lines + 1] = ("frame     %6d: RSS %s, VkDeviceMemory %d bytes (%d allocations so far)"):format(
      s.at, mib(s.rss), s.device, s.allocations)
  end
  return table.concat(lines, "\n")
end

if ... == "--lib" then return M end

local N = tonumber(arg and arg[1]) or 10000
local F = tonumber(arg and arg[2]) or 10000
local t0 = os.clock()
local rec = M.recompiles(N)
local t1 = os.clock()
local frm, reloads, structural = M.frames(F)
local t2 = os.clock()
print(("soak: %d recompiles in %.1f s CPU, %d frames (%d upload callbacks) with %d reloads (%d structural) in %.1f s CPU"):format(
  N, t1 - t0, F, M.uploads, reloads, structural, t2 - t1))
print(M.report(rec, frm))
