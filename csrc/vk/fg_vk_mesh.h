/* Static content made outside any graph: vertex and index buffers
 * (mesh_buffer.c), textures from PNG files (image_file.c) and meshes from
 * glTF 2.0 files (mesh_gltf.cpp, through tinygltf).
 *
 * Each is filled once through a staging buffer (fg_vk_submit_once, which
 * waits) and is read-only for the GPU afterwards, so frames use it without
 * barriers: the fill finished before any frame could record a read. Destroying
 * one waits for the device (a frame in flight may still read it). */
#ifndef FG_VK_MESH_H
#define FG_VK_MESH_H
#include "fg_vk.h"
#include "fg_vk_image.h"
#include "fg_vk_shader.h"
#include "fg_format.h"
#include "fg_mesh_data.h"

/* A texture side a file may ask for (checked before decoding). */
#define FG_TEXTURE_MAX_SIDE 16384u

#define FG_VK_BUFFER_VERTEX 1u
#define FG_VK_BUFFER_INDEX 2u

typedef struct fg_vk_static_buffer {
  fg_vk_buffer buf;          /* buf.size: bytes */
  uint32_t usage;            /* FG_VK_BUFFER_VERTEX | FG_VK_BUFFER_INDEX */
  VkIndexType index_type;    /* index buffers: UINT16 or UINT32 */
  uint32_t max_index;        /* index buffers: the largest index held (0 when zero-filled) */
} fg_vk_static_buffer;

/* A device-local buffer of `size` bytes holding `data` (NULL: zeros).
 * index_bytes (2 or 4) is the index size when usage has FG_VK_BUFFER_INDEX;
 * size must then be a multiple of it. 1, or 0 with a message (device memory). */
int fg_vk_static_buffer_create(fg_vk_device *dev, const void *data, size_t size, uint32_t usage,
                               uint32_t index_bytes, fg_vk_static_buffer *out, char *err, size_t errlen);
/* Waits for the device, then frees; an empty buffer is ignored. */
void fg_vk_static_buffer_destroy(fg_vk_device *dev, fg_vk_static_buffer *b);

/* ---- image_file.c ---- */

/* A sampled texture of w x h RGBA8 pixels (rows top to bottom) in `format`
 * (rgba8_unorm or rgba8_srgb), with every mip level down to 1x1 made by
 * linear blits when `mips`; left in SHADER_READ_ONLY_OPTIMAL (out->layout).
 * out->view shows mip 0 (an external resource's view), out->sampled_view
 * every level. 1, or 0 with a message. */
int fg_vk_texture_create(fg_vk_device *dev, const unsigned char *rgba, uint32_t w, uint32_t h, fg_format format,
                         int mips, fg_vk_image *out, char *err, size_t errlen);

/* Reads a PNG file (any PNG libpng reads, as RGBA8) into *rgba (malloc'ed)
 * after checking its size against FG_TEXTURE_MAX_SIDE. 1, or 0 with a message
 * naming the file (missing, unreadable, corrupt, too large). */
int fg_texture_read_png(const char *path, uint32_t *w, uint32_t *h, unsigned char **rgba, char *err, size_t errlen);

/* Meshes: fg_mesh_data.h (the loader) and fg_vk_static_buffer (their buffers). */

#endif
