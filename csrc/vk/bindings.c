/* Descriptor bindings of a node's dispatch/draw: which descriptor types a
 * declared usage allows, and the access each binding makes (for the barriers
 * between commands of one node); push constants packed by the reflected
 * members. See fg_vk_cmd.h and fg_vk_shader.h. */
#include "fg_vk_cmd.h"
#include "fg_util.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *node_name(const fg_rt *rt, uint32_t slot) {
  return fg_graph_instance_get(fg_rt_graph(rt), slot)->name;
}

const fg_vk_shader_binding *fg_vk_shader_find_binding(const fg_vk_shader_info *si, uint32_t binding) {
  for (uint32_t i = 0; i < si->binding_count; i++)
    if (si->bindings[i].binding == binding) return &si->bindings[i];
  return NULL;
}

/* The access a descriptor type makes and the usage it needs (*need = NULL when
 * `usage` allows it). 0 for descriptor types the runtime does not bind. */
static int descriptor_access(const fg_vk_shader_binding *rb, fg_usage usage, VkAccessFlags2 *acc, const char **need) {
  *need = NULL;
  switch (rb->type) {
    case VK_DESCRIPTOR_TYPE_STORAGE_IMAGE:
      if (usage != FG_USAGE_STORAGE) *need = "storage";
      *acc = VK_ACCESS_2_SHADER_STORAGE_READ_BIT | (rb->readonly ? 0 : VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
      return 1;
    case VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE: case VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER:
      /* Storage images are in GENERAL, depth_read ones in a read-only depth
       * layout: both can be sampled. */
      if (usage != FG_USAGE_SAMPLED && usage != FG_USAGE_STORAGE && usage != FG_USAGE_DEPTH_READ) *need = "sampled";
      *acc = VK_ACCESS_2_SHADER_SAMPLED_READ_BIT;
      return 1;
    case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER:
      if (usage != FG_USAGE_STORAGE) *need = "storage";
      *acc = VK_ACCESS_2_SHADER_STORAGE_READ_BIT | (rb->readonly ? 0 : VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
      return 1;
    case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER:
      if (usage != FG_USAGE_UNIFORM && usage != FG_USAGE_STORAGE) *need = "uniform";
      *acc = VK_ACCESS_2_UNIFORM_READ_BIT;
      return 1;
    default:
      return 0;
  }
}

static int is_image_descriptor(VkDescriptorType t) {
  return t == VK_DESCRIPTOR_TYPE_STORAGE_IMAGE || t == VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE ||
         t == VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
}

int fg_rt_bind_use(fg_rt *rt, VkCommandBuffer cmd, uint32_t slot, uint32_t use, const char *name,
                   const fg_vk_shader_info *si, const fg_vk_shader_binding *rb, int nearest, const char *what,
                   fg_vk_binding *out, char *err, size_t errlen) {
  const fg_graph_use *us = &fg_graph_instance_get(fg_rt_graph(rt), slot)->uses[use];
  fg_rt_res *r = fg_rt_resource(rt, fg_rt_use_phys(rt, slot, use));
  int bnum = (int)rb->binding;
  int declared_write = us->access == FG_ACCESS_CREATE || us->access == FG_ACCESS_MODIFY || us->access == FG_ACCESS_RENAME;
  VkAccessFlags2 acc = 0;
  const char *need;
  if (!descriptor_access(rb, us->usage, &acc, &need)) {
    fg_errf(err, errlen, "node '%s': %s binding %d of shader '%s' has a descriptor type the runtime does not bind",
            node_name(rt, slot), what, bnum, si->name);
    return -1;
  }
  if (need && us->access != FG_ACCESS_HISTORY) {
    /* The node also reads last frame's copy with a usage this binding
     * allows: the binding meant that copy, and only history = true binds it. */
    const fg_graph_instance *in = fg_graph_instance_get(fg_rt_graph(rt), slot);
    for (uint32_t u = 0; u < in->use_count; u++) {
      const fg_graph_use *h = &in->uses[u];
      VkAccessFlags2 hacc;
      const char *hneed;
      if (h->access != FG_ACCESS_HISTORY || strcmp(h->name, us->name) || !descriptor_access(rb, h->usage, &hacc, &hneed) ||
          hneed)
        continue;
      fg_errf(err, errlen, "node '%s': %s binds '%s' at binding %d as %s: that is this frame's '%s' (usage '%s'); "
              "to bind the previous frame's copy the node reads with history, write {[%d] = {\"%s\", history = true}}",
              node_name(rt, slot), what, name, bnum, need, name, fg_usage_name(us->usage), bnum, name);
      return -1;
    }
  }
  if (need) {
    fg_errf(err, errlen, "node '%s': %s binds '%s' at binding %d as %s, but the node declares it with usage '%s'; "
            "declare it with usage '%s'", node_name(rt, slot), what, name, bnum, need, fg_usage_name(us->usage), need);
    return -1;
  }
  if (fg_rt_access_is_write(acc) && !declared_write) {
    fg_errf(err, errlen, "node '%s': %s writes '%s' (binding %d is not readonly in shader '%s') but the node only "
            "reads it; mark the binding readonly in GLSL or declare the resource in modify",
            node_name(rt, slot), what, name, bnum, si->name);
    return -1;
  }
  memset(out, 0, sizeof *out);
  out->binding = rb->binding;
  out->sampler = nearest ? fg_rt_device(rt)->sampler_nearest : VK_NULL_HANDLE;
  if (r->is_image) {
    if (!is_image_descriptor(rb->type)) {
      fg_errf(err, errlen, "node '%s': '%s' is a texture but binding %d of '%s' expects a buffer", node_name(rt, slot),
              name, bnum, si->name);
      return -1;
    }
    out->view = r->view;
    out->layout = fg_rt_use_layout(rt, slot, use);
  } else {
    if (rb->type != VK_DESCRIPTOR_TYPE_STORAGE_BUFFER && rb->type != VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER) {
      fg_errf(err, errlen, "node '%s': '%s' is a buffer but binding %d of '%s' expects an image", node_name(rt, slot),
              name, bnum, si->name);
      return -1;
    }
    out->buffer = r->buffer;
  }
  VkPipelineStageFlags2 stage = si->is_compute ? VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT
                                               : VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT;
  if (fg_rt_cmd_in_pass_uncovered(rt, slot, use, stage, acc)) {
    /* e.g. sampling in the fragment shader what was declared depth_read
     * (planned for the depth tests): the barrier before the pass did not
     * wait for this access, and none can be added inside it */
    fg_errf(err, errlen, "node '%s': %s reads '%s' in the fragment shader (binding %d of '%s'), but the node "
            "declares it with usage '%s'%s, planned for another stage; declare it with usage '%s'%s",
            node_name(rt, slot), what, name, bnum, si->name, fg_usage_name(us->usage),
            us->stage != FG_STAGE_DEFAULT ? " and an explicit stage" : "",
            rb->type == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER ? "uniform"
            : rb->type == VK_DESCRIPTOR_TYPE_STORAGE_IMAGE || rb->type == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER ? "storage"
                                                                                                       : "sampled",
            us->stage != FG_STAGE_DEFAULT ? " (and stage = \"fragment\")" : "");
    return -1;
  }
  fg_rt_cmd_access(rt, cmd, slot, use, stage, acc);
  return 0;
}

int fg_rt_bind_upload(fg_rt *rt, uint32_t slot, const fg_vk_shader_info *si, const fg_vk_shader_binding *rb,
                      VkDeviceSize offset, VkDeviceSize size, const char *what, fg_vk_binding *out, char *err,
                      size_t errlen) {
  const VkPhysicalDeviceLimits *lim = &fg_rt_device(rt)->props.limits;
  int bnum = (int)rb->binding;
  if (rb->type == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER) {
    if (!rb->readonly) {
      fg_errf(err, errlen, "node '%s': %s binds an upload at binding %d of shader '%s', which the shader may write; "
              "uploads are read-only for the GPU: mark the binding readonly in GLSL", node_name(rt, slot), what, bnum,
              si->name);
      return -1;
    }
    if (size > lim->maxStorageBufferRange) {
      fg_errf(err, errlen, "node '%s': %s: upload of %d bytes exceeds maxStorageBufferRange (%d)", node_name(rt, slot),
              what, (int)size, (int)lim->maxStorageBufferRange);
      return -1;
    }
  } else if (rb->type == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER) {
    if (size > lim->maxUniformBufferRange) {
      fg_errf(err, errlen, "node '%s': %s: upload of %d bytes bound as uniform buffer %d exceeds "
              "maxUniformBufferRange (%d); bind it as a readonly storage buffer", node_name(rt, slot), what, (int)size,
              bnum, (int)lim->maxUniformBufferRange);
      return -1;
    }
  } else {
    fg_errf(err, errlen, "node '%s': %s binds an upload at binding %d of shader '%s', which is not a buffer; an upload "
            "binds only as a storage or uniform buffer (copy it into a texture with cmd:copy)", node_name(rt, slot),
            what, bnum, si->name);
    return -1;
  }
  memset(out, 0, sizeof *out);
  out->binding = rb->binding;
  out->buffer = fg_rt_upload_buffer(rt);
  out->offset = offset;
  out->range = size;
  return 0;
}

int fg_rt_cmd_dispatch(fg_rt *rt, VkCommandBuffer cmd, fg_vk_shader *s, const fg_vk_binding *b, uint32_t n,
                       const uint32_t groups[3], const void *push, uint32_t push_bytes, char *err, size_t errlen) {
  return fg_vk_cmd_dispatch(fg_rt_device(rt), cmd, s, b, n, groups[0], groups[1], groups[2], push, push_bytes, err,
                            errlen) ? 0 : -1;
}

/* The pass's attachment formats, and the viewport over its render area (the
 * first attachment's extent, as the runtime began it). */
static uint32_t pass_target(fg_rt *rt, VkCommandBuffer cmd, uint32_t slot, VkFormat colors[FG_VK_MAX_COLOR],
                            VkFormat *depth) {
  const fg_graph_instance *in = fg_graph_instance_get(fg_rt_graph(rt), slot);
  uint32_t nc = 0;
  uint32_t w = 0, h = 0;
  for (uint32_t k = 0; k < in->color_count && nc < FG_VK_MAX_COLOR; k++) {
    fg_rt_res *r = fg_rt_resource(rt, fg_rt_use_phys(rt, slot, in->colors[k].use));
    colors[nc++] = r ? r->format : VK_FORMAT_UNDEFINED;
    if (r && !w) { w = r->width; h = r->height; }
  }
  *depth = VK_FORMAT_UNDEFINED;
  if (in->has_depth) {
    fg_rt_res *r = fg_rt_resource(rt, fg_rt_use_phys(rt, slot, in->depth.use));
    if (r) { *depth = r->format; if (!w) { w = r->width; h = r->height; } }
  }
  fg_vk_cmd_viewport(cmd, w, h);
  return nc;
}

int fg_rt_cmd_draw(fg_rt *rt, VkCommandBuffer cmd, uint32_t slot, fg_vk_shader *s, const fg_vk_binding *b,
                   uint32_t n, uint32_t vertices, const void *push, uint32_t push_bytes, char *err, size_t errlen) {
  VkFormat colors[FG_VK_MAX_COLOR], depth;
  uint32_t nc = pass_target(rt, cmd, slot, colors, &depth);
  return fg_vk_cmd_draw(fg_rt_device(rt), cmd, s, b, n, vertices, push, push_bytes, colors, nc, depth, err, errlen)
             ? 0 : -1;
}

int fg_rt_cmd_draw_indexed(fg_rt *rt, VkCommandBuffer cmd, uint32_t slot, fg_vk_shader *s, const fg_vk_binding *b,
                           uint32_t n, const fg_vk_index_stream *ix, const fg_vk_vertex_stream *vs, uint32_t nvs,
                           const void *push, uint32_t push_bytes, char *err, size_t errlen) {
  VkFormat colors[FG_VK_MAX_COLOR], depth;
  uint32_t nc = pass_target(rt, cmd, slot, colors, &depth);
  return fg_vk_cmd_draw_indexed(fg_rt_device(rt), cmd, s, b, n, ix, vs, nvs, push, push_bytes, colors, nc, depth,
                                err, errlen) ? 0 : -1;
}

/* ------------------------------------------------------ push constants -- */
uint32_t fg_vk_push_scalars(const fg_vk_push_member *m) {
  return (uint32_t)m->comps * m->cols * (m->array_len ? m->array_len : 1);
}

int fg_vk_shader_block(const fg_vk_shader_info *si, int binding, fg_vk_block *out) {
  memset(out, 0, sizeof *out);
  out->shader = si->name;
  if (binding < 0) {
    out->name = si->push_block;
    out->what = "push constants";
    out->bytes = si->push_bytes;
    out->count = si->push_member_count;
    out->members = si->push_members;
    return si->push_bytes > 0;
  }
  const fg_vk_shader_binding *b = fg_vk_shader_find_binding(si, (uint32_t)binding);
  if (!b || b->type != VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER || !b->block_bytes) return 0;
  snprintf(out->what_buf, sizeof out->what_buf, "uniform buffer %d", binding);
  out->what = out->what_buf;
  out->name = b->block_name;
  out->bytes = b->block_bytes;
  out->count = b->block_count;
  out->members = si->block_members + b->block_first;
  return 1;
}

const fg_vk_push_member *fg_vk_push_find(const fg_vk_block *b, const char *name) {
  for (uint32_t i = 0; name && name[0] && i < b->count; i++)
    if (!strcmp(b->members[i].name, name)) return &b->members[i];
  return NULL;
}

/* byte offset of scalar k inside the block */
static uint32_t scalar_offset(const fg_vk_push_member *m, uint32_t k) {
  uint32_t per = (uint32_t)m->comps * m->cols, e = k / per, c = (k % per) / m->comps, r = k % m->comps;
  return m->offset + e * m->array_stride + c * m->matrix_stride + r * m->width;
}

const fg_vk_push_member *fg_vk_push_at(const fg_vk_block *b, uint32_t off, uint32_t *k) {
  for (uint32_t i = 0; i < b->count; i++) {
    const fg_vk_push_member *m = &b->members[i];
    if (off < m->offset || off >= m->offset + m->size) continue;
    if (m->scalar == FG_VK_PUSH_OTHER) { *k = 0; return m; }
    for (uint32_t q = 0, n = fg_vk_push_scalars(m); q < n; q++) {
      uint32_t at = scalar_offset(m, q);
      if (off >= at && off < at + m->width) { *k = q; return m; }
    }
  }
  return NULL;
}

const char *fg_vk_push_type_name(const fg_vk_push_member *m, char *buf, size_t len) {
  static const char *const scal[] = {"float", "int", "uint", "bool", "struct"};
  static const char *const pre[] = {"", "i", "u", "b", ""};
  const char *s = scal[m->scalar < 5 ? m->scalar : 4], *p = pre[m->scalar < 5 ? m->scalar : 4];
  if (m->scalar == FG_VK_PUSH_FLOAT && m->width == 8) { s = "double"; p = "d"; }
  char base[32];
  if (m->scalar == FG_VK_PUSH_OTHER) snprintf(base, sizeof base, "struct");
  else if (m->cols > 1 && m->cols == m->comps) snprintf(base, sizeof base, "%smat%u", p, m->cols);
  else if (m->cols > 1) snprintf(base, sizeof base, "%smat%ux%u", p, m->cols, m->comps);
  else if (m->comps > 1) snprintf(base, sizeof base, "%svec%u", p, m->comps);
  else snprintf(base, sizeof base, "%s", s);
  if (m->array_len) snprintf(buf, len, "%s[%u]", base, m->array_len);
  else snprintf(buf, len, "%s", base);
  return buf;
}

int fg_vk_push_put(const fg_vk_block *b, const fg_vk_push_member *m, uint32_t k, double v, uint8_t *block,
                   char *err, size_t errlen) {
  char ty[48];
  const char *mn = m->name[0] ? m->name : "(unnamed)";
  if (m->scalar == FG_VK_PUSH_OTHER) {
    fg_errf(err, errlen, "%s member '%s' of shader '%s' is a %s; values can only fill numbers, vectors, matrices "
            "and their arrays: give the whole block as a string of bytes (string.pack)", b->what, mn, b->shader,
            fg_vk_push_type_name(m, ty, sizeof ty));
    return -1;
  }
  uint32_t n = fg_vk_push_scalars(m), at;
  if (k >= n || (at = scalar_offset(m, k)) + m->width > b->bytes) {
    fg_errf(err, errlen, "%s member '%s' of shader '%s' (%s) takes %u numbers, got more", b->what, mn, b->shader,
            fg_vk_push_type_name(m, ty, sizeof ty), n);
    return -1;
  }
  if (m->scalar == FG_VK_PUSH_FLOAT) {  /* integers are converted, never reinterpreted */
    if (m->width == 8) memcpy(block + at, &v, 8);
    else { float f = (float)v; memcpy(block + at, &f, 4); }
    return 0;
  }
  double lo = m->scalar == FG_VK_PUSH_INT ? (m->width == 8 ? -9223372036854775808.0 : -2147483648.0) : 0.0;
  double hi = m->scalar == FG_VK_PUSH_BOOL ? 1.0
            : m->scalar == FG_VK_PUSH_INT ? (m->width == 8 ? 9223372036854775807.0 : 2147483647.0)
                                          : (m->width == 8 ? 18446744073709551615.0 : 4294967295.0);
  if (v != floor(v) || v < lo || v > hi) {
    fg_errf(err, errlen, "%s member '%s' of shader '%s' is a %s: %g is not a%s whole number%s", b->what, mn, b->shader,
            fg_vk_push_type_name(m, ty, sizeof ty), v, m->scalar == FG_VK_PUSH_UINT ? " non-negative" : "",
            m->scalar == FG_VK_PUSH_BOOL ? " (use true/false, 1 or 0)" : " in its range");
    return -1;
  }
  if (m->width == 8) {
    if (m->scalar == FG_VK_PUSH_INT) { int64_t x = (int64_t)v; memcpy(block + at, &x, 8); }
    else { uint64_t x = (uint64_t)v; memcpy(block + at, &x, 8); }
  } else if (m->scalar == FG_VK_PUSH_INT) {
    int32_t x = (int32_t)v;
    memcpy(block + at, &x, 4);
  } else {
    uint32_t x = (uint32_t)v;
    memcpy(block + at, &x, 4);
  }
  return 0;
}
