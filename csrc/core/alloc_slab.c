/* SLAB: fixed slots of desc.block bytes, a stack of free slot indices. */
#include "alloc_impl.h"
#include <string.h>

static int is_pow2(uint64_t x) { return x && !(x & (x - 1)); }

static int slab_init(fg_allocator *a, const fg_alloc_desc *desc, char *err, size_t errlen) {
  fg_slab *s = &a->u.slab;
  uint64_t block = desc->block;
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

static void slab_fini(fg_allocator *a) {
  fg_free(&a->hooks, a->u.slab.stack);
  fg_free(&a->hooks, a->u.slab.used);
}

static void slab_reset(fg_allocator *a) {
  fg_slab *s = &a->u.slab;
  /* slot 0 on top so that allocation order is ascending */
  for (uint32_t i = 0; i < s->slots; i++) s->stack[i] = s->slots - 1 - i;
  s->top = s->slots;
  memset(s->used, 0, s->slots);
}

static uint64_t slab_alloc(fg_allocator *a, uint64_t size, uint64_t align) {
  fg_slab *s = &a->u.slab;
  if (size > s->block || !is_pow2(align) || s->block % align || s->top == 0) return FG_ALLOC_FAIL;
  uint32_t slot = s->stack[--s->top];
  s->used[slot] = 1;
  a->used += s->block;
  a->count++;
  return (uint64_t)slot * s->block;
}

static int slab_free(fg_allocator *a, uint64_t off) {
  fg_slab *s = &a->u.slab;
  if (off % s->block || off / s->block >= s->slots || !s->used[off / s->block]) return -1;
  uint32_t slot = (uint32_t)(off / s->block);
  s->used[slot] = 0;
  s->stack[s->top++] = slot;
  a->used -= s->block;
  a->count--;
  return 0;
}

static uint64_t slab_size(const fg_allocator *a, uint64_t off) {
  const fg_slab *s = &a->u.slab;
  return (off % s->block == 0 && off / s->block < s->slots && s->used[off / s->block]) ? s->block : 0;
}

static uint64_t slab_largest(const fg_allocator *a) { return a->u.slab.top ? a->u.slab.block : 0; }

static int slab_validate(const fg_allocator *a, char *err, size_t errlen) {
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

/* Requests no slot can hold, whatever is free. */
static int slab_refuse(const fg_allocator *a, uint64_t size, uint64_t align, char *err, size_t errlen) {
  if (size > a->u.slab.block) {
    fg_errf(err, errlen, "slab: size %llu exceeds the slot size %llu (opts.block)",
            (unsigned long long)size, (unsigned long long)a->u.slab.block);
    return -1;
  }
  if (a->u.slab.block % align) {
    fg_errf(err, errlen, "slab: alignment %llu does not divide the slot size %llu",
            (unsigned long long)align, (unsigned long long)a->u.slab.block);
    return -1;
  }
  return 0;
}

static void slab_walk(const fg_allocator *a, fg_alloc_walk_fn fn, void *ctx) {
  const fg_slab *s = &a->u.slab;
  for (uint32_t i = 0; i < s->slots; i++)
    if (s->used[i]) fn(ctx, (uint64_t)i * s->block, s->block, 1, 0);
}

const fg_alloc_ops fg__slab_ops = {
    .walk = slab_walk,
    .init = slab_init, .fini = slab_fini, .alloc = slab_alloc, .free = slab_free, .size = slab_size,
    .reset = slab_reset, .largest = slab_largest, .validate = slab_validate, .refuse = slab_refuse,
};
