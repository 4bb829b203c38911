/* Lower bounds on a cycle beyond LOAD. Arcs of a cycle can meet pairwise
 * without sharing a point, so the heaviest set of pairwise-meeting items (a
 * clique of the conflict graph) can weigh more than LOAD; any clique is a
 * lower bound on every packing, so capped or greedy searches stay valid.
 * On a line every clique shares a point (Helly) and LOAD is the bound. */
#include "pack_bound.h"
#include "pack_sort.h"
#include <stdlib.h>
#include <string.h>

/* The heaviest clique by branch and bound over the conflict bits, heaviest
 * items first, with a node cap. */
typedef struct cq {
  const pk_inst *in;
  uint64_t best, nodes, cap;
  uint32_t *members, nbest, *stack;
} cq;

static void cq_rec(cq *c, uint32_t *cand, size_t nc, uint64_t cur, uint32_t depth) {
  if (++c->nodes > c->cap) return;
  if (cur > c->best) {
    c->best = cur;
    c->nbest = depth;
    memcpy(c->members, c->stack, sizeof(uint32_t) * depth);
  }
  uint64_t rest = 0;
  for (size_t k = 0; k < nc; k++) rest += c->in->size[cand[k]];
  if (cur + rest <= c->best) return;
  uint32_t *nx = cand + nc; /* children live after the parent's list */
  for (size_t k = 0; k < nc && c->nodes <= c->cap; k++) {
    uint32_t v = cand[k];
    size_t m = 0;
    for (size_t q = k + 1; q < nc; q++)
      if (pk_conflict(c->in, v, cand[q])) nx[m++] = cand[q];
    c->stack[depth] = v;
    cq_rec(c, nx, m, cur + c->in->size[v], depth + 1);
    rest -= c->in->size[v];
    if (cur + rest <= c->best) break;
  }
}

/* Exact up to the node cap (small n: it needs n^2/2 candidate slots). */
uint64_t pk_clique_exact(const pk_inst *in, uint64_t cap, uint64_t *real) {
  size_t n = in->n;
  *real = 0;
  uint32_t *cand = malloc(sizeof(uint32_t) * (n * (n + 1) / 2 + n + 1));
  uint32_t *mem = malloc(sizeof(uint32_t) * (n + 1)), *stack = malloc(sizeof(uint32_t) * (n + 1));
  pk_kv *kv = malloc(sizeof(pk_kv) * (n ? n : 1));
  if (!cand || !mem || !stack || !kv) { free(cand); free(mem); free(stack); free(kv); return 0; }
  for (size_t i = 0; i < n; i++) kv[i] = (pk_kv){UINT64_MAX - in->size[i], 0, i};
  pk_sort_kv(kv, n);
  for (size_t i = 0; i < n; i++) cand[i] = (uint32_t)kv[i].i;
  cq c = {in, 0, 0, cap, mem, 0, stack};
  cq_rec(&c, cand, n, 0, 0);
  for (uint32_t k = 0; k < c.nbest; k++) *real += in->items[mem[k]].size;
  free(cand); free(mem); free(stack); free(kv);
  return c.best;
}

/* Grows a clique from the members already in c[0..nc), taking every item in
 * ord (longest first) that meets all members; at most cap arc tests. */
static size_t grow(const pk_inst *in, const uint32_t *ord, const char *in_c, uint32_t *c, size_t nc,
                   uint64_t cap) {
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
  uint32_t *ord = malloc(sizeof(uint32_t) * n), *c = malloc(sizeof(uint32_t) * n);
  uint32_t *cnt = calloc((size_t)K + 2, sizeof(uint32_t));
  uint64_t *prof = malloc(sizeof(uint64_t) * K);
  char *in_c = calloc(n, 1);
  uint64_t best = 0;
  if (!ord || !c || !cnt || !prof || !in_c) goto out;
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
      if (seed || nc) nc = grow(in, ord, in_c, c, nc, cap);
      if (cache && (cache->clique[seed] || (cache->clique[seed] = malloc(sizeof(uint32_t) * n)))) {
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
  free(ord); free(c); free(cnt); free(prof); free(in_c);
  return best;
}
