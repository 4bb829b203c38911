/* graph_diag: problems, plan strings, message helpers, the vocabulary's names
 * and suggestions of the graph compiler (see graph_diag.h). */
#include "graph_ir.h"
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------- names -- */
/* The vocabulary's names (fg_graph.h), which messages and plans spell out,
 * and the default stage of a usage. */
static const char *const usage_names[FG_USAGE_COUNT] = {FG_USAGES(FG_VOCAB_NAME8)};
static const char *const stage_names[FG_STAGE_COUNT] = {"default", FG_STAGES(FG_VOCAB_NAME2)};

const char *fg_usage_name(fg_usage u) { return (unsigned)u < FG_USAGE_COUNT ? usage_names[u] : "?"; }
int fg_usage_from_name(const char *s) {
  for (int i = 0; s && i < FG_USAGE_COUNT; i++) if (!strcmp(usage_names[i], s)) return i;
  return -1;
}
const char *fg_stage_name(fg_stage s) { return (unsigned)s < FG_STAGE_COUNT ? stage_names[s] : "?"; }
int fg_stage_from_name(const char *s) {
  for (int i = 0; s && i < FG_STAGE_COUNT; i++) if (!strcmp(stage_names[i], s)) return i;
  return -1;
}
const char *fg_access_name(fg_access a) {
  static const char *const n[] = {"create", "modify", "read", "history", "rename"};
  return (unsigned)a < 5 ? n[a] : "?";
}
const char *fg_schedule_name(fg_schedule s) {
  return s == FG_SCHEDULE_DECLARED ? "declared" : s == FG_SCHEDULE_MEMORY || s == FG_SCHEDULE_DEFAULT ? "memory" : "?";
}
int fg_schedule_from_name(const char *s) {
  if (s && !strcmp(s, "declared")) return FG_SCHEDULE_DECLARED;
  if (s && !strcmp(s, "memory")) return FG_SCHEDULE_MEMORY;
  return -1;
}
const char *fg_node_state_name(fg_node_state s) {
  static const char *const n[] = {"active", "culled", "broken", "removed"};
  return (unsigned)s < 4 ? n[s] : "?";
}
fg_stage fg_graph_default_stage(fg_usage u, int has_pass) {
  /* columns 3 and 4 of the usage's row (fg_vocab.h) */
#define ROW(id, name, sp, snp, acc, lay, img, buf) {FG_STAGE_##sp, FG_STAGE_##snp},
  static const fg_stage st[FG_USAGE_COUNT][2] = {FG_USAGES(ROW)};
#undef ROW
  return (unsigned)u < FG_USAGE_COUNT ? st[u][has_pass ? 0 : 1] : FG_STAGE_HOST;
}

/* ------------------------------------------------------------ problems -- */
void graph_problems_reset(fg_graph *g) {
  g->errlen = 0;
  g->nproblems = 0;
  if (g->err) g->err[0] = 0;
}

void graph_problem(fg_graph *g, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  int len = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (len < 0) return;
  if ((size_t)len >= sizeof buf) len = sizeof buf - 1;
  size_t need = g->errlen + (size_t)len + 2;
  if (need > g->errcap) {
    size_t nc = g->errcap ? g->errcap * 2 : 256;
    while (nc < need) nc *= 2;
    char *p = fg_realloc(&g->h, g->err, nc);
    if (!p) return;
    g->err = p;
    g->errcap = nc;
  }
  if (g->nproblems++) g->err[g->errlen++] = '\n';
  memcpy(g->err + g->errlen, buf, (size_t)len + 1);
  g->errlen += (size_t)len;
}

/* -------------------------------------------------------- plan strings -- */
uint32_t graph_pstr_put(fg_graph *g, const char *s, size_t len) {
  uint32_t off = g->pstr.n;
  if (vec_grow(&g->h, (void **)&g->pstr.a, &g->pstr.cap, g->pstr.n + (uint32_t)len + 1, 1)) {
    g->oom = 1;
    return NONE;
  }
  memcpy(g->pstr.a + off, s, len);
  g->pstr.a[off + len] = 0;
  g->pstr.n += (uint32_t)len + 1;
  return off;
}

uint32_t graph_pstr_add(fg_graph *g, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int len = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (len < 0) len = 0;
  if ((size_t)len >= sizeof buf) len = sizeof buf - 1;
  return graph_pstr_put(g, buf, (size_t)len);
}

/* ------------------------------------------------------------ strings -- */
void graph_mode_str(const fg_graph *g, uint32_t mode, char *buf, size_t len) {
  size_t o = 0;
  buf[o++] = '{';
  int first = 1;
  for (uint32_t d = 0; d < g->dims.n && o + 2 < len; d++) {
    if (!(mode >> d & 1)) continue;
    int k = snprintf(buf + o, len - o, "%s%s", first ? "" : ", ", S(g, g->dims.a[d].name));
    if (k < 0) break;
    o += (size_t)k;
    if (o >= len) o = len - 1;
    first = 0;
  }
  if (o + 2 <= len) { buf[o++] = '}'; buf[o] = 0; } else buf[len - 1] = 0;
}

const char *graph_access_verb(uint8_t a) {
  switch (a) {
  case FG_ACCESS_READ: return "read";
  case FG_ACCESS_MODIFY: return "modify";
  case FG_ACCESS_RENAME: return "rename";
  case FG_ACCESS_HISTORY: return "history";
  default: return "create";
  }
}

/* --------------------------------------------------------- suggestions -- */
#define ED_MAX 64
uint32_t graph_edit_distance(const char *a, const char *b) {
  size_t n = strlen(a), m = strlen(b);
  if (n > ED_MAX || m > ED_MAX) return UINT32_MAX / 2;
  /* three rows: the one two back is needed for a swap */
  uint32_t r0[ED_MAX + 1], r1[ED_MAX + 1], r2[ED_MAX + 1];
  uint32_t *pp = r0, *p = r1, *c = r2;
  for (size_t j = 0; j <= m; j++) p[j] = (uint32_t)j;
  for (size_t i = 1; i <= n; i++) {
    c[0] = (uint32_t)i;
    for (size_t j = 1; j <= m; j++) {
      int ai = tolower((unsigned char)a[i - 1]), bj = tolower((unsigned char)b[j - 1]);
      uint32_t v = p[j - 1] + (ai != bj);
      if (p[j] + 1 < v) v = p[j] + 1;
      if (c[j - 1] + 1 < v) v = c[j - 1] + 1;
      if (i > 1 && j > 1 && ai == tolower((unsigned char)b[j - 2]) && tolower((unsigned char)a[i - 2]) == bj &&
          pp[j - 2] + 1 < v)
        v = pp[j - 2] + 1;
      c[j] = v;
    }
    uint32_t *t = pp; pp = p; p = c; c = t;
  }
  return p[m];
}

int graph_is_close(const char *typed, const char *want) {
  if (!strcmp(typed, want)) return 0;
  size_t len = strlen(want) > strlen(typed) ? strlen(want) : strlen(typed);
  uint32_t limit = len <= 4 ? 1 : len <= 8 ? 2 : 3;
  return graph_edit_distance(typed, want) <= limit;
}

void graph_suggest_begin(graph_suggest *s, const char *typed) {
  s->typed = typed;
  s->best = NULL;
  s->dist = UINT32_MAX;
}

void graph_suggest_feed(graph_suggest *s, const char *cand) {
  if (!cand || !cand[0] || !strcmp(cand, s->typed) || !graph_is_close(s->typed, cand)) return;
  uint32_t d = graph_edit_distance(s->typed, cand);
  if (d < s->dist || (d == s->dist && s->best && !strcmp(s->best, cand))) { s->best = cand; s->dist = d; }
}

const char *graph_suggest_text(const graph_suggest *s, char *buf, size_t len) {
  if (!s->best) { if (len) buf[0] = 0; return buf; }
  snprintf(buf, len, "; did you mean '%s'?", s->best);
  return buf;
}
