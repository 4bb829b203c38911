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
