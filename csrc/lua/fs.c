/* File-system queries Lua lacks, for the pipeline watcher (lua/framegraph/watch.lua).
 *   core.mtime(path) -> mtime_ns, size, kind ("file", "directory", "fifo", "special") | nil, message
 * Nanosecond st_mtim: two saves within one second differ (the watcher also
 * compares size and content, since the kernel's clock is coarser than 1 ns). */
#define _POSIX_C_SOURCE 200809L
#include "fg_lua.h"
#include "fg_lua_runtime.h"
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

static int l_mtime(lua_State *L) {
  const char *path = fg_lua_checkname(L, 1, "path");  /* stat() would stop at a NUL and watch another file */
  struct stat st;
  if (stat(path, &st) != 0) {
    luaL_pushfail(L);
    lua_pushfstring(L, "%s: %s", path, strerror(errno));
    return 2;
  }
  lua_pushinteger(L, (lua_Integer)st.st_mtim.tv_sec * 1000000000 + (lua_Integer)st.st_mtim.tv_nsec);
  lua_pushinteger(L, (lua_Integer)st.st_size);
  /* the kind: reading a FIFO blocks inside C, where no limit reaches (framegraph check) */
  lua_pushstring(L, S_ISREG(st.st_mode) ? "file" : S_ISDIR(st.st_mode) ? "directory" : S_ISFIFO(st.st_mode) ? "fifo"
                                                                                                         : "special");
  return 3;
}

void fg_lua_open_fs(lua_State *L) {
  lua_pushcfunction(L, l_mtime);
  lua_setfield(L, -2, "mtime");
}
