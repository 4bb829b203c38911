-- Allocators, the handle path and what shows a heap: a:allocate/free_handle
-- with user data, the JSON dump (parsed, then checked against the heap it
-- describes), the SVG, defragmentation plans applied to a model, and the one
-- alignment rule.
package.path = "lua/?.lua;lua/?/init.lua;spec/?.lua;" .. package.path
local fg = require("framegraph")
local json = require("support.json")

describe("spec/support/json", function()
  it("parses what JSON allows and refuses the rest", function()
    assert.are.same({ a = { 1, 2.5, -3, true, false }, b = "x\"\n\u{e9}" },
      json.decode(' {"a":[1, 2.5, -3e0, true, false], "b":"x\\"\\n\\u00e9"} '))
    assert.are.equal(json.null, json.decode("null"))
    for _, bad in ipairs({ "{", "[1,]", "{'a':1}", "01", "1.", '{"a":1,"a":2}', "[1] 2", '"\t"', "tru" }) do
      assert.has_error(function() json.decode(bad) end)
    end
  end)
end)

describe("fg.allocator handles", function()
  for _, kind in ipairs({ "tlsf", "freelist", "buddy", "linear" }) do
    it(kind .. ": allocate, user data, free_handle; stale handles raise", function()
      local a = fg.allocator(kind, 4096)
      local h1, off1 = a:allocate(100, 16, { name = "first" })
      local h2, off2 = a:allocate(200, 1, "second")
      assert.are.equal("integer", math.type(h1))
      assert.are.equal(0, off1 % 16)
      assert.are.equal("first", a:user(h1).name)
      assert.are.equal("second", a:user(h2))
      assert.are.equal("second", a:user(h2, "renamed")) -- returns the value before
      assert.are.equal("renamed", a:user(h2))
      a:free_handle(h1)
      local ok, err = pcall(a.free_handle, a, h1)
      assert.is_false(ok)
      assert.matches("is not a live allocation", err, 1, true)
      assert.has_error(function() a:user(h1) end)
      assert.are.equal(1, a:stats().allocations)
      a:free_handle(h2)
      assert.are.equal(0, a:stats().allocations)
      assert.is_true(a:validate())
      if kind == "tlsf" then
        local h3 = a:allocate(100)
        local ok2 = pcall(a.free, a, off2) -- the handle path has no offset map
        assert.is_false(ok2)
        a:reset()
        assert.has_error(function() a:free_handle(h3) end)
      end
    end)
  end

  it("alloc keeps user data by offset, and a:handle finds the handle", function()
    local a = fg.allocator("tlsf", 1000)
    local off = a:alloc(10, 1, "mine")
    local h = a:handle(off)
    assert.are.equal("mine", a:user(h))
    assert.is_nil(a:handle(off + 1))
    a:free(off)
    assert.has_error(function() a:user(h) end)
  end)

  it("max_allocations bounds the record pool", function()
    local a = fg.allocator("tlsf", 1 << 20, { max_allocations = 4 })
    for _ = 1, 4 do assert.is_not_nil(a:allocate(10)) end
    local h, err = a:allocate(10)
    assert.is_nil(h)
    assert.matches("out of space", err, 1, true)
    assert.has_error(function() fg.allocator("tlsf", 100, { max_allocations = -1 }) end)
  end)
end)

describe("one alignment rule", function()
  it("every kind refuses alignment 3 with the same message, and takes 4", function()
    local messages = {}
    for _, kind in ipairs(fg.allocator_kinds or { "tlsf", "buddy", "slab", "linear", "ring", "freelist" }) do
      local a = fg.allocator(kind, 4096, { block = 64 })
      local ok, err = pcall(a.alloc, a, 8, 3)
      assert.is_false(ok)
      assert.matches(kind .. ": align 3 is not a power of two (use 1, 2, 4, 8, ...)", err, 1, true)
      ok, err = pcall(a.allocate, a, 8, 3)
      assert.is_false(ok)
      messages[#messages + 1] = err:gsub(kind, "KIND")
      assert.are.equal(0, a:alloc(8, 4) % 4)
    end
    for i = 2, #messages do assert.are.equal(messages[1], messages[i]) end
    local ok, err = pcall(fg.pack, { { start = 0, stop = 1, size = 8, align = 3 } })
    assert.is_false(ok)
    assert.matches("align 3 is not a power of two", err, 1, true)
  end)
end)

describe("fg.allocator statistics", function()
  it("dumps JSON that describes the heap exactly", function()
    local a = fg.allocator("tlsf", 1 << 16)
    local rnd = (function() local s = 7; return function(n) s = (s * 1103515245 + 12345) % 2147483648; return s % n end end)()
    local live = {}
    for i = 1, 200 do live[i] = a:alloc(1 + rnd(700), 1 << rnd(4)) end
    for i = 1, 200, 3 do if live[i] then a:free(live[i]); live[i] = nil end end
    local d = json.decode(a:json())
    local st = a:stats()
    assert.are.equal("tlsf", d.kind)
    assert.are.equal(st.capacity, d.capacity)
    assert.are.equal(st.used, d.used)
    assert.are.equal(st.allocations, d.allocation_count)
    assert.are.equal(st.largest_free, d.largest_free)
    assert.are.equal(1, #d.blocks)
    local b = d.blocks[1]
    assert.are.equal(st.allocations, #b.allocations)
    -- allocations and free ranges tile the block, in order, without overlap
    local pieces = {}
    for _, x in ipairs(b.allocations) do pieces[#pieces + 1] = { x.offset, x.size, "used" } end
    for _, x in ipairs(b.free_ranges) do pieces[#pieces + 1] = { x.offset, x.size, "free" } end
    table.sort(pieces, function(p, q) return p[1] < q[1] end)
    local at, largest, free = 0, 0, 0
    for i, p in ipairs(pieces) do
      assert.are.equal(at, p[1])
      if p[3] == "free" then
        largest = math.max(largest, p[2]); free = free + p[2]
        assert.are_not.equal("free", (pieces[i + 1] or {})[3]) -- coalesced
      end
      at = p[1] + p[2]
    end
    assert.are.equal(d.capacity, at)
    assert.are.equal(d.free, free)
    assert.are.equal(d.largest_free, largest)
    -- the histogram counts every free range once, in its power-of-two bucket
    local n, bytes = 0, 0
    for _, h in ipairs(d.free_histogram) do
      n, bytes = n + h.count, bytes + h.bytes
      assert.is_true(h.max == 2 * h.min - 1)
    end
    assert.are.equal(#b.free_ranges, n)
    assert.are.equal(free, bytes)
    for _, r in ipairs(b.free_ranges) do
      local found = false
      for _, h in ipairs(d.free_histogram) do found = found or (r.size >= h.min and r.size <= h.max) end
      assert.is_true(found)
    end
  end)

  it("draws an SVG with one rect per allocation", function()
    local a = fg.allocator("buddy", 1024, { block = 16 })
    for _ = 1, 5 do a:alloc(30) end
    local svg = a:svg(300)
    assert.matches("^<svg", svg)
    assert.matches("</svg>\n$", svg)
    local n = 0
    for _ in svg:gmatch('class="used"') do n = n + 1 end
    assert.are.equal(5, n)
    assert.has_error(function() a:svg(1) end)
  end)

  it("plans moves that compact the heap when applied in order to a model", function()
    local a = fg.allocator("tlsf", 4096)
    local offs = {}
    for i = 1, 60 do offs[i] = a:alloc(10 + i, 1 << (i % 4), "item" .. i) end
    for i = 1, 60, 2 do a:free(offs[i]) end
    local heap = {} -- unit -> owner
    for i = 2, 60, 2 do for u = offs[i], offs[i] + 10 + i - 1 do heap[u] = i end end
    local plan = a:defrag_plan()
    assert.is_true(#plan > 0)
    for _, m in ipairs(plan) do
      local id = heap[m.offset]
      assert.are.equal("item" .. id, m.user)
      assert.are.equal(0, m.to % (1 << (id % 4)))
      for u = 0, m.size - 1 do assert.are.equal(id, heap[m.offset + u]) end
      for u = 0, m.size - 1 do assert.is_true(heap[m.to + u] == nil or heap[m.to + u] == id) end
      for u = 0, m.size - 1 do heap[m.offset + u] = nil end
      for u = 0, m.size - 1 do heap[m.to + u] = id end
    end
    local last = 0
    for u, _ in pairs(heap) do last = math.max(last, u) end
    local gap = 0 -- only alignment padding (< 8 units) is left between allocations
    for u = 0, last do
      if heap[u] then gap = 0 else gap = gap + 1; assert.is_true(gap < 8, "hole at " .. u) end
    end
  end)
end)
