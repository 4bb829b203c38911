-- opts.schedule: the memory-aware node order ("memory", the default) against
-- the declared one: every derived dependency holds, conflicting uses of a
-- resource keep their declared order, the heap is never larger, multiplexed
-- chains interleave by index and graph:order/nodes/instances say why.
package.path = "examples/?.lua;" .. package.path
local fg = require("framegraph")
local dags = dofile("spec/support/frame_dags.lua")

local function slots_by_name(g)
  local s = {}
  for i, name in ipairs(g:order()) do s[name] = i end
  return s
end

local WRITES = { create = true, modify = true, rename = true }

-- every check a memory order must pass against the declared order d
local function check_order(d, m, label)
  local dorder, mslot = d:order(), slots_by_name(m)
  assert.are.equal(#dorder, #m:order(), label)
  for _, name in ipairs(dorder) do assert.is_not_nil(mslot[name], label .. " " .. name) end
  -- the declared order's derived edges (create/modify/read/rename, after/before, history)
  for _, e in ipairs(d:edges()) do  -- instance names
    local a, b = e[1], e[2]
    assert.is_true(mslot[a] < mslot[b], ("%s: %s must run before %s"):format(label, a, b))
  end
  -- the memory graph's own edges agree with its slots
  for _, e in ipairs(m:edges()) do assert.is_true(mslot[e[1]] < mslot[e[2]], label) end
  -- two uses of one physical copy where one writes keep their declared order
  local users = {}
  for _, inst in ipairs(d:instances()) do
    for _, u in ipairs(inst.uses) do
      if u.resource and u.access ~= "history" then
        local r = u.resource[1]
        users[r] = users[r] or {}
        table.insert(users[r], { name = inst.name, write = WRITES[u.access] })
      end
    end
  end
  for r, list in pairs(users) do
    for i = 1, #list do
      for j = i + 1, #list do
        local a, b = list[i], list[j]
        if (a.write or b.write) and a.name ~= b.name then
          assert.is_true(mslot[a.name] < mslot[b.name],
            ("%s: resource %d: %s and %s swapped"):format(label, r, a.name, b.name))
        end
      end
    end
  end
  -- side-effect nodes keep their declared order
  local se = {}
  for _, n in ipairs(d:nodes()) do se[n.name] = n.state == "active" and d:pipeline().nodes[n.index].side_effects end
  local last = 0
  for _, inst in ipairs(d:instances()) do
    if se[inst.node] then
      assert.is_true(mslot[inst.name] > last, label .. " side effects " .. inst.name)
      last = mslot[inst.name]
    end
  end
  -- never a larger heap than the declared order (the compile packs both)
  local s = m:stats()
  assert.is_true(s.heap_bytes <= s.heap_declared, label)
  assert.are.equal(s.schedule == "memory", s.heap_bytes < s.heap_declared, label)
  if s.schedule == "declared" then assert.are.same(dorder, m:order(), label) end
  -- the lower bounds that let the schedule skip work: below every packing
  -- made, and where one reaches the declared heap the declared order stays
  assert.is_true(s.heap_bound <= s.heap_declared and s.heap_bound <= s.heap_bytes, label .. " bound")
  if s.schedule == "memory" then assert.is_true(s.heap_bound_memory <= s.heap_bytes, label .. " memory bound") end
  if math.max(s.heap_bound, s.heap_bound_memory) >= s.heap_declared then
    assert.are.equal("declared", s.schedule, label)
  end
  assert.are.equal(0, d:stats().heap_bound, label)
  -- instances name the slot the declared order gives them
  for _, inst in ipairs(m:instances()) do
    assert.are.equal(inst.declared_slot, slots_by_name(d)[inst.name], label)
    assert.are.equal(inst.moved ~= nil, inst.slot ~= inst.declared_slot, label)
  end
  -- nodes(): slots in index order, first = the earliest
  local morder = m:order()
  for _, n in ipairs(m:nodes()) do
    if n.instances > 0 then
      assert.are.equal(n.instances, #n.slots, label)
      assert.are.equal(math.min(table.unpack(n.slots)), n.first, label)
      local consecutive = true
      for k, sl in ipairs(n.slots) do
        assert.are.equal(n.name, morder[sl]:match("^[^%[]+"), label)
        consecutive = consecutive and sl == n.slots[1] + k - 1
      end
      assert.are.equal(not consecutive, n.interleaved, label .. " " .. n.name)
    end
  end
  return s
end

describe("schedule = 'memory'", function()
  it("respects every dependency and keeps conflicting uses in order on random graphs", function()
    local compiled, won = 0, 0
    for seed = 1, 16 do
      local p = dags.random(seed, 40 + 7 * seed)
      local ok, d = pcall(fg.compile, p, { schedule = "declared" })
      if ok then
        compiled = compiled + 1
        local s = check_order(d, fg.compile(p), "random " .. seed)
        if s.schedule == "memory" then won = won + 1 end
      end
    end
    assert.is_true(compiled >= 12, "the generator makes compilable graphs")
    assert.is_true(won >= 3, "the memory order wins on some random graphs")
  end)

  it("respects every dependency on frame-like graphs and lowers their heap", function()
    local won = 0
    for seed = 1, 8 do
      local p = dags.frame(seed, 60 + 20 * seed)
      local d = fg.compile(p, { schedule = "declared" })
      local s = check_order(d, fg.compile(p), "frame " .. seed)
      if s.heap_bytes < s.heap_declared then won = won + 1 end
    end
    assert.is_true(won >= 6, "memory beats declared on most frame-like graphs, got " .. won)
  end)

  it("holds on large frame-like graphs (500+ instances)", function()
    for seed = 1, 3 do
      local p = dags.frame(seed, 500 + 250 * seed)
      check_order(fg.compile(p, { schedule = "declared" }), fg.compile(p), "large frame " .. seed)
    end
  end)

  it("skips every order where history copies fill the declared heap", function()
    -- each node keeps a large history copy (read by itself, so it lives more
    -- than a frame in any order) and makes a small transient: the history
    -- copies meet pairwise on the two-frame cycle whatever the order
    local nodes = {}
    for i = 1, 12 do
      local n = { name = "n" .. i, create = { ["h" .. i] = { format = "rgba16_sfloat", size = { 256, 256 },
        history = "clear" }, ["t" .. i] = { format = "r8_unorm", size = { 16, 16 } } },
        history = { ["h" .. i] = "sampled" } }
      if i > 1 then n.read = { "t" .. (i - 1), "h" .. (i - 1) } end
      nodes[i] = n
    end
    local p = { outputs = { "t12" }, nodes = nodes }
    local d, m = fg.compile(p, { schedule = "declared" }), fg.compile(p)
    local s = check_order(d, m, "history-bound")
    assert.are.equal(s.heap_declared, s.heap_bound)
    assert.are.equal(24 * 256 * 256 * 8, s.heap_bound)  -- both copies of each history texture
    assert.are.equal(0, s.heap_bound_memory)  -- no order was searched
    assert.are.equal("declared", s.schedule)
  end)

  it("interleaves the screenshot's tiles (index-major) and says why", function()
    local ex = require("common")
    local p = ex.load("examples/screenshot.lua")
    local d, m = fg.compile(p, { schedule = "declared" }), fg.compile(p)
    check_order(d, m, "screenshot")
    local s = m:stats()
    assert.are.equal("memory", s.schedule)
    assert.are.equal("memory", s.schedule_asked)
    assert.is_true(s.heap_bytes < s.heap_declared)
    assert.are.equal(d:stats().heap_bytes, s.heap_declared)
    assert.is_true(s.moved > 0)
    local nodes = {}
    for _, n in ipairs(m:nodes()) do nodes[n.name] = n end
    assert.are.same({ 3, 7, 11, 15 }, nodes.gbuffer.slots)
    assert.are.same({ 6, 10, 14, 18 }, nodes.assemble.slots)
    assert.is_true(nodes.gbuffer.interleaved)
    assert.matches("index%-major", nodes.gbuffer.moved)
    assert.is_false(nodes.layout.interleaved)
    assert.is_nil(nodes.layout.moved)
    local why = m:order({ why = true })
    assert.are.same({ name = "lighting[tile=1]", slot = 4, declared = 7, why = nodes.lighting.moved }, why[4])
    assert.are.same({ name = "layout", slot = 1, declared = 1, why = "" }, why[1])
    -- the declared order: node-major, nothing moved
    for _, n in ipairs(d:nodes()) do
      assert.is_false(n.interleaved)
      assert.is_nil(n.moved)
    end
    assert.are.equal("declared", d:stats().schedule)
    assert.are.equal(0, d:stats().moved)
  end)

  it("keeps the declared order when it packs as small (a chain)", function()
    local T = { format = "rgba8_unorm", size = { 64, 64 } }
    local g = fg.compile({ outputs = { "c" }, nodes = {
      { name = "a", create = { a = T } },
      { name = "b", read = { "a" }, create = { b = T } },
      { name = "c", read = { "b" }, create = { c = T } } } })
    local s = g:stats()
    assert.are.equal("declared", s.schedule)
    assert.are.equal(s.heap_declared, s.heap_bytes)
    assert.are.same({ "a", "b", "c" }, g:order())
  end)

  it("keeps its order across set_resolution and set_dimension re-schedules", function()
    local ex = require("common")
    local g = fg.compile((ex.load("examples/screenshot.lua")))
    local before, heap = g:order(), g:stats().heap_bytes
    g:set_resolution("main", 128, 128)
    assert.are.same(before, g:order())
    assert.is_true(g:stats().heap_bytes < heap)
    g:set_dimension("tile", 2)
    local nodes = {}
    for _, n in ipairs(g:nodes()) do nodes[n.name] = n end
    assert.are.same({ 3, 7 }, nodes.gbuffer.slots)
  end)

  it("is an option with one rule", function()
    local p = { outputs = { "a" }, nodes = { { name = "a", create = { a = { buffer = 16 } } } } }
    assert.has_error(function() fg.compile(p, { schedule = "fast" }) end,
      "opts.schedule: expected 'declared' or 'memory', got 'fast'")
    assert.is_nil(fg.core.check_option("schedule", "memory"))
    assert.is_nil(fg.core.check_option("schedule", "declared"))
    assert.are.equal("opts.schedule: expected 'declared' or 'memory', got number",
                     fg.core.check_option("schedule", 1):gsub("got 1", "got number"))
    assert.are.equal("declared", fg.compile(p, { schedule = "declared" }):stats().schedule_asked)
    assert.are.equal("memory", fg.compile(p):stats().schedule_asked)
  end)
end)
