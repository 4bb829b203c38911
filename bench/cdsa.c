/* bench_cdsa: every fg_pack strategy side by side, seeded.
 *  1. Enlisted bootstrap (DESIGN.md "What we are measured by" 1): n = 25..200
 *     step 25, 500, 1000; with wrapping items and without.
 *  2. MiniMalloc challenging instances (linear time, capacity 1048576).
 *  3. Guillotine instances with a known optimum (gen_guillotine.h), linear
 *     and cyclic, at --gen-budget ms (default 1000).
 *  4. The capacity mode (fg_pack_desc.capacity = 1048576, --cap-budget ms,
 *     default 1000): all eleven MiniMalloc instances and --cap-gen N (default
 *     20) generated held-out ones of each of two shapes (gen_mm).
 * Every result goes through fg_check_packing; failures are counted.
 * Usage: bench_cdsa [--instances N] [--seed S] [--ns 25,50,...] [--budget MS]
 *                   [--mm-budget MS] [--no-enlisted] [--no-minimalloc] [--solvers a,b]
 *                   [--no-gen] [--gen-ns 50,100,...] [--gen-instances N] [--gen-budget MS]
 *                   [--no-capacity] [--cap-budget MS] [--cap-gen N] [--cap-rows]
 *                   [--clique N]   (instances per n, n <= 200, whose bound from fg_pack is
 *                                   checked against this file's own clique search)
 *                   [--cpu]        (Enlisted calls timed by the thread's CPU clock, for loaded machines)
 *                   [--dump DIR]   (every enlisted instance as DIR/n<N>_<wrap|line>_<k>.txt:
 *                                   what best packs, with each solver's result; see dump_instance)
 * Quality is reported against LOAD (avg, p90, max) and against the largest
 * bound any solver proved on the instance (/bnd: best's max(LOAD, heaviest
 * clique), result.bound).
 */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "fg_pack.h"
#include "fg_util.h"
#include "gen_guillotine.h"

#ifndef FG_DATA_DIR
#define FG_DATA_DIR "data"
#endif

/* --cpu: Enlisted calls timed by the thread's CPU clock (a loaded machine
 * preempts the wall clock's calls; the CPU clock still counts cache misses) */
static int cpu_clock;
static uint64_t bench_now(void) {
  if (!cpu_clock) return fg_now_ns();
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

typedef struct hist { uint64_t *v; double *w; int n; double total; } hist;

static uint64_t rs = 1;
static uint64_t rnd(void) {
  uint64_t z = (rs += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static double rndf(void) { return (double)(rnd() >> 11) / 9007199254740992.0; }
static uint64_t draw(const hist *h) {
  double x = rndf() * h->total;
  for (int k = 0; k < h->n; k++) {
    if (x < h->w[k]) return h->v[k];
    x -= h->w[k];
  }
  return h->v[h->n - 1];
}

static int read_hist(lua_State *L, const char *field, hist *h) {
  lua_getfield(L, -1, field);
  if (!lua_istable(L, -1)) return -1;
  int cap = 64;
  h->v = malloc(sizeof(uint64_t) * cap);
  h->w = malloc(sizeof(double) * cap);
  h->n = 0;
  h->total = 0;
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    if (h->n == cap) {
      cap *= 2;
      h->v = realloc(h->v, sizeof(uint64_t) * cap);
      h->w = realloc(h->w, sizeof(double) * cap);
    }
    h->v[h->n] = (uint64_t)lua_tointeger(L, -2);
    h->w[h->n] = lua_tonumber(L, -1);
    h->total += h->w[h->n++];
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  /* lua_next order is unspecified: sort by value so draws are reproducible */
  for (int a = 1; a < h->n; a++)
    for (int b = a; b > 0 && h->v[b - 1] > h->v[b]; b--) {
      uint64_t tv = h->v[b]; h->v[b] = h->v[b - 1]; h->v[b - 1] = tv;
      double tw = h->w[b]; h->w[b] = h->w[b - 1]; h->w[b - 1] = tw;
    }
  return 0;
}

static int dcmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}
static double pct(double *v, int n, double p) {
  qsort(v, n, sizeof(double), dcmp);
  int k = (int)(p * (n - 1) + 0.5);
  return v[k];
}

/* A second lower bound: the heaviest set of pairwise-meeting items (they
 * must all be disjoint in memory). On a cycle it can exceed LOAD: arcs that
 * meet pairwise need not share a point. Exact branch and bound with a node
 * cap; any clique found is a valid bound, so a capped search stays valid. */
typedef struct mwc { int n; const uint64_t *w; const unsigned char *adj; uint64_t best; long nodes, cap; } mwc;
static void mwc_rec(mwc *c, int *cand, int nc, uint64_t cur) {
  if (++c->nodes > c->cap) return;
  if (cur > c->best) c->best = cur;
  uint64_t rest = 0;
  for (int k = 0; k < nc; k++) rest += c->w[cand[k]];
  if (cur + rest <= c->best) return;
  int *nx = malloc(sizeof(int) * (nc ? nc : 1));
  for (int k = 0; k < nc && c->nodes <= c->cap; k++) {
    int v = cand[k], m = 0;
    for (int q = k + 1; q < nc; q++)
      if (c->adj[(size_t)v * c->n + cand[q]]) nx[m++] = cand[q];
    mwc_rec(c, nx, m, cur + c->w[v]);
    rest -= c->w[v];
    if (cur + rest <= c->best) break;
  }
  free(nx);
}
static int arc_has(uint64_t a, uint64_t b, uint64_t t) {
  if (a == b) return 1;
  if (a < b) return a <= t && t < b;
  return t >= a || t < b;
}
static uint64_t clique_bound(const fg_pack_item *it, int n, long cap) {
  uint64_t *w = malloc(sizeof(uint64_t) * n);
  unsigned char *adj = malloc((size_t)n * n);
  int *cand = malloc(sizeof(int) * n);
  for (int i = 0; i < n; i++) {
    w[i] = it[i].size;
    cand[i] = i;
    for (int j = 0; j < n; j++)
      adj[(size_t)i * n + j] = i != j && (arc_has(it[i].start, it[i].stop, it[j].start) ||
                                          arc_has(it[j].start, it[j].stop, it[i].start));
  }
  for (int a = 1; a < n; a++) /* heaviest first */
    for (int b = a; b > 0 && w[cand[b - 1]] < w[cand[b]]; b--) { int t = cand[b]; cand[b] = cand[b - 1]; cand[b - 1] = t; }
  mwc c = {n, w, adj, 0, 0, cap};
  mwc_rec(&c, cand, n, 0);
  free(w); free(adj); free(cand);
  return c.best;
}

#define MAXS 10
static const char *solvers[MAXS];  /* "name" or "name:ms" (best with that budget) */
static int nsolvers = 0;
static uint64_t dump_seed = 1;

/* Splits "best:5" into the solver name and its budget (0: the run's default). */
static const char *solver_name(const char *spec, char *buf, size_t len, double *budget) {
  const char *c = strchr(spec, ':');
  if (!c) return spec;
  snprintf(buf, len, "%.*s", (int)(c - spec), spec);
  *budget = atof(c + 1);
  return buf;
}

static int clique_instances = 0; /* instances per n whose bound is checked by clique_bound */

static int bestm_index(void) {
  for (int s = 0; s < nsolvers; s++)
    if (!strcmp(solvers[s], "best")) return s;
  return -1;
}

static const char *dump_dir = NULL; /* --dump: one text file per enlisted instance */

static int u64cmp(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* The instance as best sees it (pk_build): times compressed to the K
 * distinct endpoint values (point k stands for [v_k, v_k+1)), s == e a
 * whole-cycle item; sizes and alignments are the items' own (the bench sets
 * no granularity, so nothing is rounded). Two items meet iff one's arc
 * [s, e) on the cycle of K points holds the other's s. Then each solver's
 * result, so an exact method's optimum lines up with the table's figures. */
static void dump_instance(int n, int wrap, int k, uint64_t T, const fg_pack_item *it, const fg_pack_result *res,
                          const double *ms, const int *ok, const uint64_t *off) {
  char path[1024];
  snprintf(path, sizeof path, "%s/n%d_%s_%04d.txt", dump_dir, n, wrap ? "wrap" : "line", k);
  FILE *f = fopen(path, "w");
  if (!f) { fprintf(stderr, "cannot write %s\n", path); exit(1); }
  uint64_t *v = malloc(sizeof(uint64_t) * 2 * n);
  int K = 0;
  for (int i = 0; i < n; i++) {
    v[2 * i] = it[i].start;
    v[2 * i + 1] = it[i].stop == T ? 0 : it[i].stop; /* pk_norm_stop */
  }
  qsort(v, 2 * (size_t)n, sizeof(uint64_t), u64cmp);
  for (int q = 0; q < 2 * n; q++)
    if (K == 0 || v[K - 1] != v[q]) v[K++] = v[q];
  fprintf(f, "# bench_cdsa enlisted instance %d (0 = first), seed %llu, %s wrapping; one process per n\n"
             "# with --ns %d alone draws the same sequence as the table's run for that n\n",
          k, (unsigned long long)dump_seed, wrap ? "with" : "without", n);
  fprintf(f, "n %d\nK %d\ncyclic 1\nperiod %llu\n", n, K, (unsigned long long)T);
  for (int s = 0; s < nsolvers; s++)
    if (ok[s])
      fprintf(f, "solver %s makespan %llu load %llu bound %llu optimal %d partial %d ms %.3f\n", solvers[s],
              (unsigned long long)res[s].makespan, (unsigned long long)res[s].load, (unsigned long long)res[s].bound,
              res[s].optimal, res[s].bound_partial, ms[s]);
    else
      fprintf(f, "solver %s FAIL\n", solvers[s]);
  fprintf(f, "items  # s e size align (compressed points), start stop (raw times), offset in the lowest "
             "packing found (checked)\n");
  for (int i = 0; i < n; i++) {
    uint64_t e = it[i].stop == T ? 0 : it[i].stop;
    int si = (int)((uint64_t *)bsearch(&it[i].start, v, K, sizeof(uint64_t), u64cmp) - v);
    int ei = (int)((uint64_t *)bsearch(&e, v, K, sizeof(uint64_t), u64cmp) - v);
    fprintf(f, "%d %d %llu %llu %llu %llu %llu\n", si, ei, (unsigned long long)it[i].size,
            (unsigned long long)(it[i].align ? it[i].align : 1), (unsigned long long)it[i].start,
            (unsigned long long)it[i].stop, (unsigned long long)off[i]);
  }
  free(v);
  fclose(f);
}

static void run_enlisted(hist *tl, hist *lt, hist *sz, int n, int instances, int wrap, double budget) {
  fg_pack_item *items = malloc(sizeof(fg_pack_item) * n);
  uint64_t *off = malloc(sizeof(uint64_t) * n), *lowoff = malloc(sizeof(uint64_t) * n);
  double *ratio[MAXS], *tms[MAXS], *vsb[MAXS];
  uint64_t *mk[MAXS];
  int fails[MAXS] = {0}, worse_than_base = 0;
  for (int s = 0; s < nsolvers; s++) {
    ratio[s] = malloc(sizeof(double) * instances);
    tms[s] = malloc(sizeof(double) * instances);
    vsb[s] = malloc(sizeof(double) * instances);
    mk[s] = malloc(sizeof(uint64_t) * instances);
  }
  char msg[256];
  int ncl = n <= 200 ? (clique_instances < instances ? clique_instances : instances) : 0, proved = 0, atlb = 0;
  int partial = 0, missed = 0;
  double *vslb = malloc(sizeof(double) * instances), *lbload = malloc(sizeof(double) * instances);
  for (int k = 0; k < instances; k++) {
    uint64_t T = draw(tl);
    for (int i = 0; i < n; i++) {
      uint64_t life = draw(lt), start;
      if (wrap || life == 0 || life >= T) {
        start = rnd() % T;
      } else { /* without wrapping: redraw the start inside [0, T - life] */
        start = rnd() % (T - life + 1);
      }
      uint64_t stop = wrap ? (start + life) % T : (life == 0 || life >= T ? start : start + life);
      items[i] = (fg_pack_item){start, stop, draw(sz), 8, 0, 0};
    }
    fg_pack_desc d = {0};
    d.period = T;
    d.time_budget_ms = budget;
    uint64_t bestm = 0, basem = UINT64_MAX, bestload = 0, bestbound = 0, maxbound = 0;
    int bestopt = 0, ok[MAXS] = {0};
    fg_pack_result res[MAXS];
    uint64_t lowm = UINT64_MAX; /* the lowest checked packing, kept for --dump */
    for (int s = 0; s < nsolvers; s++) {
      char nb[32];
      d.time_budget_ms = budget;
      d.solver = solver_name(solvers[s], nb, sizeof nb, &d.time_budget_ms);
      fg_pack_result r;
      uint64_t t0 = bench_now();
      int rc = fg_pack(items, n, &d, off, &r, msg, sizeof msg);
      tms[s][k] = (bench_now() - t0) / 1e6;
      if (rc || !fg_check_packing(items, n, off, &d, msg, sizeof msg)) {
        fails[s]++;
        fprintf(stderr, "FAIL %s n=%d k=%d: %s\n", solvers[s], n, k, msg);
        ratio[s][k] = 0;
        mk[s][k] = 0;
        continue;
      }
      ok[s] = 1;
      res[s] = r;
      if (dump_dir && r.makespan < lowm) {
        lowm = r.makespan;
        memcpy(lowoff, off, sizeof(uint64_t) * n);
      }
      ratio[s][k] = (double)r.makespan / (double)r.load;
      mk[s][k] = r.makespan;
      if (r.bound > maxbound) maxbound = r.bound; /* every bound proved holds for all */
      if (!strcmp(solvers[s], "best")) {
        bestm = r.makespan; bestload = r.load; bestopt = r.optimal; bestbound = r.bound;
        partial += r.bound_partial;
      }
      else if (strncmp(solvers[s], "best", 4) && r.makespan < basem) basem = r.makespan; /* baselines only */
    }
    if (bestm && basem != UINT64_MAX && bestm > basem) worse_than_base++;
    if (dump_dir) {
      double ms[MAXS];
      for (int s = 0; s < nsolvers; s++) ms[s] = tms[s][k];
      dump_instance(n, wrap, k, T, items, res, ms, ok, lowoff);
    }
    for (int s = 0; s < nsolvers; s++) vsb[s][k] = mk[s][k] ? (double)mk[s][k] / (double)maxbound : 0;
    if (bestopt) proved++;
    if (bestm) {
      vslb[k] = (double)bestm / (double)bestbound;
      lbload[k] = (double)bestbound / (double)bestload;
      if (bestm == bestbound) atlb++;
    } else {
      vslb[k] = lbload[k] = 1;
    }
    /* an independent clique search: a heavier clique than the bound is a miss */
    if (k < ncl && bestm && clique_bound(items, n, 2000000) > bestbound) missed++;
  }
  printf("\nEnlisted n=%d %s wrapping, %d instances\n", n, wrap ? "with" : "without", instances);
  printf("  %-9s %8s %8s %8s %10s %10s %6s %9s %9s\n", "solver", "avg", "p90", "max", "med ms", "max ms", "fails",
         "/bnd avg", "/bnd p90");
  for (int s = 0; s < nsolvers; s++) {
    double sum = 0, st = 0, mx = 0;
    for (int k = 0; k < instances; k++) {
      sum += ratio[s][k];
      if (tms[s][k] > st) st = tms[s][k];
      if (ratio[s][k] > mx) mx = ratio[s][k];
    }
    double p90 = pct(ratio[s], instances, 0.9), med = pct(tms[s], instances, 0.5), bs = 0;
    for (int k = 0; k < instances; k++) bs += vsb[s][k];
    printf("  %-9s %8.4f %8.4f %8.4f %10.4f %10.4f %6d %9.4f %9.4f\n", solvers[s], sum / instances, p90, mx, med,
           st, fails[s], bs / instances, pct(vsb[s], instances, 0.9));
    free(ratio[s]);
    free(tms[s]);
    free(vsb[s]);
    free(mk[s]);
  }
  if (worse_than_base) printf("  best worse than a baseline on %d instances\n", worse_than_base);
  if (bestm_index() >= 0) printf("  best proved optimal (optimal = true) on %d of %d instances\n", proved, instances);
  if (bestm_index() >= 0) {
    double a = 0, b = 0, mx = 0;
    for (int k = 0; k < instances; k++) {
      a += vslb[k];
      b += lbload[k];
      if (vslb[k] > mx) mx = vslb[k];
    }
    double lbp90 = pct(lbload, instances, 0.9);
    printf("  bound (best's result.bound) is %.4f x LOAD on average, p90 %.4f; partial on %d\n"
           "  best / bound avg %.4f, p90 %.4f, max %.4f; best == bound on %d\n",
           b / instances, lbp90, partial, a / instances, pct(vslb, instances, 0.9), mx, atlb);
    if (ncl) printf("  independent clique search on the first %d: heavier than the bound on %d\n", ncl, missed);
  }
  free(vslb);
  free(lbload);
  fflush(stdout);
  free(items);
  free(off);
  free(lowoff);
}

/* MiniMalloc's challenging instances (data/dsa): A, C, E, G, I, K shipped
 * first (tuning was measured on them); B, D, F, H, J held out. */
static const char *const mm_names[] = {"A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K"};
#define MM_N (sizeof mm_names / sizeof *mm_names)
static int mm_held_out(const char *name) { return strchr("BDFHJ", name[0]) != NULL; }

/* Reads data/dsa/NAME.1048576.csv; returns the items (n in *n) or NULL. */
static fg_pack_item *mm_read(const char *name, int *n) {
  char path[512];
  snprintf(path, sizeof path, "%s/dsa/%s.1048576.csv", FG_DATA_DIR, name);
  FILE *fp = fopen(path, "r");
  if (!fp) { printf("  %s: cannot open %s\n", name, path); return NULL; }
  char line[256];
  int cap = 1024;
  fg_pack_item *items = malloc(sizeof(fg_pack_item) * cap);
  *n = 0;
  if (!fgets(line, sizeof line, fp)) { fclose(fp); free(items); return NULL; }
  unsigned long long id, lo, hi, size;
  while (fgets(line, sizeof line, fp))
    if (sscanf(line, "%llu,%llu,%llu,%llu", &id, &lo, &hi, &size) == 4) {
      if (*n == cap) items = realloc(items, sizeof(fg_pack_item) * (cap *= 2));
      items[(*n)++] = (fg_pack_item){lo, hi, size, 1, 0, 0};
    }
  fclose(fp);
  return items;
}

static void run_minimalloc(double budget) {
  printf("\nMiniMalloc challenging (linear, capacity 1048576), best budget %.0f ms (h = held out)\n", budget);
  printf("  %-4s %5s %9s", "inst", "n", "LOAD");
  for (int s = 0; s < nsolvers; s++) printf(" %18s", solvers[s]);
  printf("\n");
  for (size_t f = 0; f < MM_N; f++) {
    int n;
    fg_pack_item *items = mm_read(mm_names[f], &n);
    if (!items) continue;
    char nm[8];
    snprintf(nm, sizeof nm, "%s%s", mm_names[f], mm_held_out(mm_names[f]) ? "h" : "");
    uint64_t *off = malloc(sizeof(uint64_t) * n);
    uint64_t load = fg_pack_load(items, n, 0);
    printf("  %-4s %5d %9llu", nm, n, (unsigned long long)load);
    for (int s = 0; s < nsolvers; s++) {
      fg_pack_desc d = {0};
      char nb[32];
      d.time_budget_ms = budget;
      d.solver = solver_name(solvers[s], nb, sizeof nb, &d.time_budget_ms);
      fg_pack_result r;
      char msg[256];
      uint64_t t0 = fg_now_ns();
      int rc = fg_pack(items, n, &d, off, &r, msg, sizeof msg);
      double ms = (fg_now_ns() - t0) / 1e6;
      if (rc || !fg_check_packing(items, n, off, &d, msg, sizeof msg)) {
        printf(" %18s", "FAIL");
        fprintf(stderr, "FAIL %s %s: %s\n", solvers[s], mm_names[f], msg);
        continue;
      }
      char cell[64];
      snprintf(cell, sizeof cell, "%.4f%s %7.1fms", (double)r.makespan / load, r.makespan == 1048576 ? "*" : " ", ms);
      printf(" %18s", cell);
    }
    printf("\n");
    fflush(stdout);
    free(items);
    free(off);
  }
  printf("  (* = makespan exactly 1048576)\n");
}

/* Guillotine instances: makespan / OPT per solver (OPT = H by construction). */
static void run_guillotine(int n, int instances, int cyclic, double budget, uint64_t seed) {
  fg_pack_item *items = malloc(sizeof(fg_pack_item) * n);
  uint64_t *off = malloc(sizeof(uint64_t) * n);
  gg_rect *scratch = malloc(sizeof(gg_rect) * n);
  double *ratio[MAXS], *tms[MAXS];
  int fails[MAXS] = {0}, worse = 0, atopt[MAXS] = {0};
  for (int s = 0; s < nsolvers; s++) {
    ratio[s] = malloc(sizeof(double) * instances);
    tms[s] = malloc(sizeof(double) * instances);
  }
  uint64_t gs = seed * 7919 + (uint64_t)n * 2 + (uint64_t)cyclic;
  for (int k = 0; k < instances; k++) {
    uint64_t T = 2 * (uint64_t)n, H = (1u << 20) + gg_rnd(&gs) % 65536;
    uint64_t opt = gg_generate(items, NULL, scratch, (size_t)n, T, H, cyclic, &gs);
    uint64_t bestm = 0, basem = UINT64_MAX;
    for (int s = 0; s < nsolvers; s++) {
      fg_pack_desc d = {0};
      char nb[32], msg[256];
      d.period = cyclic ? T : 0;
      d.time_budget_ms = budget;
      d.solver = solver_name(solvers[s], nb, sizeof nb, &d.time_budget_ms);
      fg_pack_result r;
      uint64_t t0 = fg_now_ns();
      int rc = fg_pack(items, n, &d, off, &r, msg, sizeof msg);
      tms[s][k] = (fg_now_ns() - t0) / 1e6;
      if (rc || !fg_check_packing(items, n, off, &d, msg, sizeof msg) || r.bound > opt) {
        fails[s]++;
        fprintf(stderr, "FAIL %s guillotine n=%d k=%d: %s\n", solvers[s], n, k, rc ? msg : "bound above OPT");
        ratio[s][k] = 0;
        continue;
      }
      ratio[s][k] = (double)r.makespan / (double)opt;
      if (r.makespan == opt) atopt[s]++;
      if (!strcmp(solvers[s], "best")) bestm = r.makespan;
      else if (strncmp(solvers[s], "best", 4) && r.makespan < basem) basem = r.makespan;
    }
    if (bestm && basem != UINT64_MAX && bestm > basem) worse++;
  }
  printf("\nGuillotine n=%d %s, %d instances, makespan / OPT (best budget %.0f ms)\n", n, cyclic ? "cyclic" : "linear",
         instances, budget);
  printf("  %-9s %8s %8s %8s %7s %10s %10s %6s\n", "solver", "avg", "p90", "max", "at OPT", "med ms", "max ms", "fails");
  for (int s = 0; s < nsolvers; s++) {
    double sum = 0, mx = 0, tmx = 0;
    for (int k = 0; k < instances; k++) {
      sum += ratio[s][k];
      if (ratio[s][k] > mx) mx = ratio[s][k];
      if (tms[s][k] > tmx) tmx = tms[s][k];
    }
    printf("  %-9s %8.4f %8.4f %8.4f %7d %10.3f %10.3f %6d\n", solvers[s], sum / instances, pct(ratio[s], instances, 0.9),
           mx, atopt[s], pct(tms[s], instances, 0.5), tmx, fails[s]);
    free(ratio[s]);
    free(tms[s]);
  }
  if (worse) printf("  best worse than a baseline on %d instances\n", worse);
  fflush(stdout);
  free(items); free(off); free(scratch);
}

/* Held-out instances like MiniMalloc's (capacity 1048576, times and sizes
 * multiples of 1024, about 150-450 items): a 1024 x 1024 rectangle of
 * (time, KiB) cut into n0 pieces, then scaled by 1024, and a share of the
 * pieces dropped (MiniMalloc's cover 57-98 % of the square): 1048576 fits by
 * construction, LOAD may be lower. Two shapes as in its set: "cuts"
 * (gen_guillotine.h: a random piece, the larger of two draws, cut anywhere:
 * heavy-tailed sizes, as A-E and I-K; 0-40 % dropped) and "blocks" (always
 * the largest piece, cut within its middle half across its longer side: even
 * sizes, as F-H; 25-45 % dropped). Returns n. */
static int gen_mm(fg_pack_item *items, int blocks, uint64_t *seed) {
  double drop = blocks ? 0.25 + (double)(gg_rnd(seed) % 20) / 100.0 : (double)(gg_rnd(seed) % 40) / 100.0;
  size_t n0 = (size_t)((double)(150 + gg_rnd(seed) % 300) / (1 - drop));
  gg_rect *r = malloc(sizeof(gg_rect) * n0);
  fg_pack_item *all = malloc(sizeof(fg_pack_item) * n0);
  if (!blocks) {
    gg_generate(all, NULL, r, n0, 1024, 1024, 0, seed);
  } else {
    size_t m = 1;
    r[0] = (gg_rect){0, 1024, 0, 1024};
    while (m < n0) {
      size_t k = 0;
      for (size_t q = 1; q < m; q++)
        if ((r[q].t1 - r[q].t0) * (r[q].b1 - r[q].b0) > (r[k].t1 - r[k].t0) * (r[k].b1 - r[k].b0)) k = q;
      gg_rect x = r[k];
      uint64_t w = x.t1 - x.t0, h = x.b1 - x.b0;
      if (w < 2 && h < 2) break; /* cannot happen below 1024^2 pieces */
      int by_time = w >= h;
      uint64_t len = by_time ? w : h, lo = by_time ? x.t0 : x.b0;
      uint64_t c = len >= 4 ? lo + len / 4 + gg_rnd(seed) % (len / 2) : lo + 1;
      if (by_time) { r[k].t1 = c; r[m++] = (gg_rect){c, x.t1, x.b0, x.b1}; }
      else { r[k].b1 = c; r[m++] = (gg_rect){x.t0, x.t1, c, x.b1}; }
    }
    for (size_t i = 0; i < m; i++) all[i] = (fg_pack_item){r[i].t0, r[i].t1, r[i].b1 - r[i].b0, 1, 0, 0};
    n0 = m;
  }
  int n = 0;
  for (size_t i = 0; i < n0; i++)
    if ((double)(gg_rnd(seed) >> 11) / 9007199254740992.0 >= drop)
      items[n++] = (fg_pack_item){all[i].start * 1024, all[i].stop * 1024, all[i].size * 1024, 1, 0, 0};
  free(r); free(all);
  return n;
}

/* One decision at 1048576 through fg_pack; prints a row when rows is set.
 * Returns the ms it took; *fits, *proved as the result says (-1: failed). */
static double cap_row(const char *name, const fg_pack_item *items, int n, double budget, int rows, int *fits,
                      int *proved) {
  uint64_t *off = malloc(sizeof(uint64_t) * (n ? n : 1));
  fg_pack_desc d = {0};
  d.capacity = 1048576;
  d.time_budget_ms = budget;
  fg_pack_result r;
  char msg[256];
  uint64_t t0 = fg_now_ns();
  int rc = fg_pack(items, n, &d, off, &r, msg, sizeof msg);
  double ms = (fg_now_ns() - t0) / 1e6;
  if (rc || !fg_check_packing(items, n, off, &d, msg, sizeof msg) || (r.fits && r.makespan > d.capacity)) {
    fprintf(stderr, "FAIL capacity %s: %s\n", name, msg);
    *fits = *proved = -1;
  } else {
    *fits = r.fits;
    *proved = r.proved;
  }
  if (rows)
    printf("  %-10s %5d %9llu %5s %6s %10llu %9.1f\n", name, n, (unsigned long long)fg_pack_load(items, n, 0),
           *fits < 0 ? "FAIL" : *fits ? "yes" : "no", *proved < 0 ? "FAIL" : *proved ? "yes" : "no",
           (unsigned long long)r.makespan, ms);
  free(off);
  return ms;
}

static void run_capacity(double budget, int gen_count, int rows, uint64_t seed) {
  printf("\nCapacity mode: fg_pack with capacity = 1048576, budget %.0f ms (h = held out)\n", budget);
  printf("  %-10s %5s %9s %5s %6s %10s %9s\n", "inst", "n", "LOAD", "fits", "proved", "makespan", "ms");
  for (size_t f = 0; f < MM_N; f++) {
    int n, fits, proved;
    fg_pack_item *items = mm_read(mm_names[f], &n);
    if (!items) continue;
    char name[16];
    snprintf(name, sizeof name, "%s%s", mm_names[f], mm_held_out(mm_names[f]) ? "h" : "");
    cap_row(name, items, n, budget, 1, &fits, &proved);
    free(items);
    fflush(stdout);
  }
  fg_pack_item *items = malloc(sizeof(fg_pack_item) * 2048);
  for (int blocks = 0; blocks <= 1; blocks++) {
    uint64_t gs = seed * 104729 + (uint64_t)blocks;
    int nfit = 0, nno = 0, fails = 0, in1s = 0;
    double *ms = malloc(sizeof(double) * (gen_count ? gen_count : 1)), mx = 0;
    for (int k = 0; k < gen_count; k++) {
      int n = gen_mm(items, blocks, &gs), fits, proved;
      char name[32];
      snprintf(name, sizeof name, "%s%d", blocks ? "blocks" : "cuts", k);
      ms[k] = cap_row(name, items, n, budget, rows, &fits, &proved);
      if (ms[k] > mx) mx = ms[k];
      nfit += fits > 0;
      in1s += fits > 0 && ms[k] <= 1000;
      nno += fits == 0 && proved > 0; /* cannot be right: all fit by construction */
      fails += fits < 0;
    }
    printf("  generated %s: %d instances, fits %d (within 1 s: %d), unknown %d, proved no %d (wrong), failed %d; "
           "median %.1f ms, max %.1f ms\n", blocks ? "blocks" : "cuts", gen_count, nfit, in1s,
           gen_count - nfit - nno - fails, nno, fails, gen_count ? pct(ms, gen_count, 0.5) : 0, mx);
    free(ms);
    fflush(stdout);
  }
  free(items);
}

int main(int argc, char **argv) {
  int instances = 2000, enlisted = 1, minimalloc = 1, gen = 1, gen_instances = 20, capacity = 1, cap_gen = 20;
  int cap_rows = 0;
  double budget = 0, mmbudget = 1000, genbudget = 1000, capbudget = 1000;
  int gns[32] = {50, 100, 200, 400, 1000}, ngn = 5;
  uint64_t seed = 1;
  int ns[32] = {25, 50, 75, 100, 125, 150, 175, 200, 500, 1000}, nn = 10;
  char solverbuf[256] = "";
  for (int a = 1; a < argc; a++) {
    if (!strcmp(argv[a], "--instances") && a + 1 < argc) instances = atoi(argv[++a]);
    else if (!strcmp(argv[a], "--seed") && a + 1 < argc) seed = strtoull(argv[++a], NULL, 10);
    else if (!strcmp(argv[a], "--budget") && a + 1 < argc) budget = atof(argv[++a]);
    else if (!strcmp(argv[a], "--mm-budget") && a + 1 < argc) mmbudget = atof(argv[++a]);
    else if (!strcmp(argv[a], "--no-enlisted")) enlisted = 0;
    else if (!strcmp(argv[a], "--cpu")) cpu_clock = 1;
    else if (!strcmp(argv[a], "--clique") && a + 1 < argc) clique_instances = atoi(argv[++a]);
    else if (!strcmp(argv[a], "--dump") && a + 1 < argc) dump_dir = argv[++a];
    else if (!strcmp(argv[a], "--no-minimalloc")) minimalloc = 0;
    else if (!strcmp(argv[a], "--no-gen")) gen = 0;
    else if (!strcmp(argv[a], "--no-capacity")) capacity = 0;
    else if (!strcmp(argv[a], "--cap-budget") && a + 1 < argc) capbudget = atof(argv[++a]);
    else if (!strcmp(argv[a], "--cap-gen") && a + 1 < argc) cap_gen = atoi(argv[++a]);
    else if (!strcmp(argv[a], "--cap-rows")) cap_rows = 1;
    else if (!strcmp(argv[a], "--gen-instances") && a + 1 < argc) gen_instances = atoi(argv[++a]);
    else if (!strcmp(argv[a], "--gen-budget") && a + 1 < argc) genbudget = atof(argv[++a]);
    else if (!strcmp(argv[a], "--gen-ns") && a + 1 < argc) {
      ngn = 0;
      for (char *p = strtok(argv[++a], ","); p && ngn < 32; p = strtok(NULL, ",")) gns[ngn++] = atoi(p);
    }
    else if (!strcmp(argv[a], "--solvers") && a + 1 < argc) snprintf(solverbuf, sizeof solverbuf, "%s", argv[++a]);
    else if (!strcmp(argv[a], "--ns") && a + 1 < argc) {
      nn = 0;
      for (char *p = strtok(argv[++a], ","); p && nn < 32; p = strtok(NULL, ",")) ns[nn++] = atoi(p);
    } else {
      fprintf(stderr, "usage: %s [--instances N] [--seed S] [--ns 25,50] [--budget MS] [--mm-budget MS] "
                      "[--solvers best,bysize] [--no-enlisted] [--no-minimalloc] [--clique N] [--no-gen] [--gen-ns 50,100] "
                      "[--gen-instances N] [--gen-budget MS] [--dump DIR] [--no-capacity] [--cap-budget MS] "
                      "[--cap-gen N] [--cap-rows]\n"
                      "  --dump DIR  write every enlisted instance (compressed times, sizes, alignments) and each\n"
                      "              solver's makespan/bound to DIR/n<N>_<wrap|line>_<k>.txt (bench/opt_mip.py reads them)\n",
              argv[0]);
      return 2;
    }
  }
  if (solverbuf[0]) {
    for (char *p = strtok(solverbuf, ","); p && nsolvers < MAXS; p = strtok(NULL, ",")) solvers[nsolvers++] = p;
  } else {
    for (int k = 0; fg_pack_solvers[k] && nsolvers < MAXS; k++) solvers[nsolvers++] = fg_pack_solvers[k];
    solvers[nsolvers++] = "best:5"; /* what a larger budget buys */
  }
  rs = seed;
  dump_seed = seed;
  if (dump_dir && mkdir(dump_dir, 0777) && errno != EEXIST) {
    fprintf(stderr, "cannot create %s\n", dump_dir);
    return 1;
  }
  printf("bench_cdsa: seed %llu, %d instances per n, best budget %s\n", (unsigned long long)seed, instances,
         budget > 0 ? "given" : "default");
  if (enlisted) {
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    const char *path = FG_DATA_DIR "/enlisted_distributions.lua";
    if (luaL_dofile(L, path) || !lua_istable(L, -1)) {
      fprintf(stderr, "cannot load %s: %s\n", path, lua_tostring(L, -1));
      return 1;
    }
    hist tl, lt, sz;
    if (read_hist(L, "timeline", &tl) || read_hist(L, "lifetime", &lt) || read_hist(L, "size", &sz)) {
      fprintf(stderr, "%s: missing timeline/lifetime/size\n", path);
      return 1;
    }
    lua_close(L);
    for (int wrap = 1; wrap >= 0; wrap--)
      for (int k = 0; k < nn; k++) run_enlisted(&tl, &lt, &sz, ns[k], instances, wrap, budget);
  }
  if (minimalloc) run_minimalloc(mmbudget);
  if (gen)
    for (int cyclic = 0; cyclic <= 1; cyclic++)
      for (int k = 0; k < ngn; k++) run_guillotine(gns[k], gen_instances, cyclic, genbudget, seed);
  if (capacity) run_capacity(capbudget, cap_gen, cap_rows, seed);
  return 0;
}
