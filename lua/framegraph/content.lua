-- framegraph.content: content made outside the graph, merged into `fg`
-- (csrc/lua/content.c; docs/api.md "Content: buffers, textures, meshes"):
--   buf  = fg.buffer(dev, data_or_size [, {usage = "vertex" | "index" | {...}, index = "uint16" | "uint32"}])
--   img  = fg.image(dev, "file.png" [, {mips = true, format = "rgba8_srgb"}])   -> image | nil, message
--   mesh = fg.mesh(dev, "file.gltf")   -> {indices, count, vertices = {[0] = pos, [1] = normal, [2] = uv},
--                                          vertex_count, min, max} | nil, message
-- Drawn with cmd:draw_indexed(shader, bindings, mesh.indices, mesh.count, mesh.vertices, push).
local core = require("framegraph.core")

local M = {}
M.buffer = core.buffer
M.image = core.image
M.mesh = core.mesh
return M
