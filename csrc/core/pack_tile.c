/* pack_tile: perfect tilings (see pack_tile.h).
 *
 * In a tiling every byte is covered at every point, so at a point t the
 * items that end there free exactly the bytes the items that start there
 * take. That ties items together, and pk_tile rebuilds blocks from the
 * ties, bottom up (a block is an item or a rectangle of time x bytes made
 * of blocks; rules apply to blocks as they are made):
 *  1. a block of h bytes ends at t and another of h bytes starts there, and
 *     no other block of h bytes ends or starts at t: the second continues
 *     the first at the same offset (all such joins at once);
 *  2. a set of blocks of one lifetime ending at t and a set of one lifetime
 *     starting at t have the same total size (sizes that are not round
 *     numbers seldom match by chance): each set is a stack, the second
 *     continues the first (fewest blocks first);
 *  3. blocks of one lifetime are stacked; where their sizes add up to the
 *     load they are a column, which fills memory from offset 0.
 * Guillotine cuts of a rectangle (bench_cdsa's instances of known optimum)
 * come apart this way into one block or a handful; the decision search
 * (pack_search.c, strong on a few dozen items at a tight capacity) packs a
 * handful at the load. The rules are guesses. Where the search proves
 * that the blocks do not tile, they are opened and it tries again; where
 * no tiling turns up in half of the time, the first blocks are packed as
 * low as the search gets them in the rest (exact rectangles: close to the
 * load even after a wrong guess). Every packing is checked before it is
 * returned.
 *
 * Alignment: a block is described by its offsets modulo W (the largest
 * alignment, at least 64) at which all its items stay aligned and that
 * leave it below the load: a set of W bits. A join intersects the sets; a
 * stack may take its blocks in any order, so its set is the union over
 * orders, by a programme over subsets (up to TL_MAXK blocks: larger stacks
 * are stacks of stacks, which loses orders across them); a column's order
 * is found by depth-first search. The search gets each block with the
 * coarsest congruence o = r mod A inside its set (pk_inst.phase). */
#include "pack_tile.h"
#include "pack_mem.h"
#include "pack_search.h"
#include "pack_sort.h"
#include <stdlib.h>
#include <string.h>

#define TL_WMAX 4096 /* residues are kept modulo the largest alignment, up to this */
#define TL_MAXK 12   /* a stack's orders: 2^k subsets of its blocks */
#define TL_R2K 8     /* rule 2 sums subsets of up to this many blocks per lifetime */
#define TL_R2TRY 64  /* rule 2's candidates tried per round, fewest blocks first */

enum { TL_LEAF, TL_SEQ, TL_STACK, TL_COLUMN };

typedef struct tl {
  const pk_inst *in;
  uint32_t K;
  int cyc;
  uint32_t W, words;
  size_t nn, ncap;             /* blocks made so far (ids), room for */
  uint32_t *s, *e, *len, *a, *b; /* leaf: a = item; seq: a then b; stack: kids[a .. a + b) bottom-up choice */
  uint64_t *h, *F;             /* size; residue set (words per block) */
  uint8_t *kind;
  uint32_t *kids;
  size_t nk, kcap;
  uint32_t *act, *act2;        /* the blocks not yet inside another */
  size_t na;
  char *used;
  uint64_t *G, *tmp;           /* stack programme: (1 << TL_MAXK) sets; one set */
  char *gne;                   /* per set of G: not empty */
  pk_kv *kv, *kv2;
  uint64_t (*fail)[4];         /* rule 3: stacks tried and infeasible (s, e, count, newest id) */
  size_t nfail, failcap;
  uint64_t deadline, load;
} tl;

static uint64_t *setp(const tl *T, size_t id) { return T->F + id * T->words; }
static int bit(const tl *T, const uint64_t *F, uint64_t o) {
  o &= T->W - 1;
  return (int)((F[o >> 6] >> (o & 63)) & 1);
}
static int any(const tl *T, const uint64_t *F) {
  for (uint32_t w = 0; w < T->words; w++)
    if (F[w]) return 1;
  return 0;
}
/* dst = {o : o + h in src} (modulo W) */
static void rot(const tl *T, uint64_t *dst, const uint64_t *src, uint64_t h) {
  uint32_t k = (uint32_t)(h & (T->W - 1)), q = k >> 6, r = k & 63, wm = T->words - 1; /* words: a power of two */
  if (!r)
    for (uint32_t i = 0; i <= wm; i++) dst[i] = src[(i + q) & wm];
  else
    for (uint32_t i = 0; i <= wm; i++) dst[i] = (src[(i + q) & wm] >> r) | (src[(i + q + 1) & wm] << (64 - r));
}

static size_t node(tl *T, int kind, uint32_t s, uint32_t e, uint32_t len, uint64_t h) {
  size_t id = T->nn++;
  if (T->cyc && len >= T->K) s = e = 0, len = T->K; /* whole cycle: one span for all */
  T->kind[id] = (uint8_t)kind;
  T->s[id] = s;
  T->e[id] = e;
  T->len[id] = len;
  T->h[id] = h;
  return id;
}

/* Keep in f only offsets at which h bytes still end by the load (they
 * matter where fewer than W bytes are left above); 0 when none is left */
static int fit(const tl *T, uint64_t *f, uint64_t h) {
  if (T->load - h < T->W) {
    uint64_t top = T->load - h; /* highest offset */
    for (uint32_t w = 0; w < T->words; w++) {
      uint64_t b0 = (uint64_t)w * 64;
      if (b0 > top) f[w] = 0;
      else if (top - b0 < 63) f[w] &= (2ull << (top - b0)) - 1;
    }
  }
  return any(T, f);
}

/* x continued by y at the same offset; -1 when they cannot be */
static long seq(tl *T, size_t x, size_t y) {
  if (T->len[x] + T->len[y] > T->K || T->nn >= T->ncap) return -1;
  const uint64_t *fx = setp(T, x), *fy = setp(T, y);
  uint64_t *f = setp(T, T->nn);
  for (uint32_t w = 0; w < T->words; w++) f[w] = fx[w] & fy[w];
  if (!fit(T, f, T->h[x])) return -1;
  size_t id = node(T, TL_SEQ, T->s[x], T->e[y], T->len[x] + T->len[y], T->h[x]);
  T->a[id] = (uint32_t)x;
  T->b[id] = (uint32_t)y;
  return (long)id;
}

/* G[m] for the subsets m of the k blocks ids: offsets at which they stack
 * in some order */
static int stack_sets(tl *T, const uint32_t *ids, uint32_t k) {
  uint32_t w = T->words;
  char *ne = T->gne; /* G[m] not empty: empty subsets are skipped (they stay empty above) */
  for (uint32_t m = 1; m < (1u << k); m++) {
    uint64_t *g = T->G + (size_t)m * w;
    if (!(m & (m - 1))) {
      memcpy(g, setp(T, ids[__builtin_ctz(m)]), sizeof(uint64_t) * w);
      ne[m] = 1;
      continue;
    }
    memset(g, 0, sizeof(uint64_t) * w);
    uint64_t acc = 0;
    for (uint32_t i = 0; i < k; i++) {
      if (!(m >> i & 1) || !ne[m ^ (1u << i)]) continue;
      rot(T, T->tmp, T->G + (size_t)(m ^ (1u << i)) * w, T->h[ids[i]]); /* i at the bottom */
      const uint64_t *fi = setp(T, ids[i]);
      for (uint32_t q = 0; q < w; q++) acc |= g[q] |= fi[q] & T->tmp[q];
    }
    ne[m] = acc != 0;
    pk_charge(8 + (uint64_t)k * w); /* the work clock */
    if (!(m & 63) && pk_now() >= T->deadline) return -1; /* k = 12: ~1 ms in all */
  }
  return 0;
}

/* A stack of the k blocks ids (lifetime s..e); stacks of the same lifetime
 * among them are opened so their blocks may interleave. -1 when no order
 * keeps every item aligned. */
static long stack(tl *T, const uint32_t *ids, uint32_t k) {
  uint32_t flat[TL_MAXK] = {0}, nf = 0;
  size_t x0 = ids[0];
  if (T->nn >= T->ncap) return -1;
  for (uint32_t q = 0; q < k; q++) { /* opened, if they fit */
    size_t x = ids[q];
    nf += T->kind[x] == TL_STACK && T->s[x] == T->s[x0] && T->e[x] == T->e[x0] && T->len[x] == T->len[x0] ? T->b[x] : 1;
  }
  if (nf <= TL_MAXK) {
    nf = 0;
    for (uint32_t q = 0; q < k; q++) {
      size_t x = ids[q];
      if (T->kind[x] == TL_STACK && T->s[x] == T->s[x0] && T->e[x] == T->e[x0] && T->len[x] == T->len[x0])
        for (uint32_t c = 0; c < T->b[x]; c++) flat[nf++] = T->kids[T->a[x] + c];
      else flat[nf++] = (uint32_t)x;
    }
  } else if (k <= TL_MAXK) {
    memcpy(flat, ids, sizeof(uint32_t) * k);
    nf = k;
  } else
    return -1;
  if (stack_sets(T, flat, nf)) return -1;
  const uint64_t *g = T->G + (size_t)((1u << nf) - 1) * T->words;
  uint64_t h = 0;
  for (uint32_t q = 0; q < nf; q++) h += T->h[flat[q]];
  memcpy(setp(T, T->nn), g, sizeof(uint64_t) * T->words);
  if (h > T->load || !fit(T, setp(T, T->nn), h) || T->nk + nf > T->kcap) return -1;
  size_t id = node(T, TL_STACK, T->s[x0], T->e[x0], T->len[x0], h);
  T->a[id] = (uint32_t)T->nk;
  T->b[id] = nf;
  memcpy(T->kids + T->nk, flat, sizeof(uint32_t) * nf);
  T->nk += nf;
  return (long)id;
}

static uint64_t popset(const tl *T, size_t x) {
  uint64_t c = 0;
  const uint64_t *f = setp(T, x);
  for (uint32_t w = 0; w < T->words; w++) c += (uint64_t)__builtin_popcountll(f[w]);
  return c;
}

/* A stack of more than TL_MAXK blocks: stacks of up to TL_MAXK stacked in
 * turn (orders across them are lost). The most constrained blocks are
 * dealt out first, one per stack, so each gets free ones to shift it;
 * on failure a few other deals. -1 when none worked. */
#define TL_DEALS 8
static long big_stack(tl *T, const uint32_t *ids, uint32_t k) {
  uint32_t c = (k + TL_MAXK - 1) / TL_MAXK, srt[TL_MAXK * TL_MAXK], part[TL_MAXK], outer[TL_MAXK];
  if (c > TL_MAXK) return -1;
  pk_kv *kv = T->kv2; /* rule3 sorts in T->kv */
  for (uint32_t q = 0; q < k; q++) kv[q] = (pk_kv){popset(T, ids[q]), q, ids[q]};
  pk_sort_kv(kv, k);
  for (uint32_t q = 0; q < k; q++) srt[q] = (uint32_t)kv[q].i;
  uint64_t rng = 0x7113ull + k;
  for (int deal = 0; deal < TL_DEALS && pk_now() < T->deadline; deal++) {
    pk_charge(16 + 8 * (uint64_t)k * c); /* the work clock */
    size_t nn0 = T->nn, nk0 = T->nk;
    uint32_t ok = 1;
    for (uint32_t g = 0; g < c && ok; g++) {
      uint32_t np = 0;
      for (uint32_t q = g; q < k; q += c) part[np++] = srt[q];
      long z = np == 1 ? (long)part[0] : stack(T, part, np);
      if (z < 0) ok = 0;
      else outer[g] = (uint32_t)z;
    }
    long z = ok ? stack(T, outer, c) : -1;
    if (z >= 0) return z;
    T->nn = nn0;
    T->nk = nk0;
    for (uint32_t q = k - 1; q > 0; q--) { /* another deal: shuffle */
      uint32_t j = (uint32_t)(fg_splitmix64(&rng) % (q + 1)), t = srt[q];
      srt[q] = srt[j];
      srt[j] = t;
    }
  }
  return -1;
}

static int whole(const tl *T, size_t x) { return T->cyc && T->len[x] >= T->K; }

/* A column: blocks of one lifetime whose sizes add up to the load fill
 * it, stacked from offset 0 (so a column's set is {0}). An order in which
 * each block's set holds its offset, by depth-first search (the most
 * constrained blocks first; a subset that failed once fails again: its top
 * is the same), up to TL_COL_NODES nodes. Many blocks (more than a stack's
 * programme takes) are common here: a rectangle cut across many times. */
#define TL_COL_NODES 100000
typedef struct coldfs {
  tl *T;
  uint32_t k, *ids, *ord, *pick;
  uint64_t *seen;            /* failed subsets, open addressing (0 = empty) */
  size_t seencap, nseen, nodes;
} coldfs;
static int col_seen(coldfs *R, uint64_t m, int add) {
  size_t c = R->seencap, p = (size_t)((m * 0x9E3779B97F4A7C15ull) >> 20) & (c - 1);
  while (R->seen[p]) {
    if (R->seen[p] == m) return 1;
    p = (p + 1) & (c - 1);
  }
  if (add && R->nseen * 2 < c) { R->seen[p] = m; R->nseen++; }
  return 0;
}
static int col_rec(coldfs *R, uint64_t used, uint32_t depth, uint64_t o) {
  tl *T = R->T;
  if (depth == R->k) return 1;
  pk_charge(8 + 4 * (uint64_t)R->k); /* the work clock */
  if (++R->nodes > TL_COL_NODES || ((R->nodes & 255) == 0 && pk_now() >= T->deadline)) return 0;
  if (col_seen(R, used, 0)) return 0;
  for (uint32_t q = 0; q < R->k; q++) {
    uint32_t i = R->ord[q];
    if ((used >> i & 1) || !bit(T, setp(T, R->ids[i]), o)) continue;
    R->pick[depth] = R->ids[i];
    if (col_rec(R, used | 1ull << i, depth + 1, o + T->h[R->ids[i]])) return 1;
    if (R->nodes > TL_COL_NODES) return 0;
  }
  col_seen(R, used, 1);
  return 0;
}
/* -1 when no order was found (or more than 64 blocks), -2 on OOM */
static long column(tl *T, const uint32_t *ids, uint32_t k) {
  if (k > 64 || T->nn >= T->ncap || T->nk + k > T->kcap) return -1;
  coldfs R = {T, k, (uint32_t *)ids, pk_mem_alloc(sizeof(uint32_t) * k), T->kids + T->nk, pk_mem_calloc(1u << 16, 8), 1u << 16, 0, 0};
  long z = -2;
  if (R.ord && R.seen) {
    pk_kv *kv = T->kv2; /* rule3 sorts in T->kv */
    for (uint32_t q = 0; q < k; q++) kv[q] = (pk_kv){popset(T, ids[q]), UINT64_MAX - T->h[ids[q]], q};
    pk_sort_kv(kv, k);
    for (uint32_t q = 0; q < k; q++) R.ord[q] = (uint32_t)kv[q].i;
    z = -1;
    if (col_rec(&R, 0, 0, 0)) { /* the order is in kids already (pick) */
      uint64_t *f = setp(T, T->nn);
      memset(f, 0, sizeof(uint64_t) * T->words);
      f[0] = 1;
      size_t id = node(T, TL_COLUMN, T->s[ids[0]], T->e[ids[0]], T->len[ids[0]], T->load);
      T->a[id] = (uint32_t)T->nk;
      T->b[id] = k;
      T->nk += k;
      z = (long)id;
    }
  }
  pk_mem_free(R.ord); pk_mem_free(R.seen);
  return z;
}

/* replace the used blocks of act by the new ones */
static void compact(tl *T, const uint32_t *add, size_t nadd) {
  size_t m = 0;
  for (size_t q = 0; q < T->na; q++)
    if (!T->used[T->act[q]]) T->act2[m++] = T->act[q];
  for (size_t q = 0; q < nadd; q++) T->act2[m++] = add[q];
  uint32_t *t = T->act;
  T->act = T->act2;
  T->act2 = t;
  T->na = m;
}

/* first index in kv[0..n) whose (k, k2) >= (k, k2) */
static size_t lower(const pk_kv *kv, size_t n, uint64_t k, uint64_t k2) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (kv[mid].k < k || (kv[mid].k == k && kv[mid].k2 < k2)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Rule 1: every unique continuation at once. Returns the joins made. */
static size_t rule1(tl *T) {
  size_t m = 0;
  for (size_t q = 0; q < T->na; q++) {
    size_t x = T->act[q];
    if (whole(T, x)) continue;
    T->kv[m] = (pk_kv){T->s[x], T->h[x], x};
    T->kv2[m++] = (pk_kv){T->e[x], T->h[x], x};
  }
  pk_sort_kv(T->kv, m);  /* by start, size */
  pk_sort_kv(T->kv2, m); /* by end, size */
  uint32_t add[64];
  size_t nadd = 0, made = 0;
  for (size_t q = 0; q < m; q++) {
    size_t x = T->kv2[q].i;
    uint64_t t = T->e[x], h = T->h[x];
    if (T->used[x]) continue;
    if ((q > 0 && T->kv2[q - 1].k == t && T->kv2[q - 1].k2 == h) ||
        (q + 1 < m && T->kv2[q + 1].k == t && T->kv2[q + 1].k2 == h))
      continue; /* another block of this size ends here too */
    size_t p = lower(T->kv, m, t, h);
    if (p >= m || T->kv[p].k != t || T->kv[p].k2 != h) continue;
    if (p + 1 < m && T->kv[p + 1].k == t && T->kv[p + 1].k2 == h) continue;
    size_t y = T->kv[p].i;
    if (y == x || T->used[y]) continue;
    long z = seq(T, x, y);
    if (z < 0) continue;
    T->used[x] = T->used[y] = 1;
    add[nadd++] = (uint32_t)z;
    made++;
    if (nadd == 64) {
      compact(T, add, nadd);
      return made; /* the sorted lists no longer match act: the next round goes on */
    }
  }
  if (made) compact(T, add, nadd);
  return made;
}

typedef struct r2c { uint32_t size; uint32_t e0, me, s0, ms; } r2c; /* class starts in kv2 / kv, masks */

static int r2_cmp(const void *a, const void *b) {
  const r2c *x = a, *y = b;
  return (x->size > y->size) - (x->size < y->size);
}

/* Rule 2: one continuation of a stack by a stack, fewest blocks first.
 * Returns 1 when made. */
static int rule2(tl *T) {
  size_t m = 0;
  for (size_t q = 0; q < T->na; q++) {
    size_t x = T->act[q];
    if (whole(T, x)) continue;
    T->kv[m] = (pk_kv){T->s[x], T->e[x], x};    /* starting at s, by end */
    T->kv2[m++] = (pk_kv){T->e[x], T->s[x], x}; /* ending at e, by start */
  }
  pk_sort_kv(T->kv, m);
  pk_sort_kv(T->kv2, m);
  r2c cand[TL_R2TRY];
  size_t nc = 0;
  uint64_t sums[1u << TL_R2K], sums2[1u << TL_R2K];
  sums2[0] = 0;
  for (size_t q = 0; q < m;) {
    size_t q1 = q; /* class: ending at t, starting at s0 */
    while (q1 < m && T->kv2[q1].k == T->kv2[q].k && T->kv2[q1].k2 == T->kv2[q].k2) q1++;
    uint64_t t = T->kv2[q].k;
    uint32_t ne = (uint32_t)(q1 - q);
    size_t p = lower(T->kv, m, t, 0);
    if (ne <= TL_R2K && p < m && T->kv[p].k == t) {
      sums[0] = 0;
      for (uint32_t me = 1; me < (1u << ne); me++) sums[me] = sums[me & (me - 1)] + T->h[T->kv2[q + __builtin_ctz(me)].i];
      while (p < m && T->kv[p].k == t) {
        size_t p1 = p; /* class: starting at t, ending at e0 */
        while (p1 < m && T->kv[p1].k == t && T->kv[p1].k2 == T->kv[p].k2) p1++;
        uint32_t ns = (uint32_t)(p1 - p);
        if (ns <= TL_R2K && T->len[T->kv2[q].i] + T->len[T->kv[p].i] <= T->K)
          for (uint32_t ms = 1; ms < (1u << ns); ms++) {
            uint64_t sm = sums2[ms] = sums2[ms & (ms - 1)] + T->h[T->kv[p + __builtin_ctz(ms)].i];
            for (uint32_t me = 1; me < (1u << ne); me++) {
              if (sums[me] != sm) continue;
              uint32_t size = (uint32_t)(__builtin_popcount(me) + __builtin_popcount(ms));
              if (size < 3) continue; /* rule 1's, where it was not unique */
              r2c c = {size, (uint32_t)q, me, (uint32_t)p, ms};
              if (nc < TL_R2TRY) cand[nc++] = c;
              else {
                size_t worst = 0;
                for (size_t k = 1; k < nc; k++)
                  if (cand[k].size > cand[worst].size) worst = k;
                if (cand[worst].size > size) cand[worst] = c;
              }
            }
          }
        p = p1;
      }
    }
    q = q1;
  }
  qsort(cand, nc, sizeof *cand, r2_cmp);
  for (size_t c = 0; c < nc; c++) {
    uint32_t ie[TL_R2K], is[TL_R2K], ke = 0, ks = 0;
    for (uint32_t i = 0; i < TL_R2K; i++) {
      if (cand[c].me >> i & 1) ie[ke++] = (uint32_t)T->kv2[cand[c].e0 + i].i;
      if (cand[c].ms >> i & 1) is[ks++] = (uint32_t)T->kv[cand[c].s0 + i].i;
    }
    size_t nn0 = T->nn, nk0 = T->nk;
    long x = ke == 1 ? (long)ie[0] : stack(T, ie, ke);
    long y = x < 0 ? -1 : ks == 1 ? (long)is[0] : stack(T, is, ks);
    long z = y < 0 ? -1 : seq(T, (size_t)x, (size_t)y);
    if (z < 0) {
      T->nn = nn0;
      T->nk = nk0;
      continue;
    }
    for (uint32_t i = 0; i < ke; i++) T->used[ie[i]] = 1;
    for (uint32_t i = 0; i < ks; i++) T->used[is[i]] = 1;
    uint32_t add = (uint32_t)z;
    compact(T, &add, 1);
    return 1;
  }
  return 0;
}

/* Rule 3: one stack of the blocks of one lifetime, or a column where they
 * add up to the load (blocks of the whole span only as a column: a stack
 * of some of them would fix an order the rest may need broken). Lifetimes
 * whose blocks failed are not tried again until a block joins them.
 * Returns 1 when made, -1 on OOM. */
static int rule3(tl *T) {
  size_t m = 0;
  for (size_t q = 0; q < T->na; q++) {
    size_t x = T->act[q];
    T->kv[m++] = (pk_kv){((uint64_t)T->s[x] << 32) | T->e[x], T->len[x], x};
  }
  pk_sort_kv(T->kv, m);
  uint64_t rootspan = T->cyc ? 0 : (uint64_t)(T->K - 1);
  for (size_t q = 0; q < m;) {
    size_t q1 = q;
    uint32_t newest = 0;
    while (q1 < m && T->kv[q1].k == T->kv[q].k && T->kv[q1].k2 == T->kv[q].k2) {
      if (T->kv[q1].i > newest) newest = (uint32_t)T->kv[q1].i;
      q1++;
    }
    size_t x0 = T->kv[q].i, k = q1 - q;
    int root = T->cyc ? whole(T, x0) : T->kv[q].k == rootspan;
    uint64_t sum = 0;
    for (size_t i = q; i < q1; i++) sum += T->h[T->kv[i].i];
    pk_charge(16 + 16 * (uint64_t)k); /* the work clock */
    if (pk_now() >= T->deadline) return 0;
    if (k >= 2 && (!root || sum == T->load)) {
      int tried = 0;
      for (size_t f = 0; f < T->nfail && !tried; f++)
        tried = T->fail[f][0] == T->kv[q].k && T->fail[f][1] == T->kv[q].k2 && T->fail[f][2] == k &&
                T->fail[f][3] == newest;
      if (!tried && k <= TL_MAXK * TL_MAXK) {
        uint32_t ids[TL_MAXK * TL_MAXK];
        for (size_t i = 0; i < k; i++) ids[i] = (uint32_t)T->kv[q + i].i;
        long z = sum == T->load ? column(T, ids, (uint32_t)k) : stack(T, ids, (uint32_t)k);
        if (z == -2) return -1;
        if (z < 0 && k > TL_MAXK && sum != T->load) z = big_stack(T, ids, (uint32_t)k);
        if (z >= 0) {
          for (size_t i = 0; i < k; i++) T->used[ids[i]] = 1;
          uint32_t add = (uint32_t)z;
          compact(T, &add, 1);
          return 1;
        }
        if (T->nfail == T->failcap) {
          size_t c = T->failcap ? T->failcap * 2 : 16;
          void *p = pk_mem_realloc(T->fail, sizeof *T->fail * c);
          if (!p) return -1;
          T->fail = p;
          T->failcap = c;
        }
        uint64_t *fr = T->fail[T->nfail++];
        fr[0] = T->kv[q].k;
        fr[1] = T->kv[q].k2;
        fr[2] = k;
        fr[3] = newest;
      }
    }
    q = q1;
  }
  return 0;
}

/* An order of a stack's k blocks from offset o in which each block's set
 * holds its offset (o is in the stack's set, so one exists): depth-first;
 * a subset that failed once fails again (its top is the same) */
static int stack_order(const tl *T, const uint32_t *kid, uint32_t k, uint32_t used, uint32_t depth, uint64_t o,
                       uint64_t *failed, uint32_t *pick) {
  if (depth == k) return 1;
  if (failed[used >> 6] >> (used & 63) & 1) return 0;
  for (uint32_t i = 0; i < k; i++) {
    if ((used >> i & 1) || !bit(T, setp(T, kid[i]), o)) continue;
    pick[depth] = i;
    if (stack_order(T, kid, k, used | 1u << i, depth + 1, o + T->h[kid[i]], failed, pick)) return 1;
  }
  failed[used >> 6] |= 1ull << (used & 63);
  return 0;
}

/* Offsets of the items of block id placed at o (o's residue in its set) */
static int unfold(tl *T, size_t id, uint64_t o, uint64_t *off) {
  size_t cap = T->nn + 1, sp = 0;
  uint64_t *st = pk_mem_alloc(sizeof(uint64_t) * 2 * cap);
  if (!st) return -1;
  st[sp++] = id;
  st[sp++] = o;
  while (sp) {
    o = st[--sp];
    size_t x = st[--sp];
    if (T->kind[x] == TL_LEAF) off[T->a[x]] = o;
    else if (T->kind[x] == TL_COLUMN)
      for (uint32_t c = 0; c < T->b[x]; c++) {
        st[sp++] = T->kids[T->a[x] + c]; st[sp++] = o;
        o += T->h[T->kids[T->a[x] + c]];
      }
    else if (T->kind[x] == TL_SEQ) {
      st[sp++] = T->a[x]; st[sp++] = o;
      st[sp++] = T->b[x]; st[sp++] = o;
    } else {
      const uint32_t *kid = T->kids + T->a[x];
      uint32_t k = T->b[x], pick[TL_MAXK];
      uint64_t failed[(1u << TL_MAXK) / 64] = {0};
      if (!stack_order(T, kid, k, 0, 0, o, failed, pick)) { pk_mem_free(st); return -2; } /* cannot happen: o is in the set */
      for (uint32_t d = 0; d < k; d++) {
        st[sp++] = kid[pick[d]]; st[sp++] = o;
        o += T->h[kid[pick[d]]];
      }
    }
  }
  pk_mem_free(st);
  return 0;
}

/* The coarsest congruence o = *r mod A inside set F */
static uint64_t coarsest(const tl *T, const uint64_t *F, uint64_t *r) {
  uint64_t c[TL_WMAX / 64];
  uint32_t w = T->words;
  memcpy(c, F, sizeof(uint64_t) * w);
  uint64_t A = T->W;
  while (A > 64) { /* fold halves: r stays when r and r + A/2 both do */
    uint32_t hw = (uint32_t)(A / 128);
    int nz = 0;
    for (uint32_t q = 0; q < hw; q++) nz |= (c[q] & c[q + hw]) != 0;
    if (!nz) goto done;
    for (uint32_t q = 0; q < hw; q++) c[q] &= c[q + hw];
    A /= 2;
  }
  while (A > 1) {
    uint64_t hb = A / 2, f = c[0] & (c[0] >> hb) & ((1ull << hb) - 1);
    if (!f) break;
    c[0] = f;
    A /= 2;
  }
done:;
  uint32_t q = 0;
  while (!c[q]) q++;
  *r = (uint64_t)q * 64 + (uint64_t)__builtin_ctzll(c[q]);
  return A;
}

int pk_flat(const pk_inst *in, uint64_t load) {
  uint32_t K = in->K;
  uint64_t *prof = pk_mem_alloc(sizeof(uint64_t) * (K ? K : 1));
  if (!prof) return 0;
  pk_profile(in, prof, 1);
  uint32_t upto = in->cyclic ? K : K - 1;
  int flat = K > 0 && load > 0;
  for (uint32_t t = 0; t < upto && flat; t++) flat = prof[t] == load;
  pk_mem_free(prof);
  return flat;
}

/* Is off a packing of makespan at most lim? The blocks are guesses; this
 * is the proof: fg_check_packing on the items in the instance's points
 * (sizes and alignments are the real ones: no granularity here). */
static int valid(tl *T, uint64_t lim, const uint64_t *off) {
  const pk_inst *in = T->in;
  size_t n = in->n;
  fg_pack_item *ci = pk_mem_alloc(sizeof(fg_pack_item) * n);
  if (!ci) return 0;
  int ok = 1;
  for (size_t i = 0; i < n && ok; i++) {
    ci[i] = (fg_pack_item){in->s[i], in->e[i], in->size[i], in->align[i], 0, 0};
    ok = off[i] <= lim && in->size[i] <= lim - off[i];
  }
  fg_pack_desc d;
  memset(&d, 0, sizeof d);
  d.period = T->cyc ? T->K : 0;
  ok = ok && fg_check_packing(ci, n, off, &d, NULL, 0);
  pk_mem_free(ci);
  return ok;
}

/* The decision search's instance of the blocks act[0..m): each block's
 * coarsest congruence as alignment and phase; times are in's points */
static int blocks_inst(tl *T, const uint32_t *act, size_t m, fg_pack_item *bi, uint64_t *phase, pk_inst *bin) {
  for (size_t q = 0; q < m; q++) {
    size_t x = act[q];
    uint64_t r, A = coarsest(T, setp(T, x), &r);
    bi[q] = (fg_pack_item){T->s[x], T->e[x], T->h[x], A, 0, 0};
    phase[q] = r;
  }
  fg_pack_desc d;
  memset(&d, 0, sizeof d);
  d.period = T->cyc ? T->K : 0;
  if (pk_build(bin, bi, m, &d)) return -1;
  bin->phase = phase;
  return 0;
}

/* The items' offsets from the blocks' (boff); *mk = lim when that is a
 * packing of makespan at most lim, else left. 0, or -1 on OOM. */
static int unfold_all(tl *T, const uint32_t *act, size_t m, const uint64_t *boff, uint64_t *off, uint64_t lim,
                      uint64_t *mk) {
  for (size_t q = 0; q < m; q++) {
    int u = unfold(T, act[q], boff[q], off);
    if (u == -1) return -1;
    if (u) return 0; /* an offset outside the block's set: cannot happen */
  }
  if (valid(T, lim, off)) *mk = lim;
  return 0;
}

/* Opens the blocks of act: with first, those whose set holds more than one
 * congruence, down to blocks of one; else every block one level. 0 when
 * nothing opened. */
static int open_blocks(tl *T, int first) {
  size_t na = 0, sp = 0, m = T->na;
  if (first) {
    for (size_t q = 0; q < m; q++) {
      T->kv[sp++].i = T->act[q];
      while (sp) {
        size_t y = T->kv[--sp].i;
        uint64_t r, A = coarsest(T, setp(T, y), &r);
        if (T->kind[y] == TL_LEAF || popset(T, y) == T->W / A) T->act2[na++] = (uint32_t)y;
        else if (T->kind[y] == TL_SEQ) { T->kv[sp++].i = T->b[y]; T->kv[sp++].i = T->a[y]; }
        else for (uint32_t c = T->b[y]; c-- > 0;) T->kv[sp++].i = T->kids[T->a[y] + c];
      }
    }
    if (na == m) first = 0, na = 0; /* each of one congruence already: open all */
  }
  if (!first)
    for (size_t q = 0; q < m; q++) {
      size_t x = T->act[q];
      if (T->kind[x] == TL_LEAF) T->act2[na++] = (uint32_t)x;
      else if (T->kind[x] == TL_SEQ) { T->act2[na++] = T->a[x]; T->act2[na++] = T->b[x]; }
      else for (uint32_t c = 0; c < T->b[x]; c++) T->act2[na++] = T->kids[T->a[x] + c];
    }
  if (na == m) return 0;
  uint32_t *t = T->act;
  T->act = T->act2;
  T->act2 = t;
  T->na = na;
  return 1;
}

static void tl_free(tl *T) {
  pk_mem_free(T->s); pk_mem_free(T->e); pk_mem_free(T->len); pk_mem_free(T->a); pk_mem_free(T->b); pk_mem_free(T->h); pk_mem_free(T->F); pk_mem_free(T->kind);
  pk_mem_free(T->kids); pk_mem_free(T->act); pk_mem_free(T->act2); pk_mem_free(T->used); pk_mem_free(T->G); pk_mem_free(T->tmp); pk_mem_free(T->gne); pk_mem_free(T->kv); pk_mem_free(T->kv2);
  pk_mem_free(T->fail);
}

int pk_tile(const pk_inst *in, uint64_t load, uint64_t deadline_ns, uint64_t *off, uint64_t *mk) {
  size_t n = in->n;
  *mk = UINT64_MAX;
  if (!n || n > PS_MAX_N || in->gran) return 0;
  uint64_t amax = 64;
  for (size_t i = 0; i < n; i++)
    if (in->align[i] > amax) amax = in->align[i];
  if (amax > TL_WMAX) return 0;
  tl T;
  memset(&T, 0, sizeof T);
  T.in = in;
  T.K = in->K;
  T.cyc = in->cyclic;
  T.W = (uint32_t)amax;
  T.words = T.W / 64;
  T.deadline = deadline_ns;
  T.load = load;
  T.ncap = 3 * n + 8;
  T.kcap = (size_t)TL_MAXK * T.ncap;
  size_t nc = T.ncap;
  T.s = pk_mem_alloc(sizeof(uint32_t) * nc); T.e = pk_mem_alloc(sizeof(uint32_t) * nc); T.len = pk_mem_alloc(sizeof(uint32_t) * nc);
  T.a = pk_mem_alloc(sizeof(uint32_t) * nc); T.b = pk_mem_alloc(sizeof(uint32_t) * nc);
  T.h = pk_mem_alloc(sizeof(uint64_t) * nc); T.F = pk_mem_calloc(nc * T.words, sizeof(uint64_t)); T.kind = pk_mem_alloc(nc);
  T.kids = pk_mem_alloc(sizeof(uint32_t) * T.kcap);
  T.act = pk_mem_alloc(sizeof(uint32_t) * nc); T.act2 = pk_mem_alloc(sizeof(uint32_t) * nc); T.used = pk_mem_calloc(nc, 1);
  T.G = pk_mem_alloc(sizeof(uint64_t) * T.words << TL_MAXK); T.tmp = pk_mem_alloc(sizeof(uint64_t) * T.words);
  T.gne = pk_mem_alloc((size_t)1 << TL_MAXK);
  T.kv = pk_mem_alloc(sizeof(pk_kv) * nc); T.kv2 = pk_mem_alloc(sizeof(pk_kv) * nc);
  fg_pack_item *bi = NULL;
  uint64_t *phase = NULL, *boff = NULL;
  pk_inst bin;
  int rc = -1;
  if (!T.s || !T.e || !T.len || !T.a || !T.b || !T.h || !T.F || !T.kind || !T.kids || !T.act || !T.act2 || !T.used ||
      !T.G || !T.tmp || !T.gne || !T.kv || !T.kv2)
    goto out;
  rc = 0; /* from here, -1 only on OOM */
  for (size_t i = 0; i < n; i++) {
    size_t id = node(&T, TL_LEAF, in->s[i], in->e[i], in->len[i], in->size[i]);
    T.a[id] = (uint32_t)i;
    uint64_t *f = setp(&T, id), A = in->align[i];
    if (A >= 64)
      for (uint64_t o = 0; o < T.W; o += A) f[o >> 6] |= 1;
    else {
      uint64_t pat = 0;
      for (uint32_t j = 0; j < 64; j += (uint32_t)A) pat |= 1ull << j;
      for (uint32_t w = 0; w < T.words; w++) f[w] = pat;
    }
    if (in->size[i] > load || !fit(&T, f, in->size[i])) goto out; /* no tiling at load */
    T.act[T.na++] = (uint32_t)id;
  }
  while (T.na > 1 && pk_now() < deadline_ns) {
    pk_charge(16 + 16 * (uint64_t)T.na); /* the work clock */
    if (rule1(&T)) continue;
    if (rule2(&T)) continue;
    int r3 = rule3(&T);
    if (r3 < 0) { rc = -1; goto out; }
    if (!r3) break;
  }
  size_t m0 = T.na;
  uint32_t *act0 = pk_mem_alloc(sizeof(uint32_t) * (m0 ? m0 : 1));
  bi = pk_mem_alloc(sizeof(fg_pack_item) * n);
  phase = pk_mem_alloc(sizeof(uint64_t) * n);
  boff = pk_mem_alloc(sizeof(uint64_t) * n);
  if (!act0 || !bi || !phase || !boff) { pk_mem_free(act0); rc = -1; goto out; }
  memcpy(act0, T.act, sizeof(uint32_t) * m0);
  if (m0 == 1 && bit(&T, setp(&T, act0[0]), 0)) { /* one block: the whole tiling */
    boff[0] = 0;
    rc = unfold_all(&T, act0, 1, boff, off, load, mk);
    if (rc || *mk == load) goto done;
  }
  /* the blocks at the load, with half of the time. When the search proves
   * they do not tile (a guess was wrong, or a block's congruence is one of
   * several it allows), the blocks are opened (first those of more than
   * one congruence, down to blocks of one; then all, one level: stacks
   * into their blocks, joins into their two parts) and the search tries
   * again, until only items are left or the time is up */
  uint64_t now = pk_now(), half = now < deadline_ns ? now + (deadline_ns - now) / 2 : now;
  for (int level = 0; pk_now() < half; level++) {
    size_t m = T.na;
    pk_charge(64 + 16 * (uint64_t)m); /* the work clock */
    if (blocks_inst(&T, T.act, m, bi, phase, &bin)) { rc = -1; goto done; }
    int sr = pk_search_decide(&bin, load, half, boff);
    pk_free(&bin);
    if (sr < 0) { rc = -1; goto done; }
    if (sr == PS_FOUND) {
      rc = unfold_all(&T, T.act, m, boff, off, load, mk);
      goto done;
    }
    if (sr != PS_NONE) break;
    if (!open_blocks(&T, level == 0)) break; /* items only: they do not tile */
  }
  /* none at the load: the first blocks, packed as low as the rest of the
   * time takes them (a few blocks, each an exact rectangle: their best
   * packing is near the load even where a guess was wrong) */
  if (blocks_inst(&T, act0, m0, bi, phase, &bin)) { rc = -1; goto done; }
  uint64_t top = 0;
  for (size_t q = 0; q < m0; q++) { /* a start: all stacked */
    boff[q] = top = pk_align_item(&bin, top, q);
    top += bin.size[q];
  }
  int proved = 0;
  int ir = pk_search_improve(&bin, load, deadline_ns, 0, boff, &proved);
  pk_free(&bin);
  if (ir < 0) { rc = -1; goto done; }
  uint64_t M = 0;
  for (size_t q = 0; q < m0; q++)
    if (boff[q] + T.h[act0[q]] > M) M = boff[q] + T.h[act0[q]];
  rc = unfold_all(&T, act0, m0, boff, off, M, mk);
done:
  pk_mem_free(act0);
out:
  pk_mem_free(bi); pk_mem_free(phase); pk_mem_free(boff);
  tl_free(&T);
  return rc;
}
