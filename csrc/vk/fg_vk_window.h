/* fg_vk_window: an X11 window (xcb) with a Vulkan surface and swapchain, for
 * the viewer (lua/framegraph/view.lua). The device must be created with
 * fg_vk_desc.present (VK_KHR_surface, VK_KHR_xcb_surface, VK_KHR_swapchain).
 *
 * One frame: fg_vk_window_acquire (an image and a binary semaphore signalled
 * when it is ready), fg_vk_window_target (what the runtime needs to render
 * into it as an external resource: fg_rt_set_external + fg_rt_set_present),
 * the frame's submit, then fg_vk_window_present. An acquired image that was
 * never rendered (the frame failed) stays acquired and is reused by the next
 * acquire, so the screen keeps the last presented picture.
 *
 * Semaphores: `acquired` rotates over 3 (frames in flight + 1: the runtime
 * keeps at most 2 frames in flight, so the one reused was waited on by a
 * frame that has completed); `presentable` is one per swapchain image (reused
 * only once that image is acquired again, so its present has consumed it).
 * Not thread-safe. */
#ifndef FG_VK_WINDOW_H
#define FG_VK_WINDOW_H
#include "fg_vk.h"

typedef struct fg_vk_window fg_vk_window;

typedef struct fg_vk_window_desc {
  uint32_t width, height;   /* 0 = 640 x 360 */
  const char *title;        /* NULL = "framegraph" */
  const char *display;      /* NULL = $DISPLAY */
} fg_vk_window_desc;

/* NULL + message: no display, no presentable queue, no surface support... */
fg_vk_window *fg_vk_window_create(fg_vk_device *dev, const fg_vk_window_desc *desc, char *err, size_t errlen);
void fg_vk_window_destroy(fg_vk_window *w);   /* waits for the device; NULL is fine */
fg_vk_device *fg_vk_window_device(const fg_vk_window *w);  /* the device it was opened on */

enum { FG_WIN_EV_NONE, FG_WIN_EV_KEY, FG_WIN_EV_RESIZE, FG_WIN_EV_CLOSE, FG_WIN_EV_EXPOSE };
typedef struct fg_vk_window_event {
  int type;
  uint32_t key;             /* FG_WIN_EV_KEY: X keysym (ASCII for printable keys, 0xff1b Escape, 0xff09 Tab) */
  uint32_t width, height;   /* FG_WIN_EV_RESIZE: the new window size */
} fg_vk_window_event;
/* Next pending event without blocking: 1 with *ev, 0 when none. */
int fg_vk_window_poll(fg_vk_window *w, fg_vk_window_event *ev);
void fg_vk_window_set_title(fg_vk_window *w, const char *title);
/* Asks the X server for a new window size; a FG_WIN_EV_RESIZE follows. */
void fg_vk_window_request_size(fg_vk_window *w, uint32_t width, uint32_t height);

/* (Re)creates the swapchain for the window's current size (after a resize
 * event, or when acquire/present said it is out of date). 0, or -1 + message. */
int fg_vk_window_recreate(fg_vk_window *w, char *err, size_t errlen);
/* Swapchain extent and format (B8G8R8A8_UNORM when offered). */
void fg_vk_window_extent(const fg_vk_window *w, uint32_t *width, uint32_t *height);
VkFormat fg_vk_window_format(const fg_vk_window *w);

/* 0: an image is acquired; 1: the swapchain is out of date or the window is
 * minimised (recreate and retry, or skip the frame); -1 + message on failure. */
int fg_vk_window_acquire(fg_vk_window *w, char *err, size_t errlen);

typedef struct fg_vk_window_target {
  VkImage image;
  VkImageView view;
  VkImageLayout *layout;    /* tracked across frames (fg_rt_set_external) */
  VkSemaphore acquired, presentable;
  VkFormat format;
  uint32_t width, height;
} fg_vk_window_target;
/* The acquired image: 0, or -1 when none is acquired. */
int fg_vk_window_target_get(fg_vk_window *w, fg_vk_window_target *t);
/* Marks the acquired image as rendered: the frame's submit waited on
 * `acquired` and will signal `presentable` (call after a successful frame). */
void fg_vk_window_rendered(fg_vk_window *w);

/* Presents the rendered image. With `rgba` (not NULL), first copies it back
 * (the picture being presented) into *rgba, width*height*4 bytes (the device's memory: fg_vk_free) in
 * RGBA order. 0; 1 out of date (presented or not, recreate); -1 + message. */
int fg_vk_window_present(fg_vk_window *w, unsigned char **rgba, char *err, size_t errlen);

#endif
