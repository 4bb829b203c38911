/* fg_vk_barrier: declared usage -> synchronization2 scopes and layouts, and the
 * static barrier planner. The plan is cyclic (even frame, odd frame, repeat),
 * so the planner walks the two-frame cycle twice: the first lap establishes
 * every resource's steady state, the second emits the barriers. Per
 * (frame parity, node instance) it produces at most one batch, later given to
 * one vkCmdPipelineBarrier2. */
#ifndef FG_VK_BARRIER_H
#define FG_VK_BARRIER_H
#include <volk.h>
#include "fg_vocab.h"
#include <stddef.h>
#include <stdint.h>

/* FG_USAGES (fg_vocab.h) shifted down by one: "none" (-1) has no Vulkan
 * usage, FG_RT_USAGE_SAMPLED = 0 ... */
#define FG_RT_USAGE_ENUM_(id, name) FG_RT_USAGE_##id,
typedef enum fg_rt_usage {
  FG_RT_USAGE_BEFORE_NONE_ = -2,
  FG_USAGES(FG_RT_USAGE_ENUM_)
  FG_RT_USAGE_COUNT
} fg_rt_usage;

/* "sampled" -> FG_RT_USAGE_SAMPLED; -1 when unknown. */
int fg_rt_usage_from_name(const char *name);
const char *fg_rt_usage_name(int usage);
/* Default stages of a usage (shader usages: every shader stage we record). */
VkPipelineStageFlags2 fg_rt_usage_stages(int usage);
/* Access of a usage; `write` selects the write half where the usage has one
 * (storage, color, depth, transfer_dst); attachments always read and write
 * because load/store ops do. */
VkAccessFlags2 fg_rt_usage_access(int usage, int write);
/* Image layout for a usage (GENERAL for storage). */
VkImageLayout fg_rt_usage_layout(int usage);
/* Image / buffer usage flags a resource needs for a declared usage. */
VkImageUsageFlags fg_rt_usage_image_flags(int usage);
VkBufferUsageFlags fg_rt_usage_buffer_flags(int usage);
/* Stage names of the pipeline format ("compute", "fragment", "vertex",
 * "transfer", "all", "draw") -> sync2 stages; 0 when unknown. */
VkPipelineStageFlags2 fg_rt_stage_from_name(const char *name);
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
  uint8_t usage;         /* fg_rt_usage */
  uint8_t write;         /* create/modify */
  uint8_t activate;      /* first use of this copy in its lifetime: contents discarded */
  uint8_t pad;
  VkPipelineStageFlags2 stage;  /* 0 = fg_rt_usage_stages(usage) */
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

#endif
