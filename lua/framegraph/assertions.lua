-- framegraph.assertions: busted/luassert assertions about a compiled graph's memory plan.
--   assert.saves_memory(graph, fraction)  heap_bytes <= (1 - fraction) * naive_bytes
--   assert.heap_at_most(graph, bytes)     heap_bytes <= bytes
--   assert.near_optimal(graph, ratio)     heap_bytes <= ratio * load_bytes (makespan / LOAD)
--   assert.within_bound(graph, ratio)     every heap: bytes <= ratio * bound (makespan / the
--                                         lower bound the packer proved, stats().heaps[i].bound)
local say = require("say")
local luassert = require("luassert")

local function stats_of(g)
  if type(g) == "table" and g.heap_bytes then return g end
  return g:stats()
end

-- Messages in MiB, without luassert's "(string) '...'" around them.
local Text = {}
Text.__index = Text
Text.__tostring = function(t) return t.s end
local function text(fmt, ...) return setmetatable({ s = string.format(fmt, ...) }, Text) end
luassert:add_formatter(function(v) if getmetatable(v) == Text then return v.s end end)
local function mib(b) return string.format("%.2f MiB", b / (1024 * 1024)) end
-- MiB to read, bytes to be exact (a test one byte over reads 0.00 MiB on both sides)
local function size(b) return string.format("%.2f MiB (%d bytes)", b / (1024 * 1024), b) end

-- "; peak 8.00 MiB at slot 5 (lighting, frame 0): albedo f0 4.00 MiB, ..." for a graph (not a stats table)
local function peak_text(g)
  if type(g) ~= "userdata" and not (type(g) == "table" and g.resources) then return "" end
  local ok, pk = pcall(require("framegraph.report").peak, g)
  if not ok or pk.bytes == 0 then return "" end
  local names = {}
  for i, r in ipairs(pk.live) do
    if i > 8 then names[#names + 1] = ("and %d more"):format(#pk.live - 8) break end
    names[#names + 1] = ("%s f%d %s"):format(r.label, r.frame, mib(r.bytes))
  end
  return ("; peak %s live at slot %d (%s, frame %d): %s"):format(mib(pk.bytes), pk.slot, pk.node, pk.frame,
                                                                 table.concat(names, ", "))
end

local function saves_memory(state, args)
  local s, fraction = stats_of(args[1]), args[2]
  local ok = s.naive_bytes > 0 and s.heap_bytes <= (1 - fraction) * s.naive_bytes
  args[1] = text("heap %s vs %s without aliasing (saves %.1f%%)%s", size(s.heap_bytes), size(s.naive_bytes),
                  s.naive_bytes > 0 and 100 * (1 - s.heap_bytes / s.naive_bytes) or 0, peak_text(args[1]))
  args[2] = text("%.1f%%", fraction * 100)
  args.n = 2
  return ok
end
local function heap_at_most(state, args)
  local s, bytes = stats_of(args[1]), args[2]
  args[1] = text("heap %s%s", size(s.heap_bytes), peak_text(args[1]))
  args[2] = text("%s", size(bytes))
  args.n = 2
  return s.heap_bytes <= bytes
end
local function near_optimal(state, args)
  local s, ratio = stats_of(args[1]), args[2]
  local r = s.load_bytes > 0 and s.heap_bytes / s.load_bytes or 1
  args[1] = text("makespan/LOAD = %s/%s = %.4f (%d/%d bytes)%s", mib(s.heap_bytes), mib(s.load_bytes), r,
                  s.heap_bytes, s.load_bytes, peak_text(args[1]))
  args[2] = text("%.4g", ratio)
  args.n = 2
  return r <= ratio
end

-- per heap: a sum over heaps would let one heap's slack hide another's
local function within_bound(state, args)
  local s, ratio = stats_of(args[1]), args[2]
  local worst, at = 1, nil
  for i, h in ipairs(s.heaps or {}) do
    local r = h.bound > 0 and h.bytes / h.bound or 1
    if not at or r > worst then worst, at = r, i end
  end
  if at then
    local h = s.heaps[at]
    args[1] = text("heap %d: makespan/bound = %d/%d = %.4f (%s of %s)%s", at, h.bytes, h.bound, worst, mib(h.bytes),
                   mib(h.bound), h.bound_partial and " (bound partial)" or "")
  else
    args[1] = text("no heaps")
  end
  args[2] = text("%.4g", ratio)
  args.n = 2
  return worst <= ratio
end

say:set("assertion.saves_memory.positive", "Expected the memory plan to save at least %s: %s")
say:set("assertion.saves_memory.negative", "Expected the memory plan not to save %s: %s")
say:set("assertion.heap_at_most.positive", "Expected %s to be at most %s")
say:set("assertion.heap_at_most.negative", "Expected %s to exceed %s")
say:set("assertion.near_optimal.positive", "Expected %s to be at most %s")
say:set("assertion.near_optimal.negative", "Expected %s to exceed %s")
say:set("assertion.within_bound.positive", "Expected %s to be at most %s")
say:set("assertion.within_bound.negative", "Expected %s to exceed %s")

-- luassert formats args in order; put the expectation first for the messages above
local function wrap(fn, swap)
  return function(state, args, level)
    local ok = fn(state, args)
    if swap then args[1], args[2] = args[2], args[1] end
    return ok
  end
end
luassert:register("assertion", "saves_memory", wrap(saves_memory, true), "assertion.saves_memory.positive",
                  "assertion.saves_memory.negative")
luassert:register("assertion", "heap_at_most", wrap(heap_at_most, false), "assertion.heap_at_most.positive",
                  "assertion.heap_at_most.negative")
luassert:register("assertion", "near_optimal", wrap(near_optimal, false), "assertion.near_optimal.positive",
                  "assertion.near_optimal.negative")

luassert:register("assertion", "within_bound", wrap(within_bound, false), "assertion.within_bound.positive",
                  "assertion.within_bound.negative")

return { saves_memory = saves_memory, heap_at_most = heap_at_most, near_optimal = near_optimal,
         within_bound = within_bound }
