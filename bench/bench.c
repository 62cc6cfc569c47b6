/* Side-by-side benchmark: rblosc2 against the reference c-blosc2 3.3.5.
 *
 *   bench OURS.so REF.so [--quick] [--reps N] [--only SUBSTRING]
 *   bench --list          (index and name of each workload, for bench/hot-text.sh)
 *
 * Every workload (a chunk configuration, a super-chunk storage, the b2nd array) runs in a child
 * process (this program re-executed with --child) that dlopen()s ONE library with RTLD_LOCAL, so
 * the peak RSS the parent reads from wait4() belongs to that library and that workload alone.
 * Repetitions interleave the two libraries (ours, ref, ref, ours, ...); each child reports the
 * fastest of its inner samples and the parent prints the median over repetitions, the ratio
 * ours/reference (higher is better for ours) and the geometric mean of the speed ratios.
 *
 * Every metric verifies its output. A wrong result from ours is a failure (exit status 1), never
 * a speed. The reference is known to return wrong data for getitem/slices that skip block 0 of a
 * DELTA chunk: its wrong results are flagged "reference wrong" and kept out of the mean. */
#include <blosc2.h>
#include <b2nd.h>
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "timing.h"

/* ------------------------------------------------------------------ library table */

#define FN(name) __typeof__(&name) name
typedef struct {
  FN(blosc2_init);
  FN(blosc2_create_cctx);
  FN(blosc2_create_dctx);
  FN(blosc2_free_ctx);
  FN(blosc2_compress_ctx);
  FN(blosc2_decompress_ctx);
  FN(blosc2_getitem_ctx);
  FN(blosc2_schunk_new);
  FN(blosc2_schunk_append_buffer);
  FN(blosc2_schunk_decompress_chunk);
  FN(blosc2_schunk_to_buffer);
  FN(blosc2_schunk_open);
  FN(blosc2_schunk_from_buffer);
  FN(blosc2_schunk_free);
  FN(blosc2_remove_urlpath);
  FN(b2nd_create_ctx);
  FN(b2nd_free_ctx);
  FN(b2nd_from_cbuffer);
  FN(b2nd_to_cbuffer);
  FN(b2nd_get_slice_cbuffer);
  FN(b2nd_save);
  FN(b2nd_open);
  FN(b2nd_free);
} lib_t;

static void *sym(void *h, const char *name) {
  void *p = dlsym(h, name);
  if (!p) { fprintf(stderr, "missing %s: %s\n", name, dlerror()); exit(3); }
  return p;
}

#define LOAD(l, h, name) (l).name = (__typeof__((l).name))sym(h, #name)
static lib_t load(const char *path) {
  lib_t l;
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) { fprintf(stderr, "dlopen %s: %s\n", path, dlerror()); exit(3); }
  LOAD(l, h, blosc2_init); LOAD(l, h, blosc2_create_cctx); LOAD(l, h, blosc2_create_dctx);
  LOAD(l, h, blosc2_free_ctx); LOAD(l, h, blosc2_compress_ctx); LOAD(l, h, blosc2_decompress_ctx);
  LOAD(l, h, blosc2_getitem_ctx); LOAD(l, h, blosc2_schunk_new); LOAD(l, h, blosc2_schunk_append_buffer);
  LOAD(l, h, blosc2_schunk_decompress_chunk); LOAD(l, h, blosc2_schunk_to_buffer);
  LOAD(l, h, blosc2_schunk_open); LOAD(l, h, blosc2_schunk_from_buffer); LOAD(l, h, blosc2_schunk_free);
  LOAD(l, h, blosc2_remove_urlpath); LOAD(l, h, b2nd_create_ctx); LOAD(l, h, b2nd_free_ctx);
  LOAD(l, h, b2nd_from_cbuffer); LOAD(l, h, b2nd_to_cbuffer); LOAD(l, h, b2nd_get_slice_cbuffer);
  LOAD(l, h, b2nd_save); LOAD(l, h, b2nd_open); LOAD(l, h, b2nd_free);
  l.blosc2_init();
  return l;
}

/* ------------------------------------------------------------------ helpers */


static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof(double), cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* A child's figure is its fastest inner sample: on a machine shared with other work the slower
 * samples measure the neighbours, not the library. The parent takes the median over repetitions. */
static double fastest(const double *v, int n) {
  double m = v[0];
  for (int i = 1; i < n; i++) m = v[i] < m ? v[i] : m;
  return m;
}

#include "data.h"


/* A child's answer for one metric: its value (higher is better) and whether the output was right. */
typedef struct {
  double value;
  int ok;
} result_t;

#define MAX_METRICS 8
typedef struct {
  int n;
  result_t r[MAX_METRICS];
} results_t;

static int g_samples = 5; /* inner samples per metric in a child */

static double g_budget = 0.02; /* seconds per inner sample */

/* Calls body enough times per sample to fill g_budget (at least min_calls, calibrated on a first
 * timed call) and stores calls per second of the fastest sample in out_per_sec. */
#define TIME_CALLS(out_per_sec, min_calls, body)                                \
  do {                                                                          \
    double samples_[64], t_ = now();                                            \
    { body; }                                                                   \
    double one_ = now() - t_;                                                   \
    int calls_ = one_ > 0 ? (int)(g_budget / one_) : (min_calls);               \
    if (calls_ < 1) calls_ = 1;                                                 \
    if (calls_ > (min_calls)) calls_ = (min_calls);                             \
    for (int s_ = 0; s_ < g_samples; s_++) {                                    \
      t_ = now();                                                               \
      for (int c_ = 0; c_ < calls_; c_++) { body; }                             \
      samples_[s_] = (now() - t_) / calls_;                                     \
    }                                                                           \
    (out_per_sec) = 1.0 / fastest(samples_, g_samples);                         \
  } while (0)

/* ------------------------------------------------------------------ workloads */

enum { W_CHUNK, W_SCHUNK, W_B2ND, W_MEMCPY };
enum { ST_MEMORY, ST_CFRAME, ST_SFRAME };

typedef struct {
  const char *name;
  int kind;
  /* chunk */
  int codec, clevel, data, nthreads, size;
  uint8_t filters[6];
  /* super-chunk */
  int storage;
} workload_t;

static const char *metric_names[][MAX_METRICS] = {
    [W_CHUNK] = {"compress MB/s", "decompress MB/s", "getitem 1 item kcall/s", "getitem 1% kcall/s"},
    [W_SCHUNK] = {"append MB/s", "decompress-all MB/s", "to_buffer MB/s", "open+decompress-all MB/s"},
    [W_B2ND] = {"from_cbuffer MB/s", "to_cbuffer MB/s", "slice slab MB/s", "slice column kcall/s",
                "slice unaligned box MB/s", "save MB/s", "open kcall/s"},
    [W_MEMCPY] = {"memcpy 16 KiB MB/s", "memcpy 256 KiB MB/s", "memcpy 4 MiB MB/s", "memcpy 64 MiB MB/s"},
};

#define SH BLOSC_SHUFFLE
#define BS BLOSC_BITSHUFFLE
#define DL BLOSC_DELTA
#define BD 35 /* BLOSC_FILTER_BYTEDELTA */
#define MiB4 (4 << 20)
static const workload_t workloads[] = {
    {"shuffle+lz4 4MiB t1", W_CHUNK, BLOSC_LZ4, 5, NOISY, 1, MiB4, {0, 0, 0, 0, 0, SH}},
    {"shuffle+blosclz 4MiB t1", W_CHUNK, BLOSC_BLOSCLZ, 5, NOISY, 1, MiB4, {0, 0, 0, 0, 0, SH}},
    {"shuffle+zstd(3) 4MiB t1", W_CHUNK, BLOSC_ZSTD, 3, NOISY, 1, MiB4, {0, 0, 0, 0, 0, SH}},
    {"bitshuffle+zstd(5) 4MiB t1", W_CHUNK, BLOSC_ZSTD, 5, NOISY, 1, MiB4, {0, 0, 0, 0, 0, BS}},
    {"delta+shuffle+lz4 4MiB t1", W_CHUNK, BLOSC_LZ4, 5, SMOOTH, 1, MiB4, {0, 0, 0, 0, DL, SH}},
    {"bytedelta+shuffle+zstd 4MiB t1", W_CHUNK, BLOSC_ZSTD, 5, SMOOTH, 1, MiB4, {0, 0, 0, 0, SH, BD}},
    {"noshuffle+lz4 random 4MiB t1", W_CHUNK, BLOSC_LZ4, 5, RANDOM, 1, MiB4, {0, 0, 0, 0, 0, 0}},
    {"shuffle+lz4 4MiB t2", W_CHUNK, BLOSC_LZ4, 5, NOISY, 2, MiB4, {0, 0, 0, 0, 0, SH}},
    {"shuffle+blosclz 4MiB t2", W_CHUNK, BLOSC_BLOSCLZ, 5, NOISY, 2, MiB4, {0, 0, 0, 0, 0, SH}},
    {"shuffle+zstd(3) 4MiB t2", W_CHUNK, BLOSC_ZSTD, 3, NOISY, 2, MiB4, {0, 0, 0, 0, 0, SH}},
    {"bitshuffle+zstd(5) 4MiB t2", W_CHUNK, BLOSC_ZSTD, 5, NOISY, 2, MiB4, {0, 0, 0, 0, 0, BS}},
    {"delta+shuffle+lz4 4MiB t2", W_CHUNK, BLOSC_LZ4, 5, SMOOTH, 2, MiB4, {0, 0, 0, 0, DL, SH}},
    {"bytedelta+shuffle+zstd 4MiB t2", W_CHUNK, BLOSC_ZSTD, 5, SMOOTH, 2, MiB4, {0, 0, 0, 0, SH, BD}},
    {"noshuffle+lz4 random 4MiB t2", W_CHUNK, BLOSC_LZ4, 5, RANDOM, 2, MiB4, {0, 0, 0, 0, 0, 0}},
    {"shuffle+lz4 16KiB t1", W_CHUNK, BLOSC_LZ4, 5, NOISY, 1, 16 << 10, {0, 0, 0, 0, 0, SH}},
    {"shuffle+lz4 256KiB t1", W_CHUNK, BLOSC_LZ4, 5, NOISY, 1, 256 << 10, {0, 0, 0, 0, 0, SH}},
    {"shuffle+zstd(3) 256KiB t1", W_CHUNK, BLOSC_ZSTD, 3, NOISY, 1, 256 << 10, {0, 0, 0, 0, 0, SH}},
    {"schunk in-memory cframe", W_SCHUNK, .storage = ST_MEMORY},
    {"schunk cframe file", W_SCHUNK, .storage = ST_CFRAME},
    {"schunk sframe directory", W_SCHUNK, .storage = ST_SFRAME},
    {"b2nd 256^3 f64", W_B2ND, .nthreads = 1},
    {"b2nd 256^3 f64 t2", W_B2ND, .nthreads = 2},
    {"memcpy (ceiling)", W_MEMCPY},
};
#define NWORKLOADS ((int)(sizeof(workloads) / sizeof(workloads[0])))

static int nmetrics(int kind) {
  int n = 0;
  while (n < MAX_METRICS && metric_names[kind][n]) n++;
  return n;
}

static void run_chunk(lib_t *L, const workload_t *w, results_t *res) {
  size_t n = (size_t)w->size;
  uint8_t *src = malloc(n), *dst = malloc(n + BLOSC2_MAX_OVERHEAD), *out = malloc(n);
  fill(src, n, w->data);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = (uint8_t)w->codec;
  cp.clevel = (uint8_t)w->clevel;
  cp.typesize = 8;
  cp.nthreads = (int16_t)w->nthreads;
  memcpy(cp.filters, w->filters, 6);
  for (int i = 0; i < 6; i++)
    if (cp.filters[i] == BD) cp.filters_meta[i] = 8; /* bytedelta works on typesize streams */
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = (int16_t)w->nthreads;
  blosc2_context *cctx = L->blosc2_create_cctx(cp), *dctx = L->blosc2_create_dctx(dp);
  int csize = 0, d = 0;
  double rate;
  res->n = 4;

  TIME_CALLS(rate, 1 << 20, csize = L->blosc2_compress_ctx(cctx, src, (int32_t)n, dst, (int32_t)(n + BLOSC2_MAX_OVERHEAD)));
  res->r[0] = (result_t){rate * (double)n / 1e6, csize > 0};
  /* A compressed chunk must round-trip: checked here with a fresh output buffer. */
  memset(out, 0, n);
  TIME_CALLS(rate, 1 << 20, d = L->blosc2_decompress_ctx(dctx, dst, csize, out, (int32_t)n));
  res->r[1] = (result_t){rate * (double)n / 1e6, csize > 0 && d == (int)n && memcmp(out, src, n) == 0};

  /* Items after block 0 (that is what a real getitem reads, and where DELTA bites). */
  int nitems = (int)(n / 8);
  int one = nitems / 2 + 3;
  memset(out, 0, 8);
  TIME_CALLS(rate, 1 << 20, d = L->blosc2_getitem_ctx(dctx, dst, csize, one, 1, out, 8));
  res->r[2] = (result_t){rate / 1e3, d == 8 && memcmp(out, src + (size_t)one * 8, 8) == 0};
  int pct = nitems / 100, start = nitems / 2 - pct / 2 + 1;
  memset(out, 0, (size_t)pct * 8);
  TIME_CALLS(rate, 1 << 20, d = L->blosc2_getitem_ctx(dctx, dst, csize, start, pct, out, (int32_t)n));
  res->r[3] = (result_t){rate / 1e3, d == pct * 8 && memcmp(out, src + (size_t)start * 8, (size_t)pct * 8) == 0};

  L->blosc2_free_ctx(cctx);
  L->blosc2_free_ctx(dctx);
  free(src); free(dst); free(out);
}

#define SCHUNK_NCHUNKS 64
#define SCHUNK_CHUNK (1 << 20)

static int decompress_all(lib_t *L, blosc2_schunk *sc, uint8_t *out, const uint8_t *src) {
  if (!sc || sc->nchunks != SCHUNK_NCHUNKS) return 0;
  for (int64_t i = 0; i < SCHUNK_NCHUNKS; i++)
    if (L->blosc2_schunk_decompress_chunk(sc, i, out + i * SCHUNK_CHUNK, SCHUNK_CHUNK) != SCHUNK_CHUNK) return 0;
  return memcmp(out, src, (size_t)SCHUNK_NCHUNKS * SCHUNK_CHUNK) == 0;
}

static void run_schunk(lib_t *L, const workload_t *w, results_t *res, int lib) {
  size_t total = (size_t)SCHUNK_NCHUNKS * SCHUNK_CHUNK;
  uint8_t *src = malloc(total), *out = malloc(total);
  fill(src, total, NOISY);
  char path[256] = "";
  if (w->storage != ST_MEMORY)
    snprintf(path, sizeof path, "%s/rblosc2-bench-%d-%d.%s", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
             (int)getpid(), lib, w->storage == ST_CFRAME ? "b2frame" : "b2sframe");
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 8;
  cp.nthreads = 1;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = 1;
  blosc2_storage st = {.contiguous = w->storage != ST_SFRAME, .urlpath = path[0] ? path : NULL,
                       .cparams = &cp, .dparams = &dp};
  double mb = (double)total / 1e6, t, s[64];
  int ok;
  res->n = 4;
  blosc2_schunk *sc = NULL;

  /* append: a fresh super-chunk per sample (files removed first) */
  ok = 1;
  for (int k = 0; k < g_samples; k++) {
    if (sc) L->blosc2_schunk_free(sc);
    if (path[0]) L->blosc2_remove_urlpath(path);
    t = now();
    sc = L->blosc2_schunk_new(&st);
    for (int i = 0; i < SCHUNK_NCHUNKS && sc; i++)
      if (L->blosc2_schunk_append_buffer(sc, src + (size_t)i * SCHUNK_CHUNK, SCHUNK_CHUNK) != i + 1) ok = 0;
    s[k] = now() - t;
  }
  res->r[0] = (result_t){mb / fastest(s, g_samples), ok && sc};

  ok = 1;
  for (int k = 0; k < g_samples; k++) {
    memset(out, 0, total);
    t = now();
    ok &= decompress_all(L, sc, out, src);
    s[k] = now() - t;
  }
  res->r[1] = (result_t){mb / fastest(s, g_samples), ok};

  uint8_t *cframe = NULL;
  int64_t len = 0;
  ok = 1;
  for (int k = 0; k < g_samples; k++) {
    bool needs_free = false;
    if (cframe) free(cframe);
    cframe = NULL;
    t = now();
    len = sc ? L->blosc2_schunk_to_buffer(sc, &cframe, &needs_free) : -1;
    s[k] = now() - t;
    if (len <= 0) ok = 0;
    if (!needs_free && cframe) { /* ours or theirs handing out internal storage: keep a copy */
      uint8_t *c = malloc((size_t)len);
      memcpy(c, cframe, (size_t)len);
      cframe = c;
    }
  }
  /* to_buffer is right when the frame it returns decompresses to the source */
  if (ok) {
    blosc2_schunk *back = L->blosc2_schunk_from_buffer(cframe, len, false);
    ok = decompress_all(L, back, out, src);
    if (back) L->blosc2_schunk_free(back);
  }
  res->r[2] = (result_t){mb / fastest(s, g_samples), ok};

  ok = 1;
  if (path[0]) L->blosc2_schunk_free(sc);
  sc = path[0] ? NULL : sc;
  for (int k = 0; k < g_samples; k++) {
    memset(out, 0, total);
    t = now();
    blosc2_schunk *o = path[0] ? L->blosc2_schunk_open(path) : L->blosc2_schunk_from_buffer(cframe, len, false);
    ok &= decompress_all(L, o, out, src);
    if (o) L->blosc2_schunk_free(o);
    s[k] = now() - t;
  }
  res->r[3] = (result_t){mb / fastest(s, g_samples), ok};

  if (sc) L->blosc2_schunk_free(sc);
  if (path[0]) L->blosc2_remove_urlpath(path);
  free(cframe); free(src); free(out);
}

#define N3 256
static double b2nd_value(int64_t i, int64_t j, int64_t k) {
  return (double)(i * 3 + j) * 0.25 + (double)((k * 7 + i) % 64) * 0.5;
}

/* Checks a C-order box [s, e) of the 256^3 source against buf. */
static int check_box(const double *src, const double *buf, const int64_t *s, const int64_t *e) {
  size_t p = 0;
  for (int64_t i = s[0]; i < e[0]; i++)
    for (int64_t j = s[1]; j < e[1]; j++)
      for (int64_t k = s[2]; k < e[2]; k++)
        if (buf[p++] != src[(i * N3 + j) * N3 + k]) return 0;
  return 1;
}

static void run_b2nd(lib_t *L, const workload_t *w, results_t *res, int lib) {
  int64_t total = (int64_t)N3 * N3 * N3 * 8;
  double *src = malloc((size_t)total), *out = malloc((size_t)total);
  for (int64_t i = 0; i < N3; i++)
    for (int64_t j = 0; j < N3; j++)
      for (int64_t k = 0; k < N3; k++) src[(i * N3 + j) * N3 + k] = b2nd_value(i, j, k);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 8;
  cp.nthreads = (int16_t)w->nthreads;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = (int16_t)w->nthreads;
  blosc2_storage st = {.contiguous = true, .cparams = &cp, .dparams = &dp};
  int64_t shape[3] = {N3, N3, N3};
  int32_t chunks[3] = {64, 64, 64}, blocks[3] = {16, 16, 16};
  b2nd_context_t *ctx = L->b2nd_create_ctx(&st, 3, shape, chunks, blocks, NULL, 0, NULL, 0);
  double t, s[64], mb = (double)total / 1e6;
  int ok = ctx != NULL;
  res->n = 7;
  b2nd_array_t *a = NULL;
  for (int k = 0; k < g_samples; k++) {
    if (a) L->b2nd_free(a);
    a = NULL;
    t = now();
    ok &= L->b2nd_from_cbuffer(ctx, &a, src, total) == 0;
    s[k] = now() - t;
  }
  res->r[0] = (result_t){mb / fastest(s, g_samples), ok && a};
  if (!a) { for (int m = 1; m < 7; m++) res->r[m] = (result_t){0, 0}; return; }

  ok = 1;
  for (int k = 0; k < g_samples; k++) {
    memset(out, 0, (size_t)total);
    t = now();
    ok &= L->b2nd_to_cbuffer(a, out, total) == 0;
    s[k] = now() - t;
    ok &= memcmp(out, src, (size_t)total) == 0;
  }
  res->r[1] = (result_t){mb / fastest(s, g_samples), ok};

  /* slab: 10 full planes starting inside a chunk and a block */
  {
    int64_t s0[3] = {100, 0, 0}, s1[3] = {110, N3, N3}, bsh[3] = {10, N3, N3};
    int64_t bytes = 10 * N3 * N3 * 8;
    ok = 1;
    for (int k = 0; k < g_samples; k++) {
      memset(out, 0, (size_t)bytes);
      t = now();
      ok &= L->b2nd_get_slice_cbuffer(a, s0, s1, out, bsh, bytes) == 0;
      s[k] = now() - t;
    }
    ok &= check_box(src, out, s0, s1);
    res->r[2] = (result_t){(double)bytes / 1e6 / fastest(s, g_samples), ok};
  }
  /* column: all of axis 0 at one (j, k) */
  {
    int64_t s0[3] = {0, 37, 91}, s1[3] = {N3, 38, 92}, bsh[3] = {N3, 1, 1};
    double rate;
    memset(out, 0, N3 * 8);
    ok = 1;
    TIME_CALLS(rate, 1 << 20, ok &= L->b2nd_get_slice_cbuffer(a, s0, s1, out, bsh, N3 * 8) == 0);
    ok &= check_box(src, out, s0, s1);
    res->r[3] = (result_t){rate / 1e3, ok};
  }
  /* unaligned box crossing chunk and block boundaries on every axis */
  {
    int64_t s0[3] = {30, 50, 70}, s1[3] = {130, 150, 170}, bsh[3] = {100, 100, 100};
    int64_t bytes = 100 * 100 * 100 * 8;
    ok = 1;
    for (int k = 0; k < g_samples; k++) {
      memset(out, 0, (size_t)bytes);
      t = now();
      ok &= L->b2nd_get_slice_cbuffer(a, s0, s1, out, bsh, bytes) == 0;
      s[k] = now() - t;
    }
    ok &= check_box(src, out, s0, s1);
    res->r[4] = (result_t){(double)bytes / 1e6 / fastest(s, g_samples), ok};
  }
  char path[256];
  snprintf(path, sizeof path, "%s/rblosc2-bench-%d-%d.b2nd", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
           (int)getpid(), lib);
  ok = 1;
  for (int k = 0; k < g_samples; k++) {
    L->blosc2_remove_urlpath(path);
    t = now();
    ok &= L->b2nd_save(a, path) >= 0;
    s[k] = now() - t;
  }
  res->r[5] = (result_t){mb / fastest(s, g_samples), ok};
  {
    double rate;
    ok = 1;
    b2nd_array_t *o = NULL;
    TIME_CALLS(rate, 1 << 20, if (o) L->b2nd_free(o); o = NULL; ok &= L->b2nd_open(path, &o) == 0);
    /* the opened array must read back: one unaligned box */
    int64_t s0[3] = {60, 60, 60}, s1[3] = {70, 70, 70}, bsh[3] = {10, 10, 10};
    memset(out, 0, 8000);
    ok &= o && L->b2nd_get_slice_cbuffer(o, s0, s1, out, bsh, 8000) == 0 && check_box(src, out, s0, s1);
    if (o) L->b2nd_free(o);
    res->r[6] = (result_t){rate / 1e3, ok};
  }
  L->blosc2_remove_urlpath(path);
  L->b2nd_free(a);
  L->b2nd_free_ctx(ctx);
  free(src); free(out);
}

static void run_memcpy(results_t *res) {
  static const size_t sizes[4] = {16 << 10, 256 << 10, 4 << 20, 64 << 20};
  res->n = 4;
  for (int m = 0; m < 4; m++) {
    size_t n = sizes[m];
    uint8_t *a = malloc(n), *b = malloc(n);
    fill(a, n, NOISY);
    memset(b, 0, n);
    double rate;
    TIME_CALLS(rate, 1 << 20, memcpy(b, a, n); __asm__ volatile("" ::"r"(b) : "memory"));
    res->r[m] = (result_t){rate * (double)n / 1e6, memcmp(a, b, n) == 0};
    free(a); free(b);
  }
}

static int child_main(int widx, int lib, const char *path) {
  const workload_t *w = &workloads[widx];
  results_t res = {0};
  if (w->kind == W_MEMCPY) {
    run_memcpy(&res);
  } else {
    lib_t L = load(path);
    if (w->kind == W_CHUNK) run_chunk(&L, w, &res);
    else if (w->kind == W_SCHUNK) run_schunk(&L, w, &res, lib);
    else run_b2nd(&L, w, &res, lib);
  }
  /* bench/hot-text.sh: give the threads of freed contexts time to exit, so that their exit
   * path shows in its profiles (a process that exits at once kills them first). */
  if (getenv("BENCH_SETTLE_MS")) usleep((useconds_t)atoi(getenv("BENCH_SETTLE_MS")) * 1000);
  return fwrite(&res, sizeof res, 1, stdout) == 1 ? 0 : 3;
}

/* ------------------------------------------------------------------ parent */

static int spawn(const char *self, int widx, int lib, const char *libpath, results_t *res, long *maxrss_kib) {
  int fd[2];
  if (pipe(fd) != 0) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fd[1], 1);
    close(fd[0]); close(fd[1]);
    char a1[16], a2[16], a3[16];
    snprintf(a1, sizeof a1, "%d", widx);
    snprintf(a2, sizeof a2, "%d", lib);
    snprintf(a3, sizeof a3, "%d", g_samples);
    execl(self, self, "--child", a1, a2, libpath, a3, (char *)NULL);
    _exit(127);
  }
  close(fd[1]);
  size_t got = 0;
  ssize_t r;
  while (got < sizeof *res && (r = read(fd[0], (char *)res + got, sizeof *res - got)) > 0) got += (size_t)r;
  close(fd[0]);
  int status;
  struct rusage ru;
  wait4(pid, &status, 0, &ru);
  *maxrss_kib = ru.ru_maxrss;
  if (got != sizeof *res || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 6 && strcmp(argv[1], "--child") == 0) {
    g_samples = atoi(argv[5]);
    if (g_samples < 5) g_budget = 0.005;
    return child_main(atoi(argv[2]), atoi(argv[3]), argv[4]);
  }
  if (argc == 2 && strcmp(argv[1], "--list") == 0) {
    for (int w = 0; w < NWORKLOADS; w++)
      if (workloads[w].kind != W_MEMCPY) printf("%d\t%s\n", w, workloads[w].name);
    return 0;
  }
  if (argc < 3) {
    fprintf(stderr, "usage: %s OURS.so REF.so [--quick] [--reps N] [--only SUBSTRING]\n", argv[0]);
    return 2;
  }
  const char *libs[2] = {argv[1], argv[2]};
  int reps = 5;
  const char *only = NULL;
  g_samples = 5;
  for (int i = 3; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0) { reps = 3; g_samples = 3; }
    else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) reps = atoi(argv[++i]);
    else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) only = argv[++i];
  }
  if (reps < 1 || reps > 64 || g_samples > 64) { fprintf(stderr, "bad --reps\n"); return 2; }
  char self[4096];
  ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
  if (sl <= 0) { perror("readlink"); return 2; }
  self[sl] = 0;

  printf("%d interleaved repetitions x %d inner samples (fastest per repetition, median over\n"
         "repetitions); higher is better;\n"
         "ratio = ours / reference. Peak RSS is per workload child process.\n\n", reps, g_samples);
  printf("| workload | metric | ours | reference | ratio |\n|---|---|---:|---:|---:|\n");
  double geo_sum = 0, geo1_min = 1e9;
  int geo_n = 0, failures = 0, ref_wrong = 0;
  for (int w = 0; w < NWORKLOADS; w++) {
    if (only && !strstr(workloads[w].name, only)) continue;
    int kind = workloads[w].kind, nm = nmetrics(kind), nlib = kind == W_MEMCPY ? 1 : 2;
    double v[2][MAX_METRICS][64];
    int wrong[2][MAX_METRICS] = {{0}};
    long rss[2] = {0, 0};
    int crashed[2] = {0, 0};
    for (int r = 0; r < reps; r++) {
      for (int o = 0; o < nlib; o++) {
        int lib = (r % 2) ? 1 - o : o; /* ours, ref, ref, ours, ... */
        if (nlib == 1) lib = 0;
        results_t res;
        long maxrss = 0;
        if (spawn(self, w, lib, libs[lib], &res, &maxrss) != 0 || res.n != nm) {
          crashed[lib] = 1;
          for (int m = 0; m < nm; m++) v[lib][m][r] = 0;
          continue;
        }
        if (maxrss > rss[lib]) rss[lib] = maxrss;
        for (int m = 0; m < nm; m++) {
          v[lib][m][r] = res.r[m].value;
          if (!res.r[m].ok) wrong[lib][m] = 1;
        }
      }
    }
    for (int m = 0; m < nm; m++) {
      double ours = median(v[0][m], reps);
      if (nlib == 1) {
        printf("| %s | %s | %.0f | | |\n", workloads[w].name, metric_names[kind][m], ours);
        if (wrong[0][m]) { printf("| %s | %s | FAIL: wrong result | | |\n", workloads[w].name, metric_names[kind][m]); failures++; }
        continue;
      }
      double ref = median(v[1][m], reps);
      if (crashed[0] || wrong[0][m]) {
        printf("| %s | %s | FAIL: %s | %.1f | |\n", workloads[w].name, metric_names[kind][m],
               crashed[0] ? "crashed" : "wrong result", ref);
        failures++;
        continue;
      }
      if (crashed[1] || wrong[1][m]) {
        printf("| %s | %s | %.1f | reference wrong | |\n", workloads[w].name, metric_names[kind][m], ours);
        ref_wrong++;
        continue;
      }
      double ratio = ours / ref;
      printf("| %s | %s | %.1f | %.1f | %.2f |\n", workloads[w].name, metric_names[kind][m], ours, ref, ratio);
      fflush(stdout);
      geo_sum += log(ratio);
      geo_n++;
      if (!strstr(workloads[w].name, " t2") && ratio < geo1_min) geo1_min = ratio;
    }
    if (nlib == 2)
      printf("| %s | peak RSS MiB (lower is better) | %.1f | %.1f | %.2f |\n", workloads[w].name,
             (double)rss[0] / 1024, (double)rss[1] / 1024, rss[1] ? (double)rss[0] / (double)rss[1] : 0.0);
    fflush(stdout);
  }
  printf("\ngeometric mean of %d speed ratios (ours/reference): %.3f\n", geo_n, geo_n ? exp(geo_sum / geo_n) : 0.0);
  printf("lowest single-thread ratio: %.2f\n", geo1_min);
  printf("%d reference-wrong metrics, %d failures\n", ref_wrong, failures);
  return failures ? 1 : 0;
}
