/* Sub-allocators, the handle path: O(1) free by handle, stale and forged
 * handles refused, user data, the bounded node pool (no host allocation per
 * call), one alignment rule for every kind, best fit, the JSON and SVG
 * dumps, and defragmentation plans applied to a model heap. Runs under ASan
 * in scripts/sanitize.sh like every ctest. */
#include "fg_alloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #c); failures++; } } while (0)
#define CHECKM(c, ...) do { if (!(c)) { fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

static uint64_t rng = 1;
static uint64_t rnd(void) {
  uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* host allocations through hooks, counted */
static long host_calls;
static void *count_realloc(void *u, void *p, size_t n) {
  host_calls++;
  if (!n) { free(p); return NULL; }
  return realloc(p, n);
}
static const fg_alloc_hooks counting = { count_realloc, NULL };

static fg_allocator *make(fg_alloc_kind k, uint64_t cap, uint64_t block, uint64_t gran, uint32_t max) {
  char err[256] = "";
  fg_alloc_desc d = { .kind = k, .capacity = cap, .block = block, .granularity = gran, .max_allocations = max,
                      .hooks = &counting };
  fg_allocator *a = fg_allocator_create(&d, err, sizeof err);
  CHECKM(a != NULL, "create %s: %s", fg_alloc_kind_name(k), err);
  return a;
}

static void valid(fg_allocator *a, const char *where) {
  char err[256] = "";
  CHECKM(fg_allocator_validate(a, err, sizeof err) == 0, "%s: %s", where, err);
}

static void test_handles(fg_alloc_kind k) {
  fg_allocator *a = make(k, 4096, k == FG_ALLOC_SLAB ? 64 : k == FG_ALLOC_BUDDY ? 16 : 0, 0, 0);
  if (!a) return;
  const char *kn = fg_alloc_kind_name(k);
  fg_alloc_handle h[8];
  for (int i = 0; i < 8; i++) CHECKM(fg_allocator_alloc_h(a, 40, 8, 100 + (uint64_t)i, &h[i]) == 0, "%s alloc_h", kn);
  for (int i = 0; i < 8; i++) {
    uint64_t hs = fg_allocator_handle_size(a, &h[i]);
    CHECKM(h[i].offset % 8 == 0 && hs >= 40, "%s: handle %d offset %llu size %llu", kn, i,
           (unsigned long long)h[i].offset, (unsigned long long)hs);
    CHECKM(fg_allocator_user(a, &h[i]) == 100 + (uint64_t)i, "%s: user data of %d", kn, i);
    CHECK(fg_allocator_handle_live(a, &h[i]));
  }
  CHECK(fg_allocator_set_user(a, &h[3], 7) == 0 && fg_allocator_user(a, &h[3]) == 7);
  fg_alloc_handle back;
  CHECK(fg_allocator_handle_from_id(a, fg_alloc_handle_id(&h[5]), &back) && back.offset == h[5].offset);
  CHECK(fg_allocator_count(a) == 8);
  valid(a, kn);
  /* free in a scrambled order; a second free of the same handle is refused */
  int order[8] = { 3, 0, 7, 5, 1, 6, 2, 4 };
  for (int i = 0; i < 8; i++) {
    fg_alloc_handle *x = &h[order[i]];
    CHECKM(fg_allocator_free_h(a, x) == 0, "%s: free_h %d", kn, order[i]);
    CHECKM(fg_allocator_free_h(a, x) == -1, "%s: double free_h %d accepted", kn, order[i]);
    CHECK(!fg_allocator_handle_live(a, x) && fg_allocator_handle_size(a, x) == 0 && fg_allocator_user(a, x) == 0);
    CHECK(fg_allocator_set_user(a, x, 9) == -1);
    valid(a, kn);
  }
  CHECK(fg_allocator_count(a) == 0);
  /* a stale handle whose record was reused by a new allocation is still refused */
  fg_alloc_handle n1, n2;
  CHECK(fg_allocator_alloc_h(a, 40, 8, 0, &n1) == 0);
  CHECK(fg_allocator_free_h(a, &n1) == 0);
  CHECK(fg_allocator_alloc_h(a, 40, 8, 0, &n2) == 0);
  if (k == FG_ALLOC_TLSF || k == FG_ALLOC_FREELIST) {
    CHECKM(fg_allocator_free_h(a, &n1) == -1, "%s: stale handle freed the new allocation", kn);
    fg_alloc_handle forged = n2;
    forged.meta = 1u << 30;
    CHECK(fg_allocator_free_h(a, &forged) == -1);
    forged = n2;
    forged.gen ^= 1;
    CHECK(fg_allocator_free_h(a, &forged) == -1);
    /* free(offset) finds offset-path allocations only; the handle path has no map */
    CHECK(fg_allocator_free(a, n2.offset) == -1);
    uint64_t off = fg_allocator_alloc(a, 10, 1);
    fg_alloc_handle at;
    CHECK(off != FG_ALLOC_FAIL && fg_allocator_handle_at(a, off, &at) && at.offset == off);
    CHECK(fg_allocator_free_h(a, &at) == 0 && fg_allocator_free(a, off) == -1); /* map entry gone with it */
    valid(a, "offset path freed by handle");
  }
  CHECK(fg_allocator_free_h(a, &n2) == 0);
  /* reset makes every handle stale */
  CHECK(fg_allocator_alloc_h(a, 40, 1, 5, &n1) == 0);
  fg_allocator_reset(a);
  CHECK(!fg_allocator_handle_live(a, &n1) && fg_allocator_user(a, &n1) == 0);
  if (k == FG_ALLOC_TLSF || k == FG_ALLOC_FREELIST) CHECK(fg_allocator_free_h(a, &n1) == -1);
  valid(a, "after reset");
  /* requests that cannot fit fail and change nothing: above the capacity,
   * so large that size + align overflows, the whole range with padding */
  fg_alloc_handle big;
  uint64_t huge[] = { 4097, UINT64_MAX, UINT64_MAX - 7, 1ull << 63 };
  for (int i = 0; i < 4; i++)
    for (uint64_t al = 1; al <= 64; al *= 64)
      CHECKM(fg_allocator_alloc_h(a, huge[i], al, 0, &big) == -1, "%s: size %llu align %llu", kn,
             (unsigned long long)huge[i], (unsigned long long)al);
  CHECK(fg_allocator_count(a) == 0);
  valid(a, "after requests that cannot fit");
  /* a record's user data does not outlive its allocation: the next one made
   * on it, by either path, starts with none */
  for (int round = 0; round < 3; round++) {
    fg_alloc_handle u1, u2, u3;
    CHECK(fg_allocator_alloc_h(a, 40, 1, 77, &u1) == 0 && fg_allocator_free_h(a, &u1) == 0);
    uint64_t off = fg_allocator_alloc(a, 40, 1);
    CHECK(off != FG_ALLOC_FAIL && fg_allocator_handle_at(a, off, &u2) && fg_allocator_user(a, &u2) == 0);
    CHECK(fg_allocator_free(a, off) == 0);
    CHECK(fg_allocator_alloc_h(a, 40, 1, 0, &u3) == 0 && fg_allocator_user(a, &u3) == 0);
    CHECK(fg_allocator_free_h(a, &u3) == 0);
  }
  if (k != FG_ALLOC_SLAB) {
    CHECKM(fg_allocator_alloc_h(a, 4096, 1, 0, &big) == 0 && big.offset == 0, "%s: the whole range", kn);
    CHECK(fg_allocator_free_h(a, &big) == 0);
  }
  fg_allocator_destroy(a);
}

/* max_allocations: the pool is made once; no host call per alloc or free,
 * and the N+1th allocation fails. Without it, a steady state makes none either. */
static void test_bounded_pool(void) {
  for (int fixed = 1; fixed >= 0; fixed--) {
    fg_allocator *a = make(FG_ALLOC_TLSF, 1u << 20, 0, 0, fixed ? 100 : 0);
    if (!a) return;
    fg_alloc_handle h[101];
    int ok = 0;
    for (int i = 0; i < 100; i++) ok += fg_allocator_alloc_h(a, 1 + rnd() % 500, 1, 0, &h[i]) == 0;
    CHECK(ok == 100);
    if (fixed) CHECK(fg_allocator_alloc_h(a, 1, 1, 0, &h[100]) == -1);
    long before = host_calls;
    for (int step = 0; step < 40000; step++) { /* churn: free one, allocate one */
      if (step == 20000 && !fixed) before = host_calls; /* growing: measured after a warm-up */
      int i = (int)(rnd() % 100);
      CHECK(fg_allocator_free_h(a, &h[i]) == 0);
      CHECK(fg_allocator_alloc_h(a, 1 + rnd() % 500, 1u << (rnd() % 4), 0, &h[i]) == 0);
    }
    CHECKM(host_calls == before, "%s pool: %ld host allocations during the churn", fixed ? "fixed" : "growing",
           host_calls - before);
    valid(a, "bounded pool");
    fg_allocator_destroy(a);
  }
}

/* Random handle churn against a model, with user data, on TLSF and FREELIST
 * (granularity 1 and 64). */
typedef struct rec { fg_alloc_handle h; uint64_t user, size; } rec;
static void test_random(fg_alloc_kind k, uint64_t gran) {
  const uint64_t cap = 1u << 16;
  fg_allocator *a = make(k, cap, 0, gran, 0);
  if (!a) return;
  rec *live = calloc(4096, sizeof *live);
  uint8_t *owner = calloc(cap, 1);
  int n = 0;
  for (int op = 0; op < 20000; op++) {
    if (n < 4096 && (n == 0 || rnd() % 100 < 55)) {
      uint64_t size = 1 + rnd() % 700, align = 1ull << (rnd() % 7), user = rnd() | 1;
      rec r = { .user = user, .size = size };
      if (fg_allocator_alloc_h(a, size, align, user, &r.h) == 0) {
        CHECK(r.h.offset % align == 0 && r.h.offset + size <= cap && fg_allocator_handle_size(a, &r.h) >= size);
        for (uint64_t i = r.h.offset; i < r.h.offset + size; i++) {
          CHECKM(!owner[i], "overlap at %llu", (unsigned long long)i);
          owner[i] = 1;
        }
        live[n++] = r;
      }
    } else {
      int i = (int)(rnd() % (uint64_t)n);
      CHECK(fg_allocator_user(a, &live[i].h) == live[i].user);
      CHECK(fg_allocator_free_h(a, &live[i].h) == 0);
      memset(owner + live[i].h.offset, 0, live[i].size);
      live[i] = live[--n];
    }
    if (op % 2000 == 0) valid(a, "random handles");
  }
  CHECK(fg_allocator_count(a) == (uint64_t)n);
  valid(a, "random handles end");
  free(live);
  free(owner);
  fg_allocator_destroy(a);
}

/* Alignment 3 is refused by every kind with the same message. */
static void test_alignment_rule(void) {
  for (int k = 0; k < FG_ALLOC_KIND_COUNT; k++) {
    fg_allocator *a = make((fg_alloc_kind)k, 4096, k == FG_ALLOC_SLAB ? 64 : 0, 0, 0);
    if (!a) continue;
    char err[256] = "";
    CHECK(fg_allocator_alloc_err(a, 8, 3, err, sizeof err) == FG_ALLOC_FAIL);
    CHECKM(strstr(err, "align 3 is not a power of two") != NULL, "%s: '%s'", fg_alloc_kind_name((fg_alloc_kind)k), err);
    CHECK(fg_allocator_alloc(a, 8, 3) == FG_ALLOC_FAIL);
    fg_alloc_handle h;
    CHECK(fg_allocator_alloc_h(a, 8, 3, 0, &h) == -1);
    CHECK(fg_allocator_alloc(a, 8, 4) != FG_ALLOC_FAIL); /* and a power of two is taken */
    CHECK(fg_allocator_count(a) == 1);
    /* freeing a failed allocation's result is refused and harms nothing
     * (FG_ALLOC_FAIL once matched the offset map's empty slots) */
    CHECK(fg_allocator_free(a, FG_ALLOC_FAIL) == -1 && fg_allocator_size(a, FG_ALLOC_FAIL) == 0);
    fg_alloc_handle none;
    CHECK(!fg_allocator_handle_at(a, FG_ALLOC_FAIL, &none));
    valid(a, "free of FG_ALLOC_FAIL");
    fg_alloc_stats st;
    fg_allocator_stats(a, &st);
    CHECK(st.allocations == 1);
    fg_allocator_destroy(a);
  }
}

/* FREELIST picks the smallest free block that fits (descriptor-heap use:
 * granularity 1, index ranges). */
static void test_best_fit(void) {
  fg_allocator *a = make(FG_ALLOC_FREELIST, 1000, 0, 0, 0);
  if (!a) return;
  /* holes of 9, 3 and 5 slots between pinned separators */
  uint64_t sizes[] = { 9, 1, 3, 1, 5, 1 };
  uint64_t off[6];
  for (int i = 0; i < 6; i++) off[i] = fg_allocator_alloc(a, sizes[i], 1);
  CHECK(fg_allocator_free(a, off[0]) == 0 && fg_allocator_free(a, off[2]) == 0 && fg_allocator_free(a, off[4]) == 0);
  CHECK(fg_allocator_alloc(a, 3, 1) == off[2]); /* exact */
  CHECK(fg_allocator_alloc(a, 4, 1) == off[4]); /* the 5-slot hole, not the 9 */
  CHECK(fg_allocator_alloc(a, 9, 1) == off[0]);
  valid(a, "best fit");
  fg_allocator_destroy(a);
}

static size_t count_of(const char *s, const char *pat) {
  size_t n = 0;
  for (const char *p = s; (p = strstr(p, pat)); p++) n++;
  return n;
}

static void test_dumps(void) {
  fg_allocator *a = make(FG_ALLOC_TLSF, 1024, 0, 0, 0);
  if (!a) return;
  fg_alloc_handle h[4];
  for (int i = 0; i < 4; i++) fg_allocator_alloc_h(a, 100, 1, (uint64_t)i + 1, &h[i]);
  fg_allocator_free_h(a, &h[1]);
  char *j = fg_allocator_json(a);
  CHECK(j != NULL);
  if (j) {
    CHECKM(strstr(j, "\"allocation_count\":3") && count_of(j, "\"user\":") == 3, "json: %s", j);
    CHECKM(strstr(j, "{\"offset\":100,\"size\":100}") && strstr(j, "{\"offset\":400,\"size\":624}"), "free ranges: %s", j);
    CHECKM(strstr(j, "{\"min\":64,\"max\":127,\"count\":1,\"bytes\":100}") &&
           strstr(j, "{\"min\":512,\"max\":1023,\"count\":1,\"bytes\":624}"), "histogram: %s", j);
    fg_allocator_free_result(a, j);
  }
  char *s = fg_allocator_svg(a, 400);
  CHECK(s && strncmp(s, "<svg", 4) == 0 && count_of(s, "class=\"used\"") == 3 && strstr(s, "</svg>"));
  fg_allocator_free_result(a, s);
  fg_allocator_destroy(a);
}

/* ---- defragmentation plans on a model heap ---- */
/* model: one owner id per unit of each block (0 = free). Applying a move
 * checks that its source holds exactly that allocation and that its
 * destination is free (or the allocation's own old place), then copies. */
typedef struct heap { uint32_t nblocks; uint64_t cap; uint32_t **own; } heap;

static int apply(heap *m, const fg_defrag_move *mv, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const fg_defrag_move *x = &mv[i];
    if (x->src_block >= m->nblocks || x->dst_block >= m->nblocks || x->dst_offset + x->size > m->cap) return -1;
    uint32_t *src = m->own[x->src_block], *dst = m->own[x->dst_block];
    uint32_t id = src[x->src_offset];
    if (!id) return -1;
    for (uint64_t u = 0; u < x->size; u++)
      if (src[x->src_offset + u] != id) return -1;
    for (uint64_t u = 0; u < x->size; u++)
      if (dst[x->dst_offset + u] && dst[x->dst_offset + u] != id) return -1; /* would clobber another */
    for (uint64_t u = 0; u < x->size; u++) src[x->src_offset + u] = 0;
    for (uint64_t u = 0; u < x->size; u++) dst[x->dst_offset + u] = id;
  }
  return 0;
}

typedef struct fillctx { heap *m; uint32_t block; uint32_t next; } fillctx;
static void fill(void *c, uint64_t off, uint64_t size, uint64_t align, uint64_t user) {
  fillctx *f = c;
  for (uint64_t u = 0; u < size; u++) f->m->own[f->block][off + u] = (uint32_t)user;
}
static void fill_block(void *c, uint32_t index, void *bu, const fg_allocator *a) {
  fillctx *f = c;
  f->block = index;
  fg_allocator_walk(a, fill, f);
}

/* Every id keeps its unit count; returns the number of blocks in use. */
static uint32_t census(const heap *m, uint64_t *units, uint32_t maxid) {
  memset(units, 0, sizeof(uint64_t) * (maxid + 1));
  uint32_t used = 0;
  for (uint32_t b = 0; b < m->nblocks; b++) {
    int any = 0;
    for (uint64_t u = 0; u < m->cap; u++)
      if (m->own[b][u]) { units[m->own[b][u]]++; any = 1; }
    used += any;
  }
  return used;
}

static int host_create(void *u, uint64_t size, void **bu) { *bu = (void *)(uintptr_t)(size | 1); return 0; }
static void host_destroy(void *u, void *bu) { }

static void test_defrag(uint64_t seed, int pin) {
  rng = seed;
  const uint64_t cap = 4096;
  fg_block_desc d = { FG_ALLOC_TLSF, cap, 0, 8, host_create, host_destroy, NULL, NULL };
  fg_block_allocator *b = fg_block_allocator_create(&d, NULL, 0);
  if (!b) { CHECK(0); return; }
  enum { N = 400 };
  fg_block_allocation al[N];
  int live[N] = {0};
  uint64_t size[N], align[N];
  /* fill several blocks, then free two thirds at random: a fragmented pool */
  for (uint32_t i = 0; i < N; i++) {
    size[i] = 1 + rnd() % 120;
    uint64_t user = pin && rnd() % 10 == 0 ? FG_ALLOC_PINNED : i + 1;
    align[i] = 1u << (rnd() % 5);
    live[i] = fg_block_alloc_user(b, size[i], align[i], user, &al[i]) == 0;
  }
  for (uint32_t i = 0; i < N; i++)
    if (live[i] && rnd() % 3) { CHECK(fg_block_free(b, &al[i]) == 0); live[i] = 0; }
  /* model */
  heap m = { 16, cap, calloc(16, sizeof(uint32_t *)) };
  for (uint32_t i = 0; i < 16; i++) m.own[i] = calloc(cap, sizeof(uint32_t));
  fillctx f = { &m, 0, 0 };
  fg_block_each(b, fill_block, &f);
  /* pinned allocations get ids too (their user is the pin mark) */
  for (uint32_t i = 0; i < N; i++)
    if (live[i] && m.own[al[i].block][al[i].offset] == (uint32_t)FG_ALLOC_PINNED)
      for (uint64_t u = 0; u < fg_block_reserved(b, &al[i]); u++) m.own[al[i].block][al[i].offset + u] = N + 1 + i;
  static uint64_t before[2 * N + 2], after[2 * N + 2];
  uint32_t blocks_before = census(&m, before, 2 * N + 1);
  fg_defrag_move *mv = NULL;
  size_t n = 0;
  CHECK(fg_block_defrag_plan(b, &mv, &n) == 0);
  CHECKM(n > 0, "seed %llu: no moves planned for a fragmented pool", (unsigned long long)seed);
  CHECKM(apply(&m, mv, n) == 0, "seed %llu: the plan clobbers data when applied in order", (unsigned long long)seed);
  uint32_t blocks_after = census(&m, after, 2 * N + 1);
  CHECK(memcmp(before, after, sizeof before) == 0); /* every allocation intact, once */
  CHECKM(blocks_after <= blocks_before, "blocks in use %u -> %u", blocks_before, blocks_after);
  for (size_t i = 0; i < n; i++) {
    CHECK(mv[i].user != FG_ALLOC_PINNED);
    uint64_t k = mv[i].user - 1; /* alignment kept: what each asked for */
    CHECK(k < N && live[k] && mv[i].dst_offset % align[k] == 0 && mv[i].size == fg_block_reserved(b, &al[k]));
  }
  if (!pin) {
    /* compacted: the fullest block has no hole below its last allocation
     * wider than the largest alignment (16) */
    uint32_t best = 0;
    uint64_t most = 0;
    for (uint32_t bi = 0; bi < m.nblocks; bi++) {
      uint64_t u = 0;
      for (uint64_t x = 0; x < cap; x++) u += m.own[bi][x] != 0;
      if (u > most) { most = u; best = bi; }
    }
    uint64_t last = 0, gap = 0, run = 0;
    for (uint64_t x = 0; x < cap; x++) {
      if (m.own[best][x]) { last = x; if (run > gap) gap = run; run = 0; }
      else run++;
    }
    CHECKM(gap < 16 && last > 0, "fullest block still has a hole of %llu", (unsigned long long)gap);
  }
  fg_block_free_result(b, mv);
  /* the lone allocator's plan compacts it towards 0 */
  fg_allocator *a = make(FG_ALLOC_TLSF, cap, 0, 0, 0);
  fg_alloc_handle h[64];
  for (int i = 0; i < 64; i++) fg_allocator_alloc_h(a, 1 + rnd() % 60, 1, (uint64_t)i + 1, &h[i]);
  for (int i = 0; i < 64; i += 2) fg_allocator_free_h(a, &h[i]);
  heap one = { 1, cap, m.own };
  memset(m.own[0], 0, cap * sizeof(uint32_t));
  fillctx g = { &one, 0, 0 };
  fg_allocator_walk(a, fill, &g);
  CHECK(fg_allocator_defrag_plan(a, &mv, &n) == 0 && n > 0);
  CHECK(apply(&one, mv, n) == 0);
  fg_alloc_stats st;
  fg_allocator_stats(a, &st);
  uint64_t units = 0;
  for (uint64_t x = 0; x < cap; x++) units += m.own[0][x] != 0;
  CHECK(units > 0);
  for (uint64_t x = 0; x < units; x++) CHECK(m.own[0][x] != 0); /* align 1: no hole at all */
  fg_allocator_free_result(a, mv);
  fg_allocator_destroy(a);
  for (uint32_t i = 0; i < 16; i++) free(m.own[i]);
  free(m.own);
  fg_block_allocator_destroy(b);
}

/* Results (JSON, SVG, plans) come from the hooks the allocator was made
 * with: these hooks hand out blocks behind a tag, so a result made or freed
 * by plain malloc/free would fail the tag check (or trip ASan), and the
 * live count shows that every block made is given back. */
#define TAG 0x5A11C8EDull
static long tagged_live, tagged_calls;
static void *tagged_realloc(void *u, void *p, size_t n) {
  uint64_t *h = p ? (uint64_t *)p - 2 : NULL;
  if (h) CHECK(h[0] == TAG);
  tagged_calls++;
  if (!n) { if (h) { h[0] = 0; tagged_live--; } free(h); return NULL; }
  uint64_t *q = realloc(h, n + 16);
  if (!q) return NULL;
  if (!h) tagged_live++;
  q[0] = TAG;
  return q + 2;
}
static const fg_alloc_hooks tagged = { tagged_realloc, NULL };

static void test_result_hooks(void) {
  char err[256] = "";
  fg_alloc_desc d = { .kind = FG_ALLOC_TLSF, .capacity = 4096, .hooks = &tagged };
  fg_allocator *a = fg_allocator_create(&d, err, sizeof err);
  CHECKM(a != NULL, "create: %s", err);
  if (!a) return;
  fg_alloc_handle h[32];
  for (int i = 0; i < 32; i++) CHECK(fg_allocator_alloc_h(a, 1 + (uint64_t)i * 7, 1, (uint64_t)i + 1, &h[i]) == 0);
  for (int i = 0; i < 32; i += 2) CHECK(fg_allocator_free_h(a, &h[i]) == 0);
  long live0 = tagged_live, calls0 = tagged_calls;
  char *j = fg_allocator_json(a), *s = fg_allocator_svg(a, 0);
  fg_defrag_move *mv = NULL;
  size_t n = 0;
  CHECK(j && s && fg_allocator_defrag_plan(a, &mv, &n) == 0 && mv && n > 0);
  CHECK(tagged_calls > calls0 && tagged_live == live0 + 3); /* three results, temporaries given back */
  if (j) CHECK(((uint64_t *)j)[-2] == TAG);
  fg_allocator_free_result(a, j);
  fg_allocator_free_result(a, s);
  fg_allocator_free_result(a, mv);
  fg_allocator_free_result(a, NULL);
  CHECK(tagged_live == live0);
  fg_allocator_destroy(a);

  fg_block_desc bd = { FG_ALLOC_TLSF, 1024, 0, 4, host_create, host_destroy, NULL, &tagged };
  fg_block_allocator *b = fg_block_allocator_create(&bd, err, sizeof err);
  CHECKM(b != NULL, "block create: %s", err);
  if (!b) return;
  fg_block_allocation al[40];
  for (int i = 0; i < 40; i++) CHECK(fg_block_alloc_user(b, 50 + (uint64_t)i, 1, (uint64_t)i + 1, &al[i]) == 0);
  for (int i = 0; i < 40; i += 3) CHECK(fg_block_free(b, &al[i]) == 0);
  live0 = tagged_live;
  char *bj = fg_block_json(b);
  CHECK(bj && fg_block_defrag_plan(b, &mv, &n) == 0 && mv && n > 0);
  CHECK(tagged_live == live0 + 2);
  fg_block_free_result(b, bj);
  fg_block_free_result(b, mv);
  CHECK(tagged_live == live0);
  fg_block_allocator_destroy(b);
  CHECK(tagged_live == 0);
}

/* The handle path's two routes for TLSF and FREELIST: alignment at most the
 * granularity (no alignment arithmetic) and above it; size 0 refused on both;
 * and a range near 2^64, where the good fit's class rounding must not wrap. */
static void test_plain_and_aligned(void) {
  for (int k = FG_ALLOC_TLSF; k <= FG_ALLOC_FREELIST; k += FG_ALLOC_FREELIST - FG_ALLOC_TLSF) {
    const char *kn = fg_alloc_kind_name((fg_alloc_kind)k);
    fg_allocator *a = make((fg_alloc_kind)k, 1 << 16, 0, 64, 0);
    if (!a) continue;
    fg_alloc_handle h[6];
    uint64_t al[6] = { 0, 1, 64, 128, 1024, 64 };
    CHECKM(fg_allocator_alloc_h(a, 0, 1, 0, &h[0]) == -1 && fg_allocator_alloc_h(a, 0, 256, 0, &h[0]) == -1,
           "%s: size 0 refused", kn);
    for (int i = 0; i < 6; i++) {
      CHECKM(fg_allocator_alloc_h(a, 1 + 37 * (uint64_t)i, al[i], 9 + (uint64_t)i, &h[i]) == 0, "%s alloc %d", kn, i);
      uint64_t need = al[i] > 64 ? al[i] : 64;
      CHECKM(h[i].offset % need == 0, "%s: offset %llu not aligned to %llu", kn, (unsigned long long)h[i].offset,
             (unsigned long long)need);
      CHECK(fg_allocator_handle_size(a, &h[i]) % 64 == 0 && fg_allocator_handle_size(a, &h[i]) >= 1 + 37 * (uint64_t)i);
    }
    valid(a, "plain and aligned");
    for (int i = 0; i < 6; i++) CHECK(fg_allocator_user(a, &h[i]) == 9 + (uint64_t)i);
    for (int i = 0; i < 6; i++) CHECK(fg_allocator_free_h(a, &h[i]) == 0 && fg_allocator_free_h(a, &h[i]) == -1);
    CHECK(fg_allocator_count(a) == 0);
    valid(a, "plain and aligned, freed");
    fg_allocator_destroy(a);
    a = make((fg_alloc_kind)k, UINT64_MAX - 1, 0, 0, 0); /* the largest capacity taken */
    if (!a) continue;
    uint64_t sz[3] = { (1ull << 63) + 5, UINT64_MAX - (1ull << 57), UINT64_MAX - 1 };
    for (int i = 0; i < 3; i++) {
      CHECKM(fg_allocator_alloc_h(a, sz[i], 1, 0, &h[0]) == 0 && h[0].offset == 0, "%s: size %llu of 2^64 - 2", kn,
             (unsigned long long)sz[i]);
      CHECK(fg_allocator_free_h(a, &h[0]) == 0);
    }
    valid(a, "near 2^64");
    fg_allocator_destroy(a);
  }
}

/* The per-record user data array is made on the first non-zero user data;
 * when the host cannot give it, that allocation fails and leaves the heap as
 * it was (the block carved for it goes back), and a later one succeeds. */
static int fail_next;
static void *failing_realloc(void *u, void *p, size_t n) {
  (void)u;
  if (!n) { free(p); return NULL; }
  if (fail_next) { fail_next = 0; return NULL; }
  return realloc(p, n);
}
static const fg_alloc_hooks failing = { failing_realloc, NULL };

static void test_user_array_failure(void) {
  for (int fixed = 0; fixed < 2; fixed++) {
    char err[256] = "";
    fg_alloc_desc d = { .kind = FG_ALLOC_TLSF, .capacity = 1 << 20, .max_allocations = fixed ? 64 : 0, .hooks = &failing };
    fg_allocator *a = fg_allocator_create(&d, err, sizeof err);
    CHECKM(a != NULL, "create: %s", err);
    if (!a) return;
    fg_alloc_handle h0, h1, h2;
    CHECK(fg_allocator_alloc_h(a, 100, 1, 0, &h0) == 0); /* no user data: no array yet */
    fail_next = 1;
    CHECK(fg_allocator_alloc_h(a, 200, 1, 42, &h1) == -1);
    CHECK(fg_allocator_count(a) == 1);
    valid(a, "user array refused");
    CHECK(fg_allocator_alloc_h(a, 200, 1, 42, &h2) == 0);
    CHECK(fg_allocator_user(a, &h2) == 42 && fg_allocator_user(a, &h0) == 0);
    CHECK(fg_allocator_free_h(a, &h0) == 0 && fg_allocator_free_h(a, &h2) == 0);
    CHECK(fg_allocator_count(a) == 0);
    valid(a, "user array made later");
    fg_allocator_destroy(a);
  }
}

int main(void) {
  test_plain_and_aligned();
  test_user_array_failure();
  test_result_hooks();
  for (int k = 0; k < FG_ALLOC_KIND_COUNT; k++) test_handles((fg_alloc_kind)k);
  test_bounded_pool();
  test_random(FG_ALLOC_TLSF, 1);
  test_random(FG_ALLOC_TLSF, 64);
  test_random(FG_ALLOC_FREELIST, 1);
  test_alignment_rule();
  test_best_fit();
  test_dumps();
  for (uint64_t s = 1; s <= 6; s++) test_defrag(s, (int)(s & 1));
  if (failures) { fprintf(stderr, "%d failures\n", failures); return 1; }
  printf("test_alloc_handles: ok\n");
  return 0;
}
