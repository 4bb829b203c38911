/* Lua binding of the sub-allocators (fg.allocator) and of the Vulkan memory
 * pool (dev:memory_pool). One metatable per type with an __index method table;
 * __gc and __close release; close is idempotent. Misuse raises; running out of
 * space returns nil, message. */
#include "fg_lua.h"
#include "fg_alloc.h"
#include "fg_vk_mem.h"
#include <stdlib.h>
#include <string.h>

#define FG_LUA_ALLOCATOR "framegraph.allocator"
#define FG_LUA_MEMPOOL "framegraph.memory_pool"
#define FG_LUA_MEMORY "framegraph.memory"

/* ---------------- fg.allocator ---------------- */
/* uservalue 1: handle id -> the Lua user value of that allocation */
/* salt: XORed into every handle id Lua sees. Ids alone are small integers
 * (an offset, or a record index and generation) that another allocator's
 * handle can equal, so a:free_handle(b's handle) freed one of a's
 * allocations; salted, a foreign handle decodes to an id that is not live
 * (bits 40..62: the id's low bits and the sign stay as they were). */
typedef struct lalloc { fg_allocator *a; uint64_t salt; } lalloc;
static uint64_t next_salt(void) {
  static uint32_t n;
  uint64_t s = (uint64_t)(((++n) * 0x9E3779B1u) & 0x7FFFFFu) << 40;  /* odd multiplier: distinct for 2^23 in a row */
  return s ? s : (uint64_t)1 << 40;
}
static lua_Integer to_lua_handle(lua_State *L, uint64_t id) {
  return (lua_Integer)(id ^ ((lalloc *)lua_touserdata(L, 1))->salt);
}

static fg_allocator *check_alloc(lua_State *L) {
  lalloc *u = fg_lua_checkudata(L, 1, FG_LUA_ALLOCATOR);
  if (!u->a) luaL_error(L, "allocator is closed");
  return u->a;
}

static uint64_t opt_field_u64(lua_State *L, int t, const char *name, int argn) {
  if (lua_isnoneornil(L, t)) return 0;
  lua_getfield(L, t, name);
  uint64_t v = 0;
  if (!lua_isnil(L, -1)) {
    int isint = 0;  /* numbers only: lua_tointegerx would take "16" */
    lua_Integer i = fg_lua_tointx(L, -1, &isint);
    if (!isint || i < 0) {
      lua_pop(L, 1);
      luaL_argerror(L, argn, lua_pushfstring(L, "opts.%s must be a non-negative integer", name));
    }
    v = (uint64_t)i;
  }
  lua_pop(L, 1);
  return v;
}

/* opts.<name> as a uint32_t: a larger value must not wrap through the cast */
static uint32_t opt_field_u32(lua_State *L, int t, const char *name, int argn) {
  uint64_t v = opt_field_u64(L, t, name, argn);
  if (v > UINT32_MAX) luaL_argerror(L, argn, lua_pushfstring(L, "opts.%s must be an integer in 0..4294967295, got %I",
                                                            name, (lua_Integer)v));
  return (uint32_t)v;
}

/* opts.<name> as a boolean: {host_visible = "no"} would be true by Lua's
 * truth, so anything but true, false or nil is refused */
static int opt_field_bool(lua_State *L, int t, const char *name, int dflt) {
  if (lua_isnoneornil(L, t)) return dflt;
  lua_getfield(L, t, name);
  if (!lua_isnil(L, -1) && !lua_isboolean(L, -1)) {
    int argn = t;
    luaL_argerror(L, argn, lua_pushfstring(L, "opts.%s must be true or false, got a %s", name, luaL_typename(L, -1)));
  }
  int v = lua_isnil(L, -1) ? dflt : lua_toboolean(L, -1);
  lua_pop(L, 1);
  return v;
}

/* Raises on a key of the options table at t that is not in `allowed`. */
static void check_keys(lua_State *L, int t, int argn, const char *const *allowed, const char *list) {
  if (lua_istable(L, t) && lua_getmetatable(L, t))
    luaL_argerror(L, argn, "options must be a plain table, this one has a metatable (its metamethods would run "
                           "inside the call)");
  if (lua_isnoneornil(L, t) || !fg_lua_unknown_key(L, t, allowed)) return;
  const char *k = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : luaL_typename(L, -1);
  luaL_argerror(L, argn, lua_pushfstring(L, "unknown option '%s' (known: %s)", k, list));
}

static int l_allocator(lua_State *L) {
  size_t klen = 0;
  const char *kname = luaL_checklstring(L, 1, &klen);
  if (strlen(kname) != klen)  /* "tlsf\0x" is no kind */
    return luaL_argerror(L, 1, lua_pushfstring(L, "allocator kind '%s\\0...' holds a NUL byte; names cannot contain NUL", kname));
  int kind = fg_alloc_kind_parse(kname);
  if (kind < 0)
    return luaL_argerror(L, 1, lua_pushfstring(L, "unknown allocator kind '%s' (use tlsf, buddy, slab, linear, ring or freelist)", kname));
  lua_Integer cap = fg_lua_checkint(L, 2);
  if (cap <= 0) return luaL_argerror(L, 2, "capacity must be a positive integer");
  if (!lua_isnoneornil(L, 3)) luaL_checktype(L, 3, LUA_TTABLE);
  static const char *const keys[] = { "block", "granularity", "max_allocations", NULL };
  check_keys(L, 3, 3, keys, "block, granularity, max_allocations");
  uint64_t block = opt_field_u64(L, 3, "block", 3);
  uint64_t gran = opt_field_u64(L, 3, "granularity", 3);
  uint64_t maxa = opt_field_u64(L, 3, "max_allocations", 3);
  if (maxa > (1u << 29)) return luaL_argerror(L, 3, "opts.max_allocations must be at most 2^29");
  lalloc *u = lua_newuserdatauv(L, sizeof *u, 1);
  u->a = NULL;
  u->salt = next_salt();
  luaL_setmetatable(L, FG_LUA_ALLOCATOR);
  lua_newtable(L);
  lua_setiuservalue(L, -2, 1);
  char err[256];
  fg_alloc_desc d = { .kind = (fg_alloc_kind)kind, .capacity = (uint64_t)cap, .block = block, .granularity = gran,
                      .max_allocations = (uint32_t)maxa };
  u->a = fg_allocator_create(&d, err, sizeof err);
  if (!u->a && strstr(err, "out of host memory")) { /* a failure of the world, not misuse: nil, message */
    lua_pushnil(L);
    lua_pushfstring(L, "fg.allocator(%s, %I): %s (its bookkeeping for that capacity and options)", kname,
                    (lua_Integer)cap, err);
    return 2;
  }
  if (!u->a) return luaL_argerror(L, kind == FG_ALLOC_SLAB || kind == FG_ALLOC_BUDDY || gran || maxa ? 3 : 2, err);
  return 1;
}

/* users[id] = value at the top (popped); nil clears */
static void set_user(lua_State *L, uint64_t id) {
  lua_getiuservalue(L, 1, 1);
  lua_pushinteger(L, (lua_Integer)id);
  lua_pushvalue(L, -3);
  lua_settable(L, -3);
  lua_pop(L, 2);
}

/* The request of a:alloc and a:allocate: size (arg 2) and alignment (arg 3),
 * with one rule and one message for every kind (and fg.pack); raises on misuse. */
static void check_request(lua_State *L, fg_allocator *a, lua_Integer *size, lua_Integer *align) {
  *size = fg_lua_checkint(L, 2);
  *align = fg_lua_optint(L, 3, 1);
  if (*size <= 0) luaL_argerror(L, 2, "size must be a positive integer");
  if (*align <= 0) luaL_argerror(L, 3, "alignment must be a positive integer");
  if (*align & (*align - 1)) {
    char err[256];
    snprintf(err, sizeof err, "%s: " FG_ALLOC_ALIGN_MSG, fg_alloc_kind_name(fg_allocator_kind(a)),
             (unsigned long long)*align);
    luaL_argerror(L, 3, err);
  }
}

static int a_alloc(lua_State *L) {
  fg_allocator *a = check_alloc(L);
  lua_Integer size, align;
  check_request(L, a, &size, &align);
  lua_settop(L, 4);  /* the user value at 4 (nil: none), the guard above it */
  fg_lua_hold_gc(L);  /* no finalizer may close self while this reads it */
  fg_alloc_kind k = fg_allocator_kind(a);
  char err[256];
  uint64_t off = fg_allocator_alloc_err(a, (uint64_t)size, (uint64_t)align, err, sizeof err);
  if (off == FG_ALLOC_FAIL) {
    if (k == FG_ALLOC_SLAB && strstr(err, "slot size")) return luaL_argerror(L, size > 0 && strstr(err, "exceeds") ? 2 : 3, err);
    lua_pushnil(L);
    lua_pushstring(L, err);
    return 2;
  }
  if (!lua_isnoneornil(L, 4)) {
    fg_alloc_handle h;
    uint64_t id = fg_allocator_handle_at(a, off, &h) ? fg_alloc_handle_id(&h) : off;  /* raw: the user table's key */
    lua_pushvalue(L, 4);
    set_user(L, id);
  }
  lua_pushinteger(L, (lua_Integer)off);
  return 1;
}

/* a:allocate(size [, align [, user]]) -> handle, offset | nil, message: the
 * handle path (no offset map); free it with a:free_handle(handle). */
static int a_allocate(lua_State *L) {
  fg_allocator *a = check_alloc(L);
  lua_Integer size, align;
  check_request(L, a, &size, &align);
  lua_settop(L, 4);  /* the user value at 4 (nil: none), the guard above it */
  fg_lua_hold_gc(L);  /* no finalizer may close self while this reads it */
  fg_alloc_kind k = fg_allocator_kind(a);
  char err[256];
  if (k == FG_ALLOC_SLAB) { /* requests no slot can take are mistakes, as in alloc */
    uint64_t probe = fg_allocator_alloc_err(a, (uint64_t)size, (uint64_t)align, err, sizeof err);
    if (probe != FG_ALLOC_FAIL) fg_allocator_free(a, probe);
    else if (strstr(err, "slot size")) return luaL_argerror(L, strstr(err, "exceeds") ? 2 : 3, err);
  }
  fg_alloc_handle h;
  if (fg_allocator_alloc_h(a, (uint64_t)size, (uint64_t)align, 0, &h)) {
    fg_alloc_stats st;
    fg_allocator_stats(a, &st);
    lua_pushnil(L);
    lua_pushfstring(L, "%s: out of space for %I units (align %I): %I of %I used", fg_alloc_kind_name(k), size, align,
                    (lua_Integer)st.used, (lua_Integer)st.capacity);
    return 2;
  }
  uint64_t id = fg_alloc_handle_id(&h);
  if (!lua_isnoneornil(L, 4)) {
    lua_pushvalue(L, 4);
    set_user(L, id);
  }
  lua_pushinteger(L, to_lua_handle(L, id));
  lua_pushinteger(L, (lua_Integer)h.offset);
  return 2;
}

static int a_free(lua_State *L) {
  fg_allocator *a = check_alloc(L);
  lua_Integer off = fg_lua_checkint(L, 2);
  fg_alloc_handle h;
  int known = off >= 0 && fg_allocator_handle_at(a, (uint64_t)off, &h);
  if (!known || fg_allocator_free(a, (uint64_t)off))
    return luaL_error(L, "free: offset %I is not a live allocation of this %s allocator (freed twice, never "
                      "allocated, or made by a:allocate: free that with a:free_handle)",
                      off, fg_alloc_kind_name(fg_allocator_kind(a)));
  lua_pushnil(L);
  set_user(L, fg_alloc_handle_id(&h));
  return 0;
}

/* The handle (second result of alloc) -> the allocation, or a raised error. */
static fg_alloc_handle check_handle(lua_State *L, fg_allocator *a, int arg) {
  lua_Integer id = fg_lua_checkint(L, arg);
  fg_alloc_handle h;
  if (!fg_allocator_handle_from_id(a, (uint64_t)id ^ ((lalloc *)lua_touserdata(L, 1))->salt, &h))
    luaL_argerror(L, arg, lua_pushfstring(L, "handle %I is not a live allocation of this %s allocator "
                                             "(freed, reset, or another allocator's)", id,
                                          fg_alloc_kind_name(fg_allocator_kind(a))));
  return h;
}

static int a_free_handle(lua_State *L) {
  fg_allocator *a = check_alloc(L);
  fg_alloc_handle h = check_handle(L, a, 2);
  uint64_t id = fg_alloc_handle_id(&h);
  if (fg_allocator_free_h(a, &h)) return luaL_argerror(L, 2, "handle is not live");
  lua_pushnil(L);
  set_user(L, id);
  return 0;
}

static int a_user(lua_State *L) {
  int set = lua_gettop(L) >= 3;
  fg_allocator *a = check_alloc(L);
  fg_alloc_handle h = check_handle(L, a, 2);
  lua_getiuservalue(L, 1, 1);
  lua_rawgeti(L, -1, (lua_Integer)fg_alloc_handle_id(&h));
  if (set) { /* a:user(h, value) sets; returns the value before */
    lua_pushvalue(L, 3);
    lua_rawseti(L, -3, (lua_Integer)fg_alloc_handle_id(&h));
  }
  return 1;
}

static int a_handle(lua_State *L) {
  fg_allocator *a = check_alloc(L);
  lua_Integer off = fg_lua_checkint(L, 2);
  fg_alloc_handle h;
  if (off >= 0 && fg_allocator_handle_at(a, (uint64_t)off, &h)) lua_pushinteger(L, to_lua_handle(L, fg_alloc_handle_id(&h)));
  else lua_pushnil(L);
  return 1;
}

/* s made by a's hooks */
static int push_owned(lua_State *L, char *s, const fg_allocator *a) {
  if (!s) return luaL_error(L, "out of host memory");
  lua_pushstring(L, s);
  fg_allocator_free_result(a, s);
  return 1;
}

static int a_json(lua_State *L) {
  fg_allocator *a = check_alloc(L);
  fg_lua_hold_gc(L);  /* no finalizer may close self while this reads it */
  return push_owned(L, fg_allocator_json(a), a);
}

static int a_svg(lua_State *L) {
  fg_allocator *a = check_alloc(L);
  lua_Integer w = fg_lua_optint(L, 2, 800);
  if (w < 16 || w > 100000) return luaL_argerror(L, 2, "width must be 16 .. 100000 pixels");
  fg_lua_hold_gc(L);  /* no finalizer may close self while this reads it */
  return push_owned(L, fg_allocator_svg(a, (int)w), a);
}

/* {{offset =, to =, size =, handle =, user =}, ...}: moves in order */
static int a_defrag_plan(lua_State *L) {
  fg_allocator *a = check_alloc(L);
  fg_lua_hold_gc(L);  /* no finalizer may close self while this reads it */
  fg_defrag_move *mv;
  size_t n;
  if (fg_allocator_defrag_plan(a, &mv, &n)) return luaL_error(L, "out of host memory");
  lua_createtable(L, (int)n, 0);
  lua_getiuservalue(L, 1, 1);
  for (size_t i = 0; i < n; i++) {
    lua_createtable(L, 0, 5);
    lua_pushinteger(L, (lua_Integer)mv[i].src_offset);
    lua_setfield(L, -2, "offset");
    lua_pushinteger(L, (lua_Integer)mv[i].dst_offset);
    lua_setfield(L, -2, "to");
    lua_pushinteger(L, (lua_Integer)mv[i].size);
    lua_setfield(L, -2, "size");
    fg_alloc_handle h;
    if (fg_allocator_handle_at(a, mv[i].src_offset, &h)) {
      lua_pushinteger(L, to_lua_handle(L, fg_alloc_handle_id(&h)));
      lua_setfield(L, -2, "handle");
      lua_rawgeti(L, -2, (lua_Integer)fg_alloc_handle_id(&h));
      lua_setfield(L, -2, "user");
    }
    lua_rawseti(L, -3, (lua_Integer)i + 1);
  }
  lua_pop(L, 1);
  fg_allocator_free_result(a, mv);
  return 1;
}

static int a_size(lua_State *L) {
  fg_allocator *a = check_alloc(L);
  lua_Integer off = fg_lua_checkint(L, 2);
  uint64_t s = off < 0 ? 0 : fg_allocator_size(a, (uint64_t)off);
  if (s) lua_pushinteger(L, (lua_Integer)s);
  else lua_pushnil(L);
  return 1;
}

static void set_int(lua_State *L, const char *k, uint64_t v) { lua_pushinteger(L, (lua_Integer)v); lua_setfield(L, -2, k); }
static void set_num(lua_State *L, const char *k, double v) { lua_pushnumber(L, v); lua_setfield(L, -2, k); }

static int a_stats(lua_State *L) {
  fg_allocator *a = check_alloc(L);
  fg_lua_hold_gc(L);  /* no finalizer may close self while this reads it */
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

static int a_reset(lua_State *L) {
  fg_allocator_reset(check_alloc(L));
  lua_newtable(L);
  lua_setiuservalue(L, 1, 1);
  return 0;
}

static int a_validate(lua_State *L) {
  char err[256];
  fg_lua_hold_gc(L);  /* no finalizer may close self while this reads it */
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
  lalloc *u = fg_lua_checkudata(L, 1, FG_LUA_ALLOCATOR);
  fg_allocator_destroy(u->a);
  u->a = NULL;
  return 0;
}

static int a_tostring(lua_State *L) {
  lalloc *u = fg_lua_checkudata(L, 1, FG_LUA_ALLOCATOR);
  if (!u->a) { lua_pushliteral(L, "framegraph.allocator (closed)"); return 1; }
  fg_alloc_stats s;
  fg_allocator_stats(u->a, &s);
  lua_pushfstring(L, "framegraph.allocator (%s, %I of %I used)", fg_alloc_kind_name(fg_allocator_kind(u->a)),
                  (lua_Integer)s.used, (lua_Integer)s.capacity);
  return 1;
}

static const luaL_Reg alloc_methods[] = {
  {"alloc", a_alloc}, {"free", a_free}, {"size", a_size}, {"stats", a_stats}, {"reset", a_reset},
  {"validate", a_validate}, {"kind", a_kind}, {"close", a_close}, {"free_handle", a_free_handle}, {"allocate", a_allocate},
  {"user", a_user}, {"handle", a_handle}, {"json", a_json}, {"svg", a_svg}, {"defrag_plan", a_defrag_plan},
  {NULL, NULL}
};
static const luaL_Reg alloc_meta[] = {
  {"__gc", a_close}, {"__close", a_close}, {"__tostring", a_tostring}, {NULL, NULL}
};

/* ---------------- dev:memory_pool ---------------- */
typedef struct lpool { fg_vk_mempool *p; } lpool;
typedef struct lmem { fg_vk_allocation a; lpool *pool; } lmem; /* uservalue 1 = the pool userdata, 2 = user value */

static lpool *check_pool(lua_State *L) {
  lpool *u = fg_lua_checkudata(L, 1, FG_LUA_MEMPOOL);
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
    .slab_max = opt_field_u64(L, 2, "slab_max", 2), .keep_empty = opt_field_u32(L, 2, "keep_empty", 2),
    .dedicated_cache = opt_field_u32(L, 2, "dedicated_cache", 2),
    .externally_synchronized = opt_field_bool(L, 2, "externally_synchronized", 0) };
  lpool *u = lua_newuserdatauv(L, sizeof *u, 0);
  u->p = NULL;
  luaL_setmetatable(L, FG_LUA_MEMPOOL);
  /* again: a finalizer run by the allocation above may have closed it */
  dev = fg_lua_checkdevice(L, 1);
  char err[256];
  u->p = fg_vk_mempool_create(dev, &d, err, sizeof err);
  if (!u->p) return luaL_argerror(L, 2, err);
  return 1;
}

static int p_alloc(lua_State *L) {
  lpool *u = check_pool(L);
  lua_Integer size = fg_lua_checkint(L, 2);
  if (size <= 0) return luaL_argerror(L, 2, "size must be a positive integer");
  if (!lua_isnoneornil(L, 3)) luaL_checktype(L, 3, LUA_TTABLE);
  static const char *const keys[] = { "align", "host_visible", "device_local", "optimal", "dedicated", "memory_type_bits",
                                      "user", NULL };
  check_keys(L, 3, 3, keys, "align, host_visible, device_local, optimal, dedicated, memory_type_bits, user");
  uint64_t align = opt_field_u64(L, 3, "align", 3);
  if (align & (align - 1)) {
    char msg[128];
    snprintf(msg, sizeof msg, "opts." FG_ALLOC_ALIGN_MSG, (unsigned long long)align);
    return luaL_argerror(L, 3, msg);
  }
  int host = opt_field_bool(L, 3, "host_visible", 0);
  fg_vk_mem_request rq = {.size = (uint64_t)size, .alignment = align};
  rq.memory_type_bits = opt_field_u32(L, 3, "memory_type_bits", 3);
  fg_vk_mem_request_flags(&rq, host, opt_field_bool(L, 3, "device_local", !host));
  rq.optimal = opt_field_bool(L, 3, "optimal", 0);
  rq.dedicated = opt_field_bool(L, 3, "dedicated", 0);
  lmem *m = lua_newuserdatauv(L, sizeof *m, 2);
  memset(m, 0, sizeof *m);
  luaL_setmetatable(L, FG_LUA_MEMORY);
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, 1);
  if (!lua_isnoneornil(L, 3)) {
    lua_getfield(L, 3, "user");
    lua_setiuservalue(L, -2, 2);
  }
  rq.user = (uint64_t)(uintptr_t)m; /* the plan's moves name the memory object */
  /* again, after the reads and allocations above: a finalizer run by them
   * may have closed the pool (pool:close() in a __gc) */
  u = check_pool(L);
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
  lmem *m = fg_lua_checkudata(L, 2, FG_LUA_MEMORY);
  if (!m->pool) return luaL_argerror(L, 2, "memory already freed");
  if (m->pool != lua_touserdata(L, 1)) return luaL_argerror(L, 2, "memory belongs to another pool");
  fg_vk_mem_free(m->pool->p, &m->a);
  m->pool = NULL;
  return 0;
}

static int p_stats(lua_State *L) {
  lpool *u = check_pool(L);
  fg_lua_hold_gc(L);  /* no finalizer may close self while this reads it */
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

static int p_json(lua_State *L) {
  fg_vk_mempool *p = check_pool(L)->p;
  fg_lua_hold_gc(L);  /* no finalizer may close self while this reads it */
  char *s = fg_vk_mempool_json(p);
  if (!s) return luaL_error(L, "out of host memory");
  lua_pushstring(L, s);
  fg_vk_mempool_free_result(p, s);
  return 1;
}

/* {{memory_type =, from =, to = (memories named as info().memory names them), offset =, dst_offset =,
 *   size =}, ...} in plan order */
static int p_defrag_plan(lua_State *L) {
  lpool *u = check_pool(L);
  fg_lua_hold_gc(L);  /* no finalizer may close self while this reads it */
  fg_vk_defrag_move *mv;
  size_t n;
  if (fg_vk_mempool_defrag_plan(u->p, &mv, &n)) return luaL_error(L, "out of host memory");
  lua_createtable(L, (int)n, 0);
  for (size_t i = 0; i < n; i++) {
    lua_createtable(L, 0, 7);
    set_int(L, "memory_type", mv[i].memory_type);
    lua_pushfstring(L, "%p", (void *)mv[i].src_memory);
    lua_setfield(L, -2, "from");
    lua_pushfstring(L, "%p", (void *)mv[i].dst_memory);
    lua_setfield(L, -2, "to");
    set_int(L, "offset", mv[i].src_offset);
    set_int(L, "dst_offset", mv[i].dst_offset);
    set_int(L, "size", mv[i].size);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  fg_vk_mempool_free_result(u->p, mv);
  return 1;
}

static int p_trim(lua_State *L) { fg_vk_mempool_trim(check_pool(L)->p); return 0; }

static int p_validate(lua_State *L) {
  char err[256];
  fg_lua_hold_gc(L);  /* no finalizer may close self while this reads it */
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
  lpool *u = fg_lua_checkudata(L, 1, FG_LUA_MEMPOOL);
  fg_vk_mempool_destroy(u->p);
  u->p = NULL;
  return 0;
}

static int p_tostring(lua_State *L) {
  lpool *u = fg_lua_checkudata(L, 1, FG_LUA_MEMPOOL);
  if (!u->p) { lua_pushliteral(L, "framegraph.memory_pool (closed)"); return 1; }
  fg_vk_mem_stats s;
  fg_vk_mempool_stats(u->p, &s);
  lua_pushfstring(L, "framegraph.memory_pool (%I allocations, %I device bytes)", (lua_Integer)s.allocations,
                  (lua_Integer)s.device_bytes);
  return 1;
}

static const luaL_Reg pool_methods[] = {
  {"alloc", p_alloc}, {"free", p_free}, {"stats", p_stats}, {"trim", p_trim}, {"validate", p_validate},
  {"close", p_close}, {"json", p_json}, {"defrag_plan", p_defrag_plan}, {NULL, NULL}
};
static const luaL_Reg pool_meta[] = {
  {"__gc", p_close}, {"__close", p_close}, {"__tostring", p_tostring}, {NULL, NULL}
};

static lmem *check_mem(lua_State *L) {
  lmem *m = fg_lua_checkudata(L, 1, FG_LUA_MEMORY);
  if (!m->pool) luaL_error(L, "memory is freed");
  if (!m->pool->p) luaL_error(L, "memory's pool is closed");
  return m;
}

static int m_free(lua_State *L) {
  lmem *m = fg_lua_checkudata(L, 1, FG_LUA_MEMORY);
  if (m->pool && m->pool->p) fg_vk_mem_free(m->pool->p, &m->a);
  m->pool = NULL;
  return 0;
}

static const char *kind_str(fg_vk_mem_kind k) {
  return k == FG_VK_MEM_SLAB ? "slab" : k == FG_VK_MEM_TLSF ? "tlsf" : "dedicated";
}

static int m_info(lua_State *L) {
  lmem *m = check_mem(L);
  fg_lua_hold_gc(L);  /* no finalizer may close self while this reads it */
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
  lua_Integer off = fg_lua_optint(L, arg, 0);
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
  lua_Integer len = fg_lua_checkint(L, 2);
  if (len < 0) return luaL_argerror(L, 2, "length must be >= 0");
  size_t off = span_check(L, m, 3, (size_t)len);
  lua_pushlstring(L, (const char *)m->a.mapped + off, (size_t)len);
  return 1;
}

static int m_user(lua_State *L) {
  check_mem(L);
  lua_getiuservalue(L, 1, 2);
  return 1;
}

static const luaL_Reg mem_methods[] = {
  {"free", m_free}, {"info", m_info}, {"write", m_write}, {"read", m_read}, {"user", m_user}, {NULL, NULL}
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
