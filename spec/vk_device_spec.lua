-- Device layer on lavapipe with validation + synchronization validation.
package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
local fg = require("framegraph")

describe("fg.vulkan device", function()
  local dev
  setup(function() dev = fg.vulkan{ validation = true, prefer = "software" } end)
  teardown(function() if dev then dev:close() end end)

  it("opens lavapipe when software is preferred (a GPU when FG_DEVICE=gpu)", function()
    local info = dev:info()
    if os.getenv("FG_DEVICE") == "gpu" then
      assert.are_not.equal("cpu", info.type)
    else
      assert.are.equal("cpu", info.type)
    end
    -- We require Vulkan 1.3; drivers may report newer (NVIDIA: 1.4.x).
    local major, minor = info.api_version:match("^(%d+)%.(%d+)%.")
    assert.is_true(tonumber(major) > 1 or (tonumber(major) == 1 and tonumber(minor) >= 3),
      "api_version " .. info.api_version .. " is older than 1.3")
    assert.is_true(info.validation)
  end)

  it("reports memory types, heaps, limits and a real image alignment", function()
    local info = dev:info()
    assert.is_true(#info.memory_types >= 1)
    assert.is_true(#info.memory_heaps >= 1)
    for _, t in ipairs(info.memory_types) do
      assert.is_table(t.flags)
      assert.is_truthy(info.memory_heaps[t.heap], "memory type points at a missing heap")
    end
    assert.is_true(info.memory_heaps[1].size > 0)
    local g = info.limits.buffer_image_granularity
    assert.is_true(g >= 1 and (g & (g - 1)) == 0, "granularity must be a power of two")
    local a = info.image_alignment
    assert.is_true(a >= 1 and (a & (a - 1)) == 0, "image alignment must be a power of two")
    assert.is_true(info.image_size >= 1920 * 1080 * 4)
    assert.is_true(info.limits.min_storage_buffer_offset_alignment >= 1)
    assert.is_true(info.extensions.push_descriptor, "lavapipe has VK_KHR_push_descriptor")
    assert.is_boolean(info.extensions.memory_budget)
  end)

  it("reports a memory budget per heap", function()
    local b = dev:memory_budget()
    local info = dev:info()
    assert.are.equal(#info.memory_heaps, #b)
    for i, h in ipairs(b) do
      assert.are.equal(info.memory_heaps[i].size, h.size)
      assert.is_true(h.budget > 0 and h.usage >= 0)
    end
  end)

  it("has no validation messages after opening", function()
    assert.are.same({}, dev:messages())
  end)

  it("closes idempotently and refuses use after close", function()
    local d = fg.vulkan{ validation = true, prefer = "software" }
    assert.is_false(d:is_closed())
    d:close()
    d:close()
    assert.is_true(d:is_closed())
    assert.has_error(function() d:info() end)
    local ok, err = pcall(d.messages, d)
    assert.is_false(ok)
    assert.matches("device is closed", err)
  end)

  it("releases through to-be-closed variables", function()
    local fn = load([[
      local fg = ...
      local d <close> = fg.vulkan{ prefer = "software" }
      return d
    ]])
    local d = fn(fg)
    assert.is_true(d:is_closed())
  end)

  it("rejects unknown options and bad prefer values with the field name", function()
    assert.has_error(function() fg.vulkan{ prefer = "fast" } end,
      'fg.vulkan: prefer must be "gpu" or "software", got "fast"')
    local ok, err = pcall(fg.vulkan, { validaton = true })
    assert.is_false(ok)
    assert.matches("unknown option 'validaton'", err)
  end)

  it("raises a clear error when no Vulkan device can be found", function()
    -- Point the loader at an empty ICD list: no driver means no device.
    local script = [[
      package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
      package.cpath = "%s"
      local fg = require("framegraph")
      local ok, err = pcall(fg.vulkan, { prefer = "software" })
      io.write(tostring(ok), "|", tostring(err))
    ]]
    local f = assert(io.open("/tmp/fg_vk_nodev.lua", "w"))
    f:write(script:format(package.cpath))
    f:close()
    local p = io.popen("VK_DRIVER_FILES=/nonexistent.json VK_ICD_FILENAMES=/nonexistent.json lua5.4 /tmp/fg_vk_nodev.lua 2>/dev/null")
    local out = p:read("a")
    p:close()
    assert.matches("^false|", out)
    assert.matches("fg.vulkan: no Vulkan device found", out)
  end)
end)

describe("dev:compute (the C dispatch path)", function()
  local dev, sh
  setup(function()
    dev = fg.vulkan{ validation = true, prefer = "software" }
    sh = fg.shader(dev, fg.shader_dir() .. "/dev_fill.comp.spv")
  end)
  teardown(function() sh:close() dev:close() end)

  it("computes dst[i] = src[i] * mul + add + i with push constants", function()
    local n = 300
    local src = {}
    for i = 0, n - 1 do src[#src + 1] = string.pack("<I4", i * 5 + 2) end
    local out = dev:compute(sh, { [0] = table.concat(src), [1] = n * 4 }, (n + 63) // 64, 1, 1,
                            string.pack("<I4I4I4I4", 3, 11, n, 1))
    assert.are.equal(n * 4, #out[1])
    for i = 0, n - 1 do
      local v = string.unpack("<I4", out[1], i * 4 + 1)
      assert.are.equal((i * 5 + 2) * 3 + 11 + i, v)
    end
    assert.are.equal(table.concat(src), out[0])  -- the readonly input is untouched
    assert.are.same({}, dev:messages())
  end)

  it("zero-pads short push data so the shader never reads garbage", function()
    -- only mul and add given: count = 0, so nothing is written
    local out = dev:compute(sh, { [0] = string.rep("\1\0\0\0", 64), [1] = 256 }, 1, 1, 1, string.pack("<I4I4", 2, 1))
    assert.are.equal(string.rep("\0", 256), out[1])
    assert.are.same({}, dev:messages())
  end)

  it("raises clear errors for a missing binding and oversized push data", function()
    local ok, err = pcall(dev.compute, dev, sh, { [0] = 64 }, 1)
    assert.is_false(ok)
    assert.matches("binding 1 %(.*storage buffer%) is used by the shader but was not given", err)
    ok, err = pcall(dev.compute, dev, sh, { [0] = 64, [1] = 64 }, 1, 1, 1, string.rep("x", 20))
    assert.is_false(ok)
    assert.matches("20 bytes of push constants given but the shader's push block is 16 bytes", err)
    assert.are.same({}, dev:messages())
  end)

  it("gives a clear error for bytes that are not SPIR-V", function()
    local ok, err = pcall(fg.shader, dev, "\3\2\35\7" .. string.rep("\0", 3))
    assert.is_false(ok)
    assert.matches("not SPIR%-V", err)
  end)
end)
