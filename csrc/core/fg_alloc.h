/* fg_alloc: sub-allocators over an abstract range [0, capacity).
 *
 * The range can stand for bytes of a VkDeviceMemory block, indices of a
 * descriptor heap, slots of anything: the allocators never touch the memory,
 * they hand out offsets and keep their bookkeeping outside the range (so a
 * granularity of 1 works, as descriptor indices need).
 *
 * Kinds (all O(1) or O(log capacity) per call):
 *   TLSF    two-level segregated fit, good fit in O(1), immediate coalescing.
 *           The default: general sizes.
 *   BUDDY   binary buddy, power-of-two blocks naturally aligned, O(log n).
 *   SLAB    fixed slots of desc.block bytes, O(1) free stack.
 *   LINEAR  bump pointer; free() of the newest allocation rolls back, when the
 *           count reaches zero the range is empty again; reset() frees all.
 *   RING    FIFO ring: allocations wrap around; space comes back when the
 *           oldest live allocation is freed (frees may come in any order).
 *   FREELIST best fit, coalescing on free: the descriptor-heap article's
 *           FreeListAllocator, now TLSF with a best-fit policy (the request's
 *           own size class is searched first, so the block chosen is the
 *           smallest that fits to within one class, 1/32 of the size; exact
 *           below 32 units). O(1); granularity 1 serves index ranges.
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
  uint32_t max_allocations; /* TLSF/FREELIST: 0 = the node pool grows by doubling
                              (amortised: no allocation per call, and never more
                              than 2 * capacity / granularity + 2 nodes); N = the
                              pool is made once for N live allocations, and an
                              allocation past N fails (no host allocation ever) */
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

/* One rule for every allocator (and fg.pack): an alignment is 0 or 1 (none)
 * or a power of two; anything else is refused with this message. */
#define FG_ALLOC_ALIGN_MSG "align %llu is not a power of two (use 1, 2, 4, 8, ...)"

/* Handle of one allocation: what fg_allocator_alloc_h returns and
 * fg_allocator_free_h takes back. For TLSF and FREELIST, meta is the index of
 * the allocation's record in the node pool and gen its generation, so a free
 * is O(1) with no lookup and a stale or forged handle is refused (-1); the
 * other kinds keep meta = FG_ALLOC_NO_META and free by offset (their own
 * bookkeeping is indexed by offset already). */
#define FG_ALLOC_NO_META UINT32_MAX
/* 16 bytes, as callers keep one per allocation (OffsetAllocator's is 8: a
 * 24-byte handle with the size in it cost its users ~9 % on the bench's
 * stream); the reserved size is fg_allocator_handle_size(a, h), O(1). */
typedef struct fg_alloc_handle {
  uint64_t offset;
  uint32_t meta, gen;
} fg_alloc_handle;

/* NULL + message on a bad desc (what is wrong and how to fix it). */
fg_allocator *fg_allocator_create(const fg_alloc_desc *desc, char *err, size_t errlen);
void fg_allocator_destroy(fg_allocator *a);
fg_alloc_kind fg_allocator_kind(const fg_allocator *a);

/* Offset of a new allocation of `size` (> 0) aligned to `align` (0 or 1 = none;
 * otherwise a power of two, for every kind), or FG_ALLOC_FAIL when it does not
 * fit / the request is invalid for the kind (fg_allocator_alloc_err says which).
 * The offset path keeps an offset -> record map so fg_allocator_free(offset)
 * works; the handle path below needs none and is the fast one. */
uint64_t fg_allocator_alloc(fg_allocator *a, uint64_t size, uint64_t align);
uint64_t fg_allocator_alloc_err(fg_allocator *a, uint64_t size, uint64_t align, char *err, size_t errlen);
/* 0, or -1 when `offset` is not a live allocation (nothing changes then). */
int fg_allocator_free(fg_allocator *a, uint64_t offset);
/* Size reserved for the live allocation at `offset` (>= requested), 0 if none. */
uint64_t fg_allocator_size(const fg_allocator *a, uint64_t offset);
/* Live allocations (cheap; fg_allocator_stats computes more). */
uint64_t fg_allocator_count(const fg_allocator *a);
/* ---- handle path: O(1) free, user data ---- */
/* 0 and *out, or -1 (no space / invalid request / max_allocations reached).
 * `user` is kept with the allocation (fg_allocator_user). An allocation made
 * here is freed with fg_allocator_free_h; fg_allocator_free(offset) finds only
 * allocations made through the offset path (fg_allocator_alloc*). */
int fg_allocator_alloc_h(fg_allocator *a, uint64_t size, uint64_t align, uint64_t user, fg_alloc_handle *out);
/* 0, or -1 when `h` is not live (freed, reset, another allocator's): nothing changes. */
int fg_allocator_free_h(fg_allocator *a, const fg_alloc_handle *h);
/* 1 when `h` is live, else 0. */
int fg_allocator_handle_live(const fg_allocator *a, const fg_alloc_handle *h);
/* Size reserved for the live allocation `h` (>= requested), 0 when not live. */
uint64_t fg_allocator_handle_size(const fg_allocator *a, const fg_alloc_handle *h);
/* Handle of the offset-path allocation at `offset`: 1 and *out, or 0. */
int fg_allocator_handle_at(const fg_allocator *a, uint64_t offset, fg_alloc_handle *out);
/* One integer for a handle (meta | gen << 32, or the offset for kinds without
 * records), and back: 1 and *out when the id names a live allocation. */
uint64_t fg_alloc_handle_id(const fg_alloc_handle *h);
int fg_allocator_handle_from_id(const fg_allocator *a, uint64_t id, fg_alloc_handle *out);
/* User data of a live allocation (0 when none or not live); set: 0 / -1. */
uint64_t fg_allocator_user(const fg_allocator *a, const fg_alloc_handle *h);
int fg_allocator_set_user(fg_allocator *a, const fg_alloc_handle *h, uint64_t user);

/* Frees every allocation at once (all kinds). */
void fg_allocator_reset(fg_allocator *a);
void fg_allocator_stats(const fg_allocator *a, fg_alloc_stats *out);
/* Checks every internal invariant (free lists, bitmaps, neighbours, counts);
 * 0 when consistent, else -1 and a description. For tests and debugging. */
int fg_allocator_validate(const fg_allocator *a, char *err, size_t errlen);

/* ---- statistics ---- */
/* Calls fn once per live allocation, in no set order: its offset, reserved
 * size, alignment asked for (1 when the kind does not keep it) and user data. */
typedef void (*fg_alloc_walk_fn)(void *ctx, uint64_t offset, uint64_t size, uint64_t align, uint64_t user);
void fg_allocator_walk(const fg_allocator *a, fg_alloc_walk_fn fn, void *ctx);
/* JSON in the spirit of VMA's stats string (docs/api.md gives the schema):
 * totals, one block with its allocations and free ranges, and a histogram of
 * free-range sizes by power of two. NULL when out of memory. The string (and
 * every other result below: SVG, defragmentation plan) comes from the hooks
 * the allocator was made with: give it back with fg_allocator_free_result. */
char *fg_allocator_json(const fg_allocator *a);
/* SVG picture of the occupancy, `width` pixels wide (0 = 800): one bar with
 * each allocation drawn over the free range. NULL when out of memory. */
char *fg_allocator_svg(const fg_allocator *a, int width);
/* Frees a result of fg_allocator_json/svg/defrag_plan through a's hooks (NULL: nothing). */
void fg_allocator_free_result(const fg_allocator *a, void *result);

/* ---- defragmentation planning ---- */
/* User data that marks an allocation as never moved by a plan. */
#define FG_ALLOC_PINNED UINT64_MAX
typedef struct fg_defrag_move {
  uint32_t src_block, dst_block;    /* block indices (0 for a lone allocator) */
  uint64_t src_offset, dst_offset, size, user;
} fg_defrag_move;

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
  fg_alloc_handle h;        /* internal: the block's handle, so a free is O(1) */
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
/* The same with user data kept with the allocation (FG_ALLOC_PINNED: never moved by a plan). */
int fg_block_alloc_user(fg_block_allocator *b, uint64_t size, uint64_t align, uint64_t user, fg_block_allocation *out);
/* 0, or -1 when `a` is not live (nothing changes). */
int fg_block_free(fg_block_allocator *b, const fg_block_allocation *a);
/* Size reserved for the live allocation `a` (>= a->size), 0 when not live. */
uint64_t fg_block_reserved(const fg_block_allocator *b, const fg_block_allocation *a);
/* Destroys all empty blocks (keep_empty ignored). */
void fg_block_trim(fg_block_allocator *b);
void fg_block_stats_get(const fg_block_allocator *b, fg_block_stats *out);
int fg_block_validate(const fg_block_allocator *b, char *err, size_t errlen);
/* JSON of every block (fg_allocator_json's schema, "blocks" has one entry per
 * block, with its index and user pointer). From the block allocator's hooks
 * (fg_block_free_result frees it); NULL when out of memory. */
char *fg_block_json(const fg_block_allocator *b);
/* Frees a result of fg_block_json/fg_block_defrag_plan through b's hooks. */
void fg_block_free_result(const fg_block_allocator *b, void *result);
/* Calls fn for every block: index, block_user, its allocator. */
void fg_block_each(const fg_block_allocator *b, void (*fn)(void *ctx, uint32_t index, void *block_user,
                   const fg_allocator *a), void *ctx);

/* Defragmentation plan (the moves of VMA's defragmentation passes, planned at
 * once): blocks are taken fullest first; each is compacted towards offset 0,
 * then its tail is filled with allocations from the emptiest blocks. Applied
 * in order, each move's destination is free when it is made (its source may
 * overlap it: copy with memmove semantics), so the plan can be carried out
 * one move at a time. Pinned allocations (FG_ALLOC_PINNED) and dedicated
 * blocks stay. 0 and an array (*moves; NULL when no move) from the hooks of the
 * allocator planned for (fg_allocator_free_result / fg_block_free_result frees
 * it), or -1 when out of host memory. Alignment: what each allocation asked for
 * (TLSF keeps it), at least the granularity. */
int fg_block_defrag_plan(const fg_block_allocator *b, fg_defrag_move **moves, size_t *count);
int fg_allocator_defrag_plan(const fg_allocator *a, fg_defrag_move **moves, size_t *count);

#endif
