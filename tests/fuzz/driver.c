/* Stand-alone driver for the fuzz targets when libFuzzer is not linked (gcc,
 * ctest): replays every file of the directories or files given, then feeds
 * -runs=N pseudo-random inputs (splitmix64, -seed=S). A failing input aborts,
 * as it would under libFuzzer; -save=DIR keeps the input being run in
 * DIR/last-input first, so a crash can be replayed. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* A target may say what its inputs reached (e.g. how many compiled). */
__attribute__((weak)) void fuzz_report(void);

static const char *save_dir;

static void run_one(const uint8_t *d, size_t n) {
  if (save_dir) {
    char p[4096];
    snprintf(p, sizeof p, "%s/last-input", save_dir);
    FILE *f = fopen(p, "wb");
    if (f) { fwrite(d, 1, n, f); fclose(f); }
  }
  LLVMFuzzerTestOneInput(d, n);
}

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  static uint8_t buf[1 << 16];
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  run_one(buf, n);
  return 1;
}

static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

int main(int argc, char **argv) {
  long runs = 0, files = 0;
  uint64_t seed = 1;
  for (int i = 1; i < argc; i++) {
    if (!strncmp(argv[i], "-runs=", 6)) { runs = atol(argv[i] + 6); continue; }
    if (!strncmp(argv[i], "-seed=", 6)) { seed = strtoull(argv[i] + 6, NULL, 10); continue; }
    if (!strncmp(argv[i], "-save=", 6)) { save_dir = argv[i] + 6; continue; }
    struct stat st;
    if (stat(argv[i], &st) != 0) { fprintf(stderr, "%s: no such file or directory\n", argv[i]); return 2; }
    if (S_ISDIR(st.st_mode)) {
      DIR *d = opendir(argv[i]);
      struct dirent *e;
      while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", argv[i], e->d_name);
        files += run_file(p);
      }
      if (d) closedir(d);
    } else {
      files += run_file(argv[i]);
    }
  }
  uint8_t buf[1024];
  for (long r = 0; r < runs; r++) {
    size_t n = 1 + splitmix(&seed) % sizeof buf;
    for (size_t k = 0; k < n; k++) buf[k] = (uint8_t)splitmix(&seed);
    run_one(buf, n);
  }
  printf("%s: %ld corpus files, %ld random inputs, no failure\n", argv[0], files, runs);
  if (fuzz_report) fuzz_report();
  return 0;
}
