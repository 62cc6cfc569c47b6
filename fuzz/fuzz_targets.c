/*
 * libFuzzer targets over the public C API (see fuzz/run.sh). One target per build, chosen with
 * -DFUZZ_TARGET=n:
 *   1 chunk      blosc2_cbuffer_sizes/validate, decompress, getitem of the input as a chunk
 *   2 roundtrip  compress the input with parameters taken from its first bytes, decompress,
 *                compare
 *   3 frame      blosc2_schunk_from_buffer + every chunk, metalayer and vlmetalayer; the same
 *                bytes as a frame file
 *   4 sframe     the input as the index (chunks.b2frame) of a sparse frame directory whose
 *                chunk files are valid, then the whole directory read
 *   5 b2nd       b2nd_from_cframe + to_cbuffer + a slice
 *   6 meta       b2nd_deserialize_meta on the input
 * The readers are those of the mutation driver (capi-tests/mutate_open.c).
 */
#define MUTATE_OPEN_NO_MAIN
#include "../capi-tests/mutate_open.c"

static char scratch[PATH_ROOM];

static void once(void) {
  static bool done = false;
  if (done) return;
  done = true;
  blosc2_init();
  snprintf(scratch, sizeof scratch, "%s/rblosc2-fuzz-%d", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
           (int)getpid());
  mkdir(scratch, 0755);
#if FUZZ_TARGET == 4
  /* A sparse frame with valid chunk files; each input replaces its index. */
  char dir[PATH_ROOM];
  snprintf(dir, sizeof dir, "%s/seeds", scratch);
  mkdir(dir, 0755);
  write_seeds(dir);
  blosc2_init();
#endif
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  once();
  uint8_t *buf = malloc(size + 1);
  if (buf == NULL) return 0;
  memcpy(buf, data, size);
  int64_t len = (int64_t)size;
  char path[PATH_ROOM + 64];
#if FUZZ_TARGET == 1
  read_chunk(buf, len);
#elif FUZZ_TARGET == 2
  if (size >= 4) {
    blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
    cparams.nthreads = 1;
    cparams.clevel = data[0] % 10;
    cparams.typesize = 1 + data[1] % 16;
    cparams.compcode = data[2] % 6 == 5 ? BLOSC_BLOSCLZ : data[2] % 6;
    static const uint8_t filters[] = {BLOSC_NOFILTER, BLOSC_SHUFFLE, BLOSC_BITSHUFFLE,
                                      BLOSC_DELTA, BLOSC_TRUNC_PREC, BLOSC_FILTER_BYTEDELTA};
    cparams.filters[BLOSC2_MAX_FILTERS - 1] = filters[data[3] % 6];
    cparams.filters_meta[BLOSC2_MAX_FILTERS - 1] =
        filters[data[3] % 6] == BLOSC_TRUNC_PREC ? 8 + data[3] % 16 : 0;
    cparams.splitmode = 1 + (data[3] >> 4) % 4;
    const uint8_t *src = data + 4;
    int32_t n = (int32_t)(size - 4);
    uint8_t *c = malloc((size_t)n + BLOSC2_MAX_OVERHEAD);
    uint8_t *d = malloc((size_t)n + 1);
    blosc2_context *cctx = blosc2_create_cctx(cparams);
    int cbytes = cctx ? blosc2_compress_ctx(cctx, src, n, c, n + BLOSC2_MAX_OVERHEAD) : -1;
    if (cctx) blosc2_free_ctx(cctx);
    if (cbytes > 0) {
      int dbytes = blosc2_decompress(c, cbytes, d, n);
      bool lossy = filters[data[3] % 6] == BLOSC_TRUNC_PREC;
      if (dbytes != n || (!lossy && n > 0 && memcmp(src, d, (size_t)n) != 0)) {
        fprintf(stderr, "round trip: %d bytes back of %d\n", dbytes, n);
        abort();
      }
    }
    free(c);
    free(d);
  }
#elif FUZZ_TARGET == 3
  snprintf(path, sizeof path, "%s/input.b2frame", scratch);
  spill(path, buf, len);
  read_buffer(buf, len, path);
#elif FUZZ_TARGET == 4
  snprintf(path, sizeof path, "%s/seeds/written-sframe.b2frame/chunks.b2frame", scratch);
  spill(path, buf, len);
  snprintf(path, sizeof path, "%s/seeds/written-sframe.b2frame", scratch);
  read_dir(path);
#elif FUZZ_TARGET == 5
  b2nd_array_t *array = NULL;
  if (b2nd_from_cframe(buf, len, false, &array) >= 0) read_b2nd(array);
#elif FUZZ_TARGET == 6
  int8_t ndim = 0, dtype_format = 0;
  int64_t shape[B2ND_MAX_DIM];
  int32_t chunkshape[B2ND_MAX_DIM], blockshape[B2ND_MAX_DIM];
  char *dtype = NULL;
  if (size <= INT32_MAX &&
      b2nd_deserialize_meta(buf, (int32_t)len, &ndim, shape, chunkshape, blockshape, &dtype,
                            &dtype_format) >= 0) {
    free(dtype);
  }
#else
#error "FUZZ_TARGET must be 1..6"
#endif
  free(buf);
  return 0;
}
