/* Registration of each binding file into the framegraph.core table.
 * Each fg_lua_open_* receives the module table at the top of the stack and
 * adds its functions/metatables to it; it must leave the stack balanced. */
#ifndef FG_LUA_H
#define FG_LUA_H
#include <lua.h>
#include <lauxlib.h>

void fg_lua_open_pack(lua_State *L);   /* pack.c:  pack, check_packing, load */
void fg_lua_open_graph(lua_State *L);  /* graph.c: graph compiler */
void fg_lua_open_alloc(lua_State *L);  /* alloc.c: sub-allocators, upload ring */
void fg_lua_open_vk(lua_State *L);     /* vk.c:    device, shaders */
void fg_lua_open_runtime(lua_State *L);/* runtime.c: runtime, frames, command surface */

#endif
