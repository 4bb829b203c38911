/* Private to the runtime files: the runtime object and the helpers they
 * share. runtime.c creates, places and plans; runtime_frame.c records and
 * submits frames; runtime_upload.c is the per-frame upload ring;
 * runtime_read.c reads resources back. See fg_vk_runtime.h. */
#ifndef FG_VK_RUNTIME_INTERNAL_H
#define FG_VK_RUNTIME_INTERNAL_H
#include "fg_vk_runtime.h"
#include <stdatomic.h>

typedef struct cmd_state {
  VkPipelineStageFlags2 stage, ext_stage;
  VkAccessFlags2 access, ext_access;
  int touched, write;
} cmd_state;

struct fg_rt {
  fg_vk_device *dev;
  const fg_graph *g;
  fg_rt_desc desc;
  /* memory */
  uint32_t heap_count;
  VkDeviceMemory *mem;
  uint64_t *mem_bytes, *planned;
  uint32_t *mem_type;
  uint32_t allocations;
  uint32_t fail_allocations;        /* test hook: allocations left to fail */
  /* resources */
  uint32_t nres;
  fg_rt_res *res;
  VkImageLayout **ext_layout;       /* per resource: caller's layout slot (externals) */
  /* plan */
  uint32_t ninst;
  uint32_t *inst_use_first;         /* ninst + 1 */
  uint32_t *use_phys[2];            /* per (slot, use) */
  uint8_t *use_usage;               /* fg_rt_usage, 0xff = skipped */
  uint8_t *use_write;
  VkPipelineStageFlags2 *use_stage;
  fg_bar *bars;
  uint32_t *bar_first, *bar_count;  /* 2 * ninst */
  uint32_t planned_barriers[2];
  uint32_t max_batch;
  VkImageMemoryBarrier2 *ib;        /* parallel to bars (unused entries for buffers) */
  VkBufferMemoryBarrier2 *bb;
  uint32_t *ib_first, *ib_count, *bb_first, *bb_count;  /* per batch, into ib2/bb2 */
  uint8_t *batch_flags;             /* per batch: 1 = names an external, 2 = has an activation */
  VkImageMemoryBarrier2 *ib2;
  VkBufferMemoryBarrier2 *bb2;
  VkImageMemoryBarrier2 *scratch_i;
  VkBufferMemoryBarrier2 *scratch_b;
  fg_bar_state *end_even, *end_odd;
  /* rendering per (parity, slot) */
  VkRenderingInfo *ri;
  VkRenderingAttachmentInfo *att;
  uint32_t *att_res;                /* resource per attachment (external views are patched) */
  uint32_t att_total;
  uint32_t *extent;                 /* per slot: width, height (2 * ninst) */
  /* frames */
  VkCommandPool pool;
  VkCommandBuffer cmd[2];
  VkSemaphore timeline;
  uint64_t frame;                   /* frames submitted */
  int has_plan;                     /* objects and barriers of a plan exist (a failed rebuild: none) */
  /* Presentation (fg_rt_set_present), for the next frame only. */
  uint32_t present_phys;
  VkSemaphore present_wait, present_signal;
  int recording_pass;
  cmd_state *cs;
  uint32_t cs_cap;
  /* stats */
  uint32_t st_barriers, st_batches;
  uint64_t st_record_ns, st_callback_ns;
  uint64_t rng;
  /* upload ring (created on first use) */
  fg_upload_ring *upload;
  uint64_t upload_size, upload_segment;
  uint32_t upload_threads;
  _Atomic uint64_t upload_waits;
  pthread_mutex_t upload_lock;      /* creation from several threads */
};

/* runtime.c: a planned barrier as a synchronization2 struct. */
void fill_image_barrier(const fg_rt *rt, const fg_bar *b, VkImageMemoryBarrier2 *ib);
void fill_buffer_barrier(const fg_rt *rt, const fg_bar *b, VkBufferMemoryBarrier2 *bb);
/* runtime_frame.c: the state a resource is left in at the end of a frame of
 * that parity (from the static plan). */
const fg_bar_state *end_state(const fg_rt *rt, uint32_t parity, uint32_t res);

#endif
