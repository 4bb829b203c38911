-- Malformed pipelines: each must fail with exactly this message (every
-- problem named with node, resource and field, and what is expected).
local fg = require("framegraph")
local pipeline = require("support.pipeline")

local cases = (function()
local T, P = pipeline.T, pipeline.P
return {
  { "unknown usage", P({ { name = "a", create = { hdr = T } }, { name = "bloom", read = { hdr = "sampeld" }, create = { out = T } } }) },
  { "not a table", 42 },
  { "nodes missing", { name = "x" } },
  { "node without name", P({ { create = { out = T } } }) },
  { "unknown node field", P({ { name = "a", raed = { "x" }, create = { out = T } } }) },
  { "unknown pipeline field", P({ { name = "a", create = { out = T } } }, { nodez = {} }) },
  { "unknown format", P({ { name = "a", create = { out = { format = "rgba8", size = "main" } } } }) },
  { "missing size", P({ { name = "a", create = { out = { format = "rgba8_unorm" } } } }) },
  { "what is it", P({ { name = "a", create = { out = { size = "main" } } } }) },
  { "buffer zero", P({ { name = "a", create = { out = { buffer = 0 } } } }) },
  { "bad size", P({ { name = "a", create = { out = { format = "r8_unorm", size = { 0, 16 } } } } }) },
  { "unknown stage", P({ { name = "a", create = { x = T } }, { name = "b", read = { x = { usage = "sampled", stage = "pixel" } }, create = { out = T } } }) },
  { "optional on modify", P({ { name = "a", create = { out = T } }, { name = "b", modify = { out = { usage = "storage", optional = true } } } }) },
  { "bad history policy", P({ { name = "a", create = { out = { format = "r8_unorm", size = "main", history = "keep" } } } }) },
  { "side_effects type", P({ { name = "a", side_effects = "yes", create = { out = T } } }) },
  { "run type", P({ { name = "a", run = "f", create = { out = T } } }) },
  { "bad dims", P({ { name = "a", create = { out = T } } }, { dimensions = { eye = 0 } }) },
  { "bad resolution", P({ { name = "a", create = { out = T } } }, { resolutions = { main = { 64 } } }) },
  { "unknown solver", P({ { name = "a", create = { out = T } } }), { solver = "magic" } },
  { "unknown profile", P({ { name = "a", create = { out = T } } }), { profile = "amd" } },
  { "duplicate node", P({ { name = "a", create = { out = T } }, { name = "a", create = { y = T } } }) },
  { "two creators", P({ { name = "a", create = { out = T } }, { name = "b", create = { out = T } } }) },
  { "read and modify", P({ { name = "a", create = { x = T } }, { name = "b", read = { "x" }, modify = { x = "storage" }, create = { out = T } } }) },
  { "history of renamed", P({ { name = "a", create = { x = T } }, { name = "b", rename = { x = "out" } }, { name = "c", history = { x = "sampled" }, side_effects = true } }) },
  { "unknown dimension", P({ { name = "a", multiplex = { "eyes" }, create = { out = T } } }, { dimensions = { eye = 2 } }) },
  { "unknown resolution", P({ { name = "a", create = { out = { format = "r8_unorm", size = "half" } } } }) },
  { "wider mode", P({ { name = "a", multiplex = { "eye" }, create = { x = T } }, { name = "b", read = { "x" }, create = { out = T } } }, { dimensions = { eye = 2 } }) },
  { "incomparable", P({ { name = "a", multiplex = { "eye" }, create = { out = T } }, { name = "b", multiplex = { "tile" }, after = { "a" }, side_effects = true } }, { dimensions = { eye = 2, tile = 2 } }) },
  { "cycle", P({ { name = "a", create = { out = T }, after = { "c" } }, { name = "b", read = { "out" }, side_effects = true }, { name = "c", after = { "b" }, side_effects = true } }) },
  { "after unknown", P({ { name = "a", create = { out = T }, after = { "upload" } } }) },
  { "output unknown", P({ { name = "a", create = { out = T } } }, { outputs = { "out", "fnal" } }) },
  { "pass not written", P({ { name = "a", create = { out = T }, pass = { color = { "other" } } } }) },
  { "two renamers", P({ { name = "a", create = { x = T } }, { name = "b", rename = { x = "y" } }, { name = "c", rename = { x = "z" } , create = { out = T } } }) },
  { "history of external", P({ { name = "a", history = { bb = "sampled" }, create = { out = T } } }, { external = { bb = { format = "bgra8_unorm", size = "main" } } }) },
  { "opts dimension unknown", P({ { name = "a", create = { out = T } } }), { dimensions = { eye = 2 } } },
  { "several", P({ { name = "a", create = { out = { format = "rgba8", size = "main" } }, read = { x = "sampeld" } }, { raed = 1 } }) },
  { "rename to same", P({ { name = "a", create = { out = T } }, { name = "b", rename = { out = "out" } } }) },
  { "creates and reads", P({ { name = "a", create = { out = T }, read = { "out" } } }) },
  -- misspelt names: the typo first, with the closest name in scope, then what it pruned (indented)
  { "read misspelt", P({ { name = "ssao", create = { ao = T } }, { name = "resolve", read = { "ao_" }, create = { accum = T } },
                         { name = "tonemap", read = { "accum" }, create = { out = T } } }) },
  { "history misspelt", P({ { name = "taa", create = { accum = { format = "rgba8_unorm", size = "main", history = "clear" } },
                              history = { acum = "sampled" } }, { name = "b", read = { "accum" }, create = { out = T } } }) },
  { "modify misspelt", P({ { name = "a", create = { color = T } }, { name = "b", modify = { colr = "storage" } },
                           { name = "c", read = { "color" }, create = { out = T } } }) },
  { "pass misspelt", P({ { name = "a", create = { out = T }, pass = { color = { "otu" } } } }) },
  { "after misspelt", P({ { name = "a", create = { out = T }, after = { "blurr" } }, { name = "blur", side_effects = true } }) },
  { "output misspelt", P({ { name = "a", create = { final = T } } }, { outputs = { "fnal" } }) },
  { "unknown name leaves the output unproduced", P({ { name = "a", read = { "camera" }, create = { out = T } } }) },
}
end)()

local expected = {
  ["unknown usage"] = "node 'bloom': read 'hdr': unknown usage 'sampeld' (expected one of sampled, storage, color, depth, depth_read, transfer_src, transfer_dst, uniform, vertex, index, indirect)",
  ["not a table"] = "pipeline: expected a table, got number",
  ["nodes missing"] = "pipeline: nodes must be a list of node tables, got nil",
  ["node without name"] = "nodes[1]: missing name (every node needs a unique string name)",
  ["unknown node field"] = "node 'a': unknown field 'raed' (expected one of name, multiplex, after, before, create, read, modify, rename, history, pass, side_effects, run)",
  ["unknown pipeline field"] = "pipeline: unknown field 'nodez' (expected one of name, dimensions, resolutions, outputs, external, nodes)",
  ["unknown format"] = "node 'a': create 'out': unknown format 'rgba8' (expected one of r8_unorm, r8_uint, rg8_unorm, rgba8_unorm, rgba8_srgb, bgra8_unorm, bgra8_srgb, rgba8_snorm, rgba8_uint, a2b10g10r10_unorm, b10g11r11_ufloat, r16_sfloat, r16_unorm, r16_uint, rg16_sfloat, rg16_unorm, rgba16_sfloat, rgba16_unorm, r32_sfloat, r32_uint, r32_sint, rg32_sfloat, rg32_uint, rgba32_sfloat, rgba32_uint, d16_unorm, d32_sfloat, d24_unorm_s8_uint, d32_sfloat_s8_uint, s8_uint)",
  ["missing size"] = "node 'a': create 'out': missing size (a resolution name like \"main\", {\"main\", 0.5} or {width, height})",
  ["what is it"] = "node 'a': create 'out': say what it is: a texture {format=, size=}, a buffer {buffer=bytes} or a blob {blob={}}",
  ["buffer zero"] = "node 'a': create 'out': buffer must be a positive integer number of bytes, got 0",
  ["bad size"] = "node 'a': create 'out': size {width, height} must be positive integers, got {0, 16}",
  ["unknown stage"] = "node 'b': read 'x': unknown stage 'pixel' (expected one of draw_indirect, vertex_input, vertex, fragment, fragment_tests, color_output, compute, transfer, host, all)",
  ["optional on modify"] = "node 'b': modify 'out': optional is only allowed on read and history",
  ["bad history policy"] = "node 'a': create 'out': history must be \"clear\" or \"discard\", got 'keep'",
  ["side_effects type"] = "node 'a': side_effects must be a boolean, got string",
  ["run type"] = "node 'a': run must be a function(cmd, ctx), got string \"f\" (a string names a host's C callback: \"host:name\", with letters, digits, _ . - in name)",
  ["bad dims"] = "dimensions: 'eye' must be a positive integer count (at most 65536), got 0",
  ["bad resolution"] = "resolutions: 'main' must be {width, height} with positive integers",
  ["unknown solver"] = "opts.solver: unknown solver 'magic' (expected one of best, thesis, scanline, bysize, buckets, pool, none)",
  ["unknown profile"] = "opts.profile: unknown profile 'amd' (expected lavapipe, nvidia or a table {alignment=, granularity=})",
  ["duplicate node"] = "node 'a' is declared twice (nodes #1 and #2): node names must be unique",
  ["two creators"] = "resource 'out' is created by both 'a' and 'b' (renames count as creation): use modify in one of them",
  ["read and modify"] = "node 'b': reads and modifies 'x': declare it once (modify already allows reading)",
  ["history of renamed"] = "node 'c': history 'x': cannot read the history of a renamed resource ('x' is renamed to 'out')",
  ["unknown dimension"] = "node 'a': multiplex: unknown dimension 'eyes' (declared dimensions: eye); did you mean 'eye'?",
  ["unknown resolution"] = "node 'a': create 'out': unknown resolution 'half' (declared resolutions: main)",
  ["wider mode"] = "node 'b': read 'x': the resource has multiplex mode {eye}, wider than the node's {} (a node may only use resources of its own or a narrower mode)",
  ["incomparable"] = "node 'b': after 'a': multiplex modes {tile} and {eye} are not comparable",
  ["cycle"] = "cycle: a -> b -> c -> a (break it by removing an after/before or a resource use)",
  ["after unknown"] = "node 'a': after 'upload': no node named 'upload'",
  ["output unknown"] = "outputs: no node creates 'fnal' and it is not external",
  ["pass not written"] = "node 'a': pass color 'other': the node must create, modify or rename it",
  ["two renamers"] = "resource 'x' is renamed by both 'b' and 'c': only one node may rename a resource",
  ["history of external"] = "node 'a': history 'bb': external resources have no history",
  ["opts dimension unknown"] = "opts.dimensions: unknown dimension 'eye' (the pipeline must declare it)",
  ["several"] = "node 'a': create 'out': unknown format 'rgba8' (expected one of r8_unorm, r8_uint, rg8_unorm, rgba8_unorm, rgba8_srgb, bgra8_unorm, bgra8_srgb, rgba8_snorm, rgba8_uint, a2b10g10r10_unorm, b10g11r11_ufloat, r16_sfloat, r16_unorm, r16_uint, rg16_sfloat, rg16_unorm, rgba16_sfloat, rgba16_unorm, r32_sfloat, r32_uint, r32_sint, rg32_sfloat, rg32_uint, rgba32_sfloat, rgba32_uint, d16_unorm, d32_sfloat, d24_unorm_s8_uint, d32_sfloat_s8_uint, s8_uint)\
node 'a': read 'x': unknown usage 'sampeld' (expected one of sampled, storage, color, depth, depth_read, transfer_src, transfer_dst, uniform, vertex, index, indirect)\
nodes[2]: missing name (every node needs a unique string name)\
nodes[2]: unknown field 'raed' (expected one of name, multiplex, after, before, create, read, modify, rename, history, pass, side_effects, run)",
  ["rename to same"] = "node 'b': rename 'out': renaming to the same name does nothing (use modify)",
  ["creates and reads"] = "node 'a': creates and reads 'out': a node's own writes are readable without a read",
  ["read misspelt"] = "node 'resolve': read 'ao_': no node creates 'ao_' and it is not external; did you mean 'ao'?\
  pruned because of it: node 'resolve' is broken\
  node 'tonemap' is broken (read 'accum': its creator 'resolve' is broken)\
  outputs: 'out' is never produced (its producer 'tonemap' is broken)",
  ["history misspelt"] = "node 'taa': history 'acum': no node creates 'acum' and it is not external; did you mean 'accum'?\
  pruned because of it: node 'taa' is broken\
  node 'b' is broken (read 'accum': its creator 'taa' is broken)\
  outputs: 'out' is never produced (its producer 'b' is broken)",
  ["modify misspelt"] = "node 'b': modify 'colr': no node creates 'colr' and it is not external; did you mean 'color'?\
  pruned because of it: node 'b' is broken",
  ["pass misspelt"] = "node 'a': pass color 'otu': the node must create, modify or rename it; did you mean 'out'?",
  ["after misspelt"] = "node 'a': after 'blurr': no node named 'blurr'; did you mean 'blur'?",
  ["output misspelt"] = "outputs: no node creates 'fnal' and it is not external; did you mean 'final'?",
  ["unknown name leaves the output unproduced"] = "node 'a': read 'camera': no node creates 'camera' and it is not external (create it in a node, declare it external, or make the read optional)\
  pruned because of it: node 'a' is broken\
  outputs: 'out' is never produced (its producer 'a' is broken)",
}

describe("malformed pipelines", function()
  it("has at least 25 cases", function()
    assert.is_true(#cases >= 25)
  end)
  for _, c in ipairs(cases) do
    it("reports: " .. c[1], function()
      local ok, err = pcall(fg.compile, c[2], c[3])
      assert.is_false(ok)
      -- a node declared once in this file is located here (see below): the text after the location
      assert.are.equal(expected[c[1]], (err:gsub("[^\n]-graph_errors_spec%.lua:%d+: ", "")))
    end)
  end

  it("locates a pipeline written inline in the calling file, when its nodes are declared there once", function()
    local text = assert(io.open("spec/graph_errors_spec.lua")):read("a")
    local n, line = 0, nil
    for l in (text .. "\n"):gmatch("([^\n]*)\n") do
      n = n + 1
      if not line and l:find('read = { "ao_" }', 1, true) then line = n end
    end
    local _, err = pcall(fg.compile, cases[#cases - 6][2])
    assert.are.equal("read misspelt", cases[#cases - 6][1])
    -- (the path as busted was given it: relative from the tree's root, absolute through scripts/bin/busted)
    assert.are.equal(line, tonumber(err:match("^[^\n]-graph_errors_spec%.lua:(%d+): node 'resolve': read 'ao_'")))
    -- node 'a' is declared by many pipelines of this file: no line rather than a wrong one
    _, err = pcall(fg.compile, cases[1][2])
    assert.are.equal(expected["unknown usage"], err)
  end)
end)
