/* fg_alloc: sub-allocators over an abstract range [0, capacity).
 *
 * The range can stand for bytes of a VkDeviceMemory block, indices of a
 * descriptor heap, slots of anything: the allocators never touch the memory,
 * they hand out offsets and keep their bookkeeping outside the range (so a
 * granularity of 1 works, as descriptor indices need).
 *
 * Kinds (all O(1) or O(log capacity) per call):
 *   TLSF    two-level segregated fit, good fit in O(1), immediate coalescing.
 *           The default: general sizes, any alignment.
 *   BUDDY   binary buddy, power-of-two blocks naturally aligned, O(log n).
 *   SLAB    fixed slots of desc.block bytes, O(1) free stack.
 *   LINEAR  bump pointer; free() of the newest allocation rolls back, when the
 *           count reaches zero the range is empty again; reset() frees all.
 *   RING    FIFO ring: allocations wrap around; space comes back when the
 *           oldest live allocation is freed (frees may come in any order).
 *   FREELIST one address-ordered list of blocks, best fit over all free blocks
 *           (O(free blocks)), coalescing on free: the descriptor-heap article's
 *           FreeListAllocator; the baseline TLSF's size classes speed up.
 *
 * fg_block_allocator owns several ranges ("blocks") of one kind, creates them
 * through a callback when none fits and destroys surplus empty ones beyond
 * desc.keep_empty (the block allocator of the descriptor-heap article).
 *
 * Thread safety: none; callers lock (the Vulkan pool locks per memory type). */
#ifndef FG_ALLOC_H
#define FG_ALLOC_H
#include <stddef.h>
#include <stdint.h>
#include "fg_util.h"

typedef enum fg_alloc_kind {
  FG_ALLOC_TLSF = 0,
  FG_ALLOC_BUDDY,
  FG_ALLOC_SLAB,
  FG_ALLOC_LINEAR,
  FG_ALLOC_RING,
  FG_ALLOC_FREELIST,
  FG_ALLOC_KIND_COUNT
} fg_alloc_kind;

/* "tlsf", "buddy", ... ; fg_alloc_kind_parse returns -1 for an unknown name. */
const char *fg_alloc_kind_name(fg_alloc_kind kind);
int fg_alloc_kind_parse(const char *name);

typedef struct fg_alloc_desc {
  fg_alloc_kind kind;      /* 0 = TLSF */
  uint64_t capacity;       /* size of the range; required (> 0) */
  uint64_t block;          /* SLAB: slot size (required); BUDDY: smallest block
                              (0 = max(1, capacity >> 20) rounded to a power of two) */
  const fg_alloc_hooks *hooks; /* bookkeeping memory; NULL = malloc */
  uint64_t granularity;    /* TLSF/FREELIST: sizes and block offsets are multiples of this
                              (0 = 1). A power of two; requests aligned to at most
                              this need no padding, which is what makes TLSF fast
                              for GPU alignments. Capacity is rounded down to it. */
} fg_alloc_desc;

typedef struct fg_alloc_stats {
  uint64_t capacity;
  uint64_t used;           /* bytes handed out (rounded sizes: what is unusable for others) */
  uint64_t free;           /* capacity - used */
  uint64_t largest_free;   /* largest request (align 1) that would succeed now */
  uint64_t allocations;    /* live allocations */
  double fragmentation;    /* 1 - largest_free / free, 0 when free == 0 */
} fg_alloc_stats;

#define FG_ALLOC_FAIL UINT64_MAX

typedef struct fg_allocator fg_allocator;

/* NULL + message on a bad desc (what is wrong and how to fix it). */
fg_allocator *fg_allocator_create(const fg_alloc_desc *desc, char *err, size_t errlen);
void fg_allocator_destroy(fg_allocator *a);
fg_alloc_kind fg_allocator_kind(const fg_allocator *a);

/* Offset of a new allocation of `size` (> 0) aligned to `align` (0 or 1 = none;
 * otherwise a power of two, except TLSF/LINEAR/RING which accept any value),
 * or FG_ALLOC_FAIL when it does not fit / the request is invalid for the kind
 * (fg_allocator_alloc_err says which). */
uint64_t fg_allocator_alloc(fg_allocator *a, uint64_t size, uint64_t align);
uint64_t fg_allocator_alloc_err(fg_allocator *a, uint64_t size, uint64_t align, char *err, size_t errlen);
/* 0, or -1 when `offset` is not a live allocation (nothing changes then). */
int fg_allocator_free(fg_allocator *a, uint64_t offset);
/* Size reserved for the live allocation at `offset` (>= requested), 0 if none. */
uint64_t fg_allocator_size(const fg_allocator *a, uint64_t offset);
/* Live allocations (cheap; fg_allocator_stats computes more). */
uint64_t fg_allocator_count(const fg_allocator *a);
/* Frees every allocation at once (all kinds). */
void fg_allocator_reset(fg_allocator *a);
void fg_allocator_stats(const fg_allocator *a, fg_alloc_stats *out);
/* Checks every internal invariant (free lists, bitmaps, neighbours, counts);
 * 0 when consistent, else -1 and a description. For tests and debugging. */
int fg_allocator_validate(const fg_allocator *a, char *err, size_t errlen);

/* ---- block allocator: several ranges created on demand ---- */
typedef struct fg_block_desc {
  fg_alloc_kind kind;       /* sub-allocator of each block (0 = TLSF) */
  uint64_t block_size;      /* size of a normal block (required) */
  uint64_t slab_block;      /* SLAB slot size / BUDDY smallest block / TLSF granularity */
  uint32_t keep_empty;      /* empty blocks kept for reuse; surplus ones are destroyed */
  /* Creates the backing of a block of `size`; returns 0 and sets *block_user,
   * or non-zero when it cannot (out of memory): the allocation then fails. */
  int (*create_block)(void *user, uint64_t size, void **block_user);
  void (*destroy_block)(void *user, void *block_user);
  void *user;
  const fg_alloc_hooks *hooks;
} fg_block_desc;

typedef struct fg_block_allocation {
  void *block_user;         /* what create_block returned */
  uint32_t block;           /* internal block index (pass back unchanged) */
  uint64_t offset, size;    /* size = requested size */
} fg_block_allocation;

typedef struct fg_block_stats {
  uint32_t blocks, empty_blocks;
  uint64_t block_bytes;     /* sum of block sizes */
  uint64_t used, largest_free, allocations;
  uint64_t blocks_created, blocks_destroyed; /* lifetime counters */
  double fragmentation;     /* 1 - largest_free / free over all blocks */
} fg_block_stats;

typedef struct fg_block_allocator fg_block_allocator;

fg_block_allocator *fg_block_allocator_create(const fg_block_desc *desc, char *err, size_t errlen);
/* Destroys every block (live allocations included). */
void fg_block_allocator_destroy(fg_block_allocator *b);
/* 0 and *out, or -1: a request larger than block_size gets a block of its own
 * (size + align, rounded up for the kind); -1 when create_block failed. */
int fg_block_alloc(fg_block_allocator *b, uint64_t size, uint64_t align, fg_block_allocation *out);
/* 0, or -1 when `a` is not live (nothing changes). */
int fg_block_free(fg_block_allocator *b, const fg_block_allocation *a);
/* Destroys all empty blocks (keep_empty ignored). */
void fg_block_trim(fg_block_allocator *b);
void fg_block_stats_get(const fg_block_allocator *b, fg_block_stats *out);
int fg_block_validate(const fg_block_allocator *b, char *err, size_t errlen);

#endif
