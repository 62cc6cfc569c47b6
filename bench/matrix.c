/* Workload matrix (issue 23): one row of the matrix per process, on whichever libblosc2.so.9 the
 * dynamic loader finds (bench/matrix.sh points LD_LIBRARY_PATH at ours or at the reference, and
 * interleaves the two libraries' processes row by row).
 *
 *   matrix --list            row names, one a line
 *   matrix ROW               prints "ROW seconds_per_op peak_rss_kib minor_faults_per_sample"
 *                            (the fastest sample; the faults include the untimed preparation)
 *   MATRIX_ITERS=1 matrix ROW    one warm-up and one counted call of the operation, for
 *                            valgrind --tool=callgrind --toggle-collect=run_counted
 *
 * Families (the first word of a row's name):
 *   chunk    4 MiB chunk compress/decompress: codecs LZ4, BloscLZ, Zstd 1 and 5, filters none,
 *            shuffle, bitshuffle, delta+shuffle; typesizes 1 2 4 8 16 300; nthreads 1 and 2
 *   special  decompress / getitem of zeros, NaN, uninit and repeated-value chunks
 *   b2nd     slices (thin = inside one block row, thick = whole chunk rows, aligned and
 *            unaligned starts, along each axis), columns, boxes, to/from_cbuffer, to_cbuffer of
 *            a saved array; chunk/block ratios 1, 64, 4096; typesizes 1..16 and 300; codecs
 *   schunk   append / decompress every chunk / update / insert, in memory (contiguous or not),
 *            in a file and in a sparse directory; get_chunk and lazychunk + getitem_ctx of every
 *            chunk on disk; from_buffer(copy) of an in-memory frame
 *   calls    per-call costs: context creation, getitem and compression of small buffers
 * Every operation's output is checked; a wrong result exits with status 5. */
#define _GNU_SOURCE
#include <b2nd.h>
#include <blosc2.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "data.h"
#include "timing.h"

#define MAXROWS 512
typedef struct {
  char name[96];
  int family;               /* F_* */
  int codec, clevel, filt;  /* filt: FL_* */
  int typesize, nthreads, op;
  int a;                    /* chunk: data kind; special: kind; b2nd: array; schunk: storage */
} row_t;
enum { F_CHUNK, F_SPECIAL, F_B2ND, F_SCHUNK, F_CALLS };
enum { FL_NONE, FL_SHUFFLE, FL_BITSHUFFLE, FL_DELTA };
static const char *fl_names[] = {"noshuf", "shuffle", "bitshuffle", "delta+shuffle"};
static row_t rows[MAXROWS];
static int nrows;

static const char *codec_name(int c, int l) {
  static char b[32];
  snprintf(b, sizeof b, "%s%d", c == BLOSC_LZ4 ? "lz4-" : c == BLOSC_BLOSCLZ ? "blosclz-" : "zstd-", l);
  return b;
}

static row_t *add(int family, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#include <stdarg.h>
static row_t *add(int family, const char *fmt, ...) {
  row_t *r = &rows[nrows++];
  memset(r, 0, sizeof *r);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->name, sizeof r->name, fmt, ap);
  va_end(ap);
  r->family = family;
  r->nthreads = 1;
  return r;
}

/* ---------------------------------------------------------------- b2nd arrays and slices */
typedef struct {
  const char *name;
  int64_t n;                /* cube side */
  int32_t chunk, block;
  int typesize, codec, clevel, filt;
} arr_t;
static const arr_t arrays[] = {
    /* 0: the geometry */
    {"256^3xf64/c64b16/lz4-5+shuffle", 256, 64, 16, 8, BLOSC_LZ4, 5, FL_SHUFFLE},
    /* chunk/block ratios */
    {"128^3xf64/c32b32/blosclz-5+shuffle", 128, 32, 32, 8, BLOSC_BLOSCLZ, 5, FL_SHUFFLE},
    {"128^3xf64/c64b16/blosclz-5+shuffle", 128, 64, 16, 8, BLOSC_BLOSCLZ, 5, FL_SHUFFLE},
    {"128^3xf64/c64b4/blosclz-5+shuffle", 128, 64, 4, 8, BLOSC_BLOSCLZ, 5, FL_SHUFFLE},
    /* typesizes */
    {"128^3xu8/c64b16/lz4-5+shuffle", 128, 64, 16, 1, BLOSC_LZ4, 5, FL_SHUFFLE},
    {"128^3xi16/c64b16/lz4-5+shuffle", 128, 64, 16, 2, BLOSC_LZ4, 5, FL_SHUFFLE},
    {"128^3xf32/c64b16/lz4-5+shuffle", 128, 64, 16, 4, BLOSC_LZ4, 5, FL_SHUFFLE},
    {"128^3xc128/c64b16/lz4-5+shuffle", 128, 64, 16, 16, BLOSC_LZ4, 5, FL_SHUFFLE},
    /* (typesize 300: c-blosc2 3.3.5 fails b2nd_from_cbuffer; the chunk family has it) */
    {"64^3xV32/c32b8/lz4-5+shuffle", 64, 32, 8, 32, BLOSC_LZ4, 5, FL_SHUFFLE},
    /* codecs and filters */
    {"128^3xf64/c64b16/zstd-1+shuffle", 128, 64, 16, 8, BLOSC_ZSTD, 1, FL_SHUFFLE},
    {"128^3xf64/c64b16/zstd-5+bitshuffle", 128, 64, 16, 8, BLOSC_ZSTD, 5, FL_BITSHUFFLE},
    {"128^3xf64/c64b16/lz4-5+delta+shuffle", 128, 64, 16, 8, BLOSC_LZ4, 5, FL_DELTA},
    {"128^3xf64/c64b16/lz4-5+noshuf", 128, 64, 16, 8, BLOSC_LZ4, 5, FL_NONE},
};
#define NARRAYS (int)(sizeof arrays / sizeof arrays[0])
enum { OP_SLICE, OP_TO_CBUFFER, OP_FROM_CBUFFER, OP_TO_CBUFFER_FILE, OP_SET_SLICE };
/* Slices as fractions of the side n: start/stop = k * n / 256 (so the rows are exact at
 * n = 256), per axis. */
typedef struct {
  const char *name;
  int s[3], e[3];
} slice_t;
static const slice_t slices[] = {
    {"slab-thin-ax0", {100, 0, 0}, {110, 256, 256}},
    {"slab-thin-ax1", {0, 100, 0}, {256, 110, 256}},
    {"slab-thin-ax2", {0, 0, 100}, {256, 256, 110}},
    {"slab-thick-aligned-ax0", {64, 0, 0}, {128, 256, 256}},
    {"slab-thick-unaligned-ax0", {70, 0, 0}, {134, 256, 256}},
    {"slab-thick-aligned-ax1", {0, 64, 0}, {256, 128, 256}},
    {"slab-thick-unaligned-ax2", {0, 0, 70}, {256, 256, 134}},
    {"column-ax0", {0, 37, 91}, {256, 38, 92}},
    {"column-ax2", {37, 91, 0}, {38, 92, 256}},
    {"box-aligned", {64, 64, 64}, {192, 192, 192}},
    {"box-unaligned", {30, 50, 70}, {130, 150, 170}},
};
#define NSLICES (int)(sizeof slices / sizeof slices[0])

/* ---------------------------------------------------------------- the row list */
static void build_rows(void) {
  static const int codecs[][2] = {{BLOSC_LZ4, 5}, {BLOSC_BLOSCLZ, 5}, {BLOSC_ZSTD, 1}, {BLOSC_ZSTD, 5}};
  for (int t = 1; t <= 2; t++) {
    for (int c = 0; c < 4; c++)
      for (int f = 0; f < 4; f++)
        for (int op = 0; op < 2; op++) {
          row_t *r = add(F_CHUNK, "chunk 4MiB f64 %s+%s t%d %s", codec_name(codecs[c][0], codecs[c][1]),
                         fl_names[f], t, op ? "decompress" : "compress");
          r->codec = codecs[c][0], r->clevel = codecs[c][1], r->filt = f, r->typesize = 8;
          r->nthreads = t, r->op = op;
        }
    static const int tss[] = {1, 2, 4, 16, 300};
    for (int i = 0; i < 5; i++)
      for (int c = 0; c < 2; c++)
        for (int op = 0; op < 2; op++) {
          int codec = c ? BLOSC_ZSTD : BLOSC_LZ4, clevel = c ? 1 : 5, f = c ? FL_BITSHUFFLE : FL_SHUFFLE;
          row_t *r = add(F_CHUNK, "chunk 4MiB ts%d %s+%s t%d %s", tss[i], codec_name(codec, clevel),
                         fl_names[f], t, op ? "decompress" : "compress");
          r->codec = codec, r->clevel = clevel, r->filt = f, r->typesize = tss[i], r->nthreads = t;
          r->op = op;
        }
    static const char *specials[] = {"zeros", "nans", "uninit", "repeatval"};
    for (int k = 0; k < 4; k++)
      for (int op = 0; op < 2; op++) {
        row_t *r = add(F_SPECIAL, "special 4MiB f64 %s t%d %s", specials[k], t, op ? "getitem-1%" : "decompress");
        r->a = k, r->op = op, r->nthreads = t, r->typesize = 8;
        r->codec = BLOSC_LZ4, r->clevel = 5, r->filt = FL_SHUFFLE;
      }
    for (int a = 0; a < NARRAYS; a++) {
      if (t == 2 && a != 0) continue;
      for (int s = 0; s < NSLICES; s++) {
        if (a != 0 && s != 0 && s != 3 && s != 8 && s != 10) continue;
        row_t *r = add(F_B2ND, "b2nd %s t%d %s", arrays[a].name, t, slices[s].name);
        r->a = a, r->op = OP_SLICE, r->nthreads = t, r->filt = s;
        /* Writing the thin slab back (b2nd_set_slice_cbuffer: decompress, patch, recompress). */
        if (t == 1 && (a == 0 || a == 2) && s == 0) {
          r = add(F_B2ND, "b2nd %s t%d set-%s", arrays[a].name, t, slices[s].name);
          r->a = a, r->op = OP_SET_SLICE, r->nthreads = t, r->filt = s;
        }
      }
      static const char *ops[] = {"", "to_cbuffer", "from_cbuffer", "to_cbuffer(file)"};
      for (int op = 1; op < 4; op++) {
        if (a != 0 && op == OP_TO_CBUFFER_FILE) continue;
        row_t *r = add(F_B2ND, "b2nd %s t%d %s", arrays[a].name, t, ops[op]);
        r->a = a, r->op = op, r->nthreads = t;
      }
    }
    static const char *storages[] = {"memory-contiguous", "memory-noncontiguous", "file", "sparse-dir"};
    static const char *sops[] = {"append", "decompress-all", "update", "insert",
                                 "get_chunk-all", "lazychunk+getitem-all", "from_buffer(copy)"};
    for (int st = 0; st < 4; st++)
      for (int op = 0; op < 7; op++) {
        /* get_chunk and lazy chunks read from disk; from_buffer copies an in-memory frame. */
        if (op >= 4 && (t != 1 || (op < 6 && st < 2) || (op == 6 && st != 0))) continue;
        row_t *r = add(F_SCHUNK, "schunk 32x1MiB f64 %s t%d %s", storages[st], t, sops[op]);
        r->a = st, r->op = op, r->nthreads = t;
      }
    /* The b2nd rows are what every small array costs beyond its data (python-blosc2 makes one
       per zeros/copy/expand_dims/reduction result): a 100x100 f64 array, one chunk. */
    static const char *calls[] = {"create+free-cctx x1000", "getitem-4items-of-4KiB-chunk x1000",
                                  "compress-8KiB x100", "decompress-64KiB x100",
                                  "b2nd_zeros+free-100x100 x100", "b2nd_copy+free-100x100 x100",
                                  "b2nd_expand_dims+free x100", "b2nd_get_slice_cbuffer-1row x100"};
    for (int op = 0; op < 8 && t == 1; op++) {
      row_t *r = add(F_CALLS, "calls f64 t%d %s", t, calls[op]);
      r->op = op, r->typesize = 8, r->codec = BLOSC_BLOSCLZ, r->clevel = 5, r->filt = FL_SHUFFLE;
    }
  }
}

/* ---------------------------------------------------------------- helpers */
static void fail(const char *what) {
  fprintf(stderr, "%s\n", what);
  exit(5);
}

static blosc2_cparams cparams_of(int codec, int clevel, int filt, int typesize, int nthreads) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = (uint8_t)codec;
  cp.clevel = (uint8_t)clevel;
  cp.typesize = typesize;
  cp.nthreads = (int16_t)nthreads;
  memset(cp.filters, 0, sizeof cp.filters);
  if (filt == FL_SHUFFLE) cp.filters[5] = BLOSC_SHUFFLE;
  if (filt == FL_BITSHUFFLE) cp.filters[5] = BLOSC_BITSHUFFLE;
  if (filt == FL_DELTA) cp.filters[4] = BLOSC_DELTA, cp.filters[5] = BLOSC_SHUFFLE;
  return cp;
}

/* The state of one row: built once, then op() is timed. */
typedef struct {
  const row_t *r;
  uint8_t *src, *out, *chunk, *chunk2;
  int64_t n, csize;
  blosc2_context *cctx, *dctx;
  b2nd_array_t *arr;
  b2nd_context_t *bctx;
  int64_t start[3], stop[3], bshape[3];
  blosc2_schunk *sc;
  blosc2_storage st;
  blosc2_cparams cp;
  blosc2_dparams dp;
  char path[256];
} state_t;

#define SC_NCHUNKS 32
#define SC_CHUNK (1 << 20)

static void schunk_build(state_t *s) {
  if (s->path[0]) blosc2_remove_urlpath(s->path);
  s->sc = blosc2_schunk_new(&s->st);
  for (int i = 0; i < SC_NCHUNKS; i++)
    if (!s->sc || blosc2_schunk_append_buffer(s->sc, s->src + (size_t)i * SC_CHUNK, SC_CHUNK) != i + 1)
      fail("schunk append failed");
}

static void setup(state_t *s) {
  const row_t *r = s->r;
  blosc2_init();
  s->dp = (blosc2_dparams)BLOSC2_DPARAMS_DEFAULTS;
  s->dp.nthreads = (int16_t)r->nthreads;
  if (r->family == F_CALLS) {
    /* 4 MiB of data in the process, as a program has (peak RSS then measures more than the
       libraries' code pages); the calls use its first 64 KiB. */
    s->n = 64 << 10;
    s->src = malloc(4 << 20);
    s->out = calloc(4 << 20, 1);
    s->chunk = malloc((size_t)s->n + BLOSC2_MAX_OVERHEAD);
    fill(s->src, 4 << 20, NOISY);
    s->cp = cparams_of(r->codec, r->clevel, r->filt, r->typesize, 1);
    blosc1_set_compressor("blosclz");
    /* getitem reads a 4 KiB chunk, decompress a 64 KiB one. */
    int32_t n = r->op == 1 ? 4096 : (int32_t)s->n;
    s->csize = blosc2_compress(5, BLOSC_SHUFFLE, 8, s->src, n, s->chunk, n + BLOSC2_MAX_OVERHEAD);
    if (s->csize <= 0) fail("compress failed");
    if (r->op >= 4) {
      int64_t shape[2] = {100, 100};
      int32_t cshape[2] = {100, 100}, bshape[2] = {50, 100};
      s->st = (blosc2_storage){.contiguous = false, .cparams = &s->cp, .dparams = &s->dp};
      s->bctx = b2nd_create_ctx(&s->st, 2, shape, cshape, bshape, "<f8", DTYPE_NUMPY_FORMAT, NULL, 0);
      if (!s->bctx || b2nd_from_cbuffer(s->bctx, &s->arr, s->src, 80000) != 0) fail("b2nd setup failed");
    }
  } else if (r->family == F_CHUNK || r->family == F_SPECIAL) {
    s->n = 4 << 20;
    s->src = malloc((size_t)s->n);
    s->out = malloc((size_t)s->n);
    s->chunk = malloc((size_t)s->n + BLOSC2_MAX_OVERHEAD);
    fill(s->src, (size_t)s->n, NOISY);
    s->cp = cparams_of(r->codec, r->clevel, r->filt, r->typesize, r->nthreads);
    s->cctx = blosc2_create_cctx(s->cp);
    s->dctx = blosc2_create_dctx(s->dp);
    if (r->family == F_CHUNK) {
      s->csize = blosc2_compress_ctx(s->cctx, s->src, (int32_t)s->n, s->chunk, (int32_t)s->n + BLOSC2_MAX_OVERHEAD);
    } else {
      int32_t nb = (int32_t)s->n, cs = (int32_t)s->n + BLOSC2_MAX_OVERHEAD;
      double v = 3.25;
      switch (r->a) {
      case 0: s->csize = blosc2_chunk_zeros(s->cp, nb, s->chunk, cs); memset(s->src, 0, (size_t)nb); break;
      case 1: {
        s->csize = blosc2_chunk_nans(s->cp, nb, s->chunk, cs);
        for (int64_t i = 0; i < s->n / 8; i++) ((double *)s->src)[i] = NAN;
        break;
      }
      case 2: s->csize = blosc2_chunk_uninit(s->cp, nb, s->chunk, cs); break;
      default:
        s->csize = blosc2_chunk_repeatval(s->cp, nb, s->chunk, cs, &v);
        for (int64_t i = 0; i < s->n / 8; i++) ((double *)s->src)[i] = v;
      }
    }
    if (s->csize <= 0) fail("building the chunk failed");
  } else if (r->family == F_B2ND) {
    const arr_t *a = &arrays[r->a];
    s->n = a->n * a->n * a->n * a->typesize;
    s->src = malloc((size_t)s->n);
    fill(s->src, (size_t)s->n & ~(size_t)7, NOISY);
    s->cp = cparams_of(a->codec, a->clevel, a->filt, a->typesize, r->nthreads);
    s->st = (blosc2_storage){.contiguous = true, .cparams = &s->cp, .dparams = &s->dp};
    int64_t shape[3] = {a->n, a->n, a->n};
    int32_t ch[3] = {a->chunk, a->chunk, a->chunk}, bl[3] = {a->block, a->block, a->block};
    s->bctx = b2nd_create_ctx(&s->st, 3, shape, ch, bl, NULL, 0, NULL, 0);
    if (!s->bctx || b2nd_from_cbuffer(s->bctx, &s->arr, s->src, s->n) != 0) fail("from_cbuffer failed");
    if (r->op == OP_SLICE) {
      const slice_t *sl = &slices[r->filt];
      int64_t items = 1;
      for (int d = 0; d < 3; d++) {
        s->start[d] = sl->s[d] * a->n / 256;
        s->stop[d] = sl->e[d] * a->n / 256;
        if (s->stop[d] <= s->start[d]) s->stop[d] = s->start[d] + 1;
        items *= s->bshape[d] = s->stop[d] - s->start[d];
      }
      s->out = calloc((size_t)items, (size_t)a->typesize);
    } else if (r->op == OP_SET_SLICE) {
      const slice_t *sl = &slices[r->filt];
      int64_t items = 1;
      for (int d = 0; d < 3; d++) {
        s->start[d] = sl->s[d] * a->n / 256;
        s->stop[d] = sl->e[d] * a->n / 256;
        items *= s->bshape[d] = s->stop[d] - s->start[d];
      }
      /* The slab as it is: setting it leaves the array unchanged, which check() verifies. */
      s->out = calloc((size_t)items, (size_t)a->typesize);
      if (b2nd_get_slice_cbuffer(s->arr, s->start, s->stop, s->out, s->bshape, items * a->typesize) != 0)
        fail("get_slice failed");
    } else {
      s->out = calloc((size_t)s->n, 1);
    }
    if (r->op == OP_TO_CBUFFER_FILE) {
      snprintf(s->path, sizeof s->path, "%s/rblosc2-matrix-%d.b2nd", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
      blosc2_remove_urlpath(s->path);
      if (b2nd_save(s->arr, s->path) != 0) fail("save failed");
      b2nd_free(s->arr);
      if (b2nd_open(s->path, &s->arr) != 0) fail("open failed");
    }
  } else {
    s->n = (int64_t)SC_NCHUNKS * SC_CHUNK;
    s->src = malloc((size_t)s->n);
    s->out = malloc((size_t)s->n);
    fill(s->src, (size_t)s->n, NOISY);
    s->cp = cparams_of(BLOSC_BLOSCLZ, 5, FL_SHUFFLE, 8, r->nthreads);
    if (r->a >= 2)
      snprintf(s->path, sizeof s->path, "%s/rblosc2-matrix-%d.%s", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
               (int)getpid(), r->a == 2 ? "b2frame" : "b2sframe");
    s->st = (blosc2_storage){.contiguous = r->a != 1 && r->a != 3, .urlpath = s->path[0] ? s->path : NULL,
                             .cparams = &s->cp, .dparams = &s->dp};
    /* A spare compressed chunk for update and insert: the last MiB reversed. */
    s->chunk = malloc(SC_CHUNK + BLOSC2_MAX_OVERHEAD);
    uint8_t *rev = malloc(SC_CHUNK);
    for (int i = 0; i < SC_CHUNK; i++) rev[i] = s->src[(size_t)s->n - 1 - (size_t)i];
    blosc2_context *c = blosc2_create_cctx(s->cp);
    s->csize = blosc2_compress_ctx(c, rev, SC_CHUNK, s->chunk, SC_CHUNK + BLOSC2_MAX_OVERHEAD);
    blosc2_free_ctx(c);
    s->chunk2 = rev;
    if (s->csize <= 0) fail("compress failed");
    if (r->op != 0) schunk_build(s);
  }
}

/* Per-sample preparation (not timed): ops that change the state start from the same one. */
static void before(state_t *s) {
  const row_t *r = s->r;
  if (r->family == F_SCHUNK && (r->op == 0 || r->op == 2 || r->op == 3)) {
    if (s->sc) blosc2_schunk_free(s->sc);
    s->sc = NULL;
    if (r->op == 0) {
      if (s->path[0]) blosc2_remove_urlpath(s->path);
    } else {
      schunk_build(s);
    }
  }
}

/* The timed operation. */
static int op(state_t *s) {
  const row_t *r = s->r;
  switch (r->family) {
  case F_CHUNK:
    if (r->op == 0) return blosc2_compress_ctx(s->cctx, s->src, (int32_t)s->n, s->chunk, (int32_t)s->n + BLOSC2_MAX_OVERHEAD) == s->csize;
    return blosc2_decompress_ctx(s->dctx, s->chunk, (int32_t)s->csize, s->out, (int32_t)s->n) == s->n;
  case F_SPECIAL:
    if (r->op == 0) return blosc2_decompress_ctx(s->dctx, s->chunk, (int32_t)s->csize, s->out, (int32_t)s->n) == s->n;
    {
      int nitems = (int)(s->n / 8), k = nitems / 100;
      return blosc2_getitem_ctx(s->dctx, s->chunk, (int32_t)s->csize, nitems / 3, k, s->out, k * 8) == k * 8;
    }
  case F_CALLS:
    switch (r->op) {
    case 0:
      for (int i = 0; i < 1000; i++) {
        blosc2_context *c = blosc2_create_cctx(s->cp);
        if (!c) return 0;
        blosc2_free_ctx(c);
      }
      return 1;
    case 1:
      for (int i = 0; i < 1000; i++)
        if (blosc2_getitem(s->chunk, (int32_t)s->csize, (i * 37) % 508, 4, s->out + (i % 64) * 32, 32) != 32) return 0;
      return 1;
    case 2:
      for (int i = 0; i < 100; i++)
        if (blosc2_compress(5, BLOSC_SHUFFLE, 8, s->src + (i % 8) * 8192, 8192, s->out, 8192 + BLOSC2_MAX_OVERHEAD) <= 0) return 0;
      return 1;
    case 3:
      for (int i = 0; i < 100; i++)
        if (blosc2_decompress(s->chunk, (int32_t)s->csize, s->out, (int32_t)s->n) != s->n) return 0;
      return 1;
    case 7:
      for (int i = 0; i < 100; i++) {
        int64_t start[2] = {i % 100, 0}, stop[2] = {i % 100 + 1, 100}, bshape[2] = {1, 100};
        if (b2nd_get_slice_cbuffer(s->arr, start, stop, s->out + (i % 100) * 800, bshape, 800) != 0) return 0;
      }
      return 1;
    default:
      for (int i = 0; i < 100; i++) {
        b2nd_array_t *a = NULL;
        bool newaxis[3] = {true, false, false};
        int rc = r->op == 4   ? b2nd_zeros(s->bctx, &a)
                 : r->op == 5 ? b2nd_copy(s->bctx, s->arr, &a)
                              : b2nd_expand_dims(s->arr, &a, newaxis, 3);
        if (rc != 0 || !a || a->nitems != 10000) return 0;
        b2nd_free(a);
      }
      return 1;
    }
  case F_B2ND: {
    const arr_t *a = &arrays[r->a];
    if (r->op == OP_SET_SLICE) {
      int64_t bytes = s->bshape[0] * s->bshape[1] * s->bshape[2] * a->typesize;
      return b2nd_set_slice_cbuffer(s->out, s->bshape, bytes, s->start, s->stop, s->arr) == 0;
    }
    if (r->op == OP_SLICE) {
      int64_t bytes = s->bshape[0] * s->bshape[1] * s->bshape[2] * a->typesize;
      return b2nd_get_slice_cbuffer(s->arr, s->start, s->stop, s->out, s->bshape, bytes) == 0;
    }
    if (r->op == OP_FROM_CBUFFER) {
      b2nd_array_t *o = NULL;
      int ok = b2nd_from_cbuffer(s->bctx, &o, s->src, s->n) == 0;
      if (o) b2nd_free(o);
      return ok;
    }
    return b2nd_to_cbuffer(s->arr, s->out, s->n) == 0;
  }
  default:
    switch (r->op) {
    case 0: schunk_build(s); return 1;
    case 1:
      for (int i = 0; i < SC_NCHUNKS; i++)
        if (blosc2_schunk_decompress_chunk(s->sc, i, s->out + (size_t)i * SC_CHUNK, SC_CHUNK) != SC_CHUNK) return 0;
      return 1;
    case 2:
      for (int i = 0; i < SC_NCHUNKS; i += 4)
        if (blosc2_schunk_update_chunk(s->sc, i, s->chunk, true) < 0) return 0;
      return 1;
    case 3:
      for (int i = 0; i < 8; i++)
        if (blosc2_schunk_insert_chunk(s->sc, SC_NCHUNKS / 2, s->chunk, true) < 0) return 0;
      return 1;
    case 4:
      for (int i = 0; i < SC_NCHUNKS; i++) {
        uint8_t *c;
        bool needs_free;
        int cb = blosc2_schunk_get_chunk(s->sc, i, &c, &needs_free);
        if (cb <= 0) return 0;
        s->out[i] = c[cb - 1]; /* touch it, as a reader would */
        if (needs_free) free(c);
      }
      return 1;
    case 5:
      /* 100 items from each chunk, as python-blosc2 reads parts of chunks on disk. */
      for (int i = 0; i < SC_NCHUNKS; i++) {
        uint8_t *c;
        bool needs_free;
        int cb = blosc2_schunk_get_lazychunk(s->sc, i, &c, &needs_free);
        if (cb <= 0) return 0;
        int ok = blosc2_getitem_ctx(s->sc->dctx, c, cb, 50000 + i * 77, 100, s->out + (size_t)i * 800, 800) == 800;
        if (needs_free) free(c);
        if (!ok) return 0;
      }
      return 1;
    default: {
      uint8_t *frame;
      bool needs_free;
      int64_t len = blosc2_schunk_to_buffer(s->sc, &frame, &needs_free);
      if (len <= 0) return 0;
      blosc2_schunk *copy = blosc2_schunk_from_buffer(frame, len, true);
      if (needs_free) free(frame);
      if (!copy || copy->nchunks != SC_NCHUNKS) return 0;
      blosc2_schunk_free(copy);
      return 1;
    }
    }
  }
}

/* A wrong result is reported, not fatal: the reference has known wrong results (DELTA chunks
   read partially), and the table marks them instead of losing the row. */
static const char *wrong_result;

static void wrong(const char *what) {
  if (!wrong_result) wrong_result = what;
}

static void check(state_t *s) {
  const row_t *r = s->r;
  if (r->family == F_CHUNK) {
    if (r->op == 1 && memcmp(s->out, s->src, (size_t)s->n) != 0) wrong("wrong decompress");
  } else if (r->family == F_SPECIAL) {
    if (r->a == 2) return;
    int nitems = (int)(s->n / 8), k = nitems / 100;
    if (r->op == 0 && memcmp(s->out, s->src, (size_t)s->n) != 0) wrong("wrong special decompress");
    if (r->op == 1 && memcmp(s->out, s->src + (size_t)(nitems / 3) * 8, (size_t)k * 8) != 0) wrong("wrong getitem");
  } else if (r->family == F_B2ND) {
    const arr_t *a = &arrays[r->a];
    size_t ts = (size_t)a->typesize;
    if (r->op == OP_SLICE) {
      size_t p = 0;
      for (int64_t i = s->start[0]; i < s->stop[0]; i++)
        for (int64_t j = s->start[1]; j < s->stop[1]; j++, p += (size_t)s->bshape[2] * ts)
          if (memcmp(s->out + p, s->src + ((size_t)(i * a->n + j) * (size_t)a->n + (size_t)s->start[2]) * ts,
                     (size_t)s->bshape[2] * ts) != 0)
            wrong("wrong slice");
    } else if (r->op == OP_SET_SLICE) {
      int64_t bytes = s->bshape[0] * s->bshape[1] * s->bshape[2] * (int64_t)ts;
      uint8_t *again = malloc((size_t)bytes);
      if (b2nd_get_slice_cbuffer(s->arr, s->start, s->stop, again, s->bshape, bytes) != 0 ||
          memcmp(again, s->out, (size_t)bytes) != 0)
        wrong("wrong slice after set_slice");
      free(again);
    } else if (r->op != OP_FROM_CBUFFER && memcmp(s->out, s->src, (size_t)s->n) != 0) {
      wrong("wrong to_cbuffer");
    }
  } else if (r->family == F_CALLS) {
    if (r->op == 1 && memcmp(s->out + (999 % 64) * 32, s->src + ((999 * 37) % 508) * 8, 32) != 0) wrong("wrong getitem");
    if (r->op == 3 && memcmp(s->out, s->src, (size_t)s->n) != 0) wrong("wrong decompress");
    if (r->op == 7 && memcmp(s->out, s->src, 80000) != 0) wrong("wrong b2nd row slice");
  } else if (r->op == 1 && memcmp(s->out, s->src, (size_t)s->n) != 0) {
    wrong("wrong schunk decompress");
  } else if (r->op == 5) {
    for (int i = 0; i < SC_NCHUNKS; i++)
      if (memcmp(s->out + (size_t)i * 800, s->src + (size_t)i * SC_CHUNK + (size_t)(50000 + i * 77) * 8, 800) != 0)
        wrong("wrong lazychunk getitem");
  } else if (r->op == 2 || r->op == 3) {
    int64_t want = r->op == 3 ? SC_NCHUNKS + 8 : SC_NCHUNKS;
    if (s->sc->nchunks != want) wrong("wrong nchunks");
    if (blosc2_schunk_decompress_chunk(s->sc, r->op == 3 ? SC_NCHUNKS / 2 : 4, s->out, SC_CHUNK) != SC_CHUNK ||
        memcmp(s->out, s->chunk2, SC_CHUNK) != 0)
      wrong("wrong updated/inserted chunk");
  }
}

/* Everything callgrind counts (MATRIX_ITERS). */
__attribute__((noinline)) int run_counted(state_t *s) { return op(s); }

int main(int argc, char **argv) {
  build_rows();
  if (argc == 2 && strcmp(argv[1], "--list") == 0) {
    for (int i = 0; i < nrows; i++) puts(rows[i].name);
    return 0;
  }
  if (argc != 2) {
    fprintf(stderr, "usage: matrix --list | matrix ROW\n");
    return 2;
  }
  const row_t *r = NULL;
  for (int i = 0; i < nrows; i++)
    if (strcmp(rows[i].name, argv[1]) == 0) r = &rows[i];
  if (!r) { fprintf(stderr, "unknown row %s\n", argv[1]); return 2; }
  state_t s = {.r = r};
  setup(&s);
  double best = 1e30, minflt = 0;
  int samples = 0;
  if (getenv("MATRIX_ITERS")) {
    int iters = atoi(getenv("MATRIX_ITERS"));
    before(&s);
    if (!op(&s)) fail("operation failed");
    for (int i = 0; i < iters; i++) {
      before(&s);
      if (!run_counted(&s)) fail("operation failed");
    }
    check(&s);
    best = 0;
  } else {
    /* Samples until 0.3 s of timed work (at least 3, at most 200); the fastest one. */
    double total = 0;
    struct rusage r0;
    getrusage(RUSAGE_SELF, &r0);
    for (int i = 0; i < 200 && (i < 3 || total < 0.3); i++) {
      before(&s);
      double t0 = now();
      int ok = op(&s);
      double t = now() - t0;
      if (!ok) fail("operation failed");
      check(&s);
      total += t;
      if (t < best) best = t;
      samples++;
    }
    struct rusage r1;
    getrusage(RUSAGE_SELF, &r1);
    minflt = (double)(r1.ru_minflt - r0.ru_minflt) / samples;
  }
  if (s.path[0]) blosc2_remove_urlpath(s.path);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("%s\t%.9f\t%ld\t%.1f\t%s\n", r->name, best, ru.ru_maxrss, minflt, wrong_result ? wrong_result : "ok");
  return 0;
}
