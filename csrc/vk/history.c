/* History contents across a reload (fg_rt_rebuild_keep_history, see
 * fg_vk_runtime.h). A rebuild re-places every resource, possibly in the same
 * VkDeviceMemory at other offsets, so the latest copy of each history
 * resource goes to a staging buffer before the old objects go, and comes back
 * into the matching copy of the new plan after: the new plan's first frame
 * reads it as the previous frame (TAA does not restart from the clear). */
#include "fg_vk_runtime.h"
#include "fg_vk_shader.h"
#include "fg_util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct kept {
  char key[256];              /* "name[dim=i,...]": what a new copy must be called */
  int is_image;
  VkImageCreateInfo ici;      /* what a new copy must equal (format, extent, usage) */
  VkBufferCreateInfo bci;
  VkDeviceSize offset, size;  /* in the staging buffer */
  uint32_t texel;
  uint32_t phys;              /* old physical id while saving */
} kept;

typedef struct saved {
  kept *k;
  uint32_t n;
  fg_vk_buffer staging;
  fg_rt *rt;
  uint32_t parity;            /* of the old copies saved */
} saved;

static void key_of(const fg_graph *g, const fg_graph_resource *gr, char *out, size_t len) {
  size_t at = (size_t)snprintf(out, len, "%s[", gr->name);
  for (uint32_t d = 0; d < fg_graph_dim_count(g) && at < len; d++)
    if (gr->mode >> d & 1) at += (size_t)snprintf(out + at, len - at, "%s=%u,", fg_graph_dim_name(g, d), gr->index[d]);
  if (at < len) snprintf(out + at, len - at, "]");
}

/* Colour textures (2D, any mips/layers) and buffers: what a plain copy can carry. */
static int keepable(fg_rt_res *r) {
  if (r->is_external || r->is_blob || !r->g->history) return 0;
  if (r->buffer) return 1;
  return r->image && r->aspect == VK_IMAGE_ASPECT_COLOR_BIT && r->g->depth <= 1 &&
         fg_format_get(r->g->format)->texel_bytes > 0;
}

static VkDeviceSize image_bytes(const VkImageCreateInfo *ci, uint32_t texel) {
  VkDeviceSize total = 0;
  for (uint32_t m = 0; m < ci->mipLevels; m++) {
    uint32_t w = ci->extent.width >> m, h = ci->extent.height >> m;
    total += (((VkDeviceSize)(w ? w : 1) * (h ? h : 1) * texel * ci->arrayLayers) + 15) & ~(VkDeviceSize)15;
  }
  return total;
}

static void copy_regions(const kept *k, VkBufferImageCopy *bc) {
  VkDeviceSize off = k->offset;
  for (uint32_t m = 0; m < k->ici.mipLevels; m++) {
    uint32_t w = k->ici.extent.width >> m, h = k->ici.extent.height >> m;
    w = w ? w : 1;
    h = h ? h : 1;
    bc[m] = (VkBufferImageCopy){.bufferOffset = off,
                                .imageSubresource = {.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT, .mipLevel = m,
                                                     .layerCount = k->ici.arrayLayers},
                                .imageExtent = {w, h, 1}};
    off += ((VkDeviceSize)w * h * k->texel * k->ici.arrayLayers + 15) & ~(VkDeviceSize)15;
  }
}

static VkImageMemoryBarrier2 image_barrier(VkImage image, VkPipelineStageFlags2 ss, VkAccessFlags2 sa,
                                           VkPipelineStageFlags2 ds, VkAccessFlags2 da, VkImageLayout from,
                                           VkImageLayout to) {
  return (VkImageMemoryBarrier2){
    .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2, .srcStageMask = ss, .srcAccessMask = sa,
    .dstStageMask = ds, .dstAccessMask = da, .oldLayout = from, .newLayout = to,
    .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
    .image = image,
    .subresourceRange = {.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT, .levelCount = VK_REMAINING_MIP_LEVELS,
                         .layerCount = VK_REMAINING_ARRAY_LAYERS}};
}

static VkBufferMemoryBarrier2 buffer_barrier(VkBuffer buffer, VkPipelineStageFlags2 ss, VkAccessFlags2 sa,
                                             VkPipelineStageFlags2 ds, VkAccessFlags2 da) {
  return (VkBufferMemoryBarrier2){
    .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2, .srcStageMask = ss, .srcAccessMask = sa,
    .dstStageMask = ds, .dstAccessMask = da, .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
    .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .buffer = buffer, .size = VK_WHOLE_SIZE};
}

static void one_barrier(VkCommandBuffer cmd, const VkImageMemoryBarrier2 *ib, const VkBufferMemoryBarrier2 *bb) {
  VkDependencyInfo di = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .imageMemoryBarrierCount = ib ? 1 : 0,
                         .pImageMemoryBarriers = ib, .bufferMemoryBarrierCount = bb ? 1 : 0,
                         .pBufferMemoryBarriers = bb};
  vkCmdPipelineBarrier2(cmd, &di);
}

/* The state a copy is in now: the end of the frame that last wrote it, or,
 * when no frame ran since the last restore, the state the restore left. */
static void current_state(saved *s, uint32_t phys, VkImageLayout *layout, VkPipelineStageFlags2 *stage,
                          VkAccessFlags2 *access) {
  const fg_bar_state *st = fg_rt_end_state(s->rt, s->parity, phys);
  *layout = st->layout;
  *stage = st->wstage | st->rstages;
  *access = st->waccess;
  if (!fg_rt_frame_index(s->rt)) {
    if (*layout == VK_IMAGE_LAYOUT_UNDEFINED) *layout = VK_IMAGE_LAYOUT_GENERAL;
    *stage = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
    *access = VK_ACCESS_2_MEMORY_WRITE_BIT;
  }
  if (!*stage) *stage = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
}

static void record_save(VkCommandBuffer cmd, void *user) {
  saved *s = user;
  for (uint32_t i = 0; i < s->n; i++) {
    kept *k = &s->k[i];
    fg_rt_res *r = fg_rt_resource(s->rt, k->phys);
    VkImageLayout lay;
    VkPipelineStageFlags2 st;
    VkAccessFlags2 acc;
    current_state(s, k->phys, &lay, &st, &acc);
    if (k->is_image) {
      VkImageMemoryBarrier2 ib = image_barrier(r->image, st, acc, VK_PIPELINE_STAGE_2_COPY_BIT,
                                               VK_ACCESS_2_TRANSFER_READ_BIT, lay,
                                               VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
      one_barrier(cmd, &ib, NULL);
      VkBufferImageCopy bc[16];
      copy_regions(k, bc);
      vkCmdCopyImageToBuffer(cmd, r->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, s->staging.buffer,
                             k->ici.mipLevels, bc);
    } else {
      VkBufferMemoryBarrier2 bb = buffer_barrier(r->buffer, st, acc, VK_PIPELINE_STAGE_2_COPY_BIT,
                                                 VK_ACCESS_2_TRANSFER_READ_BIT);
      one_barrier(cmd, NULL, &bb);
      VkBufferCopy bc = {.dstOffset = k->offset, .size = k->size};
      vkCmdCopyBuffer(cmd, r->buffer, s->staging.buffer, 1, &bc);
    }
  }
}

static void record_restore(VkCommandBuffer cmd, void *user) {
  saved *s = user;
  VkBufferMemoryBarrier2 sb = buffer_barrier(s->staging.buffer, VK_PIPELINE_STAGE_2_COPY_BIT,
                                             VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_COPY_BIT,
                                             VK_ACCESS_2_TRANSFER_READ_BIT);
  one_barrier(cmd, NULL, &sb);
  for (uint32_t i = 0; i < s->n; i++) {
    kept *k = &s->k[i];
    if (k->phys == FG_GRAPH_NONE) continue;
    fg_rt_res *r = fg_rt_resource(s->rt, k->phys);
    /* Leave it as the first frame's prologue would (the state the even
     * frame's planned barriers assume for the odd copy). */
    VkImageLayout final = fg_rt_end_state(s->rt, 1, k->phys)->layout;
    if (final == VK_IMAGE_LAYOUT_UNDEFINED) final = VK_IMAGE_LAYOUT_GENERAL;
    VkPipelineStageFlags2 all = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
    VkAccessFlags2 rw = VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT;
    if (k->is_image) {
      VkImageMemoryBarrier2 ib = image_barrier(r->image, VK_PIPELINE_STAGE_2_NONE, 0, VK_PIPELINE_STAGE_2_COPY_BIT,
                                               VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                                               VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
      one_barrier(cmd, &ib, NULL);
      VkBufferImageCopy bc[16];
      copy_regions(k, bc);
      vkCmdCopyBufferToImage(cmd, s->staging.buffer, r->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                             k->ici.mipLevels, bc);
      ib = image_barrier(r->image, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, all, rw,
                         VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, final);
      one_barrier(cmd, &ib, NULL);
    } else {
      VkBufferMemoryBarrier2 bb = buffer_barrier(r->buffer, VK_PIPELINE_STAGE_2_NONE, 0,
                                                 VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
      one_barrier(cmd, NULL, &bb);
      VkBufferCopy bc = {.srcOffset = k->offset, .size = k->size};
      vkCmdCopyBuffer(cmd, s->staging.buffer, r->buffer, 1, &bc);
      bb = buffer_barrier(r->buffer, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, all, rw);
      one_barrier(cmd, NULL, &bb);
    }
  }
}

/* Copies the latest copy of every keepable history resource out. s->n = 0
 * when there is nothing to keep (no frame yet, no history). */
static int save(fg_rt *rt, saved *s, char *err, size_t errlen) {
  memset(s, 0, sizeof *s);
  s->rt = rt;
  uint64_t frames = fg_rt_frame_index(rt);
  /* No frame since the last restore: the restored (odd) copies are the latest. */
  s->parity = frames ? (uint32_t)((frames - 1) & 1) : 1;
  const fg_graph *g = fg_rt_graph(rt);
  uint32_t n = fg_rt_resource_count(rt);
  s->k = fg_vk_calloc(fg_rt_device(rt), n ? n : 1, sizeof *s->k);
  if (!s->k) { fg_errf(err, errlen, "out of memory"); return -1; }
  VkDeviceSize total = 0;
  for (uint32_t i = 0; i < n; i++) {
    fg_rt_res *r = fg_rt_resource(rt, i);
    if (!keepable(r) || r->g->frame != s->parity || (!frames && !r->kept)) continue;
    if (frames && fg_rt_end_state(rt, s->parity, i)->layout == VK_IMAGE_LAYOUT_UNDEFINED && r->image) continue;
    kept *k = &s->k[s->n];
    key_of(g, r->g, k->key, sizeof k->key);
    k->is_image = r->image != VK_NULL_HANDLE;
    k->phys = i;
    if (k->is_image) {
      fg_rt_image_info(fg_rt_device(rt), r->g, &k->ici);
      if (k->ici.mipLevels > 16) continue;
      k->texel = fg_format_get(r->g->format)->texel_bytes;
      k->size = image_bytes(&k->ici, k->texel);
    } else {
      fg_rt_buffer_info(r->g, &k->bci);
      k->size = (r->bytes + 15) & ~(VkDeviceSize)15;
    }
    k->offset = total;
    total += k->size;
    s->n++;
  }
  if (!s->n) return 0;
  if (!fg_vk_buffer_create(fg_rt_device(rt), total,
                           VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, &s->staging, err,
                           errlen))
    return -1;
  VkResult vr = fg_vk_submit_once(fg_rt_device(rt), record_save, s);
  if (vr != VK_SUCCESS) { fg_errf(err, errlen, "saving history contents failed (VkResult %d)", (int)vr); return -1; }
  return 0;
}

static int same_desc(const kept *k, fg_rt *rt, fg_rt_res *r) {
  if (k->is_image != (r->image != VK_NULL_HANDLE)) return 0;
  if (k->is_image) {
    VkImageCreateInfo ci;
    fg_rt_image_info(fg_rt_device(rt), r->g, &ci);
    return ci.imageType == k->ici.imageType && ci.format == k->ici.format && ci.extent.width == k->ici.extent.width &&
           ci.extent.height == k->ici.extent.height && ci.extent.depth == k->ici.extent.depth &&
           ci.mipLevels == k->ici.mipLevels && ci.arrayLayers == k->ici.arrayLayers && ci.usage == k->ici.usage &&
           ci.flags == k->ici.flags;
  }
  VkBufferCreateInfo bi;
  fg_rt_buffer_info(r->g, &bi);
  return bi.size == k->bci.size && bi.usage == k->bci.usage && bi.flags == k->bci.flags;
}

/* Matches the saved copies to the new plan's odd copies (what its first
 * frame reads as history) and copies them in. */
static int restore(fg_rt *rt, saved *s, uint32_t *count, char *err, size_t errlen) {
  const fg_graph *g = fg_rt_graph(rt);
  uint32_t n = fg_rt_resource_count(rt), found = 0;
  for (uint32_t i = 0; i < s->n; i++) s->k[i].phys = FG_GRAPH_NONE;
  for (uint32_t j = 0; j < n && s->n; j++) {
    fg_rt_res *r = fg_rt_resource(rt, j);
    if (!keepable(r) || r->g->frame != 1) continue;
    char key[256];
    key_of(g, r->g, key, sizeof key);
    for (uint32_t i = 0; i < s->n; i++) {
      kept *k = &s->k[i];
      if (k->phys != FG_GRAPH_NONE || strcmp(k->key, key) || !same_desc(k, rt, r)) continue;
      k->phys = j;
      r->kept = 1;
      found++;
      break;
    }
  }
  if (count) *count = found;
  if (!found) return 0;
  VkResult vr = fg_vk_submit_once(fg_rt_device(rt), record_restore, s);
  if (vr != VK_SUCCESS) {
    for (uint32_t i = 0; i < s->n; i++)
      if (s->k[i].phys != FG_GRAPH_NONE) fg_rt_resource(rt, s->k[i].phys)->kept = 0;
    fg_errf(err, errlen, "restoring history contents failed (VkResult %d)", (int)vr);
    return -1;
  }
  return 0;
}

static void release(saved *s) {
  if (s->staging.buffer || s->staging.memory) fg_vk_buffer_destroy(fg_rt_device(s->rt), &s->staging);
  if (s->rt) fg_vk_free(fg_rt_device(s->rt), s->k);
  memset(s, 0, sizeof *s);
}

int fg_rt_rebuild_keep_history(fg_rt *rt, const fg_graph *g, const fg_graph *fallback, uint32_t *kept_count,
                               char *err, size_t errlen) {
  if (kept_count) *kept_count = 0;
  fg_rt_wait_idle(rt);
  saved s;
  char why[1024];
  /* Keeping contents is best effort: a failed save only costs the contents. */
  if (save(rt, &s, why, sizeof why)) {
    release(&s);
    s.rt = rt;
  }
  int rc = 0;
  if (fg_rt_rebuild(rt, g, err, errlen)) {
    rc = -1;
    if (!fallback || fg_rt_rebuild(rt, fallback, why, sizeof why)) {
      size_t at = strlen(err);
      fg_errf(err + at, errlen > at ? errlen - at : 0, "; restoring the previous plan failed too (%s)",
              fallback ? why : "no previous plan");
      release(&s);
      return -2;
    }
  }
  if (restore(rt, &s, rc ? NULL : kept_count, why, sizeof why) && !rc) {
    /* The new plan runs; its history starts from the clear value. */
    if (kept_count) *kept_count = 0;
  }
  release(&s);
  return rc;
}
