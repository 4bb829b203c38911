-- The serial twin of examples/async.lua: the same pipeline with every node on
-- the graphics queue (no queue = "async"), for comparisons (bench/async.lua,
-- spec/example_async_spec.lua).
local dev = ...
local here = debug.getinfo(1, "S").source:match("^@(.*)[/\\][^/\\]*$") or "."
return assert(loadfile(here .. "/async.lua"))(dev, { serial = true })
