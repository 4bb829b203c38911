-- For the reload specs: the text of a pipeline file with a TAA-like accumulator
-- ("accum": acc = history(acc) + 1/255 each frame) that no variant touches, a
-- noise -> [blur ->] final chain, and the edits the specs make to it.
--   v = { seed = n, blur = bool, extra = bool, acc_size = n (8),
--         bad = nil | "syntax" | "format" | "load" | "run" | "typo" (blur reads 'noize') }
local M = {}

function M.text(dir, v)
  local seed, acc = v.seed or 1, v.acc_size or 8
  local out = {}
  local function add(s) out[#out + 1] = s end
  add("local dev = ...")
  add("local fg = require('framegraph')")
  add(("local S = %q"):format(dir))
  add("local fill_sh = fg.shader(dev, S .. '/rt_fill.comp.spv')")
  add("local invert_sh = fg.shader(dev, S .. '/rt_invert.comp.spv')")
  add("local accum_sh = fg.shader(dev, S .. '/rt_accum.comp.spv')")
  add("local blur_sh = fg.shader(dev, S .. '/rt_blur.comp.spv')")
  add("local function groups(ctx) return (ctx.width + 7) // 8, (ctx.height + 7) // 8 end")
  if v.bad == "load" then add("error('boom while loading')") end
  add("local nodes = {}")
  add(("nodes[#nodes + 1] = { name = 'accum', create = { acc = { format = 'rgba8_unorm', size = { %d, %d }, history = 'clear' } },"):format(acc, acc))
  add("  history = { acc = 'storage' },")
  add("  run = function(cmd, ctx)")
  add("    local gx, gy = groups(ctx)")
  add("    cmd:dispatch(accum_sh, { [0] = { 'acc', history = true }, [1] = 'acc' }, gx, gy, 1, { 1.0 })")
  add("  end }")
  add("nodes[#nodes + 1] = { name = 'fill', create = { noise = { format = 'rgba8_unorm', size = { 32, 32 } } },")
  add("  run = function(cmd, ctx)")
  if v.bad == "run" then add("    error('boom in fill')") end
  add("    local gx, gy = groups(ctx)")
  add(("    cmd:dispatch(fill_sh, { [0] = 'noise' }, gx, gy, 1, { %d })"):format(seed))
  add("  end }")
  local src = "noise"
  if v.blur then
    add(("nodes[#nodes + 1] = { name = 'blur', read = { %s = 'storage' }, create = { blurred = { format = '%s', size = { 32, 32 } } },")
      :format(v.bad == "typo" and "noize" or "noise", v.bad == "format" and "rgba8_nope" or "rgba8_unorm"))
    add("  run = function(cmd, ctx)")
    add("    local gx, gy = groups(ctx)")
    add("    cmd:dispatch(blur_sh, { [0] = 'noise', [1] = 'blurred' }, gx, gy, 1)")
    add("  end }")
    src = "blurred"
  end
  add(("nodes[#nodes + 1] = { name = 'out', read = { %s = 'storage' }, create = { final = { format = 'rgba8_unorm', size = { 32, 32 } } },"):format(src))
  add("  run = function(cmd, ctx)")
  add("    local gx, gy = groups(ctx)")
  add(("    cmd:dispatch(invert_sh, { [0] = '%s', [1] = 'final' }, gx, gy, 1)"):format(src))
  add("  end }")
  if v.extra then
    add("nodes[#nodes + 1] = { name = 'extra', side_effects = true, create = { scratch = { buffer = 256 } },")
    add("  run = function(cmd) cmd:clear('scratch', { 7 }) end }")
  end
  add("return { outputs = { 'final', 'acc' }, nodes = nodes }")
  if v.bad == "syntax" then add("nodes = { -- an unfinished edit") end
  return table.concat(out, "\n") .. "\n"
end

M.write = require("support.sh").write

-- The fixture both reload specs start with; call it inside their describe.
-- A validating lavapipe device and a temporary file for the whole describe
-- (handed to `set(dev, path)` in setup), removed in teardown; after every
-- test the device must have reported no validation message.
function M.fixture(fg, set)
  local busted, assert = require("busted"), require("luassert")
  local dev, path
  busted.setup(function()
    dev = fg.vulkan{ validation = true, prefer = "software" }
    path = os.tmpname()
    set(dev, path)
  end)
  busted.teardown(function()
    os.remove(path)
    dev:close()
  end)
  busted.after_each(function() assert.are.same({}, dev:messages()) end)
end

-- Line number (1-based) of the first line of `text` containing `needle`.
function M.line_of(text, needle)
  local i = 0
  for line in (text .. "\n"):gmatch("(.-)\n") do
    i = i + 1
    if line:find(needle, 1, true) then return i end
  end
end

-- The upvalue `name` of the run function of node `node` in the runtime's pipeline.
function M.upvalue(rt, node, name)
  for _, n in ipairs(rt:graph():pipeline().nodes) do
    if n.name == node then
      for i = 1, math.huge do
        local k, v = debug.getupvalue(n.run, i)
        if not k then return nil end
        if k == name then return v end
      end
    end
  end
end

-- Counts compiles: every entry that compiles a pipeline (fg.compile, the
-- graph's incremental recompile and replace, the runtime's own compile).
function M.count_compiles(core)
  local counter = { n = 0 }
  local wrapped = {}
  local function wrap(t, k)
    if t and type(t[k]) == "function" then
      local f = t[k]
      wrapped[#wrapped + 1] = { t, k, f }
      t[k] = function(...) counter.n = counter.n + 1 return f(...) end
    end
  end
  wrap(core, "compile")
  wrap(core.graph_hooks, "recompile")
  wrap(core.graph_hooks, "replace")
  require("framegraph.runtime")  -- it moves the runtime's compile into core.runtime_hooks
  wrap(core.runtime_hooks, "compile")
  function counter.restore()
    for _, w in ipairs(wrapped) do w[1][w[2]] = w[3] end
  end
  return counter
end

return M
