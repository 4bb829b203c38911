/* Stage LIFETIMES: when each physical resource is live.
 * Nodes occupy slots 0..|V|-1 in execution order; the timeline is cyclic of
 * length T = 2|V| (two frames). Each use touches both frame copies of its
 * resource (a history use touches the other parity's copy, in the following
 * frame); a copy's lifetime runs from its first user to its last user, or to
 * its last history reader of the next frame, or to the end of its frame for
 * an output (the design's "Lifetimes" section). */
#include "graph_ir.h"
#include <stdlib.h>
#include <string.h>

/* uses' phys[] from the multiplex index EXPAND stored there to physical ids;
 * counts touches per resource (kept in touch_count) and first/last slots */
static void resolve_uses(fg_graph *g, int again) {
  for (uint32_t s = 0; s < g->inst.n; s++) {
    fg_graph_instance *in = &g->inst.a[s];
    for (uint32_t u = 0; u < in->use_count; u++) {
      fg_graph_use *us = (fg_graph_use *)&in->uses[u];
      if (us->logical == NONE) continue;
      int hist = us->access == FG_ACCESS_HISTORY;
      if (!again) {  /* a second run finds them resolved */
        uint32_t base = g->logicals.a[us->logical].phys_base + us->phys[0] * 2;
        us->phys[0] = base + (hist ? 1 : 0);
        us->phys[1] = base + (hist ? 0 : 1);
      }
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
}

/* Touches grouped by resource (CSR). On return each resource's touch_count
 * holds its group's start and end[r] its group's end. */
static int collect_touches(fg_graph *g, uint32_t *end) {
  uint32_t NP = g->phys.n, V = g->inst.n, total = 0;
  for (uint32_t r = 0; r < NP; r++) { uint32_t k = g->phys.a[r].touch_count; g->phys.a[r].touch_count = total; total += k; }
  if (vec_grow(&g->h, (void **)&g->touches.a, &g->touches.cap, total + 1, sizeof(fg_graph_touch))) return -1;
  g->touches.n = total;
  for (uint32_t r = 0; r < NP; r++) end[r] = g->phys.a[r].touch_count;
  for (uint32_t s = 0; s < V; s++) {
    const fg_graph_instance *in = &g->inst.a[s];
    for (uint32_t u = 0; u < in->use_count; u++) {
      const fg_graph_use *us = &in->uses[u];
      if (us->logical == NONE) continue;
      for (uint32_t p = 0; p < 2; p++) {
        fg_graph_touch t = {s, u, p * V + s, us->access, us->usage, us->stage};
        g->touches.a[end[us->phys[p]]++] = t;
      }
    }
  }
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

/* [start, stop) of one copy whose touches are touches[b, e) */
static void set_lifetime(fg_graph *g, fg_graph_resource *R, uint32_t b, uint32_t e) {
  uint32_t V = g->inst.n, T = 2 * V;
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

int graph_lifetimes(fg_graph *g, int again) {
  uint32_t NP = g->phys.n;
  for (uint32_t r = 0; again && r < NP; r++) {
    fg_graph_resource *R = &g->phys.a[r];
    R->touch_count = 0;
    R->first_slot = NONE;
    R->last_slot = 0;
  }
  resolve_uses(g, again);
  uint32_t *end = fg_malloc(&g->h, (NP + 1) * sizeof(uint32_t));
  if (!end || collect_touches(g, end)) {
    fg_free(&g->h, end);
    graph_problem(g, "out of memory");
    return -1;
  }
  for (uint32_t r = 0; r < NP; r++) set_lifetime(g, &g->phys.a[r], g->phys.a[r].touch_count, end[r]);
  fg_free(&g->h, end);
  /* offsets -> pointers, now that touches and phys_index stopped growing */
  for (uint32_t r = 0; r < NP; r++) {
    fg_graph_resource *R = &g->phys.a[r];
    R->touches = REBASE(g->touches.a, R->touches);
    if (!again) R->index = REBASE(g->phys_index.a, R->index);
  }
  return graph_async_lifetimes(g);
}
