/* One chunk workload of bench.c, one operation, repeated: for instruction counts under callgrind
 * and for perf record, on either library.
 *
 *   profile LIB.so WORKLOAD OP ITERS
 *     WORKLOAD: lz4 blosclz zstd bitshuffle delta bytedelta random lz4-16k lz4-256k zstd-256k
 *     OP:       compress decompress getitem1 getitem1pct
 *   profile LIB.so SCHUNK OP ITERS
 *     SCHUNK:   schunk-mem schunk-memnc schunk-file schunk-sframe (bench.c's 64 x 1 MiB
 *               super-chunks; schunk-memnc: in memory, not contiguous)
 *     OP:       append decompress-all to_buffer open-decompress-all
 *
 *   valgrind --tool=callgrind --toggle-collect='run_*' profile LIB.so lz4 decompress 3
 *
 * Env PROFILE_NTHREADS=N (default 1) sets the chunk workloads' nthreads for compression and
 * decompression, e.g. to see the threads wait:
 *   perf stat -e task-clock,cycles,instructions,context-switches profile LIB.so delta compress 200
 *
 * counts only the ITERS calls of OP (setup is outside the run_ functions; a super-chunk op is one
 * run_schunk_op call per iteration). The data and parameters are bench.c's; the output is checked
 * after the loop. */
#include <blosc2.h>
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chunk_workloads.h"


static __typeof__(&blosc2_compress_ctx) comp;
static __typeof__(&blosc2_decompress_ctx) dec;
static __typeof__(&blosc2_getitem_ctx) get;

enum { OP_DECOMPRESS, OP_GETITEM1, OP_GETITEM1PCT, OP_COMPRESS };

/* Everything callgrind counts. For OP_COMPRESS, chunk is the destination and out the source. */
__attribute__((noinline)) int run_ops(blosc2_context *dctx, int op, int iters, const uint8_t *chunk,
                                      int csize, uint8_t *out, int n) {
  int nitems = n / 8, r = 0;
  for (int i = 0; i < iters; i++) {
    if (op == OP_COMPRESS) r = comp(dctx, out, n, (uint8_t *)chunk, csize);
    else if (op == OP_DECOMPRESS) r = dec(dctx, chunk, csize, out, n);
    else if (op == OP_GETITEM1) r = get(dctx, chunk, csize, nitems / 2 + 3, 1, out, 8);
    else r = get(dctx, chunk, csize, nitems / 2 - nitems / 200 + 1, nitems / 100, out, n);
  }
  return r;
}

/* ---- super-chunk workloads: bench.c's run_schunk, one operation at a time */

#define SCHUNK_NCHUNKS 64
#define SCHUNK_CHUNK (1 << 20)
enum { ST_MEMORY, ST_MEMORY_NC, ST_CFRAME, ST_SFRAME };
enum { SOP_APPEND, SOP_DECOMPRESS_ALL, SOP_TO_BUFFER, SOP_OPEN_DECOMPRESS_ALL };

typedef struct {
  __typeof__(&blosc2_schunk_new) new_;
  __typeof__(&blosc2_schunk_append_buffer) append;
  __typeof__(&blosc2_schunk_decompress_chunk) decompress_chunk;
  __typeof__(&blosc2_schunk_to_buffer) to_buffer;
  __typeof__(&blosc2_schunk_open) open;
  __typeof__(&blosc2_schunk_from_buffer) from_buffer;
  __typeof__(&blosc2_schunk_free) free_;
  __typeof__(&blosc2_remove_urlpath) remove;
} slib_t;
static slib_t S;

typedef struct {
  blosc2_storage *st;
  const char *path;
  blosc2_schunk *sc;
  const uint8_t *src;
  uint8_t *out;
  uint8_t *cframe; /* to_buffer's result (the last one) */
  int64_t len;
  bool needs_free;
} sstate_t;

static int decompress_all(blosc2_schunk *sc, uint8_t *out) {
  if (!sc || sc->nchunks != SCHUNK_NCHUNKS) return 0;
  for (int64_t i = 0; i < SCHUNK_NCHUNKS; i++)
    if (S.decompress_chunk(sc, i, out + i * SCHUNK_CHUNK, SCHUNK_CHUNK) != SCHUNK_CHUNK) return 0;
  return 1;
}

/* One operation. append builds the state's super-chunk (the caller removed the old one). */
__attribute__((noinline)) static int schunk_op(int op, sstate_t *s) {
  switch (op) {
  case SOP_APPEND: {
    s->sc = S.new_(s->st);
    for (int i = 0; i < SCHUNK_NCHUNKS && s->sc; i++)
      if (S.append(s->sc, s->src + (size_t)i * SCHUNK_CHUNK, SCHUNK_CHUNK) != i + 1) return 0;
    return s->sc != NULL;
  }
  case SOP_DECOMPRESS_ALL:
    return decompress_all(s->sc, s->out);
  case SOP_TO_BUFFER:
    s->len = S.to_buffer(s->sc, &s->cframe, &s->needs_free);
    return s->len > 0;
  default: {
    blosc2_schunk *o = s->path ? S.open(s->path) : S.from_buffer(s->cframe, s->len, false);
    int ok = decompress_all(o, s->out);
    if (o) S.free_(o);
    return ok;
  }
  }
}

/* What callgrind counts. */
__attribute__((noinline)) int run_schunk_op(int op, sstate_t *s) { return schunk_op(op, s); }

static int profile_schunk(void *h, const char *wname, const char *opname, int iters) {
  int storage = strcmp(wname, "schunk-mem") == 0     ? ST_MEMORY
                : strcmp(wname, "schunk-memnc") == 0 ? ST_MEMORY_NC
                : strcmp(wname, "schunk-file") == 0 ? ST_CFRAME : ST_SFRAME;
  int op = strcmp(opname, "append") == 0 ? SOP_APPEND
           : strcmp(opname, "decompress-all") == 0 ? SOP_DECOMPRESS_ALL
           : strcmp(opname, "to_buffer") == 0 ? SOP_TO_BUFFER
           : strcmp(opname, "open-decompress-all") == 0 ? SOP_OPEN_DECOMPRESS_ALL : -1;
  if (op < 0) { fprintf(stderr, "unknown op\n"); return 2; }
  S.new_ = (__typeof__(S.new_))dlsym(h, "blosc2_schunk_new");
  S.append = (__typeof__(S.append))dlsym(h, "blosc2_schunk_append_buffer");
  S.decompress_chunk = (__typeof__(S.decompress_chunk))dlsym(h, "blosc2_schunk_decompress_chunk");
  S.to_buffer = (__typeof__(S.to_buffer))dlsym(h, "blosc2_schunk_to_buffer");
  S.open = (__typeof__(S.open))dlsym(h, "blosc2_schunk_open");
  S.from_buffer = (__typeof__(S.from_buffer))dlsym(h, "blosc2_schunk_from_buffer");
  S.free_ = (__typeof__(S.free_))dlsym(h, "blosc2_schunk_free");
  S.remove = (__typeof__(S.remove))dlsym(h, "blosc2_remove_urlpath");
  size_t total = (size_t)SCHUNK_NCHUNKS * SCHUNK_CHUNK;
  uint8_t *src = malloc(total), *out = malloc(total);
  fill(src, total, NOISY);
  char path[256] = "";
  if (storage == ST_CFRAME || storage == ST_SFRAME)
    snprintf(path, sizeof path, "%s/rblosc2-profile-%d.%s", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
             (int)getpid(), storage == ST_CFRAME ? "b2frame" : "b2sframe");
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 8;
  cp.nthreads = 1;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = 1;
  blosc2_storage st = {.contiguous = storage != ST_SFRAME && storage != ST_MEMORY_NC, .urlpath = path[0] ? path : NULL,
                       .cparams = &cp, .dparams = &dp};
  sstate_t s = {.st = &st, .path = path[0] ? path : NULL, .src = src, .out = out};
  int ok = 1;
  if (path[0]) S.remove(path);
  if (op != SOP_APPEND) {
    /* The super-chunk the other ops read, made outside the count. */
    ok = schunk_op(SOP_APPEND, &s);
    if (op == SOP_OPEN_DECOMPRESS_ALL) {
      ok &= schunk_op(SOP_TO_BUFFER, &s);
      if (s.needs_free || !path[0]) {
        /* keep a copy: an in-memory frame is opened from its buffer */
        uint8_t *c = malloc((size_t)s.len);
        memcpy(c, s.cframe, (size_t)s.len);
        if (s.needs_free) free(s.cframe);
        s.cframe = c;
        s.needs_free = true;
      }
      if (path[0]) { S.free_(s.sc); s.sc = NULL; }
    }
  }
  /* ITERS + 1 counted calls, the first a warm-up, as for the chunk ops. */
  for (int i = 0; i < iters + 1 && ok; i++) {
    if (op == SOP_APPEND) {
      if (s.sc) S.free_(s.sc);
      s.sc = NULL;
      if (path[0]) S.remove(path);
    }
    if (op == SOP_TO_BUFFER && s.needs_free) free(s.cframe);
    if (op == SOP_DECOMPRESS_ALL || op == SOP_OPEN_DECOMPRESS_ALL) memset(out, 0, total);
    ok &= run_schunk_op(op, &s);
    if (op == SOP_DECOMPRESS_ALL || op == SOP_OPEN_DECOMPRESS_ALL) ok &= memcmp(out, src, total) == 0;
  }
  if (op == SOP_TO_BUFFER && ok) {
    blosc2_schunk *back = S.from_buffer(s.cframe, s.len, true);
    memset(out, 0, total);
    ok = decompress_all(back, out) && memcmp(out, src, total) == 0;
    if (back) S.free_(back);
  }
  if (s.sc) S.free_(s.sc);
  if (path[0]) S.remove(path);
  printf("%s %s: %s\n", wname, opname, ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: profile LIB.so WORKLOAD OP ITERS\n");
    return 2;
  }
  if (strncmp(argv[2], "schunk-", 7) == 0) {
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) { fprintf(stderr, "dlopen: %s\n", dlerror()); return 3; }
    ((void (*)(void))dlsym(h, "blosc2_init"))();
    return profile_schunk(h, argv[2], argv[3], atoi(argv[4]));
  }
  const workload_t *w = NULL;
  for (size_t i = 0; i < sizeof(workloads) / sizeof(workloads[0]); i++)
    if (strcmp(workloads[i].name, argv[2]) == 0) w = &workloads[i];
  int op = strcmp(argv[3], "compress") == 0 ? OP_COMPRESS
           : strcmp(argv[3], "decompress") == 0 ? OP_DECOMPRESS
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
  comp = (__typeof__(comp))dlsym(h, "blosc2_compress_ctx");
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
  const char *nthreads = getenv("PROFILE_NTHREADS");
  if (nthreads && atoi(nthreads) > 0) cp.nthreads = dp.nthreads = (int16_t)atoi(nthreads);
  blosc2_context *cctx = ccx(cp), *dctx = dcx(dp);
  int csize = comp(cctx, src, n, chunk, n + BLOSC2_MAX_OVERHEAD);
  if (csize <= 0) { fprintf(stderr, "compress failed: %d\n", csize); return 1; }
  memset(out, 0, (size_t)n);
  int r, nitems = n / 8, ok;
  if (op == OP_COMPRESS) {
    uint8_t *again = malloc((size_t)n + BLOSC2_MAX_OVERHEAD);
    /* One warm-up call outside the count: first-use allocations and page faults. */
    run_ops(cctx, op, 1, again, n + BLOSC2_MAX_OVERHEAD, src, n);
    r = run_ops(cctx, op, atoi(argv[4]), again, n + BLOSC2_MAX_OVERHEAD, src, n);
    /* c-blosc2 places blocks in the order its threads finish them: with several threads only
     * the size and the decompressed bytes are comparable. */
    if (cp.nthreads > 1) ok = r == csize && dec(dctx, again, r, out, n) == n && memcmp(out, src, (size_t)n) == 0;
    else ok = r == csize && memcmp(again, chunk, (size_t)csize) == 0;
    free(again);
  } else {
  /* One warm-up call outside the count: first-use allocations and page faults. */
  run_ops(dctx, op, 1, chunk, csize, out, n);
  r = run_ops(dctx, op, atoi(argv[4]), chunk, csize, out, n);
  if (op == OP_DECOMPRESS) ok = r == n && memcmp(out, src, (size_t)n) == 0;
  else if (op == OP_GETITEM1) ok = r == 8 && memcmp(out, src + (size_t)(nitems / 2 + 3) * 8, 8) == 0;
  else ok = r == nitems / 100 * 8 && memcmp(out, src + (size_t)(nitems / 2 - nitems / 200 + 1) * 8, (size_t)r) == 0;
  }
  int32_t blocksize;
  memcpy(&blocksize, chunk + 8, 4);
  printf("%s %s nthreads %d: csize %d, blocksize %d, result %d, %s\n", w->name, argv[3], cp.nthreads,
         csize, blocksize, r, ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
