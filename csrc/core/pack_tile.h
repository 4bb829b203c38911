/* pack_tile: perfect tilings (pack_tile.c). When every time point carries
 * exactly LOAD bytes, a packing at LOAD leaves no byte free anywhere: the
 * items tile the memory. pk_tile rebuilds the blocks such a tiling is made
 * of and asks the decision search (pack_search.c) to pack the blocks. */
#ifndef FG_PACK_TILE_H
#define FG_PACK_TILE_H
#include "pack_inst.h"

/* Is the load flat: LOAD at every point (a cycle) or at every point up to
 * the last stop (a line)? Only then does pk_tile apply. 0 on OOM too. */
int pk_flat(const pk_inst *in, uint64_t load);

/* A packing into off, *mk its makespan: load itself (== LOAD of a flat
 * instance) when the blocks tile within the first half of the time to the
 * deadline, else the lowest packing of the blocks the rest of the time
 * finds. Every packing is checked; *mk = UINT64_MAX when there is none
 * (also when the instance does not qualify: granularity pages, alignments
 * above 4096, more than PS_MAX_N items). 0, or -1 on OOM. */
int pk_tile(const pk_inst *in, uint64_t load, uint64_t deadline_ns, uint64_t *off, uint64_t *mk);

#endif
