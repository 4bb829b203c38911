/* Names of Vulkan flags and versions for bindings and reports (dev:info,
 * shader:info), so callers need not know the Vulkan bit values; and the
 * debug names and labels capture tools and validation messages show. */
#include "fg_vk.h"
#include "fg_vk_shader.h"

void fg_vk_version_parts(uint32_t v, uint32_t parts[3]) {
  parts[0] = VK_API_VERSION_MAJOR(v);
  parts[1] = VK_API_VERSION_MINOR(v);
  parts[2] = VK_API_VERSION_PATCH(v);
}

uint32_t fg_vk_memory_flag_names(VkMemoryPropertyFlags flags, const char **names) {
  static const struct { VkMemoryPropertyFlags bit; const char *name; } table[] = {
    {VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, "device_local"},
    {VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, "host_visible"},
    {VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, "host_coherent"},
    {VK_MEMORY_PROPERTY_HOST_CACHED_BIT, "host_cached"},
    {VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT, "lazily_allocated"},
    {VK_MEMORY_PROPERTY_PROTECTED_BIT, "protected"},
  };
  uint32_t n = 0;
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (flags & table[i].bit) names[n++] = table[i].name;
  return n;
}

int fg_vk_memory_heap_device_local(const fg_vk_device *dev, uint32_t heap) {
  return (dev->memprops.memoryHeaps[heap].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) != 0;
}

uint32_t fg_vk_shader_stage_names(VkShaderStageFlags stages, const char **names) {
  uint32_t n = 0;
  if (stages & VK_SHADER_STAGE_VERTEX_BIT) names[n++] = "vertex";
  if (stages & VK_SHADER_STAGE_FRAGMENT_BIT) names[n++] = "fragment";
  if (stages & VK_SHADER_STAGE_COMPUTE_BIT) names[n++] = "compute";
  return n;
}

void fg_vk_name_object(fg_vk_device *dev, VkObjectType type, uint64_t handle, const char *name) {
  if (!dev->set_object_name || !handle || !name) return;
  VkDebugUtilsObjectNameInfoEXT ni = {.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT,
                                      .objectType = type, .objectHandle = handle, .pObjectName = name};
  dev->set_object_name(dev->device, &ni);
}

void fg_vk_label_begin(fg_vk_device *dev, VkCommandBuffer cmd, const char *name) {
  if (!dev->cmd_begin_label) return;
  VkDebugUtilsLabelEXT l = {.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT, .pLabelName = name ? name : "?"};
  dev->cmd_begin_label(cmd, &l);
}

void fg_vk_label_end(fg_vk_device *dev, VkCommandBuffer cmd) {
  if (dev->cmd_end_label) dev->cmd_end_label(cmd);
}
