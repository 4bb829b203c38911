-- fg.pack's capacity mode (opts.capacity): a decision, "does it fit in C
-- bytes, and where?", with fits / proved; the graph's capacity option and
-- the runtime's memory_budget message say which of the three answers it is.
local fg = require("framegraph")

local function read_dsa(name)
  local items = {}
  for line in io.lines("data/dsa/" .. name .. ".1048576.csv") do
    local lo, hi, sz = line:match("^%d+,(%d+),(%d+),(%d+)")
    if lo then items[#items + 1] = { start = tonumber(lo), stop = tonumber(hi), size = tonumber(sz) } end
  end
  return items
end

local function pipe(w)
  return {
    resolutions = { main = { w, w } },
    outputs = { "out" },
    nodes = {
      { name = "a", create = { t = { format = "rgba8_unorm", size = "main", usage = "sampled" } },
        run = function() end },
      { name = "b", read = { "t" }, create = { out = { format = "rgba8_unorm", size = "main", usage = "transfer_dst" } },
        run = function() end },
    },
  }
end

describe("fg.pack capacity", function()
  -- MiniMalloc's C (slack above its LOAD) and D (held out; LOAD 986112, and
  -- the minimising packer ends above 1048576 at 1 s): both fit at 1048576.
  -- A generous ceiling on the budget: the call ends once settled.
  for _, name in ipairs({ "C", "D" }) do
    it("settles MiniMalloc " .. name .. " at 1048576 with a valid packing", function()
      local items = read_dsa(name)
      local r = fg.pack(items, { capacity = 1048576, time_budget_ms = 60000 })
      assert.is_true(r.fits)
      assert.is_true(r.proved)
      assert.is_true(r.makespan <= 1048576)
      assert.is_true(fg.check_packing(items, r.offsets))
    end)
  end

  it("answers no, proved, below LOAD, with a valid packing", function()
    local items = read_dsa("A")
    local load = fg.pack_load(items, 0)
    local r = fg.pack(items, { capacity = load - 1024, time_budget_ms = 60000 })
    assert.is_false(r.fits)
    assert.is_true(r.proved)
    assert.is_true(r.bound > load - 1024)
    assert.is_true(fg.check_packing(items, r.offsets))
  end)

  it("proves no by a clique on a cycle above LOAD", function()
    -- three arcs of a 6-cycle meeting pairwise with no common point: LOAD 2, needs 3
    local items = { { start = 0, stop = 4, size = 1 }, { start = 2, stop = 0, size = 1 }, { start = 4, stop = 2, size = 1 } }
    local r = fg.pack(items, { period = 6, capacity = 2 })
    assert.are.equal(2, r.load)
    assert.is_false(r.fits)
    assert.is_true(r.proved)
    r = fg.pack(items, { period = 6, capacity = 3 })
    assert.is_true(r.fits and r.proved)
  end)

  it("is checked like the other options; without it the result has no fits, proved", function()
    local items = { { start = 0, stop = 2, size = 4 } }
    local ok, err = pcall(fg.pack, items, { capacity = -1 })
    assert.is_false(ok)
    assert.matches("opts.capacity", err)
    local r = fg.pack(items, {})
    assert.is_nil(r.fits)
    assert.is_nil(r.proved)
    r = fg.pack(items, { capacity = 4 })
    assert.is_true(r.fits and r.proved)
  end)
end)

describe("capacity in the graph and the runtime", function()
  it("fg.compile{capacity} reports per heap whether the plan fits", function()
    local g = fg.compile(pipe(16), { capacity = 1 << 30 })
    local h = g:stats().heaps[1]
    assert.is_true(h.fits and h.proved)
    g = fg.compile(pipe(16), { capacity = 100 })
    h = g:stats().heaps[1]
    assert.is_false(h.fits)
    assert.is_true(h.proved) -- below LOAD
    assert.is_true(h.bytes >= h.load)
    h = fg.compile(pipe(16), {}):stats().heaps[1]
    assert.is_true(h.fits)
    assert.is_false(h.proved)
  end)

  it("the runtime's memory_budget error says no plan can fit, proved", function()
    local dev = fg.vulkan{ validation = true, prefer = "software" }
    local rt, err = fg.runtime(dev, pipe(64), { memory_budget = 1000 })
    assert.is_nil(rt)
    assert.matches("over the budget of 1000 bytes: no packing can fit it %(proved", err)
    assert.are.same({}, dev:messages())
    dev:close()
  end)
end)
