/* Placeholder until this binding lands: registers nothing. */
#include "fg_lua.h"
void fg_lua_open_runtime(lua_State *L) { (void)L; }
