-- Writes the mesh and texture shipped in data/mesh/ (our own making; see
-- data/README.md for the licence): a (2, 3) torus knot as glTF 2.0
-- (torus_knot.gltf + torus_knot.bin: positions, normals, uvs, 16-bit indices,
-- and a material naming the texture) and its texture torus_knot.png (a
-- 128x32 RGBA checker, 16 x 4 cells, teal and warm white). Pure Lua 5.4, no
-- downloads, deterministic: running it again writes the same bytes.
--   lua5.4 scripts/gen_mesh.lua [out_dir]     (default data/mesh)
local out = arg and arg[1] or "data/mesh"

local TUBULAR, RADIAL = 128, 12     -- segments along the knot and around the tube
local P, Q = 2, 3                   -- the knot winds P times around the axis, Q times through the hole
local R, RR, TUBE = 1.0, 0.4, 0.16  -- knot radius, its wobble, tube radius

local function knot(t)
  local c = R + RR * math.cos(Q * t)
  return c * math.cos(P * t), c * math.sin(P * t), RR * math.sin(Q * t)
end
local function sub(a, b) return { a[1] - b[1], a[2] - b[2], a[3] - b[3] } end
local function add(a, b) return { a[1] + b[1], a[2] + b[2], a[3] + b[3] } end
local function cross(a, b) return { a[2] * b[3] - a[3] * b[2], a[3] * b[1] - a[1] * b[3], a[1] * b[2] - a[2] * b[1] } end
local function norm(a)
  local l = math.sqrt(a[1] ^ 2 + a[2] ^ 2 + a[3] ^ 2)
  return { a[1] / l, a[2] / l, a[3] / l }
end

-- Vertices: a ring of RADIAL + 1 around each of TUBULAR + 1 points of the
-- curve (the seams repeat so uvs run 0..1 without wrapping).
local pos, nrm, uv, idx = {}, {}, {}, {}
local lo, hi = { math.huge, math.huge, math.huge }, { -math.huge, -math.huge, -math.huge }
for i = 0, TUBULAR do
  local t = i / TUBULAR * 2 * math.pi
  local p1 = { knot(t) }
  local p2 = { knot(t + 0.01) }
  local T = sub(p2, p1)
  local N = add(p2, p1)
  local B = norm(cross(T, N))
  N = norm(cross(B, T))
  for j = 0, RADIAL do
    local v = j / RADIAL * 2 * math.pi
    local cx, cy = -TUBE * math.cos(v), TUBE * math.sin(v)
    local n = norm({ cx * N[1] + cy * B[1], cx * N[2] + cy * B[2], cx * N[3] + cy * B[3] })
    local p = { p1[1] + cx * N[1] + cy * B[1], p1[2] + cx * N[2] + cy * B[2], p1[3] + cx * N[3] + cy * B[3] }
    for k = 1, 3 do
      pos[#pos + 1] = p[k]
      nrm[#nrm + 1] = n[k]
      local f = (string.unpack("<f", string.pack("<f", p[k])))   -- the stored float (the glTF's min/max must match it)
      lo[k] = math.min(lo[k], f)
      hi[k] = math.max(hi[k], f)
    end
    uv[#uv + 1] = i / TUBULAR
    uv[#uv + 1] = j / RADIAL
  end
end
for i = 1, TUBULAR do
  for j = 1, RADIAL do
    local a = (RADIAL + 1) * (i - 1) + (j - 1)
    local b = (RADIAL + 1) * i + (j - 1)
    local c = (RADIAL + 1) * i + j
    local d = (RADIAL + 1) * (i - 1) + j
    for _, k in ipairs({ a, b, d, b, c, d }) do idx[#idx + 1] = k end
  end
end

local function floats(list)
  local parts = {}
  for i, v in ipairs(list) do parts[i] = string.pack("<f", v) end
  return table.concat(parts)
end
local function pad4(s) return s .. string.rep("\0", (4 - #s % 4) % 4) end
local shorts = {}
for i, v in ipairs(idx) do shorts[i] = string.pack("<I2", v) end
local views = { floats(pos), floats(nrm), floats(uv), pad4(table.concat(shorts)) }
local nvert = #pos // 3

local bin, offsets = {}, {}
local at = 0
for i, v in ipairs(views) do
  offsets[i] = at
  bin[#bin + 1] = v
  at = at + #v
end
bin = table.concat(bin)

local function g(x) return string.format("%.9g", x) end
local gltf = table.concat({
  '{',
  '  "asset": {"version": "2.0", "generator": "framegraph scripts/gen_mesh.lua", ',
  '            "copyright": "framegraph project, generated; same licence as the project"},',
  '  "scene": 0,',
  '  "scenes": [{"nodes": [0]}],',
  '  "nodes": [{"mesh": 0, "name": "torus_knot"}],',
  '  "meshes": [{"name": "torus_knot", "primitives": [{"attributes": {"POSITION": 0, "NORMAL": 1, "TEXCOORD_0": 2}, ',
  '                                                   "indices": 3, "material": 0, "mode": 4}]}],',
  '  "materials": [{"name": "checker", "pbrMetallicRoughness": {"baseColorTexture": {"index": 0}, ',
  '                                                             "metallicFactor": 0.0, "roughnessFactor": 0.5}}],',
  '  "textures": [{"source": 0}],',
  '  "images": [{"uri": "torus_knot.png"}],',
  ('  "buffers": [{"uri": "torus_knot.bin", "byteLength": %d}],'):format(#bin),
  '  "bufferViews": [',
  ('    {"buffer": 0, "byteOffset": %d, "byteLength": %d, "target": 34962},'):format(offsets[1], #views[1]),
  ('    {"buffer": 0, "byteOffset": %d, "byteLength": %d, "target": 34962},'):format(offsets[2], #views[2]),
  ('    {"buffer": 0, "byteOffset": %d, "byteLength": %d, "target": 34962},'):format(offsets[3], #views[3]),
  ('    {"buffer": 0, "byteOffset": %d, "byteLength": %d, "target": 34963}'):format(offsets[4], #idx * 2),
  '  ],',
  '  "accessors": [',
  ('    {"bufferView": 0, "componentType": 5126, "count": %d, "type": "VEC3", "min": [%s, %s, %s], "max": [%s, %s, %s]},')
    :format(nvert, g(lo[1]), g(lo[2]), g(lo[3]), g(hi[1]), g(hi[2]), g(hi[3])),
  ('    {"bufferView": 1, "componentType": 5126, "count": %d, "type": "VEC3"},'):format(nvert),
  ('    {"bufferView": 2, "componentType": 5126, "count": %d, "type": "VEC2"},'):format(nvert),
  ('    {"bufferView": 3, "componentType": 5123, "count": %d, "type": "SCALAR"}'):format(#idx),
  '  ]',
  '}',
  '',
}, "\n")

-- ---- PNG (stored deflate blocks: no compressor needed) ----
-- (the report page's thumbnail writer, lua/framegraph/xray.lua)
package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
local xray = require("framegraph.xray")
local function png(w, h, pixel)
  local px = {}
  for y = 0, h - 1 do
    for x = 0, w - 1 do px[#px + 1] = string.char(pixel(x, y)) end
  end
  return xray.png(w, h, table.concat(px), 4)
end

-- 16 x 4 cells of 8 x 8 texels: u runs along the knot, v around the tube.
local texture = png(128, 32, function(x, y)
  if ((x // 8) + (y // 8)) % 2 == 0 then return 26, 178, 153, 255 end   -- teal
  return 242, 230, 204, 255                                            -- warm white
end)

local function write(name, data)
  local f = assert(io.open(out .. "/" .. name, "wb"))
  f:write(data)
  f:close()
  print(("wrote %s/%s (%d bytes)"):format(out, name, #data))
end
write("torus_knot.gltf", gltf)
write("torus_knot.bin", bin)
write("torus_knot.png", texture)
print(("%d vertices, %d triangles; bounds (%s, %s, %s) .. (%s, %s, %s)"):format(nvert, #idx // 3, g(lo[1]), g(lo[2]),
                                                                             g(lo[3]), g(hi[1]), g(hi[2]), g(hi[3])))
