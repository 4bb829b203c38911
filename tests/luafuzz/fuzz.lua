-- Lua-API sequence fuzzer: random sequences of public calls with random and
-- hostile arguments against a runtime on the software device (lavapipe),
-- validation and synchronization validation on. A sequence is reproducible
-- from its seed alone. A finding is a crash (the process dies: run it under
-- ASan, scripts/sanitize.sh runs spec/luafuzz_spec.lua), a hang (the
-- caller's timeout), a validation message, or a call that returns neither a
-- value nor a message. Refused calls (errors with a message) are expected.
--
--   lua5.4 tests/luafuzz/fuzz.lua [--seed N] [--sequences N] [--seconds S] [--calls N] [--trace]
--     runs sequences seed, seed+1, ... until either bound; prints the figures
--     and every finding with its seed ("--seed N --sequences 1" replays one;
--     --trace names each call on stderr, so a crash shows the call that died).
--   require("luafuzz.fuzz").run{ seed =, sequences =, seconds =, calls = } -> figures
local fg = require("framegraph")

local M = {}

local SH = fg.shader_dir()

-- Hostile values: integers at the casts' edges, non-integers, NaN, infinities, wrong types.
local HOSTILE = { 0, -1, 1, 2, 3, 7, 2 ^ 31, 2 ^ 32, 2 ^ 40, 2 ^ 53, -2 ^ 63, math.maxinteger, math.mininteger,
                  0.5, 1.5, 0 / 0, math.huge, -math.huge, "1", "x\0y", true, {}, function() end }

local function pick(r, t) return t[r(#t)] end

-- Calls that return a value or nil + message (the others return nothing).
local RETURNS = { frame = true, ["frame inputs"] = true, read = true, save_png = true, set_resolution = true,
                  set_dimension = true, reload = true, upload = true }

local function pipelines(sh)
  local function groups(ctx) return (ctx.width + 7) // 8, (ctx.height + 7) // 8 end
  local function mux(eyes, w)
    return {
      dimensions = { eye = eyes }, resolutions = { main = { w, w } }, outputs = { "final", "other" },
      nodes = {
        { name = "fill", multiplex = { "eye" }, create = { noise = { format = "rgba8_unorm", size = "main" },
                                                           cam = { blob = {} } },
          run = function(cmd, ctx)
            local gx, gy = groups(ctx)
            cmd:dispatch(sh.fill, { [0] = "noise" }, gx, gy, 1, { ctx.index.eye })
            ctx.blob("cam").seen = true
            if M.hook then local h = M.hook; M.hook = nil; h(cmd, ctx) end
          end },
        { name = "out", multiplex = { "eye" }, read = { noise = "storage" },
          create = { final = { format = "rgba8_unorm", size = "main", history = "clear" } },
          history = { final = "storage" },
          run = function(cmd, ctx)
            local gx, gy = groups(ctx)
            cmd:dispatch(sh.invert, { [0] = "noise", [1] = "final" }, gx, gy, 1)
          end },
        { name = "o2", create = { other = { format = "rgba8_unorm", size = { 8, 8 } } },
          pass = { color = { { "other", clear = { 0, 0, 1, 1 } } } },
          run = function(cmd) cmd:draw(sh.uv, {}, 3, { 0.5 }) end },
      } }
  end
  local ext = {
    outputs = { "x" }, resolutions = { main = { 8, 8 } },
    external = { x = { format = "rgba8_unorm", size = { 8, 8 }, provide = function()
      if M.hook then local h = M.hook; M.hook = nil; h() end
      return M.image
    end } },
    nodes = { { name = "f", create = { t = { format = "rgba8_unorm", size = "main" } }, modify = { x = "storage" },
                run = function(cmd) cmd:dispatch(sh.fill, { [0] = "x" }, 1, 1, 1, { 1 }) end } } }
  return { mux(2, 16), mux(1, 8), ext, mux(3, 24),
           { outputs = { "o" }, nodes = { { name = "c", create = { o = { format = "rgba8_unorm", size = { 8, 8 },
                                                                          usage = "transfer_dst" } },
                                            run = function(cmd) cmd:clear("o", { 1, 0, 0, 1 }) end } } },
           { nodes = { { name = 5 } } },                        -- invalid
           { outputs = { "final" }, nodes = { { name = "x", read = { "nothing" } } } } }
end

-- One sequence: returns calls made, refused, findings (list of strings).
local function sequence(dev, seed, ncalls, tmp, trace)
  math.randomseed(seed)
  local r = math.random
  local sh = {
    fill = fg.shader(dev, SH .. "/rt_fill.comp.spv"),
    invert = fg.shader(dev, SH .. "/rt_invert.comp.spv"),
    uv = fg.shader(dev, SH .. "/rt_uv.frag.spv"),
  }
  M.image = dev:external_image("rgba8_unorm", 8, 8)
  local P = pipelines(sh)
  local rt = fg.runtime(dev, P[r(3)], { memory_budget = r(2) == 1 and 1 << 20 or nil })
  local watcher, watch_path = nil, tmp .. ".pipeline.lua"
  local view = rt:graph()
  local allocs = {}
  local calls, refused, findings = 0, 0, {}
  local log = {}
  local function arg() return r(3) == 1 and pick(r, HOSTILE) or r(4) end
  local actions = {
    function() return "frame", rt.frame, rt end,
    function() return "frame inputs", rt.frame, rt, r(2) == 1 and { cam = { x = 1 } } or { [pick(r, { "cma", "x\0", 1 })] = {} } end,
    function() return "read", rt.read, rt, pick(r, { "final", "other", "noise", "nope", "final\0x" }), arg() end,
    function() return "save_png", rt.save_png, rt, pick(r, { "final", "other" }), tmp .. ".png", arg() end,
    function() return "set_resolution", rt.set_resolution, rt, pick(r, { "main", "mian" }), r(2) == 1 and r(64) or arg(), r(2) == 1 and r(64) or arg() end,
    function() return "set_dimension", rt.set_dimension, rt, "eye", r(2) == 1 and r(5) or arg() end,
    function() return "reload", rt.reload, rt, P[r(#P)] end,
    function() return "view", view[pick(r, { "order", "resources", "stats", "close", "set_dimension", "update" })], view, "eye", 2 end,
    function() return "close", function()   -- and half the time a new one (else calls on a closed runtime)
      rt:close()
      if r(2) == 1 then rt = assert(fg.runtime(dev, P[r(3)])); view = rt:graph() end
    end end,
    function() return "new runtime", function() rt:close(); rt = assert(fg.runtime(dev, P[r(3)])); view = rt:graph() end end,
    function() return "upload", rt.upload, rt, string.rep("x", r(300)), pick(r, { 0, 4, 3, 2 ^ 40 }) end,
    function() return "runtime opts", function()
      local o = pick(r, { { upload_bytes = pick(r, { 1 << 62, 1 << 40, 256, 255, 0 / 0 }) },
                          { upload_segment = pick(r, { 256, 300, 1 << 40 }) }, { memory_budget = pick(r, { 1, 4096, -1 }) },
                          { seed = arg() }, { profile = { alignment = pick(r, { 3, 256, 1 << 62 }) } } })
      local n = fg.runtime(dev, P[r(3)], o)
      if n then n:upload("abcd") n:frame() n:close() end
    end end,
    function() return "hook in run", function()
      local inner = pick(r, {
        function() rt:close() end, function() rt:set_resolution("main", 32, 32) end,
        function() rt:set_dimension("eye", 2) end, function() rt:reload(P[1]) end,
        function() sh.fill:close() end, function() rt:read("final") end, function() M.image:close() end,
        function() rt:frame() end,
        function(cmd) cmd:dispatch(sh.fill, { [0] = "noise" }, arg(), 1, 1, { 1 }) end,
        function(cmd) cmd:clear("noise", { arg(), 0, 0, 1 }) end,
        function(cmd) cmd:blit("noise", "noise") end,
        function(cmd) cmd:draw(sh.uv, {}, arg()) end,
        function(_, ctx) ctx.blob(pick(r, { "cam", "x\0" })) end })
      M.hook = inner
      return rt:frame()
    end end,
    -- user code the re-plans run: metamethods of the pipeline's tables that
    -- close, re-plan, reload, frame or read the runtime during rt:reload,
    -- rt:set_resolution or rt:set_dimension
    function() return "metamethod during a re-plan", function()
      local q = pipelines(sh)[pick(r, { 1, 2, 4 })]
      local armed = false
      local inner = pick(r, { function() rt:close() end, function() rt:set_resolution("main", 32, 32) end,
                              function() rt:set_dimension("eye", 2) end, function() rt:reload(P[1]) end,
                              function() rt:frame() end, function() rt:read("final") end })
      local mt = { __index = function() if armed then armed = false inner() end end }
      q.nodes[#q.nodes + 1] = setmetatable({ name = "side", side_effects = true }, mt)
      if r(2) == 1 then setmetatable(q.nodes, mt) end
      armed = r(2) == 1
      local ok = pcall(rt.reload, rt, q)
      armed = ok
      return pick(r, { function() return rt:set_resolution("main", r(64), r(64)) end,
                       function() return rt:set_dimension("eye", r(4)) end,
                       function() return rt:frame() end })()
    end end,
    -- the caller changes the table it gave fg.runtime / rt:reload, then re-plans
    function() return "caller changes its table", function()
      local q = pipelines(sh)[r(3)]
      if r(2) == 1 then rt:close(); rt = assert(fg.runtime(dev, q)); view = rt:graph() else assert(rt:reload(q)) end
      pick(r, { function() q.nodes = nil end, function() q.nodes[1].run = nil end, function() q.resolutions = nil end,
                function() table.remove(q.nodes, 1) end, function() q.nodes[1].create = 5 end })()
      return pick(r, { function() return rt:set_resolution("main", r(64), r(64)) end,
                       function() return rt:set_dimension("eye", r(4)) end,
                       function() return rt:reload(q) end, function() return rt:frame() end })()
    end end,
    function() return "shader close", function() sh[pick(r, { "fill", "invert", "uv" })]:close() end end,
    function() return "shader again", function() sh.fill = fg.shader(dev, SH .. "/rt_fill.comp.spv") end end,
    function() return "allocator", function()
      local kind = pick(r, { "tlsf", "buddy", "slab", "linear", "ring", "freelist" })
      local a = fg.allocator(kind, pick(r, { 4096, 1 << 20, 0, -1, 2 ^ 40, 0 / 0 }), r(2) == 1 and { block = 64 } or nil)
      allocs[#allocs + 1] = a
      return a and a:alloc(arg() * 16, pick(r, { 16, 3, 0, 2 ^ 40, 0 / 0 }))
    end end,
    function() return "allocator free", function()
      local a = allocs[r(#allocs + 1)]
      if a then a:free(arg()) end
    end end,
    function() return "watch", function()
      local f = assert(io.open(watch_path, "w"))
      f:write(pick(r, { "return {", "local dev = ... return { outputs = { 'o' }, nodes = { { name = 'a', create = { o = { format = 'rgba8_unorm', size = { 4, 4 } } }, pass = { color = { 'o' } } } } }", "error('boom')" }))
      f:close()
      if not watcher or r(4) == 1 then watcher = fg.watch(rt, watch_path) end
      return watcher:poll()
    end end,
    function() return "dev compute", dev.compute, dev, sh.fill, { [0] = arg() }, arg() end,
    -- tables with metamethods where the bindings read a table: __index or
    -- __len that close what the call uses (all refused: plain tables only)
    function() return "metamethod table", function()
      local a = allocs[r(#allocs + 1)]
      local close = pick(r, { function() rt:close() end, function() sh.fill:close() end, function() M.image:close() end,
                              function() if a then a:close() end end, function() collectgarbage() end })
      local t = setmetatable({}, { __index = function() close() return 1 end, __len = function() close() return 1 << 62 end })
      local e = setmetatable({ "noise" }, getmetatable(t))
      return pick(r, {
        function() return rt:frame(t) end, function() return rt:read("final", t) end,
        function() M.hook = function(cmd) cmd:dispatch(sh.fill, pick(r, { t, { [0] = e } }), 1, 1, 1, pick(r, { t, { 1 } })) end
          return rt:frame() end,
        function() return fg.buffer(dev, pick(r, { t, 16 }), pick(r, { t, { usage = t } })) end,
        function() return dev:memory_pool{}:alloc(256, t) end, function() return fg.allocator("tlsf", 4096, t) end,
        function() return fg.pack(pick(r, { t, { t } })) end, function() return sh.fill:pack("push", pick(r, { t, { seed = t } })) end })()
    end end,
    -- finalizers that close an object while a call reads it (its own
    -- allocations run them)
    function() return "finalizer closes", function()
      local a = allocs[r(#allocs + 1)]
      local close = pick(r, { function() pcall(rt.close, rt) end, function() pcall(sh.fill.close, sh.fill) end,
                              function() if a then pcall(a.close, a) end end })
      -- armed only during the call: the object is open until a finalizer
      -- runs inside it
      local armed = false
      for _ = 1, 40 do setmetatable({}, { __gc = function() if armed then close() end end }) end
      local call = pick(r, { function() return rt:read("final", arg()) end, function() return rt:memory() end,
                             function() return rt:stats() end, function() return rt:timings() end,
                             function() return rt:upload("abcdabcd") end, function() return view:resources() end,
                             function() return sh.fill:info() end, function() return a and a:json() end,
                             function() return a and a:defrag_plan() end, function() return rt:frame() end })
      armed = true
      local ok, res, err = pcall(call)
      armed = false
      if not ok then error(res, 0) end
      return res, err
    end end,
  }
  for _ = 1, ncalls do
    local name, f, a1, a2, a3, a4, a5 = pick(r, actions)()
    calls = calls + 1
    log[#log + 1] = name
    if trace then io.stderr:write(("seed %d call %d: %s\n"):format(seed, calls, name)) io.stderr:flush() end
    if type(f) == "function" then
      local ok, res, err = pcall(f, a1, a2, a3, a4, a5)
      if not ok then
        refused = refused + 1
        if type(res) ~= "string" or #res == 0 then
          findings[#findings + 1] = ("seed %d: '%s' raised a %s without a message"):format(seed, name, type(res))
        end
      elseif res == nil and err == nil and RETURNS[name] then
        findings[#findings + 1] = ("seed %d: '%s' returned nil without a message"):format(seed, name)
      elseif res == nil then
        refused = refused + 1
      end
    else
      refused = refused + 1   -- a refused method (nil: not a method of the view)
    end
    M.hook = nil
  end
  pcall(rt.close, rt)
  M.image:close()
  for _, a in ipairs(allocs) do pcall(a.close, a) end
  for _, s in pairs(sh) do pcall(s.close, s) end
  os.remove(watch_path)
  os.remove(tmp .. ".png")
  dev:wait_idle()
  for _, m in ipairs(dev:messages()) do
    findings[#findings + 1] = ("seed %d: validation: %s (calls: %s)"):format(seed, m:sub(1, 400), table.concat(log, ", "))
  end
  return calls, refused, findings
end

function M.run(opts)
  opts = opts or {}
  local seed, nseq, seconds, ncalls = opts.seed or 1, opts.sequences or math.huge, opts.seconds or math.huge, opts.calls or 30
  local dev = fg.vulkan{ validation = true, prefer = "software" }
  local tmp = os.tmpname()
  local t0, fig = os.time(), { sequences = 0, calls = 0, refused = 0, findings = {} }
  local s = seed
  while fig.sequences < nseq and os.time() - t0 < seconds do
    local c, rf, fs = sequence(dev, s, ncalls, tmp, opts.trace)
    fig.sequences, fig.calls, fig.refused = fig.sequences + 1, fig.calls + c, fig.refused + rf
    for _, f in ipairs(fs) do fig.findings[#fig.findings + 1] = f end
    s = s + 1
    if opts.progress and fig.sequences % 50 == 0 then
      io.stderr:write(("%d sequences, %d calls, %d findings\n"):format(fig.sequences, fig.calls, #fig.findings))
    end
  end
  os.remove(tmp)
  dev:close()
  return fig
end

if arg and arg[0] and arg[0]:match("fuzz%.lua$") then
  local o = { progress = true }
  local i = 1
  while arg[i] do
    local k, v = arg[i], tonumber(arg[i + 1])
    if k == "--seed" then o.seed = v elseif k == "--sequences" then o.sequences = v
    elseif k == "--seconds" then o.seconds = v elseif k == "--calls" then o.calls = v
    elseif k == "--trace" then o.trace = true i = i - 1
    else io.stderr:write("unknown option ", k, "\n") os.exit(2) end
    i = i + 2
  end
  if not o.sequences and not o.seconds then o.seconds = 60 end
  local f = M.run(o)
  print(("luafuzz: %d sequences, %d calls, %d refused, %d findings"):format(f.sequences, f.calls, f.refused, #f.findings))
  for _, m in ipairs(f.findings) do print(m) end
  os.exit(#f.findings == 0 and 0 or 1)
end

return M
