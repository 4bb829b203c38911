/* pack_search: MiniMalloc-style decision search (see pack_search.h).
 *
 * Sections are the compressed time points. State per section: floor (no
 * unplaced item living there can go lower) and total (unplaced bytes living
 * there); per item: minoff (top of the highest placed neighbour, aligned).
 * A node orders the unplaced items of its partition by (minoff, preorder
 * rank) and branches on each:
 *  - canonical: offsets never decrease along a branch (ties by rank), so
 *    every item sits exactly at minoff; some optimal packing is canonical;
 *  - dominance: an item whose minoff is at or above the lowest top any
 *    unplaced item could reach would leave a needless gap: cut;
 *  - inference: placing raises neighbours' minoff; a section's floor is at
 *    least the smallest minoff among its unplaced items, and
 *    max(floor, offset) + total must fit under the capacity everywhere;
 *  - tight sections (no slack left) must be covered right at their floor:
 *    the lowest ones bound which items may go at that offset (tight());
 *  - decomposition: where no unplaced item crosses a section boundary any
 *    more, the two sides are independent and are solved one after the other.
 * Cycles: cut where some item ends; arcs alive there wrap round (sections
 * [lo, K) and [0, hi - K)), which keeps the search exact.
 * Preorders WAT, TAW, TWA (lifetime width, area, max section total) are
 * tried round robin under a node limit that doubles, as MiniMalloc does,
 * but each round resumes its preorder's search where the last one stopped
 * (replaying the path there) instead of starting it over; where the
 * capacity leaves slack, rounds after the first restart each preorder with
 * randomly scaled keys instead (decide()). Any of them running to the end
 * without a solution proves there is none.
 * This file is the tree search; pack_search_order.c the preorders and the
 * set-up, pack_search_drive.c a decision's rounds and the bisection. */
#include "pack_search_int.h"
#include <string.h>

/* Place item i at o. Returns -1 on OOM, else 1 when a section boundary in
 * i's range lost its last crossing item (a new cut), 0 otherwise. */
static int place(ps *S, uint32_t i, uint64_t o) {
  const pk_inst *in = S->in;
  uint64_t h = o + in->size[i];
  S->placed[i] = 1;
  S->np++;
  S->dead = 0;
  S->sol[i] = o;
  /* raised neighbours all meet i, so their sections form one interval */
  uint32_t alo = UINT32_MAX, ahi = 0;
  for (uint32_t q = S->adjo[i]; q < S->adjo[i + 1]; q++) {
    uint32_t j = S->adj[q];
    if (S->placed[j] || S->minoff[j] >= h) continue;
    if (push(S, j, S->minoff[j])) return -1;
    S->minoff[j] = pk_align_item(in, h, j);
    if (wraps(S, j)) { alo = 0; ahi = S->K; continue; }
    if (S->lo[j] < alo) alo = S->lo[j];
    if (S->hi[j] > ahi) ahi = S->hi[j];
  }
  for (uint32_t tt = S->lo[i]; tt < S->hi[i]; tt++) {
    uint32_t t = SX(S, tt);
    uint32_t e = S->ibase[i] + (tt - S->lo[i]), q = S->spos[e], z = S->seco[t] + --S->scnt[t];
    uint32_t ez = S->sent[z];
    S->sec[q] = S->sec[z]; S->sent[q] = ez; S->spos[ez] = q;
    S->sec[z] = i; S->sent[z] = e; S->spos[e] = z;
    if (S->floor[t] < h) {
      if (push(S, t | FLOOR_BIT, S->floor[t])) return -1;
      S->floor[t] = h;
    }
    S->total[t] -= in->size[i];
  }
  const uint32_t *sec = S->sec;
  const uint64_t *minoff = S->minoff, *size = in->size;
  for (uint32_t t = alo; t < ahi; t++) {
    uint64_t mn = UINT64_MAX, fl = S->floor[t];
    uint32_t w = S->wit[t];
    if (!S->placed[w] && minoff[w] <= fl) mn = fl; /* the floor stands (w in t) */
    else
      for (uint32_t q = S->seco[t], qe = q + S->scnt[t]; q < qe; q++) {
        uint64_t m = minoff[sec[q]];
        if (m < mn) {
          mn = m;
          S->wit[t] = sec[q];
          if (mn <= fl) break; /* the floor stands */
        }
      }
    if (mn != UINT64_MAX && fl < mn) {
      if (push(S, t | FLOOR_BIT, S->floor[t])) return -1;
      S->floor[t] = mn;
    }
    /* the items here that can no longer go below h stack above it: the
     * ones that still can must hold at least need bytes. Dead, the
     * placement is undone at once: the other floors are not worth raising */
    if (h + S->total[t] > S->cap) {
      uint64_t need = h + S->total[t] - S->cap, lt = 0;
      for (uint32_t q = S->seco[t], qe = q + S->scnt[t]; q < qe && lt < need; q++) {
        uint32_t j = sec[q];
        lt += minoff[j] < h ? size[j] : 0;
      }
      if (lt < need) { S->dead = 1; break; }
    }
  }
  S->clo = alo < S->lo[i] ? alo : S->lo[i];
  S->chi = ahi > S->hi[i] ? ahi : S->hi[i];
  if (wraps(S, i)) { S->clo = 0; S->chi = S->K; }
  int cut = 0;
  uint32_t ca, cb;
  cut_range(S, i, &ca, &cb);
  for (uint32_t t = ca; t < cb; t++)
    if (--S->cuts[t] == 0) cut = 1;
  return cut;
}

static void unplace(ps *S, uint32_t i, size_t mark) {
  while (S->usp > mark) {
    S->usp--;
    uint32_t x = S->uidx[S->usp];
    if (x & FLOOR_BIT) S->floor[x & ~FLOOR_BIT] = S->uval[S->usp];
    else if (x & RANK_BIT) S->rank[x & ~RANK_BIT] = (uint32_t)S->uval[S->usp];
    else S->minoff[x] = S->uval[S->usp];
  }
  for (uint32_t t = S->lo[i]; t < S->hi[i]; t++) {
    S->total[SX(S, t)] += S->in->size[i];
    S->scnt[SX(S, t)]++; /* i sits right past the unplaced ones still */
  }
  uint32_t ca, cb;
  cut_range(S, i, &ca, &cb);
  for (uint32_t t = ca; t < cb; t++) S->cuts[t]++;
  S->placed[i] = 0;
  S->np--;
}

static int check(const ps *S, uint32_t lo, uint32_t hi, uint64_t o) {
  for (uint32_t t = lo; t < hi; t++) {
    if (!S->total[t]) continue;
    uint64_t f = S->floor[t] > o ? S->floor[t] : o;
    if (f + S->total[t] > S->cap) return 0;
  }
  return 1;
}

/* The clock, read every S->every nodes or dying placements: a reading
 * costs more than a small instance's node on some VMs, while too few
 * readings overrun short budgets. So the spacing adapts, readings
 * PS_CLOCK_FAST_NS-PS_CLOCK_SLOW_NS apart, within 1-PS_CLOCK_EVERY_MAX
 * events: a cheap phase (placements dying at once) must not stretch it over
 * the costly nodes after it */
static int out_of_time(ps *S) {
  if (--S->tick) return 0;
  uint64_t t = pk_now(), dt = t - S->last_clock;
  S->last_clock = t;
  if (dt > PS_CLOCK_SLOW_NS) S->every = 1;
  else if (dt < PS_CLOCK_FAST_NS && S->every < PS_CLOCK_EVERY_MAX) S->every *= 2;
  S->tick = S->every;
  return t > S->deadline;
}

#define FULL_SORT SIZE_MAX
static int rec(ps *S, uint32_t lo, uint32_t hi, const uint32_t *list, size_t nl, uint64_t last_off,
               uint32_t last_rank, size_t depth, size_t umark);

/* Solve the pieces of [lo, hi) split at the boundaries t in [a, b) that no
 * unplaced item crosses, one after the other; list holds the candidates. */
static int pieces(ps *S, uint32_t lo, uint32_t hi, uint32_t a, uint32_t b, const uint32_t *list, size_t nl,
                  size_t depth) {
  uint32_t *pl = S->pbuf + depth * S->n;
  uint32_t pa = lo;
  for (uint32_t t = a; t <= b; t++) {
    uint32_t pb;
    if (t == b) pb = hi;
    else if (S->cuts[t] == 0) pb = t + 1;
    else continue;
    if (pb <= pa) continue;
    size_t m = 0;
    for (size_t k = 0; k < nl; k++) {
      uint32_t j = list[k];
      if (!S->placed[j] && S->lo[j] < pb && S->hi[j] > pa) pl[m++] = j;
    }
    uint32_t from = pa;
    pa = pb;
    if (!m) continue;
    if (S->rks && ps_rerank(S, pl, m)) return R_OOM;
    int rc = rec(S, from, pb, pl, m, 0, 0, depth + 1, FULL_SORT);
    if (rc != R_FOUND) return rc;
  }
  return R_FOUND;
}

static int kless(const ps *S, uint32_t a, uint32_t b) {
  return S->minoff[a] < S->minoff[b] || (S->minoff[a] == S->minoff[b] && S->rank[a] < S->rank[b]);
}

/* The raised items of a node, sorted by (minoff, rank) without a
 * comparison sort (it was a tenth of a search's time at n = 200, with ~100
 * items raised per placement): ranks are distinct within a piece and below
 * n + 1, and a raised item's minoff is the placed top aligned up, so there
 * are few distinct values; by rank through a bitmap, then stably by value.
 * 1 (kv untouched) when some rank repeats or there are over 8 values. */
static int rank_order(ps *S, pk_kv *kv, size_t r) {
  uint64_t val[8];
  size_t nv = 0, cnt[8] = {0};
  uint64_t *bits = S->rbits;
  int bad = 0;
  size_t k;
  for (k = 0; k < r; k++) {
    uint32_t rk = (uint32_t)kv[k].k2, j = (uint32_t)kv[k].i;
    uint64_t b = 1ull << (rk % 64);
    if (bits[rk / 64] & b) { bad = 1; break; }
    bits[rk / 64] |= b;
    S->rslot[rk] = j;
    size_t v = 0;
    while (v < nv && val[v] != kv[k].k) v++;
    if (v == nv) {
      if (nv == 8) { bad = 1; k++; break; }
      val[nv++] = kv[k].k;
    }
    cnt[v]++;
  }
  if (bad) { /* undo the marks */
    for (size_t q = 0; q < k; q++) bits[(uint32_t)kv[q].k2 / 64] = 0;
    return 1;
  }
  /* value order (insertion sort of at most 8), then each value's start */
  size_t idx[8], start[8], at = 0;
  for (size_t v = 0; v < nv; v++) {
    size_t q = v;
    while (q > 0 && val[idx[q - 1]] > val[v]) { idx[q] = idx[q - 1]; q--; }
    idx[q] = v;
  }
  for (size_t q = 0; q < nv; q++) { start[idx[q]] = at; at += cnt[idx[q]]; }
  size_t W = S->rwords;
  for (size_t w = 0; w < W; w++)
    for (uint64_t x = bits[w]; x; x &= x - 1) {
      uint32_t rk = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(x)), j = S->rslot[rk];
      uint64_t mo = S->minoff[j];
      size_t v = 0;
      while (val[v] != mo) v++;
      kv[start[v]++] = (pk_kv){mo, rk, j};
    }
  memset(bits, 0, sizeof(uint64_t) * W);
  return 0;
}

/* Tight sections (floor + unplaced bytes = cap) can leave no gap: the
 * lowest ones, at floor f (returned; UINT64_MAX when none), must each be
 * covered right at f by an unplaced item whose minoff is f. Items at one
 * offset go in rank order, so every such section needs a cover ranked
 * above the last item placed at f, and nothing ranked above the section's
 * highest-ranked cover can go at f before it: *rmax gets the least of those
 * highest ranks over the sections (0: some section has no cover left, no
 * packing below). */
static uint64_t tight(ps *S, uint32_t lo, uint32_t hi, uint64_t last_off, uint32_t last_rank, uint32_t *rmax) {
  uint64_t f = UINT64_MAX;
  for (uint32_t t = lo; t < hi; t++)
    if (S->total[t] && S->floor[t] + S->total[t] >= S->cap && S->floor[t] < f) f = S->floor[t];
  if (f == UINT64_MAX) return f;
  uint32_t need = f == last_off ? last_rank : 0, best = UINT32_MAX;
  for (uint32_t t = lo; t < hi && best; t++) {
    if (!S->total[t] || S->floor[t] != f || S->floor[t] + S->total[t] < S->cap) continue;
    uint32_t r = 0;
    for (uint32_t q = S->seco[t], qe = q + S->scnt[t]; q < qe; q++) {
      uint32_t j = S->sec[q];
      if (S->minoff[j] == f && S->rank[j] > r && S->rank[j] >= need) r = S->rank[j];
    }
    if (r < best) best = r;
  }
  *rmax = best;
  return f;
}

/* list: the parent's order; when umark is not FULL_SORT, only the items the
 * parent's placement raised (undo entries from umark on) changed key, so the
 * rest stays in order and the raised ones are sorted and merged in. */
static int rec(ps *S, uint32_t lo, uint32_t hi, const uint32_t *list, size_t nl, uint64_t last_off,
               uint32_t last_rank, size_t depth, size_t umark) {
  const pk_inst *in = S->in;
  if (S->bsol && S->np > S->best_np) { /* deepest partial packing so far */
    S->best_np = S->np;
    memcpy(S->bsol, S->sol, sizeof(uint64_t) * S->n);
    memcpy(S->bplaced, S->placed, S->n);
  }
  size_t my = S->fd++;
  if (S->nodes >= S->node_limit) {
    S->abort_at = my;
    return R_ABORT;
  }
  S->nodes++;
  pk_charge(240 + 48 * (uint64_t)nl); /* the work clock: a node's sort and scans of its list */
  if (S->deadline && out_of_time(S)) return R_TIMEOUT;
  pk_kv *kv = S->kv;
  uint32_t *ord = S->lbuf + depth * S->n;
  size_t m = 0, r = 0;
  uint64_t minh = UINT64_MAX;
  uint32_t st = 0;
  if (umark != FULL_SORT) {
    st = ++S->stamp;
    for (size_t q = umark; q < S->usp; q++)
      if (!(S->uidx[q] & (FLOOR_BIT | RANK_BIT))) S->raised[S->uidx[q]] = st;
  }
  for (size_t k = 0; k < nl; k++) {
    uint32_t j = list[k];
    if (S->placed[j]) continue;
    uint64_t top = S->minoff[j] + in->size[j];
    if (top > S->cap) return R_NOTFOUND;
    if (top < minh) minh = top;
    if (st && S->raised[j] != st) ord[m++] = j;
    else kv[r++] = (pk_kv){S->minoff[j], S->rank[j], j};
  }
  if (!m && !r) return R_FOUND;
  if (r <= 16 || rank_order(S, kv, r)) pk_sort_kv(kv, r);
  size_t total = m + r;
  /* merge from the back: kept ord[0..m), raised kv[0..r) */
  for (size_t w = total; r > 0;) {
    uint32_t x = (uint32_t)kv[r - 1].i;
    if (m > 0 && kless(S, x, ord[m - 1])) ord[--w] = ord[--m];
    else { ord[--w] = x; r--; }
  }
  m = total;
  uint32_t tr = UINT32_MAX;
  uint64_t tf = S->tight ? tight(S, lo, hi, last_off, last_rank, &tr) : UINT64_MAX;
  if (!tr) return R_NOTFOUND;
  uint64_t hot_o = UINT64_MAX, hmax = 0;
  uint32_t hlo = UINT32_MAX, hhi = 0;
  size_t c0 = 0; /* a resumed frame goes on from the candidate it was at */
  if (S->resuming) {
    if (my < S->plen) c0 = S->path[my];
    else S->resuming = 0; /* the frontier: explored from its first candidate */
  }
  for (size_t c = c0; c < m; c++) {
    uint32_t i = ord[c];
    uint64_t o = S->minoff[i];
    if (o > tf || (o == tf && S->rank[i] > tr)) break; /* a tight section's cover comes first */
    if (o < last_off || (o == last_off && S->rank[i] < last_rank)) continue;
    if (o >= minh) break; /* sorted by offset: the rest would leave a gap too */
    if (o != hot_o) { /* sections whose unplaced bytes no longer fit above o */
      hot_o = o;
      hlo = UINT32_MAX; hhi = 0; hmax = 0;
      for (uint32_t t = lo; t < hi; t++)
        if (o + S->total[t] > S->cap) {
          if (t < hlo) hlo = t;
          hhi = t;
          if (S->total[t] > hmax) hmax = S->total[t];
        }
    }
    /* floors passed the parent's check; placing i lowers the totals of its
     * sections only, so every hot section must be among them, and fit then */
    if (hlo != UINT32_MAX && !wraps(S, i) && (hlo < S->lo[i] || hhi >= S->hi[i] || o + hmax - in->size[i] > S->cap))
      continue; /* (a wrapping item's placement is checked everywhere) */
    size_t mark = S->usp;
    if (my < S->pcap) S->path[my] = (uint32_t)c;
    int cut = place(S, i, o);
    int rc = R_NOTFOUND;
    if (cut < 0) rc = R_OOM;
    else if (!S->dead && check(S, S->clo > lo ? S->clo : lo, S->chi < hi ? S->chi : hi, o)) { /* the rest passed precheck */
      if (cut) {
        uint32_t ca, cb;
        cut_range(S, i, &ca, &cb);
        rc = pieces(S, lo, hi, ca, cb, ord, m, depth);
      }
      else rc = rec(S, lo, hi, ord, m, o, S->rank[i], depth + 1, mark);
    }
    unplace(S, i, mark);
    if (rc != R_NOTFOUND) return rc;
    S->fd = my + 1; /* the subtree's frames are off the path (pieces it finished too) */
    S->resuming = 0;
    /* children that die at once cost a placement each and no node: with
     * wrapping arcs that is a scan of every section, so they read the
     * clock too */
    pk_charge(80 + S->K);
    if (S->deadline && out_of_time(S)) return R_TIMEOUT;
  }
  return R_NOTFOUND;
}

int ps_pieces(ps *S, uint32_t lo, uint32_t hi, uint32_t a, uint32_t b, const uint32_t *list, size_t nl, size_t depth) {
  return pieces(S, lo, hi, a, b, list, nl, depth);
}
int ps_check(const ps *S, uint32_t lo, uint32_t hi, uint64_t o) { return check(S, lo, hi, o); }
