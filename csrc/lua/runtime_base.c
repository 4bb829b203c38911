/* runtime_base: the lifetime rule's checks and the argument helpers every
 * runtime file and window.c use (fg_lua_runtime.h). It calls nothing of the
 * other runtime files: they depend on it, never the reverse. */
#include "fg_lua_runtime.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------ the lifetime rule -- */

lrt *fg_lua_rt_check(lua_State *L, int idx) {
  lrt *o = fg_lua_checkudata(L, idx, FG_LUA_RUNTIME);
  if (!o->rt) luaL_argerror(L, idx, "runtime is closed (rt:close() was called); make a new one with fg.runtime");
  if (o->closing && o->busy[0])
    luaL_argerror(L, idx, lua_pushfstring(L, "runtime is closed (rt:close() was called during %s; it goes when "
                                          "that call returns)", o->busy));
  if (o->closing)
    luaL_argerror(L, idx, "runtime is closed (rt:close() was called in a node's run; it goes when this frame ends)");
  return o;
}

void fg_lua_rt_busy_begin(lrt *o, const char *what) {
  snprintf(o->busy, sizeof o->busy, "%s", what);
}

int fg_lua_rt_busy_end(lrt *o) {
  o->busy[0] = 0;
  if (!o->closing || o->L) return 0;
  fg_lua_rt_close_now(o);
  return 1;
}

lcmd *fg_lua_cmd_check(lua_State *L) {
  lcmd *c = fg_lua_checkudata(L, 1, FG_LUA_CMD);
  if (!c->valid || !c->o || !c->o->rt)
    luaL_error(L, "cmd is closed: it is valid only inside its node's run, which has returned (keep no reference "
               "to cmd)");
  return c;
}

void fg_lua_rt_idle(lua_State *L, lrt *o, const char *what) {
  if (o->L)
    luaL_error(L, "%s inside a node's run is refused (or an external's provide()): it would destroy objects the "
               "frame being recorded uses; call it between frames (after rt:frame returns)", what);
  if (o->busy[0])
    luaL_error(L, "%s during %s is refused (called by a metamethod of the pipeline's tables?): %s is changing the "
               "runtime's plan; call it after %s returns", what, o->busy, o->busy, o->busy);
}

void fg_lua_rt_planned(lua_State *L, lrt *o, const char *what) {
  if (!fg_rt_planned(o->rt))
    luaL_error(L, "%s: the runtime has no valid plan (a re-plan failed and so did restoring the previous one: %s); "
               "call rt:reload, rt:set_resolution or rt:set_dimension with values that fit, or close it", what,
               o->err);
}

const char *fg_lua_checkname(lua_State *L, int idx, const char *what) {
  size_t n;
  if (lua_type(L, idx) != LUA_TSTRING) luaL_typeerror(L, idx, "string");  /* a number is no name or path */
  const char *s = luaL_checklstring(L, idx, &n);
  if (strlen(s) != n)
    luaL_argerror(L, idx, lua_pushfstring(L, "%s holds a NUL byte at position %d ('%s\\0...'); names and paths "
                                          "cannot contain NUL", what, (int)strlen(s) + 1, s));
  return s;
}

lua_Integer fg_lua_checkrange(lua_State *L, int idx, lua_Integer lo, lua_Integer hi, const char *what) {
  /* a number only: "16" would pass luaL_checkinteger here and be refused by rt:read's index */
  if (lua_type(L, idx) != LUA_TNUMBER)
    luaL_argerror(L, idx, lua_pushfstring(L, "%s must be an integer in %I..%I, got a %s", what, lo, hi,
                                          luaL_typename(L, idx)));
  if (!lua_isinteger(L, idx)) {
    lua_Number v = lua_tonumber(L, idx);
    lua_Integer i;
    if (isnan(v) || isinf(v) || !lua_numbertointeger(v, &i) || (lua_Number)i != v)
      luaL_argerror(L, idx, lua_pushfstring(L, "%s must be an integer in %I..%I, got %f", what, lo, hi, v));
  }
  lua_Integer v = luaL_checkinteger(L, idx);  /* a number: checked above */
  if (v < lo || v > hi) luaL_argerror(L, idx, lua_pushfstring(L, "%s must be in %I..%I, got %I", what, lo, hi, v));
  return v;
}

static size_t edit_distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b), row[64];
  if (la >= 63 || lb >= 63) return (size_t)-1;
  for (size_t j = 0; j <= lb; j++) row[j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      diag = up;
      row[j] = best;
    }
  }
  return row[lb];
}

const char *fg_lua_nearest(const char *name, const char *const *cands, size_t n) {
  const char *best = NULL;
  size_t bd = (size_t)-1, limit = strlen(name) / 3 + 1;
  for (size_t i = 0; i < n; i++) {
    size_t d = edit_distance(name, cands[i]);
    if (d < bd) { bd = d; best = cands[i]; }
  }
  return bd <= limit ? best : NULL;
}

/* A close that waited for the end of a call or a frame (rt:close() from user
 * code inside one), done now; here, below the files that defer it. */
void fg_lua_rt_close_now(lrt *o) {
  o->closing = 0;
  o->busy[0] = 0;
  if (o->rt) { fg_rt_destroy(o->rt); o->rt = NULL; }
  if (o->dev) { fg_vk_release(o->dev); o->dev = NULL; }
  o->g = NULL;
}
