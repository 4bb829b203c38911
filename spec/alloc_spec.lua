-- Sub-allocators (fg.allocator) and the Vulkan memory pool (dev:memory_pool).
package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
local fg = require("framegraph")

-- Seeded random alloc/free against a model: every offset aligned and inside
-- the range, no two live allocations overlap, counts agree, and after freeing
-- everything the allocator is whole again.
local function model_run(kind, capacity, opts, seed, ops, max_size)
  local a = fg.allocator(kind, capacity, opts)
  local rnd = (function() local s = seed; return function(n) s = (s * 1103515245 + 12345) % 2147483648; return s % n end end)()
  local live, n, oks, fails = {}, 0, 0, 0
  local fresh = a:stats()
  for _ = 1, ops do
    if n == 0 or rnd(100) < 55 then
      local size = 1 + rnd(max_size)
      local align = 1 << rnd(5)
      if kind == "slab" then size = 1 + rnd(opts.block) end
      local off, err = a:alloc(size, align)
      if off then
        oks = oks + 1
        assert(off % align == 0, kind .. ": misaligned offset " .. off)
        assert(off >= 0 and off + size <= fresh.capacity, kind .. ": allocation outside the range")
        for o, s in pairs(live) do
          assert(off + size <= o or o + s <= off,
                 ("%s: [%d,+%d) overlaps [%d,+%d)"):format(kind, off, size, o, s))
        end
        live[off] = size
        n = n + 1
      else
        fails = fails + 1
        assert.is_string(err)
      end
    else
      local k = rnd(n)
      for o in pairs(live) do
        if k == 0 then a:free(o); live[o] = nil; n = n - 1; break end
        k = k - 1
      end
    end
    assert.are.equal(n, a:stats().allocations)
  end
  assert(a:validate())
  assert.is_true(oks > ops / 4, kind .. ": too few successes")
  assert.is_true(fails > 0, kind .. ": never ran out of space; the test is too easy")
  for o in pairs(live) do a:free(o) end
  local s = a:stats()
  assert.are.equal(0, s.used)
  assert.are.equal(0, s.allocations)
  assert.are.equal(fresh.largest_free, s.largest_free)
  assert(a:validate())
  a:close()
end

describe("fg.allocator", function()
  for _, case in ipairs{
    { "tlsf", 65536, nil, 3000 },
    { "buddy", 65536, { block = 16 }, 3000 },
    { "slab", 16384, { block = 64 }, 64 },
    { "linear", 65536, nil, 600 },
    { "ring", 16384, nil, 1500 },
    { "freelist", 65536, nil, 3000 },
  } do
    local kind, cap, opts, max = case[1], case[2], case[3], case[4]
    it(kind .. " survives a seeded random sequence checked against a model", function()
      model_run(kind, cap, opts, 7, 2000, max)
      model_run(kind, cap, opts, 8, 2000, max)
    end)
  end

  it("reports the contract's stats", function()
    local a <close> = fg.allocator("tlsf", 1000)
    assert.are.equal(0, a:alloc(100))
    assert.are.equal(256, a:alloc(10, 256))
    local s = a:stats()
    assert.are.same({ kind = "tlsf", capacity = 1000, used = 110, free = 890, allocations = 2 },
                    { kind = s.kind, capacity = s.capacity, used = s.used, free = s.free, allocations = s.allocations })
    assert.are.equal(1000 - 266, s.largest_free)
    assert.is_true(s.fragmentation > 0 and s.fragmentation < 1)
    assert.are.equal(10, a:size(256))
    assert.is_nil(a:size(5))
  end)

  it("returns nil and a reason when full, and recovers after free", function()
    local a = fg.allocator("buddy", 1024, { block = 64 })
    local x = a:alloc(600)
    assert.are.equal(0, x)
    local off, err = a:alloc(600)
    assert.is_nil(off)
    assert.matches("out of space", err)
    a:free(x)
    assert.are.equal(0, a:alloc(1024))
    a:close()
    a:close() -- idempotent
    assert.has_error(function() a:alloc(1) end, "allocator is closed")
  end)

  it("slab hands out fixed slots and linear resets", function()
    local s = fg.allocator("slab", 256, { block = 64 })
    assert.are.same({ 0, 64, 128, 192 }, { s:alloc(1), s:alloc(64), s:alloc(10, 16), s:alloc(3) })
    assert.is_nil((s:alloc(1)))
    assert.are.equal(0, s:stats().largest_free)
    local l = fg.allocator("linear", 100)
    assert.are.equal(0, l:alloc(60))
    assert.is_nil((l:alloc(60)))
    l:reset()
    assert.are.equal(0, l:alloc(100))
    assert.are.equal(1, l:stats().allocations)
  end)

  it("raises on misuse with what and how to fix", function()
    assert.has_error(function() fg.allocator("best", 10) end,
      "bad argument #1 to 'allocator' (unknown allocator kind 'best' (use tlsf, buddy, slab, linear, ring or freelist))")
    assert.has_error(function() fg.allocator("tlsf", 0) end)
    local ok, err = pcall(fg.allocator, "slab", 1000)
    assert.is_false(ok)
    assert.matches("opts.block", err)
    local a = fg.allocator("tlsf", 100)
    assert.has_error(function() a:alloc(0) end)
    local off = a:alloc(10)
    a:free(off)
    ok, err = pcall(a.free, a, off)
    assert.is_false(ok)
    assert.matches("not a live allocation", err)
    local b = fg.allocator("buddy", 1024, { block = 16 })
    ok, err = pcall(b.alloc, b, 10, 3)
    assert.is_false(ok)
    assert.matches("power of two", err)
    local s = fg.allocator("slab", 1024, { block = 64 })
    ok, err = pcall(s.alloc, s, 65)
    assert.is_false(ok)
    assert.matches("slot size", err)
    ok, err = pcall(fg.allocator, "tlsf", 100, { blocks = 4 })
    assert.is_false(ok)
    assert.matches("unknown option 'blocks' %(known: block, granularity, max_allocations%)", err)
  end)

  it("rounds to the granularity so GPU alignments need no padding", function()
    local a = fg.allocator("tlsf", 4096, { granularity = 256 })
    assert.are.equal(0, a:alloc(1, 256))
    assert.are.equal(256, a:alloc(300, 256))
    assert.are.equal(256, a:size(0))
    assert.are.equal(768, a:alloc(10))
    assert.are.equal(0, a:stats().fragmentation)
    assert.has_error(function() fg.allocator("tlsf", 4096, { granularity = 3 }) end)
  end)

  it("works for descriptor-style index ranges (granularity 1)", function()
    local a = fg.allocator("tlsf", 64)
    for i = 0, 63 do assert.are.equal(i, a:alloc(1)) end
    for i = 0, 63, 2 do a:free(i) end
    local s = a:stats()
    assert.are.equal(32, s.free)
    assert.are.equal(1, s.largest_free)
    assert.is_true(s.fragmentation > 0.9)
    assert.is_nil((a:alloc(2)))
  end)
end)

describe("dev:memory_pool", function()
  local dev
  setup(function() dev = fg.vulkan{ validation = true, prefer = "software" } end)
  teardown(function() if dev then dev:close() end end)
  after_each(function() assert.are.same({}, dev:messages()) end)

  it("allocates real device memory through slab, TLSF and dedicated paths", function()
    assert.has_error(function() dev:memory_pool{ blocksize = 1 } end)
    local pool <close> = dev:memory_pool{ block_size = 16 * 1024 * 1024 }
    assert.has_error(function() pool:alloc(16, { host = true }) end)
    local small = pool:alloc(100, { align = 16 })
    local mid = pool:alloc(1024 * 1024, { align = 256 })
    local big = pool:alloc(8 * 1024 * 1024)
    assert.are.equal("slab", small:info().kind)
    assert.are.equal("tlsf", mid:info().kind)
    assert.are.equal("dedicated", big:info().kind)
    assert.are.equal(0, mid:info().offset % 256)
    local s = pool:stats()
    assert.are.equal(3, s.allocations)
    assert.are.equal(2, s.device_memories)       -- one block + the dedicated one
    assert.is_true(s.device_bytes >= 24 * 1024 * 1024)
    small:free()
    pool:free(mid)
    assert.has_error(function() pool:free(mid) end)
    big:free()
    assert.are.equal(0, pool:stats().allocations)
    assert(pool:validate())
    pool:trim()
    assert.are.equal(0, pool:stats().device_memories)
  end)

  it("maps host-visible memory persistently", function()
    local pool = dev:memory_pool()
    local m = pool:alloc(64, { host_visible = true })
    assert.is_true(m:info().mapped)
    m:write("framegraph", 3)
    assert.are.equal("framegraph", m:read(10, 3))
    assert.has_error(function() m:write("x", 64) end)
    local d = pool:alloc(64, { host_visible = false, device_local = true })
    if not d:info().mapped then
      assert.has_error(function() d:read(1) end)
    end
    pool:close()
    assert.has_error(function() m:info() end, "memory's pool is closed")
    m:free() -- inert after the pool closed
  end)

  it("reuses device memory across many allocations", function()
    local pool = dev:memory_pool()
    for round = 1, 20 do
      local list = {}
      for i = 1, 50 do list[i] = pool:alloc(((i * 7919 + round) % 200000) + 1) end
      for i = 1, 50 do list[i]:free() end
    end
    local s = pool:stats()
    assert.is_true(s.device_allocs <= 3, "expected a few device allocations, got " .. s.device_allocs)
    assert.are.equal(0, s.allocations)
    pool:close()
  end)
end)
