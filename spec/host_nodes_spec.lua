-- A host's C callbacks seen from Lua (include/framegraph.h): `run =
-- "host:name"` and cmd:host(name, args). Registering is the host's (C, see
-- tests/host/two_devices.c and examples/host); here, what Lua checks: the
-- schema's rule for string runs, and a name no host registered, which fails
-- the frame saying what is registered.
package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
local fg = require("framegraph")

local function pipeline(run)
  return {
    outputs = { "out" },
    nodes = {
      { name = "paint", create = { out = { format = "rgba8_unorm", size = { 16, 16 } } },
        pass = { color = { { "out", clear = { 0, 0, 0, 1 } } } }, run = run },
    },
  }
end

describe("run = \"host:name\"", function()
  it("compiles: a string run names a host's C callback", function()
    local g = fg.compile(pipeline("host:draw_scene"))
    assert.are.same({ "paint" }, g:order())
  end)

  it("refuses other strings, naming the form", function()
    for _, bad in ipairs{ "clear", "host:", "host:two words", "draw_scene" } do
      local ok, err = pcall(fg.compile, pipeline(bad))
      assert.is_false(ok)
      assert.matches("node 'paint': run must be a function%(cmd, ctx%), got string", err)
      assert.matches('"host:name"', err, 1, true)
    end
  end)
end)

describe("host callbacks on a device without them", function()
  local dev
  setup(function() dev = fg.vulkan{ validation = true, prefer = "software" } end)
  teardown(function() dev:close() end)
  after_each(function() assert.are.same({}, dev:messages()) end)

  it("run = \"host:name\" fails the frame, saying none is registered", function()
    local rt = fg.runtime(dev, pipeline("host:draw_scene"))
    local ok, err = pcall(rt.frame, rt)
    assert.is_false(ok)
    assert.matches("node 'paint' run failed: node 'paint': no host callback 'draw_scene' is registered on this "
                   .. "device (registered: none)", err, 1, true)
    rt:close()
  end)

  it("cmd:host checks its arguments, then the name", function()
    local seen
    local rt = fg.runtime(dev, pipeline(function(cmd)
      seen = { pcall(cmd.host, cmd) }
      local ok, err = pcall(cmd.host, cmd, "missing", { 1, 2 })
      seen[3], seen[4] = ok, err
    end))
    rt:frame()
    assert.is_false(seen[1])
    assert.matches("bad argument #2 .*string expected", seen[2])
    assert.is_false(seen[3])
    assert.matches("no host callback 'missing' is registered", seen[4])
    rt:close()
  end)

  it("cmd:host after the run returned: cmd is closed", function()
    local kept
    local rt = fg.runtime(dev, pipeline(function(cmd) kept = cmd end))
    rt:frame()
    local ok, err = pcall(kept.host, kept, "draw_scene")
    assert.is_false(ok)
    assert.matches("cmd is closed", err)
    rt:close()
  end)
end)
