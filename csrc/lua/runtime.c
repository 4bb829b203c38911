/* Lua binding of the frame runtime ("framegraph.runtime"): creation, frames,
 * the upload handles' methods and stats; read-backs and re-plans are
 * runtime_plan.c, external images runtime_image.c, run functions, ctx
 * tables and uploads' making runtime_slots.c, the lifetime rule's checks
 * runtime_base.c (every runtime file depends on it, it on none), and the
 * command object nodes record with ("framegraph.cmd") is cmd.c. Style of liolib.c: one
 * metatable per type, __index method table, __gc/__close release, idempotent
 * close. Misuse raises; system failures return nil, message.
 *
 * Runtime uservalues: 1 device, 2 graph userdata, 3 compile options, 4 run
 * functions per slot, 5 ctx tables per slot, 6 blobs per parity, 7 the cmd
 * userdata, 8 the inputs of the frame being recorded, 9 external images,
 * 10 the resolutions and dimensions set since creation.
 *
 * Upload handles ("framegraph.upload", from rt:upload / ctx.upload): a range
 * of the runtime's upload ring for one frame; uservalue 1 keeps the runtime
 * alive. cmd:copy and cmd:dispatch/draw bindings accept them. */
#include "fg_lua_runtime.h"
#include "fg_graph_async.h"
#include "fg_vk_window.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define check_rt fg_lua_rt_check

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
                                              !strcmp(lua_tostring(L, -2), "memory_budget") ||
                                              !strcmp(lua_tostring(L, -2), "timestamps"))) {
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
/* rt:upload(bytes [, align]) -> upload | nil, err: data for the next frame. */
static int rt_upload(lua_State *L) {
  lrt *o = check_rt(L, 1);
  fg_lua_rt_planned(L, o, "rt:upload");
  return fg_lua_rt_push_upload(L, o, 1, 2, 3, "rt:upload");
}

/* A stale upload's offset names ring bytes another upload may hold now:
 * size and offset raise, as every stale handle does (valid() tells first). */
static lupload *check_live_upload(lua_State *L) {
  lupload *h = fg_lua_checkudata(L, 1, FG_LUA_UPLOAD);
  if (!upload_valid(h))
    luaL_error(L, "upload is stale: it was made for frame %d and uploads are valid only in the frame they were "
               "made for (up:valid() tells); upload again with rt:upload or ctx.upload", (int)h->rt_frame);
  return h;
}

static int up_size(lua_State *L) {
  lupload *h = check_live_upload(L);
  lua_pushinteger(L, (lua_Integer)h->size);
  return 1;
}

static int up_offset(lua_State *L) {
  lupload *h = check_live_upload(L);
  lua_pushinteger(L, (lua_Integer)h->offset);
  return 1;
}

static int up_valid(lua_State *L) {
  lupload *h = fg_lua_checkudata(L, 1, FG_LUA_UPLOAD);
  lua_pushboolean(L, upload_valid(h));
  return 1;
}

static int up_tostring(lua_State *L) {
  lupload *h = fg_lua_checkudata(L, 1, FG_LUA_UPLOAD);
  lua_pushfstring(L, "framegraph.upload (%d bytes at %d, frame %d%s)", (int)h->size, (int)h->offset,
                  (int)h->rt_frame, upload_valid(h) ? "" : ", stale");
  return 1;
}

/* rt:upload_stats() -> {size, allocations, bytes, segments, free_segments,
 * retired_segments, segment_acquires, full, waits, frame, completed} */
static int rt_upload_stats(lua_State *L) {
  lrt *o = check_rt(L, 1);
  fg_lua_hold_gc(L);  /* no finalizer may close self while this reads it */
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

/* t[k] = top of the stack, without metamethods: the frame records while this
 * runs, and a user's metatable on ctx must not raise out of the recording. */
static void raw_setfield(lua_State *L, int t, const char *k) {
  lua_pushstring(L, k);
  lua_insert(L, -2);
  lua_rawset(L, t);
}

/* ctx is the same table every frame: a run that wrote ctx.index.eye = 99,
 * ctx.name = ... or ctx.blob = nil had the next frame's run see it (the
 * wrong index, a forged name). The runtime's own fields are put back before
 * each run; a field of the user's own stays. */
static void reset_ctx(lua_State *L, lrt *o, int ctxs, int ctx, uint32_t slot) {
  const fg_graph_instance *in = fg_graph_instance_get(o->g, slot);
  lua_pushstring(L, in->name);
  raw_setfield(L, ctx, "name");
  lua_pushstring(L, in->node_name);
  raw_setfield(L, ctx, "node");
  if (lua_rawgeti(L, ctxs, -(lua_Integer)slot - 1) == LUA_TTABLE) {  /* {blob, upload} (build_slots) */
    lua_rawgeti(L, -1, 1);
    raw_setfield(L, ctx, "blob");
    lua_rawgeti(L, -1, 2);
    raw_setfield(L, ctx, "upload");
  }
  lua_pop(L, 1);
  lua_pushliteral(L, "index");
  if (lua_rawget(L, ctx) != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_createtable(L, 0, (int)fg_graph_dim_count(o->g));
    lua_pushvalue(L, -1);
    raw_setfield(L, ctx, "index");
  }
  for (uint32_t d = 0; d < fg_graph_dim_count(o->g); d++) {
    lua_pushstring(L, fg_graph_dim_name(o->g, d));
    lua_pushinteger(L, (lua_Integer)in->index[d] + 1);
    lua_rawset(L, -3);
  }
  lua_pop(L, 1);
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
  raw_setfield(L, ctx, "width");
  lua_pushinteger(L, h);
  raw_setfield(L, ctx, "height");
}

/* core.runtime(dev, pipeline, opts) -> rt | nil, err */
static int l_runtime(lua_State *L) {
  fg_vk_device *dev = fg_lua_checkdevice(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  if (!lua_isnoneornil(L, 3)) luaL_checktype(L, 3, LUA_TTABLE);
  fg_lua_plain(L, 3, "fg.runtime: opts");  /* copied raw for the compiler, read with lua_getfield below */
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
    lua_getfield(L, 3, "timestamps");
    if (!lua_isnil(L, -1) && !lua_isboolean(L, -1))
      luaL_error(L, "fg.runtime: opts.timestamps must be a boolean (false: no GPU timestamps, rt:timings() "
                 "returns nil), got %s", luaL_typename(L, -1));
    desc.no_timestamps = lua_isboolean(L, -1) && !lua_toboolean(L, -1);
    lua_pop(L, 1);
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
  fg_lua_rt_set_graph(L, o, self, lua_gettop(L));
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
  fg_lua_rt_build_slots(L, o, self);
  lua_pushvalue(L, self);
  return 1;
}

/* Inside a node's run the frame still records with the runtime's objects:
 * closing waits for the frame's end (rt:frame closes it after the submit). */
static int rt_close(lua_State *L) {
  lrt *o = fg_lua_checkudata(L, 1, FG_LUA_RUNTIME);
  if (o->L || o->busy[0]) { o->closing = 1; return 0; }  /* a re-plan's user code: at the call's end */
  fg_lua_rt_close_now(o);
  return 0;
}

/* ------------------------------------------------------------ frames -- */

static int node_cb(void *user, fg_rt *rt, VkCommandBuffer cmd, uint32_t slot) {
  lrt *o = user;
  lua_State *L = o->L;
  int top = lua_gettop(L);
  lua_getiuservalue(L, o->self, UV_RUN);
  if (!lua_istable(L, -1)) { lua_settop(L, top); return 0; }
  lua_rawgeti(L, -1, slot + 1);
  if (!lua_isfunction(L, -1)) { lua_settop(L, top); return 0; }
  /* The ctx tables are rebuilt with the run functions (build_slots); one
   * missing means that rebuild raised half way: refuse the frame. */
  lua_getiuservalue(L, o->self, UV_CTX);
  int have_ctx = lua_istable(L, -1) && lua_rawgeti(L, -1, slot + 1) == LUA_TTABLE;
  lua_settop(L, top + 2);
  if (!have_ctx) {
    fg_errf(o->err, sizeof o->err, "node slot %u has no ctx: the node table could not be read when the plan was "
            "last built; rt:reload the pipeline", slot);
    lua_settop(L, top);
    return 1;
  }
  lua_getiuservalue(L, o->self, UV_CMD);
  lcmd *c = lua_touserdata(L, -1);
  c->o = o;
  c->cmd = cmd;
  c->slot = slot;
  c->valid = 1;
  o->slot = slot;
  lua_getiuservalue(L, o->self, UV_CTX);
  lua_rawgeti(L, -1, slot + 1);
  int ctx = lua_gettop(L);
  reset_ctx(L, o, ctx - 1, ctx, slot);
  lua_remove(L, ctx - 1);
  ctx--;
  lua_pushinteger(L, (lua_Integer)fg_rt_frame_index(rt));
  raw_setfield(L, ctx, "frame");
  set_ctx_extent(L, o, ctx, slot);
  int rc = lua_pcall(L, 2, 0, 0);
  c->valid = 0;
  if (rc != LUA_OK) {
    const fg_graph_instance *in = fg_graph_instance_get(o->g, slot);
    const char *msg = lua_tostring(L, -1);
    /* no __tostring here: it would run user code inside the frame's error path */
    if (msg) fg_errf(o->err, sizeof o->err, "node '%s' run failed: %s", in->name, msg);
    else fg_errf(o->err, sizeof o->err, "node '%s' run failed: it raised a %s, not a message; raise a string: "
                 "error(\"what went wrong\")", in->name, luaL_typename(L, -1));
    o->fail = FG_LUA_FAIL_RUN;
    o->fail_slot = slot;
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
  lua_pushinteger(L, st.submits); lua_setfield(L, -2, "submits");
  lua_pushboolean(L, st.async_queue); lua_setfield(L, -2, "async_queue");
}


/* rt:frame([inputs]) -> stats of the frame ({barriers, batches, ...}) */
static int provide_protected(lua_State *L) {
  lrt *o = lua_touserdata(L, 1);
  lua_settop(L, 1);
  fg_lua_rt_provide_externals(L, o);
  return 0;
}

/* Frame inputs override blobs by name: a key that names no blob is a typo. */
static void check_inputs(lua_State *L, lrt *o, int t) {
  uint32_t n = fg_graph_resource_count(o->g), nb = 0;
  const char *blobs[64];
  for (uint32_t i = 0; i < n && nb < 64; i++) {
    const fg_graph_resource *r = fg_graph_resource_get(o->g, i);
    if (r->kind != FG_RES_BLOB) continue;
    int seen = 0;
    for (uint32_t k = 0; k < nb; k++) seen |= !strcmp(blobs[k], r->name);
    if (!seen) blobs[nb++] = r->name;
    if (!seen && r->final_name && strcmp(r->final_name, r->name) && nb < 64) blobs[nb++] = r->final_name;
  }
  lua_pushnil(L);
  while (lua_next(L, t)) {
    lua_pop(L, 1);
    if (lua_type(L, -1) != LUA_TSTRING)
      luaL_error(L, "rt:frame: inputs are keyed by blob name, got a %s key", luaL_typename(L, -1));
    size_t len;
    const char *k = lua_tolstring(L, -1, &len);
    if (strlen(k) != len) luaL_error(L, "rt:frame: input name '%s\\0...' holds a NUL byte", k);
    int found = 0;
    for (uint32_t b = 0; b < nb && !found; b++) found = !strcmp(blobs[b], k);
    if (found) continue;
    const char *near = fg_lua_nearest(k, blobs, nb);
    luaL_Buffer B;
    luaL_buffinit(L, &B);
    for (uint32_t b = 0; b < nb; b++) {
      if (b) luaL_addstring(&B, ", ");
      luaL_addstring(&B, blobs[b]);
    }
    luaL_pushresult(&B);
    if (near) luaL_error(L, "rt:frame: input '%s' names no blob of the pipeline; did you mean '%s'? (blobs: %s)", k,
                         near, lua_tostring(L, -1));
    luaL_error(L, "rt:frame: input '%s' names no blob of the pipeline (blobs: %s)", k,
               nb ? lua_tostring(L, -1) : "none");
  }
}

static int rt_frame(lua_State *L) {
  lrt *o = check_rt(L, 1);
  if (o->L) return luaL_error(L, "rt:frame called from inside a node's run or an external's provide() (recursion)");
  fg_lua_rt_idle(L, o, "rt:frame");
  fg_lua_rt_planned(L, o, "rt:frame");
  if (!lua_isnoneornil(L, 2)) {
    luaL_checktype(L, 2, LUA_TTABLE);
    fg_lua_plain(L, 2, "rt:frame: the inputs");  /* checked raw here, read by ctx.blob with lua_getfield */
    check_inputs(L, o, 2);
  }
  lua_settop(L, 2);
  lua_pushvalue(L, 2);
  lua_setiuservalue(L, 1, UV_INPUTS);
  o->fail = FG_LUA_FAIL_NONE;
  /* provide() is user code run for this frame: what run may not do (close,
   * re-plan, reload) it may not do either, so the frame counts as recording. */
  o->L = L;
  o->self = 1;
  o->slot = UINT32_MAX;
  lua_pushcfunction(L, provide_protected);
  lua_pushvalue(L, 1);
  if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
    o->L = NULL;
    if (o->closing) fg_lua_rt_close_now(o);
    return lua_error(L);
  }
  if (o->closing) {
    o->L = NULL;
    fg_lua_rt_close_now(o);
    return luaL_error(L, "rt:frame: the runtime was closed by an external's provide(); no frame was recorded");
  }
  int rc = fg_rt_frame(o->rt, node_cb, o, o->err, sizeof o->err);
  o->L = NULL;
  lua_pushnil(L);
  lua_setiuservalue(L, 1, UV_INPUTS);
  if (o->closing) {  /* rt:close() in a run: the frame is submitted (or dropped), now it goes */
    if (!rc) push_stats(L, o);
    fg_lua_rt_close_now(o);
    if (rc == -1) return luaL_error(L, "%s", o->err);
    if (rc) { luaL_pushfail(L); lua_pushstring(L, o->err); return 2; }
    return 1;
  }
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
  fg_lua_hold_gc(L);  /* no finalizer may close self while this reads it */
  push_stats(L, o);
  return 1;
}

/* rt:timings() -> { {name=, node=, gpu_ms=}..., frame_ms=, frame= } of the
 * last frame the GPU finished (empty before one has); nil, message where the
 * device has no timestamps or opts.timestamps = false. */
static int rt_timings(lua_State *L) {
  lrt *o = check_rt(L, 1);
  fg_lua_hold_gc(L);  /* no finalizer may close self while this reads it */
  fg_rt_timings t;
  if (fg_rt_get_timings(o->rt, &t, o->err, sizeof o->err)) {
    lua_pushnil(L);
    lua_pushstring(L, o->err);
    return 2;
  }
  uint32_t n = o->g && t.count == fg_graph_instance_count(o->g) ? t.count : 0;
  lua_createtable(L, (int)n, 2);
  for (uint32_t s = 0; s < n; s++) {
    const fg_graph_instance *in = fg_graph_instance_get(o->g, s);
    lua_createtable(L, 0, 3);
    lua_pushstring(L, in->name);
    lua_setfield(L, -2, "name");
    lua_pushstring(L, in->node_name);
    lua_setfield(L, -2, "node");
    lua_pushnumber(L, t.ms[s]);
    lua_setfield(L, -2, "gpu_ms");
    if (t.start_ms) {  /* async compute: when it started, and on which queue */
      lua_pushnumber(L, t.start_ms[s]);
      lua_setfield(L, -2, "start_ms");
      lua_pushstring(L, fg_graph_instance_queue(o->g, s) == FG_QUEUE_ASYNC ? "async" : "graphics");
      lua_setfield(L, -2, "queue");
    }
    lua_rawseti(L, -2, (lua_Integer)s + 1);
  }
  if (n) {
    lua_pushnumber(L, t.frame_ms);
    lua_setfield(L, -2, "frame_ms");
    lua_pushinteger(L, (lua_Integer)t.frame);
    lua_setfield(L, -2, "frame");
  }
  return 1;
}

static int rt_memory(lua_State *L) {
  lrt *o = check_rt(L, 1);
  fg_lua_hold_gc(L);  /* no finalizer may close self while this reads it */
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


static int rt_tostring(lua_State *L) {
  lrt *o = fg_lua_checkudata(L, 1, FG_LUA_RUNTIME);
  if (o->rt && !fg_rt_planned(o->rt)) lua_pushliteral(L, "framegraph.runtime (no valid plan)");
  else if (o->rt && o->closing && o->busy[0])
    lua_pushfstring(L, "framegraph.runtime (closing at the end of %s)", o->busy);
  else if (o->rt && o->closing) lua_pushliteral(L, "framegraph.runtime (closing at the end of this frame)");
  else if (o->rt) lua_pushfstring(L, "framegraph.runtime (%d instances)", (int)fg_graph_instance_count(o->g));
  else lua_pushliteral(L, "framegraph.runtime (closed)");
  return 1;
}

/* core.runtime_state(rt) -> "closed" | "closing" (closed in a run) |
 * "recording" (inside a node's run) | "planless" | "open": for the Lua layer
 * (rt:reload refuses inside run, views and watchers know when they are stale). */
static int l_runtime_state(lua_State *L) {
  lrt *o = fg_lua_checkudata(L, 1, FG_LUA_RUNTIME);
  if (!o->rt) lua_pushliteral(L, "closed");
  else if (o->closing) lua_pushliteral(L, "closing");
  else if (o->L) lua_pushliteral(L, "recording");
  else if (!fg_rt_planned(o->rt)) lua_pushliteral(L, "planless");
  else lua_pushliteral(L, "open");
  return 1;
}

/* rt:frame, rt:graph and rt:reload are written in Lua (lua/framegraph/
 * runtime.lua: the probation of a reloaded pipeline around hooks.frame, which
 * is this file's rt_frame; the read-only view; the reload). It hands their
 * bodies over once, core.runtime_lua{frame=, graph=, reload=}, kept in the
 * registry; these methods call them. The method table is C's alone and is
 * never patched after it is made. */
#define RT_LUA_KEY "framegraph.runtime_lua"
static int rt_lua_call(lua_State *L, const char *name) {
  int n = lua_gettop(L);
  if (lua_getfield(L, LUA_REGISTRYINDEX, RT_LUA_KEY) != LUA_TTABLE || lua_getfield(L, -1, name) != LUA_TFUNCTION)
    return luaL_error(L, "rt:%s: load the module with require(\"framegraph\") (its Lua half is missing)", name);
  lua_remove(L, -2);  /* the table */
  lua_insert(L, 1);
  lua_call(L, n, LUA_MULTRET);
  return lua_gettop(L);
}
/* A closed (or closing) runtime raises here, naming the method (the body's
 * own checks would name the hook they call: 'c_frame', 'c_graph', 'busy'). */
static int rt_lua_method(lua_State *L, const char *name) {
  check_rt(L, 1);
  return rt_lua_call(L, name);
}
static int rt_frame_m(lua_State *L) { return rt_lua_method(L, "frame"); }
static int rt_graph_m(lua_State *L) { return rt_lua_method(L, "graph"); }
static int rt_reload_m(lua_State *L) { return rt_lua_method(L, "reload"); }

/* core.runtime_lua{frame = f, graph = f, reload = f}: runtime.lua's bodies */
static int l_runtime_lua(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  static const char *const names[] = {"frame", "graph", "reload"};
  lua_newtable(L);
  for (int i = 0; i < 3; i++) {
    if (lua_getfield(L, 1, names[i]) != LUA_TFUNCTION)
      return luaL_error(L, "core.runtime_lua: field '%s' must be a function", names[i]);
    lua_setfield(L, -2, names[i]);
  }
  lua_setfield(L, LUA_REGISTRYINDEX, RT_LUA_KEY);
  return 0;
}

static const luaL_Reg rt_methods[] = {
  {"frame", rt_frame_m},
  {"graph", rt_graph_m},
  {"reload", rt_reload_m},
  {"memory", rt_memory},
  {"stats", rt_stats},
  {"timings", rt_timings},
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
  lua_pushcfunction(L, l_runtime_lua);
  lua_setfield(L, -2, "runtime_lua");
  luaL_newmetatable(L, FG_LUA_UPLOAD);
  lua_pushcfunction(L, up_tostring); lua_setfield(L, -2, "__tostring");
  lua_pushcfunction(L, up_size); lua_setfield(L, -2, "__len");
  lua_newtable(L);
  lua_pushcfunction(L, up_size); lua_setfield(L, -2, "size");
  lua_pushcfunction(L, up_offset); lua_setfield(L, -2, "offset");
  lua_pushcfunction(L, up_valid); lua_setfield(L, -2, "valid");
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
  fg_lua_open_runtime_plan(L);
  lua_getfield(L, -1, "runtime_hooks");
  lua_pushcfunction(L, rt_frame);
  lua_setfield(L, -2, "frame");
  lua_pop(L, 1);
  fg_lua_open_runtime_image(L);
  lua_pushcfunction(L, l_runtime);
  lua_setfield(L, -2, "runtime");
  lua_pushcfunction(L, l_runtime_state);
  lua_setfield(L, -2, "runtime_state");
}
