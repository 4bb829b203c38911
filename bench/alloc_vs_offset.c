/* bench_alloc_vs_offset: our TLSF's handle path against Sebastian Aaltonen's
 * OffsetAllocator on one stream of operations:
 *   a range of 2^20 units; sizes log-uniform over 1..16384 units;
 *   2e6 allocations, each preceded by random frees that hold the occupancy
 *   (requested units live / range) at 50 % or 90 %.
 * ns per alloc+free = thread CPU time of the stream / allocations (each allocation is
 * matched by about one free); failed = allocations that found no space.
 * Both run the same precomputed sizes and random draws, alternately, and the
 * fastest of --repeat runs is kept (the machine may be shared). A comment line
 * after each result gives the same time per completed allocation (time /
 * allocations that succeeded, each also freed): the allocator that fails
 * fewer requests does more of that work in the main figure.
 *
 * OffsetAllocator is never vendored: bench/alloc_vs_offset.sh DIR builds this
 * file with -DFG_WITH_OFFSET_ALLOCATOR against DIR/offsetAllocator.cpp. The
 * CMake build (no OffsetAllocator) runs our side only.
 *   bench_alloc_vs_offset [--allocs N] [--repeat R] [--seed S] [--occupancy X]
 * (--occupancy: that one instead of 0.50 and 0.90, e.g. under a profiler) */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include "fg_alloc.h"
#include <math.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RANGE (1u << 20)
#define MAX_SIZE 16384u
#define MAX_LIVE 131072u /* OffsetAllocator's default maxAllocs; our node pool the same */

#ifdef FG_WITH_OFFSET_ALLOCATOR
/* the C++ shim the script compiles beside OffsetAllocator */
void *oa_create(unsigned size, unsigned max_allocs);
void oa_destroy(void *a);
unsigned oa_alloc(void *a, unsigned size, unsigned *meta); /* 0xffffffff = no space */
void oa_free(void *a, unsigned offset, unsigned meta);
#endif

static uint32_t *sizes, *draws;

/* Thread CPU time: on a loaded machine wall time also counts other processes. */
static uint64_t cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
static int nallocs = 2000000, repeat = 3;

typedef struct result { double ns, failed, done_ns; } result;

/* One stream; X_ALLOC(size, slot) stores the allocation in slot and yields 1
 * on success, X_FREE(slot) frees it. A macro so both sides get the same loop
 * with a direct call each. */
#define STREAM(RES, OCC, LIVE_T, X_ALLOC, X_FREE)                                     \
  do {                                                                               \
    LIVE_T *live = malloc(sizeof(LIVE_T) * MAX_LIVE);                                \
    uint32_t *lsize = malloc(sizeof(uint32_t) * MAX_LIVE);                           \
    uint64_t used = 0, target = (uint64_t)((OCC) * RANGE), fails = 0;                \
    uint32_t n = 0, d = 0;                                                           \
    uint64_t t0 = cpu_ns();                                                          \
    for (int i = 0; i < nallocs; i++) {                                              \
      uint32_t s = sizes[i];                                                         \
      while (n && (used + s > target || n == MAX_LIVE)) {                            \
        uint32_t j = draws[d++ & ((1u << 22) - 1)] % n;                                \
        X_FREE(live[j]);                                                             \
        used -= lsize[j];                                                            \
        n--;                                                                         \
        live[j] = live[n];                                                           \
        lsize[j] = lsize[n];                                                         \
      }                                                                              \
      if (X_ALLOC(s, live[n])) { lsize[n++] = s; used += s; }                        \
      else fails++;                                                                  \
    }                                                                                \
    uint64_t t1 = cpu_ns();                                                          \
    while (n) { n--; X_FREE(live[n]); }                                              \
    RES.ns = (double)(t1 - t0) / nallocs;                                            \
    RES.done_ns = fails < (uint64_t)nallocs ? (double)(t1 - t0) / (double)(nallocs - fails) : 0; \
    RES.failed = 100.0 * (double)fails / nallocs;                                    \
    free(live);                                                                      \
    free(lsize);                                                                     \
  } while (0)

static fg_allocator *ours;
#define OURS_ALLOC(s, slot) (fg_allocator_alloc_h(ours, (s), 1, 0, &(slot)) == 0)
#define OURS_FREE(slot) fg_allocator_free_h(ours, &(slot))

static result run_ours(double occ) {
  result r;
  fg_allocator_reset(ours);
  STREAM(r, occ, fg_alloc_handle, OURS_ALLOC, OURS_FREE);
  return r;
}

#ifdef FG_WITH_OFFSET_ALLOCATOR
typedef struct oa_live { unsigned off, meta; } oa_live;
static void *oa;
static inline int oa_take(uint32_t s, oa_live *l) {
  l->off = oa_alloc(oa, s, &l->meta);
  return l->off != 0xffffffffu;
}
#define OA_ALLOC(s, slot) oa_take((s), &(slot))
#define OA_FREE(slot) oa_free(oa, (slot).off, (slot).meta)

static result run_oa(double occ) {
  result r;
  oa = oa_create(RANGE, MAX_LIVE);
  STREAM(r, occ, oa_live, OA_ALLOC, OA_FREE);
  oa_destroy(oa);
  return r;
}
#endif

int main(int argc, char **argv) {
  uint64_t seed = 20240;
  double only = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--allocs") && i + 1 < argc) nallocs = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--occupancy") && i + 1 < argc) only = atof(argv[++i]);
    else { fprintf(stderr, "usage: %s [--allocs N] [--repeat R] [--seed S] [--occupancy X]\n", argv[0]); return 2; }
  }
  if (nallocs < 1) nallocs = 1;
  if (repeat < 1) repeat = 1;
  sizes = malloc(sizeof(uint32_t) * (size_t)nallocs);
  draws = malloc(sizeof(uint32_t) << 22);
  uint64_t st = seed;
  for (int i = 0; i < nallocs; i++) { /* log-uniform over 1..16384 */
    double u = (double)(fg_splitmix64(&st) >> 11) / 9007199254740992.0;
    uint32_t s = (uint32_t)exp(u * log((double)MAX_SIZE + 1));
    sizes[i] = s < 1 ? 1 : s > MAX_SIZE ? MAX_SIZE : s;
  }
  for (uint32_t i = 0; i < (1u << 22); i++) draws[i] = (uint32_t)fg_splitmix64(&st);
  fg_alloc_desc d = { .kind = FG_ALLOC_TLSF, .capacity = RANGE, .max_allocations = MAX_LIVE };
  char err[256];
  ours = fg_allocator_create(&d, err, sizeof err);
  if (!ours) { fprintf(stderr, "%s\n", err); return 1; }
  printf("# range 2^20 units, sizes log-uniform 1..%u, %d allocations, random frees; fastest of %d runs\n",
         MAX_SIZE, nallocs, repeat);
  if (only < 0 || only > 1) { fprintf(stderr, "--occupancy must be in 0 .. 1\n"); return 2; }
  const double occs[2] = { only ? only : 0.50, 0.90 };
  for (int k = 0; k < (only ? 1 : 2); k++) {
    result o = { 1e30, 0, 0 };
#ifdef FG_WITH_OFFSET_ALLOCATOR
    result b = { 1e30, 0, 0 };
#endif
    for (int r = 0; r < repeat; r++) { /* alternate, so load hits both alike */
      result x = run_ours(occs[k]);
      if (x.ns < o.ns) { o.ns = x.ns; o.done_ns = x.done_ns; }
      o.failed = x.failed;
#ifdef FG_WITH_OFFSET_ALLOCATOR
      result y = run_oa(occs[k]);
      if (y.ns < b.ns) { b.ns = y.ns; b.done_ns = y.done_ns; }
      b.failed = y.failed;
#endif
    }
#ifdef FG_WITH_OFFSET_ALLOCATOR
    printf("occupancy %.2f: ours %.1f ns, OffsetAllocator %.1f ns, ratio %.2f; failed ours %.1f %%, OffsetAllocator %.1f %%\n",
           occs[k], o.ns, b.ns, o.ns / b.ns, o.failed, b.failed);
    printf("# per completed allocation (alloc + its free): ours %.1f ns, OffsetAllocator %.1f ns, ratio %.2f\n",
           o.done_ns, b.done_ns, o.done_ns / b.done_ns);
#else
    printf("occupancy %.2f: ours %.1f ns; failed ours %.1f %% (OffsetAllocator not built: bench/alloc_vs_offset.sh DIR)\n",
           occs[k], o.ns, o.failed);
#endif
    fflush(stdout);
  }
  char verr[256];
  if (fg_allocator_validate(ours, verr, sizeof verr)) { fprintf(stderr, "validate: %s\n", verr); return 1; }
  fg_allocator_destroy(ours);
  free(sizes);
  free(draws);
  return 0;
}
