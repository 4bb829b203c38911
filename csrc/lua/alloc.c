/* Lua binding of the sub-allocators (fg.allocator) and of the Vulkan memory
 * pool (dev:memory_pool). One metatable per type with an __index method table;
 * __gc and __close release; close is idempotent. Misuse raises; running out of
 * space returns nil, message. */
#include "fg_lua.h"
#include "fg_alloc.h"
#include "fg_vk_mem.h"
#include <string.h>

#define FG_LUA_ALLOCATOR "framegraph.allocator"
#define FG_LUA_MEMPOOL "framegraph.memory_pool"
#define FG_LUA_MEMORY "framegraph.memory"

/* ---------------- fg.allocator ---------------- */
typedef struct lalloc { fg_allocator *a; } lalloc;

static fg_allocator *check_alloc(lua_State *L) {
  lalloc *u = luaL_checkudata(L, 1, FG_LUA_ALLOCATOR);
  if (!u->a) luaL_error(L, "allocator is closed");
  return u->a;
}

static uint64_t opt_field_u64(lua_State *L, int t, const char *name, int argn) {
  if (lua_isnoneornil(L, t)) return 0;
  lua_getfield(L, t, name);
  uint64_t v = 0;
  if (!lua_isnil(L, -1)) {
    int isint = 0;
    lua_Integer i = lua_tointegerx(L, -1, &isint);
    if (!isint || i < 0) {
      lua_pop(L, 1);
      luaL_argerror(L, argn, lua_pushfstring(L, "opts.%s must be a non-negative integer", name));
    }
    v = (uint64_t)i;
  }
  lua_pop(L, 1);
  return v;
}

static int opt_field_bool(lua_State *L, int t, const char *name, int dflt) {
  if (lua_isnoneornil(L, t)) return dflt;
  lua_getfield(L, t, name);
  int v = lua_isnil(L, -1) ? dflt : lua_toboolean(L, -1);
  lua_pop(L, 1);
  return v;
}

/* Raises on a key of the options table at t that is not in `allowed`. */
static void check_keys(lua_State *L, int t, int argn, const char *const *allowed, const char *list) {
  if (lua_isnoneornil(L, t)) return;
  lua_pushnil(L);
  while (lua_next(L, t)) {
    lua_pop(L, 1);
    int ok = 0;
    if (lua_type(L, -1) == LUA_TSTRING)
      for (const char *const *a = allowed; *a; a++)
        if (strcmp(lua_tostring(L, -1), *a) == 0) ok = 1;
    if (!ok) {
      const char *k = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : luaL_typename(L, -1);
      luaL_argerror(L, argn, lua_pushfstring(L, "unknown option '%s' (known: %s)", k, list));
    }
  }
}

static int l_allocator(lua_State *L) {
  const char *kname = luaL_checkstring(L, 1);
  int kind = fg_alloc_kind_parse(kname);
  if (kind < 0)
    return luaL_argerror(L, 1, lua_pushfstring(L, "unknown allocator kind '%s' (use tlsf, buddy, slab, linear, ring or freelist)", kname));
  lua_Integer cap = luaL_checkinteger(L, 2);
  if (cap <= 0) return luaL_argerror(L, 2, "capacity must be a positive integer");
  if (!lua_isnoneornil(L, 3)) luaL_checktype(L, 3, LUA_TTABLE);
  static const char *const keys[] = { "block", "granularity", NULL };
  check_keys(L, 3, 3, keys, "block, granularity");
  uint64_t block = opt_field_u64(L, 3, "block", 3);
  uint64_t gran = opt_field_u64(L, 3, "granularity", 3);
  lalloc *u = lua_newuserdatauv(L, sizeof *u, 0);
  u->a = NULL;
  luaL_setmetatable(L, FG_LUA_ALLOCATOR);
  char err[256];
  fg_alloc_desc d = { (fg_alloc_kind)kind, (uint64_t)cap, block, NULL, gran };
  u->a = fg_allocator_create(&d, err, sizeof err);
  if (!u->a) return luaL_argerror(L, kind == FG_ALLOC_SLAB || kind == FG_ALLOC_BUDDY || gran ? 3 : 2, err);
  return 1;
}

static int a_alloc(lua_State *L) {
  fg_allocator *a = check_alloc(L);
  lua_Integer size = luaL_checkinteger(L, 2);
  lua_Integer align = luaL_optinteger(L, 3, 1);
  if (size <= 0) return luaL_argerror(L, 2, "size must be a positive integer");
  if (align <= 0) return luaL_argerror(L, 3, "alignment must be a positive integer");
  fg_alloc_kind k = fg_allocator_kind(a);
  if ((k == FG_ALLOC_BUDDY || k == FG_ALLOC_SLAB) && (align & (align - 1)))
    return luaL_argerror(L, 3, lua_pushfstring(L, "%s alignment must be a power of two, got %I", fg_alloc_kind_name(k), align));
  char err[256];
  uint64_t off = fg_allocator_alloc_err(a, (uint64_t)size, (uint64_t)align, err, sizeof err);
  if (off == FG_ALLOC_FAIL) {
    if (k == FG_ALLOC_SLAB && strstr(err, "slot size")) return luaL_argerror(L, size > 0 && strstr(err, "exceeds") ? 2 : 3, err);
    lua_pushnil(L);
    lua_pushstring(L, err);
    return 2;
  }
  lua_pushinteger(L, (lua_Integer)off);
  return 1;
}

static int a_free(lua_State *L) {
  fg_allocator *a = check_alloc(L);
  lua_Integer off = luaL_checkinteger(L, 2);
  if (off < 0 || fg_allocator_free(a, (uint64_t)off))
    return luaL_error(L, "free: offset %I is not a live allocation of this %s allocator (freed twice, or never allocated)",
                      off, fg_alloc_kind_name(fg_allocator_kind(a)));
  return 0;
}

static int a_size(lua_State *L) {
  fg_allocator *a = check_alloc(L);
  lua_Integer off = luaL_checkinteger(L, 2);
  uint64_t s = off < 0 ? 0 : fg_allocator_size(a, (uint64_t)off);
  if (s) lua_pushinteger(L, (lua_Integer)s);
  else lua_pushnil(L);
  return 1;
}

static void set_int(lua_State *L, const char *k, uint64_t v) { lua_pushinteger(L, (lua_Integer)v); lua_setfield(L, -2, k); }
static void set_num(lua_State *L, const char *k, double v) { lua_pushnumber(L, v); lua_setfield(L, -2, k); }

static int a_stats(lua_State *L) {
  fg_allocator *a = check_alloc(L);
  fg_alloc_stats s;
  fg_allocator_stats(a, &s);
  lua_createtable(L, 0, 7);
  lua_pushstring(L, fg_alloc_kind_name(fg_allocator_kind(a)));
  lua_setfield(L, -2, "kind");
  set_int(L, "capacity", s.capacity);
  set_int(L, "used", s.used);
  set_int(L, "free", s.free);
  set_int(L, "largest_free", s.largest_free);
  set_int(L, "allocations", s.allocations);
  set_num(L, "fragmentation", s.fragmentation);
  return 1;
}

static int a_reset(lua_State *L) { fg_allocator_reset(check_alloc(L)); return 0; }

static int a_validate(lua_State *L) {
  char err[256];
  if (fg_allocator_validate(check_alloc(L), err, sizeof err)) {
    lua_pushboolean(L, 0);
    lua_pushstring(L, err);
    return 2;
  }
  lua_pushboolean(L, 1);
  return 1;
}

static int a_kind(lua_State *L) { lua_pushstring(L, fg_alloc_kind_name(fg_allocator_kind(check_alloc(L)))); return 1; }

static int a_close(lua_State *L) {
  lalloc *u = luaL_checkudata(L, 1, FG_LUA_ALLOCATOR);
  fg_allocator_destroy(u->a);
  u->a = NULL;
  return 0;
}

static int a_tostring(lua_State *L) {
  lalloc *u = luaL_checkudata(L, 1, FG_LUA_ALLOCATOR);
  if (!u->a) { lua_pushliteral(L, "framegraph.allocator (closed)"); return 1; }
  fg_alloc_stats s;
  fg_allocator_stats(u->a, &s);
  lua_pushfstring(L, "framegraph.allocator (%s, %I of %I used)", fg_alloc_kind_name(fg_allocator_kind(u->a)),
                  (lua_Integer)s.used, (lua_Integer)s.capacity);
  return 1;
}

static const luaL_Reg alloc_methods[] = {
  {"alloc", a_alloc}, {"free", a_free}, {"size", a_size}, {"stats", a_stats}, {"reset", a_reset},
  {"validate", a_validate}, {"kind", a_kind}, {"close", a_close}, {NULL, NULL}
};
static const luaL_Reg alloc_meta[] = {
  {"__gc", a_close}, {"__close", a_close}, {"__tostring", a_tostring}, {NULL, NULL}
};

/* ---------------- dev:memory_pool ---------------- */
typedef struct lpool { fg_vk_mempool *p; } lpool;
typedef struct lmem { fg_vk_allocation a; lpool *pool; } lmem; /* uservalue 1 = the pool userdata */

static lpool *check_pool(lua_State *L) {
  lpool *u = luaL_checkudata(L, 1, FG_LUA_MEMPOOL);
  if (!u->p) luaL_error(L, "memory pool is closed");
  return u;
}

static int l_memory_pool(lua_State *L) {
  fg_vk_device *dev = fg_lua_checkdevice(L, 1);
  if (!lua_isnoneornil(L, 2)) luaL_checktype(L, 2, LUA_TTABLE);
  static const char *const keys[] = { "block_size", "dedicated_min", "slab_max", "keep_empty", "dedicated_cache",
                                      "externally_synchronized", NULL };
  check_keys(L, 2, 2, keys, "block_size, dedicated_min, slab_max, keep_empty, dedicated_cache, externally_synchronized");
  fg_vk_mempool_desc d = {
    .block_size = opt_field_u64(L, 2, "block_size", 2), .dedicated_min = opt_field_u64(L, 2, "dedicated_min", 2),
    .slab_max = opt_field_u64(L, 2, "slab_max", 2), .keep_empty = (uint32_t)opt_field_u64(L, 2, "keep_empty", 2),
    .dedicated_cache = (uint32_t)opt_field_u64(L, 2, "dedicated_cache", 2),
    .externally_synchronized = opt_field_bool(L, 2, "externally_synchronized", 0) };
  lpool *u = lua_newuserdatauv(L, sizeof *u, 0);
  u->p = NULL;
  luaL_setmetatable(L, FG_LUA_MEMPOOL);
  char err[256];
  u->p = fg_vk_mempool_create(dev, &d, err, sizeof err);
  if (!u->p) return luaL_argerror(L, 2, err);
  return 1;
}

static int p_alloc(lua_State *L) {
  lpool *u = check_pool(L);
  lua_Integer size = luaL_checkinteger(L, 2);
  if (size <= 0) return luaL_argerror(L, 2, "size must be a positive integer");
  if (!lua_isnoneornil(L, 3)) luaL_checktype(L, 3, LUA_TTABLE);
  static const char *const keys[] = { "align", "host_visible", "device_local", "optimal", "dedicated", "memory_type_bits", NULL };
  check_keys(L, 3, 3, keys, "align, host_visible, device_local, optimal, dedicated, memory_type_bits");
  uint64_t align = opt_field_u64(L, 3, "align", 3);
  if (align & (align - 1)) return luaL_argerror(L, 3, "opts.align must be a power of two");
  int host = opt_field_bool(L, 3, "host_visible", 0);
  fg_vk_mem_request rq = {.size = (uint64_t)size, .alignment = align};
  rq.memory_type_bits = (uint32_t)opt_field_u64(L, 3, "memory_type_bits", 3);
  fg_vk_mem_request_flags(&rq, host, opt_field_bool(L, 3, "device_local", !host));
  rq.optimal = opt_field_bool(L, 3, "optimal", 0);
  rq.dedicated = opt_field_bool(L, 3, "dedicated", 0);
  lmem *m = lua_newuserdatauv(L, sizeof *m, 1);
  memset(m, 0, sizeof *m);
  luaL_setmetatable(L, FG_LUA_MEMORY);
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, 1);
  char err[256];
  int r = fg_vk_mem_result(fg_vk_mem_alloc(u->p, &rq, &m->a, err, sizeof err));
  if (r == 1) return luaL_argerror(L, 3, err);
  if (r) {
    lua_pushnil(L);
    lua_pushstring(L, err);
    return 2;
  }
  m->pool = u;
  return 1;
}

static int p_free(lua_State *L) {
  check_pool(L);
  lmem *m = luaL_checkudata(L, 2, FG_LUA_MEMORY);
  if (!m->pool) return luaL_argerror(L, 2, "memory already freed");
  if (m->pool != lua_touserdata(L, 1)) return luaL_argerror(L, 2, "memory belongs to another pool");
  fg_vk_mem_free(m->pool->p, &m->a);
  m->pool = NULL;
  return 0;
}

static int p_stats(lua_State *L) {
  lpool *u = check_pool(L);
  fg_vk_mem_stats s;
  fg_vk_mempool_stats(u->p, &s);
  lua_createtable(L, 0, 12);
  set_int(L, "device_bytes", s.device_bytes);
  set_int(L, "device_memories", s.device_memories);
  set_int(L, "used", s.used_bytes);
  set_int(L, "allocations", s.allocations);
  set_int(L, "slab", s.slab);
  set_int(L, "tlsf", s.tlsf);
  set_int(L, "dedicated", s.dedicated);
  set_int(L, "dedicated_cached", s.dedicated_cached);
  set_int(L, "device_allocs", s.device_allocs);
  set_int(L, "device_frees", s.device_frees);
  set_num(L, "fragmentation", s.fragmentation);
  return 1;
}

static int p_trim(lua_State *L) { fg_vk_mempool_trim(check_pool(L)->p); return 0; }

static int p_validate(lua_State *L) {
  char err[256];
  if (fg_vk_mempool_validate(check_pool(L)->p, err, sizeof err)) {
    lua_pushboolean(L, 0);
    lua_pushstring(L, err);
    return 2;
  }
  lua_pushboolean(L, 1);
  return 1;
}

/* Closing the pool frees all its device memory; memories still held become
 * inert (their free does nothing). */
static int p_close(lua_State *L) {
  lpool *u = luaL_checkudata(L, 1, FG_LUA_MEMPOOL);
  fg_vk_mempool_destroy(u->p);
  u->p = NULL;
  return 0;
}

static int p_tostring(lua_State *L) {
  lpool *u = luaL_checkudata(L, 1, FG_LUA_MEMPOOL);
  if (!u->p) { lua_pushliteral(L, "framegraph.memory_pool (closed)"); return 1; }
  fg_vk_mem_stats s;
  fg_vk_mempool_stats(u->p, &s);
  lua_pushfstring(L, "framegraph.memory_pool (%I allocations, %I device bytes)", (lua_Integer)s.allocations,
                  (lua_Integer)s.device_bytes);
  return 1;
}

static const luaL_Reg pool_methods[] = {
  {"alloc", p_alloc}, {"free", p_free}, {"stats", p_stats}, {"trim", p_trim}, {"validate", p_validate},
  {"close", p_close}, {NULL, NULL}
};
static const luaL_Reg pool_meta[] = {
  {"__gc", p_close}, {"__close", p_close}, {"__tostring", p_tostring}, {NULL, NULL}
};

static lmem *check_mem(lua_State *L) {
  lmem *m = luaL_checkudata(L, 1, FG_LUA_MEMORY);
  if (!m->pool) luaL_error(L, "memory is freed");
  if (!m->pool->p) luaL_error(L, "memory's pool is closed");
  return m;
}

static int m_free(lua_State *L) {
  lmem *m = luaL_checkudata(L, 1, FG_LUA_MEMORY);
  if (m->pool && m->pool->p) fg_vk_mem_free(m->pool->p, &m->a);
  m->pool = NULL;
  return 0;
}

static const char *kind_str(fg_vk_mem_kind k) {
  return k == FG_VK_MEM_SLAB ? "slab" : k == FG_VK_MEM_TLSF ? "tlsf" : "dedicated";
}

static int m_info(lua_State *L) {
  lmem *m = check_mem(L);
  lua_createtable(L, 0, 6);
  set_int(L, "memory_type", m->a.memory_type);
  set_int(L, "offset", m->a.offset);
  set_int(L, "size", m->a.size);
  lua_pushstring(L, kind_str(m->a.kind));
  lua_setfield(L, -2, "kind");
  lua_pushboolean(L, m->a.mapped != NULL);
  lua_setfield(L, -2, "mapped");
  lua_pushfstring(L, "%p", (void *)m->a.memory);
  lua_setfield(L, -2, "memory");
  return 1;
}

/* Bounds of [off, off+len) inside the allocation (1-based offset argument). */
static size_t span_check(lua_State *L, lmem *m, int arg, size_t len) {
  lua_Integer off = luaL_optinteger(L, arg, 0);
  if (!m->a.mapped) luaL_error(L, "memory is not host-visible: allocate it with {host_visible = true}");
  if (off < 0 || (uint64_t)off > m->a.size || len > m->a.size - (uint64_t)off)
    luaL_argerror(L, arg, lua_pushfstring(L, "range [%I, %I) is outside the %I-byte allocation", off,
                                          off + (lua_Integer)len, (lua_Integer)m->a.size));
  return (size_t)off;
}

static int m_write(lua_State *L) {
  lmem *m = check_mem(L);
  size_t len;
  const char *s = luaL_checklstring(L, 2, &len);
  size_t off = span_check(L, m, 3, len);
  memcpy((char *)m->a.mapped + off, s, len);
  return 0;
}

static int m_read(lua_State *L) {
  lmem *m = check_mem(L);
  lua_Integer len = luaL_checkinteger(L, 2);
  if (len < 0) return luaL_argerror(L, 2, "length must be >= 0");
  size_t off = span_check(L, m, 3, (size_t)len);
  lua_pushlstring(L, (const char *)m->a.mapped + off, (size_t)len);
  return 1;
}

static const luaL_Reg mem_methods[] = {
  {"free", m_free}, {"info", m_info}, {"write", m_write}, {"read", m_read}, {NULL, NULL}
};
static const luaL_Reg mem_meta[] = { {"__gc", m_free}, {"__close", m_free}, {NULL, NULL} };

void fg_lua_open_alloc(lua_State *L) {
  fg_lua_newclass(L, FG_LUA_ALLOCATOR, alloc_meta, alloc_methods);
  fg_lua_newclass(L, FG_LUA_MEMPOOL, pool_meta, pool_methods);
  fg_lua_newclass(L, FG_LUA_MEMORY, mem_meta, mem_methods);
  lua_pushcfunction(L, l_allocator);
  lua_setfield(L, -2, "allocator");
  /* dev:memory_pool(opts), on the device metatable registered by vk.c */
  if (luaL_getmetatable(L, FG_LUA_DEVICE) == LUA_TTABLE) {
    lua_getfield(L, -1, "__index");
    if (lua_istable(L, -1)) {
      lua_pushcfunction(L, l_memory_pool);
      lua_setfield(L, -2, "memory_pool");
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}
