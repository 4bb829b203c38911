/* The lower bound fg_pack reports: the exact clique bound against subset
 * enumeration on small random cycles, and fg_pack_result.bound /
 * bound_partial for every strategy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fg_pack.h"
#include "pack_internal.h"
#include "../bench/gen_guillotine.h"

#define FG_TEST_SEED 0xB0D1Dull
#include "fg_test.h"

static int arc_has(const fg_pack_item *x, uint64_t t, uint64_t period) {
  uint64_t a = x->start, b = x->stop;
  if (a == b) return 1;
  if (a < b) return a <= t && t < b;
  (void)period;
  return t >= a || t < b;
}
static int meets(const fg_pack_item *x, const fg_pack_item *y, uint64_t period) {
  return arc_has(x, y->start, period) || arc_has(y, x->start, period);
}

/* The heaviest set of pairwise-meeting items by trying every subset. */
static uint64_t brute_clique(const fg_pack_item *a, int n, uint64_t period) {
  uint64_t best = 0;
  for (uint32_t m = 1; m < (1u << n); m++) {
    uint64_t w = 0;
    int ok = 1;
    for (int i = 0; i < n && ok; i++) {
      if (!(m >> i & 1)) continue;
      w += a[i].size;
      for (int j = i + 1; j < n && ok; j++)
        if ((m >> j & 1) && !meets(&a[i], &a[j], period)) ok = 0;
    }
    if (ok && w > best) best = w;
  }
  return best;
}

/* Random arcs: many long ones (a frame graph's history copies make cliques
 * without a common point), some whole-cycle ones, some short. */
static void random_arcs(fg_pack_item *a, int n, uint64_t T) {
  for (int i = 0; i < n; i++) {
    uint64_t s = rndu(T), kind = rndu(8);
    uint64_t len = kind < 4 ? T / 2 + rndu(T / 2) : kind < 7 ? 1 + rndu(T / 2) : T;
    uint64_t e = len >= T ? s : (s + len) % T;
    a[i] = (fg_pack_item){s, e, 1 + rndu(1000), 1, 0, 0};
  }
}

static void test_exact_clique(void) {
  fg_pack_item a[14];
  int above = 0;
  for (int iter = 0; iter < 3000; iter++) {
    int n = 2 + (int)rndu(13);
    uint64_t T = 3 + rndu(20);
    random_arcs(a, n, T);
    fg_pack_desc d = {0};
    d.period = T;
    pk_inst in;
    CHECK(pk_build(&in, a, (size_t)n, &d) == 0, "pk_build");
    uint64_t load = pk_profile(&in, NULL, 0), real = 0;
    int ex1 = 0, ex2 = 0;
    uint64_t w = pk_clique_exact(&in, 0, 0, &real, &ex1), want = brute_clique(a, n, T);
    uint64_t wf = pk_clique_exact(&in, load, 0, &real, &ex2);
    CHECK(ex1 && ex2, "iter %d: no deadline, yet not exact", iter);
    pk_free(&in);
    CHECK(w == want, "iter %d n %d T %llu: exact clique %llu, subsets say %llu", iter, n, (unsigned long long)T,
          (unsigned long long)w, (unsigned long long)want);
    /* above a floor: the same clique when heavier, else 0 */
    CHECK(wf == (want > load ? want : 0), "iter %d: floor LOAD %llu gave %llu (clique %llu)", iter,
          (unsigned long long)load, (unsigned long long)wf, (unsigned long long)want);
    CHECK(!wf || real == wf, "iter %d: real bytes %llu of a clique weighing %llu", iter, (unsigned long long)real,
          (unsigned long long)wf);
    if (want > load) above++;
  }
  /* the test means something only if many cliques beat LOAD */
  CHECK(above > 300, "only %d of 3000 instances have a clique above LOAD", above);
  printf("exact clique: %d of 3000 random cycles have a clique above LOAD, all matched\n", above);
}

/* Large cycles, beyond subset enumeration: the heaviest clique is the
 * same in time-reversed order (another cut point, other candidate points
 * q), above the greedy one, and real bytes match without granularity.
 * From about 150 items A_p holds more than 64 distinct gap ends, so both
 * of cq_at's level paths (ranks in a word, searched levels) run. */
static void test_exact_clique_large(void) {
  enum { N = 400 };
  fg_pack_item *a = malloc(sizeof(fg_pack_item) * N);
  for (int iter = 0; iter < 60; iter++) {
    int n = 20 + (int)rndu(N - 19);
    uint64_t T = 50 + rndu(2000);
    random_arcs(a, n, T);
    fg_pack_desc d = {0};
    d.period = T;
    pk_inst in, rev;
    CHECK(pk_build(&in, a, (size_t)n, &d) == 0 && pk_reverse(&in, &rev) == 0, "pk_build");
    uint64_t r1 = 0, r2 = 0, rg = 0;
    int ex1 = 0, ex2 = 0;
    uint64_t w1 = pk_clique_exact(&in, 0, 0, &r1, &ex1), w2 = pk_clique_exact(&rev, 0, 0, &r2, &ex2);
    uint64_t g = pk_clique_greedy(&in, &rg);
    CHECK(ex1 && ex2 && w1 == w2, "iter %d n %d: exact clique %llu, reversed %llu", iter, n, (unsigned long long)w1,
          (unsigned long long)w2);
    CHECK(w1 >= g && r1 == w1 && r2 == w2, "iter %d n %d: exact %llu (real %llu) below greedy %llu", iter, n,
          (unsigned long long)w1, (unsigned long long)r1, (unsigned long long)g);
    pk_free(&in);
    pk_free(&rev);
  }
  free(a);
}

static void test_result_bound(void) {
  enum { N = 12 };
  fg_pack_item a[N];
  uint64_t off[N];
  char err[256];
  int partial_best = 0;
  for (int iter = 0; iter < 300; iter++) {
    int n = 2 + (int)rndu(N - 1);
    uint64_t T = 4 + rndu(20);
    random_arcs(a, n, T);
    uint64_t cl = brute_clique(a, n, T);
    for (size_t k = 0; fg_pack_solvers[k]; k++) {
      fg_pack_desc d = {0};
      d.period = iter % 5 ? T : 0;
      if (!d.period)
        for (int i = 0; i < n; i++) /* a line: unwrap every arc */
          if (a[i].stop <= a[i].start) a[i].stop = T, a[i].start = a[i].start < T - 1 ? a[i].start : 0;
      d.solver = fg_pack_solvers[k];
      fg_pack_result r;
      CHECK(fg_pack(a, (size_t)n, &d, off, &r, err, sizeof err) == 0, "%s", err);
      CHECK(r.bound >= r.load && r.bound <= r.makespan, "iter %d %s: bound %llu outside [LOAD %llu, makespan %llu]",
            iter, d.solver, (unsigned long long)r.bound, (unsigned long long)r.load, (unsigned long long)r.makespan);
      CHECK(!r.optimal || (r.bound == r.makespan && !r.bound_partial), "iter %d %s: optimal but bound %llu of %llu",
            iter, d.solver, (unsigned long long)r.bound, (unsigned long long)r.makespan);
      if (!strcmp(d.solver, "best") && d.period) {
        /* best's bound holds the heaviest clique, and says it is exact */
        CHECK(r.bound >= cl, "iter %d: best's bound %llu below the clique %llu", iter, (unsigned long long)r.bound,
              (unsigned long long)cl);
        partial_best += r.bound_partial;
      }
      if (!d.period) CHECK(!r.bound_partial, "iter %d %s: a line's LOAD bound called partial", iter, d.solver);
    }
  }
  CHECK(partial_best == 0, "best called its bound partial %d times", partial_best);
}

/* Guillotine instances: the construction is a valid packing at OPT = H =
 * LOAD; small ones are solved to that optimum (and proved); larger ones
 * get a valid packing, bound H, no worse than any baseline. */
static void test_guillotine(void) {
  enum { N = 60 };
  fg_pack_item a[N];
  uint64_t off[N], opt_off[N], gs = 42;
  gg_rect scratch[N];
  char err[256];
  int solved = 0, tried = 0;
  for (int iter = 0; iter < 120; iter++) {
    int cyclic = iter & 1, n = iter < 100 ? 3 + iter % 10 : N;
    uint64_t T = 2 * (uint64_t)n, H = 1000 + gg_rnd(&gs) % 5000;
    uint64_t opt = gg_generate(a, opt_off, scratch, (size_t)n, T, H, cyclic, &gs);
    fg_pack_desc d = {0};
    d.period = cyclic ? T : 0;
    CHECK(opt == H && fg_pack_load(a, (size_t)n, d.period) == H, "iter %d: LOAD %llu, H %llu", iter,
          (unsigned long long)fg_pack_load(a, (size_t)n, d.period), (unsigned long long)H);
    CHECK(fg_check_packing(a, (size_t)n, opt_off, &d, err, sizeof err) == 1, "iter %d: construction: %s", iter, err);
    d.time_budget_ms = n <= 12 ? 10000 : 20; /* small: the exact search ends it long before */
    fg_pack_result r;
    CHECK(fg_pack(a, (size_t)n, &d, off, &r, err, sizeof err) == 0, "%s", err);
    CHECK(fg_check_packing(a, (size_t)n, off, &d, err, sizeof err) == 1, "iter %d: %s", iter, err);
    CHECK(r.bound == H && r.makespan >= H, "iter %d: bound %llu makespan %llu, OPT %llu", iter,
          (unsigned long long)r.bound, (unsigned long long)r.makespan, (unsigned long long)H);
    if (n <= 12) {
      tried++;
      solved += r.makespan == H;
      CHECK(r.makespan == H && r.optimal, "iter %d n %d %s: makespan %llu, OPT %llu", iter, n,
            cyclic ? "cyclic" : "linear", (unsigned long long)r.makespan, (unsigned long long)H);
    }
    for (size_t k = 1; fg_pack_solvers[k]; k++) {
      fg_pack_desc b = d;
      b.solver = fg_pack_solvers[k];
      fg_pack_result rb;
      CHECK(fg_pack(a, (size_t)n, &b, off, &rb, err, sizeof err) == 0, "%s", err);
      CHECK(r.makespan <= rb.makespan, "iter %d: best %llu, %s %llu", iter, (unsigned long long)r.makespan, b.solver,
            (unsigned long long)rb.makespan);
    }
  }
  printf("guillotine: %d of %d small instances solved to their known optimum\n", solved, tried);
}

/* The alignment bound (pk_align_bound). Items that all meet at one point
 * pack best as a stack in some order, each at the lowest aligned offset
 * above the one before: every order of up to 6 items tried. The bound
 * never passes that optimum, equals it when every alignment is the same
 * (then each item but the top takes its size rounded up), and exceeds
 * LOAD in the textbook case (three 4-byte items aligned to 8: 20). On
 * random cycles and lines it never passes best's makespan either. */
static uint64_t stack_opt(const fg_pack_item *a, int n) {
  int p[6];
  for (int i = 0; i < n; i++) p[i] = i;
  uint64_t best = UINT64_MAX;
  for (;;) {
    uint64_t top = 0;
    for (int k = 0; k < n; k++) {
      uint64_t al = a[p[k]].align;
      top = (top + al - 1) / al * al + a[p[k]].size;
    }
    if (top < best) best = top;
    int i = n - 2; /* next permutation */
    while (i >= 0 && p[i] > p[i + 1]) i--;
    if (i < 0) break;
    int j = n - 1;
    while (p[j] < p[i]) j--;
    int t = p[i]; p[i] = p[j]; p[j] = t;
    for (int l = i + 1, r = n - 1; l < r; l++, r--) { t = p[l]; p[l] = p[r]; p[r] = t; }
  }
  return best;
}
static void test_align_bound(void) {
  uint64_t gs = 77;
  fg_pack_item a[64];
  fg_pack_desc d = {0};
  pk_inst in;
  for (int i = 0; i < 3; i++) a[i] = (fg_pack_item){0, 1, 4, 8, 0, 0};
  CHECK(pk_build(&in, a, 3, &d) == 0, "pk_build");
  uint64_t b = pk_align_bound(&in, 12);
  CHECK(b == 20, "three 4-byte items aligned to 8: bound %llu, want 20", (unsigned long long)b);
  pk_free(&in);
  for (int rep = 0; rep < 400; rep++) {
    int n = 1 + (int)(gg_rnd(&gs) % 6), same = rep % 3 == 0;
    uint64_t A = 1ull << (gg_rnd(&gs) % 5), load = 0;
    for (int i = 0; i < n; i++) {
      a[i] = (fg_pack_item){0, 1 + gg_rnd(&gs) % 3, 1 + gg_rnd(&gs) % 40, same ? A : 1ull << (gg_rnd(&gs) % 5), 0, 0};
      a[i].start = 0;
      load += a[i].size;
    }
    for (int i = 0; i < n; i++) a[i].stop = 1; /* all meet at point 0 */
    CHECK(pk_build(&in, a, (size_t)n, &d) == 0, "pk_build");
    uint64_t opt = stack_opt(a, n);
    b = pk_align_bound(&in, load);
    CHECK(b <= opt, "rep %d: alignment bound %llu above the optimum %llu", rep, (unsigned long long)b,
          (unsigned long long)opt);
    if (same) CHECK(b == opt, "rep %d: one alignment, bound %llu, optimum %llu", rep, (unsigned long long)b,
                    (unsigned long long)opt);
    pk_free(&in);
  }
  char err[256];
  for (int rep = 0; rep < 200; rep++) {
    int n = 2 + (int)(gg_rnd(&gs) % 60);
    uint64_t T = rep % 2 ? 0 : 8 + gg_rnd(&gs) % 40, L = T ? T : 50;
    for (int i = 0; i < n; i++) {
      uint64_t s = gg_rnd(&gs) % L, l = 1 + gg_rnd(&gs) % (L / 2);
      a[i] = (fg_pack_item){s, T ? (s + l) % T : s + l, 1 + gg_rnd(&gs) % 100, 1ull << (gg_rnd(&gs) % 4), 0, 0};
    }
    d.period = T;
    uint64_t off[64];
    fg_pack_result r;
    CHECK(fg_pack(a, (size_t)n, &d, off, &r, err, sizeof err) == 0, "%s", err);
    CHECK(pk_build(&in, a, (size_t)n, &d) == 0, "pk_build");
    b = pk_align_bound(&in, r.load);
    CHECK(b >= r.load && b <= r.makespan && r.bound <= r.makespan && r.bound >= b,
          "rep %d: alignment bound %llu, LOAD %llu, result bound %llu, makespan %llu", rep, (unsigned long long)b,
          (unsigned long long)r.load, (unsigned long long)r.bound, (unsigned long long)r.makespan);
    pk_free(&in);
  }
}

int main(void) {
  test_exact_clique();
  test_exact_clique_large();
  test_result_bound();
  test_guillotine();
  test_align_bound();
  if (failures) {
    printf("%d failures\n", failures);
    return 1;
  }
  printf("ok\n");
  return 0;
}
