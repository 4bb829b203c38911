-- Hostile arguments across the Lua surface, found by a second adversarial
-- pass (issue 27): each case runs in its own lua5.4 process on lavapipe with
-- validation on, so a crash is a failed case and not a dead spec run. A case
-- must be refused (raise, or return nil/false and a message) with a message
-- matching its pattern, exit normally and leave no validation message.
local sh = require("spec.support.sh")

local PROLOGUE = [[
local fg = require("framegraph")
local dev = fg.vulkan{ validation = true, prefer = "software" }
local fill = fg.shader(dev, fg.shader_dir() .. "/rt_fill.comp.spv")
local TMP = os.tmpname()
local function one(run, usage)
  return fg.runtime(dev, { outputs = { "o" }, nodes = { { name = "n",
    create = { o = { format = "rgba8_unorm", size = { 8, 8 }, usage = usage } }, run = run } } })
end
local function sh_write(path, text) local f = assert(io.open(path, "wb")) f:write(text) f:close() end
local function case()
]]
local EPILOGUE = [[
end
local ok, a, b = pcall(case)
if ok and a ~= nil and a ~= false then print("ACCEPTED") else print("REFUSED\t" .. tostring(ok and b or a)) end
os.remove(TMP)
collectgarbage()
print("MESSAGES\t" .. #dev:messages())
]]

local function child(body)
  return sh.child(PROLOGUE .. body .. "\n" .. EPILOGUE)
end

local TEX = "data/mesh/torus_knot.png"
local cases = {
  -- counts that reached the driver
  { "pool:alloc past the heap returns nil, message (no vkAllocateMemory past it)",
    "return dev:memory_pool{}:alloc(2^45, {})", "do not fit memory heap" }, -- 32 TiB: past any heap
  { "pool:alloc of 2^53 bytes", "return dev:memory_pool{}:alloc(2^53, {})", "do not fit memory heap" },
  -- integers cast to 32 bits
  { "memory_type_bits of 2^32 is refused, not wrapped to 0",
    "return dev:memory_pool{}:alloc(256, { memory_type_bits = 2^32 })", "memory_type_bits must be an integer in 0..4294967295" },
  { "keep_empty of 2^32", "return dev:memory_pool{ keep_empty = 2^32 }", "keep_empty must be an integer in 0%.%.4294967295" },
  { "dedicated_cache of 2^33", "return dev:memory_pool{ dedicated_cache = 2^33 }", "dedicated_cache must be" },
  { "sh:pack binding -1 is not the push block", "return fill:pack(-1, { seed = 1 })", "binding must be \"push\" or a binding number" },
  { "sh:pack binding 2^40", "return fill:pack(2^40, { seed = 1 })", "binding must be" },
  { "sh:pack binding maxinteger", "return fill:pack(math.maxinteger, { seed = 1 })", "binding must be" },
  -- flags given other values than booleans
  { "pool:alloc host_visible = 'no'", "return dev:memory_pool{}:alloc(256, { host_visible = 'no' })", "host_visible must be true or false" },
  { "pool:alloc dedicated = 1", "return dev:memory_pool{}:alloc(256, { dedicated = 1 })", "dedicated must be true or false" },
  { "memory_pool externally_synchronized = 1", "return dev:memory_pool{ externally_synchronized = 1 }", "externally_synchronized must be true or false" },
  { "fg.vulkan validation = 'no'", "return fg.vulkan{ validation = 'no', prefer = 'software' }", "validation must be true or false" },
  { "fg.vulkan present = 1", "return fg.vulkan{ present = 1, prefer = 'software' }", "present must be true or false" },
  { "fg.shader depth_test = 'no'", "return fg.shader(dev, fg.shader_dir() .. '/rt_uv.frag.spv', { depth_test = 'no' })", "depth_test must be true or false" },
  { "fg.shader blend = 1", "return fg.shader(dev, fg.shader_dir() .. '/rt_uv.frag.spv', { blend = 1 })", "blend must be true or false" },
  { "fg.shader vertex = 5 says what vertex takes", "return fg.shader(dev, fg.shader_dir() .. '/rt_uv.frag.spv', { vertex = 5 })", "opts.vertex must be SPIR%-V bytes or a path" },
  -- binding entries: misspelt keys and values
  { "a misspelt sampler name", [[
      local samp = fg.shader(dev, fg.shader_dir() .. "/rt_sample.comp.spv")
      local tex = fg.image(dev, "]] .. TEX .. [[")
      local rt = one(function(cmd) cmd:dispatch(samp, { [0] = { tex, sampler = "nearset" }, [1] = "o" }, 1, 1, 1) end)
      return rt:frame()]], "binding 0: sampler must be \"nearest\" or \"linear\", got nearset" },
  { "a misspelt key of an image binding", [[
      local samp = fg.shader(dev, fg.shader_dir() .. "/rt_sample.comp.spv")
      local tex = fg.image(dev, "]] .. TEX .. [[")
      local rt = one(function(cmd) cmd:dispatch(samp, { [0] = { tex, smapler = "nearest" }, [1] = "o" }, 1, 1, 1) end)
      return rt:frame()]], "binding 0: unknown field 'smapler'" },
  { "a misspelt key of a resource binding", [[
      local rt = one(function(cmd) cmd:dispatch(fill, { [0] = { "o", histroy = true } }, 1, 1, 1, { 1 }) end)
      return rt:frame()]], "binding 0: unknown field 'histroy'" },
  { "history = 'yes'", [[
      local rt = one(function(cmd) cmd:dispatch(fill, { [0] = { "o", history = "yes" } }, 1, 1, 1, { 1 }) end)
      return rt:frame()]], "history must be true or false" },
  { "clear of an integer format past its range names the range", [[
      local rt = fg.runtime(dev, { outputs = { "c" }, nodes = { { name = "b",
        create = { c = { format = "rgba8_uint", size = { 8, 8 }, usage = "transfer_dst" } },
        run = function(cmd) cmd:clear("c", { 2^40, 0, 0, 0 }) end } } })
      return rt:frame()]], "must be an integer in 0%.%.4294967295 for an integer format" },
  { "clear of a buffer with more values than its one fill word", [[
      local rt = fg.runtime(dev, { outputs = { "b" }, nodes = { { name = "n",
        create = { b = { buffer = 64, usage = "transfer_dst" } },
        run = function(cmd) cmd:clear("b", { 7, 8 }) end } } })
      return rt:frame()]], "takes {value} %(one fill word%); got the key 2" },
  { "clear of a colour image with a fifth value", [[
      local rt = one(function(cmd) cmd:clear("o", { 1, 0, 0, 1, 5 }) end, "transfer_dst")
      return rt:frame()]], "takes {r, g, b, a}; got the key 5" },
  { "clear with a named key", [[
      local rt = one(function(cmd) cmd:clear("o", { r = 1 }) end, "transfer_dst")
      return rt:frame()]], "got the key 'r'" },
  { "a texture upload longer than the texture", [[
      local rt = fg.runtime(dev, { outputs = { "t" }, nodes = { { name = "n",
        create = { t = { format = "rgba8_unorm", size = { 2, 2 }, usage = "transfer_dst" } },
        run = function(cmd, ctx) cmd:copy(assert(ctx.upload(string.rep("\255", 20))), "t") end } } })
      return rt:frame()]], "upload of 20 bytes is larger than texture 't'" },
  -- NUL bytes
  { "allocator kind with NUL", "return fg.allocator('tlsf\\0x', 4096)", "NUL" },
  { "fg.buffer usage with NUL", "return fg.buffer(dev, 64, { usage = 'index\\0x' })", "not a buffer usage" },
  { "fg.buffer index type with NUL", "return fg.buffer(dev, 64, { usage = 'index', index = 'uint16\\0x' })", "opts.index must be" },
  { "fg.image format with NUL", "return fg.image(dev, '" .. TEX .. "', { format = 'rgba8_unorm\\0x' })", "opts.format must be" },
  { "sh:pack('push\\0x')", "return fill:pack('push\\0x', { seed = 1 })", "binding must be" },
  { "sh:pack member name with NUL", "return fill:pack('push', { ['seed\\0x'] = 1 })", "holds a NUL byte" },
  { "rt:read index key with NUL", [[
      local rt = fg.runtime(dev, { dimensions = { eye = 2 }, outputs = { "o" }, nodes = { { name = "n", multiplex = { "eye" },
        create = { o = { format = "rgba8_unorm", size = { 8, 8 } } },
        run = function(cmd, ctx) cmd:dispatch(fill, { [0] = "o" }, 1, 1, 1, { ctx.index.eye }) end } } })
      rt:frame()
      return rt:read("o", { ["eye\0x"] = 2 })]], "is not a dimension" },
  { "a format with a NUL shows it", "return fg.compile({ outputs = { 'o' }, nodes = { { name = 'a', create = { o = { format = 'rgba8_unorm\\0', size = { 4, 4 } } } } } })", "unknown format 'rgba8_unorm\\0'" },
  { "fg.core.mtime path with NUL", "return fg.core.mtime('/tmp\\0x')", "NUL" },
  { "report.write_html path with NUL", "return require('framegraph.report').write_html(fg.compile({ outputs = { 'o' }, nodes = { { name = 'a', create = { o = { buffer = 64 } } } } }), TMP .. '\\0x')", "NUL" },
  -- strings that look like numbers, numbers where strings are wanted: the
  -- same rule for every argument (rt:read's index already refused "1")
  { "rt:set_resolution('main', '16', 16)", [[
      local rt = fg.runtime(dev, { resolutions = { main = { 8, 8 } }, outputs = { "o" }, nodes = { { name = "n",
        create = { o = { format = "rgba8_unorm", size = "main" } }, run = function(cmd) cmd:dispatch(fill, { [0] = "o" }, 1, 1, 1, { 1 }) end } } })
      return rt:set_resolution("main", "16", 16)]], "width must be an integer in 1%.%.%d+, got a string" },
  { "cmd:dispatch with a group count '1'", [[
      local rt = one(function(cmd) cmd:dispatch(fill, { [0] = "o" }, "1", 1, 1, { 1 }) end)
      return rt:frame()]], "group count x.*got a string" },
  { "fg.allocator capacity '4096'", "return fg.allocator('tlsf', '4096')", "integer expected, got string" },
  { "a:alloc('16')", "return fg.allocator('tlsf', 4096):alloc('16')", "integer expected, got string" },
  { "pool:alloc('256')", "return dev:memory_pool{}:alloc('256', {})", "integer expected, got string" },
  { "pool:alloc align '16'", "return dev:memory_pool{}:alloc(256, { align = '16' })", "align must be a non%-negative integer" },
  { "fg.pack item size '16'", "return fg.pack({ { size = '16', start = 0, stop = 1 } })", "size" },
  { "fg.buffer list element '2'", "return fg.buffer(dev, { 1, '2', 3 })", "element 2 is not a finite number" },
  { "rt:upload(5) is no string of bytes", [[
      local rt = one(function(cmd) cmd:dispatch(fill, { [0] = "o" }, 1, 1, 1, { 1 }) end)
      return rt:upload(5)]], "string of bytes expected, got number" },
  { "rt:save_png to the path 5", [[
      local rt = one(function(cmd) cmd:dispatch(fill, { [0] = "o" }, 1, 1, 1, { 1 }) end)
      rt:frame()
      return rt:save_png("o", 5)]], "string expected, got number" },
  { "a stale upload's offset", [[
      local rt = one(function(cmd) cmd:dispatch(fill, { [0] = "o" }, 1, 1, 1, { 1 }) end)
      local up = rt:upload("abcd")
      rt:frame() rt:frame()
      return up:offset()]], "upload is stale" },
  { "an upload's size after its runtime closed", [[
      local rt = one(function(cmd) cmd:dispatch(fill, { [0] = "o" }, 1, 1, 1, { 1 }) end)
      local up = rt:upload("abcd")
      rt:close()
      return up:size()]], "upload is stale" },
  -- handles of one allocator used with another
  { "a tlsf handle freed through another tlsf allocator", [[
      local a, b = fg.allocator("tlsf", 4096), fg.allocator("tlsf", 4096)
      local ha = a:allocate(16)
      local hb = b:allocate(16)
      local ok, err = pcall(b.free_handle, b, ha)
      assert(b:stats().allocations == 1 and a:stats().allocations == 1, "an allocation was freed")
      return ok, err]], "not a live allocation of this tlsf allocator" },
  { "a buddy handle freed through a tlsf allocator", [[
      local a, b = fg.allocator("tlsf", 4096), fg.allocator("buddy", 4096)
      local ha = a:allocate(16)
      local hb = b:allocate(16)
      local ok, err = pcall(a.free_handle, a, hb)
      assert(a:stats().allocations == 1, "an allocation was freed")
      return ok, err]], "not a live allocation" },
  { "a:user with another allocator's handle", [[
      local a, b = fg.allocator("linear", 4096), fg.allocator("linear", 4096)
      local ha = a:allocate(16, 1, "mine")
      b:allocate(16, 1, "theirs")
      return b:user(ha)]], "not a live allocation of this linear allocator" },
  -- a watcher's reload callback
  { "w:poll inside its own opts.reload", [[
      local path = TMP .. ".lua"
      local GOOD = "return { outputs = { 'o' }, nodes = { { name = 'a', create = { o = { format = 'rgba8_unorm', size = { 4, 4 } } }, pass = { color = { 'o' } } } } }"
      sh_write(path, GOOD)
      local rt = fg.runtime(dev, path)
      local w
      w = fg.watch(rt, path, { reload = function() return w:poll() end })
      sh_write(path, GOOD .. " ")
      local ok, err = pcall(w.poll, w)
      os.remove(path)
      assert(rt:frame())
      return ok, err]], "w:poll inside its own opts.reload is refused" },
  { "opts.reload returning neither true, changes nor nil, message", [[
      local path = TMP .. ".lua"
      local GOOD = "return { outputs = { 'o' }, nodes = { { name = 'a', create = { o = { format = 'rgba8_unorm', size = { 4, 4 } } }, pass = { color = { 'o' } } } } }"
      sh_write(path, GOOD)
      local rt = fg.runtime(dev, path)
      local w = fg.watch(rt, path, { reload = function() return 5, 6 end })
      sh_write(path, GOOD .. " ")
      local ok, err = pcall(w.poll, w)
      os.remove(path)
      return ok, err]], "opts.reload must return true, changes" },
  -- maps given list entries, skipped silently before
  { "external = { {...} }", "return fg.compile({ outputs = { 'o' }, external = { { format = 'rgba8_unorm', size = { 4, 4 } } }, nodes = { { name = 'a', create = { o = { buffer = 4 } } } } })", "external: entries must be named" },
  { "rename = { 'x' }", "return fg.compile({ outputs = { 'o' }, nodes = { { name = 'a', create = { o = { buffer = 4 } }, rename = { 'x' } } } })", "rename: entries must be named" },
  { "resolutions = { {4, 4} }", "return fg.compile({ resolutions = { { 4, 4 } }, outputs = { 'o' }, nodes = { { name = 'a', create = { o = { buffer = 4 } } } } })", "resolutions: entries must be named" },
  -- empty strings
  { "an empty resource name", "return fg.compile({ outputs = { '' }, nodes = { { name = 'a', create = { [''] = { buffer = 4 } } } } })", "resource name is empty" },
  { "an empty dimension name", "return fg.compile({ dimensions = { [''] = 2 }, outputs = { 'o' }, nodes = { { name = 'a', multiplex = { '' }, create = { o = { buffer = 4 } } } } })", "dimension name is empty" },
  { "an empty resolution name", "return fg.compile({ resolutions = { [''] = { 4, 4 } }, outputs = { 'o' }, nodes = { { name = 'a', create = { o = { format = 'rgba8_unorm', size = '' } } } } })", "resolution name is empty" },
  { "fg.shader with an empty path", "return fg.shader(dev, '')", "argument #2 is empty" },
  { "fg.shader with a directory", "return fg.shader(dev, fg.shader_dir())", "cannot read" },
  -- misspelt option keys
  { "report.write_html misspelt option", "return require('framegraph.report').write_html(fg.compile({ outputs = { 'o' }, nodes = { { name = 'a', create = { o = { buffer = 64 } } } } }), TMP, { titel = 'x' })", "unknown option 'titel'" },
  { "a misspelt field of a fg.pack item", "return fg.pack({ { size = 64, start = 0, stop = 1, aling = 256 } })", "item 1: unknown field 'aling'" },
  { "a misspelt field of a fg.check_packing item", "return fg.check_packing({ { size = 64, start = 0, stop = 1, knd = 1 } }, { 0 })", "item 1: unknown field 'knd'" },
  { "opts.resolutions naming no resolution", "return fg.compile({ resolutions = { main = { 8, 8 } }, outputs = { 'o' }, nodes = { { name = 'a', create = { o = { format = 'rgba8_unorm', size = 'main' } } } } }, { resolutions = { mian = { 4, 4 } } })", "unknown resolution 'mian'" },
}

describe("hostile arguments, each in its own process", function()
  for _, c in ipairs(cases) do
    it(c[1], function()
      local code, out = child(c[2])
      assert.are.equal(0, code, out)
      assert.truthy(out:find("MESSAGES\t0", 1, true), "validation messages or no end: " .. out)
      local msg = out:match("REFUSED\t([^\n]*)")
      assert.is_string(msg, "the call was accepted: " .. out)
      assert.truthy(msg:find(c[3]), "message '" .. msg .. "' does not say " .. c[3])
    end)
  end

  it("a run refused for each new reason leaves the runtime rendering", function()
    local code, out = child([[
      local samp = fg.shader(dev, fg.shader_dir() .. "/rt_sample.comp.spv")
      local tex = fg.image(dev, "]] .. TEX .. [[")
      local hooks = {
        function(cmd) cmd:dispatch(fill, { [0] = { "o", histroy = true } }, 1, 1, 1, { 1 }) end,
        function(cmd) cmd:dispatch(samp, { [0] = { tex, sampler = "x" }, [1] = "o" }, 1, 1, 1) end,
        function() error(setmetatable({}, { __tostring = function() return "t" end })) end,
        function() error(nil) end,
      }
      local msgs = {}
      for i, h in ipairs(hooks) do
        local armed = true
        local rt = one(function(cmd, ctx)
          if armed then armed = false h(cmd, ctx) end
          cmd:dispatch(fill, { [0] = "o" }, 1, 1, 1, { 1 })
        end)
        local ok, err = pcall(rt.frame, rt)
        assert(not ok, "hook " .. i .. " was accepted")
        msgs[#msgs + 1] = tostring(err)
        assert(rt:frame(), "no frame after hook " .. i)
        assert(#rt:read("o") == 256, "no read after hook " .. i)
        rt:close()
      end
      return nil, table.concat(msgs, "|")]])
    assert.are.equal(0, code, out)
    assert.truthy(out:find("MESSAGES\t0", 1, true), out)
    assert.truthy(out:find("unknown field 'histroy'", 1, true), out)
    assert.truthy(out:find("it raised a table, not a message", 1, true), out)
    assert.truthy(out:find("it raised a nil, not a message", 1, true), out)
  end)

  it("a run that writes into ctx does not change the next frame's ctx", function()
    local code, out = child([[
      local seen = {}
      local rt = fg.runtime(dev, { dimensions = { eye = 2 }, outputs = { "o" }, nodes = { { name = "n", multiplex = { "eye" },
        create = { o = { format = "rgba8_unorm", size = { 8, 8 } } },
        run = function(cmd, ctx)
          seen[#seen + 1] = ("%s %s %d %s %s"):format(ctx.node, ctx.name, ctx.index.eye, type(ctx.blob), type(ctx.upload))
          cmd:dispatch(fill, { [0] = "o" }, 1, 1, 1, { ctx.index.eye })
          ctx.index.eye, ctx.name, ctx.node, ctx.blob, ctx.upload = 99, "forged", "x", nil, 5
          rawset(ctx, "index", { eye = 7 })
        end } } })
      rt:frame() rt:frame()
      return nil, table.concat(seen, "|")]])
    assert.are.equal(0, code, out)
    local a, b = "n n[eye=1] 1 function function", "n n[eye=2] 2 function function"
    assert.truthy(out:find("REFUSED\t" .. table.concat({ a, b, a, b }, "|"), 1, true), out)
  end)

  it("rt:graph():pipeline() is a copy: changing it changes no re-plan", function()
    local code, out = child([[
      local rt = fg.runtime(dev, { resolutions = { main = { 8, 8 } }, outputs = { "o" }, nodes = { { name = "n",
        create = { o = { format = "rgba8_unorm", size = "main" } },
        run = function(cmd) cmd:dispatch(fill, { [0] = "o" }, 1, 1, 1, { 3 }) end } } })
      rt:frame()
      local before = rt:read("o")
      local p = rt:graph():pipeline()
      p.nodes[1].run = nil
      p.nodes = nil
      assert(rt:graph():pipeline().nodes[1].run, "the view's pipeline lost its run")
      assert(rt:set_resolution("main", 8, 8) ~= nil)
      assert(rt:set_resolution("main", 16, 16))
      assert(rt:set_resolution("main", 8, 8))
      assert(rt:frame())
      return nil, rt:read("o") == before and "same pixels" or "other pixels"]])
    assert.are.equal(0, code, out)
    assert.truthy(out:find("REFUSED\tsame pixels", 1, true), out)
  end)

  it("rt:read of an external image another runtime used since leaves no validation message", function()
    local code, out = child([[
      local img = dev:external_image("rgba8_unorm", 8, 8)
      local samp = fg.shader(dev, fg.shader_dir() .. "/rt_sample.comp.spv")
      local ext = { x = { format = "rgba8_unorm", size = { 8, 8 }, provide = function() return img end } }
      local w = fg.runtime(dev, { outputs = { "x" }, external = ext, nodes = { { name = "f", modify = { x = "storage" },
        run = function(cmd) cmd:dispatch(fill, { [0] = "x" }, 1, 1, 1, { 1 }) end } } })
      local s = fg.runtime(dev, { outputs = { "o" }, external = ext, nodes = { { name = "s", read = { x = "sampled" },
        create = { o = { format = "rgba8_unorm", size = { 8, 8 } } },
        run = function(cmd) cmd:dispatch(samp, { [0] = "x", [1] = "o" }, 1, 1, 1) end } } })
      for _ = 1, 2 do w:frame() s:frame() end
      assert(#w:read("x") == 256)
      w:frame() s:frame()
      dev:wait_idle()
      return nil, "done"]])
    assert.are.equal(0, code, out)
    assert.truthy(out:find("REFUSED\tdone", 1, true), out)
    assert.truthy(out:find("MESSAGES\t0", 1, true), out)
  end)

  it("the calls that were refused still work when given right", function()
    local code, out = child([[
      local samp = fg.shader(dev, fg.shader_dir() .. "/rt_sample.comp.spv")
      local tex = fg.image(dev, "]] .. TEX .. [[", { format = "rgba8_unorm" })
      for _, b in ipairs{ { tex, sampler = "nearest" }, { tex, sampler = "linear" }, { tex } } do
        local rt = one(function(cmd) cmd:dispatch(samp, { [0] = b, [1] = "o" }, 1, 1, 1) end)
        assert(rt:frame()) rt:close()
      end
      local rt = one(function(cmd) cmd:dispatch(fill, { [0] = { "o", history = false } }, 1, 1, 1, { 1 }) end)
      assert(rt:frame())
      assert(#fill:pack("push", { seed = 1 }) == 4)
      local m = assert(dev:memory_pool{ keep_empty = 1 }:alloc(256, { host_visible = true, memory_type_bits = 0xffffffff }))
      assert(fg.buffer(dev, { 1, 2, 3 }, { usage = "index", index = "uint16" }))
      return fg.allocator("tlsf", 4096) and nil, "all accepted"]])
    assert.are.equal(0, code, out)
    assert.truthy(out:find("REFUSED\tall accepted", 1, true), out)
    assert.truthy(out:find("MESSAGES\t0", 1, true), out)
  end)
end)
