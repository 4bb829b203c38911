-- Lifetimes the memory plan depends on (kills a mutant that survived the
-- C tests, scripts/mutations.txt): an output is consumed outside the graph
-- after the frame's last node, so it stays live to the end of its frame and
-- no later node's resource may take its memory.
local fg = require("framegraph")

describe("lifetimes", function()
  it("an output lives to the end of its frame, past its last reader", function()
    local g = fg.compile({ outputs = { "out" }, nodes = {
      { name = "a", create = { out = { buffer = 256 } } },
      { name = "b", create = { t = { buffer = 256 } }, read = { "out" } },
      { name = "c", create = { u = { buffer = 256 } }, read = { "t" } },
      { name = "d", read = { "u" }, side_effects = true },
    } })
    local by = {}
    for _, r in ipairs(g:resources()) do by[r.name .. r.frame] = r end
    assert.are.equal(3, by.out0.last)   -- slots 0..3 are frame 0's four nodes
    assert.are.equal(7, by.out1.last)
    -- u (live at slots 2..3) meets out: they may not share bytes
    for f = 0, 1 do
      local o, u = by["out" .. f], by["u" .. f]
      assert.is_true(o.offset + o.bytes <= u.offset or u.offset + u.bytes <= o.offset, "out and u share memory")
    end
    g:close()
  end)
end)
