/* pack_skyline against the canonical dive it stands for, done the obvious
 * O(n^2) way: each item in turn, the unplaced one whose offset right on top
 * of the highest placed item it meets is least (unaligned), ties to the
 * highest key, placed at that offset aligned up. Random lines and cycles of
 * many shapes, random keys (distinct): the same offsets, a valid packing;
 * on coarser time (pk_skyline_coarse) a valid packing of the items too; a
 * cap of 4x the work changes nothing, half of it gives up, and so does a
 * cap too small to start. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fg_pack.h"
#include "pack_internal.h"
#include "pack_skyline.h"

#define FG_TEST_SEED 0x5c71e1ull
#include "fg_test.h"

static void ref_dive(const pk_inst *in, const size_t *ord, size_t m, const double *key, uint64_t lo0, uint64_t *off) {
  char *done = calloc(m ? m : 1, 1);
  for (size_t step = 0; step < m; step++) {
    size_t best = SIZE_MAX;
    uint64_t bf = 0;
    for (size_t k = 0; k < m; k++) {
      if (done[k]) continue;
      size_t i = ord[k];
      uint64_t f = lo0;
      for (size_t q = 0; q < m; q++)
        if (done[q] && pk_conflict_arcs(in, i, ord[q]) && off[ord[q]] + in->size[ord[q]] > f)
          f = off[ord[q]] + in->size[ord[q]];
      if (best == SIZE_MAX || f < bf || (f == bf && key[i] > key[ord[best]])) { best = k; bf = f; }
    }
    size_t i = ord[best];
    off[i] = pk_align_up(bf, in->align[i]);
    done[best] = 1;
  }
  free(done);
}

static void test_against_reference(void) {
  static const size_t ns[] = {1, 2, 7, 60, 150, 300};
  static const uint64_t Ts[] = {3, 10, 64, 500};
  int cases = 0, coarse = 0;
  for (int cyclic = 0; cyclic <= 1; cyclic++)
    for (size_t a = 0; a < sizeof ns / sizeof *ns; a++)
      for (size_t b = 0; b < sizeof Ts / sizeof *Ts; b++) {
        size_t n = ns[a];
        uint64_t T = Ts[b], maxlen = 1 + rndu(T - 1);
        fg_pack_item *it = calloc(n, sizeof *it);
        for (size_t i = 0; i < n; i++) {
          uint64_t s = rndu(T), len = 1 + rndu(maxlen);
          if (len >= T) len = T - 1; /* no whole-cycle item: the caller stacks those */
          if (!len) len = 1;
          it[i].start = s;
          it[i].stop = cyclic ? (s + len) % T : s + len;
          it[i].size = 1 + rndu(rndu(2) ? 5000 : 40);
          it[i].align = 1ull << rndu(5);
        }
        fg_pack_desc d = {0};
        d.period = cyclic ? T : 0;
        pk_inst in;
        CHECK(pk_build(&in, it, n, &d) == 0, "out of memory");
        size_t *ord = malloc(sizeof(size_t) * n);
        double *key = malloc(sizeof(double) * n);
        uint64_t *o1 = calloc(n, sizeof(uint64_t)), *o2 = calloc(n, sizeof(uint64_t));
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
          if (in.len[i] < in.K) ord[m++] = i;
        for (size_t i = 0; i < n; i++) key[i] = (double)rnd() / 18446744073709551616.0;
        uint64_t lo0 = rndu(3) * 1000;
        uint64_t M = pk_skyline_dive(&in, ord, m, key, lo0, UINT64_MAX / 4, NULL, o1);
        ref_dive(&in, ord, m, key, lo0, o2);
        int same = 1;
        uint64_t top = lo0;
        for (size_t k = 0; k < m; k++) {
          same &= o1[ord[k]] == o2[ord[k]];
          if (o2[ord[k]] + in.size[ord[k]] > top) top = o2[ord[k]] + in.size[ord[k]];
        }
        CHECK(same, "%s n=%zu T=%llu: offsets differ from the reference dive", cyclic ? "cycle" : "line", n,
              (unsigned long long)T);
        CHECK(M == top, "%s n=%zu T=%llu: top %llu, reference %llu", cyclic ? "cycle" : "line", n,
              (unsigned long long)T, (unsigned long long)M, (unsigned long long)top);
        if (m == n) { /* (whole-cycle items would need their stack) */
          char msg[256];
          CHECK(fg_check_packing(it, n, o1, &d, msg, sizeof msg), "invalid: %s", msg);
        }
        /* on coarser time (runs of 4 points): still a packing of the items */
        uint32_t *cs = malloc(sizeof(uint32_t) * n), *cl = malloc(sizeof(uint32_t) * n);
        pk_inst ci;
        if (m == n && in.K >= 16 && !pk_skyline_coarse(&in, 4, &ci, cs, cl)) {
          uint64_t *o3 = calloc(n, sizeof(uint64_t));
          CHECK(pk_skyline_dive(&ci, ord, m, key, lo0, UINT64_MAX / 4, NULL, o3) < SKYLINE_GAVE_UP, "coarse dive failed");
          char msg[256];
          CHECK(fg_check_packing(it, n, o3, &d, msg, sizeof msg), "coarse, invalid: %s", msg);
          coarse++;
          free(o3);
        }
        free(cs); free(cl);
        if (m > 64) {
          /* the cap is a promise both ways: a run within it is the uncapped
           * run; one given half the work it takes gives up and says it needed
           * more than its cap (W: the work the whole run charges) */
          pk_clock clk = {0, 0};
          pk_clk = &clk;
          pk_skyline_dive(&in, ord, m, key, lo0, UINT64_MAX / 4, NULL, o1);
          pk_clk = NULL;
          uint64_t W = clk.work, need = 0;
          CHECK(pk_skyline_dive(&in, ord, m, key, lo0, 4 * W, &need, o1) == M, "n=%zu: a cap of 4W changed the dive", n);
          for (size_t k = 0; k < m; k++) same &= o1[ord[k]] == o2[ord[k]];
          CHECK(same, "n=%zu: a cap of 4W changed the offsets", n);
          uint64_t G = pk_skyline_dive(&in, ord, m, key, lo0, W / 2, &need, o1);
          CHECK(G == SKYLINE_GAVE_UP, "n=%zu: a cap of half the work (%llu of %llu) did not give up", n,
                (unsigned long long)(W / 2), (unsigned long long)W);
          CHECK(G != SKYLINE_GAVE_UP || (need > W / 2 && need != UINT64_MAX), "n=%zu: gave up saying it needs %llu",
                n, (unsigned long long)need);
          G = pk_skyline_dive(&in, ord, m, key, lo0, 10, NULL, o1);
          CHECK(G == SKYLINE_GAVE_UP, "a cap of 10 units did not give up (n=%zu)", n);
        }
        cases++;
        pk_free(&in);
        free(it); free(ord); free(key); free(o1); free(o2);
      }
  printf("skyline against the reference dive: %d cases, %d valid on coarser time\n", cases, coarse);
  CHECK(coarse >= 10, "only %d coarse cases", coarse);
}

int main(void) {
  test_against_reference();
  if (failures) fprintf(stderr, "%d failure(s)\n", failures);
  return failures != 0;
}
