/* Lua binding of the frame runtime ("framegraph.runtime") and of the command
 * object nodes record with ("framegraph.cmd"). Style of liolib.c: one
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
#include "fg_lua.h"
#include "fg_vk_runtime.h"
#include "fg_vk_shader.h"
#include "fg_png.h"
#include "fg_vk_window.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FG_LUA_RUNTIME "framegraph.runtime"
#define FG_LUA_CMD "framegraph.cmd"

enum { UV_DEV = 1, UV_GRAPH, UV_OPTS, UV_RUN, UV_CTX, UV_BLOBS, UV_CMD, UV_INPUTS, UV_EXT, UV_COUNT = UV_EXT };

#define FG_LUA_IMAGE "framegraph.image"
#define FG_LUA_UPLOAD "framegraph.upload"

/* An image made for `external` resources (dev:external_image): the runtime
 * transitions it but never allocates it; it tracks its layout across frames. */
typedef struct limage {
  fg_vk_device *dev;
  VkImage image;
  VkImageView view;
  VkDeviceMemory memory;
  VkImageLayout layout;
  fg_format format;
  uint32_t width, height;
} limage;

static int img_close(lua_State *L) {
  limage *m = luaL_checkudata(L, 1, FG_LUA_IMAGE);
  if (m->dev) {
    vkDeviceWaitIdle(m->dev->device);
    if (m->view) vkDestroyImageView(m->dev->device, m->view, NULL);
    if (m->image) vkDestroyImage(m->dev->device, m->image, NULL);
    if (m->memory) vkFreeMemory(m->dev->device, m->memory, NULL);
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
  fg_graph_resource gr;
  memset(&gr, 0, sizeof gr);
  gr.kind = FG_RES_TEXTURE;
  gr.format = f;
  gr.width = m->width;
  gr.height = m->height;
  VkImageCreateInfo ci;
  fg_rt_image_info(dev, &gr, &ci);
  VkResult r = vkCreateImage(dev->device, &ci, NULL, &m->image);
  VkMemoryRequirements req;
  if (r == VK_SUCCESS) {
    vkGetImageMemoryRequirements(dev->device, m->image, &req);
    int t = fg_vk_find_memory_type(dev, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    if (t < 0) t = fg_vk_find_memory_type(dev, req.memoryTypeBits, 0);
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size,
                               .memoryTypeIndex = (uint32_t)(t < 0 ? 0 : t)};
    r = vkAllocateMemory(dev->device, &ai, NULL, &m->memory);
  }
  if (r == VK_SUCCESS) r = vkBindImageMemory(dev->device, m->image, m->memory, 0);
  if (r == VK_SUCCESS) {
    VkImageViewCreateInfo vi = {.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = m->image,
                                .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = ci.format,
                                .subresourceRange = {.aspectMask = fg_rt_format_aspect(f), .levelCount = 1, .layerCount = 1}};
    r = vkCreateImageView(dev->device, &vi, NULL, &m->view);
  }
  if (r != VK_SUCCESS) {
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

typedef struct lrt {
  fg_rt *rt;
  fg_graph *g;
  fg_vk_device *dev;
  fg_rt_sizer_ctx sizer;
  lua_State *L;
  int self;            /* stack index of the runtime during a frame */
  char err[2048];
} lrt;

typedef struct lcmd {
  lrt *o;
  VkCommandBuffer cmd;
  uint32_t slot;
  int valid;
} lcmd;

typedef struct lupload {
  lrt *o;                /* owner, kept alive by uservalue 1 */
  uint64_t ring_frame;   /* the ring frame it belongs to: valid while the ring is still in it */
  uint64_t rt_frame;     /* the runtime's frame index when made (for messages) */
  VkDeviceSize offset, size;
} lupload;

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
                                              !strcmp(lua_tostring(L, -2), "upload_segment"))) {
        lua_pop(L, 1);  /* runtime options, not the compiler's */
        continue;
      }
      lua_pushvalue(L, -2);
      lua_insert(L, -2);
      lua_settable(L, t);
    }
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
  lua_pushinteger(L, (lua_Integer)(align ? align : 16));
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
  if (fg_rt_upload(o->rt, 0, (VkDeviceSize)n, (VkDeviceSize)align, &sp, &rf, err, sizeof err)) {
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

static int upload_valid(const lupload *h) {
  return h->o && h->o->rt && h->ring_frame == fg_rt_upload_frame(h->o->rt);
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
    lua_pushcclosure(L, lua_tocfunction(L, -2), 1);
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
  lua_getiuservalue(L, self, UV_BLOBS);
  lua_geti(L, -1, (lua_Integer)fg_rt_parity(o->rt) + 1);
  lua_getfield(L, -1, name);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, name);
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
    fg_rt_set_external(o->rt, i, m->image, m->view, &m->layout);
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

static uint8_t to_u8(float f) {
  if (!(f > 0)) return 0;
  if (f >= 1) return 255;
  return (uint8_t)lrintf(f * 255.0f);
}

static float half_to_float(uint16_t h) {
  uint32_t s = (h >> 15) & 1, e = (h >> 10) & 31, m = h & 1023;
  float v = e == 0 ? ldexpf((float)m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexpf((float)(m | 1024), (int)e - 25);
  return s ? -v : v;
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
  if (f != FG_FORMAT_RGBA8_UNORM && f != FG_FORMAT_RGBA8_SRGB && f != FG_FORMAT_BGRA8_UNORM &&
      f != FG_FORMAT_BGRA8_SRGB && f != FG_FORMAT_RGBA16_SFLOAT && f != FG_FORMAT_RGBA32_SFLOAT &&
      f != FG_FORMAT_R32_SFLOAT && f != FG_FORMAT_R8_UNORM)
    return luaL_error(L, "rt:save_png: format '%s' of '%s' is not supported (rgba8, bgra8, rgba16_sfloat, "
                      "rgba32_sfloat, r32_sfloat, r8_unorm are)", fg_format_get(f)->name, name);
  void *data; size_t len;
  if (fg_rt_read(o->rt, ph, &data, &len, o->err, sizeof o->err)) {
    luaL_pushfail(L);
    lua_pushstring(L, o->err);
    return 2;
  }
  size_t px = (size_t)r->width * r->height;
  uint8_t *rgba = malloc(px ? px * 4 : 1);
  if (!rgba) { free(data); return luaL_error(L, "out of memory"); }
  for (size_t i = 0; i < px; i++) {
    uint8_t *d = rgba + 4 * i;
    switch (f) {
      case FG_FORMAT_BGRA8_UNORM: case FG_FORMAT_BGRA8_SRGB: {
        const uint8_t *s = (const uint8_t *)data + 4 * i;
        d[0] = s[2]; d[1] = s[1]; d[2] = s[0]; d[3] = s[3];
        break;
      }
      case FG_FORMAT_RGBA16_SFLOAT: {
        const uint16_t *s = (const uint16_t *)data + 4 * i;
        for (int c = 0; c < 4; c++) d[c] = to_u8(half_to_float(s[c]));
        break;
      }
      case FG_FORMAT_RGBA32_SFLOAT: {
        const float *s = (const float *)data + 4 * i;
        for (int c = 0; c < 4; c++) d[c] = to_u8(s[c]);
        break;
      }
      case FG_FORMAT_R32_SFLOAT: {
        uint8_t v = to_u8(((const float *)data)[i]);
        d[0] = d[1] = d[2] = v; d[3] = 255;
        break;
      }
      case FG_FORMAT_R8_UNORM: {
        uint8_t v = ((const uint8_t *)data)[i];
        d[0] = d[1] = d[2] = v; d[3] = 255;
        break;
      }
      default: memcpy(d, (const uint8_t *)data + 4 * i, 4);
    }
  }
  free(data);
  int ok = fg_png_write_rgba8(path, r->width, r->height, rgba, o->err, sizeof o->err);
  free(rgba);
  if (!ok) {
    luaL_pushfail(L);
    lua_pushstring(L, o->err);
    return 2;
  }
  lua_pushboolean(L, 1);
  return 1;
}

/* Compiles in protected mode: [pipeline, opts, rt] -> graph */
static int p_compile(lua_State *L) {
  lrt *o = lua_touserdata(L, 3);
  fg_lua_compile(L, 1, 2, fg_rt_sizer, &o->sizer);
  return 1;
}

/* The compile error is on top of the stack: fail + message, the last good
 * pipeline keeps running. */
static int reload_compile_failed(lua_State *L) {
  const char *why = lua_isstring(L, -1) ? lua_tostring(L, -1) : "(no message)";
  luaL_pushfail(L);
  lua_pushfstring(L, "reload: the new pipeline does not compile (still running the previous one):\n%s", why);
  return 2;
}

/* rt:reload(pipeline_or_path) -> true, changes | nil, err. The runtime keeps
 * the last good graph when the new one does not compile or cannot be placed.
 * With graph:update (the compiler's incremental path) only changed nodes are
 * re-declared; a change of run functions alone touches no GPU object. */
static int rt_reload(lua_State *L) {
  lrt *o = check_rt(L, 1);
  lua_settop(L, 2);
  if (lua_type(L, 2) == LUA_TSTRING) {
    const char *path = lua_tostring(L, 2);
    if (luaL_loadfile(L, path) != LUA_OK || lua_pcall(L, 0, 1, 0) != LUA_OK) {
      luaL_pushfail(L);
      lua_pushfstring(L, "reload '%s': %s", path, lua_tostring(L, -2));
      return 2;
    }
    if (!lua_istable(L, -1)) {
      luaL_pushfail(L);
      lua_pushfstring(L, "reload '%s': the file must return a pipeline table, got %s", path, luaL_typename(L, -2));
      return 2;
    }
    lua_replace(L, 2);
  }
  luaL_checktype(L, 2, LUA_TTABLE);
  /* Incremental path: graph:update re-declares only the nodes that changed
   * and raises (leaving the graph untouched) when the new pipeline is bad. */
  lua_getiuservalue(L, 1, UV_GRAPH);
  int gi = lua_gettop(L);
  lua_getfield(L, gi, "update");
  if (lua_isfunction(L, -1)) {
    fg_lua_graph_pipeline(L, gi);
    int oldp = lua_gettop(L);
    lua_pushvalue(L, oldp - 1);
    lua_pushvalue(L, gi);
    lua_pushvalue(L, 2);
    if (lua_pcall(L, 2, 1, 0) != LUA_OK) {
      return reload_compile_failed(L);
    }
    int changes = lua_gettop(L);
    lua_getfield(L, changes, "recompiled");
    int recompiled = lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (recompiled && fg_rt_rebuild(o->rt, o->g, o->err, sizeof o->err)) {
      char why[2048];
      memcpy(why, o->err, sizeof why);
      /* Back to the previous pipeline (it compiled and ran before). */
      lua_getfield(L, gi, "update");
      lua_pushvalue(L, gi);
      lua_pushvalue(L, oldp);
      if (lua_pcall(L, 2, 0, 0) != LUA_OK || fg_rt_rebuild(o->rt, o->g, o->err, sizeof o->err)) {
        luaL_pushfail(L);
        lua_pushfstring(L, "reload failed (%s) and restoring the previous plan failed too", why);
        return 2;
      }
      build_slots(L, o, 1);
      luaL_pushfail(L);
      lua_pushfstring(L, "reload: %s (still running the previous pipeline)", why);
      return 2;
    }
    build_slots(L, o, 1);
    lua_pushboolean(L, 1);
    lua_pushvalue(L, changes);
    return 2;
  }
  lua_settop(L, 2);
  lua_pushcfunction(L, p_compile);
  lua_pushvalue(L, 2);
  lua_getiuservalue(L, 1, UV_OPTS);
  lua_pushlightuserdata(L, o);
  if (lua_pcall(L, 3, 1, 0) != LUA_OK) {
    return reload_compile_failed(L);
  }
  int ng = lua_gettop(L);
  fg_graph *newg = fg_lua_checkgraph(L, ng);
  if (fg_rt_rebuild(o->rt, newg, o->err, sizeof o->err)) {
    char why[2048];
    memcpy(why, o->err, sizeof why);
    if (fg_rt_rebuild(o->rt, o->g, o->err, sizeof o->err)) {
      luaL_pushfail(L);
      lua_pushfstring(L, "reload failed (%s) and restoring the previous plan failed too (%s)", why, o->err);
      return 2;
    }
    luaL_pushfail(L);
    lua_pushfstring(L, "reload: %s (still running the previous pipeline)", why);
    return 2;
  }
  set_graph(L, o, 1, ng);
  build_slots(L, o, 1);
  lua_pushboolean(L, 1);
  return 1;
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
  if (fg_graph_set_resolution(o->g, name, (uint32_t)w, (uint32_t)h))
    return luaL_error(L, "rt:set_resolution('%s'): %s", name, fg_graph_error(o->g));
  return replace_after_change(L, o);
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

/* ----------------------------------------------------------- commands -- */

static lcmd *check_cmd(lua_State *L) {
  lcmd *c = luaL_checkudata(L, 1, FG_LUA_CMD);
  if (!c->valid) luaL_error(L, "cmd used outside its node's run (keep no reference to cmd)");
  return c;
}

static const char *node_name(lcmd *c) { return fg_graph_instance_get(c->o->g, c->slot)->name; }

/* Use index of a resource name the node declared; raises otherwise. */
static uint32_t find_use_h(lua_State *L, lcmd *c, const char *name, const char *what, int history) {
  const fg_graph_instance *in = fg_graph_instance_get(c->o->g, c->slot);
  for (uint32_t u = 0; u < in->use_count; u++) {
    const fg_graph_use *us = &in->uses[u];
    if ((us->access == FG_ACCESS_HISTORY) != (history != 0)) continue;
    if (!strcmp(us->name, name) || (us->rename_to && !strcmp(us->rename_to, name))) {
      if (us->missing) luaL_error(L, "node '%s': %s uses optional resource '%s' which nobody provides this frame",
                                  in->name, what, name);
      return u;
    }
  }
  if (history)
    luaL_error(L, "node '%s': %s binds the history of '%s' but the node declares no history read of it; "
               "add history = { %s = 'storage' } (or 'sampled') to the node", in->name, what, name, name);
  luaL_error(L, "node '%s': %s uses resource '%s' that the node did not declare; add it to the node's "
             "create/read/modify (with the usage the command needs)", in->name, what, name);
  return 0;
}

static uint32_t find_use(lua_State *L, lcmd *c, const char *name, const char *what) {
  return find_use_h(L, c, name, what, 0);
}

static fg_rt_res *use_res(lua_State *L, lcmd *c, uint32_t u, const char *name) {
  uint32_t ph = fg_rt_use_phys(c->o->rt, c->slot, u);
  fg_rt_res *r = ph == FG_GRAPH_NONE ? NULL : fg_rt_resource(c->o->rt, ph);
  if (!r || (!r->image && !r->buffer))
    luaL_error(L, "node '%s': resource '%s' has no GPU object (a blob, or an external with no image)", node_name(c), name);
  return r;
}

static const fg_graph_use *use_of(lcmd *c, uint32_t u) {
  return &fg_graph_instance_get(c->o->g, c->slot)->uses[u];
}

/* An upload handle used by a command: it must be this runtime's and of the
 * frame being recorded. */
static lupload *check_upload(lua_State *L, lcmd *c, int idx, const char *what) {
  lupload *h = luaL_checkudata(L, idx, FG_LUA_UPLOAD);
  if (h->o != c->o)
    luaL_error(L, "node '%s': %s uses an upload made by another runtime; upload with this runtime's rt:upload "
               "or ctx.upload", node_name(c), what);
  if (!upload_valid(h))
    luaL_error(L, "node '%s': %s uses a stale upload (made for frame %d, %d bytes); uploads are valid only in the "
               "frame they were made for: call rt:upload before each rt:frame, or ctx.upload inside run",
               node_name(c), what, (int)h->rt_frame, (int)h->size);
  return h;
}

/* Binding of an upload: a read-only storage buffer or a uniform buffer. */
static void bind_upload(lua_State *L, lcmd *c, lupload *h, const fg_vk_shader_binding *rb, const fg_vk_shader_info *si,
                        uint32_t bnum, fg_vk_binding *b, const char *what) {
  const VkPhysicalDeviceLimits *lim = &c->o->dev->props.limits;
  if (rb->type == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER) {
    if (!rb->readonly)
      luaL_error(L, "node '%s': %s binds an upload at binding %d of shader '%s', which the shader may write; "
                 "uploads are read-only for the GPU: mark the binding readonly in GLSL", node_name(c), what,
                 (int)bnum, si->name);
    if (h->size > lim->maxStorageBufferRange)
      luaL_error(L, "node '%s': %s: upload of %d bytes exceeds maxStorageBufferRange (%d)", node_name(c), what,
                 (int)h->size, (int)lim->maxStorageBufferRange);
  } else if (rb->type == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER) {
    if (h->size > lim->maxUniformBufferRange)
      luaL_error(L, "node '%s': %s: upload of %d bytes bound as uniform buffer %d exceeds maxUniformBufferRange "
                 "(%d); bind it as a readonly storage buffer", node_name(c), what, (int)h->size, (int)bnum,
                 (int)lim->maxUniformBufferRange);
  } else {
    luaL_error(L, "node '%s': %s binds an upload at binding %d of shader '%s', which is not a buffer; an upload "
               "binds only as a storage or uniform buffer (copy it into a texture with cmd:copy)", node_name(c),
               what, (int)bnum, si->name);
  }
  memset(b, 0, sizeof *b);
  b->binding = bnum;
  b->buffer = fg_rt_upload_buffer(c->o->rt);
  b->offset = h->offset;
  b->range = h->size;
}

/* Push constants: a string (raw bytes) or a list of numbers packed as 32-bit
 * (integers as int32/uint32, others as float). */
static size_t get_push(lua_State *L, int idx, uint8_t *buf, size_t cap, const void **out) {
  *out = NULL;
  if (lua_isnoneornil(L, idx)) return 0;
  if (lua_type(L, idx) == LUA_TSTRING) {
    size_t n;
    *out = lua_tolstring(L, idx, &n);
    return n;
  }
  luaL_argexpected(L, lua_istable(L, idx), idx, "push constants as a string or a list of numbers");
  size_t n = (size_t)luaL_len(L, idx);
  if (n * 4 > cap) luaL_argerror(L, idx, "too many push constants (at most 256 bytes)");
  for (size_t i = 0; i < n; i++) {
    lua_geti(L, idx, (lua_Integer)i + 1);
    if (lua_isinteger(L, -1)) {
      uint32_t v = (uint32_t)(int64_t)lua_tointeger(L, -1);
      memcpy(buf + 4 * i, &v, 4);
    } else if (lua_isnumber(L, -1)) {
      float v = (float)lua_tonumber(L, -1);
      memcpy(buf + 4 * i, &v, 4);
    } else {
      luaL_error(L, "push constant %d is a %s; expected a number", (int)i + 1, luaL_typename(L, -1));
    }
    lua_pop(L, 1);
  }
  *out = buf;
  return n * 4;
}

static const fg_vk_shader_binding *reflected(const fg_vk_shader_info *si, uint32_t b) {
  for (uint32_t i = 0; i < si->binding_count; i++)
    if (si->bindings[i].binding == b) return &si->bindings[i];
  return NULL;
}

/* Bindings table {[n] = name | {name, sampler = "nearest"|"linear", history = true}} ->
 * fg_vk_binding array; checks that the declared usage allows the access and
 * records the barriers commands within one node need. */
static uint32_t get_bindings(lua_State *L, lcmd *c, int idx, const fg_vk_shader_info *si, fg_vk_binding *out,
                             VkPipelineStageFlags2 stage, const char *what) {
  uint32_t n = 0;
  if (lua_isnoneornil(L, idx)) return 0;
  luaL_checktype(L, idx, LUA_TTABLE);
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    if (!lua_isinteger(L, -2))
      luaL_error(L, "node '%s': %s bindings must be indexed by binding number, e.g. {[0] = 'src', [1] = 'dst'}",
                 node_name(c), what);
    uint32_t bnum = (uint32_t)lua_tointeger(L, -2);
    if (luaL_testudata(L, -1, FG_LUA_UPLOAD)) {
      lupload *h = check_upload(L, c, lua_gettop(L), what);
      const fg_vk_shader_binding *rb = reflected(si, bnum);
      if (!rb) luaL_error(L, "node '%s': %s binding %d (an upload) does not exist in shader '%s'", node_name(c), what,
                          (int)bnum, si->name);
      if (n >= FG_VK_MAX_BINDINGS) luaL_error(L, "too many bindings");
      bind_upload(L, c, h, rb, si, bnum, &out[n++], what);
      lua_pop(L, 1);
      continue;
    }
    const char *name = NULL;
    VkSampler sampler = VK_NULL_HANDLE;
    int history = 0;
    if (lua_type(L, -1) == LUA_TSTRING) {
      name = lua_tostring(L, -1);
    } else if (lua_istable(L, -1)) {
      lua_geti(L, -1, 1);
      name = lua_tostring(L, -1);
      lua_pop(L, 1);
      lua_getfield(L, -1, "sampler");
      if (lua_isstring(L, -1) && !strcmp(lua_tostring(L, -1), "nearest")) sampler = c->o->dev->sampler_nearest;
      lua_pop(L, 1);
      lua_getfield(L, -1, "history");
      history = lua_toboolean(L, -1);
      lua_pop(L, 1);
    }
    if (!name) luaL_error(L, "node '%s': %s binding %d must name a resource (string or {name, sampler=}) or be an upload",
                          node_name(c), what, (int)bnum);
    const fg_vk_shader_binding *rb = reflected(si, bnum);
    if (!rb) luaL_error(L, "node '%s': %s binding %d ('%s') does not exist in shader '%s'", node_name(c), what,
                        (int)bnum, name, si->name);
    if (n >= FG_VK_MAX_BINDINGS) luaL_error(L, "too many bindings");
    uint32_t u = find_use_h(L, c, name, what, history);
    fg_rt_res *r = use_res(L, c, u, name);
    const fg_graph_use *us = use_of(c, u);
    int declared_write = us->access == FG_ACCESS_CREATE || us->access == FG_ACCESS_MODIFY || us->access == FG_ACCESS_RENAME;
    fg_vk_binding *b = &out[n++];
    memset(b, 0, sizeof *b);
    b->binding = bnum;
    b->sampler = sampler;
    VkAccessFlags2 acc = 0;
    const char *need = NULL;
    switch (rb->type) {
      case VK_DESCRIPTOR_TYPE_STORAGE_IMAGE:
        if (us->usage != FG_USAGE_STORAGE) need = "storage";
        acc = VK_ACCESS_2_SHADER_STORAGE_READ_BIT | (rb->readonly ? 0 : VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
        break;
      case VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE: case VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER:
        if (us->usage != FG_USAGE_SAMPLED && us->usage != FG_USAGE_STORAGE && us->usage != FG_USAGE_DEPTH_READ)
          need = "sampled";
        acc = VK_ACCESS_2_SHADER_SAMPLED_READ_BIT;
        break;
      case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER:
        if (us->usage != FG_USAGE_STORAGE) need = "storage";
        acc = VK_ACCESS_2_SHADER_STORAGE_READ_BIT | (rb->readonly ? 0 : VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
        break;
      case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER:
        if (us->usage != FG_USAGE_UNIFORM && us->usage != FG_USAGE_STORAGE) need = "uniform";
        acc = VK_ACCESS_2_UNIFORM_READ_BIT;
        break;
      default:
        luaL_error(L, "node '%s': %s binding %d of shader '%s' has a descriptor type the runtime does not bind",
                   node_name(c), what, (int)bnum, si->name);
    }
    if (need)
      luaL_error(L, "node '%s': %s binds '%s' at binding %d as %s, but the node declares it with usage '%s'; "
                 "declare it with usage '%s'", node_name(c), what, name, (int)bnum, need, fg_usage_name(us->usage), need);
    if (fg_rt_access_is_write(acc) && !declared_write)
      luaL_error(L, "node '%s': %s writes '%s' (binding %d is not readonly in shader '%s') but the node only "
                 "reads it; mark the binding readonly in GLSL or declare the resource in modify",
                 node_name(c), what, name, (int)bnum, si->name);
    if (r->is_image) {
      if (rb->type != VK_DESCRIPTOR_TYPE_STORAGE_IMAGE && rb->type != VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE &&
          rb->type != VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER)
        luaL_error(L, "node '%s': '%s' is a texture but binding %d of '%s' expects a buffer", node_name(c), name,
                   (int)bnum, si->name);
      b->view = r->view;
      b->layout = fg_rt_use_layout(c->o->rt, c->slot, u);
    } else {
      if (rb->type != VK_DESCRIPTOR_TYPE_STORAGE_BUFFER && rb->type != VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER)
        luaL_error(L, "node '%s': '%s' is a buffer but binding %d of '%s' expects an image", node_name(c), name,
                   (int)bnum, si->name);
      b->buffer = r->buffer;
    }
    fg_rt_cmd_access(c->o->rt, c->cmd, c->slot, u, stage, acc);
    lua_pop(L, 1);
  }
  return n;
}

/* cmd:dispatch(shader, bindings, gx [, gy, gz, push]) */
static int cmd_dispatch(lua_State *L) {
  lcmd *c = check_cmd(L);
  struct fg_vk_shader *s = fg_lua_checkshader(L, 2);
  const fg_vk_shader_info *si = fg_vk_shader_get_info(s);
  lua_Integer gx = luaL_checkinteger(L, 4), gy = luaL_optinteger(L, 5, 1), gz = luaL_optinteger(L, 6, 1);
  luaL_argcheck(L, gx > 0 && gy > 0 && gz > 0, 4, "group counts must be positive");
  if (!si->is_compute) return luaL_argerror(L, 2, "cmd:dispatch needs a compute shader (use cmd:draw for fragment shaders)");
  if (fg_graph_instance_get(c->o->g, c->slot)->has_pass)
    return luaL_error(L, "node '%s': cmd:dispatch inside a render pass; move the dispatch to a node without pass",
                      node_name(c));
  fg_vk_binding b[FG_VK_MAX_BINDINGS];
  uint32_t n = get_bindings(L, c, 3, si, b, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, "cmd:dispatch");
  uint8_t pbuf[256];
  const void *push;
  size_t pn = get_push(L, 7, pbuf, sizeof pbuf, &push);
  char err[1024];
  if (!fg_vk_cmd_dispatch(c->o->dev, c->cmd, s, b, n, (uint32_t)gx, (uint32_t)gy, (uint32_t)gz, push,
                          (uint32_t)pn, err, sizeof err))
    return luaL_error(L, "node '%s': cmd:dispatch: %s", node_name(c), err);
  return 0;
}

/* cmd:draw(shader, bindings, vertices [, push]) inside the node's pass */
static int cmd_draw(lua_State *L) {
  lcmd *c = check_cmd(L);
  struct fg_vk_shader *s = fg_lua_checkshader(L, 2);
  const fg_vk_shader_info *si = fg_vk_shader_get_info(s);
  lua_Integer verts = luaL_optinteger(L, 4, 3);
  const fg_graph_instance *in = fg_graph_instance_get(c->o->g, c->slot);
  if (!in->has_pass)
    return luaL_error(L, "node '%s': cmd:draw outside a render pass; give the node pass = {color = {...}}", in->name);
  if (si->is_compute) return luaL_argerror(L, 2, "cmd:draw needs a fragment shader (use cmd:dispatch for compute)");
  VkFormat colors[FG_VK_MAX_COLOR];
  uint32_t nc = 0;
  uint32_t w = 0, h = 0;
  for (uint32_t k = 0; k < in->color_count && nc < FG_VK_MAX_COLOR; k++) {
    fg_rt_res *r = fg_rt_resource(c->o->rt, fg_rt_use_phys(c->o->rt, c->slot, in->colors[k].use));
    colors[nc++] = r ? r->format : VK_FORMAT_UNDEFINED;
    if (r && !w) { w = r->width; h = r->height; }
  }
  VkFormat depth = VK_FORMAT_UNDEFINED;
  if (in->has_depth) {
    fg_rt_res *r = fg_rt_resource(c->o->rt, fg_rt_use_phys(c->o->rt, c->slot, in->depth.use));
    if (r) { depth = r->format; if (!w) { w = r->width; h = r->height; } }
  }
  fg_vk_binding b[FG_VK_MAX_BINDINGS];
  uint32_t n = get_bindings(L, c, 3, si, b, VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT, "cmd:draw");
  uint8_t pbuf[256];
  const void *push;
  size_t pn = get_push(L, 5, pbuf, sizeof pbuf, &push);
  fg_vk_cmd_viewport(c->cmd, w, h);
  char err[1024];
  if (!fg_vk_cmd_draw(c->o->dev, c->cmd, s, b, n, (uint32_t)verts, push, (uint32_t)pn, colors, nc, depth, err,
                      sizeof err))
    return luaL_error(L, "node '%s': cmd:draw: %s", in->name, err);
  return 0;
}

/* Layout a transfer command may use for a resource declared with `usage`. */
static VkImageLayout transfer_layout(lua_State *L, lcmd *c, uint32_t u, const char *name, int dst, const char *what) {
  const fg_graph_use *us = use_of(c, u);
  fg_usage want = dst ? FG_USAGE_TRANSFER_DST : FG_USAGE_TRANSFER_SRC;
  if (us->usage == want) return dst ? VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL : VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
  if (us->usage == FG_USAGE_STORAGE) return VK_IMAGE_LAYOUT_GENERAL;
  luaL_error(L, "node '%s': %s needs '%s' with usage '%s' (or 'storage'), but the node declares '%s'; "
             "declare it as e.g. %s = { %s = '%s' }", node_name(c), what, name, fg_usage_name(want),
             fg_usage_name(us->usage), dst ? "modify" : "read", name, fg_usage_name(want));
  return VK_IMAGE_LAYOUT_UNDEFINED;
}

static void check_writable(lua_State *L, lcmd *c, uint32_t u, const char *name, const char *what) {
  fg_access a = use_of(c, u)->access;
  if (a == FG_ACCESS_READ || a == FG_ACCESS_HISTORY)
    luaL_error(L, "node '%s': %s writes '%s' which the node only reads; declare it in create or modify",
               node_name(c), what, name);
}

static void no_pass(lua_State *L, lcmd *c, const char *what) {
  if (fg_graph_instance_get(c->o->g, c->slot)->has_pass)
    luaL_error(L, "node '%s': %s inside a render pass is not allowed (use the pass's clear, or another node)",
               node_name(c), what);
}

/* cmd:clear(name, {r, g, b, a}) (buffers: {value} as uint32 fill) */
static int cmd_clear(lua_State *L) {
  lcmd *c = check_cmd(L);
  const char *name = luaL_checkstring(L, 2);
  no_pass(L, c, "cmd:clear");
  uint32_t u = find_use(L, c, name, "cmd:clear");
  fg_rt_res *r = use_res(L, c, u, name);
  check_writable(L, c, u, name, "cmd:clear");
  double v[4] = {0, 0, 0, 0};
  if (lua_istable(L, 3))
    for (int i = 0; i < 4; i++) { lua_geti(L, 3, i + 1); v[i] = lua_tonumber(L, -1); lua_pop(L, 1); }
  VkImageLayout lay = r->is_image ? transfer_layout(L, c, u, name, 1, "cmd:clear") : VK_IMAGE_LAYOUT_UNDEFINED;
  /* vkCmdFillBuffer is a COPY-stage command for some validation layers and
   * CLEAR for others: ALL_TRANSFER covers both. */
  fg_rt_cmd_access(c->o->rt, c->cmd, c->slot, u,
                   r->is_image ? VK_PIPELINE_STAGE_2_CLEAR_BIT : VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                   VK_ACCESS_2_TRANSFER_WRITE_BIT);
  if (r->is_image) {
    VkImageSubresourceRange range = {.aspectMask = r->aspect, .levelCount = VK_REMAINING_MIP_LEVELS,
                                     .layerCount = VK_REMAINING_ARRAY_LAYERS};
    if (r->aspect & VK_IMAGE_ASPECT_COLOR_BIT) {
      VkClearColorValue cv;
      fg_format f = r->g->format;
      int is_int = f == FG_FORMAT_R8_UINT || f == FG_FORMAT_RGBA8_UINT || f == FG_FORMAT_R16_UINT ||
                   f == FG_FORMAT_R32_UINT || f == FG_FORMAT_RG32_UINT || f == FG_FORMAT_RGBA32_UINT ||
                   f == FG_FORMAT_R32_SINT;
      for (int i = 0; i < 4; i++) {
        if (is_int) cv.uint32[i] = (uint32_t)(int64_t)v[i];
        else cv.float32[i] = (float)v[i];
      }
      vkCmdClearColorImage(c->cmd, r->image, lay, &cv, 1, &range);
    } else {
      VkClearDepthStencilValue dv = {(float)v[0], (uint32_t)v[1]};
      vkCmdClearDepthStencilImage(c->cmd, r->image, lay, &dv, 1, &range);
    }
  } else {
    if (use_of(c, u)->usage != FG_USAGE_TRANSFER_DST && use_of(c, u)->usage != FG_USAGE_STORAGE)
      transfer_layout(L, c, u, name, 1, "cmd:clear");
    vkCmdFillBuffer(c->cmd, r->buffer, 0, VK_WHOLE_SIZE, (uint32_t)(int64_t)v[0]);
  }
  return 0;
}

/* cmd:copy(upload, name [, offset]): upload -> buffer (at byte offset) or
 * texture (mip 0, layer 0, tightly packed rows). */
static int copy_upload(lua_State *L, lcmd *c) {
  const char *what = "cmd:copy";
  lupload *h = check_upload(L, c, 2, what);
  const char *dn = luaL_checkstring(L, 3);
  no_pass(L, c, what);
  uint32_t du = find_use(L, c, dn, what);
  fg_rt_res *d = use_res(L, c, du, dn);
  check_writable(L, c, du, dn, what);
  VkImageLayout dl = transfer_layout(L, c, du, dn, 1, what);
  VkBuffer src = fg_rt_upload_buffer(c->o->rt);
  if (d->is_image) {
    uint32_t texel = fg_format_get(d->g->format)->texel_bytes;
    uint64_t need = (uint64_t)d->width * d->height * texel;
    if (!texel) return luaL_error(L, "node '%s': cmd:copy: cannot copy an upload into '%s' of format %s", node_name(c),
                                  dn, fg_format_get(d->g->format)->name);
    if (h->size < need)
      return luaL_error(L, "node '%s': cmd:copy: upload of %d bytes is smaller than texture '%s' (%dx%d %s = %d bytes)",
                        node_name(c), (int)h->size, dn, (int)d->width, (int)d->height,
                        fg_format_get(d->g->format)->name, (int)need);
    if (h->offset % texel || h->offset % 4)
      return luaL_error(L, "node '%s': cmd:copy: the upload's offset %d is not a multiple of 4 and of the texel size "
                        "(%d) of '%s'; upload with rt:upload(bytes, %d)", node_name(c), (int)h->offset, (int)texel,
                        dn, (int)(texel % 4 ? 4 * texel : texel));
    fg_rt_cmd_access(c->o->rt, c->cmd, c->slot, du, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
    VkBufferImageCopy bc = {
      .bufferOffset = h->offset,
      .imageSubresource = {.aspectMask = (d->aspect & VK_IMAGE_ASPECT_COLOR_BIT) ? VK_IMAGE_ASPECT_COLOR_BIT
                                                                               : VK_IMAGE_ASPECT_DEPTH_BIT,
                           .layerCount = 1},
      .imageExtent = {d->width, d->height, 1}};
    vkCmdCopyBufferToImage(c->cmd, src, d->image, dl, 1, &bc);
  } else {
    lua_Integer off = luaL_optinteger(L, 4, 0);
    luaL_argcheck(L, off >= 0, 4, "the destination offset must be >= 0");
    if ((uint64_t)off + h->size > d->bytes)
      return luaL_error(L, "node '%s': cmd:copy: upload of %d bytes at offset %d does not fit buffer '%s' (%d bytes)",
                        node_name(c), (int)h->size, (int)off, dn, (int)d->bytes);
    fg_rt_cmd_access(c->o->rt, c->cmd, c->slot, du, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
    VkBufferCopy bc = {.srcOffset = h->offset, .dstOffset = (VkDeviceSize)off, .size = h->size};
    vkCmdCopyBuffer(c->cmd, src, d->buffer, 1, &bc);
  }
  return 0;
}

static int copy_or_blit(lua_State *L, int blit) {
  lcmd *c = check_cmd(L);
  const char *what = blit ? "cmd:blit" : "cmd:copy";
  if (luaL_testudata(L, 3, FG_LUA_UPLOAD))
    return luaL_error(L, "node '%s': %s into an upload: uploads are read-only for the GPU and can only be a copy "
                      "source", node_name(c), what);
  if (luaL_testudata(L, 2, FG_LUA_UPLOAD)) {
    if (blit) return luaL_error(L, "node '%s': cmd:blit cannot read an upload; use cmd:copy(upload, '%s')",
                                node_name(c), luaL_optstring(L, 3, "name"));
    return copy_upload(L, c);
  }
  const char *sn = luaL_checkstring(L, 2), *dn = luaL_checkstring(L, 3);
  no_pass(L, c, what);
  uint32_t su = find_use(L, c, sn, what), du = find_use(L, c, dn, what);
  fg_rt_res *s = use_res(L, c, su, sn), *d = use_res(L, c, du, dn);
  check_writable(L, c, du, dn, what);
  VkImageLayout sl = s->is_image ? transfer_layout(L, c, su, sn, 0, what) : VK_IMAGE_LAYOUT_UNDEFINED;
  VkImageLayout dl = d->is_image ? transfer_layout(L, c, du, dn, 1, what) : VK_IMAGE_LAYOUT_UNDEFINED;
  if (!s->is_image) transfer_layout(L, c, su, sn, 0, what);
  if (!d->is_image) transfer_layout(L, c, du, dn, 1, what);
  VkPipelineStageFlags2 st = blit ? VK_PIPELINE_STAGE_2_BLIT_BIT : VK_PIPELINE_STAGE_2_COPY_BIT;
  if (blit && (!s->is_image || !d->is_image)) return luaL_error(L, "node '%s': cmd:blit needs two textures", node_name(c));
  fg_rt_cmd_access(c->o->rt, c->cmd, c->slot, su, st, VK_ACCESS_2_TRANSFER_READ_BIT);
  fg_rt_cmd_access(c->o->rt, c->cmd, c->slot, du, st, VK_ACCESS_2_TRANSFER_WRITE_BIT);
  VkImageSubresourceLayers sl0 = {.aspectMask = s->aspect, .layerCount = 1};
  VkImageSubresourceLayers dl0 = {.aspectMask = d->aspect, .layerCount = 1};
  if (blit) {
    VkImageBlit b = {.srcSubresource = sl0, .dstSubresource = dl0};
    b.srcOffsets[1] = (VkOffset3D){(int32_t)s->width, (int32_t)s->height, 1};
    b.dstOffsets[1] = (VkOffset3D){(int32_t)d->width, (int32_t)d->height, 1};
    VkFilter f = (s->aspect & VK_IMAGE_ASPECT_COLOR_BIT) ? VK_FILTER_LINEAR : VK_FILTER_NEAREST;
    vkCmdBlitImage(c->cmd, s->image, sl, d->image, dl, 1, &b, f);
  } else if (s->is_image && d->is_image) {
    if (s->format != d->format && fg_format_get(s->g->format)->texel_bytes != fg_format_get(d->g->format)->texel_bytes)
      return luaL_error(L, "node '%s': cmd:copy between '%s' and '%s' of incompatible formats; use cmd:blit",
                        node_name(c), sn, dn);
    VkImageCopy ic = {.srcSubresource = sl0, .dstSubresource = dl0,
                      .extent = {s->width < d->width ? s->width : d->width, s->height < d->height ? s->height : d->height, 1}};
    vkCmdCopyImage(c->cmd, s->image, sl, d->image, dl, 1, &ic);
  } else if (!s->is_image && !d->is_image) {
    VkBufferCopy bc = {.size = s->bytes < d->bytes ? s->bytes : d->bytes};
    vkCmdCopyBuffer(c->cmd, s->buffer, d->buffer, 1, &bc);
  } else if (s->is_image) {
    VkBufferImageCopy bc = {.imageSubresource = sl0, .imageExtent = {s->width, s->height, 1}};
    if ((uint64_t)s->width * s->height * fg_format_get(s->g->format)->texel_bytes > d->bytes)
      return luaL_error(L, "node '%s': cmd:copy: buffer '%s' is smaller than texture '%s'", node_name(c), dn, sn);
    vkCmdCopyImageToBuffer(c->cmd, s->image, sl, d->buffer, 1, &bc);
  } else {
    VkBufferImageCopy bc = {.imageSubresource = dl0, .imageExtent = {d->width, d->height, 1}};
    if ((uint64_t)d->width * d->height * fg_format_get(d->g->format)->texel_bytes > s->bytes)
      return luaL_error(L, "node '%s': cmd:copy: buffer '%s' is smaller than texture '%s'", node_name(c), sn, dn);
    vkCmdCopyBufferToImage(c->cmd, s->buffer, d->image, dl, 1, &bc);
  }
  return 0;
}

static int cmd_copy(lua_State *L) { return copy_or_blit(L, 0); }
static int cmd_blit(lua_State *L) { return copy_or_blit(L, 1); }

static int cmd_tostring(lua_State *L) {
  lcmd *c = luaL_checkudata(L, 1, FG_LUA_CMD);
  if (c->valid) lua_pushfstring(L, "framegraph.cmd (%s)", node_name(c));
  else lua_pushliteral(L, "framegraph.cmd (outside run)");
  return 1;
}

static const luaL_Reg rt_methods[] = {
  {"frame", rt_frame},
  {"read", rt_read},
  {"save_png", rt_save_png},
  {"memory", rt_memory},
  {"stats", rt_stats},
  {"reload", rt_reload},
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

static const luaL_Reg cmd_methods[] = {
  {"dispatch", cmd_dispatch},
  {"draw", cmd_draw},
  {"clear", cmd_clear},
  {"copy", cmd_copy},
  {"blit", cmd_blit},
  {NULL, NULL},
};

void fg_lua_open_runtime(lua_State *L) {
  fg_lua_newclass(L, FG_LUA_RUNTIME, rt_meta, rt_methods);
  luaL_newmetatable(L, FG_LUA_CMD);
  lua_pushcfunction(L, cmd_tostring);
  lua_setfield(L, -2, "__tostring");
  luaL_newlib(L, cmd_methods);
  lua_setfield(L, -2, "__index");
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
