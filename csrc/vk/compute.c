/* One-shot compute runs on dedicated buffers (dev:compute). See
 * fg_vk_compute_run in fg_vk_shader.h. */
#include "fg_vk_shader.h"
#include "fg_util.h"
#include <stdlib.h>
#include <string.h>

typedef struct compute_job {
  fg_vk_device *dev;
  fg_vk_shader *s;
  fg_vk_binding *b;
  uint32_t n;
  const uint32_t *g;
  const void *push;
  uint32_t push_bytes;
  int ok;
  char err[1024];
} compute_job;

static void rec_compute(VkCommandBuffer cmd, void *u) {
  compute_job *j = u;
  j->ok = fg_vk_cmd_dispatch(j->dev, cmd, j->s, j->b, j->n, j->g[0], j->g[1], j->g[2], j->push, j->push_bytes,
                             j->err, sizeof j->err);
}

/* Creates and fills the buffers; 1, or 0 with err (*made: how many exist). */
static int make_buffers(fg_vk_device *dev, const fg_vk_compute_buffer *in, uint32_t n, fg_vk_buffer *bufs,
                        fg_vk_binding *b, uint32_t *made, char *err, size_t errlen) {
  VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT |
                             VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  for (*made = 0; *made < n; (*made)++) {
    uint32_t i = *made;
    if (!fg_vk_buffer_create(dev, in[i].size, usage, &bufs[i], err, errlen)) return 0;
    void *zeros = in[i].data ? NULL : fg_vk_calloc(dev, 1, in[i].size);
    int ok = fg_vk_write_buffer(dev, bufs[i].buffer, 0, in[i].data ? in[i].data : zeros, in[i].size,
                                VK_PIPELINE_STAGE_2_NONE, 0, err, errlen);
    fg_vk_free(dev, zeros);
    b[i] = (fg_vk_binding){.binding = in[i].binding, .buffer = bufs[i].buffer};
    if (!ok) { (*made)++; return 0; }
  }
  return 1;
}

int fg_vk_compute_run(fg_vk_device *dev, fg_vk_shader *s, fg_vk_compute_buffer *in, uint32_t n,
                      const uint32_t groups[3], const void *push, uint32_t push_bytes, char *err, size_t errlen) {
  if (n > FG_VK_MAX_BINDINGS) {
    fg_errf(err, errlen, "dev:compute: more than %d buffers", FG_VK_MAX_BINDINGS);
    return 0;
  }
  fg_vk_binding b[FG_VK_MAX_BINDINGS];
  fg_vk_buffer bufs[FG_VK_MAX_BINDINGS];
  memset(bufs, 0, sizeof bufs);
  for (uint32_t i = 0; i < n; i++) in[i].result = NULL;
  uint32_t made = 0;
  int ok = make_buffers(dev, in, n, bufs, b, &made, err, errlen);
  if (ok) {
    compute_job j = {.dev = dev, .s = s, .b = b, .n = n, .g = groups, .push = push, .push_bytes = push_bytes};
    VkResult r = fg_vk_submit_once(dev, rec_compute, &j);
    if (!j.ok) { ok = 0; fg_errf(err, errlen, "%s", j.err); }
    else if (r != VK_SUCCESS) { ok = 0; fg_errf(err, errlen, "dev:compute: submit failed (VkResult %d)", (int)r); }
  }
  for (uint32_t i = 0; i < n && ok; i++) {
    in[i].result = fg_vk_malloc(dev, in[i].size);
    if (!in[i].result) { ok = 0; fg_errf(err, errlen, "out of memory"); break; }
    ok = fg_vk_read_buffer(dev, bufs[i].buffer, 0, bufs[i].size, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                           VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, in[i].result, err, errlen);
  }
  if (!ok)
    for (uint32_t i = 0; i < n; i++) { fg_vk_free(dev, in[i].result); in[i].result = NULL; }
  for (uint32_t i = 0; i < made; i++) fg_vk_buffer_destroy(dev, &bufs[i]);
  return ok;
}
