/* Defragmentation planning (fg_alloc.h): the moves that compact a block
 * allocator or one allocator, planned on a model of the blocks without
 * touching them. See fg_block_defrag_plan for the order that makes the plan
 * safe to apply one move at a time. */
#include "alloc_impl.h"
#include "alloc_stats.h"
#include <stdlib.h> /* qsort */
#include <string.h>

typedef struct mblock {
  uint32_t index;
  uint64_t cap, used;
  fg__ranges r;       /* live allocations, by offset; off is updated as they move */
  uint8_t *gone;      /* moved to another block */
} mblock;

typedef struct plan { fg_defrag_move *v; size_t n, cap; int oom; const fg_alloc_hooks *hooks; } plan;

static void add(plan *p, fg_defrag_move m) {
  if (p->oom) return;
  if (fg_grow(p->hooks, (void **)&p->v, &p->cap, p->n + 1, 64, sizeof *p->v)) { p->oom = 1; return; }
  p->v[p->n++] = m;
}

static int pinned(const fg__range *x) { return x->user == FG_ALLOC_PINNED; }

/* Lowest offset >= from, aligned, where [d, d + size) misses every pinned
 * allocation of b; UINT64_MAX when it does not fit below the capacity. */
static uint64_t place(const mblock *b, uint64_t from, uint64_t size, uint64_t align) {
  uint64_t d = (from + align - 1) & ~(align - 1);
  for (size_t i = 0; i < b->r.n; i++) {
    const fg__range *q = &b->r.v[i];
    if (!pinned(q) || q->off + q->size <= d) continue;
    if (q->off >= d + size) break; /* pins are sorted: the rest lie above */
    d = (q->off + q->size + align - 1) & ~(align - 1);
  }
  return d <= b->cap && size <= b->cap - d ? d : UINT64_MAX;
}

static int fuller(const void *x, const void *y) {
  const mblock *a = x, *b = y;
  if (a->used != b->used) return a->used > b->used ? -1 : 1;
  return a->index < b->index ? -1 : a->index > b->index;
}

/* blocks [0, n): compacts each in turn (fullest first), then fills its tail
 * from the emptiest blocks. */
static int plan_blocks(mblock *m, size_t n, const fg_alloc_hooks *hooks, fg_defrag_move **moves, size_t *count) {
  plan p = {0};
  p.hooks = hooks;
  qsort(m, n, sizeof *m, fuller);
  for (size_t bi = 0; bi < n && !p.oom; bi++) {
    mblock *b = &m[bi];
    uint64_t bump = 0;
    for (size_t i = 0; i < b->r.n; i++) {
      fg__range *x = &b->r.v[i];
      if (pinned(x) || b->gone[i]) continue;
      uint64_t d = place(b, bump, x->size, x->align);
      if (d == UINT64_MAX || d > x->off) d = x->off; /* cannot happen: its own place is free */
      if (d != x->off) add(&p, (fg_defrag_move){ b->index, b->index, x->off, d, x->size, x->user });
      x->off = d;
      bump = d + x->size;
    }
    /* moved allocations are not re-sorted: the ones below stay in order */
    for (size_t ci = n; ci-- > bi + 1 && !p.oom;) {
      mblock *c = &m[ci];
      for (size_t i = 0; i < c->r.n; i++) {
        fg__range *x = &c->r.v[i];
        if (pinned(x) || c->gone[i]) continue;
        uint64_t d = place(b, bump, x->size, x->align);
        if (d == UINT64_MAX) continue;
        add(&p, (fg_defrag_move){ c->index, b->index, x->off, d, x->size, x->user });
        c->gone[i] = 1;
        c->used -= x->size;
        bump = d + x->size;
      }
    }
  }
  if (p.oom) { fg_free(hooks, p.v); return -1; }
  *moves = p.v;
  *count = p.n;
  return 0;
}

static void free_model(const fg_alloc_hooks *h, mblock *m, size_t n) {
  for (size_t i = 0; i < n; i++) { fg_free(m[i].r.hooks, m[i].r.v); fg_free(h, m[i].gone); }
  fg_free(h, m);
}

static int model_of(const fg_alloc_hooks *h, mblock *b, uint32_t index, const fg_allocator *a) {
  memset(b, 0, sizeof *b);
  b->index = index;
  b->cap = a->capacity;
  b->used = a->used;
  if (fg__ranges_of(a, &b->r)) return -1;
  b->gone = fg_malloc(h, b->r.n + 1);
  if (!b->gone) return -1;
  memset(b->gone, 0, b->r.n + 1);
  return 0;
}

int fg_allocator_defrag_plan(const fg_allocator *a, fg_defrag_move **moves, size_t *count) {
  *moves = NULL;
  *count = 0;
  mblock *m = fg_malloc(&a->hooks, sizeof *m);
  if (!m) return -1;
  int rc = model_of(&a->hooks, m, 0, a) ? -1 : plan_blocks(m, 1, &a->hooks, moves, count);
  free_model(&a->hooks, m, 1);
  return rc;
}

typedef struct gather { mblock *m; size_t n, cap; int oom; const fg_block_allocator *b; const fg_alloc_hooks *h; } gather;
int fg__block_is_dedicated(const fg_block_allocator *b, uint32_t i);
static void gather_one(void *c, uint32_t index, void *block_user, const fg_allocator *a) {
  gather *g = c;
  if (g->oom || fg__block_is_dedicated(g->b, index)) return;
  if (fg_grow(g->h, (void **)&g->m, &g->cap, g->n + 1, 8, sizeof *g->m)) { g->oom = 1; return; }
  if (model_of(g->h, &g->m[g->n], index, a)) g->oom = 1;
  g->n++;
}

int fg_block_defrag_plan(const fg_block_allocator *b, fg_defrag_move **moves, size_t *count) {
  *moves = NULL;
  *count = 0;
  gather g = { NULL, 0, 0, 0, b, fg__block_hooks(b) };
  fg_block_each(b, gather_one, &g);
  int rc = g.oom ? -1 : plan_blocks(g.m, g.n, g.h, moves, count);
  free_model(g.h, g.m, g.n);
  return rc;
}
