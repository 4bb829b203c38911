/* Standalone images for external resources. See fg_vk_image.h. */
#include "fg_vk_image.h"
#include "fg_vk_runtime.h"
#include <string.h>

static void free_objects(fg_vk_device *dev, fg_vk_image *img) {
  if (img->sampled_view) vkDestroyImageView(dev->device, img->sampled_view, dev->vkalloc);
  if (img->view) vkDestroyImageView(dev->device, img->view, dev->vkalloc);
  if (img->image) vkDestroyImage(dev->device, img->image, dev->vkalloc);
  if (img->memory) vkFreeMemory(dev->device, img->memory, dev->vkalloc);
  memset(img, 0, sizeof *img);
}

int fg_vk_image_create(fg_vk_device *dev, const fg_vk_image_desc *desc, fg_vk_image *out) {
  memset(out, 0, sizeof *out);
  fg_graph_resource gr;
  memset(&gr, 0, sizeof gr);
  gr.kind = FG_RES_TEXTURE;
  gr.format = desc->format;
  gr.width = desc->width;
  gr.height = desc->height;
  gr.mips = desc->mips;
  uint32_t levels = desc->mips > 1 ? desc->mips : 1;
  VkImageCreateInfo ci;
  fg_rt_image_info(dev, &gr, &ci);
  VkResult r = vkCreateImage(dev->device, &ci, dev->vkalloc, &out->image);
  if (r == VK_SUCCESS) {
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(dev->device, out->image, &req);
    int t = fg_vk_find_memory_type(dev, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    if (t < 0) t = fg_vk_find_memory_type(dev, req.memoryTypeBits, 0);
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size,
                               .memoryTypeIndex = (uint32_t)(t < 0 ? 0 : t)};
    r = vkAllocateMemory(dev->device, &ai, dev->vkalloc, &out->memory);
  }
  if (r == VK_SUCCESS) r = vkBindImageMemory(dev->device, out->image, out->memory, 0);
  /* `view` is mip 0 (what an external resource sees); with mips, the
   * sampled view covers every level */
  for (int k = 0; k < (levels > 1 ? 2 : 1) && r == VK_SUCCESS; k++) {
    VkImageViewCreateInfo vi = {.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = out->image,
                                .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = ci.format,
                                .subresourceRange = {.aspectMask = fg_rt_format_aspect(desc->format),
                                                     .levelCount = k ? levels : 1, .layerCount = 1}};
    r = vkCreateImageView(dev->device, &vi, dev->vkalloc, k ? &out->sampled_view : &out->view);
  }
  if (r != VK_SUCCESS) {
    free_objects(dev, out);  /* never submitted: no need to wait */
    return (int)r;
  }
  return 0;
}

void fg_vk_image_destroy(fg_vk_device *dev, fg_vk_image *img) {
  if (!img->image && !img->view && !img->memory && !img->sampled_view) return;
  vkDeviceWaitIdle(dev->device);
  free_objects(dev, img);
}
