/* The async compute queue: which one a device gets (fg_vk.h, queues.c
 * declarations) and how resources are shared with it. */
#include "fg_vk.h"
#include "fg_util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int env_mode(int mode) {
  const char *e = getenv("FG_ASYNC_QUEUE");
  if (!e || !*e) return mode;
  if (!strcmp(e, "off")) return FG_VK_ASYNC_OFF;
  if (!strcmp(e, "same")) return FG_VK_ASYNC_SAME;
  if (!strcmp(e, "auto")) return FG_VK_ASYNC_AUTO;
  return mode;  /* unknown: leave what the caller asked */
}

uint32_t fg_vk_async_queue_infos(fg_vk_device *dev, VkDeviceQueueCreateInfo *qi, float *prio) {
  dev->async_mode = env_mode(dev->async_mode);
  dev->async_family = UINT32_MAX;
  dev->async_index = 0;
  if (dev->async_mode != FG_VK_ASYNC_AUTO) return 1;
  uint32_t nq = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(dev->phys, &nq, NULL);
  VkQueueFamilyProperties *q = fg_vk_calloc(dev, nq, sizeof *q);
  if (!q) return 1;
  vkGetPhysicalDeviceQueueFamilyProperties(dev->phys, &nq, q);
  /* A compute family without graphics is the hardware's async engine
   * (NVIDIA, AMD); else a second queue of the graphics family, if any. */
  for (uint32_t i = 0; i < nq && dev->async_family == UINT32_MAX; i++)
    if (i != dev->queue_family && (q[i].queueFlags & VK_QUEUE_COMPUTE_BIT) &&
        !(q[i].queueFlags & VK_QUEUE_GRAPHICS_BIT) && q[i].queueCount > 0)
      dev->async_family = i;
  uint32_t n = 1;
  if (dev->async_family != UINT32_MAX) {
    qi[1] = qi[0];
    qi[1].queueFamilyIndex = dev->async_family;
    qi[1].queueCount = 1;
    qi[1].pQueuePriorities = prio + 1;
    n = 2;
  } else if (dev->queue_family < nq && q[dev->queue_family].queueCount >= 2) {
    dev->async_family = dev->queue_family;
    dev->async_index = 1;
    qi[0].queueCount = 2;
  }
  if (dev->async_family != UINT32_MAX) {
    dev->async_timestamp_bits = q[dev->async_family].timestampValidBits;
    dev->async_compute_only = !(q[dev->async_family].queueFlags & VK_QUEUE_GRAPHICS_BIT);
  }
  fg_vk_free(dev, q);
  return n;
}

void fg_vk_async_queue_get(fg_vk_device *dev) {
  dev->async_queue = VK_NULL_HANDLE;
  if (dev->async_mode == FG_VK_ASYNC_SAME) {
    dev->async_queue = dev->queue;
    dev->async_family = dev->queue_family;
    dev->async_timestamp_bits = dev->timestamp_valid_bits;
  } else if (dev->async_family != UINT32_MAX) {
    vkGetDeviceQueue(dev->device, dev->async_family, dev->async_index, &dev->async_queue);
  }
  dev->share_families[0] = dev->queue_family;
  dev->share_families[1] = dev->async_queue ? dev->async_family : dev->queue_family;
}

void fg_vk_share(const fg_vk_device *dev, VkSharingMode *mode, uint32_t *count, const uint32_t **families) {
  if (dev && dev->async_queue && dev->share_families[0] != dev->share_families[1]) {
    *mode = VK_SHARING_MODE_CONCURRENT;
    *count = 2;
    *families = dev->share_families;
  } else {
    *mode = VK_SHARING_MODE_EXCLUSIVE;
    *count = 0;
    *families = NULL;
  }
}

const char *fg_vk_async_name(const fg_vk_device *dev, char *buf, size_t len) {
  if (!dev->async_queue) snprintf(buf, len, "none");
  else if (dev->async_mode == FG_VK_ASYNC_SAME) snprintf(buf, len, "same queue (testing)");
  else if (dev->async_family != dev->queue_family)
    snprintf(buf, len, "family %u (%s)", dev->async_family, dev->async_compute_only ? "compute" : "graphics");
  else snprintf(buf, len, "family %u, queue %u", dev->async_family, dev->async_index);
  return buf;
}
