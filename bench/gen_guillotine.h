/* Instances with a known optimum that nobody tuned for: guillotine cuts of
 * a time x bytes rectangle [0, T) x [0, H) into n pieces. Every point in
 * time is covered by pieces of H bytes in all, so LOAD = H, and the cuts
 * themselves are a packing of makespan H: the optimum is H exactly.
 * Irregular sizes (cuts at any byte) and alignments (each piece's alignment
 * is the largest power of two, up to 4096, dividing its offset in the
 * construction, so the construction stays valid). Cyclic: time is rotated
 * by a random shift, so pieces wrap past the end of the cycle, and pieces
 * as wide as the cycle live the whole of it (start == stop).
 * Header-only (static), shared by bench_cdsa and the tests. */
#ifndef FG_GEN_GUILLOTINE_H
#define FG_GEN_GUILLOTINE_H
#include <stddef.h>
#include <stdint.h>
#include "fg_pack.h"

static uint64_t gg_rnd(uint64_t *s) { /* splitmix64 */
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

typedef struct gg_rect { uint64_t t0, t1, b0, b1; } gg_rect;

/* Fills items[0..n) (and opt_off, the construction's offsets, when given)
 * for a rectangle of T time points and H bytes; cyclic: period T. Needs
 * n <= T * H. scratch holds n rectangles. Returns the optimum, H. */
static uint64_t gg_generate(fg_pack_item *items, uint64_t *opt_off, gg_rect *scratch, size_t n, uint64_t T,
                            uint64_t H, int cyclic, uint64_t *seed) {
  gg_rect *r = scratch;
  size_t m = 1;
  r[0] = (gg_rect){0, T, 0, H};
  while (m < n) {
    /* a random piece that can still be cut (any piece wider than one
     * point or taller than one byte), cut in a random direction at a
     * random place; larger pieces are likelier (two draws, keep the larger) */
    size_t k = gg_rnd(seed) % m, k2 = gg_rnd(seed) % m;
    if ((r[k2].t1 - r[k2].t0) * (r[k2].b1 - r[k2].b0) > (r[k].t1 - r[k].t0) * (r[k].b1 - r[k].b0)) k = k2;
    gg_rect x = r[k];
    int can_t = x.t1 - x.t0 > 1, can_b = x.b1 - x.b0 > 1;
    if (!can_t && !can_b) continue;
    int by_time = can_t && (!can_b || gg_rnd(seed) % 2);
    if (by_time) {
      uint64_t c = x.t0 + 1 + gg_rnd(seed) % (x.t1 - x.t0 - 1);
      r[k].t1 = c;
      r[m++] = (gg_rect){c, x.t1, x.b0, x.b1};
    } else {
      uint64_t c = x.b0 + 1 + gg_rnd(seed) % (x.b1 - x.b0 - 1);
      r[k].b1 = c;
      r[m++] = (gg_rect){x.t0, x.t1, c, x.b1};
    }
  }
  uint64_t shift = cyclic ? gg_rnd(seed) % T : 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t a = 1;
    while (a < 4096 && r[i].b0 % (2 * a) == 0) a *= 2;
    uint64_t s = r[i].t0, e = r[i].t1;
    if (cyclic) {
      s = (s + shift) % T;
      e = (e + shift) % T; /* a piece as wide as the cycle: s == e, the whole cycle */
    }
    items[i] = (fg_pack_item){s, e, r[i].b1 - r[i].b0, a, 0, 0};
    if (opt_off) opt_off[i] = r[i].b0;
  }
  return H;
}

#endif
