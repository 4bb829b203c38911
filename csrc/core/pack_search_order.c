/* pack_search's preorders (WAT, TAW, TWA; a new piece re-ranked as
 * MiniMalloc's SubSolve does) and a decision's set-up: the cut of a cycle,
 * the fixed items, the sections, the lists and adjacency. */
#include "pack_search_int.h"
#include "pack_mem.h"
#include <string.h>

void ps_free(ps *S) {
  pk_mem_free(S->lo); pk_mem_free(S->hi); pk_mem_free(S->adjo); pk_mem_free(S->adj); pk_mem_free(S->seco); pk_mem_free(S->sec);
  pk_mem_free(S->scnt); pk_mem_free(S->spos); pk_mem_free(S->sent); pk_mem_free(S->ibase);
  pk_mem_free(S->floor); pk_mem_free(S->total); pk_mem_free(S->minoff); pk_mem_free(S->sol); pk_mem_free(S->cuts); pk_mem_free(S->placed); pk_mem_free(S->wit);
  pk_mem_free(S->bsol); pk_mem_free(S->bplaced);
  pk_mem_free(S->rank); pk_mem_free(S->raised); pk_mem_free(S->mark); pk_mem_free(S->uidx); pk_mem_free(S->uval); pk_mem_free(S->lbuf);
  pk_mem_free(S->pbuf); pk_mem_free(S->kv); pk_mem_free(S->rbits); pk_mem_free(S->rslot);
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
void ps_set_rank(ps *S, int h, rk *r, const uint64_t *width, const uint64_t *area, const uint64_t *tot) {
  size_t m = 0;
  for (size_t i = 0; i < S->n; i++)
    if (!S->placed[i]) rk_set(S, h, &r[m++], (uint32_t)i, width[i], area[i], tot[i]);
  qsort(r, m, sizeof *r, rk_cmp);
  for (size_t k = 0; k < m; k++) S->rank[r[k].i] = (uint32_t)k + 1;
}

/* A new piece is a new problem: its items are ranked again by the preorder
 * in use with today's section totals, as MiniMalloc's SubSolve does; the old
 * ranks go on the undo stack. */
int ps_rerank(ps *S, const uint32_t *pl, size_t m) {
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
uint32_t ps_cut_point(const pk_inst *in, size_t *ncross) {
  uint32_t K = in->K, t0 = 0;
  *ncross = 0;
  if (!in->cyclic) return 0;
  uint64_t *prof = pk_mem_alloc(sizeof(uint64_t) * K);
  if (!prof) return 0; /* any point will do */
  pk_profile(in, prof, 0);
  for (uint32_t t = 1; t < K; t++)
    if (prof[t] < prof[t0]) t0 = t;
  for (size_t i = 0; i < in->n; i++) *ncross += in->len[i] < K && pk_contains(in, i, t0);
  int any = 0;
  for (size_t i = 0; i < in->n && *ncross; i++) /* arcs wrap: point K-1 must be kept */
    if (in->len[i] < K && (!any || prof[in->e[i] % K] < prof[t0])) { t0 = in->e[i] % K; any = 1; }
  pk_mem_free(prof);
  return t0;
}

/* The decision's buffers (ps_free frees them; area, tot, rks and width are
 * the caller's: freed by decide). 0 or -1 on OOM. */
int ps_decide_alloc(ps *S, int want_partial, uint64_t **area, uint64_t **tot, rk **rks, uint64_t **width) {
  size_t n = S->n, nn = n + 2;
  uint32_t K = S->K;
  S->lo = pk_mem_alloc(sizeof(uint32_t) * n); S->hi = pk_mem_alloc(sizeof(uint32_t) * n);
  S->adjo = pk_mem_calloc(n + 1, sizeof(uint32_t));
  S->seco = pk_mem_calloc((size_t)K + 1, sizeof(uint32_t));
  S->floor = pk_mem_calloc(K, sizeof(uint64_t)); S->total = pk_mem_calloc(K, sizeof(uint64_t));
  S->minoff = pk_mem_calloc(n, sizeof(uint64_t)); S->sol = pk_mem_calloc(n, sizeof(uint64_t));
  S->cuts = pk_mem_calloc(K, sizeof(uint32_t)); S->placed = pk_mem_calloc(n, 1); S->wit = pk_mem_alloc(sizeof(uint32_t) * (K ? K : 1));
  if (want_partial) {
    S->bsol = pk_mem_alloc(sizeof(uint64_t) * n);
    S->bplaced = pk_mem_alloc(n);
    if (!S->bsol || !S->bplaced) return -1;
  }
  S->rank = pk_mem_calloc(n, sizeof(uint32_t)); S->raised = pk_mem_calloc(n, sizeof(uint32_t)); S->mark = pk_mem_calloc(K, sizeof(uint32_t));
  S->lbuf = pk_mem_alloc(sizeof(uint32_t) * n * nn); S->pbuf = pk_mem_alloc(sizeof(uint32_t) * n * nn);
  S->kv = pk_mem_alloc(sizeof(pk_kv) * n);
  S->rwords = (n + 1) / 64 + 1;
  S->rbits = pk_mem_calloc(S->rwords, sizeof(uint64_t)); S->rslot = pk_mem_alloc(sizeof(uint32_t) * (n + 1));
  *area = pk_mem_alloc(sizeof(uint64_t) * n); *tot = pk_mem_calloc(n, sizeof(uint64_t));
  *rks = pk_mem_alloc(sizeof(rk) * n);
#ifndef NO_RERANK
  S->rks = *rks;
#endif
  S->width = *width = pk_mem_alloc(sizeof(uint64_t) * n);
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
uint64_t ps_decide_fix(ps *S, uint32_t t0, size_t ncross, int *exact) {
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
void ps_decide_ranges(ps *S, uint32_t t0, int cyc, uint64_t *width, uint64_t *area) {
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
void ps_decide_sections(ps *S) {
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
int ps_decide_lists(ps *S, uint64_t *tot) {
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
  S->sec = pk_mem_alloc(sizeof(uint32_t) * (ns ? ns : 1));
  S->sent = pk_mem_alloc(sizeof(uint32_t) * (ns ? ns : 1));
  S->spos = pk_mem_alloc(sizeof(uint32_t) * (ns ? ns : 1));
  S->scnt = pk_mem_alloc(sizeof(uint32_t) * (K ? K : 1));
  S->ibase = pk_mem_alloc(sizeof(uint32_t) * (n + 1));
  uint64_t *sbits = pk_mem_calloc((size_t)K * W, sizeof(uint64_t)), *rows = pk_mem_alloc(sizeof(uint64_t) * W * n);
  if (!S->sec || !S->sent || !S->spos || !S->scnt || !S->ibase || !sbits || !rows) { pk_mem_free(sbits); pk_mem_free(rows); return -1; }
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
  S->adj = pk_mem_alloc(sizeof(uint32_t) * (ne ? ne : 1));
  if (!S->adj) { pk_mem_free(sbits); pk_mem_free(rows); return -1; }
  for (size_t i = 0; i < n; i++) {
    if (S->placed[i]) continue;
    uint32_t *a = S->adj + S->adjo[i];
    for (size_t w = 0; w < W; w++)
      for (uint64_t x = rows[i * W + w]; x; x &= x - 1) *a++ = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(x));
  }
  pk_mem_free(sbits); pk_mem_free(rows);
  for (size_t i = 0; i < n; i++)
    if (!S->placed[i])
      for (uint32_t t = S->lo[i]; t < S->hi[i]; t++)
        if (S->total[SX(S, t)] > tot[i]) tot[i] = S->total[SX(S, t)];
  return 0;
}
