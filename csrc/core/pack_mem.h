/* The packers' CPU memory: every allocation of pack_*.c goes through the
 * hooks of the fg_pack call running on this thread (fg_pack_desc.hooks, set
 * by fg_pack and restored when it returns, like pk_clk); outside a call, and
 * with no hooks, malloc. A call's memory is all freed before it returns,
 * except a cache's (fg_pack_cache), which takes the hooks it was made with:
 * fg_pack refuses a cache made with other hooks than the call's. */
#ifndef FG_PACK_MEM_H
#define FG_PACK_MEM_H
#include "fg_util.h"
#include <stdint.h>
#include <string.h>

extern _Thread_local const fg_alloc_hooks *pk_hooks;

/* never 0 bytes: hooks free on size 0, and callers test NULL for OOM */
static inline void *pk_mem_alloc(size_t n) { return fg_malloc(pk_hooks, n ? n : 1); }
static inline void *pk_mem_realloc(void *p, size_t n) { return fg_realloc(pk_hooks, p, n ? n : 1); }
static inline void pk_mem_free(void *p) { fg_free(pk_hooks, p); }
static inline void *pk_mem_calloc(size_t count, size_t size) {
  if (size && count > SIZE_MAX / size) return NULL;
  size_t n = count * size;
  void *p = pk_mem_alloc(n);
  if (p) memset(p, 0, n ? n : 1);
  return p;
}

#endif
