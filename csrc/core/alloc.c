/* Sub-allocator front end: the kind table, argument checks, dispatch and
 * stats. The kinds live in alloc_tlsf.c (TLSF, FREELIST), alloc_buddy.c,
 * alloc_slab.c and alloc_linear.c (LINEAR, RING), below this file: they
 * never call back into it. */
#include "alloc_impl.h"
#include <string.h>

/* The one table where kind names meet their implementations, indexed by
 * fg_alloc_kind. Every kind takes the same alignments: powers of two. */
typedef struct alloc_kind { const char *name; const fg_alloc_ops *ops; } alloc_kind;
static const alloc_kind kinds[FG_ALLOC_KIND_COUNT] = {
  [FG_ALLOC_TLSF] = {"tlsf", &fg__tlsf_ops},
  [FG_ALLOC_BUDDY] = {"buddy", &fg__buddy_ops},
  [FG_ALLOC_SLAB] = {"slab", &fg__slab_ops},
  [FG_ALLOC_LINEAR] = {"linear", &fg__linear_ops},
  [FG_ALLOC_RING] = {"ring", &fg__ring_ops},
  [FG_ALLOC_FREELIST] = {"freelist", &fg__freelist_ops},
};

const char *fg_alloc_kind_name(fg_alloc_kind kind) {
  return (unsigned)kind < FG_ALLOC_KIND_COUNT ? kinds[kind].name : "?";
}

int fg_alloc_kind_parse(const char *name) {
  for (int i = 0; i < FG_ALLOC_KIND_COUNT; i++)
    if (name && strcmp(name, kinds[i].name) == 0) return i;
  return -1;
}

static inline int is_pow2(uint64_t x) { return x && !(x & (x - 1)); }

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
  a->max_allocations = desc->max_allocations;
  if (a->ops->init(a, desc, err, errlen)) { fg_allocator_destroy(a); return NULL; }
  fg_allocator_reset(a);
  return a;
}

void fg_allocator_destroy(fg_allocator *a) {
  if (!a) return;
  a->ops->fini(a);
  fg_omap_free(&a->users, &a->hooks);
  fg_alloc_hooks h = a->hooks;
  fg_free(&h, a);
}

fg_alloc_kind fg_allocator_kind(const fg_allocator *a) { return a->kind; }
uint64_t fg_allocator_count(const fg_allocator *a) { return a->count; }

uint64_t fg_allocator_alloc_err(fg_allocator *a, uint64_t size, uint64_t align, char *err, size_t errlen) {
  const char *k = kinds[a->kind].name;
  if (size == 0) { fg_errf(err, errlen, "%s: size must be > 0", k); return FG_ALLOC_FAIL; }
  if (align == 0) align = 1;
  if (!is_pow2(align)) {
    fg_errf(err, errlen, "%s: " FG_ALLOC_ALIGN_MSG, k, (unsigned long long)align);
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
  if (!is_pow2(align)) return FG_ALLOC_FAIL;
  return a->ops->alloc(a, size, align);
}

int fg_allocator_free(fg_allocator *a, uint64_t off) {
  if (a->ops->free(a, off)) return -1;
  if (a->users.count) fg_omap_del(&a->users, off, NULL);
  return 0;
}

/* ---- handles: native for kinds with records (alloc_tlsf.c), by offset for the others ---- */
int fg__alloc_h_other(fg_allocator *a, uint64_t size, uint64_t align, uint64_t user, fg_alloc_handle *out) {
  if (align == 0) align = 1;
  if (size == 0 || !is_pow2(align)) return -1;
  uint64_t off = a->ops->alloc(a, size, align);
  if (off == FG_ALLOC_FAIL) return -1;
  if (user) {
    if ((!a->users.cap && fg_omap_init(&a->users, &a->hooks, 16)) || fg_omap_put(&a->users, &a->hooks, off, user)) {
      a->ops->free(a, off);
      return -1;
    }
  }
  *out = (fg_alloc_handle){ off, FG_ALLOC_NO_META, 0 };
  return 0;
}

int fg__free_h_other(fg_allocator *a, const fg_alloc_handle *h) {
  if (h->meta != FG_ALLOC_NO_META) return -1;
  return fg_allocator_free(a, h->offset);
}

uint64_t fg_allocator_handle_size(const fg_allocator *a, const fg_alloc_handle *h) {
  if (a->ops->size_h) return a->ops->size_h(a, h);
  return h->meta == FG_ALLOC_NO_META ? a->ops->size(a, h->offset) : 0;
}

int fg_allocator_handle_live(const fg_allocator *a, const fg_alloc_handle *h) {
  return fg_allocator_handle_size(a, h) != 0;
}

int fg_allocator_handle_at(const fg_allocator *a, uint64_t off, fg_alloc_handle *out) {
  if (a->ops->at) return a->ops->at(a, off, out);
  if (!a->ops->size(a, off)) return 0;
  *out = (fg_alloc_handle){ off, FG_ALLOC_NO_META, 0 };
  return 1;
}

uint64_t fg_alloc_handle_id(const fg_alloc_handle *h) {
  return h->meta == FG_ALLOC_NO_META ? h->offset : (uint64_t)h->meta | (uint64_t)h->gen << 32;
}

int fg_allocator_handle_from_id(const fg_allocator *a, uint64_t id, fg_alloc_handle *out) {
  if (a->kind == FG_ALLOC_TLSF || a->kind == FG_ALLOC_FREELIST) {
    const fg_tlsf *t = &a->u.tlsf;
    uint32_t i = (uint32_t)id;
    if (i >= t->node_cap || t->nodes[i].is_free || t->nodes[i].gen != (uint32_t)(id >> 32)) return 0;
    *out = (fg_alloc_handle){ t->nodes[i].off, i, t->nodes[i].gen };
    return 1;
  }
  return fg_allocator_handle_at(a, id, out);
}

uint64_t fg_allocator_user(const fg_allocator *a, const fg_alloc_handle *h) {
  if (a->ops->user) return a->ops->user(a, h);
  uint64_t v = 0;
  if (a->users.count && fg_allocator_handle_live(a, h)) fg_omap_get(&a->users, h->offset, &v);
  return v;
}

int fg_allocator_set_user(fg_allocator *a, const fg_alloc_handle *h, uint64_t user) {
  if (a->ops->set_user) return a->ops->set_user(a, h, user);
  if (!fg_allocator_handle_live(a, h)) return -1;
  if (!user) { if (a->users.count) fg_omap_del(&a->users, h->offset, NULL); return 0; }
  if (!a->users.cap && fg_omap_init(&a->users, &a->hooks, 16)) return -1;
  return fg_omap_put(&a->users, &a->hooks, h->offset, user);
}

/* Kinds without records: user data comes from the front end's map. */
typedef struct walk_ctx { const fg_allocator *a; fg_alloc_walk_fn fn; void *ctx; } walk_ctx;
static void walk_users(void *c, uint64_t off, uint64_t size, uint64_t align, uint64_t user) {
  walk_ctx *w = c;
  if (w->a->users.count) fg_omap_get(&w->a->users, off, &user);
  w->fn(w->ctx, off, size, align, user);
}

void fg_allocator_walk(const fg_allocator *a, fg_alloc_walk_fn fn, void *ctx) {
  if (a->ops->user) { a->ops->walk(a, fn, ctx); return; }
  walk_ctx w = { a, fn, ctx };
  a->ops->walk(a, walk_users, &w);
}

uint64_t fg_allocator_size(const fg_allocator *a, uint64_t off) { return a->ops->size(a, off); }

void fg_allocator_reset(fg_allocator *a) {
  a->used = a->count = 0;
  fg_omap_clear(&a->users);
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
