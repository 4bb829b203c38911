/* Push constants by name or position, type-checked against the shader's
 * reflected push block (fg_lua_push.h). The packing itself is the Vulkan
 * backend's (csrc/vk/bindings.c); this file only reads the Lua value. */
#include "fg_lua_push.h"
#include "graph_diag.h"  /* "did you mean" for an unknown member */
#include <stdio.h>
#include <string.h>

/* "exposure float, tint vec3" */
static const char *members_text(const fg_vk_block *b, char *buf, size_t len) {
  size_t o = 0;
  buf[0] = 0;
  for (uint32_t i = 0; i < b->count && o + 1 < len; i++) {
    char ty[48];
    int k = snprintf(buf + o, len - o, "%s%s %s", i ? ", " : "", b->members[i].name[0] ? b->members[i].name : "(unnamed)",
                     fg_vk_push_type_name(&b->members[i], ty, sizeof ty));
    if (k < 0) break;
    o += (size_t)k;
  }
  return buf;
}

typedef struct packer {
  lua_State *L;
  const fg_vk_block *b;
  const char *where;  /* "node 'x': cmd:draw" or "sh:pack" */
  uint8_t *buf;
} packer;

static int fail(packer *p, const char *msg) {
  char list[512];
  return luaL_error(p->L, "%s: %s: %s (shader '%s', block '%s': %s)", p->where, p->b->what, msg, p->b->shader,
                    p->b->name && p->b->name[0] ? p->b->name : "(unnamed)", members_text(p->b, list, sizeof list));
}

/* The value at the top of the stack into member m from scalar *k on (nested
 * tables flattened in order: a matrix column by column). */
static void put_value(packer *p, const fg_vk_push_member *m, uint32_t *k, int depth) {
  lua_State *L = p->L;
  char err[512], msg[640], ty[48];
  int t = lua_type(L, -1);
  if (t == LUA_TTABLE && depth < 4) {
    if (lua_getmetatable(L, -1)) {
      lua_pop(L, 1);
      snprintf(msg, sizeof msg, "'%s' is a table with a metatable; give a plain table (its metamethods would run "
               "inside the call)", m->name);
      fail(p, msg);
    }
    lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
    for (lua_Integer i = 1; i <= n; i++) {
      lua_geti(L, -1, i);
      put_value(p, m, k, depth + 1);
      lua_pop(L, 1);
    }
    return;
  }
  double v = 0;
  if (t == LUA_TNUMBER) v = lua_tonumber(L, -1);
  else if (t == LUA_TBOOLEAN) v = lua_toboolean(L, -1);
  else {
    snprintf(msg, sizeof msg, "'%s' (%s) got a %s; expected numbers", m->name, fg_vk_push_type_name(m, ty, sizeof ty),
             luaL_typename(L, -1));
    fail(p, msg);
  }
  if (*k >= fg_vk_push_scalars(m)) { (*k)++; return; }  /* counted; the caller reports the length */
  if (fg_vk_push_put(p->b, m, *k, v, p->buf, err, sizeof err)) {
    snprintf(msg, sizeof msg, "%s", err);
    fail(p, msg);
  }
  (*k)++;
}

static void pack_named(packer *p, int idx) {
  lua_State *L = p->L;
  char msg[640], ty[48], hint[160];
  uint8_t given[FG_VK_MAX_PUSH_MEMBERS] = {0};
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    if (lua_type(L, -2) != LUA_TSTRING) fail(p, "a table mixes names and positions; give every member by name");
    const char *name = lua_tostring(L, -2);
    if (strlen(name) != lua_rawlen(L, -2)) {  /* "seed\0x" would set 'seed' */
      snprintf(msg, sizeof msg, "member name '%s\\0...' holds a NUL byte; names cannot contain NUL", name);
      fail(p, msg);
    }
    const fg_vk_push_member *m = fg_vk_push_find(p->b, name);
    if (!m && p->b->count && !p->b->members[0].name[0])
      fail(p, "the block's member names were stripped (glslc -O strips them; spirv-opt -O keeps them): compile the "
              "shader without glslc's -O, or give the values as a list in block order");
    if (!m) {
      graph_suggest sg;
      graph_suggest_begin(&sg, name);
      for (uint32_t i = 0; i < p->b->count; i++) graph_suggest_feed(&sg, p->b->members[i].name);
      snprintf(msg, sizeof msg, "unknown member '%s'%s", name, graph_suggest_text(&sg, hint, sizeof hint));
      fail(p, msg);
    }
    uint32_t k = 0, n = fg_vk_push_scalars(m);
    put_value(p, m, &k, 0);
    if (k != n) {
      snprintf(msg, sizeof msg, "'%s' is a %s and takes %u number%s, got %u", m->name,
               fg_vk_push_type_name(m, ty, sizeof ty), n, n == 1 ? "" : "s", k);
      fail(p, msg);
    }
    given[m - p->b->members] = 1;
    lua_pop(L, 1);
  }
  for (uint32_t i = 0; i < p->b->count && i < FG_VK_MAX_PUSH_MEMBERS; i++)
    if (!given[i]) {
      const fg_vk_push_member *m = &p->b->members[i];
      snprintf(msg, sizeof msg, "member '%s' (%s) is missing: give every member", m->name[0] ? m->name : "(unnamed)",
               fg_vk_push_type_name(m, ty, sizeof ty));
      fail(p, msg);
    }
}

/* A list: the block's 32-bit words in order, each converted by the member
 * covering it (padding and raw members take the bits as before: an integer
 * as int32/uint32, another number as float). */
static size_t pack_positional(packer *p, int idx, lua_Integer n) {
  lua_State *L = p->L;
  char msg[640], ty[48], err[512];
  for (lua_Integer i = 1; i <= n; i++) {
    lua_geti(L, idx, i);
    uint32_t off = (uint32_t)(i - 1) * 4, k = 0;
    int t = lua_type(L, -1);
    if (t != LUA_TNUMBER && t != LUA_TBOOLEAN) {
      snprintf(msg, sizeof msg, "value %d is a %s; expected a number (or give the members by name)", (int)i,
               luaL_typename(L, -1));
      fail(p, msg);
    }
    const fg_vk_push_member *m = fg_vk_push_at(p->b, off, &k);
    if (m && m->width == 4 && m->scalar != FG_VK_PUSH_OTHER) {
      double v = t == LUA_TBOOLEAN ? lua_toboolean(L, -1) : lua_tonumber(L, -1);
      if (fg_vk_push_put(p->b, m, k, v, p->buf, err, sizeof err)) {
        snprintf(msg, sizeof msg, "value %d: %s", (int)i, err);
        fail(p, msg);
      }
    } else if (lua_isinteger(L, -1)) {
      uint32_t v = (uint32_t)(int64_t)lua_tointeger(L, -1);
      memcpy(p->buf + off, &v, 4);
    } else {
      float v = (float)lua_tonumber(L, -1);
      memcpy(p->buf + off, &v, 4);
    }
    lua_pop(L, 1);
  }
  size_t bytes = (size_t)n * 4;
  if (bytes < p->b->bytes) {
    for (uint32_t i = 0; i < p->b->count; i++) {
      const fg_vk_push_member *m = &p->b->members[i];
      if (m->offset + m->size <= bytes) continue;
      snprintf(msg, sizeof msg, "%d value%s (%zu bytes) given for a %u-byte block: member '%s' (%s, offset %u) gets "
               "none; give every value, or the members by name", (int)n, n == 1 ? "" : "s", bytes,
               p->b->bytes, m->name[0] ? m->name : "(unnamed)", fg_vk_push_type_name(m, ty, sizeof ty), m->offset);
      fail(p, msg);
    }
  }
  return bytes;
}

/* A table (by name or a list of 32-bit words) into buf: the byte count. */
static size_t pack_table(packer *p, int idx, size_t cap) {
  lua_State *L = p->L;
  char msg[640];
  if (p->b->bytes > cap) {
    snprintf(msg, sizeof msg, "the block is %u bytes, more than the %zu a table can fill; give a string of bytes",
             p->b->bytes, cap);
    fail(p, msg);
  }
  memset(p->buf, 0, p->b->bytes);
  if (lua_getmetatable(L, idx)) {
    lua_pop(L, 1);
    fail(p, "a table with a metatable; give a plain table (its metamethods would run inside the call)");
  }
  lua_Integer n = (lua_Integer)lua_rawlen(L, idx);
  lua_pushnil(L);
  int any = lua_next(L, idx);
  if (any) lua_pop(L, 2);
  if (!any) fail(p, "an empty table for a block with members; give each member by name");
  if (n > 0) {
    if ((size_t)n * 4 > cap) luaL_argerror(L, idx, "too many values (at most 256 bytes)");
    /* a list may not also carry names */
    lua_pushnil(L);
    while (lua_next(L, idx)) {
      lua_pop(L, 1);
      if (!lua_isinteger(L, -1)) { lua_pop(L, 1); fail(p, "a table mixes names and positions; give every member by name"); }
    }
    return pack_positional(p, idx, n);
  }
  pack_named(p, idx);
  return p->b->bytes;
}

size_t fg_lua_push_pack(lua_State *L, int idx, const fg_vk_shader_info *si, const char *node, const char *what,
                        uint8_t *buf, size_t cap, const void **out) {
  fg_vk_block b;
  int has = fg_vk_shader_block(si, -1, &b);
  char where[192], msg[640];
  snprintf(where, sizeof where, "node '%s': %s", node, what);
  packer p = {L, &b, where, buf};
  *out = NULL;
  idx = lua_absindex(L, idx);
  if (lua_isnoneornil(L, idx)) {
    if (has) fail(&p, "none given, but the shader has push constants; pass them by name, e.g. {name = value}");
    return 0;
  }
  if (lua_type(L, idx) == LUA_TSTRING) {
    size_t n;
    const char *s = lua_tolstring(L, idx, &n);
    if (n < b.bytes) {
      const fg_vk_push_member *m = NULL;
      for (uint32_t i = 0; i < b.count && !m; i++)
        if (b.members[i].offset + b.members[i].size > n) m = &b.members[i];
      snprintf(msg, sizeof msg, "%zu bytes given for a %u-byte block%s%s%s", n, b.bytes,
               m ? ": member '" : "", m ? (m->name[0] ? m->name : "(unnamed)") : "", m ? "' gets no bytes" : "");
      fail(&p, msg);
    }
    *out = s;
    return n;
  }
  luaL_argexpected(L, lua_istable(L, idx), idx, "push constants as a table (by name or a list of numbers) or a string");
  lua_pushnil(L);
  int any = lua_next(L, idx);
  if (any) lua_pop(L, 2);
  if (!has) {
    if (!any) return 0;
    return (size_t)luaL_error(L, "%s: push constants given, but shader '%s' declares no push_constant block", where,
                              si->name);
  }
  size_t n = pack_table(&p, idx, cap);
  *out = buf;
  return n;
}

/* sh:pack(binding, values) -> bytes of uniform buffer `binding` (for an upload);
 * sh:pack("push", values) -> the push block's bytes. */
int fg_lua_shader_pack(lua_State *L) {
  const fg_vk_shader_info *si = fg_vk_shader_get_info(fg_lua_checkshader(L, 1));
  int binding = -1;
  if (lua_type(L, 2) == LUA_TSTRING && !strcmp(lua_tostring(L, 2), "push") && lua_rawlen(L, 2) == 4) binding = -1;
  else {
    /* -1 is the push block inside; a negative or huge number must not become it through the cast */
    int isint = 0;
    lua_Integer bn = fg_lua_tointx(L, 2, &isint);
    if (!isint || bn < 0 || bn > INT32_MAX)
      return luaL_argerror(L, 2, lua_pushfstring(L, "sh:pack: binding must be \"push\" or a binding number in 0..%I, "
                                                    "got %s", (lua_Integer)INT32_MAX, luaL_tolstring(L, 2, NULL)));
    binding = (int)bn;
  }
  luaL_checktype(L, 3, LUA_TTABLE);
  fg_vk_block b;
  if (!fg_vk_shader_block(si, binding, &b)) {
    if (binding < 0) return luaL_error(L, "sh:pack: shader '%s' declares no push_constant block", si->name);
    return luaL_error(L, "sh:pack: binding %d of shader '%s' is not a uniform buffer block", binding, si->name);
  }
  uint8_t stackbuf[256];
  uint8_t *buf = b.bytes <= sizeof stackbuf ? stackbuf : lua_newuserdatauv(L, b.bytes, 0);
  if (fg_vk_shader_get_info(fg_lua_checkshader(L, 1)) != si)  /* closed by a finalizer the allocation ran */
    return luaL_error(L, "sh:pack: the shader changed during the call");
  packer p = {L, &b, "sh:pack", buf};
  size_t n = pack_table(&p, 3, b.bytes > sizeof stackbuf ? b.bytes : sizeof stackbuf);
  if (n < b.bytes) memset(buf + n, 0, b.bytes - n);
  lua_pushlstring(L, (const char *)buf, b.bytes);
  return 1;
}
