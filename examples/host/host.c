/* framegraph-host: an example engine that hosts framegraph (docs/embedding.md).
 *
 *   framegraph-host examples/host/scene.lua [--frames N] [--screenshot FILE] [--mesh FILE.gltf]
 *                   [--until-reloads K] [--timeout S] [--fg-submit] [--no-validation]
 *
 * The mesh is the shipped torus knot (data/mesh/torus_knot.gltf) or another
 * glTF 2.0 file (--mesh FILE), read with tinygltf in gltf.cpp; --mesh torus
 * (or a build without libtinygltf-dev) draws a torus made in C.
 *
 * The host owns everything Vulkan: instance, debug messenger, device, queue,
 * its mesh (vertex and index buffers), its graphics pipeline and the image the
 * frame ends in. framegraph gets the device (fg_device_create), runs the
 * pipeline file in the host's lua_State, calls the host's C callback
 * "draw_scene" where the pipeline asks for it, records each frame into the
 * host's command buffer, and reloads the file when it changes. Headless: the
 * picture is copied back and written as a PNG. Prints `validation messages: N`
 * (the host's own messenger, with synchronization validation). */
#include "framegraph.h"
#include "mesh.h"
#include "vk_setup.h"
#include <lauxlib.h>
#include <lualib.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WIDTH 512
#define HEIGHT 512

typedef struct app {
  host_vk vk;
  /* the mesh, in host-visible memory (small, written once) */
  VkBuffer vbuf, ibuf;
  VkDeviceMemory vmem, imem;
  uint32_t index_count;
  /* the host's pipeline, made for the attachment formats the pass has */
  VkShaderModule vs, fs;
  VkPipelineLayout layout;
  VkPipeline pipeline;
  VkFormat color_format, depth_format;
  /* the image frames end in (framegraph's external "backbuffer") */
  VkImage image;
  VkImageView view;
  VkDeviceMemory image_mem;
  /* one command buffer, its fence */
  VkCommandPool pool;
  VkCommandBuffer cmd;
  VkFence fence;
  int draws;
} app;

static void die(const char *what, const char *msg) {
  fprintf(stderr, "framegraph-host: %s: %s\n", what, msg);
  exit(1);
}

static void check(VkResult r, const char *what) {
  if (r != VK_SUCCESS) {
    char m[32];
    snprintf(m, sizeof m, "VkResult %d", (int)r);
    die(what, m);
  }
}

static VkShaderModule load_module(app *a, const char *name) {
  char path[1024];
  const char *dir = getenv("FG_SHADER_DIR");
  snprintf(path, sizeof path, "%s/%s", dir ? dir : "build/shaders", name);
  FILE *f = fopen(path, "rb");
  if (!f) die("shader not found (set FG_SHADER_DIR to the build's shaders/)", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint32_t *code = malloc((size_t)n);
  if (!code || fread(code, 1, (size_t)n, f) != (size_t)n) die("reading", path);
  fclose(f);
  VkShaderModuleCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = (size_t)n,
                                 .pCode = code};
  VkShaderModule m;
  check(vkCreateShaderModule(a->vk.device, &ci, NULL, &m), "vkCreateShaderModule");
  free(code);
  return m;
}

static void make_buffer(app *a, const void *data, VkDeviceSize size, VkBufferUsageFlags usage, VkBuffer *buf,
                        VkDeviceMemory *mem) {
  VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size, .usage = usage};
  check(vkCreateBuffer(a->vk.device, &bi, NULL, buf), "vkCreateBuffer");
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(a->vk.device, *buf, &req);
  int type = host_vk_memory_type(&a->vk, req.memoryTypeBits,
                                 VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
  VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size,
                             .memoryTypeIndex = (uint32_t)type};
  check(vkAllocateMemory(a->vk.device, &ai, NULL, mem), "vkAllocateMemory");
  check(vkBindBufferMemory(a->vk.device, *buf, *mem, 0), "vkBindBufferMemory");
  if (data) {
    void *p;
    check(vkMapMemory(a->vk.device, *mem, 0, size, 0, &p), "vkMapMemory");
    memcpy(p, data, size);
    vkUnmapMemory(a->vk.device, *mem);
  }
}

/* The shipped torus knot (data/mesh, through tinygltf) when this build reads
 * glTF, else (or with --mesh torus) a torus made here. */
static void make_mesh(app *a, const char *path) {
  host_mesh m = {0};
#ifdef HOST_HAVE_GLTF
  if (!path) path = FG_DATA_DIR "/mesh/torus_knot.gltf";
#endif
  if (!path || !strcmp(path, "torus")) {
    if (host_mesh_torus(&m, 64, 32, 0.65f, 0.25f)) die("mesh", "out of memory");
  } else {
#ifdef HOST_HAVE_GLTF
    char err[512];
    if (host_mesh_gltf(&m, path, err, sizeof err)) die("--mesh", err);
    printf("mesh: %s, %u vertices, %u triangles\n", path, m.vertex_count, m.index_count / 3);
#else
    die("--mesh", "this framegraph-host was built without libtinygltf-dev (glTF); install it and rebuild");
#endif
  }
  make_buffer(a, m.vertices, (VkDeviceSize)m.vertex_count * sizeof(host_vertex), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT,
              &a->vbuf, &a->vmem);
  make_buffer(a, m.indices, (VkDeviceSize)m.index_count * sizeof(uint32_t), VK_BUFFER_USAGE_INDEX_BUFFER_BIT,
              &a->ibuf, &a->imem);
  a->index_count = m.index_count;
  host_mesh_free(&m);
}

/* The pipeline for the pass's attachments (dynamic rendering: formats only).
 * Made on the first draw and again when a reloaded pipeline file changes them. */
static void ensure_pipeline(app *a, VkFormat color, VkFormat depth) {
  if (a->pipeline && a->color_format == color && a->depth_format == depth) return;
  if (a->pipeline) {
    /* an edit changed the formats: the old one may be in a frame in flight */
    vkDeviceWaitIdle(a->vk.device);
    vkDestroyPipeline(a->vk.device, a->pipeline, NULL);
  }
  if (!a->layout) {
    VkPushConstantRange pr = {.stageFlags = VK_SHADER_STAGE_VERTEX_BIT, .size = 128};
    VkPipelineLayoutCreateInfo li = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                     .pushConstantRangeCount = 1, .pPushConstantRanges = &pr};
    check(vkCreatePipelineLayout(a->vk.device, &li, NULL, &a->layout), "vkCreatePipelineLayout");
    a->vs = load_module(a, "host_mesh.vert.spv");
    a->fs = load_module(a, "host_mesh.frag.spv");
  }
  VkPipelineShaderStageCreateInfo st[2] = {
    {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_VERTEX_BIT,
     .module = a->vs, .pName = "main"},
    {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_FRAGMENT_BIT,
     .module = a->fs, .pName = "main"},
  };
  VkVertexInputBindingDescription vb = {.binding = 0, .stride = sizeof(host_vertex)};
  VkVertexInputAttributeDescription va[2] = {
    {.location = 0, .format = VK_FORMAT_R32G32B32_SFLOAT, .offset = 0},
    {.location = 1, .format = VK_FORMAT_R32G32B32_SFLOAT, .offset = 12},
  };
  VkPipelineVertexInputStateCreateInfo vi = {.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
                                             .vertexBindingDescriptionCount = 1, .pVertexBindingDescriptions = &vb,
                                             .vertexAttributeDescriptionCount = 2, .pVertexAttributeDescriptions = va};
  VkPipelineInputAssemblyStateCreateInfo ia = {.sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
                                               .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST};
  VkPipelineViewportStateCreateInfo vp = {.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
                                          .viewportCount = 1, .scissorCount = 1};
  VkPipelineRasterizationStateCreateInfo rs = {.sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
                                               .cullMode = VK_CULL_MODE_BACK_BIT,
                                               .frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE, .lineWidth = 1.0f};
  VkPipelineMultisampleStateCreateInfo ms = {.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
                                             .rasterizationSamples = VK_SAMPLE_COUNT_1_BIT};
  VkPipelineDepthStencilStateCreateInfo ds = {.sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
                                              .depthTestEnable = depth != VK_FORMAT_UNDEFINED,
                                              .depthWriteEnable = depth != VK_FORMAT_UNDEFINED,
                                              .depthCompareOp = VK_COMPARE_OP_LESS};
  VkPipelineColorBlendAttachmentState cba = {.colorWriteMask = 0xf};
  VkPipelineColorBlendStateCreateInfo cb = {.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
                                            .attachmentCount = 1, .pAttachments = &cba};
  VkDynamicState dyn[2] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
  VkPipelineDynamicStateCreateInfo dy = {.sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO,
                                         .dynamicStateCount = 2, .pDynamicStates = dyn};
  VkPipelineRenderingCreateInfo ri = {.sType = VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO,
                                      .colorAttachmentCount = 1, .pColorAttachmentFormats = &color,
                                      .depthAttachmentFormat = depth};
  VkGraphicsPipelineCreateInfo gi = {.sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO, .pNext = &ri,
                                     .stageCount = 2, .pStages = st, .pVertexInputState = &vi,
                                     .pInputAssemblyState = &ia, .pViewportState = &vp, .pRasterizationState = &rs,
                                     .pMultisampleState = &ms, .pDepthStencilState = &ds, .pColorBlendState = &cb,
                                     .pDynamicState = &dy, .layout = a->layout};
  check(vkCreateGraphicsPipelines(a->vk.device, VK_NULL_HANDLE, 1, &gi, NULL, &a->pipeline),
        "vkCreateGraphicsPipelines");
  a->color_format = color;
  a->depth_format = depth;
}

/* Column-major 4x4 helpers for the camera. */
static void mat_mul(float *o, const float *a, const float *b) {
  float t[16];
  for (int c = 0; c < 4; c++)
    for (int r = 0; r < 4; r++) {
      float s = 0;
      for (int k = 0; k < 4; k++) s += a[k * 4 + r] * b[c * 4 + k];
      t[c * 4 + r] = s;
    }
  memcpy(o, t, sizeof t);
}

/* The node callback framegraph calls inside the "scene" pass: ctx says which
 * attachments the pass has (formats) and its extent; args come from the
 * pipeline file (angle, albedo). */
static void draw_scene(VkCommandBuffer cmd, const fg_node_ctx *ctx, void *user) {
  app *a = user;
  if (!ctx->in_pass || ctx->color_count < 1) return;  /* the pipeline file must give it a pass */
  ensure_pipeline(a, ctx->color_formats[0], ctx->depth_format);
  float angle = ctx->arg_count > 0 ? (float)ctx->args[0] : 0.0f;
  float albedo[3] = {0.8f, 0.8f, 0.8f};
  for (uint32_t i = 0; i < 3 && i + 1 < ctx->arg_count; i++) albedo[i] = (float)ctx->args[i + 1];
  VkViewport v = {0, 0, (float)ctx->width, (float)ctx->height, 0, 1};
  VkRect2D sc = {{0, 0}, {ctx->width, ctx->height}};
  vkCmdSetViewport(cmd, 0, 1, &v);
  vkCmdSetScissor(cmd, 0, 1, &sc);
  /* model: tilt then spin; view: back 3 units; projection: 45 degrees, depth 0..1, y down */
  float cy = cosf(angle), sy = sinf(angle), cx = cosf(0.9f), sx = sinf(0.9f);
  float spin[16] = {cy, 0, -sy, 0, 0, 1, 0, 0, sy, 0, cy, 0, 0, 0, 0, 1};
  float tilt[16] = {1, 0, 0, 0, 0, cx, sx, 0, 0, -sx, cx, 0, 0, 0, 0, 1};
  float model[16], mvp[16];
  mat_mul(model, tilt, spin);
  float aspect = ctx->height ? (float)ctx->width / (float)ctx->height : 1.0f, f = 1.0f / tanf(0.3927f), n = 0.1f,
        fa = 10.0f;
  float proj[16] = {f / aspect, 0, 0, 0, 0, -f, 0, 0, 0, 0, fa / (n - fa), -1, 0, 0, n * fa / (n - fa), 0};
  float view[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, -3.0f, 1};
  mat_mul(mvp, view, model);
  mat_mul(mvp, proj, mvp);
  float push[32];
  memcpy(push, mvp, sizeof mvp);
  memcpy(push + 16, model, sizeof model);
  push[28] = albedo[0], push[29] = albedo[1], push[30] = albedo[2], push[31] = 1.0f;
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, a->pipeline);
  vkCmdPushConstants(cmd, a->layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof push, push);
  VkDeviceSize off = 0;
  vkCmdBindVertexBuffers(cmd, 0, 1, &a->vbuf, &off);
  vkCmdBindIndexBuffer(cmd, a->ibuf, 0, VK_INDEX_TYPE_UINT32);
  vkCmdDrawIndexed(cmd, a->index_count, 1, 0, 0, 0);
  a->draws++;
}

static void make_target(app *a) {
  VkImageCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
                          .format = VK_FORMAT_R8G8B8A8_UNORM, .extent = {WIDTH, HEIGHT, 1}, .mipLevels = 1,
                          .arrayLayers = 1, .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL,
                          .usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                                   VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                                   VK_IMAGE_USAGE_STORAGE_BIT};
  check(vkCreateImage(a->vk.device, &ci, NULL, &a->image), "vkCreateImage");
  VkMemoryRequirements req;
  vkGetImageMemoryRequirements(a->vk.device, a->image, &req);
  VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size,
                             .memoryTypeIndex = (uint32_t)host_vk_memory_type(&a->vk, req.memoryTypeBits,
                                                                              VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)};
  check(vkAllocateMemory(a->vk.device, &ai, NULL, &a->image_mem), "vkAllocateMemory");
  check(vkBindImageMemory(a->vk.device, a->image, a->image_mem, 0), "vkBindImageMemory");
  VkImageViewCreateInfo vi = {.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = a->image,
                              .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = ci.format,
                              .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};
  check(vkCreateImageView(a->vk.device, &vi, NULL, &a->view), "vkCreateImageView");
  VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                .queueFamilyIndex = a->vk.family};
  check(vkCreateCommandPool(a->vk.device, &pi, NULL, &a->pool), "vkCreateCommandPool");
  VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = a->pool,
                                     .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
  check(vkAllocateCommandBuffers(a->vk.device, &cai, &a->cmd), "vkAllocateCommandBuffers");
  VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO, .flags = VK_FENCE_CREATE_SIGNALED_BIT};
  check(vkCreateFence(a->vk.device, &fi, NULL, &a->fence), "vkCreateFence");
}

static void begin(app *a) {
  check(vkWaitForFences(a->vk.device, 1, &a->fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
  check(vkResetFences(a->vk.device, 1, &a->fence), "vkResetFences");
  vkResetCommandBuffer(a->cmd, 0);
  VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                 .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
  check(vkBeginCommandBuffer(a->cmd, &bi), "vkBeginCommandBuffer");
}

/* Ends and submits the host's command buffer, signalling what framegraph asks. */
static void submit(app *a, const fg_frame_info *info) {
  check(vkEndCommandBuffer(a->cmd), "vkEndCommandBuffer");
  VkSemaphoreSubmitInfo sig[FG_MAX_FRAME_SIGNALS];
  uint32_t n = info ? info->signal_count : 0;
  for (uint32_t i = 0; i < n; i++)
    sig[i] = (VkSemaphoreSubmitInfo){.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO, .semaphore = info->signal[i],
                                     .value = info->signal_value[i],
                                     .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT};
  VkCommandBufferSubmitInfo cbi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO, .commandBuffer = a->cmd};
  VkSubmitInfo2 si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2, .commandBufferInfoCount = 1,
                      .pCommandBufferInfos = &cbi, .signalSemaphoreInfoCount = n, .pSignalSemaphoreInfos = sig};
  check(vkQueueSubmit2(a->vk.queue, 1, &si, a->fence), "vkQueueSubmit2");
}

/* Copies the image (in TRANSFER_SRC_OPTIMAL: framegraph handed it back so)
 * to a host buffer and writes a PNG. */
static void screenshot(app *a, const char *path) {
  VkBuffer buf;
  VkDeviceMemory mem;
  make_buffer(a, NULL, (VkDeviceSize)WIDTH * HEIGHT * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &buf, &mem);
  begin(a);
  VkBufferImageCopy r = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1}, .imageExtent = {WIDTH, HEIGHT, 1}};
  vkCmdCopyImageToBuffer(a->cmd, a->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buf, 1, &r);
  VkMemoryBarrier2 mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2, .srcStageMask = VK_PIPELINE_STAGE_2_COPY_BIT,
                         .srcAccessMask = VK_ACCESS_2_TRANSFER_WRITE_BIT, .dstStageMask = VK_PIPELINE_STAGE_2_HOST_BIT,
                         .dstAccessMask = VK_ACCESS_2_HOST_READ_BIT};
  VkDependencyInfo di = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .memoryBarrierCount = 1, .pMemoryBarriers = &mb};
  vkCmdPipelineBarrier2(a->cmd, &di);
  submit(a, NULL);
  check(vkWaitForFences(a->vk.device, 1, &a->fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
  void *p;
  check(vkMapMemory(a->vk.device, mem, 0, VK_WHOLE_SIZE, 0, &p), "vkMapMemory");
  png_image img = {.version = PNG_IMAGE_VERSION, .width = WIDTH, .height = HEIGHT, .format = PNG_FORMAT_RGBA};
  if (!png_image_write_to_file(&img, path, 0, p, WIDTH * 4, NULL)) die("writing the screenshot", img.message);
  vkUnmapMemory(a->vk.device, mem);
  vkDestroyBuffer(a->vk.device, buf, NULL);
  vkFreeMemory(a->vk.device, mem, NULL);
  printf("screenshot: %s\n", path);
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  const char *scene = NULL, *shot = NULL, *mesh = NULL;
  int frames = 3, until_reloads = 0, fg_submit = 0, validation = 1;
  double timeout = 300;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--frames") && i + 1 < argc) frames = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--screenshot") && i + 1 < argc) shot = argv[++i];
    else if (!strcmp(argv[i], "--mesh") && i + 1 < argc) mesh = argv[++i];
    else if (!strcmp(argv[i], "--until-reloads") && i + 1 < argc) until_reloads = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--timeout") && i + 1 < argc) timeout = atof(argv[++i]);
    else if (!strcmp(argv[i], "--fg-submit")) fg_submit = 1;
    else if (!strcmp(argv[i], "--no-validation")) validation = 0;
    else if (argv[i][0] != '-' && !scene) scene = argv[i];
    else {
      fprintf(stderr, "usage: framegraph-host SCENE.lua [--frames N] [--screenshot FILE] [--mesh FILE.gltf|torus] "
                      "[--until-reloads K] [--timeout S] [--fg-submit] [--no-validation]\n");
      return 2;
    }
  }
  if (!scene) scene = "examples/host/scene.lua";
  setvbuf(stdout, NULL, _IOLBF, 0);  /* tests follow the log line by line */

  static app a;
  if (host_vk_create(&a.vk, validation)) return 1;
  make_mesh(&a, mesh);
  make_target(&a);

  /* 1. framegraph's device over ours */
  fg_device_desc dd = {
    .instance = a.vk.instance, .physical_device = a.vk.phys, .device = a.vk.device,
    .queue_family = a.vk.family, .queue = a.vk.queue, .get_instance_proc_addr = vkGetInstanceProcAddr,
    .vk_allocator = &a.vk.alloc, .enabled_extensions = a.vk.extensions,
    .enabled_extension_count = a.vk.extension_count, .validation = (uint32_t)validation,
  };
  fg_device *dev = NULL;
  if (fg_device_create(&dd, &dev) != FG_SUCCESS) die("fg_device_create", fg_device_last_error(dev));
  /* 2. our draw callback, by name */
  if (fg_device_register_node(dev, "draw_scene", draw_scene, &a) != FG_SUCCESS)
    die("fg_device_register_node", fg_device_last_error(dev));
  /* 3. Lua, with framegraph in it, and the pipeline file */
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  const char *lua_dir = getenv("FG_LUA_DIR");
  if (fg_lua_open(L, lua_dir ? lua_dir : "lua") != FG_SUCCESS) die("fg_lua_open", "package library missing");
  fg_runtime_desc rd = {.pipeline_path = scene, .watch = 1};
  fg_runtime *rt = NULL;
  if (fg_runtime_create(dev, L, &rd, &rt) != FG_SUCCESS) die("fg_runtime_create", fg_runtime_last_error(rt));
  /* 4. our image as the pipeline's external "backbuffer", back to us for copying */
  fg_external_image ext = {.name = "backbuffer", .image = a.image, .view = a.view, .format = VK_FORMAT_R8G8B8A8_UNORM,
                           .width = WIDTH, .height = HEIGHT, .layout = VK_IMAGE_LAYOUT_UNDEFINED,
                           .final_layout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL};
  if (fg_runtime_set_image(rt, &ext) != FG_SUCCESS) die("fg_runtime_set_image", fg_runtime_last_error(rt));

  /* 5. frames: poll the file, record into our command buffer, submit */
  int reloads = 0, rendered = 0, failed = 0;
  double t0 = now_s();
  for (int f = 0; until_reloads || f < frames; f++) {
    if (until_reloads && now_s() - t0 > timeout) { fprintf(stderr, "framegraph-host: timed out\n"); failed = 1; break; }
    fg_reload_status st;
    if (fg_runtime_poll(rt, &st) != FG_SUCCESS) die("fg_runtime_poll", fg_runtime_last_error(rt));
    if (st == FG_RELOAD_DONE) { reloads++; printf("reloaded %s\n", scene); }
    if (st == FG_RELOAD_FAILED) { reloads++; printf("reload failed: %s\n", fg_runtime_last_error(rt)); }
    fg_frame_info info;
    fg_result r;
    if (fg_submit) {
      r = fg_runtime_frame(rt, NULL, &info);
    } else {
      begin(&a);
      fg_frame_desc fd = {.cmd = a.cmd};
      r = fg_runtime_frame(rt, &fd, &info);
      submit(&a, r == FG_SUCCESS ? &info : NULL);  /* an empty buffer when the frame failed */
    }
    if (r != FG_SUCCESS) {
      printf("frame %d failed (%s): %s\n", f, fg_result_name(r), fg_runtime_last_error(rt));
      failed = 1;
      break;
    }
    if (info.rolled_back) printf("rolled back: %s\n", fg_runtime_last_error(rt));
    rendered++;
    printf("frame %d: %u barriers\n", f, info.barriers);
    if (until_reloads && reloads >= until_reloads) { until_reloads = 0; frames = f + 3; }
    if (until_reloads) {
      struct timespec ts = {0, 50 * 1000 * 1000};  /* an editor's pace, not a benchmark */
      nanosleep(&ts, NULL);
    }
  }
  vkWaitForFences(a.vk.device, 1, &a.fence, VK_TRUE, UINT64_MAX);
  fg_runtime_wait_idle(rt);
  if (shot && rendered) screenshot(&a, shot);
  fg_runtime_info ri;
  if (fg_runtime_get_info(rt, &ri) == FG_SUCCESS)
    printf("plan: %u instances, %u resources, %llu bytes of device memory in %u allocations\n", ri.instances,
           ri.resources, (unsigned long long)ri.memory_bytes, ri.allocations);
  printf("frames: %d, host draws: %d, reloads: %d\n", rendered, a.draws, reloads);

  /* 6. teardown: framegraph's objects before our device */
  fg_runtime_destroy(rt);
  lua_close(L);
  fg_device_destroy(dev);
  printf("host allocations left by framegraph: %ld (of %ld through the host's VkAllocationCallbacks)\n",
         a.vk.allocations, a.vk.alloc_calls);
  vkDeviceWaitIdle(a.vk.device);
  vkDestroyFence(a.vk.device, a.fence, NULL);
  vkDestroyCommandPool(a.vk.device, a.pool, NULL);
  vkDestroyImageView(a.vk.device, a.view, NULL);
  vkDestroyImage(a.vk.device, a.image, NULL);
  vkFreeMemory(a.vk.device, a.image_mem, NULL);
  if (a.pipeline) vkDestroyPipeline(a.vk.device, a.pipeline, NULL);
  if (a.layout) vkDestroyPipelineLayout(a.vk.device, a.layout, NULL);
  if (a.vs) vkDestroyShaderModule(a.vk.device, a.vs, NULL);
  if (a.fs) vkDestroyShaderModule(a.vk.device, a.fs, NULL);
  vkDestroyBuffer(a.vk.device, a.vbuf, NULL);
  vkDestroyBuffer(a.vk.device, a.ibuf, NULL);
  vkFreeMemory(a.vk.device, a.vmem, NULL);
  vkFreeMemory(a.vk.device, a.imem, NULL);
  host_vk_destroy(&a.vk);  /* its messenger reports up to the device's end */
  printf("validation messages: %u\n", a.vk.messages);
  return failed || a.vk.messages ? 1 : 0;
}
