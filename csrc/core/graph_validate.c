/* Stage VALIDATE: check the declarations and resolve names.
 *   1. per-node checks: unique names, known dimensions, descriptions, passes
 *   2. creators: one per name (renames count as creation), after/before
 *      targets, outputs
 *   3. broken nodes: needing what nobody provides, iterated to a fixpoint
 *   4. logical resources and their rename chains
 *   5. semantic checks on the active nodes: history, multiplex modes
 * Every problem of a step is reported before the compile stops. */
#include "graph_ir.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------ per-name tables -- */
int graph_names_init(fg_graph *g, graph_names *c) {
  uint32_t N = g->nodes.n, ns = c->nstr = g->st.n;
  c->creator = fg_malloc(&g->h, ns * sizeof(uint32_t));
  c->creator_decl = fg_malloc(&g->h, ns * sizeof(uint32_t));
  c->renamer = fg_malloc(&g->h, ns * sizeof(uint32_t));
  c->avail = fg_malloc(&g->h, ns + 1);
  c->logical = fg_malloc(&g->h, ns * sizeof(uint32_t));
  c->ext_of = fg_malloc(&g->h, ns * sizeof(uint32_t));
  c->is_output = fg_malloc(&g->h, ns + 1);
  c->node_of = fg_malloc(&g->h, (ns + 1) * sizeof(uint32_t));
  if (!c->creator || !c->creator_decl || !c->renamer || !c->avail || !c->logical || !c->ext_of || !c->is_output ||
      !c->node_of) {
    graph_problem(g, "out of memory");
    return -1;
  }
  for (uint32_t i = 0; i < ns; i++) {
    c->creator[i] = c->renamer[i] = c->logical[i] = c->ext_of[i] = c->creator_decl[i] = NONE;
    c->avail[i] = 0;
    c->is_output[i] = 0;
    c->node_of[i] = NONE;
  }
  /* backwards, so a duplicated name maps to its first declaration */
  for (uint32_t i = N; i-- > 0;)
    if (!g->nodes.a[i].removed) c->node_of[g->nodes.a[i].name] = i;
  return 0;
}

void graph_names_free(fg_graph *g, graph_names *c) {
  fg_free(&g->h, c->creator); fg_free(&g->h, c->creator_decl); fg_free(&g->h, c->renamer);
  fg_free(&g->h, c->avail); fg_free(&g->h, c->logical); fg_free(&g->h, c->ext_of);
  fg_free(&g->h, c->is_output); fg_free(&g->h, c->node_of);
}

/* ------------------------------------------------- 1. per-node checks -- */
static void check_node_mux(fg_graph *g, node *n, const char *nn) {
  for (uint32_t k = 0; k < n->mux.n; k++) {
    uint32_t d = 0;
    while (d < g->dims.n && g->dims.a[d].name != n->mux.a[k]) d++;
    if (d == g->dims.n) {
      char list[256] = "";
      size_t o = 0;
      for (uint32_t e = 0; e < g->dims.n && o < sizeof list; e++)
        o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", e ? ", " : "", S(g, g->dims.a[e].name));
      graph_suggest sg;
      char hint[160];
      graph_suggest_begin(&sg, S(g, n->mux.a[k]));
      for (uint32_t e = 0; e < g->dims.n; e++) graph_suggest_feed(&sg, S(g, g->dims.a[e].name));
      graph_problem(g, "node '%s': multiplex: unknown dimension '%s' (declared dimensions: %s)%s", nn,
                    S(g, n->mux.a[k]), g->dims.n ? list : "none", graph_suggest_text(&sg, hint, sizeof hint));
    } else n->mode |= 1u << d;
  }
}

static void check_create_desc(fg_graph *g, const decl *d, const char *nn, const char *rn) {
  res_desc_store *s = &g->descs.a[d->desc];
  fg_graph_res_desc *rd = &s->d;
  if (rd->kind == FG_RES_TEXTURE) {
    uint32_t w = 0, h = 0;
    if (rd->format <= FG_FORMAT_UNDEFINED || rd->format >= FG_FORMAT_COUNT)
      graph_problem(g, "node '%s': create '%s': missing or unknown format", nn, rn);
    if (graph_resolve_extent(g, s, &w, &h) == NONE) {
      char list[256] = "";
      size_t o = 0;
      for (uint32_t e = 0; e < g->res.n && o < sizeof list; e++)
        o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", e ? ", " : "", S(g, g->res.a[e].name));
      graph_suggest sg;
      char hint[160];
      graph_suggest_begin(&sg, S(g, s->resolution));
      for (uint32_t e = 0; e < g->res.n; e++) graph_suggest_feed(&sg, S(g, g->res.a[e].name));
      graph_problem(g, "node '%s': create '%s': unknown resolution '%s' (declared resolutions: %s)%s", nn, rn,
                    S(g, s->resolution), g->res.n ? list : "none", graph_suggest_text(&sg, hint, sizeof hint));
    } else if (s->resolution == NONE && (w == 0 || h == 0))
      graph_problem(g, "node '%s': create '%s': size must be positive (got %ux%u)", nn, rn, w, h);
  } else if (rd->kind == FG_RES_BUFFER && rd->bytes == 0) {
    graph_problem(g, "node '%s': create '%s': buffer size must be a positive number of bytes", nn, rn);
  }
}

/* descriptions, redundant reads, and modify+rename of one name folded into
 * the rename (one read-write use, then the rename) */
static void check_node_decls(fg_graph *g, node *n, const char *nn) {
  for (uint32_t k = 0; k < n->decls.n; k++) {
    decl *d = &n->decls.a[k];
    d->folded = 0;
    const char *rn = S(g, d->name);
    if (d->access == FG_ACCESS_CREATE) check_create_desc(g, d, nn, rn);
    if (d->access == FG_ACCESS_READ || d->access == FG_ACCESS_HISTORY) {
      for (uint32_t q = 0; q < n->decls.n; q++) {
        decl *e = &n->decls.a[q];
        if (e->name == d->name && (e->access == FG_ACCESS_MODIFY || e->access == FG_ACCESS_RENAME) &&
            d->access == FG_ACCESS_READ)
          graph_problem(g, "node '%s': reads and %ss '%s': declare it once (modify already allows reading)", nn,
                        e->access == FG_ACCESS_MODIFY ? "modifie" : "rename", rn);
        if (e->access == FG_ACCESS_CREATE && e->name == d->name && d->access == FG_ACCESS_READ)
          graph_problem(g, "node '%s': creates and reads '%s': a node's own writes are readable without a read", nn,
                        rn);
      }
    }
    if (d->access == FG_ACCESS_MODIFY) {
      for (uint32_t q = 0; q < n->decls.n; q++)
        if (n->decls.a[q].access == FG_ACCESS_RENAME && n->decls.a[q].name == d->name) {
          d->folded = 1;
          if (n->decls.a[q].usage == FG_USAGE_NONE) n->decls.a[q].usage = d->usage;
          if (n->decls.a[q].stage == FG_STAGE_DEFAULT) n->decls.a[q].stage = d->stage;
        }
    }
  }
}

/* every attachment names something the node writes (or reads as depth_read) */
static void check_node_pass(fg_graph *g, const node *n, const char *nn) {
  for (uint32_t k = 0; k <= n->colors.n; k++) {
    const attach_decl *a = k < n->colors.n ? &n->colors.a[k] : (n->has_depth ? &n->depth : NULL);
    if (!a) continue;
    int found = 0, color = k < n->colors.n;
    for (uint32_t q = 0; q < n->decls.n; q++) {
      const decl *e = &n->decls.a[q];
      if ((e->name == a->name && e->access != FG_ACCESS_READ && e->access != FG_ACCESS_HISTORY) ||
          (e->access == FG_ACCESS_RENAME && e->to == a->name)) {
        found = 1;
        /* the attachment's layout comes from this usage: another one would
         * begin rendering in e.g. TRANSFER_DST_OPTIMAL */
        if (e->usage != FG_USAGE_NONE && e->usage != (color ? FG_USAGE_COLOR : FG_USAGE_DEPTH) && !e->folded)
          graph_problem(g, "node '%s': pass %s '%s' is declared with usage '%s'; an attachment the node writes has "
                           "usage '%s': leave usage out or write \"%s\"", nn, color ? "color" : "depth", S(g, a->name),
                        fg_usage_name(e->usage), color ? "color" : "depth", color ? "color" : "depth");
      }
      if (k == n->colors.n && e->name == a->name && e->access == FG_ACCESS_READ &&
          (e->usage == FG_USAGE_DEPTH_READ || e->usage == FG_USAGE_NONE))
        found = 1;  /* read-only depth attachment */
    }
    if (!found) {
      /* a misspelt attachment: the closest name the node writes or reads */
      graph_suggest sg;
      char hint[160];
      graph_suggest_begin(&sg, S(g, a->name));
      for (uint32_t q = 0; q < n->decls.n; q++)
        graph_suggest_feed(&sg, S(g, n->decls.a[q].access == FG_ACCESS_RENAME ? n->decls.a[q].to : n->decls.a[q].name));
      graph_problem(g, "node '%s': pass %s '%s': the node must create, modify or rename it%s%s", nn,
                    k < n->colors.n ? "color" : "depth", S(g, a->name),
                    k < n->colors.n ? "" : " (or read it as depth_read for a read-only depth attachment)",
                    graph_suggest_text(&sg, hint, sizeof hint));
    }
  }
}

/* also resets every node's compile state */
static void check_nodes(fg_graph *g, graph_names *c) {
  for (uint32_t d = 0; d < g->dims.n; d++)
    if (g->dims.a[d].count == 0)
      graph_problem(g, "dimension '%s': count must be a positive integer", S(g, g->dims.a[d].name));
  for (uint32_t i = 0; i < g->nodes.n; i++) {
    node *n = &g->nodes.a[i];
    n->state = n->removed ? FG_NODE_REMOVED : FG_NODE_ACTIVE;
    n->reason = NONE;
    n->mode = 0;
    n->inst_first = n->inst_count = 0;
    n->order_pos = NONE;
    if (n->removed) continue;
    const char *nn = S(g, n->name);
    if (c->node_of[n->name] != i)
      graph_problem(g, "node '%s' is declared twice (nodes #%u and #%u): node names must be unique", nn,
                    c->node_of[n->name] + 1, i + 1);
    check_node_mux(g, n, nn);
    check_node_decls(g, n, nn);
    check_node_pass(g, n, nn);
  }
  for (uint32_t e = 0; e < g->externals.n; e++) {
    uint32_t nm = g->externals.a[e].name;
    if (c->ext_of[nm] != NONE) graph_problem(g, "external '%s' is declared twice", S(g, nm));
    c->ext_of[nm] = e;
  }
}

/* ------------------------------------------------------- 2. creators -- */
static void find_node_creations(fg_graph *g, graph_names *c, uint32_t i) {
  node *n = &g->nodes.a[i];
  for (uint32_t k = 0; k < n->decls.n; k++) {
    decl *d = &n->decls.a[k];
    uint32_t nm = d->access == FG_ACCESS_CREATE ? d->name : d->access == FG_ACCESS_RENAME ? d->to : NONE;
    if (d->access == FG_ACCESS_RENAME) {
      if (c->renamer[d->name] != NONE && c->renamer[d->name] != i)
        graph_problem(g, "resource '%s' is renamed by both '%s' and '%s': only one node may rename a resource",
                      S(g, d->name), S(g, g->nodes.a[c->renamer[d->name]].name), S(g, n->name));
      else c->renamer[d->name] = i;
    }
    if (nm == NONE) continue;
    uint32_t cr = c->creator[nm];
    if (cr == EXTERNAL_CREATOR)
      graph_problem(g, "resource '%s' is declared external but node '%s' also %s it", S(g, nm), S(g, n->name),
                    d->access == FG_ACCESS_CREATE ? "creates" : "renames into");
    else if (cr != NONE && cr != i)
      graph_problem(g, "resource '%s' is created by both '%s' and '%s' (renames count as creation): use modify in one of them",
                    S(g, nm), S(g, g->nodes.a[cr].name), S(g, n->name));
    else if (cr == i && c->creator_decl[nm] != k)
      graph_problem(g, "node '%s': creates '%s' twice", S(g, n->name), S(g, nm));
    else { c->creator[nm] = i; c->creator_decl[nm] = k; }
  }
  for (uint32_t k = 0; k < n->after.n + n->before.n; k++) {
    uint32_t o = k < n->after.n ? n->after.a[k] : n->before.a[k - n->after.n];
    if (c->node_of[o] == NONE) {
      graph_suggest sg;
      char hint[160];
      graph_suggest_begin(&sg, S(g, o));
      for (uint32_t j = 0; j < g->nodes.n; j++)
        if (!g->nodes.a[j].removed) graph_suggest_feed(&sg, S(g, g->nodes.a[j].name));
      graph_problem(g, "node '%s': %s '%s': no node named '%s'%s", S(g, n->name), k < n->after.n ? "after" : "before",
                    S(g, o), S(g, o), graph_suggest_text(&sg, hint, sizeof hint));
    }
  }
}

static void find_creators(fg_graph *g, graph_names *c) {
  for (uint32_t e = 0; e < g->externals.n; e++) c->creator[g->externals.a[e].name] = EXTERNAL_CREATOR;
  for (uint32_t i = 0; i < g->nodes.n; i++)
    if (!g->nodes.a[i].removed) find_node_creations(g, c, i);
  for (uint32_t k = 0; k < g->outputs.n; k++)
    if (c->creator[g->outputs.a[k]] == NONE) {
      graph_suggest sg;
      char hint[160];
      graph_suggest_begin(&sg, S(g, g->outputs.a[k]));
      for (uint32_t i = 0; i < c->nstr; i++)
        if (c->creator[i] != NONE) graph_suggest_feed(&sg, S(g, i));
      graph_problem(g, "outputs: no node creates '%s' and it is not external%s", S(g, g->outputs.a[k]),
                    graph_suggest_text(&sg, hint, sizeof hint));
    } else c->is_output[g->outputs.a[k]] = 1;
}

/* ---------------------------------------------------- 3. broken nodes -- */
/* avail[name]: created by an active node or external, or renamed into from
 * an available name */
static void mark_available(fg_graph *g, graph_names *c) {
  uint32_t N = g->nodes.n;
  for (uint32_t i = 0; i < c->nstr; i++) c->avail[i] = 0;
  for (uint32_t e = 0; e < g->externals.n; e++) c->avail[g->externals.a[e].name] = 1;
  for (uint32_t i = 0; i < N; i++) {
    node *n = &g->nodes.a[i];
    if (!node_active(n)) continue;
    for (uint32_t k = 0; k < n->decls.n; k++)
      if (n->decls.a[k].access == FG_ACCESS_CREATE) c->avail[n->decls.a[k].name] = 1;
  }
  for (int changed = 1; changed;) {
    changed = 0;
    for (uint32_t i = 0; i < N; i++) {
      node *n = &g->nodes.a[i];
      if (!node_active(n)) continue;
      for (uint32_t k = 0; k < n->decls.n; k++) {
        decl *d = &n->decls.a[k];
        if (d->access == FG_ACCESS_RENAME && c->avail[d->name] && !c->avail[d->to]) { c->avail[d->to] = 1; changed = 1; }
      }
    }
  }
}

/* The closest resource name in scope (created, renamed into or external)
 * to a name nothing provides: "; did you mean 'ao'?" or "". */
static const char *suggest_resource(const fg_graph *g, const graph_names *c, uint32_t typed, char *buf, size_t len) {
  graph_suggest sg;
  graph_suggest_begin(&sg, S(g, typed));
  for (uint32_t i = 0; i < c->nstr; i++)
    if (c->creator[i] != NONE) graph_suggest_feed(&sg, S(g, i));
  return graph_suggest_text(&sg, buf, len);
}

/* a node missing a required name breaks, which may make its products
 * missing for others: repeat until nothing changes */
static void mark_broken(fg_graph *g, graph_names *c) {
  char hint[160];
  for (uint32_t i = 0; i < g->nodes.n; i++) g->nodes.a[i].broken_decl = NONE;
  for (;;) {
    mark_available(g, c);
    int newly = 0;
    for (uint32_t i = 0; i < g->nodes.n; i++) {
      node *n = &g->nodes.a[i];
      if (!node_active(n)) continue;
      for (uint32_t k = 0; k < n->decls.n; k++) {
        decl *d = &n->decls.a[k];
        if (d->access == FG_ACCESS_CREATE || d->optional || c->avail[d->name]) continue;
        uint32_t cr = c->creator[d->name];
        n->state = FG_NODE_BROKEN;
        n->broken_decl = k;
        if (cr < EXTERNAL_CREATOR)  /* an active creator that does not provide it is being broken too */
          n->reason = graph_pstr_add(g, "%s '%s': its creator '%s' is broken", graph_access_verb(d->access),
                                     S(g, d->name), S(g, g->nodes.a[cr].name));
        else
          n->reason = graph_pstr_add(g, "%s '%s': no node creates it and it is not external%s",
                                     graph_access_verb(d->access), S(g, d->name),
                                     suggest_resource(g, c, d->name, hint, sizeof hint));
        newly = 1;
        break;
      }
    }
    if (!newly) break;
  }
}

/* The node whose own unresolved name broke broken node i (i itself when
 * nothing creates the name it needs). */
static uint32_t broken_root(const fg_graph *g, const graph_names *c, uint32_t i) {
  for (uint32_t steps = 0; steps <= g->nodes.n; steps++) {
    const node *n = &g->nodes.a[i];
    if (n->state != FG_NODE_BROKEN || n->broken_decl == NONE) return i;
    uint32_t cr = c->creator[n->decls.a[n->broken_decl].name];
    if (cr >= EXTERNAL_CREATOR || cr == i) return i;
    i = cr;
  }
  return i;
}

static uint32_t output_root(const fg_graph *g, const graph_names *c, uint32_t nm) {
  uint32_t cr = c->creator[nm];
  if (c->avail[nm] || cr >= EXTERNAL_CREATOR) return NONE;
  return broken_root(g, c, cr);
}

/* A name nothing provides is reported where it is written, first, with the
 * closest name in scope; what it pruned follows, indented, so the message
 * never sends the reader to a node that is only missing its inputs. It is a
 * problem when it looks misspelt (a close name exists) or when it leaves an
 * output unproduced; otherwise the node stays broken (pruned) as declared
 * (also when the name was made by a node a hot reload removed). */
/* a name a removed node made (graph:update, rt:reload): its readers are
 * pruned as declared, even when another name resembles it */
static int made_by_removed(const fg_graph *g, uint32_t nm) {
  for (uint32_t i = 0; i < g->removed_made.n; i++)
    if (g->removed_made.a[i] == nm) return 1;
  return 0;
}

static void report_unresolved(fg_graph *g, graph_names *c) {
  char hint[160];
  for (uint32_t r = 0; r < g->nodes.n; r++) {
    const node *rn = &g->nodes.a[r];
    if (rn->state != FG_NODE_BROKEN || broken_root(g, c, r) != r) continue;
    int typo = 0, lost = 0;
    for (uint32_t k = 0; k < rn->decls.n; k++) {
      const decl *d = &rn->decls.a[k];
      if (d->access == FG_ACCESS_CREATE || d->optional || c->creator[d->name] != NONE) continue;
      if (suggest_resource(g, c, d->name, hint, sizeof hint)[0] && !made_by_removed(g, d->name)) typo = 1;
    }
    for (uint32_t k = 0; k < g->outputs.n; k++) lost |= output_root(g, c, g->outputs.a[k]) == r;
    if (!typo && !lost) continue;
    for (uint32_t k = 0; k < rn->decls.n; k++) {
      const decl *d = &rn->decls.a[k];
      if (d->access == FG_ACCESS_CREATE || d->optional || c->creator[d->name] != NONE) continue;
      const char *h = suggest_resource(g, c, d->name, hint, sizeof hint);
      graph_problem(g, "node '%s': %s '%s': no node creates '%s' and it is not external%s", S(g, rn->name),
                    graph_access_verb(d->access), S(g, d->name), S(g, d->name),
                    h[0] ? h : d->access == FG_ACCESS_READ || d->access == FG_ACCESS_HISTORY
                                 ? " (create it in a node, declare it external, or make the read optional)"
                                 : " (create it in a node or declare it external)");
    }
    graph_problem(g, "  pruned because of it: node '%s' is broken", S(g, rn->name));
    for (uint32_t i = 0; i < g->nodes.n; i++)
      if (i != r && g->nodes.a[i].state == FG_NODE_BROKEN && broken_root(g, c, i) == r)
        graph_problem(g, "  node '%s' is broken (%s)", S(g, g->nodes.a[i].name), PS(g, g->nodes.a[i].reason));
    for (uint32_t k = 0; k < g->outputs.n; k++)
      if (output_root(g, c, g->outputs.a[k]) == r)
        graph_problem(g, "  outputs: '%s' is never produced (its producer '%s' is broken)", S(g, g->outputs.a[k]),
                      S(g, g->nodes.a[c->creator[g->outputs.a[k]]].name));
  }
}

/* ------------------------------------------- 4. logical resources -- */
static int add_logicals(fg_graph *g, graph_names *c) {
  for (uint32_t e = 0; e < g->externals.n; e++) {
    logical L;
    memset(&L, 0, sizeof L);
    L.name = L.final_name = g->externals.a[e].name;
    L.creator = EXTERNAL_CREATOR;
    L.desc = g->externals.a[e].desc;
    L.mode = g->descs.a[L.desc].d.mode;
    L.external = 1;
    L.renamed = 0;
    c->logical[L.name] = g->logicals.n;
    if (VPUSH(&g->h, g->logicals, L)) return -1;
  }
  for (uint32_t i = 0; i < g->nodes.n; i++) {
    node *n = &g->nodes.a[i];
    if (!node_active(n)) continue;
    for (uint32_t k = 0; k < n->decls.n; k++) {
      decl *d = &n->decls.a[k];
      if (d->access != FG_ACCESS_CREATE) continue;
      logical L;
      memset(&L, 0, sizeof L);
      L.name = L.final_name = d->name;
      L.creator = i;
      L.desc = d->desc;
      L.mode = n->mode;
      c->logical[d->name] = g->logicals.n;
      if (VPUSH(&g->h, g->logicals, L)) return -1;
    }
  }
  return 0;
}

/* every name a logical is renamed into maps to it */
static void follow_renames(fg_graph *g, graph_names *c) {
  for (int changed = 1; changed;) {
    changed = 0;
    for (uint32_t i = 0; i < g->nodes.n; i++) {
      node *n = &g->nodes.a[i];
      if (!node_active(n)) continue;
      for (uint32_t k = 0; k < n->decls.n; k++) {
        decl *d = &n->decls.a[k];
        if (d->access != FG_ACCESS_RENAME || c->logical[d->name] == NONE || c->logical[d->to] != NONE) continue;
        uint32_t l = c->logical[d->to] = c->logical[d->name];
        g->logicals.a[l].renamed = 1;
        g->logicals.a[l].final_name = d->to;
        changed = 1;
      }
    }
  }
  /* final name: follow the chain from the root */
  for (uint32_t l = 0; l < g->logicals.n; l++) {
    uint32_t nm = g->logicals.a[l].name, steps = 0;
    while (c->renamer[nm] != NONE && node_active(&g->nodes.a[c->renamer[nm]]) && steps++ < c->nstr) {
      const node *rn = &g->nodes.a[c->renamer[nm]];
      uint32_t to = NONE;
      for (uint32_t k = 0; k < rn->decls.n; k++)
        if (rn->decls.a[k].access == FG_ACCESS_RENAME && rn->decls.a[k].name == nm) to = rn->decls.a[k].to;
      if (to == NONE) break;
      nm = to;
    }
    g->logicals.a[l].final_name = nm;
  }
  for (uint32_t i = 0; i < c->nstr; i++)
    if (c->is_output[i] && c->logical[i] != NONE) g->logicals.a[c->logical[i]].is_output = 1;
}

/* --------------------------------------------- 5. semantic checks -- */
static void check_active_node(fg_graph *g, graph_names *c, const node *n) {
  char m1[128], m2[128];
  const char *nn = S(g, n->name);
  for (uint32_t k = 0; k < n->decls.n; k++) {
    const decl *d = &n->decls.a[k];
    uint32_t l = c->logical[d->name];
    if (l == NONE) continue;
    logical *L = &g->logicals.a[l];
    if (d->access == FG_ACCESS_HISTORY) {
      if (L->external)
        graph_problem(g, "node '%s': history '%s': external resources have no history", nn, S(g, d->name));
      else if (L->renamed)
        graph_problem(g, "node '%s': history '%s': cannot read the history of a renamed resource ('%s' is renamed to '%s')",
                      nn, S(g, d->name), S(g, L->name), S(g, L->final_name));
      else L->history = 1;
    }
    if (L->mode & ~n->mode) {
      graph_mode_str(g, L->mode, m1, sizeof m1);
      graph_mode_str(g, n->mode, m2, sizeof m2);
      graph_problem(g, "node '%s': %s '%s': the resource has multiplex mode %s, wider than the node's %s "
                       "(a node may only use resources of its own or a narrower mode)",
                    nn, graph_access_verb(d->access), S(g, d->name), m1, m2);
    }
  }
  for (uint32_t k = 0; k < n->after.n + n->before.n; k++) {
    uint32_t o = c->node_of[k < n->after.n ? n->after.a[k] : n->before.a[k - n->after.n]];
    if (o == NONE || !node_active(&g->nodes.a[o])) continue;
    uint32_t a = n->mode, b = g->nodes.a[o].mode;
    if ((a & b) != a && (a & b) != b) {
      graph_mode_str(g, a, m1, sizeof m1);
      graph_mode_str(g, b, m2, sizeof m2);
      graph_problem(g, "node '%s': %s '%s': multiplex modes %s and %s are not comparable", nn,
                    k < n->after.n ? "after" : "before", S(g, g->nodes.a[o].name), m1, m2);
    }
  }
}

/* ---------------------------------------------------------- the stage -- */
int graph_validate(fg_graph *g, graph_names *c) {
  check_nodes(g, c);
  if (g->nproblems) return -1;
  find_creators(g, c);
  if (g->nproblems) return -1;
  mark_broken(g, c);
  report_unresolved(g, c);
  if (g->nproblems) return -1;
  if (add_logicals(g, c)) { graph_problem(g, "out of memory"); return -1; }
  follow_renames(g, c);
  for (uint32_t i = 0; i < g->nodes.n; i++)
    if (node_active(&g->nodes.a[i])) check_active_node(g, c, &g->nodes.a[i]);
  return g->nproblems ? -1 : 0;
}
