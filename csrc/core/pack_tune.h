/* The packers' tuned constants, in one place (best: pack_best*.c,
 * pack_dive.c; the decision search: pack_search*.c). Each knob is one line
 * of why; the measurements behind them are in bench/journal.md,
 * "Packer tuning constants: history". Changing any of them changes
 * packings: test_pack's fingerprints (test_best_unchanged) say so.
 * "Shares" are integer divisions of the time left, written as divisors so
 * the arithmetic is exactly the one measured. */
#ifndef FG_PACK_TUNE_H
#define FG_PACK_TUNE_H

/* ---- best: budgets ---- */
/* a call's time budget when desc gives none: the baselines run regardless */
#define DEFAULT_BUDGET_MS 0.5
/* a re-plan's (offset_hint): latency matters more, the hint carries the earlier search's work */
#define DEFAULT_HINT_BUDGET_MS 0.05
/* node budget when desc gives none: ends a run without a time limit */
#define DEFAULT_NODES 2000000
/* Above this many items only the sweep (pack_sweep.c, O(n log n)) always
 * runs; the baselines (quadratic: 100,000 items took 36 s), the first-fit
 * replay and everything after them only within the budget, so best is
 * never worse than a baseline that finished in it */
#define LARGE_N 4096
/* above LARGE_N the sweep runs from this / n cuts of a cycle (at most 8), the lowest kept: 2 at 30,000 items (about 1 % lower), 1 from 50,000 */
#define SWEEP_CUT_ITEMS 60000
/* above LARGE_N a line runs this / n peak sweeps (1 to 3: the latest start lowest with the lifetime-aware fit,
 * with plain best fit, the latest end lowest; pack_best_start.c), the lowest kept; 2 at 30,000 items, 1 from
 * 60,000. Random lines against the plain sweeps before (size order, reversed, reversed by length): 30,000 items
 * 1.072 -> 1.031 (T=10000 short), 1.021 -> 1.012 (T=1000 long) x LOAD. Not on cycles: their halves meet
 * badly (journal, "Scale: peak sweeps"); they sweep from several cuts */
#define SWEEP_RUN_ITEMS 60000
/* above LARGE_N on a cycle the skyline dive (pack_skyline.c) may do this much work per item by default
 * (a unit is 2-3.5 ns on dev: 30,000 items about 0.1 s at most, beside the sweeps' 0.10-0.15 s), or what an
 * explicit budget has left at SKYLINE_NS ns a unit */
#define SKYLINE_ITEM_WORK 1800
#define SKYLINE_NS 3
/* where it would pass that, the skyline dive runs again on time in runs of 2, 4, ... up to this many points */
#define SKYLINE_COARSEST 16
/* above LARGE_N, where a clique weighs more than LOAD (history copies), the quick first fit runs
 * first with this much work per item (or the budget, if more): bench_compile's 10,000 nodes (21,598
 * items) reach their bound with 1411 per item, in about a third of the sweep path's time */
#define FF_LARGE_WORK 2048
/* a re-plan's replay is kept within this of its source's makespan / bound (searching on gains 0.002 %) */
#define REPLAN_SLACK 0.005

/* ---- best: what runs at which size ---- */
/* exact branch and bound and the classic orders up to this many items: above, a node is O(n^2) */
#define EXACT_MAX_N 64
/* up to this many the exact search goes before the decision search (its quick proofs end calls) */
#define EXACT_FIRST_N 32
/* up to this many items conflict bits always, no time index */
#define SMALL_BITS_N 512
/* conflict bits where no time index pays, up to this many items (n^2 / 8 bytes) */
#define BITS_MAX_N 4096
/* never conflict bits above this many items (memory) */
#define BUILD_BITS_MAX_N 8192
/* the exact clique bound runs where its cost estimate stays below this */
#define CLIQUE_MAX_WORK 200000000ull

/* ---- best: canonical dives (pack_dive.c) ---- */
/* a dive's cost per pair of items, ns, a little above dev's measure (dive_once) */
#define DIVE_PAIR_NS 4
/* the same on conflict bits (dive_bits) */
#define DIVE_BITS_PAIR_NS 3
/* dives go on while fruitless ones number at most max(this, those to the last gain) */
#define DIVE_PATIENCE 32
/* the first dives get 1 / DIVE_TIME_DIV of the time left */
#define DIVE_TIME_DIV 2
/* the dives after the baselines (above EXACT_MAX_N items) get this share of what is left */
#define DIVE_REST_SHARE 0.9
/* key exponent of length, drawn in [1, 1 + span) on cycles: long lifetimes first matter with history */
#define DIVE_BETA_SPAN 12.0
/* ... on lines (no load terms): the MiniMalloc instances reach their optimum sooner so */
#define DIVE_BETA_SPAN_LINE 5.0
/* key exponent of the mean load over the lifetime / peak, in [0, span): scarce memory decides */
#define DIVE_GAMMA_SPAN 70.0
/* key exponent of the highest load over the lifetime / peak, in [0, span) */
#define DIVE_DELTA_SPAN 100.0
/* key exponent of the bytes of the items met / all bytes, in [0, span), where there are bits */
#define DIVE_OMEGA_SPAN 12.0
/* on cycles the first dive takes this point of every span (was 0: much worse alone) */
#define DIVE_FIRST_MID 0.5
/* from the second dive on, lowest offsets within a power of two below this x bound tie */
#define DIVE_SLACK 0.005

/* ---- best: flat loads (pack_tile) ---- */
/* pack_tile gets NUM / DEN of the time left: on such instances nothing else comes near */
#define TILE_SHARE_NUM 3
#define TILE_SHARE_DEN 4

/* ---- best: ruin and recreate ---- */
/* late acceptance's history: a move is kept if no worse than the cost this many iterations ago */
#define LAHC_LEN 64
/* on lines it stops after max(this, iterations to the last gain) fruitless ones */
#define RUIN_LINE_STALL 500
/* stagnation stop on every shape: this many fruitless iterations plus ... */
#define RUIN_PATIENCE 20000
/* ... this many per item (cannot prove anything where the optimum is above every bound) */
#define RUIN_PATIENCE_PER_ITEM 100
/* on lines it keeps 1 / RUIN_LINE_DIV of the time; the decision search solves perfect fits */
#define RUIN_LINE_DIV 8
/* below this much time left a line's decision search gets all of it (ns) */
#define LINE_RUIN_MIN_NS 2000000ull
/* a line keeps it all where the search would get under this x n^2 ns (one set-up, a few hundred nodes) */
#define LINE_SEARCH_MIN_PAIR_NS 15
/* on cycles up to EXACT_MAX_N items it keeps 1 / RUIN_SMALL_DIV (the exact search does more with the rest) */
#define RUIN_SMALL_DIV 2
/* on larger cycles 1 / RUIN_CYCLE_DIV where there is RUIN_CYCLE_PAIR_NS x n^2 ns, else all */
#define RUIN_CYCLE_DIV 4
#define RUIN_CYCLE_PAIR_NS 60

/* ---- best: the searches after it ---- */
/* the decision search is not started with less than this x n^2 ns left (its set-up alone) */
#define SEARCH_MIN_PAIR_NS 8
/* it gets its deadline this x n^2 ns early: it overruns by about its last set-up */
#define SEARCH_EARLY_PAIR_NS 3
/* on small instances the exact search first gets 1 / EXACT_SHARE_DIV of the time left */
#define EXACT_SHARE_DIV 2

/* ---- fg_pack's capacity mode (pack_decide.c) ---- */
/* its budget when desc gives none: it ends once settled, and MiniMalloc's instances take 0.2 s */
#define DECIDE_DEFAULT_BUDGET_MS 1000.0
/* best's steps get 1 / DECIDE_BEST_DIV of it: they settle generous capacities, the search tight ones */
#define DECIDE_BEST_DIV 16

/* ---- the decision search's driver (pk_search_improve) ---- */
/* the first attempt (at the bound plus padding) gets NUM / DEN of the time left */
#define PS_FIRST_SLICE_NUM 3
#define PS_FIRST_SLICE_DEN 4
/* each later bisection attempt 1 / PS_SLICE_DIV of it */
#define PS_SLICE_DIV 3
/* bisection stops within 1 / PS_TOL_DIV of the bound (0.1 %), also the padding's cap */
#define PS_TOL_DIV 1024
/* an attempt starts only with this x the longest set-up seen left (set-ups cannot be cut short) */
#define PS_SETUP_MARGIN 2
/* the clock is read every 1-PS_CLOCK_EVERY_MAX events, starting at PS_CLOCK_EVERY0 ... */
#define PS_CLOCK_EVERY0 8
#define PS_CLOCK_EVERY_MAX 16
/* ... readings aimed between these (ns): 64 nodes of 150 items overran 0.5 ms budgets */
#define PS_CLOCK_FAST_NS 3000
#define PS_CLOCK_SLOW_NS 20000

#endif
