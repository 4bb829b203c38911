#define _POSIX_C_SOURCE 200809L
#include "fg_util.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void *fg_realloc(const fg_alloc_hooks *h, void *ptr, size_t size) {
  if (h && h->realloc_fn) return h->realloc_fn(h->user, ptr, size);
  if (size == 0) { free(ptr); return NULL; }
  return realloc(ptr, size);
}

void fg_errf(char *buf, size_t len, const char *fmt, ...) {
  if (!buf || len == 0) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, len, fmt, ap);
  va_end(ap);
}

uint64_t fg_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int fg_grow(const fg_alloc_hooks *h, void **a, size_t *cap, size_t need, size_t first, size_t elem) {
  if (need <= *cap) return 0;
  size_t nc = *cap ? *cap : first;
  while (nc < need) nc *= 2;
  if (elem && nc > SIZE_MAX / elem) return -1;
  void *p = fg_realloc(h, *a, nc * elem);
  if (!p) return -1;
  *a = p;
  *cap = nc;
  return 0;
}
