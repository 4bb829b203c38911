-- The compiler runs one way, stage after stage, from one table: every stage
-- has its time in graph:stats().stages_ms, in execution order, and the
-- stages' times are within the compile's (docs/internals.md).
local fg = require("framegraph")

local STAGES = { "validate", "order", "expand", "size", "schedule", "lifetimes", "pack", "publish" }

local function pipeline()
  return {
    resolutions = { main = { 64, 64 } }, dimensions = { eye = 2 }, outputs = { "out" },
    nodes = {
      { name = "a", multiplex = { "eye" }, create = { x = { format = "rgba8_unorm", size = "main" } } },
      { name = "b", multiplex = { "eye" }, read = { "x" }, create = { y = { format = "rgba8_unorm", size = "main" } } },
      { name = "c", multiplex = { "eye" }, read = { "y" }, create = { out = { format = "rgba8_unorm", size = "main" } } },
    },
  }
end

local function names(st)
  local t = {}
  for i, s in ipairs(st.stages_ms) do
    t[i] = s.name
    assert.is_number(s.ms)
    assert.is_true(s.ms >= 0)
  end
  return t
end

describe("compiler stages", function()
  it("each report their time, in execution order, within the compile's", function()
    local g = fg.compile(pipeline())
    local st = g:stats()
    assert.are.same(STAGES, names(st))
    local sum = 0
    for _, s in ipairs(st.stages_ms) do sum = sum + s.ms end
    assert.is_true(sum <= st.compile_ms + 1e-9, ("%g > %g"):format(sum, st.compile_ms))
    g:close()
  end)

  it("keep the plan and the order through a re-plan that enters at size", function()
    local g = fg.compile(pipeline())
    local order, before = g:order(), g:stats()
    assert.are.equal(g, g:set_resolution("main", 32, 16))
    local st = g:stats()
    assert.are.same(STAGES, names(st))
    assert.are.same(order, g:order())
    assert.are.equal(before.schedule, st.schedule)
    assert.is_true(st.heap_bytes < before.heap_bytes)
    g:close()
  end)
end)
