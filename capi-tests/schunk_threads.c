/* Thread safety of a file-backed frame: 8 threads read random chunks of one opened cframe file
 * (blosc2_schunk_get_chunk, then blosc2_decompress_ctx with a context of their own), 10000 reads
 * in all, and check every chunk's data. Prints "N passed, M failed". */
#include <blosc2.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NCHUNKS 48
#define ITEMS 10000
#define NTHREADS 8
#define READS_PER_THREAD 1250

static blosc2_schunk *sc;

static void fill(int32_t *buf, int seed) {
  for (int i = 0; i < ITEMS; i++) buf[i] = seed * 1000003 + i * (seed % 11 + 1) + (i % 23);
}

struct worker {
  int id;
  int ok;
  int bad;
};

static void *work(void *arg) {
  struct worker *w = arg;
  blosc2_dparams dparams = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_context *dctx = blosc2_create_dctx(dparams);
  uint64_t state = 0x9E3779B97F4A7C15ull * (uint64_t)(w->id + 1);
  int32_t *want = malloc(ITEMS * 4), *got = malloc(ITEMS * 4);
  for (int r = 0; r < READS_PER_THREAD; r++) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    int n = (int)(state % NCHUNKS);
    uint8_t *chunk;
    bool needs_free;
    int cb = blosc2_schunk_get_chunk(sc, n, &chunk, &needs_free);
    int rc = cb > 0 ? blosc2_decompress_ctx(dctx, chunk, cb, got, ITEMS * 4) : cb;
    if (cb > 0 && needs_free) free(chunk);
    fill(want, n + 1);
    if (rc == ITEMS * 4 && memcmp(want, got, ITEMS * 4) == 0) {
      w->ok++;
    } else {
      w->bad++;
    }
  }
  free(want);
  free(got);
  blosc2_free_ctx(dctx);
  return NULL;
}

int main(void) {
  blosc2_init();
  const char *urlpath = "schunk_threads.b2frame";
  blosc2_remove_urlpath(urlpath);
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = 4;
  cparams.compcode = BLOSC_LZ4;
  blosc2_storage storage = {.contiguous = true, .urlpath = (char *)urlpath, .cparams = &cparams};
  blosc2_schunk *w = blosc2_schunk_new(&storage);
  int32_t *buf = malloc(ITEMS * 4);
  for (int i = 0; i < NCHUNKS; i++) {
    fill(buf, i + 1);
    blosc2_schunk_append_buffer(w, buf, ITEMS * 4);
  }
  free(buf);
  blosc2_schunk_free(w);

  sc = blosc2_schunk_open(urlpath);
  if (sc == NULL) {
    printf("0 passed, 1 failed\n");
    return 1;
  }
  printf("opened: nchunks=%lld\n", (long long)sc->nchunks);
  /* one read first: c-blosc2 caches the frame's offsets index on the first access */
  uint8_t *chunk;
  bool needs_free;
  if (blosc2_schunk_get_chunk(sc, 0, &chunk, &needs_free) > 0 && needs_free) free(chunk);

  pthread_t threads[NTHREADS];
  struct worker workers[NTHREADS];
  for (int t = 0; t < NTHREADS; t++) {
    workers[t] = (struct worker){.id = t};
    pthread_create(&threads[t], NULL, work, &workers[t]);
  }
  int ok = 0, bad = 0;
  for (int t = 0; t < NTHREADS; t++) {
    pthread_join(threads[t], NULL);
    ok += workers[t].ok;
    bad += workers[t].bad;
  }
  printf("reads: %d correct, %d wrong\n", ok, bad);
  blosc2_schunk_free(sc);
  blosc2_remove_urlpath(urlpath);
  blosc2_destroy();
  printf("%d passed, %d failed\n", ok, bad);
  return bad != 0;
}
