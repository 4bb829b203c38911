/* Reading a resource back as the last frame left it (fg_rt_read). */
#include "runtime_internal.h"
#include "fg_util.h"
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------- read-back -- */

typedef struct read_ctx {
  fg_rt *rt;
  fg_rt_res *r;
  const fg_bar_state *st;
  fg_vk_host_buffer *hb;
  uint32_t texel;
  VkImageLayout layout;  /* the image's layout now */
  int shared;            /* an external: another runtime may have used it since */
} read_ctx;

static void record_read(VkCommandBuffer cmd, void *user) {
  read_ctx *c = user;
  fg_rt_res *r = c->r;
  VkPipelineStageFlags2 src = c->st->wstage | c->st->rstages;
  VkAccessFlags2 src_access = c->st->waccess;
  if (!src || c->shared) src = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
  if (c->shared) src_access = VK_ACCESS_2_MEMORY_WRITE_BIT;
  if (r->image) {
    VkImageLayout L = c->layout;
    VkImageMemoryBarrier2 ib = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2, .srcStageMask = src, .srcAccessMask = src_access,
      .dstStageMask = VK_PIPELINE_STAGE_2_COPY_BIT, .dstAccessMask = VK_ACCESS_2_TRANSFER_READ_BIT,
      .oldLayout = L, .newLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
      .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
      .image = r->image,
      .subresourceRange = {.aspectMask = r->aspect, .levelCount = VK_REMAINING_MIP_LEVELS,
                           .layerCount = VK_REMAINING_ARRAY_LAYERS},
    };
    VkDependencyInfo di = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .imageMemoryBarrierCount = 1,
                           .pImageMemoryBarriers = &ib};
    vkCmdPipelineBarrier2(cmd, &di);
    VkBufferImageCopy bc = {
      .imageSubresource = {.aspectMask = (r->aspect & VK_IMAGE_ASPECT_COLOR_BIT) ? VK_IMAGE_ASPECT_COLOR_BIT
                                                                               : VK_IMAGE_ASPECT_DEPTH_BIT,
                           .layerCount = 1},
      .imageExtent = {r->width, r->height, 1},
    };
    vkCmdCopyImageToBuffer(cmd, r->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, c->hb->buffer, 1, &bc);
    ib.srcStageMask = VK_PIPELINE_STAGE_2_COPY_BIT;
    ib.srcAccessMask = 0;
    ib.dstStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
    ib.dstAccessMask = VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT;
    ib.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    ib.newLayout = L;
    vkCmdPipelineBarrier2(cmd, &di);
  } else {
    VkBufferMemoryBarrier2 bb = {
      .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2, .srcStageMask = src, .srcAccessMask = c->st->waccess,
      .dstStageMask = VK_PIPELINE_STAGE_2_COPY_BIT, .dstAccessMask = VK_ACCESS_2_TRANSFER_READ_BIT,
      .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
      .buffer = r->buffer, .size = VK_WHOLE_SIZE,
    };
    VkDependencyInfo di = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .bufferMemoryBarrierCount = 1,
                           .pBufferMemoryBarriers = &bb};
    vkCmdPipelineBarrier2(cmd, &di);
    VkBufferCopy bc = {.size = r->bytes};
    vkCmdCopyBuffer(cmd, r->buffer, c->hb->buffer, 1, &bc);
    bb.srcStageMask = VK_PIPELINE_STAGE_2_COPY_BIT;
    bb.srcAccessMask = 0;
    bb.dstStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
    bb.dstAccessMask = VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT;
    vkCmdPipelineBarrier2(cmd, &di);
  }
  VkBufferMemoryBarrier2 hb = {
    .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2, .srcStageMask = VK_PIPELINE_STAGE_2_COPY_BIT,
    .srcAccessMask = VK_ACCESS_2_TRANSFER_WRITE_BIT, .dstStageMask = VK_PIPELINE_STAGE_2_HOST_BIT,
    .dstAccessMask = VK_ACCESS_2_HOST_READ_BIT, .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
    .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .buffer = c->hb->buffer, .size = VK_WHOLE_SIZE,
  };
  VkDependencyInfo hd = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .bufferMemoryBarrierCount = 1,
                         .pBufferMemoryBarriers = &hb};
  vkCmdPipelineBarrier2(cmd, &hd);
}

int fg_rt_read(fg_rt *rt, uint32_t phys, void **data, size_t *len, char *err, size_t errlen) {
  *data = NULL;
  *len = 0;
  if (!rt->has_plan) { fg_errf(err, errlen, "the runtime has no valid plan (placing the last one failed)"); return -1; }
  if (phys >= rt->nres) { fg_errf(err, errlen, "no such physical resource %u", phys); return -1; }
  fg_rt_res *r = &rt->res[phys];
  if (!rt->frame) { fg_errf(err, errlen, "no frame has been rendered yet: call rt:frame() first"); return -1; }
  if (!r->image && !r->buffer) {
    fg_errf(err, errlen, "resource '%s' has no GPU object to read (blob, or unused in this frame)", r->g->name);
    return -1;
  }
  uint32_t p = (uint32_t)((rt->frame - 1) & 1);
  const fg_bar_state *st = end_state(rt, p, phys);
  if (r->image && st->layout == VK_IMAGE_LAYOUT_UNDEFINED) {
    fg_errf(err, errlen, "resource '%s' (frame copy %u) is not used by the last frame", r->g->name, r->g->frame);
    return -1;
  }
  if (r->is_image && (r->aspect & VK_IMAGE_ASPECT_STENCIL_BIT)) {
    fg_errf(err, errlen, "reading back depth/stencil '%s' is not supported", r->g->name);
    return -1;
  }
  /* The copy must still own its memory at the end of the frame: if the plan
   * lets a later resource of the same frame reuse it, the bytes are not its. */
  const fg_graph_resource *gx = r->g;
  if (gx->heap != FG_GRAPH_NONE) {
    uint32_t V = rt->ninst, T = 2 * V;
    /* Alive at the frame's last slot (history copies live on into the next
     * frame): nothing can reuse its memory before the frame ends. */
    uint32_t tend = T ? ((p + 1) * V + T - 1) % T : 0;
    int at_end = gx->start < gx->stop ? (tend >= gx->start && tend < gx->stop)
               : gx->start > gx->stop ? (tend >= gx->start || tend < gx->stop) : 1;
    for (uint32_t j = 0; j < rt->nres && T && !at_end; j++) {
      const fg_graph_resource *gy = rt->res[j].g;
      if (j == phys || gy->heap != gx->heap || gy->offset >= gx->offset + gx->size ||
          gx->offset >= gy->offset + gy->size)
        continue;
      for (uint32_t t = gx->stop % T; t != ((p + 1) * V) % T; t = (t + 1) % T) {
        int live = gy->start < gy->stop ? (t >= gy->start && t < gy->stop)
                 : gy->start > gy->stop ? (t >= gy->start || t < gy->stop) : 1;
        if (live) {
          fg_errf(err, errlen, "'%s' (frame copy %u) cannot be read back: the plan reuses its memory for '%s' later "
                  "in the same frame (its lifetime ends at node slot %u); only resources alive at the end of the "
                  "frame can be read: outputs need the compiler to keep them alive to the frame's end",
                  gx->name, gx->frame, gy->name, gx->last_slot);
          return -1;
        }
        if (gx->stop % T == ((p + 1) * V) % T) break;
      }
    }
  }
  fg_rt_wait_idle(rt);
  uint32_t texel = r->is_image ? fg_format_get(r->g->format)->texel_bytes : 1;
  size_t bytes = r->is_image ? (size_t)r->width * r->height * texel : (size_t)r->bytes;
  fg_vk_host_buffer hb;
  if (!fg_vk_host_buffer_create(rt->dev, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, 1, &hb, err, errlen)) return -1;
  /* An external image may be shared with another runtime that used it since
   * this one's frame: its layout is the image's, not this plan's end state
   * (an rt:read of it gave InvalidImageLayout at the next submit). */
  int shared = r->is_external && rt->ext_layout[phys] && *rt->ext_layout[phys] != VK_IMAGE_LAYOUT_UNDEFINED;
  read_ctx c = {rt, r, st, &hb, texel, shared ? *rt->ext_layout[phys] : st->layout, shared};
  VkResult vr = fg_vk_submit_once(rt->dev, record_read, &c);
  if (vr != VK_SUCCESS) {
    fg_vk_host_buffer_destroy(rt->dev, &hb);
    fg_errf(err, errlen, "read-back of '%s' failed (VkResult %d)", r->g->name, (int)vr);
    return -1;
  }
  void *out = fg_vk_malloc(rt->dev, bytes);
  if (!out) { fg_vk_host_buffer_destroy(rt->dev, &hb); fg_errf(err, errlen, "out of memory"); return -1; }
  memcpy(out, hb.map, bytes);
  fg_vk_host_buffer_destroy(rt->dev, &hb);
  *data = out;
  *len = bytes;
  return 0;
}
