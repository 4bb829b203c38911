/* pack_skyline: best's canonical dive in about O(n log n) (pack_skyline.c). */
#ifndef FG_PACK_SKYLINE_H
#define FG_PACK_SKYLINE_H
#include "pack_inst.h"

#define SKYLINE_GAVE_UP (UINT64_MAX - 1)
/* Places the m items ord[0..m) (none whole-cycle) from lo0 up, each on top
 * of the highest placed item it meets, the least such offset first, ties to
 * the highest key[i]; writes off[i] for them. Returns the top of the heap
 * (at least lo0); SKYLINE_GAVE_UP when its work (charged to the work clock,
 * about 2-3.5 ns each on dev) passes cap or is bound to pass it by a quarter
 * (from a sixteenth of the items on), the offsets then incomplete, and
 * *need (when need is not NULL) the work it was bound to (UINT64_MAX where
 * it did not start: every placement's look at the groups alone would pass
 * cap); UINT64_MAX out of memory. */
uint64_t pk_skyline_dive(const pk_inst *in, const size_t *ord, size_t m, const double *key, uint64_t lo0,
                         uint64_t cap, uint64_t *need, uint64_t *off);
/* A coarser view of in for it: the K points in runs of c, each lifetime
 * widened to whole runs, so that a packing of the view is one of in (its s
 * and len arrays: n each, the caller's). 0, or 1 where a lifetime would
 * span the whole coarse cycle. */
int pk_skyline_coarse(const pk_inst *in, uint32_t c, pk_inst *out, uint32_t *s, uint32_t *len);
#endif
