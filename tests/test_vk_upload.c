/* Upload ring on lavapipe with validation: several pthreads fill the ring at
 * once for many frames with two frames in flight; the GPU copies every span
 * out and the bytes are checked; segments must be recycled through the
 * timeline semaphore (the frames together need far more than the ring), the
 * ring must refuse when the GPU holds everything, and no validation message
 * may appear. */
#include "fg_vk_mem.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #c); failures++; } } while (0)

#define THREADS 4
#define PER_THREAD 60
#define FRAMES 24
#define MAXSPANS (THREADS * PER_THREAD)

typedef struct span { VkDeviceSize offset, size; uint32_t seed; } span;
typedef struct job { fg_upload_ring *ring; uint32_t thread; uint64_t frame; span spans[PER_THREAD]; int n, errors; } job;

static uint8_t pattern(uint32_t seed, VkDeviceSize i) { return (uint8_t)((seed * 2654435761u + i * 40503u) >> 7); }

static uint32_t lcg(uint32_t *s) { *s = *s * 1664525u + 1013904223u; return *s >> 8; }

static void *worker(void *arg) {
  job *j = arg;
  uint32_t rs = (uint32_t)(j->frame * 131 + j->thread * 7 + 1);
  j->n = 0;
  for (int i = 0; i < PER_THREAD; i++) {
    VkDeviceSize size = 1 + lcg(&rs) % 2000;
    if (i % 29 == 28) size = 20000 + lcg(&rs) % 30000;  /* spans several segments */
    VkDeviceSize align = (VkDeviceSize)1 << (lcg(&rs) % 9);
    fg_upload_span sp;
    char err[256];
    if (fg_upload_alloc(j->ring, j->thread, size, align, &sp, err, sizeof err)) {
      fprintf(stderr, "thread %u frame %llu: %s\n", j->thread, (unsigned long long)j->frame, err);
      j->errors++;
      continue;
    }
    if (sp.offset % align || sp.size != size) j->errors++;
    uint32_t seed = (uint32_t)(j->frame * 100000 + j->thread * 1000 + (uint32_t)i);
    for (VkDeviceSize b = 0; b < size; b++) ((uint8_t *)sp.ptr)[b] = pattern(seed, b);
    j->spans[j->n++] = (span){ sp.offset, size, seed };
  }
  return NULL;
}

static int cmp_span(const void *a, const void *b) {
  const span *x = a, *y = b;
  return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static void test_threads(fg_vk_device *dev) {
  char err[256] = "";
  fg_upload_desc ud = { .size = 2u << 20, .segment_size = 16u << 10, .threads = THREADS };
  fg_upload_ring *ring = fg_upload_create(dev, &ud, err, sizeof err);
  CHECK(ring != NULL);
  if (!ring) { fprintf(stderr, "%s\n", err); return; }
  VkCommandPoolCreateInfo pi = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                 .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, .queueFamilyIndex = dev->queue_family };
  VkCommandPool pool;
  CHECK(vkCreateCommandPool(dev->device, &pi, NULL, &pool) == VK_SUCCESS);
  VkCommandBuffer cmd[2];
  VkCommandBufferAllocateInfo ci = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = pool,
                                     .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 2 };
  CHECK(vkAllocateCommandBuffers(dev->device, &ci, cmd) == VK_SUCCESS);
  fg_vk_host_buffer dst[2];
  for (int i = 0; i < 2; i++)
    CHECK(fg_vk_host_buffer_create(dev, 1u << 20, VK_BUFFER_USAGE_TRANSFER_DST_BIT, 1, &dst[i], err, sizeof err) == 1);
  static span spans[2][MAXSPANS];
  int nspans[2] = {0, 0};
  VkDeviceSize total_bytes = 0;
  job jobs[THREADS];

  for (uint64_t f = 1; f <= FRAMES; f++) {
    int slot = (int)(f % 2);
    CHECK(fg_upload_frame(ring) == f);
    if (f > 2) { /* frame f-2 used this command buffer and destination: check it */
      CHECK(fg_upload_wait(ring, f - 2, 5000000000ull) == 0);
      VkDeviceSize at = 0;
      int bad = 0;
      for (int i = 0; i < nspans[slot]; i++) {
        const uint8_t *p = (const uint8_t *)dst[slot].map + at;
        for (VkDeviceSize b = 0; b < spans[slot][i].size && !bad; b++)
          if (p[b] != pattern(spans[slot][i].seed, b)) bad = 1;
        at += spans[slot][i].size;
      }
      CHECK(!bad);
    }
    pthread_t th[THREADS];
    for (uint32_t t = 0; t < THREADS; t++) {
      jobs[t] = (job){ .ring = ring, .thread = t, .frame = f };
      pthread_create(&th[t], NULL, worker, &jobs[t]);
    }
    int n = 0;
    for (uint32_t t = 0; t < THREADS; t++) {
      pthread_join(th[t], NULL);
      CHECK(jobs[t].errors == 0);
      for (int i = 0; i < jobs[t].n; i++) spans[slot][n++] = jobs[t].spans[i];
    }
    nspans[slot] = n;
    /* no two spans of the frame overlap, all inside the ring */
    span sorted[MAXSPANS];
    memcpy(sorted, spans[slot], sizeof(span) * (size_t)n);
    qsort(sorted, (size_t)n, sizeof(span), cmp_span);
    for (int i = 0; i < n; i++) {
      CHECK(sorted[i].offset + sorted[i].size <= ud.size);
      if (i) CHECK(sorted[i - 1].offset + sorted[i - 1].size <= sorted[i].offset);
    }
    /* GPU copies every span to dst[slot], packed, and signals frame f */
    VkBufferCopy regions[MAXSPANS];
    VkDeviceSize at = 0;
    for (int i = 0; i < n; i++) {
      regions[i] = (VkBufferCopy){ spans[slot][i].offset, at, spans[slot][i].size };
      at += spans[slot][i].size;
      total_bytes += spans[slot][i].size;
    }
    CHECK(at <= dst[slot].size);
    VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                    .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT };
    vkResetCommandBuffer(cmd[slot], 0);
    vkBeginCommandBuffer(cmd[slot], &bi);
    vkCmdCopyBuffer(cmd[slot], fg_upload_buffer(ring), dst[slot].buffer, (uint32_t)n, regions);
    VkBufferMemoryBarrier2 bar = { .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2,
      .srcStageMask = VK_PIPELINE_STAGE_2_COPY_BIT, .srcAccessMask = VK_ACCESS_2_TRANSFER_WRITE_BIT,
      .dstStageMask = VK_PIPELINE_STAGE_2_HOST_BIT, .dstAccessMask = VK_ACCESS_2_HOST_READ_BIT,
      .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
      .buffer = dst[slot].buffer, .offset = 0, .size = VK_WHOLE_SIZE };
    VkDependencyInfo dep = { .sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .bufferMemoryBarrierCount = 1, .pBufferMemoryBarriers = &bar };
    vkCmdPipelineBarrier2(cmd[slot], &dep);
    vkEndCommandBuffer(cmd[slot]);
    VkCommandBufferSubmitInfo cs = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO, .commandBuffer = cmd[slot] };
    VkSemaphoreSubmitInfo ss = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO, .semaphore = fg_upload_semaphore(ring),
                                 .value = f, .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT };
    VkSubmitInfo2 si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2, .commandBufferInfoCount = 1, .pCommandBufferInfos = &cs,
                         .signalSemaphoreInfoCount = 1, .pSignalSemaphoreInfos = &ss };
    CHECK(vkQueueSubmit2(dev->queue, 1, &si, VK_NULL_HANDLE) == VK_SUCCESS);
    CHECK(fg_upload_next_frame(ring) == f + 1);
    if (failures > 10) break;
  }
  CHECK(fg_upload_wait(ring, FRAMES, 5000000000ull) == 0);
  fg_upload_stats st;
  fg_upload_stats_get(ring, &st);
  CHECK(st.allocations == (uint64_t)THREADS * PER_THREAD * FRAMES);
  CHECK(st.bytes == total_bytes);
  CHECK(total_bytes > 4 * ud.size);          /* only possible if segments came back */
  CHECK(st.completed == FRAMES);
  printf("upload ring: %llu allocations, %llu bytes through a %llu-byte ring, %llu segment acquires\n",
         (unsigned long long)st.allocations, (unsigned long long)st.bytes, (unsigned long long)ud.size,
         (unsigned long long)st.segment_acquires);
  /* bad arguments are refused with a message */
  fg_upload_span sp;
  CHECK(fg_upload_alloc(ring, THREADS, 16, 16, &sp, err, sizeof err) == -1 && strstr(err, "thread"));
  CHECK(fg_upload_alloc(ring, 0, 16, 3, &sp, err, sizeof err) == -1);
  CHECK(fg_upload_alloc(ring, 0, ud.size + 1, 16, &sp, err, sizeof err) == -1);
  vkQueueWaitIdle(dev->queue);
  for (int i = 0; i < 2; i++) fg_vk_host_buffer_destroy(dev, &dst[i]);
  vkDestroyCommandPool(dev->device, pool, NULL);
  fg_upload_destroy(ring);
}

/* The GPU has not finished anything: the ring must refuse, then recover once
 * the semaphore moves (signalled from the host here). */
static void test_full(fg_vk_device *dev) {
  char err[256] = "";
  fg_upload_desc ud = { .size = 4096, .segment_size = 1024, .threads = 2 };
  fg_upload_ring *ring = fg_upload_create(dev, &ud, err, sizeof err);
  CHECK(ring != NULL);
  if (!ring) return;
  fg_upload_span sp;
  int ok = 0;
  for (int f = 0; f < 3; f++) { /* frames 1..3: 1 + 1 + 2 segments */
    ok += fg_upload_alloc(ring, 0, 1000, 16, &sp, err, sizeof err) == 0;
    if (f == 2) ok += fg_upload_alloc(ring, 1, 1000, 16, &sp, err, sizeof err) == 0;
    fg_upload_next_frame(ring);
  }
  CHECK(ok == 4);
  /* frame 4: slot 0 must retire its frame-3 segment and find nothing free */
  CHECK(fg_upload_alloc(ring, 0, 10, 16, &sp, err, sizeof err) == -1 && strstr(err, "ring full"));
  VkSemaphoreSignalInfo si = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO, .semaphore = fg_upload_semaphore(ring), .value = 2 };
  CHECK(vkSignalSemaphore(dev->device, &si) == VK_SUCCESS);
  CHECK(fg_upload_alloc(ring, 0, 1024, 1024, &sp, err, sizeof err) == 0); /* frames 1-2 came back */
  CHECK(fg_upload_alloc(ring, 0, 2048, 16, &sp, err, sizeof err) == -1);   /* no two adjacent free yet */
  si.value = 4;
  CHECK(vkSignalSemaphore(dev->device, &si) == VK_SUCCESS);
  fg_upload_next_frame(ring);
  fg_upload_stats st;
  fg_upload_stats_get(ring, &st);
  CHECK(st.completed == 4 && st.free_segments >= 2);
  si.value = 5;
  CHECK(vkSignalSemaphore(dev->device, &si) == VK_SUCCESS);
  fg_upload_destroy(ring);
}

int main(void) {
  char err[512] = "";
  fg_vk_desc desc = { .validation = 1, .prefer_software = 1 };
  fg_vk_device *dev = fg_vk_create(&desc, err, sizeof err);
  if (!dev) { fprintf(stderr, "no device: %s\n", err); return 1; }
  printf("device: %s, validation %d\n", dev->props.deviceName, dev->validation);
  CHECK(dev->validation == 1); /* zero messages only means something with the layer on */
  test_threads(dev);
  test_full(dev);
  size_t n = 0;
  char **msgs = fg_vk_take_messages(dev, &n);
  for (size_t i = 0; i < n; i++) fprintf(stderr, "validation: %s\n", msgs[i]);
  CHECK(n == 0);
  fg_vk_free_messages(msgs, n);
  fg_vk_destroy(dev);
  if (failures) { fprintf(stderr, "%d failures\n", failures); return 1; }
  printf("test_vk_upload: all passed\n");
  return 0;
}
