/* framegraph.graph, declaration half: reads a pipeline table (already
 * checked by the Lua schema) and declares it to the C compiler. Tables are
 * read in a deterministic order: array part first, then hash keys sorted by
 * name, because Lua's hash order changes between runs. Private to csrc/lua
 * (graph.c uses it for compile, update and replace). */
#include "fg_lua.h"
#include "graph_declare.h"
#include "fg_graph_async.h"
#include <stdlib.h>
#include <string.h>

#define MAXKEYS 4096

/* ------------------------------------------------------- table reading -- */
/* The string at idx. The schema rejects NUL bytes with a precise message;
 * this guards core.compile called alone, since C would read "a\0b" as "a". */
static const char *plain_str(lua_State *L, int idx) {
  size_t n;
  const char *s = lua_tolstring(L, idx, &n);
  if (strlen(s) != n)
    luaL_error(L, "'%s\\0...' contains a NUL byte: names and values must be plain text, remove it", s);
  return s;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* Collect string keys of the hash part of table t (not 1..#t), sorted. The
 * strings stay alive as long as the table does. Returns the count. */
static int sorted_keys(lua_State *L, int t, const char **keys, int max) {
  int n = 0;
  lua_Integer len = (lua_Integer)lua_rawlen(L, t);
  lua_pushnil(L);
  while (lua_next(L, t)) {
    lua_pop(L, 1);
    if (lua_type(L, -1) == LUA_TSTRING) {
      if (n < max) keys[n++] = plain_str(L, -1);
    } else if (lua_isinteger(L, -1)) {
      lua_Integer i = lua_tointeger(L, -1);
      if (i < 1 || i > len) luaL_error(L, "unexpected key %d in a declaration table", (int)i);
    }
  }
  qsort(keys, (size_t)n, sizeof *keys, cmp_str);
  return n;
}

int fg_lua_abs_index(lua_State *L, int i) { return i > 0 || i <= LUA_REGISTRYINDEX ? i : lua_gettop(L) + i + 1; }

const char *fg_lua_field_str(lua_State *L, int t, const char *k) {
  lua_getfield(L, t, k);
  const char *s = lua_type(L, -1) == LUA_TSTRING ? plain_str(L, -1) : NULL;
  lua_pop(L, 1);  /* the string stays referenced by the table */
  return s;
}

/* The number at idx as an integer, saturating (casting an out-of-range
 * double is undefined); def when it is no number. */
static lua_Integer num_int(lua_State *L, int idx, lua_Integer def) {
  if (lua_isinteger(L, idx)) return lua_tointeger(L, idx);
  if (!lua_isnumber(L, idx)) return def;
  lua_Number n = lua_tonumber(L, idx);
  if (n != n) return 0;
  if (n >= 9.2e18) return LUA_MAXINTEGER;
  if (n <= -9.2e18) return LUA_MININTEGER;
  return (lua_Integer)n;
}

/* Saturated into 0..UINT32_MAX, so {2^40, 1} reaches C as too large rather
 * than wrapping to 0 (the schema names the exact value first). */
static uint32_t clamp_u32(lua_Integer v) { return v < 0 ? 0 : v > (lua_Integer)UINT32_MAX ? UINT32_MAX : (uint32_t)v; }

lua_Integer fg_lua_field_int(lua_State *L, int t, const char *k, lua_Integer def) {
  lua_getfield(L, t, k);
  lua_Integer v = num_int(L, -1, def);
  lua_pop(L, 1);
  return v;
}

static fg_usage usage_of(lua_State *L, const char *s) {
  if (!s) return FG_USAGE_NONE;
  int u = fg_usage_from_name(s);
  if (u < 0) luaL_error(L, "unknown usage '%s'", s);
  return (fg_usage)u;
}
static fg_stage stage_of(lua_State *L, const char *s) {
  if (!s) return FG_STAGE_DEFAULT;
  int u = fg_stage_from_name(s);
  if (u < 0) luaL_error(L, "unknown stage '%s'", s);
  return (fg_stage)u;
}

/* A size scale: positive and finite (the schema says so first; this guards
 * core.compile called alone, where NaN would reach a float-to-int cast). */
static double finite_scale(lua_State *L, int idx) {
  lua_Number v = lua_tonumber(L, idx);
  if (!(v > 0) || v > 1e300) luaL_error(L, "size scale must be a positive finite number, got %f", (double)v);
  return v;
}

/* size = "main" | {"main", s} | {"main", sx, sy} | {w, h} */
static void read_size(lua_State *L, int t, fg_graph_res_desc *d) {
  lua_getfield(L, t, "size");
  int s = lua_gettop(L);
  if (lua_type(L, s) == LUA_TSTRING) {
    d->resolution = plain_str(L, s);
  } else if (lua_istable(L, s)) {
    lua_rawgeti(L, s, 1);
    lua_rawgeti(L, s, 2);
    lua_rawgeti(L, s, 3);
    if (lua_type(L, -3) == LUA_TSTRING) {
      d->resolution = plain_str(L, -3);
      d->scale_x = lua_isnumber(L, -2) ? finite_scale(L, -2) : 1.0;
      d->scale_y = lua_isnumber(L, -1) ? finite_scale(L, -1) : d->scale_x;
    } else {
      d->width = clamp_u32(num_int(L, -3, 0));
      d->height = clamp_u32(num_int(L, -2, 1));
    }
    lua_pop(L, 3);
  }
  lua_pop(L, 1);  /* strings are kept alive by the pipeline table */
}

static void read_res_desc(lua_State *L, int t, fg_graph_res_desc *d, int external) {
  memset(d, 0, sizeof *d);
  lua_getfield(L, t, "buffer");
  int isbuf = !lua_isnil(L, -1);
  if (isbuf) {
    lua_Integer b = num_int(L, -1, 0);
    d->kind = FG_RES_BUFFER;
    d->bytes = b < 0 ? 0 : (uint64_t)b;  /* negative: "must be positive", not 2^64 - n */
  }
  lua_pop(L, 1);
  lua_getfield(L, t, "blob");
  if (!lua_isnil(L, -1)) {
    d->kind = FG_RES_BLOB;
    if (lua_istable(L, -1)) {
      lua_getfield(L, -1, "size");
      int isint = 0;
      lua_Integer b = lua_isnil(L, -1) ? 0 : lua_tointegerx(L, -1, &isint);
      if (!lua_isnil(L, -1) && (!isint || b < 0 || (uint64_t)b > FG_MAX_RESOURCE_BYTES))
        luaL_error(L, "blob size must be an integer number of bytes from 0 to %I (1 TiB)",
                   (lua_Integer)FG_MAX_RESOURCE_BYTES);
      lua_pop(L, 1);
      d->bytes = (uint64_t)b;
    }
  }
  lua_pop(L, 1);
  if (external) d->kind = FG_RES_EXTERNAL;
  const char *fmt = fg_lua_field_str(L, t, "format");
  if (fmt) d->format = fg_format_from_name(fmt);
  read_size(L, t, d);
  d->mips = clamp_u32(fg_lua_field_int(L, t, "mips", 1));
  d->layers = clamp_u32(fg_lua_field_int(L, t, "layers", 1));
  d->depth = clamp_u32(fg_lua_field_int(L, t, "depth", 1));
  const char *h = fg_lua_field_str(L, t, "history");
  d->history = !h ? FG_HISTORY_NONE : !strcmp(h, "discard") ? FG_HISTORY_DISCARD : FG_HISTORY_CLEAR;
}

/* one request entry: value is a usage string, true, or {usage=, stage=, optional=} */
static void read_request(lua_State *L, int v, const char **usage, const char **stage, int *optional) {
  *usage = *stage = NULL;
  *optional = 0;
  if (lua_type(L, v) == LUA_TSTRING) *usage = plain_str(L, v);
  else if (lua_istable(L, v)) {
    *usage = fg_lua_field_str(L, v, "usage");
    *stage = fg_lua_field_str(L, v, "stage");
    lua_getfield(L, v, "optional");
    *optional = lua_toboolean(L, -1);
    lua_pop(L, 1);
  }
}

static int check(lua_State *L, int rc, const char *what, const char *node) {
  if (rc) luaL_error(L, "framegraph: out of memory declaring %s of node '%s'", what, node);
  return rc;
}

/* Mode names of a multiplex list (strings stay alive in the node table). */
static uint32_t read_mux(lua_State *L, int nt, const char **mux) {
  uint32_t n = 0;
  lua_getfield(L, nt, "multiplex");
  if (lua_istable(L, -1)) {
    int m = lua_gettop(L);
    lua_Integer len = (lua_Integer)lua_rawlen(L, m);
    for (lua_Integer i = 1; i <= len && n < FG_GRAPH_MAX_DIMS; i++) {
      lua_rawgeti(L, m, i);
      if (lua_type(L, -1) == LUA_TSTRING) mux[n++] = plain_str(L, -1);
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 1);
  return n;
}

/* Iterate "array of names + hash of name -> spec" tables deterministically.
 * fn(L, node, name, value_index). */
typedef void (*entry_fn)(lua_State *L, fg_graph *g, uint32_t node, const char *nname, const char *name, int v);

static void for_entries(lua_State *L, fg_graph *g, uint32_t node, const char *nname, int nt, const char *field,
                        entry_fn fn) {
  lua_getfield(L, nt, field);
  int t = lua_gettop(L);
  if (lua_type(L, t) == LUA_TSTRING) {  /* after = "x" */
    fn(L, g, node, nname, plain_str(L, t), 0);
  } else if (lua_istable(L, t)) {
    lua_Integer len = (lua_Integer)lua_rawlen(L, t);
    for (lua_Integer i = 1; i <= len; i++) {
      lua_rawgeti(L, t, i);
      if (lua_type(L, -1) == LUA_TSTRING) fn(L, g, node, nname, plain_str(L, -1), 0);
      lua_pop(L, 1);
    }
    const char *keys[MAXKEYS];
    int nk = sorted_keys(L, t, keys, MAXKEYS);
    for (int k = 0; k < nk; k++) {
      lua_getfield(L, t, keys[k]);
      fn(L, g, node, nname, keys[k], lua_gettop(L));
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 1);
}

static void e_create(lua_State *L, fg_graph *g, uint32_t node, const char *nn, const char *name, int v) {
  fg_graph_res_desc d;
  memset(&d, 0, sizeof d);
  const char *usage = NULL, *stage = NULL;
  if (v && lua_istable(L, v)) {
    read_res_desc(L, v, &d, 0);
    usage = fg_lua_field_str(L, v, "usage");
    stage = fg_lua_field_str(L, v, "stage");
  }
  check(L, fg_graph_node_create(g, node, name, &d, usage_of(L, usage), stage_of(L, stage)), "create", nn);
}
static void e_read(lua_State *L, fg_graph *g, uint32_t node, const char *nn, const char *name, int v) {
  const char *usage, *stage;
  int opt;
  if (v) read_request(L, v, &usage, &stage, &opt); else { usage = stage = NULL; opt = 0; }
  check(L, fg_graph_node_read(g, node, name, usage_of(L, usage), stage_of(L, stage), opt), "read", nn);
}
static void e_modify(lua_State *L, fg_graph *g, uint32_t node, const char *nn, const char *name, int v) {
  const char *usage, *stage;
  int opt;
  if (v) read_request(L, v, &usage, &stage, &opt); else { usage = stage = NULL; opt = 0; }
  check(L, fg_graph_node_modify(g, node, name, usage_of(L, usage), stage_of(L, stage)), "modify", nn);
}
static void e_history(lua_State *L, fg_graph *g, uint32_t node, const char *nn, const char *name, int v) {
  const char *usage, *stage;
  int opt;
  if (v) read_request(L, v, &usage, &stage, &opt); else { usage = stage = NULL; opt = 0; }
  check(L, fg_graph_node_history(g, node, name, usage_of(L, usage), stage_of(L, stage), opt), "history", nn);
}
static void e_rename(lua_State *L, fg_graph *g, uint32_t node, const char *nn, const char *name, int v) {
  const char *to = NULL, *usage = NULL, *stage = NULL;
  if (v && lua_type(L, v) == LUA_TSTRING) to = plain_str(L, v);
  else if (v && lua_istable(L, v)) {
    to = fg_lua_field_str(L, v, "to");
    usage = fg_lua_field_str(L, v, "usage");
    stage = fg_lua_field_str(L, v, "stage");
  }
  if (!to) luaL_error(L, "node '%s': rename '%s': missing target name", nn, name);
  check(L, fg_graph_node_rename(g, node, name, to, usage_of(L, usage), stage_of(L, stage)), "rename", nn);
}
static void e_after(lua_State *L, fg_graph *g, uint32_t node, const char *nn, const char *name, int v) {
  (void)v;
  check(L, fg_graph_node_after(g, node, name), "after", nn);
}
static void e_before(lua_State *L, fg_graph *g, uint32_t node, const char *nn, const char *name, int v) {
  (void)v;
  check(L, fg_graph_node_before(g, node, name), "before", nn);
}

/* attachment: "name" or {"name", clear = {r,g,b,a} | depth, stencil = n} */
/* A clear value as a float: finite and within float's range (a cast of a
 * larger double is undefined); def when it is no number. */
static float clear_float(lua_State *L, int idx, double def) {
  if (!lua_isnumber(L, idx)) return (float)def;
  lua_Number v = lua_tonumber(L, idx);
  if (!(v >= -3.4e38 && v <= 3.4e38)) luaL_error(L, "pass: a clear value must be a finite number, got %f", (double)v);
  return (float)v;
}

static void read_attachment(lua_State *L, fg_graph *g, uint32_t node, const char *nn, int v, int depth) {
  const char *name = NULL;
  float clear[4] = {0, 0, 0, 0};
  int has_clear = 0, has_stencil = 0;
  uint32_t stencil = 0;
  if (lua_type(L, v) == LUA_TSTRING) name = plain_str(L, v);
  else if (lua_istable(L, v)) {
    lua_rawgeti(L, v, 1);
    name = lua_type(L, -1) == LUA_TSTRING ? plain_str(L, -1) : NULL;
    lua_pop(L, 1);
    lua_getfield(L, v, "clear");
    if (lua_istable(L, -1)) {
      has_clear = 1;
      for (int i = 0; i < 4; i++) {
        lua_rawgeti(L, -1, i + 1);
        clear[i] = clear_float(L, -1, i == 3 ? 1.0 : 0.0);
        lua_pop(L, 1);
      }
    } else if (lua_isnumber(L, -1)) {
      has_clear = 1;
      clear[0] = clear_float(L, -1, 1.0);
    }
    lua_pop(L, 1);
    lua_getfield(L, v, "stencil");
    if (lua_isnumber(L, -1)) {
      int isint = 0;
      lua_Integer sv = lua_tointegerx(L, -1, &isint);
      if (!isint || sv < 0 || sv > 255) luaL_error(L, "node '%s': pass: stencil clear must be an integer from 0 to 255", nn);
      has_stencil = 1;
      stencil = (uint32_t)sv;
    }
    lua_pop(L, 1);
  }
  if (!name) luaL_error(L, "node '%s': pass: attachment without a resource name", nn);
  if (depth)
    check(L, fg_graph_node_depth(g, node, name, has_clear ? &clear[0] : NULL, has_stencil ? &stencil : NULL), "pass", nn);
  else
    check(L, fg_graph_node_color(g, node, name, has_clear ? clear : NULL), "pass", nn);
}

/* Declare the requests of node table nt into node `node`. */
void fg_lua_declare_node_body(lua_State *L, fg_graph *g, uint32_t node, int nt, const char *nn) {
  for_entries(L, g, node, nn, nt, "create", e_create);
  for_entries(L, g, node, nn, nt, "read", e_read);
  for_entries(L, g, node, nn, nt, "modify", e_modify);
  for_entries(L, g, node, nn, nt, "rename", e_rename);
  for_entries(L, g, node, nn, nt, "history", e_history);
  for_entries(L, g, node, nn, nt, "after", e_after);
  for_entries(L, g, node, nn, nt, "before", e_before);
  lua_getfield(L, nt, "pass");
  int p = lua_gettop(L);
  if (lua_istable(L, p)) {
    lua_getfield(L, p, "color");
    int c = lua_gettop(L);
    if (lua_type(L, c) == LUA_TSTRING) read_attachment(L, g, node, nn, c, 0);
    else if (lua_istable(L, c)) {
      lua_Integer len = (lua_Integer)lua_rawlen(L, c);
      for (lua_Integer i = 1; i <= len; i++) {
        lua_rawgeti(L, c, i);
        read_attachment(L, g, node, nn, lua_gettop(L), 0);
        lua_pop(L, 1);
      }
    }
    lua_pop(L, 1);
    lua_getfield(L, p, "depth");
    if (!lua_isnil(L, -1)) read_attachment(L, g, node, nn, lua_gettop(L), 1);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

void fg_lua_node_desc_of(lua_State *L, int nt, fg_graph_node_desc *d, const char **mux, lua_Integer user) {
  memset(d, 0, sizeof *d);
  d->name = fg_lua_field_str(L, nt, "name");
  if (!d->name) d->name = "?";
  d->multiplex = mux;
  d->multiplex_count = read_mux(L, nt, mux);
  lua_getfield(L, nt, "side_effects");
  d->side_effects = lua_toboolean(L, -1);
  lua_pop(L, 1);
  /* the schema checked the value; anything but "async" is the graphics queue */
  lua_getfield(L, nt, "queue");
  const char *q = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
  d->queue = q && !strcmp(q, "async") ? FG_QUEUE_ASYNC : FG_QUEUE_GRAPHICS;
  lua_pop(L, 1);
  d->user = user;
  d->order_hint = user > 0 && user < UINT32_MAX ? (uint32_t)user : 0;  /* ties follow the table's order */
}

/* Declare dimensions (pipeline then opts override), resolutions, outputs,
 * externals and all nodes. */
void fg_lua_declare_pipeline(lua_State *L, fg_graph *g, int pt, int ot) {
  const char *keys[MAXKEYS];
  /* dimensions: sorted by name so instance names and ids are stable */
  for (int pass = 0; pass < 2; pass++) {
    int t = pass ? ot : pt;
    if (!t) continue;
    lua_getfield(L, t, "dimensions");
    int d = lua_gettop(L);
    if (lua_istable(L, d)) {
      int nk = sorted_keys(L, d, keys, MAXKEYS);
      for (int k = 0; k < nk; k++) {
        lua_Integer c = fg_lua_field_int(L, d, keys[k], 1);
        if (pass == 1 && fg_graph_dimension_index(g, keys[k]) == FG_GRAPH_NONE) {
          lua_pop(L, 1);
          luaL_error(L, "opts.dimensions: unknown dimension '%s' (the pipeline must declare it)", keys[k]);
        }
        if (fg_graph_add_dimension(g, keys[k], c > 0 && c <= FG_MAX_DIMENSION_COUNT ? (uint32_t)c : 0)) {
          lua_pop(L, 1);
          luaL_error(L, "dimensions: at most %d dimensions are supported", FG_GRAPH_MAX_DIMS);
        }
      }
    }
    lua_pop(L, 1);
    lua_getfield(L, t, "resolutions");
    int r = lua_gettop(L);
    if (lua_istable(L, r)) {
      int nk = sorted_keys(L, r, keys, MAXKEYS);
      for (int k = 0; k < nk; k++) {
        if (pass == 1) {  /* as opts.dimensions: a misspelt name would be silently ignored */
          int known = 0;
          if (lua_getfield(L, pt, "resolutions") == LUA_TTABLE) {
            known = lua_getfield(L, -1, keys[k]) != LUA_TNIL;
            lua_pop(L, 1);
          }
          lua_pop(L, 1);
          if (!known) luaL_error(L, "opts.resolutions: unknown resolution '%s' (the pipeline must declare it)", keys[k]);
        }
        lua_getfield(L, r, keys[k]);
        lua_rawgeti(L, -1, 1);
        lua_rawgeti(L, -2, 2);
        fg_graph_add_resolution(g, keys[k], clamp_u32(num_int(L, -2, 0)), clamp_u32(num_int(L, -1, 0)));
        lua_pop(L, 3);
      }
    }
    lua_pop(L, 1);
  }
  lua_getfield(L, pt, "outputs");
  if (lua_istable(L, -1)) {
    lua_Integer len = (lua_Integer)lua_rawlen(L, -1);
    for (lua_Integer i = 1; i <= len; i++) {
      lua_rawgeti(L, -1, i);
      if (lua_type(L, -1) == LUA_TSTRING) fg_graph_add_output(g, plain_str(L, -1));
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 1);
  lua_getfield(L, pt, "external");
  int e = lua_gettop(L);
  if (lua_istable(L, e)) {
    int nk = sorted_keys(L, e, keys, MAXKEYS);
    for (int k = 0; k < nk; k++) {
      lua_getfield(L, e, keys[k]);
      int et = lua_gettop(L);
      fg_graph_res_desc d;
      memset(&d, 0, sizeof d);
      if (lua_istable(L, et)) {
        read_res_desc(L, et, &d, 1);
        const char *mux[FG_GRAPH_MAX_DIMS];
        uint32_t nm = read_mux(L, et, mux);
        for (uint32_t i = 0; i < nm; i++) {
          uint32_t di = fg_graph_dimension_index(g, mux[i]);
          if (di == FG_GRAPH_NONE) luaL_error(L, "external '%s': multiplex: unknown dimension '%s'", keys[k], mux[i]);
          d.mode |= 1u << di;
        }
      }
      d.kind = FG_RES_EXTERNAL;
      fg_graph_add_external(g, keys[k], &d);
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 1);
  lua_getfield(L, pt, "nodes");
  int nodes = lua_gettop(L);
  lua_Integer len = lua_istable(L, nodes) ? (lua_Integer)lua_rawlen(L, nodes) : 0;
  for (lua_Integer i = 1; i <= len; i++) {
    lua_rawgeti(L, nodes, i);
    int nt = lua_gettop(L);
    if (lua_istable(L, nt)) {
      const char *mux[FG_GRAPH_MAX_DIMS];
      fg_graph_node_desc nd;
      fg_lua_node_desc_of(L, nt, &nd, mux, i);
      uint32_t ni = fg_graph_add_node(g, &nd);
      if (ni == FG_GRAPH_NONE) luaL_error(L, "framegraph: out of memory declaring node '%s'", nd.name);
      fg_lua_declare_node_body(L, g, ni, nt, nd.name);
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}
