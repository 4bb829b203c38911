/* The runtime's plan from Lua: read-backs of the last frame (rt:read,
 * rt:save_png), re-plans (rt:set_resolution, rt:set_dimension) and the reload
 * primitives rt:reload is made of (lua/framegraph/runtime.lua). A refused
 * re-plan leaves the previous plan rendering; none runs inside a node's run. */
#include "fg_lua_runtime.h"
#include "fg_vk_pixels.h"
#include <stdlib.h>
#include <string.h>

#define check_rt fg_lua_rt_check

/* hooks.graph(rt): the runtime's graph userdata (rt:graph() in Lua is a
 * read-only view of it). */
static int rt_graph(lua_State *L) {
  check_rt(L, 1);
  lua_getiuservalue(L, 1, UV_GRAPH);
  return 1;
}

/* Multiplex index at index_idx for resource r -> idx[]: absent (the first
 * copy), a 1-based integer for the resource's first dimension, or {dim = i}.
 * Every index is checked against its dimension: a wrong one raises rather than
 * reading another copy's pixels. */
static void get_index(lua_State *L, const fg_graph *g, const fg_graph_resource *r, int index_idx, const char *name,
                      uint32_t *idx) {
  uint32_t nd = fg_graph_dim_count(g);
  int t = lua_type(L, index_idx);
  if (t == LUA_TNONE || t == LUA_TNIL) return;
  if (t == LUA_TNUMBER) {
    uint32_t d = 0;
    while (d < nd && !(r->mode & (1u << d))) d++;
    if (d == nd) {
      fg_lua_checkrange(L, index_idx, 1, 1, lua_pushfstring(L, "index of '%s' (not multiplexed: only 1)", name));
      return;
    }
    lua_Integer n = fg_graph_dim_size(g, d);
    idx[d] = (uint32_t)(fg_lua_checkrange(L, index_idx, 1, n, lua_pushfstring(L, "index of '%s' (dimension '%s')",
                                                                              name, fg_graph_dim_name(g, d))) - 1);
    return;
  }
  if (t != LUA_TTABLE)
    luaL_argerror(L, index_idx, lua_pushfstring(L, "index must be a 1-based integer or a table {dim = i}, got %s",
                                                luaL_typename(L, index_idx)));
  fg_lua_plain(L, index_idx, "the index");  /* read raw: a proxy {eye = 2} would read as no index */
  lua_pushnil(L);
  while (lua_next(L, index_idx)) {
    uint32_t d = nd;
    if (lua_type(L, -2) == LUA_TSTRING && strlen(lua_tostring(L, -2)) == lua_rawlen(L, -2))  /* "eye\0x" is none */
      for (d = 0; d < nd && strcmp(fg_graph_dim_name(g, d), lua_tostring(L, -2)); d++) {}
    if (d == nd) {
      luaL_Buffer B;
      luaL_buffinit(L, &B);
      for (uint32_t k = 0; k < nd; k++) {
        if (k) luaL_addstring(&B, ", ");
        luaL_addstring(&B, fg_graph_dim_name(g, k));
      }
      luaL_pushresult(&B);
      luaL_argerror(L, index_idx, lua_pushfstring(L, "index key '%s' is not a dimension of the pipeline (%s)",
                                                  luaL_tolstring(L, -3, NULL), nd ? lua_tostring(L, -2) : "none"));
    }
    lua_Integer v = 0, n = fg_graph_dim_size(g, d);
    int isnum = 0;
    if (lua_isinteger(L, -1)) v = lua_tointeger(L, -1), isnum = 1;
    else if (lua_type(L, -1) == LUA_TNUMBER) isnum = lua_numbertointeger(lua_tonumber(L, -1), &v) &&
                                                     (lua_Number)v == lua_tonumber(L, -1);
    if (!isnum || v < 1 || v > n)
      luaL_error(L, "index %s = %s of '%s' must be an integer in 1..%d (the dimension's count)",
                 fg_graph_dim_name(g, d), luaL_tolstring(L, -1, NULL), name, (int)n);
    idx[d] = (uint32_t)(v - 1);
    lua_pop(L, 1);
  }
}

/* Physical resource for a name (as created or renamed to), frame copy of the
 * last submitted frame, multiplex index at index_idx. Raises on unknown names
 * and indices outside their dimension. */
static uint32_t find_phys(lua_State *L, lrt *o, const char *name, int index_idx, uint32_t parity) {
  const fg_graph *g = o->g;
  uint32_t idx[FG_GRAPH_MAX_DIMS] = {0};
  uint32_t n = fg_graph_resource_count(g);
  for (uint32_t i = 0; i < n; i++) {
    const fg_graph_resource *r = fg_graph_resource_get(g, i);
    if (strcmp(r->name, name) && (!r->final_name || strcmp(r->final_name, name))) continue;
    get_index(L, g, r, index_idx, name, idx);
    uint32_t ph = fg_graph_physical(g, r->logical, parity, idx);
    if (ph == FG_GRAPH_NONE || ph >= fg_rt_resource_count(o->rt))
      luaL_error(L, "resource '%s' has no copy for that index (check the dimension names and 1-based indices)", name);
    return ph;
  }
  luaL_error(L, "no resource named '%s' in the compiled graph (culled, or a typo?)", name);
  return FG_GRAPH_NONE;
}

static uint32_t last_parity(lrt *o) {
  uint64_t f = fg_rt_frame_index(o->rt);
  return f ? (uint32_t)((f - 1) & 1) : 0;
}

/* rt:read(name [, index]) -> bytes | nil, err */
static int rt_read(lua_State *L) {
  lrt *o = check_rt(L, 1);
  lua_settop(L, 3);  /* name, index (nil: none), and the guard above them */
  fg_lua_hold_gc(L);  /* no finalizer may close self while this reads it */
  fg_lua_rt_idle(L, o, "rt:read");
  fg_lua_rt_planned(L, o, "rt:read");
  const char *name = fg_lua_checkname(L, 2, "resource name");
  uint32_t ph = find_phys(L, o, name, 3, last_parity(o));
  fg_lua_rt_check_externals(L, o, ph, "rt:read");
  void *data; size_t len;
  if (fg_rt_read(o->rt, ph, &data, &len, o->err, sizeof o->err)) {
    luaL_pushfail(L);
    lua_pushstring(L, o->err);
    return 2;
  }
  lua_pushlstring(L, data, len);
  fg_vk_free(fg_rt_device(o->rt), data);
  return 1;
}

/* rt:save_png(name, path [, index]) -> true | nil, err */
static int rt_save_png(lua_State *L) {
  lrt *o = check_rt(L, 1);
  lua_settop(L, 4);  /* name, path, index (nil: none), and the guard above them */
  fg_lua_hold_gc(L);  /* no finalizer may close self while this reads it */
  fg_lua_rt_idle(L, o, "rt:save_png");
  fg_lua_rt_planned(L, o, "rt:save_png");
  const char *name = fg_lua_checkname(L, 2, "resource name");
  const char *path = fg_lua_checkname(L, 3, "path");
  uint32_t ph = find_phys(L, o, name, 4, last_parity(o));
  fg_lua_rt_check_externals(L, o, ph, "rt:save_png");
  fg_rt_res *r = fg_rt_resource(o->rt, ph);
  if (!r->is_image) return luaL_error(L, "rt:save_png: '%s' is a buffer; save_png needs a texture", name);
  fg_format f = r->g->format;
  if (!fg_pixels_png_supported(f))
    return luaL_error(L, "rt:save_png: format '%s' of '%s' is not supported (rgba8, bgra8, rgba16_sfloat, "
                      "rgba32_sfloat, r32_sfloat, r8_unorm are)", fg_format_get(f)->name, name);
  int rc = fg_rt_save_png(o->rt, ph, path, o->err, sizeof o->err);
  if (rc == -2) return luaL_error(L, "out of memory");
  if (rc) {
    luaL_pushfail(L);
    lua_pushstring(L, o->err);
    return 2;
  }
  lua_pushboolean(L, 1);
  return 1;
}

/* Reload primitives; rt:reload itself is Lua (lua/framegraph/runtime.lua:
 * one loader, one compile, roll back on a failing run). */

/* hooks.compile(rt, pipeline [, opts]) -> graph: compiles with the runtime's
 * options (or `opts`, made from hooks.opts(rt)) and the device's memory
 * requirements; raises the compile error. */
static int rt_compile(lua_State *L) {
  lrt *o = check_rt(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_settop(L, 3);
  if (lua_isnil(L, 3)) lua_getiuservalue(L, 1, UV_OPTS), lua_replace(L, 3);
  luaL_checktype(L, 3, LUA_TTABLE);
  fg_lua_compile(L, 2, 3, fg_rt_sizer, &o->sizer);
  return 1;
}

/* hooks.opts(rt) -> the compile options the runtime was made with */
static int rt_opts(lua_State *L) {
  check_rt(L, 1);
  lua_getiuservalue(L, 1, UV_OPTS);
  return 1;
}

/* The hooks rt:reload is made of run while it marks the runtime busy: they
 * refuse only inside a frame (fg_lua_rt_idle refuses a busy runtime too). */
static void not_recording(lua_State *L, lrt *o) {
  if (o->L) fg_lua_rt_idle(L, o, "rt:reload");
}

/* hooks.adopt(rt, graph) -> true, kept | nil, err: runs `graph` from the next
 * frame, keeping the contents of unchanged history resources. When it cannot
 * be placed the previous graph keeps running. */
static int rt_adopt(lua_State *L) {
  lrt *o = check_rt(L, 1);
  not_recording(L, o);
  fg_graph *g = fg_lua_checkgraph(L, 2);
  uint32_t kept = 0;
  int rc = fg_rt_rebuild_keep_history(o->rt, g, o->g, &kept, o->err, sizeof o->err);
  if (rc) {
    luaL_pushfail(L);
    if (rc == -1) lua_pushfstring(L, "reload: %s (still running the previous pipeline)", o->err);
    else lua_pushfstring(L, "reload failed: %s", o->err);
    return 2;
  }
  fg_lua_rt_set_graph(L, o, 1, 2);
  fg_lua_rt_build_slots(L, o, 1);
  lua_pushboolean(L, 1);
  lua_pushinteger(L, (lua_Integer)kept);
  return 2;
}

/* rt:_fail_allocations(n): test hook, the next n device allocations fail as
 * out of device memory (docs/RELIABILITY.md, "Exhaustion"). */
static int rt_fail_allocations(lua_State *L) {
  lrt *o = check_rt(L, 1);
  lua_Integer n = fg_lua_checkrange(L, 2, 0, 1000000, "count");
  fg_rt_fail_allocations(o->rt, (uint32_t)n);
  return 0;
}

/* hooks.slots(rt): takes the run functions again from the graph's pipeline (a
 * reload that changed only run functions). */
static int rt_slots(lua_State *L) {
  lrt *o = check_rt(L, 1);
  not_recording(L, o);
  fg_lua_rt_build_slots(L, o, 1);
  return 0;
}

/* hooks.busy(rt) -> the call re-planning now, or nil; hooks.busy(rt, what)
 * marks rt:reload's (or a rollback's) work, which reads the pipeline's tables
 * (their metamethods are user code); hooks.busy(rt, false) ends it -> true
 * when rt:close() was called meanwhile (the runtime is closed now). */
static int rt_busy(lua_State *L) {
  lrt *o = fg_lua_checkudata(L, 1, FG_LUA_RUNTIME);
  if (lua_isnone(L, 2)) {
    if (o->busy[0]) lua_pushstring(L, o->busy);
    else lua_pushnil(L);
    return 1;
  }
  if (lua_toboolean(L, 2)) {
    check_rt(L, 1);
    fg_lua_rt_busy_begin(o, luaL_checkstring(L, 2));
    return 0;
  }
  lua_pushboolean(L, fg_lua_rt_busy_end(o));
  return 1;
}

/* A re-plan changed the graph in place (`apply` with the new value): re-place
 * the resources. When the graph or the placement refuses it, the old value is
 * applied again and placed (it was running), so the runtime keeps rendering
 * its previous plan; nil + message then. The graph recompiled in place, so
 * the runtime is rebuilt whatever happens (its resources pointed into it). */
typedef int (*apply_fn)(fg_graph *g, const char *name, uint32_t a, uint32_t b);
static int set_resolution_fn(fg_graph *g, const char *name, uint32_t a, uint32_t b) {
  return fg_graph_set_resolution(g, name, a, b);
}
static int set_dimension_fn(fg_graph *g, const char *name, uint32_t a, uint32_t b) {
  (void)b;
  return fg_graph_set_dimension(g, name, a);
}

/* UV_DYN[field][name] = the value on top (popped) */
static void remember(lua_State *L, const char *field, const char *name) {
  if (lua_getiuservalue(L, 1, UV_DYN) != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_createtable(L, 0, 2);
    lua_pushvalue(L, -1);
    lua_setiuservalue(L, 1, UV_DYN);
  }
  if (lua_getfield(L, -1, field) != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, field);
  }
  lua_pushvalue(L, -3);
  lua_setfield(L, -2, name);
  lua_pop(L, 3);
}

static int replan(lua_State *L, lrt *o, apply_fn apply, const char *name, uint32_t a, uint32_t b, uint32_t oa,
                  uint32_t ob, const char *call, const char *kept) {
  fg_rt_wait_idle(o->rt);
  if (!apply(o->g, name, a, b)) {
    if (!fg_rt_rebuild(o->rt, o->g, o->err, sizeof o->err)) {
      fg_lua_rt_build_slots(L, o, 1);
      /* a structural reload keeps the values set since (hooks.dynamic) */
      if (apply == set_resolution_fn) {
        lua_createtable(L, 2, 0);
        lua_pushinteger(L, a); lua_rawseti(L, -2, 1);
        lua_pushinteger(L, b); lua_rawseti(L, -2, 2);
        remember(L, "resolutions", name);
      } else {
        lua_pushinteger(L, a);
        remember(L, "dimensions", name);
      }
      lua_pushboolean(L, 1);
      return 1;
    }
    lua_pushfstring(L, "%s: %s", call, o->err);
  } else {
    lua_pushfstring(L, "%s: %s", call, fg_graph_error(o->g));
  }
  luaL_pushfail(L);
  lua_insert(L, -2);
  char why[1024] = "";
  /* A failed recompile leaves the graph uncompiled, and setting a value on an
   * uncompiled graph does not compile it: compile it again here. */
  if (apply(o->g, name, oa, ob) || (!fg_graph_compiled(o->g) && fg_graph_recompile(o->g)))
    snprintf(why, sizeof why, "%s", fg_graph_error(o->g));
  if (!why[0] && fg_rt_rebuild(o->rt, o->g, why, sizeof why) == 0) {
    fg_lua_rt_build_slots(L, o, 1);
    lua_pushstring(L, kept);
  } else {
    if (!why[0]) snprintf(why, sizeof why, "placing it failed");
    fg_rt_rebuild(o->rt, o->g, o->err, sizeof o->err);  /* whatever is left: no plan, frames refused */
    snprintf(o->err, sizeof o->err, "%s", why);
    lua_pushfstring(L, "; restoring the previous plan failed too (%s): the runtime has no plan", why);
  }
  lua_concat(L, 2);
  return 2;
}

/* The re-plan runs user code (build_slots reads the pipeline's node tables,
 * whose metamethods are the caller's): it runs protected with the runtime
 * busy, so a metamethod's rt:close() waits for the call's end and its
 * re-plans, reloads, frames and read-backs are refused (fg_lua_rt_idle). */
typedef struct replan_args {
  apply_fn apply;
  const char *name, *call, *kept, *what;
  uint32_t a, b, oa, ob;
} replan_args;

static int replan_protected(lua_State *L) {
  lrt *o = lua_touserdata(L, 1);
  const replan_args *r = lua_touserdata(L, 2);
  lua_settop(L, 1);
  return replan(L, o, r->apply, r->name, r->a, r->b, r->oa, r->ob, r->call, r->kept);
}

static int replan_busy(lua_State *L, lrt *o, const replan_args *r) {
  int base = lua_gettop(L);
  lua_pushcfunction(L, replan_protected);
  lua_pushvalue(L, 1);
  lua_pushlightuserdata(L, (void *)r);
  fg_lua_rt_busy_begin(o, r->what);
  int rc = lua_pcall(L, 2, LUA_MULTRET, 0);
  if (fg_lua_rt_busy_end(o))
    return luaL_error(L, "%s: the runtime was closed during the call (rt:close() called by a metamethod of the "
                      "pipeline's tables?); it is closed now: close it after %s returns, or make a new one with "
                      "fg.runtime", r->call, r->what);
  if (rc != LUA_OK) return lua_error(L);
  return lua_gettop(L) - base;
}

/* rt:set_resolution(name, w, h) -> true | nil, err: re-plans sizes in place;
 * memory is reused when the new plan fits (a smaller extent needs no
 * allocation). Unknown names and bad sizes raise. */
static int rt_set_resolution(lua_State *L) {
  lrt *o = check_rt(L, 1);
  fg_lua_rt_idle(L, o, "rt:set_resolution");
  const char *name = fg_lua_checkname(L, 2, "resolution name");
  lua_Integer w = fg_lua_checkrange(L, 3, 1, FG_MAX_EXTENT, "width"), h = fg_lua_checkrange(L, 4, 1, FG_MAX_EXTENT, "height");
  uint32_t ow = 0, oh = 0;
  if (fg_graph_get_resolution(o->g, name, &ow, &oh))
    return luaL_argerror(L, 2, lua_pushfstring(L, "unknown resolution '%s' (the pipeline's resolutions name them)",
                                               name));
  char call[160], kept[64];
  snprintf(call, sizeof call, "rt:set_resolution('%s', %d, %d)", name, (int)w, (int)h);
  snprintf(kept, sizeof kept, " (kept %ux%u)", ow, oh);
  replan_args r = {set_resolution_fn, name, call, kept, "rt:set_resolution", (uint32_t)w, (uint32_t)h, ow, oh};
  return replan_busy(L, o, &r);
}

/* rt:set_dimension(name, n) -> true | nil, err: re-expands the multiplexing and re-places. */
static int rt_set_dimension(lua_State *L) {
  lrt *o = check_rt(L, 1);
  fg_lua_rt_idle(L, o, "rt:set_dimension");
  const char *name = fg_lua_checkname(L, 2, "dimension name");
  lua_Integer n = fg_lua_checkrange(L, 3, 1, FG_MAX_DIMENSION_COUNT, "count");
  uint32_t d = fg_graph_dimension_index(o->g, name);
  if (d == FG_GRAPH_NONE)
    return luaL_argerror(L, 2, lua_pushfstring(L, "unknown dimension '%s' (the pipeline's dimensions name them)",
                                               name));
  char call[160], kept[160];
  uint32_t old = fg_graph_dim_size(o->g, d);
  snprintf(call, sizeof call, "rt:set_dimension('%s', %d)", name, (int)n);
  snprintf(kept, sizeof kept, " (kept %s = %u)", name, old);
  replan_args r = {set_dimension_fn, name, call, kept, "rt:set_dimension", (uint32_t)n, 0, old, 0};
  return replan_busy(L, o, &r);
}

/* hooks.dynamic(rt) -> {resolutions = {name = {w, h}}, dimensions = {name = n}}:
 * what rt:set_resolution / rt:set_dimension set since the runtime was made */
static int rt_dynamic(lua_State *L) {
  check_rt(L, 1);
  if (lua_getiuservalue(L, 1, UV_DYN) != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_newtable(L);
  }
  return 1;
}

/* hooks.failure(rt) -> nil | kind, instance, node: why the last rt:frame
 * failed, as values (kind "run": instance's run raised; node is the node's
 * position in the pipeline) */
static int rt_failure(lua_State *L) {
  lrt *o = fg_lua_checkudata(L, 1, FG_LUA_RUNTIME);
  if (o->fail != FG_LUA_FAIL_RUN || !o->g || o->fail_slot >= fg_graph_instance_count(o->g)) {
    lua_pushnil(L);
    return 1;
  }
  const fg_graph_instance *in = fg_graph_instance_get(o->g, o->fail_slot);
  lua_pushliteral(L, "run");
  lua_pushstring(L, in->name);
  lua_pushinteger(L, (lua_Integer)in->user);
  return 3;
}

static const luaL_Reg plan_methods[] = {
  {"read", rt_read},
  {"save_png", rt_save_png},
  {"_fail_allocations", rt_fail_allocations},
  {"set_resolution", rt_set_resolution},
  {"set_dimension", rt_set_dimension},
  {NULL, NULL},
};

/* The primitives rt:reload and the frame's rollback are made of
 * (lua/framegraph/runtime.lua), called as hooks.name(rt, ...): not methods,
 * so no user object offers them. */
static const luaL_Reg plan_hooks[] = {
  {"compile", rt_compile}, {"opts", rt_opts}, {"adopt", rt_adopt}, {"slots", rt_slots},
  {"graph", rt_graph}, {"dynamic", rt_dynamic}, {"failure", rt_failure}, {"busy", rt_busy}, {NULL, NULL},
};

void fg_lua_open_runtime_plan(lua_State *L) {
  luaL_getmetatable(L, FG_LUA_RUNTIME);
  lua_getfield(L, -1, "__index");
  luaL_setfuncs(L, plan_methods, 0);
  lua_pop(L, 2);
  luaL_newlib(L, plan_hooks);
  lua_setfield(L, -2, "runtime_hooks");
}
