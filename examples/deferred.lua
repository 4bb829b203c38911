-- A deferred renderer's frame as a technical artist writes it, rendering an
-- analytic (SDF) scene: camera blob and lights buffer -> shadow map -> G-buffer
-- (albedo, normal, depth) -> SSAO at half resolution -> lighting into HDR ->
-- a glass sphere blended on top (a rename: hdr becomes hdr_lit) -> a bloom
-- chain of 6 downsampled and 5 upsampled transient textures -> tonemap ->
-- "final". The bloom chain is where aliasing pays: each mip lives for two
-- nodes, so the plan stacks them into memory the G-buffer has finished with.
-- `debug_normals` produces nothing anyone reads and is culled; `lens_dirt`
-- reads a texture nobody creates and is broken: both cost nothing.
--
-- Beside the traced shapes stands a real mesh: the torus knot shipped in
-- data/mesh (glTF, fg.mesh) with its PNG texture (fg.image), drawn with
-- cmd:draw_indexed into the same G-buffer and shadow map.
--
-- A chunk receiving the device (`local dev = ...`): with a device it creates
-- its shaders and every node records real work; without one (fg.compile,
-- `framegraph report`) it only declares the graph.
--   bash scripts/example.sh deferred      (or: lua5.4 examples/run.lua deferred)
local dev = ...
-- common.lua sits beside this file; make it findable however the file was loaded
local here = debug.getinfo(1, "S").source:match("^@(.*)[/\\][^/\\]*$") or "."
if not package.path:find(here .. "/?.lua", 1, true) then package.path = here .. "/?.lua;" .. package.path end
local ex = require("common")

local sh = ex.shaders(dev, {
  lights = "def_lights.comp.spv",
  shadow = { "def_shadow.frag.spv", { depth_test = true, depth_write = true } },
  gbuffer = { "def_gbuffer.frag.spv", { depth_test = true, depth_write = true } },
  ssao = "def_ssao.frag.spv",
  light = "def_light.frag.spv",
  glass = { "def_glass.frag.spv", { depth_test = true, blend = true } },
  down = "def_down.frag.spv",
  up = "def_up.frag.spv",
  tonemap = "def_tonemap.frag.spv",
  mesh = { "def_mesh.frag.spv", { vertex = "def_mesh.vert.spv", depth_test = true, depth_write = true } },
  mesh_shadow = { "def_mesh_shadow.frag.spv", { vertex = "def_mesh_shadow.vert.spv", depth_test = true,
                                                depth_write = true } },
})

-- The shipped mesh and its texture (data/mesh, made by scripts/gen_mesh.lua):
-- vertex and index buffers and a mipmapped texture, filled once.
local data = here .. "/../data/mesh/"
local knot, knot_tex
if dev then
  local fg = require("framegraph")
  knot = assert(fg.mesh(dev, data .. "torus_knot.gltf"))
  knot_tex = assert(fg.image(dev, data .. "torus_knot.png", { mips = true }))
end
local KNOT = { -1.0, 1.2, 3.4, 0.75 }   -- where it stands (xyz) and its scale

-- What examples/run.lua and the spec use beyond the pipeline (see the end of
-- the file). `mesh = false` leaves the knot out (the spec's comparison).
local extras = { frames = 2, mesh = true }

local LEVELS = 6          -- bloom mips below the HDR image: 1/2 .. 1/64
local FAR = 30.0

-- Push constants every scene pass shares (see the Cam block in the def_ shaders):
-- camera, sun and this pass's size; the camera slowly orbits with the frame.
local function cam_push(ctx)
  local c = ctx.blob("camera")
  return { c.eye[1], c.eye[2], c.eye[3], c.tan_half_fov,
           c.target[1], c.target[2], c.target[3], ctx.width / ctx.height,
           c.sun[1], c.sun[2], c.sun[3], 6.5,
           c.time, FAR, ctx.width + 0.0, ctx.height + 0.0 }
end

-- The mesh shaders' block adds the mesh's placement to the camera's.
local function mesh_push(ctx)
  local p = cam_push(ctx)
  for _, v in ipairs(KNOT) do p[#p + 1] = v end
  return p
end

local function run(fn) return dev and fn or nil end   -- no device: declarations only

local nodes = {
  { name = "upload",
    create = { camera = { blob = { size = 256 } },
               lights = { buffer = 128 } },
    run = run(function(cmd, ctx)
      local c = ctx.blob("camera")
      local a = 0.55 + 0.02 * ctx.frame   -- ctx.frame counts from 0
      c.eye = { 6.8 * math.cos(a), 3.4, 6.8 * math.sin(a) }
      c.target = { 0.3, 0.8, 0.0 }
      c.tan_half_fov = math.tan(math.rad(50) / 2)
      local s = { -0.45, 0.62, -0.64 }
      local l = math.sqrt(s[1] ^ 2 + s[2] ^ 2 + s[3] ^ 2)
      c.sun = { s[1] / l, s[2] / l, s[3] / l }
      c.time = ctx.frame / 60
      -- four point lights: position, radius; colour, intensity (std140: 2 vec4 each)
      local L = {
        { -0.2, 2.6, -1.2, 4.0, 1.0, 0.55, 0.2, 2.5 },   -- inside the emissive orb
        { 3.0, 0.6, -2.2, 3.0, 0.3, 0.5, 1.0, 2.0 },
        { -2.8, 0.5, 2.4, 3.5, 1.0, 0.3, 0.6, 2.0 },
        { 0.4, 1.4, 1.9, 2.0, 1.0, 0.9, 0.6, 1.5 },
      }
      -- written by a tiny compute shader from push constants rather than
      -- copied from ctx.upload: on lavapipe (Mesa 22.3) a runtime that used
      -- its upload ring sometimes crashes the driver's queue thread when the
      -- device is destroyed later (rt:close waits for the runtime's timeline
      -- only, then destroys the ring's semaphore that the same submits signal)
      local push = {}
      for _, v in ipairs(L) do for _, x in ipairs(v) do push[#push + 1] = x + 0.0 end end
      cmd:dispatch(sh.lights, { [0] = "lights" }, 1, 1, 1, push)
    end) },
  { name = "shadows",
    read = { camera = "none" },
    create = { shadow_map = { format = "d32_sfloat", size = "shadow" } },
    pass = { depth = { "shadow_map", clear = 1.0 } },
    run = run(function(cmd, ctx)
      cmd:draw(sh.shadow, {}, 3, cam_push(ctx))
      if not extras.mesh then return end
      cmd:draw_indexed(sh.mesh_shadow, {}, knot.indices, knot.count, { [0] = knot.vertices[0] }, mesh_push(ctx))
    end) },
  { name = "gbuffer",
    read = { camera = "none" },
    create = { albedo = { format = "rgba8_unorm", size = "main" },
               normal = { format = "rgba16_sfloat", size = "main" },
               depth  = { format = "d32_sfloat", size = "main" } },
    pass = { color = { { "albedo", clear = { 0, 0, 0, 1 } }, "normal" }, depth = { "depth", clear = 1.0 } },
    run = run(function(cmd, ctx)
      cmd:draw(sh.gbuffer, {}, 3, cam_push(ctx))                      -- the traced shapes
      if not extras.mesh then return end
      cmd:draw_indexed(sh.mesh, { [0] = knot_tex }, knot.indices, knot.count, knot.vertices, mesh_push(ctx))
    end) },
  { name = "ssao",
    read = { camera = "none", depth = "sampled", normal = "sampled" },
    create = { ao = { format = "r8_unorm", size = { "main", 0.5 } } },
    pass = { color = { "ao" } },
    run = run(function(cmd, ctx)
      cmd:draw(sh.ssao, { [0] = { "depth", sampler = "nearest" }, [1] = { "normal", sampler = "nearest" } }, 3,
               cam_push(ctx))
    end) },
  { name = "lighting",
    read = { "albedo", "normal", "depth", "shadow_map", camera = "none", lights = "uniform",
             ao = { usage = "sampled", optional = true } },
    create = { hdr = { format = "rgba16_sfloat", size = "main" } },
    pass = { color = { "hdr" } },
    run = run(function(cmd, ctx)
      cmd:draw(sh.light, { [0] = "albedo", [1] = "normal", [2] = { "depth", sampler = "nearest" },
                           [3] = { "shadow_map", sampler = "nearest" }, [4] = "ao", [5] = "lights" }, 3,
               cam_push(ctx))
    end) },
  { name = "transparent",
    read = { camera = "none", depth = "depth_read" },
    modify = { hdr = "color" },
    rename = { hdr = "hdr_lit" },
    pass = { color = { "hdr_lit" }, depth = "depth" },
    run = run(function(cmd, ctx) cmd:draw(sh.glass, {}, 3, cam_push(ctx)) end) },
}

-- The bloom chain: bloom_down1..6 halve the size each time (the first keeps
-- only what is brighter than 1.5), bloom_up5..1 add each level to the tent-
-- filtered level below it. Every mip is its own transient texture.
local function size_of(k) return { "main", 0.5 ^ k } end
for k = 1, LEVELS do
  local src = k == 1 and "hdr_lit" or ("bloom_down" .. (k - 1))
  local dst = "bloom_down" .. k
  nodes[#nodes + 1] = {
    name = dst,
    read = { [src] = "sampled" },
    create = { [dst] = { format = "rgba16_sfloat", size = size_of(k) } },
    pass = { color = { dst } },
    run = run(function(cmd, ctx)
      local w, h = ctx.width * 2, ctx.height * 2   -- close enough to the source's size for its texel
      cmd:draw(sh.down, { [0] = src }, 3, { 1.0 / w, 1.0 / h, ctx.width + 0.0, ctx.height + 0.0,
                                           k == 1 and 1.5 or 0.0 })
    end) }
end
for k = LEVELS - 1, 1, -1 do
  local lower = k == LEVELS - 1 and ("bloom_down" .. LEVELS) or ("bloom_up" .. (k + 1))
  local level, dst = "bloom_down" .. k, "bloom_up" .. k
  nodes[#nodes + 1] = {
    name = dst,
    read = { [lower] = "sampled", [level] = "sampled" },
    create = { [dst] = { format = "rgba16_sfloat", size = size_of(k) } },
    pass = { color = { dst } },
    run = run(function(cmd, ctx)
      local w, h = ctx.width // 2, ctx.height // 2
      cmd:draw(sh.up, { [0] = lower, [1] = level }, 3,
               { 1.0 / math.max(w, 1), 1.0 / math.max(h, 1), ctx.width + 0.0, ctx.height + 0.0 })
    end) }
end

nodes[#nodes + 1] = {
  name = "tonemap",
  read = { hdr_lit = "sampled", bloom_up1 = "sampled" },
  create = { final = { format = "rgba8_unorm", size = "main" } },
  pass = { color = { "final" } },
  run = run(function(cmd, ctx)
    cmd:draw(sh.tonemap, { [0] = "hdr_lit", [1] = "bloom_up1" }, 3,
             { ctx.width + 0.0, ctx.height + 0.0, 0.3, 0.8 })
  end) }
nodes[#nodes + 1] = {
  name = "debug_normals",
  read = { "normal" },
  create = { debug_view = { format = "rgba8_unorm", size = "main" } } }
nodes[#nodes + 1] = {
  name = "lens_dirt",
  read = { "dirt_texture" },
  modify = { bloom_up1 = "storage" } }

-- What examples/run.lua and the spec use beyond the pipeline. The schema
-- refuses unknown pipeline fields, and a second return value would reach
-- fg.compile(dofile(path)) as its options, so `pipeline.example` is reached
-- through the table's metatable: invisible to pairs() and to the compiler.

-- The pixel (0-based, y down) where the knot's centre appears in frame
-- `frame` of a w x h picture: the camera of the upload node, projected as
-- def_mesh.vert projects.
function extras.knot_pixel(frame, w, h)
  local a = 0.55 + 0.02 * frame
  local eye, target = { 6.8 * math.cos(a), 3.4, 6.8 * math.sin(a) }, { 0.3, 0.8, 0.0 }
  local function sub(p, q) return { p[1] - q[1], p[2] - q[2], p[3] - q[3] } end
  local function dot(p, q) return p[1] * q[1] + p[2] * q[2] + p[3] * q[3] end
  local function unit(p) local l = math.sqrt(dot(p, p)); return { p[1] / l, p[2] / l, p[3] / l } end
  local fwd = unit(sub(target, eye))
  local right = unit({ -fwd[3], 0, fwd[1] })                                 -- cross(fwd, y)
  local up = { right[2] * fwd[3] - right[3] * fwd[2], right[3] * fwd[1] - right[1] * fwd[3],
               right[1] * fwd[2] - right[2] * fwd[1] }
  local v = sub(KNOT, eye)
  local t = math.tan(math.rad(50) / 2)
  local x, y = dot(v, right) / (dot(v, fwd) * t * w / h), -dot(v, up) / (dot(v, fwd) * t)
  return math.floor((x * 0.5 + 0.5) * w), math.floor((y * 0.5 + 0.5) * h)
end

-- Where the bloom chain sits in a compiled graph's plan: its mips' bytes
-- unaliased, the bytes of the heap they really cover (the union of their
-- ranges) and the other resources whose memory they reuse.
function extras.bloom(graph)
  local mips, others = {}, {}
  for _, r in ipairs(graph:resources()) do
    if r.heap then
      if r.name:match("^bloom_") then mips[#mips + 1] = r else others[#others + 1] = r end
    end
  end
  local bytes, ranges = 0, {}
  for _, r in ipairs(mips) do
    bytes = bytes + r.bytes
    ranges[#ranges + 1] = { r.heap, r.offset, r.offset + r.bytes }
  end
  table.sort(ranges, function(a, b) return a[1] < b[1] or (a[1] == b[1] and a[2] < b[2]) end)
  local covered, cur = 0, nil
  for _, g in ipairs(ranges) do
    if cur and cur[1] == g[1] and g[2] <= cur[3] then cur[3] = math.max(cur[3], g[3])
    else
      if cur then covered = covered + cur[3] - cur[2] end
      cur = { g[1], g[2], g[3] }
    end
  end
  if cur then covered = covered + cur[3] - cur[2] end
  local reused, seen = {}, {}
  for _, m in ipairs(mips) do
    for _, o in ipairs(others) do
      if o.heap == m.heap and o.offset < m.offset + m.bytes and m.offset < o.offset + o.bytes and not seen[o.name] then
        seen[o.name] = true
        reused[#reused + 1] = o.name
      end
    end
  end
  table.sort(reused)
  return { mips = mips, bytes = bytes, covered = covered, reused = reused }
end

-- The printout's lines about the bloom chain.
function extras.bloom_lines(graph)
  local b = extras.bloom(graph)
  local sizes = {}
  for _, r in ipairs(b.mips) do
    if r.frame == 0 then sizes[#sizes + 1] = ("%s %dx%d %s"):format(r.name, r.width, r.height, ex.human(r.bytes)) end
  end
  return {
    ("bloom chain (%d transient textures per frame): %s"):format(#sizes, table.concat(sizes, ", ")),
    ("bloom chain in this plan: %s unaliased (both frame copies), covering %s of the heap (%.0f%%); "
     .. "reuses the memory of: %s"):format(ex.human(b.bytes), ex.human(b.covered), 100 * b.covered / b.bytes,
                                          #b.reused > 0 and table.concat(b.reused, ", ") or "nothing"),
  }
end

function extras.after(rt)
  for _, l in ipairs(extras.bloom_lines(rt:graph())) do print(l) end
end

return setmetatable({
  name = "deferred",
  resolutions = { main = { 640, 360 }, shadow = { 1024, 1024 } },
  outputs = { "final" },
  nodes = nodes,
}, { __index = { example = extras } })
