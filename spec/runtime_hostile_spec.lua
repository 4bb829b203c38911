-- Hostile use of the runtime's Lua surface (issue: no Lua script can crash,
-- hang or fool the runtime): closed and stale handles, calls from inside a
-- node's run, indices and counts out of range, refused calls keeping the
-- previous plan, objects of another device, input that would reach the
-- driver, NUL bytes. On lavapipe with validation and synchronization
-- validation: any validation message fails the spec.
local fg = require("framegraph")

describe("hostile runtime calls", function()
  local dev, fill, invert, uv
  setup(function()
    dev = fg.vulkan{ validation = true, prefer = "software" }
    fill = fg.shader(dev, fg.shader_dir() .. "/rt_fill.comp.spv")
    invert = fg.shader(dev, fg.shader_dir() .. "/rt_invert.comp.spv")
    uv = fg.shader(dev, fg.shader_dir() .. "/rt_uv.frag.spv")
  end)
  teardown(function() dev:close() end)
  after_each(function() assert.are.same({}, dev:messages()) end)

  local function groups(ctx) return (ctx.width + 7) // 8, (ctx.height + 7) // 8 end
  local TMP = os.tmpname()   -- refused save_png calls never write it
  teardown(function() os.remove(TMP) end)
  -- two eyes of a compute chain plus a draw; `hook(cmd, ctx)` runs in fill's run
  local function pipe(hook, sh)
    return {
      dimensions = { eye = 2 }, resolutions = { main = { 16, 16 } }, outputs = { "final", "other" },
      nodes = {
        { name = "fill", multiplex = { "eye" }, create = { noise = { format = "rgba8_unorm", size = "main" } },
          run = function(cmd, ctx)
            local gx, gy = groups(ctx)
            cmd:dispatch(sh or fill, { [0] = "noise" }, gx, gy, 1, { ctx.index.eye })
            if hook then hook(cmd, ctx) end
          end },
        { name = "out", multiplex = { "eye" }, read = { noise = "storage" },
          create = { final = { format = "rgba8_unorm", size = "main" } },
          run = function(cmd, ctx)
            local gx, gy = groups(ctx)
            cmd:dispatch(invert, { [0] = "noise", [1] = "final" }, gx, gy, 1)
          end },
        { name = "o2", create = { other = { format = "rgba8_unorm", size = { 8, 8 } } },
          pass = { color = { "other" } }, run = function(cmd) cmd:draw(uv, {}, 3, { 0.5 }) end },
      } }
  end
  local function refused(pattern, f, ...)
    local ok, err = pcall(f, ...)
    assert.is_false(ok, "the call was accepted")
    assert.matches(pattern, tostring(err))
  end
  -- the runtime still renders its plan: two eyes of 16x16
  local function renders(rt, w)
    w = w or 16
    assert.is_table(rt:frame())
    assert.are.equal(w * w * 4, #assert(rt:read("final", 1)))
    assert.are.equal(w * w * 4, #assert(rt:read("final", 2)))
  end

  describe("lifetimes", function()
    it("rt:close() inside run is deferred to the end of the frame", function()
      local rt
      rt = fg.runtime(dev, pipe(function() rt:close() end))
      assert.is_table(rt:frame())
      refused("runtime is closed", rt.frame, rt)
      refused("runtime is closed", rt.read, rt, "final")
      assert.matches("closed", tostring(rt))
    end)

    it("rt:graph() is a read-only view: close and re-plans on it are refused", function()
      local rt = fg.runtime(dev, pipe())
      rt:frame()
      local g = rt:graph()
      refused("read%-only view.*rt:close", g.close, g)
      refused("read%-only view.*rt:set_dimension", g.set_dimension, g, "eye", 5)
      refused("read%-only view.*rt:set_resolution", g.set_resolution, g, "main", 4, 4)
      refused("read%-only view.*rt:reload", g.update, g, pipe())
      renders(rt)
      assert.are.equal(5, #g:order())  -- 2 eyes x 2 nodes + o2, read through the view
      rt:close()
      refused("graph is closed", g.order, g)
    end)

    it("cmd and ctx kept after their run are stale", function()
      local kc, kx
      local rt = fg.runtime(dev, pipe(function(cmd, ctx) kc, kx = cmd, ctx end))
      rt:frame()
      refused("cmd is closed", kc.dispatch, kc, fill, { [0] = "noise" }, 1, 1, 1)
      refused("ctx is closed", kx.blob, "x")
      refused("ctx is closed", kx.upload, "abcd")
      renders(rt)
      rt:close()
    end)

    it("shader:close() inside run is deferred; the next use says it is closed", function()
      local sh = fg.shader(dev, fg.shader_dir() .. "/rt_fill.comp.spv")
      local rt = fg.runtime(dev, pipe(function() sh:close() end, sh))
      refused("shader is closed", rt.frame, rt)
      refused("shader is closed", sh.info, sh)
      rt:close()
    end)

    it("re-plans, reload and read-backs inside run are refused and the plan keeps rendering", function()
      for _, call in ipairs{
        function(rt) rt:set_resolution("main", 32, 32) end,
        function(rt) rt:set_dimension("eye", 3) end,
        function(rt) rt:reload(pipe()) end,
        function(rt) rt:read("final") end,
        function(rt) rt:save_png("other", TMP) end,
      } do
        local rt, armed = nil, true
        rt = fg.runtime(dev, pipe(function() if armed then call(rt) end end))
        refused("inside a node's run is refused", rt.frame, rt)
        armed = false
        renders(rt)
        rt:close()
      end
    end)

    it("an external's provide() may not close, re-plan, reload or frame the runtime", function()
      -- found by hand: rt:close() in provide() freed the runtime under the frame
      for _, what in ipairs{ "close", "set_resolution", "reload", "frame" } do
        local img = dev:external_image("rgba8_unorm", 8, 8)
        local rt
        rt = fg.runtime(dev, { outputs = { "x" }, resolutions = { main = { 8, 8 } },
          external = { x = { format = "rgba8_unorm", size = { 8, 8 }, provide = function()
            if what == "close" then rt:close() elseif what == "set_resolution" then rt:set_resolution("main", 16, 16)
            elseif what == "reload" then rt:reload(pipe()) else rt:frame() end
            return img
          end } },
          nodes = { { name = "f", create = { t = { format = "rgba8_unorm", size = "main" } }, modify = { x = "storage" },
                      run = function(cmd) cmd:dispatch(fill, { [0] = "x" }, 1, 1, 1, { 1 }) end } } })
        refused(what == "close" and "closed by an external's provide" or what == "frame" and "recursion"
                or "refused", rt.frame, rt)
        if what == "close" then refused("runtime is closed", rt.frame, rt) else rt:close() end
        img:close()
      end
    end)

    it("dev:close() inside run leaves the runtime's device alive until it closes", function()
      local d2 = fg.vulkan{ validation = true, prefer = "software" }
      local f2 = fg.shader(d2, fg.shader_dir() .. "/rt_fill.comp.spv")
      local rt = fg.runtime(d2, { outputs = { "o" }, nodes = { { name = "f",
        create = { o = { format = "rgba8_unorm", size = { 8, 8 } } },
        run = function(cmd) d2:close() cmd:dispatch(f2, { [0] = "o" }, 1, 1, 1, { 1 }) end } } })
      assert.is_table(rt:frame())
      assert.is_table(rt:frame())
      assert.are.equal(256, #rt:read("o"))
      refused("device is closed", d2.info, d2)
      rt:close()
      f2:close()
    end)

    it("a watcher of a closed runtime says so", function()
      local path = os.tmpname()
      local f = io.open(path, "w")
      f:write("return { outputs = { 'o' }, nodes = { { name = 'a', create = { o = { format = 'rgba8_unorm', size = { 4, 4 } } }, pass = { color = { 'o' } } } } }")
      f:close()
      local rt = fg.runtime(dev, path)
      local w = fg.watch(rt, path)
      rt:close()
      refused("watcher is closed", w.poll, w)
      os.remove(path)
    end)
  end)

  describe("indices", function()
    it("rt:read and rt:save_png refuse indices outside the dimension", function()
      local rt = fg.runtime(dev, pipe())
      rt:frame()
      for _, i in ipairs{ 0, -1, 3, 1.5, 2 ^ 40, 0 / 0, math.huge } do
        refused("1%.%.2", rt.read, rt, "final", i)
        refused("1%.%.2", rt.save_png, rt, "final", TMP, i)
      end
      refused("1%.%.2", rt.read, rt, "final", { eye = 3 })
      refused("1%.%.2", rt.read, rt, "final", { eye = 0 })
      refused("not a dimension", rt.read, rt, "final", { ey = 1 })
      refused("not multiplexed", rt.read, rt, "other", 2)
      refused("integer or a table", rt.read, rt, "final", "1")
      assert.are_not.equal(rt:read("final", 1), rt:read("final", 2))
      assert.are.equal(rt:read("final", 2), rt:read("final", { eye = 2 }))
      rt:close()
    end)
  end)

  describe("counts", function()
    local function one(run, pass)
      local n = { name = "n", create = { o = { format = "rgba8_unorm", size = { 8, 8 } } }, run = run }
      if pass then n.pass = { color = { "o" } } end
      return fg.runtime(dev, { outputs = { "o" }, nodes = { n } })
    end
    it("cmd:draw vertex counts are checked before the cast", function()
      for _, v in ipairs{ -1, 0, 2 ^ 31, 2 ^ 32, 0 / 0, math.huge, 2.5 } do
        local rt = one(function(cmd) cmd:draw(uv, {}, v, { 0.5 }) end, true)
        refused("vertex count", rt.frame, rt)
        rt:close()
      end
    end)
    it("cmd:dispatch group counts are checked against the device", function()
      local max = dev:info().limits
      for _, v in ipairs{ 2 ^ 32, 2 ^ 40, 0, -1, 0 / 0, -math.huge, 70000 } do
        local rt = one(function(cmd) cmd:dispatch(fill, { [0] = "o" }, 1, v, 1, { 1 }) end)
        refused("group count", rt.frame, rt)
        rt:close()
      end
      assert.is_table(max)
    end)
    it("clear values and binding numbers are checked", function()
      for _, run in ipairs{
        function(cmd) cmd:clear("o", { 0 / 0, 0, 0, 1 }) end,
        function(cmd) cmd:clear("o", { math.huge, 0, 0, 1 }) end,
        function(cmd) cmd:dispatch(fill, { [-1] = "o" }, 1, 1, 1, { 1 }) end,
        function(cmd) cmd:dispatch(fill, { [2 ^ 33] = "o" }, 1, 1, 1, { 1 }) end,
      } do
        local rt = fg.runtime(dev, { outputs = { "o" }, nodes = { { name = "n",
          create = { o = { format = "rgba8_unorm", size = { 8, 8 }, usage = "transfer_dst" } }, run = run } } })
        refused("node 'n'", rt.frame, rt)
        rt:close()
      end
    end)
    it("an upload ring too big for the device is refused, not allocated", function()
      -- found by hand: 2^62 bytes made 0 segments (a 32-bit count) and crashed lavapipe
      for _, bytes in ipairs{ 1 << 62, 1 << 40 } do
        local rt = fg.runtime(dev, pipe(), { upload_bytes = bytes })
        local up, err = rt:upload("abcd")
        assert.is_nil(up)
        assert.matches("upload ring", err)
        renders(rt)
        rt:close()
      end
    end)
    it("dev:compute group counts and sizes are checked", function()
      refused("group count", dev.compute, dev, fill, { [0] = 256 }, 2 ^ 32)
      refused("group count", dev.compute, dev, fill, { [0] = 256 }, 0 / 0)
      refused("maxStorageBufferRange", dev.compute, dev, fill, { [0] = 2 ^ 60 }, 1)
    end)
  end)

  describe("refused calls keep the previous plan", function()
    it("rt:set_resolution past the device's limits", function()
      local rt = fg.runtime(dev, pipe())
      rt:frame()
      local ok, err = rt:set_resolution("main", 65536, 65536)
      assert.is_nil(ok)
      assert.matches("kept 16x16", err)
      renders(rt)
      refused("1%.%.65536", rt.set_resolution, rt, "main", 0 / 0, 4)
      refused("unknown resolution", rt.set_resolution, rt, "mian", 4, 4)
      renders(rt)
      rt:close()
    end)
    it("rt:set_dimension over the memory budget", function()
      local rt = fg.runtime(dev, pipe(), { memory_budget = 20000 })
      rt:frame()
      local ok, err = rt:set_dimension("eye", 60)
      assert.is_nil(ok)
      assert.matches("kept eye = 2", err)
      renders(rt)
      refused("unknown dimension", rt.set_dimension, rt, "eyes", 3)
      refused("count", rt.set_dimension, rt, "eye", 2 ^ 40)
      renders(rt)
      rt:close()
    end)
    it("rt:set_resolution with a failing allocation", function()
      local rt = fg.runtime(dev, pipe())
      rt:frame()
      rt:_fail_allocations(1)
      assert.is_nil((rt:set_resolution("main", 256, 256)))
      renders(rt)
      rt:close()
    end)
    it("rt:reload of a bad pipeline and over the budget", function()
      local rt = fg.runtime(dev, pipe(), { memory_budget = 20000 })
      rt:frame()
      assert.is_nil((rt:reload({ outputs = { "final" }, nodes = { { name = "x", read = { "nothing" } } } })))
      renders(rt)
      local big = pipe()
      big.dimensions.eye = 40
      assert.is_nil((rt:reload(big)))
      renders(rt)
      rt:close()
    end)
  end)

  it("after each refused call the runtime renders its previous plan", function()
    local fail = false
    local rt = fg.runtime(dev, pipe(function() if fail then error("refused in run") end end), { memory_budget = 40000 })
    rt:frame()
    local before = rt:read("final", 2)
    local calls = {
      function() return rt:frame({ cma = {} }) end,
      function() fail = true return rt:frame() end,
      function() return rt:set_resolution("main", 128, 128) end,          -- over the budget
      function() rt:_fail_allocations(1) return rt:set_dimension("eye", 3) end,
      function() return rt:reload({ nodes = { { name = 5 } } }) end,
      function() return rt:read("final", 7) end,
      function() return rt:save_png("other", "/nonexistent-dir/x.png") end,
      function() return rt:upload(string.rep("x", 8 << 20)) end,        -- past the upload ring
      function() return rt:graph():set_dimension("eye", 1) end,
    }
    for i, call in ipairs(calls) do
      local ok, res, err = pcall(call)
      assert.is_true(not ok or res == nil, "call " .. i .. " was accepted")
      assert.is_string(ok and err or res, "call " .. i .. " gave no message")
      fail = false
      renders(rt)
      assert.are.equal(before, rt:read("final", 2), "call " .. i .. " changed the plan")
    end
    rt:close()
  end)

  describe("foreign objects and driver input", function()
    it("an external image or a shader of another device is refused", function()
      local d2 = fg.vulkan{ validation = true, prefer = "software" }
      local img = d2:external_image("rgba8_unorm", 8, 8)
      local sh2 = fg.shader(d2, fg.shader_dir() .. "/rt_fill.comp.spv")
      local rt = fg.runtime(dev, { outputs = { "x" },
        external = { x = { format = "rgba8_unorm", size = { 8, 8 }, provide = function() return img end } },
        nodes = { { name = "f", modify = { x = "storage" },
                    run = function(cmd) cmd:dispatch(fill, { [0] = "x" }, 1, 1, 1, { 1 }) end } } })
      refused("another device", rt.frame, rt)
      rt:close()
      local rt2 = fg.runtime(dev, pipe(nil, sh2))
      refused("another device", rt2.frame, rt2)
      rt2:close()
      refused("another device", dev.compute, dev, sh2, { [0] = 256 }, 1)
      img:close()
      sh2:close()
      assert.are.same({}, d2:messages())
      d2:close()
    end)
    it("a closed external image is refused at the next frame and read", function()
      local img = dev:external_image("rgba8_unorm", 8, 8)
      local rt = fg.runtime(dev, { outputs = { "x" },
        external = { x = { format = "rgba8_unorm", size = { 8, 8 }, provide = function() return img end } },
        nodes = { { name = "f", modify = { x = "storage" },
                    run = function(cmd) cmd:dispatch(fill, { [0] = "x" }, 1, 1, 1, { 1 }) end } } })
      rt:frame()
      img:close()
      refused("image is closed", rt.read, rt, "x")
      refused("image is closed", rt.frame, rt)
      rt:close()
    end)
    it("a truncated SPIR-V module is refused before the driver", function()
      local f = io.open(fg.shader_dir() .. "/rt_fill.comp.spv", "rb")
      local s = f:read("a")
      f:close()
      for _, cut in ipairs{ #s // 2 - (#s // 2) % 4, #s - 4, 20 } do
        refused("SPIR%-V", fg.shader, dev, s:sub(1, cut))
      end
    end)
    it("a blit from depth into colour is refused before Vulkan", function()
      local rt = fg.runtime(dev, { outputs = { "c" }, nodes = {
        { name = "a", create = { d = { format = "d32_sfloat", size = { 8, 8 } } }, pass = { depth = { "d", clear = 0.5 } } },
        { name = "b", read = { d = "transfer_src" },
          create = { c = { format = "rgba8_unorm", size = { 8, 8 }, usage = "transfer_dst" } },
          run = function(cmd) cmd:blit("d", "c") end } } })
      refused("depth/stencil textures copy or blit only into the same format", rt.frame, rt)
      rt:close()
    end)
    it("a blit from an integer into a float format is refused", function()
      local rt = fg.runtime(dev, { outputs = { "c" }, nodes = {
        { name = "a", create = { i = { format = "rgba8_uint", size = { 8, 8 }, usage = "transfer_dst" } },
          run = function(cmd) cmd:clear("i", { 1, 2, 3, 4 }) end },
        { name = "b", read = { i = "transfer_src" },
          create = { c = { format = "rgba8_unorm", size = { 8, 8 }, usage = "transfer_dst" } },
          run = function(cmd) cmd:blit("i", "c") end } } })
      refused("one class of formats", rt.frame, rt)
      rt:close()
    end)
  end)

  describe("NUL bytes and names", function()
    it("NUL in names and paths is refused, not truncated", function()
      local rt = fg.runtime(dev, pipe())
      rt:frame()
      refused("NUL", rt.read, rt, "final\0y")
      refused("NUL", rt.save_png, rt, "other", TMP .. "\0.png")
      refused("NUL", rt.set_resolution, rt, "main\0x", 8, 8)
      refused("NUL", fg.shader, dev, fg.shader_dir() .. "/rt_fill.comp.spv\0x")
      refused("NUL", rt.frame, rt, { ["cam\0"] = {} })
      for _, hook in ipairs{
        function(cmd) cmd:clear("noise\0x", { 0, 0, 0, 0 }) end,
        function(cmd) cmd:dispatch(fill, { [0] = "noise\0x" }, 1, 1, 1, { 1 }) end,
        function(cmd) cmd:dispatch(fill, { [0] = { "noise\0x" } }, 1, 1, 1, { 1 }) end,
        function(_, ctx) ctx.blob("cam\0x") end,
      } do
        local rt2 = fg.runtime(dev, pipe(hook))
        refused("NUL", rt2.frame, rt2)
        rt2:close()
      end
      refused("NUL", fg.runtime, dev, "pipeline.lua\0x")
      refused("NUL", fg.watch, rt, "pipeline.lua\0x")
      local ok, err = rt:reload("pipeline.lua\0x")
      assert.is_nil(ok)
      assert.matches("NUL", err)
      renders(rt)
      rt:close()
    end)
    it("frame inputs that name no blob are refused with 'did you mean'", function()
      local p = pipe()
      p.nodes[1].create.cam = { blob = {} }
      local rt = fg.runtime(dev, p)
      refused("input 'cma' names no blob of the pipeline; did you mean 'cam'", rt.frame, rt, { cma = {} })
      refused("names no blob", rt.frame, rt, { zzzzzz = {} })
      assert.is_table(rt:frame({ cam = { seed = 1 } }))
      rt:close()
    end)
  end)
end)
