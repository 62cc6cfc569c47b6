/*
 * Mutation driver: opens and reads blosc2 inputs completely through the public C API, and
 * generates deterministic mutants of seed inputs, each read in its own forked child.
 *
 *   mutate_open read PATH...           read each file (or sparse-frame directory) in-process;
 *                                      for regression cases and valgrind
 *   mutate_open mutate SEED N [FIRST]  mutants FIRST..FIRST+N-1 of the file SEED
 *   mutate_open mutate-dir DIR N [FIRST]  mutants of the files of the sparse frame DIR
 *   mutate_open mutate-b2nd SEED N [FIRST]  mutants of the b2nd array file SEED, most of them
 *                                      inside its b2nd/caterva metalayer or frame header; each
 *                                      is read as an array only (b2nd_open, b2nd_from_cframe,
 *                                      to_cbuffer and a slice), so many more fit in the time
 *   mutate_open write-seeds DIR        write seed inputs with this library into DIR
 *
 * "Reading completely" tries every interpretation on every file, since a mutant of one kind
 * of input may well parse as another: a chunk (cbuffer_sizes/validate/metainfo, decompress,
 * getitem), a frame in memory and on disk (every chunk, every metalayer and vlmetalayer), a
 * b2nd array in memory and on disk (to_cbuffer and a slice). A directory is opened as a sparse
 * frame. Return codes do not matter here, only that the process survives.
 *
 * A child that dies of a signal (crash, abort, or SIGALRM after MUTATE_TIMEOUT seconds, default
 * 20) is a failure: its mutant is written to $MUTATE_OUT (default .) as
 * crash-<seed name>-<index>.bin (for a directory, the mutated file keeps its name inside a copy
 * of the directory crash-<dir name>-<index>/) and the driver exits 1 after the remaining mutants.
 * A child also fails (exit 3) when the library returns sizes inconsistent with its buffers.
 * Children run with a 2 GiB address-space limit: an allocation the input merely claims to need
 * must fail cleanly, not take the machine down.
 */
#include <blosc2.h>
#include <b2nd.h>
#include <blosc2/codecs-registry.h>
#include <blosc2/filters-registry.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_DECOMPRESSED (64 * 1024 * 1024)
#define MAX_CHUNKS_READ 4096
/* Room for a directory of at most PATH_MAX bytes, a slash and a file name. */
#define PATH_ROOM (PATH_MAX + 260)

static void die(const char *what) {
  perror(what);
  exit(2);
}

/* ---- reading ------------------------------------------------------------------------------ */

static void read_chunk(const uint8_t *buf, int64_t len) {
  if (len < BLOSC_MIN_HEADER_LENGTH || len > INT32_MAX) return;
  /* The queries without a length read the 32-byte extended header when the flags announce it
   * (both shuffle bits set), as in c-blosc2: their contract is a buffer holding the whole
   * header, so a shorter one only goes to the calls that take a length. */
  if (len < BLOSC_EXTENDED_HEADER_LENGTH && (buf[2] & 0x05) == 0x05) {
    size_t vnbytes = 0;
    (void)blosc1_cbuffer_validate(buf, (size_t)len, &vnbytes);
    uint8_t out[64];
    (void)blosc2_decompress(buf, (int32_t)len, out, (int32_t)sizeof(out));
    return;
  }
  int32_t nbytes = 0, cbytes = 0, blocksize = 0;
  if (blosc2_cbuffer_sizes(buf, &nbytes, &cbytes, &blocksize) < 0) return;
  size_t vnbytes = 0;
  (void)blosc1_cbuffer_validate(buf, (size_t)len, &vnbytes);
  size_t typesize = 0;
  int flags = 0;
  blosc1_cbuffer_metainfo(buf, &typesize, &flags);
  int version = 0, versionlz = 0;
  blosc2_cbuffer_versions(buf, &version, &versionlz);
  if (nbytes < 0 || nbytes > MAX_DECOMPRESSED) return;
  uint8_t *out = malloc((size_t)nbytes + 1);
  if (out == NULL) die("malloc");
  int rc = blosc2_decompress(buf, (int32_t)len, out, nbytes);
  if (rc > nbytes) {
    fprintf(stderr, "decompress returned %d for a %d-byte destination\n", rc, nbytes);
    exit(3);
  }
  /* A destination one byte too small must be refused, not overrun (ASan/valgrind see it). */
  if (nbytes > 0) {
    uint8_t *small = malloc((size_t)nbytes - 1 + 1);
    if (small == NULL) die("malloc");
    (void)blosc2_decompress(buf, (int32_t)len, small, nbytes - 1);
    free(small);
  }
  if (typesize > 0 && nbytes > 0) {
    int items = nbytes / (int)typesize;
    int starts[3] = {0, items / 2, items > 0 ? items - 1 : 0};
    for (int i = 0; i < 3; i++) {
      int n = items - starts[i] < 3 ? items - starts[i] : 3;
      if (n <= 0) continue;
      (void)blosc2_getitem(buf, (int32_t)len, starts[i], n, out, (int32_t)(n * (int)typesize));
    }
  }
  free(out);
}

static void read_schunk(blosc2_schunk *schunk) {
  if (schunk == NULL) return;
  int64_t nchunks = schunk->nchunks;
  int32_t chunksize = schunk->chunksize;
  uint8_t *out = NULL;
  if (chunksize > 0 && chunksize <= MAX_DECOMPRESSED) {
    out = malloc((size_t)chunksize);
    if (out == NULL) die("malloc");
  }
  for (int64_t i = 0; i < nchunks && i < MAX_CHUNKS_READ; i++) {
    if (out != NULL) {
      int rc = blosc2_schunk_decompress_chunk(schunk, i, out, chunksize);
      if (rc > chunksize) {
        fprintf(stderr, "schunk_decompress_chunk returned %d for %d bytes\n", rc, chunksize);
        exit(3);
      }
    }
    uint8_t *chunk = NULL;
    bool needs_free = false;
    int cbytes = blosc2_schunk_get_chunk(schunk, i, &chunk, &needs_free);
    if (cbytes > 0 && chunk != NULL) read_chunk(chunk, cbytes);
    if (needs_free) free(chunk);
    chunk = NULL;
    needs_free = false;
    cbytes = blosc2_schunk_get_lazychunk(schunk, i, &chunk, &needs_free);
    if (cbytes >= BLOSC_MIN_HEADER_LENGTH && chunk != NULL) {
      int32_t nbytes = 0, cb = 0, bs = 0;
      (void)blosc2_cbuffer_sizes(chunk, &nbytes, &cb, &bs);
      /* getitem through the super-chunk's context (which knows its array layout: zfp_rate
       * chunks of an array take the cell-wise path), across cells and blocks. */
      static const int starts[] = {0, 1, 5, 17, 63}, counts[] = {1, 2, 4, 16, 70};
      static uint8_t items[70 * 255];
      for (int a = 0; a < 5; a++) {
        (void)blosc2_getitem_ctx(schunk->dctx, chunk, cbytes, starts[a], counts[a], items,
                                 (int32_t)sizeof items);
      }
    }
    if (needs_free) free(chunk);
  }
  /* Parts of chunks (getitem) and whole chunks, as slices of the super-chunk. */
  int64_t typesize = schunk->typesize;
  if (typesize > 0 && typesize <= 255 && schunk->nbytes >= 0) {
    static uint8_t items[40 * 255];
    int64_t nitems = schunk->nbytes / typesize;
    static const int64_t starts[] = {0, 3, 30}, lens[] = {1, 4, 10};
    for (int a = 0; a < 3; a++) {
      if (starts[a] + lens[a] <= nitems) {
        (void)blosc2_schunk_get_slice_buffer(schunk, starts[a], starts[a] + lens[a], items);
      }
    }
  }
  free(out);
  for (int i = 0; i < schunk->nmetalayers && i < BLOSC2_MAX_METALAYERS; i++) {
    if (schunk->metalayers[i] == NULL || schunk->metalayers[i]->name == NULL) continue;
    uint8_t *content = NULL;
    int32_t content_len = 0;
    if (blosc2_meta_get(schunk, schunk->metalayers[i]->name, &content, &content_len) >= 0) {
      free(content);
    }
  }
  int nvl = schunk->nvlmetalayers;
  if (nvl > 0 && nvl <= BLOSC2_MAX_VLMETALAYERS) {
    char *names[BLOSC2_MAX_VLMETALAYERS];
    int n = blosc2_vlmeta_get_names(schunk, names);
    for (int i = 0; i < n && i < nvl; i++) {
      uint8_t *content = NULL;
      int32_t content_len = 0;
      if (names[i] != NULL && blosc2_vlmeta_get(schunk, names[i], &content, &content_len) >= 0) {
        free(content);
      }
    }
  }
}

static void read_b2nd(b2nd_array_t *array) {
  if (array == NULL) return;
  int64_t typesize = array->sc != NULL ? array->sc->typesize : 0;
  int64_t nitems = array->nitems;
  if (typesize > 0 && nitems >= 0 && nitems <= MAX_DECOMPRESSED / typesize) {
    int64_t size = nitems * typesize;
    uint8_t *out = malloc((size_t)size + 1);
    if (out == NULL) die("malloc");
    (void)b2nd_to_cbuffer(array, out, size);
    free(out);
  }
  int8_t ndim = array->ndim;
  if (ndim >= 1 && ndim <= B2ND_MAX_DIM && typesize > 0) {
    int64_t start[B2ND_MAX_DIM], stop[B2ND_MAX_DIM], shape[B2ND_MAX_DIM];
    int64_t items = 1;
    for (int d = 0; d < ndim; d++) {
      int64_t extent = array->shape[d];
      start[d] = extent > 1 ? extent / 3 : 0;
      stop[d] = extent > start[d] + 2 ? start[d] + 2 : (extent > start[d] ? extent : start[d]);
      shape[d] = stop[d] - start[d];
      items *= shape[d];
    }
    if (items >= 0 && items * typesize <= MAX_DECOMPRESSED) {
      int64_t size = items * typesize;
      uint8_t *out = malloc((size_t)size + 1);
      if (out == NULL) die("malloc");
      (void)b2nd_get_slice_cbuffer(array, start, stop, out, shape, size);
      free(out);
    }
  }
  b2nd_free(array);
}

static void read_buffer(uint8_t *buf, int64_t len, const char *path) {
  read_chunk(buf, len);
  blosc2_schunk *schunk = blosc2_schunk_from_buffer(buf, len, false);
  read_schunk(schunk);
  if (schunk != NULL) blosc2_schunk_free(schunk);
  schunk = blosc2_schunk_from_buffer(buf, len, true);
  if (schunk != NULL) blosc2_schunk_free(schunk);
  b2nd_array_t *array = NULL;
  if (b2nd_from_cframe(buf, len, false, &array) >= 0) read_b2nd(array);
  if (path != NULL) {
    schunk = blosc2_schunk_open(path);
    read_schunk(schunk);
    if (schunk != NULL) blosc2_schunk_free(schunk);
    array = NULL;
    if (b2nd_open(path, &array) >= 0) read_b2nd(array);
  }
}

static void read_dir(const char *path) {
  blosc2_schunk *schunk = blosc2_schunk_open(path);
  read_schunk(schunk);
  if (schunk != NULL) blosc2_schunk_free(schunk);
  b2nd_array_t *array = NULL;
  if (b2nd_open(path, &array) >= 0) read_b2nd(array);
}

static uint8_t *slurp(const char *path, int64_t *len) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) die(path);
  if (fseek(f, 0, SEEK_END) != 0) die(path);
  long size = ftell(f);
  if (size < 0) die(path);
  rewind(f);
  uint8_t *buf = malloc((size_t)size + 1);
  if (buf == NULL) die("malloc");
  if (size > 0 && fread(buf, 1, (size_t)size, f) != (size_t)size) die(path);
  fclose(f);
  *len = size;
  return buf;
}

static void spill(const char *path, const uint8_t *buf, int64_t len) {
  FILE *f = fopen(path, "wb");
  if (f == NULL) die(path);
  if (len > 0 && fwrite(buf, 1, (size_t)len, f) != (size_t)len) die(path);
  if (fclose(f) != 0) die(path);
}

static bool is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void read_path(const char *path) {
  if (is_dir(path)) {
    read_dir(path);
  } else {
    int64_t len = 0;
    uint8_t *buf = slurp(path, &len);
    read_buffer(buf, len, path);
    free(buf);
  }
}


/* ---- seeds written by the library under test ---------------------------------------------- */

/* Chunks with each codec and filter, a frame with metalayers, vlmetalayers and a special chunk,
 * a b2nd array, a sparse frame: inputs with parts the data files of tests/data lack. */
static void write_seeds(const char *dir) {
  blosc2_init();
  static int32_t data[4096];
  for (int i = 0; i < 4096; i++) data[i] = (i * 37) % 1000 + (i / 64) * 11;
  static uint8_t chunk[sizeof data + BLOSC2_MAX_OVERHEAD];
  const char *codecs[] = {"blosclz", "lz4", "lz4hc", "zlib", "zstd"};
  const int filters[] = {BLOSC_NOSHUFFLE, BLOSC_SHUFFLE, BLOSC_BITSHUFFLE, BLOSC_DELTA,
                         BLOSC_TRUNC_PREC, BLOSC_FILTER_BYTEDELTA};
  char path[PATH_ROOM];
  for (int c = 0; c < 5; c++) {
    for (int f = 0; f < 6; f++) {
      if (c != 0 && f != 1 && f != 5) continue;
      blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
      cparams.typesize = 4;
      cparams.nthreads = 1;
      cparams.compcode = (uint8_t)blosc2_compname_to_compcode(codecs[c]);
      cparams.filters[BLOSC2_MAX_FILTERS - 1] = (uint8_t)filters[f];
      cparams.filters_meta[BLOSC2_MAX_FILTERS - 1] = filters[f] == BLOSC_TRUNC_PREC ? 20 : 0;
      cparams.blocksize = 2048;
      blosc2_context *cctx = blosc2_create_cctx(cparams);
      int n = blosc2_compress_ctx(cctx, data, sizeof data, chunk, sizeof chunk);
      blosc2_free_ctx(cctx);
      if (n <= 0) continue;
      snprintf(path, sizeof path, "%s/chunk-%s-%d.cdata", dir, codecs[c], filters[f]);
      spill(path, chunk, n);
    }
  }
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = 4;
  cparams.nthreads = 1;
  for (int sparse = 0; sparse < 2; sparse++) {
    snprintf(path, sizeof path, "%s/%s", dir, sparse ? "written-sframe.b2frame" : "written.b2frame");
    blosc2_storage storage = {.contiguous = !sparse, .urlpath = path, .cparams = &cparams};
    blosc2_remove_urlpath(path);
    blosc2_schunk *schunk = blosc2_schunk_new(&storage);
    if (schunk == NULL) die("schunk_new");
    uint8_t meta[] = {0x93, 1, 2, 3};
    blosc2_meta_add(schunk, "meta1", meta, sizeof meta);
    uint8_t meta2[] = {0xa2, 'h', 'i'};
    blosc2_meta_add(schunk, "second", meta2, sizeof meta2);
    uint8_t vl[] = {0xa3, 'a', 'b', 'c'};
    blosc2_vlmeta_add(schunk, "vl1", vl, sizeof vl, NULL);
    blosc2_vlmeta_add(schunk, "vl2", (uint8_t *)data, 64, NULL);
    blosc2_schunk_append_buffer(schunk, data, 4096);
    blosc2_schunk_append_buffer(schunk, data + 1024, 4096);
    int n = blosc2_chunk_zeros(cparams, 4096, chunk, sizeof chunk);
    if (n > 0) blosc2_schunk_append_chunk(schunk, chunk, true);
    blosc2_schunk_append_buffer(schunk, data + 2048, 4096);
    blosc2_schunk_free(schunk);
  }
  int64_t shape[3] = {10, 12, 9};
  int32_t chunkshape[3] = {5, 6, 4};
  int32_t blockshape[3] = {2, 3, 2};
  snprintf(path, sizeof path, "%s/written.b2nd", dir);
  blosc2_remove_urlpath(path);
  blosc2_storage storage = {.contiguous = true, .urlpath = path, .cparams = &cparams};
  b2nd_context_t *ctx = b2nd_create_ctx(&storage, 3, shape, chunkshape, blockshape, "<i4", 0,
                                        NULL, 0);
  b2nd_array_t *array = NULL;
  if (ctx == NULL || b2nd_from_cbuffer(ctx, &array, data, 10 * 12 * 9 * 4) < 0) die("b2nd");
  b2nd_free(array);
  b2nd_free_ctx(ctx);

  /* 1-d float64 with DELTA, another metalayer and a vlmetalayer; a 5-d array of zeros (special
     chunks, no chunk bytes) with a structured dtype; a 2-d array in a sparse frame
     (named .b2frame: mutate.sh takes those directories as sparse-frame seeds). */
  blosc2_cparams cp8 = cparams;
  cp8.typesize = 8;
  cp8.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_DELTA;
  snprintf(path, sizeof path, "%s/written-1d.b2nd", dir);
  blosc2_remove_urlpath(path);
  blosc2_storage st1 = {.contiguous = true, .urlpath = path, .cparams = &cp8};
  int64_t shape1[1] = {2000};
  int32_t chunk1[1] = {300}, block1[1] = {64};
  uint8_t extra[] = {0x92, 7, 9};
  blosc2_metalayer metas[1] = {{.name = "extra", .content = extra, .content_len = 3}};
  ctx = b2nd_create_ctx(&st1, 1, shape1, chunk1, block1, "<f8", 0, metas, 1);
  if (ctx == NULL || b2nd_from_cbuffer(ctx, &array, data, 2000 * 8) < 0) die("b2nd 1-d");
  uint8_t vl[] = {0xa2, 'o', 'k'};
  blosc2_vlmeta_add(array->sc, "attrs", vl, sizeof vl, NULL);
  b2nd_free(array);
  b2nd_free_ctx(ctx);

  blosc2_cparams cp2 = cparams;
  cp2.typesize = 6;
  snprintf(path, sizeof path, "%s/written-5d-zeros.b2nd", dir);
  blosc2_remove_urlpath(path);
  blosc2_storage st5 = {.contiguous = true, .urlpath = path, .cparams = &cp2};
  int64_t shape5[5] = {3, 4, 5, 2, 7};
  int32_t chunk5[5] = {2, 3, 5, 1, 4}, block5[5] = {1, 2, 2, 1, 3};
  ctx = b2nd_create_ctx(&st5, 5, shape5, chunk5, block5, "[('a', '<i4'), ('b', '<u2')]", 0,
                        NULL, 0);
  if (ctx == NULL || b2nd_zeros(ctx, &array) < 0) die("b2nd 5-d");
  b2nd_free(array);
  b2nd_free_ctx(ctx);

  /* zfp_rate (codec 35), whose getitem decodes single cells of its fixed-rate blocks. */
  static float floats[24 * 21];
  for (int i = 0; i < 24 * 21; i++) floats[i] = (float)((i % 21) * 0.75 + (i / 21) * 1.5);
  blosc2_cparams cpz = cparams;
  cpz.typesize = 4;
  cpz.compcode = BLOSC_CODEC_ZFP_FIXED_RATE;
  cpz.compcode_meta = 40;
  for (int i = 0; i < BLOSC2_MAX_FILTERS; i++) cpz.filters[i] = 0;
  snprintf(path, sizeof path, "%s/written-zfp-rate.b2nd", dir);
  blosc2_remove_urlpath(path);
  blosc2_storage stz = {.contiguous = true, .urlpath = path, .cparams = &cpz};
  int64_t shapez[2] = {24, 21};
  int32_t chunkz[2] = {16, 12}, blockz[2] = {8, 6};
  ctx = b2nd_create_ctx(&stz, 2, shapez, chunkz, blockz, "<f4", 0, NULL, 0);
  if (ctx == NULL || b2nd_from_cbuffer(ctx, &array, floats, sizeof floats) < 0) die("b2nd zfp");
  b2nd_free(array);
  b2nd_free_ctx(ctx);

  snprintf(path, sizeof path, "%s/written-b2nd.b2frame", dir);
  blosc2_remove_urlpath(path);
  blosc2_storage sts = {.contiguous = false, .urlpath = path, .cparams = &cparams};
  int64_t shape2[2] = {40, 33};
  int32_t chunk2[2] = {16, 16}, block2[2] = {8, 5};
  ctx = b2nd_create_ctx(&sts, 2, shape2, chunk2, block2, "<i4", 0, NULL, 0);
  if (ctx == NULL || b2nd_from_cbuffer(ctx, &array, data, 40 * 33 * 4) < 0) die("b2nd sparse");
  b2nd_free(array);
  b2nd_free_ctx(ctx);
  blosc2_destroy();
}

/* ---- mutants ------------------------------------------------------------------------------ */

static uint64_t splitmix(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

static uint64_t below(uint64_t *rng, uint64_t n) { return n == 0 ? 0 : splitmix(rng) % n; }

/* Bytes [focus_start, focus_end) of the seed get most mutations when focus_end > 0 (the frame
 * header and b2nd metalayer in mutate-b2nd); unset in the other modes. */
static int64_t focus_start = 0, focus_end = 0;

/* A position favouring the first and last 64 bytes, where headers, trailers and indexes are
 * (and the focus range, when set). */
static int64_t position(uint64_t *rng, int64_t len) {
  if (len <= 0) return 0;
  if (focus_end > 0 && focus_start < len && below(rng, 10) < 7) {
    int64_t end = focus_end < len ? focus_end : len;
    return focus_start + (int64_t)below(rng, (uint64_t)(end - focus_start));
  }
  uint64_t r = below(rng, 10);
  int64_t edge = len < 64 ? len : 64;
  if (r < 4) return (int64_t)below(rng, (uint64_t)edge);
  if (r < 7) return len - 1 - (int64_t)below(rng, (uint64_t)edge);
  return (int64_t)below(rng, (uint64_t)len);
}

static const int64_t interesting[] = {0, 1, -1, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff,
                                      0x7fffffff, (int64_t)0x80000000LL, 0xffffffffLL,
                                      INT64_MAX, INT64_MIN, 16, 32, 255, 256, 1024, 65536};

/* Mutant `index` of `seed` (a fresh allocation in *out, its length returned). One to three
 * mutations of: bit flip, byte overwrite, 2/4/8-byte integer overwrite (either byte order),
 * truncation, insertion, deletion, block duplication. */
static int64_t mutant(const uint8_t *seed, int64_t seedlen, uint64_t seedhash, uint64_t index,
                      uint8_t **out) {
  uint64_t rng = seedhash ^ (index * 0xD1B54A32D192ED03ULL);
  int64_t cap = seedlen + 4096;
  uint8_t *buf = malloc((size_t)cap);
  if (buf == NULL) die("malloc");
  memcpy(buf, seed, (size_t)seedlen);
  int64_t len = seedlen;
  int rounds = 1 + (int)below(&rng, 3);
  for (int r = 0; r < rounds; r++) {
    uint64_t op = below(&rng, 100);
    if (len == 0) op = 80;
    if (op < 35) { /* bit flip */
      int64_t p = position(&rng, len);
      buf[p] ^= (uint8_t)(1u << below(&rng, 8));
    } else if (op < 55) { /* byte overwrite */
      int64_t p = position(&rng, len);
      buf[p] = below(&rng, 2) ? (uint8_t)interesting[below(&rng, 9)] : (uint8_t)splitmix(&rng);
    } else if (op < 72) { /* integer overwrite */
      static const int widths[] = {2, 4, 8};
      int w = widths[below(&rng, 3)];
      int64_t p = position(&rng, len);
      if (p + w > len) p = len - w;
      if (p < 0) continue;
      int64_t v = below(&rng, 4) ? interesting[below(&rng, sizeof interesting / sizeof *interesting)]
                                 : (int64_t)splitmix(&rng);
      bool big = below(&rng, 2);
      for (int b = 0; b < w; b++) {
        int shift = big ? 8 * (w - 1 - b) : 8 * b;
        buf[p + b] = (uint8_t)((uint64_t)v >> shift);
      }
    } else if (op < 80) { /* truncation, often into the trailer */
      len = below(&rng, 2) ? position(&rng, len) : (int64_t)below(&rng, (uint64_t)len + 1);
    } else if (op < 88) { /* insertion */
      int64_t n = 1 + (int64_t)below(&rng, 16);
      if (len + n > cap) continue;
      int64_t p = len > 0 ? position(&rng, len) : 0;
      memmove(buf + p + n, buf + p, (size_t)(len - p));
      for (int64_t i = 0; i < n; i++) buf[p + i] = (uint8_t)splitmix(&rng);
      len += n;
    } else if (op < 95) { /* deletion */
      int64_t p = position(&rng, len);
      int64_t n = 1 + (int64_t)below(&rng, 16);
      if (p + n > len) n = len - p;
      memmove(buf + p, buf + p + n, (size_t)(len - p - n));
      len -= n;
    } else { /* duplicate a block over another place */
      int64_t n = 1 + (int64_t)below(&rng, 32);
      if (n > len) continue;
      int64_t from = (int64_t)below(&rng, (uint64_t)(len - n + 1));
      int64_t to = (int64_t)below(&rng, (uint64_t)(len - n + 1));
      memmove(buf + to, buf + from, (size_t)n);
    }
  }
  *out = buf;
  return len;
}

static uint64_t hash_name(const char *s) {
  uint64_t h = 1469598103934665603ULL;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211ULL;
  return h;
}

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash != NULL && slash[1] != '\0' ? slash + 1 : path;
}

static unsigned timeout_seconds(void) {
  const char *s = getenv("MUTATE_TIMEOUT");
  return s != NULL && atoi(s) > 0 ? (unsigned)atoi(s) : 20;
}

static const char *out_dir(void) {
  const char *s = getenv("MUTATE_OUT");
  return s != NULL && *s ? s : ".";
}

/* Runs `what` in a child with a time and address-space limit; 0 when it exited 0. */
static int run_child(void (*what)(void *), void *arg, int *status_out) {
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) die("fork");
  if (pid == 0) {
    struct rlimit lim = {2ULL << 30, 2ULL << 30};
    setrlimit(RLIMIT_AS, &lim);
    alarm(timeout_seconds());
    what(arg);
    _exit(0);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) die("waitpid");
  }
  *status_out = status;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

static void describe(int status, char *text, size_t size) {
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    snprintf(text, size, "%s (signal %d)", sig == SIGALRM ? "hang" : strsignal(sig), sig);
  } else {
    snprintf(text, size, "exit %d", WEXITSTATUS(status));
  }
}

struct file_job {
  uint8_t *buf;
  int64_t len;
  const char *path;
};

static void file_job(void *arg) {
  struct file_job *job = arg;
  blosc2_init();
  read_buffer(job->buf, job->len, job->path);
  blosc2_destroy();
}

static void dir_job(void *arg) {
  blosc2_init();
  read_dir(arg);
  blosc2_destroy();
}

static void parse_range(int argc, char **argv, int at, uint64_t *n, uint64_t *first) {
  *n = strtoull(argv[at], NULL, 10);
  *first = argc > at + 1 ? strtoull(argv[at + 1], NULL, 10) : 0;
}

static int mutate_file(const char *seedpath, uint64_t n, uint64_t first) {
  int64_t seedlen = 0;
  uint8_t *seed = slurp(seedpath, &seedlen);
  const char *name = base_name(seedpath);
  uint64_t seedhash = hash_name(name);
  char tmp[PATH_MAX];
  snprintf(tmp, sizeof tmp, "%s/mutant-%d.bin", out_dir(), (int)getpid());
  int failures = 0;
  for (uint64_t i = first; i < first + n; i++) {
    struct file_job job = {NULL, 0, tmp};
    job.len = mutant(seed, seedlen, seedhash, i, &job.buf);
    spill(tmp, job.buf, job.len);
    int status = 0;
    if (run_child(file_job, &job, &status) != 0) {
      char why[128], keep[PATH_MAX];
      describe(status, why, sizeof why);
      snprintf(keep, sizeof keep, "%s/crash-%s-%llu.bin", out_dir(), name, (unsigned long long)i);
      spill(keep, job.buf, job.len);
      printf("FAIL %s mutant %llu: %s, kept as %s\n", name, (unsigned long long)i, why, keep);
      failures++;
    }
    free(job.buf);
  }
  unlink(tmp);
  free(seed);
  printf("%s: %llu mutants, %d failures\n", name, (unsigned long long)n, failures);
  return failures != 0;
}

static void b2nd_job(void *arg) {
  struct file_job *job = arg;
  blosc2_init();
  b2nd_array_t *array = NULL;
  if (b2nd_from_cframe(job->buf, job->len, false, &array) >= 0) read_b2nd(array);
  array = NULL;
  if (b2nd_open(job->path, &array) >= 0) read_b2nd(array);
  blosc2_destroy();
}

static const uint8_t *find_bytes(const uint8_t *hay, int64_t n, const uint8_t *needle, int64_t m) {
  for (int64_t i = 0; m > 0 && i + m <= n; i++) {
    if (memcmp(hay + i, needle, (size_t)m) == 0) return hay + i;
  }
  return NULL;
}

/* Mutants of a b2nd file, 7 in 10 mutations inside the content of its b2nd (or caterva)
 * metalayer, the rest where `position` puts them (frame header and trailer favoured). */
static int mutate_b2nd(const char *seedpath, uint64_t n, uint64_t first) {
  blosc2_init();
  b2nd_array_t *array = NULL;
  int rc = b2nd_open(seedpath, &array);
  if (rc < 0) {
    fprintf(stderr, "%s: not a b2nd array (%d)\n", seedpath, rc);
    return 1;
  }
  int64_t seedlen = 0;
  uint8_t *seed = slurp(seedpath, &seedlen);
  uint8_t *meta = NULL;
  int32_t meta_len = 0;
  if (blosc2_meta_get(array->sc, "b2nd", &meta, &meta_len) < 0) {
    (void)blosc2_meta_get(array->sc, "caterva", &meta, &meta_len);
  }
  const uint8_t *at = meta != NULL ? find_bytes(seed, seedlen, meta, meta_len) : NULL;
  focus_start = at != NULL ? at - seed : 0;
  focus_end = at != NULL ? (at - seed) + meta_len : (seedlen < 256 ? seedlen : 256);
  free(meta);
  b2nd_free(array);
  blosc2_destroy();
  const char *name = base_name(seedpath);
  uint64_t seedhash = hash_name(name) ^ 0xB2D;
  char tmp[PATH_MAX];
  snprintf(tmp, sizeof tmp, "%s/mutant-%d.b2nd", out_dir(), (int)getpid());
  int failures = 0;
  for (uint64_t i = first; i < first + n; i++) {
    struct file_job job = {NULL, 0, tmp};
    job.len = mutant(seed, seedlen, seedhash, i, &job.buf);
    spill(tmp, job.buf, job.len);
    int status = 0;
    if (run_child(b2nd_job, &job, &status) != 0) {
      char why[128], keep[PATH_MAX];
      describe(status, why, sizeof why);
      snprintf(keep, sizeof keep, "%s/crash-b2nd-%s-%llu.bin", out_dir(), name,
               (unsigned long long)i);
      spill(keep, job.buf, job.len);
      printf("FAIL %s b2nd mutant %llu: %s, kept as %s\n", name, (unsigned long long)i, why, keep);
      failures++;
    }
    free(job.buf);
  }
  unlink(tmp);
  free(seed);
  printf("%s: %llu mutants, %d failures (b2nd, metalayer at bytes %lld-%lld)\n", name,
         (unsigned long long)n, failures, (long long)focus_start, (long long)focus_end);
  return failures != 0;
}

/* The regular files of `dir`, sorted so that mutant numbers are stable. */
static int list_files(const char *dir, char names[][256], int max) {
  DIR *d = opendir(dir);
  if (d == NULL) die(dir);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL && n < max) {
    char path[PATH_ROOM];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (e->d_name[0] == '.' || is_dir(path)) continue;
    snprintf(names[n++], 256, "%s", e->d_name);
  }
  closedir(d);
  qsort(names, (size_t)n, 256, (int (*)(const void *, const void *))strcmp);
  return n;
}

static void copy_dir(const char *from, const char *to, char names[][256], int n) {
  if (mkdir(to, 0755) != 0 && errno != EEXIST) die(to);
  for (int i = 0; i < n; i++) {
    char a[PATH_ROOM], b[PATH_ROOM];
    snprintf(a, sizeof a, "%s/%s", from, names[i]);
    snprintf(b, sizeof b, "%s/%s", to, names[i]);
    int64_t len = 0;
    uint8_t *buf = slurp(a, &len);
    spill(b, buf, len);
    free(buf);
  }
}

static int mutate_dir(const char *dirpath, uint64_t n, uint64_t first) {
  static char names[64][256];
  /* Names of at most 255 bytes, as readdir gives them. */
  int nfiles = list_files(dirpath, names, 64);
  if (nfiles == 0) {
    fprintf(stderr, "%s: no files\n", dirpath);
    return 1;
  }
  char dirname[256];
  snprintf(dirname, sizeof dirname, "%s", base_name(dirpath));
  char *slash = strchr(dirname, '/');
  if (slash != NULL) *slash = '\0';
  uint64_t seedhash = hash_name(dirname);
  char work[PATH_MAX];
  snprintf(work, sizeof work, "%s/mutant-%d.dir", out_dir(), (int)getpid());
  copy_dir(dirpath, work, names, nfiles);
  int failures = 0;
  for (uint64_t i = first; i < first + n; i++) {
    /* The index file (chunks.b2frame) gets half the mutants, the chunk files share the rest. */
    uint64_t pick_rng = seedhash ^ i;
    int which = -1;
    for (int f = 0; f < nfiles; f++) {
      if (strcmp(names[f], "chunks.b2frame") == 0) which = f;
    }
    if (which < 0 || below(&pick_rng, 2)) which = (int)below(&pick_rng, (uint64_t)nfiles);
    char orig[PATH_ROOM], target[PATH_ROOM];
    snprintf(orig, sizeof orig, "%s/%s", dirpath, names[which]);
    snprintf(target, sizeof target, "%s/%s", work, names[which]);
    int64_t seedlen = 0;
    uint8_t *seed = slurp(orig, &seedlen);
    uint8_t *buf = NULL;
    int64_t len = mutant(seed, seedlen, seedhash ^ hash_name(names[which]), i, &buf);
    spill(target, buf, len);
    int status = 0;
    if (run_child(dir_job, work, &status) != 0) {
      char why[128], keep[PATH_MAX];
      describe(status, why, sizeof why);
      snprintf(keep, sizeof keep, "%s/crash-%s-%llu", out_dir(), dirname, (unsigned long long)i);
      copy_dir(work, keep, names, nfiles);
      printf("FAIL %s mutant %llu (%s): %s, kept as %s\n", dirname, (unsigned long long)i,
             names[which], why, keep);
      failures++;
    }
    spill(target, seed, seedlen);
    free(buf);
    free(seed);
  }
  for (int f = 0; f < nfiles; f++) {
    char p[PATH_ROOM];
    snprintf(p, sizeof p, "%s/%.255s", work, names[f]);
    unlink(p);
  }
  rmdir(work);
  printf("%s: %llu mutants, %d failures\n", dirname, (unsigned long long)n, failures);
  return failures != 0;
}

/* fuzz/fuzz_targets.c includes this file for its readers, without this main. */
#ifndef MUTATE_OPEN_NO_MAIN
int main(int argc, char **argv) {
  if (argc >= 3 && strcmp(argv[1], "read") == 0) {
    blosc2_init();
    for (int i = 2; i < argc; i++) {
      read_path(argv[i]);
      printf("read %s\n", argv[i]);
    }
    blosc2_destroy();
    return 0;
  }
  if (argc == 3 && strcmp(argv[1], "write-seeds") == 0) {
    write_seeds(argv[2]);
    return 0;
  }
  uint64_t n = 0, first = 0;
  if (argc >= 4 && strcmp(argv[1], "mutate") == 0) {
    parse_range(argc, argv, 3, &n, &first);
    return mutate_file(argv[2], n, first);
  }
  if (argc >= 4 && strcmp(argv[1], "mutate-dir") == 0) {
    parse_range(argc, argv, 3, &n, &first);
    return mutate_dir(argv[2], n, first);
  }
  if (argc >= 4 && strcmp(argv[1], "mutate-b2nd") == 0) {
    parse_range(argc, argv, 3, &n, &first);
    return mutate_b2nd(argv[2], n, first);
  }
  fprintf(stderr,
          "usage: %s read PATH... | mutate SEED N [FIRST] | mutate-dir DIR N [FIRST] |"
          " mutate-b2nd SEED N [FIRST] | write-seeds DIR\n",
          argv[0]);
  return 2;
}
#endif
