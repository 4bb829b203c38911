-- examples/vr.lua: stereo rendering with one multiplexing dimension, eye = 2.
-- Every per-view node is declared once with `multiplex = { "eye" }` and runs
-- once per eye; the shadow map is view independent (no multiplex), rendered
-- once and read by both eyes. Each eye gets its own camera blob (the eye
-- position moves by half the interocular distance along the camera's right
-- vector) and its own output image: rt:read("final", { eye = 1 }).
-- The per-eye G-buffer, HDR and bloom chain are transient: eye 2's reuse the
-- memory of eye 1's, which the memory table shows.
--   bash scripts/example.sh vr          (PNGs: out/vr_left.png, out/vr_right.png)
local dev = ...
-- common.lua sits beside this file; make it findable however the file was loaded
local here = debug.getinfo(1, "S").source:match("^@(.*)[/\\][^/\\]*$") or "."
if not package.path:find(here .. "/?.lua", 1, true) then package.path = here .. "/?.lua;" .. package.path end
local ex = require("common")

local sh = ex.shaders(dev, {
  shadow = { "vr_shadow.frag.spv", { depth_test = true, depth_write = true } },
  gbuffer = "vr_gbuffer.frag.spv",
  light = "vr_light.frag.spv",
  down = "vr_down.frag.spv",
  up = "vr_up.frag.spv",
  tonemap = "vr_tonemap.frag.spv",
})

local IPD = 0.7        -- exaggerated (metres, the scene is ~8 m wide) so the two pictures visibly differ
local EYE, TARGET, TAN_FOV = { 0.0, 2.4, 7.5 }, { 0.0, 0.8, 0.0 }, 0.45

-- Camera push constants for vr_gbuffer.frag / vr_light.frag (all floats).
local function camera_push(v, ctx)
  return { v.eye[1], v.eye[2], v.eye[3], TAN_FOV, v.target[1], v.target[2], v.target[3], 0.0,
           ctx.width + 0.0, ctx.height + 0.0, 0.0, 0.0 }
end

local pipeline = {
  name = "vr",
  dimensions = { eye = 2 },
  resolutions = { eye = { 384, 384 } },
  outputs = { "final" },
  nodes = {
    { name = "camera", multiplex = { "eye" },
      create = { view = { blob = true } },
      run = function(_, ctx)
        -- right vector of a camera looking from EYE at TARGET (y up): both
        -- eyes look parallel, shifted by -IPD/2 (left) and +IPD/2 (right)
        local fx, fz = TARGET[1] - EYE[1], TARGET[3] - EYE[3]
        local len = math.sqrt(fx * fx + fz * fz)
        local rx, rz = -fz / len, fx / len
        local s = (ctx.index.eye == 1 and -0.5 or 0.5) * IPD
        local v = ctx.blob("view")
        v.eye = { EYE[1] + rx * s, EYE[2], EYE[3] + rz * s }
        v.target = { TARGET[1] + rx * s, TARGET[2], TARGET[3] + rz * s }
      end },
    { name = "shadows",
      create = { shadow_map = { format = "d32_sfloat", size = { 1024, 1024 } } },
      pass = { depth = { "shadow_map", clear = 1.0 } },
      run = function(cmd, ctx) cmd:draw(sh.shadow, {}, 3, { ctx.width + 0.0, ctx.height + 0.0, 0.0, 0.0 }) end },
    { name = "gbuffer", multiplex = { "eye" },
      read = { view = "none" },
      create = { albedo = { format = "rgba8_unorm", size = "eye" },
                 normal = { format = "rgba16_sfloat", size = "eye" },
                 depth = { format = "r32_sfloat", size = "eye" } },
      pass = { color = { "albedo", "normal", "depth" } },
      run = function(cmd, ctx) cmd:draw(sh.gbuffer, {}, 3, camera_push(ctx.blob("view"), ctx)) end },
    { name = "lighting", multiplex = { "eye" },
      read = { "albedo", "normal", "depth", "shadow_map", view = "none" },
      create = { hdr = { format = "rgba16_sfloat", size = "eye" } },
      pass = { color = { "hdr" } },
      run = function(cmd, ctx)
        cmd:draw(sh.light, { [0] = { "albedo", sampler = "nearest" }, [1] = { "normal", sampler = "nearest" },
                                [2] = { "depth", sampler = "nearest" }, [3] = { "shadow_map", sampler = "nearest" } }, 3,
                 camera_push(ctx.blob("view"), ctx))
      end },
  },
}

-- Bloom: three downsamples (1/2, 1/4, 1/8 of the eye) and two upsamples,
-- all transient and per eye.
local function add(node) pipeline.nodes[#pipeline.nodes + 1] = node end
local src = "hdr"
for i = 1, 3 do
  local from, dst = src, "bloom" .. i
  add({ name = "bloom_down" .. i, multiplex = { "eye" },
        read = { from }, create = { [dst] = { format = "rgba16_sfloat", size = { "eye", 0.5 ^ i } } },
        pass = { color = { dst } },
        run = function(cmd) cmd:draw(sh.down, { [0] = from }, 3, { i == 1 and 1.0 or 0.0 }) end })
  src = dst
end
for i = 2, 1, -1 do
  local small, level, dst = src, "bloom" .. i, "bloom_up" .. i
  add({ name = "bloom_up" .. i, multiplex = { "eye" },
        read = { small, level }, create = { [dst] = { format = "rgba16_sfloat", size = { "eye", 0.5 ^ i } } },
        pass = { color = { dst } },
        run = function(cmd) cmd:draw(sh.up, { [0] = small, [1] = level }, 3) end })
  src = dst
end
add({ name = "tonemap", multiplex = { "eye" },
      read = { "hdr", "bloom_up1" },
      create = { final = { format = "rgba8_unorm", size = "eye" } },
      pass = { color = { "final" } },
      run = function(cmd) cmd:draw(sh.tonemap, { [0] = { "hdr", sampler = "nearest" }, [1] = "bloom_up1" }, 3, { 0.6 }) end })

-- Example-specific step for the runner: one PNG per eye.
local extras = {
  frames = 2,
  after = function(rt, env)
    local out_dir = env.out_dir
    local files = {}
    for eye, label in ipairs({ "left", "right" }) do
      local path = out_dir .. "/vr_" .. label .. ".png"
      assert(rt:save_png("final", path, { eye = eye }))
      files[#files + 1] = path
    end
    return files
  end,
}

-- The extras ride on the metatable: the schema refuses unknown pipeline fields,
-- and fg.compile(dofile(path)) must keep working (examples/common.lua, ex.load).
return setmetatable(pipeline, { __index = { example = extras } })
