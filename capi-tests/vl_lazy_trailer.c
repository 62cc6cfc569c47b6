/* blosc2_vldecompress_block_ctx on lazy VL-block chunks whose trailer was altered, side by side
   with c-blosc2 3.3.5 (rblosc2 issue 31). A lazy chunk (blosc2_schunk_get_lazychunk of a
   super-chunk in a cframe file or an sframe directory) is the chunk's header and block starts
   followed by a trailer: the chunk's number, its position in the frame and each block's
   compressed size. c-blosc2 reads a block from the frame through that trailer and refuses a
   trailer that cannot describe the chunk: a block size too small to hold the block's 4-byte
   size prefix (the case c-blosc2's own test_vlblocks checks), one far over any block, a
   negative position, block starts out of order, a trailer cut short. Each altered copy is
   decoded block by block with the super-chunk's own dctx; the return codes (and the first
   bytes of what decodes) are printed.

   Output is compared line by line with the reference's. */
#include <blosc2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#define NBLOCKS 3

static const char *texts[NBLOCKS] = {
    "the first block, short",
    "a second block that is somewhat longer than the first one, repeated: "
    "a second block that is somewhat longer than the first one",
    "third",
};

static char dir[64];

static void put32(uint8_t *p, int32_t v) { memcpy(p, &v, sizeof v); }
static int32_t get32(const uint8_t *p) {
  int32_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

/* Offsets in a lazy chunk of NBLOCKS blocks. */
#define STARTS_AT BLOSC_EXTENDED_HEADER_LENGTH
#define TRAILER_AT (STARTS_AT + 4 * NBLOCKS)
#define POSITION_AT (TRAILER_AT + 4)
#define CSIZES_AT (TRAILER_AT + 12)

static void decode_all(const char *label, blosc2_schunk *s, const uint8_t *lazy, int32_t len) {
  printf("  %-22s", label);
  for (int b = -1; b <= NBLOCKS; b++) {
    uint8_t *block = NULL;
    int32_t bsize = -1;
    int rc = blosc2_vldecompress_block_ctx(s->dctx, lazy, len, b, &block, &bsize);
    printf(" [%d]=%d", b, rc);
    if (rc > 0) {
      CHECK(b >= 0 && b < NBLOCKS && bsize == (int32_t)strlen(texts[b]) &&
                memcmp(block, texts[b], (size_t)bsize) == 0,
            "%s: block %d decodes to its text", label, b);
      free(block);
    }
  }
  printf("\n");
}

static void one_kind(int contiguous) {
  char path[128];
  snprintf(path, sizeof path, "%s/vl.%s", dir, contiguous ? "b2frame" : "b2sframe");
  blosc2_remove_urlpath(path);
  printf("%s:\n", contiguous ? "cframe" : "sframe");

  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 1;
  cp.nthreads = 1;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = 1;
  blosc2_storage st = {.contiguous = contiguous, .urlpath = path, .cparams = &cp, .dparams = &dp};
  blosc2_schunk *s = blosc2_schunk_new(&st);
  CHECK(s != NULL, "schunk_new");
  if (s == NULL) return;

  blosc2_context *cctx = blosc2_create_cctx(cp);
  const void *srcs[NBLOCKS];
  int32_t sizes[NBLOCKS];
  for (int i = 0; i < NBLOCKS; i++) {
    srcs[i] = texts[i];
    sizes[i] = (int32_t)strlen(texts[i]);
  }
  uint8_t chunk[1024];
  int cbytes = blosc2_vlcompress_ctx(cctx, srcs, sizes, NBLOCKS, chunk, sizeof chunk);
  blosc2_free_ctx(cctx);
  CHECK(cbytes > 0, "vlcompress (%d)", cbytes);
  /* Two chunks, so the one read is not at the frame's start. */
  int64_t n1 = blosc2_schunk_append_chunk(s, chunk, true);
  int64_t n2 = blosc2_schunk_append_chunk(s, chunk, true);
  CHECK(n1 == 1 && n2 == 2, "appends (%lld %lld)", (long long)n1, (long long)n2);

  uint8_t *lazy = NULL;
  bool needs_free = false;
  int lbytes = blosc2_schunk_get_lazychunk(s, 1, &lazy, &needs_free);
  printf("  lazy chunk: %d bytes (expected %d)\n", lbytes, CSIZES_AT + 4 * NBLOCKS);
  CHECK(lbytes == CSIZES_AT + 4 * NBLOCKS, "lazy chunk length");
  if (lbytes != CSIZES_AT + 4 * NBLOCKS) {
    if (needs_free) free(lazy);
    blosc2_schunk_free(s);
    return;
  }
  printf("  trailer csizes: %d %d %d\n", get32(lazy + CSIZES_AT), get32(lazy + CSIZES_AT + 4),
         get32(lazy + CSIZES_AT + 8));

  uint8_t copy[256];
  char label[64];
  decode_all("intact", s, lazy, lbytes);

  /* The first block's size in the trailer. */
  int32_t span0 = get32(lazy + CSIZES_AT);
  const int32_t csizes[] = {-7, 0, 1, 3, 4, 5, span0 - 1, span0 + 1, span0 + 4, 1 << 30};
  for (size_t k = 0; k < sizeof csizes / sizeof csizes[0]; k++) {
    memcpy(copy, lazy, (size_t)lbytes);
    put32(copy + CSIZES_AT, csizes[k]);
    snprintf(label, sizeof label, "csize[0]=%d", csizes[k]);
    decode_all(label, s, copy, lbytes);
  }
  /* A block size of 1 must be refused as a bad header (c-blosc2's test_vlblocks). */
  memcpy(copy, lazy, (size_t)lbytes);
  put32(copy + CSIZES_AT, 1);
  uint8_t *block = NULL;
  int32_t bsize = -1;
  int rc = blosc2_vldecompress_block_ctx(s->dctx, copy, lbytes, 0, &block, &bsize);
  CHECK(rc == BLOSC2_ERROR_INVALID_HEADER, "csize 1 -> %d", rc);
  if (rc > 0) free(block);

  /* The last block's size. */
  memcpy(copy, lazy, (size_t)lbytes);
  put32(copy + CSIZES_AT + 8, 2);
  decode_all("csize[2]=2", s, copy, lbytes);

  /* A negative position of the chunk in its cframe file. (An sframe's chunk file is named by
     the trailer's chunk number in c-blosc2, by the position here: the two are equal in every
     lazy chunk either library makes, but not when only one is altered.) */
  if (contiguous) {
    memcpy(copy, lazy, (size_t)lbytes);
    int64_t minus = -64;
    memcpy(copy + POSITION_AT, &minus, sizeof minus);
    decode_all("position=-64", s, copy, lbytes);
  }

  /* Block starts swapped, or inside the block starts. */
  memcpy(copy, lazy, (size_t)lbytes);
  int32_t b0 = get32(copy + STARTS_AT), b1 = get32(copy + STARTS_AT + 4);
  put32(copy + STARTS_AT, b1);
  put32(copy + STARTS_AT + 4, b0);
  decode_all("starts swapped", s, copy, lbytes);
  memcpy(copy, lazy, (size_t)lbytes);
  put32(copy + STARTS_AT, STARTS_AT);
  decode_all("start[0] in starts", s, copy, lbytes);

  /* The trailer cut short: without its last size, without all sizes. */
  decode_all("srcsize-1", s, lazy, lbytes - 1);
  decode_all("srcsize=trailer+12", s, lazy, CSIZES_AT);

  if (needs_free) free(lazy);
  blosc2_schunk_free(s);
  blosc2_remove_urlpath(path);
}

int main(void) {
  blosc2_init();
  snprintf(dir, sizeof dir, "/tmp/rblosc2-vl-lazy-XXXXXX");
  if (mkdtemp(dir) == NULL) return 1;
  one_kind(1);
  one_kind(0);
  rmdir(dir);
  blosc2_destroy();
  printf("checks: %d, failures: %d\n", checks, failures);
  return failures != 0;
}
