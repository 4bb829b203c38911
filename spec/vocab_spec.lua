-- One source of truth per vocabulary (csrc/core/fg_vocab.h, exported as
-- fg.vocab) and one validation function per option, shared by fg.compile,
-- fg.runtime and fg.pack; names with NUL bytes are rejected; the C compiler
-- never requires the Lua schema back.
package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
local fg = require("framegraph")
local schema = require("framegraph.schema")
local pipeline = require("support.pipeline")
local T, P = pipeline.T, pipeline.P

local ITEMS = { { start = 0, stop = 2, size = 64 }, { start = 1, stop = 3, size = 32 } }

local function compile_err(p, opts)
  local ok, err = pcall(fg.compile, p, opts)
  assert.is_false(ok)
  return err
end
local function pack_err(opts)
  local ok, err = pcall(fg.pack, ITEMS, opts)
  assert.is_false(ok)
  return err
end

describe("fg.vocab", function()
  it("is the list the schema checks against, and the C core accepts every entry", function()
    assert.are.same(fg.vocab.formats, schema.formats)
    assert.are.same(fg.vocab.usages, schema.usages)
    assert.are.same(fg.vocab.stages, schema.stages)
    assert.are.same(fg.vocab.solvers, schema.solvers)
    assert.are.same(fg.vocab.profiles, schema.profiles)
    assert.are.same(fg.core.pack_solvers, fg.vocab.solvers)
    assert.are.equal(30, #fg.vocab.formats)
    -- every format compiles and comes back under its own name (C's table agrees)
    for _, f in ipairs(fg.vocab.formats) do
      local g = fg.compile(P({ { name = "a", create = { out = { format = f, size = { 4, 4 } } } } }))
      assert.are.equal(f, g:resources()[1].format)
      g:close()
    end
    -- every stage and every usage a read may name compiles, and reads back as declared
    for _, s in ipairs(fg.vocab.stages) do
      local g = fg.compile(P({ { name = "a", create = { out = T, x = { buffer = 64 } } },
                               { name = "b", read = { x = { usage = "storage", stage = s } }, side_effects = true } }))
      local uses = g:instances()[2].uses
      assert.are.equal(s, uses[1].stage)
      g:close()
    end
    for _, u in ipairs(fg.vocab.usages) do
      local g = fg.compile(P({ { name = "a", create = { out = T, x = { buffer = 64 } } },
                               { name = "b", read = { x = u }, side_effects = true } }))
      -- "none" asks for the default: storage, for a buffer
      assert.are.equal(u == "none" and "storage" or u, g:instances()[2].uses[1].usage)
      g:close()
    end
    -- and one that is not in a list is rejected by both
    assert.matches("unknown format 'rgba8'", compile_err(P({ { name = "a", create = { out = { format = "rgba8", size = "main" } } } })), 1, true)
  end)

  it("lists every solver and profile that fg.compile and fg.pack accept", function()
    for _, s in ipairs(fg.vocab.solvers) do
      fg.compile(P({ { name = "a", create = { out = T } } }), { solver = s }):close()
      assert.is_table(fg.pack(ITEMS, { solver = s, time_budget_ms = 0.1 }).offsets)
    end
    for _, p in ipairs(fg.vocab.profiles) do
      fg.compile(P({ { name = "a", create = { out = T } } }), { profile = p }):close()
    end
  end)

  it("has one default alignment: the lavapipe profile's and a profile table's without alignment", function()
    assert.are.equal(16, fg.vocab.default_alignment)
    local p = P({ { name = "a", create = { out = { format = "r8_unorm", size = { 3, 3 } } } } })
    for _, opts in ipairs({ {}, { profile = "lavapipe" }, { profile = { granularity = 4 } } }) do
      local g = fg.compile(p, opts)
      assert.are.equal(fg.vocab.default_alignment, g:resources()[1].alignment)
      g:close()
    end
  end)
end)

describe("options", function()
  local p = P({ { name = "a", create = { out = T } } })

  it("time_budget_ms = 'fast' and -5 are rejected by fg.compile and fg.pack with the same message", function()
    local fast = "opts.time_budget_ms: expected a number of milliseconds >= 0, got 'fast'"
    local neg = "opts.time_budget_ms: expected a number of milliseconds >= 0, got -5"
    assert.are.equal(fast, compile_err(p, { time_budget_ms = "fast" }))
    assert.are.equal(fast, pack_err({ time_budget_ms = "fast" }))
    assert.are.equal(neg, compile_err(p, { time_budget_ms = -5 }))
    assert.are.equal(neg, pack_err({ time_budget_ms = -5 }))
    -- fg.runtime's options go through the same rule (the schema's runtime entry)
    assert.are.same({ fast }, schema.problems(p, { time_budget_ms = "fast" }, "runtime"))
    -- and fg.check_packing too
    local ok, err = pcall(fg.check_packing, ITEMS, { 0, 64 }, { time_budget_ms = -5 })
    assert.is_false(ok)
    assert.are.equal(neg, err)
  end)

  it("every shared option reads the same from every entry point", function()
    local solver = "opts.solver: unknown solver 'magic' (expected one of best, thesis, scanline, bysize, buckets, pool, none)"
    assert.are.equal(solver, compile_err(p, { solver = "magic" }))
    assert.are.equal(solver, pack_err({ solver = "magic" }))
    assert.are.same({ solver }, schema.problems(p, { solver = "magic" }, "runtime"))
    local seed = "opts.seed: expected an integer >= 0, got -1"
    assert.are.equal(seed, pack_err({ seed = -1 }))
    assert.are.same({ seed }, schema.problems(p, { seed = -1 }, "runtime"))
    assert.are.equal("opts.node_budget: expected an integer >= 0, got 'many'", pack_err({ node_budget = "many" }))
  end)

  it("rejects unknown options, naming the ones each entry point takes", function()
    assert.are.equal("opts: unknown field 'seed' (expected one of profile, device, dimensions, resolutions, solver, time_budget_ms, schedule, capacity)",
                     compile_err(p, { seed = 1 }))
    assert.are.equal("opts: unknown field 'profile' (expected one of period, solver, granularity, time_budget_ms, node_budget, work_budget, seed, capacity)",
                     pack_err({ profile = "nvidia" }))
    assert.are.same({}, schema.problems(p, { seed = 1, poison = true, upload_bytes = 4096 }, "runtime"))
  end)

  it("keeps accepting what was valid", function()
    fg.compile(p, { time_budget_ms = 0.5, solver = "best", profile = { alignment = 256 } }):close()
    fg.compile(p, { time_budget_ms = 0 }):close()
    local r = fg.pack(ITEMS, { period = 4.0, time_budget_ms = 0, seed = 7, node_budget = 10, granularity = 1 })
    assert.are.equal(96, r.makespan)
  end)
end)

describe("names with NUL bytes", function()
  local function only(err, fragment)
    assert.matches(fragment, err, 1, true)
    assert.matches("contains a NUL byte (\\0): names must be plain text, remove it", err, 1, true)
  end
  it("are rejected for nodes, resources, dimensions and resolutions, naming the field", function()
    only(compile_err(P({ { name = "a\0b", create = { out = T } } })), "nodes[1]: node name 'a\\0b'")
    only(compile_err(P({ { name = "a", create = { ["o\0ut"] = T, out = T } } })),
         "node 'a': create: resource name 'o\\0ut'")
    only(compile_err(P({ { name = "a", create = { out = T } }, { name = "b", read = { "out\0x" }, side_effects = true } })),
         "node 'b': read[1]: resource name 'out\\0x'")
    only(compile_err(P({ { name = "a", create = { out = T } } }, { dimensions = { ["eye\0"] = 2 } })),
         "dimensions: dimension name 'eye\\0'")
    only(compile_err(P({ { name = "a", create = { out = { format = "r8_unorm", size = "main" } } } },
                       { resolutions = { main = { 8, 8 }, ["ma\0in"] = { 4, 4 } } })),
         "resolutions: resolution name 'ma\\0in'")
    only(compile_err(P({ { name = "a", create = { out = { format = "r8_unorm", size = "main\0" } } } })),
         "node 'a': create 'out': resolution name 'main\\0'")
    only(compile_err(P({ { name = "a", create = { out = T } } }), { dimensions = { ["e\0"] = 1 } }),
         "opts.dimensions: dimension name 'e\\0'")
    -- without the NUL each of these is fine
    fg.compile(P({ { name = "ab", create = { out = T } } })):close()
  end)
end)

describe("the C compiler", function()
  it("never requires the Lua schema back", function()
    local real = require
    local asked
    _G.require = function(name) asked = name; error("no require from C, please") end
    local ok, g = pcall(fg.core.compile, P({ { name = "a", create = { out = T } } }))
    _G.require = real
    assert.is_nil(asked)
    assert.is_true(ok, tostring(g))
    g:close()
  end)

  it("called alone, still refuses a name with a NUL byte instead of cutting it", function()
    for _, p in ipairs({ P({ { name = "a", create = { ["out\0x"] = T, out = T } } }),
                         P({ { name = "a\0b", create = { out = T } } }),
                         P({ { name = "a", create = { out = T } }, { name = "b", read = { "out\0" }, side_effects = true } }),
                         P({ { name = "a", create = { out = T } } }, { outputs = { "out\0" } }) }) do
      local ok, err = pcall(fg.core.compile, p)
      assert.is_false(ok)
      assert.matches("contains a NUL byte: names and values must be plain text, remove it", err, 1, true)
    end
  end)
end)

describe("fg.runtime and rt:reload", function()
  local dev
  setup(function() dev = fg.vulkan{ validation = true, prefer = "software" } end)
  teardown(function() dev:close() end)
  after_each(function() assert.are.same({}, dev:messages()) end)

  local function buf_pipeline(name)
    return { outputs = { "b" }, nodes = { { name = name, create = { b = { buffer = 256 } } } } }
  end

  it("check options by the same functions as fg.compile and fg.pack", function()
    local ok, err = pcall(fg.runtime, dev, buf_pipeline("a"), { time_budget_ms = "fast" })
    assert.is_false(ok)
    assert.are.equal(pack_err({ time_budget_ms = "fast" }), err)
    ok, err = pcall(fg.runtime, dev, buf_pipeline("a"), { seed = -1 })
    assert.is_false(ok)
    assert.are.equal(pack_err({ seed = -1 }), err)
  end)

  it("check the pipeline in Lua: a NUL name is rejected by fg.runtime and by a reload", function()
    local ok, err = pcall(fg.runtime, dev, buf_pipeline("a\0b"), { seed = 3 })
    assert.is_false(ok)
    assert.matches("nodes[1]: node name 'a\\0b' contains a NUL byte", err, 1, true)
    local rt <close> = fg.runtime(dev, buf_pipeline("a"), { seed = 3, poison = true })
    rt:frame()
    local rok, rerr = rt:reload(buf_pipeline("a\0b"))
    assert.is_nil(rok)
    assert.matches("nodes[1]: node name 'a\\0b' contains a NUL byte", rerr, 1, true)
    rt:frame()  -- still running the previous pipeline
    assert.are.same({ "a" }, rt:graph():order())
  end)
end)
