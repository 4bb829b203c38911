/* Private to the packers: best, the default strategy (pack_best.c, its
 * steps in pack_best_start.c, pack_dive.c, pack_best_improve.c). It
 * drives the layers below it: pack_greedy (baselines), pack_search,
 * pack_bound, pack_place, pack_inst, pack_sort. */
#ifndef FG_PACK_BEST_H
#define FG_PACK_BEST_H
#include "pack_inst.h"

/* Offsets (effective sizes) for every item within desc's budgets; load is
 * LOAD in real bytes. oc gets optimality when proved and the bound in real
 * bytes. 0, or -1 on OOM. */
int pk_best(const pk_inst *in, const fg_pack_desc *desc, uint64_t load, uint64_t *off, pk_outcome *oc);

#endif
