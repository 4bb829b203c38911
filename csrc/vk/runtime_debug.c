/* What GPU tools see of a runtime: per-instance GPU time from timestamp
 * queries, and the debug names of its images, buffers and heaps (the pass
 * labels are recorded in runtime_frame.c through names.c).
 *
 * Timestamps: a ring of three query pools, frame n in pool n % 3. One query before the first instance's
 * barriers and one after each instance's last command, all at ALL_COMMANDS
 * (written once every earlier command is done): an instance runs from the
 * previous boundary to its own, so on one queue the instances partition the
 * frame, and n + 1 queries (not 2n) keep the recording cost down.
 * Nothing is read while frames record (reading results is slow on lavapipe):
 * fg_rt_get_timings reads, with vkGetQueryPoolResults without WAIT, the newest
 * pool whose frame the timeline semaphore says has finished. Between frames
 * the pools hold frames n-1, n-2 and n-3, and frame n-3 has always finished
 * (recording frame n-1 waited for it), so there is always one to read. */
#include "runtime_internal.h"
#include "fg_util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* CPU memory through the device's hooks, as runtime.c: `rt` is at hand. */
#define calloc(c, n) fg_vk_calloc(rt->dev, (c), (n))
#define free(p) fg_vk_free(rt->dev, (p))

#define TS_NONE UINT64_MAX

int fg_rt_timestamps_supported(const fg_rt *rt) {
  return rt->dev->timestamp_valid_bits != 0 && rt->dev->props.limits.timestampComputeAndGraphics;
}

static int ts_on(const fg_rt *rt) { return !rt->desc.no_timestamps && fg_rt_timestamps_supported(rt); }

void rt_debug_free(fg_rt *rt) {
  for (int i = 0; i < FG_RT_TS_RING; i++) {
    if (rt->ts_pool[i]) vkDestroyQueryPool(rt->dev->device, rt->ts_pool[i], rt->dev->vkalloc);
    rt->ts_pool[i] = VK_NULL_HANDLE;
  }
  free(rt->ts_ms); free(rt->ts_raw);
  rt->ts_ms = NULL; rt->ts_raw = NULL;
  rt->ts_pool_size = 0;
  rt->ts_count = 0;
  rt->ts_done = 0;
}

/* "gbuffer.albedo[eye=2] f1": the resource, its multiplex index (1-based, as
 * instance names count) and its frame copy. */
static void resource_label(const fg_rt *rt, const fg_graph_resource *gr, char *buf, size_t len) {
  int n = snprintf(buf, len, "%s", gr->name);
  uint32_t nd = fg_graph_dim_count(rt->g), first = 1;
  for (uint32_t d = 0; d < nd && n > 0 && (size_t)n < len; d++) {
    if (!(gr->mode & (1u << d))) continue;
    n += snprintf(buf + n, len - (size_t)n, "%s%s=%u", first ? "[" : ",", fg_graph_dim_name(rt->g, d),
                  gr->index[d] + 1);
    first = 0;
  }
  if (!first && n > 0 && (size_t)n < len) n += snprintf(buf + n, len - (size_t)n, "]");
  if (n > 0 && (size_t)n < len) snprintf(buf + n, len - (size_t)n, " f%u", gr->frame);
}

/* After a (re)build, with nothing in flight: names, and query pools sized for
 * the plan. Timings of the previous plan are dropped (its instances are gone). */
int rt_debug_build(fg_rt *rt) {
  fg_vk_device *dev = rt->dev;
  char name[256];
  for (uint32_t i = 0; i < rt->nres && dev->set_object_name; i++) {
    const fg_rt_res *r = &rt->res[i];
    if (r->is_external || r->is_blob) continue;
    resource_label(rt, r->g, name, sizeof name);
    if (r->image) fg_vk_name_object(dev, VK_OBJECT_TYPE_IMAGE, (uint64_t)r->image, name);
    if (r->view) fg_vk_name_object(dev, VK_OBJECT_TYPE_IMAGE_VIEW, (uint64_t)r->view, name);
    if (r->buffer) fg_vk_name_object(dev, VK_OBJECT_TYPE_BUFFER, (uint64_t)r->buffer, name);
  }
  for (uint32_t h = 0; h < rt->heap_count && dev->set_object_name; h++) {
    snprintf(name, sizeof name, "framegraph heap %u (memory type %u)", h, rt->mem_type[h]);
    fg_vk_name_object(dev, VK_OBJECT_TYPE_DEVICE_MEMORY, (uint64_t)rt->mem[h], name);
  }
  for (int i = 0; i < FG_RT_TS_RING; i++) rt->ts_frame[i] = TS_NONE;
  rt->ts_done = 0;
  rt->ts_count = 0;
  if (!ts_on(rt) || !rt->ninst) return 0;
  uint32_t need = rt->ninst + 1;
  if (rt->ts_pool_size < need) {
    for (int i = 0; i < FG_RT_TS_RING; i++) {
      if (rt->ts_pool[i]) vkDestroyQueryPool(dev->device, rt->ts_pool[i], dev->vkalloc);
      rt->ts_pool[i] = VK_NULL_HANDLE;
    }
    rt->ts_pool_size = 0;
    free(rt->ts_ms); free(rt->ts_raw);
    rt->ts_ms = calloc(rt->ninst, sizeof *rt->ts_ms);
    rt->ts_raw = calloc(need, sizeof *rt->ts_raw);
    if (!rt->ts_ms || !rt->ts_raw) return -1;
    VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                .queryType = VK_QUERY_TYPE_TIMESTAMP, .queryCount = need};
    for (int i = 0; i < FG_RT_TS_RING; i++) {
      if (vkCreateQueryPool(dev->device, &qi, dev->vkalloc, &rt->ts_pool[i]) != VK_SUCCESS) return -1;
      snprintf(name, sizeof name, "framegraph timestamps %d", i);
      fg_vk_name_object(dev, VK_OBJECT_TYPE_QUERY_POOL, (uint64_t)rt->ts_pool[i], name);
    }
    rt->ts_pool_size = need;
  }
  return 0;
}

/* Reads pool p if its frame has finished and is newer than the cached one. */
static void collect(fg_rt *rt, uint32_t p) {
  if (p >= FG_RT_TS_RING) return;
  uint64_t f = rt->ts_frame[p];
  if (f == TS_NONE || f + 1 <= rt->ts_done || !rt->ts_pool[p]) return;
  uint64_t done = 0;
  if (vkGetSemaphoreCounterValue(rt->dev->device, rt->timeline, &done) != VK_SUCCESS || done < f + 1) return;
  uint32_t n = rt->ninst;
  if (!n || n + 1 > rt->ts_pool_size) return;
  if (vkGetQueryPoolResults(rt->dev->device, rt->ts_pool[p], 0, n + 1, (n + 1) * sizeof *rt->ts_raw, rt->ts_raw,
                            sizeof *rt->ts_raw, VK_QUERY_RESULT_64_BIT) != VK_SUCCESS)
    return;
  uint32_t bits = rt->dev->timestamp_valid_bits;
  uint64_t mask = bits >= 64 ? UINT64_MAX : (((uint64_t)1 << bits) - 1);
  double tick_ms = (double)rt->dev->props.limits.timestampPeriod / 1e6;
  /* differences modulo 2^bits: a counter that wrapped mid-frame still gives
   * the right (small) interval */
  for (uint32_t s = 0; s < n; s++)
    rt->ts_ms[s] = (double)((rt->ts_raw[s + 1] - rt->ts_raw[s]) & mask) * tick_ms;
  rt->ts_frame_ms = (double)((rt->ts_raw[n] - rt->ts_raw[0]) & mask) * tick_ms;
  rt->ts_count = n;
  rt->ts_done = f + 1;
}

void rt_debug_frame_begin(fg_rt *rt, VkCommandBuffer cmd, uint64_t frame) {
  if (!rt->ts_pool_size) return;
  uint32_t p = (uint32_t)(frame % FG_RT_TS_RING);
  rt->ts_cur = p;
  rt->ts_frame[p] = TS_NONE;  /* frame - 3, finished: its data go now */
  vkCmdResetQueryPool(cmd, rt->ts_pool[p], 0, rt->ninst + 1);
}

void rt_debug_timestamp(fg_rt *rt, VkCommandBuffer cmd, uint32_t slot, int end) {
  if (!rt->ts_pool_size || (!end && slot)) return;  /* instance s starts where s - 1 ended */
  vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, rt->ts_pool[rt->ts_cur], end ? slot + 1 : 0);
}

void rt_debug_frame_submitted(fg_rt *rt, uint64_t frame) {
  if (rt->ts_pool_size) rt->ts_frame[frame % FG_RT_TS_RING] = frame;
}

int fg_rt_get_timings(fg_rt *rt, fg_rt_timings *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  if (!fg_rt_timestamps_supported(rt)) {
    fg_errf(err, errlen, "timestamps unsupported on %s (%s)", rt->dev->props.deviceName,
            rt->dev->timestamp_valid_bits ? "timestampComputeAndGraphics is false"
                                          : "its queue family has timestampValidBits = 0");
    return -1;
  }
  if (rt->desc.no_timestamps) {
    fg_errf(err, errlen, "timestamps are off (runtime option timestamps = false)");
    return -1;
  }
  /* the newest finished frame: try the pools newest first; collect() skips
   * frames not finished or not newer than the one already read */
  uint32_t tried = 0;
  for (int k = 0; k < FG_RT_TS_RING; k++) {
    uint32_t best = FG_RT_TS_RING;
    for (uint32_t i = 0; i < FG_RT_TS_RING; i++)
      if (rt->ts_frame[i] != TS_NONE && !(tried >> i & 1) &&
          (best == FG_RT_TS_RING || rt->ts_frame[i] > rt->ts_frame[best]))
        best = i;
    if (best == FG_RT_TS_RING || rt->ts_frame[best] + 1 <= rt->ts_done) break;
    tried |= 1u << best;
    collect(rt, best);
    if (rt->ts_done == rt->ts_frame[best] + 1) break;
  }
  if (!rt->ts_done) return 0;
  out->frame = rt->ts_done - 1;
  out->count = rt->ts_count;
  out->ms = rt->ts_ms;
  out->frame_ms = rt->ts_frame_ms;
  return 0;
}

VkDeviceMemory fg_rt_heap_memory(const fg_rt *rt, uint32_t h) {
  return h < rt->heap_count && rt->mem ? rt->mem[h] : VK_NULL_HANDLE;
}
