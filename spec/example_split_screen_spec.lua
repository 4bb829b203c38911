-- examples/split_screen.lua: player = 2, each view half the screen wide,
-- composed side by side into one output. Runs on lavapipe (FG_DEVICE
-- overrides) at a 64x32 screen (two 32x32 views).
package.path = "examples/?.lua;" .. package.path
local fg = require("framegraph")
local ex = require("common")
require("framegraph.assertions")
local examples = require("support.examples")

local SMALL = { screen = { 64, 32 } }
local W, H = 64, 32

-- Columns [x0, x1) of an rgba8 W x H image, row by row.
local function columns(px, x0, x1)
  local rows = {}
  for y = 0, H - 1 do rows[#rows + 1] = px:sub((y * W + x0) * 4 + 1, (y * W + x1) * 4) end
  return table.concat(rows)
end

describe("examples/split_screen.lua", function()
  local dev
  examples.device(function(d) dev = d end)

  it("runs the view nodes per player, the shadow map once, into one screen", function()
    local g = fg.compile((ex.load("examples/split_screen.lua")))
    local count = examples.instances(g, true)
    assert.are.equal(1, count.shadows)
    assert.are.equal(1, count.layout)
    assert.are.equal(2, count.gbuffer)
    assert.are.equal(2, count.compose)
    for _, r in ipairs(g:resources()) do
      if r.name == "screen" then assert.are.same({ 640, 360 }, { r.width, r.height }) end
      if r.name == "view" then assert.are.same({ 320, 360 }, { r.width, r.height }) end
    end
  end)

  it("saves memory: player 2's transients reuse player 1's", function()
    examples.assert_views_alias("examples/split_screen.lua")
  end)

  it("composes two different views side by side, bit-identical with aliasing off and poisoned", function()
    local p = ex.load("examples/split_screen.lua", dev)
    local runs = examples.identical_runs(dev, p, SMALL)
    local screen = runs[2].images.screen
    assert.are.equal(W * H * 4, #screen)
    local left, right = columns(screen, 0, W // 2), columns(screen, W // 2, W)
    assert.is_true(examples.distinct(left) > 100, "player 1's view looks flat")
    assert.is_true(examples.distinct(right) > 100, "player 2's view looks flat")
    assert.are_not.equal(left, right)
    -- the left half is player 1's view alone: the same with one player (whose
    -- right half stays cleared to black)
    local p1 = ex.load("examples/split_screen.lua", dev)
    local rt = fg.runtime(dev, p1, { resolutions = SMALL, dimensions = { player = 1 } })
    rt:frame()
    local solo = assert(rt:read("screen"))
    rt:close()
    assert.are.equal(left, columns(solo, 0, W // 2))
    assert.are.equal(string.rep("\0\0\0\255", W // 2 * H), columns(solo, W // 2, W))
  end)

  it("writes the PNG from its runner step", function()
    local p, extras = ex.load("examples/split_screen.lua", dev)
    local rt = fg.runtime(dev, p, { resolutions = SMALL })
    rt:frame()
    local dir = examples.out_dir()
    local files = extras.after(rt, { out_dir = dir, ex = ex })
    rt:close()
    examples.assert_pngs(files, 1, dir)
  end)
end)
