/* X11 window through xcb, VkSurfaceKHR, swapchain, acquire/present and
 * read-back of the presented image. See fg_vk_window.h. */
#include "fg_vk_window.h"
#include "fg_util.h"
#include <xcb/xcb.h>
#include <vulkan/vulkan_xcb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ACQUIRE_SEMS 3
enum { ST_NONE, ST_ACQUIRED, ST_RENDERED };

typedef struct sc_image {
  VkImage image;
  VkImageView view;
  VkImageLayout layout;
  VkSemaphore presentable, captured;
} sc_image;

struct fg_vk_window {
  fg_vk_device *dev;
  xcb_connection_t *conn;
  xcb_window_t win;
  xcb_atom_t wm_protocols, wm_delete;
  xcb_keycode_t min_key;
  uint8_t keysyms_per_code;
  xcb_keysym_t *keysyms;
  uint32_t nkeysyms;
  uint32_t win_w, win_h;           /* last known window size */
  VkSurfaceKHR surface;
  VkSwapchainKHR swapchain;
  VkFormat format;
  VkExtent2D extent;
  uint32_t nimages;
  sc_image *images;
  VkSemaphore acquire_sem[ACQUIRE_SEMS];
  uint64_t acquires;
  int state;
  uint32_t index;                  /* acquired image */
  VkSemaphore cur_acquire;
  VkCommandPool pool;
  VkCommandBuffer cmd;
  VkFence fence;
  PFN_vkDestroySurfaceKHR destroy_surface;
  PFN_vkGetPhysicalDeviceSurfaceCapabilitiesKHR get_caps;
  PFN_vkGetPhysicalDeviceSurfaceFormatsKHR get_formats;
};

static const char *HEADLESS_HINT = "render headless instead: framegraph view FILE --frames N --screenshot out.png";

static xcb_atom_t intern(xcb_connection_t *c, const char *name) {
  xcb_intern_atom_reply_t *r = xcb_intern_atom_reply(c, xcb_intern_atom(c, 0, (uint16_t)strlen(name), name), NULL);
  xcb_atom_t a = r ? r->atom : XCB_ATOM_NONE;
  free(r);
  return a;
}

void fg_vk_window_set_title(fg_vk_window *w, const char *title) {
  if (!w || !w->conn) return;
  xcb_change_property(w->conn, XCB_PROP_MODE_REPLACE, w->win, XCB_ATOM_WM_NAME, XCB_ATOM_STRING, 8,
                      (uint32_t)strlen(title), title);
  xcb_flush(w->conn);
}

void fg_vk_window_request_size(fg_vk_window *w, uint32_t width, uint32_t height) {
  uint32_t v[2] = {width, height};
  xcb_configure_window(w->conn, w->win, XCB_CONFIG_WINDOW_WIDTH | XCB_CONFIG_WINDOW_HEIGHT, v);
  xcb_flush(w->conn);
}

/* An image acquired but never rendered still has its acquire semaphore
 * signalled (or pending), one rendered but never presented its present
 * semaphore: wait on it with an empty batch so it can be reused or destroyed. */
static void drain_acquired(fg_vk_window *w) {
  if (w->state == ST_NONE) return;
  VkSemaphore sem = w->state == ST_ACQUIRED ? w->cur_acquire : w->images[w->index].presentable;
  VkSemaphoreSubmitInfo wsi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO, .semaphore = sem,
                               .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT};
  VkSubmitInfo2 si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2, .waitSemaphoreInfoCount = 1, .pWaitSemaphoreInfos = &wsi};
  vkQueueSubmit2(w->dev->queue, 1, &si, VK_NULL_HANDLE);
  vkQueueWaitIdle(w->dev->queue);
  w->state = ST_NONE;
}

static void free_images(fg_vk_window *w) {
  VkDevice d = w->dev->device;
  const VkAllocationCallbacks *ac = w->dev->vkalloc;
  for (uint32_t i = 0; i < w->nimages; i++) {
    if (w->images[i].view) vkDestroyImageView(d, w->images[i].view, ac);
    if (w->images[i].presentable) vkDestroySemaphore(d, w->images[i].presentable, ac);
    if (w->images[i].captured) vkDestroySemaphore(d, w->images[i].captured, ac);
  }
  free(w->images);
  w->images = NULL;
  w->nimages = 0;
}

static VkSemaphore new_semaphore(fg_vk_device *dev) {
  VkSemaphoreCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  VkSemaphore s = VK_NULL_HANDLE;
  vkCreateSemaphore(dev->device, &si, dev->vkalloc, &s);
  return s;
}

int fg_vk_window_recreate(fg_vk_window *w, char *err, size_t errlen) {
  VkDevice d = w->dev->device;
  const VkAllocationCallbacks *ac = w->dev->vkalloc;
  drain_acquired(w);
  vkDeviceWaitIdle(d);
  w->state = ST_NONE;
  VkSurfaceCapabilitiesKHR caps;
  VkResult r = w->get_caps(w->dev->phys, w->surface, &caps);
  if (r != VK_SUCCESS) { fg_errf(err, errlen, "vkGetPhysicalDeviceSurfaceCapabilitiesKHR failed (VkResult %d)", (int)r); return -1; }
  VkExtent2D ext = caps.currentExtent;
  if (ext.width == UINT32_MAX) {
    ext.width = w->win_w < caps.minImageExtent.width ? caps.minImageExtent.width
              : w->win_w > caps.maxImageExtent.width ? caps.maxImageExtent.width : w->win_w;
    ext.height = w->win_h < caps.minImageExtent.height ? caps.minImageExtent.height
               : w->win_h > caps.maxImageExtent.height ? caps.maxImageExtent.height : w->win_h;
  }
  VkSwapchainKHR old = w->swapchain;
  free_images(w);
  w->swapchain = VK_NULL_HANDLE;
  w->extent = ext;
  if (!ext.width || !ext.height) {  /* minimised: no swapchain until it has a size again */
    if (old) vkDestroySwapchainKHR(d, old, ac);
    return 0;
  }
  VkImageUsageFlags want = VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                           VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
  if (!(caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_DST_BIT)) {
    if (old) vkDestroySwapchainKHR(d, old, ac);
    fg_errf(err, errlen, "the surface's swapchain images cannot be a transfer destination (the viewer blits the "
            "output into them); %s", HEADLESS_HINT);
    return -1;
  }
  uint32_t count = caps.minImageCount + 1;
  if (caps.maxImageCount && count > caps.maxImageCount) count = caps.maxImageCount;
  VkSwapchainCreateInfoKHR ci = {
    .sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR, .surface = w->surface, .minImageCount = count,
    .imageFormat = w->format, .imageColorSpace = VK_COLOR_SPACE_SRGB_NONLINEAR_KHR, .imageExtent = ext,
    .imageArrayLayers = 1, .imageUsage = want & caps.supportedUsageFlags,
    .imageSharingMode = VK_SHARING_MODE_EXCLUSIVE, .preTransform = caps.currentTransform,
    .compositeAlpha = (caps.supportedCompositeAlpha & VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR)
                        ? VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR : (VkCompositeAlphaFlagBitsKHR)(caps.supportedCompositeAlpha & -caps.supportedCompositeAlpha),
    .presentMode = VK_PRESENT_MODE_FIFO_KHR,  /* always supported; paces the viewer to the display */
    .clipped = VK_TRUE, .oldSwapchain = old,
  };
  r = vkCreateSwapchainKHR(d, &ci, ac, &w->swapchain);
  if (old) vkDestroySwapchainKHR(d, old, ac);
  if (r != VK_SUCCESS) {
    w->swapchain = VK_NULL_HANDLE;
    fg_errf(err, errlen, "vkCreateSwapchainKHR (%ux%u) failed (VkResult %d)", ext.width, ext.height, (int)r);
    return -1;
  }
  uint32_t n = 0;
  vkGetSwapchainImagesKHR(d, w->swapchain, &n, NULL);
  VkImage *imgs = calloc(n ? n : 1, sizeof *imgs);
  w->images = calloc(n ? n : 1, sizeof *w->images);
  if (!imgs || !w->images) { free(imgs); fg_errf(err, errlen, "out of memory"); return -1; }
  vkGetSwapchainImagesKHR(d, w->swapchain, &n, imgs);
  w->nimages = n;
  for (uint32_t i = 0; i < n; i++) {
    sc_image *s = &w->images[i];
    s->image = imgs[i];
    s->layout = VK_IMAGE_LAYOUT_UNDEFINED;
    VkImageViewCreateInfo vi = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = imgs[i], .viewType = VK_IMAGE_VIEW_TYPE_2D,
      .format = w->format, .subresourceRange = {.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT, .levelCount = 1, .layerCount = 1},
    };
    r = vkCreateImageView(d, &vi, ac, &s->view);
    s->presentable = new_semaphore(w->dev);
    s->captured = new_semaphore(w->dev);
    if (r != VK_SUCCESS || !s->presentable || !s->captured) {
      free(imgs);
      fg_errf(err, errlen, "creating views/semaphores for the swapchain failed (VkResult %d)", (int)r);
      return -1;
    }
  }
  free(imgs);
  return 0;
}

static int load_keymap(fg_vk_window *w) {
  const xcb_setup_t *setup = xcb_get_setup(w->conn);
  w->min_key = setup->min_keycode;
  uint8_t count = (uint8_t)(setup->max_keycode - setup->min_keycode + 1);
  xcb_get_keyboard_mapping_reply_t *r =
    xcb_get_keyboard_mapping_reply(w->conn, xcb_get_keyboard_mapping(w->conn, setup->min_keycode, count), NULL);
  if (!r) return 0;
  int n = xcb_get_keyboard_mapping_keysyms_length(r);
  w->keysyms = malloc((size_t)(n ? n : 1) * sizeof *w->keysyms);
  if (w->keysyms) {
    memcpy(w->keysyms, xcb_get_keyboard_mapping_keysyms(r), (size_t)n * sizeof *w->keysyms);
    w->nkeysyms = (uint32_t)n;
    w->keysyms_per_code = r->keysyms_per_keycode;
  }
  free(r);
  return 1;
}

fg_vk_window *fg_vk_window_create(fg_vk_device *dev, const fg_vk_window_desc *desc, char *err, size_t errlen) {
  fg_vk_window_desc d0 = {0};
  if (!desc) desc = &d0;
  if (!dev->has_present) {
    fg_errf(err, errlen, "the device was opened without the surface and swapchain extensions: "
            "open it with fg.vulkan{ present = true }");
    return NULL;
  }
  const char *display = desc->display ? desc->display : getenv("DISPLAY");
  if (!display || !display[0]) {
    fg_errf(err, errlen, "no X display: DISPLAY is unset, so there is no X11 server to open a window on "
            "(start one, e.g. xvfb-run -a ...); or %s", HEADLESS_HINT);
    return NULL;
  }
  fg_vk_window *w = calloc(1, sizeof *w);
  if (!w) { fg_errf(err, errlen, "out of memory"); return NULL; }
  w->dev = fg_vk_retain(dev);
  int screen_no = 0;
  w->conn = xcb_connect(display, &screen_no);
  if (xcb_connection_has_error(w->conn)) {
    fg_errf(err, errlen, "cannot connect to the X display '%s' (is the X server running and DISPLAY right?); or %s",
            display, HEADLESS_HINT);
    fg_vk_window_destroy(w);
    return NULL;
  }
  xcb_screen_iterator_t it = xcb_setup_roots_iterator(xcb_get_setup(w->conn));
  for (int i = 0; i < screen_no && it.rem; i++) xcb_screen_next(&it);
  xcb_screen_t *screen = it.data;
  w->win_w = desc->width ? desc->width : 640;
  w->win_h = desc->height ? desc->height : 360;
  w->win = xcb_generate_id(w->conn);
  uint32_t values[2] = {screen->black_pixel, XCB_EVENT_MASK_KEY_PRESS | XCB_EVENT_MASK_STRUCTURE_NOTIFY |
                                             XCB_EVENT_MASK_EXPOSURE};
  xcb_create_window(w->conn, XCB_COPY_FROM_PARENT, w->win, screen->root, 0, 0, (uint16_t)w->win_w,
                    (uint16_t)w->win_h, 0, XCB_WINDOW_CLASS_INPUT_OUTPUT, screen->root_visual,
                    XCB_CW_BACK_PIXEL | XCB_CW_EVENT_MASK, values);
  w->wm_protocols = intern(w->conn, "WM_PROTOCOLS");
  w->wm_delete = intern(w->conn, "WM_DELETE_WINDOW");
  xcb_change_property(w->conn, XCB_PROP_MODE_REPLACE, w->win, w->wm_protocols, XCB_ATOM_ATOM, 32, 1, &w->wm_delete);
  load_keymap(w);
  fg_vk_window_set_title(w, desc->title ? desc->title : "framegraph");
  xcb_map_window(w->conn, w->win);
  xcb_flush(w->conn);

  /* Surface functions come from the instance: volk's tables may lack the
   * platform ones, depending on how volk.c was built. */
  VkInstance inst = dev->instance;
  PFN_vkCreateXcbSurfaceKHR create_surface = (PFN_vkCreateXcbSurfaceKHR)vkGetInstanceProcAddr(inst, "vkCreateXcbSurfaceKHR");
  PFN_vkGetPhysicalDeviceSurfaceSupportKHR get_support =
    (PFN_vkGetPhysicalDeviceSurfaceSupportKHR)vkGetInstanceProcAddr(inst, "vkGetPhysicalDeviceSurfaceSupportKHR");
  w->destroy_surface = (PFN_vkDestroySurfaceKHR)vkGetInstanceProcAddr(inst, "vkDestroySurfaceKHR");
  w->get_caps = (PFN_vkGetPhysicalDeviceSurfaceCapabilitiesKHR)vkGetInstanceProcAddr(inst, "vkGetPhysicalDeviceSurfaceCapabilitiesKHR");
  w->get_formats = (PFN_vkGetPhysicalDeviceSurfaceFormatsKHR)vkGetInstanceProcAddr(inst, "vkGetPhysicalDeviceSurfaceFormatsKHR");
  if (!create_surface || !get_support || !w->destroy_surface || !w->get_caps || !w->get_formats) {
    fg_errf(err, errlen, "the Vulkan instance has no VK_KHR_xcb_surface functions; %s", HEADLESS_HINT);
    fg_vk_window_destroy(w);
    return NULL;
  }
  VkXcbSurfaceCreateInfoKHR si = {.sType = VK_STRUCTURE_TYPE_XCB_SURFACE_CREATE_INFO_KHR, .connection = w->conn,
                                  .window = w->win};
  VkResult r = create_surface(inst, &si, NULL, &w->surface);
  if (r != VK_SUCCESS) {
    fg_errf(err, errlen, "vkCreateXcbSurfaceKHR failed (VkResult %d); %s", (int)r, HEADLESS_HINT);
    fg_vk_window_destroy(w);
    return NULL;
  }
  VkBool32 ok = VK_FALSE;
  get_support(dev->phys, dev->queue_family, w->surface, &ok);
  if (!ok) {
    fg_errf(err, errlen, "%s: queue family %u cannot present to this X11 window (no presentable queue); %s",
            dev->props.deviceName, dev->queue_family, HEADLESS_HINT);
    fg_vk_window_destroy(w);
    return NULL;
  }
  uint32_t nf = 0;
  w->get_formats(dev->phys, w->surface, &nf, NULL);
  VkSurfaceFormatKHR *fmts = calloc(nf ? nf : 1, sizeof *fmts);
  if (!fmts) { fg_errf(err, errlen, "out of memory"); fg_vk_window_destroy(w); return NULL; }
  w->get_formats(dev->phys, w->surface, &nf, fmts);
  /* UNORM first: the output's values are shown as they are (no sRGB encode). */
  static const VkFormat pref[] = {VK_FORMAT_B8G8R8A8_UNORM, VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_B8G8R8A8_SRGB,
                                  VK_FORMAT_R8G8B8A8_SRGB};
  for (size_t k = 0; k < sizeof pref / sizeof pref[0] && !w->format; k++)
    for (uint32_t i = 0; i < nf; i++)
      if (fmts[i].format == pref[k] && fmts[i].colorSpace == VK_COLOR_SPACE_SRGB_NONLINEAR_KHR) w->format = pref[k];
  free(fmts);
  if (!w->format) {
    fg_errf(err, errlen, "the X11 surface offers no 8-bit RGBA/BGRA format; %s", HEADLESS_HINT);
    fg_vk_window_destroy(w);
    return NULL;
  }
  for (int i = 0; i < ACQUIRE_SEMS; i++)
    if (!(w->acquire_sem[i] = new_semaphore(dev))) { fg_errf(err, errlen, "vkCreateSemaphore failed"); fg_vk_window_destroy(w); return NULL; }
  VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                 .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                 .queueFamilyIndex = dev->queue_family};
  r = vkCreateCommandPool(dev->device, &pci, dev->vkalloc, &w->pool);
  if (r == VK_SUCCESS) {
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = w->pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
    r = vkAllocateCommandBuffers(dev->device, &ai, &w->cmd);
  }
  if (r == VK_SUCCESS) {
    VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    r = vkCreateFence(dev->device, &fi, dev->vkalloc, &w->fence);
  }
  if (r != VK_SUCCESS) {
    fg_errf(err, errlen, "creating the window's command pool/fence failed (VkResult %d)", (int)r);
    fg_vk_window_destroy(w);
    return NULL;
  }
  if (fg_vk_window_recreate(w, err, errlen)) { fg_vk_window_destroy(w); return NULL; }
  return w;
}

void fg_vk_window_destroy(fg_vk_window *w) {
  if (!w) return;
  VkDevice d = w->dev->device;
  const VkAllocationCallbacks *ac = w->dev->vkalloc;
  if (w->surface) drain_acquired(w);
  vkDeviceWaitIdle(d);
  free_images(w);
  if (w->swapchain) vkDestroySwapchainKHR(d, w->swapchain, ac);
  for (int i = 0; i < ACQUIRE_SEMS; i++)
    if (w->acquire_sem[i]) vkDestroySemaphore(d, w->acquire_sem[i], ac);
  if (w->fence) vkDestroyFence(d, w->fence, ac);
  if (w->pool) vkDestroyCommandPool(d, w->pool, ac);
  if (w->surface) w->destroy_surface(w->dev->instance, w->surface, NULL);
  if (w->conn) {
    if (!xcb_connection_has_error(w->conn)) xcb_destroy_window(w->conn, w->win);
    xcb_disconnect(w->conn);
  }
  free(w->keysyms);
  fg_vk_release(w->dev);
  free(w);
}

int fg_vk_window_poll(fg_vk_window *w, fg_vk_window_event *ev) {
  memset(ev, 0, sizeof *ev);
  if (xcb_connection_has_error(w->conn)) { ev->type = FG_WIN_EV_CLOSE; return 1; }
  xcb_generic_event_t *e;
  while ((e = xcb_poll_for_event(w->conn))) {
    int type = e->response_type & 0x7f, got = 0;
    if (type == XCB_KEY_PRESS) {
      xcb_key_press_event_t *k = (xcb_key_press_event_t *)e;
      uint32_t i = (uint32_t)(k->detail - w->min_key) * w->keysyms_per_code;
      ev->type = FG_WIN_EV_KEY;
      ev->key = i < w->nkeysyms ? w->keysyms[i] : 0;
      got = 1;
    } else if (type == XCB_CONFIGURE_NOTIFY) {
      xcb_configure_notify_event_t *c = (xcb_configure_notify_event_t *)e;
      if (c->width != w->win_w || c->height != w->win_h) {
        w->win_w = c->width;
        w->win_h = c->height;
        ev->type = FG_WIN_EV_RESIZE;
        ev->width = c->width;
        ev->height = c->height;
        got = 1;
      }
    } else if (type == XCB_CLIENT_MESSAGE) {
      xcb_client_message_event_t *m = (xcb_client_message_event_t *)e;
      if (m->data.data32[0] == w->wm_delete) { ev->type = FG_WIN_EV_CLOSE; got = 1; }
    } else if (type == XCB_EXPOSE) {
      ev->type = FG_WIN_EV_EXPOSE;
      got = 1;
    }
    free(e);
    if (got) return 1;
  }
  return 0;
}

void fg_vk_window_extent(const fg_vk_window *w, uint32_t *width, uint32_t *height) {
  *width = w->extent.width;
  *height = w->extent.height;
}

VkFormat fg_vk_window_format(const fg_vk_window *w) { return w->format; }

int fg_vk_window_acquire(fg_vk_window *w, char *err, size_t errlen) {
  if (w->state == ST_ACQUIRED) return 0;   /* the last frame failed: render into the same image */
  if (w->state == ST_RENDERED) { fg_errf(err, errlen, "the previous frame was rendered but not presented"); return -1; }
  if (!w->swapchain) return 1;
  VkSemaphore sem = w->acquire_sem[w->acquires % ACQUIRE_SEMS];
  uint32_t idx = 0;
  VkResult r = vkAcquireNextImageKHR(w->dev->device, w->swapchain, UINT64_MAX, sem, VK_NULL_HANDLE, &idx);
  if (r == VK_ERROR_OUT_OF_DATE_KHR) return 1;
  if (r != VK_SUCCESS && r != VK_SUBOPTIMAL_KHR) {
    fg_errf(err, errlen, "vkAcquireNextImageKHR failed (VkResult %d)", (int)r);
    return -1;
  }
  w->acquires++;
  w->cur_acquire = sem;
  w->index = idx;
  w->state = ST_ACQUIRED;
  return 0;
}

int fg_vk_window_target_get(fg_vk_window *w, fg_vk_window_target *t) {
  memset(t, 0, sizeof *t);
  if (w->state != ST_ACQUIRED) return -1;
  sc_image *s = &w->images[w->index];
  t->image = s->image;
  t->view = s->view;
  t->layout = &s->layout;
  t->acquired = w->cur_acquire;
  t->presentable = s->presentable;
  t->format = w->format;
  t->width = w->extent.width;
  t->height = w->extent.height;
  return 0;
}

void fg_vk_window_rendered(fg_vk_window *w) {
  if (w->state == ST_ACQUIRED) w->state = ST_RENDERED;
}

/* Copies the rendered image (PRESENT_SRC_KHR) into a host buffer between the
 * frame's signal and the present's wait. */
static int capture(fg_vk_window *w, unsigned char **rgba, char *err, size_t errlen) {
  sc_image *s = &w->images[w->index];
  uint32_t W = w->extent.width, H = w->extent.height;
  fg_vk_host_buffer hb;
  if (!fg_vk_host_buffer_create(w->dev, (VkDeviceSize)W * H * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, 1, &hb, err, errlen))
    return -1;
  VkCommandBuffer cmd = w->cmd;
  vkResetCommandBuffer(cmd, 0);
  VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                 .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
  vkBeginCommandBuffer(cmd, &bi);
  VkImageMemoryBarrier2 ib = {
    .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2, .srcStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
    .dstStageMask = VK_PIPELINE_STAGE_2_COPY_BIT, .dstAccessMask = VK_ACCESS_2_TRANSFER_READ_BIT,
    .oldLayout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR, .newLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
    .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
    .image = s->image, .subresourceRange = {.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT, .levelCount = 1, .layerCount = 1},
  };
  VkDependencyInfo di = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .imageMemoryBarrierCount = 1,
                         .pImageMemoryBarriers = &ib};
  vkCmdPipelineBarrier2(cmd, &di);
  VkBufferImageCopy bc = {.imageSubresource = {.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT, .layerCount = 1},
                          .imageExtent = {W, H, 1}};
  vkCmdCopyImageToBuffer(cmd, s->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, hb.buffer, 1, &bc);
  ib.srcStageMask = VK_PIPELINE_STAGE_2_COPY_BIT;
  ib.srcAccessMask = 0;
  ib.dstStageMask = VK_PIPELINE_STAGE_2_NONE;
  ib.dstAccessMask = 0;
  ib.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
  ib.newLayout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
  VkBufferMemoryBarrier2 hbar = {
    .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2, .srcStageMask = VK_PIPELINE_STAGE_2_COPY_BIT,
    .srcAccessMask = VK_ACCESS_2_TRANSFER_WRITE_BIT, .dstStageMask = VK_PIPELINE_STAGE_2_HOST_BIT,
    .dstAccessMask = VK_ACCESS_2_HOST_READ_BIT, .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
    .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .buffer = hb.buffer, .size = VK_WHOLE_SIZE,
  };
  di.bufferMemoryBarrierCount = 1;
  di.pBufferMemoryBarriers = &hbar;
  vkCmdPipelineBarrier2(cmd, &di);
  VkResult r = vkEndCommandBuffer(cmd);
  VkCommandBufferSubmitInfo cbi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO, .commandBuffer = cmd};
  VkSemaphoreSubmitInfo wsi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO, .semaphore = s->presentable,
                               .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT};
  VkSemaphoreSubmitInfo ssi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO, .semaphore = s->captured,
                               .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT};
  VkSubmitInfo2 si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2, .waitSemaphoreInfoCount = 1, .pWaitSemaphoreInfos = &wsi,
                      .commandBufferInfoCount = 1, .pCommandBufferInfos = &cbi,
                      .signalSemaphoreInfoCount = 1, .pSignalSemaphoreInfos = &ssi};
  if (r == VK_SUCCESS) r = vkQueueSubmit2(w->dev->queue, 1, &si, w->fence);
  if (r == VK_SUCCESS) r = vkWaitForFences(w->dev->device, 1, &w->fence, VK_TRUE, UINT64_MAX);
  vkResetFences(w->dev->device, 1, &w->fence);
  if (r != VK_SUCCESS) {
    fg_vk_host_buffer_destroy(w->dev, &hb);
    fg_errf(err, errlen, "reading back the presented image failed (VkResult %d)", (int)r);
    return -1;
  }
  unsigned char *out = malloc((size_t)W * H * 4);
  if (out) {
    const unsigned char *src = hb.map;
    int bgra = w->format == VK_FORMAT_B8G8R8A8_UNORM || w->format == VK_FORMAT_B8G8R8A8_SRGB;
    for (size_t i = 0; i < (size_t)W * H; i++) {
      out[4 * i + 0] = src[4 * i + (bgra ? 2 : 0)];
      out[4 * i + 1] = src[4 * i + 1];
      out[4 * i + 2] = src[4 * i + (bgra ? 0 : 2)];
      out[4 * i + 3] = src[4 * i + 3];
    }
  }
  fg_vk_host_buffer_destroy(w->dev, &hb);
  if (!out) { fg_errf(err, errlen, "out of memory"); return -1; }
  *rgba = out;
  return 1;  /* the present now waits on `captured` */
}

int fg_vk_window_present(fg_vk_window *w, unsigned char **rgba, char *err, size_t errlen) {
  if (rgba) *rgba = NULL;
  if (w->state != ST_RENDERED) { fg_errf(err, errlen, "nothing rendered to present (acquire, render a frame, then present)"); return -1; }
  sc_image *s = &w->images[w->index];
  VkSemaphore wait = s->presentable;
  if (rgba) {
    int c = capture(w, rgba, err, errlen);
    if (c < 0) return -1;
    wait = s->captured;
  }
  VkPresentInfoKHR pi = {.sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR, .waitSemaphoreCount = 1, .pWaitSemaphores = &wait,
                         .swapchainCount = 1, .pSwapchains = &w->swapchain, .pImageIndices = &w->index};
  VkResult r = vkQueuePresentKHR(w->dev->queue, &pi);
  w->state = ST_NONE;
  if (r == VK_ERROR_OUT_OF_DATE_KHR || r == VK_SUBOPTIMAL_KHR) return 1;
  if (r != VK_SUCCESS) { fg_errf(err, errlen, "vkQueuePresentKHR failed (VkResult %d)", (int)r); return -1; }
  return 0;
}

fg_vk_device *fg_vk_window_device(const fg_vk_window *w) { return w->dev; }
