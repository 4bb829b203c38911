/* Device layer on lavapipe with validation + synchronization validation:
 * message capture works (a deliberate error and a deliberate hazard are
 * reported), SPIR-V reflection, compute dispatch with push descriptors and
 * push constants, storage-image dispatch + image read-back + PNG round trip,
 * fullscreen draws with dynamic rendering (built-in vertex shader, combined
 * image sampler, separate sampler + two outputs), and misuse reported as
 * messages without validation errors. Ends with zero validation messages. */
#include "fg_vk_shader.h"
#include "fg_png.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
#define CHECK(c, ...) do { if (!(c)) { failures++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); } } while (0)

static size_t drain(fg_vk_device *dev, const char *expect_substr, int print) {
  size_t n = 0;
  char **m = fg_vk_take_messages(dev, &n);
  size_t hits = 0;
  for (size_t i = 0; i < n; i++) {
    if (expect_substr && strstr(m[i], expect_substr)) hits++;
    if (print) fprintf(stderr, "  message: %.300s\n", m[i]);
  }
  fg_vk_free_messages(m, n);
  return expect_substr ? hits : n;
}

static uint32_t *load_spv(const char *name, size_t *bytes) {
  char path[1024];
  snprintf(path, sizeof path, "%s/shaders/%s.spv", FG_BUILD_DIR, name);
  FILE *f = fopen(path, "rb");
  if (!f) { fprintf(stderr, "cannot open %s (build the 'shaders' target)\n", path); exit(1); }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint32_t *w = malloc((size_t)n);
  if (fread(w, 1, (size_t)n, f) != (size_t)n) { fprintf(stderr, "short read %s\n", path); exit(1); }
  fclose(f);
  *bytes = (size_t)n;
  return w;
}

static fg_vk_shader *shader(fg_vk_device *dev, const char *name) {
  size_t bytes;
  uint32_t *code = load_spv(name, &bytes);
  char err[512];
  fg_vk_shader_desc d = {.name = name};
  fg_vk_shader *s = fg_vk_shader_create(dev, code, bytes, &d, err, sizeof err);
  free(code);
  if (!s) { fprintf(stderr, "shader %s: %s\n", name, err); exit(1); }
  return s;
}

/* ---- a dedicated image for tests ---- */
typedef struct image { VkImage image; VkDeviceMemory mem; VkImageView view; } image;

static image make_image(fg_vk_device *dev, uint32_t w, uint32_t h, VkFormat fmt, VkImageUsageFlags usage) {
  image im = {0};
  VkImageCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D, .format = fmt,
                          .extent = {w, h, 1}, .mipLevels = 1, .arrayLayers = 1, .samples = VK_SAMPLE_COUNT_1_BIT,
                          .tiling = VK_IMAGE_TILING_OPTIMAL, .usage = usage, .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED};
  if (vkCreateImage(dev->device, &ci, NULL, &im.image) != VK_SUCCESS) { fprintf(stderr, "vkCreateImage\n"); exit(1); }
  VkMemoryRequirements req;
  vkGetImageMemoryRequirements(dev->device, im.image, &req);
  int type = fg_vk_find_memory_type(dev, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  if (type < 0) type = fg_vk_find_memory_type(dev, req.memoryTypeBits, 0);
  VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size,
                             .memoryTypeIndex = (uint32_t)type};
  if (vkAllocateMemory(dev->device, &ai, NULL, &im.mem) != VK_SUCCESS ||
      vkBindImageMemory(dev->device, im.image, im.mem, 0) != VK_SUCCESS) { fprintf(stderr, "image memory\n"); exit(1); }
  VkImageViewCreateInfo vi = {.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = im.image,
                              .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = fmt,
                              .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};
  if (vkCreateImageView(dev->device, &vi, NULL, &im.view) != VK_SUCCESS) { fprintf(stderr, "view\n"); exit(1); }
  return im;
}

static void free_image(fg_vk_device *dev, image *im) {
  vkDestroyImageView(dev->device, im->view, NULL);
  vkDestroyImage(dev->device, im->image, NULL);
  vkFreeMemory(dev->device, im->mem, NULL);
}

static void image_barrier(VkCommandBuffer cmd, VkImage img, VkImageLayout from, VkImageLayout to,
                          VkPipelineStageFlags2 ss, VkAccessFlags2 sa, VkPipelineStageFlags2 ds, VkAccessFlags2 da) {
  VkImageMemoryBarrier2 b = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2, .srcStageMask = ss, .srcAccessMask = sa,
                             .dstStageMask = ds, .dstAccessMask = da, .oldLayout = from, .newLayout = to,
                             .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                             .image = img, .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};
  VkDependencyInfo d = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .imageMemoryBarrierCount = 1, .pImageMemoryBarriers = &b};
  vkCmdPipelineBarrier2(cmd, &d);
}

/* ---- recorded jobs ---- */
typedef struct fill_job {
  fg_vk_device *dev;
  fg_vk_shader *s;
  VkBuffer src, dst;
  uint32_t push[4];
  int ok;
  char err[512];
} fill_job;

static void rec_fill(VkCommandBuffer cmd, void *u) {
  fill_job *j = u;
  fg_vk_binding b[2] = {{.binding = 0, .buffer = j->src}, {.binding = 1, .buffer = j->dst}};
  j->ok = fg_vk_cmd_dispatch(j->dev, cmd, j->s, b, 2, (j->push[2] + 63) / 64, 1, 1, j->push, sizeof j->push,
                             j->err, sizeof j->err);
}

/* Deliberate hazard: a dispatch writes dst, then a copy reads it with no barrier. */
static void rec_hazard(VkCommandBuffer cmd, void *u) {
  fill_job *j = u;
  rec_fill(cmd, u);
  VkBufferCopy c = {0, 0, 64};
  vkCmdCopyBuffer(cmd, j->dst, j->src, 1, &c);
}

typedef struct misuse_job {
  fg_vk_device *dev;
  fg_vk_shader *s, *gfx;
  VkBuffer buf;
  int results[6];
  char errs[6][512];
} misuse_job;

static void rec_misuse(VkCommandBuffer cmd, void *u) {
  misuse_job *j = u;
  uint32_t push[4] = {1, 2, 3, 0};
  uint32_t big[16] = {0};
  fg_vk_binding one[1] = {{.binding = 0, .buffer = j->buf}};
  fg_vk_binding wrong[2] = {{.binding = 0, .buffer = j->buf},
                            {.binding = 1, .type = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, .buffer = j->buf}};
  fg_vk_binding unknown[3] = {{.binding = 0, .buffer = j->buf}, {.binding = 1, .buffer = j->buf},
                              {.binding = 7, .buffer = j->buf}};
  fg_vk_binding misaligned[2] = {{.binding = 0, .buffer = j->buf}, {.binding = 1, .buffer = j->buf, .offset = 3}};
  fg_vk_binding ok[2] = {{.binding = 0, .buffer = j->buf}, {.binding = 1, .buffer = j->buf}};
  j->results[0] = fg_vk_cmd_dispatch(j->dev, cmd, j->s, one, 1, 1, 1, 1, push, 16, j->errs[0], 512);
  j->results[1] = fg_vk_cmd_dispatch(j->dev, cmd, j->s, wrong, 2, 1, 1, 1, push, 16, j->errs[1], 512);
  j->results[2] = fg_vk_cmd_dispatch(j->dev, cmd, j->s, unknown, 3, 1, 1, 1, push, 16, j->errs[2], 512);
  j->results[3] = fg_vk_cmd_dispatch(j->dev, cmd, j->s, ok, 2, 1, 1, 1, big, sizeof big, j->errs[3], 512);
  j->results[4] = fg_vk_cmd_dispatch(j->dev, cmd, j->s, misaligned, 2, 1, 1, 1, push, 16, j->errs[4], 512);
  j->results[5] = fg_vk_cmd_dispatch(j->dev, cmd, j->gfx, NULL, 0, 1, 1, 1, NULL, 0, j->errs[5], 512);
}

typedef struct image_job {
  fg_vk_device *dev;
  fg_vk_shader *s;
  image *img;
  VkBuffer ubo;
  uint32_t w, h;
  int ok;
  char err[512];
} image_job;

static void rec_image(VkCommandBuffer cmd, void *u) {
  image_job *j = u;
  image_barrier(cmd, j->img->image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_2_NONE, 0,
                VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
  fg_vk_binding b[2] = {{.binding = 0, .view = j->img->view}, {.binding = 1, .buffer = j->ubo}};
  j->ok = fg_vk_cmd_dispatch(j->dev, cmd, j->s, b, 2, (j->w + 7) / 8, (j->h + 7) / 8, 1, NULL, 0, j->err, sizeof j->err);
}

typedef struct draw_job {
  fg_vk_device *dev;
  fg_vk_shader *s;
  image *target, *target2, *src;  /* src: sampled (SHADER_READ_ONLY), written by an earlier compute pass */
  uint32_t w, h;
  float blue;
  VkImageLayout src_layout;  /* src's layout before the draw, and its last access */
  VkPipelineStageFlags2 src_stage;
  VkAccessFlags2 src_access;
  int mode;  /* 0: gradient, 1: copy via combined sampler, 2: two outputs via separate sampler */
  int ok;
  char err[512];
} draw_job;

static void rec_draw(VkCommandBuffer cmd, void *u) {
  draw_job *j = u;
  image *targets[2] = {j->target, j->target2};
  uint32_t nt = j->mode == 2 ? 2 : 1;
  for (uint32_t i = 0; i < nt; i++)
    image_barrier(cmd, targets[i]->image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                  VK_PIPELINE_STAGE_2_NONE, 0, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                  VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT);
  if (j->src)
    image_barrier(cmd, j->src->image, j->src_layout, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                  j->src_stage, j->src_access,
                  VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT, VK_ACCESS_2_SHADER_SAMPLED_READ_BIT);
  VkRenderingAttachmentInfo att[2];
  for (uint32_t i = 0; i < nt; i++)
    att[i] = (VkRenderingAttachmentInfo){.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
                                         .imageView = targets[i]->view,
                                         .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                         .loadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
                                         .storeOp = VK_ATTACHMENT_STORE_OP_STORE};
  VkRenderingInfo ri = {.sType = VK_STRUCTURE_TYPE_RENDERING_INFO, .renderArea = {{0, 0}, {j->w, j->h}},
                        .layerCount = 1, .colorAttachmentCount = nt, .pColorAttachments = att};
  vkCmdBeginRendering(cmd, &ri);
  fg_vk_cmd_viewport(cmd, j->w, j->h);
  VkFormat fmts[2] = {VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R8G8B8A8_UNORM};
  if (j->mode == 0) {
    j->ok = fg_vk_cmd_draw(j->dev, cmd, j->s, NULL, 0, 3, &j->blue, sizeof j->blue, fmts, 1, VK_FORMAT_UNDEFINED,
                           j->err, sizeof j->err);
  } else if (j->mode == 1) {
    fg_vk_binding b = {.binding = 3, .view = j->src->view, .sampler = j->dev->sampler_nearest};
    j->ok = fg_vk_cmd_draw(j->dev, cmd, j->s, &b, 1, 3, NULL, 0, fmts, 1, VK_FORMAT_UNDEFINED, j->err, sizeof j->err);
  } else {
    fg_vk_binding b[2] = {{.binding = 0, .view = j->src->view}, {.binding = 1, .sampler = j->dev->sampler_nearest}};
    j->ok = fg_vk_cmd_draw(j->dev, cmd, j->s, b, 2, 3, NULL, 0, fmts, 2, VK_FORMAT_UNDEFINED, j->err, sizeof j->err);
  }
  vkCmdEndRendering(cmd);
}

/* Same as mode 0 without push constants (the shader has none). */
static void rec_draw_nopush(VkCommandBuffer cmd, void *u) {
  draw_job *j = u;
  image_barrier(cmd, j->target->image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                VK_PIPELINE_STAGE_2_NONE, 0, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT);
  VkRenderingAttachmentInfo att = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO, .imageView = j->target->view,
                                   .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                   .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR, .storeOp = VK_ATTACHMENT_STORE_OP_STORE};
  VkRenderingInfo ri = {.sType = VK_STRUCTURE_TYPE_RENDERING_INFO, .renderArea = {{0, 0}, {j->w, j->h}},
                        .layerCount = 1, .colorAttachmentCount = 1, .pColorAttachments = &att};
  vkCmdBeginRendering(cmd, &ri);
  fg_vk_cmd_viewport(cmd, j->w, j->h);
  VkFormat f = VK_FORMAT_R8G8B8A8_UNORM;
  j->ok = fg_vk_cmd_draw(j->dev, cmd, j->s, NULL, 0, 3, NULL, 0, &f, 1, VK_FORMAT_UNDEFINED, j->err, sizeof j->err);
  vkCmdEndRendering(cmd);
}

static int near(int a, int b, int tol) { return abs(a - b) <= tol; }

int main(void) {
  char err[1536];
  fg_vk_desc desc = {.validation = 1, .prefer_software = 1};
  fg_vk_device *dev = fg_vk_create(&desc, err, sizeof err);
  if (!dev) { fprintf(stderr, "device: %s\n", err); return 1; }
  printf("device: %s (%s)\n", dev->props.deviceName, fg_vk_device_type_name(dev->props.deviceType));
  CHECK(drain(dev, NULL, 1) == 0, "messages after create");

  /* 1. The messenger really collects: a zero-sized buffer is a VUID error. */
  {
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = 0,
                             .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT};
    VkBuffer b = VK_NULL_HANDLE;
    vkCreateBuffer(dev->device, &bi, NULL, &b);
    if (b) vkDestroyBuffer(dev->device, b, NULL);
    CHECK(drain(dev, "VkBufferCreateInfo-size", 0) >= 1, "a zero-sized buffer was not reported by validation");
  }

  /* 2. Reflection. */
  fg_vk_shader *fill = shader(dev, "dev_fill.comp");
  const fg_vk_shader_info *fi = fg_vk_shader_get_info(fill);
  CHECK(fi->is_compute && fi->local_size[0] == 64 && fi->local_size[1] == 1 && fi->local_size[2] == 1,
        "fill local size %u %u %u", fi->local_size[0], fi->local_size[1], fi->local_size[2]);
  CHECK(fi->push_bytes == 16, "fill push bytes %u", fi->push_bytes);
  CHECK(fi->binding_count == 2, "fill bindings %u", fi->binding_count);
  for (uint32_t i = 0; i < fi->binding_count; i++) {
    const fg_vk_shader_binding *b = &fi->bindings[i];
    CHECK(b->type == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER && b->count == 1, "fill binding %u type %d", b->binding, b->type);
    if (b->binding == 0) CHECK(b->readonly && !b->writeonly, "binding 0 should be readonly");
    if (b->binding == 1) CHECK(b->writeonly && !b->readonly, "binding 1 should be writeonly");
  }
  fg_vk_shader *imgs = shader(dev, "dev_image.comp");
  const fg_vk_shader_info *ii = fg_vk_shader_get_info(imgs);
  CHECK(ii->local_size[0] == 8 && ii->local_size[1] == 8 && ii->push_bytes == 0, "image shader info");
  CHECK(ii->binding_count == 2, "image shader bindings %u", ii->binding_count);
  for (uint32_t i = 0; i < ii->binding_count; i++) {
    const fg_vk_shader_binding *b = &ii->bindings[i];
    VkDescriptorType want = b->binding == 0 ? VK_DESCRIPTOR_TYPE_STORAGE_IMAGE : VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
    CHECK(b->type == want, "image shader binding %u type %d", b->binding, b->type);
  }
  fg_vk_shader *grad = shader(dev, "dev_grad.frag");
  const fg_vk_shader_info *gi = fg_vk_shader_get_info(grad);
  CHECK(!gi->is_compute && gi->color_outputs == 1 && gi->push_bytes == 4 &&
        gi->stages == (VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT), "grad info");
  fg_vk_shader *copy = shader(dev, "dev_copy.frag");
  const fg_vk_shader_info *ci = fg_vk_shader_get_info(copy);
  CHECK(ci->binding_count == 1 && ci->bindings[0].binding == 3 &&
        ci->bindings[0].type == VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
        "copy shader binding");
  CHECK(gi->fragment_inputs == 1 && ci->fragment_inputs == 0, "fragment inputs %x %x", gi->fragment_inputs,
        ci->fragment_inputs);
  fg_vk_shader *twoin;
  {
    size_t fb, vb;
    uint32_t *fcode = load_spv("dev_twoin.frag", &fb), *vcode = load_spv("dev_twoout.vert", &vb);
    fg_vk_shader_desc d = {.name = "twoin"};
    twoin = fg_vk_shader_create(dev, fcode, fb, &d, err, sizeof err);
    CHECK(!twoin && strstr(err, "other than location 0"), "two inputs on the built-in vertex shader: %s", err);
    d.vertex_spirv = vcode;
    d.vertex_bytes = vb;
    twoin = fg_vk_shader_create(dev, fcode, fb, &d, err, sizeof err);
    CHECK(twoin != NULL, "own vertex shader: %s", err);
    d.vertex_spirv = fcode;  /* a fragment shader as the vertex shader */
    d.vertex_bytes = fb;
    fg_vk_shader *bad = fg_vk_shader_create(dev, fcode, fb, &d, err, sizeof err);
    CHECK(!bad && strstr(err, "not a vertex shader"), "fragment as vertex: %s", err);
    free(fcode);
    free(vcode);
    if (!twoin) return 1;
  }
  fg_vk_shader *mrt = shader(dev, "dev_mrt.frag");
  const fg_vk_shader_info *mi = fg_vk_shader_get_info(mrt);
  CHECK(mi->color_outputs == 2 && mi->binding_count == 2, "mrt info");

  /* Bad bytes are refused with a message, never a crash. */
  {
    uint32_t junk[8] = {0xdeadbeef, 1, 2, 3, 4, 5, 6, 7};
    fg_vk_shader *s = fg_vk_shader_create(dev, junk, sizeof junk, NULL, err, sizeof err);
    CHECK(!s && strstr(err, "not SPIR-V"), "junk shader: %s", err);
    s = fg_vk_shader_create(dev, junk, 6, NULL, err, sizeof err);
    CHECK(!s && strstr(err, "not SPIR-V"), "short shader: %s", err);
    size_t bytes;
    uint32_t *code = load_spv("dev_fill.comp", &bytes);
    s = fg_vk_shader_create(dev, code, bytes / 8 * 4, NULL, err, sizeof err);  /* truncated module (whole words) */
    CHECK(!s && strstr(err, "corrupt"), "truncated shader: %s", err);
    free(code);
  }

  /* 3. Compute on buffers: dst[i] = src[i] * 3 + 7 + i. */
  enum { N = 1000 };
  fg_vk_buffer src, dst;
  VkBufferUsageFlags bu = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                          VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT;
  if (!fg_vk_buffer_create(dev, N * 4, bu, &src, err, sizeof err) ||
      !fg_vk_buffer_create(dev, N * 4, bu, &dst, err, sizeof err)) { fprintf(stderr, "%s\n", err); return 1; }
  uint32_t host[N], out[N];
  for (uint32_t i = 0; i < N; i++) host[i] = i * 2 + 1;
  CHECK(fg_vk_write_buffer(dev, src.buffer, 0, host, sizeof host, VK_PIPELINE_STAGE_2_NONE, 0, err, sizeof err),
        "upload: %s", err);
  fill_job fj = {.dev = dev, .s = fill, .src = src.buffer, .dst = dst.buffer, .push = {3, 7, N, 1}};
  CHECK(fg_vk_submit_once(dev, rec_fill, &fj) == VK_SUCCESS && fj.ok, "dispatch: %s", fj.err);
  CHECK(fg_vk_read_buffer(dev, dst.buffer, 0, sizeof out, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                          VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, out, err, sizeof err), "read: %s", err);
  int bad = 0;
  for (uint32_t i = 0; i < N; i++) bad += out[i] != host[i] * 3 + 7 + i;
  CHECK(bad == 0, "%d wrong values (out[5] = %u, want %u)", bad, out[5], host[5] * 3 + 7 + 5);
  /* Partial read at an offset. */
  uint32_t part[4] = {0};
  CHECK(fg_vk_read_buffer(dev, dst.buffer, 40, 16, VK_PIPELINE_STAGE_2_COPY_BIT, 0, part, err, sizeof err) &&
        part[0] == host[10] * 3 + 7 + 10 && part[3] == host[13] * 3 + 7 + 13, "partial read");
  CHECK(drain(dev, NULL, 1) == 0, "validation messages after dispatch + read-back");

  /* 4. Synchronization validation is on: an unsynchronised read after write is reported. */
  fill_job hz = fj;
  CHECK(fg_vk_submit_once(dev, rec_hazard, &hz) == VK_SUCCESS, "hazard submit");
  CHECK(drain(dev, "SYNC-HAZARD", 0) >= 1, "synchronization validation did not report a deliberate hazard");

  /* 5. Misuse comes back as messages, and records nothing invalid. */
  misuse_job mj = {.dev = dev, .s = fill, .gfx = grad, .buf = src.buffer};
  fg_vk_submit_once(dev, rec_misuse, &mj);
  CHECK(!mj.results[0] && strstr(mj.errs[0], "binding 1") && strstr(mj.errs[0], "not given"), "missing: %s", mj.errs[0]);
  CHECK(!mj.results[1] && strstr(mj.errs[1], "storage buffer in the shader but a uniform buffer"), "type: %s", mj.errs[1]);
  CHECK(!mj.results[2] && strstr(mj.errs[2], "binding 7"), "unknown: %s", mj.errs[2]);
  CHECK(!mj.results[3] && strstr(mj.errs[3], "64 bytes of push constants") && strstr(mj.errs[3], "16 bytes"),
        "push: %s", mj.errs[3]);
  if (dev->props.limits.minStorageBufferOffsetAlignment > 1)
    CHECK(!mj.results[4] && strstr(mj.errs[4], "offset 3"), "misaligned: %s", mj.errs[4]);
  CHECK(!mj.results[5] && strstr(mj.errs[5], "draw inside a pass"), "dispatch of graphics: %s", mj.errs[5]);
  CHECK(drain(dev, NULL, 1) == 0, "misuse produced validation messages");

  /* 6. Storage image + uniform buffer, image read-back, PNG round trip. */
  enum { W = 40, H = 24 };
  image img = make_image(dev, W, H, VK_FORMAT_R8G8B8A8_UNORM,
                         VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT);
  float tint[4] = {0, 0, 0.5f, 0};
  CHECK(fg_vk_write_buffer(dev, dst.buffer, 0, tint, sizeof tint, VK_PIPELINE_STAGE_2_COPY_BIT,
                           VK_ACCESS_2_TRANSFER_READ_BIT, err, sizeof err), "tint upload: %s", err);
  image_job ij = {.dev = dev, .s = imgs, .img = &img, .ubo = dst.buffer, .w = W, .h = H};
  CHECK(fg_vk_submit_once(dev, rec_image, &ij) == VK_SUCCESS && ij.ok, "image dispatch: %s", ij.err);
  unsigned char px[W * H * 4];
  CHECK(fg_vk_read_image(dev, img.image, VK_FORMAT_R8G8B8A8_UNORM, W, H, VK_IMAGE_LAYOUT_GENERAL,
                         VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, px, sizeof px,
                         err, sizeof err), "read image: %s", err);
  bad = 0;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      unsigned char *p = px + (y * W + x) * 4;
      bad += p[0] != x || p[1] != y || !near(p[2], 128, 1) || p[3] != 255;
    }
  CHECK(bad == 0, "%d wrong texels in the storage image", bad);
  CHECK(!fg_vk_read_image(dev, img.image, VK_FORMAT_R8G8B8A8_UNORM, W, H, VK_IMAGE_LAYOUT_GENERAL, 0, 0, px, 10,
                          err, sizeof err) && strstr(err, "needs"), "small destination: %s", err);
  const char *png = FG_BUILD_DIR "/test_vk_device.png";
  CHECK(fg_png_write_rgba8(png, W, H, px, err, sizeof err), "png write: %s", err);
  uint32_t pw = 0, ph = 0;
  unsigned char *back = NULL;
  CHECK(fg_png_read_rgba8(png, &pw, &ph, &back, err, sizeof err) && pw == W && ph == H &&
        !memcmp(back, px, sizeof px), "png round trip: %s", err);
  free(back);
  CHECK(!fg_png_write_rgba8("/nonexistent-dir/x.png", W, H, px, err, sizeof err) && strstr(err, "cannot write"),
        "png error: %s", err);
  CHECK(drain(dev, NULL, 1) == 0, "validation messages after the image path");

  /* 7. Fullscreen draw with the built-in vertex shader: color = (uv, blue, 1). */
  image rt = make_image(dev, W, H, VK_FORMAT_R8G8B8A8_UNORM,
                        VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT);
  draw_job dj = {.dev = dev, .s = grad, .target = &rt, .w = W, .h = H, .blue = 0.25f, .mode = 0};
  CHECK(fg_vk_submit_once(dev, rec_draw, &dj) == VK_SUCCESS && dj.ok, "draw: %s", dj.err);
  CHECK(fg_vk_read_image(dev, rt.image, VK_FORMAT_R8G8B8A8_UNORM, W, H, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                         VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
                         px, sizeof px, err, sizeof err), "read rt: %s", err);
  bad = 0;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      unsigned char *p = px + (y * W + x) * 4;
      int ex = (int)((x + 0.5) / W * 255 + 0.5), ey = (int)((y + 0.5) / H * 255 + 0.5);
      bad += !near(p[0], ex, 1) || !near(p[1], ey, 1) || !near(p[2], 64, 1) || p[3] != 255;
    }
  CHECK(bad == 0, "%d wrong pixels in the gradient (p[0] = %d %d %d)", bad, px[0], px[1], px[2]);
  /* Own vertex shader: blue comes from its second output (0.5). */
  draw_job tj = dj;
  tj.s = twoin;
  tj.blue = 0;
  CHECK(fg_vk_submit_once(dev, rec_draw_nopush, &tj) == VK_SUCCESS && tj.ok, "own vertex draw: %s", tj.err);
  CHECK(fg_vk_read_image(dev, rt.image, VK_FORMAT_R8G8B8A8_UNORM, W, H, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                         VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
                         px, sizeof px, err, sizeof err), "read rt: %s", err);
  CHECK(near(px[2], 128, 1) && near(px[(W * H - 1) * 4 + 1], (int)((H - 0.5) / H * 255 + 0.5), 1),
        "own vertex shader output (%d %d)", px[2], px[(W * H - 1) * 4 + 1]);
  /* The pipeline is cached per format combination. */
  dj.blue = 1.0f;
  CHECK(fg_vk_submit_once(dev, rec_draw, &dj) == VK_SUCCESS && dj.ok, "second draw: %s", dj.err);
  draw_job wrong_n = dj;
  wrong_n.s = mrt;
  wrong_n.mode = 0;
  fg_vk_submit_once(dev, rec_draw, &wrong_n);
  CHECK(!wrong_n.ok && strstr(wrong_n.err, "writes 2 output"), "output count mismatch: %s", wrong_n.err);
  CHECK(drain(dev, NULL, 1) == 0, "validation messages after draws");

  /* 8. Combined image sampler: copy the storage image through a fullscreen draw. */
  draw_job cj = {.dev = dev, .s = copy, .target = &rt, .src = &img, .w = W, .h = H, .mode = 1,
                 .src_layout = VK_IMAGE_LAYOUT_GENERAL, .src_stage = VK_PIPELINE_STAGE_2_COPY_BIT};
  CHECK(fg_vk_submit_once(dev, rec_draw, &cj) == VK_SUCCESS && cj.ok, "copy draw: %s", cj.err);
  unsigned char px2[W * H * 4];
  CHECK(fg_vk_read_image(dev, rt.image, VK_FORMAT_R8G8B8A8_UNORM, W, H, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                         VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
                         px2, sizeof px2, err, sizeof err), "read copy: %s", err);
  CHECK(fg_vk_read_image(dev, img.image, VK_FORMAT_R8G8B8A8_UNORM, W, H, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                         VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT, 0, px, sizeof px, err, sizeof err), "read src: %s", err);
  CHECK(!memcmp(px, px2, sizeof px), "sampled copy differs from its source");

  /* 9. Separate sampled image + sampler, two color outputs: a = t, b = 1 - t. */
  image rt2 = make_image(dev, W, H, VK_FORMAT_R8G8B8A8_UNORM,
                         VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT);
  draw_job mj2 = {.dev = dev, .s = mrt, .target = &rt, .target2 = &rt2, .src = &img, .w = W, .h = H, .mode = 2,
                  .src_layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, .src_stage = VK_PIPELINE_STAGE_2_COPY_BIT};
  CHECK(fg_vk_submit_once(dev, rec_draw, &mj2) == VK_SUCCESS && mj2.ok, "mrt draw: %s", mj2.err);
  CHECK(fg_vk_read_image(dev, rt.image, VK_FORMAT_R8G8B8A8_UNORM, W, H, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                         VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
                         px2, sizeof px2, err, sizeof err), "read mrt a: %s", err);
  CHECK(!memcmp(px, px2, sizeof px), "mrt output a differs from the source");
  CHECK(fg_vk_read_image(dev, rt2.image, VK_FORMAT_R8G8B8A8_UNORM, W, H, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                         VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
                         px2, sizeof px2, err, sizeof err), "read mrt b: %s", err);
  bad = 0;
  for (int i = 0; i < W * H * 4; i++) bad += !near(px2[i], 255 - px[i], 1);
  CHECK(bad == 0, "%d wrong bytes in mrt output b", bad);
  CHECK(drain(dev, NULL, 1) == 0, "validation messages after the sampled draws");
  free_image(dev, &rt2);

  free_image(dev, &rt);
  free_image(dev, &img);
  fg_vk_buffer_destroy(dev, &src);
  fg_vk_buffer_destroy(dev, &dst);
  fg_vk_shader_destroy(fill);
  fg_vk_shader_destroy(imgs);
  fg_vk_shader_destroy(grad);
  fg_vk_shader_destroy(copy);
  fg_vk_shader_destroy(mrt);
  fg_vk_shader_destroy(twoin);
  CHECK(drain(dev, NULL, 1) == 0, "validation messages at teardown");
  fg_vk_destroy(dev);
  if (failures) { fprintf(stderr, "%d failure(s)\n", failures); return 1; }
  printf("ok\n");
  return 0;
}
