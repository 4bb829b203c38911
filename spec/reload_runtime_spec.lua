-- rt:reload: one loader, at most one compile per reload, unchanged shaders
-- and history contents kept, a failing run rolled back (lavapipe, validation
-- with synchronization validation, no messages).
local fg = require("framegraph")
local file = require("support.reload_file")

local SHADERS = fg.shader_dir()

describe("rt:reload", function()
  local dev, path
  file.fixture(fg, function(d, p) dev, path = d, p end)

  local function write(v)
    local text = file.text(SHADERS, v)
    file.write(path, text)
    return text
  end

  local function acc(rt) return assert(rt:read("acc")):byte(1) end

  -- A pipeline table made from the file's text (no file, no loader).
  local function tbl(v) return assert(load(file.text(SHADERS, v)))(dev) end

  it("compiles once for a structural change and never for a change of run functions", function()
    local rt = fg.runtime(dev, tbl{ seed = 1 }, { solver = "best" })
    rt:frame()
    local count = file.count_compiles(fg.core)
    finally(function() count.restore() end)
    local ok, changes = rt:reload(tbl{ seed = 1, blur = true })
    local n_struct = count.n
    count.n = 0
    local ok2, changes2 = rt:reload(tbl{ seed = 2, blur = true })
    local n_run = count.n
    count.n = 0
    local ok3, err3 = rt:reload(tbl{ seed = 2, blur = true, bad = "format" })
    local n_bad = count.n
    count.restore()
    assert.is_true(ok, changes)
    assert.is_true(changes.recompiled)
    assert.is_true(ok2, changes2)
    assert.is_false(changes2.recompiled)
    assert.are.same({ "fill" }, changes2.run_changed)
    assert.is_nil(ok3)
    assert.matches("rgba8_nope", err3, 1, true)
    assert.are.equal(1, n_struct)
    assert.are.equal(0, n_run)
    assert.are.equal(0, n_bad)  -- the schema refuses the bad format before any compile
    rt:frame()
    rt:close()
  end)

  it("loads a file with one loader: the file gets the device, errors name file and line", function()
    local text = write{ seed = 1 }
    local rt = fg.runtime(dev, path)
    rt:frame()
    text = write{ seed = 1, bad = "load" }
    local ok, err = rt:reload(path)
    assert.is_nil(ok)
    assert.matches(path .. ":" .. file.line_of(text, "boom while loading") .. ": boom while loading", err, 1, true)
    text = write{ seed = 1, bad = "syntax" }
    ok, err = rt:reload(path)
    assert.is_nil(ok)
    assert.matches(path .. ":" .. file.line_of(text, "unfinished edit") .. ":", err, 1, true)
    text = write{ seed = 1, blur = true, bad = "format" }
    ok, err = rt:reload(path)
    assert.is_nil(ok)
    assert.matches("rgba8_nope", err, 1, true)
    -- the problem starts with the file:line where the bad format is written
    assert.matches(path .. ":" .. file.line_of(text, "rgba8_nope") .. ": node 'blur': create 'blurred'", err, 1, true)
    assert.has_error(function() fg.runtime(dev, path) end)
    rt:frame()
    rt:close()
  end)

  it("a misspelt name: reported first at its file:line with the suggestion, what it pruned indented", function()
    write{ seed = 1, blur = true }
    local rt = fg.runtime(dev, path)
    rt:frame()
    local text = write{ seed = 1, blur = true, bad = "typo" }
    local ok, err = rt:reload(path)
    assert.is_nil(ok)
    local lines = {}
    for l in err:gmatch("[^\n]+") do lines[#lines + 1] = l end
    assert.are.equal("reload: the new pipeline does not compile (still running the previous one):", lines[1])
    assert.are.equal(path .. ":" .. file.line_of(text, "noize") .. ": node 'blur': read 'noize': no node creates "
                     .. "'noize' and it is not external; did you mean 'noise'?", lines[2])
    assert.are.equal("  pruned because of it: node 'blur' is broken", lines[3])
    assert.are.equal("  node 'out' is broken (read 'blurred': its creator 'blur' is broken)", lines[4])
    assert.are.equal("  outputs: 'final' is never produced (its producer 'out' is broken)", lines[5])
    -- a table (no path): the file is found from the run functions
    ok, err = rt:reload(tbl{ seed = 1, blur = true, bad = "typo" })
    assert.is_nil(ok)
    assert.matches("did you mean 'noise'?", err, 1, true)
    rt:frame()  -- still the previous pipeline
    rt:close()
  end)

  it("keeps the shader objects of unchanged nodes", function()
    write{ seed = 1 }
    local rt = fg.runtime(dev, path)
    rt:frame()
    local sh = file.upvalue(rt, "accum", "accum_sh")
    assert.is_not_nil(sh)
    write{ seed = 1, blur = true, extra = true }
    assert.is_true(rt:reload(path))
    assert.are.equal(sh, file.upvalue(rt, "accum", "accum_sh"))
    write{ seed = 3, blur = true, extra = true }
    assert.is_true(rt:reload(path))
    assert.are.equal(sh, file.upvalue(rt, "accum", "accum_sh"))
    rt:frame()
    -- another runtime loading the same file makes its own
    local other = fg.runtime(dev, path)
    assert.are_not.equal(sh, file.upvalue(other, "accum", "accum_sh"))
    other:close()
    rt:close()
  end)

  it("TAA history survives a structural edit that does not touch it", function()
    write{ seed = 1 }
    local rt = fg.runtime(dev, path, { solver = "best" })
    for _ = 1, 5 do rt:frame() end
    assert.are.equal(5, acc(rt))
    local mem = rt:memory()
    write{ seed = 1, blur = true, extra = true }
    local ok, changes = rt:reload(path)
    assert.is_true(ok, changes)
    assert.is_true(changes.recompiled)
    assert.are.same({ "blur", "extra" }, (function() table.sort(changes.added) return changes.added end)())
    assert.are.equal(1, changes.kept_history)
    rt:frame()
    assert.are.equal(6, acc(rt))  -- continued, not restarted from the clear value (would be 1)
    rt:frame()
    assert.are.equal(7, acc(rt))
    -- two reloads without a frame between keep it as well
    write{ seed = 1 }
    assert.is_true(rt:reload(path))
    write{ seed = 1, extra = true }
    assert.is_true(rt:reload(path))
    rt:frame()
    assert.are.equal(8, acc(rt))
    assert.is_true(rt:memory().total > 0 and mem.total > 0)
    rt:close()
  end)

  it("a history resource whose description changed starts from its clear value", function()
    write{ seed = 1 }
    local rt = fg.runtime(dev, path)
    for _ = 1, 3 do rt:frame() end
    assert.are.equal(3, acc(rt))
    write{ seed = 1, acc_size = 16 }
    local ok, changes = rt:reload(path)
    assert.is_true(ok, changes)
    assert.are.equal(0, changes.kept_history)
    rt:frame()
    assert.are.equal(1, acc(rt))
    assert.are.equal(16 * 16 * 4, #rt:read("acc"))
    rt:close()
  end)

  for _, structural in ipairs{ false, true } do
    it("an error inside a node's run after a " .. (structural and "structural" or "run-only")
       .. " reload rolls back to the last good pipeline", function()
      write{ seed = 1 }
      local rt = fg.runtime(dev, path)
      rt:frame(); rt:frame()
      local good = rt:read("final")
      local text = write{ seed = 2, blur = structural, bad = "run" }
      local ok, changes = rt:reload(path)
      assert.is_true(ok, changes)
      assert.are.equal(structural, changes.recompiled)
      local st = rt:frame()
      assert.is_string(st.rolled_back)
      assert.matches("node 'fill' run failed: " .. path .. ":" .. file.line_of(text, "boom in fill") .. ": boom in fill",
                     st.rolled_back, 1, true)
      assert.matches("run defined at ", st.rolled_back, 1, true)
      assert.are.equal(good, rt:read("final"))     -- the frame was rendered by the last good pipeline
      assert.are.equal(3, acc(rt))                 -- and the history went on
      st = rt:frame()
      assert.is_nil(st.rolled_back)
      assert.are.equal(4, acc(rt))
      -- a good edit afterwards reloads normally
      write{ seed = 2, blur = structural }
      assert.is_true(rt:reload(path))
      assert.is_nil(rt:frame().rolled_back)
      assert.are.equal(5, acc(rt))
      assert.are_not.equal(good, rt:read("final"))
      rt:close()
    end)
  end

  it("keeps each multiplexed history copy in its own instance", function()
    local accum = fg.shader(dev, SHADERS .. "/rt_accum.comp.spv")
    local function p(extra)
      local nodes = {
        { name = "accum", multiplex = { "eye" },
          create = { acc = { format = "rgba8_unorm", size = { 8, 8 }, history = "clear" } },
          history = { acc = "storage" },
          run = function(cmd, ctx)
            cmd:dispatch(accum, { [0] = { "acc", history = true }, [1] = "acc" }, 1, 1, 1, { ctx.index.eye * 1.0 })
          end },
      }
      if extra then
        nodes[2] = { name = "extra", side_effects = true, create = { scratch = { buffer = 256 } },
                     run = function(cmd) cmd:clear("scratch", { 7 }) end }
      end
      return { dimensions = { eye = 2 }, outputs = { "acc" }, nodes = nodes }
    end
    local rt = fg.runtime(dev, p(false))
    for _ = 1, 3 do rt:frame() end
    assert.are.equal(3, rt:read("acc", { eye = 1 }):byte(1))
    assert.are.equal(6, rt:read("acc", { eye = 2 }):byte(1))
    local ok, changes = rt:reload(p(true))
    assert.is_true(ok, changes)
    assert.are.equal(2, changes.kept_history)
    rt:frame()
    assert.are.equal(4, rt:read("acc", { eye = 1 }):byte(1))
    assert.are.equal(8, rt:read("acc", { eye = 2 }):byte(1))
    rt:close()
  end)

  it("a structural reload keeps the resolution rt:set_resolution set", function()
    local fill = fg.shader(dev, SHADERS .. "/rt_fill.comp.spv")
    local function p(extra)
      local nodes = {
        { name = "fill", create = { noise = { format = "rgba8_unorm", size = "main" } },
          run = function(cmd, ctx)
            cmd:dispatch(fill, { [0] = "noise" }, (ctx.width + 7) // 8, (ctx.height + 7) // 8, 1, { 1 })
          end },
      }
      if extra then
        nodes[2] = { name = "extra", side_effects = true, create = { scratch = { buffer = 256 } },
                     run = function(cmd) cmd:clear("scratch", { 7 }) end }
      end
      return { resolutions = { main = { 16, 16 } }, outputs = { "noise" }, nodes = nodes }
    end
    local rt = fg.runtime(dev, p(false))
    assert.is_true(rt:set_resolution("main", 24, 24))
    rt:frame()
    assert.are.equal(24 * 24 * 4, #rt:read("noise"))
    local ok, changes = rt:reload(p(true))
    assert.is_true(ok, changes)
    assert.is_true(changes.recompiled)
    rt:frame()
    assert.are.equal(24 * 24 * 4, #rt:read("noise"))
    rt:close()
  end)

  it("a run error on a pipeline that already rendered still raises", function()
    write{ seed = 1, bad = "run" }
    local rt = fg.runtime(dev, path)
    assert.has_error(function() rt:frame() end)
    rt:close()
  end)
end)
