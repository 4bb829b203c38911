/* The Vulkan barrier structs of a planned barrier (barrier.c's fg_bar), for
 * the plan's build (runtime.c), the async queue's patches (runtime_async.c)
 * and the frame's recording (runtime_frame.c): one place below all three. */
#include "runtime_internal.h"
#include <string.h>

void fill_image_barrier(const fg_rt *rt, const fg_bar *b, VkImageMemoryBarrier2 *ib) {
  const fg_rt_res *r = &rt->res[b->res];
  memset(ib, 0, sizeof *ib);
  ib->sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2;
  ib->srcStageMask = b->src_stage;
  ib->srcAccessMask = b->src_access;
  ib->dstStageMask = b->dst_stage;
  ib->dstAccessMask = b->dst_access;
  ib->oldLayout = b->old_layout;
  ib->newLayout = b->new_layout;
  ib->srcQueueFamilyIndex = ib->dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  ib->image = r->image;
  ib->subresourceRange.aspectMask = r->aspect;
  ib->subresourceRange.levelCount = VK_REMAINING_MIP_LEVELS;
  ib->subresourceRange.layerCount = VK_REMAINING_ARRAY_LAYERS;
}

void fill_buffer_barrier(const fg_rt *rt, const fg_bar *b, VkBufferMemoryBarrier2 *bb) {
  memset(bb, 0, sizeof *bb);
  bb->sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2;
  bb->srcStageMask = b->src_stage;
  bb->srcAccessMask = b->src_access;
  bb->dstStageMask = b->dst_stage;
  bb->dstAccessMask = b->dst_access;
  bb->srcQueueFamilyIndex = bb->dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  bb->buffer = rt->res[b->res].buffer;
  bb->size = VK_WHOLE_SIZE;
}
