-- framegraph.assertions at their limits: each helper passes at equality and
-- fails one byte (or one step) past it, within_bound judges every heap (the
-- best and the worst heap differ, in either order), and the messages name
-- the numbers. Plain stats tables stand in for graphs (stats_of takes both).
require("framegraph.assertions")
local fg = require("framegraph")

local function fails(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok, "the assertion passed")
  return tostring(err)
end

describe("assert.heap_at_most", function()
  it("passes at equality and fails one byte over", function()
    assert.heap_at_most({ heap_bytes = 4096 }, 4096)
    local msg = fails(assert.heap_at_most, { heap_bytes = 4097 }, 4096)
    assert.truthy(msg:find("heap 0.00 MiB (4097 bytes)", 1, true), msg)
    assert.truthy(msg:find("at most 0.00 MiB (4096 bytes)", 1, true), msg)
    assert.is_not.heap_at_most({ heap_bytes = 4097 }, 4096)
    fails(assert.is_not.heap_at_most, { heap_bytes = 4096 }, 4096)
  end)
end)

describe("the graph argument", function()
  it("is a stats table or anything with a stats method (a graph, a stand-in)", function()
    local stand_in = { stats = function() return { heap_bytes = 10, naive_bytes = 20, load_bytes = 10, heaps = {} } end }
    assert.heap_at_most(stand_in, 10)
    assert.saves_memory(stand_in, 0.5)
    assert.near_optimal(stand_in, 1)
    fails(assert.heap_at_most, stand_in, 9)
  end)
end)

describe("assert.saves_memory", function()
  it("passes at exactly the fraction and fails just short of it", function()
    assert.saves_memory({ heap_bytes = 750, naive_bytes = 1000 }, 0.25)
    local msg = fails(assert.saves_memory, { heap_bytes = 751, naive_bytes = 1000 }, 0.25)
    assert.truthy(msg:find("25.0%", 1, true) and msg:find("heap 0.00 MiB (751 bytes) vs 0.00 MiB (1000 bytes) without aliasing", 1, true), msg)
    assert.is_not.saves_memory({ heap_bytes = 751, naive_bytes = 1000 }, 0.25)
  end)
  it("never passes on nothing to save from", function()
    fails(assert.saves_memory, { heap_bytes = 0, naive_bytes = 0 }, 0)
  end)
end)

describe("assert.near_optimal", function()
  it("passes at makespan == ratio * LOAD and fails one byte over", function()
    assert.near_optimal({ heap_bytes = 1100, load_bytes = 1000 }, 1.1)
    local msg = fails(assert.near_optimal, { heap_bytes = 1101, load_bytes = 1000 }, 1.1)
    assert.truthy(msg:find("(1101/1000 bytes)", 1, true), msg)
    assert.near_optimal({ heap_bytes = 1000, load_bytes = 1000 }, 1)
    fails(assert.near_optimal, { heap_bytes = 1001, load_bytes = 1000 }, 1)
  end)
  it("reads an empty plan (LOAD 0) as optimal", function()
    assert.near_optimal({ heap_bytes = 0, load_bytes = 0 }, 1)
  end)
end)

describe("assert.within_bound", function()
  local best = { bytes = 1000, bound = 1000 }
  local worst = { bytes = 1200, bound = 1000 }
  local function heaps(...) return { heap_bytes = 1, heaps = { ... } } end

  it("judges the worst heap, wherever it is", function()
    for _, s in ipairs({ heaps(best, worst), heaps(worst, best), heaps(best, worst, best) }) do
      assert.within_bound(s, 1.2)
      local msg = fails(assert.within_bound, s, 1.19)
      assert.truthy(msg:find("1200/1000 = 1.2000", 1, true), msg)
      local at = 0
      for i, h in ipairs(s.heaps) do if h == worst then at = i end end
      assert.truthy(msg:find("heap " .. at .. ":", 1, true), msg)
    end
  end)

  it("is not fooled by a sum over heaps", function()
    -- 2200 / 2100 = 1.048 over both, but one heap is at 1.2
    fails(assert.within_bound, heaps({ bytes = 1000, bound = 1100 }, worst), 1.1)
  end)

  it("passes at equality and counts a heap without a bound as met", function()
    assert.within_bound(heaps(worst), 1.2)
    assert.within_bound(heaps({ bytes = 0, bound = 0 }), 1)
    assert.within_bound({ heap_bytes = 0, heaps = {} }, 1)
    assert.is_not.within_bound(heaps(best, worst), 1.1)
  end)

  it("works on a compiled graph with two heaps", function()
    local g = fg.compile({
      outputs = { "t", "b" },
      resolutions = { main = { 64, 64 } },
      nodes = {
        { name = "a", create = { t = { format = "rgba8_unorm", size = "main" }, b = { buffer = 4096 } } },
      },
    }, { profile = "nvidia" })
    local s = g:stats()
    assert.is_true(#s.heaps >= 1)
    assert.within_bound(g, 1.5)
    g:close()
  end)
end)
