/* Fuzz target: the pipeline compiler fed through a structured byte decoder.
 * Random graphs of up to 12 nodes over 8 resource names, with creates,
 * reads (optional or not), modifies, renames, history reads, after/before
 * edges, render-pass attachments, side effects, multiplexing over up to two
 * dimensions and random solvers, profiles and node orders (declared or
 * memory-aware). A rejected graph must come with
 * a message; a compiled one must pass:
 *  - order: every expanded edge runs forward;
 *  - lifetimes: every touch of a physical resource lies inside its planned
 *    cyclic lifetime, and every non-missing use of an instance is a touch of
 *    the physical resource it names (no instance touches memory outside the
 *    plan);
 *  - memory: each heap's packing passes fg_check_packing (and the
 *    brute-force reference, pack_ref.h) and its makespan is
 *    at least its LOAD;
 *  - async compute: one node in four runs on the async queue (a pass on it
 *    must be refused with a message); fg_graph_async_check finds no two
 *    resources sharing memory that may be live at once, from the waits'
 *    happens-before alone;
 * and the same again after a set_resolution and a set_dimension. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fg_graph.h"
#include "fg_graph_async.h"
#include "fg_pack.h"
#include "fuzz_reader.h"
#include "pack_ref.h"

#define FAIL(...) do { fprintf(stderr, "fuzz_graph: " __VA_ARGS__); fputc('\n', stderr); abort(); } while (0)

static const char *const RES[] = {"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7"};
static const char *const NODE[] = {"n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8", "n9", "n10", "n11"};
static const char *const DIM[] = {"d0", "d1"};

static int in_life(const fg_graph_resource *r, uint32_t t, uint32_t period) {
  if (r->start == r->stop) return 1;
  if (r->start < r->stop) return t >= r->start && t < r->stop;
  return t >= r->start || t < r->stop; /* wraps */
  (void)period;
}

static void check_plan(fg_graph *g, uint64_t granularity) {
  fg_graph_stats st;
  fg_graph_get_stats(g, &st);
  uint32_t V = fg_graph_instance_count(g), T = 2 * V;
  for (uint32_t i = 0; i < fg_graph_edge_count(g); i++) {
    uint32_t a, b;
    if (fg_graph_edge_get(g, i, &a, &b) == 0 && a >= b) FAIL("edge %u -> %u runs backwards", a, b);
  }
  uint32_t nres = fg_graph_resource_count(g);
  for (uint32_t id = 0; id < nres; id++) {
    const fg_graph_resource *r = fg_graph_resource_get(g, id);
    for (uint32_t k = 0; k < r->touch_count; k++) {
      const fg_graph_touch *t = &r->touches[k];
      if (t->time >= T) FAIL("%s: touch at %u outside the timeline (T = %u)", r->name, t->time, T);
      if (r->heap != FG_GRAPH_NONE && !in_life(r, t->time, T))
        FAIL("%s frame %u: touched at %u by slot %u outside its lifetime [%u, %u)", r->name, r->frame,
             t->time, t->slot, r->start, r->stop);
    }
  }
  for (uint32_t s = 0; s < V; s++) {
    const fg_graph_instance *in = fg_graph_instance_get(g, s);
    if (in->slot != s) FAIL("instance at %u says slot %u", s, in->slot);
    for (uint32_t u = 0; u < in->use_count; u++) {
      const fg_graph_use *use = &in->uses[u];
      if (use->missing) continue;
      for (int p = 0; p < 2; p++) {
        uint32_t ph = use->phys[p];
        if (ph == FG_GRAPH_NONE) continue;
        if (ph >= nres) FAIL("%s use %s: physical id %u out of range", in->name, use->name, ph);
        const fg_graph_resource *r = fg_graph_resource_get(g, ph);
        int found = 0;
        for (uint32_t k = 0; k < r->touch_count && !found; k++)
          found = r->touches[k].slot == s && r->touches[k].use == u;
        if (!found) FAIL("%s use %s (parity %d) is not among %s's touches", in->name, use->name, p, r->name);
      }
    }
  }
  for (uint32_t h = 0; h < fg_graph_heap_count(g); h++) {
    const fg_graph_heap *hp = fg_graph_heap_get(g, h);
    fg_pack_item *items = calloc(nres + 1, sizeof *items);
    uint64_t *off = calloc(nres + 1, sizeof *off);
    size_t n = 0;
    for (uint32_t id = 0; id < nres; id++) {
      const fg_graph_resource *r = fg_graph_resource_get(g, id);
      if (r->heap != h) continue;
      items[n] = (fg_pack_item){r->start, r->stop, r->size, r->alignment, r->mem_kind, 0};
      off[n++] = r->offset;
      if (r->offset + r->size > hp->bytes) FAIL("%s ends past its heap's %llu bytes", r->name,
                                                (unsigned long long)hp->bytes);
    }
    fg_pack_desc d = {.period = T, .granularity = granularity};
    char msg[256];
    if (n != hp->resource_count) FAIL("heap %u: %zu resources, says %u", h, n, hp->resource_count);
    if (!fg_check_packing(items, n, off, &d, msg, sizeof msg)) FAIL("heap %u: %s", h, msg);
    const char *why;
    if (!ref_check_packing(items, n, off, &d, &why)) FAIL("heap %u: the reference checker refuses it (%s)", h, why);
    if (hp->bytes < hp->load) FAIL("heap %u: %llu bytes below LOAD %llu", h, (unsigned long long)hp->bytes,
                                   (unsigned long long)hp->load);
    free(items); free(off);
  }
  char amsg[256];
  if (!fg_graph_async_check(g, amsg, sizeof amsg)) FAIL("async: %s", amsg);
}

static fg_graph_res_desc random_desc(fz_reader *rd, uint32_t ndims) {
  fg_graph_res_desc d = {0};
  uint8_t b = fz_u8(rd);
  d.kind = b % 8 == 0 ? FG_RES_BUFFER : b % 8 == 1 ? FG_RES_BLOB : FG_RES_TEXTURE;
  d.format = (fg_format)(1 + fz_u8(rd) % (FG_FORMAT_COUNT - 1));
  if (fz_u8(rd) & 1) {
    d.resolution = "main";
    d.scale_x = d.scale_y = (fz_u8(rd) & 1) ? 0.5 : 1.0;
  } else {
    d.width = 1 + fz_u8(rd) % 64;
    d.height = 1 + fz_u8(rd) % 64;
  }
  d.mips = 1 + fz_u8(rd) % 3;
  d.bytes = 16 + 16 * (uint64_t)fz_u8(rd);
  d.history = (fg_history_policy)(fz_u8(rd) % 3);
  (void)ndims;
  return d;
}

/* Mostly well-formed graphs (so the compiler's success path is reached):
 * each name is created once in the graph and used once per node, and
 * attachments name the node's own writes; one op in 16 ignores these rules
 * so that the error paths are fuzzed too. */
static void declare(fg_graph *g, fz_reader *rd, uint32_t ndims) {
  uint32_t nnodes = 1 + fz_u8(rd) % 12, created = 0;
  for (uint32_t i = 0; i < nnodes; i++) {
    const char *mux[2];
    uint32_t mc = 0, mask = fz_u8(rd), used = 0, writes = 0;
    for (uint32_t d = 0; d < ndims; d++)
      if (mask & (1u << d)) mux[mc++] = DIM[d];
    int async = (mask & 0x60) == 0x60;
    fg_graph_node_desc nd = {.name = NODE[i], .multiplex = mux, .multiplex_count = mc,
                             .side_effects = (mask & 0x80) != 0, .queue = async ? FG_QUEUE_ASYNC : 0};
    uint32_t node = fg_graph_add_node(g, &nd);
    if (node == FG_GRAPH_NONE) return;
    uint32_t ops = fz_u8(rd) % 6;
    for (uint32_t k = 0; k < ops && fz_left(rd); k++) {
      uint8_t op = fz_u8(rd) % 9, ai = fz_u8(rd) % 8, bi = fz_u8(rd) % 8;
      int wild = fz_u8(rd) % 16 == 0;
      const char *a = RES[ai], *b = RES[bi];
      fg_usage us = (fg_usage)(fz_u8(rd) % FG_USAGE_COUNT);
      int opt = fz_u8(rd) & 1;
      if (!wild && op != 7 && op != 8 && (used & (1u << ai))) continue;
      if (!wild && (op == 0 || op == 1) && (created & (1u << ai))) op = 2;      /* read it instead */
      if (!wild && op == 5 && (created & (1u << bi) || bi == ai)) op = 4;        /* modify instead */
      switch (op) {
        case 0: case 1: { fg_graph_res_desc d = random_desc(rd, ndims);
                          fg_graph_node_create(g, node, a, &d, us, FG_STAGE_DEFAULT);
                          created |= 1u << ai; writes |= 1u << ai; break; }
        case 2: case 3: fg_graph_node_read(g, node, a, us, FG_STAGE_DEFAULT, opt); break;
        case 4: fg_graph_node_modify(g, node, a, us, FG_STAGE_DEFAULT); writes |= 1u << ai; break;
        case 5: fg_graph_node_rename(g, node, a, b, us, FG_STAGE_DEFAULT);
                created |= 1u << bi; writes |= 1u << ai; break;
        case 6: fg_graph_node_history(g, node, a, us, FG_STAGE_DEFAULT, opt); break;
        case 7: { uint32_t other = fz_u8(rd) % (wild ? 12 : nnodes);
                  if (opt) fg_graph_node_after(g, node, NODE[other]);
                  else fg_graph_node_before(g, node, NODE[other]);
                  continue; }
        case 8: { float c[4] = {0, 0, 0, 1}; float dc = 1.0f;
                  if (!wild && (async || !(writes & (1u << ai)))) continue;
                  if (opt) fg_graph_node_color(g, node, a, (fz_u8(rd) & 1) ? c : NULL);
                  else fg_graph_node_depth(g, node, a, &dc, NULL);
                  continue; }
      }
      used |= 1u << ai;
    }
  }
  uint32_t nout = 1 + fz_u8(rd) % 2;
  for (uint32_t i = 0; i < nout; i++) {
    uint32_t r = fz_u8(rd) % 8;
    for (uint32_t k = 0; k < 8 && created && !(created & (1u << r)); k++) r = (r + 1) % 8;
    fg_graph_add_output(g, RES[r]);
  }
}

/* How many inputs compiled: the driver prints it, so a decoder that stops
 * reaching the compiler's success path is noticed. */
static unsigned long fuzz_graph_compiled, fuzz_graph_rejected, fuzz_graph_async;
void fuzz_report(void);
void fuzz_report(void) {
  printf("  compiled %lu (with async nodes %lu), rejected with a message %lu\n", fuzz_graph_compiled,
         fuzz_graph_async, fuzz_graph_rejected);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_reader rd = {data, size, 0};
  fg_graph *g = fg_graph_new(NULL);
  if (!g) return 0;
  uint8_t flags = fz_u8(&rd);
  uint32_t ndims = flags % 3;
  for (uint32_t d = 0; d < ndims; d++) fg_graph_add_dimension(g, DIM[d], 1 + fz_u8(&rd) % 3);
  fg_graph_add_resolution(g, "main", 1 + fz_u8(&rd), 1 + fz_u8(&rd));
  declare(g, &rd, ndims);
  size_t nsolvers = 0;
  while (fg_pack_solvers[nsolvers]) nsolvers++;
  fg_graph_compile_desc cd = {.solver = fg_pack_solvers[(flags >> 2) % nsolvers], .pack_time_budget_ms = 0.1,
                              .schedule = (fg_schedule)(fz_u8(&rd) % 3)};
  fg_graph_profile_by_name((flags & 0x80) ? "nvidia" : "lavapipe", &cd.profile);
  uint64_t gran = cd.profile.granularity;
  if (fg_graph_compile(g, &cd) != 0) {
    if (!fg_graph_error(g)[0]) FAIL("compile failed without a message");
    fuzz_graph_rejected++;
    if (getenv("FUZZ_VERBOSE")) fprintf(stderr, "%s\n---\n", fg_graph_error(g));
  } else {
    fuzz_graph_compiled++;
    fuzz_graph_async += fg_graph_async_count(g) > 0;
    check_plan(g, gran);
    fg_graph_async_stats ast;
    if (fg_graph_async_count(g) && (flags & 2) && fg_graph_get_async_stats(g, &ast) == 0 &&
        ast.async_instances != fg_graph_async_count(g))
      FAIL("async stats count %u instances, the plan %u", ast.async_instances, fg_graph_async_count(g));
    if (fg_graph_set_resolution(g, "main", 1 + fz_u8(&rd), 1 + fz_u8(&rd)) == 0) check_plan(g, gran);
    else if (!fg_graph_error(g)[0]) FAIL("set_resolution failed without a message");
    if (ndims && fg_graph_set_dimension(g, DIM[0], 1 + fz_u8(&rd) % 3) == 0) check_plan(g, gran);
  }
  fg_graph_free(g);
  return 0;
}
