/* Stage PACK: offsets for the physical resources, one fg_pack problem per
 * heap (one memory-type value each, numbered by SIZE), on the lifetimes of
 * the order SCHEDULE chose. When SCHEDULE already packed that order (its
 * trial packing of the declared or the memory order), the stage adopts that
 * packing instead of packing it again. set_resolution's re-plan packs the
 * same items with new sizes, the previous offsets as the packer's warm start.
 * graph_pack_order is the one packing routine: SCHEDULE's trials run it on
 * candidate packings, PACK on the plan's. */
#include "graph_ir.h"
#include <stdio.h>
#include <string.h>

/* pack_capacity: the plan packed above it is packed again as a decision at
 * it (fg_pack's capacity mode, the budget going to fitting it); the lower
 * packing is kept when that one does not fit either. -1 with a problem on
 * OOM or a packer error. */
static int pack_decide(fg_graph *g, fg_pack_desc *pd, fg_pack_result *res, char *perr, size_t errlen) {
  uint32_t n = g->items.n;
  uint64_t *keep = arena_alloc(g, sizeof(uint64_t) * (n ? n : 1));
  if (!keep) {
    graph_problem(g, "out of memory");
    return -1;
  }
  if (n) memcpy(keep, g->offsets.a, sizeof(uint64_t) * n);
  fg_pack_result r;
  memset(&r, 0, sizeof r);
  pd->capacity = g->cdesc.pack_capacity;
  pd->offset_hint = NULL;
  if (fg_pack(g->items.a, n, pd, g->offsets.a, &r, perr, errlen)) {
    graph_problem(g, "memory plan: %s", perr[0] ? perr : "packing failed");
    return -1;
  }
  if (!r.fits && r.makespan > res->makespan) { /* keep the lower packing, with what the decision said */
    if (n) memcpy(g->offsets.a, keep, sizeof(uint64_t) * n);
    r.makespan = res->makespan;
    r.optimal = res->optimal;
    if (res->bound > r.bound) r.bound = res->bound;
  }
  r.replayed = 0;
  *res = r;
  return 0;
}

/* Packs heap h (its resources in id order) into P. */
static int pack_heap(fg_graph *g, uint32_t h, const uint32_t *start, const uint32_t *stop, graph_packing *P,
                     cache_vec *caches) {
  int replan = g->replan;
  uint32_t mt = 0;
  g->items.n = g->item_phys.n = g->hint.n = 0;
  for (uint32_t r = 0; r < g->ir.res.n; r++) {
    const ir_res *R = &g->ir.res.a[r];
    if (R->heap != h) continue;
    mt = R->memory_type_bits;
    fg_pack_item it = {start[r], stop[r], R->size, R->alignment, R->mem_kind, R->group};
    if (VPUSH(&g->h, g->items, it) || VPUSH(&g->h, g->item_phys, r) || (replan && VPUSH(&g->h, g->hint, R->offset)))
      goto oom;
    P->naive_bytes += R->size;
    /* each size is at most FG_MAX_RESOURCE_BYTES, so this cannot wrap first;
     * past 2^62 the packer's sums could (offsets plus sizes) */
    if (P->naive_bytes > (uint64_t)1 << 62) {
      graph_problem(g, "the plan needs more than 2^62 bytes before aliasing (resource '%s' and %u copies before it); "
                       "lower the resolutions or the dimension counts", S(g, g->logicals.a[R->logical].name),
                    g->items.n - 1);
      return -1;
    }
  }
  if (vec_grow(&g->h, (void **)&g->offsets.a, &g->offsets.cap, g->items.n, sizeof(uint64_t))) goto oom;
  fg_pack_desc pd;
  memset(&pd, 0, sizeof pd);
  pd.period = 2 * g->ir.inst.n;
  pd.hooks = &g->h;  /* the packer's memory is the graph's */
  pd.solver = g->cdesc.solver;
  pd.granularity = g->cdesc.profile.granularity;
  pd.time_budget_ms = g->cdesc.pack_time_budget_ms;
  pd.offset_hint = replan ? g->hint.a : NULL;
  /* the heap this one replaces (heaps are numbered the same way every plan) */
  uint64_t ref_bytes = 0, ref_bound = 0;
  if (replan && h < g->heaps.n && g->heaps.a[h].memory_type_bits == mt) {
    ref_bytes = pd.hint_makespan = g->heaps.a[h].ref_bytes;
    ref_bound = pd.hint_bound = g->heaps.a[h].ref_bound;
  }
  /* the lifetimes stay across re-plans (fg_pack checks that they did) */
  while (caches->n <= h) {
    fg_pack_cache *c = fg_pack_cache_new_hooks(&g->h);
    if (!c || VPUSH(&g->h, *caches, c)) {
      fg_pack_cache_free(c);
      goto oom;
    }
  }
  pd.cache = caches->a[h];
  fg_pack_result res;
  memset(&res, 0, sizeof res);
  char perr[256] = "";
  if (fg_pack(g->items.a, g->items.n, &pd, g->offsets.a, &res, perr, sizeof perr)) {
    graph_problem(g, "memory plan: %s", perr[0] ? perr : "packing failed");
    return -1;
  }
  if (g->cdesc.pack_capacity && res.makespan > g->cdesc.pack_capacity && pack_decide(g, &pd, &res, perr, sizeof perr))
    return -1;
  if (g->cdesc.pack_capacity && res.makespan <= g->cdesc.pack_capacity) res.fits = res.proved = 1;
  for (uint32_t k = 0; k < g->items.n; k++) P->offset.a[g->item_phys.a[k]] = g->offsets.a[k];
  fg_graph_heap hp = {mt, res.makespan, res.load, g->items.n, res.optimal, res.bound, res.bound_partial,
                      res.replayed, res.replayed ? ref_bytes : res.makespan, res.replayed ? ref_bound : res.bound,
                      res.fits, res.proved};
  if (VPUSH(&g->h, P->heaps, hp)) goto oom;
  P->heap_bytes += res.makespan;
  P->load_bytes += res.load;
  return 0;
oom:
  graph_problem(g, "out of memory");
  return -1;
}

int graph_pack_order(fg_graph *g, const uint32_t *start, const uint32_t *stop, graph_packing *P, cache_vec *caches) {
  uint32_t NP = g->ir.res.n;
  uint64_t t0 = fg_now_ns();
  P->done = 0;
  P->heaps.n = 0;
  P->naive_bytes = P->heap_bytes = P->load_bytes = 0;
  if (vec_grow(&g->h, (void **)&P->offset.a, &P->offset.cap, NP + 1, sizeof(uint64_t))) {
    graph_problem(g, "out of memory");
    return -1;
  }
  P->offset.n = NP;
  memset(P->offset.a, 0, (NP + 1) * sizeof(uint64_t));
  for (uint32_t h = 0; h < g->ir.nheaps; h++)
    if (pack_heap(g, h, start, stop, P, caches)) return -1;
  P->done = 1;
  P->ns = fg_now_ns() - t0;
  return 0;
}

/* ------------------------------------------------------------- the stage -- */
int graph_pack(fg_graph *g, graph_names *c) {
  (void)c;
  uint32_t NP = g->ir.res.n;
  graph_packing *P = &g->ir.pk[g->ir.kept];
  if (!P->done) {
    /* SCHEDULE packed nothing for this order (declared schedule, a re-plan) */
    uint32_t *start = arena_alloc(g, (NP + 1) * sizeof(uint32_t)), *stop = arena_alloc(g, (NP + 1) * sizeof(uint32_t));
    if (!start || !stop) { graph_problem(g, "out of memory"); return -1; }
    for (uint32_t r = 0; r < NP; r++) { start[r] = g->ir.res.a[r].start; stop[r] = g->ir.res.a[r].stop; }
    if (graph_pack_order(g, start, stop, P, &g->pcache)) return -1;
  }
  for (uint32_t r = 0; r < NP; r++) g->ir.res.a[r].offset = P->offset.a[r];
  g->stats.naive_bytes = P->naive_bytes;
  g->stats.heap_bytes = P->heap_bytes;
  g->stats.load_bytes = P->load_bytes;
  /* what the declared order needs is this plan's, unless SCHEDULE kept
   * another order (it set them) or this is a re-plan (they stay) */
  if (!g->replan && g->stats.schedule != FG_SCHEDULE_MEMORY) {
    g->stats.heap_declared = P->heap_bytes;
    g->stats.load_declared = P->load_bytes;
  }
  return 0;
}
