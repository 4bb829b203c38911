-- examples/vr.lua: eye = 2, per-eye camera blobs, one shared shadow map, two
-- output images. Runs on lavapipe (FG_DEVICE overrides) at 64x64 per eye.
package.path = "examples/?.lua;" .. package.path
local fg = require("framegraph")
local ex = require("common")
require("framegraph.assertions")
local examples = require("support.examples")

local SMALL = { eye = { 64, 64 } }

-- The fraction of rgba8 pixels that differ between a and b.
local function differing(a, b)
  local d = 0
  for i = 1, #a, 4 do if a:sub(i, i + 2) ~= b:sub(i, i + 2) then d = d + 1 end end
  return d / (#a // 4)
end

-- Mean green difference between right[x] and left[x + s] over the middle columns.
local function sad(left, right, s, w)
  local sum, n = 0, 0
  for y = 0, w - 1 do
    for x = w // 4, w - w // 4 - 1 do
      sum = sum + math.abs(left:byte((y * w + x + s) * 4 + 2) - right:byte((y * w + x) * 4 + 2))
      n = n + 1
    end
  end
  return sum / n
end

describe("examples/vr.lua", function()
  local dev
  examples.device(function(d) dev = d end)

  it("loads without a device and plans one shadow map for both eyes", function()
    local p, extras = ex.load("examples/vr.lua")
    assert.are.equal("function", type(extras.after))
    local g = fg.compile(p)
    local count = examples.instances(g, true)
    assert.are.equal(1, count.shadows)
    assert.are.equal(2, count.camera)
    assert.are.equal(2, count.gbuffer)
    assert.are.equal(2, count.tonemap)
    local shadow_copies, final_eyes = 0, {}
    for _, r in ipairs(g:resources()) do
      if r.name == "shadow_map" then shadow_copies = shadow_copies + 1 end
      if r.name == "final" and r.frame == 0 then final_eyes[#final_eyes + 1] = r.index.eye end
    end
    assert.are.equal(2, shadow_copies)         -- one per frame parity, none per eye
    table.sort(final_eyes)
    assert.are.same({ 1, 2 }, final_eyes)
  end)

  it("saves memory: eye 2's transients reuse eye 1's", function()
    -- the per-eye bloom chain and G-buffer alias: more than one resource
    -- shares an offset range with another at a different time
    examples.assert_views_alias("examples/vr.lua")
  end)

  it("renders two different, non-trivial eye images, bit-identical with aliasing off and poisoned", function()
    local p, extras = ex.load("examples/vr.lua", dev)
    local dir = examples.out_dir()
    local files
    local runs = examples.identical_runs(dev, p, SMALL, function(rt, label)
      if label == "best" then files = extras.after(rt, { out_dir = dir, ex = ex }) end
    end)
    assert.are.same({ "none", "best", "best+poison" }, { runs[1].label, runs[2].label, runs[3].label })
    local left, right = runs[2].images["final[eye=1]"], runs[2].images["final[eye=2]"]
    assert.are.equal(64 * 64 * 4, #left)
    assert.is_true(examples.distinct(left) > 200, "left eye image looks flat")
    assert.is_true(examples.distinct(right) > 200, "right eye image looks flat")
    assert.is_true(differing(left, right) > 0.2, "the eye offset should move most pixels")
    -- and they differ by the eye offset: the right eye sees the scene shifted
    -- left (parallax), so right[x] matches left[x + s] best for some s > 0
    local best, best_s = math.huge, 0
    for sh = -12, 12 do
      local d = sad(left, right, sh, 64)
      if d < best then best, best_s = d, sh end
    end
    assert.is_true(best_s >= 2, "expected a positive parallax shift, got " .. best_s)
    assert.is_true(best < 0.5 * sad(left, right, 0, 64), "the shifted right eye should match the left one")
    examples.assert_pngs(files, 2, dir)
  end)
end)
