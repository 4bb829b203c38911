/* The example host's Vulkan objects (vk_setup.h). */
#include "vk_setup.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT sev,
                                                 VkDebugUtilsMessageTypeFlagsEXT type,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *data, void *user) {
  host_vk *vk = user;
  /* the loader's notes and the layer's own status lines are not findings */
  if (!(sev & (VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)))
    return VK_FALSE;
  if (type == VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT && !(sev & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT))
    return VK_FALSE;
  vk->messages++;
  if (vk->print_messages) fprintf(stderr, "validation: %s\n", data->pMessage ? data->pMessage : "?");
  return VK_FALSE;
}

/* Counting allocation callbacks: the host sees framegraph's Vulkan objects
 * go through its allocator. Each block keeps its offset and size in the 16
 * bytes before it. */
static void *VKAPI_CALL a_alloc(void *u, size_t size, size_t align, VkSystemAllocationScope s) {
  host_vk *vk = u;
  if (align < 16) align = 16;
  void *base = NULL;
  if (posix_memalign(&base, align, size + align)) return NULL;
  size_t *h = (size_t *)((char *)base + align - 16);
  h[0] = align;
  h[1] = size;
  vk->allocations++;
  vk->alloc_calls++;
  return (char *)base + align;
}
static void VKAPI_CALL a_free(void *u, void *mem) {
  host_vk *vk = u;
  if (!mem) return;
  size_t *h = (size_t *)((char *)mem - 16);
  vk->allocations--;
  free((char *)mem - h[0]);
}
static void *VKAPI_CALL a_realloc(void *u, void *orig, size_t size, size_t align, VkSystemAllocationScope s) {
  if (!orig) return a_alloc(u, size, align, s);
  if (!size) { a_free(u, orig); return NULL; }
  void *n = a_alloc(u, size, align, s);
  if (!n) return NULL;
  size_t old = ((size_t *)((char *)orig - 16))[1];
  memcpy(n, orig, old < size ? old : size);
  a_free(u, orig);
  return n;
}

int host_vk_memory_type(const host_vk *vk, uint32_t bits, VkMemoryPropertyFlags props) {
  for (uint32_t i = 0; i < vk->memprops.memoryTypeCount; i++)
    if ((bits & (1u << i)) && (vk->memprops.memoryTypes[i].propertyFlags & props) == props) return (int)i;
  return -1;
}

int host_vk_create(host_vk *vk, int validation) {
  memset(vk, 0, sizeof *vk);
  vk->print_messages = 1;
  vk->alloc = (VkAllocationCallbacks){.pUserData = vk, .pfnAllocation = a_alloc, .pfnReallocation = a_realloc,
                                      .pfnFree = a_free};
  VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = "framegraph-host",
                           .apiVersion = VK_API_VERSION_1_3};
  const char *layers[] = {"VK_LAYER_KHRONOS_validation"};
  const char *exts[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME};
  VkValidationFeatureEnableEXT en[] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
  VkValidationFeaturesEXT vf = {.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
                                .enabledValidationFeatureCount = 1, .pEnabledValidationFeatures = en};
  VkDebugUtilsMessengerCreateInfoEXT mi = {
    .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
    .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
    .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                   VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
    .pfnUserCallback = on_message, .pUserData = vk};
  if (validation) mi.pNext = &vf;
  VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pNext = validation ? &mi : NULL,
                              .pApplicationInfo = &app, .enabledLayerCount = validation ? 1 : 0,
                              .ppEnabledLayerNames = layers, .enabledExtensionCount = validation ? 2 : 0,
                              .ppEnabledExtensionNames = exts};
  VkResult r = vkCreateInstance(&ici, NULL, &vk->instance);
  if (r != VK_SUCCESS) { fprintf(stderr, "vkCreateInstance failed (%d)\n", (int)r); return -1; }
  if (validation) {
    PFN_vkCreateDebugUtilsMessengerEXT cm =
      (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(vk->instance, "vkCreateDebugUtilsMessengerEXT");
    mi.pNext = NULL;
    if (!cm || cm(vk->instance, &mi, NULL, &vk->messenger) != VK_SUCCESS) {
      fprintf(stderr, "creating the debug messenger failed\n");
      return -1;
    }
  }
  /* the first Vulkan 1.3 device (lavapipe here; FG_DEVICE=gpu-like choice is the host's business) */
  uint32_t n = 8;
  VkPhysicalDevice pd[8];
  vkEnumeratePhysicalDevices(vk->instance, &n, pd);
  for (uint32_t i = 0; i < n && !vk->phys; i++) {
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(pd[i], &p);
    if (p.apiVersion >= VK_API_VERSION_1_3) vk->phys = pd[i];
  }
  if (!vk->phys) { fprintf(stderr, "no Vulkan 1.3 device\n"); return -1; }
  vkGetPhysicalDeviceMemoryProperties(vk->phys, &vk->memprops);
  uint32_t nq = 16;
  VkQueueFamilyProperties q[16];
  vkGetPhysicalDeviceQueueFamilyProperties(vk->phys, &nq, q);
  vk->family = UINT32_MAX;
  for (uint32_t i = 0; i < nq && vk->family == UINT32_MAX; i++)
    if ((q[i].queueFlags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT)) == (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT))
      vk->family = i;
  if (vk->family == UINT32_MAX) { fprintf(stderr, "no graphics+compute queue\n"); return -1; }
  /* what framegraph needs (framegraph.h, fg_device_desc) */
  vk->extensions[vk->extension_count++] = VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME;
  VkPhysicalDeviceVulkan13Features f13 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
                                          .synchronization2 = VK_TRUE, .dynamicRendering = VK_TRUE,
                                          .maintenance4 = VK_TRUE};
  VkPhysicalDeviceVulkan12Features f12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                                          .pNext = &f13, .timelineSemaphore = VK_TRUE};
  VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &f12};
  float prio = 1.0f;
  VkDeviceQueueCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = vk->family,
                                .queueCount = 1, .pQueuePriorities = &prio};
  VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = &f2, .queueCreateInfoCount = 1,
                            .pQueueCreateInfos = &qi, .enabledExtensionCount = vk->extension_count,
                            .ppEnabledExtensionNames = vk->extensions};
  r = vkCreateDevice(vk->phys, &dci, NULL, &vk->device);
  if (r != VK_SUCCESS) { fprintf(stderr, "vkCreateDevice failed (%d)\n", (int)r); return -1; }
  vkGetDeviceQueue(vk->device, vk->family, 0, &vk->queue);
  return 0;
}

void host_vk_destroy(host_vk *vk) {
  if (vk->device) vkDestroyDevice(vk->device, NULL);
  if (vk->messenger) {
    PFN_vkDestroyDebugUtilsMessengerEXT dm =
      (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(vk->instance, "vkDestroyDebugUtilsMessengerEXT");
    if (dm) dm(vk->instance, vk->messenger, NULL);
  }
  if (vk->instance) vkDestroyInstance(vk->instance, NULL);
}
