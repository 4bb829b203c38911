-- Runtime: a 4-node compute pipeline (fill -> blur -> combine -> output) on
-- lavapipe with validation + synchronization validation. The read-back must
-- be byte-identical aliased ("best"), unaliased ("none") and in poison mode.
package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
local fg = require("framegraph")

local SHADERS = fg.shader_dir()

describe("fg.runtime compute pipeline", function()
  local dev, sh
  setup(function()
    dev = fg.vulkan{ validation = true, prefer = "software" }
    sh = {}
    for _, n in ipairs{ "fill", "blur", "combine", "invert" } do
      sh[n] = fg.shader(dev, SHADERS .. "/rt_" .. n .. ".comp.spv")
    end
  end)
  teardown(function() dev:close() end)
  after_each(function()
    local msgs = dev:messages()
    assert.are.same({}, msgs)
  end)

  local W, H = 40, 24
  local function groups(ctx) return (ctx.width + 7) // 8, (ctx.height + 7) // 8 end
  local function pipeline(seed)
    return {
      name = "compute4", outputs = { "final" },
      nodes = {
        { name = "fill", create = { noise = { format = "rgba8_unorm", size = { W, H } } },
          run = function(cmd, ctx) local gx, gy = groups(ctx); cmd:dispatch(sh.fill, { [0] = "noise" }, gx, gy, 1, { seed or 7 }) end },
        { name = "blur", read = { noise = "storage" }, create = { blurred = { format = "rgba8_unorm", size = { W, H } } },
          run = function(cmd, ctx) local gx, gy = groups(ctx); cmd:dispatch(sh.blur, { [0] = "noise", [1] = "blurred" }, gx, gy, 1) end },
        { name = "combine", read = { noise = "storage", blurred = "storage" },
          create = { mixed = { format = "rgba8_unorm", size = { W, H } } },
          run = function(cmd, ctx) local gx, gy = groups(ctx)
            cmd:dispatch(sh.combine, { [0] = "noise", [1] = "blurred", [2] = "mixed" }, gx, gy, 1, { 0.25 }) end },
        { name = "output", read = { mixed = "storage" }, create = { final = { format = "rgba8_unorm", size = { W, H } } },
          run = function(cmd, ctx) local gx, gy = groups(ctx); cmd:dispatch(sh.invert, { [0] = "mixed", [1] = "final" }, gx, gy, 1) end },
      },
    }
  end

  local function run(opts, frames)
    local rt = fg.runtime(dev, pipeline(), opts)
    local st
    for _ = 1, frames or 3 do st = rt:frame() end
    local out = assert(rt:read("final"))
    local mem = rt:memory()
    rt:close()
    return out, mem, st
  end

  it("gives byte-identical output aliased, unaliased and poisoned", function()
    local best, mbest, st = run({ solver = "best" })
    local none, mnone = run({ solver = "none" })
    local poison = run({ solver = "best", poison = true, seed = 1234 })
    assert.are.equal(W * H * 4, #best)
    assert.is_true(best == none, "aliased and unaliased read-backs differ")
    assert.is_true(best == poison, "poison mode changed the output: some resource is read before it is written")
    assert.is_true(mbest.total < mnone.total, "aliasing saved no memory")
    assert.is_true(st.barriers > 0 and st.batches <= 4, "at most one barrier batch per node")
    -- the output is not constant: the pattern went through every node
    assert.is_true(best:sub(1, 4) ~= best:sub(5, 8) or best:sub(9, 12) ~= best:sub(13, 16))
  end)

  it("detects poison when a node skips initialising what it creates", function()
    -- fill writes only the left half: with poison the right half is garbage,
    -- so the output differs from the unpoisoned run (the test of the test).
    local p = pipeline()
    p.nodes[1].run = function(cmd, ctx)
      cmd:dispatch(sh.fill, { [0] = "noise" }, 1, (ctx.height + 7) // 8, 1, { 7 })
    end
    local rt1 = fg.runtime(dev, p, { solver = "best" })
    rt1:frame(); rt1:frame(); rt1:frame()
    local a = rt1:read("final"); rt1:close()
    local rt2 = fg.runtime(dev, p, { solver = "best", poison = true, seed = 99 })
    rt2:frame(); rt2:frame(); rt2:frame()
    local b = rt2:read("final"); rt2:close()
    assert.are_not.equal(a, b)
  end)

  it("reports VkDeviceMemory per heap with its memory type", function()
    local _, mem = run({ solver = "best" }, 1)
    assert.is_true(#mem >= 1)
    assert.is_number(mem[1].memory_type)
    assert.is_true(mem[1].bytes >= mem[1].planned and mem[1].bytes > 0)
    assert.are.equal(mem.allocations, #mem)
  end)

  it("plans barriers once: the same count every steady frame", function()
    local rt = fg.runtime(dev, pipeline(), { solver = "best" })
    local a, b, c = rt:frame(), rt:frame(), rt:frame()
    assert.are.equal(a.barriers, b.barriers)
    assert.are.equal(b.barriers, c.barriers)
    assert.are.same(rt:stats().planned_barriers, { a.barriers, b.barriers })
    rt:close()
  end)

  it("names node and resource when a command uses an undeclared resource", function()
    local p = pipeline()
    p.nodes[2].run = function(cmd) cmd:dispatch(sh.blur, { [0] = "noise", [1] = "mixed" }, 1, 1, 1) end
    local rt = fg.runtime(dev, p, { solver = "best" })
    local ok, err = pcall(rt.frame, rt)
    assert.is_false(ok)
    assert.matches("node 'blur'", err)
    assert.matches("'mixed'", err)
    assert.matches("did not declare", err)
    rt:close()
  end)

  it("refuses a write through a binding the node only reads", function()
    local p = pipeline()
    -- blur's shader writes binding 1; bind the read-only input there
    p.nodes[3].run = function(cmd) cmd:dispatch(sh.blur, { [0] = "blurred", [1] = "noise" }, 1, 1, 1) end
    local rt = fg.runtime(dev, p, { solver = "best" })
    local ok, err = pcall(rt.frame, rt)
    assert.is_false(ok)
    assert.matches("node 'combine'", err)
    assert.matches("only\n? ?reads", err)
    rt:close()
  end)

  it("keeps running the last good pipeline when a reload fails", function()
    local rt = fg.runtime(dev, pipeline(7), { solver = "best" })
    rt:frame()
    local before = rt:read("final")
    local bad = pipeline(7)
    bad.nodes[2].create.blurred.format = "rgba8_bogus"
    local ok, err = rt:reload(bad)
    assert.is_nil(ok)
    assert.matches("rgba8_bogus", err)
    rt:frame()
    assert.are.equal(before, rt:read("final"))
    -- a good reload with another seed changes the picture
    assert.is_true(rt:reload(pipeline(8)))
    rt:frame()
    assert.are_not.equal(before, rt:read("final"))
    rt:close()
  end)
end)
