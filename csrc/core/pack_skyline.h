/* pack_skyline: best's canonical dive in about O(n log n) (pack_skyline.c). */
#ifndef FG_PACK_SKYLINE_H
#define FG_PACK_SKYLINE_H
#include "pack_inst.h"

#define SKYLINE_GAVE_UP (UINT64_MAX - 1)
/* Places the m items ord[0..m) (none whole-cycle) from lo0 up, each on top
 * of the highest placed item it meets, the least such offset first, ties to
 * the highest key[i]; writes off[i] for them. Returns the top of the heap
 * (at least lo0); SKYLINE_GAVE_UP when its work (charged to the work clock,
 * about 2-3.5 ns each on dev) passes cap or is bound to pass twice it, the
 * offsets then incomplete; UINT64_MAX out of memory. */
uint64_t pk_skyline_dive(const pk_inst *in, const size_t *ord, size_t m, const double *key, uint64_t lo0,
                         uint64_t cap, uint64_t *off);
#endif
