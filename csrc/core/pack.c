/* fg_pack: entry point, validation, the independent checker, LOAD, and the
 * simplest strategies (none, pool). Other strategies: pack_greedy.c, pack_best.c. */
#include "pack_internal.h"
#include <stdlib.h>
#include <string.h>

const char *const fg_pack_solvers[] = {"best", "thesis", "scanline", "bysize", "buckets", "pool", "none", NULL};

#define ULL(x) ((unsigned long long)(x))

static int is_pow2(uint64_t a) { return a && !(a & (a - 1)); }

/* ---------------------------------------------------------------- validation */

/* Normalised [start, stop) of item i: cyclic stop == period means 0. */
static int check_items(const fg_pack_item *it, size_t n, uint64_t period, char *err, size_t errlen) {
  for (size_t i = 0; i < n; i++) {
    if (it[i].size == 0) {
      fg_errf(err, errlen, "item %zu: size must be > 0", i + 1);
      return -1;
    }
    if (it[i].align && !is_pow2(it[i].align)) {
      fg_errf(err, errlen, "item %zu: align %llu is not a power of two", i + 1, ULL(it[i].align));
      return -1;
    }
    if (period) {
      if (it[i].start >= period || it[i].stop > period) {
        fg_errf(err, errlen, "item %zu: start %llu / stop %llu outside the cycle [0, %llu) (period)",
                i + 1, ULL(it[i].start), ULL(it[i].stop), ULL(period));
        return -1;
      }
    } else if (it[i].start >= it[i].stop) {
      fg_errf(err, errlen,
              "item %zu: start %llu must be < stop %llu on a linear timeline (set a period for cyclic lifetimes)",
              i + 1, ULL(it[i].start), ULL(it[i].stop));
      return -1;
    }
  }
  return 0;
}

static uint64_t norm_stop(const fg_pack_item *it, uint64_t period) {
  return (period && it->stop == period) ? 0 : it->stop;
}

/* ------------------------------------------------------------------- LOAD */

typedef struct ev { uint64_t t; int64_t d; } ev;
static int ev_cmp(const void *a, const void *b) {
  const ev *x = a, *y = b;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  return (x->d > y->d) - (x->d < y->d); /* ends (negative) first */
}

uint64_t fg_pack_load(const fg_pack_item *items, size_t n, uint64_t period) {
  if (n == 0) return 0;
  ev *e = malloc(sizeof(ev) * 2 * n);
  if (!e) return 0;
  size_t m = 0;
  uint64_t base = 0; /* bytes live at time 0 from wrapping/whole items */
  for (size_t i = 0; i < n; i++) {
    uint64_t s = items[i].start, t = norm_stop(&items[i], period), sz = items[i].size;
    if (period && t == 0 && s > 0) t = period; /* [s, T): no wrap */
    if (period && s >= t) { /* wraps (or whole): live at 0 */
      base += sz;
      if (s != t) { e[m++] = (ev){t, -(int64_t)sz}; e[m++] = (ev){s, (int64_t)sz}; }
    } else {
      e[m++] = (ev){s, (int64_t)sz};
      e[m++] = (ev){t, -(int64_t)sz};
    }
  }
  qsort(e, m, sizeof(ev), ev_cmp);
  uint64_t cur = base, best = base;
  for (size_t k = 0; k < m; k++) {
    cur += (uint64_t)e[k].d;
    if (cur > best) best = cur;
  }
  free(e);
  return best;
}

/* ---------------------------------------------------------------- checker */

/* Sweep over time; the live set is kept sorted by offset and is pairwise
 * disjoint, so a new item only needs the last live item starting below its
 * end (whose end is the largest among those). Kinds are also kept apart in a
 * second set per kind, queried with the new item's page-expanded range. */
typedef struct live_set { size_t *ix; size_t n; } live_set;

static size_t ls_last_below(const live_set *ls, const uint64_t *off, uint64_t limit) {
  size_t lo = 0, hi = ls->n; /* first index with off >= limit */
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (off[ls->ix[mid]] < limit) lo = mid + 1; else hi = mid;
  }
  return lo; /* candidate is lo-1 when lo > 0 */
}
static void ls_insert(live_set *ls, const uint64_t *off, size_t i) {
  size_t p = ls_last_below(ls, off, off[i]);
  memmove(ls->ix + p + 1, ls->ix + p, (ls->n - p) * sizeof(size_t));
  ls->ix[p] = i;
  ls->n++;
}
static void ls_remove(live_set *ls, size_t i) {
  for (size_t k = 0; k < ls->n; k++)
    if (ls->ix[k] == i) {
      memmove(ls->ix + k, ls->ix + k + 1, (ls->n - k - 1) * sizeof(size_t));
      ls->n--;
      return;
    }
}

typedef struct cev { uint64_t t; size_t i; int start; } cev;
static int cev_cmp(const void *a, const void *b) {
  const cev *x = a, *y = b;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  if (x->start != y->start) return x->start - y->start; /* ends first */
  return (x->i > y->i) - (x->i < y->i);
}

int fg_check_packing(const fg_pack_item *items, size_t n, const uint64_t *offsets,
                     const fg_pack_desc *desc, char *msg, size_t msglen) {
  fg_pack_desc d0 = {0};
  if (!desc) desc = &d0;
  uint64_t period = desc->period, g = desc->granularity > 1 ? desc->granularity : 1;
  if (check_items(items, n, period, msg, msglen)) return 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t a = items[i].align ? items[i].align : 1;
    if (offsets[i] % a) {
      fg_errf(msg, msglen, "item %zu: offset %llu is not a multiple of its alignment %llu", i + 1,
              ULL(offsets[i]), ULL(a));
      return 0;
    }
    if (offsets[i] + items[i].size < offsets[i]) {
      fg_errf(msg, msglen, "item %zu: offset %llu + size overflows", i + 1, ULL(offsets[i]));
      return 0;
    }
  }
  cev *e = malloc(sizeof(cev) * 4 * (n ? n : 1));
  size_t *buf = malloc(sizeof(size_t) * 3 * (n ? n : 1));
  if (!e || !buf) {
    free(e); free(buf);
    fg_errf(msg, msglen, "out of memory");
    return 0;
  }
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t s = items[i].start, t = norm_stop(&items[i], period);
    if (period && t == 0 && s > 0) t = period; /* [s, T): no wrap */
    if (period && s >= t) {
      e[m++] = (cev){0, i, 1};
      if (s != t) {
        e[m++] = (cev){t, i, 0};
        e[m++] = (cev){s, i, 1};
      }
    } else {
      e[m++] = (cev){s, i, 1};
      e[m++] = (cev){t, i, 0};
    }
  }
  qsort(e, m, sizeof(cev), cev_cmp);
  live_set all = {buf, 0}, kind[2] = {{buf + n, 0}, {buf + 2 * n, 0}};
  int ok = 1;
  for (size_t k = 0; k < m && ok; k++) {
    size_t i = e[k].i;
    int ki = items[i].kind ? 1 : 0;
    if (!e[k].start) {
      ls_remove(&all, i);
      if (g > 1) ls_remove(&kind[ki], i);
      continue;
    }
    uint64_t lo = offsets[i], hi = offsets[i] + items[i].size;
    size_t p = ls_last_below(&all, offsets, hi);
    if (p > 0) {
      size_t j = all.ix[p - 1];
      if (offsets[j] + items[j].size > lo) {
        fg_errf(msg, msglen,
                "items %zu and %zu overlap: both live at time %llu, bytes [%llu, %llu) and [%llu, %llu)",
                (j < i ? j : i) + 1, (j < i ? i : j) + 1, ULL(e[k].t), ULL(offsets[j]),
                ULL(offsets[j] + items[j].size), ULL(lo), ULL(hi));
        ok = 0;
        break;
      }
    }
    if (g > 1) {
      live_set *other = &kind[1 - ki];
      uint64_t plo = lo / g * g, phi = (hi + g - 1) / g * g;
      size_t q = ls_last_below(other, offsets, phi);
      if (q > 0) {
        size_t j = other->ix[q - 1];
        if (offsets[j] + items[j].size > plo) {
          fg_errf(msg, msglen,
                  "items %zu (kind %u) and %zu (kind %u) share a granularity page of %llu bytes while both live at time %llu",
                  i + 1, items[i].kind, j + 1, items[j].kind, ULL(g), ULL(e[k].t));
          ok = 0;
          break;
        }
      }
      ls_insert(&kind[ki], offsets, i);
    }
    ls_insert(&all, offsets, i);
  }
  free(e);
  free(buf);
  return ok;
}

/* ------------------------------------------------------------- instance */

/* Typed quicksorts (median of three, insertion sort below 16): qsort's
 * indirect comparisons dominated the small solvers' time. */
#define PK_DEFINE_SORT(NAME, T, LESS)                                     \
  void NAME(T *a, size_t n) {                                             \
    while (n > 16) {                                                      \
      size_t m = n / 2, l = n - 1;                                        \
      T t;                                                                \
      if (LESS(a[m], a[0])) { t = a[m]; a[m] = a[0]; a[0] = t; }          \
      if (LESS(a[l], a[0])) { t = a[l]; a[l] = a[0]; a[0] = t; }          \
      if (LESS(a[l], a[m])) { t = a[l]; a[l] = a[m]; a[m] = t; }          \
      T pv = a[m];                                                        \
      size_t i = 0, j = l;                                                \
      for (;;) {                                                          \
        while (LESS(a[i], pv)) i++;                                       \
        while (LESS(pv, a[j])) j--;                                       \
        if (i >= j) break;                                                \
        t = a[i]; a[i] = a[j]; a[j] = t;                                  \
        i++; j--;                                                         \
      }                                                                   \
      /* recurse into the smaller part, loop on the larger */            \
      if (j + 1 < n - j - 1) { NAME(a, j + 1); a += j + 1; n -= j + 1; }  \
      else { NAME(a + j + 1, n - j - 1); n = j + 1; }                     \
    }                                                                     \
    for (size_t k = 1; k < n; k++) {                                      \
      T x = a[k];                                                         \
      size_t j = k;                                                       \
      while (j > 0 && LESS(x, a[j - 1])) { a[j] = a[j - 1]; j--; }        \
      a[j] = x;                                                           \
    }                                                                     \
  }
#define KV_LESS(x, y) ((x).k != (y).k ? (x).k < (y).k : (x).k2 != (y).k2 ? (x).k2 < (y).k2 : (x).i < (y).i)
#define U64_LESS(x, y) ((x) < (y))
static PK_DEFINE_SORT(kv_quick, pk_kv, KV_LESS)
PK_DEFINE_SORT(pk_sort_u64, uint64_t, U64_LESS)
#define IV_LESS(x, y) ((x).lo < (y).lo)
static PK_DEFINE_SORT(iv_quick, pk_iv, IV_LESS)

/* Large arrays: LSD radix sort on bytes, least significant key first (i,
 * then k2, then k), skipping the bytes that are equal in every
 * element. Stable, so it gives exactly the comparison sort's order; a
 * frame graph's keys vary in a few bytes, so it costs a few passes. */
#define RADIX_MIN_N 1024
static int kv_radix(pk_kv *a, size_t n) {
  pk_kv *b = malloc(sizeof(pk_kv) * n), *src = a, *dst = b;
  if (!b) return -1;
  uint64_t or_[3] = {0, 0, 0}, and_[3] = {~0ull, ~0ull, ~0ull};
  for (size_t q = 0; q < n; q++) {
    uint64_t v[3] = {(uint64_t)a[q].i, a[q].k2, a[q].k};
    for (int w = 0; w < 3; w++) { or_[w] |= v[w]; and_[w] &= v[w]; }
  }
  size_t cnt[256];
  for (int w = 0; w < 3; w++) {
    uint64_t diff = or_[w] ^ and_[w];
    for (int sh = 0; sh < 64; sh += 8) {
      if (!((diff >> sh) & 0xff)) continue;
      memset(cnt, 0, sizeof cnt);
#define KEYOF(e) (w == 0 ? (uint64_t)(e).i : w == 1 ? (e).k2 : (e).k)
      for (size_t q = 0; q < n; q++) cnt[(KEYOF(src[q]) >> sh) & 0xff]++;
      for (size_t d = 0, acc = 0; d < 256; d++) { size_t c = cnt[d]; cnt[d] = acc; acc += c; }
      for (size_t q = 0; q < n; q++) dst[cnt[(KEYOF(src[q]) >> sh) & 0xff]++] = src[q];
#undef KEYOF
      pk_kv *t = src; src = dst; dst = t;
    }
  }
  if (src != a) memcpy(a, src, sizeof(pk_kv) * n);
  free(b);
  return 0;
}

void pk_sort_kv(pk_kv *kv, size_t n) {
  if (n < RADIX_MIN_N || kv_radix(kv, n)) kv_quick(kv, n);
}
void pk_sort_kv_warm(pk_kv *kv, size_t n) {
  size_t moves = 0, budget = 8 * n;
  for (size_t a = 1; a < n; a++) {
    pk_kv t = kv[a];
    size_t p = a;
    while (p > 0 && KV_LESS(t, kv[p - 1])) {
      kv[p] = kv[p - 1];
      p--;
      if (++moves > budget) { /* far from sorted: the general sort */
        kv[p] = t;
        pk_sort_kv(kv, n);
        return;
      }
    }
    kv[p] = t;
  }
}
/* by lo alone, LSD radix on the bytes that vary (as kv_radix) */
static int iv_radix(pk_iv *a, size_t n) {
  pk_iv *b = malloc(sizeof(pk_iv) * n), *src = a, *dst = b;
  if (!b) return -1;
  uint64_t or_ = 0, and_ = ~0ull;
  for (size_t q = 0; q < n; q++) { or_ |= a[q].lo; and_ &= a[q].lo; }
  size_t cnt[256];
  for (int sh = 0; sh < 64; sh += 8) {
    if (!(((or_ ^ and_) >> sh) & 0xff)) continue;
    memset(cnt, 0, sizeof cnt);
    for (size_t q = 0; q < n; q++) cnt[(src[q].lo >> sh) & 0xff]++;
    for (size_t d = 0, acc = 0; d < 256; d++) { size_t c = cnt[d]; cnt[d] = acc; acc += c; }
    for (size_t q = 0; q < n; q++) dst[cnt[(src[q].lo >> sh) & 0xff]++] = src[q];
    pk_iv *t = src; src = dst; dst = t;
  }
  if (src != a) memcpy(a, src, sizeof(pk_iv) * n);
  free(b);
  return 0;
}
void pk_sort_iv(pk_iv *iv, size_t n) {
  if (n < RADIX_MIN_N || iv_radix(iv, n)) iv_quick(iv, n);
}

int pk_csort(const uint32_t *key, uint32_t nk, const size_t *src, size_t n, size_t *dst) {
  size_t *cnt = calloc((size_t)nk + 1, sizeof(size_t));
  if (!cnt) return -1;
  for (size_t q = 0; q < n; q++) cnt[key[src[q]] + 1]++;
  for (uint32_t k = 0; k < nk; k++) cnt[k + 1] += cnt[k];
  for (size_t q = 0; q < n; q++) dst[cnt[key[src[q]]]++] = src[q];
  free(cnt);
  return 0;
}

uint32_t pk_size_rank(const pk_inst *in, uint32_t *rank) {
  size_t n = in->n;
  pk_kv *kv = malloc(sizeof(pk_kv) * (n ? n : 1));
  if (!kv) return 0;
  fg_pack_cache *c = in->cache;
  const uint32_t *warm = c ? c->size_ord : NULL; /* the last call's order: sizes changed, it barely */
  for (size_t k = 0; k < n; k++) {
    size_t i = warm ? warm[k] : k;
    kv[k] = (pk_kv){UINT64_MAX - in->size[i], 0, i};
  }
  if (warm) pk_sort_kv_warm(kv, n);
  else pk_sort_kv(kv, n);
  if (c && (c->size_ord || (c->size_ord = malloc(sizeof(uint32_t) * (n ? n : 1)))))
    for (size_t k = 0; k < n; k++) c->size_ord[k] = (uint32_t)kv[k].i;
  uint32_t r = 0;
  for (size_t k = 0; k < n; k++) {
    if (k && kv[k].k != kv[k - 1].k) r++;
    rank[kv[k].i] = r;
  }
  free(kv);
  return n ? r + 1 : 1;
}

int pk_size_order(const pk_inst *in, const uint32_t *key2, uint32_t nk2, size_t *ord) {
  size_t n = in->n;
  const uint32_t *rk = in->srank;
  uint32_t nr = in->nsrank, *own = NULL;
  size_t *ids = malloc(sizeof(size_t) * (n ? n : 1));
  int rc = -1;
  if (!ids) return -1;
  if (!rk) {
    own = malloc(sizeof(uint32_t) * (n ? n : 1));
    if (!own || !(nr = pk_size_rank(in, own))) goto out;
    rk = own;
  }
  for (size_t i = 0; i < n; i++) ids[i] = i;
  if (key2 && pk_csort(key2, nk2, ids, n, ord)) goto out;
  rc = pk_csort(rk, nr, key2 ? ord : ids, n, key2 ? ids : ord);
  if (!rc && key2) memcpy(ord, ids, sizeof(size_t) * n);
out:
  free(ids); free(own);
  return rc;
}

void pk_sort(pk_kv *kv, size_t n, size_t *ord) {
  pk_sort_kv(kv, n);
  if (ord)
    for (size_t k = 0; k < n; k++) ord[k] = kv[k].i;
}

void pk_free(pk_inst *in) {
  free(in->len);
  free(in->s);
  free(in->e);
  free(in->size);
  free(in->align);
  memset(in, 0, sizeof *in);
}

int pk_build(pk_inst *in, const fg_pack_item *items, size_t n, const fg_pack_desc *desc) {
  memset(in, 0, sizeof *in);
  in->n = n;
  in->items = items;
  in->cyclic = desc->period > 0;
  size_t nn = n ? n : 1;
  in->s = malloc(sizeof(uint32_t) * nn);
  in->e = malloc(sizeof(uint32_t) * nn);
  in->len = malloc(sizeof(uint32_t) * nn);
  in->size = malloc(sizeof(uint64_t) * nn);
  in->align = malloc(sizeof(uint64_t) * nn);
  uint64_t *v = malloc(sizeof(uint64_t) * 2 * nn);
  if (!in->s || !in->e || !in->len || !in->size || !in->align || !v) {
    free(v);
    pk_free(in);
    return -1;
  }
  size_t m = 0;
  uint64_t vmax = 0;
  for (size_t i = 0; i < n; i++) {
    v[m++] = items[i].start;
    v[m++] = norm_stop(&items[i], desc->period);
    if (v[m - 2] > vmax) vmax = v[m - 2];
    if (v[m - 1] > vmax) vmax = v[m - 1];
  }
  int kinds = 0;
  uint32_t K = 0;
  /* small time values (a frame graph's 2|V| steps): a rank table instead
   * of sorting and binary searches */
  uint32_t *rank = vmax < 8 * (uint64_t)m + 1024 ? calloc((size_t)vmax + 1, sizeof(uint32_t)) : NULL;
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
    free(rank);
  } else {
    pk_sort_u64(v, m);
    for (size_t k = 0; k < m; k++)
      if (K == 0 || v[K - 1] != v[k]) v[K++] = v[k];
    for (size_t i = 0; i < n; i++) {
      in->s[i] = pk_find_pt(v, K, items[i].start);
      in->e[i] = pk_find_pt(v, K, norm_stop(&items[i], desc->period));
      kinds |= items[i].kind ? 2 : 1;
    }
  }
  in->K = K ? K : 1;
  pk_set_len(in);
  free(v);
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

int pk_reverse(const pk_inst *in, pk_inst *out) {
  *out = *in;
  out->cache = NULL; /* its sort orders are the forward instance's */
  size_t nn = in->n ? in->n : 1;
  out->s = malloc(sizeof(uint32_t) * nn);
  out->e = malloc(sizeof(uint32_t) * nn);
  out->len = malloc(sizeof(uint32_t) * nn);
  out->size = malloc(sizeof(uint64_t) * nn);
  out->align = malloc(sizeof(uint64_t) * nn);
  if (!out->s || !out->e || !out->len || !out->size || !out->align) {
    pk_free(out);
    return -1;
  }
  memcpy(out->size, in->size, sizeof(uint64_t) * in->n);
  memcpy(out->align, in->align, sizeof(uint64_t) * in->n);
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

uint64_t pk_makespan(const pk_inst *in, const uint64_t *off) {
  uint64_t m = 0; /* the real sizes: rounding for granularity is not memory */
  for (size_t i = 0; i < in->n; i++)
    if (off[i] + in->items[i].size > m) m = off[i] + in->items[i].size;
  return m;
}

uint64_t pk_profile(const pk_inst *in, uint64_t *prof, int real) {
  uint32_t K = in->K;
  int64_t *d = calloc((size_t)K + 1, sizeof(int64_t));
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
  free(d);
  return best;
}

/* ------------------------------------------------------------ none, pool */

int pk_none(const pk_inst *in, uint64_t *off) {
  uint64_t h = 0;
  for (size_t i = 0; i < in->n; i++) {
    off[i] = fg_align_up(h, in->align[i]);
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
  size_t *ord = malloc(sizeof(size_t) * n), *slot = malloc(sizeof(size_t) * n);
  size_t *head = malloc(sizeof(size_t) * n), *next = malloc(sizeof(size_t) * n);
  uint64_t *ssz = malloc(sizeof(uint64_t) * n), *sal = malloc(sizeof(uint64_t) * n);
  uint64_t *sreal = malloc(sizeof(uint64_t) * n); /* largest real size per slot */
  pk_kv *kv = malloc(sizeof(pk_kv) * n);
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
    uint64_t o = fg_align_up(h, sal[sl]);
    for (size_t j = head[sl]; j != (size_t)-1; j = next[j]) off[j] = o;
    h = o + ssz[sl];
  }
  rc = 0;
out:
  free(ord); free(slot); free(head); free(next); free(ssz); free(sal); free(sreal); free(kv);
  return rc;
}

/* ----------------------------------------------------------------- entry */

int fg_pack(const fg_pack_item *items, size_t n, const fg_pack_desc *desc, uint64_t *offsets,
            fg_pack_result *res, char *err, size_t errlen) {
  fg_pack_desc d0 = {0};
  if (!desc) desc = &d0;
  const char *name = desc->solver ? desc->solver : "best";
  int which = -1;
  for (int k = 0; fg_pack_solvers[k]; k++)
    if (!strcmp(name, fg_pack_solvers[k])) which = k;
  if (which < 0) {
    fg_errf(err, errlen,
            "unknown solver '%s' (expected one of best, thesis, scanline, bysize, buckets, pool, none)", name);
    return -1;
  }
  if (check_items(items, n, desc->period, err, errlen)) return -1;
  if (desc->cache && pk_cache_sync(desc->cache, items, n, desc->period)) {
    fg_errf(err, errlen, "out of memory");
    return -1;
  }
  fg_pack_result r = {0, 0, 0};
  if (n == 0) {
    r.optimal = 1;
    if (res) *res = r;
    return 0;
  }
  pk_inst in;
  if (pk_build(&in, items, n, desc)) {
    fg_errf(err, errlen, "out of memory");
    return -1;
  }
  in.cache = desc->cache;
  r.load = pk_profile(&in, NULL, 1);
  int rc, optimal = 0;
  switch (which) {
  case 0: rc = pk_best(&in, desc, r.load, offsets, &optimal); break;
  case 1: rc = pk_thesis(&in, offsets); break;
  case 2: rc = pk_scanline(&in, offsets); break;
  case 3: rc = pk_bysize(&in, offsets); break;
  case 4: rc = pk_buckets(&in, offsets); break;
  case 5: rc = pk_pool(&in, offsets); break;
  default: rc = pk_none(&in, offsets); break;
  }
  pk_free(&in);
  if (rc) {
    fg_errf(err, errlen, "out of memory");
    return -1;
  }
  for (size_t i = 0; i < n; i++)
    if (offsets[i] + items[i].size > r.makespan) r.makespan = offsets[i] + items[i].size;
  r.optimal = r.makespan == r.load || optimal;
  if (res) *res = r;
  return 0;
}
