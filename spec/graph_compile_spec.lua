-- Compiler rules: ordering, rename chains, broken/culled pruning, optional
-- reads, determinism, resolutions, lifetimes, memory plan, introspection.
local fg = require("framegraph")
local pipeline = require("support.pipeline")

local T, P = pipeline.T, pipeline.P
local function pos(order)
  local r = {}
  for i, n in ipairs(order) do r[n] = i end
  return r
end
local function node(graph, name)
  for _, n in ipairs(graph:nodes()) do if n.name == name then return n end end
end
local function res(graph, name, frame)
  for _, r in ipairs(graph:resources()) do
    if r.name == name and r.frame == (frame or 0) then return r end
  end
end

describe("ordering", function()
  it("puts create before modifies, modifies before reads, reads before the rename", function()
    -- declared in reverse so only the rules can produce this order
    local g = fg.compile(P({
      { name = "renamer", rename = { x = "out" } },
      { name = "reader", read = { "x" }, side_effects = true },
      { name = "modifier", modify = { x = "storage" } },
      { name = "creator", create = { x = T } },
    }))
    assert.are.same({ "creator", "modifier", "reader", "renamer" }, g:order())
  end)

  it("honours after and before", function()
    local g = fg.compile(P({
      { name = "a", create = { out = T } },
      { name = "b", before = { "a" }, side_effects = true },
      { name = "c", after = "a", side_effects = true },
    }))
    assert.are.same({ "b", "a", "c" }, g:order())
  end)

  it("orders a history reader after the creator (history counts as a read)", function()
    local g = fg.compile(P({
      { name = "h", history = { x = "sampled" }, side_effects = true },
      { name = "c", create = { x = { format = "r8_unorm", size = "main", history = "clear" } } },
      { name = "o", create = { out = T } },
    }))
    local p = pos(g:order())
    assert.is_true(p.c < p.h)
  end)

  it("breaks ties by declaration order and is deterministic", function()
    local nodes = {}
    for i = 1, 20 do nodes[#nodes + 1] = { name = "n" .. i, side_effects = true } end
    local order1 = fg.compile(P(nodes, { outputs = {} })):order()
    for i = 1, 20 do assert.are.equal("n" .. i, order1[i]) end
    for _ = 1, 3 do assert.are.same(order1, fg.compile(P(nodes, { outputs = {} })):order()) end
  end)
end)

describe("rename chains", function()
  it("map all names to one logical resource used through the chain", function()
    local g = fg.compile(P({
      { name = "a", create = { x = T } },
      { name = "b", rename = { x = "y" } },
      { name = "c", modify = { y = "storage" }, rename = { y = "z" } },
      { name = "d", read = { "z" }, create = { out = T } },
    }))
    assert.are.same({ "a", "b", "c", "d" }, g:order())
    local x = res(g, "x")
    assert.are.equal("z", x.final_name)
    assert.is_nil(res(g, "y"))
    local ids = {}
    for _, inst in ipairs(g:instances()) do
      for _, u in ipairs(inst.uses) do
        if u.name == "x" or u.name == "y" or u.name == "z" then ids[#ids + 1] = u.resource[1] end
      end
    end
    assert.are.equal(4, #ids)
    for _, id in ipairs(ids) do assert.are.equal(x.id, id) end
    assert.are.same({ "a:create", "b:rename", "c:rename", "d:read" },
      (function() local t = {} for _, u in ipairs(x.users) do t[#t + 1] = u.instance .. ":" .. u.access end return t end)())
  end)
end)

describe("pruning", function()
  it("breaks nodes reading unknown resources, iteratively, with reasons", function()
    local g = fg.compile(P({
      { name = "a", read = { "missing" }, create = { x = T } },
      { name = "b", read = { "x" }, create = { y = T } },
      { name = "c", create = { out = T } },
      { name = "d", read = { "y" }, modify = { out = "storage" } },
    }))
    assert.are.equal("broken", node(g, "a").state)
    assert.are.equal("read 'missing': no node creates it and it is not external", node(g, "a").reason)
    assert.are.equal("broken", node(g, "b").state)
    assert.are.equal("read 'x': its creator 'a' is broken", node(g, "b").reason)
    assert.are.equal("broken", node(g, "d").state)
    assert.are.same({ "c" }, g:order())
    assert.are.equal(3, g:stats().nodes_broken)
  end)

  it("keeps nodes whose missing reads are optional and marks the use missing", function()
    local g = fg.compile(P({
      { name = "a", read = { maybe = { usage = "sampled", optional = true } }, create = { out = T } },
    }))
    assert.are.equal("active", node(g, "a").state)
    local u = g:instances()[1].uses
    local found
    for _, x in ipairs(u) do if x.name == "maybe" then found = x end end
    assert.is_true(found.missing)
    assert.is_nil(found.resource)
  end)

  it("culls nodes whose products reach nothing, iteratively, and keeps side effects, outputs and history", function()
    local g = fg.compile(P({
      { name = "dead1", create = { d1 = T } },
      { name = "dead2", read = { "d1" }, create = { d2 = T } },
      { name = "fx", side_effects = true },
      { name = "feeds_fx", create = { f = T } },
      { name = "fx2", read = { "f" }, side_effects = true },
      { name = "hist_src", create = { h = { format = "r8_unorm", size = "main", history = "discard" } } },
      { name = "hist_reader", history = { h = "sampled" }, create = { out = T } },
    }))
    assert.are.equal("culled", node(g, "dead1").state)
    assert.are.equal("culled", node(g, "dead2").state)
    assert.are.equal("its products reach no output, history read or side-effect node", node(g, "dead1").reason)
    for _, n in ipairs({ "fx", "feeds_fx", "fx2", "hist_src", "hist_reader" }) do
      assert.are.equal("active", node(g, n).state, n)
    end
    assert.are.equal("discard", res(g, "h").history_policy)
    assert.are.equal(2, g:stats().nodes_culled)
  end)
end)

describe("resolutions", function()
  local function pipeline()
    return P({
      { name = "a", create = { half = { format = "rgba16_sfloat", size = { "main", 0.5 } },
                               quarter = { format = "r8_unorm", size = { "main", 0.25, 0.5 } },
                               fixed = { format = "r32_sfloat", size = { 10, 20 } } } },
      { name = "b", read = { "half", "quarter", "fixed" }, create = { out = T } },
    }, { resolutions = { main = { 1920, 1080 } } })
  end

  it("scales named resolutions", function()
    local g = fg.compile(pipeline())
    assert.are.same({ 960, 540 }, { res(g, "half").width, res(g, "half").height })
    assert.are.same({ 480, 540 }, { res(g, "quarter").width, res(g, "quarter").height })
    assert.are.same({ 10, 20 }, { res(g, "fixed").width, res(g, "fixed").height })
    assert.are.equal(960 * 540 * 8, res(g, "half").bytes)
  end)

  it("set_resolution re-plans sizes without changing the order or ids", function()
    local g = fg.compile(pipeline())
    local order, n = g:order(), #g:resources()
    g:set_resolution("main", 800, 600)
    assert.are.same(order, g:order())
    assert.are.equal(n, #g:resources())
    assert.are.same({ 400, 300 }, { res(g, "half").width, res(g, "half").height })
    assert.are.equal(400 * 300 * 8, res(g, "half").bytes)
    assert.are.same({ 10, 20 }, { res(g, "fixed").width, res(g, "fixed").height })
    assert.is_true(g:stats().heap_bytes < fg.compile(pipeline()):stats().heap_bytes)
    assert.has_error(function() g:set_resolution("nope", 1, 1) end, "set_resolution: unknown resolution 'nope'")
  end)

  it("takes resolutions and dimensions from opts", function()
    local g = fg.compile(pipeline(), { resolutions = { main = { 100, 100 } } })
    assert.are.equal(50, res(g, "half").width)
  end)
end)

describe("lifetimes", function()
  -- slots: a=0 b=1 c=2 (V = 3, T = 6)
  local function g3()
    return fg.compile(P({
      { name = "a", create = { x = T, t = { format = "r8_unorm", size = "main", history = "clear" } } },
      { name = "b", read = { "x" }, history = { t = "sampled" }, create = { out = T } },
      { name = "c", read = { "out" }, side_effects = true },
    }))
  end

  it("gives even and odd copies [first, last+1) and [V+first, V+last+1)", function()
    local g = g3()
    assert.are.equal(6, g:stats().period)
    local x0, x1 = res(g, "x", 0), res(g, "x", 1)
    assert.are.same({ 0, 2 }, { x0.first, x0.stop })
    assert.are.same({ 3, 5 }, { x1.first, x1.stop })
    local o0, o1 = res(g, "out", 0), res(g, "out", 1)
    assert.are.same({ 1, 3 }, { o0.first, o0.stop })
    assert.are.same({ 4, 0 }, { o1.first, o1.stop })  -- |V| + last + 1 = T wraps to 0
  end)

  it("keeps an output live to the end of its frame even when its last user is early", function()
    -- out is written at slot 0 and read by nobody inside the graph; x and y come later.
    -- Without the extension the packer could alias x or y onto out before it is consumed.
    local g = fg.compile(P({
      { name = "a", create = { out = T } },
      { name = "b", create = { x = T } },
      { name = "c", read = { "x" }, side_effects = true },
    }), { schedule = "declared" })  -- the memory schedule would create out last
    local o0, o1 = res(g, "out", 0), res(g, "out", 1)
    assert.are.same({ 0, 3 }, { o0.first, o0.stop })
    assert.are.same({ 3, 0 }, { o1.first, o1.stop })
    local x0 = res(g, "x", 0)
    assert.is_true(x0.offset >= o0.offset + o0.bytes or o0.offset >= x0.offset + x0.bytes,
      "x must not share memory with the live output")
  end)

  it("extends a copy with history into the next frame (odd copy wraps)", function()
    local g = g3()
    local t0, t1 = res(g, "t", 0), res(g, "t", 1)
    assert.is_true(t0.history)
    assert.are.same({ 0, 5 }, { t0.first, t0.stop })  -- [first, |V| + lastH + 1) = [0, 3 + 1 + 1)
    assert.are.same({ 3, 2 }, { t1.first, t1.stop })  -- [|V| + first, lastH + 1) wraps
    -- the history reader in frame 1 reads the even copy
    local b = g:instances()[2]
    for _, u in ipairs(b.uses) do
      if u.access == "history" then assert.are.same({ t1.id, t0.id }, u.resource) end
    end
  end)

  it("tracks blobs but does not pack them", function()
    local g = fg.compile(P({
      { name = "a", create = { cam = { blob = { size = 64 } }, out = T } },
      { name = "b", read = { cam = "none" }, modify = { out = "storage" } },
    }))
    local cam = res(g, "cam")
    assert.are.equal("blob", cam.kind)
    assert.is_nil(cam.heap)
    assert.is_nil(cam.offset)
    assert.are.same({ 0, 2 }, { cam.first, cam.stop })
    assert.are.equal(2 * 64 * 64 * 4, g:stats().naive_bytes)
  end)
end)

describe("memory plan", function()
  local function chain(n)
    local nodes = { { name = "n0", create = { r0 = T } } }
    for i = 1, n do
      nodes[#nodes + 1] = { name = "n" .. i, read = { "r" .. (i - 1) },
                            create = { ["r" .. i] = { format = "rgba8_unorm", size = { 64 + i, 64 } } } }
    end
    nodes[#nodes + 1] = { name = "last", read = { "r" .. n }, create = { out = T } }
    return P(nodes)
  end

  local function check_valid(g, granularity)
    local stats = g:stats()
    for h = 1, #stats.heaps do
      local items, offsets = {}, {}
      for _, r in ipairs(g:resources()) do
        if r.heap == h then
          items[#items + 1] = { start = r.first, stop = r.stop, size = r.bytes, align = r.alignment,
                                kind = r.kind == "buffer" and 0 or 1 }
          offsets[#offsets + 1] = r.offset
        end
      end
      local ok, msg = fg.check_packing(items, offsets, { period = stats.period, granularity = granularity })
      assert.is_true(ok, msg)
    end
  end

  it("aliases a chain so the heap is far below the naive sum", function()
    require("framegraph.assertions")
    local g = fg.compile(chain(12))
    local s = g:stats()
    assert.is_true(s.heap_bytes < s.naive_bytes)
    assert.is_true(s.load_bytes <= s.heap_bytes)
    assert.saves_memory(g, 0.5)
    assert.near_optimal(g, 1.5)
    assert.heap_at_most(g, s.naive_bytes)
    assert.has_error(function() assert.heap_at_most(g, 1) end)
    check_valid(g, 1)
  end)

  it("proves optimal a plan whose history copies outweigh LOAD", function()
    -- each history copy lives a frame and one step, so every two of them
    -- meet: the copies can never share memory, and their sum (above LOAD)
    -- is what the best packer must reach and prove
    local nodes, copies = {}, 0
    for i = 1, 34 do
      local h, tmp = "h" .. i, "t" .. i
      local hd = { format = "rgba8_unorm", size = { 32 + i, 32 }, history = "clear" }
      nodes[#nodes + 1] = { name = "n" .. i, history = { [h] = "sampled" },
                            read = i > 1 and { "t" .. (i - 1) } or nil,
                            create = { [h] = hd, [tmp] = { format = "r8_unorm", size = { 16, 16 } } } }
      copies = copies + 2 * (32 + i) * 32 * 4
    end
    nodes[#nodes + 1] = { name = "last", read = { "t34" }, create = { out = { format = "r8_unorm", size = { 8, 8 } } } }
    local g = fg.compile(P(nodes))
    local s = g:stats()
    assert.are.equal(1, #s.heaps)
    assert.is_true(s.load_bytes < copies)
    assert.is_true(s.heap_bytes >= copies)
    assert.is_true(s.heaps[1].optimal) -- above LOAD, yet proved
    assert.is_false(fg.compile(P(nodes), { solver = "scanline" }):stats().heaps[1].optimal)
    check_valid(g, 1)
  end)

  it("never aliases with the none solver (heap = naive)", function()
    local g = fg.compile(chain(6), { solver = "none" })
    local s = g:stats()
    assert.are.equal(s.naive_bytes, s.heap_bytes)
    check_valid(g, 1)
    require("framegraph.assertions")
    local ok, err = pcall(assert.saves_memory, g, 0.1)
    assert.is_false(ok)
    local mib = function(b) return ("%.2f MiB"):format(b / 1048576) end
    local size = function(b) return ("%.2f MiB (%d bytes)"):format(b / 1048576, b) end
    -- in MiB, naming the peak slot and what is live there, without "(string)" noise
    assert.truthy(tostring(err):find("Expected the memory plan to save at least 10.0%: heap " .. size(s.heap_bytes)
                                     .. " vs " .. size(s.naive_bytes) .. " without aliasing (saves 0.0%); peak ", 1, true))
    assert.matches("live at slot %d+ %([^,]+, frame %d%): [%w_]+ f%d", tostring(err))
    ok, err = pcall(assert.near_optimal, g, 1.05)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("makespan/LOAD = " .. mib(s.heap_bytes) .. "/" .. mib(s.load_bytes), 1, true))
  end)

  it("applies the nvidia profile: 1024 alignment and granularity", function()
    local g = fg.compile(P({
      { name = "a", create = { buf = { buffer = 100 }, img = { format = "r8_unorm", size = { 3, 3 } } } },
      { name = "b", read = { buf = "uniform", img = "sampled" }, create = { out = T } },
    }), { profile = "nvidia" })
    for _, r in ipairs(g:resources()) do
      if r.kind == "texture" then
        assert.are.equal(0, r.offset % 1024)
        assert.are.equal(0, r.bytes % 1024)
      end
    end
    check_valid(g, 1024)
    local lav = fg.compile(P({
      { name = "a", create = { img = { format = "r8_unorm", size = { 3, 3 } } } },
      { name = "b", read = { "img" }, create = { out = T } },
    }))
    assert.are.equal(16, res(lav, "img").bytes)  -- 9 texels, aligned to 16
  end)

  it("accepts a profile table", function()
    local g = fg.compile(chain(3), { profile = { alignment = 4096, granularity = 4096 } })
    for _, r in ipairs(g:resources()) do assert.are.equal(0, r.offset % 4096) end
  end)
end)

describe("introspection", function()
  it("returns uses, passes with clear values and default stages", function()
    local g = fg.compile(P({
      { name = "a", create = { out = T, d = { format = "d32_sfloat", size = "main" } },
        pass = { color = { { "out", clear = { 1, 0, 0, 1 } } }, depth = { "d", clear = 1.0 } } },
    }))
    local inst = g:instances()[1]
    assert.are.equal("a", inst.name)
    assert.are.same({ 1, 0, 0, 1 }, inst.pass.color[1].clear)
    assert.are.equal("out", inst.pass.color[1].name)
    assert.are.equal(1.0, inst.pass.depth.clear)
    local by = {}
    for _, u in ipairs(inst.uses) do by[u.name] = u end
    assert.are.equal("color", by.out.usage)
    assert.are.equal("color_output", by.out.stage)
    assert.are.equal("depth", by.d.usage)
    assert.are.equal("fragment_tests", by.d.stage)
  end)

  it("draws dot and svg", function()
    local g = fg.compile(dofile("examples/deferred.lua"))
    local dot = g:dot()
    assert.truthy(dot:find('"gbuffer" -> "lighting";', 1, true))
    assert.truthy(dot:find("culled", 1, true))
    local svg = g:svg()
    assert.truthy(svg:find("^<svg"))
    assert.truthy(svg:find("heap 1:", 1, true))
  end)

  it("compiles the deferred example with the expected states", function()
    local g = fg.compile(dofile("examples/deferred.lua"))
    assert.are.equal("culled", node(g, "debug_normals").state)
    assert.are.equal("broken", node(g, "lens_dirt").state)
    assert.are.same({ "upload", "shadows", "gbuffer", "ssao", "lighting", "transparent",
                      "bloom_down1", "bloom_down2", "bloom_down3", "bloom_down4", "bloom_down5", "bloom_down6",
                      "bloom_up5", "bloom_up4", "bloom_up3", "bloom_up2", "bloom_up1", "tonemap" },
                    g:order())
  end)
end)

describe("external resources", function()
  it("are used like others but never packed, and keep their provider reachable", function()
    local provided = function(index) return "swapchain image" end
    local g = fg.compile({
      resolutions = { main = { 320, 200 } },
      outputs = { "backbuffer" },
      external = { backbuffer = { format = "bgra8_unorm", size = "main", provide = provided } },
      nodes = {
        { name = "draw", create = { color = { format = "rgba8_unorm", size = "main" } } },
        { name = "present", read = { "color" }, modify = { backbuffer = "transfer_dst" } },
        { name = "unused", read = { "backbuffer" }, create = { junk = { buffer = 16 } } },
      },
    })
    assert.are.same({ "draw", "present" }, g:order())
    assert.are.equal("culled", node(g, "unused").state)
    local bb = res(g, "backbuffer")
    assert.are.equal("external", bb.kind)
    assert.are.same({ 320, 200 }, { bb.width, bb.height })
    assert.is_nil(bb.heap)
    assert.is_true(bb.output)
    assert.are.equal(provided, g:pipeline().external.backbuffer.provide)
    assert.are.equal(2 * 320 * 200 * 4, g:stats().naive_bytes)
  end)
end)

describe("graph userdata", function()
  it("closes idempotently and refuses use after close", function()
    local g = fg.compile(P({ { name = "a", create = { out = T } } }))
    assert.matches("framegraph.graph %(1 instances", tostring(g))
    g:close()
    g:close()
    assert.has_error(function() g:order() end, "calling 'order' on bad self (graph is closed)")
    do
      local g2 <close> = fg.compile(P({ { name = "a", create = { out = T } } }))
      assert.are.equal(1, #g2:order())
    end
  end)
end)

describe("read-only depth attachments", function()
  it("accept a depth attachment that the node only reads, as depth_read", function()
    local g = fg.compile(P({
      { name = "z", create = { d = { format = "d32_sfloat", size = "main" } }, pass = { depth = "d" } },
      { name = "decals", read = { "d" }, create = { out = T }, pass = { color = { "out" }, depth = "d" } },
    }))
    local by = {}
    for _, u in ipairs(g:instances()[2].uses) do by[u.name] = u end
    assert.are.equal("depth_read", by.d.usage)
    assert.are.equal("d", g:instances()[2].pass.depth.name)
    local ok, err = pcall(fg.compile, P({
      { name = "z", create = { c = T } },
      { name = "x", read = { "c" }, create = { out = T }, pass = { color = { "out", "c" } } },
    }))
    assert.is_false(ok)
    assert.are.equal("node 'x': pass color 'c': the node must create, modify or rename it", err)
  end)
end)

describe("usage and stage defaults", function()
  it("derive from the resource kind and whether the node has a pass", function()
    local g = fg.compile(P({
      { name = "a", create = { blob = { blob = true }, buf = { buffer = 256 }, tex = T } },
      { name = "compute", read = { "blob", "buf", "tex" }, create = { out = T } },
      { name = "raster", read = { "tex", buf = { usage = "vertex" } }, modify = { out = "color" },
        pass = { color = { "out" } } },
    }))
    local function uses(i)
      local by = {}
      for _, u in ipairs(g:instances()[i].uses) do by[u.name] = u.usage .. "@" .. u.stage end
      return by
    end
    assert.are.same({ blob = "none@host", buf = "storage@compute", tex = "sampled@compute", out = "storage@compute" },
                    uses(2))
    assert.are.same({ tex = "sampled@fragment", buf = "vertex@vertex_input", out = "color@color_output" }, uses(3))
    assert.are.same({ blob = "none@host", buf = "storage@compute", tex = "storage@compute" }, uses(1))
  end)
end)
