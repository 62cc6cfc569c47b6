/* The b2nd array of bench.c's b2nd workload (256^3 float64, chunks 64^3, blocks 16^3, default
 * cparams, nthreads 1), built through one dlopen'ed library: shared by slice_ab.c and
 * profile_b2nd.c. */
#ifndef RBLOSC2_BENCH_B2ND_ARRAY_H
#define RBLOSC2_BENCH_B2ND_ARRAY_H

#include <b2nd.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N3 256

/* bench.c's b2nd_value: the item at (i, j, k). */
static double b2nd_array_value(int64_t i, int64_t j, int64_t k) {
  return (double)(i * 3 + j) * 0.25 + (double)((k * 7 + i) % 64) * 0.5;
}

/* A malloc'd 256^3 C-order buffer of b2nd_array_value. */
static double *b2nd_array_source(void) {
  double *src = malloc((size_t)N3 * N3 * N3 * 8);
  if (!src) { fprintf(stderr, "out of memory\n"); exit(4); }
  for (int64_t i = 0; i < N3; i++)
    for (int64_t j = 0; j < N3; j++)
      for (int64_t k = 0; k < N3; k++) src[(i * N3 + j) * N3 + k] = b2nd_array_value(i, j, k);
  return src;
}

/* Initialises the library `h` (dlopen'ed from `path`) and builds the array from `src` with it;
 * exits on failure. */
static b2nd_array_t *b2nd_array_build(void *h, const char *path, const double *src) {
#define B2ND_ARRAY_SYM(name) __typeof__(&name) p_##name = (__typeof__(&name))dlsym(h, #name)
  B2ND_ARRAY_SYM(blosc2_init);
  B2ND_ARRAY_SYM(b2nd_create_ctx);
  B2ND_ARRAY_SYM(b2nd_from_cbuffer);
#undef B2ND_ARRAY_SYM
  if (!p_blosc2_init || !p_b2nd_create_ctx || !p_b2nd_from_cbuffer) {
    fprintf(stderr, "%s: missing symbols\n", path);
    exit(3);
  }
  p_blosc2_init();
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 8;
  cp.nthreads = 1;
  /* B2ND_ARRAY_CODEC=N picks another codec (e.g. 1 for LZ4), default cparams otherwise. */
  if (getenv("B2ND_ARRAY_CODEC")) cp.compcode = (uint8_t)atoi(getenv("B2ND_ARRAY_CODEC"));
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = 1;
  blosc2_storage st = {.contiguous = true, .cparams = &cp, .dparams = &dp};
  int64_t shape[3] = {N3, N3, N3};
  int32_t chunks[3] = {64, 64, 64}, blocks[3] = {16, 16, 16};
  b2nd_context_t *ctx = p_b2nd_create_ctx(&st, 3, shape, chunks, blocks, NULL, 0, NULL, 0);
  b2nd_array_t *a = NULL;
  if (!ctx || p_b2nd_from_cbuffer(ctx, &a, src, (int64_t)N3 * N3 * N3 * 8) != 0) {
    fprintf(stderr, "%s: from_cbuffer failed\n", path);
    exit(4);
  }
  return a;
}

#endif
