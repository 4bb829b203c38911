/* framegraph.h: the C API for a host that brings its own Vulkan device.
 *
 * framegraph is a frame-graph runtime whose pipelines are Lua tables; this
 * header lets an engine written in C or C++ run them on its own instance,
 * device and queue, draw its own scene from C callbacks the pipeline names
 * (`run = "host:draw_scene"`), and keep or hand over the submission.
 * docs/embedding.md walks through a host step by step (examples/host/host.c).
 *
 * Conventions (one for the whole API):
 *  - Every fallible call returns an fg_result; FG_SUCCESS is 0. The message
 *    of the last failure is the object's: fg_device_last_error,
 *    fg_runtime_last_error. A failed create still hands out the object (in
 *    a failed state, usable only to read its message and to destroy it),
 *    except for FG_ERROR_OUT_OF_MEMORY, where *out is NULL.
 *  - Objects are opaque; information is copied out into *_info structs.
 *  - Every *_desc is zero-is-default: `fg_runtime_desc d = {0};` then set
 *    what you need.
 *  - No global state: several devices and runtimes may live in one process.
 *    One thread drives a runtime (and the lua_State it lives in) at a time.
 *  - framegraph never destroys a Vulkan object it did not create; it passes
 *    the host's VkAllocationCallbacks to every vkCreate / vkAllocateMemory it
 *    makes on a host's device.
 */
#ifndef FRAMEGRAPH_H
#define FRAMEGRAPH_H
#include <stddef.h>
#include <stdint.h>
#include <vulkan/vulkan_core.h>

#ifdef __cplusplus
extern "C" {
#endif

struct lua_State;

#define FG_VERSION_MAJOR 0
#define FG_VERSION_MINOR 1

/* ---- limits (the values the pipeline compiler enforces) ---- */
#define FG_MAX_EXTENT 65536u            /* widest or highest texture, in pixels */
#define FG_MAX_DIMENSION_COUNT 65536u   /* most copies a multiplexing dimension may have */
#define FG_MAX_UPLOAD_ALIGNMENT 65536u  /* largest alignment an upload may ask for */
#define FG_MAX_FRAME_SIGNALS 4u         /* semaphores a host-submitted frame must signal */

typedef enum fg_result {
  FG_SUCCESS = 0,
  FG_ERROR_INVALID_ARGUMENT = -1,  /* a required argument or desc field is missing or wrong */
  FG_ERROR_OUT_OF_MEMORY = -2,     /* CPU memory (the allocator said no) */
  FG_ERROR_VULKAN = -3,            /* a Vulkan call failed; the message has the VkResult */
  FG_ERROR_UNSUPPORTED = -4,       /* the device lacks what framegraph needs (message says what) */
  FG_ERROR_PIPELINE = -5,          /* the pipeline file failed to load, compile, place or run */
  FG_ERROR_NOT_FOUND = -6,         /* a name the pipeline does not declare */
  FG_ERROR_LUA = -7,               /* the Lua side raised (message from Lua) */
  FG_ERROR_STATE = -8              /* called on a failed object, or at the wrong time */
} fg_result;

/* "FG_SUCCESS", "FG_ERROR_VULKAN", ... */
const char *fg_result_name(fg_result r);

/* CPU memory for framegraph's own objects of a device. realloc semantics;
 * size 0 frees. Zero: malloc/realloc/free. */
typedef struct fg_allocator {
  void *(*realloc_fn)(void *user, void *ptr, size_t size);
  void *user;
} fg_allocator;

/* ------------------------------------------------------------ devices -- */

typedef struct fg_device fg_device;

/* The host's Vulkan objects. The device must be Vulkan 1.3 with the features
 * synchronization2, dynamicRendering, maintenance4 (1.3) and
 * timelineSemaphore (1.2) enabled, and the extension VK_KHR_push_descriptor;
 * the queue's family must do graphics and compute. */
typedef struct fg_device_desc {
  VkInstance instance;
  VkPhysicalDevice physical_device;
  VkDevice device;
  uint32_t queue_family;
  VkQueue queue;                       /* framegraph submits here when it submits */
  PFN_vkGetInstanceProcAddr get_instance_proc_addr;  /* the Vulkan loader's */
  const VkAllocationCallbacks *vk_allocator;         /* NULL: the driver's */
  fg_allocator allocator;              /* framegraph's CPU memory for this device */
  const char *const *enabled_extensions;  /* the device extensions enabled at vkCreateDevice */
  uint32_t enabled_extension_count;
  uint32_t validation;                 /* nonzero: the instance runs the validation layer
                                          (informational: dev:info().validation in Lua) */
} fg_device_desc;

fg_result fg_device_create(const fg_device_desc *desc, fg_device **out);
/* Releases the host's handle on framegraph's device: once Lua holds no
 * object of it either (close the lua_State, or collect), framegraph waits
 * for its work, frees what it made and leaves the host's instance, device
 * and queue. Destroy runtimes and close Lua first, the VkDevice after.
 * NULL is ignored. */
void fg_device_destroy(fg_device *dev);
/* The last failure's message ("" when none). Valid until the next call on dev. */
const char *fg_device_last_error(const fg_device *dev);

typedef struct fg_device_info {
  char name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
  uint32_t api_version;
  VkPhysicalDeviceType type;
  uint32_t hosted;            /* 1: the host's objects (always, through this API) */
  uint32_t memory_budget;     /* VK_EXT_memory_budget enabled */
} fg_device_info;
fg_result fg_device_get_info(const fg_device *dev, fg_device_info *out);

/* ------------------------------------------------------- node callbacks -- */

/* A resource the node declared, as Vulkan handles for this frame. */
typedef struct fg_node_resource {
  const char *name;           /* as the node declared it (the new name of a rename) */
  uint32_t is_image;          /* else a buffer (or a blob: no handles) */
  uint32_t written;           /* the node writes it */
  VkImage image;
  VkImageView view;
  VkFormat format;
  VkImageLayout layout;       /* the layout it has during the node */
  VkImageAspectFlags aspect;
  uint32_t width, height;
  VkBuffer buffer;
  VkDeviceSize size;          /* buffer bytes */
} fg_node_resource;

typedef struct fg_node_ctx {
  const char *instance;       /* "scene[eye=2]"; the node's name when not multiplexed */
  const char *node;           /* "scene" */
  uint64_t frame;             /* frames recorded before this one */
  uint32_t dimension_count;   /* multiplex index: one entry per dimension of the pipeline */
  const char *const *dimension_names;
  const uint32_t *index;      /* 0-based; 0 for dimensions the node is not multiplexed over */
  uint32_t width, height;     /* the pass's render area, else the first image used (0: none) */
  uint32_t in_pass;           /* 1: inside the node's dynamic rendering pass (draw now) */
  uint32_t color_count;       /* the pass's attachments, for a pipeline's VkPipelineRenderingCreateInfo */
  const VkFormat *color_formats;
  VkFormat depth_format;      /* VK_FORMAT_UNDEFINED: no depth attachment */
  uint32_t resource_count;
  const fg_node_resource *resources;
  uint32_t arg_count;         /* numbers passed as cmd:host(name, {1, 2, ...}); 0 from run = "host:name" */
  const double *args;
  struct lua_State *L;        /* the lua_State recording, and the args value's stack index */
  int args_index;             /* (0: none), for hosts that read richer arguments */
} fg_node_ctx;

/* Records the node's commands into cmd (inside its pass when ctx->in_pass).
 * The resources are already in the declared layouts and synchronised. */
typedef void (*fg_node_fn)(VkCommandBuffer cmd, const fg_node_ctx *ctx, void *user);

/* Registers `fn` under `name` for pipelines on this device: `run =
 * "host:name"` or, from a Lua run function, cmd:host("name", args).
 * Registering a name again replaces it; fn NULL removes it. */
fg_result fg_device_register_node(fg_device *dev, const char *name, fg_node_fn fn, void *user);

/* ------------------------------------------------------------------ Lua -- */

/* Makes `require("framegraph")` in L use this library's core (framegraph.core
 * in package.preload) and finds the Lua modules under lua_dir
 * (e.g. "<prefix>/share/lua/5.4"; NULL: package.path as it is). */
fg_result fg_lua_open(struct lua_State *L, const char *lua_dir);
/* Pushes the device as a Lua framegraph.device: Lua sees it as it sees
 * fg.vulkan{} (fg.shader(dev, ...), fg.runtime(dev, ...)). */
fg_result fg_device_push(fg_device *dev, struct lua_State *L);

/* ------------------------------------------------------------ runtimes -- */

typedef struct fg_runtime fg_runtime;

typedef struct fg_runtime_desc {
  const char *pipeline_path;  /* a pipeline file (a Lua chunk returning the table) */
  uint32_t watch;             /* nonzero: fg_runtime_poll reloads it when it changes */
  const char *options;        /* a Lua table constructor for fg.runtime's opts, e.g. "{ solver = 'best' }" */
} fg_runtime_desc;

/* Loads the pipeline in L (fg_lua_open must have run there), compiles,
 * places it on dev and keeps the runtime in L's registry. */
fg_result fg_runtime_create(fg_device *dev, struct lua_State *L, const fg_runtime_desc *desc, fg_runtime **out);
void fg_runtime_destroy(fg_runtime *rt);
const char *fg_runtime_last_error(const fg_runtime *rt);
/* Pushes the Lua runtime object (fg.runtime's), for hosts that script it. */
fg_result fg_runtime_push(fg_runtime *rt, struct lua_State *L);

typedef struct fg_runtime_info {
  uint64_t frames;            /* frames recorded */
  uint32_t instances;         /* node instances in the plan (after multiplexing and culling) */
  uint32_t resources;         /* physical resources */
  uint64_t memory_bytes;      /* VkDeviceMemory the plan holds */
  uint32_t allocations;       /* vkAllocateMemory calls since the runtime was made */
} fg_runtime_info;
fg_result fg_runtime_get_info(fg_runtime *rt, fg_runtime_info *out);

typedef enum fg_reload_status {
  FG_RELOAD_NONE = 0,         /* the file did not change */
  FG_RELOAD_DONE = 1,         /* the new pipeline runs from the next frame */
  FG_RELOAD_FAILED = 2        /* a bad edit: the last good pipeline keeps running; message in last_error */
} fg_reload_status;
/* Between frames: looks at the pipeline file (desc.watch) and reloads it. */
fg_result fg_runtime_poll(fg_runtime *rt, fg_reload_status *out);

/* An image of the host, given to the pipeline's `external` resource `name`
 * (copy `index` of a multiplexed one; 0 otherwise) for the frames that
 * follow. `layout` is the layout it is in now; after each frame it is in
 * `final_layout` (UNDEFINED: wherever the frame left it, see
 * fg_runtime_image_layout). The host keeps it alive while frames use it. */
typedef struct fg_external_image {
  const char *name;
  uint32_t index;
  VkImage image;
  VkImageView view;           /* a 2D view of mip 0, layer 0 */
  VkFormat format;
  uint32_t width, height;
  VkImageLayout layout;
  VkImageLayout final_layout;
} fg_external_image;
fg_result fg_runtime_set_image(fg_runtime *rt, const fg_external_image *image);
/* The layout the frames left the external image `name` in. */
fg_result fg_runtime_image_layout(fg_runtime *rt, const char *name, uint32_t index, VkImageLayout *out);

/* A buffer of the host for the pipeline's `external` resource `name`
 * declared without a format (`external = { particles = { buffer = bytes } }`),
 * copy `index`, from the next frame on. After each frame a memory barrier
 * makes the frame's writes visible to later commands and, once the host has
 * waited for the frame, to host reads. At least the declared bytes. */
typedef struct fg_external_buffer {
  const char *name;
  uint32_t index;
  VkBuffer buffer;
  VkDeviceSize size;
} fg_external_buffer;
fg_result fg_runtime_set_buffer(fg_runtime *rt, const fg_external_buffer *buffer);

/* How a frame is submitted. cmd VK_NULL_HANDLE: framegraph records and
 * submits on the device's queue (two frames in flight). Otherwise cmd is the
 * host's primary command buffer in the recording state: framegraph records
 * the frame into it (one vkCmdExecuteCommands of its own secondary), the host
 * ends and submits it with its own semaphores, and must signal every
 * semaphore of fg_frame_info.signal at its value in that submit before the
 * next fg_runtime_frame. */
typedef struct fg_frame_desc {
  VkCommandBuffer cmd;
} fg_frame_desc;

typedef struct fg_frame_info {
  uint64_t frame;             /* index of the frame just recorded */
  uint32_t signal_count;      /* host-submitted frames: timeline semaphores to signal */
  VkSemaphore signal[FG_MAX_FRAME_SIGNALS];
  uint64_t signal_value[FG_MAX_FRAME_SIGNALS];
  uint32_t barriers;          /* barriers recorded */
  uint32_t rolled_back;       /* 1: a reloaded pipeline failed in this frame; the last good one drew it
                                 (the message is fg_runtime_last_error) */
} fg_frame_info;
/* Records (and submits, unless desc->cmd) one frame. A node that fails
 * drops the frame (FG_ERROR_PIPELINE) and the host's command buffer holds
 * nothing of it. */
fg_result fg_runtime_frame(fg_runtime *rt, const fg_frame_desc *desc, fg_frame_info *out);
/* Waits until every frame framegraph submitted is done. */
fg_result fg_runtime_wait_idle(fg_runtime *rt);

#ifdef __cplusplus
}
#endif
#endif
