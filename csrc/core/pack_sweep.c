/* sweep: a memory allocator run along the timeline, in O(n log n).
 *
 * Items are allocated as time reaches their start and freed at their end,
 * best fit over the free blocks (ties: the lower one), else on top of the
 * heap; a free block on top shrinks it. On a line that is a valid packing by
 * construction: whatever meets an item later is allocated while it lives.
 * A cycle is cut at its least loaded point t0: what lives there is stacked
 * at the bottom first (whole-cycle items lowest), and the block such an item
 * frees at its end is free only until it starts again (its `until`: best fit
 * takes a block only for an item that ends by then; blocks merge only with
 * neighbours of the same until), as thesis does (pack_greedy.c).
 *
 * The free blocks sit in two treaps (by size then offset, for best fit; by
 * offset, for merges), so an event costs O(log n), where thesis and
 * scanline scan every free block (quadratic: 100,000 items took 5-11 s). A
 * best-fit lookup tries at most SWEEP_TRIES blocks before the top.
 * Quality on random instances is that of scanline on lines (1.01-1.02 x
 * LOAD from 30,000 items up) and of thesis on cycles. */
#include "pack_sweep.h"
#include "pack_sort.h"
#include <stdlib.h>
#include <string.h>

#define SWEEP_TRIES 32
#define NIL UINT32_MAX
#define INF_U UINT32_MAX

typedef struct trp { uint32_t *l, *r, root; int bysize; } trp;
typedef struct sw {
  uint64_t *off, *size;  /* per block */
  uint32_t *until;
  uint32_t *freeid, nfree, nblk;
  trp S, U, O;           /* by (size, off): free for good, free until a
                            restart; all by off */
} sw;

static uint32_t prio(uint32_t x) {
  x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
  return x;
}
/* a < b in the treap's order */
static int tless(const sw *w, const trp *t, uint32_t a, uint32_t b) {
  if (t->bysize && w->size[a] != w->size[b]) return w->size[a] < w->size[b];
  return w->off[a] < w->off[b];
}
/* split by key of node k: left < k <= right */
static void tsplit(const sw *w, trp *t, uint32_t x, uint32_t k, uint32_t *a, uint32_t *b) {
  if (x == NIL) { *a = *b = NIL; return; }
  if (tless(w, t, x, k)) { *a = x; tsplit(w, t, t->r[x], k, &t->r[x], b); }
  else { *b = x; tsplit(w, t, t->l[x], k, a, &t->l[x]); }
}
static uint32_t tmerge(trp *t, uint32_t a, uint32_t b) {
  if (a == NIL) return b;
  if (b == NIL) return a;
  if (prio(a) > prio(b)) { t->r[a] = tmerge(t, t->r[a], b); return a; }
  t->l[b] = tmerge(t, a, t->l[b]);
  return b;
}
static void tinsert(const sw *w, trp *t, uint32_t k) {
  uint32_t a, b;
  t->l[k] = t->r[k] = NIL;
  tsplit(w, t, t->root, k, &a, &b);
  t->root = tmerge(t, tmerge(t, a, k), b);
}
static void terase(const sw *w, trp *t, uint32_t k) {
  uint32_t *p = &t->root;
  while (*p != k) p = tless(w, t, k, *p) ? &t->l[*p] : &t->r[*p];
  *p = tmerge(t, t->l[k], t->r[k]);
}

static uint32_t blk_new(sw *w, uint64_t off, uint64_t size, uint32_t until) {
  uint32_t k = w->nfree ? w->freeid[--w->nfree] : w->nblk++;
  w->off[k] = off; w->size[k] = size; w->until[k] = until;
  return k;
}
static trp *by_size(sw *w, uint32_t k) { return w->until[k] == INF_U ? &w->S : &w->U; }
static void blk_del(sw *w, uint32_t k) {
  terase(w, by_size(w, k), k);
  terase(w, &w->O, k);
  w->freeid[w->nfree++] = k;
}
/* a free block [off, off + size) free until `until`, merged with the
 * neighbours in memory of the same until; returns its id */
static uint32_t blk_add(sw *w, uint64_t off, uint64_t size, uint32_t until) {
  /* the neighbours: the last block below off and the first above */
  uint32_t lo = NIL, hi = NIL;
  for (uint32_t x = w->O.root; x != NIL;) {
    if (w->off[x] < off) { lo = x; x = w->O.r[x]; }
    else { hi = x; x = w->O.l[x]; }
  }
  if (lo != NIL && w->until[lo] == until && w->off[lo] + w->size[lo] == off) {
    off = w->off[lo]; size += w->size[lo];
    blk_del(w, lo);
  }
  if (hi != NIL && w->until[hi] == until && off + size == w->off[hi]) {
    size += w->size[hi];
    blk_del(w, hi);
  }
  uint32_t k = blk_new(w, off, size, until);
  tinsert(w, by_size(w, k), k);
  tinsert(w, &w->O, k);
  return k;
}

/* best fit in t: the smallest block (then lowest) that holds size at align
 * and is free until end; NIL when none of the first SWEEP_TRIES that are
 * large enough does */
static uint32_t fit_in(const sw *w, const trp *t, uint64_t size, uint64_t align, uint32_t end) {
  uint64_t last_size = 0, last_off = 0;
  for (uint32_t tries = 0; tries < SWEEP_TRIES; tries++) {
    uint32_t c = NIL;
    for (uint32_t x = t->root; x != NIL;) {
      int ge = tries ? (w->size[x] > last_size || (w->size[x] == last_size && w->off[x] > last_off))
                     : w->size[x] >= size;
      if (ge) { c = x; x = t->l[x]; } else x = t->r[x];
    }
    if (c == NIL) return NIL;
    uint64_t o = pk_align_up(w->off[c], align);
    if (o + size <= w->off[c] + w->size[c] && (w->until[c] == INF_U || end <= w->until[c])) return c;
    last_size = w->size[c]; last_off = w->off[c];
  }
  return NIL;
}
/* the blocks free for good and those free until a restart apart, so the
 * latter (many on a cycle, most too short-lived) never hide the former */
static uint32_t best_fit(const sw *w, uint64_t size, uint64_t align, uint32_t end) {
  uint32_t a = fit_in(w, &w->S, size, align, end), b = fit_in(w, &w->U, size, align, end);
  if (a == NIL || b == NIL) return a == NIL ? b : a;
  return w->size[b] < w->size[a] || (w->size[b] == w->size[a] && w->off[b] < w->off[a]) ? b : a;
}

int pk_sweep(const pk_inst *in, uint64_t *offv) {
  size_t n = in->n, nn = n ? n : 1;
  uint32_t K = in->K;
  uint64_t *prof = malloc(sizeof(uint64_t) * (K ? K : 1));
  uint32_t *key = malloc(sizeof(uint32_t) * 2 * nn), *until = malloc(sizeof(uint32_t) * nn);
  size_t *bys = malloc(sizeof(size_t) * nn), *ev = malloc(sizeof(size_t) * 2 * nn);
  size_t *evs = malloc(sizeof(size_t) * 2 * nn), *slot = malloc(sizeof(size_t) * 2 * nn);
  size_t nb = 2 * nn + 8;
  sw w;
  memset(&w, 0, sizeof w);
  w.off = malloc(sizeof(uint64_t) * nb);
  w.size = malloc(sizeof(uint64_t) * nb);
  w.until = malloc(sizeof(uint32_t) * nb);
  w.freeid = malloc(sizeof(uint32_t) * nb);
  w.S.l = malloc(sizeof(uint32_t) * nb); w.S.r = malloc(sizeof(uint32_t) * nb);
  w.U.l = malloc(sizeof(uint32_t) * nb); w.U.r = malloc(sizeof(uint32_t) * nb);
  w.O.l = malloc(sizeof(uint32_t) * nb); w.O.r = malloc(sizeof(uint32_t) * nb);
  w.S.root = w.U.root = w.O.root = NIL;
  w.S.bysize = w.U.bysize = 1;
  int rc = -1;
  if (!prof || !key || !until || !bys || !ev || !evs || !slot || !w.off || !w.size || !w.until || !w.freeid ||
      !w.S.l || !w.S.r || !w.U.l || !w.U.r || !w.O.l || !w.O.r)
    goto out;
  /* the cut: the least loaded point of a cycle (a line's first point) */
  uint32_t t0 = 0;
  if (in->cyclic) {
    pk_profile(in, prof, 0);
    for (uint32_t t = 1; t < K; t++)
      if (prof[t] < prof[t0]) t0 = t;
  }
  if (pk_size_order(in, NULL, 0, bys)) goto out;
  uint64_t H = 0;
  rc = 0;
  /* what lives at t0, stacked: whole-cycle items, then by size (bys) */
  for (int pass = 0; pass < 2 && in->cyclic; pass++)
    for (size_t k = 0; k < n; k++) {
      size_t i = bys[k];
      int whole = in->len[i] >= K;
      if (whole != !pass || !pk_contains(in, i, t0)) continue;
      offv[i] = pk_align_up(H, in->align[i]);
      if (offv[i] > H) blk_add(&w, H, offv[i] - H, INF_U); /* padding below: free for good */
      H = offv[i] + in->size[i];
      if (pk_cut(in, offv, i)) { rc = 1; goto out; }
    }
  /* events in unrolled time d = t - t0 (mod K): ends (0) before starts (1),
   * each kind by size, larger first: stable counting sort of size order */
  size_t ne = 0;
  for (size_t k = 0; k < n; k++) {
    size_t i = bys[k];
    uint32_t d = (in->s[i] + K - t0) % K, len = in->len[i];
    if (in->cyclic && pk_contains(in, i, t0)) {
      if (len >= K) continue;                       /* never freed */
      uint32_t de = (in->e[i] + K - t0) % K;        /* dies at de, back at d */
      until[i] = d;
      key[ne] = 2 * de; ev[ne++] = 2 * i;
      continue;
    }
    key[ne] = 2 * d + 1; ev[ne++] = 2 * i + 1;
    key[ne] = 2 * (d + len); ev[ne++] = 2 * i;
  }
  for (size_t q = 0; q < ne; q++) slot[q] = q;
  if (pk_csort(key, 2 * K + 2, slot, ne, evs)) { rc = -1; goto out; }
  uint64_t top = H;
  for (size_t k = 0; k < ne; k++) {
    size_t e = ev[evs[k]], i = e >> 1;
    uint64_t sz = in->size[i], al = in->align[i];
    if (!(e & 1)) { /* free */
      uint32_t b = blk_add(&w, offv[i], sz, until[i]);
      if (w.until[b] == INF_U && w.off[b] + w.size[b] == H) { H = w.off[b]; blk_del(&w, b); }
      continue;
    }
    uint32_t end = key[evs[k]] / 2 + in->len[i];
    uint32_t b = best_fit(&w, sz, al, end);
    if (b != NIL) {
      uint64_t bo = w.off[b], bs = w.size[b], o = pk_align_up(bo, al);
      uint32_t u = w.until[b];
      blk_del(&w, b);
      if (o > bo) blk_add(&w, bo, o - bo, u);
      if (bo + bs > o + sz) blk_add(&w, o + sz, bo + bs - o - sz, u);
      offv[i] = o;
      until[i] = u;
    } else {
      uint64_t o = pk_align_up(H, al);
      if (o > H) blk_add(&w, H, o - H, INF_U);
      offv[i] = o;
      H = o + sz;
      until[i] = INF_U;
      if (H > top) top = H;
    }
    if (pk_cut(in, offv, i)) { rc = 1; goto out; }
  }
  pk_charge((uint64_t)ne * 8);
out:
  free(prof); free(key); free(until); free(bys); free(ev); free(evs); free(slot);
  free(w.off); free(w.size); free(w.until); free(w.freeid);
  free(w.S.l); free(w.S.r); free(w.U.l); free(w.U.r); free(w.O.l); free(w.O.r);
  return rc;
}
