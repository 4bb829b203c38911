-- Async compute: the deferred example's frame with SSAO and bloom as compute
-- nodes on the async queue, beside the shadow and lighting passes.
--   upload (lights) -> gbuffer -> [async] SSAO at half resolution, then a
--   bloom chain (6 downsamples, 5 upsamples) of the albedo's bright parts ->
--   shadows -> lighting -> tonemap (HDR x AO + bloom).
-- Both async parts need the G-buffer and nothing after it: they start once it
-- is written and run beside the shadow map (2048^2) and lighting; tonemap
-- joins them. (A bloom of the previous frame's HDR would start at the frame's
-- start, but a history read follows its creator in the order: the compiler
-- puts it after lighting.) On a device without a second queue the same graph
-- runs on one queue with the same output (bash scripts/example.sh async).
--
-- A chunk receiving the device and options: opts.serial = true declares the
-- same pipeline without queue = "async" (its serial twin, examples/
-- async_serial.lua); opts.width/height the resolution (default 1920x1080,
-- or $FG_ASYNC_SIZE = "WxH"). Without a device it only declares the graph.
local dev, opts = ...
opts = opts or {}
local here = debug.getinfo(1, "S").source:match("^@(.*)[/\\][^/\\]*$") or "."
if not package.path:find(here .. "/?.lua", 1, true) then package.path = here .. "/?.lua;" .. package.path end
local ex = require("common")

local W, H = opts.width, opts.height
-- (framegraph check's sandbox has no os.getenv: then the default)
local ok, env = pcall(function() return os.getenv("FG_ASYNC_SIZE") end)
if not W and ok and env then W, H = env:match("^(%d+)x(%d+)$"); W, H = tonumber(W), tonumber(H) end
W, H = W or 1920, H or 1080
local Q = not opts.serial and "async" or nil

local sh = ex.shaders(dev, {
  lights = "def_lights.comp.spv",
  shadow = { "def_shadow.frag.spv", { depth_test = true, depth_write = true } },
  gbuffer = { "def_gbuffer.frag.spv", { depth_test = true, depth_write = true } },
  light = "def_light.frag.spv",
  ssao = "async_ssao.comp.spv",
  down = "async_down.comp.spv",
  up = "async_up.comp.spv",
  tonemap = "async_tonemap.frag.spv",
})

local LEVELS = 6
local FAR = 30.0

-- the Cam block of the def_ shaders; size: the pass's (or dispatch's) extent
local function cam_push(ctx, w, h)
  local c = ctx.blob("camera")
  return { c.eye[1], c.eye[2], c.eye[3], c.tan_half_fov,
           c.target[1], c.target[2], c.target[3], W / H,
           c.sun[1], c.sun[2], c.sun[3], 6.5,
           c.time, FAR, (w or ctx.width) + 0.0, (h or ctx.height) + 0.0 }
end
local function run(fn) return dev and fn or nil end
local function groups(w, h) return (w + 7) // 8, (h + 7) // 8 end
local function scaled(k) return math.max(1, math.floor(W * 0.5 ^ k)), math.max(1, math.floor(H * 0.5 ^ k)) end

local nodes = {
  { name = "upload",
    create = { camera = { blob = { size = 256 } }, lights = { buffer = 128 },
               ones = { format = "rgba8_unorm", size = { 1, 1 }, usage = "transfer_dst" } },
    run = run(function(cmd, ctx)
      local c = ctx.blob("camera")
      local a = 0.55 + 0.02 * ctx.frame
      c.eye = { 6.8 * math.cos(a), 3.4, 6.8 * math.sin(a) }
      c.target = { 0.3, 0.8, 0.0 }
      c.tan_half_fov = math.tan(math.rad(50) / 2)
      local s = { -0.45, 0.62, -0.64 }
      local l = math.sqrt(s[1] ^ 2 + s[2] ^ 2 + s[3] ^ 2)
      c.sun = { s[1] / l, s[2] / l, s[3] / l }
      c.time = ctx.frame / 60
      local L = {
        { -0.2, 2.6, -1.2, 4.0, 1.0, 0.55, 0.2, 2.5 },
        { 3.0, 0.6, -2.2, 3.0, 0.3, 0.5, 1.0, 2.0 },
        { -2.8, 0.5, 2.4, 3.5, 1.0, 0.3, 0.6, 2.0 },
        { 0.4, 1.4, 1.9, 2.0, 1.0, 0.9, 0.6, 1.5 },
      }
      local push = {}
      for _, v in ipairs(L) do for _, x in ipairs(v) do push[#push + 1] = x + 0.0 end end
      cmd:dispatch(sh.lights, { [0] = "lights" }, 1, 1, 1, push)
      -- lighting's AO input: white (SSAO is applied at tonemap, so that it may
      -- run beside lighting)
      cmd:clear("ones", { 1, 1, 1, 1 })
    end) },
}

nodes[#nodes + 1] = {
  name = "gbuffer",
  read = { camera = "none" },
  create = { albedo = { format = "rgba8_unorm", size = "main" },
             normal = { format = "rgba16_sfloat", size = "main" },
             depth  = { format = "d32_sfloat", size = "main" } },
  pass = { color = { { "albedo", clear = { 0, 0, 0, 1 } }, "normal" }, depth = { "depth", clear = 1.0 } },
  run = run(function(cmd, ctx) cmd:draw(sh.gbuffer, {}, 3, cam_push(ctx)) end) }
nodes[#nodes + 1] = {
  name = "ssao", queue = Q,
  read = { camera = "none", depth = "sampled", normal = "sampled" },
  create = { ao = { format = "rgba8_unorm", size = { "main", 0.5 } } },
  run = run(function(cmd, ctx)
    local w, h = scaled(1)
    local gx, gy = groups(w, h)
    cmd:dispatch(sh.ssao, { [0] = { "depth", sampler = "nearest" }, [1] = { "normal", sampler = "nearest" },
                            [2] = "ao" }, gx, gy, 1, cam_push(ctx, w, h))
  end) }

-- The bloom chain, in compute on the async queue, over the albedo's bright
-- parts (a stand-in for an emissive buffer).
for k = 1, LEVELS do
  local src = k == 1 and "albedo" or ("bloom_down" .. (k - 1))
  local dst = "bloom_down" .. k
  local w, h = scaled(k)
  local sw, sh_ = scaled(k - 1)
  nodes[#nodes + 1] = {
    name = dst, queue = Q,
    read = { [src] = "sampled" },
    create = { [dst] = { format = "rgba16_sfloat", size = { "main", 0.5 ^ k } } },
    run = run(function(cmd)
      local gx, gy = groups(w, h)
      cmd:dispatch(sh.down, { [0] = { src, sampler = "linear" }, [1] = dst }, gx, gy, 1,
                   { 1.0 / sw, 1.0 / sh_, w + 0.0, h + 0.0, k == 1 and 0.55 or 0.0 })
    end) }
end
for k = LEVELS - 1, 1, -1 do
  local lower = k == LEVELS - 1 and ("bloom_down" .. LEVELS) or ("bloom_up" .. (k + 1))
  local level, dst = "bloom_down" .. k, "bloom_up" .. k
  local w, h = scaled(k)
  local lw, lh = scaled(k + 1)
  nodes[#nodes + 1] = {
    name = dst, queue = Q,
    read = { [lower] = "sampled", [level] = "sampled" },
    create = { [dst] = { format = "rgba16_sfloat", size = { "main", 0.5 ^ k } } },
    run = run(function(cmd)
      local gx, gy = groups(w, h)
      cmd:dispatch(sh.up, { [0] = { lower, sampler = "linear" }, [1] = { level, sampler = "linear" }, [2] = dst },
                   gx, gy, 1, { 1.0 / lw, 1.0 / lh, w + 0.0, h + 0.0 })
    end) }
end

nodes[#nodes + 1] = {
  name = "shadows",
  read = { camera = "none" },
  create = { shadow_map = { format = "d32_sfloat", size = "shadow" } },
  pass = { depth = { "shadow_map", clear = 1.0 } },
  run = run(function(cmd, ctx) cmd:draw(sh.shadow, {}, 3, cam_push(ctx)) end) }
nodes[#nodes + 1] = {
  name = "lighting",
  read = { "albedo", "normal", "depth", "shadow_map", camera = "none", lights = "uniform", ones = "sampled" },
  create = { hdr = { format = "rgba16_sfloat", size = "main" } },
  pass = { color = { "hdr" } },
  run = run(function(cmd, ctx)
    cmd:draw(sh.light, { [0] = "albedo", [1] = "normal", [2] = { "depth", sampler = "nearest" },
                         [3] = { "shadow_map", sampler = "nearest" }, [4] = "ones", [5] = "lights" }, 3,
             cam_push(ctx))
  end) }
nodes[#nodes + 1] = {
  name = "tonemap",
  read = { hdr = "sampled", bloom_up1 = "sampled", ao = "sampled" },
  create = { final = { format = "rgba8_unorm", size = "main" } },
  pass = { color = { "final" } },
  run = run(function(cmd, ctx)
    cmd:draw(sh.tonemap, { [0] = "hdr", [1] = "bloom_up1", [2] = "ao" }, 3,
             { ctx.width + 0.0, ctx.height + 0.0, 0.3, 0.8 })
  end) }

local extras = { frames = 3 }

-- The async plan in words: each async instance's window (the graphics
-- passes it may run beside) and what async costs in memory.
function extras.lines(graph)
  local out, byslot = {}, {}
  for _, i in ipairs(graph:instances()) do byslot[i.slot] = i end
  for s = 1, #byslot do
    local i = byslot[s]
    if i.queue == "async" then
      local beside = {}
      for g = i.fork + 1, i.join - 1 do
        if byslot[g] and byslot[g].queue ~= "async" then beside[#beside + 1] = byslot[g].name end
      end
      out[#out + 1] = ("async %-12s beside: %s"):format(i.name, #beside > 0 and table.concat(beside, ", ") or "-")
    end
  end
  local a = graph:stats().async
  out[#out + 1] = ("heap: %s with async, %s serial, %s with whole fork/join regions (%d region%s)"):format(
    ex.human(a.heap_bytes), ex.human(a.serial_bytes), ex.human(a.region_bytes), a.regions, a.regions == 1 and "" or "s")
  return out
end

function extras.after(rt)
  for _, l in ipairs(extras.lines(rt:graph())) do print(l) end
end

return setmetatable({
  name = opts.serial and "async_serial" or "async",
  resolutions = { main = { W, H }, shadow = { 2048, 2048 } },
  outputs = { "final" },
  nodes = nodes,
}, { __index = { example = extras } })
