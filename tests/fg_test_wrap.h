/* Shared by the tests that prove the allocation hooks (test_graph_hooks.c,
 * host/hooks.c): the --wrap interposer of malloc and its relatives, which
 * calls the includer's `static void note(void *caller)` for every direct call,
 * and a counting fg_allocator realloc for the hooks under test. The program
 * links with -Wl,--wrap=malloc,... (CMakeLists.txt). */
#ifndef FG_TEST_WRAP_H
#define FG_TEST_WRAP_H
#include <stddef.h>
#include <string.h>

void *__real_malloc(size_t);
void *__real_calloc(size_t, size_t);
void *__real_realloc(void *, size_t);
void __real_free(void *);
void *__real_aligned_alloc(size_t, size_t);
int __real_posix_memalign(void **, size_t, size_t);
char *__real_strdup(const char *);
char *__real_strndup(const char *, size_t);

static void note(void *caller);  /* the includer's: one direct call from caller */
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

/* the hooks under test: count calls and live bytes */
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
#endif
