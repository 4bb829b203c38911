/* include/framegraph.h: the C API of a host that brings its own Vulkan
 * device. Devices are csrc/vk's (fg_vk_adopt); runtimes are the Lua
 * runtime (fg.runtime, fg.watch) living in the host's lua_State, driven
 * from here, so the pipeline file, live reload and rollback behave as they
 * do in Lua. Every object keeps its last message; nothing is global. */
#include "framegraph.h"
#include "fg_vk_host.h"
#include "fg_vk_runtime.h"
#include "fg_lua.h"
#include "fg_lua_runtime.h"
#include <lauxlib.h>
#include <lualib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

_Static_assert(sizeof(fg_allocator) == sizeof(fg_alloc_hooks), "fg_allocator mirrors fg_alloc_hooks");

#define MAX_EXTERNALS 32

struct fg_device {
  fg_vk_device *vk;          /* NULL: creation failed (err says why) */
  fg_alloc_hooks hooks;
  char err[1024];
};

typedef struct ext_image {
  char name[64];
  uint32_t index;
  VkImage image;
  VkImageAspectFlags aspect;
  VkImageLayout final_layout;
} ext_image;

struct fg_runtime {
  fg_device *dev;
  lua_State *L;
  int rt_ref, watch_ref;     /* registry references (LUA_NOREF: none) */
  ext_image ext[MAX_EXTERNALS];
  uint32_t next;
  int buffers;               /* host buffers given: hand them back after each frame */
  char err[2048];
};

const char *fg_result_name(fg_result r) {
  switch (r) {
    case FG_SUCCESS: return "FG_SUCCESS";
    case FG_ERROR_INVALID_ARGUMENT: return "FG_ERROR_INVALID_ARGUMENT";
    case FG_ERROR_OUT_OF_MEMORY: return "FG_ERROR_OUT_OF_MEMORY";
    case FG_ERROR_VULKAN: return "FG_ERROR_VULKAN";
    case FG_ERROR_UNSUPPORTED: return "FG_ERROR_UNSUPPORTED";
    case FG_ERROR_PIPELINE: return "FG_ERROR_PIPELINE";
    case FG_ERROR_NOT_FOUND: return "FG_ERROR_NOT_FOUND";
    case FG_ERROR_LUA: return "FG_ERROR_LUA";
    case FG_ERROR_STATE: return "FG_ERROR_STATE";
  }
  return "FG_ERROR_?";
}

static fg_result fail(char *buf, size_t len, fg_result r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, len, fmt, ap);
  va_end(ap);
  return r;
}
#define DEV_FAIL(d, r, ...) fail((d)->err, sizeof (d)->err, r, __VA_ARGS__)
#define RT_FAIL(t, r, ...) fail((t)->err, sizeof (t)->err, r, __VA_ARGS__)

/* ------------------------------------------------------------ devices -- */

fg_result fg_device_create(const fg_device_desc *desc, fg_device **out) {
  if (!out) return FG_ERROR_INVALID_ARGUMENT;
  *out = NULL;
  fg_alloc_hooks hooks = {0};
  if (desc) memcpy(&hooks, &desc->allocator, sizeof hooks);
  fg_device *d = fg_malloc(&hooks, sizeof *d);
  if (!d) return FG_ERROR_OUT_OF_MEMORY;
  memset(d, 0, sizeof *d);
  d->hooks = hooks;
  *out = d;
  if (!desc) return DEV_FAIL(d, FG_ERROR_INVALID_ARGUMENT, "fg_device_create: desc is NULL");
  fg_vk_host_desc hd = {
    .instance = desc->instance, .phys = desc->physical_device, .device = desc->device,
    .queue_family = desc->queue_family, .queue = desc->queue, .gipa = desc->get_instance_proc_addr,
    .vkalloc = desc->vk_allocator, .extensions = desc->enabled_extensions,
    .extension_count = desc->enabled_extension_count, .validation = desc->validation != 0, .hooks = hooks,
  };
  if (!desc->instance || !desc->physical_device || !desc->device || !desc->queue || !desc->get_instance_proc_addr)
    return DEV_FAIL(d, FG_ERROR_INVALID_ARGUMENT, "fg_device_create: instance, physical_device, device, queue and "
                    "get_instance_proc_addr are all required");
  d->vk = fg_vk_adopt(&hd, d->err, sizeof d->err);
  if (!d->vk) return strstr(d->err, "out of memory") ? FG_ERROR_OUT_OF_MEMORY : FG_ERROR_UNSUPPORTED;
  d->vk->host = d;
  d->err[0] = 0;
  return FG_SUCCESS;
}

void fg_device_destroy(fg_device *dev) {
  if (!dev) return;
  if (dev->vk) {
    dev->vk->host = NULL;
    fg_vk_release(dev->vk);
  }
  fg_alloc_hooks hooks = dev->hooks;
  fg_free(&hooks, dev);
}

const char *fg_device_last_error(const fg_device *dev) { return dev ? dev->err : "fg_device is NULL"; }

static fg_result check_dev(fg_device *dev) {
  if (!dev) return FG_ERROR_INVALID_ARGUMENT;
  if (!dev->vk) return FG_ERROR_STATE;  /* keeps the creation's message */
  return FG_SUCCESS;
}

fg_result fg_device_get_info(const fg_device *dev, fg_device_info *out) {
  if (!dev || !out) return FG_ERROR_INVALID_ARGUMENT;
  if (!dev->vk) return FG_ERROR_STATE;
  memset(out, 0, sizeof *out);
  memcpy(out->name, dev->vk->props.deviceName, sizeof out->name);
  out->api_version = dev->vk->props.apiVersion;
  out->type = dev->vk->props.deviceType;
  out->hosted = (uint32_t)dev->vk->borrowed;
  out->memory_budget = (uint32_t)dev->vk->has_memory_budget;
  return FG_SUCCESS;
}

fg_result fg_device_register_node(fg_device *dev, const char *name, fg_node_fn fn, void *user) {
  fg_result r = check_dev(dev);
  if (r) return r;
  if (!name || !name[0] || strlen(name) >= 64)
    return DEV_FAIL(dev, FG_ERROR_INVALID_ARGUMENT, "fg_device_register_node: name must be 1 to 63 characters");
  for (const char *p = name; *p; p++)
    if (!(*p == '_' || *p == '.' || *p == '-' || (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
          (*p >= 'A' && *p <= 'Z')))
      return DEV_FAIL(dev, FG_ERROR_INVALID_ARGUMENT, "fg_device_register_node: name '%s' holds '%c'; use letters, "
                      "digits, _ . - (pipelines write run = \"host:%s\")", name, *p, name);
  if (fg_vk_host_register(dev->vk, name, fn, user))
    return DEV_FAIL(dev, FG_ERROR_OUT_OF_MEMORY, "fg_device_register_node: out of memory");
  return FG_SUCCESS;
}

/* ------------------------------------------------------------------ Lua -- */

int luaopen_framegraph_core(lua_State *L);

fg_result fg_lua_open(lua_State *L, const char *lua_dir) {
  if (!L) return FG_ERROR_INVALID_ARGUMENT;
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
  lua_pushcfunction(L, luaopen_framegraph_core);
  lua_setfield(L, -2, "framegraph.core");
  lua_pop(L, 1);
  if (lua_dir) {
    if (lua_getglobal(L, "package") != LUA_TTABLE) {
      lua_pop(L, 1);
      return FG_ERROR_STATE;  /* luaL_openlibs has not run */
    }
    lua_getfield(L, -1, "path");
    lua_pushfstring(L, "%s/?.lua;%s/?/init.lua;%s", lua_dir, lua_dir, lua_tostring(L, -1));
    lua_setfield(L, -3, "path");
    lua_pop(L, 2);
  }
  return FG_SUCCESS;
}

fg_result fg_device_push(fg_device *dev, lua_State *L) {
  fg_result r = check_dev(dev);
  if (r) return r;
  if (!L) return DEV_FAIL(dev, FG_ERROR_INVALID_ARGUMENT, "fg_device_push: L is NULL");
  /* the device metatable is framegraph.core's: load it first */
  lua_getglobal(L, "require");
  lua_pushliteral(L, "framegraph.core");
  if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
    fg_result e = DEV_FAIL(dev, FG_ERROR_LUA, "fg_device_push: require('framegraph.core') failed: %s (call "
                           "fg_lua_open first)", lua_tostring(L, -1));
    lua_pop(L, 1);
    return e;
  }
  lua_pop(L, 1);
  fg_lua_push_device(L, dev->vk);
  return FG_SUCCESS;
}

/* ------------------------------------------------------------ runtimes -- */

static const char create_chunk[] =
  "local dev, path, watch, opts_src = ...\n"
  "local fg = require('framegraph')\n"
  "local opts\n"
  "if opts_src then\n"
  "  local f, err = load('return ' .. opts_src, '=fg_runtime_desc.options', 't', {})\n"
  "  if not f then error(err, 0) end\n"
  "  opts = f()\n"
  "end\n"
  "local rt, err = fg.runtime(dev, path, opts)\n"
  "if not rt then error(err, 0) end\n"
  "return rt, watch and fg.watch(rt, path) or false\n";

static lrt *runtime_of(fg_runtime *rt) {
  lua_rawgeti(rt->L, LUA_REGISTRYINDEX, rt->rt_ref);
  lrt *o = luaL_testudata(rt->L, -1, FG_LUA_RUNTIME);
  lua_pop(rt->L, 1);
  return o && o->rt ? o : NULL;
}

fg_result fg_runtime_create(fg_device *dev, lua_State *L, const fg_runtime_desc *desc, fg_runtime **out) {
  if (!out) return FG_ERROR_INVALID_ARGUMENT;
  *out = NULL;
  fg_result r = check_dev(dev);
  if (r) return r;
  fg_runtime *rt = fg_malloc(&dev->hooks, sizeof *rt);
  if (!rt) return FG_ERROR_OUT_OF_MEMORY;
  memset(rt, 0, sizeof *rt);
  rt->dev = dev;
  rt->L = L;
  rt->rt_ref = rt->watch_ref = LUA_NOREF;
  *out = rt;
  if (!L || !desc || !desc->pipeline_path)
    return RT_FAIL(rt, FG_ERROR_INVALID_ARGUMENT, "fg_runtime_create: L, desc and desc->pipeline_path are required");
  int top = lua_gettop(L);
  if (luaL_loadbufferx(L, create_chunk, sizeof create_chunk - 1, "=fg_runtime_create", "t") != LUA_OK) {
    r = RT_FAIL(rt, FG_ERROR_LUA, "fg_runtime_create: %s", lua_tostring(L, -1));
    lua_settop(L, top);
    return r;
  }
  if ((r = fg_device_push(dev, L)) != FG_SUCCESS) {
    RT_FAIL(rt, r, "%s", dev->err);
    lua_settop(L, top);
    return r;
  }
  lua_pushstring(L, desc->pipeline_path);
  lua_pushboolean(L, desc->watch != 0);
  if (desc->options) lua_pushstring(L, desc->options);
  else lua_pushnil(L);
  if (lua_pcall(L, 4, 2, 0) != LUA_OK) {
    const char *m = lua_tostring(L, -1);
    r = RT_FAIL(rt, FG_ERROR_PIPELINE, "%s", m ? m : "(error object is not a string)");
    lua_settop(L, top);
    return r;
  }
  rt->watch_ref = lua_toboolean(L, -1) ? luaL_ref(L, LUA_REGISTRYINDEX) : (lua_pop(L, 1), LUA_NOREF);
  rt->rt_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_settop(L, top);
  return FG_SUCCESS;
}

void fg_runtime_destroy(fg_runtime *rt) {
  if (!rt) return;
  lua_State *L = rt->L;
  if (L && rt->rt_ref != LUA_NOREF) {
    int top = lua_gettop(L);
    lua_rawgeti(L, LUA_REGISTRYINDEX, rt->rt_ref);
    /* forget the host's images of this runtime */
    if (lua_getfield(L, LUA_REGISTRYINDEX, FG_LUA_HOST_IMAGES) == LUA_TTABLE) {
      lua_pushvalue(L, -2);
      lua_pushnil(L);
      lua_rawset(L, -3);
    }
    lua_pop(L, 1);
    lua_getfield(L, -1, "close");
    lua_insert(L, -2);
    lua_pcall(L, 1, 0, 0);
    lua_settop(L, top);
    luaL_unref(L, LUA_REGISTRYINDEX, rt->rt_ref);
    luaL_unref(L, LUA_REGISTRYINDEX, rt->watch_ref);
  }
  fg_alloc_hooks hooks = rt->dev->hooks;
  fg_free(&hooks, rt);
}

const char *fg_runtime_last_error(const fg_runtime *rt) { return rt ? rt->err : "fg_runtime is NULL"; }

static fg_result check_rt(fg_runtime *rt) {
  if (!rt) return FG_ERROR_INVALID_ARGUMENT;
  if (rt->rt_ref == LUA_NOREF) return FG_ERROR_STATE;
  if (!runtime_of(rt)) return RT_FAIL(rt, FG_ERROR_STATE, "the runtime was closed from Lua (rt:close())");
  return FG_SUCCESS;
}

fg_result fg_runtime_get_info(fg_runtime *rt, fg_runtime_info *out) {
  fg_result r = check_rt(rt);
  if (r) return r;
  if (!out) return RT_FAIL(rt, FG_ERROR_INVALID_ARGUMENT, "fg_runtime_get_info: out is NULL");
  const fg_rt *frt = runtime_of(rt)->rt;
  memset(out, 0, sizeof *out);
  out->frames = fg_rt_frame_index(frt);
  out->instances = fg_rt_planned(frt) ? fg_graph_instance_count(fg_rt_graph(frt)) : 0;
  out->resources = fg_rt_resource_count(frt);
  for (uint32_t h = 0; h < fg_rt_heap_count(frt); h++) {
    fg_rt_heap_info hi;
    fg_rt_heap_get(frt, h, &hi);
    out->memory_bytes += hi.bytes;
  }
  out->allocations = fg_rt_allocations(frt);
  return FG_SUCCESS;
}

fg_result fg_runtime_push(fg_runtime *rt, lua_State *L) {
  fg_result r = check_rt(rt);
  if (r) return r;
  if (L != rt->L) return RT_FAIL(rt, FG_ERROR_INVALID_ARGUMENT, "fg_runtime_push: the runtime lives in another lua_State");
  lua_rawgeti(L, LUA_REGISTRYINDEX, rt->rt_ref);
  return FG_SUCCESS;
}

fg_result fg_runtime_poll(fg_runtime *rt, fg_reload_status *out) {
  fg_result r = check_rt(rt);
  if (r) return r;
  if (out) *out = FG_RELOAD_NONE;
  if (rt->watch_ref == LUA_NOREF) return FG_SUCCESS;
  lua_State *L = rt->L;
  int top = lua_gettop(L);
  lua_rawgeti(L, LUA_REGISTRYINDEX, rt->watch_ref);
  lua_getfield(L, -1, "poll");
  lua_insert(L, -2);
  if (lua_pcall(L, 1, 2, 0) != LUA_OK) {
    r = RT_FAIL(rt, FG_ERROR_LUA, "fg_runtime_poll: %s", lua_tostring(L, -1));
    lua_settop(L, top);
    return r;
  }
  const char *what = lua_tostring(L, -2);
  if (what && !strcmp(what, "reloaded")) {
    if (out) *out = FG_RELOAD_DONE;
  } else if (what && !strcmp(what, "error")) {
    if (out) *out = FG_RELOAD_FAILED;
    const char *m = lua_tostring(L, -1);
    RT_FAIL(rt, FG_SUCCESS, "%s", m ? m : "reload failed");
  }
  lua_settop(L, top);
  return FG_SUCCESS;
}

static void push_host_table(fg_runtime *rt, const char *name);

/* FG_SUCCESS when the pipeline declares an external `name` (an image when
 * want_image, else a buffer); else the message lists the externals it has. */
static fg_result check_external(fg_runtime *rt, const char *what, const char *name, int want_image) {
  const lrt *o = runtime_of(rt);
  char list[512] = "";
  size_t len = 0;
  for (uint32_t i = 0; i < fg_graph_resource_count(o->g); i++) {
    const fg_graph_resource *r = fg_graph_resource_get(o->g, i);
    if (r->kind != FG_RES_EXTERNAL) continue;
    int image = r->format != FG_FORMAT_UNDEFINED;
    if (!strcmp(r->name, name)) {
      if (image == want_image) return FG_SUCCESS;
      return RT_FAIL(rt, FG_ERROR_INVALID_ARGUMENT, "%s('%s'): the pipeline declares '%s' as %s; give it with %s",
                     what, name, name, image ? "an image" : "a buffer",
                     image ? "fg_runtime_set_image" : "fg_runtime_set_buffer");
    }
    if (!strstr(list, r->name) && len + strlen(r->name) + 3 < sizeof list)
      len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "", r->name);
  }
  return RT_FAIL(rt, FG_ERROR_NOT_FOUND, "%s('%s'): the pipeline declares no external '%s' (externals: %s)", what,
                 name, name, len ? list : "none");
}

fg_result fg_runtime_set_image(fg_runtime *rt, const fg_external_image *im) {
  fg_result r = check_rt(rt);
  if (r) return r;
  if (!im || !im->name || !im->image || !im->view || !im->width || !im->height)
    return RT_FAIL(rt, FG_ERROR_INVALID_ARGUMENT, "fg_runtime_set_image: name, image, view, width and height are "
                   "required");
  if (strlen(im->name) >= sizeof rt->ext[0].name)
    return RT_FAIL(rt, FG_ERROR_INVALID_ARGUMENT, "fg_runtime_set_image: name '%s' is too long", im->name);
  if ((r = check_external(rt, "fg_runtime_set_image", im->name, 1)) != FG_SUCCESS) return r;
  fg_format f = fg_rt_format_back(im->format);
  if (f == FG_FORMAT_UNDEFINED)
    return RT_FAIL(rt, FG_ERROR_UNSUPPORTED, "fg_runtime_set_image('%s'): VkFormat %d has no framegraph format",
                   im->name, (int)im->format);
  ext_image *e = NULL;
  for (uint32_t i = 0; i < rt->next && !e; i++)
    if (!strcmp(rt->ext[i].name, im->name) && rt->ext[i].index == im->index) e = &rt->ext[i];
  if (!e) {
    if (rt->next == MAX_EXTERNALS)
      return RT_FAIL(rt, FG_ERROR_OUT_OF_MEMORY, "fg_runtime_set_image: at most %d host images per runtime",
                     MAX_EXTERNALS);
    e = &rt->ext[rt->next++];
    snprintf(e->name, sizeof e->name, "%s", im->name);
    e->index = im->index;
  }
  e->image = im->image;
  e->aspect = fg_rt_format_aspect(f);
  e->final_layout = im->final_layout;
  lua_State *L = rt->L;
  int top = lua_gettop(L);
  push_host_table(rt, im->name);
  fg_lua_push_host_image(L, rt->dev->vk, im->image, im->view, f, im->width, im->height, im->layout);
  lua_rawseti(L, -2, (lua_Integer)im->index + 1);
  lua_settop(L, top);
  return FG_SUCCESS;
}

/* registry[FG_LUA_HOST_IMAGES][rt][name] (created as needed) on the stack top. */
static void push_host_table(fg_runtime *rt, const char *name) {
  lua_State *L = rt->L;
  if (luaL_getsubtable(L, LUA_REGISTRYINDEX, FG_LUA_HOST_IMAGES) == 0) {
    lua_createtable(L, 0, 1);  /* weak keys: a runtime collected from Lua takes its images along */
    lua_pushliteral(L, "k");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
  }
  lua_rawgeti(L, LUA_REGISTRYINDEX, rt->rt_ref);
  lua_pushvalue(L, -1);
  if (lua_rawget(L, -3) != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -2);
    lua_pushvalue(L, -2);
    lua_rawset(L, -5);
  }
  luaL_getsubtable(L, -1, name);
  lua_replace(L, -4);
  lua_pop(L, 2);
}

fg_result fg_runtime_set_buffer(fg_runtime *rt, const fg_external_buffer *b) {
  fg_result r = check_rt(rt);
  if (r) return r;
  if (!b || !b->name || !b->buffer || !b->size)
    return RT_FAIL(rt, FG_ERROR_INVALID_ARGUMENT, "fg_runtime_set_buffer: name, buffer and size are required");
  if ((r = check_external(rt, "fg_runtime_set_buffer", b->name, 0)) != FG_SUCCESS) return r;
  push_host_table(rt, b->name);
  fg_lua_push_host_buffer(rt->L, b->buffer, b->size);
  lua_rawseti(rt->L, -2, (lua_Integer)b->index + 1);
  lua_pop(rt->L, 1);
  rt->buffers = 1;
  return FG_SUCCESS;
}

/* Pushes the host image (name, index) or returns 0. */
static int push_image(fg_runtime *rt, const char *name, uint32_t index) {
  lua_State *L = rt->L;
  lua_rawgeti(L, LUA_REGISTRYINDEX, rt->rt_ref);
  int found = fg_lua_host_image(L, -1, name, index);
  lua_remove(L, found ? -2 : -1);  /* the runtime */
  return found;
}

fg_result fg_runtime_image_layout(fg_runtime *rt, const char *name, uint32_t index, VkImageLayout *out) {
  fg_result r = check_rt(rt);
  if (r) return r;
  if (!name || !out) return RT_FAIL(rt, FG_ERROR_INVALID_ARGUMENT, "fg_runtime_image_layout: name and out are required");
  if (!push_image(rt, name, index))
    return RT_FAIL(rt, FG_ERROR_NOT_FOUND, "fg_runtime_image_layout: no host image '%s' [%u] (fg_runtime_set_image)",
                   name, index);
  VkImageLayout *l = fg_lua_image_layout(rt->L, -1);
  *out = l ? *l : VK_IMAGE_LAYOUT_UNDEFINED;
  lua_pop(rt->L, 1);
  return FG_SUCCESS;
}

typedef struct handback {
  fg_runtime *rt;
  uint32_t n;
  VkImage image[MAX_EXTERNALS];
  VkImageAspectFlags aspect[MAX_EXTERNALS];
  VkImageLayout from[MAX_EXTERNALS], to[MAX_EXTERNALS];
  int buffers;
} handback;

static void record_handback(VkCommandBuffer cmd, void *user) {
  handback *h = user;
  for (uint32_t i = 0; i < h->n; i++) fg_rt_external_handback(cmd, h->image[i], h->aspect[i], h->from[i], h->to[i]);
  if (h->buffers) fg_rt_external_buffers_handback(cmd);
}

/* The host's images back in the layouts it asked for (fg_external_image.final_layout). */
static fg_result hand_back(fg_runtime *rt, VkCommandBuffer host_cmd) {
  handback h = {.rt = rt};
  VkImageLayout *slots[MAX_EXTERNALS];
  for (uint32_t i = 0; i < rt->next; i++) {
    ext_image *e = &rt->ext[i];
    if (e->final_layout == VK_IMAGE_LAYOUT_UNDEFINED || !push_image(rt, e->name, e->index)) continue;
    VkImageLayout *l = fg_lua_image_layout(rt->L, -1);
    lua_pop(rt->L, 1);
    if (!l || *l == e->final_layout) continue;
    slots[h.n] = l;
    h.image[h.n] = e->image;
    h.aspect[h.n] = e->aspect;
    h.from[h.n] = *l;
    h.to[h.n++] = e->final_layout;
  }
  h.buffers = rt->buffers;
  if (!h.n && !h.buffers) return FG_SUCCESS;
  if (host_cmd) {
    record_handback(host_cmd, &h);
  } else {
    VkResult vr = fg_vk_submit_once(rt->dev->vk, record_handback, &h);
    if (vr != VK_SUCCESS)
      return RT_FAIL(rt, FG_ERROR_VULKAN, "handing the host's images back failed (VkResult %d)", (int)vr);
  }
  for (uint32_t i = 0; i < h.n; i++) *slots[i] = h.to[i];
  return FG_SUCCESS;
}

fg_result fg_runtime_frame(fg_runtime *rt, const fg_frame_desc *desc, fg_frame_info *out) {
  fg_result r = check_rt(rt);
  if (r) return r;
  fg_frame_info info;
  memset(&info, 0, sizeof info);
  lua_State *L = rt->L;
  lrt *o = runtime_of(rt);
  VkCommandBuffer host_cmd = desc ? desc->cmd : VK_NULL_HANDLE;
  if (fg_rt_set_host_cmd(o->rt, host_cmd, rt->err, sizeof rt->err)) return FG_ERROR_VULKAN;
  info.frame = fg_rt_frame_index(o->rt);
  int top = lua_gettop(L);
  lua_rawgeti(L, LUA_REGISTRYINDEX, rt->rt_ref);
  lua_getfield(L, -1, "frame");
  lua_insert(L, -2);
  int rc = lua_pcall(L, 1, 2, 0);
  o = runtime_of(rt);
  if (o) fg_rt_set_host_cmd(o->rt, VK_NULL_HANDLE, NULL, 0);
  if (rc != LUA_OK) {
    const char *m = lua_tostring(L, -1);
    r = RT_FAIL(rt, FG_ERROR_PIPELINE, "%s", m ? m : "(error object is not a string)");
    lua_settop(L, top);
    return r;
  }
  if (!lua_istable(L, -2)) {
    const char *m = lua_tostring(L, -1);
    r = RT_FAIL(rt, FG_ERROR_VULKAN, "%s", m ? m : "the frame failed");
    lua_settop(L, top);
    return r;
  }
  lua_getfield(L, -2, "barriers");
  info.barriers = (uint32_t)lua_tointeger(L, -1);
  lua_getfield(L, -3, "rolled_back");
  if (lua_isstring(L, -1)) {
    info.rolled_back = 1;
    RT_FAIL(rt, FG_SUCCESS, "%s", lua_tostring(L, -1));
  }
  lua_settop(L, top);
  if (!o) return RT_FAIL(rt, FG_ERROR_STATE, "the runtime was closed during the frame");
  if (host_cmd) info.signal_count = fg_rt_host_signals(o->rt, info.signal, info.signal_value, FG_MAX_FRAME_SIGNALS);
  if ((r = hand_back(rt, host_cmd)) != FG_SUCCESS) return r;
  if (out) *out = info;
  return FG_SUCCESS;
}

fg_result fg_runtime_wait_idle(fg_runtime *rt) {
  fg_result r = check_rt(rt);
  if (r) return r;
  if (fg_rt_wait_idle(runtime_of(rt)->rt))
    return RT_FAIL(rt, FG_ERROR_VULKAN, "waiting for the runtime's frames failed");
  return FG_SUCCESS;
}
