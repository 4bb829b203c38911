/* fg_format -> VkFormat and image aspect (the enum is append-only, so a table
 * indexed by it stays valid). */
#include "fg_vk_runtime.h"

/* Generated from FG_FORMATS (fg_vocab.h): its last column is the VkFormat suffix. */
#define ROW(id, name, bytes, aspects, channels, vk) [FG_FORMAT_##id] = VK_FORMAT_##vk,
static const VkFormat vk_formats[FG_FORMAT_COUNT] = {
  [FG_FORMAT_UNDEFINED] = VK_FORMAT_UNDEFINED,
  FG_FORMATS(ROW)
};
#undef ROW

VkFormat fg_rt_vk_format(fg_format f) {
  return (int)f > 0 && f < FG_FORMAT_COUNT ? vk_formats[f] : VK_FORMAT_UNDEFINED;
}

VkImageAspectFlags fg_rt_format_aspect(fg_format f) {
  uint32_t a = fg_format_get(f)->aspects;
  VkImageAspectFlags r = 0;
  if (a & FG_ASPECT_COLOR) r |= VK_IMAGE_ASPECT_COLOR_BIT;
  if (a & FG_ASPECT_DEPTH) r |= VK_IMAGE_ASPECT_DEPTH_BIT;
  if (a & FG_ASPECT_STENCIL) r |= VK_IMAGE_ASPECT_STENCIL_BIT;
  return r;
}

fg_format fg_rt_format_back(VkFormat vf) {
  for (int i = 1; i < FG_FORMAT_COUNT; i++)
    if (vk_formats[i] == vf) return (fg_format)i;
  return FG_FORMAT_UNDEFINED;
}
