/* Headless Vulkan 1.3 device through volk: instance (+ validation with
 * synchronization validation), physical device choice, one graphics+compute
 * queue, one-shot submission and validation message collection. */
#include "fg_vk.h"
#include "fg_util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VALIDATION_LAYER "VK_LAYER_KHRONOS_validation"

static char *dup_str(const fg_alloc_hooks *h, const char *s) {
  size_t n = strlen(s) + 1;
  char *d = fg_malloc(h, n);
  if (d) memcpy(d, s, n);
  return d;
}

void fg_vk_push_message(fg_vk_device *dev, const char *msg) {
  pthread_mutex_lock(&dev->msg_lock);
  if (dev->message_count == dev->message_cap) {
    size_t cap = dev->message_cap ? dev->message_cap * 2 : 16;
    char **m = fg_realloc(&dev->hooks, dev->messages, cap * sizeof *m);
    if (!m) { pthread_mutex_unlock(&dev->msg_lock); return; }
    dev->messages = m;
    dev->message_cap = cap;
  }
  char *d = dup_str(&dev->hooks, msg);
  if (d) dev->messages[dev->message_count++] = d;
  pthread_mutex_unlock(&dev->msg_lock);
}

static void free_messages(const fg_alloc_hooks *h, char **msgs, size_t count) {
  for (size_t i = 0; i < count; i++) fg_free(h, msgs[i]);
  fg_free(h, msgs);
}

/* The store is the device's memory (its hooks); what is taken is the
 * caller's (malloc, fg_vk_free_messages), so a hooked device's messages are
 * copied out. */
char **fg_vk_take_messages(fg_vk_device *dev, size_t *count) {
  pthread_mutex_lock(&dev->msg_lock);
  char **m = dev->messages;
  size_t n = dev->message_count;
  dev->messages = NULL;
  dev->message_count = dev->message_cap = 0;
  pthread_mutex_unlock(&dev->msg_lock);
  *count = n;
  if (!m || !dev->hooks.realloc_fn) return m;
  char **out = calloc(n ? n : 1, sizeof *out);
  for (size_t i = 0; i < n && out; i++) out[i] = dup_str(NULL, m[i]);
  free_messages(&dev->hooks, m, n);
  if (!out) *count = 0;
  return out;
}

void fg_vk_free_messages(char **msgs, size_t count) { free_messages(NULL, msgs, count); }

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT sev,
                                                 VkDebugUtilsMessageTypeFlagsEXT type,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *data,
                                                 void *user) {
  fg_vk_device *dev = user;
  /* The loader's own notes (e.g. "skipping ICD" for drivers of absent
   * hardware) arrive as GENERAL warnings; they say nothing about our usage. */
  if (type == VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT && !(sev & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) &&
      (!data->pMessageIdName || !strcmp(data->pMessageIdName, "Loader Message")))
    return VK_FALSE;
  /* Notes about the layer itself, not our usage: its settings at
   * vkCreateInstance, and its shader-validation cache file that does not
   * exist yet on a fresh machine (seen on an NVIDIA GPU). */
  if (!(sev & (VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)) &&
      data->pMessageIdName &&
      (!strcmp(data->pMessageIdName, "UNASSIGNED-khronos-validation-createinstance-status-message") ||
       !strcmp(data->pMessageIdName, "UNASSIGNED-cache-file-error")))
    return VK_FALSE;
  char buf[4096];
  int len = snprintf(buf, sizeof buf, "[%s%s] %s: %s",
                     (sev & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)     ? "error"
                     : (sev & VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) ? "warning"
                                                                               : "info",
                     (type & VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT) ? ", performance" : "",
                     data->pMessageIdName ? data->pMessageIdName : "-", data->pMessage ? data->pMessage : "");
  /* Which objects (by the names names.c gave them) and which passes (the
   * labels open in the command buffer) the message is about. */
  uint32_t named = 0;
  for (uint32_t i = 0; i < data->objectCount; i++)
    if (data->pObjects[i].pObjectName && len > 0 && (size_t)len < sizeof buf)
      len += snprintf(buf + len, sizeof buf - (size_t)len, "%s'%s'", named++ ? ", " : " [objects: ",
                      data->pObjects[i].pObjectName);
  if (named && len > 0 && (size_t)len < sizeof buf) len += snprintf(buf + len, sizeof buf - (size_t)len, "]");
  for (uint32_t i = 0; i < data->cmdBufLabelCount; i++)
    if (len > 0 && (size_t)len < sizeof buf)
      len += snprintf(buf + len, sizeof buf - (size_t)len, "%s%s", i ? " > " : " [passes: ",
                      data->pCmdBufLabels[i].pLabelName ? data->pCmdBufLabels[i].pLabelName : "?");
  if (data->cmdBufLabelCount && len > 0 && (size_t)len < sizeof buf) snprintf(buf + len, sizeof buf - (size_t)len, "]");
  fg_vk_push_message(dev, buf);
  return VK_FALSE;  /* never abort the call: the test decides */
}

const char *fg_vk_device_type_name(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual";
    default: return "other";
  }
}

static int has_ext(const VkExtensionProperties *e, uint32_t n, const char *name) {
  for (uint32_t i = 0; i < n; i++)
    if (!strcmp(e[i].extensionName, name)) return 1;
  return 0;
}

static int has_layer(const char *name) {
  uint32_t n = 0;
  vkEnumerateInstanceLayerProperties(&n, NULL);
  VkLayerProperties *l = calloc(n ? n : 1, sizeof *l);
  if (!l) return 0;
  vkEnumerateInstanceLayerProperties(&n, l);
  int found = 0;
  for (uint32_t i = 0; i < n; i++)
    if (!strcmp(l[i].layerName, name)) found = 1;
  free(l);
  return found;
}

/* Extensions of the implementation, or of one layer when `layer` is set. */
static VkExtensionProperties *instance_exts(const char *layer, uint32_t *n) {
  *n = 0;
  vkEnumerateInstanceExtensionProperties(layer, n, NULL);
  VkExtensionProperties *e = calloc(*n ? *n : 1, sizeof *e);
  if (e) vkEnumerateInstanceExtensionProperties(layer, n, e);
  else *n = 0;
  return e;
}

typedef struct candidate {
  VkPhysicalDevice phys;
  VkPhysicalDeviceProperties props;
  uint32_t family;
  int push_descriptor, memory_budget, portability_subset;
  int storage_without_format, scalar_layout, host_query_reset, swapchain;
  uint32_t timestamp_bits;
} candidate;

/* Fills c and returns 1 when `phys` can run framegraph; else writes why into why. */
static int check_device(VkPhysicalDevice phys, candidate *c, char *why, size_t whylen) {
  memset(c, 0, sizeof *c);
  c->phys = phys;
  vkGetPhysicalDeviceProperties(phys, &c->props);
  if (c->props.apiVersion < VK_API_VERSION_1_3) {
    fg_errf(why, whylen, "%s: Vulkan %u.%u < 1.3", c->props.deviceName,
            VK_API_VERSION_MAJOR(c->props.apiVersion), VK_API_VERSION_MINOR(c->props.apiVersion));
    return 0;
  }
  VkPhysicalDeviceVulkan13Features f13 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  VkPhysicalDeviceVulkan12Features f12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, .pNext = &f13};
  VkPhysicalDeviceFeatures2 f = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &f12};
  vkGetPhysicalDeviceFeatures2(phys, &f);
  char missing[256] = "";
  if (!f13.synchronization2) strcat(missing, " synchronization2");
  if (!f13.dynamicRendering) strcat(missing, " dynamicRendering");
  if (!f13.maintenance4) strcat(missing, " maintenance4");
  if (!f12.timelineSemaphore) strcat(missing, " timelineSemaphore");
  uint32_t nq = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(phys, &nq, NULL);
  VkQueueFamilyProperties *q = calloc(nq ? nq : 1, sizeof *q);
  if (!q) return 0;
  vkGetPhysicalDeviceQueueFamilyProperties(phys, &nq, q);
  uint32_t family = UINT32_MAX;
  VkQueueFlags need = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
  for (uint32_t i = 0; i < nq && family == UINT32_MAX; i++)
    if ((q[i].queueFlags & need) == need && q[i].queueCount > 0) family = i;
  if (family != UINT32_MAX) c->timestamp_bits = q[family].timestampValidBits;
  free(q);
  if (family == UINT32_MAX) strcat(missing, " a graphics+compute queue family");
  uint32_t ne = 0;
  vkEnumerateDeviceExtensionProperties(phys, NULL, &ne, NULL);
  VkExtensionProperties *e = calloc(ne ? ne : 1, sizeof *e);
  if (!e) return 0;
  vkEnumerateDeviceExtensionProperties(phys, NULL, &ne, e);
  c->push_descriptor = has_ext(e, ne, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
  c->memory_budget = has_ext(e, ne, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
  c->portability_subset = has_ext(e, ne, "VK_KHR_portability_subset");
  c->swapchain = has_ext(e, ne, VK_KHR_SWAPCHAIN_EXTENSION_NAME);
  free(e);
  if (missing[0]) {
    fg_errf(why, whylen, "%s: missing%s", c->props.deviceName, missing);
    return 0;
  }
  c->family = family;
  c->storage_without_format = f.features.shaderStorageImageReadWithoutFormat &&
                              f.features.shaderStorageImageWriteWithoutFormat;
  c->scalar_layout = f12.scalarBlockLayout;
  c->host_query_reset = f12.hostQueryReset;
  return 1;
}

static int score(const candidate *c, int prefer_software) {
  switch (c->props.deviceType) {
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return prefer_software ? 10 : 1;
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return prefer_software ? 5 : 10;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return prefer_software ? 4 : 9;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 3;
    default: return 2;
  }
}

static VkSampler make_sampler(fg_vk_device *dev, VkFilter filter) {
  VkSamplerCreateInfo si = {
    .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
    .magFilter = filter, .minFilter = filter,
    .mipmapMode = filter == VK_FILTER_LINEAR ? VK_SAMPLER_MIPMAP_MODE_LINEAR : VK_SAMPLER_MIPMAP_MODE_NEAREST,
    .addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
    .addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
    .addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
    .maxLod = VK_LOD_CLAMP_NONE,
  };
  VkSampler s = VK_NULL_HANDLE;
  vkCreateSampler(dev->device, &si, dev->vkalloc, &s);
  return s;
}

/* Instance (with the validation layer, its features and the messenger
 * when desc->validation) and volk's instance functions. 1, or 0 + message. */
static int create_instance(fg_vk_device *dev, const fg_vk_desc *desc, char *err, size_t errlen) {
  uint32_t ne = 0;
  VkExtensionProperties *ie = instance_exts(NULL, &ne);
  const char *exts[8];
  const char *layers[1];
  uint32_t next = 0, nlayers = 0;
  VkInstanceCreateFlags iflags = 0;
  if (has_ext(ie, ne, VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME)) {
    exts[next++] = VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME;
    iflags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
  }
  int debug_utils = 0, features_ext = 0;
  if (desc->validation) {
    if (!has_layer(VALIDATION_LAYER)) {
      free(ie);
      fg_errf(err, errlen, "validation requested but %s is not installed "
              "(Debian: apt install vulkan-validationlayers), or pass validation = false", VALIDATION_LAYER);
      return 0;
    }
    layers[nlayers++] = VALIDATION_LAYER;
    uint32_t nle = 0;
    VkExtensionProperties *le = instance_exts(VALIDATION_LAYER, &nle);
    debug_utils = has_ext(ie, ne, VK_EXT_DEBUG_UTILS_EXTENSION_NAME) ||
                  has_ext(le, nle, VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    features_ext = has_ext(le, nle, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME) ||
                   has_ext(ie, ne, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
    free(le);
    if (!debug_utils) {
      free(ie);
      fg_errf(err, errlen, "validation requested but VK_EXT_debug_utils is unavailable, "
              "so messages cannot be collected");
      return 0;
    }
    exts[next++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    if (features_ext) exts[next++] = VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME;
  } else if (has_ext(ie, ne, VK_EXT_DEBUG_UTILS_EXTENSION_NAME)) {
    /* without validation too: capture tools (RenderDoc, Nsight) show the
     * pass labels and object names (names.c) */
    debug_utils = 1;
    exts[next++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
  }
  /* A window (fg_vk_window.h) needs the X11 surface extensions at instance creation. */
  if (desc->present) {
    const char *need[2] = {VK_KHR_SURFACE_EXTENSION_NAME, "VK_KHR_xcb_surface"};
    for (int i = 0; i < 2; i++) {
      if (!has_ext(ie, ne, need[i])) {
        free(ie);
        fg_errf(err, errlen, "presenting needs the instance extension %s, which the Vulkan loader/driver does not "
                "offer (no X11 WSI); render headless instead (framegraph view --frames N --screenshot out.png)", need[i]);
        return 0;
      }
      exts[next++] = need[i];
    }
  }
  free(ie);

  VkApplicationInfo app = {
    .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
    .pApplicationName = "framegraph", .pEngineName = "framegraph",
    .apiVersion = VK_API_VERSION_1_3,
  };
  VkValidationFeatureEnableEXT enables[] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
  VkValidationFeaturesEXT vfeat = {
    .sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
    .enabledValidationFeatureCount = 1, .pEnabledValidationFeatures = enables,
  };
  /* The same messenger info chained into instance creation also reports
   * problems found inside vkCreateInstance/vkDestroyInstance. */
  VkDebugUtilsMessengerCreateInfoEXT mi = {
    .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
    /* every severity the layers use for findings: a performance warning or
     * an info note about our usage is a test failure too */
    .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
    .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                   VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
    .pfnUserCallback = on_message, .pUserData = dev,
  };
  if (desc->validation) {
    mi.pNext = features_ext ? &vfeat : NULL;
  }
  VkInstanceCreateInfo ici = {
    .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
    .pNext = desc->validation ? &mi : NULL,
    .flags = iflags, .pApplicationInfo = &app,
    .enabledLayerCount = nlayers, .ppEnabledLayerNames = layers,
    .enabledExtensionCount = next, .ppEnabledExtensionNames = exts,
  };
  VkResult r = vkCreateInstance(&ici, NULL, &dev->instance);
  if (r == VK_ERROR_INCOMPATIBLE_DRIVER) {
    fg_errf(err, errlen, "no Vulkan device found: the loader has no Vulkan 1.3 driver "
            "(lavapipe: apt install mesa-vulkan-drivers; check VK_DRIVER_FILES/VK_ICD_FILENAMES)");
    return 0;
  }
  if (r != VK_SUCCESS) {
    fg_errf(err, errlen, "vkCreateInstance failed (VkResult %d)", (int)r);
    return 0;
  }
  volkLoadInstance(dev->instance);
  dev->validation = desc->validation;
  if (debug_utils) {
    /* per device, like destroy_messenger: volk's globals follow the last instance */
    dev->set_object_name =
      (PFN_vkSetDebugUtilsObjectNameEXT)vkGetInstanceProcAddr(dev->instance, "vkSetDebugUtilsObjectNameEXT");
    dev->cmd_begin_label =
      (PFN_vkCmdBeginDebugUtilsLabelEXT)vkGetInstanceProcAddr(dev->instance, "vkCmdBeginDebugUtilsLabelEXT");
    dev->cmd_end_label =
      (PFN_vkCmdEndDebugUtilsLabelEXT)vkGetInstanceProcAddr(dev->instance, "vkCmdEndDebugUtilsLabelEXT");
    if (!dev->set_object_name || !dev->cmd_begin_label || !dev->cmd_end_label)
      dev->set_object_name = NULL, dev->cmd_begin_label = NULL, dev->cmd_end_label = NULL;
  }
  if (desc->validation) {
    mi.pNext = NULL;
    PFN_vkCreateDebugUtilsMessengerEXT create_messenger =
      (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(dev->instance, "vkCreateDebugUtilsMessengerEXT");
    dev->destroy_messenger =
      (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(dev->instance, "vkDestroyDebugUtilsMessengerEXT");
    r = create_messenger && dev->destroy_messenger
          ? create_messenger(dev->instance, &mi, NULL, &dev->messenger) : VK_ERROR_EXTENSION_NOT_PRESENT;
    if (r != VK_SUCCESS) {
      fg_errf(err, errlen, "vkCreateDebugUtilsMessengerEXT failed (VkResult %d)", (int)r);
      return 0;
    }
  }

  return 1;
}

/* The best device for desc (FG_DEVICE overrides prefer_software). 1, or 0 +
 * message listing why each device was refused. */
static int pick_device(fg_vk_device *dev, const fg_vk_desc *desc, candidate *best, char *err, size_t errlen) {
  uint32_t np = 0;
  vkEnumeratePhysicalDevices(dev->instance, &np, NULL);
  VkPhysicalDevice *pd = calloc(np ? np : 1, sizeof *pd);
  if (!pd) { fg_errf(err, errlen, "out of memory"); return 0; }
  vkEnumeratePhysicalDevices(dev->instance, &np, pd);
  candidate c;
  memset(best, 0, sizeof *best);
  int best_score = -1;
  /* FG_DEVICE=gpu|software overrides the caller's preference, so the same
   * tests and examples run on lavapipe here and on a real GPU unchanged. */
  int prefer_software = desc->prefer_software;
  const char *forced = getenv("FG_DEVICE");
  if (forced && strcmp(forced, "gpu") == 0) prefer_software = 0;
  else if (forced && strcmp(forced, "software") == 0) prefer_software = 1;
  char reasons[1024] = "";
  for (uint32_t i = 0; i < np; i++) {
    char why[256];
    if (check_device(pd[i], &c, why, sizeof why)) {
      int s = score(&c, prefer_software);
      if (s > best_score) { *best = c; best_score = s; }
    } else {
      size_t l = strlen(reasons);
      snprintf(reasons + l, sizeof reasons - l, "%s%s", l ? "; " : "", why);
    }
  }
  free(pd);
  if (best_score >= 0 && desc->present && !best->swapchain) {
    fg_errf(err, errlen, "presenting needs VK_KHR_swapchain, which %s does not offer; render headless instead "
            "(framegraph view --frames N --screenshot out.png)", best->props.deviceName);
    return 0;
  }
  if (best_score < 0) {
    if (np == 0)
      fg_errf(err, errlen, "no Vulkan device found (no driver installed? lavapipe: apt install mesa-vulkan-drivers)");
    else
      fg_errf(err, errlen, "no Vulkan 1.3 device with synchronization2, dynamicRendering, maintenance4, "
              "timelineSemaphore and a graphics+compute queue: %s", reasons);
    return 0;
  }
  dev->phys = best->phys;
  dev->props = best->props;
  dev->queue_family = best->family;
  dev->timestamp_valid_bits = best->timestamp_bits;
  vkGetPhysicalDeviceMemoryProperties(dev->phys, &dev->memprops);

  return 1;
}

/* Logical device with the features framegraph uses, and its queue. */
static int create_logical(fg_vk_device *dev, const candidate *best, int present, char *err, size_t errlen) {
  const char *dexts[5];
  uint32_t ndext = 0;
  if (present) dexts[ndext++] = VK_KHR_SWAPCHAIN_EXTENSION_NAME;
  if (best->push_descriptor) dexts[ndext++] = VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME;
  if (best->memory_budget) dexts[ndext++] = VK_EXT_MEMORY_BUDGET_EXTENSION_NAME;
  if (best->portability_subset) dexts[ndext++] = "VK_KHR_portability_subset";
  VkPhysicalDeviceVulkan13Features f13 = {
    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
    .synchronization2 = VK_TRUE, .dynamicRendering = VK_TRUE, .maintenance4 = VK_TRUE,
  };
  VkPhysicalDeviceVulkan12Features f12 = {
    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, .pNext = &f13,
    .timelineSemaphore = VK_TRUE,
    .scalarBlockLayout = best->scalar_layout ? VK_TRUE : VK_FALSE,
    .hostQueryReset = best->host_query_reset ? VK_TRUE : VK_FALSE,
  };
  VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &f12};
  if (best->storage_without_format) {
    f2.features.shaderStorageImageReadWithoutFormat = VK_TRUE;
    f2.features.shaderStorageImageWriteWithoutFormat = VK_TRUE;
  }
  float prio[2] = {1.0f, 1.0f};
  VkDeviceQueueCreateInfo qi[2] = {{
    .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
    .queueFamilyIndex = dev->queue_family, .queueCount = 1, .pQueuePriorities = prio,
  }};
  uint32_t nqi = fg_vk_async_queue_infos(dev, qi, prio);  /* async compute (queues.c) */
  VkDeviceCreateInfo dci = {
    .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = &f2,
    .queueCreateInfoCount = nqi, .pQueueCreateInfos = qi,
    .enabledExtensionCount = ndext, .ppEnabledExtensionNames = dexts,
  };
  VkResult r = vkCreateDevice(dev->phys, &dci, NULL, &dev->device);
  if (r != VK_SUCCESS) {
    fg_errf(err, errlen, "vkCreateDevice failed on %s (VkResult %d)", dev->props.deviceName, (int)r);
    return 0;
  }
  dev->has_push_descriptor = best->push_descriptor;
  dev->has_memory_budget = best->memory_budget;
  dev->has_storage_without_format = best->storage_without_format;
  dev->has_present = present ? 1 : 0;
  vkGetDeviceQueue(dev->device, dev->queue_family, 0, &dev->queue);
  fg_vk_async_queue_get(dev);

  return 1;
}

/* Command pool, the one-shot command buffer and fence, the samplers. */
int fg_vk_device_init_common(fg_vk_device *dev, char *err, size_t errlen) {
  VkCommandPoolCreateInfo pci = {
    .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
    .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
    .queueFamilyIndex = dev->queue_family,
  };
  VkResult r = vkCreateCommandPool(dev->device, &pci, dev->vkalloc, &dev->cmdpool);
  if (r == VK_SUCCESS) {
    VkCommandBufferAllocateInfo ai = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = dev->cmdpool,
      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1,
    };
    r = vkAllocateCommandBuffers(dev->device, &ai, &dev->once_cmd);
  }
  if (r == VK_SUCCESS) {
    VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    r = vkCreateFence(dev->device, &fi, dev->vkalloc, &dev->once_fence);
  }
  if (r == VK_SUCCESS) {
    dev->sampler_nearest = make_sampler(dev, VK_FILTER_NEAREST);
    dev->sampler_linear = make_sampler(dev, VK_FILTER_LINEAR);
    if (!dev->sampler_nearest || !dev->sampler_linear) r = VK_ERROR_OUT_OF_DEVICE_MEMORY;
  }
  if (r != VK_SUCCESS) {
    fg_errf(err, errlen, "creating the command pool/fence/samplers failed (VkResult %d)", (int)r);
    return 0;
  }
  return 1;
}

fg_vk_device *fg_vk_create(const fg_vk_desc *desc, char *err, size_t errlen) {
  fg_vk_desc d0 = {0};
  if (!desc) desc = &d0;
  VkResult r = volkInitialize();
  if (r != VK_SUCCESS) {
    fg_errf(err, errlen, "Vulkan loader not found (libvulkan.so.1): install a Vulkan driver, "
            "e.g. mesa-vulkan-drivers for lavapipe");
    return NULL;
  }
  uint32_t inst_version = volkGetInstanceVersion();
  if (inst_version < VK_API_VERSION_1_3) {
    fg_errf(err, errlen, "Vulkan loader supports %u.%u; framegraph needs 1.3",
            VK_API_VERSION_MAJOR(inst_version), VK_API_VERSION_MINOR(inst_version));
    return NULL;
  }
  fg_vk_device *dev = calloc(1, sizeof *dev);
  if (!dev) { fg_errf(err, errlen, "out of memory"); return NULL; }
  pthread_mutex_init(&dev->msg_lock, NULL);
  pthread_mutex_init(&dev->once_lock, NULL);
  dev->refs = 1;
  dev->async_mode = desc->async_queue;

  candidate best;
  if (!create_instance(dev, desc, err, errlen) || !pick_device(dev, desc, &best, err, errlen) ||
      !create_logical(dev, &best, desc->present, err, errlen) || !fg_vk_device_init_common(dev, err, errlen)) {
    fg_vk_release(dev);
    return NULL;
  }
  return dev;
}

fg_vk_device *fg_vk_retain(fg_vk_device *dev) {
  if (dev) __atomic_add_fetch(&dev->refs, 1, __ATOMIC_RELAXED);
  return dev;
}

void fg_vk_release(fg_vk_device *dev) {
  if (!dev || __atomic_sub_fetch(&dev->refs, 1, __ATOMIC_ACQ_REL) > 0) return;
  if (dev->device) {
    vkDeviceWaitIdle(dev->device);
    const VkAllocationCallbacks *ac = dev->vkalloc;
    if (dev->sampler_nearest) vkDestroySampler(dev->device, dev->sampler_nearest, ac);
    if (dev->sampler_linear) vkDestroySampler(dev->device, dev->sampler_linear, ac);
    if (dev->once_fence) vkDestroyFence(dev->device, dev->once_fence, ac);
    if (dev->cmdpool) vkDestroyCommandPool(dev->device, dev->cmdpool, ac);
    if (!dev->borrowed) vkDestroyDevice(dev->device, NULL);  /* a host's device stays the host's */
  }
  if (dev->messenger) dev->destroy_messenger(dev->instance, dev->messenger, NULL);
  if (dev->instance && !dev->borrowed) vkDestroyInstance(dev->instance, NULL);
  if (dev->host_nodes_free) dev->host_nodes_free(dev);
  free_messages(&dev->hooks, dev->messages, dev->message_count);
  pthread_mutex_destroy(&dev->msg_lock);
  pthread_mutex_destroy(&dev->once_lock);
  fg_alloc_hooks hooks = dev->hooks;
  fg_free(&hooks, dev);
}

void fg_vk_destroy(fg_vk_device *dev) { fg_vk_release(dev); }

typedef struct fg_vk_deferred {
  void (*fn)(void *);
  void *p;
  struct fg_vk_deferred *next;
} fg_vk_deferred;

void fg_vk_recording_begin(fg_vk_device *dev) { dev->recording++; }

static void run_deferred(fg_vk_device *dev) {
  if (!dev->deferred) return;
  vkDeviceWaitIdle(dev->device);
  while (dev->deferred) {
    fg_vk_deferred *d = dev->deferred;
    dev->deferred = d->next;
    d->fn(d->p);
    fg_vk_free(dev, d);
  }
}

void fg_vk_recording_end(fg_vk_device *dev) {
  if (dev->recording > 0 && --dev->recording == 0) run_deferred(dev);
}

void fg_vk_defer(fg_vk_device *dev, void (*fn)(void *), void *p) {
  if (dev->recording > 0) {
    fg_vk_deferred *d = fg_vk_malloc(dev, sizeof *d);
    if (d) {
      d->fn = fn;
      d->p = p;
      d->next = dev->deferred;
      dev->deferred = d;
      return;
    }
    /* No memory to wait with: leaking beats destroying under the recording. */
    return;
  }
  if (dev->device) vkDeviceWaitIdle(dev->device);
  fn(p);
}

int fg_vk_find_memory_type(const fg_vk_device *dev, uint32_t bits, VkMemoryPropertyFlags props) {
  for (uint32_t i = 0; i < dev->memprops.memoryTypeCount; i++)
    if ((bits & (1u << i)) && (dev->memprops.memoryTypes[i].propertyFlags & props) == props) return (int)i;
  return -1;
}

VkResult fg_vk_submit_once(fg_vk_device *dev, fg_vk_record_fn fn, void *user) {
  pthread_mutex_lock(&dev->once_lock);
  VkCommandBuffer cmd = dev->once_cmd;
  VkResult r = vkResetCommandBuffer(cmd, 0);
  VkCommandBufferBeginInfo bi = {
    .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
    .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
  };
  if (r == VK_SUCCESS) r = vkBeginCommandBuffer(cmd, &bi);
  if (r == VK_SUCCESS) {
    fn(cmd, user);
    r = vkEndCommandBuffer(cmd);
  }
  if (r == VK_SUCCESS) {
    VkCommandBufferSubmitInfo cbi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO, .commandBuffer = cmd};
    VkSubmitInfo2 si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2, .commandBufferInfoCount = 1,
                        .pCommandBufferInfos = &cbi};
    r = vkQueueSubmit2(dev->queue, 1, &si, dev->once_fence);
  }
  if (r == VK_SUCCESS) {
    r = vkWaitForFences(dev->device, 1, &dev->once_fence, VK_TRUE, UINT64_MAX);
    vkResetFences(dev->device, 1, &dev->once_fence);
  }
  pthread_mutex_unlock(&dev->once_lock);
  return r;
}

int fg_vk_host_buffer_create(fg_vk_device *dev, VkDeviceSize size, VkBufferUsageFlags usage,
                             int readback, fg_vk_host_buffer *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  VkBufferCreateInfo bi = {
    .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size ? size : 1, .usage = usage,
    .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
  };
  VkResult r = vkCreateBuffer(dev->device, &bi, dev->vkalloc, &out->buffer);
  if (r != VK_SUCCESS) { fg_errf(err, errlen, "vkCreateBuffer(%llu bytes) failed (VkResult %d)", (unsigned long long)size, (int)r); return 0; }
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(dev->device, out->buffer, &req);
  VkMemoryPropertyFlags base = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  int type = readback ? fg_vk_find_memory_type(dev, req.memoryTypeBits, base | VK_MEMORY_PROPERTY_HOST_CACHED_BIT) : -1;
  if (type < 0) type = fg_vk_find_memory_type(dev, req.memoryTypeBits, base);
  if (type < 0) {
    fg_errf(err, errlen, "no HOST_VISIBLE|HOST_COHERENT memory type for a staging buffer");
    fg_vk_host_buffer_destroy(dev, out);
    return 0;
  }
  VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size,
                             .memoryTypeIndex = (uint32_t)type};
  r = vkAllocateMemory(dev->device, &ai, dev->vkalloc, &out->memory);
  if (r == VK_SUCCESS) r = vkBindBufferMemory(dev->device, out->buffer, out->memory, 0);
  if (r == VK_SUCCESS) r = vkMapMemory(dev->device, out->memory, 0, VK_WHOLE_SIZE, 0, &out->map);
  if (r != VK_SUCCESS) {
    fg_errf(err, errlen, "staging memory (%llu bytes) failed (VkResult %d)", (unsigned long long)req.size, (int)r);
    fg_vk_host_buffer_destroy(dev, out);
    return 0;
  }
  out->size = size;
  return 1;
}

void fg_vk_host_buffer_destroy(fg_vk_device *dev, fg_vk_host_buffer *b) {
  if (b->buffer) vkDestroyBuffer(dev->device, b->buffer, dev->vkalloc);
  if (b->memory) vkFreeMemory(dev->device, b->memory, dev->vkalloc);  /* unmaps implicitly */
  memset(b, 0, sizeof *b);
}

uint32_t fg_vk_memory_budget(const fg_vk_device *dev, VkDeviceSize *budget, VkDeviceSize *usage) {
  uint32_t n = dev->memprops.memoryHeapCount;
  if (dev->has_memory_budget) {
    VkPhysicalDeviceMemoryBudgetPropertiesEXT b = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT};
    VkPhysicalDeviceMemoryProperties2 p = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2, .pNext = &b};
    vkGetPhysicalDeviceMemoryProperties2(dev->phys, &p);
    for (uint32_t i = 0; i < n; i++) { budget[i] = b.heapBudget[i]; usage[i] = b.heapUsage[i]; }
  } else {
    for (uint32_t i = 0; i < n; i++) { budget[i] = dev->memprops.memoryHeaps[i].size; usage[i] = 0; }
  }
  return n;
}

int fg_vk_wait_idle(fg_vk_device *dev, char *err, size_t errlen) {
  VkResult r = vkDeviceWaitIdle(dev->device);
  if (r != VK_SUCCESS) {
    fg_errf(err, errlen, "vkDeviceWaitIdle failed (VkResult %d)", (int)r);
    return 0;
  }
  return 1;
}

void fg_vk_probe_image_requirements(fg_vk_device *dev, uint64_t *alignment, uint64_t *size) {
  VkImageCreateInfo ici = {
    .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
    .format = VK_FORMAT_R8G8B8A8_UNORM, .extent = {1920, 1080, 1}, .mipLevels = 1, .arrayLayers = 1,
    .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL,
    .usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_STORAGE_BIT |
             VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
    .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
  };
  /* maintenance4 (core in 1.3): no image is created. */
  VkDeviceImageMemoryRequirements dimr = {.sType = VK_STRUCTURE_TYPE_DEVICE_IMAGE_MEMORY_REQUIREMENTS, .pCreateInfo = &ici};
  VkMemoryRequirements2 req = {.sType = VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2};
  vkGetDeviceImageMemoryRequirements(dev->device, &dimr, &req);
  *alignment = req.memoryRequirements.alignment;
  *size = req.memoryRequirements.size;
}
