/* Sub-allocators over abstract ranges: directed cases plus seeded random
 * alloc/free sequences checked against a model (bounds, alignment, overlap,
 * leaks) with the internal validator run throughout. */
#include "fg_alloc.h"
#include "fg_util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #c); failures++; } } while (0)
#define CHECKM(c, ...) do { if (!(c)) { fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

static uint64_t rng_state;
static uint64_t rnd(void) { /* splitmix64 */
  uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static uint64_t rnd_range(uint64_t lo, uint64_t hi) { return lo + rnd() % (hi - lo + 1); }

static uint64_t granularity; /* TLSF granularity for make() */

static fg_allocator *make(fg_alloc_kind kind, uint64_t cap, uint64_t block) {
  char err[256] = "";
  fg_alloc_desc d = { kind, cap, block, NULL, kind == FG_ALLOC_TLSF ? granularity : 0, 0 };
  fg_allocator *a = fg_allocator_create(&d, err, sizeof err);
  CHECKM(a != NULL, "create %s: %s", fg_alloc_kind_name(kind), err);
  return a;
}

static void validate(fg_allocator *a, const char *where) {
  char err[256] = "";
  int rc = fg_allocator_validate(a, err, sizeof err);
  CHECKM(rc == 0, "%s validate (%s): %s", fg_alloc_kind_name(fg_allocator_kind(a)), where, err);
}

typedef struct live { uint64_t off, size, reserved; } live;

/* Random sequence against a model; `ops` operations, biased to keep the
 * allocator half full so both success and exhaustion paths run. */
static void random_model(fg_alloc_kind kind, uint64_t cap, uint64_t block, uint64_t seed, int ops, uint64_t max_size) {
  rng_state = seed;
  fg_allocator *a = make(kind, cap, block);
  if (!a) return;
  fg_alloc_stats st;
  fg_allocator_stats(a, &st);
  cap = st.capacity;
  uint64_t largest0 = st.largest_free;
  live *L = calloc((size_t)ops + 1, sizeof *L);
  int n = 0, fails = 0, oks = 0;
  for (int op = 0; op < ops; op++) {
    int do_alloc = n == 0 || (rnd() % 100) < 55;
    if (kind == FG_ALLOC_LINEAR && (rnd() % 200) == 0) { /* occasional reset */
      fg_allocator_reset(a);
      n = 0;
      continue;
    }
    if (do_alloc) {
      uint64_t size = rnd_range(1, max_size);
      uint64_t align = 1;
      if (kind == FG_ALLOC_SLAB) { size = rnd_range(1, block); align = 1ull << rnd_range(0, 4); }
      else if (rnd() % 3 == 0) align = 1ull << rnd_range(0, 8);
      uint64_t off = fg_allocator_alloc(a, size, align);
      if (off == FG_ALLOC_FAIL) { fails++; continue; }
      oks++;
      CHECKM(off % align == 0, "%s: offset %llu not aligned to %llu", fg_alloc_kind_name(kind),
             (unsigned long long)off, (unsigned long long)align);
      if (granularity && kind == FG_ALLOC_TLSF)
        CHECKM(off % granularity == 0, "tlsf: offset %llu off the granularity %llu", (unsigned long long)off,
               (unsigned long long)granularity);
      CHECKM(off + size <= cap, "%s: [%llu,+%llu) beyond capacity %llu", fg_alloc_kind_name(kind),
             (unsigned long long)off, (unsigned long long)size, (unsigned long long)cap);
      uint64_t res = fg_allocator_size(a, off);
      CHECKM(res >= size, "%s: reserved %llu < requested %llu", fg_alloc_kind_name(kind),
             (unsigned long long)res, (unsigned long long)size);
      for (int i = 0; i < n; i++)
        CHECKM(off + size <= L[i].off || L[i].off + L[i].size <= off,
               "%s seed %llu op %d: [%llu,+%llu) overlaps live [%llu,+%llu)", fg_alloc_kind_name(kind),
               (unsigned long long)seed, op, (unsigned long long)off, (unsigned long long)size,
               (unsigned long long)L[i].off, (unsigned long long)L[i].size);
      L[n++] = (live){ off, size, res };
    } else {
      int i = (int)(rnd() % (uint64_t)n);
      CHECK(fg_allocator_free(a, L[i].off) == 0);
      CHECK(fg_allocator_free(a, L[i].off) == -1); /* double free refused */
      L[i] = L[--n];
    }
    fg_allocator_stats(a, &st);
    CHECK(st.allocations == (uint64_t)n);
    if (kind == FG_ALLOC_TLSF || kind == FG_ALLOC_BUDDY || kind == FG_ALLOC_SLAB) {
      uint64_t model_used = 0;
      for (int i = 0; i < n; i++) model_used += L[i].reserved;
      CHECKM(st.used == model_used, "%s: used %llu, model %llu", fg_alloc_kind_name(kind),
             (unsigned long long)st.used, (unsigned long long)model_used);
    }
    CHECK(st.used + st.free == st.capacity && st.largest_free <= st.free);
    if (op % 7 == 0) validate(a, "random");
    if (failures > 20) break;
  }
  CHECKM(oks > ops / 4 && fails > 0, "%s: sequence too easy or too hard (%d ok, %d failed)",
         fg_alloc_kind_name(kind), oks, fails);
  /* free everything in random order: no leaks, one free block again */
  while (n) {
    int i = (int)(rnd() % (uint64_t)n);
    CHECK(fg_allocator_free(a, L[i].off) == 0);
    L[i] = L[--n];
  }
  validate(a, "drained");
  fg_allocator_stats(a, &st);
  CHECK(st.used == 0 && st.allocations == 0 && st.free == st.capacity);
  CHECKM(st.largest_free == largest0, "%s: leaked or uncoalesced: largest %llu, fresh %llu",
         fg_alloc_kind_name(kind), (unsigned long long)st.largest_free, (unsigned long long)largest0);
  if (largest0 == st.capacity) CHECK(st.fragmentation == 0.0);
  uint64_t big = fg_allocator_alloc(a, largest0, 1); /* the largest block fits again */
  CHECK(big != FG_ALLOC_FAIL && (kind == FG_ALLOC_SLAB || big == 0));
  free(L);
  fg_allocator_destroy(a);
}

static void test_tlsf_directed(void) {
  fg_allocator *a = make(FG_ALLOC_TLSF, 1000, 0);
  if (!a) return;
  CHECK(fg_allocator_alloc(a, 1000, 1) == 0);       /* exact capacity, not a class boundary */
  CHECK(fg_allocator_alloc(a, 1, 1) == FG_ALLOC_FAIL);
  CHECK(fg_allocator_free(a, 0) == 0);
  CHECK(fg_allocator_free(a, 0) == -1);
  CHECK(fg_allocator_free(a, 12345) == -1);
  CHECK(fg_allocator_alloc(a, 3, 7) == FG_ALLOC_FAIL); /* one rule for every kind: powers of two */
  uint64_t x = fg_allocator_alloc(a, 10, 1), y = fg_allocator_alloc(a, 10, 256), z = fg_allocator_alloc(a, 3, 8);
  CHECK(x == 0 && y == 256 && z != FG_ALLOC_FAIL && z % 8 == 0);
  fg_alloc_stats st;
  fg_allocator_stats(a, &st);
  CHECK(st.used == 23 && st.allocations == 3);
  CHECK(st.fragmentation > 0.0); /* the gap below 256 is split off from the top */
  validate(a, "directed");
  CHECK(fg_allocator_free(a, y) == 0 && fg_allocator_free(a, x) == 0 && fg_allocator_free(a, z) == 0);
  fg_allocator_stats(a, &st);
  CHECK(st.largest_free == 1000 && st.fragmentation == 0.0);
  /* descriptor-style use: granularity 1, many single slots */
  fg_allocator_reset(a);
  for (int i = 0; i < 1000; i++) CHECK(fg_allocator_alloc(a, 1, 1) == (uint64_t)i);
  CHECK(fg_allocator_alloc(a, 1, 1) == FG_ALLOC_FAIL);
  for (int i = 0; i < 1000; i += 2) CHECK(fg_allocator_free(a, (uint64_t)i) == 0);
  fg_allocator_stats(a, &st);
  CHECK(st.free == 500 && st.largest_free == 1 && st.fragmentation > 0.99);
  CHECK(fg_allocator_alloc(a, 2, 1) == FG_ALLOC_FAIL);
  validate(a, "checkerboard");
  fg_allocator_destroy(a);
  /* huge range, huge sizes */
  a = make(FG_ALLOC_TLSF, 1ull << 50, 0);
  if (!a) return;
  CHECK(fg_allocator_alloc(a, 1ull << 49, 1ull << 40) == 0);
  CHECK(fg_allocator_alloc(a, 1ull << 49, 1) == 1ull << 49);
  CHECK(fg_allocator_alloc(a, 1, 1) == FG_ALLOC_FAIL);
  validate(a, "huge");
  fg_allocator_destroy(a);
}

static void test_buddy_directed(void) {
  fg_allocator *a = make(FG_ALLOC_BUDDY, 1024, 16);
  if (!a) return;
  CHECK(fg_allocator_alloc(a, 1, 1) == 0);
  CHECK(fg_allocator_size(a, 0) == 16);
  CHECK(fg_allocator_alloc(a, 17, 1) == 32);      /* rounded to 32, naturally aligned */
  CHECK(fg_allocator_alloc(a, 16, 64) == 64);     /* alignment lifts the order */
  CHECK(fg_allocator_alloc(a, 512, 1) == 512);
  CHECK(fg_allocator_alloc(a, 512, 1) == FG_ALLOC_FAIL);
  CHECK(fg_allocator_alloc(a, 7, 3) == FG_ALLOC_FAIL); /* non power of two alignment */
  validate(a, "directed");
  /* an offset inside a live block is no block: refused in C too (Lua checks its own map first) */
  CHECK(fg_allocator_free(a, 33) == -1 && fg_allocator_free(a, 48) == -1 && fg_allocator_size(a, 32) == 32);
  CHECK(fg_allocator_free(a, 0) == 0 && fg_allocator_free(a, 32) == 0 && fg_allocator_free(a, 64) == 0);
  fg_alloc_stats st;
  fg_allocator_stats(a, &st);
  CHECK(st.largest_free == 512 && st.used == 512);
  fg_allocator_destroy(a);
  /* capacity not a power of two: covered by 512 + 256 + 128 */
  a = make(FG_ALLOC_BUDDY, 896, 16);
  if (!a) return;
  fg_allocator_stats(a, &st);
  CHECK(st.capacity == 896 && st.largest_free == 512);
  CHECK(fg_allocator_alloc(a, 512, 1) == 0 && fg_allocator_alloc(a, 256, 1) == 512 && fg_allocator_alloc(a, 128, 1) == 768);
  CHECK(fg_allocator_alloc(a, 16, 1) == FG_ALLOC_FAIL);
  validate(a, "npot");
  fg_allocator_destroy(a);
  char err[256] = "";
  fg_alloc_desc d = { FG_ALLOC_BUDDY, 1ull << 40, 1, NULL, 0, 0 };
  CHECK(fg_allocator_create(&d, err, sizeof err) == NULL && strstr(err, "opts.block"));
}

/* the round-up every allocator and the planner use: a multiple stays put */
static void test_align_up(void) {
  CHECK(fg_align_up(16, 8) == 16 && fg_align_up(17, 8) == 24 && fg_align_up(0, 8) == 0);
  CHECK(fg_align_up(1023, 1024) == 1024 && fg_align_up(1024, 1024) == 1024 && fg_align_up(5, 1) == 5);
}

static void test_slab_linear_ring(void) {
  char err[256] = "";
  fg_alloc_desc d = { FG_ALLOC_SLAB, 1000, 0, NULL, 0, 0 };
  CHECK(fg_allocator_create(&d, err, sizeof err) == NULL && strstr(err, "opts.block"));
  fg_allocator *a = make(FG_ALLOC_SLAB, 1000, 64);
  if (!a) return;
  fg_alloc_stats st;
  fg_allocator_stats(a, &st);
  CHECK(st.capacity == 960);  /* 15 slots */
  for (int i = 0; i < 15; i++) CHECK(fg_allocator_alloc(a, 10, 16) == (uint64_t)i * 64);
  CHECK(fg_allocator_alloc(a, 1, 1) == FG_ALLOC_FAIL);
  CHECK(fg_allocator_free(a, 64 * 3) == 0 && fg_allocator_alloc(a, 64, 64) == 64 * 3);
  CHECK(fg_allocator_alloc_err(a, 65, 1, err, sizeof err) == FG_ALLOC_FAIL && strstr(err, "slot size"));
  CHECK(fg_allocator_free(a, 5) == -1);
  fg_allocator_destroy(a);

  a = make(FG_ALLOC_LINEAR, 100, 0);
  if (!a) return;
  CHECK(fg_allocator_alloc(a, 10, 1) == 0 && fg_allocator_alloc(a, 10, 16) == 16 && fg_allocator_alloc(a, 60, 1) == 26);
  CHECK(fg_allocator_alloc(a, 20, 1) == FG_ALLOC_FAIL);
  CHECK(fg_allocator_free(a, 26) == 0 && fg_allocator_alloc(a, 20, 1) == 26); /* newest rolls back */
  fg_allocator_reset(a);
  fg_allocator_stats(a, &st);
  CHECK(st.used == 0 && st.allocations == 0 && fg_allocator_alloc(a, 100, 1) == 0);
  fg_allocator_destroy(a);

  a = make(FG_ALLOC_RING, 100, 0);
  if (!a) return;
  uint64_t r0 = fg_allocator_alloc(a, 40, 1), r1 = fg_allocator_alloc(a, 40, 1);
  CHECK(r0 == 0 && r1 == 40);
  CHECK(fg_allocator_alloc(a, 30, 1) == FG_ALLOC_FAIL); /* 20 left at the end, head of ring busy */
  CHECK(fg_allocator_free(a, r1) == 0);                 /* not the oldest: nothing comes back */
  CHECK(fg_allocator_alloc(a, 30, 1) == FG_ALLOC_FAIL);
  CHECK(fg_allocator_free(a, r0) == 0);                 /* ring empty again */
  CHECK(fg_allocator_alloc(a, 70, 1) == 0 && fg_allocator_alloc(a, 20, 1) == 70);
  CHECK(fg_allocator_free(a, 0) == 0);
  CHECK(fg_allocator_alloc(a, 50, 1) == 0);             /* wraps: the 10 at the end are skipped */
  fg_allocator_stats(a, &st);
  CHECK(st.allocations == 2 && st.used == 80 && st.largest_free == 20);
  validate(a, "ring");
  fg_allocator_destroy(a);
}

typedef struct blocks_cb { int created, destroyed, live, fail_next; } blocks_cb;
static int cb_create(void *u, uint64_t size, void **bu) {
  blocks_cb *c = u;
  if (c->fail_next) { c->fail_next = 0; return 1; }
  c->created++;
  c->live++;
  *bu = malloc(1);
  return 0;
}
static void cb_destroy(void *u, void *bu) { blocks_cb *c = u; c->destroyed++; c->live--; free(bu); }

static void test_block_allocator(void) {
  blocks_cb cb = {0};
  char err[256];
  fg_block_desc d = { FG_ALLOC_TLSF, 1000, 0, 1, cb_create, cb_destroy, &cb, NULL };
  fg_block_allocator *b = fg_block_allocator_create(&d, err, sizeof err);
  CHECK(b != NULL);
  if (!b) return;
  fg_block_allocation x[8];
  for (int i = 0; i < 4; i++) CHECK(fg_block_alloc(b, 600, 1, &x[i]) == 0);
  CHECK(cb.created == 4);                      /* 600 + 600 do not share a block of 1000 */
  CHECK(fg_block_alloc(b, 300, 1, &x[4]) == 0 && x[4].block == x[3].block); /* fits beside the last */
  CHECK(fg_block_alloc(b, 5000, 64, &x[5]) == 0 && cb.created == 5);        /* dedicated */
  CHECK(fg_block_validate(b, err, sizeof err) == 0);
  CHECK(fg_block_free(b, &x[5]) == 0 && cb.destroyed == 1);                 /* dedicated goes at once */
  CHECK(fg_block_free(b, &x[5]) == -1);
  CHECK(fg_block_free(b, &x[0]) == 0 && cb.destroyed == 1);                 /* first empty block is kept */
  CHECK(fg_block_free(b, &x[1]) == 0 && cb.destroyed == 2);                 /* beyond keep_empty = 1 */
  CHECK(fg_block_validate(b, err, sizeof err) == 0);
  fg_block_stats st;
  fg_block_stats_get(b, &st);
  CHECK(st.blocks == 3 && st.empty_blocks == 1 && st.allocations == 3 && st.used == 1500);
  CHECK(fg_block_alloc(b, 100, 1, &x[6]) == 0 && cb.created == 5);          /* reuses an existing block */
  CHECK(fg_block_alloc(b, 999, 1, &x[7]) == 0 && cb.created == 5);          /* the kept empty block */
  cb.fail_next = 1;
  CHECK(fg_block_alloc(b, 999, 1, &x[7]) == -1);                            /* create failed: reported */
  fg_block_trim(b);
  CHECK(fg_block_validate(b, err, sizeof err) == 0);
  fg_block_allocator_destroy(b);
  CHECK(cb.live == 0);

  /* granularity: 4000 rounds to 4096 = a whole normal block; 4097 needs its own */
  blocks_cb cb3 = {0};
  fg_block_desc d3 = { FG_ALLOC_TLSF, 4096, 256, 0, cb_create, cb_destroy, &cb3, NULL };
  b = fg_block_allocator_create(&d3, err, sizeof err);
  fg_block_allocation g1, g2;
  CHECK(fg_block_alloc(b, 4000, 256, &g1) == 0 && g1.offset == 0 && cb3.created == 1);
  CHECK(fg_block_alloc(b, 4097, 256, &g2) == 0 && cb3.created == 2);
  CHECKM(fg_block_validate(b, err, sizeof err) == 0, "granular blocks: %s", err);
  CHECK(fg_block_free(b, &g1) == 0 && fg_block_free(b, &g2) == 0 && cb3.live == 0); /* keep_empty 0 */
  fg_block_allocator_destroy(b);

  /* random churn through the block allocator with a model per block */
  rng_state = 99;
  blocks_cb cb2 = {0};
  fg_block_desc d2 = { FG_ALLOC_BUDDY, 4096, 16, 2, cb_create, cb_destroy, &cb2, NULL };
  b = fg_block_allocator_create(&d2, err, sizeof err);
  fg_block_allocation *L = calloc(3000, sizeof *L);
  int n = 0;
  for (int op = 0; op < 3000; op++) {
    if (n == 0 || rnd() % 100 < (op < 1500 ? 60 : 35)) {
      uint64_t size = rnd_range(1, rnd() % 20 ? 600 : 9000);
      fg_block_allocation al;
      if (fg_block_alloc(b, size, 16, &al) != 0) { CHECK(0); continue; }
      CHECK(al.offset % 16 == 0);
      for (int i = 0; i < n; i++)
        if (L[i].block_user == al.block_user)
          CHECK(al.offset + al.size <= L[i].offset || L[i].offset + L[i].size <= al.offset);
      L[n++] = al;
    } else {
      int i = (int)(rnd() % (uint64_t)n);
      CHECK(fg_block_free(b, &L[i]) == 0);
      L[i] = L[--n];
    }
    if (op % 50 == 0) CHECKM(fg_block_validate(b, err, sizeof err) == 0, "block churn: %s", err);
    if (failures > 20) break;
  }
  while (n) { CHECK(fg_block_free(b, &L[n - 1]) == 0); n--; }
  fg_block_stats_get(b, &st);
  CHECK(st.allocations == 0 && st.blocks <= 2 && cb2.live == (int)st.blocks);
  fg_block_allocator_destroy(b);
  CHECK(cb2.live == 0);
  free(L);
}

/* The kind table: every name parses back to its kind, and the requests a
 * kind can never take are refused with a message before trying. */
static void test_kind_table(void) {
  for (int k = 0; k < FG_ALLOC_KIND_COUNT; k++)
    CHECKM(fg_alloc_kind_parse(fg_alloc_kind_name((fg_alloc_kind)k)) == k, "kind %d: name %s", k,
           fg_alloc_kind_name((fg_alloc_kind)k));
  CHECK(fg_alloc_kind_parse("nope") == -1 && fg_alloc_kind_parse(NULL) == -1);
  CHECK(!strcmp(fg_alloc_kind_name(FG_ALLOC_KIND_COUNT), "?"));
  static const struct { fg_alloc_kind kind; uint64_t block, size, align; const char *msg; } bad[] = {
    {FG_ALLOC_TLSF, 0, 0, 1, "tlsf: size must be > 0"},
    {FG_ALLOC_BUDDY, 16, 32, 24, "buddy: align 24 is not a power of two (use 1, 2, 4, 8, ...)"},
    {FG_ALLOC_SLAB, 64, 32, 24, "slab: align 24 is not a power of two (use 1, 2, 4, 8, ...)"},
    {FG_ALLOC_SLAB, 64, 65, 1, "slab: size 65 exceeds the slot size 64 (opts.block)"},
    {FG_ALLOC_SLAB, 64, 8, 128, "slab: alignment 128 does not divide the slot size 64"},
    {FG_ALLOC_LINEAR, 0, 2000, 1, "linear: out of space for 2000 bytes (align 1): 0 of 1024 used"},
    /* one alignment rule for every kind */
    {FG_ALLOC_RING, 0, 8, 3, "ring: align 3 is not a power of two (use 1, 2, 4, 8, ...)"},
    {FG_ALLOC_FREELIST, 0, 8, 24, "freelist: align 24 is not a power of two (use 1, 2, 4, 8, ...)"},
    {FG_ALLOC_LINEAR, 0, 8, 3, "linear: align 3 is not a power of two (use 1, 2, 4, 8, ...)"},
    {FG_ALLOC_TLSF, 0, 8, 3, "tlsf: align 3 is not a power of two (use 1, 2, 4, 8, ...)"},
    {FG_ALLOC_RING, 0, 8, 4, NULL},
    {FG_ALLOC_FREELIST, 0, 8, 16, NULL},
  };
  for (size_t q = 0; q < sizeof bad / sizeof *bad; q++) {
    fg_allocator *a = make(bad[q].kind, 1024, bad[q].block);
    if (!a) continue;
    char err[256] = "";
    uint64_t off = fg_allocator_alloc_err(a, bad[q].size, bad[q].align, err, sizeof err);
    if (bad[q].msg) {
      CHECKM(off == FG_ALLOC_FAIL && !strcmp(err, bad[q].msg), "case %zu: got %llu, '%s', want '%s'", q,
             (unsigned long long)off, err, bad[q].msg);
      CHECKM(fg_allocator_alloc(a, bad[q].size, bad[q].align) == FG_ALLOC_FAIL, "case %zu: alloc took it", q);
    } else {
      CHECKM(off != FG_ALLOC_FAIL && off % bad[q].align == 0, "case %zu: %s", q, err);
    }
    validate(a, "kind table");
    fg_allocator_destroy(a);
  }
}

int main(void) {
  test_tlsf_directed();
  test_buddy_directed();
  test_align_up();
  test_slab_linear_ring();
  test_block_allocator();
  test_kind_table();
  for (uint64_t seed = 1; seed <= 3; seed++) {
    random_model(FG_ALLOC_TLSF, 1u << 16, 0, seed, 4000, 3000);
    random_model(FG_ALLOC_TLSF, 777777, 0, seed + 10, 3000, 40000);
    random_model(FG_ALLOC_BUDDY, 1u << 16, 16, seed, 4000, 3000);
    random_model(FG_ALLOC_BUDDY, 100000, 8, seed + 20, 3000, 5000);
    random_model(FG_ALLOC_SLAB, 1u << 14, 64, seed, 4000, 64);
    random_model(FG_ALLOC_LINEAR, 1u << 16, 0, seed, 3000, 600);
    random_model(FG_ALLOC_RING, 1u << 14, 0, seed, 4000, 1500);
    random_model(FG_ALLOC_FREELIST, 1u << 16, 0, seed, 4000, 3000);
    granularity = 64; /* sizes and offsets on 64, also under non-power-of-two alignments */
    random_model(FG_ALLOC_TLSF, 1u << 18, 0, seed + 30, 3000, 3000);
    granularity = 0;
  }
  if (failures) { fprintf(stderr, "%d failures\n", failures); return 1; }
  printf("test_alloc: all passed\n");
  return 0;
}
