-- Async compute on lavapipe (one queue family, one queue): compute nodes
-- declared queue = "async" render bit-identically to the same pipeline
-- without it, with 0 validation messages (synchronization validation on),
-- both through the async machinery's own command buffers, semaphores and
-- submissions on the one queue (async_queue = "same") and with the async
-- nodes folded into the graphics queue (async_queue = "off"). The plan keeps
-- every async node's resources off the memory of the graphics nodes it may
-- run beside.
package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
local fg = require("framegraph")

local SHADERS = fg.shader_dir()
local W, H = 40, 24

local function groups(ctx) return (ctx.width + 7) // 8, (ctx.height + 7) // 8 end

-- gbuffer (pass) ; shade (pass) ; ao (async, reads albedo: starts after
-- gbuffer, so beside shade, declared before it) ; noise (async) -> combine
-- (ao, noise) -> final (mixed, shaded)
local function pipeline(sh, async)
  local q = async and "async" or nil
  local img = function(extra)
    local t = { format = "rgba8_unorm", size = { W, H } }
    for k, v in pairs(extra or {}) do t[k] = v end
    return t
  end
  return {
    name = "async", outputs = { "final" },
    nodes = {
      { name = "gbuffer", create = { albedo = img() }, pass = { color = { { "albedo", clear = { 0, 0, 0, 1 } } } },
        run = function(cmd) cmd:draw(sh.uv, {}, 3, { 0.25 }) end },
      { name = "shade", create = { shaded = img() }, pass = { color = { { "shaded", clear = { 0, 0, 0, 1 } } } },
        run = function(cmd) cmd:draw(sh.uv, {}, 3, { 0.75 }) end },
      { name = "ao", queue = q, read = { albedo = "storage" }, create = { ao = img() },
        run = function(cmd, ctx) local gx, gy = groups(ctx); cmd:dispatch(sh.blur, { [0] = "albedo", [1] = "ao" }, gx, gy, 1) end },
      { name = "noise", queue = q, create = { noise = img() },
        run = function(cmd, ctx) local gx, gy = groups(ctx); cmd:dispatch(sh.fill, { [0] = "noise" }, gx, gy, 1, { 11 }) end },
      { name = "combine", read = { ao = "storage", noise = "storage" }, create = { mixed = img() },
        run = function(cmd, ctx) local gx, gy = groups(ctx)
          cmd:dispatch(sh.combine, { [0] = "ao", [1] = "noise", [2] = "mixed" }, gx, gy, 1, { 0.5 }) end },
      { name = "final", read = { mixed = "storage", shaded = "storage" }, create = { final = img() },
        run = function(cmd, ctx) local gx, gy = groups(ctx)
          cmd:dispatch(sh.combine, { [0] = "mixed", [1] = "shaded", [2] = "final" }, gx, gy, 1, { 0.25 }) end },
    },
  }
end

local function shaders(dev)
  local sh = {}
  for _, n in ipairs{ "fill", "blur", "combine" } do sh[n] = fg.shader(dev, SHADERS .. "/rt_" .. n .. ".comp.spv") end
  sh.uv = fg.shader(dev, SHADERS .. "/rt_uv.frag.spv", { fragment_only = true })
  return sh
end

local function render(dev, sh, async, opts, frames)
  local rt = fg.runtime(dev, pipeline(sh, async), opts)
  local st
  for _ = 1, frames or 4 do st = rt:frame() end
  local out = assert(rt:read("final"))
  dev:wait_idle()  -- the last frame's timestamps are then readable
  local t = rt:timings()
  rt:close()
  return out, st, t
end

describe("async compute", function()
  describe("planning (no device)", function()
    local stub = setmetatable({}, { __index = function() return {} end })
    it("validates queue: only \"async\" or \"graphics\", and never on a node with a pass", function()
      local p = pipeline(stub, true)
      p.nodes[3].queue = "compute"
      local ok, err = pcall(fg.compile, p)
      assert.is_false(ok)
      assert.truthy(tostring(err):find("'ao': queue must be \"async\"", 1, true))
      p = pipeline(stub, true)
      p.nodes[1].queue = "async"
      ok, err = pcall(fg.compile, p)
      assert.is_false(ok)
      assert.truthy(tostring(err):find("'gbuffer': queue = \"async\" is for compute nodes", 1, true))
      p = pipeline(stub, true)
      p.nodes[3].read = { albedo = { usage = "sampled", stage = "fragment" } }
      ok, err = pcall(fg.compile, p)
      assert.is_false(ok)
      assert.truthy(tostring(err):find("read 'albedo': stage 'fragment' is a graphics stage", 1, true), tostring(err))
    end)

    it("keeps an async node's resources off the memory of the graphics nodes it may run beside", function()
      local g = fg.compile(pipeline(stub, true), { schedule = "declared" })
      local inst, byslot, byname = g:instances(), {}, {}
      for _, i in ipairs(inst) do byslot[i.slot] = i; byname[i.name] = i end
      local ao = byslot[3]
      assert.are.equal("async", ao.queue)
      assert.are.equal(1, ao.fork)       -- after gbuffer
      assert.are.equal(5, ao.join)       -- before combine
      -- users per resource (name, frame) -> slots; then every pair sharing bytes
      local res = g:resources()
      local function users(r)
        local s = {}
        for _, t in ipairs(r.users) do s[#s + 1] = byname[t.instance] end
        return s
      end
      local checked = 0
      for a = 1, #res do
        for b = a + 1, #res do
          local A, B = res[a], res[b]
          if A.heap and A.heap == B.heap and A.frame == B.frame and A.offset < B.offset + B.bytes
             and B.offset < A.offset + A.bytes then
            for _, ua in ipairs(users(A)) do
              for _, ub in ipairs(users(B)) do
                local x, y = ua, ub
                if y.queue == "async" then x, y = y, x end
                if x.queue == "async" and y.queue ~= "async" then
                  checked = checked + 1
                  assert.is_true(y.slot <= x.fork or y.slot >= x.join,
                    ("%s (%s) shares memory with %s (%s), which may run beside it"):format(A.name, x.name, B.name, y.name))
                end
              end
            end
          end
        end
      end
      assert.is_true(checked > 0, "no async resource shares memory at all: the check checked nothing")
      local s = g:stats()
      assert.are.equal(2, s.async.instances)
      assert.is_true(s.async.serial_bytes <= s.async.heap_bytes)
      assert.is_true(s.async.heap_bytes <= s.async.region_bytes)
      local serial = fg.compile(pipeline(stub, false), { schedule = "declared" }):stats()
      assert.are.equal(0, serial.async.instances)
      assert.are.equal(serial.heap_bytes, serial.async.region_bytes)
    end)
  end)

  it("shows on the report page what each async instance may run beside and what it costs", function()
    local report = require("framegraph.report")
    local stub = setmetatable({}, { __index = function() return {} end })
    local html = report.html(fg.compile(pipeline(stub, true), { schedule = "declared" }))
    assert.truthy(html:find("<h2>Async compute</h2>", 1, true))
    assert.truthy(html:find("2 instances on the async queue", 1, true))
    assert.truthy(html:find('<td class="l">ao</td><td class="l">gbuffer</td><td class="l">combine</td><td class="l">shade</td>', 1, true),
                  "ao runs after gbuffer, before combine, beside shade")
    assert.are.equal("", report.async_html(fg.compile(pipeline(stub, false))))
  end)

  -- "auto": the device's own async queue (none on lavapipe; a compute family
  -- on a GPU, with FG_DEVICE=gpu)
  for _, mode in ipairs{ "same", "off", "auto" } do
    describe("on lavapipe, async_queue = \"" .. mode .. "\"", function()
      local dev, sh
      setup(function()
        dev = fg.vulkan{ validation = true, prefer = "software", async_queue = mode }
        sh = shaders(dev)
      end)
      teardown(function() dev:close() end)
      after_each(function() assert.are.same({}, dev:messages()) end)

      it("renders bit-identically to the serial pipeline", function()
        local serial, sst = render(dev, sh, false, { solver = "best" })
        local async, ast, t = render(dev, sh, true, { solver = "best" })
        local poisoned = render(dev, sh, true, { solver = "best", poison = true, seed = 77 })
        assert.are.equal(W * H * 4, #serial)
        assert.is_true(serial == async, "the async pipeline's output differs from the serial one")
        assert.is_true(serial == poisoned, "poison changed the async output: a resource is read before it is written")
        assert.are.equal(1, sst.submits)
        assert.is_false(sst.async_queue)
        local has_queue = dev:info().async_queue ~= "none"
        assert.are.equal(has_queue, ast.async_queue)
        if has_queue then
          -- gbuffer | shade | ao + noise | combine + final
          assert.is_true(ast.submits >= 3, "the async nodes went into their own submissions: " .. ast.submits)
          assert.are.equal(6, #t)
          for _, e in ipairs(t) do
            assert.is_true(e.gpu_ms >= 0 and e.start_ms >= 0, e.name)
            assert.are.equal((e.name == "ao" or e.name == "noise") and "async" or "graphics", e.queue)
          end
          assert.is_true(t.frame_ms >= 0)
        else
          assert.are.equal(1, ast.submits)
        end
      end)

      it("reloads from an async plan to a larger serial one and back", function()
        local rt = fg.runtime(dev, pipeline(sh, true))
        for _ = 1, 3 do rt:frame() end
        local big = pipeline(sh, false)
        local prev = "final"
        for k = 1, 6 do   -- six more compute nodes after final: more instances than before
          local out, src = "extra" .. k, prev
          big.nodes[#big.nodes + 1] = { name = out, read = { [src] = "storage" },
            create = { [out] = { format = "rgba8_unorm", size = { W, H } } },
            run = function(cmd, ctx) local gx, gy = groups(ctx); cmd:dispatch(sh.blur, { [0] = src, [1] = out }, gx, gy, 1) end }
          prev = out
        end
        big.outputs = { prev }
        assert(rt:reload(big))
        local st
        for _ = 1, 3 do st = rt:frame() end
        dev:wait_idle()
        assert.are.equal(1, st.submits)
        assert.are.equal(12, #assert(rt:timings()))
        assert(rt:reload(pipeline(sh, true)))
        for _ = 1, 3 do st = rt:frame() end
        dev:wait_idle()
        assert.are.equal(6, #assert(rt:timings()))
        assert.are.equal(dev:info().async_queue ~= "none", st.async_queue)
        rt:close()
      end)
    end)
  end
end)
