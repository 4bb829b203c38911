/* Memory pool on lavapipe with validation: real buffers and optimal images
 * bound to pool allocations (the layer checks alignment, size and type), a
 * seeded random alloc/free sequence checked for overlaps per VkDeviceMemory,
 * mapped writes, the slab/TLSF/dedicated routing, reuse of device memory, and
 * zero validation messages. */
#include "fg_vk_mem.h"
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #c); failures++; } } while (0)

static uint64_t rng = 12345;
static uint64_t rnd(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }

typedef struct live { fg_vk_allocation a; VkBuffer buf; VkImage img; } live;

static void check_no_overlap(live *L, int n, int upto) {
  for (int i = 0; i < upto; i++)
    if (L[i].a.memory == L[n].a.memory &&
        !(L[n].a.offset + L[n].a.size <= L[i].a.offset || L[i].a.offset + L[i].a.size <= L[n].a.offset)) {
      fprintf(stderr, "overlap: [%llu,+%llu) and [%llu,+%llu)\n", (unsigned long long)L[n].a.offset,
              (unsigned long long)L[n].a.size, (unsigned long long)L[i].a.offset, (unsigned long long)L[i].a.size);
      failures++;
      return;
    }
}

static void test_random(fg_vk_device *dev) {
  char err[256] = "";
  fg_vk_mempool_desc pd = { .block_size = 8u << 20 }; /* small blocks so several get made and dropped */
  fg_vk_mempool *p = fg_vk_mempool_create(dev, &pd, err, sizeof err);
  CHECK(p != NULL);
  if (!p) { fprintf(stderr, "%s\n", err); return; }
  enum { OPS = 1500 };
  live *L = calloc(OPS, sizeof *L);
  int n = 0, kinds[4] = {0};
  for (int op = 0; op < OPS; op++) {
    if (n == 0 || rnd() % 100 < 60) {
      live *l = &L[n];
      memset(l, 0, sizeof *l);
      VkMemoryRequirements mr;
      int image = rnd() % 4 == 0;
      if (image) {
        uint32_t w = 1u << (rnd() % 9), h = 1u << (rnd() % 9);
        VkImageCreateInfo ii = { .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
          .format = VK_FORMAT_R8G8B8A8_UNORM, .extent = { w, h, 1 }, .mipLevels = 1, .arrayLayers = 1,
          .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL,
          .usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT, .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED };
        CHECK(vkCreateImage(dev->device, &ii, NULL, &l->img) == VK_SUCCESS);
        vkGetImageMemoryRequirements(dev->device, l->img, &mr);
      } else {
        uint64_t r = rnd() % 100;
        VkDeviceSize size = r < 70 ? 1 + rnd() % 1024 : r < 95 ? 1024 + rnd() % (512u << 10) : (1u << 20) + rnd() % (3u << 20);
        VkBufferCreateInfo bi = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size,
          .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT, .sharingMode = VK_SHARING_MODE_EXCLUSIVE };
        CHECK(vkCreateBuffer(dev->device, &bi, NULL, &l->buf) == VK_SUCCESS);
        vkGetBufferMemoryRequirements(dev->device, l->buf, &mr);
      }
      int host = !image && rnd() % 2;
      fg_vk_mem_request rq = { .size = mr.size, .alignment = mr.alignment, .memory_type_bits = mr.memoryTypeBits,
        .required = host ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT : 0,
        .preferred = host ? 0 : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, .optimal = image };
      VkResult vr = fg_vk_mem_alloc(p, &rq, &l->a, err, sizeof err);
      CHECK(vr == VK_SUCCESS);
      if (vr != VK_SUCCESS) { fprintf(stderr, "%s\n", err); break; }
      CHECK(l->a.offset % mr.alignment == 0 && (mr.memoryTypeBits >> l->a.memory_type & 1));
      kinds[l->a.kind]++;
      if (image) CHECK(vkBindImageMemory(dev->device, l->img, l->a.memory, l->a.offset) == VK_SUCCESS);
      else CHECK(vkBindBufferMemory(dev->device, l->buf, l->a.memory, l->a.offset) == VK_SUCCESS);
      if (host) {
        CHECK(l->a.mapped != NULL);
        if (l->a.mapped) memset(l->a.mapped, 0xab, l->a.size); /* must stay inside its memory */
      }
      check_no_overlap(L, n, n);
      n++;
    } else {
      int i = (int)(rnd() % (uint64_t)n);
      if (L[i].img) vkDestroyImage(dev->device, L[i].img, NULL);
      if (L[i].buf) vkDestroyBuffer(dev->device, L[i].buf, NULL);
      fg_vk_mem_free(p, &L[i].a);
      CHECK(L[i].a.kind == 0);
      L[i] = L[--n];
    }
    if (op % 100 == 0) CHECK(fg_vk_mempool_validate(p, err, sizeof err) == 0);
    if (failures > 10) break;
  }
  fg_vk_mem_stats st;
  fg_vk_mempool_stats(p, &st);
  printf("pool: %llu live (%llu slab, %llu tlsf, %llu dedicated), %u device memories of %llu bytes, %llu vkAllocateMemory so far\n",
         (unsigned long long)st.allocations, (unsigned long long)st.slab, (unsigned long long)st.tlsf,
         (unsigned long long)st.dedicated, st.device_memories, (unsigned long long)st.device_bytes,
         (unsigned long long)st.device_allocs);
  CHECK(st.allocations == (uint64_t)n);
  CHECK(kinds[FG_VK_MEM_SLAB] > 100 && kinds[FG_VK_MEM_TLSF] > 50);
  CHECK(st.device_allocs * 10 < (uint64_t)OPS);  /* sub-allocation: few device allocations */
  while (n) {
    n--;
    if (L[n].img) vkDestroyImage(dev->device, L[n].img, NULL);
    if (L[n].buf) vkDestroyBuffer(dev->device, L[n].buf, NULL);
    fg_vk_mem_free(p, &L[n].a);
  }
  fg_vk_mempool_stats(p, &st);
  CHECK(st.allocations == 0 && st.used_bytes == 0);
  fg_vk_mempool_trim(p);
  fg_vk_mempool_stats(p, &st);
  CHECK(st.device_memories == 0 && st.device_bytes == 0 && st.device_allocs == st.device_frees);
  CHECK(fg_vk_mempool_validate(p, err, sizeof err) == 0);
  free(L);
  fg_vk_mempool_destroy(p);
}

static void test_routing(fg_vk_device *dev) {
  char err[256] = "";
  fg_vk_mempool_desc pd = { .block_size = 16u << 20, .dedicated_cache = 2 };
  fg_vk_mempool *p = fg_vk_mempool_create(dev, &pd, err, sizeof err);
  if (!p) { CHECK(0); return; }
  fg_vk_allocation a, b, c;
  fg_vk_mem_request rq = { .size = 100, .alignment = 16 };
  CHECK(fg_vk_mem_alloc(p, &rq, &a, err, sizeof err) == VK_SUCCESS && a.kind == FG_VK_MEM_SLAB);
  rq.size = 1u << 20;
  CHECK(fg_vk_mem_alloc(p, &rq, &b, err, sizeof err) == VK_SUCCESS && b.kind == FG_VK_MEM_TLSF);
  CHECK(a.memory == b.memory);                    /* slab pages live inside the TLSF blocks */
  rq.size = 5u << 20;                             /* >= block / 4 */
  CHECK(fg_vk_mem_alloc(p, &rq, &c, err, sizeof err) == VK_SUCCESS && c.kind == FG_VK_MEM_DEDICATED && c.offset == 0);
  VkDeviceMemory cm = c.memory;
  fg_vk_mem_free(p, &c);
  CHECK(fg_vk_mem_alloc(p, &rq, &c, err, sizeof err) == VK_SUCCESS && c.memory == cm); /* cached, reused */
  fg_vk_mem_stats st;
  fg_vk_mempool_stats(p, &st);
  CHECK(st.device_allocs == 2 && st.slab == 1 && st.tlsf == 1 && st.dedicated == 1);
  /* misuse and impossible requests say why */
  fg_vk_allocation x;
  rq.alignment = 3;
  CHECK(fg_vk_mem_alloc(p, &rq, &x, err, sizeof err) != VK_SUCCESS && strstr(err, "alignment"));
  rq.alignment = 16;
  rq.memory_type_bits = 0x1;
  rq.required = 0x80000000u;
  CHECK(fg_vk_mem_alloc(p, &rq, &x, err, sizeof err) == VK_ERROR_FEATURE_NOT_PRESENT && strstr(err, "memory type"));
  /* beyond the heap: refused with the reason, before the driver is asked
   * (on every device: a block larger than its heap is invalid usage) */
  printf("memory budget extension: %d\n", dev->has_memory_budget);
  rq = (fg_vk_mem_request){ .size = dev->memprops.memoryHeaps[dev->memprops.memoryTypes[0].heapIndex].size * 2,
                            .memory_type_bits = 1 };
  CHECK(fg_vk_mem_alloc(p, &rq, &x, err, sizeof err) == VK_ERROR_OUT_OF_DEVICE_MEMORY && strstr(err, "heap"));
  fg_vk_mem_free(p, &a);
  fg_vk_mem_free(p, &b);
  fg_vk_mem_free(p, &c);
  fg_vk_mem_free(p, &c); /* zeroed: ignored */
  fg_vk_mempool_destroy(p);
}

/* Several threads allocate host-visible memory at once, each filling its
 * allocations with its own byte and checking it before freeing: an overlap
 * between threads (a race in the pool) shows up as a wrong byte. */
typedef struct tjob { fg_vk_mempool *p; int id, errors; } tjob;
static void *thread_main(void *arg) {
  tjob *j = arg;
  uint64_t s = 0x9E3779B97F4A7C15ull * (uint64_t)(j->id + 1);
  fg_vk_allocation live[64];
  int n = 0;
  for (int op = 0; op < 3000; op++) {
    s ^= s << 13; s ^= s >> 7; s ^= s << 17;
    if (n < 64 && (n == 0 || s % 100 < 55)) {
      VkDeviceSize size = s % 10 ? 1 + (s >> 8) % 2048 : 4096 + (s >> 8) % (256u << 10);
      fg_vk_mem_request rq = { .size = size, .alignment = 64,
                               .required = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT };
      if (fg_vk_mem_alloc(j->p, &rq, &live[n], NULL, 0) != VK_SUCCESS || !live[n].mapped) { j->errors++; continue; }
      memset(live[n].mapped, j->id + 1, size);
      n++;
    } else {
      int i = (int)((s >> 16) % (uint64_t)n);
      const uint8_t *m = live[i].mapped;
      for (VkDeviceSize b = 0; b < live[i].size; b++)
        if (m[b] != j->id + 1) { j->errors++; break; }
      fg_vk_mem_free(j->p, &live[i]);
      live[i] = live[--n];
    }
  }
  while (n) fg_vk_mem_free(j->p, &live[--n]);
  return NULL;
}

static void test_threads(fg_vk_device *dev) {
  char err[256] = "";
  fg_vk_mempool_desc pd = { .block_size = 4u << 20 };
  fg_vk_mempool *p = fg_vk_mempool_create(dev, &pd, err, sizeof err);
  if (!p) { CHECK(0); return; }
  pthread_t th[4];
  tjob jobs[4];
  for (int i = 0; i < 4; i++) { jobs[i] = (tjob){ p, i, 0 }; pthread_create(&th[i], NULL, thread_main, &jobs[i]); }
  for (int i = 0; i < 4; i++) { pthread_join(th[i], NULL); CHECK(jobs[i].errors == 0); }
  fg_vk_mem_stats st;
  fg_vk_mempool_stats(p, &st);
  CHECK(st.allocations == 0 && st.used_bytes == 0);
  CHECK(fg_vk_mempool_validate(p, err, sizeof err) == 0);
  /* a leaked dedicated allocation is freed by destroy (the layer would report it otherwise) */
  fg_vk_allocation leak;
  fg_vk_mem_request rq = { .size = 2u << 20, .dedicated = 1 };
  CHECK(fg_vk_mem_alloc(p, &rq, &leak, err, sizeof err) == VK_SUCCESS && leak.kind == FG_VK_MEM_DEDICATED);
  fg_vk_mempool_destroy(p);
}

/* User data, the JSON dump and a defragmentation plan applied to a model of
 * the pool's blocks (one owner per 256-byte granule). */
static void test_stats_defrag(fg_vk_device *dev) {
  char err[256] = "";
  fg_vk_mempool_desc pd = { .block_size = 4u << 20, .externally_synchronized = 1 };
  fg_vk_mempool *p = fg_vk_mempool_create(dev, &pd, err, sizeof err);
  if (!p) { CHECK(0); return; }
  enum { N = 40 };
  fg_vk_allocation al[N];
  for (int i = 0; i < N; i++) { /* TLSF path: above slab_max, below dedicated_min */
    fg_vk_mem_request rq = { .size = (96u << 10) + (uint64_t)i * 4096, .alignment = 256, .user = 1000 + (uint64_t)i };
    CHECK(fg_vk_mem_alloc(p, &rq, &al[i], err, sizeof err) == VK_SUCCESS);
    CHECK(al[i].kind == FG_VK_MEM_TLSF && al[i].user == 1000 + (uint64_t)i);
  }
  fg_vk_allocation small;
  fg_vk_mem_request sq = { .size = 100, .user = 7 };
  CHECK(fg_vk_mem_alloc(p, &sq, &small, err, sizeof err) == VK_SUCCESS && small.kind == FG_VK_MEM_SLAB);
  for (int i = 0; i < N; i += 2) fg_vk_mem_free(p, &al[i]);
  char *j = fg_vk_mempool_json(p);
  CHECK(j && strstr(j, "\"sub_pools\":[") && strstr(j, "\"free_histogram\":[") && strstr(j, "\"user\":1001}"));
  fg_vk_mempool_free_result(p, j);
  fg_vk_defrag_move *mv = NULL;
  size_t n = 0;
  CHECK(fg_vk_mempool_defrag_plan(p, &mv, &n) == 0 && n > 0);
  for (size_t i = 0; i < n; i++) {
    CHECK(mv[i].src_memory && mv[i].dst_memory && mv[i].dst_offset % 256 == 0);
    CHECK(mv[i].user != UINT64_MAX); /* slab pages are pinned */
    if (mv[i].src_memory == mv[i].dst_memory) CHECK(mv[i].dst_offset < mv[i].src_offset);
    int found = 0; /* each move names a live allocation at its source */
    for (int k = 1; k < N; k += 2)
      if (al[k].memory == mv[i].src_memory && al[k].offset == mv[i].src_offset && al[k].user == mv[i].user) {
        found = 1;
        al[k].offset = mv[i].dst_offset; /* the model: where it would live */
        al[k].memory = mv[i].dst_memory;
      }
    CHECK(found);
  }
  for (int a = 1; a < N; a += 2) /* after the plan, no two overlap */
    for (int b = a + 2; b < N; b += 2)
      if (al[a].memory == al[b].memory)
        CHECK(al[a].offset + al[a].size <= al[b].offset || al[b].offset + al[b].size <= al[a].offset);
  free(mv);
  fg_vk_mempool_destroy(p); /* the model's offsets are not the pool's: destroy frees everything */
}

int main(void) {
  char err[512] = "";
  fg_vk_desc desc = { .validation = 1, .prefer_software = 1 };
  fg_vk_device *dev = fg_vk_create(&desc, err, sizeof err);
  if (!dev) { fprintf(stderr, "no device: %s\n", err); return 1; }
  printf("device: %s, validation %d\n", dev->props.deviceName, dev->validation);
  CHECK(dev->validation == 1);
  test_routing(dev);
  test_random(dev);
  test_threads(dev);
  test_stats_defrag(dev);
  size_t n = 0;
  char **msgs = fg_vk_take_messages(dev, &n);
  for (size_t i = 0; i < n && i < 10; i++) fprintf(stderr, "validation: %s\n", msgs[i]);
  CHECK(n == 0);
  fg_vk_free_messages(msgs, n);
  fg_vk_destroy(dev);
  if (failures) { fprintf(stderr, "%d failures\n", failures); return 1; }
  printf("test_vk_mempool: all passed\n");
  return 0;
}
