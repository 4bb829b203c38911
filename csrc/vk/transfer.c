/* Transfer commands inside a node (clear, copy, blit, copies from the upload
 * ring): the layout a declared usage puts a resource in, whether the node may
 * write it, and the recording. See fg_vk_cmd.h. */
#include "fg_vk_cmd.h"
#include "fg_util.h"

static const char *node_name(const fg_rt *rt, uint32_t slot) {
  return fg_graph_instance_get(fg_rt_graph(rt), slot)->name;
}

static const fg_graph_use *use_of(const fg_rt *rt, uint32_t slot, uint32_t use) {
  return &fg_graph_instance_get(fg_rt_graph(rt), slot)->uses[use];
}

static int check_writable(const fg_rt *rt, uint32_t slot, uint32_t use, const char *name, const char *what,
                          char *err, size_t errlen) {
  fg_access a = use_of(rt, slot, use)->access;
  if (a == FG_ACCESS_READ || a == FG_ACCESS_HISTORY) {
    fg_errf(err, errlen, "node '%s': %s writes '%s' which the node only reads; declare it in create or modify",
            node_name(rt, slot), what, name);
    return -1;
  }
  return 0;
}

/* Layout a transfer command may use for a resource declared with its usage:
 * the transfer layout of that direction, or GENERAL for storage. */
static int transfer_layout(const fg_rt *rt, uint32_t slot, uint32_t use, const char *name, int dst, const char *what,
                           VkImageLayout *out, char *err, size_t errlen) {
  const fg_graph_use *us = use_of(rt, slot, use);
  fg_usage want = dst ? FG_USAGE_TRANSFER_DST : FG_USAGE_TRANSFER_SRC;
  if (us->usage == want) {
    *out = dst ? VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL : VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    return 0;
  }
  if (us->usage == FG_USAGE_STORAGE) {
    *out = VK_IMAGE_LAYOUT_GENERAL;
    return 0;
  }
  fg_errf(err, errlen, "node '%s': %s needs '%s' with usage '%s' (or 'storage'), but the node declares '%s'; "
          "declare it as e.g. %s = { %s = '%s' }", node_name(rt, slot), what, name, fg_usage_name(want),
          fg_usage_name(us->usage), dst ? "modify" : "read", name, fg_usage_name(want));
  return -1;
}

/* A copy or blit of an image in GENERAL (its usage storage, the default of a
 * create outside a pass) is legal but slow, and the validation layer reports a
 * performance warning for it: demand the transfer usage instead. */
static int image_copy_layout(const fg_rt *rt, uint32_t slot, uint32_t use, const char *name, int dst, const char *what,
                             VkImageLayout *out, char *err, size_t errlen) {
  if (transfer_layout(rt, slot, use, name, dst, what, out, err, errlen)) return -1;
  if (*out != VK_IMAGE_LAYOUT_GENERAL) return 0;
  const fg_graph_use *us = use_of(rt, slot, use);
  const char *u = dst ? "transfer_dst" : "transfer_src";
  if (us->access == FG_ACCESS_CREATE)
    fg_errf(err, errlen, "node '%s': %s %s texture '%s', whose usage here is 'storage' (the default of a create "
            "outside a pass): a copy in that layout (GENERAL) is slow and the validation layer warns; declare "
            "create = { %s = { ..., usage = \"%s\" } }", node_name(rt, slot), what, dst ? "into" : "from", name,
            name, u);
  else
    fg_errf(err, errlen, "node '%s': %s %s texture '%s', declared with usage 'storage': a copy in that layout "
            "(GENERAL) is slow and the validation layer warns; declare %s = { %s = \"%s\" }", node_name(rt, slot),
            what, dst ? "into" : "from", name, us->access == FG_ACCESS_READ ? "read" : us->access == FG_ACCESS_HISTORY ? "history" : us->access == FG_ACCESS_RENAME ? "rename" : "modify", name, u);
  return -1;
}

int fg_rt_cmd_transfer_check(const fg_rt *rt, uint32_t slot, uint32_t use, const char *name, int dst,
                             const char *what, char *err, size_t errlen) {
  VkImageLayout lay;
  if (dst && check_writable(rt, slot, use, name, what, err, errlen)) return -1;
  return transfer_layout(rt, slot, use, name, dst, what, &lay, err, errlen);
}

int fg_rt_cmd_clear(fg_rt *rt, VkCommandBuffer cmd, uint32_t slot, uint32_t use, const char *name,
                    const double value[4], const char *what, char *err, size_t errlen) {
  fg_rt_res *r = fg_rt_resource(rt, fg_rt_use_phys(rt, slot, use));
  if (check_writable(rt, slot, use, name, what, err, errlen)) return -1;
  VkImageLayout lay = VK_IMAGE_LAYOUT_UNDEFINED;
  if (r->is_image && transfer_layout(rt, slot, use, name, 1, what, &lay, err, errlen)) return -1;
  /* vkCmdFillBuffer is a COPY-stage command for some validation layers and
   * CLEAR for others: ALL_TRANSFER covers both. */
  fg_rt_cmd_access(rt, cmd, slot, use, r->is_image ? VK_PIPELINE_STAGE_2_CLEAR_BIT : VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                   VK_ACCESS_2_TRANSFER_WRITE_BIT);
  if (r->is_image) {
    VkImageSubresourceRange range = {.aspectMask = r->aspect, .levelCount = VK_REMAINING_MIP_LEVELS,
                                     .layerCount = VK_REMAINING_ARRAY_LAYERS};
    if (r->aspect & VK_IMAGE_ASPECT_COLOR_BIT) {
      VkClearColorValue cv;
      int is_int = fg_vk_format_class(r->format) != 0;
      for (int i = 0; i < 4; i++) {
        if (is_int) cv.uint32[i] = (uint32_t)(int64_t)value[i];
        else cv.float32[i] = (float)value[i];
      }
      vkCmdClearColorImage(cmd, r->image, lay, &cv, 1, &range);
    } else {
      VkClearDepthStencilValue dv = {(float)value[0], (uint32_t)value[1]};
      vkCmdClearDepthStencilImage(cmd, r->image, lay, &dv, 1, &range);
    }
  } else {
    fg_usage u = use_of(rt, slot, use)->usage;
    if (u != FG_USAGE_TRANSFER_DST && u != FG_USAGE_STORAGE && transfer_layout(rt, slot, use, name, 1, what, &lay, err, errlen))
      return -1;
    vkCmdFillBuffer(cmd, r->buffer, 0, VK_WHOLE_SIZE, (uint32_t)(int64_t)value[0]);
  }
  return 0;
}

int fg_rt_cmd_copy_upload(fg_rt *rt, VkCommandBuffer cmd, uint32_t slot, uint32_t use, const char *name,
                          VkDeviceSize offset, VkDeviceSize size, uint64_t dst_offset, char *err, size_t errlen) {
  fg_rt_res *d = fg_rt_resource(rt, fg_rt_use_phys(rt, slot, use));
  VkImageLayout dl;
  if ((d->is_image ? image_copy_layout : transfer_layout)(rt, slot, use, name, 1, "cmd:copy", &dl, err, errlen))
    return -1;
  VkBuffer src = fg_rt_upload_buffer(rt);
  if (d->is_image) {
    const fg_format_info *fi = fg_format_get(d->g->format);
    uint32_t texel = fi->texel_bytes;
    uint64_t need = (uint64_t)d->width * d->height * texel;
    if (!texel) {
      fg_errf(err, errlen, "node '%s': cmd:copy: cannot copy an upload into '%s' of format %s", node_name(rt, slot),
              name, fi->name);
      return -1;
    }
    if (size != need) { /* a longer upload's rest would be dropped silently */
      fg_errf(err, errlen, "node '%s': cmd:copy: upload of %llu bytes is %s than texture '%s' (%ux%u %s = %llu bytes); "
              "upload exactly the texture's bytes", node_name(rt, slot), (unsigned long long)size,
              size < need ? "smaller" : "larger", name, d->width, d->height, fi->name, (unsigned long long)need);
      return -1;
    }
    /* vkCmdCopyBufferToImage wants bufferOffset a multiple of 4 and of the texel size. */
    if (offset % texel || offset % 4) {
      fg_errf(err, errlen, "node '%s': cmd:copy: the upload's offset %d is not a multiple of 4 and of the texel size "
              "(%d) of '%s'; upload with rt:upload(bytes, %d)", node_name(rt, slot), (int)offset, (int)texel, name,
              (int)(texel % 4 ? 4 * texel : texel));
      return -1;
    }
    fg_rt_cmd_access(rt, cmd, slot, use, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
    VkBufferImageCopy bc = {
      .bufferOffset = offset,
      .imageSubresource = {.aspectMask = (d->aspect & VK_IMAGE_ASPECT_COLOR_BIT) ? VK_IMAGE_ASPECT_COLOR_BIT
                                                                               : VK_IMAGE_ASPECT_DEPTH_BIT,
                           .layerCount = 1},
      .imageExtent = {d->width, d->height, 1}};
    vkCmdCopyBufferToImage(cmd, src, d->image, dl, 1, &bc);
  } else {
    if (dst_offset + size > d->bytes) {
      fg_errf(err, errlen, "node '%s': cmd:copy: upload of %d bytes at offset %d does not fit buffer '%s' (%d bytes)",
              node_name(rt, slot), (int)size, (int)dst_offset, name, (int)d->bytes);
      return -1;
    }
    fg_rt_cmd_access(rt, cmd, slot, use, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
    VkBufferCopy bc = {.srcOffset = offset, .dstOffset = dst_offset, .size = size};
    vkCmdCopyBuffer(cmd, src, d->buffer, 1, &bc);
  }
  return 0;
}

/* Format rules of vkCmdBlitImage / vkCmdCopyImage, refused here with the
 * formats named rather than left to the driver (a depth source blitted into a
 * colour image is undefined behaviour without validation). */
static int format_checks(const fg_rt *rt, uint32_t slot, const fg_rt_res *s, const char *sn, const fg_rt_res *d,
                         const char *dn, int blit, char *err, size_t errlen) {
  const char *what = blit ? "cmd:blit" : "cmd:copy";
  const char *sf = fg_format_get(s->g->format)->name, *df = fg_format_get(d->g->format)->name;
  int s_ds = (s->aspect & (VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT)) != 0;
  int d_ds = (d->aspect & (VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT)) != 0;
  if ((s_ds || d_ds) && s->format != d->format) {
    fg_errf(err, errlen, "node '%s': %s from '%s' (%s) into '%s' (%s): depth/stencil textures copy or blit only "
            "into the same format; read the depth in a shader (usage 'sampled') to convert it", node_name(rt, slot),
            what, sn, sf, dn, df);
    return -1;
  }
  if (!blit) return 0;
  int sc = fg_vk_format_class(s->format), dc = fg_vk_format_class(d->format);
  if (sc != dc) {
    static const char *cls[] = {"float/normalized", "unsigned integer", "signed integer"};
    fg_errf(err, errlen, "node '%s': cmd:blit from '%s' (%s, %s) into '%s' (%s, %s): a blit converts only within "
            "one class of formats; use cmd:copy for same-size formats or a shader", node_name(rt, slot), sn, sf,
            cls[sc], dn, df, cls[dc]);
    return -1;
  }
  VkFormatProperties sp, dp;
  vkGetPhysicalDeviceFormatProperties(fg_rt_device(rt)->phys, s->format, &sp);
  vkGetPhysicalDeviceFormatProperties(fg_rt_device(rt)->phys, d->format, &dp);
  if (!(sp.optimalTilingFeatures & VK_FORMAT_FEATURE_BLIT_SRC_BIT) ||
      !(dp.optimalTilingFeatures & VK_FORMAT_FEATURE_BLIT_DST_BIT)) {
    fg_errf(err, errlen, "node '%s': cmd:blit from '%s' (%s) into '%s' (%s): the device cannot blit %s; use cmd:copy "
            "or a shader", node_name(rt, slot), sn, sf, dn, df,
            (sp.optimalTilingFeatures & VK_FORMAT_FEATURE_BLIT_SRC_BIT) ? df : sf);
    return -1;
  }
  return 0;
}

/* The checks of fg_rt_cmd_copy, in the order the messages were always given. */
static int copy_checks(const fg_rt *rt, uint32_t slot, const fg_rt_res *s, uint32_t su, const char *sn,
                       const fg_rt_res *d, uint32_t du, const char *dn, int blit, VkImageLayout *sl, VkImageLayout *dl,
                       char *err, size_t errlen) {
  const char *what = blit ? "cmd:blit" : "cmd:copy";
  VkImageLayout unused;
  *sl = *dl = VK_IMAGE_LAYOUT_UNDEFINED;
  if (check_writable(rt, slot, du, dn, what, err, errlen)) return -1;
  if (s->is_image && transfer_layout(rt, slot, su, sn, 0, what, sl, err, errlen)) return -1;
  if (d->is_image && transfer_layout(rt, slot, du, dn, 1, what, dl, err, errlen)) return -1;
  if (!s->is_image && transfer_layout(rt, slot, su, sn, 0, what, &unused, err, errlen)) return -1;
  if (!d->is_image && transfer_layout(rt, slot, du, dn, 1, what, &unused, err, errlen)) return -1;
  if (blit && (!s->is_image || !d->is_image)) {
    fg_errf(err, errlen, "node '%s': cmd:blit needs two textures", node_name(rt, slot));
    return -1;
  }
  if (s->is_image && d->is_image && format_checks(rt, slot, s, sn, d, dn, blit, err, errlen)) return -1;
  if (s->is_image != d->is_image) {
    const fg_rt_res *im = s->is_image ? s : d;
    if ((im->aspect & VK_IMAGE_ASPECT_DEPTH_BIT) && (im->aspect & VK_IMAGE_ASPECT_STENCIL_BIT)) {
      fg_errf(err, errlen, "node '%s': %s between buffer and depth/stencil texture '%s' of format %s: a buffer "
              "copy takes one aspect; use a depth-only format", node_name(rt, slot), what, im == s ? sn : dn,
              fg_format_get(im->g->format)->name);
      return -1;
    }
  }
  /* declared usages fit: now the layouts they give must not be GENERAL */
  if (s->is_image && image_copy_layout(rt, slot, su, sn, 0, what, sl, err, errlen)) return -1;
  if (d->is_image && image_copy_layout(rt, slot, du, dn, 1, what, dl, err, errlen)) return -1;
  return 0;
}

int fg_rt_cmd_copy(fg_rt *rt, VkCommandBuffer cmd, uint32_t slot, uint32_t su, const char *sn, uint32_t du,
                   const char *dn, int blit, char *err, size_t errlen) {
  fg_rt_res *s = fg_rt_resource(rt, fg_rt_use_phys(rt, slot, su));
  fg_rt_res *d = fg_rt_resource(rt, fg_rt_use_phys(rt, slot, du));
  VkImageLayout sl, dl;
  if (copy_checks(rt, slot, s, su, sn, d, du, dn, blit, &sl, &dl, err, errlen)) return -1;
  VkPipelineStageFlags2 st = blit ? VK_PIPELINE_STAGE_2_BLIT_BIT : VK_PIPELINE_STAGE_2_COPY_BIT;
  fg_rt_cmd_access(rt, cmd, slot, su, st, VK_ACCESS_2_TRANSFER_READ_BIT);
  fg_rt_cmd_access(rt, cmd, slot, du, st, VK_ACCESS_2_TRANSFER_WRITE_BIT);
  VkImageSubresourceLayers sl0 = {.aspectMask = s->aspect, .layerCount = 1};
  VkImageSubresourceLayers dl0 = {.aspectMask = d->aspect, .layerCount = 1};
  uint32_t s_texel = fg_format_get(s->g->format)->texel_bytes, d_texel = fg_format_get(d->g->format)->texel_bytes;
  if (blit) {
    VkImageBlit b = {.srcSubresource = sl0, .dstSubresource = dl0};
    b.srcOffsets[1] = (VkOffset3D){(int32_t)s->width, (int32_t)s->height, 1};
    b.dstOffsets[1] = (VkOffset3D){(int32_t)d->width, (int32_t)d->height, 1};
    /* Depth cannot be filtered linearly. */
    VkFilter f = (s->aspect & VK_IMAGE_ASPECT_COLOR_BIT) ? VK_FILTER_LINEAR : VK_FILTER_NEAREST;
    VkFormatProperties fp;
    vkGetPhysicalDeviceFormatProperties(fg_rt_device(rt)->phys, s->format, &fp);
    if (!(fp.optimalTilingFeatures & VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT)) f = VK_FILTER_NEAREST;
    vkCmdBlitImage(cmd, s->image, sl, d->image, dl, 1, &b, f);
  } else if (s->is_image && d->is_image) {
    if (s->format != d->format && (s_texel != d_texel || !s_texel)) {
      fg_errf(err, errlen, "node '%s': cmd:copy between '%s' and '%s' of incompatible formats; use cmd:blit",
              node_name(rt, slot), sn, dn);
      return -1;
    }
    VkImageCopy ic = {.srcSubresource = sl0, .dstSubresource = dl0,
                      .extent = {s->width < d->width ? s->width : d->width, s->height < d->height ? s->height : d->height, 1}};
    vkCmdCopyImage(cmd, s->image, sl, d->image, dl, 1, &ic);
  } else if (!s->is_image && !d->is_image) {
    VkBufferCopy bc = {.size = s->bytes < d->bytes ? s->bytes : d->bytes};
    vkCmdCopyBuffer(cmd, s->buffer, d->buffer, 1, &bc);
  } else if (s->is_image) {
    VkBufferImageCopy bc = {.imageSubresource = sl0, .imageExtent = {s->width, s->height, 1}};
    if ((uint64_t)s->width * s->height * s_texel > d->bytes) {
      fg_errf(err, errlen, "node '%s': cmd:copy: buffer '%s' is smaller than texture '%s'", node_name(rt, slot), dn, sn);
      return -1;
    }
    vkCmdCopyImageToBuffer(cmd, s->image, sl, d->buffer, 1, &bc);
  } else {
    VkBufferImageCopy bc = {.imageSubresource = dl0, .imageExtent = {d->width, d->height, 1}};
    if ((uint64_t)d->width * d->height * d_texel > s->bytes) {
      fg_errf(err, errlen, "node '%s': cmd:copy: buffer '%s' is smaller than texture '%s'", node_name(rt, slot), sn, dn);
      return -1;
    }
    vkCmdCopyBufferToImage(cmd, s->buffer, d->image, dl, 1, &bc);
  }
  return 0;
}

int fg_rt_cmd_blit_rect(fg_rt *rt, VkCommandBuffer cmd, uint32_t slot, uint32_t su, const char *sn, uint32_t du,
                        const char *dn, const int32_t rect[4], char *err, size_t errlen) {
  fg_rt_res *s = fg_rt_resource(rt, fg_rt_use_phys(rt, slot, su));
  fg_rt_res *d = fg_rt_resource(rt, fg_rt_use_phys(rt, slot, du));
  VkImageLayout sl, dl;
  if (copy_checks(rt, slot, s, su, sn, d, du, dn, 1, &sl, &dl, err, errlen)) return -1;
  int32_t x0 = rect[0], y0 = rect[1], x1 = rect[0] + rect[2], y1 = rect[1] + rect[3];
  if (rect[2] <= 0 || rect[3] <= 0 || x0 < 0 || y0 < 0 || x1 > (int32_t)d->width || y1 > (int32_t)d->height) {
    fg_errf(err, errlen, "node '%s': cmd:blit: rectangle {%d, %d, %d, %d} is not inside '%s' (%ux%u)",
            node_name(rt, slot), rect[0], rect[1], rect[2], rect[3], dn, d->width, d->height);
    return -1;
  }
  fg_rt_cmd_access(rt, cmd, slot, su, VK_PIPELINE_STAGE_2_BLIT_BIT, VK_ACCESS_2_TRANSFER_READ_BIT);
  fg_rt_cmd_access(rt, cmd, slot, du, VK_PIPELINE_STAGE_2_BLIT_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
  VkImageBlit b = {.srcSubresource = {.aspectMask = s->aspect, .layerCount = 1},
                   .dstSubresource = {.aspectMask = d->aspect, .layerCount = 1}};
  b.srcOffsets[1] = (VkOffset3D){(int32_t)s->width, (int32_t)s->height, 1};
  b.dstOffsets[0] = (VkOffset3D){x0, y0, 0};
  b.dstOffsets[1] = (VkOffset3D){x1, y1, 1};
  vkCmdBlitImage(cmd, s->image, sl, d->image, dl, 1, &b,
                 (s->aspect & VK_IMAGE_ASPECT_COLOR_BIT) ? VK_FILTER_LINEAR : VK_FILTER_NEAREST);
  return 0;
}
