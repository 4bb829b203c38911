/* fg_vk_barrier: declared usage -> synchronization2 scopes and layouts, and the
 * static barrier planner. The plan is cyclic (even frame, odd frame, repeat),
 * so the planner walks the two-frame cycle twice: the first lap establishes
 * every resource's steady state, the second emits the barriers. Per
 * (frame parity, node instance) it produces at most one batch, later given to
 * one vkCmdPipelineBarrier2. */
#ifndef FG_VK_BARRIER_H
#define FG_VK_BARRIER_H
#include <volk.h>
#include "fg_graph.h"
#include "fg_util.h"
#include <stddef.h>
#include <stdint.h>

/* One row per usage, built from FG_USAGES (fg_vocab.h) and indexed directly
 * by fg_usage. */
typedef struct fg_vk_usage {
  VkPipelineStageFlags2 stage;   /* default stage in a node with a pass */
  VkAccessFlags2 access;         /* what every use touches (attachments read and
                                    write because load/store ops do) */
  VkAccessFlags2 write_access;   /* added when the use writes (create/modify) */
  VkImageLayout layout;
  VkImageUsageFlags image_usage;
  VkBufferUsageFlags buffer_usage;
} fg_vk_usage;

extern const fg_vk_usage fg_vk_usages[FG_USAGE_COUNT];

/* The row of usage u; out-of-range reads as "none". */
static inline const fg_vk_usage *fg_vk_usage_row(unsigned u) {
  return &fg_vk_usages[u < FG_USAGE_COUNT ? u : FG_USAGE_NONE];
}
static inline VkAccessFlags2 fg_vk_usage_access(unsigned u, int write) {
  const fg_vk_usage *r = fg_vk_usage_row(u);
  return r->access | (write ? r->write_access : 0);
}
/* Stages of a compiled use's fg_stage (FG_STAGE_DEFAULT: all commands). */
VkPipelineStageFlags2 fg_vk_stage(fg_stage s);
int fg_rt_access_is_write(VkAccessFlags2 a);

/* ---- the planner ---- */
typedef struct fg_bar_res {
  int is_image;
  VkImageAspectFlags aspect;
  int heap;              /* -1: not placed in a shared heap (external): never aliased */
  uint64_t offset, size; /* placement inside the heap */
  int parity;            /* which frame's copy (0 even, 1 odd) */
  uint32_t alias_key;    /* heap < 0: resources with the same nonzero key share storage
                            (both frame copies of one external image) */
} fg_bar_res;

typedef struct fg_bar_use {
  uint32_t res;          /* index into the resource array */
  uint8_t usage;         /* fg_usage */
  uint8_t write;         /* create/modify */
  uint8_t activate;      /* first use of this copy in its lifetime: contents discarded */
  uint8_t pad;
  VkPipelineStageFlags2 stage;  /* 0 = the usage's default stage with a pass */
} fg_bar_use;

/* One barrier of a batch, with the resource index instead of the handle
 * (handles are filled in when the objects exist). */
typedef struct fg_bar {
  uint32_t res;
  uint32_t activate;     /* discard barrier (contents undefined): poison fills here */
  VkPipelineStageFlags2 src_stage, dst_stage;
  VkAccessFlags2 src_access, dst_access;
  VkImageLayout old_layout, new_layout;
} fg_bar;

/* Steady state of a resource at a point of the cycle. */
typedef struct fg_bar_state {
  VkImageLayout layout;
  VkPipelineStageFlags2 wstage, rstages, vis_stage;
  VkAccessFlags2 waccess, vis_access;
} fg_bar_state;

/* Input: nodes (instances) in order; uses[p][i] for parity p and node i given as
 * use_first[p*n+i] .. + use_count[p*n+i] into `uses`. Output: for each
 * (p, i) a batch bars[bar_first[p*n+i] .. + bar_count[p*n+i]]; *bars is
 * malloc'ed. end_state (nres entries, optional) receives each resource's state
 * at the end of the odd frame (what the even frame's barriers assume) and
 * end_state_even at the end of the even frame. Returns 0, or -1 on OOM. */
int fg_bar_plan(const fg_bar_res *res, size_t nres, const fg_bar_use *uses,
                const uint32_t *use_first, const uint32_t *use_count, size_t nnodes,
                fg_bar **bars, uint32_t *bar_first, uint32_t *bar_count,
                fg_bar_state *end_state_odd, fg_bar_state *end_state_even);
/* The same with its memory (and *bars, freed by the caller through the same
 * hooks) from `hooks` (NULL: malloc). */
int fg_bar_plan_hooks(const fg_bar_res *res, size_t nres, const fg_bar_use *uses,
                      const uint32_t *use_first, const uint32_t *use_count, size_t nnodes,
                      fg_bar **bars, uint32_t *bar_first, uint32_t *bar_count,
                      fg_bar_state *end_state_odd, fg_bar_state *end_state_even, const fg_alloc_hooks *hooks);

#endif
