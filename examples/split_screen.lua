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

local sh = ex.scene_shaders(dev, { bloom = true, compose = true })

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
    ex.scene_layout("screen"),
    { name = "camera", multiplex = { "player" },
      create = { camera = { blob = true } },
      run = function(_, ctx)
        local c, p = ctx.blob("camera"), PLAYERS[(ctx.index.player - 1) % #PLAYERS + 1]
        c.eye, c.target, c.tan = p.eye, p.target, p.tan
      end },
    -- the shadow map once for both players; G-buffer and lighting per player
    table.unpack(ex.scene_nodes(sh, { multiplex = "player", size = { "screen", 0.5, 1.0 }, view = "camera",
                                      push = camera_push })),
  },
}

-- Bloom per player: three downsamples (1/2, 1/4, 1/8 of the view), two upsamples.
ex.scene_bloom(pipeline.nodes, sh, "player", function(i) return { "screen", 0.5 ^ (i + 1), 0.5 ^ i } end)
local function add(node) pipeline.nodes[#pipeline.nodes + 1] = node end
add({ name = "tonemap", multiplex = { "player" },
      read = { "hdr", "bloom_up1" },
      create = { view = { format = "rgba8_unorm", size = { "screen", 0.5, 1.0 } } },
      pass = { color = { "view" } },
      run = function(cmd) cmd:draw(sh.tonemap, { [0] = NEAREST("hdr"), [1] = "bloom_up1" }, 3, { 0.6 }) end })
-- each player's view into its half of the screen, with a dark 2-pixel frame
add(ex.scene_compose(sh, { name = "compose", multiplex = "player", src = "view", target = "screen", frame = 2 }))

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
