/* Lua binding of the Vulkan device ("framegraph.device") and shaders
 * ("framegraph.shader"), in the style of liolib.c: one metatable per type
 * whose __index is a method table, __gc and __close both releasing, and an
 * idempotent close. Others extend the device methods from their own files
 * (opened after this one): luaL_getmetatable(L, FG_LUA_DEVICE), field __index. */
#include "fg_lua.h"
#include "fg_vk.h"
#include <stdlib.h>
#include <string.h>

typedef struct lua_device { fg_vk_device *dev; } lua_device;

fg_vk_device *fg_lua_checkdevice(lua_State *L, int idx) {
  lua_device *d = luaL_checkudata(L, idx, FG_LUA_DEVICE);
  if (!d->dev) luaL_argerror(L, idx, "device is closed (dev:close() was called); open a new one with fg.vulkan{}");
  return d->dev;
}

fg_vk_device *fg_lua_todevice(lua_State *L, int idx) {
  lua_device *d = luaL_testudata(L, idx, FG_LUA_DEVICE);
  return d ? d->dev : NULL;
}

/* core.vulkan_open(validation, prefer_software) -> device | nil, message */
static int l_vulkan_open(lua_State *L) {
  fg_vk_desc desc = {0};
  desc.validation = lua_toboolean(L, 1);
  desc.prefer_software = lua_toboolean(L, 2);
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
  lua_device *d = luaL_checkudata(L, 1, FG_LUA_DEVICE);
  if (d->dev) {
    fg_vk_release(d->dev);
    d->dev = NULL;
  }
  return 0;
}

static int dev_tostring(lua_State *L) {
  lua_device *d = luaL_checkudata(L, 1, FG_LUA_DEVICE);
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
  lua_pushfstring(L, "%d.%d.%d", (int)VK_API_VERSION_MAJOR(v), (int)VK_API_VERSION_MINOR(v),
                  (int)VK_API_VERSION_PATCH(v));
}

static int dev_info(lua_State *L) {
  fg_vk_device *dev = fg_lua_checkdevice(L, 1);
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

  static const struct { VkMemoryPropertyFlags bit; const char *name; } flags[] = {
    {VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, "device_local"},
    {VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, "host_visible"},
    {VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, "host_coherent"},
    {VK_MEMORY_PROPERTY_HOST_CACHED_BIT, "host_cached"},
    {VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT, "lazily_allocated"},
    {VK_MEMORY_PROPERTY_PROTECTED_BIT, "protected"},
  };
  const VkPhysicalDeviceMemoryProperties *m = &dev->memprops;
  lua_createtable(L, (int)m->memoryTypeCount, 0);
  for (uint32_t i = 0; i < m->memoryTypeCount; i++) {
    lua_createtable(L, 0, 3);
    lua_newtable(L);
    int n = 0;
    for (size_t f = 0; f < sizeof flags / sizeof flags[0]; f++)
      if (m->memoryTypes[i].propertyFlags & flags[f].bit) {
        lua_pushstring(L, flags[f].name);
        lua_rawseti(L, -2, ++n);
      }
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
    set_bool(L, "device_local", (m->memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) != 0);
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
   * profile needs, measured without creating an image (maintenance4). */
  VkImageCreateInfo ici = {
    .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
    .format = VK_FORMAT_R8G8B8A8_UNORM, .extent = {1920, 1080, 1}, .mipLevels = 1, .arrayLayers = 1,
    .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL,
    .usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_STORAGE_BIT |
             VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
    .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
  };
  VkDeviceImageMemoryRequirements dimr = {.sType = VK_STRUCTURE_TYPE_DEVICE_IMAGE_MEMORY_REQUIREMENTS, .pCreateInfo = &ici};
  VkMemoryRequirements2 req = {.sType = VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2};
  vkGetDeviceImageMemoryRequirements(dev->device, &dimr, &req);
  set_int(L, "image_alignment", (lua_Integer)req.memoryRequirements.alignment);
  set_int(L, "image_size", (lua_Integer)req.memoryRequirements.size);

  lua_createtable(L, 0, 4);
  set_bool(L, "push_descriptor", dev->has_push_descriptor);
  set_bool(L, "memory_budget", dev->has_memory_budget);
  set_bool(L, "storage_image_without_format", dev->has_storage_without_format);
  lua_setfield(L, -2, "extensions");
  return 1;
}

static int dev_messages(lua_State *L) {
  fg_vk_device *dev = fg_lua_checkdevice(L, 1);
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

static int dev_is_closed(lua_State *L) {
  lua_device *d = luaL_checkudata(L, 1, FG_LUA_DEVICE);
  lua_pushboolean(L, d->dev == NULL);
  return 1;
}

/* dev:wait_idle(): for tests and teardown. */
static int dev_wait_idle(lua_State *L) {
  fg_vk_device *dev = fg_lua_checkdevice(L, 1);
  VkResult r = vkDeviceWaitIdle(dev->device);
  if (r != VK_SUCCESS) {
    luaL_pushfail(L);
    lua_pushfstring(L, "vkDeviceWaitIdle failed (VkResult %d)", (int)r);
    return 2;
  }
  lua_pushboolean(L, 1);
  return 1;
}

static const luaL_Reg dev_methods[] = {
  {"info", dev_info},
  {"messages", dev_messages},
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
  luaL_newmetatable(L, FG_LUA_DEVICE);
  luaL_setfuncs(L, dev_meta, 0);
  luaL_newlib(L, dev_methods);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);

  lua_pushcfunction(L, l_vulkan_open);
  lua_setfield(L, -2, "vulkan_open");
}
