/* Binary buddy (Knuth): blocks of min << k bytes at offsets that are
 * multiples of their size. Per-order free lists threaded through per-leaf
 * arrays, plus a bitmap of non-empty orders, so alloc is one bit scan and up
 * to log2(capacity/min) splits; free merges with the buddy while it is free.
 * A capacity that is not a power of two is covered by several top blocks. */
#include "alloc_impl.h"
#include <string.h>

#define TAG_FREE 0x40
#define TAG_USED 0x80
#define MAX_LEAVES (1u << 24)

static inline int log2_ceil(uint64_t x) { return x <= 1 ? 0 : 64 - __builtin_clzll(x - 1); }

static void push(fg_buddy *b, uint32_t leaf, uint32_t k) {
  uint32_t h = b->heads[k];
  b->tag[leaf] = (uint8_t)(TAG_FREE | k);
  b->fprev[leaf] = FG_NIL;
  b->fnext[leaf] = h;
  if (h != FG_NIL) b->fprev[h] = leaf;
  b->heads[k] = leaf;
  b->map |= 1ull << k;
}

static void unlink_free(fg_buddy *b, uint32_t leaf, uint32_t k) {
  if (b->fprev[leaf] != FG_NIL) b->fnext[b->fprev[leaf]] = b->fnext[leaf];
  else b->heads[k] = b->fnext[leaf];
  if (b->fnext[leaf] != FG_NIL) b->fprev[b->fnext[leaf]] = b->fprev[leaf];
  if (b->heads[k] == FG_NIL) b->map &= ~(1ull << k);
  b->tag[leaf] = 0;
}

static int buddy_init(fg_allocator *a, const fg_alloc_desc *desc, char *err, size_t errlen) {
  uint64_t block = desc->block;
  fg_buddy *b = &a->u.buddy;
  if (block == 0) {
    block = a->capacity >> 20;
    if (block == 0) block = 1;
  }
  int lg = log2_ceil(block);
  if (lg > 62) { fg_errf(err, errlen, "buddy: opts.block %llu is too large", (unsigned long long)block); return -1; }
  b->min = 1ull << lg;
  b->min_log2 = (uint32_t)lg;
  if (b->min > a->capacity) {
    fg_errf(err, errlen, "buddy: smallest block %llu is larger than the capacity %llu: lower opts.block",
            (unsigned long long)b->min, (unsigned long long)a->capacity);
    return -1;
  }
  uint64_t leaves = a->capacity >> lg;
  if (leaves > MAX_LEAVES) {
    fg_errf(err, errlen, "buddy: capacity / block = %llu leaves is too many (at most 2^24): raise opts.block to at least %llu",
            (unsigned long long)leaves, (unsigned long long)((a->capacity + MAX_LEAVES - 1) / MAX_LEAVES));
    return -1;
  }
  b->leaves = (uint32_t)leaves;
  b->max_order = (uint32_t)(63 - __builtin_clzll(leaves));
  a->capacity = leaves << lg; /* a tail smaller than one block is unusable */
  b->tag = fg_malloc(&a->hooks, b->leaves);
  b->fnext = fg_malloc(&a->hooks, sizeof(uint32_t) * b->leaves);
  b->fprev = fg_malloc(&a->hooks, sizeof(uint32_t) * b->leaves);
  if (!b->tag || !b->fnext || !b->fprev) { fg_errf(err, errlen, "out of host memory"); return -1; }
  return 0;
}

static void buddy_fini(fg_allocator *a) {
  fg_free(&a->hooks, a->u.buddy.tag);
  fg_free(&a->hooks, a->u.buddy.fnext);
  fg_free(&a->hooks, a->u.buddy.fprev);
}

static void buddy_reset(fg_allocator *a) {
  fg_buddy *b = &a->u.buddy;
  memset(b->tag, 0, b->leaves);
  memset(b->heads, 0xff, sizeof b->heads);
  b->map = 0;
  /* greedy cover: the largest aligned power-of-two block that still fits */
  uint32_t leaf = 0;
  while (leaf < b->leaves) {
    uint32_t k = leaf ? (uint32_t)__builtin_ctz(leaf) : b->max_order;
    while (k > 0 && (uint64_t)leaf + (1u << k) > b->leaves) k--;
    if (k > b->max_order) k = b->max_order;
    push(b, leaf, k);
    leaf += 1u << k;
  }
}

static uint64_t buddy_alloc(fg_allocator *a, uint64_t size, uint64_t align) {
  fg_buddy *b = &a->u.buddy;
  uint64_t s = size > align ? size : align;
  if (align & (align - 1) || s > a->capacity) return FG_ALLOC_FAIL;
  int lg = log2_ceil(s) - (int)b->min_log2;
  uint32_t k = lg > 0 ? (uint32_t)lg : 0;
  if (k > b->max_order) return FG_ALLOC_FAIL;
  uint64_t avail = b->map & (~0ull << k);
  if (!avail) return FG_ALLOC_FAIL;
  uint32_t j = (uint32_t)__builtin_ctzll(avail);
  uint32_t leaf = b->heads[j];
  unlink_free(b, leaf, j);
  while (j > k) { /* split: keep the lower half, free the upper */
    j--;
    push(b, leaf + (1u << j), j);
  }
  b->tag[leaf] = (uint8_t)(TAG_USED | k);
  a->used += b->min << k;
  a->count++;
  return (uint64_t)leaf << b->min_log2;
}

static int buddy_free(fg_allocator *a, uint64_t off) {
  fg_buddy *b = &a->u.buddy;
  if (off & (b->min - 1) || (off >> b->min_log2) >= b->leaves) return -1;
  uint32_t leaf = (uint32_t)(off >> b->min_log2);
  if (!(b->tag[leaf] & TAG_USED)) return -1;
  uint32_t k = b->tag[leaf] & 0x3f;
  b->tag[leaf] = 0;
  a->used -= b->min << k;
  a->count--;
  while (k < b->max_order) {
    uint32_t buddy = leaf ^ (1u << k);
    if ((uint64_t)buddy + (1u << k) > b->leaves || b->tag[buddy] != (TAG_FREE | k)) break;
    unlink_free(b, buddy, k);
    if (buddy < leaf) leaf = buddy;
    k++;
  }
  push(b, leaf, k);
  return 0;
}

static uint64_t buddy_size(const fg_allocator *a, uint64_t off) {
  const fg_buddy *b = &a->u.buddy;
  if (off & (b->min - 1) || (off >> b->min_log2) >= b->leaves) return 0;
  uint8_t t = b->tag[off >> b->min_log2];
  return (t & TAG_USED) ? b->min << (t & 0x3f) : 0;
}

static uint64_t buddy_largest(const fg_allocator *a) {
  const fg_buddy *b = &a->u.buddy;
  return b->map ? b->min << (63 - __builtin_clzll(b->map)) : 0;
}

static int buddy_validate(const fg_allocator *a, char *err, size_t errlen) {
  const fg_buddy *b = &a->u.buddy;
  uint64_t used = 0, count = 0, nfree = 0;
  uint32_t leaf = 0;
  while (leaf < b->leaves) {
    uint8_t t = b->tag[leaf];
    uint32_t k = t & 0x3f;
    if (!(t & (TAG_FREE | TAG_USED)) || (leaf & ((1u << k) - 1)) || (uint64_t)leaf + (1u << k) > b->leaves) {
      fg_errf(err, errlen, "buddy: no valid block head at leaf %u (tag 0x%x)", leaf, t);
      return -1;
    }
    for (uint32_t i = 1; i < (1u << k); i++)
      if (b->tag[leaf + i]) { fg_errf(err, errlen, "buddy: stray head inside block at leaf %u", leaf); return -1; }
    if (t & TAG_USED) { used += b->min << k; count++; }
    else {
      nfree++;
      uint32_t bud = leaf ^ (1u << k);
      if (k < b->max_order && (uint64_t)bud + (1u << k) <= b->leaves && b->tag[bud] == (TAG_FREE | k)) {
        fg_errf(err, errlen, "buddy: free buddies at leaves %u and %u not merged", leaf, bud);
        return -1;
      }
    }
    leaf += 1u << k;
  }
  if (used != a->used || count != a->count) { fg_errf(err, errlen, "buddy: counters disagree"); return -1; }
  uint64_t listed = 0;
  for (uint32_t k = 0; k < 64; k++) {
    if ((b->heads[k] != FG_NIL) != (int)((b->map >> k) & 1)) { fg_errf(err, errlen, "buddy: order bitmap wrong at %u", k); return -1; }
    uint32_t p = FG_NIL;
    for (uint32_t j = b->heads[k]; j != FG_NIL; j = b->fnext[j]) {
      if (b->tag[j] != (TAG_FREE | k) || b->fprev[j] != p) { fg_errf(err, errlen, "buddy: leaf %u in the wrong free list", j); return -1; }
      p = j;
      if (++listed > nfree) { fg_errf(err, errlen, "buddy: free lists longer than free blocks"); return -1; }
    }
  }
  if (listed != nfree) { fg_errf(err, errlen, "buddy: free blocks not all listed"); return -1; }
  return 0;
}

static void buddy_walk(const fg_allocator *a, fg_alloc_walk_fn fn, void *ctx) {
  const fg_buddy *b = &a->u.buddy;
  for (uint32_t leaf = 0; leaf < b->leaves;) {
    uint8_t t = b->tag[leaf];
    uint32_t k = t & 0x3f;
    if (t & TAG_USED) fn(ctx, (uint64_t)leaf << b->min_log2, b->min << k, 1, 0);
    leaf += (t & (TAG_FREE | TAG_USED)) ? 1u << k : 1;
  }
}

const fg_alloc_ops fg__buddy_ops = {
    .init = buddy_init, .fini = buddy_fini, .alloc = buddy_alloc, .free = buddy_free,
    .size = buddy_size, .reset = buddy_reset, .largest = buddy_largest, .validate = buddy_validate,
    .walk = buddy_walk,
};
