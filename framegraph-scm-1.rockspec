package = "framegraph"
version = "scm-1"
source = { url = "git+file://." }
description = {
  summary = "Frame-graph runtime for Vulkan: C core, Lua 5.4 face",
  license = "MIT",
}
dependencies = { "lua >= 5.4" }
build = {
  type = "cmake",
  variables = {
    CMAKE_BUILD_TYPE = "Release",
    LUA_INCDIR = "$(LUA_INCDIR)",
    LUADIR = "$(LUADIR)",
    LIBDIR = "$(LIBDIR)",
  },
  -- the `framegraph report|check` command; luarocks wraps it with the rock's paths
  install = { bin = { framegraph = "bin/framegraph" } },
  -- the host's C API (docs/embedding.md): CMake installs include/framegraph.h
  -- and lib/libframegraph.so under the rock's prefix; the header is also kept
  -- with the rock's files
  copy_directories = { "include" },
}
