/* bench.c's three b2nd slice reads (256^3 float64, chunks 64^3, blocks 16^3, default cparams,
 * nthreads 1) timed on two libraries loaded side by side in one process (RTLD_LOCAL), their
 * calls interleaved: ours against the reference, or two builds of ours against each other
 * (bench/run.sh only pits ours against the reference, and takes minutes).
 *
 *   slice_ab LIB_A.so LIB_B.so [REPS [OPS]]      OPS: any of "slab,column,box" (default all)
 *
 * For each operation and library it prints the fastest and the median of REPS (default 15)
 * samples, in wall-clock and in thread CPU time, and the ratio B/A (above 1: A is faster). A
 * column sample is the mean of 2000 calls. As bench.c does, the output buffer is zeroed before
 * each sample, and every sample's output is checked against the source: a wrong slice stops the
 * program with status 5.
 *
 *   SLICE_AB_OFFSET=N  place the output buffer N bytes after a 64-byte boundary (default 16,
 *                      where glibc's malloc puts bench.c's large buffers)
 *   SLICE_AB_ONLY_A=1  time library A alone (for perf record; LIB_B is not loaded)
 *
 * bench/slice_ab.sh builds and runs it. */
#define _GNU_SOURCE
#include <b2nd.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "b2nd_array.h"
#include "timing.h"

#define MAX_REPS 256

typedef struct {
  __typeof__(&b2nd_get_slice_cbuffer) get_slice;
  b2nd_array_t *array;
} lib_t;


static void load(lib_t *l, const char *path, const double *src) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) { fprintf(stderr, "dlopen: %s\n", dlerror()); exit(3); }
  l->get_slice = (__typeof__(l->get_slice))dlsym(h, "b2nd_get_slice_cbuffer");
  if (!l->get_slice) {
    fprintf(stderr, "%s: missing symbols\n", path);
    exit(3);
  }
  l->array = b2nd_array_build(h, path, src);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: slice_ab LIB_A.so LIB_B.so [REPS [OPS]]\n");
    return 2;
  }
  int reps = argc > 3 ? atoi(argv[3]) : 15;
  if (reps < 1 || reps > MAX_REPS) { fprintf(stderr, "REPS: 1..%d\n", MAX_REPS); return 2; }
  const char *ops_wanted = argc > 4 ? argv[4] : "slab,column,box";
  int only_a = getenv("SLICE_AB_ONLY_A") != NULL;
  size_t offset = getenv("SLICE_AB_OFFSET") ? (size_t)atoi(getenv("SLICE_AB_OFFSET")) % 4096 : 16;

  size_t total = (size_t)N3 * N3 * N3 * 8;
  double *src = b2nd_array_source();
  char *raw = malloc(total + 8192);
  if (!raw) return 1;
  double *out = (double *)(((uintptr_t)raw + 63) / 64 * 64 + offset);
  lib_t libs[2];
  int nlibs = only_a ? 1 : 2;
  for (int l = 0; l < nlibs; l++) load(&libs[l], argv[1 + l], src);

  static const char *names[3] = {"slab", "column", "box"};
  static const int64_t regions[3][2][3] = {{{100, 0, 0}, {110, N3, N3}},
                                           {{0, 37, 91}, {N3, 38, 92}},
                                           {{30, 50, 70}, {130, 150, 170}}};
  static double wall[2][MAX_REPS], cpu[2][MAX_REPS];
  for (int o = 0; o < 3; o++) {
    if (!strstr(ops_wanted, names[o])) continue;
    const int64_t *start = regions[o][0], *stop = regions[o][1];
    int64_t shape[3], n = 1;
    for (int d = 0; d < 3; d++) n *= shape[d] = stop[d] - start[d];
    int calls = o == 1 ? 2000 : 1;
    for (int r = 0; r < reps; r++) {
      for (int l = 0; l < nlibs; l++) {
        memset(out, 0, (size_t)n * 8);
        double w0 = clock_seconds(CLOCK_MONOTONIC), c0 = clock_seconds(CLOCK_THREAD_CPUTIME_ID);
        for (int c = 0; c < calls; c++)
          if (libs[l].get_slice(libs[l].array, start, stop, out, shape, n * 8) != 0) {
            fprintf(stderr, "%s: get_slice_cbuffer failed (library %c)\n", names[o], 'A' + l);
            return 5;
          }
        cpu[l][r] = (clock_seconds(CLOCK_THREAD_CPUTIME_ID) - c0) / calls;
        wall[l][r] = (clock_seconds(CLOCK_MONOTONIC) - w0) / calls;
        size_t p = 0;
        for (int64_t i = start[0]; i < stop[0]; i++)
          for (int64_t j = start[1]; j < stop[1]; j++)
            for (int64_t k = start[2]; k < stop[2]; k++)
              if (out[p++] != src[(i * N3 + j) * N3 + k]) {
                fprintf(stderr, "%s: wrong slice (library %c)\n", names[o], 'A' + l);
                return 5;
              }
      }
    }
    for (int l = 0; l < nlibs; l++) {
      qsort(wall[l], (size_t)reps, sizeof(double), cmp_double);
      qsort(cpu[l], (size_t)reps, sizeof(double), cmp_double);
    }
    int m = reps / 2;
    if (only_a) {
      printf("%-6s A: wall min %8.1f us median %8.1f | cpu min %8.1f median %8.1f\n", names[o],
             wall[0][0] * 1e6, wall[0][m] * 1e6, cpu[0][0] * 1e6, cpu[0][m] * 1e6);
      continue;
    }
    printf("%-6s wall min %8.1f / %8.1f us (B/A %.2f), median %8.1f / %8.1f (%.2f) | "
           "cpu min %.2f, median %.2f\n",
           names[o], wall[0][0] * 1e6, wall[1][0] * 1e6, wall[1][0] / wall[0][0], wall[0][m] * 1e6,
           wall[1][m] * 1e6, wall[1][m] / wall[0][m], cpu[1][0] / cpu[0][0], cpu[1][m] / cpu[0][m]);
  }
  return 0;
}
