-- framegraph.pack: cyclic dynamic storage allocation (the C core's fg_pack).
--   fg.pack(items, opts) -> {offsets = {...}, makespan =, load =, optimal = bool,
--                            bound =, bound_partial = bool[, fits = bool, proved = bool]}
--     bound: the largest lower bound proved (LOAD; with "best" on a cycle the
--     heaviest set of pairwise-meeting items, exactly; the makespan when
--     optimal); bound_partial: a heavier such set may exist (baselines on a
--     cycle report LOAD only; granularity rounding)
--     items: {{start=, stop=, size=, align=, kind=, group=}, ...}
--     opts:  period (> 0: cyclic timeline), solver (one of fg.vocab.solvers:
--            "best"|"thesis"|"scanline"|"bysize"|"buckets"|"pool"|"none"),
--            granularity, time_budget_ms, node_budget, work_budget, seed,
--            capacity; each checked by the rule fg.compile and fg.runtime use
--            too (docs/api.md "Options"). Without time_budget_ms the budget is
--            work (work_budget, default 500000, about 0.5 ms): the same items,
--            the same offsets on any machine; time_budget_ms > 0 is wall clock;
--            math.huge: no wall-clock limit, bounded by 1000 x the default work
--     capacity (bytes > 0): a decision, "does it fit, and where?". fits: a
--     packing within capacity; fits = false, proved = true: none can fit (a
--     lower bound is above it, or the exact search ran out); fits = false,
--     proved = false: unknown within the budget (the best packing found is
--     returned). With "best" the budget (default 1000 ms with a capacity)
--     goes to settling it and the call ends once settled. Without a
--     capacity the result has neither field
--   fg.check_packing(items, offsets, opts) -> true | false, message
--   fg.pack_load(items, period) -> LOAD (max bytes live at once)
local core = require("framegraph.core")

return {
  pack = core.pack,
  check_packing = core.check_packing,
  pack_load = core.pack_load,
  pack_solvers = core.pack_solvers,
}
