/* Stage LIFETIMES: when each physical resource is live, in the order
 * SCHEDULE chose.
 * Instances occupy slots 0..|V|-1 in execution order; the timeline is cyclic
 * of length T = 2|V| (two frames). Each use touches both frame copies of its
 * resource (a history use touches the other parity's copy, in the following
 * frame); a copy's lifetime runs from its first user to its last user, or to
 * its last history reader of the next frame, or to the end of its frame for
 * an output (the design's "Lifetimes" section).
 * graph_arcs computes the same lifetimes for any order on caller arrays:
 * SCHEDULE's trial packings use it, LIFETIMES the plan's. */
#include "graph_ir.h"
#include <stdlib.h>
#include <string.h>

/* [start, stop) of a copy of frame q from its first/last own-frame user and
 * its last history reader (NONE when none) */
static void arc(const fg_graph *g, uint32_t r, uint32_t first, uint32_t last, uint32_t last_h, uint32_t *start,
                uint32_t *stop) {
  uint32_t V = g->ir.inst.n, T = 2 * V, q = g->ir.res.a[r].frame;
  if (first == NONE) first = last = 0;  /* external read only by history: impossible (rejected) */
  *start = q * V + first;
  /* Outputs are consumed outside the graph after the frame's last node, so
   * they stay live to the end of their frame: otherwise aliasing could hand
   * an early output's memory to a later node before anyone reads it. */
  uint32_t stop_linear = last_h != NONE ? (q + 1) * V + last_h + 1
                       : g->logicals.a[g->ir.res.a[r].logical].is_output ? (q + 1) * V : q * V + last + 1;
  *stop = stop_linear % T;
}

/* per resource r, sp[4 r ..]: first and last own-frame user, last history
 * reader (NONE when none) and touches, when declared instance s runs at
 * slot pos[s] (pos NULL: s) */
enum { SP_FIRST, SP_LAST, SP_LAST_H, SP_TOUCHES, SP_N };
static void spans(const fg_graph *g, const uint32_t *pos, uint32_t *sp) {
  uint32_t NP = g->ir.res.n;
  for (uint32_t r = 0; r < NP; r++) {
    sp[SP_N * r + SP_FIRST] = sp[SP_N * r + SP_LAST_H] = NONE;
    sp[SP_N * r + SP_LAST] = sp[SP_N * r + SP_TOUCHES] = 0;
  }
  for (uint32_t s = 0; s < g->ir.inst.n; s++) {
    const ir_inst *in = &g->ir.inst.a[s];
    uint32_t t = pos ? pos[s] : s;
    for (uint32_t u = 0; u < in->use_count; u++) {
      const ir_use *us = &g->ir.use.a[in->use_first + u];
      if (us->res == NONE) continue;
      int hist = us->access == FG_ACCESS_HISTORY;
      for (uint32_t p = 0; p < 2; p++) {
        uint32_t *x = sp + SP_N * (us->res + p);  /* both copies: each is touched once */
        x[SP_TOUCHES]++;
        if (hist) {
          if (x[SP_LAST_H] == NONE || t > x[SP_LAST_H]) x[SP_LAST_H] = t;
        } else {
          if (x[SP_FIRST] == NONE || t < x[SP_FIRST]) x[SP_FIRST] = t;
          if (t > x[SP_LAST]) x[SP_LAST] = t;
        }
      }
    }
  }
}

static int span_grow(fg_graph *g) {
  VEC(uint32_t) *v = (void *)&g->ir.span;
  if (vec_grow(&g->h, (void **)&v->a, &v->cap, SP_N * (g->ir.res.n + 1), sizeof(uint32_t))) return -1;
  v->n = SP_N * g->ir.res.n;
  return 0;
}

int graph_arcs(fg_graph *g, const uint32_t *pos, uint32_t *start, uint32_t *stop) {
  uint32_t NP = g->ir.res.n;
  arena_mark m = arena_checkpoint(g);
  uint32_t *sp = pos ? arena_alloc(g, (SP_N * (size_t)NP + 1) * sizeof(uint32_t)) : NULL;
  if (!pos) {  /* the declared order's: kept for LIFETIMES */
    if (span_grow(g)) return -1;
    sp = g->ir.span.a;
    g->ir.span_declared = 1;
  }
  if (!sp) { arena_release(g, m); return -1; }
  spans(g, pos, sp);
  for (uint32_t r = 0; r < NP; r++)
    arc(g, r, sp[SP_N * r + SP_FIRST], sp[SP_N * r + SP_LAST], sp[SP_N * r + SP_LAST_H], &start[r], &stop[r]);
  arena_release(g, m);
  return 0;
}

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

/* Touches grouped by resource (CSR, in slot order within a group before
 * sorting), with every resource's first/last slots and lifetime. */
int graph_lifetimes(fg_graph *g, graph_names *c) {
  (void)c;
  if (g->replan) return 0;  /* a re-plan keeps the order: the lifetimes stand */
  uint32_t NP = g->ir.res.n, V = g->ir.inst.n, T = 2 * V;
  uint32_t *end = arena_alloc(g, (NP + 1) * sizeof(uint32_t));
  if (!end) goto oom;
  /* the declared order's spans when SCHEDULE kept it (and computed them) */
  if (!(g->ir.kept == 0 && g->ir.span_declared)) {
    if (span_grow(g)) goto oom;
    spans(g, g->ir.slot_of.a, g->ir.span.a);
  }
  g->ir.span_declared = 0;
  const uint32_t *sp = g->ir.span.a;
  uint32_t total = 0;
  for (uint32_t r = 0; r < NP; r++) {
    ir_res *R = &g->ir.res.a[r];
    R->touch_count = sp[SP_N * r + SP_TOUCHES];
    R->touch_first = end[r] = total;
    total += R->touch_count;
  }
  if (vec_grow(&g->h, (void **)&g->touches.a, &g->touches.cap, total + 1, sizeof(fg_graph_touch))) goto oom;
  g->touches.n = total;
  for (uint32_t k = 0; k < V; k++) {
    const ir_inst *in = &g->ir.inst.a[g->ir.order.a[k]];
    for (uint32_t u = 0; u < in->use_count; u++) {
      const ir_use *us = &g->ir.use.a[in->use_first + u];
      if (us->res == NONE) continue;
      for (uint32_t p = 0; p < 2; p++) {
        fg_graph_touch t = {k, u, p * V + k, (fg_access)us->access, (fg_usage)us->usage, (fg_stage)us->stage};
        g->touches.a[end[use_phys(g, us, p)]++] = t;
      }
    }
  }
  for (uint32_t r = 0; r < NP; r++) {
    ir_res *R = &g->ir.res.a[r];
    uint32_t first = sp[SP_N * r + SP_FIRST], last = sp[SP_N * r + SP_LAST];
    R->first_slot = first == NONE ? 0 : first;
    R->last_slot = first == NONE ? 0 : last;
    arc(g, r, first, last, sp[SP_N * r + SP_LAST_H], &R->start, &R->stop);
    sort_touches(g->touches.a + R->touch_first, R->touch_count, R->start, T);
  }
  return graph_async_lifetimes(g);
oom:
  graph_problem(g, "out of memory");
  return -1;
}
