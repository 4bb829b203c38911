/* graph_diag: the graph compiler's diagnostics, shared by every phase file
 * (graph_validate.c, graph_order.c, ...): the problem list a failed compile
 * returns, the plan-string arena that holds node reasons, the small string
 * helpers messages use and "did you mean" suggestions. The phases depend on
 * this file, not on the driver (graph.c). */
#ifndef FG_GRAPH_DIAG_H
#define FG_GRAPH_DIAG_H
#include <stddef.h>
#include <stdint.h>

#include "fg_graph.h"

/* Appends one problem (a line of fg_graph_error). */
void graph_problem(fg_graph *g, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  ;
/* Clears the problem list. */
void graph_problems_reset(fg_graph *g);

/* plan string arena: returns an offset (pointers fixed up after growth) */
uint32_t graph_pstr_add(fg_graph *g, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  ;

/* the same for len bytes of s (no formatting) */
uint32_t graph_pstr_put(fg_graph *g, const char *s, size_t len);

/* "{eye, tile}" */
void graph_mode_str(const fg_graph *g, uint32_t mode, char *buf, size_t len);
/* "read", "modify", "rename", "history", "create" */
const char *graph_access_verb(uint8_t access);

/* Optimal-string-alignment distance (insertions, deletions, substitutions
 * and swaps of two neighbours each cost 1), case-insensitive; gives up and
 * returns a large value past 64 characters. */
uint32_t graph_edit_distance(const char *a, const char *b);
/* Close enough to be a misspelling of `want`: at most 1 edit for names up to
 * 4 characters, 2 up to 8, 3 beyond (a differing case alone counts). */
int graph_is_close(const char *typed, const char *want);

/* A suggestion over candidate names: feed every candidate, then `best` is the
 * closest one within graph_is_close (NULL when none; ties: the first fed). */
typedef struct graph_suggest {
  const char *typed, *best;
  uint32_t dist;
} graph_suggest;
void graph_suggest_begin(graph_suggest *s, const char *typed);
void graph_suggest_feed(graph_suggest *s, const char *candidate);
/* "; did you mean 'ao'?" or "" */
const char *graph_suggest_text(const graph_suggest *s, char *buf, size_t len);

#endif
