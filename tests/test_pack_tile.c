/* pack_tile and the decision search's phases: flat loads detected; offsets
 * with a phase (o = r mod A) searched exactly; tilings of guillotine cuts
 * rebuilt at their optimum, through pk_tile and through fg_pack; every
 * packing returned valid, also where alignments make a tiling impossible
 * (the blocks are guesses). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fg_pack.h"
#include "pack_internal.h"
#include "../bench/gen_guillotine.h"

#define FG_TEST_SEED 0x711e5ull
#include "fg_test.h"

/* The cuts' own offsets are a packing at H whatever the alignments, when
 * each item's phase is its offset modulo its alignment: the search must
 * find one at H (exact, no time limit), every offset in its phase. */
static void test_phases(void) {
  enum { N = 12, REPS = 40 };
  fg_pack_item it[N], unal[N];
  uint64_t off[N], opt[N], ph[N];
  gg_rect scratch[N];
  char err[256];
  for (int cyclic = 0; cyclic <= 1; cyclic++) {
    uint64_t gs = 5 + (uint64_t)cyclic;
    int found = 0;
    for (int rep = 0; rep < REPS; rep++) {
      uint64_t T = 2 * N, H = 3000 + gg_rnd(&gs) % 3000;
      gg_generate(it, opt, scratch, N, T, H, cyclic, &gs);
      for (int i = 0; i < N; i++) {
        it[i].align = 1ull << (gg_rnd(&gs) % 11); /* up to 1024, any phase */
        ph[i] = opt[i] % it[i].align;
        unal[i] = it[i];
        unal[i].align = 1;
      }
      fg_pack_desc d = {0};
      d.period = cyclic ? T : 0;
      pk_inst in;
      CHECK(pk_build(&in, it, N, &d) == 0, "out of memory");
      in.phase = ph;
      int r = pk_search_decide(&in, H, 0, off);
      CHECK(r == PS_FOUND, "phases %s rep %d: no packing at H (r=%d)", cyclic ? "cyclic" : "linear", rep, r);
      if (r == PS_FOUND) {
        found++;
        CHECK(fg_check_packing(unal, N, off, &d, err, sizeof err) == 1, "phases rep %d: %s", rep, err);
        for (int i = 0; i < N; i++) {
          CHECK(off[i] % it[i].align == ph[i], "phases rep %d: item %d at %llu, phase %llu mod %llu", rep, i,
                (unsigned long long)off[i], (unsigned long long)ph[i], (unsigned long long)it[i].align);
          CHECK(off[i] + it[i].size <= H, "phases rep %d: item %d above H", rep, i);
        }
      }
      pk_free(&in);
    }
    printf("phases %s: %d/%d found at H\n", cyclic ? "cyclic" : "linear", found, REPS);
  }
}

/* Flat: LOAD at every point; one byte less anywhere, or a point with
 * nothing alive on a line, is not. */
static void test_flat(void) {
  enum { N = 30 };
  fg_pack_item it[N];
  gg_rect scratch[N];
  uint64_t gs = 77;
  for (int cyclic = 0; cyclic <= 1; cyclic++) {
    uint64_t T = 2 * N, H = 1 << 20;
    gg_generate(it, NULL, scratch, N, T, H, cyclic, &gs);
    fg_pack_desc d = {0};
    d.period = cyclic ? T : 0;
    pk_inst in;
    CHECK(pk_build(&in, it, N, &d) == 0, "out of memory");
    CHECK(pk_flat(&in, H), "a guillotine instance (%s) is flat", cyclic ? "cyclic" : "linear");
    CHECK(!pk_flat(&in, H + 1), "flat at a load it does not have");
    pk_free(&in);
    it[3].size--; /* a byte short somewhere: LOAD stays H elsewhere */
    CHECK(pk_build(&in, it, N, &d) == 0, "out of memory");
    CHECK(!pk_flat(&in, H), "a hole is not flat");
    pk_free(&in);
  }
  /* a line with nothing alive in the middle */
  fg_pack_item g[2] = {{0, 4, 100, 1, 0, 0}, {6, 9, 100, 1, 0, 0}};
  fg_pack_desc d = {0};
  pk_inst in;
  CHECK(pk_build(&in, g, 2, &d) == 0, "out of memory");
  CHECK(!pk_flat(&in, 100), "a gap in time is not flat");
  pk_free(&in);
}

/* One of bench_cdsa's guillotine instances of n pieces (T = 2n points, H
 * drawn as it draws it), d's period set for the timeline; returns H. */
static uint64_t guillotine(fg_pack_item *it, gg_rect *scratch, size_t n, int cyclic, uint64_t *gs, fg_pack_desc *d) {
  uint64_t T = 2 * (uint64_t)n, H = (1u << 20) + gg_rnd(gs) % 65536;
  gg_generate(it, NULL, scratch, n, T, H, cyclic, gs);
  memset(d, 0, sizeof *d);
  d->period = cyclic ? T : 0;
  return H;
}

/* pk_tile on guillotine cuts: at H on nearly all; every packing it returns
 * passes the checker and is at least H. */
static void test_tile(void) {
  enum { N = 120, REPS = 10 };
  fg_pack_item *it = malloc(sizeof *it * N);
  uint64_t *off = malloc(sizeof *off * N);
  gg_rect *scratch = malloc(sizeof *scratch * N);
  char err[256];
  for (int cyclic = 0; cyclic <= 1; cyclic++) {
    uint64_t gs = 31 + (uint64_t)cyclic;
    int at = 0;
    for (int rep = 0; rep < REPS; rep++) {
      fg_pack_desc d;
      uint64_t H = guillotine(it, scratch, N, cyclic, &gs, &d);
      pk_inst in;
      CHECK(pk_build(&in, it, N, &d) == 0, "out of memory");
      uint64_t mk = 0;
      CHECK(pk_tile(&in, H, fg_now_ns() + 2000000000ull, off, &mk) == 0, "out of memory");
      CHECK(mk != UINT64_MAX, "tile %s rep %d: no packing", cyclic ? "cyclic" : "linear", rep);
      if (mk != UINT64_MAX) {
        CHECK(fg_check_packing(it, N, off, &d, err, sizeof err) == 1, "tile rep %d: %s", rep, err);
        uint64_t m = 0;
        for (int i = 0; i < N; i++)
          if (off[i] + it[i].size > m) m = off[i] + it[i].size;
        CHECK(m == mk && mk >= H, "tile rep %d: makespan %llu reported %llu", rep, (unsigned long long)m,
              (unsigned long long)mk);
        at += mk == H;
      }
      pk_free(&in);
    }
    /* 10/10 on dev; 8 leaves room for a loaded machine */
    CHECK(at >= 8, "tile %s: %d/%d at H", cyclic ? "cyclic" : "linear", at, REPS);
    printf("tile n=%d %s: %d/%d at H\n", N, cyclic ? "cyclic" : "linear", at, REPS);
  }
  free(it);
  free(off);
  free(scratch);
}

/* Alignments drawn at random break most tilings: pk_tile's blocks then
 * hold guesses that cannot all be right. Whatever it returns must still be
 * a packing, and fg_pack's best must still pass the checker. */
static void test_tile_misaligned(void) {
  enum { N = 40, REPS = 30 };
  fg_pack_item it[N];
  uint64_t off[N];
  gg_rect scratch[N];
  char err[256];
  int some = 0;
  for (int rep = 0; rep < REPS; rep++) {
    int cyclic = rep & 1;
    uint64_t T = 2 * N, H = 5000 + rndu(5000);
    gg_generate(it, NULL, scratch, N, T, H, cyclic, &rng_state);
    for (int i = 0; i < N; i++) it[i].align = 1ull << rndu(7);
    fg_pack_desc d = {0};
    d.period = cyclic ? T : 0;
    pk_inst in;
    CHECK(pk_build(&in, it, N, &d) == 0, "out of memory");
    uint64_t mk = 0;
    CHECK(pk_tile(&in, H, fg_now_ns() + 20000000ull, off, &mk) == 0, "out of memory");
    if (mk != UINT64_MAX) {
      some++;
      CHECK(fg_check_packing(it, N, off, &d, err, sizeof err) == 1, "misaligned rep %d: %s", rep, err);
    }
    pk_free(&in);
    d.time_budget_ms = 20;
    fg_pack_result r;
    CHECK(fg_pack(it, N, &d, off, &r, err, sizeof err) == 0, "misaligned rep %d: %s", rep, err);
    CHECK(fg_check_packing(it, N, off, &d, err, sizeof err) == 1, "misaligned rep %d (best): %s", rep, err);
  }
  printf("tile, random alignments: %d/%d packings\n", some, REPS);
}

/* Through fg_pack: best reaches OPT on guillotine cuts of 200 pieces well
 * within its budget (issue 14's known-optimum instances). */
static void test_best_guillotine(void) {
  enum { N = 200, REPS = 6 };
  fg_pack_item *it = malloc(sizeof *it * N);
  uint64_t *off = malloc(sizeof *off * N);
  gg_rect *scratch = malloc(sizeof *scratch * N);
  char err[256];
  for (int cyclic = 0; cyclic <= 1; cyclic++) {
    uint64_t gs = 200 + (uint64_t)cyclic;
    int at = 0;
    for (int rep = 0; rep < REPS; rep++) {
      fg_pack_desc d;
      uint64_t H = guillotine(it, scratch, N, cyclic, &gs, &d);
      d.time_budget_ms = 1000;
      fg_pack_result r;
      CHECK(fg_pack(it, N, &d, off, &r, err, sizeof err) == 0, "guillotine: %s", err);
      CHECK(fg_check_packing(it, N, off, &d, err, sizeof err) == 1, "guillotine: %s", err);
      CHECK(r.makespan <= H + H / 100, "guillotine %s rep %d: %llu > 1.01 OPT", cyclic ? "cyclic" : "linear", rep,
            (unsigned long long)r.makespan);
      CHECK(r.makespan > H || r.optimal, "at OPT but not proved optimal");
      at += r.makespan == H;
    }
    CHECK(at >= REPS - 1, "best guillotine n=%d %s: %d/%d at OPT", N, cyclic ? "cyclic" : "linear", at, REPS);
    printf("best guillotine n=%d %s: %d/%d at OPT\n", N, cyclic ? "cyclic" : "linear", at, REPS);
  }
  free(it);
  free(off);
  free(scratch);
}

int main(void) {
  test_phases();
  test_flat();
  test_tile();
  test_tile_misaligned();
  test_best_guillotine();
  if (failures) fprintf(stderr, "%d failure(s)\n", failures);
  return failures != 0;
}
