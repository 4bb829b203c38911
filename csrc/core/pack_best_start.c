/* best's steps before the improvement loops (pack_best.c runs them): the
 * bounds, a re-plan's warm start, the quick fit, the baselines and the
 * starts built from them, a flat load's tiling, and the line a free cut
 * makes of a cycle; the first-fit replay they share. */
#include "pack_sweep.h"
#include "pack_mem.h"
#include "pack_best_int.h"
#include "pack_bound.h"
#include "pack_greedy.h"
#include "pack_sort.h"
#include "pack_skyline.h"
#include "pack_tile.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Place ord[p..n) by first fit against the items before each; returns the
 * makespan, or UINT64_MAX once pk_now() passes b->stop (when set). */
uint64_t ff_from(bs *b, size_t p) {
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
    if (b->stop && !(k & 63) && pk_now() > b->stop) return UINT64_MAX;
    if (x && k >= lastscan) b->pl.noix = 1;
    uint64_t o = b_place(b, i, 0);
    b->off[i] = o;
    b_add(b, i);
    if (o + in->size[i] > m) m = o + in->size[i];
    b->pre[k + 1] = m;
  }
  return m;
}

void set_order_kv(bs *b, pk_kv *kv, int warm) {
  if (warm) pk_sort_kv_warm(kv, b->n);
  else pk_sort_kv(kv, b->n);
  for (size_t k = 0; k < b->n; k++) b->ord[k] = kv[k].i;
  for (size_t k = 0; k < b->n; k++) b->pos[b->ord[k]] = (uint32_t)k;
}

/* The clique bound: a greedy clique (cheap: its members are cached with
 * the lifetimes), then the exact one above it and above LOAD (pack_bound.c;
 * polynomial, but skipped where its cost estimate passes CLIQUE_MAX_WORK,
 * and stopped at the deadline: the cliques found stand, partial). */
void best_clique_greedy(best_run *r) {
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
  if (cr > r->flatlb) r->flatlb = cr;
  r->cheaplb = r->reallb;
}
void best_clique_exact(best_run *r, uint64_t deadline) {
  const pk_inst *in = &r->in;
  if (!in->cyclic || r->exact_done) return;
  r->exact_done = 1;
  if (pk_clique_work(in) > CLIQUE_MAX_WORK) return;
  int exact = 0;
  uint64_t cr, cl = pk_clique_exact(in, r->lb, deadline, &cr, &exact);
  if (cl > r->lb) r->lb = cl;
  if (cr > r->reallb) r->reallb = cr;
  if (cr > r->flatlb) r->flatlb = cr;
  /* exact for the effective weights; with granularity rounding the real
   * bytes of another clique could weigh more */
  r->lb_partial = !exact || in->gran != 0;
}

/* The clique bound with alignment, where the incumbent is within a few
 * bytes per item of the bound (a small cycle at its optimum, unable to
 * prove it): the items of a clique lie apart, each but the highest taking
 * its size rounded up to the least alignment A (w_j), so the heaviest
 * clique by w, less the largest rounding of any item, bounds every
 * packing. Enlisted with wrapping, n = 50: the 157 of 300 instances left
 * unproved by pk_align_bound all ended under 64 bytes above the bound.
 * One exact clique search (skipped where it is too dear), once per call. */
int best_align_clique(best_run *r) {
  pk_inst *in = &r->in;
  size_t n = r->n;
  if (!in->cyclic || in->gran || r->align_done || r->realBest == UINT64_MAX || r->realBest <= r->reallb) return BEST_ON;
  uint64_t A = UINT64_MAX, amax = 1, slack = 0;
  for (size_t i = 0; i < n; i++) {
    if (in->align[i] < A) A = in->align[i];
    if (in->align[i] > amax) amax = in->align[i];
  }
  if (amax == 1 || r->realBest - r->reallb > (uint64_t)n * amax) return BEST_ON;
  r->align_done = 1;
  if (pk_clique_work(in) > CLIQUE_MAX_WORK || pk_now() >= r->deadline) return BEST_ON;
  uint64_t *w = pk_mem_alloc(sizeof(uint64_t) * (n ? n : 1));
  if (!w) return -1;
  for (size_t i = 0; i < n; i++) {
    w[i] = pk_align_up(in->size[i], A);
    if (w[i] - in->size[i] > slack) slack = w[i] - in->size[i];
  }
  pk_inst pw = *in;
  pw.size = w;
  pw.cbits = NULL;
  pw.cache = NULL;
  int exact = 0;
  /* not charged to the work clock: where it proves nothing the search
   * must keep its time (else small cycles lose bytes) */
  uint64_t work0 = pk_clk ? pk_clk->work : 0;
  uint64_t real, cl = pk_clique_exact(&pw, r->reallb + slack, r->deadline, &real, &exact);
  if (pk_clk) pk_clk->work = work0;
  pk_mem_free(w);
  if (cl > slack && cl - slack > r->reallb) r->reallb = cl - slack;
  return r->realBest <= r->reallb ? BEST_PROVED : BEST_ON;
}

/* 2a. A cycle that no arc crosses at some boundary (a frame graph without
 * history) is a line cut there: the steps after the baselines (which must
 * see the cycle, to be matched) work on that line, where the decision search
 * is exact instead of fixing the items alive at its cut point. Same items,
 * same conflicts, so the offsets mean the same. Not with a time index
 * (built on the cycle's points). */
int best_lineize(best_run *r) {
  if (r->fcut < 0 || r->ti) return BEST_ON;
  r->litems = pk_mem_alloc(sizeof(fg_pack_item) * (r->n ? r->n : 1));
  if (!r->litems || pk_line_at(&r->in, (uint32_t)r->fcut, r->litems, &r->lin)) return -1;
  r->have_lin = 1;
  r->in = r->lin; /* a view: the arrays stay lin's */
  return BEST_ON;
}

/* 0. Warm start (a re-plan, desc->offset_hint): the items dropped in the
 * hint's offset order, each right above the highest earlier item it meets
 * (pk_drop: no gap search, it costs the time points covered, while the
 * hint's gaps are mostly filled already); at a lower bound nothing can
 * beat it, baselines included, else it is a start. With hint_makespan /
 * hint_bound (the searched packing the hint descends from) a replay within
 * REPLAN_SLACK of that packing's makespan / bound ends the call too
 * (result.replayed): the exact clique is sought only after. */
int best_warm(best_run *r) {
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
  if (c && (c->hint_ord || (c->hint_ord = pk_mem_alloc(sizeof(uint32_t) * (m ? m : 1))))) {
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
int best_bound(best_run *r) {
  if (!r->in.cyclic || r->hint) return BEST_ON;
  best_clique_exact(r, r->deadline);
  return r->realBest <= r->reallb ? BEST_PROVED : BEST_ON;
}

/* 1. Without a hint, a quick first fit: arcs longer than half the cycle
 * first (a frame graph's history copies, which make its clique bound), then
 * by size. Where it reaches a bound (most frame graphs do) no baseline can
 * beat it and none needs to run. Only where the baselines are dear (large
 * n) or a clique weighs more than LOAD (the structure it is made for);
 * above EXACT_MAX_N items only where the dives do not run: the first dive
 * stands in for it (dives_fit). */
/* off, a packing of every item, becomes the incumbent where its real makespan is lower */
static void keep_if_lower(best_run *r, const uint64_t *off) {
  uint64_t mk = pk_makespan(r->in0, off);
  if (mk < r->realBest) {
    r->realBest = mk;
    memcpy(r->out, off, sizeof(uint64_t) * r->n);
  }
}

/* Above LARGE_N on a cycle, the first canonical dive (pack_dive.c) in its
 * O(n K) form (pack_skyline.c), before the sweeps, the lower kept: within
 * SKYLINE_ITEM_WORK per item by default, or what an explicit budget has
 * left, on coarser time where the items' own would pass that.
 * bench/scale.lua at 30,000 items: cycle T=100 long 1.027 -> 1.009, cycle
 * T=1000 short 1.006 -> 1.003, cycle T=1000 long 1.045 -> 1.027 (on time
 * in runs of 8; 1.014 on its own time, 0.4-0.7 s) (journal, "Scale: the
 * skyline dive", "... on coarser time"). */
static int quick_skyline(best_run *r) { /* 1 done, 2 done on coarser time, 0 gave up, -1 OOM */
  if (!r->m) return 0;
  uint64_t now = pk_now(), cap = SKYLINE_ITEM_WORK * (uint64_t)r->n;
  uint64_t left = r->deadline > now ? (r->deadline - now) / SKYLINE_NS : 0;
  if (left > cap) cap = left;
  double *key = pk_mem_alloc(sizeof(double) * r->n);
  uint32_t *cs = pk_mem_alloc(sizeof(uint32_t) * r->n), *cl = pk_mem_alloc(sizeof(uint32_t) * r->n);
  if (!key || !cs || !cl || best_first_keys(r, key)) { pk_mem_free(key); pk_mem_free(cs); pk_mem_free(cl); return -1; }
  memcpy(r->tmp, r->b.off, sizeof(uint64_t) * r->n); /* whole-cycle items keep their stack */
  /* where it would pass its cap, again on coarser time (the points in runs
   * of c, lifetimes widened to whole runs), c from how far past the cap it
   * was bound to go: the first sixteenth's rate is about 0.4 of the final
   * one, and work falls about as c^0.8; then c doubles. Cycle T=1000 long,
   * 30,000 items: 211 M units at 1.014 x LOAD; in runs of 2 / 4 / 8, 120 M /
   * 69 M / 37 M, 1.026 for 8; 100,000 items in runs of 8 1.022 */
  uint64_t M = SKYLINE_GAVE_UP, need = 0; /* stays 0 while it never gave up */
  for (uint32_t c = 1; c <= SKYLINE_COARSEST;) {
    pk_inst ci = r->in;
    if (c > 1 && (r->in.K / c < 16 || pk_skyline_coarse(&r->in, c, &ci, cs, cl))) break;
    M = pk_skyline_dive(&ci, r->bord, r->m, key, r->b.lo0, cap, &need, r->tmp);
    if (M != SKYLINE_GAVE_UP || need == UINT64_MAX) break; /* done, or too many points to start */
    /* from the finest, straight to where it should fit; then step by step */
    double f = c == 1 ? pow(2.5 * (double)need / (double)cap, 1.25) : 2;
    uint32_t k = 2;
    while (k < f && k < SKYLINE_COARSEST) k *= 2;
    c *= k;
  }
  pk_mem_free(key); pk_mem_free(cs); pk_mem_free(cl);
  if (M == UINT64_MAX) return -1;
  if (M == SKYLINE_GAVE_UP) return 0;
  int coarse = need != 0; /* it gave up at least once: on coarser time now */
  keep_if_lower(r, r->tmp);
  return coarse ? 2 : 1;
}

/* The sweep (O(n log n)), from SMALL_BITS_N items on: above LARGE_N the one
 * start that always runs, below it the incumbent the baselines stop at. */
static int quick_sweep(best_run *r) {
  if (!r->hint && r->n > SMALL_BITS_N) {
    /* above LARGE_N a cycle's cuts sweep with the lifetime-aware fit too;
     * below it the incumbent keeps plain best fit (the baselines decide) */
    int cuts = r->n > LARGE_N ? (int)(SWEEP_CUT_ITEMS / r->n) : 1;
    /* a cycle's skyline dive first: where it ends within its share, one cut
     * (it beats the sweeps by far there; the cut stays as insurance) */
    if (r->in.cyclic && r->n > LARGE_N) {
      int sk = quick_skyline(r);
      if (sk < 0) return -1;
      if (r->realBest <= r->reallb) return BEST_PROVED;
      if (sk) cuts = 1;
      /* done on coarser time and within 1/32 of LOAD: the sweeps stay out
       * (cycle T=1000 long, 36 seeds: they reach 1.028-1.055 where it got
       * 1.023-1.027, and the time is the dive's); short lifetimes widened
       * to whole runs can pack far worse (random_items' cycle at 100,000
       * items: 1.13), and there the sweep runs */
      if (sk == 2 && r->realBest - r->reallb <= r->reallb / 32) return BEST_ON;
    }
    /* above LARGE_N a line's sweeps (nearly all that runs) are peak sweeps
     * (pk_sweep_peak), SWEEP_RUN_ITEMS / n of them (1 to 3), the lowest
     * kept: the latest start lowest with the lifetime-aware fit, then with
     * plain best fit (it packs some long-lived lines better: line T=1000
     * long, 30,000 items 1.0115 against 1.0139), then the latest end lowest */
    static const int peak_stack[3] = {2, 2, 1}, peak_lt[3] = {1, 0, 1};
    int runs = 1, peak = r->n > LARGE_N && !r->in.cyclic;
    if (peak) {
      size_t k = SWEEP_RUN_ITEMS / r->n;
      runs = k < 1 ? 1 : k > 3 ? 3 : (int)k;
    }
    for (int q = 0; q < runs; q++) {
      int sr = peak ? pk_sweep_peak(&r->in, r->tmp, peak_stack[q], peak_lt[q])
                    : pk_sweep_cuts(&r->in, r->tmp, cuts, r->n > LARGE_N);
      if (sr < 0) return -1;
      if (sr) continue;
      keep_if_lower(r, r->tmp);
    }
    if (r->realBest <= r->reallb) return BEST_PROVED;
  }
  return BEST_ON;
}

/* The quick first fit itself (see best_quick). */
static int quick_ff(best_run *r) {
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
  /* above LARGE_N it gives up past the budget or FF_LARGE_WORK per item,
   * the later (first fit can be quadratic) */
  if (r->n > LARGE_N) {
    uint64_t now = pk_now(), allow = now + FF_LARGE_WORK * (uint64_t)r->n;
    b->stop = allow > r->deadline ? allow : r->deadline;
  }
  uint64_t ff = ff_from(b, 0);
  b->stop = 0;
  if (ff == UINT64_MAX) return BEST_ON;
  keep_if_lower(r, b->off);
  return r->realBest <= r->reallb ? BEST_PROVED : BEST_ON;
}


int best_quick(best_run *r) {
  /* the first fit goes first: a frame graph's history copies make its
   * bound, which the first fit reaches and the sweep mostly does not, so
   * the sweep runs only where the first fit left the call open; above
   * LARGE_N only where a clique weighs more than LOAD (history copies, the
   * structure it is made for; random items' rarely), within the budget:
   * bench_compile's 10,000 nodes reach their bound so again */
  if (r->n > LARGE_N && !(r->lb > r->eload)) return quick_sweep(r);
  int st = quick_ff(r);
  return st == BEST_ON ? quick_sweep(r) : st;
}

/* 2. Every baseline (real makespan decides; so best is never worse than
 * any of them), then, within the budget, thesis and scanline on the
 * time-reversed instance;
 * one that reaches a bound ends the call. Each stops as soon as what it
 * has placed reaches the incumbent: it could no longer beat it. Leaves the
 * best baseline's packing in boff (or out's, when the hint's replay or the
 * quick fit beat them all). */
int best_baselines(best_run *r) {
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
    else if (pk_now() > r->deadline) continue; /* extra starts only in budget */
    else {
      if (!r->have_rev && pk_reverse(in, &r->rev)) continue; /* made only for them */
      r->have_rev = 1;
      src = &r->rev;
      fn = f == nbase ? pk_thesis : pk_scanline;
    }
    in->cut = r->realBest == UINT64_MAX ? 0 : r->realBest;
    in->stop = r->n > LARGE_N ? r->deadline : 0;
    if (r->have_rev) { r->rev.cut = in->cut; r->rev.stop = in->stop; }
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
  in->cut = in->stop = 0;
  /* the start below: the best baseline, unless the hint's replay or the
   * quick fit beat them all */
  if (baseBest > r->realBest) memcpy(baseoff, r->out, sizeof(uint64_t) * n);
  /* past the deadline only the replay of the best baseline below runs */
  if (!r->ti && !r->bits && pk_now() < r->deadline) { /* the time index already confines the tests */
    r->bits = best_get_bits(in, &in->cwords, &r->bits_own);
    in->cbits = r->bits;
  }
  return BEST_ON;
}

/* 2. Starts: the best packing so far (in boff: the best baseline's, or a
 * dive's, or the tile's) as an order, then first fit over classic orders
 * (size, size x length, length, start, reversed end; above EXACT_MAX_N
 * items size x length alone); the best of them in bord/boff, its makespan
 * in bestM. Whole-cycle items are stacked at the bottom; a packing becomes
 * an order by sorting on offset, and first fit in that order never places
 * an item higher than it was, so starts only improve. */
int best_starts(best_run *r) {
  pk_inst *in = &r->in;
  bs *b = &r->b;
  size_t n = r->n, m = 0;
  const uint64_t *baseoff = r->boff; /* read by the first order only, before boff changes */
  for (int o = -1; o < 5 && r->bestM > r->lb; o++) {
    /* the best baseline's order replayed by first fit always runs (it
     * never places an item higher, so it only improves on the baseline),
     * unless the hint's replay stands in for it */
    if ((o >= 0 || r->have_hint || r->n > LARGE_N) && pk_now() > r->deadline) break;
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
  if (pk_now() >= r->deadline) { /* no time left to improve it (a re-plan, usually) */
    if (r->bestM != UINT64_MAX && pk_makespan(r->in0, r->boff) < r->realBest)
      memcpy(r->out, r->boff, sizeof(uint64_t) * n);
    return BEST_PROVED;
  }
  return BEST_ON;
}

/* 2b. A flat load (LOAD at every point: a perfect tiling's, never a frame
 * graph's), after the baselines (they run regardless of the budget, so
 * they come first and the budget stays kept): a packing at LOAD tiles
 * memory; pack_tile rebuilds the tiling's blocks and searches those, with
 * TILE_SHARE_NUM / TILE_SHARE_DEN of the time that is left: on such
 * instances nothing else comes near. Reaching LOAD ends the call;
 * else its packing (near LOAD: blocks are exact rectangles) is the
 * incumbent to beat. */
int best_tile(best_run *r) {
  uint64_t now = pk_now(), mk;
  if (now >= r->deadline || !flat_load(r)) return BEST_ON;
  if (pk_tile(&r->in, r->flatlb, now + (r->deadline - now) / TILE_SHARE_DEN * TILE_SHARE_NUM, r->tmp, &mk)) return -1;
  if (mk >= r->realBest) return BEST_ON;
  r->realBest = mk;
  memcpy(r->out, r->tmp, sizeof(uint64_t) * r->n);
  memcpy(r->boff, r->tmp, sizeof(uint64_t) * r->n); /* the start for the steps below */
  return mk <= r->reallb ? BEST_PROVED : BEST_ON;
}
