/* fg_graph: the frame-graph compiler (pure C, no Lua, no Vulkan).
 *
 * Two halves:
 *  1. Declarations: build a graph from nodes that create / read / modify /
 *     rename / read-the-history-of named resources (the thesis' C, R, M, E, H
 *     sets), with after/before edges, multiplex modes and render passes.
 *  2. A compiled, READ-ONLY plan: node states (active/culled/broken + reason),
 *     node instances in execution order with their resource uses, physical
 *     resources (two frame copies x multiplex index) with lifetimes on the
 *     cyclic timeline T = 2|V| and a memory placement (heap + offset) per
 *     memory-type group, computed through fg_pack().
 *
 * Conventions:
 *  - Names are copied at declaration time; the caller's strings may go away.
 *  - All `const char *` and array pointers returned by plan accessors stay
 *    valid until the next fg_graph_compile / fg_graph_set_dimension /
 *    node_reset / node_remove / fg_graph_free. fg_graph_set_resolution keeps
 *    every id, pointer and instance; it only rewrites extents, sizes, offsets
 *    and heaps in place (the fast re-plan path).
 *  - Multiplex indices are 0-based in C arrays; instance names print them
 *    1-based ("gbuffer[eye=2]" is eye index 1), as Lua sees them.
 *  - Dimensions are indexed in the order they were added (the Lua binding adds
 *    them sorted by name). A mode is a bit mask over dimension indices.
 *  - Errors: functions return 0 on success, -1 on user error; the full text
 *    (every problem found, one per line) is in fg_graph_error().
 */
#ifndef FG_GRAPH_H
#define FG_GRAPH_H
#include <stddef.h>
#include <stdint.h>
#include "fg_format.h"
#include "fg_util.h"

#define FG_GRAPH_NONE UINT32_MAX  /* "no such id" (missing optional resource, no heap, ...) */
#define FG_GRAPH_MAX_DIMS 16

typedef struct fg_graph fg_graph;

/* ---------------------------------------------------------------- enums -- */

/* Both lists live in fg_vocab.h (FG_USAGES, FG_STAGES). FG_USAGE_NONE: blobs
 * (CPU data) and order-only uses; FG_USAGE_COLOR a color attachment,
 * FG_USAGE_DEPTH a written depth attachment, FG_USAGE_DEPTH_READ a read-only
 * (or sampled) depth attachment. */
#define FG_USAGE_ENUM_(id, name, sp, snp, acc, lay, img, buf) FG_USAGE_##id,
typedef enum fg_usage {
  FG_USAGES(FG_USAGE_ENUM_)
  FG_USAGE_COUNT
} fg_usage;

/* Pipeline stage of a use. FG_STAGE_DEFAULT never appears in a compiled plan:
 * the compiler replaces it from the usage (fg_graph_default_stage):
 *   sampled/storage/uniform -> FRAGMENT if the node has a pass, else COMPUTE;
 *   color -> COLOR_OUTPUT; depth/depth_read -> FRAGMENT_TESTS (early|late);
 *   transfer_* -> TRANSFER; vertex/index -> VERTEX_INPUT; indirect ->
 *   DRAW_INDIRECT; none (blobs) -> HOST. */
#define FG_STAGE_ENUM_(id, name) FG_STAGE_##id,
typedef enum fg_stage {
  FG_STAGE_DEFAULT = 0,
  FG_STAGES(FG_STAGE_ENUM_)
  FG_STAGE_COUNT
} fg_stage;

typedef enum fg_access {
  FG_ACCESS_CREATE = 0,   /* first write of the frame (contents undefined before) */
  FG_ACCESS_MODIFY,       /* read-write of an existing resource */
  FG_ACCESS_READ,
  FG_ACCESS_HISTORY,      /* read of the previous frame's copy */
  FG_ACCESS_RENAME        /* read-write, then the resource continues under a new name */
} fg_access;

typedef enum fg_res_kind {
  FG_RES_TEXTURE = 0,
  FG_RES_BUFFER,
  FG_RES_BLOB,            /* CPU data: tracked like a resource, never packed into GPU memory */
  FG_RES_EXTERNAL         /* provided from outside (swapchain, engine): never packed */
} fg_res_kind;

typedef enum fg_history_policy {
  FG_HISTORY_NONE = 0,    /* nobody may read the history */
  FG_HISTORY_CLEAR,       /* on the first frame the history copy reads as zeros */
  FG_HISTORY_DISCARD      /* on the first frame the history copy is undefined */
} fg_history_policy;

typedef enum fg_node_state {
  FG_NODE_ACTIVE = 0,
  FG_NODE_CULLED,         /* products reach no output / history read / side-effect node */
  FG_NODE_BROKEN,         /* needs a resource nobody provides (iteratively) */
  FG_NODE_REMOVED         /* removed by fg_graph_node_remove (kept so indices stay stable) */
} fg_node_state;

const char *fg_usage_name(fg_usage u);        /* "sampled" ... ; "none" */
int fg_usage_from_name(const char *s);         /* -1 when unknown */
const char *fg_stage_name(fg_stage s);        /* "fragment" ... */
int fg_stage_from_name(const char *s);         /* -1 when unknown */
const char *fg_access_name(fg_access a);      /* "create" "modify" "read" "history" "rename" */
const char *fg_node_state_name(fg_node_state s);
fg_stage fg_graph_default_stage(fg_usage u, int node_has_pass);

/* ---------------------------------------------------------- declarations -- */

/* What a `create` (or an external) describes. Zero is default:
 * kind texture, 1 mip, 1 layer, depth 1, scale 1. */
typedef struct fg_graph_res_desc {
  fg_res_kind kind;
  fg_format format;            /* textures and externals */
  const char *resolution;      /* named auto-resolution, or NULL for a fixed extent */
  double scale_x, scale_y;     /* with resolution: extent = max(1, floor(res * scale)); 0 = 1 */
  uint32_t width, height;      /* fixed extent when resolution is NULL */
  uint32_t depth, mips, layers;/* 0 = 1 */
  uint64_t bytes;              /* buffer size; blob size (informational, may be 0) */
  fg_history_policy history;   /* whether/how the previous frame's copy may be read */
  uint32_t mode;               /* externals only: multiplex mode mask (created resources take their creator's) */
} fg_graph_res_desc;

typedef struct fg_graph_desc {
  fg_alloc_hooks alloc;
} fg_graph_desc;

fg_graph *fg_graph_new(const fg_graph_desc *desc);   /* NULL only on out-of-memory */
void fg_graph_free(fg_graph *g);

/* Dimensions and resolutions may be redeclared (the last value wins). */
int fg_graph_add_dimension(fg_graph *g, const char *name, uint32_t count);
int fg_graph_add_resolution(fg_graph *g, const char *name, uint32_t width, uint32_t height);
int fg_graph_add_output(fg_graph *g, const char *name);
int fg_graph_add_external(fg_graph *g, const char *name, const fg_graph_res_desc *desc);
uint32_t fg_graph_dimension_index(const fg_graph *g, const char *name); /* FG_GRAPH_NONE if unknown */

typedef struct fg_graph_node_desc {
  const char *name;
  const char *const *multiplex;  /* dimension names of the mode (checked at compile) */
  uint32_t multiplex_count;
  int side_effects;
  int64_t user;                  /* opaque tag for the caller (the Lua binding: index in pipeline.nodes) */
  uint32_t order_hint;           /* topological tie-break: nodes ready together run by (hint, index);
                                    0 = declaration index. The Lua binding passes the position in
                                    pipeline.nodes so re-declared/added nodes keep the table's order. */
  uint32_t queue;                /* FG_QUEUE_GRAPHICS (0) or FG_QUEUE_ASYNC: a compute node recorded
                                    on the async compute queue (fg_graph_async.h) */
} fg_graph_node_desc;

/* Returns the node index (declaration order = topological tie-break), or
 * FG_GRAPH_NONE on out-of-memory. Duplicate names are reported at compile. */
uint32_t fg_graph_add_node(fg_graph *g, const fg_graph_node_desc *desc);

/* Resource requests of a node. usage FG_USAGE_NONE on create means "default"
 * (the attachment kind when the resource is in the node's pass, else storage;
 * blobs: none). stage FG_STAGE_DEFAULT means "from usage". */
int fg_graph_node_create(fg_graph *g, uint32_t node, const char *name, const fg_graph_res_desc *desc,
                         fg_usage usage, fg_stage stage);
int fg_graph_node_read(fg_graph *g, uint32_t node, const char *name, fg_usage usage, fg_stage stage,
                       int optional);
int fg_graph_node_modify(fg_graph *g, uint32_t node, const char *name, fg_usage usage, fg_stage stage);
/* rename: the node uses `from` read-write (usage as for create when NONE; a
 * modify of the same name in the same node is folded into the rename), then
 * the logical resource continues under `to`. */
int fg_graph_node_rename(fg_graph *g, uint32_t node, const char *from, const char *to, fg_usage usage,
                         fg_stage stage);
int fg_graph_node_history(fg_graph *g, uint32_t node, const char *name, fg_usage usage, fg_stage stage,
                          int optional);
int fg_graph_node_after(fg_graph *g, uint32_t node, const char *other_node);
int fg_graph_node_before(fg_graph *g, uint32_t node, const char *other_node);
/* Render pass: attachments name resources the node creates/modifies/renames.
 * clear_rgba NULL = load (or don't care after create). */
int fg_graph_node_color(fg_graph *g, uint32_t node, const char *name, const float *clear_rgba);
int fg_graph_node_depth(fg_graph *g, uint32_t node, const char *name, const float *clear_depth,
                        const uint32_t *clear_stencil);
/* Re-declaration (hot reload): reset drops every request of the node so it
 * can be declared again (name/mode/side_effects from desc); remove takes it
 * out of the graph (its index stays, state FG_NODE_REMOVED). Recompile after. */
int fg_graph_node_reset(fg_graph *g, uint32_t node, const fg_graph_node_desc *desc);
int fg_graph_node_remove(fg_graph *g, uint32_t node);
uint32_t fg_graph_node_find(const fg_graph *g, const char *name);   /* FG_GRAPH_NONE if absent */
/* Change a node's user tag without re-declaring it (the node moved in its table). */
int fg_graph_node_set_user(fg_graph *g, uint32_t node, int64_t user);
int fg_graph_node_set_order_hint(fg_graph *g, uint32_t node, uint32_t order_hint);

/* ------------------------------------------------------------ compiling -- */

/* Physical resource description handed to a sizer (see fg_graph_resource). */
typedef struct fg_graph_resource fg_graph_resource;

typedef struct fg_graph_memreq {
  uint64_t size;              /* bytes */
  uint64_t alignment;         /* power of two */
  uint32_t memory_type_bits;  /* resources are packed together only when this value is equal:
                                 return the single chosen memory type as a bit (1u << index) */
  uint32_t kind;              /* 0 = linear (buffer), 1 = optimal (image): bufferImageGranularity class */
  const char *error;          /* on failure, optionally: what is wrong and how to fix it (the compile
                                 error quotes it after the resource's name); NULL = a generic message */
} fg_graph_memreq;

/* Largest resource the planner sizes (1 TiB): bigger is a typo or a runaway
 * resolution, and keeps every sum of the plan far from wrapping. */
#define FG_MAX_RESOURCE_BYTES ((uint64_t)1 << 40)
/* Largest texture side the planner takes (no Vulkan device reports more for
 * maxImageDimension2D/3D); the runtime checks the device's own limits. */
#define FG_MAX_EXTENT 65536u
/* Most copies one multiplexing dimension may have (a different limit that
 * happens to share the number); include/framegraph.h repeats both. */
#define FG_MAX_DIMENSION_COUNT 65536u
/* Largest alignment an upload (rt:upload, ctx.upload) may ask for. */
#define FG_MAX_UPLOAD_ALIGNMENT 65536u

/* Called once per logical resource instance group (all frame copies and
 * multiplex instances of one logical resource share the description) for
 * textures and buffers; never for blobs/externals. Return 0 on success,
 * nonzero to fail the compile (the message names the resource). */
typedef int (*fg_graph_sizer_fn)(void *user, const fg_graph_resource *res, fg_graph_memreq *out);

/* Planning profile for the default sizer (the named ones: FG_PROFILES in
 * fg_vocab.h). Zero = "lavapipe": tight texel sizes, alignment
 * FG_DEFAULT_ALIGNMENT (16), granularity 1. "nvidia": alignment 1024,
 * buffers 256, granularity 1024. */
typedef struct fg_graph_profile {
  uint64_t alignment;          /* images; 0 = FG_DEFAULT_ALIGNMENT */
  uint64_t buffer_alignment;   /* buffers; 0 = alignment */
  uint64_t granularity;        /* bufferImageGranularity; 0 = 1 */
  uint32_t memory_type_bits;   /* reported group key; 0 = 1 */
} fg_graph_profile;

int fg_graph_profile_by_name(const char *name, fg_graph_profile *out); /* -1 if unknown */

/* Node order (opts.schedule). DECLARED: the topological order, ready nodes by
 * declaration, every instance of a node together (node-major). MEMORY: a
 * list scheduler driven by live bytes picks among the orders the
 * dependencies allow (instances of multiplexed nodes may interleave by
 * index: eye 1's chain before eye 2's), then both orders are packed and the
 * smaller heap wins (declared on ties), so MEMORY never needs more memory
 * than DECLARED at compile time. Either way every dependency the compiler
 * derives holds, and two uses of one physical resource where one writes keep
 * their declared relative order (so results are the same). Each order is
 * deterministic; which one is kept compares two packings, so with the
 * wall-clock-budgeted "best" packer a heavily loaded machine may keep the
 * other one (as it may find other offsets). */
typedef enum fg_schedule {
  FG_SCHEDULE_DEFAULT = 0,     /* = FG_SCHEDULE_MEMORY */
  FG_SCHEDULE_DECLARED,
  FG_SCHEDULE_MEMORY
} fg_schedule;
const char *fg_schedule_name(fg_schedule s);   /* "declared", "memory"; DEFAULT names what it means */
int fg_schedule_from_name(const char *s);      /* -1 when unknown */

typedef struct fg_graph_compile_desc {
  const char *solver;          /* fg_pack strategy; NULL = "best" */
  fg_graph_profile profile;    /* used when sizer is NULL, and profile.granularity always */
  fg_graph_sizer_fn sizer;     /* NULL = default sizer from profile */
  void *sizer_user;
  double pack_time_budget_ms;  /* passed to fg_pack; 0 = its default */
  fg_schedule schedule;        /* node order; 0 = FG_SCHEDULE_DEFAULT */
  uint64_t pack_capacity;      /* 0 = none. Else each heap is packed as usual and, where that is
                                  above it, packed again as fg_pack's decision at this capacity
                                  (fg_pack_desc.capacity): heap.fits, heap.proved */
} fg_graph_compile_desc;

/* Full compile: validate, prune, order, expand, lifetimes, memory plan.
 * The desc is remembered for set_resolution / set_dimension. */
int fg_graph_compile(fg_graph *g, const fg_graph_compile_desc *desc);
/* Recompile with the desc remembered from the last fg_graph_compile (after
 * node_reset / node_remove / add_node). */
int fg_graph_recompile(fg_graph *g);
/* Fast path: new extent for a named resolution; re-sizes and re-packs only
 * (ids, instances and lifetimes unchanged). Needs a compiled graph. */
int fg_graph_set_resolution(fg_graph *g, const char *name, uint32_t width, uint32_t height);
/* The current extent of a named resolution: 0, or -1 when there is none. */
int fg_graph_get_resolution(const fg_graph *g, const char *name, uint32_t *width, uint32_t *height);
/* New count for a dimension: re-expands and re-plans (ids change). */
int fg_graph_set_dimension(fg_graph *g, const char *name, uint32_t count);
const char *fg_graph_error(const fg_graph *g);   /* "" when none; problems separated by '\n' */
int fg_graph_compiled(const fg_graph *g);

/* -------------------------------------------------------- plan (read-only) -- */

uint32_t fg_graph_dim_count(const fg_graph *g);
const char *fg_graph_dim_name(const fg_graph *g, uint32_t dim);
uint32_t fg_graph_dim_size(const fg_graph *g, uint32_t dim);

typedef struct fg_graph_node_info {
  const char *name;
  fg_node_state state;
  const char *reason;         /* why culled/broken ("" when active) */
  uint32_t mode;              /* dimension bit mask */
  uint32_t instance_count;    /* prod(count[d] for d in mode) when active, else 0 */
  uint32_t first_instance;    /* slot of the node's earliest instance. With the declared order
                                 the instances are consecutive, in index order (first_instance + k
                                 is the k-th); the memory schedule may interleave them with other
                                 nodes' (see interleaved): use fg_graph_node_instance_slot */
  int side_effects;
  int has_pass;
  int64_t user;
  int interleaved;            /* its instances are not slots first_instance.. + count - 1 in index order */
  const char *moved;          /* why the schedule moved its instances ("" when it did not) */
} fg_graph_node_info;

uint32_t fg_graph_node_count(const fg_graph *g);        /* declared nodes, incl. removed */
int fg_graph_node_get(const fg_graph *g, uint32_t node, fg_graph_node_info *out);
/* Slot of the k-th instance of a node (k in multiplex index order, last mode
 * dimension fastest, as instance names count); FG_GRAPH_NONE when out of range. */
uint32_t fg_graph_node_instance_slot(const fg_graph *g, uint32_t node, uint32_t k);

typedef struct fg_graph_use {
  const char *name;           /* as the node declared it (commands name resources this way) */
  const char *rename_to;      /* FG_ACCESS_RENAME: the new name (also valid in commands); else NULL */
  uint32_t logical;           /* logical resource (rename chains resolved); FG_GRAPH_NONE if missing */
  fg_access access;
  fg_usage usage;
  fg_stage stage;             /* never FG_STAGE_DEFAULT */
  int optional;
  int missing;                /* optional request with no provider: skip it */
  uint32_t phys[2];           /* physical resource touched when the frame parity is 0 / 1
                                 (history uses point at the other parity's copy); NONE if missing */
} fg_graph_use;

typedef struct fg_graph_attachment {
  uint32_t use;               /* index into the instance's uses */
  int has_clear;
  float clear[4];             /* color: rgba; depth: clear[0] = depth */
  int has_stencil_clear;
  uint32_t clear_stencil;
} fg_graph_attachment;

typedef struct fg_graph_instance {
  uint32_t node;              /* declaration index */
  const char *node_name;
  const char *name;           /* "gbuffer[eye=2,tile=1]"; plain node name when mode is {} */
  uint32_t slot;              /* position in execution order = time on the timeline (frame 0) */
  const uint32_t *index;      /* [fg_graph_dim_count] 0-based; 0 for dimensions outside the mode */
  uint32_t use_count;
  const fg_graph_use *uses;
  int has_pass;
  uint32_t color_count;
  const fg_graph_attachment *colors;
  int has_depth;
  fg_graph_attachment depth;
  int64_t user;               /* the node's user tag */
  uint32_t declared_slot;     /* its slot in the declared order (= slot unless the schedule moved it) */
  const char *moved;          /* why the schedule moved it; "" when slot == declared_slot */
} fg_graph_instance;

uint32_t fg_graph_instance_count(const fg_graph *g);   /* |V| of the expanded graph */
const fg_graph_instance *fg_graph_instance_get(const fg_graph *g, uint32_t slot);
/* Edges of the expanded graph (dependencies between instances). */
uint32_t fg_graph_edge_count(const fg_graph *g);
int fg_graph_edge_get(const fg_graph *g, uint32_t i, uint32_t *from_slot, uint32_t *to_slot);

/* One touch of a physical resource: instance `slot` uses it through uses[use]
 * at cyclic time `time` (slot for the copy's own frame; |V| + slot for a
 * history read in the following frame, modulo T). Sorted by time from start. */
typedef struct fg_graph_touch {
  uint32_t slot;
  uint32_t use;
  uint32_t time;
  fg_access access;
  fg_usage usage;
  fg_stage stage;
} fg_graph_touch;

struct fg_graph_resource {
  uint32_t id;                /* index in fg_graph_resource_get */
  uint32_t logical;           /* logical resource id */
  const char *name;           /* logical name = the name it was created under */
  const char *final_name;     /* last name of the rename chain */
  uint32_t frame;             /* frame parity of this copy: 0 even, 1 odd */
  const uint32_t *index;      /* [dim_count] 0-based multiplex index (0 outside the mode) */
  uint32_t mode;              /* creator's multiplex mode */
  fg_res_kind kind;
  fg_format format;
  uint32_t width, height, depth, mips, layers;  /* resolved extent (textures/externals) */
  uint64_t bytes;             /* buffer/blob bytes as declared */
  const char *resolution;     /* named resolution or NULL */
  /* memory plan (textures/buffers; 0 / FG_GRAPH_NONE for blobs/externals) */
  uint64_t size;              /* memory bytes (from the sizer) */
  uint64_t alignment;
  uint32_t memory_type_bits;
  uint32_t mem_kind;          /* 0 linear, 1 optimal */
  uint32_t heap;              /* index into fg_graph_heap_get; FG_GRAPH_NONE when not packed */
  uint64_t offset;
  uint32_t group;             /* identical-description class (pool solver); 0 = none */
  /* lifetime on the cyclic timeline [start, stop) of length T = 2|V| (start == stop: whole cycle) */
  uint32_t start, stop;
  uint32_t first_slot, last_slot; /* first/last user slot within its own frame (0..|V|-1) */
  int history;                /* some node reads this resource's history */
  fg_history_policy history_policy;
  int is_output;              /* one of its names is in pipeline.outputs: must be stored */
  uint32_t touch_count;
  const fg_graph_touch *touches;
};

uint32_t fg_graph_resource_count(const fg_graph *g);
const fg_graph_resource *fg_graph_resource_get(const fg_graph *g, uint32_t id);
/* Logical resources (before expansion). */
uint32_t fg_graph_logical_count(const fg_graph *g);
const char *fg_graph_logical_name(const fg_graph *g, uint32_t logical);
/* Physical id of `logical` for a frame parity and a full multiplex index
 * (dimensions outside the resource's mode are ignored); NONE if absent. */
uint32_t fg_graph_physical(const fg_graph *g, uint32_t logical, uint32_t frame, const uint32_t *index);

typedef struct fg_graph_heap {
  uint32_t memory_type_bits;  /* the group key from the sizer */
  uint64_t bytes;             /* makespan of the packing */
  uint64_t load;              /* lower bound: max live bytes over time */
  uint32_t resource_count;    /* packed items (frame copies) */
  int optimal;
  uint64_t bound;             /* the largest lower bound proved (fg_pack_result.bound) */
  int bound_partial;          /* fg_pack_result.bound_partial */
  int replayed;               /* a re-plan kept the last packing's order (fg_pack_result.replayed) */
  uint64_t ref_bytes, ref_bound; /* the last searched packing's makespan and bound: what a
                                    re-plan's replay is measured against */
  int fits, proved;           /* with pack_capacity: fg_pack_result's (bytes <= pack_capacity;
                                 certain); without: 1, 0 */
} fg_graph_heap;

uint32_t fg_graph_heap_count(const fg_graph *g);
const fg_graph_heap *fg_graph_heap_get(const fg_graph *g, uint32_t heap);

typedef struct fg_graph_stats {
  uint64_t naive_bytes;       /* sum of packed item sizes (no aliasing) */
  uint64_t heap_bytes;        /* sum of heap makespans */
  uint64_t load_bytes;        /* sum of heap LOADs */
  uint32_t heap_count;
  uint32_t nodes_active, nodes_culled, nodes_broken;
  uint32_t instances;         /* |V| */
  uint32_t period;            /* T = 2|V| */
  uint32_t resources;         /* physical resources */
  uint32_t edges;             /* expanded edges */
  /* time of the last compile per stage, nanoseconds */
  uint64_t ns_validate, ns_order, ns_expand, ns_lifetime, ns_pack, ns_total;
  /* node order (fg_schedule): the one in use, and what the declared order
   * needs (equal to heap_bytes/load_bytes when it is the one in use) */
  fg_schedule schedule;       /* FG_SCHEDULE_DECLARED or FG_SCHEDULE_MEMORY: the order kept */
  fg_schedule schedule_asked; /* what the compile desc asked (DEFAULT resolved) */
  uint64_t heap_declared, load_declared;
  uint32_t moved;             /* instances whose slot differs from the declared order */
  uint64_t ns_schedule;       /* the memory schedule and its packing of the memory order (the declared
                                 order's counts in ns_pack; in ns_total) */
  /* lower bounds the memory schedule computed (0 when it did not): on the
   * heap of every node order (history copies meeting pairwise on the
   * two-frame cycle), and on the heap of the memory order it tried (per
   * heap its LOAD or its long arcs' clique); the schedule skips the search,
   * or the trial packing, once the bound reaches heap_declared */
  uint64_t heap_bound, heap_bound_memory;
  /* time of the last compile's SIZE and PUBLISH stages (the other stages'
   * are above: every stage of the compiler has its field) */
  uint64_t ns_size, ns_publish;
} fg_graph_stats;

void fg_graph_get_stats(const fg_graph *g, fg_graph_stats *out);
/* The compiler's stages in execution order ("validate", "order", "expand",
 * "size", "schedule", "lifetimes", "pack", "publish"; docs/internals.md) and
 * each one's time in a stats record: every stage has one, by construction. */
uint32_t fg_graph_stage_count(void);
const char *fg_graph_stage_name(uint32_t stage);            /* NULL past the last */
uint64_t fg_graph_stage_ns(const fg_graph_stats *s, uint32_t stage);  /* 0 past the last */

#endif
