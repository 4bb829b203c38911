/* Declaring a pipeline table to the C compiler (csrc/lua/graph_declare.c). */
#ifndef FG_LUA_GRAPH_DECLARE_H
#define FG_LUA_GRAPH_DECLARE_H
#include "fg_graph.h"
#include <lua.h>

/* Declares dimensions, resolutions, outputs, externals and every node of the
 * pipeline at pt, with compile options at ot (0 = none). Raises on misuse. */
void fg_lua_declare_pipeline(lua_State *L, fg_graph *g, int pt, int ot);
/* Declares one node's requests (the node table at nt, named nn). */
void fg_lua_declare_node_body(lua_State *L, fg_graph *g, uint32_t node, int nt, const char *nn);
/* The node description of the node table at nt (mux: room for its dimensions). */
void fg_lua_node_desc_of(lua_State *L, int nt, fg_graph_node_desc *d, const char **mux, lua_Integer user);
/* t[k] as a string, NULL when absent. */
const char *fg_lua_field_str(lua_State *L, int t, const char *k);
int fg_lua_abs_index(lua_State *L, int i);
/* t[k] as an integer, def when absent. */
lua_Integer fg_lua_field_int(lua_State *L, int t, const char *k, lua_Integer def);
#endif
