/* The state's lua_Alloc as fg_alloc_hooks, for the core objects the bindings
 * make (graphs): their memory is the Lua state's, as a host that gives Lua
 * its own allocator expects. */
#include "fg_lua.h"
#include <string.h>

/* Each block carries its size in a header: lua_Alloc wants the old size. */
#define HEADER 16

static void *lua_hook(void *user, void *p, size_t n) {
  lua_State *L = user;  /* the main thread: it lives as long as the state */
  void *ud;
  lua_Alloc f = lua_getallocf(L, &ud);
  unsigned char *base = p ? (unsigned char *)p - HEADER : NULL;
  size_t old = 0;
  if (base) memcpy(&old, base, sizeof old);
  if (!n) {
    if (base) f(ud, base, old + HEADER, 0);
    return NULL;
  }
  if (n > (size_t)-1 - HEADER) return NULL;
  unsigned char *q = f(ud, base, base ? old + HEADER : 0, n + HEADER);
  if (!q) return NULL;
  memcpy(q, &n, sizeof n);
  return q + HEADER;
}

fg_alloc_hooks fg_lua_hooks(lua_State *L) {
  lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);
  lua_State *main = lua_tothread(L, -1);
  lua_pop(L, 1);
  return (fg_alloc_hooks){lua_hook, main};
}
