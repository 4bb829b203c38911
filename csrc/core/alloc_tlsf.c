/* TLSF (Masmano et al.): free blocks in 60 x 32 size classes with two levels
 * of bitmaps, so finding a good fit is a couple of bit scans. Block records
 * live in a node pool outside the range; physical neighbours are linked so a
 * free coalesces at once, which keeps "no two adjacent free blocks". */
#include "alloc_impl.h"
#include <string.h>

#define SL_LOG2 FG_TLSF_SL_LOG2
#define SL FG_TLSF_SL
#define FL FG_TLSF_FL

static inline int log2_floor(uint64_t x) { return 63 - __builtin_clzll(x); }

/* Size class of size >= 1 as one index fl * SL + sl: classes below SL are
 * exact, above they split each power of two in SL (fl = log2 - SL_LOG2 + 1,
 * sl the next SL_LOG2 bits, and (fl * SL + sl) = shift * SL + size >> shift).
 * Branch-free: sizes are random in practice, and a branch on "small" is
 * mispredicted a third of the time. */
static inline uint32_t mapping(uint64_t size) {
  int shift = log2_floor(size | SL) - SL_LOG2;
  return ((uint32_t)shift << SL_LOG2) + (uint32_t)(size >> shift);
}

/* The first class whose every block holds x: x rounded up to a class
 * boundary, so the same sum with size >> shift rounded up (the carry into the
 * next power of two comes with it). x <= fast_cap, so no overflow. */
static inline uint32_t class_up(uint64_t x) {
  int shift = log2_floor(x | SL) - SL_LOG2;
  return ((uint32_t)shift << SL_LOG2) + (uint32_t)((x + (1ull << shift) - 1) >> shift);
}

#define HEAD(t, fl, sl) ((t)->heads[(fl) * SL + (sl)])

/* The sink is a record just before the pool (nodes[-1]) that absorbs link
 * updates aimed at "no node". FG_NIL read as int32_t is -1, so SINK(t, i) is
 * record i, or the sink for FG_NIL, with no branch and no select: whether a
 * list or a neighbour is empty is random, and the branch this replaces was
 * mispredicted about a third of the time. Indices stay below 2^31. */
#define SINK(t, i) ((t)->nodes[(int32_t)(i)])

/* The pool's storage: the sink, then n records; nodes points past the sink. */
static fg_tlsf_node *pool_realloc(const fg_alloc_hooks *h, fg_tlsf_node *nodes, uint32_t n) {
  fg_tlsf_node *b = fg_realloc(h, nodes ? nodes - 1 : NULL, sizeof(fg_tlsf_node) * ((size_t)n + 1));
  if (!b) return NULL;
  b[0].is_free = 2; /* never free: give_back's neighbour tests see "used" */
  b[0].gen = 0;
  return b + 1;
}

static uint64_t *zeroed(const fg_alloc_hooks *h, uint32_t n) {
  uint64_t *u = fg_malloc(h, sizeof(uint64_t) * n);
  if (u) memset(u, 0, sizeof(uint64_t) * n);
  return u;
}

/* The pool is empty: grow it (doubling), or FG_NIL. Out of the hot path. */
static __attribute__((noinline, cold)) uint32_t node_grow(fg_allocator *a) {
  fg_tlsf *t = &a->u.tlsf;
  if (t->fixed || t->node_cap >= (1u << 31)) return FG_NIL;
  uint32_t ncap = t->node_cap ? t->node_cap * 2 : 64;
  if (t->user) { /* first, so a failure below leaves it merely larger */
    uint64_t *u = fg_realloc(&a->hooks, t->user, sizeof(uint64_t) * ncap);
    if (!u) return FG_NIL;
    memset(u + t->node_cap, 0, sizeof(uint64_t) * (ncap - t->node_cap));
    t->user = u;
  }
  fg_tlsf_node *n = pool_realloc(&a->hooks, t->nodes, ncap);
  if (!n) return FG_NIL;
  t->nodes = n;
  for (uint32_t i = t->node_cap; i < ncap; i++) {
    n[i].next_free = i + 1 < ncap ? i + 1 : FG_NIL;
    n[i].is_free = 2;
    n[i].gen = 0;
  }
  t->node_spare = t->node_cap;
  t->node_cap = ncap;
  return 0;
}

static inline __attribute__((always_inline)) uint32_t node_new(fg_allocator *a) {
  fg_tlsf *t = &a->u.tlsf;
  if (__builtin_expect(t->node_spare == FG_NIL, 0) && node_grow(a) == FG_NIL) return FG_NIL;
  uint32_t i = t->node_spare;
  t->node_spare = t->nodes[i].next_free;
  return i;
}

static inline void node_release(fg_tlsf *t, uint32_t i) {
  t->nodes[i].next_free = t->node_spare;
  t->nodes[i].is_free = 2; /* spare marker for validate and stale handles */
  t->node_spare = i;
}

/* Free lists: a block heads its class's list when heads[class] names it;
 * the head's prev_free is left as it was (so taking the head touches no
 * other record), every other block's prev_free names its predecessor. */
static inline __attribute__((always_inline)) void free_insert(fg_tlsf *t, uint32_t i) {
  fg_tlsf_node *n = &t->nodes[i];
  uint32_t c = mapping(n->size);
  uint32_t h = t->heads[c];
  n->is_free = 1;
  n->cls = (uint16_t)c;
  n->prev_free = FG_NIL;
  n->next_free = h;
  SINK(t, h).prev_free = i;
  t->heads[c] = i;
  t->fl_map |= 1ull << (c >> SL_LOG2);
  t->sl_map[c >> SL_LOG2] |= 1u << (c & (SL - 1));
}

static inline __attribute__((always_inline)) void free_remove(fg_tlsf *t, uint32_t i) {
  fg_tlsf_node *n = &t->nodes[i];
  uint32_t c = n->cls, fl = c >> SL_LOG2;
  uint32_t pv = n->prev_free, nx = n->next_free;
  /* by masks, not branches (see SINK): the list's head or the predecessor
   * takes the successor; the successor's prev_free takes pv unless it becomes
   * the head, whose prev_free is left (the update goes to the sink: -1 | x) */
  uint32_t head = 0u - (uint32_t)(t->heads[c] == i);
  SINK(t, pv | head).next_free = nx;
  t->heads[c] ^= (t->heads[c] ^ nx) & head;
  SINK(t, nx | head).prev_free = pv;
  if (t->heads[c] == FG_NIL) {
    t->sl_map[fl] &= ~(1u << (c & (SL - 1)));
    if (!t->sl_map[fl]) t->fl_map &= ~(1ull << fl);
  }
  n->is_free = 0;
}

/* Splits node i at `at` bytes; the upper part becomes a new node (returned),
 * so the lower node keeps its identity (node `first` stays at offset 0). */
static inline __attribute__((always_inline)) uint32_t split(fg_allocator *a, uint32_t i, uint64_t at) {
  fg_tlsf *t = &a->u.tlsf;
  uint32_t j = node_new(a);
  if (j == FG_NIL) return FG_NIL;
  fg_tlsf_node *n = &t->nodes[i], *m = &t->nodes[j];
  m->off = n->off + at;
  m->size = n->size - at;
  m->prev_phys = i;
  m->next_phys = n->next_phys;
  m->is_free = 0;
  SINK(t, n->next_phys).prev_phys = j;
  n->next_phys = j;
  n->size = at;
  return j;
}

/* Merges node j (the upper physical neighbour of i) into i. */
static inline void absorb(fg_tlsf *t, uint32_t i, uint32_t j) {
  fg_tlsf_node *n = &t->nodes[i], *m = &t->nodes[j];
  n->size += m->size;
  n->next_phys = m->next_phys;
  SINK(t, m->next_phys).prev_phys = i;
  node_release(t, j);
}

static int tlsf_init(fg_allocator *a, const fg_alloc_desc *desc, char *err, size_t errlen) {
  fg_tlsf *t = &a->u.tlsf;
  const char *k = desc->kind == FG_ALLOC_FREELIST ? "freelist" : "tlsf";
  uint64_t gran = desc->granularity;
  if (gran == 0) gran = 1;
  if (gran & (gran - 1) || gran > a->capacity) {
    fg_errf(err, errlen, "%s: granularity %llu must be a power of two no larger than the capacity %llu",
            k, (unsigned long long)gran, (unsigned long long)a->capacity);
    return -1;
  }
  a->tlsf_front = 1;
  t->gran = gran;
  t->gran_log2 = (uint32_t)log2_floor(gran);
  a->capacity = a->capacity / gran * gran;
  t->node_spare = FG_NIL;
  if (fg_omap_init(&t->live, &a->hooks, 64)) { fg_errf(err, errlen, "out of host memory"); return -1; }
  if (desc->max_allocations) {
    if (desc->max_allocations > (1u << 29)) {
      fg_errf(err, errlen, "%s: max_allocations %u is too many (at most 2^29)", k, desc->max_allocations);
      return -1;
    }
    /* used records <= N, free records <= N + 1, one more for a padding split */
    uint32_t cap = desc->max_allocations * 2 + 2;
    t->nodes = pool_realloc(&a->hooks, NULL, cap);
    if (!t->nodes) { fg_errf(err, errlen, "out of host memory"); return -1; }
    for (uint32_t i = 0; i < cap; i++) t->nodes[i].gen = 0;
    t->node_cap = cap;
    t->fixed = 1;
  }
  t->limit = t->fixed ? desc->max_allocations : UINT64_MAX;
  /* class_up(need)'s sum stays in 64 bits (and its class in the table) for
   * need <= 2^64 - 2^58; larger needs go to find_slow, as they always did */
  uint64_t lim = 0 - (1ull << 58);
  t->fast_cap = a->capacity < lim ? a->capacity : lim;
  return 0;
}

static void tlsf_fini(fg_allocator *a) {
  if (a->u.tlsf.nodes) fg_free(&a->hooks, a->u.tlsf.nodes - 1); /* the sink's too */
  fg_free(&a->hooks, a->u.tlsf.user);
  fg_omap_free(&a->u.tlsf.live, &a->hooks);
}

static void tlsf_reset(fg_allocator *a) {
  fg_tlsf *t = &a->u.tlsf;
  t->fl_map = 0;
  memset(t->sl_map, 0, sizeof t->sl_map);
  memset(t->heads, 0xff, sizeof t->heads);
  /* every node back to the spare chain (handles of the old ones go stale),
   * then one free block covering the range */
  t->node_spare = FG_NIL;
  for (uint32_t i = t->node_cap; i-- > 0;) {
    t->nodes[i].gen++;
    node_release(t, i);
  }
  if (t->user) memset(t->user, 0, sizeof(uint64_t) * t->node_cap);
  fg_omap_clear(&t->live);
  t->first = node_new(a);
  if (t->first == FG_NIL) return; /* out of host memory: allocator stays empty-handed */
  fg_tlsf_node *n = &t->nodes[t->first];
  n->off = 0;
  n->size = a->capacity;
  n->prev_phys = n->next_phys = FG_NIL;
  free_insert(t, t->first);
}

/* First non-empty class at (fl, sl) or above: 1 and the class, else 0. */
static inline int next_class(const fg_tlsf *t, int fl, int sl, int *ofl, int *osl) {
  uint32_t slm = sl < SL ? t->sl_map[fl] & (~0u << sl) : 0;
  if (!slm) {
    uint64_t flm = fl + 1 < 64 ? t->fl_map & (~0ull << (fl + 1)) : 0;
    if (!flm) return 0;
    fl = __builtin_ctzll(flm);
    slm = t->sl_map[fl];
  }
  *ofl = fl;
  *osl = __builtin_ctz(slm);
  return 1;
}

static inline int fits(const fg_tlsf_node *n, uint64_t size, uint64_t align) {
  uint64_t pad = (align - (n->off & (align - 1))) & (align - 1);
  return n->size >= size && n->size - size >= pad;
}

/* Best fit in class (fl, sl): the smallest block that fits, looking at no
 * more than BEST_SCAN of them (a class spans 1/32 of a size, so any is close). */
#define BEST_SCAN 32
#ifndef FALLBACK_SCAN
#define FALLBACK_SCAN 32
#endif
static inline uint32_t best_in(const fg_tlsf *t, int fl, int sl, uint64_t size, uint64_t align) {
  uint32_t best = FG_NIL;
  uint64_t bs = UINT64_MAX;
  int k = 0;
  for (uint32_t j = HEAD(t, fl, sl); j != FG_NIL && k < BEST_SCAN; j = t->nodes[j].next_free, k++) {
    const fg_tlsf_node *n = &t->nodes[j];
    if (n->size < bs && fits(n, size, align)) {
      best = j;
      bs = n->size;
      if (bs == size) break;
    }
  }
  return best;
}

/* Good fit, O(1): the first non-empty class at or above class c holds
 * blocks that all fit when c is the request rounded up to a class boundary;
 * that class in *out, or 0 when every class above is empty. */
static inline __attribute__((always_inline)) int good_class(const fg_tlsf *t, uint32_t c, uint32_t *out) {
  uint32_t fl = c >> SL_LOG2;
  uint32_t slm = t->sl_map[fl] & (~0u << (c & (SL - 1)));
  if (!slm) {
    uint64_t flm = t->fl_map & (~0ull << (fl + 1)); /* fl + 1 <= FL < 64 */
    if (!flm) return 0;
    fl = (uint32_t)__builtin_ctzll(flm);
    slm = t->sl_map[fl];
  }
  *out = (fl << SL_LOG2) + (uint32_t)__builtin_ctz(slm);
  return 1;
}

/* The searches off the fast path, taking the block they find off its list:
 * the best-fit policy (FREELIST), and for TLSF the request's own class when
 * the rounded-up classes are empty (that class may still hold a block that
 * fits: the whole range, an exact size). FG_NIL when none fits. */
static __attribute__((noinline)) uint32_t find_slow(fg_allocator *a, uint64_t size, uint64_t align) {
  fg_tlsf *t = &a->u.tlsf;
  uint64_t cap = a->capacity;
  int cfl, csl;
  uint32_t i = FG_NIL, c0 = mapping(size);
  int fl = (int)(c0 >> SL_LOG2), sl = (int)(c0 & (SL - 1));
  if (!t->best) { /* a failed TLSF request ends here: keep it short */
    int k = 0;
    for (uint32_t j = t->heads[c0]; j != FG_NIL && k < FALLBACK_SCAN; j = t->nodes[j].next_free, k++)
      if (fits(&t->nodes[j], size, align)) { i = j; break; }
  } else {
    uint64_t need = size + (align - 1);
    int have_r = 0, rfl = 0, rsl = 0;
    if (need >= size && need <= cap) {
      uint64_t r = need + (1ull << (log2_floor(need | SL) - SL_LOG2)) - 1;
      if (r >= need) { uint32_t rc = mapping(r); rfl = (int)(rc >> SL_LOG2); rsl = (int)(rc & (SL - 1)); have_r = 1; }
    }
    /* the request's own class first, then each class up to the one that
     * surely fits: the first fit found there is the best to within a class */
    i = best_in(t, fl, sl, size, align);
    while (i == FG_NIL && next_class(t, fl, sl + 1, &cfl, &csl)) {
      if (have_r && (cfl > rfl || (cfl == rfl && csl >= rsl))) i = HEAD(t, cfl, csl);
      else i = best_in(t, cfl, csl, size, align);
      fl = cfl;
      sl = csl;
    }
  }
  if (i != FG_NIL) free_remove(t, i);
  return i;
}

/* Block i, off its list, starts below the alignment: the gap before it stays
 * free as a block of its own; the rest (returned), or FG_NIL. Rare: most
 * requests align to no more than the granularity. */
static __attribute__((noinline, cold)) uint32_t carve_pad(fg_allocator *a, uint32_t i, uint64_t pad) {
  uint32_t j = split(a, i, pad);
  free_insert(&a->u.tlsf, i);
  return j;
}

/* Carves an allocation; the used node's index, or FG_NIL. align: power of
 * two. plain (a constant at each use): align is at most the granularity, so
 * every block offset already honours it and no alignment arithmetic runs. */
static inline __attribute__((always_inline)) uint32_t take(fg_allocator *a, uint64_t size, uint64_t align,
                                                           const int plain) {
  fg_tlsf *t = &a->u.tlsf;
  /* a size above the capacity finds no block; below it, rounding to the
   * granularity cannot overflow (the capacity is a multiple of it) */
  if (plain) {
    if (size - 1 >= a->capacity) return FG_NIL; /* also size 0 (wraps) */
    size = (size + t->gran - 1) & ~(t->gran - 1);
    align = 1;
  } else if (t->gran > 1) {
    if (size > a->capacity) return FG_NIL;
    size = (size + t->gran - 1) & ~(t->gran - 1);
    if (align <= t->gran) align = 1;              /* every block offset is a multiple of gran */
  }
  if (a->count >= t->limit) return FG_NIL;
  uint32_t i, c;
  uint64_t need = plain ? size : size + (align - 1);
  /* TLSF's good fit: round the request up to a class boundary and pop the
   * head of the first non-empty class there (need >= size: no overflow;
   * fast_cap keeps c inside the class table) */
  if ((plain || need >= size) && need <= t->fast_cap && __builtin_expect(good_class(t, class_up(need), &c), 1)) {
    i = t->heads[c];
    fg_tlsf_node *n = &t->nodes[i];
    uint32_t nx = n->next_free;
    t->heads[c] = nx; /* nx's prev_free may stay: it heads the list now */
    /* the class's bit goes when its list empties, the level's with its last
     * class: by masks, since whether the list empties is random (a branch here
     * was mispredicted a quarter of the time; the masks cost ~10 instructions) */
    uint32_t m = t->sl_map[c >> SL_LOG2] & ~((uint32_t)(nx == FG_NIL) << (c & (SL - 1)));
    t->sl_map[c >> SL_LOG2] = m;
    t->fl_map &= ~((uint64_t)(m == 0) << (c >> SL_LOG2));
    n->is_free = 0;
  } else if ((i = find_slow(a, size, align)) == FG_NIL) {
    return FG_NIL;
  }
  if (!plain && align > 1) { /* align 1 here when it is at most the granularity */
    uint64_t pad = (align - (t->nodes[i].off & (align - 1))) & (align - 1);
    if (pad && (i = carve_pad(a, i, pad)) == FG_NIL) return FG_NIL;
  }
  if (t->nodes[i].size > size) {
    uint32_t j = split(a, i, size);
    if (j != FG_NIL) free_insert(t, j); /* else keep the slack inside the allocation */
  }
  fg_tlsf_node *n = &t->nodes[i]; /* is_free 0 already: popped, removed or split off */
  n->align = plain ? (uint8_t)t->gran_log2 : (uint8_t)__builtin_ctzll(align > t->gran ? align : t->gran);
  a->used += n->size;
  a->count++;
  return i;
}

/* Frees used node i: O(1), coalescing with free neighbours. */
static inline __attribute__((always_inline)) void give_back(fg_allocator *a, uint32_t i) {
  fg_tlsf *t = &a->u.tlsf;
  fg_tlsf_node *nd = &t->nodes[i];
  a->used -= nd->size; /* count at the end: kept apart, the two are plain scalar updates */
  nd->gen++; /* user data is left: the next allocation of this record writes it */
  uint32_t p = nd->prev_phys, n = nd->next_phys;
  /* the sink is never free (is_free 2) */
  if (SINK(t, n).is_free == 1) { free_remove(t, n); absorb(t, i, n); }
  if (SINK(t, p).is_free == 1) { free_remove(t, p); absorb(t, p, i); i = p; }
  free_insert(t, i);
  a->count--;
}

static inline int is_live(const fg_tlsf *t, const fg_alloc_handle *h) {
  uint32_t i = h->meta;
  return i < t->node_cap && t->nodes[i].is_free == 0 && t->nodes[i].gen == h->gen && t->nodes[i].off == h->offset;
}

/* User data for new record i: out of line, so the hot path keeps fewer
 * registers; -1 (and i given back) when the array cannot be made. */
static __attribute__((noinline)) int put_user(fg_allocator *a, uint32_t i, uint64_t user) {
  fg_tlsf *t = &a->u.tlsf;
  if (!t->user && !(t->user = zeroed(&a->hooks, t->node_cap))) { /* the first user data */
    give_back(a, i);
    return -1;
  }
  t->user[i] = user;
  return 0;
}

static inline __attribute__((always_inline)) int tlsf_alloc_h(fg_allocator *a, uint64_t size, uint64_t align,
                                                              uint64_t user, fg_alloc_handle *out, const int plain) {
  fg_tlsf *t = &a->u.tlsf;
  uint32_t i = take(a, size, align, plain);
  if (i == FG_NIL) return -1;
  if (__builtin_expect((uintptr_t)t->user | user, 0) && put_user(a, i, user)) return -1;
  const fg_tlsf_node *n = &t->nodes[i];
  out->offset = n->off;
  out->meta = i;
  out->gen = n->gen;
  return 0;
}

static inline __attribute__((always_inline)) int tlsf_free_h(fg_allocator *a, const fg_alloc_handle *h) {
  fg_tlsf *t = &a->u.tlsf;
  if (!is_live(t, h)) return -1;
  if (t->nodes[h->meta].align & FG_TLSF_IN_MAP) fg_omap_del(&t->live, h->offset, NULL);
  give_back(a, h->meta);
  return 0;
}

/* The handle path's front end lives here so that, for TLSF and FREELIST, the
 * request is checked once and carved with no call through the kind table;
 * the other kinds go through alloc.c. */
static inline int is_tlsf(const fg_allocator *a) { return a->tlsf_front; /* set by tlsf_init */ }

/* Alignment above the granularity: out of line, so the common case's code
 * stays small. */
static __attribute__((noinline)) int alloc_h_aligned(fg_allocator *a, uint64_t size, uint64_t align, uint64_t user,
                                                     fg_alloc_handle *out) {
  if (size == 0) return -1;
  return tlsf_alloc_h(a, size, align, user, out, 0);
}

int fg_allocator_alloc_h(fg_allocator *a, uint64_t size, uint64_t align, uint64_t user, fg_alloc_handle *out) {
  if (!is_tlsf(a)) return fg__alloc_h_other(a, size, align, user, out);
  if (align & (align - 1)) return -1;
  /* size 0 is refused inside (plain: with the capacity test) */
  if (__builtin_expect(align <= a->u.tlsf.gran, 1)) return tlsf_alloc_h(a, size, 1, user, out, 1);
  return alloc_h_aligned(a, size, align, user, out);
}

int fg_allocator_free_h(fg_allocator *a, const fg_alloc_handle *h) {
  if (!is_tlsf(a)) return fg__free_h_other(a, h);
  return tlsf_free_h(a, h);
}

static uint64_t tlsf_size_h(const fg_allocator *a, const fg_alloc_handle *h) {
  return is_live(&a->u.tlsf, h) ? a->u.tlsf.nodes[h->meta].size : 0;
}

static int tlsf_at(const fg_allocator *a, uint64_t off, fg_alloc_handle *out) {
  const fg_tlsf *t = &a->u.tlsf;
  uint64_t v;
  if (!fg_omap_get(&t->live, off, &v)) return 0;
  *out = (fg_alloc_handle){ off, (uint32_t)v, t->nodes[v].gen };
  return 1;
}

static uint64_t tlsf_user(const fg_allocator *a, const fg_alloc_handle *h) {
  const fg_tlsf *t = &a->u.tlsf;
  return is_live(t, h) && t->user ? t->user[h->meta] : 0;
}

static int tlsf_set_user(fg_allocator *a, const fg_alloc_handle *h, uint64_t user) {
  fg_tlsf *t = &a->u.tlsf;
  if (!is_live(t, h)) return -1;
  if (!t->user) {
    if (!user) return 0;
    if (!(t->user = zeroed(&a->hooks, t->node_cap))) return -1;
  }
  t->user[h->meta] = user;
  return 0;
}

/* The offset path: the same, plus the offset map. */
static uint64_t tlsf_alloc(fg_allocator *a, uint64_t size, uint64_t align) {
  fg_tlsf *t = &a->u.tlsf;
  uint32_t i = take(a, size, align, 0);
  if (i == FG_NIL) return FG_ALLOC_FAIL;
  uint64_t off = t->nodes[i].off;
  if (t->user) t->user[i] = 0;
  if (fg_omap_put(&t->live, &a->hooks, off, i)) { give_back(a, i); return FG_ALLOC_FAIL; }
  t->nodes[i].align |= FG_TLSF_IN_MAP;
  return off;
}

static int tlsf_free(fg_allocator *a, uint64_t off) {
  uint64_t v;
  if (!fg_omap_del(&a->u.tlsf.live, off, &v)) return -1;
  give_back(a, (uint32_t)v);
  return 0;
}

static uint64_t tlsf_size(const fg_allocator *a, uint64_t off) {
  uint64_t v;
  return fg_omap_get(&a->u.tlsf.live, off, &v) ? a->u.tlsf.nodes[v].size : 0;
}

static void tlsf_walk(const fg_allocator *a, fg_alloc_walk_fn fn, void *ctx) {
  const fg_tlsf *t = &a->u.tlsf;
  for (uint32_t i = t->first; i != FG_NIL; i = t->nodes[i].next_phys) {
    const fg_tlsf_node *n = &t->nodes[i];
    if (!n->is_free) fn(ctx, n->off, n->size, 1ull << (n->align & 0x3f), t->user ? t->user[i] : 0);
  }
}

static uint64_t tlsf_largest(const fg_allocator *a) {
  const fg_tlsf *t = &a->u.tlsf;
  if (!t->fl_map) return 0;
  int fl = 63 - __builtin_clzll(t->fl_map);
  int sl = 31 - __builtin_clz(t->sl_map[fl]);
  uint64_t best = 0;
  for (uint32_t j = HEAD(t, fl, sl); j != FG_NIL; j = t->nodes[j].next_free)
    if (t->nodes[j].size > best) best = t->nodes[j].size;
  return best;
}

static int tlsf_validate(const fg_allocator *a, char *err, size_t errlen) {
  const fg_tlsf *t = &a->u.tlsf;
  uint64_t off = 0, used = 0, count = 0, nfree = 0, mapped = 0;
  uint32_t prev = FG_NIL;
  for (uint32_t i = t->first; i != FG_NIL; i = t->nodes[i].next_phys) {
    const fg_tlsf_node *n = &t->nodes[i];
    if (n->off != off || n->size == 0 || n->prev_phys != prev || n->is_free > 1) {
      fg_errf(err, errlen, "tlsf: physical chain broken at node %u (offset %llu, expected %llu)",
              i, (unsigned long long)n->off, (unsigned long long)off);
      return -1;
    }
    if (n->is_free) {
      if (prev != FG_NIL && t->nodes[prev].is_free) {
        fg_errf(err, errlen, "tlsf: adjacent free blocks at %llu not coalesced", (unsigned long long)n->off);
        return -1;
      }
      nfree++;
    } else {
      uint64_t v;
      if ((n->align & FG_TLSF_IN_MAP) && (!fg_omap_get(&t->live, n->off, &v) || v != i)) {
        fg_errf(err, errlen, "tlsf: used block at %llu missing from the offset map", (unsigned long long)n->off);
        return -1;
      }
      if (n->align & FG_TLSF_IN_MAP) mapped++;
      if (n->off & ((1ull << (n->align & 0x3f)) - 1)) {
        fg_errf(err, errlen, "tlsf: used block at %llu not aligned to %llu", (unsigned long long)n->off,
                1ull << (n->align & 0x3f));
        return -1;
      }
      used += n->size;
      count++;
    }
    off += n->size;
    prev = i;
  }
  if (off != a->capacity) { fg_errf(err, errlen, "tlsf: blocks cover %llu of %llu", (unsigned long long)off, (unsigned long long)a->capacity); return -1; }
  if (used != a->used || count != a->count || t->live.count != mapped) {
    fg_errf(err, errlen, "tlsf: counters disagree (used %llu vs %llu, count %llu vs %llu)",
            (unsigned long long)used, (unsigned long long)a->used, (unsigned long long)count, (unsigned long long)a->count);
    return -1;
  }
  uint64_t listed = 0;
  for (int fl = 0; fl < FL; fl++)
    for (int sl = 0; sl < SL; sl++) {
      uint32_t h = HEAD(t, fl, sl);
      int bit = (t->sl_map[fl] >> sl) & 1;
      if ((h != FG_NIL) != bit) { fg_errf(err, errlen, "tlsf: bitmap disagrees with list (%d,%d)", fl, sl); return -1; }
      uint32_t p = FG_NIL;
      for (uint32_t j = h; j != FG_NIL; j = t->nodes[j].next_free) {
        if (mapping(t->nodes[j].size) != (uint32_t)(fl * SL + sl) || t->nodes[j].cls != fl * SL + sl || t->nodes[j].is_free != 1 || (p != FG_NIL && t->nodes[j].prev_free != p)) {
          fg_errf(err, errlen, "tlsf: block at %llu in the wrong free list", (unsigned long long)t->nodes[j].off);
          return -1;
        }
        p = j;
        if (++listed > nfree) { fg_errf(err, errlen, "tlsf: free lists longer than free blocks"); return -1; }
      }
    }
  for (int fl = 0; fl < FL; fl++)
    if (((t->fl_map >> fl) & 1) != (t->sl_map[fl] != 0)) { fg_errf(err, errlen, "tlsf: first-level bitmap wrong at %d", fl); return -1; }
  if (listed != nfree) { fg_errf(err, errlen, "tlsf: %llu free blocks but %llu listed", (unsigned long long)nfree, (unsigned long long)listed); return -1; }
  return 0;
}

/* FREELIST: the same records with the best-fit policy. */
static int freelist_init(fg_allocator *a, const fg_alloc_desc *desc, char *err, size_t errlen) {
  int rc = tlsf_init(a, desc, err, errlen);
  a->u.tlsf.best = 1;
  a->u.tlsf.fast_cap = 0; /* no good-fit fast path */
  return rc;
}

#define TLSF_OPS                                                                                         \
  .fini = tlsf_fini, .alloc = tlsf_alloc, .free = tlsf_free, .size = tlsf_size, .reset = tlsf_reset,     \
  .largest = tlsf_largest, .validate = tlsf_validate, .walk = tlsf_walk,                         \
  .size_h = tlsf_size_h, .at = tlsf_at, .user = tlsf_user, .set_user = tlsf_set_user
const fg_alloc_ops fg__tlsf_ops = { .init = tlsf_init, TLSF_OPS };
const fg_alloc_ops fg__freelist_ops = { .init = freelist_init, TLSF_OPS };
