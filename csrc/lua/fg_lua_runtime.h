/* Shared by the runtime binding (runtime.c: framegraph.runtime, frames and
 * .upload; runtime_plan.c: read-backs and re-plans; runtime_image.c: external
 * .image) and the command binding (cmd.c: framegraph.cmd): the userdata
 * layouts, the runtime's uservalue slots and the lifetime rule.
 *
 * Lifetime rule: every handle knows whether it is still valid and a call on
 * one that is not raises "<what> is closed ...". A runtime closed inside a
 * node's run closes when the frame ends (`closing`); cmd and ctx are valid
 * only inside their node's run. Calls that would destroy what the recording
 * command buffer uses (re-plans, reload, read-backs) are refused inside run
 * (fg_lua_rt_idle); docs/runtime.md has the table. */
#ifndef FG_LUA_RUNTIME_H
#define FG_LUA_RUNTIME_H
#include "fg_lua.h"
#include "fg_vk_runtime.h"

#define FG_LUA_RUNTIME "framegraph.runtime"
#define FG_LUA_CMD "framegraph.cmd"

/* UV_DYN: {resolutions = {name = {w, h}}, dimensions = {name = n}} set by
 * rt:set_resolution / rt:set_dimension since creation (a reload keeps them) */
enum { UV_DEV = 1, UV_GRAPH, UV_OPTS, UV_RUN, UV_CTX, UV_BLOBS, UV_CMD, UV_INPUTS, UV_EXT, UV_DYN, UV_COUNT = UV_DYN };

/* The kind of the last frame's failure, for the Lua layer's policy
 * (hooks.failure): a value, never recognised from a message's text. */
typedef enum { FG_LUA_FAIL_NONE = 0, FG_LUA_FAIL_RUN } fg_lua_fail;

#define FG_LUA_IMAGE "framegraph.image"
#define FG_LUA_UPLOAD "framegraph.upload"

typedef struct lrt {
  fg_rt *rt;
  fg_graph *g;
  fg_vk_device *dev;
  fg_rt_sizer_ctx sizer;
  lua_State *L;        /* non-NULL while a frame records (inside node runs) */
  int self;            /* stack index of the runtime during a frame */
  int closing;         /* rt:close() inside a node's run: closes when the frame ends */
  char busy[24];       /* the call re-planning now ("rt:reload", "rt:set_dimension", ...; "" when none): user
                          code it runs (the pipeline's metamethods) may not re-plan, and its rt:close() waits
                          for the call's end (fg_lua_rt_busy_end) */
  uint32_t slot;       /* the node instance recording (while L) */
  fg_lua_fail fail;    /* why the last rt:frame failed (FG_LUA_FAIL_NONE: it did not) */
  uint32_t fail_slot;  /* FG_LUA_FAIL_RUN: the instance whose run raised */
  char err[2048];
} lrt;

typedef struct lcmd {
  lrt *o;
  VkCommandBuffer cmd;
  uint32_t slot;
  int valid;
} lcmd;

typedef struct lupload {
  lrt *o;                /* owner, kept alive by uservalue 1 */
  uint64_t ring_frame;   /* the ring frame it belongs to: valid while the ring is still in it */
  uint64_t rt_frame;     /* the runtime's frame index when made (for messages) */
  uint64_t offset, size;
} lupload;

/* An upload handle is usable while the ring is still in the frame it was made for. */
static inline int upload_valid(const lupload *h) {
  return h->o && h->o->rt && h->ring_frame == fg_rt_upload_frame(h->o->rt);
}

/* runtime_base.c (below every other runtime file and window.c) */
/* The runtime at idx, open (else raises "runtime is closed ..."). */
lrt *fg_lua_rt_check(lua_State *L, int idx);
/* The cmd at argument 1, valid (else raises "cmd is closed ..."): cmd.c, host.c. */
lcmd *fg_lua_cmd_check(lua_State *L);
/* Raises when `what` is called inside a node's run of this runtime. */
void fg_lua_rt_idle(lua_State *L, lrt *o, const char *what);
/* Marks the runtime busy with `what` (a re-plan that may run user code); the
 * end clears it and closes a runtime that rt:close() was deferred on: 1 then
 * (the caller raises "<what>: the runtime was closed during the call ..."). */
void fg_lua_rt_busy_begin(lrt *o, const char *what);
int fg_lua_rt_busy_end(lrt *o);
/* runtime.c: frees the runtime's objects now (rt:close() and its deferred forms). */
void fg_lua_rt_close_now(lrt *o);
/* Raises unless the runtime holds a plan (a re-plan whose restore failed too). */
void fg_lua_rt_planned(lua_State *L, lrt *o, const char *what);
/* A string argument that names something or a file: refused when it holds a
 * NUL byte (C would silently truncate it). */
const char *fg_lua_checkname(lua_State *L, int idx, const char *what);
/* An integer argument in [lo, hi], refused before any cast (NaN, inf,
 * fractions and out-of-range values raise naming `what`). */
lua_Integer fg_lua_checkrange(lua_State *L, int idx, lua_Integer lo, lua_Integer hi, const char *what);
/* The candidate nearest to `name` by edit distance, or NULL when none is close. */
const char *fg_lua_nearest(const char *name, const char *const *cands, size_t n);
/* runtime_slots.c: run functions and ctx tables per instance slot (graph at UV_GRAPH). */
void fg_lua_rt_build_slots(lua_State *L, lrt *o, int self);
void fg_lua_rt_set_graph(lua_State *L, lrt *o, int self, int graph_idx);
/* runtime_slots.c: copies the string at bytes_idx into the upload ring and
 * pushes a handle, or nil + message when the ring has no room. */
int fg_lua_rt_push_upload(lua_State *L, lrt *o, int self, int bytes_idx, int align_idx, const char *what);
/* runtime_image.c: asks pipeline.external[name].provide(index) for this frame's images. */
void fg_lua_rt_provide_externals(lua_State *L, lrt *o);
/* runtime_image.c: raises when an image given to the last frames was closed since. */
void fg_lua_rt_check_externals(lua_State *L, lrt *o, uint32_t phys, const char *what);
struct fg_vk_image;
/* runtime_image.c: pushes a framegraph.image owning img (the caller's
 * objects move into it; it retains dev). */
void fg_lua_push_image(lua_State *L, fg_vk_device *dev, const struct fg_vk_image *img, fg_format format,
                       uint32_t width, uint32_t height);
/* runtime_image.c: the image at idx (NULL when idx is not one; raises "image
 * is closed" for a closed one); *dev receives its device. */
struct fg_vk_image *fg_lua_testimage(lua_State *L, int idx, fg_vk_device **dev);
/* content.c: the static buffer at idx (NULL when idx is not one; raises
 * "buffer is closed" for a closed one); *dev receives its device. */
#define FG_LUA_BUFFER "framegraph.buffer"
struct fg_vk_static_buffer;
struct fg_vk_static_buffer *fg_lua_testbuffer(lua_State *L, int idx, fg_vk_device **dev);
void fg_lua_open_runtime_plan(lua_State *L);   /* runtime_plan.c: adds methods to the runtime's, and
                                                  module.runtime_hooks (reload's primitives) */
void fg_lua_open_runtime_image(lua_State *L);  /* runtime_image.c: images, dev:external_image */
/* runtime_image.c: a host's image as an external image (framegraph.image that
 * never destroys it), and the layout slot of an image at idx (NULL: not an open one). */
#define FG_LUA_HOST_IMAGES "framegraph.host_images"
void fg_lua_push_host_image(lua_State *L, fg_vk_device *dev, VkImage image, VkImageView view, fg_format f,
                            uint32_t w, uint32_t h, VkImageLayout layout);
VkImageLayout *fg_lua_image_layout(lua_State *L, int idx);
/* The host's images of the runtime at rt_idx (registry FG_LUA_HOST_IMAGES[rt][name][index + 1],
 * filled by fg_runtime_set_image): pushes the one for (name, index) and returns 1, else 0. */
int fg_lua_host_image(lua_State *L, int rt_idx, const char *name, uint32_t index);
/* host.c: a host's buffer for an external declared without a format
 * (fg_runtime_set_buffer); never destroyed by framegraph. */
#define FG_LUA_HOST_BUFFER "framegraph.host_buffer"
typedef struct fg_lua_host_buffer {
  VkBuffer buffer;
  uint64_t size;
} fg_lua_host_buffer;
void fg_lua_push_host_buffer(lua_State *L, VkBuffer buffer, uint64_t size);
fg_lua_host_buffer *fg_lua_test_host_buffer(lua_State *L, int idx);

#endif
