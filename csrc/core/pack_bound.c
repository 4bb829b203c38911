/* Lower bounds on a cycle beyond LOAD. Arcs of a cycle can meet pairwise
 * without sharing a point, so the heaviest set of pairwise-meeting items (a
 * clique of the conflict graph) can weigh more than LOAD; any clique is a
 * lower bound on every packing, so capped or greedy searches stay valid.
 * On a line every clique shares a point (Helly) and LOAD is the bound. */
#include "pack_bound.h"
#include "pack_mem.h"
#include "pack_sort.h"
#include "fg_util.h"
#include <stdlib.h>
#include <string.h>

/* The heaviest clique, exactly, in polynomial time. Fix a point p. A
 * clique's members that miss p are intervals of the line cut at p meeting
 * pairwise, so they share a point q (Helly). So the clique lies in
 * A_p u A_q (A_t: the items alive at t); it holds all of A_p n A_q (they
 * meet everything there), and from X = A_p \ A_q and Y = A_q \ A_p a set
 * in which every x meets every y. On the line cut at p, y is an interval
 * [l, r) and x's complement a gap [a, b) (both hold q); x misses y iff
 * a <= l and r <= b: a dominance order. The x taken decide a union D of
 * quadrants {l >= a, r <= b}; every x inside D comes free, every y inside
 * D goes. So for each q: L(q) plus the best staircase of signed points
 * (+x, -y), a dynamic program over X's corners. p is the point where
 * fewest items live (small X); q can be the latest start among the
 * clique's items that miss p, so only such starts are tried, by their
 * upper bound L(q) + w(X), highest first, until none can beat the best.
 * Cost O(K |A_p| (|A_p| + n)) at worst. Most candidates pass that bound
 * (it is loose), so cq_at's constant mattered: levels by rank bits
 * instead of a search, one pass per corner over the levels below it, no
 * data-dependent branches in the inner loops (Enlisted n = 200 with
 * history: about 1.8x fewer cycles, by cachegrind). Then a tighter bound
 * (cq_bound, a fractional matching, about a fifteenth of a cq_at) leaves 3.5
 * of 46 candidates a call to cq_at: 689 k -> 157 k instructions a call,
 * 6.1 k -> 2.7 k mispredicted branches (n = 150: 378 k -> 98 k, 3.9 k ->
 * 1.8 k; floor = the greedy clique, by cachegrind), the same results. */
typedef struct cqp { uint32_t l, r; int64_t w; uint32_t i, lev; } cqp;
typedef struct cqy { int64_t w; uint64_t m; } cqy; /* a y's weight and the A_p items that miss it */
typedef struct cq {
  const pk_inst *in;
  uint32_t p, K;
  uint32_t *ap; size_t nap;   /* non-whole items alive at p, by (a, b) */
  uint32_t *yl; size_t ny;    /* the other non-whole items, by l */
  uint32_t *ga, *gb;          /* per item: its gap [a, b) (in A_p) or interval [l, r), cut at p */
  uint64_t *prof;             /* effective load per point */
  cqp *pt;                    /* scratch: X then Y at one q */
  uint32_t *lev;              /* scratch: X's distinct b */
  int64_t *S, *V;             /* scratch: one corner's sums by level (prefix, then per level); best staircase per corner */
  uint32_t *par;              /* previous corner on the best staircase, UINT32_MAX = none */
  uint8_t *rk;                /* with nrk: per item, how many of A_p's distinct b lie below its b */
  int nrk;                    /* A_p's distinct b fit one word (else the levels are searched) */
  cqy *cy; size_t ncy;        /* with A_p in a word: the y some A_p item misses, by l */
  uint64_t *xm;               /* per candidate q: X as a mask of A_p */
  uint64_t *rgt; size_t wq;   /* per cut position x: the cy with r > x (wq words) */
  uint32_t *cl;               /* per cut position x: how many cy have l <= x */
} cq;

/* Is item i (not whole) alive at cut position x? */
static int cq_alive(const cq *c, size_t i, uint32_t x, int in_ap) {
  return in_ap ? !(c->ga[i] <= x && x < c->gb[i]) : c->ga[i] <= x && x < c->gb[i];
}

/* The levels without ranks (A_p's distinct b overflow a word): X's
 * distinct b inserted in order, and each point's level searched among
 * them. Returns their number. */
static size_t cq_levels_searched(cq *c, size_t nx, size_t np) {
  size_t nl = 0;
  for (size_t k = 0; k < nx; k++) { /* the levels: X's distinct b, ascending */
    size_t j = nl;
    while (j > 0 && c->lev[j - 1] > c->pt[k].r) j--;
    if (j > 0 && c->lev[j - 1] == c->pt[k].r) continue;
    memmove(c->lev + j + 1, c->lev + j, sizeof(uint32_t) * (nl - j));
    c->lev[j] = c->pt[k].r;
    nl++;
  }
  for (size_t k = 0; k < np; k++) { /* each point's level: the first >= its r (nl: above all) */
    /* branch-free lower bound (conditional moves): the points' r are in
     * no useful order, and the mispredicted branches dominated this call */
    const uint32_t *b = c->lev, r = c->pt[k].r;
    size_t len = nl;
    while (len > 1) {
      size_t h = len / 2;
      b = b[h] < r ? b + h : b;
      len -= h;
    }
    c->pt[k].lev = (uint32_t)(b - c->lev) + (nl && *b < r);
  }
  return nl;
}

/* The heaviest clique through p and q (cut position x = q - p): its
 * weight; its real bytes too in *real when it weighs more than above. */
static uint64_t cq_at(cq *c, uint32_t q, uint64_t above, uint64_t *real) {
  const pk_inst *in = c->in;
  uint32_t x = (q + c->K - c->p) % c->K;
  size_t nx = 0, np, nl = 0;
  for (size_t k = 0; k < c->nap; k++) { /* X: alive at p, not at q */
    uint32_t i = c->ap[k];
    if (!cq_alive(c, i, x, 1)) c->pt[nx++] = (cqp){c->ga[i], c->gb[i], (int64_t)in->size[i], i, 0};
  }
  np = nx;
  uint64_t mask = 0; /* with ranks: X's distinct b as bits of A_p's sorted ones */
  if (c->nrk)
    for (size_t k = 0; k < nx; k++) mask |= 1ull << c->rk[c->pt[k].i];
  if (nx)
    for (size_t k = 0; k < c->ny && c->ga[c->yl[k]] <= x; k++) { /* Y: alive at q, not at p */
      uint32_t i = c->yl[k];
      c->pt[np] = (cqp){c->ga[i], c->gb[i], -(int64_t)in->size[i], i, 0}; /* kept when alive at q */
      np += x < c->gb[i];
    }
  if (c->nrk) { /* a point's level: the bits of mask below its rank (no search) */
    uint32_t below[65] = {0}; /* by rank, once: popcount is a libgcc call (no -mpopcnt) */
    for (uint32_t g = 0; g < 64; g++) below[g + 1] = below[g] + (uint32_t)((mask >> g) & 1);
    nl = below[64];
    for (size_t k = 0; k < np; k++) c->pt[k].lev = below[c->rk[c->pt[k].i]];
  } else {
    nl = cq_levels_searched(c, nx, np);
  }
  int64_t gain = 0;
  uint32_t last = UINT32_MAX;
  /* the points with l at or above the corner's, summed per level: corners
   * come by ascending l, so points only leave (X and Y are each sorted by
   * l: two pointers), and each corner costs its levels, not every point */
  int64_t *lv = c->S + nl + 1;
  memset(lv, 0, sizeof(int64_t) * (nl + 1));
  for (size_t t = 0; t < np; t++) lv[c->pt[t].lev] += c->pt[t].w;
  size_t gx = 0, gy = nx;
  int64_t *bestV = c->S; /* per level: the best staircase ending at a corner there, and that corner */
  uint32_t *bestK = c->lev;
  for (size_t j = 0; j <= nl; j++) { bestV[j] = 0; bestK[j] = UINT32_MAX; }
  for (size_t k = 0; k < nx; k++) { /* corners in (a, b) order: earlier ones have a <= this a */
    uint32_t lmin = c->pt[k].l;
    for (; gx < nx && c->pt[gx].l < lmin; gx++) lv[c->pt[gx].lev] -= c->pt[gx].w;
    for (; gy < np && c->pt[gy].l < lmin; gy++) lv[c->pt[gy].lev] -= c->pt[gy].w;
    /* V[k] = S(lk) + max(0, max over earlier corners k2 below lk of
     * V[k2] - S(l2)), S the prefix sums of lv: corners at one level share
     * S, so only the best V per level counts (bestV, bestK), and one pass
     * over the levels below lk does both the sums and the max (was a pass
     * over every earlier corner, its branches half of this call's cost) */
    uint32_t lk = c->pt[k].lev, bj = UINT32_MAX;
    int64_t run = 0, bd = 0;
    for (uint32_t j2 = 0; j2 < lk; j2++) {
      run += lv[j2];
      int64_t d = bestV[j2] - run, take = -(int64_t)((bestK[j2] != UINT32_MAX) & (d > bd)); /* branch-free */
      bd = (d & take) | (bd & ~take);
      bj = ((uint32_t)j2 & (uint32_t)take) | (bj & ~(uint32_t)take);
    }
    c->V[k] = run + lv[lk] + bd;
    c->par[k] = bj == UINT32_MAX ? UINT32_MAX : bestK[bj];
    if (bestK[lk] == UINT32_MAX || c->V[k] > bestV[lk]) { bestV[lk] = c->V[k]; bestK[lk] = (uint32_t)k; }
    if (c->V[k] > gain) { gain = c->V[k]; last = (uint32_t)k; }
  }
  if (c->prof[q] + (uint64_t)gain > above) { /* members: A_p n A_q, X and Y as D decides */
    char *inD = (char *)c->S; /* S is free now: np <= n flags */
    memset(inD, 0, np);
    for (uint32_t k = last; k != UINT32_MAX; k = c->par[k])
      for (size_t t = 0; t < np; t++)
        if (c->pt[t].l >= c->pt[k].l && c->pt[t].r <= c->pt[k].r) inD[t] = 1;
    *real = 0;
    for (size_t i = 0; i < in->n; i++) /* A_q, less Y inside D, is L(q)'s items minus those */
      if (pk_contains(in, i, q)) *real += in->items[i].size;
    for (size_t t = 0; t < np; t++)
      if (inD[t]) *real += c->pt[t].w > 0 ? in->items[c->pt[t].i].size : 0 - in->items[c->pt[t].i].size;
  }
  return c->prof[q] + (uint64_t)gain;
}

/* An upper bound on cq_at(q), from ub = L(q) + w(X), X the A_p items of
 * mask xm (A_p in a word, aw their weights): the gain is w(X) less a
 * minimum vertex cover of the pairs (x, y) where x misses y (bipartite:
 * any fractional matching is a lower bound on it). Each y alive at q
 * fills the x that miss it, in (a, b) order, up to their weights; what it
 * placed comes off ub. Stops once at or below best. Enlisted n = 200
 * with history, floor = the greedy clique: 46 candidates a call passed
 * L(q) + w(X), 3.5 pass this (the exact value beats the best in 1.1). */
static uint64_t cq_bound(const cq *c, uint32_t q, uint64_t ub, uint64_t xm, const uint64_t *aw, uint64_t best) {
  uint32_t x = (q + c->K - c->p) % c->K, nl = c->cl[x];
  const uint64_t *rg = c->rgt + (size_t)x * c->wq;
  int64_t res[64];
  memcpy(res, aw, sizeof(int64_t) * c->nap);
  for (uint32_t w0 = 0; w0 * 64 < nl; w0++) { /* the y alive at x: l <= x (a prefix of cy), r > x (row x) */
    uint64_t al = rg[w0];
    if (nl - w0 * 64 < 64) al &= (1ull << (nl - w0 * 64)) - 1;
    for (; al; al &= al - 1) {
      const cqy *y = c->cy + w0 * 64 + __builtin_ctzll(al);
      uint64_t m = y->m & xm;
      if (!m) continue;
      int64_t w = y->w;
      for (; m; m &= m - 1) {
        int j = __builtin_ctzll(m);
        int64_t t = res[j] < w ? res[j] : w;
        res[j] -= t;
        w -= t;
        xm &= ~((uint64_t)(res[j] == 0) << j); /* a full x takes no more */
        if (!w) break;
      }
      ub -= (uint64_t)(y->w - w);
      if (ub <= best) return ub;
    }
  }
  return ub;
}

/* The point where fewest items live (whole-cycle items left out), and that count. */
static uint32_t least_point(const pk_inst *in, uint32_t *cnt, uint32_t *least) {
  uint32_t K = in->K, p = 0;
  for (size_t i = 0; i < in->n; i++) {
    uint32_t a = in->s[i], b = in->e[i];
    if (a == b) continue;
    cnt[a]++;
    if (a < b) cnt[b]--;
    else { cnt[K]--; cnt[0]++; cnt[b]--; }
  }
  uint32_t run = 0;
  *least = UINT32_MAX;
  for (uint32_t t = 0; t < K; t++) {
    run += cnt[t];
    if (run < *least) { *least = run; p = t; }
  }
  return p;
}

uint64_t pk_clique_work(const pk_inst *in) {
  if (!in->cyclic || in->n < 2) return 0;
  uint32_t *cnt = pk_mem_calloc((size_t)in->K + 1, sizeof(uint32_t)), m;
  if (!cnt) return UINT64_MAX;
  least_point(in, cnt, &m);
  pk_mem_free(cnt);
  return (uint64_t)in->K * m * (m + in->n);
}

uint64_t pk_clique_exact(const pk_inst *in, uint64_t floor, uint64_t deadline_ns, uint64_t *real, int *exact) {
  size_t n = in->n, nn = n ? n : 1;
  uint32_t K = in->K;
  *real = 0;
  *exact = 1;
  if (!in->cyclic || n < 2) return 0; /* a line: every clique shares a point, LOAD is the bound */
  cq c = {in, 0, K, pk_mem_alloc(sizeof(uint32_t) * nn), 0, pk_mem_alloc(sizeof(uint32_t) * nn), 0, pk_mem_alloc(sizeof(uint32_t) * nn), pk_mem_alloc(sizeof(uint32_t) * nn),
          pk_mem_alloc(sizeof(uint64_t) * K), pk_mem_alloc(sizeof(cqp) * nn), pk_mem_alloc(sizeof(uint32_t) * (nn + 1)),
          pk_mem_alloc(sizeof(int64_t) * 2 * (nn + 1)), pk_mem_alloc(sizeof(int64_t) * nn), pk_mem_alloc(sizeof(uint32_t) * nn),
          pk_mem_alloc(nn), 0, pk_mem_alloc(sizeof(cqy) * nn), 0, pk_mem_alloc(sizeof(uint64_t) * (nn + 1)), NULL, 0, NULL};
  uint32_t *cnt = pk_mem_calloc(3 * ((size_t)K + 1), sizeof(uint32_t)); /* and rb, ra below */
  pk_kv *kv = pk_mem_alloc(sizeof(pk_kv) * nn);
  uint64_t *wxa = pk_mem_calloc((size_t)K + 1, sizeof(uint64_t));
  uint64_t best = floor, bestq = UINT64_MAX;
  *exact = 0;
  if (!c.ap || !c.yl || !c.ga || !c.gb || !c.prof || !c.pt || !c.lev || !c.S || !c.V || !c.par || !c.rk || !c.cy || !c.xm || !cnt || !kv || !wxa)
    goto out;
  pk_profile(in, c.prof, 0);
  uint32_t least, *rb = cnt + K + 1, *ra = rb + K + 1;
  *exact = 1;
  c.p = least_point(in, cnt, &least);
  for (size_t i = 0; i < n; i++) {
    if (in->s[i] == in->e[i]) continue; /* whole-cycle items are in every A_t */
    uint32_t rs = (in->s[i] + K - c.p) % K, len = in->len[i];
    if (pk_contains(in, i, c.p)) { /* the gap of an item alive at p */
      c.ga[i] = rs ? rs + len - K : len;
      c.gb[i] = rs ? rs : K;
      kv[c.nap++] = (pk_kv){c.ga[i], c.gb[i], i};
    } else {
      c.ga[i] = rs;
      c.gb[i] = rs + len;
    }
  }
  pk_sort_kv(kv, c.nap);
  for (size_t k = 0; k < c.nap; k++) c.ap[k] = (uint32_t)kv[k].i;
  { /* A_p's distinct b: when they fit a word, each item's rank among
     * them replaces cq_at's search for its level. Every b and r lies in
     * [0, K], so a table there gives the ranks (was a sort and a binary
     * search per item, 0.5 k mispredicted branches a call at n = 200) */
    for (size_t k = 0; k < c.nap; k++) rb[c.gb[c.ap[k]]] = 1;
    uint32_t nb = 0;
    for (uint32_t v = 0; v <= K; v++) { /* rb[v]: how many are below v */
      uint32_t t = rb[v];
      rb[v] = nb;
      nb += t;
    }
    c.nrk = nb <= 64;
    for (size_t i = 0; c.nrk && i < n; i++)
      if (in->s[i] != in->e[i]) c.rk[i] = (uint8_t)rb[c.gb[i]];
    for (size_t k = 0; k < c.nap; k++) ra[c.ga[c.ap[k]]]++; /* ra[v]: A_p's a at or below v (all below K) */
    for (uint32_t v = 1; v < K; v++) ra[v] += ra[v - 1];
  }
  { /* the others by l, then index (a counting sort: l < K) */
    memset(cnt, 0, sizeof(uint32_t) * ((size_t)K + 1));
    for (size_t i = 0; i < n; i++)
      if (in->s[i] != in->e[i] && !pk_contains(in, i, c.p)) cnt[c.ga[i] + 1]++;
    for (uint32_t v = 0; v < K; v++) cnt[v + 1] += cnt[v];
    for (size_t i = 0; i < n; i++)
      if (in->s[i] != in->e[i] && !pk_contains(in, i, c.p)) c.yl[cnt[c.ga[i]]++] = (uint32_t)i;
    c.ny = cnt[K - 1];
  }
  /* q: the latest start among the clique's items that miss p (a start of
   * an item not alive at p), tried by upper bound L(q) + w(X), highest
   * first, until it cannot beat the best */
  char *seen = (char *)cnt; /* cnt is free now: K + 1 flags */
  memset(seen, 0, (size_t)K + 1);
  /* A_p in a word (nrk follows): X at q as a mask, and each y's mask of
   * the A_p items that miss it (a <= l, r <= b), for cq_bound */
  uint64_t bge[65], aw[64]; /* bge[j]: A_p items whose b ranks j or above */
  int mk = c.nap <= 64 && c.nrk;
  if (mk) {
    memset(bge, 0, sizeof bge);
    for (size_t k = 0; k < c.nap; k++) {
      uint32_t i = c.ap[k];
      aw[k] = in->size[i];
      bge[c.rk[i]] |= 1ull << k;
    }
    for (uint32_t j = 64; j-- > 0;) bge[j] |= bge[j + 1];
    /* the y alive at x as bits of cy: {l <= x} a prefix, {r > x} a row
     * per x, so cq_bound skips the dead ones without a branch each (a
     * fifth of this call's mispredicted branches); rows up to 256 KB */
    c.wq = (c.ny + 63) / 64;
    if (((size_t)K + 1) * c.wq <= 32768) {
      c.rgt = pk_mem_calloc(((size_t)K + 1) * c.wq + 1, sizeof(uint64_t));
      c.cl = pk_mem_calloc((size_t)K + 1, sizeof(uint32_t));
    }
    mk = c.rgt && c.cl; /* else no cq_bound: still exact */
    for (size_t k = 0; mk && k < c.ny; k++) { /* the A_p items with a <= l are a prefix */
      uint32_t y = c.yl[k], na = ra[c.ga[y]];
      uint64_t m = (na < 64 ? (1ull << na) - 1 : ~0ull) & bge[c.rk[y]];
      if (!m) continue;
      c.rgt[(size_t)(c.gb[y] - 1) * c.wq + c.ncy / 64] |= 1ull << (c.ncy % 64);
      c.cl[c.ga[y]]++;
      c.cy[c.ncy++] = (cqy){(int64_t)in->size[y], m};
    }
    for (uint32_t v = K - 1; mk && v-- > 0;)
      for (size_t w = 0; w < c.wq; w++) c.rgt[v * c.wq + w] |= c.rgt[(v + 1) * c.wq + w];
    for (uint32_t v = 1; mk && v < K; v++) c.cl[v] += c.cl[v - 1];
  }
  for (size_t k = 0; k < c.nap; k++) { /* wxa[x]: w(X) at cut position x, the gaps [a, b) holding x */
    uint32_t i = c.ap[k];
    wxa[c.ga[i]] += in->size[i];
    wxa[c.gb[i]] -= in->size[i];
  }
  for (uint32_t v = 1; v < K; v++) wxa[v] += wxa[v - 1];
  size_t nq = 0;
  for (size_t i = 0; i < n; i++) {
    uint32_t q = in->s[i];
    if (in->s[i] == in->e[i] || seen[q] || pk_contains(in, i, c.p)) continue;
    seen[q] = 1;
    uint32_t x = (q + K - c.p) % K;
    uint64_t wx = wxa[x], xm = 0; /* w(X): what the staircase can add at most */
    if (mk) { /* X: a <= x (a prefix of A_p) and b > x (by rank) */
      uint32_t na = ra[x];
      xm = (na < 64 ? (1ull << na) - 1 : ~0ull) & bge[rb[x + 1]];
    }
    if (c.prof[q] + wx > best) {
      c.xm[nq] = xm;
      kv[nq] = (pk_kv){UINT64_MAX - (c.prof[q] + wx), q, nq};
      nq++;
    }
  }
  uint32_t peak = 0; /* and the peak: a clique through p alone weighs L(p) <= LOAD */
  for (uint32_t t = 1; t < K; t++)
    if (c.prof[t] > c.prof[peak]) peak = t;
  if (!seen[peak] && c.prof[peak] > best) {
    c.xm[nq] = 0; /* cq_bound keeps its key (no L + w(X)) */
    kv[nq] = (pk_kv){UINT64_MAX - c.prof[peak] - 1, peak, nq};
    nq++;
  }
  pk_sort_kv(kv, nq);
  for (size_t k = 0; k < nq && UINT64_MAX - kv[k].k > best; k++) {
    if (deadline_ns && (k & 15) == 15 && pk_now() > deadline_ns) { /* what was found still holds */
      *exact = 0;
      break;
    }
    uint32_t q = (uint32_t)kv[k].k2;
    pk_charge(16 + (uint64_t)K * (n / 8 + 1)); /* the work clock: about a cq_at's share */
    if (mk && cq_bound(&c, q, UINT64_MAX - kv[k].k, c.xm[kv[k].i], aw, best) <= best) continue;
    /* the members' real bytes come with each improvement: they are rare
     * (about 1 per call), while a pass for them at the end costs a cq_at */
    uint64_t v = cq_at(&c, q, best, real);
    if (v > best) { best = v; bestq = q; }
  }
out:
  pk_mem_free(c.ap); pk_mem_free(c.yl); pk_mem_free(c.ga); pk_mem_free(c.gb); pk_mem_free(c.prof); pk_mem_free(c.pt); pk_mem_free(c.lev); pk_mem_free(c.S); pk_mem_free(c.V); pk_mem_free(c.par);
  pk_mem_free(c.rk); pk_mem_free(c.cy); pk_mem_free(c.xm); pk_mem_free(c.rgt); pk_mem_free(c.cl);
  pk_mem_free(cnt); pk_mem_free(kv); pk_mem_free(wxa);
  return bestq != UINT64_MAX ? best : 0;
}

/* Grows a clique from the members already in c[0..nc), taking every item in
 * ord (longest first) that meets all members; at most cap arc tests. With
 * conflict bits the candidates are the AND of the members' rows (n words
 * per member, no cap): what a bit says is what the arc test says, so the
 * clique is the same unless the cap would have stopped the tests. */
static size_t grow(const pk_inst *in, const uint32_t *ord, const char *in_c, uint32_t *c, size_t nc,
                   uint64_t cap, uint64_t *cand) {
  if (in->cbits) {
    size_t w = in->cwords;
    memset(cand, 0xff, sizeof(uint64_t) * w);
    for (size_t q = 0; q < nc; q++)
      for (size_t x = 0; x < w; x++) cand[x] &= in->cbits[c[q] * w + x];
    for (size_t k = 0; k < in->n; k++) {
      uint32_t j = ord[k];
      if (in_c[j] || !((cand[j >> 6] >> (j & 63)) & 1)) continue;
      c[nc++] = j;
      for (size_t x = 0; x < w; x++) cand[x] &= in->cbits[(size_t)j * w + x];
    }
    return nc;
  }
  uint64_t tests = 0;
  for (size_t k = 0; k < in->n && tests < cap; k++) {
    uint32_t j = ord[k];
    if (in_c[j]) continue;
    size_t q = 0;
    while (q < nc && pk_conflict_arcs(in, j, c[q])) q++;
    tests += q + 1;
    if (q == nc) {
      /* the newest member first: it is the likeliest to miss the next one */
      c[nc++] = c[0];
      c[0] = j;
    }
  }
  return nc;
}

uint64_t pk_clique_greedy(const pk_inst *in, uint64_t *real) {
  size_t n = in->n;
  uint32_t K = in->K;
  *real = 0;
  if (!in->cyclic || n < 2) return 0;
  uint32_t *ord = pk_mem_alloc(sizeof(uint32_t) * n), *c = pk_mem_alloc(sizeof(uint32_t) * n);
  uint32_t *cnt = pk_mem_calloc((size_t)K + 2, sizeof(uint32_t));
  uint64_t *prof = pk_mem_alloc(sizeof(uint64_t) * K);
  char *in_c = pk_mem_calloc(n, 1);
  uint64_t best = 0, *cand = in->cbits ? pk_mem_alloc(sizeof(uint64_t) * in->cwords) : NULL;
  if (!ord || !c || !cnt || !prof || !in_c || (in->cbits && !cand)) goto out;
  /* longest first (counting sort on the length) */
  for (size_t i = 0; i < n; i++) cnt[K - in->len[i] + 1]++;
  for (uint32_t l = 0; l <= K; l++) cnt[l + 1] += cnt[l];
  for (size_t i = 0; i < n; i++) ord[cnt[K - in->len[i]]++] = (uint32_t)i;
  uint64_t cap = 16 * (uint64_t)n + 65536;
  fg_pack_cache *cache = in->cache;
  for (int seed = 0; seed < 2; seed++) {
    size_t nc = 0;
    memset(in_c, 0, n);
    uint32_t p = 0;
    if (seed == 1) { /* the point of peak load */
      pk_profile(in, prof, 0);
      for (uint32_t t = 1; t < K; t++)
        if (prof[t] > prof[p]) p = t;
    }
    /* the clique grown from a seed set depends on the lifetimes alone: the
     * cache keeps both, the second one while the peak stays at p */
    int hit = cache && cache->have_clique[seed] && (seed == 0 || cache->peak == p);
    if (hit) {
      nc = cache->nclique[seed];
      memcpy(c, cache->clique[seed], sizeof(uint32_t) * nc);
    } else {
      if (seed == 0) {
        /* arcs covering more than K points together always share one: the
         * longest items, while the two shortest of them do (a frame graph's
         * history copies each live a frame and a step) */
        while (nc < n && (nc < 1 || in->len[ord[nc]] + in->len[ord[nc - 1]] > K)) nc++;
        if (nc < 2) nc = 0;
        for (size_t k = 0; k < nc; k++) c[k] = ord[k];
      } else { /* the items live at the peak */
        for (size_t k = 0; k < n; k++)
          if (pk_contains(in, ord[k], p)) c[nc++] = ord[k];
      }
      for (size_t k = 0; k < nc; k++) in_c[c[k]] = 1;
      if (seed || nc) nc = grow(in, ord, in_c, c, nc, cap, cand);
      if (cache && (cache->clique[seed] || (cache->clique[seed] = pk_mem_alloc(sizeof(uint32_t) * n)))) {
        memcpy(cache->clique[seed], c, sizeof(uint32_t) * nc);
        cache->nclique[seed] = nc;
        cache->have_clique[seed] = 1;
        if (seed) cache->peak = p;
      }
    }
    uint64_t w = 0, r = 0;
    for (size_t k = 0; k < nc; k++) {
      w += in->size[c[k]];
      r += in->items[c[k]].size;
    }
    if (w > best) best = w;
    if (r > *real) *real = r;
  }
out:
  pk_mem_free(ord); pk_mem_free(c); pk_mem_free(cnt); pk_mem_free(prof); pk_mem_free(in_c); pk_mem_free(cand);
  return best;
}

/* Alignment: the items alive at a point lie apart in memory, every one at
 * a multiple of its alignment, so of A (the least alignment of all items):
 * each but the highest takes at least its size rounded up to A (w_j) before
 * the next begins, and the highest starts at a multiple of its own
 * alignment above all the others. The makespan is at least min over the
 * items j alive there of align_up(W - w_j, align_j) + size_j, W the sum of
 * their w. Above LOAD by a few bytes where sizes are not multiples of
 * alignments (Enlisted: small instances end there, at their optimum, and
 * searched on to the budget unable to prove it). Only points whose W comes
 * within the largest alignment of lb can raise it; at most ALIGN_BOUND_WORK
 * item visits, not charged to the work clock (a bound that proves nothing
 * must not take time from the search: Enlisted lost bytes on 22 of 1800
 * instances when it did). */
#define ALIGN_BOUND_WORK (1ull << 18)
uint64_t pk_align_bound(const pk_inst *in, uint64_t lb) {
  size_t n = in->n;
  uint32_t K = in->K;
  if (in->gran || in->phase || !n || !K) return lb;
  uint64_t amax = 1, A = UINT64_MAX;
  for (size_t i = 0; i < n; i++) {
    if (in->align[i] > amax) amax = in->align[i];
    if (in->align[i] < A) A = in->align[i];
  }
  if (amax == 1) return lb;
  /* W at every point: a difference array over the cycle (or line) */
  int64_t *dw = pk_mem_calloc((size_t)K + 1, sizeof(int64_t));
  if (!dw) return lb;
  for (size_t i = 0; i < n; i++) {
    int64_t w = (int64_t)pk_align_up(in->size[i], A);
    uint32_t s0 = in->s[i], len = in->len[i];
    if (len >= K) { dw[0] += w; dw[K] -= w; continue; }
    uint64_t z = (uint64_t)s0 + len;
    dw[s0] += w;
    if (z <= K) dw[z] -= w;
    else { dw[K] -= w; dw[0] += w; dw[z - K] -= w; }
  }
  /* the points that could raise lb, heaviest first: lb rises as they go, so
   * the lighter ones mostly drop out unvisited */
  pk_kv *pts = pk_mem_alloc(sizeof(pk_kv) * K);
  if (!pts) { pk_mem_free(dw); return lb; }
  uint64_t W = 0;
  size_t np = 0;
  for (uint32_t t = 0; t < K; t++) {
    W += (uint64_t)dw[t];
    if (W + amax - 1 > lb) pts[np++] = (pk_kv){UINT64_MAX - W, 0, t};
  }
  pk_sort_kv(pts, np);
  uint64_t work = 0;
  for (size_t k = 0; k < np && work < ALIGN_BOUND_WORK; k++) {
    uint32_t t = (uint32_t)pts[k].i;
    W = UINT64_MAX - pts[k].k;
    if (W + amax - 1 <= lb) break;
    uint64_t b = UINT64_MAX;
    for (size_t j = 0; j < n; j++) {
      if (!pk_contains(in, j, t)) continue;
      uint64_t wj = pk_align_up(in->size[j], A);
      uint64_t x = pk_align_up(W - wj, in->align[j]) + in->size[j];
      if (x < b) b = x;
    }
    work += n;
    if (b != UINT64_MAX && b > lb) lb = b;
  }
  pk_mem_free(pts);
  pk_mem_free(dw);
  return lb;
}
