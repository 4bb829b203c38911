/* fg_graph: declarations -> validated, pruned, ordered, multiplexed plan with
 * lifetimes on the cyclic timeline and a memory placement via fg_pack.
 * See fg_graph.h for the contract and ../shared/DESIGN.md "Lifetimes". */
#include "fg_graph.h"
#include "fg_pack.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE FG_GRAPH_NONE
#define EXTERNAL_CREATOR (UINT32_MAX - 1)

/* ------------------------------------------------------------ vectors -- */
#define VEC(T) struct { T *a; uint32_t n, cap; }
static int vec_grow(const fg_alloc_hooks *h, void **a, uint32_t *cap, uint32_t need, size_t elem) {
  if (need <= *cap) return 0;
  uint32_t nc = *cap ? *cap * 2 : 8;
  while (nc < need) nc *= 2;
  void *p = fg_realloc(h, *a, (size_t)nc * elem);
  if (!p) return -1;
  *a = p;
  *cap = nc;
  return 0;
}
#define VPUSH(h, v, x) \
  (vec_grow((h), (void **)&(v).a, &(v).cap, (v).n + 1, sizeof(*(v).a)) ? -1 : ((v).a[(v).n++] = (x), 0))
#define VFREE(h, v) (fg_free((h), (v).a), (v).a = NULL, (v).n = (v).cap = 0)

/* --------------------------------------------------------------- data -- */
typedef struct decl {
  uint8_t access, usage, stage, optional;
  uint32_t name, to;  /* to: rename target */
  uint32_t desc;      /* create: index into g->descs */
  uint8_t folded;     /* a modify folded into a rename of the same name */
} decl;

typedef struct attach_decl {
  uint32_t name;
  int has_clear, has_stencil;
  float clear[4];
  uint32_t stencil;
} attach_decl;

typedef struct res_desc_store {
  fg_graph_res_desc d;
  uint32_t resolution;  /* interned, NONE */
} res_desc_store;

typedef struct node {
  uint32_t name;
  VEC(uint32_t) mux;   /* dimension name ids */
  int side_effects, removed;
  int64_t user;
  uint32_t order_hint;
  VEC(decl) decls;
  VEC(uint32_t) after, before;
  VEC(attach_decl) colors;
  int has_depth;
  attach_decl depth;
  /* compile state */
  uint32_t mode, state, reason; /* reason: offset into plan strings (NONE = "") */
  uint32_t inst_first, inst_count, order_pos;
} node;

typedef struct external {
  uint32_t name;
  uint32_t desc;
} external;

typedef struct dim { uint32_t name, count; } dim;
typedef struct resolution { uint32_t name, w, h; } resolution;

typedef struct logical {
  uint32_t name, final_name, creator, desc, mode, renamed, renamer_name_from;
  int history, is_output, external;
  uint32_t phys_base, mux_count;
  uint32_t w, h;
} logical;

typedef struct strtab {
  char **s;
  uint32_t *hash;
  uint32_t n, cap;
  uint32_t *slots;  /* open addressing, value = id+1 */
  uint32_t nslots;
} strtab;

struct fg_graph {
  fg_alloc_hooks h;
  strtab st;
  VEC(node) nodes;
  VEC(dim) dims;
  VEC(resolution) res;
  VEC(uint32_t) outputs;
  VEC(external) externals;
  VEC(res_desc_store) descs;
  int oom;
  /* error text */
  char *err;
  size_t errlen, errcap;
  uint32_t nproblems;
  /* compile desc (remembered) */
  fg_graph_compile_desc cdesc;
  char solver[32];
  int compiled;
  /* plan */
  VEC(char) pstr;                 /* plan strings (reasons, instance names) */
  VEC(fg_graph_instance) inst;
  VEC(uint32_t) inst_index;       /* dims per instance */
  VEC(fg_graph_use) uses;
  VEC(fg_graph_attachment) atts;
  VEC(uint32_t) edges;            /* pairs */
  VEC(uint32_t) node_edges;       /* pairs, node level */
  VEC(logical) logicals;
  VEC(fg_graph_resource) phys;
  VEC(uint32_t) phys_index;
  VEC(fg_graph_touch) touches;
  VEC(fg_graph_heap) heaps;
  VEC(uint32_t) order;            /* node ids in order */
  /* packing scratch */
  VEC(fg_pack_item) items;
  VEC(uint32_t) item_phys;
  VEC(uint64_t) offsets;
  VEC(uint64_t) prev_off;         /* set_resolution: offsets of the plan being replaced, per phys */
  VEC(uint64_t) hint;             /* ... and per packed item (fg_pack's offset_hint) */
  VEC(fg_pack_cache *) pcache;    /* per heap: fg_pack's memo of the lifetimes, for re-plans */
  fg_graph_stats stats;
};

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

static uint32_t intern(fg_graph *g, const char *s) {
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

#define S(g, id) ((id) == NONE ? "" : (g)->st.s[id])

/* ------------------------------------------------------------- enums -- */
static const char *const usage_names[FG_USAGE_COUNT] = {FG_USAGES(FG_VOCAB_NAME2)};
static const char *const stage_names[FG_STAGE_COUNT] = {"default", FG_STAGES(FG_VOCAB_NAME2)};

const char *fg_usage_name(fg_usage u) { return (unsigned)u < FG_USAGE_COUNT ? usage_names[u] : "?"; }
int fg_usage_from_name(const char *s) {
  for (int i = 0; s && i < FG_USAGE_COUNT; i++) if (!strcmp(usage_names[i], s)) return i;
  return -1;
}
const char *fg_stage_name(fg_stage s) { return (unsigned)s < FG_STAGE_COUNT ? stage_names[s] : "?"; }
int fg_stage_from_name(const char *s) {
  for (int i = 0; s && i < FG_STAGE_COUNT; i++) if (!strcmp(stage_names[i], s)) return i;
  return -1;
}
const char *fg_access_name(fg_access a) {
  static const char *const n[] = {"create", "modify", "read", "history", "rename"};
  return (unsigned)a < 5 ? n[a] : "?";
}
const char *fg_node_state_name(fg_node_state s) {
  static const char *const n[] = {"active", "culled", "broken", "removed"};
  return (unsigned)s < 4 ? n[s] : "?";
}
fg_stage fg_graph_default_stage(fg_usage u, int has_pass) {
  switch (u) {
  case FG_USAGE_SAMPLED: case FG_USAGE_STORAGE: case FG_USAGE_UNIFORM:
    return has_pass ? FG_STAGE_FRAGMENT : FG_STAGE_COMPUTE;
  case FG_USAGE_COLOR: return FG_STAGE_COLOR_OUTPUT;
  case FG_USAGE_DEPTH: case FG_USAGE_DEPTH_READ: return FG_STAGE_FRAGMENT_TESTS;
  case FG_USAGE_TRANSFER_SRC: case FG_USAGE_TRANSFER_DST: return FG_STAGE_TRANSFER;
  case FG_USAGE_VERTEX: case FG_USAGE_INDEX: return FG_STAGE_VERTEX_INPUT;
  case FG_USAGE_INDIRECT: return FG_STAGE_DRAW_INDIRECT;
  default: return FG_STAGE_HOST;
  }
}

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
  g->compiled = 0;
  memset(&g->stats, 0, sizeof g->stats);
}

static void node_free(fg_graph *g, node *n) {
  VFREE(&g->h, n->mux); VFREE(&g->h, n->decls); VFREE(&g->h, n->after);
  VFREE(&g->h, n->before); VFREE(&g->h, n->colors);
}

void fg_graph_free(fg_graph *g) {
  if (!g) return;
  fg_alloc_hooks h = g->h;
  for (uint32_t i = 0; i < g->nodes.n; i++) node_free(g, &g->nodes.a[i]);
  for (uint32_t i = 0; i < g->st.n; i++) fg_free(&h, g->st.s[i]);
  fg_free(&h, g->st.s); fg_free(&h, g->st.hash); fg_free(&h, g->st.slots);
  VFREE(&h, g->nodes); VFREE(&h, g->dims); VFREE(&h, g->res); VFREE(&h, g->outputs);
  VFREE(&h, g->externals); VFREE(&h, g->descs);
  fg_free(&h, g->err);
  VFREE(&h, g->pstr); VFREE(&h, g->inst); VFREE(&h, g->inst_index); VFREE(&h, g->uses);
  VFREE(&h, g->atts); VFREE(&h, g->edges); VFREE(&h, g->node_edges); VFREE(&h, g->logicals);
  VFREE(&h, g->phys); VFREE(&h, g->phys_index); VFREE(&h, g->touches); VFREE(&h, g->heaps);
  VFREE(&h, g->order); VFREE(&h, g->items); VFREE(&h, g->item_phys); VFREE(&h, g->offsets);
  VFREE(&h, g->prev_off); VFREE(&h, g->hint);
  for (uint32_t i = 0; i < g->pcache.n; i++) fg_pack_cache_free(g->pcache.a[i]);
  VFREE(&h, g->pcache);
  fg_free(&h, g);
}

/* ------------------------------------------------------------- errors -- */
static void err_reset(fg_graph *g) {
  g->errlen = 0;
  g->nproblems = 0;
  if (g->err) g->err[0] = 0;
}

static void problem(fg_graph *g, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  ;
static void problem(fg_graph *g, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  int len = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (len < 0) return;
  if ((size_t)len >= sizeof buf) len = sizeof buf - 1;
  size_t need = g->errlen + (size_t)len + 2;
  if (need > g->errcap) {
    size_t nc = g->errcap ? g->errcap * 2 : 256;
    while (nc < need) nc *= 2;
    char *p = fg_realloc(&g->h, g->err, nc);
    if (!p) return;
    g->err = p;
    g->errcap = nc;
  }
  if (g->nproblems++) g->err[g->errlen++] = '\n';
  memcpy(g->err + g->errlen, buf, (size_t)len + 1);
  g->errlen += (size_t)len;
}

const char *fg_graph_error(const fg_graph *g) { return g->err && g->errlen ? g->err : ""; }
int fg_graph_compiled(const fg_graph *g) { return g->compiled; }

/* plan string arena: returns an offset (pointers fixed up after growth) */
static uint32_t pstr_add(fg_graph *g, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  ;
static uint32_t pstr_add(fg_graph *g, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int len = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (len < 0) len = 0;
  if ((size_t)len >= sizeof buf) len = sizeof buf - 1;
  uint32_t off = g->pstr.n;
  if (vec_grow(&g->h, (void **)&g->pstr.a, &g->pstr.cap, g->pstr.n + (uint32_t)len + 1, 1)) {
    g->oom = 1;
    return NONE;
  }
  memcpy(g->pstr.a + off, buf, (size_t)len + 1);
  g->pstr.n += (uint32_t)len + 1;
  return off;
}
#define PS(g, off) ((off) == NONE ? "" : (g)->pstr.a + (off))

/* -------------------------------------------------------- declarations -- */
static int set_dim_or_res(fg_graph *g) { return g->oom ? -1 : 0; }

int fg_graph_add_dimension(fg_graph *g, const char *name, uint32_t count) {
  uint32_t id = intern(g, name);
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
  uint32_t id = intern(g, name);
  if (id == NONE) return -1;
  for (uint32_t i = 0; i < g->res.n; i++)
    if (g->res.a[i].name == id) { g->res.a[i].w = w; g->res.a[i].h = h; return 0; }
  resolution r = {id, w, h};
  return VPUSH(&g->h, g->res, r);
}

int fg_graph_add_output(fg_graph *g, const char *name) {
  uint32_t id = intern(g, name);
  if (id == NONE) return -1;
  return VPUSH(&g->h, g->outputs, id);
}

static uint32_t add_desc(fg_graph *g, const fg_graph_res_desc *d) {
  res_desc_store s;
  memset(&s, 0, sizeof s);
  if (d) s.d = *d;
  s.resolution = d && d->resolution ? intern(g, d->resolution) : NONE;
  s.d.resolution = NULL;  /* the caller's pointer must not be kept */
  if (VPUSH(&g->h, g->descs, s)) return NONE;
  return g->descs.n - 1;
}

int fg_graph_add_external(fg_graph *g, const char *name, const fg_graph_res_desc *desc) {
  external e = {intern(g, name), add_desc(g, desc)};
  if (e.name == NONE || e.desc == NONE) return -1;
  g->descs.a[e.desc].d.kind = FG_RES_EXTERNAL;
  return VPUSH(&g->h, g->externals, e);
}

static int node_set(fg_graph *g, node *n, const fg_graph_node_desc *d) {
  n->name = intern(g, d->name ? d->name : "");
  n->side_effects = d->side_effects;
  n->user = d->user;
  n->order_hint = d->order_hint;
  n->mux.n = 0;
  for (uint32_t i = 0; i < d->multiplex_count; i++) {
    uint32_t id = intern(g, d->multiplex[i]);
    if (id == NONE || VPUSH(&g->h, n->mux, id)) return -1;
  }
  return g->oom ? -1 : 0;
}

uint32_t fg_graph_add_node(fg_graph *g, const fg_graph_node_desc *d) {
  node n;
  memset(&n, 0, sizeof n);
  if (node_set(g, &n, d) || VPUSH(&g->h, g->nodes, n)) { node_free(g, &n); return NONE; }
  return g->nodes.n - 1;
}

int fg_graph_node_reset(fg_graph *g, uint32_t ni, const fg_graph_node_desc *d) {
  if (ni >= g->nodes.n) return -1;
  node *n = &g->nodes.a[ni];
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
  d.name = intern(g, name);
  d.to = to ? intern(g, to) : NONE;
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
  uint32_t id = intern(g, other);
  if (ni >= g->nodes.n || id == NONE) return -1;
  return VPUSH(&g->h, g->nodes.a[ni].after, id);
}
int fg_graph_node_before(fg_graph *g, uint32_t ni, const char *other) {
  uint32_t id = intern(g, other);
  if (ni >= g->nodes.n || id == NONE) return -1;
  return VPUSH(&g->h, g->nodes.a[ni].before, id);
}
int fg_graph_node_color(fg_graph *g, uint32_t ni, const char *name, const float *clear) {
  if (ni >= g->nodes.n) return -1;
  attach_decl a;
  memset(&a, 0, sizeof a);
  a.name = intern(g, name);
  if (a.name == NONE) return -1;
  if (clear) { a.has_clear = 1; memcpy(a.clear, clear, sizeof a.clear); }
  return VPUSH(&g->h, g->nodes.a[ni].colors, a);
}
int fg_graph_node_depth(fg_graph *g, uint32_t ni, const char *name, const float *clear_depth,
                        const uint32_t *clear_stencil) {
  if (ni >= g->nodes.n) return -1;
  attach_decl a;
  memset(&a, 0, sizeof a);
  a.name = intern(g, name);
  if (a.name == NONE) return -1;
  if (clear_depth) { a.has_clear = 1; a.clear[0] = *clear_depth; }
  if (clear_stencil) { a.has_stencil = 1; a.stencil = *clear_stencil; }
  g->nodes.a[ni].depth = a;
  g->nodes.a[ni].has_depth = 1;
  return 0;
}

/* ---------------------------------------------------------- compile -- */
typedef struct cstate {
  uint32_t nstr;
  uint32_t *creator;     /* per name: node index, EXTERNAL_CREATOR, NONE */
  uint32_t *creator_decl;
  uint32_t *renamer;     /* per name: node renaming it away, NONE */
  uint8_t *avail;
  uint32_t *logical;     /* per name */
  uint32_t *ext_of;      /* per name: external index, NONE */
  uint8_t *is_output;
  uint32_t *node_of;     /* per name: the (non-removed) node with that name, NONE */
} cstate;

static void mode_str(const fg_graph *g, uint32_t mode, char *buf, size_t len) {
  size_t o = 0;
  buf[o++] = '{';
  int first = 1;
  for (uint32_t d = 0; d < g->dims.n && o + 2 < len; d++) {
    if (!(mode >> d & 1)) continue;
    int k = snprintf(buf + o, len - o, "%s%s", first ? "" : ", ", S(g, g->dims.a[d].name));
    if (k < 0) break;
    o += (size_t)k;
    if (o >= len) o = len - 1;
    first = 0;
  }
  if (o + 2 <= len) { buf[o++] = '}'; buf[o] = 0; } else buf[len - 1] = 0;
}

static const char *access_verb(uint8_t a) {
  switch (a) {
  case FG_ACCESS_READ: return "read";
  case FG_ACCESS_MODIFY: return "modify";
  case FG_ACCESS_RENAME: return "rename";
  case FG_ACCESS_HISTORY: return "history";
  default: return "create";
  }
}

static int node_active(const node *n) { return n->state == FG_NODE_ACTIVE; }

static int has_attachment(const node *n, uint32_t name) {
  for (uint32_t i = 0; i < n->colors.n; i++) if (n->colors.a[i].name == name) return 1;
  return n->has_depth && n->depth.name == name;
}

static int is_depth_attachment(const node *n, uint32_t name) { return n->has_depth && n->depth.name == name; }

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

static uint32_t resolve_extent(const fg_graph *g, const res_desc_store *s, uint32_t *w, uint32_t *h) {
  const fg_graph_res_desc *d = &s->d;
  if (s->resolution != NONE) {
    for (uint32_t i = 0; i < g->res.n; i++) {
      if (g->res.a[i].name != s->resolution) continue;
      double sx = d->scale_x > 0 ? d->scale_x : 1.0, sy = d->scale_y > 0 ? d->scale_y : sx;
      double fw = floor(g->res.a[i].w * sx), fh = floor(g->res.a[i].h * sy);
      *w = fw < 1 ? 1 : (uint32_t)fw;
      *h = fh < 1 ? 1 : (uint32_t)fh;
      return 0;
    }
    return NONE;
  }
  *w = d->width;
  *h = d->height;
  return 0;
}

/* mixed-radix flattening of an index restricted to mode */
static uint32_t mux_of(const fg_graph *g, uint32_t mode, const uint32_t *index) {
  uint32_t m = 0;
  for (uint32_t d = 0; d < g->dims.n; d++)
    if (mode >> d & 1) m = m * g->dims.a[d].count + index[d];
  return m;
}

static uint32_t mode_count(const fg_graph *g, uint32_t mode) {
  uint32_t c = 1;
  for (uint32_t d = 0; d < g->dims.n; d++) if (mode >> d & 1) c *= g->dims.a[d].count;
  return c;
}

/* min-heap of tie-break keys ((order hint or index+1) << 32 | node index): the
 * deterministic choice among ready nodes */
static uint64_t node_key(const fg_graph *g, uint32_t i) {
  uint32_t h = g->nodes.a[i].order_hint ? g->nodes.a[i].order_hint : i + 1;
  return (uint64_t)h << 32 | i;
}
static void heap_push(uint64_t *hp, uint32_t *n, uint64_t v) {
  uint32_t i = (*n)++;
  while (i) {
    uint32_t p = (i - 1) / 2;
    if (hp[p] <= v) break;
    hp[i] = hp[p];
    i = p;
  }
  hp[i] = v;
}
static uint32_t heap_pop(uint64_t *hp, uint32_t *n) {
  uint64_t top = hp[0], v = hp[--(*n)];
  uint32_t i = 0;
  for (;;) {
    uint32_t c = 2 * i + 1;
    if (c >= *n) break;
    if (c + 1 < *n && hp[c + 1] < hp[c]) c++;
    if (hp[c] >= v) break;
    hp[i] = hp[c];
    i = c;
  }
  if (*n) hp[i] = v;
  return (uint32_t)top;
}

static int cmp_pair(const void *a, const void *b) {
  const uint32_t *x = a, *y = b;
  if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
  if (x[1] != y[1]) return x[1] < y[1] ? -1 : 1;
  return 0;
}

static int add_edge(fg_graph *g, uint32_t a, uint32_t b) {
  if (a == b || a >= EXTERNAL_CREATOR || b >= EXTERNAL_CREATOR) return 0;
  if (VPUSH(&g->h, g->node_edges, a) || VPUSH(&g->h, g->node_edges, b)) { g->oom = 1; return -1; }
  return 0;
}

static int memory_plan(fg_graph *g, int replan);
static int default_sizer(void *user, const fg_graph_resource *r, fg_graph_memreq *out);
static int graph_expand(fg_graph *g, cstate *c);

static void cs_free(fg_graph *g, cstate *c) {
  fg_free(&g->h, c->creator); fg_free(&g->h, c->creator_decl); fg_free(&g->h, c->renamer);
  fg_free(&g->h, c->avail); fg_free(&g->h, c->logical); fg_free(&g->h, c->ext_of);
  fg_free(&g->h, c->is_output); fg_free(&g->h, c->node_of);
}

/* Producers of a name: creator + modifiers (live marking for culling). */
static void mark_live(fg_graph *g, cstate *c, uint32_t name, uint8_t *live, uint32_t *stack, uint32_t *sp) {
  uint32_t cr = c->creator[name];
  if (cr < EXTERNAL_CREATOR && !live[cr] && node_active(&g->nodes.a[cr])) { live[cr] = 1; stack[(*sp)++] = cr; }
}

static int compile_full(fg_graph *g);

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
  return compile_full(g);
}

int fg_graph_recompile(fg_graph *g) { return compile_full(g); }

static int compile_full(fg_graph *g) {
  uint64_t t0 = fg_now_ns();
  plan_clear(g);
  err_reset(g);
  if (g->oom) { problem(g, "out of memory while declaring the graph"); return -1; }
  cstate c;
  memset(&c, 0, sizeof c);
  uint32_t N = g->nodes.n;
  uint32_t ns = c.nstr = g->st.n;
  uint32_t *ndecl_mods = NULL;
  uint8_t *live = NULL;
  uint32_t *stack = NULL, *indeg = NULL, *estart = NULL, *eadj = NULL;
  uint64_t *hp = NULL;
  int rc = -1;
  char m1[128], m2[128];

  c.creator = fg_malloc(&g->h, ns * sizeof(uint32_t));
  c.creator_decl = fg_malloc(&g->h, ns * sizeof(uint32_t));
  c.renamer = fg_malloc(&g->h, ns * sizeof(uint32_t));
  c.avail = fg_malloc(&g->h, ns + 1);
  c.logical = fg_malloc(&g->h, ns * sizeof(uint32_t));
  c.ext_of = fg_malloc(&g->h, ns * sizeof(uint32_t));
  c.is_output = fg_malloc(&g->h, ns + 1);
  c.node_of = fg_malloc(&g->h, (ns + 1) * sizeof(uint32_t));
  live = fg_malloc(&g->h, N + 1);
  stack = fg_malloc(&g->h, (N + 1) * sizeof(uint32_t));
  if (!c.creator || !c.creator_decl || !c.renamer || !c.avail || !c.logical || !c.ext_of || !c.is_output ||
      !c.node_of || !live || !stack) {
    problem(g, "out of memory");
    goto done;
  }
  for (uint32_t i = 0; i < ns; i++) {
    c.creator[i] = c.renamer[i] = c.logical[i] = c.ext_of[i] = c.creator_decl[i] = NONE;
    c.avail[i] = 0;
    c.is_output[i] = 0;
    c.node_of[i] = NONE;
  }
  for (uint32_t i = N; i-- > 0;)
    if (!g->nodes.a[i].removed) c.node_of[g->nodes.a[i].name] = i;

  /* --- 1. per-node checks: names, modes, descriptions, pass ------------- */
  for (uint32_t d = 0; d < g->dims.n; d++)
    if (g->dims.a[d].count == 0)
      problem(g, "dimension '%s': count must be a positive integer", S(g, g->dims.a[d].name));
  for (uint32_t i = 0; i < N; i++) {
    node *n = &g->nodes.a[i];
    n->state = n->removed ? FG_NODE_REMOVED : FG_NODE_ACTIVE;
    n->reason = NONE;
    n->mode = 0;
    n->inst_first = n->inst_count = 0;
    n->order_pos = NONE;
    if (n->removed) continue;
    const char *nn = S(g, n->name);
    if (c.node_of[n->name] != i)
      problem(g, "node '%s' is declared twice (nodes #%u and #%u): node names must be unique", nn,
              c.node_of[n->name] + 1, i + 1);
    for (uint32_t k = 0; k < n->mux.n; k++) {
      uint32_t d = 0;
      while (d < g->dims.n && g->dims.a[d].name != n->mux.a[k]) d++;
      if (d == g->dims.n) {
        char list[256] = "";
        size_t o = 0;
        for (uint32_t e = 0; e < g->dims.n && o < sizeof list; e++)
          o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", e ? ", " : "", S(g, g->dims.a[e].name));
        problem(g, "node '%s': multiplex: unknown dimension '%s' (declared dimensions: %s)", nn,
                S(g, n->mux.a[k]), g->dims.n ? list : "none");
      } else n->mode |= 1u << d;
    }
    for (uint32_t k = 0; k < n->decls.n; k++) {
      decl *d = &n->decls.a[k];
      d->folded = 0;
      const char *rn = S(g, d->name);
      if (d->access == FG_ACCESS_CREATE) {
        res_desc_store *s = &g->descs.a[d->desc];
        fg_graph_res_desc *rd = &s->d;
        if (rd->kind == FG_RES_TEXTURE) {
          uint32_t w = 0, h = 0;
          if (rd->format <= FG_FORMAT_UNDEFINED || rd->format >= FG_FORMAT_COUNT)
            problem(g, "node '%s': create '%s': missing or unknown format", nn, rn);
          if (resolve_extent(g, s, &w, &h) == NONE) {
            char list[256] = "";
            size_t o = 0;
            for (uint32_t e = 0; e < g->res.n && o < sizeof list; e++)
              o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", e ? ", " : "", S(g, g->res.a[e].name));
            problem(g, "node '%s': create '%s': unknown resolution '%s' (declared resolutions: %s)", nn, rn,
                    S(g, s->resolution), g->res.n ? list : "none");
          } else if (s->resolution == NONE && (w == 0 || h == 0))
            problem(g, "node '%s': create '%s': size must be positive (got %ux%u)", nn, rn, w, h);
        } else if (rd->kind == FG_RES_BUFFER && rd->bytes == 0) {
          problem(g, "node '%s': create '%s': buffer size must be a positive number of bytes", nn, rn);
        }
      }
      if (d->access == FG_ACCESS_READ || d->access == FG_ACCESS_HISTORY) {
        for (uint32_t q = 0; q < n->decls.n; q++) {
          decl *e = &n->decls.a[q];
          if (e->name == d->name && (e->access == FG_ACCESS_MODIFY || e->access == FG_ACCESS_RENAME) &&
              d->access == FG_ACCESS_READ)
            problem(g, "node '%s': reads and %ss '%s': declare it once (modify already allows reading)", nn,
                    e->access == FG_ACCESS_MODIFY ? "modifie" : "rename", rn);
          if (e->access == FG_ACCESS_CREATE && e->name == d->name && d->access == FG_ACCESS_READ)
            problem(g, "node '%s': creates and reads '%s': a node's own writes are readable without a read", nn, rn);
        }
      }
      if (d->access == FG_ACCESS_MODIFY) {
        for (uint32_t q = 0; q < n->decls.n; q++)
          if (n->decls.a[q].access == FG_ACCESS_RENAME && n->decls.a[q].name == d->name) {
            d->folded = 1;  /* modify + rename of the same name = one read-write use then rename */
            if (n->decls.a[q].usage == FG_USAGE_NONE) n->decls.a[q].usage = d->usage;
            if (n->decls.a[q].stage == FG_STAGE_DEFAULT) n->decls.a[q].stage = d->stage;
          }
      }
    }
    for (uint32_t k = 0; k <= n->colors.n; k++) {
      const attach_decl *a = k < n->colors.n ? &n->colors.a[k] : (n->has_depth ? &n->depth : NULL);
      if (!a) continue;
      int found = 0;
      for (uint32_t q = 0; q < n->decls.n; q++) {
        decl *e = &n->decls.a[q];
        if ((e->name == a->name && e->access != FG_ACCESS_READ && e->access != FG_ACCESS_HISTORY) ||
            (e->access == FG_ACCESS_RENAME && e->to == a->name))
          found = 1;
        if (k == n->colors.n && e->name == a->name && e->access == FG_ACCESS_READ &&
            (e->usage == FG_USAGE_DEPTH_READ || e->usage == FG_USAGE_NONE))
          found = 1;  /* read-only depth attachment */
      }
      if (!found)
        problem(g, "node '%s': pass %s '%s': the node must create, modify or rename it%s", nn,
                k < n->colors.n ? "color" : "depth", S(g, a->name),
                k < n->colors.n ? "" : " (or read it as depth_read for a read-only depth attachment)");
    }
  }
  for (uint32_t e = 0; e < g->externals.n; e++) {
    uint32_t nm = g->externals.a[e].name;
    if (c.ext_of[nm] != NONE) problem(g, "external '%s' is declared twice", S(g, nm));
    c.ext_of[nm] = e;
  }
  if (g->nproblems) goto done;

  /* --- 2. creators: one per name (renames count as creation) ------------ */
  for (uint32_t e = 0; e < g->externals.n; e++) c.creator[g->externals.a[e].name] = EXTERNAL_CREATOR;
  for (uint32_t i = 0; i < N; i++) {
    node *n = &g->nodes.a[i];
    if (n->removed) continue;
    for (uint32_t k = 0; k < n->decls.n; k++) {
      decl *d = &n->decls.a[k];
      uint32_t nm = d->access == FG_ACCESS_CREATE ? d->name : d->access == FG_ACCESS_RENAME ? d->to : NONE;
      if (d->access == FG_ACCESS_RENAME) {
        if (c.renamer[d->name] != NONE && c.renamer[d->name] != i)
          problem(g, "resource '%s' is renamed by both '%s' and '%s': only one node may rename a resource",
                  S(g, d->name), S(g, g->nodes.a[c.renamer[d->name]].name), S(g, n->name));
        else c.renamer[d->name] = i;
      }
      if (nm == NONE) continue;
      uint32_t cr = c.creator[nm];
      if (cr == EXTERNAL_CREATOR)
        problem(g, "resource '%s' is declared external but node '%s' also %s it", S(g, nm), S(g, n->name),
                d->access == FG_ACCESS_CREATE ? "creates" : "renames into");
      else if (cr != NONE && cr != i)
        problem(g, "resource '%s' is created by both '%s' and '%s' (renames count as creation): use modify in one of them",
                S(g, nm), S(g, g->nodes.a[cr].name), S(g, n->name));
      else if (cr == i && c.creator_decl[nm] != k)
        problem(g, "node '%s': creates '%s' twice", S(g, n->name), S(g, nm));
      else { c.creator[nm] = i; c.creator_decl[nm] = k; }
    }
    for (uint32_t k = 0; k < n->after.n + n->before.n; k++) {
      uint32_t o = k < n->after.n ? n->after.a[k] : n->before.a[k - n->after.n];
      if (c.node_of[o] == NONE)
        problem(g, "node '%s': %s '%s': no node named '%s'", S(g, n->name), k < n->after.n ? "after" : "before",
                S(g, o), S(g, o));
    }
  }
  for (uint32_t k = 0; k < g->outputs.n; k++)
    if (c.creator[g->outputs.a[k]] == NONE)
      problem(g, "outputs: no node creates '%s' and it is not external", S(g, g->outputs.a[k]));
    else c.is_output[g->outputs.a[k]] = 1;
  if (g->nproblems) goto done;

  /* --- 3. broken nodes, iteratively ------------------------------------ */
  for (;;) {
    for (uint32_t i = 0; i < ns; i++) c.avail[i] = 0;
    for (uint32_t e = 0; e < g->externals.n; e++) c.avail[g->externals.a[e].name] = 1;
    for (uint32_t i = 0; i < N; i++) {
      node *n = &g->nodes.a[i];
      if (!node_active(n)) continue;
      for (uint32_t k = 0; k < n->decls.n; k++)
        if (n->decls.a[k].access == FG_ACCESS_CREATE) c.avail[n->decls.a[k].name] = 1;
    }
    for (int changed = 1; changed;) {
      changed = 0;
      for (uint32_t i = 0; i < N; i++) {
        node *n = &g->nodes.a[i];
        if (!node_active(n)) continue;
        for (uint32_t k = 0; k < n->decls.n; k++) {
          decl *d = &n->decls.a[k];
          if (d->access == FG_ACCESS_RENAME && c.avail[d->name] && !c.avail[d->to]) { c.avail[d->to] = 1; changed = 1; }
        }
      }
    }
    int newly = 0;
    for (uint32_t i = 0; i < N; i++) {
      node *n = &g->nodes.a[i];
      if (!node_active(n)) continue;
      for (uint32_t k = 0; k < n->decls.n; k++) {
        decl *d = &n->decls.a[k];
        if (d->access == FG_ACCESS_CREATE || d->optional || c.avail[d->name]) continue;
        uint32_t cr = c.creator[d->name];
        n->state = FG_NODE_BROKEN;
        if (cr < EXTERNAL_CREATOR)  /* an active creator that does not provide it is being broken too */
          n->reason = pstr_add(g, "%s '%s': its creator '%s' is broken", access_verb(d->access), S(g, d->name),
                               S(g, g->nodes.a[cr].name));
        else
          n->reason = pstr_add(g, "%s '%s': no node creates it and it is not external", access_verb(d->access),
                               S(g, d->name));
        newly = 1;
        break;
      }
    }
    if (!newly) break;
  }

  /* --- 4. logical resources and rename chains -------------------------- */
  for (uint32_t e = 0; e < g->externals.n; e++) {
    logical L;
    memset(&L, 0, sizeof L);
    L.name = L.final_name = g->externals.a[e].name;
    L.creator = EXTERNAL_CREATOR;
    L.desc = g->externals.a[e].desc;
    L.mode = g->descs.a[L.desc].d.mode;
    L.external = 1;
    L.renamed = 0;
    c.logical[L.name] = g->logicals.n;
    if (VPUSH(&g->h, g->logicals, L)) goto oom;
  }
  for (uint32_t i = 0; i < N; i++) {
    node *n = &g->nodes.a[i];
    if (!node_active(n)) continue;
    for (uint32_t k = 0; k < n->decls.n; k++) {
      decl *d = &n->decls.a[k];
      if (d->access != FG_ACCESS_CREATE) continue;
      logical L;
      memset(&L, 0, sizeof L);
      L.name = L.final_name = d->name;
      L.creator = i;
      L.desc = d->desc;
      L.mode = n->mode;
      c.logical[d->name] = g->logicals.n;
      if (VPUSH(&g->h, g->logicals, L)) goto oom;
    }
  }
  for (int changed = 1; changed;) {
    changed = 0;
    for (uint32_t i = 0; i < N; i++) {
      node *n = &g->nodes.a[i];
      if (!node_active(n)) continue;
      for (uint32_t k = 0; k < n->decls.n; k++) {
        decl *d = &n->decls.a[k];
        if (d->access != FG_ACCESS_RENAME || c.logical[d->name] == NONE || c.logical[d->to] != NONE) continue;
        uint32_t l = c.logical[d->to] = c.logical[d->name];
        g->logicals.a[l].renamed = 1;
        g->logicals.a[l].final_name = d->to;
        changed = 1;
      }
    }
  }
  /* final name: follow the chain from the root */
  for (uint32_t l = 0; l < g->logicals.n; l++) {
    uint32_t nm = g->logicals.a[l].name, steps = 0;
    while (c.renamer[nm] != NONE && node_active(&g->nodes.a[c.renamer[nm]]) && steps++ < ns) {
      const node *rn = &g->nodes.a[c.renamer[nm]];
      uint32_t to = NONE;
      for (uint32_t k = 0; k < rn->decls.n; k++)
        if (rn->decls.a[k].access == FG_ACCESS_RENAME && rn->decls.a[k].name == nm) to = rn->decls.a[k].to;
      if (to == NONE) break;
      nm = to;
    }
    g->logicals.a[l].final_name = nm;
  }
  for (uint32_t i = 0; i < ns; i++)
    if (c.is_output[i] && c.logical[i] != NONE) g->logicals.a[c.logical[i]].is_output = 1;

  /* --- 5. semantic checks on active nodes ------------------------------ */
  for (uint32_t i = 0; i < N; i++) {
    node *n = &g->nodes.a[i];
    if (!node_active(n)) continue;
    const char *nn = S(g, n->name);
    for (uint32_t k = 0; k < n->decls.n; k++) {
      decl *d = &n->decls.a[k];
      uint32_t l = c.logical[d->name];
      if (l == NONE) continue;
      logical *L = &g->logicals.a[l];
      if (d->access == FG_ACCESS_HISTORY) {
        if (L->external)
          problem(g, "node '%s': history '%s': external resources have no history", nn, S(g, d->name));
        else if (L->renamed)
          problem(g, "node '%s': history '%s': cannot read the history of a renamed resource ('%s' is renamed to '%s')",
                  nn, S(g, d->name), S(g, L->name), S(g, L->final_name));
        else L->history = 1;
      }
      if (L->mode & ~n->mode) {
        mode_str(g, L->mode, m1, sizeof m1);
        mode_str(g, n->mode, m2, sizeof m2);
        problem(g, "node '%s': %s '%s': the resource has multiplex mode %s, wider than the node's %s "
                   "(a node may only use resources of its own or a narrower mode)",
                nn, access_verb(d->access), S(g, d->name), m1, m2);
      }
    }
    for (uint32_t k = 0; k < n->after.n + n->before.n; k++) {
      uint32_t o = c.node_of[k < n->after.n ? n->after.a[k] : n->before.a[k - n->after.n]];
      if (o == NONE || !node_active(&g->nodes.a[o])) continue;
      uint32_t a = n->mode, b = g->nodes.a[o].mode;
      if ((a & b) != a && (a & b) != b) {
        mode_str(g, a, m1, sizeof m1);
        mode_str(g, b, m2, sizeof m2);
        problem(g, "node '%s': %s '%s': multiplex modes %s and %s are not comparable", nn,
                k < n->after.n ? "after" : "before", S(g, g->nodes.a[o].name), m1, m2);
      }
    }
  }
  if (g->nproblems) goto done;
  g->stats.ns_validate = fg_now_ns() - t0;

  /* --- 6. culling ------------------------------------------------------- */
  uint64_t t1 = fg_now_ns();
  {
    uint32_t sp = 0;
    memset(live, 0, N + 1);
    for (uint32_t i = 0; i < N; i++)
      if (node_active(&g->nodes.a[i]) && g->nodes.a[i].side_effects) { live[i] = 1; stack[sp++] = i; }
    /* modifiers per name (CSR) so producers(name) = creator + modifiers */
    uint32_t *mstart = fg_malloc(&g->h, (ns + 1) * sizeof(uint32_t));
    uint32_t nmods = 0;
    for (uint32_t i = 0; i < N; i++) {
      node *n = &g->nodes.a[i];
      if (node_active(n))
        for (uint32_t k = 0; k < n->decls.n; k++) nmods += n->decls.a[k].access == FG_ACCESS_MODIFY;
    }
    ndecl_mods = fg_malloc(&g->h, (nmods + 1) * sizeof(uint32_t));
    if (!mstart || !ndecl_mods) { fg_free(&g->h, mstart); goto oom; }
    memset(mstart, 0, (ns + 1) * sizeof(uint32_t));
    for (uint32_t i = 0; i < N; i++) {
      node *n = &g->nodes.a[i];
      if (node_active(n))
        for (uint32_t k = 0; k < n->decls.n; k++)
          if (n->decls.a[k].access == FG_ACCESS_MODIFY) mstart[n->decls.a[k].name + 1]++;
    }
    for (uint32_t i = 0; i < ns; i++) mstart[i + 1] += mstart[i];
    uint32_t *fill = fg_malloc(&g->h, (ns + 1) * sizeof(uint32_t));
    if (!fill) { fg_free(&g->h, mstart); goto oom; }
    memcpy(fill, mstart, (ns + 1) * sizeof(uint32_t));
    for (uint32_t i = 0; i < N; i++) {
      node *n = &g->nodes.a[i];
      if (node_active(n))
        for (uint32_t k = 0; k < n->decls.n; k++)
          if (n->decls.a[k].access == FG_ACCESS_MODIFY) ndecl_mods[fill[n->decls.a[k].name]++] = i;
    }
    fg_free(&g->h, fill);
#define PRODUCE(nm)                                                                       \
  do {                                                                                    \
    uint32_t nm_ = (nm);                                                                  \
    if (!c.avail[nm_]) break;                                                             \
    mark_live(g, &c, nm_, live, stack, &sp);                                              \
    for (uint32_t q = mstart[nm_]; q < mstart[nm_ + 1]; q++)                              \
      if (!live[ndecl_mods[q]]) { live[ndecl_mods[q]] = 1; stack[sp++] = ndecl_mods[q]; } \
  } while (0)
    for (uint32_t k = 0; k < g->outputs.n; k++) PRODUCE(g->outputs.a[k]);
    while (sp) {
      node *n = &g->nodes.a[stack[--sp]];
      for (uint32_t k = 0; k < n->decls.n; k++) {
        decl *d = &n->decls.a[k];
        if (d->access != FG_ACCESS_CREATE) PRODUCE(d->name);
      }
    }
#undef PRODUCE
    fg_free(&g->h, mstart);
    for (uint32_t i = 0; i < N; i++) {
      node *n = &g->nodes.a[i];
      if (node_active(n) && !live[i]) {
        n->state = FG_NODE_CULLED;
        n->reason = pstr_add(g, "its products reach no output, history read or side-effect node");
      }
    }
  }

  /* --- 7. edges between active nodes ----------------------------------- */
  {
    /* per name: creator, modifiers, readers(+history), renamer among active nodes */
    uint32_t *rstart = fg_malloc(&g->h, (ns + 2) * sizeof(uint32_t));
    uint32_t *mstart = fg_malloc(&g->h, (ns + 2) * sizeof(uint32_t));
    uint32_t nr = 0, nm = 0;
    if (!rstart || !mstart) { fg_free(&g->h, rstart); fg_free(&g->h, mstart); goto oom; }
    memset(rstart, 0, (ns + 2) * sizeof(uint32_t));
    memset(mstart, 0, (ns + 2) * sizeof(uint32_t));
    for (uint32_t i = 0; i < N; i++) {
      node *n = &g->nodes.a[i];
      if (!node_active(n)) continue;
      for (uint32_t k = 0; k < n->decls.n; k++) {
        decl *d = &n->decls.a[k];
        if (!c.avail[d->name]) continue;
        if (d->access == FG_ACCESS_READ || d->access == FG_ACCESS_HISTORY) { rstart[d->name + 1]++; nr++; }
        if (d->access == FG_ACCESS_MODIFY && !d->folded) { mstart[d->name + 1]++; nm++; }
      }
    }
    for (uint32_t i = 0; i < ns; i++) { rstart[i + 1] += rstart[i]; mstart[i + 1] += mstart[i]; }
    uint32_t *rl = fg_malloc(&g->h, (nr + 1) * sizeof(uint32_t)), *ml = fg_malloc(&g->h, (nm + 1) * sizeof(uint32_t));
    if (!rl || !ml) { fg_free(&g->h, rl); fg_free(&g->h, ml); fg_free(&g->h, rstart); fg_free(&g->h, mstart); goto oom; }
    for (uint32_t i = 0; i < N; i++) {
      node *n = &g->nodes.a[i];
      if (!node_active(n)) continue;
      for (uint32_t k = 0; k < n->decls.n; k++) {
        decl *d = &n->decls.a[k];
        if (!c.avail[d->name]) continue;
        if (d->access == FG_ACCESS_READ || d->access == FG_ACCESS_HISTORY) rl[rstart[d->name]++] = i;
        if (d->access == FG_ACCESS_MODIFY && !d->folded) ml[mstart[d->name]++] = i;
      }
    }
    /* shift back: the fill loops advanced starts to ends */
    for (uint32_t i = ns; i > 0; i--) { rstart[i] = rstart[i - 1]; mstart[i] = mstart[i - 1]; }
    rstart[0] = mstart[0] = 0;
    for (uint32_t nmx = 0; nmx < ns; nmx++) {
      if (!c.avail[nmx]) continue;
      uint32_t cr = c.creator[nmx];
      if (cr < EXTERNAL_CREATOR && !node_active(&g->nodes.a[cr])) cr = NONE;
      uint32_t rn = c.renamer[nmx];
      if (rn != NONE && !node_active(&g->nodes.a[rn])) rn = NONE;
      for (uint32_t q = mstart[nmx]; q < mstart[nmx + 1]; q++) {
        uint32_t m = ml[q];
        if (!node_active(&g->nodes.a[m])) continue;
        add_edge(g, cr, m);
        add_edge(g, m, rn);
        for (uint32_t p = rstart[nmx]; p < rstart[nmx + 1]; p++)
          if (node_active(&g->nodes.a[rl[p]])) add_edge(g, m, rl[p]);
      }
      for (uint32_t p = rstart[nmx]; p < rstart[nmx + 1]; p++) {
        if (!node_active(&g->nodes.a[rl[p]])) continue;
        add_edge(g, cr, rl[p]);
        add_edge(g, rl[p], rn);
      }
      add_edge(g, cr, rn);
    }
    fg_free(&g->h, rl); fg_free(&g->h, ml); fg_free(&g->h, rstart); fg_free(&g->h, mstart);
    for (uint32_t i = 0; i < N; i++) {
      node *n = &g->nodes.a[i];
      if (!node_active(n)) continue;
      for (uint32_t k = 0; k < n->after.n + n->before.n; k++) {
        uint32_t o = c.node_of[k < n->after.n ? n->after.a[k] : n->before.a[k - n->after.n]];
        if (o == NONE || !node_active(&g->nodes.a[o])) continue;
        if (k < n->after.n) add_edge(g, o, i); else add_edge(g, i, o);
      }
    }
    if (g->oom) goto oom;
    uint32_t ne = g->node_edges.n / 2;
    if (ne) qsort(g->node_edges.a, ne, 2 * sizeof(uint32_t), cmp_pair);
    uint32_t w = 0;
    for (uint32_t e = 0; e < ne; e++)
      if (!w || cmp_pair(&g->node_edges.a[2 * e], &g->node_edges.a[2 * (w - 1)])) {
        g->node_edges.a[2 * w] = g->node_edges.a[2 * e];
        g->node_edges.a[2 * w + 1] = g->node_edges.a[2 * e + 1];
        w++;
      }
    g->node_edges.n = 2 * w;
  }

  /* --- 8. deterministic topological order (Kahn, smallest index first) -- */
  {
    uint32_t ne = g->node_edges.n / 2;
    indeg = fg_malloc(&g->h, (N + 1) * sizeof(uint32_t));
    hp = fg_malloc(&g->h, (N + 1) * sizeof(uint64_t));
    estart = fg_malloc(&g->h, (N + 2) * sizeof(uint32_t));
    if (!indeg || !hp || !estart) goto oom;
    memset(indeg, 0, (N + 1) * sizeof(uint32_t));
    memset(estart, 0, (N + 2) * sizeof(uint32_t));
    for (uint32_t e = 0; e < ne; e++) { indeg[g->node_edges.a[2 * e + 1]]++; estart[g->node_edges.a[2 * e] + 1]++; }
    for (uint32_t i = 0; i < N; i++) estart[i + 1] += estart[i];
    /* edges are sorted by source, so adjacency is the target column */
    uint32_t nh = 0, nact = 0;
    for (uint32_t i = 0; i < N; i++)
      if (node_active(&g->nodes.a[i])) { nact++; if (!indeg[i]) heap_push(hp, &nh, node_key(g, i)); }
    while (nh) {
      uint32_t v = heap_pop(hp, &nh);
      g->nodes.a[v].order_pos = g->order.n;
      if (VPUSH(&g->h, g->order, v)) goto oom;
      for (uint32_t e = estart[v]; e < estart[v + 1]; e++) {
        uint32_t u = g->node_edges.a[2 * e + 1];
        if (!--indeg[u]) heap_push(hp, &nh, node_key(g, u));
      }
    }
    if (g->order.n != nact) {
      /* report one cycle: walk predecessors among the unordered nodes */
      uint32_t start = NONE;
      for (uint32_t i = 0; i < N && start == NONE; i++)
        if (node_active(&g->nodes.a[i]) && g->nodes.a[i].order_pos == NONE) start = i;
      uint32_t *seen = indeg; /* reuse: position in walk + 1 */
      memset(seen, 0, (N + 1) * sizeof(uint32_t));
      uint32_t cur = start, len = 0;
      while (!seen[cur]) {
        seen[cur] = ++len;
        hp[len - 1] = cur;
        uint32_t next = NONE;
        for (uint32_t e = 0; e < ne && next == NONE; e++)  /* a predecessor still unordered */
          if (g->node_edges.a[2 * e + 1] == cur && g->nodes.a[g->node_edges.a[2 * e]].order_pos == NONE &&
              node_active(&g->nodes.a[g->node_edges.a[2 * e]]))
            next = g->node_edges.a[2 * e];
        cur = next;
      }
      /* cycle is hp[seen[cur]-1 .. len-1] in predecessor order; print forwards */
      uint32_t from = seen[cur] - 1;
      char buf[900];
      size_t o = 0;
      /* rotate so the smallest declaration index starts */
      uint32_t best = from;
      for (uint32_t q = from; q < len; q++) if (hp[q] < hp[best]) best = q;
      uint32_t clen = len - from;
      for (uint32_t s = 0; s <= clen && o < sizeof buf - 1; s++) {
        /* forward order = reverse of predecessor walk */
        uint32_t q = from + (uint32_t)(((best - from) + clen - (s % clen)) % clen);
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s", s ? " -> " : "", S(g, g->nodes.a[hp[q]].name));
      }
      problem(g, "cycle: %s (break it by removing an after/before or a resource use)", buf);
      goto done;
    }
  }
  g->stats.ns_order = fg_now_ns() - t1;
  rc = 0;
  goto expand;

oom:
  problem(g, "out of memory");
  goto done;

expand:
  rc = graph_expand(g, &c);

done:
  cs_free(g, &c);
  fg_free(&g->h, ndecl_mods); fg_free(&g->h, live); fg_free(&g->h, stack); fg_free(&g->h, indeg);
  fg_free(&g->h, hp); fg_free(&g->h, estart); fg_free(&g->h, eadj);
  if (rc) plan_clear(g);
  else g->compiled = 1;
  g->stats.ns_total = fg_now_ns() - t0;
  return rc;
}

/* ------------------------------------------------- expansion + lifetimes -- */
/* touches of one copy in cyclic time from its start (lists are short: insertion sort) */
static void sort_touches(fg_graph_touch *t, uint32_t n, uint32_t start, uint32_t T) {
  for (uint32_t i = 1; i < n; i++) {
    fg_graph_touch x = t[i];
    uint32_t kx = (x.time + T - start) % T, j = i;
    while (j > 0) {
      uint32_t kj = (t[j - 1].time + T - start) % T;
      if (kj < kx || (kj == kx && (t[j - 1].slot < x.slot || (t[j - 1].slot == x.slot && t[j - 1].use <= x.use)))) break;
      t[j] = t[j - 1];
      j--;
    }
    t[j] = x;
  }
}

static int graph_expand(fg_graph *g, cstate *c) {
  uint64_t t0 = fg_now_ns();
  uint32_t D = g->dims.n;
  /* instances: refuse absurd expansions before allocating them */
  uint64_t total = 0;
  for (uint32_t oi = 0; oi < g->order.n; oi++) {
    uint64_t c = 1;
    for (uint32_t d = 0; d < D && c <= (1u << 24); d++)
      if (g->nodes.a[g->order.a[oi]].mode >> d & 1) c *= g->dims.a[d].count;
    total += c;
    if (c > (1u << 24) || total > (1u << 24)) {
      problem(g, "multiplexing expands to more than %u node instances: lower the dimension counts", 1u << 24);
      return -1;
    }
  }
  uint32_t idx[FG_GRAPH_MAX_DIMS];
  for (uint32_t oi = 0; oi < g->order.n; oi++) {
    node *n = &g->nodes.a[g->order.a[oi]];
    n->inst_first = g->inst.n;
    n->inst_count = mode_count(g, n->mode);
    memset(idx, 0, sizeof idx);
    for (uint32_t k = 0; k < n->inst_count; k++) {
      fg_graph_instance in;
      memset(&in, 0, sizeof in);
      in.node = g->order.a[oi];
      in.slot = g->inst.n;
      in.user = n->user;
      in.has_pass = n->colors.n || n->has_depth;
      /* instance name */
      char buf[256];
      size_t o = (size_t)snprintf(buf, sizeof buf, "%s", S(g, n->name));
      if (n->mode) {
        int first = 1;
        o += (size_t)snprintf(buf + o, o < sizeof buf ? sizeof buf - o : 0, "[");
        for (uint32_t d = 0; d < D && o < sizeof buf; d++)
          if (n->mode >> d & 1) {
            o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s=%u", first ? "" : ",", S(g, g->dims.a[d].name), idx[d] + 1);
            first = 0;
          }
        if (o < sizeof buf) snprintf(buf + o, sizeof buf - o, "]");
      }
      in.name = (const char *)(uintptr_t)pstr_add(g, "%s", buf);  /* offset, fixed up below */
      in.index = (const uint32_t *)(uintptr_t)g->inst_index.n;
      for (uint32_t d = 0; d < D; d++) if (VPUSH(&g->h, g->inst_index, idx[d])) goto oom;
      /* uses */
      in.uses = (const fg_graph_use *)(uintptr_t)g->uses.n;
      uint32_t first_use = g->uses.n;
      for (uint32_t q = 0; q < n->decls.n; q++) {
        decl *d = &n->decls.a[q];
        if (d->folded) continue;
        fg_graph_use u;
        memset(&u, 0, sizeof u);
        u.name = (const char *)(uintptr_t)d->name;
        u.rename_to = d->access == FG_ACCESS_RENAME ? (const char *)(uintptr_t)d->to : NULL;
        u.access = (fg_access)d->access;
        u.usage = (fg_usage)(d->access == FG_ACCESS_CREATE || d->access == FG_ACCESS_RENAME || d->access == FG_ACCESS_MODIFY
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
        u.stage = d->stage != FG_STAGE_DEFAULT ? (fg_stage)d->stage : fg_graph_default_stage(u.usage, in.has_pass);
        u.optional = d->optional;
        uint32_t l = c->avail[d->name] ? c->logical[d->name] : NONE;
        u.logical = l;
        u.missing = l == NONE;
        if (l != NONE && g->descs.a[g->logicals.a[l].desc].d.kind == FG_RES_BLOB) {
          u.usage = FG_USAGE_NONE;  /* CPU data: no GPU usage, host stage */
          u.stage = d->stage != FG_STAGE_DEFAULT ? (fg_stage)d->stage : FG_STAGE_HOST;
        }
        u.phys[0] = u.phys[1] = NONE;
        if (l != NONE) {
          /* physical ids are assigned below; store the mux now */
          u.phys[0] = mux_of(g, g->logicals.a[l].mode, idx);
          u.phys[1] = u.phys[0];
        }
        if (VPUSH(&g->h, g->uses, u)) goto oom;
      }
      in.use_count = g->uses.n - first_use;
      /* attachments */
      in.colors = (const fg_graph_attachment *)(uintptr_t)g->atts.n;
      for (uint32_t q = 0; q <= n->colors.n; q++) {
        const attach_decl *a = q < n->colors.n ? &n->colors.a[q] : (n->has_depth ? &n->depth : NULL);
        if (!a) continue;
        fg_graph_attachment at;
        memset(&at, 0, sizeof at);
        at.use = NONE;
        for (uint32_t u = 0; u < in.use_count; u++) {
          fg_graph_use *us = &g->uses.a[first_use + u];
          if ((uint32_t)(uintptr_t)us->name == a->name ||
              (us->rename_to && (uint32_t)(uintptr_t)us->rename_to == a->name)) {
            if (us->access == FG_ACCESS_HISTORY) continue;
            at.use = u;
            break;
          }
        }
        at.has_clear = a->has_clear;
        memcpy(at.clear, a->clear, sizeof at.clear);
        at.has_stencil_clear = a->has_stencil;
        at.clear_stencil = a->stencil;
        if (q < n->colors.n) { if (VPUSH(&g->h, g->atts, at)) goto oom; }
        else { in.has_depth = 1; in.depth = at; }
      }
      in.color_count = n->colors.n;
      if (VPUSH(&g->h, g->inst, in)) goto oom;
      /* next index in mixed radix, last mode dimension fastest */
      for (int d = (int)D - 1; d >= 0; d--) {
        if (!(n->mode >> d & 1)) continue;
        if (++idx[d] < g->dims.a[d].count) break;
        idx[d] = 0;
      }
    }
  }
  uint32_t V = g->inst.n, T = 2 * V;
  /* fix up pointers now that arrays stopped growing */
  for (uint32_t s = 0; s < V; s++) {
    fg_graph_instance *in = &g->inst.a[s];
    in->name = g->pstr.a + (uintptr_t)in->name;
    in->node_name = S(g, g->nodes.a[in->node].name);
    in->index = g->inst_index.a + (uintptr_t)in->index;
    in->colors = g->atts.a + (uintptr_t)in->colors;
    uint32_t fu = (uint32_t)(uintptr_t)in->uses;
    in->uses = g->uses.a + fu;
    for (uint32_t u = 0; u < in->use_count; u++) {
      fg_graph_use *us = &g->uses.a[fu + u];
      us->name = S(g, (uint32_t)(uintptr_t)us->name);
      if (us->rename_to) us->rename_to = S(g, (uint32_t)(uintptr_t)us->rename_to);
    }
  }
  /* instance edges: node edge u->v; instances agree on shared dimensions */
  for (uint32_t e = 0; e < g->node_edges.n / 2; e++) {
    const node *a = &g->nodes.a[g->node_edges.a[2 * e]], *b = &g->nodes.a[g->node_edges.a[2 * e + 1]];
    uint32_t shared = a->mode & b->mode;
    for (uint32_t i = 0; i < a->inst_count; i++) {
      const uint32_t *ia = g->inst.a[a->inst_first + i].index;
      for (uint32_t j = 0; j < b->inst_count; j++) {
        const uint32_t *ib = g->inst.a[b->inst_first + j].index;
        int ok = 1;
        for (uint32_t d = 0; d < D && ok; d++) if ((shared >> d & 1) && ia[d] != ib[d]) ok = 0;
        if (!ok) continue;
        if (VPUSH(&g->h, g->edges, a->inst_first + i) || VPUSH(&g->h, g->edges, b->inst_first + j)) goto oom;
      }
    }
  }
  /* physical resources: logicals used by active nodes */
  uint32_t NL = g->logicals.n;
  for (uint32_t l = 0; l < NL; l++) { g->logicals.a[l].phys_base = NONE; g->logicals.a[l].mux_count = 0; }
  for (uint32_t u = 0; u < g->uses.n; u++)
    if (g->uses.a[u].logical != NONE) g->logicals.a[g->uses.a[u].logical].mux_count = 1;
  uint32_t pid = 0;
  for (uint32_t l = 0; l < NL; l++) {
    logical *L = &g->logicals.a[l];
    if (!L->mux_count) continue;
    L->mux_count = mode_count(g, L->mode);
    L->phys_base = pid;
    const res_desc_store *s = &g->descs.a[L->desc];
    for (uint32_t m = 0; m < L->mux_count; m++) {
      /* unflatten m into an index */
      uint32_t ix[FG_GRAPH_MAX_DIMS] = {0}, r = m;
      for (int d = (int)D - 1; d >= 0; d--)
        if (L->mode >> d & 1) { ix[d] = r % g->dims.a[d].count; r /= g->dims.a[d].count; }
      for (uint32_t p = 0; p < 2; p++) {
        fg_graph_resource R;
        memset(&R, 0, sizeof R);
        R.id = pid++;
        R.logical = l;
        R.name = S(g, L->name);
        R.final_name = S(g, L->final_name);
        R.frame = p;
        R.index = (const uint32_t *)(uintptr_t)g->phys_index.n;
        for (uint32_t d = 0; d < D; d++) if (VPUSH(&g->h, g->phys_index, ix[d])) goto oom;
        R.mode = L->mode;
        R.kind = s->d.kind;
        R.format = s->d.format;
        R.depth = s->d.depth ? s->d.depth : 1;
        R.mips = s->d.mips ? s->d.mips : 1;
        R.layers = s->d.layers ? s->d.layers : 1;
        R.bytes = s->d.bytes;
        R.resolution = s->resolution == NONE ? NULL : S(g, s->resolution);
        R.heap = NONE;
        R.history = L->history;
        R.history_policy = L->history ? (s->d.history ? s->d.history : FG_HISTORY_CLEAR) : s->d.history;
        R.is_output = L->is_output;
        R.first_slot = NONE;
        if (VPUSH(&g->h, g->phys, R)) goto oom;
      }
    }
  }
  /* resolve uses' physical ids and collect touches */
  for (uint32_t s = 0; s < V; s++) {
    fg_graph_instance *in = &g->inst.a[s];
    for (uint32_t u = 0; u < in->use_count; u++) {
      fg_graph_use *us = (fg_graph_use *)&in->uses[u];
      if (us->logical == NONE) continue;
      uint32_t base = g->logicals.a[us->logical].phys_base + us->phys[0] * 2;
      int hist = us->access == FG_ACCESS_HISTORY;
      us->phys[0] = base + (hist ? 1 : 0);
      us->phys[1] = base + (hist ? 0 : 1);
      for (uint32_t p = 0; p < 2; p++) {
        fg_graph_resource *R = &g->phys.a[us->phys[p]];
        R->touch_count++;
        if (!hist) {  /* phys[p] is this frame's own copy */
          if (R->first_slot == NONE || s < R->first_slot) R->first_slot = s;
          if (s > R->last_slot) R->last_slot = s;
        }
      }
    }
  }
  /* touches: CSR by resource */
  {
    uint32_t NP = g->phys.n, total = 0;
    for (uint32_t r = 0; r < NP; r++) { uint32_t k = g->phys.a[r].touch_count; g->phys.a[r].touch_count = total; total += k; }
    if (vec_grow(&g->h, (void **)&g->touches.a, &g->touches.cap, total + 1, sizeof(fg_graph_touch))) goto oom;
    g->touches.n = total;
    uint32_t *fill = fg_malloc(&g->h, (NP + 1) * sizeof(uint32_t));
    if (!fill) goto oom;
    for (uint32_t r = 0; r < NP; r++) fill[r] = g->phys.a[r].touch_count;
    for (uint32_t s = 0; s < V; s++) {
      const fg_graph_instance *in = &g->inst.a[s];
      for (uint32_t u = 0; u < in->use_count; u++) {
        const fg_graph_use *us = &in->uses[u];
        if (us->logical == NONE) continue;
        for (uint32_t p = 0; p < 2; p++) {
          fg_graph_touch t = {s, u, p * V + s, us->access, us->usage, us->stage};
          g->touches.a[fill[us->phys[p]]++] = t;
        }
      }
    }
    /* lifetimes (DESIGN.md "Lifetimes") */
    for (uint32_t r = 0; r < NP; r++) {
      fg_graph_resource *R = &g->phys.a[r];
      uint32_t b = R->touch_count, e = fill[r];
      R->touches = (const fg_graph_touch *)(uintptr_t)b;
      R->touch_count = e - b;
      uint32_t q = R->frame;
      int hasH = 0;
      uint32_t lastH = 0;
      for (uint32_t k = b; k < e; k++)
        if (g->touches.a[k].access == FG_ACCESS_HISTORY) { hasH = 1; uint32_t sl = g->touches.a[k].slot; if (sl > lastH) lastH = sl; }
      if (R->first_slot == NONE) { R->first_slot = 0; R->last_slot = 0; }  /* external read only by history: impossible (rejected) */
      R->start = q * V + R->first_slot;
      /* Outputs are consumed outside the graph after the frame's last node, so
       * they stay live to the end of their frame: otherwise aliasing could hand
       * an early output's memory to a later node before anyone reads it. */
      uint32_t stop_linear = hasH ? (q + 1) * V + lastH + 1
                           : R->is_output ? (q + 1) * V : q * V + R->last_slot + 1;
      R->stop = stop_linear % T;
      sort_touches(g->touches.a + b, e - b, R->start, T);
    }
    fg_free(&g->h, fill);
    for (uint32_t r = 0; r < NP; r++) {
      fg_graph_resource *R = &g->phys.a[r];
      R->touches = g->touches.a + (uintptr_t)R->touches;
      R->index = g->phys_index.a + (uintptr_t)R->index;
    }
  }
  for (uint32_t i = 0; i < g->nodes.n; i++) {
    node *n = &g->nodes.a[i];
    if (n->state != FG_NODE_ACTIVE) n->inst_count = 0;
  }
  g->stats.ns_expand = fg_now_ns() - t0;
  (void)c;
  return memory_plan(g, 0);
oom:
  problem(g, "out of memory");
  return -1;
}

/* ------------------------------------------------------- memory plan -- */
static int default_sizer(void *user, const fg_graph_resource *r, fg_graph_memreq *out) {
  const fg_graph_profile *p = user;
  uint64_t align = p->alignment ? p->alignment : FG_DEFAULT_ALIGNMENT;
  uint32_t mt = p->memory_type_bits ? p->memory_type_bits : 1;
  if (r->kind == FG_RES_BUFFER) {
    uint64_t ba = p->buffer_alignment ? p->buffer_alignment : align;
    out->size = fg_align_up(r->bytes, ba);
    out->alignment = ba;
    out->kind = 0;
  } else {
    uint64_t texel = fg_format_get(r->format)->texel_bytes, sz = 0;
    for (uint32_t m = 0; m < r->mips; m++) {
      uint64_t w = r->width >> m, h = r->height >> m, d = r->depth >> m;
      sz += (w ? w : 1) * (h ? h : 1) * (d ? d : 1);
    }
    out->size = fg_align_up(sz * texel * r->layers, align);
    out->alignment = align;
    out->kind = 1;
  }
  out->memory_type_bits = mt;
  return 0;
}

typedef struct group_key {
  uint32_t logical;
  fg_res_kind kind;
  fg_format format;
  uint32_t w, h, d, mips, layers;
  uint64_t bytes, size, align;
  uint32_t mt;
} group_key;
/* identical descriptions (all but the logical id) */
static int same_group(const group_key *x, const group_key *y) {
  return x->kind == y->kind && x->format == y->format && x->w == y->w && x->h == y->h && x->d == y->d &&
         x->mips == y->mips && x->layers == y->layers && x->bytes == y->bytes && x->size == y->size &&
         x->align == y->align && x->mt == y->mt;
}
static uint64_t hash_group(const group_key *x) {
  uint64_t v[] = {(uint64_t)x->kind << 32 | (uint32_t)x->format, (uint64_t)x->w << 32 | x->h,
                  (uint64_t)x->d << 32 | x->mips, (uint64_t)x->layers << 32 | x->mt, x->bytes, x->size, x->align};
  uint64_t hsh = 0x9E3779B97F4A7C15ull;
  for (size_t k = 0; k < sizeof v / sizeof *v; k++) {
    hsh ^= v[k];
    hsh *= 0xBF58476D1CE4E5B9ull;
    hsh ^= hsh >> 31;
  }
  return hsh;
}

static int memory_plan(fg_graph *g, int replan) {
  uint64_t t0 = fg_now_ns();
  uint32_t V = g->inst.n, T = 2 * V, NL = g->logicals.n;
  /* a re-plan (same items, new sizes) hands the previous offsets to the
   * packer as a warm start */
  if (replan) {
    if (vec_grow(&g->h, (void **)&g->prev_off.a, &g->prev_off.cap, g->phys.n, sizeof(uint64_t))) {
      problem(g, "out of memory");
      return -1;
    }
    for (uint32_t r = 0; r < g->phys.n; r++) g->prev_off.a[r] = g->phys.a[r].offset;
  }
  fg_graph_sizer_fn sizer = g->cdesc.sizer ? g->cdesc.sizer : default_sizer;
  void *su = g->cdesc.sizer ? g->cdesc.sizer_user : &g->cdesc.profile;
  g->heaps.n = 0;
  group_key *keys = fg_malloc(&g->h, (NL + 1) * sizeof(group_key));
  if (!keys) { problem(g, "out of memory"); return -1; }
  uint32_t nk = 0;
  for (uint32_t l = 0; l < NL; l++) {
    logical *L = &g->logicals.a[l];
    if (L->phys_base == NONE) continue;
    const res_desc_store *s = &g->descs.a[L->desc];
    uint32_t w = 0, h = 0;
    if (s->d.kind == FG_RES_TEXTURE || s->d.kind == FG_RES_EXTERNAL) resolve_extent(g, s, &w, &h);
    fg_graph_memreq mr = {0, 0, 0, 0};
    fg_graph_resource *R0 = &g->phys.a[L->phys_base];
    for (uint32_t k = 0; k < 2 * L->mux_count; k++) { g->phys.a[L->phys_base + k].width = w; g->phys.a[L->phys_base + k].height = h; }
    if (s->d.kind == FG_RES_TEXTURE || s->d.kind == FG_RES_BUFFER) {
      if (sizer(su, R0, &mr) || !mr.size) {
        problem(g, "resource '%s': the sizer could not size it (%s %ux%u)", R0->name,
                fg_format_get(R0->format)->name, w, h);
        fg_free(&g->h, keys);
        return -1;
      }
      if (!mr.alignment) mr.alignment = 1;
      group_key K = {l, s->d.kind, s->d.format, w, h, R0->depth, R0->mips, R0->layers, s->d.bytes, mr.size, mr.alignment, mr.memory_type_bits};
      keys[nk++] = K;
    }
    for (uint32_t k = 0; k < 2 * L->mux_count; k++) {
      fg_graph_resource *R = &g->phys.a[L->phys_base + k];
      R->size = mr.size;
      R->alignment = mr.alignment;
      R->memory_type_bits = mr.memory_type_bits;
      R->mem_kind = mr.kind;
      R->heap = NONE;
      R->offset = 0;
      R->group = 0;
    }
  }
  /* identical descriptions share a pool group id (numbered by first
   * appearance; a hash table, as this runs on every re-plan) */
  uint32_t cap = 16;
  while (cap < 2 * nk) cap *= 2;
  uint32_t *slot = fg_malloc(&g->h, cap * sizeof(uint32_t)), *gids = fg_malloc(&g->h, (nk + 1) * sizeof(uint32_t));
  if (!slot || !gids) {
    fg_free(&g->h, keys); fg_free(&g->h, slot); fg_free(&g->h, gids);
    problem(g, "out of memory");
    return -1;
  }
  memset(slot, 0xff, cap * sizeof(uint32_t));
  uint32_t gid = 0;
  for (uint32_t k = 0; k < nk; k++) {
    uint32_t q = (uint32_t)hash_group(&keys[k]) & (cap - 1);
    while (slot[q] != NONE && !same_group(&keys[slot[q]], &keys[k])) q = (q + 1) & (cap - 1);
    if (slot[q] == NONE) { slot[q] = k; gids[k] = ++gid; }
    else gids[k] = gids[slot[q]];
    logical *L = &g->logicals.a[keys[k].logical];
    for (uint32_t r = 0; r < 2 * L->mux_count; r++) g->phys.a[L->phys_base + r].group = gids[k];
  }
  fg_free(&g->h, slot);
  fg_free(&g->h, gids);
  fg_free(&g->h, keys);
  /* one packing problem per memory-type value */
  uint64_t naive = 0, heap_bytes = 0, load = 0;
  uint32_t NP = g->phys.n;
  for (;;) {
    uint32_t mt = 0;
    int found = 0;
    for (uint32_t r = 0; r < NP; r++) {
      fg_graph_resource *R = &g->phys.a[r];
      if ((R->kind == FG_RES_TEXTURE || R->kind == FG_RES_BUFFER) && R->heap == NONE) { mt = R->memory_type_bits; found = 1; break; }
    }
    if (!found) break;
    g->items.n = g->item_phys.n = g->hint.n = 0;
    for (uint32_t r = 0; r < NP; r++) {
      fg_graph_resource *R = &g->phys.a[r];
      if (!(R->kind == FG_RES_TEXTURE || R->kind == FG_RES_BUFFER) || R->heap != NONE || R->memory_type_bits != mt) continue;
      fg_pack_item it = {R->start, R->stop, R->size, R->alignment, R->mem_kind, R->group};
      if (VPUSH(&g->h, g->items, it) || VPUSH(&g->h, g->item_phys, r) ||
          (replan && VPUSH(&g->h, g->hint, g->prev_off.a[r]))) {
        problem(g, "out of memory");
        return -1;
      }
      R->heap = g->heaps.n;
      naive += R->size;
    }
    if (vec_grow(&g->h, (void **)&g->offsets.a, &g->offsets.cap, g->items.n, sizeof(uint64_t))) {
      problem(g, "out of memory");
      return -1;
    }
    fg_pack_desc pd;
    memset(&pd, 0, sizeof pd);
    pd.period = T;
    pd.solver = g->cdesc.solver;
    pd.granularity = g->cdesc.profile.granularity;
    pd.time_budget_ms = g->cdesc.pack_time_budget_ms;
    pd.offset_hint = replan ? g->hint.a : NULL;
    /* the lifetimes stay across re-plans (fg_pack checks that they did) */
    while (g->pcache.n <= g->heaps.n) {
      fg_pack_cache *c = fg_pack_cache_new();
      if (!c || VPUSH(&g->h, g->pcache, c)) {
        fg_pack_cache_free(c);
        problem(g, "out of memory");
        return -1;
      }
    }
    pd.cache = g->pcache.a[g->heaps.n];
    fg_pack_result res;
    memset(&res, 0, sizeof res);
    char perr[256] = "";
    if (fg_pack(g->items.a, g->items.n, &pd, g->offsets.a, &res, perr, sizeof perr)) {
      problem(g, "memory plan: %s", perr[0] ? perr : "packing failed");
      return -1;
    }
    for (uint32_t k = 0; k < g->items.n; k++) g->phys.a[g->item_phys.a[k]].offset = g->offsets.a[k];
    fg_graph_heap hp = {mt, res.makespan, res.load, g->items.n, res.optimal};
    if (VPUSH(&g->h, g->heaps, hp)) { problem(g, "out of memory"); return -1; }
    heap_bytes += res.makespan;
    load += res.load;
  }
  g->stats.naive_bytes = naive;
  g->stats.heap_bytes = heap_bytes;
  g->stats.load_bytes = load;
  g->stats.ns_pack = fg_now_ns() - t0;
  return 0;
}

int fg_graph_set_resolution(fg_graph *g, const char *name, uint32_t w, uint32_t h) {
  err_reset(g);
  uint32_t id = st_find(&g->st, name);
  uint32_t r = NONE;
  for (uint32_t i = 0; id != NONE && i < g->res.n; i++) if (g->res.a[i].name == id) r = i;
  if (r == NONE) {
    problem(g, "set_resolution: unknown resolution '%s'", name ? name : "(null)");
    return -1;
  }
  if (!w || !h) {
    problem(g, "set_resolution '%s': width and height must be positive (got %ux%u)", name, w, h);
    return -1;
  }
  g->res.a[r].w = w;
  g->res.a[r].h = h;
  if (!g->compiled) return 0;
  uint64_t t0 = fg_now_ns();
  int rc = memory_plan(g, 1);
  g->stats.ns_total = fg_now_ns() - t0;
  if (rc) plan_clear(g);
  return rc;
}

int fg_graph_set_dimension(fg_graph *g, const char *name, uint32_t count) {
  err_reset(g);
  uint32_t d = fg_graph_dimension_index(g, name);
  if (d == NONE) {
    problem(g, "set_dimension: unknown dimension '%s'", name ? name : "(null)");
    return -1;
  }
  if (!count) {
    problem(g, "set_dimension '%s': count must be a positive integer", name);
    return -1;
  }
  g->dims.a[d].count = count;
  if (!g->compiled) return 0;
  return compile_full(g);
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
  out->first_instance = g->compiled && n->inst_count ? n->inst_first : NONE;
  out->side_effects = n->side_effects;
  out->has_pass = n->colors.n || n->has_depth;
  out->user = n->user;
  return 0;
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
