/* Private to the packers: placement against the items placed so far
 * (pack_place.c): the offset-sorted list with its optional time index, the
 * gap scan (first or best fit), and the skyline drop. Below it: pack_inst,
 * pack_sort. */
#ifndef FG_PACK_PLACE_H
#define FG_PACK_PLACE_H
#include "pack_inst.h"
#include "pack_sort.h"

/* Placed items sorted by offset. pk_place scans them upward, skipping those
 * whose lifetimes do not meet item i's: first fit stops at the first gap that
 * fits (no per-item sort), best fit takes the smallest such gap, else the top.
 * With limit == UINT64_MAX the top is the fallback; otherwise the region must
 * end by limit, and UINT64_MAX means nothing fits. */
typedef struct pk_plist {
  uint32_t *ix; size_t n;
  struct pk_tix *tix;
  int noix; /* with tix: inserts skip ix (kept for the items placed by a full
               scan); set only while no such item is left to place; cleared by
               pk_pl_clear */
  uint64_t *placed; /* with conflict bits: the placed items as bits, so pk_place
                       can take i's placed neighbours from its row */
  size_t words;
  uint32_t *pos;    /* ... and each listed item's index in ix: pk_place marks
                       the neighbours' positions in a bitmap and walks them in
                       offset order, no sort (kept by insert/remove) */
  uint64_t *sel;    /* scratch for that: words bits */
  uint64_t *lo, *hi; /* ... and each listed item's [offset, end) by its index
                       in ix, so the walk reads them without going through
                       ix, off and size (a listed item's offset must not
                       change: the list is sorted by it anyway) */
  const uint64_t *size; /* in->size, for hi */
} pk_plist;
/* ix for n items (and, when in has conflict bits, the placed bits); 0 or -1 on OOM. */
int pk_pl_init(pk_plist *pl, const pk_inst *in);
void pk_pl_free(pk_plist *pl);
void pk_pl_insert(pk_plist *pl, const uint64_t *off, uint32_t i);
void pk_pl_remove(pk_plist *pl, uint32_t i);
void pk_pl_clear(pk_plist *pl);
/* Removes the k items ids (flagged in gone) in one pass. */
void pk_pl_remove_set(pk_plist *pl, const char *gone, const size_t *ids, size_t k);
/* A copy of a list without a time index, to undo a move at the cost of a
 * few memcpy instead of removing and re-inserting what it moved. */
typedef struct pk_plsave { uint32_t *ix, *pos; uint64_t *placed; uint64_t *lo, *hi; size_t n, nitems; } pk_plsave;
/* 0, or -1 on OOM or when pl has a time index (not saved). */
int pk_pl_save_init(pk_plsave *s, const pk_plist *pl, size_t nitems);
void pk_pl_save_free(pk_plsave *s);
void pk_pl_save(pk_plsave *s, const pk_plist *pl);
void pk_pl_restore(pk_plist *pl, const pk_plsave *s);

/* Optional time index of a pk_plist (pl->tix), so placement costs the
 * placed items near item i in time instead of every placed item. Time is
 * cut into blocks; each block lists, sorted by offset, the placed items that
 * start in it and those that cover its first point having started elsewhere.
 * An item j meets i iff j starts inside i's arc (a start list of a block i
 * touches) or covers i's start (then it starts in i's start block, or covers
 * that block's first point). Items touching many blocks are placed by the
 * scan of the whole list. pk_place gives the same offsets either way. */
typedef struct pk_tix {
  const pk_inst *in;
  uint32_t B, nblk, wide;        /* block b = points [b*B, (b+1)*B); wide: max blocks for the index */
  uint32_t *sat, *scnt, *sl;     /* start lists: CSR (capacity by all items), counts, entries */
  uint32_t *cat, *ccnt, *cl;     /* cover lists */
  uint32_t *nbk;                 /* blocks each item touches */
  pk_iv *sc;                     /* scratch: n entries */
} pk_tix;
/* Returns 1 when built, 0 when not worth it (small n), -1 on OOM. */
int pk_tix_init(pk_tix *x, const pk_inst *in);
void pk_tix_free(pk_tix *x);
uint64_t pk_place(const pk_inst *in, const pk_plist *pl, const uint64_t *off, size_t i, uint64_t lo0,
                  uint64_t limit, int bestfit);

/* Drops ord[0..m) in that order: each item at the lowest aligned offset
 * (lo0 at least) above every earlier item of ord that it meets; no gap
 * below is searched. Writes their offsets; returns the makespan of the
 * dropped items (at least lo0), UINT64_MAX on OOM. */
uint64_t pk_drop(const pk_inst *in, const size_t *ord, size_t m, uint64_t lo0, uint64_t *off);

#endif
