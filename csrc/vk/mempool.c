/* VkDeviceMemory pools: per (memory type, linear|optimal) sub-pools with slab
 * pages for small requests, TLSF blocks for medium ones and dedicated memory
 * (with a size-keyed cache) for large ones. See fg_vk_mem.h. */
#include "fg_vk_mem.h"
#include "fg_util.h"
#include "alloc_stats.h"
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define SLAB_MIN_LOG2 8   /* 256 B slots */
#define SLAB_PAGE_SLOTS 64
#define NCLASS_MAX 24

typedef struct vkblock { VkDeviceMemory mem; char *map; VkDeviceSize size; } vkblock;

typedef struct page {
  int live;                 /* 0 = unused entry */
  uint64_t free_mask;       /* bit i set = slot i free (64 slots, as in the article's slab) */
  fg_block_allocation ba;   /* the page's range in a TLSF block */
  vkblock *blk;
  uint32_t used;            /* live slots */
} page;

/* cur: the page allocations come from; empty: pages with no allocation other
 * than cur, kept (at most one) so a class that drains and refills each frame
 * does not create and drop a page every time. */
typedef struct sclass { page *pages; uint32_t n, cap, cur, empty; } sclass;

typedef struct cached { VkDeviceMemory mem; VkDeviceSize size; char *map; } cached;

typedef struct subpool {
  atomic_int spin;              /* see sp_lock */
  struct fg_vk_mempool *p;
  uint32_t type;
  int optimal, host_visible;
  fg_block_allocator *blocks;   /* created on first use */
  VkDeviceSize block_size, dedicated_min;
  sclass cls[NCLASS_MAX];
  cached *cache;
  cached *ded;                  /* live dedicated memories, freed at destroy if leaked */
  uint32_t nded, capded;
  uint32_t ncache;
  VkDeviceSize cache_bytes;
  /* counters (under lock) */
  VkDeviceSize device_bytes, used_bytes;
  uint32_t device_memories;
  uint64_t n_slab, n_tlsf, n_dedicated, device_allocs, device_frees;
  char err[192];                /* last device failure, for messages */
} subpool;

struct fg_vk_mempool {
  fg_vk_device *dev;
  fg_vk_mempool_desc d;
  uint32_t ntypes, nclass;
  subpool *subs;                /* [type * 2 + optimal] */
};

/* No locking when the caller promised external synchronisation (saves two
 * atomic read-modify-writes per call). */
/* A test-and-set lock that yields while taken: critical sections are short
 * (tens of ns) except when a block is created, and release is a plain store,
 * where a mutex pays a second atomic read-modify-write. */
static inline void sp_lock(subpool *sp) {
  if (sp->p->d.externally_synchronized) return;
  while (atomic_exchange_explicit(&sp->spin, 1, memory_order_acquire))
    while (atomic_load_explicit(&sp->spin, memory_order_relaxed)) sched_yield();
}
static inline void sp_unlock(subpool *sp) {
  if (!sp->p->d.externally_synchronized) atomic_store_explicit(&sp->spin, 0, memory_order_release);
}

static int log2_ceil(uint64_t x) { return x <= 1 ? 0 : 64 - __builtin_clzll(x - 1); }

/* ---------- device memory ---------- */
static VkResult dev_alloc(subpool *sp, VkDeviceSize size, VkDeviceMemory *mem, char **map) {
  fg_vk_device *dev = sp->p->dev;
  uint32_t heap = dev->memprops.memoryTypes[sp->type].heapIndex;
  /* Larger than the heap is invalid usage (VUID-vkAllocateMemory-pAllocateInfo-01713), not an
   * out-of-memory the driver reports: refuse it here as one. */
  if (size > dev->memprops.memoryHeaps[heap].size) {
    fg_errf(sp->err, sizeof sp->err, "%llu bytes do not fit memory heap %u (%llu bytes)", (unsigned long long)size,
            heap, (unsigned long long)dev->memprops.memoryHeaps[heap].size);
    return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  }
  if (dev->has_memory_budget) {
    VkPhysicalDeviceMemoryBudgetPropertiesEXT b = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT };
    VkPhysicalDeviceMemoryProperties2 mp = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2, .pNext = &b };
    vkGetPhysicalDeviceMemoryProperties2(dev->phys, &mp);
    if (b.heapBudget[heap] && b.heapUsage[heap] + size > b.heapBudget[heap]) {
      fg_errf(sp->err, sizeof sp->err, "memory heap %u budget exhausted: %llu used + %llu requested > budget %llu",
              heap, (unsigned long long)b.heapUsage[heap], (unsigned long long)size, (unsigned long long)b.heapBudget[heap]);
      return VK_ERROR_OUT_OF_DEVICE_MEMORY;
    }
  }
  VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = size,
                              .memoryTypeIndex = sp->type };
  VkResult r = vkAllocateMemory(dev->device, &ai, dev->vkalloc, mem);
  if (r != VK_SUCCESS) {
    fg_errf(sp->err, sizeof sp->err, "vkAllocateMemory(%llu bytes, type %u) failed: %d",
            (unsigned long long)size, sp->type, (int)r);
    return r;
  }
  *map = NULL;
  if (sp->host_visible) {
    void *m = NULL;
    r = vkMapMemory(dev->device, *mem, 0, VK_WHOLE_SIZE, 0, &m);
    if (r != VK_SUCCESS) {
      vkFreeMemory(dev->device, *mem, dev->vkalloc);
      fg_errf(sp->err, sizeof sp->err, "vkMapMemory failed: %d", (int)r);
      return r;
    }
    *map = m;
  }
  sp->device_bytes += size;
  sp->device_memories++;
  sp->device_allocs++;
  return VK_SUCCESS;
}

static void dev_free(subpool *sp, VkDeviceMemory mem, VkDeviceSize size) {
  vkFreeMemory(sp->p->dev->device, mem, sp->p->dev->vkalloc); /* unmaps implicitly */
  sp->device_bytes -= size;
  sp->device_memories--;
  sp->device_frees++;
}

static int cb_create(void *user, uint64_t size, void **bu) {
  subpool *sp = user;
  vkblock *b = fg_vk_malloc(sp->p->dev, sizeof *b);
  if (!b) return 1;
  if (dev_alloc(sp, size, &b->mem, &b->map) != VK_SUCCESS) { fg_vk_free(sp->p->dev, b); return 1; }
  b->size = size;
  *bu = b;
  return 0;
}

static void cb_destroy(void *user, void *bu) {
  vkblock *b = bu;
  subpool *sp = user;
  dev_free(sp, b->mem, b->size);
  fg_vk_free(sp->p->dev, b);
}

static int ensure_blocks(subpool *sp) {
  if (sp->blocks) return 0;
  /* granularity 256: typical buffer alignments need no padding blocks */
  fg_block_desc bd = { FG_ALLOC_TLSF, sp->block_size, 256, sp->p->d.keep_empty, cb_create, cb_destroy, sp, &sp->p->dev->hooks };
  sp->blocks = fg_block_allocator_create(&bd, NULL, 0);
  return sp->blocks ? 0 : -1;
}

static void cache_drop_oldest(subpool *sp) {
  cached c = sp->cache[0];
  memmove(sp->cache, sp->cache + 1, sizeof(cached) * (--sp->ncache));
  sp->cache_bytes -= c.size;
  dev_free(sp, c.mem, c.size);
}

/* ---------- create / destroy ---------- */
fg_vk_mempool *fg_vk_mempool_create(fg_vk_device *dev, const fg_vk_mempool_desc *desc, char *err, size_t errlen) {
  fg_vk_mempool *p = fg_vk_calloc(dev, 1, sizeof *p);
  if (!p) { fg_errf(err, errlen, "out of host memory"); return NULL; }
  if (desc) p->d = *desc;
  int auto_block = !p->d.block_size, auto_dedicated = !p->d.dedicated_min;
  if (auto_block) p->d.block_size = 256ull << 20;
  if (!p->d.slab_max) p->d.slab_max = 64 << 10;
  if (!p->d.keep_empty) p->d.keep_empty = 1;
  if (!p->d.dedicated_cache) p->d.dedicated_cache = 8;
  if (p->d.slab_max & (p->d.slab_max - 1) || p->d.slab_max < 256 || p->d.slab_max * SLAB_PAGE_SLOTS > p->d.block_size) {
    fg_errf(err, errlen, "slab_max %llu must be a power of two >= 256 with 64 slots fitting a block of %llu",
            (unsigned long long)p->d.slab_max, (unsigned long long)p->d.block_size);
    fg_vk_free(dev, p);
    return NULL;
  }
  p->nclass = (uint32_t)(log2_ceil(p->d.slab_max) - SLAB_MIN_LOG2 + 1);
  p->ntypes = dev->memprops.memoryTypeCount;
  p->subs = fg_vk_calloc(dev, (size_t)p->ntypes * 2, sizeof(subpool));
  if (!p->subs) { fg_vk_free(dev, p); fg_errf(err, errlen, "out of host memory"); return NULL; }
  for (uint32_t i = 0; i < p->ntypes * 2; i++) {
    subpool *sp = &p->subs[i];
    atomic_init(&sp->spin, 0);
    sp->p = p;
    sp->type = i / 2;
    sp->optimal = i & 1;
    sp->host_visible = (dev->memprops.memoryTypes[sp->type].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) != 0;
    /* default block: 256 MiB, but at most 1/8 of this type's heap (a 256 MiB
     * BAR heap gets 32 MiB blocks while device-local VRAM keeps 256 MiB) */
    sp->block_size = p->d.block_size;
    VkDeviceSize heap = dev->memprops.memoryHeaps[dev->memprops.memoryTypes[sp->type].heapIndex].size;
    if (auto_block)
      while (sp->block_size > (16ull << 20) && sp->block_size > heap / 8 &&
             sp->block_size / 2 >= p->d.slab_max * SLAB_PAGE_SLOTS) sp->block_size >>= 1;
    sp->dedicated_min = auto_dedicated ? sp->block_size / 4 : p->d.dedicated_min;
  }
  p->dev = fg_vk_retain(dev);
  return p;
}

void fg_vk_mempool_destroy(fg_vk_mempool *p) {
  if (!p) return;
  for (uint32_t i = 0; i < p->ntypes * 2; i++) {
    subpool *sp = &p->subs[i];
    for (uint32_t c = 0; c < p->nclass; c++) {
      fg_vk_free(p->dev, sp->cls[c].pages);
    }
    while (sp->ncache) cache_drop_oldest(sp);
    fg_vk_free(p->dev, sp->cache);
    for (uint32_t k = 0; k < sp->nded; k++) dev_free(sp, sp->ded[k].mem, sp->ded[k].size);
    fg_vk_free(p->dev, sp->ded);
    fg_block_allocator_destroy(sp->blocks); /* frees the blocks (and so pages and live allocations) */
  }
  fg_vk_device *dev = p->dev;
  fg_vk_free(dev, p->subs);
  fg_vk_free(dev, p);
  fg_vk_release(dev);
}

/* ---------- paths ---------- */
static VkResult alloc_dedicated(subpool *sp, VkDeviceSize size, fg_vk_allocation *out) {
  VkDeviceMemory mem = VK_NULL_HANDLE;
  char *map = NULL;
  VkDeviceSize got = size;
  for (uint32_t i = sp->ncache; i-- > 0;) {  /* newest first; up to 1/8 slack accepted */
    if (sp->cache[i].size >= size && sp->cache[i].size - size <= size / 8) {
      mem = sp->cache[i].mem;
      map = sp->cache[i].map;
      got = sp->cache[i].size;
      sp->cache_bytes -= got;
      memmove(sp->cache + i, sp->cache + i + 1, sizeof(cached) * (--sp->ncache - i));
      break;
    }
  }
  if (!mem) {
    VkResult r = dev_alloc(sp, size, &mem, &map);
    if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY && sp->ncache) {
      while (sp->ncache) cache_drop_oldest(sp);
      r = dev_alloc(sp, size, &mem, &map);
    }
    if (r != VK_SUCCESS) return r;
  }
  out->memory = mem;
  out->offset = 0;
  out->mapped = map;
  out->kind = FG_VK_MEM_DEDICATED;
  out->block_.size = got; /* the memory's real size, for the cache */
  if (sp->nded == sp->capded) {
    uint32_t ncap = sp->capded ? sp->capded * 2 : 8;
    cached *n = fg_vk_realloc(sp->p->dev, sp->ded, sizeof(cached) * ncap);
    if (!n) { dev_free(sp, mem, got); return VK_ERROR_OUT_OF_HOST_MEMORY; }
    sp->ded = n;
    sp->capded = ncap;
  }
  sp->ded[sp->nded++] = (cached){ mem, got, map };
  sp->n_dedicated++;
  return VK_SUCCESS;
}

static inline int page_full(const sclass *c, uint32_t i) {
  return i >= c->n || !c->pages[i].live || !c->pages[i].free_mask;
}

static VkResult alloc_slab(subpool *sp, uint32_t ci, VkDeviceSize size, fg_vk_allocation *out) {
  sclass *c = &sp->cls[ci];
  uint64_t slot = 1ull << (ci + SLAB_MIN_LOG2);
  uint32_t pi = c->cur;
  if (page_full(c, pi)) {
    /* rare: frees move cur to pages with room; look for one, else make one */
    for (pi = 0; pi < c->n; pi++)
      if (!page_full(c, pi)) break;
    if (pi < c->n) {
      if (c->pages[pi].used == 0) c->empty--;
    } else {
      for (pi = 0; pi < c->n; pi++)
        if (!c->pages[pi].live) break;
      if (pi == c->n) {
        if (c->n == c->cap) {
          uint32_t ncap = c->cap ? c->cap * 2 : 4;
          page *np = fg_vk_realloc(sp->p->dev, c->pages, sizeof(page) * ncap);
          if (!np) return VK_ERROR_OUT_OF_HOST_MEMORY;
          c->pages = np;
          c->cap = ncap;
        }
        c->pages[c->n].live = 0;
        c->n++;
      }
      page *np = &c->pages[pi];
      if (ensure_blocks(sp) || fg_block_alloc_user(sp->blocks, slot * SLAB_PAGE_SLOTS, slot, FG_ALLOC_PINNED, &np->ba)) {
        if (!sp->err[0]) fg_errf(sp->err, sizeof sp->err, "no memory for a slab page");
        return VK_ERROR_OUT_OF_DEVICE_MEMORY;
      }
      np->live = 1;
      np->free_mask = ~0ull;
      np->blk = np->ba.block_user;
      np->used = 0;
    }
    c->cur = pi;
  }
  page *pg = &c->pages[pi];
  int bit = __builtin_ctzll(pg->free_mask);
  pg->free_mask &= pg->free_mask - 1;
  uint64_t off = (uint64_t)bit << (ci + SLAB_MIN_LOG2);
  pg->used++;
  out->memory = pg->blk->mem;
  out->offset = pg->ba.offset + off;
  out->mapped = pg->blk->map ? pg->blk->map + out->offset : NULL;
  out->kind = FG_VK_MEM_SLAB;
  out->page_ = pi;
  out->class_ = ci;
  sp->n_slab++;
  return VK_SUCCESS;
}

static void release_page(subpool *sp, page *pg) {
  fg_block_free(sp->blocks, &pg->ba);
  pg->live = 0;
}

static VkResult alloc_in(subpool *sp, const fg_vk_mem_request *req, VkDeviceSize align, fg_vk_allocation *out) {
  const fg_vk_mempool_desc *d = &sp->p->d;
  VkDeviceSize size = req->size;
  sp->err[0] = 0;
  if (req->dedicated || size >= sp->dedicated_min) return alloc_dedicated(sp, size, out);
  VkDeviceSize need = size > align ? size : align;
  if (need <= d->slab_max) {
    int lg = log2_ceil(need);
    uint32_t ci = lg > SLAB_MIN_LOG2 ? (uint32_t)(lg - SLAB_MIN_LOG2) : 0;
    VkResult r = alloc_slab(sp, ci, size, out);
    if (r != VK_ERROR_OUT_OF_DEVICE_MEMORY) return r;
  } else if (ensure_blocks(sp) == 0 && fg_block_alloc_user(sp->blocks, size, align, req->user, &out->block_) == 0) {
    vkblock *b = out->block_.block_user;
    out->memory = b->mem;
    out->offset = out->block_.offset;
    out->mapped = b->map ? b->map + out->offset : NULL;
    out->kind = FG_VK_MEM_TLSF;
    sp->n_tlsf++;
    return VK_SUCCESS;
  }
  /* no new block could be made (budget, out of memory): try exactly the request */
  return alloc_dedicated(sp, size, out);
}

VkResult fg_vk_mem_alloc(fg_vk_mempool *p, const fg_vk_mem_request *req, fg_vk_allocation *out,
                         char *err, size_t errlen) {
  out->kind = 0; /* every other field is set on success (memset's rep stos costs more than the rest) */
  out->mapped = NULL;
  VkDeviceSize align = req->alignment ? req->alignment : 1;
  if (req->size == 0 || (align & (align - 1))) {
    fg_errf(err, errlen, "memory request needs size > 0 and a power-of-two alignment (got size %llu, alignment %llu)",
            (unsigned long long)req->size, (unsigned long long)req->alignment);
    return VK_ERROR_INITIALIZATION_FAILED;
  }
  const VkPhysicalDeviceMemoryProperties *mp = &p->dev->memprops;
  uint32_t bits = req->memory_type_bits ? req->memory_type_bits : ~0u;
  /* candidates: required flags present; most preferred flags first, then index */
  uint32_t cand[VK_MAX_MEMORY_TYPES], nc = 0;
  int score[VK_MAX_MEMORY_TYPES];
  for (uint32_t t = 0; t < p->ntypes; t++) {
    VkMemoryPropertyFlags f = mp->memoryTypes[t].propertyFlags;
    if (!(bits & (1u << t)) || (f & req->required) != req->required) continue;
    /* types that need a feature or behave specially only when asked for */
    const VkMemoryPropertyFlags special = VK_MEMORY_PROPERTY_PROTECTED_BIT | VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT |
                                          VK_MEMORY_PROPERTY_DEVICE_COHERENT_BIT_AMD;
    if (f & special & ~req->required) continue;
    VkMemoryPropertyFlags pf = f & req->preferred;
    int s = 0;
    for (; pf; pf &= pf - 1) s++;
    uint32_t k = nc++;
    while (k > 0 && score[k - 1] < s) { cand[k] = cand[k - 1]; score[k] = score[k - 1]; k--; }
    cand[k] = t;
    score[k] = s;
  }
  if (nc == 0) {
    fg_errf(err, errlen, "no memory type in bits 0x%x has the required properties 0x%x",
            bits, (unsigned)req->required);
    return VK_ERROR_FEATURE_NOT_PRESENT;
  }
  VkResult r = VK_ERROR_OUT_OF_DEVICE_MEMORY;
  for (uint32_t i = 0; i < nc; i++) {
    uint32_t si = cand[i] * 2 + (req->optimal ? 1 : 0);
    subpool *sp = &p->subs[si];
    sp_lock(sp);
    r = alloc_in(sp, req, align, out);
    if (r == VK_SUCCESS) sp->used_bytes += req->size;
    else fg_errf(err, errlen, "%s", sp->err[0] ? sp->err : "out of memory");
    sp_unlock(sp);
    if (r == VK_SUCCESS) {
      out->size = req->size;
      out->memory_type = cand[i];
      out->user = req->user;
      out->pool_ = si;
      return VK_SUCCESS;
    }
  }
  return r;
}

void fg_vk_mem_free(fg_vk_mempool *p, fg_vk_allocation *a) {
  if (!a->kind) return;
  subpool *sp = &p->subs[a->pool_];
  sp_lock(sp);
  sp->used_bytes -= a->size;
  if (a->kind == FG_VK_MEM_SLAB) {
    sclass *c = &sp->cls[a->class_];
    page *pg = &c->pages[a->page_];
    pg->free_mask |= 1ull << ((a->offset - pg->ba.offset) >> (a->class_ + SLAB_MIN_LOG2));
    pg->used--;
    sp->n_slab--;
    if (a->page_ != c->cur) {
      if (page_full(c, c->cur)) c->cur = a->page_;   /* allocate from here next */
      else if (pg->used == 0) {
        if (c->empty) release_page(sp, pg);         /* one spare empty page is enough */
        else c->empty++;
      }
    }
  } else if (a->kind == FG_VK_MEM_TLSF) {
    fg_block_free(sp->blocks, &a->block_);
    sp->n_tlsf--;
  } else {
    sp->n_dedicated--;
    VkDeviceSize real = a->block_.size;
    for (uint32_t i = 0; i < sp->nded; i++)
      if (sp->ded[i].mem == a->memory) { sp->ded[i] = sp->ded[--sp->nded]; break; }
    if (sp->ncache == p->d.dedicated_cache && sp->ncache) cache_drop_oldest(sp);
    if (!sp->cache) sp->cache = fg_vk_malloc(p->dev, sizeof(cached) * p->d.dedicated_cache);
    if (sp->cache) {
      sp->cache[sp->ncache++] = (cached){ a->memory, real, a->mapped };
      sp->cache_bytes += real;
      while (sp->cache_bytes > 2 * sp->block_size && sp->ncache > 1) cache_drop_oldest(sp);
    } else {
      dev_free(sp, a->memory, real);
    }
  }
  sp_unlock(sp);
  a->kind = 0;
  a->memory = VK_NULL_HANDLE;
  a->mapped = NULL;
}

void fg_vk_mempool_trim(fg_vk_mempool *p) {
  for (uint32_t i = 0; i < p->ntypes * 2; i++) {
    subpool *sp = &p->subs[i];
    sp_lock(sp);
    while (sp->ncache) cache_drop_oldest(sp);
    for (uint32_t c = 0; c < p->nclass; c++) {
      for (uint32_t k = 0; k < sp->cls[c].n; k++) {
        page *pg = &sp->cls[c].pages[k];
        if (pg->live && pg->used == 0) release_page(sp, pg);
      }
      sp->cls[c].empty = 0;
    }
    if (sp->blocks) fg_block_trim(sp->blocks);
    sp_unlock(sp);
  }
}

void fg_vk_mempool_stats(fg_vk_mempool *p, fg_vk_mem_stats *o) {
  memset(o, 0, sizeof *o);
  VkDeviceSize largest = 0, freeb = 0;
  for (uint32_t i = 0; i < p->ntypes * 2; i++) {
    subpool *sp = &p->subs[i];
    sp_lock(sp);
    o->device_bytes += sp->device_bytes;
    o->device_memories += sp->device_memories;
    o->used_bytes += sp->used_bytes;
    o->slab += sp->n_slab;
    o->tlsf += sp->n_tlsf;
    o->dedicated += sp->n_dedicated;
    o->dedicated_cached += sp->ncache;
    o->device_allocs += sp->device_allocs;
    o->device_frees += sp->device_frees;
    if (sp->blocks) {
      fg_block_stats bs;
      fg_block_stats_get(sp->blocks, &bs);
      if (bs.largest_free > largest) largest = bs.largest_free;
      freeb += bs.block_bytes - bs.used;
    }
    sp_unlock(sp);
  }
  o->allocations = o->slab + o->tlsf + o->dedicated;
  o->fragmentation = freeb ? 1.0 - (double)largest / (double)freeb : 0.0;
}

int fg_vk_mempool_validate(fg_vk_mempool *p, char *err, size_t errlen) {
  int rc = 0;
  for (uint32_t i = 0; i < p->ntypes * 2 && !rc; i++) {
    subpool *sp = &p->subs[i];
    sp_lock(sp);
    if (sp->blocks && fg_block_validate(sp->blocks, err, errlen)) rc = -1;
    for (uint32_t c = 0; c < p->nclass && !rc; c++)
      for (uint32_t k = 0; k < sp->cls[c].n && !rc; k++)
        if (sp->cls[c].pages[k].live &&
            (uint32_t)__builtin_popcountll(~sp->cls[c].pages[k].free_mask) != sp->cls[c].pages[k].used) {
          fg_errf(err, errlen, "memory pool: slab page %u of class %u counts %u used slots, mask says otherwise",
                  k, c, sp->cls[c].pages[k].used);
          rc = -1;
        }
    sp_unlock(sp);
  }
  return rc;
}

void fg_vk_mem_request_flags(fg_vk_mem_request *req, int host_visible, int device_local) {
  req->required = host_visible ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT : 0;
  req->preferred = device_local ? VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT : 0;
}

int fg_vk_mem_result(VkResult r) {
  return r == VK_SUCCESS ? 0 : r == VK_ERROR_FEATURE_NOT_PRESENT ? 1 : -1;
}

/* ---------- statistics and defragmentation planning ---------- */
char *fg_vk_mempool_json(fg_vk_mempool *p) {
  fg_vk_mem_stats st;
  fg_vk_mempool_stats(p, &st);
  fg__sb s = {0};
  s.hooks = &p->dev->hooks;
  fg__sb_printf(&s, "{\"device_bytes\":%llu,\"device_memories\":%u,\"used\":%llu,\"allocation_count\":%llu,"
                    "\"slab\":%llu,\"tlsf\":%llu,\"dedicated\":%llu,\"fragmentation\":%.6f,\"sub_pools\":[",
                (unsigned long long)st.device_bytes, st.device_memories, (unsigned long long)st.used_bytes,
                (unsigned long long)st.allocations, (unsigned long long)st.slab, (unsigned long long)st.tlsf,
                (unsigned long long)st.dedicated, st.fragmentation);
  int first = 1;
  for (uint32_t i = 0; i < p->ntypes * 2; i++) {
    subpool *sp = &p->subs[i];
    sp_lock(sp);
    if (sp->blocks || sp->nded || sp->ncache) {
      fg__sb_printf(&s, "%s{\"memory_type\":%u,\"optimal\":%s,\"block_size\":%llu,\"blocks\":", first ? "" : ",",
                    sp->type, sp->optimal ? "true" : "false", (unsigned long long)sp->block_size);
      if (sp->blocks) fg__block_json_into(&s, sp->blocks);
      else fg__sb_printf(&s, "null");
      fg__sb_printf(&s, ",\"dedicated\":[");
      for (uint32_t k = 0; k < sp->nded; k++)
        fg__sb_printf(&s, "%s{\"size\":%llu}", k ? "," : "", (unsigned long long)sp->ded[k].size);
      fg__sb_printf(&s, "],\"dedicated_cached\":%u}", sp->ncache);
      first = 0;
    }
    sp_unlock(sp);
  }
  fg__sb_printf(&s, "]}");
  return fg__sb_done(&s);
}

typedef struct memof { VkDeviceMemory *mem; uint32_t n; } memof;
static void note_block(void *c, uint32_t index, void *block_user, const fg_allocator *a) {
  memof *m = c;
  if (index < m->n) m->mem[index] = ((vkblock *)block_user)->mem;
}

int fg_vk_mempool_defrag_plan(fg_vk_mempool *p, fg_vk_defrag_move **moves, size_t *count) {
  *moves = NULL;
  *count = 0;
  fg_vk_defrag_move *out = NULL;
  size_t n = 0;
  int rc = 0;
  for (uint32_t i = 0; i < p->ntypes * 2 && !rc; i++) {
    subpool *sp = &p->subs[i];
    sp_lock(sp);
    fg_defrag_move *mv = NULL;
    size_t k = 0;
    if (sp->blocks && fg_block_defrag_plan(sp->blocks, &mv, &k) == 0 && k) {
      uint32_t nb = 0;
      for (size_t j = 0; j < k; j++) {
        if (mv[j].src_block + 1 > nb) nb = mv[j].src_block + 1;
        if (mv[j].dst_block + 1 > nb) nb = mv[j].dst_block + 1;
      }
      memof m = { fg_vk_calloc(p->dev, nb, sizeof(VkDeviceMemory)), nb };
      fg_vk_defrag_move *grown = m.mem ? fg_vk_realloc(p->dev, out, sizeof *out * (n + k)) : NULL;
      if (!grown) rc = -1;
      else {
        out = grown;
        fg_block_each(sp->blocks, note_block, &m);
        for (size_t j = 0; j < k; j++)
          out[n++] = (fg_vk_defrag_move){ sp->type, sp->optimal, m.mem[mv[j].src_block], m.mem[mv[j].dst_block],
                                          mv[j].src_offset, mv[j].dst_offset, mv[j].size, mv[j].user };
      }
      fg_vk_free(p->dev, m.mem);
    }
    if (mv) fg_block_free_result(sp->blocks, mv);
    sp_unlock(sp);
  }
  if (rc) { fg_vk_free(p->dev, out); return -1; }
  *moves = out;
  *count = n;
  return 0;
}

void fg_vk_mempool_free_result(fg_vk_mempool *p, void *result) { fg_vk_free(p->dev, result); }
