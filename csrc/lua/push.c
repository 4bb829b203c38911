/* Push constants by name or position, type-checked against the shader's
 * reflected push block (fg_lua_push.h). The packing itself is the Vulkan
 * backend's (csrc/vk/bindings.c); this file only reads the Lua value. */
#include "fg_lua_push.h"
#include "graph_diag.h"  /* "did you mean" for an unknown member */
#include <stdio.h>
#include <string.h>

/* "exposure float, tint vec3" */
static const char *members_text(const fg_vk_shader_info *si, char *buf, size_t len) {
  size_t o = 0;
  buf[0] = 0;
  for (uint32_t i = 0; i < si->push_member_count && o + 1 < len; i++) {
    char ty[48];
    int k = snprintf(buf + o, len - o, "%s%s %s", i ? ", " : "", si->push_members[i].name[0] ? si->push_members[i].name : "(unnamed)",
                     fg_vk_push_type_name(&si->push_members[i], ty, sizeof ty));
    if (k < 0) break;
    o += (size_t)k;
  }
  return buf;
}

typedef struct packer {
  lua_State *L;
  const fg_vk_shader_info *si;
  const char *node, *what;
  uint8_t *buf;
} packer;

static int fail(packer *p, const char *msg) {
  char list[512];
  return luaL_error(p->L, "node '%s': %s: push constants: %s (shader '%s', block '%s': %s)", p->node, p->what, msg,
                    p->si->name, p->si->push_block[0] ? p->si->push_block : "push_constant",
                    members_text(p->si, list, sizeof list));
}

/* The value at the top of the stack into member m from scalar *k on (nested
 * tables flattened in order: a matrix column by column). */
static void put_value(packer *p, const fg_vk_push_member *m, uint32_t *k, int depth) {
  lua_State *L = p->L;
  char err[512], msg[640], ty[48];
  int t = lua_type(L, -1);
  if (t == LUA_TTABLE && depth < 4) {
    lua_Integer n = luaL_len(L, -1);
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
  if (fg_vk_push_put(p->si, m, *k, v, p->buf, err, sizeof err)) {
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
    const fg_vk_push_member *m = fg_vk_push_find(p->si, name);
    if (!m && p->si->push_member_count && !p->si->push_members[0].name[0])
      fail(p, "the block's member names were stripped (glslc -O strips them; spirv-opt -O keeps them): compile the "
              "shader without glslc's -O, or give the values as a list in block order");
    if (!m) {
      graph_suggest sg;
      graph_suggest_begin(&sg, name);
      for (uint32_t i = 0; i < p->si->push_member_count; i++) graph_suggest_feed(&sg, p->si->push_members[i].name);
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
    given[m - p->si->push_members] = 1;
    lua_pop(L, 1);
  }
  for (uint32_t i = 0; i < p->si->push_member_count; i++)
    if (!given[i]) {
      const fg_vk_push_member *m = &p->si->push_members[i];
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
    const fg_vk_push_member *m = fg_vk_push_at(p->si, off, &k);
    if (m && m->width == 4 && m->scalar != FG_VK_PUSH_OTHER) {
      double v = t == LUA_TBOOLEAN ? lua_toboolean(L, -1) : lua_tonumber(L, -1);
      if (fg_vk_push_put(p->si, m, k, v, p->buf, err, sizeof err)) {
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
  if (bytes < p->si->push_bytes) {
    for (uint32_t i = 0; i < p->si->push_member_count; i++) {
      const fg_vk_push_member *m = &p->si->push_members[i];
      if (m->offset + m->size <= bytes) continue;
      snprintf(msg, sizeof msg, "%d value%s (%zu bytes) given for a %u-byte block: member '%s' (%s, offset %u) gets "
               "none; give every value, or the members by name", (int)n, n == 1 ? "" : "s", bytes,
               p->si->push_bytes, m->name[0] ? m->name : "(unnamed)", fg_vk_push_type_name(m, ty, sizeof ty), m->offset);
      fail(p, msg);
    }
  }
  return bytes;
}

size_t fg_lua_push_pack(lua_State *L, int idx, const fg_vk_shader_info *si, const char *node, const char *what,
                        uint8_t *buf, size_t cap, const void **out) {
  packer p = {L, si, node, what, buf};
  char msg[640];
  *out = NULL;
  idx = lua_absindex(L, idx);
  if (lua_isnoneornil(L, idx)) {
    if (si->push_bytes) fail(&p, "none given, but the shader has push constants; pass them by name, e.g. {name = value}");
    return 0;
  }
  if (lua_type(L, idx) == LUA_TSTRING) {
    size_t n;
    const char *s = lua_tolstring(L, idx, &n);
    if (n < si->push_bytes) {
      const fg_vk_push_member *m = NULL;
      for (uint32_t i = 0; i < si->push_member_count && !m; i++)
        if (si->push_members[i].offset + si->push_members[i].size > n) m = &si->push_members[i];
      snprintf(msg, sizeof msg, "%zu bytes given for a %u-byte block%s%s%s", n, si->push_bytes,
               m ? ": member '" : "", m ? (m->name[0] ? m->name : "(unnamed)") : "", m ? "' gets no bytes" : "");
      fail(&p, msg);
    }
    *out = s;
    return n;
  }
  luaL_argexpected(L, lua_istable(L, idx), idx, "push constants as a table (by name or a list of numbers) or a string");
  if (si->push_bytes > cap) {
    snprintf(msg, sizeof msg, "the block is %u bytes, more than the %zu a table can fill; give a string of bytes",
             si->push_bytes, cap);
    fail(&p, msg);
  }
  memset(buf, 0, si->push_bytes);
  lua_Integer n = luaL_len(L, idx);
  lua_pushnil(L);
  int any = lua_next(L, idx);
  if (any) lua_pop(L, 2);
  if (!any) {
    if (si->push_bytes) fail(&p, "an empty table for a block with members; give each member by name");
    return 0;
  }
  if (!si->push_bytes) {
    luaL_error(L, "node '%s': %s: push constants given, but shader '%s' declares no push_constant block", node, what,
               si->name);
  }
  if (n > 0) {
    if ((size_t)n * 4 > cap) luaL_argerror(L, idx, "too many push constants (at most 256 bytes)");
    /* a list may not also carry names */
    lua_pushnil(L);
    while (lua_next(L, idx)) {
      lua_pop(L, 1);
      if (!lua_isinteger(L, -1)) { lua_pop(L, 1); fail(&p, "a table mixes names and positions; give every member by name"); }
    }
    *out = buf;
    return pack_positional(&p, idx, n);
  }
  pack_named(&p, idx);
  *out = buf;
  return si->push_bytes;
}
