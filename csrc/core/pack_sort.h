/* Private to the packers: the sorts every layer uses (pack_sort.c). The
 * lowest layer of the packers: it knows no instance, only keys. */
#ifndef FG_PACK_SORT_H
#define FG_PACK_SORT_H
#include <stddef.h>
#include <stdint.h>

/* Sort by (k, k2, i) ascending; writes the index order into ord when given. */
typedef struct pk_kv { uint64_t k, k2; size_t i; } pk_kv;
void pk_sort(pk_kv *kv, size_t n, size_t *ord);
void pk_sort_kv(pk_kv *kv, size_t n);
/* The same order, fast when kv is nearly sorted already (a re-plan's orders
 * barely move): insertion sort while that stays cheap, else pk_sort_kv. */
void pk_sort_kv_warm(pk_kv *kv, size_t n);
/* An occupied byte range [lo, hi): placement sorts a few of them per query. */
typedef struct pk_iv { uint64_t lo, hi; } pk_iv;
void pk_sort_iv(pk_iv *iv, size_t n); /* by lo; order among equal lo unspecified */
void pk_sort_u64(uint64_t *a, size_t n);

/* Stable counting sort: dst = the n ids of src ordered by key[id] < nk; 0 or -1 on OOM. */
int pk_csort(const uint32_t *key, uint32_t nk, const size_t *src, size_t n, size_t *dst);

#endif
