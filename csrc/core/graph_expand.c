/* Stage EXPAND: the multiplexed graph, as IR (g->ir), in declared order.
 *   instances: each ordered node once per index of its mode (last mode
 *              dimension fastest), with its uses (usages and stages
 *              defaulted) and pass attachments
 *   edges:     a node edge joins the instances that agree on the dimensions
 *              both nodes share
 *   physical:  two frame copies per multiplex index of every logical
 *              resource some instance uses
 * A use keeps its logical resource and flattened multiplex index; its
 * physical ids follow from them (use_phys). */
#include "graph_ir.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INSTANCES (1u << 24)

/* refuse absurd expansions before allocating them */
static int check_expansion_size(fg_graph *g) {
  uint64_t total = 0;
  for (uint32_t oi = 0; oi < g->order.n; oi++) {
    uint64_t c = 1;
    for (uint32_t d = 0; d < g->dims.n && c <= MAX_INSTANCES; d++)
      if (g->nodes.a[g->order.a[oi]].mode >> d & 1) c *= g->dims.a[d].count;
    total += c;
    if (c > MAX_INSTANCES || total > MAX_INSTANCES) {
      graph_problem(g, "multiplexing expands to more than %u node instances: lower the dimension counts",
                    MAX_INSTANCES);
      return -1;
    }
  }
  return 0;
}

/* usage for a write decl when left default */
static uint8_t default_write_usage(const fg_graph *g, const node *n, const decl *d) {
  if (d->usage != FG_USAGE_NONE) return d->usage;
  if (d->access == FG_ACCESS_CREATE && d->desc != NONE && g->descs.a[d->desc].d.kind == FG_RES_BLOB)
    return FG_USAGE_NONE;
  uint32_t nm = d->name;
  if (is_depth_attachment(n, nm) || (d->to != NONE && is_depth_attachment(n, d->to))) return FG_USAGE_DEPTH;
  if (has_attachment(n, nm) || (d->to != NONE && has_attachment(n, d->to))) return FG_USAGE_COLOR;
  return FG_USAGE_STORAGE;
}

/* "gbuffer[eye=2,tile=1]" (1-based), or the plain node name when mode is {} */
static uint32_t instance_name(fg_graph *g, const node *n, const uint32_t *idx) {
  char buf[256];
  if (!n->mode) {  /* most nodes: the name as it is (at most 255 bytes, as below) */
    const char *s = S(g, n->name);
    size_t len = strlen(s);
    return graph_pstr_put(g, s, len < sizeof buf ? len : sizeof buf - 1);
  }
  size_t o = (size_t)snprintf(buf, sizeof buf, "%s", S(g, n->name));
  if (n->mode) {
    int first = 1;
    o += (size_t)snprintf(buf + o, o < sizeof buf ? sizeof buf - o : 0, "[");
    for (uint32_t d = 0; d < g->dims.n && o < sizeof buf; d++)
      if (n->mode >> d & 1) {
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s=%u", first ? "" : ",", S(g, g->dims.a[d].name), idx[d] + 1);
        first = 0;
      }
    if (o < sizeof buf) snprintf(buf + o, sizeof buf - o, "]");
  }
  return graph_pstr_put(g, buf, strlen(buf));
}

/* One use of one instance. */
static ir_use make_use(const fg_graph *g, const graph_names *c, const node *n, const decl *d, int has_pass,
                       const uint32_t *idx) {
  ir_use u;
  memset(&u, 0, sizeof u);
  u.name = d->name;
  u.to = d->access == FG_ACCESS_RENAME ? d->to : NONE;
  u.access = d->access;
  u.usage = (uint8_t)(d->access == FG_ACCESS_CREATE || d->access == FG_ACCESS_RENAME || d->access == FG_ACCESS_MODIFY
                          ? default_write_usage(g, n, d) : d->usage);
  if (u.usage == FG_USAGE_NONE && d->access != FG_ACCESS_CREATE) {
    /* defaults: blobs none; buffers storage; read depth attachment depth_read; textures sampled */
    uint32_t l0 = c->logical[d->name];
    fg_res_kind k0 = l0 != NONE ? g->descs.a[g->logicals.a[l0].desc].d.kind : FG_RES_TEXTURE;
    int rd = d->access == FG_ACCESS_READ || d->access == FG_ACCESS_HISTORY;
    if (k0 == FG_RES_BUFFER) u.usage = FG_USAGE_STORAGE;
    else if (k0 != FG_RES_BLOB)
      u.usage = !rd ? FG_USAGE_STORAGE : is_depth_attachment(n, d->name) ? FG_USAGE_DEPTH_READ : FG_USAGE_SAMPLED;
  }
  u.stage = (uint8_t)(d->stage != FG_STAGE_DEFAULT ? (fg_stage)d->stage : fg_graph_default_stage((fg_usage)u.usage, has_pass));
  u.optional = d->optional;
  uint32_t l = c->avail[d->name] ? c->logical[d->name] : NONE;
  u.logical = l;
  if (l != NONE && g->descs.a[g->logicals.a[l].desc].d.kind == FG_RES_BLOB) {
    u.usage = FG_USAGE_NONE;  /* CPU data: no GPU usage, host stage */
    u.stage = (uint8_t)(d->stage != FG_STAGE_DEFAULT ? (fg_stage)d->stage : FG_STAGE_HOST);
  }
  u.mux = l != NONE ? mux_of(g, g->logicals.a[l].mode, idx) : NONE;
  return u;
}

/* the attachment's use: the first non-history use of its name (or rename target) */
static fg_graph_attachment make_attachment(const fg_graph *g, const attach_decl *a, uint32_t first_use,
                                           uint32_t use_count) {
  fg_graph_attachment at;
  memset(&at, 0, sizeof at);
  at.use = NONE;
  for (uint32_t u = 0; u < use_count; u++) {
    const ir_use *us = &g->ir.use.a[first_use + u];
    if (us->name == a->name || (us->to != NONE && us->to == a->name)) {
      if (us->access == FG_ACCESS_HISTORY) continue;
      at.use = u;
      break;
    }
  }
  at.has_clear = a->has_clear;
  memcpy(at.clear, a->clear, sizeof at.clear);
  at.has_stencil_clear = a->has_stencil;
  at.clear_stencil = a->stencil;
  return at;
}

/* Appends the instance of node `ni` at multiplex index idx. */
static int push_instance(fg_graph *g, const graph_names *c, uint32_t ni, const uint32_t *idx) {
  const node *n = &g->nodes.a[ni];
  ir_inst in;
  memset(&in, 0, sizeof in);
  in.node = ni;
  in.has_pass = n->colors.n || n->has_depth;
  in.name = instance_name(g, n, idx);
  in.index = g->inst_index.n;
  for (uint32_t d = 0; d < g->dims.n; d++) if (VPUSH(&g->h, g->inst_index, idx[d])) return -1;
  in.use_first = g->ir.use.n;
  for (uint32_t q = 0; q < n->decls.n; q++) {
    const decl *d = &n->decls.a[q];
    if (d->folded) continue;
    ir_use u = make_use(g, c, n, d, in.has_pass, idx);
    if (VPUSH(&g->h, g->ir.use, u)) return -1;
  }
  in.use_count = g->ir.use.n - in.use_first;
  in.att_first = g->atts.n;
  for (uint32_t q = 0; q <= n->colors.n; q++) {
    const attach_decl *a = q < n->colors.n ? &n->colors.a[q] : (n->has_depth ? &n->depth : NULL);
    if (!a) continue;
    fg_graph_attachment at = make_attachment(g, a, in.use_first, in.use_count);
    if (q < n->colors.n) { if (VPUSH(&g->h, g->atts, at)) return -1; }
    else { in.has_depth = 1; in.depth = at; }
  }
  in.color_count = n->colors.n;
  return VPUSH(&g->h, g->ir.inst, in);
}

static int expand_instances(fg_graph *g, const graph_names *c) {
  uint32_t idx[FG_GRAPH_MAX_DIMS];
  for (uint32_t oi = 0; oi < g->order.n; oi++) {
    node *n = &g->nodes.a[g->order.a[oi]];
    n->inst_first = g->ir.inst.n;
    n->inst_count = mode_count(g, n->mode);
    memset(idx, 0, sizeof idx);
    for (uint32_t k = 0; k < n->inst_count; k++) {
      if (push_instance(g, c, g->order.a[oi], idx)) return -1;
      /* next index in mixed radix, last mode dimension fastest */
      for (int d = (int)g->dims.n - 1; d >= 0; d--) {
        if (!(n->mode >> d & 1)) continue;
        if (++idx[d] < g->dims.a[d].count) break;
        idx[d] = 0;
      }
    }
  }
  return 0;
}

/* instance edges: node edge u->v; instances agree on shared dimensions.
 * v's matching instances are enumerated directly (its dimensions outside
 * the shared ones run as an odometer, last fastest, so their flat positions
 * ascend as a scan of every pair would list them): the cost is the edges
 * made, not |u| x |v| (one node multiplexed 65536 times fed by another). */
static int expand_edges(fg_graph *g) {
  uint32_t D = g->dims.n;
  for (uint32_t e = 0; e < g->node_edges.n / 2; e++) {
    const node *a = &g->nodes.a[g->node_edges.a[2 * e]], *b = &g->nodes.a[g->node_edges.a[2 * e + 1]];
    if (!a->inst_count || !b->inst_count) continue;
    uint32_t shared = a->mode & b->mode, free = b->mode & ~shared;
    uint32_t stride[FG_GRAPH_MAX_DIMS], st = 1;
    for (int d = (int)D - 1; d >= 0; d--) {
      stride[d] = st;
      if (b->mode >> d & 1) st *= g->dims.a[d].count;
    }
    for (uint32_t i = 0; i < a->inst_count; i++) {
      const uint32_t *ia = D ? g->inst_index.a + g->ir.inst.a[a->inst_first + i].index : NULL;
      uint32_t base = 0, dig[FG_GRAPH_MAX_DIMS] = {0};
      for (uint32_t d = 0; d < D; d++) if (shared >> d & 1) base += ia[d] * stride[d];
      for (;;) {
        uint32_t j = base;
        for (uint32_t d = 0; d < D; d++) if (free >> d & 1) j += dig[d] * stride[d];
        if (VPUSH(&g->h, g->ir.edges, a->inst_first + i) || VPUSH(&g->h, g->ir.edges, b->inst_first + j)) return -1;
        int d = (int)D - 1;
        for (; d >= 0; d--) {
          if (!(free >> d & 1)) continue;
          if (++dig[d] < g->dims.a[d].count) break;
          dig[d] = 0;
        }
        if (d < 0) break;
      }
    }
  }
  return 0;
}

/* the frame-p copy of logical l at multiplex index ix */
static int push_physical(fg_graph *g, uint32_t l, const uint32_t *ix, uint32_t p) {
  ir_res R;
  memset(&R, 0, sizeof R);
  R.logical = l;
  R.frame = p;
  R.index = g->phys_index.n;
  for (uint32_t d = 0; d < g->dims.n; d++) if (VPUSH(&g->h, g->phys_index, ix[d])) return -1;
  R.heap = NONE;
  R.first_slot = NONE;
  return VPUSH(&g->h, g->ir.res, R);
}

/* physical resources: logicals used by active nodes; ids are
 * phys_base + 2 * flattened index + frame */
static int expand_physical(fg_graph *g) {
  uint32_t NL = g->logicals.n, D = g->dims.n;
  for (uint32_t l = 0; l < NL; l++) { g->logicals.a[l].phys_base = NONE; g->logicals.a[l].mux_count = 0; }
  for (uint32_t u = 0; u < g->ir.use.n; u++)
    if (g->ir.use.a[u].logical != NONE) g->logicals.a[g->ir.use.a[u].logical].mux_count = 1;
  for (uint32_t l = 0; l < NL; l++) {
    logical *L = &g->logicals.a[l];
    if (!L->mux_count) continue;
    L->mux_count = mode_count(g, L->mode);
    L->phys_base = g->ir.res.n;
    for (uint32_t m = 0; m < L->mux_count; m++) {
      /* unflatten m into an index */
      uint32_t ix[FG_GRAPH_MAX_DIMS] = {0}, r = m;
      for (int d = (int)D - 1; d >= 0; d--)
        if (L->mode >> d & 1) { ix[d] = r % g->dims.a[d].count; r /= g->dims.a[d].count; }
      for (uint32_t p = 0; p < 2; p++)
        if (push_physical(g, l, ix, p)) return -1;
    }
  }
  return 0;
}

int graph_expand(fg_graph *g, graph_names *c) {
  if (check_expansion_size(g)) return -1;
  if (expand_instances(g, c)) goto oom;
  if (expand_edges(g) || expand_physical(g)) goto oom;
  for (uint32_t u = 0; u < g->ir.use.n; u++) {  /* the physical ids exist now */
    ir_use *us = &g->ir.use.a[u];
    us->res = us->logical == NONE ? NONE : g->logicals.a[us->logical].phys_base + 2 * us->mux;
  }
  for (uint32_t i = 0; i < g->nodes.n; i++) {
    node *n = &g->nodes.a[i];
    if (n->state != FG_NODE_ACTIVE) n->inst_count = 0;
  }
  return 0;
oom:
  graph_problem(g, "out of memory");
  return -1;
}
