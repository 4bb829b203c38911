/* Static barrier planner (csrc/vk/barrier.c) without a device: activation
 * (discard) barriers wait on every earlier occupant of the memory, reads that
 * change nothing get no barrier, layout changes always get one. */
#include "fg_vk_barrier.h"
#include <stdio.h>
#include <stdlib.h>

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c); failures++; } } while (0)

int main(void) {
  /* Two images per parity: A (offset 0) and B (offset 0, aliases A, activates after A is dead).
   * Nodes: 0 writes A (storage), 1 reads A (storage), 2 reads A again (storage, same stage),
   * 3 writes B (color), 4 reads B (sampled). Same for the odd parity with its own copies. */
  fg_bar_res res[4] = {
    {.is_image = 1, .aspect = VK_IMAGE_ASPECT_COLOR_BIT, .heap = 0, .offset = 0, .size = 100, .parity = 0},
    {.is_image = 1, .aspect = VK_IMAGE_ASPECT_COLOR_BIT, .heap = 0, .offset = 0, .size = 100, .parity = 0},
    {.is_image = 1, .aspect = VK_IMAGE_ASPECT_COLOR_BIT, .heap = 0, .offset = 200, .size = 100, .parity = 1},
    {.is_image = 1, .aspect = VK_IMAGE_ASPECT_COLOR_BIT, .heap = 0, .offset = 200, .size = 100, .parity = 1},
  };
  const VkPipelineStageFlags2 CS = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
  fg_bar_use uses[10];
  uint32_t first[10], count[10];
  size_t n = 5, k = 0;
  for (uint32_t p = 0; p < 2; p++) {
    uint32_t a = 2 * p, b = 2 * p + 1;
    fg_bar_use u[5] = {
      {.res = a, .usage = FG_USAGE_STORAGE, .write = 1, .activate = 1, .stage = CS},
      {.res = a, .usage = FG_USAGE_STORAGE, .stage = CS},
      {.res = a, .usage = FG_USAGE_STORAGE, .stage = CS},
      {.res = b, .usage = FG_USAGE_COLOR, .write = 1, .activate = 1},
      {.res = b, .usage = FG_USAGE_SAMPLED, .stage = VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT},
    };
    for (size_t i = 0; i < n; i++) {
      first[p * n + i] = (uint32_t)k;
      count[p * n + i] = 1;
      uses[k++] = u[i];
    }
  }
  fg_bar *bars = NULL;
  uint32_t bf[10], bc[10];
  fg_bar_state odd[4], even[4];
  CHECK(fg_bar_plan(res, 4, uses, first, count, n, &bars, bf, bc, odd, even) == 0);
  for (uint32_t p = 0; p < 2; p++) {
    uint32_t s = p * (uint32_t)n;
    CHECK(bc[s + 0] == 1);  /* activation of A */
    CHECK(bc[s + 1] == 1);  /* write -> read */
    CHECK(bc[s + 2] == 0);  /* read after read, same stage and layout: nothing */
    CHECK(bc[s + 3] == 1);  /* activation of B */
    CHECK(bc[s + 4] == 1);  /* color -> sampled layout change */
    const fg_bar *actA = &bars[bf[s + 0]], *actB = &bars[bf[s + 3]], *rd = &bars[bf[s + 1]];
    CHECK(actA->activate && actA->old_layout == VK_IMAGE_LAYOUT_UNDEFINED && actA->new_layout == VK_IMAGE_LAYOUT_GENERAL);
    /* B's discard barrier waits for A's readers (the previous occupant). */
    CHECK(actB->activate && actB->old_layout == VK_IMAGE_LAYOUT_UNDEFINED);
    CHECK((actB->src_stage & CS) != 0);
    CHECK(actB->new_layout == VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL);
    /* A's activation in the steady state waits for B's last use (fragment read) of the previous cycle. */
    CHECK((actA->src_stage & VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT) != 0);
    /* a storage read may also sample the image or read it as a uniform: the barrier covers all three */
    CHECK(rd->src_access == VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT &&
          rd->dst_access == (VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_SAMPLED_READ_BIT |
                             VK_ACCESS_2_UNIFORM_READ_BIT));
    CHECK(rd->old_layout == VK_IMAGE_LAYOUT_GENERAL && rd->new_layout == VK_IMAGE_LAYOUT_GENERAL);
    const fg_bar *sm = &bars[bf[s + 4]];
    CHECK(sm->old_layout == VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL &&
          sm->new_layout == VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    CHECK(sm->src_access == VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT);
  }
  CHECK(even[1].layout == VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
  CHECK(odd[3].layout == VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
  /* the rows of fg_vocab.h, indexed directly by fg_usage */
  CHECK(fg_vk_usage_row(FG_USAGE_DEPTH_READ)->layout == VK_IMAGE_LAYOUT_READ_ONLY_OPTIMAL);
  CHECK(fg_vk_usage_row(FG_USAGE_SAMPLED)->image_usage == VK_IMAGE_USAGE_SAMPLED_BIT);
  CHECK(fg_vk_usage_row(FG_USAGE_INDEX)->buffer_usage == VK_BUFFER_USAGE_INDEX_BUFFER_BIT);
  CHECK(fg_vk_usage_access(FG_USAGE_STORAGE, 0) == (VK_ACCESS_2_SHADER_STORAGE_READ_BIT |
        VK_ACCESS_2_SHADER_SAMPLED_READ_BIT | VK_ACCESS_2_UNIFORM_READ_BIT));
  CHECK(fg_vk_usage_access(FG_USAGE_COUNT + 3, 1) == (VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT));
  free(bars);
  if (failures) { fprintf(stderr, "%d failures\n", failures); return 1; }
  printf("barrier planner ok\n");
  return 0;
}
