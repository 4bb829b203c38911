/* Async compute in the runtime: the plan's async slots are recorded into
 * their own command buffers and submitted to the device's async queue; the
 * graphics slots' command buffer is cut where a slot must wait for the other
 * queue. Each queue has a timeline semaphore counting its submissions; a
 * batch waits for the other queue's value that covers the slot
 * fg_graph_async_wait names (sync2 submits, ALL_COMMANDS on both sides, so
 * the semaphore is a full execution and memory dependency and the planned
 * barriers after it only need to chain on it).
 *
 * Resources are shared CONCURRENT between the two families when they differ
 * (queues.c), so no ownership transfer is recorded. Without an async queue,
 * or when the plan has no async slot, a frame is one batch as before. */
#include "runtime_internal.h"
#include "fg_graph_async.h"
#include <stdlib.h>
#include <string.h>

/* CPU memory through the device's hooks (a host's fg_allocator; else malloc) */
#define calloc(c, n) fg_vk_calloc(rt->dev, (c), (n))
#define free(p) fg_vk_free(rt->dev, (p))

/* Stages a compute-only queue accepts in a barrier. */
#define COMPUTE_STAGES (VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT | \
                        VK_PIPELINE_STAGE_2_COPY_BIT | VK_PIPELINE_STAGE_2_CLEAR_BIT |                   \
                        VK_PIPELINE_STAGE_2_HOST_BIT | VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT |            \
                        VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT)

static void free_cmds(fg_rt *rt) {
  VkDevice d = rt->dev->device;
  for (int p = 0; p < 2; p++) {
    if (rt->seg[0][p] && rt->seg_cap[0]) vkFreeCommandBuffers(d, rt->pool, rt->seg_cap[0], rt->seg[0][p]);
    if (rt->seg[1][p] && rt->seg_cap[1]) vkFreeCommandBuffers(d, rt->apool, rt->seg_cap[1], rt->seg[1][p]);
    free(rt->seg[0][p]); free(rt->seg[1][p]);
    rt->seg[0][p] = rt->seg[1][p] = NULL;
  }
  rt->seg_cap[0] = rt->seg_cap[1] = 0;
  free(rt->batches);
  rt->batches = NULL;
  free(rt->fork_at);
  rt->fork_at = NULL;
}

void rt_async_free(fg_rt *rt) {
  if (!rt->dev || !rt->dev->device) return;
  free_cmds(rt);
  VkDevice d = rt->dev->device;
  for (int q = 0; q < 2; q++)
    if (rt->qsem[q]) { vkDestroySemaphore(d, rt->qsem[q], rt->dev->vkalloc); rt->qsem[q] = VK_NULL_HANDLE; }
  if (rt->apool) { vkDestroyCommandPool(d, rt->apool, rt->dev->vkalloc); rt->apool = VK_NULL_HANDLE; }
  rt->async_on = 0;
}

/* A barrier recorded on the async queue may name a graphics stage as its
 * source (the memory's previous user, a layout's last reader). That work
 * ran on the other queue and the batch's semaphore wait already covers it:
 * the barrier only has to chain on the wait, which ALL_COMMANDS does. */
static void patch_barriers(fg_rt *rt) {
  for (uint32_t p = 0; p < 2; p++)
    for (uint32_t s = 0; s < rt->ninst; s++) {
      if (fg_graph_instance_queue(rt->g, s) != FG_QUEUE_ASYNC) continue;
      uint32_t k = p * rt->ninst + s, ni = rt->ib_first[k], nb = rt->bb_first[k];
      for (uint32_t j = rt->bar_first[k]; j < rt->bar_first[k] + rt->bar_count[k]; j++) {
        fg_bar *b = &rt->bars[j];
        if (b->src_stage & ~(VkPipelineStageFlags2)COMPUTE_STAGES) {
          b->src_stage = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
          if (b->src_access) b->src_access = VK_ACCESS_2_MEMORY_WRITE_BIT;
        }
        if (rt->res[b->res].is_image) fill_image_barrier(rt, b, &rt->ib2[ni++]);
        else fill_buffer_barrier(rt, b, &rt->bb2[nb++]);
      }
    }
}

static int alloc_cmds(fg_rt *rt, uint32_t q, uint32_t n) {
  if (!n) return 0;
  VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                    .commandPool = q ? rt->apool : rt->pool,
                                    .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = n};
  for (int p = 0; p < 2; p++) {
    rt->seg[q][p] = calloc(n, sizeof(VkCommandBuffer));
    if (!rt->seg[q][p] || vkAllocateCommandBuffers(rt->dev->device, &ai, rt->seg[q][p]) != VK_SUCCESS) {
      free(rt->seg[q][p]);
      rt->seg[q][p] = NULL;
      if (p) vkFreeCommandBuffers(rt->dev->device, q ? rt->apool : rt->pool, n, rt->seg[q][0]);
      free(rt->seg[q][0]);
      rt->seg[q][0] = NULL;
      return -1;
    }
  }
  rt->seg_cap[q] = n;
  return 0;
}

int rt_async_build(fg_rt *rt, char *err, size_t errlen) {
  fg_vk_device *dev = rt->dev;
  free_cmds(rt);
  rt->async_on = 0;
  uint32_t nasync = fg_graph_async_count(rt->g);
  if (!dev->async_queue || !nasync) return 0;
  /* An external image comes in the caller's family, exclusive: an async
   * slot touching one would need an ownership transfer. Such a plan runs on
   * one queue (the same output, no overlap). */
  if (dev->share_families[0] != dev->share_families[1])
    for (uint32_t s = 0; s < rt->ninst; s++) {
      if (fg_graph_instance_queue(rt->g, s) != FG_QUEUE_ASYNC) continue;
      for (uint32_t k = rt->inst_use_first[s]; k < rt->inst_use_first[s + 1]; k++)
        for (int p = 0; p < 2; p++) {
          uint32_t ph = rt->use_phys[p][k];
          if (ph < rt->nres && rt->res[ph].is_external) return 0;
        }
    }
  VkDevice d = dev->device;
  if (!rt->apool) {
    VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                  .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                  .queueFamilyIndex = dev->async_family};
    if (vkCreateCommandPool(d, &pi, dev->vkalloc, &rt->apool) != VK_SUCCESS) goto fail;
  }
  for (int q = 0; q < 2; q++) {
    if (rt->qsem[q]) continue;
    VkSemaphoreTypeCreateInfo ti = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                    .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE, .initialValue = 0};
    VkSemaphoreCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &ti};
    if (vkCreateSemaphore(d, &si, dev->vkalloc, &rt->qsem[q]) != VK_SUCCESS) goto fail;
    rt->qval[q] = 0;
  }
  /* Graphics batches: the first (rt->cmd[p]), one after each wait for the
   * async queue, one for the frame's end; async batches: one per slot at most. */
  uint32_t gwaits = 0;
  for (uint32_t s = 0; s < rt->ninst; s++)
    if (fg_graph_instance_queue(rt->g, s) == FG_QUEUE_GRAPHICS && fg_graph_async_wait(rt->g, s) != FG_GRAPH_NONE)
      gwaits++;
  /* a graphics batch also closes where an async slot forks from it */
  if (alloc_cmds(rt, 0, gwaits + nasync + 3) || alloc_cmds(rt, 1, nasync)) goto fail;
  rt->batches = calloc(gwaits + 2 * nasync + 4, sizeof *rt->batches);
  /* fork_at[g + 1]: some async slot starts after graphics slot g (0: after
   * the frame's start), so the graphics batch ends right there and the async
   * work does not wait for graphics slots it need not */
  rt->fork_at = calloc(rt->ninst + 1, 1);
  if (!rt->batches || !rt->fork_at) goto fail;
  for (uint32_t s = 0; s < rt->ninst; s++) {
    if (fg_graph_instance_queue(rt->g, s) != FG_QUEUE_ASYNC) continue;
    uint32_t w = fg_graph_async_wait(rt->g, s);
    rt->fork_at[w == FG_GRAPH_NONE ? 0 : w + 1] = 1;
  }
  patch_barriers(rt);
  rt->async_on = 1;
  return 0;
fail:
  free_cmds(rt);
  fg_errf(err, errlen, "creating the async compute queue's command buffers or semaphores failed");
  return -1;
}

/* ------------------------------------------------------------ recording -- */

void rt_rec_begin(fg_rt *rt, rt_rec *rc, uint32_t parity) {
  memset(rc, 0, sizeof *rc);
  rc->rt = rt;
  rc->p = parity;
  rc->val[0] = rt->qval[0];
  rc->val[1] = rt->qval[1];
  rc->closed[0] = rc->closed[1] = -1;
  rc->last[0] = rc->last[1] = -1;
  rc->host = rt->host_cmd != VK_NULL_HANDLE;
  rc->async = rt->async_on && !rc->host;  /* a host's command buffer is one batch */
}

static VkResult open_cmd(rt_rec *rc, uint32_t q) {
  fg_rt *rt = rc->rt;
  VkCommandBuffer cmd;
  uint32_t k = rc->used[q] - (q == 0);
  if (q == 0 && rc->used[0] == 0) cmd = rc->host ? rt->sec[rc->p] : rt->cmd[rc->p];
  else if (rt->seg[q][rc->p] && k < rt->seg_cap[q]) cmd = rt->seg[q][rc->p][k];
  else return VK_ERROR_UNKNOWN;  /* more batches than rt_async_build counted: never */
  rc->used[q]++;
  vkResetCommandBuffer(cmd, 0);
  VkCommandBufferInheritanceInfo inh = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO};
  VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                 .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
                                 .pInheritanceInfo = rc->host ? &inh : NULL};
  VkResult r = vkBeginCommandBuffer(cmd, &bi);
  rc->cur[q] = cmd;
  rc->cur_wait[q] = rc->pending[q];
  return r;
}

VkCommandBuffer rt_rec_cmd(rt_rec *rc, uint32_t q) {
  if (!rc->cur[q] && open_cmd(rc, q) != VK_SUCCESS && !rc->error) rc->error = -2;
  return rc->cur[q];
}

/* Ends queue q's open command buffer as a batch that signals the queue's
 * next value (a serial frame: one batch, no value). */
static void close_cmd(rt_rec *rc, uint32_t q) {
  if (!rc->cur[q]) return;
  if (vkEndCommandBuffer(rc->cur[q]) != VK_SUCCESS && !rc->error) rc->error = -2;
  rt_batch *b = &rc->rt->batches_local[0];
  if (rc->async) b = &rc->rt->batches[rc->nb];
  b->q = q;
  b->cmd = rc->cur[q];
  b->wait = rc->cur_wait[q];
  b->signal = rc->async ? ++rc->val[q] : 0;
  rc->nb++;
  rc->cur[q] = VK_NULL_HANDLE;
  rc->closed[q] = rc->last[q];
  rc->signalled[q] = b->signal;
}

VkCommandBuffer rt_rec_slot(rt_rec *rc, uint32_t s) {
  fg_rt *rt = rc->rt;
  uint32_t q = rc->async ? fg_graph_instance_queue(rt->g, s) : 0;
  if (rc->async) {
    uint32_t w = fg_graph_async_wait(rt->g, s);
    if (q == 1) {
      /* the graphics work up to w (NONE: the frame's first batch) submitted */
      if (!rc->gfx_closed || (w != FG_GRAPH_NONE && rc->closed[0] < (int64_t)w)) {
        close_cmd(rc, 0);
        rc->gfx_closed = 1;
      }
      if (rc->cur[1] && rc->cur_wait[1] < rc->signalled[0]) close_cmd(rc, 1);
      rc->pending[1] = rc->signalled[0];
    } else {
      /* an async slot further on starts after the last graphics slot recorded */
      if (rc->cur[0] && rt->fork_at[rc->last[0] + 1]) {
        close_cmd(rc, 0);
        rc->gfx_closed = 1;
      }
      if (w != FG_GRAPH_NONE) {
        if (rc->closed[1] < (int64_t)w) close_cmd(rc, 1);
        if (rc->cur[0] && rc->cur_wait[0] < rc->signalled[1]) close_cmd(rc, 0);
        rc->pending[0] = rc->signalled[1];
      }
    }
  }
  VkCommandBuffer cmd = rt_rec_cmd(rc, q);
  rc->last[q] = (int64_t)s;
  if (q == 1) rc->any_async = 1;
  return cmd;
}

/* The frame's last graphics batch: after every async batch of the frame. */
VkCommandBuffer rt_rec_end(rt_rec *rc) {
  if (rc->async && rc->any_async) {
    close_cmd(rc, 1);
    if (rc->cur[0] && rc->cur_wait[0] < rc->signalled[1]) close_cmd(rc, 0);
    rc->pending[0] = rc->signalled[1];
  }
  return rt_rec_cmd(rc, 0);
}

void rt_rec_close_all(rt_rec *rc) {
  close_cmd(rc, 1);
  close_cmd(rc, 0);
}

/* Recording failed: every command buffer of the frame back to initial. */
void rt_rec_abort(rt_rec *rc) {
  for (int q = 0; q < 2; q++)
    if (rc->cur[q]) { vkEndCommandBuffer(rc->cur[q]); vkResetCommandBuffer(rc->cur[q], 0); rc->cur[q] = VK_NULL_HANDLE; }
  rt_batch *bs = rc->async ? rc->rt->batches : rc->rt->batches_local;
  for (uint32_t i = 0; i < rc->nb; i++) vkResetCommandBuffer(bs[i].cmd, 0);
  rc->nb = 0;
}

/* Submits the batches in the order they closed (a wait only names a value
 * an earlier batch signals). first_*: extra waits of the first graphics
 * batch; last_*: extra signals of the last one (the frame's timeline, the
 * upload ring, presentation). */
VkResult rt_rec_submit(rt_rec *rc, const VkSemaphoreSubmitInfo *first_wait, uint32_t nfirst,
                       const VkSemaphoreSubmitInfo *last_signal, uint32_t nlast) {
  fg_rt *rt = rc->rt;
  rt_batch *bs = rc->async ? rt->batches : rt->batches_local;
  rt->qval[0] = rc->val[0];  /* a failed submit below leaves the device lost anyway */
  rt->qval[1] = rc->val[1];
  /* lavapipe (Mesa 22.3) may run a submission while the one before it on the
   * queue still runs, whatever the barriers say (see runtime_frame.c's lag):
   * on a CPU device, or with the testing queue, each batch also waits for the
   * one before it on its own queue */
  int chain = rc->async && (rt->dev->async_mode == FG_VK_ASYNC_SAME ||
                               rt->dev->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU);
  uint64_t prev[2] = {0, 0};
  uint32_t last_gfx = 0, first_gfx = UINT32_MAX;
  for (uint32_t i = 0; i < rc->nb; i++)
    if (bs[i].q == 0) { last_gfx = i; if (first_gfx == UINT32_MAX) first_gfx = i; }
  for (uint32_t i = 0; i < rc->nb; i++) {
    const rt_batch *b = &bs[i];
    VkSemaphoreSubmitInfo wait[4], sig[6];
    uint32_t nw = 0, ns = 0;
    if (b->wait) wait[nw++] = (VkSemaphoreSubmitInfo){.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
                                                      .semaphore = rt->qsem[1 - b->q], .value = b->wait,
                                                      .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT};
    if (chain && prev[b->q])
      wait[nw++] = (VkSemaphoreSubmitInfo){.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
                                           .semaphore = rt->qsem[b->q], .value = prev[b->q],
                                           .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT};
    if (b->signal) prev[b->q] = b->signal;
    if (i == first_gfx) for (uint32_t k = 0; k < nfirst && nw < 4; k++) wait[nw++] = first_wait[k];
    if (b->signal) sig[ns++] = (VkSemaphoreSubmitInfo){.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
                                                       .semaphore = rt->qsem[b->q], .value = b->signal,
                                                       .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT};
    if (i == last_gfx) for (uint32_t k = 0; k < nlast && ns < 6; k++) sig[ns++] = last_signal[k];
    VkCommandBufferSubmitInfo cbi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO, .commandBuffer = b->cmd};
    VkSubmitInfo2 si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2, .waitSemaphoreInfoCount = nw,
                        .pWaitSemaphoreInfos = wait, .commandBufferInfoCount = 1, .pCommandBufferInfos = &cbi,
                        .signalSemaphoreInfoCount = ns, .pSignalSemaphoreInfos = sig};
    VkResult r = vkQueueSubmit2(b->q ? rt->dev->async_queue : rt->dev->queue, 1, &si, VK_NULL_HANDLE);
    if (r != VK_SUCCESS) return r;
  }
  rt->st_submits = rc->nb;
  return VK_SUCCESS;
}
