-- For the compiler specs: one texture description, and a pipeline with one
-- resolution and the output "out" around a list of nodes (extra fields
-- override or add top-level keys).
local M = {}

M.T = { format = "rgba8_unorm", size = "main" }

function M.P(nodes, extra)
  local p = { name = "t", resolutions = { main = { 64, 64 } }, outputs = { "out" }, nodes = nodes }
  for k, v in pairs(extra or {}) do p[k] = v end
  return p
end

return M
