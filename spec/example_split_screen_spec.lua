-- examples/split_screen.lua: player = 2, each view half the screen wide,
-- composed side by side into one output. Runs on lavapipe (FG_DEVICE
-- overrides) at a 64x32 screen (two 32x32 views).
package.path = "examples/?.lua;" .. package.path
local fg = require("framegraph")
local ex = require("common")
require("framegraph.assertions")

local SMALL = { screen = { 64, 32 } }
local W, H = 64, 32

-- Columns [x0, x1) of an rgba8 W x H image, row by row.
local function columns(px, x0, x1)
  local rows = {}
  for y = 0, H - 1 do rows[#rows + 1] = px:sub((y * W + x0) * 4 + 1, (y * W + x1) * 4) end
  return table.concat(rows)
end
local function distinct(px)
  local seen, n = {}, 0
  for i = 1, #px, 4 do
    local k = px:sub(i, i + 2)
    if not seen[k] then seen[k] = true; n = n + 1 end
  end
  return n
end

describe("examples/split_screen.lua", function()
  local dev
  setup(function() dev = ex.device("software") end)
  teardown(function() dev:close() end)
  after_each(function() assert.are.same({}, dev:messages()) end)

  it("runs the view nodes per player, the shadow map once, into one screen", function()
    local g = fg.compile((ex.load("examples/split_screen.lua")))
    local count = {}
    for _, n in ipairs(g:nodes()) do
      assert.are.equal("active", n.state, n.name)
      count[n.name] = n.instances
    end
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
    local g = fg.compile((ex.load("examples/split_screen.lua")))
    assert.saves_memory(g, 0.5)
    assert.near_optimal(g, 1.05)
    local pool = fg.compile((ex.load("examples/split_screen.lua")), { solver = "pool" })
    assert.is_true(g:stats().heap_bytes < pool:stats().heap_bytes)
  end)

  it("composes two different views side by side, bit-identical with aliasing off and poisoned", function()
    local p = ex.load("examples/split_screen.lua", dev)
    local runs = ex.memory(dev, p, { frames = 2, poison = true, resolutions = SMALL, solvers = { "none", "best" } })
    assert.is_true(ex.identical(runs))
    assert.is_true(runs[2].device < runs[1].device)
    local screen = runs[2].images.screen
    assert.are.equal(W * H * 4, #screen)
    local left, right = columns(screen, 0, W // 2), columns(screen, W // 2, W)
    assert.is_true(distinct(left) > 100, "player 1's view looks flat")
    assert.is_true(distinct(right) > 100, "player 2's view looks flat")
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
    local dir = os.tmpname()
    os.remove(dir)
    assert.is_true(os.execute("mkdir -p '" .. dir .. "'"))
    local files = extras.after(rt, { out_dir = dir, ex = ex })
    rt:close()
    local h = assert(io.open(files[1], "rb"))
    assert.are.equal("\137PNG", h:read(4))
    h:close()
    os.remove(files[1])
    os.remove(dir)
  end)
end)
