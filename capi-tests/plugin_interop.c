/* The plugins c-blosc2 3.3.5 registers at init, between two libblosc2 builds (ours and the
 * reference), run as separate processes of the same binary (LD_LIBRARY_PATH picks the library):
 *   plugin_interop write DIR    write one b2nd array per case into DIR/<case>.b2nd and, in
 *                               DIR/<case>.sum, the checksum of the data the writer reads back
 *   plugin_interop read DIR     open each array the other library wrote: the data must have the
 *                               writer's checksum (for the lossless cases: equal the input too)
 *   plugin_interop mutate DIR   (ours) every chunk of each array with bytes changed, and each
 *                               array with a damaged b2nd metalayer, decompressed: errors are
 *                               fine, crashes and hangs are not
 *   plugin_interop refusals     settings both libraries refuse; run.sh diffs the codes
 * run.sh also compares the .b2nd files the two libraries wrote: they must be byte-identical
 * (except ndlz's, whose encoder here is our own; both libraries decode either).
 *
 * Cases: ndcell (filter 32, lossless, cells of 3 and 4 items per side, typesizes 1 to 8, alone
 * and before SHUFFLE) and ndmean (filter 33, float32 and float64, cells of 2, 3 and 5 items per
 * side, the edge cells of the array averaging the zero padding of its blocks), on 2-D and 3-D
 * arrays whose shapes are not multiples of their chunk and block shapes; ndlz (codec 32, 4x4
 * and 8x8 cells, 2-D, one-byte items or wider ones shuffled and split into one-byte streams);
 * zfp (codecs 33-35: accuracy, precision and rate modes, float32 and float64, 2-D and 3-D). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <b2nd.h>
#include <blosc2.h>
#include <blosc2/codecs-registry.h>
#include <blosc2/filters-registry.h>
#include "fnv.h"
#include "check.h"

typedef struct {
  const char *label;
  uint8_t filter;
  uint8_t filter_meta;
  int shuffle; /* SHUFFLE after the plugin filter */
  int ndim;
  int typesize;
  int floats; /* float32/float64 data instead of integers */
  int lossy;
  uint8_t codec; /* BLOSC_BLOSCLZ or a plugin codec (then the shapes below, tiled data) */
  uint8_t codec_meta;
  int splitmode;
} plugin_case;

static const plugin_case CASES[] = {
    {"ndcell-2d-ts1-m4", BLOSC_FILTER_NDCELL, 4, 0, 2, 1, 0, 0},
    {"ndcell-2d-ts4-m3-shuffle", BLOSC_FILTER_NDCELL, 3, 1, 2, 4, 0, 0},
    {"ndcell-3d-ts2-m4", BLOSC_FILTER_NDCELL, 4, 0, 3, 2, 0, 0},
    {"ndcell-3d-ts8-m3-shuffle", BLOSC_FILTER_NDCELL, 3, 1, 3, 8, 0, 0},
    {"ndmean-2d-f32-m2", BLOSC_FILTER_NDMEAN, 2, 0, 2, 4, 1, 1},
    {"ndmean-2d-f64-m3-shuffle", BLOSC_FILTER_NDMEAN, 3, 1, 2, 8, 1, 1},
    {"ndmean-3d-f32-m3-shuffle", BLOSC_FILTER_NDMEAN, 3, 1, 3, 4, 1, 1},
    {"ndmean-3d-f64-m2", BLOSC_FILTER_NDMEAN, 2, 0, 3, 8, 1, 1},
    {"ndmean-3d-f32-m5", BLOSC_FILTER_NDMEAN, 5, 0, 3, 4, 1, 1},
    /* ndlz: 2-D only; wider items through SHUFFLE and split streams of one byte per item. Our
     * encoder is not the reference's, so these files are not compared byte for byte. */
    {"ndlz-ts1-m4", 0, 0, 0, 2, 1, 0, 0, BLOSC_CODEC_NDLZ, 4, BLOSC_FORWARD_COMPAT_SPLIT},
    {"ndlz-ts1-m8", 0, 0, 0, 2, 1, 0, 0, BLOSC_CODEC_NDLZ, 8, BLOSC_FORWARD_COMPAT_SPLIT},
    {"ndlz-ts4-m4-shuffle-split", 0, 0, 1, 2, 4, 0, 0, BLOSC_CODEC_NDLZ, 4, BLOSC_ALWAYS_SPLIT},
    {"ndlz-ts2-m8-shuffle-split", 0, 0, 1, 2, 2, 0, 0, BLOSC_CODEC_NDLZ, 8, BLOSC_ALWAYS_SPLIT},
    /* zfp, its three modes on float32 and float64, 2-D and 3-D, blocks of 8x5(x4) items: zfp
     * cells of 4 per side, some cut by the block's edges. Lossy, byte-identical files. */
#define ZFP_CASE(label, codec, meta, ndim, ts) \
  {label, 0, 0, 0, ndim, ts, 1, 1, codec, (uint8_t)(meta), BLOSC_FORWARD_COMPAT_SPLIT}
    ZFP_CASE("zfp-acc-2d-f32-m-2", BLOSC_CODEC_ZFP_FIXED_ACCURACY, -2, 2, 4),
    ZFP_CASE("zfp-acc-2d-f64-m-3", BLOSC_CODEC_ZFP_FIXED_ACCURACY, -3, 2, 8),
    ZFP_CASE("zfp-acc-3d-f32-m-1", BLOSC_CODEC_ZFP_FIXED_ACCURACY, -1, 3, 4),
    ZFP_CASE("zfp-acc-3d-f64-m-4", BLOSC_CODEC_ZFP_FIXED_ACCURACY, -4, 3, 8),
    ZFP_CASE("zfp-prec-2d-f32-m8", BLOSC_CODEC_ZFP_FIXED_PRECISION, 8, 2, 4),
    ZFP_CASE("zfp-prec-2d-f64-m20", BLOSC_CODEC_ZFP_FIXED_PRECISION, 20, 2, 8),
    ZFP_CASE("zfp-prec-3d-f32-m6", BLOSC_CODEC_ZFP_FIXED_PRECISION, 6, 3, 4),
    ZFP_CASE("zfp-prec-3d-f64-m14", BLOSC_CODEC_ZFP_FIXED_PRECISION, 14, 3, 8),
    ZFP_CASE("zfp-rate-2d-f32-m25", BLOSC_CODEC_ZFP_FIXED_RATE, 25, 2, 4),
    ZFP_CASE("zfp-rate-2d-f64-m40", BLOSC_CODEC_ZFP_FIXED_RATE, 40, 2, 8),
    ZFP_CASE("zfp-rate-3d-f32-m50", BLOSC_CODEC_ZFP_FIXED_RATE, 50, 3, 4),
    ZFP_CASE("zfp-rate-3d-f64-m10", BLOSC_CODEC_ZFP_FIXED_RATE, 10, 3, 8),
};
#define NCASES (int)(sizeof(CASES) / sizeof(CASES[0]))

static const int64_t SHAPE[3] = {37, 23, 11};
static const int32_t CHUNKSHAPE[3] = {16, 12, 6};
static const int32_t BLOCKSHAPE[3] = {8, 5, 4};
/* Codec cases: blocks of several cells, some cut by the block's edges. */
static const int64_t CODEC_SHAPE[3] = {150, 83, 1};
static const int32_t CODEC_CHUNKSHAPE[3] = {72, 60, 1};
static const int32_t CODEC_BLOCKSHAPE[3] = {36, 30, 1};

static int is_ndlz(const plugin_case *c) { return c->codec == BLOSC_CODEC_NDLZ; }
static const int64_t *shape_of(const plugin_case *c) { return is_ndlz(c) ? CODEC_SHAPE : SHAPE; }
static const int32_t *chunkshape_of(const plugin_case *c) {
  return is_ndlz(c) ? CODEC_CHUNKSHAPE : CHUNKSHAPE;
}
static const int32_t *blockshape_of(const plugin_case *c) {
  return is_ndlz(c) ? CODEC_BLOCKSHAPE : BLOCKSHAPE;
}

static int64_t nitems_of(const plugin_case *c) {
  int64_t n = 1;
  for (int i = 0; i < c->ndim; i++) n *= shape_of(c)[i];
  return n;
}

/* Smooth data with a little noise, the same on every run: integers of the typesize, or floats. */
static uint8_t *make_input(const plugin_case *c) {
  int64_t n = nitems_of(c);
  uint8_t *p = malloc(n * c->typesize);
  uint32_t x = (uint32_t)(c->ndim * 100 + c->typesize * 10 + c->filter_meta + c->codec_meta) *
                   2654435761u + 1;
  for (int64_t i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    double v = (double)(i % 97) * 0.37 + (double)(i / 251) * 1.5 + (double)(x >> 24) / 256.0;
    if (is_ndlz(c)) {
      /* Bands of one value, of a repeating tile, and of noise, across the rows. */
      int64_t row = i / shape_of(c)[1], col = i % shape_of(c)[1];
      v = row % 30 < 10 ? 3 : row % 30 < 20 ? (double)((row % 4) * 4 + col % 4) : (double)(x >> 20);
    }
    if (c->floats && c->typesize == 4) {
      float f = (float)v;
      memcpy(p + i * 4, &f, 4);
    } else if (c->floats) {
      memcpy(p + i * 8, &v, 8);
    } else {
      uint64_t u = (uint64_t)(v * 16);
      memcpy(p + i * c->typesize, &u, c->typesize); /* little-endian */
    }
  }
  return p;
}

static blosc2_cparams cparams_of(const plugin_case *c) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = c->typesize;
  cp.compcode = c->codec;
  cp.compcode_meta = c->codec_meta;
  cp.clevel = 5;
  cp.nthreads = 1;
  if (c->codec) cp.splitmode = c->splitmode;
  for (int i = 0; i < BLOSC2_MAX_FILTERS; i++) {
    cp.filters[i] = 0;
    cp.filters_meta[i] = 0;
  }
  cp.filters[4] = c->filter;
  cp.filters_meta[4] = c->filter_meta;
  if (c->shuffle) cp.filters[5] = BLOSC_SHUFFLE;
  return cp;
}

static void path_of(char *out, size_t n, const char *dir, const plugin_case *c, const char *ext) {
  snprintf(out, n, "%s/%s.%s", dir, c->label, ext);
}

static int write_all(const char *dir) {
  for (int k = 0; k < NCASES; k++) {
    const plugin_case *c = &CASES[k];
    char path[512], sum[512];
    path_of(path, sizeof(path), dir, c, "b2nd");
    path_of(sum, sizeof(sum), dir, c, "sum");
    int64_t nbytes = nitems_of(c) * c->typesize;
    uint8_t *src = make_input(c), *back = malloc(nbytes);
    blosc2_cparams cp = cparams_of(c);
    blosc2_storage storage = {.contiguous = true, .urlpath = path, .cparams = &cp};
    b2nd_context_t *ctx = b2nd_create_ctx(&storage, (int8_t)c->ndim, shape_of(c),
                                          chunkshape_of(c), blockshape_of(c), NULL, 0, NULL, 0);
    b2nd_array_t *arr = NULL;
    int rc = b2nd_from_cbuffer(ctx, &arr, src, nbytes);
    CHECK(rc == 0, "%s: from_cbuffer %d", c->label, rc);
    if (rc == 0 && c->codec) {
      /* The codec must have run: chunks smaller than the data, not stored raw. */
      CHECK(arr->sc->cbytes < arr->sc->nbytes * 3 / 4, "%s: cbytes %lld of %lld", c->label,
            (long long)arr->sc->cbytes, (long long)arr->sc->nbytes);
    }
    if (rc == 0) {
      rc = b2nd_to_cbuffer(arr, back, nbytes);
      CHECK(rc == 0, "%s: to_cbuffer %d", c->label, rc);
      CHECK(c->lossy || memcmp(back, src, nbytes) == 0, "%s: lossless data", c->label);
      FILE *f = fopen(sum, "w");
      if (f) {
        fprintf(f, "%016llx\n", (unsigned long long)fnv(back, nbytes));
        fclose(f);
      }
      b2nd_free(arr);
    }
    b2nd_free_ctx(ctx);
    free(src);
    free(back);
  }
  printf("write: %d passed, %d failed\n", checks - failures, failures);
  return failures != 0;
}

static int read_all(const char *dir) {
  for (int k = 0; k < NCASES; k++) {
    const plugin_case *c = &CASES[k];
    char path[512], sum[512];
    path_of(path, sizeof(path), dir, c, "b2nd");
    path_of(sum, sizeof(sum), dir, c, "sum");
    unsigned long long want = 0;
    FILE *f = fopen(sum, "r");
    int got_sum = f && fscanf(f, "%llx", &want) == 1;
    if (f) fclose(f);
    CHECK(got_sum, "%s: no checksum from the writer", c->label);
    b2nd_array_t *arr = NULL;
    int rc = b2nd_open(path, &arr);
    CHECK(rc == 0, "%s: open %d", c->label, rc);
    if (rc != 0) continue;
    int64_t nbytes = nitems_of(c) * c->typesize;
    uint8_t *src = make_input(c), *back = malloc(nbytes);
    rc = b2nd_to_cbuffer(arr, back, nbytes);
    CHECK(rc == 0, "%s: to_cbuffer %d", c->label, rc);
    CHECK(fnv(back, nbytes) == want, "%s: data differs from what the writer read", c->label);
    CHECK(c->lossy || memcmp(back, src, nbytes) == 0, "%s: lossless data", c->label);
    /* A slice across chunk and block edges, equal to the same items of the whole. */
    int64_t start[3] = {5, 3, 0}, stop[3] = {30, 20, 1}, sshape[3], n = 1;
    if (!is_ndlz(c)) {
      start[2] = 2;
      stop[2] = 9;
    }
    for (int i = 0; i < c->ndim; i++) {
      sshape[i] = stop[i] - start[i];
      n *= sshape[i];
    }
    uint8_t *slice = malloc(n * c->typesize);
    rc = b2nd_get_slice_cbuffer(arr, start, stop, slice, sshape, n * c->typesize);
    int64_t bad = 0, at = 0;
    for (int64_t i = 0; rc == 0 && i < n; i++) {
      int64_t rem = i, flat = 0, stride = 1, idx[3];
      for (int d = c->ndim - 1; d >= 0; d--) {
        idx[d] = start[d] + rem % sshape[d];
        rem /= sshape[d];
      }
      for (int d = c->ndim - 1; d >= 0; d--) {
        flat += idx[d] * stride;
        stride *= shape_of(c)[d];
      }
      bad += memcmp(slice + at, back + flat * c->typesize, c->typesize) != 0;
      at += c->typesize;
    }
    CHECK(rc == 0 && bad == 0, "%s: slice rc %d, %lld items differ", c->label, rc,
          (long long)bad);
    free(slice);
    free(src);
    free(back);
    b2nd_free(arr);
  }
  printf("read: %d passed, %d failed\n", checks - failures, failures);
  return failures != 0;
}

static uint32_t rng = 12345;
static uint32_t next_rand(void) {
  rng ^= rng << 13;
  rng ^= rng >> 17;
  rng ^= rng << 5;
  return rng;
}

/* Decompresses every chunk of `sc` (errors are fine); returns how many decoded. */
static int decompress_all(blosc2_schunk *sc, int64_t nbytes_max) {
  uint8_t *out = malloc(nbytes_max);
  int ok = 0;
  for (int64_t i = 0; i < sc->nchunks; i++) {
    ok += blosc2_schunk_decompress_chunk(sc, i, out, (int32_t)nbytes_max) >= 0;
  }
  free(out);
  return ok;
}

static int mutate_all(const char *dir) {
  int64_t tried = 0, decoded = 0;
  for (int k = 0; k < NCASES; k++) {
    const plugin_case *c = &CASES[k];
    char path[512];
    path_of(path, sizeof(path), dir, c, "b2nd");
    blosc2_schunk *sc = blosc2_schunk_open(path);
    CHECK(sc != NULL, "%s: open", c->label);
    if (sc == NULL) continue;
    int32_t chunk_nbytes = sc->chunksize;
    uint8_t *out = malloc(chunk_nbytes + 64);
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    dp.schunk = sc;
    blosc2_context *dctx = blosc2_create_dctx(dp);
    for (int64_t i = 0; i < sc->nchunks; i++) {
      uint8_t *chunk;
      bool needs_free;
      int csize = blosc2_schunk_get_chunk(sc, i, &chunk, &needs_free);
      if (csize <= 0) continue;
      uint8_t *m = malloc(csize);
      for (int t = 0; t < 40; t++) {
        memcpy(m, chunk, csize);
        int nflips = 1 + (int)(next_rand() % 4);
        for (int j = 0; j < nflips; j++) {
          /* Mostly past the header, sometimes in it. */
          uint32_t pos = (t % 5 == 0) ? next_rand() % 32 : next_rand() % (uint32_t)csize;
          m[pos % csize] ^= (uint8_t)(1 + next_rand() % 255);
        }
        decoded += blosc2_decompress_ctx(dctx, m, csize, out, chunk_nbytes) >= 0;
        /* getitem too (zfp_rate's reads single cells), one item and runs across cells. */
        uint8_t items[8 * 20];
        blosc2_getitem_ctx(dctx, m, csize, (int)(next_rand() % 64), 1 + (int)(next_rand() % 20),
                           items, sizeof(items));
        tried++;
      }
      free(m);
      if (needs_free) free(chunk);
    }
    blosc2_free_ctx(dctx);
    /* A b2nd metalayer whose shapes say something else (blockshape bytes changed). */
    uint8_t *meta;
    int32_t meta_len;
    if (blosc2_meta_get(sc, "b2nd", &meta, &meta_len) >= 0) {
      uint8_t *copy = malloc(meta_len);
      int64_t len = 0;
      uint8_t *frame = NULL;
      bool frame_free = false;
      len = blosc2_schunk_to_buffer(sc, &frame, &frame_free);
      for (int t = 0; len > 0 && t < 30; t++) {
        blosc2_schunk *mem = blosc2_schunk_from_buffer(frame, len, true);
        if (mem == NULL) break;
        memcpy(copy, meta, meta_len);
        int pos = meta_len - 1 - (int)(next_rand() % 40);
        if (pos < 0) pos = 0;
        copy[pos] ^= (uint8_t)(1 + next_rand() % 255);
        blosc2_meta_update(mem, "b2nd", copy, meta_len);
        decoded += decompress_all(mem, chunk_nbytes + 64);
        tried++;
        blosc2_schunk_free(mem);
      }
      if (frame_free) free(frame);
      free(copy);
      free(meta);
    }
    free(out);
    blosc2_schunk_free(sc);
  }
  printf("mutate: %lld mutated chunks and metalayers, %lld decoded without error; %d passed, %d failed\n",
         (long long)tried, (long long)decoded, checks - failures, failures);
  return failures != 0;
}

/* Compression the plugins refuse: the codes both libraries return. */
static void refusal(const char *what, const plugin_case *c, const int32_t *blockshape) {
  int64_t nbytes = nitems_of(c) * c->typesize;
  uint8_t *src = make_input(c);
  blosc2_cparams cp = cparams_of(c);
  blosc2_storage storage = {.contiguous = false, .cparams = &cp};
  b2nd_context_t *ctx = b2nd_create_ctx(&storage, (int8_t)c->ndim, SHAPE, CHUNKSHAPE,
                                        blockshape, NULL, 0, NULL, 0);
  b2nd_array_t *arr = NULL;
  int rc = b2nd_from_cbuffer(ctx, &arr, src, nbytes);
  printf("%s: from_cbuffer -> %d\n", what, rc);
  if (rc == 0) b2nd_free(arr);
  b2nd_free_ctx(ctx);
  free(src);
}

static int refusals(void) {
  const int32_t small[3] = {2, 3, 2};
  plugin_case c = {"", BLOSC_FILTER_NDCELL, 4, 0, 2, 4, 0, 0};
  refusal("ndcell cell larger than the block", &c, small);
  c.filter_meta = 0;
  refusal("ndcell meta 0", &c, BLOCKSHAPE);
  c.filter_meta = 200;
  refusal("ndcell meta 200 (negative)", &c, BLOCKSHAPE);
  plugin_case m = {"", BLOSC_FILTER_NDMEAN, 2, 0, 2, 2, 0, 1};
  refusal("ndmean typesize 2", &m, BLOCKSHAPE);
  m.typesize = 4;
  m.floats = 1;
  m.filter_meta = 0;
  refusal("ndmean meta 0", &m, BLOCKSHAPE);

  /* ndlz: 2-D arrays and cells of 4 or 8 only; items of one byte unless streams are split. */
  const int32_t ndlz_block[3] = {16, 12, 6};
  plugin_case z = {"", 0, 0, 0, 3, 1, 0, 0, BLOSC_CODEC_NDLZ, 4, BLOSC_FORWARD_COMPAT_SPLIT};
  refusal("ndlz 3-D", &z, ndlz_block);
  z.ndim = 2;
  z.codec_meta = 5;
  refusal("ndlz meta 5", &z, ndlz_block);
  z.codec_meta = 8;
  z.typesize = 4;
  refusal("ndlz typesize 4 unsplit", &z, ndlz_block);
  {
    plugin_case p = z;
    p.typesize = 1;
    blosc2_cparams cp = cparams_of(&p);
    int32_t nbytes = 4096;
    uint8_t *src = make_input(&p), *dst = malloc(nbytes + BLOSC2_MAX_OVERHEAD);
    blosc2_context *cctx = blosc2_create_cctx(cp);
    int rc = blosc2_compress_ctx(cctx, src, nbytes, dst, nbytes + BLOSC2_MAX_OVERHEAD);
    printf("ndlz, no array: compress_ctx -> %d\n", rc);
    blosc2_free_ctx(cctx);
    free(src);
    free(dst);
  }

  /* zfp: blocks of fewer than 4 items along a dimension, items of other sizes, no array. */
  {
    plugin_case f = ZFP_CASE("", BLOSC_CODEC_ZFP_FIXED_RATE, 50, 2, 4);
    refusal("zfp_rate blocks smaller than its cells", &f, small);
    f.codec = BLOSC_CODEC_ZFP_FIXED_ACCURACY;
    refusal("zfp_acc 3-D blocks smaller than its cells", &f, small);
    f.codec = BLOSC_CODEC_ZFP_FIXED_PRECISION;
    f.typesize = 2;
    f.floats = 0;
    refusal("zfp_prec typesize 2", &f, BLOCKSHAPE);
    blosc2_cparams cp = cparams_of(&f);
    cp.typesize = 4;
    int32_t nbytes = 4096;
    uint8_t *src = malloc(nbytes), *dst = malloc(nbytes + BLOSC2_MAX_OVERHEAD);
    for (int32_t i = 0; i < nbytes; i++) src[i] = (uint8_t)(i * 7 + i / 13);
    blosc2_context *cctx = blosc2_create_cctx(cp);
    int rc = blosc2_compress_ctx(cctx, src, nbytes, dst, nbytes + BLOSC2_MAX_OVERHEAD);
    printf("zfp_prec, no array: compress_ctx -> %d\n", rc);
    blosc2_free_ctx(cctx);
    free(src);
    free(dst);
  }

  /* What the cbuffer queries say of an ndlz chunk. */
  {
    plugin_case p = CASES[9]; /* ndlz-ts1-m4 */
    int64_t nbytes = nitems_of(&p) * p.typesize;
    uint8_t *src = make_input(&p);
    blosc2_cparams cp = cparams_of(&p);
    blosc2_storage storage = {.contiguous = false, .cparams = &cp};
    b2nd_context_t *ctx = b2nd_create_ctx(&storage, 2, shape_of(&p), chunkshape_of(&p),
                                          blockshape_of(&p), NULL, 0, NULL, 0);
    b2nd_array_t *arr = NULL;
    if (b2nd_from_cbuffer(ctx, &arr, src, nbytes) == 0) {
      uint8_t *chunk;
      bool needs_free;
      if (blosc2_schunk_get_chunk(arr->sc, 0, &chunk, &needs_free) > 0) {
        int version, versionlz;
        blosc2_cbuffer_versions(chunk, &version, &versionlz);
        printf("ndlz chunk: complib %s, versions %d %d\n", blosc2_cbuffer_complib(chunk),
               version, versionlz);
        if (needs_free) free(chunk);
      }
      b2nd_free(arr);
    }
    b2nd_free_ctx(ctx);
    free(src);
  }

  /* Without a b2nd metalayer (plain chunks, a plain super-chunk) both filters fail. */
  for (int f = 0; f < 2; f++) {
    plugin_case p = {"", f ? BLOSC_FILTER_NDMEAN : BLOSC_FILTER_NDCELL, 2, 0, 2, 4, 1, 1};
    blosc2_cparams cp = cparams_of(&p);
    int32_t nbytes = 4000;
    uint8_t *src = make_input(&p), *dst = malloc(nbytes + BLOSC2_MAX_OVERHEAD);
    blosc2_context *cctx = blosc2_create_cctx(cp);
    int rc = blosc2_compress_ctx(cctx, src, nbytes, dst, nbytes + BLOSC2_MAX_OVERHEAD);
    printf("filter %d, no array: compress_ctx -> %d\n", p.filter, rc);
    blosc2_free_ctx(cctx);
    blosc2_storage storage = {.contiguous = false, .cparams = &cp};
    blosc2_schunk *sc = blosc2_schunk_new(&storage);
    printf("filter %d, no array: schunk_append_buffer -> %lld\n", p.filter,
           (long long)blosc2_schunk_append_buffer(sc, src, nbytes));
    blosc2_schunk_free(sc);
    free(src);
    free(dst);
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2 || (strcmp(argv[1], "refusals") != 0 && argc < 3)) {
    fprintf(stderr, "usage: %s write|read|mutate DIR | refusals\n", argv[0]);
    return 2;
  }
  blosc2_init();
  int rc = 2;
  if (strcmp(argv[1], "write") == 0) rc = write_all(argv[2]);
  else if (strcmp(argv[1], "read") == 0) rc = read_all(argv[2]);
  else if (strcmp(argv[1], "mutate") == 0) rc = mutate_all(argv[2]);
  else if (strcmp(argv[1], "refusals") == 0) rc = refusals();
  blosc2_destroy();
  return rc;
}
