-- fg.shader: reflection of compute and fragment SPIR-V, errors, dev:compute.
package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
local fg = require("framegraph")

-- The SPIR-V built next to the module under test (build*/shaders).
local function shader_dir()
  if os.getenv("FG_SHADER_DIR") then return os.getenv("FG_SHADER_DIR") end
  for tmpl in package.cpath:gmatch("[^;]+") do
    local so = tmpl:gsub("%?", "framegraph/core")
    local f = io.open(so, "rb")
    if f then
      f:close()
      return (so:gsub("framegraph/core%.so$", "shaders"))
    end
  end
  return "build/shaders"
end
local SHADERS = shader_dir()
local function spv(name) return SHADERS .. "/" .. name .. ".spv" end
local function read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

describe("fg.shader", function()
  local dev
  setup(function() dev = fg.vulkan{ validation = true, prefer = "software" } end)
  teardown(function()
    collectgarbage()
    if dev then
      assert.are.same({}, dev:messages())
      dev:close()
    end
  end)
  after_each(function() assert.are.same({}, dev:messages()) end)

  it("reflects a compute shader: local size, buffers, push block", function()
    local sh = fg.shader(dev, spv("dev_fill.comp"))
    local info = sh:info()
    assert.are.equal("compute", info.stage)
    assert.are.same({ 64, 1, 1 }, info.local_size)
    assert.are.equal(16, info.push_bytes)
    assert.are.equal(2, #info.bindings)
    assert.are.equal(0, info.bindings[1].binding)
    assert.are.equal("storage_buffer", info.bindings[1].type)
    assert.is_true(info.bindings[1].readonly)
    assert.are.equal(1, info.bindings[2].binding)
    assert.is_true(info.bindings[2].writeonly)
    assert.are.same({ "compute" }, info.bindings[1].stages)
    sh:close()
  end)

  it("reflects storage images and uniform buffers", function()
    local info = fg.shader(dev, spv("dev_image.comp")):info()
    assert.are.same({ 8, 8, 1 }, info.local_size)
    assert.are.equal("storage_image", info.bindings[1].type)
    assert.are.equal("uniform_buffer", info.bindings[2].type)
    assert.are.equal(0, info.push_bytes)
  end)

  it("builds fragment-only programs on the built-in fullscreen triangle", function()
    local sh = fg.shader(dev, spv("dev_grad.frag"), { fragment_only = true })
    local info = sh:info()
    assert.are.equal("graphics", info.stage)
    assert.are.equal(1, info.color_outputs)
    assert.are.equal(4, info.push_bytes)
    local mrt = fg.shader(dev, spv("dev_mrt.frag")):info()
    assert.are.equal(2, mrt.color_outputs)
    assert.are.equal("sampled_image", mrt.bindings[1].type)
    assert.are.equal("sampler", mrt.bindings[2].type)
    assert.are.same({ "fragment" }, mrt.bindings[1].stages)
    local copy = fg.shader(dev, spv("dev_copy.frag")):info()
    assert.are.equal(3, copy.bindings[1].binding)
    assert.are.equal("combined_image_sampler", copy.bindings[1].type)
  end)

  it("reads specialisable work-group sizes and descriptor arrays", function()
    local info = fg.shader(dev, spv("dev_spec.comp")):info()
    assert.are.same({ 1, 4, 1 }, info.local_size)  -- LocalSizeId with the spec constant's default
    assert.are.equal(2, info.bindings[1].binding)
    assert.are.equal("storage_buffer", info.bindings[1].type)
    assert.are.equal(5, info.bindings[2].binding)
    assert.are.equal("combined_image_sampler", info.bindings[2].type)
    assert.are.equal(3, info.bindings[2].count)
  end)

  it("refuses descriptor sets other than 0 and says how to fix it", function()
    local ok, err = pcall(fg.shader, dev, spv("dev_set1.comp"))
    assert.is_false(ok)
    assert.matches("descriptor set 1; framegraph binds set 0 only", err)
  end)

  it("accepts SPIR-V bytes as well as paths", function()
    local sh = fg.shader(dev, read(spv("dev_fill.comp")), { name = "fill" })
    assert.are.equal("fill", sh:info().name)
  end)

  it("refuses bad bytes, missing files and wrong stages with clear errors", function()
    assert.has_error(function() fg.shader(dev, "\3\2\35\7garbage-garbage-garbage") end)
    local ok, err = pcall(fg.shader, dev, "\3\2\35\7" .. string.rep("\0", 15))
    assert.is_false(ok)
    assert.matches("not SPIR%-V", err)
    ok, err = pcall(fg.shader, dev, "no/such/shader.spv")
    assert.is_false(ok)
    assert.matches("neither SPIR%-V bytes nor a readable file", err)
    local full = read(spv("dev_fill.comp"))
    ok, err = pcall(fg.shader, dev, full:sub(1, #full // 8 * 4))
    assert.is_false(ok)
    assert.matches("corrupt", err)
    ok, err = pcall(fg.shader, dev, spv("dev_fill.comp"), { fragment_only = true })
    assert.is_false(ok)
    assert.matches("fragment_only was given but this is a compute shader", err)
    ok, err = pcall(fg.shader, dev, spv("dev_fill.comp"), { fragmentonly = true })
    assert.is_false(ok)
    assert.matches("unknown option 'fragmentonly'", err)
  end)

  it("closes idempotently and refuses use after close", function()
    local sh = fg.shader(dev, spv("dev_fill.comp"))
    sh:close()
    sh:close()
    local ok, err = pcall(sh.info, sh)
    assert.is_false(ok)
    assert.matches("shader is closed", err)
  end)

  it("outlives dev:close() of its device safely", function()
    local d = fg.vulkan{ validation = true, prefer = "software" }
    local sh = fg.shader(d, spv("dev_fill.comp"))
    d:close()
    assert.are.equal("compute", sh:info().stage)  -- the shader holds the device
    sh:close()
  end)
end)
