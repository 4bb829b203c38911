/* The node command API (fg_vk_cmd.h) from C, without Lua, on lavapipe with
 * validation: a clear and a buffer copy recorded through fg_rt_cmd_* give the
 * expected bytes with no validation message, and the usage checks refuse a
 * write to a read-only use with the message the Lua binding shows. Also the
 * pure helpers: texel -> RGBA8 conversion for PNG and the flag names. */
#include "fg_vk_cmd.h"
#include "fg_vk_pixels.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c); failures++; } } while (0)

#define N 1024

typedef struct seen {
  int refused;          /* the read-only write was refused */
  char msg[1024];
} seen;

/* "fill" clears a to 7; "copy" copies a -> b and tries to clear a (read only). */
static int record(void *user, fg_rt *rt, VkCommandBuffer cmd, uint32_t slot) {
  seen *sn = user;
  char err[1024];
  const fg_graph_instance *in = fg_graph_instance_get(fg_rt_graph(rt), slot);
  if (!strcmp(in->node_name, "fill")) {
    double v[4] = {7, 0, 0, 0};
    return fg_rt_cmd_clear(rt, cmd, slot, 0, "a", v, "cmd:clear", err, sizeof err) ? 1 : 0;
  }
  uint32_t src = in->uses[0].access == FG_ACCESS_READ ? 0 : 1, dst = 1 - src;
  double v[4] = {9, 0, 0, 0};
  if (fg_rt_cmd_clear(rt, cmd, slot, src, "a", v, "cmd:clear", sn->msg, sizeof sn->msg)) sn->refused = 1;
  if (fg_rt_cmd_transfer_check(rt, slot, src, "a", 1, "cmd:copy", err, sizeof err) == 0) sn->refused = 0;
  return fg_rt_cmd_copy(rt, cmd, slot, src, "a", dst, "b", 0, err, sizeof err) ? 1 : 0;
}

static fg_graph *build(fg_rt_sizer_ctx *sz) {
  fg_graph *g = fg_graph_new(NULL);
  fg_graph_res_desc buf = {.kind = FG_RES_BUFFER, .bytes = N};
  uint32_t n0 = fg_graph_add_node(g, &(fg_graph_node_desc){.name = "fill"});
  uint32_t n1 = fg_graph_add_node(g, &(fg_graph_node_desc){.name = "copy"});
  CHECK(!fg_graph_node_create(g, n0, "a", &buf, FG_USAGE_TRANSFER_DST, FG_STAGE_DEFAULT));
  CHECK(!fg_graph_node_read(g, n1, "a", FG_USAGE_TRANSFER_SRC, FG_STAGE_DEFAULT, 0));
  CHECK(!fg_graph_node_create(g, n1, "b", &buf, FG_USAGE_TRANSFER_DST, FG_STAGE_DEFAULT));
  CHECK(!fg_graph_add_output(g, "b"));
  fg_graph_compile_desc cd = {.solver = "best", .sizer = fg_rt_sizer, .sizer_user = sz};
  cd.profile.granularity = sz->dev->props.limits.bufferImageGranularity;
  if (fg_graph_compile(g, &cd)) {
    fprintf(stderr, "compile: %s\n", fg_graph_error(g));
    failures++;
  }
  return g;
}

static void test_pixels(void) {
  uint16_t half[4] = {0x3C00, 0x3800, 0xBC00, 0x7E00};  /* 1.0, 0.5, -1.0, NaN */
  uint8_t out[8];
  fg_pixels_to_rgba8(FG_FORMAT_RGBA16_SFLOAT, half, 1, out);
  CHECK(out[0] == 255 && out[1] == 128 && out[2] == 0 && out[3] == 0);
  uint8_t bgra[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  fg_pixels_to_rgba8(FG_FORMAT_BGRA8_UNORM, bgra, 2, out);
  CHECK(out[0] == 3 && out[1] == 2 && out[2] == 1 && out[3] == 4 && out[4] == 7 && out[7] == 8);
  float r32[2] = {2.0f, 0.25f};
  fg_pixels_to_rgba8(FG_FORMAT_R32_SFLOAT, r32, 2, out);
  CHECK(out[0] == 255 && out[1] == 255 && out[2] == 255 && out[3] == 255);
  CHECK(out[4] == 64 && out[5] == 64 && out[6] == 64 && out[7] == 255);
  CHECK(fg_pixels_png_supported(FG_FORMAT_RGBA8_SRGB) && !fg_pixels_png_supported(FG_FORMAT_D32_SFLOAT));
}

static void test_names(void) {
  const char *names[8];
  uint32_t n = fg_vk_memory_flag_names(VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, names);
  CHECK(n == 2 && !strcmp(names[0], "device_local") && !strcmp(names[1], "host_visible"));
  n = fg_vk_shader_stage_names(VK_SHADER_STAGE_COMPUTE_BIT | VK_SHADER_STAGE_VERTEX_BIT, names);
  CHECK(n == 2 && !strcmp(names[0], "vertex") && !strcmp(names[1], "compute"));
  uint32_t v[3];
  fg_vk_version_parts(VK_MAKE_API_VERSION(0, 1, 3, 250), v);
  CHECK(v[0] == 1 && v[1] == 3 && v[2] == 250);
}

int main(void) {
  test_pixels();
  test_names();
  char err[1024];
  fg_vk_desc vd = {.validation = 1, .prefer_software = 1};
  fg_vk_device *dev = fg_vk_create(&vd, err, sizeof err);
  if (!dev) { printf("SKIP: no Vulkan device: %s\n", err); return failures != 0; }
  fg_rt_sizer_ctx sz = {.dev = dev};
  fg_graph *g = build(&sz);
  fg_rt *rt = fg_rt_create(dev, g, &(fg_rt_desc){.poison = 1}, err, sizeof err);
  if (!rt) { fprintf(stderr, "fg_rt_create: %s\n", err); return 1; }
  seen sn = {0};
  for (int f = 0; f < 3; f++) CHECK(fg_rt_frame(rt, record, &sn, err, sizeof err) == 0);
  CHECK(sn.refused);
  CHECK(strstr(sn.msg, "node 'copy': cmd:clear writes 'a' which the node only reads; declare it in create or modify") != NULL);
  uint32_t b = FG_GRAPH_NONE;
  for (uint32_t i = 0; i < fg_graph_resource_count(g); i++) {
    const fg_graph_resource *r = fg_graph_resource_get(g, i);
    if (!strcmp(r->name, "b") && r->frame == 0) b = i;  /* frame 2 was even */
  }
  CHECK(b != FG_GRAPH_NONE);
  void *data = NULL;
  size_t len = 0;
  CHECK(fg_rt_read(rt, b, &data, &len, err, sizeof err) == 0);
  CHECK(len == N);
  if (data && len == N) {
    uint32_t w[2];
    memcpy(&w[0], data, 4);
    memcpy(&w[1], (char *)data + N - 4, 4);
    CHECK(w[0] == 7 && w[1] == 7);
  }
  fg_vk_free(fg_rt_device(rt), data);
  size_t nm = 0;
  char **m = fg_vk_take_messages(dev, &nm);
  for (size_t i = 0; i < nm; i++) fprintf(stderr, "validation: %.1500s\n", m[i]);
  fg_vk_free_messages(m, nm);
  CHECK(nm == 0);
  fg_rt_destroy(rt);
  fg_graph_free(g);
  fg_vk_destroy(dev);
  if (failures) fprintf(stderr, "%d failures\n", failures);
  else printf("ok\n");
  return failures != 0;
}
