/* The host's side of the Vulkan backend (include/framegraph.h): C node
 * callbacks registered by name on a device (host_nodes.c) and frames
 * recorded into a host's command buffer (runtime_host.c). */
#ifndef FG_VK_HOST_H
#define FG_VK_HOST_H
#include "fg_vk.h"
#include "framegraph.h"

struct fg_rt;

/* 0, or -1 when out of memory. fn NULL removes the name. */
int fg_vk_host_register(fg_vk_device *dev, const char *name, fg_node_fn fn, void *user);
int fg_vk_host_known(const fg_vk_device *dev, const char *name);
/* The registered names (for "did you mean"); returns how many were written. */
uint32_t fg_vk_host_names(const fg_vk_device *dev, const char **names, uint32_t max);

/* Arguments of cmd:host(name, args): numbers, and the Lua value for hosts
 * that read more. */
typedef struct fg_vk_host_args {
  const double *values;
  uint32_t count;
  struct lua_State *L;
  int index;
} fg_vk_host_args;
/* Calls the callback `name` for node instance `slot` of the frame recording.
 * 0, or 1 when no callback has that name. */
int fg_vk_host_call(struct fg_rt *rt, VkCommandBuffer cmd, uint32_t slot, const char *name,
                    const fg_vk_host_args *args, char *err, size_t errlen);

/* runtime_host.c: the next fg_rt_frame records into the host's primary
 * command buffer `cmd` (recording state) through a secondary of the
 * runtime's, and does not submit; fg_rt_host_signals then lists the timeline
 * semaphores (and values) the host's submit must signal. VK_NULL_HANDLE:
 * the runtime submits (the default). */
int fg_rt_set_host_cmd(struct fg_rt *rt, VkCommandBuffer cmd, char *err, size_t errlen);
uint32_t fg_rt_host_signals(const struct fg_rt *rt, VkSemaphore *sem, uint64_t *value, uint32_t max);
/* Transition an external image to `layout` in `cmd` after the frame (the
 * host's layout hand-back); src covers every earlier command. */
void fg_rt_external_handback(VkCommandBuffer cmd, VkImage image, VkImageAspectFlags aspect, VkImageLayout from,
                             VkImageLayout to);

/* External buffers: a host's buffer for external `phys` (declared without a
 * format) from the next frame on; and the memory barrier that hands every
 * such buffer back (to later commands and to host reads after a wait). */
void fg_rt_set_external_buffer(struct fg_rt *rt, uint32_t phys, VkBuffer buffer);
void fg_rt_external_buffers_handback(VkCommandBuffer cmd);

#endif
