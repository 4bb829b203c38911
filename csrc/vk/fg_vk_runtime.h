/* fg_vk_runtime: executes a compiled frame graph (csrc/core/fg_graph.h) on a
 * device (fg_vk.h).
 *
 *  - Placement: fg_rt_sizer answers the compiler's memory questions with
 *    vkGetDevice{Image,Buffer}MemoryRequirements (no objects created) and
 *    picks one memory type per resource (the group key); the runtime then
 *    allocates one VkDeviceMemory per planned heap, creates every physical
 *    image/buffer, binds it at its planned offset and makes its view once.
 *  - Barriers: planned once per (frame parity, node instance) from declared
 *    usages (fg_vk_barrier.h), one vkCmdPipelineBarrier2 per instance at most.
 *  - Recording: one command buffer per frame, 2 frames in flight on a
 *    timeline semaphore; the node callback records the node's own commands.
 *  - Upload data: an upload ring (fg_vk_mem.h), created on first use; each
 *    frame's submit signals the ring's semaphore with the ring's frame value,
 *    so segments come back once the GPU has finished the frame using them.
 * Not thread-safe: one thread drives a runtime. */
#ifndef FG_VK_RUNTIME_H
#define FG_VK_RUNTIME_H
#include "fg_vk.h"
#include "fg_vk_barrier.h"
#include "fg_graph.h"
#include "fg_format.h"
#include "fg_vk_mem.h"

VkFormat fg_rt_vk_format(fg_format f);
VkImageAspectFlags fg_rt_format_aspect(fg_format f);
fg_format fg_rt_format_back(VkFormat vf);

/* ---- sizer (pass to fg_graph_compile / fg_lua_compile) ---- */
typedef struct fg_rt_sizer_ctx {
  fg_vk_device *dev;
  uint64_t alignment;    /* profile inflation: alignment = max(driver, this) */
  char err[256];         /* why the last call failed */
} fg_rt_sizer_ctx;
int fg_rt_sizer(void *user, const fg_graph_resource *res, fg_graph_memreq *out);
/* The create infos the runtime uses (and the sizer asks about): deterministic
 * per description, so planned and real requirements agree. */
void fg_rt_image_info(const fg_vk_device *dev, const fg_graph_resource *res, VkImageCreateInfo *ci);
void fg_rt_buffer_info(const fg_graph_resource *res, VkBufferCreateInfo *ci);

/* ---- runtime ---- */
typedef struct fg_rt fg_rt;

typedef struct fg_rt_desc {
  int poison;            /* fill every activated resource with garbage first */
  uint64_t seed;         /* poison colours */
  uint64_t upload_bytes;   /* upload ring size; 0 = 4 MiB */
  uint64_t upload_segment; /* ring segment (power of two >= 256); 0 = upload_bytes / 16,
                              clamped to 256 B .. 256 KiB */
  uint32_t upload_threads; /* ring thread slots; 0 = 1 (the recording thread) */
  uint64_t memory_budget;  /* most VkDeviceMemory bytes the plan may hold; 0 = the device's heaps */
  int no_timestamps;       /* 1: record no timestamp queries (fg_rt_get_timings then refuses) */
} fg_rt_desc;

/* One physical resource as created. */
typedef struct fg_rt_res {
  const fg_graph_resource *g;   /* plan entry (valid until the graph changes) */
  int is_image, is_external, is_blob;
  VkImage image;
  VkImageView view;
  VkBuffer buffer;
  VkFormat format;
  VkImageAspectFlags aspect;
  uint32_t width, height;
  uint64_t bytes;               /* buffer size */
  int kept;                     /* contents restored by fg_rt_rebuild_keep_history: the first
                                   frame reads them instead of clearing the history */
} fg_rt_res;

/* Creates objects for a compiled graph. The graph must stay alive and
 * unchanged until fg_rt_rebuild/fg_rt_destroy. NULL + message on failure. */
fg_rt *fg_rt_create(fg_vk_device *dev, const fg_graph *g, const fg_rt_desc *desc, char *err, size_t errlen);
/* After the graph was recompiled (reload, set_resolution, set_dimension):
 * waits for frames in flight, recreates objects and barriers; reuses the
 * VkDeviceMemory when every heap still fits (same memory type), else
 * reallocates. On failure the runtime is left empty (no frames). */
int fg_rt_rebuild(fg_rt *rt, const fg_graph *g, char *err, size_t errlen);
/* fg_rt_rebuild for a reload, while the old graph is still valid: history
 * resources whose latest copy matches a copy of the new plan (same name and
 * multiplex index; same kind, format, extent, mips, layers, usage or buffer
 * size) keep their contents (a GPU copy through a staging buffer before the
 * old objects go); the new plan's first frame reads them as the previous
 * frame instead of the cleared history. Colour textures (not 3D) and
 * buffers; depth/stencil history starts cleared as after fg_rt_rebuild.
 * When the new plan cannot be placed, rebuilds `fallback` (the old graph,
 * keeping its history too) and returns -1 with err; -2 when that failed as
 * well (the runtime is then empty). *kept (may be NULL): copies kept. */
int fg_rt_rebuild_keep_history(fg_rt *rt, const fg_graph *g, const fg_graph *fallback, uint32_t *kept,
                               char *err, size_t errlen);
void fg_rt_destroy(fg_rt *rt);
int fg_rt_wait_idle(fg_rt *rt);
/* Also waits until the queue has finished every submit (both semaphores signalled). */
void fg_rt_wait_queue(fg_rt *rt);

/* Node callback: records the node's commands. Return 0, or nonzero to abandon
 * the frame (the message is the callback's business). NULL callback = no-op. */
typedef int (*fg_rt_node_fn)(void *user, fg_rt *rt, VkCommandBuffer cmd, uint32_t slot);
/* Records and submits one frame. Returns 0; -1 when the callback failed (the
 * frame is dropped, nothing submitted); -2 on a Vulkan failure (err set). */
int fg_rt_frame(fg_rt *rt, fg_rt_node_fn fn, void *user, char *err, size_t errlen);
/* Nonzero while the runtime holds a plan (a rebuild that failed twice leaves none). */
int fg_rt_planned(const fg_rt *rt);

/* State for the binding while a node records. */
uint64_t fg_rt_frame_index(const fg_rt *rt);   /* frame being recorded (or next) */
uint32_t fg_rt_parity(const fg_rt *rt);        /* its parity */
const fg_graph *fg_rt_graph(const fg_rt *rt);
fg_vk_device *fg_rt_device(const fg_rt *rt);
fg_rt_res *fg_rt_resource(fg_rt *rt, uint32_t phys);
uint32_t fg_rt_resource_count(const fg_rt *rt);
/* Physical id a node instance's use touches in the frame being recorded
 * (FG_GRAPH_NONE for missing optional uses). */
uint32_t fg_rt_use_phys(const fg_rt *rt, uint32_t slot, uint32_t use);
/* State of a physical copy at the end of a frame of `parity` (the plan's). */
const fg_bar_state *fg_rt_end_state(const fg_rt *rt, uint32_t parity, uint32_t phys);
/* Layout a use keeps during its node (declared usage). */
VkImageLayout fg_rt_use_layout(const fg_rt *rt, uint32_t slot, uint32_t use);

/* Commands inside a node: before a command touches use `use` of instance
 * `slot` at (stage, access), call this: it records the barrier a second
 * command on the same resource needs (or one bridging a stage the declared
 * usage does not cover). Counted in the frame's barrier stats. */
void fg_rt_cmd_access(fg_rt *rt, VkCommandBuffer cmd, uint32_t slot, uint32_t use,
                      VkPipelineStageFlags2 stage, VkAccessFlags2 access);
/* Nonzero when a command inside the node's render pass would access `use`
 * beyond the stage/access its declaration planned: no barrier can be added
 * there, so the command must be refused (naming the usage to declare). */
int fg_rt_cmd_in_pass_uncovered(const fg_rt *rt, uint32_t slot, uint32_t use, VkPipelineStageFlags2 stage,
                                VkAccessFlags2 access);

/* External images: before fg_rt_frame, give the image for an external
 * physical resource (the frame's parity copy). Layout tracking: the runtime
 * transitions it from *layout and writes the layout it leaves it in. */
void fg_rt_set_external(fg_rt *rt, uint32_t phys, VkImage image, VkImageView view, VkImageLayout *layout);
/* Presentation, for the next fg_rt_frame only: external `phys` (already given
 * with fg_rt_set_external) is a swapchain image. The frame's submit waits on
 * the binary semaphore `acquired` (from vkAcquireNextImageKHR), transitions the
 * image to PRESENT_SRC_KHR after its last use (writing that layout back) and
 * signals the binary semaphore `presentable` for vkQueuePresentKHR to wait on.
 * A frame that fails before submitting consumes neither semaphore. */
void fg_rt_set_present(fg_rt *rt, uint32_t phys, VkSemaphore acquired, VkSemaphore presentable);

typedef struct fg_rt_heap_info {
  uint64_t bytes;        /* VkDeviceMemory allocation size */
  uint64_t planned;      /* plan's makespan */
  uint32_t memory_type;
} fg_rt_heap_info;
uint32_t fg_rt_heap_count(const fg_rt *rt);
void fg_rt_heap_get(const fg_rt *rt, uint32_t i, fg_rt_heap_info *out);
uint32_t fg_rt_allocations(const fg_rt *rt);
/* The VkDeviceMemory of plan heap h (VK_NULL_HANDLE: none), e.g. for tools. */
VkDeviceMemory fg_rt_heap_memory(const fg_rt *rt, uint32_t h);
/* Test hook: the next n vkAllocateMemory calls of the runtime fail as if the
 * device were out of memory (VK_ERROR_OUT_OF_DEVICE_MEMORY), without calling it. */
void fg_rt_fail_allocations(fg_rt *rt, uint32_t n);   /* vkAllocateMemory calls since creation */

typedef struct fg_rt_stats {
  uint64_t frames;
  uint32_t barriers;       /* barriers (image + buffer + memory) in the last frame */
  uint32_t batches;        /* vkCmdPipelineBarrier2 calls in the last frame */
  uint32_t planned_barriers[2]; /* per parity, from the static plan */
  uint64_t record_ns;      /* last frame: CPU time recording, callbacks excluded */
  uint64_t callback_ns;    /* last frame: time inside callbacks */
  uint32_t instances;
  uint32_t submits;        /* last frame: queue submissions (1 unless async compute runs) */
  int async_queue;         /* the plan's async instances go to a second submission stream */
} fg_rt_stats;
void fg_rt_get_stats(const fg_rt *rt, fg_rt_stats *out);

/* ---- GPU time per node instance (runtime_debug.c) ----
 * Timestamps around every instance, read back from a ring of three query
 * pools without waiting, only when asked: the timings are those of the newest
 * frame the GPU has finished (one to three frames behind). On one queue the instances partition the frame:
 * each starts where the previous ended, so frame_ms (first start to last end)
 * is the sum of the instances' times, up to rounding. */
typedef struct fg_rt_timings {
  uint64_t frame;        /* which frame (counted from the plan's first) */
  uint32_t count;        /* instances, in execution order; 0: no frame finished yet */
  const double *ms;      /* GPU milliseconds per instance; valid until the next call */
  double frame_ms;       /* first instance's start to the last one's end */
  const double *start_ms; /* per instance: when it started, ms after the frame's first start (with
                            async compute the two queues' instances overlap: see runtime_async.c) */
} fg_rt_timings;
/* The queue family has timestampValidBits > 0 and the device
 * timestampComputeAndGraphics. */
int fg_rt_timestamps_supported(const fg_rt *rt);
/* 0 and *out (count 0 before a frame finished since the plan was built); -1
 * with "timestamps unsupported on <device> (why)" or "timestamps are off". */
int fg_rt_get_timings(fg_rt *rt, fg_rt_timings *out, char *err, size_t errlen);

/* ---- per-frame upload data ----
 * fg_rt_upload reserves `size` bytes of host-visible, coherent memory in the
 * upload ring for the frame to be submitted next (the one being recorded while
 * inside fg_rt_frame): write through span->ptr, then use fg_rt_upload_buffer
 * at span->offset as a copy source or a storage/uniform buffer in that frame
 * only. *ring_frame (may be NULL) is the ring frame the data belongs to: it is
 * valid while fg_rt_upload_frame(rt) still returns it. align: power of two
 * (0 = fg_rt_upload_alignment). When the ring is full the call waits for the
 * frames in flight; when this frame's data alone fill it, it returns -1 with a
 * message (also on a bad thread/size/align, and when the ring cannot be made).
 * Each thread slot must be used by one thread at a time; submitting stays the
 * recording thread's (fg_rt_frame). */
int fg_rt_upload(fg_rt *rt, uint32_t thread, VkDeviceSize size, VkDeviceSize align, fg_upload_span *span,
                 uint64_t *ring_frame, char *err, size_t errlen);
/* The ring (created on the first call), NULL + message if it cannot be made. */
fg_upload_ring *fg_rt_upload_ring(fg_rt *rt, char *err, size_t errlen);
VkBuffer fg_rt_upload_buffer(const fg_rt *rt);       /* VK_NULL_HANDLE before the first upload */
uint64_t fg_rt_upload_frame(const fg_rt *rt);        /* ring frame of the next submit; 0 = no ring yet */
/* Default alignment: 16 or the device's min storage/uniform buffer offset
 * alignment, whichever is larger (so any upload binds as a descriptor). */
VkDeviceSize fg_rt_upload_alignment(const fg_rt *rt);
/* Ring statistics (zeroed before the first upload) and fg_rt_upload's waits
 * for frames in flight. */
void fg_rt_upload_stats(fg_rt *rt, fg_upload_stats *out, uint64_t *ring_bytes, uint64_t *in_flight_waits);

/* Reads back mip 0 / layer 0 (images, tightly packed rows) or the whole
 * buffer of a physical resource, as the last submitted frame left it. The
 * caller frees *data with fg_vk_free(fg_rt_device(rt), ...) (the device's hooks). Returns 0, or -1 with err. */
int fg_rt_read(fg_rt *rt, uint32_t phys, void **data, size_t *len, char *err, size_t errlen);

#endif
