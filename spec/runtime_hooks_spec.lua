-- The Lua layer over the C runtime is thin: reload's primitives are hooks,
-- not methods; the runtime says why a frame failed as values (a kind, the
-- instance, the node), so the rollback never reads a message's text; the
-- resolutions and dimensions set since creation are the runtime's own.
-- lavapipe with validation: any validation message fails the spec.
local fg = require("framegraph")

describe("runtime hooks", function()
  local dev, fill
  setup(function()
    dev = fg.vulkan{ validation = true, prefer = "software" }
    fill = fg.shader(dev, fg.shader_dir() .. "/rt_fill.comp.spv")
  end)
  teardown(function() dev:close() end)
  after_each(function() assert.are.same({}, dev:messages()) end)

  local function pipe(name, run)
    return {
      resolutions = { main = { 8, 8 } }, dimensions = { eye = 2 }, outputs = { "o" },
      nodes = { { name = name, multiplex = { "eye" }, create = { o = { format = "rgba8_unorm", size = "main" } },
                  run = run or function(cmd, ctx) cmd:dispatch(fill, { [0] = "o" }, 1, 1, 1, { ctx.index.eye }) end } },
    }
  end

  it("are no methods of the runtime", function()
    local rt = fg.runtime(dev, pipe("n"))
    for _, k in ipairs{ "_compile", "_opts", "_adopt", "_slots", "adopt", "slots", "failure", "dynamic" } do
      assert.is_nil(rt[k], k)
    end
    for _, k in ipairs{ "compile", "opts", "adopt", "slots", "graph", "dynamic", "failure", "frame" } do
      assert.is_function(fg.core.runtime_hooks[k], k)
    end
    rt:close()
  end)

  it("say a run failed as a kind, the instance and the node", function()
    local rt = fg.runtime(dev, pipe("n", function(_, ctx) if ctx.index.eye == 2 then error({}) end end))
    assert.is_nil(fg.core.runtime_hooks.failure(rt))
    assert.has_error(function() rt:frame() end)
    local kind, instance, node = fg.core.runtime_hooks.failure(rt)
    assert.are.equal("run", kind)
    assert.are.equal("n[eye=2]", instance)
    assert.are.equal(1, node)
    rt:close()
  end)

  it("roll back a reload whose run fails, whatever the node's name holds", function()
    -- the message "node 'it's [n]' run failed: ..." cannot be parsed back
    local name = "it's [n]"
    local rt = fg.runtime(dev, pipe(name))
    rt:frame()
    assert.is_true(rt:reload(pipe(name, function() error("boom") end)))
    local st = rt:frame()
    assert.is_string(st.rolled_back)
    assert.matches("run failed: ", st.rolled_back, 1, true)
    assert.matches("run defined at ", st.rolled_back, 1, true)
    assert.is_nil(rt:frame().rolled_back)
    rt:close()
  end)

  it("keep the resolutions and dimensions set since creation across a structural reload", function()
    local rt = fg.runtime(dev, pipe("n"))
    assert.is_true(rt:set_resolution("main", 16, 4))
    assert.is_true(rt:set_dimension("eye", 3))
    local dyn = fg.core.runtime_hooks.dynamic(rt)
    assert.are.same({ 16, 4 }, dyn.resolutions.main)
    assert.are.equal(3, dyn.dimensions.eye)
    local p = pipe("n")
    p.nodes[2] = { name = "m", read = { o = "sampled" }, multiplex = { "eye" }, side_effects = true,
                   run = function() end }
    local ok, changes = rt:reload(p)
    assert.is_true(ok, changes)
    assert.is_true(changes.recompiled)
    local g = rt:graph()
    assert.are.equal(6, #g:instances())
    rt:frame()
    rt:close()
  end)
end)
