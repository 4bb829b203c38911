/* Unit tests of the graph compiler core alone (no Lua, no Vulkan), plus a
 * small randomized fuzz over random valid-ish graphs checking invariants:
 * order respects edges, lifetimes contain every touch, packing is valid,
 * uses point at the right frame copies, compiles are deterministic. */
#include "fg_graph.h"
#include "fg_pack.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
#define CHECK(c)                                                          \
  do {                                                                    \
    if (!(c)) {                                                           \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
      failures++;                                                         \
    }                                                                     \
  } while (0)

static fg_graph_res_desc tex(const char *res, fg_format f) {
  fg_graph_res_desc d;
  memset(&d, 0, sizeof d);
  d.kind = FG_RES_TEXTURE;
  d.format = f;
  d.resolution = res;
  return d;
}

static uint32_t add(fg_graph *g, const char *name, int side) {
  fg_graph_node_desc nd;
  memset(&nd, 0, sizeof nd);
  nd.name = name;
  nd.side_effects = side;
  return fg_graph_add_node(g, &nd);
}

static const char *inst_name(fg_graph *g, uint32_t s) { return fg_graph_instance_get(g, s)->name; }

static void test_order_and_rules(void) {
  fg_graph *g = fg_graph_new(NULL);
  fg_graph_add_resolution(g, "main", 64, 64);
  fg_graph_add_output(g, "out");
  fg_graph_res_desc t = tex("main", FG_FORMAT_RGBA8_UNORM);
  uint32_t ren = add(g, "renamer", 0), rd = add(g, "reader", 1), mod = add(g, "modifier", 0), cr = add(g, "creator", 0);
  fg_graph_node_rename(g, ren, "x", "out", FG_USAGE_NONE, FG_STAGE_DEFAULT);
  fg_graph_node_read(g, rd, "x", FG_USAGE_SAMPLED, FG_STAGE_DEFAULT, 0);
  fg_graph_node_modify(g, mod, "x", FG_USAGE_STORAGE, FG_STAGE_DEFAULT);
  fg_graph_node_create(g, cr, "x", &t, FG_USAGE_NONE, FG_STAGE_DEFAULT);
  CHECK(fg_graph_compile(g, NULL) == 0);
  CHECK(fg_graph_instance_count(g) == 4);
  const char *want[] = {"creator", "modifier", "reader", "renamer"};
  for (uint32_t s = 0; s < 4 && s < fg_graph_instance_count(g); s++) CHECK(!strcmp(inst_name(g, s), want[s]));
  /* one logical resource through the rename: the same physical copy everywhere in frame 0 */
  uint32_t phys = FG_GRAPH_NONE;
  for (uint32_t s = 0; s < fg_graph_instance_count(g); s++) {
    const fg_graph_instance *in = fg_graph_instance_get(g, s);
    for (uint32_t u = 0; u < in->use_count; u++) {
      if (phys == FG_GRAPH_NONE) phys = in->uses[u].phys[0];
      CHECK(in->uses[u].phys[0] == phys);
    }
  }
  const fg_graph_resource *r = fg_graph_resource_get(g, phys);
  CHECK(r && !strcmp(r->name, "x") && !strcmp(r->final_name, "out") && r->is_output);
  CHECK(r && r->start == 0 && r->stop == 4 && r->touch_count == 4);
  /* default stages: storage in a node without pass -> compute */
  const fg_graph_instance *m = fg_graph_instance_get(g, 1);
  CHECK(m->uses[0].stage == FG_STAGE_COMPUTE);
  fg_graph_free(g);
}

static void test_cycle_message(void) {
  fg_graph *g = fg_graph_new(NULL);
  uint32_t a = add(g, "a", 1), b = add(g, "b", 1), c = add(g, "c", 1);
  fg_graph_node_after(g, a, "c");
  fg_graph_node_after(g, b, "a");
  fg_graph_node_after(g, c, "b");
  CHECK(fg_graph_compile(g, NULL) == -1);
  CHECK(!strcmp(fg_graph_error(g), "cycle: a -> b -> c -> a (break it by removing an after/before or a resource use)"));
  CHECK(fg_graph_instance_count(g) == 0);
  fg_graph_free(g);
}

static void test_history_lifetimes(void) {
  fg_graph *g = fg_graph_new(NULL);
  fg_graph_add_resolution(g, "main", 16, 16);
  fg_graph_res_desc t = tex("main", FG_FORMAT_R8_UNORM);
  t.history = FG_HISTORY_CLEAR;
  uint32_t a = add(g, "a", 0), b = add(g, "b", 1), c = add(g, "c", 1);
  fg_graph_node_create(g, a, "t", &t, FG_USAGE_NONE, FG_STAGE_DEFAULT);
  fg_graph_node_history(g, b, "t", FG_USAGE_SAMPLED, FG_STAGE_DEFAULT, 0);
  (void)c;
  CHECK(fg_graph_compile(g, NULL) == 0);
  /* V = 3: even [0, 3+1+1) = [0,5), odd [3, 2) wrapping */
  const fg_graph_resource *e = fg_graph_resource_get(g, 0), *o = fg_graph_resource_get(g, 1);
  CHECK(e && e->frame == 0 && e->start == 0 && e->stop == 5 && e->history);
  CHECK(o && o->frame == 1 && o->start == 3 && o->stop == 2);
  const fg_graph_instance *bi = fg_graph_instance_get(g, 1);
  CHECK(bi->uses[0].access == FG_ACCESS_HISTORY && bi->uses[0].phys[0] == 1 && bi->uses[0].phys[1] == 0);
  /* touches of the even copy: create at 0, then the history read in the next frame at V + 1 = 4 */
  CHECK(e->touch_count == 2 && e->touches[0].time == 0 && e->touches[1].time == 4);
  fg_graph_free(g);
}

static void test_set_resolution_fast_path(void) {
  fg_graph *g = fg_graph_new(NULL);
  fg_graph_add_resolution(g, "main", 100, 50);
  fg_graph_add_output(g, "out");
  fg_graph_res_desc t = tex("main", FG_FORMAT_RGBA16_SFLOAT);
  t.scale_x = 0.5;
  uint32_t a = add(g, "a", 0);
  fg_graph_node_create(g, a, "out", &t, FG_USAGE_NONE, FG_STAGE_DEFAULT);
  fg_graph_compile_desc cd;
  memset(&cd, 0, sizeof cd);
  cd.solver = "none";
  CHECK(fg_graph_compile(g, &cd) == 0);
  const fg_graph_resource *r = fg_graph_resource_get(g, 0);
  CHECK(r->width == 50 && r->height == 25 && r->size == fg_align_up(50 * 25 * 8, 16));
  CHECK(fg_graph_set_resolution(g, "main", 10, 10) == 0);
  CHECK(fg_graph_resource_get(g, 0) == r);  /* same storage: pointers survive */
  CHECK(r->width == 5 && r->height == 5 && r->size == 5 * 5 * 8 + 8);
  CHECK(fg_graph_set_resolution(g, "nope", 1, 1) == -1);
  CHECK(strstr(fg_graph_error(g), "unknown resolution 'nope'") != NULL);
  fg_graph_free(g);
}

/* A sizer that puts buffers in memory type 2 and images in type 1. */
static int split_sizer(void *user, const fg_graph_resource *r, fg_graph_memreq *out) {
  (void)user;
  out->size = r->kind == FG_RES_BUFFER ? r->bytes : (uint64_t)r->width * r->height * 4;
  out->alignment = 256;
  out->memory_type_bits = r->kind == FG_RES_BUFFER ? 2 : 1;
  out->kind = r->kind == FG_RES_BUFFER ? 0 : 1;
  return 0;
}

static void test_memory_type_groups(void) {
  fg_graph *g = fg_graph_new(NULL);
  fg_graph_add_resolution(g, "main", 8, 8);
  fg_graph_res_desc t = tex("main", FG_FORMAT_RGBA8_UNORM), b;
  memset(&b, 0, sizeof b);
  b.kind = FG_RES_BUFFER;
  b.bytes = 1000;
  uint32_t a = add(g, "a", 1);
  fg_graph_node_create(g, a, "img", &t, FG_USAGE_NONE, FG_STAGE_DEFAULT);
  fg_graph_node_create(g, a, "buf", &b, FG_USAGE_NONE, FG_STAGE_DEFAULT);
  fg_graph_compile_desc cd;
  memset(&cd, 0, sizeof cd);
  cd.sizer = split_sizer;
  CHECK(fg_graph_compile(g, &cd) == 0);
  CHECK(fg_graph_heap_count(g) == 2);
  for (uint32_t i = 0; i < fg_graph_resource_count(g); i++) {
    const fg_graph_resource *r = fg_graph_resource_get(g, i);
    const fg_graph_heap *h = fg_graph_heap_get(g, r->heap);
    CHECK(h && h->memory_type_bits == r->memory_type_bits);
  }
  fg_graph_free(g);
}

/* ------------------------------------------------------------- fuzz -- */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(uint32_t n) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return n ? (uint32_t)(rng_state % n) : 0;
}

typedef struct fres {
  char name[24]; /* "r%u_%u" of any two 32-bit values */
  uint32_t mode;
  int renamed, history_read, kind, chain;  /* chain: part of a rename chain (no history allowed) */
} fres;

static int check_invariants(fg_graph *g, const char *tag) {
  int before = failures;
  uint32_t V = fg_graph_instance_count(g), T = 2 * V;
  for (uint32_t e = 0; e < fg_graph_edge_count(g); e++) {
    uint32_t a, b;
    fg_graph_edge_get(g, e, &a, &b);
    CHECK(a < b);
  }
  for (uint32_t i = 0; i < fg_graph_resource_count(g); i++) {
    const fg_graph_resource *r = fg_graph_resource_get(g, i);
    uint32_t len = (r->stop + T - r->start) % T;
    if (len == 0) len = T;
    CHECK(r->touch_count > 0);
    uint32_t first = UINT32_MAX, last = 0;
    for (uint32_t k = 0; k < r->touch_count; k++) {
      const fg_graph_touch *t = &r->touches[k];
      CHECK((t->time + T - r->start) % T < len);  /* lifetime contains every user */
      if (t->access != FG_ACCESS_HISTORY) {
        CHECK(t->time / V == r->frame);
        if (t->slot < first) first = t->slot;
        if (t->slot > last) last = t->slot;
      } else CHECK(t->time / V != r->frame);
      const fg_graph_instance *in = fg_graph_instance_get(g, t->slot);
      CHECK(in->uses[t->use].phys[t->time / V] == r->id);
    }
    CHECK(first == r->first_slot && last == r->last_slot);
    CHECK(r->start == r->frame * V + first);
  }
  /* packing valid per heap */
  for (uint32_t h = 0; h < fg_graph_heap_count(g); h++) {
    fg_pack_item items[4096];
    uint64_t offs[4096];
    size_t n = 0;
    for (uint32_t i = 0; i < fg_graph_resource_count(g) && n < 4096; i++) {
      const fg_graph_resource *r = fg_graph_resource_get(g, i);
      if (r->heap != h) continue;
      fg_pack_item it = {r->start, r->stop, r->size, r->alignment, r->mem_kind, r->group};
      items[n] = it;
      offs[n++] = r->offset;
    }
    fg_pack_desc pd;
    memset(&pd, 0, sizeof pd);
    pd.period = T;
    char msg[256] = "";
    int ok = fg_check_packing(items, n, offs, &pd, msg, sizeof msg);
    if (!ok) fprintf(stderr, "%s: packing: %s\n", tag, msg);
    CHECK(ok);
  }
  /* active nodes' required uses are never missing; uses point at the copy of
   * their own multiplex index (fg_graph_physical agrees) and frame parity */
  for (uint32_t s = 0; s < V; s++) {
    const fg_graph_instance *in = fg_graph_instance_get(g, s);
    for (uint32_t u = 0; u < in->use_count; u++) {
      const fg_graph_use *us = &in->uses[u];
      if (!us->optional) CHECK(!us->missing);
      if (us->missing) continue;
      for (uint32_t p = 0; p < 2; p++) {
        uint32_t copy = us->access == FG_ACCESS_HISTORY ? 1 - p : p;
        CHECK(fg_graph_physical(g, us->logical, copy, in->index) == us->phys[p]);
        const fg_graph_resource *r = fg_graph_resource_get(g, us->phys[p]);
        CHECK(r && r->logical == us->logical && r->frame == copy);
        for (uint32_t d = 0; r && d < fg_graph_dim_count(g); d++)
          if (r->mode >> d & 1) CHECK(r->index[d] == in->index[d]);
      }
    }
  }
  return failures == before;
}

static fg_graph *random_graph(uint32_t seed, const char *solver) {
  rng_state = 0x9E3779B97F4A7C15ull ^ ((uint64_t)seed * 0x100000001B3ull);
  fg_graph *g = fg_graph_new(NULL);
  uint32_t ndims = rnd(3);
  const char *dn[] = {"eye", "tile"};
  for (uint32_t d = 0; d < ndims; d++) fg_graph_add_dimension(g, dn[d], 1 + rnd(3));
  fg_graph_add_resolution(g, "main", 16 + rnd(64), 16 + rnd(64));
  uint32_t N = 1 + rnd(30);
  fres res[256];
  uint32_t nres = 0;
  for (uint32_t i = 0; i < N; i++) {
    char name[16];
    snprintf(name, sizeof name, "n%u", i);
    uint32_t mode = ndims ? rnd(1u << ndims) : 0;
    const char *mux[2];
    uint32_t nm = 0;
    for (uint32_t d = 0; d < ndims; d++) if (mode >> d & 1) mux[nm++] = dn[d];
    fg_graph_node_desc nd = {name, mux, nm, rnd(4) == 0, (int64_t)i, 0, 0};
    uint32_t ni = fg_graph_add_node(g, &nd);
    /* requests on earlier resources with a narrower mode */
    uint32_t used[8];
    uint32_t nused = 0;
    for (uint32_t k = 0, tries = rnd(4); k < tries && nres; k++) {
      uint32_t r = rnd(nres);
      if ((res[r].mode & ~mode) || res[r].renamed) continue;
      int dup = 0;
      for (uint32_t q = 0; q < nused; q++) dup |= used[q] == r;
      if (dup) continue;
      used[nused++] = r;
      uint32_t what = rnd(6);
      if (what <= 2) fg_graph_node_read(g, ni, res[r].name, FG_USAGE_NONE, FG_STAGE_DEFAULT, 0);
      else if (what == 3) fg_graph_node_modify(g, ni, res[r].name, FG_USAGE_NONE, FG_STAGE_DEFAULT);
      else if (what == 4 && !res[r].history_read && res[r].kind != 1 && nres < 250) {
        res[r].renamed = 1;  /* later nodes use the new name */
        res[r].chain = 1;
        char to[16];
        snprintf(to, sizeof to, "%.10s'", res[r].name);
        fres *nr = &res[nres++];
        *nr = res[r];
        nr->renamed = 0;
        memcpy(nr->name, to, sizeof to);
        fg_graph_node_rename(g, ni, res[r].name, nr->name, FG_USAGE_NONE, FG_STAGE_DEFAULT);
      } else if (what == 5 && res[r].kind == 2 && !res[r].chain) {
        res[r].history_read = 1;
        fg_graph_node_history(g, ni, res[r].name, FG_USAGE_NONE, FG_STAGE_DEFAULT, 0);
      }
    }
    if (rnd(8) == 0) fg_graph_node_read(g, ni, "nowhere", FG_USAGE_SAMPLED, FG_STAGE_DEFAULT, rnd(2));
    for (uint32_t k = 0, nc = rnd(3); k < nc && nres < 250; k++) {
      fres *r = &res[nres++];
      snprintf(r->name, sizeof r->name, "r%u_%u", i, k);
      r->mode = mode;
      r->renamed = r->history_read = r->chain = 0;
      r->kind = (int)rnd(4);  /* 0 texture, 1 buffer, 2 texture with history, 3 blob */
      fg_graph_res_desc d;
      memset(&d, 0, sizeof d);
      if (r->kind == 1) { d.kind = FG_RES_BUFFER; d.bytes = 1 + rnd(5000); }
      else if (r->kind == 3) { d.kind = FG_RES_BLOB; d.bytes = 64; }
      else {
        d = tex(rnd(2) ? "main" : NULL, (fg_format)(1 + rnd(FG_FORMAT_COUNT - 1)));
        d.width = 1 + rnd(40);
        d.height = 1 + rnd(40);
        d.scale_x = rnd(2) ? 0.5 : 1.0;
        d.mips = 1 + rnd(3);
        if (r->kind == 2) d.history = FG_HISTORY_CLEAR;
      }
      fg_graph_node_create(g, ni, r->name, &d, FG_USAGE_NONE, FG_STAGE_DEFAULT);
    }
    if (i && rnd(5) == 0) {
      char other[16];
      snprintf(other, sizeof other, "n%u", rnd(i));
      fg_graph_node_after(g, ni, other);  /* may be incomparable: compile must say so, not crash */
    }
    if (i && rnd(25) == 0) {
      char other[16];
      snprintf(other, sizeof other, "n%u", rnd(i));
      fg_graph_node_before(g, ni, other);  /* may close a cycle */
    }
  }
  for (uint32_t k = 0; k < 2 && nres; k++) fg_graph_add_output(g, res[rnd(nres)].name);
  fg_graph_compile_desc cd;
  memset(&cd, 0, sizeof cd);
  cd.solver = solver;
  int rc = fg_graph_compile(g, &cd);
  if (rc) {
    const char *e = fg_graph_error(g);
    /* random outputs often hang off broken nodes: an output nothing provides is an error */
    int known = strstr(e, "cycle: ") || strstr(e, "not comparable") || strstr(e, "is never produced");
    if (!known) fprintf(stderr, "seed %u: unexpected error: %s\n", seed, e);
    CHECK(known);
    CHECK(fg_graph_instance_count(g) == 0);
    fg_graph_free(g);
    return NULL;
  }
  return g;
}

static void fuzz(void) {
  uint32_t compiled = 0, failed = 0;
  const char *solvers[] = {"none", "best", "scanline"};
  for (uint32_t seed = 1; seed <= 600; seed++) {
    const char *solver = solvers[seed % 3];
    fg_graph *g = random_graph(seed, solver);
    if (!g) { failed++; continue; }
    compiled++;
    char tag[64];
    snprintf(tag, sizeof tag, "seed %u (%s)", seed, solver);
    if (!check_invariants(g, tag)) fprintf(stderr, "%s failed invariants\n", tag);
    /* determinism: the same declarations give the same order and plan,
     * with every solver: the default compile packs under a work budget,
     * not the clock, so a slow machine (valgrind) decides as a fast one */
    fg_graph *g2 = random_graph(seed, solver);
    CHECK(g2 && fg_graph_instance_count(g2) == fg_graph_instance_count(g));
    fg_graph_stats s1, s2;
    fg_graph_get_stats(g, &s1);
    if (g2) fg_graph_get_stats(g2, &s2);
    int same_choice = g2 && s1.schedule == s2.schedule;
    CHECK(same_choice && s1.heap_bytes == s2.heap_bytes);
    for (uint32_t s = 0; same_choice && s < fg_graph_instance_count(g); s++) CHECK(!strcmp(inst_name(g, s), inst_name(g2, s)));
    fg_graph_free(g2);
    /* fast re-plan keeps the invariants */
    CHECK(fg_graph_set_resolution(g, "main", 1 + seed % 97, 1 + seed % 53) == 0);
    check_invariants(g, tag);
    if (fg_graph_dim_count(g)) {
      CHECK(fg_graph_set_dimension(g, fg_graph_dim_name(g, 0), 1 + seed % 3) == 0);
      check_invariants(g, tag);
    }
    /* hot-reload path: remove a node and recompile; the only new errors can
     * be references to what was removed */
    CHECK(fg_graph_node_remove(g, (uint32_t)(seed % fg_graph_node_count(g))) == 0);
    if (fg_graph_recompile(g) == 0) {
      check_invariants(g, tag);
      fg_graph_node_info ni;
      fg_graph_node_get(g, (uint32_t)(seed % fg_graph_node_count(g)), &ni);
      CHECK(ni.state == FG_NODE_REMOVED && ni.instance_count == 0);
    } else {
      const char *e = fg_graph_error(g);
      int known = strstr(e, "no node named") || strstr(e, "outputs: no node creates") || strstr(e, "cycle: ") ||
                  strstr(e, "not comparable") || strstr(e, "is never produced");
      if (!known) fprintf(stderr, "seed %u after remove: %s\n", seed, e);
      CHECK(known);
    }
    fg_graph_free(g);
  }
  printf("fuzz: %u graphs compiled, %u rejected with a cycle/mode message\n", compiled, failed);
  CHECK(compiled > 300);
}

/* Re-entering the compiler at a later stage (set_resolution: PLAN,
 * set_dimension: VALIDATE) must give the plan a full recompile of the same
 * declarations gives. Solver "none" places by itself, so offsets compare too. */
typedef struct plan_snap {
  uint32_t n, heaps;
  uint64_t naive, heap_bytes, load;
  uint64_t v[256][9];
} plan_snap;

static void snap(fg_graph *g, plan_snap *s) {
  fg_graph_stats st;
  fg_graph_get_stats(g, &st);
  memset(s, 0, sizeof *s);
  s->n = fg_graph_resource_count(g);
  s->heaps = st.heap_count;
  s->naive = st.naive_bytes;
  s->heap_bytes = st.heap_bytes;
  s->load = st.load_bytes;
  for (uint32_t i = 0; i < s->n && i < 256; i++) {
    const fg_graph_resource *r = fg_graph_resource_get(g, i);
    uint64_t v[9] = {r->width, r->height, r->size, r->alignment, r->group, r->start, r->stop, r->heap, r->offset};
    memcpy(s->v[i], v, sizeof v);
  }
}

static int snap_equal(const plan_snap *a, const plan_snap *b) {
  return a->n == b->n && a->heaps == b->heaps && a->naive == b->naive && a->heap_bytes == b->heap_bytes &&
         a->load == b->load && !memcmp(a->v, b->v, sizeof a->v);
}

static void test_reentry_matches_recompile(void) {
  static plan_snap a, b;
  uint32_t compared = 0;
  for (uint32_t seed = 1; seed <= 150; seed++) {
    fg_graph *g = random_graph(seed, "none");
    if (!g) continue;
    CHECK(fg_graph_set_resolution(g, "main", 3 + seed % 61, 5 + seed % 29) == 0);
    snap(g, &a);
    CHECK(fg_graph_recompile(g) == 0);
    snap(g, &b);
    if (!snap_equal(&a, &b)) fprintf(stderr, "seed %u: set_resolution re-plan differs from a recompile\n", seed);
    CHECK(snap_equal(&a, &b));
    if (fg_graph_dim_count(g)) {
      CHECK(fg_graph_set_dimension(g, fg_graph_dim_name(g, 0), 1 + (seed + 1) % 3) == 0);
      snap(g, &a);
      CHECK(fg_graph_recompile(g) == 0);
      snap(g, &b);
      CHECK(snap_equal(&a, &b));
    }
    compared++;
    fg_graph_free(g);
  }
  CHECK(compared > 50);
}

/* A sizer that refuses anything wider than 32 texels. */
static int narrow_sizer(void *user, const fg_graph_resource *r, fg_graph_memreq *out) {
  (void)user;
  if (r->width > 32) return 1;
  out->size = (uint64_t)r->width * r->height * 4 + r->bytes;
  out->alignment = 16;
  out->memory_type_bits = 1;
  out->kind = r->kind == FG_RES_TEXTURE;
  return 0;
}

/* A failed re-plan drops the plan (nothing half-resized stays readable);
 * set_resolution on an uncompiled graph only records the extent. */
static void test_failed_replan_clears_plan(void) {
  fg_graph *g = fg_graph_new(NULL);
  fg_graph_add_resolution(g, "main", 16, 16);
  fg_graph_add_output(g, "out");
  fg_graph_res_desc t = tex("main", FG_FORMAT_RGBA8_UNORM);
  uint32_t a = add(g, "a", 0);
  fg_graph_node_create(g, a, "out", &t, FG_USAGE_NONE, FG_STAGE_DEFAULT);
  fg_graph_compile_desc cd;
  memset(&cd, 0, sizeof cd);
  cd.sizer = narrow_sizer;
  CHECK(fg_graph_compile(g, &cd) == 0);
  CHECK(fg_graph_resource_count(g) == 2);
  CHECK(fg_graph_set_resolution(g, "main", 64, 16) == -1);
  CHECK(strstr(fg_graph_error(g), "resource 'out': the sizer could not size it") != NULL);
  CHECK(!fg_graph_compiled(g) && fg_graph_resource_count(g) == 0 && fg_graph_instance_count(g) == 0);
  CHECK(fg_graph_set_resolution(g, "main", 8, 8) == 0);
  CHECK(!fg_graph_compiled(g));
  CHECK(fg_graph_recompile(g) == 0);
  const fg_graph_resource *r = fg_graph_resource_get(g, 0);
  CHECK(r && r->width == 8 && r->height == 8 && r->size == 8 * 8 * 4);
  fg_graph_free(g);
}


/* opts.schedule: a tiled chain (gbuffer -> light -> store into one shared
 * image) runs tile after tile with the memory schedule, node after node with
 * the declared one; the memory order keeps the stores in index order (they
 * modify one image), packs smaller, reports where each instance went, and a
 * set_resolution re-plan keeps it. */
static fg_graph *tiled_chain(void) {
  fg_graph *g = fg_graph_new(NULL);
  fg_graph_add_dimension(g, "tile", 4);
  fg_graph_add_resolution(g, "main", 64, 64);
  fg_graph_add_output(g, "shot");
  fg_graph_res_desc t = tex("main", FG_FORMAT_RGBA16_SFLOAT), big = tex("main", FG_FORMAT_RGBA32_SFLOAT);
  const char *tile[] = {"tile"};
  uint32_t lay = add(g, "layout", 0);
  fg_graph_node_create(g, lay, "shot", &t, FG_USAGE_NONE, FG_STAGE_DEFAULT);
  fg_graph_node_desc nd;
  memset(&nd, 0, sizeof nd);
  nd.multiplex = tile;
  nd.multiplex_count = 1;
  nd.name = "gbuffer";
  uint32_t gb = fg_graph_add_node(g, &nd);
  fg_graph_node_create(g, gb, "gb", &big, FG_USAGE_NONE, FG_STAGE_DEFAULT);
  nd.name = "light";
  uint32_t li = fg_graph_add_node(g, &nd);
  fg_graph_node_read(g, li, "gb", FG_USAGE_SAMPLED, FG_STAGE_DEFAULT, 0);
  fg_graph_node_create(g, li, "hdr", &t, FG_USAGE_NONE, FG_STAGE_DEFAULT);
  nd.name = "store";
  uint32_t st = fg_graph_add_node(g, &nd);
  fg_graph_node_read(g, st, "hdr", FG_USAGE_SAMPLED, FG_STAGE_DEFAULT, 0);
  fg_graph_node_modify(g, st, "shot", FG_USAGE_STORAGE, FG_STAGE_DEFAULT);
  return g;
}

static void test_schedule_memory(void) {
  fg_graph *d = tiled_chain(), *m = tiled_chain();
  fg_graph_compile_desc cd;
  memset(&cd, 0, sizeof cd);
  cd.schedule = FG_SCHEDULE_DECLARED;
  CHECK(fg_graph_compile(d, &cd) == 0);
  cd.schedule = FG_SCHEDULE_DEFAULT;  /* = memory */
  CHECK(fg_graph_compile(m, &cd) == 0);
  fg_graph_stats sd, sm;
  fg_graph_get_stats(d, &sd);
  fg_graph_get_stats(m, &sm);
  CHECK(sd.schedule == FG_SCHEDULE_DECLARED && sd.moved == 0 && sd.heap_declared == sd.heap_bytes);
  CHECK(sm.schedule == FG_SCHEDULE_MEMORY && sm.schedule_asked == FG_SCHEDULE_MEMORY);
  CHECK(sm.heap_bytes < sm.heap_declared && sm.heap_declared == sd.heap_bytes);
  CHECK(sm.moved > 0 && sm.instances == 13);
  /* declared: node-major, consecutive; memory: tile after tile */
  const char *want[] = {"layout", "gbuffer[tile=1]", "light[tile=1]", "store[tile=1]", "gbuffer[tile=2]"};
  for (uint32_t s = 0; s < 5; s++) CHECK(!strcmp(inst_name(m, s), want[s]));
  CHECK(!strcmp(inst_name(d, 2), "gbuffer[tile=2]"));
  fg_graph_node_info ni;
  uint32_t gb = fg_graph_node_find(m, "gbuffer");
  CHECK(fg_graph_node_get(m, gb, &ni) == 0 && ni.first_instance == 1 && ni.interleaved && strstr(ni.moved, "index-major"));
  for (uint32_t k = 0; k < 4; k++) {
    uint32_t s = fg_graph_node_instance_slot(m, gb, k);
    CHECK(s == 1 + 3 * k);
    CHECK(fg_graph_instance_get(m, s)->index[0] == k);
    CHECK(fg_graph_instance_get(m, s)->declared_slot == 1 + k);
    CHECK(fg_graph_node_instance_slot(d, gb, k) == 1 + k);
  }
  CHECK(fg_graph_node_instance_slot(m, gb, 4) == FG_GRAPH_NONE);
  CHECK(fg_graph_node_get(d, gb, &ni) == 0 && !ni.interleaved && !ni.moved[0] && ni.first_instance == 1);
  CHECK(!fg_graph_instance_get(m, 0)->moved[0] && fg_graph_instance_get(m, 2)->moved[0]);
  /* edges follow the slots; the stores (modifiers of one image) stay in index order */
  for (uint32_t e = 0; e < fg_graph_edge_count(m); e++) {
    uint32_t a, b;
    fg_graph_edge_get(m, e, &a, &b);
    CHECK(a < b);
  }
  uint32_t stn = fg_graph_node_find(m, "store");
  for (uint32_t k = 1; k < 4; k++) CHECK(fg_graph_node_instance_slot(m, stn, k - 1) < fg_graph_node_instance_slot(m, stn, k));
  /* lifetimes follow the new slots: one gb copy is live at a time */
  for (uint32_t r = 0; r < fg_graph_resource_count(m); r++) {
    const fg_graph_resource *R = fg_graph_resource_get(m, r);
    if (!strcmp(R->name, "gb") && R->frame == 0) CHECK(R->last_slot == R->first_slot + 1);
  }
  /* a re-plan keeps the order */
  CHECK(fg_graph_set_resolution(m, "main", 32, 32) == 0);
  for (uint32_t s = 0; s < 5; s++) CHECK(!strcmp(inst_name(m, s), want[s]));
  CHECK(fg_schedule_from_name("memory") == FG_SCHEDULE_MEMORY && fg_schedule_from_name("fast") == -1);
  CHECK(!strcmp(fg_schedule_name(FG_SCHEDULE_DECLARED), "declared"));
  fg_graph_free(d);
  fg_graph_free(m);
}

int main(void) {
  test_schedule_memory();
  test_order_and_rules();
  test_cycle_message();
  test_history_lifetimes();
  test_set_resolution_fast_path();
  test_memory_type_groups();
  test_reentry_matches_recompile();
  test_failed_replan_clears_plan();
  fuzz();
  if (failures) {
    fprintf(stderr, "%d checks failed\n", failures);
    return 1;
  }
  printf("test_graph: all checks passed\n");
  return 0;
}
