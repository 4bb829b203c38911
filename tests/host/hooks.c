#define _GNU_SOURCE  /* dladdr */
/* The host's allocation hooks are the only CPU memory framegraph's C code
 * takes for a hosted device: this program is linked with
 * --wrap=malloc,calloc,realloc,free,aligned_alloc,posix_memalign,strdup,strndup
 * over framegraph's static objects (csrc/host, csrc/lua, csrc/vk, csrc/core),
 * so every direct call those make lands in a counter here. Lua (liblua), the
 * Vulkan driver, libpng, libxcb, libstdc++ and the host's own Vulkan setup are
 * shared libraries outside the wrap: their memory is theirs (Lua's is the
 * host's lua_Alloc). Between the marks (device made .. device destroyed:
 * pipeline load, graph compile and pack, frames, a read-back, a PNG save,
 * teardown) no direct call may happen, the host's fg_allocator must have been
 * used, and it must balance (every block freed, bytes back to 0). */
#include "framegraph.h"
#include <dlfcn.h>
#include "vk_setup.h"
#include <lauxlib.h>
#include <lualib.h>
#include <stdint.h>
#include <stdio.h>
#include "../fg_test.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../fg_test_wrap.h"


/* ---- the interposer: counts direct calls while armed ---- */
static int armed;
static long direct;           /* direct calls while armed */
static void *first_caller[8]; /* return addresses of the first ones (for a failure message) */
static int trace;               /* FG_HOOKS_TRACE=1: every caller, as an offset for addr2line -e */

static void note(void *caller) {
  if (!armed) return;
  if (direct < 8) first_caller[direct] = caller;
  direct++;
  if (trace) {
    Dl_info di;
    if (dladdr(caller, &di)) fprintf(stderr, "direct call from 0x%lx\n", (unsigned long)((char *)caller - (char *)di.dli_fbase));
  }
}

static int host_calls;
static void paint(VkCommandBuffer cmd, const fg_node_ctx *ctx, void *user) { host_calls++; }

static const char *write_pipeline(const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) return NULL;
  /* a host node, a Lua node with a framegraph shader and a fullscreen draw,
   * a buffer: the runtime's images, buffers, barriers and shader memory */
  fprintf(f,
          "local dev = ...\n"
          "local grade = require('framegraph').shader(dev, 'view_grade.frag.spv', { fragment_only = true })\n"
          "return { resolutions = { main = { 32, 32 } }, outputs = { 'graded' }, nodes = {\n"
          "  { name = 'paint', create = { out = { format = 'rgba8_unorm', size = 'main' } },\n"
          "    pass = { color = { { 'out', clear = { 0, 1, 0, 1 } } } }, run = 'host:paint' },\n"
          "  { name = 'grade', read = { out = { usage = 'sampled', stage = 'fragment' } },\n"
          "    create = { graded = { format = 'rgba8_unorm', size = 'main' } }, pass = { color = { 'graded' } },\n"
          "    run = function(cmd) cmd:draw(grade, { [0] = 'out' }, 3, { 1.0, 1.0, 1.0 }) end } } }\n");
  fclose(f);
  return path;
}

static int lua_do(lua_State *L, fg_runtime *rt, const char *chunk, const char *arg) {
  if (luaL_loadstring(L, chunk) != LUA_OK || fg_runtime_push(rt, L) != FG_SUCCESS) {
    printf("lua: %s\n", lua_tostring(L, -1));
    return 0;
  }
  lua_pushstring(L, arg);
  if (lua_pcall(L, 2, 1, 0) != LUA_OK) { printf("lua: %s\n", lua_tostring(L, -1)); lua_pop(L, 1); return 0; }
  int ok = lua_toboolean(L, -1);
  if (!ok) printf("lua said no\n");
  lua_pop(L, 1);
  return ok;
}

int main(void) {
  setenv("FG_SHADER_DIR", FG_BUILD_DIR "/shaders", 0);
  char dir[] = "/tmp/fg_hooksXXXXXX";
  if (!mkdtemp(dir)) return 1;
  char path[256], png[256];
  snprintf(path, sizeof path, "%s/p.lua", dir);
  snprintf(png, sizeof png, "%s/out.png", dir);
  write_pipeline(path);

  host_vk vk;
  if (host_vk_create(&vk, 1)) { printf("SKIP: no Vulkan 1.3 device\n"); return 0; }
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  const char *lua_dir = getenv("FG_LUA_DIR");
  CHECK(fg_lua_open(L, lua_dir ? lua_dir : FG_SOURCE_DIR "/lua") == FG_SUCCESS, "fg_lua_open");

  /* the loader's entry (framegraph's own volk is linked in here, so the name
   * vkGetInstanceProcAddr is volk's pointer in this program) */
  void *loader = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
  PFN_vkGetInstanceProcAddr gipa = loader ? (PFN_vkGetInstanceProcAddr)dlsym(loader, "vkGetInstanceProcAddr") : NULL;
  CHECK(gipa != NULL, "no vkGetInstanceProcAddr in libvulkan.so.1");
  counter cnt = {0};
  fg_device_desc d = {
    .instance = vk.instance, .physical_device = vk.phys, .device = vk.device,
    .queue_family = vk.family, .queue = vk.queue, .get_instance_proc_addr = gipa,
    .vk_allocator = &vk.alloc, .allocator = {count_realloc, &cnt},
    .enabled_extensions = vk.extensions, .enabled_extension_count = vk.extension_count, .validation = 1,
  };
  trace = getenv("FG_HOOKS_TRACE") != NULL;
  armed = 1;
  fg_device *dev = NULL;
  fg_result r = fg_device_create(&d, &dev);
  CHECK(r == FG_SUCCESS, "fg_device_create: %s", fg_device_last_error(dev));
  CHECK(fg_device_register_node(dev, "paint", paint, NULL) == FG_SUCCESS, "register");
  long after_device = direct;
  fg_runtime *rt = NULL;
  fg_runtime_desc rd = {.pipeline_path = path};
  r = fg_runtime_create(dev, L, &rd, &rt);
  CHECK(r == FG_SUCCESS, "fg_runtime_create: %s", fg_runtime_last_error(rt));
  long after_create = direct;
  for (int f = 0; f < 3 && r == FG_SUCCESS; f++) {
    fg_frame_info fi;
    CHECK(fg_runtime_frame(rt, NULL, &fi) == FG_SUCCESS, "frame %d: %s", f, fg_runtime_last_error(rt));
  }
  long after_frames = direct;
  /* a read-back and a PNG save (read-back memory, the pixel conversion) */
  CHECK(lua_do(L, rt, "local rt, name = ... ; local s = rt:read(name); return s and #s == 32 * 32 * 4", "graded"),
        "rt:read");
  CHECK(lua_do(L, rt, "local rt, path = ... ; return rt:save_png('graded', path)", png), "rt:save_png");
  long after_read = direct;
  fg_runtime_destroy(rt);
  lua_gc(L, LUA_GCCOLLECT, 0);  /* the Lua side's device objects (the shader) go back to the device */
  fg_device_destroy(dev);
  armed = 0;

  CHECK(host_calls == 3, "the host node ran %d times (3 frames)", host_calls);
  CHECK(direct == 0,
        "%ld direct malloc/calloc/realloc/free calls by framegraph's C code (device %ld, runtime create %ld, "
        "frames %ld, read-back %ld, teardown %ld); first callers: %p %p %p %p (FG_HOOKS_TRACE=1 lists them)",
        direct, after_device, after_create - after_device, after_frames - after_create, after_read - after_frames,
        direct - after_read, first_caller[0], first_caller[1], first_caller[2], first_caller[3]);
  /* the hooks were the path taken, and every block came back */
  CHECK(cnt.allocs > 50, "only %ld allocations through the host's fg_allocator", cnt.allocs);
  CHECK(cnt.live_blocks == 0 && cnt.live_bytes == 0 && cnt.allocs == cnt.frees,
        "fg_allocator: %ld allocations, %ld frees, %ld blocks and %lld bytes live", cnt.allocs, cnt.frees,
        cnt.live_blocks, cnt.live_bytes);
  lua_close(L);
  host_vk_destroy(&vk);
  CHECK(vk.messages == 0, "%u validation messages", vk.messages);
  remove(png);
  remove(path);
  remove(dir);
  printf("%s: %ld hooked allocations (%ld reallocs), %ld direct\n", failures ? "FAILED" : "ok", cnt.allocs,
         cnt.reallocs, direct);
  return failures ? 1 : 0;
}
