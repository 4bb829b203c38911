/* A device over a host's Vulkan objects (include/framegraph.h,
 * fg_device_create): the host made the instance, physical device, device and
 * queue; framegraph checks what it needs of them, adds the objects every
 * device has (command pool, one-shot fence, samplers) with the host's
 * VkAllocationCallbacks, and never destroys what it did not create.
 *
 * Function pointers: framegraph calls Vulkan through volk's entry points
 * loaded at instance level, which are the loader's dispatching trampolines:
 * the same for every instance and device of one loader, so a host's device
 * and framegraph's own (fg.vulkan{}) live side by side. The host's
 * vkGetInstanceProcAddr must therefore be the loader's (libvulkan.so.1),
 * which is what a program linked to the loader or using volk has. */
#include "fg_vk.h"
#include <stdlib.h>
#include <string.h>

static int has_name(const char *const *names, uint32_t n, const char *name) {
  for (uint32_t i = 0; i < n; i++)
    if (names[i] && !strcmp(names[i], name)) return 1;
  return 0;
}

/* volk's entry points: the loader's, through the host's vkGetInstanceProcAddr. */
static int load_volk(const fg_vk_host_desc *desc, char *err, size_t errlen) {
  if (!vkGetInstanceProcAddr) {
    volkInitializeCustom(desc->gipa);
  } else if (vkGetInstanceProcAddr != desc->gipa) {
    /* volk holds another vkGetInstanceProcAddr (fg.vulkan{} or an earlier
     * host device): both must resolve to the same loader to share its
     * trampolines. A layer's or driver's own entry point would not. */
    PFN_vkVoidFunction a = desc->gipa(desc->instance, "vkCreateImage");
    PFN_vkVoidFunction b = vkGetInstanceProcAddr(desc->instance, "vkCreateImage");
    if (a != b) {
      fg_errf(err, errlen, "fg_device_create: get_instance_proc_addr is not the Vulkan loader's (libvulkan.so.1) "
              "vkGetInstanceProcAddr that framegraph already uses; pass the loader's");
      return 0;
    }
  }
  volkLoadInstance(desc->instance);
  return 1;
}

/* What framegraph needs of the device (as device.c's check_device asks when
 * it picks one itself): Vulkan 1.3 with synchronization2, dynamicRendering,
 * maintenance4, timelineSemaphore, and VK_KHR_push_descriptor. The features
 * must also have been enabled at vkCreateDevice; supported is what can be
 * checked from here. */
static int check_host_device(fg_vk_device *dev, const fg_vk_host_desc *desc, char *err, size_t errlen) {
  vkGetPhysicalDeviceProperties(dev->phys, &dev->props);
  if (dev->props.apiVersion < VK_API_VERSION_1_3) {
    fg_errf(err, errlen, "fg_device_create: %s supports Vulkan %u.%u; framegraph needs 1.3", dev->props.deviceName,
            VK_API_VERSION_MAJOR(dev->props.apiVersion), VK_API_VERSION_MINOR(dev->props.apiVersion));
    return 0;
  }
  if (!has_name(desc->extensions, desc->extension_count, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME)) {
    fg_errf(err, errlen, "fg_device_create: the device was created without %s, which framegraph's shaders need: "
            "enable it at vkCreateDevice and list it in fg_device_desc.enabled_extensions",
            VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
    return 0;
  }
  VkPhysicalDeviceVulkan13Features f13 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  VkPhysicalDeviceVulkan12Features f12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, .pNext = &f13};
  VkPhysicalDeviceFeatures2 f = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &f12};
  vkGetPhysicalDeviceFeatures2(dev->phys, &f);
  if (!f13.synchronization2 || !f13.dynamicRendering || !f13.maintenance4 || !f12.timelineSemaphore) {
    fg_errf(err, errlen, "fg_device_create: %s lacks synchronization2, dynamicRendering, maintenance4 or "
            "timelineSemaphore, which framegraph needs enabled", dev->props.deviceName);
    return 0;
  }
  uint32_t nq = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(dev->phys, &nq, NULL);
  if (desc->queue_family >= nq) {
    fg_errf(err, errlen, "fg_device_create: queue_family %u does not exist (the device has %u families)",
            desc->queue_family, nq);
    return 0;
  }
  VkQueueFamilyProperties q[64];
  if (nq > 64) nq = 64;
  vkGetPhysicalDeviceQueueFamilyProperties(dev->phys, &nq, q);
  VkQueueFlags need = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
  if ((q[desc->queue_family].queueFlags & need) != need) {
    fg_errf(err, errlen, "fg_device_create: queue family %u is not graphics+compute; give framegraph a queue of a "
            "family that does both", desc->queue_family);
    return 0;
  }
  dev->timestamp_valid_bits = q[desc->queue_family].timestampValidBits;
  vkGetPhysicalDeviceMemoryProperties(dev->phys, &dev->memprops);
  dev->has_push_descriptor = 1;
  dev->has_memory_budget = has_name(desc->extensions, desc->extension_count, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
  dev->has_present = has_name(desc->extensions, desc->extension_count, VK_KHR_SWAPCHAIN_EXTENSION_NAME);
  /* the host may not have enabled them: framegraph only uses them when it did
   * (fg_device_desc.features_storage_without_format is not worth an API) */
  dev->has_storage_without_format = 0;
  return 1;
}

fg_vk_device *fg_vk_adopt(const fg_vk_host_desc *desc, char *err, size_t errlen) {
  if (!desc || !desc->instance || !desc->phys || !desc->device || !desc->queue || !desc->gipa) {
    fg_errf(err, errlen, "fg_device_create: instance, physical_device, device, queue and get_instance_proc_addr "
            "are all required");
    return NULL;
  }
  if (!load_volk(desc, err, errlen)) return NULL;
  fg_vk_device *dev = fg_malloc(&desc->hooks, sizeof *dev);
  if (!dev) { fg_errf(err, errlen, "fg_device_create: out of memory"); return NULL; }
  memset(dev, 0, sizeof *dev);
  dev->hooks = desc->hooks;
  pthread_mutex_init(&dev->msg_lock, NULL);
  pthread_mutex_init(&dev->once_lock, NULL);
  dev->refs = 1;
  dev->borrowed = 1;
  dev->instance = desc->instance;
  dev->phys = desc->phys;
  dev->device = desc->device;
  dev->queue = desc->queue;
  dev->queue_family = desc->queue_family;
  dev->vkalloc = desc->vkalloc;
  dev->validation = desc->validation;
  /* names and labels for the host's capture tools and its messenger, when its
   * instance has VK_EXT_debug_utils (NULL otherwise: names.c skips them) */
  dev->set_object_name =
    (PFN_vkSetDebugUtilsObjectNameEXT)vkGetInstanceProcAddr(dev->instance, "vkSetDebugUtilsObjectNameEXT");
  dev->cmd_begin_label =
    (PFN_vkCmdBeginDebugUtilsLabelEXT)vkGetInstanceProcAddr(dev->instance, "vkCmdBeginDebugUtilsLabelEXT");
  dev->cmd_end_label = (PFN_vkCmdEndDebugUtilsLabelEXT)vkGetInstanceProcAddr(dev->instance, "vkCmdEndDebugUtilsLabelEXT");
  if (!dev->set_object_name || !dev->cmd_begin_label || !dev->cmd_end_label)
    dev->set_object_name = NULL, dev->cmd_begin_label = NULL, dev->cmd_end_label = NULL;
  if (!check_host_device(dev, desc, err, errlen) || !fg_vk_device_init_common(dev, err, errlen)) {
    fg_vk_release(dev);
    return NULL;
  }
  return dev;
}
