/* Sub-allocator front end: the kind table, argument checks, dispatch and
 * stats. The kinds live in alloc_tlsf.c (TLSF, FREELIST), alloc_buddy.c,
 * alloc_slab.c and alloc_linear.c (LINEAR, RING), below this file: they
 * never call back into it. */
#include "alloc_impl.h"
#include <string.h>

/* The one table where kind names meet their implementations, indexed by
 * fg_alloc_kind. pow2_align: the kind takes only power-of-two alignments
 * (fg_allocator_alloc_err says so before trying). */
typedef struct alloc_kind { const char *name; const fg_alloc_ops *ops; int pow2_align; } alloc_kind;
static const alloc_kind kinds[FG_ALLOC_KIND_COUNT] = {
  [FG_ALLOC_TLSF] = {"tlsf", &fg__tlsf_ops, 0},
  [FG_ALLOC_BUDDY] = {"buddy", &fg__buddy_ops, 1},
  [FG_ALLOC_SLAB] = {"slab", &fg__slab_ops, 1},
  [FG_ALLOC_LINEAR] = {"linear", &fg__linear_ops, 0},
  [FG_ALLOC_RING] = {"ring", &fg__ring_ops, 0},
  [FG_ALLOC_FREELIST] = {"freelist", &fg__freelist_ops, 0},
};

const char *fg_alloc_kind_name(fg_alloc_kind kind) {
  return (unsigned)kind < FG_ALLOC_KIND_COUNT ? kinds[kind].name : "?";
}

int fg_alloc_kind_parse(const char *name) {
  for (int i = 0; i < FG_ALLOC_KIND_COUNT; i++)
    if (name && strcmp(name, kinds[i].name) == 0) return i;
  return -1;
}

static int is_pow2(uint64_t x) { return x && !(x & (x - 1)); }

fg_allocator *fg_allocator_create(const fg_alloc_desc *desc, char *err, size_t errlen) {
  fg_alloc_hooks hooks = {0};
  if (desc->hooks) hooks = *desc->hooks;
  if ((unsigned)desc->kind >= FG_ALLOC_KIND_COUNT) {
    fg_errf(err, errlen, "unknown allocator kind %d (tlsf, buddy, slab, linear, ring, freelist)", (int)desc->kind);
    return NULL;
  }
  if (desc->capacity == 0 || desc->capacity == UINT64_MAX) {
    fg_errf(err, errlen, "%s allocator needs a capacity in 1 .. 2^64-2, got %llu",
            kinds[desc->kind].name, (unsigned long long)desc->capacity);
    return NULL;
  }
  fg_allocator *a = fg_malloc(&hooks, sizeof *a);
  if (!a) { fg_errf(err, errlen, "out of host memory"); return NULL; }
  memset(a, 0, sizeof *a);
  a->kind = desc->kind;
  a->ops = kinds[desc->kind].ops;
  a->hooks = hooks;
  a->capacity = desc->capacity;
  if (a->ops->init(a, desc, err, errlen)) { fg_allocator_destroy(a); return NULL; }
  fg_allocator_reset(a);
  return a;
}

void fg_allocator_destroy(fg_allocator *a) {
  if (!a) return;
  a->ops->fini(a);
  fg_alloc_hooks h = a->hooks;
  fg_free(&h, a);
}

fg_alloc_kind fg_allocator_kind(const fg_allocator *a) { return a->kind; }
uint64_t fg_allocator_count(const fg_allocator *a) { return a->count; }

uint64_t fg_allocator_alloc_err(fg_allocator *a, uint64_t size, uint64_t align, char *err, size_t errlen) {
  const char *k = kinds[a->kind].name;
  if (size == 0) { fg_errf(err, errlen, "%s: size must be > 0", k); return FG_ALLOC_FAIL; }
  if (align == 0) align = 1;
  if (kinds[a->kind].pow2_align && !is_pow2(align)) {
    fg_errf(err, errlen, "%s: alignment %llu is not a power of two", k, (unsigned long long)align);
    return FG_ALLOC_FAIL;
  }
  if (a->ops->refuse && a->ops->refuse(a, size, align, err, errlen)) return FG_ALLOC_FAIL;
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
  return a->ops->alloc(a, size, align);
}

int fg_allocator_free(fg_allocator *a, uint64_t off) { return a->ops->free(a, off); }

uint64_t fg_allocator_size(const fg_allocator *a, uint64_t off) { return a->ops->size(a, off); }

void fg_allocator_reset(fg_allocator *a) {
  a->used = a->count = 0;
  a->ops->reset(a);
}

void fg_allocator_stats(const fg_allocator *a, fg_alloc_stats *o) {
  memset(o, 0, sizeof *o);
  o->capacity = a->capacity;
  o->used = a->used;
  o->free = a->capacity - a->used;
  o->allocations = a->count;
  o->largest_free = a->ops->largest(a);
  o->fragmentation = o->free ? 1.0 - (double)o->largest_free / (double)o->free : 0.0;
}

int fg_allocator_validate(const fg_allocator *a, char *err, size_t errlen) {
  if (a->used > a->capacity) { fg_errf(err, errlen, "used %llu > capacity", (unsigned long long)a->used); return -1; }
  return a->ops->validate(a, err, errlen);
}
