/* Static vertex and index buffers (fg_vk_mesh.h) and the mesh data helpers
 * every loader shares (fg_mesh_data.h). */
#include "fg_vk_mesh.h"
#include "fg_util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

int fg_vk_static_buffer_create(fg_vk_device *dev, const void *data, size_t size, uint32_t usage,
                               uint32_t index_bytes, fg_vk_static_buffer *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  int index = (usage & FG_VK_BUFFER_INDEX) != 0;
  if (!size || (index && index_bytes != 2 && index_bytes != 4) || (index && size % index_bytes)) {
    fg_errf(err, errlen, "buffer of %zu bytes: empty, or not a whole number of %u-byte indices", size, index_bytes);
    return 0;
  }
  /* The largest index bounds what a draw may read from its vertex buffers
   * (fg_vk_cmd_draw_indexed); the contents never change after this. */
  uint32_t max_index = 0;
  if (index && data) {
    if (index_bytes == 2) {
      const unsigned char *p = data;
      for (size_t i = 0; i < size; i += 2) {
        uint32_t v = (uint32_t)p[i] | (uint32_t)p[i + 1] << 8;
        if (v > max_index) max_index = v;
      }
    } else {
      for (size_t i = 0; i < size; i += 4) {
        uint32_t v;
        memcpy(&v, (const unsigned char *)data + i, 4);
        if (v > max_index) max_index = v;
      }
    }
  }
  VkBufferUsageFlags vu = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  if (usage & FG_VK_BUFFER_VERTEX) vu |= VK_BUFFER_USAGE_VERTEX_BUFFER_BIT;
  if (index) vu |= VK_BUFFER_USAGE_INDEX_BUFFER_BIT;
  if (!fg_vk_buffer_create(dev, size, vu, &out->buf, err, errlen)) return 0;
  void *zeros = data ? NULL : calloc(1, size);
  if (!data && !zeros) {
    fg_vk_buffer_destroy(dev, &out->buf);
    fg_errf(err, errlen, "out of memory (%zu bytes)", size);
    return 0;
  }
  int ok = fg_vk_write_buffer(dev, out->buf.buffer, 0, data ? data : zeros, size, VK_PIPELINE_STAGE_2_NONE, 0, err,
                              errlen);
  free(zeros);
  if (!ok) {
    fg_vk_buffer_destroy(dev, &out->buf);
    return 0;
  }
  out->usage = usage;
  out->index_type = index_bytes == 2 ? VK_INDEX_TYPE_UINT16 : VK_INDEX_TYPE_UINT32;
  out->max_index = max_index;
  return 1;
}

void fg_vk_static_buffer_destroy(fg_vk_device *dev, fg_vk_static_buffer *b) {
  if (!b->buf.buffer && !b->buf.memory) return;
  vkDeviceWaitIdle(dev->device);  /* a frame in flight may still read it */
  fg_vk_buffer_destroy(dev, &b->buf);
  memset(b, 0, sizeof *b);
}

void fg_mesh_data_free(fg_mesh_data *m) {
  free(m->positions);
  free(m->normals);
  free(m->uvs);
  free(m->indices);
  memset(m, 0, sizeof *m);
}

int fg_mesh_compute_normals(fg_mesh_data *m) {
  free(m->normals);
  m->normals = calloc((size_t)m->vertex_count * 3 + 3, sizeof(float));
  if (!m->normals) return 0;
  const float *p = m->positions;
  float *n = m->normals;
  for (uint32_t t = 0; t + 2 < m->index_count; t += 3) {  /* indices were checked against vertex_count */
    uint32_t a = m->indices[t], b = m->indices[t + 1], c = m->indices[t + 2];
    float e1[3], e2[3], f[3];
    for (int k = 0; k < 3; k++) { e1[k] = p[3 * b + k] - p[3 * a + k]; e2[k] = p[3 * c + k] - p[3 * a + k]; }
    f[0] = e1[1] * e2[2] - e1[2] * e2[1];
    f[1] = e1[2] * e2[0] - e1[0] * e2[2];
    f[2] = e1[0] * e2[1] - e1[1] * e2[0];
    for (int k = 0; k < 3; k++) { n[3 * a + k] += f[k]; n[3 * b + k] += f[k]; n[3 * c + k] += f[k]; }
  }
  for (uint32_t v = 0; v < m->vertex_count; v++) {
    float *q = n + 3 * v, l = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
    if (l > 0) { q[0] /= l; q[1] /= l; q[2] /= l; }
    else q[1] = 1.0f;  /* a vertex of no triangle: any unit vector */
  }
  return 1;
}
