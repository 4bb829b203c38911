/* best: our CDSA solver.
 *
 * Placement: items already placed are kept sorted by offset; first fit walks
 * them upward, skipping those whose lifetimes do not meet (a conflict bit
 * matrix on small instances or once there is time to search; on large ones a
 * time index visits only the items near in time), and stops at the first gap
 * that fits.
 *
 * 0. With desc->offset_hint (a re-plan), the items dropped in the hint's
 *    offset order, each right above the highest earlier item it meets (no
 *    gap search: it costs the time points covered, while the hint's gaps
 *    are mostly filled already); returned at once when it reaches a lower
 *    bound, else a start.
 *    Lower bounds: LOAD, and on cycles the heaviest set of pairwise-meeting
 *    items (arcs can meet pairwise without a common point, so it can exceed
 *    LOAD: found exactly in polynomial time; pack_bound.c).
 *    Reaching a bound proves optimality and ends the call. With
 *    hint_makespan/hint_bound (the searched packing the hint descends
 *    from) a replay within REPLAN_SLACK of that packing's makespan / bound
 *    ends it too (result.replayed): the exact clique is sought only after.
 * 1. Without a hint, a quick first fit: arcs longer than half the cycle
 *    first (a frame graph's history copies, which make its clique bound),
 *    then by size. Most frame graphs end here, baselines unneeded. Above
 *    EXACT_MAX_N items it runs only where the dives do not: the first dive
 *    stands in for it.
 * 1b. Canonical dives (best_dives): the decision search's first path
 *    without a capacity, lowest item first, ties by a key: on cycles size
 *    x length to a random power in [1, 13) x the mean load over the
 *    lifetime to one in [0, 70) x the highest load over it to one in
 *    [0, 100) x the bytes of the items it meets to one in [0, 12) (the
 *    first dive at the middle of each), on
 *    lines size x length, then length to a power in [1, 6); times random
 *    factors per item after the first dive), over and over in half of
 *    the time left; their best is the incumbent the baselines must beat
 *    (and they stop at it). Above EXACT_MAX_N items they go on after the
 *    baselines with most of what is left (2c).
 *    Enlisted at 0.5 ms, n = 100 (dev): with history 1.0185 -> 1.0069 x
 *    bound, without 1.0054 -> 1.0009.
 * 1c. The exact clique bound (best_bound): after the dives, which stop at
 *    the cheap bounds (LOAD, a greedy clique).
 * 2. Starts: every baseline unless one reaches a bound (so best is never
 *    worse than any of them; each stops as soon as what it placed reaches
 *    the incumbent's makespan), then, within the budget, thesis and
 *    scanline on the time-reversed instance and first fit over classic
 *    orders (size, size x length, length, start, reversed end; above 64
 *    items size x length alone). A cycle that no arc crosses somewhere is
 *    cut into a line there for the steps after the baselines. Whole-cycle
 *    items are stacked at the bottom; a packing becomes an order by sorting
 *    on offset, and first fit in that order never places an item higher than
 *    it was, so starts only improve.
 * 2b. A flat load (LOAD at every point, a perfect tiling's: never a frame
 *    graph's), after the baselines (they run regardless of the budget, so
 *    they come first and the budget stays kept): pack_tile rebuilds the
 *    tiling's blocks and searches those with 3/4 of what is left; LOAD ends
 *    the call, else its packing, when better, is the incumbent and the
 *    start of the steps below.
 * 2c. More dives (above EXACT_MAX_N items): DIVE_REST_SHARE of what the
 *    bound and the baselines left. Where a dive's packing is the best,
 *    the starts take it as it is (its first-fit replay gains next to
 *    nothing) and the time goes to the dives.
 * 3. Ruin and recreate around the peak with late acceptance: an item at the
 *    makespan and the items meeting it within a band below the top are
 *    removed and put back by first/best fit in a shuffled size order.
 * 4. Exact branch and bound (up to 64 items) below the incumbent: orders
 *    whose first-fit offsets never decrease, min-offset children first,
 *    section-load bound, dominance for identical items and for non-meeting
 *    items at the same offset. Finishing it proves optimality.
 * 5. The decision search (pack_search.c, exact on lines and cycles) by
 *    bisection below the incumbent, from the lower bound up: 7/8 of what
 *    the starts leave on lines; on other cycles what 3 leaves (1/4 up to
 *    64 items, else beyond 1 ms and a quarter); up to 64 items after 4 has
 *    had half.
 * Stops as soon as a bound is reached, or when the time/node budget is spent.
 */
#include "pack_best.h"
#include "pack_bound.h"
#include "pack_greedy.h"
#include "pack_place.h"
#include "pack_search.h"
#include "pack_sort.h"
#include "pack_tile.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The budget covers the whole call; until a bound is reached every baseline
 * runs regardless of it (best must never lose to them; each stops early
 * only once it can no longer beat the incumbent), and so does one first-fit
 * replay of the best one's order (with a hint, its drop stands in for it);
 * the other starts and the search use what is left. */
#define DEFAULT_BUDGET_MS 0.5
/* with a previous packing as a hint (a re-plan), latency matters more: the
 * hint carries the earlier search's work */
#define DEFAULT_HINT_BUDGET_MS 0.05
#define DEFAULT_NODES 2000000
/* a re-plan's replay is kept when its makespan / cheap bound is within this
 * of the searched packing's it descends from (best_warm) */
#define REPLAN_SLACK 0.005
#define LAHC_LEN 64
/* canonical dives (best_dives): the cost of one per pair of items, a
 * little above dev's (dive_once ~2-4 ns per conflict test and comparison;
 * dive_bits on conflict bits ~2.6 at n = 200) */
#define DIVE_PAIR_NS 4
#define DIVE_BITS_PAIR_NS 3
#define DIVE_PATIENCE 32
/* a dive's key is size x length^beta x (the mean load over its lifetime /
 * the peak load)^gamma x a factor in [1, 2) per item, beta drawn in
 * [1, 1 + DIVE_BETA_SPAN) and gamma in [0, DIVE_GAMMA_SPAN) per dive on
 * a cycle (lines keep [1, 1 + DIVE_BETA_SPAN_LINE), no load: best_dives): long
 * lifetimes first matter most with history, and the items living where
 * memory is scarcest decide the makespan. Dumped Enlisted instances (300
 * per n), 7 dives, four seeds each, beta in [1, 6) without gamma -> both:
 * with history n = 50 1.0021-1.0030 -> 1.0017-1.0020 x bound, n = 100
 * 1.0056-1.0067 -> 1.0045-1.0047, n = 150 1.0094-1.0100 -> 1.0067-1.0069,
 * n = 200 1.0125-1.0130 -> 1.0074-1.0085; without history n = 100
 * 1.0009-1.0012 -> 1.0002-1.0003, n = 200 1.0018-1.0020 -> 1.0004-1.0006.
 * They work together: gamma with beta in [1, 6) gains little or loses
 * (n = 150 1.0101-1.0103), beta in [1, 13) alone half as much at n = 200
 * and nothing below; gamma spans 60-80 are alike, 160 worse. The first
 * dive takes the middle of both spans (was beta = 1, gamma = 0): alone
 * n = 200 with history 1.0321 -> 1.0152, n = 100 1.0200 -> 1.0121,
 * without history n = 200 1.0055 -> 1.0021; 7 dives n = 200 with
 * history 1.0075-1.0085 -> 1.0069-1.0077, n = 50-100 alike. */
#define DIVE_BETA_SPAN 12.0
#define DIVE_GAMMA_SPAN 70.0
/* ... and x (the highest load over the lifetime / the peak)^delta, delta
 * drawn in [0, DIVE_DELTA_SPAN) (the first dive: the middle): same
 * instances and counts, with history n = 200 1.0074-1.0077 -> 1.0066-1.0068,
 * n = 150 1.0066-1.0068 -> 1.0059-1.0060, n = 100 1.0042-1.0050 ->
 * 1.0037-1.0044, n = 50 alike; without history n = 200 1.0004-1.0005 ->
 * 1.0003-1.0004 (the bytes of the items met gain as much again: below).
 * Whole 0.5 ms calls, H100 machine,
 * 4 x 2000 per n side by side: with history n = 175 1.0063-1.0080 ->
 * 1.0059-1.0065, n = 150 1.0049-1.0058 -> 1.0043-1.0053. */
#define DIVE_DELTA_SPAN 100.0
/* ... and x (the bytes of the items it meets / all bytes)^omega, omega in
 * [0, DIVE_OMEGA_SPAN), where there are conflict bits (a pass over them,
 * about a quarter of a dive at n = 200): same instances and counts, with
 * history n = 200 1.0066-1.0068 -> 1.0053-1.0060, n = 150 1.0059-1.0060
 * -> 1.0048-1.0054, n = 100 1.0037-1.0044 -> 1.0036-1.0039, n = 50
 * 1.0019-1.0030 -> 1.0017-1.0021; without history n = 200 alike (spans
 * 6-35 about alike). Whole 0.5 ms calls, H100 machine, 4 x 2000 per n side
 * by side: with history n = 200 1.0089-1.0106 -> 1.0067-1.0091, n = 175
 * 1.0063-1.0079 -> 1.0052-1.0069, n = 150 1.0047-1.0060 -> 1.0039-1.0049. */
#define DIVE_OMEGA_SPAN 12.0
#define DIVE_BETA_SPAN_LINE 5.0
/* dives_rest_deadline: the dives' share of what the baselines leave.
 * With the dive's replay skipped (best_starts), H100 machine, 2 x 2000
 * Enlisted instances per n side by side, with history: n = 200 at 0.75 ms
 * 1.0096-1.0099 -> 1.0093-1.0094 x bound, at 0.9 ms 1.0088-1.0093 ->
 * 1.0084-1.0086, n = 175 at 0.75 ms 1.0084-1.0089 -> 1.0076-1.0081; at
 * 0.5 ms the baselines leave nothing (1.0116-1.0122 -> 1.0120-1.0122);
 * without history n = 200 1.0014 -> 1.0013 at 0.75 ms. Dives first with
 * one dive only (the baselines then stopping at its makespan) was worse:
 * n = 200 at 0.75 ms 1.0107-1.0143. */
#define DIVE_REST_SHARE 0.9
/* dive_bits: from the second dive on, items whose lowest offsets share a
 * bucket (a power of two drawn below DIVE_SLACK x the bound) go by key, each
 * still at its own offset: the heavier item may go a little above a lighter
 * one's gap, which the lighter one then fills. 300 dumped Enlisted
 * instances per n, same dive counts, without -> with: with history
 * n = 200 (6 dives) 1.01397 -> 1.01315, n = 150 (8) 1.01012 -> 1.00964;
 * without n = 200 (6) 1.00231 -> 1.00212. 0.002-0.008 about alike; 0.02
 * worse than none. In whole 0.5 ms calls (H100 machine, 2 x 2000 per n)
 * within the runs' spread but n = 175 with history (1.0129 -> 1.0120-1.0122,
 * p90 1.0327 -> 1.0297-1.0299); test_best_unchanged's longer runs gain most
 * (1.004955 -> 1.002998). */
#define DIVE_SLACK 0.005
/* fruitless ruin-and-recreate iterations before the decision search takes over */
#define RUIN_LINE_STALL 500
/* below this much time a line's decision search gets all of it: one attempt
 * at the bound is what pays there (no history, 0.25 ms on dev, a stand-in for
 * the H100 machine's 0.5 ms: n = 50 1.0038 -> 1.0009, n = 75 1.0034 -> 1.0019) */
#define LINE_RUIN_MIN_NS 2000000ull
/* on cycles above EXACT_MAX_N items ruin and recreate keeps a quarter of the
 * budget before the decision search where there is this much per pair of
 * items (a few of the search's set-ups and its nodes), else all of it */
#define RUIN_CYCLE_PAIR_NS 60
#define EXACT_MAX_N 64
#define EXACT_FIRST_N 32
#define SMALL_BITS_N 512
/* conflict bits where no time index pays, up to this many items (n^2/8 bytes) */
#define BITS_MAX_N 4096
/* the exact clique bound runs where its cost estimate stays below this */
#define CLIQUE_MAX_WORK 200000000ull

typedef struct bs {
  const pk_inst *in;
  size_t n;        /* items in the order (whole-cycle items are stacked below) */
  uint64_t lo0;    /* top of the whole-cycle stack */
  size_t *ord;     /* current order */
  uint32_t *pos;   /* position of each item in ord */
  uint64_t *off;   /* offsets of the current order's first-fit packing */
  uint64_t *pre;   /* pre[k] = max end among ord[0..k) */
  pk_plist pl;     /* scratch: placed items by offset (time-indexed when large) */
  pk_kv *kv;       /* scratch for sorting */
  uint64_t rng;
} bs;

static uint64_t b_place(bs *b, size_t i, int bestfit) {
  return pk_place(b->in, &b->pl, b->off, i, b->lo0, UINT64_MAX, bestfit);
}
static void b_add(bs *b, size_t i) { pk_pl_insert(&b->pl, b->off, (uint32_t)i); }

/* Place ord[p..n) by first fit against the items before each; returns the makespan. */
static uint64_t ff_from(bs *b, size_t p) {
  const pk_inst *in = b->in;
  uint64_t m = b->pre[p];
  /* the prefix, inserted by offset (ascending: no moves) */
  pk_pl_clear(&b->pl);
  for (size_t k = 0; k < p; k++) b->kv[k] = (pk_kv){b->off[b->ord[k]], 0, b->ord[k]};
  pk_sort_kv(b->kv, p);
  for (size_t k = 0; k < p; k++) pk_pl_insert(&b->pl, b->off, (uint32_t)b->kv[k].i);
  /* past the last item placed by a full scan of the list, only the time
   * index needs to be kept (the list's sorted inserts cost O(n) each) */
  size_t lastscan = 0;
  const pk_tix *x = b->pl.tix;
  for (size_t k = p; k < b->n && x; k++)
    if (x->nbk[b->ord[k]] > x->wide) lastscan = k + 1;
  for (size_t k = p; k < b->n; k++) {
    size_t i = b->ord[k];
    if (x && k >= lastscan) b->pl.noix = 1;
    uint64_t o = b_place(b, i, 0);
    b->off[i] = o;
    b_add(b, i);
    if (o + in->size[i] > m) m = o + in->size[i];
    b->pre[k + 1] = m;
  }
  return m;
}

static void set_order_kv(bs *b, pk_kv *kv, int warm) {
  if (warm) pk_sort_kv_warm(kv, b->n);
  else pk_sort_kv(kv, b->n);
  for (size_t k = 0; k < b->n; k++) b->ord[k] = kv[k].i;
  for (size_t k = 0; k < b->n; k++) b->pos[b->ord[k]] = (uint32_t)k;
}

/* of the caller's instance (best_lineize makes whole-cycle items intervals) */
static int is_whole(const pk_inst *in0, size_t i) { return in0->cyclic && in0->s[i] == in0->e[i]; }


/* The conflict matrix as bits (pk_conflict_bits): placement tests pairs
 * far more often than there are pairs. Skipped for very large n (memory
 * n^2/8). */
static uint64_t *build_bits(const pk_inst *in, size_t *words) {
  return in->n > 8192 ? NULL : pk_conflict_bits(in, words);
}
/* The conflict bits from the cache, built there if missing (the cache owns
 * them: *own stays NULL); without a cache built and owned by the caller. */
static const uint64_t *get_bits(const pk_inst *in, size_t *words, uint64_t **own) {
  fg_pack_cache *c = in->cache;
  if (!c) return *own = build_bits(in, words);
  if (!c->bits) c->bits = build_bits(in, &c->words);
  *words = c->words;
  return c->bits;
}

/* Exact search. Some optimal packing is a fixed point of "first fit in
 * offset order" (re-packing an optimal packing that way never raises an
 * item; repeat until nothing moves), so it suffices to enumerate orders whose
 * first-fit offsets never decrease. Children are tried by offset (min-offset
 * first); a child is cut when its makespan, or its offset plus the bytes
 * still unplaced at some time point (they all go at or above it, and above
 * the child where they meet it), reaches the incumbent; items identical in
 * lifetime, size and alignment are placed in index order; two items at the
 * same offset that do not meet are placed in index order (either order gives
 * the same packing). */
typedef struct bb {
  const pk_inst *in;
  size_t n;
  uint32_t K;
  uint64_t *off, *rem, inc; /* rem[t]: unplaced bytes at point t; inc: incumbent makespan */
  uint64_t *best;           /* offsets of the incumbent, when found here */
  char *placed;
  int32_t *twin;            /* previous identical item, or -1 */
  pk_plist pl;
  pk_kv *kvs;               /* children per depth: n per level */
  uint64_t nodes, max_nodes, deadline;
  int found, aborted;
} bb;

static void bb_rec(bb *s, size_t depth, uint64_t cur, uint64_t mk, int64_t last) {
  const pk_inst *in = s->in;
  if (s->aborted) return;
  if (++s->nodes > s->max_nodes || fg_now_ns() > s->deadline) { /* nodes cost O(n^2): check each */
    s->aborted = 1;
    return;
  }
  if (depth == s->n) {
    if (mk < s->inc) {
      s->inc = mk;
      memcpy(s->best, s->off, sizeof(uint64_t) * s->n);
      s->found = 1;
    }
    return;
  }
  pk_kv *kv = s->kvs + depth * s->n;
  size_t nk = 0;
  for (size_t i = 0; i < s->n; i++) {
    if (s->placed[i] || (s->twin[i] >= 0 && !s->placed[s->twin[i]])) continue;
    uint64_t o = pk_place(in, &s->pl, s->off, i, 0, UINT64_MAX, 0);
    if (o < cur) continue;
    if (last >= 0 && o == cur && i < (size_t)last && !pk_conflict(in, i, (size_t)last)) continue;
    uint64_t e = o + in->size[i];
    if ((e > mk ? e : mk) >= s->inc) continue;
    kv[nk++] = (pk_kv){o, UINT64_MAX - in->size[i], i};
  }
  pk_sort_kv(kv, nk);
  for (size_t c = 0; c < nk && !s->aborted; c++) {
    size_t i = kv[c].i;
    uint64_t o = kv[c].k, e = o + in->size[i];
    if ((e > mk ? e : mk) >= s->inc) continue; /* the incumbent may have improved */
    /* section-load bound */
    uint32_t len = pk_len(in, i), K = s->K;
    for (uint32_t k = 0, t = in->s[i]; k < len; k++, t = t + 1 == K ? 0 : t + 1) s->rem[t] -= in->size[i];
    uint64_t bound = e > mk ? e : mk;
    for (uint32_t t = 0; t < K && bound < s->inc; t++) {
      uint64_t v = (pk_contains(in, i, t) ? e : o) + s->rem[t];
      if (s->rem[t] && v > bound) bound = v;
    }
    if (bound < s->inc) {
      s->off[i] = o;
      s->placed[i] = 1;
      pk_pl_insert(&s->pl, s->off, (uint32_t)i);
      bb_rec(s, depth + 1, o, e > mk ? e : mk, (int64_t)i);
      pk_pl_remove(&s->pl, (uint32_t)i);
      s->placed[i] = 0;
    }
    for (uint32_t k = 0, t = in->s[i]; k < len; k++, t = t + 1 == K ? 0 : t + 1) s->rem[t] += in->size[i];
  }
}

/* Returns 1 when the search finished (the incumbent, possibly improved into
 * out, is optimal), 0 when the budget ran out, -1 on OOM. */
static int exact(const pk_inst *in, uint64_t inc, uint64_t *out, int *improved, uint64_t max_nodes,
                 uint64_t deadline) {
  size_t n = in->n;
  bb s = {0};
  s.in = in;
  s.n = n;
  s.K = in->K;
  s.inc = inc;
  s.max_nodes = max_nodes;
  s.deadline = deadline;
  s.off = calloc(n, sizeof(uint64_t));
  s.best = malloc(sizeof(uint64_t) * n);
  s.rem = calloc(in->K, sizeof(uint64_t));
  s.placed = calloc(n, 1);
  s.twin = malloc(sizeof(int32_t) * n);
  int pi = pk_pl_init(&s.pl, in);
  s.kvs = n <= 4096 ? malloc(sizeof(pk_kv) * n * n) : NULL;
  int rc = -1;
  if (!s.off || !s.best || !s.rem || !s.placed || !s.twin || pi || !s.kvs) goto out;
  pk_profile(in, s.rem, 0);
  for (size_t i = 0; i < n; i++) {
    s.twin[i] = -1;
    for (size_t j = i; j-- > 0;)
      if (in->s[j] == in->s[i] && in->e[j] == in->e[i] && in->size[j] == in->size[i] &&
          in->align[j] == in->align[i]) {
        s.twin[i] = (int32_t)j;
        break;
      }
  }
  bb_rec(&s, 0, 0, 0, -1);
  if (s.found) memcpy(out, s.best, sizeof(uint64_t) * n);
  *improved = s.found;
  rc = !s.aborted;
out:
  free(s.off); free(s.best); free(s.rem); free(s.placed); free(s.twin); free(s.kvs);
  pk_pl_free(&s.pl);
  return rc;
}


/* ------------------------------------------------------------------ best */

/* What the steps of one call share. in is the caller's instance with the
 * conflict bits, size ranks and cut best adds; in0 measures real makespans. */
typedef struct best_run {
  const pk_inst *in0;
  pk_inst in, rev;          /* rev: in mirrored in time (when have_rev) */
  const uint64_t *hint;     /* desc->offset_hint */
  uint64_t *out;            /* the best packing so far */
  size_t n, m;              /* items; non-whole items (listed in bord by setup) */
  pk_tix tix;
  int ti, have_rev, have_hint;
  const uint64_t *bits;     /* built once there is time to search */
  uint64_t *bits_own;
  uint32_t *srank;
  uint64_t deadline, nodes;
  uint64_t lb, eload;       /* lower bound and LOAD, effective sizes */
  uint64_t reallb;          /* lower bound in real bytes: what proves optimality */
  uint64_t cheaplb;         /* max(LOAD, greedy clique), real bytes: what re-plans compare by */
  int exact_done;           /* the exact clique bound ran (or was skipped as too dear) */
  uint64_t ref_mk, ref_lb;  /* desc->hint_makespan, hint_bound */
  int lb_partial;           /* a heavier clique may exist (fg_pack_result.bound_partial) */
  int line;                 /* is_line: set by best_ruin */
  int flat;                 /* flat_load: 0 not yet known, 1 no, 2 yes */
  int64_t fcut;             /* pk_free_cut of a cycle (best_clique), or -1 */
  pk_inst lin;              /* best_lineize's line (when have_lin) and its items */
  fg_pack_item *litems;
  int have_lin;
  uint64_t realBest, hintM, bestM;
  uint64_t dv_d, dv_last, dv_low; /* the dives so far (best_dives): count, the last gain, the lowest */
  int dv_on;                /* the first dive ran: the others follow the baselines */
  int dv_best;              /* out is a dive's packing (whole-cycle items on their stack) */
  double *dv_t;             /* the dives' item terms (dive_terms), 5 n, made by the first */
  bs b;
  size_t *bord;             /* best order so far */
  uint64_t *boff;           /* its packing */
  uint64_t *tmp;
  size_t *sord;             /* saved suffix for reverting */
  uint64_t *soff;
  pk_kv *kv;
} best_run;

/* What a step returns besides -1 (OOM): go on to the next step, stop with
 * out at a bound (optimal when it reaches reallb), or stop with *optimal
 * decided already. */
enum { BEST_ON = 0, BEST_PROVED = 1, BEST_FINISHED = 2, BEST_KEPT = 3 };

/* The clique bound: a greedy clique (cheap: its members are cached with
 * the lifetimes), then the exact one above it and above LOAD (pack_bound.c;
 * polynomial, but skipped where its cost estimate passes CLIQUE_MAX_WORK,
 * and stopped at the deadline: the cliques found stand, partial). */
static void best_clique_greedy(best_run *r) {
  const pk_inst *in = &r->in;
  /* a free cut (frame graphs without history): every clique of intervals
   * shares a point (Helly), LOAD is the bound, exactly */
  if ((r->fcut = pk_free_cut(in)) >= 0) {
    r->lb_partial = 0;
    r->exact_done = 1;
    r->cheaplb = r->reallb;
    return;
  }
  uint64_t cr, cl = pk_clique_greedy(in, &cr);
  if (cl > r->lb) r->lb = cl;
  if (cr > r->reallb) r->reallb = cr;
  r->cheaplb = r->reallb;
}
static void best_clique_exact(best_run *r, uint64_t deadline) {
  const pk_inst *in = &r->in;
  if (!in->cyclic || r->exact_done) return;
  r->exact_done = 1;
  if (pk_clique_work(in) > CLIQUE_MAX_WORK) return;
  int exact = 0;
  uint64_t cr, cl = pk_clique_exact(in, r->lb, deadline, &cr, &exact);
  if (cl > r->lb) r->lb = cl;
  if (cr > r->reallb) r->reallb = cr;
  /* exact for the effective weights; with granularity rounding the real
   * bytes of another clique could weigh more */
  r->lb_partial = !exact || in->gran != 0;
}

/* Bounds, buffers, conflict bits of small instances, size ranks, placement
 * list; whole-cycle items stacked at the bottom (largest alignment first)
 * and the others listed in bord. 0 or -1 on OOM (best_free cleans up). */
static int best_setup(best_run *r, const pk_inst *in0, const fg_pack_desc *desc, uint64_t load, uint64_t *out) {
  memset(r, 0, sizeof *r);
  size_t n = in0->n;
  r->in0 = in0;
  r->in = *in0;
  r->n = n;
  r->out = out;
  r->hint = desc->offset_hint;
  r->ref_mk = desc->hint_makespan;
  r->ref_lb = desc->hint_bound;
  pk_inst *in = &r->in;
  double bms = desc->time_budget_ms > 0 ? desc->time_budget_ms : r->hint ? DEFAULT_HINT_BUDGET_MS : DEFAULT_BUDGET_MS;
  uint64_t budget_ns = (uint64_t)(bms * 1e6);
  r->nodes = desc->node_budget ? desc->node_budget : DEFAULT_NODES;
  uint64_t t_start = fg_now_ns();
  r->deadline = t_start + budget_ns;
  /* effective sizes: what first fit can reach (the real ones without granularity) */
  r->lb = r->eload = in->gran ? pk_profile(in, NULL, 0) : load;
  r->reallb = load;
  r->lb_partial = in->cyclic;
  r->fcut = -1;

  bs *b = &r->b;
  b->in = in;
  b->rng = desc->seed ? desc->seed : 0x5EEDull;
  b->ord = malloc(sizeof(size_t) * n);
  b->pos = malloc(sizeof(uint32_t) * n);
  b->off = malloc(sizeof(uint64_t) * n);
  b->pre = calloc(n + 1, sizeof(uint64_t));
  b->kv = malloc(sizeof(pk_kv) * n);
  r->bord = malloc(sizeof(size_t) * n);
  r->boff = malloc(sizeof(uint64_t) * n);
  r->tmp = malloc(sizeof(uint64_t) * n);
  r->sord = malloc(sizeof(size_t) * n);
  r->soff = malloc(sizeof(uint64_t) * n);
  r->kv = malloc(sizeof(pk_kv) * n);
  if (!b->kv || !b->ord || !b->pos || !b->off || !b->pre || !r->bord || !r->boff || !r->tmp || !r->sord ||
      !r->soff || !r->kv)
    return -1;
  /* placement looks only at items near in time where a time index pays
   * (large instances of short lifetimes); else, up to BITS_MAX_N items,
   * conflict bits before the baselines: a bit test per pair is far cheaper
   * than two arc tests (random DAGs' long lifetimes: 2900 items packed in
   * 52 ms by arc tests) */
  r->ti = n > SMALL_BITS_N && !(in->cache && in->cache->bits) ? pk_tix_init(&r->tix, in) : 0;
  if (r->ti < 0) return -1;
  if (n <= SMALL_BITS_N || (in->cache && in->cache->bits) || (!r->ti && n <= BITS_MAX_N)) {
    r->bits = get_bits(in, &in->cwords, &r->bits_own);
    in->cbits = r->bits;
  }
  /* the baselines' size orders, once */
  r->srank = malloc(sizeof(uint32_t) * n);
  if (!r->srank || !(in->nsrank = pk_size_rank(in, r->srank))) return -1;
  in->srank = r->srank;
  if (pk_pl_init(&b->pl, in)) return -1;
  if (r->ti) b->pl.tix = &r->tix;
  /* the cheap bounds now; the exact clique after the dives (best_bound),
   * or on a re-plan after its drop (best_warm) */
  r->cheaplb = r->reallb;
  if (in->cyclic) best_clique_greedy(r);

  pk_kv *kv = r->kv;
  size_t m = 0, nw = 0;
  for (size_t i = 0; i < n; i++)
    if (is_whole(in, i)) kv[nw++] = (pk_kv){UINT64_MAX - in->align[i], UINT64_MAX - in->size[i], i};
  pk_sort_kv(kv, nw);
  uint64_t h = 0;
  for (size_t k = 0; k < nw; k++) {
    size_t i = kv[k].i;
    b->off[i] = pk_align_up(h, in->align[i]);
    h = b->off[i] + in->size[i];
    b->pos[i] = UINT32_MAX; /* never counted as an earlier neighbour */
  }
  b->lo0 = h;
  b->pre[0] = h;
  for (size_t i = 0; i < n; i++)
    if (!is_whole(in, i)) r->bord[m++] = i;
  b->n = r->m = m;
  r->realBest = r->hintM = r->bestM = UINT64_MAX;
  return 0;
}

static void best_free(best_run *r) {
  bs *b = &r->b;
  if (r->have_rev) pk_free(&r->rev);
  if (r->ti > 0) pk_tix_free(&r->tix);
  free(r->bits_own); free(r->srank);
  pk_pl_free(&b->pl);
  free(b->kv); free(b->ord); free(b->pos); free(b->off); free(b->pre);
  free(r->bord); free(r->boff); free(r->tmp); free(r->sord); free(r->soff); free(r->kv);
  if (r->have_lin) pk_free(&r->lin);
  free(r->litems);
  free(r->dv_t);
}

/* 2a. A cycle that no arc crosses at some boundary (a frame graph without
 * history) is a line cut there: the steps after the baselines (which must
 * see the cycle, to be matched) work on that line, where the decision search
 * is exact instead of fixing the items alive at its cut point. Same items,
 * same conflicts, so the offsets mean the same. Not with a time index
 * (built on the cycle's points). */
static int best_lineize(best_run *r) {
  if (r->fcut < 0 || r->ti) return BEST_ON;
  r->litems = malloc(sizeof(fg_pack_item) * (r->n ? r->n : 1));
  if (!r->litems || pk_line_at(&r->in, (uint32_t)r->fcut, r->litems, &r->lin)) return -1;
  r->have_lin = 1;
  r->in = r->lin; /* a view: the arrays stay lin's */
  return BEST_ON;
}

/* 0. warm start (a re-plan): first fit in the previous packing's offset
 * order; at a lower bound nothing can beat it, baselines included */
static int best_warm(best_run *r) {
  if (!r->hint) return BEST_ON;
  pk_inst *in = &r->in;
  bs *b = &r->b;
  size_t m = r->m, n = r->n;
  fg_pack_cache *c = in->cache;
  /* from the last re-plan's order when there is one: it barely moves */
  const uint32_t *warm = c && c->hint_ord && c->nhint == m ? c->hint_ord : NULL;
  for (size_t k = 0; k < m; k++) {
    size_t i = warm ? warm[k] : r->bord[k];
    r->kv[k] = (pk_kv){r->hint[i], UINT64_MAX - in->size[i], i};
  }
  set_order_kv(b, r->kv, warm != NULL);
  if (c && (c->hint_ord || (c->hint_ord = malloc(sizeof(uint32_t) * (m ? m : 1))))) {
    for (size_t k = 0; k < m; k++) c->hint_ord[k] = (uint32_t)b->ord[k];
    c->nhint = m;
  }
  r->hintM = pk_drop(in, b->ord, m, b->lo0, b->off);
  if (r->hintM == UINT64_MAX) return -1;
  memcpy(r->out, b->off, sizeof(uint64_t) * n);
  r->realBest = pk_makespan(r->in0, r->out);
  if (r->realBest <= r->reallb) return BEST_PROVED;
  /* The replay is about as close to the cheap bound as the searched packing
   * the hint descends from was to its bound: that search could not do
   * better on the same lifetimes, and on bench_compile's re-plans a full
   * search after the replay gains 0.002 % of heap for 8x the time; so the
   * replay is kept (bound_partial: the exact clique was not sought). */
  if (r->ref_mk && r->ref_lb &&
      (double)r->realBest * (double)r->ref_lb <= (1 + REPLAN_SLACK) * (double)r->ref_mk * (double)r->cheaplb)
    return BEST_KEPT;
  best_clique_exact(r, r->deadline);
  if (r->realBest <= r->reallb) return BEST_PROVED;
  memcpy(r->soff, b->off, sizeof(uint64_t) * n); /* soff is free until the search */
  r->have_hint = 1;
  return BEST_ON;
}

/* 1c. The exact clique bound (pack_bound.c), after the dives: it ends a
 * call only where a packing reaches it, which the dives hardly do from
 * 100 items up (Enlisted with history: 0-2 of 2000), while its time (a
 * fifth of a 0.5 ms call at n = 150-200) taken before them halved what
 * they got. The dives stop at the cheap bounds instead; a packing that
 * meets the exact one ends the call here. Enlisted with history at 0.5 ms,
 * the H100 machine, two concurrent A/B runs of 2000 per n: n = 100-150
 * unchanged (1.0043-1.0048, 1.0088-1.0103), n = 175 1.0152 ->
 * 1.0118-1.0139, n = 200 1.0157-1.0192 -> 1.0140-1.0161; medians at
 * n = 200 0.52-0.58 -> 0.54-0.62 ms. */
static int best_bound(best_run *r) {
  if (!r->in.cyclic || r->hint) return BEST_ON;
  best_clique_exact(r, r->deadline);
  return r->realBest <= r->reallb ? BEST_PROVED : BEST_ON;
}

/* 1. a quick first fit: where it reaches a bound (most frame graphs do,
 * their history copies making the clique bound), no baseline can beat it
 * and none needs to run. Only where the baselines are dear (large n) or
 * a clique weighs more than LOAD (the structure it is made for). */
static int dives_fit(best_run *r);
static int best_quick(best_run *r) {
  if (r->hint || !(r->n > SMALL_BITS_N || r->lb > r->eload) || (r->m > EXACT_MAX_N && dives_fit(r))) return BEST_ON;
  pk_inst *in = &r->in;
  bs *b = &r->b;
  size_t m = r->m, *bord = r->bord;
  for (size_t k = 0; k < m; k++)
    r->kv[k] = (pk_kv){UINT64_MAX - in->size[bord[k]], UINT32_MAX - pk_len(in, bord[k]), bord[k]};
  set_order_kv(b, r->kv, 0);
  /* arcs over half the cycle first (a frame graph's history copies: they
   * make the clique bound, stacked they leave gaps the rest fits in) */
  size_t nl = 0;
  for (size_t k = 0; k < m; k++)
    if (2 * (uint64_t)pk_len(in, b->ord[k]) > in->K) bord[nl++] = b->ord[k];
  for (size_t k = 0; k < m; k++)
    if (2 * (uint64_t)pk_len(in, b->ord[k]) <= in->K) bord[nl++] = b->ord[k];
  memcpy(b->ord, bord, sizeof(size_t) * m);
  for (size_t k = 0; k < m; k++) b->pos[b->ord[k]] = (uint32_t)k;
  ff_from(b, 0);
  r->realBest = pk_makespan(r->in0, b->off);
  memcpy(r->out, b->off, sizeof(uint64_t) * r->n);
  return r->realBest <= r->reallb ? BEST_PROVED : BEST_ON;
}

/* 2. every baseline (real makespan decides), thesis/scanline reversed too;
 * one that reaches a bound ends the call. Each stops as soon as what it
 * has placed reaches the incumbent: it could no longer beat it. Leaves the
 * best baseline's packing in boff (or out's, when the hint's replay or the
 * quick fit beat them all). */
static int best_baselines(best_run *r) {
  static const pk_baseline_fn base[] = {pk_bysize, pk_scanline, pk_thesis, pk_buckets, pk_pool, pk_none};
  const size_t nbase = sizeof base / sizeof *base;
  pk_inst *in = &r->in;
  size_t n = r->n;
  uint64_t baseBest = UINT64_MAX;
  uint64_t *baseoff = r->boff; /* the best baseline packing, kept in boff until the search starts */
  for (size_t f = 0; f < nbase + 2; f++) {
    const pk_inst *src = in;
    pk_baseline_fn fn;
    if (f < nbase) fn = base[f];
    else if (fg_now_ns() > r->deadline) continue; /* extra starts only in budget */
    else {
      if (!r->have_rev && pk_reverse(in, &r->rev)) continue; /* made only for them */
      r->have_rev = 1;
      src = &r->rev;
      fn = f == nbase ? pk_thesis : pk_scanline;
    }
    in->cut = r->realBest == UINT64_MAX ? 0 : r->realBest;
    if (r->have_rev) r->rev.cut = in->cut;
    int fr = fn(src, r->tmp);
    if (fr < 0) return -1;
    if (fr) continue;
    uint64_t rm = pk_makespan(r->in0, r->tmp);
    if (rm < baseBest) {
      baseBest = rm;
      memcpy(baseoff, r->tmp, sizeof(uint64_t) * n);
    }
    if (rm < r->realBest) {
      r->realBest = rm;
      r->dv_best = 0;
      memcpy(r->out, r->tmp, sizeof(uint64_t) * n);
    }
    if (r->realBest <= r->reallb) return BEST_PROVED;
  }
  in->cut = 0;
  /* the start below: the best baseline, unless the hint's replay or the
   * quick fit beat them all */
  if (baseBest > r->realBest) memcpy(baseoff, r->out, sizeof(uint64_t) * n);
  /* past the deadline only the replay of the best baseline below runs */
  if (!r->ti && !r->bits && fg_now_ns() < r->deadline) { /* the time index already confines the tests */
    r->bits = get_bits(in, &in->cwords, &r->bits_own);
    in->cbits = r->bits;
  }
  return BEST_ON;
}

/* 2b. starts: the best baseline (in boff) as an order, then classic orders;
 * the best of them in bord/boff, its makespan in bestM */
static int best_starts(best_run *r) {
  pk_inst *in = &r->in;
  bs *b = &r->b;
  size_t n = r->n, m = 0;
  const uint64_t *baseoff = r->boff; /* read by the first order only, before boff changes */
  for (int o = -1; o < 5 && r->bestM > r->lb; o++) {
    /* the best baseline's order replayed by first fit always runs (it
     * never places an item higher, so it only improves on the baseline),
     * unless the hint's replay stands in for it */
    if ((o >= 0 || r->have_hint) && fg_now_ns() > r->deadline) break;
    /* above EXACT_MAX_N items, of the classic orders only size x length
     * wins often enough to pay for its pass (about a fifth of the time;
     * the others a few percent): ruin and recreate gets theirs */
    if (o >= 0 && o != 1 && n > EXACT_MAX_N) continue;
    m = 0;
    for (size_t i = 0; i < n; i++) {
      if (is_whole(r->in0, i)) continue;
      uint64_t len = pk_len(in, i), sz = in->size[i];
      uint64_t key = o == -1 ? baseoff[i]
                   : o == 0 ? UINT64_MAX - sz
                   : o == 1 ? UINT64_MAX - sz * len
                   : o == 2 ? UINT64_MAX - len
                   : o == 3 ? (uint64_t)in->s[i]
                   : (uint64_t)(UINT32_MAX - in->e[i]);
      r->kv[m++] = (pk_kv){key, UINT64_MAX - sz, i};
    }
    b->n = m;
    set_order_kv(b, r->kv, 0);
    /* a dive's packing is its own first fit, nearly: its replay is kept
     * for the baselines' (300 dumped Enlisted instances, n = 200 with
     * history, best of 7 dives 1.01164 x bound, replayed 1.01158) and its
     * time goes to the dives */
    uint64_t mk;
    if (o == -1 && r->dv_best && n > EXACT_MAX_N) {
      mk = b->lo0;
      for (size_t i = 0; i < n; i++) {
        b->off[i] = baseoff[i];
        if (!is_whole(r->in0, i) && baseoff[i] + in->size[i] > mk) mk = baseoff[i] + in->size[i];
      }
    } else
      mk = ff_from(b, 0);
    if (mk < r->bestM) {
      r->bestM = mk;
      memcpy(r->bord, b->ord, sizeof(size_t) * m);
      memcpy(r->boff, b->off, sizeof(uint64_t) * n);
    }
  }
  if (r->have_hint && r->hintM < r->bestM) { /* the re-plan's replay is a start too */
    r->bestM = r->hintM;
    memcpy(r->boff, r->soff, sizeof(uint64_t) * n);
  }
  if (fg_now_ns() >= r->deadline) { /* no time left to improve it (a re-plan, usually) */
    if (r->bestM != UINT64_MAX && pk_makespan(r->in0, r->boff) < r->realBest)
      memcpy(r->out, r->boff, sizeof(uint64_t) * n);
    return BEST_PROVED;
  }
  return BEST_ON;
}

/* A flat load (LOAD at every point: a perfect tiling's, never a frame
 * graph's) is pack_tile's (2b) and nothing else's; known once per call. */
static int flat_load(best_run *r) {
  if (!r->flat) r->flat = !r->in.gran && pk_flat(&r->in, r->reallb) ? 2 : 1;
  return r->flat == 2;
}

/* 1b. Canonical dives: each item, lowest first, right on top of the
 * highest placed item it meets (the first path of pack_search's decision
 * search, without its capacity), ties broken by a key (DIVE_BETA_SPAN and
 * the spans after it: its terms in dive_terms, its exponents drawn per
 * dive, the first dive's at their middle) scaled per item by a random
 * factor in [1, 2) from the second dive on, again and again in half of the
 * time left; the lowest packing is the incumbent. One dive is a pass over
 * the unplaced items per placement (finding the next and raising the ones
 * the last placement meets at once), m^2 / 2 conflict tests. Not on a
 * re-plan (its budget is the hint's replay's), nor on a flat load
 * (pack_tile's). */
typedef struct dv { uint64_t mo; double key; size_t i; } dv; /* an unplaced item of a dive */
static uint64_t dive_once(best_run *r, const double *key, dv *u, uint64_t *off) {
  const pk_inst *in = &r->in;
  size_t m = r->m, nu = m, best = 0; /* best: index in u of the next item */
  uint64_t M = r->b.lo0;
  for (size_t k = 0; k < m; k++) {
    size_t i = r->bord[k];
    u[k] = (dv){pk_align_up(M, in->align[i]), key[i], i};
    if (u[k].mo < u[best].mo || (u[k].mo == u[best].mo && u[k].key > u[best].key)) best = k;
  }
  while (nu) {
    size_t p = u[best].i;
    uint64_t top = (off[p] = u[best].mo) + in->size[p];
    if (top > M) M = top;
    u[best] = u[--nu];
    best = 0;
    for (size_t k = 0; k < nu; k++) {
      dv *x = &u[k];
      if (x->mo < top && pk_conflict(in, p, x->i)) x->mo = pk_align_up(top, in->align[x->i]);
      if (x->mo < u[best].mo || (x->mo == u[best].mo && x->key > u[best].key)) best = k;
    }
  }
  return M;
}
/* The same dive on conflict bits, where offsets stay below 2^47: each
 * unplaced item's lowest offset and its key's rank (16 bits, 0 = highest
 * key) in one word, so picking the next item is a min over a compact
 * array, and a placement raises only the unplaced items its row marks
 * (their count, not every unplaced one). The key is quantised: keys closer
 * than 1/65535 of their span may tie, and ties go by list position.
 * About 1.4x faster than dive_once at n = 200 (dev). */
typedef struct dvf { uint64_t *comp, *mo, *unp; uint32_t *itm, *pos; } dvf;
#define DV_RANK_BITS 16
static uint64_t dive_bits(best_run *r, const double *key, int shift, dvf *f, uint64_t *off) {
  const pk_inst *in = &r->in;
  size_t m = r->m, nu = m, w = in->cwords;
  uint64_t M = r->b.lo0, *comp = f->comp, *mo = f->mo, *unp = f->unp;
  uint32_t *itm = f->itm, *pos = f->pos;
  double kmin = 0, kmax = 0;
  for (size_t k = 0; k < m; k++) {
    double v = key[r->bord[k]];
    if (!k || v < kmin) kmin = v;
    if (!k || v > kmax) kmax = v;
  }
  double scale = kmax > kmin ? (double)((1u << DV_RANK_BITS) - 1) / (kmax - kmin) : 0;
  memset(unp, 0, sizeof(uint64_t) * w);
  for (size_t k = 0; k < m; k++) {
    uint32_t i = (uint32_t)r->bord[k];
    itm[k] = i;
    pos[i] = (uint32_t)k;
    unp[i >> 6] |= 1ull << (i & 63);
    double rk = (kmax - key[i]) * scale; /* in [0, 65535]; NaN (never: sizes > 0) as 0 */
    mo[k] = pk_align_up(M, in->align[i]);
    comp[k] = (mo[k] >> shift) << DV_RANK_BITS | (rk > 0 ? (uint64_t)(rk < 65535 ? rk : 65535) : 0);
  }
  const uint64_t rmask = (1ull << DV_RANK_BITS) - 1;
  while (nu) {
    size_t bi = 0;
    uint64_t bc = comp[0];
    for (size_t k = 1; k < nu; k++)
      if (comp[k] < bc) { bc = comp[k]; bi = k; }
    uint32_t p = itm[bi];
    uint64_t top = (off[p] = mo[bi]) + in->size[p];
    if (top > M) M = top;
    nu--;
    itm[bi] = itm[nu];
    comp[bi] = comp[nu];
    mo[bi] = mo[nu];
    pos[itm[bi]] = (uint32_t)bi;
    unp[p >> 6] &= ~(1ull << (p & 63));
    const uint64_t *row = in->cbits + (size_t)p * w;
    for (size_t x = 0; x < w; x++)
      for (uint64_t bm = row[x] & unp[x]; bm; bm &= bm - 1) {
        uint32_t j = (uint32_t)(x * 64 + (size_t)__builtin_ctzll(bm)), k = pos[j];
        /* branch-free: about half of them are raised, unpredictably */
        uint64_t o = mo[k], c = comp[k], up = pk_align_up(top, in->align[j]);
        int raise = o < top;
        mo[k] = raise ? up : o;
        comp[k] = raise ? (up >> shift) << DV_RANK_BITS | (c & rmask) : c;
      }
  }
  return M;
}

/* Do dives run (the deadline of their half of what is left, or 0)? A dive
 * costs about DIVE_PAIR_NS (on bits DIVE_BITS_PAIR_NS) per pair of items:
 * none that would not fit. */
static uint64_t dive_cost(const best_run *r) {
  return (r->in.cbits ? DIVE_BITS_PAIR_NS : DIVE_PAIR_NS) * (uint64_t)r->m * r->m / 2;
}
static uint64_t dives_deadline(best_run *r, uint64_t now) {
  uint64_t deadline = now < r->deadline ? now + (r->deadline - now) / 2 : now;
  uint64_t cost = dive_cost(r);
  return r->hint || r->m < 2 || now + cost > deadline || flat_load(r) ? 0 : deadline;
}
/* The dives after the baselines (above EXACT_MAX_N items, where the
 * steps after them gain least per microsecond): DIVE_REST_SHARE of what
 * the bound and the baselines left, the rest to ruin and recreate. */
static uint64_t dives_rest_deadline(best_run *r, uint64_t now) {
  if (!r->dv_on || r->m <= EXACT_MAX_N || now >= r->deadline) return 0;
  return now + (uint64_t)((double)(r->deadline - now) * DIVE_REST_SHARE);
}
/* The dives' item terms, in logs, for the items of bord: t[i] size,
 * t[n + i] length, t[2n + i] the mean load over the lifetime and t[3n + i]
 * the highest, both relative to the peak (a prefix sum and a sparse table
 * over the points), t[4n + i] the bytes of the items it meets relative to
 * all (from the conflict bits; 0 without them). 0, or -1 on OOM. */
static int dive_terms(const pk_inst *in, const size_t *bord, size_t m, double *t) {
  size_t n = in->n;
  double *lsz = t, *llen = t + n, *lld = t + 2 * n, *lmx = t + 3 * n, *lcw = t + 4 * n;
  uint32_t K = in->K ? in->K : 1, L = 32 - (uint32_t)__builtin_clz(K); /* levels 0 .. floor(log2 K) */
  uint64_t *st = malloc(sizeof(uint64_t) * (size_t)K * L); /* st[l K + t]: max of [t, t + 2^l) */
  double *pre = malloc(sizeof(double) * ((size_t)K + 1));
  if (!st || !pre) { free(st); free(pre); return -1; }
  pk_profile(in, st, 0);
  double peak = 1, all = 1;
  pre[0] = 0;
  for (uint32_t p = 0; p < K; p++) {
    pre[p + 1] = pre[p] + (double)st[p];
    if ((double)st[p] > peak) peak = (double)st[p];
  }
  for (uint32_t l = 1; l < L; l++)
    for (uint32_t p = 0; p + (1u << l) <= K; p++) {
      uint64_t x = st[(size_t)(l - 1) * K + p], y = st[(size_t)(l - 1) * K + p + (1u << (l - 1))];
      st[(size_t)l * K + p] = x > y ? x : y;
    }
  for (size_t i = 0; i < n; i++) all += (double)in->size[i];
  for (size_t k = 0; k < m; k++) {
    size_t i = bord[k];
    uint32_t a = in->s[i], len = pk_len(in, i), z1 = a + len <= K ? a + len : K, z2 = a + len <= K ? 0 : a + len - K;
    double sum = pre[z1] - pre[a] + pre[z2];
    uint64_t mx = 0;
    for (int part = 0; part < 2; part++) { /* [a, z1) and [0, z2) */
      uint32_t lo = part ? 0 : a, hi = part ? z2 : z1;
      if (lo >= hi) continue;
      uint32_t l = 31 - (uint32_t)__builtin_clz(hi - lo);
      uint64_t x = st[(size_t)l * K + lo], y = st[(size_t)l * K + hi - (1u << l)];
      if (x > mx) mx = x;
      if (y > mx) mx = y;
    }
    double met = 0;
    for (size_t w = 0; in->cbits && w < in->cwords; w++)
      for (uint64_t bm = in->cbits[i * in->cwords + w]; bm; bm &= bm - 1)
        met += (double)in->size[w * 64 + (size_t)__builtin_ctzll(bm)];
    lsz[i] = log((double)in->size[i]);
    llen[i] = log((double)len);
    lld[i] = log(sum / len / peak + 1e-300);
    lmx[i] = log((double)mx / peak + 1e-300);
    lcw[i] = log((met + 1) / all);
  }
  free(st);
  free(pre);
  return 0;
}
/* A uniform draw in [0, 1), and a key exponent in [0, span) for dive d:
 * the first dive (and a span of 0, which draws nothing) takes span x mid. */
static double dive_unit(uint64_t *rng) { return (double)(fg_splitmix64(rng) >> 11) * 0x1p-53; }
static double dive_draw(double span, uint64_t d, double mid, uint64_t *rng) {
  return span * (d && span > 0 ? dive_unit(rng) : mid);
}
/* Where the dives run the quick fit is not needed: the first dive stands in
 * for it, at about its cost, and ends the call at a bound just as well.
 * Only above EXACT_MAX_N items, where its time is what the dives lack
 * (Enlisted with history, n = 150-200, dev: about 0.0005 x bound); below,
 * it is cheap and one more start (test_best_unchanged's instances: mean
 * 1.005084 with it, 1.005188 without) */
static int dives_fit(best_run *r) { return dives_deadline(r, fg_now_ns()) != 0; }
static int best_dives(best_run *r, int first) {
  const pk_inst *in = &r->in;
  size_t n = r->n, m = r->m;
  uint64_t now = fg_now_ns(), deadline = first ? dives_deadline(r, now) : dives_rest_deadline(r, now), cost = dive_cost(r);
  if (!deadline || r->realBest <= r->reallb) return BEST_ON;
  r->dv_on = 1;
  /* the bit-driven dive where there are bits and offsets stay below 2^47
   * (every item stacked on the others reaches at most lo0 + sizes + aligns) */
  uint64_t reach = r->b.lo0;
  for (size_t k = 0; k < m && reach < (1ull << 47); k++) reach += in->size[r->bord[k]] + in->align[r->bord[k]];
  int fast = in->cbits && reach < (1ull << 47);
  double *key = malloc(sizeof(double) * n);
  dv *u = fast ? NULL : malloc(sizeof(dv) * m);
  dvf f = {fast ? malloc(sizeof(uint64_t) * (2 * m + in->cwords)) : NULL, NULL, NULL,
           fast ? malloc(sizeof(uint32_t) * (m + n)) : NULL, NULL};
  if (!key || (fast ? !f.comp || !f.itm : !u)) { free(key); free(u); free(f.comp); free(f.itm); return -1; }
  if (fast) {
    f.mo = f.comp + m;
    f.unp = f.comp + 2 * m;
    f.pos = f.itm + m;
  }
  memcpy(r->tmp, r->b.off, sizeof(uint64_t) * n); /* whole-cycle items keep their stack */
  /* at most a placement per node of the node budget; stop once as many
   * dives as it took to the last gain (at least DIVE_PATIENCE) gained nothing */
  uint64_t dmax = r->nodes / m, last = r->dv_last, low = first ? UINT64_MAX : r->dv_low, d = r->dv_d;
  /* keys in logs: size + beta length + gamma mean load + delta highest
   * load + omega bytes met + noise */
  if (!r->dv_t && (!(r->dv_t = malloc(sizeof(double) * 5 * n)) || dive_terms(in, r->bord, m, r->dv_t))) {
    free(key); free(u); free(f.comp); free(f.itm);
    return -1;
  }
  const double *lsz = r->dv_t, *llen = lsz + n, *lld = llen + n, *lmx = lld + n, *lcw = lmx + n;
  /* lines (no period) keep the keys of before: the MiniMalloc instances
   * reach their optimum later with these (dev: C 22 -> 65 ms, E 219-237 ->
   * 242-274 ms) */
  double bspan = in->cyclic ? DIVE_BETA_SPAN : DIVE_BETA_SPAN_LINE, gspan = in->cyclic ? DIVE_GAMMA_SPAN : 0;
  double dspan = in->cyclic ? DIVE_DELTA_SPAN : 0, ospan = in->cyclic && in->cbits ? DIVE_OMEGA_SPAN : 0;
  double mid = in->cyclic ? 0.5 : 0;
  for (; d < dmax && r->realBest > r->reallb && d - last <= (last > DIVE_PATIENCE ? last : DIVE_PATIENCE); d++) {
    if (d && fg_now_ns() + cost > deadline) break;
    /* the first dive at the middle of each span, without noise */
    double beta = 1 + dive_draw(bspan, d, mid, &r->b.rng), gamma = dive_draw(gspan, d, mid, &r->b.rng);
    double delta = dive_draw(dspan, d, mid, &r->b.rng), omega = dive_draw(ospan, d, mid, &r->b.rng);
    for (size_t k = 0; k < m; k++) {
      size_t i = r->bord[k];
      double noise = d ? 0.6931471805599453 * dive_unit(&r->b.rng) : 0;
      key[i] = lsz[i] + beta * llen[i] + gamma * lld[i] + delta * lmx[i] + omega * lcw[i] + noise;
    }
    /* from the second dive on, offsets within a random power of two below
     * DIVE_SLACK x the bound tie, and the key decides among them */
    double sl = d ? DIVE_SLACK * (double)r->lb * dive_unit(&r->b.rng) : 0;
    int shift = sl >= 2 ? 63 - __builtin_clzll((uint64_t)sl) : 0;
    uint64_t M = fast ? dive_bits(r, key, shift, &f, r->tmp) : dive_once(r, key, u, r->tmp);
    if (M < low) low = M, last = d;
    /* the incumbent: the baselines stop at it, and where none beats it
     * the starts take it (boff is theirs to set; after them, ours) */
    uint64_t rm = M < r->realBest ? pk_makespan(r->in0, r->tmp) : UINT64_MAX;
    if (rm < r->realBest) {
      r->realBest = rm;
      r->dv_best = 1;
      memcpy(r->out, r->tmp, sizeof(uint64_t) * n);
      if (!first) memcpy(r->boff, r->tmp, sizeof(uint64_t) * n); /* the starts' first order */
    }
  }
  r->dv_d = d;
  r->dv_last = last;
  r->dv_low = low;
  free(key); free(u); free(f.comp); free(f.itm);
  return r->realBest <= r->reallb ? BEST_PROVED : BEST_ON;
}

/* The state of the ruin-and-recreate loop. */
typedef struct ruin {
  uint64_t M, over, iter, last_gain;
  double cost, hist[LAHC_LEN];
  char *ruined;
  size_t *R, *top;
  int at_bound;
  int saved;        /* sv holds the list (no time index): undo by copy */
  pk_plsave sv;
} ruin;

/* One move: take an item touching the makespan and the items whose
 * lifetimes meet it within a band below the top, put them back by first or
 * best fit in a shuffled size order; keep the result or revert. 1 when no
 * item touches the makespan (the peak is the whole-cycle stack itself). */
static int ruin_step(best_run *r, ruin *z) {
  const pk_inst *in = &r->in;
  bs *b = &r->b;
  size_t m = r->m, n = r->n, *list = r->bord, *R = z->R;
  uint64_t *off = b->off, *soff = r->soff;
  pk_plist *pl = &b->pl;
  pk_kv *kv = r->kv;
  size_t nt = 0;
  for (size_t k = 0; k < m; k++)
    if (off[list[k]] + in->size[list[k]] == z->M) z->top[nt++] = list[k];
  if (!nt) return 1;
  size_t t = z->top[fg_splitmix64(&b->rng) % nt];
  uint64_t span = z->M - b->lo0, r0 = fg_splitmix64(&b->rng);
  uint64_t depth = in->size[t] + span / 100 * (r0 % 81);
  uint64_t band = z->M > depth ? z->M - depth : 0;
  size_t nr = 0;
  R[nr++] = t;
  size_t rot = fg_splitmix64(&b->rng) % m; /* no bias toward any part of the list */
  for (size_t kk = 0; kk < m && nr < 48; kk++) {
    size_t j = list[(kk + rot) % m];
    if (j == t || off[j] + in->size[j] <= band) continue;
    if (pk_conflict(in, t, j) || (fg_splitmix64(&b->rng) & 15) == 0) R[nr++] = j;
  }
  for (size_t q = 0; q < nr; q++) {
    soff[q] = off[R[q]];
    z->ruined[R[q]] = 1;
  }
  if (z->saved) pk_pl_save(&z->sv, pl);
  pk_pl_remove_set(pl, z->ruined, R, nr);
  /* recreate order: size scaled by a random factor, largest first */
  for (size_t q = 0; q < nr; q++) {
    uint64_t f = 64 + fg_splitmix64(&b->rng) % 64;
    kv[q] = (pk_kv){UINT64_MAX - (in->size[R[q]] >> 7) * f, fg_splitmix64(&b->rng), q};
  }
  pk_sort_kv(kv, nr);
  int bestfit = (r0 >> 32) & 1;
  /* late acceptance: no worse than now, or than the solution LAHC_LEN
   * iterations ago; cost = makespan, then (softly) bytes above LOAD. An
   * item placed above both costs rejects the move whatever the others do:
   * with the list saved, the recreate stops there (same moves, less work) */
  size_t hv = z->iter % LAHC_LEN;
  double lim = z->cost > z->hist[hv] ? z->cost : z->hist[hv], c2 = 0;
  int rejected = 0;
  for (size_t q = 0; q < nr && !rejected; q++) {
    size_t i = R[kv[q].i];
    off[i] = b_place(b, i, bestfit);
    b_add(b, i);
    rejected = z->saved && (double)(off[i] + in->size[i]) > lim;
  }
  uint64_t M2 = b->lo0, over2 = 0;
  for (size_t k = 0; k < m && !rejected; k++) {
    uint64_t e = off[list[k]] + in->size[list[k]];
    if (e > M2) M2 = e;
    if (e > r->lb) over2 += e - r->lb;
  }
  if (!rejected) c2 = (double)M2 + (double)over2 / (4.0 * (double)m);
  if (!rejected && (c2 <= z->cost || c2 < z->hist[hv])) {
    z->M = M2;
    z->over = over2;
    z->cost = c2;
    if (z->M < r->bestM) {
      r->bestM = z->M;
      memcpy(r->boff, off, sizeof(uint64_t) * n);
      z->at_bound = r->bestM <= r->lb || pk_makespan(r->in0, r->boff) <= r->reallb;
      z->last_gain = z->iter;
    }
  } else if (z->saved) { /* revert */
    for (size_t q = 0; q < nr; q++) off[R[q]] = soff[q];
    pk_pl_restore(pl, &z->sv);
  } else {
    pk_pl_remove_set(pl, z->ruined, R, nr);
    for (size_t q = 0; q < nr; q++) {
      off[R[q]] = soff[q];
      pk_pl_insert(pl, off, (uint32_t)R[q]);
    }
  }
  for (size_t q = 0; q < nr; q++) z->ruined[R[q]] = 0;
  z->hist[hv] = z->cost;
  return 0;
}

/* A cycle with a point where only whole-cycle items live is a line above
 * their stack (a frame graph without history). */
static int is_line(const pk_inst *in) {
  if (!in->cyclic) return 1;
  uint32_t K = in->K;
  int32_t *d = calloc((size_t)K + 1, sizeof(int32_t));
  if (!d) return 0;
  for (size_t i = 0; i < in->n; i++) {
    uint32_t a = in->s[i], b = in->e[i];
    if (a == b) continue;
    d[a]++;
    if (a < b) d[b]--;
    else { d[K]--; d[0]++; d[b]--; }
  }
  int32_t run = 0, line = 0;
  for (uint32_t t = 0; t < K && !line; t++) line = (run += d[t]) == 0;
  free(d);
  return line;
}

/* The decision search's set-up alone takes a few n^2 ns (neighbour lists,
 * per-depth lists): with less time left it would only overrun the budget. */
static uint64_t search_min_ns(size_t n) { return 8 * (uint64_t)n * n; }

/* 3. ruin and recreate around the peak (ruin_step) from the best start;
 * keep every move unless the makespan grows (or, at equal makespan, more
 * bytes stick out above LOAD). */
static int best_ruin(best_run *r) {
  const pk_inst *in = &r->in;
  bs *b = &r->b;
  size_t m = r->m = b->n, n = r->n, *list = r->bord; /* the non-whole items */
  uint64_t *off = b->off;
  memcpy(off, r->boff, sizeof(uint64_t) * n);
  for (size_t k = 0; k < m; k++) r->kv[k] = (pk_kv){off[list[k]], 0, list[k]};
  pk_sort_kv(r->kv, m);
  pk_pl_clear(&b->pl);
  for (size_t k = 0; k < m; k++) pk_pl_insert(&b->pl, off, (uint32_t)r->kv[k].i);
  ruin z;
  z.ruined = calloc(n, 1);
  if (!z.ruined) return -1;
  z.saved = !b->pl.tix && !pk_pl_save_init(&z.sv, &b->pl, n);
  z.M = r->bestM;
  z.over = z.iter = z.last_gain = 0;
  for (size_t k = 0; k < m; k++) {
    uint64_t e = off[list[k]] + in->size[list[k]];
    if (e > r->lb) z.over += e - r->lb;
  }
  z.R = r->sord;
  z.top = (size_t *)r->tmp;
  z.cost = (double)z.M + (double)z.over / (4.0 * (double)(m ? m : 1));
  for (size_t k = 0; k < LAHC_LEN; k++) z.hist[k] = z.cost;
  uint64_t now = fg_now_ns(), rr_deadline = now, deadline = r->deadline;
  /* pack_search: the decision search after this loop gets 7/8 on lines
   * (all of it under LINE_RUIN_MIN_NS; lines include cycles that are lines
   * above a whole-cycle stack, is_line): it
   * solves perfect-fit instances this loop stalls on (up to EXACT_MAX_N
   * items after the exact search's half). On other cycles this loop does
   * better at short budgets (Enlisted at 0.5 ms) and its gains come early:
   * it keeps 1/2 up to EXACT_MAX_N items (the exact search and the decision
   * search do more with the rest: 3/4 was worse at n = 40-64, 600 instances,
   * and slower), else a quarter where RUIN_CYCLE_PAIR_NS allows (was 1 ms
   * and a quarter, while the search tried a heuristic first: with history
   * n = 75 at 0.5 ms 1.0118 -> 1.0088, p90 1.0336 -> 1.0272, dev), and the
   * search gets what it leaves (also once it runs out of patience) */
  int line = r->line = is_line(in);
  /* a line keeps it all where the search would get too little to pay off
   * (under 15 n^2 ns, about one set-up and a few hundred nodes; was 60 n^2
   * while a set-up cost 10 n^2 and the search read the clock every 64
   * nodes: Enlisted without history at 0.5 ms, n = 100: 1.0046 -> 1.0020) */
  if (line && now < deadline && deadline - now < 15 * (uint64_t)n * n) line = 0;
  uint64_t rest = now < deadline ? deadline - now : 0;
  uint64_t cyc = rest >= RUIN_CYCLE_PAIR_NS * (uint64_t)n * n ? rest / 4 : rest;
  rr_deadline = now + (line ? (rest < LINE_RUIN_MIN_NS ? 0 : rest / 8) : n <= EXACT_MAX_N ? rest / 2 : cyc);
  /* the search's time is worth more once this loop stalls:
   * it stops after as many fruitless iterations as it took to its last
   * gain (at least RUIN_LINE_STALL) */
  /* stop once the best (not the wandering current) reaches a bound, in
   * effective sizes or in real bytes: nothing can beat it */
  z.at_bound = r->bestM <= r->lb || pk_makespan(r->in0, r->boff) <= r->reallb;
  /* Stagnation stop: where the optimum lies above every bound (small cyclic
   * instances) this loop cannot prove anything and would burn its whole share
   * of the budget; the exact search below settles those in microseconds. */
  uint64_t patience = 20000 + 100 * (uint64_t)m;
  while (m > 1 && !z.at_bound && z.iter < r->nodes && z.iter - z.last_gain < patience &&
         (!line || z.iter - z.last_gain < (z.last_gain > RUIN_LINE_STALL ? z.last_gain : RUIN_LINE_STALL))) {
    if (fg_now_ns() > rr_deadline) break; /* a step costs microseconds, a reading tens of ns */
    z.iter++;
    if (ruin_step(r, &z)) break;
  }
  free(z.ruined);
  if (z.saved) pk_pl_save_free(&z.sv);
  if (r->bestM != UINT64_MAX && pk_makespan(r->in0, r->boff) < r->realBest)
    memcpy(r->out, r->boff, sizeof(uint64_t) * n);
  return BEST_ON;
}

/* 2b. A flat load (LOAD at every point): a packing at LOAD tiles memory;
 * pack_tile rebuilds the tiling's blocks and searches those, with 3/4 of
 * the time that is left: on such instances nothing else comes near
 * (guillotine n = 200 at 5 ms, dev, 2 x 10: 1.07-1.11 x OPT; with half
 * 1.09-1.24; without pack_tile 1.25-1.28). Reaching LOAD ends the call;
 * else its packing (near LOAD: blocks are exact rectangles) is the
 * incumbent to beat. */
static int best_tile(best_run *r) {
  uint64_t now = fg_now_ns(), mk;
  if (now >= r->deadline || !flat_load(r)) return BEST_ON;
  if (pk_tile(&r->in, r->reallb, now + (r->deadline - now) / 4 * 3, r->tmp, &mk)) return -1;
  if (mk >= r->realBest) return BEST_ON;
  r->realBest = mk;
  memcpy(r->out, r->tmp, sizeof(uint64_t) * r->n);
  memcpy(r->boff, r->tmp, sizeof(uint64_t) * r->n); /* the start for the steps below */
  return mk <= r->reallb ? BEST_PROVED : BEST_ON;
}

/* pack_search: the decision search by bisection below the incumbent (up to
 * EXACT_MAX_N items after the exact search), with the time that is left */
static int best_search(best_run *r, int *optimal) {
  size_t n = r->n;
  uint64_t now = fg_now_ns(), deadline = r->deadline;
  if (now >= deadline || deadline - now < search_min_ns(n)) return BEST_ON;
  int sp_proved = 0;
  memcpy(r->tmp, r->out, sizeof(uint64_t) * n);
  /* it overruns the deadline it is given by about its last set-up and the
   * completion of its deepest partial packing: it gets it that much early
   * (3 n^2 ns; 6 n^2 before set-ups got cheaper) */
  deadline -= 3 * (uint64_t)n * n;
  /* on a small instance the node budget caps it too (as it does the exact
   * search), so a run without a time limit ends */
  int sp = pk_search_improve(&r->in, r->lb, deadline, n <= EXACT_MAX_N ? r->nodes : 0, r->tmp, &sp_proved);
  if (sp < 0) return -1;
  if (sp > 0 && pk_makespan(r->in0, r->tmp) < pk_makespan(r->in0, r->out)) memcpy(r->out, r->tmp, sizeof(uint64_t) * n);
  if (sp_proved && !r->in.gran) { /* proved minimal; real sizes are the effective ones */
    *optimal = pk_makespan(r->in0, r->out) <= pk_makespan(r->in0, r->tmp);
    return BEST_FINISHED;
  }
  return BEST_ON;
}

/* 4. exact search below the incumbent with the time that is left (half of
 * it with half set: on a small instance the decision search follows) */
static int best_exact(best_run *r, int *optimal, int half) {
  const pk_inst *in = &r->in;
  size_t n = r->n;
  uint64_t inc = 0;
  for (size_t i = 0; i < n; i++)
    if (r->out[i] + in->size[i] > inc) inc = r->out[i] + in->size[i];
  int improved = 0;
  /* above ~64 items one node costs O(n^2) and the tree is hopeless in a
   * few milliseconds: the search is kept for instances it can finish */
  uint64_t now = fg_now_ns(), dl = half && now < r->deadline ? now + (r->deadline - now) / 2 : r->deadline;
  int ex = inc > r->lb && n <= EXACT_MAX_N ? exact(in, inc, r->tmp, &improved, r->nodes, dl) : 0;
  if (ex < 0) return -1;
  if (improved && pk_makespan(r->in0, r->tmp) < pk_makespan(r->in0, r->out))
    memcpy(r->out, r->tmp, sizeof(uint64_t) * n);
  /* exhausted: optimal for the effective sizes, which are the real ones
   * unless kinds were rounded to granularity pages */
  if (ex == 1 && !in->gran) {
    *optimal = 1;
    return BEST_FINISHED;
  }
  return BEST_ON;
}

int pk_best(const pk_inst *in0, const fg_pack_desc *desc, uint64_t load, uint64_t *out, pk_outcome *oc) {
  best_run r;
  int opt = 0, *optimal = &opt;
  int st = best_setup(&r, in0, desc, load, out);
  if (st == BEST_ON) st = best_warm(&r);
  if (st == BEST_ON) st = best_quick(&r);
  if (st == BEST_ON) st = best_dives(&r, 1);
  if (st == BEST_ON) st = best_bound(&r);
  if (st == BEST_ON) st = best_baselines(&r);
  if (st == BEST_ON) st = best_dives(&r, 0);
  if (st == BEST_ON) st = best_tile(&r);
  if (st == BEST_ON) st = best_lineize(&r);
  if (st == BEST_ON) st = best_starts(&r);
  if (st == BEST_ON) st = best_ruin(&r);
  /* a small instance: the exact search first (it proves small instances at
   * once), then the decision search with what is left; above EXACT_FIRST_N
   * the decision search first, the exact search after it (n = 40-50 with
   * history, 600 instances: 1.0087 -> 1.0070 and 1.0092 -> 1.0085 at 0.25 ms,
   * 1.0072 -> 1.0064 at n = 50, 0.5 ms; at n = 25 the exact search's quick
   * proofs end calls sooner for the same quality) */
  int small = st == BEST_ON && r.n <= EXACT_FIRST_N;
  if (st == BEST_ON && small) st = best_exact(&r, optimal, 1);
  if (st == BEST_ON) st = best_search(&r, optimal);
  if (st == BEST_ON && !small) st = best_exact(&r, optimal, 0);
  /* every step done, or one reached a bound */
  if (st == BEST_ON || st == BEST_PROVED || st == BEST_KEPT) *optimal = pk_makespan(in0, out) <= r.reallb;
  oc->optimal = opt;
  oc->replayed = st == BEST_KEPT;
  if (st >= 0) {
    oc->bound = r.reallb;
    oc->bound_partial = r.lb_partial;
  }
  best_free(&r);
  return st < 0 ? -1 : 0;
}
