/* fg_pack: cyclic (and linear) dynamic storage allocation.
 *
 * Items live on a timeline. With period T > 0 the timeline is cyclic: an item
 * with start < stop lives on [start, stop); start > stop wraps and lives on
 * [start, T) u [0, stop); start == stop lives the whole cycle. With period 0
 * the timeline is linear and start < stop is required.
 * A packing gives each item an offset (a multiple of its alignment) such that
 * two items alive at a common time never share a byte, and items of different
 * `kind` alive at a common time never share a granularity page (Vulkan's
 * bufferImageGranularity between linear and optimal resources).
 * makespan = max(offset + size); LOAD = max over t of live bytes (lower bound).
 */
#ifndef FG_PACK_H
#define FG_PACK_H
#include <stddef.h>
#include <stdint.h>
#include "fg_util.h"

typedef struct fg_pack_item {
  uint64_t start, stop;  /* see above */
  uint64_t size;         /* bytes, > 0 */
  uint64_t align;        /* power of two; 0 means 1 */
  uint32_t kind;         /* 0 = linear (buffers), 1 = optimal (images): granularity classes */
  uint32_t group;        /* "pool" strategy: items may share memory only within one group id
                            (identical descriptions); 0 = unique */
} fg_pack_item;

/* Optional memo for repeated calls on items with the same lifetimes (a
 * re-plan after a resolution change changes only sizes): the conflict
 * matrix, the lifetime-only part of the clique bound and the last sort
 * orders are kept and reused. Each call checks n, the period and every
 * start/stop against the last call's and starts afresh on any difference;
 * results are the same with or without a cache. One cache per sequence of
 * calls; not for concurrent calls. */
typedef struct fg_pack_cache fg_pack_cache;
fg_pack_cache *fg_pack_cache_new(void);        /* NULL on OOM */
/* A cache whose memory comes through `hooks` (NULL: malloc); fg_pack calls
 * using it must pass the same hooks (desc.hooks), else they are refused. */
fg_pack_cache *fg_pack_cache_new_hooks(const fg_alloc_hooks *hooks);
void fg_pack_cache_free(fg_pack_cache *cache); /* NULL is fine */

typedef struct fg_pack_desc {
  uint64_t period;       /* 0 = linear timeline */
  const char *solver;    /* NULL or "best" (default), "thesis", "scanline", "bysize",
                            "buckets", "pool", "none" */
  uint64_t granularity;  /* 0 or 1 = no page separation between kinds */
  double time_budget_ms; /* best: wall-clock budget of the whole call; 0 = none: the
                            deterministic work_budget instead (below). Up to 4096 items the
                            baselines always run, whatever the budget (best is never worse
                            than any of them; one stops early only once it cannot beat the
                            incumbent), then, without a hint, one first-fit replay of the
                            best one's order (unless a dive's packing beat them all); above,
                            only the sweep (an O(n log n) allocator along the timeline)
                            does, and the baselines and the replay run within the budget;
                            other starts and the search only within the budget */
  uint64_t node_budget;  /* best: local-search iteration budget; 0 = default (2e6) */
  uint64_t work_budget;  /* best, without time_budget_ms: the budget as work (placements,
                            neighbours visited, search nodes), counted in nanoseconds of
                            the machine it was calibrated on; 0 = default (500000 =
                            0.5 ms, 50000 with offset_hint). The default mode: the same
                            items give the same offsets on any machine under any load.
                            time_budget_ms > 0 asks for the wall clock instead (real-time
                            re-plans, benches); time_budget_ms >= 1e12 (math.huge
                            included) means no wall-clock limit: work-bounded, at
                            work_budget or else 1000 x the default (about 0.5 s). A
                            budget above the default never packs worse than it: best
                            runs the default first and keeps the better packing */
  uint64_t seed;         /* best: randomised restarts; 0 = fixed default */
  const uint64_t *offset_hint; /* best, optional: n offsets of an earlier packing of the same
                            items (sizes may have changed, e.g. a resolution change). Replayed
                            first: the items dropped in that offset order, each right above
                            the earlier ones it meets (the incumbent the baselines must beat);
                            returned at once when it reaches a lower bound */
  uint64_t hint_makespan, hint_bound; /* best, optional, with offset_hint: the makespan and bound
                            of the searched packing the hint descends from. When the replay's
                            makespan / bound (max(LOAD, a greedy clique)) is within 0.5 % of
                            theirs, the replay is returned without baselines or search
                            (result.replayed): a re-plan keeps the quality that search reached.
                            0 = search as usual */
  fg_pack_cache *cache;  /* optional, see fg_pack_cache_new */
  uint64_t capacity;     /* 0 = minimise (the default). > 0: a decision, "does it fit in capacity
                            bytes, and where?" (result.fits, result.proved). With "best" the
                            budget goes to settling it: max(LOAD, a clique on cycles) above
                            capacity answers no at once; else a packing within it is searched
                            for, first by best's steps (1/16 of the budget), then by the exact
                            decision search at this capacity (pack_decide.c). time_budget_ms 0
                            means a work budget worth 1000 ms here (work_budget, if given, is
                            it; deterministic like the default), and the call ends as soon as
                            it is settled. The
                            other solvers pack as usual and only compare */
  const fg_alloc_hooks *hooks; /* the call's CPU memory (all of it, every solver); NULL or zero:
                            malloc. Freed before the call returns (a cache's excepted) */
} fg_pack_desc;

typedef struct fg_pack_result {
  uint64_t makespan;
  uint64_t load;
  int optimal;           /* 1 only when proved: makespan == load, or == the weight of a set of
                            pairwise-meeting items (cycles), or the exact search finished */
  uint64_t bound;        /* the largest lower bound proved (<= makespan): LOAD, the heaviest set
                            of pairwise-meeting items (cycles; best only), or the makespan itself
                            once an exact search proved it minimal */
  int bound_partial;     /* 1 when a heavier set of pairwise-meeting items may exist: the exact
                            clique search (~0.1 ms at n = 200) was cut by the time budget or
                            skipped (very large n), the solver is a baseline (they report LOAD
                            only), or granularity rounding changed the weights */
  int replayed;          /* 1 when best returned the hint's replay as it was (hint_makespan) */
  int fits;              /* with desc.capacity: 1 when makespan <= capacity; without: 1 */
  int proved;            /* with desc.capacity: the answer is certain. fits = 1: always (the
                            packing shows it). fits = 0, proved = 1: no packing fits (a lower
                            bound is above capacity, or the exact search ran out of packings;
                            bound is then above capacity). fits = 0, proved = 0: unknown
                            within the budget; offsets are the best packing found. Without a
                            capacity: 0 */
} fg_pack_result;

/* Returns 0 on success; on user error (unknown solver, bad item) returns -1
 * and writes a message naming the item/field into err. offsets has n slots. */
int fg_pack(const fg_pack_item *items, size_t n, const fg_pack_desc *desc,
            uint64_t *offsets, fg_pack_result *res, char *err, size_t errlen);

/* Independent checker. Returns 1 when valid; 0 with a message naming the two
 * offending items (or the misaligned one) otherwise. */
int fg_check_packing(const fg_pack_item *items, size_t n, const uint64_t *offsets,
                     const fg_pack_desc *desc, char *msg, size_t msglen);

/* LOAD: maximum over time of the total size of live items; UINT64_MAX when
 * that sum does not fit in 64 bits (it saturates, never wraps). */
uint64_t fg_pack_load(const fg_pack_item *items, size_t n, uint64_t period);

/* Names of all strategies, NULL-terminated (for benches and Lua). */
extern const char *const fg_pack_solvers[];
/* The same names by index (the first is the default): count, and name i or
 * NULL past the end. */
size_t fg_pack_solver_count(void);
const char *fg_pack_solver_name(size_t i);

#endif
