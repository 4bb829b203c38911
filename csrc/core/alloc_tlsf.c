/* TLSF (Masmano et al.): free blocks in 60 x 32 size classes with two levels
 * of bitmaps, so finding a good fit is a couple of bit scans. Block records
 * live in a node pool outside the range; physical neighbours are linked so a
 * free coalesces at once, which keeps "no two adjacent free blocks". */
#include "alloc_impl.h"
#include <string.h>

#define SL_LOG2 FG_TLSF_SL_LOG2
#define SL FG_TLSF_SL
#define FL FG_TLSF_FL

static inline int log2_floor(uint64_t x) { return 63 - __builtin_clzll(x); }

static inline void mapping(uint64_t size, int *fl, int *sl) {
  if (size < SL) { *fl = 0; *sl = (int)size; return; }
  int l = log2_floor(size);
  *fl = l - SL_LOG2 + 1;
  *sl = (int)(size >> (l - SL_LOG2)) - SL;
}

static inline uint32_t node_new(fg_allocator *a) {
  fg_tlsf *t = &a->u.tlsf;
  if (t->node_spare == FG_NIL) {
    uint32_t ncap = t->node_cap ? t->node_cap * 2 : 64;
    fg_tlsf_node *n = fg_realloc(&a->hooks, t->nodes, sizeof(fg_tlsf_node) * ncap);
    if (!n) return FG_NIL;
    t->nodes = n;
    for (uint32_t i = t->node_cap; i < ncap; i++) n[i].next_free = i + 1 < ncap ? i + 1 : FG_NIL;
    t->node_spare = t->node_cap;
    t->node_cap = ncap;
  }
  uint32_t i = t->node_spare;
  t->node_spare = t->nodes[i].next_free;
  return i;
}

static inline void node_release(fg_tlsf *t, uint32_t i) {
  t->nodes[i].next_free = t->node_spare;
  t->nodes[i].is_free = 2; /* spare marker for validate */
  t->node_spare = i;
}

static inline __attribute__((always_inline)) void free_insert(fg_tlsf *t, uint32_t i) {
  fg_tlsf_node *n = &t->nodes[i];
  int fl = 0, sl = 0;
  if (!t->single) mapping(n->size, &fl, &sl);
  uint32_t h = t->heads[fl][sl];
  n->is_free = 1;
  n->fl = (uint8_t)fl;
  n->sl = (uint8_t)sl;
  n->prev_free = FG_NIL;
  n->next_free = h;
  if (h != FG_NIL) t->nodes[h].prev_free = i;
  t->heads[fl][sl] = i;
  t->fl_map |= 1ull << fl;
  t->sl_map[fl] |= 1u << sl;
}

static inline __attribute__((always_inline)) void free_remove(fg_tlsf *t, uint32_t i) {
  fg_tlsf_node *n = &t->nodes[i];
  int fl = n->fl, sl = n->sl;
  if (n->prev_free != FG_NIL) t->nodes[n->prev_free].next_free = n->next_free;
  else t->heads[fl][sl] = n->next_free;
  if (n->next_free != FG_NIL) t->nodes[n->next_free].prev_free = n->prev_free;
  if (t->heads[fl][sl] == FG_NIL) {
    t->sl_map[fl] &= ~(1u << sl);
    if (!t->sl_map[fl]) t->fl_map &= ~(1ull << fl);
  }
  n->is_free = 0;
}

/* Splits node i at `at` bytes; the upper part becomes a new node (returned),
 * so the lower node keeps its identity (node `first` stays at offset 0). */
static inline uint32_t split(fg_allocator *a, uint32_t i, uint64_t at) {
  fg_tlsf *t = &a->u.tlsf;
  uint32_t j = node_new(a);
  if (j == FG_NIL) return FG_NIL;
  fg_tlsf_node *n = &t->nodes[i], *m = &t->nodes[j];
  m->off = n->off + at;
  m->size = n->size - at;
  m->prev_phys = i;
  m->next_phys = n->next_phys;
  m->is_free = 0;
  if (n->next_phys != FG_NIL) t->nodes[n->next_phys].prev_phys = j;
  n->next_phys = j;
  n->size = at;
  return j;
}

/* Merges node j (the upper physical neighbour of i) into i. */
static inline void absorb(fg_tlsf *t, uint32_t i, uint32_t j) {
  fg_tlsf_node *n = &t->nodes[i], *m = &t->nodes[j];
  n->size += m->size;
  n->next_phys = m->next_phys;
  if (m->next_phys != FG_NIL) t->nodes[m->next_phys].prev_phys = i;
  node_release(t, j);
}

static int tlsf_init(fg_allocator *a, const fg_alloc_desc *desc, char *err, size_t errlen) {
  fg_tlsf *t = &a->u.tlsf;
  uint64_t gran = desc->granularity;
  if (gran == 0) gran = 1;
  if (gran & (gran - 1) || gran > a->capacity) {
    fg_errf(err, errlen, "tlsf: granularity %llu must be a power of two no larger than the capacity %llu",
            (unsigned long long)gran, (unsigned long long)a->capacity);
    return -1;
  }
  t->gran = gran;
  a->capacity = a->capacity / gran * gran;
  t->node_spare = FG_NIL;
  if (fg_omap_init(&t->live, &a->hooks, 64)) { fg_errf(err, errlen, "out of host memory"); return -1; }
  return 0;
}

static void tlsf_fini(fg_allocator *a) {
  fg_free(&a->hooks, a->u.tlsf.nodes);
  fg_omap_free(&a->u.tlsf.live, &a->hooks);
}

static void tlsf_reset(fg_allocator *a) {
  fg_tlsf *t = &a->u.tlsf;
  t->fl_map = 0;
  memset(t->sl_map, 0, sizeof t->sl_map);
  memset(t->heads, 0xff, sizeof t->heads);
  /* every node back to the spare chain, then one free block covering the range */
  t->node_spare = FG_NIL;
  for (uint32_t i = t->node_cap; i-- > 0;) node_release(t, i);
  fg_omap_clear(&t->live);
  t->first = node_new(a); /* node_cap >= 64 after init's first reset? allocate if needed */
  if (t->first == FG_NIL) return; /* out of host memory: allocator stays empty-handed */
  fg_tlsf_node *n = &t->nodes[t->first];
  n->off = 0;
  n->size = a->capacity;
  n->prev_phys = n->next_phys = FG_NIL;
  free_insert(t, t->first);
}

/* First block in class (fl, sl) or above; FG_NIL if none. */
static uint32_t find_suitable(const fg_tlsf *t, int fl, int sl) {
  uint32_t slm = sl < SL ? t->sl_map[fl] & (~0u << sl) : 0;
  if (!slm) {
    uint64_t flm = fl + 1 < 64 ? t->fl_map & (~0ull << (fl + 1)) : 0;
    if (!flm) return FG_NIL;
    fl = __builtin_ctzll(flm);
    slm = t->sl_map[fl];
  }
  return t->heads[fl][__builtin_ctz(slm)];
}

static inline int fits(const fg_tlsf_node *n, uint64_t size, uint64_t align) {
  uint64_t off = fg_align_up(n->off, align);
  return off >= n->off && off - n->off <= n->size && n->size - (off - n->off) >= size;
}

static uint64_t tlsf_alloc(fg_allocator *a, uint64_t size, uint64_t align) {
  fg_tlsf *t = &a->u.tlsf;
  if (size > a->capacity) return FG_ALLOC_FAIL;
  if (t->gran > 1) {
    size = (size + t->gran - 1) & ~(t->gran - 1); /* no overflow: size <= capacity */
    if (t->gran % align == 0) align = 1;           /* every block offset is a multiple of gran */
    else {                                         /* keep offsets on the granularity: lcm */
      uint64_t x = align, y = t->gran;
      while (y) { uint64_t r = x % y; x = y; y = r; }
      if (align / x > UINT64_MAX / t->gran) return FG_ALLOC_FAIL;
      align = align / x * t->gran;
    }
  }
  uint64_t need = size + (align > 1 ? align - 1 : 0);
  uint32_t i = FG_NIL;
  int fl, sl;
  if (t->single) { /* best fit over every free block */
    uint64_t best = UINT64_MAX;
    for (uint32_t j = t->heads[0][0]; j != FG_NIL; j = t->nodes[j].next_free) {
      const fg_tlsf_node *n = &t->nodes[j];
      if (n->size < best && fits(n, size, align)) {
        best = n->size;
        i = j;
        if (n->size == size) break;
      }
    }
    if (i == FG_NIL) return FG_ALLOC_FAIL;
  } else if (need >= size && need <= a->capacity) {
    /* round the request up to the next class boundary: every block there fits */
    uint64_t r = need;
    if (r >= SL) r += (1ull << (log2_floor(r) - SL_LOG2)) - 1;
    if (r >= need) {
      mapping(r, &fl, &sl);
      i = find_suitable(t, fl, sl);
    }
  }
  if (i == FG_NIL) {
    /* fallback: the request's own class may hold a block that fits exactly
     * (e.g. the whole range); scan it */
    mapping(size, &fl, &sl);
    for (uint32_t j = t->heads[fl][sl]; j != FG_NIL; j = t->nodes[j].next_free)
      if (fits(&t->nodes[j], size, align)) { i = j; break; }
    if (i == FG_NIL) return FG_ALLOC_FAIL;
  }
  free_remove(t, i);
  uint64_t off = fg_align_up(t->nodes[i].off, align);
  if (fg_omap_put(&t->live, &a->hooks, off, i)) { free_insert(t, i); return FG_ALLOC_FAIL; }
  uint64_t pad = off - t->nodes[i].off;
  if (pad) {
    uint32_t j = split(a, i, pad);
    if (j == FG_NIL) { fg_omap_del(&t->live, off, NULL); free_insert(t, i); return FG_ALLOC_FAIL; }
    free_insert(t, i);
    i = j;
    fg_omap_set(&t->live, off, i);
  }
  if (t->nodes[i].size > size) {
    uint32_t j = split(a, i, size);
    if (j != FG_NIL) free_insert(t, j); /* else keep the slack inside the allocation */
  }
  t->nodes[i].is_free = 0;
  a->used += t->nodes[i].size;
  a->count++;
  return off;
}

static int tlsf_free(fg_allocator *a, uint64_t off) {
  fg_tlsf *t = &a->u.tlsf;
  uint64_t v;
  if (!fg_omap_del(&t->live, off, &v)) return -1;
  uint32_t i = (uint32_t)v;
  a->used -= t->nodes[i].size;
  a->count--;
  uint32_t p = t->nodes[i].prev_phys, n = t->nodes[i].next_phys;
  if (n != FG_NIL && t->nodes[n].is_free == 1) { free_remove(t, n); absorb(t, i, n); }
  if (p != FG_NIL && t->nodes[p].is_free == 1) { free_remove(t, p); absorb(t, p, i); i = p; }
  free_insert(t, i);
  return 0;
}

static uint64_t tlsf_size(const fg_allocator *a, uint64_t off) {
  uint64_t v;
  return fg_omap_get(&a->u.tlsf.live, off, &v) ? a->u.tlsf.nodes[v].size : 0;
}

static uint64_t tlsf_largest(const fg_allocator *a) {
  const fg_tlsf *t = &a->u.tlsf;
  if (!t->fl_map) return 0;
  if (t->single) {
    uint64_t best = 0;
    for (uint32_t j = t->heads[0][0]; j != FG_NIL; j = t->nodes[j].next_free)
      if (t->nodes[j].size > best) best = t->nodes[j].size;
    return best;
  }
  int fl = 63 - __builtin_clzll(t->fl_map);
  int sl = 31 - __builtin_clz(t->sl_map[fl]);
  uint64_t best = 0;
  for (uint32_t j = t->heads[fl][sl]; j != FG_NIL; j = t->nodes[j].next_free)
    if (t->nodes[j].size > best) best = t->nodes[j].size;
  return best;
}

static int tlsf_validate(const fg_allocator *a, char *err, size_t errlen) {
  const fg_tlsf *t = &a->u.tlsf;
  uint64_t off = 0, used = 0, count = 0, nfree = 0;
  uint32_t prev = FG_NIL;
  for (uint32_t i = t->first; i != FG_NIL; i = t->nodes[i].next_phys) {
    const fg_tlsf_node *n = &t->nodes[i];
    if (n->off != off || n->size == 0 || n->prev_phys != prev || n->is_free > 1) {
      fg_errf(err, errlen, "tlsf: physical chain broken at node %u (offset %llu, expected %llu)",
              i, (unsigned long long)n->off, (unsigned long long)off);
      return -1;
    }
    if (n->is_free) {
      if (prev != FG_NIL && t->nodes[prev].is_free) {
        fg_errf(err, errlen, "tlsf: adjacent free blocks at %llu not coalesced", (unsigned long long)n->off);
        return -1;
      }
      nfree++;
    } else {
      uint64_t v;
      if (!fg_omap_get(&t->live, n->off, &v) || v != i) {
        fg_errf(err, errlen, "tlsf: used block at %llu missing from the offset map", (unsigned long long)n->off);
        return -1;
      }
      used += n->size;
      count++;
    }
    off += n->size;
    prev = i;
  }
  if (off != a->capacity) { fg_errf(err, errlen, "tlsf: blocks cover %llu of %llu", (unsigned long long)off, (unsigned long long)a->capacity); return -1; }
  if (used != a->used || count != a->count || t->live.count != count) {
    fg_errf(err, errlen, "tlsf: counters disagree (used %llu vs %llu, count %llu vs %llu)",
            (unsigned long long)used, (unsigned long long)a->used, (unsigned long long)count, (unsigned long long)a->count);
    return -1;
  }
  uint64_t listed = 0;
  for (int fl = 0; fl < FL; fl++)
    for (int sl = 0; sl < SL; sl++) {
      uint32_t h = t->heads[fl][sl];
      int bit = (t->sl_map[fl] >> sl) & 1;
      if ((h != FG_NIL) != bit) { fg_errf(err, errlen, "tlsf: bitmap disagrees with list (%d,%d)", fl, sl); return -1; }
      uint32_t p = FG_NIL;
      for (uint32_t j = h; j != FG_NIL; j = t->nodes[j].next_free) {
        int f2 = 0, s2 = 0;
        if (!t->single) mapping(t->nodes[j].size, &f2, &s2);
        if (f2 != fl || s2 != sl || t->nodes[j].is_free != 1 || t->nodes[j].prev_free != p) {
          fg_errf(err, errlen, "tlsf: block at %llu in the wrong free list", (unsigned long long)t->nodes[j].off);
          return -1;
        }
        p = j;
        if (++listed > nfree) { fg_errf(err, errlen, "tlsf: free lists longer than free blocks"); return -1; }
      }
    }
  for (int fl = 0; fl < FL; fl++)
    if (((t->fl_map >> fl) & 1) != (t->sl_map[fl] != 0)) { fg_errf(err, errlen, "tlsf: first-level bitmap wrong at %d", fl); return -1; }
  if (listed != nfree) { fg_errf(err, errlen, "tlsf: %llu free blocks but %llu listed", (unsigned long long)nfree, (unsigned long long)listed); return -1; }
  return 0;
}

/* FREELIST: the same blocks on one address-ordered list, best fit by scan. */
static int freelist_init(fg_allocator *a, const fg_alloc_desc *desc, char *err, size_t errlen) {
  int rc = tlsf_init(a, desc, err, errlen);
  a->u.tlsf.single = 1;
  return rc;
}

const fg_alloc_ops fg__tlsf_ops = {
    .init = tlsf_init, .fini = tlsf_fini, .alloc = tlsf_alloc, .free = tlsf_free, .size = tlsf_size,
    .reset = tlsf_reset, .largest = tlsf_largest, .validate = tlsf_validate,
};
const fg_alloc_ops fg__freelist_ops = {
    .init = freelist_init, .fini = tlsf_fini, .alloc = tlsf_alloc, .free = tlsf_free,
    .size = tlsf_size, .reset = tlsf_reset, .largest = tlsf_largest, .validate = tlsf_validate,
};
