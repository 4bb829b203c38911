/* graph_async: the concurrency relation of async compute (fg_graph_async.h).
 * Runs at the end of LIFETIMES: the waits of every slot, then each lifetime
 * an async touch lies in, widened over that instance's window. Also the
 * checker and the memory-cost statistics. No Vulkan, no Lua. */
#include "fg_graph_async.h"
#include "graph_ir.h"
#include <stdio.h>
#include <string.h>

void graph_async_free(fg_graph *g) {
  VFREE(&g->h, g->async_wait);
  VFREE(&g->h, g->async_fork);
  VFREE(&g->h, g->async_join);
  VFREE(&g->h, g->async_life);
}

/* the queue of the instance at slot s (the IR's order: LIFETIMES runs before PUBLISH) */
static const ir_inst *inst_at(const fg_graph *g, uint32_t s) { return &g->ir.inst.a[g->ir.order.a[s]]; }
static uint32_t queue_of(const fg_graph *g, uint32_t s) { return g->nodes.a[inst_at(g, s)->node].queue; }

uint32_t graph_async_instances(const fg_graph *g) {
  uint32_t c = 0;
  for (uint32_t i = 0; i < g->ir.inst.n; i++) c += g->nodes.a[g->ir.inst.a[i].node].queue == FG_QUEUE_ASYNC;
  return c;
}

/* Frame-local slot of a touch and the frame it falls in (0 or 1). */
static uint32_t touch_frame(uint32_t V, const fg_graph_touch *t) { return t->time / V; }

/* The arc [*start, *stop) of a cycle of length T (start == stop: all of it)
 * widened to hold the arc of l points from a2, which it meets. */
static void arc_union(uint32_t T, uint32_t *start, uint32_t *stop, uint32_t a2, uint32_t l2) {
  uint32_t a1 = *start, l1 = (*stop + T - a1) % T;
  if (l1 == 0) return; /* whole cycle already */
  uint32_t d = (a2 + T - a1) % T, s, l;
  if (d < l1) {
    s = a1;
    l = d + l2 > l1 ? d + l2 : l1;
  } else {
    uint32_t d2 = (a1 + T - a2) % T;
    s = d2 < l2 ? a2 : a1;
    l = d2 < l2 ? (d2 + l1 > l2 ? d2 + l1 : l2) : d + l2; /* disjoint: never (a touch is in both) */
  }
  *start = s % T;
  *stop = l >= T ? *start : (s + l) % T;
}

static int grow(fg_graph *g, void *vec_a, uint32_t *n, uint32_t *cap, uint32_t need) {
  if (vec_grow(&g->h, (void **)vec_a, cap, need, sizeof(uint32_t))) return -1;
  *n = need;
  return 0;
}
#define GROW(g, v, need) grow((g), &(v).a, &(v).n, &(v).cap, (need))

/* Raw dependencies across queues: an edge or two uses of one physical
 * resource in one frame (a read beside a layout change is a race too). */
static void cross(const fg_graph *g, uint32_t a, uint32_t b, uint32_t *fork, uint32_t *join) {
  if (a > b) { uint32_t t = a; a = b; b = t; }
  if (a == b) return;
  uint32_t qa = queue_of(g, a), qb = queue_of(g, b);
  if (qa == qb) return;
  if (qb == FG_QUEUE_ASYNC) { if (fork[b] == NONE || a > fork[b]) fork[b] = a; }
  else if (b < join[a]) join[a] = b;
}

int graph_async_lifetimes(fg_graph *g) {
  uint32_t V = g->ir.inst.n, T = 2 * V, NP = g->ir.res.n;
  g->async_count = 0;
  for (uint32_t s = 0; s < V; s++) {
    const node *n = &g->nodes.a[inst_at(g, s)->node];
    if (n->queue == FG_QUEUE_GRAPHICS) continue;
    if (n->queue != FG_QUEUE_ASYNC) {
      graph_problem(g, "node '%s': unknown queue %u (graphics or async)", S(g, n->name), n->queue);
      return -1;
    }
    if (inst_at(g, s)->has_pass) {
      graph_problem(g, "node '%s': queue = \"async\" is for compute nodes, and this one has a pass "
                    "(color or depth attachments): drop the pass or the queue", S(g, n->name));
      return -1;
    }
    g->async_count++;
  }
  if (GROW(g, g->async_wait, V) || GROW(g, g->async_fork, V) || GROW(g, g->async_join, V) ||
      GROW(g, g->async_life, 2 * NP)) {
    graph_problem(g, "out of memory");
    return -1;
  }
  for (uint32_t r = 0; r < NP; r++) {
    g->async_life.a[2 * r] = g->ir.res.a[r].start;
    g->async_life.a[2 * r + 1] = g->ir.res.a[r].stop;
  }
  uint32_t *fork = g->async_fork.a, *join = g->async_join.a, *wait = g->async_wait.a;
  for (uint32_t s = 0; s < V; s++) { fork[s] = NONE; join[s] = V; wait[s] = NONE; }
  if (!g->async_count) return 0;
  /* IR edges are pairs of declared instances */
  for (uint32_t i = 0; i + 1 < g->ir.edges.n; i += 2)
    cross(g, g->ir.slot_of.a[g->ir.edges.a[i]], g->ir.slot_of.a[g->ir.edges.a[i + 1]], fork, join);
  for (uint32_t r = 0; r < NP; r++) {
    const ir_res *R = &g->ir.res.a[r];
    fg_graph_resource d;
    graph_resource_desc(g, r, &d);
    if (d.kind == FG_RES_BLOB) continue;
    const fg_graph_touch *t = g->touches.a + R->touch_first;
    for (uint32_t i = 0; i < R->touch_count; i++)
      for (uint32_t j = i + 1; j < R->touch_count; j++)
        if (touch_frame(V, &t[i]) == touch_frame(V, &t[j])) cross(g, t[i].slot, t[j].slot, fork, join);
  }
  /* The async queue runs in slot order: an instance cannot start before the
   * one ahead of it, nor finish after the one behind it. */
  uint32_t run = NONE;
  for (uint32_t s = 0; s < V; s++) {
    if (queue_of(g, s) != FG_QUEUE_ASYNC) continue;
    if (run != NONE && (fork[s] == NONE || fork[s] < run)) fork[s] = run;
    run = fork[s];
    wait[s] = fork[s];
  }
  run = V;
  for (uint32_t s = V; s-- > 0;) {
    if (queue_of(g, s) != FG_QUEUE_ASYNC) continue;
    if (join[s] > run) join[s] = run;
    run = join[s];
  }
  /* A graphics slot waits for the last async slot joining at or before it
   * (joins grow along the async order), unless an earlier wait covered it. */
  uint32_t waited = NONE, a = 0;
  for (uint32_t s = 0; s < V; s++) {
    if (queue_of(g, s) == FG_QUEUE_ASYNC) continue;
    uint32_t last = NONE;
    for (; a < V; a++) {
      if (queue_of(g, a) != FG_QUEUE_ASYNC) continue;
      if (join[a] > s) break;
      last = a;
    }
    if (last != NONE && (waited == NONE || last > waited)) wait[s] = waited = last;
  }
  /* Widen every lifetime an async touch lies in over its window. */
  for (uint32_t r = 0; r < NP; r++) {
    ir_res *R = &g->ir.res.a[r];
    for (uint32_t k = 0; k < R->touch_count; k++) {
      const fg_graph_touch *t = &g->touches.a[R->touch_first + k];
      if (queue_of(g, t->slot) != FG_QUEUE_ASYNC) continue;
      uint32_t base = touch_frame(V, t) * V, from = fork[t->slot] == NONE ? 0 : fork[t->slot] + 1;
      arc_union(T, &R->start, &R->stop, (base + from) % T, join[t->slot] - from);
    }
  }
  return 0;
}

/* ------------------------------------------------------------ queries -- */
uint32_t fg_graph_async_count(const fg_graph *g) { return g->compiled ? g->async_count : 0; }

uint32_t fg_graph_instance_queue(const fg_graph *g, uint32_t slot) {
  return g->compiled && slot < g->inst.n ? queue_of(g, slot) : FG_QUEUE_GRAPHICS;
}

uint32_t fg_graph_async_wait(const fg_graph *g, uint32_t slot) {
  return g->compiled && g->async_count && slot < g->async_wait.n ? g->async_wait.a[slot] : NONE;
}

int fg_graph_async_window(const fg_graph *g, uint32_t slot, uint32_t *fork, uint32_t *join) {
  if (!g->compiled || slot >= g->inst.n || queue_of(g, slot) != FG_QUEUE_ASYNC) return -1;
  *fork = g->async_fork.a[slot];
  *join = g->async_join.a[slot];
  return 0;
}

int fg_graph_async_serial_life(const fg_graph *g, uint32_t phys, uint32_t *start, uint32_t *stop) {
  if (!g->compiled || phys >= g->phys.n || 2 * phys + 1 >= g->async_life.n) return -1;
  *start = g->async_life.a[2 * phys];
  *stop = g->async_life.a[2 * phys + 1];
  return 0;
}

/* Happens-before over one frame from the waits alone: each slot follows the
 * previous slot of its own queue and the slot it waits for. reach[s] holds
 * every slot that happens before s (bit sets, W words per slot). */
static uint64_t *closure(const fg_graph *g, uint32_t *words) {
  uint32_t V = g->inst.n, W = (V + 63) / 64;
  uint64_t *reach = fg_malloc(&g->h, (size_t)(V ? V : 1) * (W ? W : 1) * sizeof *reach);
  if (!reach) return NULL;
  memset(reach, 0, (size_t)(V ? V : 1) * (W ? W : 1) * sizeof *reach);
  uint32_t prev[2] = {NONE, NONE};
  for (uint32_t s = 0; s < V; s++) {
    uint32_t q = queue_of(g, s), preds[2] = {prev[q], g->async_count ? g->async_wait.a[s] : NONE};
    for (int k = 0; k < 2; k++) {
      uint32_t p = preds[k];
      if (p == NONE || p >= s) continue;
      for (uint32_t w = 0; w < W; w++) reach[(size_t)s * W + w] |= reach[(size_t)p * W + w];
      reach[(size_t)s * W + p / 64] |= 1ull << (p % 64);
    }
    prev[q] = s;
  }
  *words = W;
  return reach;
}

static int before(const uint64_t *reach, uint32_t W, uint32_t a, uint32_t b) {
  return (int)((reach[(size_t)b * W + a / 64] >> (a % 64)) & 1);
}

int fg_graph_async_concurrent(const fg_graph *g, uint32_t a, uint32_t b) {
  if (!g->compiled || a >= g->inst.n || b >= g->inst.n || a == b || !g->async_count) return 0;
  uint32_t W;
  uint64_t *reach = closure(g, &W);
  if (!reach) return 1; /* out of memory: assume the worst */
  int c = !before(reach, W, a, b) && !before(reach, W, b, a);
  fg_free(&g->h, reach);
  return c;
}

/* Do the arcs [s1, e1) and [s2, e2) of a cycle of length T meet? */
static int arcs_meet(uint32_t T, uint32_t s1, uint32_t e1, uint32_t s2, uint32_t e2) {
  uint32_t l1 = (e1 + T - s1) % T, l2 = (e2 + T - s2) % T;
  if (!l1 || !l2) return 1;
  return (s2 + T - s1) % T < l1 || (s1 + T - s2) % T < l2;
}

int fg_graph_async_check(const fg_graph *g, char *msg, size_t msglen) {
  if (msglen) msg[0] = 0;
  if (!g->compiled) return 1;
  uint32_t V = g->inst.n, T = 2 * V, NP = g->phys.n, W = 0;
  uint64_t *reach = g->async_count ? closure(g, &W) : NULL;
  if (g->async_count && !reach) { snprintf(msg, msglen, "out of memory"); return 0; }
  int ok = 1;
  for (uint32_t i = 0; i < NP && ok; i++) {
    const fg_graph_resource *A = &g->phys.a[i];
    if (A->heap == NONE) continue;
    for (uint32_t j = i + 1; j < NP && ok; j++) {
      const fg_graph_resource *B = &g->phys.a[j];
      if (B->heap != A->heap || A->offset >= B->offset + B->size || B->offset >= A->offset + A->size) continue;
      if (arcs_meet(T, g->async_life.a[2 * i], g->async_life.a[2 * i + 1], g->async_life.a[2 * j],
                    g->async_life.a[2 * j + 1])) {
        snprintf(msg, msglen, "%s (frame %u) and %s (frame %u) share memory while both live in the serial order",
                 A->name, A->frame, B->name, B->frame);
        ok = 0;
        break;
      }
      for (uint32_t x = 0; x < A->touch_count && ok && reach; x++)
        for (uint32_t y = 0; y < B->touch_count && ok; y++) {
          const fg_graph_touch *ta = &A->touches[x], *tb = &B->touches[y];
          if (touch_frame(V, ta) != touch_frame(V, tb) || ta->slot == tb->slot) continue;
          if (before(reach, W, ta->slot, tb->slot) || before(reach, W, tb->slot, ta->slot)) continue;
          snprintf(msg, msglen, "%s (frame %u) and %s (frame %u) share memory but their users %s and %s may run at once",
                   A->name, A->frame, B->name, B->frame, g->inst.a[ta->slot].name, g->inst.a[tb->slot].name);
          ok = 0;
        }
    }
  }
  fg_free(&g->h, reach);
  return ok;
}

/* ---------------------------------------------------------- statistics -- */
/* Sum over heaps of the makespan of the plan's resources packed on the
 * lifetimes life[2 * phys], with the compile's solver. */
static int pack_heaps(const fg_graph *g, const uint32_t *life, uint64_t *out) {
  uint32_t NP = g->phys.n;
  fg_pack_item *items = fg_malloc(&g->h, (NP + 1) * sizeof *items);
  uint64_t *off = fg_malloc(&g->h, (NP + 1) * sizeof *off);
  int rc = items && off ? 0 : -1;
  *out = 0;
  for (uint32_t h = 0; h < g->heaps.n && !rc; h++) {
    size_t n = 0;
    for (uint32_t r = 0; r < NP; r++) {
      const fg_graph_resource *R = &g->phys.a[r];
      if (R->heap != h) continue;
      items[n++] = (fg_pack_item){life[2 * r], life[2 * r + 1], R->size, R->alignment, R->mem_kind, R->group};
    }
    fg_pack_desc d = {.period = 2 * g->inst.n, .solver = g->solver[0] ? g->solver : NULL,
                      .granularity = g->cdesc.profile.granularity, .hooks = &g->h};
    fg_pack_result res;
    char err[128];
    if (n && fg_pack(items, n, &d, off, &res, err, sizeof err)) rc = -1;
    else if (n) *out += res.makespan;
  }
  fg_free(&g->h, items);
  fg_free(&g->h, off);
  return rc;
}

int fg_graph_get_async_stats(const fg_graph *g, fg_graph_async_stats *out) {
  memset(out, 0, sizeof *out);
  if (!g->compiled) return -1;
  for (uint32_t h = 0; h < g->heaps.n; h++) out->heap_bytes += g->heaps.a[h].bytes;
  out->serial_bytes = out->region_bytes = out->heap_bytes;
  out->async_instances = g->async_count;
  if (!g->async_count) return 0;
  uint32_t V = g->inst.n, T = 2 * V, NP = g->phys.n;
  uint32_t *region = fg_malloc(&g->h, (V + 1) * 2 * sizeof *region);  /* per async slot: region window */
  uint32_t *life = fg_malloc(&g->h, (2 * NP + 1) * sizeof *life);
  if (!region || !life) { fg_free(&g->h, region); fg_free(&g->h, life); return -1; }
  /* Regions: windows [fork + 1, join) that overlap, merged along the async
   * order (both ends only grow along it). */
  uint32_t first = NONE, lo = 0, hi = 0;
  for (uint32_t s = 0; s <= V; s++) {
    int is_async = s < V && queue_of(g, s) == FG_QUEUE_ASYNC;
    uint32_t f = 0, j = 0;
    if (is_async) {
      f = g->async_fork.a[s] == NONE ? 0 : g->async_fork.a[s] + 1;
      j = g->async_join.a[s];
    }
    if (!is_async && s < V) continue;
    if (first != NONE && (s == V || f >= hi)) {  /* close the region [lo, hi) */
      for (uint32_t a = first; a < s; a++) { region[2 * a] = lo; region[2 * a + 1] = hi; }
      out->regions++;
      first = NONE;
    }
    if (s == V) break;
    if (first == NONE) { first = s; lo = f; hi = j; }
    else if (j > hi) hi = j;
  }
  if (NP) memcpy(life, g->async_life.a, 2 * NP * sizeof *life);  /* no resource: NULL source */
  for (uint32_t r = 0; r < NP; r++) {
    const fg_graph_resource *R = &g->phys.a[r];
    for (uint32_t k = 0; k < R->touch_count; k++) {
      const fg_graph_touch *t = &R->touches[k];
      if (queue_of(g, t->slot) != FG_QUEUE_ASYNC) continue;
      uint32_t base = touch_frame(V, t) * V, from = region[2 * t->slot], to = region[2 * t->slot + 1];
      arc_union(T, &life[2 * r], &life[2 * r + 1], (base + from) % T, to - from);
    }
  }
  int rc = pack_heaps(g, g->async_life.a, &out->serial_bytes);
  if (!rc) rc = pack_heaps(g, life, &out->region_bytes);
  fg_free(&g->h, region);
  fg_free(&g->h, life);
  return rc;
}
