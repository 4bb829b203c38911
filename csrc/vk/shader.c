/* Shader objects: modules and pipelines with push-descriptor layouts (the
 * graphics pipelines are made lazily by dispatch_draw.c). */
#include "shader_internal.h"
#include "fg_util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Built-in fullscreen-triangle vertex shader, generated SPIR-V
 * (glslc --target-env=vulkan1.3 -O -mfmt=num) from:
 *   #version 450
 *   layout(location = 0) out vec2 uv;
 *   void main() {
 *     uv = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);
 *     gl_Position = vec4(uv * 2.0 - 1.0, 0.0, 1.0);
 *   } */
static const uint32_t fullscreen_vert[] = {
  0x07230203,0x00010600,0x000d000b,0x0000002c,
  0x00000000,0x00020011,0x00000001,0x0006000b,
  0x00000001,0x4c534c47,0x6474732e,0x3035342e,
  0x00000000,0x0003000e,0x00000000,0x00000001,
  0x0008000f,0x00000000,0x00000004,0x6e69616d,
  0x00000000,0x00000009,0x0000000c,0x0000001d,
  0x00040047,0x00000009,0x0000001e,0x00000000,
  0x00040047,0x0000000c,0x0000000b,0x0000002a,
  0x00050048,0x0000001b,0x00000000,0x0000000b,
  0x00000000,0x00050048,0x0000001b,0x00000001,
  0x0000000b,0x00000001,0x00050048,0x0000001b,
  0x00000002,0x0000000b,0x00000003,0x00050048,
  0x0000001b,0x00000003,0x0000000b,0x00000004,
  0x00030047,0x0000001b,0x00000002,0x00020013,
  0x00000002,0x00030021,0x00000003,0x00000002,
  0x00030016,0x00000006,0x00000020,0x00040017,
  0x00000007,0x00000006,0x00000002,0x00040020,
  0x00000008,0x00000003,0x00000007,0x0004003b,
  0x00000008,0x00000009,0x00000003,0x00040015,
  0x0000000a,0x00000020,0x00000001,0x00040020,
  0x0000000b,0x00000001,0x0000000a,0x0004003b,
  0x0000000b,0x0000000c,0x00000001,0x0004002b,
  0x0000000a,0x0000000e,0x00000001,0x0004002b,
  0x0000000a,0x00000010,0x00000002,0x00040017,
  0x00000017,0x00000006,0x00000004,0x00040015,
  0x00000018,0x00000020,0x00000000,0x0004002b,
  0x00000018,0x00000019,0x00000001,0x0004001c,
  0x0000001a,0x00000006,0x00000019,0x0006001e,
  0x0000001b,0x00000017,0x00000006,0x0000001a,
  0x0000001a,0x00040020,0x0000001c,0x00000003,
  0x0000001b,0x0004003b,0x0000001c,0x0000001d,
  0x00000003,0x0004002b,0x0000000a,0x0000001e,
  0x00000000,0x0004002b,0x00000006,0x00000020,
  0x40000000,0x0004002b,0x00000006,0x00000022,
  0x3f800000,0x0004002b,0x00000006,0x00000025,
  0x00000000,0x00040020,0x00000029,0x00000003,
  0x00000017,0x0005002c,0x00000007,0x0000002b,
  0x00000022,0x00000022,0x00050036,0x00000002,
  0x00000004,0x00000000,0x00000003,0x000200f8,
  0x00000005,0x0004003d,0x0000000a,0x0000000d,
  0x0000000c,0x000500c4,0x0000000a,0x0000000f,
  0x0000000d,0x0000000e,0x000500c7,0x0000000a,
  0x00000011,0x0000000f,0x00000010,0x0004006f,
  0x00000006,0x00000012,0x00000011,0x000500c7,
  0x0000000a,0x00000014,0x0000000d,0x00000010,
  0x0004006f,0x00000006,0x00000015,0x00000014,
  0x00050050,0x00000007,0x00000016,0x00000012,
  0x00000015,0x0003003e,0x00000009,0x00000016,
  0x0004003d,0x00000007,0x0000001f,0x00000009,
  0x0005008e,0x00000007,0x00000021,0x0000001f,
  0x00000020,0x00050083,0x00000007,0x00000024,
  0x00000021,0x0000002b,0x00050051,0x00000006,
  0x00000026,0x00000024,0x00000000,0x00050051,
  0x00000006,0x00000027,0x00000024,0x00000001,
  0x00070050,0x00000017,0x00000028,0x00000026,
  0x00000027,0x00000025,0x00000022,0x00050041,
  0x00000029,0x0000002a,0x0000001d,0x0000001e,
  0x0003003e,0x0000002a,0x00000028,0x000100fd,
  0x00010038
};

/* The same without the uv output, for fragment shaders that read no input:
 * an unconsumed output draws a warning from some validation layers. */
static const uint32_t fullscreen_vert_nouv[] = {
  0x07230203,0x00010600,0x000d000b,0x0000002c,
  0x00000000,0x00020011,0x00000001,0x0006000b,
  0x00000001,0x4c534c47,0x6474732e,0x3035342e,
  0x00000000,0x0003000e,0x00000000,0x00000001,
  0x0007000f,0x00000000,0x00000004,0x6e69616d,
  0x00000000,0x0000000c,0x0000001d,0x00040047,
  0x0000000c,0x0000000b,0x0000002a,0x00050048,
  0x0000001b,0x00000000,0x0000000b,0x00000000,
  0x00050048,0x0000001b,0x00000001,0x0000000b,
  0x00000001,0x00050048,0x0000001b,0x00000002,
  0x0000000b,0x00000003,0x00050048,0x0000001b,
  0x00000003,0x0000000b,0x00000004,0x00030047,
  0x0000001b,0x00000002,0x00020013,0x00000002,
  0x00030021,0x00000003,0x00000002,0x00030016,
  0x00000006,0x00000020,0x00040017,0x00000007,
  0x00000006,0x00000002,0x00040015,0x0000000a,
  0x00000020,0x00000001,0x00040020,0x0000000b,
  0x00000001,0x0000000a,0x0004003b,0x0000000b,
  0x0000000c,0x00000001,0x0004002b,0x0000000a,
  0x0000000e,0x00000001,0x0004002b,0x0000000a,
  0x00000010,0x00000002,0x00040017,0x00000017,
  0x00000006,0x00000004,0x00040015,0x00000018,
  0x00000020,0x00000000,0x0004002b,0x00000018,
  0x00000019,0x00000001,0x0004001c,0x0000001a,
  0x00000006,0x00000019,0x0006001e,0x0000001b,
  0x00000017,0x00000006,0x0000001a,0x0000001a,
  0x00040020,0x0000001c,0x00000003,0x0000001b,
  0x0004003b,0x0000001c,0x0000001d,0x00000003,
  0x0004002b,0x0000000a,0x0000001e,0x00000000,
  0x0004002b,0x00000006,0x00000020,0x40000000,
  0x0004002b,0x00000006,0x00000022,0x3f800000,
  0x0004002b,0x00000006,0x00000025,0x00000000,
  0x00040020,0x00000029,0x00000003,0x00000017,
  0x0005002c,0x00000007,0x0000002b,0x00000022,
  0x00000022,0x00050036,0x00000002,0x00000004,
  0x00000000,0x00000003,0x000200f8,0x00000005,
  0x0004003d,0x0000000a,0x0000000d,0x0000000c,
  0x000500c4,0x0000000a,0x0000000f,0x0000000d,
  0x0000000e,0x000500c7,0x0000000a,0x00000011,
  0x0000000f,0x00000010,0x0004006f,0x00000006,
  0x00000012,0x00000011,0x000500c7,0x0000000a,
  0x00000014,0x0000000d,0x00000010,0x0004006f,
  0x00000006,0x00000015,0x00000014,0x00050050,
  0x00000007,0x00000016,0x00000012,0x00000015,
  0x0005008e,0x00000007,0x00000021,0x00000016,
  0x00000020,0x00050083,0x00000007,0x00000024,
  0x00000021,0x0000002b,0x00050051,0x00000006,
  0x00000026,0x00000024,0x00000000,0x00050051,
  0x00000006,0x00000027,0x00000024,0x00000001,
  0x00070050,0x00000017,0x00000028,0x00000026,
  0x00000027,0x00000025,0x00000022,0x00050041,
  0x00000029,0x0000002a,0x0000001d,0x0000001e,
  0x0003003e,0x0000002a,0x00000028,0x000100fd,
  0x00010038
};

/* ---------------------------------------------------------------- objects */

const fg_vk_shader_info *fg_vk_shader_get_info(const fg_vk_shader *s) { return &s->info; }

static VkShaderModule make_module(fg_vk_device *dev, const uint32_t *code, size_t bytes) {
  VkShaderModuleCreateInfo mi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = bytes, .pCode = code};
  VkShaderModule m = VK_NULL_HANDLE;
  if (vkCreateShaderModule(dev->device, &mi, dev->vkalloc, &m) != VK_SUCCESS) return VK_NULL_HANDLE;
  return m;
}

/* A fragment shader's vertex stage: desc->vertex_spirv, or the built-in
 * fullscreen triangle when the fragment shader reads at most location 0.
 * Reflected into s->info (bindings merged) and made a module. 1, or 0 + message. */
static int attach_vertex(fg_vk_shader *s, fg_vk_device *dev, const fg_vk_shader_desc *desc, const char *name,
                         char *err, size_t errlen) {
  uint32_t *vcode = NULL;
  int ok = 0;
  const uint32_t *vs = desc->vertex_spirv;
  size_t vbytes = desc->vertex_bytes;
  if (!vs) {
    if (s->info.fragment_inputs & ~1u) {
      fg_errf(err, errlen, "%s: reads fragment inputs other than location 0; the built-in fullscreen vertex "
              "shader provides only `layout(location = 0) in vec2 uv` (pass opts.vertex for more)", name);
      return 0;
    }
    vs = s->info.fragment_inputs ? fullscreen_vert : fullscreen_vert_nouv;
    vbytes = s->info.fragment_inputs ? sizeof fullscreen_vert : sizeof fullscreen_vert_nouv;
  }
  if (vbytes % 4 == 0 && vbytes >= 4) {
    vcode = fg_vk_malloc(dev, vbytes);
    if (vcode) memcpy(vcode, vs, vbytes);
  }
  uint32_t vmodel = 0;
  char vname[160];
  snprintf(vname, sizeof vname, "%s (vertex shader)", name);
  if (!fg_vk_reflect_module(vcode ? vcode : vs, vbytes, vname, &s->info, &vmodel, s->ventry, sizeof s->ventry, err, errlen))
    goto done;
  if (vmodel != SpvModelVertex) {
    fg_errf(err, errlen, "%s: opts.vertex is a %s shader, not a vertex shader", name, fg_vk_spirv_model_name(vmodel));
    goto done;
  }
  if (!fg_vk_spirv_validate(vcode, vbytes, vname, err, errlen)) goto done;
  s->vmodule = make_module(dev, vcode, vbytes);
  if (!s->vmodule) { fg_errf(err, errlen, "%s: vkCreateShaderModule failed for the vertex shader", name); goto done; }
  if (s->info.color_outputs > FG_VK_MAX_COLOR) {
    fg_errf(err, errlen, "%s: %u color outputs; at most %d", name, s->info.color_outputs, FG_VK_MAX_COLOR);
    goto done;
  }
  ok = 1;
done:
  fg_vk_free(dev, vcode);  /* the module keeps its own copy */
  return ok;
}

/* Push-descriptor set layout, pipeline layout and, for compute, the pipeline
 * (graphics pipelines are made per attachment formats when drawing). */
static int create_layouts(fg_vk_shader *s, fg_vk_device *dev, const char *name, char *err, size_t errlen) {
  VkDescriptorSetLayoutBinding lb[FG_VK_MAX_BINDINGS];
  for (uint32_t i = 0; i < s->info.binding_count; i++) {
    const fg_vk_shader_binding *b = &s->info.bindings[i];
    lb[i] = (VkDescriptorSetLayoutBinding){.binding = b->binding, .descriptorType = b->type,
                                           .descriptorCount = b->count, .stageFlags = b->stages};
  }
  VkDescriptorSetLayoutCreateInfo sli = {
    .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
    .flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR,
    .bindingCount = s->info.binding_count, .pBindings = lb,
  };
  if (vkCreateDescriptorSetLayout(dev->device, &sli, dev->vkalloc, &s->set_layout) != VK_SUCCESS) {
    fg_errf(err, errlen, "%s: vkCreateDescriptorSetLayout failed", name);
    return 0;
  }
  VkPushConstantRange pcr = {.stageFlags = s->info.stages, .offset = 0, .size = s->info.push_bytes};
  VkPipelineLayoutCreateInfo pli = {
    .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 1, .pSetLayouts = &s->set_layout,
    .pushConstantRangeCount = s->info.push_bytes ? 1 : 0, .pPushConstantRanges = &pcr,
  };
  if (vkCreatePipelineLayout(dev->device, &pli, dev->vkalloc, &s->layout) != VK_SUCCESS) {
    fg_errf(err, errlen, "%s: vkCreatePipelineLayout failed", name);
    return 0;
  }
  if (s->info.is_compute) {
    VkComputePipelineCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
      .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                .module = s->module, .pName = s->entry},
      .layout = s->layout,
    };
    VkResult r = vkCreateComputePipelines(dev->device, VK_NULL_HANDLE, 1, &ci, dev->vkalloc, &s->compute);
    if (r != VK_SUCCESS) {
      fg_errf(err, errlen, "%s: vkCreateComputePipelines failed (VkResult %d)", name, (int)r);
      return 0;
    }
  }
  return 1;
}

fg_vk_shader *fg_vk_shader_create(fg_vk_device *dev, const uint32_t *spirv, size_t bytes,
                                  const fg_vk_shader_desc *desc, char *err, size_t errlen) {
  fg_vk_shader_desc d0 = {0};
  if (!desc) desc = &d0;
  const char *name = desc->name && desc->name[0] ? desc->name : "shader";
  if (!dev->has_push_descriptor) {
    fg_errf(err, errlen, "%s: the device (%s) lacks VK_KHR_push_descriptor, which framegraph binds with",
            name, dev->props.deviceName);
    return NULL;
  }
  /* SPIR-V must be 4-byte aligned for the reflector and vkCreateShaderModule. */
  uint32_t *code = NULL;
  if (bytes % 4 == 0 && bytes >= 4) {
    code = fg_vk_malloc(dev, bytes);
    if (code) memcpy(code, spirv, bytes);
  }
  fg_vk_shader *s = fg_vk_calloc(dev, 1, sizeof *s);
  if (!s) { fg_vk_free(dev, code); fg_errf(err, errlen, "out of memory"); return NULL; }
  s->dev = fg_vk_retain(dev);
  s->desc = *desc;
  s->desc.name = NULL;
  s->desc.vertex_spirv = NULL;
  snprintf(s->info.name, sizeof s->info.name, "%s", name);
  uint32_t model = 0;
  /* A bad size reaches the reflector as-is and is refused there before any read. */
  if (!fg_vk_reflect_module(code ? code : spirv, bytes, name, &s->info, &model, s->entry, sizeof s->entry, err, errlen))
    goto fail;
  if (!fg_vk_spirv_validate(code, bytes, name, err, errlen)) goto fail;
  if (model == SpvModelVertex) {
    fg_errf(err, errlen, "%s: is a vertex shader; pass the fragment shader to fg.shader and the vertex shader "
            "as opts.vertex (or none for the built-in fullscreen triangle)", name);
    goto fail;
  }
  if (model == SpvModelFragment) {
    if (!attach_vertex(s, dev, desc, name, err, errlen)) goto fail;
  } else if (!s->info.local_size[0] || !s->info.local_size[1] || !s->info.local_size[2]) {
    fg_errf(err, errlen, "%s: compute shader without a local size (layout(local_size_x = ...) in;)", name);
    goto fail;
  }
  if (s->info.push_bytes > dev->props.limits.maxPushConstantsSize) {
    fg_errf(err, errlen, "%s: push-constant block of %u bytes exceeds the device limit of %u", name,
            s->info.push_bytes, dev->props.limits.maxPushConstantsSize);
    goto fail;
  }
  VkPhysicalDevicePushDescriptorPropertiesKHR pdp = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PUSH_DESCRIPTOR_PROPERTIES_KHR};
  VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &pdp};
  vkGetPhysicalDeviceProperties2(dev->phys, &p2);
  uint32_t total = 0;
  for (uint32_t i = 0; i < s->info.binding_count; i++) total += s->info.bindings[i].count;
  if (total > pdp.maxPushDescriptors) {
    fg_errf(err, errlen, "%s: %u descriptors exceed the device's maxPushDescriptors (%u)", name, total,
            pdp.maxPushDescriptors);
    goto fail;
  }

  s->module = make_module(dev, code, bytes);
  if (!s->module) { fg_errf(err, errlen, "%s: vkCreateShaderModule failed", name); goto fail; }
  if (!create_layouts(s, dev, name, err, errlen)) goto fail;
  fg_vk_free(dev, code);
  return s;
fail:
  fg_vk_free(dev, code);
  fg_vk_shader_destroy(s);
  return NULL;
}

static void shader_free(void *p) {
  fg_vk_shader *s = p;
  VkDevice d = s->dev->device;
  const VkAllocationCallbacks *ac = s->dev->vkalloc;
  /* A shader dropped by Lua (e.g. the old pipeline after a reload) may still
   * be in use by frames in flight. */
  vkDeviceWaitIdle(d);
  for (uint32_t i = 0; i < s->ngfx; i++) vkDestroyPipeline(d, s->gfx[i].pipeline, ac);
  fg_vk_free(s->dev, s->gfx);
  if (s->compute) vkDestroyPipeline(d, s->compute, ac);
  if (s->layout) vkDestroyPipelineLayout(d, s->layout, ac);
  if (s->set_layout) vkDestroyDescriptorSetLayout(d, s->set_layout, ac);
  if (s->module) vkDestroyShaderModule(d, s->module, ac);
  if (s->vmodule) vkDestroyShaderModule(d, s->vmodule, ac);
  fg_vk_device *dev = s->dev;
  fg_vk_free(dev, s);
  fg_vk_release(dev);
}

/* A shader closed (or collected) while a frame records may be in its command
 * buffer: it goes when the recording ends. */
void fg_vk_shader_destroy(fg_vk_shader *s) {
  if (s) fg_vk_defer(s->dev, shader_free, s);
}

fg_vk_device *fg_vk_shader_device(const fg_vk_shader *s) { return s->dev; }
