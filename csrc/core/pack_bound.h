/* Private to the packers: lower bounds above LOAD (pack_bound.c): cliques
 * on a cycle, alignment at a point.
 * Below it: pack_inst, pack_sort, pack_cache. */
#ifndef FG_PACK_BOUND_H
#define FG_PACK_BOUND_H
#include "pack_inst.h"

/* Cliques of meeting items on a cycle. Both return the weight in effective
 * sizes and put the real bytes in *real. */
/* The heaviest clique heavier than floor (a weight already proved, e.g.
 * LOAD or a greedy clique), exactly: its weight, or 0 when none weighs
 * more; *exact is cleared when the deadline (fg_now_ns clock, 0 = none) or
 * OOM stopped it early (a clique found is still a bound). Polynomial:
 * O(K m (m + n)), m the fewest items alive at a point. On a line every
 * clique shares a point: 0. */
uint64_t pk_clique_exact(const pk_inst *in, uint64_t floor, uint64_t deadline_ns, uint64_t *real, int *exact);
/* Its cost estimate K m (m + n) (before pruning), for callers that cap it. */
uint64_t pk_clique_work(const pk_inst *in);
uint64_t pk_clique_greedy(const pk_inst *in, uint64_t *real);              /* any n: near-linear */
/* max(lb, the alignment bound at each point: the highest item of a point's
 * stack starts aligned above the others); lb when there is granularity. */
uint64_t pk_align_bound(const pk_inst *in, uint64_t lb);

#endif
