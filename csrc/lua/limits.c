/* Limits the sandbox (lua/framegraph/sandbox.lua) puts around a pipeline file
 * that may not be the user's own, for what its instruction count cannot see:
 * work done inside one C call (a string pattern that backtracks for hours,
 * os.date with a huge format) and memory (s = s .. s forty times).
 *   core.sandbox_limits(cpu_seconds, memory_bytes, message): from now, the
 *     Lua state may grow by memory_bytes at most (past it an allocation fails:
 *     Lua raises "not enough memory"), and past cpu_seconds of this thread's
 *     CPU time the process writes `message` to stderr and exits with status 1
 *     (the only way out of a C loop that never returns to Lua). The thread's
 *     clock, not the process's: `report --render` renders on lavapipe, whose
 *     worker threads would spend a process-wide budget.
 *   core.sandbox_release() -> hit: both limits off; hit is true when the
 *     memory limit refused an allocation since sandbox_limits.
 * One set of limits at a time (the command line checks one file). */
#define _POSIX_C_SOURCE 200809L
#include "fg_lua.h"
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static struct {
  int armed;
  lua_Alloc f;      /* the state's allocator before */
  void *ud;
  size_t used, limit;
  int hit;
  struct sigaction old_prof;
  timer_t timer;    /* CLOCK_THREAD_CPUTIME_ID; else the process's ITIMER_PROF */
  int has_timer;
  char msg[1024];
  size_t msg_len;
} lim;

/* Counts the state's bytes; past the limit an allocation fails. After the
 * first refusal a little headroom lets the error message be built. */
static void *limited_alloc(void *ud, void *p, size_t osize, size_t nsize) {
  (void)ud;
  size_t old = p ? osize : 0;
  if (nsize > old && lim.used + (nsize - old) > lim.limit) {
    if (!lim.hit) {
      lim.hit = 1;
      lim.limit += 16u << 20;
    }
    return NULL;
  }
  void *q = lim.f(lim.ud, p, osize, nsize);
  if (nsize == 0) lim.used -= old < lim.used ? old : lim.used;
  else if (q) lim.used = lim.used - (old < lim.used ? old : lim.used) + nsize;
  return q;
}

static void on_cpu_limit(int sig) {
  (void)sig;
  ssize_t w = write(2, lim.msg, lim.msg_len);
  (void)w;
  _exit(1);
}

static void stop_timer(void) {
  if (lim.has_timer) {
    timer_delete(lim.timer);
    lim.has_timer = 0;
  } else {
    struct itimerval off;
    memset(&off, 0, sizeof off);
    setitimer(ITIMER_PROF, &off, NULL);
  }
  sigaction(SIGPROF, &lim.old_prof, NULL);
}

static int l_sandbox_release(lua_State *L) {
  int hit = lim.hit;
  if (lim.armed) {
    void *ud;
    if (lua_getallocf(L, &ud) == limited_alloc) lua_setallocf(L, lim.f, lim.ud);
    stop_timer();
    lim.armed = 0;
  }
  lim.hit = 0;
  lua_pushboolean(L, hit);
  return 1;
}

static int l_sandbox_limits(lua_State *L) {
  lua_Number cpu = luaL_checknumber(L, 1);
  lua_Integer mem = luaL_checkinteger(L, 2);
  size_t n;
  const char *msg = luaL_checklstring(L, 3, &n);
  luaL_argcheck(L, cpu > 0 && cpu < 1e6, 1, "cpu seconds must be in (0, 1e6)");
  luaL_argcheck(L, mem > 0, 2, "memory bytes must be positive");
  lua_settop(L, 0);
  l_sandbox_release(L);
  lua_settop(L, 0);
  if (n >= sizeof lim.msg - 1) n = sizeof lim.msg - 2;
  memcpy(lim.msg, msg, n);
  lim.msg[n++] = '\n';
  lim.msg_len = n;
  lim.hit = 0;
  lim.used = (size_t)lua_gc(L, LUA_GCCOUNT) * 1024 + (size_t)lua_gc(L, LUA_GCCOUNTB);
  lim.limit = (uint64_t)mem > (size_t)-1 - lim.used ? (size_t)-1 : lim.used + (size_t)mem;
  lim.f = lua_getallocf(L, &lim.ud);
  lua_setallocf(L, limited_alloc, NULL);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_cpu_limit;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGPROF, &sa, &lim.old_prof);
  struct sigevent sev;
  memset(&sev, 0, sizeof sev);
  sev.sigev_notify = SIGEV_SIGNAL;
  sev.sigev_signo = SIGPROF;
  lim.has_timer = timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &lim.timer) == 0;
  time_t sec = (time_t)cpu;
  long nsec = (long)((cpu - (lua_Number)sec) * 1e9);
  if (!sec && !nsec) nsec = 1;
  if (lim.has_timer) {
    struct itimerspec its;
    memset(&its, 0, sizeof its);
    its.it_value.tv_sec = sec;
    its.it_value.tv_nsec = nsec;
    timer_settime(lim.timer, 0, &its, NULL);
  } else {
    struct itimerval t;
    memset(&t, 0, sizeof t);
    t.it_value.tv_sec = sec;
    t.it_value.tv_usec = nsec / 1000 ? nsec / 1000 : 1;
    setitimer(ITIMER_PROF, &t, NULL);
  }
  lim.armed = 1;
  return 0;
}

void fg_lua_open_limits(lua_State *L) {
  lua_pushcfunction(L, l_sandbox_limits);
  lua_setfield(L, -2, "sandbox_limits");
  lua_pushcfunction(L, l_sandbox_release);
  lua_setfield(L, -2, "sandbox_release");
}
