-- graph:update(pipeline): re-declares only changed nodes and reports what changed.
local fg = require("framegraph")

local T = { format = "rgba8_unorm", size = "main" }
local function pipeline(extra_node, run_b, tweak)
  local nodes = {
    { name = "a", create = { x = T } },
    { name = "b", read = { "x" }, create = { out = { format = tweak or "rgba8_unorm", size = "main" } },
      run = run_b or function() return 1 end },
  }
  if extra_node then table.insert(nodes, extra_node) end
  return { resolutions = { main = { 32, 32 } }, outputs = { "out" }, nodes = nodes }
end

describe("graph:update", function()
  it("reports nothing for an identical pipeline", function()
    local g = fg.compile(pipeline())
    local c = g:update(pipeline())
    assert.are.same({}, c.added)
    assert.are.same({}, c.changed)
    assert.are.same({}, c.removed)
    assert.are.same({}, c.run_changed)
    assert.is_false(c.recompiled)
  end)

  it("swaps a changed run function without recompiling", function()
    local g = fg.compile(pipeline())
    local p2 = pipeline(nil, function() return 2 end)
    local c = g:update(p2)
    assert.are.same({ "b" }, c.run_changed)
    assert.is_false(c.recompiled)
    assert.are.same(p2, g:pipeline())  -- the graph keeps a copy (diff.copy)
  end)

  it("re-declares changed nodes and adds/removes nodes", function()
    local g = fg.compile(pipeline())
    local c = g:update(pipeline({ name = "c", read = { "out" }, side_effects = true }, nil, "rgba16_sfloat"))
    assert.are.same({ "c" }, c.added)
    assert.are.same({ "b" }, c.changed)
    assert.is_true(c.recompiled)
    assert.are.same({ "a", "b", "c" }, g:order())
    for _, r in ipairs(g:resources()) do
      if r.name == "out" then assert.are.equal("rgba16_sfloat", r.format) end
    end
    c = g:update(pipeline())
    assert.are.same({ "c" }, c.removed)
    assert.are.same({ "a", "b" }, g:order())
  end)

  it("re-declares everything when pipeline-level fields change", function()
    local g = fg.compile(pipeline())
    local p2 = pipeline()
    p2.resolutions.main = { 64, 64 }
    local c = g:update(p2)
    assert.is_true(c.full)
    for _, r in ipairs(g:resources()) do if r.name == "x" then assert.are.equal(64, r.width) end end
  end)

  it("leaves the graph untouched when the new pipeline is invalid", function()
    local g = fg.compile(pipeline())
    local bad = pipeline({ name = "c", read = { x = "sampeld" } })
    assert.has_error(function() g:update(bad) end)
    assert.are.same({ "a", "b" }, g:order())
    assert.are.equal(2, #g:pipeline().nodes)
  end)
end)

describe("graph:update ordering", function()
  it("gives the same order as a fresh compile when a node is inserted in the middle", function()
    local function p(with_mid)
      local nodes = { { name = "first", side_effects = true } }
      if with_mid then nodes[#nodes + 1] = { name = "mid", side_effects = true } end
      nodes[#nodes + 1] = { name = "last", side_effects = true }
      return { nodes = nodes }
    end
    local g = fg.compile(p(false))
    g:update(p(true))
    assert.are.same({ "first", "mid", "last" }, g:order())
    assert.are.same(fg.compile(p(true)):order(), g:order())
    -- run tags follow the new positions
    for _, inst in ipairs(g:instances()) do
      assert.are.equal(inst.name, g:pipeline().nodes[inst.node_index].name)
    end
  end)
end)

describe("graph:update equivalence", function()
  local function summary(g)
    local r = {}
    for _, x in ipairs(g:resources()) do
      r[#r + 1] = table.concat({ x.name, x.frame, x.bytes, x.first, x.stop, tostring(x.history) }, "/")
    end
    table.sort(r)  -- ids may be numbered differently (C declaration order), contents must match
    local n = {}
    for _, x in ipairs(g:nodes()) do n[#n + 1] = x.name .. ":" .. x.state end
    table.sort(n)
    return { order = g:order(), resources = r, nodes = n }
  end
  local function at(p, name)   -- a node's position in the declaration list
    for i, n in ipairs(p.nodes) do if n.name == name then return i end end
    error("no node " .. name)
  end
  local mutations = {
    function(p) table.remove(p.nodes, at(p, "ssao")) end,                     -- drop ssao (optional ao)
    function(p) table.insert(p.nodes, 3, { name = "extra", side_effects = true, read = { camera = "none" } }) end,
    function(p) p.nodes[at(p, "gbuffer")].create.albedo.format = "rgba16_sfloat" end,
    function(p) p.nodes[at(p, "debug_normals")].side_effects = true end,      -- un-cull debug_normals
    function(p)                                                               -- reorder declarations
      local a, b = at(p, "tonemap"), at(p, "bloom_up1")
      p.nodes[a], p.nodes[b] = p.nodes[b], p.nodes[a]
    end,
    function(p) table.remove(p.nodes, at(p, "lens_dirt")) end,                -- drop the broken node
  }
  for i, mutate in ipairs(mutations) do
    it("matches a fresh compile after mutation " .. i, function()
      local g = fg.compile(dofile("examples/deferred.lua"), { solver = "none" })
      local p2 = dofile("examples/deferred.lua")
      mutate(p2)
      g:update(p2)
      assert.are.same(summary(fg.compile(p2, { solver = "none" })), summary(g))
    end)
  end
end)
