-- Push constants by name: packed by the SPIR-V reflection's member names,
-- offsets and types; integers for floats converted, never reinterpreted;
-- missing, unknown, mis-sized and empty parameters refused with the member's
-- name; positional lists type-checked the same way. On lavapipe with
-- validation (a validation message fails the spec).
package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
local fg = require("framegraph")

local SHADERS = fg.shader_dir()

describe("push constants by name", function()
  local dev, frag, comp
  setup(function()
    dev = fg.vulkan{ validation = true, prefer = "software" }
    frag = fg.shader(dev, SHADERS .. "/rt_params.frag.spv")
    comp = fg.shader(dev, SHADERS .. "/rt_params.comp.spv")
  end)
  teardown(function() dev:close() end)
  after_each(function() assert.are.same({}, dev:messages()) end)

  local function draw_pixel(push)
    local p = { outputs = { "target" }, nodes = {
      { name = "params", create = { target = { format = "rgba32_sfloat", size = { 4, 4 } } },
        pass = { color = { "target" } },
        run = function(cmd) cmd:draw(frag, {}, 3, push) end } } }
    local rt = fg.runtime(dev, p)
    rt:frame()
    local px = assert(rt:read("target"))
    rt:close()
    local r, g, b, a = string.unpack("<ffff", px)
    return { r, g, b, a }
  end

  -- every member back from the compute shader: f[12], then mode, count
  local function round_trip(push)
    local p = { outputs = { "out" }, nodes = {
      { name = "params", create = { out = { buffer = 64 } },
        run = function(cmd) cmd:dispatch(comp, { [0] = "out" }, 1, 1, 1, push) end } } }
    local rt = fg.runtime(dev, p)
    rt:frame()
    local bytes = assert(rt:read("out"))
    rt:close()
    local v = { string.unpack("<" .. ("f"):rep(12) .. "i4I4", bytes) }
    v[#v] = nil  -- unpack's next position
    return v
  end

  local function near(want, got)
    assert.are.equal(#want, #got)
    for i = 1, #want do assert.is_true(math.abs(want[i] - got[i]) < 1e-6, ("value %d: %s vs %s"):format(i, want[i], got[i])) end
  end

  local named = { exposure = 2.0, tint = { 0.25, 0.5, 0.125 }, mode = 1, count = 2,
                  m = { { 1, 2 }, { 3, 4 } }, weights = { 0, 0, 0.5 } }

  it("a named block renders the pixel its members make", function()
    near({ 0.5, 1.0, 0.25, 1 + 2 * 0.5 + 3 + 0.5 }, draw_pixel(named))
  end)

  it("packs every member at its reflected offset; an integer for a float member is converted", function()
    local v = round_trip{ exposure = 2, tint = { 1, 0.8, 1.2 }, mode = -3, count = 7,
                          m = { 1, 2, 3, 4 }, weights = { 5, 6, 7 } }
    near({ 2, 1, 0.8, 1.2, 1, 2, 3, 4, 5, 6, 7, 0, -3, 7 }, v)
  end)

  it("positional lists fill the block's words, type-checked the same way", function()
    -- exposure, padding x3, tint, mode, count, padding, m (offset 40), weights
    local v = round_trip{ 3, 0, 0, 0, 1, 1, 1, 4, 9, 0, 1, 0, 0, 1, 2, 3, 4 }
    near({ 3, 1, 1, 1, 1, 0, 0, 1, 2, 3, 4, 0, 4, 9 }, v)
  end)

  local function refused(push, ...)
    local ok, err = pcall(round_trip, push)
    assert.is_false(ok)
    err = tostring(err)
    for _, want in ipairs{ ... } do assert.matches(want, err, 1, true) end
    return err
  end

  it("refuses missing, unknown, mis-sized, mistyped and empty parameters, naming the member", function()
    local function without(k)
      local t = {}
      for key, v in pairs(named) do if key ~= k then t[key] = v end end
      return t
    end
    refused(without("tint"), "member 'tint' (vec3) is missing", "node 'params': cmd:dispatch")
    local t = without("exposure")
    t.exposure, t.exposre = nil, 1
    refused(t, "unknown member 'exposre'; did you mean 'exposure'?")
    t = without("tint")
    t.tint = { 1, 0.5 }
    refused(t, "'tint' is a vec3 and takes 3 numbers, got 2")
    t = without("mode")
    t.mode = 1.5
    refused(t, "'mode'", "int", "1.5 is not a whole number")
    t = without("count")
    t.count = -1
    refused(t, "'count'", "uint", "non-negative")
    t = without("tint")
    t.tint = "red"
    refused(t, "'tint' (vec3) got a string")
    refused({}, "an empty table for a block with members")
    refused(nil, "none given, but the shader has push constants")
    refused({ 1.0 }, "1 value (4 bytes) given for a 68-byte block: member 'tint'")
    refused(string.pack("<f", 1), "4 bytes given for a 68-byte block: member 'tint' gets no bytes")
    local all = { 1, 2, x = 3 }
    refused(all, "mixes names and positions")
    -- the message lists the block's members
    refused({}, "block 'Params': exposure float, tint vec3, mode int, count uint, m mat2, weights float[3]")
  end)

  it("sh:pack packs a uniform buffer (or the push block) by name, checked the same way, for an upload", function()
    local up = fg.shader(dev, SHADERS .. "/rt_upload.comp.spv")
    assert.are.equal(string.pack("<I4I4I4I4", 3, 7, 4, 0), up:pack(0, { mul = 3, add = 7, n = 4, pad = 0 }))
    local ok, err = pcall(up.pack, up, 0, { mul = 3, add = 7, n = 4 })
    assert.is_false(ok)
    assert.matches("sh:pack: uniform buffer 0: member 'pad' (uint) is missing", err, 1, true)
    ok, err = pcall(up.pack, up, 0, { mul = 0.5, add = 7, n = 4, pad = 0 })
    assert.is_false(ok)
    assert.matches("'mul'", err, 1, true)
    ok, err = pcall(up.pack, up, 1, { v = 1 })
    assert.is_false(ok)
    assert.matches("binding 1 of shader", err, 1, true)
    -- the push block through the same door: 2 for a float is 2.0
    local bytes = comp:pack("push", { exposure = 2, tint = { 1, 0.8, 1.2 }, mode = -3, count = 7, m = { 1, 2, 3, 4 },
                                      weights = { 5, 6, 7 } })
    assert.are.equal(68, #bytes)
    assert.are.equal(2.0, (string.unpack("<f", bytes)))
    near({ 2, 1, 0.8, 1.2, 1, 2, 3, 4, 5, 6, 7, 0, -3, 7 }, round_trip(bytes))
    up:close()
  end)

  it("a string of the block's size is taken as it is", function()
    local bytes = string.pack("<f", 5) .. ("\0"):rep(12) .. string.pack("<fff", 1, 2, 3) .. string.pack("<i4I4", 6, 8)
                  .. ("\0"):rep(4) .. string.pack("<ffff", 1, 0, 0, 1) .. string.pack("<fff", 0, 0, 1)
    assert.are.equal(68, #bytes)
    near({ 5, 1, 2, 3, 1, 0, 0, 1, 0, 0, 1, 0, 6, 8 }, round_trip(bytes))
  end)
end)
