-- fg.watch: 100+ edits of a pipeline file while frames run (valid and
-- invalid, structural and run-only). After each: the poll's answer, the
-- compile count, the picture (equal to a fresh runtime's for the last good
-- pipeline), the accumulator history (never reset: it counts every rendered
-- frame), the unchanged node's shader object, and no validation message.
local fg = require("framegraph")
local file = require("support.reload_file")

local SHADERS = fg.shader_dir()

describe("fg.watch", function()
  local dev, path
  file.fixture(fg, function(d, p) dev, path = d, p end)

  local function acc(rt) return assert(rt:read("acc")):byte(1) end

  -- The picture a fresh runtime makes for a variant (memoised).
  local pictures = {}
  local function picture(v)
    local key = ("%d/%s"):format(v.seed, tostring(v.blur))
    if not pictures[key] then
      local rt = fg.runtime(dev, assert(load(file.text(SHADERS, { seed = v.seed, blur = v.blur })))(dev))
      rt:frame()
      pictures[key] = rt:read("final")
      rt:close()
    end
    return pictures[key]
  end

  it("validates its arguments and reports nothing when nothing changed", function()
    file.write(path, file.text(SHADERS, { seed = 1 }))
    local rt = fg.runtime(dev, path)
    assert.has_error(function() fg.watch(42, path) end, "fg.watch: argument #1 must be a runtime (fg.runtime)")
    assert.has_error(function() fg.watch(rt, path, { interval = 1 }) end, "fg.watch: unknown option 'interval' (known: content, reload)")
    assert.has_error(function() fg.watch(rt, path .. ".missing") end)
    local w = fg.watch(rt, path)
    assert.is_nil(w:poll())
    file.write(path, file.text(SHADERS, { seed = 1 }))  -- saved again, same text
    assert.is_nil(w:poll())
    rt:frame()
    w:close()
    assert.has_error(function() w:poll() end, "watcher is closed")
    rt:close()
  end)

  it("takes an emptied file for a save in place: quiet until it has bytes, then one reload", function()
    file.write(path, file.text(SHADERS, { seed = 1 }))
    local rt = fg.runtime(dev, path)
    local w <close> = fg.watch(rt, path)
    rt:frame()
    local first = rt:read("final")
    file.write(path, "")                     -- truncated, the rest of the save not written yet
    assert.is_nil(w:poll())
    assert.is_nil(w:last_error())
    rt:frame()                               -- the last good pipeline keeps rendering
    assert.are.equal(first, rt:read("final"))
    file.write(path, file.text(SHADERS, { seed = 2 }))
    local status, changes = w:poll()
    assert.are.equal("reloaded", status)
    assert.is_false(changes.structural)      -- only the run changed: one reload, nothing in between
    assert.is_nil(w:poll())
    rt:frame()
    assert.are_not.equal(first, rt:read("final"))
    -- an emptied file, then the same text saved back: nothing to reload
    file.write(path, "")
    assert.is_nil(w:poll())
    file.write(path, file.text(SHADERS, { seed = 2 }))
    assert.is_nil(w:poll())
    rt:close()
  end)

  it("reports a misspelt name at its file:line with the suggestion and keeps rendering", function()
    file.write(path, file.text(SHADERS, { seed = 1, blur = true }))
    local rt = fg.runtime(dev, path)
    local w <close> = fg.watch(rt, path)
    rt:frame()
    local text = file.text(SHADERS, { seed = 2, blur = true, bad = "typo" })
    file.write(path, text)
    local status, info = w:poll()
    assert.are.equal("error", status)
    assert.matches(path .. ":" .. file.line_of(text, "noize") .. ": node 'blur': read 'noize': no node creates 'noize' "
                   .. "and it is not external; did you mean 'noise'?\n  pruned because of it: node 'blur' is broken", info,
                   1, true)
    assert.are.equal(info, w:last_error())
    rt:frame()
    file.write(path, file.text(SHADERS, { seed = 2, blur = true }))
    assert.are.equal("reloaded", (w:poll()))
    rt:frame()
    rt:close()
  end)

  it("survives 100 edits while frames run; TAA history is never reset", function()
    local good = { seed = 1 }
    local text = file.text(SHADERS, good)
    file.write(path, text)
    local rt = fg.runtime(dev, path, { solver = "best" })
    local w <close> = fg.watch(rt, path)
    rt:frame()
    local frames = 1
    local accum_sh = file.upvalue(rt, "accum", "accum_sh")
    local count = file.count_compiles(fg.core)
    finally(function() count.restore() end)
    local rng = 12345
    local function rand(n) rng = (rng * 1103515245 + 12345) % 2147483648 return rng % n + 1 end
    local kinds = { "run", "run", "structural", "structural", "extra", "syntax", "format", "load", "runerror",
                    "runerror_structural", "same" }
    local seen = {}
    for edit = 1, 110 do
      local kind = kinds[rand(#kinds)]
      if edit <= #kinds then kind = kinds[edit] end  -- every kind at least once
      seen[kind] = (seen[kind] or 0) + 1
      local v = { seed = good.seed, blur = good.blur, extra = good.extra }
      if kind == "run" or kind == "runerror" then v.seed = good.seed % 4 + 1
      elseif kind == "runerror_structural" then v.blur = not good.blur
      elseif kind == "structural" then v.blur = not good.blur
      elseif kind == "extra" then v.extra = not good.extra
      elseif kind == "syntax" or kind == "load" then v.seed = good.seed % 4 + 1
      elseif kind == "format" then v.blur = true
      end
      if kind == "runerror" or kind == "runerror_structural" then v.bad = "run" end
      if kind == "syntax" or kind == "load" or kind == "format" then v.bad = kind end
      if v.bad then v.seed = edit % 4 + 1 end  -- never the same text twice in a row
      local new = kind == "same" and text or file.text(SHADERS, v)  -- "same": saved again unchanged
      local structural = (v.blur or false) ~= (good.blur or false) or (v.extra or false) ~= (good.extra or false)
      if kind ~= "same" then assert.are_not.equal(text, new) end
      text = new
      file.write(path, text)
      count.n = 0
      local status, info = w:poll()
      local ctx = ("edit %d (%s)"):format(edit, kind)
      if kind == "same" then
        assert.is_nil(status, ctx)
      elseif v.bad == "syntax" or v.bad == "load" or v.bad == "format" then
        assert.are.equal("error", status, ctx)
        assert.are.equal(info, w:last_error())
        assert.matches(path .. ":%d+", info)
        if v.bad == "format" then
          -- the problem starts with the file:line where the bad format is written
          assert.matches(path .. ":" .. file.line_of(text, "rgba8_nope") .. ": node 'blur': create 'blurred'", info, 1, true)
        end
        -- refused before any compile: a bad format is the schema's to find
        assert.are.equal(0, count.n, ctx)
      else
        assert.are.equal("reloaded", status, ctx .. ": " .. tostring(info))
        assert.is_nil(w:last_error())
        assert.are.equal(structural, info.recompiled, ctx)
        assert.are.equal(structural and 1 or 0, count.n, ctx)
        if structural then assert.are.equal(1, info.kept_history, ctx) end
        assert.are.equal(accum_sh, file.upvalue(rt, "accum", "accum_sh"), ctx)
      end
      local st = rt:frame()
      frames = frames + 1
      if v.bad == "run" then
        assert.matches("node 'fill' run failed: " .. path .. ":" .. file.line_of(text, "boom in fill"), st.rolled_back,
                       1, true)
        local s2, msg = w:poll()
        assert.are.equal("error", s2, ctx)
        assert.are.equal(st.rolled_back, msg)
      else
        assert.is_nil(st.rolled_back, ctx)
        if not v.bad and kind ~= "same" then good = v end
      end
      assert.are.equal(frames, acc(rt), ctx)  -- one step per rendered frame, across every reload
      assert.are.equal(picture(good), rt:read("final"), ctx)
    end
    for _, k in ipairs(kinds) do assert.is_true((seen[k] or 0) > 0, k) end
    count.restore()
    rt:close()
  end)
end)
