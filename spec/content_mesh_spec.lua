-- Real content from Lua: the shipped glTF mesh (data/mesh/torus_knot.gltf,
-- fg.mesh) drawn with cmd:draw_indexed and its PNG texture (fg.image, with
-- mips), hand-made buffers (fg.buffer: lists, interleaved streams, 16-bit
-- indices), a PNG image as an external resource, and every hostile count,
-- offset and handle refused with a message. On lavapipe with validation and
-- synchronization validation: any validation message fails the spec.
local fg = require("framegraph")

local MESH, TEXTURE = "data/mesh/torus_knot.gltf", "data/mesh/torus_knot.png"
local W, H = 128, 128
local TEAL, WHITE = { 26, 178, 153 }, { 242, 230, 204 }   -- the texture's two colours (scripts/gen_mesh.lua)
local PLACE = { offset = { 0, 0 }, scale = 0.55, aspect = 1.0 }

local function near(px, c, tol)
  return math.abs(px[1] - c[1]) <= tol and math.abs(px[2] - c[2]) <= tol and math.abs(px[3] - c[3]) <= tol
end
local function pixel(img, w, x, y) return { img:byte((y * w + x) * 4 + 1, (y * w + x) * 4 + 3) } end
local function black(px) return px[1] + px[2] + px[3] == 0 end

-- The shipped mesh's positions and normals straight from its .bin (layout
-- written by scripts/gen_mesh.lua: positions, then normals, float32 vec3).
local function vertices()
  local f = assert(io.open("data/mesh/torus_knot.bin", "rb"))
  local bin = f:read("a")
  f:close()
  local n = 1677
  local out = {}
  for i = 0, n - 1 do
    local x, y, z = string.unpack("<fff", bin, i * 12 + 1)
    local _, _, nz = string.unpack("<fff", bin, n * 12 + i * 12 + 1)
    out[#out + 1] = { x, y, z, nz }
  end
  return out
end

describe("content: buffers, PNG textures, glTF meshes", function()
  local dev, vs, tex_fs, lod_fs
  setup(function()
    dev = fg.vulkan{ validation = true, prefer = "software" }
    local dir = fg.shader_dir()
    tex_fs = fg.shader(dev, dir .. "/mesh_tex.frag.spv", { vertex = dir .. "/mesh_obj.vert.spv", depth_test = true,
                                                           depth_write = true })
    lod_fs = fg.shader(dev, dir .. "/mesh_lod.frag.spv", { vertex = dir .. "/mesh_obj.vert.spv" })
    vs = tex_fs
  end)
  teardown(function() dev:close() end)
  after_each(function() assert.are.same({}, dev:messages()) end)

  -- One node drawing into a WxH rgba8 target (with depth); draw(cmd, ctx) records.
  local function render(draw, w, h)
    w, h = w or W, h or H
    local rt = assert(fg.runtime(dev, {
      resolutions = { main = { w, h } }, outputs = { "final" },
      nodes = { { name = "draw",
                  create = { final = { format = "rgba8_unorm", size = "main", usage = "color" },
                             depth = { format = "d32_sfloat", size = "main" } },
                  pass = { color = { { "final", clear = { 0, 0, 0, 0 } } }, depth = { "depth", clear = 1.0 } },
                  run = draw } } }))
    rt:frame()
    local img = assert(rt:read("final"))
    rt:close()
    return img
  end

  local function refused(pattern, f, ...)
    local ok, err = pcall(f, ...)
    assert.is_false(ok, "the call was accepted")
    assert.matches(pattern, tostring(err))
  end

  it("ships what scripts/gen_mesh.lua writes, byte for byte", function()
    local dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir -p " .. dir))
    local p = assert(io.popen("lua5.4 scripts/gen_mesh.lua " .. dir .. " 2>&1"))
    local out = p:read("a")
    assert.is_true(p:close(), out)
    for _, name in ipairs({ "torus_knot.gltf", "torus_knot.bin", "torus_knot.png" }) do
      local a, b = assert(io.open(dir .. "/" .. name, "rb")), assert(io.open("data/mesh/" .. name, "rb"))
      assert.is_true(a:read("a") == b:read("a"), name .. " differs from the generator's: run lua5.4 scripts/gen_mesh.lua")
      a:close()
      b:close()
      os.remove(dir .. "/" .. name)
    end
    os.remove(dir)
  end)

  it("loads the shipped glTF mesh: counts, bounds, buffers", function()
    assert.is_true(fg.core.gltf)
    local mesh <close> = assert(fg.mesh(dev, MESH))
    assert.are.equal(9216, mesh.count)
    assert.are.equal(1677, mesh.vertex_count)
    assert.are.equal(1676, mesh.indices:info().max_index)
    assert.are.equal(9216 * 4, mesh.indices:info().bytes)
    assert.are.equal(1677 * 12, mesh.vertices[0]:info().bytes)
    assert.are.equal(1677 * 12, mesh.vertices[1]:info().bytes)
    assert.are.equal(1677 * 8, mesh.vertices[2]:info().bytes)
    assert.is_true(mesh.min[1] < -1.2 and mesh.max[1] > 1.5 and mesh.max[3] < 0.6)
    local img <close> = assert(fg.image(dev, TEXTURE, { mips = true }))
    assert.are.same({ width = 128, height = 32, format = "rgba8_unorm", mips = 8 }, img:info())
  end)

  it("draws the indexed mesh with its PNG texture where the mesh is", function()
    local mesh <close> = assert(fg.mesh(dev, MESH))
    local tex <close> = assert(fg.image(dev, TEXTURE, { mips = true }))
    local img = render(function(cmd)
      cmd:draw_indexed(tex_fs, { [0] = tex }, mesh.indices, mesh.count, mesh.vertices, PLACE)
    end)
    assert.are.equal(W * H * 4, #img)
    -- the corners are background; about a third of the picture is mesh
    for _, c in ipairs({ { 0, 0 }, { W - 1, 0 }, { 0, H - 1 }, { W - 1, H - 1 } }) do
      assert.is_true(black(pixel(img, W, c[1], c[2])), "corner " .. c[1] .. "," .. c[2])
    end
    local covered, teal, white, sx, sy = 0, 0, 0, 0, 0
    for y = 0, H - 1 do
      for x = 0, W - 1 do
        local px = pixel(img, W, x, y)
        if not black(px) then
          covered = covered + 1
          sx, sy = sx + x, sy + y
          if near(px, TEAL, 12) then teal = teal + 1 end
          if near(px, WHITE, 12) then white = white + 1 end
        end
      end
    end
    assert.is_true(covered > 0.15 * W * H and covered < 0.6 * W * H, covered .. " pixels covered")
    assert.is_true(math.abs(sx / covered - W / 2) < 8 and math.abs(sy / covered - H / 2) < 8, "centred")
    assert.is_true(teal > 200 and white > 200, ("texture colours: %d teal, %d white"):format(teal, white))
    -- every front-most vertex (normal towards the camera, near side) lands on a covered pixel
    local checked = 0
    for _, v in ipairs(vertices()) do
      if v[3] > 0.45 and v[4] > 0.9 then
        local x = math.floor(((v[1] * PLACE.scale) * 0.5 + 0.5) * W)
        local y = math.floor(((-v[2] * PLACE.scale) * 0.5 + 0.5) * H)
        assert.is_false(black(pixel(img, W, x, y)), ("vertex at %.2f,%.2f,%.2f -> pixel %d,%d"):format(v[1], v[2], v[3], x, y))
        checked = checked + 1
      end
    end
    assert.is_true(checked > 10, checked .. " vertices checked")
  end)

  it("makes mips with blits: the 1x1 level is the texture's average", function()
    local quad = assert(fg.buffer(dev, { -1, -1, 0, 1, -1, 0, 1, 1, 0, -1, 1, 0 }))
    local normals = assert(fg.buffer(dev, { 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1 }))
    local uvs = assert(fg.buffer(dev, { 0, 1, 1, 1, 1, 0, 0, 0 }))
    local idx = assert(fg.buffer(dev, { 0, 1, 2, 0, 2, 3 }, { usage = "index", index = "uint16" }))
    local tex <close> = assert(fg.image(dev, TEXTURE, { mips = true }))
    local img = render(function(cmd)
      cmd:draw_indexed(lod_fs, { [0] = tex }, idx, 6, { [0] = quad, [1] = normals, [2] = uvs },
                       { offset = { 0, 0 }, scale = 1.0, aspect = 1.0 })
    end, 8, 8)
    local avg = { (TEAL[1] + WHITE[1]) / 2, (TEAL[2] + WHITE[2]) / 2, (TEAL[3] + WHITE[3]) / 2 }
    for y = 0, 7 do for x = 0, 7 do assert.is_true(near(pixel(img, 8, x, y), avg, 6)) end end
    for _, b in ipairs({ quad, normals, uvs, idx }) do b:close() end
  end)

  it("draws interleaved streams with offsets and strides, uint16 and uint32 indices, and a first index", function()
    -- one buffer: position (3), normal (3), uv (2) per vertex = 32 bytes; a quad over the left half
    local data = {}
    for _, v in ipairs({ { -1, -1 }, { 0, -1 }, { 0, 1 }, { -1, 1 } }) do
      for _, x in ipairs({ v[1], v[2], 0, 0, 0, 1, 0.02, 0.02 }) do data[#data + 1] = x end
    end
    local vb <close> = assert(fg.buffer(dev, data))
    local tex <close> = assert(fg.image(dev, TEXTURE))
    local streams = { [0] = { vb, offset = 0, stride = 32 }, [1] = { vb, offset = 12, stride = 32 },
                      [2] = { vb, offset = 24, stride = 32 } }
    local place = { offset = { 0, 0 }, scale = 1.0, aspect = 1.0 }
    for _, kind in ipairs({ "uint16", "uint32" }) do
      -- two junk indices first, drawn from index 2 on
      local idx <close> = assert(fg.buffer(dev, { 3, 3, 0, 1, 2, 0, 2, 3 }, { usage = "index", index = kind }))
      local img = render(function(cmd)
        cmd:draw_indexed(tex_fs, { [0] = { tex, sampler = "nearest" } }, { idx, first = 2 }, 6, streams, place)
      end, 16, 16)
      for y = 0, 15 do
        assert.is_true(near(pixel(img, 16, 3, y), TEAL, 2), kind)   -- uv 0.02: a teal texel
        assert.is_true(black(pixel(img, 16, 12, y)), kind)
      end
    end
  end)

  it("takes a PNG image as an external resource", function()
    local tex <close> = assert(fg.image(dev, TEXTURE, { mips = true }))
    local copy = fg.shader(dev, fg.shader_dir() .. "/dev_copy.frag.spv")
    local rt = assert(fg.runtime(dev, {
      resolutions = { tex = { 128, 32 } }, outputs = { "final" },
      external = { picture = { format = "rgba8_unorm", size = "tex", provide = function() return tex end } },
      nodes = { { name = "show", read = { picture = "sampled" },
                  create = { final = { format = "rgba8_unorm", size = "tex" } }, pass = { color = { "final" } },
                  run = function(cmd) cmd:draw(copy, { [3] = "picture" }, 3) end } } }))
    rt:frame()
    rt:frame()
    local img = assert(rt:read("final"))
    rt:close()
    assert.is_true(near(pixel(img, 128, 0, 0), TEAL, 0))
    assert.is_true(near(pixel(img, 128, 8, 0), WHITE, 0))
    assert.is_true(near(pixel(img, 128, 8, 8), TEAL, 0))
    -- and the texture still binds directly afterwards (the graph left it readable)
    local mesh <close> = assert(fg.mesh(dev, MESH))
    local out = render(function(cmd)
      cmd:draw_indexed(tex_fs, { [0] = tex }, mesh.indices, mesh.count, mesh.vertices, PLACE)
    end, 32, 32)
    assert.is_false(black(pixel(out, 32, 16, 16)) and black(pixel(out, 32, 10, 16)) and black(pixel(out, 32, 22, 16)))
  end)

  it("binds a PNG texture to a full-screen cmd:draw too", function()
    local tex <close> = assert(fg.image(dev, TEXTURE))
    local copy = fg.shader(dev, fg.shader_dir() .. "/dev_copy.frag.spv")
    local img = render(function(cmd) cmd:draw(copy, { [3] = { tex, sampler = "nearest" } }, 3) end, 8, 8)
    for y = 0, 7 do for x = 0, 7 do assert.is_true(near(pixel(img, 8, x, y), TEAL, 0)) end end
  end)

  it("closing a mesh or texture inside run waits for the frame; later use raises", function()
    local mesh = assert(fg.mesh(dev, MESH))
    local tex = assert(fg.image(dev, TEXTURE, { mips = true }))
    local img = render(function(cmd)
      cmd:draw_indexed(tex_fs, { [0] = tex }, mesh.indices, mesh.count, mesh.vertices, PLACE)
      mesh:close()
      tex:close()
    end, 32, 32)
    assert.is_false(black(pixel(img, 32, 16, 4)) and black(pixel(img, 32, 4, 16)) and black(pixel(img, 32, 27, 16)))
    refused("buffer is closed", function() mesh.indices:info() end)
    refused("image is closed", function() tex:info() end)
    render(function(cmd)
      refused("buffer is closed", cmd.draw_indexed, cmd, tex_fs, {}, mesh.indices, 3, mesh.vertices, PLACE)
    end, 8, 8)
    mesh:close()   -- idempotent
  end)

  describe("refuses", function()
    local mesh, tex
    setup(function()
      mesh = assert(fg.mesh(dev, MESH))
      tex = assert(fg.image(dev, TEXTURE))
    end)
    teardown(function() mesh:close(); tex:close() end)

    -- draws fn(cmd) in a node; the error it raises must match pattern
    local function draw_refused(pattern, fn)
      local err
      render(function(cmd)
        local ok, e = pcall(fn, cmd)
        assert.is_false(ok, "the draw was accepted")
        err = e
      end, 8, 8)
      assert.matches(pattern, tostring(err))
    end
    local function draw(cmd, bindings, ib, count, vbs)
      cmd:draw_indexed(tex_fs, bindings or { [0] = tex }, ib or mesh.indices, count, vbs or mesh.vertices, PLACE)
    end

    it("index counts and first indices outside the index buffer", function()
      draw_refused("indices 0%.%.9216 are outside the index buffer, which holds 9216", function(cmd) draw(cmd, nil, nil, 9217) end)
      draw_refused("indices 9000%.%.9299 are outside", function(cmd) draw(cmd, nil, { mesh.indices, first = 9000 }, 300) end)
      draw_refused("first index 9216 is past", function(cmd) draw(cmd, nil, { mesh.indices, first = 9216 }) end)
      draw_refused("index count must be in 1%.%.16777216", function(cmd) draw(cmd, nil, nil, 0) end)
      draw_refused("index count must be in", function(cmd) draw(cmd, nil, nil, 1 << 40) end)
      draw_refused("index count must be an integer", function(cmd) draw(cmd, nil, nil, 0 / 0) end)
      draw_refused("first must be an integer", function(cmd) draw(cmd, nil, { mesh.indices, first = -1 }) end)
    end)

    it("indices past the vertex buffers, and offsets and strides that read past them", function()
      local idx <close> = assert(fg.buffer(dev, { 0, 1, 5000 }, { usage = "index" }))
      draw_refused("holds indices up to 5000, so the vertex buffer needs", function(cmd) draw(cmd, nil, idx, 3) end)
      local v = mesh.vertices
      draw_refused("needs %d+ bytes", function(cmd)
        draw(cmd, nil, nil, 3, { [0] = { v[0], offset = 16 }, [1] = v[1], [2] = v[2] })
      end)
      draw_refused("stride 8 and offset 0 must be multiples of 4, the stride 0 or from the element's 12 bytes", function(cmd)
        draw(cmd, nil, nil, 3, { [0] = { v[0], stride = 8 }, [1] = v[1], [2] = v[2] })
      end)
      draw_refused("stride 40000 and offset 0 must be multiples of 4", function(cmd)
        draw(cmd, nil, nil, 3, { [0] = { v[0], stride = 40000 }, [1] = v[1], [2] = v[2] })
      end)
      draw_refused("stride 6 and offset 0 must be multiples of 4", function(cmd)
        draw(cmd, nil, nil, 3, { [0] = { v[0], stride = 6 }, [1] = v[1], [2] = v[2] })
      end)
      draw_refused("offset must be an integer in 0%.%.", function(cmd)
        draw(cmd, nil, nil, 3, { [0] = { v[0], offset = 1 << 50 }, [1] = v[1], [2] = v[2] })
      end)
    end)

    it("missing, unknown and misused vertex buffers and index buffers", function()
      local v = mesh.vertices
      draw_refused("reads location 2 %('uv'%) but no vertex buffer is given", function(cmd)
        draw(cmd, nil, nil, 3, { [0] = v[0], [1] = v[1] })
      end)
      draw_refused("vertex buffer key 7 is not an input location", function(cmd)
        draw(cmd, nil, nil, 3, { [0] = v[0], [1] = v[1], [2] = v[2], [7] = v[0] })
      end)
      draw_refused("the index buffer was made without usage \"index\"", function(cmd) draw(cmd, nil, v[0], 3) end)
      draw_refused("vertex buffer %[1%] was made without usage \"vertex\"", function(cmd)
        draw(cmd, nil, nil, 3, { [0] = v[0], [1] = mesh.indices, [2] = v[2] })
      end)
      draw_refused("the index buffer must be a buffer from fg.buffer", function(cmd) draw(cmd, nil, "indices", 3) end)
      draw_refused("reads vertex inputs .* draw it with draw_indexed", function(cmd) cmd:draw(tex_fs, { [0] = tex }, 3, PLACE) end)
      local closed = assert(fg.buffer(dev, { 0, 1, 2 }, { usage = "index" }))
      closed:close()
      draw_refused("buffer is closed", function(cmd) draw(cmd, nil, closed, 3) end)
      refused("buffer is closed", closed.info, closed)
    end)

    it("images that cannot bind directly", function()
      local ext <close> = assert(dev:external_image("rgba8_unorm", 4, 4))
      draw_refused("is not a loaded texture", function(cmd) draw(cmd, { [0] = ext }, nil, 3) end)
      local gone = assert(fg.image(dev, TEXTURE))
      gone:close()
      draw_refused("image is closed", function(cmd) draw(cmd, { [0] = gone }, nil, 3) end)
      local other = fg.vulkan{ validation = true, prefer = "software" }
      local foreign = assert(fg.image(other, TEXTURE))
      local fbuf = assert(fg.buffer(other, { 0, 1, 2 }, { usage = "index" }))
      draw_refused("made on another device", function(cmd) draw(cmd, { [0] = foreign }, nil, 3) end)
      draw_refused("made on another device", function(cmd) draw(cmd, nil, fbuf, 3) end)
      foreign:close()
      fbuf:close()
      assert.are.same({}, other:messages())
      other:close()
    end)

    it("vertex shaders whose inputs no vertex buffer feeds", function()
      local dir = fg.shader_dir()
      refused("vertex input 'm' %(location 0%) is not a 32%-bit scalar or vector", fg.shader, dev,
              dir .. "/mesh_lod.frag.spv", { vertex = dir .. "/mesh_badinput.vert.spv" })
    end)

    it("fg.buffer misuse raises", function()
      refused("opts%.usage 'uniform' is not a buffer usage", fg.buffer, dev, 16, { usage = "uniform" })
      refused("opts%.index is given but opts%.usage has no \"index\"", fg.buffer, dev, 16, { index = "uint16" })
      refused("opts%.index must be \"uint16\" or \"uint32\"", fg.buffer, dev, 16, { usage = "index", index = "u8" })
      refused("opts%.colour: unknown field", fg.buffer, dev, 16, { colour = 1 })
      refused("the buffer size in bytes must be in 1%.%.", fg.buffer, dev, 0)
      refused("the buffer size in bytes must be in 1%.%.", fg.buffer, dev, 1 << 40)
      refused("the data holds 0 bytes", fg.buffer, dev, "")
      refused("element 2 is not a finite number", fg.buffer, dev, { 1, 0 / 0 })
      refused("element 2 is not a finite number", fg.buffer, dev, { 1, "x" })
      refused("index 1 is 1%.5", fg.buffer, dev, { 1.5 }, { usage = "index" })
      refused("index 1 is 70000", fg.buffer, dev, { 70000 }, { usage = "index", index = "uint16" })
      refused("index 1 is %-1", fg.buffer, dev, { -1 }, { usage = "index" })
      refused("6 bytes are not a whole number of 4%-byte indices", fg.buffer, dev, "abcdef", { usage = "index" })
      refused("expected the data", fg.buffer, dev, true)
      local b <close> = assert(fg.buffer(dev, string.rep("\1\0", 4), { usage = { "index", "vertex" }, index = "uint16" }))
      assert.are.same({ bytes = 8, vertex = true, index = true, index_type = "uint16", max_index = 1, count = 4 }, b:info())
    end)

    it("fg.image: a missing or corrupt file is nil, message; misuse raises", function()
      local r, err = fg.image(dev, "data/mesh/no_such.png")
      assert.is_nil(r)
      assert.matches("fg%.image: data/mesh/no_such%.png: cannot read the PNG file", err)
      local bad = os.tmpname()
      local f = assert(io.open(bad, "wb"))
      f:write("\137PNG\r\n\26\n" .. string.rep("junk", 40))
      f:close()
      r, err = fg.image(dev, bad)
      assert.is_nil(r)
      assert.matches("cannot read the PNG file", err)
      -- a real PNG cut short: the header reads, the pixels do not
      local src = assert(io.open(TEXTURE, "rb")):read("a")
      f = assert(io.open(bad, "wb"))
      f:write(src:sub(1, 2000))
      f:close()
      r, err = fg.image(dev, bad)
      assert.is_nil(r)
      assert.matches("cannot decode the PNG file", err)
      os.remove(bad)
      refused("opts%.mips must be true or false", fg.image, dev, TEXTURE, { mips = "yes" })
      refused("opts%.format must be \"rgba8_unorm\"", fg.image, dev, TEXTURE, { format = "rgba16_sfloat" })
      refused("opts%.size: unknown field", fg.image, dev, TEXTURE, { size = 4 })
      refused("NUL", fg.image, dev, "a\0b.png")
      local srgb <close> = assert(fg.image(dev, TEXTURE, { format = "rgba8_srgb" }))
      assert.are.equal("rgba8_srgb", srgb:info().format)
    end)

    it("fg.mesh: missing, corrupt and inconsistent files are nil, message", function()
      local r, err = fg.mesh(dev, "data/mesh/no_such.gltf")
      assert.is_nil(r)
      assert.matches("fg%.mesh: data/mesh/no_such%.gltf: cannot load the glTF file", err)
      r, err = fg.mesh(dev, TEXTURE)
      assert.is_nil(r)
      assert.matches("cannot load the glTF file: .*parse error", err)
      -- a triangle in a base64 buffer whose third index names vertex 5 of 3
      local function b64(s)
        local chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
        return (s:gsub("..?.?", function(c)
          local n = (c:byte(1) << 16) | ((c:byte(2) or 0) << 8) | (c:byte(3) or 0)
          local out = ""
          for k = 3, 0, -1 do out = out .. chars:sub((n >> (6 * k)) % 64 + 1, (n >> (6 * k)) % 64 + 1) end
          return out:sub(1, #c + 1) .. string.rep("=", 3 - #c)
        end))
      end
      local function gltf(indices, count)
        local bin = string.pack("<fffffffff", 0, 0, 0, 1, 0, 0, 0, 1, 0) .. string.pack("<I2I2I2", table.unpack(indices))
        return ([[{"asset": {"version": "2.0"},
          "buffers": [{"byteLength": %d, "uri": "data:application/octet-stream;base64,%s"}],
          "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 36}, {"buffer": 0, "byteOffset": 36, "byteLength": 6}],
          "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0,0,0], "max": [1,1,0]},
                        {"bufferView": 1, "componentType": 5123, "count": %d, "type": "SCALAR"}],
          "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}]}]]):format(#bin, b64(bin), count)
      end
      local path = os.tmpname() .. ".gltf"
      local function try(text)
        local f = assert(io.open(path, "wb"))
        f:write(text)
        f:close()
        return fg.mesh(dev, path)
      end
      local ok = assert(try(gltf({ 0, 1, 2 }, 3)))                -- the well-formed one loads (normals computed)
      assert.are.equal(3, ok.count)
      ok:close()
      r, err = try(gltf({ 0, 1, 5 }, 3))
      assert.is_nil(r)
      assert.matches("index 2 is 5 but the primitive has 3 vertices", err)
      r, err = try(gltf({ 0, 1, 2 }, 300))
      assert.is_nil(r)
      assert.matches("the indices accessor %(300 elements.*%) runs past its buffer view", err)
      r, err = try('{"asset": {"version": "2.0"}, "meshes": []}')
      assert.is_nil(r)
      assert.matches("no mesh primitive", err)
      os.remove(path)
      refused("takes no options", fg.mesh, dev, MESH, {})
      refused("NUL", fg.mesh, dev, "a\0b.gltf")
    end)
  end)
end)
