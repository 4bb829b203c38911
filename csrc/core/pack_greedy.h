/* Private to the packers: the reference strategies (pack_greedy.c), each
 * faithful to its source; baselines and starts for best. Below them:
 * pack_place, pack_inst, pack_sort. */
#ifndef FG_PACK_GREEDY_H
#define FG_PACK_GREEDY_H
#include "pack_inst.h"

/* Write offsets (effective sizes) for every item; return 0, 1 when stopped
 * at in->cut, or -1 on OOM. */
typedef int (*pk_baseline_fn)(const pk_inst *in, uint64_t *off);
int pk_none(const pk_inst *in, uint64_t *off);
int pk_pool(const pk_inst *in, uint64_t *off);
int pk_bysize(const pk_inst *in, uint64_t *off);
int pk_buckets(const pk_inst *in, uint64_t *off);
int pk_thesis(const pk_inst *in, uint64_t *off);
int pk_scanline(const pk_inst *in, uint64_t *off);

#endif
