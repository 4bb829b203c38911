/* Private to the shader files (spirv.c reflects, shader.c creates,
 * dispatch_draw.c records): the shader object and the reflector's entry. */
#ifndef FG_VK_SHADER_INTERNAL_H
#define FG_VK_SHADER_INTERNAL_H
#include "fg_vk_shader.h"

/* SPIR-V execution models (from the SPIR-V specification). */
enum { SpvModelVertex = 0, SpvModelFragment = 4, SpvModelGLCompute = 5 };

typedef struct gfx_pipeline {
  uint32_t ncolor;
  VkFormat color[FG_VK_MAX_COLOR];
  VkFormat depth;
  VkPipeline pipeline;
} gfx_pipeline;

struct fg_vk_shader {
  fg_vk_device *dev;
  fg_vk_shader_info info;
  fg_vk_shader_desc desc;
  char entry[64], ventry[64];
  VkShaderModule module, vmodule;
  VkDescriptorSetLayout set_layout;
  VkPipelineLayout layout;
  VkPipeline compute;
  gfx_pipeline *gfx;
  uint32_t ngfx, capgfx;
};

/* SPIRV-Tools' validator (spirv_validate.c): 1, or 0 + message naming `name`. */
int fg_vk_spirv_validate(const uint32_t *words, size_t bytes, const char *name, char *err, size_t errlen);

/* Reflects one module into out (bindings appended/merged, stage added).
 * entry/entry_len receive the entry point name. Its scratch memory comes
 * through hooks (the device's; NULL: malloc). */
int fg_vk_reflect_module(const fg_alloc_hooks *hooks, const uint32_t *spirv, size_t bytes, const char *name,
                         fg_vk_shader_info *out, uint32_t *model_out, char *entry, size_t entry_len, char *err, size_t errlen);

/* "vertex", "fragment", "compute", ... for messages. */
const char *fg_vk_spirv_model_name(uint32_t model);

#endif
