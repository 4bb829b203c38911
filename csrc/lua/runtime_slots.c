/* runtime_slots: what a runtime hands each node instance: its run function
 * and its ctx table (ctx.blob, ctx.upload), built per plan; and the upload
 * handles rt:upload and ctx.upload make. runtime.c and runtime_plan.c call
 * it after every (re-)plan; it depends only on runtime_base.c. */
#include "fg_lua_runtime.h"
#include "graph_diag.h"  /* "did you mean" for ctx.blob */
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Copies the string at bytes_idx into the ring; pushes a handle, or nil +
 * message when the ring has no room (a system limit, not a misuse). */
int fg_lua_rt_push_upload(lua_State *L, lrt *o, int self, int bytes_idx, int align_idx, const char *what) {
  size_t n;
  if (lua_type(L, bytes_idx) != LUA_TSTRING) luaL_typeerror(L, bytes_idx, "string of bytes");  /* 5 is not "5" */
  const char *bytes = luaL_checklstring(L, bytes_idx, &n);
  lua_Integer align = fg_lua_optint(L, align_idx, 0);
  luaL_argcheck(L, n > 0, bytes_idx, "empty upload: pass a non-empty string of bytes");
  luaL_argcheck(L, align >= 0 && align <= FG_MAX_UPLOAD_ALIGNMENT && (align & (align - 1)) == 0, align_idx,
                "alignment must be a power of two up to 65536 (or 0 / absent for the device's default)");
  fg_lua_hold_gc(L);  /* no finalizer may close the runtime while this reads it */
  fg_upload_span sp;
  uint64_t rf;
  char err[1024];
  if (fg_rt_upload(o->rt, 0, (uint64_t)n, (uint64_t)align, &sp, &rf, err, sizeof err)) {
    luaL_pushfail(L);
    lua_pushfstring(L, "%s: %s", what, err);
    return 2;
  }
  memcpy(sp.ptr, bytes, n);
  lupload *h = lua_newuserdatauv(L, sizeof *h, 1);
  h->o = o;
  h->ring_frame = rf;
  h->rt_frame = fg_rt_frame_index(o->rt);
  h->offset = sp.offset;
  h->size = sp.size;
  luaL_setmetatable(L, FG_LUA_UPLOAD);
  lua_pushvalue(L, self);
  lua_setiuservalue(L, -2, 1);
  return 1;
}

/* ctx.upload(bytes [, align]): the same, for data made while recording. */
static void check_ctx(lua_State *L, lrt *o, const char *what) {
  uint32_t slot = (uint32_t)lua_tointeger(L, lua_upvalueindex(2));
  if (!o || !o->rt) luaL_error(L, "%s: runtime is closed", what);
  if (!o->L || o->slot != slot) {
    const fg_graph_instance *in = slot < fg_graph_instance_count(o->g) ? fg_graph_instance_get(o->g, slot) : NULL;
    luaL_error(L, "%s: ctx is closed: the ctx of node '%s' is valid only inside its run (keep no reference to ctx)",
               what, in ? in->name : "?");
  }
}

static int l_ctx_upload(lua_State *L) {
  lrt *o = lua_touserdata(L, lua_upvalueindex(1));
  check_ctx(L, o, "ctx.upload");
  return fg_lua_rt_push_upload(L, o, lua_upvalueindex(1), 1, 2, "ctx.upload");
}

static int l_blob(lua_State *L) {
  lrt *o = lua_touserdata(L, lua_upvalueindex(1));
  check_ctx(L, o, "ctx.blob");
  const char *name = fg_lua_checkname(L, 1, "blob name");
  int self = lua_upvalueindex(1);
  lua_getiuservalue(L, self, UV_INPUTS);
  if (lua_istable(L, -1)) {
    lua_getfield(L, -1, name);
    if (!lua_isnil(L, -1)) return 1;
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  /* A multiplexed blob has one copy per index: key it by the physical
   * resource this instance uses (so camera[eye=2] and gbuffer[eye=2] share
   * one table, apart from eye 1's); an optional blob nobody provides this
   * frame keeps one table per name; a name the node did not declare (and no
   * rt:frame input) is refused. */
  uint32_t slot = (uint32_t)lua_tointeger(L, lua_upvalueindex(2)), ph = FG_GRAPH_NONE;
  const fg_graph_instance *in = fg_graph_instance_get(o->g, slot);
  int declared = 0;
  for (uint32_t u = 0; in && u < in->use_count && ph == FG_GRAPH_NONE; u++) {
    const fg_graph_use *us = &in->uses[u];
    if (!strcmp(us->name, name) || (us->rename_to && !strcmp(us->rename_to, name))) {
      declared = 1;
      if (!us->missing) ph = fg_rt_use_phys(o->rt, slot, u);
    }
  }
  if (in && !declared) {
    /* a misspelt name would hand back a fresh empty table and fail a line later */
    graph_suggest sg;
    char hint[160];
    graph_suggest_begin(&sg, name);
    for (uint32_t u = 0; u < in->use_count; u++) graph_suggest_feed(&sg, in->uses[u].name);
    return luaL_error(L, "node '%s': ctx.blob('%s'): the node declares no '%s'%s; a blob is declared like any "
                      "resource: create = { %s = { blob = true } } in the node that makes it, read = { \"%s\" } in "
                      "the nodes that use it", in->name, name, name, graph_suggest_text(&sg, hint, sizeof hint), name,
                      name);
  }
  lua_getiuservalue(L, self, UV_BLOBS);
  lua_geti(L, -1, (lua_Integer)fg_rt_parity(o->rt) + 1);
  if (ph != FG_GRAPH_NONE) lua_pushinteger(L, (lua_Integer)ph);
  else lua_pushstring(L, name);
  lua_pushvalue(L, -1);
  lua_gettable(L, -3);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -2);
    lua_pushvalue(L, -2);
    lua_settable(L, -5);
  }
  return 1;
}

void fg_lua_rt_set_graph(lua_State *L, lrt *o, int self, int graph_idx) {
  lua_pushvalue(L, graph_idx);
  lua_setiuservalue(L, self, UV_GRAPH);
  o->g = fg_lua_checkgraph(L, graph_idx);
}

/* Run functions and ctx tables per instance slot. Needs the graph at uv 2. */
void fg_lua_rt_build_slots(lua_State *L, lrt *o, int self) {
  /* the graph read once: the node tables' metamethods (user code, below)
   * cannot change it (the runtime is busy or recording around every call) */
  const fg_graph *g = o->g;
  uint32_t n = fg_graph_instance_count(g);
  uint32_t nd = fg_graph_dim_count(g);
  lua_getiuservalue(L, self, UV_GRAPH);
  fg_lua_graph_pipeline(L, lua_gettop(L));
  lua_getfield(L, -1, "nodes");
  int nodes = lua_gettop(L);
  lua_createtable(L, (int)n, 0);
  int runs = lua_gettop(L);
  lua_createtable(L, (int)n, 0);
  int ctxs = lua_gettop(L);
  for (uint32_t s = 0; s < n; s++) {
    const fg_graph_instance *in = fg_graph_instance_get(g, s);
    if (lua_istable(L, nodes)) {
      lua_geti(L, nodes, in->user);
      if (lua_istable(L, -1)) lua_getfield(L, -1, "run");
      else lua_pushnil(L);
      lua_remove(L, -2);
    } else {
      lua_pushnil(L);
    }
    if (fg_lua_host_runner(L, -1)) lua_remove(L, -2);  /* run = "host:name" (host.c) */
    if (!lua_isfunction(L, -1)) { lua_pop(L, 1); lua_pushboolean(L, 0); }
    lua_rawseti(L, runs, s + 1);
    lua_createtable(L, 0, 8);
    lua_pushstring(L, in->name);
    lua_setfield(L, -2, "name");
    lua_pushstring(L, in->node_name);
    lua_setfield(L, -2, "node");
    lua_createtable(L, 0, (int)nd);
    for (uint32_t d = 0; d < nd; d++) {
      lua_pushinteger(L, (lua_Integer)in->index[d] + 1);
      lua_setfield(L, -2, fg_graph_dim_name(g, d));
    }
    lua_setfield(L, -2, "index");
    lua_pushvalue(L, self);
    lua_pushinteger(L, (lua_Integer)s);
    lua_pushcclosure(L, l_blob, 2);
    lua_setfield(L, -2, "blob");
    lua_pushvalue(L, self);
    lua_pushinteger(L, (lua_Integer)s);
    lua_pushcclosure(L, l_ctx_upload, 2);
    lua_setfield(L, -2, "upload");
    /* ctxs[-(s + 1)] = {blob, upload}: what each run puts back (runtime.c, reset_ctx) */
    lua_createtable(L, 2, 0);
    lua_getfield(L, -2, "blob");
    lua_rawseti(L, -2, 1);
    lua_getfield(L, -2, "upload");
    lua_rawseti(L, -2, 2);
    lua_rawseti(L, ctxs, -(lua_Integer)s - 1);
    lua_rawseti(L, ctxs, s + 1);
  }
  lua_pushvalue(L, runs);
  lua_setiuservalue(L, self, UV_RUN);
  lua_pushvalue(L, ctxs);
  lua_setiuservalue(L, self, UV_CTX);
  lua_settop(L, nodes - 3);
}
