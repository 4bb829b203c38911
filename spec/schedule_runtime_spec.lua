-- The memory schedule on the device: the multiplexed examples run their
-- instances in another order, with less memory, the same barriers per frame,
-- outputs bit-identical to the declared order's (also poisoned) and no
-- validation message. Lavapipe (FG_DEVICE overrides), small resolutions.
package.path = "examples/?.lua;" .. package.path
local fg = require("framegraph")
local ex = require("common")

local CASES = {
  { file = "examples/screenshot.lua", resolutions = { main = { 32, 32 }, shot = { 64, 64 } } },
  { file = "examples/vr.lua", resolutions = { eye = { 48, 48 } } },
  { file = "examples/split_screen.lua", resolutions = { screen = { 96, 48 } } },
}

local function outputs(rt, p)
  local out = {}
  for _, o in ipairs(p.outputs or {}) do
    for _, idx in ipairs(ex.output_indices(rt:graph(), o)) do out[#out + 1] = assert(rt:read(o, idx or nil)) end
  end
  return table.concat(out)
end

describe("schedule = 'memory' at run time", function()
  local dev
  require("support.examples").device(function(d) dev = d end)

  for _, case in ipairs(CASES) do
    it(case.file .. ": same pixels and barriers as the declared order, in less memory", function()
      local run = {}
      for _, sched in ipairs({ "declared", "memory" }) do
        local p = ex.load(case.file, dev)
        local rt = fg.runtime(dev, p, { schedule = sched, resolutions = case.resolutions, poison = true, seed = 7 })
        local st
        for _ = 1, 3 do st = rt:frame() end
        local s = rt:graph():stats()
        run[sched] = { pixels = outputs(rt, p), barriers = st.barriers, planned = rt:stats().planned_barriers,
                       device = rt:memory().total, schedule = s.schedule, moved = s.moved,
                       interleaved = false }
        for _, n in ipairs(rt:graph():nodes()) do run[sched].interleaved = run[sched].interleaved or n.interleaved end
        rt:close()
      end
      assert.are.equal("declared", run.declared.schedule)
      assert.are.equal("memory", run.memory.schedule)
      assert.is_true(run.memory.moved > 0 and run.memory.interleaved)
      assert.is_true(#run.memory.pixels > 0)
      assert.are.equal(run.declared.pixels, run.memory.pixels)
      assert.are.equal(run.declared.barriers, run.memory.barriers)
      assert.are.same(run.declared.planned, run.memory.planned)
      assert.is_true(run.memory.device < run.declared.device)
    end)
  end
end)
