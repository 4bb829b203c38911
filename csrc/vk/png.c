/* PNG writer/reader on libpng's simplified API (png_image_*). */
#include "fg_png.h"
#include "fg_util.h"
#include <png.h>
#include <stdlib.h>
#include <string.h>

int fg_png_write_rgba8(const char *path, uint32_t w, uint32_t h, const void *rgba, char *err, size_t errlen) {
  if (!path || !rgba || !w || !h) {
    fg_errf(err, errlen, "png: nothing to write (%ux%u image, path %s)", w, h, path ? path : "(null)");
    return 0;
  }
  png_image img;
  memset(&img, 0, sizeof img);
  img.version = PNG_IMAGE_VERSION;
  img.width = w;
  img.height = h;
  img.format = PNG_FORMAT_RGBA;
  if (!png_image_write_to_file(&img, path, 0, rgba, (png_int_32)(w * 4), NULL)) {
    fg_errf(err, errlen, "png: cannot write %s: %s", path, img.message);
    png_image_free(&img);
    return 0;
  }
  return 1;
}

int fg_png_read_rgba8(const char *path, uint32_t *w, uint32_t *h, unsigned char **rgba, char *err, size_t errlen) {
  png_image img;
  memset(&img, 0, sizeof img);
  img.version = PNG_IMAGE_VERSION;
  *rgba = NULL;
  if (!png_image_begin_read_from_file(&img, path)) {
    fg_errf(err, errlen, "png: cannot read %s: %s", path, img.message);
    return 0;
  }
  img.format = PNG_FORMAT_RGBA;
  unsigned char *buf = malloc(PNG_IMAGE_SIZE(img));
  if (!buf) { png_image_free(&img); fg_errf(err, errlen, "png: out of memory"); return 0; }
  if (!png_image_finish_read(&img, NULL, buf, 0, NULL)) {
    fg_errf(err, errlen, "png: cannot decode %s: %s", path, img.message);
    free(buf);
    return 0;
  }
  *w = img.width;
  *h = img.height;
  *rgba = buf;
  return 1;
}
