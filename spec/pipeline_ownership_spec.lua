-- Who owns a pipeline table (issue 27, a third hostile pass):
--  * fg.runtime, rt:reload, fg.compile and graph:update keep a copy of the
--    table they are given: the caller's later changes reach no re-plan and no
--    later diff;
--  * user code that runs while the runtime re-plans (the metamethods of the
--    pipeline's tables, read by rt:reload, rt:set_resolution,
--    rt:set_dimension and a reload's roll-back) may not re-plan it, and an
--    rt:close() there is kept for the end of the call, which then says so at
--    the user's call, never naming an internal function.
-- Each runtime case runs in its own lua5.4 process on lavapipe with
-- validation on, as spec/hostile_surface_spec.lua does: a crash is a failed
-- case, not a dead spec run.
local fg = require("framegraph")
local diff = require("framegraph.diff")
local sh = require("spec.support.sh")

local PROLOGUE = [[
local fg = require("framegraph")
local dev = fg.vulkan{ validation = true, prefer = "software" }
local fill = fg.shader(dev, fg.shader_dir() .. "/rt_fill.comp.spv")
-- one node filling "o" (the resolution "main") with `seed`; a second node
-- reading it when `two`
local function P(seed, two)
  local nodes = { { name = "n", create = { o = { format = "rgba8_unorm", size = "main" } },
    run = function(cmd, ctx) cmd:dispatch(fill, { [0] = "o" }, (ctx.width + 7) // 8, (ctx.height + 7) // 8, 1, { seed }) end } }
  if two then
    nodes[2] = { name = "m", modify = { o = "storage" },
      run = function(cmd, ctx) cmd:dispatch(fill, { [0] = "o" }, (ctx.width + 7) // 8, (ctx.height + 7) // 8, 1, { seed + 1 }) end }
  end
  return { dimensions = { eye = 1 }, resolutions = { main = { 8, 8 } }, outputs = { "o" }, nodes = nodes }
end
-- a metatable whose __index runs `f` once armed (absent keys only: `run` of a
-- node without one, the end of an ipairs over a list)
local armed, fired = false, nil
local rt  -- the case's runtime: after the case, a frame on it says how it stands
local function trap(t, f)
  return setmetatable(t, { __index = function(_, k)
    if armed then armed = false fired = tostring(k) f() end
  end })
end
local function case()
]]
local EPILOGUE = [[
end
local ok, a, b = pcall(case)
if ok and a ~= nil and a ~= false then print("ACCEPTED\t" .. tostring(a)) else print("REFUSED\t" .. tostring(ok and b or a)) end
if rt then
  local fok, e = pcall(function() return rt:frame() end)
  print("AFTER\t" .. tostring(fok) .. " " .. tostring(e))
end
collectgarbage()
local mok, msgs = pcall(dev.messages, dev)  -- a case may close the device
print("MESSAGES\t" .. (mok and #msgs or 0))
]]

local function child(body)
  return sh.child(PROLOGUE .. body .. "\n" .. EPILOGUE)
end

-- the child ended normally, without validation messages; its verdict line
local function verdict(out, code)
  assert.are.equal(0, code, out)
  assert.truthy(out:find("MESSAGES\t0", 1, true), "validation messages or no end: " .. out)
  return out:match("ACCEPTED\t([^\n]*)"), out:match("REFUSED\t([^\n]*)")
end

-- the hooks rt:reload and the frame's roll-back are made of: a message
-- naming one of them says nothing to the user
local INTERNAL = { "slots", "adopt", "compile", "dynamic", "c_frame", "c_graph", "busy", "failure", "opts" }
local function names_no_internal(msg)
  for _, h in ipairs(INTERNAL) do
    assert.falsy(msg:find("'" .. h .. "'", 1, true), "the message names the internal '" .. h .. "': " .. msg)
  end
end

describe("diff.copy", function()
  it("copies tables, shares functions and metatables, keeps sharing and cycles", function()
    local f = function() end
    local shared = { format = "rgba8_unorm" }
    local mt = { __index = { example = 1 } }
    local t = setmetatable({ a = shared, b = shared, run = f, list = { 1, 2, 3 } }, mt)
    t.self = t
    local c = diff.copy(t)
    assert.are_not.equal(t, c)
    assert.are.equal(c, c.self)
    assert.are.equal(c.a, c.b)
    assert.are_not.equal(shared, c.a)
    assert.are.equal(f, c.run)
    assert.are.equal(mt, getmetatable(c))
    assert.are.equal(1, c.example)
    assert.are.same({ 1, 2, 3 }, c.list)
    shared.format = "r8_unorm"
    assert.are.equal("rgba8_unorm", c.a.format)
  end)

  it("reads raw: no metamethod of the table runs", function()
    local ran = 0
    local t = setmetatable({ x = 1 }, { __index = function() ran = ran + 1 end, __pairs = function() ran = ran + 1 end,
                                        __len = function() ran = ran + 1 return 0 end })
    assert.are.equal(1, diff.copy(t).x)
    assert.are.equal(0, ran)
  end)

  it("leaves a metatable's __gc out of the copy's (the caller's finalizer runs once)", function()
    local n = 0
    do
      local t = setmetatable({}, { __gc = function() n = n + 1 end, __index = { k = 1 } })
      local c = diff.copy(t)
      assert.are.equal(1, c.k)
      assert.is_nil(getmetatable(c).__gc)
    end
    collectgarbage() collectgarbage()
    assert.are.equal(1, n)
  end)

  it("copies a table nested 200,000 deep without a stack overflow", function()
    local t = {}
    local cur = t
    for _ = 1, 200000 do cur.x = {} cur = cur.x end
    local c = diff.copy(t)
    local depth = 0
    while c.x do c, depth = c.x, depth + 1 end
    assert.are.equal(200000, depth)
  end)
end)

describe("graph:update diffs against the graph's own copy", function()
  local function pipeline()
    return { resolutions = { main = { 32, 32 } }, outputs = { "out" }, nodes = {
      { name = "a", create = { x = { format = "rgba8_unorm", size = "main" } } },
      { name = "b", read = { "x" }, create = { out = { format = "rgba8_unorm", size = "main" } } } } }
  end
  it("sees a change the caller made to the very table it compiled from", function()
    local p = pipeline()
    local g = fg.compile(p)
    p.nodes[2].create.out.format = "rgba16_sfloat"  -- the caller's table, changed in place
    local c = g:update(p)
    assert.are.same({ "b" }, c.changed)
    assert.is_true(c.recompiled)
    for _, r in ipairs(g:resources()) do
      if r.name == "out" then assert.are.equal("rgba16_sfloat", r.format) end
    end
  end)

  it("keeps a copy of the options: the caller's later change reaches no update", function()
    local opts = { resolutions = { main = { 16, 16 } } }
    local g = fg.compile(pipeline(), opts)
    opts.resolutions.main = { 4, 4 }
    local p = pipeline()
    p.outputs = { "out", "x" }  -- a pipeline-level field: everything declared anew, with the options
    assert.is_true(g:update(p).full)
    for _, r in ipairs(g:resources()) do assert.are.equal(16, r.width) end
  end)

  it("a change after update reaches neither the graph nor the next diff", function()
    local p = pipeline()
    local g = fg.compile(pipeline())
    g:update(p)
    p.nodes[1] = nil  -- after the call: not the graph's business
    assert.are.equal(2, #g:pipeline().nodes)
    local c = g:update(pipeline())
    assert.are.same({}, c.removed)
    assert.is_false(c.recompiled)
  end)
end)

describe("the runtime keeps a copy of the pipeline it is given, each case in its own process", function()
  it("the caller's changes to the table given to fg.runtime reach no re-plan", function()
    local code, out = child([[
      local p = P(3)
      local rt = fg.runtime(dev, p)
      rt:frame()
      local before = rt:read("o")
      p.nodes[1].run = function() error("the caller's new run ran") end
      p.nodes[1].create.o.format = "r8_unorm"
      p.resolutions.main = { 4, 4 }
      assert(rt:set_resolution("main", 16, 16))
      assert(rt:set_dimension("eye", 2))
      assert(rt:set_dimension("eye", 1))
      assert(rt:set_resolution("main", 8, 8))
      p.nodes = nil
      assert(rt:set_resolution("main", 8, 8))
      assert(rt:frame())
      return nil, rt:read("o") == before and "same pixels" or "other pixels"]])
    local _, msg = verdict(out, code)
    assert.are.equal("same pixels", msg, out)
  end)

  it("rt:reload of the same table changed in place sees the change", function()
    local code, out = child([[
      local p = P(3)
      local rt = fg.runtime(dev, p)
      rt:frame()
      p.resolutions.main = { 16, 16 }
      local ok, changes = rt:reload(p)
      assert(ok, changes)
      assert(rt:frame())
      return nil, ("recompiled %s, %d bytes"):format(tostring(changes.recompiled), #rt:read("o"))]])
    local _, msg = verdict(out, code)
    assert.are.equal("recompiled true, 1024 bytes", msg, out)
  end)

  it("the caller's changes to a table given to rt:reload reach no re-plan", function()
    local code, out = child([[
      local rt = fg.runtime(dev, P(3))
      local p = P(5, true)
      assert(rt:reload(p))
      rt:frame()
      local before = rt:read("o")
      p.nodes[2].run = nil
      table.remove(p.nodes, 1)
      assert(rt:set_resolution("main", 16, 16))
      assert(rt:set_resolution("main", 8, 8))
      assert(rt:frame())
      return nil, rt:read("o") == before and "same pixels" or "other pixels"]])
    local _, msg = verdict(out, code)
    assert.are.equal("same pixels", msg, out)
  end)

  it("the caller's changes to the options given to fg.runtime reach no reload", function()
    local code, out = child([[
      local opts = { resolutions = { main = { 16, 16 } } }
      local rt = fg.runtime(dev, P(3), opts)
      opts.resolutions.main = { 4, 4 }
      opts.solver = "none"
      local ok, changes = rt:reload(P(4, true))
      assert(ok, changes)
      assert(changes.recompiled)
      assert(rt:frame())
      return nil, #rt:read("o") .. " bytes"]])
    local _, msg = verdict(out, code)
    assert.are.equal("1024 bytes", msg, out)
  end)

  it("shared subtables and a cycle in the table", function()
    local code, out = child([[
      local T = { format = "rgba8_unorm", size = "main" }
      local p = P(3)
      p.nodes[1].create = { o = T, o2 = T }
      p.outputs = { "o", "o2" }
      local rt = fg.runtime(dev, p)
      assert(rt:frame())
      local q = P(3)
      q.nodes[1].me = q.nodes[1]  -- a cycle, in a field the schema refuses
      local ok, err = pcall(fg.runtime, dev, q)
      assert(not ok)
      return nil, #rt:read("o2") .. " " .. tostring(err)]])
    local _, msg = verdict(out, code)
    assert.truthy(msg:find("^256 "), out)
    assert.truthy(msg:find("unknown field 'me'", 1, true), out)
  end)

  it("a huge and deeply nested table is refused with the schema's message", function()
    local code, out = child([[
      local p = P(3)
      local deep = {}
      local cur = deep
      for _ = 1, 100000 do cur.x = {} cur = cur.x end
      p.junk = deep
      for i = 1, 200000 do p.nodes[1][i] = { i } end
      local ok, err = pcall(fg.runtime, dev, p)
      assert(not ok)
      return nil, tostring(err)]])
    local _, msg = verdict(out, code)
    assert.truthy(msg:find("junk", 1, true), out)
  end)
end)

describe("user code running while the runtime re-plans, each case in its own process", function()
  -- rt:close() from a metamethod during the call: the call raises saying so
  local closes = {
    { "rt:reload (a run-only change: a node's __index)", [[
      rt = fg.runtime(dev, P(3))
      local p = P(4)
      p.nodes[1] = trap(p.nodes[1], function() rt:close() end)
      armed = true
      return rt:reload(p)]], "rt:reload: the runtime was closed during the call" },
    { "rt:reload (compiled: the C declaration reads the node's __index), with dev:close() too", [[
      rt = fg.runtime(dev, P(3))
      local p = P(4, true)
      p.nodes[2] = trap(p.nodes[2], function() rt:close() dev:close() end)
      armed = true
      return rt:reload(p)]], "rt:reload: the runtime was closed during the call" },
    { "rt:reload of a pipeline whose nodes list closes at the end of an ipairs", [[
      rt = fg.runtime(dev, P(3))
      local p = P(4)
      p.nodes = trap(p.nodes, function() rt:close() end)
      armed = true
      return rt:reload(p)]], "rt:reload: the runtime was closed during the call" },
    { "rt:set_resolution (the plan's runs are read from a node without run)", [[
      local p = P(3)
      p.nodes[2] = trap({ name = "side", side_effects = true }, function() rt:close() end)
      rt = fg.runtime(dev, p)
      armed = true
      return rt:set_resolution("main", 16, 16)]], "rt:set_resolution%('main', 16, 16%): the runtime was closed during the call" },
    { "rt:set_dimension", [[
      local p = P(3)
      p.nodes[2] = trap({ name = "side", side_effects = true }, function() rt:close() end)
      rt = fg.runtime(dev, p)
      armed = true
      return rt:set_dimension("eye", 2)]], "rt:set_dimension%('eye', 2%): the runtime was closed during the call" },
    { "rt:frame rolling back a reload whose run raised", [[
      local p = P(3)
      -- the metatable is the caller's (the runtime's copy shares it): the
      -- roll-back's ipairs over the last good pipeline's nodes reaches it
      trap(p.nodes, function() rt:close() end)
      rt = fg.runtime(dev, p)
      rt:frame()
      local bad = P(3)
      bad.nodes[1].run = function() error("boom") end
      assert(rt:reload(bad))
      armed = true
      return rt:frame()]], "rt:frame: the runtime was closed during the call" },
  }
  for _, c in ipairs(closes) do
    it("rt:close() by a metamethod during " .. c[1] .. " closes at the call's end, which says so", function()
      local code, out = child(c[2])
      local _, msg = verdict(out, code)
      assert.is_string(msg, "the call was accepted: " .. out)
      assert.truthy(msg:find(c[3]), "message '" .. msg .. "' does not say " .. c[3])
      assert.truthy(msg:find("by a metamethod of the pipeline's tables", 1, true), msg)
      names_no_internal(msg)
      -- closed now, and a frame says so naming rt:frame
      local after = out:match("AFTER\t([^\n]*)")
      assert.truthy(after and after:find("^false .*'frame'.*runtime is closed"), out)
      names_no_internal(after)
    end)
  end

  -- re-plans, reloads, frames and read-backs from a metamethod during a re-plan: refused
  local calls = {
    { "rt:set_resolution", "rt:set_resolution('main', 16, 16)" },
    { "rt:set_dimension", "rt:set_dimension('eye', 2)" },
    { "rt:reload", "rt:reload(P(9))" },
    { "rt:frame", "rt:frame()" },
    { "rt:read", "rt:read('o')" },
  }
  local during = {
    { "rt:reload", "rt:reload(p)", true },
    { "rt:set_resolution", "rt:set_resolution('main', 16, 16)" },
    { "rt:set_dimension", "rt:set_dimension('eye', 2)" },
  }
  for _, d in ipairs(during) do
    for _, call in ipairs(calls) do
      it(call[1] .. " from a metamethod during " .. d[1] .. " is refused and the outer call completes", function()
        local code, out = child(([[
          local p = P(3)
          p.nodes[2] = { name = "side", side_effects = true }
          local inner
          p.nodes[2] = trap(p.nodes[2], function()
            local ok, e = pcall(function() return %s end)
            inner = ok and "accepted" or tostring(e)
          end)
          rt = fg.runtime(dev, %s)
          rt:frame()
          armed = true
          local res = %s
          assert(res, "the outer call failed")
          assert(rt:frame(), "no frame after it")
          assert(rt:read("o"))
          return nil, tostring(inner)]]):format(call[2], d[3] and "P(3)" or "p", d[2]))
        local _, msg = verdict(out, code)
        assert.is_string(msg, out)
        assert.truthy(msg:find(call[1] .. " during " .. d[1] .. " is refused", 1, true), out)
        names_no_internal(msg)
      end)
    end
  end

  -- (frame inputs are plain tables: one with a metatable is refused before
  -- any of its metamethods runs, spec/hostile_third_spec.lua)
  it("frame inputs whose __index would close or re-plan inside run: refused before the frame", function()
    local code, out = child([[
      local p = P(3)
      p.nodes[1].create.cam = { blob = true }
      local run = p.nodes[1].run
      p.nodes[1].run = function(cmd, ctx) run(cmd, ctx) ctx.blob("cam") end
      rt = fg.runtime(dev, p)
      local ran = false
      local inputs = setmetatable({}, { __index = function()
        ran = true
        pcall(rt.set_resolution, rt, "main", 16, 16)
        rt:close()
      end })
      local ok, err = pcall(rt.frame, rt, inputs)
      assert(not ok and not ran, "accepted, or a metamethod ran")
      return nil, ("%s | %s | %s"):format(tostring(err):match("got a table with a metatable") or tostring(err),
                                         tostring(rt), type(rt:frame({ cam = {} })))]])
    local _, msg = verdict(out, code)
    assert.truthy(msg:find("^got a table with a metatable | framegraph.runtime %(.* | table$"), out)
    assert.falsy(msg:find("closed", 1, true), out)
  end)

  it("rt:frame and rt:reload on a runtime closed after a reload name the call", function()
    local code, out = child([[
      local rt = fg.runtime(dev, P(3))
      assert(rt:reload(P(4, true)))
      rt:close()
      local _, a = pcall(function() return rt:frame() end)
      local _, b = pcall(function() return rt:reload(P(3)) end)
      local _, c = pcall(function() return rt:graph() end)
      return nil, table.concat({ a, b, c }, " | ")]])
    local _, msg = verdict(out, code)
    assert.truthy(msg:find("'frame' on bad self (runtime is closed", 1, true), out)
    assert.truthy(msg:find("'reload' on bad self (runtime is closed", 1, true), out)
    assert.truthy(msg:find("'graph' on bad self (runtime is closed", 1, true), out)
    names_no_internal(msg)
  end)

  -- a graph of fg.compile: graph:update re-declares it from the tables
  local GRAPH = [[
    local function gp(fmt)
      return { resolutions = { main = { 32, 32 } }, outputs = { "out" }, nodes = {
        { name = "a", create = { x = { format = "rgba8_unorm", size = "main" } } },
        { name = "b", read = { "x" }, create = { out = { format = fmt, size = "main" } } } } }
    end
    local g = fg.compile(gp("rgba8_unorm"))
    local q = gp("rgba16_sfloat")
    -- the n-th read of an absent field of node b runs `f` (15..23: inside the C declaration)
    local function at(n, f)
      local k = 0
      setmetatable(q.nodes[2], { __index = function() k = k + 1 if k == n then f() end end })
    end
  ]]
  for _, n in ipairs({ 1, 15, 20, 23 }) do
    it("g:close() by a metamethod during graph:update (read " .. n .. ") closes at its end, which says so", function()
      local code, out = child(GRAPH .. ([[
        at(%d, function() g:close() end)
        local ok, e = pcall(function() return g:update(q) end)
        assert(not ok, "accepted")
        local ok2, e2 = pcall(function() return g:order() end)
        return nil, tostring(e) .. " | " .. tostring(ok2) .. " " .. tostring(e2)]]):format(n))
      local _, msg = verdict(out, code)
      assert.truthy(msg:find("graph:update: the graph was closed during the call (g:close() called by a metamethod",
                             1, true), out)
      assert.truthy(msg:find("| false .*'order'.*graph is closed"), out)
      assert.falsy(msg:find("node_redeclare", 1, true), out)
      assert.falsy(msg:find("recompile", 1, true), out)
    end)
  end

  it("graph methods and graph:update from a metamethod during graph:update are refused", function()
    local code, out = child(GRAPH .. [[
      local got = {}
      at(16, function()
        for _, f in ipairs({ function() return g:update(gp("rgba8_unorm")) end, function() return g:order() end,
                             function() return g:set_resolution("main", 8, 8) end, function() return g:stats() end }) do
          local ok, e = pcall(f)
          got[#got + 1] = ok and "accepted" or tostring(e)
        end
      end)
      local c = g:update(q)
      assert(c.recompiled)
      for _, r in ipairs(g:resources()) do if r.name == "out" then assert(r.format == "rgba16_sfloat") end end
      return nil, table.concat(got, " | ")]])
    local _, msg = verdict(out, code)
    assert.truthy(msg:find("graph:update during graph:update is refused", 1, true), out)
    for _, m in ipairs({ "order", "set_resolution", "stats" }) do
      assert.truthy(msg:find("graph:" .. m .. " during graph:update is refused", 1, true), out)
    end
  end)

  it("rt:reload, rt:graph and rt:frame after rt:close() in the same run name the call", function()
    local code, out = child([[
      local msgs = {}
      local p = P(3)
      local run = p.nodes[1].run
      p.nodes[1].run = function(cmd, ctx)
        run(cmd, ctx)
        rt:close()
        for _, f in ipairs({ function() return rt:reload(P(4)) end, function() return rt:graph() end,
                             function() return rt:frame() end }) do
          local ok, e = pcall(f)
          msgs[#msgs + 1] = ok and "accepted" or tostring(e)
        end
      end
      rt = fg.runtime(dev, p)
      local stats = rt:frame()
      return nil, type(stats) .. " | " .. table.concat(msgs, " | ")]])
    local _, msg = verdict(out, code)
    assert.truthy(msg:find("^table | "), out)
    for _, m in ipairs({ "reload", "graph", "frame" }) do
      assert.truthy(msg:find("'" .. m .. "' on bad self (runtime is closed (rt:close() was called in a node's run", 1, true), out)
    end
    names_no_internal(msg)
  end)
end)
