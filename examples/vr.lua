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

local sh = ex.scene_shaders(dev, { bloom = true })

local IPD = 0.7        -- exaggerated (metres, the scene is ~8 m wide) so the two pictures visibly differ
local EYE, TARGET, TAN_FOV = { 0.0, 2.4, 7.5 }, { 0.0, 0.8, 0.0 }, 0.45

-- Camera push constants for vr_gbuffer.frag / vr_light.frag (all floats).
local function camera_push(ctx)
  local v = ctx.blob("view")
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
    -- the shadow map once for both eyes; G-buffer and lighting per eye
    table.unpack(ex.scene_nodes(sh, { multiplex = "eye", size = "eye", view = "view", push = camera_push })),
  },
}

-- Bloom: three downsamples (1/2, 1/4, 1/8 of the eye) and two upsamples,
-- all transient and per eye.
ex.scene_bloom(pipeline.nodes, sh, "eye", function(i) return { "eye", 0.5 ^ i } end)
local function add(node) pipeline.nodes[#pipeline.nodes + 1] = node end
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
