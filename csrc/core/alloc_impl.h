/* Internals shared by csrc/core/alloc*.c (not a public header). */
#ifndef FG_ALLOC_IMPL_H
#define FG_ALLOC_IMPL_H
#include "fg_alloc.h"
#include "alloc_omap.h"

#define FG_NIL UINT32_MAX

/* TLSF */
typedef struct fg_tlsf_node {
  uint64_t off, size;
  uint32_t prev_phys, next_phys, prev_free, next_free;
  uint32_t gen;                   /* bumped when a used record is freed: stale handles fail */
  uint16_t cls;                   /* free list it is on, fl * SL + sl (set by free_insert) */
  uint8_t is_free;                /* 0 used, 1 free, 2 spare record */
  uint8_t align;                  /* used: log2 of the alignment asked for | IN_MAP */
} fg_tlsf_node;                   /* 40 bytes */

#define FG_TLSF_IN_MAP 0x80       /* used record reachable from the offset map */

#ifndef FG_TLSF_SL_LOG2
#define FG_TLSF_SL_LOG2 5
#endif
#define FG_TLSF_SL (1 << FG_TLSF_SL_LOG2)
#define FG_TLSF_FL (65 - FG_TLSF_SL_LOG2) /* fl of a 64-bit size: 63 - SL_LOG2 + 1 */

typedef struct fg_tlsf {
  fg_tlsf_node *nodes;            /* node_cap records; nodes[-1] is the sink (alloc_tlsf.c) */
  uint32_t node_cap, node_spare;  /* spare: free-slot chain through next_free */
  uint32_t first;                 /* node at offset 0 (never released) */
  uint64_t fl_map;
  uint32_t sl_map[FG_TLSF_FL];
  uint32_t heads[FG_TLSF_FL * FG_TLSF_SL]; /* by class fl * SL + sl */
  fg_omap live;                   /* offset -> node, for offset-path allocations only */
  uint64_t *user;                 /* per node, made on the first non-zero user data */
  uint64_t gran;                  /* power of two >= 1 */
  uint32_t gran_log2;
  uint64_t limit;                 /* live allocations allowed: max_allocations, or UINT64_MAX */
  uint64_t fast_cap;              /* largest need the good-fit fast path takes: capacity, 0 for best fit */
  int best;                       /* FREELIST: best-fit policy */
  int fixed;                      /* max_allocations given: the node pool never grows */
} fg_tlsf;

typedef struct fg_buddy {
  uint64_t min;                   /* smallest block (power of two) */
  uint32_t min_log2, leaves, max_order;
  uint8_t *tag;                   /* per leaf: 0, FREE|order, USED|order at block heads */
  uint32_t *fnext, *fprev;        /* free lists through block heads */
  uint32_t heads[64];
  uint64_t map;                   /* orders with a non-empty free list */
} fg_buddy;

typedef struct fg_slab {
  uint64_t block;
  uint32_t slots, top;            /* stack[0..top) free slot indices */
  uint32_t *stack;
  uint8_t *used;
} fg_slab;

typedef struct fg_ring_rec { uint64_t rstart, off, size; uint32_t freed; } fg_ring_rec;

typedef struct fg_linear {
  uint64_t top;                   /* LINEAR: bump; RING: head */
  uint64_t tail;                  /* RING: start of the oldest live reservation */
  fg_omap live;                   /* offset -> size (LINEAR) / sequence (RING) */
  fg_ring_rec *recs;              /* RING: circular queue of reservations */
  uint32_t rec_cap, rec_first, rec_count;
  uint64_t seq_first;             /* RING: sequence number of recs[rec_first] */
} fg_linear;

/* What each kind implements (alloc_tlsf.c: TLSF and FREELIST,
 * alloc_buddy.c, alloc_slab.c, alloc_linear.c: LINEAR and RING). alloc.c
 * picks one by kind from its table; no kind calls back into alloc.c. */
typedef struct fg_alloc_ops {
  /* a->capacity and a->hooks are set (the kind may round capacity down);
   * the kind reads its own fields of desc (block, granularity) */
  int (*init)(fg_allocator *a, const fg_alloc_desc *desc, char *err, size_t errlen);
  void (*fini)(fg_allocator *a);   /* also after a failed init */
  /* size > 0, align >= 1; keeps a->used and a->count */
  uint64_t (*alloc)(fg_allocator *a, uint64_t size, uint64_t align);
  int (*free)(fg_allocator *a, uint64_t off);
  uint64_t (*size)(const fg_allocator *a, uint64_t off);
  void (*reset)(fg_allocator *a);  /* a->used and a->count are 0 already */
  uint64_t (*largest)(const fg_allocator *a);
  int (*validate)(const fg_allocator *a, char *err, size_t errlen);
  /* optional: -1 and a message when the kind can never take such a request
   * (size > 0, align >= 1), for fg_allocator_alloc_err; else 0 */
  int (*refuse)(const fg_allocator *a, uint64_t size, uint64_t align, char *err, size_t errlen);
  /* every live allocation (offset, reserved size, align, user) */
  void (*walk)(const fg_allocator *a, fg_alloc_walk_fn fn, void *ctx);
  /* optional, kinds with records (TLSF, FREELIST); without them the front end
   * maps handles to offsets and keeps user data in its own offset map */
  uint64_t (*size_h)(const fg_allocator *a, const fg_alloc_handle *h); /* reserved size; 0 when not live */
  int (*at)(const fg_allocator *a, uint64_t off, fg_alloc_handle *out);
  uint64_t (*user)(const fg_allocator *a, const fg_alloc_handle *h);
  int (*set_user)(fg_allocator *a, const fg_alloc_handle *h, uint64_t user);
} fg_alloc_ops;

extern const fg_alloc_ops fg__tlsf_ops, fg__freelist_ops, fg__buddy_ops, fg__slab_ops, fg__linear_ops,
    fg__ring_ops;

/* alloc.c: the handle path of the kinds without records (alloc_tlsf.c's
 * fg_allocator_alloc_h / free_h hand them over) */
int fg__alloc_h_other(fg_allocator *a, uint64_t size, uint64_t align, uint64_t user, fg_alloc_handle *out);
int fg__free_h_other(fg_allocator *a, const fg_alloc_handle *h);

struct fg_allocator {
  fg_alloc_kind kind;
  uint8_t tlsf_front;             /* TLSF, FREELIST: alloc_tlsf.c serves the handle path (one byte test) */
  const fg_alloc_ops *ops;        /* the kind's, from alloc.c's table */
  fg_alloc_hooks hooks;
  uint64_t capacity, used, count;
  uint32_t max_allocations;
  fg_omap users;                  /* kinds without records: offset -> user data (made on first use) */
  union { fg_tlsf tlsf; fg_buddy buddy; fg_slab slab; fg_linear lin; } u;
};

#endif
