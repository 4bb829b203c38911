/* pack_skyline: best's canonical dive (pack_dive.c) in about O(n K) time,
 * for instances too large for its O(n^2) pass over the unplaced items.
 *
 * The dive places, again and again, the unplaced item whose lowest offset
 * (right on top of the highest placed item it meets) is least, ties to the
 * highest key. That offset is the highest point of the skyline over the
 * item's lifetime, where the skyline at a time point is the top of what is
 * placed there; placing an item sets the skyline over its lifetime to its
 * top (it is above all of it). So: the skyline over the K points, twice
 * over so that no run wraps, with a max tree for "the first point above f";
 * the items grouped by start point, each group by length: within a group the
 * lowest offset grows with the length, so the group's shortest unplaced item
 * has its least offset f, and every item of the group no longer than the run
 * of points from the start whose skyline stays at most f ties with it; of
 * those the highest key goes (a prefix-best array over the group). Each
 * group keeps its f (raised where a placement meets its shortest item's
 * window) and its candidate, found again only when f rose or a placement
 * cut the run below it; the least f is looked up by blocks of groups.
 * The item's alignment applies at placement; ties are on the unaligned
 * offset (the O(n^2) dive ties on the aligned one). */
#include "pack_skyline.h"
#include "pack_mem.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SKY_B 32 /* groups per block of the least-offset search */
typedef struct skyd {
  uint32_t *it;      /* items by (start, length) */
  uint32_t *gbeg;    /* group g (a start point with items): it[gbeg[g] .. gbeg[g + 1]) */
  uint32_t *gfirst;  /* its first position not yet placed */
  uint8_t *done;
  double *pkey;      /* key by position */
  uint32_t *plen;    /* length by position */
  uint32_t *pbest;   /* the best unplaced position of its group up to it (UINT32_MAX: none) */
} skyd;

static uint32_t kbetter(const skyd *d, uint32_t a, uint32_t b) {
  if (a == UINT32_MAX) return b;
  if (b == UINT32_MAX) return a;
  double ka = d->pkey[a], kb = d->pkey[b];
  return ka > kb || (ka == kb && a < b) ? a : b;
}
/* A max tree over the doubled skyline (leaves SZ..2 SZ), for the first point
 * above a level from a start: O(log K) where a scan read the run point by point. */
static void mt_fix(uint64_t *mt, uint32_t SZ, uint32_t l, uint32_t r) { /* leaves [l, r) changed */
  for (l += SZ, r += SZ - 1; l > 1; l >>= 1, r >>= 1)
    for (uint32_t x = l >> 1; x <= r >> 1; x++) mt[x] = mt[2 * x] > mt[2 * x + 1] ? mt[2 * x] : mt[2 * x + 1];
}
/* the first leaf index >= p whose value is above v (SZ when none) */
static uint32_t mt_above(const uint64_t *mt, uint32_t SZ, uint32_t p, uint64_t v) {
  uint32_t j = p + SZ;
  if (mt[j] > v) return p;
  for (;;) {
    while (j & 1) { j >>= 1; if (j <= 1) return SZ; }
    j++;
    if (mt[j] > v) break;
  }
  while (j < SZ) { j *= 2; if (mt[j] <= v) j++; }
  return j - SZ;
}
/* pbest and the group's best key of all from position q of group g on (after q's item was placed) */
static void group_best(skyd *d, double *gkey, uint32_t g, uint32_t q) {
  uint32_t b = d->gbeg[g], end = d->gbeg[g + 1];
  for (; q < end; q++) d->pbest[q] = kbetter(d, q > b ? d->pbest[q - 1] : UINT32_MAX, d->done[q] ? UINT32_MAX : q);
  gkey[g] = d->pbest[end - 1] == UINT32_MAX ? -INFINITY : d->pkey[d->pbest[end - 1]];
}
/* the first position of group g not yet placed (g's pointer moves past placed ones) */
static uint32_t group_first(skyd *d, uint32_t g) {
  uint32_t b = d->gfirst[g], end = d->gbeg[g + 1];
  while (b < end && d->done[b]) b++;
  return d->gfirst[g] = b;
}

uint64_t pk_skyline_dive(const pk_inst *in, const size_t *ord, size_t m, const double *key, uint64_t lo0,
                         uint64_t cap, uint64_t *need, uint64_t *off) {
  uint32_t K = in->K ? in->K : 1;
  skyd d;
  memset(&d, 0, sizeof d);
  uint32_t SZ = 1;
  while (SZ < 2 * K) SZ <<= 1;
  uint64_t *mt = pk_mem_calloc(2 * (size_t)SZ, sizeof(uint64_t));
  uint64_t *skyv = mt + SZ, *f = pk_mem_alloc(sizeof(uint64_t) * ((size_t)K + 1));
  uint32_t *wl = pk_mem_alloc(sizeof(uint32_t) * ((size_t)K + 1)), *gof = pk_mem_alloc(sizeof(uint32_t) * K);
  d.it = pk_mem_alloc(sizeof(uint32_t) * (m ? m : 1));
  d.gbeg = pk_mem_alloc(sizeof(uint32_t) * ((size_t)K + 2));
  d.gfirst = pk_mem_alloc(sizeof(uint32_t) * ((size_t)K + 1));
  d.done = pk_mem_calloc(m ? m : 1, 1);
  d.pkey = pk_mem_alloc(sizeof(double) * (m ? m : 1));
  d.plen = pk_mem_alloc(sizeof(uint32_t) * (m ? m : 1));
  d.pbest = pk_mem_alloc(sizeof(uint32_t) * (m ? m : 1));
  uint32_t *cnt = pk_mem_calloc((size_t)K + 1, sizeof(uint32_t)), *tmp = pk_mem_alloc(sizeof(uint32_t) * (m ? m : 1));
  uint32_t *gstart = pk_mem_alloc(sizeof(uint32_t) * ((size_t)K + 1)), *ties = pk_mem_alloc(sizeof(uint32_t) * ((size_t)K + 1));
  /* cand[g]: the position that goes from group g at f[g] (UINT32_MAX: to be
   * found again), kept until the skyline changes within the group's reach */
  uint32_t *cand = pk_mem_alloc(sizeof(uint32_t) * ((size_t)K + 1)), *crun = pk_mem_alloc(sizeof(uint32_t) * ((size_t)K + 1));
  uint32_t nbk = (K + SKY_B - 1) / SKY_B; /* blocks of groups: their least f, and whether an f in one rose */
  uint64_t *bmin = pk_mem_alloc(sizeof(uint64_t) * (nbk + 1));
  uint8_t *bdirty = pk_mem_alloc(nbk + 1);
  /* the keys of cand[g] and of the group's best unplaced item, beside them
   * (pkey's random reads were a fifth of the time) */
  double *ckey = pk_mem_alloc(sizeof(double) * ((size_t)K + 1)), *gkey = pk_mem_alloc(sizeof(double) * ((size_t)K + 1));
  uint64_t M = UINT64_MAX;
  if (!mt || !f || !wl || !gof || !d.it || !d.gbeg || !d.gfirst || !d.done || !d.pkey || !d.plen || !d.pbest || !cnt || !tmp || !gstart || !ties || !cand || !crun || !ckey || !gkey || !bmin || !bdirty)
    goto out;
  /* by length, then (stable) by start: counting sorts */
  uint32_t maxlen = 0;
  for (size_t k = 0; k < m; k++) if (in->len[ord[k]] > maxlen) maxlen = in->len[ord[k]];
  {
    uint32_t *lc = pk_mem_calloc((size_t)maxlen + 2, sizeof(uint32_t));
    if (!lc) goto out;
    for (size_t k = 0; k < m; k++) lc[in->len[ord[k]] + 1]++;
    for (uint32_t q = 1; q <= maxlen + 1; q++) lc[q] += lc[q - 1];
    for (size_t k = 0; k < m; k++) tmp[lc[in->len[ord[k]]]++] = (uint32_t)ord[k];
    pk_mem_free(lc);
  }
  for (size_t k = 0; k < m; k++) cnt[in->s[tmp[k]] + 1]++;
  for (uint32_t q = 1; q <= K; q++) cnt[q] += cnt[q - 1];
  uint32_t ng = 0;
  for (uint32_t a = 0; a < K; a++) {
    gof[a] = UINT32_MAX;
    if (cnt[a + 1] > cnt[a]) { d.gbeg[ng] = cnt[a]; gstart[ng] = a; gof[a] = ng; ng++; }
  }
  d.gbeg[ng] = (uint32_t)m;
  for (size_t k = 0; k < m; k++) d.it[cnt[in->s[tmp[k]]]++] = tmp[k];
  for (size_t k = 0; k < m; k++) { d.pkey[k] = key[d.it[k]]; d.plen[k] = in->len[d.it[k]]; }
  for (uint32_t t = 0; t < 2 * K; t++) skyv[t] = lo0; /* twice over: runs from any start read on without wrapping */
  mt_fix(mt, SZ, 0, 2 * K);
  /* f[g]: the least offset of group g's shortest unplaced item (its window
   * wl[g] points from its start), UINT64_MAX once the group is empty */
  for (uint32_t g = 0; g < ng; g++) {
    d.gfirst[g] = d.gbeg[g];
    f[g] = lo0;
    wl[g] = in->len[d.it[d.gbeg[g]]];
    cand[g] = UINT32_MAX;
    group_best(&d, gkey, g, d.gbeg[g]);
  }
  nbk = (ng + SKY_B - 1) / SKY_B;
  /* every placement looks at every block's least f at least: past the cap
   * already (many points: a compile's 65,536 instances), it does not start */
  if ((uint64_t)m * (nbk + 1) > cap) {
    M = SKYLINE_GAVE_UP;
    if (need) *need = UINT64_MAX; /* not started */
    goto out;
  }
  memset(bdirty, 1, nbk + 1);
  M = lo0;
  uint64_t work = 0;
  size_t step = m / 16 ? m / 16 : 1, ckp = 0;
  uint64_t ckw = 0;
  for (size_t placed = 0; placed < m; placed++) {
    /* past the cap, or, at each sixteenth of the items, bound past it by
     * a quarter at the rate of the last sixteenth (the rate grows along the
     * dive: the mean rate so far let doomed runs go on): give up (work, not
     * time: the same on any machine) */
    uint64_t proj = 0;
    if (placed && placed == ckp + step) {
      proj = work + (uint64_t)((double)(work - ckw) / (double)(placed - ckp) * (double)(m - placed));
      ckp = placed;
      ckw = work;
    }
    if (work > cap || proj > cap + cap / 4) {
      M = SKYLINE_GAVE_UP;
      if (need) *need = proj > work ? proj : (uint64_t)((double)work * (double)m / (double)placed);
      break;
    }
    /* the least f, and the groups at it: by blocks of SKY_B groups, each
     * with its least f, found again only where an f in it rose */
    uint64_t F = UINT64_MAX;
    uint32_t nt = 0;
    for (uint32_t x = 0; x < nbk; x++) {
      if (bdirty[x]) {
        uint64_t v = UINT64_MAX;
        for (uint32_t g = x * SKY_B; g < (x + 1) * SKY_B && g < ng; g++) if (f[g] < v) v = f[g];
        bmin[x] = v;
        bdirty[x] = 0;
        work += SKY_B;
      }
      if (bmin[x] < F) F = bmin[x];
    }
    for (uint32_t x = 0; x < nbk; x++)
      if (bmin[x] == F) {
        for (uint32_t g = x * SKY_B; g < (x + 1) * SKY_B && g < ng; g++) if (f[g] == F) ties[nt++] = g;
        work += SKY_B;
      }
    work += nbk;
    /* of each, the items no longer than the run of points from its start
     * whose skyline stays at most F; the highest key of all. The groups
     * found already first; of the others only those whose best item of all
     * could beat what is found (most cannot: keys grow fast with the
     * length, and the longest items seldom fit the run) */
    uint32_t bp = UINT32_MAX, nl = 0;
    double bk = -INFINITY;
    for (uint32_t q = 0; q < nt; q++) {
      uint32_t g = ties[q];
      if (cand[g] == UINT32_MAX) ties[nl++] = g;
      else if (ckey[g] > bk || (ckey[g] == bk && cand[g] < bp)) { bk = ckey[g]; bp = cand[g]; }
    }
    /* the one whose best of all is highest first: its candidate usually
     * stands, and the others' bests then fall below it */
    if (nl > 1) {
      uint32_t qm = 0;
      for (uint32_t q = 1; q < nl; q++) if (gkey[ties[q]] > gkey[ties[qm]]) qm = q;
      uint32_t x = ties[0]; ties[0] = ties[qm]; ties[qm] = x;
    }
    for (uint32_t q = 0; q < nl; q++) {
      uint32_t g = ties[q], a = gstart[g], b = d.gfirst[g], end = d.gbeg[g + 1];
      if (gkey[g] < bk) continue; /* its best of all cannot beat what is found */
      uint32_t lim = d.plen[end - 1], run = wl[g];
      if (run < lim) {
        uint32_t qq = mt_above(mt, SZ, a + run, F);
        run = qq - a < lim ? qq - a : lim;
      }
      uint32_t lo = b, hi = end;
      while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (d.plen[mid] <= run) lo = mid + 1; else hi = mid;
      }
      cand[g] = d.pbest[lo - 1];
      ckey[g] = d.pkey[cand[g]];
      work += 48;
      crun[g] = run;
      if (ckey[g] > bk || (ckey[g] == bk && cand[g] < bp)) { bk = ckey[g]; bp = cand[g]; }
    }
    uint32_t i = d.it[bp], g = gof[in->s[i]], a = in->s[i], len = in->len[i];
    uint64_t o = pk_align_up(F, in->align[i]), top = o + in->size[i];
    off[i] = o;
    if (top > M) M = top;
    /* the arc, and each point's other copy */
    for (uint32_t k = a; k < a + len; k++) skyv[k] = top;
    for (uint32_t k = a + K; k < (a + len < K ? a + len : K) + K; k++) skyv[k] = top;
    for (uint32_t k = 0; k + K < a + len; k++) skyv[k] = top;
    work += 4 * (uint64_t)len + nt;
    mt_fix(mt, SZ, a, a + len);
    if (a + len < K) mt_fix(mt, SZ, a + K, a + len + K);
    else { mt_fix(mt, SZ, a + K, 2 * K); mt_fix(mt, SZ, 0, a + len - K); }
    d.done[bp] = 1;
    group_best(&d, gkey, g, bp);
    /* the groups whose window meets [a, a + len): their f rises to top */
    uint32_t back = maxlen < K ? maxlen : K;
    for (uint32_t k = 0; k < back + len && k < K; k++) {
      uint32_t s0 = a + 2 * K - back + 1 + k;
      while (s0 >= K) s0 -= K;
      uint32_t h = gof[s0];
      if (h == UINT32_MAX) continue;
      /* rel: from a to the group's start (K - rel back), dd: from it to a */
      uint32_t rel = k + 1 >= back ? k + 1 - back : k + 1 + K - back, dd = rel ? K - rel : 0;
      int in_arc = rel < len;
      if ((dd < wl[h] || in_arc) && f[h] < top) { f[h] = top; cand[h] = UINT32_MAX; bdirty[h / SKY_B] = 1; }
      /* f rose: found again; the arc cut the run: only when what goes reaches it */
      else if (cand[h] != UINT32_MAX && dd < crun[h]) {
        crun[h] = dd;
        if (d.plen[cand[h]] > dd) cand[h] = UINT32_MAX;
      }
    }
    work += back + len;
    /* the placed group's shortest may have gone: its window and f anew */
    cand[g] = UINT32_MAX;
    uint32_t b = group_first(&d, g);
    bdirty[g / SKY_B] = 1;
    if (b == d.gbeg[g + 1]) f[g] = UINT64_MAX;
    else if (in->len[d.it[b]] != wl[g]) {
      uint32_t L = wl[g] = in->len[d.it[b]];
      uint64_t v = lo0;
      for (uint32_t k = 0; k < L; k++) if (skyv[a + k] > v) v = skyv[a + k];
      f[g] = v;
      work += L;
    }
  }
  pk_charge(work);
out:
  pk_mem_free(mt); pk_mem_free(f); pk_mem_free(wl); pk_mem_free(gof); pk_mem_free(ties); pk_mem_free(cand); pk_mem_free(crun); pk_mem_free(ckey); pk_mem_free(gkey); pk_mem_free(bmin); pk_mem_free(bdirty);
  pk_mem_free(d.it); pk_mem_free(d.gbeg); pk_mem_free(d.gfirst);
  pk_mem_free(d.pkey); pk_mem_free(d.plen); pk_mem_free(d.pbest); pk_mem_free(d.done); pk_mem_free(cnt); pk_mem_free(tmp); pk_mem_free(gstart);
  return M;
}

/* A coarser view of in: its K points in runs of c (the last run shorter),
 * each lifetime widened to whole runs; items that meet in in meet in it,
 * so a packing of it is one of in. s and len: n each, the view's. 0, or 1
 * where a lifetime would span the whole coarse cycle (no view). */
int pk_skyline_coarse(const pk_inst *in, uint32_t c, pk_inst *out, uint32_t *s, uint32_t *len) {
  uint32_t K = in->K, K2 = (K + c - 1) / c;
  for (size_t i = 0; i < in->n; i++) {
    uint32_t s0 = in->s[i], l = in->len[i];
    if (l >= K) { s[i] = s0 / c; len[i] = K2; continue; } /* whole-cycle: never in ord */
    uint64_t end = (uint64_t)s0 + l; /* exclusive, unrolled */
    uint64_t e2 = end <= K ? (end + c - 1) / c : K2 + (end - K + c - 1) / c;
    s[i] = s0 / c;
    len[i] = (uint32_t)(e2 - s[i]);
    if (len[i] >= K2 && in->cyclic) return 1;
  }
  *out = *in;
  out->s = s;
  out->len = len;
  out->K = K2;
  out->cbits = NULL;
  return 0;
}
