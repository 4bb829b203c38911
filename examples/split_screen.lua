-- examples/split_screen.lua: two players' views of one scene, rendered with
-- one multiplexing dimension (player = 2) and composed side by side into one
-- output. The per-view nodes (camera, G-buffer, lighting, bloom, tonemap) are
-- declared once with `multiplex = { "player" }`; the shadow map is view
-- independent and rendered once for both. Each player's view is half the
-- screen wide; the compose node of each player writes its half of `screen`
-- (a player node may modify the narrower, unmultiplexed screen). Player 2's
-- transients reuse player 1's memory.
--   bash scripts/example.sh split_screen          (PNG: out/split_screen.png)
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
  compose = "shot_compose.comp.spv",
})

local NEAREST = function(name) return { name, sampler = "nearest" } end
-- Where each player stands and looks (tan of half the vertical field of view last).
local PLAYERS = {
  { eye = { -6.0, 3.0, 5.0 }, target = { 0.0, 0.7, -0.5 }, tan = 0.5 },
  { eye = { 5.5, 2.2, -5.5 }, target = { -0.3, 0.6, 0.3 }, tan = 0.5 },
}

local function camera_push(ctx)
  local c = ctx.blob("camera")
  return { c.eye[1], c.eye[2], c.eye[3], c.tan, c.target[1], c.target[2], c.target[3], 0.0,
           ctx.width + 0.0, ctx.height + 0.0, 0.0, 0.0 }
end

local pipeline = {
  name = "split_screen",
  dimensions = { player = 2 },
  resolutions = { screen = { 640, 360 } },
  outputs = { "screen" },
  nodes = {
    { name = "layout",
      create = { screen = { format = "rgba8_unorm", size = "screen" }, grid = { blob = true } },
      run = function(cmd, ctx)
        cmd:clear("screen", { 0.0, 0.0, 0.0, 1.0 })
        local grid = ctx.blob("grid")
        grid.width, grid.height = ctx.width, ctx.height
      end },
    { name = "camera", multiplex = { "player" },
      create = { camera = { blob = true } },
      run = function(_, ctx)
        local c, p = ctx.blob("camera"), PLAYERS[(ctx.index.player - 1) % #PLAYERS + 1]
        c.eye, c.target, c.tan = p.eye, p.target, p.tan
      end },
    { name = "shadows",
      create = { shadow_map = { format = "d32_sfloat", size = { 1024, 1024 } } },
      pass = { depth = { "shadow_map", clear = 1.0 } },
      run = function(cmd, ctx) cmd:draw(sh.shadow, {}, 3, { ctx.width + 0.0, ctx.height + 0.0, 0.0, 0.0 }) end },
    { name = "gbuffer", multiplex = { "player" },
      read = { camera = "none" },
      create = { albedo = { format = "rgba8_unorm", size = { "screen", 0.5, 1.0 } },
                 normal = { format = "rgba16_sfloat", size = { "screen", 0.5, 1.0 } },
                 depth = { format = "r32_sfloat", size = { "screen", 0.5, 1.0 } } },
      pass = { color = { "albedo", "normal", "depth" } },
      run = function(cmd, ctx) cmd:draw(sh.gbuffer, {}, 3, camera_push(ctx)) end },
    { name = "lighting", multiplex = { "player" },
      read = { "albedo", "normal", "depth", "shadow_map", camera = "none" },
      create = { hdr = { format = "rgba16_sfloat", size = { "screen", 0.5, 1.0 } } },
      pass = { color = { "hdr" } },
      run = function(cmd, ctx)
        cmd:draw(sh.light, { [0] = NEAREST("albedo"), [1] = NEAREST("normal"), [2] = NEAREST("depth"),
                             [3] = NEAREST("shadow_map") }, 3, camera_push(ctx))
      end },
  },
}

-- Bloom per player: three downsamples (1/2, 1/4, 1/8 of the view), two upsamples.
local function add(node) pipeline.nodes[#pipeline.nodes + 1] = node end
local src = "hdr"
for i = 1, 3 do
  local from, dst = src, "bloom" .. i
  add({ name = "bloom_down" .. i, multiplex = { "player" },
        read = { from }, create = { [dst] = { format = "rgba16_sfloat", size = { "screen", 0.5 ^ (i + 1), 0.5 ^ i } } },
        pass = { color = { dst } },
        run = function(cmd) cmd:draw(sh.down, { [0] = from }, 3, { i == 1 and 1.0 or 0.0 }) end })
  src = dst
end
for i = 2, 1, -1 do
  local small, level, dst = src, "bloom" .. i, "bloom_up" .. i
  add({ name = "bloom_up" .. i, multiplex = { "player" },
        read = { small, level }, create = { [dst] = { format = "rgba16_sfloat", size = { "screen", 0.5 ^ (i + 1), 0.5 ^ i } } },
        pass = { color = { dst } },
        run = function(cmd) cmd:draw(sh.up, { [0] = small, [1] = level }, 3) end })
  src = dst
end
add({ name = "tonemap", multiplex = { "player" },
      read = { "hdr", "bloom_up1" },
      create = { view = { format = "rgba8_unorm", size = { "screen", 0.5, 1.0 } } },
      pass = { color = { "view" } },
      run = function(cmd) cmd:draw(sh.tonemap, { [0] = NEAREST("hdr"), [1] = "bloom_up1" }, 3, { 0.6 }) end })
-- each player's view into its half of the screen, with a dark 2-pixel frame
add({ name = "compose", multiplex = { "player" },
      read = { view = "sampled", grid = "none" },
      modify = { screen = "storage" },
      run = function(cmd, ctx)
        local grid = ctx.blob("grid")
        cmd:dispatch(sh.compose, { [0] = NEAREST("view"), [1] = "screen" }, (grid.width + 7) // 8,
                     (grid.height + 7) // 8, 1, { ctx.index.player - 1, 2 })
      end })

local extras = {
  frames = 2,
  after = function(rt, env)
    local out_dir = env.out_dir
    local path = out_dir .. "/split_screen.png"
    assert(rt:save_png("screen", path))
    return { path }
  end,
}

-- The extras ride on the metatable: the schema refuses unknown pipeline fields,
-- and fg.compile(dofile(path)) must keep working (examples/common.lua, ex.load).
return setmetatable(pipeline, { __index = { example = extras } })
