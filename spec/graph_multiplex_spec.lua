-- Multiplexing: instance counts, fan-out edges, per-index resources, overrides.
local fg = require("framegraph")

local function node(graph, name)
  for _, n in ipairs(graph:nodes()) do if n.name == name then return n end end
end
local function edge_set(graph)
  local s = {}
  for _, e in ipairs(graph:edges()) do s[e[1] .. " -> " .. e[2]] = true end
  return s
end

describe("VR x SSAA (eye = 2, tile = 4)", function()
  -- the declared order: the expansion's own (node-major); the memory
  -- schedule's interleaving is spec/schedule_order_spec.lua's subject
  local g = fg.compile(dofile("examples/vr_ssaa.lua"), { schedule = "declared" })

  it("runs shadows once and the per-view nodes 8 times", function()
    assert.are.equal(1, node(g, "shadows").instances)
    assert.are.equal(2, node(g, "camera").instances)
    assert.are.equal(8, node(g, "gbuffer").instances)
    assert.are.equal(8, node(g, "lighting").instances)
    assert.are.equal(2, node(g, "clear_eye").instances)
    assert.are.equal(8, node(g, "composite").instances)
    assert.are.equal(29, #g:order())
    assert.are.equal("shadows", g:order()[1])
    assert.are.equal("gbuffer[eye=1,tile=1]", g:order()[4])
    assert.are.equal("gbuffer[eye=2,tile=4]", g:order()[11])
  end)

  it("fans a narrower producer out to every instance sharing its index", function()
    local e = edge_set(g)
    for eye = 1, 2 do
      for tile = 1, 4 do
        local suffix = string.format("[eye=%d,tile=%d]", eye, tile)
        assert.is_true(e["shadows -> lighting" .. suffix], suffix)
        assert.is_true(e[string.format("camera[eye=%d] -> gbuffer%s", eye, suffix)])
        assert.is_true(e["gbuffer" .. suffix .. " -> lighting" .. suffix])
        assert.is_true(e[string.format("clear_eye[eye=%d] -> composite%s", eye, suffix)])
        -- no edge to the other eye
        assert.is_nil(e[string.format("camera[eye=%d] -> gbuffer[eye=%d,tile=%d]", 3 - eye, eye, tile)])
        -- same (eye, tile) only between equal modes
        assert.is_nil(e[string.format("gbuffer[eye=%d,tile=%d] -> lighting%s", eye, tile % 4 + 1, suffix)])
      end
    end
    assert.are.equal(48, #g:edges())
  end)

  it("gives resources their creator's mode: one copy per index and frame parity", function()
    local count = {}
    for _, r in ipairs(g:resources()) do count[r.name] = (count[r.name] or 0) + 1 end
    assert.are.equal(2, count.shadow_map)
    assert.are.equal(4, count.view)
    assert.are.equal(16, count.albedo)
    assert.are.equal(4, count.eye_target)
  end)

  it("points each instance's uses at the physical resource of its index", function()
    local res = g:resources()
    for _, inst in ipairs(g:instances()) do
      for _, u in ipairs(inst.uses) do
        local r = res[u.resource[1]]
        for dim, v in pairs(r.index) do assert.are.equal(inst.index[dim], v, inst.name .. " " .. u.name) end
        assert.are.equal(0, r.frame)
        assert.are.equal(1, res[u.resource[2]].frame)
      end
    end
  end)

  it("overrides dimension counts from opts and set_dimension", function()
    local g2 = fg.compile(dofile("examples/vr_ssaa.lua"), { dimensions = { tile = 1 }, schedule = "declared" })
    assert.are.equal(2, node(g2, "gbuffer").instances)
    g2:set_dimension("eye", 4)
    assert.are.equal(4, node(g2, "gbuffer").instances)
    assert.are.equal(1, node(g2, "shadows").instances)
    assert.are.equal("gbuffer[eye=4,tile=1]", g2:order()[1 + 4 + 4])
    assert.has_error(function() g2:set_dimension("view", 2) end, "set_dimension: unknown dimension 'view'")
  end)
end)

describe("multiplex rules", function()
  it("lets a wider node modify a narrower resource and orders every instance", function()
    local g = fg.compile({
      dimensions = { eye = 2 }, outputs = { "acc" },
      nodes = {
        { name = "init", create = { acc = { buffer = 64 } } },
        { name = "add", multiplex = { "eye" }, modify = { acc = "storage" } },
      },
    })
    assert.are.same({ "init", "add[eye=1]", "add[eye=2]" }, g:order())
    local e = edge_set(g)
    assert.is_true(e["init -> add[eye=1]"])
    assert.is_true(e["init -> add[eye=2]"])
  end)
end)

describe("multiplex limits", function()
  it("refuses expansions beyond 2^24 instances with a clear message", function()
    local ok, err = pcall(fg.compile, {
      dimensions = { a = 65536, b = 65536 },
      nodes = { { name = "huge", multiplex = { "a", "b" }, side_effects = true } },
    })
    assert.is_false(ok)
    assert.are.equal("multiplexing expands to more than 16777216 node instances: lower the dimension counts", err)
  end)
end)
