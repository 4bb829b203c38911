-- Allocators at their edges (kills mutants that survived the C tests,
-- scripts/mutations.txt): an offset inside a block is no block; the whole
-- capacity is one allocation and one byte more is none.
local fg = require("framegraph")

describe("allocators at their limits", function()
  it("buddy: freeing an offset inside a live block is refused and the block stays", function()
    local a = fg.allocator("buddy", 1024, { block = 64 })
    assert.are.equal(0, a:alloc(64, 1))
    assert.are.equal(64, a:alloc(64, 1))
    for _, off in ipairs({ 65, 127, 1 }) do
      assert.has_error(function() a:free(off) end)
    end
    assert.are.equal(2, a:stats().allocations)
    assert.are.equal(64, a:size(64))
    a:free(64)
    assert.are.equal(1, a:stats().allocations)
    a:close()
  end)

  for _, kind in ipairs({ "tlsf", "buddy", "linear", "freelist" }) do
    it(kind .. ": the whole capacity is one allocation, one byte more is none", function()
      local a = fg.allocator(kind, 4096)
      local off = a:alloc(4097, 1)
      assert.is_nil(off)
      assert.are.equal(0, a:alloc(4096, 1))
      assert.is_nil((a:alloc(1, 1)))
      a:close()
    end)
  end
end)
