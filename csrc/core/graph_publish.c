/* Stage PUBLISH: the public plan (fg_graph.h's instances, uses, edges,
 * resources and heaps), filled once from the IR, in the order SCHEDULE
 * chose. Every pointer of the plan is made here, into arrays that no longer
 * grow; until the next compile or re-plan the plan is read-only. */
#include "graph_ir.h"
#include <string.h>

static const char R_INDEX[] =
  "memory schedule: runs with the other nodes of its multiplex index (index-major), so one index's "
  "transients are freed before the next index's are made";
static const char R_EARLY[] = "memory schedule: runs earlier, so what it reads last is freed sooner";
static const char R_LATE[] = "memory schedule: runs later, so what it creates is made closer to its readers";

void graph_resource_desc(const fg_graph *g, uint32_t r, fg_graph_resource *R) {
  const ir_res *X = &g->ir.res.a[r];
  const logical *L = &g->logicals.a[X->logical];
  const res_desc_store *s = &g->descs.a[L->desc];
  memset(R, 0, sizeof *R);
  R->id = r;
  R->logical = X->logical;
  R->name = S(g, L->name);
  R->final_name = S(g, L->final_name);
  R->frame = X->frame;
  R->index = g->phys_index.a ? g->phys_index.a + X->index : NULL;  /* no dimensions: no storage */
  R->mode = L->mode;
  R->kind = s->d.kind;
  R->format = s->d.format;
  R->width = X->width;
  R->height = X->height;
  R->depth = s->d.depth ? s->d.depth : 1;
  R->mips = s->d.mips ? s->d.mips : 1;
  R->layers = s->d.layers ? s->d.layers : 1;
  R->bytes = s->d.bytes;
  R->resolution = s->resolution == NONE ? NULL : S(g, s->resolution);
  R->heap = NONE;
  R->history = L->history;
  R->history_policy = L->history ? (s->d.history ? s->d.history : FG_HISTORY_CLEAR) : s->d.history;
  R->is_output = L->is_output;
  R->first_slot = NONE;
}

static int interleaved(const fg_graph *g, const node *n) {
  for (uint32_t k = 1; k < n->inst_count; k++)
    if (g->ir.slot_of.a[n->inst_first + k] != g->ir.slot_of.a[n->inst_first] + k) return 1;
  return 0;
}

static void publish_uses(fg_graph *g) {
  for (uint32_t u = 0; u < g->ir.use.n; u++) {
    const ir_use *x = &g->ir.use.a[u];
    fg_graph_use *us = &g->uses.a[u];
    us->name = S(g, x->name);
    us->rename_to = x->to != NONE ? S(g, x->to) : NULL;
    us->logical = x->logical;
    us->access = (fg_access)x->access;
    us->usage = (fg_usage)x->usage;
    us->stage = (fg_stage)x->stage;
    us->optional = x->optional;
    us->missing = x->logical == NONE;
    us->phys[0] = use_phys(g, x, 0);
    us->phys[1] = use_phys(g, x, 1);
  }
}

static void publish_instances(fg_graph *g) {
  for (uint32_t k = 0; k < g->ir.inst.n; k++) {
    uint32_t s = g->ir.order.a[k];
    const ir_inst *x = &g->ir.inst.a[s];
    const node *n = &g->nodes.a[x->node];
    fg_graph_instance *in = &g->inst.a[k];
    memset(in, 0, sizeof *in);
    in->node = x->node;
    in->node_name = S(g, n->name);
    in->name = PS(g, x->name);
    in->slot = k;
    in->index = g->inst_index.a ? g->inst_index.a + x->index : NULL;
    in->use_count = x->use_count;
    in->uses = g->uses.a ? g->uses.a + x->use_first : NULL;
    in->has_pass = x->has_pass;
    in->color_count = x->color_count;
    in->colors = g->atts.a ? g->atts.a + x->att_first : NULL;
    in->has_depth = x->has_depth;
    in->depth = x->depth;
    in->user = n->user;
    in->declared_slot = s;
    in->moved = k == s ? "" : n->inst_count > 1 && interleaved(g, n) ? R_INDEX : k < s ? R_EARLY : R_LATE;
  }
}

/* replan: only what SIZE and PACK change (the description and the
 * lifetimes are the last compile's) */
static void publish_resources(fg_graph *g, int replan) {
  for (uint32_t r = 0; r < g->ir.res.n; r++) {
    const ir_res *X = &g->ir.res.a[r];
    fg_graph_resource *R = &g->phys.a[r];
    if (replan) {
      R->width = X->width;
      R->height = X->height;
    } else {
      /* the description is its logical resource's, made once by SIZE */
      *R = g->ir.view.a[X->logical];  /* SIZE's description of the first copy */
      if (r != g->logicals.a[X->logical].phys_base) {
        R->id = r;
        R->frame = X->frame;
        R->index = g->phys_index.a ? g->phys_index.a + X->index : NULL;
      }
      R->start = X->start;
      R->stop = X->stop;
      R->first_slot = X->first_slot;
      R->last_slot = X->last_slot;
      R->touch_count = X->touch_count;
      R->touches = g->touches.a ? g->touches.a + X->touch_first : NULL;
    }
    /* what SIZE and PACK give every copy, on a re-plan too */
    R->size = X->size;
    R->alignment = X->alignment;
    R->memory_type_bits = X->memory_type_bits;
    R->mem_kind = X->mem_kind;
    R->heap = X->heap;
    R->offset = X->offset;
    R->group = X->group;
  }
}

int graph_publish(fg_graph *g, graph_names *c) {
  (void)c;
  uint32_t V = g->ir.inst.n, NE = g->ir.edges.n, NP = g->ir.res.n, NU = g->ir.use.n;
  if (vec_grow(&g->h, (void **)&g->inst.a, &g->inst.cap, V, sizeof *g->inst.a) ||
      vec_grow(&g->h, (void **)&g->uses.a, &g->uses.cap, NU, sizeof *g->uses.a) ||
      vec_grow(&g->h, (void **)&g->edges.a, &g->edges.cap, NE, sizeof *g->edges.a) ||
      vec_grow(&g->h, (void **)&g->phys.a, &g->phys.cap, NP, sizeof *g->phys.a)) {
    graph_problem(g, "out of memory");
    return -1;
  }
  if (!g->replan) {  /* a re-plan changes only the resources' memory and the heaps */
    g->inst.n = V;
    g->uses.n = NU;
    g->edges.n = NE;
    publish_uses(g);
    publish_instances(g);
    for (uint32_t i = 0; i < NE; i++) g->edges.a[i] = g->ir.slot_of.a[g->ir.edges.a[i]];
  }
  g->phys.n = NP;
  publish_resources(g, g->replan);
  const graph_packing *P = &g->ir.pk[g->ir.kept];
  g->heaps.n = 0;
  for (uint32_t h = 0; h < P->heaps.n; h++)
    if (VPUSH(&g->h, g->heaps, P->heaps.a[h])) { graph_problem(g, "out of memory"); return -1; }
  return 0;
}
