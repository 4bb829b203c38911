/* Read-back and small uploads through a host-visible staging buffer, with
 * synchronization2 barriers on both sides of the copy. */
#include "fg_vk_shader.h"
#include "fg_util.h"
#include <string.h>

uint32_t fg_vk_format_texel_bytes(VkFormat f) {
  switch (f) {
    case VK_FORMAT_R8_UNORM: case VK_FORMAT_R8_SNORM: case VK_FORMAT_R8_UINT: case VK_FORMAT_R8_SINT:
    case VK_FORMAT_S8_UINT:
      return 1;
    case VK_FORMAT_R8G8_UNORM: case VK_FORMAT_R8G8_UINT: case VK_FORMAT_R16_SFLOAT: case VK_FORMAT_R16_UNORM:
    case VK_FORMAT_R16_UINT: case VK_FORMAT_R16_SINT: case VK_FORMAT_D16_UNORM:
      return 2;
    case VK_FORMAT_R8G8B8A8_UNORM: case VK_FORMAT_R8G8B8A8_SRGB: case VK_FORMAT_R8G8B8A8_SNORM:
    case VK_FORMAT_R8G8B8A8_UINT: case VK_FORMAT_R8G8B8A8_SINT: case VK_FORMAT_B8G8R8A8_UNORM:
    case VK_FORMAT_B8G8R8A8_SRGB: case VK_FORMAT_A2B10G10R10_UNORM_PACK32: case VK_FORMAT_A2R10G10B10_UNORM_PACK32:
    case VK_FORMAT_B10G11R11_UFLOAT_PACK32: case VK_FORMAT_E5B9G9R9_UFLOAT_PACK32:
    case VK_FORMAT_R16G16_SFLOAT: case VK_FORMAT_R16G16_UNORM: case VK_FORMAT_R16G16_UINT:
    case VK_FORMAT_R32_SFLOAT: case VK_FORMAT_R32_UINT: case VK_FORMAT_R32_SINT:
    case VK_FORMAT_D32_SFLOAT: case VK_FORMAT_X8_D24_UNORM_PACK32: case VK_FORMAT_D24_UNORM_S8_UINT:
    case VK_FORMAT_D32_SFLOAT_S8_UINT:  /* depth aspect alone */
      return 4;
    case VK_FORMAT_R16G16B16A16_SFLOAT: case VK_FORMAT_R16G16B16A16_UNORM: case VK_FORMAT_R16G16B16A16_UINT:
    case VK_FORMAT_R32G32_SFLOAT: case VK_FORMAT_R32G32_UINT: case VK_FORMAT_R32G32_SINT:
      return 8;
    case VK_FORMAT_R32G32B32A32_SFLOAT: case VK_FORMAT_R32G32B32A32_UINT: case VK_FORMAT_R32G32B32A32_SINT:
      return 16;
    default:
      return 0;
  }
}

VkImageAspectFlags fg_vk_format_aspect(VkFormat f) {
  switch (f) {
    case VK_FORMAT_D16_UNORM: case VK_FORMAT_D32_SFLOAT: case VK_FORMAT_X8_D24_UNORM_PACK32:
    case VK_FORMAT_D16_UNORM_S8_UINT: case VK_FORMAT_D24_UNORM_S8_UINT: case VK_FORMAT_D32_SFLOAT_S8_UINT:
      return VK_IMAGE_ASPECT_DEPTH_BIT;  /* read-back copies the depth aspect */
    case VK_FORMAT_S8_UINT:
      return VK_IMAGE_ASPECT_STENCIL_BIT;
    default:
      return VK_IMAGE_ASPECT_COLOR_BIT;
  }
}

/* Full aspect mask of a format, for layout transitions of the whole image. */
static VkImageAspectFlags full_aspect(VkFormat f) {
  switch (f) {
    case VK_FORMAT_D16_UNORM_S8_UINT: case VK_FORMAT_D24_UNORM_S8_UINT: case VK_FORMAT_D32_SFLOAT_S8_UINT:
      return VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT;
    default:
      return fg_vk_format_aspect(f);
  }
}

typedef struct read_image_job {
  VkImage image;
  VkFormat format;
  uint32_t w, h;
  VkImageLayout layout, final_layout;
  VkPipelineStageFlags2 src_stage;
  VkAccessFlags2 src_access;
  VkBuffer staging;
} read_image_job;

static void record_read_image(VkCommandBuffer cmd, void *user) {
  read_image_job *j = user;
  VkImageSubresourceRange range = {full_aspect(j->format), 0, 1, 0, 1};
  VkImageMemoryBarrier2 to_src = {
    .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2,
    .srcStageMask = j->src_stage, .srcAccessMask = j->src_access,
    .dstStageMask = VK_PIPELINE_STAGE_2_COPY_BIT, .dstAccessMask = VK_ACCESS_2_TRANSFER_READ_BIT,
    .oldLayout = j->layout, .newLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
    .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
    .image = j->image, .subresourceRange = range,
  };
  VkDependencyInfo dep = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .imageMemoryBarrierCount = 1,
                          .pImageMemoryBarriers = &to_src};
  vkCmdPipelineBarrier2(cmd, &dep);
  VkBufferImageCopy region = {
    .imageSubresource = {fg_vk_format_aspect(j->format), 0, 0, 1},
    .imageExtent = {j->w, j->h, 1},
  };
  vkCmdCopyImageToBuffer(cmd, j->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, j->staging, 1, &region);
  /* Host sees the staging buffer; the image returns to its layout, and
   * whatever comes next waits for our read (execution dependency, WAR). */
  VkBufferMemoryBarrier2 to_host = {
    .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2,
    .srcStageMask = VK_PIPELINE_STAGE_2_COPY_BIT, .srcAccessMask = VK_ACCESS_2_TRANSFER_WRITE_BIT,
    .dstStageMask = VK_PIPELINE_STAGE_2_HOST_BIT, .dstAccessMask = VK_ACCESS_2_HOST_READ_BIT,
    .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
    .buffer = j->staging, .offset = 0, .size = VK_WHOLE_SIZE,
  };
  VkImageMemoryBarrier2 back = {
    .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2,
    .srcStageMask = VK_PIPELINE_STAGE_2_COPY_BIT, .srcAccessMask = 0,
    .dstStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, .dstAccessMask = 0,
    .oldLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, .newLayout = j->final_layout,
    .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
    .image = j->image, .subresourceRange = range,
  };
  /* A layout transition is a write: make it visible to every later access. */
  if (j->final_layout != VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL)
    back.dstAccessMask = VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT;
  VkDependencyInfo dep2 = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .bufferMemoryBarrierCount = 1,
                           .pBufferMemoryBarriers = &to_host, .imageMemoryBarrierCount = 1,
                           .pImageMemoryBarriers = &back};
  vkCmdPipelineBarrier2(cmd, &dep2);
}

int fg_vk_read_image(fg_vk_device *dev, VkImage image, VkFormat format, uint32_t width, uint32_t height,
                     VkImageLayout layout, VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access,
                     void *dst, size_t bytes, char *err, size_t errlen) {
  uint32_t texel = fg_vk_format_texel_bytes(format);
  if (!texel) {
    fg_errf(err, errlen, "read-back of format %d is not supported (uncompressed color/depth formats only)", (int)format);
    return 0;
  }
  if (!width || !height) { fg_errf(err, errlen, "read-back of an empty image (%ux%u)", width, height); return 0; }
  VkDeviceSize need = (VkDeviceSize)width * height * texel;
  if (bytes < need) {
    fg_errf(err, errlen, "read-back destination holds %zu bytes; a %ux%u image of %u-byte texels needs %llu",
            bytes, width, height, texel, (unsigned long long)need);
    return 0;
  }
  fg_vk_host_buffer st;
  if (!fg_vk_host_buffer_create(dev, need, VK_BUFFER_USAGE_TRANSFER_DST_BIT, 1, &st, err, errlen)) return 0;
  read_image_job j = {
    .image = image, .format = format, .w = width, .h = height, .layout = layout,
    .final_layout = (layout == VK_IMAGE_LAYOUT_UNDEFINED || layout == VK_IMAGE_LAYOUT_PREINITIALIZED)
                      ? VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL : layout,
    .src_stage = src_stage ? src_stage : VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
    .src_access = src_access, .staging = st.buffer,
  };
  VkResult r = fg_vk_submit_once(dev, record_read_image, &j);
  if (r != VK_SUCCESS) {
    fg_vk_host_buffer_destroy(dev, &st);
    fg_errf(err, errlen, "read-back submission failed (VkResult %d)", (int)r);
    return 0;
  }
  memcpy(dst, st.map, (size_t)need);
  fg_vk_host_buffer_destroy(dev, &st);
  return 1;
}

typedef struct buffer_job {
  VkBuffer buffer, staging;
  VkDeviceSize offset, size;
  VkPipelineStageFlags2 src_stage;
  VkAccessFlags2 src_access;
  int upload;
} buffer_job;

static void record_buffer(VkCommandBuffer cmd, void *user) {
  buffer_job *j = user;
  VkBufferMemoryBarrier2 before = {
    .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2,
    .srcStageMask = j->src_stage, .srcAccessMask = j->src_access,
    .dstStageMask = VK_PIPELINE_STAGE_2_COPY_BIT,
    .dstAccessMask = j->upload ? VK_ACCESS_2_TRANSFER_WRITE_BIT : VK_ACCESS_2_TRANSFER_READ_BIT,
    .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
    .buffer = j->buffer, .offset = j->offset, .size = j->size,
  };
  VkDependencyInfo dep = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .bufferMemoryBarrierCount = 1,
                          .pBufferMemoryBarriers = &before};
  vkCmdPipelineBarrier2(cmd, &dep);
  if (j->upload) {
    VkBufferCopy c = {.srcOffset = 0, .dstOffset = j->offset, .size = j->size};
    vkCmdCopyBuffer(cmd, j->staging, j->buffer, 1, &c);
  } else {
    VkBufferCopy c = {.srcOffset = j->offset, .dstOffset = 0, .size = j->size};
    vkCmdCopyBuffer(cmd, j->buffer, j->staging, 1, &c);
  }
  VkBufferMemoryBarrier2 after[2] = {
    {.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2,
     .srcStageMask = VK_PIPELINE_STAGE_2_COPY_BIT,
     .srcAccessMask = j->upload ? VK_ACCESS_2_TRANSFER_WRITE_BIT : 0,
     .dstStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
     .dstAccessMask = j->upload ? VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT : 0,
     .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
     .buffer = j->buffer, .offset = j->offset, .size = j->size},
    {.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2,
     .srcStageMask = VK_PIPELINE_STAGE_2_COPY_BIT, .srcAccessMask = VK_ACCESS_2_TRANSFER_WRITE_BIT,
     .dstStageMask = VK_PIPELINE_STAGE_2_HOST_BIT, .dstAccessMask = VK_ACCESS_2_HOST_READ_BIT,
     .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
     .buffer = j->staging, .offset = 0, .size = VK_WHOLE_SIZE},
  };
  VkDependencyInfo dep2 = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
                           .bufferMemoryBarrierCount = j->upload ? 1 : 2, .pBufferMemoryBarriers = after};
  vkCmdPipelineBarrier2(cmd, &dep2);
}

static int buffer_transfer(fg_vk_device *dev, VkBuffer buffer, VkDeviceSize offset, VkDeviceSize size,
                           VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access, void *host, int upload,
                           char *err, size_t errlen) {
  if (!size) return 1;
  fg_vk_host_buffer st;
  if (!fg_vk_host_buffer_create(dev, size, upload ? VK_BUFFER_USAGE_TRANSFER_SRC_BIT : VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                !upload, &st, err, errlen))
    return 0;
  if (upload) memcpy(st.map, host, (size_t)size);  /* HOST_COHERENT: no flush needed */
  buffer_job j = {.buffer = buffer, .staging = st.buffer, .offset = offset, .size = size,
                  .src_stage = src_stage ? src_stage : VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                  .src_access = src_access, .upload = upload};
  VkResult r = fg_vk_submit_once(dev, record_buffer, &j);
  if (r != VK_SUCCESS) {
    fg_vk_host_buffer_destroy(dev, &st);
    fg_errf(err, errlen, "buffer %s submission failed (VkResult %d)", upload ? "upload" : "read-back", (int)r);
    return 0;
  }
  if (!upload) memcpy(host, st.map, (size_t)size);
  fg_vk_host_buffer_destroy(dev, &st);
  return 1;
}

int fg_vk_read_buffer(fg_vk_device *dev, VkBuffer buffer, VkDeviceSize offset, VkDeviceSize size,
                      VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access,
                      void *dst, char *err, size_t errlen) {
  return buffer_transfer(dev, buffer, offset, size, src_stage, src_access, dst, 0, err, errlen);
}

int fg_vk_write_buffer(fg_vk_device *dev, VkBuffer buffer, VkDeviceSize offset, const void *src,
                       VkDeviceSize size, VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access,
                       char *err, size_t errlen) {
  return buffer_transfer(dev, buffer, offset, size, src_stage, src_access, (void *)src, 1, err, errlen);
}

int fg_vk_buffer_create(fg_vk_device *dev, VkDeviceSize size, VkBufferUsageFlags usage,
                        fg_vk_buffer *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size ? size : 1, .usage = usage,
                           .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
  VkResult r = vkCreateBuffer(dev->device, &bi, dev->vkalloc, &out->buffer);
  if (r != VK_SUCCESS) {
    fg_errf(err, errlen, "vkCreateBuffer(%llu bytes) failed (VkResult %d)", (unsigned long long)size, (int)r);
    return 0;
  }
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(dev->device, out->buffer, &req);
  int type = fg_vk_find_memory_type(dev, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  if (type < 0) type = fg_vk_find_memory_type(dev, req.memoryTypeBits, 0);
  VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size,
                             .memoryTypeIndex = (uint32_t)(type < 0 ? 0 : type)};
  r = type < 0 ? VK_ERROR_FEATURE_NOT_PRESENT : vkAllocateMemory(dev->device, &ai, dev->vkalloc, &out->memory);
  if (r == VK_SUCCESS) r = vkBindBufferMemory(dev->device, out->buffer, out->memory, 0);
  if (r != VK_SUCCESS) {
    fg_errf(err, errlen, "buffer memory (%llu bytes) failed (VkResult %d)", (unsigned long long)req.size, (int)r);
    fg_vk_buffer_destroy(dev, out);
    return 0;
  }
  out->size = size;
  return 1;
}

void fg_vk_buffer_destroy(fg_vk_device *dev, fg_vk_buffer *b) {
  if (b->buffer) vkDestroyBuffer(dev->device, b->buffer, dev->vkalloc);
  if (b->memory) vkFreeMemory(dev->device, b->memory, dev->vkalloc);
  memset(b, 0, sizeof *b);
}
