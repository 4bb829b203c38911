/* luaopen_framegraph_core: the one entry point of the C module.
 * Order matters: vk registers the "framegraph.device" metatable, which alloc
 * and runtime extend with their own device methods. */
#include "fg_lua.h"

int luaopen_framegraph_core(lua_State *L) {
  lua_newtable(L);
  fg_lua_open_pack(L);
  fg_lua_open_graph(L);
  fg_lua_open_vk(L);
  fg_lua_open_alloc(L);
  fg_lua_open_runtime(L);
  fg_lua_open_window(L);
  lua_pushliteral(L, "0.1.0");
  lua_setfield(L, -2, "version");
  return 1;
}
