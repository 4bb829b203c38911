-- The viewer's demo: open it with
--   bin/framegraph-view examples/view.lua            (Tab shows the other eye)
-- then edit `rings` or `tint` below and save: the window follows.
-- Two eyes (multiplexed), an HDR scene per eye and a tone-mapping pass into
-- "final", which is the output the viewer shows. `main` follows the window.
local dev = ...
local rings = 24.0                      -- edit me
local tint = { 1.0, 0.8, 1.2 }          -- edit me
local fg = require("framegraph")
local sh = {}
if dev then
  sh.scene = fg.shader(dev, "view_scene.frag.spv", { fragment_only = true })
  sh.grade = fg.shader(dev, "view_grade.frag.spv", { fragment_only = true })
end
return {
  name = "view_demo",
  dimensions = { eye = 2 },
  resolutions = { main = { 640, 360, window = true } },
  outputs = { "final" },
  nodes = {
    { name = "scene", multiplex = { "eye" },
      create = { hdr = { format = "rgba16_sfloat", size = "main" } },
      pass = { color = { "hdr" } },
      run = function(cmd, ctx)
        cmd:draw(sh.scene, {}, 3, { ctx.frame / 60.0, ctx.index.eye == 1 and -1.0 or 1.0, rings })
      end },
    { name = "grade", multiplex = { "eye" },
      read = { hdr = { usage = "sampled", stage = "fragment" } },
      create = { final = { format = "rgba8_unorm", size = "main" } },
      pass = { color = { "final" } },
      run = function(cmd)
        cmd:draw(sh.grade, { [0] = "hdr" }, 3, { tint[1] + 0.0, tint[2] + 0.0, tint[3] + 0.0 })
      end },
  },
}
