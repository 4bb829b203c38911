/* pack_search: MiniMalloc-style exact decision search for (C)DSA.
 *
 * Given a capacity C, find offsets whose makespan is at most C, or prove
 * that none exist, within a time budget. Canonical solutions only (items
 * placed at non-decreasing offsets, each at the lowest offset its placed
 * neighbours leave), section-load inference, the dominance rule against
 * needless gaps, and dynamic decomposition where no unplaced item crosses a
 * time point. Exact on lines and on cycles: a cycle is cut at a point and
 * the arcs alive there are items of the rotated line that wrap round.
 */
#ifndef FG_PACK_SEARCH_H
#define FG_PACK_SEARCH_H
#include "pack_inst.h"

enum { PS_NONE = 0, PS_FOUND = 1, PS_UNKNOWN = 2 };

/* Public entry (tests, tools): items as for fg_pack (period, granularity
 * from desc). Returns PS_FOUND with offsets written (makespan <= capacity,
 * fg_check_packing accepts them), PS_NONE when proved impossible,
 * PS_UNKNOWN when the budget ran out, -1 on a bad item or OOM (message in err).
 * budget_ms <= 0 means no time limit. */
int fg_pack_search(const fg_pack_item *items, size_t n, const fg_pack_desc *desc, uint64_t capacity,
                   double budget_ms, uint64_t *offsets, char *err, size_t errlen);

/* On a normalised instance (effective sizes): the decision above with an
 * absolute deadline (fg_now_ns clock; 0 = none). Same return codes. */
int pk_search_decide(const pk_inst *in, uint64_t cap, uint64_t deadline_ns, uint64_t *off);

/* fg_pack's capacity mode (pack_decide.c): the same decision, but where the
 * capacity leaves slack each preorder still resumes where its last round
 * stopped, as at the load, instead of restarting with random key factors:
 * at one fixed capacity (no bisection around it) that settles MiniMalloc's
 * instances with slack (C, D, J at 1048576: 0.1 s each, where the restarts
 * took seconds or ran out). partial (n slots, or NULL), when nothing was
 * found: the deepest partial packing under cap, completed by first fit
 * (*have_partial says whether it was written). */
int pk_search_decide_at(const pk_inst *in, uint64_t cap, uint64_t deadline_ns, uint64_t *off, uint64_t *partial,
                        int *have_partial);

/* pk_search_improve leaves larger instances alone (memory 8 n^2 bytes). */
#define PS_MAX_N 2048

/* Improvement driver for best: off holds a packing (effective sizes); tries
 * capacities from lb (a lower bound in effective sizes) upward by bisection
 * below the current makespan until the deadline, keeping every improvement
 * in off, and after at most max_nodes search nodes in all (0 = no cap).
 * Returns 1 when off improved, 0 when not, -1 on OOM. *proved is set
 * when the final makespan is proved minimal for the effective sizes. */
int pk_search_improve(const pk_inst *in, uint64_t lb, uint64_t deadline_ns, uint64_t max_nodes, uint64_t *off,
                      int *proved);

#endif
