-- For the example specs (vr, split_screen, screenshot, schedule_runtime): the
-- device fixture, the memory and bit-identity checks they all make, and a
-- pixel measure. Expects examples/ on package.path (for common.lua).
local fg = require("framegraph")
local ex = require("common")
local busted, assert = require("busted"), require("luassert")
require("framegraph.assertions")

local M = {}

-- Call inside a describe: a validating lavapipe device for the whole describe
-- (handed to `set(dev)` in setup), and no validation message after any test.
function M.device(set)
  local dev
  busted.setup(function()
    dev = ex.device("software")
    set(dev)
  end)
  busted.teardown(function() dev:close() end)
  busted.after_each(function() assert.are.same({}, dev:messages()) end)
end

-- Node name -> instances in graph g; with all_active, every node must be active.
function M.instances(g, all_active)
  local count = {}
  for _, n in ipairs(g:nodes()) do
    if all_active then assert.are.equal("active", n.state, n.name) end
    count[n.name] = n.instances
  end
  return count
end

-- The per-view transients of a multiplexed example alias: the plan saves half
-- the memory, is near the bound, and beats identical-description pooling.
function M.assert_views_alias(path)
  local g = fg.compile((ex.load(path)))
  assert.saves_memory(g, 0.5)
  assert.near_optimal(g, 1.05)
  local pool = fg.compile((ex.load(path)), { solver = "pool" })
  assert.is_true(g:stats().heap_bytes < pool:stats().heap_bytes)
end

-- Runs p 2 frames at `res` without aliasing, with the plan and with the plan
-- poisoned (opts.each as for ex.memory); every run must give the same images
-- and the plan must allocate less device memory. Returns the runs.
function M.identical_runs(dev, p, res, each)
  local runs = ex.memory(dev, p, { frames = 2, poison = true, resolutions = res, solvers = { "none", "best" },
                                   each = each })
  assert.is_true(ex.identical(runs))
  assert.is_true(runs[2].device < runs[1].device)
  return runs
end

-- A fresh directory for an example's runner step to write into.
function M.out_dir()
  local dir = os.tmpname()
  os.remove(dir)
  assert.is_true(os.execute("mkdir -p '" .. dir .. "'"))
  return dir
end

-- The runner step wrote n files, every one a PNG; removes them and the directory.
function M.assert_pngs(files, n, dir)
  assert.are.equal(n, #files)
  for _, f in ipairs(files) do
    local h = assert(io.open(f, "rb"))
    assert.are.equal("\137PNG", h:read(4))
    h:close()
    os.remove(f)
  end
  os.remove(dir)
end

-- Distinct colours (rgb) among rgba8 pixels.
function M.distinct(px)
  local seen, n = {}, 0
  for i = 1, #px, 4 do
    local k = px:sub(i, i + 2)
    if not seen[k] then seen[k] = true; n = n + 1 end
  end
  return n
end

return M
