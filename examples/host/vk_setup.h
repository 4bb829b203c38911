/* The example host's own Vulkan: instance (validation + synchronization
 * validation when asked, with the host's debug messenger counting messages),
 * a Vulkan 1.3 device with what framegraph needs, one graphics+compute queue.
 * Nothing here is framegraph's: an engine has its own. */
#ifndef HOST_VK_SETUP_H
#define HOST_VK_SETUP_H
#include <vulkan/vulkan.h>

typedef struct host_vk {
  VkInstance instance;
  VkDebugUtilsMessengerEXT messenger;
  VkPhysicalDevice phys;
  VkDevice device;
  uint32_t family;
  VkQueue queue;
  VkPhysicalDeviceMemoryProperties memprops;
  const char *extensions[4];       /* the device extensions enabled */
  uint32_t extension_count;
  unsigned messages;               /* validation messages seen by the messenger */
  int print_messages;
  VkAllocationCallbacks alloc;     /* counting allocation callbacks (see allocations) */
  long allocations;                /* live host allocations made through alloc */
  long alloc_calls;                /* every allocation through alloc */
} host_vk;

/* 0, or -1 with a message on stderr. validation: layer + sync validation + messenger. */
int host_vk_create(host_vk *vk, int validation);
void host_vk_destroy(host_vk *vk);
int host_vk_memory_type(const host_vk *vk, uint32_t bits, VkMemoryPropertyFlags props);

#endif
