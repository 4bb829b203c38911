/* Fuzz target: every packing strategy on random cyclic and linear instances,
 * and (flag 0x80) best on tilings: guillotine cuts, with alignments drawn
 * at random or a size nudged, which pack_tile's guesses must survive.
 * Each result must pass fg_check_packing, stay free of overflow (no offset +
 * size past 2^64, makespan covering every item) and never be below LOAD; a
 * rejected instance must come with a message. The checker itself is held to
 * the brute-force reference (pack_ref.h) on the result and on the result
 * with one item moved onto another's bytes or page. Built as a libFuzzer target
 * with clang (-DFG_FUZZ=ON) and as a replay/random driver for ctest. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fg_pack.h"
#include "fuzz_reader.h"
#include "pack_ref.h"
#include "../../bench/gen_guillotine.h"

#define FAIL(...) do { fprintf(stderr, "fuzz_pack: " __VA_ARGS__); fputc('\n', stderr); abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_reader rd = {data, size, 0};
  uint8_t flags = fz_u8(&rd);
  int cyclic = flags & 1, huge = (flags & 0x20) != 0;
  size_t nsolvers = 0;
  while (fg_pack_solvers[nsolvers]) nsolvers++;
  const char *solver = fg_pack_solvers[(flags >> 1) % nsolvers];
  uint64_t period = cyclic ? 1 + fz_u8(&rd) : 0;
  size_t n = 1 + fz_u8(&rd) % 48;
  fg_pack_item items[48];
  for (size_t i = 0; i < n; i++) {
    uint64_t span = cyclic ? period : 256;
    uint64_t start = fz_u8(&rd) % span, len = 1 + fz_u8(&rd) % span;
    uint64_t stop = cyclic ? (start + len) % period : start + len;
    if (cyclic && fz_u8(&rd) % 16 == 0) stop = start; /* live the whole cycle */
    unsigned e = fz_u8(&rd) % (huge ? 64 : 24);
    uint64_t sz = ((uint64_t)1 << e) + (e > 8 ? (uint64_t)fz_u8(&rd) << (e - 8) : fz_u8(&rd) % 7);
    if (sz == 0) sz = 1;
    items[i] = (fg_pack_item){start, stop, sz, (uint64_t)1 << (fz_u8(&rd) % 12), fz_u8(&rd) & 1,
                              fz_u8(&rd) % 4};
  }
  double budget = 0.2;
  if (flags & 0x80) { /* a tiling */
    n = 2 + fz_u8(&rd) % 47;
    uint64_t T = 2 + fz_u8(&rd) % (2 * n), H = 64 + (uint64_t)fz_u8(&rd) * 257, seed = fz_u8(&rd);
    seed |= (uint64_t)fz_u8(&rd) << 8;
    gg_rect scratch[48];
    gg_generate(items, NULL, scratch, n, T, H, cyclic, &seed);
    period = cyclic ? T : 0;
    uint8_t how = fz_u8(&rd);
    if (how & 1)
      for (size_t i = 0; i < n; i++) items[i].align = (uint64_t)1 << (fz_u8(&rd) % 9);
    if (how & 2) { /* no longer flat, or flat at another load */
      fg_pack_item *x = &items[fz_u8(&rd) % n];
      x->size = x->size > 1 && (how & 4) ? x->size - 1 : x->size + 1;
    }
    solver = "best";
    budget = 1;
  }
  fg_pack_desc desc = {.period = period, .solver = solver, .granularity = (flags & 0x40) ? 1024 : 0,
                       .time_budget_ms = budget, .node_budget = 20000, .seed = flags};
  uint64_t off[48];
  fg_pack_result res;
  char err[256] = "";
  if (fg_pack(items, n, &desc, off, &res, err, sizeof err) != 0) {
    if (!err[0]) FAIL("%s rejected an instance without a message", solver);
    return 0;
  }
  char msg[256];
  if (!fg_check_packing(items, n, off, &desc, msg, sizeof msg)) FAIL("%s: invalid packing: %s", solver, msg);
  const char *why;
  if (!ref_check_packing(items, n, off, &desc, &why)) FAIL("%s: the reference checker refuses it (%s)", solver, why);
  /* Oracle against oracle: move one item next to (or onto) another and
   * compare the two checkers' verdicts; a sweep mistake shows as a split. */
  for (int k = 0; k < 4 && n > 1; k++) {
    size_t a = fz_u8(&rd) % n, b = fz_u8(&rd) % n;
    uint64_t keep = off[a], al = items[a].align ? items[a].align : 1;
    int64_t shift = (int64_t)(fz_u8(&rd) % 64) - 32;
    uint64_t to = off[b] + (uint64_t)shift * (desc.granularity ? 64 : 1);
    if (shift < 0 && (uint64_t)(-shift) * (desc.granularity ? 64 : 1) > off[b]) to = 0;
    off[a] = to / al * al;
    int got = fg_check_packing(items, n, off, &desc, msg, sizeof msg);
    int ref = ref_check_packing(items, n, off, &desc, &why);
    if (got != ref) FAIL("item %zu moved to %llu: fg_check_packing says %d (%s), the reference %d (%s)", a,
                         (unsigned long long)off[a], got, got ? "" : msg, ref, why);
    off[a] = keep;
  }
  for (size_t i = 0; i < n; i++) {
    uint64_t end;
    if (__builtin_add_overflow(off[i], items[i].size, &end)) FAIL("%s: item %zu's offset + size overflows", solver, i);
    if (end > res.makespan) FAIL("%s: item %zu ends at %llu past makespan %llu", solver, i,
                                 (unsigned long long)end, (unsigned long long)res.makespan);
  }
  if (res.makespan < res.load) FAIL("%s: makespan %llu below LOAD %llu", solver,
                                    (unsigned long long)res.makespan, (unsigned long long)res.load);
  return 0;
}
