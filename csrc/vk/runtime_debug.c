/* What GPU tools see of a runtime: per-instance GPU time from timestamp
 * queries, and the debug names of its images, buffers and heaps (the pass
 * labels are recorded in runtime_frame.c through names.c).
 *
 * Timestamps: a ring of two query pools, one per frame in flight (the same
 * ring as the command buffers). Each instance gets a query before its
 * barriers and one after its last command, both at ALL_COMMANDS: a query
 * is written once every earlier command is done, so consecutive instances
 * share a boundary and on one queue the instances partition the frame.
 * A pool is read with vkGetQueryPoolResults without WAIT, only once the
 * timeline semaphore says its frame has finished (so never stalls), and
 * always before it is reset for reuse. */
#include "runtime_internal.h"
#include "fg_util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TS_NONE UINT64_MAX

int fg_rt_timestamps_supported(const fg_rt *rt) {
  return rt->dev->timestamp_valid_bits != 0 && rt->dev->props.limits.timestampComputeAndGraphics;
}

static int ts_on(const fg_rt *rt) { return !rt->desc.no_timestamps && fg_rt_timestamps_supported(rt); }

void rt_debug_free(fg_rt *rt) {
  for (int i = 0; i < 2; i++)
    if (rt->ts_pool[i]) vkDestroyQueryPool(rt->dev->device, rt->ts_pool[i], NULL);
  rt->ts_pool[0] = rt->ts_pool[1] = VK_NULL_HANDLE;
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
  rt->ts_frame[0] = rt->ts_frame[1] = TS_NONE;
  rt->ts_done = 0;
  rt->ts_count = 0;
  if (!ts_on(rt) || !rt->ninst) return 0;
  uint32_t need = 2 * rt->ninst;
  if (rt->ts_pool_size < need) {
    for (int i = 0; i < 2; i++)
      if (rt->ts_pool[i]) vkDestroyQueryPool(dev->device, rt->ts_pool[i], NULL);
    rt->ts_pool[0] = rt->ts_pool[1] = VK_NULL_HANDLE;
    rt->ts_pool_size = 0;
    free(rt->ts_ms); free(rt->ts_raw);
    rt->ts_ms = calloc(rt->ninst, sizeof *rt->ts_ms);
    rt->ts_raw = calloc(need, sizeof *rt->ts_raw);
    if (!rt->ts_ms || !rt->ts_raw) return -1;
    VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                .queryType = VK_QUERY_TYPE_TIMESTAMP, .queryCount = need};
    for (int i = 0; i < 2; i++)
      if (vkCreateQueryPool(dev->device, &qi, NULL, &rt->ts_pool[i]) != VK_SUCCESS) return -1;
    fg_vk_name_object(dev, VK_OBJECT_TYPE_QUERY_POOL, (uint64_t)rt->ts_pool[0], "framegraph timestamps f0");
    fg_vk_name_object(dev, VK_OBJECT_TYPE_QUERY_POOL, (uint64_t)rt->ts_pool[1], "framegraph timestamps f1");
    rt->ts_pool_size = need;
  }
  return 0;
}

/* Reads pool p if its frame has finished and is newer than the cached one. */
static void collect(fg_rt *rt, uint32_t p) {
  uint64_t f = rt->ts_frame[p];
  if (f == TS_NONE || f + 1 <= rt->ts_done || !rt->ts_pool[p]) return;
  uint64_t done = 0;
  if (vkGetSemaphoreCounterValue(rt->dev->device, rt->timeline, &done) != VK_SUCCESS || done < f + 1) return;
  uint32_t n = rt->ninst;
  if (!n || 2 * n > rt->ts_pool_size) return;
  if (vkGetQueryPoolResults(rt->dev->device, rt->ts_pool[p], 0, 2 * n, 2 * n * sizeof *rt->ts_raw, rt->ts_raw,
                            sizeof *rt->ts_raw, VK_QUERY_RESULT_64_BIT) != VK_SUCCESS)
    return;
  uint32_t bits = rt->dev->timestamp_valid_bits;
  uint64_t mask = bits >= 64 ? UINT64_MAX : (((uint64_t)1 << bits) - 1);
  double tick_ms = (double)rt->dev->props.limits.timestampPeriod / 1e6;
  /* differences modulo 2^bits: a counter that wrapped mid-frame still gives
   * the right (small) interval */
  for (uint32_t s = 0; s < n; s++)
    rt->ts_ms[s] = (double)((rt->ts_raw[2 * s + 1] - rt->ts_raw[2 * s]) & mask) * tick_ms;
  rt->ts_frame_ms = (double)((rt->ts_raw[2 * n - 1] - rt->ts_raw[0]) & mask) * tick_ms;
  rt->ts_count = n;
  rt->ts_done = f + 1;
}

void rt_debug_frame_begin(fg_rt *rt, VkCommandBuffer cmd, uint32_t p) {
  if (!rt->ts_pool_size) return;
  collect(rt, p);  /* before its queries are reset */
  rt->ts_frame[p] = TS_NONE;
  vkCmdResetQueryPool(cmd, rt->ts_pool[p], 0, 2 * rt->ninst);
}

void rt_debug_timestamp(fg_rt *rt, VkCommandBuffer cmd, uint32_t p, uint32_t slot, int end) {
  if (!rt->ts_pool_size) return;
  vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, rt->ts_pool[p], 2 * slot + (end ? 1 : 0));
}

void rt_debug_frame_submitted(fg_rt *rt, uint32_t p, uint64_t frame) {
  if (rt->ts_pool_size) rt->ts_frame[p] = frame;
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
  /* the older pool first, so the newer finished frame wins */
  uint32_t first = rt->ts_frame[0] != TS_NONE && rt->ts_frame[1] != TS_NONE && rt->ts_frame[1] < rt->ts_frame[0];
  collect(rt, first);
  collect(rt, !first);
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
