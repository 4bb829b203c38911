/* Textures from PNG files (fg_vk_mesh.h): decoded with libpng's simplified
 * API, uploaded through staging, mips made with linear blits, left in
 * SHADER_READ_ONLY_OPTIMAL. */
#include "fg_vk_mesh.h"
#include "fg_vk_runtime.h"
#include "fg_util.h"
#include <png.h>
#include <stdlib.h>
#include <string.h>

int fg_texture_read_png(const fg_alloc_hooks *hooks, const char *path, uint32_t *w, uint32_t *h, unsigned char **rgba, char *err, size_t errlen) {
  png_image img;
  memset(&img, 0, sizeof img);
  img.version = PNG_IMAGE_VERSION;
  *rgba = NULL;
  if (!png_image_begin_read_from_file(&img, path)) {
    fg_errf(err, errlen, "%s: cannot read the PNG file: %s", path, img.message);
    return 0;
  }
  if (img.width == 0 || img.height == 0 || img.width > FG_TEXTURE_MAX_SIDE || img.height > FG_TEXTURE_MAX_SIDE) {
    fg_errf(err, errlen, "%s: a %ux%u PNG; textures are 1..%u pixels a side", path, img.width, img.height,
            FG_TEXTURE_MAX_SIDE);
    png_image_free(&img);
    return 0;
  }
  img.format = PNG_FORMAT_RGBA;
  unsigned char *buf = fg_malloc(hooks, PNG_IMAGE_SIZE(img));
  if (!buf) {
    png_image_free(&img);
    fg_errf(err, errlen, "%s: out of memory for a %ux%u texture", path, img.width, img.height);
    return 0;
  }
  if (!png_image_finish_read(&img, NULL, buf, 0, NULL)) {
    fg_errf(err, errlen, "%s: cannot decode the PNG file: %s", path, img.message);
    fg_free(hooks, buf);
    return 0;
  }
  *w = img.width;
  *h = img.height;
  *rgba = buf;
  return 1;
}

typedef struct tex_job {
  VkImage image;
  VkBuffer staging;
  uint32_t w, h, mips;
} tex_job;

static void level_barrier(VkCommandBuffer cmd, VkImage image, uint32_t level, uint32_t count,
                          VkPipelineStageFlags2 ss, VkAccessFlags2 sa, VkImageLayout from,
                          VkPipelineStageFlags2 ds, VkAccessFlags2 da, VkImageLayout to) {
  VkImageMemoryBarrier2 b = {
    .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2, .srcStageMask = ss, .srcAccessMask = sa,
    .dstStageMask = ds, .dstAccessMask = da, .oldLayout = from, .newLayout = to,
    .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
    .image = image,
    .subresourceRange = {.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT, .baseMipLevel = level, .levelCount = count,
                         .layerCount = 1},
  };
  VkDependencyInfo di = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .imageMemoryBarrierCount = 1,
                         .pImageMemoryBarriers = &b};
  vkCmdPipelineBarrier2(cmd, &di);
}

/* Level 0 from staging; level i blitted from level i - 1, which then goes to
 * SHADER_READ_ONLY; the last level last. Frames read it after the wait. */
static void record_texture(VkCommandBuffer cmd, void *user) {
  tex_job *j = user;
  const VkPipelineStageFlags2 T = VK_PIPELINE_STAGE_2_TRANSFER_BIT, ALL = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
  level_barrier(cmd, j->image, 0, j->mips, VK_PIPELINE_STAGE_2_NONE, 0, VK_IMAGE_LAYOUT_UNDEFINED, T,
                VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
  VkBufferImageCopy bc = {.imageSubresource = {.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT, .layerCount = 1},
                          .imageExtent = {j->w, j->h, 1}};
  vkCmdCopyBufferToImage(cmd, j->staging, j->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &bc);
  uint32_t w = j->w, h = j->h;
  for (uint32_t i = 1; i < j->mips; i++) {
    level_barrier(cmd, j->image, i - 1, 1, T, VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, T,
                  VK_ACCESS_2_TRANSFER_READ_BIT, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    uint32_t nw = w > 1 ? w / 2 : 1, nh = h > 1 ? h / 2 : 1;
    VkImageBlit blit = {
      .srcSubresource = {.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT, .mipLevel = i - 1, .layerCount = 1},
      .srcOffsets = {{0, 0, 0}, {(int32_t)w, (int32_t)h, 1}},
      .dstSubresource = {.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT, .mipLevel = i, .layerCount = 1},
      .dstOffsets = {{0, 0, 0}, {(int32_t)nw, (int32_t)nh, 1}},
    };
    vkCmdBlitImage(cmd, j->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, j->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                   1, &blit, VK_FILTER_LINEAR);
    level_barrier(cmd, j->image, i - 1, 1, T, 0, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, ALL,
                  VK_ACCESS_2_MEMORY_READ_BIT, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    w = nw;
    h = nh;
  }
  level_barrier(cmd, j->image, j->mips - 1, 1, T, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, ALL, VK_ACCESS_2_MEMORY_READ_BIT,
                VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
}

static uint32_t mip_count(uint32_t w, uint32_t h) {
  uint32_t n = 1, m = w > h ? w : h;
  while (m > 1) { m /= 2; n++; }
  return n;
}

int fg_vk_texture_create(fg_vk_device *dev, const unsigned char *rgba, uint32_t w, uint32_t h, fg_format format,
                         int mips, fg_vk_image *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  VkFormat vf = fg_rt_vk_format(format);
  if (vf != VK_FORMAT_R8G8B8A8_UNORM && vf != VK_FORMAT_R8G8B8A8_SRGB) {
    fg_errf(err, errlen, "textures from files are rgba8_unorm or rgba8_srgb");
    return 0;
  }
  uint32_t maxd = dev->props.limits.maxImageDimension2D;
  if (!w || !h || w > maxd || h > maxd) {
    fg_errf(err, errlen, "a %ux%u texture exceeds the device's maxImageDimension2D (%u)", w, h, maxd);
    return 0;
  }
  uint32_t levels = mips ? mip_count(w, h) : 1;
  if (levels > 1) {
    VkFormatProperties fp;
    vkGetPhysicalDeviceFormatProperties(dev->phys, vf, &fp);
    VkFormatFeatureFlags need = VK_FORMAT_FEATURE_BLIT_SRC_BIT | VK_FORMAT_FEATURE_BLIT_DST_BIT |
                                VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT;
    if ((fp.optimalTilingFeatures & need) != need) {
      fg_errf(err, errlen, "the device (%s) cannot blit %s linearly, which making mips needs; load it without "
              "mips", dev->props.deviceName, fg_format_get(format)->name);
      return 0;
    }
  }
  fg_vk_image_desc desc = {.format = format, .width = w, .height = h, .mips = levels};
  VkResult r = (VkResult)fg_vk_image_create(dev, &desc, out);
  VkDeviceSize bytes = (VkDeviceSize)w * h * 4;
  if (r != VK_SUCCESS) {
    fg_errf(err, errlen, "creating a %ux%u %s texture (%u mips) failed (VkResult %d)", w, h,
            fg_format_get(format)->name, levels, (int)r);
    fg_vk_image_destroy(dev, out);
    return 0;
  }
  fg_vk_host_buffer st;
  if (!fg_vk_host_buffer_create(dev, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, 0, &st, err, errlen)) {
    fg_vk_image_destroy(dev, out);
    return 0;
  }
  memcpy(st.map, rgba, (size_t)bytes);  /* HOST_COHERENT: no flush */
  tex_job j = {.image = out->image, .staging = st.buffer, .w = w, .h = h, .mips = levels};
  r = fg_vk_submit_once(dev, record_texture, &j);
  fg_vk_host_buffer_destroy(dev, &st);
  if (r != VK_SUCCESS) {
    fg_errf(err, errlen, "uploading a %ux%u texture failed (VkResult %d)", w, h, (int)r);
    fg_vk_image_destroy(dev, out);
    return 0;
  }
  out->layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
  out->mips = levels;
  return 1;
}
