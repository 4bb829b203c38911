/* Private to the packers: fg_pack's capacity mode (pack_decide.c), the
 * decision "does it fit in desc->capacity bytes, and where?". Below it:
 * pack_best, pack_bound, pack_greedy, pack_search, pack_inst. */
#ifndef FG_PACK_DECIDE_H
#define FG_PACK_DECIDE_H
#include "pack_inst.h"

typedef struct pk_decision {
  int fits, proved;  /* fg_pack_result's fields of the same names */
  uint64_t bound;    /* the largest lower bound proved, real bytes (<= the makespan of off) */
  int bound_partial; /* a heavier clique may exist (fg_pack_result.bound_partial) */
  int optimal;       /* best's steps proved their packing minimal */
} pk_decision;

/* Writes offsets (effective sizes) into off: a packing within capacity when
 * dc->fits, else the lowest one found. load: real LOAD. 0, or -1 on OOM. */
int pk_decide(const pk_inst *in, const fg_pack_desc *desc, uint64_t load, uint64_t *off, pk_decision *dc);

#endif
