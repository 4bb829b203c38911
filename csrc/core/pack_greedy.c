/* Reference packers, each faithful to its source (see DESIGN.md "Reference
 * packers"): bysize (TFLite/XLA greedy by size), buckets (the GPU memory
 * aliasing article), thesis (daBFG thesis, Algorithm 1), scanline (daFG's
 * GreedyScanline). They are baselines and starting points for `best`. */
#include "pack_internal.h"
#include <stdlib.h>
#include <string.h>

#define INF_T UINT32_MAX

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
  free(x->sat); free(x->scnt); free(x->sl);
  free(x->cat); free(x->ccnt); free(x->cl);
  free(x->nbk); free(x->sc);
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
  uint32_t *h = calloc((size_t)K + 1, sizeof(uint32_t));
  if (!h) return -1;
  for (size_t i = 0; i < n; i++) h[in->len[i] < K ? in->len[i] : K]++;
  uint32_t med = 1;
  for (size_t acc = 0, t = 0; t <= K; t++) {
    acc += h[t];
    if (acc * 2 >= n) { med = (uint32_t)t; break; }
  }
  free(h);
  uint32_t B = med ? med : 1;
  /* not too many blocks: an item that spans many is inserted into each */
  uint32_t maxb = (uint32_t)(n / 16);
  if ((K + B - 1) / B > maxb) B = (K + maxb - 1) / maxb;
  x->B = B;
  x->nblk = (K + B - 1) / B;
  x->wide = 8;
  uint32_t nb = x->nblk;
  x->sat = calloc((size_t)nb + 1, sizeof(uint32_t));
  x->cat = calloc((size_t)nb + 1, sizeof(uint32_t));
  x->scnt = calloc(nb, sizeof(uint32_t));
  x->ccnt = calloc(nb, sizeof(uint32_t));
  x->nbk = malloc(sizeof(uint32_t) * n);
  x->sc = malloc(sizeof(pk_iv) * n);
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
  x->sl = malloc(sizeof(uint32_t) * (x->sat[nb] + 1));
  x->cl = malloc(sizeof(uint32_t) * (x->cat[nb] + 1));
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
  pl->ix = malloc(sizeof(uint32_t) * n);
  if (!pl->ix) return -1;
  if (in->cbits) {
    pl->words = in->cwords;
    pl->placed = calloc(pl->words, sizeof(uint64_t));
    pl->pos = malloc(sizeof(uint32_t) * n);
    pl->sel = malloc(sizeof(uint64_t) * pl->words);
    if (!pl->placed || !pl->pos || !pl->sel) { pk_pl_free(pl); return -1; }
  }
  return 0;
}

void pk_pl_free(pk_plist *pl) {
  free(pl->ix); free(pl->placed); free(pl->pos); free(pl->sel);
  pl->ix = NULL; pl->placed = NULL; pl->pos = NULL; pl->sel = NULL;
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
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (off[pl->ix[mid]] <= off[i]) lo = mid + 1; else hi = mid;
  }
  memmove(pl->ix + lo + 1, pl->ix + lo, (pl->n - lo) * sizeof(uint32_t));
  pl->ix[lo] = i;
  pl->n++;
  pl_renumber(pl, lo);
  if (pl->tix) tix_insert(pl->tix, off, i);
}

void pk_pl_remove(pk_plist *pl, uint32_t i) {
  if (pl->placed) pl->placed[i >> 6] &= ~(1ull << (i & 63));
  for (size_t k = 0; k < pl->n; k++)
    if (pl->ix[k] == i) {
      memmove(pl->ix + k, pl->ix + k + 1, (pl->n - k - 1) * sizeof(uint32_t));
      pl->n--;
      pl_renumber(pl, k);
      if (pl->tix) tix_remove(pl->tix, i);
      return;
    }
}

void pk_pl_remove_set(pk_plist *pl, const char *gone, const size_t *ids, size_t k) {
  size_t w = 0;
  for (size_t q = 0; q < pl->n; q++)
    if (!gone[pl->ix[q]]) pl->ix[w++] = pl->ix[q];
  pl->n = w;
  pl_renumber(pl, 0);
  if (pl->placed)
    for (size_t q = 0; q < k; q++) pl->placed[ids[q] >> 6] &= ~(1ull << (ids[q] & 63));
  if (pl->tix)
    for (size_t q = 0; q < k; q++) tix_remove(pl->tix, (uint32_t)ids[q]);
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

uint64_t pk_place(const pk_inst *in, const pk_plist *pl, const uint64_t *off, size_t i, uint64_t lo0,
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
    if (pl->placed) {
      /* i's placed neighbours from its row, marked by their places in the
       * offset-sorted list and visited in that order: no sort, and a cost
       * of the neighbours (plus a bit per placed item), not of every one */
      size_t nw = (pl->n + 63) / 64;
      uint64_t *sel = pl->sel;
      memset(sel, 0, sizeof(uint64_t) * nw);
      for (size_t q = 0; q < pl->words; q++)
        for (uint64_t bm = row[q] & pl->placed[q]; bm; bm &= bm - 1) {
          uint32_t p = pl->pos[q * 64 + (size_t)__builtin_ctzll(bm)];
          sel[p >> 6] |= 1ull << (p & 63);
        }
      for (size_t w = 0; w < nw; w++)
        for (uint64_t bm = sel[w]; bm; bm &= bm - 1) {
          uint32_t j = pl->ix[w * 64 + (size_t)__builtin_ctzll(bm)];
          GAP_STEP(off[j], off[j] + in->size[j]);
        }
      goto top;
    }
    /* i's row once, a bit test per placed item */
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

/* ------------------------------------------------------------------ bysize */

int pk_bysize(const pk_inst *in, uint64_t *off) {
  size_t n = in->n;
  uint32_t *key = malloc(sizeof(uint32_t) * (n ? n : 1)), K = in->K;
  size_t *ord = malloc(sizeof(size_t) * (n ? n : 1));
  pk_plist pl;
  pk_tix tix;
  int rc = -1, pi = pk_pl_init(&pl, in), ti = pk_tix_init(&tix, in);
  if (!key || !ord || pi || ti < 0) goto out;
  if (ti) pl.tix = &tix;
  /* size descending, then longer lifetime first */
  for (size_t i = 0; i < n; i++) key[i] = K - (pk_len(in, i) < K ? pk_len(in, i) : K);
  if (pk_size_order(in, key, K + 1, ord)) goto out;
  for (size_t k = 0; k < n; k++) {
    size_t i = ord[k];
    off[i] = pk_place(in, &pl, off, i, 0, UINT64_MAX, 1);
    if (pk_cut(in, off, i)) { rc = 1; goto out; }
    pk_pl_insert(&pl, off, (uint32_t)i);
  }
  rc = 0;
out:
  free(key); free(ord);
  pk_pl_free(&pl);
  if (ti > 0) pk_tix_free(&tix);
  return rc;
}

/* ----------------------------------------------------------------- buckets */

int pk_buckets(const pk_inst *in, uint64_t *off) {
  size_t n = in->n;
  size_t *rest = malloc(sizeof(size_t) * (n ? n : 1));
  pk_plist pl;
  pk_tix tix;
  int rc = -1, pi = pk_pl_init(&pl, in), ti = pk_tix_init(&tix, in);
  if (!rest || pi || ti < 0) goto out;
  if (ti) pl.tix = &tix;
  /* rest: the items not placed yet, in size order (compacted per bucket, so
   * a bucket costs what is left, not n) */
  if (pk_size_order(in, NULL, 0, rest)) goto out;
  size_t nr = n;
  uint64_t h = 0;
  while (nr) {
    size_t b0 = rest[0];
    uint64_t base = pk_align_up(h, in->align[b0]), bend = base + in->size[b0];
    off[b0] = base;
    if (pk_cut(in, off, b0)) { rc = 1; goto out; }
    pk_pl_clear(&pl);
    pk_pl_insert(&pl, off, (uint32_t)b0);
    size_t w = 0;
    for (size_t k = 1; k < nr; k++) {
      size_t i = rest[k];
      /* the opener fills the bucket's height: what meets it cannot fit */
      if (pk_conflict(in, i, b0)) { rest[w++] = i; continue; }
      /* free regions among members whose lifetimes meet i's, smallest that fits */
      uint64_t o = pk_place(in, &pl, off, i, base, bend, 1);
      if (o == UINT64_MAX) { rest[w++] = i; continue; } /* no region fits: a later bucket takes it */
      off[i] = o;
      if (pk_cut(in, off, i)) { rc = 1; goto out; }
      pk_pl_insert(&pl, off, (uint32_t)i);
    }
    nr = w;
    h = bend;
  }
  rc = 0;
out:
  free(rest);
  pk_pl_free(&pl);
  if (ti > 0) pk_tix_free(&tix);
  return rc;
}

/* ------------------------------------------------------------ free blocks */

typedef struct blk { uint64_t off, size; uint32_t until; } blk;
typedef struct blkset { blk *b; size_t n; } blkset;

/* Add a free block, merging neighbours in memory with the same `until`. */
static void blk_add(blkset *A, blk x) {
  if (!x.size) return;
  size_t left = (size_t)-1, right = (size_t)-1; /* one pass finds both neighbours */
  for (size_t k = 0; k < A->n; k++) {
    const blk *y = &A->b[k];
    if (y->until != x.until) continue;
    if (y->off + y->size == x.off) left = k;
    else if (x.off + x.size == y->off) right = k;
  }
  if (left != (size_t)-1) { x.off = A->b[left].off; x.size += A->b[left].size; }
  if (right != (size_t)-1) x.size += A->b[right].size;
  /* remove the merged ones (higher index first so the other stays valid) */
  size_t hi = left == (size_t)-1 ? right : right == (size_t)-1 ? left : (left > right ? left : right);
  size_t lo = (left != (size_t)-1 && right != (size_t)-1) ? (left < right ? left : right) : (size_t)-1;
  if (hi != (size_t)-1) A->b[hi] = A->b[--A->n];
  if (lo != (size_t)-1) A->b[lo] = A->b[--A->n];
  A->b[A->n++] = x;
}

/* Do arcs [a1,b1) and [a2,b2) on the cycle of K points meet? a == b: whole. */
static int arc_in(uint32_t a, uint32_t b, uint32_t t) {
  if (a == b) return 1;
  if (a < b) return a <= t && t < b;
  return t >= a || t < b;
}
static int arcs_meet(uint32_t a1, uint32_t b1, uint32_t a2, uint32_t b2) {
  return arc_in(a1, b1, a2) || arc_in(a2, b2, a1);
}

/* Take item i from block k: aligned offset, both remainders go back. */
static uint64_t blk_take(blkset *A, size_t k, uint64_t size, uint64_t align) {
  blk a = A->b[k];
  A->b[k] = A->b[--A->n];
  uint64_t o = pk_align_up(a.off, align);
  blk_add(A, (blk){a.off, o - a.off, a.until});
  blk_add(A, (blk){o + size, a.off + a.size - (o + size), a.until});
  return o;
}

/* ------------------------------------------------------------------ thesis */

int pk_thesis(const pk_inst *in, uint64_t *off) {
  size_t n = in->n;
  uint32_t K = in->K;
  uint64_t *prof = malloc(sizeof(uint64_t) * K);
  uint32_t *dist = malloc(sizeof(uint32_t) * n);
  size_t *ord = malloc(sizeof(size_t) * n), *Y = malloc(sizeof(size_t) * n), *later = malloc(sizeof(size_t) * n);
  uint32_t *yuntil = malloc(sizeof(uint32_t) * n);
  blkset A = {malloc(sizeof(blk) * (3 * n + 4)), 0};
  if (!prof || !dist || !ord || !Y || !later || !yuntil || !A.b) {
    free(prof); free(dist); free(ord); free(Y); free(later); free(yuntil); free(A.b);
    return -1;
  }
  int rc = 0;
  pk_profile(in, prof, 0);
  uint32_t t0 = 0;
  for (uint32_t t = 1; t < K; t++)
    if (prof[t] < prof[t0]) t0 = t;
  uint64_t H = 0;
  size_t ny = 0, m = 0;
  for (size_t i = 0; i < n; i++) {
    if (pk_contains(in, i, t0)) { /* lines 7-12: stack what is live at t0 */
      off[i] = pk_align_up(H, in->align[i]);
      H = off[i] + in->size[i];
      if (pk_cut(in, off, i)) { rc = 1; goto out; }
      Y[ny] = i;
      /* free from r_i until l_i; l_i == t0 means "until the sweep ends" */
      yuntil[ny++] = in->s[i] == t0 ? INF_T : in->s[i];
    } else {
      later[m++] = i;
      dist[i] = (in->s[i] + K - t0) % K;
    }
  }
  /* line 21: nearest start after the sweep position (a counting sort: the
   * distances are points) */
  if (pk_csort(dist, K, later, m, ord)) { rc = -1; goto out; }
  for (size_t k = 0; k < m; k++) {
    size_t i = ord[k];
    uint32_t t = in->s[i];
    for (size_t y = 0; y < ny;) { /* lines 14-20: free what is no longer live */
      if (!pk_contains(in, Y[y], t)) {
        blk_add(&A, (blk){off[Y[y]], in->size[Y[y]], yuntil[y]});
        Y[y] = Y[ny - 1];
        yuntil[y] = yuntil[--ny];
      } else {
        y++;
      }
    }
    uint64_t sz = in->size[i], al = in->align[i];
    size_t pick = (size_t)-1;
    for (int attempt = 0; attempt < 2 && pick == (size_t)-1; attempt++) {
      if (attempt == 1) { /* lines 23-27: a new block on top of the heap */
        uint64_t o = pk_align_up(H, al);
        blk_add(&A, (blk){H, o - H, INF_T});
        blk_add(&A, (blk){o, sz, INF_T});
        H = o + sz;
      }
      uint64_t bestsz = UINT64_MAX, bestoff = 0;
      for (size_t b = 0; b < A.n; b++) { /* line 28: best fit honouring `until` */
        blk *a = &A.b[b];
        if (a->size < sz) continue;
        uint64_t o = pk_align_up(a->off, al);
        /* ties: the lower block, so the result does not depend on set order */
        if (o + sz > a->off + a->size || a->size > bestsz || (a->size == bestsz && a->off > bestoff)) continue;
        if (a->until != INF_T && arcs_meet(in->s[i], in->e[i], a->until, t0)) continue;
        bestsz = a->size;
        bestoff = a->off;
        pick = b;
      }
    }
    uint32_t u = A.b[pick].until;
    off[i] = blk_take(&A, pick, sz, al);
    if (pk_cut(in, off, i)) { rc = 1; goto out; }
    Y[ny] = i;
    yuntil[ny++] = u;
  }
out:
  free(prof); free(dist); free(ord); free(Y); free(later); free(yuntil); free(A.b);
  return rc;
}

/* ---------------------------------------------------------------- scanline */

int pk_scanline(const pk_inst *in, uint64_t *off) {
  size_t n = in->n, nn = n ? n : 1;
  uint32_t K = in->K;
  /* calloc: gcc cannot tell that pk_csort reads only the m entries written */
  size_t *ord = malloc(sizeof(size_t) * nn), *bys = calloc(nn, sizeof(size_t));
  uint32_t *until = malloc(sizeof(uint32_t) * nn), *key = calloc(2 * nn, sizeof(uint32_t));
  size_t *ev = malloc(sizeof(size_t) * 2 * nn), *evs = malloc(sizeof(size_t) * 2 * nn);
  size_t *slot = malloc(sizeof(size_t) * 2 * nn);
  blkset F = {malloc(sizeof(blk) * (3 * n + 4)), 0};
  int rc = -1;
  if (!ord || !bys || !until || !key || !ev || !evs || !slot || !F.b) goto out;
  /* Wrapping resources first, by start descending, bump-allocated. */
  size_t m = 0, ne = 0;
  for (size_t i = 0; i < n; i++)
    if (in->s[i] >= in->e[i]) { bys[m++] = i; key[i] = K - 1 - in->s[i]; }
  if (pk_csort(key, K, bys, m, ord)) goto out;
  uint64_t H = 0, maxH = 0;
  rc = 0;
  for (size_t k = 0; k < m; k++) {
    size_t i = ord[k];
    off[i] = pk_align_up(H, in->align[i]);
    H = off[i] + in->size[i];
    if (pk_cut(in, off, i)) { rc = 1; goto out; }
  }
  maxH = H;
  /* events by time, ends first, then larger first, then index: made in size
   * order, then a stable counting sort on 2 * time + (is a start) */
  if (pk_size_order(in, NULL, 0, bys)) { rc = -1; goto out; }
  for (size_t k = 0; k < n; k++) {
    size_t i = bys[k];
    if (in->s[i] < in->e[i]) {
      key[ne] = 2 * in->s[i] + 1; ev[ne++] = 2 * i + 1;
      key[ne] = 2 * in->e[i]; ev[ne++] = 2 * i;
    } else if (in->s[i] != in->e[i]) {
      key[ne] = 2 * in->e[i]; ev[ne++] = 2 * i;
      until[i] = in->s[i]; /* its block is free only until it starts again */
    }
  }
  for (size_t q = 0; q < ne; q++) slot[q] = q;
  if (pk_csort(key, 2 * K, slot, ne, evs)) { rc = -1; goto out; } /* evs: event slots in order */
  for (size_t k = 0; k < ne; k++) {
    size_t e = ev[evs[k]], i = e >> 1;
    uint64_t sz = in->size[i], al = in->align[i];
    if (!(e & 1)) {
      blk_add(&F, (blk){off[i], sz, until[i]});
      /* a free unrestricted block on top shrinks the heap */
      for (size_t b = 0; b < F.n; b++)
        if (F.b[b].until == INF_T && F.b[b].off + F.b[b].size == H) {
          H = F.b[b].off;
          F.b[b] = F.b[--F.n];
          break;
        }
      continue;
    }
    size_t pick = (size_t)-1;
    uint64_t bestsz = UINT64_MAX, bestoff = 0;
    for (size_t b = 0; b < F.n; b++) {
      blk *a = &F.b[b];
      if (a->size < sz) continue;
      uint64_t o = pk_align_up(a->off, al);
      if (o + sz > a->off + a->size || a->size > bestsz || (a->size == bestsz && a->off > bestoff)) continue;
      if (a->until != INF_T && in->e[i] > a->until) continue;
      bestsz = a->size;
      bestoff = a->off;
      pick = b;
    }
    if (pick != (size_t)-1) {
      until[i] = F.b[pick].until;
      off[i] = blk_take(&F, pick, sz, al);
    } else {
      uint64_t o = pk_align_up(H, al);
      if (o > H) blk_add(&F, (blk){H, o - H, INF_T});
      off[i] = o;
      H = o + sz;
      until[i] = INF_T;
      if (H > maxH) maxH = H;
    }
    if (pk_cut(in, off, i)) { rc = 1; goto out; }
  }
out:
  free(ord); free(bys); free(until); free(key); free(ev); free(evs); free(slot); free(F.b);
  return rc;
}
