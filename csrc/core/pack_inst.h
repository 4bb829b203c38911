/* Private to the packers: the normalised instance every strategy works on
 * (pack_inst.c). Time is compressed to the distinct endpoint values (K
 * points); intervals keep their meaning (point k stands for [v_k, v_k+1)).
 * Sizes and alignments are the effective ones after the granularity
 * treatment. Below it: pack_sort, pack_cache, pack_check. */
#ifndef FG_PACK_INST_H
#define FG_PACK_INST_H
#include "fg_pack.h"
#include "fg_util.h"
#include "pack_cache.h"

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
  const uint64_t *phase; /* optional (pack_tile's blocks for the decision search):
                            item i's offsets are phase[i] (< align) plus a multiple
                            of its alignment; NULL: multiples */
  uint64_t cut;          /* optional, for the baselines: stop (returning 1, offsets
                            incomplete) once the real makespan of what they have
                            placed reaches cut; it only grows, so such a run
                            cannot beat the caller's incumbent. 0 = run in full */
  uint64_t stop;         /* optional, for the baselines: give up the same way once
                            pk_now() passes it (best on large instances, where
                            they are quadratic). 0 = never */
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
/* fg_align_up without the division when a is a power of two (item
 * alignments always are; a granularity page may not be) */
static inline uint64_t pk_align_up(uint64_t x, uint64_t a) {
  return (a & (a - 1)) ? fg_align_up(x, a) : (x + a - 1) & ~(a - 1);
}

/* The lowest offset >= x that item i may take (its alignment and phase) */
static inline uint64_t pk_align_item(const pk_inst *in, uint64_t x, size_t i) {
  uint64_t a = in->align[i];
  if (!in->phase) return pk_align_up(x, a);
  return x + ((in->phase[i] - x) & (a - 1));
}

/* What a strategy proved besides its offsets (fg_pack_result's fields of
 * the same names; bound in real bytes). pack.c starts it at LOAD, partial
 * on cycles, not optimal. */
typedef struct pk_outcome {
  int optimal;
  uint64_t bound;
  int bound_partial;
  int replayed;  /* best kept the hint's replay (fg_pack_result.replayed) */
} pk_outcome;

/* The packers' clock (pk_now), one per fg_pack call and thread: wall-clock
 * ns under an explicit time budget; else virtual ns, the work charged so far
 * (pk_charge: placements, neighbours visited, search nodes) times
 * PK_WORK_NS, so that the budget counts work and the same input gives the
 * same packing on any machine under any load. Outside fg_pack (tests that
 * call a packer directly) there is none: pk_now reads the wall clock. */
typedef struct pk_clock { uint64_t work; int wall; } pk_clock;
extern _Thread_local pk_clock *pk_clk;
static inline void pk_charge(uint64_t units) { if (pk_clk) pk_clk->work += units; }
uint64_t pk_now(void);

/* Has item i, just placed, brought the real makespan to in->cut? */
static inline int pk_cut(const pk_inst *in, const uint64_t *off, size_t i) {
  return (in->cut && off[i] + in->items[i].size >= in->cut) || (in->stop && pk_now() > in->stop);
}

/* max(offset + real size): rounding for granularity is not memory */
uint64_t pk_makespan(const pk_inst *in, const uint64_t *off);
/* Load profile over the K points (effective sizes, or the items' own sizes
 * when real); returns the max. prof may be NULL. */
uint64_t pk_profile(const pk_inst *in, uint64_t *prof, int real);
/* The normalised instance of items under desc (period, granularity); 0 or -1 on OOM. */
int pk_build(pk_inst *in, const fg_pack_item *items, size_t n, const fg_pack_desc *desc);
/* The same instance with time reversed (t -> K-1-t style mirror); free with pk_free. */
int pk_reverse(const pk_inst *in, pk_inst *out);
void pk_free(pk_inst *in);
/* A boundary between two points of a cycle that no arc crosses (whole-cycle
 * items aside), as the point after it, or -1. */
int64_t pk_free_cut(const pk_inst *in);
/* The cycle in cut at such a boundary c: a line of K + 1 points (the last
 * never covered) with the same items and conflicts; whole-cycle items cover
 * it all. items (n entries, the caller's) get the line's points as times.
 * Free with pk_free; 0 or -1 on OOM. */
int pk_line_at(const pk_inst *in, uint32_t c, fg_pack_item *items, pk_inst *out);
void pk_set_len(pk_inst *in); /* fills len from s, e, K */
/* The conflict matrix: n rows of *words words, bit j of row i set when i
 * and j meet (never i itself), as pk_conflict_arcs says; NULL on OOM, the
 * caller frees. Word operations only: O((n + K) n / 64). */
uint64_t *pk_conflict_bits(const pk_inst *in, size_t *words);

/* Dense ranks by size, largest first (equal sizes share one); returns the
 * number of ranks, 0 on OOM. */
uint32_t pk_size_rank(const pk_inst *in, uint32_t *rank);
/* ord = the items by size descending, then key2 ascending (when given, each
 * < nk2), then index: the baselines' size orders, made of counting sorts
 * over in->srank (or ranks computed here). 0 or -1 on OOM. */
int pk_size_order(const pk_inst *in, const uint32_t *key2, uint32_t nk2, size_t *ord);

#endif
