/* best: our solver (see pack_best notes below). */
#include "pack_internal.h"
#include <stdlib.h>
#include <string.h>

typedef int (*pk_fn)(const pk_inst *, uint64_t *);

int pk_best(const pk_inst *in, const fg_pack_desc *desc, uint64_t load, uint64_t *off, int *optimal) {
  static const pk_fn starts[] = {pk_bysize, pk_scanline, pk_thesis, pk_buckets, pk_pool, pk_none};
  size_t n = in->n;
  uint64_t *tmp = malloc(sizeof(uint64_t) * n), best = UINT64_MAX;
  if (!tmp) return -1;
  *optimal = 0;
  for (size_t k = 0; k < sizeof starts / sizeof *starts; k++) {
    if (starts[k](in, tmp)) { free(tmp); return -1; }
    uint64_t m = pk_makespan(in, tmp);
    if (m < best) { best = m; memcpy(off, tmp, sizeof(uint64_t) * n); }
  }
  free(tmp);
  (void)desc; (void)load;
  return 0;
}
