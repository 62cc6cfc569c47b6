/* The filters c-blosc2 3.3.5 registers at init, side by side with the reference.
 *
 * int_trunc (id 36): 2-D and 3-D b2nd arrays of typesizes 1, 2, 4 and 8 are compressed with it
 * (alone and before SHUFFLE), read back and compared with the masked input computed here; the
 * checksums of the data read back and of the chunks compressed with blosc2_compress_ctx are
 * printed, so run.sh's diff shows that both libraries write the same chunk bytes (and so read
 * each other's; chunks whose size is not a multiple of the typesize have unspecified tail bytes
 * in c-blosc2 and are only decompressed). Settings the reference refuses print their error codes.
 *
 * bytedelta_buggy (id 34, still the encoder c-blosc2 3.3.5 registers under that id): the same
 * arrays and chunks, lossless, with and without SHUFFLE before it.
 *
 * ndcell (32) and ndmean (33) need a b2nd array: see plugin_interop.c.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <b2nd.h>
#include <blosc2.h>
#include <blosc2/filters-registry.h>
#include "check.h"
#include "fnv.h"

/* Bytes whose high bits follow a slow ramp and whose low 3 bits are pseudo-random, the same on
 * every run: compressible once truncated, so chunks are not stored raw (a raw chunk keeps the
 * untruncated input in both libraries). */
static void fill(uint8_t *p, int64_t n, uint32_t seed) {
  uint32_t x = seed * 2654435761u + 1;
  for (int64_t i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    p[i] = (uint8_t)(((i / 64) << 3) | (x >> 29));
  }
}

/* Items of a smooth integer sequence (little-endian) with a little noise, the same on every run:
 * bytedelta turns them into small, repeating differences that compress. */
static void fill_smooth(uint8_t *p, int64_t n, int typesize, uint32_t seed) {
  uint32_t x = seed * 2654435761u + 1;
  for (int64_t i = 0; i < n; i++) {
    int64_t k = i / typesize;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    uint64_t v = (uint64_t)k * 37 + (((uint64_t)k * k) >> 9) + ((x >> 28) == 0);
    p[i] = (uint8_t)(v >> (8 * (i % typesize)));
  }
}

/* What int_trunc leaves of little-endian unsigned integers: `zeroed` low bits cleared. */
static void model_trunc(uint8_t *p, int64_t n, int typesize, int zeroed) {
  for (int64_t i = 0; i + typesize <= n; i += typesize) {
    for (int b = 0; b < typesize; b++) {
      int low = b * 8;
      if (zeroed >= low + 8) {
        p[i + b] = 0;
      } else if (zeroed > low) {
        p[i + b] &= (uint8_t)(0xff << (zeroed - low));
      }
    }
  }
}

static blosc2_cparams cparams_with(uint8_t filter, int typesize, int8_t meta, int shuffle) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = typesize;
  cp.compcode = BLOSC_BLOSCLZ;
  cp.clevel = 5;
  cp.nthreads = 1;
  for (int i = 0; i < BLOSC2_MAX_FILTERS; i++) {
    cp.filters[i] = 0;
    cp.filters_meta[i] = 0;
  }
  cp.filters[4] = filter;
  cp.filters_meta[4] = (uint8_t)meta;
  /* int_trunc goes before SHUFFLE, bytedelta after it, as their users place them. */
  if (shuffle && filter == BLOSC_FILTER_INT_TRUNC) cp.filters[5] = BLOSC_SHUFFLE;
  if (shuffle && filter != BLOSC_FILTER_INT_TRUNC) cp.filters[3] = BLOSC_SHUFFLE;
  return cp;
}

static const char *name(uint8_t filter) {
  return filter == BLOSC_FILTER_INT_TRUNC ? "int_trunc" : "bytedelta_buggy";
}

static void b2nd_case(uint8_t filter, int ndim, int typesize, int8_t meta, int shuffle) {
  int64_t shape[3] = {37, 23, 11};
  int32_t chunkshape[3] = {16, 12, 6};
  int32_t blockshape[3] = {8, 5, 4};
  int64_t nitems = 1;
  for (int i = 0; i < ndim; i++) nitems *= shape[i];
  int64_t nbytes = nitems * typesize;
  int zeroed = meta >= 0 ? typesize * 8 - meta : -meta;

  uint8_t *src = malloc(nbytes);
  uint8_t *expected = malloc(nbytes);
  uint8_t *back = malloc(nbytes);
  uint32_t seed = (uint32_t)(ndim * 100 + typesize * 10 + shuffle);
  if (filter == BLOSC_FILTER_INT_TRUNC) {
    fill(src, nbytes, seed);
  } else {
    fill_smooth(src, nbytes, typesize, seed);
  }
  memcpy(expected, src, nbytes);
  if (filter == BLOSC_FILTER_INT_TRUNC) model_trunc(expected, nbytes, typesize, zeroed);

  blosc2_cparams cp = cparams_with(filter, typesize, meta, shuffle);
  blosc2_storage storage = {.contiguous = true, .cparams = &cp};
  b2nd_context_t *ctx = b2nd_create_ctx(&storage, (int8_t)ndim, shape, chunkshape, blockshape,
                                        NULL, 0, NULL, 0);
  b2nd_array_t *arr = NULL;
  int rc = b2nd_from_cbuffer(ctx, &arr, src, nbytes);
  printf("%s b2nd ndim %d typesize %d meta %d shuffle %d: from_cbuffer -> %d", name(filter),
         ndim, typesize, meta, shuffle, rc);
  if (rc >= 0) {
    rc = b2nd_to_cbuffer(arr, back, nbytes);
    printf(", to_cbuffer -> %d, data %016llx, nbytes %lld", rc,
           (unsigned long long)fnv(back, nbytes), (long long)arr->sc->nbytes);
    /* Chunks (or blocks) too small to compress are stored raw, untruncated, by both libraries. */
    int64_t bad = 0;
    for (int64_t i = 0; i < nbytes; i++) bad += back[i] != expected[i] && back[i] != src[i];
    CHECK(rc >= 0 && bad == 0, "ndim %d typesize %d meta %d: %lld bytes", ndim, typesize, meta,
          (long long)bad);
    b2nd_free(arr);
  }
  printf("\n");
  b2nd_free_ctx(ctx);
  free(src);
  free(expected);
  free(back);
}

/* One chunk through blosc2_compress_ctx / blosc2_decompress_ctx: chunk checksum and result. */
static void chunk_case(uint8_t filter, int typesize, int8_t meta, int shuffle, int32_t nbytes) {
  uint8_t *src = malloc(nbytes);
  uint8_t *back = malloc(nbytes);
  int32_t cap = nbytes + BLOSC2_MAX_OVERHEAD;
  uint8_t *chunk = malloc(cap);
  if (filter == BLOSC_FILTER_INT_TRUNC) {
    fill(src, nbytes, (uint32_t)(typesize * 7 + nbytes));
  } else {
    fill_smooth(src, nbytes, typesize, (uint32_t)(typesize * 7 + nbytes));
  }
  blosc2_cparams cp = cparams_with(filter, typesize, meta, shuffle);
  blosc2_context *cctx = blosc2_create_cctx(cp);
  int csize = blosc2_compress_ctx(cctx, src, nbytes, chunk, cap);
  printf("%s chunk typesize %d meta %d shuffle %d nbytes %d: compress -> %s", name(filter),
         typesize, meta, shuffle, nbytes, csize > 0 ? "ok" : "error");
  if (csize <= 0 || (nbytes % typesize == 0 && (filter == BLOSC_FILTER_INT_TRUNC || meta == typesize)))
    printf(" %d", csize);
  if (csize > 0) {
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    blosc2_context *dctx = blosc2_create_dctx(dp);
    int dsize = blosc2_decompress_ctx(dctx, chunk, csize, back, nbytes);
    int zeroed = meta >= 0 ? typesize * 8 - meta : -meta;
    /* A chunk stored raw (BLOSC_MEMCPYED) keeps the untruncated input. */
    int raw = (chunk[2] & BLOSC_MEMCPYED) != 0;
    printf(", raw %d", raw);
    if (!raw && filter == BLOSC_FILTER_INT_TRUNC) model_trunc(src, nbytes - nbytes % typesize, typesize, zeroed);
    int body = nbytes - nbytes % typesize;
    /* c-blosc2 leaves the bytes after the last whole item (or bytedelta stream) of a block
     * unwritten (stale scratch memory, which rblosc2 fills with the input's bytes), so only
     * chunks without such a tail are compared. */
    int tail = nbytes % typesize != 0 || (filter != BLOSC_FILTER_INT_TRUNC && meta != typesize);
    if (!tail) {
      printf(", chunk %016llx", (unsigned long long)fnv(chunk, csize));
    } else {
      printf(", csize %s", csize >= nbytes ? "raw" : "compressed");
    }
    printf(", decompress -> %d, data %016llx", dsize, (unsigned long long)fnv(back, body));
    CHECK(dsize == nbytes && memcmp(back, src, body) == 0, "chunk typesize %d meta %d", typesize,
          meta);
    blosc2_free_ctx(dctx);
  }
  printf("\n");
  blosc2_free_ctx(cctx);
  free(src);
  free(back);
  free(chunk);
}

int main(void) {
  blosc2_init();
  const uint8_t T = BLOSC_FILTER_INT_TRUNC, B = BLOSC_FILTER_BYTEDELTA_BUGGY;
  const int typesizes[4] = {1, 2, 4, 8};
  for (int t = 0; t < 4; t++) {
    int ts = typesizes[t];
    int8_t metas[3] = {(int8_t)(ts * 8 - 3), -3, 1};
    for (int ndim = 2; ndim <= 3; ndim++) {
      for (int m = 0; m < 3; m++) {
        for (int shuffle = 0; shuffle <= 1; shuffle++) {
          b2nd_case(T, ndim, ts, metas[m], shuffle);
        }
      }
      /* bytedelta_buggy's streams are the typesize's bytes (filters_meta = typesize). */
      for (int shuffle = 0; shuffle <= 1; shuffle++) b2nd_case(B, ndim, ts, (int8_t)ts, shuffle);
    }
    for (int m = 0; m < 3; m++) {
      chunk_case(T, ts, metas[m], 1, 40000);
      chunk_case(T, ts, metas[m], 0, 40000 + ts / 2);
    }
    /* Stream lengths that are and are not multiples of 16 (where the old kernel restarts). */
    chunk_case(B, ts, (int8_t)ts, 1, 40000);
    chunk_case(B, ts, (int8_t)ts, 1, ts * 2507);
    chunk_case(B, ts, (int8_t)ts, 0, ts * 1001);
  }
  chunk_case(B, 4, 3, 1, 3000);
  chunk_case(B, 2, 2, 1, 38);
  /* Settings c-blosc2 refuses: the whole element zeroed, a width beyond it, other typesizes. */
  chunk_case(T, 1, 0, 0, 1000);
  chunk_case(T, 2, -16, 0, 1000);
  chunk_case(T, 4, 40, 0, 1000);
  chunk_case(T, 3, 5, 0, 999);
  chunk_case(T, 16, 5, 0, 1600);

  printf("%d checks, %d failures\n", checks, failures);
  blosc2_destroy();
  return failures != 0;
}
