/* PNG files through libpng's simplified API (Debian's libpng-dev). */
#ifndef FG_PNG_H
#define FG_PNG_H
#include <stddef.h>
#include <stdint.h>

/* Writes w*h RGBA8 pixels (rows top to bottom, 4*w bytes each). 1 or 0 + message. */
int fg_png_write_rgba8(const char *path, uint32_t w, uint32_t h, const void *rgba, char *err, size_t errlen);

/* Reads any PNG as RGBA8; *rgba is malloc'ed (free it). 1 or 0 + message. */
int fg_png_read_rgba8(const char *path, uint32_t *w, uint32_t *h, unsigned char **rgba, char *err, size_t errlen);

#endif
