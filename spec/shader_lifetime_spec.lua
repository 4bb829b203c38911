-- A shader collected by Lua while frames that use it are still in flight
-- (what a viewer's reload does to the old pipeline file's shaders) must not
-- be destroyed under the GPU: zero validation messages.
local fg = require("framegraph")

describe("fg.shader lifetime", function()
  it("can be collected while frames that use it are in flight", function()
    local dev = fg.vulkan{ validation = true, prefer = "software" }
    local function make(blue)
      local sh = fg.shader(dev, "dev_grad.frag.spv", { fragment_only = true })
      return { outputs = { "c" }, nodes = {
        { name = "n", create = { c = { format = "rgba8_unorm", size = { 512, 512 } } }, pass = { color = { "c" } },
          run = function(cmd) cmd:draw(sh, {}, 3, { blue }) end } } }
    end
    local rt = fg.runtime(dev, make(0.0))
    for i = 1, 3 do
      rt:frame()
      rt:frame()
      assert(rt:reload(make(i / 4)))   -- only `run` changed: no rebuild, no wait; the old shader is garbage
      collectgarbage()
      collectgarbage()
    end
    rt:frame()
    rt:close()
    assert.are.same({}, dev:messages())
    dev:close()
  end)
end)
