/* Private to best (pack_best.c and the files of its steps): the state one
 * call shares, the steps' entry points, and the placement helpers several
 * of them use. Tuned constants: pack_tune.h. */
#ifndef FG_PACK_BEST_INT_H
#define FG_PACK_BEST_INT_H
#include "pack_best.h"
#include "pack_place.h"
#include "pack_tune.h"

/* An order and its first-fit packing (pack_best_start.c: ff_from). */
typedef struct bs {
  const pk_inst *in;
  size_t n;        /* items in the order (whole-cycle items are stacked below) */
  uint64_t lo0;    /* top of the whole-cycle stack */
  size_t *ord;     /* current order */
  uint32_t *pos;   /* position of each item in ord */
  uint64_t *off;   /* offsets of the current order's first-fit packing */
  uint64_t *pre;   /* pre[k] = max end among ord[0..k) */
  pk_plist pl;     /* scratch: placed items by offset (time-indexed when large) */
  pk_kv *kv;       /* scratch for sorting */
  uint64_t rng;
  uint64_t stop;   /* ff_from gives up (UINT64_MAX) once pk_now() passes it; 0 never */
} bs;
static inline uint64_t b_place(bs *b, size_t i, int bestfit) {
  return pk_place(b->in, &b->pl, b->off, i, b->lo0, UINT64_MAX, bestfit);
}
static inline void b_add(bs *b, size_t i) { pk_pl_insert(&b->pl, b->off, (uint32_t)i); }

/* of the caller's instance (best_lineize makes whole-cycle items intervals) */
static inline int is_whole(const pk_inst *in0, size_t i) { return in0->cyclic && in0->s[i] == in0->e[i]; }

/* What the steps of one call share. in is the caller's instance with the
 * conflict bits, size ranks and cut best adds; in0 measures real makespans. */
typedef struct best_run {
  const pk_inst *in0;
  pk_inst in, rev;          /* rev: in mirrored in time (when have_rev) */
  const uint64_t *hint;     /* desc->offset_hint */
  uint64_t *out;            /* the best packing so far */
  size_t n, m;              /* items; non-whole items (listed in bord by setup) */
  pk_tix tix;
  int ti, have_rev, have_hint;
  const uint64_t *bits;     /* built once there is time to search */
  uint64_t *bits_own;
  uint32_t *srank;
  uint64_t deadline, nodes;
  uint64_t lb, eload;       /* lower bound and LOAD, effective sizes */
  uint64_t reallb;          /* lower bound in real bytes: what proves optimality */
  uint64_t flatlb;          /* max(LOAD, cliques), real bytes (reallb less alignment): a flat load's level */
  uint64_t cheaplb;         /* max(LOAD, greedy clique), real bytes: what re-plans compare by */
  int exact_done;           /* the exact clique bound ran (or was skipped as too dear) */
  int align_done;           /* best_align_clique ran */
  uint64_t ref_mk, ref_lb;  /* desc->hint_makespan, hint_bound */
  int lb_partial;           /* a heavier clique may exist (fg_pack_result.bound_partial) */
  int line;                 /* is_line: set by best_ruin */
  int flat;                 /* flat_load: 0 not yet known, 1 no, 2 yes */
  int64_t fcut;             /* pk_free_cut of a cycle (best_clique), or -1 */
  pk_inst lin;              /* best_lineize's line (when have_lin) and its items */
  fg_pack_item *litems;
  int have_lin;
  uint64_t realBest, hintM, bestM;
  uint64_t dv_d, dv_last, dv_low; /* the dives so far (best_dives): count, the last gain, the lowest */
  int dv_on;                /* the first dive ran: the others follow the baselines */
  int dv_best;              /* out is a dive's packing (whole-cycle items on their stack) */
  double *dv_t;             /* the dives' item terms (dive_terms), 5 n, made by the first */
  bs b;
  size_t *bord;             /* best order so far */
  uint64_t *boff;           /* its packing */
  uint64_t *tmp;
  size_t *sord;             /* saved suffix for reverting */
  uint64_t *soff;
  pk_kv *kv;
} best_run;

/* What a step returns besides -1 (OOM): go on to the next step, stop with
 * out at a bound (optimal when it reaches reallb), or stop with *optimal
 * decided already. */
enum { BEST_ON = 0, BEST_PROVED = 1, BEST_FINISHED = 2, BEST_KEPT = 3 };

/* ---- pack_best_util.c: what the steps share (it calls none of them) ---- */
/* The conflict bits from the cache (or built and owned by the caller). */
const uint64_t *best_get_bits(const pk_inst *in, size_t *words, uint64_t **own);
/* Is the load flat (LOAD at every point)? Known once per call. */
int flat_load(best_run *r);
/* The dives' cost estimate; the deadline of the first dives (0: none run); whether they run now. */
uint64_t dive_cost(const best_run *r);
uint64_t dives_deadline(best_run *r, uint64_t now);
int dives_fit(best_run *r);

/* ---- pack_best_start.c: bounds, warm start, quick fit, baselines, starts, tiles ---- */
uint64_t ff_from(bs *b, size_t p);
void set_order_kv(bs *b, pk_kv *kv, int warm);
void best_clique_greedy(best_run *r);
void best_clique_exact(best_run *r, uint64_t deadline);
int best_warm(best_run *r);
int best_quick(best_run *r);
int best_bound(best_run *r);
int best_align_clique(best_run *r);
int best_baselines(best_run *r);
int best_tile(best_run *r);
int best_lineize(best_run *r);
int best_starts(best_run *r);

/* ---- pack_dive.c: canonical dives ---- */
int best_first_keys(best_run *r, double *key);
int best_dives(best_run *r, int first);

/* ---- pack_best_improve.c: ruin and recreate, exact search, decision search ---- */
int best_ruin(best_run *r);
int best_exact(best_run *r, int *optimal, int half);
int best_search(best_run *r, int *optimal);

#endif
