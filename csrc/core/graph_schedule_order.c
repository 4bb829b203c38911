/* The memory schedule's orders (stage SCHEDULE, graph_schedule.c): LOAD of
 * an order, list schedulers driven by live bytes, and the local search. */
#include "graph_schedule.h"
#include <string.h>

/* LOAD of the order with positions pos[]: per heap, the peak of live bytes
 * over one frame (a history copy is live from the frame's start to its last
 * history reader, and the current copy to the frame's end); summed. */
uint64_t sched_load(sched *S, const uint32_t *pos) {
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

static uint32_t flat_index(const fg_graph *g, uint32_t s) {
  if (!g->dims.n) return 0;
  const uint32_t *ix = g->inst_index.a + g->ir.inst.a[s].index;
  uint32_t m = 0;
  for (uint32_t d = 0; d < g->dims.n; d++) m = m * g->dims.a[d].count + ix[d];
  return m;
}

static int same_index(const fg_graph *g, uint32_t a, uint32_t b) {
  const ir_inst *x = &g->ir.inst.a[a], *y = &g->ir.inst.a[b];
  uint32_t shared = g->nodes.a[x->node].mode & g->nodes.a[y->node].mode;
  if (!shared) return 0;  /* no dimensions: no index storage either */
  const uint32_t *xi = g->inst_index.a + x->index, *yi = g->inst_index.a + y->index;
  for (uint32_t d = 0; d < g->dims.n; d++) if ((shared >> d & 1) && xi[d] != yi[d]) return 0;
  return 1;
}

/* The ready instances in a binary heap keyed (key, key2, slot), lazily: an
 * entry is current while its instance is ready and its version is the
 * instance's; a changed delta pushes a new entry. Compacted to the current
 * entries when full (at most one per ready instance). */
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
 * with the last one's multiplex index, else the first slot. Only the first
 * TIE_SCAN of them are looked at: one node multiplexed 65536 times readies
 * thousands with one delta, and popping and pushing them all back at every
 * pick made the schedule quadratic (16384 instances: 11 s); a frame graph's
 * ties are a few instances, which the cap leaves as they were. */
#define TIE_SCAN 64
static uint32_t pick_same_index(sched *S, uint32_t *n, uint32_t last) {
  hent first = hpop(S, n);
  uint32_t ng = 0, pick = NONE;
  if (last == NONE || same_index(S->g, first.s, last)) pick = first.s;
  while (pick == NONE && *n && ng < TIE_SCAN) {
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
uint32_t sched_list(sched *S, int tie) {
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
      else { S->started[r] = S->started[r] ? 1 : 2; S->rem[r]--; } /* 2: started by v */
    }
    uint32_t nd = 0, *touched = S->ready;  /* scratch: the ready users of what v touched, once each */
    for (uint32_t q = S->ts[v]; q < S->ts[v + 1] && tie != MAJOR; q++) {
      uint32_t r = S->tr[q];
      /* r's share of a delta changes only as it starts or its last (history)
       * reader comes up: else its users need no visit (one resource modified
       * by 65536 instances made every pick visit them all) */
      int changed = S->th[q] ? S->remh[r] == 1 : S->started[r] == 2 || S->rem[r] == 1;
      if (!S->size[r] || !changed) continue;
      for (uint32_t k = S->rs[r]; k < S->rs[r + 1]; k++)
        if (S->inready[S->ri[k]] == 1) { S->inready[S->ri[k]] = 2; touched[nd++] = S->ri[k]; }
    }
    for (uint32_t q = S->ts[v]; q < S->ts[v + 1]; q++) if (S->started[S->tr[q]] == 2) S->started[S->tr[q]] = 1;
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
static void move(uint32_t *order, uint32_t *pos, uint32_t i, uint32_t j) {
  uint32_t v = order[i];
  if (i < j) memmove(order + i, order + i + 1, (j - i) * sizeof *order);
  else memmove(order + j + 1, order + j, (i - j) * sizeof *order);
  order[j] = v;
  for (uint32_t k = i < j ? i : j, e = i < j ? j : i; k <= e; k++) pos[order[k]] = k;
}

/* A move's LOAD without a full sched_load: only the instances in the
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

/* the whole order: sched_load, then the profile's maxima */
static uint64_t ls_full(sched *S, lsearch *L, const uint32_t *pos) {
  uint32_t V = S->V;
  S->prof = L->cur;
  uint64_t load = sched_load(S, pos);
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

/* r's live ranges (as sched_load has them) clipped to [a, b], into diff */
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
  /* the budget counts evaluations' work as a full sched_load's, not the
   * clock, so that a compile gives the same order however loaded the
   * machine is (and as before the evaluations went incremental) */
  uint64_t cost = S->ts[V] + NP / 2 + (uint64_t)S->H * V + 1, spent = cost;
  uint64_t load = ls_full(S, L, pos);
  for (int improved = 1; improved && spent < work;) {
    improved = 0;
    uint32_t t = S->peak_t, h = S->peak_h, nc = 0;
    const uint32_t *first = S->rem, *last = S->remh;  /* sched_load's scratch */
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
int sched_search(sched *S, uint32_t *best, uint64_t work, uint64_t *load) {
  fg_graph *g = S->g;
  uint32_t V = S->V, NP = S->NP;
  size_t hv = (size_t)S->H * V + 1;
  lsearch L;
  memset(&L, 0, sizeof L);
  uint8_t *mark = arena_alloc(g, V + 1);  /* the stage's arena: released when it returns */
  L.cur = arena_alloc(g, 4 * hv * sizeof(int64_t));
  L.aff = arena_alloc(g, 5 * ((size_t)NP + 1) * sizeof(uint32_t));
  int rc = mark && L.cur && L.aff ? 0 : -1;
  if (!rc) {
    L.pm = L.cur + hv; L.sm = L.pm + hv; L.save = L.sm + hv;
    L.sf = L.aff + NP + 1; L.sl = L.sf + NP + 1; L.sh = L.sl + NP + 1; L.seen = L.sh + NP + 1;
    memset(L.seen, 0, (NP + 1) * sizeof(uint32_t));
    for (uint32_t k = 0; k < V; k++) S->pos[best[k]] = k;
    *load = improve(S, &L, best, S->pos, S->ready /* free again */, mark, work);
  }
  return rc;
}
