/* fg_pack: the strategy table and the entry point. Everything else lives in
 * layers below (pack_internal.h lists them); nothing below calls back here. */
#include "pack_best.h"
#include "pack_mem.h"
#include "pack_cache.h"
#include "pack_check.h"
#include "pack_decide.h"
#include "pack_greedy.h"
#include "pack_inst.h"
#include "pack_tune.h"
#include <stdlib.h>
#include <string.h>

/* One signature for every strategy: best reads the desc's budgets and LOAD
 * and may prove optimality and a bound above LOAD; the baselines only write
 * offsets. */
typedef int (*pk_solver_fn)(const pk_inst *in, const fg_pack_desc *desc, uint64_t load, uint64_t *off,
                            pk_outcome *oc);
#define PK_BASELINE(NAME)                                                                          \
  static int solve_##NAME(const pk_inst *in, const fg_pack_desc *desc, uint64_t load, uint64_t *off, \
                          pk_outcome *oc) {                                                        \
    return pk_##NAME(in, off);                                                                     \
  }
PK_BASELINE(thesis)
PK_BASELINE(scanline)
PK_BASELINE(bysize)
PK_BASELINE(buckets)
PK_BASELINE(pool)
PK_BASELINE(none)

/* The one list where solver names meet their functions, in the order of
 * fg_pack_solvers (the first is the default). */
#define PK_SOLVERS(X)                                                                              \
  X("best", pk_best)                                                                               \
  X("thesis", solve_thesis)                                                                        \
  X("scanline", solve_scanline)                                                                    \
  X("bysize", solve_bysize)                                                                        \
  X("buckets", solve_buckets)                                                                      \
  X("pool", solve_pool)                                                                            \
  X("none", solve_none)

#define PK_NAME(name, fn) name,
const char *const fg_pack_solvers[] = {PK_SOLVERS(PK_NAME) NULL};
#undef PK_NAME

typedef struct pk_solver { const char *name; pk_solver_fn fn; } pk_solver;
#define PK_ENTRY(name, fn) {name, fn},
static const pk_solver solvers[] = {PK_SOLVERS(PK_ENTRY)};
#undef PK_ENTRY
#define NSOLVERS (sizeof solvers / sizeof *solvers)

size_t fg_pack_solver_count(void) { return NSOLVERS; }
const char *fg_pack_solver_name(size_t i) { return i < NSOLVERS ? solvers[i].name : NULL; }

static const pk_solver *find_solver(const char *name) {
  for (size_t k = 0; k < NSOLVERS; k++)
    if (!strcmp(name, solvers[k].name)) return &solvers[k];
  return NULL;
}

/* "best, thesis, ...": the names for an error message, from the table. */
static void solver_list(char *buf, size_t len) {
  size_t at = 0;
  buf[0] = 0;
  for (size_t k = 0; k < NSOLVERS; k++) {
    fg_errf(buf + at, len - at, "%s%s", k ? ", " : "", solvers[k].name);
    at += strlen(buf + at); /* fg_errf terminates within what is left: at < len */
  }
}

/* Every solver places items at most at the sum of what came before, each
 * rounded up to its alignment and granularity page; the exact clique bound
 * adds and subtracts item weights in signed 64-bit sums that may reach twice
 * the total. Bounding the padded sum by 2^62 keeps every offset, end,
 * makespan and bound exact (found by fuzz_pack under UBSan). */
static int check_total(const fg_pack_item *items, size_t n, uint64_t granularity, char *err, size_t errlen) {
  const uint64_t limit = (UINT64_MAX >> 2);  /* 2^62 - 1 */
  uint64_t total = 0, pad = granularity > 1 ? granularity - 1 : 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t a = items[i].align ? items[i].align : 1, need = items[i].size;
    if (need > limit || a - 1 > limit - need || pad > limit - need - (a - 1) ||
        total > limit - need - (a - 1) - pad) {
      fg_errf(err, errlen,
              "item %zu: the sizes add up past 2^62 bytes (with alignment and granularity padding), "
              "so offsets could not be represented; split the problem or use smaller sizes", i + 1);
      return -1;
    }
    total += need + (a - 1) + pad;
  }
  return 0;
}

/* time_budget_ms at or above this (math.huge too) is no wall-clock limit */
#define HUGE_MS 1e12
#define HUGE_WORK (1000 * (uint64_t)(DEFAULT_BUDGET_MS * 1e6))

static int pack_call(const fg_pack_item *items, size_t n, const fg_pack_desc *desc, uint64_t *offsets,
                     fg_pack_result *res, char *err, size_t errlen);

/* The clock of the call (pk_clk): the wall clock only under an explicit,
 * finite time_budget_ms; else work, so that the default packing depends on
 * the items alone. A budget above the default runs the default first and
 * keeps the better packing: more budget is never worse. */
static int pack_hooked(const fg_pack_item *items, size_t n, const fg_pack_desc *desc, uint64_t *offsets,
                       fg_pack_result *res, char *err, size_t errlen);

_Thread_local const fg_alloc_hooks *pk_hooks;

/* The call's hooks are the scope of every allocation below (pack_mem.h). */
int fg_pack(const fg_pack_item *items, size_t n, const fg_pack_desc *desc, uint64_t *offsets,
            fg_pack_result *res, char *err, size_t errlen) {
  fg_pack_desc d0 = {0};
  if (!desc) desc = &d0;
  if (desc->cache && !pk_cache_hooks_match(desc->cache, desc->hooks)) {
    fg_errf(err, errlen, "desc.cache was made with other allocation hooks than desc.hooks: make the cache with "
            "fg_pack_cache_new_hooks(desc.hooks)");
    return -1;
  }
  const fg_alloc_hooks *prev = pk_hooks;
  pk_hooks = desc->hooks;
  int rc = pack_hooked(items, n, desc, offsets, res, err, errlen);
  pk_hooks = prev;
  return rc;
}

static int pack_hooked(const fg_pack_item *items, size_t n, const fg_pack_desc *desc, uint64_t *offsets,
                       fg_pack_result *res, char *err, size_t errlen) {
  double ms = desc->time_budget_ms;
  if (!(ms >= 0)) {
    fg_errf(err, errlen, "time_budget_ms must be >= 0 (got %g): 0 for the deterministic default, "
            "a positive number of milliseconds for a wall-clock budget", ms);
    return -1;
  }
  const char *name = desc->solver ? desc->solver : solvers[0].name;
  const pk_solver *solver = find_solver(name);
  fg_pack_desc d = *desc;
  pk_clock clk = {0, ms > 0 && ms < HUGE_MS}, *prev = pk_clk;
  if (ms >= HUGE_MS) {
    d.time_budget_ms = 0;
    if (!d.work_budget) d.work_budget = HUGE_WORK;
  }
  double def_ns = (d.offset_hint ? DEFAULT_HINT_BUDGET_MS : DEFAULT_BUDGET_MS) * 1e6;
  /* (not in capacity mode: a decision has its own budget and answer) */
  int bigger = solver && solver->fn == pk_best && n && !d.capacity &&
               (clk.wall ? ms * 1e6 > def_ns : (double)d.work_budget > def_ns);
  uint64_t *first = bigger ? pk_mem_alloc(sizeof(uint64_t) * n) : NULL;
  fg_pack_result r0;
  if (first) {
    fg_pack_desc dd = d;
    dd.time_budget_ms = 0;
    dd.work_budget = 0;
    pk_clock c0 = {0, 0};
    pk_clk = &c0;
    int rc0 = pack_call(items, n, &dd, first, &r0, err, errlen);
    pk_clk = prev;
    if (rc0) { pk_mem_free(first); return rc0; }
  }
  pk_clk = &clk;
  fg_pack_result rr;
  int rc = pack_call(items, n, &d, offsets, &rr, err, errlen);
  pk_clk = prev;
  if (!rc && first && r0.makespan < rr.makespan) {
    memcpy(offsets, first, sizeof(uint64_t) * n);
    uint64_t bound = rr.bound > r0.bound ? rr.bound : r0.bound;
    int partial = rr.bound > r0.bound ? rr.bound_partial : r0.bound_partial;
    rr = r0;
    rr.bound = bound;
    rr.optimal = r0.optimal || r0.makespan <= bound;
    rr.bound_partial = rr.optimal ? 0 : partial;
  }
  if (!rc && res) *res = rr;
  pk_mem_free(first);
  return rc;
}

static int pack_call(const fg_pack_item *items, size_t n, const fg_pack_desc *desc, uint64_t *offsets,
                     fg_pack_result *res, char *err, size_t errlen) {
  const char *name = desc->solver ? desc->solver : solvers[0].name;
  const pk_solver *solver = find_solver(name);
  if (!solver) {
    char names[128];
    solver_list(names, sizeof names);
    fg_errf(err, errlen, "unknown solver '%s' (expected one of %s)", name, names);
    return -1;
  }
  if (pk_check_items(items, n, desc->period, err, errlen)) return -1;
  if (check_total(items, n, desc->granularity, err, errlen)) return -1;
  if (desc->cache && pk_cache_sync(desc->cache, items, n, desc->period)) {
    fg_errf(err, errlen, "out of memory");
    return -1;
  }
  fg_pack_result r = {0, 0, 0, 0, 0, 0, 1, 0};
  if (n == 0) {
    r.optimal = 1;
    r.proved = desc->capacity > 0;
    if (res) *res = r;
    return 0;
  }
  pk_inst in;
  if (pk_build(&in, items, n, desc)) {
    fg_errf(err, errlen, "out of memory");
    return -1;
  }
  in.cache = desc->cache;
  r.load = pk_profile(&in, NULL, 1);
  pk_outcome oc = {0, r.load, in.cyclic, 0};
  pk_decision dc = {0, 0, 0, 0, 0};
  int decide = desc->capacity && solver == &solvers[0]; /* best: the capacity is the question */
  int rc = decide ? pk_decide(&in, desc, r.load, offsets, &dc) : solver->fn(&in, desc, r.load, offsets, &oc);
  if (decide) oc = (pk_outcome){dc.optimal, dc.bound, dc.bound_partial, 0};
  pk_free(&in);
  if (rc) {
    fg_errf(err, errlen, "out of memory");
    return -1;
  }
  for (size_t i = 0; i < n; i++)
    if (offsets[i] + items[i].size > r.makespan) r.makespan = offsets[i] + items[i].size;
  r.optimal = r.makespan == r.load || oc.optimal;
  /* a proved optimum is the best bound there is */
  r.bound = r.optimal ? r.makespan : oc.bound;
  r.bound_partial = r.optimal ? 0 : oc.bound_partial;
  r.replayed = oc.replayed;
  if (desc->capacity) { /* the other solvers only compare: no is proved by LOAD alone */
    r.fits = r.makespan <= desc->capacity;
    r.proved = decide ? dc.proved : r.fits || r.load > desc->capacity;
  }
  if (res) *res = r;
  return 0;
}
