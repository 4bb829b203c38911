/* Frame recording: prologue (activations, poison), per-node barriers and
 * passes, commands' own barriers (fg_rt_cmd_access), submission. */
#include "runtime_internal.h"
#include "fg_util.h"
#include "fg_vk_shader.h"
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ frames -- */

static uint32_t rnd(fg_rt *rt) {
  uint64_t x = rt->rng;
  x ^= x << 13; x ^= x >> 7; x ^= x << 17;
  rt->rng = x;
  return (uint32_t)(x >> 11);
}

static void barrier(fg_rt *rt, VkCommandBuffer cmd, const VkImageMemoryBarrier2 *ib, uint32_t ni,
                    const VkBufferMemoryBarrier2 *bb, uint32_t nb, const VkMemoryBarrier2 *mb, uint32_t nm) {
  if (!ni && !nb && !nm) return;
  VkDependencyInfo di = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
                         .memoryBarrierCount = nm, .pMemoryBarriers = mb,
                         .bufferMemoryBarrierCount = nb, .pBufferMemoryBarriers = bb,
                         .imageMemoryBarrierCount = ni, .pImageMemoryBarriers = ib};
  vkCmdPipelineBarrier2(cmd, &di);
  rt->st_barriers += ni + nb + nm;
  rt->st_batches++;
}

const fg_bar_state *end_state(const fg_rt *rt, uint32_t parity, uint32_t res) {
  return parity ? &rt->end_odd[res] : &rt->end_even[res];
}

const fg_bar_state *fg_rt_end_state(const fg_rt *rt, uint32_t parity, uint32_t phys) {
  return end_state(rt, parity, phys);
}

/* First frame: history copies read before anything wrote them are cleared or
 * merely given their layout, and left in the state the steady plan assumes. */
static void prologue(fg_rt *rt, VkCommandBuffer cmd) {
  for (uint32_t i = 0; i < rt->nres; i++) {
    fg_rt_res *r = &rt->res[i];
    const fg_graph_resource *gr = r->g;
    if (!gr->history || gr->frame != 1 || r->is_external || r->kept || (!r->image && !r->buffer)) continue;
    const fg_bar_state *st = end_state(rt, 1, i);
    int clear = gr->history_policy != FG_HISTORY_DISCARD;
    VkImageLayout final = st->layout == VK_IMAGE_LAYOUT_UNDEFINED ? VK_IMAGE_LAYOUT_GENERAL : st->layout;
    fg_bar b = {.res = i, .src_stage = VK_PIPELINE_STAGE_2_NONE, .dst_stage = VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                .dst_access = VK_ACCESS_2_TRANSFER_WRITE_BIT, .old_layout = VK_IMAGE_LAYOUT_UNDEFINED,
                .new_layout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL};
    if (clear) {
      if (r->image) {
        VkImageMemoryBarrier2 ib;
        fill_image_barrier(rt, &b, &ib);
        barrier(rt, cmd, &ib, 1, NULL, 0, NULL, 0);
        VkImageSubresourceRange range = {.aspectMask = r->aspect, .levelCount = VK_REMAINING_MIP_LEVELS,
                                         .layerCount = VK_REMAINING_ARRAY_LAYERS};
        if (r->aspect & VK_IMAGE_ASPECT_COLOR_BIT) {
          VkClearColorValue cv = {{0, 0, 0, 0}};
          vkCmdClearColorImage(cmd, r->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &cv, 1, &range);
        } else {
          VkClearDepthStencilValue dv = {0, 0};
          vkCmdClearDepthStencilImage(cmd, r->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &dv, 1, &range);
        }
      } else {
        VkBufferMemoryBarrier2 bb;
        fill_buffer_barrier(rt, &b, &bb);
        barrier(rt, cmd, NULL, 0, &bb, 1, NULL, 0);
        vkCmdFillBuffer(cmd, r->buffer, 0, VK_WHOLE_SIZE, 0);
      }
      b.src_stage = VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT;
      b.src_access = VK_ACCESS_2_TRANSFER_WRITE_BIT;
      b.old_layout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    }
    b.dst_stage = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
    b.dst_access = VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT;
    b.new_layout = final;
    if (r->image) {
      VkImageMemoryBarrier2 ib;
      fill_image_barrier(rt, &b, &ib);
      barrier(rt, cmd, &ib, 1, NULL, 0, NULL, 0);
    } else {
      VkBufferMemoryBarrier2 bb;
      fill_buffer_barrier(rt, &b, &bb);
      barrier(rt, cmd, NULL, 0, &bb, 1, NULL, 0);
    }
  }
}

/* Externals: bring the provided image from the caller's layout to what the
 * plan assumes at the start of the frame (only for images read before written). */
static void external_entry(fg_rt *rt, VkCommandBuffer cmd, uint32_t parity) {
  for (uint32_t i = 0; i < rt->nres; i++) {
    fg_rt_res *r = &rt->res[i];
    if (!r->is_external || r->g->frame != parity || !r->image || !rt->ext_layout[i]) continue;
    const fg_bar_state *st = end_state(rt, parity ^ 1, i);
    VkImageLayout want = st->layout == VK_IMAGE_LAYOUT_UNDEFINED ? *rt->ext_layout[i] : st->layout;
    if (want == *rt->ext_layout[i] && rt->frame > 0) continue;
    fg_bar b = {.res = i, .src_stage = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                .src_access = VK_ACCESS_2_MEMORY_WRITE_BIT, .dst_stage = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                .dst_access = VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT,
                .old_layout = *rt->ext_layout[i], .new_layout = want};
    VkImageMemoryBarrier2 ib;
    fill_image_barrier(rt, &b, &ib);
    barrier(rt, cmd, &ib, 1, NULL, 0, NULL, 0);
  }
}

static void node_barriers(fg_rt *rt, VkCommandBuffer cmd, uint32_t p, uint32_t s) {
  uint32_t k = p * rt->ninst + s;
  if (!rt->bar_count[k]) return;
  int dynamic = (rt->batch_flags[k] & 1) || (rt->desc.poison && (rt->batch_flags[k] & 2));
  if (!dynamic) {
    barrier(rt, cmd, rt->ib2 + rt->ib_first[k], rt->ib_count[k], rt->bb2 + rt->bb_first[k], rt->bb_count[k], NULL, 0);
    return;
  }
  /* Slow path (poison mode, externals): rebuild the batch, filling activated
   * resources with garbage first. */
  VkImageMemoryBarrier2 *pi = rt->scratch_i, *mi = rt->scratch_i + rt->max_batch + 1;
  VkBufferMemoryBarrier2 *pb = rt->scratch_b, *mbuf = rt->scratch_b + rt->max_batch + 1;
  uint32_t npi = 0, npb = 0, nmi = 0, nmb = 0;
  for (uint32_t j = rt->bar_first[k]; j < rt->bar_first[k] + rt->bar_count[k]; j++) {
    fg_bar b = rt->bars[j];
    fg_rt_res *r = &rt->res[b.res];
    if (rt->desc.poison && b.activate && !r->is_external) {
      fg_bar pre = b;
      pre.dst_stage = VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT;
      pre.dst_access = VK_ACCESS_2_TRANSFER_WRITE_BIT;
      pre.new_layout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
      if (r->is_image) fill_image_barrier(rt, &pre, &pi[npi++]);
      else fill_buffer_barrier(rt, &pre, &pb[npb++]);
      b.src_stage = VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT;
      b.src_access = VK_ACCESS_2_TRANSFER_WRITE_BIT;
      b.old_layout = r->is_image ? VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL : VK_IMAGE_LAYOUT_UNDEFINED;
    }
    if (r->is_image) {
      fill_image_barrier(rt, &b, &mi[nmi++]);
    } else {
      fill_buffer_barrier(rt, &b, &mbuf[nmb++]);
    }
  }
  if (npi || npb) {
    barrier(rt, cmd, pi, npi, pb, npb, NULL, 0);
    /* the poisoned images again, in pi's order, for their formats */
    uint32_t ji = 0;
    for (uint32_t j = rt->bar_first[k]; j < rt->bar_first[k] + rt->bar_count[k] && ji < npi; j++) {
      const fg_rt_res *r = &rt->res[rt->bars[j].res];
      if (!rt->bars[j].activate || r->is_external || !r->is_image) continue;
      VkImageSubresourceRange range = pi[ji].subresourceRange;
      VkImage image = pi[ji++].image;
      if (range.aspectMask & VK_IMAGE_ASPECT_COLOR_BIT) {
        /* a colour no channel of which is 0 or 1: random bits read as a
         * float clear normalized formats to 0 or 1 (three times in four 0),
         * so the garbage could look like cleared memory */
        VkClearColorValue cv;
        int integer = fg_vk_format_class(r->format) != 0;
        for (int c = 0; c < 4; c++) {
          uint32_t x = rnd(rt);
          if (integer) cv.uint32[c] = x;
          else cv.float32[c] = (float)(1 + x % 254) / 255.0f;
        }
        vkCmdClearColorImage(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &cv, 1, &range);
      } else {
        VkClearDepthStencilValue dv = {(float)(1 + rnd(rt) % 999) / 1000.0f, rnd(rt) & 0xff};
        vkCmdClearDepthStencilImage(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &dv, 1, &range);
      }
    }
    for (uint32_t j = 0; j < npb; j++) vkCmdFillBuffer(cmd, pb[j].buffer, 0, VK_WHOLE_SIZE, rnd(rt));
  }
  barrier(rt, cmd, mi, nmi, mbuf, nmb, NULL, 0);
}

void fg_rt_cmd_access(fg_rt *rt, VkCommandBuffer cmd, uint32_t slot, uint32_t use,
                      VkPipelineStageFlags2 stage, VkAccessFlags2 access) {
  if (use >= rt->cs_cap) return;
  uint32_t k = rt->inst_use_first[slot] + use;
  cmd_state *c = &rt->cs[use];
  VkPipelineStageFlags2 sd = rt->use_stage[k];
  uint8_t ru = rt->use_usage[k];
  VkAccessFlags2 ad = fg_vk_usage_access(ru, rt->use_write[k]);
  int w = fg_rt_access_is_write(access);
  int outside = (stage & ~sd) || (access & ~ad);
  VkMemoryBarrier2 mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2, .dstStageMask = stage, .dstAccessMask = access};
  int need = 0;
  if (!c->touched) {
    if (outside) { mb.srcStageMask = sd; need = 1; }
  } else if (c->write || w) {
    mb.srcStageMask = c->stage;
    mb.srcAccessMask = c->write ? c->access : 0;
    need = 1;
  }
  /* Barriers inside a dynamic render pass need a self-dependency; the
   * commands there (draws) read what the node declared, so none is needed. */
  if (need && !rt->recording_pass) barrier(rt, cmd, NULL, 0, NULL, 0, &mb, 1);
  c->touched = 1;
  c->stage = stage;
  c->access = access;
  c->write = w;
  if (outside) {
    c->ext_stage |= stage;
    if (w) c->ext_access |= access;
  }
}

int fg_rt_cmd_in_pass_uncovered(const fg_rt *rt, uint32_t slot, uint32_t use, VkPipelineStageFlags2 stage,
                                VkAccessFlags2 access) {
  if (!rt->recording_pass || use >= rt->cs_cap) return 0;
  uint32_t k = rt->inst_use_first[slot] + use;
  uint8_t ru = rt->use_usage[k];
  VkAccessFlags2 ad = fg_vk_usage_access(ru, rt->use_write[k]);
  return (stage & ~rt->use_stage[k]) || (access & ~ad);
}

static void node_end(fg_rt *rt, VkCommandBuffer cmd, uint32_t slot) {
  uint32_t nu = rt->inst_use_first[slot + 1] - rt->inst_use_first[slot];
  VkMemoryBarrier2 mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2};
  int need = 0;
  for (uint32_t u = 0; u < nu && u < rt->cs_cap; u++) {
    cmd_state *c = &rt->cs[u];
    if (c->ext_stage) {
      uint32_t k = rt->inst_use_first[slot] + u;
      uint8_t ru = rt->use_usage[k];
      mb.srcStageMask |= c->ext_stage;
      mb.srcAccessMask |= c->ext_access;
      mb.dstStageMask |= rt->use_stage[k];
      mb.dstAccessMask |= fg_vk_usage_access(ru, rt->use_write[k]);
      need = 1;
    }
    memset(c, 0, sizeof *c);
  }
  if (need) barrier(rt, cmd, NULL, 0, NULL, 0, &mb, 1);
}

/* Hand a swapchain image to presentation after its last use in the frame;
 * the submit's signal semaphore makes the presentation engine wait for it. */
static void present_transition(fg_rt *rt, VkCommandBuffer cmd, uint32_t p, uint32_t present) {
  const fg_bar_state *st = end_state(rt, p, present);
  VkPipelineStageFlags2 src = st->wstage | st->rstages;
  fg_bar b = {.res = present, .src_stage = src ? src : VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
              .src_access = st->waccess, .dst_stage = VK_PIPELINE_STAGE_2_NONE,
              .old_layout = st->layout != VK_IMAGE_LAYOUT_UNDEFINED ? st->layout : *rt->ext_layout[present],
              .new_layout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR};
  VkImageMemoryBarrier2 ib;
  fill_image_barrier(rt, &b, &ib);
  barrier(rt, cmd, &ib, 1, NULL, 0, NULL, 0);
}

static int frame(fg_rt *rt, fg_rt_node_fn fn, void *user, char *err, size_t errlen) {
  VkDevice d = rt->dev->device;
  uint64_t n = rt->frame;
  uint32_t p = (uint32_t)(n & 1);
  /* A swapchain image given for this frame only (fg_rt_set_present). */
  uint32_t present = rt->present_phys;
  VkSemaphore present_wait = rt->present_wait, present_signal = rt->present_signal;
  rt->present_phys = FG_GRAPH_NONE;
  rt->present_wait = rt->present_signal = VK_NULL_HANDLE;
  if (present >= rt->nres || !rt->res[present].image || rt->res[present].g->frame != p) present = FG_GRAPH_NONE;
  /* Two frames in flight, one on a CPU device: lavapipe (Mesa 22.3) runs a
   * submission while the previous one is still running without ordering
   * their work on different images that share memory, whatever the
   * barriers say (a clear of one landed on another aliasing it a frame
   * later, runtime_features_spec, about 1 run in 15; none with the previous
   * frame waited for; sync validation silent) */
  uint64_t lag = rt->dev->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU ? 1 : 2;
  if (n >= lag) {
    uint64_t v = n + 1 - lag;
    VkSemaphoreWaitInfo wi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO, .semaphoreCount = 1,
                              .pSemaphores = &rt->timeline, .pValues = &v};
    VkResult r = vkWaitSemaphores(d, &wi, UINT64_MAX);
    if (r != VK_SUCCESS) { fg_errf(err, errlen, "waiting for frame %llu failed (VkResult %d)", (unsigned long long)(n - lag), (int)r); return -2; }
  }
  /* A host's command buffer (runtime_host.c): ours is a secondary executed in
   * it once recorded whole, so a failed node leaves the host's untouched. */
  VkCommandBuffer host_cmd = rt->host_cmd;  /* kept for a rollback's second try; the host API clears it */
  rt->sig_count = 0;
  VkCommandBuffer cmd = host_cmd ? rt->sec[p] : rt->cmd[p];
  vkResetCommandBuffer(cmd, 0);
  VkCommandBufferInheritanceInfo inh = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO};
  VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                 .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
                                 .pInheritanceInfo = host_cmd ? &inh : NULL};
  VkResult vr = vkBeginCommandBuffer(cmd, &bi);
  if (vr != VK_SUCCESS) { fg_errf(err, errlen, "vkBeginCommandBuffer failed (VkResult %d)", (int)vr); return -2; }
  rt->st_barriers = rt->st_batches = 0;
  uint64_t t0 = fg_now_ns(), cb_ns = 0;
  rt_debug_frame_begin(rt, cmd, n);
  if (n == 0) prologue(rt, cmd);
  external_entry(rt, cmd, p);
  /* Patch external images/views of this frame into barriers and attachments. */
  for (uint32_t a = 0; a < rt->att_total; a++) {
    uint32_t ph = rt->att_res[a];
    if (ph != FG_GRAPH_NONE && ph < rt->nres && rt->res[ph].is_external) rt->att[a].imageView = rt->res[ph].view;
  }
  fg_vk_device *dev = rt->dev;
  for (uint32_t s = 0; s < rt->ninst; s++) {
    /* the instance's label (capture tools, validation messages) and GPU time
     * cover its barriers too */
    if (dev->cmd_begin_label) fg_vk_label_begin(dev, cmd, fg_graph_instance_get(rt->g, s)->name);
    rt_debug_timestamp(rt, cmd, s, 0);
    node_barriers(rt, cmd, p, s);
    const VkRenderingInfo *ri = &rt->ri[p * rt->ninst + s];
    int pass = ri->sType == VK_STRUCTURE_TYPE_RENDERING_INFO;
    if (pass) {
      vkCmdBeginRendering(cmd, ri);
      rt->recording_pass = 1;
    }
    if (fn) {
      uint64_t c0 = fg_now_ns();
      int rc = fn(user, rt, cmd, s);
      cb_ns += fg_now_ns() - c0;
      if (rc) {
        if (pass) vkCmdEndRendering(cmd);
        rt->recording_pass = 0;
        fg_vk_label_end(dev, cmd);
        vkEndCommandBuffer(cmd);
        vkResetCommandBuffer(cmd, 0);
        uint32_t nu = rt->inst_use_first[s + 1] - rt->inst_use_first[s];
        memset(rt->cs, 0, (nu < rt->cs_cap ? nu : rt->cs_cap) * sizeof *rt->cs);
        return -1;
      }
    }
    if (pass) {
      vkCmdEndRendering(cmd);
      rt->recording_pass = 0;
    }
    if (fn) node_end(rt, cmd, s);
    rt_debug_timestamp(rt, cmd, s, 1);
    fg_vk_label_end(dev, cmd);
  }
  if (present != FG_GRAPH_NONE) present_transition(rt, cmd, p, present);
  vr = vkEndCommandBuffer(cmd);
  rt->st_record_ns = fg_now_ns() - t0 - cb_ns;
  rt->st_callback_ns = cb_ns;
  if (vr != VK_SUCCESS) { fg_errf(err, errlen, "vkEndCommandBuffer failed (VkResult %d)", (int)vr); return -2; }
  uint64_t signal = n + 1;
  VkCommandBufferSubmitInfo cbi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO, .commandBuffer = cmd};
  /* The upload ring's frame ends with this submit: its segments return when
   * the GPU signals the ring's semaphore with the ring's frame value. */
  VkSemaphoreSubmitInfo ssi[3] = {
    {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO, .semaphore = rt->timeline, .value = signal,
     .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT},
    {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO, .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT},
    {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO, .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT},
  };
  uint32_t nsig = 1;
  fg_upload_ring *ring = rt->upload;
  if (ring) {
    ssi[nsig].semaphore = fg_upload_semaphore(ring);
    ssi[nsig++].value = fg_upload_frame(ring);
  }
  /* Presentation: the whole frame waits for the acquired image (its first use
   * may be any stage) and signals the binary semaphore the present waits on. */
  VkSemaphoreSubmitInfo wsi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO, .semaphore = present_wait,
                               .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT};
  if (present != FG_GRAPH_NONE && present_signal) ssi[nsig++].semaphore = present_signal;
  VkSubmitInfo2 si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2, .commandBufferInfoCount = 1,
                      .pCommandBufferInfos = &cbi, .signalSemaphoreInfoCount = nsig,
                      .pSignalSemaphoreInfos = ssi,
                      .waitSemaphoreInfoCount = present != FG_GRAPH_NONE && present_wait ? 1 : 0,
                      .pWaitSemaphoreInfos = &wsi};
  if (host_cmd) {  /* the host submits: it signals what our submit would */
    vkCmdExecuteCommands(host_cmd, 1, &cmd);
    for (uint32_t k = 0; k < nsig && k < 2; k++) { rt->sig_sem[k] = ssi[k].semaphore; rt->sig_val[k] = ssi[k].value; }
    rt->sig_count = nsig < 2 ? nsig : 2;
    vr = VK_SUCCESS;
  } else {
    vr = vkQueueSubmit2(rt->dev->queue, 1, &si, VK_NULL_HANDLE);
  }
  if (vr != VK_SUCCESS) { fg_errf(err, errlen, "vkQueueSubmit2 failed (VkResult %d)", (int)vr); return -2; }
  if (ring) fg_upload_next_frame(ring);
  rt_debug_frame_submitted(rt, n);
  for (uint32_t i = 0; i < rt->nres; i++)
    if (rt->res[i].is_external && rt->res[i].g->frame == p && rt->ext_layout[i]) {
      const fg_bar_state *st = end_state(rt, p, i);
      if (st->layout != VK_IMAGE_LAYOUT_UNDEFINED) *rt->ext_layout[i] = st->layout;
      if (i == present) *rt->ext_layout[i] = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
    }
  rt->frame = n + 1;
  return 0;
}

/* Objects the node callbacks close while the frame records (shaders, external
 * images) go after the submit: fg_vk_defer. */
int fg_rt_frame(fg_rt *rt, fg_rt_node_fn fn, void *user, char *err, size_t errlen) {
  if (!rt->has_plan) {
    fg_errf(err, errlen, "the runtime has no valid plan (placing the last one failed)");
    return -2;
  }
  fg_vk_device *dev = fg_vk_retain(rt->dev);
  fg_vk_recording_begin(dev);
  int rc = frame(rt, fn, user, err, errlen);
  fg_vk_recording_end(dev);
  fg_vk_release(dev);
  return rc;
}

int fg_rt_planned(const fg_rt *rt) { return rt && rt->has_plan; }

/* ------------------------------------------------------------ access -- */

uint64_t fg_rt_frame_index(const fg_rt *rt) { return rt->frame; }
uint32_t fg_rt_parity(const fg_rt *rt) { return (uint32_t)(rt->frame & 1); }
const fg_graph *fg_rt_graph(const fg_rt *rt) { return rt->g; }
fg_vk_device *fg_rt_device(const fg_rt *rt) { return rt->dev; }
fg_rt_res *fg_rt_resource(fg_rt *rt, uint32_t phys) { return phys < rt->nres ? &rt->res[phys] : NULL; }
uint32_t fg_rt_resource_count(const fg_rt *rt) { return rt->nres; }

uint32_t fg_rt_use_phys(const fg_rt *rt, uint32_t slot, uint32_t use) {
  if (slot >= rt->ninst || use >= rt->inst_use_first[slot + 1] - rt->inst_use_first[slot]) return FG_GRAPH_NONE;
  return rt->use_phys[rt->frame & 1][rt->inst_use_first[slot] + use];
}

VkImageLayout fg_rt_use_layout(const fg_rt *rt, uint32_t slot, uint32_t use) {
  if (slot >= rt->ninst) return VK_IMAGE_LAYOUT_UNDEFINED;
  uint8_t u = rt->use_usage[rt->inst_use_first[slot] + use];
  return fg_vk_usage_row(u)->layout;
}

void fg_rt_set_external(fg_rt *rt, uint32_t phys, VkImage image, VkImageView view, VkImageLayout *layout) {
  if (phys >= rt->nres || !rt->res[phys].is_external) return;
  rt->res[phys].image = image;
  rt->res[phys].view = view;
  rt->ext_layout[phys] = layout;
  /* Patch planned barriers that name this resource. */
  for (uint32_t k = 0; k < 2 * rt->ninst; k++) {
    uint32_t i = rt->ib_first[k];
    for (uint32_t j = rt->bar_first[k]; j < rt->bar_first[k] + rt->bar_count[k]; j++) {
      if (!rt->res[rt->bars[j].res].is_image) continue;
      if (rt->bars[j].res == phys) rt->ib2[i].image = image;
      i++;
    }
  }
}

void fg_rt_set_present(fg_rt *rt, uint32_t phys, VkSemaphore acquired, VkSemaphore presentable) {
  rt->present_phys = phys;
  rt->present_wait = acquired;
  rt->present_signal = presentable;
}

uint32_t fg_rt_heap_count(const fg_rt *rt) { return rt->heap_count; }
void fg_rt_heap_get(const fg_rt *rt, uint32_t i, fg_rt_heap_info *out) {
  memset(out, 0, sizeof *out);
  if (i >= rt->heap_count) return;
  out->bytes = rt->mem[i] ? rt->mem_bytes[i] : 0;
  out->planned = rt->planned[i];
  out->memory_type = rt->mem_type[i];
}
uint32_t fg_rt_allocations(const fg_rt *rt) { return rt->allocations; }

void fg_rt_get_stats(const fg_rt *rt, fg_rt_stats *out) {
  memset(out, 0, sizeof *out);
  out->frames = rt->frame;
  out->barriers = rt->st_barriers;
  out->batches = rt->st_batches;
  out->planned_barriers[0] = rt->planned_barriers[0];
  out->planned_barriers[1] = rt->planned_barriers[1];
  out->record_ns = rt->st_record_ns;
  out->callback_ns = rt->st_callback_ns;
  out->instances = rt->ninst;
}
