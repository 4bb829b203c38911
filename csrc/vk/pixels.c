/* Texel format conversion for PNG output. See fg_vk_pixels.h. */
#include "fg_vk_pixels.h"
#include "fg_png.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

int fg_pixels_png_supported(fg_format f) {
  return f == FG_FORMAT_RGBA8_UNORM || f == FG_FORMAT_RGBA8_SRGB || f == FG_FORMAT_BGRA8_UNORM ||
         f == FG_FORMAT_BGRA8_SRGB || f == FG_FORMAT_RGBA16_SFLOAT || f == FG_FORMAT_RGBA32_SFLOAT ||
         f == FG_FORMAT_R32_SFLOAT || f == FG_FORMAT_R8_UNORM;
}

static uint8_t to_u8(float f) {
  if (!(f > 0)) return 0;
  if (f >= 1) return 255;
  return (uint8_t)lrintf(f * 255.0f);
}

static float half_to_float(uint16_t h) {
  uint32_t s = (h >> 15) & 1, e = (h >> 10) & 31, m = h & 1023;
  float v = e == 0 ? ldexpf((float)m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexpf((float)(m | 1024), (int)e - 25);
  return s ? -v : v;
}

void fg_pixels_to_rgba8(fg_format f, const void *data, size_t px, uint8_t *rgba) {
  for (size_t i = 0; i < px; i++) {
    uint8_t *d = rgba + 4 * i;
    switch (f) {
      case FG_FORMAT_BGRA8_UNORM: case FG_FORMAT_BGRA8_SRGB: {
        const uint8_t *s = (const uint8_t *)data + 4 * i;
        d[0] = s[2]; d[1] = s[1]; d[2] = s[0]; d[3] = s[3];
        break;
      }
      case FG_FORMAT_RGBA16_SFLOAT: {
        const uint16_t *s = (const uint16_t *)data + 4 * i;
        for (int c = 0; c < 4; c++) d[c] = to_u8(half_to_float(s[c]));
        break;
      }
      case FG_FORMAT_RGBA32_SFLOAT: {
        const float *s = (const float *)data + 4 * i;
        for (int c = 0; c < 4; c++) d[c] = to_u8(s[c]);
        break;
      }
      case FG_FORMAT_R32_SFLOAT: {
        uint8_t v = to_u8(((const float *)data)[i]);
        d[0] = d[1] = d[2] = v; d[3] = 255;
        break;
      }
      case FG_FORMAT_R8_UNORM: {
        uint8_t v = ((const uint8_t *)data)[i];
        d[0] = d[1] = d[2] = v; d[3] = 255;
        break;
      }
      default: memcpy(d, (const uint8_t *)data + 4 * i, 4);
    }
  }
}

int fg_rt_save_png(fg_rt *rt, uint32_t phys, const char *path, char *err, size_t errlen) {
  fg_rt_res *r = fg_rt_resource(rt, phys);
  void *data;
  size_t len;
  if (fg_rt_read(rt, phys, &data, &len, err, errlen)) return -1;
  size_t px = (size_t)r->width * r->height;
  fg_vk_device *dev = fg_rt_device(rt);
  uint8_t *rgba = fg_vk_malloc(dev, px * 4);
  if (!rgba) { fg_vk_free(dev, data); return -2; }
  fg_pixels_to_rgba8(r->g->format, data, px, rgba);
  fg_vk_free(dev, data);
  int ok = fg_png_write_rgba8(path, r->width, r->height, rgba, err, errlen);
  fg_vk_free(dev, rgba);
  return ok ? 0 : -1;
}
