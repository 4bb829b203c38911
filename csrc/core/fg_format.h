/* fg_format: the texel formats a pipeline may name, with what the compiler
 * needs to plan memory (bytes per texel) and what the runtime needs to pick
 * attachment kinds (aspects). The list itself is FG_FORMATS in fg_vocab.h;
 * the runtime maps fg_format -> VkFormat from the same list; the enum values
 * are stable (append only). Names follow Vulkan without prefix:
 * "rgba8_unorm" = VK_FORMAT_R8G8B8A8_UNORM. */
#ifndef FG_FORMAT_H
#define FG_FORMAT_H
#include <stdint.h>

#include "fg_vocab.h"

/* FG_FORMAT_R8_UNORM ... from the FG_FORMATS list (fg_vocab.h). */
#define FG_FORMAT_ENUM_(id, name, bytes, aspects, channels, vk) FG_FORMAT_##id,
typedef enum fg_format {
  FG_FORMAT_UNDEFINED = 0,
  FG_FORMATS(FG_FORMAT_ENUM_)
  FG_FORMAT_COUNT
} fg_format;

enum {
  FG_ASPECT_COLOR = 1,
  FG_ASPECT_DEPTH = 2,
  FG_ASPECT_STENCIL = 4
};

typedef struct fg_format_info {
  const char *name;      /* "rgba8_unorm" */
  uint32_t texel_bytes;  /* bytes per texel for tight planning (d24s8: 4, d32s8: 8) */
  uint32_t aspects;      /* FG_ASPECT_* mask */
  uint32_t channels;
} fg_format_info;

/* Info for a format; FG_FORMAT_UNDEFINED and out-of-range give a zeroed entry
 * whose name is "undefined". */
const fg_format_info *fg_format_get(fg_format f);
/* Name -> format; FG_FORMAT_UNDEFINED when unknown. */
fg_format fg_format_from_name(const char *name);
/* "r8_unorm, r8_uint, ..." for error messages ("expected one of ..."). */
const char *fg_format_names(void);

#endif
