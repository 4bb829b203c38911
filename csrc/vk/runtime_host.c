/* Frames recorded into a host's command buffer (framegraph.h,
 * fg_frame_desc.cmd): the runtime records its frame into a secondary command
 * buffer of its own, executes it in the host's primary and leaves the submit
 * to the host, which signals the runtime's timeline (and upload ring)
 * semaphores at the values fg_rt_host_signals lists. */
#include "runtime_internal.h"
#include "fg_vk_host.h"

int fg_rt_set_host_cmd(fg_rt *rt, VkCommandBuffer cmd, char *err, size_t errlen) {
  if (cmd && !rt->sec[0]) {
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = rt->pool, .level = VK_COMMAND_BUFFER_LEVEL_SECONDARY,
                                      .commandBufferCount = 2};
    VkResult r = vkAllocateCommandBuffers(rt->dev->device, &ai, rt->sec);
    if (r != VK_SUCCESS) {
      rt->sec[0] = rt->sec[1] = VK_NULL_HANDLE;
      fg_errf(err, errlen, "allocating the secondary command buffers for the host's frame failed (VkResult %d)",
              (int)r);
      return -1;
    }
  }
  rt->host_cmd = cmd;
  return 0;
}

uint32_t fg_rt_host_signals(const fg_rt *rt, VkSemaphore *sem, uint64_t *value, uint32_t max) {
  uint32_t n = rt->sig_count < max ? rt->sig_count : max;
  for (uint32_t i = 0; i < n; i++) { sem[i] = rt->sig_sem[i]; value[i] = rt->sig_val[i]; }
  return n;
}

void fg_rt_external_handback(VkCommandBuffer cmd, VkImage image, VkImageAspectFlags aspect, VkImageLayout from,
                             VkImageLayout to) {
  VkImageMemoryBarrier2 ib = {
    .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2,
    .srcStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, .srcAccessMask = VK_ACCESS_2_MEMORY_WRITE_BIT,
    .dstStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
    .dstAccessMask = VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT,
    .oldLayout = from, .newLayout = to,
    .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
    .image = image,
    .subresourceRange = {.aspectMask = aspect, .levelCount = VK_REMAINING_MIP_LEVELS,
                         .layerCount = VK_REMAINING_ARRAY_LAYERS},
  };
  VkDependencyInfo di = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .imageMemoryBarrierCount = 1,
                         .pImageMemoryBarriers = &ib};
  vkCmdPipelineBarrier2(cmd, &di);
}

void fg_rt_set_external_buffer(fg_rt *rt, uint32_t phys, VkBuffer buffer) {
  if (phys >= rt->nres || !rt->res[phys].is_external || rt->res[phys].is_image) return;
  rt->res[phys].buffer = buffer;
  /* Patch planned barriers that name it (as fg_rt_set_external does for images). */
  for (uint32_t k = 0; k < 2 * rt->ninst; k++) {
    uint32_t i = rt->bb_first[k];
    for (uint32_t j = rt->bar_first[k]; j < rt->bar_first[k] + rt->bar_count[k]; j++) {
      if (rt->res[rt->bars[j].res].is_image) continue;
      if (rt->bars[j].res == phys) rt->bb2[i].buffer = buffer;
      i++;
    }
  }
}

void fg_rt_external_buffers_handback(VkCommandBuffer cmd) {
  VkMemoryBarrier2 mb = {
    .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
    .srcStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, .srcAccessMask = VK_ACCESS_2_MEMORY_WRITE_BIT,
    .dstStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT | VK_PIPELINE_STAGE_2_HOST_BIT,
    .dstAccessMask = VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT | VK_ACCESS_2_HOST_READ_BIT,
  };
  VkDependencyInfo di = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .memoryBarrierCount = 1, .pMemoryBarriers = &mb};
  vkCmdPipelineBarrier2(cmd, &di);
}
