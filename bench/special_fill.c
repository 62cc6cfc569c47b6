/* Decompression of special-value chunks (zeros, NaN, a repeated value) with several builds of
 * the library in ONE process, calls alternating between them (as abtime.c): c-blosc2 fills
 * these with memset or typed loops; the figures compare ours with it.
 *
 *   special_fill ROUNDS LIB.so...
 *
 * For each chunk kind and size, prints the median and minimum microseconds per
 * blosc2_decompress_ctx call (one thread) and GB/s of output for each library. */
#include <blosc2.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timing.h"

typedef struct {
  __typeof__(&blosc2_init) init;
  __typeof__(&blosc2_create_cctx) cctx;
  __typeof__(&blosc2_create_dctx) dctx;
  __typeof__(&blosc2_free_ctx) free_ctx;
  __typeof__(&blosc2_chunk_zeros) zeros;
  __typeof__(&blosc2_chunk_nans) nans;
  __typeof__(&blosc2_chunk_repeatval) repeatval;
  __typeof__(&blosc2_decompress_ctx) decompress;
  blosc2_context *d;
} lib_t;

#define SYM(l, h, f, name) \
  if (!((l)->f = dlsym(h, name))) { fprintf(stderr, "%s: no %s\n", argv[i + 2], name); return 1; }

int main(int argc, char **argv) {
  if (argc < 3 || argc - 2 > 8) {
    fprintf(stderr, "usage: special_fill ROUNDS LIB.so... (at most 8)\n");
    return 2;
  }
  int rounds = atoi(argv[1]);
  int nlibs = argc - 2;
  lib_t libs[8];
  for (int i = 0; i < nlibs; i++) {
    void *h = dlopen(argv[i + 2], RTLD_NOW | RTLD_LOCAL);
    if (!h) { fprintf(stderr, "%s\n", dlerror()); return 1; }
    lib_t *l = &libs[i];
    SYM(l, h, init, "blosc2_init");
    SYM(l, h, cctx, "blosc2_create_cctx");
    SYM(l, h, dctx, "blosc2_create_dctx");
    SYM(l, h, free_ctx, "blosc2_free_ctx");
    SYM(l, h, zeros, "blosc2_chunk_zeros");
    SYM(l, h, nans, "blosc2_chunk_nans");
    SYM(l, h, repeatval, "blosc2_chunk_repeatval");
    SYM(l, h, decompress, "blosc2_decompress_ctx");
    l->init();
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    dp.nthreads = 1;
    l->d = l->dctx(dp);
  }
  static const struct { const char *name; int kind, typesize; } kinds[] = {
      {"zeros", 0, 4}, {"nan32", 1, 4}, {"nan64", 1, 8}, {"value4", 2, 4},
      {"value8", 2, 8}, {"value16", 2, 16}, {"value3", 2, 3}};
  static const int sizes[] = {64 * 1024, 4 * 1024 * 1024};
  uint8_t value[16];
  for (int i = 0; i < 16; i++) value[i] = (uint8_t)(i * 17 + 1);
  double *t = malloc(sizeof(double) * (size_t)rounds * (size_t)nlibs);
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
      int nbytes = sizes[s] / kinds[k].typesize * kinds[k].typesize;
      uint8_t chunk[64];
      uint8_t *out = malloc((size_t)nbytes);
      memset(out, 1, (size_t)nbytes);
      int inner = nbytes < 1024 * 1024 ? 64 : 1;
      for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < nlibs; i++) {
          lib_t *l = &libs[i];
          blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
          cp.typesize = kinds[k].typesize;
          int cs = kinds[k].kind == 0   ? l->zeros(cp, nbytes, chunk, sizeof chunk)
                   : kinds[k].kind == 1 ? l->nans(cp, nbytes, chunk, sizeof chunk)
                                        : l->repeatval(cp, nbytes, chunk, sizeof chunk, value);
          double t0 = now();
          int rc = 0;
          for (int j = 0; j < inner; j++) rc = l->decompress(l->d, chunk, cs, out, nbytes);
          t[i * rounds + r] = (now() - t0) / inner;
          if (rc != nbytes) { fprintf(stderr, "%s %s: %d\n", argv[i + 2], kinds[k].name, rc); return 1; }
        }
      }
      for (int i = 0; i < nlibs; i++) {
        qsort(t + i * rounds, (size_t)rounds, sizeof(double), cmp_double);
        double med = t[i * rounds + rounds / 2], min = t[i * rounds];
        printf("%-8s %8d B  lib %d: median %9.2f us  min %9.2f us  %6.2f GB/s\n", kinds[k].name,
               nbytes, i, med * 1e6, min * 1e6, nbytes / med * 1e-9);
      }
      free(out);
    }
  }
  free(t);
  return 0;
}
