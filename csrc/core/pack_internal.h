/* Every private header of the packers at once, for tests and tools. The
 * packers themselves include only the layers they use; from the top:
 *   pack.c (solver table, entry)
 *   -> pack_best -> pack_greedy, pack_search, pack_bound
 *   -> pack_place -> pack_inst -> pack_sort, pack_cache, pack_check
 * No file calls up this list. */
#ifndef FG_PACK_INTERNAL_H
#define FG_PACK_INTERNAL_H
#include "pack_best.h"
#include "pack_bound.h"
#include "pack_cache.h"
#include "pack_check.h"
#include "pack_greedy.h"
#include "pack_inst.h"
#include "pack_place.h"
#include "pack_search.h"
#include "pack_sort.h"

#endif
