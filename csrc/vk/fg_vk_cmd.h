/* fg_vk_cmd: the commands a node records on the runtime's resources, with the
 * checks that decide what a node may do to what it declared (usage legality)
 * and the barriers between two commands of one node (fg_rt_cmd_access).
 *
 * Every call names resources by (slot, use): the node instance being recorded
 * and the index of one of its uses (fg_graph_instance.uses). `name` is the
 * name the caller used (the declared name or the rename target) and `what`
 * the command ("cmd:copy"); both only go into messages. Each returns 0, or -1
 * with a message "node '<node>': ..." saying what to change in the pipeline;
 * nothing is recorded after a check failed.
 *
 * bindings.c: descriptor bindings for dispatch/draw; transfer.c: clear, copy,
 * blit and copies from upload handles. */
#ifndef FG_VK_CMD_H
#define FG_VK_CMD_H
#include "fg_vk_runtime.h"
#include "fg_vk_shader.h"

/* ---- bindings.c ---- */

/* Binds use `use` at the reflected binding `rb` of shader `si`: checks that
 * the declared usage allows the descriptor type, that a binding the shader may
 * write is declared as a write, and that textures go to image and buffers to
 * buffer bindings; fills *out (view and layout, or buffer) and records the
 * barrier the access needs (stage: compute for compute shaders, else
 * fragment). nearest: bind the device's nearest sampler (else linear). */
int fg_rt_bind_use(fg_rt *rt, VkCommandBuffer cmd, uint32_t slot, uint32_t use, const char *name,
                   const fg_vk_shader_info *si, const fg_vk_shader_binding *rb, int nearest, const char *what,
                   fg_vk_binding *out, char *err, size_t errlen);

/* Binds [offset, offset + size) of the upload ring at `rb`: only as a
 * read-only storage buffer or a uniform buffer, within the device's range
 * limits. */
int fg_rt_bind_upload(fg_rt *rt, uint32_t slot, const fg_vk_shader_info *si, const fg_vk_shader_binding *rb,
                      VkDeviceSize offset, VkDeviceSize size, const char *what, fg_vk_binding *out, char *err,
                      size_t errlen);

/* The reflected binding number `binding` of si, NULL when the shader has none. */
const fg_vk_shader_binding *fg_vk_shader_find_binding(const fg_vk_shader_info *si, uint32_t binding);

/* Dispatch / draw with bindings made by the two calls above. The draw takes
 * the color/depth formats and the viewport from the node's pass. Messages are
 * fg_vk_cmd_dispatch's / fg_vk_cmd_draw's (without the node prefix). */
int fg_rt_cmd_dispatch(fg_rt *rt, VkCommandBuffer cmd, fg_vk_shader *s, const fg_vk_binding *b, uint32_t n,
                       const uint32_t groups[3], const void *push, uint32_t push_bytes, char *err, size_t errlen);
int fg_rt_cmd_draw(fg_rt *rt, VkCommandBuffer cmd, uint32_t slot, fg_vk_shader *s, const fg_vk_binding *b,
                   uint32_t n, uint32_t vertices, const void *push, uint32_t push_bytes, char *err, size_t errlen);
/* The same with fg_vk_cmd_draw_indexed's geometry (static buffers made
 * outside the graph: fg_vk_mesh.h). */
int fg_rt_cmd_draw_indexed(fg_rt *rt, VkCommandBuffer cmd, uint32_t slot, fg_vk_shader *s, const fg_vk_binding *b,
                           uint32_t n, const fg_vk_index_stream *ix, const fg_vk_vertex_stream *vs, uint32_t nvs,
                           const void *push, uint32_t push_bytes, char *err, size_t errlen);

/* ---- transfer.c ---- */

/* Checks that a transfer command may use `use` as its source (dst = 0) or
 * destination (dst = 1): destinations must be declared as writes, and the
 * declared usage must be the transfer usage or storage. */
int fg_rt_cmd_transfer_check(const fg_rt *rt, uint32_t slot, uint32_t use, const char *name, int dst,
                             const char *what, char *err, size_t errlen);

/* Clears a texture to value (color: rgba as floats, or as integers for
 * integer formats; depth: value[0] depth, value[1] stencil) or fills a buffer
 * with the 32-bit value[0]. Includes fg_rt_cmd_transfer_check. */
int fg_rt_cmd_clear(fg_rt *rt, VkCommandBuffer cmd, uint32_t slot, uint32_t use, const char *name,
                    const double value[4], const char *what, char *err, size_t errlen);

/* Copies (blit = 0) or blits (blit = 1, two textures, scaled) `src_use` into
 * `dst_use`: texture<->texture, buffer<->buffer, texture<->buffer (mip 0,
 * layer 0, tightly packed rows). */
int fg_rt_cmd_copy(fg_rt *rt, VkCommandBuffer cmd, uint32_t slot, uint32_t src_use, const char *src_name,
                   uint32_t dst_use, const char *dst_name, int blit, char *err, size_t errlen);

/* Blits all of texture `src_use` into the rectangle {x, y, width, height} of
 * texture `dst_use` (the viewer's letterbox); the rest of dst is untouched. */
int fg_rt_cmd_blit_rect(fg_rt *rt, VkCommandBuffer cmd, uint32_t slot, uint32_t src_use, const char *src_name,
                        uint32_t dst_use, const char *dst_name, const int32_t rect[4], char *err, size_t errlen);

/* Copies [offset, offset + size) of the upload ring into `use`: a texture
 * (tightly packed rows; the upload must cover it and be texel- and 4-aligned)
 * or a buffer at byte dst_offset. The caller has run fg_rt_cmd_transfer_check. */
int fg_rt_cmd_copy_upload(fg_rt *rt, VkCommandBuffer cmd, uint32_t slot, uint32_t use, const char *name,
                          VkDeviceSize offset, VkDeviceSize size, uint64_t dst_offset, char *err, size_t errlen);

#endif
