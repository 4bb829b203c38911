/* framegraph.graph: Lua binding of the graph compiler (csrc/core/fg_graph.h).
 * core.compile(pipeline, opts) -> graph userdata, and the graph's methods.
 * The Lua layer (lua/framegraph/graph.lua: fg.compile) runs the schema check
 * first and raises every problem at once; graph_declare.c then declares the
 * (already well-typed) table to the C core, never calling back into Lua. */
#include "fg_lua.h"
#include "fg_graph_async.h"
#include "fg_lua_options.h"
#include "fg_graph.h"
#include "graph_declare.h"
#include <stdlib.h>
#include <string.h>

typedef struct lgraph {
  fg_graph *g;
  fg_graph_sizer_fn sizer;   /* remembered for _replace (graph:update with new pipeline-level fields) */
  void *sizer_user;
  /* graph:update re-declares the graph from the pipeline's tables, whose
   * metamethods are user code: meanwhile g:close() waits for the update's end
   * (it freed the graph under node_redeclare) and the methods are refused */
  int busy, closing;
} lgraph;

static lgraph *checklg(lua_State *L, int idx) {
  lgraph *lg = fg_lua_checkudata(L, idx, FG_LUA_GRAPH);
  if (!lg->g) luaL_argerror(L, idx, "graph is closed");
  if (lg->closing) luaL_argerror(L, idx, "graph is closed (g:close() was called during graph:update)");
  return lg;
}

/* A method's graph: refused while graph:update re-declares it. */
static lgraph *checkidle(lua_State *L) {
  lgraph *lg = checklg(L, 1);
  if (lg->busy) {
    lua_Debug ar;
    const char *name = lua_getstack(L, 0, &ar) && lua_getinfo(L, "n", &ar) && ar.name ? ar.name : "?";
    luaL_error(L, "graph:%s during graph:update is refused (called by a metamethod of the pipeline's tables?): the "
               "graph is being re-declared; call it after graph:update returns", name);
  }
  return lg;
}

fg_graph *fg_lua_checkgraph(lua_State *L, int idx) { return checklg(L, idx)->g; }

void fg_lua_graph_pipeline(lua_State *L, int idx) {
  fg_lua_checkudata(L, idx, FG_LUA_GRAPH);
  lua_getiuservalue(L, idx, 1);
}

/* The options table at ot (0 = none), already checked by fg_lua_check_options. */
static void read_compile_opts(lua_State *L, int ot, fg_graph_compile_desc *cd) {
  memset(cd, 0, sizeof *cd);
  fg_graph_profile_by_name(NULL, &cd->profile);
  if (!ot) return;
  lua_getfield(L, ot, "profile");
  if (lua_type(L, -1) == LUA_TSTRING) {
    fg_graph_profile_by_name(lua_tostring(L, -1), &cd->profile);
  } else if (lua_istable(L, -1)) {
    int p = lua_gettop(L);
    cd->profile.alignment = (uint64_t)fg_lua_field_int(L, p, "alignment", FG_DEFAULT_ALIGNMENT);
    cd->profile.buffer_alignment = (uint64_t)fg_lua_field_int(L, p, "buffer_alignment", (lua_Integer)cd->profile.alignment);
    cd->profile.granularity = (uint64_t)fg_lua_field_int(L, p, "granularity", 1);
    cd->profile.memory_type_bits = (uint32_t)fg_lua_field_int(L, p, "memory_type_bits", 1);
  }
  lua_pop(L, 1);
  cd->solver = fg_lua_field_str(L, ot, "solver");  /* copied by fg_graph_compile */
  lua_getfield(L, ot, "time_budget_ms");
  cd->pack_time_budget_ms = lua_tonumber(L, -1);  /* 0 (the default) when absent */
  lua_getfield(L, ot, "capacity");
  cd->pack_capacity = (uint64_t)lua_tointeger(L, -1);  /* checked by the options' rule; 0 when absent */
  lua_pop(L, 2);
  const char *sched = fg_lua_field_str(L, ot, "schedule");
  cd->schedule = sched ? (fg_schedule)fg_schedule_from_name(sched) : FG_SCHEDULE_DEFAULT;
}

static int raise_graph_error(lua_State *L, fg_graph *g) {
  lua_pushstring(L, fg_graph_error(g));
  return lua_error(L);
}

fg_graph *fg_lua_compile(lua_State *L, int pipeline_idx, int opts_idx,
                         int (*sizer)(void *user, const struct fg_graph_resource *res, struct fg_graph_memreq *out),
                         void *sizer_user) {
  int pt = fg_lua_abs_index(L, pipeline_idx);
  int ot = opts_idx ? fg_lua_abs_index(L, opts_idx) : 0;
  if (ot && lua_isnoneornil(L, ot)) ot = 0;
  /* The pipeline's shape was checked by the Lua layer (framegraph.schema, run
   * by fg.compile / fg.runtime / graph:update before they call here); the
   * options are checked here too, by the same functions the schema asks. */
  luaL_checktype(L, pt, LUA_TTABLE);
  if (ot) fg_lua_check_options(L, ot, FG_OPTS_COMPILE);
  lgraph *lg = lua_newuserdatauv(L, sizeof *lg, 2);
  memset(lg, 0, sizeof *lg);
  lg->sizer = sizer;
  lg->sizer_user = sizer_user;
  luaL_setmetatable(L, FG_LUA_GRAPH);
  int ud = lua_gettop(L);
  fg_graph_desc gd = {fg_lua_hooks(L)};
  lg->g = fg_graph_new(&gd);
  if (!lg->g) luaL_error(L, "framegraph: out of memory");
  lua_pushvalue(L, pt);
  lua_setiuservalue(L, ud, 1);
  if (ot) { lua_pushvalue(L, ot); lua_setiuservalue(L, ud, 2); }
  fg_lua_declare_pipeline(L, lg->g, pt, ot);
  fg_graph_compile_desc cd;
  read_compile_opts(L, ot, &cd);
  cd.sizer = sizer;
  cd.sizer_user = sizer_user;
  if (fg_graph_compile(lg->g, &cd)) raise_graph_error(L, lg->g);
  lua_settop(L, ud);
  return lg->g;
}

static int l_compile(lua_State *L) {
  lua_settop(L, 2);
  fg_lua_compile(L, 1, lua_isnil(L, 2) ? 0 : 2, NULL, NULL);
  return 1;
}

/* ------------------------------------------------------------ methods -- */
static void push_index(lua_State *L, fg_graph *g, const uint32_t *index, uint32_t mode) {
  lua_newtable(L);
  for (uint32_t d = 0; d < fg_graph_dim_count(g); d++)
    if (mode >> d & 1) {
      lua_pushinteger(L, (lua_Integer)index[d] + 1);
      lua_setfield(L, -2, fg_graph_dim_name(g, d));
    }
}

/* graph:order() -> names; graph:order{why = true} -> {name, slot, declared,
 * why} per instance (why: "" when the schedule left it at its declared slot) */
static int l_order(lua_State *L) {
  fg_graph *g = checkidle(L)->g;
  int why = 0;
  if (!lua_isnoneornil(L, 2)) {
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_getfield(L, 2, "why");
    why = lua_toboolean(L, -1);
    lua_pop(L, 1);
  }
  fg_lua_hold_gc(L);  /* no finalizer may close self while this reads it */
  uint32_t n = fg_graph_instance_count(g);
  lua_createtable(L, (int)n, 0);
  for (uint32_t s = 0; s < n; s++) {
    const fg_graph_instance *in = fg_graph_instance_get(g, s);
    if (why) {
      lua_createtable(L, 0, 4);
      lua_pushstring(L, in->name); lua_setfield(L, -2, "name");
      lua_pushinteger(L, (lua_Integer)s + 1); lua_setfield(L, -2, "slot");
      lua_pushinteger(L, (lua_Integer)in->declared_slot + 1); lua_setfield(L, -2, "declared");
      lua_pushstring(L, in->moved); lua_setfield(L, -2, "why");
    } else {
      lua_pushstring(L, in->name);
    }
    lua_rawseti(L, -2, (lua_Integer)s + 1);
  }
  return 1;
}

static void push_mode(lua_State *L, fg_graph *g, uint32_t mode) {
  lua_newtable(L);
  int k = 1;
  for (uint32_t d = 0; d < fg_graph_dim_count(g); d++)
    if (mode >> d & 1) { lua_pushstring(L, fg_graph_dim_name(g, d)); lua_rawseti(L, -2, k++); }
}

static int l_nodes(lua_State *L) {
  fg_graph *g = checkidle(L)->g;
  fg_lua_hold_gc(L);  /* no finalizer may close self while this reads it */
  uint32_t n = fg_graph_node_count(g);
  lua_newtable(L);
  int k = 1;
  for (uint32_t i = 0; i < n; i++) {
    fg_graph_node_info ni;
    fg_graph_node_get(g, i, &ni);
    if (ni.state == FG_NODE_REMOVED) continue;
    lua_createtable(L, 0, 8);
    lua_pushstring(L, ni.name); lua_setfield(L, -2, "name");
    lua_pushstring(L, fg_node_state_name(ni.state)); lua_setfield(L, -2, "state");
    lua_pushstring(L, ni.reason); lua_setfield(L, -2, "reason");
    lua_pushinteger(L, ni.instance_count); lua_setfield(L, -2, "instances");
    push_mode(L, g, ni.mode); lua_setfield(L, -2, "multiplex");
    lua_pushinteger(L, (lua_Integer)ni.user); lua_setfield(L, -2, "index");
    if (ni.instance_count) {
      lua_pushinteger(L, ni.first_instance + 1); lua_setfield(L, -2, "first");
      lua_createtable(L, (int)ni.instance_count, 0);  /* slot of each instance, in index order */
      for (uint32_t k = 0; k < ni.instance_count; k++) {
        lua_pushinteger(L, (lua_Integer)fg_graph_node_instance_slot(g, i, k) + 1);
        lua_rawseti(L, -2, (lua_Integer)k + 1);
      }
      lua_setfield(L, -2, "slots");
      lua_pushboolean(L, ni.interleaved); lua_setfield(L, -2, "interleaved");
      if (ni.moved[0]) { lua_pushstring(L, ni.moved); lua_setfield(L, -2, "moved"); }
    }
    lua_rawseti(L, -2, k++);
  }
  return 1;
}

static void push_use(lua_State *L, const fg_graph_use *u) {
  lua_createtable(L, 0, 9);
  lua_pushstring(L, u->name); lua_setfield(L, -2, "name");
  if (u->rename_to) { lua_pushstring(L, u->rename_to); lua_setfield(L, -2, "to"); }
  lua_pushstring(L, fg_access_name(u->access)); lua_setfield(L, -2, "access");
  lua_pushstring(L, fg_usage_name(u->usage)); lua_setfield(L, -2, "usage");
  lua_pushstring(L, fg_stage_name(u->stage)); lua_setfield(L, -2, "stage");
  lua_pushboolean(L, u->optional); lua_setfield(L, -2, "optional");
  lua_pushboolean(L, u->missing); lua_setfield(L, -2, "missing");
  if (!u->missing) {
    lua_createtable(L, 2, 0);
    lua_pushinteger(L, (lua_Integer)u->phys[0] + 1); lua_rawseti(L, -2, 1);
    lua_pushinteger(L, (lua_Integer)u->phys[1] + 1); lua_rawseti(L, -2, 2);
    lua_setfield(L, -2, "resource");  /* 1-based ids into graph:resources() for frame parity 0 / 1 */
  }
}

static void push_att(lua_State *L, const fg_graph_instance *in, const fg_graph_attachment *a, int depth) {
  lua_newtable(L);
  if (a->use != FG_GRAPH_NONE) {
    const fg_graph_use *u = &in->uses[a->use];
    lua_pushstring(L, u->rename_to ? u->rename_to : u->name); lua_setfield(L, -2, "name");
    lua_pushinteger(L, a->use + 1); lua_setfield(L, -2, "use");
  }
  if (a->has_clear) {
    if (depth) lua_pushnumber(L, a->clear[0]);
    else {
      lua_createtable(L, 4, 0);
      for (int i = 0; i < 4; i++) { lua_pushnumber(L, a->clear[i]); lua_rawseti(L, -2, i + 1); }
    }
    lua_setfield(L, -2, "clear");
  }
  if (a->has_stencil_clear) { lua_pushinteger(L, a->clear_stencil); lua_setfield(L, -2, "stencil"); }
}

static int l_instances(lua_State *L) {
  fg_graph *g = checkidle(L)->g;
  fg_lua_hold_gc(L);  /* no finalizer may close self while this reads it */
  uint32_t n = fg_graph_instance_count(g), nodes = fg_graph_node_count(g);
  /* each node's mode once: fg_graph_node_get walks the node's instances, so
   * asking per instance was quadratic in one node's instance count */
  uint32_t *modes = lua_newuserdatauv(L, sizeof(uint32_t) * (nodes ? nodes : 1), 0);
  for (uint32_t k = 0; k < nodes; k++) {
    fg_graph_node_info ni;
    modes[k] = fg_graph_node_get(g, k, &ni) == 0 ? ni.mode : 0;
  }
  lua_createtable(L, (int)n, 0);
  for (uint32_t s = 0; s < n; s++) {
    const fg_graph_instance *in = fg_graph_instance_get(g, s);
    fg_graph_node_info ni = {0};
    if (in->node < nodes) ni.mode = modes[in->node];
    lua_createtable(L, 0, 8);
    lua_pushstring(L, in->name); lua_setfield(L, -2, "name");
    lua_pushstring(L, in->node_name); lua_setfield(L, -2, "node");
    lua_pushinteger(L, (lua_Integer)in->user); lua_setfield(L, -2, "node_index");
    lua_pushinteger(L, in->slot + 1); lua_setfield(L, -2, "slot");
    lua_pushinteger(L, in->declared_slot + 1); lua_setfield(L, -2, "declared_slot");
    if (in->moved[0]) { lua_pushstring(L, in->moved); lua_setfield(L, -2, "moved"); }
    uint32_t fork, join;
    if (fg_graph_async_window(g, s, &fork, &join) == 0) {
      /* the graphics slots it may run beside: fork + 1 .. join - 1 (1-based: after/before) */
      lua_pushstring(L, "async"); lua_setfield(L, -2, "queue");
      lua_pushinteger(L, fork == FG_GRAPH_NONE ? 0 : (lua_Integer)fork + 1); lua_setfield(L, -2, "fork");
      lua_pushinteger(L, (lua_Integer)join + 1); lua_setfield(L, -2, "join");
    }
    push_index(L, g, in->index, ni.mode); lua_setfield(L, -2, "index");
    lua_createtable(L, (int)in->use_count, 0);
    for (uint32_t u = 0; u < in->use_count; u++) { push_use(L, &in->uses[u]); lua_rawseti(L, -2, u + 1); }
    lua_setfield(L, -2, "uses");
    if (in->has_pass) {
      lua_newtable(L);
      lua_createtable(L, (int)in->color_count, 0);
      for (uint32_t c = 0; c < in->color_count; c++) { push_att(L, in, &in->colors[c], 0); lua_rawseti(L, -2, c + 1); }
      lua_setfield(L, -2, "color");
      if (in->has_depth) { push_att(L, in, &in->depth, 1); lua_setfield(L, -2, "depth"); }
      lua_setfield(L, -2, "pass");
    }
    lua_rawseti(L, -2, (lua_Integer)s + 1);
  }
  return 1;
}

static int l_edges(lua_State *L) {
  fg_graph *g = checkidle(L)->g;
  fg_lua_hold_gc(L);  /* no finalizer may close self while this reads it */
  uint32_t n = fg_graph_edge_count(g);
  lua_createtable(L, (int)n, 0);
  for (uint32_t e = 0; e < n; e++) {
    uint32_t a, b;
    fg_graph_edge_get(g, e, &a, &b);
    lua_createtable(L, 2, 0);
    lua_pushstring(L, fg_graph_instance_get(g, a)->name); lua_rawseti(L, -2, 1);
    lua_pushstring(L, fg_graph_instance_get(g, b)->name); lua_rawseti(L, -2, 2);
    lua_rawseti(L, -2, (lua_Integer)e + 1);
  }
  return 1;
}

static const char *kind_name(fg_res_kind k) {
  switch (k) {
  case FG_RES_TEXTURE: return "texture";
  case FG_RES_BUFFER: return "buffer";
  case FG_RES_BLOB: return "blob";
  default: return "external";
  }
}

static int l_resources(lua_State *L) {
  fg_graph *g = checkidle(L)->g;
  fg_lua_hold_gc(L);  /* no finalizer may close self while this reads it */
  uint32_t n = fg_graph_resource_count(g);
  lua_createtable(L, (int)n, 0);
  for (uint32_t i = 0; i < n; i++) {
    const fg_graph_resource *r = fg_graph_resource_get(g, i);
    lua_createtable(L, 0, 24);
    lua_pushinteger(L, r->id + 1); lua_setfield(L, -2, "id");
    lua_pushstring(L, r->name); lua_setfield(L, -2, "name");
    lua_pushstring(L, r->final_name); lua_setfield(L, -2, "final_name");
    lua_pushinteger(L, r->frame); lua_setfield(L, -2, "frame");
    push_index(L, g, r->index, r->mode); lua_setfield(L, -2, "index");
    lua_pushstring(L, kind_name(r->kind)); lua_setfield(L, -2, "kind");
    if (r->kind == FG_RES_TEXTURE || r->kind == FG_RES_EXTERNAL) {
      lua_pushstring(L, fg_format_get(r->format)->name); lua_setfield(L, -2, "format");
      lua_pushinteger(L, r->width); lua_setfield(L, -2, "width");
      lua_pushinteger(L, r->height); lua_setfield(L, -2, "height");
      lua_pushinteger(L, r->mips); lua_setfield(L, -2, "mips");
      lua_pushinteger(L, r->layers); lua_setfield(L, -2, "layers");
    }
    if (r->resolution) { lua_pushstring(L, r->resolution); lua_setfield(L, -2, "resolution"); }
    lua_pushinteger(L, (lua_Integer)(r->kind == FG_RES_BLOB || r->kind == FG_RES_BUFFER ? r->bytes : r->size));
    lua_setfield(L, -2, "declared_bytes");
    lua_pushinteger(L, (lua_Integer)r->size); lua_setfield(L, -2, "bytes");
    lua_pushinteger(L, (lua_Integer)r->alignment); lua_setfield(L, -2, "alignment");
    if (r->heap != FG_GRAPH_NONE) {
      lua_pushinteger(L, r->heap + 1); lua_setfield(L, -2, "heap");
      lua_pushinteger(L, (lua_Integer)r->offset); lua_setfield(L, -2, "offset");
      lua_pushinteger(L, r->group); lua_setfield(L, -2, "group");
    }
    lua_pushinteger(L, r->start); lua_setfield(L, -2, "first");
    uint32_t T = 2 * fg_graph_instance_count(g);
    lua_pushinteger(L, T ? (r->stop + T - 1) % T : 0); lua_setfield(L, -2, "last");
    lua_pushinteger(L, r->stop); lua_setfield(L, -2, "stop");
    lua_pushboolean(L, r->history); lua_setfield(L, -2, "history");
    if (r->history_policy) {
      lua_pushstring(L, r->history_policy == FG_HISTORY_DISCARD ? "discard" : "clear");
      lua_setfield(L, -2, "history_policy");
    }
    lua_pushboolean(L, r->is_output); lua_setfield(L, -2, "output");
    lua_createtable(L, (int)r->touch_count, 0);
    for (uint32_t t = 0; t < r->touch_count; t++) {
      const fg_graph_touch *tc = &r->touches[t];
      lua_createtable(L, 0, 4);
      lua_pushstring(L, fg_graph_instance_get(g, tc->slot)->name); lua_setfield(L, -2, "instance");
      lua_pushstring(L, fg_access_name(tc->access)); lua_setfield(L, -2, "access");
      lua_pushstring(L, fg_usage_name(tc->usage)); lua_setfield(L, -2, "usage");
      lua_pushinteger(L, tc->time); lua_setfield(L, -2, "time");
      lua_rawseti(L, -2, t + 1);
    }
    lua_setfield(L, -2, "users");
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

static int l_stats(lua_State *L) {
  fg_graph *g = checkidle(L)->g;
  fg_lua_hold_gc(L);  /* no finalizer may close self while this reads it */
  fg_graph_stats s;
  fg_graph_get_stats(g, &s);
  lua_createtable(L, 0, 16);
#define SETI(k, v) (lua_pushinteger(L, (lua_Integer)(v)), lua_setfield(L, -2, k))
  SETI("naive_bytes", s.naive_bytes);
  SETI("heap_bytes", s.heap_bytes);
  SETI("load_bytes", s.load_bytes);
  SETI("nodes_active", s.nodes_active);
  SETI("nodes_culled", s.nodes_culled);
  SETI("nodes_broken", s.nodes_broken);
  SETI("instances", s.instances);
  SETI("period", s.period);
  SETI("resources", s.resources);
  SETI("edges", s.edges);
  lua_pushnumber(L, (double)s.ns_total / 1e6); lua_setfield(L, -2, "compile_ms");
  /* the packing share of it, all heaps together (the report stats table) */
  lua_pushnumber(L, (double)s.ns_pack / 1e6); lua_setfield(L, -2, "pack_ms");
  /* the node order kept, what was asked, and what the declared order needs */
  lua_pushstring(L, fg_schedule_name(s.schedule)); lua_setfield(L, -2, "schedule");
  lua_pushstring(L, fg_schedule_name(s.schedule_asked)); lua_setfield(L, -2, "schedule_asked");
  SETI("heap_declared", s.heap_declared);
  SETI("load_declared", s.load_declared);
  SETI("moved", s.moved);
  lua_pushnumber(L, (double)s.ns_schedule / 1e6); lua_setfield(L, -2, "schedule_ms");
  SETI("heap_bound", s.heap_bound);
  SETI("heap_bound_memory", s.heap_bound_memory);
  /* every compiler stage's time, in order: stages_ms = {{name = "validate", ms = ...}, ...} */
  lua_createtable(L, (int)fg_graph_stage_count(), 0);
  for (uint32_t k = 0; k < fg_graph_stage_count(); k++) {
    lua_createtable(L, 0, 2);
    lua_pushstring(L, fg_graph_stage_name(k)); lua_setfield(L, -2, "name");
    lua_pushnumber(L, (double)fg_graph_stage_ns(&s, k) / 1e6); lua_setfield(L, -2, "ms");
    lua_rawseti(L, -2, k + 1);
  }
  lua_setfield(L, -2, "stages_ms");
  lua_createtable(L, (int)s.heap_count, 0);
  for (uint32_t h = 0; h < s.heap_count; h++) {
    const fg_graph_heap *hp = fg_graph_heap_get(g, h);
    lua_createtable(L, 0, 8);
    SETI("memory_type", hp->memory_type_bits);
    SETI("bytes", hp->bytes);
    SETI("load", hp->load);
    SETI("bound", hp->bound);
    SETI("resources", hp->resource_count);
    lua_pushboolean(L, hp->optimal); lua_setfield(L, -2, "optimal");
    lua_pushboolean(L, hp->bound_partial); lua_setfield(L, -2, "bound_partial");
    lua_pushboolean(L, hp->replayed); lua_setfield(L, -2, "replayed");
    lua_pushboolean(L, hp->fits); lua_setfield(L, -2, "fits");
    lua_pushboolean(L, hp->proved); lua_setfield(L, -2, "proved");
    lua_rawseti(L, -2, h + 1);
  }
  lua_setfield(L, -2, "heaps");
  /* what async compute costs in memory (fg_graph_async.h) */
  fg_graph_async_stats as;
  if (fg_graph_get_async_stats(g, &as) == 0) {
    lua_createtable(L, 0, 5);
    SETI("instances", as.async_instances);
    SETI("regions", as.regions);
    SETI("heap_bytes", as.heap_bytes);
    SETI("serial_bytes", as.serial_bytes);
    SETI("region_bytes", as.region_bytes);
    lua_setfield(L, -2, "async");
  }
#undef SETI
  return 1;
}

/* A name argument: C would read "main\0x" as "main" and change another
 * resolution than the one named, so a NUL byte is refused. */
static const char *name_arg(lua_State *L, int arg) {
  size_t n;
  const char *s = luaL_checklstring(L, arg, &n);
  if (strlen(s) != n) luaL_argerror(L, arg, "the name contains a NUL byte (\\0): names must be plain text, remove it");
  return s;
}

static int l_set_resolution(lua_State *L) {
  fg_graph *g = checkidle(L)->g;
  const char *name = name_arg(L, 2);
  lua_Integer w = fg_lua_checkint(L, 3), h = fg_lua_checkint(L, 4);
  if (w <= 0 || w > UINT32_MAX) luaL_argerror(L, 3, "width must be a positive integer");
  if (h <= 0 || h > UINT32_MAX) luaL_argerror(L, 4, "height must be a positive integer");
  if (fg_graph_set_resolution(g, name, (uint32_t)w, (uint32_t)h)) return raise_graph_error(L, g);
  lua_settop(L, 1);
  return 1;
}

static int l_set_dimension(lua_State *L) {
  fg_graph *g = checkidle(L)->g;
  const char *name = name_arg(L, 2);
  lua_Integer n = fg_lua_checkint(L, 3);
  if (n <= 0 || n > FG_MAX_DIMENSION_COUNT) luaL_argerror(L, 3, "count must be a positive integer");
  if (fg_graph_set_dimension(g, name, (uint32_t)n)) return raise_graph_error(L, g);
  lua_settop(L, 1);
  return 1;
}

static int l_pipeline(lua_State *L) {
  checkidle(L);
  lua_getiuservalue(L, 1, 1);
  return 1;
}

/* --- low-level hooks for graph:update (lua/framegraph/graph.lua) --- */
/* A declared node's index at arg, checked before the cast: the hooks are
 * reachable from Lua, and an index past the node list must raise, not reach C. */
static uint32_t node_index(lua_State *L, fg_graph *g, int arg) {
  lua_Integer i = fg_lua_checkint(L, arg);
  if (i < 0 || i >= (lua_Integer)fg_graph_node_count(g))
    luaL_argerror(L, arg, lua_pushfstring(L, "node index %I out of range (0..%I)", i, (lua_Integer)fg_graph_node_count(g) - 1));
  return (uint32_t)i;
}
/* g:_node_find(name) -> 0-based C node index or nil */
static int l_node_find(lua_State *L) {
  fg_graph *g = checklg(L, 1)->g;
  uint32_t i = fg_graph_node_find(g, name_arg(L, 2));
  if (i == FG_GRAPH_NONE) return 0;
  lua_pushinteger(L, i);
  return 1;
}
/* g:_node_redeclare(cindex or nil, nodetable, user): reset (or add) and declare */
static int l_node_redeclare(lua_State *L) {
  fg_graph *g = checklg(L, 1)->g;
  luaL_checktype(L, 3, LUA_TTABLE);
  lua_Integer user = fg_lua_checkint(L, 4);
  const char *mux[FG_GRAPH_MAX_DIMS];
  fg_graph_node_desc nd;
  fg_lua_node_desc_of(L, 3, &nd, mux, user);
  uint32_t ni;
  if (lua_isnil(L, 2)) {
    ni = fg_graph_add_node(g, &nd);
    if (ni == FG_GRAPH_NONE) return luaL_error(L, "framegraph: out of memory");
  } else {
    ni = node_index(L, g, 2);
    if (fg_graph_node_reset(g, ni, &nd)) return luaL_error(L, "framegraph: out of memory");
  }
  fg_lua_declare_node_body(L, g, ni, 3, nd.name);
  lua_pushinteger(L, ni);
  return 1;
}
static int l_node_remove(lua_State *L) {
  fg_graph *g = checklg(L, 1)->g;
  fg_graph_node_remove(g, node_index(L, g, 2));
  return 0;
}
static int l_node_set_user(lua_State *L) {
  fg_graph *g = checklg(L, 1)->g;
  uint32_t ni = node_index(L, g, 2);
  lua_Integer pos = fg_lua_checkint(L, 3);
  fg_graph_node_set_user(g, ni, pos);
  fg_graph_node_set_order_hint(g, ni, pos > 0 && pos < UINT32_MAX ? (uint32_t)pos : 0);
  return 0;
}
/* g:_recompile(pipeline): recompile with the remembered options; the graph now refers to `pipeline` */
static int l_recompile(lua_State *L) {
  lgraph *lg = checklg(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_pushvalue(L, 2);
  lua_setiuservalue(L, 1, 1);
  if (fg_graph_recompile(lg->g)) return raise_graph_error(L, lg->g);
  lua_settop(L, 1);
  return 1;
}

static int l_opts(lua_State *L) {
  checklg(L, 1);
  lua_getiuservalue(L, 1, 2);
  return 1;
}

static int l_set_pipeline(lua_State *L) {
  checklg(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_pushvalue(L, 2);
  lua_setiuservalue(L, 1, 1);
  return 0;
}

/* g:_replace(pipeline): declare everything anew (pipeline-level fields changed) */
static int l_replace(lua_State *L) {
  lgraph *lg = checklg(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_settop(L, 2);
  lua_getiuservalue(L, 1, 2);
  int ot = lua_istable(L, 3) ? 3 : 0;
  /* a temporary owner so an error while declaring cannot leak the new graph */
  lgraph *tmp = lua_newuserdatauv(L, sizeof *tmp, 0);
  memset(tmp, 0, sizeof *tmp);
  luaL_setmetatable(L, FG_LUA_GRAPH);
  fg_graph_desc gd = {fg_lua_hooks(L)};
  tmp->g = fg_graph_new(&gd);
  if (!tmp->g) return luaL_error(L, "framegraph: out of memory");
  fg_lua_declare_pipeline(L, tmp->g, 2, ot);
  fg_graph_compile_desc cd;
  read_compile_opts(L, ot, &cd);
  cd.sizer = lg->sizer;
  cd.sizer_user = lg->sizer_user;
  if (fg_graph_compile(tmp->g, &cd)) return raise_graph_error(L, tmp->g);
  fg_graph *old = lg->g;
  lg->g = tmp->g;
  tmp->g = old;  /* freed with tmp */
  lua_pushvalue(L, 2);
  lua_setiuservalue(L, 1, 1);
  return 0;
}

static int l_close(lua_State *L) {
  lgraph *lg = fg_lua_checkudata(L, 1, FG_LUA_GRAPH);
  if (lg->busy) { lg->closing = 1; return 0; }  /* inside graph:update: at its end */
  if (lg->g) { fg_graph_free(lg->g); lg->g = NULL; }
  return 0;
}

/* hooks.busy(g) -> "busy" while graph:update runs, "closed", else nil; hooks.busy(g, true) marks
 * it; hooks.busy(g, false) ends it -> true when g:close() was called
 * meanwhile (the graph is closed now). */
static int l_busy(lua_State *L) {
  lgraph *lg = fg_lua_checkudata(L, 1, FG_LUA_GRAPH);
  if (lua_isnone(L, 2)) {
    if (lg->busy) lua_pushliteral(L, "busy");
    else if (!lg->g) lua_pushliteral(L, "closed");
    else lua_pushnil(L);
    return 1;
  }
  if (lua_toboolean(L, 2)) {
    checklg(L, 1);
    lg->busy = 1;
    return 0;
  }
  lg->busy = 0;
  int closed = lg->closing;
  if (closed) {
    lg->closing = 0;
    if (lg->g) { fg_graph_free(lg->g); lg->g = NULL; }
  }
  lua_pushboolean(L, closed);
  return 1;
}

static int l_tostring(lua_State *L) {
  lgraph *lg = fg_lua_checkudata(L, 1, FG_LUA_GRAPH);
  if (!lg->g) lua_pushliteral(L, "framegraph.graph (closed)");
  else if (lg->busy) lua_pushstring(L, lg->closing ? "framegraph.graph (closing at the end of graph:update)"
                                                   : "framegraph.graph (being updated)");
  else {
    fg_graph_stats s;
    fg_graph_get_stats(lg->g, &s);
    lua_pushfstring(L, "framegraph.graph (%d instances, %d resources)", (int)s.instances, (int)s.resources);
  }
  return 1;
}

static const luaL_Reg graph_methods[] = {
  {"order", l_order}, {"nodes", l_nodes}, {"instances", l_instances}, {"edges", l_edges},
  {"resources", l_resources}, {"stats", l_stats}, {"set_resolution", l_set_resolution},
  {"set_dimension", l_set_dimension}, {"pipeline", l_pipeline}, {"close", l_close},
  {NULL, NULL}};

/* The hooks of graph:update and the runtime's reload, called as
 * hooks.name(graph, ...): not methods, so no user object offers them. */
static const luaL_Reg graph_hooks[] = {
  {"node_find", l_node_find}, {"node_redeclare", l_node_redeclare}, {"node_remove", l_node_remove},
  {"node_set_user", l_node_set_user}, {"recompile", l_recompile}, {"opts", l_opts},
  {"set_pipeline", l_set_pipeline}, {"replace", l_replace}, {"busy", l_busy}, {NULL, NULL}};

static const luaL_Reg graph_meta[] = {{"__gc", l_close}, {"__close", l_close}, {"__tostring", l_tostring}, {NULL, NULL}};

void fg_lua_open_graph(lua_State *L) {
  luaL_newmetatable(L, FG_LUA_GRAPH);
  luaL_setfuncs(L, graph_meta, 0);
  luaL_newlib(L, graph_methods);
  lua_pushvalue(L, -1);
  lua_setfield(L, -4, "graph_methods");  /* graph.lua adds update/dot/svg here */
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
  luaL_newlib(L, graph_hooks);
  lua_setfield(L, -2, "graph_hooks");
  lua_pushcfunction(L, l_compile);
  lua_setfield(L, -2, "compile");
}
