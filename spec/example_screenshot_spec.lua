-- examples/screenshot.lua: a 2x screenshot as tile = 4 (2x2) tiles assembled
-- into one image, under a memory budget rendering it whole exceeds. Runs on
-- lavapipe (FG_DEVICE overrides) at 32x32 tiles of a 64x64 screenshot.
package.path = "examples/?.lua;" .. package.path
local fg = require("framegraph")
local ex = require("common")
require("framegraph.assertions")
local examples = require("support.examples")

local SMALL = { main = { 32, 32 }, shot = { 64, 64 } }

describe("examples/screenshot.lua", function()
  local dev
  examples.device(function(d) dev = d end)

  it("plans 4 tiles of the main resolution and one full-size screenshot", function()
    local p = ex.load("examples/screenshot.lua")
    local g = fg.compile(p)
    local count = examples.instances(g)
    assert.are.same({ layout = 1, shadows = 1, gbuffer = 4, lighting = 4, tonemap = 4, assemble = 4 }, count)
    for _, r in ipairs(g:resources()) do
      if r.name == "shot" then assert.are.same({ 512, 512 }, { r.width, r.height }) end
      if r.name == "hdr" then assert.are.same({ 256, 256 }, { r.width, r.height }) end
    end
  end)

  it("fits a memory budget that rendering it whole exceeds, and saves memory", function()
    local p, extras = ex.load("examples/screenshot.lua")
    local tiled = fg.compile(p)
    local whole = fg.compile(p, extras.whole_opts())
    assert.heap_at_most(tiled, extras.budget)
    assert.is_false(whole:stats().heap_bytes <= extras.budget)
    assert.saves_memory(tiled, 0.5)
    assert.near_optimal(tiled, 1.05)
    local m = extras.plans()
    assert.are.equal(tiled:stats().heap_bytes, m.tiled)
    assert.are.equal(whole:stats().heap_bytes, m.whole)
    -- the memory schedule runs each tile's chain before the next tile's
    -- (index-major): four tiles need at most 1.3x one tile's memory (the
    -- declared, node-major order needed 1.46x)
    assert.is_true(m.one_tile <= m.tiled and m.tiled <= 1.3 * m.one_tile)
    assert.is_true(m.declared > 1.3 * m.one_tile)
  end)

  it("assembles tiles bit-identical to the whole render, with aliasing off and poisoned", function()
    local p = ex.load("examples/screenshot.lua", dev)
    local runs = examples.identical_runs(dev, p, SMALL)
    local shot = runs[2].images.shot
    assert.are.equal(64 * 64 * 4, #shot)
    -- the same scene as one 64x64 tile
    local p2, extras = ex.load("examples/screenshot.lua", dev)
    local rt = fg.runtime(dev, p2, extras.whole_opts(SMALL))
    rt:frame()
    local whole = assert(rt:read("shot"))
    rt:close()
    assert.are.equal(shot, whole)
    -- and not the picture of one tile stretched: the four quadrants differ
    local function quadrant(qx, qy)
      local rows = {}
      for y = qy * 32, qy * 32 + 31 do rows[#rows + 1] = shot:sub(y * 256 + qx * 128 + 1, y * 256 + qx * 128 + 128) end
      return table.concat(rows)
    end
    local q = { quadrant(0, 0), quadrant(1, 0), quadrant(0, 1), quadrant(1, 1) }
    for i = 1, 4 do for j = i + 1, 4 do assert.are_not.equal(q[i], q[j]) end end
  end)

  it("writes the screenshot PNG from its runner step", function()
    local p, extras = ex.load("examples/screenshot.lua", dev)
    local dir = examples.out_dir()
    local rt = fg.runtime(dev, p, { resolutions = SMALL })
    rt:frame()
    local files
    -- after() re-renders whole at the pipeline's own resolutions: give it small ones
    p.resolutions = SMALL
    local lines = {}   -- its report, kept out of the spec's output
    files = extras.after(rt, { out_dir = dir, ex = ex, log = function(line) lines[#lines + 1] = line end })
    assert.matches("bit%-identical to the whole render: true", table.concat(lines, "\n"))
    rt:close()
    examples.assert_pngs(files, 1, dir)
  end)
end)
