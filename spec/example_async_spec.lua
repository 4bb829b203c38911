-- examples/async.lua (SSAO and bloom in compute on the async queue) against
-- its serial twin (examples/async_serial.lua) at a small resolution on
-- lavapipe: bit-identical final images with 0 validation messages, through
-- the async stream's own submissions (async_queue = "same") and folded onto
-- one queue ("off"); and its plan at 1920x1080 without a device.
package.path = "lua/?.lua;lua/?/init.lua;examples/?.lua;" .. package.path
local fg = require("framegraph")

local function load(dev, serial, w, h)
  local chunk = assert(loadfile("examples/async.lua"))
  return chunk(dev, { serial = serial, width = w, height = h })
end

local function render(dev, serial)
  local rt = fg.runtime(dev, load(dev, serial, 96, 64))
  for _ = 1, 3 do rt:frame() end
  local out = assert(rt:read("final"))
  local st = rt:stats()
  rt:close()
  return out, st
end

describe("examples/async.lua", function()
  it("plans SSAO and bloom beside the shadow and lighting passes at 1920x1080", function()
    local g = fg.compile((load(nil, false)))
    local byslot, async = {}, 0
    for _, i in ipairs(g:instances()) do byslot[i.slot] = i end
    local beside = {}
    for _, i in ipairs(g:instances()) do
      if i.queue == "async" then
        async = async + 1
        for s = i.fork + 1, i.join - 1 do
          if byslot[s].queue ~= "async" then beside[byslot[s].name] = true end
        end
      end
    end
    assert.are.equal(12, async)   -- ssao, 6 downsamples, 5 upsamples
    assert.is_true(beside.shadows and beside.lighting, "the async work overlaps shadows and lighting")
    local a = g:stats().async
    assert.are.equal(12, a.instances)
    assert.is_true(a.serial_bytes <= a.heap_bytes and a.heap_bytes <= a.region_bytes)
    local s = fg.compile((load(nil, true))):stats()
    assert.are.equal(0, s.async.instances)
  end)

  it("passes `framegraph check` as a plain file", function()
    local h = io.popen("bin/framegraph check examples/async.lua 2>&1")
    local out = h:read("a")
    local _, _, code = h:close()
    assert.are.equal(0, code, out)
  end)

  -- "auto": the device's own async queue (none on lavapipe; a compute family
  -- on a GPU, with FG_DEVICE=gpu)
  for _, mode in ipairs{ "same", "off", "auto" } do
    describe("on lavapipe, async_queue = \"" .. mode .. "\"", function()
      local dev
      setup(function() dev = fg.vulkan{ validation = true, prefer = "software", async_queue = mode } end)
      teardown(function() dev:close() end)
      after_each(function() assert.are.same({}, dev:messages()) end)
      it("renders bit-identically to its serial twin", function()
        local serial, sst = render(dev, true)
        local async, ast = render(dev, false)
        assert.are.equal(96 * 64 * 4, #serial)
        assert.is_true(serial == async, "async and serial renders differ")
        assert.are.equal(1, sst.submits)
        local has_queue = dev:info().async_queue ~= "none"
        assert.are.equal(has_queue, ast.async_queue)
        if has_queue then assert.is_true(ast.submits > 2) end
      end)
    end)
  end
end)
