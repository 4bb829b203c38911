/* fg_check_packing, the oracle of every packer test and fuzzer, held to a
 * brute-force O(n^2) reference (tests/fuzz/pack_ref.h):
 *  - hand fixtures of each kind of conflict (bytes, wrap, whole cycle,
 *    granularity pages), each seen in every orientation: every order of the
 *    items, the byte axis mirrored, the cycle rotated and time reversed; the
 *    verdict must not change and must match the reference;
 *  - random dense instances, valid packings nudged into invalid ones;
 *  - an unknown kind is refused with a message;
 *  - fg_pack_load against a count of live bytes at every time step, and its
 *    saturation past 2^64. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fg_pack.h"
#include "fuzz/pack_ref.h"
#define FG_TEST_SEED 0x5EEDC0FFEEull
#include "fg_test.h"

typedef struct fixture {
  const char *name;
  size_t n;
  fg_pack_item it[4];
  uint64_t off[4];
  uint64_t period, granularity;
  int valid;
} fixture;

#define I(s, t, sz, k) {s, t, sz, 1, k, 0}
static const fixture fixtures[] = {
  /* bytes: the later-starting item placed below / above / inside / around a live one */
  {"later item below a live one", 2, {I(0, 5, 100, 0), I(3, 8, 100, 0)}, {99, 0}, 0, 0, 0},
  {"later item above a live one", 2, {I(0, 5, 100, 0), I(3, 8, 100, 0)}, {0, 99}, 0, 0, 0},
  {"later item inside a live one", 2, {I(0, 5, 100, 0), I(3, 8, 10, 0)}, {0, 40}, 0, 0, 0},
  {"later item around a live one", 2, {I(0, 5, 10, 0), I(3, 8, 100, 0)}, {40, 0}, 0, 0, 0},
  {"same bytes, same times", 2, {I(2, 4, 8, 0), I(2, 4, 8, 0)}, {16, 16}, 0, 0, 0},
  {"touching in bytes", 2, {I(0, 5, 100, 0), I(3, 8, 100, 0)}, {0, 100}, 0, 0, 1},
  {"touching in time", 2, {I(0, 5, 100, 0), I(5, 8, 100, 0)}, {0, 0}, 0, 0, 1},
  /* a live set of several: the neighbour found must be the one that ends highest */
  {"three live, middle gap too small", 3, {I(0, 9, 10, 0), I(0, 9, 10, 0), I(4, 6, 15, 0)}, {0, 20, 8}, 0, 0, 0},
  {"three live, fits the gap", 3, {I(0, 9, 10, 0), I(0, 9, 10, 0), I(4, 6, 10, 0)}, {0, 20, 10}, 0, 0, 1},
  {"under a tall live one", 3, {I(0, 9, 50, 0), I(0, 9, 5, 0), I(4, 6, 5, 0)}, {0, 60, 55}, 0, 0, 1},
  {"crossing two live ones", 3, {I(0, 9, 10, 0), I(0, 9, 10, 0), I(4, 6, 20, 0)}, {0, 30, 12}, 0, 0, 0},
  /* cycles */
  {"wrap meets one at time 1", 2, {I(8, 2, 10, 0), I(1, 3, 10, 0)}, {0, 5}, 10, 0, 0},
  {"wrap meets one at time 9", 2, {I(8, 2, 10, 0), I(9, 10, 10, 0)}, {0, 5}, 10, 0, 0},
  {"wrap and its complement", 2, {I(8, 2, 10, 0), I(2, 8, 10, 0)}, {0, 5}, 10, 0, 1},
  {"two wraps", 2, {I(8, 2, 10, 0), I(9, 1, 10, 0)}, {0, 9}, 10, 0, 0},
  {"whole cycle meets one after its start", 2, {I(4, 4, 10, 0), I(6, 7, 10, 0)}, {0, 5}, 10, 0, 0},
  {"whole cycle meets one before its start", 2, {I(4, 4, 10, 0), I(1, 3, 10, 0)}, {0, 5}, 10, 0, 0},
  {"whole cycle meets one ending at its start", 2, {I(4, 4, 10, 0), I(2, 4, 10, 0)}, {0, 5}, 10, 0, 0},
  {"whole cycle from 0", 2, {I(0, 0, 10, 0), I(6, 7, 10, 0)}, {5, 0}, 10, 0, 0},
  {"whole cycle as [0, T)", 2, {I(0, 10, 10, 0), I(6, 7, 10, 0)}, {5, 0}, 10, 0, 0},
  {"whole cycle beside one", 2, {I(4, 4, 10, 0), I(1, 3, 10, 0)}, {0, 10}, 10, 0, 1},
  {"[s, T) and [0, t)", 2, {I(7, 10, 10, 0), I(0, 3, 10, 0)}, {0, 0}, 10, 0, 1},
  /* granularity 1024: different kinds live together never share a page */
  {"page shared, the other kind above", 2, {I(0, 5, 100, 0), I(0, 5, 100, 1)}, {0, 512}, 0, 1024, 0},
  {"page shared, the other kind below", 2, {I(0, 5, 100, 0), I(0, 5, 100, 1)}, {512, 0}, 0, 1024, 0},
  {"page shared, the later item below", 2, {I(0, 5, 100, 0), I(3, 8, 100, 1)}, {900, 0}, 0, 1024, 0},
  {"page shared, the later item above", 2, {I(0, 5, 100, 0), I(3, 8, 100, 1)}, {0, 900}, 0, 1024, 0},
  {"last page of one, first of the other", 2, {I(0, 5, 1000, 0), I(0, 5, 100, 1)}, {100, 1030}, 0, 1024, 0},
  {"pages apart", 2, {I(0, 5, 100, 0), I(0, 5, 100, 1)}, {0, 1024}, 0, 1024, 1},
  {"pages apart, reversed", 2, {I(0, 5, 100, 0), I(0, 5, 100, 1)}, {1024, 0}, 0, 1024, 1},
  {"same kind shares a page", 2, {I(0, 5, 100, 1), I(0, 5, 100, 1)}, {0, 512}, 0, 1024, 1},
  {"one page, different times", 2, {I(0, 5, 100, 0), I(5, 8, 100, 1)}, {0, 512}, 0, 1024, 1},
  {"page shared across a wrap", 2, {I(8, 2, 100, 0), I(1, 3, 100, 1)}, {0, 512}, 10, 1024, 0},
  {"page shared with a whole cycle", 2, {I(4, 4, 100, 0), I(1, 3, 100, 1)}, {0, 512}, 10, 1024, 0},
  {"page past a live one of the same kind", 3, {I(0, 9, 100, 0), I(0, 9, 100, 1), I(2, 4, 100, 1)},
   {0, 2048, 924}, 0, 1024, 0},
};
#undef I
#define NFIX (sizeof fixtures / sizeof *fixtures)

static char msg[512];

/* the checker's verdict, held to the reference's and to the expectation */
static void verdict(const char *fx, const char *how, const fg_pack_item *it, size_t n, const uint64_t *off,
                    const fg_pack_desc *d, int want) {
  const char *why;
  msg[0] = 0;
  int got = fg_check_packing(it, n, off, d, msg, sizeof msg);
  int ref = ref_check_packing(it, n, off, d, &why);
  CHECK(ref == want, "%s (%s): the reference says %d (%s)", fx, how, ref, why);
  CHECK(got == want, "%s (%s): fg_check_packing says %d, expected %d (%s)", fx, how, got, want, msg);
  if (!got) CHECK(msg[0] != 0, "%s (%s): refused without a message", fx, how);
}

/* Every orientation of one fixture: each permutation of the items (n <= 4),
 * crossed with the byte axis mirrored (about a multiple of the page size)
 * and, on a cycle, each rotation of time and time reversed. */
static void orientations(const fixture *f) {
  size_t n = f->n, perm[4] = {0, 1, 2, 3};
  uint64_t T = f->period, g = f->granularity > 1 ? f->granularity : 1;
  uint64_t top = 0;
  for (size_t i = 0; i < n; i++) if (f->off[i] + f->it[i].size > top) top = f->off[i] + f->it[i].size;
  uint64_t M = (top / g + 2) * g; /* the mirror's axis: whole pages above everything */
  int rotations = T ? (int)T : 1;
  for (;;) {
    for (int mirror = 0; mirror < 2; mirror++)
      for (int rev = 0; rev < (T ? 2 : 1); rev++)
        for (int r = 0; r < rotations; r++) {
          fg_pack_item it[4];
          uint64_t off[4];
          for (size_t k = 0; k < n; k++) {
            fg_pack_item x = f->it[perm[k]];
            uint64_t o = f->off[perm[k]];
            if (mirror) o = M - o - x.size;
            if (T) {
              uint64_t s = x.start % T, t = x.stop % T;
              if (rev) { uint64_t s2 = (T - t) % T, t2 = (T - s) % T; s = s2; t = t2; }
              x.start = (s + (uint64_t)r) % T;
              x.stop = (t + (uint64_t)r) % T;
            }
            it[k] = x;
            off[k] = o;
          }
          char how[96];
          snprintf(how, sizeof how, "order %zu%zu%zu%zu, mirror %d, reversed %d, rotated %d", perm[0], perm[1],
                   perm[2], perm[3], mirror, rev, r);
          fg_pack_desc d = {0};
          d.period = T;
          d.granularity = f->granularity;
          verdict(f->name, how, it, n, off, &d, f->valid);
        }
    /* next permutation of perm[0..n) (lexicographic) */
    size_t i = n - 1;
    while (i > 0 && perm[i - 1] >= perm[i]) i--;
    if (i == 0) break;
    size_t j = n - 1;
    while (perm[j] <= perm[i - 1]) j--;
    size_t tmp = perm[i - 1]; perm[i - 1] = perm[j]; perm[j] = tmp;
    for (size_t a = i, b = n - 1; a < b; a++, b--) { tmp = perm[a]; perm[a] = perm[b]; perm[b] = tmp; }
  }
}

/* Random small dense instances: offsets drawn from a few slots so that
 * conflicts of every kind are common; the two checkers must agree. */
static void random_agreement(void) {
  int disagree = 0, valid = 0, invalid = 0;
  for (int rep = 0; rep < 200000 && disagree < 5; rep++) {
    size_t n = 1 + rndu(6);
    uint64_t T = rndu(2) ? 1 + rndu(8) : 0, g = rndu(3) ? 0 : (uint64_t)1 << (2 + rndu(3));
    fg_pack_item it[6];
    uint64_t off[6];
    for (size_t i = 0; i < n; i++) {
      uint64_t s, t;
      if (T) { s = rndu(T); t = rndu(4) ? rndu(T + 1) : s; }
      else { s = rndu(8); t = s + 1 + rndu(6); }
      it[i] = (fg_pack_item){s, t, 1 + rndu(24), (uint64_t)1 << rndu(3), (uint32_t)rndu(2), 0};
      off[i] = rndu(48) / it[i].align * it[i].align;
    }
    fg_pack_desc d = {0};
    d.period = T;
    d.granularity = g;
    int got = fg_check_packing(it, n, off, &d, msg, sizeof msg);
    int ref = ref_check_packing(it, n, off, &d, NULL);
    if (got != ref) {
      disagree++;
      fprintf(stderr, "rep %d: fg_check_packing %d, reference %d (%s); n %zu period %llu granularity %llu:\n", rep, got,
              ref, msg, n, (unsigned long long)T, (unsigned long long)g);
      for (size_t i = 0; i < n; i++)
        fprintf(stderr, "  [%llu, %llu) size %llu kind %u at %llu\n", (unsigned long long)it[i].start,
                (unsigned long long)it[i].stop, (unsigned long long)it[i].size, it[i].kind,
                (unsigned long long)off[i]);
    }
    if (ref) valid++; else invalid++;
  }
  CHECK(disagree == 0, "%d random instances judged differently", disagree);
  /* a test that cannot fail is a defect: both verdicts must be common */
  CHECK(valid > 1000 && invalid > 1000, "too one-sided a sample: %d valid, %d invalid", valid, invalid);
}

static void refusals(void) {
  fg_pack_item k2[2] = {{0, 5, 10, 1, 0, 0}, {0, 5, 10, 1, 2, 0}};
  uint64_t off[2] = {0, 4096};
  fg_pack_desc d = {0};
  d.granularity = 1024;
  msg[0] = 0;
  CHECK(fg_check_packing(k2, 2, off, &d, msg, sizeof msg) == 0, "kind 2 accepted");
  CHECK(strstr(msg, "item 2") && strstr(msg, "kind 2"), "kind 2: message '%s'", msg);
  CHECK(ref_check_packing(k2, 2, off, &d, NULL) == 0, "the reference accepted kind 2");
  fg_pack_result r;
  char err[256] = "";
  CHECK(fg_pack(k2, 2, &d, off, &r, err, sizeof err) == -1 && strstr(err, "kind 2"), "fg_pack took kind 2: '%s'", err);
  /* lifetimes outside the cycle: start == period is no time of the cycle */
  fg_pack_item outside[1] = {{10, 2, 8, 1, 0, 0}};
  fg_pack_desc cyc = {0};
  cyc.period = 10;
  CHECK(fg_check_packing(outside, 1, off, &cyc, msg, sizeof msg) == 0 && strstr(msg, "item 1"), "start == period: '%s'", msg);
  CHECK(ref_check_packing(outside, 1, off, &cyc, NULL) == 0, "the reference took start == period");
  outside[0].start = 2; outside[0].stop = 11;
  CHECK(fg_check_packing(outside, 1, off, &cyc, msg, sizeof msg) == 0, "stop past the period accepted");
  outside[0].stop = 10; /* stop == period is the cycle's end: fine */
  CHECK(fg_check_packing(outside, 1, off, &cyc, msg, sizeof msg) == 1, "stop == period refused: '%s'", msg);
  fg_pack_desc lin = {0};
  outside[0].start = outside[0].stop = 4;
  CHECK(fg_check_packing(outside, 1, off, &lin, msg, sizeof msg) == 0, "linear start == stop accepted");
  /* offset + size reaching 2^64 */
  fg_pack_item big[1] = {{0, 5, 16, 1, 0, 0}};
  uint64_t top[1] = {UINT64_MAX - 15};
  CHECK(fg_check_packing(big, 1, top, &d, msg, sizeof msg) == 0 && strstr(msg, "overflows"), "2^64: '%s'", msg);
  top[0] = UINT64_MAX - 16; /* ends at 2^64 - 1: fine, and its page rounding must not wrap */
  CHECK(fg_check_packing(big, 1, top, &d, msg, sizeof msg) == 1, "just below 2^64: '%s'", msg);
  fg_pack_item hi2[2] = {{0, 5, 16, 1, 0, 0}, {0, 5, 16, 1, 1, 0}};
  uint64_t hoff[2] = {UINT64_MAX - 16, UINT64_MAX - 512 - 16};
  CHECK(fg_check_packing(hi2, 2, hoff, &d, msg, sizeof msg) == ref_check_packing(hi2, 2, hoff, &d, NULL),
        "the last page: the checkers disagree (%s)", msg);
  CHECK(ref_check_packing(hi2, 2, hoff, &d, NULL) == 0, "the last page shared, accepted by the reference");
}

/* LOAD by brute force: the live bytes at every integer time (times here are small) */
static uint64_t ref_load(const fg_pack_item *it, size_t n, uint64_t period) {
  uint64_t end = period, best = 0;
  if (!period) for (size_t i = 0; i < n; i++) if (it[i].stop > end) end = it[i].stop;
  for (uint64_t t = 0; t < end; t++) {
    uint64_t live = 0;
    for (size_t i = 0; i < n; i++) {
      ref_span sp[2];
      int k = ref_live(&it[i], period, sp);
      for (int x = 0; x < k; x++) if (sp[x].lo <= t && t < sp[x].hi) live += it[i].size;
    }
    if (live > best) best = live;
  }
  return best;
}

static void load(void) {
  int bad = 0;
  for (int rep = 0; rep < 100000 && bad < 5; rep++) {
    size_t n = 1 + rndu(6);
    uint64_t T = rndu(2) ? 1 + rndu(8) : 0;
    fg_pack_item it[6];
    for (size_t i = 0; i < n; i++) {
      uint64_t s, t;
      if (T) { s = rndu(T); t = rndu(4) ? rndu(T + 1) : s; }
      else { s = rndu(8); t = s + 1 + rndu(6); }
      it[i] = (fg_pack_item){s, t, 1 + rndu(24), 1, 0, 0};
    }
    uint64_t got = fg_pack_load(it, n, T), want = ref_load(it, n, T);
    if (got != want) {
      bad++;
      fprintf(stderr, "LOAD rep %d: %llu, by brute force %llu (period %llu)\n", rep, (unsigned long long)got,
              (unsigned long long)want, (unsigned long long)T);
    }
  }
  CHECK(bad == 0, "%d LOADs differ from the brute-force count", bad);
  fg_pack_item one[1] = {{3, 7, 100, 1, 0, 0}};
  CHECK(fg_pack_load(one, 1, 0) == 100, "one item: %llu", (unsigned long long)fg_pack_load(one, 1, 0));
  /* sizes past 2^62: exact while it fits, saturated past 2^64 - 1, never wrapped */
  fg_pack_item big[4] = {{0, 1, 1ull << 62, 1, 0, 0}, {0, 1, 1ull << 62, 1, 0, 0}, {0, 1, 1ull << 62, 1, 0, 0},
                         {0, 1, 1ull << 62, 1, 0, 0}};
  CHECK(fg_pack_load(big, 2, 0) == 1ull << 63, "2 x 2^62: %llu", (unsigned long long)fg_pack_load(big, 2, 0));
  CHECK(fg_pack_load(big, 4, 0) == UINT64_MAX, "4 x 2^62: %llu", (unsigned long long)fg_pack_load(big, 4, 0));
  CHECK(fg_pack_load(big, 4, 4) == UINT64_MAX, "4 x 2^62 on a cycle: %llu", (unsigned long long)fg_pack_load(big, 4, 4));
  fg_pack_item huge[2] = {{0, 1, (1ull << 63) + 5, 1, 0, 0}, {1, 2, 7, 1, 0, 0}};
  CHECK(fg_pack_load(huge, 2, 0) == (1ull << 63) + 5, "a size past 2^63: %llu", (unsigned long long)fg_pack_load(huge, 2, 0));
}

int main(void) {
  for (size_t f = 0; f < NFIX; f++) orientations(&fixtures[f]);
  random_agreement();
  refusals();
  load();
  if (failures) { fprintf(stderr, "%d failures\n", failures); return 1; }
  printf("test_pack_check: %zu fixtures in every orientation, random agreement, refusals: ok\n", NFIX);
  return 0;
}
