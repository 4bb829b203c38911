/* best's canonical dives (steps 1b and 2c of pack_best.c): the decision
 * search's first path without a capacity, ties by a key drawn per dive.
 * Tuned constants (the key's exponent spans, the time shares): pack_tune.h. */
#include "pack_best_int.h"
#include "pack_mem.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* 1b. Canonical dives: each item, lowest first, right on top of the
 * highest placed item it meets (the first path of pack_search's decision
 * search, without its capacity), ties broken by a key (DIVE_BETA_SPAN and
 * the spans after it: its terms in dive_terms, its exponents drawn per
 * dive, the first dive's at their middle) scaled per item by a random
 * factor in [1, 2) from the second dive on, again and again in
 * 1 / DIVE_TIME_DIV of the time left; the lowest packing is the incumbent
 * the baselines must beat (and they stop at it). Above EXACT_MAX_N items
 * they go on after the baselines with DIVE_REST_SHARE of what is left (2c).
 * On cycles the key is size x length^beta x (the mean load over the
 * lifetime / the peak)^gamma x (the highest load over it / the peak)^delta
 * x (the bytes of the items it meets / all bytes)^omega; on lines size x
 * length^beta. One dive is a pass over
 * the unplaced items per placement (finding the next and raising the ones
 * the last placement meets at once), m^2 / 2 conflict tests. Not on a
 * re-plan (its budget is the hint's replay's), nor on a flat load
 * (pack_tile's). */
typedef struct dv { uint64_t mo; double key; size_t i; } dv; /* an unplaced item of a dive */
static uint64_t dive_once(best_run *r, const double *key, dv *u, uint64_t *off) {
  const pk_inst *in = &r->in;
  size_t m = r->m, nu = m, best = 0; /* best: index in u of the next item */
  uint64_t M = r->b.lo0;
  for (size_t k = 0; k < m; k++) {
    size_t i = r->bord[k];
    u[k] = (dv){pk_align_up(M, in->align[i]), key[i], i};
    if (u[k].mo < u[best].mo || (u[k].mo == u[best].mo && u[k].key > u[best].key)) best = k;
  }
  while (nu) {
    size_t p = u[best].i;
    uint64_t top = (off[p] = u[best].mo) + in->size[p];
    if (top > M) M = top;
    u[best] = u[--nu];
    best = 0;
    for (size_t k = 0; k < nu; k++) {
      dv *x = &u[k];
      if (x->mo < top && pk_conflict(in, p, x->i)) x->mo = pk_align_up(top, in->align[x->i]);
      if (x->mo < u[best].mo || (x->mo == u[best].mo && x->key > u[best].key)) best = k;
    }
  }
  return M;
}
/* The same dive on conflict bits, where offsets stay below 2^47: each
 * unplaced item's lowest offset and its key's rank (16 bits, 0 = highest
 * key) in one word, so picking the next item is a min over a compact
 * array, and a placement raises only the unplaced items its row marks
 * (their count, not every unplaced one). The key is quantised: keys closer
 * than 1/65535 of their span may tie, and ties go by list position.
 * About 1.4x faster than dive_once at n = 200 (dev). */
typedef struct dvf { uint64_t *comp, *mo, *unp; uint32_t *itm, *pos; } dvf;
#define DV_RANK_BITS 16
static uint64_t dive_bits(best_run *r, const double *key, int shift, dvf *f, uint64_t *off) {
  const pk_inst *in = &r->in;
  size_t m = r->m, nu = m, w = in->cwords;
  uint64_t M = r->b.lo0, *comp = f->comp, *mo = f->mo, *unp = f->unp;
  uint32_t *itm = f->itm, *pos = f->pos;
  double kmin = 0, kmax = 0;
  for (size_t k = 0; k < m; k++) {
    double v = key[r->bord[k]];
    if (!k || v < kmin) kmin = v;
    if (!k || v > kmax) kmax = v;
  }
  double scale = kmax > kmin ? (double)((1u << DV_RANK_BITS) - 1) / (kmax - kmin) : 0;
  memset(unp, 0, sizeof(uint64_t) * w);
  for (size_t k = 0; k < m; k++) {
    uint32_t i = (uint32_t)r->bord[k];
    itm[k] = i;
    pos[i] = (uint32_t)k;
    unp[i >> 6] |= 1ull << (i & 63);
    double rk = (kmax - key[i]) * scale; /* in [0, 65535]; NaN (never: sizes > 0) as 0 */
    mo[k] = pk_align_up(M, in->align[i]);
    comp[k] = (mo[k] >> shift) << DV_RANK_BITS | (rk > 0 ? (uint64_t)(rk < 65535 ? rk : 65535) : 0);
  }
  const uint64_t rmask = (1ull << DV_RANK_BITS) - 1;
  while (nu) {
    size_t bi = 0;
    uint64_t bc = comp[0];
    for (size_t k = 1; k < nu; k++)
      if (comp[k] < bc) { bc = comp[k]; bi = k; }
    uint32_t p = itm[bi];
    uint64_t top = (off[p] = mo[bi]) + in->size[p];
    if (top > M) M = top;
    nu--;
    itm[bi] = itm[nu];
    comp[bi] = comp[nu];
    mo[bi] = mo[nu];
    pos[itm[bi]] = (uint32_t)bi;
    unp[p >> 6] &= ~(1ull << (p & 63));
    const uint64_t *row = in->cbits + (size_t)p * w;
    for (size_t x = 0; x < w; x++)
      for (uint64_t bm = row[x] & unp[x]; bm; bm &= bm - 1) {
        uint32_t j = (uint32_t)(x * 64 + (size_t)__builtin_ctzll(bm)), k = pos[j];
        /* branch-free: about half of them are raised, unpredictably */
        uint64_t o = mo[k], c = comp[k], up = pk_align_up(top, in->align[j]);
        int raise = o < top;
        mo[k] = raise ? up : o;
        comp[k] = raise ? (up >> shift) << DV_RANK_BITS | (c & rmask) : c;
      }
  }
  return M;
}

/* The dives after the baselines (above EXACT_MAX_N items, where the
 * steps after them gain least per microsecond): DIVE_REST_SHARE of what
 * the bound and the baselines left, the rest to ruin and recreate. */
static uint64_t dives_rest_deadline(best_run *r, uint64_t now) {
  if (!r->dv_on || r->m <= EXACT_MAX_N || now >= r->deadline) return 0;
  return now + (uint64_t)((double)(r->deadline - now) * DIVE_REST_SHARE);
}
/* The dives' item terms, in logs, for the items of bord: t[i] size,
 * t[n + i] length, t[2n + i] the mean load over the lifetime and t[3n + i]
 * the highest, both relative to the peak (a prefix sum and a sparse table
 * over the points), t[4n + i] the bytes of the items it meets relative to
 * all (from the conflict bits; 0 without them). 0, or -1 on OOM. */
static int dive_terms(const pk_inst *in, const size_t *bord, size_t m, double *t) {
  size_t n = in->n;
  double *lsz = t, *llen = t + n, *lld = t + 2 * n, *lmx = t + 3 * n, *lcw = t + 4 * n;
  uint32_t K = in->K ? in->K : 1, L = 32 - (uint32_t)__builtin_clz(K); /* levels 0 .. floor(log2 K) */
  uint64_t *st = pk_mem_alloc(sizeof(uint64_t) * (size_t)K * L); /* st[l K + t]: max of [t, t + 2^l) */
  double *pre = pk_mem_alloc(sizeof(double) * ((size_t)K + 1));
  if (!st || !pre) { pk_mem_free(st); pk_mem_free(pre); return -1; }
  pk_profile(in, st, 0);
  double peak = 1, all = 1;
  pre[0] = 0;
  for (uint32_t p = 0; p < K; p++) {
    pre[p + 1] = pre[p] + (double)st[p];
    if ((double)st[p] > peak) peak = (double)st[p];
  }
  for (uint32_t l = 1; l < L; l++)
    for (uint32_t p = 0; p + (1u << l) <= K; p++) {
      uint64_t x = st[(size_t)(l - 1) * K + p], y = st[(size_t)(l - 1) * K + p + (1u << (l - 1))];
      st[(size_t)l * K + p] = x > y ? x : y;
    }
  for (size_t i = 0; i < n; i++) all += (double)in->size[i];
  for (size_t k = 0; k < m; k++) {
    size_t i = bord[k];
    uint32_t a = in->s[i], len = pk_len(in, i), z1 = a + len <= K ? a + len : K, z2 = a + len <= K ? 0 : a + len - K;
    double sum = pre[z1] - pre[a] + pre[z2];
    uint64_t mx = 0;
    for (int part = 0; part < 2; part++) { /* [a, z1) and [0, z2) */
      uint32_t lo = part ? 0 : a, hi = part ? z2 : z1;
      if (lo >= hi) continue;
      uint32_t l = 31 - (uint32_t)__builtin_clz(hi - lo);
      uint64_t x = st[(size_t)l * K + lo], y = st[(size_t)l * K + hi - (1u << l)];
      if (x > mx) mx = x;
      if (y > mx) mx = y;
    }
    double met = 0;
    for (size_t w = 0; in->cbits && w < in->cwords; w++)
      for (uint64_t bm = in->cbits[i * in->cwords + w]; bm; bm &= bm - 1)
        met += (double)in->size[w * 64 + (size_t)__builtin_ctzll(bm)];
    lsz[i] = log((double)in->size[i]);
    llen[i] = log((double)len);
    lld[i] = log(sum / len / peak + 1e-300);
    lmx[i] = log((double)mx / peak + 1e-300);
    lcw[i] = log((met + 1) / all);
  }
  pk_mem_free(st);
  pk_mem_free(pre);
  return 0;
}
/* A uniform draw in [0, 1), and a key exponent in [0, span) for dive d:
 * the first dive (and a span of 0, which draws nothing) takes span x mid. */
static double dive_unit(uint64_t *rng) { return (double)(fg_splitmix64(rng) >> 11) * 0x1p-53; }
static double dive_draw(double span, uint64_t d, double mid, uint64_t *rng) {
  return span * (d && span > 0 ? dive_unit(rng) : mid);
}
/* Dive d's keys for the items of bord, in logs: size + beta length + gamma
 * mean load + delta highest load + omega bytes met + noise (from the second
 * dive on), the exponents drawn per dive (dive_draw). Lines (no period)
 * keep the keys of before: the MiniMalloc instances reach their optimum
 * later with these. The terms are made once (r->dv_t). 0, or -1 on OOM. */
static int dive_keys(best_run *r, uint64_t d, double *key) {
  const pk_inst *in = &r->in;
  size_t n = r->n, m = r->m;
  if (!r->dv_t && (!(r->dv_t = pk_mem_alloc(sizeof(double) * 5 * n)) || dive_terms(in, r->bord, m, r->dv_t)))
    return -1;
  const double *lsz = r->dv_t, *llen = lsz + n, *lld = llen + n, *lmx = lld + n, *lcw = lmx + n;
  double bspan = in->cyclic ? DIVE_BETA_SPAN : DIVE_BETA_SPAN_LINE, gspan = in->cyclic ? DIVE_GAMMA_SPAN : 0;
  double dspan = in->cyclic ? DIVE_DELTA_SPAN : 0, ospan = in->cyclic && in->cbits ? DIVE_OMEGA_SPAN : 0;
  double mid = in->cyclic ? DIVE_FIRST_MID : 0;
  /* the first dive at the middle of each span, without noise */
  double beta = 1 + dive_draw(bspan, d, mid, &r->b.rng), gamma = dive_draw(gspan, d, mid, &r->b.rng);
  double delta = dive_draw(dspan, d, mid, &r->b.rng), omega = dive_draw(ospan, d, mid, &r->b.rng);
  for (size_t k = 0; k < m; k++) {
    size_t i = r->bord[k];
    double noise = d ? 0.6931471805599453 * dive_unit(&r->b.rng) : 0;
    key[i] = lsz[i] + beta * llen[i] + gamma * lld[i] + delta * lmx[i] + omega * lcw[i] + noise;
  }
  return 0;
}
/* The first dive's keys (each span at its middle, no noise) for the items
 * of bord, in key[]: what pk_skyline_dive ranks by above LARGE_N. 0, or -1
 * on OOM. */
int best_first_keys(best_run *r, double *key) { return dive_keys(r, 0, key); }
/* Where the dives run the quick fit is not needed: the first dive stands in
 * for it, at about its cost, and ends the call at a bound just as well.
 * Only above EXACT_MAX_N items, where its time is what the dives lack
 * (Enlisted with history, n = 150-200, dev: about 0.0005 x bound); below,
 * it is cheap and one more start (test_best_unchanged's instances: mean
 * 1.005084 with it, 1.005188 without) */
int best_dives(best_run *r, int first) {
  const pk_inst *in = &r->in;
  size_t n = r->n, m = r->m;
  uint64_t now = pk_now(), deadline = first ? dives_deadline(r, now) : dives_rest_deadline(r, now), cost = dive_cost(r);
  if (!deadline || r->realBest <= r->reallb) return BEST_ON;
  r->dv_on = 1;
  /* the bit-driven dive where there are bits and offsets stay below 2^47
   * (every item stacked on the others reaches at most lo0 + sizes + aligns) */
  uint64_t reach = r->b.lo0;
  for (size_t k = 0; k < m && reach < (1ull << 47); k++) reach += in->size[r->bord[k]] + in->align[r->bord[k]];
  int fast = in->cbits && reach < (1ull << 47);
  double *key = pk_mem_alloc(sizeof(double) * n);
  dv *u = fast ? NULL : pk_mem_alloc(sizeof(dv) * m);
  dvf f = {fast ? pk_mem_alloc(sizeof(uint64_t) * (2 * m + in->cwords)) : NULL, NULL, NULL,
           fast ? pk_mem_alloc(sizeof(uint32_t) * (m + n)) : NULL, NULL};
  if (!key || (fast ? !f.comp || !f.itm : !u)) { pk_mem_free(key); pk_mem_free(u); pk_mem_free(f.comp); pk_mem_free(f.itm); return -1; }
  if (fast) {
    f.mo = f.comp + m;
    f.unp = f.comp + 2 * m;
    f.pos = f.itm + m;
  }
  memcpy(r->tmp, r->b.off, sizeof(uint64_t) * n); /* whole-cycle items keep their stack */
  /* at most a placement per node of the node budget; stop once as many
   * dives as it took to the last gain (at least DIVE_PATIENCE) gained nothing */
  uint64_t dmax = r->nodes / m, last = r->dv_last, low = first ? UINT64_MAX : r->dv_low, d = r->dv_d;
  int rc = 0;
  for (; d < dmax && r->realBest > r->reallb && d - last <= (last > DIVE_PATIENCE ? last : DIVE_PATIENCE); d++) {
    if (d && pk_now() + cost > deadline) break;
    pk_charge(cost); /* the work clock: a dive costs what dives_deadline says */
    if (dive_keys(r, d, key)) { rc = -1; break; }
    /* from the second dive on, offsets within a random power of two below
     * DIVE_SLACK x the bound tie, and the key decides among them */
    double sl = d ? DIVE_SLACK * (double)r->lb * dive_unit(&r->b.rng) : 0;
    int shift = sl >= 2 ? 63 - __builtin_clzll((uint64_t)sl) : 0;
    uint64_t M = fast ? dive_bits(r, key, shift, &f, r->tmp) : dive_once(r, key, u, r->tmp);
    if (M < low) low = M, last = d;
    /* the incumbent: the baselines stop at it, and where none beats it
     * the starts take it (boff is theirs to set; after them, ours) */
    uint64_t rm = M < r->realBest ? pk_makespan(r->in0, r->tmp) : UINT64_MAX;
    if (rm < r->realBest) {
      r->realBest = rm;
      r->dv_best = 1;
      memcpy(r->out, r->tmp, sizeof(uint64_t) * n);
      if (!first) memcpy(r->boff, r->tmp, sizeof(uint64_t) * n); /* the starts' first order */
    }
  }
  r->dv_d = d;
  r->dv_last = last;
  r->dv_low = low;
  pk_mem_free(key); pk_mem_free(u); pk_mem_free(f.comp); pk_mem_free(f.itm);
  if (rc) return -1;
  return r->realBest <= r->reallb ? BEST_PROVED : BEST_ON;
}
