/* Sub-allocator front end (dispatch, stats) plus the small kinds: slab,
 * linear, ring. TLSF and buddy live in alloc_tlsf.c / alloc_buddy.c. */
#include "alloc_impl.h"
#include <string.h>

/* ---------------- offset map ---------------- */
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





/* ---------------- names ---------------- */
static const char *const kind_names[FG_ALLOC_KIND_COUNT] = { "tlsf", "buddy", "slab", "linear", "ring", "freelist" };

const char *fg_alloc_kind_name(fg_alloc_kind kind) {
  return (unsigned)kind < FG_ALLOC_KIND_COUNT ? kind_names[kind] : "?";
}

int fg_alloc_kind_parse(const char *name) {
  for (int i = 0; i < FG_ALLOC_KIND_COUNT; i++)
    if (name && strcmp(name, kind_names[i]) == 0) return i;
  return -1;
}

static int is_pow2(uint64_t x) { return x && !(x & (x - 1)); }

/* ---------------- slab ---------------- */
static int slab_init(fg_allocator *a, uint64_t block, char *err, size_t errlen) {
  fg_slab *s = &a->u.slab;
  if (block == 0) { fg_errf(err, errlen, "slab allocator needs opts.block (the slot size in bytes), got 0"); return -1; }
  if (block > a->capacity) {
    fg_errf(err, errlen, "slab block %llu is larger than the capacity %llu: use a smaller opts.block",
            (unsigned long long)block, (unsigned long long)a->capacity);
    return -1;
  }
  uint64_t slots = a->capacity / block;
  if (slots > (1u << 28)) {
    fg_errf(err, errlen, "slab of %llu slots is too many (at most 2^28): raise opts.block", (unsigned long long)slots);
    return -1;
  }
  s->block = block;
  s->slots = (uint32_t)slots;
  s->stack = fg_malloc(&a->hooks, sizeof(uint32_t) * s->slots);
  s->used = fg_malloc(&a->hooks, s->slots);
  if (!s->stack || !s->used) { fg_errf(err, errlen, "out of host memory"); return -1; }
  a->capacity = slots * block; /* the tail smaller than a slot is unusable */
  return 0;
}

static void slab_reset(fg_allocator *a) {
  fg_slab *s = &a->u.slab;
  /* slot 0 on top so that allocation order is ascending */
  for (uint32_t i = 0; i < s->slots; i++) s->stack[i] = s->slots - 1 - i;
  s->top = s->slots;
  memset(s->used, 0, s->slots);
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

/* ---------------- front end ---------------- */
fg_allocator *fg_allocator_create(const fg_alloc_desc *desc, char *err, size_t errlen) {
  fg_alloc_hooks hooks = {0};
  if (desc->hooks) hooks = *desc->hooks;
  if ((unsigned)desc->kind >= FG_ALLOC_KIND_COUNT) {
    fg_errf(err, errlen, "unknown allocator kind %d (tlsf, buddy, slab, linear, ring, freelist)", (int)desc->kind);
    return NULL;
  }
  if (desc->capacity == 0 || desc->capacity == UINT64_MAX) {
    fg_errf(err, errlen, "%s allocator needs a capacity in 1 .. 2^64-2, got %llu",
            kind_names[desc->kind], (unsigned long long)desc->capacity);
    return NULL;
  }
  fg_allocator *a = fg_malloc(&hooks, sizeof *a);
  if (!a) { fg_errf(err, errlen, "out of host memory"); return NULL; }
  memset(a, 0, sizeof *a);
  a->kind = desc->kind;
  a->hooks = hooks;
  a->capacity = desc->capacity;
  int rc = 0;
  switch (a->kind) {
  case FG_ALLOC_TLSF:
  case FG_ALLOC_FREELIST:
    rc = fg__tlsf_init(a, desc->granularity, err, errlen);
    a->u.tlsf.single = a->kind == FG_ALLOC_FREELIST;
    break;
  case FG_ALLOC_BUDDY: rc = fg__buddy_init(a, desc->block, err, errlen); break;
  case FG_ALLOC_SLAB: rc = slab_init(a, desc->block, err, errlen); break;
  case FG_ALLOC_LINEAR:
  case FG_ALLOC_RING:
    rc = fg_omap_init(&a->u.lin.live, &a->hooks, 64);
    if (rc) fg_errf(err, errlen, "out of host memory");
    break;
  default: break;
  }
  if (rc) { fg_allocator_destroy(a); return NULL; }
  fg_allocator_reset(a);
  return a;
}

void fg_allocator_destroy(fg_allocator *a) {
  if (!a) return;
  switch (a->kind) {
  case FG_ALLOC_TLSF: case FG_ALLOC_FREELIST: fg__tlsf_fini(a); break;
  case FG_ALLOC_BUDDY: fg__buddy_fini(a); break;
  case FG_ALLOC_SLAB: fg_free(&a->hooks, a->u.slab.stack); fg_free(&a->hooks, a->u.slab.used); break;
  default: fg_omap_free(&a->u.lin.live, &a->hooks); fg_free(&a->hooks, a->u.lin.recs); break;
  }
  fg_alloc_hooks h = a->hooks;
  fg_free(&h, a);
}

fg_alloc_kind fg_allocator_kind(const fg_allocator *a) { return a->kind; }
uint64_t fg_allocator_count(const fg_allocator *a) { return a->count; }

uint64_t fg_allocator_alloc_err(fg_allocator *a, uint64_t size, uint64_t align, char *err, size_t errlen) {
  const char *k = kind_names[a->kind];
  if (size == 0) { fg_errf(err, errlen, "%s: size must be > 0", k); return FG_ALLOC_FAIL; }
  if (align == 0) align = 1;
  int needs_pow2 = a->kind == FG_ALLOC_BUDDY || a->kind == FG_ALLOC_SLAB;
  if (needs_pow2 && !is_pow2(align)) {
    fg_errf(err, errlen, "%s: alignment %llu is not a power of two", k, (unsigned long long)align);
    return FG_ALLOC_FAIL;
  }
  if (a->kind == FG_ALLOC_SLAB) {
    if (size > a->u.slab.block) {
      fg_errf(err, errlen, "slab: size %llu exceeds the slot size %llu (opts.block)",
              (unsigned long long)size, (unsigned long long)a->u.slab.block);
      return FG_ALLOC_FAIL;
    }
    if (a->u.slab.block % align) {
      fg_errf(err, errlen, "slab: alignment %llu does not divide the slot size %llu",
              (unsigned long long)align, (unsigned long long)a->u.slab.block);
      return FG_ALLOC_FAIL;
    }
  }
  uint64_t off = fg_allocator_alloc(a, size, align);
  if (off == FG_ALLOC_FAIL)
    fg_errf(err, errlen, "%s: out of space for %llu bytes (align %llu): %llu of %llu used",
            k, (unsigned long long)size, (unsigned long long)align,
            (unsigned long long)a->used, (unsigned long long)a->capacity);
  return off;
}

uint64_t fg_allocator_alloc(fg_allocator *a, uint64_t size, uint64_t align) {
  if (size == 0) return FG_ALLOC_FAIL;
  if (align == 0) align = 1;
  switch (a->kind) {
  case FG_ALLOC_TLSF: case FG_ALLOC_FREELIST: return fg__tlsf_alloc(a, size, align);
  case FG_ALLOC_BUDDY: return fg__buddy_alloc(a, size, align);
  case FG_ALLOC_SLAB: {
    fg_slab *s = &a->u.slab;
    if (size > s->block || !is_pow2(align) || s->block % align || s->top == 0) return FG_ALLOC_FAIL;
    uint32_t slot = s->stack[--s->top];
    s->used[slot] = 1;
    a->used += s->block;
    a->count++;
    return (uint64_t)slot * s->block;
  }
  case FG_ALLOC_LINEAR: {
    fg_linear *l = &a->u.lin;
    uint64_t off = fg_align_up(l->top, align);
    if (off < l->top || off > a->capacity || size > a->capacity - off) return FG_ALLOC_FAIL;
    if (fg_omap_put(&l->live, &a->hooks, off, size)) return FG_ALLOC_FAIL;
    l->top = off + size;
    a->used = l->top;
    a->count++;
    return off;
  }
  case FG_ALLOC_RING: {
    uint64_t off = ring_alloc(a, size, align);
    if (off != FG_ALLOC_FAIL) { a->count++; a->used = ring_used(a); }
    return off;
  }
  default: return FG_ALLOC_FAIL;
  }
}

int fg_allocator_free(fg_allocator *a, uint64_t off) {
  switch (a->kind) {
  case FG_ALLOC_TLSF: case FG_ALLOC_FREELIST: return fg__tlsf_free(a, off);
  case FG_ALLOC_BUDDY: return fg__buddy_free(a, off);
  case FG_ALLOC_SLAB: {
    fg_slab *s = &a->u.slab;
    if (off % s->block || off / s->block >= s->slots || !s->used[off / s->block]) return -1;
    uint32_t slot = (uint32_t)(off / s->block);
    s->used[slot] = 0;
    s->stack[s->top++] = slot;
    a->used -= s->block;
    a->count--;
    return 0;
  }
  case FG_ALLOC_LINEAR: {
    fg_linear *l = &a->u.lin;
    uint64_t size;
    if (!fg_omap_del(&l->live, off, &size)) return -1;
    if (off + size == l->top) l->top = off;  /* newest: roll back */
    a->count--;
    if (a->count == 0) l->top = 0;
    a->used = l->top;
    return 0;
  }
  case FG_ALLOC_RING:
    if (ring_free(a, off)) return -1;
    a->count--;
    a->used = ring_used(a);
    return 0;
  default: return -1;
  }
}

uint64_t fg_allocator_size(const fg_allocator *a, uint64_t off) {
  uint64_t v;
  switch (a->kind) {
  case FG_ALLOC_TLSF: case FG_ALLOC_FREELIST: return fg__tlsf_size(a, off);
  case FG_ALLOC_BUDDY: return fg__buddy_size(a, off);
  case FG_ALLOC_SLAB: {
    const fg_slab *s = &a->u.slab;
    return (off % s->block == 0 && off / s->block < s->slots && s->used[off / s->block]) ? s->block : 0;
  }
  case FG_ALLOC_LINEAR: return fg_omap_get(&a->u.lin.live, off, &v) ? v : 0;
  case FG_ALLOC_RING: {
    const fg_linear *l = &a->u.lin;
    if (!fg_omap_get(&l->live, off, &v)) return 0;
    return l->recs[(l->rec_first + (v - l->seq_first)) % l->rec_cap].size;
  }
  default: return 0;
  }
}

void fg_allocator_reset(fg_allocator *a) {
  a->used = a->count = 0;
  switch (a->kind) {
  case FG_ALLOC_TLSF: case FG_ALLOC_FREELIST: fg__tlsf_reset(a); break;
  case FG_ALLOC_BUDDY: fg__buddy_reset(a); break;
  case FG_ALLOC_SLAB: slab_reset(a); break;
  default:
    a->u.lin.top = a->u.lin.tail = 0;
    a->u.lin.rec_count = a->u.lin.rec_first = 0;
    fg_omap_clear(&a->u.lin.live);
    break;
  }
}

void fg_allocator_stats(const fg_allocator *a, fg_alloc_stats *o) {
  memset(o, 0, sizeof *o);
  o->capacity = a->capacity;
  o->used = a->used;
  o->free = a->capacity - a->used;
  o->allocations = a->count;
  switch (a->kind) {
  case FG_ALLOC_TLSF: case FG_ALLOC_FREELIST: o->largest_free = fg__tlsf_largest(a); break;
  case FG_ALLOC_BUDDY: o->largest_free = fg__buddy_largest(a); break;
  case FG_ALLOC_SLAB: o->largest_free = a->u.slab.top ? a->u.slab.block : 0; break;
  case FG_ALLOC_LINEAR: o->largest_free = a->capacity - a->u.lin.top; break;
  case FG_ALLOC_RING: o->largest_free = ring_largest(a); break;
  default: break;
  }
  o->fragmentation = o->free ? 1.0 - (double)o->largest_free / (double)o->free : 0.0;
}

int fg_allocator_validate(const fg_allocator *a, char *err, size_t errlen) {
  if (a->used > a->capacity) { fg_errf(err, errlen, "used %llu > capacity", (unsigned long long)a->used); return -1; }
  switch (a->kind) {
  case FG_ALLOC_TLSF: case FG_ALLOC_FREELIST: return fg__tlsf_validate(a, err, errlen);
  case FG_ALLOC_BUDDY: return fg__buddy_validate(a, err, errlen);
  case FG_ALLOC_SLAB: {
    const fg_slab *s = &a->u.slab;
    uint32_t nused = 0;
    for (uint32_t i = 0; i < s->slots; i++) nused += s->used[i];
    if (nused + s->top != s->slots || nused != a->count || a->used != (uint64_t)nused * s->block) {
      fg_errf(err, errlen, "slab counts disagree: %u used + %u free != %u slots", nused, s->top, s->slots);
      return -1;
    }
    for (uint32_t i = 0; i < s->top; i++)
      if (s->stack[i] >= s->slots || s->used[s->stack[i]]) {
        fg_errf(err, errlen, "slab free stack holds a used or bad slot %u", s->stack[i]);
        return -1;
      }
    return 0;
  }
  case FG_ALLOC_LINEAR: {
    const fg_linear *l = &a->u.lin;
    if (l->live.count != a->count) { fg_errf(err, errlen, "linear count mismatch"); return -1; }
    for (uint32_t i = 0; i < l->live.cap; i++)
      if (l->live.keys[i] != UINT64_MAX && l->live.keys[i] + l->live.vals[i] > l->top) {
        fg_errf(err, errlen, "linear allocation at %llu ends above top", (unsigned long long)l->live.keys[i]);
        return -1;
      }
    return 0;
  }
  case FG_ALLOC_RING: {
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
  default: return -1;
  }
}
