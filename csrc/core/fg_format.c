/* Format table: bytes per texel and aspects, for planning and attachment kinds. */
#include "fg_format.h"
#include <string.h>

#define C FG_ASPECT_COLOR
#define D FG_ASPECT_DEPTH
#define S FG_ASPECT_STENCIL
#define ROW(id, name, bytes, aspects, channels, vk) [FG_FORMAT_##id] = {name, bytes, aspects, channels},
static const fg_format_info fg_formats[FG_FORMAT_COUNT] = {
  [FG_FORMAT_UNDEFINED] = {"undefined", 0, 0, 0},
  FG_FORMATS(ROW)
};
#undef ROW
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

const char *fg_format_names(void) { return FG_FORMAT_NAMES_JOINED; }
