-- Validation findings of the hardening work (docs/RELIABILITY.md, "Defects
-- found and fixed") that need a device: each pipeline here once drew a
-- validation message; now it renders without one.
local fg = require("framegraph")

describe("validation regressions", function()
  local dev
  setup(function() dev = fg.vulkan{ validation = true, prefer = "software" } end)
  teardown(function() dev:close() end)
  after_each(function() assert.are.same({}, dev:messages()) end)

  it("a draw samples a texture its node declares as a storage read", function()
    -- found by mutating examples/deferred.lua (lighting reading ao as
    -- storage): the barrier into GENERAL waited for storage reads only and
    -- the sampled read in the fragment shader raced the layout transition
    local copy = fg.shader(dev, fg.shader_dir() .. "/dev_copy.frag.spv")
    local p = { outputs = { "y" }, nodes = {
      { name = "a", create = { x = { format = "rgba8_unorm", size = { 8, 8 } } },
        pass = { color = { { "x", clear = { 0, 1, 0, 1 } } } } },
      { name = "b", read = { x = "storage" }, create = { y = { format = "rgba8_unorm", size = { 8, 8 } } },
        pass = { color = { "y" } },
        run = function(cmd) cmd:draw(copy, { [3] = { "x", sampler = "nearest" } }, 3) end } } }
    local rt = assert(fg.runtime(dev, p, {}))
    for _ = 1, 3 do rt:frame() end
    assert.are.equal(string.rep("\0\255\0\255", 64), rt:read("y"))
    rt:close()
    copy:close()
  end)

  it("a draw samples a depth texture its node declares depth_read", function()
    -- found by mutating examples/deferred.lua (ssao reading depth as
    -- depth_read): the barrier waited for the depth tests only
    local copy = fg.shader(dev, fg.shader_dir() .. "/dev_copy.frag.spv")
    local p = { outputs = { "y" }, nodes = {
      { name = "a", create = { d = { format = "d32_sfloat", size = { 8, 8 } } },
        pass = { depth = { "d", clear = 0.5 } } },
      { name = "b", read = { d = "depth_read" }, create = { y = { format = "rgba8_unorm", size = { 8, 8 } } },
        pass = { color = { "y" } },
        run = function(cmd) cmd:draw(copy, { [3] = { "d", sampler = "nearest" } }, 3) end } } }
    local rt = assert(fg.runtime(dev, p, {}))
    for _ = 1, 3 do rt:frame() end
    -- depth 0.5 into rgba8: 127.5 rounds to 128 on lavapipe and to 127 on NVIDIA
    local y = rt:read("y")
    assert.are.equal(256, #y)
    for i = 1, 256, 4 do
      local r, g, b, a = y:byte(i, i + 3)
      assert.is_true((r == 127 or r == 128) and g == 0 and b == 0 and a == 255, ("pixel %d: %d %d %d %d"):format(i // 4, r, g, b, a))
    end
    rt:close()
    copy:close()
  end)

  it("a draw reading outside its declared stage is refused (no barrier fits inside a pass)", function()
    local copy = fg.shader(dev, fg.shader_dir() .. "/dev_copy.frag.spv")
    local p = { outputs = { "y" }, nodes = {
      { name = "a", create = { x = { format = "rgba8_unorm", size = { 8, 8 } } },
        pass = { color = { { "x", clear = { 0, 1, 0, 1 } } } } },
      { name = "b", read = { x = { usage = "sampled", stage = "compute" } },
        create = { y = { format = "rgba8_unorm", size = { 8, 8 } } }, pass = { color = { "y" } },
        run = function(cmd) cmd:draw(copy, { [3] = "x" }, 3) end } } }
    local rt = assert(fg.runtime(dev, p, {}))
    local ok, err = pcall(rt.frame, rt)
    assert.is_false(ok)
    assert.matches("node 'b': cmd:draw reads 'x' in the fragment shader", err)
    assert.matches("declare it with usage 'sampled' %(and stage = \"fragment\"%)", err)
    rt:close()
    copy:close()
  end)

  it("a draw into an integer attachment from a float output is refused", function()
    local copy = fg.shader(dev, fg.shader_dir() .. "/dev_copy.frag.spv")
    local p = { outputs = { "y" }, nodes = {
      { name = "a", create = { x = { format = "rgba8_unorm", size = { 8, 8 } } },
        pass = { color = { { "x", clear = { 0, 1, 0, 1 } } } } },
      { name = "b", read = { "x" }, create = { y = { format = "rgba8_uint", size = { 8, 8 } } },
        pass = { color = { "y" } },
        run = function(cmd) cmd:draw(copy, { [3] = "x" }, 3) end } } }
    local rt = assert(fg.runtime(dev, p, {}))
    local ok, err = pcall(rt.frame, rt)
    assert.is_false(ok)
    assert.matches("color attachment 0 has an unsigned integer format but the fragment shader writes a float output at "
                   .. "location 0", err)
    assert.matches("out uvec4", err)
    rt:close()
    copy:close()
  end)

  it("pass attachments of different sizes are refused before recording", function()
    local p = { resolutions = { main = { 16, 16 } }, outputs = { "c" }, nodes = {
      { name = "g", create = { c = { format = "rgba8_unorm", size = "main" },
                               d = { format = "d32_sfloat", size = { "main", 0.25 } } },
        pass = { color = { "c" }, depth = "d" } } } }
    local ok, err = pcall(fg.runtime, dev, p, {})
    assert.is_false(ok)
    assert.matches("node 'g': pass attachments differ in size: 'c' is 16x16 but 'd' is 4x4", err)
  end)
end)
