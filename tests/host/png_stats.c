/* fg_png_stats FILE: what the host tests assert about a picture. Prints
 *   size W H
 *   lit N          pixels brighter than the background (sum of rgb > 60)
 *   mean R G B     mean colour of the lit pixels (0..255)
 *   levels K       distinct brightness levels among them (shading, not a flat blob)
 * and exits 1 when the file cannot be read. */
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  if (argc != 2) { fprintf(stderr, "usage: fg_png_stats FILE.png\n"); return 2; }
  png_image img;
  memset(&img, 0, sizeof img);
  img.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&img, argv[1])) { fprintf(stderr, "%s: %s\n", argv[1], img.message); return 1; }
  img.format = PNG_FORMAT_RGBA;
  unsigned char *px = malloc(PNG_IMAGE_SIZE(img));
  if (!px || !png_image_finish_read(&img, NULL, px, 0, NULL)) { fprintf(stderr, "%s: %s\n", argv[1], img.message); return 1; }
  unsigned long lit = 0;
  double sum[3] = {0, 0, 0};
  unsigned char seen[766] = {0};
  unsigned levels = 0;
  for (size_t i = 0; i < (size_t)img.width * img.height; i++) {
    unsigned char *p = px + 4 * i;
    unsigned s = (unsigned)p[0] + p[1] + p[2];
    if (s <= 60) continue;
    lit++;
    for (int c = 0; c < 3; c++) sum[c] += p[c];
    if (!seen[s]) { seen[s] = 1; levels++; }
  }
  printf("size %u %u\n", img.width, img.height);
  printf("lit %lu\n", lit);
  printf("mean %.0f %.0f %.0f\n", lit ? sum[0] / lit : 0, lit ? sum[1] / lit : 0, lit ? sum[2] / lit : 0);
  printf("levels %u\n", levels);
  free(px);
  return 0;
}
