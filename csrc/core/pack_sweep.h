/* Private to the packers: sweep (pack_sweep.c), an allocator run along the
 * timeline in O(n log n): the start that every size affords. Below it:
 * pack_inst, pack_sort. */
#ifndef FG_PACK_SWEEP_H
#define FG_PACK_SWEEP_H
#include "pack_inst.h"

/* Writes offsets (effective sizes) for every item; 0, 1 when stopped at
 * in->cut, -1 on OOM. */
int pk_sweep(const pk_inst *in, uint64_t *off);
/* The same from `cuts` cut points of a cycle (1 to 8), the lowest kept; lt:
 * the lifetime-aware fit (pack_sweep.c), else best fit as pk_sweep's. */
int pk_sweep_cuts(const pk_inst *in, uint64_t *off, int cuts, int lt);
/* The peak sweep (pack_sweep.c): stacked at the most loaded point, swept
 * outwards from it both ways; stack 0, 1 or 2 (the order of what lives
 * there: by size, the latest end lowest, the latest start lowest); lt: the
 * lifetime-aware fit (pack_sweep.c), else best fit as pk_sweep's. 0, 1 when
 * stopped at in->cut, -1 on OOM. */
int pk_sweep_peak(const pk_inst *in, uint64_t *off, int stack, int lt);

#endif
