/* A brute-force reference for fg_check_packing, written to be obviously
 * right rather than fast: every pair of items is compared directly, O(n^2).
 * Each item's lifetime becomes at most two half-open intervals of time, each
 * placement a half-open byte range and (for granularity) an inclusive range
 * of page indices; two items conflict when some time interval of one meets
 * some time interval of the other and their bytes (or, for different kinds,
 * their pages) meet. The fuzzers and tests/test_pack_check.c hold
 * fg_check_packing to this verdict, so a mistake in its sweep shows. */
#ifndef FG_PACK_REF_H
#define FG_PACK_REF_H
#include <stdint.h>
#include <stddef.h>
#include "fg_pack.h"

typedef struct ref_span { uint64_t lo, hi; } ref_span; /* [lo, hi) */

/* The times an item is live: 0, 1 or 2 spans. Returns the count, or -1 when
 * the item is not valid on this timeline. */
static int ref_live(const fg_pack_item *it, uint64_t period, ref_span out[2]) {
  uint64_t s = it->start, t = it->stop;
  if (!period) {
    if (s >= t) return -1;
    out[0] = (ref_span){s, t};
    return 1;
  }
  if (s >= period || t > period) return -1;
  if (t == period) t = 0;              /* stop == period is the cycle's end */
  if (s == t) { out[0] = (ref_span){0, period}; return 1; }       /* whole cycle */
  if (s < t) { out[0] = (ref_span){s, t}; return 1; }
  if (t == 0) { out[0] = (ref_span){s, period}; return 1; }        /* [s, T) */
  out[0] = (ref_span){s, period}; out[1] = (ref_span){0, t};       /* wraps */
  return 2;
}

static int ref_meet(ref_span a, ref_span b) { return a.lo < b.hi && b.lo < a.hi; }

/* 1 when the packing is valid, 0 otherwise (and *why says which rule:
 * "item", "align", "overflow", "overlap" or "granularity"). */
static int ref_check_packing(const fg_pack_item *items, size_t n, const uint64_t *off,
                             const fg_pack_desc *desc, const char **why) {
  uint64_t period = desc ? desc->period : 0, g = desc && desc->granularity > 1 ? desc->granularity : 1;
  const char *dummy;
  if (!why) why = &dummy;
  *why = "";
  for (size_t i = 0; i < n; i++) {
    ref_span sp[2];
    uint64_t a = items[i].align ? items[i].align : 1;
    if (items[i].size == 0 || (a & (a - 1)) || items[i].kind > 1 || ref_live(&items[i], period, sp) < 0) {
      *why = "item";
      return 0;
    }
    if (off[i] % a) { *why = "align"; return 0; }
    if (off[i] > UINT64_MAX - items[i].size) { *why = "overflow"; return 0; }
  }
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++) {
      ref_span si[2], sj[2];
      int ni = ref_live(&items[i], period, si), nj = ref_live(&items[j], period, sj), together = 0;
      for (int x = 0; x < ni; x++)
        for (int y = 0; y < nj; y++) together |= ref_meet(si[x], sj[y]);
      if (!together) continue;
      /* the last byte of each is off + size - 1: no sum past 2^64 - 1 */
      uint64_t li = off[i] + items[i].size - 1, lj = off[j] + items[j].size - 1;
      if (off[i] <= lj && off[j] <= li) { *why = "overlap"; return 0; }
      if (g > 1 && items[i].kind != items[j].kind && off[i] / g <= lj / g && off[j] / g <= li / g) {
        *why = "granularity";
        return 0;
      }
    }
  return 1;
}
#endif
