/* Private to the packers: a normalised instance shared by every strategy.
 * Time is compressed to the distinct endpoint values (K points); intervals
 * keep their meaning (point k stands for [v_k, v_k+1)). Sizes and alignments
 * are the effective ones after the granularity treatment. */
#ifndef FG_PACK_INTERNAL_H
#define FG_PACK_INTERNAL_H
#include "fg_pack.h"
#include "fg_util.h"

/* The lifetime-only data fg_pack_cache keeps (pack_cache.c). */
struct fg_pack_cache {
  size_t n;
  uint64_t period;
  uint64_t *life;         /* start, stop of each item at the last call */
  uint64_t *bits;         /* conflict matrix (pk_inst.cbits), words per row; NULL until built */
  size_t words;
  uint32_t *clique[2];    /* pk_clique_greedy's two cliques (n slots each): the one grown */
  size_t nclique[2];      /* from the longest arcs, and the one grown from the items */
  int have_clique[2];     /* live at point peak */
  uint32_t peak;
  uint32_t *size_ord;     /* the items by size at the last call: the next sort starts there */
  uint32_t *hint_ord;     /* best's last hint order of its nhint non-whole items, likewise */
  size_t nhint;
};
/* Keeps c's contents when n, period and every start/stop match its last
 * call, else empties it and records these; 0, or -1 on OOM. */
int pk_cache_sync(fg_pack_cache *c, const fg_pack_item *items, size_t n, uint64_t period);

typedef struct pk_inst {
  size_t n;
  int cyclic;            /* linear instances are treated as cyclic with no wrap:
                            point K-1 (the last stop) is never covered */
  uint32_t K;            /* number of time points */
  uint32_t *s, *e;       /* compressed start/stop; s == e: whole cycle */
  uint32_t *len;         /* points covered (K for whole-cycle items) */
  uint64_t *size, *align;/* effective size/alignment (granularity-rounded) */
  const fg_pack_item *items;
  uint64_t gran;         /* > 1 and both kinds present: kind-1 items rounded */
  const uint64_t *cbits; /* optional conflict matrix (best builds it): row i is
                            cwords words, bit j set when i and j meet */
  size_t cwords;
  const uint32_t *srank; /* optional: dense rank of each item by size, largest 0
                            (best computes it once for all baselines) */
  uint32_t nsrank;       /* number of ranks */
  fg_pack_cache *cache;  /* optional (fg_pack_desc.cache), synced to these lifetimes */
  uint64_t cut;          /* optional, for the baselines: stop (returning 1, offsets
                            incomplete) once the real makespan of what they have
                            placed reaches cut; it only grows, so such a run
                            cannot beat the caller's incumbent. 0 = run in full */
} pk_inst;

/* Is point t inside item i's interval? Distance from the start, modulo K,
 * below the length (branch-free; also right on a line, where nothing wraps
 * and the last point is never covered). */
static inline int pk_contains(const pk_inst *in, size_t i, uint32_t t) {
  uint32_t d = t - in->s[i];
  d += in->K & (0u - (uint32_t)(t < in->s[i]));
  return d < in->len[i];
}
/* Two non-empty arcs meet iff one holds the other's start. */
static inline int pk_conflict_arcs(const pk_inst *in, size_t i, size_t j) {
  return pk_contains(in, i, in->s[j]) | pk_contains(in, j, in->s[i]);
}
static inline int pk_conflict(const pk_inst *in, size_t i, size_t j) {
  if (in->cbits) return (int)((in->cbits[i * in->cwords + (j >> 6)] >> (j & 63)) & 1);
  return pk_conflict_arcs(in, i, j);
}
static inline uint32_t pk_len(const pk_inst *in, size_t i) { return in->len[i]; }
/* fg_align_up without the division when a is a power of two (item
 * alignments always are; a granularity page may not be) */
/* Index of the first of the K sorted time points v[] that is >= x: maps a
 * time to its compressed point. */
static inline uint32_t pk_find_pt(const uint64_t *v, uint32_t K, uint64_t x) {
  uint32_t lo = 0, hi = K;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    if (v[mid] < x) lo = mid + 1; else hi = mid;
  }
  return lo;
}
static inline uint64_t pk_align_up(uint64_t x, uint64_t a) {
  return (a & (a - 1)) ? fg_align_up(x, a) : (x + a - 1) & ~(a - 1);
}

/* Has item i, just placed, brought the real makespan to in->cut? */
static inline int pk_cut(const pk_inst *in, const uint64_t *off, size_t i) {
  return in->cut && off[i] + in->items[i].size >= in->cut;
}

/* Strategies: write offsets (effective sizes) for every item; return 0, 1
 * when stopped at in->cut, or -1 on OOM. */
int pk_none(const pk_inst *in, uint64_t *off);
int pk_pool(const pk_inst *in, uint64_t *off);
int pk_bysize(const pk_inst *in, uint64_t *off);
int pk_buckets(const pk_inst *in, uint64_t *off);
int pk_thesis(const pk_inst *in, uint64_t *off);
int pk_scanline(const pk_inst *in, uint64_t *off);
int pk_best(const pk_inst *in, const fg_pack_desc *desc, uint64_t load, uint64_t *off, int *optimal);

/* Sort by (k, k2, i) ascending; writes the index order into ord when given. */
typedef struct pk_kv { uint64_t k, k2; size_t i; } pk_kv;
void pk_sort(pk_kv *kv, size_t n, size_t *ord);
void pk_sort_kv(pk_kv *kv, size_t n);
/* The same order, fast when kv is nearly sorted already (a re-plan's orders
 * barely move): insertion sort while that stays cheap, else pk_sort_kv. */
void pk_sort_kv_warm(pk_kv *kv, size_t n);
/* An occupied byte range [lo, hi): placement sorts a few of them per query. */
typedef struct pk_iv { uint64_t lo, hi; } pk_iv;
void pk_sort_iv(pk_iv *iv, size_t n); /* by lo; order among equal lo unspecified */

/* Stable counting sort: dst = the n ids of src ordered by key[id] < nk; 0 or -1 on OOM. */
int pk_csort(const uint32_t *key, uint32_t nk, const size_t *src, size_t n, size_t *dst);
/* Dense ranks by size, largest first (equal sizes share one); returns the
 * number of ranks, 0 on OOM. */
uint32_t pk_size_rank(const pk_inst *in, uint32_t *rank);
/* ord = the items by size descending, then key2 ascending (when given, each
 * < nk2), then index: the baselines' size orders, made of counting sorts
 * over in->srank (or ranks computed here). 0 or -1 on OOM. */
int pk_size_order(const pk_inst *in, const uint32_t *key2, uint32_t nk2, size_t *ord);

/* Placed items sorted by offset. pk_place scans them upward, skipping those
 * whose lifetimes do not meet item i's: first fit stops at the first gap that
 * fits (no per-item sort), best fit takes the smallest such gap, else the top.
 * With limit == UINT64_MAX the top is the fallback; otherwise the region must
 * end by limit, and UINT64_MAX means nothing fits. */
typedef struct pk_plist {
  uint32_t *ix; size_t n;
  struct pk_tix *tix;
  int noix; /* with tix: inserts skip ix (kept for the items placed by a full
               scan); set only while no such item is left to place; cleared by
               pk_pl_clear */
  uint64_t *placed; /* with conflict bits: the placed items as bits, so pk_place
                       can take i's placed neighbours from its row */
  size_t words;
  uint32_t *pos;    /* ... and each listed item's index in ix: pk_place marks
                       the neighbours' positions in a bitmap and walks them in
                       offset order, no sort (kept by insert/remove) */
  uint64_t *sel;    /* scratch for that: words bits */
} pk_plist;
/* ix for n items (and, when in has conflict bits, the placed bits); 0 or -1 on OOM. */
int pk_pl_init(pk_plist *pl, const pk_inst *in);
void pk_pl_free(pk_plist *pl);
void pk_pl_insert(pk_plist *pl, const uint64_t *off, uint32_t i);
void pk_pl_remove(pk_plist *pl, uint32_t i);
void pk_pl_clear(pk_plist *pl);
/* Removes the k items ids (flagged in gone) in one pass. */
void pk_pl_remove_set(pk_plist *pl, const char *gone, const size_t *ids, size_t k);

/* Optional time index of a pk_plist (pl->tix), so placement costs the
 * placed items near item i in time instead of every placed item. Time is
 * cut into blocks; each block lists, sorted by offset, the placed items that
 * start in it and those that cover its first point having started elsewhere.
 * An item j meets i iff j starts inside i's arc (a start list of a block i
 * touches) or covers i's start (then it starts in i's start block, or covers
 * that block's first point). Items touching many blocks are placed by the
 * scan of the whole list. pk_place gives the same offsets either way. */
typedef struct pk_tix {
  const pk_inst *in;
  uint32_t B, nblk, wide;        /* block b = points [b*B, (b+1)*B); wide: max blocks for the index */
  uint32_t *sat, *scnt, *sl;     /* start lists: CSR (capacity by all items), counts, entries */
  uint32_t *cat, *ccnt, *cl;     /* cover lists */
  uint32_t *nbk;                 /* blocks each item touches */
  pk_iv *sc;                     /* scratch: n entries */
} pk_tix;
/* Returns 1 when built, 0 when not worth it (small n), -1 on OOM. */
int pk_tix_init(pk_tix *x, const pk_inst *in);
void pk_tix_free(pk_tix *x);
uint64_t pk_place(const pk_inst *in, const pk_plist *pl, const uint64_t *off, size_t i, uint64_t lo0,
                  uint64_t limit, int bestfit);

/* Drops ord[0..m) in that order: each item at the lowest aligned offset
 * (lo0 at least) above every earlier item of ord that it meets; no gap
 * below is searched. Writes their offsets; returns the makespan of the
 * dropped items (at least lo0), UINT64_MAX on OOM. */
uint64_t pk_drop(const pk_inst *in, const size_t *ord, size_t m, uint64_t lo0, uint64_t *off);
uint64_t pk_makespan(const pk_inst *in, const uint64_t *off);
/* Load profile over the K points (effective sizes, or the items' own sizes
 * when real); returns the max. prof may be NULL. */
uint64_t pk_profile(const pk_inst *in, uint64_t *prof, int real);
/* The normalised instance of items under desc (period, granularity); 0 or -1 on OOM. */
int pk_build(pk_inst *in, const fg_pack_item *items, size_t n, const fg_pack_desc *desc);
/* The same instance with time reversed (t -> K-1-t style mirror); free with pk_free. */
int pk_reverse(const pk_inst *in, pk_inst *out);
void pk_free(pk_inst *in);
void pk_set_len(pk_inst *in); /* fills len from s, e, K */

/* Cliques of meeting items on a cycle: lower bounds above LOAD (pack_bound.c).
 * Both return the weight in effective sizes and put the real bytes in *real. */
uint64_t pk_clique_exact(const pk_inst *in, uint64_t cap, uint64_t *real);  /* branch and bound, node cap; n <= ~64 */
uint64_t pk_clique_greedy(const pk_inst *in, uint64_t *real);              /* any n: near-linear */

#endif
