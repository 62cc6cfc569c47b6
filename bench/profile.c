/* One chunk workload of bench.c, one operation, repeated: for instruction counts under callgrind
 * and for perf record, on either library.
 *
 *   profile LIB.so WORKLOAD OP ITERS
 *     WORKLOAD: lz4 blosclz zstd bitshuffle delta bytedelta random lz4-16k lz4-256k
 *     OP:       decompress getitem1 getitem1pct
 *
 *   valgrind --tool=callgrind --toggle-collect=run_ops profile LIB.so lz4 decompress 3
 *
 * counts only the ITERS calls of OP (compression and setup are outside run_ops). The data and
 * parameters are bench.c's; the output is checked after the loop. */
#include <blosc2.h>
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const char *name;
  int codec, clevel, data, size;
  uint8_t filters[6];
} workload_t;

enum { NOISY, SMOOTH, RANDOM };
#define SH BLOSC_SHUFFLE
#define BS BLOSC_BITSHUFFLE
#define DL BLOSC_DELTA
#define BD 35
static const workload_t workloads[] = {
    {"lz4", BLOSC_LZ4, 5, NOISY, 4 << 20, {0, 0, 0, 0, 0, SH}},
    {"blosclz", BLOSC_BLOSCLZ, 5, NOISY, 4 << 20, {0, 0, 0, 0, 0, SH}},
    {"zstd", BLOSC_ZSTD, 3, NOISY, 4 << 20, {0, 0, 0, 0, 0, SH}},
    {"bitshuffle", BLOSC_ZSTD, 5, NOISY, 4 << 20, {0, 0, 0, 0, 0, BS}},
    {"delta", BLOSC_LZ4, 5, SMOOTH, 4 << 20, {0, 0, 0, 0, DL, SH}},
    {"bytedelta", BLOSC_ZSTD, 5, SMOOTH, 4 << 20, {0, 0, 0, 0, SH, BD}},
    {"random", BLOSC_LZ4, 5, RANDOM, 4 << 20, {0, 0, 0, 0, 0, 0}},
    {"lz4-16k", BLOSC_LZ4, 5, NOISY, 16 << 10, {0, 0, 0, 0, 0, SH}},
    {"lz4-256k", BLOSC_LZ4, 5, NOISY, 256 << 10, {0, 0, 0, 0, 0, SH}},
};

/* bench.c's data. */
static void fill(uint8_t *buf, size_t n, int kind) {
  uint64_t x = 0x243F6A8885A308D3ull;
  double *f = (double *)buf;
  for (size_t i = 0; i < n / 8; i++) {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    double curve = (double)(int64_t)(sin((double)i * 0.0005) * 1e6) * 1e-3;
    if (kind == SMOOTH) f[i] = curve;
    else if (kind == NOISY) f[i] = curve + (double)(x % 1000) * 1e-3;
    else memcpy(&f[i], &x, 8);
  }
}

static __typeof__(&blosc2_decompress_ctx) dec;
static __typeof__(&blosc2_getitem_ctx) get;

enum { OP_DECOMPRESS, OP_GETITEM1, OP_GETITEM1PCT };

/* Everything callgrind counts. */
__attribute__((noinline)) int run_ops(blosc2_context *dctx, int op, int iters, const uint8_t *chunk,
                                      int csize, uint8_t *out, int n) {
  int nitems = n / 8, r = 0;
  for (int i = 0; i < iters; i++) {
    if (op == OP_DECOMPRESS) r = dec(dctx, chunk, csize, out, n);
    else if (op == OP_GETITEM1) r = get(dctx, chunk, csize, nitems / 2 + 3, 1, out, 8);
    else r = get(dctx, chunk, csize, nitems / 2 - nitems / 200 + 1, nitems / 100, out, n);
  }
  return r;
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: profile LIB.so WORKLOAD OP ITERS\n");
    return 2;
  }
  const workload_t *w = NULL;
  for (size_t i = 0; i < sizeof(workloads) / sizeof(workloads[0]); i++)
    if (strcmp(workloads[i].name, argv[2]) == 0) w = &workloads[i];
  int op = strcmp(argv[3], "decompress") == 0 ? OP_DECOMPRESS
           : strcmp(argv[3], "getitem1") == 0 ? OP_GETITEM1
           : strcmp(argv[3], "getitem1pct") == 0 ? OP_GETITEM1PCT : -1;
  if (!w || op < 0) {
    fprintf(stderr, "unknown workload or op\n");
    return 2;
  }
  void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!h) { fprintf(stderr, "dlopen: %s\n", dlerror()); return 3; }
  void (*init)(void) = (void (*)(void))dlsym(h, "blosc2_init");
  __typeof__(&blosc2_create_cctx) ccx = (__typeof__(&blosc2_create_cctx))dlsym(h, "blosc2_create_cctx");
  __typeof__(&blosc2_create_dctx) dcx = (__typeof__(&blosc2_create_dctx))dlsym(h, "blosc2_create_dctx");
  __typeof__(&blosc2_compress_ctx) comp = (__typeof__(&blosc2_compress_ctx))dlsym(h, "blosc2_compress_ctx");
  dec = (__typeof__(dec))dlsym(h, "blosc2_decompress_ctx");
  get = (__typeof__(get))dlsym(h, "blosc2_getitem_ctx");
  init();
  int n = w->size;
  uint8_t *src = malloc((size_t)n), *chunk = malloc((size_t)n + BLOSC2_MAX_OVERHEAD), *out = malloc((size_t)n);
  fill(src, (size_t)n, w->data);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = (uint8_t)w->codec;
  cp.clevel = (uint8_t)w->clevel;
  cp.typesize = 8;
  memcpy(cp.filters, w->filters, 6);
  for (int i = 0; i < 6; i++)
    if (cp.filters[i] == BD) cp.filters_meta[i] = 8;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_context *cctx = ccx(cp), *dctx = dcx(dp);
  int csize = comp(cctx, src, n, chunk, n + BLOSC2_MAX_OVERHEAD);
  if (csize <= 0) { fprintf(stderr, "compress failed: %d\n", csize); return 1; }
  memset(out, 0, (size_t)n);
  /* One warm-up call outside the count: first-use allocations and page faults. */
  run_ops(dctx, op, 1, chunk, csize, out, n);
  int r = run_ops(dctx, op, atoi(argv[4]), chunk, csize, out, n);
  int nitems = n / 8, ok;
  if (op == OP_DECOMPRESS) ok = r == n && memcmp(out, src, (size_t)n) == 0;
  else if (op == OP_GETITEM1) ok = r == 8 && memcmp(out, src + (size_t)(nitems / 2 + 3) * 8, 8) == 0;
  else ok = r == nitems / 100 * 8 && memcmp(out, src + (size_t)(nitems / 2 - nitems / 200 + 1) * 8, (size_t)r) == 0;
  int32_t blocksize;
  memcpy(&blocksize, chunk + 8, 4);
  printf("%s %s: csize %d, blocksize %d, result %d, %s\n", w->name, argv[3], csize, blocksize, r,
         ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
