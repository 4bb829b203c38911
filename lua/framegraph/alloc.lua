-- framegraph.alloc: sub-allocators over abstract ranges and GPU memory pools.
--   fg.allocator(kind, capacity, opts) -> allocator   kind: tlsf | buddy | slab | linear | ring | freelist
--     a:alloc(size [, align]) -> offset | nil, err     a:free(offset)   a:size(offset)
--     a:stats() -> {kind, capacity, used, free, largest_free, allocations, fragmentation}
--     a:reset()  a:validate() -> true | false, err  a:close()
--     a:allocate(size [, align [, user]]) -> handle, offset   a:free_handle(handle)   a:user(handle [, v])
--     a:handle(offset)   a:json()   a:svg([width])   a:defrag_plan() -> {{offset, to, size, handle, user}}
--     alignment: 1 or a power of two for every kind
--     opts.block: slab slot size (required for slab); buddy smallest block.
--     opts.granularity: tlsf rounds sizes and offsets to it (power of two), so alignments up to it cost nothing.
--     opts.max_allocations: tlsf/freelist record pool made once for N live allocations.
--   dev:memory_pool(opts) -> pool (a device method, added by the C binding)
--     opts: block_size, dedicated_min, slab_max, keep_empty, dedicated_cache, externally_synchronized
--     pool:alloc(size, {align, host_visible, device_local, optimal, dedicated, memory_type_bits})
--       -> memory | nil, err;  memory:info(), memory:write(bytes [, offset]), memory:read(n [, offset]), memory:free()
--     pool:stats() -> {device_bytes, device_memories, used, allocations, slab, tlsf, dedicated, ...}
--     pool:json(), pool:defrag_plan(), memory:user() (opts.user of pool:alloc)
local core = require("framegraph.core")

local M = {}
M.allocator = core.allocator
M.allocator_kinds = { "tlsf", "buddy", "slab", "linear", "ring", "freelist" }
return M
