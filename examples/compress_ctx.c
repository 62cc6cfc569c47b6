/* Compress and decompress a buffer with explicit contexts (thread-safe, no global state). */
#include <blosc2.h>
#include <stdio.h>
#include <string.h>

#define N 100000

int main(void) {
  static int32_t data[N], back[N];
  static uint8_t packed[N * sizeof(int32_t) + BLOSC2_MAX_OVERHEAD];
  for (int i = 0; i < N; i++) data[i] = i / 10;
  blosc2_init();

  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = sizeof(int32_t);
  cparams.compcode = BLOSC_ZSTD;
  cparams.clevel = 5;
  cparams.nthreads = 2;
  blosc2_context *cctx = blosc2_create_cctx(cparams);
  int csize = blosc2_compress_ctx(cctx, data, sizeof(data), packed, sizeof(packed));
  blosc2_free_ctx(cctx);
  if (csize <= 0) { fprintf(stderr, "compression failed: %d\n", csize); return 1; }

  blosc2_dparams dparams = BLOSC2_DPARAMS_DEFAULTS;
  dparams.nthreads = 2;
  blosc2_context *dctx = blosc2_create_dctx(dparams);
  int dsize = blosc2_decompress_ctx(dctx, packed, csize, back, sizeof(back));
  blosc2_free_ctx(dctx);
  if (dsize != (int)sizeof(data) || memcmp(data, back, sizeof(data)) != 0) {
    fprintf(stderr, "round trip failed: %d\n", dsize);
    return 1;
  }
  printf("compress_ctx: %d -> %d bytes, round trip ok\n", (int)sizeof(data), csize);
  blosc2_destroy();
  return 0;
}
