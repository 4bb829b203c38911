/* Content from outside the graph (fg_vk_mesh.h): static vertex/index buffers
 * ("framegraph.buffer", fg.buffer), textures from PNG files (fg.image, a
 * "framegraph.image" like dev:external_image's) and glTF meshes (fg.mesh, a
 * table of buffers). Misuse raises; a missing or corrupt file and device
 * memory give nil, message. Handles follow the lifetime rule: close() (or
 * __close, __gc) frees once no frame in flight can read them, and a closed one
 * raises "buffer is closed" where it is used. */
#include "fg_lua_runtime.h"
#include "fg_vk_mesh.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FG_LUA_MESH "framegraph.mesh"
/* The most bytes one buffer takes from Lua: far above a mesh, far below
 * what a 32-bit count could wrap. */
#define FG_MAX_STATIC_BUFFER (1 << 30)

typedef struct lbuffer {
  fg_vk_device *dev;  /* NULL once closed */
  fg_vk_static_buffer b;
} lbuffer;

typedef struct dead_buffer {
  fg_vk_device *dev;
  fg_vk_static_buffer b;
} dead_buffer;

static void buffer_free(void *p) {
  dead_buffer *d = p;
  fg_vk_device *dev = d->dev;
  fg_vk_static_buffer_destroy(dev, &d->b);
  fg_vk_free(dev, d);
  fg_vk_release(dev);
}

/* Closed from a node's run, the buffer may be in the frame recording: it goes
 * when the recording ends (fg_vk_defer), after the device is idle. */
static int buf_close(lua_State *L) {
  lbuffer *m = fg_lua_checkudata(L, 1, FG_LUA_BUFFER);
  if (!m->dev) return 0;
  fg_vk_device *dev = m->dev;
  m->dev = NULL;
  dead_buffer *d = fg_vk_malloc(dev, sizeof *d);
  if (!d) {
    fg_vk_static_buffer_destroy(dev, &m->b);
    fg_vk_release(dev);
    return 0;
  }
  d->dev = dev;
  d->b = m->b;
  fg_vk_defer(dev, buffer_free, d);
  return 0;
}

fg_vk_static_buffer *fg_lua_testbuffer(lua_State *L, int idx, fg_vk_device **dev) {
  lbuffer *m = luaL_testudata(L, idx, FG_LUA_BUFFER);
  if (!m) return NULL;
  if (!m->dev) luaL_error(L, "buffer is closed: its close() was called (or its mesh's); make it again");
  *dev = m->dev;
  return &m->b;
}

static lbuffer *check_buffer(lua_State *L, int idx) {
  lbuffer *m = fg_lua_checkudata(L, idx, FG_LUA_BUFFER);
  if (!m->dev) luaL_error(L, "buffer is closed: its close() was called (or its mesh's); make it again");
  return m;
}

/* Makes a buffer userdata at the top of the stack; 1, or pushes nil, message
 * (the userdata stays below them, closed) and returns 0. */
static int push_buffer(lua_State *L, fg_vk_device *dev, const void *data, size_t size, uint32_t usage,
                       uint32_t index_bytes) {
  lbuffer *m = lua_newuserdatauv(L, sizeof *m, 0);
  memset(m, 0, sizeof *m);
  luaL_setmetatable(L, FG_LUA_BUFFER);
  /* The device of argument 1 again: a finalizer run by an allocation since
   * the caller checked it may have closed it (dev:close() in a __gc). */
  if (fg_lua_todevice(L, 1) != dev) dev = fg_lua_checkdevice(L, 1);
  char err[512];
  if (!fg_vk_static_buffer_create(dev, data, size, usage, index_bytes, &m->b, err, sizeof err)) {
    luaL_pushfail(L);
    lua_pushstring(L, err);
    return 0;
  }
  m->dev = fg_vk_retain(dev);
  return 1;
}

/* opts may hold only `allowed` keys (a misspelling raises). */
static void check_opts(lua_State *L, int idx, const char *what, const char *const *allowed) {
  if (lua_isnoneornil(L, idx)) return;
  luaL_checktype(L, idx, LUA_TTABLE);
  lua_pushfstring(L, "%s: opts", what);
  fg_lua_plain(L, idx, lua_tostring(L, -1));
  lua_pop(L, 1);
  if (!fg_lua_unknown_key(L, idx, allowed)) return;
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  for (const char *const *a = allowed; *a; a++) {
    if (a != allowed) luaL_addstring(&b, ", ");
    luaL_addstring(&b, *a);
  }
  luaL_pushresult(&b);
  luaL_error(L, "%s: opts.%s: unknown field (the options are %s)", what,
             lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "?", lua_tostring(L, -1));
}

/* The string at idx, or "" when it is not one or holds a NUL ("index\0x"
 * must not pass as "index"): the callers' messages then list what is valid. */
static const char *plain_str(lua_State *L, int idx) {
  size_t n = 0;
  const char *s = lua_type(L, idx) == LUA_TSTRING ? lua_tolstring(L, idx, &n) : "";
  return strlen(s) == n ? s : "";
}

static uint32_t usage_word(lua_State *L, const char *s) {
  if (!strcmp(s, "vertex")) return FG_VK_BUFFER_VERTEX;
  if (!strcmp(s, "index")) return FG_VK_BUFFER_INDEX;
  return (uint32_t)luaL_error(L, "fg.buffer: opts.usage '%s' is not a buffer usage (\"vertex\", \"index\" or both "
                              "as a list)", s);
}

/* fg.buffer(dev, data_or_size [, {usage = "vertex" | "index" | {...}, index = "uint16" | "uint32"}]) */
static int l_buffer(lua_State *L) {
  fg_vk_device *dev = fg_lua_checkdevice(L, 1);
  static const char *const keys[] = {"usage", "index", NULL};
  check_opts(L, 3, "fg.buffer", keys);
  uint32_t usage = FG_VK_BUFFER_VERTEX, index_bytes = 4;
  if (lua_istable(L, 3)) {
    lua_getfield(L, 3, "usage");
    if (lua_type(L, -1) == LUA_TSTRING) usage = usage_word(L, plain_str(L, -1));
    else if (lua_istable(L, -1)) {
      usage = 0;
      fg_lua_plain(L, -1, "fg.buffer: opts.usage");
      for (lua_Integer i = 1, n = (lua_Integer)lua_rawlen(L, -1); i <= n; i++) {
        lua_geti(L, -1, i);
        if (lua_type(L, -1) != LUA_TSTRING) luaL_error(L, "fg.buffer: opts.usage[%d] must be a string", (int)i);
        usage |= usage_word(L, plain_str(L, -1));
        lua_pop(L, 1);
      }
      if (!usage) luaL_error(L, "fg.buffer: opts.usage is an empty list; give \"vertex\" and/or \"index\"");
    } else if (!lua_isnil(L, -1))
      luaL_error(L, "fg.buffer: opts.usage must be \"vertex\", \"index\" or a list of them, got %s",
                 luaL_typename(L, -1));
    lua_pop(L, 1);
    lua_getfield(L, 3, "index");
    if (!lua_isnil(L, -1)) {
      const char *t = plain_str(L, -1);
      if (strcmp(t, "uint16") && strcmp(t, "uint32"))
        luaL_error(L, "fg.buffer: opts.index must be \"uint16\" or \"uint32\"");
      if (!(usage & FG_VK_BUFFER_INDEX))
        luaL_error(L, "fg.buffer: opts.index is given but opts.usage has no \"index\"");
      index_bytes = !strcmp(t, "uint16") ? 2 : 4;
    }
    lua_pop(L, 1);
  }
  int index = (usage & FG_VK_BUFFER_INDEX) != 0;
  const void *data = NULL;
  size_t size = 0;
  void *packed = NULL;
  if (lua_type(L, 2) == LUA_TSTRING) {
    data = lua_tolstring(L, 2, &size);
    if (size == 0 || size > FG_MAX_STATIC_BUFFER)
      return luaL_argerror(L, 2, lua_pushfstring(L, "the data holds %I bytes; a buffer holds 1..%d",
                                                 (lua_Integer)size, FG_MAX_STATIC_BUFFER));
  } else if (lua_type(L, 2) == LUA_TNUMBER) {
    size = (size_t)fg_lua_checkrange(L, 2, 1, FG_MAX_STATIC_BUFFER, "the buffer size in bytes");
  } else if (lua_istable(L, 2)) {  /* numbers: float32 for vertices, indices of opts.index */
    fg_lua_plain(L, 2, "fg.buffer: the data");
    lua_Integer n = (lua_Integer)lua_rawlen(L, 2);
    uint32_t each = index ? index_bytes : 4;
    if (n < 1 || n > (lua_Integer)FG_MESH_MAX_ELEMENTS)
      return luaL_argerror(L, 2, lua_pushfstring(L, "a list of %I numbers; give 1..%d", n, (int)FG_MESH_MAX_ELEMENTS));
    size = (size_t)n * each;
    packed = lua_newuserdatauv(L, size, 0);  /* freed by the collector, even when an element raises */
    for (lua_Integer i = 1; i <= n; i++) {
      lua_geti(L, 2, i);
      int isnum = lua_type(L, -1) == LUA_TNUMBER;  /* "16" is not an element */
      lua_Number v = isnum ? lua_tonumber(L, -1) : 0;
      lua_pop(L, 1);
      if (!isnum || !isfinite(v))
        return luaL_argerror(L, 2, lua_pushfstring(L, "element %I is not a finite number", i));
      unsigned char *at = (unsigned char *)packed + (size_t)(i - 1) * each;
      if (index) {
        double hi = index_bytes == 2 ? 65535.0 : 4294967295.0;
        if (v != floor(v) || v < 0 || v > hi)
          return luaL_argerror(L, 2, lua_pushfstring(L, "index %I is %f; indices are whole numbers in 0..%f", i, v,
                                                     hi));
        if (index_bytes == 2) { uint16_t u = (uint16_t)v; memcpy(at, &u, 2); }
        else { uint32_t u = (uint32_t)v; memcpy(at, &u, 4); }
      } else {
        if (fabs(v) > 3.4e38) return luaL_argerror(L, 2, lua_pushfstring(L, "element %I (%f) does not fit a float", i, v));
        float f = (float)v;
        memcpy(at, &f, 4);
      }
    }
    data = packed;
  } else {
    return luaL_argerror(L, 2, "expected the data (a string of bytes or a list of numbers) or a size in bytes");
  }
  if (index && size % index_bytes)
    return luaL_argerror(L, 2, lua_pushfstring(L, "%I bytes are not a whole number of %d-byte indices",
                                               (lua_Integer)size, (int)index_bytes));
  return push_buffer(L, dev, data, size, usage, index_bytes) ? 1 : 2;
}

/* buffer:info() -> {bytes, vertex, index, index_type, max_index, count} */
static int buf_info(lua_State *L) {
  lbuffer *m = check_buffer(L, 1);
  fg_lua_hold_gc(L);  /* no finalizer may close self while this reads it */
  lua_createtable(L, 0, 6);
  lua_pushinteger(L, (lua_Integer)m->b.buf.size); lua_setfield(L, -2, "bytes");
  lua_pushboolean(L, (m->b.usage & FG_VK_BUFFER_VERTEX) != 0); lua_setfield(L, -2, "vertex");
  lua_pushboolean(L, (m->b.usage & FG_VK_BUFFER_INDEX) != 0); lua_setfield(L, -2, "index");
  if (m->b.usage & FG_VK_BUFFER_INDEX) {
    int two = m->b.index_type == VK_INDEX_TYPE_UINT16;
    lua_pushstring(L, two ? "uint16" : "uint32"); lua_setfield(L, -2, "index_type");
    lua_pushinteger(L, m->b.max_index); lua_setfield(L, -2, "max_index");
    lua_pushinteger(L, (lua_Integer)(m->b.buf.size / (two ? 2 : 4))); lua_setfield(L, -2, "count");
  }
  return 1;
}

static int buf_tostring(lua_State *L) {
  lbuffer *m = fg_lua_checkudata(L, 1, FG_LUA_BUFFER);
  lua_pushfstring(L, "framegraph.buffer (%I bytes%s)", (lua_Integer)m->b.buf.size, m->dev ? "" : ", closed");
  return 1;
}

/* fg.image(dev, path [, {mips = bool, format = "rgba8_unorm" | "rgba8_srgb"}]) -> image | nil, message */
static int l_image(lua_State *L) {
  fg_vk_device *dev = fg_lua_checkdevice(L, 1);
  const char *path = fg_lua_checkname(L, 2, "path");
  static const char *const keys[] = {"mips", "format", NULL};
  check_opts(L, 3, "fg.image", keys);
  int mips = 0;
  fg_format f = fg_format_from_name("rgba8_unorm");
  if (lua_istable(L, 3)) {
    lua_getfield(L, 3, "mips");
    if (!lua_isnil(L, -1) && !lua_isboolean(L, -1)) luaL_error(L, "fg.image: opts.mips must be true or false");
    mips = lua_toboolean(L, -1);
    lua_pop(L, 1);
    lua_getfield(L, 3, "format");
    if (!lua_isnil(L, -1)) {
      const char *fn = plain_str(L, -1);
      if (strcmp(fn, "rgba8_unorm") && strcmp(fn, "rgba8_srgb"))
        luaL_error(L, "fg.image: opts.format must be \"rgba8_unorm\" (the file's values as they are) or "
                   "\"rgba8_srgb\" (decoded to linear when sampled)");
      f = fg_format_from_name(fn);
    }
    lua_pop(L, 1);
  }
  char err[768];
  uint32_t w = 0, h = 0;
  unsigned char *rgba = NULL;
  /* again, after the reads above (a finalizer they ran may have closed it);
   * nothing below runs Lua code before the image holds a reference */
  dev = fg_lua_checkdevice(L, 1);
  if (!fg_texture_read_png(&dev->hooks, path, &w, &h, &rgba, err, sizeof err)) {
    luaL_pushfail(L);
    lua_pushfstring(L, "fg.image: %s", err);
    return 2;
  }
  fg_vk_image img;
  int ok = fg_vk_texture_create(dev, rgba, w, h, f, mips, &img, err, sizeof err);
  fg_vk_free(dev, rgba);
  if (!ok) {
    luaL_pushfail(L);
    lua_pushfstring(L, "fg.image: %s: %s", path, err);
    return 2;
  }
  fg_lua_push_image(L, dev, &img, f, w, h);
  return 1;
}

/* ---- meshes ---- */

static int mesh_close(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_getfield(L, 1, "indices");
  if (luaL_testudata(L, -1, FG_LUA_BUFFER)) { lua_pushcfunction(L, buf_close); lua_insert(L, -2); lua_call(L, 1, 0); }
  else lua_pop(L, 1);
  lua_getfield(L, 1, "vertices");
  if (lua_istable(L, -1))
    for (int i = 0; i < 3; i++) {
      lua_geti(L, -1, i);
      if (luaL_testudata(L, -1, FG_LUA_BUFFER)) { lua_pushcfunction(L, buf_close); lua_insert(L, -2); lua_call(L, 1, 0); }
      else lua_pop(L, 1);
    }
  return 0;
}

static void set_vec3(lua_State *L, int t, const float v[3], const char *key) {
  lua_createtable(L, 3, 0);
  for (int k = 0; k < 3; k++) { lua_pushnumber(L, v[k]); lua_rawseti(L, -2, k + 1); }
  lua_setfield(L, t, key);
}

/* The loaded glTF data while fg.mesh makes its buffers: in a to-be-closed
 * box, so that a raise on the way (a finalizer run by an allocation that
 * closed the device, out of memory) frees it too. Never reaches Lua code. */
#define FG_LUA_MESH_DATA "framegraph.mesh_data"
static int mesh_data_free(lua_State *L) {
  fg_mesh_data *m = luaL_checkudata(L, 1, FG_LUA_MESH_DATA);
  fg_mesh_data_free(m);
  memset(m, 0, sizeof *m);
  return 0;
}

/* fg.mesh(dev, path) -> {indices = buffer, count, vertices = {[0] = positions, [1] = normals, [2] = uvs},
 * vertex_count, min, max} | nil, message */
static int l_mesh(lua_State *L) {
  fg_vk_device *dev = fg_lua_checkdevice(L, 1);
  const char *path = fg_lua_checkname(L, 2, "path");
  if (!lua_isnoneornil(L, 3)) return luaL_argerror(L, 3, "fg.mesh takes no options");
  char err[768];
  lua_settop(L, 2);
  fg_mesh_data *m = lua_newuserdatauv(L, sizeof *m, 0);  /* 3: the data's box */
  memset(m, 0, sizeof *m);
  luaL_setmetatable(L, FG_LUA_MESH_DATA);
  lua_toclose(L, 3);
  /* the device again: the box's allocation may have run a finalizer that closed it */
  if (fg_lua_todevice(L, 1) != dev) dev = fg_lua_checkdevice(L, 1);
  if (!fg_gltf_load_with(&dev->hooks, path, m, err, sizeof err)) {
    luaL_pushfail(L);
    lua_pushfstring(L, "fg.mesh: %s", err);
    return 2;
  }
  lua_createtable(L, 0, 6);  /* 4: the mesh */
  luaL_setmetatable(L, FG_LUA_MESH);
  size_t n = m->vertex_count;
  const struct { const void *data; size_t bytes; } streams[3] = {
    {m->positions, n * 12}, {m->normals, n * 12}, {m->uvs, n * 8}};
  lua_createtable(L, 0, 3);  /* 5: vertices */
  lua_pushvalue(L, -1);
  lua_setfield(L, 4, "vertices");
  int ok = push_buffer(L, dev, m->indices, (size_t)m->index_count * 4, FG_VK_BUFFER_INDEX, 4);
  if (ok) lua_setfield(L, 4, "indices");
  for (int i = 0; i < 3 && ok; i++) {
    ok = push_buffer(L, dev, streams[i].data, streams[i].bytes, FG_VK_BUFFER_VERTEX, 4);
    if (ok) lua_rawseti(L, 5, i);
  }
  lua_pushinteger(L, m->index_count); lua_setfield(L, 4, "count");
  lua_pushinteger(L, m->vertex_count); lua_setfield(L, 4, "vertex_count");
  set_vec3(L, 4, m->min, "min");
  set_vec3(L, 4, m->max, "max");
  if (!ok) {  /* device memory: the message on top; free what was made */
    int msg = lua_gettop(L);
    lua_pushcfunction(L, mesh_close);
    lua_pushvalue(L, 4);
    lua_call(L, 1, 0);
    luaL_pushfail(L);
    lua_pushfstring(L, "fg.mesh: %s: %s", path, lua_tostring(L, msg));
    return 2;
  }
  lua_pushvalue(L, 4);
  return 1;  /* the box is closed on return: the data freed */
}

static int mesh_tostring(lua_State *L) {
  lua_getfield(L, 1, "count");
  lua_getfield(L, 1, "vertex_count");
  lua_pushfstring(L, "framegraph.mesh (%I indices, %I vertices)", lua_tointeger(L, -2), lua_tointeger(L, -1));
  return 1;
}

void fg_lua_open_content(lua_State *L) {
  static const luaL_Reg buf_meta[] = {{"__gc", buf_close}, {"__close", buf_close}, {"__tostring", buf_tostring},
                                      {NULL, NULL}};
  static const luaL_Reg buf_methods[] = {{"close", buf_close}, {"info", buf_info}, {NULL, NULL}};
  fg_lua_newclass(L, FG_LUA_BUFFER, buf_meta, buf_methods);
  static const luaL_Reg mesh_meta[] = {{"__close", mesh_close}, {"__tostring", mesh_tostring}, {NULL, NULL}};
  static const luaL_Reg mesh_methods[] = {{"close", mesh_close}, {NULL, NULL}};
  fg_lua_newclass(L, FG_LUA_MESH, mesh_meta, mesh_methods);
  static const luaL_Reg data_meta[] = {{"__close", mesh_data_free}, {"__gc", mesh_data_free}, {NULL, NULL}};
  luaL_newmetatable(L, FG_LUA_MESH_DATA);
  luaL_setfuncs(L, data_meta, 0);
  lua_pop(L, 1);
  lua_pushcfunction(L, l_buffer);
  lua_setfield(L, -2, "buffer");
  lua_pushcfunction(L, l_image);
  lua_setfield(L, -2, "image");
  lua_pushcfunction(L, l_mesh);
  lua_setfield(L, -2, "mesh");
  lua_pushboolean(L, fg_gltf_available());
  lua_setfield(L, -2, "gltf");
}
