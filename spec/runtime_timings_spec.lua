-- rt:timings(): GPU time per node instance from timestamp queries, read back
-- without stalling (the last frame the GPU finished). On lavapipe with
-- validation + synchronization validation: every instance is listed in
-- graph:order()'s order with its node, times are non-negative, and frame_ms
-- (first start to last end, one queue) is at least each pass and the sum of
-- the passes. Object names and pass labels reach the validation messages.
package.path = "examples/?.lua;lua/?.lua;lua/?/init.lua;" .. package.path
local fg = require("framegraph")
local ex = require("common")

local SMALL = { eye = { 48, 48 } }

describe("rt:timings()", function()
  local dev
  setup(function() dev = ex.device("software") end)
  teardown(function() dev:close() end)
  after_each(function() assert.are.same({}, dev:messages()) end)

  it("lists every instance of the last finished frame in execution order, with GPU times", function()
    local p = ex.load("examples/vr.lua", dev)
    local rt = fg.runtime(dev, p, { resolutions = SMALL })
    -- before any frame: an empty list, no frame_ms
    local t0 = assert(rt:timings())
    assert.are.equal(0, #t0)
    assert.is_nil(t0.frame_ms)
    for _ = 1, 3 do rt:frame() end
    dev:wait_idle()
    local t = assert(rt:timings())
    local order = rt:graph():order()
    assert.is_true(#order > 4)
    assert.are.equal(#order, #t)
    local sum, eyes = 0, 0
    for i, e in ipairs(t) do
      local o = order[i]
      assert.are.equal(type(o) == "table" and o.name or o, e.name)
      assert.are.equal(e.name:match("^[^%[]+"), e.node)
      assert.is_true(e.gpu_ms >= 0, e.name)
      assert.is_true(e.gpu_ms <= t.frame_ms + 1e-6, e.name .. " longer than the frame")
      if e.name:find("[eye=2]", 1, true) then eyes = eyes + 1 end
      sum = sum + e.gpu_ms
    end
    assert.is_true(eyes > 0, "multiplexed instances are named like graph:order()")
    assert.is_true(t.frame_ms > 0)
    -- one queue: the instances partition the frame (each starts where the
    -- previous ended), so the sum is the frame up to rounding
    assert.is_true(t.frame_ms >= sum * (1 - 1e-6) - 1e-6, ("frame %g < sum %g"):format(t.frame_ms, sum))
    assert.is_true(t.frame >= 1)
    -- a later frame replaces the list
    rt:frame()
    dev:wait_idle()
    assert.is_true(assert(rt:timings()).frame > t.frame)
    rt:close()
  end)

  it("is off with opts.timestamps = false, and a wrong value is refused", function()
    local p = ex.load("examples/vr.lua", dev)
    local rt = fg.runtime(dev, p, { resolutions = SMALL, timestamps = false })
    rt:frame()
    local t, err = rt:timings()
    assert.is_nil(t)
    assert.matches("timestamps are off", err)
    rt:close()
    assert.has_error(function() fg.runtime(dev, p, { resolutions = SMALL, timestamps = "no" }) end,
      "fg.runtime: opts.timestamps must be a boolean (false: no GPU timestamps, rt:timings() returns nil), got string")
  end)

  it("starts over after a re-plan (the old plan's instances are gone)", function()
    local p = ex.load("examples/vr.lua", dev)
    local rt = fg.runtime(dev, p, { resolutions = SMALL })
    rt:frame(); rt:frame()
    dev:wait_idle()
    assert.is_true(#assert(rt:timings()) > 0)
    rt:set_dimension("eye", 1)
    assert.are.equal(0, #assert(rt:timings()))
    rt:frame(); rt:frame()
    dev:wait_idle()
    local t = assert(rt:timings())
    assert.are.equal(#rt:graph():order(), #t)
    for _, e in ipairs(t) do assert.is_nil(e.name:find("eye=2", 1, true)) end
    rt:close()
  end)
end)

describe("framegraph.gpu_bars (the viewer HUD's bars)", function()
  local bars = require("framegraph.gpu_bars")
  local t = { { name = "shadows", gpu_ms = 6 }, { name = "gbuffer", gpu_ms = 3 }, { name = "tonemap", gpu_ms = 0.5 },
              { name = "lighting[eye=2]", gpu_ms = 0.5 }, frame_ms = 10 }
  local W, H = 640, 26
  local function band()
    local rows = {}
    for y = 0, H - 1 do
      rows[y] = {}
      for x = 1, W do rows[y][x] = "." end
    end
    return rows
  end
  local function px(c) return c[1] == 240 and "B" or c[1] == 200 and "T" or " " end
  local glyphs = setmetatable({}, { __index = function() return "111111111111111" end })

  it("ranks the most expensive passes with their share of the frame", function()
    local top = bars.top(t, 3)
    assert.are.same({ "shadows", "gbuffer" }, { top[1].name, top[2].name })
    assert.are.equal(0.6, top[1].share)
    assert.are.equal(3, #top)
  end)

  it("draws one bar per pass (as many as fit), longer for the costlier pass, in the right end of the band", function()
    local rows = band()
    assert.are.equal(3, bars.draw(rows, px, glyphs, W, H, t))
    local function bar_len(y)
      local n = 0
      for x = 1, W do if rows[y][x] == "B" then n = n + 1 end end
      return n
    end
    local l1, l2, l3 = bar_len(1), bar_len(9), bar_len(17)
    assert.is_true(l1 > l2 and l2 > l3 and l3 >= 1)
    assert.is_true(math.abs(l1 / l2 - 2) < 0.1)
    -- the left of the band (the text lines) is untouched
    for x = 1, W - bars.WIDTH do assert.are.equal(".", rows[5][x]) end
    -- nothing to draw: no timings, or an empty list
    bars.last = nil
    assert.are.equal(0, bars.draw(band(), px, glyphs, W, H))
    assert.are.equal(0, bars.draw(band(), px, glyphs, W, H, {}))
  end)
end)
