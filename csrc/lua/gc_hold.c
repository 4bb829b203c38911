/* fg_lua_hold_gc: the collector paused while a method reads an object that
 * a finalizer run by its own allocations could close (fg_lua.h). Its own
 * file, below every binding, so that they all may use it. */
#include "fg_lua.h"

static char gc_guard_key;
static int gc_guard_close(lua_State *L) {
  lua_gc(L, LUA_GCRESTART);
  return 0;
}

void fg_lua_hold_gc(lua_State *L) {
  /* == 1 only: inside a finalizer or lua_close the collector is held
   * already (lua_gc answers -1 or 0 there) and is left as it is */
  int running = lua_gc(L, LUA_GCISRUNNING) == 1;
  if (running) lua_rawgetp(L, LUA_REGISTRYINDEX, &gc_guard_key);  /* its __close restarts it */
  else lua_pushboolean(L, 0);  /* false: a to-be-closed slot with nothing to close */
  if (running) lua_gc(L, LUA_GCSTOP);
  lua_toclose(L, -1);
}

/* the guard whose __close restarts the collector, once per state */
void fg_lua_open_gc_hold(lua_State *L) {
  lua_newuserdatauv(L, 1, 0);
  lua_newtable(L);
  lua_pushcfunction(L, gc_guard_close);
  lua_setfield(L, -2, "__close");
  lua_setmetatable(L, -2);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &gc_guard_key);
}
