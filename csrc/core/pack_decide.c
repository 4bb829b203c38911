/* fg_pack's capacity mode: a decision, not a minimisation. A fixed heap
 * (the runtime's memory_budget, a console's pool, MiniMalloc's benchmark at
 * 1048576) asks "does it fit in C bytes, and where?", and an answer
 * "fits", "cannot fit" or "unknown" is worth more than a lower makespan
 * above C. The budget goes to settling that, cheapest first:
 *   1. bounds: LOAD above C, or on a cycle a set of pairwise-meeting items
 *      heavier than C (pack_bound.c), proves no packing fits, at once (the
 *      packing returned is best's at its default budget, as without C);
 *   2. one first fit by size: a generous C is settled there;
 *   3. best's steps (pack_best.c) with 1/DECIDE_BEST_DIV of the budget:
 *      dives, baselines, tiles and ruin and recreate find packings of the
 *      frame graphs' shapes (and may prove their packing minimal);
 *   4. the exact decision search (pack_search.c) at C itself with the rest,
 *      each preorder resuming where its last round stopped (no bisection:
 *      the question has one capacity). Exhausting it proves no packing fits.
 * Each step ends the call once the answer is known. With granularity the
 * searches see page-rounded sizes, so their "none" is no proof there. */
#include "pack_decide.h"
#include "pack_mem.h"
#include "pack_best.h"
#include "pack_bound.h"
#include "pack_greedy.h"
#include "pack_search.h"
#include "pack_sweep.h"
#include "pack_tune.h"
#include <stdlib.h>
#include <string.h>

/* Keeps cand in off when its real makespan is lower; returns off's. */
static uint64_t keep_lower(const pk_inst *in, uint64_t *off, uint64_t m, const uint64_t *cand) {
  uint64_t c = pk_makespan(in, cand);
  if (c >= m) return m;
  memcpy(off, cand, sizeof(uint64_t) * in->n);
  return c;
}

/* A "no" proved by a bound still returns a packing: best's with its default
 * budget (a fraction of a millisecond), the one a call without a capacity
 * would give, so a caller can say how much is needed. 0 or -1 on OOM. */
static int best_fill(const pk_inst *in, const fg_pack_desc *desc, uint64_t load, uint64_t *off, uint64_t m) {
  uint64_t *tmp = pk_mem_alloc(sizeof(uint64_t) * in->n);
  if (!tmp) return -1;
  fg_pack_desc d2 = *desc;
  d2.capacity = 0;
  d2.solver = NULL;
  d2.time_budget_ms = 0;
  pk_outcome oc = {0, load, in->cyclic, 0};
  int rc = pk_best(in, &d2, load, tmp, &oc);
  if (!rc) keep_lower(in, off, m, tmp);
  pk_mem_free(tmp);
  return rc;
}

int pk_decide(const pk_inst *in, const fg_pack_desc *desc, uint64_t load, uint64_t *off, pk_decision *dc) {
  size_t n = in->n;
  uint64_t cap = desc->capacity;
  /* pk_now: work unless the caller gave a time (fg_pack), so a decision
   * is the same on any machine; work_budget counts as nanoseconds there */
  double bms = desc->time_budget_ms > 0 ? desc->time_budget_ms
             : desc->work_budget ? (double)desc->work_budget / 1e6 : DECIDE_DEFAULT_BUDGET_MS;
  uint64_t t0 = pk_now(), deadline = t0 + (uint64_t)(bms * 1e6);
  memset(dc, 0, sizeof *dc);
  dc->bound = load;
  dc->bound_partial = in->cyclic;
  /* 2 first (any packing is needed, also for "no"): cheap, O(n log n + pairs
   * met); above LARGE_N items the pairs met are quadratic, the sweep is not */
  if ((n > LARGE_N ? pk_sweep(in, off) : pk_bysize(in, off)) < 0) return -1;
  uint64_t m = pk_makespan(in, off);
  if (load > cap) { dc->proved = 1; return best_fill(in, desc, load, off, m); } /* 1: LOAD */
  if (m <= cap) { dc->fits = dc->proved = 1; return 0; }
  if (in->cyclic) { /* 1: cliques (on a line every clique shares a point: LOAD) */
    uint64_t real = 0, w = pk_clique_greedy(in, &real);
    if (real > dc->bound) dc->bound = real;
    if (dc->bound <= cap && pk_clique_work(in) <= CLIQUE_MAX_WORK) {
      int exact = 0;
      real = 0;
      pk_clique_exact(in, w, t0 + (deadline - t0) / DECIDE_BEST_DIV, &real, &exact);
      if (real > dc->bound) dc->bound = real;
      dc->bound_partial = !exact || in->gran != 0;
    }
    if (dc->bound > cap) { dc->proved = 1; return best_fill(in, desc, load, off, m); }
  }
  uint64_t *tmp = pk_mem_alloc(sizeof(uint64_t) * n), *part = pk_mem_alloc(sizeof(uint64_t) * n);
  if (!tmp || !part) { pk_mem_free(tmp); pk_mem_free(part); return -1; }
  int rc = 0;
  /* 3: best's steps with a slice of the budget; its packing may beat cap */
  fg_pack_desc d2 = *desc;
  d2.capacity = 0;
  d2.solver = NULL;
  d2.time_budget_ms = desc->time_budget_ms > 0 ? bms / DECIDE_BEST_DIV : 0;
  d2.work_budget = desc->time_budget_ms > 0 ? 0 : (uint64_t)(bms * 1e6 / DECIDE_BEST_DIV);
  pk_outcome oc = {0, load, in->cyclic, 0};
  if (pk_best(in, &d2, load, tmp, &oc)) { rc = -1; goto out; }
  m = keep_lower(in, off, m, tmp);
  if (oc.bound > dc->bound) dc->bound = oc.bound;
  if (m <= cap) { dc->fits = dc->proved = 1; goto out; }
  if (oc.optimal && m == pk_makespan(in, tmp)) { /* best proved its packing, above cap, minimal */
    dc->optimal = dc->proved = 1;
    dc->bound = m;
    goto out;
  }
  /* 4: the exact decision at cap (its lists take 8 n^2 bytes: not above PS_MAX_N) */
  uint64_t now = pk_now();
  if (n > PS_MAX_N || now >= deadline) goto out;
  int have_part = 0;
  int r = pk_search_decide_at(in, cap, deadline, tmp, part, &have_part);
  if (r < 0) { rc = -1; goto out; }
  if (r == PS_FOUND) m = keep_lower(in, off, m, tmp);
  else if (have_part) m = keep_lower(in, off, m, part);
  if (m <= cap) dc->fits = dc->proved = 1;
  else if (r == PS_NONE && !in->gran) { /* exhausted: nothing fits within cap (real sizes) */
    dc->proved = 1;
    if (cap + 1 > dc->bound) dc->bound = cap + 1;
  }
out:
  pk_mem_free(tmp); pk_mem_free(part);
  return rc;
}
