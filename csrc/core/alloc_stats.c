/* Statistics that show a heap: the JSON dump (in the spirit of VMA's stats
 * string) and an SVG of the occupancy, both built from fg_allocator_walk, so
 * every kind gets them. Off the fast path: they sort and allocate freely. */
#include "alloc_impl.h"
#include "alloc_stats.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ULL(x) ((unsigned long long)(x))

void fg__sb_printf(fg__sb *s, const char *fmt, ...) {
  if (s->oom) return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(s->p ? s->p + s->n : NULL, s->p ? s->cap - s->n : 0, fmt, ap);
    va_end(ap);
    if (n < 0) { s->oom = 1; return; }
    if (s->p && s->n + (size_t)n < s->cap) { s->n += (size_t)n; return; }
    if (fg_grow(s->hooks, (void **)&s->p, &s->cap, s->n + (size_t)n + 1, 1024, 1)) { s->oom = 1; return; }
  }
}

char *fg__sb_done(fg__sb *s) {
  if (s->oom || !s->p) { fg_free(s->hooks, s->p); return NULL; }
  return s->p;
}

static void collect(void *c, uint64_t off, uint64_t size, uint64_t align, uint64_t user) {
  fg__ranges *r = c;
  if (r->oom) return;
  if (fg_grow(r->hooks, (void **)&r->v, &r->cap, r->n + 1, 64, sizeof *r->v)) { r->oom = 1; return; }
  r->v[r->n++] = (fg__range){ off, size, align, user };
}

static int by_offset(const void *x, const void *y) {
  uint64_t a = ((const fg__range *)x)->off, b = ((const fg__range *)y)->off;
  return a < b ? -1 : a > b;
}

int fg__ranges_of(const fg_allocator *a, fg__ranges *r) {
  memset(r, 0, sizeof *r);
  r->hooks = &a->hooks;
  fg_allocator_walk(a, collect, r);
  if (r->oom) { fg_free(r->hooks, r->v); r->v = NULL; return -1; }
  if (r->n) qsort(r->v, r->n, sizeof *r->v, by_offset);
  return 0;
}

static void hist_add(fg__hist *h, uint64_t size) {
  int k = 63 - __builtin_clzll(size);
  h->count[k]++;
  h->bytes[k] += size;
}

void fg__hist_json(fg__sb *s, const fg__hist *h) {
  fg__sb_printf(s, "\"free_histogram\":[");
  int first = 1;
  for (int k = 0; k < 64; k++) {
    if (!h->count[k]) continue;
    uint64_t hi = k == 63 ? UINT64_MAX : (2ull << k) - 1;
    fg__sb_printf(s, "%s{\"min\":%llu,\"max\":%llu,\"count\":%llu,\"bytes\":%llu}", first ? "" : ",", 1ull << k,
                  ULL(hi), ULL(h->count[k]), ULL(h->bytes[k]));
    first = 0;
  }
  fg__sb_printf(s, "]");
}

/* {"index":..,"size":..,"used":..,"allocations":[..],"free_ranges":[..]}; free
 * ranges are the gaps between allocations, added to h. */
int fg__block_json(fg__sb *s, const fg_allocator *a, uint32_t index, const char *extra, fg__hist *h) {
  fg__ranges r;
  if (fg__ranges_of(a, &r)) { s->oom = 1; return -1; }
  fg__sb_printf(s, "{\"index\":%u,%s\"kind\":\"%s\",\"size\":%llu,\"used\":%llu,\"allocation_count\":%llu,\"allocations\":[",
                index, extra ? extra : "", fg_alloc_kind_name(a->kind), ULL(a->capacity), ULL(a->used), ULL(a->count));
  for (size_t i = 0; i < r.n; i++)
    fg__sb_printf(s, "%s{\"offset\":%llu,\"size\":%llu,\"align\":%llu,\"user\":%llu}", i ? "," : "", ULL(r.v[i].off),
                  ULL(r.v[i].size), ULL(r.v[i].align), ULL(r.v[i].user));
  fg__sb_printf(s, "],\"free_ranges\":[");
  uint64_t at = 0;
  int first = 1;
  for (size_t i = 0; i <= r.n; i++) {
    uint64_t end = i < r.n ? r.v[i].off : a->capacity;
    if (end > at) {
      fg__sb_printf(s, "%s{\"offset\":%llu,\"size\":%llu}", first ? "" : ",", ULL(at), ULL(end - at));
      hist_add(h, end - at);
      first = 0;
    }
    if (i < r.n && r.v[i].off + r.v[i].size > at) at = r.v[i].off + r.v[i].size;
  }
  fg__sb_printf(s, "]}");
  fg_free(r.hooks, r.v);
  return 0;
}

char *fg_allocator_json(const fg_allocator *a) {
  fg__sb s = {0};
  s.hooks = &a->hooks;
  fg__hist h;
  memset(&h, 0, sizeof h);
  fg_alloc_stats st;
  fg_allocator_stats(a, &st);
  fg__sb_printf(&s, "{\"kind\":\"%s\",\"capacity\":%llu,\"used\":%llu,\"free\":%llu,\"allocation_count\":%llu,"
                    "\"largest_free\":%llu,\"fragmentation\":%.6f,\"blocks\":[",
                fg_alloc_kind_name(a->kind), ULL(st.capacity), ULL(st.used), ULL(st.free), ULL(st.allocations),
                ULL(st.largest_free), st.fragmentation);
  fg__block_json(&s, a, 0, NULL, &h);
  fg__sb_printf(&s, "],");
  fg__hist_json(&s, &h);
  fg__sb_printf(&s, "}");
  return fg__sb_done(&s);
}

typedef struct bj { fg__sb *s; fg__hist h; int first; const fg_block_allocator *b; } bj;
int fg__block_is_dedicated(const fg_block_allocator *b, uint32_t i);
static void block_one(void *c, uint32_t index, void *block_user, const fg_allocator *a) {
  bj *j = c;
  char extra[96];
  snprintf(extra, sizeof extra, "\"dedicated\":%s,", fg__block_is_dedicated(j->b, index) ? "true" : "false");
  if (!j->first) fg__sb_printf(j->s, ",");
  j->first = 0;
  fg__block_json(j->s, a, index, extra, &j->h);
}

int fg__block_json_into(fg__sb *s, const fg_block_allocator *b) {
  bj j;
  memset(&j, 0, sizeof j);
  j.s = s;
  j.first = 1;
  j.b = b;
  fg_block_stats st;
  fg_block_stats_get(b, &st);
  fg__sb_printf(s, "{\"block_count\":%u,\"empty_blocks\":%u,\"block_bytes\":%llu,\"used\":%llu,\"allocation_count\":%llu,"
                   "\"largest_free\":%llu,\"fragmentation\":%.6f,\"blocks\":[",
                st.blocks, st.empty_blocks, ULL(st.block_bytes), ULL(st.used), ULL(st.allocations),
                ULL(st.largest_free), st.fragmentation);
  fg_block_each(b, block_one, &j);
  fg__sb_printf(s, "],");
  fg__hist_json(s, &j.h);
  fg__sb_printf(s, "}");
  return s->oom ? -1 : 0;
}

char *fg_block_json(const fg_block_allocator *b) {
  fg__sb s = {0};
  s.hooks = fg__block_hooks(b);
  fg__block_json_into(&s, b);
  return fg__sb_done(&s);
}

char *fg_allocator_svg(const fg_allocator *a, int width) {
  if (width <= 0) width = 800;
  fg__ranges r;
  if (fg__ranges_of(a, &r)) return NULL;
  fg_alloc_stats st;
  fg_allocator_stats(a, &st);
  fg__sb s = {0};
  s.hooks = &a->hooks;
  const int bar = 32, top = 22, h = top + bar + 8;
  double k = st.capacity ? (double)width / (double)st.capacity : 0;
  fg__sb_printf(&s, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
                width + 2, h, width + 2, h);
  fg__sb_printf(&s, "<text x=\"1\" y=\"15\" font-family=\"sans-serif\" font-size=\"12\">%s: %llu of %llu used, "
                    "%llu allocations, largest free %llu, fragmentation %.3f</text>\n",
                fg_alloc_kind_name(a->kind), ULL(st.used), ULL(st.capacity), ULL(st.allocations),
                ULL(st.largest_free), st.fragmentation);
  fg__sb_printf(&s, "<rect class=\"free\" x=\"1\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#e8e8e8\" stroke=\"#888\"/>\n",
                top, width, bar);
  for (size_t i = 0; i < r.n; i++) {
    double x = 1 + (double)r.v[i].off * k, w = (double)r.v[i].size * k;
    if (w < 0.5) w = 0.5; /* every allocation stays visible */
    /* colour by user data when there is some, so owners can be told apart */
    unsigned hue = r.v[i].user ? (unsigned)((r.v[i].user * 0x9E3779B97F4A7C15ull) >> 55) * 360 / 512 : 210;
    fg__sb_printf(&s, "<rect class=\"used\" x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"hsl(%u,55%%,50%%)\">"
                      "<title>offset %llu, size %llu</title></rect>\n",
                  x, top, w, bar, hue, ULL(r.v[i].off), ULL(r.v[i].size));
  }
  fg__sb_printf(&s, "</svg>\n");
  fg_free(r.hooks, r.v);
  return fg__sb_done(&s);
}

void fg_allocator_free_result(const fg_allocator *a, void *p) { fg_free(&a->hooks, p); }
void fg_block_free_result(const fg_block_allocator *b, void *p) { fg_free(fg__block_hooks(b), p); }
