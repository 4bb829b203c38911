/* The debug messenger collects every severity the validation layer reports
 * findings with, performance warnings included (they fail a test like
 * errors): a copy between two images in GENERAL, which the layer flags as a
 * performance problem, must show up in fg_vk_take_messages, and the layer's
 * own start-up note must not. */
#include "fg_vk.h"
#include "fg_vk_image.h"
#include <stdio.h>
#include <string.h>

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c); failures++; } } while (0)

typedef struct pair { VkImage a, b; } pair;

static void to_general(VkCommandBuffer cmd, VkImage img) {
  VkImageMemoryBarrier2 b = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2,
                             .srcStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                             .srcAccessMask = VK_ACCESS_2_MEMORY_WRITE_BIT,
                             .dstStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                             .dstAccessMask = VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT,
                             .oldLayout = VK_IMAGE_LAYOUT_UNDEFINED, .newLayout = VK_IMAGE_LAYOUT_GENERAL,
                             .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                             .image = img,
                             .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};
  VkDependencyInfo di = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .imageMemoryBarrierCount = 1,
                         .pImageMemoryBarriers = &b};
  vkCmdPipelineBarrier2(cmd, &di);
}

static void record(VkCommandBuffer cmd, void *user) {
  pair *p = user;
  to_general(cmd, p->a);
  to_general(cmd, p->b);
  VkImageCopy c = {.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                   .dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1}, .extent = {4, 4, 1}};
  vkCmdCopyImage(cmd, p->a, VK_IMAGE_LAYOUT_GENERAL, p->b, VK_IMAGE_LAYOUT_GENERAL, 1, &c);
}

int main(void) {
  char err[1024];
  fg_vk_desc vd = {.validation = 1, .prefer_software = 1};
  fg_vk_device *dev = fg_vk_create(&vd, err, sizeof err);
  if (!dev) { printf("SKIP: no Vulkan device: %s\n", err); return 0; }
  size_t nm = 0;
  char **m = fg_vk_take_messages(dev, &nm);
  for (size_t i = 0; i < nm; i++) fprintf(stderr, "after create: %.300s\n", m[i]);
  fg_vk_free_messages(m, nm);
  CHECK(nm == 0);  /* no start-up notes */
  fg_vk_image a, b;
  fg_vk_image_desc d = {.format = FG_FORMAT_RGBA8_UNORM, .width = 4, .height = 4};
  CHECK(fg_vk_image_create(dev, &d, &a) == 0);
  CHECK(fg_vk_image_create(dev, &d, &b) == 0);
  pair p = {a.image, b.image};
  CHECK(fg_vk_submit_once(dev, record, &p) == VK_SUCCESS);
  m = fg_vk_take_messages(dev, &nm);
  int perf = 0;
  for (size_t i = 0; i < nm; i++) {
    if (strstr(m[i], "[warning, performance]") && strstr(m[i], "vkCmdCopyImage")) perf = 1;
    else fprintf(stderr, "unexpected: %.500s\n", m[i]);
  }
  fg_vk_free_messages(m, nm);
  CHECK(perf);
  fg_vk_image_destroy(dev, &a);
  fg_vk_image_destroy(dev, &b);
  fg_vk_destroy(dev);
  if (failures) fprintf(stderr, "%d failures\n", failures);
  else printf("ok\n");
  return failures != 0;
}
