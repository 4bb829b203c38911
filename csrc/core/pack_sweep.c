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
 * The free blocks sit in treaps (by size then offset for best fit, those
 * free for good apart from those free until a restart; by offset, for
 * merges), so an event costs O(log n), where thesis and scanline scan every
 * free block (quadratic: 100,000 items took 5-11 s). A best-fit lookup
 * tries at most SWEEP_TRIES blocks before the top. bench/scale.lua: random
 * lines 1.01-1.07 x LOAD at 30,000-100,000 items (scanline's), cycles
 * 1.01-1.08 (best's quadratic baselines reached 1.004-1.042). */
#include "pack_sweep.h"
#include "pack_mem.h"
#include "pack_sort.h"
#include <stdlib.h>
#include <string.h>

#define SWEEP_TRIES 32
#define SWEEP_TIGHT 16
#define NIL UINT32_MAX
/* a free this many events ahead has its live-neighbour slots fetched (a
 * hint: the maps outgrow the core's own cache) */
#define SWEEP_AHEAD 8
#if defined(__GNUC__)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)0)
#endif
#define INF_U UINT32_MAX

/* a free block, node of two treaps: one by (size, off) (S or U: its until
 * never changes, so it is in one of them for life), one by off. The fields
 * an update or a lookup touches together sit together (one or two cache
 * lines a node, where ten arrays took one each). pr: the treap priority;
 * mx[d] (U's only): the latest until in the subtree of its child on side d
 * (0 none), so a best-fit query skips subtrees of blocks all freed too
 * briefly without loading them; c[0], p[0]: the by-size treap's children
 * and parent, c[1], p[1] the by-offset one's. */
typedef struct blk {
  uint64_t off, size;
  uint32_t until, pr, mx[2];
  uint32_t c[2][2], p[2]; /* children, parent */
} blk;
/* a treap: its root, which children (0 by size, 1 by off), mx kept (U) */
typedef struct trp { uint32_t root; int by, hasmx; } trp;
/* live items by an edge offset (open addressing, linear probing; grows at
 * half full, so it stays the size of what lives at once, in cache), each
 * with when it frees: a lookup reads no per-item array */
typedef struct nbslot { uint64_t key; uint32_t val, endt; } nbslot;
typedef struct nbmap { nbslot *t; uint64_t mask, cnt; int shift; } nbmap;
typedef struct sw {
  blk *b;                /* per block */
  uint32_t *freeid, nfree, nblk;
  trp S, U, O;           /* by (size, off): free for good, free until a
                            restart; all by off */
  nbmap top, bot;        /* live items by their top, by their bottom */
  int lt;                /* the lifetime-aware fit (else plain best fit) */
  uint32_t *endt;        /* with lt, per item: when it frees (sweep time;
                            INF_U never), for what the caller makes live */
} sw;

/* the product's high bits (offsets are often multiples of a large power of two) */
static uint64_t nb_hash(const nbmap *m, uint64_t k) { return k * 0x9E3779B97F4A7C15ull >> m->shift; }
static nbslot *nb_table(uint64_t c) {
  nbslot *t = pk_mem_alloc(sizeof(nbslot) * c);
  if (t)
    for (uint64_t q = 0; q < c; q++) t[q].val = NIL;
  return t;
}
static int nb_init(nbmap *m) {
  m->mask = 1023;
  m->shift = 64 - 10;
  m->cnt = 0;
  m->t = nb_table(m->mask + 1);
  return m->t ? 0 : -1;
}
static void nb_clear(nbmap *m) {
  for (uint64_t q = 0; q <= m->mask; q++) m->t[q].val = NIL;
  m->cnt = 0;
}
static void nb_release(nbmap *m) { pk_mem_free(m->t); }
static void nb_ins(nbmap *m, nbslot e) {
  uint64_t q = nb_hash(m, e.key);
  while (m->t[q].val != NIL) q = (q + 1) & m->mask;
  m->t[q] = e;
  m->cnt++;
}
static void nb_put(nbmap *m, uint64_t k, uint32_t v, uint32_t endt) {
  if (2 * (m->cnt + 1) > m->mask + 1) { /* grow; out of memory it keeps what it has (a hint, not the packing) */
    nbslot *old = m->t, *g = nb_table(2 * (m->mask + 1));
    if (!g) return;
    uint64_t oc = m->mask + 1;
    m->t = g; m->mask = 2 * oc - 1; m->cnt = 0; m->shift--;
    for (uint64_t q = 0; q < oc; q++)
      if (old[q].val != NIL) nb_ins(m, old[q]);
    pk_mem_free(old);
  }
  nb_ins(m, (nbslot){k, v, endt});
}
/* when the live item with edge k frees (INF_U: none there, or never) */
static uint32_t nb_endt(const nbmap *m, uint64_t k) {
  for (uint64_t q = nb_hash(m, k); m->t[q].val != NIL; q = (q + 1) & m->mask)
    if (m->t[q].key == k) return m->t[q].endt;
  return INF_U;
}
/* item v, at edge k, out; backward-shift deletion: no tombstones */
static void nb_del(nbmap *m, uint64_t k, uint32_t v) {
  uint64_t q = nb_hash(m, k);
  for (; m->t[q].val != v || m->t[q].key != k; q = (q + 1) & m->mask)
    if (m->t[q].val == NIL) return; /* not in (a grow that failed) */
  m->cnt--;
  for (uint64_t j = q;;) {
    m->t[q].val = NIL;
    for (;;) {
      j = (j + 1) & m->mask;
      if (m->t[j].val == NIL) return;
      uint64_t h = nb_hash(m, m->t[j].key);
      /* j's entry may move to q when its home is not in (q, j] */
      if (q <= j ? (h <= q || h > j) : (h <= q && h > j)) break;
    }
    m->t[q] = m->t[j];
    q = j;
  }
}
static void live_add(sw *w, uint32_t i, uint64_t o, uint64_t sz, uint32_t endt) {
  if (!w->lt || !sz) return;
  nb_put(&w->top, o + sz, i, endt);
  nb_put(&w->bot, o, i, endt);
}
/* the slots an item at o of sz takes, fetched ahead */
#define LIVE_AHEAD(w, o, sz) do { \
    if ((w)->lt) { PREFETCH(&(w)->top.t[nb_hash(&(w)->top, (o) + (sz))]); PREFETCH(&(w)->bot.t[nb_hash(&(w)->bot, (o))]); } \
  } while (0)
static void live_del(sw *w, uint32_t i, uint64_t o, uint64_t sz) {
  if (!w->lt || !sz) return;
  nb_del(&w->top, o + sz, i);
  nb_del(&w->bot, o, i);
}

static uint32_t prio(uint32_t x) {
  x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
  return x;
}
/* the latest until in x's subtree (x NIL: 0) */
static uint32_t mx_of(const blk *B, uint32_t x) {
  if (x == NIL) return 0;
  uint32_t m = B[x].until > B[x].mx[0] ? B[x].until : B[x].mx[0];
  return m > B[x].mx[1] ? m : B[x].mx[1];
}
static void pull_mx(blk *B, uint32_t x) {
  B[x].mx[0] = mx_of(B, B[x].c[0][0]);
  B[x].mx[1] = mx_of(B, B[x].c[0][1]);
}
/* a < b in the treap's order */
static int tless(const blk *B, const trp *t, uint32_t a, uint32_t b) {
  if (!t->by && B[a].size != B[b].size) return B[a].size < B[b].size;
  return B[a].off < B[b].off;
}
/* The treap of the same keys and priorities is one tree whatever builds
 * it: these updates make the tree the recursive split and merge made, at a
 * fraction of the cost: an insert descends once (no priority recomputed),
 * an erase starts at the node (parent links) and mx is pulled only along
 * the changed paths, stopped where it stays. */
static uint32_t *tlink(blk *B, trp *t, uint32_t x) { /* the link that points to x */
  uint32_t q = B[x].p[t->by];
  return q == NIL ? &t->root : &B[q].c[t->by][B[q].c[t->by][1] == x];
}
/* mx pulled from x up to (not) stop, then on while it changes */
static void tpull_up(blk *B, trp *t, uint32_t x, uint32_t stop) {
  for (; x != stop; x = B[x].p[0]) pull_mx(B, x);
  for (; x != NIL; x = B[x].p[0]) {
    uint32_t m = mx_of(B, x);
    pull_mx(B, x);
    if (mx_of(B, x) == m) break;
  }
}
static void tinsert(sw *w, trp *t, uint32_t k) {
  blk *B = w->b;
  int c = t->by;
  uint32_t *link = &t->root, pk = B[k].pr, u = B[k].until, up = NIL;
  /* down to where k's priority puts it; an ancestor's mx takes k's until */
  while (*link != NIL && B[*link].pr > pk) {
    uint32_t x = *link;
    int d = !tless(B, t, k, x);
    if (t->hasmx && B[x].mx[d] < u) B[x].mx[d] = u;
    up = x;
    link = &B[x].c[c][d];
  }
  /* what was there split by k's key: the left part below k, the right
   * part above it (each split node's child moves: its mx from the bottom) */
  uint32_t x = *link, *L = &B[k].c[c][0], *R = &B[k].c[c][1], lp = k, rp = k;
  while (x != NIL) {
    if (tless(B, t, x, k)) { *L = x; B[x].p[c] = lp; lp = x; L = &B[x].c[c][1]; x = *L; }
    else { *R = x; B[x].p[c] = rp; rp = x; R = &B[x].c[c][0]; x = *R; }
  }
  *L = *R = NIL;
  *link = k;
  B[k].p[c] = up;
  if (t->hasmx) {
    for (; lp != k; lp = B[lp].p[0]) pull_mx(B, lp);
    for (; rp != k; rp = B[rp].p[0]) pull_mx(B, rp);
    pull_mx(B, k);
  }
}
/* k, whose place in t is known (no key compared): a new leaf under q
 * (NIL: the root) on side d, then rotated up to where its priority puts it */
static void tinsert_at(sw *w, trp *t, uint32_t k, uint32_t q, int d) {
  blk *B = w->b;
  int c = t->by; /* only where no mx is kept */
  B[k].c[c][0] = B[k].c[c][1] = NIL;
  B[k].p[c] = q;
  *(q == NIL ? &t->root : &B[q].c[c][d]) = k;
  while ((q = B[k].p[c]) != NIL && B[q].pr < B[k].pr) {
    int s = B[q].c[c][1] == k; /* k is q's child on side s: q goes to k's other side */
    uint32_t m = B[k].c[c][!s], *ql = tlink(B, t, q);
    B[q].c[c][s] = m;
    if (m != NIL) B[m].p[c] = q;
    B[k].c[c][!s] = q;
    B[k].p[c] = B[q].p[c];
    B[q].p[c] = k;
    *ql = k;
  }
}
static void terase(sw *w, trp *t, uint32_t k) {
  blk *B = w->b;
  int c = t->by;
  uint32_t up = B[k].p[c], *link = tlink(B, t, k), par = up;
  /* k's children merged in its place (the higher priority on top) */
  uint32_t a = B[k].c[c][0], b = B[k].c[c][1];
  while (a != NIL && b != NIL) {
    if (B[a].pr > B[b].pr) { *link = a; B[a].p[c] = par; par = a; link = &B[a].c[c][1]; a = *link; }
    else { *link = b; B[b].p[c] = par; par = b; link = &B[b].c[c][0]; b = *link; }
  }
  a = a != NIL ? a : b;
  *link = a;
  if (a != NIL) B[a].p[c] = par;
  if (t->hasmx) tpull_up(B, t, par, up);
}

static uint32_t blk_new(sw *w, uint64_t off, uint64_t size, uint32_t until) {
  uint32_t k = w->nfree ? w->freeid[--w->nfree] : w->nblk++;
  blk *x = &w->b[k];
  if (k + 1 == w->nblk) x->pr = prio(k); /* a new id (a reused one keeps its priority) */
  x->off = off; x->size = size; x->until = until;
  return k;
}
static trp *by_size(sw *w, uint32_t k) { return w->b[k].until == INF_U ? &w->S : &w->U; }
static void blk_del(sw *w, uint32_t k) {
  terase(w, by_size(w, k), k);
  terase(w, &w->O, k);
  w->freeid[w->nfree++] = k;
}
/* a free block [off, off + size) free until `until`, merged with the
 * neighbours in memory of the same until; returns its id */
static uint32_t blk_add(sw *w, uint64_t off, uint64_t size, uint32_t until) {
  /* the neighbours: the last block below off and the first above */
  uint32_t lo = NIL, hi = NIL, q = NIL; /* q: the last visited, on side d */
  int d = 0;
  for (uint32_t x = w->O.root; x != NIL;) {
    q = x;
    if (w->b[x].off < off) { lo = x; x = w->b[x].c[1][d = 1]; }
    else { hi = x; x = w->b[x].c[1][d = 0]; }
  }
  int mlo = lo != NIL && w->b[lo].until == until && w->b[lo].off + w->b[lo].size == off;
  int mhi = hi != NIL && w->b[hi].until == until && off + size == w->b[hi].off;
  /* a merge grows a neighbour in place: its place by offset stays (no
   * other block lies between), only its place by size moves */
  if (mlo || mhi) {
    uint32_t k = mlo ? lo : hi;
    terase(w, by_size(w, k), k);
    if (mlo && mhi) { size += w->b[hi].size; blk_del(w, hi); }
    if (mlo) w->b[k].size += size;
    else { w->b[k].off = off; w->b[k].size += size; }
    tinsert(w, by_size(w, k), k);
    return k;
  }
  uint32_t k = blk_new(w, off, size, until);
  tinsert(w, by_size(w, k), k);
  tinsert_at(w, &w->O, k, q, d); /* where the search ended */
  return k;
}

/* The first f->want blocks of t free until end that hold size at align, in
 * t's order (by size, then offset), in one in-order walk from the first
 * block of at least size; at most SWEEP_TRIES blocks free until end looked
 * at (an alignment that wastes too much of each). mx prunes subtrees of
 * blocks all freed too briefly. */
typedef struct fitl { uint32_t *c, got, seen, want; } fitl;
static void fit_list(const sw *w, const trp *t, uint32_t x, uint64_t size, uint64_t align, uint32_t end, fitl *f) {
  while (x != NIL && f->got < f->want && f->seen < SWEEP_TRIES) {
    if (w->b[x].size >= size) {
      if (!t->hasmx || w->b[x].mx[0] >= end) fit_list(w, t, w->b[x].c[0][0], size, align, end, f);
      if (f->got >= f->want || f->seen >= SWEEP_TRIES) return;
      if (w->b[x].until >= end) {
        f->seen++;
        if (pk_align_up(w->b[x].off, align) + size <= w->b[x].off + w->b[x].size) f->c[f->got++] = x;
      }
    }
    if (t->hasmx && w->b[x].mx[1] < end) return;
    x = w->b[x].c[0][1];
  }
}
/* Best fit in t: of those (want <= SWEEP_TIGHT), the one back soonest */
static uint32_t fit_in(const sw *w, const trp *t, uint64_t size, uint64_t align, uint32_t end, uint32_t want) {
  uint32_t cand[SWEEP_TIGHT], best = NIL;
  fitl f = {cand, 0, 0, want};
  fit_list(w, t, t->root, size, align, end, &f);
  for (uint32_t k = 0; k < f.got; k++)
    if (best == NIL || w->b[cand[k]].until < w->b[best].until) best = cand[k];
  return best;
}
/* The blocks free for good and those free until a restart apart, so the
 * latter (many on a cycle, most too short-lived) never hide the former.
 * A block free until a restart that fits goes first (that memory serves
 * nothing else meanwhile), of the first SWEEP_TIGHT that fit by size the
 * one back soonest: cycle T = 100, lifetimes up to T/2, 30,000 items
 * 1.086 -> 1.047 x LOAD, T = 1000 1.091 -> 1.078 (the smallest block of all
 * 1.086, the one back soonest of all 1.14) */
static uint32_t best_fit(const sw *w, uint64_t size, uint64_t align, uint32_t end) {
  uint32_t a = fit_in(w, &w->S, size, align, end, 1), b = fit_in(w, &w->U, size, align, end, SWEEP_TIGHT);
  return b != NIL ? b : a;
}

/* ---- lifetime-aware fit (offline: every item's end is known) ----
 * Of the blocks free for good, the first SWEEP_LT_FITS that hold the item
 * by size, those within size / SWEEP_LT_SLACK of the smallest; of these,
 * and of each block's two ends, the one whose neighbour in memory (a live
 * item) frees closest to when this item does: blocks that free together
 * sit together and merge into holes as large as they were, where plain
 * best fit at the bottom of a block checkerboards the heap. Of the blocks
 * free until a restart, those whose idle space-time after the item, (back -
 * end + 1) x the block's size, is within SWEEP_LT_UAREA x the least, scored
 * the same way except that an end against memory not freed meanwhile scores
 * best: a block that comes back soon but is much larger than the item, or a
 * tight one back much later, both leave memory idle until the restart.
 * bench/scale.lua, 30,000 items: line T=10000 short 1.050 -> 1.031 x LOAD,
 * cycle T=1000 long 1.052 -> 1.045 (journal, "Scale: lifetime-aware fit",
 * "Scale: restart blocks by idle area"). */
#define SWEEP_LT_FITS 8
#define SWEEP_LT_SLACK 4
#define SWEEP_LT_UAREA 2.0

static uint64_t align_down(uint64_t x, uint64_t a) { return (a & (a - 1)) ? x - x % a : x & ~(a - 1); }
/* how far apart a live neighbour freed at e (INF_U: none, or never) and an
 * item freed at end free; `none` when there is none or it is never freed */
static uint32_t nb_gap(uint32_t e, uint32_t end, uint32_t none) {
  if (e == INF_U) return none;
  return e > end ? e - end : end - e;
}
/* a block free until a restart: what stays idle of it after an item freed at end */
static double u_area(const sw *w, uint32_t x, uint32_t end) {
  return (double)(w->b[x].until - end + 1) * (double)w->b[x].size;
}
/* Of cand[0..got) (in t's order), the block and end (*top) for an item of
 * size at align freed at end; u: blocks free until a restart (those of
 * least idle area first) */
static uint32_t lt_pick(const sw *w, const uint32_t *cand, uint32_t got, uint64_t size, uint64_t align,
                        uint32_t end, int u, int *top) {
  uint64_t lim = w->b[cand[0]].size + size / SWEEP_LT_SLACK;
  uint32_t best = NIL, bs = UINT32_MAX, none = u ? 0 : UINT32_MAX;
  double amax = 0; /* restart blocks: the idle area scored up to (doubles: sizes x times overflow 64 bits) */
  if (u) {
    double amin = -1;
    for (uint32_t k = 0; k < got; k++) {
      double a = u_area(w, cand[k], end);
      if (amin < 0 || a < amin) amin = a;
    }
    amax = amin * SWEEP_LT_UAREA;
  }
  for (uint32_t k = 0; k < got; k++) {
    uint32_t x = cand[k];
    if (u ? u_area(w, x, end) > amax : w->b[x].size > lim) {
      if (u) continue;
      break;
    }
    uint64_t bo = w->b[x].off, be = bo + w->b[x].size;
    uint32_t s0 = nb_gap(nb_endt(&w->top, bo), end, none);
    if (s0 < bs || best == NIL) { bs = s0; best = x; *top = 0; }
    uint64_t o = align_down(be - size, align);
    if (bs && o >= bo && o + size == be) {
      uint32_t s1 = nb_gap(nb_endt(&w->bot, be), end, none);
      if (s1 < bs) { bs = s1; best = x; *top = 1; }
    }
    if (!bs) break; /* none better */
  }
  return best;
}
/* The block an item of size at align freed at end goes to (NIL: the top of
 * the heap), at its top end when *top */
static uint32_t place_fit(const sw *w, uint64_t size, uint64_t align, uint32_t end, int *top) {
  *top = 0;
  if (!w->lt) return best_fit(w, size, align, end);
  uint32_t cand[SWEEP_TIGHT > SWEEP_LT_FITS ? SWEEP_TIGHT : SWEEP_LT_FITS];
  fitl f = {cand, 0, 0, SWEEP_TIGHT};
  fit_list(w, &w->U, w->U.root, size, align, end, &f);
  if (f.got) return lt_pick(w, cand, f.got, size, align, end, 1, top);
  f = (fitl){cand, 0, 0, SWEEP_LT_FITS};
  fit_list(w, &w->S, w->S.root, size, align, end, &f);
  return f.got ? lt_pick(w, cand, f.got, size, align, end, 0, top) : NIL;
}

/* Item i (size, align, freed at end) placed: its offset, the until of where
 * it went in *u; the heap top moves in *H */
static uint64_t sw_place(sw *w, uint32_t i, uint64_t sz, uint64_t al, uint32_t end, uint64_t *H, uint32_t *u) {
  int top;
  uint32_t b = place_fit(w, sz, al, end, &top);
  uint64_t o;
  if (b != NIL) {
    uint64_t bo = w->b[b].off, bs = w->b[b].size;
    o = top ? align_down(bo + bs - sz, al) : pk_align_up(bo, al);
    LIVE_AHEAD(w, o, sz);
    *u = w->b[b].until;
    if (o == bo && bs > sz) { /* the rest keeps b's place by offset */
      trp *t = by_size(w, b);
      terase(w, t, b);
      w->b[b].off = o + sz; w->b[b].size = bs - sz;
      tinsert(w, t, b);
    } else if (top && o > bo) { /* at its top end: the rest keeps b's offset */
      trp *t = by_size(w, b);
      terase(w, t, b);
      w->b[b].size = o - bo;
      tinsert(w, t, b);
    } else if (o > bo) { /* within, past padding: b keeps the padding, a new block the rest */
      trp *t = by_size(w, b);
      terase(w, t, b);
      w->b[b].size = o - bo;
      tinsert(w, t, b);
      /* it merges with nothing: b merged with what lies against it when made */
      if (bo + bs > o + sz) {
        uint32_t k = blk_new(w, o + sz, bo + bs - o - sz, *u), q = b;
        tinsert(w, t, k);
        /* next after b by offset: b's right child, else the leftmost below it */
        int d = w->b[q].c[1][1] != NIL ? 0 : 1;
        if (!d)
          for (q = w->b[q].c[1][1]; w->b[q].c[1][0] != NIL;) q = w->b[q].c[1][0];
        tinsert_at(w, &w->O, k, q, d);
      }
    } else /* all of it */
      blk_del(w, b);
  } else {
    o = pk_align_up(*H, al);
    LIVE_AHEAD(w, o, sz);
    if (o > *H) blk_add(w, *H, o - *H, INF_U);
    *H = o + sz;
    *u = INF_U;
  }
  live_add(w, i, o, sz, end);
  return o;
}

/* Does item i cross the cut at t0 (live at t0 having started before it:
 * whole-cycle items too)? One starting at t0 is an interval from it. */
static int crosses(const pk_inst *in, size_t i, uint32_t t0) {
  return in->cyclic && (in->len[i] >= in->K || (in->s[i] != t0 && pk_contains(in, i, t0)));
}

/* The blocks' arrays and treaps for up to nb free blocks; with lt the
 * lifetime-aware fit's state for n items too (endt, filled by the caller,
 * and the live-neighbour maps). 0, or -1 out of memory (sw_release frees
 * what was made either way). */
static int sw_alloc(sw *w, size_t nb, size_t n, int lt) {
  memset(w, 0, sizeof *w);
  w->b = pk_mem_alloc(sizeof(blk) * nb);
  w->freeid = pk_mem_alloc(sizeof(uint32_t) * nb);
  int ok = w->b && w->freeid;
  w->S.root = w->U.root = w->O.root = NIL;
  w->O.by = 1;
  w->U.hasmx = 1;
  if (ok && lt) {
    w->lt = 1;
    w->endt = pk_mem_alloc(sizeof(uint32_t) * (n ? n : 1));
    ok = w->endt && !nb_init(&w->top) && !nb_init(&w->bot);
  }
  return ok ? 0 : -1;
}
static void sw_release(sw *w) {
  pk_mem_free(w->b); pk_mem_free(w->freeid);
  nb_release(&w->top); nb_release(&w->bot); pk_mem_free(w->endt);
}

/* A sweep event, in the order the sweep meets them: a start (fe: where its
 * item's free is) carries what placing needs (a: the alignment, t: when it
 * frees), a free (fe NIL) what the placing wrote into it (a: the offset,
 * t: the until), so the loop reads events one after another where it
 * looked each item up (a cache miss a field). */
typedef struct swev { uint64_t size, a; uint32_t i, t, fe, kind; } swev;
/* kinds: a free, a start; a peak sweep's half also a stacked item's free
 * (a: its offset, t: until) and a fixed item's claim (a: its offset, t:
 * when it frees) */
enum { EV_FREE, EV_SFREE, EV_START, EV_CLAIM };
/* event k + SWEEP_AHEAD of ne, a free, has its live-neighbour slots fetched
 * (its offset is there once it has started; else a wasted hint). Macros:
 * gcc deletes calls of a static function that only prefetches. */
#define EV_AHEAD(w, ev, k, ne) do { \
    if ((w)->lt && (k) + SWEEP_AHEAD < (ne)) { \
      const swev *f_ = &(ev)[(k) + SWEEP_AHEAD]; \
      if (f_->kind == EV_FREE || f_->kind == EV_SFREE) LIVE_AHEAD(w, f_->a, f_->size); \
    } \
  } while (0)

/* One sweep from t0: what crosses t0 stacked at the bottom first. */
static int sweep_run(const pk_inst *in, uint32_t t0, int lt, uint64_t *offv) {
  size_t n = in->n, nn = n ? n : 1;
  uint32_t K = in->K;
  size_t *bys = pk_mem_alloc(sizeof(size_t) * nn), *cord = pk_mem_alloc(sizeof(size_t) * nn);
  size_t *cnt = pk_mem_calloc((size_t)2 * K + 3, sizeof(size_t));
  swev *ev = pk_mem_alloc(sizeof(swev) * 2 * nn);
  /* free blocks at once: bounded by their edges, each an item's edge (2 a
   * live item) or a change of until (2 a crossing item's region) */
  sw w;
  int rc = -1;
  if (sw_alloc(&w, 4 * nn + 8, n, lt) || !bys || !cord || !cnt || !ev) goto out;
  if (pk_size_order(in, NULL, 0, bys)) goto out;
  uint64_t H = 0;
  rc = 0;
  /* what lives at t0, stacked: whole-cycle items, then by the point they
   * come back at, the latest lowest (then by size): the blocks they free are
   * free until the same point side by side, so they merge (by size alone:
   * 30,000 items on a cycle of 100 points 1.047 -> 1.044 x LOAD, of 1000
   * points 1.072 -> 1.064): a stable counting sort of size order by the
   * point (d, relative to t0) they start at again, the largest first. */
  size_t nc = 0;
  if (in->cyclic) {
    for (size_t k = 0; k < n; k++)
      if (crosses(in, bys[k], t0)) { cnt[K - 1 - (in->s[bys[k]] + K - t0) % K + 1]++; nc++; }
    for (uint32_t q = 0; q < K; q++) cnt[q + 1] += cnt[q];
    for (size_t k = 0; k < n; k++)
      if (crosses(in, bys[k], t0)) cord[cnt[K - 1 - (in->s[bys[k]] + K - t0) % K]++] = bys[k];
    memset(cnt, 0, sizeof(size_t) * (K + 1));
  }
  for (int pass = 0; pass < 2; pass++)
    for (size_t k = 0; k < nc; k++) {
      size_t i = cord[k];
      int whole = in->len[i] >= K;
      if (whole != !pass || !crosses(in, i, t0)) continue;
      offv[i] = pk_align_up(H, in->align[i]);
      if (offv[i] > H) blk_add(&w, H, offv[i] - H, INF_U); /* padding below: free for good */
      H = offv[i] + in->size[i];
      /* it frees at its end, once (whole-cycle items never) */
      live_add(&w, (uint32_t)i, offv[i], in->size[i], whole ? INF_U : (in->e[i] + K - t0) % K);
      if (pk_cut(in, offv, i)) { rc = 1; goto out; }
    }
  /* events in unrolled time d = t - t0 (mod K) at 2d: ends (2d) before
   * starts (2d + 1), each kind by size, larger first: a stable counting
   * sort of size order, each event made in its place */
  size_t ne = 0;
  for (int pass = 0; pass < 2; pass++) {
    for (size_t k = 0; k < n; k++) {
      size_t i = bys[k];
      uint32_t d = (in->s[i] + K - t0) % K, len = in->len[i];
      uint64_t sz = in->size[i];
      if (crosses(in, i, t0)) {
        if (len >= K) continue;                       /* never freed */
        uint32_t de = (in->e[i] + K - t0) % K;        /* dies at de, back at d */
        if (!pass) { cnt[2 * de + 1]++; ne++; }
        else ev[cnt[2 * de]++] = (swev){sz, offv[i], (uint32_t)i, d, NIL, EV_FREE};
        continue;
      }
      uint32_t ks = 2 * d + 1, ke = 2 * (d + len);
      if (!pass) { cnt[ks + 1]++; cnt[ke + 1]++; ne += 2; continue; }
      size_t ps = cnt[ks]++, pe = cnt[ke]++;
      ev[ps] = (swev){sz, in->align[i], (uint32_t)i, d + len, (uint32_t)pe, EV_START};
      ev[pe] = (swev){sz, 0, (uint32_t)i, 0, NIL, EV_FREE};
    }
    if (!pass)
      for (uint32_t q = 0; q < 2 * K + 2; q++) cnt[q + 1] += cnt[q];
  }
  for (size_t k = 0; k < ne; k++) {
    const swev *e = &ev[k];
    EV_AHEAD(&w, ev, k, ne);
    uint32_t i = e->i;
    if (e->fe == NIL) { /* free */
      live_del(&w, i, e->a, e->size);
      uint32_t b = blk_add(&w, e->a, e->size, e->t);
      if (w.b[b].until == INF_U && w.b[b].off + w.b[b].size == H) { H = w.b[b].off; blk_del(&w, b); }
      continue;
    }
    uint32_t u;
    uint64_t o = offv[i] = sw_place(&w, i, e->size, e->a, e->t, &H, &u);
    ev[e->fe].a = o;
    ev[e->fe].t = u;
    if (pk_cut(in, offv, i)) { rc = 1; goto out; }
  }
  pk_charge((uint64_t)ne * 8);
out:
  pk_mem_free(bys); pk_mem_free(cord); pk_mem_free(cnt); pk_mem_free(ev);
  sw_release(&w);
  return rc;
}

int pk_sweep(const pk_inst *in, uint64_t *off) { return pk_sweep_cuts(in, off, 1, 0); }

/* More cuts (up to 8): a quarter, half, three quarters of the cycle on
 * from the least loaded point, then the odd eighths; the lowest packing
 * kept (the first on a tie). Random long-lived cycles, 30,000 items, 6
 * seeds, the quarter cut: T = 100 better on all (0.986-0.999 x), T = 1000
 * on four (0.983-1.008 x); the most loaded point, the time-reversed
 * instance or long crossing arcs lowest gained less. */
int pk_sweep_cuts(const pk_inst *in, uint64_t *off, int cuts, int lt) {
  uint32_t K = in->K, t0 = 0;
  /* the cut: the least loaded point of a cycle (a line's first point) */
  if (in->cyclic) {
    uint64_t *prof = pk_mem_alloc(sizeof(uint64_t) * (K ? K : 1));
    if (!prof) return -1;
    pk_profile(in, prof, 0);
    for (uint32_t t = 1; t < K; t++)
      if (prof[t] < prof[t0]) t0 = t;
    pk_mem_free(prof);
  }
  int rc = sweep_run(in, t0, lt, off);
  if (rc || cuts < 2 || !in->cyclic) return rc;
  uint64_t *tmp = pk_mem_alloc(sizeof(uint64_t) * (in->n ? in->n : 1));
  if (!tmp) return -1;
  /* the further cuts, in eighths of the cycle on from t0 */
  static const uint32_t eighth[8] = {0, 2, 4, 6, 1, 3, 5, 7};
  uint64_t mk = pk_makespan(in, off);
  for (int c = 1; c < cuts && c < 8 && (uint32_t)c < K; c++) {
    int r2 = sweep_run(in, (uint32_t)((t0 + (uint64_t)K * eighth[c] / 8) % K), lt, tmp);
    if (r2 < 0) { rc = -1; break; }
    uint64_t m2 = r2 ? UINT64_MAX : pk_makespan(in, tmp);
    if (m2 < mk) { mk = m2; memcpy(off, tmp, sizeof(uint64_t) * in->n); }
  }
  pk_mem_free(tmp);
  return rc;
}


/* ---- peak sweeps: from the most loaded point outwards ----
 * The sweep's heap fragments as it goes (along a cycle of T = 1000 it ends
 * about a tenth above where it started), so the point it starts from is the
 * one it packs best. A peak sweep starts at the most loaded point p: what
 * lives there is stacked at the bottom, then one sweep runs forward from p
 * and one backward (time reversed), each meeting fragmentation only where
 * the load is lower. On a cycle they meet at the least loaded point m: the
 * forward half places the items that start before m, those alive at m
 * included; to the backward half those are fixed, each claiming its block
 * when (going backward) it begins, so until then the block is free only for
 * what ends before. */

#define NONE_T UINT32_MAX
/* What one half knows: role[i] 1 stacked (offv set; its block frees at
 * fr[i], 0 at the start, NONE_T never, and stays free until un[i]), 2 swept
 * (alive [ds, fr) of the half's time), 3 fixed (offv set, claims its block
 * at ds and keeps it), 0 not in this half. */
typedef struct half {
  const pk_inst *in;
  uint8_t *role;
  uint32_t *ds, *fr, *un;
  size_t *stk, ns, *fix, nf, *cnt; /* cnt: a counting sort's, 2 K + 7 */
  swev *ev;                        /* the events (kind: EV_*) */
  const size_t *bys;
  uint64_t *offv;
  sw w;
} half;

/* Frees [a, b) until u, but the parts of fixed items' blocks only until
 * they claim them. */
static void add_split(half *h, uint64_t a, uint64_t b, uint32_t u) {
  const uint64_t *off = h->offv, *size = h->in->size;
  size_t lo = 0, hi = h->nf;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2, f = h->fix[mid];
    if (off[f] + size[f] <= a) lo = mid + 1; else hi = mid;
  }
  for (size_t k = lo; k < h->nf && a < b; k++) {
    size_t f = h->fix[k];
    uint64_t fo = off[f], fe = fo + size[f];
    if (fo >= b) break;
    if (fo > a) { blk_add(&h->w, a, fo - a, u); a = fo; }
    uint64_t z = fe < b ? fe : b;
    blk_add(&h->w, a, z - a, h->ds[f] < u ? h->ds[f] : u);
    a = z;
  }
  if (a < b) blk_add(&h->w, a, b - a, u);
}
/* A fixed item claims [o, o + sz), all free by then; 0 when it was not
 * (never, by construction: the half then gives up) */
static int carve(sw *w, uint64_t o, uint64_t sz) {
  uint64_t e = o + sz, got = 0;
  for (;;) {
    uint32_t x = NIL; /* the last block below e */
    for (uint32_t y = w->O.root; y != NIL;) {
      if (w->b[y].off < e) { x = y; y = w->b[y].c[1][1]; } else y = w->b[y].c[1][0];
    }
    if (x == NIL || w->b[x].off + w->b[x].size <= o) break;
    uint64_t bo = w->b[x].off, be = bo + w->b[x].size;
    uint32_t u = w->b[x].until;
    blk_del(w, x);
    got += (be < e ? be : e) - (bo > o ? bo : o);
    if (bo < o) blk_add(w, bo, o - bo, u);
    if (be > e) blk_add(w, e, be - e, u);
  }
  return got == sz;
}

static int sweep_half(half *h, uint64_t H0) {
  const pk_inst *in = h->in;
  sw *w = &h->w;
  size_t n = in->n;
  uint64_t *offv = h->offv;
  w->S.root = w->U.root = w->O.root = NIL;
  w->nfree = w->nblk = 0;
  uint64_t H = 0;
  for (size_t k = 0; k < h->ns; k++) { /* the stack: padding free for good, blocks free from the start */
    size_t i = h->stk[k];
    if (offv[i] > H) add_split(h, H, offv[i], INF_U);
    H = offv[i] + in->size[i];
    if (h->fr[i] == 0) add_split(h, offv[i], H, h->un[i]);
    else live_add(w, (uint32_t)i, offv[i], in->size[i], w->lt ? w->endt[i] : INF_U);
  }
  H = H0;
  if (h->nf) { /* fixed items above the stack: the top starts above them */
    size_t f = h->fix[h->nf - 1];
    uint64_t FH = offv[f] + in->size[f];
    if (FH > H) { add_split(h, H, FH, INF_U); H = FH; }
  }
  /* the events in time order (ends before starts, each by size, larger
   * first), made in their places by a stable counting sort of size order */
  size_t ne = 0, *cnt = h->cnt;
  swev *ev = h->ev;
  memset(cnt, 0, sizeof(size_t) * (2 * (size_t)in->K + 7));
  for (int pass = 0; pass < 2; pass++) {
    for (size_t k = 0; k < n; k++) {
      size_t i = h->bys[k];
      uint8_t ro = h->role[i];
      if (!ro) continue;
      uint32_t ks = ro >= 2 ? 2 * h->ds[i] + 1 : 0, ke = ro != 3 ? 2 * h->fr[i] : 0;
      uint64_t sz = in->size[i];
      if (ro == 1 && h->fr[i] != 0 && h->fr[i] != NONE_T) {
        if (!pass) { cnt[ke + 1]++; ne++; }
        else ev[cnt[ke]++] = (swev){sz, offv[i], (uint32_t)i, h->un[i], NIL, EV_SFREE};
      } else if (ro == 3) {
        if (!pass) { cnt[ks + 1]++; ne++; }
        else ev[cnt[ks]++] = (swev){sz, offv[i], (uint32_t)i, w->lt ? w->endt[i] : INF_U, NIL, EV_CLAIM};
      } else if (ro == 2) {
        if (!pass) { cnt[ks + 1]++; cnt[ke + 1]++; ne += 2; continue; }
        size_t ps = cnt[ks]++, pe = cnt[ke]++;
        ev[ps] = (swev){sz, in->align[i], (uint32_t)i, h->fr[i], (uint32_t)pe, EV_START};
        ev[pe] = (swev){sz, 0, (uint32_t)i, 0, NIL, EV_FREE};
      }
    }
    if (!pass)
      for (size_t q = 0; q + 1 < 2 * (size_t)in->K + 7; q++) cnt[q + 1] += cnt[q];
  }
  for (size_t k = 0; k < ne; k++) {
    const swev *e = &ev[k];
    uint32_t i = e->i;
    EV_AHEAD(w, ev, k, ne);
    if (e->kind == EV_FREE || e->kind == EV_SFREE) {
      uint32_t b;
      live_del(w, i, e->a, e->size);
      if (e->kind == EV_SFREE) { /* a stacked block: fixed items' parts of it only until they claim them */
        add_split(h, e->a, e->a + e->size, e->t);
        b = NIL;
        for (uint32_t y = w->O.root; y != NIL; y = w->b[y].c[1][1]) b = y; /* the top block */
      } else
        b = blk_add(w, e->a, e->size, e->t);
      /* a block free for good at the top lowers the heap */
      if (b != NIL && w->b[b].until == INF_U && w->b[b].off + w->b[b].size == H) { H = w->b[b].off; blk_del(w, b); }
      continue;
    }
    if (e->kind == EV_CLAIM) {
      if (!carve(w, e->a, e->size)) return 1;
      live_add(w, i, e->a, e->size, e->t);
      continue;
    }
    uint32_t u;
    uint64_t o = offv[i] = sw_place(w, i, e->size, e->a, e->t, &H, &u);
    ev[e->fe].a = o;
    ev[e->fe].t = u;
    if (pk_cut(in, offv, i)) return 1;
  }
  pk_charge((uint64_t)ne * 8);
  return 0;
}

/* The peak sweep from point p, the halves meeting at m (a line: its end);
 * stack orders what lives at p above the whole-cycle items: 0 by size, 1
 * the latest end lowest, 2 the latest (re)start lowest. */
static int sweep_peak_at(const pk_inst *in, uint32_t p, uint32_t m, int stack, int lt, uint64_t *offv) {
  size_t n = in->n, nn = n ? n : 1;
  uint32_t K = in->K;
  uint32_t mm = in->cyclic ? (m + K - p) % K : K - p;
  if (!mm) mm = K;
  half h;
  memset(&h, 0, sizeof h);
  h.in = in;
  h.offv = offv;
  uint32_t *d = pk_mem_alloc(sizeof(uint32_t) * nn);
  uint8_t *cr = pk_mem_alloc(nn);
  size_t *bys = pk_mem_alloc(sizeof(size_t) * nn);
  pk_kv *kv = pk_mem_alloc(sizeof(pk_kv) * nn);
  h.role = pk_mem_alloc(nn);
  h.ds = pk_mem_alloc(sizeof(uint32_t) * nn); h.fr = pk_mem_alloc(sizeof(uint32_t) * nn);
  h.un = pk_mem_alloc(sizeof(uint32_t) * nn);
  h.cnt = pk_mem_alloc(sizeof(size_t) * (2 * (size_t)K + 7));
  h.stk = pk_mem_alloc(sizeof(size_t) * nn); h.fix = pk_mem_alloc(sizeof(size_t) * nn);
  h.ev = pk_mem_alloc(sizeof(swev) * 2 * nn);
  h.bys = bys;
  int rc = sw_alloc(&h.w, 4 * nn + 8, n, lt);
  if (rc || !d || !cr || !bys || !kv || !h.role || !h.ds || !h.fr || !h.un || !h.cnt || !h.stk ||
      !h.fix || !h.ev || pk_size_order(in, NULL, 0, bys)) {
    rc = -1;
    goto out;
  }
  /* d: start relative to p; the stack: whole-cycle items, then the rest of
   * what lives at p */
  size_t ns = 0;
  for (size_t k = 0; k < n; k++) {
    size_t i = bys[k];
    uint32_t len = in->len[i];
    d[i] = (in->s[i] + K - p) % K;
    cr[i] = (uint8_t)(len >= K || d[i] == 0 || d[i] + len > K);
    if (cr[i])
      kv[ns++] = (pk_kv){len >= K ? 0 : stack == 0 ? 1 : stack == 1 ? 1 + K - (d[i] + len - K) : 1 + K - d[i], k, i};
  }
  pk_sort_kv(kv, ns);
  uint64_t H = 0;
  for (size_t k = 0; k < ns; k++) {
    size_t i = h.stk[k] = kv[k].i;
    offv[i] = pk_align_up(H, in->align[i]);
    H = offv[i] + in->size[i];
    if (pk_cut(in, offv, i)) { rc = 1; goto out; }
  }
  h.ns = ns;
  for (int back = 0; back < 2 && !rc; back++) {
    for (size_t i = 0; i < n; i++) {
      uint32_t a = d[i], len = in->len[i];
      h.role[i] = 0;
      if (len >= K) { h.role[i] = 1; h.fr[i] = NONE_T; h.un[i] = INF_U; }
      else if (cr[i] && a == 0) { /* starts at p: alive on [0, len) */
        h.role[i] = 1;
        h.fr[i] = back ? 1 : len;
        h.un[i] = back ? K - len + 1 : K;
      } else if (cr[i]) { /* alive on [a, K) and [0, a + len - K) */
        h.role[i] = 1;
        h.fr[i] = back ? K - a + 1 : a + len - K;
        h.un[i] = back ? 2 * K - a - len + 1 : a;
      } else if (!back && a < mm) {
        h.role[i] = 2; h.ds[i] = a; h.fr[i] = a + len;
      } else if (back && a >= mm) {
        h.role[i] = 2; h.ds[i] = K - a - len + 1; h.fr[i] = K - a + 1;
      } else if (back && a + len > mm) { /* placed by the forward half, alive at m */
        h.role[i] = 3; h.ds[i] = K - a - len + 1;
      }
    }
    /* back after everything swept in the half has ended: free for good
     * (the top may come down through it) */
    uint32_t lim = 0;
    for (size_t i = 0; i < n; i++)
      if (h.role[i] == 2 && h.fr[i] > lim) lim = h.fr[i];
    for (size_t i = 0; i < n; i++)
      if (h.role[i] == 1 && h.un[i] >= lim) h.un[i] = INF_U;
    h.nf = 0;
    if (back) { /* the fixed items by offset (alive together at m: disjoint) */
      for (size_t i = 0; i < n; i++)
        if (h.role[i] == 3) kv[h.nf++] = (pk_kv){offv[i], 0, i};
      pk_sort_kv(kv, h.nf);
      for (size_t k = 0; k < h.nf; k++) h.fix[k] = kv[k].i;
    }
    if (h.w.lt) {
      for (size_t i = 0; i < n; i++)
        h.w.endt[i] = h.role[i] == 2 ? h.fr[i] : h.role[i] == 1 && h.fr[i] != NONE_T ? h.fr[i] : INF_U;
      nb_clear(&h.w.top);
      nb_clear(&h.w.bot);
    }
    rc = sweep_half(&h, H);
  }
out:
  pk_mem_free(d); pk_mem_free(cr); pk_mem_free(bys); pk_mem_free(kv);
  pk_mem_free(h.role); pk_mem_free(h.ds); pk_mem_free(h.fr); pk_mem_free(h.un); pk_mem_free(h.cnt);
  pk_mem_free(h.stk); pk_mem_free(h.fix); pk_mem_free(h.ev);
  sw_release(&h.w);
  return rc;
}

int pk_sweep_peak(const pk_inst *in, uint64_t *off, int stack, int lt) {
  uint32_t K = in->K, c = 0, p = 0;
  uint64_t *prof = pk_mem_alloc(sizeof(uint64_t) * (K ? K : 1));
  if (!prof) return -1;
  pk_profile(in, prof, 0);
  for (uint32_t t = 1; t < K; t++) {
    if (prof[t] < prof[c]) c = t;
    if (prof[t] > prof[p]) p = t;
  }
  pk_mem_free(prof);
  return sweep_peak_at(in, p, c, stack, lt, off);
}
