/* Reference packers, each faithful to its source (see DESIGN.md "Reference
 * packers"): bysize (TFLite/XLA greedy by size), buckets (the GPU memory
 * aliasing article), thesis (daBFG thesis, Algorithm 1), scanline (daFG's
 * GreedyScanline), and the two without placement: none (everything stacked)
 * and pool (reuse within a group only). They are baselines and starting
 * points for `best`. */
#include "pack_greedy.h"
#include "pack_mem.h"
#include "pack_place.h"
#include "pack_sort.h"
#include <stdlib.h>
#include <string.h>

#define INF_T UINT32_MAX

/* ------------------------------------------------------------------ bysize */

int pk_bysize(const pk_inst *in, uint64_t *off) {
  size_t n = in->n;
  uint32_t *key = pk_mem_alloc(sizeof(uint32_t) * (n ? n : 1)), K = in->K;
  size_t *ord = pk_mem_alloc(sizeof(size_t) * (n ? n : 1));
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
  pk_mem_free(key); pk_mem_free(ord);
  pk_pl_free(&pl);
  if (ti > 0) pk_tix_free(&tix);
  return rc;
}

/* ----------------------------------------------------------------- buckets */

int pk_buckets(const pk_inst *in, uint64_t *off) {
  size_t n = in->n;
  size_t *rest = pk_mem_alloc(sizeof(size_t) * (n ? n : 1));
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
    /* the opener's row of the conflict bits (they are symmetric): a bit
     * test per item without a row multiply (n = 200: 208k instructions a
     * call -> 200k) */
    const uint64_t *row0 = in->cbits ? in->cbits + b0 * in->cwords : NULL;
    for (size_t k = 1; k < nr; k++) {
      size_t i = rest[k];
      /* the opener fills the bucket's height: what meets it cannot fit */
      if (row0 ? (int)((row0[i >> 6] >> (i & 63)) & 1) : pk_conflict_arcs(in, i, b0)) { rest[w++] = i; continue; }
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
  pk_mem_free(rest);
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
  uint64_t *prof = pk_mem_alloc(sizeof(uint64_t) * K);
  uint32_t *dist = pk_mem_alloc(sizeof(uint32_t) * n);
  size_t *ord = pk_mem_alloc(sizeof(size_t) * n), *later = pk_mem_alloc(sizeof(size_t) * n);
  /* Y (the items live) as lists by the sweep distance from t0 at which each
   * may stop being live: its end (one live at t0 may be live again by then,
   * from its start on, to the end of the sweep). A step frees the items of
   * its lists so far that are not live (lines 14-20 without a test of every
   * live item at every step, which took half of the time: n = 200 Enlisted,
   * 323k instructions a call -> 167k). In another order than a scan of Y,
   * which changes nothing: the free blocks are disjoint, so merges and
   * best-fit picks depend on the set alone. */
  size_t *dhead = pk_mem_alloc(sizeof(size_t) * ((size_t)K + 1)), *ynext = pk_mem_alloc(sizeof(size_t) * n);
  uint32_t *yuntil = pk_mem_alloc(sizeof(uint32_t) * n);
  blkset A = {pk_mem_alloc(sizeof(blk) * (3 * n + 4)), 0};
  if (!prof || !dist || !ord || !later || !dhead || !ynext || !yuntil || !A.b) {
    pk_mem_free(prof); pk_mem_free(dist); pk_mem_free(ord); pk_mem_free(later); pk_mem_free(dhead); pk_mem_free(ynext); pk_mem_free(yuntil); pk_mem_free(A.b);
    return -1;
  }
  int rc = 0;
  pk_profile(in, prof, 0);
  uint32_t t0 = 0;
  for (uint32_t t = 1; t < K; t++)
    if (prof[t] < prof[t0]) t0 = t;
  for (uint32_t t = 0; t <= K; t++) dhead[t] = SIZE_MAX;
  uint64_t H = 0;
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    if (pk_contains(in, i, t0)) { /* lines 7-12: stack what is live at t0 */
      off[i] = pk_align_up(H, in->align[i]);
      H = off[i] + in->size[i];
      if (pk_cut(in, off, i)) { rc = 1; goto out; }
      uint32_t die = in->len[i] >= K ? K : (uint32_t)(((uint64_t)in->s[i] + K - t0 + in->len[i]) % K);
      ynext[i] = dhead[die];
      dhead[die] = i;
      /* free from r_i until l_i; l_i == t0 means "until the sweep ends" */
      yuntil[i] = in->s[i] == t0 ? INF_T : in->s[i];
    } else {
      later[m++] = i;
      dist[i] = (in->s[i] + K - t0) % K;
    }
  }
  /* line 21: nearest start after the sweep position (a counting sort: the
   * distances are points) */
  if (pk_csort(dist, K, later, m, ord)) { rc = -1; goto out; }
  for (size_t k = 0, dd = 0; k < m; k++) {
    size_t i = ord[k];
    uint32_t t = in->s[i], d = dist[i];
    for (; dd <= d; dd++) /* lines 14-20: free what is no longer live */
      for (size_t y = dhead[dd]; y != SIZE_MAX; y = ynext[y])
        if (!pk_contains(in, y, t)) blk_add(&A, (blk){off[y], in->size[y], yuntil[y]});
    uint64_t sz = in->size[i], al = in->align[i];
    size_t pick = (size_t)-1;
    pk_charge(8 + 2 * (uint64_t)A.n); /* the work clock: the scans of the free blocks */
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
    yuntil[i] = A.b[pick].until;
    off[i] = blk_take(&A, pick, sz, al);
    if (pk_cut(in, off, i)) { rc = 1; goto out; }
    uint32_t die = d + in->len[i]; /* <= K: i is not live at t0 */
    ynext[i] = dhead[die];
    dhead[die] = i;
  }
out:
  pk_mem_free(prof); pk_mem_free(dist); pk_mem_free(ord); pk_mem_free(later); pk_mem_free(dhead); pk_mem_free(ynext); pk_mem_free(yuntil); pk_mem_free(A.b);
  return rc;
}

/* ---------------------------------------------------------------- scanline */

int pk_scanline(const pk_inst *in, uint64_t *off) {
  size_t n = in->n, nn = n ? n : 1;
  uint32_t K = in->K;
  /* calloc: gcc cannot tell that pk_csort reads only the m entries written */
  size_t *ord = pk_mem_alloc(sizeof(size_t) * nn), *bys = pk_mem_calloc(nn, sizeof(size_t));
  uint32_t *until = pk_mem_alloc(sizeof(uint32_t) * nn), *key = pk_mem_calloc(2 * nn, sizeof(uint32_t));
  size_t *ev = pk_mem_alloc(sizeof(size_t) * 2 * nn), *evs = pk_mem_alloc(sizeof(size_t) * 2 * nn);
  size_t *slot = pk_mem_alloc(sizeof(size_t) * 2 * nn);
  blkset F = {pk_mem_alloc(sizeof(blk) * (3 * n + 4)), 0};
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
    pk_charge(8 + 2 * (uint64_t)F.n); /* the work clock: the scans of the free blocks */
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
  pk_mem_free(ord); pk_mem_free(bys); pk_mem_free(until); pk_mem_free(key); pk_mem_free(ev); pk_mem_free(evs); pk_mem_free(slot); pk_mem_free(F.b);
  return rc;
}

/* ------------------------------------------------------------ none, pool */

int pk_none(const pk_inst *in, uint64_t *off) {
  uint64_t h = 0;
  for (size_t i = 0; i < in->n; i++) {
    off[i] = pk_align_up(h, in->align[i]);
    h = off[i] + in->size[i];
  }
  return 0;
}

/* pool: one physical resource is reused only by items of the same nonzero
 * group whose lifetimes never meet (first fit in start order); slots are then
 * laid out one after another. */
int pk_pool(const pk_inst *in, uint64_t *off) {
  size_t n = in->n;
  if (!n) return 0;
  size_t *ord = pk_mem_alloc(sizeof(size_t) * n), *slot = pk_mem_alloc(sizeof(size_t) * n);
  size_t *head = pk_mem_alloc(sizeof(size_t) * n), *next = pk_mem_alloc(sizeof(size_t) * n);
  uint64_t *ssz = pk_mem_alloc(sizeof(uint64_t) * n), *sal = pk_mem_alloc(sizeof(uint64_t) * n);
  uint64_t *sreal = pk_mem_alloc(sizeof(uint64_t) * n); /* largest real size per slot */
  pk_kv *kv = pk_mem_alloc(sizeof(pk_kv) * n);
  int rc = -1;
  if (!ord || !slot || !head || !next || !ssz || !sal || !sreal || !kv) goto out;
  /* by group, then start, then index: counting sorts when the group ids
   * are small (fg_graph numbers them from 1) */
  uint32_t gmax = 0;
  for (size_t i = 0; i < n; i++) gmax = in->items[i].group > gmax ? in->items[i].group : gmax;
  if (gmax < 4 * n + 64) {
    uint32_t *key = (uint32_t *)sreal; /* free until the slots are made */
    for (size_t i = 0; i < n; i++) { slot[i] = i; key[i] = in->s[i]; }
    if (pk_csort(key, in->K, slot, n, head)) goto out;
    for (size_t i = 0; i < n; i++) key[i] = in->items[i].group;
    if (pk_csort(key, gmax + 1, head, n, ord)) goto out;
  } else {
    for (size_t i = 0; i < n; i++) kv[i] = (pk_kv){in->items[i].group, in->s[i], i};
    pk_sort(kv, n, ord);
  }
  /* slots are stacked, so the makespan is at least the sum of each slot's
   * largest real size: with in->cut, stop once that reaches it */
  uint64_t reach = 0;
  size_t nslots = 0, gfirst = 0; /* items come by group: its slots are the latest */
  for (size_t k = 0; k < n; k++) {
    size_t i = ord[k];
    uint32_t g = in->items[i].group;
    size_t chosen = (size_t)-1;
    pk_charge(8 + (uint64_t)(nslots - gfirst)); /* the work clock */
    if (in->stop && !(k & 63) && pk_now() > in->stop) { rc = 1; goto out; }
    if (!k || in->items[ord[k - 1]].group != g) gfirst = nslots;
    if (g) {
      for (size_t sl = gfirst; sl < nslots && chosen == (size_t)-1; sl++) {
        size_t first = head[sl];
        if (in->items[first].group != g) continue;
        int clash = 0;
        for (size_t j = first; j != (size_t)-1 && !clash; j = next[j]) clash = pk_conflict(in, i, j);
        if (!clash) chosen = sl;
      }
    }
    if (chosen == (size_t)-1) {
      chosen = nslots++;
      head[chosen] = (size_t)-1;
      ssz[chosen] = 0;
      sal[chosen] = 1;
      sreal[chosen] = 0;
    }
    next[i] = head[chosen];
    head[chosen] = i;
    slot[i] = chosen;
    if (in->size[i] > ssz[chosen]) ssz[chosen] = in->size[i];
    if (in->align[i] > sal[chosen]) sal[chosen] = in->align[i];
    if (in->items[i].size > sreal[chosen]) {
      reach += in->items[i].size - sreal[chosen];
      sreal[chosen] = in->items[i].size;
      if (in->cut && reach >= in->cut) { rc = 1; goto out; }
    }
  }
  uint64_t h = 0;
  for (size_t sl = 0; sl < nslots; sl++) {
    uint64_t o = pk_align_up(h, sal[sl]);
    for (size_t j = head[sl]; j != (size_t)-1; j = next[j]) off[j] = o;
    h = o + ssz[sl];
  }
  rc = 0;
out:
  pk_mem_free(ord); pk_mem_free(slot); pk_mem_free(head); pk_mem_free(next); pk_mem_free(ssz); pk_mem_free(sal); pk_mem_free(sreal); pk_mem_free(kv);
  return rc;
}
