/* Format table: bytes per texel and aspects, for planning and attachment kinds. */
#include "fg_format.h"
#include <string.h>

#define C FG_ASPECT_COLOR
#define D FG_ASPECT_DEPTH
#define S FG_ASPECT_STENCIL
static const fg_format_info fg_formats[FG_FORMAT_COUNT] = {
  [FG_FORMAT_UNDEFINED] = {"undefined", 0, 0, 0},
  [FG_FORMAT_R8_UNORM] = {"r8_unorm", 1, C, 1},
  [FG_FORMAT_R8_UINT] = {"r8_uint", 1, C, 1},
  [FG_FORMAT_RG8_UNORM] = {"rg8_unorm", 2, C, 2},
  [FG_FORMAT_RGBA8_UNORM] = {"rgba8_unorm", 4, C, 4},
  [FG_FORMAT_RGBA8_SRGB] = {"rgba8_srgb", 4, C, 4},
  [FG_FORMAT_BGRA8_UNORM] = {"bgra8_unorm", 4, C, 4},
  [FG_FORMAT_BGRA8_SRGB] = {"bgra8_srgb", 4, C, 4},
  [FG_FORMAT_RGBA8_SNORM] = {"rgba8_snorm", 4, C, 4},
  [FG_FORMAT_RGBA8_UINT] = {"rgba8_uint", 4, C, 4},
  [FG_FORMAT_A2B10G10R10_UNORM] = {"a2b10g10r10_unorm", 4, C, 4},
  [FG_FORMAT_B10G11R11_UFLOAT] = {"b10g11r11_ufloat", 4, C, 3},
  [FG_FORMAT_R16_SFLOAT] = {"r16_sfloat", 2, C, 1},
  [FG_FORMAT_R16_UNORM] = {"r16_unorm", 2, C, 1},
  [FG_FORMAT_R16_UINT] = {"r16_uint", 2, C, 1},
  [FG_FORMAT_RG16_SFLOAT] = {"rg16_sfloat", 4, C, 2},
  [FG_FORMAT_RG16_UNORM] = {"rg16_unorm", 4, C, 2},
  [FG_FORMAT_RGBA16_SFLOAT] = {"rgba16_sfloat", 8, C, 4},
  [FG_FORMAT_RGBA16_UNORM] = {"rgba16_unorm", 8, C, 4},
  [FG_FORMAT_R32_SFLOAT] = {"r32_sfloat", 4, C, 1},
  [FG_FORMAT_R32_UINT] = {"r32_uint", 4, C, 1},
  [FG_FORMAT_R32_SINT] = {"r32_sint", 4, C, 1},
  [FG_FORMAT_RG32_SFLOAT] = {"rg32_sfloat", 8, C, 2},
  [FG_FORMAT_RG32_UINT] = {"rg32_uint", 8, C, 2},
  [FG_FORMAT_RGBA32_SFLOAT] = {"rgba32_sfloat", 16, C, 4},
  [FG_FORMAT_RGBA32_UINT] = {"rgba32_uint", 16, C, 4},
  [FG_FORMAT_D16_UNORM] = {"d16_unorm", 2, D, 1},
  [FG_FORMAT_D32_SFLOAT] = {"d32_sfloat", 4, D, 1},
  [FG_FORMAT_D24_UNORM_S8_UINT] = {"d24_unorm_s8_uint", 4, D | S, 2},
  [FG_FORMAT_D32_SFLOAT_S8_UINT] = {"d32_sfloat_s8_uint", 8, D | S, 2},
  [FG_FORMAT_S8_UINT] = {"s8_uint", 1, S, 1},
};
#undef C
#undef D
#undef S

const fg_format_info *fg_format_get(fg_format f) {
  if ((int)f <= 0 || f >= FG_FORMAT_COUNT) return &fg_formats[0];
  return &fg_formats[f];
}

fg_format fg_format_from_name(const char *name) {
  if (!name) return FG_FORMAT_UNDEFINED;
  for (int i = 1; i < FG_FORMAT_COUNT; i++)
    if (strcmp(fg_formats[i].name, name) == 0) return (fg_format)i;
  return FG_FORMAT_UNDEFINED;
}

const char *fg_format_names(void) {
  return "r8_unorm, r8_uint, rg8_unorm, rgba8_unorm, rgba8_srgb, bgra8_unorm, bgra8_srgb, rgba8_snorm, "
         "rgba8_uint, a2b10g10r10_unorm, b10g11r11_ufloat, r16_sfloat, r16_unorm, r16_uint, rg16_sfloat, "
         "rg16_unorm, rgba16_sfloat, rgba16_unorm, r32_sfloat, r32_uint, r32_sint, rg32_sfloat, rg32_uint, "
         "rgba32_sfloat, rgba32_uint, d16_unorm, d32_sfloat, d24_unorm_s8_uint, d32_sfloat_s8_uint, s8_uint";
}
