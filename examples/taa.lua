-- Temporal accumulation (the still-camera half of TAA): each frame renders
-- the SDF scene with one ray per pixel through a sub-pixel jittered point
-- (Halton 2,3 from ctx.frame, kept in the `camera` CPU blob), and `resolve`
-- blends it into `accum`, which it reads from the previous frame (a history
-- resource: its two frame copies live across the frame boundary, and the
-- memory plan keeps them apart from everything else that is live then).
-- After N frames every pixel has averaged N jitter positions: the edges of
-- the checkerboard and of the thin posts are as smooth as a supersampled
-- render, which `extras.measure` checks against an 8x8-ray reference.
--   bash scripts/example.sh taa      (or: lua5.4 examples/run.lua taa)
local dev = ...
-- common.lua sits beside this file; make it findable however the file was loaded
local here = debug.getinfo(1, "S").source:match("^@(.*)[/\\][^/\\]*$") or "."
if not package.path:find(here .. "/?.lua", 1, true) then package.path = here .. "/?.lua;" .. package.path end
local ex = require("common")
local fg = require("framegraph")

local sh = ex.shaders(dev, {
  scene = "taa_scene.frag.spv",
  resolve = "taa_resolve.frag.spv",
  output = "taa_output.frag.spv",
})

local FRAMES = 16          -- frames the example runs; the image after them is the one saved
local MAX_HISTORY = 64     -- past this many frames the average becomes a moving average

local function halton(i, b)
  local f, r = 1, 0
  while i > 0 do f = f / b; r = r + f * (i % b); i = i // b end
  return r
end

local function run(fn) return dev and fn or nil end   -- no device: declarations only

local pipeline = {
  name = "taa",
  resolutions = { main = { 640, 360 } },
  outputs = { "final" },
  nodes = {
    { name = "camera",
      create = { camera = { blob = { size = 64 } } },
      run = run(function(cmd, ctx)
        local c = ctx.blob("camera")
        if c.fixed then return end    -- an input from rt:frame{camera = ...} (the reference) wins
        -- frame k (from 0) takes Halton point k + 1, centred on the pixel
        c.jitter = { halton(ctx.frame + 1, 2) - 0.5, halton(ctx.frame + 1, 3) - 0.5 }
        c.samples = 1
        c.count = ctx.frame + 1       -- frames averaged so far, this one included
      end) },
    { name = "render",
      read = { camera = "none" },
      create = { current = { format = "rgba16_sfloat", size = "main" } },
      pass = { color = { "current" } },
      run = run(function(cmd, ctx)
        local c = ctx.blob("camera")
        cmd:draw(sh.scene, {}, 3, { 4.2, 2.0, 5.2, math.tan(math.rad(45) / 2),
                                    0.0, 0.6, -0.6, ctx.width / ctx.height,
                                    c.jitter[1] + 0.0, c.jitter[2] + 0.0, c.samples + 0.0, 0.0,
                                    ctx.width + 0.0, ctx.height + 0.0 })
      end) },
    { name = "resolve",
      read = { current = "sampled", camera = "none" },
      history = { accum = "sampled" },
      create = { accum = { format = "rgba16_sfloat", size = "main", history = "clear" } },
      pass = { color = { "accum" } },
      run = run(function(cmd, ctx)
        local n = math.min(ctx.blob("camera").count, MAX_HISTORY)
        cmd:draw(sh.resolve, { [0] = { "current", sampler = "nearest" },
                               [1] = { "accum", history = true, sampler = "nearest" } }, 3, { 1.0 / n })
      end) },
    { name = "output",
      read = { accum = "sampled" },
      create = { final = { format = "rgba8_unorm", size = "main" } },
      pass = { color = { "final" } },
      run = run(function(cmd, ctx) cmd:draw(sh.output, { [0] = { "accum", sampler = "nearest" } }, 3) end) },
  },
}

-- What examples/run.lua and the spec use beyond the pipeline, reached as
-- `pipeline.example` through the metatable (see examples/common.lua M.load).
local extras = { frames = FRAMES }

-- Mean squared error of two rgba8 images over their RGB channels (0..255).
local function mse(a, b)
  assert(#a == #b, "images of different sizes")
  local sum, n = 0, 0
  for i = 1, #a, 4 do
    for k = 0, 2 do
      local d = a:byte(i + k) - b:byte(i + k)
      sum = sum + d * d
    end
    n = n + 3
  end
  return sum / n
end
extras.mse = mse

-- Renders the image after 1 and after `frames` frames and an 8x8-ray
-- reference (one frame with the camera blob given as an input), and returns
-- their errors against the reference: {first, last, ratio, images = {...}}.
-- opts: frames, resolutions, solver, out_dir (saves taa_frame1.png,
-- taa_reference.png there).
function extras.measure(d, p, opts)
  opts = opts or {}
  local frames = opts.frames or FRAMES
  local function render(n, input)
    local rt = fg.runtime(d, p, { solver = opts.solver, resolutions = opts.resolutions, poison = opts.poison })
    for _ = 1, n do rt:frame(input) end
    local img = assert(rt:read("final"))
    return rt, img
  end
  local out = { frames = frames, images = {} }
  local rt
  rt, out.images.reference = render(1, { camera = { fixed = true, jitter = { 0, 0 }, samples = 8, count = 1 } })
  if opts.out_dir then assert(rt:save_png("final", opts.out_dir .. "/taa_reference.png")) end
  rt:close()
  rt, out.images.first = render(1)
  if opts.out_dir then assert(rt:save_png("final", opts.out_dir .. "/taa_frame1.png")) end
  rt:close()
  rt, out.images.last = render(frames)
  rt:close()
  out.first = mse(out.images.first, out.images.reference)
  out.last = mse(out.images.last, out.images.reference)
  out.ratio = out.last / out.first
  return out
end

function extras.after(rt, env)
  local m = extras.measure(env.dev, env.pipeline, { out_dir = env.out_dir, frames = FRAMES })
  print(("taa: error against an 8x8-ray reference (MSE of 8-bit RGB): after 1 frame %.2f, after %d frames %.2f "
         .. "(%.0f%% of it); wrote %s/taa_frame1.png and %s/taa_reference.png")
        :format(m.first, m.frames, m.last, 100 * m.ratio, env.out_dir, env.out_dir))
  return m.ratio < 0.5
end

return setmetatable(pipeline, { __index = { example = extras } })
