/* bench_compile: graph compiler timings on synthetic frames built through the
 * C API (no Lua): 100, 1000 and 10000 nodes; time per stage and the
 * set_resolution re-plan (the fast path) of each (41 re-plans, 11 at 10000).
 *   usage: bench_compile [solver ...]   (default: scanline best none)
 * Each node creates 1-2 textures (most at the "main" resolution, some scaled
 * or fixed), reads 1-3 resources of the last few nodes, sometimes modifies
 * one, every 10th keeps a history; the last node's product is the output. */
#include "fg_graph.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static fg_schedule bench_schedule = FG_SCHEDULE_DEFAULT;  /* FG_SCHEDULE */

static uint64_t rng = 88172645463325252ull;
static uint32_t rnd(uint32_t n) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)(rng % n);
}

static fg_graph *build(uint32_t nodes, uint64_t *decl_ns) {
  rng = 88172645463325252ull;
  uint64_t t0 = fg_now_ns();
  fg_graph *g = fg_graph_new(NULL);
  fg_graph_add_resolution(g, "main", 1920, 1080);
  fg_graph_add_resolution(g, "shadow", 2048, 2048);
  char name[32], other[32];
  uint32_t *made = malloc(sizeof(uint32_t) * nodes * 2), nmade = 0;
  uint8_t *was_read = calloc(nodes * 2, 1);  /* modifies go before all reads: only modify unread ones */
  for (uint32_t i = 0; i < nodes; i++) {
    snprintf(name, sizeof name, "node%u", i);
    fg_graph_node_desc nd = {name, NULL, 0, i % 97 == 96, (int64_t)i, 0, 0};
    uint32_t n = fg_graph_add_node(g, &nd);
    uint32_t reads = i ? 1 + rnd(3) : 0;
    uint32_t chosen[3], nch = 0;
    for (uint32_t k = 0; k < reads && nmade; k++) {
      uint32_t window = nmade < 12 ? nmade : 12;
      uint32_t r = made[nmade - 1 - rnd(window)], dup = 0;
      for (uint32_t q = 0; q < nch; q++) dup |= chosen[q] == r;
      if (dup) continue;  /* a node declares each resource once */
      chosen[nch++] = r;
      snprintf(other, sizeof other, "r%u", r);
      if (k == 0 && !was_read[r] && rnd(6) == 0) fg_graph_node_modify(g, n, other, FG_USAGE_STORAGE, FG_STAGE_DEFAULT);
      else { fg_graph_node_read(g, n, other, FG_USAGE_SAMPLED, FG_STAGE_DEFAULT, 0); was_read[r] = 1; }
    }
    uint32_t creates = 1 + (rnd(3) == 0);
    for (uint32_t k = 0; k < creates; k++) {
      uint32_t id = nmade;
      made[nmade++] = id;
      snprintf(other, sizeof other, "r%u", id);
      fg_graph_res_desc d;
      memset(&d, 0, sizeof d);
      uint32_t kind = rnd(10);
      if (kind == 0) { d.kind = FG_RES_BUFFER; d.bytes = 4096u << rnd(6); }
      else {
        static const fg_format fmts[] = {FG_FORMAT_RGBA8_UNORM, FG_FORMAT_RGBA16_SFLOAT, FG_FORMAT_R8_UNORM,
                                         FG_FORMAT_D32_SFLOAT, FG_FORMAT_RG16_SFLOAT};
        d.format = fmts[rnd(5)];
        d.resolution = kind == 1 ? "shadow" : "main";
        d.scale_x = kind < 5 ? 1.0 : 1.0 / (1 << rnd(3));
        if (i % 10 == 3 && k == 0) d.history = FG_HISTORY_CLEAR;
      }
      fg_graph_node_create(g, n, other, &d, FG_USAGE_NONE, FG_STAGE_DEFAULT);
      if (d.history) { fg_graph_node_history(g, n, other, FG_USAGE_SAMPLED, FG_STAGE_DEFAULT, 0); was_read[id] = 1; }
    }
  }
  snprintf(other, sizeof other, "r%u", nmade - 1);
  fg_graph_add_output(g, other);
  free(made);
  free(was_read);
  *decl_ns = fg_now_ns() - t0;
  return g;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static void run(uint32_t nodes, const char *solver, int reps) {
  uint64_t decl_ns = 0;
  fg_graph *g = build(nodes, &decl_ns);
  fg_graph_compile_desc cd;
  memset(&cd, 0, sizeof cd);
  cd.solver = solver;
  cd.schedule = bench_schedule;
  uint64_t tot[16], val[16], ord[16], exp_[16], pack[16];
  if (reps > 16) reps = 16;
  for (int r = 0; r < reps; r++) {
    if (fg_graph_compile(g, &cd)) {
      printf("compile failed: %s\n", fg_graph_error(g));
      fg_graph_free(g);
      return;
    }
    fg_graph_stats s;
    fg_graph_get_stats(g, &s);
    tot[r] = s.ns_total; val[r] = s.ns_validate; ord[r] = s.ns_order; exp_[r] = s.ns_expand; pack[r] = s.ns_pack;
  }
  qsort(tot, (size_t)reps, 8, cmp_u64); qsort(val, (size_t)reps, 8, cmp_u64); qsort(ord, (size_t)reps, 8, cmp_u64);
  qsort(exp_, (size_t)reps, 8, cmp_u64); qsort(pack, (size_t)reps, 8, cmp_u64);
  int m = reps / 2;
  fg_graph_stats s;
  fg_graph_get_stats(g, &s);
  printf("%6u nodes %-9s decl %8.3f ms | compile %8.3f ms = validate+prune %7.3f, edges+order %7.3f, "
         "expand+lifetimes %7.3f, memory plan %8.3f | %u resources, heap %.1f MiB / naive %.1f MiB (LOAD %.1f)\n",
         nodes, solver, decl_ns / 1e6, tot[m] / 1e6, val[m] / 1e6, ord[m] / 1e6, exp_[m] / 1e6, pack[m] / 1e6,
         s.resources, s.heap_bytes / 1048576.0, s.naive_bytes / 1048576.0, s.load_bytes / 1048576.0);
  fg_graph_free(g);
}

/* set_resolution fast path: 100 nodes pack ~200 items (the case),
 * 1000 and 10000 nodes ~2000 and ~20000 */
static void replan(uint32_t nodes, const char *solver) {
  uint64_t decl_ns;
  fg_graph *g = build(nodes, &decl_ns);
  fg_graph_compile_desc cd;
  memset(&cd, 0, sizeof cd);
  cd.solver = solver;
  cd.schedule = bench_schedule;
  if (fg_graph_compile(g, &cd)) { printf("compile failed: %s\n", fg_graph_error(g)); fg_graph_free(g); return; }
  fg_graph_stats s;
  fg_graph_get_stats(g, &s);
  uint32_t packed = 0;
  for (uint32_t i = 0; i < fg_graph_resource_count(g); i++) packed += fg_graph_resource_get(g, i)->heap != FG_GRAPH_NONE;
  enum { RMAX = 41 };
  const int R = nodes >= 10000 ? 11 : RMAX;
  uint64_t t[RMAX];
  for (int r = 0; r < R; r++) {
    uint64_t t0 = fg_now_ns();
    fg_graph_set_resolution(g, "main", 1280 + 16 * (uint32_t)r, 720 + 9 * (uint32_t)r);
    t[r] = fg_now_ns() - t0;
  }
  qsort(t, (size_t)R, 8, cmp_u64);
  printf("set_resolution re-plan, %-9s %u packed resources (%u physical): median %.4f ms, min %.4f ms, max %.4f ms\n",
         solver, packed, s.resources, t[R / 2] / 1e6, t[0] / 1e6, t[R - 1] / 1e6);
  fg_graph_free(g);
}

int main(int argc, char **argv) {
  const char *def[] = {"scanline", "best", "none"};
  /* FG_SCHEDULE=declared|memory: the node order to compile with (default memory) */
  const char *sched = getenv("FG_SCHEDULE");
  if (sched && fg_schedule_from_name(sched) >= 0) bench_schedule = (fg_schedule)fg_schedule_from_name(sched);
  printf("node order: %s\n", fg_schedule_name(bench_schedule));
  const char **solvers = argc > 1 ? (const char **)(argv + 1) : def;
  int ns = argc > 1 ? argc - 1 : 3;
  for (int s = 0; s < ns; s++) {
    run(100, solvers[s], 9);
    run(1000, solvers[s], 7);
    run(10000, solvers[s], 3);
  }
  for (uint32_t nodes = 100; nodes <= 10000; nodes *= 10)
    for (int s = 0; s < ns; s++) replan(nodes, solvers[s]);
  return 0;
}
