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
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures;
#define CHECK(c, ...)                                            \
  do {                                                           \
    if (!(c)) {                                                  \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);                \
      printf(__VA_ARGS__);                                       \
      printf("\n");                                              \
      failures++;                                                \
    }                                                            \
  } while (0)

/* ---- the interposer: counts direct calls while armed ---- */
void *__real_malloc(size_t);
void *__real_calloc(size_t, size_t);
void *__real_realloc(void *, size_t);
void __real_free(void *);
void *__real_aligned_alloc(size_t, size_t);
int __real_posix_memalign(void **, size_t, size_t);
char *__real_strdup(const char *);
char *__real_strndup(const char *, size_t);

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
void *__wrap_malloc(size_t n) { note(__builtin_return_address(0)); return __real_malloc(n); }
void *__wrap_calloc(size_t c, size_t n) { note(__builtin_return_address(0)); return __real_calloc(c, n); }
void *__wrap_realloc(void *p, size_t n) { note(__builtin_return_address(0)); return __real_realloc(p, n); }
void __wrap_free(void *p) { if (p) note(__builtin_return_address(0)); __real_free(p); }
void *__wrap_aligned_alloc(size_t a, size_t n) { note(__builtin_return_address(0)); return __real_aligned_alloc(a, n); }
int __wrap_posix_memalign(void **p, size_t a, size_t n) {
  note(__builtin_return_address(0));
  return __real_posix_memalign(p, a, n);
}
char *__wrap_strdup(const char *s) { note(__builtin_return_address(0)); return __real_strdup(s); }
char *__wrap_strndup(const char *s, size_t n) { note(__builtin_return_address(0)); return __real_strndup(s, n); }

/* ---- the host's fg_allocator: counts calls and live bytes ---- */
typedef struct counter {
  long allocs, frees, reallocs;
  long long live_bytes;
  long live_blocks;
} counter;

/* a 16-byte header keeps each block's size, so bytes balance exactly */
static void *count_realloc(void *user, void *p, size_t n) {
  counter *c = user;
  size_t old = 0;
  unsigned char *base = p ? (unsigned char *)p - 16 : NULL;
  if (base) memcpy(&old, base, sizeof old);
  if (!n) {
    if (p) { c->frees++; c->live_blocks--; c->live_bytes -= (long long)old; }
    __real_free(base);
    return NULL;
  }
  unsigned char *q = __real_realloc(base, n + 16);
  if (!q) return NULL;
  if (p) c->reallocs++;
  else { c->allocs++; c->live_blocks++; }
  c->live_bytes += (long long)n - (long long)old;
  memcpy(q, &n, sizeof n);
  return q + 16;
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
