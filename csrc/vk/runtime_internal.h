/* Private to the runtime files: the runtime object and the helpers they
 * share. runtime.c creates, places and plans; runtime_frame.c records and
 * submits frames; runtime_upload.c is the per-frame upload ring;
 * runtime_read.c reads resources back. See fg_vk_runtime.h. */
#ifndef FG_VK_RUNTIME_INTERNAL_H
#define FG_VK_RUNTIME_INTERNAL_H
#include "fg_vk_runtime.h"
#include <stdatomic.h>

/* Query pools for timestamps: frames n-1, n-2 and n-3 kept between frames. */
#define FG_RT_TS_RING 3

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
  uint8_t *use_usage;               /* fg_usage (none: skipped) */
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
  /* A host's command buffer for the next frame (runtime_host.c): the frame
   * records into sec[parity], a secondary executed there, and is not submitted;
   * sig_* are the semaphores the host's submit must signal. */
  VkCommandBuffer host_cmd, sec[2];
  uint32_t sig_count;
  VkSemaphore sig_sem[2];
  uint64_t sig_val[2];
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
  /* GPU timestamps (runtime_debug.c): a ring of query pools, frame n in n % FG_RT_TS_RING */
  VkQueryPool ts_pool[FG_RT_TS_RING];
  uint32_t ts_pool_size;            /* queries per pool (instances + 1); 0 = timestamps off */
  uint32_t ts_cur;                  /* pool of the frame recording */
  uint64_t ts_frame[FG_RT_TS_RING]; /* frame recorded into each pool; UINT64_MAX = none */
  uint64_t ts_done;                 /* cached timings: frame + 1; 0 = none */
  uint32_t ts_count;
  double *ts_ms, ts_frame_ms;
  uint64_t *ts_raw;
};

/* runtime.c: a planned barrier as a synchronization2 struct. */
void fill_image_barrier(const fg_rt *rt, const fg_bar *b, VkImageMemoryBarrier2 *ib);
void fill_buffer_barrier(const fg_rt *rt, const fg_bar *b, VkBufferMemoryBarrier2 *bb);
/* runtime_debug.c: debug names and query pools after a build (nothing in
 * flight), timestamps while recording, teardown. */
int rt_debug_build(fg_rt *rt);
void rt_debug_frame_begin(fg_rt *rt, VkCommandBuffer cmd, uint64_t frame);
void rt_debug_timestamp(fg_rt *rt, VkCommandBuffer cmd, uint32_t slot, int end);
void rt_debug_frame_submitted(fg_rt *rt, uint64_t frame);
void rt_debug_free(fg_rt *rt);
/* runtime_frame.c: the state a resource is left in at the end of a frame of
 * that parity (from the static plan). */
const fg_bar_state *end_state(const fg_rt *rt, uint32_t parity, uint32_t res);

#endif
