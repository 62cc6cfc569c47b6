/* Thread safety of contexts and of the global API: NWORKERS threads each compress and decompress
 * ROUNDS buffers with contexts of their own (each context itself running 2 threads, so pools of
 * several contexts run at once), while NGLOBAL threads do the same through the global
 * blosc2_compress / blosc2_decompress / blosc2_getitem, which share one global context.
 * Every round trip and getitem is checked against the source data. Prints "N passed, M failed".
 * Run by capi-tests/run.sh with 60 rounds; THREAD_STRESS_ROUNDS=N runs a long stress test
 * (docs/RELIABILITY.md says why this is a stress test and not a helgrind run). */
#include <blosc2.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NWORKERS 4
#define NGLOBAL 3
#define DEFAULT_ROUNDS 60
static int ROUNDS = DEFAULT_ROUNDS; /* THREAD_STRESS_ROUNDS overrides it for long stress runs */
#define ITEMS 40000

struct worker {
  int id;
  int ok;
  int bad;
};

static void fill(int32_t *buf, int n, int seed) {
  uint32_t s = 2654435761u * (uint32_t)(seed + 1);
  for (int i = 0; i < n; i++) {
    s = s * 1103515245u + 12345u;
    /* Smooth with some noise, so that every codec finds something to compress. */
    buf[i] = seed * 7 + i / 3 + (int32_t)((s >> 16) & 7);
  }
}

static void check(struct worker *w, int cond, const char *what, int round) {
  if (cond) {
    w->ok++;
  } else {
    w->bad++;
    fprintf(stderr, "thread %d round %d: %s\n", w->id, round, what);
  }
}

static const uint8_t codecs[] = {BLOSC_BLOSCLZ, BLOSC_LZ4, BLOSC_LZ4HC, BLOSC_ZLIB, BLOSC_ZSTD};
static const uint8_t shuffles[] = {BLOSC_NOSHUFFLE, BLOSC_SHUFFLE, BLOSC_BITSHUFFLE};

static void *own_contexts(void *arg) {
  struct worker *w = arg;
  int32_t *src = malloc(ITEMS * 4), *dst = malloc(ITEMS * 4);
  size_t cap = ITEMS * 4 + BLOSC2_MAX_OVERHEAD;
  uint8_t *chunk = malloc(cap);
  for (int r = 0; r < ROUNDS; r++) {
    int n = ITEMS - (r * 997 + w->id * 31) % (ITEMS / 2);
    fill(src, n, w->id * 1000 + r);
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 4;
    cp.compcode = codecs[(r + w->id) % 5];
    cp.clevel = 1 + (r % 9);
    cp.filters[BLOSC2_MAX_FILTERS - 1] = shuffles[r % 3];
    if (r % 4 == 1) cp.filters[BLOSC2_MAX_FILTERS - 2] = BLOSC_DELTA;
    cp.nthreads = 2;
    blosc2_context *cctx = blosc2_create_cctx(cp);
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    dp.nthreads = 2;
    blosc2_context *dctx = blosc2_create_dctx(dp);
    int csize = blosc2_compress_ctx(cctx, src, n * 4, chunk, (int32_t)cap);
    check(w, csize > 0, "compress_ctx", r);
    if (csize > 0) {
      int dsize = blosc2_decompress_ctx(dctx, chunk, csize, dst, ITEMS * 4);
      check(w, dsize == n * 4 && memcmp(src, dst, (size_t)n * 4) == 0, "decompress_ctx", r);
      /* No getitem in DELTA rounds: c-blosc2 3.3.5's getitem returns wrong data on DELTA
       * chunks (its known defect), and this program also runs against it. */
      if (r % 4 != 1) {
        int start = (r * 131) % (n - 100);
        int got = blosc2_getitem_ctx(dctx, chunk, csize, start, 100, dst, 400);
        check(w, got == 400 && memcmp(src + start, dst, 400) == 0, "getitem_ctx", r);
      }
    }
    blosc2_free_ctx(cctx);
    blosc2_free_ctx(dctx);
  }
  free(src);
  free(dst);
  free(chunk);
  return NULL;
}

static void *global_api(void *arg) {
  struct worker *w = arg;
  int32_t *src = malloc(ITEMS * 4), *dst = malloc(ITEMS * 4);
  size_t cap = ITEMS * 4 + BLOSC2_MAX_OVERHEAD;
  uint8_t *chunk = malloc(cap);
  for (int r = 0; r < ROUNDS; r++) {
    int n = ITEMS - (r * 577 + w->id * 13) % (ITEMS / 2);
    fill(src, n, 50000 + w->id * 1000 + r);
    int csize = blosc2_compress(5, BLOSC_SHUFFLE, 4, src, n * 4, chunk, (int32_t)cap);
    check(w, csize > 0, "blosc2_compress", r);
    if (csize > 0) {
      int dsize = blosc2_decompress(chunk, csize, dst, ITEMS * 4);
      check(w, dsize == n * 4 && memcmp(src, dst, (size_t)n * 4) == 0, "blosc2_decompress", r);
      int start = (r * 71) % (n - 10);
      int got = blosc2_getitem(chunk, csize, start, 10, dst, 40);
      check(w, got == 40 && memcmp(src + start, dst, 40) == 0, "blosc2_getitem", r);
    }
  }
  free(src);
  free(dst);
  free(chunk);
  return NULL;
}

int main(void) {
  const char *rounds = getenv("THREAD_STRESS_ROUNDS");
  if (rounds != NULL && atoi(rounds) > 0) ROUNDS = atoi(rounds);
  blosc2_init();
  blosc2_set_nthreads(2);
  pthread_t threads[NWORKERS + NGLOBAL];
  struct worker workers[NWORKERS + NGLOBAL];
  for (int i = 0; i < NWORKERS + NGLOBAL; i++) {
    workers[i] = (struct worker){i, 0, 0};
    pthread_create(&threads[i], NULL, i < NWORKERS ? own_contexts : global_api, &workers[i]);
  }
  int ok = 0, bad = 0;
  for (int i = 0; i < NWORKERS + NGLOBAL; i++) {
    pthread_join(threads[i], NULL);
    ok += workers[i].ok;
    bad += workers[i].bad;
  }
  blosc2_destroy();
  printf("%d passed, %d failed\n", ok, bad);
  /* Every round of every thread makes 3 checks, but for the DELTA rounds' missing getitem. */
  int delta_rounds = (ROUNDS + 2) / 4;
  if (ok != (NWORKERS + NGLOBAL) * ROUNDS * 3 - NWORKERS * delta_rounds) bad++;
  return bad == 0 ? 0 : 1;
}
