/* Lua binding of fg_pack: core.pack(items, opts), core.check_packing(items,
 * offsets, opts), core.pack_load(items, period). Misuse (bad fields, unknown
 * solver) raises; an invalid packing is a normal false, message result. */
#include <stdlib.h>
#include <string.h>
#include "fg_lua.h"
#include "fg_lua_options.h"
#include "fg_pack.h"

/* Integer field of item `item` (the table at idx) in [min, max]; def when
 * absent (def < 0: required). Checked before any narrowing cast. */
static uint64_t int_field_in(lua_State *L, int arg, int idx, size_t item, const char *key, lua_Integer def,
                             lua_Integer min, lua_Integer max) {
  lua_getfield(L, idx, key);
  int isnum = 0;  /* numbers only: lua_tointegerx would take "16" */
  lua_Integer v = fg_lua_tointx(L, -1, &isnum);
  int absent = lua_isnil(L, -1);
  lua_pop(L, 1);
  if (absent && def >= 0) return (uint64_t)def;
  if (!isnum || v < min || v > max) {
    if (max == LUA_MAXINTEGER)
      luaL_argerror(L, arg, lua_pushfstring(L, "item %d: field '%s' must be an integer >= %d", (int)item, key, (int)min));
    luaL_argerror(L, arg, lua_pushfstring(L, "item %d: field '%s' must be an integer from %d to %I", (int)item, key,
                                          (int)min, max));
  }
  return (uint64_t)v;
}
static uint64_t int_field(lua_State *L, int arg, int idx, size_t item, const char *key, lua_Integer def,
                          lua_Integer min) {
  return int_field_in(L, arg, idx, item, key, def, min, LUA_MAXINTEGER);
}

/* The length of the list at arg, without __len (which could claim any
 * count) and small enough that the arrays sized by it cannot wrap. */
static size_t list_len(lua_State *L, int arg, const char *what) {
  size_t n = (size_t)lua_rawlen(L, arg);
  if (n > ((size_t)1 << 28)) luaL_argerror(L, arg, lua_pushfstring(L, "too many %s (at most 268435456)", what));
  return n;
}

/* A result byte count as a Lua integer: past 2^63 - 1 it would read as a
 * negative number, so such a packing is refused instead. */
static lua_Integer bytes_int(lua_State *L, uint64_t v, const char *fn) {
  if (v > (uint64_t)LUA_MAXINTEGER)
    luaL_error(L, "%s: the result reaches past 2^63 - 1 bytes, more than a Lua integer holds: the items' sizes are "
                  "too large (no memory is this big); use smaller sizes", fn);
  return (lua_Integer)v;
}

/* An option already checked by fg_lua_check_options: absent = 0. */
static uint64_t opt_u64(lua_State *L, int idx, const char *key) {
  lua_getfield(L, idx, key);
  uint64_t v = (uint64_t)lua_tointeger(L, -1);
  lua_pop(L, 1);
  return v;
}

/* An item's fields are these six; {sise = 64} would otherwise be refused
 * only for the missing size, and {aling = 256} packed with align 1. */
static void item_keys(lua_State *L, int arg, int t, size_t item) {
  static const char *const known[] = {"start", "stop", "size", "align", "kind", "group", NULL};
  if (fg_lua_unknown_key(L, t, known))
    luaL_argerror(L, arg, lua_pushfstring(L, "item %d: unknown field '%s' (the fields are start, stop, size, align, "
                                             "kind, group)", (int)item,
                                          lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : luaL_typename(L, -1)));
}

/* Reads items at arg into a userdata-backed array (collected by the GC if we raise). */
static fg_pack_item *read_items(lua_State *L, int arg, size_t *n) {
  luaL_checktype(L, arg, LUA_TTABLE);
  fg_lua_plain(L, arg, "items");  /* the count is the raw length: a proxy list would pack as empty */
  size_t cnt = list_len(L, arg, "items");
  fg_pack_item *it = lua_newuserdatauv(L, sizeof(fg_pack_item) * (cnt ? cnt : 1), 0);
  for (size_t i = 0; i < cnt; i++) {
    if (lua_geti(L, arg, (lua_Integer)i + 1) != LUA_TTABLE)
      luaL_argerror(L, arg, lua_pushfstring(L, "item %d must be a table {start=, stop=, size=, align=}", (int)i + 1));
    int t = lua_gettop(L);
    if (lua_getmetatable(L, t))
      luaL_argerror(L, arg, lua_pushfstring(L, "item %d is a table with a metatable; give a plain table (its "
                                               "metamethods would run inside the call)", (int)i + 1));
    it[i].start = int_field(L, arg, t, i + 1, "start", -1, 0);
    it[i].stop = int_field(L, arg, t, i + 1, "stop", -1, 0);
    it[i].size = int_field(L, arg, t, i + 1, "size", -1, 1);
    it[i].align = int_field(L, arg, t, i + 1, "align", 1, 1);
    it[i].kind = (uint32_t)int_field_in(L, arg, t, i + 1, "kind", 0, 0, 1);  /* 0 linear, 1 optimal */
    it[i].group = (uint32_t)int_field_in(L, arg, t, i + 1, "group", 0, 0, (lua_Integer)UINT32_MAX);
    item_keys(L, arg, t, i + 1);
    lua_pop(L, 1);
  }
  *n = cnt;
  return it;
}

/* Options, checked by the functions every entry point shares (options.c);
 * the solver string stays valid: the opts table holds it. */
static void read_opts(lua_State *L, int arg, fg_pack_desc *d, unsigned entry) {
  memset(d, 0, sizeof *d);
  fg_lua_check_options(L, arg, entry);
  if (lua_isnoneornil(L, arg)) return;
  d->period = opt_u64(L, arg, "period");
  d->granularity = opt_u64(L, arg, "granularity");
  d->node_budget = opt_u64(L, arg, "node_budget");
  d->work_budget = opt_u64(L, arg, "work_budget");
  d->seed = opt_u64(L, arg, "seed");
  d->capacity = opt_u64(L, arg, "capacity");
  lua_getfield(L, arg, "time_budget_ms");
  d->time_budget_ms = lua_tonumber(L, -1);  /* 0 when absent */
  lua_getfield(L, arg, "solver");
  d->solver = lua_tostring(L, -1);          /* NULL when absent */
  lua_pop(L, 2);
}

static int l_pack(lua_State *L) {
  lua_settop(L, 2); /* scratch userdata goes above the arguments */
  size_t n;
  fg_pack_item *it = read_items(L, 1, &n);
  fg_pack_desc d;
  read_opts(L, 2, &d, FG_OPTS_PACK);
  uint64_t *off = lua_newuserdatauv(L, sizeof(uint64_t) * (n ? n : 1), 0);
  fg_pack_result r;
  char err[256];
  fg_alloc_hooks lh = fg_lua_hooks(L);  /* the packer's memory: the state's */
  d.hooks = &lh;
  if (fg_pack(it, n, &d, off, &r, err, sizeof err)) return luaL_error(L, "fg.pack: %s", err);
  bytes_int(L, r.makespan, "fg.pack");  /* every offset is below it */
  lua_createtable(L, 0, 8);
  lua_createtable(L, n < INT32_MAX ? (int)n : 0, 0);
  for (size_t i = 0; i < n; i++) {
    lua_pushinteger(L, (lua_Integer)off[i]);
    lua_seti(L, -2, (lua_Integer)i + 1);
  }
  lua_setfield(L, -2, "offsets");
  lua_pushinteger(L, bytes_int(L, r.makespan, "fg.pack"));
  lua_setfield(L, -2, "makespan");
  lua_pushinteger(L, bytes_int(L, r.load, "fg.pack"));
  lua_setfield(L, -2, "load");
  lua_pushboolean(L, r.optimal);
  lua_setfield(L, -2, "optimal");
  lua_pushinteger(L, bytes_int(L, r.bound, "fg.pack"));
  lua_setfield(L, -2, "bound");
  lua_pushboolean(L, r.bound_partial);
  lua_setfield(L, -2, "bound_partial");
  if (d.capacity) { /* a decision's answer; without a capacity the result is as it always was */
    lua_pushboolean(L, r.fits);
    lua_setfield(L, -2, "fits");
    lua_pushboolean(L, r.proved);
    lua_setfield(L, -2, "proved");
  }
  return 1;
}

static int l_check_packing(lua_State *L) {
  lua_settop(L, 3);
  size_t n;
  fg_pack_item *it = read_items(L, 1, &n);
  luaL_checktype(L, 2, LUA_TTABLE);
  fg_pack_desc d;
  read_opts(L, 3, &d, FG_OPTS_CHECK_PACKING);
  fg_lua_plain(L, 2, "offsets");
  size_t noff = list_len(L, 2, "offsets");
  if (noff != n)
    return luaL_argerror(L, 2, lua_pushfstring(L, "expected %I offsets, got %I", (lua_Integer)n, (lua_Integer)noff));
  uint64_t *off = lua_newuserdatauv(L, sizeof(uint64_t) * (n ? n : 1), 0);
  for (size_t i = 0; i < n; i++) {
    lua_geti(L, 2, (lua_Integer)i + 1);
    int isnum = 0;
    lua_Integer v = fg_lua_tointx(L, -1, &isnum);
    if (!isnum || v < 0) return luaL_argerror(L, 2, lua_pushfstring(L, "offset %d must be an integer >= 0", (int)i + 1));
    off[i] = (uint64_t)v;
    lua_pop(L, 1);
  }
  char msg[256];
  if (fg_check_packing(it, n, off, &d, msg, sizeof msg)) {
    lua_pushboolean(L, 1);
    return 1;
  }
  lua_pushboolean(L, 0);
  lua_pushstring(L, msg);
  return 2;
}

static int l_pack_load(lua_State *L) {
  lua_settop(L, 2);
  size_t n;
  fg_pack_item *it = read_items(L, 1, &n);
  lua_Integer period = fg_lua_optint(L, 2, 0);
  luaL_argcheck(L, period >= 0, 2, "period must be >= 0");
  uint64_t load = fg_pack_load(it, n, (uint64_t)period);  /* saturates at UINT64_MAX */
  if (load > (uint64_t)LUA_MAXINTEGER)
    return luaL_argerror(L, 1, "the live sizes add up past 2^63 - 1 bytes, more than a Lua integer holds: "
                               "the items' sizes are too large; use smaller sizes");
  lua_pushinteger(L, (lua_Integer)load);
  return 1;
}

void fg_lua_open_pack(lua_State *L) {
  static const luaL_Reg fns[] = {
      {"pack", l_pack}, {"check_packing", l_check_packing}, {"pack_load", l_pack_load}, {NULL, NULL}};
  luaL_setfuncs(L, fns, 0);
  lua_createtable(L, 8, 0);
  for (int k = 0; fg_pack_solvers[k]; k++) {
    lua_pushstring(L, fg_pack_solvers[k]);
    lua_seti(L, -2, k + 1);
  }
  lua_setfield(L, -2, "pack_solvers");
}
