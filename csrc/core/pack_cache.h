/* Private to the packers: what fg_pack_cache keeps between calls
 * (pack_cache.c); the layers that fill it read and write it directly. */
#ifndef FG_PACK_CACHE_H
#define FG_PACK_CACHE_H
#include "fg_pack.h"

/* The lifetime-only data fg_pack_cache keeps. */
struct fg_pack_cache {
  size_t n;
  uint64_t period;
  uint64_t *life;         /* start, stop of each item at the last call */
  uint64_t *bits;         /* conflict matrix (pk_inst.cbits), words per row; NULL until built */
  size_t words;
  uint32_t *clique[2];    /* pk_clique_greedy's two cliques (n slots each): the one grown */
  size_t nclique[2];      /* from the longest arcs, and the one grown from the items */
  int have_clique[2];     /* live at point peak */
  uint32_t peak;
  uint32_t *size_ord;     /* the items by size at the last call: the next sort starts there */
  uint32_t *hint_ord;     /* best's last hint order of its nhint non-whole items, likewise */
  size_t nhint;
  fg_alloc_hooks hooks;   /* all of the above's memory (fg_pack_cache_new_hooks) */
};
/* Keeps c's contents when n, period and every start/stop match its last
 * call, else empties it and records these; 0, or -1 on OOM. */
int pk_cache_sync(fg_pack_cache *c, const fg_pack_item *items, size_t n, uint64_t period);
/* 1 when c was made with these hooks (NULL and zero are malloc alike). */
int pk_cache_hooks_match(const fg_pack_cache *c, const fg_alloc_hooks *hooks);

#endif
