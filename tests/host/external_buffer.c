/* A host's buffers as a pipeline's externals (fg_runtime_set_buffer): the
 * host fills `input`, a framegraph compute node writes `output` = input * 2
 * + 7, and the host reads `output` after the frame, through the host's
 * command buffer and through framegraph's own submit. No validation message. */
#include "framegraph.h"
#include "vk_setup.h"
#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include "../fg_test.h"
#include <stdlib.h>
#include <string.h>

#define N 64


static const char pipeline[] =
  "local dev = ...\n"
  "local sh = require('framegraph').shader(dev, 'rt_buf.comp.spv')\n"
  "return { outputs = { 'output' },\n"
  "  external = { input = { buffer = 256 }, output = { buffer = 256 } },\n"
  "  nodes = { { name = 'double', read = { input = { usage = 'storage', stage = 'compute' } },\n"
  "              modify = { output = { usage = 'storage', stage = 'compute' } },\n"
  "              run = function(cmd) cmd:dispatch(sh, { [0] = 'input', [1] = 'output' }, 1, 1, 1, { 7, 64, 1 }) end } } }\n";

typedef struct hbuf { VkBuffer buf; VkDeviceMemory mem; uint32_t *map; } hbuf;

static void make(host_vk *vk, hbuf *b) {
  VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = N * 4,
                           .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT};
  vkCreateBuffer(vk->device, &bi, NULL, &b->buf);
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(vk->device, b->buf, &req);
  VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size,
                             .memoryTypeIndex = (uint32_t)host_vk_memory_type(vk, req.memoryTypeBits,
                               VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)};
  vkAllocateMemory(vk->device, &ai, NULL, &b->mem);
  vkBindBufferMemory(vk->device, b->buf, b->mem, 0);
  vkMapMemory(vk->device, b->mem, 0, VK_WHOLE_SIZE, 0, (void **)&b->map);
}

static void drop(host_vk *vk, hbuf *b) {
  vkDestroyBuffer(vk->device, b->buf, NULL);
  vkFreeMemory(vk->device, b->mem, NULL);
}

int main(void) {
  setenv("FG_SHADER_DIR", FG_BUILD_DIR "/shaders", 0);
  host_vk vk;
  if (host_vk_create(&vk, 1)) return 1;
  hbuf in, out;
  make(&vk, &in);
  make(&vk, &out);
  fg_device_desc d = {.instance = vk.instance, .physical_device = vk.phys, .device = vk.device,
                      .queue_family = vk.family, .queue = vk.queue, .get_instance_proc_addr = vkGetInstanceProcAddr,
                      .enabled_extensions = vk.extensions, .enabled_extension_count = vk.extension_count};
  fg_device *dev = NULL;
  CHECK(fg_device_create(&d, &dev) == FG_SUCCESS, "fg_device_create: %s", fg_device_last_error(dev));
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  const char *lua_dir = getenv("FG_LUA_DIR");
  fg_lua_open(L, lua_dir ? lua_dir : FG_SOURCE_DIR "/lua");
  char dir[] = "/tmp/fg_extbufXXXXXX", path[64];
  if (!mkdtemp(dir)) return 1;
  snprintf(path, sizeof path, "%s/p.lua", dir);
  FILE *f = fopen(path, "w");
  fputs(pipeline, f);
  fclose(f);
  fg_runtime *rt = NULL;
  fg_runtime_desc rd = {.pipeline_path = path};
  CHECK(fg_runtime_create(dev, L, &rd, &rt) == FG_SUCCESS, "fg_runtime_create: %s", fg_runtime_last_error(rt));
  /* a frame before the host gave its buffers: refused, saying what is missing */
  fg_frame_info info;
  CHECK(fg_runtime_frame(rt, NULL, &info) == FG_ERROR_PIPELINE &&
          strstr(fg_runtime_last_error(rt), "external resource 'input'"),
        "a frame without the host's buffers: %s", fg_runtime_last_error(rt));
  /* a misspelt name is refused at once, listing the externals */
  fg_external_buffer typo = {.name = "inptu", .buffer = in.buf, .size = N * 4};
  CHECK(fg_runtime_set_buffer(rt, &typo) == FG_ERROR_NOT_FOUND &&
          strstr(fg_runtime_last_error(rt), "no external 'inptu' (externals: input, output)"),
        "misspelt external: %s", fg_runtime_last_error(rt));
  fg_external_buffer bi = {.name = "input", .buffer = in.buf, .size = N * 4};
  fg_external_buffer bo = {.name = "output", .buffer = out.buf, .size = N * 4};
  CHECK(fg_runtime_set_buffer(rt, &bi) == FG_SUCCESS && fg_runtime_set_buffer(rt, &bo) == FG_SUCCESS, "set_buffer");
  /* round 1: framegraph submits; round 2: the host's command buffer */
  VkCommandPool pool;
  VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .queueFamilyIndex = vk.family};
  vkCreateCommandPool(vk.device, &pi, NULL, &pool);
  VkCommandBuffer cmd;
  VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = pool,
                                     .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
  vkAllocateCommandBuffers(vk.device, &cai, &cmd);
  VkFence fence;
  VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  vkCreateFence(vk.device, &fi, NULL, &fence);
  for (int round = 0; round < 2; round++) {
    for (uint32_t i = 0; i < N; i++) in.map[i] = i + 100u * (uint32_t)round, out.map[i] = 0;
    if (round == 0) {
      CHECK(fg_runtime_frame(rt, NULL, &info) == FG_SUCCESS, "frame: %s", fg_runtime_last_error(rt));
      CHECK(fg_runtime_wait_idle(rt) == FG_SUCCESS, "wait");
    } else {
      VkCommandBufferBeginInfo bb = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
      vkBeginCommandBuffer(cmd, &bb);
      fg_frame_desc fd = {.cmd = cmd};
      CHECK(fg_runtime_frame(rt, &fd, &info) == FG_SUCCESS, "frame: %s", fg_runtime_last_error(rt));
      vkEndCommandBuffer(cmd);
      VkSemaphoreSubmitInfo sig[FG_MAX_FRAME_SIGNALS];
      for (uint32_t i = 0; i < info.signal_count; i++)
        sig[i] = (VkSemaphoreSubmitInfo){.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO, .semaphore = info.signal[i],
                                         .value = info.signal_value[i], .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT};
      VkCommandBufferSubmitInfo cbi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO, .commandBuffer = cmd};
      VkSubmitInfo2 si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2, .commandBufferInfoCount = 1,
                          .pCommandBufferInfos = &cbi, .signalSemaphoreInfoCount = info.signal_count,
                          .pSignalSemaphoreInfos = sig};
      CHECK(info.signal_count >= 1, "a host-submitted frame names the semaphores to signal");
      vkQueueSubmit2(vk.queue, 1, &si, fence);
      vkWaitForFences(vk.device, 1, &fence, VK_TRUE, UINT64_MAX);
    }
    int bad = 0;
    for (uint32_t i = 0; i < N; i++) bad += out.map[i] != (i + 100u * (uint32_t)round) * 2 + 7;
    CHECK(!bad, "round %d: %d of %d values wrong (out[1] = %u)", round, bad, N, out.map[1]);
  }
  fg_runtime_destroy(rt);
  lua_close(L);
  fg_device_destroy(dev);
  vkDestroyFence(vk.device, fence, NULL);
  vkDestroyCommandPool(vk.device, pool, NULL);
  drop(&vk, &in);
  drop(&vk, &out);
  remove(path);
  remove(dir);
  host_vk_destroy(&vk);
  CHECK(vk.messages == 0, "%u validation messages", vk.messages);
  printf("%s\n", failures ? "FAILED" : "ok: host buffers in and out of a frame");
  return failures ? 1 : 0;
}
