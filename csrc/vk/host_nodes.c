/* C node callbacks a host registers by name on its device (framegraph.h,
 * fg_device_register_node), and the call of one inside a node: the node's
 * resources as Vulkan handles in an fg_node_ctx. The registry belongs to the
 * device (no global state); its memory comes from the device's hooks. */
#include "fg_vk_host.h"
#include "fg_vk_runtime.h"
#include <string.h>

typedef struct host_node {
  char *name;
  fg_node_fn fn;
  void *user;
} host_node;

struct fg_host_nodes {
  host_node *v;
  uint32_t n, cap;
};

static host_node *find(const fg_vk_device *dev, const char *name) {
  const struct fg_host_nodes *h = dev->host_nodes;
  for (uint32_t i = 0; h && i < h->n; i++)
    if (!strcmp(h->v[i].name, name)) return &h->v[i];
  return NULL;
}

static void host_nodes_free(fg_vk_device *dev);

int fg_vk_host_register(fg_vk_device *dev, const char *name, fg_node_fn fn, void *user) {
  host_node *e = find(dev, name);
  if (e && fn) { e->fn = fn; e->user = user; return 0; }
  struct fg_host_nodes *h = dev->host_nodes;
  if (e) {  /* removal */
    fg_vk_free(dev, e->name);
    *e = h->v[--h->n];
    return 0;
  }
  if (!fn) return 0;
  if (!h) {
    h = fg_vk_calloc(dev, 1, sizeof *h);
    if (!h) return -1;
    dev->host_nodes = h;
    dev->host_nodes_free = host_nodes_free;
  }
  if (h->n == h->cap) {
    uint32_t cap = h->cap ? h->cap * 2 : 8;
    host_node *v = fg_realloc(&dev->hooks, h->v, cap * sizeof *v);
    if (!v) return -1;
    h->v = v;
    h->cap = cap;
  }
  size_t len = strlen(name) + 1;
  char *copy = fg_vk_malloc(dev, len);
  if (!copy) return -1;
  memcpy(copy, name, len);
  h->v[h->n++] = (host_node){copy, fn, user};
  return 0;
}

static void host_nodes_free(fg_vk_device *dev) {
  struct fg_host_nodes *h = dev->host_nodes;
  if (!h) return;
  for (uint32_t i = 0; i < h->n; i++) fg_vk_free(dev, h->v[i].name);
  fg_vk_free(dev, h->v);
  fg_vk_free(dev, h);
  dev->host_nodes = NULL;
}

uint32_t fg_vk_host_names(const fg_vk_device *dev, const char **names, uint32_t max) {
  const struct fg_host_nodes *h = dev->host_nodes;
  uint32_t n = 0;
  for (uint32_t i = 0; h && i < h->n && n < max; i++) names[n++] = h->v[i].name;
  return n;
}

int fg_vk_host_known(const fg_vk_device *dev, const char *name) { return find(dev, name) != NULL; }

/* Callers keep descriptions small: a node with more uses than this gets its
 * first FG_HOST_MAX_RESOURCES (the rest are still synchronised). */
#define FG_HOST_MAX_RESOURCES 64
#define FG_HOST_MAX_COLORS 8

int fg_vk_host_call(fg_rt *rt, VkCommandBuffer cmd, uint32_t slot, const char *name, const fg_vk_host_args *a,
                    char *err, size_t errlen) {
  fg_vk_device *dev = fg_rt_device(rt);
  host_node *e = find(dev, name);
  if (!e) return 1;
  const fg_graph *g = fg_rt_graph(rt);
  const fg_graph_instance *in = fg_graph_instance_get(g, slot);
  fg_node_resource res[FG_HOST_MAX_RESOURCES];
  VkFormat colors[FG_HOST_MAX_COLORS];
  const char *dims[16];
  uint32_t nd = fg_graph_dim_count(g);
  if (nd > 16) nd = 16;
  for (uint32_t d = 0; d < nd; d++) dims[d] = fg_graph_dim_name(g, d);
  fg_node_ctx ctx = {
    .instance = in->name, .node = in->node_name, .frame = fg_rt_frame_index(rt),
    .dimension_count = nd, .dimension_names = dims, .index = in->index,
    .in_pass = (uint32_t)(in->has_pass != 0), .color_formats = colors, .depth_format = VK_FORMAT_UNDEFINED,
    .resources = res, .arg_count = a ? a->count : 0, .args = a ? a->values : NULL,
    .L = a ? a->L : NULL, .args_index = a ? a->index : 0,
  };
  uint32_t nr = 0;
  for (uint32_t u = 0; u < in->use_count && nr < FG_HOST_MAX_RESOURCES; u++) {
    const fg_graph_use *us = &in->uses[u];
    uint32_t ph = fg_rt_use_phys(rt, slot, u);
    fg_rt_res *r = ph == FG_GRAPH_NONE ? NULL : fg_rt_resource(rt, ph);
    fg_node_resource *o = &res[nr++];
    memset(o, 0, sizeof *o);
    o->name = us->rename_to ? us->rename_to : us->name;
    o->written = us->access != FG_ACCESS_READ;
    if (!r || r->is_blob) continue;
    o->is_image = (uint32_t)r->is_image;
    if (r->is_image) {
      o->image = r->image;
      o->view = r->view;
      o->format = r->format;
      o->aspect = r->aspect;
      o->width = r->width;
      o->height = r->height;
      o->layout = fg_rt_use_layout(rt, slot, u);
    } else {
      o->buffer = r->buffer;
      o->size = r->bytes;
    }
  }
  ctx.resource_count = nr;
  /* the pass's extent and attachment formats */
  for (uint32_t c = 0; in->has_pass && c < in->color_count && c < FG_HOST_MAX_COLORS; c++) {
    uint32_t ph = fg_rt_use_phys(rt, slot, in->colors[c].use);
    fg_rt_res *r = ph == FG_GRAPH_NONE ? NULL : fg_rt_resource(rt, ph);
    colors[ctx.color_count++] = r ? r->format : VK_FORMAT_UNDEFINED;
    if (r && !ctx.width) { ctx.width = r->width; ctx.height = r->height; }
  }
  if (in->has_pass && in->has_depth) {
    uint32_t ph = fg_rt_use_phys(rt, slot, in->depth.use);
    fg_rt_res *r = ph == FG_GRAPH_NONE ? NULL : fg_rt_resource(rt, ph);
    if (r) {
      ctx.depth_format = r->format;
      if (!ctx.width) { ctx.width = r->width; ctx.height = r->height; }
    }
  }
  for (uint32_t i = 0; i < nr && !ctx.width; i++)
    if (res[i].is_image) { ctx.width = res[i].width; ctx.height = res[i].height; }
  (void)err; (void)errlen;
  e->fn(cmd, &ctx, e->user);
  return 0;
}
