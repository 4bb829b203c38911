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
 * without a solution proves there is none. */
#include "pack_search.h"
#include "pack_sort.h"
#include <stdlib.h>
#include <string.h>

enum { R_NOTFOUND = 0, R_FOUND = 1, R_ABORT = 3, R_TIMEOUT = 4, R_OOM = -1 };

typedef struct rk { uint64_t k[3]; uint32_t i; } rk; /* preorder keys */

typedef struct ps {
  const pk_inst *in;
  size_t n;
  uint32_t K;
  uint64_t cap;
  uint32_t *lo, *hi;          /* section range [lo, hi) of each free item (rotated time) */
  uint32_t *adjo, *adj;       /* CSR: free neighbours */
  uint32_t *seco, *sec;       /* CSR: free items per section; the first scnt[t] of section t's
                                 are the unplaced ones (a placement swaps its item past them,
                                 its undo, last in first out, just counts it back) */
  uint32_t *scnt, *spos, *sent, *ibase; /* per section: unplaced count; per (item, section)
                                 entry ibase[i] + (tt - lo[i]): its index in sec; per sec slot:
                                 its entry */
  uint64_t *floor, *total, *minoff, *sol;
  uint32_t *wit;              /* wit[t]: an item of section t that last held its floor up (a hint) */
  uint32_t *cuts;             /* cuts[t]: unplaced items covering both t and t+1 */
  char *placed;
  uint32_t *rank;
  uint32_t *mark;            /* scratch */
  uint32_t *raised, stamp;   /* items whose minoff the last placement raised */
  int dead;                  /* the last placement left some section overfull */
  uint32_t clo, chi;         /* sections whose floor the last placement may have raised */
  uint32_t *uidx;             /* undo: index | FLOOR_BIT */
  uint64_t *uval;
  size_t usp, ucap;
  uint32_t *lbuf, *pbuf;      /* per depth: ordered candidates, piece lists */
  int heur;                   /* preorder in use */
  const uint64_t *width, *area;
  rk *rks;
  pk_kv *kv;
  uint64_t nodes, node_limit, deadline;
  uint32_t tick, every;        /* out_of_time: events to the next clock reading, and between them */
  uint64_t last_clock;
  uint64_t *rbits;            /* rank_order: a bit per rank (kept clear between calls) */
  uint32_t *rslot;            /* rank_order: the item of each marked rank */
  size_t rwords;
  int tight;                  /* cap is the load: sections can be tight (else tight() is pure cost) */
  size_t np, best_np;         /* items placed now; most ever placed at once */
  uint64_t *bsol;             /* the offsets of that deepest partial packing */
  char *bplaced;
  /* resuming a preorder where its last round stopped: path[f] is the
   * candidate tried at the f-th frame along the current path (finished
   * pieces' frames included), plen frames of it lead to the frontier */
  uint32_t *path;
  size_t fd, plen, pcap, abort_at;
  int resuming;
  uint32_t *jit;              /* restarts with slack: per item, the preorder's first key is
                                 scaled by jit/1024, in [1, 2) (NULL: the keys as they are) */
} ps;

#define FLOOR_BIT 0x80000000u
#define RANK_BIT 0x40000000u

/* On a cycle, an item alive at the cut point t0 wraps: its sections are
 * [lo, K) and [0, hi - K) (hi > K). SX maps a section index in [0, 2K)
 * into [0, K). A wrapping item crosses every boundary as far as the
 * decomposition goes: nothing splits while one is unplaced. */
#define SX(S, t) ((t) >= (S)->K ? (t) - (S)->K : (t))
static int wraps(const ps *S, uint32_t i) { return S->hi[i] > S->K; }
static void cut_range(const ps *S, uint32_t i, uint32_t *a, uint32_t *b) {
  if (wraps(S, i)) { *a = 0; *b = S->K - 1; }
  else { *a = S->lo[i]; *b = S->hi[i] - 1; }
}

static int push(ps *S, uint32_t idx, uint64_t v) {
  if (S->usp == S->ucap) {
    size_t c = S->ucap ? S->ucap * 2 : 4096;
    uint32_t *a = realloc(S->uidx, c * sizeof *a);
    if (!a) return -1;
    S->uidx = a;
    uint64_t *b = realloc(S->uval, c * sizeof *b);
    if (!b) return -1;
    S->uval = b;
    S->ucap = c;
  }
  S->uidx[S->usp] = idx;
  S->uval[S->usp++] = v;
  return 0;
}

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
 * costs more than a small instance's node on some VMs, while 64 nodes of
 * 150 items overran 0.5 ms budgets by 0.1 ms on dev and 0.25 ms on the H100
 * machine's slower cores. So the spacing adapts, readings 3-20 us apart,
 * within 1-16 events: a cheap phase (placements dying at once) must not
 * stretch it over the costly nodes after it (at 256 that overran by 4 ms) */
static int out_of_time(ps *S) {
  if (--S->tick) return 0;
  uint64_t t = fg_now_ns(), dt = t - S->last_clock;
  S->last_clock = t;
  if (dt > 20000) S->every = 1;
  else if (dt < 3000 && S->every < 16) S->every *= 2;
  S->tick = S->every;
  return t > S->deadline;
}

#define FULL_SORT SIZE_MAX
static int rec(ps *S, uint32_t lo, uint32_t hi, const uint32_t *list, size_t nl, uint64_t last_off,
               uint32_t last_rank, size_t depth, size_t umark);

/* Solve the pieces of [lo, hi) split at the boundaries t in [a, b) that no
 * unplaced item crosses, one after the other; list holds the candidates. */
static int rerank(ps *S, const uint32_t *pl, size_t m);

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
    if (S->rks && rerank(S, pl, m)) return R_OOM;
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
    if (S->deadline && out_of_time(S)) return R_TIMEOUT;
  }
  return R_NOTFOUND;
}

static void ps_free(ps *S) {
  free(S->lo); free(S->hi); free(S->adjo); free(S->adj); free(S->seco); free(S->sec);
  free(S->scnt); free(S->spos); free(S->sent); free(S->ibase);
  free(S->floor); free(S->total); free(S->minoff); free(S->sol); free(S->cuts); free(S->placed); free(S->wit);
  free(S->bsol); free(S->bplaced);
  free(S->rank); free(S->raised); free(S->mark); free(S->uidx); free(S->uval); free(S->lbuf);
  free(S->pbuf); free(S->kv); free(S->rbits); free(S->rslot);
}

/* Preorder: 0 = WAT, 1 = TAW, 2 = TWA (W: lifetime width, A: area, T: max
 * section total), each key descending, ties by index. */
static int rk_cmp(const void *a, const void *b) {
  const rk *x = a, *y = b;
  for (int q = 0; q < 3; q++)
    if (x->k[q] != y->k[q]) return x->k[q] > y->k[q] ? -1 : 1;
  return x->i < y->i ? -1 : x->i > y->i;
}
/* Item i's keys under preorder h from its width C, area A and section
 * total T; with restart factors the first key is scaled (saturating: keys
 * above 2^53 tie there, which only changes the order, never a result). */
static void rk_set(const ps *S, int h, rk *r, uint32_t i, uint64_t C, uint64_t A, uint64_t T) {
  r->i = i;
  r->k[0] = h == 0 ? C : T;
  r->k[1] = h == 2 ? C : A;
  r->k[2] = h == 0 ? T : h == 1 ? C : A;
  if (S->jit) r->k[0] = r->k[0] > (UINT64_MAX >> 11) ? UINT64_MAX : r->k[0] * S->jit[i];
}
static void set_rank(ps *S, int h, rk *r, const uint64_t *width, const uint64_t *area, const uint64_t *tot) {
  size_t m = 0;
  for (size_t i = 0; i < S->n; i++)
    if (!S->placed[i]) rk_set(S, h, &r[m++], (uint32_t)i, width[i], area[i], tot[i]);
  qsort(r, m, sizeof *r, rk_cmp);
  for (size_t k = 0; k < m; k++) S->rank[r[k].i] = (uint32_t)k + 1;
}

/* A new piece is a new problem: its items are ranked again by the preorder
 * in use with today's section totals, as MiniMalloc's SubSolve does; the old
 * ranks go on the undo stack. */
static int rerank(ps *S, const uint32_t *pl, size_t m) {
  rk *r = S->rks;
  int h = S->heur;
  for (size_t k = 0; k < m; k++) {
    uint32_t i = pl[k];
    uint64_t T = 0;
    for (uint32_t t = S->lo[i]; t < S->hi[i]; t++)
      if (S->total[SX(S, t)] > T) T = S->total[SX(S, t)];
    rk_set(S, h, &r[k], i, S->width[i], S->area[i], T);
  }
  qsort(r, m, sizeof *r, rk_cmp);
  for (size_t k = 0; k < m; k++) {
    uint32_t i = r[k].i;
    if (push(S, i | RANK_BIT, S->rank[i])) return -1;
    S->rank[i] = (uint32_t)k + 1;
  }
  return 0;
}

/* Places the unplaced items (placed[i] == 0) of off by first fit, largest
 * first, against everything placed so far: one list of the placed items by
 * offset, walked and extended per item (no sort per item: this runs when
 * the time is up already). */
static int complete(const pk_inst *in, uint64_t *off, char *placed) {
  size_t n = in->n, nu = 0, np = 0;
  pk_kv *kv = malloc(sizeof(pk_kv) * n), *pl = malloc(sizeof(pk_kv) * n);
  if (!kv || !pl) { free(kv); free(pl); return -1; }
  for (size_t i = 0; i < n; i++) {
    if (!placed[i]) kv[nu++] = (pk_kv){UINT64_MAX - in->size[i], 0, i};
    else pl[np++] = (pk_kv){off[i], off[i] + in->size[i], i};
  }
  pk_sort_kv(kv, nu);
  pk_sort_kv(pl, np);
  for (size_t u = 0; u < nu; u++) {
    size_t i = kv[u].i, at = np;
    uint64_t o = 0;
    for (size_t k = 0; k < np; k++) {
      if (!pk_conflict_arcs(in, i, pl[k].i)) continue;
      o = pk_align_item(in, o, i);
      if (o + in->size[i] <= pl[k].k) break; /* fits in the gap below */
      if (pl[k].k2 > o) o = pl[k].k2;
    }
    off[i] = o = pk_align_item(in, o, i);
    placed[i] = 1;
    while (at > 0 && pl[at - 1].k > o) at--; /* keep pl sorted by offset */
    memmove(pl + at + 1, pl + at, sizeof(pk_kv) * (np - at));
    pl[at] = (pk_kv){o, o + in->size[i], i};
    np++;
  }
  free(kv); free(pl);
  return 0;
}

static int decide(const pk_inst *in, uint64_t cap, uint64_t deadline, uint64_t *out, uint64_t *partial,
                  int *have_partial, uint64_t *budget, uint64_t *setup_ns);

/* Can the whole-cycle items be stacked at the bottom without losing a
 * packing? Moving one down lifts what was below it by its size, which keeps
 * alignments where their sizes are multiples of every alignment. */
static int whole_exact(const pk_inst *in) {
  uint64_t amax = 1;
  if (in->phase) return 0; /* phases: moving down may misalign */
  for (size_t i = 0; i < in->n; i++)
    if (in->align[i] > amax) amax = in->align[i];
  for (size_t i = 0; i < in->n; i++)
    if (in->len[i] >= in->K && in->size[i] % amax) return 0;
  return 1;
}

/* A cycle is cut at its least loaded point; the arcs alive there
 * (*ncross, whole-cycle items apart) wrap round, and then the cut moves to
 * the least loaded point where some item ends (so that the last point of
 * the rotated line is kept by decide_sections). 0 on a line. */
static uint32_t cut_point(const pk_inst *in, size_t *ncross) {
  uint32_t K = in->K, t0 = 0;
  *ncross = 0;
  if (!in->cyclic) return 0;
  uint64_t *prof = malloc(sizeof(uint64_t) * K);
  if (!prof) return 0; /* any point will do */
  pk_profile(in, prof, 0);
  for (uint32_t t = 1; t < K; t++)
    if (prof[t] < prof[t0]) t0 = t;
  for (size_t i = 0; i < in->n; i++) *ncross += in->len[i] < K && pk_contains(in, i, t0);
  int any = 0;
  for (size_t i = 0; i < in->n && *ncross; i++) /* arcs wrap: point K-1 must be kept */
    if (in->len[i] < K && (!any || prof[in->e[i] % K] < prof[t0])) { t0 = in->e[i] % K; any = 1; }
  free(prof);
  return t0;
}

int pk_search_decide(const pk_inst *in, uint64_t cap, uint64_t deadline, uint64_t *out) {
  return decide(in, cap, deadline, out, NULL, NULL, NULL, NULL);
}

/* The decision's buffers (ps_free frees them; area, tot, rks and width are
 * the caller's: freed by decide). 0 or -1 on OOM. */
static int decide_alloc(ps *S, int want_partial, uint64_t **area, uint64_t **tot, rk **rks, uint64_t **width) {
  size_t n = S->n, nn = n + 2;
  uint32_t K = S->K;
  S->lo = malloc(sizeof(uint32_t) * n); S->hi = malloc(sizeof(uint32_t) * n);
  S->adjo = calloc(n + 1, sizeof(uint32_t));
  S->seco = calloc((size_t)K + 1, sizeof(uint32_t));
  S->floor = calloc(K, sizeof(uint64_t)); S->total = calloc(K, sizeof(uint64_t));
  S->minoff = calloc(n, sizeof(uint64_t)); S->sol = calloc(n, sizeof(uint64_t));
  S->cuts = calloc(K, sizeof(uint32_t)); S->placed = calloc(n, 1); S->wit = malloc(sizeof(uint32_t) * (K ? K : 1));
  if (want_partial) {
    S->bsol = malloc(sizeof(uint64_t) * n);
    S->bplaced = malloc(n);
    if (!S->bsol || !S->bplaced) return -1;
  }
  S->rank = calloc(n, sizeof(uint32_t)); S->raised = calloc(n, sizeof(uint32_t)); S->mark = calloc(K, sizeof(uint32_t));
  S->lbuf = malloc(sizeof(uint32_t) * n * nn); S->pbuf = malloc(sizeof(uint32_t) * n * nn);
  S->kv = malloc(sizeof(pk_kv) * n);
  S->rwords = (n + 1) / 64 + 1;
  S->rbits = calloc(S->rwords, sizeof(uint64_t)); S->rslot = malloc(sizeof(uint32_t) * (n + 1));
  *area = malloc(sizeof(uint64_t) * n); *tot = calloc(n, sizeof(uint64_t));
  *rks = malloc(sizeof(rk) * n);
#ifndef NO_RERANK
  S->rks = *rks;
#endif
  S->width = *width = malloc(sizeof(uint64_t) * n);
  S->area = *area;
  if (!S->lo || !S->hi || !S->adjo || !S->seco || !S->floor || !S->total || !S->minoff || !S->sol || !S->cuts || !S->wit ||
      !S->placed || !S->rank || !S->raised || !S->mark || !S->lbuf || !S->pbuf || !S->kv || !S->rbits || !S->rslot || !*area || !*tot ||
      !*rks || !*width)
    return -1;
  const pk_inst *in = S->in;
  if (in->phase) /* nothing below an item's phase */
    for (size_t i = 0; i < n; i++) S->minoff[i] = pk_align_item(in, 0, i);
  return 0;
}

/* Fixed items, stacked at the bottom longest first, then largest first;
 * they set floors and minoffs: whole-cycle items where whole_exact (a
 * search that placed them itself could not decompose until it had: far
 * slower). *exact is cleared where "none" is then no proof. Returns the
 * top of the stack. Where no arc crosses t0 (ncross), a line above the
 * whole-cycle stack, they are stacked anyway (that search is far quicker;
 * and nothing would keep point K-1: see cut_point). (Stacking the arcs
 * alive at t0 too was a quicker heuristic, tried first on cycles until
 * this search's set-up got cheap; exact, the search is better at every
 * budget measured: with history n = 40 1.0057 -> 1.0029 at 0.5 ms.) */
static uint64_t decide_fix(ps *S, uint32_t t0, size_t ncross, int *exact) {
  const pk_inst *in = S->in;
  size_t n = S->n, m = 0;
  uint32_t K = S->K;
  uint64_t h = 0;
  int wex = whole_exact(in), fixwhole = wex || !ncross;
  for (size_t i = 0; i < n; i++) {
    if (in->len[i] < K || !fixwhole) continue;
    if (!wex) *exact = 0;
    S->kv[m++] = (pk_kv){UINT64_MAX - in->len[i], UINT64_MAX - in->size[i], i};
  }
  pk_sort_kv(S->kv, m);
  for (size_t k = 0; k < m; k++) {
    size_t i = S->kv[k].i;
    S->sol[i] = pk_align_item(in, h, i);
    h = S->sol[i] + in->size[i];
    S->placed[i] = 1;
  }
  for (size_t k = 0; k < m; k++) { /* floors (sections rotated by t0) and minoffs */
    size_t f = S->kv[k].i;
    uint64_t top = S->sol[f] + in->size[f];
    for (size_t j = 0; j < n; j++)
      if (!S->placed[j] && S->minoff[j] < top && pk_conflict_arcs(in, f, j)) S->minoff[j] = pk_align_item(in, top, j);
    for (uint32_t t = 0; t < K; t++)
      if (S->floor[t] < top && pk_contains(in, f, (t + t0) % K)) S->floor[t] = top;
  }
  return h;
}

/* Ranges rotated to start at t0 (those alive there wrap), width and area. */
static void decide_ranges(ps *S, uint32_t t0, int cyc, uint64_t *width, uint64_t *area) {
  const pk_inst *in = S->in;
  size_t n = S->n;
  uint32_t K = S->K;
  for (size_t i = 0; i < n; i++) {
    if (S->placed[i]) { S->lo[i] = S->hi[i] = 0; continue; } /* whole-cycle stack */
    uint32_t a = cyc ? (in->s[i] + K - t0) % K : in->s[i];
    S->lo[i] = a;
    S->hi[i] = a + in->len[i];
    width[i] = cyc ? in->len[i] : in->items[i].stop - in->items[i].start;
    area[i] = in->size[i] * width[i];
  }
}

/* Sections as MiniMalloc's sweep makes them: a point matters only where
 * some free item ends right after it; the others hold a subset of the
 * next kept point's items (two items that meet share a kept point). */
static void decide_sections(ps *S) {
  size_t n = S->n;
  uint32_t K = S->K;
  uint32_t *keep = S->cuts; /* scratch, cleared below */
  for (size_t i = 0; i < n; i++)
    if (!S->placed[i]) keep[(S->hi[i] - 1) % K] = 1;
  uint32_t Kc = 0;
  for (uint32_t t = 0; t < K; t++) {
    uint32_t k = keep[t];
    keep[t] = Kc; /* kept points before t */
    if (k) S->floor[Kc++] = S->floor[t];
  }
  for (size_t i = 0; i < n; i++)
    if (!S->placed[i]) {
      /* a wrapping item ends in the next lap (point K-1 is kept: see decide) */
      uint32_t a = keep[S->lo[i]], b = keep[(S->hi[i] - 1) % K] + 1 + (S->hi[i] > K ? Kc : 0);
      S->lo[i] = a;
      S->hi[i] = b;
    }
  memset(keep, 0, sizeof(uint32_t) * K);
  memset(S->floor + Kc, 0, sizeof(uint64_t) * (K - Kc));
  S->K = Kc ? Kc : 1;
}

/* Section lists and totals, cuts, adjacency (free items) and each free
 * item's largest section total (tot). Two free items meet iff they share a
 * section (decide_sections keeps a point of every meeting pair), so a row of
 * the adjacency is the OR of its sections' item bitsets: a few words per
 * section instead of a test per pair (that test, mispredicted half the
 * time, was most of a search's set-up: 0.4 ms at n = 200). 0 or -1 on OOM. */
static int decide_lists(ps *S, uint64_t *tot) {
  const pk_inst *in = S->in;
  size_t n = S->n;
  uint32_t K = S->K;
  for (size_t i = 0; i < n; i++)
    if (!S->placed[i]) {
      for (uint32_t t = S->lo[i]; t < S->hi[i]; t++) { S->seco[SX(S, t) + 1]++; S->total[SX(S, t)] += in->size[i]; }
      uint32_t ca, cb;
      cut_range(S, (uint32_t)i, &ca, &cb);
      for (uint32_t t = ca; t < cb; t++) S->cuts[t]++;
    }
  for (uint32_t t = 0; t < K; t++) S->seco[t + 1] += S->seco[t];
  size_t ns = S->seco[K], W = (n + 63) / 64;
  S->sec = malloc(sizeof(uint32_t) * (ns ? ns : 1));
  S->sent = malloc(sizeof(uint32_t) * (ns ? ns : 1));
  S->spos = malloc(sizeof(uint32_t) * (ns ? ns : 1));
  S->scnt = malloc(sizeof(uint32_t) * (K ? K : 1));
  S->ibase = malloc(sizeof(uint32_t) * (n + 1));
  uint64_t *sbits = calloc((size_t)K * W, sizeof(uint64_t)), *rows = malloc(sizeof(uint64_t) * W * n);
  if (!S->sec || !S->sent || !S->spos || !S->scnt || !S->ibase || !sbits || !rows) { free(sbits); free(rows); return -1; }
  uint32_t *fill = S->mark; /* reused as fill pointers, then cleared */
  for (uint32_t t = 0; t < K; t++) { fill[t] = S->seco[t]; S->scnt[t] = S->seco[t + 1] - S->seco[t]; }
  uint32_t nb = 0;
  for (size_t i = 0; i < n; i++) {
    S->ibase[i] = nb;
    if (!S->placed[i])
      for (uint32_t t = S->lo[i]; t < S->hi[i]; t++) {
        uint32_t q = fill[SX(S, t)]++;
        S->sec[q] = (uint32_t)i;
        S->sent[q] = nb;
        S->spos[nb++] = q;
        sbits[(size_t)SX(S, t) * W + i / 64] |= 1ull << (i % 64);
      }
  }
  memset(S->mark, 0, sizeof(uint32_t) * K);
  for (uint32_t t = 0; t < K; t++) S->wit[t] = S->seco[t + 1] > S->seco[t] ? S->sec[S->seco[t]] : 0;
  /* adjacency, neighbours in index order: rows and their counts, then filled */
  for (size_t i = 0; i < n; i++) {
    if (S->placed[i]) continue;
    uint64_t *row = rows + i * W;
    memset(row, 0, sizeof(uint64_t) * W);
    for (uint32_t t = S->lo[i]; t < S->hi[i]; t++) {
      const uint64_t *sb = sbits + (size_t)SX(S, t) * W;
      for (size_t w = 0; w < W; w++) row[w] |= sb[w];
    }
    row[i / 64] &= ~(1ull << (i % 64));
    for (size_t w = 0; w < W; w++) S->adjo[i + 1] += (uint32_t)__builtin_popcountll(row[w]);
  }
  for (size_t i = 0; i < n; i++) S->adjo[i + 1] += S->adjo[i];
  size_t ne = S->adjo[n];
  S->adj = malloc(sizeof(uint32_t) * (ne ? ne : 1));
  if (!S->adj) { free(sbits); free(rows); return -1; }
  for (size_t i = 0; i < n; i++) {
    if (S->placed[i]) continue;
    uint32_t *a = S->adj + S->adjo[i];
    for (size_t w = 0; w < W; w++)
      for (uint64_t x = rows[i * W + w]; x; x &= x - 1) *a++ = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(x));
  }
  free(sbits); free(rows);
  for (size_t i = 0; i < n; i++)
    if (!S->placed[i])
      for (uint32_t t = S->lo[i]; t < S->hi[i]; t++)
        if (S->total[SX(S, t)] > tot[i]) tot[i] = S->total[SX(S, t)];
  return 0;
}

/* partial, when given, receives when nothing was found the deepest partial
 * packing under cap, completed by first fit (its makespan may exceed cap);
 * *have_partial says whether it was written. */
/* budget, when given: nodes left for this and later calls (counted down;
 * at 0 the call ends as if out of time) */
static int decide(const pk_inst *in, uint64_t cap, uint64_t deadline, uint64_t *out, uint64_t *partial,
                  int *have_partial, uint64_t *budget, uint64_t *setup_ns) {
  uint64_t t_in = setup_ns ? fg_now_ns() : 0;
  if (setup_ns) *setup_ns = 0;
  if (have_partial) *have_partial = 0;
  size_t n = in->n;
  uint32_t K = in->K;
  if (!n) return PS_FOUND;
  ps S;
  memset(&S, 0, sizeof S);
  S.in = in; S.n = n; S.K = K; S.cap = cap; S.deadline = deadline;
  S.every = S.tick = 8;
  S.last_clock = fg_now_ns();
  int cyc = in->cyclic, rc = -1;
  uint64_t *area = NULL, *tot = NULL, *width = NULL;
  rk *rks = NULL;
  uint32_t *paths = NULL, *jbuf = NULL;
  size_t plens[3] = {0, 0, 0};
  size_t ncross;
  uint32_t t0 = cut_point(in, &ncross);
  if (decide_alloc(&S, partial != NULL, &area, &tot, &rks, &width)) goto out;
  int exact = 1;
  if ((cyc ? decide_fix(&S, t0, ncross, &exact) : 0) > cap) { rc = exact ? PS_NONE : PS_UNKNOWN; goto out; }
  decide_ranges(&S, t0, cyc, width, area);
  decide_sections(&S);
  K = S.K;
  if (decide_lists(&S, tot)) goto out;
  /* every free item, for the top-level pieces */
  uint32_t *all = S.pbuf + (n + 1) * n;
  size_t nall = 0;
  for (size_t i = 0; i < n; i++)
    if (!S.placed[i]) all[nall++] = (uint32_t)i;
  if (!nall) { rc = PS_FOUND; goto found; }
  /* quick infeasibility: a section over the capacity already */
  if (!check(&S, 0, K, 0)) { rc = exact ? PS_NONE : PS_UNKNOWN; goto out; }
  for (uint32_t t = 0; t < K; t++) S.tight |= S.floor[t] + S.total[t] == cap;
  uint64_t limit = n;
  S.pcap = 2 * n + 4; /* frames along a path: one per placement, one per finished piece */
  paths = malloc(sizeof(uint32_t) * 3 * S.pcap);
  if (!paths) goto out;
  if (setup_ns) *setup_ns = fg_now_ns() - t_in;
  /* Where the capacity leaves slack nothing is tight and inference is weak:
   * one long dive per preorder thrashes in the subtree of an early wrong
   * choice (guillotine n = 200 at 1.06 x OPT: dives reach 197 of 200 items
   * and fail). There every round after the first restarts each preorder
   * with its first key scaled by a random factor in [1, 2) per item, drawn
   * again each round: new early choices (guillotine n = 200, 40 instances,
   * 1 s: linear 1.1054 -> 1.0856, cyclic 1.0785 -> 1.0628; restarting
   * without the factors, 1.1085 / 1.0910, is worse than resuming). At the
   * load (tight sections) the preorders resume as they are: perfect fits
   * need their order, and MiniMalloc's instances are solved there. */
  uint64_t rs = 0x9e3779b97f4a7c15ull ^ cap;
  if (!S.tight && !(jbuf = malloc(sizeof(uint32_t) * n))) goto out;
  for (int round = 0;; round++) {
    limit = limit < (UINT64_MAX >> 2) ? limit * 2 : limit;
    if (jbuf && round > 0) {
      S.jit = jbuf;
      for (size_t i = 0; i < n; i++) {
        rs = rs * 6364136223846793005ull + 1442695040888963407ull;
        jbuf[i] = 1024 + (uint32_t)((rs >> 33) % 1024);
      }
      plens[0] = plens[1] = plens[2] = 0;
    }
    for (int hh = 0; hh < 3; hh++) {
      set_rank(&S, hh, rks, width, area, tot);
      S.heur = hh;
      S.usp = 0; /* top-level re-rankings are never undone */
      S.nodes = 0;
      S.node_limit = budget && *budget < limit ? *budget : limit;
      /* MiniMalloc restarts each preorder from scratch under the doubled
       * limit, re-exploring what its last round did; the search is
       * deterministic, so this round replays the path to where that one
       * stopped (a node per frame) and goes on from there */
      S.path = paths + (size_t)hh * S.pcap;
      S.plen = plens[hh];
      S.resuming = S.plen > 0;
      S.fd = 0;
      S.abort_at = SIZE_MAX;
      int r = budget && !*budget ? R_TIMEOUT : pieces(&S, 0, K, 0, K - 1, all, nall, 0);
      /* (stopped while still replaying: nothing new explored, same path) */
      if (r == R_ABORT && !S.resuming) plens[hh] = S.abort_at <= S.pcap ? S.abort_at : 0;
      if (budget) *budget -= S.nodes < *budget ? S.nodes : *budget;
      if (r == R_FOUND) { rc = PS_FOUND; goto found; }
      if (r == R_NOTFOUND || r == R_TIMEOUT) {
        /* the deepest partial packing, completed, whether the search ran
         * out of time or of packings (a quick "none" left it unused) */
        rc = r == R_TIMEOUT || !exact ? PS_UNKNOWN : PS_NONE;
        if (partial && S.best_np) {
          memcpy(partial, S.bsol, sizeof(uint64_t) * n);
          if (complete(in, partial, S.bplaced)) rc = -1;
          else *have_partial = 1;
        }
        goto out;
      }
      if (r == R_OOM) { rc = -1; goto out; }
    }
  }
found:
  memcpy(out, S.sol, sizeof(uint64_t) * n);
out:
  free(area); free(tot); free(rks); free(width); free(paths); free(jbuf);
  ps_free(&S);
  return rc;
}

static uint64_t eff_makespan(const pk_inst *in, const uint64_t *off) {
  uint64_t m = 0;
  for (size_t i = 0; i < in->n; i++)
    if (off[i] + in->size[i] > m) m = off[i] + in->size[i];
  return m;
}

/* The most alignment padding a stack of the items alive at a point of peak
 * load could need: sum of (align - 1) there (the largest over such points).
 * LOAD itself is seldom reachable when sizes break alignments: the first
 * attempt goes this much above the bound. 0 on OOM. */
static uint64_t peak_pad(const pk_inst *in) {
  uint32_t K = in->K;
  int64_t *d = calloc(2 * ((size_t)K + 1), sizeof(int64_t)), *p = d + K + 1;
  if (!d) return 0;
  for (size_t i = 0; i < in->n; i++) {
    int64_t sz = (int64_t)in->size[i], al = (int64_t)in->align[i] - 1;
    uint32_t a = in->s[i], b = in->e[i];
    if (a == b) { d[0] += sz; d[K] -= sz; p[0] += al; p[K] -= al; }
    else if (a < b) { d[a] += sz; d[b] -= sz; p[a] += al; p[b] -= al; }
    else { d[a] += sz; d[K] -= sz; d[0] += sz; d[b] -= sz; p[a] += al; p[K] -= al; p[0] += al; p[b] -= al; }
  }
  int64_t load = 0, pad = 0;
  uint64_t best = 0, bpad = 0;
  for (uint32_t t = 0; t < K; t++) {
    load += d[t];
    pad += p[t];
    if ((uint64_t)load > best) { best = (uint64_t)load; bpad = (uint64_t)pad; }
    else if ((uint64_t)load == best && (uint64_t)pad > bpad) bpad = (uint64_t)pad;
  }
  free(d);
  return bpad;
}

int pk_search_improve(const pk_inst *in, uint64_t lb, uint64_t deadline, uint64_t max_nodes, uint64_t *off,
                      int *proved) {
  uint64_t left = max_nodes, *budget = max_nodes ? &left : NULL;
  size_t n = in->n;
  *proved = 0;
  uint64_t M = eff_makespan(in, off);
  if (M <= lb) { *proved = 1; return 0; }
  if (n > PS_MAX_N) return 0; /* per-depth lists take 8 n^2 bytes */
  uint64_t *tmp = malloc(sizeof(uint64_t) * (n ? n : 1)), *part = malloc(sizeof(uint64_t) * (n ? n : 1));
  if (!tmp || !part) { free(tmp); free(part); return -1; }
  uint64_t lo = lb, proven = lb; /* below proven: infeasible (proved) */
  int improved = 0;
  uint64_t cap = lb, setup = (uint64_t)n * n, pad = peak_pad(in);
  if (pad > lb / 1024) pad = lb / 1024; /* no further than the bisection's own tolerance */
  int first = 1;
  while (lo < M) {
    uint64_t now = fg_now_ns();
    /* an attempt's set-up cannot be cut short and is quadratic (about a
     * nanosecond per pair on dev, twice that on slower cores): not worth
     * starting without twice the longest one seen so far left */
    if (now >= deadline || deadline - now < 2 * setup) break;
    uint64_t rem = deadline - now, slice = first ? rem / 4 * 3 : rem / 3;
    int at_lb = 0;
    if (!first && M - lo <= lb / 1024) { /* within 0.1 %: bisection is not worth the time */
      /* but the bound itself, where the first attempt went above it and
       * nothing failed at it yet, is: tight sections make the search
       * strongest there, and a packing at the bound ends the call proved
       * optimal. With the rest of the time (guillotine, 20 per n, 1 s:
       * n = 50 at OPT 0 -> 16 / 17 of 20 linear / cyclic, median time
       * 1000 -> 79 / 35 ms; n = 100 at OPT 0 -> 5 / 9, but where it fails
       * it takes the rest: median 45 -> 917 ms; Enlisted within noise) */
      if (lo != lb || !pad) break; /* (an attempt there raises lo or ends the loop) */
      at_lb = 1;
      slice = rem;
    }
    /* the first attempt at the bound plus the padding alignments may force
     * there, up to the tolerance above: at the bound itself it is seldom
     * feasible when sizes break alignments, and never proved infeasible in
     * time (test_best_unchanged's instances: mean 1.009586 -> 1.005816;
     * guillotine n = 100, 1 s: linear 1.0111 -> 1.0026, cyclic 1.0003 ->
     * 1.0112, where the tight sections at the bound helped) */
    cap = at_lb ? lb : first ? (M - lo > pad ? lo + pad : lo) : lo + (M - lo) / 2;
    int have_part = 0;
    uint64_t su = 0;
    int r = decide(in, cap, now + slice, tmp, part, &have_part, budget, &su);
    if (su > setup) setup = su;
    if (r < 0) { free(tmp); free(part); return -1; }
    if (r == PS_FOUND) {
      uint64_t m2 = eff_makespan(in, tmp);
      if (m2 < M) {
        M = m2;
        memcpy(off, tmp, sizeof(uint64_t) * n);
        improved = 1;
      }
      if (m2 > cap) break; /* cannot happen; guard against looping */
    } else {
      /* out of time: the deepest partial packing, completed, may still be
       * better than what we have */
      if (have_part && eff_makespan(in, part) < M) {
        M = eff_makespan(in, part);
        memcpy(off, part, sizeof(uint64_t) * n);
        improved = 1;
      }
      if (r == PS_NONE && cap + 1 > proven) proven = cap + 1;
      lo = cap + 1;
    }
    first = 0;
    if (budget && !left) break;
  }
  *proved = M <= proven;
  free(tmp); free(part);
  return improved;
}

/* ------------------------------------------------------------ public entry */

int fg_pack_search(const fg_pack_item *items, size_t n, const fg_pack_desc *desc, uint64_t capacity,
                   double budget_ms, uint64_t *offsets, char *err, size_t errlen) {
  fg_pack_desc d0;
  memset(&d0, 0, sizeof d0);
  if (!desc) desc = &d0;
  uint64_t P = desc->period;
  for (size_t i = 0; i < n; i++) {
    uint64_t a = items[i].align;
    if (!items[i].size || (a & (a - 1)) || (P ? items[i].start >= P || items[i].stop > P
                                              : items[i].start >= items[i].stop)) {
      fg_errf(err, errlen, "item %zu: bad size, align or lifetime (see fg_pack)", i + 1);
      return -1;
    }
  }
  if (!n) return PS_FOUND;
  pk_inst in;
  if (pk_build(&in, items, n, desc)) {
    fg_errf(err, errlen, "out of memory");
    return -1;
  }
  int rc = pk_search_decide(&in, capacity, budget_ms > 0 ? fg_now_ns() + (uint64_t)(budget_ms * 1e6) : 0, offsets);
  if (rc < 0) fg_errf(err, errlen, "out of memory");
  pk_free(&in);
  return rc;
}
