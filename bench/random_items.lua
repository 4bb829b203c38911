-- Random items at scale: fg.pack's time (os.clock) and makespan / LOAD on
-- random lines and cycles of 30,000 and 100,000 items (issue "Budgets at any
-- size": <= 0.25 s and <= 1 s, quality near 1.04 x LOAD). Run with the
-- library on the path (scripts/env.sh): lua5.4 bench/random_items.lua
local fg = require("framegraph")
local function gen(n, T, maxlen, maxsize, period, seed)
  math.randomseed(seed)
  local items = {}
  for i = 1, n do
    local s = math.random(0, T - 1)
    local len = math.random(1, maxlen)
    local e = period and ((s + len) % T) or (s + len)
    if period and e == s then e = (s + 1) % T end
    items[i] = { start = s, stop = e, size = math.random(1, maxsize) }
  end
  return items
end
for _, c in ipairs{ {30000, 1000, 100, 1<<20}, {30000, 1000, 1000, 1<<20}, {30000, 10000, 100, 65536}, {30000, 100, 10, 4096},
                    {30000, 1000, 100, 1<<20, true}, {100000, 1000, 100, 1<<20}, {100000, 10000, 1000, 1<<16} } do
  local items = gen(c[1], c[2], c[3], c[4], c[5] and c[2] or nil, 7)
  local t = os.clock()
  local r = fg.pack(items, { period = c[5] and c[2] or nil })
  print(("n=%d T=%d len<=%d size<=%d %s: %.3f s, makespan/LOAD %.4f"):format(c[1], c[2], c[3], c[4], c[5] and "cycle" or "line", os.clock() - t, r.makespan / r.load))
end
