/* One validation function per option, shared by fg.compile, fg.runtime,
 * fg.pack and fg.check_packing (see fg_lua_options.h). Before, each entry
 * point had its own rule: fg.compile ignored time_budget_ms = "fast" or -5
 * while fg.pack rejected "fast" and let -5 through to the packer. */
#include "fg_lua.h"
#include "fg_lua_options.h"
#include "fg_graph.h"
#include "fg_pack.h"
#include "fg_vocab.h"
#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

/* Pushes the string at idx quoted, a NUL byte shown as \0 (C would stop at
 * it and the message would name another string). */
static const char *push_quoted(lua_State *L, int idx) {
  size_t n;
  const char *s = lua_tolstring(L, idx, &n);
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  luaL_addchar(&b, '\'');
  for (size_t i = 0; i < n; i++) {
    if (s[i]) luaL_addchar(&b, s[i]);
    else luaL_addstring(&b, "\\0");
  }
  luaL_addchar(&b, '\'');
  luaL_pushresult(&b);
  return lua_tostring(L, -1);
}

static int has_nul(lua_State *L, int idx) {
  size_t n;
  const char *s = lua_tolstring(L, idx, &n);
  return strlen(s) != n;
}

/* Pushes how a bad value reads in a message: 'text' for strings, the number,
 * else the type name. */
static const char *push_got(lua_State *L, int idx) {
  switch (lua_type(L, idx)) {
  case LUA_TSTRING: return push_quoted(L, idx);
  case LUA_TNUMBER: return luaL_tolstring(L, idx, NULL);
  default: return lua_pushstring(L, luaL_typename(L, idx));
  }
}

static const char *fail(lua_State *L, int idx, const char *key, const char *expected) {
  push_got(L, idx);
  const char *m = lua_pushfstring(L, "opts.%s: expected %s, got %s", key, expected, lua_tostring(L, -1));
  lua_remove(L, -2);
  return m;
}

/* period, granularity, node_budget, work_budget, seed: an integer >= 0 (3.0 counts). */
static const char *opt_count(lua_State *L, int idx, const char *key) {
  int isint = 0;
  lua_Integer v = fg_lua_tointx(L, idx, &isint);
  return isint && v >= 0 ? NULL : fail(L, idx, key, "an integer >= 0");
}

/* time_budget_ms: a number >= 0 (0 = the packer's default budget). */
static const char *opt_time(lua_State *L, int idx, const char *key) {
  if (lua_type(L, idx) == LUA_TNUMBER && lua_tonumber(L, idx) >= 0) return NULL; /* NaN fails too */
  return fail(L, idx, key, "a number of milliseconds >= 0");
}

static const char *push_solver_list(lua_State *L) {
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  for (int k = 0; fg_pack_solvers[k]; k++) {
    if (k) luaL_addstring(&b, ", ");
    luaL_addstring(&b, fg_pack_solvers[k]);
  }
  luaL_pushresult(&b);
  return lua_tostring(L, -1);
}

/* solver: one of fg_pack_solvers. */
static const char *opt_solver(lua_State *L, int idx, const char *key) {
  if (lua_type(L, idx) == LUA_TSTRING) {
    const char *s = lua_tostring(L, idx);
    for (int k = 0; fg_pack_solvers[k]; k++)
      if (!strcmp(s, fg_pack_solvers[k]) && strlen(s) == lua_rawlen(L, idx)) return NULL;
  }
  const char *list = push_solver_list(L);
  const char *m;
  if (lua_type(L, idx) == LUA_TSTRING) {
    const char *q = push_quoted(L, idx);
    m = lua_pushfstring(L, "opts.%s: unknown solver %s (expected one of %s)%s", key, q, list,
                        has_nul(L, idx) ? "; it contains a NUL byte (\\0): remove it" : "");
    lua_remove(L, -2);
  } else {
    m = lua_pushfstring(L, "opts.%s: expected a solver name (one of %s), got %s", key, list, luaL_typename(L, idx));
  }
  lua_remove(L, -2);
  return m;
}

/* profile: a name of FG_PROFILES, or a table whose alignment, granularity and
 * buffer_alignment (each optional) are powers of two up to 1 GiB (larger
 * would only be a typo, and keeps the planner's sums far from wrapping), and
 * memory_type_bits (optional) a non-zero 32-bit mask. Any other key is a
 * misspelling and refused. */
static const char *opt_profile(lua_State *L, int idx, const char *key) {
  if (lua_type(L, idx) == LUA_TSTRING) {
    static const char *const names[] = {FG_PROFILES(FG_VOCAB_NAME5)};
    const char *s = lua_tostring(L, idx);
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
      if (!strcmp(s, names[i]) && strlen(s) == lua_rawlen(L, idx)) return NULL;
    const char *q = push_quoted(L, idx);
    const char *m = lua_pushfstring(L, "opts.%s: unknown profile %s (expected %s or a table {alignment=, granularity=})%s",
                                    key, q, FG_PROFILE_NAMES_JOINED,
                                    has_nul(L, idx) ? "; it contains a NUL byte (\\0): remove it" : "");
    lua_remove(L, -2);
    return m;
  }
  if (lua_type(L, idx) != LUA_TTABLE)
    return lua_pushfstring(L, "opts.%s: expected a profile name or a table, got %s", key, luaL_typename(L, idx));
  if (lua_getmetatable(L, idx)) {
    lua_pop(L, 1);
    return lua_pushfstring(L, "opts.%s is a table with a metatable; give a plain table (its metamethods would run "
                              "inside the call)", key);
  }
  static const char *const fields[] = {"alignment", "granularity", "buffer_alignment", "memory_type_bits"};
  int n = 0;  /* one line per bad field, concatenated at the end */
  for (int i = 0; i < 4; i++) {
    lua_getfield(L, idx, fields[i]);
    lua_Integer v = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : 0;
    int bad = i < 3 ? (v <= 0 || (v & (v - 1)) || v > ((lua_Integer)1 << 30)) : (v <= 0 || v > (lua_Integer)UINT32_MAX);
    if (!lua_isnil(L, -1) && bad) {
      luaL_tolstring(L, -1, NULL);
      lua_pushfstring(L, i < 3 ? "%sopts.%s.%s must be a power of two up to 1073741824, got %s"
                               : "%sopts.%s.%s must be a non-zero 32-bit mask of memory types, got %s",
                      n ? "\n" : "", key, fields[i], lua_tostring(L, -1));
      lua_replace(L, -3);
      lua_pop(L, 1);
      n++;
    } else {
      lua_pop(L, 1);
    }
  }
  /* a misspelt key ({alignmnet = 256}) would silently leave the default */
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    luaL_checkstack(L, 4, "opts.profile: too many problems");
    int known = 0;
    if (lua_type(L, -1) == LUA_TSTRING && !has_nul(L, -1))
      for (int i = 0; i < 4; i++) known |= !strcmp(lua_tostring(L, -1), fields[i]);
    if (!known) {
      const char *k = lua_type(L, -1) == LUA_TSTRING ? push_quoted(L, -1) : luaL_tolstring(L, -1, NULL);
      lua_pushfstring(L, "%sopts.%s: unknown field %s (expected one of alignment, granularity, buffer_alignment, "
                         "memory_type_bits)", n ? "\n" : "", key, k);
      lua_remove(L, -2);  /* the key's text */
      lua_insert(L, -2);  /* the message below the key: lua_next goes on with the key */
      n++;
    }
  }
  if (!n) return NULL;
  lua_concat(L, n);
  return lua_tostring(L, -1);
}

/* schedule: "declared" or "memory" (fg_schedule_from_name). */
static const char *opt_schedule(lua_State *L, int idx, const char *key) {
  if (lua_type(L, idx) == LUA_TSTRING && fg_schedule_from_name(lua_tostring(L, idx)) >= 0 && !has_nul(L, idx))
    return NULL;
  return fail(L, idx, key, "'declared' or 'memory'");
}

typedef const char *(*opt_fn)(lua_State *L, int idx, const char *key);

/* Every option of every entry point, in the order messages list them. fn
 * NULL: any value, or validated where it is read (dimensions/resolutions by
 * the schema with the pipeline's own rule, upload_* by fg.runtime). */
#define C FG_OPTS_COMPILE
#define R FG_OPTS_RUNTIME
#define P FG_OPTS_PACK
#define K FG_OPTS_CHECK_PACKING
static const struct option {
  const char *name;
  opt_fn fn;
  unsigned entries;
} options[] = {
  {"profile", opt_profile, C | R},
  {"device", NULL, C | R},
  {"dimensions", NULL, C | R},
  {"resolutions", NULL, C | R},
  {"period", opt_count, P | K},
  {"solver", opt_solver, C | R | P | K},
  {"granularity", opt_count, P | K},
  {"time_budget_ms", opt_time, C | R | P | K},
  {"schedule", opt_schedule, C | R},
  {"node_budget", opt_count, P | K},
  {"work_budget", opt_count, P | K},
  {"seed", opt_count, R | P | K},
  {"poison", NULL, R},
  {"upload_bytes", NULL, R},
  {"upload_segment", NULL, R},
  {"memory_budget", opt_count, R},
  {"capacity", opt_count, C | R | P},
  {"timestamps", NULL, R},
};
#undef C
#undef R
#undef P
#undef K
#define NOPTIONS (sizeof options / sizeof *options)

static const struct option *find(const char *name) {
  for (size_t i = 0; i < NOPTIONS; i++)
    if (!strcmp(options[i].name, name)) return &options[i];
  return NULL;
}

const char *fg_lua_check_option(lua_State *L, const char *name, int idx) {
  const struct option *o = find(name);
  return o && o->fn ? o->fn(L, lua_absindex(L, idx), name) : NULL;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

void fg_lua_check_options(lua_State *L, int idx, unsigned entry) {
  if (lua_isnoneornil(L, idx)) return;
  idx = lua_absindex(L, idx);
  if (lua_type(L, idx) != LUA_TTABLE) luaL_error(L, "opts: expected a table, got %s", luaL_typename(L, idx));
  fg_lua_plain(L, idx, "opts");  /* the reads below keep pointers to its strings (opts.solver) */
  int top = lua_gettop(L);
  int problems = 0;
  for (size_t i = 0; i < NOPTIONS; i++) {
    if (!(options[i].entries & entry) || !options[i].fn) continue;
    lua_getfield(L, idx, options[i].name);
    if (!lua_isnil(L, -1) && options[i].fn(L, lua_gettop(L), options[i].name)) {
      lua_remove(L, -2);  /* keep the message, drop the value */
      problems++;
    } else {
      lua_pop(L, 1);
    }
  }
  /* unknown fields, sorted so the message does not depend on hash order */
  const char *unknown[32];
  int nu = 0, nonstring = 0;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    if (lua_type(L, -1) != LUA_TSTRING) { nonstring = 1; continue; }
    const struct option *o = find(lua_tostring(L, -1));
    if ((!o || !(o->entries & entry)) && nu < 32) unknown[nu++] = lua_tostring(L, -1);
  }
  if (nu || nonstring) {
    qsort(unknown, (size_t)nu, sizeof *unknown, cmp_str);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (size_t i = 0, k = 0; i < NOPTIONS; i++)
      if (options[i].entries & entry) {
        if (k++) luaL_addstring(&b, ", ");
        luaL_addstring(&b, options[i].name);
      }
    luaL_pushresult(&b);
    const char *expected = lua_tostring(L, -1);
    for (int i = 0; i < nu; i++) {
      lua_pushfstring(L, "opts: unknown field '%s' (expected one of %s)", unknown[i], expected);
      lua_insert(L, -2);
      problems++;
    }
    if (nonstring) {
      lua_pushliteral(L, "opts: unexpected key that is not a string (options are named)");
      lua_insert(L, -2);
      problems++;
    }
    lua_pop(L, 1);
  }
  if (!problems) return;
  /* every message is on the stack above top: one error, one per line */
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  for (int i = top + 1; i <= top + problems; i++) {
    if (i > top + 1) luaL_addchar(&b, '\n');
    lua_pushvalue(L, i);
    luaL_addvalue(&b);
  }
  luaL_pushresult(&b);
  lua_error(L);
}

/* core.check_option(name, value) -> nil | message */
static int l_check_option(lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  lua_settop(L, 2);
  if (lua_isnil(L, 2)) return 0;
  return fg_lua_check_option(L, name, 2) ? 1 : 0;
}

void fg_lua_open_options(lua_State *L) {
  lua_pushcfunction(L, l_check_option);
  lua_setfield(L, -2, "check_option");
  static const struct { const char *name; unsigned bit; } entries[] = {
    {"compile", FG_OPTS_COMPILE}, {"runtime", FG_OPTS_RUNTIME}, {"pack", FG_OPTS_PACK},
    {"check_packing", FG_OPTS_CHECK_PACKING}};
  lua_createtable(L, 0, 4);
  for (size_t e = 0; e < sizeof entries / sizeof *entries; e++) {
    lua_newtable(L);
    int k = 1;
    for (size_t i = 0; i < NOPTIONS; i++)
      if (options[i].entries & entries[e].bit) {
        lua_pushstring(L, options[i].name);
        lua_rawseti(L, -2, k++);
      }
    lua_setfield(L, -2, entries[e].name);
  }
  lua_setfield(L, -2, "options");
}
