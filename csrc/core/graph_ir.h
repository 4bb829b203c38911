/* graph_ir: the graph compiler's internal representation, shared by its
 * stage files (not installed, not part of the public API in fg_graph.h).
 *
 * The compiler runs one way, stage after stage, each reading what the ones
 * before it built (docs/internals.md has the inputs and outputs of each):
 *
 *   VALIDATE   graph_validate.c  per-node checks, creators, broken nodes,
 *                                logical resources and rename chains
 *   ORDER      graph_order.c     culling, node edges, topological order
 *   EXPAND     graph_expand.c    IR instances, uses, edges and physical
 *                                resources (declared order)
 *   SIZE       graph_size.c      extents, sizes, pool groups, heap numbers
 *   SCHEDULE   graph_schedule.c  the instance order (opts.schedule): for
 *                                "memory" an order computed on scratch
 *                                arrays; its trial packings run on candidate
 *                                packings (graph_packing), never on the plan
 *   LIFETIMES  graph_lifetime.c  touches and lifetimes of the chosen order
 *   PACK       graph_pack.c      one packing per heap (or SCHEDULE's trial
 *                                packing of the chosen order, adopted)
 *   PUBLISH    graph_publish.c   the public fg_graph_* structs, filled once
 *
 * graph.c drives them from one table (recompile_from: the first stage whose
 * inputs changed, then every later one); graph_decl.c holds the declaration
 * API; graph_diag.c the problems, plan strings and suggestions every stage
 * reports with; graph_arena.c the per-compile scratch arena. Stages write IR
 * (g->ir, ids and offsets, never pointers); only PUBLISH writes the public
 * structs that carry pointers (instances, uses, resources). */
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

/* One use of one IR instance (EXPAND). */
typedef struct ir_use {
  uint32_t name, to;      /* interned; to: the rename target, NONE */
  uint32_t logical;       /* NONE when missing */
  uint32_t mux;           /* the logical resource's flattened multiplex index */
  uint32_t res;           /* its frame-0 copy (phys_base + 2 mux; EXPAND's last step), NONE */
  uint8_t access, usage, stage, optional;
} ir_use;

/* One node instance, in declared order (EXPAND); its uses, attachments and
 * multiplex index are ranges of the IR arrays. */
typedef struct ir_inst {
  uint32_t node, name;    /* name: plan-string offset */
  uint32_t index;         /* into g->inst_index (dims.n entries) */
  uint32_t use_first, use_count;
  uint32_t att_first, color_count;  /* into g->atts */
  uint8_t has_pass, has_depth;
  fg_graph_attachment depth;
} ir_inst;

/* One physical resource (a frame copy), id = position (EXPAND, then the
 * fields of the stage named). */
typedef struct ir_res {
  uint32_t logical, frame, index;   /* index: into g->phys_index */
  uint32_t width, height;           /* SIZE */
  uint64_t size, alignment;
  uint32_t memory_type_bits, mem_kind, group, heap;
  uint32_t start, stop, first_slot, last_slot, touch_first, touch_count;  /* LIFETIMES */
  uint64_t offset;                  /* PACK */
} ir_res;

typedef VEC(fg_pack_cache *) cache_vec;

/* A packing of every heap for one order (graph_pack.c): SCHEDULE's trials
 * and PACK's result. Owned by the graph, reused across compiles. */
typedef struct graph_packing {
  VEC(uint64_t) offset;             /* per resource */
  VEC(fg_graph_heap) heaps;
  uint64_t naive_bytes, heap_bytes, load_bytes;
  uint64_t ns;                      /* the time it took */
  int done;                         /* packed for the order the plan keeps */
} graph_packing;

/* The scratch arena of a compile (graph_arena.c): a stage takes a mark,
 * allocates, and releases to the mark; blocks stay for the next compile. */
typedef struct arena_block arena_block;
typedef struct graph_arena { arena_block *first, *cur; } graph_arena;
typedef struct arena_mark { arena_block *b; size_t used; } arena_mark;
void *arena_alloc(fg_graph *g, size_t bytes);  /* 16-byte aligned; NULL when out of memory */
arena_mark arena_checkpoint(const fg_graph *g);
void arena_release(fg_graph *g, arena_mark m);
void arena_free(fg_graph *g);

/* the IR: what the stages write (ids and offsets, no pointers) */
typedef struct graph_irs {
  VEC(ir_inst) inst;                /* declared order */
  VEC(ir_use) use;
  VEC(uint32_t) edges;              /* pairs of declared slots */
  VEC(ir_res) res;
  uint32_t nheaps;                  /* SIZE: heaps, numbered by first memory type */
  VEC(uint32_t) order;              /* SCHEDULE: slot -> declared instance */
  VEC(uint32_t) slot_of;            /* SCHEDULE: declared instance -> slot */
  graph_packing pk[2];              /* the declared order's packing, the memory order's */
  /* graph_arcs of the declared order keeps its spans here (per resource:
   * first and last own-frame user, last history reader, touches), so
   * LIFETIMES need not walk the uses again when that order stays */
  VEC(uint32_t) span;               /* 4 per resource */
  /* SIZE: per logical resource with copies, the description of its first
   * copy as the sizer sees it (an fg_graph_resource without the plan);
   * PUBLISH starts every copy from it */
  VEC(fg_graph_resource) view;
  int span_declared;
  uint32_t kept;                    /* SCHEDULE: which of pk the plan keeps */
} graph_irs;

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
  int replan;                     /* this run re-plans (set_resolution): the order and lifetimes stay */
  graph_arena arena;
  graph_irs ir;
  /* shared by the IR and the plan: value arrays without pointers */
  VEC(char) pstr;                 /* plan strings (reasons, instance names) */
  VEC(uint32_t) inst_index;       /* dims per instance */
  VEC(fg_graph_attachment) atts;
  VEC(uint32_t) node_edges;       /* pairs, node level */
  VEC(logical) logicals;
  VEC(uint32_t) phys_index;
  VEC(fg_graph_touch) touches;    /* LIFETIMES, grouped by resource */
  VEC(uint32_t) order;            /* node ids in order */
  /* the published plan (PUBLISH) */
  VEC(fg_graph_instance) inst;    /* by slot */
  VEC(fg_graph_use) uses;         /* parallel to ir.use */
  VEC(uint32_t) edges;            /* pairs of slots */
  VEC(fg_graph_resource) phys;
  VEC(fg_graph_heap) heaps;
  /* packing scratch */
  VEC(fg_pack_item) items;
  VEC(uint32_t) item_phys;
  VEC(uint64_t) offsets;
  VEC(uint64_t) hint;             /* per packed item: fg_pack's offset_hint on a re-plan */
  cache_vec pcache;               /* per heap: fg_pack's memo of the lifetimes, for re-plans */
  cache_vec pcache_alt;           /* the same for the order SCHEDULE did not keep (its trial
                                     packing uses it, so each order keeps a warm memo) */
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
 * and every later one (graph.c's table has one row per stage, same order). */
typedef enum graph_stage {
  GRAPH_STAGE_VALIDATE = 0,  /* declarations changed (compile, recompile, set_dimension) */
  GRAPH_STAGE_ORDER,
  GRAPH_STAGE_EXPAND,
  GRAPH_STAGE_SIZE,          /* only extents changed (set_resolution): re-size, re-pack */
  GRAPH_STAGE_SCHEDULE,
  GRAPH_STAGE_LIFETIMES,
  GRAPH_STAGE_PACK,
  GRAPH_STAGE_PUBLISH,
  GRAPH_STAGE_COUNT
} graph_stage;

/* Stage entry points: 0 on success, -1 after reporting a problem. The
 * per-name tables are VALIDATE's, read by ORDER and EXPAND (NULL from SIZE on). */
int graph_names_init(fg_graph *g, graph_names *c);   /* graph_validate.c */
void graph_names_free(fg_graph *g, graph_names *c);
int graph_validate(fg_graph *g, graph_names *c);      /* graph_validate.c */
int graph_order(fg_graph *g, graph_names *c);         /* graph_order.c */
int graph_expand(fg_graph *g, graph_names *c);        /* graph_expand.c */
int graph_size(fg_graph *g, graph_names *c);          /* graph_size.c */
int graph_schedule(fg_graph *g, graph_names *c);      /* graph_schedule.c */
int graph_lifetimes(fg_graph *g, graph_names *c);     /* graph_lifetime.c */
int graph_pack(fg_graph *g, graph_names *c);          /* graph_pack.c */
int graph_publish(fg_graph *g, graph_names *c);       /* graph_publish.c */

/* graph_lifetime.c: the lifetimes [start, stop) of every resource when the
 * declared instance s runs at slot pos[s] (pos NULL: the declared order),
 * into arrays of ir.res.n; -1 when out of memory (nothing reported). */
int graph_arcs(fg_graph *g, const uint32_t *pos, uint32_t *start, uint32_t *stop);
/* graph_pack.c: packs every heap for the lifetimes start/stop into P with
 * the memos in caches (fg_pack warm starts from the offsets of the plan a
 * re-plan replaces when g->replan); -1 after reporting a problem. */
int graph_pack_order(fg_graph *g, const uint32_t *start, const uint32_t *stop, graph_packing *P, cache_vec *caches);
/* graph_publish.c: the description part of the public resource r (what a
 * sizer reads); the plan part is left zero. */
void graph_resource_desc(const fg_graph *g, uint32_t r, fg_graph_resource *out);
/* graph_async.c: at the end of LIFETIMES, the async queue's waits and every
 * lifetime an async pass touches widened over what may run beside it; the
 * count of async instances (SCHEDULE keeps the declared order when any). */
int graph_async_lifetimes(fg_graph *g);
uint32_t graph_async_instances(const fg_graph *g);
void graph_async_free(fg_graph *g);

/* ------------------------------------------------- shared helpers -- */
/* graph_decl.c */
uint32_t graph_intern(fg_graph *g, const char *s);
uint32_t graph_find_name(const fg_graph *g, const char *s);  /* NONE if never interned */
void graph_node_free(fg_graph *g, node *n);
/* graph_size.c: extent of a texture/external from its resolution; NONE when
 * the named resolution is unknown */
uint32_t graph_resolve_extent(const fg_graph *g, const res_desc_store *s, uint32_t *w, uint32_t *h);

#define S(g, id) ((id) == NONE ? "" : (g)->st.s[id])
#define PS(g, off) ((off) == NONE ? "" : (g)->pstr.a + (off))

/* physical id of the frame-p copy an IR use touches (a history use
 * touches the other parity's copy); NONE when missing */
static inline uint32_t use_phys(const fg_graph *g, const ir_use *u, uint32_t p) {
  (void)g;
  return u->res == NONE ? NONE : u->res + ((u->access == FG_ACCESS_HISTORY) ^ p);
}

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
