/* The allocators' offset map (alloc_omap.h): the calls off the fast path. */
#include "alloc_omap.h"
#include <string.h>

int fg_omap_init(fg_omap *m, const fg_alloc_hooks *h, uint32_t cap) {
  uint32_t c = 16;
  while (c < cap) c <<= 1;
  m->keys = fg_malloc(h, sizeof(uint64_t) * c);
  m->vals = fg_malloc(h, sizeof(uint64_t) * c);
  if (!m->keys || !m->vals) { fg_free(h, m->keys); fg_free(h, m->vals); m->keys = m->vals = NULL; return -1; }
  memset(m->keys, 0xff, sizeof(uint64_t) * c);
  m->cap = c;
  m->count = 0;
  return 0;
}

void fg_omap_free(fg_omap *m, const fg_alloc_hooks *h) {
  fg_free(h, m->keys);
  fg_free(h, m->vals);
  m->keys = m->vals = NULL;
  m->cap = m->count = 0;
}

void fg_omap_clear(fg_omap *m) {
  if (m->keys) memset(m->keys, 0xff, sizeof(uint64_t) * m->cap);
  m->count = 0;
}

int fg_omap_grow(fg_omap *m, const fg_alloc_hooks *h) {
  fg_omap n;
  if (fg_omap_init(&n, h, m->cap * 2)) return -1;
  for (uint32_t i = 0; i < m->cap; i++) {
    if (m->keys[i] == UINT64_MAX) continue;
    uint32_t s = fg_omap_slot(&n, m->keys[i]);
    while (n.keys[s] != UINT64_MAX) s = (s + 1) & (n.cap - 1);
    n.keys[s] = m->keys[i];
    n.vals[s] = m->vals[i];
    n.count++;
  }
  fg_omap_free(m, h);
  *m = n;
  return 0;
}
