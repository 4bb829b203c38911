/* Internals shared by csrc/core/alloc*.c (not a public header). */
#ifndef FG_ALLOC_IMPL_H
#define FG_ALLOC_IMPL_H
#include "fg_alloc.h"

#define FG_NIL UINT32_MAX

/* offset -> value hash map (open addressing, linear probing, backward-shift
 * deletion): lets free(offset) find its bookkeeping without headers in the range. */
typedef struct fg_omap {
  uint64_t *keys, *vals;   /* key UINT64_MAX = empty */
  uint32_t cap, count;     /* cap is a power of two */
} fg_omap;

int fg_omap_init(fg_omap *m, const fg_alloc_hooks *h, uint32_t cap);
void fg_omap_free(fg_omap *m, const fg_alloc_hooks *h);
int fg_omap_grow(fg_omap *m, const fg_alloc_hooks *h);
void fg_omap_clear(fg_omap *m);

/* The lookups are inline: they sit on every alloc/free. */
static inline uint32_t fg_omap_slot(const fg_omap *m, uint64_t key) {
  return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (m->cap - 1);
}

static inline int fg_omap_put(fg_omap *m, const fg_alloc_hooks *h, uint64_t key, uint64_t val) {
  if ((m->count + 1) * 4 > m->cap * 3 && fg_omap_grow(m, h)) return -1; /* load <= 3/4 */
  uint32_t s = fg_omap_slot(m, key);
  while (m->keys[s] != UINT64_MAX) {
    if (m->keys[s] == key) { m->vals[s] = val; return 0; }
    s = (s + 1) & (m->cap - 1);
  }
  m->keys[s] = key;
  m->vals[s] = val;
  m->count++;
  return 0;
}

/* Returns 1 and *val when found. */
static inline int fg_omap_get(const fg_omap *m, uint64_t key, uint64_t *val) {
  if (!m->cap) return 0;
  uint32_t s = fg_omap_slot(m, key);
  while (m->keys[s] != UINT64_MAX) {
    if (m->keys[s] == key) { if (val) *val = m->vals[s]; return 1; }
    s = (s + 1) & (m->cap - 1);
  }
  return 0;
}

/* Existing key only; 1 when found. */
static inline int fg_omap_set(fg_omap *m, uint64_t key, uint64_t val) {
  if (!m->cap) return 0;
  uint32_t s = fg_omap_slot(m, key);
  while (m->keys[s] != UINT64_MAX) {
    if (m->keys[s] == key) { m->vals[s] = val; return 1; }
    s = (s + 1) & (m->cap - 1);
  }
  return 0;
}

static inline int fg_omap_del(fg_omap *m, uint64_t key, uint64_t *val) {
  if (!m->cap) return 0;
  uint32_t mask = m->cap - 1, s = fg_omap_slot(m, key);
  while (m->keys[s] != key) {
    if (m->keys[s] == UINT64_MAX) return 0;
    s = (s + 1) & mask;
  }
  if (val) *val = m->vals[s];
  /* backward shift: pull later members of the probe run into the hole */
  uint32_t hole = s, j = s;
  for (;;) {
    j = (j + 1) & mask;
    if (m->keys[j] == UINT64_MAX) break;
    uint32_t home = fg_omap_slot(m, m->keys[j]);
    /* j stays unless its home lies cyclically in (hole, j] */
    int stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
    if (!stays) {
      m->keys[hole] = m->keys[j];
      m->vals[hole] = m->vals[j];
      hole = j;
    }
  }
  m->keys[hole] = UINT64_MAX;
  m->count--;
  return 1;
}


/* TLSF */
typedef struct fg_tlsf_node {
  uint64_t off, size;
  uint32_t prev_phys, next_phys, prev_free, next_free;
  uint8_t is_free;                /* 0 used, 1 free, 2 spare record */
  uint8_t fl, sl;                 /* free list it is on (set by free_insert) */
} fg_tlsf_node;

#define FG_TLSF_SL_LOG2 5
#define FG_TLSF_SL 32
#define FG_TLSF_FL 60

typedef struct fg_tlsf {
  fg_tlsf_node *nodes;
  uint32_t node_cap, node_spare;  /* spare: free-slot chain through next_free */
  uint32_t first;                 /* node at offset 0 (never released) */
  uint64_t fl_map;
  uint32_t sl_map[FG_TLSF_FL];
  uint32_t heads[FG_TLSF_FL][FG_TLSF_SL];
  fg_omap live;                   /* offset -> node */
  uint64_t gran;                  /* power of two >= 1 */
  int single;                     /* FREELIST: one list in heads[0][0], best fit by scan */
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

struct fg_allocator {
  fg_alloc_kind kind;
  fg_alloc_hooks hooks;
  uint64_t capacity, used, count;
  union { fg_tlsf tlsf; fg_buddy buddy; fg_slab slab; fg_linear lin; } u;
};

int fg__tlsf_init(fg_allocator *a, uint64_t gran, char *err, size_t errlen);
void fg__tlsf_fini(fg_allocator *a);
uint64_t fg__tlsf_alloc(fg_allocator *a, uint64_t size, uint64_t align);
int fg__tlsf_free(fg_allocator *a, uint64_t off);
uint64_t fg__tlsf_size(const fg_allocator *a, uint64_t off);
void fg__tlsf_reset(fg_allocator *a);
uint64_t fg__tlsf_largest(const fg_allocator *a);
int fg__tlsf_validate(const fg_allocator *a, char *err, size_t errlen);

int fg__buddy_init(fg_allocator *a, uint64_t block, char *err, size_t errlen);
void fg__buddy_fini(fg_allocator *a);
uint64_t fg__buddy_alloc(fg_allocator *a, uint64_t size, uint64_t align);
int fg__buddy_free(fg_allocator *a, uint64_t off);
uint64_t fg__buddy_size(const fg_allocator *a, uint64_t off);
void fg__buddy_reset(fg_allocator *a);
uint64_t fg__buddy_largest(const fg_allocator *a);
int fg__buddy_validate(const fg_allocator *a, char *err, size_t errlen);

#endif
