-- The example host's pipeline: build/framegraph-host examples/host/scene.lua
-- The host (examples/host/host.c) draws its mesh with its own buffers and
-- pipeline in the C callback "draw_scene"; framegraph plans the memory,
-- orders the passes, places the barriers and tone-maps into the host's image.
-- Edit `tint` or `spin` while it runs: the host reloads this file.
local dev = ...
local fg = require("framegraph")
local tint = { 1.0, 0.6, 0.3 }   -- edit me
local spin = 0.05                -- radians per frame
local albedo = { 0.9, 0.9, 0.9 }
local grade
if dev then grade = fg.shader(dev, "view_grade.frag.spv", { fragment_only = true }) end
return {
  name = "host_scene",
  resolutions = { main = { 512, 512 } },
  -- the host's image, given with fg_runtime_set_image
  external = { backbuffer = { format = "rgba8_unorm", size = "main" } },
  outputs = { "backbuffer" },
  nodes = {
    { name = "scene",
      create = { hdr = { format = "rgba16_sfloat", size = "main" },
                 depth = { format = "d32_sfloat", size = "main" } },
      pass = { color = { { "hdr", clear = { 0.02, 0.02, 0.05, 1 } } }, depth = { "depth", clear = 1.0 } },
      -- the host's C callback, with arguments: angle, albedo
      run = function(cmd, ctx)
        cmd:host("draw_scene", { ctx.frame * spin, albedo[1], albedo[2], albedo[3] })
      end },
    { name = "grade",
      read = { hdr = { usage = "sampled", stage = "fragment" } },
      modify = { "backbuffer" },
      pass = { color = { "backbuffer" } },
      run = function(cmd)
        cmd:draw(grade, { [0] = "hdr" }, 3, { tint[1] + 0.0, tint[2] + 0.0, tint[3] + 0.0 })
      end },
  },
}
