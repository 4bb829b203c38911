-- Runtime features on lavapipe with validation + syncval: history,
-- multiplexing, dynamic resolution, inflated alignment, a render pass.
package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
local fg = require("framegraph")

local SHADERS = fg.shader_dir()

describe("fg.runtime features", function()
  local dev, sh
  setup(function()
    dev = fg.vulkan{ validation = true, prefer = "software" }
    sh = {}
    for _, n in ipairs{ "fill", "blur", "invert", "accum" } do
      sh[n] = fg.shader(dev, SHADERS .. "/rt_" .. n .. ".comp.spv")
    end
    sh.uv = fg.shader(dev, SHADERS .. "/rt_uv.frag.spv")
  end)
  teardown(function() dev:close() end)
  after_each(function() assert.are.same({}, dev:messages()) end)

  local function groups(ctx) return (ctx.width + 7) // 8, (ctx.height + 7) // 8 end

  it("history: a feedback accumulator over 4 frames", function()
    local p = {
      outputs = { "acc" },
      nodes = {
        { name = "accum", create = { acc = { format = "rgba8_unorm", size = { 8, 8 }, history = "clear" } },
          history = { acc = "storage" },
          run = function(cmd, ctx)
            local gx, gy = groups(ctx)
            cmd:dispatch(sh.accum, { [0] = { "acc", history = true }, [1] = "acc" }, gx, gy, 1, { 10.0 })
          end },
      },
    }
    local rt = fg.runtime(dev, p, { solver = "best" })
    for _ = 1, 4 do rt:frame() end
    local bytes = assert(rt:read("acc"))
    assert.are.equal(8 * 8 * 4, #bytes)
    assert.are.equal(40, bytes:byte(1))           -- 4 frames x 10, starting from the cleared history
    assert.are.equal(40, bytes:byte(#bytes))
    rt:frame()
    assert.are.equal(50, rt:read("acc"):byte(1))
    rt:close()
  end)

  it("multiplexing: eye = 2 gives two different read-backs", function()
    local p = {
      dimensions = { eye = 2 }, outputs = { "final" },
      nodes = {
        { name = "fill", multiplex = { "eye" }, create = { noise = { format = "rgba8_unorm", size = { 16, 16 } } },
          run = function(cmd, ctx)
            local gx, gy = groups(ctx)
            cmd:dispatch(sh.fill, { [0] = "noise" }, gx, gy, 1, { ctx.index.eye })
          end },
        { name = "out", multiplex = { "eye" }, read = { noise = "storage" },
          create = { final = { format = "rgba8_unorm", size = { 16, 16 } } },
          run = function(cmd, ctx)
            local gx, gy = groups(ctx)
            cmd:dispatch(sh.invert, { [0] = "noise", [1] = "final" }, gx, gy, 1)
          end },
      },
    }
    local rt = fg.runtime(dev, p, { solver = "best" })
    rt:frame(); rt:frame()
    local a, b = assert(rt:read("final", { eye = 1 })), assert(rt:read("final", { eye = 2 }))
    assert.are.equal(16 * 16 * 4, #a)
    assert.are_not.equal(a, b)
    assert.are.equal(a, rt:read("final", 1))
    rt:close()
  end)

  local function sized_pipeline()
    return {
      resolutions = { main = { 64, 48 } }, outputs = { "final" },
      nodes = {
        { name = "fill", create = { noise = { format = "rgba8_unorm", size = "main" } },
          run = function(cmd, ctx) local gx, gy = groups(ctx); cmd:dispatch(sh.fill, { [0] = "noise" }, gx, gy, 1, { 3 }) end },
        { name = "blur", read = { noise = "storage" }, create = { blurred = { format = "rgba8_unorm", size = "main" } },
          run = function(cmd, ctx) local gx, gy = groups(ctx); cmd:dispatch(sh.blur, { [0] = "noise", [1] = "blurred" }, gx, gy, 1) end },
        { name = "out", read = { blurred = "storage" }, create = { final = { format = "rgba8_unorm", size = "main" } },
          run = function(cmd, ctx) local gx, gy = groups(ctx); cmd:dispatch(sh.invert, { [0] = "blurred", [1] = "final" }, gx, gy, 1) end },
      },
    }
  end

  it("dynamic resolution: a smaller extent renders in the same heap", function()
    local rt = fg.runtime(dev, sized_pipeline(), { solver = "best" })
    rt:frame()
    assert.are.equal(64 * 48 * 4, #rt:read("final"))
    local before = rt:memory()
    assert.is_true(rt:set_resolution("main", 32, 16))
    rt:frame(); rt:frame()
    local after = rt:memory()
    assert.are.equal(32 * 16 * 4, #rt:read("final"))
    -- same VkDeviceMemory bytes per heap, no new vkAllocateMemory; the plan itself shrank
    assert.are.equal(before.total, after.total)
    assert.are.equal(before.allocations, after.allocations)
    for h = 1, #before do assert.are.equal(before[h].bytes, after[h].bytes) end
    assert.is_true(after[1].planned < before[1].planned)
    -- and the small picture is the same as a runtime built at that size
    local small = sized_pipeline()
    small.resolutions.main = { 32, 16 }
    local rt2 = fg.runtime(dev, small, { solver = "best" })
    rt2:frame()
    assert.are.equal(rt2:read("final"), rt:read("final"))
    rt2:close()
    rt:close()
  end)

  it("inflated alignment and granularity: offsets honour the profile, output unchanged", function()
    local rt = fg.runtime(dev, sized_pipeline(), { solver = "best", profile = { alignment = 65536, granularity = 1024 } })
    rt:frame(); rt:frame()
    for _, r in ipairs(rt:graph():resources()) do
      assert.are.equal(0, r.offset % 65536, r.name .. " misaligned")
    end
    local out = rt:read("final")
    local plain = fg.runtime(dev, sized_pipeline(), { solver = "none" })
    plain:frame(); plain:frame()
    assert.are.equal(plain:read("final"), out)
    assert.is_true(rt:memory().total >= 65536)
    plain:close()
    rt:close()
  end)

  it("set_dimension re-expands the multiplexing at run time", function()
    local p = {
      dimensions = { eye = 1 }, outputs = { "final" },
      nodes = {
        { name = "fill", multiplex = { "eye" }, create = { final = { format = "rgba8_unorm", size = { 8, 8 } } },
          run = function(cmd, ctx) cmd:dispatch(sh.fill, { [0] = "final" }, 1, 1, 1, { ctx.index.eye }) end },
      },
    }
    local rt = fg.runtime(dev, p, { solver = "none" })  -- unaliased: every eye's output survives the frame
    rt:frame()
    local one = rt:read("final", { eye = 1 })
    assert.is_true(rt:set_dimension("eye", 3))
    rt:frame()
    assert.are.equal(one, rt:read("final", { eye = 1 }))
    assert.are_not.equal(one, rt:read("final", { eye = 3 }))
    assert.are.equal(3, #rt:graph():order())
    rt:close()
  end)

  it("granularity separates buffers from images in an inflated profile", function()
    local p = {
      outputs = { "out", "final" },
      nodes = {
        { name = "fill", create = { noise = { format = "rgba8_unorm", size = { 16, 16 } }, buf = { buffer = 100 } },
          run = function(cmd) cmd:dispatch(sh.fill, { [0] = "noise" }, 2, 2, 1, { 4 }); cmd:clear("buf", { 3 }) end },
        { name = "out", read = { noise = "storage", buf = "transfer_src" },
          create = { final = { format = "rgba8_unorm", size = { 16, 16 } }, out = { buffer = 100, usage = "transfer_dst" } },
          run = function(cmd)
            cmd:dispatch(sh.invert, { [0] = "noise", [1] = "final" }, 2, 2, 1)
            cmd:copy("buf", "out")
          end },
      },
    }
    p.nodes[1].create.buf.usage = "storage"
    local rt = fg.runtime(dev, p, { solver = "best", profile = { alignment = 4096, granularity = 1024 } })
    rt:frame(); rt:frame()
    local res = rt:graph():resources()
    for _, a in ipairs(res) do
      for _, b in ipairs(res) do
        if a.kind ~= b.kind and a.heap == b.heap and a.frame == b.frame then
          -- live at the same time in one frame copy: must not share a 1024-byte page
          local live = not (a.last < b.first or b.last < a.first)
          if live then
            local pa0, pa1 = a.offset // 1024, (a.offset + a.bytes - 1) // 1024
            local pb0, pb1 = b.offset // 1024, (b.offset + b.bytes - 1) // 1024
            assert.is_true(pa1 < pb0 or pb1 < pa0, a.name .. " and " .. b.name .. " share a granularity page")
          end
        end
      end
    end
    assert.are.equal(3, string.unpack("<I4", rt:read("out"), 1))
    rt:close()
  end)

  it("render pass: a fullscreen triangle into a cleared colour target, saved as PNG", function()
    local p = {
      outputs = { "target" },
      nodes = {
        { name = "draw", create = { target = { format = "rgba8_unorm", size = { 64, 32 } } },
          pass = { color = { { "target", clear = { 0, 0, 0, 1 } } } },
          run = function(cmd) cmd:draw(sh.uv, {}, 3, { 0.5 }) end },
      },
    }
    local rt = fg.runtime(dev, p, { solver = "best" })
    rt:frame()
    local px = assert(rt:read("target"))
    assert.are.equal(64 * 32 * 4, #px)
    -- top-left: uv ~ (0, 0); bottom-right: uv ~ (1, 1); blue = 0.5 everywhere
    assert.is_true(px:byte(1) < 8 and px:byte(2) < 8)
    local last = #px - 3
    assert.is_true(px:byte(last) > 247 and px:byte(last + 1) > 247)
    assert.is_true(math.abs(px:byte(3) - 128) <= 1)
    local path = os.tmpname() .. ".png"
    assert.is_true(rt:save_png("target", path))
    local f = assert(io.open(path, "rb"))
    assert.are.equal("\137PNG", f:read(4))
    f:close()
    os.remove(path)
    rt:close()
  end)

  it("commands inside a node get the barriers they need: clear, dispatch, copy, blit", function()
    local p = {
      outputs = { "c", "d" },
      nodes = {
        { name = "make", create = { a = { format = "rgba8_unorm", size = { 16, 16 } },
                                    b = { format = "rgba8_unorm", size = { 16, 16 } } },
          run = function(cmd)
            cmd:clear("a", { 1, 0, 0, 1 })                           -- clear, then read by compute
            cmd:dispatch(sh.invert, { [0] = "a", [1] = "b" }, 2, 2, 1)
          end },
        { name = "xfer", read = { b = "transfer_src" },
          create = { c = { format = "rgba8_unorm", size = { 16, 16 }, usage = "transfer_dst" },
                     d = { format = "rgba8_unorm", size = { 8, 8 }, usage = "transfer_dst" } },
          run = function(cmd)
            cmd:copy("b", "c")
            cmd:blit("b", "d")
          end },
      },
    }
    local rt = fg.runtime(dev, p, { solver = "best" })
    rt:frame(); rt:frame(); rt:frame()
    local c, d = rt:read("c"), rt:read("d")
    assert.are.equal(string.rep("\0\255\255\255", 16 * 16), c)
    assert.are.equal(string.rep("\0\255\255\255", 8 * 8), d)
    rt:close()
  end)

  it("refuses a copy into a resource declared for another usage", function()
    local p = {
      outputs = { "c" },
      nodes = {
        { name = "make", create = { b = { format = "rgba8_unorm", size = { 8, 8 } } },
          run = function(cmd) cmd:clear("b", { 0, 0, 0, 0 }) end },
        { name = "xfer", read = { b = "storage" }, create = { c = { format = "rgba8_unorm", size = { 8, 8 }, usage = "sampled" } },
          run = function(cmd) cmd:copy("b", "c") end },
      },
    }
    local rt = fg.runtime(dev, p, {})
    local ok, err = pcall(rt.frame, rt)
    assert.is_false(ok)
    assert.matches("node 'xfer'", err)
    assert.matches("'c'", err)
    assert.matches("transfer_dst", err)
    rt:close()
  end)

  it("external resources: provided images are transitioned, never allocated", function()
    local img = dev:external_image("rgba8_unorm", 16, 16)
    local asked = 0
    local p = {
      outputs = { "back" },
      external = { back = { format = "rgba8_unorm", size = { 16, 16 },
                            provide = function(index) asked = asked + 1; return img end } },
      nodes = {
        { name = "fill", create = { t = { format = "rgba8_unorm", size = { 16, 16 } } },
          run = function(cmd) cmd:dispatch(sh.fill, { [0] = "t" }, 2, 2, 1, { 5 }) end },
        { name = "present", read = { t = "storage" }, modify = { back = "storage" },
          run = function(cmd) cmd:dispatch(sh.invert, { [0] = "t", [1] = "back" }, 2, 2, 1) end },
      },
    }
    local rt = fg.runtime(dev, p, { solver = "none" })
    for _ = 1, 3 do rt:frame() end
    assert.are.equal(3, asked)
    local mem = rt:memory()
    assert.are.equal(2 * 16 * 16 * 4, mem.total)   -- only t's two frame copies, not the external
    local back = assert(rt:read("back"))
    assert.are.equal(16 * 16 * 4, #back)
    assert.are.equal(255, back:byte(4))
    rt:close()
    img:close()
  end)

  it("refuses cmd:draw outside a pass with the node's name", function()
    local p = {
      outputs = { "x" },
      nodes = { { name = "nopass", create = { x = { format = "rgba8_unorm", size = { 8, 8 } } },
                  run = function(cmd) cmd:draw(sh.uv, {}, 3) end } },
    }
    local rt = fg.runtime(dev, p, {})
    local ok, err = pcall(rt.frame, rt)
    assert.is_false(ok)
    assert.matches("node 'nopass'", err)
    assert.matches("outside a render pass", err)
    rt:close()
  end)
end)
