/* Private to the packers: lower bounds above LOAD on a cycle (pack_bound.c).
 * Below it: pack_inst, pack_sort, pack_cache. */
#ifndef FG_PACK_BOUND_H
#define FG_PACK_BOUND_H
#include "pack_inst.h"

/* Cliques of meeting items on a cycle. Both return the weight in effective
 * sizes and put the real bytes in *real. */
uint64_t pk_clique_exact(const pk_inst *in, uint64_t cap, uint64_t *real);  /* branch and bound, node cap; n <= ~64 */
uint64_t pk_clique_greedy(const pk_inst *in, uint64_t *real);              /* any n: near-linear */

#endif
