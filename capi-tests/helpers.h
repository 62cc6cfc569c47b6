/* Set-up code several C tests share (beside check.h): sample chunks of each kind, a b2nd
 * context whose parameters outlive it, the generation counter of a frame's lock sidecar, a
 * sleep, and (with SLOW_FILTER_US defined first) a slow copying filter. Everything is static
 * inline, so a program that uses only part of it builds without unused-function warnings. */
#ifndef RBLOSC2_CAPI_TESTS_HELPERS_H
#define RBLOSC2_CAPI_TESTS_HELPERS_H
#include <b2nd.h>
#include <blosc2.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Compresses `nbytes` of `data` three ways into rows of `chunks` (each `capacity` bytes):
 * row 0 a regular chunk with `*cp`, row 1 a memcpyed one (clevel 0, which stays set in `*cp`
 * for the caller's further special chunks), row 2 a zeros chunk. Their sizes go to `sizes`. */
static inline void sample_chunks(blosc2_cparams *cp, const void *data, int32_t nbytes,
                                 uint8_t *chunks, int32_t capacity, int sizes[3]) {
  blosc2_context *cctx = blosc2_create_cctx(*cp);
  sizes[0] = blosc2_compress_ctx(cctx, data, nbytes, chunks, capacity);
  blosc2_free_ctx(cctx);
  cp->clevel = 0;
  cctx = blosc2_create_cctx(*cp);
  sizes[1] = blosc2_compress_ctx(cctx, data, nbytes, chunks + capacity, capacity);
  blosc2_free_ctx(cctx);
  sizes[2] = blosc2_chunk_zeros(*cp, nbytes, chunks + 2 * capacity, capacity);
}

/* What a b2nd context's storage points at: c-blosc2 keeps these pointers, so they outlive it. */
typedef struct {
  blosc2_cparams cp;
  blosc2_dparams dp;
  blosc2_storage st;
} params_t;

/* A b2nd context of one thread for items of `typesize` bytes, its parameters kept in `*p`. */
static inline b2nd_context_t *b2nd_test_ctx(params_t *p, int typesize, int ndim,
                                            const int64_t *shape, const int32_t *chunks,
                                            const int32_t *blocks, int contiguous,
                                            const char *urlpath, const char *dtype,
                                            blosc2_metalayer *metas, int nmetas) {
  p->cp = (blosc2_cparams)BLOSC2_CPARAMS_DEFAULTS;
  p->cp.typesize = typesize;
  p->cp.nthreads = 1;
  p->dp = (blosc2_dparams)BLOSC2_DPARAMS_DEFAULTS;
  p->st = (blosc2_storage){.contiguous = contiguous, .urlpath = (char *)urlpath,
                           .cparams = &p->cp, .dparams = &p->dp};
  return b2nd_create_ctx(&p->st, (int8_t)ndim, shape, chunks, blocks, dtype, 0, metas, nmetas);
}

/* Sleeps `us` microseconds. */
static inline void sleep_us(long us) {
  struct timespec t = {us / 1000000, (us % 1000000) * 1000};
  nanosleep(&t, NULL);
}

/* The generation counter in the lock sidecar of the frame at `path` (`path.b2lock` beside a
 * contiguous frame, `path/.b2lock` inside a sparse one; the counter is the sidecar's second
 * 8 bytes), or -1 without a sidecar. */
static inline long lock_generation(const char *path, bool contiguous) {
  char lp[512];
  snprintf(lp, sizeof lp, contiguous ? "%s.b2lock" : "%s/.b2lock", path);
  FILE *f = fopen(lp, "rb");
  if (f == NULL) return -1;
  uint8_t b[16] = {0};
  size_t n = fread(b, 1, sizeof b, f);
  fclose(f);
  uint64_t g = 0;
  if (n == 16) memcpy(&g, b + 8, 8);
  return (long)g;
}

#ifdef SLOW_FILTER_US
/* A filter that only copies, sleeping SLOW_FILTER_US microseconds a block: calls on arrays
 * using it last long enough for another process to see them. */
static int slow_forward(const uint8_t *in, uint8_t *out, int32_t n, uint8_t meta,
                        blosc2_cparams *cp, uint8_t id) {
  (void)meta, (void)cp, (void)id;
  sleep_us(SLOW_FILTER_US);
  memcpy(out, in, n);
  return 0;
}
static int slow_backward(const uint8_t *in, uint8_t *out, int32_t n, uint8_t meta,
                         blosc2_dparams *dp, uint8_t id) {
  (void)meta, (void)dp, (void)id;
  sleep_us(SLOW_FILTER_US);
  memcpy(out, in, n);
  return 0;
}
#endif

#endif
