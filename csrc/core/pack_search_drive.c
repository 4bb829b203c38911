/* pack_search's driver: a decision at one capacity (rounds of the three
 * preorders under a doubling node limit), the bisection over capacities
 * that best uses (pk_search_improve), and the public entry. */
#include "pack_search_int.h"
#include "pack_mem.h"
#include <string.h>

/* Places the unplaced items (placed[i] == 0) of off by first fit, largest
 * first, against everything placed so far: one list of the placed items by
 * offset, walked and extended per item (no sort per item: this runs when
 * the time is up already). */
static int complete(const pk_inst *in, uint64_t *off, char *placed) {
  size_t n = in->n, nu = 0, np = 0;
  pk_kv *kv = pk_mem_alloc(sizeof(pk_kv) * n), *pl = pk_mem_alloc(sizeof(pk_kv) * n);
  if (!kv || !pl) { pk_mem_free(kv); pk_mem_free(pl); return -1; }
  for (size_t i = 0; i < n; i++) {
    if (!placed[i]) kv[nu++] = (pk_kv){UINT64_MAX - in->size[i], 0, i};
    else pl[np++] = (pk_kv){off[i], off[i] + in->size[i], i};
  }
  pk_sort_kv(kv, nu);
  pk_sort_kv(pl, np);
  for (size_t u = 0; u < nu; u++) {
    size_t i = kv[u].i, at = np;
    uint64_t o = 0;
    for (size_t k = 0; k < np; k++) {
      if (!pk_conflict_arcs(in, i, pl[k].i)) continue;
      o = pk_align_item(in, o, i);
      if (o + in->size[i] <= pl[k].k) break; /* fits in the gap below */
      if (pl[k].k2 > o) o = pl[k].k2;
    }
    off[i] = o = pk_align_item(in, o, i);
    placed[i] = 1;
    while (at > 0 && pl[at - 1].k > o) at--; /* keep pl sorted by offset */
    memmove(pl + at + 1, pl + at, sizeof(pk_kv) * (np - at));
    pl[at] = (pk_kv){o, o + in->size[i], i};
    np++;
  }
  pk_mem_free(kv); pk_mem_free(pl);
  return 0;
}

static int decide(const pk_inst *in, uint64_t cap, uint64_t deadline, uint64_t *out, uint64_t *partial,
                  int *have_partial, uint64_t *budget, uint64_t *setup_ns, int resume_only);

int pk_search_decide(const pk_inst *in, uint64_t cap, uint64_t deadline, uint64_t *out) {
  return decide(in, cap, deadline, out, NULL, NULL, NULL, NULL, 0);
}

int pk_search_decide_at(const pk_inst *in, uint64_t cap, uint64_t deadline, uint64_t *out, uint64_t *partial,
                        int *have_partial) {
  return decide(in, cap, deadline, out, partial, have_partial, NULL, NULL, 1);
}

/* partial, when given, receives when nothing was found the deepest partial
 * packing under cap, completed by first fit (its makespan may exceed cap);
 * *have_partial says whether it was written. */
/* budget, when given: nodes left for this and later calls (counted down;
 * at 0 the call ends as if out of time). resume_only: never the restarts
 * with slack below (fg_pack's capacity mode, see pk_search_decide_at) */
static int decide(const pk_inst *in, uint64_t cap, uint64_t deadline, uint64_t *out, uint64_t *partial,
                  int *have_partial, uint64_t *budget, uint64_t *setup_ns, int resume_only) {
  uint64_t t_in = setup_ns ? pk_now() : 0;
  if (setup_ns) *setup_ns = 0;
  if (have_partial) *have_partial = 0;
  size_t n = in->n;
  uint32_t K = in->K;
  if (!n) return PS_FOUND;
  ps S;
  memset(&S, 0, sizeof S);
  S.in = in; S.n = n; S.K = K; S.cap = cap; S.deadline = deadline;
  S.every = S.tick = PS_CLOCK_EVERY0;
  pk_charge((uint64_t)n * n); /* the work clock: the quadratic set-up below (~1 ns a pair) */
  S.last_clock = pk_now();
  int cyc = in->cyclic, rc = -1;
  uint64_t *area = NULL, *tot = NULL, *width = NULL;
  rk *rks = NULL;
  uint32_t *paths = NULL, *jbuf = NULL;
  size_t plens[3] = {0, 0, 0};
  size_t ncross;
  uint32_t t0 = ps_cut_point(in, &ncross);
  if (ps_decide_alloc(&S, partial != NULL, &area, &tot, &rks, &width)) goto out;
  int exact = 1;
  if ((cyc ? ps_decide_fix(&S, t0, ncross, &exact) : 0) > cap) { rc = exact ? PS_NONE : PS_UNKNOWN; goto out; }
  ps_decide_ranges(&S, t0, cyc, width, area);
  ps_decide_sections(&S);
  K = S.K;
  if (ps_decide_lists(&S, tot)) goto out;
  /* every free item, for the top-level pieces */
  uint32_t *all = S.pbuf + (n + 1) * n;
  size_t nall = 0;
  for (size_t i = 0; i < n; i++)
    if (!S.placed[i]) all[nall++] = (uint32_t)i;
  if (!nall) { rc = PS_FOUND; goto found; }
  /* quick infeasibility: a section over the capacity already */
  if (!ps_check(&S, 0, K, 0)) { rc = exact ? PS_NONE : PS_UNKNOWN; goto out; }
  for (uint32_t t = 0; t < K; t++) S.tight |= S.floor[t] + S.total[t] == cap;
  uint64_t limit = n;
  S.pcap = 2 * n + 4; /* frames along a path: one per placement, one per finished piece */
  paths = pk_mem_alloc(sizeof(uint32_t) * 3 * S.pcap);
  if (!paths) goto out;
  if (setup_ns) *setup_ns = pk_now() - t_in;
  /* Where the capacity leaves slack nothing is tight and inference is weak:
   * one long dive per preorder thrashes in the subtree of an early wrong
   * choice (guillotine n = 200 at 1.06 x OPT: dives reach 197 of 200 items
   * and fail). There every round after the first restarts each preorder
   * with its first key scaled by a random factor in [1, 2) per item, drawn
   * again each round: new early choices (guillotine n = 200, 40 instances,
   * 1 s: linear 1.1054 -> 1.0856, cyclic 1.0785 -> 1.0628; restarting
   * without the factors, 1.1085 / 1.0910, is worse than resuming). At the
   * load (tight sections) the preorders resume as they are: perfect fits
   * need their order, and MiniMalloc's instances are solved there. */
  uint64_t rs = 0x9e3779b97f4a7c15ull ^ cap;
  if (!S.tight && !resume_only && !(jbuf = pk_mem_alloc(sizeof(uint32_t) * n))) goto out;
  for (int round = 0;; round++) {
    limit = limit < (UINT64_MAX >> 2) ? limit * 2 : limit;
    if (jbuf && round > 0) {
      S.jit = jbuf;
      for (size_t i = 0; i < n; i++) {
        rs = rs * 6364136223846793005ull + 1442695040888963407ull;
        jbuf[i] = 1024 + (uint32_t)((rs >> 33) % 1024);
      }
      plens[0] = plens[1] = plens[2] = 0;
    }
    for (int hh = 0; hh < 3; hh++) {
      ps_set_rank(&S, hh, rks, width, area, tot);
      S.heur = hh;
      S.usp = 0; /* top-level re-rankings are never undone */
      S.nodes = 0;
      S.node_limit = budget && *budget < limit ? *budget : limit;
      /* MiniMalloc restarts each preorder from scratch under the doubled
       * limit, re-exploring what its last round did; the search is
       * deterministic, so this round replays the path to where that one
       * stopped (a node per frame) and goes on from there */
      S.path = paths + (size_t)hh * S.pcap;
      S.plen = plens[hh];
      S.resuming = S.plen > 0;
      S.fd = 0;
      S.abort_at = SIZE_MAX;
      int r = budget && !*budget ? R_TIMEOUT : ps_pieces(&S, 0, K, 0, K - 1, all, nall, 0);
      /* (stopped while still replaying: nothing new explored, same path) */
      if (r == R_ABORT && !S.resuming) plens[hh] = S.abort_at <= S.pcap ? S.abort_at : 0;
      if (budget) *budget -= S.nodes < *budget ? S.nodes : *budget;
      if (r == R_FOUND) { rc = PS_FOUND; goto found; }
      if (r == R_NOTFOUND || r == R_TIMEOUT) {
        /* the deepest partial packing, completed, whether the search ran
         * out of time or of packings (a quick "none" left it unused) */
        rc = r == R_TIMEOUT || !exact ? PS_UNKNOWN : PS_NONE;
        if (partial && S.best_np) {
          memcpy(partial, S.bsol, sizeof(uint64_t) * n);
          if (complete(in, partial, S.bplaced)) rc = -1;
          else *have_partial = 1;
        }
        goto out;
      }
      if (r == R_OOM) { rc = -1; goto out; }
    }
  }
found:
  memcpy(out, S.sol, sizeof(uint64_t) * n);
out:
  pk_mem_free(area); pk_mem_free(tot); pk_mem_free(rks); pk_mem_free(width); pk_mem_free(paths); pk_mem_free(jbuf);
  ps_free(&S);
  return rc;
}

static uint64_t eff_makespan(const pk_inst *in, const uint64_t *off) {
  uint64_t m = 0;
  for (size_t i = 0; i < in->n; i++)
    if (off[i] + in->size[i] > m) m = off[i] + in->size[i];
  return m;
}

/* The most alignment padding a stack of the items alive at a point of peak
 * load could need: sum of (align - 1) there (the largest over such points).
 * LOAD itself is seldom reachable when sizes break alignments: the first
 * attempt goes this much above the bound. 0 on OOM. */
static uint64_t peak_pad(const pk_inst *in) {
  uint32_t K = in->K;
  int64_t *d = pk_mem_calloc(2 * ((size_t)K + 1), sizeof(int64_t)), *p = d + K + 1;
  if (!d) return 0;
  for (size_t i = 0; i < in->n; i++) {
    int64_t sz = (int64_t)in->size[i], al = (int64_t)in->align[i] - 1;
    uint32_t a = in->s[i], b = in->e[i];
    if (a == b) { d[0] += sz; d[K] -= sz; p[0] += al; p[K] -= al; }
    else if (a < b) { d[a] += sz; d[b] -= sz; p[a] += al; p[b] -= al; }
    else { d[a] += sz; d[K] -= sz; d[0] += sz; d[b] -= sz; p[a] += al; p[K] -= al; p[0] += al; p[b] -= al; }
  }
  int64_t load = 0, pad = 0;
  uint64_t best = 0, bpad = 0;
  for (uint32_t t = 0; t < K; t++) {
    load += d[t];
    pad += p[t];
    if ((uint64_t)load > best) { best = (uint64_t)load; bpad = (uint64_t)pad; }
    else if ((uint64_t)load == best && (uint64_t)pad > bpad) bpad = (uint64_t)pad;
  }
  pk_mem_free(d);
  return bpad;
}

int pk_search_improve(const pk_inst *in, uint64_t lb, uint64_t deadline, uint64_t max_nodes, uint64_t *off,
                      int *proved) {
  uint64_t left = max_nodes, *budget = max_nodes ? &left : NULL;
  size_t n = in->n;
  *proved = 0;
  uint64_t M = eff_makespan(in, off);
  if (M <= lb) { *proved = 1; return 0; }
  if (n > PS_MAX_N) return 0; /* per-depth lists take 8 n^2 bytes */
  uint64_t *tmp = pk_mem_alloc(sizeof(uint64_t) * (n ? n : 1)), *part = pk_mem_alloc(sizeof(uint64_t) * (n ? n : 1));
  if (!tmp || !part) { pk_mem_free(tmp); pk_mem_free(part); return -1; }
  uint64_t lo = lb, proven = lb; /* below proven: infeasible (proved) */
  int improved = 0;
  uint64_t cap = lb, setup = (uint64_t)n * n, pad = peak_pad(in);
  if (pad > lb / PS_TOL_DIV) pad = lb / PS_TOL_DIV; /* no further than the bisection's own tolerance */
  int first = 1;
  while (lo < M) {
    uint64_t now = pk_now();
    /* an attempt's set-up cannot be cut short and is quadratic (about a
     * nanosecond per pair on dev, twice that on slower cores): not worth
     * starting without PS_SETUP_MARGIN x the longest one seen so far left */
    if (now >= deadline || deadline - now < PS_SETUP_MARGIN * setup) break;
    uint64_t rem = deadline - now, slice = first ? rem / PS_FIRST_SLICE_DEN * PS_FIRST_SLICE_NUM : rem / PS_SLICE_DIV;
    int at_lb = 0;
    if (!first && M - lo <= lb / PS_TOL_DIV) { /* within 0.1 %: bisection is not worth the time */
      /* but the bound itself, where the first attempt went above it and
       * nothing failed at it yet, is: tight sections make the search
       * strongest there, and a packing at the bound ends the call proved
       * optimal. With the rest of the time. */
      if (lo != lb || !pad) break; /* (an attempt there raises lo or ends the loop) */
      at_lb = 1;
      slice = rem;
    }
    /* the first attempt at the bound plus the padding alignments may force
     * there, up to the tolerance above: at the bound itself it is seldom
     * feasible when sizes break alignments, and never proved infeasible in
     * time */
    cap = at_lb ? lb : first ? (M - lo > pad ? lo + pad : lo) : lo + (M - lo) / 2;
    int have_part = 0;
    uint64_t su = 0;
    int r = decide(in, cap, now + slice, tmp, part, &have_part, budget, &su, 0);
    if (su > setup) setup = su;
    if (r < 0) { pk_mem_free(tmp); pk_mem_free(part); return -1; }
    if (r == PS_FOUND) {
      uint64_t m2 = eff_makespan(in, tmp);
      if (m2 < M) {
        M = m2;
        memcpy(off, tmp, sizeof(uint64_t) * n);
        improved = 1;
      }
      if (m2 > cap) break; /* cannot happen; guard against looping */
    } else {
      /* out of time: the deepest partial packing, completed, may still be
       * better than what we have */
      if (have_part && eff_makespan(in, part) < M) {
        M = eff_makespan(in, part);
        memcpy(off, part, sizeof(uint64_t) * n);
        improved = 1;
      }
      if (r == PS_NONE && cap + 1 > proven) proven = cap + 1;
      lo = cap + 1;
    }
    first = 0;
    if (budget && !left) break;
  }
  *proved = M <= proven;
  pk_mem_free(tmp); pk_mem_free(part);
  return improved;
}

/* ------------------------------------------------------------ public entry */

int fg_pack_search(const fg_pack_item *items, size_t n, const fg_pack_desc *desc, uint64_t capacity,
                   double budget_ms, uint64_t *offsets, char *err, size_t errlen) {
  fg_pack_desc d0;
  memset(&d0, 0, sizeof d0);
  if (!desc) desc = &d0;
  uint64_t P = desc->period;
  for (size_t i = 0; i < n; i++) {
    uint64_t a = items[i].align;
    if (!items[i].size || (a & (a - 1)) || (P ? items[i].start >= P || items[i].stop > P
                                              : items[i].start >= items[i].stop)) {
      fg_errf(err, errlen, "item %zu: bad size, align or lifetime (see fg_pack)", i + 1);
      return -1;
    }
  }
  if (!n) return PS_FOUND;
  pk_inst in;
  if (pk_build(&in, items, n, desc)) {
    fg_errf(err, errlen, "out of memory");
    return -1;
  }
  int rc = pk_search_decide(&in, capacity, budget_ms > 0 ? pk_now() + (uint64_t)(budget_ms * 1e6) : 0, offsets);
  if (rc < 0) fg_errf(err, errlen, "out of memory");
  pk_free(&in);
  return rc;
}
