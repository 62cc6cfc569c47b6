/* Lazy chunks (blosc2_schunk_get_lazychunk of a super-chunk in a cframe file or an sframe)
   decompressed with a context the caller creates with blosc2_create_dctx: c-blosc2 3.3.5 reads
   the blocks a lazy chunk needs through the frame of the context's dparams.schunk, so
   blosc2_decompress_ctx and blosc2_getitem_ctx work with such a context as with schunk->dctx.
   Also: a whole (non-lazy) chunk through the same context, a context without a super-chunk
   given a lazy chunk, and a context whose super-chunk is another file-backed one (the lazy
   chunk's offsets are then read in the other frame). Every codec the library has.

   Output is compared line by line with the reference's. */
#include <blosc2.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#define NITEMS 50000
#define NCHUNKS 3

static int32_t data[NCHUNKS][NITEMS];
static int32_t out[NITEMS];

static blosc2_schunk *make(const char *path, int contiguous, int compcode, int seed) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.compcode = (uint8_t)compcode;
  cp.clevel = 5;
  cp.blocksize = 16 * 1024; /* several blocks a chunk, so a lazy chunk needs reads */
  cp.nthreads = 1;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_storage st = {.contiguous = contiguous, .urlpath = (char *)path, .cparams = &cp,
                       .dparams = &dp};
  blosc2_remove_urlpath(path);
  blosc2_schunk *s = blosc2_schunk_new(&st);
  if (s == NULL) return NULL;
  for (int c = 0; c < NCHUNKS; c++) {
    for (int i = 0; i < NITEMS; i++) data[c][i] = (i / 7) * (c + 1) + seed;
    if (blosc2_schunk_append_buffer(s, data[c], sizeof data[c]) != c + 1) {
      blosc2_schunk_free(s);
      return NULL;
    }
  }
  return s;
}

static blosc2_context *dctx_for(blosc2_schunk *s) {
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = 1;
  dp.schunk = s;
  return blosc2_create_dctx(dp);
}

/* Decompresses and gets items of `chunk` (chunk number `n` of the super-chunk whose data is
   `data`) with `ctx`; prints the codes and whether the bytes are right. */
static void use(const char *tag, blosc2_context *ctx, const uint8_t *chunk, int32_t cbytes, int n,
                int expect_ok, int print_codes) {
  memset(out, 0xEE, sizeof out);
  int r = blosc2_decompress_ctx(ctx, chunk, cbytes, out, sizeof out);
  int same = r == (int)sizeof out && memcmp(out, data[n], sizeof out) == 0;
  /* Without the codes where the blocks come from another frame: what a codec makes of foreign
     bytes (an error code or some output) is not part of the contract. */
  if (!print_codes) r = 0;
  printf("  %s decompress_ctx=%d %s", tag, r, same ? "same" : "differs");
  int ok = same;
  /* Items spanning blocks 1 and 2 (4096 items a block), then the last few. */
  int starts[] = {4000, NITEMS - 10};
  int counts[] = {300, 10};
  for (int k = 0; k < 2; k++) {
    memset(out, 0xEE, sizeof out);
    int g = blosc2_getitem_ctx(ctx, chunk, cbytes, starts[k], counts[k], out, sizeof out);
    int gsame = g == counts[k] * 4 && memcmp(out, &data[n][starts[k]], (size_t)g) == 0;
    if (!print_codes) g = 0;
    printf(" getitem_ctx(%d,%d)=%d %s", starts[k], counts[k], g, gsame ? "same" : "differs");
    ok = ok && gsame;
  }
  printf("\n");
  if (expect_ok) CHECK(ok, "%s: chunk %d not read back", tag, n);
}

int main(void) {
  blosc2_init();
  char dir[64];
  snprintf(dir, sizeof dir, "/tmp/rblosc2-lazyctx-XXXXXX");
  if (mkdtemp(dir) == NULL) return 1;
  const char *kinds[] = {"cframe", "sframe"};
  const char *names[] = {"blosclz", "lz4", "lz4hc", "zlib", "zstd"};
  const int codes[] = {BLOSC_BLOSCLZ, BLOSC_LZ4, BLOSC_LZ4HC, BLOSC_ZLIB, BLOSC_ZSTD};
  for (int k = 0; k < 2; k++) {
    for (int c = 0; c < 5; c++) {
      char path[128], other_path[128];
      snprintf(path, sizeof path, "%s/a-%s.%s", dir, names[c], k ? "b2dir" : "b2frame");
      snprintf(other_path, sizeof other_path, "%s/b-%s.%s", dir, names[c],
               k ? "b2dir" : "b2frame");
      /* The other super-chunk first: `data` ends up holding the first one's chunks. */
      blosc2_schunk *other = make(other_path, k, codes[c], 1000);
      blosc2_schunk *s = make(path, k, codes[c], 0);
      CHECK(s != NULL && other != NULL, "%s %s: super-chunks", kinds[k], names[c]);
      if (s == NULL || other == NULL) continue;
      printf("%s %s\n", kinds[k], names[c]);
      blosc2_context *ctx = dctx_for(s);
      blosc2_context *plain = dctx_for(NULL);
      blosc2_context *wrong = dctx_for(other);
      /* Super-chunks in memory: without a frame, c-blosc2 refuses lazy chunks as without a
         super-chunk; with a frame in memory, it fails to open the frame's (absent) file. */
      blosc2_storage mem_storage = {.contiguous = false};
      blosc2_schunk *in_memory = blosc2_schunk_new(&mem_storage);
      blosc2_context *memory = dctx_for(in_memory);
      blosc2_storage cframe_storage = {.contiguous = true};
      blosc2_schunk *in_memory_cframe = blosc2_schunk_new(&cframe_storage);
      blosc2_context *memory_cframe = dctx_for(in_memory_cframe);
      for (int n = 0; n < NCHUNKS; n += 2) {
        uint8_t *lazy = NULL;
        bool needs_free = false;
        int lbytes = blosc2_schunk_get_lazychunk(s, n, &lazy, &needs_free);
        printf(" chunk %d lazy cbytes=%d lazy-flag=%d\n", n, lbytes,
               lbytes > 31 ? (lazy[31] & 0x08) != 0 : -1);
        if (lbytes < 0) continue;
        use("own-dctx", s->dctx, lazy, lbytes, n, 1, 1);
        use("user-dctx", ctx, lazy, lbytes, n, 1, 1);
        use("null-schunk", plain, lazy, lbytes, n, 0, 1);
        use("other-schunk", wrong, lazy, lbytes, n, 0, 0);
        use("in-memory-schunk", memory, lazy, lbytes, n, 0, 1);
        use("in-memory-cframe-schunk", memory_cframe, lazy, lbytes, n, 0, 1);
        use("in-memory-own-dctx", in_memory->dctx, lazy, lbytes, n, 0, 1);
        use("in-memory-cframe-own-dctx", in_memory_cframe->dctx, lazy, lbytes, n, 0, 1);
        if (needs_free) free(lazy);
        uint8_t *whole = NULL;
        int wbytes = blosc2_schunk_get_chunk(s, n, &whole, &needs_free);
        printf(" chunk %d whole cbytes=%d\n", n, wbytes);
        if (wbytes < 0) continue;
        use("user-dctx-whole", ctx, whole, wbytes, n, 1, 1);
        use("null-schunk-whole", plain, whole, wbytes, n, 1, 1);
        if (needs_free) free(whole);
      }
      blosc2_free_ctx(ctx);
      blosc2_free_ctx(plain);
      blosc2_free_ctx(wrong);
      blosc2_free_ctx(memory);
      blosc2_schunk_free(in_memory);
      blosc2_free_ctx(memory_cframe);
      blosc2_schunk_free(in_memory_cframe);
      blosc2_schunk_free(s);
      blosc2_schunk_free(other);
      blosc2_remove_urlpath(path);
      blosc2_remove_urlpath(other_path);
    }
  }
  rmdir(dir);
  blosc2_destroy();
  printf("checks %d failures %d\n", checks, failures);
  return failures != 0;
}
