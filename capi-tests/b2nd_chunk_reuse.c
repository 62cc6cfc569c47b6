/* Side by side: where b2nd copies compressed chunks as they are instead of recompressing them.
 * b2nd_concatenate takes the second array's chunks as stored whenever they line up with the
 * result's (same chunk and block shapes, the first array ending on a chunk boundary), whatever
 * their compression; b2nd_copy into the same chunk and block shapes goes through
 * blosc2_schunk_copy, which compares typesize, codec, level, filters, block size and
 * dictionary use only (not the split mode nor the codec's meta). Printed: each resulting
 * chunk's size and digest, and the array's data digest. */
#include <b2nd.h>
#include <blosc2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fnv.h"

static int64_t shape[2] = {200, 100};
static int32_t chunkshape[2] = {50, 100}, blockshape[2] = {10, 50};

static b2nd_context_t *context(blosc2_cparams *cp, blosc2_dparams *dp, blosc2_storage *st,
                               int codec, int clevel, int split, int meta) {
  *cp = (blosc2_cparams)BLOSC2_CPARAMS_DEFAULTS;
  cp->typesize = 8;
  cp->compcode = (uint8_t)codec;
  cp->clevel = (uint8_t)clevel;
  cp->nthreads = 1;
  cp->splitmode = split;
  cp->compcode_meta = (uint8_t)meta;
  *dp = (blosc2_dparams)BLOSC2_DPARAMS_DEFAULTS;
  *st = (blosc2_storage){.contiguous = true, .cparams = cp, .dparams = dp};
  return b2nd_create_ctx(st, 2, shape, chunkshape, blockshape, NULL, 0, NULL, 0);
}

static b2nd_array_t *make(int codec, int clevel, int split, const double *data) {
  blosc2_cparams cp;
  blosc2_dparams dp;
  blosc2_storage st;
  b2nd_context_t *ctx = context(&cp, &dp, &st, codec, clevel, split, 0);
  b2nd_array_t *a = NULL;
  int rc = b2nd_from_cbuffer(ctx, &a, data, (int64_t)sizeof(double) * shape[0] * shape[1]);
  b2nd_free_ctx(ctx);
  if (rc < 0) {
    printf("from_cbuffer: %d\n", rc);
    exit(1);
  }
  return a;
}

static void dump(const char *what, int rc, b2nd_array_t *a) {
  printf("%s: rc=%d", what, rc);
  if (rc < 0) {
    printf("\n");
    return;
  }
  int64_t n = a->nitems * 8;
  uint8_t *buf = malloc((size_t)n);
  int g = b2nd_to_cbuffer(a, buf, n);
  printf(" shape=%lldx%lld nchunks=%lld cbytes=%lld data=%d/%016llx\n", (long long)a->shape[0],
         (long long)a->shape[1], (long long)a->sc->nchunks, (long long)a->sc->cbytes, g,
         (unsigned long long)fnv(buf, (size_t)n));
  free(buf);
  for (int64_t i = 0; i < a->sc->nchunks; i++) {
    uint8_t *c;
    bool needs_free;
    int len = blosc2_schunk_get_chunk(a->sc, i, &c, &needs_free);
    printf("  chunk %lld: %d %016llx\n", (long long)i, len,
           len > 0 ? (unsigned long long)fnv(c, (size_t)len) : 0ULL);
    if (needs_free) free(c);
  }
}

int main(void) {
  blosc2_init();
  double *d = malloc(sizeof(double) * 200 * 100);
  for (int i = 0; i < 200 * 100; i++) d[i] = i * 0.25 + (i % 7);

  /* Concatenation of arrays compressed differently, in place and into a copy. */
  const struct { int codec, clevel, split; } seconds[] = {
    {BLOSC_ZSTD, 3, BLOSC_FORWARD_COMPAT_SPLIT},
    {BLOSC_LZ4, 9, BLOSC_NEVER_SPLIT},
    {BLOSC_LZ4, 5, BLOSC_FORWARD_COMPAT_SPLIT},  /* the same as the first array */
  };
  for (size_t s = 0; s < sizeof seconds / sizeof seconds[0]; s++) {
    for (int copy = 0; copy <= 1; copy++) {
      b2nd_array_t *a = make(BLOSC_LZ4, 5, BLOSC_FORWARD_COMPAT_SPLIT, d);
      b2nd_array_t *b = make(seconds[s].codec, seconds[s].clevel, seconds[s].split, d);
      blosc2_cparams cp;
      blosc2_dparams dp;
      blosc2_storage st;
      b2nd_context_t *ctx = context(&cp, &dp, &st, BLOSC_BLOSCLZ, 5, BLOSC_FORWARD_COMPAT_SPLIT, 0);
      b2nd_array_t *c = NULL;
      for (int8_t axis = 0; axis < 2; axis++) {
        int rc = b2nd_concatenate(ctx, a, b, axis, copy, &c);
        char what[120];
        snprintf(what, sizeof what, "concatenate second=%zu copy=%d axis=%d", s, copy, axis);
        dump(what, rc, c);
        if (copy && rc >= 0) b2nd_free(c);
      }
      b2nd_free_ctx(ctx);
      b2nd_free(a);
      b2nd_free(b);
    }
  }

  /* Copies into the same chunk and block shapes with other parameters. */
  const struct { const char *what; int codec, clevel, split, meta; } copies[] = {
    {"same parameters", BLOSC_ZSTD, 3, BLOSC_FORWARD_COMPAT_SPLIT, 0},
    {"never split", BLOSC_ZSTD, 3, BLOSC_NEVER_SPLIT, 0},
    {"always split", BLOSC_ZSTD, 3, BLOSC_ALWAYS_SPLIT, 0},
    {"codec meta", BLOSC_ZSTD, 3, BLOSC_FORWARD_COMPAT_SPLIT, 3},
    {"other level", BLOSC_ZSTD, 5, BLOSC_FORWARD_COMPAT_SPLIT, 0},
    {"other codec", BLOSC_LZ4, 3, BLOSC_FORWARD_COMPAT_SPLIT, 0},
  };
  b2nd_array_t *src = make(BLOSC_ZSTD, 3, BLOSC_FORWARD_COMPAT_SPLIT, d);
  dump("copy source", 0, src);
  for (size_t k = 0; k < sizeof copies / sizeof copies[0]; k++) {
    blosc2_cparams cp;
    blosc2_dparams dp;
    blosc2_storage st;
    b2nd_context_t *ctx = context(&cp, &dp, &st, copies[k].codec, copies[k].clevel,
                                  copies[k].split, copies[k].meta);
    b2nd_array_t *c = NULL;
    int rc = b2nd_copy(ctx, src, &c);
    char what[120];
    snprintf(what, sizeof what, "copy %s", copies[k].what);
    dump(what, rc, c);
    if (rc >= 0) b2nd_free(c);
    b2nd_free_ctx(ctx);
  }
  b2nd_free(src);
  free(d);
  blosc2_destroy();
  printf("b2nd_chunk_reuse: done\n");
  return 0;
}
