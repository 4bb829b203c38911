-- graph:update compiles at most once, and a compile that fails leaves the
-- graph as it was (same order, resources, ids and offsets).
local fg = require("framegraph")
local file = require("support.reload_file")

local T = { format = "rgba8_unorm", size = "main" }
local function pipeline(v)
  v = v or {}
  local nodes = {
    { name = "a", create = { x = T } },
    { name = "b", read = { "x" }, create = { out = { format = v.format or "rgba8_unorm", size = "main" } },
      run = v.run or function() return 1 end },
  }
  if v.drop_a then table.remove(nodes, 1) nodes[1].read = nil end
  if v.extra then nodes[#nodes + 1] = v.extra end
  if v.swap then nodes[1], nodes[2] = nodes[2], nodes[1] end
  return { resolutions = { main = { v.size or 32, v.size or 32 } }, outputs = { "out" }, nodes = nodes }
end

-- Everything a caller can read from a compiled graph, timings left out.
local function snapshot(g)
  local stats = {}
  for k, v in pairs(g:stats()) do
    if not k:match("_ms$") then stats[k] = v end
  end
  return { order = g:order(), resources = g:resources(), nodes = g:nodes(), instances = g:instances(),
           edges = g:edges(), stats = stats, pipeline = g:pipeline() }
end

-- The number of C compiles f makes (fresh, incremental or replacing).
local function compiles(f)
  local count = file.count_compiles(fg.core)
  local ok, err = pcall(f)
  count.restore()
  if not ok then error(err, 0) end
  return count.n
end

describe("graph:update compiles", function()
  local changes = {
    { "an added node", { extra = { name = "c", read = { "out" }, side_effects = true } } },
    { "a changed node", { format = "rgba16_sfloat" } },
    { "a removed node", { drop_a = true } },
    { "pipeline-level fields", { size = 64 } },
  }
  for _, c in ipairs(changes) do
    it("once for " .. c[1], function()
      local g = fg.compile(pipeline())
      local result
      assert.are.equal(1, compiles(function() result = g:update(pipeline(c[2])) end))
      assert.is_true(result.recompiled)
      -- and the graph is what a fresh compile gives
      assert.are.same(fg.compile(pipeline(c[2])):order(), g:order())
    end)
  end

  it("never when only run functions or positions change", function()
    local g = fg.compile(pipeline())
    assert.are.equal(0, compiles(function() g:update(pipeline({ run = function() return 2 end })) end))
    assert.are.equal(0, compiles(function() g:update(pipeline({ swap = true })) end))
    assert.are.equal(0, compiles(function() g:update(pipeline({ swap = true })) end))
  end)

  it("never when the schema rejects the pipeline", function()
    local g = fg.compile(pipeline())
    local before = snapshot(g)
    assert.are.equal(0, compiles(function()
      assert.has_error(function() g:update(pipeline({ extra = { name = "c", read = { x = "sampeld" } } })) end)
    end))
    assert.are.same(before, snapshot(g))
  end)
end)

-- The compiler's message with a cycle's nodes sorted: the incremental graph
-- declares nodes in another C order than a fresh compile (as its resource ids
-- differ), so a cycle may be reported from another of its nodes (and so at
-- another node's file:line).
local function problem(msg)
  msg = msg:gsub("^[^\n:]+:%d+: (cycle: )", "%1")
  local path, rest = msg:match("^cycle: (.-) (%(.*)$")
  if not path then return msg end
  local names = {}
  for name in path:gmatch("[^ %->]+") do names[name] = true end
  local sorted = {}
  for name in pairs(names) do sorted[#sorted + 1] = name end
  table.sort(sorted)
  return "cycle through " .. table.concat(sorted, ",") .. " " .. rest
end

describe("graph:update after a failing compile", function()
  -- well-formed tables the compiler rejects: the schema cannot see these
  local cycle = { name = "c", read = { "out" }, side_effects = true, before = { "a" } }
  local twice = { name = "c", create = { x = T } }

  for _, bad in ipairs({ { "a cycle", cycle }, { "a second creator", twice } }) do
    it("raises the compiler's message and leaves the graph as it was (" .. bad[1] .. ")", function()
      -- a graph that had an add, a change and a move before: undo must restore all of it
      local g = fg.compile(pipeline())
      g:update(pipeline({ format = "rgba16_sfloat", extra = { name = "d", read = { "x" }, side_effects = true } }))
      local good = g:pipeline()
      local before = snapshot(g)
      local new = pipeline({ drop_a = false, swap = true, extra = bad[2] })
      new.nodes[#new.nodes + 1] = { name = "e", read = { "x" }, side_effects = true }
      for _, n in ipairs(new.nodes) do   -- a: declared by the first compile, now changed and moved
        if n.name == "a" then n.create = { x = { format = "r8_unorm", size = "main" } } end
      end
      local ok, fresh = pcall(fg.compile, new)
      assert.is_false(ok)
      local n = compiles(function()
        local ok2, err = pcall(g.update, g, new)
        assert.is_false(ok2)
        assert.are.equal(problem(fresh), problem(err))
      end)
      assert.are.equal(2, n)  -- the failing one, then the previous declarations again
      assert.are.same(before, snapshot(g))
      assert.are.equal(good, g:pipeline())
      -- and the graph still updates
      local c = g:update(pipeline())
      assert.are.same({ "d" }, c.removed)
      assert.are.same(fg.compile(pipeline()):order(), g:order())
    end)
  end

  it("keeps the graph when a full re-declaration fails, with one compile", function()
    local g = fg.compile(pipeline())
    local before = snapshot(g)
    local new = pipeline({ size = 64, extra = twice })
    local ok, fresh = pcall(fg.compile, new)
    assert.is_false(ok)
    assert.are.equal(1, compiles(function()
      local ok2, err = pcall(g.update, g, new)
      assert.is_false(ok2)
      assert.are.equal(fresh, err)
    end))
    assert.are.same(before, snapshot(g))
  end)
end)
