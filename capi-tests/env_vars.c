/* The BLOSC_* environment variables with valid and invalid values: for each setting, the codes
   of blosc1_compress/decompress/getitem, blosc2_compress/decompress/getitem and the
   context calls (blosc2_create_cctx/dctx then compress_ctx/decompress_ctx), with the header
   fields of what was compressed (typesize, flags, blocksize) and whether it round-trips. The
   variables are set with setenv in this process, one at a time.

   Output is compared line by line with the reference's. */
#include <blosc2.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define NITEMS 20000

static int32_t data[NITEMS];
static int32_t out[NITEMS];
static uint8_t chunk[sizeof data + BLOSC2_MAX_OVERHEAD];
static uint8_t good[sizeof data + BLOSC2_MAX_OVERHEAD];

static void describe(const char *what, int rc, const uint8_t *c) {
  if (rc > 0) {
    printf("  %s %s: typesize %d flags 0x%02x blocksize %d\n", what, rc > 0 ? "ok" : "-", c[3],
           c[2], c[8] | c[9] << 8 | c[10] << 16 | c[11] << 24);
  } else {
    printf("  %s %d\n", what, rc);
  }
}

static int same(int rc) { return rc == (int)sizeof data && memcmp(out, data, sizeof data) == 0; }

static void probe(const char *var, const char *value) {
  if (value) setenv(var, value, 1);
  printf("%s=%s\n", var, value ? value : "(unset)");
  int rc = blosc1_compress(5, BLOSC_SHUFFLE, 4, sizeof data, data, chunk, sizeof chunk);
  describe("blosc1_compress", rc, chunk);
  memset(out, 0, sizeof out);
  rc = blosc1_decompress(good, out, sizeof out);
  printf("  blosc1_decompress %d same %d\n", rc, same(rc));
  int32_t items[3] = {0};
  rc = blosc1_getitem(good, 5, 3, items);
  printf("  blosc1_getitem %d [%d %d %d]\n", rc, items[0], items[1], items[2]);
  rc = blosc2_compress(5, BLOSC_SHUFFLE, 4, data, sizeof data, chunk, sizeof chunk);
  describe("blosc2_compress", rc, chunk);
  memset(out, 0, sizeof out);
  rc = blosc2_decompress(good, sizeof good, out, sizeof out);
  printf("  blosc2_decompress %d same %d\n", rc, same(rc));
  rc = blosc2_getitem(good, sizeof good, 5, 3, items, sizeof items);
  printf("  blosc2_getitem %d [%d %d %d]\n", rc, items[0], items[1], items[2]);

  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  printf("  create_cctx %s\n", cctx ? "ok" : "NULL");
  if (cctx) {
    /* Before compressing: the context's blocksize and typesize change with a compression. */
    blosc2_cparams got;
    blosc2_ctx_get_cparams(cctx, &got);
    printf("  ctx cparams: compcode %d clevel %d typesize %d nthreads %d blocksize %d "
           "splitmode %d filters %d %d\n",
           got.compcode, got.clevel, got.typesize, got.nthreads, got.blocksize, got.splitmode,
           got.filters[4], got.filters[5]);
    rc = blosc2_compress_ctx(cctx, data, sizeof data, chunk, sizeof chunk);
    describe("compress_ctx", rc, chunk);
    blosc2_free_ctx(cctx);
  }
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  printf("  create_dctx %s\n", dctx ? "ok" : "NULL");
  if (dctx) {
    memset(out, 0, sizeof out);
    rc = blosc2_decompress_ctx(dctx, good, sizeof good, out, sizeof out);
    printf("  decompress_ctx %d same %d\n", rc, same(rc));
    blosc2_dparams got;
    blosc2_ctx_get_dparams(dctx, &got);
    printf("  ctx dparams: nthreads %d\n", got.nthreads);
    blosc2_free_ctx(dctx);
  }
  if (value) unsetenv(var);
}

int main(void) {
  blosc2_init();
  for (int i = 0; i < NITEMS; i++) data[i] = i / 3;
  int gsize = blosc1_compress(5, BLOSC_SHUFFLE, 4, sizeof data, data, good, sizeof good);
  CHECK(gsize > 0, "reference chunk %d", gsize);

  probe("BLOSC_NTHREADS", NULL);
  static const struct {
    const char *var;
    const char *values[8];
  } cases[] = {
      {"BLOSC_NTHREADS", {"-1", "0", "1", "2", "abc", "3x", "", NULL}},
      {"BLOSC_CLEVEL", {"-1", "0", "9", "10", "abc", "", NULL}},
      {"BLOSC_TYPESIZE", {"-1", "0", "8", "255", "256", "abc", NULL}},
      {"BLOSC_BLOCKSIZE", {"-1", "0", "7", "4096", "abc", NULL}},
      {"BLOSC_SHUFFLE", {"NOSHUFFLE", "BITSHUFFLE", "shuffle", "", NULL}},
      {"BLOSC_DELTA", {"0", "1", "2", "", NULL}},
      {"BLOSC_COMPRESSOR", {"lz4", "zstd", "nope", "", NULL}},
      {"BLOSC_SPLITMODE", {"ALWAYS", "NEVER", "nope", "", NULL}},
      {"BLOSC_NOLOCK", {"1", NULL}},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    for (int j = 0; cases[i].values[j] != NULL; j++) probe(cases[i].var, cases[i].values[j]);
  }
  /* BLOSC_NOLOCK (compression through a temporary context) with invalid thread counts; the
     unknown BLOSC_COMPRESSOR above left the global compressor unset. */
  blosc1_set_compressor("blosclz");
  setenv("BLOSC_NOLOCK", "1", 1);
  probe("BLOSC_NTHREADS", "-1");
  probe("BLOSC_NTHREADS", "0");
  probe("BLOSC_COMPRESSOR", "nope");
  unsetenv("BLOSC_NOLOCK");
  blosc2_destroy();
  printf("env_vars: %d checks, %d failures\n", checks, failures);
  return failures != 0;
}
