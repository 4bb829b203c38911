/* Block allocator: several ranges of one sub-allocator kind, created through
 * a callback when no existing block fits, destroyed when more than
 * keep_empty of them are empty (the descriptor-heap article's BlockAllocator). */
#include "alloc_impl.h"
#include <string.h>

typedef struct blk {
  fg_allocator *a;        /* NULL = unused slot */
  void *user;
  uint64_t size;
  int dedicated;          /* created for one oversized request */
} blk;

struct fg_block_allocator {
  fg_block_desc d;
  fg_alloc_hooks hooks;
  blk *blocks;
  uint32_t nblocks, cap, hint, empty;
  uint64_t created, destroyed;
};

fg_block_allocator *fg_block_allocator_create(const fg_block_desc *desc, char *err, size_t errlen) {
  fg_alloc_hooks h = {0};
  if (desc->hooks) h = *desc->hooks;
  if (!desc->create_block || !desc->destroy_block) {
    fg_errf(err, errlen, "block allocator needs create_block and destroy_block callbacks");
    return NULL;
  }
  if (desc->block_size == 0) { fg_errf(err, errlen, "block allocator needs block_size > 0"); return NULL; }
  if (desc->kind == FG_ALLOC_SLAB && desc->slab_block == 0) {
    fg_errf(err, errlen, "block allocator of slabs needs slab_block (the slot size)");
    return NULL;
  }
  fg_block_allocator *b = fg_malloc(&h, sizeof *b);
  if (!b) { fg_errf(err, errlen, "out of host memory"); return NULL; }
  memset(b, 0, sizeof *b);
  b->d = *desc;
  b->hooks = h;
  return b;
}

static void destroy_blk(fg_block_allocator *b, uint32_t i) {
  blk *k = &b->blocks[i];
  b->d.destroy_block(b->d.user, k->user);
  fg_allocator_destroy(k->a);
  k->a = NULL;
  b->destroyed++;
}

void fg_block_allocator_destroy(fg_block_allocator *b) {
  if (!b) return;
  for (uint32_t i = 0; i < b->nblocks; i++)
    if (b->blocks[i].a) destroy_blk(b, i);
  fg_free(&b->hooks, b->blocks);
  fg_alloc_hooks h = b->hooks;
  fg_free(&h, b);
}

static int new_blk(fg_block_allocator *b, uint64_t size, int dedicated, uint32_t *out) {
  uint32_t i;
  for (i = 0; i < b->nblocks; i++)
    if (!b->blocks[i].a) break;
  if (i == b->nblocks) {
    if (b->nblocks == b->cap) {
      uint32_t ncap = b->cap ? b->cap * 2 : 8;
      blk *n = fg_realloc(&b->hooks, b->blocks, sizeof(blk) * ncap);
      if (!n) return -1;
      b->blocks = n;
      b->cap = ncap;
    }
    b->nblocks++;
  }
  fg_alloc_desc ad = { .kind = b->d.kind, .capacity = size, .block = b->d.slab_block, .hooks = &b->hooks,
                       .granularity = b->d.kind == FG_ALLOC_TLSF ? b->d.slab_block : 0 };
  fg_allocator *a = fg_allocator_create(&ad, NULL, 0);
  if (!a) return -1;
  void *user = NULL;
  if (b->d.create_block(b->d.user, size, &user)) { fg_allocator_destroy(a); return -1; }
  b->blocks[i] = (blk){ a, user, size, dedicated };
  b->created++;
  *out = i;
  return 0;
}

static int try_blk(fg_block_allocator *b, uint32_t i, uint64_t size, uint64_t align, uint64_t user,
                   fg_block_allocation *out) {
  blk *k = &b->blocks[i];
  if (!k->a || k->dedicated) return 0;
  int was_empty = k->a->count == 0;
  if (fg_allocator_alloc_h(k->a, size, align, user, &out->h)) return 0;
  if (was_empty) b->empty--;
  out->block_user = k->user;
  out->block = i;
  out->offset = out->h.offset;
  out->size = size;
  b->hint = i;
  return 1;
}

int fg_block_alloc(fg_block_allocator *b, uint64_t size, uint64_t align, fg_block_allocation *out) {
  return fg_block_alloc_user(b, size, align, 0, out);
}

int fg_block_alloc_user(fg_block_allocator *b, uint64_t size, uint64_t align, uint64_t user, fg_block_allocation *out) {
  if (size == 0) return -1;
  if (align == 0) align = 1;
  if (align & (align - 1)) return -1;
  uint64_t bs = b->d.block_size, need = size;
  if (b->d.kind == FG_ALLOC_TLSF && b->d.slab_block > 1) { /* granularity rounds sizes up */
    need = fg_align_up(size, b->d.slab_block);
    if (b->d.slab_block % align == 0) align = 1;
  }
  if (need < size || need + (align - 1) > bs || need + (align - 1) < need) {
    /* oversized: a block of its own; offset 0 is aligned already */
    uint64_t cap = size;
    if (b->d.kind == FG_ALLOC_TLSF && b->d.slab_block > 1) cap = fg_align_up(size, b->d.slab_block);
    if (b->d.kind == FG_ALLOC_BUDDY) {
      cap = 1;
      while (cap < size && cap) cap <<= 1;
      if (!cap) return -1;
    } else if (b->d.kind == FG_ALLOC_SLAB) {
      return -1; /* slots have one size */
    }
    uint32_t i;
    if (new_blk(b, cap, 1, &i)) return -1;
    blk *k = &b->blocks[i];
    if (fg_allocator_alloc_h(k->a, size, 1, user, &out->h)) { destroy_blk(b, i); return -1; }
    out->block_user = k->user;
    out->block = i;
    out->offset = out->h.offset;
    out->size = size;
    return 0;
  }
  if (b->hint < b->nblocks && try_blk(b, b->hint, size, align, user, out)) return 0;
  for (uint32_t i = 0; i < b->nblocks; i++)
    if (i != b->hint && try_blk(b, i, size, align, user, out)) return 0;
  uint32_t i;
  if (new_blk(b, bs, 0, &i)) return -1;
  b->empty++;
  if (try_blk(b, i, size, align, user, out)) return 0;
  if (b->empty > b->d.keep_empty) { destroy_blk(b, i); b->empty--; } /* cannot happen for fitting requests */
  return -1;
}

int fg_block_free(fg_block_allocator *b, const fg_block_allocation *al) {
  if (al->block >= b->nblocks || !b->blocks[al->block].a) return -1;
  blk *k = &b->blocks[al->block];
  if (k->user != al->block_user || al->h.offset != al->offset || fg_allocator_free_h(k->a, &al->h)) return -1;
  if (k->a->count) return 0;
  if (k->dedicated) { destroy_blk(b, al->block); return 0; }
  b->empty++;
  if (b->empty > b->d.keep_empty) { destroy_blk(b, al->block); b->empty--; }
  return 0;
}

uint64_t fg_block_reserved(const fg_block_allocator *b, const fg_block_allocation *al) {
  if (al->block >= b->nblocks || !b->blocks[al->block].a || b->blocks[al->block].user != al->block_user) return 0;
  return fg_allocator_handle_size(b->blocks[al->block].a, &al->h);
}

void fg_block_trim(fg_block_allocator *b) {
  for (uint32_t i = 0; i < b->nblocks; i++)
    if (b->blocks[i].a && !b->blocks[i].dedicated && b->blocks[i].a->count == 0) {
      destroy_blk(b, i);
      b->empty--;
    }
}

void fg_block_stats_get(const fg_block_allocator *b, fg_block_stats *o) {
  memset(o, 0, sizeof *o);
  uint64_t free = 0;
  for (uint32_t i = 0; i < b->nblocks; i++) {
    const blk *k = &b->blocks[i];
    if (!k->a) continue;
    fg_alloc_stats s;
    fg_allocator_stats(k->a, &s);
    o->blocks++;
    if (s.allocations == 0) o->empty_blocks++;
    o->block_bytes += s.capacity;
    o->used += s.used;
    free += s.free;
    o->allocations += s.allocations;
    if (s.largest_free > o->largest_free) o->largest_free = s.largest_free;
  }
  o->blocks_created = b->created;
  o->blocks_destroyed = b->destroyed;
  o->fragmentation = free ? 1.0 - (double)o->largest_free / (double)free : 0.0;
}

int fg_block_validate(const fg_block_allocator *b, char *err, size_t errlen) {
  uint32_t empty = 0;
  for (uint32_t i = 0; i < b->nblocks; i++) {
    const blk *k = &b->blocks[i];
    if (!k->a) continue;
    if (fg_allocator_validate(k->a, err, errlen)) return -1;
    if (k->a->count == 0) {
      if (k->dedicated) { fg_errf(err, errlen, "block %u: empty dedicated block not destroyed", i); return -1; }
      empty++;
    }
  }
  if (empty != b->empty || empty > b->d.keep_empty) {
    fg_errf(err, errlen, "block allocator: %u empty blocks, tracked %u, keep_empty %u", empty, b->empty, b->d.keep_empty);
    return -1;
  }
  return 0;
}

void fg_block_each(const fg_block_allocator *b, void (*fn)(void *ctx, uint32_t index, void *block_user,
                   const fg_allocator *a), void *ctx) {
  for (uint32_t i = 0; i < b->nblocks; i++)
    if (b->blocks[i].a) fn(ctx, i, b->blocks[i].user, b->blocks[i].a);
}

const fg_alloc_hooks *fg__block_hooks(const fg_block_allocator *b) { return &b->hooks; }
int fg__block_is_dedicated(const fg_block_allocator *b, uint32_t i) { return i < b->nblocks && b->blocks[i].dedicated; }
