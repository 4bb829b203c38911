-- bench/cycle_seeds.lua: fg.pack's quality on random cycles across seeds
-- (issue 27, "Budgets at any size": quality near 1.04 x LOAD). One seed is
-- one instance; quality swings by instance more than by packer variant, so
-- compare packers on the mean and the worst of many rows, not on one.
--   . scripts/env.sh && lua5.4 bench/cycle_seeds.lua [n] [families] [seeds]
-- n: items (default 30000); families: sc (bench/scale.lua's cycle T=1000,
-- lifetimes <= T/2, sizes 1-5000, align 1-8, 1/8 whole-cycle items), ri
-- (bench/random_items.lua's cycle: T=1000, lifetimes <= 100, sizes up to
-- 2^20), both (default) or all (adds scale.lua's cycle T=100 long); seeds:
-- a list, default 1-9. Prints the CPU time and makespan / LOAD per row, then
-- the mean and the worst.
local fg = require("framegraph")
local n = tonumber(arg[1] or 30000)
local which = arg[2] or "both"
local seeds = {}
for v in (arg[3] or "1,2,3,4,5,6,7,8,9"):gmatch("%d+") do seeds[#seeds + 1] = tonumber(v) end

local seed
local function rnd(k) -- bench/scale.lua's xorshift
  seed = seed ~ (seed << 13); seed = seed ~ (seed >> 7); seed = seed ~ (seed << 17)
  return (seed >> 1) % k
end
local function scale_items(sd, T)
  seed = 88172645463325252 + sd * 7919
  local items = {}
  for i = 1, n do
    local s = rnd(T)
    local e = rnd(8) == 0 and s or (s + 1 + rnd(T // 2 + 1)) % T
    items[i] = { start = s, stop = e, size = 1 + rnd(5000), align = 1 << rnd(4) }
  end
  return items
end
local function ri_items(sd, T, maxlen, maxsize) -- bench/random_items.lua's generator
  math.randomseed(sd)
  local items = {}
  for i = 1, n do
    local s = math.random(0, T - 1)
    local e = (s + math.random(1, maxlen)) % T
    if e == s then e = (s + 1) % T end
    items[i] = { start = s, stop = e, size = math.random(1, maxsize) }
  end
  return items
end

local tot, cnt, worst, wname = 0, 0, 0, ""
print(("%-12s %5s %8s %9s"):format("family", "seed", "time s", "mk/LOAD"))
for _, sd in ipairs(seeds) do
  local rows = {}
  if which ~= "ri" then rows[#rows + 1] = { "sc T=1000", scale_items(sd, 1000), 1000 } end
  if which == "all" then rows[#rows + 1] = { "sc T=100", scale_items(sd, 100), 100 } end
  if which ~= "sc" then rows[#rows + 1] = { "ri T=1000", ri_items(sd, 1000, 100, 1 << 20), 1000 } end
  for _, r in ipairs(rows) do
    local t = os.clock()
    local res = fg.pack(r[2], { period = r[3] })
    local dt = os.clock() - t
    assert(fg.check_packing(r[2], res.offsets, { period = r[3] }), "invalid packing")
    local q = res.makespan / res.load
    tot, cnt = tot + q, cnt + 1
    if q > worst then worst, wname = q, ("%s seed %d"):format(r[1], sd) end
    print(("%-12s %5d %8.3f %9.4f"):format(r[1], sd, dt, q))
  end
end
print(("mean %.4f, worst %.4f (%s), over %d rows"):format(tot / cnt, worst, wname, cnt))
