/* Set-up code several C tests share (beside check.h): sample chunks of each kind and a b2nd
 * context whose parameters outlive it. Everything is static inline, so a program that uses
 * only part of it builds without unused-function warnings. */
#ifndef RBLOSC2_CAPI_TESTS_HELPERS_H
#define RBLOSC2_CAPI_TESTS_HELPERS_H
#include <b2nd.h>
#include <blosc2.h>
#include <stdint.h>

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

#endif
