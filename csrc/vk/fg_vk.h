/* fg_vk: the Vulkan backend's shared device object (volk, Vulkan 1.3).
 * Every csrc/vk file builds on this; csrc/lua/vk.c wraps it for Lua. */
#ifndef FG_VK_H
#define FG_VK_H
#include <volk.h>
#include <stddef.h>
#include <stdint.h>

typedef struct fg_vk_desc {
  int validation;        /* enable VK_LAYER_KHRONOS_validation + synchronization validation */
  int prefer_software;   /* 1: pick lavapipe (CPU) even when a GPU exists; 0: prefer a GPU */
} fg_vk_desc;

typedef struct fg_vk_device {
  VkInstance instance;
  VkDebugUtilsMessengerEXT messenger;
  VkPhysicalDevice phys;
  VkDevice device;
  VkQueue queue;
  uint32_t queue_family;
  VkPhysicalDeviceProperties props;
  VkPhysicalDeviceMemoryProperties memprops;
  int has_memory_budget;     /* VK_EXT_memory_budget enabled */
  int has_push_descriptor;   /* VK_KHR_push_descriptor enabled */
  VkCommandPool cmdpool;     /* for one-shot work (uploads, read-backs) */
  /* Validation messages (warnings and errors) collected by the debug messenger
   * since the last fg_vk_take_messages; tests treat any as a failure. */
  char **messages;
  size_t message_count, message_cap;
} fg_vk_device;

/* Returns NULL and writes a message (e.g. "no Vulkan 1.3 device found") on failure. */
fg_vk_device *fg_vk_create(const fg_vk_desc *desc, char *err, size_t errlen);
void fg_vk_destroy(fg_vk_device *dev);

/* Hands over collected validation messages (caller frees each and the array). */
char **fg_vk_take_messages(fg_vk_device *dev, size_t *count);

/* Index of the first memory type in `bits` with all `props`, or -1. */
int fg_vk_find_memory_type(const fg_vk_device *dev, uint32_t bits, VkMemoryPropertyFlags props);

/* Records and submits a one-shot command buffer, waiting for completion. */
typedef void (*fg_vk_record_fn)(VkCommandBuffer cmd, void *user);
VkResult fg_vk_submit_once(fg_vk_device *dev, fg_vk_record_fn fn, void *user);

#endif
