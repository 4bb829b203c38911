/* Frame-graph runtime: placement in real heaps, static barrier plan, dynamic
 * rendering, frames in flight. See fg_vk_runtime.h. */
#include "fg_vk_runtime.h"
#include "fg_util.h"
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

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

/* ------------------------------------------------------------ helpers -- */

static int to_rt_usage(fg_usage u) {
  return (u >= FG_USAGE_SAMPLED && u <= FG_USAGE_INDIRECT) ? (int)u - 1 : -1;
}

static VkPipelineStageFlags2 to_stage(fg_stage s) {
  switch (s) {
    case FG_STAGE_DRAW_INDIRECT: return VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT;
    case FG_STAGE_VERTEX_INPUT: return VK_PIPELINE_STAGE_2_VERTEX_ATTRIBUTE_INPUT_BIT | VK_PIPELINE_STAGE_2_INDEX_INPUT_BIT;
    case FG_STAGE_VERTEX: return VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT;
    case FG_STAGE_FRAGMENT: return VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT;
    case FG_STAGE_FRAGMENT_TESTS:
      return VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT;
    case FG_STAGE_COLOR_OUTPUT: return VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT;
    case FG_STAGE_COMPUTE: return VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
    case FG_STAGE_TRANSFER: return VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT;
    case FG_STAGE_HOST: return VK_PIPELINE_STAGE_2_HOST_BIT;
    default: return VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
  }
}

static int is_write_access(fg_access a) {
  return a == FG_ACCESS_CREATE || a == FG_ACCESS_MODIFY || a == FG_ACCESS_RENAME;
}

static VkImageUsageFlags image_usage_for(const fg_vk_device *dev, VkFormat f) {
  VkFormatProperties fp;
  vkGetPhysicalDeviceFormatProperties(dev->phys, f, &fp);
  VkFormatFeatureFlags ft = fp.optimalTilingFeatures;
  VkImageUsageFlags u = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
  if (ft & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT) u |= VK_IMAGE_USAGE_SAMPLED_BIT;
  if (ft & VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT) u |= VK_IMAGE_USAGE_STORAGE_BIT;
  if (ft & VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT) u |= VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
  if (ft & VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT) u |= VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT;
  return u;
}

void fg_rt_image_info(const fg_vk_device *dev, const fg_graph_resource *res, VkImageCreateInfo *ci) {
  memset(ci, 0, sizeof *ci);
  ci->sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO;
  ci->imageType = res->depth > 1 ? VK_IMAGE_TYPE_3D : VK_IMAGE_TYPE_2D;
  ci->format = fg_rt_vk_format(res->format);
  ci->extent.width = res->width ? res->width : 1;
  ci->extent.height = res->height ? res->height : 1;
  ci->extent.depth = res->depth ? res->depth : 1;
  ci->mipLevels = res->mips ? res->mips : 1;
  ci->arrayLayers = res->layers ? res->layers : 1;
  ci->samples = VK_SAMPLE_COUNT_1_BIT;
  ci->tiling = VK_IMAGE_TILING_OPTIMAL;
  ci->usage = image_usage_for(dev, ci->format);
  ci->sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  ci->initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
}

void fg_rt_buffer_info(const fg_graph_resource *res, VkBufferCreateInfo *ci) {
  memset(ci, 0, sizeof *ci);
  ci->sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  ci->size = res->bytes ? res->bytes : 4;
  ci->usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT |
              VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_INDEX_BUFFER_BIT |
              VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
              VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  ci->sharingMode = VK_SHARING_MODE_EXCLUSIVE;
}

static int pick_type(const fg_vk_device *dev, uint32_t bits) {
  int t = fg_vk_find_memory_type(dev, bits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  if (t < 0) t = fg_vk_find_memory_type(dev, bits, 0);
  return t;
}

int fg_rt_sizer(void *user, const fg_graph_resource *res, fg_graph_memreq *out) {
  fg_rt_sizer_ctx *c = user;
  VkMemoryRequirements2 req = {.sType = VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2};
  if (res->kind == FG_RES_TEXTURE) {
    VkImageCreateInfo ci;
    fg_rt_image_info(c->dev, res, &ci);
    if (ci.format == VK_FORMAT_UNDEFINED) {
      fg_errf(c->err, sizeof c->err, "resource '%s' has no Vulkan format", res->name);
      return -1;
    }
    VkDeviceImageMemoryRequirements q = {.sType = VK_STRUCTURE_TYPE_DEVICE_IMAGE_MEMORY_REQUIREMENTS,
                                         .pCreateInfo = &ci};
    vkGetDeviceImageMemoryRequirements(c->dev->device, &q, &req);
    out->kind = 1;
  } else {
    VkBufferCreateInfo ci;
    fg_rt_buffer_info(res, &ci);
    VkDeviceBufferMemoryRequirements q = {.sType = VK_STRUCTURE_TYPE_DEVICE_BUFFER_MEMORY_REQUIREMENTS,
                                          .pCreateInfo = &ci};
    vkGetDeviceBufferMemoryRequirements(c->dev->device, &q, &req);
    out->kind = 0;
  }
  int t = pick_type(c->dev, req.memoryRequirements.memoryTypeBits);
  if (t < 0) {
    fg_errf(c->err, sizeof c->err, "no memory type for resource '%s' (bits 0x%x)", res->name,
            req.memoryRequirements.memoryTypeBits);
    return -1;
  }
  out->size = req.memoryRequirements.size;
  out->alignment = req.memoryRequirements.alignment;
  if (c->alignment > out->alignment) out->alignment = c->alignment;
  out->memory_type_bits = 1u << t;
  return 0;
}

/* ------------------------------------------------------ teardown/build -- */

static void free_plan(fg_rt *rt) {
  free(rt->inst_use_first); free(rt->use_phys[0]); free(rt->use_phys[1]);
  free(rt->use_usage); free(rt->use_write); free(rt->use_stage);
  free(rt->bars); free(rt->bar_first); free(rt->bar_count);
  free(rt->ib); free(rt->bb); free(rt->ib_first); free(rt->ib_count); free(rt->bb_first); free(rt->bb_count);
  free(rt->ib2); free(rt->bb2); free(rt->scratch_i); free(rt->scratch_b); free(rt->batch_flags);
  rt->batch_flags = NULL;
  free(rt->end_even); free(rt->end_odd);
  free(rt->ri); free(rt->att); free(rt->att_res); free(rt->extent); free(rt->cs);
  rt->inst_use_first = NULL; rt->use_phys[0] = rt->use_phys[1] = NULL;
  rt->use_usage = rt->use_write = NULL; rt->use_stage = NULL;
  rt->bars = NULL; rt->bar_first = rt->bar_count = NULL;
  rt->ib = NULL; rt->bb = NULL; rt->ib_first = rt->ib_count = rt->bb_first = rt->bb_count = NULL;
  rt->ib2 = NULL; rt->bb2 = NULL; rt->scratch_i = NULL; rt->scratch_b = NULL;
  rt->end_even = rt->end_odd = NULL;
  rt->ri = NULL; rt->att = NULL; rt->att_res = NULL; rt->extent = NULL; rt->cs = NULL;
  rt->cs_cap = 0; rt->ninst = 0; rt->att_total = 0; rt->max_batch = 0;
}

static void free_objects(fg_rt *rt) {
  VkDevice d = rt->dev->device;
  for (uint32_t i = 0; i < rt->nres; i++) {
    fg_rt_res *r = &rt->res[i];
    if (r->is_external) continue;
    if (r->view) vkDestroyImageView(d, r->view, NULL);
    if (r->image) vkDestroyImage(d, r->image, NULL);
    if (r->buffer) vkDestroyBuffer(d, r->buffer, NULL);
  }
  free(rt->res);
  free(rt->ext_layout);
  rt->res = NULL;
  rt->ext_layout = NULL;
  rt->nres = 0;
}

static void free_memory(fg_rt *rt) {
  for (uint32_t h = 0; h < rt->heap_count; h++)
    if (rt->mem[h]) vkFreeMemory(rt->dev->device, rt->mem[h], NULL);
  free(rt->mem); free(rt->mem_bytes); free(rt->planned); free(rt->mem_type);
  rt->mem = NULL; rt->mem_bytes = rt->planned = NULL; rt->mem_type = NULL;
  rt->heap_count = 0;
}

/* One VkDeviceMemory per planned heap; keeps an existing one that is big
 * enough and of the same type (dynamic resolution: no new allocation). */
static int place_memory(fg_rt *rt, char *err, size_t errlen) {
  const fg_graph *g = rt->g;
  uint32_t n = fg_graph_heap_count(g);
  VkDeviceMemory *mem = calloc(n ? n : 1, sizeof *mem);
  uint64_t *bytes = calloc(n ? n : 1, sizeof *bytes), *planned = calloc(n ? n : 1, sizeof *planned);
  uint32_t *type = calloc(n ? n : 1, sizeof *type);
  if (!mem || !bytes || !planned || !type) {
    free(mem); free(bytes); free(planned); free(type);
    fg_errf(err, errlen, "out of memory");
    return -1;
  }
  for (uint32_t h = 0; h < n; h++) {
    const fg_graph_heap *hp = fg_graph_heap_get(g, h);
    uint32_t t = hp->memory_type_bits ? (uint32_t)__builtin_ctz(hp->memory_type_bits) : 0;
    type[h] = t;
    planned[h] = hp->bytes;
    if (h < rt->heap_count && rt->mem[h] && rt->mem_type[h] == t && rt->mem_bytes[h] >= hp->bytes) {
      mem[h] = rt->mem[h];
      bytes[h] = rt->mem_bytes[h];
      rt->mem[h] = VK_NULL_HANDLE;  /* moved */
      continue;
    }
    if (!hp->bytes) continue;
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = hp->bytes,
                               .memoryTypeIndex = t};
    VkResult r = vkAllocateMemory(rt->dev->device, &ai, NULL, &mem[h]);
    if (r != VK_SUCCESS) {
      fg_errf(err, errlen, "vkAllocateMemory(%llu bytes, type %u) for heap %u failed (VkResult %d)",
              (unsigned long long)hp->bytes, t, h, (int)r);
      for (uint32_t k = 0; k < n; k++) if (mem[k]) vkFreeMemory(rt->dev->device, mem[k], NULL);
      free(mem); free(bytes); free(planned); free(type);
      return -1;
    }
    rt->allocations++;
    bytes[h] = hp->bytes;
  }
  free_memory(rt);  /* frees what was not moved */
  rt->mem = mem; rt->mem_bytes = bytes; rt->planned = planned; rt->mem_type = type;
  rt->heap_count = n;
  return 0;
}

static int create_objects(fg_rt *rt, char *err, size_t errlen) {
  const fg_graph *g = rt->g;
  VkDevice d = rt->dev->device;
  uint32_t n = fg_graph_resource_count(g);
  rt->res = calloc(n ? n : 1, sizeof *rt->res);
  rt->ext_layout = calloc(n ? n : 1, sizeof *rt->ext_layout);
  if (!rt->res || !rt->ext_layout) { fg_errf(err, errlen, "out of memory"); return -1; }
  rt->nres = n;
  for (uint32_t i = 0; i < n; i++) {
    const fg_graph_resource *gr = fg_graph_resource_get(g, i);
    fg_rt_res *r = &rt->res[i];
    r->g = gr;
    r->width = gr->width;
    r->height = gr->height;
    r->bytes = gr->bytes;
    r->format = fg_rt_vk_format(gr->format);
    r->aspect = fg_rt_format_aspect(gr->format);
    r->is_image = gr->kind == FG_RES_TEXTURE || gr->kind == FG_RES_EXTERNAL;
    r->is_external = gr->kind == FG_RES_EXTERNAL;
    r->is_blob = gr->kind == FG_RES_BLOB;
    if (r->is_external || r->is_blob || gr->heap == FG_GRAPH_NONE) continue;
    if (gr->heap >= rt->heap_count || !rt->mem[gr->heap]) {
      fg_errf(err, errlen, "resource '%s' is placed in heap %u which has no memory", gr->name, gr->heap);
      return -1;
    }
    VkMemoryRequirements req;
    VkResult vr;
    if (gr->kind == FG_RES_TEXTURE) {
      VkImageCreateInfo ci;
      fg_rt_image_info(rt->dev, gr, &ci);
      vr = vkCreateImage(d, &ci, NULL, &r->image);
      if (vr != VK_SUCCESS) {
        fg_errf(err, errlen, "vkCreateImage for '%s' (%ux%u) failed (VkResult %d)", gr->name, gr->width, gr->height, (int)vr);
        return -1;
      }
      vkGetImageMemoryRequirements(d, r->image, &req);
    } else {
      VkBufferCreateInfo ci;
      fg_rt_buffer_info(gr, &ci);
      r->bytes = ci.size;
      vr = vkCreateBuffer(d, &ci, NULL, &r->buffer);
      if (vr != VK_SUCCESS) {
        fg_errf(err, errlen, "vkCreateBuffer for '%s' (%llu bytes) failed (VkResult %d)", gr->name,
                (unsigned long long)ci.size, (int)vr);
        return -1;
      }
      vkGetBufferMemoryRequirements(d, r->buffer, &req);
    }
    /* The plan came from vkGetDevice*MemoryRequirements; the object must agree. */
    if (req.size > gr->size || (req.alignment && gr->offset % req.alignment) ||
        !(req.memoryTypeBits & (1u << rt->mem_type[gr->heap])) || gr->offset + req.size > rt->mem_bytes[gr->heap]) {
      fg_errf(err, errlen, "placement of '%s' disagrees with the driver: planned %llu bytes at offset %llu "
              "(heap %u, type %u), object needs %llu bytes aligned %llu, types 0x%x", gr->name,
              (unsigned long long)gr->size, (unsigned long long)gr->offset, gr->heap, rt->mem_type[gr->heap],
              (unsigned long long)req.size, (unsigned long long)req.alignment, req.memoryTypeBits);
      return -1;
    }
    if (r->image) {
      vr = vkBindImageMemory(d, r->image, rt->mem[gr->heap], gr->offset);
      if (vr == VK_SUCCESS) {
        VkImageViewCreateInfo vi = {
          .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = r->image,
          .viewType = gr->depth > 1 ? VK_IMAGE_VIEW_TYPE_3D : (gr->layers > 1 ? VK_IMAGE_VIEW_TYPE_2D_ARRAY : VK_IMAGE_VIEW_TYPE_2D),
          .format = r->format,
          .subresourceRange = {.aspectMask = r->aspect, .levelCount = VK_REMAINING_MIP_LEVELS,
                               .layerCount = VK_REMAINING_ARRAY_LAYERS},
        };
        vr = vkCreateImageView(d, &vi, NULL, &r->view);
      }
    } else {
      vr = vkBindBufferMemory(d, r->buffer, rt->mem[gr->heap], gr->offset);
    }
    if (vr != VK_SUCCESS) {
      fg_errf(err, errlen, "binding/viewing '%s' failed (VkResult %d)", gr->name, (int)vr);
      return -1;
    }
  }
  return 0;
}

static void fill_image_barrier(const fg_rt *rt, const fg_bar *b, VkImageMemoryBarrier2 *ib) {
  const fg_rt_res *r = &rt->res[b->res];
  memset(ib, 0, sizeof *ib);
  ib->sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2;
  ib->srcStageMask = b->src_stage;
  ib->srcAccessMask = b->src_access;
  ib->dstStageMask = b->dst_stage;
  ib->dstAccessMask = b->dst_access;
  ib->oldLayout = b->old_layout;
  ib->newLayout = b->new_layout;
  ib->srcQueueFamilyIndex = ib->dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  ib->image = r->image;
  ib->subresourceRange.aspectMask = r->aspect;
  ib->subresourceRange.levelCount = VK_REMAINING_MIP_LEVELS;
  ib->subresourceRange.layerCount = VK_REMAINING_ARRAY_LAYERS;
}

static void fill_buffer_barrier(const fg_rt *rt, const fg_bar *b, VkBufferMemoryBarrier2 *bb) {
  memset(bb, 0, sizeof *bb);
  bb->sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2;
  bb->srcStageMask = b->src_stage;
  bb->srcAccessMask = b->src_access;
  bb->dstStageMask = b->dst_stage;
  bb->dstAccessMask = b->dst_access;
  bb->srcQueueFamilyIndex = bb->dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  bb->buffer = rt->res[b->res].buffer;
  bb->size = VK_WHOLE_SIZE;
}

static int build_plan(fg_rt *rt, char *err, size_t errlen) {
  const fg_graph *g = rt->g;
  uint32_t n = fg_graph_instance_count(g), nres = rt->nres;
  rt->ninst = n;
  rt->inst_use_first = calloc(n + 1, sizeof *rt->inst_use_first);
  if (!rt->inst_use_first) goto oom;
  uint32_t total = 0, maxu = 1;
  for (uint32_t s = 0; s < n; s++) {
    const fg_graph_instance *in = fg_graph_instance_get(g, s);
    rt->inst_use_first[s] = total;
    total += in->use_count;
    if (in->use_count > maxu) maxu = in->use_count;
  }
  rt->inst_use_first[n] = total;
  size_t tu = total ? total : 1;
  rt->use_phys[0] = malloc(tu * sizeof(uint32_t));
  rt->use_phys[1] = malloc(tu * sizeof(uint32_t));
  rt->use_usage = malloc(tu);
  rt->use_write = malloc(tu);
  rt->use_stage = malloc(tu * sizeof *rt->use_stage);
  rt->cs = calloc(maxu, sizeof *rt->cs);
  rt->cs_cap = maxu;
  fg_bar_res *br = calloc(nres ? nres : 1, sizeof *br);
  fg_bar_use *bu = malloc(2 * tu * sizeof *bu);
  uint32_t *ufirst = calloc(2 * (size_t)n + 1, sizeof *ufirst), *ucount = calloc(2 * (size_t)n + 1, sizeof *ucount);
  rt->bar_first = calloc(2 * (size_t)n + 1, sizeof *rt->bar_first);
  rt->bar_count = calloc(2 * (size_t)n + 1, sizeof *rt->bar_count);
  rt->end_even = calloc(nres ? nres : 1, sizeof *rt->end_even);
  rt->end_odd = calloc(nres ? nres : 1, sizeof *rt->end_odd);
  rt->extent = calloc(2 * (size_t)n + 1, sizeof *rt->extent);
  if (!rt->use_phys[0] || !rt->use_phys[1] || !rt->use_usage || !rt->use_write || !rt->use_stage || !rt->cs ||
      !br || !bu || !ufirst || !ucount || !rt->bar_first || !rt->bar_count || !rt->end_even || !rt->end_odd ||
      !rt->extent) {
    free(br); free(bu); free(ufirst); free(ucount);
    goto oom;
  }
  for (uint32_t i = 0; i < nres; i++) {
    const fg_graph_resource *gr = rt->res[i].g;
    br[i].is_image = rt->res[i].is_image;
    br[i].aspect = rt->res[i].aspect;
    br[i].heap = gr->heap == FG_GRAPH_NONE ? -1 : (int)gr->heap;
    br[i].offset = gr->offset;
    br[i].size = gr->size;
    br[i].parity = (int)gr->frame;
    if (rt->res[i].is_external) {
      uint32_t p0 = fg_graph_physical(g, gr->logical, 0, gr->index);
      br[i].alias_key = 1 + (p0 == FG_GRAPH_NONE ? i : p0);
    }
  }
  /* Uses per (parity, slot): one per physical resource (a node touching a
   * resource twice is merged: any write makes the use a write). */
  uint32_t nu = 0;
  for (uint32_t p = 0; p < 2; p++) {
    for (uint32_t s = 0; s < n; s++) {
      const fg_graph_instance *in = fg_graph_instance_get(g, s);
      ufirst[p * n + s] = nu;
      for (uint32_t u = 0; u < in->use_count; u++) {
        const fg_graph_use *us = &in->uses[u];
        uint32_t k = rt->inst_use_first[s] + u;
        uint32_t ph = us->missing ? FG_GRAPH_NONE : us->phys[p];
        rt->use_phys[p][k] = ph;
        int ru = to_rt_usage(us->usage);
        if (p == 0) {
          rt->use_usage[k] = (uint8_t)(ru < 0 ? 0xff : ru);
          rt->use_write[k] = (uint8_t)is_write_access(us->access);
          rt->use_stage[k] = to_stage(us->stage);
        }
        if (ph == FG_GRAPH_NONE || ru < 0 || ph >= nres || rt->res[ph].is_blob) continue;
        if (!rt->res[ph].is_external && !rt->res[ph].image && !rt->res[ph].buffer) continue;
        fg_bar_use *m = NULL;
        for (uint32_t q = ufirst[p * n + s]; q < nu; q++)
          if (bu[q].res == ph) m = &bu[q];
        if (m) {
          if (is_write_access(us->access) && !m->write) {
            m->write = 1;
            m->usage = (uint8_t)ru;
            m->stage = to_stage(us->stage);
          }
          if (us->access == FG_ACCESS_CREATE) m->activate = 1;
          continue;
        }
        fg_bar_use *b = &bu[nu++];
        memset(b, 0, sizeof *b);
        b->res = ph;
        b->usage = (uint8_t)ru;
        b->write = (uint8_t)is_write_access(us->access);
        b->activate = us->access == FG_ACCESS_CREATE;
        b->stage = to_stage(us->stage);
      }
      ucount[p * n + s] = nu - ufirst[p * n + s];
    }
  }
  int rc = fg_bar_plan(br, nres, bu, ufirst, ucount, n, &rt->bars, rt->bar_first, rt->bar_count,
                       rt->end_odd, rt->end_even);
  free(br); free(bu); free(ufirst); free(ucount);
  if (rc) goto oom;
  /* Vulkan structs per batch, split into image and buffer arrays. */
  uint32_t nb = 0;
  for (uint32_t k = 0; k < 2 * n; k++) {
    nb += rt->bar_count[k];
    if (rt->bar_count[k] > rt->max_batch) rt->max_batch = rt->bar_count[k];
    rt->planned_barriers[k / n] += rt->bar_count[k];
  }
  size_t nbb = nb ? nb : 1;
  rt->ib2 = malloc(nbb * sizeof *rt->ib2);
  rt->bb2 = malloc(nbb * sizeof *rt->bb2);
  rt->ib_first = calloc(2 * (size_t)n + 1, sizeof(uint32_t));
  rt->ib_count = calloc(2 * (size_t)n + 1, sizeof(uint32_t));
  rt->bb_first = calloc(2 * (size_t)n + 1, sizeof(uint32_t));
  rt->bb_count = calloc(2 * (size_t)n + 1, sizeof(uint32_t));
  rt->scratch_i = malloc(2 * ((size_t)rt->max_batch + 1) * sizeof *rt->scratch_i);
  rt->scratch_b = malloc(2 * ((size_t)rt->max_batch + 1) * sizeof *rt->scratch_b);
  rt->batch_flags = calloc(2 * (size_t)n + 1, 1);
  if (!rt->ib2 || !rt->bb2 || !rt->ib_first || !rt->ib_count || !rt->bb_first || !rt->bb_count ||
      !rt->scratch_i || !rt->scratch_b || !rt->batch_flags) goto oom;
  uint32_t ni = 0, nbuf = 0;
  for (uint32_t k = 0; k < 2 * n; k++) {
    rt->ib_first[k] = ni;
    rt->bb_first[k] = nbuf;
    for (uint32_t j = rt->bar_first[k]; j < rt->bar_first[k] + rt->bar_count[k]; j++) {
      const fg_bar *b = &rt->bars[j];
      if (rt->res[b->res].is_external) rt->batch_flags[k] |= 1;
      if (b->activate) rt->batch_flags[k] |= 2;
      if (rt->res[b->res].is_image) fill_image_barrier(rt, b, &rt->ib2[ni++]);
      else fill_buffer_barrier(rt, b, &rt->bb2[nbuf++]);
    }
    rt->ib_count[k] = ni - rt->ib_first[k];
    rt->bb_count[k] = nbuf - rt->bb_first[k];
  }
  /* Dynamic rendering per (parity, slot). */
  uint32_t natt = 0;
  for (uint32_t s = 0; s < n; s++) {
    const fg_graph_instance *in = fg_graph_instance_get(g, s);
    if (in->has_pass) natt += in->color_count + (in->has_depth ? 1 : 0);
  }
  rt->att_total = 2 * natt;
  rt->att = calloc(2 * (size_t)natt + 1, sizeof *rt->att);
  rt->att_res = calloc(2 * (size_t)natt + 1, sizeof *rt->att_res);
  rt->ri = calloc(2 * (size_t)n + 1, sizeof *rt->ri);
  if (!rt->att || !rt->att_res || !rt->ri) goto oom;
  uint32_t a = 0;
  for (uint32_t p = 0; p < 2; p++) {
    for (uint32_t s = 0; s < n; s++) {
      const fg_graph_instance *in = fg_graph_instance_get(g, s);
      uint32_t w = 0, h = 0;
      for (uint32_t u = 0; u < in->use_count && !w; u++) {
        uint32_t ph = rt->use_phys[p][rt->inst_use_first[s] + u];
        if (ph != FG_GRAPH_NONE && rt->res[ph].is_image) { w = rt->res[ph].width; h = rt->res[ph].height; }
      }
      VkRenderingInfo *ri = &rt->ri[p * n + s];
      if (!in->has_pass) { rt->extent[2 * s] = w; rt->extent[2 * s + 1] = h; continue; }
      ri->sType = VK_STRUCTURE_TYPE_RENDERING_INFO;
      ri->layerCount = 1;
      ri->pColorAttachments = &rt->att[a];
      uint32_t nat = in->color_count + (in->has_depth ? 1 : 0);
      int got_extent = 0;
      for (uint32_t c = 0; c < nat; c++) {
        const fg_graph_attachment *ga = c < in->color_count ? &in->colors[c] : &in->depth;
        const fg_graph_use *us = &in->uses[ga->use];
        uint32_t ph = us->phys[p];
        VkRenderingAttachmentInfo *ai = &rt->att[a];
        rt->att_res[a] = ph;
        a++;
        ai->sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO;
        if (ph == FG_GRAPH_NONE) continue;
        const fg_rt_res *r = &rt->res[ph];
        const fg_graph_resource *gr = r->g;
        ai->imageView = r->view;
        int ru = to_rt_usage(us->usage);
        ai->imageLayout = fg_rt_usage_layout(ru < 0 ? FG_RT_USAGE_COLOR : ru);
        if (ga->has_clear) {
          ai->loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
          if (c < in->color_count) memcpy(ai->clearValue.color.float32, ga->clear, sizeof ga->clear);
          else ai->clearValue.depthStencil.depth = ga->clear[0], ai->clearValue.depthStencil.stencil = ga->clear_stencil;
        } else {
          ai->loadOp = us->access == FG_ACCESS_CREATE ? VK_ATTACHMENT_LOAD_OP_DONT_CARE : VK_ATTACHMENT_LOAD_OP_LOAD;
        }
        int later = gr->last_slot > s || gr->history || gr->is_output || r->is_external;
        ai->storeOp = later ? VK_ATTACHMENT_STORE_OP_STORE : VK_ATTACHMENT_STORE_OP_DONT_CARE;
        if (!got_extent) {
          ri->renderArea.extent.width = r->width;
          ri->renderArea.extent.height = r->height;
          got_extent = 1;
        }
      }
      ri->colorAttachmentCount = in->color_count;
      if (in->has_depth) ri->pDepthAttachment = &rt->att[a - 1];
      if (p == 0) {
        rt->extent[2 * s] = ri->renderArea.extent.width;
        rt->extent[2 * s + 1] = ri->renderArea.extent.height;
      }
    }
  }
  return 0;
oom:
  fg_errf(err, errlen, "out of memory while planning barriers");
  return -1;
}

static int build(fg_rt *rt, const fg_graph *g, char *err, size_t errlen) {
  rt->g = g;
  if (!fg_graph_compiled(g)) { fg_errf(err, errlen, "the graph is not compiled"); return -1; }
  if (place_memory(rt, err, errlen)) return -1;
  if (create_objects(rt, err, errlen)) return -1;
  return build_plan(rt, err, errlen);
}

fg_rt *fg_rt_create(fg_vk_device *dev, const fg_graph *g, const fg_rt_desc *desc, char *err, size_t errlen) {
  fg_rt *rt = calloc(1, sizeof *rt);
  if (!rt) { fg_errf(err, errlen, "out of memory"); return NULL; }
  rt->dev = fg_vk_retain(dev);
  pthread_mutex_init(&rt->upload_lock, NULL);
  if (desc) rt->desc = *desc;
  rt->rng = rt->desc.seed ? rt->desc.seed : 0x9e3779b97f4a7c15ull;
  rt->present_phys = FG_GRAPH_NONE;
  VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                .queueFamilyIndex = dev->queue_family};
  VkResult r = vkCreateCommandPool(dev->device, &pi, NULL, &rt->pool);
  if (r == VK_SUCCESS) {
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = rt->pool, .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 2};
    r = vkAllocateCommandBuffers(dev->device, &ai, rt->cmd);
  }
  if (r == VK_SUCCESS) {
    VkSemaphoreTypeCreateInfo ti = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                    .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE, .initialValue = 0};
    VkSemaphoreCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &ti};
    r = vkCreateSemaphore(dev->device, &si, NULL, &rt->timeline);
  }
  if (r != VK_SUCCESS) {
    fg_errf(err, errlen, "creating command pool/semaphore failed (VkResult %d)", (int)r);
    fg_rt_destroy(rt);
    return NULL;
  }
  if (build(rt, g, err, errlen)) {
    fg_rt_destroy(rt);
    return NULL;
  }
  return rt;
}

int fg_rt_wait_idle(fg_rt *rt) {
  if (!rt->frame) return 0;
  VkSemaphoreWaitInfo wi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO, .semaphoreCount = 1,
                            .pSemaphores = &rt->timeline, .pValues = &rt->frame};
  return vkWaitSemaphores(rt->dev->device, &wi, UINT64_MAX) == VK_SUCCESS ? 0 : -1;
}

int fg_rt_rebuild(fg_rt *rt, const fg_graph *g, char *err, size_t errlen) {
  fg_rt_wait_idle(rt);
  free_plan(rt);
  free_objects(rt);
  /* A new plan starts a new history: the first frame initialises it again. */
  rt->frame = 0;
  VkSemaphore old = rt->timeline;
  VkSemaphoreTypeCreateInfo ti = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                  .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE, .initialValue = 0};
  VkSemaphoreCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &ti};
  if (vkCreateSemaphore(rt->dev->device, &si, NULL, &rt->timeline) != VK_SUCCESS) {
    rt->timeline = old;
    fg_errf(err, errlen, "creating the timeline semaphore failed");
    return -1;
  }
  vkDestroySemaphore(rt->dev->device, old, NULL);
  if (build(rt, g, err, errlen)) {
    free_plan(rt);
    free_objects(rt);
    return -1;
  }
  return 0;
}

void fg_rt_destroy(fg_rt *rt) {
  if (!rt) return;
  if (rt->dev && rt->dev->device) {
    fg_rt_wait_idle(rt);
    if (rt->upload) {
      /* Frames before the ring's current one were all submitted (and are now
       * done); the current one never was: signal it from the host so the
       * ring does not wait for a value no submit will bring. */
      uint64_t f = fg_upload_frame(rt->upload), v = 0;
      VkSemaphore sem = fg_upload_semaphore(rt->upload);
      vkGetSemaphoreCounterValue(rt->dev->device, sem, &v);
      if (v < f) {
        VkSemaphoreSignalInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO, .semaphore = sem, .value = f};
        vkSignalSemaphore(rt->dev->device, &si);
      }
      fg_upload_destroy(rt->upload);
      rt->upload = NULL;
    }
    free_plan(rt);
    free_objects(rt);
    free_memory(rt);
    if (rt->timeline) vkDestroySemaphore(rt->dev->device, rt->timeline, NULL);
    if (rt->pool) vkDestroyCommandPool(rt->dev->device, rt->pool, NULL);
  }
  pthread_mutex_destroy(&rt->upload_lock);
  fg_vk_release(rt->dev);
  free(rt);
}

/* ------------------------------------------------------------ frames -- */

static uint32_t rnd(fg_rt *rt) {
  uint64_t x = rt->rng;
  x ^= x << 13; x ^= x >> 7; x ^= x << 17;
  rt->rng = x;
  return (uint32_t)(x >> 11);
}

static void barrier(fg_rt *rt, VkCommandBuffer cmd, const VkImageMemoryBarrier2 *ib, uint32_t ni,
                    const VkBufferMemoryBarrier2 *bb, uint32_t nb, const VkMemoryBarrier2 *mb, uint32_t nm) {
  if (!ni && !nb && !nm) return;
  VkDependencyInfo di = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
                         .memoryBarrierCount = nm, .pMemoryBarriers = mb,
                         .bufferMemoryBarrierCount = nb, .pBufferMemoryBarriers = bb,
                         .imageMemoryBarrierCount = ni, .pImageMemoryBarriers = ib};
  vkCmdPipelineBarrier2(cmd, &di);
  rt->st_barriers += ni + nb + nm;
  rt->st_batches++;
}

static const fg_bar_state *end_state(const fg_rt *rt, uint32_t parity, uint32_t res) {
  return parity ? &rt->end_odd[res] : &rt->end_even[res];
}

/* First frame: history copies read before anything wrote them are cleared or
 * merely given their layout, and left in the state the steady plan assumes. */
static void prologue(fg_rt *rt, VkCommandBuffer cmd) {
  for (uint32_t i = 0; i < rt->nres; i++) {
    fg_rt_res *r = &rt->res[i];
    const fg_graph_resource *gr = r->g;
    if (!gr->history || gr->frame != 1 || r->is_external || (!r->image && !r->buffer)) continue;
    const fg_bar_state *st = end_state(rt, 1, i);
    int clear = gr->history_policy != FG_HISTORY_DISCARD;
    VkImageLayout final = st->layout == VK_IMAGE_LAYOUT_UNDEFINED ? VK_IMAGE_LAYOUT_GENERAL : st->layout;
    fg_bar b = {.res = i, .src_stage = VK_PIPELINE_STAGE_2_NONE, .dst_stage = VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                .dst_access = VK_ACCESS_2_TRANSFER_WRITE_BIT, .old_layout = VK_IMAGE_LAYOUT_UNDEFINED,
                .new_layout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL};
    if (clear) {
      if (r->image) {
        VkImageMemoryBarrier2 ib;
        fill_image_barrier(rt, &b, &ib);
        barrier(rt, cmd, &ib, 1, NULL, 0, NULL, 0);
        VkImageSubresourceRange range = {.aspectMask = r->aspect, .levelCount = VK_REMAINING_MIP_LEVELS,
                                         .layerCount = VK_REMAINING_ARRAY_LAYERS};
        if (r->aspect & VK_IMAGE_ASPECT_COLOR_BIT) {
          VkClearColorValue cv = {{0, 0, 0, 0}};
          vkCmdClearColorImage(cmd, r->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &cv, 1, &range);
        } else {
          VkClearDepthStencilValue dv = {0, 0};
          vkCmdClearDepthStencilImage(cmd, r->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &dv, 1, &range);
        }
      } else {
        VkBufferMemoryBarrier2 bb;
        fill_buffer_barrier(rt, &b, &bb);
        barrier(rt, cmd, NULL, 0, &bb, 1, NULL, 0);
        vkCmdFillBuffer(cmd, r->buffer, 0, VK_WHOLE_SIZE, 0);
      }
      b.src_stage = VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT;
      b.src_access = VK_ACCESS_2_TRANSFER_WRITE_BIT;
      b.old_layout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    }
    b.dst_stage = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
    b.dst_access = VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT;
    b.new_layout = final;
    if (r->image) {
      VkImageMemoryBarrier2 ib;
      fill_image_barrier(rt, &b, &ib);
      barrier(rt, cmd, &ib, 1, NULL, 0, NULL, 0);
    } else {
      VkBufferMemoryBarrier2 bb;
      fill_buffer_barrier(rt, &b, &bb);
      barrier(rt, cmd, NULL, 0, &bb, 1, NULL, 0);
    }
  }
}

/* Externals: bring the provided image from the caller's layout to what the
 * plan assumes at the start of the frame (only for images read before written). */
static void external_entry(fg_rt *rt, VkCommandBuffer cmd, uint32_t parity) {
  for (uint32_t i = 0; i < rt->nres; i++) {
    fg_rt_res *r = &rt->res[i];
    if (!r->is_external || r->g->frame != parity || !r->image || !rt->ext_layout[i]) continue;
    const fg_bar_state *st = end_state(rt, parity ^ 1, i);
    VkImageLayout want = st->layout == VK_IMAGE_LAYOUT_UNDEFINED ? *rt->ext_layout[i] : st->layout;
    if (want == *rt->ext_layout[i] && rt->frame > 0) continue;
    fg_bar b = {.res = i, .src_stage = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                .src_access = VK_ACCESS_2_MEMORY_WRITE_BIT, .dst_stage = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                .dst_access = VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT,
                .old_layout = *rt->ext_layout[i], .new_layout = want};
    VkImageMemoryBarrier2 ib;
    fill_image_barrier(rt, &b, &ib);
    barrier(rt, cmd, &ib, 1, NULL, 0, NULL, 0);
  }
}

static void node_barriers(fg_rt *rt, VkCommandBuffer cmd, uint32_t p, uint32_t s) {
  uint32_t k = p * rt->ninst + s;
  if (!rt->bar_count[k]) return;
  int dynamic = (rt->batch_flags[k] & 1) || (rt->desc.poison && (rt->batch_flags[k] & 2));
  if (!dynamic) {
    barrier(rt, cmd, rt->ib2 + rt->ib_first[k], rt->ib_count[k], rt->bb2 + rt->bb_first[k], rt->bb_count[k], NULL, 0);
    return;
  }
  /* Slow path (poison mode, externals): rebuild the batch, filling activated
   * resources with garbage first. */
  VkImageMemoryBarrier2 *pi = rt->scratch_i, *mi = rt->scratch_i + rt->max_batch + 1;
  VkBufferMemoryBarrier2 *pb = rt->scratch_b, *mbuf = rt->scratch_b + rt->max_batch + 1;
  uint32_t npi = 0, npb = 0, nmi = 0, nmb = 0;
  for (uint32_t j = rt->bar_first[k]; j < rt->bar_first[k] + rt->bar_count[k]; j++) {
    fg_bar b = rt->bars[j];
    fg_rt_res *r = &rt->res[b.res];
    if (rt->desc.poison && b.activate && !r->is_external) {
      fg_bar pre = b;
      pre.dst_stage = VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT;
      pre.dst_access = VK_ACCESS_2_TRANSFER_WRITE_BIT;
      pre.new_layout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
      if (r->is_image) fill_image_barrier(rt, &pre, &pi[npi++]);
      else fill_buffer_barrier(rt, &pre, &pb[npb++]);
      b.src_stage = VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT;
      b.src_access = VK_ACCESS_2_TRANSFER_WRITE_BIT;
      b.old_layout = r->is_image ? VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL : VK_IMAGE_LAYOUT_UNDEFINED;
    }
    if (r->is_image) {
      fill_image_barrier(rt, &b, &mi[nmi++]);
    } else {
      fill_buffer_barrier(rt, &b, &mbuf[nmb++]);
    }
  }
  if (npi || npb) {
    barrier(rt, cmd, pi, npi, pb, npb, NULL, 0);
    for (uint32_t j = 0; j < npi; j++) {
      VkImageSubresourceRange range = pi[j].subresourceRange;
      VkClearColorValue cv;
      for (int c = 0; c < 4; c++) cv.uint32[c] = rnd(rt);
      if (range.aspectMask & VK_IMAGE_ASPECT_COLOR_BIT) {
        vkCmdClearColorImage(cmd, pi[j].image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &cv, 1, &range);
      } else {
        VkClearDepthStencilValue dv = {(float)(rnd(rt) % 1000) / 1000.0f, rnd(rt) & 0xff};
        vkCmdClearDepthStencilImage(cmd, pi[j].image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &dv, 1, &range);
      }
    }
    for (uint32_t j = 0; j < npb; j++) vkCmdFillBuffer(cmd, pb[j].buffer, 0, VK_WHOLE_SIZE, rnd(rt));
  }
  barrier(rt, cmd, mi, nmi, mbuf, nmb, NULL, 0);
}

void fg_rt_cmd_access(fg_rt *rt, VkCommandBuffer cmd, uint32_t slot, uint32_t use,
                      VkPipelineStageFlags2 stage, VkAccessFlags2 access) {
  if (use >= rt->cs_cap) return;
  uint32_t k = rt->inst_use_first[slot] + use;
  cmd_state *c = &rt->cs[use];
  VkPipelineStageFlags2 sd = rt->use_stage[k];
  uint8_t ru = rt->use_usage[k];
  VkAccessFlags2 ad = fg_rt_usage_access(ru == 0xff ? -1 : ru, rt->use_write[k]);
  int w = fg_rt_access_is_write(access);
  int outside = (stage & ~sd) || (access & ~ad);
  VkMemoryBarrier2 mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2, .dstStageMask = stage, .dstAccessMask = access};
  int need = 0;
  if (!c->touched) {
    if (outside) { mb.srcStageMask = sd; need = 1; }
  } else if (c->write || w) {
    mb.srcStageMask = c->stage;
    mb.srcAccessMask = c->write ? c->access : 0;
    need = 1;
  }
  /* Barriers inside a dynamic render pass need a self-dependency; the
   * commands there (draws) read what the node declared, so none is needed. */
  if (need && !rt->recording_pass) barrier(rt, cmd, NULL, 0, NULL, 0, &mb, 1);
  c->touched = 1;
  c->stage = stage;
  c->access = access;
  c->write = w;
  if (outside) {
    c->ext_stage |= stage;
    if (w) c->ext_access |= access;
  }
}

static void node_end(fg_rt *rt, VkCommandBuffer cmd, uint32_t slot) {
  uint32_t nu = rt->inst_use_first[slot + 1] - rt->inst_use_first[slot];
  VkMemoryBarrier2 mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2};
  int need = 0;
  for (uint32_t u = 0; u < nu && u < rt->cs_cap; u++) {
    cmd_state *c = &rt->cs[u];
    if (c->ext_stage) {
      uint32_t k = rt->inst_use_first[slot] + u;
      uint8_t ru = rt->use_usage[k];
      mb.srcStageMask |= c->ext_stage;
      mb.srcAccessMask |= c->ext_access;
      mb.dstStageMask |= rt->use_stage[k];
      mb.dstAccessMask |= fg_rt_usage_access(ru == 0xff ? -1 : ru, rt->use_write[k]);
      need = 1;
    }
    memset(c, 0, sizeof *c);
  }
  if (need) barrier(rt, cmd, NULL, 0, NULL, 0, &mb, 1);
}

int fg_rt_frame(fg_rt *rt, fg_rt_node_fn fn, void *user, char *err, size_t errlen) {
  VkDevice d = rt->dev->device;
  uint64_t n = rt->frame;
  uint32_t p = (uint32_t)(n & 1);
  /* A swapchain image given for this frame only (fg_rt_set_present). */
  uint32_t present = rt->present_phys;
  VkSemaphore present_wait = rt->present_wait, present_signal = rt->present_signal;
  rt->present_phys = FG_GRAPH_NONE;
  rt->present_wait = rt->present_signal = VK_NULL_HANDLE;
  if (present >= rt->nres || !rt->res[present].image || rt->res[present].g->frame != p) present = FG_GRAPH_NONE;
  if (!rt->res && rt->nres == 0 && !rt->ri) { fg_errf(err, errlen, "the runtime has no valid plan"); return -2; }
  if (n >= 2) {
    uint64_t v = n - 1;
    VkSemaphoreWaitInfo wi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO, .semaphoreCount = 1,
                              .pSemaphores = &rt->timeline, .pValues = &v};
    VkResult r = vkWaitSemaphores(d, &wi, UINT64_MAX);
    if (r != VK_SUCCESS) { fg_errf(err, errlen, "waiting for frame %llu failed (VkResult %d)", (unsigned long long)(n - 2), (int)r); return -2; }
  }
  VkCommandBuffer cmd = rt->cmd[p];
  vkResetCommandBuffer(cmd, 0);
  VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                 .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
  VkResult vr = vkBeginCommandBuffer(cmd, &bi);
  if (vr != VK_SUCCESS) { fg_errf(err, errlen, "vkBeginCommandBuffer failed (VkResult %d)", (int)vr); return -2; }
  rt->st_barriers = rt->st_batches = 0;
  uint64_t t0 = fg_now_ns(), cb_ns = 0;
  if (n == 0) prologue(rt, cmd);
  external_entry(rt, cmd, p);
  /* Patch external images/views of this frame into barriers and attachments. */
  for (uint32_t a = 0; a < rt->att_total; a++) {
    uint32_t ph = rt->att_res[a];
    if (ph != FG_GRAPH_NONE && ph < rt->nres && rt->res[ph].is_external) rt->att[a].imageView = rt->res[ph].view;
  }
  for (uint32_t s = 0; s < rt->ninst; s++) {
    node_barriers(rt, cmd, p, s);
    const VkRenderingInfo *ri = &rt->ri[p * rt->ninst + s];
    int pass = ri->sType == VK_STRUCTURE_TYPE_RENDERING_INFO;
    if (pass) {
      vkCmdBeginRendering(cmd, ri);
      rt->recording_pass = 1;
    }
    if (fn) {
      uint64_t c0 = fg_now_ns();
      int rc = fn(user, rt, cmd, s);
      cb_ns += fg_now_ns() - c0;
      if (rc) {
        if (pass) vkCmdEndRendering(cmd);
        rt->recording_pass = 0;
        vkEndCommandBuffer(cmd);
        vkResetCommandBuffer(cmd, 0);
        uint32_t nu = rt->inst_use_first[s + 1] - rt->inst_use_first[s];
        memset(rt->cs, 0, (nu < rt->cs_cap ? nu : rt->cs_cap) * sizeof *rt->cs);
        return -1;
      }
    }
    if (pass) {
      vkCmdEndRendering(cmd);
      rt->recording_pass = 0;
    }
    if (fn) node_end(rt, cmd, s);
  }
  if (present != FG_GRAPH_NONE) {
    /* Hand the swapchain image to presentation; the signal semaphore below
     * makes the presentation engine wait for it. */
    const fg_bar_state *st = end_state(rt, p, present);
    VkPipelineStageFlags2 src = st->wstage | st->rstages;
    fg_bar b = {.res = present, .src_stage = src ? src : VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                .src_access = st->waccess, .dst_stage = VK_PIPELINE_STAGE_2_NONE,
                .old_layout = st->layout != VK_IMAGE_LAYOUT_UNDEFINED ? st->layout : *rt->ext_layout[present],
                .new_layout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR};
    VkImageMemoryBarrier2 ib;
    fill_image_barrier(rt, &b, &ib);
    barrier(rt, cmd, &ib, 1, NULL, 0, NULL, 0);
  }
  vr = vkEndCommandBuffer(cmd);
  rt->st_record_ns = fg_now_ns() - t0 - cb_ns;
  rt->st_callback_ns = cb_ns;
  if (vr != VK_SUCCESS) { fg_errf(err, errlen, "vkEndCommandBuffer failed (VkResult %d)", (int)vr); return -2; }
  uint64_t signal = n + 1;
  VkCommandBufferSubmitInfo cbi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO, .commandBuffer = cmd};
  /* The upload ring's frame ends with this submit: its segments return when
   * the GPU signals the ring's semaphore with the ring's frame value. */
  VkSemaphoreSubmitInfo ssi[3] = {
    {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO, .semaphore = rt->timeline, .value = signal,
     .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT},
    {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO, .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT},
    {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO, .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT},
  };
  uint32_t nsig = 1;
  fg_upload_ring *ring = rt->upload;
  if (ring) {
    ssi[nsig].semaphore = fg_upload_semaphore(ring);
    ssi[nsig++].value = fg_upload_frame(ring);
  }
  /* Presentation: the whole frame waits for the acquired image (its first use
   * may be any stage) and signals the binary semaphore the present waits on. */
  VkSemaphoreSubmitInfo wsi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO, .semaphore = present_wait,
                               .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT};
  if (present != FG_GRAPH_NONE && present_signal) ssi[nsig++].semaphore = present_signal;
  VkSubmitInfo2 si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2, .commandBufferInfoCount = 1,
                      .pCommandBufferInfos = &cbi, .signalSemaphoreInfoCount = nsig,
                      .pSignalSemaphoreInfos = ssi,
                      .waitSemaphoreInfoCount = present != FG_GRAPH_NONE && present_wait ? 1 : 0,
                      .pWaitSemaphoreInfos = &wsi};
  vr = vkQueueSubmit2(rt->dev->queue, 1, &si, VK_NULL_HANDLE);
  if (vr != VK_SUCCESS) { fg_errf(err, errlen, "vkQueueSubmit2 failed (VkResult %d)", (int)vr); return -2; }
  if (ring) fg_upload_next_frame(ring);
  for (uint32_t i = 0; i < rt->nres; i++)
    if (rt->res[i].is_external && rt->res[i].g->frame == p && rt->ext_layout[i]) {
      const fg_bar_state *st = end_state(rt, p, i);
      if (st->layout != VK_IMAGE_LAYOUT_UNDEFINED) *rt->ext_layout[i] = st->layout;
      if (i == present) *rt->ext_layout[i] = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
    }
  rt->frame = n + 1;
  return 0;
}

/* ------------------------------------------------------------ access -- */

uint64_t fg_rt_frame_index(const fg_rt *rt) { return rt->frame; }
uint32_t fg_rt_parity(const fg_rt *rt) { return (uint32_t)(rt->frame & 1); }
const fg_graph *fg_rt_graph(const fg_rt *rt) { return rt->g; }
fg_vk_device *fg_rt_device(const fg_rt *rt) { return rt->dev; }
fg_rt_res *fg_rt_resource(fg_rt *rt, uint32_t phys) { return phys < rt->nres ? &rt->res[phys] : NULL; }
uint32_t fg_rt_resource_count(const fg_rt *rt) { return rt->nres; }

uint32_t fg_rt_use_phys(const fg_rt *rt, uint32_t slot, uint32_t use) {
  if (slot >= rt->ninst || use >= rt->inst_use_first[slot + 1] - rt->inst_use_first[slot]) return FG_GRAPH_NONE;
  return rt->use_phys[rt->frame & 1][rt->inst_use_first[slot] + use];
}

VkImageLayout fg_rt_use_layout(const fg_rt *rt, uint32_t slot, uint32_t use) {
  if (slot >= rt->ninst) return VK_IMAGE_LAYOUT_UNDEFINED;
  uint8_t u = rt->use_usage[rt->inst_use_first[slot] + use];
  return u == 0xff ? VK_IMAGE_LAYOUT_GENERAL : fg_rt_usage_layout(u);
}

void fg_rt_set_external(fg_rt *rt, uint32_t phys, VkImage image, VkImageView view, VkImageLayout *layout) {
  if (phys >= rt->nres || !rt->res[phys].is_external) return;
  rt->res[phys].image = image;
  rt->res[phys].view = view;
  rt->ext_layout[phys] = layout;
  /* Patch planned barriers that name this resource. */
  for (uint32_t k = 0; k < 2 * rt->ninst; k++) {
    uint32_t i = rt->ib_first[k];
    for (uint32_t j = rt->bar_first[k]; j < rt->bar_first[k] + rt->bar_count[k]; j++) {
      if (!rt->res[rt->bars[j].res].is_image) continue;
      if (rt->bars[j].res == phys) rt->ib2[i].image = image;
      i++;
    }
  }
}

void fg_rt_set_present(fg_rt *rt, uint32_t phys, VkSemaphore acquired, VkSemaphore presentable) {
  rt->present_phys = phys;
  rt->present_wait = acquired;
  rt->present_signal = presentable;
}

uint32_t fg_rt_heap_count(const fg_rt *rt) { return rt->heap_count; }
void fg_rt_heap_get(const fg_rt *rt, uint32_t i, fg_rt_heap_info *out) {
  memset(out, 0, sizeof *out);
  if (i >= rt->heap_count) return;
  out->bytes = rt->mem[i] ? rt->mem_bytes[i] : 0;
  out->planned = rt->planned[i];
  out->memory_type = rt->mem_type[i];
}
uint32_t fg_rt_allocations(const fg_rt *rt) { return rt->allocations; }

void fg_rt_get_stats(const fg_rt *rt, fg_rt_stats *out) {
  memset(out, 0, sizeof *out);
  out->frames = rt->frame;
  out->barriers = rt->st_barriers;
  out->batches = rt->st_batches;
  out->planned_barriers[0] = rt->planned_barriers[0];
  out->planned_barriers[1] = rt->planned_barriers[1];
  out->record_ns = rt->st_record_ns;
  out->callback_ns = rt->st_callback_ns;
  out->instances = rt->ninst;
}

/* ------------------------------------------------------------ upload -- */

static VkDeviceSize pow2_floor(VkDeviceSize v) {
  VkDeviceSize p = 1;
  while (p <= v / 2) p <<= 1;
  return p;
}

fg_upload_ring *fg_rt_upload_ring(fg_rt *rt, char *err, size_t errlen) {
  pthread_mutex_lock(&rt->upload_lock);
  if (!rt->upload) {
    fg_upload_desc d = {0};
    d.size = rt->desc.upload_bytes ? rt->desc.upload_bytes : (4u << 20);
    d.segment_size = rt->desc.upload_segment;
    if (!d.segment_size) {
      VkDeviceSize s = pow2_floor(d.size / 16 ? d.size / 16 : 1);
      d.segment_size = s < 256 ? 256 : s > (256u << 10) ? (256u << 10) : s;
    }
    d.threads = rt->desc.upload_threads ? rt->desc.upload_threads : 1;
    char why[512];
    rt->upload = fg_upload_create(rt->dev, &d, why, sizeof why);
    if (!rt->upload) fg_errf(err, errlen, "creating the upload ring (%llu bytes) failed: %s",
                             (unsigned long long)d.size, why);
    else {
      rt->upload_size = (d.size / d.segment_size) * d.segment_size;
      rt->upload_segment = d.segment_size;
      rt->upload_threads = d.threads;
    }
  }
  fg_upload_ring *r = rt->upload;
  pthread_mutex_unlock(&rt->upload_lock);
  return r;
}

VkBuffer fg_rt_upload_buffer(const fg_rt *rt) { return rt->upload ? fg_upload_buffer(rt->upload) : VK_NULL_HANDLE; }
uint64_t fg_rt_upload_frame(const fg_rt *rt) { return rt->upload ? fg_upload_frame(rt->upload) : 0; }

VkDeviceSize fg_rt_upload_alignment(const fg_rt *rt) {
  const VkPhysicalDeviceLimits *l = &rt->dev->props.limits;
  VkDeviceSize a = 16;
  if (l->minStorageBufferOffsetAlignment > a) a = l->minStorageBufferOffsetAlignment;
  if (l->minUniformBufferOffsetAlignment > a) a = l->minUniformBufferOffsetAlignment;
  return a;
}

int fg_rt_upload(fg_rt *rt, uint32_t thread, VkDeviceSize size, VkDeviceSize align, fg_upload_span *span,
                 uint64_t *ring_frame, char *err, size_t errlen) {
  fg_upload_ring *r = fg_rt_upload_ring(rt, err, errlen);
  if (!r) return -1;
  if (!align) align = fg_rt_upload_alignment(rt);
  if (thread >= rt->upload_threads || !size || (align & (align - 1)) || align > rt->upload_segment) {
    fg_errf(err, errlen, "upload: need thread < %u, size > 0 and a power-of-two alignment <= %llu (got thread %u, "
            "size %llu, align %llu)", rt->upload_threads, (unsigned long long)rt->upload_segment, thread,
            (unsigned long long)size, (unsigned long long)align);
    return -1;
  }
  if (size > rt->upload_size) {
    fg_errf(err, errlen, "upload of %llu bytes does not fit the upload ring of %llu bytes; create the runtime "
            "with a larger upload_bytes", (unsigned long long)size, (unsigned long long)rt->upload_size);
    return -1;
  }
  char why[512];
  for (;;) {
    uint64_t f = fg_upload_frame(r);
    if (!fg_upload_alloc(r, thread, size, align, span, why, sizeof why)) {
      if (ring_frame) *ring_frame = f;
      return 0;
    }
    /* Full: wait for the oldest frame still on the GPU, if any, and retry.
     * Frames before f were submitted, so their values will be signalled. */
    fg_upload_stats st;
    fg_upload_stats_get(r, &st);
    if (st.completed + 1 >= f) break;
    if (fg_upload_wait(r, st.completed + 1, 10ull * 1000000000ull)) {
      fg_errf(err, errlen, "upload of %llu bytes failed: %s (the GPU did not finish an earlier frame within 10 s)",
              (unsigned long long)size, why);
      return -1;
    }
    atomic_fetch_add(&rt->upload_waits, 1);
  }
  fg_errf(err, errlen, "upload of %llu bytes failed: %s (this frame's uploads fill the ring of %llu bytes; "
          "create the runtime with a larger upload_bytes)", (unsigned long long)size, why,
          (unsigned long long)rt->upload_size);
  return -1;
}

void fg_rt_upload_stats(fg_rt *rt, fg_upload_stats *out, uint64_t *ring_bytes, uint64_t *in_flight_waits) {
  memset(out, 0, sizeof *out);
  if (rt->upload) fg_upload_stats_get(rt->upload, out);
  if (ring_bytes) *ring_bytes = rt->upload ? rt->upload_size : 0;
  if (in_flight_waits) *in_flight_waits = atomic_load(&rt->upload_waits);
}

/* ---------------------------------------------------------- read-back -- */

typedef struct read_ctx {
  fg_rt *rt;
  fg_rt_res *r;
  const fg_bar_state *st;
  fg_vk_host_buffer *hb;
  uint32_t texel;
} read_ctx;

static void record_read(VkCommandBuffer cmd, void *user) {
  read_ctx *c = user;
  fg_rt_res *r = c->r;
  VkPipelineStageFlags2 src = c->st->wstage | c->st->rstages;
  if (!src) src = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
  if (r->image) {
    VkImageLayout L = c->st->layout;
    VkImageMemoryBarrier2 ib = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2, .srcStageMask = src, .srcAccessMask = c->st->waccess,
      .dstStageMask = VK_PIPELINE_STAGE_2_COPY_BIT, .dstAccessMask = VK_ACCESS_2_TRANSFER_READ_BIT,
      .oldLayout = L, .newLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
      .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
      .image = r->image,
      .subresourceRange = {.aspectMask = r->aspect, .levelCount = VK_REMAINING_MIP_LEVELS,
                           .layerCount = VK_REMAINING_ARRAY_LAYERS},
    };
    VkDependencyInfo di = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .imageMemoryBarrierCount = 1,
                           .pImageMemoryBarriers = &ib};
    vkCmdPipelineBarrier2(cmd, &di);
    VkBufferImageCopy bc = {
      .imageSubresource = {.aspectMask = (r->aspect & VK_IMAGE_ASPECT_COLOR_BIT) ? VK_IMAGE_ASPECT_COLOR_BIT
                                                                               : VK_IMAGE_ASPECT_DEPTH_BIT,
                           .layerCount = 1},
      .imageExtent = {r->width, r->height, 1},
    };
    vkCmdCopyImageToBuffer(cmd, r->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, c->hb->buffer, 1, &bc);
    ib.srcStageMask = VK_PIPELINE_STAGE_2_COPY_BIT;
    ib.srcAccessMask = 0;
    ib.dstStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
    ib.dstAccessMask = VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT;
    ib.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    ib.newLayout = L;
    vkCmdPipelineBarrier2(cmd, &di);
  } else {
    VkBufferMemoryBarrier2 bb = {
      .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2, .srcStageMask = src, .srcAccessMask = c->st->waccess,
      .dstStageMask = VK_PIPELINE_STAGE_2_COPY_BIT, .dstAccessMask = VK_ACCESS_2_TRANSFER_READ_BIT,
      .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
      .buffer = r->buffer, .size = VK_WHOLE_SIZE,
    };
    VkDependencyInfo di = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .bufferMemoryBarrierCount = 1,
                           .pBufferMemoryBarriers = &bb};
    vkCmdPipelineBarrier2(cmd, &di);
    VkBufferCopy bc = {.size = r->bytes};
    vkCmdCopyBuffer(cmd, r->buffer, c->hb->buffer, 1, &bc);
    bb.srcStageMask = VK_PIPELINE_STAGE_2_COPY_BIT;
    bb.srcAccessMask = 0;
    bb.dstStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
    bb.dstAccessMask = VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT;
    vkCmdPipelineBarrier2(cmd, &di);
  }
  VkBufferMemoryBarrier2 hb = {
    .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2, .srcStageMask = VK_PIPELINE_STAGE_2_COPY_BIT,
    .srcAccessMask = VK_ACCESS_2_TRANSFER_WRITE_BIT, .dstStageMask = VK_PIPELINE_STAGE_2_HOST_BIT,
    .dstAccessMask = VK_ACCESS_2_HOST_READ_BIT, .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
    .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .buffer = c->hb->buffer, .size = VK_WHOLE_SIZE,
  };
  VkDependencyInfo hd = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .bufferMemoryBarrierCount = 1,
                         .pBufferMemoryBarriers = &hb};
  vkCmdPipelineBarrier2(cmd, &hd);
}

int fg_rt_read(fg_rt *rt, uint32_t phys, void **data, size_t *len, char *err, size_t errlen) {
  *data = NULL;
  *len = 0;
  if (phys >= rt->nres) { fg_errf(err, errlen, "no such physical resource %u", phys); return -1; }
  fg_rt_res *r = &rt->res[phys];
  if (!rt->frame) { fg_errf(err, errlen, "no frame has been rendered yet: call rt:frame() first"); return -1; }
  if (!r->image && !r->buffer) {
    fg_errf(err, errlen, "resource '%s' has no GPU object to read (blob, or unused in this frame)", r->g->name);
    return -1;
  }
  uint32_t p = (uint32_t)((rt->frame - 1) & 1);
  const fg_bar_state *st = end_state(rt, p, phys);
  if (r->image && st->layout == VK_IMAGE_LAYOUT_UNDEFINED) {
    fg_errf(err, errlen, "resource '%s' (frame copy %u) is not used by the last frame", r->g->name, r->g->frame);
    return -1;
  }
  if (r->is_image && (r->aspect & VK_IMAGE_ASPECT_STENCIL_BIT)) {
    fg_errf(err, errlen, "reading back depth/stencil '%s' is not supported", r->g->name);
    return -1;
  }
  /* The copy must still own its memory at the end of the frame: if the plan
   * lets a later resource of the same frame reuse it, the bytes are not its. */
  const fg_graph_resource *gx = r->g;
  if (gx->heap != FG_GRAPH_NONE) {
    uint32_t V = rt->ninst, T = 2 * V;
    for (uint32_t j = 0; j < rt->nres && T; j++) {
      const fg_graph_resource *gy = rt->res[j].g;
      if (j == phys || gy->heap != gx->heap || gy->offset >= gx->offset + gx->size ||
          gx->offset >= gy->offset + gy->size)
        continue;
      for (uint32_t t = gx->stop % T; t != ((p + 1) * V) % T; t = (t + 1) % T) {
        int live = gy->start < gy->stop ? (t >= gy->start && t < gy->stop)
                 : gy->start > gy->stop ? (t >= gy->start || t < gy->stop) : 1;
        if (live) {
          fg_errf(err, errlen, "'%s' (frame copy %u) cannot be read back: the plan reuses its memory for '%s' later "
                  "in the same frame (its lifetime ends at node slot %u); only resources alive at the end of the "
                  "frame can be read: outputs need the compiler to keep them alive to the frame's end",
                  gx->name, gx->frame, gy->name, gx->last_slot);
          return -1;
        }
        if (gx->stop % T == ((p + 1) * V) % T) break;
      }
    }
  }
  fg_rt_wait_idle(rt);
  uint32_t texel = r->is_image ? fg_format_get(r->g->format)->texel_bytes : 1;
  size_t bytes = r->is_image ? (size_t)r->width * r->height * texel : (size_t)r->bytes;
  fg_vk_host_buffer hb;
  if (!fg_vk_host_buffer_create(rt->dev, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, 1, &hb, err, errlen)) return -1;
  read_ctx c = {rt, r, st, &hb, texel};
  VkResult vr = fg_vk_submit_once(rt->dev, record_read, &c);
  if (vr != VK_SUCCESS) {
    fg_vk_host_buffer_destroy(rt->dev, &hb);
    fg_errf(err, errlen, "read-back of '%s' failed (VkResult %d)", r->g->name, (int)vr);
    return -1;
  }
  void *out = malloc(bytes ? bytes : 1);
  if (!out) { fg_vk_host_buffer_destroy(rt->dev, &hb); fg_errf(err, errlen, "out of memory"); return -1; }
  memcpy(out, hb.map, bytes);
  fg_vk_host_buffer_destroy(rt->dev, &hb);
  *data = out;
  *len = bytes;
  return 0;
}
