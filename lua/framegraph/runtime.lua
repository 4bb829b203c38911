-- framegraph.runtime: fg.runtime(dev, pipeline_or_path, opts) -> rt
-- The runtime itself is C (csrc/lua/runtime.c, csrc/vk/runtime.c); this file
-- accepts a pipeline file path and documents the options.
--   opts.solver   packing strategy passed to the compiler ("best", "none" = unaliased, ...)
--   opts.profile  {alignment = n, granularity = n}: inflate the driver's alignment and
--                 bufferImageGranularity (exercise real-driver placement on lavapipe)
--   opts.poison   fill every activated resource with garbage before its first use
--   opts.dimensions / opts.resolutions  as for fg.compile
--   opts.upload_bytes    size of the per-frame upload ring (default 4 MiB, made on first upload)
--   opts.upload_segment  its segment size (power of two >= 256; default upload_bytes / 16, at most 256 KiB)
-- Methods: rt:frame([inputs]) -> {barriers, batches, ...}; rt:read(name [, index]) -> bytes;
-- rt:save_png(name, path [, index]); rt:memory() -> {{bytes, planned, memory_type}, total, allocations};
-- rt:stats(); rt:reload(pipeline_or_path) -> true | nil, err; rt:set_resolution(name, w, h);
-- rt:graph(); rt:close().
-- rt:upload(bytes [, align]) -> upload | nil, err: bytes for the next frame only, in host-visible
-- memory; in run, cmd:copy(upload, name [, offset]) or a dispatch/draw binding {[n] = upload}
-- (readonly storage or uniform buffer); ctx.upload(bytes [, align]) does the same while recording.
-- upload:size(), upload:offset(), upload:valid(); rt:upload_stats() -> {size, bytes, allocations, ...}.
local core = require("framegraph.core")
local schema = require("framegraph.schema")

local M = {}

local function load_pipeline(p)
  if type(p) ~= "string" then return p end
  local chunk, err = loadfile(p)
  if not chunk then return nil, err end
  local ok, t = pcall(chunk)
  if not ok then return nil, t end
  if type(t) ~= "table" then return nil, p .. ": a pipeline file must return a table" end
  return t
end

function M.runtime(dev, pipeline, opts)
  local p, err = load_pipeline(pipeline)
  if not p then error("fg.runtime: " .. tostring(err), 2) end
  if type(p) ~= "table" then error("fg.runtime: pipeline must be a table or a file path", 2) end
  schema.check(p, opts, "runtime")  -- the C runtime compiles without calling back into Lua
  return core.runtime(dev, p, opts)
end

return M
