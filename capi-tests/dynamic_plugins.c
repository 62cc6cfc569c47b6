/* Dynamic plugins: codecs and filters registered without their functions, which the library
 * loads from libblosc2_<name>.so (built by run.sh from capi-tests/dynplugins/) at first use,
 * and the plugin codecs c-blosc2 registers at init that way (grok, 37).
 * run.sh runs it with LD_LIBRARY_PATH = (ours or the reference) + the plugin directory:
 *   dynamic_plugins write DIR   register, compress each case, print sizes, checksums, codes;
 *                               keep each chunk in DIR/<case>.chunk
 *   dynamic_plugins read DIR    register, decompress the chunks the other library wrote (only
 *                               the decoders get loaded in this process), print what came out
 *   dynamic_plugins broken DIR  (ours only) a plugin whose `info` names a function it lacks:
 *                               compression must fail with BLOSC2_ERROR_CODEC_SUPPORT, twice.
 *                               c-blosc2 3.3.5 closes such a library but keeps the encoder it
 *                               found in it, and crashes calling it at the next compression.
 * The outputs of both libraries must be identical (run.sh diffs them), and each reads the
 * other's chunks. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <blosc2.h>
#include <blosc2/codecs-registry.h>

#define NITEMS 5000
#define CODEC_ID 200
#define FILTER_ID 201
#define BROKEN_ID 202
#define NOINFO_ID 203
#define MISSING_ID 204
#define BADNAME_ID 205
#define MISSING_FILTER_ID 206
#define PYTHON_ID 207

static int nfailed = 0;

static uint32_t checksum(const uint8_t *p, int n) {
  uint32_t h = 2166136261u;
  for (int i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
  return h;
}

static void register_all(void) {
  struct {
    uint8_t id;
    const char *name;
  } codecs[] = {{CODEC_ID, "rbtest_codec"},
                {BROKEN_ID, "rbtest_broken"},
                {NOINFO_ID, "rbtest_noinfo"},
                {MISSING_ID, "rbtest_missing"},
                {BADNAME_ID, "rbtest/codec"},
                {PYTHON_ID, "rbtest_py"}};
  for (size_t i = 0; i < sizeof(codecs) / sizeof(codecs[0]); i++) {
    blosc2_codec c = {0};
    c.compcode = codecs[i].id;
    c.compname = (char *)codecs[i].name;
    c.complib = codecs[i].id;
    c.version = 1;
    printf("register codec %s: %d\n", codecs[i].name, blosc2_register_codec(&c));
  }
  blosc2_filter f = {0};
  f.id = FILTER_ID;
  f.name = "rbtest_filter";
  f.version = 1;
  printf("register filter %s: %d\n", f.name, blosc2_register_filter(&f));
  blosc2_filter g = {0};
  g.id = MISSING_FILTER_ID;
  g.name = "rbtest_missing_filter";
  g.version = 1;
  printf("register filter %s: %d\n", g.name, blosc2_register_filter(&g));
}

typedef struct {
  const char *label;
  uint8_t compcode;
  uint8_t compcode_meta;
  uint8_t filter; /* in slot 4, before the usual SHUFFLE in slot 5 */
  uint8_t filter_meta;
  int shuffle;
} dyn_case;

static const dyn_case cases[] = {
    {"codec", CODEC_ID, 3, 0, 0, 1},
    {"codec-noshuffle", CODEC_ID, 7, 0, 0, 0},
    {"filter-lz4", BLOSC_LZ4, 0, FILTER_ID, 9, 1},
    {"filter-blosclz", BLOSC_BLOSCLZ, 0, FILTER_ID, 0, 0},
    {"codec-and-filter", CODEC_ID, 1, FILTER_ID, 4, 1},
    /* c-blosc2 registers grok (37) at init without functions: run.sh builds the test codec as
     * a libblosc2_grok.so too. */
    {"grok-slot", BLOSC_CODEC_GROK, 5, 0, 0, 1},
    /* Not on the loader's path: found through the Python package blosc2_rbtest_py, whose
     * print_libpath() run.sh writes (what pip-installed plugins do). */
    {"python-path", PYTHON_ID, 6, 0, 0, 1},
    {"no-info", NOINFO_ID, 0, 0, 0, 1},
    {"missing-codec", MISSING_ID, 0, 0, 0, 1},
    {"invalid-name", BADNAME_ID, 0, 0, 0, 1},
    {"missing-filter", BLOSC_LZ4, 0, MISSING_FILTER_ID, 0, 1},
};
#define NCASES (int)(sizeof(cases) / sizeof(cases[0]))

static void fill(int32_t *data) {
  for (int i = 0; i < NITEMS; i++) data[i] = (i / 3) * 7 + (i % 11);
}

static char *path_of(const char *dir, const char *label) {
  static char path[4096];
  snprintf(path, sizeof(path), "%s/%s.chunk", dir, label);
  return path;
}

static void write_case(const dyn_case *k, const char *dir, const int32_t *data) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = sizeof(int32_t);
  cp.compcode = k->compcode;
  cp.compcode_meta = k->compcode_meta;
  cp.blocksize = 4096;
  cp.nthreads = 1;
  cp.filters[4] = k->filter;
  cp.filters_meta[4] = k->filter_meta;
  cp.filters[5] = k->shuffle ? BLOSC_SHUFFLE : BLOSC_NOFILTER;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  if (cctx == NULL) {
    printf("%s: no context\n", k->label);
    nfailed++;
    return;
  }
  int32_t nbytes = NITEMS * (int32_t)sizeof(int32_t);
  int32_t cap = nbytes + BLOSC2_MAX_OVERHEAD;
  uint8_t *chunk = malloc(cap);
  /* Twice: a failed load is retried, a successful one kept. */
  int csize = blosc2_compress_ctx(cctx, data, nbytes, chunk, cap);
  int again = blosc2_compress_ctx(cctx, data, nbytes, chunk, cap);
  printf("%s: compress %d, again %d", k->label, csize, again);
  if (again > 0) {
    printf(", checksum %08x", checksum(chunk, again));
    int32_t *back = malloc(nbytes);
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    dp.nthreads = 1;
    blosc2_context *dctx = blosc2_create_dctx(dp);
    int dsize = blosc2_decompress_ctx(dctx, chunk, again, back, nbytes);
    int same = dsize == nbytes && memcmp(back, data, nbytes) == 0;
    printf(", decompress %d, %s", dsize, same ? "equal" : "DIFFERENT");
    if (!same) nfailed++;
    blosc2_free_ctx(dctx);
    free(back);
    FILE *f = fopen(path_of(dir, k->label), "wb");
    if (f == NULL || fwrite(chunk, 1, again, f) != (size_t)again) nfailed++;
    if (f) fclose(f);
  }
  printf("\n");
  blosc2_free_ctx(cctx);
  free(chunk);
}

static void read_case(const dyn_case *k, const char *dir, const int32_t *data) {
  FILE *f = fopen(path_of(dir, k->label), "rb");
  if (f == NULL) {
    printf("%s: no chunk\n", k->label);
    return;
  }
  static uint8_t chunk[NITEMS * 4 + BLOSC2_MAX_OVERHEAD];
  int n = (int)fread(chunk, 1, sizeof(chunk), f);
  fclose(f);
  int32_t nbytes = NITEMS * (int32_t)sizeof(int32_t);
  int32_t *back = malloc(nbytes);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = 1;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  int dsize = blosc2_decompress_ctx(dctx, chunk, n, back, nbytes);
  int same = dsize == nbytes && memcmp(back, data, nbytes) == 0;
  printf("%s: read %d bytes, decompress %d, %s\n", k->label, n, dsize,
         same ? "equal" : "DIFFERENT");
  if (!same) nfailed++;
  blosc2_free_ctx(dctx);
  free(back);
}

int main(int argc, char **argv) {
  if (argc != 3 || (strcmp(argv[1], "write") != 0 && strcmp(argv[1], "read") != 0 &&
                    strcmp(argv[1], "broken") != 0)) {
    fprintf(stderr, "usage: %s write|read|broken DIR\n", argv[0]);
    return 2;
  }
  blosc2_init();
  register_all();
  static int32_t data[NITEMS];
  fill(data);
  if (argv[1][0] == 'b') {
    static const dyn_case broken = {"broken-info", BROKEN_ID, 0, 0, 0, 1};
    write_case(&broken, argv[2], data);
    blosc2_destroy();
    return nfailed ? 1 : 0;
  }
  for (int i = 0; i < NCASES; i++) {
    if (argv[1][0] == 'w') {
      write_case(&cases[i], argv[2], data);
    } else {
      read_case(&cases[i], argv[2], data);
    }
  }
  /* A chunk whose codec cannot be loaded: the decoder side of a missing plugin. */
  if (argv[1][0] == 'r') {
    static uint8_t chunk[NITEMS * 4 + BLOSC2_MAX_OVERHEAD];
    FILE *f = fopen(path_of(argv[2], "codec"), "rb");
    if (f != NULL) {
      int n = (int)fread(chunk, 1, sizeof(chunk), f);
      fclose(f);
      /* Byte 22 of the header names the user codec: point it at the registered codec whose
       * plugin is missing. */
      chunk[22] = MISSING_ID;
      int32_t *back = malloc(NITEMS * 4);
      printf("missing decoder: decompress %d\n", blosc2_decompress(chunk, n, back, NITEMS * 4));
      free(back);
    }
  }
  blosc2_destroy();
  printf("%s: %s\n", argv[1], nfailed ? "FAILED" : "ok");
  return nfailed ? 1 : 0;
}
