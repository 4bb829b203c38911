/* fg_pack's item validation, LOAD and the independent checker: nothing here
 * uses the packers' instance or placement code, so the checker cannot share
 * a packer's mistake. */
#include "pack_check.h"
#include "pack_mem.h"
#include "fg_util.h"
#include <stdlib.h>
#include <string.h>

#define ULL(x) ((unsigned long long)(x))

static int is_pow2(uint64_t a) { return a && !(a & (a - 1)); }

/* ---------------------------------------------------------------- validation */

int pk_check_items(const fg_pack_item *it, size_t n, uint64_t period, char *err, size_t errlen) {
  for (size_t i = 0; i < n; i++) {
    if (it[i].size == 0) {
      fg_errf(err, errlen, "item %zu: size must be > 0", i + 1);
      return -1;
    }
    if (it[i].align && !is_pow2(it[i].align)) {
      fg_errf(err, errlen, "item %zu: align %llu is not a power of two", i + 1, ULL(it[i].align));
      return -1;
    }
    if (it[i].kind > 1) { /* a third class would fall silently into one of the two */
      fg_errf(err, errlen, "item %zu: kind %lu is unknown (0 = linear, buffers; 1 = optimal, images)", i + 1,
              (unsigned long)it[i].kind);
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

/* ------------------------------------------------------------------- LOAD */

/* An event adds or removes one item's size; sizes are kept unsigned (an
 * int64 would turn a size past 2^63 negative). */
typedef struct ev { uint64_t t, sz; int add; } ev;
static int ev_cmp(const void *a, const void *b) {
  const ev *x = a, *y = b;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  return x->add - y->add; /* ends first */
}

/* Sums saturate: a LOAD past 2^64 - 1 reads as UINT64_MAX, never wraps. */
static uint64_t sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

uint64_t fg_pack_load(const fg_pack_item *items, size_t n, uint64_t period) {
  if (n == 0) return 0;
  ev *e = pk_mem_alloc(sizeof(ev) * 2 * n);
  if (!e) return 0;
  size_t m = 0;
  uint64_t base = 0; /* bytes live at time 0 from wrapping/whole items */
  for (size_t i = 0; i < n; i++) {
    uint64_t s = items[i].start, t = pk_norm_stop(&items[i], period), sz = items[i].size;
    if (period && t == 0 && s > 0) t = period; /* [s, T): no wrap */
    if (period && s >= t) { /* wraps (or whole): live at 0 */
      base = sat_add(base, sz);
      if (s != t) { e[m++] = (ev){t, sz, 0}; e[m++] = (ev){s, sz, 1}; }
    } else {
      e[m++] = (ev){s, sz, 1};
      e[m++] = (ev){t, sz, 0};
    }
  }
  qsort(e, m, sizeof(ev), ev_cmp);
  /* live bytes = base + added - removed; once a sum saturates the answer is
   * UINT64_MAX (the removals can no longer be subtracted exactly) */
  uint64_t cur = base, best = base;
  int saturated = base == UINT64_MAX;
  for (size_t k = 0; k < m && !saturated; k++) {
    if (e[k].add) {
      if (cur > UINT64_MAX - e[k].sz) saturated = 1;
      else cur += e[k].sz;
    } else {
      cur -= e[k].sz;
    }
    if (cur > best) best = cur;
  }
  pk_mem_free(e);
  return saturated ? UINT64_MAX : best;
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
  if (pk_check_items(items, n, period, msg, msglen)) return 0;
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
  cev *e = pk_mem_alloc(sizeof(cev) * 4 * (n ? n : 1));
  size_t *buf = pk_mem_alloc(sizeof(size_t) * 3 * (n ? n : 1));
  if (!e || !buf) {
    pk_mem_free(e); pk_mem_free(buf);
    fg_errf(msg, msglen, "out of memory");
    return 0;
  }
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t s = items[i].start, t = pk_norm_stop(&items[i], period);
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
      /* the pages [plo, phi) the item touches; phi saturates at 2^64 - 1,
       * where no valid item starts (offset + size would overflow) */
      uint64_t plo = lo / g * g, phi = hi / g * g;
      if (hi % g) phi = phi > UINT64_MAX - g ? UINT64_MAX : phi + g;
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
  pk_mem_free(e);
  pk_mem_free(buf);
  return ok;
}
