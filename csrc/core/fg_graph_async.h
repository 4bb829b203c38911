/* fg_graph_async: async compute in a compiled plan (pure C, graph_async.c).
 *
 * A node declared with queue = FG_QUEUE_ASYNC (a compute node: no pass) is
 * recorded on a second queue. Its instances keep their slot in the one
 * execution order; what changes is what may run at the same time:
 *
 *  - each async instance A waits for one graphics slot, fork(A): the latest
 *    graphics instance it depends on (an edge, or a use of the same physical
 *    resource in the same frame), taken as a running maximum over the async
 *    queue's order, since that queue runs in order anyway. NONE: the start of
 *    the frame;
 *  - each graphics instance G that depends on async work waits for the last
 *    async instance A whose join(A) <= G, join(A) being the earliest graphics
 *    instance depending on A (a running minimum backwards over the async
 *    order); |V| = the end of the frame, where the graphics queue waits for
 *    every async instance of the frame. A frame therefore starts and ends
 *    with both queues joined.
 *
 * A may run beside the graphics slots fork(A) + 1 .. join(A) - 1 and nothing
 * else. LIFETIMES extends every lifetime a touch of A lies in over that
 * window (union of arcs on the cyclic timeline), so the packer, which keeps
 * meeting lifetimes apart, never lets a resource A uses share memory with
 * one a concurrent graphics instance uses. Two async instances whose windows
 * overlap also keep apart (conservative: their queue orders them), and
 * graphics-only resources keep their serial lifetimes exactly.
 *
 * The runtime waits exactly as fg_graph_async_wait says; the checker below
 * derives "may run at once" from those waits alone (a happens-before closure
 * over both queues' orders) and does not trust the extended lifetimes. */
#ifndef FG_GRAPH_ASYNC_H
#define FG_GRAPH_ASYNC_H
#include "fg_graph.h"

#define FG_QUEUE_GRAPHICS 0u
#define FG_QUEUE_ASYNC 1u

/* Async instances in the plan (0: the plan is serial and nothing below
 * changes anything). */
uint32_t fg_graph_async_count(const fg_graph *g);
/* Queue of a slot: FG_QUEUE_GRAPHICS or FG_QUEUE_ASYNC. */
uint32_t fg_graph_instance_queue(const fg_graph *g, uint32_t slot);
/* What a slot waits for on the other queue before it starts: for an async
 * slot the graphics slot fork(A) (FG_GRAPH_NONE: the frame's start); for a
 * graphics slot the async slot it must see finished (FG_GRAPH_NONE: none
 * new). */
uint32_t fg_graph_async_wait(const fg_graph *g, uint32_t slot);
/* An async slot's window: the graphics slots fork+1 .. join-1 may run beside
 * it (fork = FG_GRAPH_NONE: from the frame's start; join = |V|: to its end).
 * -1 for a graphics slot. */
int fg_graph_async_window(const fg_graph *g, uint32_t slot, uint32_t *fork, uint32_t *join);
/* The lifetime a resource would have without async (the serial plan's). */
int fg_graph_async_serial_life(const fg_graph *g, uint32_t phys, uint32_t *start, uint32_t *stop);

/* May slots a and b of one frame run at the same time (the waits' closure)? */
int fg_graph_async_concurrent(const fg_graph *g, uint32_t a, uint32_t b);

/* The checker: 1 when no two physical resources that may be live at once
 * overlap in memory (same heap, a common byte), else 0 with a message naming
 * both and the two instances that may run at once. "Live at once": their
 * serial lifetimes meet, or a touch of one and a touch of the other fall in
 * one frame on instances that may run at the same time. */
int fg_graph_async_check(const fg_graph *g, char *msg, size_t msglen);

/* What async costs in memory: the heap of the plan in use (heap_bytes), the
 * serial plan's lifetimes packed the same way (serial_bytes: the same
 * pipeline with every node on one queue), and the baseline other frame
 * graphs use: every resource an async instance touches live over its whole
 * fork/join region (the union of overlapping windows; region_bytes). Packs
 * twice with the compile's solver (deterministic work budget); on a serial
 * plan all three are heap_bytes. 0, or -1 on out-of-memory / no plan. */
typedef struct fg_graph_async_stats {
  uint32_t async_instances;
  uint32_t regions;            /* fork/join regions */
  uint64_t heap_bytes, serial_bytes, region_bytes;
} fg_graph_async_stats;
int fg_graph_get_async_stats(const fg_graph *g, fg_graph_async_stats *out);

#endif
