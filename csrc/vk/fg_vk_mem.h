/* fg_vk_mem: VkDeviceMemory pools and the per-frame upload ring.
 *
 * Memory pool (fg_vk_mempool): one sub-pool per (memory type, linear|optimal)
 * so buffer/linear and optimal-tiling resources never share a block and
 * bufferImageGranularity cannot bite. Within a sub-pool:
 *   size <= slab_max     -> slab pages of power-of-two slots (256 B .. slab_max),
 *                           pages carved from the TLSF blocks
 *   size <  dedicated_min -> TLSF in blocks of block_size (fg_block_allocator;
 *                           surplus empty blocks beyond keep_empty are freed)
 *   otherwise            -> a VkDeviceMemory of its own; freed ones are cached
 *                           by size for reuse (the article's "heap pool").
 * Host-visible blocks are mapped once, persistently. When the device has
 * VK_EXT_memory_budget, no new VkDeviceMemory is created past the heap budget
 * (VK_ERROR_OUT_OF_DEVICE_MEMORY with a message instead).
 * Thread-safe: one lock per sub-pool, so different memory types allocate in
 * parallel (unless desc.externally_synchronized).
 *
 * Upload ring (fg_upload_ring): one host-visible, persistently mapped VkBuffer
 * cut into segments. Each thread slot owns one segment at a time and bumps
 * inside it without locks; a segment is tagged with the frame it served and is
 * reused once the ring's timeline semaphore reaches that frame's value.
 *
 * Upload ring, typical frame (tests/test_vk_upload.c does exactly this):
 *   uint64_t f = fg_upload_frame(ring);
 *   // any thread t (own slot): fg_upload_alloc(ring, t, n, 16, &span, err, len);
 *   //   memcpy(span.ptr, data, n);  record copies from fg_upload_buffer(ring) at span.offset
 *   // submit the frame's work, signalling fg_upload_semaphore(ring) with value f
 *   //   (VkSemaphoreSubmitInfo{.semaphore = ..., .value = f} in vkQueueSubmit2)
 *   fg_upload_next_frame(ring);   // segments of frame f return once the GPU reaches f
 * Every frame value must be signalled eventually (an empty submit is enough),
 * or its segments never come back. */
#ifndef FG_VK_MEM_H
#define FG_VK_MEM_H
#include "fg_vk.h"
#include "fg_alloc.h"

/* ---------------- memory pool ---------------- */
typedef struct fg_vk_mempool_desc {
  VkDeviceSize block_size;     /* 0 = 256 MiB, or less: at most 1/8 of the memory type's heap */
  VkDeviceSize dedicated_min;  /* 0 = the block size / 4; requests this large get their own memory */
  VkDeviceSize slab_max;       /* 0 = 64 KiB; requests up to this (size and alignment) use slabs */
  uint32_t keep_empty;         /* empty TLSF blocks kept per sub-pool; 0 = 1 */
  uint32_t dedicated_cache;    /* freed dedicated memories kept per sub-pool; 0 = 8 */
  int externally_synchronized; /* 1: the caller never calls into the pool from two threads
                                  at once, so no lock is taken */
} fg_vk_mempool_desc;

typedef struct fg_vk_mem_request {
  VkDeviceSize size;                  /* > 0 */
  VkDeviceSize alignment;             /* 0/1 = none; else a power of two */
  uint32_t memory_type_bits;          /* from VkMemoryRequirements; 0 = any type */
  VkMemoryPropertyFlags required;     /* e.g. HOST_VISIBLE | HOST_COHERENT */
  VkMemoryPropertyFlags preferred;    /* e.g. DEVICE_LOCAL */
  int optimal;                        /* 1: optimal-tiling image; 0: buffer or linear image */
  int dedicated;                      /* 1: force a VkDeviceMemory of its own */
  uint64_t user;                      /* kept with the allocation (fg_vk_allocation.user, the
                                         JSON dump, defragmentation moves) */
} fg_vk_mem_request;

typedef enum fg_vk_mem_kind { FG_VK_MEM_SLAB = 1, FG_VK_MEM_TLSF, FG_VK_MEM_DEDICATED } fg_vk_mem_kind;

typedef struct fg_vk_allocation {
  VkDeviceMemory memory;              /* bind with this + offset */
  VkDeviceSize offset, size;          /* size = requested size */
  void *mapped;                       /* host pointer at offset when host-visible, else NULL */
  uint32_t memory_type;
  fg_vk_mem_kind kind;
  uint64_t user;                      /* the request's user data */
  /* internal: where it came from (block_.h is the TLSF handle: the free is O(1), no lookup) (pass the struct back to fg_vk_mem_free unchanged) */
  uint32_t pool_, page_, class_;
  fg_block_allocation block_;
} fg_vk_allocation;

typedef struct fg_vk_mem_stats {
  VkDeviceSize device_bytes;          /* VkDeviceMemory bytes held (blocks, dedicated, cache) */
  uint32_t device_memories;           /* live VkDeviceMemory objects */
  VkDeviceSize used_bytes;            /* requested bytes of live allocations */
  uint64_t allocations;               /* live allocations */
  uint64_t slab, tlsf, dedicated;     /* live allocations by path */
  uint64_t dedicated_cached;          /* dedicated memories waiting in the cache */
  uint64_t device_allocs, device_frees; /* lifetime vkAllocateMemory / vkFreeMemory calls */
  double fragmentation;               /* TLSF blocks: 1 - largest_free / free (0 when none) */
} fg_vk_mem_stats;

typedef struct fg_vk_mempool fg_vk_mempool;

/* Retains dev. NULL + message on failure. */
fg_vk_mempool *fg_vk_mempool_create(fg_vk_device *dev, const fg_vk_mempool_desc *desc, char *err, size_t errlen);
/* Frees every VkDeviceMemory (live allocations included) and releases dev. */
void fg_vk_mempool_destroy(fg_vk_mempool *p);
/* VK_SUCCESS and *out; or VK_ERROR_OUT_OF_DEVICE_MEMORY / _HOST_MEMORY /
 * VK_ERROR_FEATURE_NOT_PRESENT (no memory type fits) with a message. */
VkResult fg_vk_mem_alloc(fg_vk_mempool *p, const fg_vk_mem_request *req, fg_vk_allocation *out,
                         char *err, size_t errlen);
/* The usual property flags without Vulkan names: host_visible requires
 * HOST_VISIBLE | HOST_COHERENT (mapped, no flushes); device_local prefers
 * DEVICE_LOCAL. Sets req->required and req->preferred. */
void fg_vk_mem_request_flags(fg_vk_mem_request *req, int host_visible, int device_local);
/* fg_vk_mem_alloc's result for callers that do not speak VkResult: 0 done;
 * 1 no memory type fits the request (a caller's mistake: its bits/flags);
 * -1 the memory could not be had (out of memory, a Vulkan failure). */
int fg_vk_mem_result(VkResult r);
/* Frees what fg_vk_mem_alloc returned; zeroes *a. A zeroed *a is ignored. */
void fg_vk_mem_free(fg_vk_mempool *p, fg_vk_allocation *a);
/* Frees cached dedicated memories and empty blocks. */
void fg_vk_mempool_trim(fg_vk_mempool *p);
void fg_vk_mempool_stats(fg_vk_mempool *p, fg_vk_mem_stats *out);
/* Every sub-allocator's invariants; 0 or -1 + message. */
int fg_vk_mempool_validate(fg_vk_mempool *p, char *err, size_t errlen);
/* JSON of the pool (docs/api.md): totals, then per sub-pool (memory type,
 * linear|optimal) its TLSF blocks with allocations, free ranges and a
 * histogram of free-range sizes (fg_block_json's schema), and its dedicated
 * memories. Slab pages appear as allocations of user data 2^64-1 (pinned).
 * The device's memory (its hooks): free it with fg_vk_mempool_free_result;
 * NULL when out of host memory. */
char *fg_vk_mempool_json(fg_vk_mempool *p);

/* One move of a defragmentation plan: copy `size` bytes from src_memory at
 * src_offset to dst_memory at dst_offset (memmove semantics when the memory
 * is the same), in plan order; then the allocation with `user` data lives there. */
typedef struct fg_vk_defrag_move {
  uint32_t memory_type;
  int optimal;
  VkDeviceMemory src_memory, dst_memory;
  VkDeviceSize src_offset, dst_offset, size;
  uint64_t user;
} fg_vk_defrag_move;
/* The moves that would compact the pool's TLSF blocks (fg_block_defrag_plan
 * per sub-pool: slab pages and dedicated memories stay). Planning only: the
 * pool is unchanged. 0 and an array of the device's memory (its hooks; free
it with fg_vk_mempool_free_result), or -1 (out of memory). */
int fg_vk_mempool_defrag_plan(fg_vk_mempool *p, fg_vk_defrag_move **moves, size_t *count);
/* Frees what fg_vk_mempool_json or fg_vk_mempool_defrag_plan returned. */
void fg_vk_mempool_free_result(fg_vk_mempool *p, void *result);

/* ---------------- upload ring ---------------- */
typedef struct fg_upload_desc {
  VkDeviceSize size;           /* 0 = 16 MiB: the ring buffer */
  VkDeviceSize segment_size;   /* 0 = 256 KiB; larger requests take several adjacent segments */
  uint32_t threads;            /* thread slots (0 = 16); fg_upload_alloc's `thread` < threads */
  VkBufferUsageFlags usage;    /* 0 = TRANSFER_SRC | VERTEX | INDEX | UNIFORM | STORAGE */
} fg_upload_desc;

typedef struct fg_upload_span {
  void *ptr;                   /* mapped, host-coherent: write, then submit work reading it */
  VkDeviceSize offset;         /* in fg_upload_buffer(ring) */
  VkDeviceSize size;
} fg_upload_span;

typedef struct fg_upload_stats {
  uint64_t frame, completed;   /* current frame value, value the GPU has reached */
  uint32_t segments, free_segments, retired_segments;
  uint64_t allocations, bytes, segment_acquires, waits;
} fg_upload_stats;

typedef struct fg_upload_ring fg_upload_ring;

/* Retains dev. The ring starts in frame 1. */
fg_upload_ring *fg_upload_create(fg_vk_device *dev, const fg_upload_desc *desc, char *err, size_t errlen);
/* Waits for the GPU to pass every frame begun, then frees. */
void fg_upload_destroy(fg_upload_ring *r);
VkBuffer fg_upload_buffer(const fg_upload_ring *r);
/* Timeline semaphore of the ring: the submit that consumes frame F's uploads
 * must signal it with value F (fg_upload_frame before fg_upload_next_frame). */
VkSemaphore fg_upload_semaphore(const fg_upload_ring *r);
uint64_t fg_upload_frame(const fg_upload_ring *r);

/* Bump-allocates `size` bytes aligned to `align` (power of two, 0 = 16) for
 * the current frame from thread slot `thread`. Lock-free while the slot's
 * segment has room; a new segment takes a mutex. Each slot must be used by one
 * thread at a time. Returns 0 and *out, or -1 with a message when the ring has
 * no free segment (the GPU still holds them all: wait, or make the ring bigger)
 * or `thread` / `size` is invalid. */
int fg_upload_alloc(fg_upload_ring *r, uint32_t thread, VkDeviceSize size, VkDeviceSize align,
                    fg_upload_span *out, char *err, size_t errlen);
/* Ends the current frame F (its segments wait for semaphore value F) and
 * starts F+1; also recycles segments of frames the GPU has finished. Call from
 * one thread while no fg_upload_alloc for frame F is in flight. Returns F+1. */
uint64_t fg_upload_next_frame(fg_upload_ring *r);
/* Blocks until the semaphore reaches `value` (or timeout_ns passes): 0 / -1. */
int fg_upload_wait(fg_upload_ring *r, uint64_t value, uint64_t timeout_ns);
void fg_upload_stats_get(fg_upload_ring *r, fg_upload_stats *out);

#endif
