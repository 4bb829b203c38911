/* Private to the decision search (pack_search.c: the tree search;
 * pack_search_order.c: its preorders and set-up; pack_search_drive.c: a
 * decision, the bisection over capacities, the public entry). */
#ifndef FG_PACK_SEARCH_INT_H
#define FG_PACK_SEARCH_INT_H
#include "pack_search.h"
#include "pack_mem.h"
#include "pack_sort.h"
#include "pack_tune.h"
#include <stdlib.h>

enum { R_NOTFOUND = 0, R_FOUND = 1, R_ABORT = 3, R_TIMEOUT = 4, R_OOM = -1 };

typedef struct rk { uint64_t k[3]; uint32_t i; } rk; /* preorder keys */

typedef struct ps {
  const pk_inst *in;
  size_t n;
  uint32_t K;
  uint64_t cap;
  uint32_t *lo, *hi;          /* section range [lo, hi) of each free item (rotated time) */
  uint32_t *adjo, *adj;       /* CSR: free neighbours */
  uint32_t *seco, *sec;       /* CSR: free items per section; the first scnt[t] of section t's
                                 are the unplaced ones (a placement swaps its item past them,
                                 its undo, last in first out, just counts it back) */
  uint32_t *scnt, *spos, *sent, *ibase; /* per section: unplaced count; per (item, section)
                                 entry ibase[i] + (tt - lo[i]): its index in sec; per sec slot:
                                 its entry */
  uint64_t *floor, *total, *minoff, *sol;
  uint32_t *wit;              /* wit[t]: an item of section t that last held its floor up (a hint) */
  uint32_t *cuts;             /* cuts[t]: unplaced items covering both t and t+1 */
  char *placed;
  uint32_t *rank;
  uint32_t *mark;            /* scratch */
  uint32_t *raised, stamp;   /* items whose minoff the last placement raised */
  int dead;                  /* the last placement left some section overfull */
  uint32_t clo, chi;         /* sections whose floor the last placement may have raised */
  uint32_t *uidx;             /* undo: index | FLOOR_BIT */
  uint64_t *uval;
  size_t usp, ucap;
  uint32_t *lbuf, *pbuf;      /* per depth: ordered candidates, piece lists */
  int heur;                   /* preorder in use */
  const uint64_t *width, *area;
  rk *rks;
  pk_kv *kv;
  uint64_t nodes, node_limit, deadline;
  uint32_t tick, every;        /* out_of_time: events to the next clock reading, and between them */
  uint64_t last_clock;
  uint64_t *rbits;            /* rank_order: a bit per rank (kept clear between calls) */
  uint32_t *rslot;            /* rank_order: the item of each marked rank */
  size_t rwords;
  int tight;                  /* cap is the load: sections can be tight (else tight() is pure cost) */
  size_t np, best_np;         /* items placed now; most ever placed at once */
  uint64_t *bsol;             /* the offsets of that deepest partial packing */
  char *bplaced;
  /* resuming a preorder where its last round stopped: path[f] is the
   * candidate tried at the f-th frame along the current path (finished
   * pieces' frames included), plen frames of it lead to the frontier */
  uint32_t *path;
  size_t fd, plen, pcap, abort_at;
  int resuming;
  uint32_t *jit;              /* restarts with slack: per item, the preorder's first key is
                                 scaled by jit/1024, in [1, 2) (NULL: the keys as they are) */
} ps;

#define FLOOR_BIT 0x80000000u
#define RANK_BIT 0x40000000u

/* On a cycle, an item alive at the cut point t0 wraps: its sections are
 * [lo, K) and [0, hi - K) (hi > K). SX maps a section index in [0, 2K)
 * into [0, K). A wrapping item crosses every boundary as far as the
 * decomposition goes: nothing splits while one is unplaced. */
#define SX(S, t) ((t) >= (S)->K ? (t) - (S)->K : (t))
static inline int wraps(const ps *S, uint32_t i) { return S->hi[i] > S->K; }
static inline void cut_range(const ps *S, uint32_t i, uint32_t *a, uint32_t *b) {
  if (wraps(S, i)) { *a = 0; *b = S->K - 1; }
  else { *a = S->lo[i]; *b = S->hi[i] - 1; }
}

/* Undo stack: an entry is an index (| FLOOR_BIT, | RANK_BIT) and the value it had. */
static inline int push(ps *S, uint32_t idx, uint64_t v) {
  if (S->usp == S->ucap) {
    size_t c = S->ucap ? S->ucap * 2 : 4096;
    uint32_t *a = pk_mem_realloc(S->uidx, c * sizeof *a);
    if (!a) return -1;
    S->uidx = a;
    uint64_t *b = pk_mem_realloc(S->uval, c * sizeof *b);
    if (!b) return -1;
    S->uval = b;
    S->ucap = c;
  }
  S->uidx[S->usp] = idx;
  S->uval[S->usp++] = v;
  return 0;
}

/* ---- pack_search.c: the tree search ---- */
/* Solve the pieces of [lo, hi) split at the boundaries t in [a, b) that no
 * unplaced item crosses, one after the other; list holds the candidates. */
int ps_pieces(ps *S, uint32_t lo, uint32_t hi, uint32_t a, uint32_t b, const uint32_t *list, size_t nl, size_t depth);
/* Does every section of [lo, hi) fit its unplaced bytes above max(floor, o)? */
int ps_check(const ps *S, uint32_t lo, uint32_t hi, uint64_t o);

/* ---- pack_search_order.c: preorders and the decision's set-up ---- */
void ps_free(ps *S);
void ps_set_rank(ps *S, int h, rk *r, const uint64_t *width, const uint64_t *area, const uint64_t *tot);
int ps_rerank(ps *S, const uint32_t *pl, size_t m);
uint32_t ps_cut_point(const pk_inst *in, size_t *ncross);
int ps_decide_alloc(ps *S, int want_partial, uint64_t **area, uint64_t **tot, rk **rks, uint64_t **width);
uint64_t ps_decide_fix(ps *S, uint32_t t0, size_t ncross, int *exact);
void ps_decide_ranges(ps *S, uint32_t t0, int cyc, uint64_t *width, uint64_t *area);
void ps_decide_sections(ps *S);
int ps_decide_lists(ps *S, uint64_t *tot);

#endif
