-- Mistakes inside `run` get messages that name the fix: binding a history
-- texture without history = true, and a misspelt ctx.blob name (lavapipe,
-- validation on).
local fg = require("framegraph")

local SHADERS = fg.shader_dir()

describe("advice for mistakes in run", function()
  local dev, copy, sample
  setup(function()
    dev = fg.vulkan{ validation = true, prefer = "software" }
    copy = fg.shader(dev, SHADERS .. "/dev_copy.frag.spv", { fragment_only = true })  -- samples binding 3
    sample = fg.shader(dev, SHADERS .. "/rt_sample.comp.spv")                          -- 0 sampled, 1 storage
  end)
  teardown(function() dev:close() end)
  after_each(function() assert.are.same({}, dev:messages()) end)

  local T = { format = "rgba8_unorm", size = { 8, 8 } }

  local function frame_error(p)
    local rt = fg.runtime(dev, p)
    local ok, err = pcall(rt.frame, rt)
    rt:close()
    assert.is_false(ok)
    return tostring(err)
  end

  it("binding the history of a texture the node also writes, without history = true, says to add it", function()
    local function taa(binding)
      return { outputs = { "accum" }, nodes = {
        { name = "resolve", create = { accum = { format = "rgba8_unorm", size = { 8, 8 }, history = "clear" } },
          history = { accum = "sampled" }, pass = { color = { "accum" } },
          run = function(cmd) cmd:draw(copy, { [3] = binding }, 3) end } } }
    end
    local err = frame_error(taa("accum"))
    assert.matches("binds 'accum' at binding 3 as sampled: that is this frame's 'accum' (usage 'color'); to bind the "
                   .. "previous frame's copy the node reads with history, write {[3] = {\"accum\", history = true}}",
                   err, 1, true)
    assert.not_matches("declare it with usage 'sampled'", err, 1, true)
    -- the advice works
    local rt = fg.runtime(dev, taa({ "accum", history = true, sampler = "nearest" }))
    rt:frame(); rt:frame()
    rt:close()
  end)

  it("binding a texture the node reads only with history says to bind it with history = true", function()
    local err = frame_error({ outputs = { "out" }, nodes = {
      { name = "make", create = { accum = { format = "rgba8_unorm", size = { 8, 8 }, history = "clear" } },
        run = function(cmd) cmd:clear("accum", { 0, 0, 0, 1 }) end, side_effects = true },
      { name = "use", history = { accum = "sampled" }, create = { out = T },
        run = function(cmd) cmd:dispatch(sample, { [0] = "accum", [1] = "out" }, 1, 1, 1) end } } })
    assert.matches("binds 'accum', which the node reads only as last frame's copy (history); bind it as "
                   .. "{\"accum\", history = true}", err, 1, true)
  end)

  it("an undeclared name in a binding gets the closest declared one", function()
    local err = frame_error({ outputs = { "out" }, nodes = {
      { name = "a", create = { src = T }, run = function(cmd) cmd:clear("src", { 1, 0, 0, 1 }) end },
      { name = "b", read = { "src" }, create = { out = T },
        run = function(cmd) cmd:dispatch(sample, { [0] = "scr", [1] = "out" }, 1, 1, 1) end } } })
    assert.matches("uses resource 'scr' that the node did not declare; did you mean 'src'?", err, 1, true)
  end)

  it("ctx.blob of a misspelt name raises naming the fix and the closest name", function()
    local err = frame_error({ outputs = { "out" }, nodes = {
      { name = "camera", create = { view = { blob = true } }, run = function(_, ctx) ctx.blob("view").eye = 1 end },
      { name = "draw", read = { "view" }, create = { out = T },
        run = function(cmd, ctx)
          local v = ctx.blob("veiw")
          cmd:clear("out", { v.eye, 0, 0, 1 })
        end } } })
    assert.matches("node 'draw': ctx.blob('veiw'): the node declares no 'veiw'; did you mean 'view'?", err, 1, true)
    assert.matches("create = { veiw = { blob = true } }", err, 1, true)
    assert.not_matches("attempt to index a nil value", err, 1, true)
  end)
end)
