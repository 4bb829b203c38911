/* best's helpers that several of its steps share (pack_best.c and the
 * files of its steps call down into this one, never back): the conflict
 * bits from the cache, whether the load is flat, and whether the dives
 * run. */
#include "pack_best_int.h"
#include "pack_tile.h"
#include <stdlib.h>

/* The conflict matrix as bits (pk_conflict_bits): placement tests pairs
 * far more often than there are pairs. Skipped for very large n (memory
 * n^2/8). */
static uint64_t *build_bits(const pk_inst *in, size_t *words) {
  return in->n > BUILD_BITS_MAX_N ? NULL : pk_conflict_bits(in, words);
}
/* The conflict bits from the cache, built there if missing (the cache owns
 * them: *own stays NULL); without a cache built and owned by the caller. */
const uint64_t *best_get_bits(const pk_inst *in, size_t *words, uint64_t **own) {
  fg_pack_cache *c = in->cache;
  if (!c) return *own = build_bits(in, words);
  if (!c->bits) c->bits = build_bits(in, &c->words);
  *words = c->words;
  return c->bits;
}

/* A flat load (LOAD at every point: a perfect tiling's, never a frame
 * graph's) is pack_tile's (2b) and nothing else's; known once per call. */
int flat_load(best_run *r) {
  if (!r->flat) r->flat = !r->in.gran && pk_flat(&r->in, r->flatlb) ? 2 : 1;
  return r->flat == 2;
}

/* Do dives run (the deadline of their half of what is left, or 0)? A dive
 * costs about DIVE_PAIR_NS (on bits DIVE_BITS_PAIR_NS) per pair of items:
 * none that would not fit. */
uint64_t dive_cost(const best_run *r) {
  return (r->in.cbits ? DIVE_BITS_PAIR_NS : DIVE_PAIR_NS) * (uint64_t)r->m * r->m / 2;
}
uint64_t dives_deadline(best_run *r, uint64_t now) {
  uint64_t deadline = now < r->deadline ? now + (r->deadline - now) / DIVE_TIME_DIV : now;
  uint64_t cost = dive_cost(r);
  return r->hint || r->m < 2 || now + cost > deadline || flat_load(r) ? 0 : deadline;
}
int dives_fit(best_run *r) { return dives_deadline(r, pk_now()) != 0; }
