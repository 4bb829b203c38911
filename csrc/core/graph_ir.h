/* graph_ir: the graph compiler's internal representation, shared by its
 * phase files (not installed, not part of the public API in fg_graph.h).
 *
 * The compiler runs in stages; each stage reads what the ones before it
 * built and writes its own part of the plan:
 *
 *   VALIDATE   graph_validate.c  per-node checks, creators, broken nodes,
 *                                logical resources and rename chains
 *   ORDER      graph_order.c     culling, node edges, topological order
 *   EXPAND     graph_expand.c    multiplexed instances, their uses and
 *                                edges, physical resources
 *   LIFETIMES  graph_lifetime.c  touches and lifetimes on the cyclic timeline
 *   PLAN       graph_plan.c      sizes, pool groups, one packing per memory type
 *   SCHEDULE   graph_schedule.c  opts.schedule = "memory": a memory-aware
 *                                instance order; when its packing is smaller
 *                                the instances are permuted and LIFETIMES and
 *                                PLAN run again for it (else nothing changes)
 *
 * graph.c drives them (recompile_from: the first stage whose inputs changed,
 * then every later one); graph_decl.c holds the declaration API; graph_diag.c
 * the problems, plan strings and suggestions every stage reports with. */
#ifndef FG_GRAPH_IR_H
#define FG_GRAPH_IR_H
#include "fg_graph.h"
#include "fg_pack.h"
#include "graph_diag.h"
#include <stddef.h>
#include <stdint.h>

#define NONE FG_GRAPH_NONE
#define EXTERNAL_CREATOR (UINT32_MAX - 1)

/* ------------------------------------------------------------ vectors -- */
#define VEC(T) struct { T *a; uint32_t n, cap; }
static inline int vec_grow(const fg_alloc_hooks *h, void **a, uint32_t *cap, uint32_t need, size_t elem) {
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

/* ------------------------------------------------------- declarations -- */
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
  uint32_t queue;               /* fg_graph_node_desc.queue */
  VEC(decl) decls;
  VEC(uint32_t) after, before;
  VEC(attach_decl) colors;
  int has_depth;
  attach_decl depth;
  /* compile state */
  uint32_t mode, state, reason; /* reason: offset into plan strings (NONE = "") */
  uint32_t broken_decl;         /* broken: the decl that broke it (NONE otherwise) */
  uint32_t inst_first, inst_count, order_pos;
} node;

typedef struct external {
  uint32_t name;
  uint32_t desc;
} external;

typedef struct dim { uint32_t name, count; } dim;
typedef struct resolution { uint32_t name, w, h; } resolution;

/* ------------------------------------------------------------- plan IR -- */
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
  VEC(uint32_t) removed_made;     /* names that removed nodes created or renamed into */
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
  VEC(uint32_t) slot_of;          /* per instance in declared order (node->inst_first + k): its slot */
  /* packing scratch */
  VEC(fg_pack_item) items;
  VEC(uint32_t) item_phys;
  VEC(uint64_t) offsets;
  VEC(uint64_t) prev_off;         /* set_resolution: offsets of the plan being replaced, per phys */
  VEC(uint64_t) hint;             /* ... and per packed item (fg_pack's offset_hint) */
  uint32_t heaps_prev_n;          /* heaps of the plan a re-plan replaces (their entries stay) */
  VEC(fg_pack_cache *) pcache;    /* per heap: fg_pack's memo of the lifetimes, for re-plans */
  VEC(fg_pack_cache *) pcache_alt; /* the same for the order SCHEDULE did not keep (swapped in
                                     for its trial packing, so each order keeps a warm memo) */
  fg_graph_stats stats;
  /* async compute (graph_async.c), per instance slot and per physical resource */
  VEC(uint32_t) async_wait;       /* per slot: the other queue's slot it waits for, NONE */
  VEC(uint32_t) async_fork, async_join; /* per slot (async ones): its window's ends */
  VEC(uint32_t) async_life;       /* per phys: the serial lifetime (start, stop) */
  uint32_t async_count;           /* async instances in the plan */
};

/* Per-name tables of one compile (indexed by interned string id), built by
 * VALIDATE and read by ORDER and EXPAND; the driver owns them. */
typedef struct graph_names {
  uint32_t nstr;
  uint32_t *creator;     /* per name: node index, EXTERNAL_CREATOR, NONE */
  uint32_t *creator_decl;
  uint32_t *renamer;     /* per name: node renaming it away, NONE */
  uint8_t *avail;
  uint32_t *logical;     /* per name */
  uint32_t *ext_of;      /* per name: external index, NONE */
  uint8_t *is_output;
  uint32_t *node_of;     /* per name: the (non-removed) node with that name, NONE */
} graph_names;

/* ---------------------------------------------------------- stages -- */
/* Declaration order is execution order: recompile_from(stage) runs `stage`
 * and every later one. */
typedef enum graph_stage {
  GRAPH_STAGE_VALIDATE = 0,  /* declarations changed (compile, recompile, set_dimension) */
  GRAPH_STAGE_ORDER,
  GRAPH_STAGE_EXPAND,
  GRAPH_STAGE_LIFETIMES,
  GRAPH_STAGE_PLAN           /* only extents changed (set_resolution): re-size, re-pack */
} graph_stage;

/* Phase entry points: 0 on success, -1 after reporting a problem. */
int graph_names_init(fg_graph *g, graph_names *c);   /* graph_validate.c */
void graph_names_free(fg_graph *g, graph_names *c);
int graph_validate(fg_graph *g, graph_names *c);      /* graph_validate.c */
int graph_order(fg_graph *g, graph_names *c);         /* graph_order.c */
int graph_expand(fg_graph *g, const graph_names *c);  /* graph_expand.c */
int graph_lifetimes(fg_graph *g, int again);          /* graph_lifetime.c; again: the instances
                                                         were permuted after a first run */
int graph_plan(fg_graph *g, int replan);              /* graph_plan.c; replan: warm-start from
                                                         the offsets of the plan it replaces */
int graph_schedule(fg_graph *g);                      /* graph_schedule.c; after a full PLAN */
int graph_async_lifetimes(fg_graph *g);               /* graph_async.c; at the end of LIFETIMES */
void graph_async_free(fg_graph *g);

/* ------------------------------------------------- shared helpers -- */
/* graph_decl.c */
uint32_t graph_intern(fg_graph *g, const char *s);
uint32_t graph_find_name(const fg_graph *g, const char *s);  /* NONE if never interned */
void graph_node_free(fg_graph *g, node *n);
/* graph_plan.c: extent of a texture/external from its resolution; NONE when
 * the named resolution is unknown */
uint32_t graph_resolve_extent(const fg_graph *g, const res_desc_store *s, uint32_t *w, uint32_t *h);

#define S(g, id) ((id) == NONE ? "" : (g)->st.s[id])
/* An offset stored in a pointer field, made a pointer into an array that has
 * stopped growing. An empty array may have no storage: NULL + 0 is undefined
 * behaviour (UBSan, found by fuzz_graph), so it stays NULL. */
#define REBASE(base, off) ((base) ? (base) + (uintptr_t)(off) : NULL)
#define PS(g, off) ((off) == NONE ? "" : (g)->pstr.a + (off))

static inline int node_active(const node *n) { return n->state == FG_NODE_ACTIVE; }

static inline int has_attachment(const node *n, uint32_t name) {
  for (uint32_t i = 0; i < n->colors.n; i++) if (n->colors.a[i].name == name) return 1;
  return n->has_depth && n->depth.name == name;
}

static inline int is_depth_attachment(const node *n, uint32_t name) { return n->has_depth && n->depth.name == name; }

/* mixed-radix flattening of an index restricted to mode */
static inline uint32_t mux_of(const fg_graph *g, uint32_t mode, const uint32_t *index) {
  uint32_t m = 0;
  for (uint32_t d = 0; d < g->dims.n; d++)
    if (mode >> d & 1) m = m * g->dims.a[d].count + index[d];
  return m;
}

static inline uint32_t mode_count(const fg_graph *g, uint32_t mode) {
  uint32_t c = 1;
  for (uint32_t d = 0; d < g->dims.n; d++) if (mode >> d & 1) c *= g->dims.a[d].count;
  return c;
}

#endif
