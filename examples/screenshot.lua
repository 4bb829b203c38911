-- examples/screenshot.lua: a hi-res screenshot at twice the main resolution,
-- rendered as tile = 4 (a 2x2 grid of main-sized tiles) and assembled into one
-- image. Every per-tile node is declared once with `multiplex = { "tile" }`;
-- the memory schedule runs the tiles one after another (index-major), so
-- each tile's G-buffer and HDR reuse the memory of the tile before: the
-- transient memory is about one tile's, not the whole screenshot's. Only the
-- assembled `shot` and the shared shadow map are full size.
-- Each tile ray-marches exactly the pixels the whole image has at its place
-- (the camera ray depends on the pixel's position in the full image), so the
-- assembled screenshot is bit-identical to rendering it whole
-- (dimensions = { tile = 1 }, resolutions = { main = shot size }), which the
-- runner checks and prints next to the memory each way needs.
--   bash scripts/example.sh screenshot          (PNG: out/screenshot.png)
local dev = ...
-- common.lua sits beside this file; make it findable however the file was loaded
local here = debug.getinfo(1, "S").source:match("^@(.*)[/\\][^/\\]*$") or "."
if not package.path:find(here .. "/?.lua", 1, true) then package.path = here .. "/?.lua;" .. package.path end
local ex = require("common")
local fg = require("framegraph")

local sh = ex.scene_shaders(dev, { compose = true })

local EYE, TARGET, TAN_FOV = { -2.5, 5.0, 7.0 }, { 0.3, 0.3, -1.0 }, 0.55
-- The memory budget the screenshot must fit (planned transient heap at the
-- default resolutions): rendering it whole does not fit, tiled it does.
local BUDGET = 10 << 20
local NEAREST = function(name) return { name, sampler = "nearest" } end

-- Camera push constants for vr_gbuffer.frag / vr_light.frag: the tile's
-- pixel offset in the full screenshot, from its index in a row-major grid.
local function camera_push(ctx)
  local grid = ctx.blob("grid")
  local cols = grid.width // ctx.width
  local i = ctx.index.tile - 1
  return { EYE[1], EYE[2], EYE[3], TAN_FOV, TARGET[1], TARGET[2], TARGET[3], 0.0,
           grid.width + 0.0, grid.height + 0.0, (i % cols) * ctx.width + 0.0, (i // cols) * ctx.height + 0.0 }
end

local pipeline = {
  name = "screenshot",
  dimensions = { tile = 4 },
  resolutions = { main = { 256, 256 }, shot = { 512, 512 } },
  outputs = { "shot" },
  nodes = {
    -- the assembled image, and the grid it is cut into (a CPU blob every tile reads)
    ex.scene_layout("shot"),
    -- the shadow map once for the whole screenshot; G-buffer and lighting per tile
    table.unpack(ex.scene_nodes(sh, { multiplex = "tile", size = "main", view = "grid", push = camera_push })),
  },
}

local function add(node) pipeline.nodes[#pipeline.nodes + 1] = node end
-- no bloom: a blur would see the tile's edges (a seam in the screenshot)
add({ name = "tonemap", multiplex = { "tile" },
      read = { "hdr" },
      create = { ldr = { format = "rgba8_unorm", size = "main" } },
      pass = { color = { "ldr" } },
      run = function(cmd) cmd:draw(sh.tonemap, { [0] = NEAREST("hdr"), [1] = NEAREST("hdr") }, 3, { 0.0 }) end })
-- each tile writes its cell of the screenshot (no frame: the cells must meet)
add(ex.scene_compose(sh, { name = "assemble", multiplex = "tile", src = "ldr", target = "shot", frame = 0 }))

-- The same scene rendered whole (one tile the size of the screenshot), for
-- the memory comparison and the bit-identity check.
local function whole_opts(res)
  local shot = (res and res.shot) or pipeline.resolutions.shot
  return { dimensions = { tile = 1 }, resolutions = { main = shot, shot = shot } }
end

-- Heaps (planned bytes) of the tiled screenshot, the whole one and one tile.
local function plans(res)
  local tiled = fg.compile(pipeline, { resolutions = res }):stats().heap_bytes
  local whole = fg.compile(pipeline, whole_opts(res)):stats().heap_bytes
  local one = fg.compile(pipeline, { dimensions = { tile = 1 }, resolutions = res }):stats().heap_bytes
  -- the tiles node after node (schedule = "declared") instead of tile after tile
  local declared = fg.compile(pipeline, { resolutions = res, schedule = "declared" }):stats().heap_bytes
  return { tiled = tiled, whole = whole, one_tile = one, declared = declared }
end

local extras = {
  frames = 2,
  budget = BUDGET,
  whole_opts = whole_opts,
  plans = plans,
  after = function(rt, env)
    local out_dir, exm = env.out_dir, env.ex or ex
    local print = env.log or print
    local path = out_dir .. "/screenshot.png"
    assert(rt:save_png("shot", path))
    local m = plans()
    local shot = pipeline.resolutions.shot
    print(("screenshot %dx%d as %d tiles of %dx%d: transient memory planned"):format(shot[1], shot[2],
          pipeline.dimensions.tile, pipeline.resolutions.main[1], pipeline.resolutions.main[2]))
    print(("  rendered whole %s, tiled %s (%.1f%%); the tiled plan is %.2fx one tile's (%s; node after node %.2fx)"):format(
          exm.human(m.whole), exm.human(m.tiled), 100 * m.tiled / m.whole, m.tiled / m.one_tile, exm.human(m.one_tile),
          m.declared / m.one_tile))
    print(("  memory budget %s: rendering it whole needs %s (%s), tiled %s (%s)"):format(exm.human(BUDGET),
          exm.human(m.whole), m.whole <= BUDGET and "fits" or "over", exm.human(m.tiled),
          m.tiled <= BUDGET and "fits" or "over"))
    if dev then
      local whole = fg.runtime(dev, pipeline, whole_opts())
      whole:frame()
      local same = whole:read("shot") == rt:read("shot")
      whole:close()
      print(("  tiled screenshot bit-identical to the whole render: %s"):format(tostring(same)))
      assert(same, "the assembled tiles differ from the whole render")
    end
    return { path }
  end,
}

-- The extras ride on the metatable: the schema refuses unknown pipeline fields,
-- and fg.compile(dofile(path)) must keep working (examples/common.lua, ex.load).
return setmetatable(pipeline, { __index = { example = extras } })
