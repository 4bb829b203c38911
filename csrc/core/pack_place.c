/* Placement against the items placed so far (pack_place.h): the offset-
 * sorted list and its time index, the gap scan every first/best-fit
 * strategy uses, and the skyline drop of a re-plan's hint. */
#include "pack_place.h"
#include "pack_mem.h"
#include <stdlib.h>
#include <string.h>

/* ----------------------------------------------------------- time index */

static uint32_t tix_blk(const pk_tix *x, uint32_t t) { return t / x->B; }

/* blocks touched by item i: from its start block onward, cyclically */
static uint32_t tix_count(const pk_tix *x, size_t i) {
  const pk_inst *in = x->in;
  uint32_t K = in->K, s = in->s[i], len = in->len[i];
  if (len >= K) return x->nblk;
  uint32_t lastp = s + len - 1; /* unwrapped, < 2K */
  uint32_t lb = lastp < K ? lastp / x->B : x->nblk + (lastp - K) / x->B;
  uint32_t c = lb - s / x->B + 1;
  return c < x->nblk ? c : x->nblk;
}

void pk_tix_free(pk_tix *x) {
  pk_mem_free(x->sat); pk_mem_free(x->scnt); pk_mem_free(x->sl);
  pk_mem_free(x->cat); pk_mem_free(x->ccnt); pk_mem_free(x->cl);
  pk_mem_free(x->nbk); pk_mem_free(x->sc);
  memset(x, 0, sizeof *x);
}

int pk_tix_init(pk_tix *x, const pk_inst *in) {
  size_t n = in->n;
  uint32_t K = in->K;
  memset(x, 0, sizeof *x);
  /* the plain scan is as fast on small instances, and with conflict bits
   * (a bit test per placed item) up to a thousand items */
  if (n < 128 || (in->cbits && n <= 1024)) return 0;
  x->in = in;
  /* block width: the median length, so most items touch one or two blocks */
  uint32_t *h = pk_mem_calloc((size_t)K + 1, sizeof(uint32_t));
  if (!h) return -1;
  for (size_t i = 0; i < n; i++) h[in->len[i] < K ? in->len[i] : K]++;
  uint32_t med = 1;
  for (size_t acc = 0, t = 0; t <= K; t++) {
    acc += h[t];
    if (acc * 2 >= n) { med = (uint32_t)t; break; }
  }
  pk_mem_free(h);
  uint32_t B = med ? med : 1;
  /* not too many blocks: an item that spans many is inserted into each */
  uint32_t maxb = (uint32_t)(n / 16);
  if ((K + B - 1) / B > maxb) B = (K + maxb - 1) / maxb;
  x->B = B;
  x->nblk = (K + B - 1) / B;
  x->wide = 8;
  uint32_t nb = x->nblk;
  x->sat = pk_mem_calloc((size_t)nb + 1, sizeof(uint32_t));
  x->cat = pk_mem_calloc((size_t)nb + 1, sizeof(uint32_t));
  x->scnt = pk_mem_calloc(nb, sizeof(uint32_t));
  x->ccnt = pk_mem_calloc(nb, sizeof(uint32_t));
  x->nbk = pk_mem_alloc(sizeof(uint32_t) * n);
  x->sc = pk_mem_alloc(sizeof(pk_iv) * n);
  if (!x->sat || !x->cat || !x->scnt || !x->ccnt || !x->nbk || !x->sc) { pk_tix_free(x); return -1; }
  for (size_t i = 0; i < n; i++) {
    uint32_t c = tix_count(x, i), b0 = tix_blk(x, in->s[i]);
    x->nbk[i] = c;
    x->sat[b0 + 1]++;
    for (uint32_t k = 1, b = b0 + 1; k < c; k++, b++) {
      if (b == nb) b = 0;
      x->cat[b + 1]++;
    }
  }
  /* worth it only when a query would visit far fewer items than the scan
   * of every placed one (both counted with everything placed) */
  uint64_t visits = 0, scan = (uint64_t)n * n;
  for (size_t i = 0; i < n && visits * 4 < scan; i++) {
    uint32_t b0 = tix_blk(x, in->s[i]);
    if (x->nbk[i] > x->wide) { visits += n; continue; }
    visits += x->cat[b0 + 1];
    for (uint32_t k = 0, b = b0; k < x->nbk[i]; k++, b++) visits += x->sat[(b == nb ? (b = 0) : b) + 1];
  }
  if (visits * 4 >= scan) { pk_tix_free(x); return 0; }
  for (uint32_t b = 0; b < nb; b++) { x->sat[b + 1] += x->sat[b]; x->cat[b + 1] += x->cat[b]; }
  x->sl = pk_mem_alloc(sizeof(uint32_t) * (x->sat[nb] + 1));
  x->cl = pk_mem_alloc(sizeof(uint32_t) * (x->cat[nb] + 1));
  if (!x->sl || !x->cl) { pk_tix_free(x); return -1; }
  return 1;
}

static void lst_insert(uint32_t *l, uint32_t *cnt, const uint64_t *off, uint32_t i) {
  if (!*cnt || off[l[*cnt - 1]] <= off[i]) { /* on top of all: stacked long items come so */
    l[(*cnt)++] = i;
    return;
  }
  uint32_t lo = 0, hi = *cnt;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    if (off[l[mid]] <= off[i]) lo = mid + 1; else hi = mid;
  }
  memmove(l + lo + 1, l + lo, (*cnt - lo) * sizeof(uint32_t));
  l[lo] = i;
  (*cnt)++;
}
static void lst_remove(uint32_t *l, uint32_t *cnt, uint32_t i) {
  for (uint32_t k = 0; k < *cnt; k++)
    if (l[k] == i) {
      memmove(l + k, l + k + 1, (*cnt - k - 1) * sizeof(uint32_t));
      (*cnt)--;
      return;
    }
}

static void tix_insert(pk_tix *x, const uint64_t *off, uint32_t i) {
  uint32_t nb = x->nblk, b0 = tix_blk(x, x->in->s[i]);
  lst_insert(x->sl + x->sat[b0], &x->scnt[b0], off, i);
  for (uint32_t k = 1, b = b0 + 1; k < x->nbk[i]; k++, b++) {
    if (b == nb) b = 0;
    lst_insert(x->cl + x->cat[b], &x->ccnt[b], off, i);
  }
}
static void tix_remove(pk_tix *x, uint32_t i) {
  uint32_t nb = x->nblk, b0 = tix_blk(x, x->in->s[i]);
  lst_remove(x->sl + x->sat[b0], &x->scnt[b0], i);
  for (uint32_t k = 1, b = b0 + 1; k < x->nbk[i]; k++, b++) {
    if (b == nb) b = 0;
    lst_remove(x->cl + x->cat[b], &x->ccnt[b], i);
  }
}

int pk_pl_init(pk_plist *pl, const pk_inst *in) {
  size_t n = in->n ? in->n : 1;
  memset(pl, 0, sizeof *pl);
  pl->ix = pk_mem_alloc(sizeof(uint32_t) * n);
  if (!pl->ix) return -1;
  if (in->cbits) {
    pl->words = in->cwords;
    pl->placed = pk_mem_calloc(pl->words, sizeof(uint64_t));
    pl->pos = pk_mem_alloc(sizeof(uint32_t) * n);
    pl->sel = pk_mem_alloc(sizeof(uint64_t) * pl->words);
    pl->lo = pk_mem_alloc(sizeof(uint64_t) * n);
    pl->hi = pk_mem_alloc(sizeof(uint64_t) * n);
    pl->size = in->size;
    if (!pl->placed || !pl->pos || !pl->sel || !pl->lo || !pl->hi) { pk_pl_free(pl); return -1; }
  }
  return 0;
}

void pk_pl_free(pk_plist *pl) {
  pk_mem_free(pl->ix); pk_mem_free(pl->placed); pk_mem_free(pl->pos); pk_mem_free(pl->sel); pk_mem_free(pl->lo); pk_mem_free(pl->hi);
  pl->ix = NULL; pl->placed = NULL; pl->pos = NULL; pl->sel = NULL; pl->lo = pl->hi = NULL;
}

static void pl_renumber(pk_plist *pl, size_t from) {
  if (pl->pos)
    for (size_t k = from; k < pl->n; k++) pl->pos[pl->ix[k]] = (uint32_t)k;
}

void pk_pl_insert(pk_plist *pl, const uint64_t *off, uint32_t i) {
  if (pl->placed) pl->placed[i >> 6] |= 1ull << (i & 63);
  if (pl->noix) {
    tix_insert(pl->tix, off, i);
    return;
  }
  size_t lo = 0, hi = pl->n;
  if (pl->lo && hi) {
    /* after the last offset <= i's, over the gathered offsets and without
     * branches (where i goes is random: a misprediction every other step;
     * n = 200, bysize 3.4k mispredicted branches a call -> 3.0k) */
    const uint64_t *b = pl->lo, v = off[i];
    for (size_t len = hi, h; len > 1; len -= h) {
      h = len / 2;
      b = b[h] <= v ? b + h : b;
    }
    lo = (size_t)(b - pl->lo) + (*b <= v);
  } else {
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (off[pl->ix[mid]] <= off[i]) lo = mid + 1; else hi = mid;
    }
  }
  memmove(pl->ix + lo + 1, pl->ix + lo, (pl->n - lo) * sizeof(uint32_t));
  pl->ix[lo] = i;
  if (pl->lo) {
    memmove(pl->lo + lo + 1, pl->lo + lo, (pl->n - lo) * sizeof(uint64_t));
    memmove(pl->hi + lo + 1, pl->hi + lo, (pl->n - lo) * sizeof(uint64_t));
    pl->lo[lo] = off[i];
    pl->hi[lo] = off[i] + pl->size[i];
  }
  pl->n++;
  pl_renumber(pl, lo);
  if (pl->tix) tix_insert(pl->tix, off, i);
}

void pk_pl_remove(pk_plist *pl, uint32_t i) {
  if (pl->placed) pl->placed[i >> 6] &= ~(1ull << (i & 63));
  for (size_t k = 0; k < pl->n; k++)
    if (pl->ix[k] == i) {
      memmove(pl->ix + k, pl->ix + k + 1, (pl->n - k - 1) * sizeof(uint32_t));
      if (pl->lo) {
        memmove(pl->lo + k, pl->lo + k + 1, (pl->n - k - 1) * sizeof(uint64_t));
        memmove(pl->hi + k, pl->hi + k + 1, (pl->n - k - 1) * sizeof(uint64_t));
      }
      pl->n--;
      pl_renumber(pl, k);
      if (pl->tix) tix_remove(pl->tix, i);
      return;
    }
}

void pk_pl_remove_set(pk_plist *pl, const char *gone, const size_t *ids, size_t k) {
  size_t w = 0;
  for (size_t q = 0; q < pl->n; q++)
    if (!gone[pl->ix[q]]) {
      if (pl->lo) { pl->lo[w] = pl->lo[q]; pl->hi[w] = pl->hi[q]; }
      pl->ix[w++] = pl->ix[q];
    }
  pl->n = w;
  pl_renumber(pl, 0);
  if (pl->placed)
    for (size_t q = 0; q < k; q++) pl->placed[ids[q] >> 6] &= ~(1ull << (ids[q] & 63));
  if (pl->tix)
    for (size_t q = 0; q < k; q++) tix_remove(pl->tix, (uint32_t)ids[q]);
}

int pk_pl_save_init(pk_plsave *s, const pk_plist *pl, size_t nitems) {
  memset(s, 0, sizeof *s);
  if (pl->tix) return -1;
  size_t nn = nitems ? nitems : 1;
  s->nitems = nitems;
  s->ix = pk_mem_alloc(sizeof(uint32_t) * nn);
  s->pos = pl->pos ? pk_mem_alloc(sizeof(uint32_t) * nn) : NULL;
  s->placed = pl->placed ? pk_mem_alloc(sizeof(uint64_t) * (pl->words ? pl->words : 1)) : NULL;
  s->lo = pl->lo ? pk_mem_alloc(sizeof(uint64_t) * nn) : NULL;
  s->hi = pl->lo ? pk_mem_alloc(sizeof(uint64_t) * nn) : NULL;
  if (!s->ix || (pl->pos && !s->pos) || (pl->placed && !s->placed) || (pl->lo && (!s->lo || !s->hi))) {
    pk_pl_save_free(s);
    return -1;
  }
  return 0;
}

void pk_pl_save_free(pk_plsave *s) {
  pk_mem_free(s->ix); pk_mem_free(s->pos); pk_mem_free(s->placed); pk_mem_free(s->lo); pk_mem_free(s->hi);
  memset(s, 0, sizeof *s);
}

void pk_pl_save(pk_plsave *s, const pk_plist *pl) {
  s->n = pl->n;
  memcpy(s->ix, pl->ix, sizeof(uint32_t) * pl->n);
  /* pos of listed items only: those are the ones read back */
  if (s->pos) memcpy(s->pos, pl->pos, sizeof(uint32_t) * s->nitems);
  if (s->placed) memcpy(s->placed, pl->placed, sizeof(uint64_t) * pl->words);
  if (s->lo) {
    memcpy(s->lo, pl->lo, sizeof(uint64_t) * pl->n);
    memcpy(s->hi, pl->hi, sizeof(uint64_t) * pl->n);
  }
}

void pk_pl_restore(pk_plist *pl, const pk_plsave *s) {
  pl->n = s->n;
  memcpy(pl->ix, s->ix, sizeof(uint32_t) * s->n);
  if (s->pos) memcpy(pl->pos, s->pos, sizeof(uint32_t) * s->nitems);
  if (s->placed) memcpy(pl->placed, s->placed, sizeof(uint64_t) * pl->words);
  if (s->lo) {
    memcpy(pl->lo, s->lo, sizeof(uint64_t) * s->n);
    memcpy(pl->hi, s->hi, sizeof(uint64_t) * s->n);
  }
}

void pk_pl_clear(pk_plist *pl) {
  pl->n = 0;
  pl->noix = 0;
  if (pl->placed) memset(pl->placed, 0, sizeof(uint64_t) * pl->words);
  if (pl->tix) {
    memset(pl->tix->scnt, 0, sizeof(uint32_t) * pl->tix->nblk);
    memset(pl->tix->ccnt, 0, sizeof(uint32_t) * pl->tix->nblk);
  }
}

/* Usually a handful: insertion sort by offset (ties do not change the scan). */
static void sort_by_off(pk_iv *sc, size_t c) {
  if (c > 24) { pk_sort_iv(sc, c); return; }
  for (size_t a = 1; a < c; a++) {
    pk_iv t = sc[a];
    size_t p = a;
    while (p > 0 && sc[p - 1].lo > t.lo) { sc[p] = sc[p - 1]; p--; }
    sc[p] = t;
  }
}

/* The gap scan over the items meeting i, visited in offset order. */
#define GAP_STEP(LO, HI)                                                    \
  do {                                                                      \
    uint64_t lo_ = (LO), hi_ = (HI);                                        \
    if (lo_ > cur && lo_ - cur >= size) {                                   \
      uint64_t o_ = pk_align_up(cur, align);                                \
      if (o_ + size <= lo_) {                                               \
        if (!bestfit) return o_;                                            \
        if (lo_ - cur < bestgap) { bestgap = lo_ - cur; best = o_; }        \
      }                                                                     \
    }                                                                       \
    if (hi_ > cur) cur = hi_;                                               \
  } while (0)

/* pk_place's walk on conflict bits: i's placed neighbours (row & placed)
 * marked by their places in the list, visited in that order over the
 * gathered offsets. Returns cur; first fit leaves its gap in *bestp, best
 * fit its smallest. A function of its own, the walk keeps its state in
 * registers (inside pk_place it spilled), and reads lo/hi by place: ~24
 * instructions a neighbour instead of ~29; n = 200 Enlisted, bysize 508k
 * instructions a call -> 464k, a first-fit replay of 160 items 245k -> 235k. */
static uint64_t walk_bits(const pk_plist *pl, const uint64_t *row, uint64_t cur, uint64_t size,
                          uint64_t align, int bestfit, uint64_t *bestp, uint64_t *bestgapp) {
  size_t nw = (pl->n + 63) / 64;
  uint64_t *sel = pl->sel, best = *bestp, bestgap = *bestgapp;
  const uint32_t *pos = pl->pos;
  memset(sel, 0, sizeof(uint64_t) * nw);
  for (size_t q = 0; q < pl->words; q++, pos += 64)
    for (uint64_t bm = row[q] & pl->placed[q]; bm; bm &= bm - 1) {
      uint32_t p = pos[(uint32_t)__builtin_ctzll(bm)];
      sel[p >> 6] |= 1ull << (p & 63);
    }
  const uint64_t *plo = pl->lo, *phi = pl->hi;
  for (size_t w = 0; w < nw; w++, plo += 64, phi += 64)
    for (uint64_t bm = sel[w]; bm; bm &= bm - 1) {
      uint32_t c = (uint32_t)__builtin_ctzll(bm);
      uint64_t lo = plo[c], hi = phi[c];
      if (lo > cur && lo - cur >= size) {
        uint64_t o = pk_align_up(cur, align);
        if (o + size <= lo) {
          if (!bestfit) { *bestp = o; return cur; }
          if (lo - cur < bestgap) { bestgap = lo - cur; best = o; }
        }
      }
      if (hi > cur) cur = hi;
    }
  *bestp = best;
  *bestgapp = bestgap;
  return cur;
}

static uint64_t place(const pk_inst *in, const pk_plist *pl, const uint64_t *off, size_t i, uint64_t lo0,
                      uint64_t limit, int bestfit);
/* The work clock's charge (pk_charge): about a nanosecond per item a scan
 * may look at, a word per 64 on conflict bits (what each path costs on the
 * reference machine) */
uint64_t pk_place(const pk_inst *in, const pk_plist *pl, const uint64_t *off, size_t i, uint64_t lo0,
                  uint64_t limit, int bestfit) {
  const pk_tix *x = pl->tix;
  uint64_t w = 16;
  if (x && x->nbk[i] <= x->wide) w += (uint64_t)x->nbk[i] * 4 + x->ccnt[x->in->s[i] / x->B];
  else if (in->cbits && pl->placed && pl->n > 2 * pl->words) w += pl->words * 2 + pl->n / 8;
  else w += pl->n;
  pk_charge(w);
  return place(in, pl, off, i, lo0, limit, bestfit);
}

static uint64_t place(const pk_inst *in, const pk_plist *pl, const uint64_t *off, size_t i, uint64_t lo0,
                      uint64_t limit, int bestfit) {
  uint64_t cur = lo0, size = in->size[i], align = in->align[i], best = UINT64_MAX, bestgap = UINT64_MAX;
  pk_tix *x = pl->tix;
  if (x && x->nbk[i] <= x->wide) {
    /* the neighbours starting in i's blocks (few: sorted here), merged with
     * the cover list of i's start block (sorted already) */
    uint32_t nb = x->nblk, b0 = tix_blk(x, in->s[i]);
    size_t c = 0;
    pk_iv *sc = x->sc;
    for (uint32_t k = 0, b = b0; k < x->nbk[i]; k++, b++) {
      if (b == nb) b = 0;
      const uint32_t *l = x->sl + x->sat[b];
      for (uint32_t q = 0, qn = x->scnt[b]; q < qn; q++) {
        uint32_t j = l[q];
        if (j != i && pk_conflict(in, i, j)) sc[c++] = (pk_iv){off[j], off[j] + in->size[j]};
      }
    }
    sort_by_off(sc, c);
    const uint32_t *cl = x->cl + x->cat[b0];
    uint32_t cn = x->ccnt[b0], q = 0;
    size_t p = 0;
    for (;;) {
      while (q < cn && !pk_conflict(in, i, cl[q])) q++;
      if (q < cn && (p == c || off[cl[q]] <= sc[p].lo)) {
        uint32_t j = cl[q++];
        GAP_STEP(off[j], off[j] + in->size[j]);
      } else if (p < c) {
        GAP_STEP(sc[p].lo, sc[p].hi);
        p++;
      } else {
        break;
      }
    }
  } else if (in->cbits) {
    const uint64_t *row = in->cbits + i * in->cwords;
    if (pl->placed && pl->n > 2 * pl->words) {
      /* i's placed neighbours from its row, marked by their places in the
       * offset-sorted list and visited in that order: no sort, and a cost
       * of the neighbours (plus a bit per placed item), not of every one */
      cur = walk_bits(pl, row, cur, size, align, bestfit, &best, &bestgap);
      if (!bestfit && best != UINT64_MAX) return best;
      goto top;
    }
    /* i's row once, a bit test per placed item (fewer placed items than
     * words in a row: a bucket of pk_buckets) */
    for (size_t k = 0; k < pl->n; k++) {
      uint32_t j = pl->ix[k];
      if (!((row[j >> 6] >> (j & 63)) & 1)) continue;
      GAP_STEP(off[j], off[j] + in->size[j]);
    }
  } else {
    for (size_t k = 0; k < pl->n; k++) {
      uint32_t j = pl->ix[k];
      if (!pk_conflict_arcs(in, i, j)) continue;
      GAP_STEP(off[j], off[j] + in->size[j]);
    }
  }
top:;
  uint64_t o = pk_align_up(cur, align);
  if (limit == UINT64_MAX) return best != UINT64_MAX ? best : o;
  if (o + size <= limit && limit - cur < bestgap) best = o;
  return best;
}

/* ---------------------------------------------------------- skyline drop */

/* Range max / range raise over time points without pushing tags down: a
 * raise only lifts values (chmax commutes), so a query takes the canonical
 * nodes' maxima plus the tags of their ancestors, which are the ancestors of
 * the range's two end leaves. */
typedef struct sky { uint64_t *t, *d; uint32_t N; } sky; /* t: 2N maxima; d: N tags */
static uint64_t sky_max(const sky *s, uint32_t a, uint32_t z) { /* [a, z), a < z */
  uint64_t r = 0;
  for (uint32_t l = a + s->N, h = z + s->N; l < h; l >>= 1, h >>= 1) {
    if ((l & 1) && s->t[l] > r) r = s->t[l];
    if ((h & 1) && s->t[h - 1] > r) r = s->t[h - 1];
    l += l & 1;
    h -= h & 1;
  }
  for (uint32_t p = (a + s->N) >> 1; p; p >>= 1) if (s->d[p] > r) r = s->d[p];
  for (uint32_t p = (z - 1 + s->N) >> 1; p; p >>= 1) if (s->d[p] > r) r = s->d[p];
  return r;
}
static void sky_raise(sky *s, uint32_t a, uint32_t z, uint64_t v) {
  for (uint32_t l = a + s->N, h = z + s->N; l < h; l >>= 1, h >>= 1) {
    if (l & 1) {
      if (v > s->t[l]) s->t[l] = v;
      if (l < s->N && v > s->d[l]) s->d[l] = v;
      l++;
    }
    if (h & 1) {
      h--;
      if (v > s->t[h]) s->t[h] = v;
      if (h < s->N && v > s->d[h]) s->d[h] = v;
    }
  }
  for (uint32_t p = (a + s->N) >> 1; p; p >>= 1) if (v > s->t[p]) s->t[p] = v;
  for (uint32_t p = (z - 1 + s->N) >> 1; p; p >>= 1) if (v > s->t[p]) s->t[p] = v;
}

uint64_t pk_drop(const pk_inst *in, const size_t *ord, size_t m, uint64_t lo0, uint64_t *off) {
  uint32_t K = in->K, lg = 1;
  while ((1u << lg) < K) lg++;
  uint64_t covered = 0, top = lo0;
  for (size_t k = 0; k < m; k++) covered += in->len[ord[k]] < K ? in->len[ord[k]] : K;
  /* short arcs: a plain skyline array, O(points covered); long ones: the tree */
  int tree = covered > 8 * (uint64_t)m * lg;
  sky s = {NULL, NULL, 1u << lg};
  uint64_t *h = pk_mem_calloc(tree ? 3 * (size_t)s.N : (K ? K : 1), sizeof(uint64_t));
  if (!h) return UINT64_MAX;
  if (tree) { s.t = h; s.d = h + 2 * (size_t)s.N; }
  for (size_t k = 0; k < m; k++) {
    size_t i = ord[k];
    uint32_t a = in->s[i], len = in->len[i] < K ? in->len[i] : K;
    uint32_t z1 = a + len <= K ? a + len : K, z2 = a + len <= K ? 0 : a + len - K; /* [a, z1) and [0, z2) */
    uint64_t o = lo0;
    if (tree) {
      uint64_t v = sky_max(&s, a, z1);
      if (z2) { uint64_t w = sky_max(&s, 0, z2); if (w > v) v = w; }
      if (v > o) o = v;
    } else {
      for (uint32_t t = a; t < z1; t++) if (h[t] > o) o = h[t];
      for (uint32_t t = 0; t < z2; t++) if (h[t] > o) o = h[t];
    }
    off[i] = o = pk_align_up(o, in->align[i]);
    uint64_t e = o + in->size[i];
    if (tree) {
      sky_raise(&s, a, z1, e);
      if (z2) sky_raise(&s, 0, z2, e);
    } else {
      for (uint32_t t = a; t < z1; t++) h[t] = e;
      for (uint32_t t = 0; t < z2; t++) h[t] = e;
    }
    if (e > top) top = e;
  }
  pk_mem_free(h);
  return top;
}
