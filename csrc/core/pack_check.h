/* Private to the packers: item validation shared by the entry point and the
 * independent checker (pack_check.c, which also holds fg_check_packing and
 * fg_pack_load). It knows nothing of instances or strategies. */
#ifndef FG_PACK_CHECK_H
#define FG_PACK_CHECK_H
#include "fg_pack.h"

/* 0, or -1 with a message naming the first bad item (size, align, lifetime). */
int pk_check_items(const fg_pack_item *it, size_t n, uint64_t period, char *err, size_t errlen);

/* Normalised stop of an item: on a cycle, stop == period means 0. */
static inline uint64_t pk_norm_stop(const fg_pack_item *it, uint64_t period) {
  return (period && it->stop == period) ? 0 : it->stop;
}

#endif
