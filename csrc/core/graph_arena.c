/* graph_arena: the scratch memory of a compile. A stage takes a mark,
 * allocates its working arrays, and releases to the mark when it returns
 * (the driver does both around every stage, so scratch cannot leak from one
 * stage into the next). Blocks are kept across compiles, so the scratch of a
 * recompile comes from memory the last one already took. */
#include "graph_ir.h"
#include <string.h>

struct arena_block {
  arena_block *next;
  size_t cap, used;
};

#define ARENA_ALIGN 16
#define ARENA_HEAD ((sizeof(arena_block) + ARENA_ALIGN - 1) / ARENA_ALIGN * ARENA_ALIGN)
#define ARENA_MIN ((size_t)64 << 10)

void *arena_alloc(fg_graph *g, size_t bytes) {
  bytes = (bytes + ARENA_ALIGN - 1) / ARENA_ALIGN * ARENA_ALIGN;
  if (!bytes) bytes = ARENA_ALIGN;
  arena_block *b = g->arena.cur;
  /* the current block, else the next kept one that is empty and large enough */
  while (b && b->cap - b->used < bytes) {
    arena_block *n = b->next;
    if (!n || (n->used == 0 && n->cap >= bytes)) { b = n; break; }
    b = n;
  }
  if (!b) {
    size_t cap = bytes > ARENA_MIN ? bytes : ARENA_MIN;
    if (g->arena.cur && g->arena.cur->cap * 2 > cap) cap = g->arena.cur->cap * 2;
    b = fg_malloc(&g->h, ARENA_HEAD + cap);
    if (!b) return NULL;
    b->cap = cap;
    b->used = 0;
    /* after the current block, ahead of any kept ones too small to use */
    if (g->arena.cur) { b->next = g->arena.cur->next; g->arena.cur->next = b; }
    else { b->next = g->arena.first; g->arena.first = b; }
  }
  g->arena.cur = b;
  void *p = (char *)b + ARENA_HEAD + b->used;
  b->used += bytes;
  return p;
}

arena_mark arena_checkpoint(const fg_graph *g) {
  arena_mark m = {g->arena.cur, g->arena.cur ? g->arena.cur->used : 0};
  return m;
}

void arena_release(fg_graph *g, arena_mark m) {
  /* every block after the mark's is empty again */
  for (arena_block *b = m.b ? m.b->next : g->arena.first; b; b = b->next) b->used = 0;
  if (m.b) m.b->used = m.used;
  g->arena.cur = m.b ? m.b : g->arena.first;
  if (!m.b && g->arena.first) g->arena.first->used = 0;
}

void arena_free(fg_graph *g) {
  for (arena_block *b = g->arena.first, *n; b; b = n) {
    n = b->next;
    fg_free(&g->h, b);
  }
  g->arena.first = g->arena.cur = NULL;
}
