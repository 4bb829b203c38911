/* Internals shared by alloc_stats.c, alloc_defrag.c and the Vulkan pool's
 * JSON: a string builder, the sorted live ranges of an allocator, and the
 * JSON of one block. Not a public header of the allocators' API. */
#ifndef FG_ALLOC_STATS_H
#define FG_ALLOC_STATS_H
#include "fg_alloc.h"

/* hooks: where the buffer comes from (NULL = malloc); {0} is an empty builder. */
typedef struct fg__sb { char *p; size_t n, cap; int oom; const fg_alloc_hooks *hooks; } fg__sb;
void fg__sb_printf(fg__sb *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The string (from s->hooks), or NULL after running out of memory. */
char *fg__sb_done(fg__sb *s);

typedef struct fg__range { uint64_t off, size, align, user; } fg__range;
typedef struct fg__ranges { fg__range *v; size_t n, cap; int oom; const fg_alloc_hooks *hooks; } fg__ranges;
/* Live allocations sorted by offset (v from a's hooks: fg_free(r->hooks, r->v));
 * -1 when out of memory. */
int fg__ranges_of(const fg_allocator *a, fg__ranges *r);

typedef struct fg__hist { uint64_t count[64], bytes[64]; } fg__hist;
void fg__hist_json(fg__sb *s, const fg__hist *h);
/* Writes one block object; `extra` is inserted verbatim ("key":value, ) after its index. */
int fg__block_json(fg__sb *s, const fg_allocator *a, uint32_t index, const char *extra, fg__hist *h);
/* Writes fg_block_json's object into s. */
int fg__block_json_into(fg__sb *s, const fg_block_allocator *b);
/* The hooks a block allocator was made with (its results come from them). */
const fg_alloc_hooks *fg__block_hooks(const fg_block_allocator *b);

#endif
