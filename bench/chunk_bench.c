/* Side-by-side chunk benchmark: rblosc2 against c-blosc2 3.3.5 in one process.
 * Both libraries are dlopen()ed with RTLD_LOCAL (they export the same symbols) and measured in
 * interleaved repetitions; medians and the ratio ours/reference are printed per metric, plus the
 * geometric mean of the ratios. Every run verifies its output: a wrong result is a failure.
 *   chunk_bench OURS.so REF.so [reps]                                                       */
#include <blosc2.h>
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
  void *h;
  void (*init)(void);
  blosc2_context *(*create_cctx)(blosc2_cparams);
  blosc2_context *(*create_dctx)(blosc2_dparams);
  void (*free_ctx)(blosc2_context *);
  int (*compress_ctx)(blosc2_context *, const void *, int32_t, void *, int32_t);
  int (*decompress_ctx)(blosc2_context *, const void *, int32_t, void *, int32_t);
  int (*getitem_ctx)(blosc2_context *, const void *, int32_t, int, int, void *, int32_t);
} lib_t;

static void *sym(void *h, const char *name) {
  void *p = dlsym(h, name);
  if (!p) { fprintf(stderr, "missing %s: %s\n", name, dlerror()); exit(2); }
  return p;
}

static lib_t load(const char *path) {
  lib_t l;
  l.h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!l.h) { fprintf(stderr, "dlopen %s: %s\n", path, dlerror()); exit(2); }
  l.init = sym(l.h, "blosc2_init");
  l.create_cctx = sym(l.h, "blosc2_create_cctx");
  l.create_dctx = sym(l.h, "blosc2_create_dctx");
  l.free_ctx = sym(l.h, "blosc2_free_ctx");
  l.compress_ctx = sym(l.h, "blosc2_compress_ctx");
  l.decompress_ctx = sym(l.h, "blosc2_decompress_ctx");
  l.getitem_ctx = sym(l.h, "blosc2_getitem_ctx");
  l.init();
  return l;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof(double), cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

enum { SMOOTH, NOISY, RANDOM };

static void fill(uint8_t *buf, size_t n, int kind) {
  uint64_t x = 0x243F6A8885A308D3ull;
  float *f = (float *)buf;
  for (size_t i = 0; i < n / 4; i++) {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    if (kind == SMOOTH) f[i] = sinf((float)i * 0.0005f) * 1000.0f;
    else if (kind == NOISY) f[i] = sinf((float)i * 0.0005f) * 1000.0f + (float)(x % 1000) * 0.001f;
    else memcpy(&f[i], &x, 4);
  }
}

typedef struct {
  const char *name;
  int codec, clevel, typesize, kind, nthreads;
  uint8_t filters[6];
  int size;
} bcase;

static double geo_sum = 0;
static int geo_n = 0, failures = 0;

static void report(const char *metric, double ours, double ref, const char *unit) {
  double ratio = ours / ref;
  printf("  %-34s ours %10.1f  ref %10.1f %-5s ratio %5.2f\n", metric, ours, ref, unit, ratio);
  geo_sum += log(ratio);
  geo_n++;
}

static void run_case(lib_t *libs, bcase c, int reps) {
  size_t n = (size_t)c.size;
  uint8_t *src = malloc(n), *dst[2], *out = malloc(n);
  fill(src, n, c.kind);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = (uint8_t)c.codec;
  cp.clevel = (uint8_t)c.clevel;
  cp.typesize = c.typesize;
  cp.nthreads = (int16_t)c.nthreads;
  memcpy(cp.filters, c.filters, 6);
  for (int i = 0; i < 6; i++)
    if (cp.filters[i] == 35) cp.filters_meta[i] = (uint8_t)c.typesize; /* bytedelta: streams */
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = (int16_t)c.nthreads;
  blosc2_context *cctx[2], *dctx[2];
  int csize[2] = {0, 0};
  double *ct[2], *dt[2], *gt[2];
  for (int k = 0; k < 2; k++) {
    cctx[k] = libs[k].create_cctx(cp);
    dctx[k] = libs[k].create_dctx(dp);
    dst[k] = malloc(n + BLOSC2_MAX_OVERHEAD);
    ct[k] = malloc(sizeof(double) * reps);
    dt[k] = malloc(sizeof(double) * reps);
    gt[k] = malloc(sizeof(double) * reps);
  }
  int inner = c.size < (1 << 20) ? (1 << 22) / c.size : 1;
  for (int r = 0; r < reps; r++) {
    for (int k = 0; k < 2; k++) {
      double t = now();
      for (int i = 0; i < inner; i++)
        csize[k] = libs[k].compress_ctx(cctx[k], src, (int32_t)n, dst[k], (int32_t)n + BLOSC2_MAX_OVERHEAD);
      ct[k][r] = (now() - t) / inner;
      if (csize[k] <= 0) { printf("  FAIL %s: compress returned %d\n", k ? "ref" : "ours", csize[k]); failures++; goto done; }
      memset(out, 0, n);
      t = now();
      int d = 0;
      for (int i = 0; i < inner; i++)
        d = libs[k].decompress_ctx(dctx[k], dst[k], csize[k], out, (int32_t)n);
      dt[k][r] = (now() - t) / inner;
      if (d != (int)n || memcmp(out, src, n) != 0) { printf("  FAIL %s: wrong decompression\n", k ? "ref" : "ours"); failures++; goto done; }
      int nitems = (int)(n / (size_t)c.typesize / 100);
      t = now();
      for (int i = 0; i < inner; i++)
        d = libs[k].getitem_ctx(dctx[k], dst[k], csize[k], nitems * 37, nitems, out, (int32_t)n);
      gt[k][r] = (now() - t) / inner;
      if (d != nitems * c.typesize || memcmp(out, src + (size_t)nitems * 37 * (size_t)c.typesize, (size_t)d) != 0) {
        printf("  FAIL %s: wrong getitem\n", k ? "ref" : "ours"); failures++; goto done;
      }
    }
  }
  printf("%s (%d KiB, nthreads %d): ratio ours %.2f ref %.2f\n", c.name, c.size / 1024, c.nthreads,
         (double)n / csize[0], (double)n / csize[1]);
  {
    double mb = (double)n / 1e6;
    double co = mb / median(ct[0], reps), cr = mb / median(ct[1], reps);
    double dco = mb / median(dt[0], reps), dcr = mb / median(dt[1], reps);
    report("compress", co, cr, "MB/s");
    report("decompress", dco, dcr, "MB/s");
    report("getitem 1%", 1e-3 / median(gt[0], reps), 1e-3 / median(gt[1], reps), "k/s");
  }
done:
  for (int k = 0; k < 2; k++) {
    libs[k].free_ctx(cctx[k]);
    libs[k].free_ctx(dctx[k]);
    free(dst[k]); free(ct[k]); free(dt[k]); free(gt[k]);
  }
  free(src); free(out);
}

int main(int argc, char **argv) {
  if (argc < 3) { fprintf(stderr, "usage: %s OURS.so REF.so [reps]\n", argv[0]); return 2; }
  lib_t libs[2] = {load(argv[1]), load(argv[2])};
  int reps = argc > 3 ? atoi(argv[3]) : 9;
  const int MiB4 = 4 << 20;
  bcase cases[] = {
    {"shuffle+lz4", BLOSC_LZ4, 5, 4, NOISY, 1, {0, 0, 0, 0, 0, BLOSC_SHUFFLE}, MiB4},
    {"shuffle+blosclz", BLOSC_BLOSCLZ, 5, 4, NOISY, 1, {0, 0, 0, 0, 0, BLOSC_SHUFFLE}, MiB4},
    {"shuffle+zstd(3)", BLOSC_ZSTD, 3, 4, NOISY, 1, {0, 0, 0, 0, 0, BLOSC_SHUFFLE}, MiB4},
    {"bitshuffle+zstd(5)", BLOSC_ZSTD, 5, 4, NOISY, 1, {0, 0, 0, 0, 0, BLOSC_BITSHUFFLE}, MiB4},
    {"delta+shuffle+lz4", BLOSC_LZ4, 5, 4, SMOOTH, 1, {0, 0, 0, 0, BLOSC_DELTA, BLOSC_SHUFFLE}, MiB4},
    {"bytedelta+shuffle+zstd", BLOSC_ZSTD, 5, 4, SMOOTH, 1, {0, 0, 0, 0, BLOSC_SHUFFLE, 35}, MiB4},
    {"noshuffle+lz4 random", BLOSC_LZ4, 5, 4, RANDOM, 1, {0, 0, 0, 0, 0, 0}, MiB4},
    {"shuffle+lz4", BLOSC_LZ4, 5, 4, NOISY, 2, {0, 0, 0, 0, 0, BLOSC_SHUFFLE}, MiB4},
    {"shuffle+blosclz", BLOSC_BLOSCLZ, 5, 4, NOISY, 2, {0, 0, 0, 0, 0, BLOSC_SHUFFLE}, MiB4},
    {"shuffle+zstd(3)", BLOSC_ZSTD, 3, 4, NOISY, 2, {0, 0, 0, 0, 0, BLOSC_SHUFFLE}, MiB4},
    {"bitshuffle+zstd(5)", BLOSC_ZSTD, 5, 4, NOISY, 2, {0, 0, 0, 0, 0, BLOSC_BITSHUFFLE}, MiB4},
    {"delta+shuffle+lz4", BLOSC_LZ4, 5, 4, SMOOTH, 2, {0, 0, 0, 0, BLOSC_DELTA, BLOSC_SHUFFLE}, MiB4},
    {"noshuffle+lz4 random", BLOSC_LZ4, 5, 4, RANDOM, 2, {0, 0, 0, 0, 0, 0}, MiB4},
    {"shuffle+lz4 small", BLOSC_LZ4, 5, 4, NOISY, 1, {0, 0, 0, 0, 0, BLOSC_SHUFFLE}, 16 << 10},
    {"shuffle+lz4 medium", BLOSC_LZ4, 5, 4, NOISY, 1, {0, 0, 0, 0, 0, BLOSC_SHUFFLE}, 256 << 10},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    run_case(libs, cases[i], reps);
  }
  printf("geometric mean of ratios (ours/ref) over %d metrics: %.3f\n", geo_n, exp(geo_sum / geo_n));
  printf("%d failures\n", failures);
  return failures ? 1 : 0;
}
