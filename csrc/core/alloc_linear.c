/* LINEAR (bump pointer, the newest allocation rolls back) and RING (FIFO
 * reservations that wrap around): both keep live offsets in an offset map. */
#include "alloc_impl.h"
#include <string.h>

/* ---------------- shared ---------------- */
static int lin_init(fg_allocator *a, const fg_alloc_desc *desc, char *err, size_t errlen) {
  int rc = fg_omap_init(&a->u.lin.live, &a->hooks, 64);
  if (rc) fg_errf(err, errlen, "out of host memory");
  return rc;
}

static void lin_fini(fg_allocator *a) {
  fg_omap_free(&a->u.lin.live, &a->hooks);
  fg_free(&a->hooks, a->u.lin.recs);
}

static void lin_reset(fg_allocator *a) {
  a->u.lin.top = a->u.lin.tail = 0;
  a->u.lin.rec_count = a->u.lin.rec_first = 0;
  fg_omap_clear(&a->u.lin.live);
}

/* ---------------- linear ---------------- */
static uint64_t linear_alloc(fg_allocator *a, uint64_t size, uint64_t align) {
  fg_linear *l = &a->u.lin;
  uint64_t off = fg_align_up(l->top, align);
  if (off < l->top || off > a->capacity || size > a->capacity - off) return FG_ALLOC_FAIL;
  if (fg_omap_put(&l->live, &a->hooks, off, size)) return FG_ALLOC_FAIL;
  l->top = off + size;
  a->used = l->top;
  a->count++;
  return off;
}

static int linear_free(fg_allocator *a, uint64_t off) {
  fg_linear *l = &a->u.lin;
  uint64_t size;
  if (!fg_omap_del(&l->live, off, &size)) return -1;
  if (off + size == l->top) l->top = off;  /* newest: roll back */
  a->count--;
  if (a->count == 0) l->top = 0;
  a->used = l->top;
  return 0;
}

static uint64_t linear_size(const fg_allocator *a, uint64_t off) {
  uint64_t v;
  return fg_omap_get(&a->u.lin.live, off, &v) ? v : 0;
}

static uint64_t linear_largest(const fg_allocator *a) { return a->capacity - a->u.lin.top; }

static int linear_validate(const fg_allocator *a, char *err, size_t errlen) {
  const fg_linear *l = &a->u.lin;
  if (l->live.count != a->count) { fg_errf(err, errlen, "linear count mismatch"); return -1; }
  for (uint32_t i = 0; i < l->live.cap; i++)
    if (l->live.keys[i] != UINT64_MAX && l->live.keys[i] + l->live.vals[i] > l->top) {
      fg_errf(err, errlen, "linear allocation at %llu ends above top", (unsigned long long)l->live.keys[i]);
      return -1;
    }
  return 0;
}

/* ---------------- ring ---------------- */
static int ring_push(fg_allocator *a, fg_ring_rec r) {
  fg_linear *l = &a->u.lin;
  if (l->rec_count == l->rec_cap) {
    uint32_t ncap = l->rec_cap ? l->rec_cap * 2 : 64;
    fg_ring_rec *n = fg_malloc(&a->hooks, sizeof(fg_ring_rec) * ncap);
    if (!n) return -1;
    for (uint32_t i = 0; i < l->rec_count; i++) n[i] = l->recs[(l->rec_first + i) % l->rec_cap];
    fg_free(&a->hooks, l->recs);
    l->recs = n;
    l->rec_cap = ncap;
    l->rec_first = 0;
  }
  l->recs[(l->rec_first + l->rec_count) % l->rec_cap] = r;
  l->rec_count++;
  return 0;
}

static uint64_t ring_alloc(fg_allocator *a, uint64_t size, uint64_t align) {
  fg_linear *l = &a->u.lin;
  uint64_t cap = a->capacity, head = l->top, off;
  if (l->rec_count == 0) head = l->tail = 0;
  if (l->rec_count == 0 || head > l->tail) {
    off = fg_align_up(head, align);
    if (off > cap || size > cap - off) {       /* wrap: the end of the range is wasted */
      if (size > l->tail || l->rec_count == 0) {
        if (l->rec_count) return FG_ALLOC_FAIL;
        if (size > cap) return FG_ALLOC_FAIL;
      }
      off = 0;
    }
  } else {                                     /* head <= tail: one gap [head, tail) */
    if (head == l->tail) return FG_ALLOC_FAIL; /* full */
    off = fg_align_up(head, align);
    if (off > l->tail || size > l->tail - off) return FG_ALLOC_FAIL;
  }
  uint64_t seq = l->seq_first + l->rec_count;
  fg_ring_rec r = { head, off, size, 0 };
  if (ring_push(a, r) || fg_omap_put(&l->live, &a->hooks, off, seq)) return FG_ALLOC_FAIL;
  l->top = off + size;
  if (l->top == cap) l->top = 0;
  if (l->rec_count == 1) l->tail = head;
  return off;
}

static uint64_t ring_used(const fg_allocator *a) {
  const fg_linear *l = &a->u.lin;
  if (l->rec_count == 0) return 0;
  if (l->top > l->tail) return l->top - l->tail;
  return a->capacity - l->tail + l->top; /* wrapped, or full when top == tail */
}

static int ring_free(fg_allocator *a, uint64_t off) {
  fg_linear *l = &a->u.lin;
  uint64_t seq;
  if (!fg_omap_del(&l->live, off, &seq)) return -1;
  fg_ring_rec *r = &l->recs[(l->rec_first + (seq - l->seq_first)) % l->rec_cap];
  r->freed = 1;
  while (l->rec_count && l->recs[l->rec_first].freed) {
    l->rec_first = (l->rec_first + 1) % l->rec_cap;
    l->rec_count--;
    l->seq_first++;
  }
  if (l->rec_count) l->tail = l->recs[l->rec_first].rstart;
  else l->top = l->tail = 0;
  return 0;
}

static uint64_t ring_largest(const fg_allocator *a) {
  const fg_linear *l = &a->u.lin;
  if (l->rec_count == 0) return a->capacity;
  if (l->top > l->tail) {
    uint64_t end = a->capacity - l->top;
    return end > l->tail ? end : l->tail;
  }
  return l->tail - l->top; /* 0 when full */
}

static uint64_t ring_alloc_counted(fg_allocator *a, uint64_t size, uint64_t align) {
  uint64_t off = ring_alloc(a, size, align);
  if (off != FG_ALLOC_FAIL) { a->count++; a->used = ring_used(a); }
  return off;
}

static int ring_free_counted(fg_allocator *a, uint64_t off) {
  if (ring_free(a, off)) return -1;
  a->count--;
  a->used = ring_used(a);
  return 0;
}

static uint64_t ring_size(const fg_allocator *a, uint64_t off) {
  const fg_linear *l = &a->u.lin;
  uint64_t v;
  if (!fg_omap_get(&l->live, off, &v)) return 0;
  return l->recs[(l->rec_first + (v - l->seq_first)) % l->rec_cap].size;
}

static int ring_validate(const fg_allocator *a, char *err, size_t errlen) {
  const fg_linear *l = &a->u.lin;
  uint32_t live = 0;
  for (uint32_t i = 0; i < l->rec_count; i++) {
    const fg_ring_rec *r = &l->recs[(l->rec_first + i) % l->rec_cap];
    if (r->off + r->size > a->capacity) { fg_errf(err, errlen, "ring record past the end"); return -1; }
    if (!r->freed) live++;
  }
  if (live != a->count || l->live.count != a->count) { fg_errf(err, errlen, "ring count mismatch"); return -1; }
  if (l->rec_count && l->recs[l->rec_first].freed) { fg_errf(err, errlen, "ring oldest record is freed"); return -1; }
  return 0;
}

static void linear_walk(const fg_allocator *a, fg_alloc_walk_fn fn, void *ctx) {
  const fg_omap *m = &a->u.lin.live;
  for (uint32_t i = 0; i < m->cap; i++)
    if (m->keys[i] != UINT64_MAX) fn(ctx, m->keys[i], m->vals[i], 1, 0);
}

static void ring_walk(const fg_allocator *a, fg_alloc_walk_fn fn, void *ctx) {
  const fg_linear *l = &a->u.lin;
  for (uint32_t i = 0; i < l->rec_count; i++) {
    const fg_ring_rec *r = &l->recs[(l->rec_first + i) % l->rec_cap];
    if (!r->freed) fn(ctx, r->off, r->size, 1, 0);
  }
}

const fg_alloc_ops fg__linear_ops = {
    .walk = linear_walk,
    .init = lin_init, .fini = lin_fini, .alloc = linear_alloc, .free = linear_free, .size = linear_size,
    .reset = lin_reset, .largest = linear_largest, .validate = linear_validate,
};
const fg_alloc_ops fg__ring_ops = {
    .walk = ring_walk,
    .init = lin_init, .fini = lin_fini, .alloc = ring_alloc_counted, .free = ring_free_counted,
    .size = ring_size, .reset = lin_reset, .largest = ring_largest, .validate = ring_validate,
};
