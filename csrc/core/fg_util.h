/* Small shared helpers for the pure C core: allocator hooks and error text. */
#ifndef FG_UTIL_H
#define FG_UTIL_H
#include <stddef.h>
#include <stdint.h>

/* Allocation hooks (VMA/sokol style): zero-initialised means malloc/realloc/free. */
typedef struct fg_alloc_hooks {
  void *(*realloc_fn)(void *user, void *ptr, size_t size); /* size 0 = free */
  void *user;
} fg_alloc_hooks;

void *fg_realloc(const fg_alloc_hooks *h, void *ptr, size_t size);
static inline void *fg_malloc(const fg_alloc_hooks *h, size_t size) { return fg_realloc(h, NULL, size); }
static inline void fg_free(const fg_alloc_hooks *h, void *ptr) { if (ptr) fg_realloc(h, ptr, 0); }
/* Grows the array *a of *cap elements of elem bytes to hold need (doubling,
 * from first): 0, or -1 with *a and *cap unchanged when out of memory. */
int fg_grow(const fg_alloc_hooks *h, void **a, size_t *cap, size_t need, size_t first, size_t elem);

/* snprintf into a caller buffer that may be NULL/0; always terminates. */
void fg_errf(char *buf, size_t len, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 3, 4)))
#endif
  ;

/* Monotonic clock in nanoseconds (for budgets and benches). */
uint64_t fg_now_ns(void);

static inline uint64_t fg_align_up(uint64_t x, uint64_t a) { return a > 1 ? (x + a - 1) / a * a : x; }

/* splitmix64: the packers' random draws (restarts, ruins, shuffles), each
 * from a state of its own, so results depend on the seed alone */
static inline uint64_t fg_splitmix64(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

#endif
