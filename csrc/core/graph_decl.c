/* fg_graph declarations: the interned string table and the declaration API
 * (dimensions, resolutions, outputs, externals, nodes and their requests).
 * Nothing here checks a declaration against another: graph_validate.c does,
 * at compile time, so every problem is reported at once. */
#include "graph_ir.h"
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ strings -- */
static uint32_t hash_str(const char *s) {
  uint32_t h = 2166136261u;
  while (*s) h = (h ^ (uint8_t)*s++) * 16777619u;
  return h;
}

static uint32_t st_find(const strtab *t, const char *s) {
  if (!t->nslots || !s) return NONE;
  uint32_t h = hash_str(s), m = t->nslots - 1;
  for (uint32_t i = h & m;; i = (i + 1) & m) {
    uint32_t v = t->slots[i];
    if (!v) return NONE;
    if (t->hash[v - 1] == h && strcmp(t->s[v - 1], s) == 0) return v - 1;
  }
}

uint32_t graph_intern(fg_graph *g, const char *s) {
  if (!s) return NONE;
  strtab *t = &g->st;
  uint32_t id = st_find(t, s);
  if (id != NONE) return id;
  if ((t->n + 1) * 2 > t->nslots) {
    uint32_t ns = t->nslots ? t->nslots * 2 : 64;
    uint32_t *slots = fg_malloc(&g->h, ns * sizeof(uint32_t));
    if (!slots) { g->oom = 1; return NONE; }
    memset(slots, 0, ns * sizeof(uint32_t));
    for (uint32_t i = 0; i < t->n; i++) {
      uint32_t j = t->hash[i] & (ns - 1);
      while (slots[j]) j = (j + 1) & (ns - 1);
      slots[j] = i + 1;
    }
    fg_free(&g->h, t->slots);
    t->slots = slots;
    t->nslots = ns;
  }
  if (t->n == t->cap) {
    uint32_t nc = t->cap ? t->cap * 2 : 32;
    char **s2 = fg_realloc(&g->h, t->s, nc * sizeof(char *));
    if (!s2) { g->oom = 1; return NONE; }
    t->s = s2;
    uint32_t *h2 = fg_realloc(&g->h, t->hash, nc * sizeof(uint32_t));
    if (!h2) { g->oom = 1; return NONE; }
    t->hash = h2;
    t->cap = nc;
  }
  size_t len = strlen(s);
  char *c = fg_malloc(&g->h, len + 1);
  if (!c) { g->oom = 1; return NONE; }
  memcpy(c, s, len + 1);
  uint32_t h = hash_str(s);
  t->s[t->n] = c;
  t->hash[t->n] = h;
  uint32_t j = h & (t->nslots - 1);
  while (t->slots[j]) j = (j + 1) & (t->nslots - 1);
  t->slots[j] = t->n + 1;
  return t->n++;
}

uint32_t graph_find_name(const fg_graph *g, const char *s) { return st_find(&g->st, s); }

void graph_node_free(fg_graph *g, node *n) {
  VFREE(&g->h, n->mux); VFREE(&g->h, n->decls); VFREE(&g->h, n->after);
  VFREE(&g->h, n->before); VFREE(&g->h, n->colors);
}

/* -------------------------------------------------------- declarations -- */
static int set_dim_or_res(fg_graph *g) { return g->oom ? -1 : 0; }

int fg_graph_add_dimension(fg_graph *g, const char *name, uint32_t count) {
  uint32_t id = graph_intern(g, name);
  if (id == NONE) return -1;
  for (uint32_t i = 0; i < g->dims.n; i++)
    if (g->dims.a[i].name == id) { g->dims.a[i].count = count; return 0; }
  if (g->dims.n >= FG_GRAPH_MAX_DIMS) return -1;
  dim d = {id, count};
  if (VPUSH(&g->h, g->dims, d)) return -1;
  return set_dim_or_res(g);
}

uint32_t fg_graph_dimension_index(const fg_graph *g, const char *name) {
  uint32_t id = st_find(&g->st, name);
  for (uint32_t i = 0; id != NONE && i < g->dims.n; i++) if (g->dims.a[i].name == id) return i;
  return NONE;
}

int fg_graph_add_resolution(fg_graph *g, const char *name, uint32_t w, uint32_t h) {
  uint32_t id = graph_intern(g, name);
  if (id == NONE) return -1;
  for (uint32_t i = 0; i < g->res.n; i++)
    if (g->res.a[i].name == id) { g->res.a[i].w = w; g->res.a[i].h = h; return 0; }
  resolution r = {id, w, h};
  return VPUSH(&g->h, g->res, r);
}

int fg_graph_add_output(fg_graph *g, const char *name) {
  uint32_t id = graph_intern(g, name);
  if (id == NONE) return -1;
  return VPUSH(&g->h, g->outputs, id);
}

static uint32_t add_desc(fg_graph *g, const fg_graph_res_desc *d) {
  res_desc_store s;
  memset(&s, 0, sizeof s);
  if (d) s.d = *d;
  s.resolution = d && d->resolution ? graph_intern(g, d->resolution) : NONE;
  s.d.resolution = NULL;  /* the caller's pointer must not be kept */
  if (VPUSH(&g->h, g->descs, s)) return NONE;
  return g->descs.n - 1;
}

int fg_graph_add_external(fg_graph *g, const char *name, const fg_graph_res_desc *desc) {
  external e = {graph_intern(g, name), add_desc(g, desc)};
  if (e.name == NONE || e.desc == NONE) return -1;
  g->descs.a[e.desc].d.kind = FG_RES_EXTERNAL;
  return VPUSH(&g->h, g->externals, e);
}

static int node_set(fg_graph *g, node *n, const fg_graph_node_desc *d) {
  n->name = graph_intern(g, d->name ? d->name : "");
  n->side_effects = d->side_effects;
  n->user = d->user;
  n->order_hint = d->order_hint;
  n->queue = d->queue;
  n->mux.n = 0;
  for (uint32_t i = 0; i < d->multiplex_count; i++) {
    uint32_t id = graph_intern(g, d->multiplex[i]);
    if (id == NONE || VPUSH(&g->h, n->mux, id)) return -1;
  }
  return g->oom ? -1 : 0;
}

uint32_t fg_graph_add_node(fg_graph *g, const fg_graph_node_desc *d) {
  node n;
  memset(&n, 0, sizeof n);
  if (node_set(g, &n, d) || VPUSH(&g->h, g->nodes, n)) { graph_node_free(g, &n); return NONE; }
  return g->nodes.n - 1;
}

/* What a node made before a hot reload removed or re-declared it: readers
 * left behind are pruned as declared, not taken for misspellings. */
static void remember_made(fg_graph *g, const node *n) {
  for (uint32_t k = 0; k < n->decls.n; k++) {
    const decl *d = &n->decls.a[k];
    uint32_t nm = d->access == FG_ACCESS_CREATE ? d->name : d->access == FG_ACCESS_RENAME ? d->to : NONE;
    if (nm != NONE && VPUSH(&g->h, g->removed_made, nm)) g->oom = 1;
  }
}

int fg_graph_node_reset(fg_graph *g, uint32_t ni, const fg_graph_node_desc *d) {
  if (ni >= g->nodes.n) return -1;
  node *n = &g->nodes.a[ni];
  remember_made(g, n);
  n->decls.n = n->after.n = n->before.n = n->colors.n = 0;
  n->has_depth = 0;
  n->removed = 0;
  return node_set(g, n, d);
}

int fg_graph_node_set_user(fg_graph *g, uint32_t ni, int64_t user) {
  if (ni >= g->nodes.n) return -1;
  g->nodes.a[ni].user = user;
  for (uint32_t s = 0; g->compiled && s < g->inst.n; s++)
    if (g->inst.a[s].node == ni) g->inst.a[s].user = user;
  return 0;
}

int fg_graph_node_set_order_hint(fg_graph *g, uint32_t ni, uint32_t hint) {
  if (ni >= g->nodes.n) return -1;
  g->nodes.a[ni].order_hint = hint;
  return 0;
}

int fg_graph_node_remove(fg_graph *g, uint32_t ni) {
  if (ni >= g->nodes.n) return -1;
  node *n = &g->nodes.a[ni];
  remember_made(g, n);
  n->decls.n = n->after.n = n->before.n = n->colors.n = 0;
  n->has_depth = 0;
  n->removed = 1;
  return 0;
}

uint32_t fg_graph_node_find(const fg_graph *g, const char *name) {
  uint32_t id = st_find(&g->st, name);
  for (uint32_t i = 0; id != NONE && i < g->nodes.n; i++)
    if (g->nodes.a[i].name == id && !g->nodes.a[i].removed) return i;
  return NONE;
}

static int push_decl(fg_graph *g, uint32_t ni, fg_access acc, const char *name, const char *to,
                     fg_usage usage, fg_stage stage, int optional, uint32_t desc) {
  if (ni >= g->nodes.n || (unsigned)usage >= FG_USAGE_COUNT || (unsigned)stage >= FG_STAGE_COUNT) return -1;
  decl d;
  memset(&d, 0, sizeof d);
  d.access = (uint8_t)acc;
  d.usage = (uint8_t)usage;
  d.stage = (uint8_t)stage;
  d.optional = optional ? 1 : 0;
  d.name = graph_intern(g, name);
  d.to = to ? graph_intern(g, to) : NONE;
  d.desc = desc;
  if (d.name == NONE || (to && d.to == NONE)) return -1;
  return VPUSH(&g->h, g->nodes.a[ni].decls, d);
}

int fg_graph_node_create(fg_graph *g, uint32_t ni, const char *name, const fg_graph_res_desc *desc,
                         fg_usage usage, fg_stage stage) {
  uint32_t di = add_desc(g, desc);
  if (di == NONE) return -1;
  return push_decl(g, ni, FG_ACCESS_CREATE, name, NULL, usage, stage, 0, di);
}
int fg_graph_node_read(fg_graph *g, uint32_t ni, const char *name, fg_usage usage, fg_stage stage, int optional) {
  return push_decl(g, ni, FG_ACCESS_READ, name, NULL, usage, stage, optional, NONE);
}
int fg_graph_node_modify(fg_graph *g, uint32_t ni, const char *name, fg_usage usage, fg_stage stage) {
  return push_decl(g, ni, FG_ACCESS_MODIFY, name, NULL, usage, stage, 0, NONE);
}
int fg_graph_node_rename(fg_graph *g, uint32_t ni, const char *from, const char *to, fg_usage usage,
                         fg_stage stage) {
  return push_decl(g, ni, FG_ACCESS_RENAME, from, to, usage, stage, 0, NONE);
}
int fg_graph_node_history(fg_graph *g, uint32_t ni, const char *name, fg_usage usage, fg_stage stage,
                          int optional) {
  return push_decl(g, ni, FG_ACCESS_HISTORY, name, NULL, usage, stage, optional, NONE);
}
int fg_graph_node_after(fg_graph *g, uint32_t ni, const char *other) {
  uint32_t id = graph_intern(g, other);
  if (ni >= g->nodes.n || id == NONE) return -1;
  return VPUSH(&g->h, g->nodes.a[ni].after, id);
}
int fg_graph_node_before(fg_graph *g, uint32_t ni, const char *other) {
  uint32_t id = graph_intern(g, other);
  if (ni >= g->nodes.n || id == NONE) return -1;
  return VPUSH(&g->h, g->nodes.a[ni].before, id);
}
int fg_graph_node_color(fg_graph *g, uint32_t ni, const char *name, const float *clear) {
  if (ni >= g->nodes.n) return -1;
  attach_decl a;
  memset(&a, 0, sizeof a);
  a.name = graph_intern(g, name);
  if (a.name == NONE) return -1;
  if (clear) { a.has_clear = 1; memcpy(a.clear, clear, sizeof a.clear); }
  return VPUSH(&g->h, g->nodes.a[ni].colors, a);
}
int fg_graph_node_depth(fg_graph *g, uint32_t ni, const char *name, const float *clear_depth,
                        const uint32_t *clear_stencil) {
  if (ni >= g->nodes.n) return -1;
  attach_decl a;
  memset(&a, 0, sizeof a);
  a.name = graph_intern(g, name);
  if (a.name == NONE) return -1;
  if (clear_depth) { a.has_clear = 1; a.clear[0] = *clear_depth; }
  if (clear_stencil) { a.has_stencil = 1; a.stencil = *clear_stencil; }
  g->nodes.a[ni].depth = a;
  g->nodes.a[ni].has_depth = 1;
  return 0;
}

