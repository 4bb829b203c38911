/* best's improvement steps (3-5 of pack_best.c): ruin and recreate around
 * the peak, the exact branch and bound of small instances, and the
 * decision search (pack_search.c) by bisection below the incumbent, with
 * the time the steps before them left. Their shares: pack_tune.h. */
#include "pack_best_int.h"
#include "pack_mem.h"
#include "pack_search.h"
#include "pack_sort.h"
#include <stdlib.h>
#include <string.h>

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
  pk_charge(4 * (uint64_t)s->n); /* the work clock: a node's scans (its placements charge too) */
  if (++s->nodes > s->max_nodes || pk_now() > s->deadline) { /* nodes cost O(n^2): check each */
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
  s.off = pk_mem_calloc(n, sizeof(uint64_t));
  s.best = pk_mem_alloc(sizeof(uint64_t) * n);
  s.rem = pk_mem_calloc(in->K, sizeof(uint64_t));
  s.placed = pk_mem_calloc(n, 1);
  s.twin = pk_mem_alloc(sizeof(int32_t) * n);
  int pi = pk_pl_init(&s.pl, in);
  s.kvs = n <= 4096 ? pk_mem_alloc(sizeof(pk_kv) * n * n) : NULL;
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
  pk_mem_free(s.off); pk_mem_free(s.best); pk_mem_free(s.rem); pk_mem_free(s.placed); pk_mem_free(s.twin); pk_mem_free(s.kvs);
  pk_pl_free(&s.pl);
  return rc;
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
  int32_t *d = pk_mem_calloc((size_t)K + 1, sizeof(int32_t));
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
  pk_mem_free(d);
  return line;
}

/* The decision search's set-up alone takes a few n^2 ns (neighbour lists,
 * per-depth lists): with less time left it would only overrun the budget. */
static uint64_t search_min_ns(size_t n) { return SEARCH_MIN_PAIR_NS * (uint64_t)n * n; }

/* 3. Ruin and recreate around the peak (ruin_step) from the best start,
 * with late acceptance: an item at the makespan and the items meeting it
 * within a band below the top are removed and put back by first/best fit
 * in a shuffled size order; keep every move unless the makespan grows (or,
 * at equal makespan, more bytes stick out above LOAD). */
int best_ruin(best_run *r) {
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
  z.ruined = pk_mem_calloc(n, 1);
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
  uint64_t now = pk_now(), rr_deadline = now, deadline = r->deadline;
  /* pack_search: this loop keeps 1 / RUIN_LINE_DIV on lines (none under
   * LINE_RUIN_MIN_NS; lines include cycles that are lines above a
   * whole-cycle stack, is_line): the decision search solves perfect-fit
   * instances this loop stalls on (up to EXACT_MAX_N items after the exact
   * search's share). On other cycles this loop does better at short budgets
   * and its gains come early: it keeps 1 / RUIN_SMALL_DIV up to EXACT_MAX_N
   * items, else 1 / RUIN_CYCLE_DIV where RUIN_CYCLE_PAIR_NS allows, and the
   * search gets what it leaves (also once it runs out of patience) */
  int line = r->line = is_line(in);
  /* a line keeps it all where the search would get too little to pay off
   * (under LINE_SEARCH_MIN_PAIR_NS n^2 ns) */
  if (line && now < deadline && deadline - now < LINE_SEARCH_MIN_PAIR_NS * (uint64_t)n * n) line = 0;
  uint64_t rest = now < deadline ? deadline - now : 0;
  uint64_t cyc = rest >= RUIN_CYCLE_PAIR_NS * (uint64_t)n * n ? rest / RUIN_CYCLE_DIV : rest;
  rr_deadline = now + (line ? (rest < LINE_RUIN_MIN_NS ? 0 : rest / RUIN_LINE_DIV) : n <= EXACT_MAX_N ? rest / RUIN_SMALL_DIV : cyc);
  /* the search's time is worth more once this loop stalls:
   * it stops after as many fruitless iterations as it took to its last
   * gain (at least RUIN_LINE_STALL) */
  /* stop once the best (not the wandering current) reaches a bound, in
   * effective sizes or in real bytes: nothing can beat it */
  z.at_bound = r->bestM <= r->lb || pk_makespan(r->in0, r->boff) <= r->reallb;
  /* Stagnation stop: where the optimum lies above every bound (small cyclic
   * instances) this loop cannot prove anything and would burn its whole share
   * of the budget; the exact search below settles those in microseconds. */
  uint64_t patience = RUIN_PATIENCE + RUIN_PATIENCE_PER_ITEM * (uint64_t)m;
  while (m > 1 && !z.at_bound && z.iter < r->nodes && z.iter - z.last_gain < patience &&
         (!line || z.iter - z.last_gain < (z.last_gain > RUIN_LINE_STALL ? z.last_gain : RUIN_LINE_STALL))) {
    if (pk_now() > rr_deadline) break; /* a step costs microseconds, a reading tens of ns */
    z.iter++;
    pk_charge(8 * m); /* the work clock: a step's passes over the list (its placements charge too) */
    if (ruin_step(r, &z)) break;
  }
  pk_mem_free(z.ruined);
  if (z.saved) pk_pl_save_free(&z.sv);
  if (r->bestM != UINT64_MAX && pk_makespan(r->in0, r->boff) < r->realBest)
    memcpy(r->out, r->boff, sizeof(uint64_t) * n);
  return BEST_ON;
}

/* 5. The decision search (pack_search.c, exact on lines and cycles) by
 * bisection below the incumbent, from the lower bound up, with the time
 * that is left (up to EXACT_MAX_N items after the exact search). */
int best_search(best_run *r, int *optimal) {
  size_t n = r->n;
  uint64_t now = pk_now(), deadline = r->deadline;
  if (now >= deadline || deadline - now < search_min_ns(n)) return BEST_ON;
  int sp_proved = 0;
  memcpy(r->tmp, r->out, sizeof(uint64_t) * n);
  /* it overruns the deadline it is given by about its last set-up and the
   * completion of its deepest partial packing: it gets it that much early
   * (SEARCH_EARLY_PAIR_NS n^2 ns) */
  deadline -= SEARCH_EARLY_PAIR_NS * (uint64_t)n * n;
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

/* 4. Exact branch and bound (exact above) below the incumbent with the
 * time that is left (1 / EXACT_SHARE_DIV of it with half set: on a small
 * instance the decision search follows). Finishing it proves optimality. */
int best_exact(best_run *r, int *optimal, int half) {
  const pk_inst *in = &r->in;
  size_t n = r->n;
  uint64_t inc = 0;
  for (size_t i = 0; i < n; i++)
    if (r->out[i] + in->size[i] > inc) inc = r->out[i] + in->size[i];
  int improved = 0;
  /* above ~64 items one node costs O(n^2) and the tree is hopeless in a
   * few milliseconds: the search is kept for instances it can finish */
  uint64_t now = pk_now(), dl = half && now < r->deadline ? now + (r->deadline - now) / EXACT_SHARE_DIV : r->deadline;
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
