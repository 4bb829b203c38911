-- VR (eye = 2) x SSAA (tile = 4), the thesis' multiplexing example: shadows
-- are view-independent (mode {}) and run once; the G-buffer and lighting run
-- per eye and per tile (8 instances); each eye's target is created per eye
-- and every tile composites its part into it (a wider node may modify a
-- narrower resource); the per-eye targets are the outputs.
return {
  name = "vr_ssaa",
  dimensions = { eye = 2, tile = 4 },
  resolutions = { eye = { 1440, 1600 }, tile = { 720, 800 } },
  outputs = { "eye_target" },
  nodes = {
    { name = "shadows",
      create = { shadow_map = { format = "d32_sfloat", size = { 2048, 2048 } } },
      pass = { depth = { "shadow_map", clear = 1.0 } } },
    { name = "camera", multiplex = { "eye" },
      create = { view = { blob = { size = 128 } } } },
    { name = "gbuffer", multiplex = { "eye", "tile" },
      read = { view = "none" },
      create = { albedo = { format = "rgba8_unorm", size = "tile" },
                 depth = { format = "d32_sfloat", size = "tile" } },
      pass = { color = { "albedo" }, depth = { "depth", clear = 1.0 } } },
    { name = "lighting", multiplex = { "eye", "tile" },
      read = { "albedo", "depth", "shadow_map", view = "none" },
      create = { lit = { format = "rgba16_sfloat", size = "tile" } } },
    { name = "clear_eye", multiplex = { "eye" },
      create = { eye_target = { format = "rgba8_unorm", size = "eye", usage = "transfer_dst" } } },
    { name = "composite", multiplex = { "eye", "tile" },
      read = { lit = "sampled" },
      modify = { eye_target = "storage" } },
  },
}
