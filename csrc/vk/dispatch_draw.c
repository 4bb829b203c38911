/* Dispatch and draw: checks the bindings against the reflection, records
 * push descriptors and push constants, makes graphics pipelines per
 * attachment formats. */
#include "shader_internal.h"
#include "fg_util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- commands */

static const char *dtype_name(VkDescriptorType t) {
  switch (t) {
    case VK_DESCRIPTOR_TYPE_SAMPLER: return "sampler";
    case VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER: return "combined image sampler";
    case VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE: return "sampled image";
    case VK_DESCRIPTOR_TYPE_STORAGE_IMAGE: return "storage image";
    case VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER: return "uniform texel buffer";
    case VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER: return "storage texel buffer";
    case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER: return "uniform buffer";
    case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER: return "storage buffer";
    default: return "unsupported descriptor type";
  }
}

static const struct { VkDescriptorType t; const char *id; } type_ids[] = {
  {VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, "storage_image"},
  {VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, "sampled_image"},
  {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, "combined_image_sampler"},
  {VK_DESCRIPTOR_TYPE_SAMPLER, "sampler"},
  {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, "storage_buffer"},
  {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, "uniform_buffer"},
  {VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER, "storage_texel_buffer"},
  {VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, "uniform_texel_buffer"},
};

const char *fg_vk_descriptor_type_id(VkDescriptorType t) {
  for (size_t i = 0; i < sizeof type_ids / sizeof type_ids[0]; i++)
    if (type_ids[i].t == t) return type_ids[i].id;
  return "unsupported";
}

int fg_vk_descriptor_type_parse(const char *id, VkDescriptorType *out) {
  for (size_t i = 0; i < sizeof type_ids / sizeof type_ids[0]; i++)
    if (!strcmp(type_ids[i].id, id)) { *out = type_ids[i].t; return 1; }
  return 0;
}

/* Validates the bindings and records push descriptors + push constants. */
static int push_state(fg_vk_device *dev, VkCommandBuffer cmd, fg_vk_shader *s, VkPipelineBindPoint bp,
                      VkPipeline pipeline, const fg_vk_binding *bindings, uint32_t n, const void *push, uint32_t push_bytes,
                      char *err, size_t errlen) {
  const fg_vk_shader_info *in = &s->info;
  if (n > FG_VK_MAX_BINDINGS * 4) {
    fg_errf(err, errlen, "%s: %u bindings given; the shader has %u", in->name, n, in->binding_count);
    return 0;
  }
  if (push_bytes > in->push_bytes) {
    fg_errf(err, errlen, "%s: %u bytes of push constants given but the shader's push block is %u bytes",
            in->name, push_bytes, in->push_bytes);
    return 0;
  }
  if (push_bytes && !push) {
    fg_errf(err, errlen, "%s: push_bytes is %u but no push data was given", in->name, push_bytes);
    return 0;
  }
  VkWriteDescriptorSet writes[FG_VK_MAX_BINDINGS * 4];
  VkDescriptorImageInfo images[FG_VK_MAX_BINDINGS * 4];
  VkDescriptorBufferInfo buffers[FG_VK_MAX_BINDINGS * 4];
  int seen[FG_VK_MAX_BINDINGS] = {0};
  const VkPhysicalDeviceLimits *lim = &dev->props.limits;
  for (uint32_t i = 0; i < n; i++) {
    const fg_vk_binding *g = &bindings[i];
    const fg_vk_shader_binding *b = NULL;
    uint32_t bi = 0;
    for (; bi < in->binding_count; bi++)
      if (in->bindings[bi].binding == g->binding) { b = &in->bindings[bi]; break; }
    if (!b) {
      fg_errf(err, errlen, "%s: binding %u is given but the shader declares no such binding", in->name, g->binding);
      return 0;
    }
    VkDescriptorType type = g->type ? g->type : b->type;
    if (type != b->type) {
      fg_errf(err, errlen, "%s: binding %u ('%s') is a %s in the shader but a %s was given", in->name, g->binding,
              b->name, dtype_name(b->type), dtype_name(type));
      return 0;
    }
    if (g->element >= b->count) {
      fg_errf(err, errlen, "%s: binding %u ('%s') element %u is out of range (array of %u)", in->name, g->binding,
              b->name, g->element, b->count);
      return 0;
    }
    if (g->element == 0) seen[bi] = 1;
    VkWriteDescriptorSet *w = &writes[i];
    *w = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstBinding = g->binding,
                                .dstArrayElement = g->element, .descriptorCount = 1, .descriptorType = type};
    switch (type) {
      case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER:
      case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER: {
        VkDeviceSize align = type == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER ? lim->minStorageBufferOffsetAlignment
                                                                       : lim->minUniformBufferOffsetAlignment;
        if (!g->buffer) {
          fg_errf(err, errlen, "%s: binding %u ('%s') is a %s but no buffer was given", in->name, g->binding, b->name,
                  dtype_name(type));
          return 0;
        }
        if (align > 1 && g->offset % align) {
          fg_errf(err, errlen, "%s: binding %u ('%s') offset %llu is not a multiple of the device's %s offset "
                  "alignment %llu", in->name, g->binding, b->name, (unsigned long long)g->offset,
                  dtype_name(type), (unsigned long long)align);
          return 0;
        }
        buffers[i] = (VkDescriptorBufferInfo){.buffer = g->buffer, .offset = g->offset,
                                              .range = g->range ? g->range : VK_WHOLE_SIZE};
        w->pBufferInfo = &buffers[i];
        break;
      }
      case VK_DESCRIPTOR_TYPE_STORAGE_IMAGE:
      case VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE:
      case VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER:
      case VK_DESCRIPTOR_TYPE_SAMPLER: {
        if (type != VK_DESCRIPTOR_TYPE_SAMPLER && !g->view) {
          fg_errf(err, errlen, "%s: binding %u ('%s') is a %s but no image view was given", in->name, g->binding,
                  b->name, dtype_name(type));
          return 0;
        }
        VkImageLayout layout = g->layout ? g->layout
                             : type == VK_DESCRIPTOR_TYPE_STORAGE_IMAGE ? VK_IMAGE_LAYOUT_GENERAL
                                                                        : VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
        images[i] = (VkDescriptorImageInfo){
          .sampler = (type == VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER || type == VK_DESCRIPTOR_TYPE_SAMPLER)
                       ? (g->sampler ? g->sampler : dev->sampler_linear) : VK_NULL_HANDLE,
          .imageView = type == VK_DESCRIPTOR_TYPE_SAMPLER ? VK_NULL_HANDLE : g->view,
          .imageLayout = type == VK_DESCRIPTOR_TYPE_SAMPLER ? VK_IMAGE_LAYOUT_UNDEFINED : layout,
        };
        w->pImageInfo = &images[i];
        break;
      }
      default:
        fg_errf(err, errlen, "%s: binding %u ('%s'): %s bindings are not supported by fg_vk_binding", in->name,
                g->binding, b->name, dtype_name(type));
        return 0;
    }
  }
  for (uint32_t bi = 0; bi < in->binding_count; bi++)
    if (!seen[bi]) {
      const fg_vk_shader_binding *b = &in->bindings[bi];
      fg_errf(err, errlen, "%s: binding %u ('%s', %s) is used by the shader but was not given", in->name, b->binding,
              b->name, dtype_name(b->type));
      return 0;
    }
  vkCmdBindPipeline(cmd, bp, pipeline);
  if (n) vkCmdPushDescriptorSetKHR(cmd, bp, s->layout, 0, n, writes);
  if (in->push_bytes) {
    unsigned char block[256] = {0};  /* maxPushConstantsSize is 128..256 in practice */
    unsigned char *buf = in->push_bytes <= sizeof block ? block : fg_vk_calloc(dev, 1, in->push_bytes);
    if (!buf) { fg_errf(err, errlen, "out of memory"); return 0; }
    if (push_bytes) memcpy(buf, push, push_bytes);
    vkCmdPushConstants(cmd, s->layout, in->stages, 0, in->push_bytes, buf);
    if (buf != block) fg_vk_free(dev, buf);
  }
  return 1;
}

int fg_vk_cmd_dispatch(fg_vk_device *dev, VkCommandBuffer cmd, fg_vk_shader *s,
                       const fg_vk_binding *bindings, uint32_t n, uint32_t gx, uint32_t gy, uint32_t gz,
                       const void *push, uint32_t push_bytes, char *err, size_t errlen) {
  if (!s->info.is_compute) {
    fg_errf(err, errlen, "%s: is a graphics (fragment) shader; use draw inside a pass, not dispatch", s->info.name);
    return 0;
  }
  const uint32_t *maxg = dev->props.limits.maxComputeWorkGroupCount;
  if (gx > maxg[0] || gy > maxg[1] || gz > maxg[2]) {
    fg_errf(err, errlen, "%s: dispatch(%u, %u, %u) exceeds the device's group count limits (%u, %u, %u)",
            s->info.name, gx, gy, gz, maxg[0], maxg[1], maxg[2]);
    return 0;
  }
  /* push_state validates everything before recording, so a failure records nothing. */
  if (!push_state(dev, cmd, s, VK_PIPELINE_BIND_POINT_COMPUTE, s->compute, bindings, n, push, push_bytes, err, errlen))
    return 0;
  if (gx && gy && gz) vkCmdDispatch(cmd, gx, gy, gz);
  return 1;
}

static VkPipeline graphics_pipeline(fg_vk_device *dev, fg_vk_shader *s, const VkFormat *color, uint32_t ncolor,
                                    VkFormat depth, char *err, size_t errlen) {
  for (uint32_t i = 0; i < s->ngfx; i++) {
    gfx_pipeline *g = &s->gfx[i];
    if (g->ncolor == ncolor && g->depth == depth && !memcmp(g->color, color, ncolor * sizeof *color))
      return g->pipeline;
  }
  if (s->ngfx == s->capgfx) {
    uint32_t cap = s->capgfx ? s->capgfx * 2 : 4;
    gfx_pipeline *g = fg_realloc(&dev->hooks, s->gfx, cap * sizeof *g);
    if (!g) { fg_errf(err, errlen, "out of memory"); return VK_NULL_HANDLE; }
    s->gfx = g;
    s->capgfx = cap;
  }
  VkPipelineShaderStageCreateInfo stages[2] = {
    {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_VERTEX_BIT,
     .module = s->vmodule, .pName = s->ventry},
    {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_FRAGMENT_BIT,
     .module = s->module, .pName = s->entry},
  };
  /* One vertex buffer binding per reflected input (binding i feeds the i-th
   * input in location order); strides are dynamic, given when drawing. */
  VkVertexInputBindingDescription vb[FG_VK_MAX_VERTEX_INPUTS];
  VkVertexInputAttributeDescription va[FG_VK_MAX_VERTEX_INPUTS];
  uint32_t nin = s->info.vertex_input_count;
  for (uint32_t i = 0; i < nin; i++) {
    vb[i] = (VkVertexInputBindingDescription){.binding = i, .stride = s->info.vertex_inputs[i].bytes,
                                              .inputRate = VK_VERTEX_INPUT_RATE_VERTEX};
    va[i] = (VkVertexInputAttributeDescription){.location = s->info.vertex_inputs[i].location, .binding = i,
                                                .format = s->info.vertex_inputs[i].format, .offset = 0};
  }
  VkPipelineVertexInputStateCreateInfo vi = {.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
                                             .vertexBindingDescriptionCount = nin, .pVertexBindingDescriptions = vb,
                                             .vertexAttributeDescriptionCount = nin,
                                             .pVertexAttributeDescriptions = va};
  VkPipelineInputAssemblyStateCreateInfo ia = {.sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
                                               .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST};
  VkPipelineViewportStateCreateInfo vp = {.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
                                          .viewportCount = 1, .scissorCount = 1};
  VkPipelineRasterizationStateCreateInfo rs = {.sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
                                               .polygonMode = VK_POLYGON_MODE_FILL, .cullMode = VK_CULL_MODE_NONE,
                                               .frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE, .lineWidth = 1.0f};
  VkPipelineMultisampleStateCreateInfo ms = {.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
                                             .rasterizationSamples = VK_SAMPLE_COUNT_1_BIT};
  VkPipelineDepthStencilStateCreateInfo ds = {
    .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
    .depthTestEnable = (depth && s->desc.depth_test) ? VK_TRUE : VK_FALSE,
    .depthWriteEnable = (depth && s->desc.depth_write) ? VK_TRUE : VK_FALSE,
    .depthCompareOp = VK_COMPARE_OP_LESS_OR_EQUAL,
  };
  VkPipelineColorBlendAttachmentState att[FG_VK_MAX_COLOR];
  for (uint32_t i = 0; i < ncolor; i++)
    att[i] = (VkPipelineColorBlendAttachmentState){
      .blendEnable = s->desc.blend ? VK_TRUE : VK_FALSE,
      .srcColorBlendFactor = VK_BLEND_FACTOR_ONE, .dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
      .colorBlendOp = VK_BLEND_OP_ADD,
      .srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE, .dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
      .alphaBlendOp = VK_BLEND_OP_ADD,
      .colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT | VK_COLOR_COMPONENT_B_BIT |
                        VK_COLOR_COMPONENT_A_BIT,
    };
  VkPipelineColorBlendStateCreateInfo cb = {.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
                                            .attachmentCount = ncolor, .pAttachments = att};
  VkDynamicState dyn[] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR,
                          VK_DYNAMIC_STATE_VERTEX_INPUT_BINDING_STRIDE};
  VkPipelineDynamicStateCreateInfo dy = {.sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO,
                                         .dynamicStateCount = nin ? 3 : 2, .pDynamicStates = dyn};
  int stencil = depth == VK_FORMAT_D24_UNORM_S8_UINT || depth == VK_FORMAT_D32_SFLOAT_S8_UINT ||
                depth == VK_FORMAT_D16_UNORM_S8_UINT || depth == VK_FORMAT_S8_UINT;
  VkPipelineRenderingCreateInfo ri = {
    .sType = VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO, .colorAttachmentCount = ncolor,
    .pColorAttachmentFormats = color,
    .depthAttachmentFormat = depth == VK_FORMAT_S8_UINT ? VK_FORMAT_UNDEFINED : depth,
    .stencilAttachmentFormat = stencil ? depth : VK_FORMAT_UNDEFINED,
  };
  VkGraphicsPipelineCreateInfo gi = {
    .sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO, .pNext = &ri, .stageCount = 2, .pStages = stages,
    .pVertexInputState = &vi, .pInputAssemblyState = &ia, .pViewportState = &vp, .pRasterizationState = &rs,
    .pMultisampleState = &ms, .pDepthStencilState = &ds, .pColorBlendState = &cb, .pDynamicState = &dy,
    .layout = s->layout,
  };
  VkPipeline p = VK_NULL_HANDLE;
  VkResult r = vkCreateGraphicsPipelines(dev->device, VK_NULL_HANDLE, 1, &gi, dev->vkalloc, &p);
  if (r != VK_SUCCESS) {
    fg_errf(err, errlen, "%s: vkCreateGraphicsPipelines failed (VkResult %d)", s->info.name, (int)r);
    return VK_NULL_HANDLE;
  }
  gfx_pipeline *g = &s->gfx[s->ngfx++];
  memset(g, 0, sizeof *g);
  g->ncolor = ncolor;
  memcpy(g->color, color, ncolor * sizeof *color);
  g->depth = depth;
  g->pipeline = p;
  return p;
}

int fg_vk_format_class(VkFormat f) {
  switch (f) {
    case VK_FORMAT_R8_UINT: case VK_FORMAT_R8G8B8A8_UINT: case VK_FORMAT_R16_UINT: case VK_FORMAT_R32_UINT:
    case VK_FORMAT_R32G32_UINT: case VK_FORMAT_R32G32B32A32_UINT: return 1;
    case VK_FORMAT_R32_SINT: return 2;
    default: return 0;
  }
}

/* The graphics pipeline for these attachment formats, after checking the
 * shader against them; VK_NULL_HANDLE + message when they do not fit. */
static VkPipeline draw_pipeline(fg_vk_device *dev, fg_vk_shader *s, const VkFormat *color_formats, uint32_t ncolor,
                                VkFormat depth_format, char *err, size_t errlen) {
  if (s->info.is_compute) {
    fg_errf(err, errlen, "%s: is a compute shader; use dispatch, not draw", s->info.name);
    return VK_NULL_HANDLE;
  }
  if (ncolor > FG_VK_MAX_COLOR || (ncolor && !color_formats)) {
    fg_errf(err, errlen, "%s: %u color attachments (at most %d)", s->info.name, ncolor, FG_VK_MAX_COLOR);
    return VK_NULL_HANDLE;
  }
  if (ncolor != s->info.color_outputs) {
    fg_errf(err, errlen, "%s: the pass has %u color attachment(s) but the fragment shader writes %u output(s) "
            "(layout(location = N) out); make them match", s->info.name, ncolor, s->info.color_outputs);
    return VK_NULL_HANDLE;
  }
  static const char *const class_name[3] = {"a float", "an unsigned integer", "a signed integer"};
  static const char *const out_type[3] = {"vec4", "uvec4", "ivec4"};
  for (uint32_t c = 0; c < ncolor && c < 8; c++) {
    int fc = fg_vk_format_class(color_formats[c]), oc = s->info.output_class[c];
    if (fc != oc) {
      fg_errf(err, errlen, "%s: color attachment %u has %s format but the fragment shader writes %s output "
              "at location %u (the values would be undefined); write layout(location = %u) out %s, or give the "
              "attachment %s format", s->info.name, c, class_name[fc], class_name[oc], c, c, out_type[fc],
              class_name[oc]);
      return VK_NULL_HANDLE;
    }
  }
  return graphics_pipeline(dev, s, color_formats, ncolor, depth_format, err, errlen);
}

int fg_vk_cmd_draw(fg_vk_device *dev, VkCommandBuffer cmd, fg_vk_shader *s,
                   const fg_vk_binding *bindings, uint32_t n, uint32_t vertex_count,
                   const void *push, uint32_t push_bytes,
                   const VkFormat *color_formats, uint32_t ncolor, VkFormat depth_format,
                   char *err, size_t errlen) {
  if (s->info.vertex_input_count) {
    const struct fg_vk_vertex_input *v = &s->info.vertex_inputs[0];
    fg_errf(err, errlen, "%s: the vertex shader reads vertex inputs (location %u '%s'%s); draw it with "
            "draw_indexed and a vertex buffer per input", s->info.name, v->location, v->name,
            s->info.vertex_input_count > 1 ? ", ..." : "");
    return 0;
  }
  VkPipeline p = draw_pipeline(dev, s, color_formats, ncolor, depth_format, err, errlen);
  if (!p) return 0;
  if (!push_state(dev, cmd, s, VK_PIPELINE_BIND_POINT_GRAPHICS, p, bindings, n, push, push_bytes, err, errlen))
    return 0;
  if (vertex_count) vkCmdDraw(cmd, vertex_count, 1, 0, 0);
  return 1;
}

/* Every read an indexed draw can make is checked here, before recording:
 * indices [first, first + count) inside the index buffer, and the largest
 * index value the buffer holds (ix->max_index) inside every vertex stream.
 * Vulkan gives no bounds checks without robustness features. */
static int check_geometry(fg_vk_device *dev, const fg_vk_shader *s, const fg_vk_index_stream *ix,
                          const fg_vk_vertex_stream *vs, uint32_t nvs, char *err, size_t errlen) {
  const char *name = s->info.name;
  uint32_t isz = ix->type == VK_INDEX_TYPE_UINT16 ? 2 : ix->type == VK_INDEX_TYPE_UINT32 ? 4 : 0;
  if (!ix->buffer || !isz) {
    fg_errf(err, errlen, "%s: no index buffer (or an index type other than uint16/uint32)", name);
    return 0;
  }
  if (!ix->count || (uint64_t)ix->first + ix->count > ix->size / isz) {
    fg_errf(err, errlen, "%s: indices %llu..%llu are outside the index buffer, which holds %llu indices",
            name, (unsigned long long)ix->first, (unsigned long long)ix->first + ix->count - 1,
            (unsigned long long)(ix->size / isz));
    return 0;
  }
  if (nvs != s->info.vertex_input_count) {
    fg_errf(err, errlen, "%s: %u vertex buffer(s) given; the vertex shader reads %u input(s)", name, nvs,
            s->info.vertex_input_count);
    return 0;
  }
  uint32_t max_stride = dev->props.limits.maxVertexInputBindingStride;
  for (uint32_t i = 0; i < nvs; i++) {
    const struct fg_vk_vertex_input *in = &s->info.vertex_inputs[i];
    const fg_vk_vertex_stream *v = &vs[i];
    if (!v->buffer) {
      fg_errf(err, errlen, "%s: vertex input location %u ('%s') has no vertex buffer", name, in->location, in->name);
      return 0;
    }
    /* a stride below the element would make elements overlap (Vulkan allows 0: every vertex reads one) */
    if (v->stride > max_stride || v->stride % 4 || v->offset % 4 || (v->stride && v->stride < in->bytes)) {
      fg_errf(err, errlen, "%s: vertex input location %u ('%s'): stride %u and offset %llu must be multiples of 4, "
              "the stride 0 or from the element's %u bytes up to the device's %u", name, in->location, in->name,
              v->stride, (unsigned long long)v->offset, in->bytes, max_stride);
      return 0;
    }
    uint64_t need = v->offset + (uint64_t)ix->max_index * v->stride + in->bytes;
    if (v->offset > v->size || need > v->size) {
      fg_errf(err, errlen, "%s: vertex input location %u ('%s'): the index buffer holds indices up to %u, so the "
              "vertex buffer needs %llu bytes (offset %llu, stride %u, %u-byte element) but holds %llu", name,
              in->location, in->name, ix->max_index, (unsigned long long)need, (unsigned long long)v->offset,
              v->stride, in->bytes, (unsigned long long)v->size);
      return 0;
    }
  }
  return 1;
}

int fg_vk_cmd_draw_indexed(fg_vk_device *dev, VkCommandBuffer cmd, fg_vk_shader *s,
                           const fg_vk_binding *bindings, uint32_t n, const fg_vk_index_stream *ix,
                           const fg_vk_vertex_stream *vs, uint32_t nvs, const void *push, uint32_t push_bytes,
                           const VkFormat *color_formats, uint32_t ncolor, VkFormat depth_format,
                           char *err, size_t errlen) {
  if (!check_geometry(dev, s, ix, vs, nvs, err, errlen)) return 0;
  VkPipeline p = draw_pipeline(dev, s, color_formats, ncolor, depth_format, err, errlen);
  if (!p) return 0;
  if (!push_state(dev, cmd, s, VK_PIPELINE_BIND_POINT_GRAPHICS, p, bindings, n, push, push_bytes, err, errlen))
    return 0;
  vkCmdBindIndexBuffer(cmd, ix->buffer, 0, ix->type);
  if (nvs) {
    VkBuffer bufs[FG_VK_MAX_VERTEX_INPUTS];
    VkDeviceSize offs[FG_VK_MAX_VERTEX_INPUTS], strides[FG_VK_MAX_VERTEX_INPUTS];
    for (uint32_t i = 0; i < nvs; i++) {
      bufs[i] = vs[i].buffer;
      offs[i] = vs[i].offset;
      strides[i] = vs[i].stride;
    }
    vkCmdBindVertexBuffers2(cmd, 0, nvs, bufs, offs, NULL, strides);
  }
  vkCmdDrawIndexed(cmd, ix->count, 1, ix->first, 0, 0);
  return 1;
}

void fg_vk_cmd_viewport(VkCommandBuffer cmd, uint32_t width, uint32_t height) {
  VkViewport v = {0, 0, (float)width, (float)height, 0.0f, 1.0f};
  VkRect2D sc = {{0, 0}, {width, height}};
  vkCmdSetViewport(cmd, 0, 1, &v);
  vkCmdSetScissor(cmd, 0, 1, &sc);
}
