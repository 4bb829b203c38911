/* Registration of each binding file into the framegraph.core table.
 * Each fg_lua_open_* receives the module table at the top of the stack and
 * adds its functions/metatables to it; it must leave the stack balanced. */
#ifndef FG_LUA_H
#define FG_LUA_H
#include <lua.h>
#include <lauxlib.h>
#include <string.h>

/* luaL_checkinteger without Lua's string coercion: every integer argument
 * of the bindings is a number ("16" was taken by some calls and refused by
 * others); 2.0 still counts, 1.5 and NaN are refused by luaL_checkinteger. */
/* lua_tointegerx for numbers only (a table field, an argument read by
 * hand): "16" would convert; *isint is 0 for anything but an integral number. */
static inline lua_Integer fg_lua_tointx(lua_State *L, int idx, int *isint) {
  if (lua_type(L, idx) == LUA_TNUMBER) return lua_tointegerx(L, idx, isint);
  *isint = 0;
  return 0;
}
static inline lua_Integer fg_lua_checkint(lua_State *L, int idx) {
  if (lua_type(L, idx) != LUA_TNUMBER) luaL_typeerror(L, idx, "integer");
  return luaL_checkinteger(L, idx);
}
static inline lua_Integer fg_lua_optint(lua_State *L, int idx, lua_Integer dflt) {
  return lua_isnoneornil(L, idx) ? dflt : fg_lua_checkint(L, idx);
}

/* luaL_checkudata whose message names what the value is: luaL_typeerror
 * takes a table's __name, so setmetatable({}, {__name = "framegraph.shader"})
 * passed as a shader read "framegraph.shader expected, got framegraph.shader".
 * A userdata keeps its __name (ours are the real type names). */
static inline void *fg_lua_checkudata(lua_State *L, int idx, const char *tname) {
  void *p = luaL_testudata(L, idx, tname);
  if (!p) {
    const char *got = luaL_typename(L, idx);
    if (lua_type(L, idx) == LUA_TUSERDATA && luaL_getmetafield(L, idx, "__name") == LUA_TSTRING)
      got = lua_tostring(L, -1);
    luaL_argerror(L, idx, lua_pushfstring(L, "%s expected, got %s", tname, got));
  }
  return p;
}

/* A table the bindings read (options, bindings, push values, regions, frame
 * inputs, list items) must be plain. Its metamethods (__index, __len,
 * __pairs...) would run the caller's code in the middle of the call, where
 * it could close the object the call is using; and the key checks (raw)
 * would see other keys than the reads. Raises naming `what`. */
static inline void fg_lua_plain(lua_State *L, int idx, const char *what) {
  if (lua_type(L, idx) == LUA_TTABLE && lua_getmetatable(L, idx))
    luaL_error(L, "%s: got a table with a metatable; give a plain table (its metamethods would run inside "
               "the call)", what);
}

/* Holds the garbage collector until the calling C function returns or
 * raises (a to-be-closed slot pushed at the top: call it after the last
 * argument is read, and move nothing across it). A finalizer that the
 * function's own allocations would run may close the object the function is
 * reading (rt:close() in a __gc during rt:read freed the runtime under it). */
void fg_lua_hold_gc(lua_State *L);
void fg_lua_open_gc_hold(lua_State *L); /* registers the guard (module.c, once) */

/* A misspelt key must raise, not be ignored: 1 with the first key of the
 * table at t (an absolute index) that is not a string in `known` (NULL-
 * terminated) left on the stack, for the caller's message; else 0. */
static inline int fg_lua_unknown_key(lua_State *L, int t, const char *const *known) {
  lua_pushnil(L);
  while (lua_next(L, t)) {
    lua_pop(L, 1);
    int ok = 0;
    if (lua_type(L, -1) == LUA_TSTRING)
      for (const char *const *k = known; *k && !ok; k++) ok = !strcmp(lua_tostring(L, -1), *k);
    if (!ok) return 1;
  }
  return 0;
}

/* Registers a userdata type the liolib way: metatable `name` with the `meta`
 * entries (__gc, __close, __tostring, ...) and an __index table of `methods`
 * (which other binding files may extend later). Leaves the stack as it was. */
static inline void fg_lua_newclass(lua_State *L, const char *name, const luaL_Reg *meta,
                                   const luaL_Reg *methods) {
  luaL_newmetatable(L, name);
  luaL_setfuncs(L, meta, 0);
  lua_newtable(L); /* not luaL_newlib: it sizes by sizeof, wrong for a pointer */
  luaL_setfuncs(L, methods, 0);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
}

void fg_lua_open_pack(lua_State *L);   /* pack.c:  pack, check_packing, load */
void fg_lua_open_graph(lua_State *L);  /* graph.c: graph compiler */
void fg_lua_open_alloc(lua_State *L);  /* alloc.c: sub-allocators, upload ring */
void fg_lua_open_vk(lua_State *L);     /* vk.c:    device, shaders */
void fg_lua_open_runtime(lua_State *L);/* runtime.c: runtime, frames, uploads, external images */
void fg_lua_open_cmd(lua_State *L);    /* cmd.c:   the command object a node records with */
void fg_lua_open_fs(lua_State *L);     /* fs.c:    mtime (the pipeline watcher) */
void fg_lua_open_limits(lua_State *L); /* limits.c: CPU and memory limits of the sandbox */
void fg_lua_open_window(lua_State *L); /* window.c: X11 window + swapchain (framegraph.window) */
void fg_lua_open_content(lua_State *L);/* content.c: fg.buffer, fg.image, fg.mesh (after runtime) */
void fg_lua_open_host(lua_State *L);   /* host.c:   cmd:host, run = "host:name" (after cmd.c) */
/* host.c: pushes the run function of `run = "host:name"` when idx holds such a string; 1, else 0. */
int fg_lua_host_runner(lua_State *L, int idx);

/* hooks.c: the state's lua_Alloc as allocation hooks (for core objects the
 * bindings own, e.g. graphs); valid as long as the state. */
#include "fg_util.h"
fg_alloc_hooks fg_lua_hooks(lua_State *L);

#endif

/* ---- vk.c: device and shader userdata (framegraph.device / framegraph.shader) ----
 * Device methods live in the __index table of the FG_LUA_DEVICE metatable;
 * files opened after vk.c add theirs with
 *   luaL_getmetatable(L, FG_LUA_DEVICE); lua_getfield(L, -1, "__index");
 *   luaL_setfuncs(L, my_methods, 0); lua_pop(L, 2);
 * A C object that outlives the call (runtime, pool, shader) should keep the
 * Lua device alive (uservalue) or fg_vk_retain() the fg_vk_device. */
#define FG_LUA_DEVICE "framegraph.device"
#define FG_LUA_SHADER "framegraph.shader"
struct fg_vk_device;
struct fg_vk_shader;
/* Raises (argument error) unless idx is an open device. */
struct fg_vk_device *fg_lua_checkdevice(lua_State *L, int idx);
/* Pushes a Lua device holding a reference to dev (a host's, include/framegraph.h). */
void fg_lua_push_device(lua_State *L, struct fg_vk_device *dev);
/* NULL when idx is not a device or the device is closed. */
struct fg_vk_device *fg_lua_todevice(lua_State *L, int idx);
/* Raises unless idx is an open shader (fg.shader). */
struct fg_vk_shader *fg_lua_checkshader(lua_State *L, int idx);

/* ---- graph.c: compiled graph userdata (framegraph.graph) ----
 * The userdata returned by fg.compile holds an fg_graph (csrc/core/fg_graph.h)
 * and a reference to the pipeline table (its uservalue 1), so nodes' `run`
 * functions stay reachable: fg_graph_instance.user is the node's 1-based
 * position in pipeline.nodes. */
#define FG_LUA_GRAPH "framegraph.graph"
struct fg_graph;
struct fg_graph_resource;
struct fg_graph_memreq;
/* Raises (argument error) unless idx is a compiled graph. */
struct fg_graph *fg_lua_checkgraph(lua_State *L, int idx);
/* Compiles the pipeline table at pipeline_idx with the options table at
 * opts_idx (0 or nil = none), using `sizer` (NULL = the planning profile of
 * opts.profile) for memory requirements. Pushes the graph userdata (same as
 * core.compile) and returns its fg_graph. Checks the options
 * (fg_lua_options.h) but not the pipeline's shape: the Lua layer runs
 * framegraph.schema first (C never requires Lua modules). Raises the
 * compiler's error listing every problem on invalid pipelines. */
struct fg_graph *fg_lua_compile(lua_State *L, int pipeline_idx, int opts_idx,
                                int (*sizer)(void *user, const struct fg_graph_resource *res,
                                             struct fg_graph_memreq *out),
                                void *sizer_user);
/* Pushes the pipeline table the graph at idx was compiled from. */
void fg_lua_graph_pipeline(lua_State *L, int idx);

/* ---- window.c: window userdata (framegraph.window) ----
 * A window is accepted where an external image is: provide() may return it,
 * and the runtime renders into its acquired swapchain image. */
#define FG_LUA_WINDOW "framegraph.window"
struct fg_vk_window;
/* NULL when idx is not a window or the window is closed. */
struct fg_vk_window *fg_lua_testwindow(lua_State *L, int idx);
