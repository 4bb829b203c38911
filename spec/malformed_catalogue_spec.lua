-- The malformed-input catalogue (docs/RELIABILITY.md): half-edited pipelines
-- and bad calls, each answered by an error that says what is wrong, where
-- (node, resource, field, option) and how to fix it; never a crash. Every
-- pipeline case goes three ways: fg.compile raises, graph:update raises and
-- leaves the compiled graph as it was, rt:reload returns nil, err and the
-- runtime keeps rendering the previous pipeline.
local fg = require("framegraph")

local RED = string.rep("\255\0\0\255", 8 * 8)

-- The good pipeline every case starts from: one 8x8 texture cleared red.
local function base()
  return {
    resolutions = { main = { 8, 8 } },
    outputs = { "out" },
    nodes = {
      { name = "a", create = { out = { format = "rgba8_unorm", size = "main", usage = "transfer_dst" } },
        run = function(cmd) cmd:clear("out", { 1, 0, 0, 1 }) end },
    },
  }
end
local function tex(size) return { format = "rgba8_unorm", size = size or "main" } end
-- base() with node a's create entry `out` replaced by d
local function with_out(d) local p = base(); p.nodes[1].create.out = d; return p end
-- base() plus extra nodes
local function plus(...) local p = base(); for _, n in ipairs({ ... }) do p.nodes[#p.nodes + 1] = n end; return p end
-- base() with field k of node a set to v
local function node_a(k, v) local p = base(); p.nodes[1][k] = v; return p end
-- base() with pipeline field k set to v
local function top(k, v) local p = base(); p[k] = v; return p end

-- { name, pipeline, substrings the message must contain (where, then what/fix) }
local cases = {
  { "pipeline not a table", 42, { "pipeline: expected a table" } },
  { "unknown pipeline field", top("nodez", {}), { "pipeline: unknown field 'nodez'", "expected one of" } },
  { "nodes not a table", top("nodes", "a"), { "pipeline: nodes must be a list" } },
  { "nodes a map", top("nodes", { x = { name = "a" } }), { "nodes must be a list (array)" } },
  { "pipeline name a number", top("name", 3), { "pipeline: name must be a string" } },
  { "dimension count zero", top("dimensions", { eye = 0 }), { "dimensions: 'eye'", "positive integer count" } },
  { "dimension count too big", top("dimensions", { eye = 70000 }), { "dimensions: 'eye'", "at most 65536" } },
  { "dimension name with NUL", top("dimensions", { ["e\0ye"] = 2 }), { "dimensions", "NUL byte", "remove it" } },
  { "resolution of zero", top("resolutions", { main = { 0, 8 } }), { "resolutions: 'main'", "positive integers" } },
  { "resolution 2^20 per side", top("resolutions", { main = { 1 << 20, 1 << 20 } }),
    { "resolutions: 'main' = {1048576, 1048576}", "over 65536 per side", "lower it" } },
  { "resolution given as a string", top("resolutions", { main = "1080p" }), { "resolutions: 'main'", "{width, height}" } },
  { "outputs a number", top("outputs", 5), { "outputs: expected a resource name or a list" } },
  { "outputs a string", top("outputs", "out"), { "outputs: expected a list of resource names", "outputs = { \"out\" }" } },
  { "output nobody makes", top("outputs", { "out", "fnal" }), { "outputs: no node creates 'fnal'" } },
  { "output name with NUL", top("outputs", { "o\0ut" }), { "outputs[1]", "NUL byte" } },
  { "external not a table", top("external", 3), { "external must be a table" } },
  { "external unknown format", top("external", { bb = { format = "rgb8", size = "main" } }),
    { "external 'bb': unknown format 'rgb8'", "expected one of" } },
  { "external provide not a function", top("external", { bb = { format = "rgba8_unorm", size = "main", provide = 1 } }),
    { "external 'bb': provide must be a function" } },
  { "external also created", plus({ name = "b", create = { bb = tex() }, side_effects = true }),
    nil },  -- filled below (needs the external too)
  { "node not a table", plus("b"), { "nodes[2]: expected a node table" } },
  { "node without a name", plus({ create = { x = tex() } }), { "nodes[2]: missing name" } },
  { "node name with NUL", plus({ name = "b\0", side_effects = true }), { "nodes[2]", "NUL byte" } },
  { "node declared twice", plus({ name = "a", side_effects = true }), { "node 'a' is declared twice", "must be unique" } },
  { "misspelt node field", node_a("craete", {}), { "node 'a': unknown field 'craete'", "expected one of" } },
  { "multiplex unknown dimension", node_a("multiplex", { "eye" }), { "node 'a': multiplex: unknown dimension 'eye'" } },
  { "multiplex not a list", node_a("multiplex", "eye"), { "node 'a': multiplex must be a list" } },
  { "after an unknown node", node_a("after", { "upload" }), { "node 'a': after 'upload': no node named 'upload'" } },
  { "before a number", node_a("before", 3), { "node 'a': before: expected a node name" } },
  { "create not a table", node_a("create", "out"), { "node 'a': create must be a table" } },
  { "create entry not a table", with_out("rgba8"), { "node 'a': create 'out': expected a table" } },
  { "create of no kind", with_out({ size = "main" }), { "node 'a': create 'out': say what it is" } },
  { "format and buffer", with_out({ format = "rgba8_unorm", size = "main", buffer = 64 }),
    { "node 'a': create 'out': format, buffer and blob are exclusive" } },
  { "unknown format", with_out({ format = "rgba8", size = "main" }), { "node 'a': create 'out': unknown format 'rgba8'", "expected one of" } },
  { "texture without size", with_out({ format = "rgba8_unorm" }), { "node 'a': create 'out': missing size" } },
  { "size a boolean", with_out({ format = "rgba8_unorm", size = true }), { "node 'a': create 'out': size must be" } },
  { "size zero wide", with_out({ format = "rgba8_unorm", size = { 0, 8 } }), { "node 'a': create 'out'", "got {0, 8}" } },
  { "size 1<<40 wide", with_out({ format = "rgba8_unorm", size = { 1 << 40, 1 } }),
    { "node 'a': create 'out': size {1099511627776, 1}", "over 65536 per side", "lower it" } },
  { "size 2^40 (a float)", with_out({ format = "rgba8_unorm", size = { 2 ^ 40, 1 } }),
    { "node 'a': create 'out'", "positive integers, got {1099511627776.0, 1}" } },
  { "negative scale", with_out({ format = "rgba8_unorm", size = { "main", -1 } }),
    { "node 'a': create 'out': size scale must be a positive finite number, got -1" } },
  { "scale past any device", with_out({ format = "rgba8_unorm", size = { "main", 100000 } }),
    { "resource 'out': extent 800000x800000", "over 65536", "lower resolution 'main'" } },
  { "unknown resolution", with_out({ format = "rgba8_unorm", size = "half" }),
    { "node 'a': create 'out': unknown resolution 'half'", "declared resolutions: main" } },
  { "buffer negative", with_out({ buffer = -4 }), { "node 'a': create 'out': buffer must be a positive integer", "got -4" } },
  { "buffer over 1 TiB", with_out({ buffer = 1 << 41 }), { "resource 'out': buffer of 2199023255552 bytes", "over the limit", "smaller buffer" } },
  { "mips zero", with_out({ format = "rgba8_unorm", size = "main", mips = 0 }), { "node 'a': create 'out': mips must be a positive integer" } },
  { "layers making 2^64 bytes", (function()
      local p = with_out({ format = "rgba32_sfloat", size = "main", layers = 1 << 30 }); p.resolutions.main = { 65536, 65536 }; return p end)(),
    { "resource 'out'", "more than 2^64 bytes", "lower resolution 'main'", "mips/layers/depth" } },
  { "mips past any texture", with_out({ format = "rgba8_unorm", size = "main", mips = 1 << 30 }),
    { "resource 'out': 1073741824 mips, but no texture has more than 32", "(a 8x8 one has at most 4); lower mips" } },
  { "history policy unknown", with_out({ format = "rgba8_unorm", size = "main", history = "keep" }),
    { "node 'a': create 'out': history must be \"clear\" or \"discard\"" } },
  { "create usage unknown", with_out({ format = "rgba8_unorm", size = "main", usage = "render" }),
    { "node 'a': create 'out': unknown usage 'render'", "expected one of" } },
  { "create stage unknown", with_out({ format = "rgba8_unorm", size = "main", stage = "pixel" }),
    { "node 'a': create 'out': unknown stage 'pixel'", "expected one of" } },
  { "read not a table", plus({ name = "b", read = "out", side_effects = true }), { "node 'b': read must be a table" } },
  { "read entry a number", plus({ name = "b", read = { 7 }, side_effects = true }), { "node 'b': read[1]: expected a resource name" } },
  { "read usage misspelt", plus({ name = "b", read = { out = "sampeld" }, side_effects = true }),
    { "node 'b': read 'out': unknown usage 'sampeld'" } },
  { "optional on modify", plus({ name = "b", modify = { out = { usage = "storage", optional = true } } }),
    { "node 'b': modify 'out': optional is only allowed on read and history" } },
  { "optional not a boolean", plus({ name = "b", read = { out = { optional = "yes" } }, side_effects = true }),
    { "node 'b': read 'out': optional must be a boolean" } },
  { "rename to itself", plus({ name = "b", rename = { out = "out" } }), { "node 'b': rename 'out': renaming to the same name", "use modify" } },
  { "rename without to", plus({ name = "b", rename = { out = { usage = "storage" } } }), { "node 'b': rename 'out': missing the new name" } },
  { "pass not a table", node_a("pass", "out"), { "node 'a': pass must be a table" } },
  { "pass attachment not written", node_a("pass", { color = { "other" } }),
    { "node 'a': pass color 'other': the node must create, modify or rename it" } },
  { "depth clear not a number", node_a("pass", { depth = { "out", clear = "far" } }), { "node 'a': pass depth: depth clear must be a number" } },
  { "color clear too short", node_a("pass", { color = { { "out", clear = { 1 } } } }), { "node 'a': pass color[1]: color clear must be {r, g, b, a}" } },
  { "pass attachments of two sizes", (function()
      local p = base()
      p.nodes[1].create.d = { format = "d32_sfloat", size = { "main", 0.5 } }
      p.nodes[1].create.out.usage = nil
      p.nodes[1].pass = { color = { "out" }, depth = "d" }
      return p end)(),
    { "node 'a': pass attachments differ in size: 'out' is 8x8 but 'd' is 4x4", "same size" } },
  { "attachment declared for transfers", (function()
      local p = base(); p.nodes[1].pass = { depth = "out" }
      p.nodes[1].create.out = { format = "d32_sfloat", size = "main", usage = "transfer_dst" }
      return p end)(),
    { "node 'a': pass depth 'out' is declared with usage 'transfer_dst'", "leave usage out or write \"depth\"" } },
  { "depth attachment of a color format", (function()
      local p = base(); p.nodes[1].pass = { depth = "out" }; p.nodes[1].create.out.usage = nil
      return p end)(),
    { "node 'a': pass depth 'out' has format rgba8_unorm, which is not a depth/stencil format", "d32_sfloat" } },
  { "node name NaN", plus({ name = 0 / 0, side_effects = true }), { "nodes[2]: missing name" } },
  { "attachment with a stray field", node_a("pass", { color = { { "out", mips = 2 } } }),
    { "node 'a': pass color[1]: unknown field 'mips'", "an attachment is {name, clear = ...}" } },
  { "resolution with a stray field", (function() local p = base(); p.resolutions.main.mips = 2; return p end)(),
    { "resolutions: 'main' must be {width, height [, window = true]}, nothing else (found key 'mips')" } },
  { "side_effects a string", node_a("side_effects", "yes"), { "node 'a': side_effects must be a boolean" } },
  { "run a string", node_a("run", "clear"), { "node 'a': run must be a function" } },
  { "two creators", plus({ name = "b", create = { out = tex() } }), { "resource 'out' is created by both 'a' and 'b'", "use modify" } },
  { "creates and reads", plus({ name = "b", create = { x = tex() }, read = { "x" }, side_effects = true }),
    { "node 'b': creates and reads 'x'", "readable without a read" } },
  { "reads and modifies", plus({ name = "b", read = { "out" }, modify = { out = "storage" } }),
    { "node 'b': reads and modifies 'out'", "declare it once" } },
  { "two renamers", plus({ name = "b", rename = { out = "o2" } }, { name = "c", rename = { out = "o3" } }),
    { "resource 'out' is renamed by both 'b' and 'c'", "only one node may rename" } },
  { "cycle through after/before", plus({ name = "b", read = { "out" }, before = { "a" }, side_effects = true }),
    { "cycle: ", "a", "b" } },
  { "history of a renamed resource", plus({ name = "b", rename = { out = "o2" } }, { name = "c", history = { out = "sampled" }, side_effects = true }),
    { "node 'c': history 'out': cannot read the history of a renamed resource" } },
  { "output only from a broken node", (function()
      local p = base(); p.nodes[1].read = { "camera" }; return p end)(),
    { "node 'a': read 'camera': no node creates 'camera'", "make the read optional",
      "\n  outputs: 'out' is never produced (its producer 'a' is broken)" } },
  { "wider multiplex mode", (function()
      local p = plus({ name = "b", read = { "x" }, side_effects = true })
      p.dimensions = { eye = 2 }
      p.nodes[1].multiplex = { "eye" }; p.nodes[1].create.x = tex()
      return p end)(),
    { "node 'b': read 'x': the resource has multiplex mode {eye}, wider than the node's {}" } },
  { "resource name with NUL", plus({ name = "b", read = { "o\0ut" }, side_effects = true }), { "node 'b'", "NUL byte" } },
  -- numbers: NaN and infinity fail every comparison, so each check says "finite" or a range
  { "NaN scale", with_out({ format = "rgba8_unorm", size = { "main", 0 / 0 } }),
    { "node 'a': create 'out': size scale must be a positive finite number" } },
  { "infinite scale", with_out({ format = "rgba8_unorm", size = { "main", 1, math.huge } }),
    { "node 'a': create 'out': size scale must be a positive finite number, got inf" } },
  { "blob size negative", plus({ name = "b", create = { bl = { blob = { size = -16 } } }, side_effects = true }),
    { "node 'b': create 'bl': blob size must be an integer number of bytes from 0", "got -16" } },
  { "blob size NaN", plus({ name = "b", create = { bl = { blob = { size = 0 / 0 } } }, side_effects = true }),
    { "node 'b': create 'bl': blob size must be an integer" } },
  { "blob size 2^60", plus({ name = "b", create = { bl = { blob = { size = 1 << 60 } } }, side_effects = true }),
    { "node 'b': create 'bl': blob size", "(1 TiB), got 1152921504606846976" } },
  { "blob size 2^60 as a float", plus({ name = "b", create = { bl = { blob = { size = 2 ^ 60 } } }, side_effects = true }),
    { "node 'b': create 'bl': blob size" } },
  { "blob field misspelt", plus({ name = "b", create = { bl = { blob = { sise = 16 } } }, side_effects = true }),
    { "node 'b': create 'bl': blob: unknown field 'sise'", "expected one of size" } },
  { "depth clear NaN", node_a("pass", { depth = { "out", clear = 0 / 0 } }),
    { "node 'a': pass depth: depth clear must be a number from 0 to 1" } },
  { "depth clear past 1", node_a("pass", { depth = { "out", clear = 2 } }),
    { "node 'a': pass depth: depth clear must be a number from 0 to 1", "got 2" } },
  { "color clear infinite", node_a("pass", { color = { { "out", clear = { 1, math.huge, 0, 1 } } } }),
    { "node 'a': pass color[1]: color clear component 2 must be a finite number, got inf" } },
  { "color clear past float", node_a("pass", { color = { { "out", clear = { 1, 0, 1e39, 1 } } } }),
    { "node 'a': pass color[1]: color clear component 3 must be a finite number" } },
  { "stencil clear 300", node_a("pass", { depth = { "out", stencil = 300 } }),
    { "node 'a': pass depth: stencil clear must be an integer from 0 to 255, got 300" } },
  { "external buffer negative", top("external", { eb = { buffer = -8 } }),
    { "external 'eb': buffer must be a positive integer number of bytes, got -8" } },
  -- names: a node after itself, a dimension named twice, NUL in the pipeline's name
  { "after itself", node_a("after", { "a" }), { "node 'a': after 'a': a node cannot run after itself, remove it" } },
  { "before itself", node_a("before", "a"), { "node 'a': before 'a': a node cannot run before itself, remove it" } },
  { "multiplex names a dimension twice", (function()
      local p = node_a("multiplex", { "eye", "eye" }); p.dimensions = { eye = 2 }; return p end)(),
    { "node 'a': multiplex: dimension 'eye' is listed twice, list it once" } },
  { "external multiplex twice", (function()
      local p = top("external", { bb = { format = "rgba8_unorm", size = "main", multiplex = { "eye", "eye" } } })
      p.dimensions = { eye = 2 }; return p end)(),
    { "external 'bb': multiplex: dimension 'eye' is listed twice" } },
  { "pipeline name with NUL", top("name", "fo\0rward"), { "pipeline: pipeline name 'fo\\0rward' contains a NUL byte" } },
}
-- an external that a node also creates
for _, c in ipairs(cases) do
  if c[1] == "external also created" then
    c[2].external = { bb = { format = "rgba8_unorm", size = "main" } }
    c[3] = { "resource 'bb' is declared external but node 'b' also creates it" }
  end
end

local function snapshot(g)
  local rs = {}
  for _, r in ipairs(g:resources()) do rs[#rs + 1] = table.concat({ r.name, r.frame, r.bytes, r.offset }, ":") end
  return { order = g:order(), resources = rs, heap = g:stats().heap_bytes }
end

local function check_message(err, want, what)
  assert.is_string(err, what .. ": no message")
  for _, w in ipairs(want) do
    assert.is_truthy(err:find(w, 1, true), what .. ": expected '" .. w .. "' in:\n" .. err)
  end
end

describe("malformed input catalogue", function()
  it("has at least 60 distinct pipeline cases", function()
    local names = {}
    for _, c in ipairs(cases) do
      assert.is_nil(names[c[1]], "duplicate case " .. c[1]); names[c[1]] = true
      assert.is_table(c[3], c[1])
    end
    assert.is_true(#cases >= 60, #cases .. " cases")
  end)

  for _, c in ipairs(cases) do
    it("fg.compile and graph:update refuse: " .. c[1], function()
      local ok, err = pcall(fg.compile, c[2])
      assert.is_false(ok, c[1] .. " compiled")
      check_message(err, c[3], c[1])
      -- graph:update leaves the compiled graph as it was
      local g = fg.compile(base())
      local before = snapshot(g)
      local ok2, err2 = pcall(g.update, g, c[2])
      assert.is_false(ok2, c[1] .. ": update accepted it")
      -- a non-table is a misuse of the method: its argument error says so
      check_message(err2, type(c[2]) == "table" and c[3] or { "bad argument #1 to 'update' (pipeline table expected)" },
                    c[1] .. " (update)")
      assert.are.same(before, snapshot(g))
      g:close()
    end)
  end

  describe("on a device", function()
    local dev, rt
    setup(function()
      dev = fg.vulkan{ validation = true, prefer = "software" }
      rt = assert(fg.runtime(dev, base(), {}))
      rt:frame()
    end)
    teardown(function() rt:close(); dev:close() end)
    after_each(function() assert.are.same({}, dev:messages()) end)

    it("rt:reload keeps rendering the previous pipeline after every catalogue case", function()
      for _, c in ipairs(cases) do
        if type(c[2]) == "table" then
          local ok, err = rt:reload(c[2])
          assert.is_nil(ok, c[1] .. ": reload accepted it")
          check_message(err, c[3], c[1] .. " (reload)")
        else
          local ok, err = pcall(rt.reload, rt, c[2])
          assert.is_false(ok)
          check_message(err, { "bad argument #1 to 'reload' (pipeline table or file path expected" }, c[1])
        end
        rt:frame()
        assert.are.equal(RED, rt:read("out"), c[1] .. ": the previous pipeline stopped")
      end
    end)
  end)
end)

-- Bad calls: wrong options, arguments and commands.
describe("malformed calls", function()
  local function refuses(want, f, ...)
    local ok, err = pcall(f, ...)
    assert.is_false(ok, "accepted")
    check_message(err, want, want[1])
  end

  it("compile options", function()
    refuses({ "opts.time_budget_ms" }, fg.compile, base(), { time_budget_ms = "fast" })
    refuses({ "opts.time_budget_ms" }, fg.compile, base(), { time_budget_ms = -5 })
    refuses({ "opts.solver", "quantum" }, fg.compile, base(), { solver = "quantum" })
    refuses({ "opts: unknown field 'bogus'" }, fg.compile, base(), { bogus = 1 })
    refuses({ "opts.profile" }, fg.compile, base(), { profile = { alignment = 3 } })
    refuses({ "opts.dimensions" }, fg.compile, base(), { dimensions = { eye = -1 } })
    -- a misspelt key would leave the default alignment in place, silently
    refuses({ "opts.profile: unknown field 'alignmnet'", "expected one of alignment, granularity" }, fg.compile, base(),
            { profile = { alignmnet = 256 } })
    refuses({ "opts.profile: unknown field 'granularty'" }, fg.compile, base(), { profile = { granularty = 1024 } })
    refuses({ "opts.profile.alignment must be a power of two up to 1073741824" }, fg.compile, base(),
            { profile = { alignment = 1 << 40 } })
    refuses({ "opts.profile.granularity must be a power of two" }, fg.compile, base(), { profile = { granularity = 0 / 0 } })
    refuses({ "opts.profile: unknown profile 'nvidia\\0'", "NUL byte" }, fg.compile, base(), { profile = "nvidia\0" })
    refuses({ "opts.solver: unknown solver 'best\\0x'", "NUL byte" }, fg.compile, base(), { solver = "best\0x" })
    refuses({ "opts.schedule", "'memory\\0'" }, fg.compile, base(), { schedule = "memory\0" })
    refuses({ "opts.time_budget_ms" }, fg.compile, base(), { time_budget_ms = 0 / 0 })
    refuses({ "opts.dimensions", "'eye'" }, fg.compile, base(), { dimensions = { eye = 0 / 0 } })
    refuses({ "opts.resolutions", "'main'" }, fg.compile, base(), { resolutions = { main = { 0 / 0, 8 } } })
    -- the same through graph:update keeps the graph
    local g = fg.compile(base())
    local before = snapshot(g)
    refuses({ "opts.profile: unknown field 'alignmnet'" }, fg.compile, base(), { profile = { alignmnet = 256 } })
    assert.are.same(before, snapshot(g))
    g:close()
  end)

  it("graph methods", function()
    local g = fg.compile(base())
    refuses({ "unknown resolution 'nope'" }, g.set_resolution, g, "nope", 8, 8)
    refuses({ "width must be a positive integer" }, g.set_resolution, g, "main", 0, 8)
    refuses({ "resource 'out': extent 65537x8", "over 65536", "lower resolution 'main'" }, g.set_resolution, g, "main", 65537, 8)
    refuses({ "unknown dimension 'eye'" }, g.set_dimension, g, "eye", 2)
    -- "main\0x" would read as "main" in C and resize another resolution than the one named
    local before = snapshot(g)
    refuses({ "NUL byte" }, function() return g:set_resolution("main\0x", 16, 16) end)
    refuses({ "NUL byte" }, function() return g:set_dimension("eye\0", 2) end)
    refuses({ "number has no integer representation" }, function() return g:set_resolution("main", 0 / 0, 8) end)
    assert.are.same(before, snapshot(g))
    g:close()
  end)

  it("fg.pack items", function()
    refuses({ "size" }, fg.pack, { { start = 0, stop = 1, size = -1 } }, {})
    refuses({ "opts.solver" }, fg.pack, { { start = 0, stop = 1, size = 4 } }, { solver = "x" })
    refuses({ "item 1: field 'kind' must be an integer from 0 to 1" }, fg.pack, { { start = 0, stop = 1, size = 4, kind = 2 } })
    refuses({ "item 1: field 'group' must be an integer from 0 to 4294967295" }, fg.pack,
            { { start = 0, stop = 1, size = 4, group = 1 << 40 } })
    refuses({ "item 1: field 'size'" }, fg.pack, { { start = 0, stop = 1, size = 0 / 0 } })
    refuses({ "opts.period" }, fg.check_packing, { { start = 0, stop = 1, size = 4 } }, { 0 }, { period = 0 / 0 })
    -- a __len that claims any count is not believed: a list with a
    -- metatable is refused (its raw length would read a proxy as empty)
    local liar = setmetatable({}, { __len = function() return 1 << 62 end })
    refuses({ "items: got a table with a metatable" }, fg.pack_load, liar)
  end)

  it("fg.pack_load never wraps", function()
    local big = { start = 0, stop = 1, size = 1 << 62 }
    refuses({ "past 2^63 - 1 bytes" }, fg.pack_load, { big, big })
    refuses({ "past 2^63 - 1 bytes" }, fg.pack_load, { big, big, big, big })
    assert.are.equal(3 << 60, fg.pack_load({ { start = 0, stop = 1, size = 1 << 61 }, { start = 0, stop = 1, size = 1 << 60 } }))
    refuses({ "past 2^62 bytes" }, fg.pack, { big, big })
  end)

  it("fg.allocator", function()
    refuses({ "tlsf" }, fg.allocator, "nope", 1024)
  end)

  describe("runtime", function()
    local dev
    setup(function() dev = fg.vulkan{ validation = true, prefer = "software" } end)
    teardown(function() dev:close() end)
    after_each(function() assert.are.same({}, dev:messages()) end)

    it("runtime options", function()
      refuses({ "opts.memory_budget" }, fg.runtime, dev, base(), { memory_budget = "lots" })
      refuses({ "opts.upload_bytes" }, fg.runtime, dev, base(), { upload_bytes = 3 })
      local rt, err = fg.runtime(dev, base(), { memory_budget = 100 })
      assert.is_nil(rt)
      check_message(err, { "memory_budget: the plan needs", "over the budget of 100 bytes", "raise opts.memory_budget" }, "budget")
    end)

    it("rt calls and reload of a missing file", function()
      local rt = assert(fg.runtime(dev, base(), {}))
      rt:frame()
      local ok, err = rt:reload("/nonexistent/pipeline.lua")
      assert.is_nil(ok)
      check_message(err, { "/nonexistent/pipeline.lua" }, "missing file")
      refuses({ "no resource named 'nope'", "culled, or a typo?" }, rt.read, rt, "nope")
      refuses({ "width must be in 1..65536" }, rt.set_resolution, rt, "main", 1 << 20, 8)
      rt:frame()
      assert.are.equal(RED, rt:read("out"))
      rt:close()
    end)

    it("commands inside run", function()
      local function run_case(node_run, want, extra)
        local p = base()
        p.nodes[2] = { name = "b", read = { out = "transfer_src" }, create = { t = tex() }, side_effects = true, run = node_run }
        for k, v in pairs(extra or {}) do p.nodes[2][k] = v end
        local rt = assert(fg.runtime(dev, p, {}))
        refuses(want, rt.frame, rt)
        rt:close()
      end
      -- a created texture without a usage is storage: a copy would run in GENERAL
      run_case(function(cmd) cmd:copy("out", "t") end,
               { "node 'b': cmd:copy into texture 't'", "usage = \"transfer_dst\"" })
      run_case(function(cmd) cmd:clear("nope", { 0, 0, 0, 0 }) end, { "node 'b'", "nope" })
      run_case(function(cmd) cmd:copy("t", "out") end, { "node 'b'", "'out'", "create or modify" })
      run_case(function(cmd) cmd:dispatch(nil, {}, 1) end, { "node 'b'" })
    end)
  end)
end)
