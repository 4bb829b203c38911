/* External images ("framegraph.image", dev:external_image) and what the
 * runtime asks of `external` resources each frame (provide()). An image is
 * this device's or refused; closing one waits for the frames that use it. */
#include "fg_lua_runtime.h"
#include "fg_vk_image.h"
#include "fg_vk_window.h"
#include "fg_vk_host.h"
#include <stdlib.h>
#include <string.h>

/* An image made for `external` resources (dev:external_image): the runtime
 * transitions it but never allocates it; it tracks its layout across frames. */
typedef struct limage {
  fg_vk_device *dev;
  fg_vk_image img;
  fg_format format;
  uint32_t width, height;
  int borrowed;          /* a host's image (fg_runtime_set_image): never destroyed here */
} limage;

typedef struct dead_image {
  fg_vk_device *dev;
  fg_vk_image img;
} dead_image;

static void image_free(void *p) {
  dead_image *d = p;
  fg_vk_device *dev = d->dev;
  fg_vk_image_destroy(dev, &d->img);
  fg_vk_free(dev, d);
  fg_vk_release(dev);
}

/* The image may be in a frame in flight or in the one recording (closed from
 * a node's run): it goes once the device is done with it (fg_vk_defer). */
static int img_close(lua_State *L) {
  limage *m = fg_lua_checkudata(L, 1, FG_LUA_IMAGE);
  if (m->dev && m->borrowed) {
    fg_vk_release(m->dev);
    m->dev = NULL;
  } else if (m->dev) {
    fg_vk_device *dev = m->dev;
    m->dev = NULL;
    dead_image *d = fg_vk_malloc(dev, sizeof *d);
    if (!d) {
      fg_vk_image_destroy(dev, &m->img);
      fg_vk_release(dev);
      return 0;
    }
    d->dev = dev;
    d->img = m->img;
    fg_vk_defer(dev, image_free, d);
  }
  return 0;
}

/* dev:external_image(format, width, height) -> image | nil, err */
static int dev_external_image(lua_State *L) {
  fg_vk_device *dev = fg_lua_checkdevice(L, 1);
  const char *fname = fg_lua_checkname(L, 2, "format");
  fg_format f = fg_format_from_name(fname);
  if (f == FG_FORMAT_UNDEFINED) return luaL_argerror(L, 2, lua_pushfstring(L, "unknown format '%s' (one of %s)", fname, fg_format_names()));
  lua_Integer maxd = dev->props.limits.maxImageDimension2D < 16384 ? dev->props.limits.maxImageDimension2D : 16384;
  lua_Integer w = fg_lua_checkrange(L, 3, 1, maxd, "width"), h = fg_lua_checkrange(L, 4, 1, maxd, "height");
  limage *m = lua_newuserdatauv(L, sizeof *m, 0);
  memset(m, 0, sizeof *m);
  luaL_setmetatable(L, FG_LUA_IMAGE);
  dev = fg_lua_checkdevice(L, 1);  /* again: a finalizer the allocation ran may have closed it */
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

void fg_lua_push_image(lua_State *L, fg_vk_device *dev, const fg_vk_image *img, fg_format format, uint32_t width,
                       uint32_t height) {
  fg_vk_retain(dev);  /* before the allocation: a finalizer it runs may close the Lua device */
  limage *m = lua_newuserdatauv(L, sizeof *m, 0);
  memset(m, 0, sizeof *m);
  luaL_setmetatable(L, FG_LUA_IMAGE);
  m->dev = dev;
  m->img = *img;
  m->format = format;
  m->width = width;
  m->height = height;
}

fg_vk_image *fg_lua_testimage(lua_State *L, int idx, fg_vk_device **dev) {
  limage *m = luaL_testudata(L, idx, FG_LUA_IMAGE);
  if (!m) return NULL;
  if (!m->dev) luaL_error(L, "image is closed: its close() was called; load or make it again");
  *dev = m->dev;
  return &m->img;
}

/* image:info() -> {width, height, format, mips} */
static int img_info(lua_State *L) {
  limage *m = fg_lua_checkudata(L, 1, FG_LUA_IMAGE);
  if (!m->dev) return luaL_error(L, "image is closed: its close() was called");
  fg_lua_hold_gc(L);  /* no finalizer may close self while this reads it */
  lua_createtable(L, 0, 4);
  lua_pushinteger(L, m->width); lua_setfield(L, -2, "width");
  lua_pushinteger(L, m->height); lua_setfield(L, -2, "height");
  lua_pushstring(L, fg_format_get(m->format)->name); lua_setfield(L, -2, "format");
  lua_pushinteger(L, m->img.mips ? m->img.mips : 1); lua_setfield(L, -2, "mips");
  return 1;
}

static int img_tostring(lua_State *L) {
  limage *m = fg_lua_checkudata(L, 1, FG_LUA_IMAGE);
  lua_pushfstring(L, "framegraph.image (%dx%d %s%s)", (int)m->width, (int)m->height, fg_format_get(m->format)->name,
                  m->dev ? "" : ", closed");
  return 1;
}

/* A host image's index: the copy along the external's (one) multiplexing dimension. */
static uint32_t flat_index(const fg_graph_resource *r, uint32_t nd) {
  uint32_t k = 0;
  for (uint32_t d = 0; d < nd; d++) k += r->index[d];
  return k;
}

int fg_lua_host_image(lua_State *L, int rt_idx, const char *name, uint32_t index) {
  rt_idx = lua_absindex(L, rt_idx);
  int top = lua_gettop(L);
  if (lua_getfield(L, LUA_REGISTRYINDEX, FG_LUA_HOST_IMAGES) == LUA_TTABLE) {
    lua_pushvalue(L, rt_idx);
    if (lua_rawget(L, -2) == LUA_TTABLE && lua_getfield(L, -1, name) == LUA_TTABLE &&
        lua_rawgeti(L, -1, (lua_Integer)index + 1) != LUA_TNIL) {
      lua_replace(L, top + 1);
      lua_settop(L, top + 1);
      return 1;
    }
  }
  lua_settop(L, top);
  return 0;
}

void fg_lua_push_host_image(lua_State *L, fg_vk_device *dev, VkImage image, VkImageView view, fg_format f,
                            uint32_t w, uint32_t h, VkImageLayout layout) {
  limage *m = lua_newuserdatauv(L, sizeof *m, 0);
  memset(m, 0, sizeof *m);
  luaL_setmetatable(L, FG_LUA_IMAGE);
  m->dev = fg_vk_retain(dev);
  m->borrowed = 1;
  m->format = f;
  m->width = w;
  m->height = h;
  m->img.image = image;
  m->img.view = view;
  m->img.layout = layout;
}

VkImageLayout *fg_lua_image_layout(lua_State *L, int idx) {
  limage *m = luaL_testudata(L, idx, FG_LUA_IMAGE);
  return m && m->dev ? &m->img.layout : NULL;
}

/* Asks pipeline.external[name].provide(index) for this frame's images. */
void fg_lua_rt_provide_externals(lua_State *L, lrt *o) {
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
    if (!lua_isfunction(L, -1) && fg_lua_host_image(L, 1, r->g->name, flat_index(r->g, nd))) {
      lua_remove(L, -2);  /* a host's image (fg_runtime_set_image) stands in for provide's result */
    } else if (!lua_isfunction(L, -1)) {
      luaL_error(L, "external resource '%s' needs pipeline.external.%s.provide = function(index) return image end "
                 "(an image from dev:external_image), or a host's image (fg_runtime_set_image)", r->g->name,
                 r->g->name);
    } else {
    lua_createtable(L, 0, (int)nd);
    for (uint32_t d = 0; d < nd; d++) {
      lua_pushinteger(L, (lua_Integer)r->g->index[d] + 1);
      lua_setfield(L, -2, fg_graph_dim_name(o->g, d));
    }
    lua_call(L, 1, 1);
    }
    if (!r->is_image) {  /* an external buffer: the host's (fg_runtime_set_buffer) */
      fg_lua_host_buffer *hb = fg_lua_test_host_buffer(L, -1);
      if (!hb)
        luaL_error(L, "external buffer '%s': provide must return a host's buffer (fg_runtime_set_buffer), got %s",
                   r->g->name, luaL_typename(L, -1));
      if (hb->size < r->g->bytes)
        luaL_error(L, "external buffer '%s': the host's buffer has %d bytes; the pipeline declares %d", r->g->name,
                   (int)hb->size, (int)r->g->bytes);
      fg_rt_set_external_buffer(o->rt, i, hb->buffer);
      lua_rawseti(L, keep, (lua_Integer)luaL_len(L, keep) + 1);
      lua_pop(L, 1);
      continue;
    }
    fg_vk_window *win = fg_lua_testwindow(L, -1);
    if (win) {  /* a window's acquired swapchain image, presented after the frame */
      fg_vk_window_target t;
      if (fg_vk_window_device(win) != o->dev)
        luaL_error(L, "external '%s': provide returned a window opened on another device; open it on this "
                   "runtime's device", r->g->name);
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
    if (m && !m->dev)
      luaL_error(L, "external '%s': image is closed: provide returned an image whose close() was called; return "
                 "an open image from dev:external_image", r->g->name);
    if (!m)
      luaL_error(L, "external '%s': provide(index) must return an open image from dev:external_image, got %s",
                 r->g->name, luaL_typename(L, -1));
    if (m->dev != o->dev)
      luaL_error(L, "external '%s': provide returned an image made by another device (another fg.vulkan); make it "
                 "with this runtime's device: dev:external_image(...)", r->g->name);
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
/* A read-back of an external copies from the image the last frames were given:
 * it must still be open. */
void fg_lua_rt_check_externals(lua_State *L, lrt *o, uint32_t phys, const char *what) {
  fg_rt_res *r = fg_rt_resource(o->rt, phys);
  if (!r || !r->is_external) return;
  lua_getiuservalue(L, 1, UV_EXT);
  for (lua_Integer k = 1, n = lua_istable(L, -1) ? luaL_len(L, -1) : 0; k <= n; k++) {
    lua_rawgeti(L, -1, k);
    limage *m = luaL_testudata(L, -1, FG_LUA_IMAGE);
    if (m && !m->dev)
      luaL_error(L, "%s('%s'): image is closed: an image given to the last frame by provide() was closed since",
                 what, r->g->name);
    if (!m && !fg_lua_testwindow(L, -1) && !fg_lua_test_host_buffer(L, -1))
      luaL_error(L, "%s('%s'): window is closed: read the window's picture before closing it", what, r->g->name);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

void fg_lua_open_runtime_image(lua_State *L) {
  luaL_newmetatable(L, FG_LUA_IMAGE);
  lua_pushcfunction(L, img_close); lua_setfield(L, -2, "__gc");
  lua_pushcfunction(L, img_close); lua_setfield(L, -2, "__close");
  lua_pushcfunction(L, img_tostring); lua_setfield(L, -2, "__tostring");
  lua_newtable(L);
  lua_pushcfunction(L, img_close); lua_setfield(L, -2, "close");
  lua_pushcfunction(L, img_info); lua_setfield(L, -2, "info");
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
  luaL_getmetatable(L, FG_LUA_DEVICE);
  lua_getfield(L, -1, "__index");
  lua_pushcfunction(L, dev_external_image);
  lua_setfield(L, -2, "external_image");
  lua_pop(L, 2);
}
