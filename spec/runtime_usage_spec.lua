-- Runtime: the usage -> layout/stage/access tables exercised under
-- synchronization validation: colour -> sampled, depth attachments, storage
-- buffers, CPU blobs, multiplexed history.
package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
local fg = require("framegraph")

local SHADERS = fg.shader_dir()

describe("fg.runtime usages", function()
  local dev, sh
  setup(function()
    dev = fg.vulkan{ validation = true, prefer = "software" }
    sh = {}
    for _, n in ipairs{ "fill", "invert", "sample", "buf", "accum" } do
      sh[n] = fg.shader(dev, SHADERS .. "/rt_" .. n .. ".comp.spv")
    end
    sh.uv = fg.shader(dev, SHADERS .. "/rt_uv.frag.spv")
    sh.depth = fg.shader(dev, SHADERS .. "/rt_depth.frag.spv", { depth_test = true, depth_write = true })
  end)
  teardown(function() dev:close() end)
  after_each(function() assert.are.same({}, dev:messages()) end)

  it("a render target sampled by a compute node (colour -> shader read)", function()
    local p = {
      outputs = { "final" },
      nodes = {
        { name = "draw", create = { target = { format = "rgba8_unorm", size = { 32, 32 } } },
          pass = { color = { { "target", clear = { 0, 0, 0, 1 } } } },
          run = function(cmd) cmd:draw(sh.uv, {}, 3, { 0.25 }) end },
        { name = "copy", read = { target = { usage = "sampled", stage = "compute" } },
          create = { final = { format = "rgba8_unorm", size = { 32, 32 } } },
          run = function(cmd) cmd:dispatch(sh.sample, { [0] = { "target", sampler = "nearest" }, [1] = "final" }, 4, 4, 1) end },
      },
    }
    for _, solver in ipairs{ "best", "none" } do
      local rt = fg.runtime(dev, p, { solver = solver })
      rt:frame(); rt:frame(); rt:frame()
      local px = assert(rt:read("final"))
      assert.are.equal(32 * 32 * 4, #px)
      assert.is_true(math.abs(px:byte(3) - 64) <= 1)     -- blue = 0.25 from the draw
      assert.is_true(px:byte(#px - 3) > 240)             -- bottom-right red ~ 1
      rt:close()
    end
  end)

  it("a depth attachment with clear: the nearer draw wins", function()
    local p = {
      outputs = { "col" },
      nodes = {
        { name = "draw",
          create = { col = { format = "rgba8_unorm", size = { 16, 16 } }, z = { format = "d32_sfloat", size = { 16, 16 } } },
          pass = { color = { { "col", clear = { 0, 0, 1, 1 } } }, depth = { "z", clear = 1.0 } },
          run = function(cmd)
            cmd:draw(sh.depth, {}, 3, { 1.0, 0.0, 0.0, 1.0, 0.3 })   -- red at 0.3 (floats: 1.0, not 1)
            cmd:draw(sh.depth, {}, 3, { 0.0, 1.0, 0.0, 1.0, 0.6 })   -- green at 0.6: hidden
          end },
      },
    }
    local rt = fg.runtime(dev, p, { solver = "best", poison = true })
    rt:frame(); rt:frame()
    local px = rt:read("col")
    assert.are.same({ 255, 0, 0, 255 }, { px:byte(1, 4) })
    rt:close()
  end)

  it("storage buffers between nodes and read back as bytes", function()
    local N = 256
    local p = {
      outputs = { "out" },
      nodes = {
        { name = "gen", create = { a = { buffer = N * 4 } },
          run = function(cmd) cmd:dispatch(sh.buf, { [0] = "a", [1] = "a" }, N // 64, 1, 1, { 5, N, 0 }) end },
        { name = "twice", read = { a = "storage" }, create = { out = { buffer = N * 4 } },
          run = function(cmd) cmd:dispatch(sh.buf, { [0] = "a", [1] = "out" }, N // 64, 1, 1, { 1, N, 1 }) end },
      },
    }
    for _, opts in ipairs{ { solver = "best" }, { solver = "none" }, { solver = "best", poison = true } } do
      local rt = fg.runtime(dev, p, opts)
      rt:frame(); rt:frame()
      local bytes = assert(rt:read("out"))
      assert.are.equal(N * 4, #bytes)
      for _, i in ipairs{ 0, 1, 100, N - 1 } do
        assert.are.equal((i + 5) * 2 + 1, string.unpack("<I4", bytes, 4 * i + 1))
      end
      rt:close()
    end
  end)

  it("cmd:clear on a buffer twice in one node, then read by compute", function()
    local N = 64
    local p = {
      outputs = { "out" },
      nodes = {
        { name = "init", create = { a = { buffer = N * 4, usage = "transfer_dst" } },
          run = function(cmd) cmd:clear("a", { 7 }); cmd:clear("a", { 9 }) end },
        { name = "twice", read = { a = "storage" }, create = { out = { buffer = N * 4 } },
          run = function(cmd) cmd:dispatch(sh.buf, { [0] = "a", [1] = "out" }, 1, 1, 1, { 1, N, 1 }) end },
      },
    }
    local rt = fg.runtime(dev, p, { solver = "best", poison = true })
    rt:frame(); rt:frame()
    local bytes = assert(rt:read("out"))
    assert.are.equal(19, string.unpack("<I4", bytes, 1))
    assert.are.equal(19, string.unpack("<I4", bytes, 4 * (N - 1) + 1))
    rt:close()
  end)

  it("CPU blobs: a node's blob is seen by later nodes of the same frame; inputs override", function()
    local seen = {}
    local p = {
      outputs = { "final" },
      nodes = {
        { name = "camera", create = { cam = { blob = {} } },
          run = function(cmd, ctx)
            local cam = ctx.blob("cam")
            if not cam.fixed then cam.seed = 10 + ctx.frame end
          end },
        { name = "fill", read = { "cam" }, create = { final = { format = "rgba8_unorm", size = { 8, 8 } } },
          run = function(cmd, ctx)
            local seed = ctx.blob("cam").seed
            seen[#seen + 1] = seed
            cmd:dispatch(sh.fill, { [0] = "final" }, 1, 1, 1, { seed })
          end },
      },
    }
    local rt = fg.runtime(dev, p, {})
    rt:frame(); rt:frame()
    assert.are.same({ 10, 11 }, seen)
    rt:frame({ cam = { seed = 99, fixed = true } })
    assert.are.equal(99, seen[3])
    rt:close()
  end)

  it("CPU blobs per multiplex index: each eye's readers see that eye's blob", function()
    local seen = {}
    local p = {
      dimensions = { eye = 2 }, outputs = { "final" },
      nodes = {
        { name = "camera", multiplex = { "eye" }, create = { cam = { blob = true } },
          run = function(_, ctx) ctx.blob("cam").seed = 10 * ctx.index.eye end },
        { name = "fill", multiplex = { "eye" }, read = { "cam" },
          create = { final = { format = "rgba8_unorm", size = { 8, 8 } } },
          run = function(cmd, ctx)
            seen[#seen + 1] = ctx.index.eye .. "=" .. tostring(ctx.blob("cam").seed)
            cmd:dispatch(sh.fill, { [0] = "final" }, 1, 1, 1, { ctx.blob("cam").seed })
          end },
      },
    }
    local rt = fg.runtime(dev, p, {})
    rt:frame(); rt:frame()
    assert.are.same({ "1=10", "2=20", "1=10", "2=20" }, seen)
    rt:close()
  end)

  it("history per multiplex index: each eye accumulates its own copy", function()
    local p = {
      dimensions = { eye = 2 }, outputs = { "acc" },
      nodes = {
        { name = "accum", multiplex = { "eye" },
          create = { acc = { format = "rgba8_unorm", size = { 8, 8 }, history = "clear" } },
          history = { acc = "storage" },
          run = function(cmd, ctx)
            cmd:dispatch(sh.accum, { [0] = { "acc", history = true }, [1] = "acc" }, 1, 1, 1, { 3.0 * ctx.index.eye })
          end },
      },
    }
    local rt = fg.runtime(dev, p, { solver = "best" })
    for _ = 1, 5 do rt:frame() end
    assert.are.equal(15, rt:read("acc", { eye = 1 }):byte(1))
    assert.are.equal(30, rt:read("acc", { eye = 2 }):byte(1))
    rt:close()
  end)

  it("history = 'discard' runs the first frame without clearing", function()
    local p = {
      outputs = { "acc" },
      nodes = {
        { name = "accum", create = { acc = { format = "rgba8_unorm", size = { 8, 8 }, history = "discard" } },
          history = { acc = "storage" },
          run = function(cmd, ctx)
            if ctx.frame == 0 then cmd:clear("acc", { 0, 0, 0, 0 }) end   -- the node initialises it itself
            cmd:dispatch(sh.accum, { [0] = { "acc", history = true }, [1] = "acc" }, 1, 1, 1, { 1.0 })
          end },
      },
    }
    local rt = fg.runtime(dev, p, {})
    local ok, err = pcall(rt.frame, rt)
    -- the create use is 'storage': cmd:clear is allowed in GENERAL layout
    assert.is_true(ok, err)
    rt:frame(); rt:frame()
    assert.is_number(rt:read("acc"):byte(1))
    rt:close()
  end)
end)
