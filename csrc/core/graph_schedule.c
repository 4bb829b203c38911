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
 *   decision:    when the best LOAD beats the declared order's, the
 *                instances are permuted, LIFETIMES and PLAN run again, and
 *                the new packing is kept only when its heap is smaller
 *                (declared wins ties); otherwise everything is put back.
 * Runs after a full PLAN of the declared order (it needs the sizes); a
 * set_resolution re-plan keeps the order it finds. */
#include "graph_schedule.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char R_INDEX[] =
  "memory schedule: runs with the other nodes of its multiplex index (index-major), so one index's "
  "transients are freed before the next index's are made";
static const char R_EARLY[] = "memory schedule: runs earlier, so what it reads last is freed sooner";
static const char R_LATE[] = "memory schedule: runs later, so what it creates is made closer to its readers";


static void sched_free(sched *S) {
  fg_graph *g = S->g;
  void *p[] = {S->ts, S->tr, S->th, S->size, S->heap, S->nn, S->nh, S->keep, S->ss, S->sl, S->indeg, S->ps, S->pl,
               S->rem, S->remh, S->ready, S->order, S->pos, S->stamp, S->started, S->diff, S->rs, S->ri,
               S->inready, S->dval, S->hload, S->ver, S->hp, S->grp, S->rh};
  for (size_t i = 0; i < sizeof p / sizeof *p; i++) fg_free(&g->h, p[i]);
}

static int is_write(fg_access a) { return a == FG_ACCESS_CREATE || a == FG_ACCESS_MODIFY || a == FG_ACCESS_RENAME; }

/* touches per instance, deduplicated (a renamed resource may appear twice) */
static int build_touches(sched *S) {
  fg_graph *g = S->g;
  uint32_t V = S->V, total = 0;
  for (uint32_t s = 0; s < V; s++) total += g->inst.a[s].use_count;
  S->ts = fg_malloc(&g->h, (V + 1) * sizeof(uint32_t));
  S->tr = fg_malloc(&g->h, (total + 1) * sizeof(uint32_t));
  S->th = fg_malloc(&g->h, total + 1);
  if (!S->ts || !S->tr || !S->th) return -1;
  uint32_t k = 0;
  for (uint32_t s = 0; s < V; s++) {
    const fg_graph_instance *in = &g->inst.a[s];
    S->ts[s] = k;
    for (uint32_t u = 0; u < in->use_count; u++) {
      const fg_graph_use *us = &in->uses[u];
      if (us->logical == NONE) continue;
      uint8_t h = us->access == FG_ACCESS_HISTORY;
      uint32_t r = us->phys[0] & ~1u;  /* the frame-0 copy (ids are base + 2 m + frame, base even) */
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
  S->size = fg_malloc(&g->h, (NP + 1) * sizeof(uint64_t));
  S->heap = fg_malloc(&g->h, (NP + 1) * sizeof(uint32_t));
  S->nn = fg_malloc(&g->h, (NP + 1) * sizeof(uint32_t));
  S->nh = fg_malloc(&g->h, (NP + 1) * sizeof(uint32_t));
  S->keep = fg_malloc(&g->h, NP + 1);
  if (!S->size || !S->heap || !S->nn || !S->nh || !S->keep) return -1;
  memset(S->nn, 0, (NP + 1) * sizeof(uint32_t));
  memset(S->nh, 0, (NP + 1) * sizeof(uint32_t));
  for (uint32_t r = 0; r < NP; r++) {
    const fg_graph_resource *R = &g->phys.a[r];
    int packed = R->heap != NONE && (R->kind == FG_RES_TEXTURE || R->kind == FG_RES_BUFFER);
    S->size[r] = packed ? R->size : 0;
    S->heap[r] = packed ? R->heap : 0;
    S->keep[r] = (uint8_t)R->is_output;
  }
  for (uint32_t q = 0; q < S->ts[S->V]; q++) {
    if (S->th[q]) { S->nh[S->tr[q]]++; S->keep[S->tr[q]] = 1; }
    else S->nn[S->tr[q]]++;
  }
  uint32_t nt = S->ts[S->V];
  S->rs = fg_malloc(&g->h, (NP + 2) * sizeof(uint32_t));
  S->ri = fg_malloc(&g->h, (nt + 1) * sizeof(uint32_t));
  S->rh = fg_malloc(&g->h, nt + 1);
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
  VEC(uint32_t) e = {0};
  int rc = -1;
  uint32_t *rs = NULL, *rl = NULL, *fill = NULL;
  for (uint32_t i = 0; i < g->edges.n; i++) if (VPUSH(&g->h, e, g->edges.a[i])) goto out;
  /* per resource copy, its normal users in declared order, with their access */
  rs = fg_malloc(&g->h, (NP + 2) * sizeof(uint32_t));
  fill = fg_malloc(&g->h, ((NP > V ? NP : V) + 2) * sizeof(uint32_t));  /* per resource, then per instance */
  if (!rs || !fill) goto out;
  memset(rs, 0, (NP + 2) * sizeof(uint32_t));
  uint32_t total = 0;
  for (uint32_t s = 0; s < V; s++) {
    const fg_graph_instance *in = &g->inst.a[s];
    for (uint32_t u = 0; u < in->use_count; u++)
      if (in->uses[u].logical != NONE && in->uses[u].access != FG_ACCESS_HISTORY) { rs[in->uses[u].phys[0] + 1]++; total++; }
  }
  for (uint32_t r = 0; r < NP; r++) rs[r + 1] += rs[r];
  memcpy(fill, rs, (NP + 1) * sizeof(uint32_t));
  rl = fg_malloc(&g->h, (2 * total + 1) * sizeof(uint32_t));  /* (slot, write) pairs */
  if (!rl) goto out;
  for (uint32_t s = 0; s < V; s++) {
    const fg_graph_instance *in = &g->inst.a[s];
    for (uint32_t u = 0; u < in->use_count; u++) {
      const fg_graph_use *us = &in->uses[u];
      if (us->logical == NONE || us->access == FG_ACCESS_HISTORY) continue;
      uint32_t q = fill[us->phys[0]]++;
      rl[2 * q] = s;
      rl[2 * q + 1] = (uint32_t)is_write(us->access);
    }
  }
  for (uint32_t r = 0; r < NP; r++) {
    uint32_t lastw = NONE, since = rs[r];  /* readers since the last write: rl[since .. q) */
    for (uint32_t q = rs[r]; q < rs[r + 1]; q++) {
      uint32_t s = rl[2 * q];
      if (rl[2 * q + 1]) {
        if (lastw != NONE && lastw != s && (VPUSH(&g->h, e, lastw) || VPUSH(&g->h, e, s))) goto out;
        for (uint32_t p = since; p < q; p++)
          if (rl[2 * p] != s && (VPUSH(&g->h, e, rl[2 * p]) || VPUSH(&g->h, e, s))) goto out;
        lastw = s;
        since = q + 1;
      } else if (lastw != NONE && lastw != s) {
        if (VPUSH(&g->h, e, lastw) || VPUSH(&g->h, e, s)) goto out;
      }
    }
  }
  uint32_t prev = NONE;
  for (uint32_t s = 0; s < V; s++) {
    if (!g->nodes.a[g->inst.a[s].node].side_effects) continue;
    if (prev != NONE && (VPUSH(&g->h, e, prev) || VPUSH(&g->h, e, s))) goto out;
    prev = s;
  }
  /* CSR of successors */
  uint32_t ne = e.n / 2;
  S->ss = fg_malloc(&g->h, (V + 2) * sizeof(uint32_t));
  S->sl = fg_malloc(&g->h, (ne + 1) * sizeof(uint32_t));
  S->indeg = fg_malloc(&g->h, (V + 1) * sizeof(uint32_t));
  if (!S->ss || !S->sl || !S->indeg) goto out;
  memset(S->ss, 0, (V + 2) * sizeof(uint32_t));
  memset(S->indeg, 0, (V + 1) * sizeof(uint32_t));
  for (uint32_t i = 0; i < ne; i++) { S->ss[e.a[2 * i] + 1]++; S->indeg[e.a[2 * i + 1]]++; }
  for (uint32_t s = 0; s < V; s++) S->ss[s + 1] += S->ss[s];
  memcpy(fill, S->ss, (V + 1) * sizeof(uint32_t));
  for (uint32_t i = 0; i < ne; i++) S->sl[fill[e.a[2 * i]]++] = e.a[2 * i + 1];
  S->ps = fg_malloc(&g->h, (V + 2) * sizeof(uint32_t));
  S->pl = fg_malloc(&g->h, (ne + 1) * sizeof(uint32_t));
  if (!S->ps || !S->pl) goto out;
  memset(S->ps, 0, (V + 2) * sizeof(uint32_t));
  for (uint32_t i = 0; i < ne; i++) S->ps[e.a[2 * i + 1] + 1]++;
  for (uint32_t s = 0; s < V; s++) S->ps[s + 1] += S->ps[s];
  memcpy(fill, S->ps, (V + 1) * sizeof(uint32_t));
  for (uint32_t i = 0; i < ne; i++) S->pl[fill[e.a[2 * i + 1]]++] = e.a[2 * i];
  rc = 0;
out:
  VFREE(&g->h, e);
  fg_free(&g->h, rs); fg_free(&g->h, rl); fg_free(&g->h, fill);
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
                   : S->g->phys.a[r].is_output ? (uint64_t)V - f : (uint64_t)last[r] + 1 - f;
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

/* ------------------------------------------------------ permutation -- */
/* The plan state LIFETIMES and PLAN rewrite, kept to put it back. */
typedef struct snapshot {
  fg_graph_instance *inst;
  fg_graph_resource *phys;
  fg_graph_touch *touches;
  fg_graph_heap *heaps;
  uint32_t *edges;
  uint32_t ntouches, nheaps;
  fg_graph_stats stats;
} snapshot;

static void snap_free(fg_graph *g, snapshot *p) {
  fg_free(&g->h, p->inst); fg_free(&g->h, p->phys); fg_free(&g->h, p->touches);
  fg_free(&g->h, p->heaps); fg_free(&g->h, p->edges);
}

/* memcpy of n bytes where an empty array may have no storage (NULL): memcpy
 * with a NULL pointer is undefined even for 0 bytes (UBSan, fuzz_graph). */
static void copy_n(void *dst, const void *src, size_t n) {
  if (n) memcpy(dst, src, n);
}

static int snap_take(fg_graph *g, snapshot *p) {
  memset(p, 0, sizeof *p);
  p->inst = fg_malloc(&g->h, (g->inst.n + 1) * sizeof *p->inst);
  p->phys = fg_malloc(&g->h, (g->phys.n + 1) * sizeof *p->phys);
  p->touches = fg_malloc(&g->h, (g->touches.n + 1) * sizeof *p->touches);
  p->heaps = fg_malloc(&g->h, (g->heaps.n + 1) * sizeof *p->heaps);
  p->edges = fg_malloc(&g->h, (g->edges.n + 1) * sizeof *p->edges);
  if (!p->inst || !p->phys || !p->touches || !p->heaps || !p->edges) { snap_free(g, p); return -1; }
  copy_n(p->inst, g->inst.a, g->inst.n * sizeof *p->inst);
  copy_n(p->phys, g->phys.a, g->phys.n * sizeof *p->phys);
  copy_n(p->touches, g->touches.a, g->touches.n * sizeof *p->touches);
  copy_n(p->heaps, g->heaps.a, g->heaps.n * sizeof *p->heaps);
  copy_n(p->edges, g->edges.a, g->edges.n * sizeof *p->edges);
  p->ntouches = g->touches.n;
  p->nheaps = g->heaps.n;
  p->stats = g->stats;
  return 0;
}

/* touches and heaps keep their counts across orders, so their arrays are
 * never reallocated and the phys[] pointers into touches stay right */
static void snap_restore(fg_graph *g, const snapshot *p) {
  copy_n(g->inst.a, p->inst, g->inst.n * sizeof *p->inst);
  copy_n(g->phys.a, p->phys, g->phys.n * sizeof *p->phys);
  g->touches.n = p->ntouches;
  copy_n(g->touches.a, p->touches, p->ntouches * sizeof *p->touches);
  g->heaps.n = p->nheaps;
  copy_n(g->heaps.a, p->heaps, p->nheaps * sizeof *p->heaps);
  copy_n(g->edges.a, p->edges, g->edges.n * sizeof *p->edges);
  g->stats = p->stats;
  for (uint32_t s = 0; s < g->inst.n; s++) g->slot_of.a[s] = s;
}

static int interleaved(const fg_graph *g, const node *n) {
  for (uint32_t k = 1; k < n->inst_count; k++)
    if (g->slot_of.a[n->inst_first + k] != g->slot_of.a[n->inst_first] + k) return 1;
  return 0;
}

/* instances into the order order[] (declared slots); edges follow */
static void apply_order(fg_graph *g, const snapshot *p, const uint32_t *order) {
  uint32_t V = g->inst.n;
  for (uint32_t k = 0; k < V; k++) {
    g->inst.a[k] = p->inst[order[k]];
    g->inst.a[k].slot = k;
    g->inst.a[k].declared_slot = order[k];
    g->slot_of.a[order[k]] = k;
  }
  for (uint32_t i = 0; i < g->edges.n; i++) g->edges.a[i] = g->slot_of.a[p->edges[i]];
  for (uint32_t k = 0; k < V; k++) {
    fg_graph_instance *in = &g->inst.a[k];
    const node *n = &g->nodes.a[in->node];
    in->moved = in->slot == in->declared_slot ? "" : n->inst_count > 1 && interleaved(g, n) ? R_INDEX
              : in->slot < in->declared_slot ? R_EARLY : R_LATE;
  }
}

/* ---------------------------------------------------------- the stage -- */
static void swap_caches(fg_graph *g) {
  fg_pack_cache **a = g->pcache.a;
  uint32_t n = g->pcache.n, cap = g->pcache.cap;
  g->pcache.a = g->pcache_alt.a; g->pcache.n = g->pcache_alt.n; g->pcache.cap = g->pcache_alt.cap;
  g->pcache_alt.a = a; g->pcache_alt.n = n; g->pcache_alt.cap = cap;
}

static void declared_stats(fg_graph *g) {
  g->stats.schedule = FG_SCHEDULE_DECLARED;
  g->stats.heap_declared = g->stats.heap_bytes;
  g->stats.load_declared = g->stats.load_bytes;
  g->stats.moved = 0;
  g->stats.heap_bound = g->stats.heap_bound_memory = 0;
}

int graph_schedule(fg_graph *g) {
  uint64_t t0 = fg_now_ns();
  uint32_t V = g->inst.n;
  fg_schedule asked = g->cdesc.schedule == FG_SCHEDULE_DEFAULT ? FG_SCHEDULE_MEMORY : g->cdesc.schedule;
  if (vec_grow(&g->h, (void **)&g->slot_of.a, &g->slot_of.cap, V + 1, sizeof(uint32_t))) goto oom;
  g->slot_of.n = V;
  for (uint32_t s = 0; s < V; s++) {
    g->slot_of.a[s] = s;
    g->inst.a[s].declared_slot = s;
    g->inst.a[s].moved = "";
  }
  declared_stats(g);
  g->stats.schedule_asked = asked;
  /* async compute keeps the declared order: this cost model knows one queue */
  if (asked != FG_SCHEDULE_MEMORY || V < 3 || !g->heaps.n || g->async_count) { g->stats.ns_schedule = fg_now_ns() - t0; return 0; }

  sched S;
  memset(&S, 0, sizeof S);
  S.g = g;
  S.V = V;
  S.NP = g->phys.n;
  S.H = g->heaps.n;
  uint32_t NP = S.NP, best_order_ok = 0;
  uint32_t *best = NULL;
  snapshot snap;
  memset(&snap, 0, sizeof snap);
  int rc = -1;
  S.started = fg_malloc(&g->h, NP + 1);
  if (!S.started || build_touches(&S) || build_resources(&S)) goto out_oom;
  rc = 0;
  /* no order can pack below the history copies' clique: nothing to win */
  g->stats.heap_bound = any_order_bound(&S);
  if (g->stats.heap_bound >= g->stats.heap_bytes) goto out;
  rc = -1;
  if (build_constraints(&S)) goto out_oom;
  S.rem = fg_malloc(&g->h, (NP + V + 1) * sizeof(uint32_t));
  S.remh = fg_malloc(&g->h, (NP + V + 1) * sizeof(uint32_t));
  S.stamp = fg_malloc(&g->h, (NP + V + 1) * sizeof(uint32_t));
  S.inready = fg_malloc(&g->h, V + 1);
  S.ver = fg_malloc(&g->h, (V + 1) * sizeof(uint32_t));
  S.hcap = 2 * V + 16;
  S.hp = fg_malloc(&g->h, S.hcap * sizeof(hent));
  S.grp = fg_malloc(&g->h, (V + 1) * sizeof(hent));
  S.dval = fg_malloc(&g->h, (V + 1) * sizeof(int64_t));
  S.ready = fg_malloc(&g->h, (V + 1) * sizeof(uint32_t));
  S.order = fg_malloc(&g->h, (V + 1) * sizeof(uint32_t));
  S.pos = fg_malloc(&g->h, (V + 1) * sizeof(uint32_t));
  S.diff = fg_malloc(&g->h, (size_t)S.H * (V + 1) * sizeof(int64_t));
  S.hload = fg_malloc(&g->h, 4 * (size_t)S.H * sizeof(uint64_t));
  best = fg_malloc(&g->h, (V + 1) * sizeof(uint32_t));
  if (!S.rem || !S.remh || !S.stamp || !S.started || !S.inready || !S.ver || !S.hp || !S.grp || !S.dval || !S.ready || !S.order || !S.pos || !S.diff || !S.hload || !best)
    goto out_oom;
  for (uint32_t s = 0; s < V; s++) S.pos[s] = s;
  uint64_t load_decl = sched_load(&S, S.pos), best_load = load_decl;
  for (int tie = 0; tie < NTIES; tie++) {
    uint32_t got = sched_list(&S, tie);
    if (got != V) continue;
    for (uint32_t k = 0; k < V; k++) S.pos[S.order[k]] = k;
    uint64_t l = sched_load(&S, S.pos);
    if (l < best_load) {
      best_load = l;
      memcpy(best, S.order, V * sizeof(uint32_t));
      best_order_ok = 1;
    }
  }
  /* local search from the best order found, within the packer's budget */
  {
    double ms = g->cdesc.pack_time_budget_ms > 0 ? g->cdesc.pack_time_budget_ms : 0.5;
    uint64_t work = (uint64_t)(ms * WORK_PER_MS);
    if (!best_order_ok) for (uint32_t s = 0; s < V; s++) best[s] = s;
    uint64_t l = 0;
    if (sched_search(&S, best, work, &l)) goto out_oom;
    if (l < best_load) { best_load = l; best_order_ok = 1; }
  }
  rc = 0;
  if (!best_order_ok) goto out;  /* the declared order's LOAD is already the best found */
  for (uint32_t k = 0; k < V; k++) S.pos[best[k]] = k;
  g->stats.heap_bound_memory = order_bound(&S, S.pos);
  if (g->stats.heap_bound_memory >= g->stats.heap_bytes) goto out;  /* its packing cannot be smaller */
  if (snap_take(g, &snap)) goto out_oom;
  apply_order(g, &snap, best);
  uint64_t ns_pack = g->stats.ns_pack;
  swap_caches(g);
  if (graph_lifetimes(g, 1) || graph_plan(g, 0)) { rc = -1; goto out; }
  if (g->stats.heap_bytes < snap.stats.heap_bytes) {
    g->stats.schedule = FG_SCHEDULE_MEMORY;
    g->stats.heap_declared = snap.stats.heap_bytes;
    g->stats.load_declared = snap.stats.load_bytes;
    g->stats.ns_pack = ns_pack;
    for (uint32_t k = 0; k < V; k++) g->stats.moved += g->inst.a[k].slot != g->inst.a[k].declared_slot;
  } else {
    snap_restore(g, &snap);  /* the declared order packs as well: keep it */
    swap_caches(g);
  }
  goto out;
out_oom:
  graph_problem(g, "out of memory");
out:
  snap_free(g, &snap);
  fg_free(&g->h, best);
  sched_free(&S);
  g->stats.ns_schedule = fg_now_ns() - t0;
  return rc;
oom:
  graph_problem(g, "out of memory");
  return -1;
}
