/* Content without a device: the glTF loader on the shipped mesh and on
 * hundreds of hostile variants of it (numbers in the JSON changed, the .bin
 * cut short: never a crash, and whatever loads has every index inside its
 * vertices), computed normals, and the reflection of vertex inputs that
 * cmd:draw_indexed builds its vertex input state from. */
#define FG_TEST_SEED 0x6d657368ull
#include "fg_test.h"
#include "fg_mesh_data.h"
#include "fg_vk_shader.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = malloc((size_t)n + 1);
  if (b && fread(b, 1, (size_t)n, f) != (size_t)n) { free(b); b = NULL; }
  if (b) b[n] = 0;
  fclose(f);
  *len = (size_t)n;
  return b;
}

static void spit(const char *path, const char *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f) return;
  fwrite(data, 1, len, f);
  fclose(f);
}

/* What every loaded mesh must hold, whatever file it came from. */
static void check_sane(const fg_mesh_data *m, const char *what) {
  CHECK(m->vertex_count > 0 && m->vertex_count <= FG_MESH_MAX_ELEMENTS, "%s: %u vertices", what, m->vertex_count);
  CHECK(m->index_count % 3 == 0, "%s: %u indices", what, m->index_count);
  CHECK(m->positions && m->normals && m->uvs && m->indices, "%s: a stream is missing", what);
  for (uint32_t i = 0; i < m->index_count; i++)
    if (m->indices[i] >= m->vertex_count) {
      CHECK(0, "%s: index %u is %u of %u vertices", what, i, m->indices[i], m->vertex_count);
      break;
    }
}

static void shipped(void) {
  fg_mesh_data m;
  char err[512];
  int ok = fg_gltf_load(FG_DATA_DIR "/mesh/torus_knot.gltf", &m, err, sizeof err);
  CHECK(ok, "%s", err);
  if (!ok) return;
  CHECK(m.vertex_count == 1677 && m.index_count == 9216, "%u vertices, %u indices", m.vertex_count, m.index_count);
  check_sane(&m, "shipped");
  for (uint32_t v = 0; v < m.vertex_count; v++) {
    const float *n = m.normals + 3 * v, *t = m.uvs + 2 * v;
    float l = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (fabsf(l - 1.0f) > 1e-3f || t[0] < 0 || t[0] > 1 || t[1] < 0 || t[1] > 1) {
      CHECK(0, "vertex %u: normal length %f, uv %f %f", v, l, t[0], t[1]);
      break;
    }
  }
  CHECK(m.min[0] < -1.2f && m.max[0] > 1.5f && m.max[2] < 0.6f, "bounds %f..%f, z up to %f", m.min[0], m.max[0],
        m.max[2]);
  fg_mesh_data_free(&m);
  ok = fg_gltf_load(FG_DATA_DIR "/mesh/no_such.gltf", &m, err, sizeof err);
  CHECK(!ok && strstr(err, "no_such.gltf"), "missing file: %s", err);
  CHECK(!m.positions && !m.indices, "a failed load leaves nothing allocated");
}

/* The shipped .gltf with one of its numbers replaced, next to the real .bin
 * or one cut short. */
static void hostile(void) {
  size_t glen = 0, blen = 0;
  char *gltf = slurp(FG_DATA_DIR "/mesh/torus_knot.gltf", &glen);
  char *bin = slurp(FG_DATA_DIR "/mesh/torus_knot.bin", &blen);
  CHECK(gltf && bin, "cannot read the shipped mesh");
  if (!gltf || !bin) { free(gltf); free(bin); return; }
  char dir[] = "/tmp/fg_mesh_XXXXXX";
  if (!mkdtemp(dir)) { CHECK(0, "mkdtemp"); free(gltf); free(bin); return; }
  char gpath[64], bpath[64];
  snprintf(gpath, sizeof gpath, "%s/torus_knot.gltf", dir);
  snprintf(bpath, sizeof bpath, "%s/torus_knot.bin", dir);
  /* where the numbers are (digits after ": " or ", " or "[") */
  size_t starts[256], n = 0;
  for (size_t i = 1; i < glen && n < 256; i++)
    if (gltf[i] >= '0' && gltf[i] <= '9' && (gltf[i - 1] == ' ' || gltf[i - 1] == '[') && i >= 2 &&
        (gltf[i - 2] == ':' || gltf[i - 2] == ',' || gltf[i - 1] == '['))
      starts[n++] = i;
  static const char *const values[] = {"0", "1", "2", "3", "5", "-1", "4", "12", "34962", "5121", "5125", "5126",
                                        "2147483647", "4294967295", "99999999999", "1e30", "-0", "72096", "72097",
                                        "16777217", "9216", "1677"};
  int loaded = 0, refused = 0;
  char *buf = malloc(glen + 64);
  for (int it = 0; it < 400 && buf && n; it++) {
    size_t at = starts[rndu(n)], end = at;
    while (end < glen && ((gltf[end] >= '0' && gltf[end] <= '9') || gltf[end] == '.' || gltf[end] == '-' ||
                          gltf[end] == 'e'))
      end++;
    const char *v = values[rndu(sizeof values / sizeof *values)];
    size_t k = 0;
    memcpy(buf, gltf, at);
    k = at;
    memcpy(buf + k, v, strlen(v));
    k += strlen(v);
    memcpy(buf + k, gltf + end, glen - end);
    k += glen - end;
    spit(gpath, buf, k);
    /* one time in four, the .bin is cut short too */
    spit(bpath, bin, rndu(4) == 0 ? (size_t)rndu(blen) : blen);
    fg_mesh_data m;
    char err[512];
    if (fg_gltf_load(gpath, &m, err, sizeof err)) {
      loaded++;
      check_sane(&m, "mutated");
      fg_mesh_data_free(&m);
    } else {
      refused++;
      CHECK(err[0] != 0, "a refusal without a message");
    }
  }
  CHECK(loaded > 0 && refused > 0, "%d loaded, %d refused: the mutations should do both", loaded, refused);
  free(buf);
  unlink(gpath);
  unlink(bpath);
  rmdir(dir);
  free(gltf);
  free(bin);
}

static void normals(void) {
  float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  uint32_t idx[3] = {0, 1, 2};
  fg_mesh_data m = {.positions = pos, .indices = idx, .vertex_count = 3, .index_count = 3};
  CHECK(fg_mesh_compute_normals(&m), "out of memory");
  for (int v = 0; v < 3; v++)
    CHECK(m.normals[3 * v] == 0 && m.normals[3 * v + 1] == 0 && m.normals[3 * v + 2] == 1, "vertex %d: %f %f %f", v,
          m.normals[3 * v], m.normals[3 * v + 1], m.normals[3 * v + 2]);
  free(m.normals);
}

static void reflection(void) {
  size_t len = 0;
  char *spv = slurp(FG_BUILD_DIR "/shaders/mesh_obj.vert.spv", &len);
  CHECK(spv, "mesh_obj.vert.spv not built");
  if (!spv) return;
  fg_vk_shader_info *si = calloc(1, sizeof *si);
  char err[512];
  CHECK(fg_vk_spirv_reflect((const uint32_t *)spv, len, si, err, sizeof err), "%s", err);
  CHECK(si->vertex_input_count == 3, "%u inputs", si->vertex_input_count);
  static const VkFormat want[3] = {VK_FORMAT_R32G32B32_SFLOAT, VK_FORMAT_R32G32B32_SFLOAT, VK_FORMAT_R32G32_SFLOAT};
  static const char *const names[3] = {"position", "normal", "uv"};
  for (uint32_t i = 0; i < 3 && i < si->vertex_input_count; i++) {
    const struct fg_vk_vertex_input *in = &si->vertex_inputs[i];
    CHECK(in->location == i && in->format == want[i] && in->bytes == (i == 2 ? 8u : 12u) && !strcmp(in->name, names[i]),
          "input %u: location %u format %d bytes %u name '%s'", i, in->location, (int)in->format, in->bytes, in->name);
  }
  free(spv);
  spv = slurp(FG_BUILD_DIR "/shaders/mesh_badinput.vert.spv", &len);
  CHECK(spv, "mesh_badinput.vert.spv not built");
  if (spv) {
    memset(si, 0, sizeof *si);
    CHECK(!fg_vk_spirv_reflect((const uint32_t *)spv, len, si, err, sizeof err) && strstr(err, "not a 32-bit scalar"),
          "a mat4 input: %s", err);
    free(spv);
  }
  free(si);
}

int main(void) {
  shipped();
  hostile();
  normals();
  reflection();
  if (failures) fprintf(stderr, "test_vk_mesh: %d failure(s)\n", failures);
  else printf("test_vk_mesh: ok\n");
  return failures != 0;
}
