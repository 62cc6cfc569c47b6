/* The bytedelta filter (BLOSC_FILTER_BYTEDELTA, 35) with filters_meta 0: c-blosc2 takes the
   number of byte streams from the super-chunk's typesize then. Compression and decompression
   through a super-chunk (blosc2_schunk_append_buffer, b2nd_from_cbuffer) and through bare
   contexts (no super-chunk), SHUFFLE then BYTEDELTA, int32 and other typesizes.

   Output is compared line by line with the reference's. */
#include <b2nd.h>
#include <blosc2/filters-registry.h>
#include <blosc2.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define NITEMS 10000

static uint32_t sum(const void *p, size_t n) {
  const uint8_t *b = p;
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 16777619u;
  return h;
}

static void fill(uint8_t *buf, size_t n) {
  for (size_t i = 0; i < n; i++) buf[i] = (uint8_t)((i * 7) / 5 + (i >> 9));
}

static void via_schunk(int typesize, int meta) {
  size_t nbytes = (size_t)NITEMS * (size_t)typesize;
  uint8_t *data = malloc(nbytes), *out = malloc(nbytes);
  fill(data, nbytes);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = typesize;
  cp.filters[4] = BLOSC_SHUFFLE;
  cp.filters[5] = BLOSC_FILTER_BYTEDELTA;
  cp.filters_meta[5] = (uint8_t)meta;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_storage st = {.contiguous = true, .cparams = &cp, .dparams = &dp};
  blosc2_schunk *s = blosc2_schunk_new(&st);
  int64_t n = blosc2_schunk_append_buffer(s, data, (int32_t)nbytes);
  memset(out, 0, nbytes);
  int d = n > 0 ? blosc2_schunk_decompress_chunk(s, 0, out, (int32_t)nbytes) : 0;
  printf("schunk typesize %d meta %d: append %" PRId64 " decompress %d same %d\n", typesize, meta,
         n, d, d == (int)nbytes && memcmp(out, data, nbytes) == 0);
  if (n > 0) {
    uint8_t *chunk;
    bool needs_free;
    int cs = blosc2_schunk_get_chunk(s, 0, &chunk, &needs_free);
    printf("  chunk %d bytes, filters_meta[5] %d\n", cs, cs > 32 ? chunk[29] : -1);
    /* The chunk with a bare context: no super-chunk to take the typesize from. */
    blosc2_context *dctx = blosc2_create_dctx(dp);
    memset(out, 0, nbytes);
    int d2 = blosc2_decompress_ctx(dctx, chunk, cs, out, (int32_t)nbytes);
    printf("  bare dctx decompress %d same %d\n", d2,
           d2 == (int)nbytes && memcmp(out, data, nbytes) == 0);
    int32_t item[2] = {0};
    int g = blosc2_getitem_ctx(dctx, chunk, cs, 3, 1, item, sizeof item);
    printf("  bare dctx getitem %d\n", g);
    blosc2_free_ctx(dctx);
    /* And with the super-chunk's own context. */
    g = blosc2_getitem_ctx(s->dctx, chunk, cs, 3, 1, item, sizeof item);
    printf("  schunk dctx getitem %d (%08x)\n", g, (unsigned)sum(item, (size_t)typesize));
    if (needs_free) free(chunk);
  }
  blosc2_schunk_free(s);
  free(data);
  free(out);
}

static void via_context(int typesize, int meta) {
  size_t nbytes = (size_t)NITEMS * (size_t)typesize;
  uint8_t *data = malloc(nbytes), *chunk = malloc(nbytes + BLOSC2_MAX_OVERHEAD);
  fill(data, nbytes);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = typesize;
  cp.filters[4] = BLOSC_SHUFFLE;
  cp.filters[5] = BLOSC_FILTER_BYTEDELTA;
  cp.filters_meta[5] = (uint8_t)meta;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  int cs = blosc2_compress_ctx(cctx, data, (int32_t)nbytes, chunk,
                               (int32_t)nbytes + BLOSC2_MAX_OVERHEAD);
  printf("bare cctx typesize %d meta %d: compress %d\n", typesize, meta, cs);
  blosc2_free_ctx(cctx);
  free(data);
  free(chunk);
}

static void via_b2nd(void) {
  int64_t shape[2] = {100, 100};
  int32_t chunkshape[2] = {50, 50}, blockshape[2] = {10, 10};
  int32_t *data = malloc(sizeof(int32_t) * 10000), *out = malloc(sizeof(int32_t) * 10000);
  for (int i = 0; i < 10000; i++) data[i] = i * 3 + (i % 7);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.filters[4] = BLOSC_SHUFFLE;
  cp.filters[5] = BLOSC_FILTER_BYTEDELTA;
  cp.filters_meta[5] = 0;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_storage st = {.contiguous = true, .cparams = &cp, .dparams = &dp};
  b2nd_context_t *ctx =
      b2nd_create_ctx(&st, 2, shape, chunkshape, blockshape, NULL, 0, NULL, 0);
  b2nd_array_t *arr = NULL;
  int rc = b2nd_from_cbuffer(ctx, &arr, data, sizeof(int32_t) * 10000);
  printf("b2nd_from_cbuffer %d\n", rc);
  if (rc == 0) {
    memset(out, 0, sizeof(int32_t) * 10000);
    rc = b2nd_to_cbuffer(arr, out, sizeof(int32_t) * 10000);
    printf("b2nd_to_cbuffer %d same %d\n", rc, memcmp(out, data, sizeof(int32_t) * 10000) == 0);
    b2nd_free(arr);
  }
  b2nd_free_ctx(ctx);
  free(data);
  free(out);
}

int main(void) {
  blosc2_init();
  int typesizes[] = {1, 2, 4, 8, 3};
  for (size_t i = 0; i < sizeof typesizes / sizeof typesizes[0]; i++) {
    via_schunk(typesizes[i], 0);
    via_context(typesizes[i], 0);
  }
  via_schunk(4, 4);
  via_schunk(4, 2);
  via_context(4, 4);
  via_b2nd();
  blosc2_destroy();
  printf("bytedelta_meta0: %d checks, %d failures\n", checks, failures);
  return failures != 0;
}
