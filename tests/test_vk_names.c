/* Names in every GPU tool: with VK_EXT_debug_utils the runtime names its
 * images, buffers and heaps ("<resource> f<frame copy>") and wraps each node
 * instance's commands in a label. Shown through the path a user sees them
 * in: validation messages. Deliberate misuse of the runtime's own objects
 * must quote those names. Also fg_rt_get_timings through C, and its refusal
 * where the queue family has no timestamps. */
#include "fg_vk_runtime.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c); failures++; } } while (0)

static int provoke;

/* "fill" fills buffer counts and clears image albedo; with `provoke`, fills
 * the buffer a second time without the barrier fg_rt_cmd_access would record
 * (a write-after-write hazard synchronization validation reports). */
static int record(void *user, fg_rt *rt, VkCommandBuffer cmd, uint32_t slot) {
  (void)user;
  const fg_graph_instance *in = fg_graph_instance_get(fg_rt_graph(rt), slot);
  for (uint32_t u = 0; u < in->use_count; u++) {
    fg_rt_res *r = fg_rt_resource(rt, fg_rt_use_phys(rt, slot, u));
    if (!r) return 1;
    fg_rt_cmd_access(rt, cmd, slot, u, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
    if (r->buffer) {
      vkCmdFillBuffer(cmd, r->buffer, 0, VK_WHOLE_SIZE, 7);
      if (provoke) vkCmdFillBuffer(cmd, r->buffer, 0, VK_WHOLE_SIZE, 8);
    } else {
      VkClearColorValue cv = {{0}};
      VkImageSubresourceRange range = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
      vkCmdClearColorImage(cmd, r->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &cv, 1, &range);
    }
  }
  return 0;
}

/* Labels: this layer version hands the messenger no command-buffer labels
 * (device.c would append them as "[passes: ...]"), so the test wraps the
 * device's label functions and records what the runtime opens and closes. */
static PFN_vkCmdBeginDebugUtilsLabelEXT real_begin;
static PFN_vkCmdEndDebugUtilsLabelEXT real_end;
static char labels[512];
static int depth, max_depth;
static VKAPI_ATTR void VKAPI_CALL spy_begin(VkCommandBuffer cmd, const VkDebugUtilsLabelEXT *l) {
  size_t n = strlen(labels);
  snprintf(labels + n, sizeof labels - n, "%s<", l->pLabelName);
  if (++depth > max_depth) max_depth = depth;
  real_begin(cmd, l);
}
static VKAPI_ATTR void VKAPI_CALL spy_end(VkCommandBuffer cmd) {
  size_t n = strlen(labels);
  snprintf(labels + n, sizeof labels - n, ">");
  depth--;
  real_end(cmd);
}

static int take(fg_vk_device *dev, const char *want1, const char *want2, int print) {
  size_t n = 0;
  char **m = fg_vk_take_messages(dev, &n);
  int found = 0;
  for (size_t i = 0; i < n; i++) {
    if (strstr(m[i], want1) && (!want2 || strstr(m[i], want2))) found = 1;
    if (print) fprintf(stderr, "validation: %.800s\n", m[i]);
  }
  fg_vk_free_messages(m, n);
  return found;
}

int main(void) {
  char err[1024];
  fg_vk_desc vd = {.validation = 1, .prefer_software = 1};
  fg_vk_device *dev = fg_vk_create(&vd, err, sizeof err);
  if (!dev) { printf("SKIP: no Vulkan device: %s\n", err); return 0; }
  if (!dev->set_object_name) { printf("SKIP: no VK_EXT_debug_utils\n"); fg_vk_destroy(dev); return 0; }
  real_begin = dev->cmd_begin_label;
  real_end = dev->cmd_end_label;
  dev->cmd_begin_label = spy_begin;
  dev->cmd_end_label = spy_end;
  fg_rt_sizer_ctx sz = {.dev = dev};
  fg_graph *g = fg_graph_new(NULL);
  uint32_t n0 = fg_graph_add_node(g, &(fg_graph_node_desc){.name = "fill"});
  uint32_t n1 = fg_graph_add_node(g, &(fg_graph_node_desc){.name = "touch"});
  fg_graph_res_desc buf = {.kind = FG_RES_BUFFER, .bytes = 256};
  fg_graph_res_desc tex = {.kind = FG_RES_TEXTURE, .format = FG_FORMAT_RGBA8_UNORM, .width = 8, .height = 8};
  CHECK(!fg_graph_node_create(g, n0, "counts", &buf, FG_USAGE_TRANSFER_DST, FG_STAGE_DEFAULT));
  CHECK(!fg_graph_node_create(g, n0, "albedo", &tex, FG_USAGE_TRANSFER_DST, FG_STAGE_DEFAULT));
  CHECK(!fg_graph_node_modify(g, n1, "counts", FG_USAGE_TRANSFER_DST, FG_STAGE_DEFAULT));
  CHECK(!fg_graph_add_output(g, "counts"));
  CHECK(!fg_graph_add_output(g, "albedo"));
  fg_graph_compile_desc cd = {.solver = "best", .sizer = fg_rt_sizer, .sizer_user = &sz};
  cd.profile.granularity = dev->props.limits.bufferImageGranularity;
  if (fg_graph_compile(g, &cd)) { fprintf(stderr, "compile: %s\n", fg_graph_error(g)); return 1; }
  fg_rt *rt = fg_rt_create(dev, g, NULL, err, sizeof err);
  if (!rt) { fprintf(stderr, "fg_rt_create: %s\n", err); return 1; }
  for (int f = 0; f < 2; f++) CHECK(fg_rt_frame(rt, record, NULL, err, sizeof err) == 0);
  fg_rt_wait_idle(rt);
  CHECK(!take(dev, "", NULL, 1));  /* the valid frames say nothing */
  /* every instance's commands inside its own label, once per frame, balanced */
  CHECK(!strcmp(labels, "fill<>touch<>fill<>touch<>"));
  CHECK(depth == 0 && max_depth == 1);
  if (strcmp(labels, "fill<>touch<>fill<>touch<>")) fprintf(stderr, "labels: %s\n", labels);

  /* a hazard inside the node: the message names the buffer (and its frame copy) */
  provoke = 1;
  CHECK(fg_rt_frame(rt, record, NULL, err, sizeof err) == 0);
  fg_rt_wait_idle(rt);
  provoke = 0;
  int parity = (int)((fg_rt_frame_index(rt) - 1) & 1);
  char want[32];
  snprintf(want, sizeof want, "counts f%d", parity);
  CHECK(take(dev, want, "WRITE_AFTER_WRITE", 1));

  /* an image and a heap, outside any frame */
  fg_rt_res *img = NULL;
  for (uint32_t i = 0; i < fg_rt_resource_count(rt); i++) {
    fg_rt_res *r = fg_rt_resource(rt, i);
    if (r->image && r->g->frame == 1) img = r;
  }
  CHECK(img != NULL);
  if (img) {
    VkImageSubresource sub = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0};
    VkSubresourceLayout lay;
    memset(&lay, 0, sizeof lay);
    vkGetImageSubresourceLayout(dev->device, img->image, &sub, &lay);  /* optimal tiling: invalid */
    CHECK(take(dev, "albedo f1", NULL, 0));
  }
  CHECK(fg_rt_heap_count(rt) >= 1);
  VkDeviceSize committed = 0;
  vkGetDeviceMemoryCommitment(dev->device, fg_rt_heap_memory(rt, 0), &committed);  /* not lazily allocated */
  CHECK(take(dev, "framegraph heap 0", NULL, 0));

  /* timestamps: listed per instance; where the queue family has no valid
   * bits the runtime records none and says why */
  fg_rt_timings t;
  CHECK(fg_rt_get_timings(rt, &t, err, sizeof err) == 0 && t.count == 2 && t.ms[0] >= 0 && t.frame_ms >= t.ms[1]);
  fg_rt_destroy(rt);
  uint32_t bits = dev->timestamp_valid_bits;
  dev->timestamp_valid_bits = 0;
  rt = fg_rt_create(dev, g, NULL, err, sizeof err);
  CHECK(rt != NULL);
  if (rt) {
    CHECK(fg_rt_frame(rt, record, NULL, err, sizeof err) == 0);
    fg_rt_wait_idle(rt);
    CHECK(fg_rt_get_timings(rt, &t, err, sizeof err) == -1 && t.count == 0);
    CHECK(strstr(err, "timestamps unsupported on ") && strstr(err, dev->props.deviceName) &&
          strstr(err, "timestampValidBits = 0"));
    fg_rt_destroy(rt);
  }
  dev->timestamp_valid_bits = bits;
  CHECK(!take(dev, "", NULL, 1));
  fg_graph_free(g);
  fg_vk_destroy(dev);
  /* validation off: the names and labels are still there for capture tools */
  fg_vk_device *plain = fg_vk_create(&(fg_vk_desc){.prefer_software = 1}, err, sizeof err);
  CHECK(plain && plain->set_object_name && plain->cmd_begin_label && !plain->messenger);
  if (plain) fg_vk_destroy(plain);
  if (failures) { fprintf(stderr, "%d failures\n", failures); return 1; }
  printf("debug names ok\n");
  return 0;
}
