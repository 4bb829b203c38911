/* fg_lua_options: the options of fg.compile, fg.runtime, fg.pack and
 * fg.check_packing, with one validation function per option shared by all of
 * them (csrc/lua/options.c). The Lua schema asks the same functions through
 * core.check_option, so an option means the same everywhere. */
#ifndef FG_LUA_OPTIONS_H
#define FG_LUA_OPTIONS_H
#include <lua.h>

/* Entry points, as bits: which of them accept an option. */
enum {
  FG_OPTS_COMPILE = 1,
  FG_OPTS_RUNTIME = 2,
  FG_OPTS_PACK = 4,
  FG_OPTS_CHECK_PACKING = 8
};

/* Checks the value at idx as option `name`. NULL when acceptable (or when the
 * option is validated where it is read: dimensions/resolutions by the schema,
 * upload_* by fg.runtime); otherwise pushes the message
 * "opts.<name>: ..." and returns it. */
const char *fg_lua_check_option(lua_State *L, const char *name, int idx);

/* Checks every field of the options table at idx (nil is fine) for entry
 * point `entry`: unknown fields and each value. Raises one error listing
 * every problem (no position prefix, like the schema's). */
void fg_lua_check_options(lua_State *L, int idx, unsigned entry);

/* Adds core.check_option(name, value) -> nil | message and core.options =
 * {compile = {names...}, runtime = ..., pack = ..., check_packing = ...} to
 * the table on top of the stack. */
void fg_lua_open_options(lua_State *L);

#endif
