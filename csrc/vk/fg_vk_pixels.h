/* fg_vk_pixels: texels as the GPU left them -> RGBA8 for PNG files (readback
 * of rt:save_png). Pure format conversion; the read itself is fg_rt_read. */
#ifndef FG_VK_PIXELS_H
#define FG_VK_PIXELS_H
#include "fg_vk_runtime.h"

/* Whether fg_pixels_to_rgba8 converts format f: rgba8/bgra8 (unorm, srgb),
 * rgba16_sfloat, rgba32_sfloat, r32_sfloat, r8_unorm. */
int fg_pixels_png_supported(fg_format f);

/* Converts `count` tightly packed texels of format f to RGBA8: floats are
 * clamped to [0, 1] and rounded (NaN -> 0), single channels are grey with
 * alpha 255, bgra is swizzled. Other formats copy 4 bytes per texel. */
void fg_pixels_to_rgba8(fg_format f, const void *texels, size_t count, uint8_t *rgba);

/* Reads back the texture `phys` as the last frame left it and writes it as a
 * PNG file. 0; -1 with err when the read or the write failed; -2 when out of
 * memory. The format must be fg_pixels_png_supported. */
int fg_rt_save_png(fg_rt *rt, uint32_t phys, const char *path, char *err, size_t errlen);

#endif
