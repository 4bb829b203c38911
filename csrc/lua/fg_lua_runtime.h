/* Shared by the runtime binding (runtime.c: framegraph.runtime, .upload,
 * .image) and the command binding (cmd.c: framegraph.cmd): the userdata
 * layouts and the runtime's uservalue slots. */
#ifndef FG_LUA_RUNTIME_H
#define FG_LUA_RUNTIME_H
#include "fg_lua.h"
#include "fg_vk_runtime.h"

#define FG_LUA_RUNTIME "framegraph.runtime"
#define FG_LUA_CMD "framegraph.cmd"

enum { UV_DEV = 1, UV_GRAPH, UV_OPTS, UV_RUN, UV_CTX, UV_BLOBS, UV_CMD, UV_INPUTS, UV_EXT, UV_COUNT = UV_EXT };

#define FG_LUA_IMAGE "framegraph.image"
#define FG_LUA_UPLOAD "framegraph.upload"

typedef struct lrt {
  fg_rt *rt;
  fg_graph *g;
  fg_vk_device *dev;
  fg_rt_sizer_ctx sizer;
  lua_State *L;
  int self;            /* stack index of the runtime during a frame */
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

#endif
