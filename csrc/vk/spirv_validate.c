/* SPIR-V validation with SPIRV-Tools before a module reaches the driver: the
 * reflector (spirv.c) reads only what it needs, so a truncated or otherwise
 * malformed module could pass it and crash the driver in
 * vkCreateShaderModule or pipeline creation (lavapipe does). */
#include "shader_internal.h"
#include "fg_util.h"
#include <spirv-tools/libspirv.h>
#include <string.h>

int fg_vk_spirv_validate(const uint32_t *words, size_t bytes, const char *name, char *err, size_t errlen) {
  if (!words || bytes < 20 || bytes % 4) {
    fg_errf(err, errlen, "%s: not a SPIR-V module (%zu bytes; a module is a whole number of 32-bit words, at "
            "least 5)", name, bytes);
    return 0;
  }
  spv_context ctx = spvContextCreate(SPV_ENV_VULKAN_1_3);
  spv_validator_options opts = spvValidatorOptionsCreate();
  if (!ctx || !opts) {
    if (ctx) spvContextDestroy(ctx);
    if (opts) spvValidatorOptionsDestroy(opts);
    fg_errf(err, errlen, "%s: out of memory validating the SPIR-V", name);
    return 0;
  }
  /* Layout rules the driver may relax (scalar block layout) are its business:
   * the point here is a module that is well formed. */
  spvValidatorOptionsSetScalarBlockLayout(opts, 1);
  spv_const_binary_t bin = {words, bytes / 4};
  spv_diagnostic diag = NULL;
  spv_result_t r = spvValidateWithOptions(ctx, opts, &bin, &diag);
  if (r != SPV_SUCCESS)
    fg_errf(err, errlen, "%s: invalid SPIR-V (spirv-val: %s); recompile it (glslc --target-env=vulkan1.3)", name,
            diag && diag->error ? diag->error : "no diagnostic");
  spvDiagnosticDestroy(diag);
  spvValidatorOptionsDestroy(opts);
  spvContextDestroy(ctx);
  return r == SPV_SUCCESS;
}
