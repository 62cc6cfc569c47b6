/* Super-chunk and frame edge cases where rblosc2 once differed from c-blosc2 3.3.5:
   - blosc2_get_slice_nchunks on an empty super-chunk and out-of-range slices;
   - the frame blosc2_schunk_to_buffer writes for in-memory, cframe and sframe super-chunks of
     several codecs, filters and split modes: every header byte, and a hash of the whole frame;
   - the split mode, codec and filters a super-chunk keeps through to_buffer/from_buffer and
     through reopening its file;
   - the error codes of reading an sframe chunk whose file is missing, empty or short;
   - VL-block chunks: appended after a regular chunk (and the other way round), counted with a
     NULL output, and decoded one block at a time from a lazy chunk of a cframe file / sframe.

   Output is compared line by line with the reference's. */
#include <blosc2.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#define NITEMS 20000

static int32_t data[NITEMS];
static char dir[64];

static uint64_t fnv(const uint8_t *p, int64_t n) {
  uint64_t h = 1469598103934665603ull;
  for (int64_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

static void fill(int seed) {
  for (int i = 0; i < NITEMS; i++) data[i] = (i / 5) * (seed + 1) + seed;
}

/* ---- slice chunk indexes ---------------------------------------------------------------- */
static void slice(blosc2_schunk *s, int64_t a, int64_t b) {
  int64_t *idx = NULL;
  int n = blosc2_get_slice_nchunks(s, &a, &b, &idx);
  printf(" [%" PRId64 ",%" PRId64 ")->%d", a, b, n);
  for (int i = 0; i < n; i++) printf(" %" PRId64, idx[i]);
  if (n >= 0) free(idx);
}

static void slices(void) {
  printf("== get_slice_nchunks\n");
  for (int contiguous = 0; contiguous < 2; contiguous++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 4;
    cp.nthreads = 1;
    blosc2_storage st = {.contiguous = contiguous, .cparams = &cp};
    blosc2_schunk *s = blosc2_schunk_new(&st);
    printf("empty contiguous=%d chunksize=%d:", contiguous, s->chunksize);
    slice(s, 0, 0);
    slice(s, 0, 10);
    slice(s, 5, 3);
    slice(s, 1000, 2000);
    printf("\n");
    fill(1);
    for (int c = 0; c < 3; c++) blosc2_schunk_append_buffer(s, data, sizeof data);
    printf("3 chunks contiguous=%d:", contiguous);
    slice(s, 0, 0);
    slice(s, 0, NITEMS);
    slice(s, NITEMS - 1, NITEMS + 1);
    slice(s, 5, 3);
    slice(s, 0, 5 * NITEMS);
    slice(s, 4 * NITEMS, 5 * NITEMS);
    printf("\n");
    for (int c = 0; c < 3; c++) blosc2_schunk_delete_chunk(s, 0);
    printf("all deleted contiguous=%d nchunks=%" PRId64 " chunksize=%d:", contiguous, s->nchunks,
           s->chunksize);
    slice(s, 0, 0);
    slice(s, 0, 10);
    slice(s, NITEMS - 1, NITEMS + 1);
    printf("\n");
    blosc2_schunk_free(s);
  }
}

/* ---- frames ------------------------------------------------------------------------------ */
static void show_params(const char *tag, blosc2_schunk *s) {
  blosc2_cparams *cp = NULL;
  int rc = blosc2_schunk_get_cparams(s, &cp);
  printf("  %s: splitmode=%d compcode=%d compcode_meta=%d clevel=%d typesize=%d blocksize=%d "
         "filters=%d,%d,%d,%d,%d,%d meta=%d,%d,%d,%d,%d,%d",
         tag, s->splitmode, s->compcode, s->compcode_meta, s->clevel, s->typesize, s->blocksize,
         s->filters[0], s->filters[1], s->filters[2], s->filters[3], s->filters[4],
         s->filters[5], s->filters_meta[0], s->filters_meta[1], s->filters_meta[2],
         s->filters_meta[3], s->filters_meta[4], s->filters_meta[5]);
  if (rc == 0) {
    printf(" | get_cparams splitmode=%d compcode=%d compcode_meta=%d clevel=%d typesize=%d "
           "blocksize=%d filters=%d,%d,%d,%d,%d,%d\n",
           cp->splitmode, cp->compcode, cp->compcode_meta, cp->clevel, cp->typesize,
           cp->blocksize, cp->filters[0], cp->filters[1], cp->filters[2], cp->filters[3],
           cp->filters[4], cp->filters[5]);
    free(cp);
  } else {
    printf(" | get_cparams=%d\n", rc);
  }
  int32_t out[NITEMS];
  int bad = 0;
  for (int c = 0; c < s->nchunks; c++) {
    fill(c);
    int n = blosc2_schunk_decompress_chunk(s, c, out, sizeof out);
    if (n != (int)sizeof out || memcmp(out, data, sizeof out) != 0) bad++;
  }
  printf("  %s: nchunks=%" PRId64 " bad=%d\n", tag, s->nchunks, bad);
  CHECK(bad == 0, "%s: chunks", tag);
}

static void frames(void) {
  printf("== frames\n");
  const char *kinds[] = {"memory", "memory-cframe", "cframe-file", "sframe"};
  struct {
    const char *name;
    int compcode, clevel, splitmode, filter, filter2, nchunks, compcode_meta;
  } cases[] = {
      {"default", BLOSC_BLOSCLZ, 5, BLOSC_FORWARD_COMPAT_SPLIT, BLOSC_SHUFFLE, 0, 3, 0},
      {"empty", BLOSC_BLOSCLZ, 5, BLOSC_FORWARD_COMPAT_SPLIT, BLOSC_SHUFFLE, 0, 0, 0},
      {"lz4-always", BLOSC_LZ4, 9, BLOSC_ALWAYS_SPLIT, BLOSC_BITSHUFFLE, BLOSC_DELTA, 2, 0},
      {"zstd-never", BLOSC_ZSTD, 3, BLOSC_NEVER_SPLIT, BLOSC_NOSHUFFLE, 0, 2, 0},
      {"zlib-auto", BLOSC_ZLIB, 1, BLOSC_AUTO_SPLIT, BLOSC_SHUFFLE, BLOSC_TRUNC_PREC, 2, 0},
      {"lz4hc-meta", BLOSC_LZ4HC, 4, BLOSC_ALWAYS_SPLIT, BLOSC_SHUFFLE, 0, 1, 7},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    for (int kind = 0; kind < 4; kind++) {
      char path[128];
      snprintf(path, sizeof path, "%s/f.%s", dir, kind == 3 ? "b2dir" : "b2frame");
      char *urlpath = kind >= 2 ? path : NULL;
      blosc2_remove_urlpath(path);
      blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
      cp.typesize = 4;
      cp.nthreads = 1;
      cp.compcode = (uint8_t)cases[k].compcode;
      cp.compcode_meta = (uint8_t)cases[k].compcode_meta;
      cp.clevel = (uint8_t)cases[k].clevel;
      cp.splitmode = cases[k].splitmode;
      cp.filters[BLOSC2_MAX_FILTERS - 1] = (uint8_t)cases[k].filter;
      cp.filters[BLOSC2_MAX_FILTERS - 2] = (uint8_t)cases[k].filter2;
      if (cases[k].filter2 == BLOSC_TRUNC_PREC) cp.filters_meta[BLOSC2_MAX_FILTERS - 2] = 20;
      blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
      dp.nthreads = 1;
      blosc2_storage st = {.contiguous = kind == 1 || kind == 2, .urlpath = urlpath,
                           .cparams = &cp, .dparams = &dp};
      blosc2_schunk *s = blosc2_schunk_new(&st);
      CHECK(s != NULL, "new %s %s", cases[k].name, kinds[kind]);
      if (s == NULL) continue;
      for (int c = 0; c < cases[k].nchunks; c++) {
        fill(c);
        if (cases[k].filter2 == BLOSC_TRUNC_PREC) {
          /* trunc_prec on int32 would lose bits: store what it keeps by compressing floats */
          for (int i = 0; i < NITEMS; i++) data[i] = 0x3f800000 + (c << 12);
        }
        blosc2_schunk_append_buffer(s, data, sizeof data);
      }
      printf("%s %s:\n", cases[k].name, kinds[kind]);
      uint8_t *frame = NULL;
      bool needs_free = false;
      int64_t len = blosc2_schunk_to_buffer(s, &frame, &needs_free);
      printf("  to_buffer len=%" PRId64 " hash=%016" PRIx64 "\n  header:", len,
             len > 0 ? fnv(frame, len) : 0);
      if (len > 0) {
        int32_t hlen = (frame[11] << 24) | (frame[12] << 16) | (frame[13] << 8) | frame[14];
        for (int32_t i = 0; i < hlen && i < len; i++) printf("%s%02x", i % 32 ? "" : "\n   ", frame[i]);
      }
      printf("\n");
      if (cases[k].filter2 != BLOSC_TRUNC_PREC) show_params("original", s);
      if (len > 0) {
        blosc2_schunk *back = blosc2_schunk_from_buffer(frame, len, true);
        CHECK(back != NULL, "from_buffer");
        if (back != NULL) {
          if (cases[k].filter2 != BLOSC_TRUNC_PREC) show_params("from_buffer", back);
          blosc2_schunk_free(back);
        }
      }
      if (needs_free) free(frame);
      for (int c = 0; c < 2; c++) {
        blosc2_storage cst = {.contiguous = c};
        blosc2_schunk *copy = blosc2_schunk_copy(s, &cst);
        CHECK(copy != NULL, "copy");
        if (copy != NULL && cases[k].filter2 != BLOSC_TRUNC_PREC) {
          show_params(c ? "copy-contiguous" : "copy-sparse", copy);
        }
        if (copy != NULL) blosc2_schunk_free(copy);
      }
      char filepath[160];
      snprintf(filepath, sizeof filepath, "%s/to_file.b2frame", dir);
      blosc2_remove_urlpath(filepath);
      printf("  to_file=%" PRId64 "\n", blosc2_schunk_to_file(s, filepath));
      blosc2_schunk *fromfile = blosc2_schunk_open(filepath);
      CHECK(fromfile != NULL, "open to_file");
      if (fromfile != NULL && cases[k].filter2 != BLOSC_TRUNC_PREC) show_params("to_file", fromfile);
      if (fromfile != NULL) blosc2_schunk_free(fromfile);
      blosc2_remove_urlpath(filepath);
      blosc2_schunk_free(s);
      if (urlpath != NULL) {
        blosc2_schunk *opened = blosc2_schunk_open(urlpath);
        CHECK(opened != NULL, "open");
        if (opened != NULL) {
          if (cases[k].filter2 != BLOSC_TRUNC_PREC) show_params("reopened", opened);
          blosc2_schunk_free(opened);
        }
      }
      blosc2_remove_urlpath(path);
    }
  }
}

/* ---- sframe chunk files that are missing, empty or short ---------------------------------- */
static void sframe_chunk_files(void) {
  printf("== sframe chunk files\n");
  char path[128], chunkpath[192];
  snprintf(path, sizeof path, "%s/damaged.b2dir", dir);
  /* chunk sizes an sframe chunk file is cut to; -1 removes the file */
  const int32_t cuts[] = {-1, 0, 1, 15, 16, 31, 32, 100};
  for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
    blosc2_remove_urlpath(path);
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 4;
    cp.nthreads = 1;
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    dp.nthreads = 1;
    blosc2_storage st = {.contiguous = false, .urlpath = path, .cparams = &cp, .dparams = &dp};
    blosc2_schunk *s = blosc2_schunk_new(&st);
    for (int c = 0; c < 3; c++) {
      fill(c);
      blosc2_schunk_append_buffer(s, data, sizeof data);
    }
    blosc2_schunk_free(s);
    snprintf(chunkpath, sizeof chunkpath, "%s/%08X.chunk", path, 1);
    if (cuts[k] < 0) {
      CHECK(unlink(chunkpath) == 0, "unlink %s", chunkpath);
    } else {
      CHECK(truncate(chunkpath, cuts[k]) == 0, "truncate %s", chunkpath);
    }
    s = blosc2_schunk_open(path);
    CHECK(s != NULL, "open damaged");
    if (s == NULL) continue;
    printf("chunk 1 cut to %d:", cuts[k]);
    uint8_t *chunk = NULL;
    bool needs_free = false;
    int rc = blosc2_schunk_get_chunk(s, 1, &chunk, &needs_free);
    printf(" get_chunk=%d", rc);
    if (rc >= 0 && needs_free) free(chunk);
    chunk = NULL;
    rc = blosc2_schunk_get_lazychunk(s, 1, &chunk, &needs_free);
    printf(" get_lazychunk=%d", rc);
    if (rc >= 0 && needs_free) free(chunk);
    int32_t out[NITEMS];
    printf(" decompress_chunk=%d", blosc2_schunk_decompress_chunk(s, 1, out, sizeof out));
    printf(" getitem=%d", blosc2_schunk_get_slice_buffer(s, NITEMS + 3, NITEMS + 5, out));
    printf(" chunk 2 decompress=%d", blosc2_schunk_decompress_chunk(s, 2, out, sizeof out));
    chunk = NULL;
    rc = blosc2_schunk_get_lazychunk(s, 2, &chunk, &needs_free);
    printf(" chunk 2 lazy=%d", rc);
    if (rc >= 0 && needs_free) free(chunk);
    printf("\n");
    blosc2_schunk_free(s);
  }
  blosc2_remove_urlpath(path);
}

/* ---- VL-block chunks ---------------------------------------------------------------------- */
static int vlchunk(uint8_t *dest, int32_t destsize, int variant) {
  const char *blocks[] = {"first block", "the second, longer block of this chunk",
                          "3rd and last, aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"};
  const void *srcs[3];
  int32_t sizes[3];
  for (int i = 0; i < 3; i++) {
    srcs[i] = blocks[i];
    sizes[i] = (int32_t)strlen(blocks[i]) - variant;
  }
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 1;
  cp.nthreads = 1;
  blosc2_context *c = blosc2_create_cctx(cp);
  int n = blosc2_vlcompress_ctx(c, srcs, sizes, 3, dest, destsize);
  blosc2_free_ctx(c);
  return n;
}

static int regular_chunk(uint8_t *dest, int32_t destsize) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 1;
  cp.nthreads = 1;
  blosc2_context *c = blosc2_create_cctx(cp);
  int n = blosc2_compress_ctx(c, "a regular chunk of some bytes", 29, dest, destsize);
  blosc2_free_ctx(c);
  return n;
}

static void vl_blocks(void) {
  printf("== vl-block chunks\n");
  uint8_t vl[1024], vl2[1024], reg[256];
  int nvl = vlchunk(vl, sizeof vl, 0);
  int nvl2 = vlchunk(vl2, sizeof vl2, 1);
  int nreg = regular_chunk(reg, sizeof reg);
  printf("vl=%d vl2=%d regular=%d\n", nvl, nvl2, nreg);
  int32_t nblocks = -5;
  printf("vlchunk_get_nblocks NULL=%d\n", blosc2_vlchunk_get_nblocks(vl, nvl, NULL));
  printf("vlchunk_get_nblocks=%d (%d)\n", blosc2_vlchunk_get_nblocks(vl, nvl, &nblocks), nblocks);
  printf("vlchunk_get_nblocks src NULL=%d\n", blosc2_vlchunk_get_nblocks(NULL, nvl, &nblocks));
  printf("vlchunk_get_nblocks short=%d\n", blosc2_vlchunk_get_nblocks(vl, 10, &nblocks));
  printf("vlchunk_get_nblocks regular NULL=%d\n", blosc2_vlchunk_get_nblocks(reg, nreg, NULL));

  const char *kinds[] = {"memory", "memory-cframe", "cframe-file", "sframe"};
  for (int kind = 0; kind < 4; kind++) {
    char path[128];
    snprintf(path, sizeof path, "%s/vl.%s", dir, kind == 3 ? "b2dir" : "b2frame");
    char *urlpath = kind >= 2 ? path : NULL;
    /* orders of appends: regular then vl, vl then regular, vl then vl, vl then insert regular */
    for (int order = 0; order < 6; order++) {
      blosc2_remove_urlpath(path);
      blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
      cp.typesize = 1;
      cp.nthreads = 1;
      blosc2_storage st = {.contiguous = kind == 1 || kind == 2, .urlpath = urlpath,
                           .cparams = &cp};
      blosc2_schunk *s = blosc2_schunk_new(&st);
      int64_t r1, r2;
      if (order == 0) {
        r1 = blosc2_schunk_append_chunk(s, reg, true);
        r2 = blosc2_schunk_append_chunk(s, vl, true);
      } else if (order == 1) {
        r1 = blosc2_schunk_append_chunk(s, vl, true);
        r2 = blosc2_schunk_append_chunk(s, reg, true);
      } else if (order == 2) {
        r1 = blosc2_schunk_append_chunk(s, vl, true);
        r2 = blosc2_schunk_append_chunk(s, vl2, true);
      } else if (order == 3) {
        r1 = blosc2_schunk_append_chunk(s, vl, true);
        r2 = blosc2_schunk_insert_chunk(s, 0, reg, true);
      } else if (order == 4) {
        r1 = blosc2_schunk_append_chunk(s, reg, true);
        r2 = blosc2_schunk_insert_chunk(s, 0, vl, true);
      } else {
        blosc2_schunk_append_chunk(s, reg, true);
        r1 = blosc2_schunk_append_chunk(s, reg, true);
        r2 = blosc2_schunk_update_chunk(s, 1, vl, true);
      }
      printf("%s order %d: %" PRId64 " %" PRId64 " nchunks=%" PRId64 " chunksize=%d flags2=%d",
             kinds[kind], order, r1, r2, s->nchunks, s->chunksize, s->flags2);
      if (order == 2) {
        printf(" update regular=%" PRId64, blosc2_schunk_update_chunk(s, 1, reg, true));
        printf(" update vl=%" PRId64, blosc2_schunk_update_chunk(s, 1, vl, true));
      }
      printf("\n");
      blosc2_schunk_free(s);
    }
    /* lazy VL chunks decoded block by block */
    blosc2_remove_urlpath(path);
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 1;
    cp.nthreads = 1;
    blosc2_storage st = {.contiguous = kind == 1 || kind == 2, .urlpath = urlpath, .cparams = &cp};
    blosc2_schunk *s = blosc2_schunk_new(&st);
    blosc2_schunk_append_chunk(s, vl, true);
    blosc2_schunk_append_chunk(s, vl2, true);
    blosc2_schunk_free(s);
    s = urlpath != NULL ? blosc2_schunk_open(urlpath) : NULL;
    if (s == NULL) continue;
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    dp.nthreads = 1;
    dp.schunk = s;
    blosc2_context *with_schunk = blosc2_create_dctx(dp);
    dp.schunk = NULL;
    blosc2_context *without = blosc2_create_dctx(dp);
    for (int n = 0; n < 2; n++) {
      uint8_t *lazy = NULL;
      bool needs_free = false;
      int lbytes = blosc2_schunk_get_lazychunk(s, n, &lazy, &needs_free);
      printf("%s lazy %d: %d nblocks=%d", kinds[kind], n, lbytes,
             blosc2_vlchunk_get_nblocks(lazy, lbytes, &nblocks));
      printf("(%d)", nblocks);
      for (int b = 0; b < 4; b++) {
        uint8_t *block = NULL;
        int32_t bsize = -1;
        int rc = blosc2_vldecompress_block_ctx(with_schunk, lazy, lbytes, b, &block, &bsize);
        printf(" ctx[%d]=%d", b, rc);
        if (rc > 0) {
          printf(":%.*s", bsize > 12 ? 12 : bsize, (char *)block);
          free(block);
        }
        rc = blosc2_vldecompress_block_ctx(s->dctx, lazy, lbytes, b, &block, &bsize);
        printf(" own[%d]=%d", b, rc);
        if (rc > 0) free(block);
        rc = blosc2_schunk_get_vlblock(s, n, b, &block, &bsize);
        printf(" get_vlblock[%d]=%d", b, rc);
        if (rc > 0) free(block);
      }
      uint8_t *block = NULL;
      int32_t bsize = -1;
      int rc = blosc2_vldecompress_block_ctx(without, lazy, lbytes, 1, &block, &bsize);
      printf(" no-schunk=%d", rc);
      if (rc > 0) free(block);
      printf("\n");
      if (needs_free) free(lazy);
    }
    blosc2_free_ctx(with_schunk);
    blosc2_free_ctx(without);
    blosc2_schunk_free(s);
    blosc2_remove_urlpath(path);
  }
}

int main(void) {
  blosc2_init();
  snprintf(dir, sizeof dir, "/tmp/rblosc2-frame-edges-XXXXXX");
  if (mkdtemp(dir) == NULL) return 1;
  slices();
  frames();
  sframe_chunk_files();
  vl_blocks();
  rmdir(dir);
  blosc2_destroy();
  printf("checks=%d failures=%d\n", checks, failures);
  return failures != 0;
}
