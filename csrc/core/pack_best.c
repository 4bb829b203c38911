/* best: our CDSA solver, the default strategy. This file is its
 * orchestrator: pk_best sets a call up and runs the steps below in this
 * order, each described next to its code. Every step ends the call as soon
 * as a packing reaches a lower bound (LOAD; on cycles the heaviest set of
 * pairwise-meeting items, which can exceed LOAD: pack_bound.c), which
 * proves it optimal; the time and node budgets end it too. The budget
 * covers the whole call, but until a bound is reached every baseline runs
 * regardless of it (best must never lose to them) up to LARGE_N items;
 * above, only the sweep (pack_sweep.c, O(n log n)) does, and the baselines
 * give up past the budget. The budget is work unless the caller gave a
 * time (pk_now, pack_inst.h): the same items, the same packing anywhere.
 * Tuned constants, with a line of why each: pack_tune.h.
 *
 * Placement (pack_place.c): items already placed are kept sorted by offset;
 * first fit walks them upward, skipping those whose lifetimes do not meet
 * (conflict bits on small instances or once there is time to search; on
 * large ones a time index visits only the items near in time), and stops
 * at the first gap that fits.
 *
 *   0.  best_warm       a re-plan: the hint's packing replayed      pack_best_start.c
 *   1.  best_quick      the sweeps (from 512 items; peak sweeps on  pack_best_start.c
 *                       lines above LARGE_N); a quick first fit
 *   1b. best_dives      canonical dives: the incumbent              pack_dive.c
 *   1c. best_bound      the exact clique bound                      pack_best_start.c
 *   2.  best_baselines  every baseline, never worse than any        pack_best_start.c
 *   2c. best_dives      more dives (above EXACT_MAX_N items)        pack_dive.c
 *   2b. best_tile       a flat load: pack_tile's blocks             pack_best_start.c
 *   2a. best_lineize    a cycle cut into a line where none crosses  pack_best_start.c
 *   2.  best_starts     first fit over the best's and classic orders pack_best_start.c
 *   3.  best_ruin       ruin and recreate around the peak           pack_best_improve.c
 *                       (before and after it, once: best_align_clique, the clique
 *                       bound with alignment, where the incumbent is bytes above
 *                       the bound)                                 pack_best_start.c
 *   4.  best_exact      exact branch and bound (up to EXACT_MAX_N)  pack_best_improve.c
 *   5.  best_search     the decision search by bisection            pack_best_improve.c
 *
 * What several steps share (conflict bits, flat load, whether dives run)
 * sits below them all in pack_best_util.c.
 */
#include "pack_best_int.h"
#include "pack_mem.h"
#include "pack_bound.h"
#include "pack_sort.h"
#include <stdlib.h>
#include <string.h>

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
  /* under the work clock (pk_now) the default budget is the same number
   * of work units, about nanoseconds where it was calibrated */
  uint64_t budget_ns = desc->time_budget_ms > 0 || !desc->work_budget ? (uint64_t)(bms * 1e6) : desc->work_budget;
  r->nodes = desc->node_budget ? desc->node_budget : DEFAULT_NODES;
  uint64_t t_start = pk_now();
  r->deadline = t_start + budget_ns;
  /* effective sizes: what first fit can reach (the real ones without granularity) */
  r->lb = r->eload = in->gran ? pk_profile(in, NULL, 0) : load;
  r->reallb = r->flatlb = load;
  r->lb_partial = in->cyclic;
  r->fcut = -1;

  bs *b = &r->b;
  b->in = in;
  b->rng = desc->seed ? desc->seed : 0x5EEDull;
  b->ord = pk_mem_alloc(sizeof(size_t) * n);
  b->pos = pk_mem_alloc(sizeof(uint32_t) * n);
  b->off = pk_mem_alloc(sizeof(uint64_t) * n);
  b->pre = pk_mem_calloc(n + 1, sizeof(uint64_t));
  b->kv = pk_mem_alloc(sizeof(pk_kv) * n);
  r->bord = pk_mem_alloc(sizeof(size_t) * n);
  r->boff = pk_mem_alloc(sizeof(uint64_t) * n);
  r->tmp = pk_mem_alloc(sizeof(uint64_t) * n);
  r->sord = pk_mem_alloc(sizeof(size_t) * n);
  r->soff = pk_mem_alloc(sizeof(uint64_t) * n);
  r->kv = pk_mem_alloc(sizeof(pk_kv) * n);
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
    r->bits = best_get_bits(in, &in->cwords, &r->bits_own);
    in->cbits = r->bits;
  }
  /* the baselines' size orders, once */
  r->srank = pk_mem_alloc(sizeof(uint32_t) * n);
  if (!r->srank || !(in->nsrank = pk_size_rank(in, r->srank))) return -1;
  in->srank = r->srank;
  if (pk_pl_init(&b->pl, in)) return -1;
  if (r->ti) b->pl.tix = &r->tix;
  /* the cheap bounds now; the exact clique after the dives (best_bound),
   * or on a re-plan after its drop (best_warm) */
  r->cheaplb = r->reallb;
  if (in->cyclic) best_clique_greedy(r);
  /* alignment at a point (pk_align_bound): a few bytes above LOAD, where
   * small instances end at their optimum and only this proves it; real
   * bytes only (the searches keep lb, their effective target) */
  uint64_t ab = pk_align_bound(in, r->reallb);
  if (ab > r->reallb) r->cheaplb = r->reallb = ab;

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
  pk_mem_free(r->bits_own); pk_mem_free(r->srank);
  pk_pl_free(&b->pl);
  pk_mem_free(b->kv); pk_mem_free(b->ord); pk_mem_free(b->pos); pk_mem_free(b->off); pk_mem_free(b->pre);
  pk_mem_free(r->bord); pk_mem_free(r->boff); pk_mem_free(r->tmp); pk_mem_free(r->sord); pk_mem_free(r->soff); pk_mem_free(r->kv);
  if (r->have_lin) pk_free(&r->lin);
  pk_mem_free(r->litems);
  pk_mem_free(r->dv_t);
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
  if (st == BEST_ON) st = best_align_clique(&r);
  if (st == BEST_ON) st = best_ruin(&r);
  if (st == BEST_ON) st = best_align_clique(&r);
  /* a small instance: the exact search first (it proves small instances at
   * once), then the decision search with what is left; above EXACT_FIRST_N
   * the decision search first, the exact search after it */
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
