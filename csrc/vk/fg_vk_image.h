/* fg_vk_image: a standalone 2D image with its own memory and view, for the
 * images a pipeline's `external` resources receive each frame (the runtime
 * transitions them but never allocates them; `layout` tracks their layout
 * across frames, see fg_rt_set_external). Created like a planned texture of
 * the same description (fg_rt_image_info), in device-local memory. */
#ifndef FG_VK_IMAGE_H
#define FG_VK_IMAGE_H
#include "fg_vk.h"
#include "fg_format.h"

typedef struct fg_vk_image_desc {
  fg_format format;
  uint32_t width, height;
  uint32_t mips;  /* 0 or 1: one level; more: also sampled_view over all of them */
} fg_vk_image_desc;

typedef struct fg_vk_image {
  VkImage image;
  VkImageView view;
  VkDeviceMemory memory;
  VkImageLayout layout;   /* UNDEFINED when made; updated by the runtime */
  /* textures from files (image_file.c): a view of every mip level for
   * sampling (`view` is mip 0 alone, what an external resource sees) */
  VkImageView sampled_view;
  uint32_t mips;
} fg_vk_image;

/* 0, or the failing VkResult (negative) with *out left empty. */
int fg_vk_image_create(fg_vk_device *dev, const fg_vk_image_desc *desc, fg_vk_image *out);
/* Waits for the device to be idle (the image may be in flight), then frees;
 * an empty or zeroed image is ignored. */
void fg_vk_image_destroy(fg_vk_device *dev, fg_vk_image *img);

#endif
