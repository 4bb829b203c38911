/* Frame-graph runtime: placement in real heaps, static barrier plan,
 * creation and rebuilds (frames: runtime_frame.c). See fg_vk_runtime.h. */
#include "runtime_internal.h"
#include "fg_util.h"
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* CPU memory of the runtime through its device's hooks (a host's fg_allocator,
 * include/framegraph.h; malloc itself on framegraph's own devices). Every
 * allocation in this file has its runtime `rt` at hand. */
#define malloc(n) fg_vk_malloc(rt->dev, (n))
#define calloc(c, n) fg_vk_calloc(rt->dev, (c), (n))
#define free(p) fg_vk_free(rt->dev, (p))

/* ------------------------------------------------------------ helpers -- */

/* The stages a use is planned for: its declared stage, and for depth_read
 * also the fragment shader, which may sample the read-only depth it tests
 * against (bindings.c allows it; inside the pass no barrier can be added). */
static VkPipelineStageFlags2 use_stage(const fg_graph_use *us) {
  return fg_vk_stage(us->stage) | (us->usage == FG_USAGE_DEPTH_READ ? VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT : 0);
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
  fg_vk_share(dev, &ci->sharingMode, &ci->queueFamilyIndexCount, &ci->pQueueFamilyIndices);
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
      out->error = c->err;
      return -1;
    }
    /* creating an image over the device's limits is undefined behaviour
     * (and a validation error): refuse it here, naming the limit */
    const VkPhysicalDeviceLimits *lim = &c->dev->props.limits;
    uint32_t maxd = ci.imageType == VK_IMAGE_TYPE_3D ? lim->maxImageDimension3D : lim->maxImageDimension2D;
    if (ci.extent.width > maxd || ci.extent.height > maxd || ci.extent.depth > (ci.imageType == VK_IMAGE_TYPE_3D ? maxd : 1)) {
      fg_errf(c->err, sizeof c->err, "%ux%u (depth %u) is larger than this device allows (%s = %u); lower its size "
              "or the resolution it follows", ci.extent.width, ci.extent.height, ci.extent.depth,
              ci.imageType == VK_IMAGE_TYPE_3D ? "maxImageDimension3D" : "maxImageDimension2D", maxd);
      out->error = c->err;
      return -1;
    }
    if (ci.arrayLayers > lim->maxImageArrayLayers) {
      fg_errf(c->err, sizeof c->err, "%u layers are more than this device allows (maxImageArrayLayers = %u)",
              ci.arrayLayers, lim->maxImageArrayLayers);
      out->error = c->err;
      return -1;
    }
    uint32_t side = ci.extent.width > ci.extent.height ? ci.extent.width : ci.extent.height, levels = 1;
    if (ci.extent.depth > side) side = ci.extent.depth;
    while (side >>= 1) levels++;
    if (ci.mipLevels > levels) {
      fg_errf(c->err, sizeof c->err, "%u mips are more than a %ux%u image has (at most %u)", ci.mipLevels,
              ci.extent.width, ci.extent.height, levels);
      out->error = c->err;
      return -1;
    }
    VkDeviceImageMemoryRequirements q = {.sType = VK_STRUCTURE_TYPE_DEVICE_IMAGE_MEMORY_REQUIREMENTS,
                                         .pCreateInfo = &ci};
    vkGetDeviceImageMemoryRequirements(c->dev->device, &q, &req);
    out->kind = 1;
  } else {
    VkBufferCreateInfo ci;
    fg_rt_buffer_info(res, &ci);
    fg_vk_share(c->dev, &ci.sharingMode, &ci.queueFamilyIndexCount, &ci.pQueueFamilyIndices);
    VkDeviceBufferMemoryRequirements q = {.sType = VK_STRUCTURE_TYPE_DEVICE_BUFFER_MEMORY_REQUIREMENTS,
                                          .pCreateInfo = &ci};
    vkGetDeviceBufferMemoryRequirements(c->dev->device, &q, &req);
    out->kind = 0;
  }
  int t = pick_type(c->dev, req.memoryRequirements.memoryTypeBits);
  if (t < 0) {
    fg_errf(c->err, sizeof c->err, "no memory type for resource '%s' (bits 0x%x)", res->name,
            req.memoryRequirements.memoryTypeBits);
    out->error = c->err;
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
  const VkAllocationCallbacks *ac = rt->dev->vkalloc;
  for (uint32_t i = 0; i < rt->nres; i++) {
    fg_rt_res *r = &rt->res[i];
    if (r->is_external) continue;
    if (r->view) vkDestroyImageView(d, r->view, ac);
    if (r->image) vkDestroyImage(d, r->image, ac);
    if (r->buffer) vkDestroyBuffer(d, r->buffer, ac);
  }
  free(rt->res);
  free(rt->ext_layout);
  rt->res = NULL;
  rt->ext_layout = NULL;
  rt->nres = 0;
}

static void free_memory(fg_rt *rt) {
  for (uint32_t h = 0; h < rt->heap_count; h++)
    if (rt->mem[h]) vkFreeMemory(rt->dev->device, rt->mem[h], rt->dev->vkalloc);
  free(rt->mem); free(rt->mem_bytes); free(rt->planned); free(rt->mem_type);
  rt->mem = NULL; rt->mem_bytes = rt->planned = NULL; rt->mem_type = NULL;
  rt->heap_count = 0;
}

/* Before allocating anything: the plan must fit opts.memory_budget and every
 * device heap it draws from. The message names the heap and the bytes, so a
 * too-big plan is refused with the previous one intact (a reload falls back). */
static int check_memory_fits(fg_rt *rt, char *err, size_t errlen) {
  const fg_graph *g = rt->g;
  const VkPhysicalDeviceMemoryProperties *mp = &rt->dev->memprops;
  uint64_t per_heap[VK_MAX_MEMORY_HEAPS] = {0}, total = 0, biggest = 0;
  uint32_t n = fg_graph_heap_count(g), first_of[VK_MAX_MEMORY_HEAPS], big_h = 0, big_t = 0;
  for (uint32_t k = 0; k < VK_MAX_MEMORY_HEAPS; k++) first_of[k] = UINT32_MAX;
  for (uint32_t h = 0; h < n; h++) {
    const fg_graph_heap *hp = fg_graph_heap_get(g, h);
    uint32_t t = hp->memory_type_bits ? (uint32_t)__builtin_ctz(hp->memory_type_bits) : 0;
    uint32_t dh = t < mp->memoryTypeCount ? mp->memoryTypes[t].heapIndex : 0;
    per_heap[dh] += hp->bytes;
    if (first_of[dh] == UINT32_MAX) first_of[dh] = h;
    total += hp->bytes;
    if (hp->bytes >= biggest) { biggest = hp->bytes; big_h = h; big_t = t; }
  }
  if (rt->desc.memory_budget && total > rt->desc.memory_budget) {
    /* which of the packer's three answers (fg_pack_result.fits, proved; each heap packed at the
     * budget as its capacity): proved that none fits, fits alone but not together, or unknown */
    uint64_t bounds = 0;
    int no = 0, all_fit = 1;
    for (uint32_t h = 0; h < n; h++) {
      const fg_graph_heap *hp = fg_graph_heap_get(g, h);
      bounds += hp->bound;
      no |= !hp->fits && hp->proved;
      all_fit &= hp->fits;
    }
    const char *why = bounds > rt->desc.memory_budget || no
                          ? "no packing can fit it (proved: a lower bound is above it)"
                      : all_fit ? "each heap fits it alone, not all together"
                                : "unknown whether a packing fits it (none found within the packing time budget: "
                                  "raise opts.time_budget_ms)";
    fg_errf(err, errlen, "memory_budget: the plan needs %llu bytes (largest: plan heap %u, memory type %u, %llu "
            "bytes), over the budget of %llu bytes: %s; lower the resolutions or raise opts.memory_budget",
            (unsigned long long)total, big_h, big_t, (unsigned long long)biggest,
            (unsigned long long)rt->desc.memory_budget, why);
    return -1;
  }
  for (uint32_t dh = 0; dh < mp->memoryHeapCount; dh++)
    if (per_heap[dh] > mp->memoryHeaps[dh].size) {
      fg_errf(err, errlen, "the plan needs %llu bytes in device heap %u (from plan heap %u), which has %llu bytes; "
              "lower the resolutions", (unsigned long long)per_heap[dh], dh, first_of[dh],
              (unsigned long long)mp->memoryHeaps[dh].size);
      return -1;
    }
  return 0;
}

void fg_rt_fail_allocations(fg_rt *rt, uint32_t n) { rt->fail_allocations = n; }

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
  if (check_memory_fits(rt, err, errlen)) {
    free(mem); free(bytes); free(planned); free(type);
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
    VkResult r = VK_ERROR_OUT_OF_DEVICE_MEMORY;
    if (rt->fail_allocations) rt->fail_allocations--;
    else r = vkAllocateMemory(rt->dev->device, &ai, rt->dev->vkalloc, &mem[h]);
    if (r != VK_SUCCESS) {
      fg_errf(err, errlen, "vkAllocateMemory(%llu bytes, memory type %u, device heap %u) for plan heap %u failed "
              "(VkResult %d%s); lower the resolutions or free device memory",
              (unsigned long long)hp->bytes, t, rt->dev->memprops.memoryTypes[t].heapIndex, h, (int)r,
              r == VK_ERROR_OUT_OF_DEVICE_MEMORY ? ", out of device memory" : "");
      for (uint32_t k = 0; k < n; k++) if (mem[k]) vkFreeMemory(rt->dev->device, mem[k], rt->dev->vkalloc);
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
  const VkAllocationCallbacks *ac = rt->dev->vkalloc;
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
    /* an external without a format is a buffer (a host's, fg_runtime_set_buffer) */
    r->is_image = gr->kind == FG_RES_TEXTURE || (gr->kind == FG_RES_EXTERNAL && gr->format != FG_FORMAT_UNDEFINED);
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
      vr = vkCreateImage(d, &ci, ac, &r->image);
      if (vr != VK_SUCCESS) {
        fg_errf(err, errlen, "vkCreateImage for '%s' (%ux%u) failed (VkResult %d)", gr->name, gr->width, gr->height, (int)vr);
        return -1;
      }
      vkGetImageMemoryRequirements(d, r->image, &req);
    } else {
      VkBufferCreateInfo ci;
      fg_rt_buffer_info(gr, &ci);
      fg_vk_share(rt->dev, &ci.sharingMode, &ci.queueFamilyIndexCount, &ci.pQueueFamilyIndices);
      r->bytes = ci.size;
      vr = vkCreateBuffer(d, &ci, ac, &r->buffer);
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
        vr = vkCreateImageView(d, &vi, ac, &r->view);
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

/* The plan is built in steps, each filling its own rt arrays; an allocation
 * failure anywhere is reported once by build_plan (free_plan cleans up). */

/* Where each instance's uses start, the per-use arrays, and the per-batch
 * and per-resource arrays the later steps fill. *tu: uses (at least 1). */
static int plan_alloc(fg_rt *rt, size_t *tu) {
  const fg_graph *g = rt->g;
  uint32_t n = rt->ninst, nres = rt->nres;
  rt->inst_use_first = calloc(n + 1, sizeof *rt->inst_use_first);
  if (!rt->inst_use_first) return -1;
  uint32_t total = 0, maxu = 1;
  for (uint32_t s = 0; s < n; s++) {
    const fg_graph_instance *in = fg_graph_instance_get(g, s);
    rt->inst_use_first[s] = total;
    total += in->use_count;
    if (in->use_count > maxu) maxu = in->use_count;
  }
  rt->inst_use_first[n] = total;
  *tu = total ? total : 1;
  rt->use_phys[0] = malloc(*tu * sizeof(uint32_t));
  rt->use_phys[1] = malloc(*tu * sizeof(uint32_t));
  rt->use_usage = malloc(*tu);
  rt->use_write = malloc(*tu);
  rt->use_stage = malloc(*tu * sizeof *rt->use_stage);
  rt->cs = calloc(maxu, sizeof *rt->cs);
  rt->cs_cap = maxu;
  rt->bar_first = calloc(2 * (size_t)n + 1, sizeof *rt->bar_first);
  rt->bar_count = calloc(2 * (size_t)n + 1, sizeof *rt->bar_count);
  rt->end_even = calloc(nres ? nres : 1, sizeof *rt->end_even);
  rt->end_odd = calloc(nres ? nres : 1, sizeof *rt->end_odd);
  rt->extent = calloc(2 * (size_t)n + 1, sizeof *rt->extent);
  if (!rt->use_phys[0] || !rt->use_phys[1] || !rt->use_usage || !rt->use_write || !rt->use_stage || !rt->cs ||
      !rt->bar_first || !rt->bar_count || !rt->end_even || !rt->end_odd || !rt->extent)
    return -1;
  return 0;
}

/* What the barrier planner needs to know of each physical resource. */
static void plan_bar_resources(const fg_rt *rt, fg_bar_res *br) {
  for (uint32_t i = 0; i < rt->nres; i++) {
    const fg_graph_resource *gr = rt->res[i].g;
    br[i].is_image = rt->res[i].is_image;
    br[i].aspect = rt->res[i].aspect;
    br[i].heap = gr->heap == FG_GRAPH_NONE ? -1 : (int)gr->heap;
    br[i].offset = gr->offset;
    br[i].size = gr->size;
    br[i].parity = (int)gr->frame;
    if (rt->res[i].is_external) {
      uint32_t p0 = fg_graph_physical(rt->g, gr->logical, 0, gr->index);
      br[i].alias_key = 1 + (p0 == FG_GRAPH_NONE ? i : p0);
    }
  }
}

/* Uses per (parity, slot): one per physical resource (a node touching a
 * resource twice is merged: any write makes the use a write). Also fills
 * the per-use arrays rt->use_*. */
static void plan_bar_uses(fg_rt *rt, fg_bar_use *bu, uint32_t *ufirst, uint32_t *ucount) {
  uint32_t n = rt->ninst, nres = rt->nres, nu = 0;
  for (uint32_t p = 0; p < 2; p++) {
    for (uint32_t s = 0; s < n; s++) {
      const fg_graph_instance *in = fg_graph_instance_get(rt->g, s);
      ufirst[p * n + s] = nu;
      for (uint32_t u = 0; u < in->use_count; u++) {
        const fg_graph_use *us = &in->uses[u];
        uint32_t k = rt->inst_use_first[s] + u;
        uint32_t ph = us->missing ? FG_GRAPH_NONE : us->phys[p];
        rt->use_phys[p][k] = ph;
        /* "none" (blobs, order-only uses) has nothing to synchronize */
        int ru = us->usage > FG_USAGE_NONE && us->usage < FG_USAGE_COUNT ? (int)us->usage : -1;
        if (p == 0) {
          rt->use_usage[k] = (uint8_t)(ru < 0 ? FG_USAGE_NONE : ru);
          rt->use_write[k] = (uint8_t)is_write_access(us->access);
          rt->use_stage[k] = use_stage(us);
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
            m->stage = use_stage(us);
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
        b->stage = use_stage(us);
      }
      ucount[p * n + s] = nu - ufirst[p * n + s];
    }
  }
}

/* The static barrier plan (fg_bar_plan) into rt->bars / bar_first / bar_count. */
static int plan_barriers(fg_rt *rt, size_t tu) {
  uint32_t n = rt->ninst, nres = rt->nres;
  fg_bar_res *br = calloc(nres ? nres : 1, sizeof *br);
  fg_bar_use *bu = malloc(2 * tu * sizeof *bu);
  uint32_t *ufirst = calloc(2 * (size_t)n + 1, sizeof *ufirst), *ucount = calloc(2 * (size_t)n + 1, sizeof *ucount);
  int rc = -1;
  if (br && bu && ufirst && ucount) {
    plan_bar_resources(rt, br);
    plan_bar_uses(rt, bu, ufirst, ucount);
    rc = fg_bar_plan_hooks(br, nres, bu, ufirst, ucount, n, &rt->bars, rt->bar_first, rt->bar_count,
                           rt->end_odd, rt->end_even, &rt->dev->hooks);
  }
  free(br); free(bu); free(ufirst); free(ucount);
  return rc;
}

/* Vulkan structs per batch, split into image and buffer arrays. */
static int plan_batches(fg_rt *rt) {
  uint32_t n = rt->ninst, nb = 0;
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
      !rt->scratch_i || !rt->scratch_b || !rt->batch_flags) return -1;
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
  return 0;
}

/* Attachment c of instance s in parity p into rt->att[a] / att_res[a]; the
 * resource it renders to, or NULL when it has no physical resource. */
static const fg_rt_res *plan_attachment(fg_rt *rt, const fg_graph_instance *in, uint32_t s, uint32_t p,
                                        uint32_t c, uint32_t a) {
  const fg_graph_attachment *ga = c < in->color_count ? &in->colors[c] : &in->depth;
  const fg_graph_use *us = &in->uses[ga->use];
  uint32_t ph = us->phys[p];
  VkRenderingAttachmentInfo *ai = &rt->att[a];
  rt->att_res[a] = ph;
  ai->sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO;
  if (ph == FG_GRAPH_NONE) return NULL;
  const fg_rt_res *r = &rt->res[ph];
  const fg_graph_resource *gr = r->g;
  ai->imageView = r->view;
  ai->imageLayout = fg_vk_usage_row(us->usage == FG_USAGE_NONE ? FG_USAGE_COLOR : us->usage)->layout;
  if (ga->has_clear) {
    ai->loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
    if (c < in->color_count) memcpy(ai->clearValue.color.float32, ga->clear, sizeof ga->clear);
    else ai->clearValue.depthStencil.depth = ga->clear[0], ai->clearValue.depthStencil.stencil = ga->clear_stencil;
  } else {
    ai->loadOp = us->access == FG_ACCESS_CREATE ? VK_ATTACHMENT_LOAD_OP_DONT_CARE : VK_ATTACHMENT_LOAD_OP_LOAD;
  }
  int later = gr->last_slot > s || gr->history || gr->is_output || r->is_external;
  ai->storeOp = later ? VK_ATTACHMENT_STORE_OP_STORE : VK_ATTACHMENT_STORE_OP_DONT_CARE;
  return r;
}

/* Dynamic rendering of instance s in parity p; *a: the next free attachment.
 * Nodes without a pass keep the extent of their first image for dispatches. */
static void plan_pass(fg_rt *rt, uint32_t p, uint32_t s, uint32_t *a) {
  uint32_t n = rt->ninst;
  const fg_graph_instance *in = fg_graph_instance_get(rt->g, s);
  uint32_t w = 0, h = 0;
  for (uint32_t u = 0; u < in->use_count && !w; u++) {
    uint32_t ph = rt->use_phys[p][rt->inst_use_first[s] + u];
    if (ph != FG_GRAPH_NONE && rt->res[ph].is_image) { w = rt->res[ph].width; h = rt->res[ph].height; }
  }
  VkRenderingInfo *ri = &rt->ri[p * n + s];
  if (!in->has_pass) { rt->extent[2 * s] = w; rt->extent[2 * s + 1] = h; return; }
  ri->sType = VK_STRUCTURE_TYPE_RENDERING_INFO;
  ri->layerCount = 1;
  ri->pColorAttachments = &rt->att[*a];
  uint32_t nat = in->color_count + (in->has_depth ? 1 : 0);
  int got_extent = 0;
  for (uint32_t c = 0; c < nat; c++) {
    const fg_rt_res *r = plan_attachment(rt, in, s, p, c, (*a)++);
    if (r && !got_extent) {
      ri->renderArea.extent.width = r->width;
      ri->renderArea.extent.height = r->height;
      got_extent = 1;
    }
  }
  ri->colorAttachmentCount = in->color_count;
  if (in->has_depth) ri->pDepthAttachment = &rt->att[*a - 1];
  if (p == 0) {
    rt->extent[2 * s] = ri->renderArea.extent.width;
    rt->extent[2 * s + 1] = ri->renderArea.extent.height;
  }
}

/* Dynamic rendering per (parity, slot). */
static int plan_rendering(fg_rt *rt) {
  uint32_t n = rt->ninst, natt = 0;
  for (uint32_t s = 0; s < n; s++) {
    const fg_graph_instance *in = fg_graph_instance_get(rt->g, s);
    if (in->has_pass) natt += in->color_count + (in->has_depth ? 1 : 0);
  }
  rt->att_total = 2 * natt;
  rt->att = calloc(2 * (size_t)natt + 1, sizeof *rt->att);
  rt->att_res = calloc(2 * (size_t)natt + 1, sizeof *rt->att_res);
  rt->ri = calloc(2 * (size_t)n + 1, sizeof *rt->ri);
  if (!rt->att || !rt->att_res || !rt->ri) return -1;
  uint32_t a = 0;
  for (uint32_t p = 0; p < 2; p++)
    for (uint32_t s = 0; s < n; s++) plan_pass(rt, p, s, &a);
  return 0;
}

static int build_plan(fg_rt *rt, char *err, size_t errlen) {
  size_t tu = 1;
  rt->ninst = fg_graph_instance_count(rt->g);
  if (plan_alloc(rt, &tu) || plan_barriers(rt, tu) || plan_batches(rt) || plan_rendering(rt)) {
    fg_errf(err, errlen, "out of memory while planning barriers");
    return -1;
  }
  return 0;
}

static int build(fg_rt *rt, const fg_graph *g, char *err, size_t errlen) {
  rt->g = g;
  rt->has_plan = 0;
  for (int i = 0; i < FG_RT_TS_RING; i++) rt->ts_frame[i] = UINT64_MAX;  /* the old plan's timings are gone */
  rt->ts_done = 0;
  if (!fg_graph_compiled(g)) { fg_errf(err, errlen, "the graph is not compiled"); return -1; }
  if (place_memory(rt, err, errlen)) return -1;
  if (create_objects(rt, err, errlen)) return -1;
  if (build_plan(rt, err, errlen)) return -1;
  if (rt_async_build(rt, err, errlen)) return -1;  /* before the query pools: their size depends on it */
  if (rt_debug_build(rt)) { fg_errf(err, errlen, "creating the timestamp query pools failed"); return -1; }
  rt->has_plan = 1;
  return 0;
}

fg_rt *fg_rt_create(fg_vk_device *dev, const fg_graph *g, const fg_rt_desc *desc, char *err, size_t errlen) {
  fg_rt *rt = fg_vk_calloc(dev, 1, sizeof *rt);
  if (!rt) { fg_errf(err, errlen, "out of memory"); return NULL; }
  rt->dev = fg_vk_retain(dev);
  pthread_mutex_init(&rt->upload_lock, NULL);
  if (desc) rt->desc = *desc;
  rt->rng = rt->desc.seed ? rt->desc.seed : 0x9e3779b97f4a7c15ull;
  rt->present_phys = FG_GRAPH_NONE;
  VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                .queueFamilyIndex = dev->queue_family};
  VkResult r = vkCreateCommandPool(dev->device, &pi, dev->vkalloc, &rt->pool);
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
    r = vkCreateSemaphore(dev->device, &si, dev->vkalloc, &rt->timeline);
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

/* Waits until every submit of this runtime has finished signalling: the ring
 * semaphore's last submitted value, then the queue itself (the device's one
 * queue; callers are on the thread that submits). */
void fg_rt_wait_queue(fg_rt *rt) {
  if (rt->upload && fg_upload_frame(rt->upload) > 1) {
    uint64_t last = fg_upload_frame(rt->upload) - 1;
    VkSemaphore sem = fg_upload_semaphore(rt->upload);
    VkSemaphoreWaitInfo wi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO, .semaphoreCount = 1,
                              .pSemaphores = &sem, .pValues = &last};
    vkWaitSemaphores(rt->dev->device, &wi, UINT64_MAX);
  }
  if (rt->frame) vkQueueWaitIdle(rt->dev->queue);
  if (rt->frame && rt->async_on) vkQueueWaitIdle(rt->dev->async_queue);
}

int fg_rt_rebuild(fg_rt *rt, const fg_graph *g, char *err, size_t errlen) {
  fg_rt_wait_idle(rt);
  fg_rt_wait_queue(rt);  /* the old timeline is destroyed below */
  rt->has_plan = 0;
  free_plan(rt);
  free_objects(rt);
  /* A new plan starts a new history: the first frame initialises it again. */
  rt->frame = 0;
  VkSemaphore old = rt->timeline;
  VkSemaphoreTypeCreateInfo ti = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                  .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE, .initialValue = 0};
  VkSemaphoreCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &ti};
  if (vkCreateSemaphore(rt->dev->device, &si, rt->dev->vkalloc, &rt->timeline) != VK_SUCCESS) {
    rt->timeline = old;
    fg_errf(err, errlen, "creating the timeline semaphore failed");
    return -1;
  }
  vkDestroySemaphore(rt->dev->device, old, rt->dev->vkalloc);
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
    /* Each submit signals the timeline and the ring's semaphore; the timeline
     * reaching its value does not mean the driver is done signalling the
     * other one (lavapipe does it from a worker thread, which crashed now and
     * then when the semaphore was destroyed under it). Wait for the queue to
     * drain before any semaphore or memory goes. */
    fg_rt_wait_queue(rt);
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
    rt_debug_free(rt);
    rt_async_free(rt);
    if (rt->timeline) vkDestroySemaphore(rt->dev->device, rt->timeline, rt->dev->vkalloc);
    if (rt->pool) vkDestroyCommandPool(rt->dev->device, rt->pool, rt->dev->vkalloc);
  }
  pthread_mutex_destroy(&rt->upload_lock);
  fg_vk_device *dev = rt->dev;
  fg_vk_free(dev, rt);
  fg_vk_release(dev);
}
