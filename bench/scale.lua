-- bench/scale.lua: fg.pack and fg.compile at scale (issue 27, "Budgets at
-- any size"). Speed belongs here, never in a test.
--   . scripts/env.sh && lua5.4 bench/scale.lua [sizes, default 30000,100000]
-- Prints, per random instance family and size, the time of one fg.pack with
-- the default (work) budget, makespan / LOAD and the proved bound / LOAD
-- (result.bound: LOAD, cliques, alignment); then the compile time of one
-- node multiplexed 65536 times (the documented maximum) with each schedule.
local fg = require("framegraph")
local sizes = {}
for v in (arg[1] or "30000,100000"):gmatch("%d+") do sizes[#sizes + 1] = tonumber(v) end

local seed
local function rnd(k)
  seed = seed ~ (seed << 13); seed = seed ~ (seed >> 7); seed = seed ~ (seed << 17)
  return (seed >> 1) % k
end
-- families: lifetimes up to half the timeline (long) or up to 1/50 (short);
-- cyclic (1/8 whole-cycle items) or linear
local families = {
  { "cycle T=100 long", 100, function(T) return 1 + rnd(T // 2 + 1) end },
  { "cycle T=1000 long", 1000, function(T) return 1 + rnd(T // 2 + 1) end },
  { "cycle T=1000 short", 1000, function(T) return 1 + rnd(T // 50) end },
  { "line T=1000 long", 0, function(T) return 1 + rnd(T // 2 + 1) end },
  { "line T=10000 short", 0, function(T) return 1 + rnd(T // 50) end, 10000 },
}
local function items_of(fam, n)
  seed = 88172645463325252
  local _, period, len, T = fam[1], fam[2], fam[3], fam[4] or 1000
  T = period > 0 and period or T
  local items = {}
  for i = 1, n do
    local s = rnd(T)
    local e
    if period > 0 then e = rnd(8) == 0 and s or (s + len(T)) % T else e = s + len(T) end
    items[i] = { start = s, stop = e, size = 1 + rnd(5000), align = 1 << rnd(4) }
  end
  return items
end

print(("%-20s %8s %9s %10s %10s  %s"):format("family", "items", "time s", "mk/LOAD", "bnd/LOAD", "valid"))
for _, fam in ipairs(families) do
  for _, n in ipairs(sizes) do
    local items = items_of(fam, n)
    local opts = { period = fam[2] > 0 and fam[2] or nil }
    local t = os.clock()
    local r = fg.pack(items, opts)
    local dt = os.clock() - t
    local ok = fg.check_packing(items, r.offsets, opts)
    print(("%-20s %8d %9.3f %10.4f %10.6f  %s"):format(fam[1], n, dt, r.makespan / r.load, r.bound / r.load,
      ok and "yes" or "NO"))
  end
end

local N = 65536
for _, sched in ipairs({ "memory", "declared" }) do
  local p = {
    name = "mux", dimensions = { i = N }, outputs = { "out" },
    nodes = {
      { name = "clear", create = { out = { format = "rgba8_unorm", size = { 16, 16 }, usage = "transfer_dst" } } },
      { name = "a", multiplex = { "i" }, create = { t = { format = "rgba8_unorm", size = { 64, 64 } } } },
      { name = "b", multiplex = { "i" }, read = { "t" }, modify = { out = "storage" } },
    } }
  local t = os.clock()
  local g = assert(fg.compile(p, { schedule = sched }))
  print(("compile: %d instances x 2 nodes, schedule %-8s %.3f s (heap %d bytes)"):format(N, sched, os.clock() - t,
    g:stats().heap_bytes))
end
