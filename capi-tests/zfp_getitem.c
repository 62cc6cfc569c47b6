/* getitem on zfp_rate (codec 35) chunks, side by side with c-blosc2 3.3.5.
 *
 * c-blosc2 serves getitem on these chunks through its zfp plugin's cell reader: fixed-rate
 * cells all take the same bits, so items that fit in the 4^ndim cell holding the first one are
 * decoded from that cell alone and come back in the cell's order (a run crossing a cell row
 * continues on the cell's next row). It fails with BLOSC2_ERROR_DATA when the items ask for
 * more bits than a cell holds, also when the request spans blocks. The same path serves
 * blosc2_schunk_get_slice_buffer (parts of chunks) and lazy chunks of arrays on disk.
 *
 * For each case (1-D to 4-D arrays, float32 and float64, several rates, blocks cut by the
 * array's edges and blocks of a single cell) this prints, for many (start, nitems) on a chunk,
 * getitem's result code and, for requests inside one block, a checksum of the items it
 * returned. For requests spanning blocks only the code is printed: there c-blosc2 copies
 * nothing, or copies blocks to the start of the destination, where we return the right items
 * (README, "What differs"); tests/zfp_getitem.rs checks ours against whole-chunk decoding.
 * Checked in both libraries: one item, unless the rate leaves a cell fewer bits than one item
 * has (then even one item fails), equals that item of the decompressed chunk. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <b2nd.h>
#include <blosc2.h>
#include <blosc2/codecs-registry.h>

#include "check.h"
#include "fnv.h"

typedef struct {
  const char *label;
  int8_t ndim;
  int64_t shape[4];
  int32_t chunkshape[4];
  int32_t blockshape[4];
  int typesize;
  uint8_t meta; /* percent of the input's bits */
} zfp_case;

static const zfp_case CASES[] = {
    {"1d-f32-r50", 1, {100}, {50}, {22}, 4, 50},
    {"1d-f64-r25", 1, {90}, {44}, {16}, 8, 25},
    {"2d-f32-r50", 2, {20, 13}, {12, 10}, {8, 5}, 4, 50},
    {"2d-f64-r37", 2, {21, 19}, {16, 12}, {9, 7}, 8, 37},
    {"2d-f32-r5", 2, {20, 13}, {12, 10}, {8, 5}, 4, 5},
    {"2d-f32-r100", 2, {20, 13}, {12, 10}, {8, 5}, 4, 100},
    {"2d-f64-cell-blocks", 2, {16, 16}, {8, 8}, {4, 4}, 8, 60},
    {"3d-f32-r30", 3, {12, 9, 10}, {10, 9, 8}, {8, 5, 6}, 4, 30},
    {"3d-f64-r60", 3, {9, 9, 9}, {8, 8, 8}, {4, 6, 5}, 8, 60},
    {"4d-f32-r40", 4, {6, 5, 5, 6}, {6, 5, 5, 6}, {4, 5, 4, 6}, 4, 40},
};
#define NCASES (int)(sizeof(CASES) / sizeof(CASES[0]))

static int64_t nitems_of(const zfp_case *c) {
  int64_t n = 1;
  for (int i = 0; i < c->ndim; i++) n *= c->shape[i];
  return n;
}

/* Smooth data with a ripple, the same on every run. */
static uint8_t *make_input(const zfp_case *c) {
  int64_t n = nitems_of(c);
  uint8_t *p = malloc(n * c->typesize);
  for (int64_t i = 0; i < n; i++) {
    double v = (double)(i % 13) * 1.25 + (double)(i / 7) * 0.5 + (double)((i * 7919) % 17) / 8.0;
    if (c->typesize == 4) {
      float f = (float)v;
      memcpy(p + i * 4, &f, 4);
    } else {
      memcpy(p + i * 8, &v, 8);
    }
  }
  return p;
}

static b2nd_array_t *make_array(const zfp_case *c, const char *urlpath) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = c->typesize;
  cp.compcode = BLOSC_CODEC_ZFP_FIXED_RATE;
  cp.compcode_meta = c->meta;
  cp.nthreads = 1;
  cp.splitmode = BLOSC_FORWARD_COMPAT_SPLIT;
  for (int i = 0; i < BLOSC2_MAX_FILTERS; i++) {
    cp.filters[i] = 0;
    cp.filters_meta[i] = 0;
  }
  blosc2_storage st = {.contiguous = true, .urlpath = (char *)urlpath, .cparams = &cp};
  if (urlpath) blosc2_remove_urlpath(urlpath);
  b2nd_context_t *ctx = b2nd_create_ctx(&st, c->ndim, c->shape, c->chunkshape, c->blockshape,
                                        NULL, 0, NULL, 0);
  uint8_t *src = make_input(c);
  b2nd_array_t *arr = NULL;
  int rc = b2nd_from_cbuffer(ctx, &arr, src, nitems_of(c) * c->typesize);
  CHECK(rc == 0, "%s: from_cbuffer %d", c->label, rc);
  free(src);
  b2nd_free_ctx(ctx);
  if (rc != 0) return NULL;
  if (urlpath) {
    b2nd_free(arr);
    arr = NULL;
    rc = b2nd_open(urlpath, &arr);
    CHECK(rc == 0, "%s: open %d", c->label, rc);
  }
  return arr;
}

/* getitem on chunk `nchunk` for many (start, nitems); `lazy`: the chunk as
 * blosc2_schunk_get_lazychunk gives it (only its header and block offsets for an array on
 * disk, the blocks read from the file as getitem needs them). */
static void getitems(const zfp_case *c, blosc2_schunk *sc, blosc2_context *dctx, int64_t nchunk,
                     int lazy, const char *how) {
  uint8_t *chunk;
  bool needs_free;
  int csize = lazy ? blosc2_schunk_get_lazychunk(sc, nchunk, &chunk, &needs_free)
                   : blosc2_schunk_get_chunk(sc, nchunk, &chunk, &needs_free);
  CHECK(csize > 0, "%s: get_chunk %d", c->label, csize);
  if (csize <= 0) return;
  int32_t nbytes, cbytes, blocksize;
  blosc2_cbuffer_sizes(chunk, &nbytes, &cbytes, &blocksize);
  int ts = c->typesize;
  uint8_t *whole = malloc(nbytes);
  int rc = blosc2_schunk_decompress_chunk(sc, nchunk, whole, nbytes);
  CHECK(rc == nbytes, "%s: decompress_chunk %d", c->label, rc);
  int items = nbytes / ts, bitems = blocksize / ts;
  printf("%s %s chunk %lld: nbytes %d blocksize %d\n", c->label, how, (long long)nchunk, nbytes,
         blocksize);
  const int starts[] = {0, 1, 2, 3, 4, 5, 6, 7, 12, 15, 16, 17, 21, 31, 63, bitems - 2, bitems - 1,
                        bitems, bitems + 1, 2 * bitems - 1, items - 2, items - 1, items, items + 1,
                        -1};
  const int counts[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 32, 63, 64, 65, 128, 255, 256,
                        257, bitems, 2 * bitems, -1};
  size_t cap = (size_t)(2 * bitems + 300) * ts;
  uint8_t *out = malloc(cap);
  for (size_t a = 0; a < sizeof(starts) / sizeof(starts[0]); a++) {
    printf("  start %d:", starts[a]);
    for (size_t b = 0; b < sizeof(counts) / sizeof(counts[0]); b++) {
      int start = starts[a], n = counts[b];
      memset(out, 0xA5, cap);
      rc = blosc2_getitem_ctx(dctx, chunk, csize, start, n, out, (int32_t)cap);
      int one_block = start >= 0 && n > 0 && start / bitems == (start + n - 1) / bitems;
      if (rc > 0 && one_block) {
        printf(" %d=%d:%04x", n, rc, (unsigned)(fnv(out, rc) & 0xffff));
      } else {
        printf(" %d=%d", n, rc);
      }
      /* (At rates below one item's bits per cell even one item fails: see "2d-f32-r5".) */
      if (n == 1 && start >= 0 && start < items && rc != BLOSC2_ERROR_DATA) {
        CHECK(rc == ts && memcmp(out, whole + (size_t)start * ts, ts) == 0,
              "%s %s: item %d differs from the decompressed chunk's (rc %d)", c->label, how, start,
              rc);
      }
    }
    printf("\n");
  }
  free(out);
  free(whole);
  if (needs_free) free(chunk);
}

/* Slices of the super-chunk: parts of chunks go through getitem, whole chunks do not. */
static void slices(const zfp_case *c, blosc2_schunk *sc, const char *how) {
  int ts = c->typesize;
  int64_t citems = sc->chunksize / ts, total = nitems_of(c);
  /* The items of a chunk are its blocks' (padded) items, the chunk's bytes in order. */
  int64_t bitems = 1;
  for (int i = 0; i < c->ndim; i++) bitems *= c->blockshape[i];
  const int64_t ranges[][2] = {{0, 1},
                               {0, 2},
                               {1, 4},
                               {3, 5},
                               {0, 16},
                               {2, 6},
                               {bitems - 1, bitems + 1},
                               {0, citems},
                               {citems - 1, citems + 3},
                               {citems, 2 * citems},
                               {5, 5 + bitems},
                               {total - 3, total}};
  int64_t nitems_sc = sc->nbytes / ts;
  uint8_t *out = malloc((size_t)(2 * citems + 64) * ts);
  printf("%s %s slices:", c->label, how);
  for (size_t r = 0; r < sizeof(ranges) / sizeof(ranges[0]); r++) {
    int64_t start = ranges[r][0], stop = ranges[r][1];
    if (stop > nitems_sc) stop = nitems_sc;
    if (start < 0 || start >= stop) continue;
    memset(out, 0xA5, (size_t)(stop - start) * ts);
    int rc = blosc2_schunk_get_slice_buffer(sc, start, stop, out);
    int64_t within = start % citems;
    int one_block = start / citems == (stop - 1) / citems &&
                    within / bitems == (within + stop - start - 1) / bitems;
    int whole_chunk = within == 0 && stop - start == citems;
    if (rc == 0 && (one_block || whole_chunk)) {
      printf(" [%lld,%lld)=%d:%04x", (long long)start, (long long)stop, rc,
             (unsigned)(fnv(out, (size_t)(stop - start) * ts) & 0xffff));
    } else {
      printf(" [%lld,%lld)=%d", (long long)start, (long long)stop, rc);
    }
  }
  printf("\n");
  free(out);
}

int main(void) {
  blosc2_init();
  for (int k = 0; k < NCASES; k++) {
    const zfp_case *c = &CASES[k];
    for (int on_disk = 0; on_disk <= 1; on_disk++) {
      const char *how = on_disk ? "file" : "memory";
      char path[128];
      snprintf(path, sizeof(path), "zfp_getitem_%d.b2nd", k);
      b2nd_array_t *arr = make_array(c, on_disk ? path : NULL);
      if (arr == NULL) continue;
      blosc2_schunk *sc = arr->sc;
      CHECK(sc->cbytes < sc->nbytes || c->meta >= 100, "%s: zfp did not compress (%lld of %lld)",
            c->label, (long long)sc->cbytes, (long long)sc->nbytes);
      getitems(c, sc, sc->dctx, 0, 1, how);
      getitems(c, sc, sc->dctx, sc->nchunks - 1, 1, how);
      /* A context of one's own for the super-chunk, as c-blosc2's own test does. */
      blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
      dp.schunk = sc;
      blosc2_context *dctx = blosc2_create_dctx(dp);
      getitems(c, sc, dctx, 0, 0, on_disk ? "file-own-dctx" : "memory-own-dctx");
      blosc2_free_ctx(dctx);
      slices(c, sc, how);
      b2nd_free(arr);
      if (on_disk) blosc2_remove_urlpath(path);
    }
  }
  printf("%d checks, %d failures\n", checks, failures);
  blosc2_destroy();
  return failures != 0;
}
