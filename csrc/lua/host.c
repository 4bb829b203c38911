/* Lua binding of a host's C node callbacks (include/framegraph.h):
 * cmd:host(name [, args]) inside a node's run, and the run function a node
 * written `run = "host:name"` gets (fg_lua_host_runner). The callbacks are
 * registered on the device by the host (fg_device_register_node). */
#include "graph_diag.h"
#include "fg_lua_runtime.h"
#include "fg_vk_host.h"
#include <string.h>

#define MAX_ARGS 64

/* Calls callback `name` for the node recording with cmd; the args value at
 * args_idx (0: none): a list of numbers is passed as ctx->args, any value as
 * ctx->L / ctx->args_index. */
static int call_host(lua_State *L, lcmd *c, const char *name, int args_idx) {
  fg_vk_device *dev = c->o->dev;
  const fg_graph_instance *in = fg_graph_instance_get(c->o->g, c->slot);
  if (!fg_vk_host_known(dev, name)) {
    const char *names[32];
    uint32_t n = fg_vk_host_names(dev, names, 32);
    graph_suggest sg;
    char hint[160];
    graph_suggest_begin(&sg, name);
    for (uint32_t i = 0; i < n; i++) graph_suggest_feed(&sg, names[i]);
    luaL_Buffer B;
    luaL_buffinit(L, &B);
    for (uint32_t i = 0; i < n; i++) {
      if (i) luaL_addstring(&B, ", ");
      luaL_addstring(&B, names[i]);
    }
    luaL_pushresult(&B);
    return luaL_error(L, "node '%s': no host callback '%s' is registered on this device%s (registered: %s); the host "
                      "registers C callbacks with fg_device_register_node", in->name, name,
                      graph_suggest_text(&sg, hint, sizeof hint), n ? lua_tostring(L, -1) : "none");
  }
  double vals[MAX_ARGS];
  fg_vk_host_args a = {.values = vals, .L = L, .index = args_idx};
  if (args_idx && lua_istable(L, args_idx)) {
    fg_lua_plain(L, args_idx, "cmd:host: args");
    lua_Integer n = (lua_Integer)lua_rawlen(L, args_idx);
    if (n > MAX_ARGS)
      return luaL_error(L, "node '%s': cmd:host('%s', args): at most %d numbers in args, got %d", in->name, name,
                        MAX_ARGS, (int)n);
    for (lua_Integer i = 1; i <= n; i++) {
      lua_rawgeti(L, args_idx, i);
      int ok = lua_type(L, -1) == LUA_TNUMBER;
      vals[i - 1] = ok ? (double)lua_tonumber(L, -1) : 0;
      lua_pop(L, 1);
      if (!ok)
        return luaL_error(L, "node '%s': cmd:host('%s', args): args[%d] is a %s; the list part of args holds "
                          "numbers (other fields reach the callback through ctx->L)", in->name, name, (int)i,
                          luaL_typename(L, -1));
    }
    a.count = (uint32_t)n;
  }
  char err[256];
  fg_vk_host_call(c->o->rt, c->cmd, c->slot, name, &a, err, sizeof err);
  return 0;
}


/* cmd:host(name [, args]) */
static int cmd_host(lua_State *L) {
  lcmd *c = fg_lua_cmd_check(L);
  const char *name = fg_lua_checkname(L, 2, "host callback name");
  return call_host(L, c, name, lua_isnoneornil(L, 3) ? 0 : 3);
}

/* The run function of `run = "host:name"`: function(cmd, ctx) cmd:host(name) end. */
static int host_run(lua_State *L) {
  lcmd *c = fg_lua_cmd_check(L);
  return call_host(L, c, lua_tostring(L, lua_upvalueindex(1)), 0);
}

int fg_lua_host_runner(lua_State *L, int idx) {
  if (lua_type(L, idx) != LUA_TSTRING) return 0;
  const char *s = lua_tostring(L, idx);
  if (strncmp(s, "host:", 5) != 0 || !s[5]) return 0;
  lua_pushstring(L, s + 5);
  lua_pushcclosure(L, host_run, 1);
  return 1;
}

void fg_lua_push_host_buffer(lua_State *L, VkBuffer buffer, uint64_t size) {
  fg_lua_host_buffer *b = lua_newuserdatauv(L, sizeof *b, 0);
  b->buffer = buffer;
  b->size = size;
  luaL_setmetatable(L, FG_LUA_HOST_BUFFER);
}

fg_lua_host_buffer *fg_lua_test_host_buffer(lua_State *L, int idx) {
  return luaL_testudata(L, idx, FG_LUA_HOST_BUFFER);
}

static int hb_tostring(lua_State *L) {
  fg_lua_host_buffer *b = fg_lua_checkudata(L, 1, FG_LUA_HOST_BUFFER);
  lua_pushfstring(L, "framegraph.host_buffer (%d bytes)", (int)b->size);
  return 1;
}

void fg_lua_open_host(lua_State *L) {
  luaL_newmetatable(L, FG_LUA_HOST_BUFFER);
  lua_pushcfunction(L, hb_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pop(L, 1);
  luaL_getmetatable(L, FG_LUA_CMD);
  lua_getfield(L, -1, "__index");
  lua_pushcfunction(L, cmd_host);
  lua_setfield(L, -2, "host");
  lua_pop(L, 2);
}
