-- framegraph.alloc: sub-allocators over abstract ranges and GPU memory pools.
--   fg.allocator(kind, capacity, opts) -> allocator   kind: tlsf | buddy | slab | linear | ring | freelist
--     a:alloc(size [, align]) -> offset | nil, err     a:free(offset)   a:size(offset)
--     a:stats() -> {kind, capacity, used, free, largest_free, allocations, fragmentation}
--     a:reset()  a:validate() -> true | false, err  a:close()
--     opts.block: slab slot size (required for slab); buddy smallest block.
--     opts.granularity: tlsf rounds sizes and offsets to it (power of two), so alignments up to it cost nothing.
--   dev:memory_pool(opts) -> pool (a device method, added by the C binding)
--     opts: block_size, dedicated_min, slab_max, keep_empty, dedicated_cache, externally_synchronized
--     pool:alloc(size, {align, host_visible, device_local, optimal, dedicated, memory_type_bits})
--       -> memory | nil, err;  memory:info(), memory:write(bytes [, offset]), memory:read(n [, offset]), memory:free()
--     pool:stats() -> {device_bytes, device_memories, used, allocations, slab, tlsf, dedicated, ...}
local core = require("framegraph.core")

local M = {}
M.allocator = core.allocator
M.allocator_kinds = { "tlsf", "buddy", "slab", "linear", "ring", "freelist" }
return M
