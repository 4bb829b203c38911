/* Async compute in the plan (graph_async.c): the waits and windows of a
 * known graph, the memory its async resources may share, the checker (and
 * that it catches a plan that breaks the rule), the cost statistics, and
 * random graphs with async nodes. */
#define FG_TEST_SEED 0xA5C31ull
#include "fg_graph.h"
#include "fg_graph_async.h"
#include "fg_pack.h"
#include "fg_test.h"
#include <stdlib.h>
#include <string.h>

enum { SMALL = 256, BIG = 1 << 20 };

static uint32_t node(fg_graph *g, const char *name, int async) {
  fg_graph_node_desc d = {.name = name, .queue = async ? FG_QUEUE_ASYNC : FG_QUEUE_GRAPHICS};
  return fg_graph_add_node(g, &d);
}
static void create(fg_graph *g, uint32_t n, const char *name, uint64_t bytes) {
  fg_graph_res_desc d = {.kind = FG_RES_BUFFER, .bytes = bytes};
  fg_graph_node_create(g, n, name, &d, FG_USAGE_STORAGE, FG_STAGE_DEFAULT);
}
static void read(fg_graph *g, uint32_t n, const char *name) {
  fg_graph_node_read(g, n, name, FG_USAGE_STORAGE, FG_STAGE_DEFAULT, 0);
}

/* slot: g0 A1 g1 A2 g2 g3 g4. A1 (async) reads g0's a, its x1 is read by g2;
 * A2 (async) reads g1's b, its x2 is read by g4. x1 and d are big: d may
 * take x1's memory once A1 has joined (before g2), not before. */
static fg_graph *build(int async) {
  fg_graph *g = fg_graph_new(NULL);
  uint32_t n;
  n = node(g, "g0", 0); create(g, n, "a", SMALL);
  n = node(g, "A1", async); read(g, n, "a"); create(g, n, "x1", BIG);
  n = node(g, "g1", 0); create(g, n, "b", SMALL);
  n = node(g, "A2", async); read(g, n, "b"); create(g, n, "x2", SMALL);
  n = node(g, "g2", 0); read(g, n, "x1"); create(g, n, "c", SMALL);
  n = node(g, "g3", 0); read(g, n, "c"); create(g, n, "d", BIG);
  n = node(g, "g4", 0); read(g, n, "x2"); read(g, n, "d"); create(g, n, "out", SMALL);
  fg_graph_add_output(g, "out");
  fg_graph_compile_desc cd = {.schedule = FG_SCHEDULE_DECLARED};
  if (fg_graph_compile(g, &cd)) {
    fprintf(stderr, "%s\n", fg_graph_error(g));
    fg_graph_free(g);
    return NULL;
  }
  return g;
}

static const fg_graph_resource *find(const fg_graph *g, const char *name, uint32_t frame) {
  for (uint32_t i = 0; i < fg_graph_resource_count(g); i++) {
    const fg_graph_resource *r = fg_graph_resource_get(g, i);
    if (!strcmp(r->name, name) && r->frame == frame) return r;
  }
  return NULL;
}
static int share(const fg_graph_resource *a, const fg_graph_resource *b) {
  return a->heap == b->heap && a->heap != FG_GRAPH_NONE && a->offset < b->offset + b->size &&
         b->offset < a->offset + a->size;
}

static void known_graph(void) {
  fg_graph *g = build(1);
  CHECK(g != NULL, "the async graph compiles");
  if (!g) return;
  CHECK(fg_graph_async_count(g) == 2, "two async instances, got %u", fg_graph_async_count(g));
  CHECK(fg_graph_instance_queue(g, 1) == FG_QUEUE_ASYNC && fg_graph_instance_queue(g, 2) == FG_QUEUE_GRAPHICS,
        "queues per slot");
  uint32_t f, j;
  CHECK(fg_graph_async_window(g, 1, &f, &j) == 0 && f == 0 && j == 4, "A1 forks after g0, joins before g2: %u %u", f, j);
  CHECK(fg_graph_async_window(g, 3, &f, &j) == 0 && f == 2 && j == 6, "A2 forks after g1, joins before g4: %u %u", f, j);
  CHECK(fg_graph_async_window(g, 0, &f, &j) == -1, "a graphics slot has no window");
  CHECK(fg_graph_async_wait(g, 1) == 0 && fg_graph_async_wait(g, 3) == 2, "async slots wait for their fork");
  CHECK(fg_graph_async_wait(g, 4) == 1 && fg_graph_async_wait(g, 6) == 3, "g2 waits for A1, g4 for A2");
  CHECK(fg_graph_async_wait(g, 2) == FG_GRAPH_NONE && fg_graph_async_wait(g, 5) == FG_GRAPH_NONE,
        "g1 and g3 wait for nothing");
  CHECK(fg_graph_async_concurrent(g, 1, 2) && fg_graph_async_concurrent(g, 1, 3) == 0,
        "A1 runs beside g1; A1 before A2 on its queue");
  CHECK(!fg_graph_async_concurrent(g, 1, 0) && !fg_graph_async_concurrent(g, 1, 4), "A1 after g0, before g2");
  CHECK(fg_graph_async_concurrent(g, 3, 4) && fg_graph_async_concurrent(g, 3, 5) && !fg_graph_async_concurrent(g, 3, 6),
        "A2 beside g2 and g3, before g4");
  char msg[256];
  CHECK(fg_graph_async_check(g, msg, sizeof msg), "the plan passes the checker: %s", msg);
  /* The async resources never share memory with those of graphics slots
   * they may run beside. */
  for (uint32_t fr = 0; fr < 2; fr++) {
    const fg_graph_resource *x2 = find(g, "x2", fr), *c = find(g, "c", fr), *d = find(g, "d", fr),
                            *x1 = find(g, "x1", fr), *b = find(g, "b", fr);
    CHECK(x2 && c && d && x1 && b, "resources found");
    if (!x2 || !c || !d || !x1 || !b) continue;
    CHECK(!share(x2, c) && !share(x2, d), "x2 (A2) apart from c (g2) and d (g3)");
    CHECK(!share(x1, b), "x1 (A1) apart from b (g1)");
  }
  fg_graph_async_stats st;
  CHECK(fg_graph_get_async_stats(g, &st) == 0, "stats");
  CHECK(st.async_instances == 2 && st.regions == 1, "one fork/join region of two instances: %u %u",
        st.async_instances, st.regions);
  CHECK(st.heap_bytes < st.region_bytes, "precise windows beat whole regions: %llu vs %llu",
        (unsigned long long)st.heap_bytes, (unsigned long long)st.region_bytes);
  CHECK(st.region_bytes >= 2ull * BIG, "the region keeps x1 apart from d: %llu", (unsigned long long)st.region_bytes);
  CHECK(st.serial_bytes <= st.heap_bytes, "serial never needs more: %llu vs %llu",
        (unsigned long long)st.serial_bytes, (unsigned long long)st.heap_bytes);

  /* A checker that cannot fail proves nothing: put c on x2's bytes. */
  fg_graph_resource *c0 = (fg_graph_resource *)find(g, "c", 0);
  const fg_graph_resource *x20 = find(g, "x2", 0);
  if (c0 && x20) {
    uint64_t keep_off = c0->offset;
    uint32_t keep_heap = c0->heap;
    c0->offset = x20->offset;
    c0->heap = x20->heap;
    CHECK(!fg_graph_async_check(g, msg, sizeof msg), "the checker refuses c on x2's memory");
    CHECK(strstr(msg, "may run at once") || strstr(msg, "serial"), "its message says why: %s", msg);
    c0->offset = keep_off;
    c0->heap = keep_heap;
  }
  fg_graph_free(g);

  fg_graph *s = build(0);
  CHECK(s != NULL, "the serial twin compiles");
  if (s) {
    fg_graph_async_stats ss;
    CHECK(fg_graph_async_count(s) == 0 && fg_graph_get_async_stats(s, &ss) == 0, "serial stats");
    CHECK(ss.serial_bytes == ss.heap_bytes && ss.region_bytes == ss.heap_bytes, "a serial plan costs nothing more");
    CHECK(fg_graph_async_check(s, msg, sizeof msg), "serial plan passes: %s", msg);
    fg_graph_free(s);
  }
}

static void errors(void) {
  fg_graph *g = fg_graph_new(NULL);
  uint32_t n = node(g, "blur", 1);
  fg_graph_res_desc d = {.kind = FG_RES_TEXTURE, .format = FG_FORMAT_RGBA8_UNORM, .width = 8, .height = 8};
  fg_graph_node_create(g, n, "img", &d, FG_USAGE_COLOR, FG_STAGE_DEFAULT);
  fg_graph_node_color(g, n, "img", NULL);
  fg_graph_add_output(g, "img");
  CHECK(fg_graph_compile(g, &(fg_graph_compile_desc){0}) != 0, "an async node with a pass is refused");
  CHECK(strstr(fg_graph_error(g), "blur") && strstr(fg_graph_error(g), "async"), "named: %s", fg_graph_error(g));
  fg_graph_free(g);
  g = fg_graph_new(NULL);
  fg_graph_node_desc nd = {.name = "odd", .queue = 7};
  n = fg_graph_add_node(g, &nd);
  create(g, n, "o", SMALL);
  fg_graph_add_output(g, "o");
  CHECK(fg_graph_compile(g, &(fg_graph_compile_desc){0}) != 0 && strstr(fg_graph_error(g), "queue"),
        "an unknown queue is refused: %s", fg_graph_error(g));
  fg_graph_free(g);
}

/* Random chains of buffers over up to 14 nodes, a third of them async;
 * every plan passes the checker with every solver and both schedules. */
static void random_graphs(void) {
  static const char *names[] = {"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "r13"};
  static const char *nodes[] = {"n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8", "n9", "n10", "n11", "n12", "n13"};
  uint32_t compiled = 0, with_async = 0;
  for (int it = 0; it < 400; it++) {
    fg_graph *g = fg_graph_new(NULL);
    uint32_t nn = 2 + (uint32_t)rndu(13);
    for (uint32_t i = 0; i < nn; i++) {
      uint32_t n = node(g, nodes[i], i > 0 && rndu(3) == 0);
      for (uint32_t k = 0, nr = (uint32_t)rndu(3); k < nr && i; k++) read(g, n, names[rndu(i)]);
      create(g, n, names[i], 16 * (1 + rndu(64)));
    }
    fg_graph_add_output(g, names[nn - 1]);
    fg_graph_compile_desc cd = {.solver = fg_pack_solver_name((size_t)rndu(fg_pack_solver_count())),
                                .schedule = (fg_schedule)rndu(3)};
    if (fg_graph_compile(g, &cd) == 0) {
      compiled++;
      with_async += fg_graph_async_count(g) > 0;
      char msg[256];
      CHECK(fg_graph_async_check(g, msg, sizeof msg), "iteration %d (%s): %s", it, cd.solver, msg);
      fg_graph_async_stats st;
      CHECK(fg_graph_get_async_stats(g, &st) == 0, "stats %d", it);
    } else {
      CHECK(0, "iteration %d does not compile: %s", it, fg_graph_error(g));
    }
    fg_graph_free(g);
  }
  CHECK(with_async > 100, "random graphs reach async plans: %u of %u", with_async, compiled);
}

int main(void) {
  known_graph();
  errors();
  random_graphs();
  if (failures) return 1;
  printf("test_graph_async: ok\n");
  return 0;
}
