/* graph_schedule: the memory schedule's shared state, between the stage
 * (graph_schedule.c: constraints, bounds, permutation) and its orders
 * (graph_schedule_order.c: LOAD, list schedulers, local search). Internal. */
#ifndef FG_GRAPH_SCHEDULE_H
#define FG_GRAPH_SCHEDULE_H
#include "graph_ir.h"

/* an entry of the list schedulers' ready heap (graph_schedule_order.c) */
typedef struct hent { int64_t key; uint32_t key2, s, ver; } hent;

typedef struct sched {
  fg_graph *g;
  uint32_t V, NP, H;
  /* per instance (declared slot): its touches of frame-0 copies (CSR) */
  uint32_t *ts, *tr;
  uint8_t *th;          /* 1: a history read (of the previous frame's copy) */
  /* per resource (frame-0 physical id; odd ids unused) */
  uint64_t *size;       /* 0 when not packed */
  uint32_t *heap;
  uint32_t *nn, *nh;    /* normal / history touches */
  uint8_t *keep;        /* live to the end of the frame: output or read as history */
  /* constraints (CSR of successors, and of predecessors) */
  uint32_t *ss, *sl, *indeg, *ps, *pl;
  uint32_t peak_t, peak_h;  /* sched_load: the time and heap of the largest peak */
  uint64_t *hload;          /* sched_load: per heap, its peak; then 3 H of scratch (order_bound) */
  /* per resource: the instances touching it (CSR), to refresh cached deltas */
  uint32_t *rs, *ri;
  uint8_t *rh;              /* per (resource, instance) entry of ri: 1 for a history touch */
  int64_t *prof;            /* sched_load writes the live bytes per heap and slot here (H x V) when set */
  /* scratch */
  uint32_t *rem, *remh, *ready, *order, *pos, *stamp;
  uint8_t *started, *inready;
  int64_t *dval;            /* per ready instance, its delta */
  uint32_t *ver;            /* per instance, the version of its current heap entry */
  hent *hp, *grp;            /* the ready heap (cap hcap) and one tie group */
  uint32_t hcap;
  int64_t *diff;
} sched;

/* TIE_*: the delta first, then a tie-break. MAJOR: no delta, index-major
 * (the flattened multiplex index, then the declared slot): each index's chain
 * runs to its end before the next starts, whenever the dependencies allow. */
enum { TIE_DECLARED, TIE_INDEX, TIE_RECENT, MAJOR, NTIES };

/* sched_load work units (touches + resources + heap slots) per millisecond on
 * the dev machine: the local search's share of the packer's time budget, as
 * calibrated when each move cost a full sched_load; moves are evaluated
 * incrementally now (same moves, same orders, about 5x less time) */
#define WORK_PER_MS 5.0e5

/* LOAD of the order with slots pos[] (per heap, the peak of live bytes over
 * one frame; summed); leaves each resource's first/last/last-history slot in
 * rem/remh/stamp, the largest peak in peak_t/peak_h, each heap's in hload */
uint64_t sched_load(sched *S, const uint32_t *pos);
/* one list schedule with tie-break tie into S->order; its length */
uint32_t sched_list(sched *S, int tie);
/* the local search from order best, improved in place within work; its
 * LOAD into *load; -1 when out of memory */
int sched_search(sched *S, uint32_t *best, uint64_t work, uint64_t *load);

#endif
