/* The graph compiler and the packer take all their CPU memory from the
 * caller's hooks (fg_graph_desc.alloc, fg_pack_desc.hooks): linked with
 * --wrap=malloc,calloc,realloc,free,... over the core library (CMakeLists),
 * so a direct call between the marks lands in a counter here. Between them:
 * compiles with every solver, a capacity decision, a re-plan after a
 * resolution change (offset hint, the packer's cache), a dimension change,
 * direct fg_pack calls with a cache, and the frees. Then: no direct call,
 * the hooks used, every hooked block freed (bytes back to 0), and the hooked
 * results equal the malloc ones (hooks change where memory comes from, not
 * what is computed). */
#include "fg_graph.h"
#include "fg_pack.h"
#include "fg_graph_async.h"
#include <stdint.h>
#include <stdio.h>
#include "fg_test.h"
#include <stdlib.h>
#include <string.h>
#include "fg_test_wrap.h"


static int armed;
static long direct;
static void *first_caller;
static void note(void *caller) {
  if (!armed) return;
  if (!direct) first_caller = caller;
  direct++;
}

static uint64_t fg_test_rand(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return *s >> 33;
}

/* A chain of passes over textures and buffers, some multiplexed over a
 * dimension, one with history: lifetimes that overlap in several ways. */
static fg_graph *make_graph(const fg_alloc_hooks *h) {
  fg_graph_desc gd;
  memset(&gd, 0, sizeof gd);
  if (h) gd.alloc = *h;
  fg_graph *g = fg_graph_new(&gd);
  if (!g) return NULL;
  fg_graph_add_dimension(g, "eye", 2);
  fg_graph_add_resolution(g, "main", 96, 64);
  fg_graph_add_output(g, "final");
  const char *eye[] = {"eye"};
  char prev[16] = "", older[16] = "";
  for (uint32_t i = 0; i < 12; i++) {
    char name[16], res[16];
    snprintf(name, sizeof name, "pass%u", i);
    snprintf(res, sizeof res, i == 11 ? "final" : "r%u", i);
    /* every third pass runs once per eye; what it makes is its own (side effects keep it) */
    int mux = i % 3 == 1 && i != 11;
    fg_graph_node_desc nd;
    memset(&nd, 0, sizeof nd);
    nd.name = name;
    nd.multiplex = mux ? eye : NULL;
    nd.multiplex_count = mux ? 1u : 0u;
    nd.side_effects = mux;
    nd.user = (int64_t)i;
    if (i == 5) nd.queue = FG_QUEUE_ASYNC;  /* the async relation packs too (fg_graph_get_async_stats) */
    uint32_t n = fg_graph_add_node(g, &nd);
    fg_graph_res_desc d;
    memset(&d, 0, sizeof d);
    if (i % 4 == 3) {
      d.kind = FG_RES_BUFFER;
      d.bytes = 4096u * (i + 1);
    } else {
      d.kind = FG_RES_TEXTURE;
      d.format = i % 2 ? FG_FORMAT_RGBA16_SFLOAT : FG_FORMAT_RGBA8_UNORM;
      d.resolution = "main";
      d.scale_x = d.scale_y = i % 3 ? 0.5 : 1.0;
      if (i == 4) d.history = FG_HISTORY_CLEAR;
    }
    fg_graph_node_create(g, n, res, &d, FG_USAGE_NONE, FG_STAGE_DEFAULT);
    if (prev[0]) fg_graph_node_read(g, n, prev, FG_USAGE_NONE, FG_STAGE_DEFAULT, 0);
    if (older[0]) fg_graph_node_read(g, n, older, FG_USAGE_NONE, FG_STAGE_DEFAULT, 0);
    if (mux) continue;
    memcpy(older, prev, sizeof prev);
    memcpy(prev, res, sizeof res);
  }
  return g;
}

/* Every heap's bytes after each step, as a checksum of what was computed. */
typedef struct trace { uint64_t v[64]; int n; } trace;
static void note_heaps(fg_graph *g, trace *t) {
  for (uint32_t i = 0; i < fg_graph_heap_count(g) && t->n < 64; i++) t->v[t->n++] = fg_graph_heap_get(g, i)->bytes;
  if (t->n < 64) t->v[t->n++] = 0xFFFFFFFF;  /* step separator */
}

static void run(const fg_alloc_hooks *h, trace *t) {
  for (size_t s = 0; s < fg_pack_solver_count(); s++) {
    const char *solver = fg_pack_solver_name(s);
    fg_graph *g = make_graph(h);
    CHECK(g != NULL, "fg_graph_new");
    if (!g) return;
    fg_graph_compile_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.solver = solver;
    CHECK(fg_graph_compile(g, &cd) == 0, "%s: %s", solver, fg_graph_error(g));
    note_heaps(g, t);
    fg_graph_async_stats as;
    CHECK(fg_graph_get_async_stats(g, &as) == 0, "%s: async stats", solver);
    if (t->n < 64) t->v[t->n++] = as.heap_bytes;
    if (s == 0) {
      /* a re-plan (hint, cache), a re-expansion, a full recompile */
      CHECK(fg_graph_set_resolution(g, "main", 128, 80) == 0, "set_resolution: %s", fg_graph_error(g));
      note_heaps(g, t);
      CHECK(fg_graph_set_dimension(g, "eye", 3) == 0, "set_dimension: %s", fg_graph_error(g));
      note_heaps(g, t);
      CHECK(fg_graph_recompile(g) == 0, "recompile: %s", fg_graph_error(g));
      note_heaps(g, t);
    }
    fg_graph_free(g);
  }
  /* a capacity decision below the minimum packing */
  fg_graph *g = make_graph(h);
  fg_graph_compile_desc cd;
  memset(&cd, 0, sizeof cd);
  cd.pack_capacity = 4096;
  CHECK(g && fg_graph_compile(g, &cd) == 0, "capacity: %s", g ? fg_graph_error(g) : "");
  if (g) note_heaps(g, t);
  fg_graph_free(g);
  /* fg_pack itself, twice on a cache (the second call reuses it) */
  fg_pack_item items[40];
  uint64_t rs = 12345;  /* irregular sizes and lifetimes: the baselines miss LOAD, so the search runs */
  for (int i = 0; i < 40; i++) {
    uint64_t a = fg_test_rand(&rs) % 24, w = 1 + fg_test_rand(&rs) % 10;
    items[i] = (fg_pack_item){a, a + w, 64u * (1 + fg_test_rand(&rs) % 97), 64, (uint32_t)(i % 2), 0};
  }
  fg_pack_cache *c = fg_pack_cache_new_hooks(h);
  CHECK(c != NULL, "fg_pack_cache_new_hooks");
  uint64_t off[40];
  for (int k = 0; k < 2; k++) {
    fg_pack_desc pd;
    memset(&pd, 0, sizeof pd);
    pd.period = k ? 0 : 40;
    pd.hooks = h;
    pd.cache = c;
    fg_pack_result r;
    char err[256] = "";
    CHECK(fg_pack(items, 40, &pd, off, &r, err, sizeof err) == 0, "fg_pack: %s", err);
    if (t->n < 64) t->v[t->n++] = r.makespan;
  }
  fg_pack_cache_free(c);
  /* the exact decision search: the capacity just below what was found, and
   * a generous work budget (deterministic: work, not time) */
  uint64_t best = t->n ? t->v[t->n - 1] : 0;
  for (int k = 0; k < 2; k++) {
    fg_pack_desc pd;
    memset(&pd, 0, sizeof pd);
    pd.hooks = h;
    if (k) pd.work_budget = 20000000;
    else pd.capacity = best > 256 ? best - 256 : 1;
    fg_pack_result r;
    char err[256] = "";
    CHECK(fg_pack(items, 40, &pd, off, &r, err, sizeof err) == 0, "fg_pack (%d): %s", k, err);
    if (t->n < 64) t->v[t->n++] = r.makespan;
  }
}

int main(void) {
  /* the same work with malloc first: what the hooked run must equal */
  trace plain = {{0}, 0}, hooked = {{0}, 0};
  run(NULL, &plain);
  counter cnt = {0};
  fg_alloc_hooks h = {count_realloc, &cnt};
  armed = 1;
  run(&h, &hooked);
  armed = 0;
  CHECK(direct == 0, "%ld direct malloc/calloc/realloc/free calls in the graph compiler or the packer (first from %p)",
        direct, first_caller);
  CHECK(cnt.allocs > 100, "only %ld allocations through the hooks", cnt.allocs);
  CHECK(cnt.live_blocks == 0 && cnt.live_bytes == 0 && cnt.allocs == cnt.frees,
        "hooks: %ld allocations, %ld frees, %ld blocks and %lld bytes live", cnt.allocs, cnt.frees, cnt.live_blocks,
        cnt.live_bytes);
  CHECK(plain.n == hooked.n && plain.n > 10 && !memcmp(plain.v, hooked.v, sizeof(uint64_t) * (size_t)plain.n),
        "the hooked compiles and packs differ from the malloc ones (%d vs %d values)", hooked.n, plain.n);

  /* a cache made with other hooks than the call's is refused, with how to fix it */
  fg_pack_cache *c = fg_pack_cache_new();
  fg_pack_item it = {0, 1, 64, 0, 0, 0};
  uint64_t o;
  fg_pack_desc pd;
  memset(&pd, 0, sizeof pd);
  pd.hooks = &h;
  pd.cache = c;
  char err[256] = "";
  CHECK(fg_pack(&it, 1, &pd, &o, NULL, err, sizeof err) == -1 && strstr(err, "fg_pack_cache_new_hooks"),
        "a cache with other hooks: '%s'", err);
  fg_pack_cache_free(c);
  printf("%s: %ld hooked allocations (%ld reallocs), %ld direct\n", failures ? "FAILED" : "ok", cnt.allocs,
         cnt.reallocs, direct);
  return failures ? 1 : 0;
}
