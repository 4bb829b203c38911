/* Shared by the C unit tests: a non-aborting CHECK that counts failures and
 * prints a formatted reason, and a seeded splitmix64 generator. Each test
 * defines its seed with FG_TEST_SEED before including this file. */
#ifndef FG_TEST_H
#define FG_TEST_H
#include <stdint.h>
#include <stdio.h>

static int failures = 0;
#define CHECK(cond, ...)                                              \
  do {                                                                \
    if (!(cond)) {                                                    \
      failures++;                                                     \
      fprintf(stderr, "%s:%d: FAIL %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                   \
      fprintf(stderr, "\n");                                          \
    }                                                                 \
  } while (0)

#ifndef FG_TEST_SEED
#define FG_TEST_SEED 0x9E3779B97F4A7C15ull
#endif
static uint64_t rng_state = FG_TEST_SEED;
static inline uint64_t rnd(void) { /* splitmix64 */
  uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static inline uint64_t rndu(uint64_t n) { return n ? rnd() % n : 0; }
#endif
