/* Every private header of the packers at once, for tests and tools. The
 * packers themselves include only the layers they use, each calling only
 * the files on the lines below its own:
 *   pack.c                      the solver table and fg_pack
 *   pack_decide                 the capacity mode (desc.capacity): bounds, best's
 *                               steps, the decision search at that capacity
 *   pack_best                   best: drives everything below; its steps in
 *                               pack_best_start, pack_dive, pack_best_improve
 *                               (pack_best_int.h), its knobs in pack_tune.h
 *   pack_tile                   flat loads: a tiling's blocks, packed by pack_search
 *   pack_greedy, pack_search    the baselines; the exact decision search (its
 *                               tree search, pack_search_order: preorders and
 *                               set-up, pack_search_drive: rounds, bisection;
 *                               pack_search_int.h)
 *   pack_sweep                  O(n log n) allocator sweeps along the timeline
 *   pack_bound                  clique lower bounds
 *   pack_place                  placed lists, time index, gap scan, drop
 *   pack_inst                   the normalised instance, profiles, size orders
 *   pack_sort, pack_cache, pack_check   sorts; the memo; validation, LOAD, checker */
#ifndef FG_PACK_INTERNAL_H
#define FG_PACK_INTERNAL_H
#include "pack_best.h"
#include "pack_bound.h"
#include "pack_cache.h"
#include "pack_check.h"
#include "pack_decide.h"
#include "pack_greedy.h"
#include "pack_inst.h"
#include "pack_place.h"
#include "pack_search.h"
#include "pack_sort.h"
#include "pack_sweep.h"
#include "pack_tile.h"

#endif
