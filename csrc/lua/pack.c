/* Placeholder until this binding lands: registers nothing. */
#include "fg_lua.h"
void fg_lua_open_pack(lua_State *L) { (void)L; }
