/* No global state (include/framegraph.h): two hosts' devices in one process,
 * each with its own instance, lua_State, runtime and C callback, their
 * frames interleaved. Each runtime clears its target to its own colour and
 * calls its own callback; neither sees the other's. Also: the host's
 * fg_allocator and VkAllocationCallbacks are used and balanced, framegraph
 * destroys none of the host's objects (the host destroys them after, with
 * validation on), and no validation message. */
#include "framegraph.h"
#include "vk_setup.h"
#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include "../fg_test.h"
#include <stdlib.h>
#include <string.h>


typedef struct counter {
  int calls;
  int bad_ctx;
  long allocs, frees;
} counter;

static void *count_realloc(void *user, void *p, size_t n) {
  counter *c = user;
  if (!n) {
    if (p) c->frees++;
    free(p);
    return NULL;
  }
  if (!p) c->allocs++;
  return realloc(p, n);
}

static void mark(VkCommandBuffer cmd, const fg_node_ctx *ctx, void *user) {
  counter *c = user;
  c->calls++;
  int ok = cmd && !strcmp(ctx->node, "paint") && !strcmp(ctx->instance, "paint") && ctx->width == 64 &&
           ctx->height == 64 && ctx->in_pass == 1 && ctx->color_count == 1 &&
           ctx->color_formats[0] == VK_FORMAT_R8G8B8A8_UNORM && ctx->resource_count == 1 &&
           !strcmp(ctx->resources[0].name, "out") && ctx->resources[0].is_image && ctx->resources[0].image &&
           ctx->resources[0].view && ctx->resources[0].written &&
           ctx->resources[0].layout == VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL && ctx->arg_count == 0;
  if (!ok) c->bad_ctx++;
}

static const char *write_pipeline(const char *path, const char *rgb) {
  FILE *f = fopen(path, "w");
  if (!f) return NULL;
  /* a host node and a Lua node with a framegraph shader (its memory is the device's too) */
  fprintf(f,
          "local dev = ...\n"
          "local grade = require('framegraph').shader(dev, 'view_grade.frag.spv', { fragment_only = true })\n"
          "return { resolutions = { main = { 64, 64 } }, outputs = { 'out', 'graded' }, nodes = {\n"
          "  { name = 'paint', create = { out = { format = 'rgba8_unorm', size = 'main' } },\n"
          "    pass = { color = { { 'out', clear = { %s, 1 } } } }, run = 'host:mark' },\n"
          "  { name = 'grade', read = { out = { usage = 'sampled', stage = 'fragment' } },\n"
          "    create = { graded = { format = 'rgba8_unorm', size = 'main' } }, pass = { color = { 'graded' } },\n"
          "    run = function(cmd) cmd:draw(grade, { [0] = 'out' }, 3, { 1.0, 1.0, 1.0 }) end } } }\n",
          rgb);
  fclose(f);
  return path;
}

typedef struct side {
  host_vk vk;
  counter cnt;
  fg_device *dev;
  lua_State *L;
  fg_runtime *rt;
  char path[256];
} side;

static void open_side(side *s, const char *rgb, const char *dir) {
  CHECK(host_vk_create(&s->vk, 1) == 0, "host device");
  fg_device_desc d = {
    .instance = s->vk.instance, .physical_device = s->vk.phys, .device = s->vk.device,
    .queue_family = s->vk.family, .queue = s->vk.queue, .get_instance_proc_addr = vkGetInstanceProcAddr,
    .vk_allocator = &s->vk.alloc, .allocator = {count_realloc, &s->cnt},
    .enabled_extensions = s->vk.extensions, .enabled_extension_count = s->vk.extension_count, .validation = 1,
  };
  fg_result r = fg_device_create(&d, &s->dev);
  CHECK(r == FG_SUCCESS, "fg_device_create: %s", fg_device_last_error(s->dev));
  CHECK(fg_device_register_node(s->dev, "mark", mark, &s->cnt) == FG_SUCCESS, "register");
  s->L = luaL_newstate();
  luaL_openlibs(s->L);
  const char *lua_dir = getenv("FG_LUA_DIR");
  CHECK(fg_lua_open(s->L, lua_dir ? lua_dir : FG_SOURCE_DIR "/lua") == FG_SUCCESS, "fg_lua_open");
  snprintf(s->path, sizeof s->path, "%s/%s.lua", dir, rgb[0] == '1' ? "red" : "blue");
  write_pipeline(s->path, rgb);
  fg_runtime_desc rd = {.pipeline_path = s->path};
  long before = s->vk.alloc_calls, cpu_before = s->cnt.allocs;
  r = fg_runtime_create(s->dev, s->L, &rd, &s->rt);
  CHECK(r == FG_SUCCESS, "fg_runtime_create: %s", fg_runtime_last_error(s->rt));
  /* the runtime's images, memory, pool and semaphore: through the host's callbacks */
  CHECK(s->vk.alloc_calls > before, "the runtime made no Vulkan object through the host's VkAllocationCallbacks");
  /* and its CPU-side plan through the host's fg_allocator */
  CHECK(s->cnt.allocs > cpu_before + 10, "the runtime's plan made %ld allocations through fg_allocator",
        s->cnt.allocs - cpu_before);
}

/* The first pixel of the runtime's "out", read back through Lua. */
static void first_pixel(side *s, unsigned char px[4]) {
  memset(px, 0, 4);
  lua_State *L = s->L;
  if (fg_runtime_push(s->rt, L) != FG_SUCCESS) return;
  lua_getfield(L, -1, "read");
  lua_insert(L, -2);
  lua_pushliteral(L, "out");
  if (lua_pcall(L, 2, 1, 0) == LUA_OK && lua_isstring(L, -1) && lua_rawlen(L, -1) >= 4)
    memcpy(px, lua_tostring(L, -1), 4);
  else
    printf("read: %s\n", lua_tostring(L, -1));
  lua_pop(L, 1);
}

int main(void) {
  setenv("FG_SHADER_DIR", FG_BUILD_DIR "/shaders", 0);
  char dir[] = "/tmp/fg_two_devicesXXXXXX";
  if (!mkdtemp(dir)) return 1;
  side a = {0}, b = {0};
  open_side(&a, "1, 0, 0", dir);
  open_side(&b, "0, 0, 1", dir);
  if (failures) return 1;
  /* interleaved: a by the host's command buffer path is examples/host's
   * business; here both let framegraph submit, each on its own queue */
  for (int f = 0; f < 3; f++) {
    fg_frame_info ia, ib;
    CHECK(fg_runtime_frame(a.rt, NULL, &ia) == FG_SUCCESS, "frame a: %s", fg_runtime_last_error(a.rt));
    CHECK(fg_runtime_frame(b.rt, NULL, &ib) == FG_SUCCESS, "frame b: %s", fg_runtime_last_error(b.rt));
    CHECK(ia.frame == (uint64_t)f && ib.frame == (uint64_t)f, "frame indices %llu %llu at %d",
          (unsigned long long)ia.frame, (unsigned long long)ib.frame, f);
  }
  CHECK(a.cnt.calls == 3 && b.cnt.calls == 3, "callbacks: a %d, b %d (3 each)", a.cnt.calls, b.cnt.calls);
  CHECK(!a.cnt.bad_ctx && !b.cnt.bad_ctx, "ctx wrong in %d + %d calls", a.cnt.bad_ctx, b.cnt.bad_ctx);
  unsigned char pa[4], pb[4];
  first_pixel(&a, pa);
  first_pixel(&b, pb);
  CHECK(pa[0] == 255 && pa[2] == 0, "a's picture is %u %u %u, not red", pa[0], pa[1], pa[2]);
  CHECK(pb[0] == 0 && pb[2] == 255, "b's picture is %u %u %u, not blue", pb[0], pb[1], pb[2]);
  /* an unknown callback name from Lua is refused with the registered names */
  fg_device_info info;
  CHECK(fg_device_get_info(a.dev, &info) == FG_SUCCESS && info.hosted == 1, "device info");
  CHECK(fg_device_register_node(a.dev, "bad name", mark, NULL) == FG_ERROR_INVALID_ARGUMENT &&
          strstr(fg_device_last_error(a.dev), "bad name"), "a name with a space is refused");
  side *sides[2] = {&a, &b};
  for (int i = 0; i < 2; i++) {
    side *s = sides[i];
    fg_runtime_destroy(s->rt);
    lua_close(s->L);
    fg_device_destroy(s->dev);
    CHECK(s->cnt.allocs > 0 && s->cnt.allocs == s->cnt.frees, "device %d: fg_allocator %ld allocations, %ld frees", i,
          s->cnt.allocs, s->cnt.frees);
    CHECK(s->vk.alloc_calls > 0 && s->vk.allocations == 0, "device %d: VkAllocationCallbacks %ld calls, %ld live", i,
          s->vk.alloc_calls, s->vk.allocations);
    host_vk_destroy(&s->vk);  /* framegraph left the host's device and instance alive */
    CHECK(s->vk.messages == 0, "device %d: %u validation messages", i, s->vk.messages);
    remove(s->path);
  }
  remove(dir);
  printf("%s\n", failures ? "FAILED" : "ok: two devices, two runtimes, no crosstalk");
  return failures ? 1 : 0;
}
