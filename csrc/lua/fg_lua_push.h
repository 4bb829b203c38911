/* Push constants of cmd:dispatch / cmd:draw: a Lua value packed by the
 * shader's reflected push block (see fg_vk_shader.h, fg_vk_push_*). */
#ifndef FG_LUA_PUSH_H
#define FG_LUA_PUSH_H
#include "fg_lua.h"
#include "fg_vk_shader.h"

/* The value at idx: nil (only for a shader without push constants), a string
 * of bytes (at least the block's size), a table by member name
 * {exposure = 1.0, tint = {1, 0.8, 1.2}} or a positional list of 32-bit
 * values, both checked against the members' types. Packs into buf (cap
 * bytes), sets *out and returns the byte count; raises naming node, command
 * and member on a mistake. */
size_t fg_lua_push_pack(lua_State *L, int idx, const fg_vk_shader_info *si, const char *node, const char *what,
                        uint8_t *buf, size_t cap, const void **out);

/* sh:pack(binding | "push", values) -> the block's bytes, packed and checked
 * the same way (a uniform buffer's std140 offsets as reflected). */
int fg_lua_shader_pack(lua_State *L);

#endif
