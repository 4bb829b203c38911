/* Usage tables for synchronization2 and the static barrier planner (see
 * fg_vk_barrier.h). */
#include "fg_vk_barrier.h"
#include <stdlib.h>
#include <string.h>

/* Stages: FG_STAGES ids in Vulkan. */
#define STAGE_DRAW_INDIRECT VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT
#define STAGE_VERTEX_INPUT (VK_PIPELINE_STAGE_2_VERTEX_ATTRIBUTE_INPUT_BIT | VK_PIPELINE_STAGE_2_INDEX_INPUT_BIT)
#define STAGE_VERTEX VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT
#define STAGE_FRAGMENT VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT
#define STAGE_FRAGMENT_TESTS (VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT)
#define STAGE_COLOR_OUTPUT VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT
#define STAGE_COMPUTE VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT
#define STAGE_TRANSFER VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT
#define STAGE_HOST VK_PIPELINE_STAGE_2_HOST_BIT
#define STAGE_ALL VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT

/* Access classes: every use's mask, then what a write adds. A storage
 * resource may also be sampled or read as a uniform (bindings.c allows it):
 * its barriers must make those reads wait too. A read-only depth may be
 * sampled as well as tested against (see runtime.c use_stage). */
#define ACC_MEMORY VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT, 0
#define ACC_SAMPLED VK_ACCESS_2_SHADER_SAMPLED_READ_BIT, 0
#define ACC_STORAGE VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_SAMPLED_READ_BIT | \
                    VK_ACCESS_2_UNIFORM_READ_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT
#define ACC_COLOR VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT, 0
#define ACC_DEPTH VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT | VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT, 0
#define ACC_DEPTH_READ VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT | VK_ACCESS_2_SHADER_SAMPLED_READ_BIT, 0
#define ACC_TRANSFER_SRC VK_ACCESS_2_TRANSFER_READ_BIT, 0
#define ACC_TRANSFER_DST VK_ACCESS_2_TRANSFER_WRITE_BIT, 0
#define ACC_UNIFORM VK_ACCESS_2_UNIFORM_READ_BIT, 0
#define ACC_VERTEX VK_ACCESS_2_VERTEX_ATTRIBUTE_READ_BIT, 0
#define ACC_INDEX VK_ACCESS_2_INDEX_READ_BIT, 0
#define ACC_INDIRECT VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT, 0

#define LAYOUT_GENERAL VK_IMAGE_LAYOUT_GENERAL
#define LAYOUT_SHADER_READ_ONLY VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL
#define LAYOUT_COLOR_ATTACHMENT VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL
#define LAYOUT_ATTACHMENT VK_IMAGE_LAYOUT_ATTACHMENT_OPTIMAL
#define LAYOUT_READ_ONLY VK_IMAGE_LAYOUT_READ_ONLY_OPTIMAL
#define LAYOUT_TRANSFER_SRC VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL
#define LAYOUT_TRANSFER_DST VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL

#define IMAGE_NONE 0
#define IMAGE_SAMPLED VK_IMAGE_USAGE_SAMPLED_BIT
#define IMAGE_STORAGE VK_IMAGE_USAGE_STORAGE_BIT
#define IMAGE_COLOR_ATTACHMENT VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT
#define IMAGE_DEPTH_STENCIL_ATTACHMENT VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT
#define IMAGE_TRANSFER_SRC VK_IMAGE_USAGE_TRANSFER_SRC_BIT
#define IMAGE_TRANSFER_DST VK_IMAGE_USAGE_TRANSFER_DST_BIT

#define BUFFER_NONE 0
#define BUFFER_STORAGE VK_BUFFER_USAGE_STORAGE_BUFFER_BIT
#define BUFFER_UNIFORM VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT
#define BUFFER_VERTEX VK_BUFFER_USAGE_VERTEX_BUFFER_BIT
#define BUFFER_INDEX VK_BUFFER_USAGE_INDEX_BUFFER_BIT
#define BUFFER_INDIRECT VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT
#define BUFFER_TRANSFER_SRC VK_BUFFER_USAGE_TRANSFER_SRC_BIT
#define BUFFER_TRANSFER_DST VK_BUFFER_USAGE_TRANSFER_DST_BIT

#define ROW(id, name, sp, snp, acc, lay, img, buf) \
  [FG_USAGE_##id] = {STAGE_##sp, ACC_##acc, LAYOUT_##lay, IMAGE_##img, BUFFER_##buf},
const fg_vk_usage fg_vk_usages[FG_USAGE_COUNT] = {FG_USAGES(ROW)};
#undef ROW

VkPipelineStageFlags2 fg_vk_stage(fg_stage s) {
#define ROW(id, name) [FG_STAGE_##id] = STAGE_##id,
  static const VkPipelineStageFlags2 t[FG_STAGE_COUNT] = {[FG_STAGE_DEFAULT] = STAGE_ALL, FG_STAGES(ROW)};
#undef ROW
  return (unsigned)s < FG_STAGE_COUNT ? t[s] : STAGE_ALL;
}

int fg_rt_access_is_write(VkAccessFlags2 a) {
  const VkAccessFlags2 w = VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT | VK_ACCESS_2_SHADER_WRITE_BIT |
                           VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT |
                           VK_ACCESS_2_TRANSFER_WRITE_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT | VK_ACCESS_2_HOST_WRITE_BIT;
  return (a & w) != 0;
}

/* ---- planner ---- */

typedef struct bar_vec { fg_bar *v; size_t n, cap; const fg_alloc_hooks *h; } bar_vec;

static int push_bar(bar_vec *b, const fg_bar *x) {
  if (b->n == b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 64;
    fg_bar *v = fg_realloc(b->h, b->v, cap * sizeof *v);
    if (!v) return -1;
    b->v = v;
    b->cap = cap;
  }
  b->v[b->n++] = *x;
  return 0;
}

static int overlaps(const fg_bar_res *a, const fg_bar_res *b) {
  if (a->heap < 0 || b->heap < 0) return a->alias_key && a->alias_key == b->alias_key;
  if (a->heap != b->heap) return 0;
  return a->offset < b->offset + b->size && b->offset < a->offset + a->size;
}

/* Applies one use to the state and fills *out when a barrier is needed. */
static int step(fg_bar_state *st, fg_bar_state *all, const fg_bar_res *res, const uint32_t *alias,
                const uint32_t *alias_first, const uint32_t *alias_count, const fg_bar_use *u, fg_bar *out) {
  const fg_bar_res *r = &res[u->res];
  VkPipelineStageFlags2 S = u->stage ? u->stage : fg_vk_usage_row(u->usage)->stage;
  VkAccessFlags2 A = fg_vk_usage_access(u->usage, u->write);
  VkImageLayout L = r->is_image ? fg_vk_usage_row(u->usage)->layout : VK_IMAGE_LAYOUT_UNDEFINED;
  memset(out, 0, sizeof *out);
  out->res = u->res;
  out->activate = u->activate;
  out->dst_stage = S;
  out->dst_access = A;
  out->new_layout = L;
  int need = 0;
  if (u->activate) {
    /* Discard barrier: wait for every earlier occupant of this memory
     * (including this copy's previous lifetime) before overwriting it. */
    VkPipelineStageFlags2 ss = 0;
    VkAccessFlags2 sa = 0;
    for (uint32_t k = alias_first[u->res]; k < alias_first[u->res] + alias_count[u->res]; k++) {
      const fg_bar_state *o = &all[alias[k]];
      ss |= o->wstage | o->rstages;
      sa |= o->waccess;
    }
    out->src_stage = ss;
    out->src_access = sa;
    out->old_layout = VK_IMAGE_LAYOUT_UNDEFINED;
    need = 1;
  } else if (r->is_image && L != st->layout) {
    out->src_stage = st->wstage | st->rstages;
    out->src_access = st->waccess;
    out->old_layout = st->layout;
    need = 1;
  } else if (u->write) {
    if (st->wstage | st->rstages) {
      out->src_stage = st->wstage | st->rstages;
      out->src_access = st->waccess;
      need = 1;
    }
  } else if (st->wstage && ((st->vis_stage & S) != S || (st->vis_access & A) != A)) {
    out->src_stage = st->wstage;
    out->src_access = st->waccess;
    need = 1;
  }
  if (need) {
    if (!r->is_image) out->old_layout = out->new_layout = VK_IMAGE_LAYOUT_UNDEFINED;
    else if (!u->activate && out->old_layout == VK_IMAGE_LAYOUT_UNDEFINED) out->old_layout = L;
  }
  /* New state. A barrier that transitions a layout writes the image: later
   * accesses chain on its destination stage. */
  int transition = need && r->is_image && out->old_layout != out->new_layout;
  if (u->write) {
    st->wstage = S;
    st->waccess = A & ~(VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_SAMPLED_READ_BIT |
                        VK_ACCESS_2_UNIFORM_READ_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT |
                        VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT);
    st->rstages = 0;
    st->vis_stage = 0;
    st->vis_access = 0;
  } else if (transition || u->activate) {
    st->wstage = S;
    st->waccess = 0;
    st->rstages = S;
    st->vis_stage = S;
    st->vis_access = A;
  } else {
    st->rstages |= S;
    if (need) {
      st->vis_stage |= S;
      st->vis_access |= A;
    }
  }
  st->layout = r->is_image ? L : VK_IMAGE_LAYOUT_UNDEFINED;
  return need;
}

int fg_bar_plan(const fg_bar_res *res, size_t nres, const fg_bar_use *uses,
                const uint32_t *use_first, const uint32_t *use_count, size_t nnodes,
                fg_bar **bars, uint32_t *bar_first, uint32_t *bar_count,
                fg_bar_state *end_state_odd, fg_bar_state *end_state_even) {
  return fg_bar_plan_hooks(res, nres, uses, use_first, use_count, nnodes, bars, bar_first, bar_count, end_state_odd,
                           end_state_even, NULL);
}

/* zeroed memory through the hooks */
static void *zalloc(const fg_alloc_hooks *h, size_t n) {
  void *p = fg_malloc(h, n);
  if (p) memset(p, 0, n);
  return p;
}

int fg_bar_plan_hooks(const fg_bar_res *res, size_t nres, const fg_bar_use *uses,
                      const uint32_t *use_first, const uint32_t *use_count, size_t nnodes,
                      fg_bar **bars, uint32_t *bar_first, uint32_t *bar_count,
                      fg_bar_state *end_state_odd, fg_bar_state *end_state_even, const fg_alloc_hooks *h) {
  *bars = NULL;
  fg_bar_state *st = zalloc(h, (nres ? nres : 1) * sizeof *st);
  uint32_t *alias_first = zalloc(h, (nres ? nres : 1) * sizeof *alias_first);
  uint32_t *alias_count = zalloc(h, (nres ? nres : 1) * sizeof *alias_count);
  size_t alias_cap = nres ? nres * 2 : 1, alias_n = 0;
  uint32_t *alias = fg_malloc(h, alias_cap * sizeof *alias);
  bar_vec bv = {.h = h};
  int rc = -1;
  if (!st || !alias_first || !alias_count || !alias) goto done;
  /* Alias sets: resources sharing at least one byte (self included). Sorting
   * by heap/offset would make this n log n; plans are small enough. */
  for (size_t i = 0; i < nres; i++) {
    alias_first[i] = (uint32_t)alias_n;
    for (size_t j = 0; j < nres; j++) {
      if (j != i && !overlaps(&res[i], &res[j])) continue;
      if (alias_n == alias_cap) {
        alias_cap *= 2;
        uint32_t *a = fg_realloc(h, alias, alias_cap * sizeof *a);
        if (!a) goto done;
        alias = a;
      }
      alias[alias_n++] = (uint32_t)j;
    }
    alias_count[i] = (uint32_t)(alias_n - alias_first[i]);
  }
  for (int lap = 0; lap < 2; lap++) {
    for (int p = 0; p < 2; p++) {
      for (size_t i = 0; i < nnodes; i++) {
        size_t slot = (size_t)p * nnodes + i;
        if (lap) bar_first[slot] = (uint32_t)bv.n;
        for (uint32_t k = use_first[slot]; k < use_first[slot] + use_count[slot]; k++) {
          fg_bar b;
          if (step(&st[uses[k].res], st, res, alias, alias_first, alias_count, &uses[k], &b) && lap) {
            if (!b.src_stage) b.src_stage = VK_PIPELINE_STAGE_2_NONE;
            if (push_bar(&bv, &b)) goto done;
          }
        }
        if (lap) bar_count[slot] = (uint32_t)(bv.n - bar_first[slot]);
      }
      if (lap && p == 0 && end_state_even) memcpy(end_state_even, st, nres * sizeof *st);
      if (lap && p == 1 && end_state_odd) memcpy(end_state_odd, st, nres * sizeof *st);
    }
  }
  *bars = bv.v;
  bv.v = NULL;
  rc = 0;
done:
  fg_free(h, bv.v);
  fg_free(h, st);
  fg_free(h, alias_first);
  fg_free(h, alias_count);
  fg_free(h, alias);
  return rc;
}
