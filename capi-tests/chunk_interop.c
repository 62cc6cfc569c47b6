/* Chunk interop between two libblosc2 builds (ours and c-blosc2 3.3.5), run as two processes:
 *   chunk_interop write DIR   compress a matrix of cases into DIR/NNN.chunk
 *   chunk_interop read DIR    decompress every DIR/NNN.chunk, check data, getitem and VL blocks
 * The same binary runs against either library (LD_LIBRARY_PATH), so each library reads what the
 * other wrote. Prints "N passed, M failed" and exits non-zero on failure. */
#include <blosc2.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NBYTES (1 << 20)

static void make_data(int kind, uint8_t *buf, int n) {
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < n; i++) {
    switch (kind) {
      case 0: buf[i] = (uint8_t)((i / 4) * 7 >> (8 * (i % 4))); break;            /* int32 ramp-ish */
      case 1: { float f = sinf((float)(i / 4) * 0.001f) * 100.0f; buf[i] = ((uint8_t *)&f)[i % 4]; break; }
      case 2: x ^= x << 13; x ^= x >> 7; x ^= x << 17; buf[i] = (uint8_t)(x >> 29); break; /* random */
      case 3: buf[i] = 0; break;
      default: buf[i] = (uint8_t)((i % 1000) < 500 ? 3 : (i >> 10)); break;
    }
  }
}

struct tcase { int codec, clevel, typesize, filter, filter2, splitmode, kind, blocksize, use_dict, nthreads; };

static int ncases(struct tcase *out) {
  int n = 0;
  int codecs[] = {BLOSC_BLOSCLZ, BLOSC_LZ4, BLOSC_LZ4HC, BLOSC_ZLIB, BLOSC_ZSTD};
  int filters[] = {BLOSC_NOSHUFFLE, BLOSC_SHUFFLE, BLOSC_BITSHUFFLE};
  for (int c = 0; c < 5; c++)
    for (int f = 0; f < 3; f++)
      for (int kind = 0; kind < 5; kind++)
        for (int clevel = 1; clevel <= 9; clevel += 4) {
          struct tcase t = {codecs[c], clevel, kind == 2 ? 1 : 4, filters[f], 0, BLOSC_FORWARD_COMPAT_SPLIT, kind, 0, 0, 1};
          if (out) out[n] = t;
          n++;
        }
  /* extras: delta, trunc_prec, split modes, explicit block sizes, dictionaries, threads */
  struct tcase extra[] = {
    {BLOSC_LZ4, 5, 4, BLOSC_SHUFFLE, BLOSC_DELTA, BLOSC_FORWARD_COMPAT_SPLIT, 0, 0, 0, 1},
    {BLOSC_ZSTD, 5, 8, BLOSC_SHUFFLE, BLOSC_DELTA, BLOSC_ALWAYS_SPLIT, 1, 16384, 0, 2},
    {BLOSC_BLOSCLZ, 5, 4, BLOSC_BITSHUFFLE, BLOSC_TRUNC_PREC, BLOSC_NEVER_SPLIT, 1, 0, 0, 1},
    {BLOSC_LZ4, 9, 8, BLOSC_SHUFFLE, 0, BLOSC_ALWAYS_SPLIT, 4, 8192, 0, 2},
    {BLOSC_ZSTD, 3, 4, BLOSC_SHUFFLE, 0, BLOSC_FORWARD_COMPAT_SPLIT, 4, 0, 1, 1},
    {BLOSC_LZ4, 5, 4, BLOSC_SHUFFLE, 0, BLOSC_ALWAYS_SPLIT, 4, 0, 1, 1},
    {BLOSC_LZ4HC, 5, 2, BLOSC_NOSHUFFLE, 0, BLOSC_FORWARD_COMPAT_SPLIT, 0, 0, 1, 1},
    {BLOSC_BLOSCLZ, 0, 4, BLOSC_SHUFFLE, 0, BLOSC_FORWARD_COMPAT_SPLIT, 0, 0, 0, 1},
  };
  for (size_t i = 0; i < sizeof(extra) / sizeof(extra[0]); i++) {
    if (out) out[n] = extra[i];
    n++;
  }
  return n;
}

static blosc2_cparams cparams_for(struct tcase t) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = (uint8_t)t.codec;
  cp.clevel = (uint8_t)t.clevel;
  cp.typesize = t.typesize;
  cp.splitmode = t.splitmode;
  cp.blocksize = t.blocksize;
  cp.use_dict = t.use_dict;
  cp.nthreads = (int16_t)t.nthreads;
  memset(cp.filters, 0, sizeof(cp.filters));
  cp.filters[BLOSC2_MAX_FILTERS - 1] = (uint8_t)t.filter;
  cp.filters[BLOSC2_MAX_FILTERS - 2] = (uint8_t)t.filter2;
  if (t.filter2 == BLOSC_TRUNC_PREC) cp.filters_meta[BLOSC2_MAX_FILTERS - 2] = 23; /* keeps f32 exact */
  return cp;
}

static int passed = 0, failed = 0;
#define CHECK(cond, ...) do { if (cond) passed++; else { failed++; printf("FAIL: " __VA_ARGS__); printf("\n"); } } while (0)

static int write_cases(const char *dir) {
  int n = ncases(NULL);
  struct tcase *cases = malloc(sizeof(struct tcase) * n);
  ncases(cases);
  uint8_t *data = malloc(NBYTES), *dest = malloc(NBYTES + BLOSC2_MAX_OVERHEAD);
  for (int i = 0; i < n; i++) {
    make_data(cases[i].kind, data, NBYTES);
    blosc2_context *cctx = blosc2_create_cctx(cparams_for(cases[i]));
    int cbytes = blosc2_compress_ctx(cctx, data, NBYTES, dest, NBYTES + BLOSC2_MAX_OVERHEAD);
    blosc2_free_ctx(cctx);
    CHECK(cbytes > 0, "case %d compress returned %d", i, cbytes);
    char path[4096];
    snprintf(path, sizeof(path), "%s/%03d.chunk", dir, i);
    FILE *f = fopen(path, "wb");
    if (f == NULL || cbytes <= 0) { failed++; continue; }
    fwrite(dest, 1, (size_t)cbytes, f);
    fclose(f);
  }
  /* A VL-block chunk */
  const char *blocks[] = {"first block, a sentence", "second", "third block is a little longer than the others"};
  const void *srcs[3] = {blocks[0], blocks[1], blocks[2]};
  int32_t sizes[3] = {(int32_t)strlen(blocks[0]), (int32_t)strlen(blocks[1]), (int32_t)strlen(blocks[2])};
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 1;
  cp.compcode = BLOSC_ZSTD;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  int cbytes = blosc2_vlcompress_ctx(cctx, srcs, sizes, 3, dest, 4096);
  blosc2_free_ctx(cctx);
  CHECK(cbytes > 0, "vlcompress returned %d", cbytes);
  char path[4096];
  snprintf(path, sizeof(path), "%s/vl.chunk", dir);
  FILE *f = fopen(path, "wb");
  if (f && cbytes > 0) { fwrite(dest, 1, (size_t)cbytes, f); fclose(f); }
  free(data); free(dest); free(cases);
  return 0;
}

static uint8_t *read_file(const char *path, long *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  *len = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *buf = malloc((size_t)*len);
  if (fread(buf, 1, (size_t)*len, f) != (size_t)*len) { free(buf); buf = NULL; }
  fclose(f);
  return buf;
}

static int read_cases(const char *dir) {
  int n = ncases(NULL);
  struct tcase *cases = malloc(sizeof(struct tcase) * n);
  ncases(cases);
  uint8_t *data = malloc(NBYTES), *out = malloc(NBYTES);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  dp.nthreads = 2;
  blosc2_context *dctx2 = blosc2_create_dctx(dp);
  for (int i = 0; i < n; i++) {
    char path[4096];
    snprintf(path, sizeof(path), "%s/%03d.chunk", dir, i);
    long len;
    uint8_t *chunk = read_file(path, &len);
    if (!chunk) { failed++; printf("FAIL: missing %s\n", path); continue; }
    make_data(cases[i].kind, data, NBYTES);
    int32_t nbytes, cbytes, blocksize;
    CHECK(blosc2_cbuffer_sizes(chunk, &nbytes, &cbytes, &blocksize) == 0 && nbytes == NBYTES && cbytes == len,
          "case %d cbuffer_sizes", i);
    memset(out, 0xAA, NBYTES);
    int r = blosc2_decompress_ctx(dctx, chunk, (int32_t)len, out, NBYTES);
    CHECK(r == NBYTES && memcmp(out, data, NBYTES) == 0, "case %d decompress (r=%d)", i, r);
    memset(out, 0xAA, NBYTES);
    r = blosc2_decompress_ctx(dctx2, chunk, (int32_t)len, out, NBYTES);
    CHECK(r == NBYTES && memcmp(out, data, NBYTES) == 0, "case %d decompress 2 threads (r=%d)", i, r);
    /* getitem inside the first block only: the reference is wrong past block 0 with DELTA */
    int ts = cases[i].typesize;
    int start = 3, nitems = 100;
    r = blosc2_getitem_ctx(dctx, chunk, (int32_t)len, start, nitems, out, NBYTES);
    CHECK(r == nitems * ts && memcmp(out, data + start * ts, (size_t)(nitems * ts)) == 0, "case %d getitem (r=%d)", i, r);
    free(chunk);
  }
  char path[4096];
  snprintf(path, sizeof(path), "%s/vl.chunk", dir);
  long len;
  uint8_t *chunk = read_file(path, &len);
  if (chunk) {
    int32_t nblocks = 0;
    CHECK(blosc2_vlchunk_get_nblocks(chunk, (int32_t)len, &nblocks) == 0 && nblocks == 3, "vl nblocks");
    uint8_t *block = NULL;
    int32_t bsize = 0;
    int r = blosc2_vldecompress_block_ctx(dctx, chunk, (int32_t)len, 2, &block, &bsize);
    const char *expect = "third block is a little longer than the others";
    CHECK(r == (int)strlen(expect) && bsize == r && block && memcmp(block, expect, (size_t)r) == 0, "vl block 2 (r=%d)", r);
    free(block);
    free(chunk);
  } else {
    failed++;
  }
  blosc2_free_ctx(dctx);
  blosc2_free_ctx(dctx2);
  free(data); free(out); free(cases);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 3) { fprintf(stderr, "usage: %s write|read DIR\n", argv[0]); return 2; }
  blosc2_init();
  if (strcmp(argv[1], "write") == 0) write_cases(argv[2]);
  else read_cases(argv[2]);
  blosc2_destroy();
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
