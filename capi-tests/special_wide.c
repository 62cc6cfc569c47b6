/* Special-value chunks and b2nd arrays side by side with c-blosc2 3.3.5 (rblosc2 issue 21,
 * items B, G, A'):
 * - blosc2_chunk_zeros / _uninit / _nans / _repeatval with typesizes above 255 (what the header
 *   says: typesize byte, flags, blocksize), the chunks decompressed, and b2nd_empty / zeros /
 *   full / from_cbuffer of such wide items (fixed-width strings, structured dtypes);
 * - with an argument (not fixed in rblosc2 yet, so not run by run.sh): b2nd_from_cbuffer with
 *   ZFP and BLOSC_ALWAYS_SPLIT (c-blosc2 stores the chunks uncompressed), and chunk reads
 *   (get_chunk, get_lazychunk, decompress_chunk) on the super-chunk of a b2nd view.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <b2nd.h>
#include <blosc2.h>
#include <blosc2/codecs-registry.h>
#include "check.h"
#include "fnv.h"

static void print_header(const char *label, int rc, const uint8_t *c) {
  printf("  %s -> %d header:", label, rc);
  if (rc >= BLOSC_EXTENDED_HEADER_LENGTH)
    for (int i = 0; i < BLOSC_EXTENDED_HEADER_LENGTH; i++) printf(" %02x", c[i]);
  printf("\n");
}

/* Decompresses a chunk and prints the result's size and checksum. */
static void decode(const char *label, const uint8_t *chunk, int32_t cbytes, int32_t nbytes) {
  uint8_t *out = malloc(nbytes > 0 ? nbytes : 1);
  memset(out, 0xa5, nbytes);
  int rc = blosc2_decompress(chunk, cbytes, out, nbytes);
  int32_t nb = 0, cb = 0, bs = 0;
  int rc2 = blosc2_cbuffer_sizes(chunk, &nb, &cb, &bs);
  size_t ts = 0;
  int flags = 0;
  blosc1_cbuffer_metainfo(chunk, &ts, &flags);
  printf("    %s: decompress -> %d checksum %016llx sizes -> %d nbytes=%d cbytes=%d blocksize=%d "
         "metainfo typesize=%zu flags=%d\n",
         label, rc, rc > 0 ? (unsigned long long)fnv(out, rc) : 0ULL, rc2, nb, cb, bs, ts, flags);
  /* Items 3..5 through getitem. */
  uint8_t item[3 * 1024];
  int gi = blosc2_getitem(chunk, cbytes, 3, 2, item, sizeof item);
  printf("    getitem(3, 2) -> %d checksum %016llx\n", gi,
         gi > 0 ? (unsigned long long)fnv(item, gi) : 0ULL);
  free(out);
}

static void wide_special_chunks(void) {
  printf("special chunks of wide items\n");
  int32_t typesizes[] = {255, 256, 257, 1000, 4096, 65536};
  for (size_t t = 0; t < sizeof typesizes / sizeof typesizes[0]; t++) {
    int32_t ts = typesizes[t];
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = ts;
    int32_t nbytes = ts * 10;
    printf(" typesize %d, %d bytes\n", ts, nbytes);
    uint8_t *chunk = malloc(BLOSC_EXTENDED_HEADER_LENGTH + ts);
    uint8_t *value = malloc(ts);
    for (int32_t i = 0; i < ts; i++) value[i] = (uint8_t)(i * 7 + 1);
    int rc = blosc2_chunk_zeros(cp, nbytes, chunk, BLOSC_EXTENDED_HEADER_LENGTH);
    print_header("zeros", rc, chunk);
    if (rc > 0) decode("zeros", chunk, rc, nbytes);
    rc = blosc2_chunk_uninit(cp, nbytes, chunk, BLOSC_EXTENDED_HEADER_LENGTH);
    print_header("uninit", rc, chunk);
    rc = blosc2_chunk_nans(cp, nbytes, chunk, BLOSC_EXTENDED_HEADER_LENGTH);
    print_header("nans", rc, chunk);
    rc = blosc2_chunk_repeatval(cp, nbytes, chunk, BLOSC_EXTENDED_HEADER_LENGTH + ts, value);
    print_header("repeatval", rc, chunk);
    if (rc > 0) decode("repeatval", chunk, rc, nbytes);
    rc = blosc2_chunk_repeatval(cp, nbytes, chunk, BLOSC_EXTENDED_HEADER_LENGTH + ts - 1, value);
    printf("  repeatval, destsize one short -> %d\n", rc);
    rc = blosc2_chunk_repeatval(cp, nbytes + 1, chunk, BLOSC_EXTENDED_HEADER_LENGTH + ts, value);
    printf("  repeatval, nbytes not a multiple -> %d\n", rc);
    /* A regular compression of such items, for comparison. */
    uint8_t *src = malloc(nbytes);
    for (int32_t i = 0; i < nbytes; i++) src[i] = (uint8_t)(i % 13);
    uint8_t *dst = malloc(nbytes + BLOSC2_MAX_OVERHEAD);
    blosc2_context *cctx = blosc2_create_cctx(cp);
    rc = blosc2_compress_ctx(cctx, src, nbytes, dst, nbytes + BLOSC2_MAX_OVERHEAD);
    print_header("compress_ctx", rc, dst);
    if (rc > 0) decode("compressed", dst, rc, nbytes);
    blosc2_free_ctx(cctx);
    free(src);
    free(dst);
    free(chunk);
    free(value);
  }
  /* The largest typesize c-blosc2 takes (BLOSC2_MAXBLOCKSIZE) and one more, one item. */
  int32_t big[2] = {536866816, 536866817};
  for (int k = 0; k < 2; k++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = big[k];
    uint8_t chunk[BLOSC_EXTENDED_HEADER_LENGTH];
    int rc = blosc2_chunk_zeros(cp, big[k], chunk, sizeof chunk);
    print_header("zeros of one item", rc, chunk);
    printf("   (typesize %d)\n", big[k]);
  }
}

static void wide_arrays(void) {
  printf("b2nd arrays of wide items\n");
  int32_t typesizes[] = {255, 256, 257, 600};
  for (size_t t = 0; t < sizeof typesizes / sizeof typesizes[0]; t++) {
    int32_t ts = typesizes[t];
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = ts;
    cp.nthreads = 1;
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    blosc2_storage st = {.cparams = &cp, .dparams = &dp};
    int64_t shape[2] = {5, 7};
    int32_t chunks[2] = {3, 4}, blocks[2] = {2, 2};
    char dtype[16];
    snprintf(dtype, sizeof dtype, "|S%d", ts);
    b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, shape, chunks, blocks, dtype, 0, NULL, 0);
    int64_t n = 35 * (int64_t)ts;
    uint8_t *buf = malloc(n);
    uint8_t *value = malloc(ts);
    for (int32_t i = 0; i < ts; i++) value[i] = (uint8_t)(i + 3);
    printf(" typesize %d\n", ts);
    const char *names[] = {"empty", "zeros", "full", "from_cbuffer"};
    for (int k = 0; k < 4; k++) {
      b2nd_array_t *a = NULL;
      int rc;
      if (k == 0) rc = b2nd_empty(ctx, &a);
      else if (k == 1) rc = b2nd_zeros(ctx, &a);
      else if (k == 2) rc = b2nd_full(ctx, &a, value);
      else {
        for (int64_t i = 0; i < n; i++) buf[i] = (uint8_t)(i % 251);
        rc = b2nd_from_cbuffer(ctx, &a, buf, n);
      }
      printf("  %s -> %d", names[k], rc);
      CHECK(rc == 0, "%s typesize %d: %d", names[k], ts, rc);
      if (rc == 0) {
        memset(buf, 0x5a, n);
        rc = b2nd_to_cbuffer(a, buf, n);
        /* (Not sc->cbytes: c-blosc2 3.3.5 counts the zero chunks b2nd_full replaces.) */
        printf(" to_cbuffer -> %d checksum %016llx nchunks=%lld", rc,
               k == 0 ? 0ULL : (unsigned long long)fnv(buf, n), (long long)a->sc->nchunks);
        /* The first chunk's header. */
        uint8_t *chunk;
        bool needs_free;
        int cb = blosc2_schunk_get_chunk(a->sc, 0, &chunk, &needs_free);
        if (cb >= BLOSC_EXTENDED_HEADER_LENGTH) {
          printf("\n   chunk 0 (%d bytes) header:", cb);
          for (int i = 0; i < BLOSC_EXTENDED_HEADER_LENGTH; i++) printf(" %02x", chunk[i]);
        }
        if (needs_free) free(chunk);
        uint8_t item[600];
        int64_t st0[2] = {4, 6}, sp0[2] = {5, 7}, sh0[2] = {1, 1};
        rc = b2nd_get_slice_cbuffer(a, st0, sp0, item, sh0, ts);
        printf("\n   last item -> %d checksum %016llx", rc,
               k == 0 ? 0ULL : (unsigned long long)fnv(item, ts));
        b2nd_free(a);
      }
      printf("\n");
    }
    free(buf);
    free(value);
    b2nd_free_ctx(ctx);
  }
}

static void zfp_always_split(void) {
  printf("ZFP with BLOSC_ALWAYS_SPLIT\n");
  int codecs[2] = {BLOSC_CODEC_ZFP_FIXED_RATE, BLOSC_CODEC_ZFP_FIXED_ACCURACY};
  int metas[2] = {37, -10};
  for (int k = 0; k < 2; k++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 8;
    cp.nthreads = 1;
    cp.compcode = codecs[k];
    cp.compcode_meta = (uint8_t)metas[k];
    cp.splitmode = BLOSC_ALWAYS_SPLIT;
    for (int i = 0; i < BLOSC2_MAX_FILTERS; i++) cp.filters[i] = BLOSC_NOFILTER;
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    blosc2_storage st = {.cparams = &cp, .dparams = &dp};
    int64_t shape[2] = {200, 300};
    int32_t chunks[2] = {100, 150}, blocks[2] = {50, 50};
    b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, shape, chunks, blocks, "<f8", 0, NULL, 0);
    int64_t n = 200 * 300;
    double *x = malloc(n * 8);
    for (int64_t i = 0; i < n; i++) x[i] = (double)(i % 977) * 0.25 - 40.0;
    b2nd_array_t *a = NULL;
    int rc = b2nd_from_cbuffer(ctx, &a, x, n * 8);
    printf(" codec %d: from_cbuffer -> %d", codecs[k], rc);
    CHECK(rc == 0, "from_cbuffer %d", rc);
    if (rc == 0) {
      printf(" nbytes=%lld cbytes=%lld\n", (long long)a->sc->nbytes, (long long)a->sc->cbytes);
      for (int64_t c = 0; c < a->sc->nchunks; c++) {
        uint8_t *chunk;
        bool needs_free;
        int cb = blosc2_schunk_get_chunk(a->sc, c, &chunk, &needs_free);
        printf("  chunk %lld: %d bytes flags %02x", (long long)c, cb, cb > 2 ? chunk[2] : 0);
        if (needs_free) free(chunk);
        double *out = malloc(a->sc->chunksize);
        int d = blosc2_schunk_decompress_chunk(a->sc, c, out, a->sc->chunksize);
        printf(" decompress -> %d checksum %016llx\n", d,
               d > 0 ? (unsigned long long)fnv(out, d) : 0ULL);
        free(out);
      }
      memset(x, 0, n * 8);
      rc = b2nd_to_cbuffer(a, x, n * 8);
      printf("  to_cbuffer -> %d checksum %016llx\n", rc, (unsigned long long)fnv(x, n * 8));
      b2nd_free(a);
    } else {
      printf("\n");
    }
    free(x);
    b2nd_free_ctx(ctx);
  }
}

static void view_chunks(void) {
  printf("chunk reads on a view\n");
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.nthreads = 1;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_storage st = {.cparams = &cp, .dparams = &dp};
  int64_t shape[2] = {4, 6};
  int32_t chunks[2] = {2, 3}, blocks[2] = {1, 3};
  b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, shape, chunks, blocks, "<i4", 0, NULL, 0);
  int32_t model[24];
  for (int i = 0; i < 24; i++) model[i] = i * 5 - 7;
  b2nd_array_t *a = NULL, *v = NULL, *sq = NULL;
  int rc = b2nd_from_cbuffer(ctx, &a, model, sizeof model);
  printf("  from_cbuffer -> %d\n", rc);
  bool axis[3] = {true, false, false};
  rc = b2nd_expand_dims(a, &v, axis, 3);
  printf("  expand_dims -> %d\n", rc);
  rc = b2nd_squeeze(v, &sq);
  printf("  squeeze of the view -> %d\n", rc);
  b2nd_array_t *arrays[3] = {a, v, sq};
  const char *names[3] = {"base", "expanded view", "squeezed view"};
  for (int k = 0; k < 3; k++) {
    blosc2_schunk *sc = arrays[k]->sc;
    printf("  %s: nchunks=%lld\n", names[k], (long long)sc->nchunks);
    for (int64_t c = 0; c < sc->nchunks; c++) {
      uint8_t *chunk;
      bool needs_free;
      int cb = blosc2_schunk_get_chunk(sc, c, &chunk, &needs_free);
      uint64_t h = cb > 0 ? fnv(chunk, cb) : 0;
      if (cb > 0 && needs_free) free(chunk);
      int lb = blosc2_schunk_get_lazychunk(sc, c, &chunk, &needs_free);
      if (lb > 0 && needs_free) free(chunk);
      int32_t out[6] = {0};
      int d = blosc2_schunk_decompress_chunk(sc, c, out, sizeof out);
      printf("   chunk %lld: get_chunk -> %d %016llx get_lazychunk -> %d decompress -> %d "
             "%d %d %d %d %d %d\n",
             (long long)c, cb, (unsigned long long)h, lb, d, out[0], out[1], out[2], out[3],
             out[4], out[5]);
    }
    uint8_t *chunk;
    bool needs_free;
    rc = blosc2_schunk_get_chunk(sc, sc->nchunks, &chunk, &needs_free);
    printf("   chunk past the end: get_chunk -> %d\n", rc);
  }
  b2nd_free(sq);
  b2nd_free(v);
  b2nd_free(a);
  b2nd_free_ctx(ctx);
}

int main(int argc, char **argv) {
  (void)argv;
  blosc2_init();
  wide_special_chunks();
  wide_arrays();
  /* ZFP with BLOSC_ALWAYS_SPLIT and chunk reads on a view (issue 21, G and A') differ on
   * rblosc2 still: run with an argument to see them. */
  if (argc > 1) {
    zfp_always_split();
    view_chunks();
  }
  blosc2_destroy();
  printf("checks: %d, failures: %d\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
