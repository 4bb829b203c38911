/* fg_pack_cache: what a packing computes from the lifetimes alone, kept for
 * the next call on the same lifetimes (a re-plan after a resolution change
 * changes sizes only). Every call checks n, the period and each start/stop
 * against the copy here and empties the cache on any difference, so a
 * stale cache can only cost time, never change a result. */
#include "pack_cache.h"
#include "pack_mem.h"
#include <stdlib.h>
#include <string.h>

fg_pack_cache *fg_pack_cache_new(void) { return fg_pack_cache_new_hooks(NULL); }

fg_pack_cache *fg_pack_cache_new_hooks(const fg_alloc_hooks *hooks) {
  fg_pack_cache *c = fg_malloc(hooks, sizeof *c);
  if (!c) return NULL;
  memset(c, 0, sizeof *c);
  if (hooks) c->hooks = *hooks;
  return c;
}

int pk_cache_hooks_match(const fg_pack_cache *c, const fg_alloc_hooks *hooks) {
  fg_alloc_hooks h = {0};
  if (hooks) h = *hooks;
  return c->hooks.realloc_fn == h.realloc_fn && (!h.realloc_fn || c->hooks.user == h.user);
}

static void cache_clear(fg_pack_cache *c) {
  pk_mem_free(c->bits); pk_mem_free(c->clique[0]); pk_mem_free(c->clique[1]); pk_mem_free(c->size_ord); pk_mem_free(c->hint_ord);
  c->bits = NULL; c->clique[0] = c->clique[1] = NULL; c->size_ord = NULL; c->hint_ord = NULL;
  c->words = c->nclique[0] = c->nclique[1] = c->nhint = 0;
  c->have_clique[0] = c->have_clique[1] = 0;
}

void fg_pack_cache_free(fg_pack_cache *c) {
  if (!c) return;
  /* outside a call: the cache's own hooks are the scope */
  const fg_alloc_hooks *prev = pk_hooks;
  fg_alloc_hooks h = c->hooks;
  pk_hooks = &h;
  cache_clear(c);
  pk_mem_free(c->life);
  pk_mem_free(c);
  pk_hooks = prev;
}

int pk_cache_sync(fg_pack_cache *c, const fg_pack_item *items, size_t n, uint64_t period) {
  if (c->life && c->n == n && c->period == period) {
    size_t i = 0;
    while (i < n && c->life[2 * i] == items[i].start && c->life[2 * i + 1] == items[i].stop) i++;
    if (i == n) return 0;
  }
  cache_clear(c);
  if (c->n != n || !c->life) {
    pk_mem_free(c->life);
    c->life = pk_mem_alloc(sizeof(uint64_t) * 2 * (n ? n : 1));
    c->n = 0;
    if (!c->life) return -1;
  }
  c->n = n;
  c->period = period;
  for (size_t i = 0; i < n; i++) {
    c->life[2 * i] = items[i].start;
    c->life[2 * i + 1] = items[i].stop;
  }
  return 0;
}
