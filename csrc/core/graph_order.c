/* Stage ORDER: which active nodes run, and in what order.
 *   culling: nodes whose products reach no output, history read or
 *            side-effect node are culled (walk back from those sinks)
 *   edges:   create before every modify, every modify before every read,
 *            every read before the rename; after/before; sorted, deduplicated
 *   order:   Kahn's algorithm, ready nodes by (order hint, index); a cycle is
 *            reported with its nodes */
#include "graph_ir.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ----------------------------------------------------------- culling -- */
typedef struct live_walk {
  uint8_t *live;
  uint32_t *stack, sp;
  uint32_t *mstart, *mods;  /* modifiers per name (CSR) so producers(name) = creator + modifiers */
} live_walk;

/* marks the producers of an available name live */
static void produce(const fg_graph *g, const graph_names *c, live_walk *w, uint32_t nm) {
  if (!c->avail[nm]) return;
  uint32_t cr = c->creator[nm];
  if (cr < EXTERNAL_CREATOR && !w->live[cr] && node_active(&g->nodes.a[cr])) { w->live[cr] = 1; w->stack[w->sp++] = cr; }
  for (uint32_t q = w->mstart[nm]; q < w->mstart[nm + 1]; q++)
    if (!w->live[w->mods[q]]) { w->live[w->mods[q]] = 1; w->stack[w->sp++] = w->mods[q]; }
}

static int build_modifiers(fg_graph *g, const graph_names *c, live_walk *w) {
  uint32_t N = g->nodes.n, ns = c->nstr, nmods = 0;
  for (uint32_t i = 0; i < N; i++) {
    node *n = &g->nodes.a[i];
    if (node_active(n))
      for (uint32_t k = 0; k < n->decls.n; k++) nmods += n->decls.a[k].access == FG_ACCESS_MODIFY;
  }
  w->mstart = fg_malloc(&g->h, (ns + 1) * sizeof(uint32_t));
  w->mods = fg_malloc(&g->h, (nmods + 1) * sizeof(uint32_t));
  uint32_t *fill = fg_malloc(&g->h, (ns + 1) * sizeof(uint32_t));
  if (!w->mstart || !w->mods || !fill) { fg_free(&g->h, fill); return -1; }
  memset(w->mstart, 0, (ns + 1) * sizeof(uint32_t));
  for (uint32_t i = 0; i < N; i++) {
    node *n = &g->nodes.a[i];
    if (node_active(n))
      for (uint32_t k = 0; k < n->decls.n; k++)
        if (n->decls.a[k].access == FG_ACCESS_MODIFY) w->mstart[n->decls.a[k].name + 1]++;
  }
  for (uint32_t i = 0; i < ns; i++) w->mstart[i + 1] += w->mstart[i];
  memcpy(fill, w->mstart, (ns + 1) * sizeof(uint32_t));
  for (uint32_t i = 0; i < N; i++) {
    node *n = &g->nodes.a[i];
    if (node_active(n))
      for (uint32_t k = 0; k < n->decls.n; k++)
        if (n->decls.a[k].access == FG_ACCESS_MODIFY) w->mods[fill[n->decls.a[k].name]++] = i;
  }
  fg_free(&g->h, fill);
  return 0;
}

static int cull(fg_graph *g, const graph_names *c) {
  uint32_t N = g->nodes.n;
  live_walk w;
  memset(&w, 0, sizeof w);
  w.live = fg_malloc(&g->h, N + 1);
  w.stack = fg_malloc(&g->h, (N + 1) * sizeof(uint32_t));
  int rc = -1;
  if (!w.live || !w.stack || build_modifiers(g, c, &w)) goto out;
  memset(w.live, 0, N + 1);
  for (uint32_t i = 0; i < N; i++)
    if (node_active(&g->nodes.a[i]) && g->nodes.a[i].side_effects) { w.live[i] = 1; w.stack[w.sp++] = i; }
  for (uint32_t k = 0; k < g->outputs.n; k++) produce(g, c, &w, g->outputs.a[k]);
  while (w.sp) {
    node *n = &g->nodes.a[w.stack[--w.sp]];
    for (uint32_t k = 0; k < n->decls.n; k++)
      if (n->decls.a[k].access != FG_ACCESS_CREATE) produce(g, c, &w, n->decls.a[k].name);
  }
  for (uint32_t i = 0; i < N; i++) {
    node *n = &g->nodes.a[i];
    if (node_active(n) && !w.live[i]) {
      n->state = FG_NODE_CULLED;
      n->reason = graph_pstr_add(g, "its products reach no output, history read or side-effect node");
    }
  }
  rc = 0;
out:
  fg_free(&g->h, w.live); fg_free(&g->h, w.stack); fg_free(&g->h, w.mstart); fg_free(&g->h, w.mods);
  return rc;
}

/* ------------------------------------------------------------- edges -- */
static int add_edge(fg_graph *g, uint32_t a, uint32_t b) {
  if (a == b || a >= EXTERNAL_CREATOR || b >= EXTERNAL_CREATOR) return 0;
  if (VPUSH(&g->h, g->node_edges, a) || VPUSH(&g->h, g->node_edges, b)) { g->oom = 1; return -1; }
  return 0;
}

/* per name, among active nodes: readers (incl. history) and unfolded modifiers */
typedef struct name_users {
  uint32_t *rstart, *mstart;  /* CSR starts, [nstr + 2] */
  uint32_t *rl, *ml;
} name_users;

static void name_users_free(fg_graph *g, name_users *u) {
  fg_free(&g->h, u->rl); fg_free(&g->h, u->ml); fg_free(&g->h, u->rstart); fg_free(&g->h, u->mstart);
}

static int collect_name_users(fg_graph *g, const graph_names *c, name_users *u) {
  uint32_t N = g->nodes.n, ns = c->nstr, nr = 0, nm = 0;
  u->rstart = fg_malloc(&g->h, (ns + 2) * sizeof(uint32_t));
  u->mstart = fg_malloc(&g->h, (ns + 2) * sizeof(uint32_t));
  if (!u->rstart || !u->mstart) return -1;
  memset(u->rstart, 0, (ns + 2) * sizeof(uint32_t));
  memset(u->mstart, 0, (ns + 2) * sizeof(uint32_t));
  /* two sweeps over the same uses: the first counts them per name, the
     second (after the prefix sums and the allocation) fills the lists */
  for (int fill = 0; fill < 2; fill++) {
    for (uint32_t i = 0; i < N; i++) {
      node *n = &g->nodes.a[i];
      if (!node_active(n)) continue;
      for (uint32_t k = 0; k < n->decls.n; k++) {
        decl *d = &n->decls.a[k];
        if (!c->avail[d->name]) continue;
        if (d->access == FG_ACCESS_READ || d->access == FG_ACCESS_HISTORY) {
          if (fill) u->rl[u->rstart[d->name]++] = i;
          else { u->rstart[d->name + 1]++; nr++; }
        }
        if (d->access == FG_ACCESS_MODIFY && !d->folded) {
          if (fill) u->ml[u->mstart[d->name]++] = i;
          else { u->mstart[d->name + 1]++; nm++; }
        }
      }
    }
    if (fill) break;
    for (uint32_t i = 0; i < ns; i++) { u->rstart[i + 1] += u->rstart[i]; u->mstart[i + 1] += u->mstart[i]; }
    u->rl = fg_malloc(&g->h, (nr + 1) * sizeof(uint32_t));
    u->ml = fg_malloc(&g->h, (nm + 1) * sizeof(uint32_t));
    if (!u->rl || !u->ml) return -1;
  }
  /* shift back: the fill loops advanced starts to ends */
  for (uint32_t i = ns; i > 0; i--) { u->rstart[i] = u->rstart[i - 1]; u->mstart[i] = u->mstart[i - 1]; }
  u->rstart[0] = u->mstart[0] = 0;
  return 0;
}

/* create -> modify -> read -> rename, for every available name */
static int add_use_edges(fg_graph *g, const graph_names *c) {
  name_users u;
  memset(&u, 0, sizeof u);
  if (collect_name_users(g, c, &u)) { name_users_free(g, &u); return -1; }
  for (uint32_t nmx = 0; nmx < c->nstr; nmx++) {
    if (!c->avail[nmx]) continue;
    uint32_t cr = c->creator[nmx];
    if (cr < EXTERNAL_CREATOR && !node_active(&g->nodes.a[cr])) cr = NONE;
    uint32_t rn = c->renamer[nmx];
    if (rn != NONE && !node_active(&g->nodes.a[rn])) rn = NONE;
    for (uint32_t q = u.mstart[nmx]; q < u.mstart[nmx + 1]; q++) {
      uint32_t m = u.ml[q];
      if (!node_active(&g->nodes.a[m])) continue;
      add_edge(g, cr, m);
      add_edge(g, m, rn);
      for (uint32_t p = u.rstart[nmx]; p < u.rstart[nmx + 1]; p++)
        if (node_active(&g->nodes.a[u.rl[p]])) add_edge(g, m, u.rl[p]);
    }
    for (uint32_t p = u.rstart[nmx]; p < u.rstart[nmx + 1]; p++) {
      if (!node_active(&g->nodes.a[u.rl[p]])) continue;
      add_edge(g, cr, u.rl[p]);
      add_edge(g, u.rl[p], rn);
    }
    add_edge(g, cr, rn);
  }
  name_users_free(g, &u);
  return 0;
}

static void add_after_before_edges(fg_graph *g, const graph_names *c) {
  for (uint32_t i = 0; i < g->nodes.n; i++) {
    node *n = &g->nodes.a[i];
    if (!node_active(n)) continue;
    for (uint32_t k = 0; k < n->after.n + n->before.n; k++) {
      uint32_t o = c->node_of[k < n->after.n ? n->after.a[k] : n->before.a[k - n->after.n]];
      if (o == NONE || !node_active(&g->nodes.a[o])) continue;
      if (k < n->after.n) add_edge(g, o, i); else add_edge(g, i, o);
    }
  }
}

static int cmp_pair(const void *a, const void *b) {
  const uint32_t *x = a, *y = b;
  if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
  if (x[1] != y[1]) return x[1] < y[1] ? -1 : 1;
  return 0;
}

static void sort_unique_edges(fg_graph *g) {
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

/* ------------------------------------------------------------- order -- */
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

/* Reports one cycle among the nodes left unordered: walks predecessors from
 * the first of them. seen and walk are scratch of N + 1 entries. */
static void report_cycle(fg_graph *g, uint32_t *seen, uint64_t *walk) {
  uint32_t N = g->nodes.n, ne = g->node_edges.n / 2;
  uint32_t start = NONE;
  for (uint32_t i = 0; i < N && start == NONE; i++)
    if (node_active(&g->nodes.a[i]) && g->nodes.a[i].order_pos == NONE) start = i;
  memset(seen, 0, (N + 1) * sizeof(uint32_t));  /* position in walk + 1 */
  uint32_t cur = start, len = 0;
  while (!seen[cur]) {
    seen[cur] = ++len;
    walk[len - 1] = cur;
    uint32_t next = NONE;
    for (uint32_t e = 0; e < ne && next == NONE; e++)  /* a predecessor still unordered */
      if (g->node_edges.a[2 * e + 1] == cur && g->nodes.a[g->node_edges.a[2 * e]].order_pos == NONE &&
          node_active(&g->nodes.a[g->node_edges.a[2 * e]]))
        next = g->node_edges.a[2 * e];
    cur = next;
  }
  /* cycle is walk[seen[cur]-1 .. len-1] in predecessor order; print forwards */
  uint32_t from = seen[cur] - 1;
  char buf[900];
  size_t o = 0;
  /* rotate so the smallest declaration index starts */
  uint32_t best = from;
  for (uint32_t q = from; q < len; q++) if (walk[q] < walk[best]) best = q;
  uint32_t clen = len - from;
  for (uint32_t s = 0; s <= clen && o < sizeof buf - 1; s++) {
    /* forward order = reverse of predecessor walk */
    uint32_t q = from + (uint32_t)(((best - from) + clen - (s % clen)) % clen);
    o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s", s ? " -> " : "", S(g, g->nodes.a[walk[q]].name));
  }
  graph_problem(g, "cycle: %s (break it by removing an after/before or a resource use)", buf);
}

/* deterministic topological order (Kahn, smallest key first) */
static int topo_order(fg_graph *g) {
  uint32_t N = g->nodes.n, ne = g->node_edges.n / 2;
  uint32_t *indeg = fg_malloc(&g->h, (N + 1) * sizeof(uint32_t));
  uint64_t *hp = fg_malloc(&g->h, (N + 1) * sizeof(uint64_t));
  uint32_t *estart = fg_malloc(&g->h, (N + 2) * sizeof(uint32_t));
  int rc = -1;
  if (!indeg || !hp || !estart) { graph_problem(g, "out of memory"); goto out; }
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
    if (VPUSH(&g->h, g->order, v)) { graph_problem(g, "out of memory"); goto out; }
    for (uint32_t e = estart[v]; e < estart[v + 1]; e++) {
      uint32_t u = g->node_edges.a[2 * e + 1];
      if (!--indeg[u]) heap_push(hp, &nh, node_key(g, u));
    }
  }
  if (g->order.n != nact) report_cycle(g, indeg, hp);
  else rc = 0;
out:
  fg_free(&g->h, indeg); fg_free(&g->h, hp); fg_free(&g->h, estart);
  return rc;
}

/* ---------------------------------------------------------- the stage -- */
int graph_order(fg_graph *g, graph_names *c) {
  if (cull(g, c) || add_use_edges(g, c)) { graph_problem(g, "out of memory"); return -1; }
  add_after_before_edges(g, c);
  if (g->oom) { graph_problem(g, "out of memory"); return -1; }
  sort_unique_edges(g);
  return topo_order(g);
}
