/* Stage SCHEDULE (opts.schedule = "memory"): a node-instance order that needs
 * less memory than the declared one.
 *
 * Packing can at best reach the peak of live bytes (LOAD) of the order the
 * instances run in, so the order is chosen first:
 *   constraints: the expanded edges (create -> modify -> read -> rename,
 *                after/before, history reads), plus, per physical copy, the
 *                declared relative order of two uses where one writes (the
 *                compiler leaves two modifiers of a name unordered; their
 *                order changes the result), plus the declared order of
 *                side-effect nodes
 *   orders:      list schedulers driven by live bytes (pick the ready
 *                instance that allocates least minus frees most), with three
 *                tie-breaks (declared slot; same multiplex index as the last
 *                one; the most recently readied); each is scored by its LOAD
 *                over one frame, heap by heap, history copies included
 *   local search: from the best of them, moves of one instance within its
 *                constraints aimed at the LOAD peak (a work budget worth the
 *                packer's time budget, deterministic)
 *   bounds:      history copies that live over a frame meet pairwise on
 *                the two-frame cycle, whatever the order: where their sizes
 *                reach the declared heap nothing is searched; where the best
 *                order's LOAD or long-arc clique does, it is not packed
 *   decision:    the declared order is packed first (a trial packing on
 *                candidate arrays: graph_arcs, graph_pack_order into
 *                ir.pk[0]); when the best LOAD beats it, the best order is
 *                packed the same way (ir.pk[1]) and kept only when its heap
 *                is smaller (declared wins ties). The plan is never touched:
 *                the stage's output is the order (ir.order, ir.slot_of) and
 *                which trial packing PACK adopts (ir.kept).
 * Runs after SIZE (it needs the sizes and heaps), before LIFETIMES and
 * PACK; a set_resolution re-plan keeps the order it finds. Its working
 * arrays come from the compile's arena (released when the stage returns). */
#include "graph_schedule.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* arena arrays of n elements of T (NULL when out of memory) */
#define NEW(S, T, n) ((T *)arena_alloc((S)->g, (size_t)(n) * sizeof(T)))

static int is_write(fg_access a) { return a == FG_ACCESS_CREATE || a == FG_ACCESS_MODIFY || a == FG_ACCESS_RENAME; }

/* touches per instance, deduplicated (a renamed resource may appear twice) */
static int build_touches(sched *S) {
  fg_graph *g = S->g;
  uint32_t V = S->V, total = 0;
  for (uint32_t s = 0; s < V; s++) total += g->ir.inst.a[s].use_count;
  S->ts = NEW(S, uint32_t, V + 1);
  S->tr = NEW(S, uint32_t, total + 1);
  S->th = NEW(S, uint8_t, total + 1);
  if (!S->ts || !S->tr || !S->th) return -1;
  uint32_t k = 0;
  for (uint32_t s = 0; s < V; s++) {
    const ir_inst *in = &g->ir.inst.a[s];
    S->ts[s] = k;
    for (uint32_t u = 0; u < in->use_count; u++) {
      const ir_use *us = &g->ir.use.a[in->use_first + u];
      if (us->logical == NONE) continue;
      uint8_t h = us->access == FG_ACCESS_HISTORY;
      uint32_t r = use_phys(g, us, 0) & ~1u;  /* the frame-0 copy (ids are base + 2 m + frame, base even) */
      int dup = 0;
      for (uint32_t q = S->ts[s]; q < k && !dup; q++) dup = S->tr[q] == r && S->th[q] == h;
      if (dup) continue;
      S->tr[k] = r;
      S->th[k++] = h;
    }
  }
  S->ts[V] = k;
  return 0;
}

static int build_resources(sched *S) {
  fg_graph *g = S->g;
  uint32_t NP = S->NP;
  S->size = NEW(S, uint64_t, NP + 1);
  S->heap = NEW(S, uint32_t, NP + 1);
  S->nn = NEW(S, uint32_t, NP + 1);
  S->nh = NEW(S, uint32_t, NP + 1);
  S->keep = NEW(S, uint8_t, NP + 1);
  if (!S->size || !S->heap || !S->nn || !S->nh || !S->keep) return -1;
  memset(S->nn, 0, (NP + 1) * sizeof(uint32_t));
  memset(S->nh, 0, (NP + 1) * sizeof(uint32_t));
  for (uint32_t r = 0; r < NP; r++) {
    const ir_res *R = &g->ir.res.a[r];
    int packed = R->heap != NONE;  /* SIZE gives heaps to textures and buffers only */
    S->size[r] = packed ? R->size : 0;
    S->heap[r] = packed ? R->heap : 0;
    S->keep[r] = (uint8_t)g->logicals.a[R->logical].is_output;
  }
  for (uint32_t q = 0; q < S->ts[S->V]; q++) {
    if (S->th[q]) { S->nh[S->tr[q]]++; S->keep[S->tr[q]] = 1; }
    else S->nn[S->tr[q]]++;
  }
  uint32_t nt = S->ts[S->V];
  S->rs = NEW(S, uint32_t, NP + 2);
  S->ri = NEW(S, uint32_t, nt + 1);
  S->rh = NEW(S, uint8_t, nt + 1);
  if (!S->rs || !S->ri || !S->rh) return -1;
  memset(S->rs, 0, (NP + 2) * sizeof(uint32_t));
  for (uint32_t q = 0; q < nt; q++) S->rs[S->tr[q] + 2]++;
  for (uint32_t r = 0; r < NP; r++) S->rs[r + 2] += S->rs[r + 1];
  for (uint32_t s = 0; s < S->V; s++)  /* rs[r + 1] runs as the fill cursor, ending at r's end */
    for (uint32_t q = S->ts[s]; q < S->ts[s + 1]; q++) {
      uint32_t k = S->rs[S->tr[q] + 1]++;
      S->ri[k] = s;
      S->rh[k] = S->th[q];
    }
  return 0;
}

/* the expanded edges, hazards per resource copy, side-effect order */
static int build_constraints(sched *S) {
  fg_graph *g = S->g;
  uint32_t V = S->V, NP = S->NP;
  struct { uint32_t *a, n; } e = {NULL, 0};  /* edge pairs, in the arena (bound below) */
  int rc = -1;
  uint32_t *rs = NULL, *rl = NULL, *fill = NULL;
#define EPUSH(x, y) (e.a[e.n++] = (x), e.a[e.n++] = (y))
  /* per resource copy, its normal users in declared order, with their access */
  rs = NEW(S, uint32_t, NP + 2);
  fill = NEW(S, uint32_t, (NP > V ? NP : V) + 2);  /* per resource, then per instance */
  if (!rs || !fill) goto out;
  memset(rs, 0, (NP + 2) * sizeof(uint32_t));
  uint32_t total = 0;
  for (uint32_t s = 0; s < V; s++) {
    const ir_inst *in = &g->ir.inst.a[s];
    for (uint32_t u = 0; u < in->use_count; u++) {
      const ir_use *us = &g->ir.use.a[in->use_first + u];
      if (us->logical != NONE && us->access != FG_ACCESS_HISTORY) { rs[use_phys(g, us, 0) + 1]++; total++; }
    }
  }
  for (uint32_t r = 0; r < NP; r++) rs[r + 1] += rs[r];
  memcpy(fill, rs, (NP + 1) * sizeof(uint32_t));
  rl = NEW(S, uint32_t, 2 * total + 1);  /* (slot, write) pairs */
  /* per copy, a write joins the last write and the reads since (each read
   * once), a read the last write: at most 2 pairs per use; plus the side
   * effects' chain */
  e.a = NEW(S, uint32_t, g->ir.edges.n + 2 * (2 * (size_t)total + V) + 1);
  if (!rl || !e.a) goto out;
  for (uint32_t i = 0; i < g->ir.edges.n; i++) e.a[e.n++] = g->ir.edges.a[i];
  for (uint32_t s = 0; s < V; s++) {
    const ir_inst *in = &g->ir.inst.a[s];
    for (uint32_t u = 0; u < in->use_count; u++) {
      const ir_use *us = &g->ir.use.a[in->use_first + u];
      if (us->logical == NONE || us->access == FG_ACCESS_HISTORY) continue;
      uint32_t q = fill[use_phys(g, us, 0)]++;
      rl[2 * q] = s;
      rl[2 * q + 1] = (uint32_t)is_write((fg_access)us->access);
    }
  }
  for (uint32_t r = 0; r < NP; r++) {
    uint32_t lastw = NONE, since = rs[r];  /* readers since the last write: rl[since .. q) */
    for (uint32_t q = rs[r]; q < rs[r + 1]; q++) {
      uint32_t s = rl[2 * q];
      if (rl[2 * q + 1]) {
        if (lastw != NONE && lastw != s) EPUSH(lastw, s);
        for (uint32_t p = since; p < q; p++)
          if (rl[2 * p] != s) EPUSH(rl[2 * p], s);
        lastw = s;
        since = q + 1;
      } else if (lastw != NONE && lastw != s) {
        EPUSH(lastw, s);
      }
    }
  }
  uint32_t prev = NONE;
  for (uint32_t s = 0; s < V; s++) {
    if (!g->nodes.a[g->ir.inst.a[s].node].side_effects) continue;
    if (prev != NONE) EPUSH(prev, s);
    prev = s;
  }
  /* CSR of successors */
  uint32_t ne = e.n / 2;
  S->ss = NEW(S, uint32_t, V + 2);
  S->sl = NEW(S, uint32_t, ne + 1);
  S->indeg = NEW(S, uint32_t, V + 1);
  if (!S->ss || !S->sl || !S->indeg) goto out;
  memset(S->ss, 0, (V + 2) * sizeof(uint32_t));
  memset(S->indeg, 0, (V + 1) * sizeof(uint32_t));
  for (uint32_t i = 0; i < ne; i++) { S->ss[e.a[2 * i] + 1]++; S->indeg[e.a[2 * i + 1]]++; }
  for (uint32_t s = 0; s < V; s++) S->ss[s + 1] += S->ss[s];
  memcpy(fill, S->ss, (V + 1) * sizeof(uint32_t));
  for (uint32_t i = 0; i < ne; i++) S->sl[fill[e.a[2 * i]]++] = e.a[2 * i + 1];
  S->ps = NEW(S, uint32_t, V + 2);
  S->pl = NEW(S, uint32_t, ne + 1);
  if (!S->ps || !S->pl) goto out;
  memset(S->ps, 0, (V + 2) * sizeof(uint32_t));
  for (uint32_t i = 0; i < ne; i++) S->ps[e.a[2 * i + 1] + 1]++;
  for (uint32_t s = 0; s < V; s++) S->ps[s + 1] += S->ps[s];
  memcpy(fill, S->ps, (V + 1) * sizeof(uint32_t));
  for (uint32_t i = 0; i < ne; i++) S->pl[fill[e.a[2 * i + 1]]++] = e.a[2 * i];
  rc = 0;
out:
#undef EPUSH
  return rc;
}

/* ------------------------------------------------------ lower bounds -- */
/* The packer works on the cyclic timeline of two frames (K = 2V): a copy of
 * resource r lives from its first user in its frame to its last user, or to
 * its last history reader in the next frame (graph_lifetime.c). Two arcs
 * whose lengths sum past K always meet, so the arcs longer than V (history
 * copies) meet pairwise, and so does any other arc long enough to meet the
 * shortest of them: the sizes of such a clique bound the heap from below
 * whatever the offsets. These bounds decide, before any packing, that an
 * order cannot beat the declared heap, so the work is skipped, not changed. */

/* A bound for every order: a history copy whose history reader also uses
 * the resource normally lives at least V + 1 slots in any order (its
 * history read comes no earlier than its first use). Per heap, both copies
 * of each; summed over heaps (each heap packs apart). */
static uint64_t any_order_bound(sched *S) {
  uint64_t total = 0;
  uint8_t *seen = S->started;  /* scratch, NP */
  memset(seen, 0, S->NP + 1);
  for (uint32_t s = 0; s < S->V; s++)
    for (uint32_t q = S->ts[s]; q < S->ts[s + 1]; q++) {
      uint32_t r = S->tr[q];
      if (!S->th[q] || !S->size[r] || seen[r]) continue;
      int normal = 0;
      for (uint32_t k = S->ts[s]; k < S->ts[s + 1] && !normal; k++) normal = S->tr[k] == r && !S->th[k];
      if (normal) { seen[r] = 1; total += 2 * S->size[r]; }
    }
  return total;
}

/* The bound of the order with positions pos[]: per heap, the larger of its
 * LOAD and the clique of its long arcs; summed. */
static uint64_t order_bound(sched *S, const uint32_t *pos) {
  uint32_t V = S->V, NP = S->NP, H = S->H;
  sched_load(S, pos);
  const uint32_t *first = S->rem, *last = S->remh, *lasth = S->stamp;
  uint64_t *sum = S->hload + H, *minlen = S->hload + 2 * H, *extra = S->hload + 3 * H;
  for (uint32_t h = 0; h < H; h++) { sum[h] = 0; minlen[h] = UINT64_MAX; extra[h] = 0; }
  for (int pass = 0; pass < 2; pass++)
    for (uint32_t r = 0; r < NP; r += 2) {
      if (!S->size[r]) continue;
      uint32_t f = first[r] == NONE ? 0 : first[r], h = S->heap[r];
      uint64_t len = lasth[r] != NONE ? (uint64_t)V + lasth[r] + 1 - f
                   : S->g->logicals.a[S->g->ir.res.a[r].logical].is_output ? (uint64_t)V - f : (uint64_t)last[r] + 1 - f;
      if (len > V) {
        if (!pass) { sum[h] += 2 * S->size[r]; if (len < minlen[h]) minlen[h] = len; }
      } else if (pass && minlen[h] != UINT64_MAX && len + minlen[h] > 2 * (uint64_t)V && S->size[r] > extra[h])
        extra[h] = S->size[r];  /* one arc of at most V meets them all (its twin cannot meet it too) */
    }
  uint64_t total = 0;
  for (uint32_t h = 0; h < H; h++) {
    uint64_t c = sum[h] + extra[h];
    total += c > S->hload[h] ? c : S->hload[h];
  }
  return total;
}

/* ---------------------------------------------------------- the stage -- */
static void swap_caches(fg_graph *g) {
  cache_vec t = g->pcache;
  g->pcache = g->pcache_alt;
  g->pcache_alt = t;
}

/* the trial packing of the order with positions pos (NULL: declared) into P */
static int trial(fg_graph *g, const uint32_t *pos, graph_packing *P, cache_vec *caches) {
  uint32_t NP = g->ir.res.n;
  arena_mark m = arena_checkpoint(g);
  uint32_t *start = arena_alloc(g, (NP + 1) * sizeof(uint32_t)), *stop = arena_alloc(g, (NP + 1) * sizeof(uint32_t));
  int rc = -1;
  if (!start || !stop || graph_arcs(g, pos, start, stop)) graph_problem(g, "out of memory");
  else rc = graph_pack_order(g, start, stop, P, caches);
  arena_release(g, m);
  return rc;
}

/* the order searched from the declared one; 1 with it in best[] when its
 * LOAD beats the declared order's, 0 when none does, -1 out of memory */
static int search_order(sched *S, uint32_t *best) {
  fg_graph *g = S->g;
  uint32_t V = S->V, NP = S->NP;
  int best_order_ok = 0;
  if (build_constraints(S)) return -1;
  S->rem = NEW(S, uint32_t, NP + V + 1);
  S->remh = NEW(S, uint32_t, NP + V + 1);
  S->stamp = NEW(S, uint32_t, NP + V + 1);
  S->inready = NEW(S, uint8_t, V + 1);
  S->ver = NEW(S, uint32_t, V + 1);
  S->hcap = 2 * V + 16;
  S->hp = NEW(S, hent, S->hcap);
  S->grp = NEW(S, hent, V + 1);
  S->dval = NEW(S, int64_t, V + 1);
  S->ready = NEW(S, uint32_t, V + 1);
  S->order = NEW(S, uint32_t, V + 1);
  S->pos = NEW(S, uint32_t, V + 1);
  S->diff = NEW(S, int64_t, (size_t)S->H * (V + 1));
  S->hload = NEW(S, uint64_t, 4 * (size_t)S->H);
  if (!S->rem || !S->remh || !S->stamp || !S->inready || !S->ver || !S->hp || !S->grp || !S->dval || !S->ready ||
      !S->order || !S->pos || !S->diff || !S->hload)
    return -1;
  for (uint32_t s = 0; s < V; s++) S->pos[s] = s;
  uint64_t best_load = sched_load(S, S->pos);
  for (int tie = 0; tie < NTIES; tie++) {
    uint32_t got = sched_list(S, tie);
    if (got != V) continue;
    for (uint32_t k = 0; k < V; k++) S->pos[S->order[k]] = k;
    uint64_t l = sched_load(S, S->pos);
    if (l < best_load) {
      best_load = l;
      memcpy(best, S->order, V * sizeof(uint32_t));
      best_order_ok = 1;
    }
  }
  /* local search from the best order found, within the packer's budget */
  double ms = g->cdesc.pack_time_budget_ms > 0 ? g->cdesc.pack_time_budget_ms : 0.5;
  uint64_t work = (uint64_t)(ms * WORK_PER_MS), l = 0;
  if (!best_order_ok) for (uint32_t s = 0; s < V; s++) best[s] = s;
  if (sched_search(S, best, work, &l)) return -1;
  if (l < best_load) best_order_ok = 1;
  return best_order_ok;
}

int graph_schedule(fg_graph *g, graph_names *c) {
  (void)c;
  uint32_t V = g->ir.inst.n;
  graph_irs *ir = &g->ir;
  ir->pk[0].done = ir->pk[1].done = 0;
  if (g->replan) return 0;  /* a re-plan keeps the order (and the stats of its choice) */
  fg_schedule asked = g->cdesc.schedule == FG_SCHEDULE_DEFAULT ? FG_SCHEDULE_MEMORY : g->cdesc.schedule;
  if (vec_grow(&g->h, (void **)&ir->order.a, &ir->order.cap, V + 1, sizeof(uint32_t)) ||
      vec_grow(&g->h, (void **)&ir->slot_of.a, &ir->slot_of.cap, V + 1, sizeof(uint32_t)))
    goto oom;
  ir->order.n = ir->slot_of.n = V;
  for (uint32_t s = 0; s < V; s++) ir->order.a[s] = ir->slot_of.a[s] = s;
  ir->kept = 0;
  g->stats.schedule = FG_SCHEDULE_DECLARED;
  g->stats.schedule_asked = asked;
  g->stats.moved = 0;
  g->stats.heap_bound = g->stats.heap_bound_memory = 0;
  /* PACK packs the declared order when nothing is tried here */
  /* async compute keeps the declared order: this cost model knows one queue
   * (and PACK then packs the lifetimes LIFETIMES widens for the async passes) */
  if (asked != FG_SCHEDULE_MEMORY || V < 3 || !ir->nheaps || graph_async_instances(g)) return 0;

  /* the declared order's packing: what any other order has to beat */
  if (trial(g, NULL, &ir->pk[0], &g->pcache)) return -1;
  uint64_t heap_decl = ir->pk[0].heap_bytes;
  /* the packing of the declared order is PACK's time, whichever order stays
   * (as the memory order's packing is this stage's) */
  g->stats.ns_pack += ir->pk[0].ns;
  g->stats.ns_schedule -= ir->pk[0].ns;
  sched S;
  memset(&S, 0, sizeof S);
  S.g = g;
  S.V = V;
  S.NP = ir->res.n;
  S.H = ir->nheaps;
  S.started = NEW(&S, uint8_t, S.NP + 1);
  uint32_t *best = NEW(&S, uint32_t, V + 1);
  if (!S.started || !best || build_touches(&S) || build_resources(&S)) goto oom;
  /* no order can pack below the history copies' clique: nothing to win */
  g->stats.heap_bound = any_order_bound(&S);
  if (g->stats.heap_bound >= heap_decl) return 0;
  int found = search_order(&S, best);
  if (found < 0) goto oom;
  if (!found) return 0;  /* the declared order's LOAD is already the best found */
  for (uint32_t k = 0; k < V; k++) S.pos[best[k]] = k;
  g->stats.heap_bound_memory = order_bound(&S, S.pos);
  if (g->stats.heap_bound_memory >= heap_decl) return 0;  /* its packing cannot be smaller */
  /* the memory order's trial packing, with its own memo */
  if (trial(g, S.pos, &ir->pk[1], &g->pcache_alt)) return -1;
  if (ir->pk[1].heap_bytes >= heap_decl) return 0;  /* the declared order packs as well: keep it */
  swap_caches(g);
  ir->kept = 1;
  for (uint32_t k = 0; k < V; k++) {
    ir->order.a[k] = best[k];
    ir->slot_of.a[best[k]] = k;
    g->stats.moved += best[k] != k;
  }
  g->stats.schedule = FG_SCHEDULE_MEMORY;
  g->stats.heap_declared = heap_decl;
  g->stats.load_declared = ir->pk[0].load_bytes;
  return 0;
oom:
  graph_problem(g, "out of memory");
  return -1;
}
