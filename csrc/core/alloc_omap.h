/* Internal to the allocators: the offset -> value map (alloc_omap.c) that
 * lets free(offset) find its bookkeeping. The lowest layer of alloc*.c: it
 * knows no allocator. */
#ifndef FG_ALLOC_OMAP_H
#define FG_ALLOC_OMAP_H
#include "fg_util.h"

/* An offset -> value hash map (open addressing, linear probing, backward-shift
 * deletion): lets free(offset) find its bookkeeping without headers in the range. */
typedef struct fg_omap {
  uint64_t *keys, *vals;   /* key UINT64_MAX = empty */
  uint32_t cap, count;     /* cap is a power of two */
} fg_omap;

int fg_omap_init(fg_omap *m, const fg_alloc_hooks *h, uint32_t cap);
void fg_omap_free(fg_omap *m, const fg_alloc_hooks *h);
int fg_omap_grow(fg_omap *m, const fg_alloc_hooks *h);
void fg_omap_clear(fg_omap *m);

/* The lookups are inline: they sit on every alloc/free. */
static inline uint32_t fg_omap_slot(const fg_omap *m, uint64_t key) {
  return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (m->cap - 1);
}

static inline int fg_omap_put(fg_omap *m, const fg_alloc_hooks *h, uint64_t key, uint64_t val) {
  if ((m->count + 1) * 4 > m->cap * 3 && fg_omap_grow(m, h)) return -1; /* load <= 3/4 */
  uint32_t s = fg_omap_slot(m, key);
  while (m->keys[s] != UINT64_MAX) {
    if (m->keys[s] == key) { m->vals[s] = val; return 0; }
    s = (s + 1) & (m->cap - 1);
  }
  m->keys[s] = key;
  m->vals[s] = val;
  m->count++;
  return 0;
}

/* Returns 1 and *val when found. */
static inline int fg_omap_get(const fg_omap *m, uint64_t key, uint64_t *val) {
  if (!m->cap || key == UINT64_MAX) return 0; /* the empty marker is never a key */
  uint32_t s = fg_omap_slot(m, key);
  while (m->keys[s] != UINT64_MAX) {
    if (m->keys[s] == key) { if (val) *val = m->vals[s]; return 1; }
    s = (s + 1) & (m->cap - 1);
  }
  return 0;
}

/* Existing key only; 1 when found. */
static inline int fg_omap_set(fg_omap *m, uint64_t key, uint64_t val) {
  if (!m->cap || key == UINT64_MAX) return 0;
  uint32_t s = fg_omap_slot(m, key);
  while (m->keys[s] != UINT64_MAX) {
    if (m->keys[s] == key) { m->vals[s] = val; return 1; }
    s = (s + 1) & (m->cap - 1);
  }
  return 0;
}

static inline int fg_omap_del(fg_omap *m, uint64_t key, uint64_t *val) {
  /* UINT64_MAX (FG_ALLOC_FAIL) would match an empty slot and delete garbage */
  if (!m->cap || key == UINT64_MAX) return 0;
  uint32_t mask = m->cap - 1, s = fg_omap_slot(m, key);
  while (m->keys[s] != key) {
    if (m->keys[s] == UINT64_MAX) return 0;
    s = (s + 1) & mask;
  }
  if (val) *val = m->vals[s];
  /* backward shift: pull later members of the probe run into the hole */
  uint32_t hole = s, j = s;
  for (;;) {
    j = (j + 1) & mask;
    if (m->keys[j] == UINT64_MAX) break;
    uint32_t home = fg_omap_slot(m, m->keys[j]);
    /* j stays unless its home lies cyclically in (hole, j] */
    int stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
    if (!stays) {
      m->keys[hole] = m->keys[j];
      m->vals[hole] = m->vals[j];
      hole = j;
    }
  }
  m->keys[hole] = UINT64_MAX;
  m->count--;
  return 1;
}

#endif
