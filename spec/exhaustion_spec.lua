-- Exhaustion (docs/RELIABILITY.md): a plan that does not fit the device or
-- opts.memory_budget is refused before anything is allocated, naming the heap
-- and the bytes; a failing vkAllocateMemory (simulated by the runtime's
-- _fail_allocations hook) is reported and the previous plan keeps running.
local fg = require("framegraph")

local function pipe(w, h)
  return {
    resolutions = { main = { w, h or w } },
    outputs = { "out" },
    nodes = {
      { name = "a", create = { out = { format = "rgba8_unorm", size = "main", usage = "transfer_dst" } },
        run = function(cmd) cmd:clear("out", { 1, 0, 0, 1 }) end },
    },
  }
end
local function red(w, h) return string.rep("\255\0\0\255", w * (h or w)) end

describe("exhaustion", function()
  local dev
  setup(function() dev = fg.vulkan{ validation = true, prefer = "software" } end)
  teardown(function() dev:close() end)
  after_each(function() assert.are.same({}, dev:messages()) end)

  it("a plan over opts.memory_budget is refused naming the heap and the bytes", function()
    local rt, err = fg.runtime(dev, pipe(64), { memory_budget = 1000 })
    assert.is_nil(rt)
    -- 64x64 rgba8 (its two frame copies alias: they never live together)
    assert.matches("memory_budget: the plan needs 16384 bytes %(largest: plan heap 0, memory type %d+, 16384 bytes%), "
                   .. "over the budget of 1000 bytes", err)
  end)

  it("a plan bigger than the device heap is refused before allocating", function()
    local heap = dev:info().memory_heaps[1].size
    local side = dev:info().limits.max_image_dimension_2d
    local p = pipe(side)
    -- enough big outputs alive together to pass the heap whatever its size
    -- (lavapipe: host memory; an 80 GB GPU needs more of them)
    local per = side * side * 8  -- one rgba16 frame copy
    p.outputs = { "out" }
    for k = 2, heap // per + 2 do
      p.outputs[k] = "out" .. k
      p.nodes[1].create["out" .. k] = { format = "rgba16_sfloat", size = "main", usage = "transfer_dst" }
    end
    p.nodes[1].run = function() end
    local rt, err = fg.runtime(dev, p, {})
    assert.is_nil(rt)
    assert.matches("the plan needs %d+ bytes in device heap 0 %(from plan heap 0%), which has " .. heap .. " bytes", err)
  end)

  it("an image over the device's limits names the resource and the limit", function()
    local side = dev:info().limits.max_image_dimension_2d
    local ok, err = pcall(fg.runtime, dev, pipe(side + 1, 8), {})
    assert.is_false(ok)
    assert.matches("resource 'out': " .. (side + 1) .. "x8 %(depth 1%) is larger than this device allows "
                   .. "%(maxImageDimension2D = " .. side .. "%)", err)
  end)

  it("a reload over the budget keeps the previous plan running", function()
    local rt = assert(fg.runtime(dev, pipe(16), { memory_budget = 16 * 16 * 4 * 2 }))
    rt:frame()
    local mem = rt:memory().total
    local ok, err = rt:reload(pipe(32))
    assert.is_nil(ok)
    assert.matches("over the budget of 2048 bytes", err)
    assert.matches("still running the previous pipeline", err)
    rt:frame()
    assert.are.equal(red(16), rt:read("out"))
    assert.are.equal(mem, rt:memory().total)
    rt:close()
  end)

  it("a failing vkAllocateMemory on reload is reported and the previous plan kept", function()
    local rt = assert(fg.runtime(dev, pipe(16), {}))
    rt:frame()
    local allocs = rt:memory().allocations
    rt:_fail_allocations(1)
    local ok, err = rt:reload(pipe(32))
    assert.is_nil(ok)
    assert.matches("vkAllocateMemory%(4096 bytes, memory type %d+, device heap 0%) for plan heap 0 failed "
                   .. "%(VkResult %-2, out of device memory%)", err)
    rt:frame()
    assert.are.equal(red(16), rt:read("out"))
    -- the hook is spent: the same reload now goes through
    assert.is_true((rt:reload(pipe(32))))
    rt:frame()
    assert.are.equal(red(32), rt:read("out"))
    assert.is_true(rt:memory().allocations > allocs)
    rt:close()
  end)

  it("a failing allocation at creation is an error, not a crash", function()
    -- the hook needs a runtime: a set_resolution that must allocate fails
    local rt = assert(fg.runtime(dev, pipe(8), {}))
    rt:frame()
    rt:_fail_allocations(1)
    local ok, err = rt:set_resolution("main", 64, 64)
    assert.is_nil(ok)
    assert.matches("rt:set_resolution%('main', 64, 64%): vkAllocateMemory", err)
    assert.matches("%(kept 8x8%)$", err)
    rt:frame()
    assert.are.equal(red(8), rt:read("out"))
    rt:close()
  end)

  it("rt:set_resolution over the budget goes back to the old size", function()
    local rt = assert(fg.runtime(dev, pipe(8), { memory_budget = 4096 }))
    rt:frame()
    local ok, err = rt:set_resolution("main", 64, 64)
    assert.is_nil(ok)
    assert.matches("over the budget of 4096 bytes.*%(kept 8x8%)", err)
    rt:frame()
    assert.are.equal(red(8), rt:read("out"))
    assert.is_true((rt:set_resolution("main", 16, 16)))
    rt:frame()
    assert.are.equal(red(16), rt:read("out"))
    rt:close()
  end)

  it("closing runtimes with upload-ring frames in flight, many times", function()
    -- the teardown used to destroy the ring's semaphore while the driver
    -- could still be signalling it (lavapipe crashed in a worker thread)
    local sh = fg.shader(dev, fg.shader_dir() .. "/rt_upload.comp.spv")
    local N = 1024
    local p = { outputs = { "acc" }, nodes = {
      { name = "acc", create = { acc = { buffer = N * 4, history = "clear" } }, history = { acc = "storage" },
        run = function(cmd, ctx)
          local params = assert(ctx.upload(string.pack("<I4I4I4I4", 3, ctx.frame, N, 0)))
          local data = assert(ctx.upload(string.rep("\1\2\3\4", N)))
          cmd:dispatch(sh, { [0] = params, [1] = data, [2] = { "acc", history = true }, [3] = "acc" }, N // 64)
        end } } }
    for _ = 1, 20 do
      local rt = assert(fg.runtime(dev, p, {}))
      rt:frame(); rt:frame(); rt:frame()
      rt:close()
    end
    sh:close()
  end)
end)
