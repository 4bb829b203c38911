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
 *   decision:    when the best LOAD beats the declared order's, the
 *                instances are permuted, LIFETIMES and PLAN run again, and
 *                the new packing is kept only when its heap is smaller
 *                (declared wins ties); otherwise everything is put back.
 * Runs after a full PLAN of the declared order (it needs the sizes); a
 * set_resolution re-plan keeps the order it finds. */
#include "graph_ir.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char R_INDEX[] =
  "memory schedule: runs with the other nodes of its multiplex index (index-major), so one index's "
  "transients are freed before the next index's are made";
static const char R_EARLY[] = "memory schedule: runs earlier, so what it reads last is freed sooner";
static const char R_LATE[] = "memory schedule: runs later, so what it creates is made closer to its readers";

typedef struct sched {
  fg_graph *g;
  uint32_t V, NP, H;
  /* per instance (declared slot): its touches of frame-0 copies (CSR) */
  uint32_t *ts, *tr;
  uint8_t *th;          /* 1: a history read (of the previous frame's copy) */
  /* per resource (frame-0 physical id; odd ids unused) */
  uint64_t *size;       /* 0 when not packed */
  uint32_t *heap;
  uint32_t *nn, *nh;    /* normal / history touches */
  uint8_t *keep;        /* live to the end of the frame: output or read as history */
  /* constraints (CSR of successors, and of predecessors) */
  uint32_t *ss, *sl, *indeg, *ps, *pl;
  uint32_t peak_t, peak_h;  /* order_load: the time and heap of the largest peak */
  uint64_t *hload;          /* order_load: per heap, its peak; then 2 H of scratch (order_bound) */
  /* per resource: the instances touching it (CSR), to refresh cached deltas */
  uint32_t *rs, *ri;
  uint8_t *rh;              /* per (resource, instance) entry of ri: 1 for a history touch */
  int64_t *prof;            /* order_load writes the live bytes per heap and slot here (H x V) when set */
  /* scratch */
  uint32_t *rem, *remh, *ready, *order, *pos, *stamp;
  uint8_t *started, *inready;
  int64_t *dval;            /* per ready instance, its delta */
  uint32_t *ver;            /* per instance, the version of its current heap entry */
  struct hent *hp, *grp;    /* the ready heap (cap hcap) and one tie group */
  uint32_t hcap;
  int64_t *diff;
} sched;

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

/* LOAD of the order with positions pos[]: per heap, the peak of live bytes
 * over one frame (a history copy is live from the frame's start to its last
 * history reader, and the current copy to the frame's end); summed. */
static uint64_t order_load(sched *S, const uint32_t *pos) {
  uint32_t V = S->V, NP = S->NP, H = S->H;
  int64_t *diff = S->diff;
  memset(diff, 0, (size_t)H * (V + 1) * sizeof(int64_t));
  uint32_t *first = S->rem, *last = S->remh, *lasth = S->stamp;  /* scratch, NP each */
  for (uint32_t r = 0; r < NP; r += 2) { first[r] = NONE; last[r] = 0; lasth[r] = NONE; }
  for (uint32_t s = 0; s < V; s++)
    for (uint32_t q = S->ts[s]; q < S->ts[s + 1]; q++) {
      uint32_t r = S->tr[q], p = pos[s];
      if (S->th[q]) { if (lasth[r] == NONE || p > lasth[r]) lasth[r] = p; }
      else {
        if (first[r] == NONE || p < first[r]) first[r] = p;
        if (p > last[r]) last[r] = p;
      }
    }
  for (uint32_t r = 0; r < NP; r += 2) {
    if (!S->size[r]) continue;
    int64_t *d = diff + (size_t)S->heap[r] * (V + 1);
    int64_t sz = (int64_t)S->size[r];
    if (first[r] != NONE) {
      uint32_t end = S->keep[r] ? V - 1 : last[r];
      d[first[r]] += sz;
      d[end + 1] -= sz;
    }
    if (lasth[r] != NONE) {  /* the previous frame's copy */
      d[0] += sz;
      d[lasth[r] + 1] -= sz;
    }
  }
  uint64_t total = 0;
  int64_t top = -1;
  for (uint32_t h = 0; h < H; h++) {
    int64_t cur = 0, peak = 0, *d = diff + (size_t)h * (V + 1);
    uint32_t at = 0;
    int64_t *pr = S->prof ? S->prof + (size_t)h * V : NULL;
    for (uint32_t t = 0; t < V; t++) {
      cur += d[t];
      if (pr) pr[t] = cur;
      if (cur > peak) { peak = cur; at = t; }
    }
    total += (uint64_t)peak;
    S->hload[h] = (uint64_t)peak;
    if (peak > top) { top = peak; S->peak_t = at; S->peak_h = h; }
  }
  return total;
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
  order_load(S, pos);
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

/* bytes the instance would make live minus bytes it would free, now */
static int64_t delta(const sched *S, uint32_t s) {
  int64_t d = 0;
  for (uint32_t q = S->ts[s]; q < S->ts[s + 1]; q++) {
    uint32_t r = S->tr[q];
    int64_t sz = (int64_t)S->size[r];
    if (!sz) continue;
    if (S->th[q]) { if (S->remh[r] == 1) d -= sz; }
    else {
      if (!S->started[r]) d += sz;
      if (S->rem[r] == 1 && !S->keep[r]) d -= sz;
    }
  }
  return d;
}

/* TIE_*: the delta first, then a tie-break. MAJOR: no delta, index-major
 * (the flattened multiplex index, then the declared slot): each index's chain
 * runs to its end before the next starts, whenever the dependencies allow. */
enum { TIE_DECLARED, TIE_INDEX, TIE_RECENT, MAJOR, NTIES };

static uint32_t flat_index(const fg_graph *g, uint32_t s) {
  const uint32_t *ix = g->inst.a[s].index;
  uint32_t m = 0;
  for (uint32_t d = 0; d < g->dims.n; d++) m = m * g->dims.a[d].count + ix[d];
  return m;
}

static int same_index(const fg_graph *g, uint32_t a, uint32_t b) {
  const fg_graph_instance *x = &g->inst.a[a], *y = &g->inst.a[b];
  uint32_t shared = g->nodes.a[x->node].mode & g->nodes.a[y->node].mode;
  if (!shared) return 0;
  for (uint32_t d = 0; d < g->dims.n; d++) if ((shared >> d & 1) && x->index[d] != y->index[d]) return 0;
  return 1;
}

/* The ready instances in a binary heap keyed (key, key2, slot), lazily: an
 * entry is current while its instance is ready and its version is the
 * instance's; a changed delta pushes a new entry. Compacted to the current
 * entries when full (at most one per ready instance). */
typedef struct hent { int64_t key; uint32_t key2, s, ver; } hent;

static int hless(const hent *a, const hent *b) {
  return a->key != b->key ? a->key < b->key : a->key2 != b->key2 ? a->key2 < b->key2 : a->s < b->s;
}

static void hsift_down(hent *h, uint32_t n, uint32_t i) {
  for (;;) {
    uint32_t l = 2 * i + 1, m = i;
    if (l < n && hless(&h[l], &h[m])) m = l;
    if (l + 1 < n && hless(&h[l + 1], &h[m])) m = l + 1;
    if (m == i) return;
    hent t = h[i]; h[i] = h[m]; h[m] = t;
    i = m;
  }
}

static int hcurrent(const sched *S, const hent *e) { return S->inready[e->s] && S->ver[e->s] == e->ver; }

static void hpush(sched *S, uint32_t *n, hent e) {
  hent *h = S->hp;
  if (*n == S->hcap) {  /* keep the current entries only, then heapify */
    uint32_t k = 0;
    for (uint32_t i = 0; i < *n; i++) if (hcurrent(S, &h[i])) h[k++] = h[i];
    *n = k;
    for (uint32_t i = k / 2; i-- > 0;) hsift_down(h, k, i);
  }
  uint32_t i = (*n)++;
  while (i && hless(&e, &h[(i - 1) / 2])) { h[i] = h[(i - 1) / 2]; i = (i - 1) / 2; }
  h[i] = e;
}

static hent hdrop(sched *S, uint32_t *n) {
  hent top = S->hp[0];
  S->hp[0] = S->hp[--*n];
  hsift_down(S->hp, *n, 0);
  return top;
}

/* the least current entry, removed; the heap holds one while any is ready */
static hent hpop(sched *S, uint32_t *n) {
  for (;;) {
    hent top = hdrop(S, n);
    if (hcurrent(S, &top)) return top;
  }
}

/* (re)key a ready instance: MAJOR by index-major rank, the others by their
 * delta d, TIE_RECENT then by the most recently readied */
static void hkey(sched *S, uint32_t *n, uint32_t s, int tie, int64_t d) {
  hent e = {0, 0, s, ++S->ver[s]};
  if (tie == MAJOR) e.key = S->stamp[s];
  else {
    S->dval[s] = e.key = d;
    if (tie == TIE_RECENT) e.key2 = UINT32_MAX - S->stamp[s];
  }
  hpush(S, n, e);
}

/* an instance joins the ready set */
static void ready_add(sched *S, uint32_t *n, uint32_t s, int tie, uint32_t stamp) {
  S->stamp[s] = stamp;
  S->inready[s] = 1;
  hkey(S, n, s, tie, tie == MAJOR ? 0 : delta(S, s));
}

/* TIE_INDEX: of the ready instances with the least delta, the first slot
 * with the last one's multiplex index, else the first slot */
static uint32_t pick_same_index(sched *S, uint32_t *n, uint32_t last) {
  hent first = hpop(S, n);
  uint32_t ng = 0, pick = NONE;
  if (last == NONE || same_index(S->g, first.s, last)) pick = first.s;
  while (pick == NONE && *n) {
    hent e = S->hp[0];
    if (!hcurrent(S, &e)) { hdrop(S, n); continue; }
    if (e.key != first.key) break;
    hdrop(S, n);
    S->grp[ng++] = e;
    if (same_index(S->g, e.s, last)) pick = e.s;
  }
  if (pick == NONE) pick = first.s;
  else if (pick != first.s) S->grp[ng++] = first;
  for (uint32_t k = 0; k < ng; k++) if (S->grp[k].s != pick) hpush(S, n, S->grp[k]);
  return pick;
}

/* One list schedule into S->order; returns its length (V unless a cycle,
 * which cannot happen: the constraints follow the declared order). A pick
 * changes the deltas of the ready users of what it touches only. */
static uint32_t list_schedule(sched *S, int tie) {
  fg_graph *g = S->g;
  uint32_t V = S->V, NP = S->NP, nheap = 0, nready = 0, n = 0;
  uint32_t *indeg = S->pos;  /* scratch */
  memcpy(indeg, S->indeg, V * sizeof(uint32_t));
  for (uint32_t r = 0; r < NP; r++) { S->rem[r] = S->nn[r]; S->remh[r] = S->nh[r]; }
  memset(S->started, 0, NP + 1);
  memset(S->inready, 0, V);
  memset(S->ver, 0, V * sizeof(uint32_t));
  for (uint32_t s = 0; s < V; s++)
    if (!indeg[s]) { ready_add(S, &nheap, s, tie, tie == MAJOR ? flat_index(g, s) : 0); nready++; }
  uint32_t last = NONE;
  while (nready) {
    uint32_t v = tie == TIE_INDEX ? pick_same_index(S, &nheap, last) : hpop(S, &nheap).s;
    S->inready[v] = 0;
    nready--;
    S->order[n++] = v;
    last = v;
    for (uint32_t q = S->ts[v]; q < S->ts[v + 1]; q++) {
      uint32_t r = S->tr[q];
      if (S->th[q]) S->remh[r]--;
      else { S->started[r] = 1; S->rem[r]--; }
    }
    uint32_t nd = 0, *touched = S->ready;  /* scratch: the ready users of what v touched, once each */
    for (uint32_t q = S->ts[v]; q < S->ts[v + 1] && tie != MAJOR; q++) {
      uint32_t r = S->tr[q];
      if (!S->size[r]) continue;
      for (uint32_t k = S->rs[r]; k < S->rs[r + 1]; k++)
        if (S->inready[S->ri[k]] == 1) { S->inready[S->ri[k]] = 2; touched[nd++] = S->ri[k]; }
    }
    for (uint32_t k = 0; k < nd; k++) {  /* their deltas may have changed */
      uint32_t u = touched[k];
      int64_t d = delta(S, u);
      S->inready[u] = 1;
      if (d != S->dval[u]) hkey(S, &nheap, u, tie, d);
    }
    for (uint32_t e = S->ss[v]; e < S->ss[v + 1]; e++) {
      uint32_t u = S->sl[e];
      if (!--indeg[u]) { ready_add(S, &nheap, u, tie, tie == MAJOR ? flat_index(g, u) : n); nready++; }
    }
  }
  return n;
}

/* ------------------------------------------------------- local search -- */
/* order_load work units (touches + resources + heap slots) per millisecond on
 * the dev machine: the local search's share of the packer's time budget, as
 * calibrated when each move cost a full order_load; moves are evaluated
 * incrementally now (same moves, same orders, about 5x less time) */
#define WORK_PER_MS 5.0e5

static void move(uint32_t *order, uint32_t *pos, uint32_t i, uint32_t j) {
  uint32_t v = order[i];
  if (i < j) memmove(order + i, order + i + 1, (j - i) * sizeof *order);
  else memmove(order + j + 1, order + j, (i - j) * sizeof *order);
  order[j] = v;
  for (uint32_t k = i < j ? i : j, e = i < j ? j : i; k <= e; k++) pos[order[k]] = k;
}

/* A move's LOAD without a full order_load: only the instances in the
 * window [a, b] of a move change slots, so only the resources they touch
 * change their first/last slots, and those stay inside the window; the live
 * bytes outside it do not change. The window's profile is patched, the
 * peak outside it read from prefix and suffix maxima; a rejected move puts
 * back what it saved. */
typedef struct lsearch {
  int64_t *cur, *pm, *sm, *save;  /* H x V: live bytes, prefix and suffix maxima, the window's before */
  uint32_t *aff, *sf, *sl, *sh;   /* resources the move touched, their first/last/last-history before */
  uint32_t *seen, epoch, naff;    /* per resource: the move that listed it */
} lsearch;

/* the whole order: order_load, then the profile's maxima */
static uint64_t ls_full(sched *S, lsearch *L, const uint32_t *pos) {
  uint32_t V = S->V;
  S->prof = L->cur;
  uint64_t load = order_load(S, pos);
  S->prof = NULL;
  memset(S->diff, 0, (size_t)S->H * (V + 1) * sizeof(int64_t));  /* ls_eval adds to zeros */
  for (uint32_t h = 0; h < S->H; h++) {
    const int64_t *c = L->cur + (size_t)h * V;
    int64_t *pm = L->pm + (size_t)h * V, *sm = L->sm + (size_t)h * V;
    for (uint32_t t = 0; t < V; t++) pm[t] = t && pm[t - 1] > c[t] ? pm[t - 1] : c[t];
    for (uint32_t t = V; t-- > 0;) sm[t] = t + 1 < V && sm[t + 1] > c[t] ? sm[t + 1] : c[t];
  }
  return load;
}

/* r's live ranges (as order_load has them) clipped to [a, b], into diff */
static void ls_add(const sched *S, uint32_t r, uint32_t a, uint32_t b, int64_t sign) {
  const uint32_t *first = S->rem, *last = S->remh, *lasth = S->stamp;
  uint32_t V = S->V;
  int64_t *d = S->diff + (size_t)S->heap[r] * (V + 1), sz = sign * (int64_t)S->size[r];
  if (first[r] != NONE) {
    uint32_t lo = first[r] > a ? first[r] : a, e = S->keep[r] ? V - 1 : last[r], hi = e < b ? e : b;
    if (lo <= hi) { d[lo] += sz; d[hi + 1] -= sz; }
  }
  if (lasth[r] != NONE && a <= lasth[r]) {
    uint32_t hi = lasth[r] < b ? lasth[r] : b;
    d[a] += sz; d[hi + 1] -= sz;
  }
}

static uint64_t ls_eval(sched *S, lsearch *L, uint32_t *order, uint32_t *pos, uint32_t i, uint32_t j) {
  uint32_t V = S->V, a = i < j ? i : j, b = i < j ? j : i;
  uint32_t *first = S->rem, *last = S->remh, *lasth = S->stamp;
  move(order, pos, i, j);
  L->naff = 0;
  L->epoch++;
  for (uint32_t h = 0; h < S->H; h++)
    memcpy(L->save + (size_t)h * V + a, L->cur + (size_t)h * V + a, (b - a + 1) * sizeof(int64_t));
  for (uint32_t k = a; k <= b; k++)
    for (uint32_t q = S->ts[order[k]]; q < S->ts[order[k] + 1]; q++) {
      uint32_t r = S->tr[q], f = NONE, l = 0, lh = NONE;
      if (!S->size[r] || L->seen[r] == L->epoch) continue;
      L->seen[r] = L->epoch;
      L->aff[L->naff] = r; L->sf[L->naff] = first[r]; L->sl[L->naff] = last[r]; L->sh[L->naff++] = lasth[r];
      ls_add(S, r, a, b, -1);
      for (uint32_t e = S->rs[r]; e < S->rs[r + 1]; e++) {
        uint32_t p = pos[S->ri[e]];
        if (S->rh[e]) { if (lh == NONE || p > lh) lh = p; }
        else { if (f == NONE || p < f) f = p; if (p > l) l = p; }
      }
      first[r] = f; last[r] = l; lasth[r] = lh;
      ls_add(S, r, a, b, 1);
    }
  uint64_t total = 0;
  for (uint32_t h = 0; h < S->H; h++) {
    int64_t *c = L->cur + (size_t)h * V, *d = S->diff + (size_t)h * (V + 1), run = 0, peak = 0;
    if (a && L->pm[(size_t)h * V + a - 1] > peak) peak = L->pm[(size_t)h * V + a - 1];
    if (b + 1 < V && L->sm[(size_t)h * V + b + 1] > peak) peak = L->sm[(size_t)h * V + b + 1];
    for (uint32_t t = a; t <= b; t++) {
      run += d[t];
      d[t] = 0;
      c[t] += run;
      if (c[t] > peak) peak = c[t];
    }
    d[b + 1] = 0;
    total += (uint64_t)peak;
  }
  return total;
}

static void ls_revert(sched *S, lsearch *L, uint32_t *order, uint32_t *pos, uint32_t i, uint32_t j) {
  uint32_t V = S->V, a = i < j ? i : j, b = i < j ? j : i;
  move(order, pos, j, i);
  for (uint32_t k = 0; k < L->naff; k++) {
    uint32_t r = L->aff[k];
    S->rem[r] = L->sf[k]; S->remh[r] = L->sl[k]; S->stamp[r] = L->sh[k];
  }
  for (uint32_t h = 0; h < S->H; h++)
    memcpy(L->cur + (size_t)h * V + a, L->save + (size_t)h * V + a, (b - a + 1) * sizeof(int64_t));
}

/* Moves of one instance within the slots its constraints allow, aimed at the
 * peak: the creator of a resource live at the peak goes later, the last user
 * of one goes earlier. First improvement of LOAD wins; until none improves or
 * the work budget is spent. cand and mark: scratch of V. Returns the LOAD. */
static uint64_t improve(sched *S, lsearch *L, uint32_t *order, uint32_t *pos, uint32_t *cand, uint8_t *mark, uint64_t work) {
  uint32_t V = S->V, NP = S->NP;
  /* the budget counts evaluations' work as a full order_load's, not the
   * clock, so that a compile gives the same order however loaded the
   * machine is (and as before the evaluations went incremental) */
  uint64_t cost = S->ts[V] + NP / 2 + (uint64_t)S->H * V + 1, spent = cost;
  uint64_t load = ls_full(S, L, pos);
  for (int improved = 1; improved && spent < work;) {
    improved = 0;
    uint32_t t = S->peak_t, h = S->peak_h, nc = 0;
    const uint32_t *first = S->rem, *last = S->remh;  /* order_load's scratch */
    memset(mark, 0, V);
    for (uint32_t r = 0; r < NP; r += 2) {
      if (!S->size[r] || S->heap[r] != h || first[r] == NONE) continue;
      uint32_t end = S->keep[r] ? V - 1 : last[r];
      if (first[r] > t || end < t) continue;
      uint32_t a = order[first[r]], b = order[last[r]];
      if (!mark[a]) { mark[a] = 1; cand[nc++] = a; }
      if (!S->keep[r] && !mark[b]) { mark[b] = 1; cand[nc++] = b; }
    }
    for (uint32_t c = 0; c < nc && !improved; c++) {
      uint32_t s = cand[c], i = pos[s], lo = 0, hi = V - 1;
      for (uint32_t e = S->ps[s]; e < S->ps[s + 1]; e++) if (pos[S->pl[e]] + 1 > lo) lo = pos[S->pl[e]] + 1;
      for (uint32_t e = S->ss[s]; e < S->ss[s + 1]; e++) if (pos[S->sl[e]] < hi + 1) hi = pos[S->sl[e]] - 1;
      uint32_t targets[4] = {lo, hi, t, t + 1};
      for (int k = 0; k < 4 && !improved; k++) {
        uint32_t j = targets[k] < lo ? lo : targets[k] > hi ? hi : targets[k];
        if (j == i) continue;
        uint64_t l = ls_eval(S, L, order, pos, i, j);
        spent += cost;
        if (l < load) { load = ls_full(S, L, pos); improved = 1; }
        else { ls_revert(S, L, order, pos, i, j); spent += cost; }
      }
      if (spent >= work) break;
    }
    if (!improved) break;
  }
  return load;
}

/* the local search from order best (improved in place) with its scratch:
 * its LOAD into *load; -1 when out of memory */
static int search(sched *S, uint32_t *best, uint64_t work, uint64_t *load) {
  fg_graph *g = S->g;
  uint32_t V = S->V, NP = S->NP;
  size_t hv = (size_t)S->H * V + 1;
  lsearch L;
  memset(&L, 0, sizeof L);
  uint8_t *mark = fg_malloc(&g->h, V + 1);
  L.cur = fg_malloc(&g->h, 4 * hv * sizeof(int64_t));
  L.aff = fg_malloc(&g->h, 5 * ((size_t)NP + 1) * sizeof(uint32_t));
  int rc = mark && L.cur && L.aff ? 0 : -1;
  if (!rc) {
    L.pm = L.cur + hv; L.sm = L.pm + hv; L.save = L.sm + hv;
    L.sf = L.aff + NP + 1; L.sl = L.sf + NP + 1; L.sh = L.sl + NP + 1; L.seen = L.sh + NP + 1;
    memset(L.seen, 0, (NP + 1) * sizeof(uint32_t));
    for (uint32_t k = 0; k < V; k++) S->pos[best[k]] = k;
    *load = improve(S, &L, best, S->pos, S->ready /* free again */, mark, work);
  }
  fg_free(&g->h, L.cur);
  fg_free(&g->h, L.aff);
  fg_free(&g->h, mark);
  return rc;
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
  if (asked != FG_SCHEDULE_MEMORY || V < 3 || !g->heaps.n) { g->stats.ns_schedule = fg_now_ns() - t0; return 0; }

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
  uint64_t load_decl = order_load(&S, S.pos), best_load = load_decl;
  for (int tie = 0; tie < NTIES; tie++) {
    uint32_t got = list_schedule(&S, tie);
    if (got != V) continue;
    for (uint32_t k = 0; k < V; k++) S.pos[S.order[k]] = k;
    uint64_t l = order_load(&S, S.pos);
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
    if (search(&S, best, work, &l)) goto out_oom;
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
