/* luaopen_framegraph_core: the one entry point of the C module.
 * Order matters: vk registers the "framegraph.device" metatable, which alloc
 * and runtime extend with their own device methods. */
#include "fg_lua.h"
#include "fg_lua_options.h"
#include "fg_pack.h"
#include "fg_vocab.h"
#include "fg_graph.h"  /* FG_MAX_* */

static void push_names(lua_State *L, const char *const *names, int n) {
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    lua_pushstring(L, names[i]);
    lua_rawseti(L, -2, i + 1);
  }
}

/* core.vocab: every list of fg_vocab.h (and the solvers of fg_pack.h), in
 * enum order; lua/framegraph/schema.lua checks pipelines against these. */
static void open_vocab(lua_State *L) {
  static const char *const usages[] = {FG_USAGES(FG_VOCAB_NAME8)};
  static const char *const stages[] = {FG_STAGES(FG_VOCAB_NAME2)};
  static const char *const formats[] = {FG_FORMATS(FG_VOCAB_NAME6)};
  static const char *const profiles[] = {FG_PROFILES(FG_VOCAB_NAME5)};
#define N(a) ((int)(sizeof a / sizeof *a))
  lua_createtable(L, 0, 6);
  push_names(L, usages, N(usages));
  lua_setfield(L, -2, "usages");
  push_names(L, stages, N(stages));
  lua_setfield(L, -2, "stages");
  push_names(L, formats, N(formats));
  lua_setfield(L, -2, "formats");
  push_names(L, profiles, N(profiles));
  lua_setfield(L, -2, "profiles");
#undef N
  int ns = 0;
  while (fg_pack_solvers[ns]) ns++;
  push_names(L, fg_pack_solvers, ns);
  lua_setfield(L, -2, "solvers");
  lua_pushinteger(L, FG_DEFAULT_ALIGNMENT);
  lua_setfield(L, -2, "default_alignment");
  /* the limits (include/framegraph.h repeats them for hosts) */
  lua_pushinteger(L, FG_MAX_EXTENT);
  lua_setfield(L, -2, "max_extent");
  lua_pushinteger(L, FG_MAX_DIMENSION_COUNT);
  lua_setfield(L, -2, "max_dimension_count");
  lua_setfield(L, -2, "vocab");
}

int luaopen_framegraph_core(lua_State *L) {
  fg_lua_open_gc_hold(L);
  lua_newtable(L);
  fg_lua_open_pack(L);
  fg_lua_open_graph(L);
  fg_lua_open_vk(L);
  fg_lua_open_alloc(L);
  fg_lua_open_runtime(L);
  fg_lua_open_cmd(L);
  fg_lua_open_host(L);
  fg_lua_open_content(L);
  fg_lua_open_options(L);
  open_vocab(L);
  fg_lua_open_fs(L);
  fg_lua_open_limits(L);
  fg_lua_open_window(L);
  lua_pushliteral(L, "0.1.0");
  lua_setfield(L, -2, "version");
  return 1;
}
