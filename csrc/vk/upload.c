/* Per-frame upload ring (the "dynamic GPU memory" of the per-frame article):
 * a persistently mapped host-visible buffer cut into segments; each thread
 * slot owns one segment and bumps inside it without locks; full or stale
 * segments are retired with their frame number and come back when the ring's
 * timeline semaphore shows the GPU finished that frame. See fg_vk_mem.h. */
#include "fg_vk_mem.h"
#include "fg_util.h"
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum { SEG_FREE = 0, SEG_OWNED, SEG_RETIRED };
#define NIL UINT32_MAX

typedef struct seg { uint64_t frame; uint32_t state; } seg;

/* One cache line per slot: slots are written by different threads. */
typedef struct slot {
  uint32_t seg;                  /* owned segment or NIL */
  uint64_t frame;                /* frame the segment serves */
  VkDeviceSize head, end;
  _Atomic uint64_t allocations, bytes;
  char pad[16];
} __attribute__((aligned(64))) slot;

struct fg_upload_ring {
  fg_vk_device *dev;
  VkBuffer buffer;
  VkDeviceMemory memory;
  char *map;
  VkSemaphore sem;
  VkDeviceSize size, segsize;
  uint32_t nseg, nthreads, cursor;
  seg *segs;
  slot *slots;
  _Atomic uint64_t frame;
  pthread_mutex_t lock;
  uint64_t acquires, waits;      /* under lock */
};

fg_upload_ring *fg_upload_create(fg_vk_device *dev, const fg_upload_desc *desc, char *err, size_t errlen) {
  fg_upload_desc d = {0};
  if (desc) d = *desc;
  if (!d.size) d.size = 16u << 20;
  if (!d.segment_size) d.segment_size = 256u << 10;
  if (!d.threads) d.threads = 16;
  if (!d.usage) d.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_VERTEX_BUFFER_BIT |
                          VK_BUFFER_USAGE_INDEX_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT |
                          VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  if (d.segment_size < 256 || (d.segment_size & (d.segment_size - 1)) || d.size < d.segment_size) {
    fg_errf(err, errlen, "upload ring: segment_size must be a power of two >= 256 and <= size (got %llu, size %llu)",
            (unsigned long long)d.segment_size, (unsigned long long)d.size);
    return NULL;
  }
  if (d.size / d.segment_size > (1u << 24)) {
    fg_errf(err, errlen, "upload ring: %llu bytes in segments of %llu make more than 2^24 segments; choose a smaller "
            "size or larger segments", (unsigned long long)d.size, (unsigned long long)d.segment_size);
    return NULL;
  }
  fg_upload_ring *r = fg_vk_calloc(dev, 1, sizeof *r);
  if (!r) { fg_errf(err, errlen, "out of host memory"); return NULL; }
  r->dev = dev;
  r->segsize = d.segment_size;
  r->nseg = (uint32_t)(d.size / d.segment_size);
  r->size = (VkDeviceSize)r->nseg * r->segsize;
  r->nthreads = d.threads;
  r->segs = fg_vk_calloc(dev, r->nseg, sizeof(seg));
  r->slots = aligned_alloc(64, sizeof(slot) * r->nthreads);
  pthread_mutex_init(&r->lock, NULL);
  atomic_init(&r->frame, 1);
  if (!r->segs || !r->slots) { fg_errf(err, errlen, "out of host memory"); goto fail; }
  memset(r->slots, 0, sizeof(slot) * r->nthreads);
  for (uint32_t i = 0; i < r->nthreads; i++) r->slots[i].seg = NIL;

  /* A ring larger than every host-visible heap cannot be allocated; asking
   * the driver anyway crashed lavapipe (a 2^62-byte vkAllocateMemory). */
  VkDeviceSize largest = 0;
  for (uint32_t t = 0; t < dev->memprops.memoryTypeCount; t++) {
    const VkMemoryType *mt = &dev->memprops.memoryTypes[t];
    if ((mt->propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) &&
        dev->memprops.memoryHeaps[mt->heapIndex].size > largest)
      largest = dev->memprops.memoryHeaps[mt->heapIndex].size;
  }
  if (r->size > largest / 2) {
    fg_errf(err, errlen, "upload ring: %llu bytes do not fit the device's host-visible memory (largest heap %llu "
            "bytes; the ring may take at most half of it): choose a smaller opts.upload_bytes",
            (unsigned long long)r->size, (unsigned long long)largest);
    goto fail;
  }
  VkBufferCreateInfo bi = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = r->size, .usage = d.usage,
                            .sharingMode = VK_SHARING_MODE_EXCLUSIVE };
  VkResult vr = vkCreateBuffer(dev->device, &bi, dev->vkalloc, &r->buffer);
  if (vr != VK_SUCCESS) { fg_errf(err, errlen, "upload ring: vkCreateBuffer failed: %d", (int)vr); goto fail; }
  VkMemoryRequirements mr;
  vkGetBufferMemoryRequirements(dev->device, r->buffer, &mr);
  int type = fg_vk_find_memory_type(dev, mr.memoryTypeBits,
                                    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
  if (type < 0) { fg_errf(err, errlen, "upload ring: no host-visible coherent memory type"); goto fail; }
  if (mr.size > dev->memprops.memoryHeaps[dev->memprops.memoryTypes[type].heapIndex].size) {
    fg_errf(err, errlen, "upload ring: %llu bytes exceed the host-visible heap", (unsigned long long)mr.size);
    goto fail;
  }
  VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = mr.size,
                              .memoryTypeIndex = (uint32_t)type };
  vr = vkAllocateMemory(dev->device, &ai, dev->vkalloc, &r->memory);
  if (vr != VK_SUCCESS) { fg_errf(err, errlen, "upload ring: vkAllocateMemory(%llu) failed: %d", (unsigned long long)mr.size, (int)vr); goto fail; }
  vr = vkBindBufferMemory(dev->device, r->buffer, r->memory, 0);
  void *m = NULL;
  if (vr == VK_SUCCESS) vr = vkMapMemory(dev->device, r->memory, 0, VK_WHOLE_SIZE, 0, &m);
  if (vr != VK_SUCCESS) { fg_errf(err, errlen, "upload ring: bind/map failed: %d", (int)vr); goto fail; }
  r->map = m;
  VkSemaphoreTypeCreateInfo ti = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                   .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE, .initialValue = 0 };
  VkSemaphoreCreateInfo si = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &ti };
  vr = vkCreateSemaphore(dev->device, &si, dev->vkalloc, &r->sem);
  if (vr != VK_SUCCESS) { fg_errf(err, errlen, "upload ring: timeline semaphore failed: %d", (int)vr); goto fail; }
  fg_vk_retain(dev);
  return r;
fail:
  if (r->sem) vkDestroySemaphore(dev->device, r->sem, dev->vkalloc);
  if (r->buffer) vkDestroyBuffer(dev->device, r->buffer, dev->vkalloc);
  if (r->memory) vkFreeMemory(dev->device, r->memory, dev->vkalloc);
  fg_vk_free(dev, r->segs);
  free(r->slots);
  pthread_mutex_destroy(&r->lock);
  fg_vk_free(dev, r);
  return NULL;
}

void fg_upload_destroy(fg_upload_ring *r) {
  if (!r) return;
  /* the GPU may still read segments of frames it has not finished */
  uint64_t last = 0;
  for (uint32_t i = 0; i < r->nseg; i++)
    if (r->segs[i].state != SEG_FREE && r->segs[i].frame > last) last = r->segs[i].frame;
  if (last) fg_upload_wait(r, last, 2000000000ull);
  VkDevice d = r->dev->device;
  const VkAllocationCallbacks *ac = r->dev->vkalloc;
  vkDestroySemaphore(d, r->sem, ac);
  vkDestroyBuffer(d, r->buffer, ac);
  vkFreeMemory(d, r->memory, ac);
  fg_vk_device *dev = r->dev;
  fg_vk_free(dev, r->segs);
  free(r->slots);
  pthread_mutex_destroy(&r->lock);
  fg_vk_free(dev, r);
  fg_vk_release(dev);
}

VkBuffer fg_upload_buffer(const fg_upload_ring *r) { return r->buffer; }
VkSemaphore fg_upload_semaphore(const fg_upload_ring *r) { return r->sem; }
uint64_t fg_upload_frame(const fg_upload_ring *r) { return atomic_load(&((fg_upload_ring *)r)->frame); }

static uint64_t completed(fg_upload_ring *r) {
  uint64_t v = 0;
  vkGetSemaphoreCounterValue(r->dev->device, r->sem, &v);
  return v;
}

/* Under lock: retired segments of finished frames become free. */
static void recycle(fg_upload_ring *r) {
  uint64_t done = completed(r);
  for (uint32_t i = 0; i < r->nseg; i++)
    if (r->segs[i].state == SEG_RETIRED && r->segs[i].frame <= done) r->segs[i].state = SEG_FREE;
}

/* Under lock: first index of k adjacent free segments (searching from the cursor), or NIL. */
static uint32_t find_run(fg_upload_ring *r, uint32_t k) {
  for (uint32_t n = 0; n < r->nseg; n++) {
    uint32_t i = (r->cursor + n) % r->nseg, j;
    if (i + k > r->nseg) continue;
    for (j = 0; j < k && r->segs[i + j].state == SEG_FREE; j++) {}
    if (j == k) { r->cursor = (i + k) % r->nseg; return i; }
  }
  return NIL;
}

int fg_upload_alloc(fg_upload_ring *r, uint32_t thread, VkDeviceSize size, VkDeviceSize align,
                    fg_upload_span *out, char *err, size_t errlen) {
  if (!align) align = 16;
  if (thread >= r->nthreads || size == 0 || (align & (align - 1)) || align > r->segsize) {
    fg_errf(err, errlen, "fg_upload_alloc: need thread < %u, size > 0 and a power-of-two align <= %llu "
            "(got thread %u, size %llu, align %llu)", r->nthreads, (unsigned long long)r->segsize,
            thread, (unsigned long long)size, (unsigned long long)align);
    return -1;
  }
  slot *s = &r->slots[thread];
  uint64_t f = atomic_load_explicit(&r->frame, memory_order_acquire);
  if (s->seg != NIL && s->frame == f) { /* fast path: bump inside the owned segment */
    VkDeviceSize off = (s->head + align - 1) & ~(align - 1);
    if (off + size <= s->end) {
      s->head = off + size;
      out->ptr = r->map + off;
      out->offset = off;
      out->size = size;
      atomic_store_explicit(&s->allocations, atomic_load_explicit(&s->allocations, memory_order_relaxed) + 1, memory_order_relaxed);
      atomic_store_explicit(&s->bytes, atomic_load_explicit(&s->bytes, memory_order_relaxed) + size, memory_order_relaxed);
      return 0;
    }
  }
  uint64_t k64 = (size + r->segsize - 1) / r->segsize;
  if (k64 > r->nseg) {
    fg_errf(err, errlen, "fg_upload_alloc: %llu bytes exceed the ring of %llu bytes",
            (unsigned long long)size, (unsigned long long)r->size);
    return -1;
  }
  uint32_t k = (uint32_t)k64;
  pthread_mutex_lock(&r->lock);
  if (s->seg != NIL) { /* full or from an older frame: wait for the GPU with its frame */
    r->segs[s->seg].state = SEG_RETIRED;
    r->segs[s->seg].frame = s->frame;
    s->seg = NIL;
  }
  uint32_t i = find_run(r, k);
  if (i == NIL) { recycle(r); i = find_run(r, k); }
  if (i == NIL) {
    uint64_t done = completed(r);
    r->waits++;
    pthread_mutex_unlock(&r->lock);
    fg_errf(err, errlen, "upload ring full: no %u free segment(s) of %llu bytes; the GPU has finished frame %llu "
            "of %llu (signal the ring semaphore, wait, or create a larger ring)",
            k, (unsigned long long)r->segsize, (unsigned long long)done, (unsigned long long)f);
    return -1;
  }
  r->acquires++;
  VkDeviceSize start = (VkDeviceSize)i * r->segsize;
  if (k == 1) {
    r->segs[i].state = SEG_OWNED;
    r->segs[i].frame = f;
    s->seg = i;
    s->frame = f;
    s->head = start + size; /* start is aligned: align <= segsize, both powers of two */
    s->end = start + r->segsize;
  } else { /* several segments for one request: they serve this frame only */
    for (uint32_t j = 0; j < k; j++) { r->segs[i + j].state = SEG_RETIRED; r->segs[i + j].frame = f; }
  }
  pthread_mutex_unlock(&r->lock);
  out->ptr = r->map + start;
  out->offset = start;
  out->size = size;
  atomic_fetch_add_explicit(&s->allocations, 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&s->bytes, size, memory_order_relaxed);
  return 0;
}

uint64_t fg_upload_next_frame(fg_upload_ring *r) {
  pthread_mutex_lock(&r->lock);
  uint64_t f = atomic_load(&r->frame) + 1;
  atomic_store_explicit(&r->frame, f, memory_order_release);
  recycle(r);
  pthread_mutex_unlock(&r->lock);
  return f;
}

int fg_upload_wait(fg_upload_ring *r, uint64_t value, uint64_t timeout_ns) {
  VkSemaphoreWaitInfo wi = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO, .semaphoreCount = 1,
                             .pSemaphores = &r->sem, .pValues = &value };
  return vkWaitSemaphores(r->dev->device, &wi, timeout_ns) == VK_SUCCESS ? 0 : -1;
}

void fg_upload_stats_get(fg_upload_ring *r, fg_upload_stats *o) {
  memset(o, 0, sizeof *o);
  pthread_mutex_lock(&r->lock);
  o->frame = atomic_load(&r->frame);
  o->completed = completed(r);
  o->segments = r->nseg;
  for (uint32_t i = 0; i < r->nseg; i++) {
    if (r->segs[i].state == SEG_FREE) o->free_segments++;
    else if (r->segs[i].state == SEG_RETIRED) o->retired_segments++;
  }
  o->segment_acquires = r->acquires;
  o->waits = r->waits;
  pthread_mutex_unlock(&r->lock);
  for (uint32_t t = 0; t < r->nthreads; t++) {
    o->allocations += atomic_load_explicit(&r->slots[t].allocations, memory_order_relaxed);
    o->bytes += atomic_load_explicit(&r->slots[t].bytes, memory_order_relaxed);
  }
}
