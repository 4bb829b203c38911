/* Lua binding of the frame runtime ("framegraph.runtime"); the command object
 * nodes record with ("framegraph.cmd") is cmd.c. Style of liolib.c: one
 * metatable per type, __index method table, __gc/__close release, idempotent
 * close. Misuse raises; system failures return nil, message.
 *
 * Runtime uservalues: 1 device, 2 graph userdata, 3 compile options, 4 run
 * functions per slot, 5 ctx tables per slot, 6 blobs per parity, 7 the cmd
 * userdata, 8 the inputs of the frame being recorded.
 *
 * Upload handles ("framegraph.upload", from rt:upload / ctx.upload): a range
 * of the runtime's upload ring for one frame; uservalue 1 keeps the runtime
 * alive. cmd:copy and cmd:dispatch/draw bindings accept them. */
#include "fg_lua_runtime.h"
#include "fg_vk_image.h"
#include "fg_vk_pixels.h"
#include "fg_vk_window.h"
#include <stdlib.h>
#include <string.h>

/* An image made for `external` resources (dev:external_image): the runtime
 * transitions it but never allocates it; it tracks its layout across frames. */
typedef struct limage {
  fg_vk_device *dev;
  fg_vk_image img;
  fg_format format;
  uint32_t width, height;
} limage;

static int img_close(lua_State *L) {
  limage *m = luaL_checkudata(L, 1, FG_LUA_IMAGE);
  if (m->dev) {
    fg_vk_image_destroy(m->dev, &m->img);
    fg_vk_release(m->dev);
    m->dev = NULL;
  }
  return 0;
}

/* dev:external_image(format, width, height) -> image | nil, err */
static int dev_external_image(lua_State *L) {
  fg_vk_device *dev = fg_lua_checkdevice(L, 1);
  const char *fname = luaL_checkstring(L, 2);
  lua_Integer w = luaL_checkinteger(L, 3), h = luaL_checkinteger(L, 4);
  fg_format f = fg_format_from_name(fname);
  if (f == FG_FORMAT_UNDEFINED) return luaL_argerror(L, 2, lua_pushfstring(L, "unknown format '%s' (one of %s)", fname, fg_format_names()));
  luaL_argcheck(L, w > 0 && w <= 16384, 3, "width must be in 1..16384");
  luaL_argcheck(L, h > 0 && h <= 16384, 4, "height must be in 1..16384");
  limage *m = lua_newuserdatauv(L, sizeof *m, 0);
  memset(m, 0, sizeof *m);
  luaL_setmetatable(L, FG_LUA_IMAGE);
  m->dev = fg_vk_retain(dev);
  m->format = f;
  m->width = (uint32_t)w;
  m->height = (uint32_t)h;
  fg_vk_image_desc desc = {.format = f, .width = m->width, .height = m->height};
  int r = fg_vk_image_create(dev, &desc, &m->img);
  if (r) {
    lua_pushcfunction(L, img_close);
    lua_pushvalue(L, -2);
    lua_call(L, 1, 0);
    luaL_pushfail(L);
    lua_pushfstring(L, "creating an external image %dx%d %s failed (VkResult %d)", (int)w, (int)h, fname, (int)r);
    return 2;
  }
  return 1;
}

static int img_tostring(lua_State *L) {
  limage *m = luaL_checkudata(L, 1, FG_LUA_IMAGE);
  lua_pushfstring(L, "framegraph.image (%dx%d %s%s)", (int)m->width, (int)m->height, fg_format_get(m->format)->name,
                  m->dev ? "" : ", closed");
  return 1;
}

static lrt *check_rt(lua_State *L, int idx) {
  lrt *o = luaL_checkudata(L, idx, FG_LUA_RUNTIME);
  if (!o->rt) luaL_argerror(L, idx, "runtime is closed or has no valid plan (a failed reload)");
  return o;
}

/* ---------------------------------------------------------- creation -- */

/* Options for the compiler: the user's, with the profile's granularity
 * raised to the device's bufferImageGranularity (real placement needs it). */
static int compile_opts(lua_State *L, lrt *o, int opts) {
  lua_newtable(L);
  int t = lua_gettop(L);
  if (opts && lua_istable(L, opts)) {
    lua_pushnil(L);
    while (lua_next(L, opts)) {
      if (lua_type(L, -2) == LUA_TSTRING && (!strcmp(lua_tostring(L, -2), "poison") ||
                                              !strcmp(lua_tostring(L, -2), "seed") ||
                                              !strcmp(lua_tostring(L, -2), "upload_bytes") ||
                                              !strcmp(lua_tostring(L, -2), "upload_segment") ||
                                              !strcmp(lua_tostring(L, -2), "memory_budget"))) {
        lua_pop(L, 1);  /* runtime options, not the compiler's */
        continue;
      }
      lua_pushvalue(L, -2);
      lua_insert(L, -2);
      lua_settable(L, t);
    }
    /* memory_budget is each heap's capacity too (unless capacity is given): a heap packed above
     * it is packed again as a decision at it (fg_graph_compile_desc.pack_capacity) */
    lua_getfield(L, t, "capacity");
    if (lua_isnil(L, -1)) {
      lua_getfield(L, opts, "memory_budget");
      lua_setfield(L, t, "capacity");
    }
    lua_pop(L, 1);
  }
  uint64_t align = 0, gran = o->dev->props.limits.bufferImageGranularity;
  lua_getfield(L, t, "profile");
  if (lua_istable(L, -1)) {
    lua_getfield(L, -1, "alignment");
    if (lua_isinteger(L, -1)) align = (uint64_t)lua_tointeger(L, -1);
    lua_pop(L, 1);
    lua_getfield(L, -1, "granularity");
    if (lua_isinteger(L, -1) && (uint64_t)lua_tointeger(L, -1) > gran) gran = (uint64_t)lua_tointeger(L, -1);
    lua_pop(L, 1);
  } else if (!lua_isnil(L, -1) && !lua_isstring(L, -1)) {
    luaL_error(L, "fg.runtime: opts.profile must be a table {alignment =, granularity =} or a name");
  }
  lua_pop(L, 1);
  o->sizer.dev = o->dev;
  o->sizer.alignment = align;
  lua_newtable(L);
  lua_pushinteger(L, (lua_Integer)(align ? align : FG_DEFAULT_ALIGNMENT));
  lua_setfield(L, -2, "alignment");
  lua_pushinteger(L, (lua_Integer)gran);
  lua_setfield(L, -2, "granularity");
  lua_setfield(L, t, "profile");
  lua_pushnil(L);
  lua_setfield(L, t, "device");
  return t;
}

/* ------------------------------------------------------------ uploads -- */

/* Copies the string at bytes_idx into the ring; pushes a handle, or nil +
 * message when the ring has no room (a system limit, not a misuse). */
static int push_upload(lua_State *L, lrt *o, int self, int bytes_idx, int align_idx, const char *what) {
  size_t n;
  const char *bytes = luaL_checklstring(L, bytes_idx, &n);
  lua_Integer align = luaL_optinteger(L, align_idx, 0);
  luaL_argcheck(L, n > 0, bytes_idx, "empty upload: pass a non-empty string of bytes");
  luaL_argcheck(L, align >= 0 && align <= 65536 && (align & (align - 1)) == 0, align_idx,
                "alignment must be a power of two up to 65536 (or 0 / absent for the device's default)");
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

/* rt:upload(bytes [, align]) -> upload | nil, err: data for the next frame. */
static int rt_upload(lua_State *L) {
  lrt *o = check_rt(L, 1);
  return push_upload(L, o, 1, 2, 3, "rt:upload");
}

/* ctx.upload(bytes [, align]): the same, for data made while recording. */
static int l_ctx_upload(lua_State *L) {
  lrt *o = lua_touserdata(L, lua_upvalueindex(1));
  if (!o || !o->rt) return luaL_error(L, "ctx.upload: the runtime is closed");
  return push_upload(L, o, lua_upvalueindex(1), 1, 2, "ctx.upload");
}

static int up_size(lua_State *L) {
  lupload *h = luaL_checkudata(L, 1, FG_LUA_UPLOAD);
  lua_pushinteger(L, (lua_Integer)h->size);
  return 1;
}

static int up_offset(lua_State *L) {
  lupload *h = luaL_checkudata(L, 1, FG_LUA_UPLOAD);
  lua_pushinteger(L, (lua_Integer)h->offset);
  return 1;
}

static int up_valid(lua_State *L) {
  lupload *h = luaL_checkudata(L, 1, FG_LUA_UPLOAD);
  lua_pushboolean(L, upload_valid(h));
  return 1;
}

static int up_tostring(lua_State *L) {
  lupload *h = luaL_checkudata(L, 1, FG_LUA_UPLOAD);
  lua_pushfstring(L, "framegraph.upload (%d bytes at %d, frame %d%s)", (int)h->size, (int)h->offset,
                  (int)h->rt_frame, upload_valid(h) ? "" : ", stale");
  return 1;
}

/* rt:upload_stats() -> {size, allocations, bytes, segments, free_segments,
 * retired_segments, segment_acquires, full, waits, frame, completed} */
static int rt_upload_stats(lua_State *L) {
  lrt *o = check_rt(L, 1);
  fg_upload_stats st;
  uint64_t size, waits;
  fg_rt_upload_stats(o->rt, &st, &size, &waits);
  lua_createtable(L, 0, 11);
  lua_pushinteger(L, (lua_Integer)size); lua_setfield(L, -2, "size");
  lua_pushinteger(L, (lua_Integer)st.allocations); lua_setfield(L, -2, "allocations");
  lua_pushinteger(L, (lua_Integer)st.bytes); lua_setfield(L, -2, "bytes");
  lua_pushinteger(L, st.segments); lua_setfield(L, -2, "segments");
  lua_pushinteger(L, st.free_segments); lua_setfield(L, -2, "free_segments");
  lua_pushinteger(L, st.retired_segments); lua_setfield(L, -2, "retired_segments");
  lua_pushinteger(L, (lua_Integer)st.segment_acquires); lua_setfield(L, -2, "segment_acquires");
  lua_pushinteger(L, (lua_Integer)st.waits); lua_setfield(L, -2, "full");
  lua_pushinteger(L, (lua_Integer)waits); lua_setfield(L, -2, "waits");
  lua_pushinteger(L, (lua_Integer)st.frame); lua_setfield(L, -2, "frame");
  lua_pushinteger(L, (lua_Integer)st.completed); lua_setfield(L, -2, "completed");
  return 1;
}

/* Run functions and ctx tables per instance slot. Needs the graph at uv 2. */
static void build_slots(lua_State *L, lrt *o, int self) {
  uint32_t n = fg_graph_instance_count(o->g);
  uint32_t nd = fg_graph_dim_count(o->g);
  lua_getiuservalue(L, self, UV_GRAPH);
  fg_lua_graph_pipeline(L, lua_gettop(L));
  lua_getfield(L, -1, "nodes");
  int nodes = lua_gettop(L);
  lua_createtable(L, (int)n, 0);
  int runs = lua_gettop(L);
  lua_createtable(L, (int)n, 0);
  int ctxs = lua_gettop(L);
  for (uint32_t s = 0; s < n; s++) {
    const fg_graph_instance *in = fg_graph_instance_get(o->g, s);
    if (lua_istable(L, nodes)) {
      lua_geti(L, nodes, in->user);
      if (lua_istable(L, -1)) lua_getfield(L, -1, "run");
      else lua_pushnil(L);
      lua_remove(L, -2);
    } else {
      lua_pushnil(L);
    }
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
      lua_setfield(L, -2, fg_graph_dim_name(o->g, d));
    }
    lua_setfield(L, -2, "index");
    lua_getfield(L, LUA_REGISTRYINDEX, "framegraph.runtime.blobfn");
    lua_pushvalue(L, self);
    lua_pushinteger(L, (lua_Integer)s);
    lua_pushcclosure(L, lua_tocfunction(L, -3), 2);
    lua_remove(L, -2);
    lua_setfield(L, -2, "blob");
    lua_pushvalue(L, self);
    lua_pushcclosure(L, l_ctx_upload, 1);
    lua_setfield(L, -2, "upload");
    lua_rawseti(L, ctxs, s + 1);
  }
  lua_pushvalue(L, runs);
  lua_setiuservalue(L, self, UV_RUN);
  lua_pushvalue(L, ctxs);
  lua_setiuservalue(L, self, UV_CTX);
  lua_settop(L, nodes - 3);
}

/* Width/height in ctx: the pass's render area, else the first image used. */
static void set_ctx_extent(lua_State *L, lrt *o, int ctx, uint32_t slot) {
  const fg_graph_instance *in = fg_graph_instance_get(o->g, slot);
  uint32_t w = 0, h = 0;
  for (uint32_t u = 0; u < in->use_count && !w; u++) {
    uint32_t ph = fg_rt_use_phys(o->rt, slot, u);
    fg_rt_res *r = ph == FG_GRAPH_NONE ? NULL : fg_rt_resource(o->rt, ph);
    int attach = 0;
    if (in->has_pass) {
      for (uint32_t c = 0; c < in->color_count; c++) if (in->colors[c].use == u) attach = 1;
      if (in->has_depth && in->depth.use == u) attach = 1;
      if (!attach) continue;
    }
    if (r && r->is_image) { w = r->width; h = r->height; }
  }
  lua_pushinteger(L, w);
  lua_setfield(L, ctx, "width");
  lua_pushinteger(L, h);
  lua_setfield(L, ctx, "height");
}

static int l_blob(lua_State *L) {
  lrt *o = lua_touserdata(L, lua_upvalueindex(1));
  const char *name = luaL_checkstring(L, 1);
  int self = lua_upvalueindex(1);
  if (!o || !o->rt) return luaL_error(L, "ctx.blob: the runtime is closed");
  lua_getiuservalue(L, self, UV_INPUTS);
  if (lua_istable(L, -1)) {
    lua_getfield(L, -1, name);
    if (!lua_isnil(L, -1)) return 1;
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  /* A multiplexed blob has one copy per index: key it by the physical
   * resource this instance uses (so camera[eye=2] and gbuffer[eye=2] share
   * one table, apart from eye 1's); names the node did not declare keep one
   * table per name. */
  uint32_t slot = (uint32_t)lua_tointeger(L, lua_upvalueindex(2)), ph = FG_GRAPH_NONE;
  const fg_graph_instance *in = fg_graph_instance_get(o->g, slot);
  for (uint32_t u = 0; in && u < in->use_count && ph == FG_GRAPH_NONE; u++) {
    const fg_graph_use *us = &in->uses[u];
    if (!us->missing && (!strcmp(us->name, name) || (us->rename_to && !strcmp(us->rename_to, name))))
      ph = fg_rt_use_phys(o->rt, slot, u);
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

static void set_graph(lua_State *L, lrt *o, int self, int graph_idx) {
  lua_pushvalue(L, graph_idx);
  lua_setiuservalue(L, self, UV_GRAPH);
  o->g = fg_lua_checkgraph(L, graph_idx);
}

/* core.runtime(dev, pipeline, opts) -> rt | nil, err */
static int l_runtime(lua_State *L) {
  fg_vk_device *dev = fg_lua_checkdevice(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  if (!lua_isnoneornil(L, 3)) luaL_checktype(L, 3, LUA_TTABLE);
  lua_settop(L, 3);
  lrt *o = lua_newuserdatauv(L, sizeof *o, UV_COUNT);
  memset(o, 0, sizeof *o);
  luaL_setmetatable(L, FG_LUA_RUNTIME);
  int self = lua_gettop(L);
  o->dev = fg_vk_retain(dev);
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, self, UV_DEV);
  int opts = compile_opts(L, o, lua_istable(L, 3) ? 3 : 0);
  lua_pushvalue(L, opts);
  lua_setiuservalue(L, self, UV_OPTS);
  lua_createtable(L, 2, 0);
  lua_newtable(L); lua_rawseti(L, -2, 1);
  lua_newtable(L); lua_rawseti(L, -2, 2);
  lua_setiuservalue(L, self, UV_BLOBS);
  fg_rt_desc desc = {0};
  if (lua_istable(L, 3)) {
    lua_getfield(L, 3, "poison");
    desc.poison = lua_toboolean(L, -1);
    lua_getfield(L, 3, "seed");
    desc.seed = (uint64_t)lua_tointeger(L, -1);
    lua_pop(L, 2);
    lua_getfield(L, 3, "upload_bytes");
    if (!lua_isnil(L, -1)) {
      lua_Integer v = lua_tointeger(L, -1);
      if (!lua_isinteger(L, -1) || v < 256)
        luaL_error(L, "fg.runtime: opts.upload_bytes must be an integer >= 256 (the upload ring's size), got %s",
                   luaL_tolstring(L, -1, NULL));
      desc.upload_bytes = (uint64_t)v;
    }
    lua_getfield(L, 3, "memory_budget");  /* checked by the options' rule (an integer >= 0) */
    if (lua_isinteger(L, -1) && lua_tointeger(L, -1) > 0) desc.memory_budget = (uint64_t)lua_tointeger(L, -1);
    lua_pop(L, 1);
    lua_getfield(L, 3, "upload_segment");
    if (!lua_isnil(L, -1)) {
      lua_Integer v = lua_tointeger(L, -1);
      if (!lua_isinteger(L, -1) || v < 256 || (v & (v - 1)) ||
          (uint64_t)v > (desc.upload_bytes ? desc.upload_bytes : (4u << 20)))
        luaL_error(L, "fg.runtime: opts.upload_segment must be a power of two >= 256 and <= upload_bytes, got %s",
                   luaL_tolstring(L, -1, NULL));
      desc.upload_segment = (uint64_t)v;
    }
    lua_pop(L, 2);
  }
  fg_lua_compile(L, 2, opts, fg_rt_sizer, &o->sizer);
  set_graph(L, o, self, lua_gettop(L));
  o->rt = fg_rt_create(dev, o->g, &desc, o->err, sizeof o->err);
  if (!o->rt) {
    luaL_pushfail(L);
    lua_pushstring(L, o->err);
    return 2;
  }
  lcmd *c = lua_newuserdatauv(L, sizeof *c, 0);
  memset(c, 0, sizeof *c);
  c->o = o;
  luaL_setmetatable(L, FG_LUA_CMD);
  lua_setiuservalue(L, self, UV_CMD);
  build_slots(L, o, self);
  lua_pushvalue(L, self);
  return 1;
}

static int rt_close(lua_State *L) {
  lrt *o = luaL_checkudata(L, 1, FG_LUA_RUNTIME);
  if (o->rt) { fg_rt_destroy(o->rt); o->rt = NULL; }
  if (o->dev) { fg_vk_release(o->dev); o->dev = NULL; }
  o->g = NULL;
  return 0;
}

/* ------------------------------------------------------------ frames -- */

static int node_cb(void *user, fg_rt *rt, VkCommandBuffer cmd, uint32_t slot) {
  lrt *o = user;
  lua_State *L = o->L;
  int top = lua_gettop(L);
  lua_getiuservalue(L, o->self, UV_RUN);
  lua_rawgeti(L, -1, slot + 1);
  if (!lua_isfunction(L, -1)) { lua_settop(L, top); return 0; }
  lua_getiuservalue(L, o->self, UV_CMD);
  lcmd *c = lua_touserdata(L, -1);
  c->o = o;
  c->cmd = cmd;
  c->slot = slot;
  c->valid = 1;
  lua_getiuservalue(L, o->self, UV_CTX);
  lua_rawgeti(L, -1, slot + 1);
  lua_remove(L, -2);
  int ctx = lua_gettop(L);
  lua_pushinteger(L, (lua_Integer)fg_rt_frame_index(rt));
  lua_setfield(L, ctx, "frame");
  set_ctx_extent(L, o, ctx, slot);
  int rc = lua_pcall(L, 2, 0, 0);
  c->valid = 0;
  if (rc != LUA_OK) {
    const fg_graph_instance *in = fg_graph_instance_get(o->g, slot);
    const char *msg = lua_tostring(L, -1);
    fg_errf(o->err, sizeof o->err, "node '%s' run failed: %s", in->name, msg ? msg : "(error object is not a string)");
    lua_settop(L, top);
    return 1;
  }
  lua_settop(L, top);
  return 0;
}

static void push_stats(lua_State *L, lrt *o) {
  fg_rt_stats st;
  fg_rt_get_stats(o->rt, &st);
  lua_createtable(L, 0, 8);
  lua_pushinteger(L, (lua_Integer)st.frames); lua_setfield(L, -2, "frames");
  lua_pushinteger(L, st.barriers); lua_setfield(L, -2, "barriers");
  lua_pushinteger(L, st.batches); lua_setfield(L, -2, "batches");
  lua_createtable(L, 2, 0);
  lua_pushinteger(L, st.planned_barriers[0]); lua_rawseti(L, -2, 1);
  lua_pushinteger(L, st.planned_barriers[1]); lua_rawseti(L, -2, 2);
  lua_setfield(L, -2, "planned_barriers");
  lua_pushnumber(L, (double)st.record_ns / 1000.0); lua_setfield(L, -2, "record_us");
  lua_pushnumber(L, (double)st.callback_ns / 1000.0); lua_setfield(L, -2, "callback_us");
  lua_pushinteger(L, st.instances); lua_setfield(L, -2, "instances");
}

/* Asks pipeline.external[name].provide(index) for this frame's images. */
static void provide_externals(lua_State *L, lrt *o) {
  uint32_t n = fg_rt_resource_count(o->rt), parity = fg_rt_parity(o->rt), nd = fg_graph_dim_count(o->g);
  int top = lua_gettop(L);
  lua_newtable(L);
  int keep = lua_gettop(L);
  lua_getiuservalue(L, 1, UV_GRAPH);
  fg_lua_graph_pipeline(L, lua_gettop(L));
  lua_getfield(L, -1, "external");
  int ext = lua_gettop(L);
  for (uint32_t i = 0; i < n; i++) {
    fg_rt_res *r = fg_rt_resource(o->rt, i);
    if (!r->is_external || r->g->frame != parity) continue;
    if (!lua_istable(L, ext)) luaL_error(L, "external resource '%s' but pipeline.external is missing", r->g->name);
    lua_getfield(L, ext, r->g->name);
    if (lua_istable(L, -1)) lua_getfield(L, -1, "provide");
    else lua_pushnil(L);
    if (!lua_isfunction(L, -1))
      luaL_error(L, "external resource '%s' needs pipeline.external.%s.provide = function(index) return image end "
                 "(an image from dev:external_image)", r->g->name, r->g->name);
    lua_createtable(L, 0, (int)nd);
    for (uint32_t d = 0; d < nd; d++) {
      lua_pushinteger(L, (lua_Integer)r->g->index[d] + 1);
      lua_setfield(L, -2, fg_graph_dim_name(o->g, d));
    }
    lua_call(L, 1, 1);
    fg_vk_window *win = fg_lua_testwindow(L, -1);
    if (win) {  /* a window's acquired swapchain image, presented after the frame */
      fg_vk_window_target t;
      if (fg_vk_window_target_get(win, &t))
        luaL_error(L, "external '%s': provide returned a window with no acquired image; call win:acquire() "
                   "before rt:frame()", r->g->name);
      if (fg_rt_format_back(t.format) != r->g->format || t.width != r->width || t.height != r->height)
        luaL_error(L, "external '%s': the window's swapchain is %dx%d %s; the pipeline declares %dx%d %s (follow "
                   "the window size with rt:set_resolution)", r->g->name, (int)t.width, (int)t.height,
                   fg_format_get(fg_rt_format_back(t.format))->name, (int)r->width, (int)r->height,
                   fg_format_get(r->g->format)->name);
      fg_rt_set_external(o->rt, i, t.image, t.view, t.layout);
      fg_rt_set_present(o->rt, i, t.acquired, t.presentable);
      lua_rawseti(L, keep, (lua_Integer)luaL_len(L, keep) + 1);
      lua_pop(L, 1);
      continue;
    }
    limage *m = luaL_testudata(L, -1, FG_LUA_IMAGE);
    if (!m || !m->dev)
      luaL_error(L, "external '%s': provide(index) must return an open image from dev:external_image, got %s",
                 r->g->name, luaL_typename(L, -1));
    if (m->format != r->g->format || m->width != r->width || m->height != r->height)
      luaL_error(L, "external '%s': provide returned a %dx%d %s image; the pipeline declares %dx%d %s", r->g->name,
                 (int)m->width, (int)m->height, fg_format_get(m->format)->name, (int)r->width, (int)r->height,
                 fg_format_get(r->g->format)->name);
    fg_rt_set_external(o->rt, i, m->img.image, m->img.view, &m->img.layout);
    lua_rawseti(L, keep, (lua_Integer)luaL_len(L, keep) + 1);
    lua_pop(L, 1);
  }
  lua_pushvalue(L, keep);
  lua_setiuservalue(L, 1, UV_EXT);  /* keeps the images alive while in flight */
  lua_settop(L, top);
}

/* rt:frame([inputs]) -> stats of the frame ({barriers, batches, ...}) */
static int rt_frame(lua_State *L) {
  lrt *o = check_rt(L, 1);
  if (o->L) return luaL_error(L, "rt:frame called from inside a node's run (recursion)");
  if (!lua_isnoneornil(L, 2)) luaL_checktype(L, 2, LUA_TTABLE);
  lua_settop(L, 2);
  lua_pushvalue(L, 2);
  lua_setiuservalue(L, 1, UV_INPUTS);
  provide_externals(L, o);
  o->L = L;
  o->self = 1;
  int rc = fg_rt_frame(o->rt, node_cb, o, o->err, sizeof o->err);
  o->L = NULL;
  lua_pushnil(L);
  lua_setiuservalue(L, 1, UV_INPUTS);
  if (rc == -1) return luaL_error(L, "%s", o->err);
  if (rc) {
    luaL_pushfail(L);
    lua_pushstring(L, o->err);
    return 2;
  }
  /* Windows given as externals now hold a rendered image to present. */
  lua_getiuservalue(L, 1, UV_EXT);
  for (lua_Integer k = 1, n = luaL_len(L, -1); k <= n; k++) {
    lua_rawgeti(L, -1, k);
    fg_vk_window *win = fg_lua_testwindow(L, -1);
    if (win) fg_vk_window_rendered(win);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  push_stats(L, o);
  return 1;
}

static int rt_stats(lua_State *L) {
  lrt *o = check_rt(L, 1);
  push_stats(L, o);
  return 1;
}

static int rt_memory(lua_State *L) {
  lrt *o = check_rt(L, 1);
  uint32_t n = fg_rt_heap_count(o->rt);
  uint64_t total = 0;
  lua_createtable(L, (int)n, 2);
  for (uint32_t h = 0; h < n; h++) {
    fg_rt_heap_info hi;
    fg_rt_heap_get(o->rt, h, &hi);
    lua_createtable(L, 0, 3);
    lua_pushinteger(L, (lua_Integer)hi.bytes); lua_setfield(L, -2, "bytes");
    lua_pushinteger(L, (lua_Integer)hi.planned); lua_setfield(L, -2, "planned");
    lua_pushinteger(L, hi.memory_type); lua_setfield(L, -2, "memory_type");
    lua_rawseti(L, -2, h + 1);
    total += hi.bytes;
  }
  lua_pushinteger(L, (lua_Integer)total); lua_setfield(L, -2, "total");
  lua_pushinteger(L, fg_rt_allocations(o->rt)); lua_setfield(L, -2, "allocations");
  return 1;
}

static int rt_graph(lua_State *L) {
  check_rt(L, 1);
  lua_getiuservalue(L, 1, UV_GRAPH);
  return 1;
}

/* Physical resource for a name (as created or renamed to), frame copy of the
 * last submitted frame, multiplex index {dim = i} (1-based) or a number
 * for the resource's first dimension. Raises on unknown names. */
static uint32_t find_phys(lua_State *L, lrt *o, const char *name, int index_idx, uint32_t parity) {
  const fg_graph *g = o->g;
  uint32_t nd = fg_graph_dim_count(g);
  uint32_t idx[FG_GRAPH_MAX_DIMS] = {0};
  uint32_t n = fg_graph_resource_count(g);
  for (uint32_t i = 0; i < n; i++) {
    const fg_graph_resource *r = fg_graph_resource_get(g, i);
    if (strcmp(r->name, name) && (!r->final_name || strcmp(r->final_name, name))) continue;
    if (lua_istable(L, index_idx)) {
      for (uint32_t d = 0; d < nd; d++) {
        lua_getfield(L, index_idx, fg_graph_dim_name(g, d));
        if (lua_isinteger(L, -1)) idx[d] = (uint32_t)(lua_tointeger(L, -1) - 1);
        lua_pop(L, 1);
      }
    } else if (lua_isinteger(L, index_idx)) {
      for (uint32_t d = 0; d < nd; d++)
        if (r->mode & (1u << d)) { idx[d] = (uint32_t)(lua_tointeger(L, index_idx) - 1); break; }
    }
    uint32_t ph = fg_graph_physical(g, r->logical, parity, idx);
    if (ph == FG_GRAPH_NONE) luaL_error(L, "resource '%s' has no copy for that index (check the dimension names and 1-based indices)", name);
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
  const char *name = luaL_checkstring(L, 2);
  uint32_t ph = find_phys(L, o, name, 3, last_parity(o));
  void *data; size_t len;
  if (fg_rt_read(o->rt, ph, &data, &len, o->err, sizeof o->err)) {
    luaL_pushfail(L);
    lua_pushstring(L, o->err);
    return 2;
  }
  lua_pushlstring(L, data, len);
  free(data);
  return 1;
}

/* rt:save_png(name, path [, index]) -> true | nil, err */
static int rt_save_png(lua_State *L) {
  lrt *o = check_rt(L, 1);
  const char *name = luaL_checkstring(L, 2);
  const char *path = luaL_checkstring(L, 3);
  uint32_t ph = find_phys(L, o, name, 4, last_parity(o));
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

/* rt:_compile(pipeline [, opts]) -> graph: compiles with the runtime's
 * options (or `opts`, made from rt:_opts()) and the device's memory
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

/* rt:_opts() -> the compile options the runtime was made with */
static int rt_opts(lua_State *L) {
  check_rt(L, 1);
  lua_getiuservalue(L, 1, UV_OPTS);
  return 1;
}

/* rt:_adopt(graph) -> true, kept | nil, err: runs `graph` from the next
 * frame, keeping the contents of unchanged history resources. When it cannot
 * be placed the previous graph keeps running. */
static int rt_adopt(lua_State *L) {
  lrt *o = check_rt(L, 1);
  fg_graph *g = fg_lua_checkgraph(L, 2);
  uint32_t kept = 0;
  int rc = fg_rt_rebuild_keep_history(o->rt, g, o->g, &kept, o->err, sizeof o->err);
  if (rc) {
    luaL_pushfail(L);
    if (rc == -1) lua_pushfstring(L, "reload: %s (still running the previous pipeline)", o->err);
    else lua_pushfstring(L, "reload failed: %s", o->err);
    return 2;
  }
  set_graph(L, o, 1, 2);
  build_slots(L, o, 1);
  lua_pushboolean(L, 1);
  lua_pushinteger(L, (lua_Integer)kept);
  return 2;
}

/* rt:_fail_allocations(n): test hook, the next n device allocations fail as
 * out of device memory (docs/RELIABILITY.md, "Exhaustion"). */
static int rt_fail_allocations(lua_State *L) {
  lrt *o = check_rt(L, 1);
  lua_Integer n = luaL_checkinteger(L, 2);
  luaL_argcheck(L, n >= 0 && n <= 1000000, 2, "a count in 0..1000000");
  fg_rt_fail_allocations(o->rt, (uint32_t)n);
  return 0;
}

/* rt:_slots(): takes the run functions again from the graph's pipeline (a
 * reload that changed only run functions). */
static int rt_slots(lua_State *L) {
  lrt *o = check_rt(L, 1);
  build_slots(L, o, 1);
  return 0;
}

/* After set_resolution/set_dimension changed the graph in place: re-place the
 * resources and rebuild the node slots; true, or fail + message (the graph
 * change itself is kept). */
static int replace_after_change(lua_State *L, lrt *o) {
  if (fg_rt_rebuild(o->rt, o->g, o->err, sizeof o->err)) {
    luaL_pushfail(L);
    lua_pushstring(L, o->err);
    return 2;
  }
  build_slots(L, o, 1);
  lua_pushboolean(L, 1);
  return 1;
}

/* rt:set_resolution(name, w, h): re-plans sizes in place; memory is reused
 * when the new plan fits (a smaller extent needs no allocation). */
static int rt_set_resolution(lua_State *L) {
  lrt *o = check_rt(L, 1);
  const char *name = luaL_checkstring(L, 2);
  lua_Integer w = luaL_checkinteger(L, 3), h = luaL_checkinteger(L, 4);
  luaL_argcheck(L, w > 0 && w <= 65536, 3, "width must be in 1..65536");
  luaL_argcheck(L, h > 0 && h <= 65536, 4, "height must be in 1..65536");
  fg_rt_wait_idle(o->rt);
  uint32_t ow = 0, oh = 0;
  int had = fg_graph_get_resolution(o->g, name, &ow, &oh) == 0;
  if (fg_graph_set_resolution(o->g, name, (uint32_t)w, (uint32_t)h))
    return luaL_error(L, "rt:set_resolution('%s'): %s", name, fg_graph_error(o->g));
  if (!fg_rt_rebuild(o->rt, o->g, o->err, sizeof o->err)) {
    build_slots(L, o, 1);
    lua_pushboolean(L, 1);
    return 1;
  }
  /* The new size does not fit (budget, device heap, allocation): go back to
   * the old one, which did, so the runtime keeps rendering. */
  luaL_pushfail(L);
  lua_pushfstring(L, "rt:set_resolution('%s', %d, %d): %s", name, (int)w, (int)h, o->err);
  if (had && !fg_graph_set_resolution(o->g, name, ow, oh) && !fg_rt_rebuild(o->rt, o->g, o->err, sizeof o->err)) {
    build_slots(L, o, 1);
    lua_pushfstring(L, " (kept %dx%d)", (int)ow, (int)oh);
    lua_concat(L, 2);
  }
  return 2;
}

/* rt:set_dimension(name, n): re-expands the multiplexing and re-places. */
static int rt_set_dimension(lua_State *L) {
  lrt *o = check_rt(L, 1);
  const char *name = luaL_checkstring(L, 2);
  lua_Integer n = luaL_checkinteger(L, 3);
  luaL_argcheck(L, n > 0 && n <= 65536, 3, "count must be in 1..65536");
  fg_rt_wait_idle(o->rt);
  if (fg_graph_set_dimension(o->g, name, (uint32_t)n))
    return luaL_error(L, "rt:set_dimension('%s'): %s", name, fg_graph_error(o->g));
  return replace_after_change(L, o);
}

static int rt_tostring(lua_State *L) {
  lrt *o = luaL_checkudata(L, 1, FG_LUA_RUNTIME);
  if (o->rt) lua_pushfstring(L, "framegraph.runtime (%d instances)", (int)fg_graph_instance_count(o->g));
  else lua_pushliteral(L, "framegraph.runtime (closed)");
  return 1;
}

static const luaL_Reg rt_methods[] = {
  {"frame", rt_frame},
  {"read", rt_read},
  {"save_png", rt_save_png},
  {"memory", rt_memory},
  {"stats", rt_stats},
  {"_compile", rt_compile},
  {"_opts", rt_opts},
  {"_adopt", rt_adopt},
  {"_slots", rt_slots},
  {"_fail_allocations", rt_fail_allocations},
  {"set_resolution", rt_set_resolution},
  {"set_dimension", rt_set_dimension},
  {"graph", rt_graph},
  {"upload", rt_upload},
  {"upload_stats", rt_upload_stats},
  {"close", rt_close},
  {NULL, NULL},
};

static const luaL_Reg rt_meta[] = {
  {"__gc", rt_close},
  {"__close", rt_close},
  {"__tostring", rt_tostring},
  {NULL, NULL},
};

void fg_lua_open_runtime(lua_State *L) {
  fg_lua_newclass(L, FG_LUA_RUNTIME, rt_meta, rt_methods);
  luaL_getmetatable(L, FG_LUA_RUNTIME);
  lua_getfield(L, -1, "__index");
  lua_setfield(L, -3, "runtime_methods");  /* runtime.lua adds reload here */
  lua_pop(L, 1);
  lua_pushcfunction(L, l_blob);
  lua_setfield(L, LUA_REGISTRYINDEX, "framegraph.runtime.blobfn");
  luaL_newmetatable(L, FG_LUA_UPLOAD);
  lua_pushcfunction(L, up_tostring); lua_setfield(L, -2, "__tostring");
  lua_pushcfunction(L, up_size); lua_setfield(L, -2, "__len");
  lua_newtable(L);
  lua_pushcfunction(L, up_size); lua_setfield(L, -2, "size");
  lua_pushcfunction(L, up_offset); lua_setfield(L, -2, "offset");
  lua_pushcfunction(L, up_valid); lua_setfield(L, -2, "valid");
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
  luaL_newmetatable(L, FG_LUA_IMAGE);
  lua_pushcfunction(L, img_close); lua_setfield(L, -2, "__gc");
  lua_pushcfunction(L, img_close); lua_setfield(L, -2, "__close");
  lua_pushcfunction(L, img_tostring); lua_setfield(L, -2, "__tostring");
  lua_newtable(L);
  lua_pushcfunction(L, img_close); lua_setfield(L, -2, "close");
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
  luaL_getmetatable(L, FG_LUA_DEVICE);
  lua_getfield(L, -1, "__index");
  lua_pushcfunction(L, dev_external_image);
  lua_setfield(L, -2, "external_image");
  lua_pop(L, 2);
  lua_pushcfunction(L, l_runtime);
  lua_setfield(L, -2, "runtime");
}
