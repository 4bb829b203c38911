/* fg_graph: the compiler's driver (recompile_from: the stages of graph_ir.h
 * from the first one whose inputs changed, from one table), profiles and the
 * read-only plan accessors. Each stage lives in its own file and reports
 * through graph_diag.c (problems, plan strings, the vocabulary's names),
 * never back through this one; see fg_graph.h for the contract and
 * docs/internals.md for the stages. */
#include "graph_ir.h"
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fg_graph_profile_by_name(const char *name, fg_graph_profile *out) {
  static const struct { const char *name; fg_graph_profile p; } profiles[] = {
#define ROW(id, pname, align, balign, gran) {pname, {align, balign, gran, 1}},
    FG_PROFILES(ROW)
#undef ROW
  };
  memset(out, 0, sizeof *out);
  for (size_t i = 0; i < sizeof profiles / sizeof *profiles; i++)
    if (!name || !strcmp(name, profiles[i].name)) {  /* NULL: the first, the default */
      *out = profiles[i].p;
      return 0;
    }
  return -1;
}

/* ------------------------------------------------------------ lifecycle -- */
fg_graph *fg_graph_new(const fg_graph_desc *desc) {
  fg_alloc_hooks h = {0};
  if (desc) h = desc->alloc;
  fg_graph *g = fg_malloc(&h, sizeof *g);
  if (!g) return NULL;
  memset(g, 0, sizeof *g);
  g->h = h;
  return g;
}

static void plan_clear(fg_graph *g) {
  g->pstr.n = 0;
  g->inst.n = g->inst_index.n = g->uses.n = g->atts.n = g->edges.n = g->node_edges.n = 0;
  g->logicals.n = g->phys.n = g->phys_index.n = g->touches.n = g->heaps.n = g->order.n = 0;
  g->ir.inst.n = g->ir.use.n = g->ir.edges.n = g->ir.res.n = g->ir.order.n = g->ir.slot_of.n = 0;
  g->ir.nheaps = g->ir.kept = 0;
  g->ir.pk[0].done = g->ir.pk[1].done = 0;
  g->ir.span_declared = 0;
  g->compiled = 0;
  memset(&g->stats, 0, sizeof g->stats);
}

void fg_graph_free(fg_graph *g) {
  if (!g) return;
  fg_alloc_hooks h = g->h;
  for (uint32_t i = 0; i < g->nodes.n; i++) graph_node_free(g, &g->nodes.a[i]);
  for (uint32_t i = 0; i < g->st.n; i++) fg_free(&h, g->st.s[i]);
  fg_free(&h, g->st.s); fg_free(&h, g->st.hash); fg_free(&h, g->st.slots);
  VFREE(&h, g->nodes); VFREE(&h, g->dims); VFREE(&h, g->res); VFREE(&h, g->outputs);
  VFREE(&h, g->externals); VFREE(&h, g->descs); VFREE(&h, g->removed_made);
  fg_free(&h, g->err);
  VFREE(&h, g->pstr); VFREE(&h, g->inst); VFREE(&h, g->inst_index); VFREE(&h, g->uses);
  VFREE(&h, g->atts); VFREE(&h, g->edges); VFREE(&h, g->node_edges); VFREE(&h, g->logicals);
  VFREE(&h, g->phys); VFREE(&h, g->phys_index); VFREE(&h, g->touches); VFREE(&h, g->heaps);
  VFREE(&h, g->order); VFREE(&h, g->items); VFREE(&h, g->item_phys); VFREE(&h, g->offsets);
  VFREE(&h, g->hint);
  VFREE(&h, g->ir.inst); VFREE(&h, g->ir.use); VFREE(&h, g->ir.edges); VFREE(&h, g->ir.res);
  VFREE(&h, g->ir.order); VFREE(&h, g->ir.slot_of); VFREE(&h, g->ir.span); VFREE(&h, g->ir.view);
  for (int k = 0; k < 2; k++) { VFREE(&h, g->ir.pk[k].offset); VFREE(&h, g->ir.pk[k].heaps); }
  graph_async_free(g);
  arena_free(g);
  for (uint32_t i = 0; i < g->pcache.n; i++) fg_pack_cache_free(g->pcache.a[i]);
  VFREE(&h, g->pcache);
  for (uint32_t i = 0; i < g->pcache_alt.n; i++) fg_pack_cache_free(g->pcache_alt.a[i]);
  VFREE(&h, g->pcache_alt);
  fg_free(&h, g);
}

/* ------------------------------------------------------------- errors -- */
const char *fg_graph_error(const fg_graph *g) { return g->err && g->errlen ? g->err : ""; }
int fg_graph_compiled(const fg_graph *g) { return g->compiled; }

/* ------------------------------------------------------------- driver -- */
/* The stages, in execution order (graph_stage), each with the stats field
 * its time goes to. A stage runs between an arena checkpoint and its
 * release: its scratch is gone when it returns, so what a later stage reads
 * is only what it wrote into the IR. */
typedef struct stage_row {
  const char *name;
  int (*run)(fg_graph *g, graph_names *c);
  size_t stat;  /* offsetof(fg_graph_stats, ns_...) */
} stage_row;

static const stage_row stages[GRAPH_STAGE_COUNT] = {
  [GRAPH_STAGE_VALIDATE] = {"validate", graph_validate, offsetof(fg_graph_stats, ns_validate)},
  [GRAPH_STAGE_ORDER] = {"order", graph_order, offsetof(fg_graph_stats, ns_order)},
  [GRAPH_STAGE_EXPAND] = {"expand", graph_expand, offsetof(fg_graph_stats, ns_expand)},
  [GRAPH_STAGE_SIZE] = {"size", graph_size, offsetof(fg_graph_stats, ns_size)},
  [GRAPH_STAGE_SCHEDULE] = {"schedule", graph_schedule, offsetof(fg_graph_stats, ns_schedule)},
  [GRAPH_STAGE_LIFETIMES] = {"lifetimes", graph_lifetimes, offsetof(fg_graph_stats, ns_lifetime)},
  [GRAPH_STAGE_PACK] = {"pack", graph_pack, offsetof(fg_graph_stats, ns_pack)},
  [GRAPH_STAGE_PUBLISH] = {"publish", graph_publish, offsetof(fg_graph_stats, ns_publish)},
};

/* The stage's time field. A stage that does another's work moves the time
 * it took there (SCHEDULE's trial packing of the declared order counts as
 * PACK's, as PACK then adopts it): the driver adds each stage's own time. */
static uint64_t *stage_ns(fg_graph *g, int s) { return (uint64_t *)((char *)&g->stats + stages[s].stat); }

uint32_t fg_graph_stage_count(void) { return GRAPH_STAGE_COUNT; }
const char *fg_graph_stage_name(uint32_t s) { return s < GRAPH_STAGE_COUNT ? stages[s].name : NULL; }
uint64_t fg_graph_stage_ns(const fg_graph_stats *st, uint32_t s) {
  return s < GRAPH_STAGE_COUNT ? *(const uint64_t *)((const char *)st + stages[s].stat) : 0;
}

/* Entering at a stage runs it and every later one. Entry points used:
 * VALIDATE (declarations or dimension counts changed: a fresh plan) and
 * SIZE (only extents changed: ids, instances, the order and the lifetimes
 * stay, the previous offsets warm-start the packer). The per-name tables
 * VALIDATE builds live for the run (ORDER and EXPAND read them). */
static int recompile_from(fg_graph *g, graph_stage from) {
  uint64_t t0 = fg_now_ns();
  graph_names c;
  memset(&c, 0, sizeof c);
  int rc = 0;
  if (from == GRAPH_STAGE_VALIDATE) {
    plan_clear(g);
    graph_problems_reset(g);
    if (g->oom) { graph_problem(g, "out of memory while declaring the graph"); return -1; }
    rc = graph_names_init(g, &c);
  }
  g->replan = from != GRAPH_STAGE_VALIDATE;
  for (int s = from; s < GRAPH_STAGE_COUNT; s++) *stage_ns(g, s) = 0;
  for (int s = from; s < GRAPH_STAGE_COUNT && !rc; s++) {
    arena_mark m = arena_checkpoint(g);
    uint64_t t = fg_now_ns();
    rc = stages[s].run(g, &c);
    arena_release(g, m);
    *stage_ns(g, s) += fg_now_ns() - t;
  }
  g->replan = 0;
  graph_names_free(g, &c);
  if (rc) plan_clear(g);
  else g->compiled = 1;
  /* as before: a failed re-plan leaves ns_total 0, a failed compile reports its time */
  if (!rc || from == GRAPH_STAGE_VALIDATE) g->stats.ns_total = fg_now_ns() - t0;
  return rc;
}

int fg_graph_compile(fg_graph *g, const fg_graph_compile_desc *desc) {
  fg_graph_compile_desc d;
  memset(&d, 0, sizeof d);
  if (desc) d = *desc;
  if (d.solver) {
    snprintf(g->solver, sizeof g->solver, "%s", d.solver);
    d.solver = g->solver;
  }
  if (!d.profile.alignment && !d.profile.granularity && !d.profile.buffer_alignment)
    fg_graph_profile_by_name(NULL, &d.profile);  /* the default profile, FG_PROFILES' first */
  g->cdesc = d;
  return recompile_from(g, GRAPH_STAGE_VALIDATE);
}

int fg_graph_recompile(fg_graph *g) { return recompile_from(g, GRAPH_STAGE_VALIDATE); }

int fg_graph_set_resolution(fg_graph *g, const char *name, uint32_t w, uint32_t h) {
  graph_problems_reset(g);
  uint32_t id = graph_find_name(g, name);
  uint32_t r = NONE;
  for (uint32_t i = 0; id != NONE && i < g->res.n; i++) if (g->res.a[i].name == id) r = i;
  if (r == NONE) {
    graph_problem(g, "set_resolution: unknown resolution '%s'", name ? name : "(null)");
    return -1;
  }
  if (!w || !h) {
    graph_problem(g, "set_resolution '%s': width and height must be positive (got %ux%u)", name, w, h);
    return -1;
  }
  g->res.a[r].w = w;
  g->res.a[r].h = h;
  if (!g->compiled) return 0;
  return recompile_from(g, GRAPH_STAGE_SIZE);
}

int fg_graph_get_resolution(const fg_graph *g, const char *name, uint32_t *width, uint32_t *height) {
  uint32_t id = graph_find_name(g, name);
  for (uint32_t i = 0; id != NONE && i < g->res.n; i++)
    if (g->res.a[i].name == id) {
      *width = g->res.a[i].w;
      *height = g->res.a[i].h;
      return 0;
    }
  return -1;
}

int fg_graph_set_dimension(fg_graph *g, const char *name, uint32_t count) {
  graph_problems_reset(g);
  uint32_t d = fg_graph_dimension_index(g, name);
  if (d == NONE) {
    graph_problem(g, "set_dimension: unknown dimension '%s'", name ? name : "(null)");
    return -1;
  }
  if (!count) {
    graph_problem(g, "set_dimension '%s': count must be a positive integer", name);
    return -1;
  }
  g->dims.a[d].count = count;
  if (!g->compiled) return 0;
  return recompile_from(g, GRAPH_STAGE_VALIDATE);
}

/* ---------------------------------------------------------- accessors -- */
uint32_t fg_graph_dim_count(const fg_graph *g) { return g->dims.n; }
const char *fg_graph_dim_name(const fg_graph *g, uint32_t d) { return d < g->dims.n ? S(g, g->dims.a[d].name) : NULL; }
uint32_t fg_graph_dim_size(const fg_graph *g, uint32_t d) { return d < g->dims.n ? g->dims.a[d].count : 0; }
uint32_t fg_graph_node_count(const fg_graph *g) { return g->nodes.n; }

int fg_graph_node_get(const fg_graph *g, uint32_t ni, fg_graph_node_info *out) {
  if (ni >= g->nodes.n) return -1;
  const node *n = &g->nodes.a[ni];
  memset(out, 0, sizeof *out);
  out->name = S(g, n->name);
  out->state = n->removed ? FG_NODE_REMOVED : (fg_node_state)n->state;
  out->reason = g->compiled ? PS(g, n->reason) : "";
  out->mode = n->mode;
  out->instance_count = g->compiled ? n->inst_count : 0;
  out->first_instance = NONE;
  out->moved = "";
  for (uint32_t k = 0; g->compiled && k < n->inst_count; k++) {
    uint32_t s = g->ir.slot_of.a[n->inst_first + k];
    if (out->first_instance == NONE || s < out->first_instance) out->first_instance = s;
    if (s != g->ir.slot_of.a[n->inst_first] + k) out->interleaved = 1;
    if (!out->moved[0]) out->moved = g->inst.a[s].moved;
  }
  out->side_effects = n->side_effects;
  out->has_pass = n->colors.n || n->has_depth;
  out->user = n->user;
  return 0;
}

uint32_t fg_graph_node_instance_slot(const fg_graph *g, uint32_t ni, uint32_t k) {
  if (!g->compiled || ni >= g->nodes.n || k >= g->nodes.a[ni].inst_count) return NONE;
  return g->ir.slot_of.a[g->nodes.a[ni].inst_first + k];
}

uint32_t fg_graph_instance_count(const fg_graph *g) { return g->compiled ? g->inst.n : 0; }
const fg_graph_instance *fg_graph_instance_get(const fg_graph *g, uint32_t s) {
  return g->compiled && s < g->inst.n ? &g->inst.a[s] : NULL;
}
uint32_t fg_graph_edge_count(const fg_graph *g) { return g->compiled ? g->edges.n / 2 : 0; }
int fg_graph_edge_get(const fg_graph *g, uint32_t i, uint32_t *from, uint32_t *to) {
  if (!g->compiled || i >= g->edges.n / 2) return -1;
  *from = g->edges.a[2 * i];
  *to = g->edges.a[2 * i + 1];
  return 0;
}
uint32_t fg_graph_resource_count(const fg_graph *g) { return g->compiled ? g->phys.n : 0; }
const fg_graph_resource *fg_graph_resource_get(const fg_graph *g, uint32_t id) {
  return g->compiled && id < g->phys.n ? &g->phys.a[id] : NULL;
}
uint32_t fg_graph_logical_count(const fg_graph *g) { return g->compiled ? g->logicals.n : 0; }
const char *fg_graph_logical_name(const fg_graph *g, uint32_t l) {
  return g->compiled && l < g->logicals.n ? S(g, g->logicals.a[l].name) : NULL;
}
uint32_t fg_graph_physical(const fg_graph *g, uint32_t l, uint32_t frame, const uint32_t *index) {
  if (!g->compiled || l >= g->logicals.n || frame > 1) return NONE;
  const logical *L = &g->logicals.a[l];
  if (L->phys_base == NONE) return NONE;
  uint32_t zero[FG_GRAPH_MAX_DIMS] = {0};
  return L->phys_base + mux_of(g, L->mode, index ? index : zero) * 2 + frame;
}
uint32_t fg_graph_heap_count(const fg_graph *g) { return g->compiled ? g->heaps.n : 0; }
const fg_graph_heap *fg_graph_heap_get(const fg_graph *g, uint32_t h) {
  return g->compiled && h < g->heaps.n ? &g->heaps.a[h] : NULL;
}

void fg_graph_get_stats(const fg_graph *g, fg_graph_stats *out) {
  *out = g->stats;
  out->heap_count = g->compiled ? g->heaps.n : 0;
  out->nodes_active = out->nodes_culled = out->nodes_broken = 0;
  for (uint32_t i = 0; g->compiled && i < g->nodes.n; i++) {
    const node *n = &g->nodes.a[i];
    if (n->removed) continue;
    if (n->state == FG_NODE_ACTIVE) out->nodes_active++;
    else if (n->state == FG_NODE_CULLED) out->nodes_culled++;
    else if (n->state == FG_NODE_BROKEN) out->nodes_broken++;
  }
  out->instances = g->compiled ? g->inst.n : 0;
  out->period = 2 * out->instances;
  out->resources = g->compiled ? g->phys.n : 0;
  out->edges = g->compiled ? g->edges.n / 2 : 0;
}
