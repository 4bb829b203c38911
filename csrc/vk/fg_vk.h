/* fg_vk: the Vulkan backend's shared device object (volk, Vulkan 1.3).
 * Every csrc/vk file builds on this; csrc/lua/vk.c wraps it for Lua.
 *
 * Function pointers come from volk loaded per *instance* (loader trampolines),
 * so several devices may be open at once; call Vulkan through the usual vkXxx
 * names after fg_vk_create. Headless unless desc.present (then see fg_vk_window.h).
 *
 * Lifetime: the device is reference counted. fg_vk_create returns it with one
 * reference; anything that keeps VkDevice objects alive beyond a call (shaders,
 * runtimes, memory pools) takes fg_vk_retain and gives it back with
 * fg_vk_release, so a Lua dev:close() before its children never leaves them
 * with a destroyed VkDevice. fg_vk_destroy is fg_vk_release. */
#ifndef FG_VK_H
#define FG_VK_H
#include <volk.h>
#include "fg_util.h"
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct fg_vk_desc {
  int validation;        /* enable VK_LAYER_KHRONOS_validation + synchronization validation */
  int prefer_software;   /* 1: pick lavapipe (CPU) even when a GPU exists; 0: prefer a GPU */
  int present;           /* 1: enable VK_KHR_surface + VK_KHR_xcb_surface and VK_KHR_swapchain
                            (fg_vk_window.h); fails with a message when they are missing */
  int async_queue;       /* FG_VK_ASYNC_*: the queue async compute nodes use (queues.c); the
                            environment's FG_ASYNC_QUEUE=auto|off|same overrides it */
} fg_vk_desc;

#define FG_VK_ASYNC_AUTO 0  /* a compute-only family, else a second queue of the graphics family */
#define FG_VK_ASYNC_OFF 1   /* none: async nodes run on the graphics queue, in order */
#define FG_VK_ASYNC_SAME 2  /* testing: the async stream's own command buffers, semaphores and
                               submissions, on the graphics queue itself (one-family devices) */

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
  int has_push_descriptor;   /* VK_KHR_push_descriptor enabled (required by fg_vk_shader) */
  VkCommandPool cmdpool;     /* for one-shot work (uploads, read-backs); RESET_COMMAND_BUFFER */
  /* Validation messages (warnings and errors) collected by the debug messenger
   * since the last fg_vk_take_messages; tests treat any as a failure. */
  char **messages;
  size_t message_count, message_cap;
  /* ---- added after the first contract ---- */
  int validation;                 /* validation layer + syncval active */
  uint32_t timestamp_valid_bits;  /* of queue_family; 0 = no timestamps */
  int has_storage_without_format; /* shaderStorageImageRead/WriteWithoutFormat both enabled */
  VkSampler sampler_nearest;      /* clamp-to-edge samplers owned by the device */
  VkSampler sampler_linear;
  VkCommandBuffer once_cmd;       /* reused by fg_vk_submit_once (serialised by once_lock) */
  VkFence once_fence;
  pthread_mutex_t msg_lock;       /* the messenger may be called from any thread */
  pthread_mutex_t once_lock;
  int refs;                       /* see fg_vk_retain / fg_vk_release */
  /* volk's globals follow the last instance loaded, which may lack debug utils. */
  PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger;
  int has_present;                /* desc.present: surface + swapchain extensions enabled */
  /* Frames being recorded on this device (fg_vk_recording_begin/end) and what
   * waits for them to end before it is destroyed (fg_vk_defer). */
  int recording;
  struct fg_vk_deferred *deferred;
  /* VK_EXT_debug_utils, enabled whenever the instance offers it (validation
   * on or off); NULL when absent. Use through names.c. */
  PFN_vkSetDebugUtilsObjectNameEXT set_object_name;
  PFN_vkCmdBeginDebugUtilsLabelEXT cmd_begin_label;
  PFN_vkCmdEndDebugUtilsLabelEXT cmd_end_label;
  /* ---- a host's device (device_host.c, include/framegraph.h) ---- */
  int borrowed;                           /* instance/device/queue are the host's: never destroyed */
  const VkAllocationCallbacks *vkalloc;   /* the host's, for every vkCreate... and vkAllocateMemory; NULL: none */
  struct fg_host_nodes *host_nodes;       /* C node callbacks by name (host_nodes.c); NULL: none */
  /* set with host_nodes by host_nodes.c, which sits above the device (it
   * reads the runtime): the device frees the registry without calling up */
  void (*host_nodes_free)(struct fg_vk_device *dev);
  void *host;                             /* the public fg_device wrapping this one (NULL: fg.vulkan{}) */
  fg_alloc_hooks hooks;                   /* CPU memory of this device's runtime objects; zero: malloc */
  /* The async compute queue (queues.c): NULL when there is none. */
  int async_mode;                 /* FG_VK_ASYNC_* asked (the environment's value applied) */
  VkQueue async_queue;            /* may be `queue` itself (FG_VK_ASYNC_SAME) */
  uint32_t async_family, async_index;
  uint32_t async_timestamp_bits;  /* of async_family */
  int async_compute_only;         /* its family lacks graphics: barriers there name compute stages only */
  uint32_t share_families[2];     /* graphics, async: CONCURRENT sharing when they differ */
} fg_vk_device;

/* CPU memory through the device's hooks (a host's fg_allocator; else malloc). */
static inline void *fg_vk_malloc(const fg_vk_device *dev, size_t n) { return fg_malloc(&dev->hooks, n ? n : 1); }
static inline void *fg_vk_calloc(const fg_vk_device *dev, size_t count, size_t size) {
  if (size && count > SIZE_MAX / size) return NULL;
  size_t n = count * size;
  if (!n) n = 1;
  void *p = fg_malloc(&dev->hooks, n);
  if (p) memset(p, 0, n);
  return p;
}
static inline void fg_vk_free(const fg_vk_device *dev, void *p) { fg_free(&dev->hooks, p); }
static inline void *fg_vk_realloc(const fg_vk_device *dev, void *p, size_t n) { return fg_realloc(&dev->hooks, p, n ? n : 1); }

/* device_host.c: a device over a host's Vulkan objects (see include/framegraph.h). */
typedef struct fg_vk_host_desc {
  VkInstance instance;
  VkPhysicalDevice phys;
  VkDevice device;
  uint32_t queue_family;
  VkQueue queue;
  PFN_vkGetInstanceProcAddr gipa;
  const VkAllocationCallbacks *vkalloc;
  const char *const *extensions;          /* the device extensions the host enabled */
  uint32_t extension_count;
  int validation;                         /* the host runs with the validation layer (informational) */
  fg_alloc_hooks hooks;                   /* CPU memory of the device and its runtime objects */
} fg_vk_host_desc;
fg_vk_device *fg_vk_adopt(const fg_vk_host_desc *desc, char *err, size_t errlen);
/* device.c: the command pool, one-shot command buffer and fence, samplers
 * (every device has them, whoever made its VkDevice). 1, or 0 + message. */
int fg_vk_device_init_common(fg_vk_device *dev, char *err, size_t errlen);

/* queues.c. Before vkCreateDevice: the queue create infos (qi[0] is the
 * graphics one, filled; qi has room for 2, prio for 2); returns how many.
 * After: fetches the async queue. */
uint32_t fg_vk_async_queue_infos(fg_vk_device *dev, VkDeviceQueueCreateInfo *qi, float *prio);
void fg_vk_async_queue_get(fg_vk_device *dev);
/* Sharing for a resource the async queue may touch: EXCLUSIVE on one
 * family, CONCURRENT over both families when they differ (no ownership
 * transfers; see docs/runtime.md, "Async compute"). */
void fg_vk_share(const fg_vk_device *dev, VkSharingMode *mode, uint32_t *count, const uint32_t **families);
/* "none", "same queue (testing)", "family 2 (compute)", "family 0, queue 1" */
const char *fg_vk_async_name(const fg_vk_device *dev, char *buf, size_t len);

/* Lifetimes against recording: while any runtime records a frame on `dev`,
 * an object its command buffer may use (a shader's pipeline, an external
 * image) must not be destroyed. fg_vk_defer(dev, fn, p) runs fn(p) when the
 * last recording ends (after its submit, the device idle), or now (after the
 * device is idle) when none records. Calls nest. */
void fg_vk_recording_begin(fg_vk_device *dev);
void fg_vk_recording_end(fg_vk_device *dev);
void fg_vk_defer(fg_vk_device *dev, void (*fn)(void *), void *p);

/* Returns NULL and writes a message (e.g. "no Vulkan 1.3 device found") on failure. */
fg_vk_device *fg_vk_create(const fg_vk_desc *desc, char *err, size_t errlen);
void fg_vk_destroy(fg_vk_device *dev);              /* = fg_vk_release */
fg_vk_device *fg_vk_retain(fg_vk_device *dev);      /* returns dev */
void fg_vk_release(fg_vk_device *dev);              /* destroys at the last reference (waits idle) */

/* Hands over collected validation messages (the caller's, plain malloc: it
 * frees them with fg_vk_free_messages; a hooked device's store is copied out). */
char **fg_vk_take_messages(fg_vk_device *dev, size_t *count);
/* Frees what fg_vk_take_messages returned. */
void fg_vk_free_messages(char **msgs, size_t count);
/* Appends a message of our own (e.g. a failure found outside the layer). */
void fg_vk_push_message(fg_vk_device *dev, const char *msg);

/* Index of the first memory type in `bits` with all `props`, or -1. */
int fg_vk_find_memory_type(const fg_vk_device *dev, uint32_t bits, VkMemoryPropertyFlags props);

/* Records and submits a one-shot command buffer, waiting for completion.
 * Thread-safe against itself; the queue is not otherwise locked, so do not
 * submit on dev->queue from another thread at the same time. */
typedef void (*fg_vk_record_fn)(VkCommandBuffer cmd, void *user);
VkResult fg_vk_submit_once(fg_vk_device *dev, fg_vk_record_fn fn, void *user);

/* Per-heap budget and current usage from VK_EXT_memory_budget (heap sizes and
 * 0 usage when the extension is absent). Arrays of VK_MAX_MEMORY_HEAPS;
 * returns the heap count. */
uint32_t fg_vk_memory_budget(const fg_vk_device *dev, VkDeviceSize *budget, VkDeviceSize *usage);

/* "cpu", "discrete", "integrated", "virtual" or "other". */
const char *fg_vk_device_type_name(VkPhysicalDeviceType t);

/* ---- added for callers that do not speak Vulkan (the Lua binding) ---- */
#define FG_VK_MAX_HEAPS VK_MAX_MEMORY_HEAPS   /* array size for fg_vk_memory_budget */

/* vkDeviceWaitIdle: 1, or 0 with "vkDeviceWaitIdle failed (VkResult n)". */
int fg_vk_wait_idle(fg_vk_device *dev, char *err, size_t errlen);

/* Memory requirements of a typical render target (1920x1080 rgba8, color +
 * sampled + storage + transfer-src, optimal tiling), asked of the driver
 * without creating it: the alignment a planning profile needs. */
void fg_vk_probe_image_requirements(fg_vk_device *dev, uint64_t *alignment, uint64_t *size);

/* names.c: debug names for capture tools and validation messages (no-ops
 * without VK_EXT_debug_utils). */
void fg_vk_name_object(fg_vk_device *dev, VkObjectType type, uint64_t handle, const char *name);
void fg_vk_label_begin(fg_vk_device *dev, VkCommandBuffer cmd, const char *name);
void fg_vk_label_end(fg_vk_device *dev, VkCommandBuffer cmd);

/* names.c: major, minor, patch of a VK_MAKE_API_VERSION value. */
void fg_vk_version_parts(uint32_t v, uint32_t parts[3]);
/* Writes the names of the memory property flags set ("device_local",
 * "host_visible", "host_coherent", "host_cached", "lazily_allocated",
 * "protected", in that order) to names[] (room for 6); returns the count. */
uint32_t fg_vk_memory_flag_names(VkMemoryPropertyFlags flags, const char **names);
/* Whether memory heap `heap` of the device is device-local. */
int fg_vk_memory_heap_device_local(const fg_vk_device *dev, uint32_t heap);

/* Host-visible buffer with its memory bound and mapped (for staging). Memory is
 * HOST_VISIBLE|HOST_COHERENT, preferring HOST_CACHED when `readback`. */
typedef struct fg_vk_host_buffer {
  VkBuffer buffer;
  VkDeviceMemory memory;
  void *map;
  VkDeviceSize size;
} fg_vk_host_buffer;
int fg_vk_host_buffer_create(fg_vk_device *dev, VkDeviceSize size, VkBufferUsageFlags usage,
                             int readback, fg_vk_host_buffer *out, char *err, size_t errlen);
void fg_vk_host_buffer_destroy(fg_vk_device *dev, fg_vk_host_buffer *b);

#endif
