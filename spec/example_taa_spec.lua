-- examples/taa.lua: a jittered camera accumulating into its own history. The
-- plan saves memory while keeping the history's two frame copies apart; on a
-- device (lavapipe unless FG_DEVICE=gpu) the image after N frames is measurably
-- closer to a supersampled reference than after one, and it is bit-identical
-- with every solver and with poisoned memory, with no validation message.
package.path = "examples/?.lua;" .. package.path
local fg = require("framegraph")
require("framegraph.assertions")
local ex = require("common")

local PATH = "examples/taa.lua"
local SMALL = { main = { 80, 48 } }

describe("examples/taa.lua", function()
  it("plans the history's two copies apart and still saves memory", function()
    local g = fg.compile(dofile(PATH))
    assert.are.same({ "camera", "render", "resolve", "output" }, g:order())
    assert.saves_memory(g, 0.3)
    assert.near_optimal(g, 1.05)
    local copies = {}
    for _, r in ipairs(g:resources()) do
      if r.name == "accum" then
        assert.is_true(r.history)
        copies[#copies + 1] = r
      end
    end
    assert.are.equal(2, #copies)
    local a, b = copies[1], copies[2]
    assert.is_true(a.offset + a.bytes <= b.offset or b.offset + b.bytes <= a.offset,
                   "the two copies of accum overlap in memory")
  end)

  describe("on a device", function()
    local dev
    setup(function() dev = ex.device("software") end)
    teardown(function() if dev then dev:close() end end)

    it("renders the same accumulation with every solver and with poison", function()
      local p, extras = ex.load(PATH, dev)
      local runs = ex.memory(dev, p, { frames = extras.frames, poison = true, resolutions = SMALL })
      assert.are.equal(4, #runs)
      assert.is_true(ex.identical(runs))
      assert.is_true(runs[3].device < runs[1].device)          -- best below none
      assert.are.same({}, dev:messages())
    end)

    it("after N frames is measurably less noisy than after one", function()
      local p, extras = ex.load(PATH, dev)
      local m = extras.measure(dev, p, { resolutions = SMALL })
      assert.are.equal(16, m.frames)
      assert.is_true(m.first > 20, "one jittered frame should alias visibly, MSE " .. m.first)
      assert.is_true(m.ratio < 0.5, ("MSE after %d frames %.2f vs after 1 frame %.2f"):format(m.frames, m.last, m.first))
      -- the accumulation, not chance: the first frames keep improving
      local two = extras.measure(dev, p, { resolutions = SMALL, frames = 4 })
      assert.is_true(two.last < m.first and m.last < two.last)
      assert.are.same({}, dev:messages())
    end)
  end)
end)
