/* Lua binding of the command object nodes record with ("framegraph.cmd"):
 * valid only inside the node's run. Maps the names a node declared to its
 * uses and calls fg_rt_cmd_* / fg_rt_bind_* (fg_vk_cmd.h), which decide what a
 * declared usage allows and record. */
#include "graph_diag.h"  /* "did you mean" for undeclared names */
#include "fg_lua_push.h"
#include "fg_lua_runtime.h"
#include "fg_vk_cmd.h"
#include "fg_vk_mesh.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Vertices of one cmd:draw: far more than a pass needs, far less than what
 * takes a software rasterizer minutes (2^31 hung lavapipe's queue). */
#define FG_MAX_DRAW_VERTICES (1 << 24)


/* A shader made on another device cannot record into this runtime's commands. */
static struct fg_vk_shader *check_shader(lua_State *L, lcmd *c, int idx, const char *what) {
  struct fg_vk_shader *s = fg_lua_checkshader(L, idx);
  if (fg_vk_shader_device(s) != c->o->dev)
    luaL_argerror(L, idx, lua_pushfstring(L, "%s: shader '%s' was made on another device (another fg.vulkan); "
                                          "make it with this runtime's device", what,
                                          fg_vk_shader_get_info(s)->name));
  return s;
}

static const char *node_name(lcmd *c) { return fg_graph_instance_get(c->o->g, c->slot)->name; }

/* A table argument must be plain (fg_lua_plain): an __index or __len of it
 * would run the caller's code between the checks of this call and its use
 * of what they checked (a buffer, an image). */
static void plain(lua_State *L, lcmd *c, int idx, const char *what, const char *which) {
  if (lua_type(L, idx) == LUA_TTABLE && lua_getmetatable(L, idx))
    luaL_error(L, "node '%s': %s: %s: got a table with a metatable; give a plain table (its metamethods would run "
               "inside the call)", node_name(c), what, which);
}

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
  for (uint32_t u = 0; u < in->use_count; u++)
    if (in->uses[u].access == FG_ACCESS_HISTORY && !strcmp(in->uses[u].name, name))
      luaL_error(L, "node '%s': %s binds '%s', which the node reads only as last frame's copy (history); bind it "
                 "as {\"%s\", history = true}", in->name, what, name, name);
  graph_suggest sg;
  char hint[160];
  graph_suggest_begin(&sg, name);
  for (uint32_t u = 0; u < in->use_count; u++) graph_suggest_feed(&sg, in->uses[u].name);
  luaL_error(L, "node '%s': %s uses resource '%s' that the node did not declare%s; add it to the node's "
             "create/read/modify (with the usage the command needs)", in->name, what, name,
             graph_suggest_text(&sg, hint, sizeof hint));
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

/* An upload handle used by a command: it must be this runtime's and of the
 * frame being recorded. */
static lupload *check_upload(lua_State *L, lcmd *c, int idx, const char *what) {
  lupload *h = fg_lua_checkudata(L, idx, FG_LUA_UPLOAD);
  if (h->o != c->o)
    luaL_error(L, "node '%s': %s uses an upload made by another runtime; upload with this runtime's rt:upload "
               "or ctx.upload", node_name(c), what);
  if (!upload_valid(h))
    luaL_error(L, "node '%s': %s uses a stale upload (made for frame %d, %d bytes); uploads are valid only in the "
               "frame they were made for: call rt:upload before each rt:frame, or ctx.upload inside run",
               node_name(c), what, (int)h->rt_frame, (int)h->size);
  return h;
}

/* The options of a bindings entry {x, sampler = "nearest"|"linear", history = true}
 * at the top of the stack: a misspelt key or sampler name would silently bind
 * with the defaults, so both are refused naming the binding. */
static void entry_opts(lua_State *L, lcmd *c, uint32_t bnum, const char *what, int *nearest, int *history) {
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pop(L, 1);
    int ok = lua_isinteger(L, -1) && lua_tointeger(L, -1) == 1;
    if (!ok && lua_type(L, -1) == LUA_TSTRING) {
      const char *k = lua_tostring(L, -1);
      ok = !strcmp(k, "sampler") || !strcmp(k, "history");
    }
    if (!ok) {
      const char *k = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : luaL_typename(L, -1);
      luaL_error(L, "node '%s': %s binding %d: unknown field '%s' (a binding is a name, an image, an upload or "
                 "{x, sampler = \"nearest\"|\"linear\", history = true})", node_name(c), what, (int)bnum, k);
    }
  }
  lua_getfield(L, -1, "sampler");
  if (!lua_isnil(L, -1)) {
    const char *sm = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    if (!sm || (strcmp(sm, "nearest") && strcmp(sm, "linear")) || strlen(sm) != lua_rawlen(L, -1))
      luaL_error(L, "node '%s': %s binding %d: sampler must be \"nearest\" or \"linear\", got %s", node_name(c),
                 what, (int)bnum, sm ? sm : luaL_typename(L, -1));
    *nearest = !strcmp(sm, "nearest");
  }
  lua_pop(L, 1);
  lua_getfield(L, -1, "history");
  if (!lua_isnil(L, -1) && !lua_isboolean(L, -1))
    luaL_error(L, "node '%s': %s binding %d: history must be true or false, got a %s", node_name(c), what, (int)bnum,
               luaL_typename(L, -1));
  if (history) *history = lua_toboolean(L, -1);
  lua_pop(L, 1);
}

/* A texture made outside the graph (fg.image) as the bindings entry at the
 * top of the stack (`img` or {img, sampler = "nearest"}): 1 when it is one,
 * bound read-only with every mip; 0 when the entry is something else. */
static int bind_texture(lua_State *L, lcmd *c, const fg_vk_shader_info *si, uint32_t bnum, uint32_t n,
                        fg_vk_binding *out, const char *what) {
  int nearest = 0;
  if (lua_istable(L, -1)) {
    plain(L, c, -1, what, "a bindings entry");
    lua_geti(L, -1, 1);
    if (luaL_testudata(L, -1, FG_LUA_IMAGE)) {
      lua_pop(L, 1);
      entry_opts(L, c, bnum, what, &nearest, NULL);
      lua_geti(L, -1, 1);
    }
  } else {
    lua_pushvalue(L, -1);
  }
  fg_vk_device *dev = NULL;
  fg_vk_image *img = fg_lua_testimage(L, -1, &dev);
  lua_pop(L, 1);
  if (!img) return 0;
  if (dev != c->o->dev)
    luaL_error(L, "node '%s': %s binding %d: the image was made on another device (another fg.vulkan); load it with "
               "this runtime's device", node_name(c), what, (int)bnum);
  const fg_vk_shader_binding *rb = fg_vk_shader_find_binding(si, bnum);
  if (!rb) luaL_error(L, "node '%s': %s binding %d (an image) does not exist in shader '%s'", node_name(c), what,
                      (int)bnum, si->name);
  if (rb->type != VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER && rb->type != VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE)
    luaL_error(L, "node '%s': %s binding %d ('%s') is a %s; an image bound directly is read-only: bind it to a "
               "sampler2D (or texture2D)", node_name(c), what, (int)bnum, rb->name, fg_vk_descriptor_type_id(rb->type));
  /* Images outside the graph have no barriers: only a texture that was filled
   * and left readable (fg.image) binds; an external image is the graph's. */
  if (img->layout != VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL)
    luaL_error(L, "node '%s': %s binding %d ('%s'): this image is not a loaded texture (fg.image) or a frame left "
               "it in another layout; bind images from dev:external_image through the pipeline's external "
               "resources", node_name(c), what, (int)bnum, rb->name);
  if (n >= FG_VK_MAX_BINDINGS) luaL_error(L, "too many bindings");
  memset(out, 0, sizeof *out);
  out->binding = bnum;
  out->view = img->sampled_view ? img->sampled_view : img->view;
  out->layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
  out->sampler = nearest ? c->o->dev->sampler_nearest : c->o->dev->sampler_linear;
  return 1;
}

/* One bindings entry (at the top of the stack, binding number bnum) ->
 * *out; raises with the runtime's message when the binding is not legal. */
static void get_binding(lua_State *L, lcmd *c, const fg_vk_shader_info *si, uint32_t bnum, uint32_t n,
                        fg_vk_binding *out, const char *what) {
  char err[1024];
  if (luaL_testudata(L, -1, FG_LUA_UPLOAD)) {
    lupload *h = check_upload(L, c, lua_gettop(L), what);
    const fg_vk_shader_binding *rb = fg_vk_shader_find_binding(si, bnum);
    if (!rb) luaL_error(L, "node '%s': %s binding %d (an upload) does not exist in shader '%s'", node_name(c), what,
                        (int)bnum, si->name);
    if (n >= FG_VK_MAX_BINDINGS) luaL_error(L, "too many bindings");
    if (fg_rt_bind_upload(c->o->rt, c->slot, si, rb, h->offset, h->size, what, out, err, sizeof err))
      luaL_error(L, "%s", err);
    return;
  }
  const char *name = NULL;
  int nearest = 0, history = 0;
  size_t nlen = 0;
  if (bind_texture(L, c, si, bnum, n, out, what)) return;
  if (lua_type(L, -1) == LUA_TSTRING) {
    name = lua_tolstring(L, -1, &nlen);
  } else if (lua_istable(L, -1)) {
    lua_geti(L, -1, 1);
    name = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &nlen) : NULL;
    lua_pop(L, 1);
    entry_opts(L, c, bnum, what, &nearest, &history);
  }
  if (!name) luaL_error(L, "node '%s': %s binding %d must name a resource (string or {name, sampler=}) or be an upload",
                        node_name(c), what, (int)bnum);
  if (strlen(name) != nlen)
    luaL_error(L, "node '%s': %s binding %d: resource name '%s\\0...' holds a NUL byte", node_name(c), what, (int)bnum,
               name);
  const fg_vk_shader_binding *rb = fg_vk_shader_find_binding(si, bnum);
  if (!rb) luaL_error(L, "node '%s': %s binding %d ('%s') does not exist in shader '%s'", node_name(c), what,
                      (int)bnum, name, si->name);
  if (n >= FG_VK_MAX_BINDINGS) luaL_error(L, "too many bindings");
  uint32_t u = find_use_h(L, c, name, what, history);
  use_res(L, c, u, name);
  if (fg_rt_bind_use(c->o->rt, c->cmd, c->slot, u, name, si, rb, nearest, what, out, err, sizeof err))
    luaL_error(L, "%s", err);
}

/* Bindings table {[n] = name | {name, sampler = "nearest"|"linear", history = true} | upload} ->
 * fg_vk_binding array (fg_rt_bind_use / fg_rt_bind_upload check each and
 * record the barriers commands within one node need). */
static uint32_t get_bindings(lua_State *L, lcmd *c, int idx, const fg_vk_shader_info *si, fg_vk_binding *out,
                             const char *what) {
  uint32_t n = 0;
  if (lua_isnoneornil(L, idx)) return 0;
  luaL_checktype(L, idx, LUA_TTABLE);
  plain(L, c, idx, what, "the bindings");
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    if (!lua_isinteger(L, -2) || lua_tointeger(L, -2) < 0 || lua_tointeger(L, -2) > UINT32_MAX)
      luaL_error(L, "node '%s': %s bindings must be indexed by binding number (0..2^32-1), e.g. {[0] = 'src', "
                 "[1] = 'dst'}", node_name(c), what);
    if (n >= FG_VK_MAX_BINDINGS)
      luaL_error(L, "node '%s': %s has more than %d bindings", node_name(c), what, FG_VK_MAX_BINDINGS);
    get_binding(L, c, si, (uint32_t)lua_tointeger(L, -2), n, &out[n], what);
    n++;
    lua_pop(L, 1);
  }
  return n;
}

/* cmd:dispatch(shader, bindings, gx [, gy, gz, push]) */
static int cmd_dispatch(lua_State *L) {
  lcmd *c = fg_lua_cmd_check(L);
  struct fg_vk_shader *s = check_shader(L, c, 2, "cmd:dispatch");
  const fg_vk_shader_info *si = fg_vk_shader_get_info(s);
  /* Checked against the device before any cast: 2^32 would wrap to 0. */
  const uint32_t *lim = c->o->dev->props.limits.maxComputeWorkGroupCount;
  lua_Integer gx = fg_lua_checkrange(L, 4, 1, lim[0], "group count x (the device's maxComputeWorkGroupCount[0])");
  lua_Integer gy = lua_isnoneornil(L, 5) ? 1 : fg_lua_checkrange(L, 5, 1, lim[1], "group count y (the device's maxComputeWorkGroupCount[1])");
  lua_Integer gz = lua_isnoneornil(L, 6) ? 1 : fg_lua_checkrange(L, 6, 1, lim[2], "group count z (the device's maxComputeWorkGroupCount[2])");
  if (!si->is_compute) return luaL_argerror(L, 2, "cmd:dispatch needs a compute shader (use cmd:draw for fragment shaders)");
  if (fg_graph_instance_get(c->o->g, c->slot)->has_pass)
    return luaL_error(L, "node '%s': cmd:dispatch inside a render pass; move the dispatch to a node without pass",
                      node_name(c));
  fg_vk_binding b[FG_VK_MAX_BINDINGS];
  uint32_t n = get_bindings(L, c, 3, si, b, "cmd:dispatch");
  uint8_t pbuf[256];
  const void *push;
  size_t pn = fg_lua_push_pack(L, 7, si, node_name(c), "cmd:dispatch", pbuf, sizeof pbuf, &push);
  uint32_t groups[3] = {(uint32_t)gx, (uint32_t)gy, (uint32_t)gz};
  char err[1024];
  if (fg_rt_cmd_dispatch(c->o->rt, c->cmd, s, b, n, groups, push, (uint32_t)pn, err, sizeof err))
    return luaL_error(L, "node '%s': cmd:dispatch: %s", node_name(c), err);
  return 0;
}

/* cmd:draw(shader, bindings, vertices [, push]) inside the node's pass */
static int cmd_draw(lua_State *L) {
  lcmd *c = fg_lua_cmd_check(L);
  struct fg_vk_shader *s = check_shader(L, c, 2, "cmd:draw");
  const fg_vk_shader_info *si = fg_vk_shader_get_info(s);
  lua_Integer verts = lua_isnoneornil(L, 4) ? 3 : fg_lua_checkrange(L, 4, 1, FG_MAX_DRAW_VERTICES, "vertex count");
  const fg_graph_instance *in = fg_graph_instance_get(c->o->g, c->slot);
  if (!in->has_pass)
    return luaL_error(L, "node '%s': cmd:draw outside a render pass; give the node pass = {color = {...}}", in->name);
  if (si->is_compute) return luaL_argerror(L, 2, "cmd:draw needs a fragment shader (use cmd:dispatch for compute)");
  fg_vk_binding b[FG_VK_MAX_BINDINGS];
  uint32_t n = get_bindings(L, c, 3, si, b, "cmd:draw");
  uint8_t pbuf[256];
  const void *push;
  size_t pn = fg_lua_push_pack(L, 5, si, in->name, "cmd:draw", pbuf, sizeof pbuf, &push);
  char err[1024];
  if (fg_rt_cmd_draw(c->o->rt, c->cmd, c->slot, s, b, n, (uint32_t)verts, push, (uint32_t)pn, err, sizeof err))
    return luaL_error(L, "node '%s': cmd:draw: %s", in->name, err);
  return 0;
}

/* A buffer argument of draw_indexed: this device's, open, with `usage`. */
static fg_vk_static_buffer *draw_buffer(lua_State *L, lcmd *c, int idx, uint32_t usage, const char *which) {
  fg_vk_device *dev = NULL;
  fg_vk_static_buffer *b = fg_lua_testbuffer(L, idx, &dev);
  if (!b)
    luaL_error(L, "node '%s': cmd:draw_indexed: %s must be a buffer from fg.buffer (or a mesh's), got %s",
               node_name(c), which, luaL_typename(L, idx));
  if (dev != c->o->dev)
    luaL_error(L, "node '%s': cmd:draw_indexed: %s was made on another device (another fg.vulkan)", node_name(c),
               which);
  if (!(b->usage & usage))
    luaL_error(L, "node '%s': cmd:draw_indexed: %s was made without usage \"%s\" (fg.buffer opts.usage)",
               node_name(c), which, usage == FG_VK_BUFFER_INDEX ? "index" : "vertex");
  return b;
}

/* An integer field of the table at idx in [lo, hi] (absent: def). */
static uint64_t int_field(lua_State *L, lcmd *c, int idx, const char *key, uint64_t def, uint64_t hi, const char *which) {
  lua_getfield(L, idx, key);
  uint64_t v = def;
  if (!lua_isnil(L, -1)) {
    int isint = 0;
    lua_Integer i = fg_lua_tointx(L, -1, &isint);
    if (!isint || i < 0 || (uint64_t)i > hi)
      luaL_error(L, "node '%s': cmd:draw_indexed: %s.%s must be an integer in 0..%I", node_name(c), which, key,
                 (lua_Integer)hi);
    v = (uint64_t)i;
  }
  lua_pop(L, 1);
  return v;
}

/* cmd:draw_indexed(shader, bindings, index_buffer, count, vertex_buffers [, push]) inside the node's pass.
 * index_buffer: a buffer or {buffer, first = k}; count: indices (nil: all from first);
 * vertex_buffers: {[location] = buffer | {buffer, offset = bytes, stride = bytes}} for every vertex input. */
static int cmd_draw_indexed(lua_State *L) {
  lcmd *c = fg_lua_cmd_check(L);
  struct fg_vk_shader *s = check_shader(L, c, 2, "cmd:draw_indexed");
  const fg_vk_shader_info *si = fg_vk_shader_get_info(s);
  const fg_graph_instance *in = fg_graph_instance_get(c->o->g, c->slot);
  if (!in->has_pass)
    return luaL_error(L, "node '%s': cmd:draw_indexed outside a render pass; give the node pass = {color = {...}}",
                      in->name);
  if (si->is_compute) return luaL_argerror(L, 2, "cmd:draw_indexed needs a fragment shader (use cmd:dispatch for compute)");
  fg_vk_index_stream ix = {0};
  fg_vk_static_buffer *ib;
  if (lua_istable(L, 4)) {
    plain(L, c, 4, "cmd:draw_indexed", "the index buffer");
    lua_geti(L, 4, 1);
    ib = draw_buffer(L, c, lua_gettop(L), FG_VK_BUFFER_INDEX, "the index buffer");
    lua_pop(L, 1);
    ix.first = (uint32_t)int_field(L, c, 4, "first", 0, UINT32_MAX, "the index buffer");
  } else {
    ib = draw_buffer(L, c, 4, FG_VK_BUFFER_INDEX, "the index buffer");
  }
  ix.buffer = ib->buf.buffer;
  ix.size = ib->buf.size;
  ix.type = ib->index_type;
  ix.max_index = ib->max_index;
  uint64_t held = ib->buf.size / (ib->index_type == VK_INDEX_TYPE_UINT16 ? 2 : 4);
  if (lua_isnoneornil(L, 5)) {
    if (ix.first >= held)
      return luaL_error(L, "node '%s': cmd:draw_indexed: first index %d is past the %d indices of the buffer",
                        in->name, (int)ix.first, (int)held);
    ix.count = (uint32_t)(held - ix.first);
  } else {
    ix.count = (uint32_t)fg_lua_checkrange(L, 5, 1, FG_MAX_DRAW_VERTICES, "index count");
  }
  if (ix.count > FG_MAX_DRAW_VERTICES)
    return luaL_error(L, "node '%s': cmd:draw_indexed: %d indices; at most %d per draw", in->name, (int)ix.count,
                      FG_MAX_DRAW_VERTICES);
  fg_vk_vertex_stream vs[FG_VK_MAX_VERTEX_INPUTS];
  memset(vs, 0, sizeof vs);
  if (!lua_isnoneornil(L, 6)) {
    luaL_checktype(L, 6, LUA_TTABLE);
    plain(L, c, 6, "cmd:draw_indexed", "the vertex buffers");
    lua_pushnil(L);
    while (lua_next(L, 6)) {  /* every key must be an input location of the shader */
      int isint = 0;
      lua_Integer loc = lua_tointegerx(L, -2, &isint);
      uint32_t k = 0;
      while (isint && k < si->vertex_input_count && si->vertex_inputs[k].location != (uint64_t)loc) k++;
      if (!isint || k == si->vertex_input_count)
        return luaL_error(L, "node '%s': cmd:draw_indexed: vertex buffer key %s is not an input location of the "
                          "vertex shader of '%s' (it reads %d input(s)); key the table by location: {[0] = "
                          "positions, ...}", in->name, lua_tostring(L, -2) ? lua_tostring(L, -2) : luaL_typename(L, -2),
                          si->name, (int)si->vertex_input_count);
      char which[48];
      snprintf(which, sizeof which, "vertex buffer [%d]", (int)loc);
      fg_vk_static_buffer *vb;
      if (lua_istable(L, -1)) {
        int t = lua_gettop(L);
        plain(L, c, t, "cmd:draw_indexed", which);
        lua_geti(L, t, 1);
        vb = draw_buffer(L, c, lua_gettop(L), FG_VK_BUFFER_VERTEX, which);
        lua_pop(L, 1);
        vs[k].offset = int_field(L, c, t, "offset", 0, vb->buf.size, which);
        vs[k].stride = (uint32_t)int_field(L, c, t, "stride", si->vertex_inputs[k].bytes, UINT32_MAX, which);
      } else {
        vb = draw_buffer(L, c, lua_gettop(L), FG_VK_BUFFER_VERTEX, which);
        vs[k].stride = si->vertex_inputs[k].bytes;
      }
      vs[k].buffer = vb->buf.buffer;
      vs[k].size = vb->buf.size;
      lua_pop(L, 1);
    }
  }
  for (uint32_t k = 0; k < si->vertex_input_count; k++)
    if (!vs[k].buffer)
      return luaL_error(L, "node '%s': cmd:draw_indexed: the vertex shader of '%s' reads location %d ('%s') but no "
                        "vertex buffer is given for it", in->name, si->name, (int)si->vertex_inputs[k].location,
                        si->vertex_inputs[k].name);
  fg_vk_binding b[FG_VK_MAX_BINDINGS];
  uint32_t n = get_bindings(L, c, 3, si, b, "cmd:draw_indexed");
  uint8_t pbuf[256];
  const void *push;
  size_t pn = fg_lua_push_pack(L, 7, si, in->name, "cmd:draw_indexed", pbuf, sizeof pbuf, &push);
  char err[1024];
  if (fg_rt_cmd_draw_indexed(c->o->rt, c->cmd, c->slot, s, b, n, &ix, vs, si->vertex_input_count, push, (uint32_t)pn,
                             err, sizeof err))
    return luaL_error(L, "node '%s': cmd:draw_indexed: %s", in->name, err);
  return 0;
}

static void no_pass(lua_State *L, lcmd *c, const char *what) {
  if (fg_graph_instance_get(c->o->g, c->slot)->has_pass)
    luaL_error(L, "node '%s': %s inside a render pass is not allowed (use the pass's clear, or another node)",
               node_name(c), what);
}

/* cmd:clear(name, {r, g, b, a}) (buffers: {value} as uint32 fill) */
static int cmd_clear(lua_State *L) {
  lcmd *c = fg_lua_cmd_check(L);
  const char *name = fg_lua_checkname(L, 2, "resource name");
  no_pass(L, c, "cmd:clear");
  uint32_t u = find_use(L, c, name, "cmd:clear");
  fg_rt_res *r = use_res(L, c, u, name);
  double v[4] = {0, 0, 0, 0};
  if (!lua_isnoneornil(L, 3)) luaL_checktype(L, 3, LUA_TTABLE);
  plain(L, c, 3, "cmd:clear", "the clear values");
  /* what the resource takes: a buffer one fill word, depth/stencil two,
   * colour four; anything more (or a key that is no position) would be
   * dropped silently */
  int takes = !r->is_image ? 1 : (r->aspect & (VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT)) ? 2 : 4;
  if (lua_istable(L, 3)) {
    for (lua_pushnil(L); lua_next(L, 3); lua_pop(L, 1)) {
      int isint = 0;
      lua_Integer k = lua_tointegerx(L, -2, &isint);
      if (lua_type(L, -2) != LUA_TNUMBER || !isint || k < 1 || k > takes) {
        int str = lua_type(L, -2) == LUA_TSTRING;
        const char *ks = str ? lua_tostring(L, -2) : luaL_tolstring(L, -2, NULL);
        luaL_error(L, "node '%s': cmd:clear('%s'): takes %s; got the key %s%s%s", node_name(c), name,
                   takes == 1 ? "{value} (one fill word)" : takes == 2 ? "{depth, stencil}" : "{r, g, b, a}",
                   str ? "'" : "", ks, str ? "'" : "");
      }
    }
  }
  if (lua_istable(L, 3))
    for (int i = 0; i < 4; i++) {
      lua_geti(L, 3, i + 1);
      if (!lua_isnil(L, -1) && lua_type(L, -1) != LUA_TNUMBER)
        luaL_error(L, "node '%s': cmd:clear('%s'): value %d is a %s; expected a number", node_name(c), name, i + 1,
                   luaL_typename(L, -1));
      v[i] = lua_tonumber(L, -1);
      lua_pop(L, 1);
      if (!isfinite(v[i]) || fabs(v[i]) > 3.4e38)
        luaL_error(L, "node '%s': cmd:clear('%s'): value %d is %f; clear values must be finite (and fit a float)",
                   node_name(c), name, i + 1, v[i]);
    }
  /* What the clear casts to: integer texels and buffer words take integers in
   * their range, depth [0, 1] (no depth_range_unrestricted), stencil a byte. */
  int cls = r->is_image ? fg_vk_format_class(r->format) : 1;
  if (r->is_image && (r->aspect & (VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT))) {
    if (v[0] < 0 || v[0] > 1)
      luaL_error(L, "node '%s': cmd:clear('%s'): depth %f is outside [0, 1]", node_name(c), name, v[0]);
    if (v[1] < 0 || v[1] > 255 || v[1] != floor(v[1]))
      luaL_error(L, "node '%s': cmd:clear('%s'): stencil %f must be an integer in 0..255", node_name(c), name, v[1]);
  } else if (cls) {
    double lo = cls == 2 ? -2147483648.0 : 0, hi = cls == 2 ? 2147483647.0 : 4294967295.0;
    for (int i = 0; i < (r->is_image ? 4 : 1); i++)
      if (v[i] != floor(v[i]) || v[i] < lo || v[i] > hi)
        luaL_error(L, "node '%s': cmd:clear('%s'): value %d (%f) must be an integer in %I..%I for %s",
                   node_name(c), name, i + 1, v[i], (lua_Integer)lo, (lua_Integer)hi, r->is_image ? "an integer format" : "a buffer fill");
  }
  char err[1024];
  if (fg_rt_cmd_clear(c->o->rt, c->cmd, c->slot, u, name, v, "cmd:clear", err, sizeof err))
    return luaL_error(L, "%s", err);
  return 0;
}

/* cmd:copy(upload, name [, offset]): upload -> buffer (at byte offset) or
 * texture (mip 0, layer 0, tightly packed rows). */
static int copy_upload(lua_State *L, lcmd *c) {
  const char *what = "cmd:copy";
  lupload *h = check_upload(L, c, 2, what);
  const char *dn = fg_lua_checkname(L, 3, "resource name");
  no_pass(L, c, what);
  uint32_t du = find_use(L, c, dn, what);
  fg_rt_res *d = use_res(L, c, du, dn);
  char err[1024];
  if (fg_rt_cmd_transfer_check(c->o->rt, c->slot, du, dn, 1, what, err, sizeof err)) return luaL_error(L, "%s", err);
  lua_Integer off = 0;
  if (!d->is_image) {
    off = lua_isnoneornil(L, 4) ? 0 : fg_lua_checkrange(L, 4, 0, (lua_Integer)d->bytes, "the destination offset (within the buffer)");
  }
  if (fg_rt_cmd_copy_upload(c->o->rt, c->cmd, c->slot, du, dn, h->offset, h->size, (uint64_t)off, err, sizeof err))
    return luaL_error(L, "%s", err);
  return 0;
}

static int copy_or_blit(lua_State *L, int blit) {
  lcmd *c = fg_lua_cmd_check(L);
  const char *what = blit ? "cmd:blit" : "cmd:copy";
  if (luaL_testudata(L, 3, FG_LUA_UPLOAD))
    return luaL_error(L, "node '%s': %s into an upload: uploads are read-only for the GPU and can only be a copy "
                      "source", node_name(c), what);
  if (luaL_testudata(L, 2, FG_LUA_UPLOAD)) {
    if (blit) return luaL_error(L, "node '%s': cmd:blit cannot read an upload; use cmd:copy(upload, '%s')",
                                node_name(c), luaL_optstring(L, 3, "name"));
    return copy_upload(L, c);
  }
  const char *sn = fg_lua_checkname(L, 2, "source name"), *dn = fg_lua_checkname(L, 3, "destination name");
  no_pass(L, c, what);
  uint32_t su = find_use(L, c, sn, what), du = find_use(L, c, dn, what);
  use_res(L, c, su, sn);
  use_res(L, c, du, dn);
  char err[1024];
  if (blit && !lua_isnoneornil(L, 4)) {  /* cmd:blit(src, dst, {x, y, width, height}) */
    luaL_checktype(L, 4, LUA_TTABLE);
    plain(L, c, 4, "cmd:blit", "the rectangle");
    int32_t rect[4];
    for (int i = 0; i < 4; i++) {
      lua_geti(L, 4, i + 1);
      if (!lua_isinteger(L, -1))
        return luaL_error(L, "node '%s': cmd:blit: the rectangle is {x, y, width, height} in whole pixels",
                          node_name(c));
      rect[i] = (int32_t)lua_tointeger(L, -1);
      lua_pop(L, 1);
    }
    if (fg_rt_cmd_blit_rect(c->o->rt, c->cmd, c->slot, su, sn, du, dn, rect, err, sizeof err))
      return luaL_error(L, "%s", err);
    return 0;
  }
  if (fg_rt_cmd_copy(c->o->rt, c->cmd, c->slot, su, sn, du, dn, blit, err, sizeof err)) return luaL_error(L, "%s", err);
  return 0;
}

static int cmd_copy(lua_State *L) { return copy_or_blit(L, 0); }
static int cmd_blit(lua_State *L) { return copy_or_blit(L, 1); }

static int cmd_tostring(lua_State *L) {
  lcmd *c = fg_lua_checkudata(L, 1, FG_LUA_CMD);
  if (c->valid) lua_pushfstring(L, "framegraph.cmd (%s)", node_name(c));
  else lua_pushliteral(L, "framegraph.cmd (outside run)");
  return 1;
}

static const luaL_Reg cmd_methods[] = {
  {"dispatch", cmd_dispatch},
  {"draw", cmd_draw},
  {"draw_indexed", cmd_draw_indexed},
  {"clear", cmd_clear},
  {"copy", cmd_copy},
  {"blit", cmd_blit},
  {NULL, NULL},
};

void fg_lua_open_cmd(lua_State *L) {
  luaL_newmetatable(L, FG_LUA_CMD);
  lua_pushcfunction(L, cmd_tostring);
  lua_setfield(L, -2, "__tostring");
  luaL_newlib(L, cmd_methods);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
}
