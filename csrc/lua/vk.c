/* Lua binding of the Vulkan device ("framegraph.device") and shaders
 * ("framegraph.shader"), in the style of liolib.c: one metatable per type
 * whose __index is a method table, __gc and __close both releasing, and an
 * idempotent close. Others extend the device methods from their own files
 * (opened after this one): luaL_getmetatable(L, FG_LUA_DEVICE), field __index. */
#include "fg_lua_push.h"
#include "fg_lua.h"
#include "fg_vk.h"
#include "fg_vk_shader.h"
#include <stdlib.h>
#include <string.h>

typedef struct lua_device { fg_vk_device *dev; } lua_device;

fg_vk_device *fg_lua_checkdevice(lua_State *L, int idx) {
  lua_device *d = fg_lua_checkudata(L, idx, FG_LUA_DEVICE);
  if (!d->dev) luaL_argerror(L, idx, "device is closed (dev:close() was called); open a new one with fg.vulkan{}");
  return d->dev;
}

fg_vk_device *fg_lua_todevice(lua_State *L, int idx) {
  lua_device *d = luaL_testudata(L, idx, FG_LUA_DEVICE);
  return d ? d->dev : NULL;
}

void fg_lua_push_device(lua_State *L, fg_vk_device *dev) {
  lua_device *d = lua_newuserdatauv(L, sizeof *d, 0);
  d->dev = fg_vk_retain(dev);
  luaL_setmetatable(L, FG_LUA_DEVICE);
}

/* core.vulkan_open(validation, prefer_software [, present]) -> device | nil, message */
/* core.vulkan_open(validation, prefer_software [, present [, async_queue]]) -> device | nil, message
 * async_queue: "auto" (default), "off" or "same" (fg_vk.h FG_VK_ASYNC_*) */
static int l_vulkan_open(lua_State *L) {
  fg_vk_desc desc = {0};
  desc.validation = lua_toboolean(L, 1);
  desc.prefer_software = lua_toboolean(L, 2);
  desc.present = lua_toboolean(L, 3);
  const char *aq = luaL_optstring(L, 4, "auto");
  desc.async_queue = !strcmp(aq, "off") ? FG_VK_ASYNC_OFF : !strcmp(aq, "same") ? FG_VK_ASYNC_SAME : FG_VK_ASYNC_AUTO;
  lua_device *d = lua_newuserdatauv(L, sizeof *d, 0);
  d->dev = NULL;
  luaL_setmetatable(L, FG_LUA_DEVICE);
  char err[1536];
  d->dev = fg_vk_create(&desc, err, sizeof err);
  if (!d->dev) {
    luaL_pushfail(L);
    lua_pushstring(L, err);
    return 2;
  }
  return 1;
}

static int dev_close(lua_State *L) {
  lua_device *d = fg_lua_checkudata(L, 1, FG_LUA_DEVICE);
  if (d->dev) {
    fg_vk_release(d->dev);
    d->dev = NULL;
  }
  return 0;
}

static int dev_tostring(lua_State *L) {
  lua_device *d = fg_lua_checkudata(L, 1, FG_LUA_DEVICE);
  if (d->dev) lua_pushfstring(L, "framegraph.device (%s)", d->dev->props.deviceName);
  else lua_pushliteral(L, "framegraph.device (closed)");
  return 1;
}

static void set_int(lua_State *L, const char *k, lua_Integer v) {
  lua_pushinteger(L, v);
  lua_setfield(L, -2, k);
}

static void set_bool(lua_State *L, const char *k, int v) {
  lua_pushboolean(L, v);
  lua_setfield(L, -2, k);
}

static void push_version(lua_State *L, uint32_t v) {
  uint32_t p[3];
  fg_vk_version_parts(v, p);
  lua_pushfstring(L, "%d.%d.%d", (int)p[0], (int)p[1], (int)p[2]);
}

/* Pushes the list {names[0], ..., names[n-1]}. */
static void push_names(lua_State *L, const char **names, uint32_t n) {
  lua_createtable(L, (int)n, 0);
  for (uint32_t i = 0; i < n; i++) {
    lua_pushstring(L, names[i]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
}

static int dev_info(lua_State *L) {
  fg_vk_device *dev = fg_lua_checkdevice(L, 1);
  fg_lua_hold_gc(L);  /* no finalizer may close self while this reads it */
  const VkPhysicalDeviceProperties *p = &dev->props;
  lua_createtable(L, 0, 16);
  lua_pushstring(L, p->deviceName);
  lua_setfield(L, -2, "name");
  lua_pushstring(L, fg_vk_device_type_name(p->deviceType));
  lua_setfield(L, -2, "type");
  push_version(L, p->apiVersion);
  lua_setfield(L, -2, "api_version");
  set_int(L, "driver_version", p->driverVersion);
  set_int(L, "vendor_id", p->vendorID);
  set_int(L, "device_id", p->deviceID);
  set_bool(L, "validation", dev->validation);
  char aq[64];
  lua_pushstring(L, fg_vk_async_name(dev, aq, sizeof aq));
  lua_setfield(L, -2, "async_queue");

  const VkPhysicalDeviceMemoryProperties *m = &dev->memprops;
  lua_createtable(L, (int)m->memoryTypeCount, 0);
  for (uint32_t i = 0; i < m->memoryTypeCount; i++) {
    lua_createtable(L, 0, 3);
    const char *names[8];
    uint32_t nn = fg_vk_memory_flag_names(m->memoryTypes[i].propertyFlags, names);
    push_names(L, names, nn);
    lua_setfield(L, -2, "flags");
    set_int(L, "heap", (lua_Integer)m->memoryTypes[i].heapIndex + 1);  /* 1-based like Lua lists */
    set_int(L, "index", i);                                             /* Vulkan's 0-based index */
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_setfield(L, -2, "memory_types");
  lua_createtable(L, (int)m->memoryHeapCount, 0);
  for (uint32_t i = 0; i < m->memoryHeapCount; i++) {
    lua_createtable(L, 0, 2);
    set_int(L, "size", (lua_Integer)m->memoryHeaps[i].size);
    set_bool(L, "device_local", fg_vk_memory_heap_device_local(dev, i));
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_setfield(L, -2, "memory_heaps");

  const VkPhysicalDeviceLimits *lim = &p->limits;
  lua_createtable(L, 0, 16);
  set_int(L, "buffer_image_granularity", (lua_Integer)lim->bufferImageGranularity);
  set_int(L, "min_storage_buffer_offset_alignment", (lua_Integer)lim->minStorageBufferOffsetAlignment);
  set_int(L, "min_uniform_buffer_offset_alignment", (lua_Integer)lim->minUniformBufferOffsetAlignment);
  set_int(L, "non_coherent_atom_size", (lua_Integer)lim->nonCoherentAtomSize);
  set_int(L, "optimal_buffer_copy_offset_alignment", (lua_Integer)lim->optimalBufferCopyOffsetAlignment);
  set_int(L, "optimal_buffer_copy_row_pitch_alignment", (lua_Integer)lim->optimalBufferCopyRowPitchAlignment);
  set_int(L, "max_memory_allocation_count", lim->maxMemoryAllocationCount);
  set_int(L, "max_push_constants_size", lim->maxPushConstantsSize);
  set_int(L, "max_image_dimension_2d", lim->maxImageDimension2D);
  set_int(L, "max_compute_work_group_invocations", lim->maxComputeWorkGroupInvocations);
  set_int(L, "max_color_attachments", lim->maxColorAttachments);
  set_int(L, "max_storage_buffer_range", lim->maxStorageBufferRange);
  lua_pushnumber(L, lim->timestampPeriod);
  lua_setfield(L, -2, "timestamp_period");
  set_int(L, "timestamp_valid_bits", dev->timestamp_valid_bits);
  lua_setfield(L, -2, "limits");

  /* What a typical render target costs in alignment: the figure the planner's
   * profile needs. */
  uint64_t image_alignment, image_size;
  fg_vk_probe_image_requirements(dev, &image_alignment, &image_size);
  set_int(L, "image_alignment", (lua_Integer)image_alignment);
  set_int(L, "image_size", (lua_Integer)image_size);

  lua_createtable(L, 0, 4);
  set_bool(L, "push_descriptor", dev->has_push_descriptor);
  set_bool(L, "memory_budget", dev->has_memory_budget);
  set_bool(L, "storage_image_without_format", dev->has_storage_without_format);
  lua_setfield(L, -2, "extensions");
  return 1;
}

static int dev_messages(lua_State *L) {
  fg_vk_device *dev = fg_lua_checkdevice(L, 1);
  fg_lua_hold_gc(L);  /* no finalizer may close self while this reads it */
  size_t n = 0;
  char **m = fg_vk_take_messages(dev, &n);
  lua_createtable(L, (int)n, 0);
  for (size_t i = 0; i < n; i++) {
    lua_pushstring(L, m[i]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  fg_vk_free_messages(m, n);
  return 1;
}

/* dev:memory_budget() -> {{budget =, usage =, size =}, ...} per heap (1-based);
 * usage is 0 and budget the heap size without VK_EXT_memory_budget. */
static int dev_memory_budget(lua_State *L) {
  fg_vk_device *dev = fg_lua_checkdevice(L, 1);
  fg_lua_hold_gc(L);  /* no finalizer may close self while this reads it */
  VkDeviceSize budget[FG_VK_MAX_HEAPS], usage[FG_VK_MAX_HEAPS];
  uint32_t n = fg_vk_memory_budget(dev, budget, usage);
  lua_createtable(L, (int)n, 0);
  for (uint32_t i = 0; i < n; i++) {
    lua_createtable(L, 0, 3);
    set_int(L, "budget", (lua_Integer)budget[i]);
    set_int(L, "usage", (lua_Integer)usage[i]);
    set_int(L, "size", (lua_Integer)dev->memprops.memoryHeaps[i].size);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

static int dev_is_closed(lua_State *L) {
  lua_device *d = fg_lua_checkudata(L, 1, FG_LUA_DEVICE);
  lua_pushboolean(L, d->dev == NULL);
  return 1;
}

/* dev:wait_idle(): for tests and teardown. */
static int dev_wait_idle(lua_State *L) {
  fg_vk_device *dev = fg_lua_checkdevice(L, 1);
  char err[256];
  if (!fg_vk_wait_idle(dev, err, sizeof err)) {
    luaL_pushfail(L);
    lua_pushstring(L, err);
    return 2;
  }
  lua_pushboolean(L, 1);
  return 1;
}


/* ================================================================ shaders */

typedef struct lua_shader { fg_vk_shader *s; } lua_shader;

fg_vk_shader *fg_lua_checkshader(lua_State *L, int idx) {
  lua_shader *s = fg_lua_checkudata(L, idx, FG_LUA_SHADER);
  if (!s->s) luaL_argerror(L, idx, "shader is closed (shader:close() was called)");
  return s->s;
}

static int opt_bool(lua_State *L, int t, const char *k) {
  lua_getfield(L, t, k);
  int v = lua_toboolean(L, -1);
  lua_pop(L, 1);
  return v;
}

/* core.shader_create(dev, spirv, {name=, vertex=, fragment_only=, depth_test=, depth_write=, blend=})
 * -> shader | nil, message */
static int l_shader_create(lua_State *L) {
  fg_vk_device *dev = fg_lua_checkdevice(L, 1);
  size_t bytes, vbytes = 0;
  const char *code = luaL_checklstring(L, 2, &bytes);
  const char *vcode = NULL;
  fg_vk_shader_desc desc = {0};
  int fragment_only = 0;
  if (!lua_isnoneornil(L, 3)) {
    luaL_checktype(L, 3, LUA_TTABLE);
    lua_getfield(L, 3, "name");
    desc.name = lua_tostring(L, -1);  /* stays referenced by the options table */
    lua_pop(L, 1);
    lua_getfield(L, 3, "vertex");
    if (!lua_isnil(L, -1)) vcode = luaL_checklstring(L, -1, &vbytes);
    lua_pop(L, 1);
    fragment_only = opt_bool(L, 3, "fragment_only");
    desc.depth_test = opt_bool(L, 3, "depth_test");
    desc.depth_write = opt_bool(L, 3, "depth_write");
    desc.blend = opt_bool(L, 3, "blend");
  }
  desc.vertex_spirv = (const uint32_t *)vcode;
  desc.vertex_bytes = vbytes;
  lua_shader *ls = lua_newuserdatauv(L, sizeof *ls, 0);
  ls->s = NULL;
  luaL_setmetatable(L, FG_LUA_SHADER);
  char err[1024];
  /* The reflector copies the words, so Lua string alignment does not matter. */
  fg_vk_shader *s = fg_vk_shader_create(dev, (const uint32_t *)code, bytes, &desc, err, sizeof err);
  if (!s) {
    luaL_pushfail(L);
    lua_pushstring(L, err);
    return 2;
  }
  if (fragment_only && fg_vk_shader_get_info(s)->is_compute) {
    fg_vk_shader_destroy(s);
    luaL_pushfail(L);
    lua_pushfstring(L, "%s: fragment_only was given but this is a compute shader",
                    desc.name ? desc.name : "shader");
    return 2;
  }
  ls->s = s;
  return 1;
}

static int sh_close(lua_State *L) {
  lua_shader *s = fg_lua_checkudata(L, 1, FG_LUA_SHADER);
  if (s->s) {
    fg_vk_shader_destroy(s->s);
    s->s = NULL;
  }
  return 0;
}

static int sh_tostring(lua_State *L) {
  lua_shader *s = fg_lua_checkudata(L, 1, FG_LUA_SHADER);
  if (s->s) lua_pushfstring(L, "framegraph.shader (%s)", fg_vk_shader_get_info(s->s)->name);
  else lua_pushliteral(L, "framegraph.shader (closed)");
  return 1;
}


static int sh_info(lua_State *L) {
  const fg_vk_shader_info *in = fg_vk_shader_get_info(fg_lua_checkshader(L, 1));
  fg_lua_hold_gc(L);  /* no finalizer may close self while this reads it */
  lua_createtable(L, 0, 8);
  lua_pushstring(L, in->is_compute ? "compute" : "graphics");
  lua_setfield(L, -2, "stage");
  lua_pushstring(L, in->name);
  lua_setfield(L, -2, "name");
  if (in->is_compute) {
    lua_createtable(L, 3, 0);
    for (int i = 0; i < 3; i++) {
      lua_pushinteger(L, in->local_size[i]);
      lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "local_size");
  } else {
    set_int(L, "color_outputs", in->color_outputs);
  }
  set_int(L, "push_bytes", in->push_bytes);
  /* Sorted by binding number so the list reads like the shader. */
  uint32_t order[FG_VK_MAX_BINDINGS];
  for (uint32_t i = 0; i < in->binding_count; i++) order[i] = i;
  for (uint32_t i = 1; i < in->binding_count; i++)
    for (uint32_t k = i; k > 0 && in->bindings[order[k]].binding < in->bindings[order[k - 1]].binding; k--) {
      uint32_t t = order[k]; order[k] = order[k - 1]; order[k - 1] = t;
    }
  lua_createtable(L, (int)in->binding_count, 0);
  for (uint32_t i = 0; i < in->binding_count; i++) {
    const fg_vk_shader_binding *b = &in->bindings[order[i]];
    lua_createtable(L, 0, 7);
    set_int(L, "binding", b->binding);
    lua_pushstring(L, fg_vk_descriptor_type_id(b->type));
    lua_setfield(L, -2, "type");
    set_int(L, "count", b->count);
    if (b->name[0]) {
      lua_pushstring(L, b->name);
      lua_setfield(L, -2, "name");
    }
    set_bool(L, "readonly", b->readonly);
    set_bool(L, "writeonly", b->writeonly);
    const char *stages[3];
    push_names(L, stages, fg_vk_shader_stage_names(b->stages, stages));
    lua_setfield(L, -2, "stages");
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_setfield(L, -2, "bindings");
  return 1;
}

static const luaL_Reg sh_methods[] = {
  {"info", sh_info},
  {"pack", fg_lua_shader_pack},  /* push.c */
  {"close", sh_close},
  {NULL, NULL},
};

static const luaL_Reg sh_meta[] = {
  {"__gc", sh_close},
  {"__close", sh_close},
  {"__tostring", sh_tostring},
  {NULL, NULL},
};

/* dev:compute(shader, buffers, gx [, gy, gz, push]) -> {[binding] = bytes}
 * A self-contained compute run for tests and tools (fg_vk_compute_run): each
 * buffer is a string (its contents) or an integer (that many zero bytes). */
static int dev_compute(lua_State *L) {
  fg_vk_device *dev = fg_lua_checkdevice(L, 1);
  fg_vk_shader *s = fg_lua_checkshader(L, 2);
  if (fg_vk_shader_device(s) != dev)
    return luaL_argerror(L, 2, "shader was made on another device (another fg.vulkan); make it with this device");
  luaL_checktype(L, 3, LUA_TTABLE);
  fg_lua_plain(L, 3, "dev:compute: the buffers");
  uint32_t g[3];
  for (int i = 0; i < 3; i++) {
    lua_Integer v = 1, max = dev->props.limits.maxComputeWorkGroupCount[i];
    int isint = lua_isnoneornil(L, 4 + i) || lua_isinteger(L, 4 + i);
    if (!lua_isnoneornil(L, 4 + i) && lua_type(L, 4 + i) == LUA_TNUMBER && !lua_isinteger(L, 4 + i))
      isint = lua_numbertointeger(lua_tonumber(L, 4 + i), &v) && (lua_Number)v == lua_tonumber(L, 4 + i);
    if (!isint) return luaL_argerror(L, 4 + i, "group count must be an integer");
    if (!lua_isnoneornil(L, 4 + i)) v = fg_lua_checkint(L, 4 + i);
    if (v < 1 || v > max)
      return luaL_argerror(L, 4 + i, lua_pushfstring(L, "group count must be in 1..%I (the device's "
                                                     "maxComputeWorkGroupCount), got %I", max, v));
    g[i] = (uint32_t)v;
  }
  size_t push_len = 0;
  const char *push = luaL_optlstring(L, 7, NULL, &push_len);
  fg_vk_compute_buffer bufs[FG_VK_MAX_BINDINGS];
  uint32_t n = 0;
  /* The strings stay referenced by the buffers table during the run. */
  lua_pushnil(L);
  while (lua_next(L, 3)) {
    if (!lua_isinteger(L, -2) || lua_tointeger(L, -2) < 0 || lua_tointeger(L, -2) > UINT32_MAX)
      return luaL_error(L, "dev:compute: buffer keys must be binding numbers (0..2^32-1)");
    if (n == FG_VK_MAX_BINDINGS) return luaL_error(L, "dev:compute: more than %d buffers", FG_VK_MAX_BINDINGS);
    fg_vk_compute_buffer *b = &bufs[n];
    memset(b, 0, sizeof *b);
    b->binding = (uint32_t)lua_tointeger(L, -2);
    if (lua_type(L, -1) == LUA_TSTRING) b->data = lua_tolstring(L, -1, &b->size);
    else if (lua_isinteger(L, -1) && lua_tointeger(L, -1) > 0 &&
             lua_tointeger(L, -1) <= (lua_Integer)dev->props.limits.maxStorageBufferRange)
      b->size = (size_t)lua_tointeger(L, -1);
    else return luaL_error(L, "dev:compute: buffer %I must be a string (contents) or a size in 1..%I (the "
                           "device's maxStorageBufferRange)", (lua_Integer)b->binding,
                           (lua_Integer)dev->props.limits.maxStorageBufferRange);
    n++;
    lua_pop(L, 1);
  }
  char err[1024];
  if (!fg_vk_compute_run(dev, s, bufs, n, g, push, (uint32_t)push_len, err, sizeof err))
    return luaL_error(L, "%s", err);  /* misuse (bindings, push) raises */
  lua_createtable(L, 0, (int)n);
  for (uint32_t i = 0; i < n; i++) {
    lua_pushlstring(L, bufs[i].result, bufs[i].size);
    fg_vk_free(dev, bufs[i].result);
    lua_rawseti(L, -2, bufs[i].binding);
  }
  return 1;
}

static const luaL_Reg dev_methods[] = {
  {"compute", dev_compute},
  {"info", dev_info},
  {"messages", dev_messages},
  {"memory_budget", dev_memory_budget},
  {"close", dev_close},
  {"is_closed", dev_is_closed},
  {"wait_idle", dev_wait_idle},
  {NULL, NULL},
};

static const luaL_Reg dev_meta[] = {
  {"__gc", dev_close},
  {"__close", dev_close},
  {"__tostring", dev_tostring},
  {NULL, NULL},
};

void fg_lua_open_vk(lua_State *L) {
  fg_lua_newclass(L, FG_LUA_DEVICE, dev_meta, dev_methods);
  fg_lua_newclass(L, FG_LUA_SHADER, sh_meta, sh_methods);
  lua_pushcfunction(L, l_vulkan_open);
  lua_setfield(L, -2, "vulkan_open");
  lua_pushcfunction(L, l_shader_create);
  lua_setfield(L, -2, "shader_create");
}
