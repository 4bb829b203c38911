-- Runtime hot reload and read-back guarantees (lavapipe, validation + syncval).
package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
local fg = require("framegraph")

local SHADERS = fg.shader_dir()

describe("fg.runtime reload", function()
  local dev, sh
  setup(function()
    dev = fg.vulkan{ validation = true, prefer = "software" }
    sh = {}
    for _, n in ipairs{ "fill", "blur", "invert" } do sh[n] = fg.shader(dev, SHADERS .. "/rt_" .. n .. ".comp.spv") end
  end)
  teardown(function() dev:close() end)
  after_each(function() assert.are.same({}, dev:messages()) end)

  local function groups(ctx) return (ctx.width + 7) // 8, (ctx.height + 7) // 8 end
  local function pipeline(seed, size, blur)
    size = size or { 32, 32 }
    local nodes = {
      { name = "fill", create = { noise = { format = "rgba8_unorm", size = size } },
        run = function(cmd, ctx) local gx, gy = groups(ctx); cmd:dispatch(sh.fill, { [0] = "noise" }, gx, gy, 1, { seed }) end },
      { name = "out", read = { noise = "storage" }, create = { final = { format = "rgba8_unorm", size = size } },
        run = function(cmd, ctx) local gx, gy = groups(ctx); cmd:dispatch(sh.invert, { [0] = "noise", [1] = "final" }, gx, gy, 1) end },
    }
    if blur then
      nodes[2].read = { blurred = "storage" }
      nodes[2].run = function(cmd, ctx) local gx, gy = groups(ctx); cmd:dispatch(sh.invert, { [0] = "blurred", [1] = "final" }, gx, gy, 1) end
      table.insert(nodes, 2, { name = "blur", read = { noise = "storage" },
        create = { blurred = { format = "rgba8_unorm", size = size } },
        run = function(cmd, ctx) local gx, gy = groups(ctx); cmd:dispatch(sh.blur, { [0] = "noise", [1] = "blurred" }, gx, gy, 1) end })
    end
    return { outputs = { "final" }, nodes = nodes }
  end

  it("a change of run functions only swaps callbacks: no recompile, no allocation", function()
    local rt = fg.runtime(dev, pipeline(1), { solver = "best" })
    rt:frame()
    local a, mem = rt:read("final"), rt:memory()
    local ok, changes = rt:reload(pipeline(2))
    assert.is_true(ok)
    assert.is_false(changes.recompiled)
    rt:frame()
    assert.are_not.equal(a, rt:read("final"))
    assert.are.equal(mem.allocations, rt:memory().allocations)
    rt:close()
  end)

  it("a structural change recompiles, and the picture equals a fresh runtime's", function()
    local rt = fg.runtime(dev, pipeline(1), { solver = "best" })
    rt:frame()
    local ok, changes = rt:reload(pipeline(1, nil, true))
    assert.is_true(ok)
    assert.is_true(changes.recompiled)
    rt:frame(); rt:frame()
    local fresh = fg.runtime(dev, pipeline(1, nil, true), { solver = "best" })
    fresh:frame()
    assert.are.equal(fresh:read("final"), rt:read("final"))
    fresh:close()
    rt:close()
  end)

  it("reallocates when the new plan needs more memory, keeps it when it fits", function()
    local rt = fg.runtime(dev, pipeline(1, { 16, 16 }), { solver = "best" })
    rt:frame()
    local m1 = rt:memory()
    assert.is_true(rt:reload(pipeline(1, { 64, 64 })))
    rt:frame()
    local m2 = rt:memory()
    assert.is_true(m2.total > m1.total)
    assert.are.equal(m1.allocations + 1, m2.allocations)
    assert.is_true(rt:reload(pipeline(1, { 32, 32 })))
    rt:frame()
    assert.are.equal(m2.allocations, rt:memory().allocations)
    assert.are.equal(32 * 32 * 4, #rt:read("final"))
    rt:close()
  end)

  it("reloads from a file path and reports a broken file", function()
    local rt = fg.runtime(dev, pipeline(1), { solver = "best" })
    rt:frame()
    local path = os.tmpname()
    local f = assert(io.open(path, "w"))
    f:write("return { nodes = { { name = 'x', create = { y = { format = 'nope' } } } } }")  -- bad format
    f:close()
    local ok, err = rt:reload(path)
    assert.is_nil(ok)
    assert.matches("nope", err)
    assert.matches("does not compile (still running the previous one)", err, 1, true)
    f = assert(io.open(path, "w"))
    f:write("return {")  -- syntax error
    f:close()
    ok, err = rt:reload(path)
    assert.is_nil(ok)
    assert.matches(path, err, 1, true)
    os.remove(path)
    rt:frame()  -- still running
    rt:close()
  end)
end)

describe("fg.runtime read-back", function()
  local dev, sh
  setup(function()
    dev = fg.vulkan{ validation = true, prefer = "software" }
    sh = { fill = fg.shader(dev, SHADERS .. "/rt_fill.comp.spv"), invert = fg.shader(dev, SHADERS .. "/rt_invert.comp.spv") }
  end)
  teardown(function() dev:close() end)
  after_each(function() assert.are.same({}, dev:messages()) end)

  it("never returns bytes of another resource: an early output is correct or refused", function()
    local p = {
      outputs = { "a", "c" },
      nodes = {
        { name = "n0", create = { a = { format = "rgba8_unorm", size = { 16, 16 } } },
          run = function(cmd) cmd:dispatch(sh.fill, { [0] = "a" }, 2, 2, 1, { 1 }) end },
        { name = "n1", create = { b = { format = "rgba8_unorm", size = { 16, 16 } } },
          run = function(cmd) cmd:dispatch(sh.fill, { [0] = "b" }, 2, 2, 1, { 2 }) end },
        { name = "n2", read = { b = "storage" }, create = { c = { format = "rgba8_unorm", size = { 16, 16 } } },
          run = function(cmd) cmd:dispatch(sh.invert, { [0] = "b", [1] = "c" }, 2, 2, 1) end },
      },
    }
    local none = fg.runtime(dev, p, { solver = "none" })
    none:frame(); none:frame()
    local want = assert(none:read("a"))
    none:close()
    local rt = fg.runtime(dev, p, { solver = "best" })
    rt:frame(); rt:frame()
    local got, err = rt:read("a")
    if got then
      assert.are.equal(want, got)
    else
      assert.matches("cannot be read back", err)
      assert.matches("'b'", err)
    end
    assert.are.equal(16 * 16 * 4, #assert(rt:read("c")))
    rt:close()
  end)

  it("refuses to read before the first frame and names unknown resources", function()
    local p = { outputs = { "a" }, nodes = { { name = "n0", create = { a = { format = "rgba8_unorm", size = { 8, 8 } } },
      run = function(cmd) cmd:dispatch(sh.fill, { [0] = "a" }, 1, 1, 1, { 1 }) end } } }
    local rt = fg.runtime(dev, p, {})
    local v, err = rt:read("a")
    assert.is_nil(v)
    assert.matches("no frame", err)
    rt:frame()
    assert.has_error(function() rt:read("zzz") end, "no resource named 'zzz' in the compiled graph (culled, or a typo?)")
    rt:close()
  end)
end)
