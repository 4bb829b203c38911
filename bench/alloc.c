/* bench_alloc: the GPU-allocator comparison workload of the slab/buddy article
 * (gpu-allocator-slab-buddy.ru.txt), run against raw vkAllocateMemory and
 * each of our allocators in one program.
 *
 * Workload: 100 sizes drawn once (70% in [1, 1 KiB), 20% in [1 KiB, 1 MiB),
 * 10% in [1 MiB, 64 MiB)); R rounds; in round x every size below 4 MiB grows
 * by x bytes; each round allocates all 100, then frees all 100 either in
 * allocation order ("in order") or in a random order ("random").
 * Printed: ns per alloc+free pair, and fragmentation (1 - largest_free / free)
 * at the peak of a round and after half of its allocations were freed.
 *
 *   bench_alloc [--software] [--rounds N] [--raw-rounds N] [--seed S] [--only NAME-SUBSTRING] [--repeat N]
 * Each figure is the fastest of --repeat runs (default 5).
 * Picks a GPU when one exists (--software forces lavapipe). */
#include "fg_alloc.h"
#include "fg_vk_mem.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NSIZES 100

static uint64_t rng_state;
static uint64_t rnd(void) {
  uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static uint64_t rnd_range(uint64_t lo, uint64_t hi) { return lo + rnd() % (hi - lo); } /* [lo, hi) */

static uint64_t sizes[NSIZES];
static uint8_t *orders; /* per round: free order (a permutation of 0..99) */
static int rounds = 1000, raw_rounds = 20, repeat = 5;
static double raw_ns[2], pool_ns[2]; /* for the speed-up line */
static const char *only; /* run only allocators whose name contains this */
static int wanted(const char *name) { return !only || strstr(name, only) != NULL; }

static uint64_t size_at(int i, int round) {
  uint64_t s = sizes[i];
  return s < (1u << 22) ? s + (uint64_t)round : s; /* nudge sizes below 4 MiB, as in the article */
}

typedef struct result { double ns_pair, cpu_ns_pair, frag_peak, frag_half; long skipped; int rounds; } result;

/* Thread CPU time: on a loaded machine wall time also counts other processes. */
static uint64_t cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- a generic driver over alloc/free callbacks ---- */
typedef struct driver {
  const char *name;
  int (*alloc)(void *self, uint64_t size, uint64_t align, int slot); /* 0 ok */
  void (*free)(void *self, int slot);
  double (*frag)(void *self);                                        /* may be NULL */
  void *self;
  int (*eligible)(uint64_t size);                                    /* NULL = all */
} driver;

static result run_once(const driver *d, int nrounds, int random_order) {
  result r = {0};
  r.rounds = nrounds;
  int idx[NSIZES], live[NSIZES], n = 0;
  for (int i = 0; i < NSIZES; i++)
    if (!d->eligible || d->eligible(sizes[i])) idx[n++] = i;
  uint64_t pairs = 0, c0 = cpu_ns(), t0 = fg_now_ns();
  for (int x = 1; x <= nrounds; x++) {
    for (int k = 0; k < n; k++) {
      live[k] = d->alloc(d->self, size_at(idx[k], x), 256, k) == 0;
      if (!live[k]) r.skipped++;
    }
    if (random_order) {
      const uint8_t *ord = orders + (size_t)(x - 1) * NSIZES;
      for (int j = 0; j < NSIZES; j++)
        if (ord[j] < n && live[ord[j]]) { d->free(d->self, ord[j]); pairs++; }
    } else {
      for (int k = 0; k < n; k++)
        if (live[k]) { d->free(d->self, k); pairs++; }
    }
  }
  uint64_t t1 = fg_now_ns(), c1 = cpu_ns();
  r.ns_pair = pairs ? (double)(t1 - t0) / (double)pairs : 0;
  r.cpu_ns_pair = pairs ? (double)(c1 - c0) / (double)pairs : 0;
  /* one more, untimed round for fragmentation */
  if (d->frag) {
    int x = nrounds + 1;
    for (int k = 0; k < n; k++) live[k] = d->alloc(d->self, size_at(idx[k], x), 256, k) == 0;
    r.frag_peak = d->frag(d->self);
    const uint8_t *ord = orders + (size_t)(x - 1) * NSIZES;
    int freed = 0, j = 0;
    for (; j < NSIZES && freed < n / 2; j++) {
      int k = random_order ? ord[j] : j;
      if (k < n && live[k]) { d->free(d->self, k); live[k] = 0; freed++; }
    }
    r.frag_half = d->frag(d->self);
    for (int k = 0; k < n; k++) if (live[k]) d->free(d->self, k);
  }
  return r;
}

/* The machine may be shared: each measurement is repeated and the fastest
 * kept (wall and CPU separately); fragmentation does not vary. */
static result run(const driver *d, int nrounds, int random_order) {
  result best = run_once(d, nrounds, random_order);
  for (int i = 1; i < repeat; i++) {
    result r = run_once(d, nrounds, random_order);
    if (r.ns_pair < best.ns_pair) best.ns_pair = r.ns_pair;
    if (r.cpu_ns_pair < best.cpu_ns_pair) best.cpu_ns_pair = r.cpu_ns_pair;
    best.skipped += r.skipped;
  }
  return best;
}

/* ---- algorithms alone ---- */
typedef struct algo { fg_allocator *a; uint64_t off[NSIZES]; } algo;
static int algo_alloc(void *s, uint64_t size, uint64_t align, int slot) {
  algo *g = s;
  g->off[slot] = fg_allocator_alloc(g->a, size, align);
  return g->off[slot] == FG_ALLOC_FAIL ? -1 : 0;
}
static void algo_free(void *s, int slot) { algo *g = s; fg_allocator_free(g->a, g->off[slot]); }
static double algo_frag(void *s) { fg_alloc_stats st; fg_allocator_stats(((algo *)s)->a, &st); return st.fragmentation; }
static int small_only(uint64_t size) { return size < 1024; }

/* ---- churn: a steady state of many live allocations (not the article's
 * workload): keep `live` allocations of the article's size mix, then each
 * step frees a random one and allocates a new size. Shows how the cost of a
 * search grows with the number of free blocks (free list) or does not (TLSF). */
static void churn(const char *name, fg_alloc_kind kind, uint64_t block, uint64_t gran, int live, int steps) {
  if (!wanted(name)) return;
  fg_alloc_desc d = { kind, 64ull << 30, block, NULL, gran, 0 };
  fg_allocator *a = fg_allocator_create(&d, NULL, 0);
  if (!a) return;
  uint64_t *off = malloc(sizeof(uint64_t) * (size_t)live);
  uint64_t save = rng_state;
  rng_state = 777;
  for (int i = 0; i < live; i++) off[i] = fg_allocator_alloc(a, size_at((int)(rnd() % NSIZES), (int)(rnd() % 1000)), 256);
  uint64_t c0 = cpu_ns(), fails = 0;
  for (int k = 0; k < steps; k++) {
    int i = (int)(rnd() % (uint64_t)live);
    if (off[i] != FG_ALLOC_FAIL) fg_allocator_free(a, off[i]);
    off[i] = fg_allocator_alloc(a, size_at((int)(rnd() % NSIZES), (int)(rnd() % 1000)), 256);
    if (off[i] == FG_ALLOC_FAIL) fails++;
  }
  uint64_t c1 = cpu_ns();
  fg_alloc_stats st;
  fg_allocator_stats(a, &st);
  printf("| %-40s | %6d | %10.1f | %9.3f | %s |\n", name, live, (double)(c1 - c0) / steps, st.fragmentation,
         fails ? "some failed" : "");
  rng_state = save;
  free(off);
  fg_allocator_destroy(a);
}

/* ---- block allocator with host callbacks (no device) ---- */
typedef struct blk { fg_block_allocator *b; fg_block_allocation al[NSIZES]; } blk;
static int host_create(void *u, uint64_t size, void **bu) { *bu = (void *)(uintptr_t)(size | 1); return 0; }
static void host_destroy(void *u, void *bu) { }
static int blk_alloc(void *s, uint64_t size, uint64_t align, int slot) { blk *g = s; return fg_block_alloc(g->b, size, align, &g->al[slot]); }
static void blk_free(void *s, int slot) { blk *g = s; fg_block_free(g->b, &g->al[slot]); }
static double blk_frag(void *s) { fg_block_stats st; fg_block_stats_get(((blk *)s)->b, &st); return st.fragmentation; }

/* ---- Vulkan pool ---- */
typedef struct vpool { fg_vk_mempool *p; fg_vk_allocation al[NSIZES]; } vpool;
static int vp_alloc(void *s, uint64_t size, uint64_t align, int slot) {
  vpool *g = s;
  fg_vk_mem_request rq = { .size = size, .alignment = align, .preferred = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT };
  return fg_vk_mem_alloc(g->p, &rq, &g->al[slot], NULL, 0) == VK_SUCCESS ? 0 : -1;
}
static void vp_free(void *s, int slot) { vpool *g = s; fg_vk_mem_free(g->p, &g->al[slot]); }
static double vp_frag(void *s) { fg_vk_mem_stats st; fg_vk_mempool_stats(((vpool *)s)->p, &st); return st.fragmentation; }

/* ---- raw vkAllocateMemory ---- */
typedef struct raw { fg_vk_device *dev; uint32_t type; VkDeviceMemory m[NSIZES]; long oom; } raw;
static int raw_alloc(void *s, uint64_t size, uint64_t align, int slot) {
  raw *g = s;
  VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = size, .memoryTypeIndex = g->type };
  if (vkAllocateMemory(g->dev->device, &ai, NULL, &g->m[slot]) != VK_SUCCESS) { g->oom++; return -1; }
  return 0;
}
static void raw_free(void *s, int slot) { raw *g = s; vkFreeMemory(g->dev->device, g->m[slot], NULL); }

static void print_row(const char *name, const char *variant, result r, const char *note) {
  char fp[16] = "-", fh[16] = "-";
  if (r.frag_peak >= 0) snprintf(fp, sizeof fp, "%.3f", r.frag_peak);
  if (r.frag_half >= 0) snprintf(fh, sizeof fh, "%.3f", r.frag_half);
  printf("| %-40s | %-8s | %6d | %10.1f | %10.1f | %9s | %9s | %s |\n", name, variant, r.rounds, r.ns_pair, r.cpu_ns_pair,
         fp, fh, note ? note : "");
  fflush(stdout);
}

static void run_both(const driver *d, int nrounds, const char *note) {
  if (!wanted(d->name)) return;
  for (int v = 0; v < 2; v++) {
    result r = run(d, nrounds, v);
    if (!d->frag) r.frag_peak = r.frag_half = -1;
    char buf[160];
    snprintf(buf, sizeof buf, "%s%s", note ? note : "", r.skipped ? " (some skipped)" : "");
    print_row(d->name, v ? "random" : "in order", r, buf);
  }
}

int main(int argc, char **argv) {
  int software = 0;
  uint64_t seed = 13123;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--software")) software = 1;
    else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--raw-rounds") && i + 1 < argc) raw_rounds = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = atoi(argv[++i]);
    else { fprintf(stderr, "usage: %s [--software] [--rounds N] [--raw-rounds N] [--seed S] [--only NAME-SUBSTRING] [--repeat N]\n", argv[0]); return 2; }
  }
  if (rounds < 1) rounds = 1;
  if (raw_rounds < 1) raw_rounds = 1;
  if (repeat < 1) repeat = 1;
  rng_state = seed;
  int nsmall = 0, nmid = 0, nbig = 0;
  uint64_t total = 0;
  for (int i = 0; i < NSIZES; i++) {
    uint64_t c = rnd() % 100;
    if (c < 70) { sizes[i] = rnd_range(1, 1u << 10); nsmall++; }
    else if (c < 90) { sizes[i] = rnd_range(1u << 10, 1u << 20); nmid++; }
    else { sizes[i] = rnd_range(1u << 20, 1u << 26); nbig++; }
    total += sizes[i];
  }
  int maxr = (rounds > raw_rounds ? rounds : raw_rounds) + 1;
  orders = malloc((size_t)maxr * NSIZES);
  for (int x = 0; x < maxr; x++) {
    uint8_t *o = orders + (size_t)x * NSIZES;
    for (int j = 0; j < NSIZES; j++) o[j] = (uint8_t)j;
    for (int j = NSIZES - 1; j > 0; j--) { int k = (int)(rnd() % (uint64_t)(j + 1)); uint8_t t = o[j]; o[j] = o[k]; o[k] = t; }
  }

  char err[512] = "";
  fg_vk_desc vd = { .validation = 0, .prefer_software = software };
  fg_vk_device *dev = fg_vk_create(&vd, err, sizeof err);
  printf("# bench_alloc: seed %llu, %d sizes (%d < 1 KiB, %d in 1 KiB-1 MiB, %d in 1-64 MiB; %.1f MiB per round), alignment 256\n",
         (unsigned long long)seed, NSIZES, nsmall, nmid, nbig, (double)total / (1 << 20));
  printf("# device: %s\n", dev ? dev->props.deviceName : err);
  printf("# rounds %d (raw vkAllocateMemory: %d, one run), others the fastest of %d runs; ns = wall, cpu ns = thread CPU time\n",
         rounds, raw_rounds, repeat);
  printf("| %-40s | %-8s | %6s | %10s | %10s | %9s | %9s | %s |\n", "allocator", "free", "rounds", "ns/pair", "cpu ns/pair",
         "frag peak", "frag half", "notes");
  printf("|%s|%s|%s|%s|%s|%s|%s|%s|\n", "------------------------------------------", "----------", "--------", "------------",
         "------------", "-----------", "-----------", "------");

  if (dev && wanted("raw vkAllocateMemory")) {
    raw g = { .dev = dev };
    int t = fg_vk_find_memory_type(dev, ~0u, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    g.type = t < 0 ? 0 : (uint32_t)t;
    driver d = { "raw vkAllocateMemory/vkFreeMemory", raw_alloc, raw_free, NULL, &g, NULL };
    for (int v = 0; v < 2; v++) {
      g.oom = 0;
      result r = run_once(&d, raw_rounds, v); /* slow and driver-bound: one run */
      raw_ns[v] = r.ns_pair;
      r.frag_peak = r.frag_half = -1;
      char note[128];
      snprintf(note, sizeof note, "memory type %u; %ld allocations failed (out of memory) and were skipped", g.type, g.oom);
      print_row(d.name, v ? "random" : "in order", r, g.oom ? note : "");
    }
  }

  fg_alloc_desc ad = { FG_ALLOC_TLSF, 2ull << 30, 0, NULL, 0, 0 };
  algo ta = { fg_allocator_create(&ad, NULL, 0), {0} };
  driver dt = { "tlsf (algorithm, 2 GiB, granularity 1)", algo_alloc, algo_free, algo_frag, &ta, NULL };
  run_both(&dt, rounds, NULL);
  fg_allocator_destroy(ta.a);
  ad.granularity = 256;
  ta.a = fg_allocator_create(&ad, NULL, 0);
  driver dt2 = { "tlsf (algorithm, granularity 256)", algo_alloc, algo_free, algo_frag, &ta, NULL };
  run_both(&dt2, rounds, NULL);
  fg_allocator_destroy(ta.a);

  ad = (fg_alloc_desc){ FG_ALLOC_FREELIST, 2ull << 30, 0, NULL, 256, 0 };
  algo fa = { fg_allocator_create(&ad, NULL, 0), {0} };
  driver df = { "freelist (best fit, granularity 256)", algo_alloc, algo_free, algo_frag, &fa, NULL };
  run_both(&df, rounds, NULL);
  fg_allocator_destroy(fa.a);

  ad = (fg_alloc_desc){ FG_ALLOC_BUDDY, 2ull << 30, 256, NULL, 0, 0 };
  algo ba = { fg_allocator_create(&ad, NULL, 0), {0} };
  driver db = { "buddy (algorithm, 2 GiB, 256 B min)", algo_alloc, algo_free, algo_frag, &ba, NULL };
  run_both(&db, rounds, NULL);
  fg_allocator_destroy(ba.a);

  ad = (fg_alloc_desc){ FG_ALLOC_SLAB, 1u << 20, 2048, NULL, 0, 0 };
  algo sa = { fg_allocator_create(&ad, NULL, 0), {0} };
  driver ds = { "slab (algorithm, 2 KiB slots)", algo_alloc, algo_free, NULL, &sa, small_only };
  run_both(&ds, rounds, "only the sizes < 1 KiB");
  fg_allocator_destroy(sa.a);

  ad = (fg_alloc_desc){ FG_ALLOC_LINEAR, 2ull << 30, 0, NULL, 0, 0 };
  algo la = { fg_allocator_create(&ad, NULL, 0), {0} };
  driver dl = { "linear (algorithm)", algo_alloc, algo_free, NULL, &la, NULL };
  run_both(&dl, rounds, "space returns when all are freed");
  fg_allocator_destroy(la.a);

  ad = (fg_alloc_desc){ FG_ALLOC_RING, 2ull << 30, 0, NULL, 0, 0 };
  algo ra = { fg_allocator_create(&ad, NULL, 0), {0} };
  driver dr = { "ring (algorithm)", algo_alloc, algo_free, NULL, &ra, NULL };
  run_both(&dr, rounds, NULL);
  fg_allocator_destroy(ra.a);

  {
    fg_block_desc bd = { FG_ALLOC_TLSF, 256ull << 20, 256, 1, host_create, host_destroy, NULL, NULL };
    blk bb = { fg_block_allocator_create(&bd, NULL, 0), {{0}} };
    driver dbk = { "block allocator (TLSF, 256 MiB, gran 256)", blk_alloc, blk_free, blk_frag, &bb, NULL };
    run_both(&dbk, rounds, "host callbacks, no device");
    fg_block_stats st;
    fg_block_stats_get(bb.b, &st);
    if (wanted(dbk.name)) printf("#   block allocator: %llu blocks created, %llu destroyed\n",
           (unsigned long long)st.blocks_created, (unsigned long long)st.blocks_destroyed);
    fg_block_allocator_destroy(bb.b);
  }

  if (dev) {
    for (int mode = 0; mode < 2; mode++)
      for (int v = 0; v < 2; v++) {
        if (!wanted(mode ? "fg_vk_mempool (externally synchronized)" : "fg_vk_mempool (default path)")) continue;
        fg_vk_mempool_desc pd = { .externally_synchronized = mode };
        vpool vp = { fg_vk_mempool_create(dev, &pd, err, sizeof err), {{0}} };
        if (!vp.p) { printf("# memory pool: %s\n", err); break; }
        driver dv = { mode ? "fg_vk_mempool (externally synchronized)" : "fg_vk_mempool (default path)",
                      vp_alloc, vp_free, vp_frag, &vp, NULL };
        result r = run(&dv, rounds, v);
        fg_vk_mem_stats st;
        fg_vk_mempool_stats(vp.p, &st);
        char note[200];
        snprintf(note, sizeof note, "%llu vkAllocateMemory in all, %u device memories (%.0f MiB) held at the end%s",
                 (unsigned long long)st.device_allocs, st.device_memories, (double)st.device_bytes / (1 << 20),
                 r.skipped ? "; some skipped (out of memory)" : "");
        print_row(dv.name, v ? "random" : "in order", r, note);
        if (!mode) pool_ns[v] = r.ns_pair;
        fg_vk_mempool_destroy(vp.p);
      }
  }
  printf("\n# churn (not the article's workload): N live allocations of the same size mix in a 64 GiB range,\n"
         "# then 200000 steps of free-a-random-one + allocate-a-new-one; cpu ns per step, fragmentation at the end\n");
  printf("| %-40s | %6s | %10s | %9s | notes |\n", "allocator", "live", "cpu ns", "frag");
  printf("|------------------------------------------|--------|------------|-----------|-------|\n");
  for (int live = 1000; live <= 10000; live *= 10) {
    churn("tlsf (churn, granularity 256)", FG_ALLOC_TLSF, 0, 256, live, 200000);
    churn("freelist (churn, granularity 256)", FG_ALLOC_FREELIST, 0, 256, live, 200000);
    churn("buddy (churn, 64 KiB min)", FG_ALLOC_BUDDY, 1u << 16, 0, live, 200000);
  }
  if (raw_ns[0] > 0 && pool_ns[0] > 0)
    printf("# default path vs raw vkAllocateMemory (wall): %.0fx faster in order, %.0fx random\n",
           raw_ns[0] / pool_ns[0], pool_ns[1] > 0 ? raw_ns[1] / pool_ns[1] : 0.0);
  if (dev) fg_vk_destroy(dev);
  free(orders);
  return 0;
}
