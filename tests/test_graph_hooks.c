/* The graph compiler and the packer take all their CPU memory from the
 * caller's hooks (fg_graph_desc.alloc, fg_pack_desc.hooks): linked with
 * --wrap=malloc,calloc,realloc,free,... over the core library (CMakeLists),
 * so a direct call between the marks lands in a counter here. Between them:
 * compiles with every solver, a capacity decision, a re-plan after a
 * resolution change (offset hint, the packer's cache), a dimension change,
 * direct fg_pack calls with a cache, and the frees. Then: no direct call,
 * the hooks used, every hooked block freed (bytes back to 0), and the hooked
 * results equal the malloc ones (hooks change where memory comes from, not
 * what is computed). */
#include "fg_graph.h"
#include "fg_pack.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(c, ...)                                            \
  do {                                                           \
    if (!(c)) {                                                  \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);                \
      printf(__VA_ARGS__);                                       \
      printf("\n");                                              \
      failures++;                                                \
    }                                                            \
  } while (0)

void *__real_malloc(size_t);
void *__real_calloc(size_t, size_t);
void *__real_realloc(void *, size_t);
void __real_free(void *);
void *__real_aligned_alloc(size_t, size_t);
int __real_posix_memalign(void **, size_t, size_t);
char *__real_strdup(const char *);
char *__real_strndup(const char *, size_t);

static int armed;
static long direct;
static void *first_caller;
static void note(void *caller) {
  if (!armed) return;
  if (!direct) first_caller = caller;
  direct++;
}
void *__wrap_malloc(size_t n) { note(__builtin_return_address(0)); return __real_malloc(n); }
void *__wrap_calloc(size_t c, size_t n) { note(__builtin_return_address(0)); return __real_calloc(c, n); }
void *__wrap_realloc(void *p, size_t n) { note(__builtin_return_address(0)); return __real_realloc(p, n); }
void __wrap_free(void *p) { if (p) note(__builtin_return_address(0)); __real_free(p); }
void *__wrap_aligned_alloc(size_t a, size_t n) { note(__builtin_return_address(0)); return __real_aligned_alloc(a, n); }
int __wrap_posix_memalign(void **p, size_t a, size_t n) {
  note(__builtin_return_address(0));
  return __real_posix_memalign(p, a, n);
}
char *__wrap_strdup(const char *s) { note(__builtin_return_address(0)); return __real_strdup(s); }
char *__wrap_strndup(const char *s, size_t n) { note(__builtin_return_address(0)); return __real_strndup(s, n); }

static uint64_t fg_test_rand(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return *s >> 33;
}

typedef struct counter {
  long allocs, frees, reallocs;
  long long live_bytes;
  long live_blocks;
} counter;

/* a 16-byte header keeps each block's size, so bytes balance exactly */
static void *count_realloc(void *user, void *p, size_t n) {
  counter *c = user;
  size_t old = 0;
  unsigned char *base = p ? (unsigned char *)p - 16 : NULL;
  if (base) memcpy(&old, base, sizeof old);
  if (!n) {
    if (p) { c->frees++; c->live_blocks--; c->live_bytes -= (long long)old; }
    __real_free(base);
    return NULL;
  }
  unsigned char *q = __real_realloc(base, n + 16);
  if (!q) return NULL;
  if (p) c->reallocs++;
  else { c->allocs++; c->live_blocks++; }
  c->live_bytes += (long long)n - (long long)old;
  memcpy(q, &n, sizeof n);
  return q + 16;
}

typedef struct trace { uint64_t v[64]; int n; } trace;

static void run(const fg_alloc_hooks *h, trace *t) {
  /* fg_pack itself, twice on a cache (the second call reuses it) */
  fg_pack_item items[40];
  uint64_t rs = 12345;  /* irregular sizes and lifetimes: the baselines miss LOAD, so the search runs */
  for (int i = 0; i < 40; i++) {
    uint64_t a = fg_test_rand(&rs) % 24, w = 1 + fg_test_rand(&rs) % 10;
    items[i] = (fg_pack_item){a, a + w, 64u * (1 + fg_test_rand(&rs) % 97), 64, (uint32_t)(i % 2), 0};
  }
  fg_pack_cache *c = fg_pack_cache_new_hooks(h);
  CHECK(c != NULL, "fg_pack_cache_new_hooks");
  uint64_t off[40];
  for (int k = 0; k < 2; k++) {
    fg_pack_desc pd;
    memset(&pd, 0, sizeof pd);
    pd.period = k ? 0 : 40;
    pd.hooks = h;
    pd.cache = c;
    fg_pack_result r;
    char err[256] = "";
    CHECK(fg_pack(items, 40, &pd, off, &r, err, sizeof err) == 0, "fg_pack: %s", err);
    if (t->n < 64) t->v[t->n++] = r.makespan;
  }
  fg_pack_cache_free(c);
  /* the exact decision search: the capacity just below what was found, and
   * a generous work budget (deterministic: work, not time) */
  uint64_t best = t->n ? t->v[t->n - 1] : 0;
  for (int k = 0; k < 2; k++) {
    fg_pack_desc pd;
    memset(&pd, 0, sizeof pd);
    pd.hooks = h;
    if (k) pd.work_budget = 20000000;
    else pd.capacity = best > 256 ? best - 256 : 1;
    fg_pack_result r;
    char err[256] = "";
    CHECK(fg_pack(items, 40, &pd, off, &r, err, sizeof err) == 0, "fg_pack (%d): %s", k, err);
    if (t->n < 64) t->v[t->n++] = r.makespan;
  }
}

int main(void) {
  /* the same work with malloc first: what the hooked run must equal */
  trace plain = {{0}, 0}, hooked = {{0}, 0};
  run(NULL, &plain);
  counter cnt = {0};
  fg_alloc_hooks h = {count_realloc, &cnt};
  armed = 1;
  run(&h, &hooked);
  armed = 0;
  CHECK(direct == 0, "%ld direct malloc/calloc/realloc/free calls in the graph compiler or the packer (first from %p)",
        direct, first_caller);
  CHECK(cnt.allocs > 100, "only %ld allocations through the hooks", cnt.allocs);
  CHECK(cnt.live_blocks == 0 && cnt.live_bytes == 0 && cnt.allocs == cnt.frees,
        "hooks: %ld allocations, %ld frees, %ld blocks and %lld bytes live", cnt.allocs, cnt.frees, cnt.live_blocks,
        cnt.live_bytes);
  CHECK(plain.n == hooked.n && plain.n > 3 && !memcmp(plain.v, hooked.v, sizeof(uint64_t) * (size_t)plain.n),
        "the hooked compiles and packs differ from the malloc ones (%d vs %d values)", hooked.n, plain.n);

  /* a cache made with other hooks than the call's is refused, with how to fix it */
  fg_pack_cache *c = fg_pack_cache_new();
  fg_pack_item it = {0, 1, 64, 0, 0, 0};
  uint64_t o;
  fg_pack_desc pd;
  memset(&pd, 0, sizeof pd);
  pd.hooks = &h;
  pd.cache = c;
  char err[256] = "";
  CHECK(fg_pack(&it, 1, &pd, &o, NULL, err, sizeof err) == -1 && strstr(err, "fg_pack_cache_new_hooks"),
        "a cache with other hooks: '%s'", err);
  fg_pack_cache_free(c);
  printf("%s: %ld hooked allocations (%ld reallocs), 0 direct\n", failures ? "FAILED" : "ok", cnt.allocs,
         cnt.reallocs);
  return failures ? 1 : 0;
}
