/* fg_vk_window's refusals, without an X server: a device opened without
 * `present`, DISPLAY unset, an unreachable display. Each message says what is
 * missing and how to go on (--screenshot). The live window is tested under
 * Xvfb by spec/view_spec.lua. Ends with zero validation messages. */
#include "fg_vk_window.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
#define CHECK(c, ...) do { if (!(c)) { failures++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); } } while (0)

static void expect_refusal(fg_vk_device *dev, const char *display, const char *want1, const char *want2) {
  char err[1024] = "";
  fg_vk_window_desc d = {.width = 64, .height = 48, .display = display};
  fg_vk_window *w = fg_vk_window_create(dev, &d, err, sizeof err);
  CHECK(w == NULL, "window created (display %s)", display ? display : "(DISPLAY)");
  fg_vk_window_destroy(w);
  CHECK(strstr(err, want1) != NULL, "message lacks '%s': %s", want1, err);
  CHECK(!want2 || strstr(err, want2) != NULL, "message lacks '%s': %s", want2, err);
}

int main(void) {
  char err[1024];
  fg_vk_desc plain = {.validation = 1, .prefer_software = 1};
  fg_vk_device *dev = fg_vk_create(&plain, err, sizeof err);
  if (!dev) { fprintf(stderr, "no device: %s\n", err); return 1; }
  CHECK(!dev->has_present, "present extensions enabled without desc.present");
  expect_refusal(dev, ":0", "fg.vulkan{ present = true }", NULL);
  fg_vk_destroy(dev);

  fg_vk_desc pd = {.validation = 1, .prefer_software = 1, .present = 1};
  dev = fg_vk_create(&pd, err, sizeof err);
  if (!dev) {
    /* A loader without X11 WSI must say so and point to the headless path. */
    CHECK(strstr(err, "--screenshot") != NULL, "no present device, and the message does not suggest --screenshot: %s", err);
    printf("no presenting device here: %s\n", err);
    return failures ? 1 : 0;
  }
  CHECK(dev->has_present, "desc.present did not enable the extensions");
  unsetenv("DISPLAY");
  expect_refusal(dev, NULL, "DISPLAY is unset", "--screenshot");
  expect_refusal(dev, ":54321", "cannot connect to the X display ':54321'", "--screenshot");
  size_t n = 0;
  char **m = fg_vk_take_messages(dev, &n);
  for (size_t i = 0; i < n; i++) fprintf(stderr, "  message: %.300s\n", m[i]);
  CHECK(n == 0, "%zu validation messages", n);
  fg_vk_free_messages(m, n);
  fg_vk_destroy(dev);
  printf("%s\n", failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
