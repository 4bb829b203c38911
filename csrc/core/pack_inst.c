/* The normalised instance (pack_inst.h): building it from items, its
 * mirror in time, load profiles, makespans, the size orders the
 * baselines share and the conflict matrix. */
#include "pack_inst.h"
#include "pack_mem.h"
#include "pack_check.h"
#include "pack_sort.h"
#include <stdlib.h>
#include <string.h>

uint32_t pk_size_rank(const pk_inst *in, uint32_t *rank) {
  size_t n = in->n;
  pk_kv *kv = pk_mem_alloc(sizeof(pk_kv) * (n ? n : 1));
  if (!kv) return 0;
  fg_pack_cache *c = in->cache;
  const uint32_t *warm = c ? c->size_ord : NULL; /* the last call's order: sizes changed, it barely */
  for (size_t k = 0; k < n; k++) {
    size_t i = warm ? warm[k] : k;
    kv[k] = (pk_kv){UINT64_MAX - in->size[i], 0, i};
  }
  if (warm) pk_sort_kv_warm(kv, n);
  else pk_sort_kv(kv, n);
  if (c && (c->size_ord || (c->size_ord = pk_mem_alloc(sizeof(uint32_t) * (n ? n : 1)))))
    for (size_t k = 0; k < n; k++) c->size_ord[k] = (uint32_t)kv[k].i;
  uint32_t r = 0;
  for (size_t k = 0; k < n; k++) {
    if (k && kv[k].k != kv[k - 1].k) r++;
    rank[kv[k].i] = r;
  }
  pk_mem_free(kv);
  return n ? r + 1 : 1;
}

int pk_size_order(const pk_inst *in, const uint32_t *key2, uint32_t nk2, size_t *ord) {
  size_t n = in->n;
  const uint32_t *rk = in->srank;
  uint32_t nr = in->nsrank, *own = NULL;
  size_t *ids = pk_mem_alloc(sizeof(size_t) * (n ? n : 1));
  int rc = -1;
  if (!ids) return -1;
  if (!rk) {
    own = pk_mem_alloc(sizeof(uint32_t) * (n ? n : 1));
    if (!own || !(nr = pk_size_rank(in, own))) goto out;
    rk = own;
  }
  for (size_t i = 0; i < n; i++) ids[i] = i;
  if (key2 && pk_csort(key2, nk2, ids, n, ord)) goto out;
  rc = pk_csort(rk, nr, key2 ? ord : ids, n, key2 ? ids : ord);
  if (!rc && key2) memcpy(ord, ids, sizeof(size_t) * n);
out:
  pk_mem_free(ids); pk_mem_free(own);
  return rc;
}

void pk_free(pk_inst *in) {
  pk_mem_free(in->len);
  pk_mem_free(in->s);
  pk_mem_free(in->e);
  pk_mem_free(in->size);
  pk_mem_free(in->align);
  memset(in, 0, sizeof *in);
}

int pk_build(pk_inst *in, const fg_pack_item *items, size_t n, const fg_pack_desc *desc) {
  memset(in, 0, sizeof *in);
  in->n = n;
  in->items = items;
  in->cyclic = desc->period > 0;
  size_t nn = n ? n : 1;
  in->s = pk_mem_alloc(sizeof(uint32_t) * nn);
  in->e = pk_mem_alloc(sizeof(uint32_t) * nn);
  in->len = pk_mem_alloc(sizeof(uint32_t) * nn);
  in->size = pk_mem_alloc(sizeof(uint64_t) * nn);
  in->align = pk_mem_alloc(sizeof(uint64_t) * nn);
  uint64_t *v = pk_mem_alloc(sizeof(uint64_t) * 2 * nn);
  if (!in->s || !in->e || !in->len || !in->size || !in->align || !v) {
    pk_mem_free(v);
    pk_free(in);
    return -1;
  }
  size_t m = 0;
  uint64_t vmax = 0;
  for (size_t i = 0; i < n; i++) {
    v[m++] = items[i].start;
    v[m++] = pk_norm_stop(&items[i], desc->period);
    if (v[m - 2] > vmax) vmax = v[m - 2];
    if (v[m - 1] > vmax) vmax = v[m - 1];
  }
  int kinds = 0;
  uint32_t K = 0;
  /* small time values (a frame graph's 2|V| steps): a rank table instead
   * of sorting and binary searches */
  uint32_t *rank = vmax < 8 * (uint64_t)m + 1024 ? pk_mem_calloc((size_t)vmax + 1, sizeof(uint32_t)) : NULL;
  if (rank) {
    for (size_t k = 0; k < m; k++) rank[v[k]] = 1;
    for (uint64_t t = 0; t <= vmax; t++) {
      uint32_t used = rank[t];
      rank[t] = K;
      K += used;
    }
    for (size_t i = 0; i < n; i++) {
      in->s[i] = rank[v[2 * i]];
      in->e[i] = rank[v[2 * i + 1]];
      kinds |= items[i].kind ? 2 : 1;
    }
    pk_mem_free(rank);
  } else {
    pk_sort_u64(v, m);
    for (size_t k = 0; k < m; k++)
      if (K == 0 || v[K - 1] != v[k]) v[K++] = v[k];
    for (size_t i = 0; i < n; i++) {
      in->s[i] = pk_find_pt(v, K, items[i].start);
      in->e[i] = pk_find_pt(v, K, pk_norm_stop(&items[i], desc->period));
      kinds |= items[i].kind ? 2 : 1;
    }
  }
  in->K = K ? K : 1;
  pk_set_len(in);
  pk_mem_free(v);
  /* Granularity: items of kind 1 are rounded to whole pages (size and
   * alignment) so no kind-0 item can ever share one of their pages. */
  uint64_t g = desc->granularity;
  in->gran = (g > 1 && kinds == 3) ? g : 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t a = items[i].align ? items[i].align : 1, sz = items[i].size;
    if (in->gran && items[i].kind) {
      if (a < g) a = g;
      sz = fg_align_up(sz, g);
    }
    in->size[i] = sz;
    in->align[i] = a;
  }
  return 0;
}

void pk_set_len(pk_inst *in) {
  for (size_t i = 0; i < in->n; i++) {
    uint32_t a = in->s[i], b = in->e[i];
    in->len[i] = a == b ? in->K : a < b ? b - a : in->K - a + b;
  }
}

/* out: in with its own time arrays (to be filled) and copies of the sizes
 * and alignments; no cache (it is keyed by in's lifetimes). 0 or -1 on OOM. */
static int derive(const pk_inst *in, pk_inst *out) {
  *out = *in;
  out->cache = NULL;
  size_t nn = in->n ? in->n : 1;
  out->s = pk_mem_alloc(sizeof(uint32_t) * nn);
  out->e = pk_mem_alloc(sizeof(uint32_t) * nn);
  out->len = pk_mem_alloc(sizeof(uint32_t) * nn);
  out->size = pk_mem_alloc(sizeof(uint64_t) * nn);
  out->align = pk_mem_alloc(sizeof(uint64_t) * nn);
  if (!out->s || !out->e || !out->len || !out->size || !out->align) {
    pk_free(out);
    return -1;
  }
  memcpy(out->size, in->size, sizeof(uint64_t) * in->n);
  memcpy(out->align, in->align, sizeof(uint64_t) * in->n);
  return 0;
}

int pk_reverse(const pk_inst *in, pk_inst *out) {
  if (derive(in, out)) return -1;
  uint32_t K = in->K;
  for (size_t i = 0; i < in->n; i++) {
    uint32_t a = in->s[i], b = in->e[i];
    if (!in->cyclic) { /* points 0..K-2 are covered; mirror them */
      out->s[i] = K - 1 - b;
      out->e[i] = K - 1 - a;
    } else if (a == b) {
      out->s[i] = out->e[i] = a;
    } else {
      out->s[i] = (K - b) % K;
      out->e[i] = (K - a) % K;
    }
  }
  pk_set_len(out);
  return 0;
}

int64_t pk_free_cut(const pk_inst *in) {
  uint32_t K = in->K;
  int32_t *d = pk_mem_calloc((size_t)K + 1, sizeof(int32_t));
  if (!d) return -1;
  for (size_t i = 0; i < in->n; i++) {
    uint32_t a = in->s[i] + 1, z = in->s[i] + in->len[i]; /* crosses the boundaries before points [a, z) */
    if (in->s[i] == in->e[i] || a >= z) continue;
    if (z <= K) { d[a]++; d[z]--; }
    else if (a >= K) { d[a - K]++; d[z - K]--; }
    else { d[a]++; d[K]--; d[0]++; d[z - K]--; }
  }
  int32_t run = 0;
  int64_t cut = -1;
  for (uint32_t t = 0; t < K && cut < 0; t++)
    if ((run += d[t]) == 0) cut = t;
  pk_mem_free(d);
  return cut;
}

int pk_line_at(const pk_inst *in, uint32_t c, fg_pack_item *items, pk_inst *out) {
  if (derive(in, out)) return -1;
  uint32_t K = in->K;
  for (size_t i = 0; i < in->n; i++) {
    uint32_t a = in->s[i] == in->e[i] ? 0 : in->s[i] >= c ? in->s[i] - c : in->s[i] + K - c;
    out->s[i] = a;
    out->len[i] = in->len[i];
    out->e[i] = a + in->len[i]; /* <= K: nothing crosses the cut */
    items[i] = in->items[i];
    items[i].start = a; /* a line's search reads lengths off the items */
    items[i].stop = out->e[i];
  }
  out->items = items;
  out->K = K + 1;
  out->cyclic = 0;
  return 0;
}

uint64_t pk_makespan(const pk_inst *in, const uint64_t *off) {
  uint64_t m = 0; /* the real sizes: rounding for granularity is not memory */
  for (size_t i = 0; i < in->n; i++)
    if (off[i] + in->items[i].size > m) m = off[i] + in->items[i].size;
  return m;
}

uint64_t pk_profile(const pk_inst *in, uint64_t *prof, int real) {
  uint32_t K = in->K;
  int64_t *d = pk_mem_calloc((size_t)K + 1, sizeof(int64_t));
  if (!d) return 0;
  for (size_t i = 0; i < in->n; i++) {
    int64_t sz = (int64_t)(real ? in->items[i].size : in->size[i]);
    uint32_t a = in->s[i], b = in->e[i];
    if (a == b) { d[0] += sz; d[K] -= sz; }
    else if (a < b) { d[a] += sz; d[b] -= sz; }
    else { d[a] += sz; d[K] -= sz; d[0] += sz; d[b] -= sz; }
  }
  int64_t cur = 0;
  uint64_t best = 0;
  for (uint32_t t = 0; t < K; t++) {
    cur += d[t];
    if (prof) prof[t] = (uint64_t)cur;
    if ((uint64_t)cur > best) best = (uint64_t)cur;
  }
  pk_mem_free(d);
  return best;
}

/* Sparse conflicts (short lifetimes, many points): a bit per pair, each
 * pair found once as "j starts inside i's arc" (one run of the items by
 * start, two when the arc wraps) and set in both rows. */
static uint64_t *bits_by_pairs(const pk_inst *in, const uint32_t *at, const uint32_t *st, size_t w) {
  size_t n = in->n;
  uint32_t K = in->K;
  uint64_t *bits = pk_mem_calloc(n * w + 1, sizeof(uint64_t));
  if (!bits) return NULL;
  for (size_t i = 0; i < n; i++) {
    uint64_t *row = bits + i * w;
    uint32_t a = in->s[i], z = a + in->len[i];
    for (int part = 0; part < 2; part++) {
      uint32_t q0 = part ? at[0] : at[a], q1 = part ? (z > K ? at[z - K] : 0) : at[z < K ? z : K];
      for (uint32_t q = q0; q < q1; q++) {
        size_t j = st[q];
        row[j >> 6] |= 1ull << (j & 63);
        bits[j * w + (i >> 6)] |= 1ull << (i & 63);
      }
    }
    row[i >> 6] &= ~(1ull << (i & 63));
  }
  return bits;
}

uint64_t *pk_conflict_bits(const pk_inst *in, size_t *words) {
  size_t n = in->n, w = (n + 63) / 64;
  uint32_t K = in->K;
  /* Two arcs meet iff one holds the other's start: row i is A(s_i), the
   * items alive at i's start, or'ed with the items starting inside i's arc,
   * P(z) & ~P(a) with P(t) the items starting before point t. A sweep over
   * the points keeps A; P is a table of K + 1 rows (K <= 2n: at most twice
   * the matrix). Word operations only: n w + K w words, not a bit per pair;
   * where the pairs are far fewer than that (a large frame graph's short
   * lifetimes), bits_by_pairs instead. */
  uint64_t *bits = NULL;
  uint64_t *P = NULL, *A = NULL;
  uint32_t *at = pk_mem_calloc((size_t)K + 1, sizeof(uint32_t)), *et = pk_mem_calloc((size_t)K + 1, sizeof(uint32_t));
  uint32_t *st = pk_mem_alloc(sizeof(uint32_t) * (n ? n : 1)), *en = pk_mem_alloc(sizeof(uint32_t) * (n ? n : 1));
  if (!at || !et || !st || !en) goto out;
  for (size_t i = 0; i < n; i++) { /* items by start point and by end point (CSR) */
    at[in->s[i] + 1]++;
    if (in->len[i] < K) et[(in->s[i] + in->len[i]) % K + 1]++;
  }
  for (uint32_t t = 0; t < K; t++) { at[t + 1] += at[t]; et[t + 1] += et[t]; }
  for (size_t i = 0; i < n; i++) {
    st[at[in->s[i]]++] = (uint32_t)i;
    if (in->len[i] < K) en[et[(in->s[i] + in->len[i]) % K]++] = (uint32_t)i;
  }
  for (uint32_t t = K; t > 0; t--) { at[t] = at[t - 1]; et[t] = et[t - 1]; }
  at[0] = et[0] = 0;
  uint64_t pairs = 0; /* each meeting pair counted once: j starts inside i's arc */
  for (size_t i = 0; i < n; i++) {
    uint32_t a = in->s[i], z = a + in->len[i];
    pairs += z <= K ? at[z] - at[a] : (at[K] - at[a]) + at[z - K];
  }
  if (4 * pairs < ((uint64_t)n + K) * w) { /* two random bit writes a pair against ~4 word operations */
    bits = bits_by_pairs(in, at, st, w);
    goto out;
  }
  bits = pk_mem_alloc(sizeof(uint64_t) * (n * w + 1));
  P = pk_mem_calloc(((size_t)K + 1) * w + w, sizeof(uint64_t));
  if (!bits || !P) { pk_mem_free(bits); bits = NULL; goto out; }
  A = P + ((size_t)K + 1) * w;
  for (uint32_t t = 0; t < K; t++) {
    uint64_t *p0 = P + (size_t)t * w, *p1 = p0 + w;
    memcpy(p1, p0, sizeof(uint64_t) * w);
    for (uint32_t q = at[t]; q < at[t + 1]; q++) p1[st[q] >> 6] |= 1ull << (st[q] & 63);
  }
  for (size_t i = 0; i < n; i++)
    if (pk_contains(in, i, 0)) A[i >> 6] |= 1ull << (i & 63);
  for (uint32_t t = 0; t < K; t++) {
    if (t) {
      for (uint32_t q = et[t]; q < et[t + 1]; q++) A[en[q] >> 6] &= ~(1ull << (en[q] & 63));
      for (uint32_t q = at[t]; q < at[t + 1]; q++) A[st[q] >> 6] |= 1ull << (st[q] & 63);
    }
    for (uint32_t q = at[t]; q < at[t + 1]; q++) {
      uint32_t i = st[q], z = t + in->len[i];
      uint64_t *row = bits + (size_t)i * w;
      const uint64_t *pa = P + (size_t)t * w;
      if (z <= K) {
        const uint64_t *pz = P + (size_t)z * w;
        for (size_t x = 0; x < w; x++) row[x] = A[x] | (pz[x] & ~pa[x]);
      } else {
        const uint64_t *pk = P + (size_t)K * w, *pz = P + (size_t)(z - K) * w;
        for (size_t x = 0; x < w; x++) row[x] = A[x] | (pk[x] & ~pa[x]) | pz[x];
      }
      row[i >> 6] &= ~(1ull << (i & 63));
    }
  }
out:
  if (bits) *words = w;
  pk_mem_free(P); pk_mem_free(at); pk_mem_free(et); pk_mem_free(st); pk_mem_free(en);
  return bits;
}

_Thread_local pk_clock *pk_clk;
/* Charges are about the nanoseconds of each piece of work; read back times
 * WORK_SCALE, which calibrates the whole to the wall time the default budget
 * took (Enlisted, n = 100-200, 300 instances each, side by side with the
 * wall-clock packer: median 0.51-0.55 ms; charged 1:1, 0.85-1.27 ms) */
#define WORK_SCALE 2
uint64_t pk_now(void) { return !pk_clk || pk_clk->wall ? fg_now_ns() : pk_clk->work * WORK_SCALE; }
