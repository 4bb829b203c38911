/* Lua binding of the viewer's window ("framegraph.window", fg_vk_window.h).
 * Binding only: every Vulkan and X11 call is in csrc/vk/window.c.
 *
 *   win = core.window_open(dev, width, height, title) | nil, err
 *   win:poll() -> {{type = "key", key = "q"} | {type = "resize", width, height} | {type = "close"} | {type = "expose"}, ...}
 *   win:acquire() -> true | false, "out of date" | nil, err
 *   win:present([png_path]) -> true | false, "out of date" | nil, err   (png_path: capture the presented picture)
 *   win:recreate() -> true | nil, err      win:size() -> w, h      win:format() -> "bgra8_unorm"
 *   win:set_title(s)      win:request_size(w, h) (a "resize" event follows)      win:close()
 * A window returned by an external's provide() is rendered into by rt:frame. */
#include "fg_lua_runtime.h"
#include "fg_vk_window.h"
#include "fg_vk_runtime.h"
#include "fg_png.h"
#include "fg_util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct lwindow {
  fg_vk_window *w;
} lwindow;

struct fg_vk_window *fg_lua_testwindow(lua_State *L, int idx) {
  lwindow *o = luaL_testudata(L, idx, FG_LUA_WINDOW);
  return o ? o->w : NULL;
}

static fg_vk_window *check_win(lua_State *L) {
  lwindow *o = fg_lua_checkudata(L, 1, FG_LUA_WINDOW);
  if (!o->w) luaL_argerror(L, 1, "window is closed");
  return o->w;
}

static int l_window_open(lua_State *L) {
  fg_vk_device *dev = fg_lua_checkdevice(L, 1);
  lua_Integer w = fg_lua_optint(L, 2, 640), h = fg_lua_optint(L, 3, 360);
  luaL_argcheck(L, w > 0 && w <= 16384, 2, "width must be in 1..16384");
  luaL_argcheck(L, h > 0 && h <= 16384, 3, "height must be in 1..16384");
  fg_vk_window_desc d = {.width = (uint32_t)w, .height = (uint32_t)h,
                         .title = lua_isnoneornil(L, 4) ? "framegraph" : fg_lua_checkname(L, 4, "title")};
  lwindow *o = lua_newuserdatauv(L, sizeof *o, 0);
  o->w = NULL;
  luaL_setmetatable(L, FG_LUA_WINDOW);
  char err[1024];
  o->w = fg_vk_window_create(dev, &d, err, sizeof err);
  if (!o->w) {
    luaL_pushfail(L);
    lua_pushstring(L, err);
    return 2;
  }
  return 1;
}

static void window_free(void *p) { fg_vk_window_destroy(p); }

/* A window closed from a node's run is the frame's external target: its
 * swapchain goes after the frame's submit (fg_vk_defer). */
static int win_close(lua_State *L) {
  lwindow *o = fg_lua_checkudata(L, 1, FG_LUA_WINDOW);
  if (o->w) {
    fg_vk_window *w = o->w;
    o->w = NULL;
    fg_vk_defer(fg_vk_window_device(w), window_free, w);
  }
  return 0;
}

static const char *key_name(uint32_t k, char *buf, size_t len) {
  switch (k) {
    case 0xff1b: return "escape";
    case 0xff09: return "tab";
    case 0xff0d: return "return";
    case 0xff51: return "left";
    case 0xff52: return "up";
    case 0xff53: return "right";
    case 0xff54: return "down";
    case 0x20: return "space";
    default: break;
  }
  if (k > 0x20 && k < 0x7f) snprintf(buf, len, "%c", (char)k);
  else snprintf(buf, len, "0x%x", (unsigned)k);
  return buf;
}

static int win_poll(lua_State *L) {
  fg_vk_window *w = check_win(L);
  lua_newtable(L);
  fg_vk_window_event ev;
  lua_Integer n = 0;
  while (fg_vk_window_poll(w, &ev)) {
    lua_createtable(L, 0, 3);
    char buf[16];
    switch (ev.type) {
      case FG_WIN_EV_KEY:
        lua_pushliteral(L, "key"); lua_setfield(L, -2, "type");
        lua_pushstring(L, key_name(ev.key, buf, sizeof buf)); lua_setfield(L, -2, "key");
        break;
      case FG_WIN_EV_RESIZE:
        lua_pushliteral(L, "resize"); lua_setfield(L, -2, "type");
        lua_pushinteger(L, ev.width); lua_setfield(L, -2, "width");
        lua_pushinteger(L, ev.height); lua_setfield(L, -2, "height");
        break;
      case FG_WIN_EV_CLOSE:
        lua_pushliteral(L, "close"); lua_setfield(L, -2, "type");
        break;
      default:
        lua_pushliteral(L, "expose"); lua_setfield(L, -2, "type");
        break;
    }
    lua_rawseti(L, -2, ++n);
    if (ev.type == FG_WIN_EV_CLOSE) break;  /* a broken connection keeps saying so */
  }
  return 1;
}

static int win_acquire(lua_State *L) {
  fg_vk_window *w = check_win(L);
  char err[512];
  int rc = fg_vk_window_acquire(w, err, sizeof err);
  if (rc < 0) { luaL_pushfail(L); lua_pushstring(L, err); return 2; }
  lua_pushboolean(L, rc == 0);
  if (rc == 0) return 1;
  lua_pushliteral(L, "out of date");
  return 2;
}

static int win_present(lua_State *L) {
  fg_vk_window *w = check_win(L);
  const char *path = luaL_optstring(L, 2, NULL);
  char err[512];
  unsigned char *rgba = NULL;
  int rc = fg_vk_window_present(w, path ? &rgba : NULL, err, sizeof err);
  if (rc < 0) { luaL_pushfail(L); lua_pushstring(L, err); return 2; }
  if (rgba) {
    uint32_t W, H;
    fg_vk_window_extent(w, &W, &H);
    int ok = fg_png_write_rgba8(path, W, H, rgba, err, sizeof err);
    fg_vk_free(fg_vk_window_device(w), rgba);
    if (!ok) { luaL_pushfail(L); lua_pushstring(L, err); return 2; }
  }
  lua_pushboolean(L, rc == 0);
  if (rc == 0) return 1;
  lua_pushliteral(L, "out of date");
  return 2;
}

static int win_recreate(lua_State *L) {
  fg_vk_window *w = check_win(L);
  char err[512];
  if (fg_vk_window_recreate(w, err, sizeof err)) { luaL_pushfail(L); lua_pushstring(L, err); return 2; }
  lua_pushboolean(L, 1);
  return 1;
}

static int win_size(lua_State *L) {
  fg_vk_window *w = check_win(L);
  uint32_t W, H;
  fg_vk_window_extent(w, &W, &H);
  lua_pushinteger(L, W);
  lua_pushinteger(L, H);
  return 2;
}

static int win_format(lua_State *L) {
  fg_vk_window *w = check_win(L);
  lua_pushstring(L, fg_format_get(fg_rt_format_back(fg_vk_window_format(w)))->name);
  return 1;
}

static int win_set_title(lua_State *L) {
  fg_vk_window *w = check_win(L);
  fg_vk_window_set_title(w, fg_lua_checkname(L, 2, "title"));
  return 0;
}

static int win_request_size(lua_State *L) {
  fg_vk_window *w = check_win(L);
  lua_Integer W = fg_lua_checkint(L, 2), H = fg_lua_checkint(L, 3);
  luaL_argcheck(L, W > 0 && W <= 16384, 2, "width must be in 1..16384");
  luaL_argcheck(L, H > 0 && H <= 16384, 3, "height must be in 1..16384");
  fg_vk_window_request_size(w, (uint32_t)W, (uint32_t)H);
  return 0;
}

static int win_tostring(lua_State *L) {
  lwindow *o = fg_lua_checkudata(L, 1, FG_LUA_WINDOW);
  if (!o->w) { lua_pushliteral(L, "framegraph.window (closed)"); return 1; }
  uint32_t W, H;
  fg_vk_window_extent(o->w, &W, &H);
  lua_pushfstring(L, "framegraph.window (%dx%d)", (int)W, (int)H);
  return 1;
}

static const luaL_Reg win_methods[] = {
  {"poll", win_poll}, {"acquire", win_acquire}, {"present", win_present}, {"recreate", win_recreate},
  {"size", win_size}, {"format", win_format}, {"set_title", win_set_title}, {"request_size", win_request_size},
  {"close", win_close},
  {NULL, NULL},
};

static const luaL_Reg win_meta[] = {
  {"__gc", win_close}, {"__close", win_close}, {"__tostring", win_tostring}, {NULL, NULL},
};

/* core.clock() -> monotonic seconds; core.sleep(seconds): the viewer paces
 * its file polling and headless frames with them (plain Lua has neither). */
static int l_clock(lua_State *L) {
  lua_pushnumber(L, (double)fg_now_ns() * 1e-9);
  return 1;
}

static int l_sleep(lua_State *L) {
  double s = luaL_checknumber(L, 1);
  luaL_argcheck(L, s == s && s <= 86400, 1, "seconds must be a number up to 86400 (not NaN)");
  if (s > 0) {
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
  }
  return 0;
}

void fg_lua_open_window(lua_State *L) {
  fg_lua_newclass(L, FG_LUA_WINDOW, win_meta, win_methods);
  lua_pushcfunction(L, l_window_open);
  lua_setfield(L, -2, "window_open");
  lua_pushcfunction(L, l_clock);
  lua_setfield(L, -2, "clock");
  lua_pushcfunction(L, l_sleep);
  lua_setfield(L, -2, "sleep");
}
