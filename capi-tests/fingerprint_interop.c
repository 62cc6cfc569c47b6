/* Fingerprinted frames (docs/FINGERPRINTS.md) between ours and c-blosc2 3.3.5, three processes:
 *   fingerprint_interop make DIR     (ours)  fingerprinted frames: one per scenario, each a cframe
 *                                    file and an sframe directory, plus a b2nd array file; with
 *                                    a metalayer and vlmetalayers; each verified intact
 *   fingerprint_interop modify DIR   (c-blosc2) opens each, checks every chunk's data, then
 *                                    changes it the scenario's way (or only reads it); writes
 *                                    the FNV of every chunk's data after the change
 *   fingerprint_interop check DIR    (ours)  opens each: verify must say intact or "no
 *                                    fingerprint", never damaged; every chunk must hold what
 *                                    c-blosc2 read; then a change with fingerprints on must
 *                                    leave it intact again
 * Built against the reference headers; ours's extension functions (include/blosc2/rblosc2.h)
 * are looked up with dlsym, so the binary also runs on c-blosc2.
 * Prints "N passed, M failed"; exits non-zero on failure. */
#define _GNU_SOURCE
#include <b2nd.h>
#include <blosc2.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fnv.h"
#include "check.h"

#define ITEMS 5000
#define NCHUNKS 6

/* As include/blosc2/rblosc2.h declares them. */
typedef int (*set_fp_fn)(blosc2_schunk *, int);
typedef int (*verify_fn)(blosc2_schunk *, int64_t *);
static set_fp_fn set_fp;
static verify_fn verify;
enum { FP_ON = 1, VERIFY_INTACT = 0, VERIFY_NONE = 1, VERIFY_DAMAGED = 2 };

static const char *SCENARIOS[] = {"read",   "append", "update_same", "update_bigger",
                                  "update_smaller", "insert", "delete", "reorder",
                                  "meta",   "vlmeta_add", "vlmeta_update", "vlmeta_delete",
                                  "special", "fill_back"};
#define NSCENARIOS (int)(sizeof(SCENARIOS) / sizeof(SCENARIOS[0]))

static void fill(int32_t *buf, int seed, int kind) {
  for (int i = 0; i < ITEMS; i++)
    buf[i] = kind == 0 ? seed * 7919 + i / 3 + (i % 11) : (int32_t)((uint32_t)(seed * 2654435761u) ^ (uint32_t)(i * 40503u));
}

static const uint8_t META1[] = {0x93, 1, 2, 3};
static const uint8_t META2[] = {0x93, 7, 8, 9};

static void path_of(char *out, size_t n, const char *dir, const char *scenario, int sparse) {
  snprintf(out, n, "%s/%s.%s", dir, scenario, sparse ? "b2sframe" : "b2frame");
}

static blosc2_schunk *new_frame(const char *path, int sparse) {
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = 4;
  cparams.compcode = BLOSC_LZ4;
  cparams.clevel = 5;
  cparams.nthreads = 1;
  blosc2_dparams dparams = BLOSC2_DPARAMS_DEFAULTS;
  dparams.nthreads = 1;
  blosc2_storage storage = {.contiguous = !sparse, .urlpath = (char *)path,
                            .cparams = &cparams, .dparams = &dparams};
  return blosc2_schunk_new(&storage);
}

static int make(const char *dir) {
  CHECK(set_fp != NULL && verify != NULL, "run `make` with rblosc2");
  if (set_fp == NULL) return 1;
  int32_t buf[ITEMS];
  for (int s = 0; s < NSCENARIOS; s++) {
    for (int sparse = 0; sparse < 2; sparse++) {
      char path[1024];
      path_of(path, sizeof(path), dir, SCENARIOS[s], sparse);
      blosc2_schunk *sc = new_frame(path, sparse);
      CHECK(sc != NULL, "%s", path);
      if (sc == NULL) continue;
      CHECK(set_fp(sc, FP_ON) == 0, "%s", path);
      CHECK(blosc2_meta_add(sc, "meta1", (uint8_t *)META1, sizeof(META1)) >= 0, "%s", path);
      for (int c = 0; c < NCHUNKS; c++) {
        fill(buf, c, c % 2);
        CHECK(blosc2_schunk_append_buffer(sc, buf, sizeof(buf)) == c + 1, "%s", path);
      }
      CHECK(blosc2_vlmeta_add(sc, "vl1", (uint8_t *)"user data", 9, NULL) >= 0, "%s", path);
      int64_t bad = 0;
      CHECK(verify(sc, &bad) == VERIFY_INTACT && bad == -1, "%s", path);
      blosc2_schunk_free(sc);
    }
  }
  /* A b2nd array with fingerprints (its b2nd metalayer, a vlmetalayer). */
  char path[1024];
  snprintf(path, sizeof(path), "%s/array.b2nd", dir);
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = 8;
  cparams.nthreads = 1;
  blosc2_storage storage = {.contiguous = true, .urlpath = path, .cparams = &cparams};
  int64_t shape[2] = {100, 60};
  int32_t chunkshape[2] = {40, 25};
  int32_t blockshape[2] = {10, 10};
  b2nd_context_t *ctx = b2nd_create_ctx(&storage, 2, shape, chunkshape, blockshape, "<f8", 0, NULL, 0);
  double *values = malloc(100 * 60 * sizeof(double));
  for (int i = 0; i < 100 * 60; i++) values[i] = i * 0.5;
  b2nd_array_t *arr = NULL;
  CHECK(b2nd_empty(ctx, &arr) == 0, "b2nd_empty");
  CHECK(set_fp(arr->sc, FP_ON) == 0, "array");
  int64_t start[2] = {0, 0};
  CHECK(b2nd_set_slice_cbuffer(values, shape, 100 * 60 * sizeof(double), start, shape, arr) == 0,
        "array fill");
  CHECK(blosc2_vlmeta_add(arr->sc, "attrs", (uint8_t *)"\x81\xa1x\x01", 4, NULL) >= 0, "array");
  CHECK(verify(arr->sc, NULL) == VERIFY_INTACT, "array");
  b2nd_free(arr);
  b2nd_free_ctx(ctx);
  free(values);
  return 0;
}

/* c-blosc2 changes each frame its scenario's way. */
static int change(blosc2_schunk *sc, const char *scenario) {
  int32_t buf[ITEMS];
  uint8_t *chunk = malloc(sizeof(buf) + BLOSC2_MAX_OVERHEAD);
  int rc = 0;
  if (strcmp(scenario, "append") == 0) {
    fill(buf, 50, 1);
    rc = blosc2_schunk_append_buffer(sc, buf, sizeof(buf)) < 0;
  } else if (strncmp(scenario, "update", 6) == 0) {
    /* same: chunk 2's own data again (same size); bigger/smaller: random or flat data. */
    int kind = strcmp(scenario, "update_bigger") == 0 ? 1 : 0;
    if (strcmp(scenario, "update_smaller") == 0) {
      memset(buf, 0, sizeof(buf));
      buf[7] = 3;
    } else if (strcmp(scenario, "update_same") == 0) {
      fill(buf, 2, 0);
      buf[100] ^= 1;
    } else {
      fill(buf, 77, kind);
    }
    int cb = blosc2_compress_ctx(sc->cctx, buf, sizeof(buf), chunk, sizeof(buf) + BLOSC2_MAX_OVERHEAD);
    rc = cb < 0 || blosc2_schunk_update_chunk(sc, 2, chunk, true) < 0;
  } else if (strcmp(scenario, "insert") == 0) {
    fill(buf, 60, 1);
    int cb = blosc2_compress_ctx(sc->cctx, buf, sizeof(buf), chunk, sizeof(buf) + BLOSC2_MAX_OVERHEAD);
    rc = cb < 0 || blosc2_schunk_insert_chunk(sc, 1, chunk, true) < 0;
  } else if (strcmp(scenario, "delete") == 0) {
    rc = blosc2_schunk_delete_chunk(sc, 3) < 0;
  } else if (strcmp(scenario, "reorder") == 0) {
    int64_t order[NCHUNKS];
    for (int i = 0; i < NCHUNKS; i++) order[i] = NCHUNKS - 1 - i;
    rc = blosc2_schunk_reorder_offsets(sc, order) < 0;
  } else if (strcmp(scenario, "meta") == 0) {
    rc = blosc2_meta_update(sc, "meta1", (uint8_t *)META2, sizeof(META2)) < 0;
  } else if (strcmp(scenario, "vlmeta_add") == 0) {
    rc = blosc2_vlmeta_add(sc, "vl2", (uint8_t *)"more", 4, NULL) < 0;
  } else if (strcmp(scenario, "vlmeta_update") == 0) {
    rc = blosc2_vlmeta_update(sc, "vl1", (uint8_t *)"other user data, longer", 23, NULL) < 0;
  } else if (strcmp(scenario, "vlmeta_delete") == 0) {
    rc = blosc2_vlmeta_delete(sc, "vl1") < 0;
  } else if (strcmp(scenario, "special") == 0) {
    int cb = blosc2_chunk_zeros(*sc->storage->cparams, sizeof(buf), chunk, BLOSC_EXTENDED_HEADER_LENGTH);
    rc = cb < 0 || blosc2_schunk_update_chunk(sc, 4, chunk, true) < 0;
  } else if (strcmp(scenario, "fill_back") == 0) {
    /* A chunk made special, then a regular one in its place. */
    int cb = blosc2_chunk_zeros(*sc->storage->cparams, sizeof(buf), chunk, BLOSC_EXTENDED_HEADER_LENGTH);
    rc = cb < 0 || blosc2_schunk_update_chunk(sc, 1, chunk, true) < 0;
    fill(buf, 88, 0);
    cb = blosc2_compress_ctx(sc->cctx, buf, sizeof(buf), chunk, sizeof(buf) + BLOSC2_MAX_OVERHEAD);
    rc = rc || cb < 0 || blosc2_schunk_update_chunk(sc, 1, chunk, true) < 0;
  }
  free(chunk);
  return rc;
}

/* The FNV of every chunk's data, one line per chunk, into `manifest`. */
static int digest(blosc2_schunk *sc, FILE *manifest) {
  int32_t buf[ITEMS];
  for (int64_t c = 0; c < sc->nchunks; c++) {
    int n = blosc2_schunk_decompress_chunk(sc, c, buf, sizeof(buf));
    if (n < 0) return -1;
    fprintf(manifest, "%016llx\n", (unsigned long long)fnv(buf, (size_t)n));
  }
  return 0;
}

static int modify(const char *dir) {
  char mpath[1024];
  snprintf(mpath, sizeof(mpath), "%s/manifest.txt", dir);
  FILE *manifest = fopen(mpath, "w");
  int32_t buf[ITEMS], want[ITEMS];
  for (int s = 0; s < NSCENARIOS; s++) {
    for (int sparse = 0; sparse < 2; sparse++) {
      char path[1024];
      path_of(path, sizeof(path), dir, SCENARIOS[s], sparse);
      blosc2_schunk *sc = blosc2_schunk_open(path);
      CHECK(sc != NULL, "c-blosc2 opens %s", path);
      if (sc == NULL) continue;
      /* c-blosc2 reads the fingerprinted frame: data, metalayer, vlmetalayer. */
      CHECK(sc->nchunks == NCHUNKS, "%s: %lld chunks", path, (long long)sc->nchunks);
      for (int c = 0; c < sc->nchunks; c++) {
        fill(want, c, c % 2);
        int n = blosc2_schunk_decompress_chunk(sc, c, buf, sizeof(buf));
        CHECK(n == (int)sizeof(buf) && memcmp(buf, want, sizeof(buf)) == 0, "%s chunk %d", path, c);
      }
      uint8_t *content;
      int32_t len;
      CHECK(blosc2_meta_get(sc, "meta1", &content, &len) >= 0 && len == sizeof(META1) &&
                memcmp(content, META1, sizeof(META1)) == 0,
            "%s meta1", path);
      free(content);
      CHECK(blosc2_vlmeta_get(sc, "vl1", &content, &len) >= 0 && len == 9 &&
                memcmp(content, "user data", 9) == 0,
            "%s vl1", path);
      free(content);
      CHECK(change(sc, SCENARIOS[s]) == 0, "c-blosc2 changes %s (%s)", path, SCENARIOS[s]);
      blosc2_schunk_free(sc);
      /* What c-blosc2 reads after its change, from a fresh open. */
      sc = blosc2_schunk_open(path);
      CHECK(sc != NULL, "c-blosc2 reopens %s", path);
      if (sc == NULL) continue;
      fprintf(manifest, "%s %lld\n", path, (long long)sc->nchunks);
      CHECK(digest(sc, manifest) == 0, "%s digest", path);
      blosc2_schunk_free(sc);
    }
  }
  /* The array: read whole, then a slice written. */
  char path[1024];
  snprintf(path, sizeof(path), "%s/array.b2nd", dir);
  b2nd_array_t *arr = NULL;
  CHECK(b2nd_open(path, &arr) == 0, "c-blosc2 opens %s", path);
  if (arr != NULL) {
    double *values = malloc(100 * 60 * sizeof(double));
    int64_t start[2] = {0, 0}, stop[2] = {100, 60};
    CHECK(b2nd_get_slice_cbuffer(arr, start, stop, values, stop, 100 * 60 * sizeof(double)) == 0, "array read");
    int same = 1;
    for (int i = 0; i < 100 * 60; i++) same &= values[i] == i * 0.5;
    CHECK(same, "array data");
    double patch[5 * 5];
    for (int i = 0; i < 25; i++) patch[i] = -1.0 - i;
    int64_t pstart[2] = {50, 30}, pstop[2] = {55, 35}, pshape[2] = {5, 5};
    CHECK(b2nd_set_slice_cbuffer(patch, pshape, sizeof(patch), pstart, pstop, arr) == 0, "array write");
    fprintf(manifest, "%s %lld\n", path, (long long)arr->sc->nchunks);
    CHECK(digest(arr->sc, manifest) == 0, "array digest");
    b2nd_free(arr);
    free(values);
  }
  fclose(manifest);
  return 0;
}

static int check(const char *dir) {
  CHECK(set_fp != NULL && verify != NULL, "run `check` with rblosc2");
  if (set_fp == NULL) return 1;
  char mpath[1024];
  snprintf(mpath, sizeof(mpath), "%s/manifest.txt", dir);
  FILE *manifest = fopen(mpath, "r");
  CHECK(manifest != NULL, "%s", mpath);
  if (manifest == NULL) return 1;
  char path[1024];
  long long nchunks;
  int intact = 0, none = 0;
  int32_t buf[ITEMS];
  while (fscanf(manifest, "%1023s %lld", path, &nchunks) == 2) {
    blosc2_schunk *sc = blosc2_schunk_open(path);
    CHECK(sc != NULL, "ours opens %s", path);
    if (sc == NULL) break;
    int64_t bad = 0;
    int v = verify(sc, &bad);
    CHECK(v == VERIFY_INTACT || v == VERIFY_NONE, "%s: verify %d (chunk %lld)", path, v, (long long)bad);
    intact += v == VERIFY_INTACT;
    none += v == VERIFY_NONE;
    printf("%s: %s\n", path, v == VERIFY_INTACT ? "intact" : v == VERIFY_NONE ? "no fingerprint" : "DAMAGED");
    CHECK(sc->nchunks == nchunks, "%s: %lld chunks", path, (long long)sc->nchunks);
    for (int64_t c = 0; c < sc->nchunks; c++) {
      unsigned long long want = 0;
      CHECK(fscanf(manifest, "%llx", &want) == 1, "manifest");
      int n = blosc2_schunk_decompress_chunk(sc, c, buf, sizeof(buf));
      CHECK(n >= 0 && fnv(buf, (size_t)n) == want, "%s chunk %lld", path, (long long)c);
    }
    /* Ours changes it with fingerprints on (the frame adopts one if it had none). */
    CHECK(set_fp(sc, FP_ON) == 0, "%s", path);
    fill(buf, 99, 1);
    CHECK(blosc2_schunk_append_buffer(sc, buf, sizeof(buf)) == nchunks + 1, "%s append", path);
    CHECK(verify(sc, &bad) == VERIFY_INTACT, "%s after ours changed it", path);
    blosc2_schunk_free(sc);
    sc = blosc2_schunk_open(path);
    CHECK(sc != NULL && verify(sc, &bad) == VERIFY_INTACT, "%s reopened", path);
    if (sc != NULL) blosc2_schunk_free(sc);
  }
  fclose(manifest);
  printf("verify after c-blosc2: %d intact, %d without fingerprint, 0 damaged\n", intact, none);
  CHECK(intact >= 2 && none >= 2 * (NSCENARIOS - 1), "every change drops the fingerprint, reads keep it");
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s make|modify|check DIR\n", argv[0]);
    return 2;
  }
  blosc2_init();
  set_fp = (set_fp_fn)dlsym(RTLD_DEFAULT, "rblosc2_schunk_set_fingerprint");
  verify = (verify_fn)dlsym(RTLD_DEFAULT, "rblosc2_schunk_verify");
  if (strcmp(argv[1], "make") == 0) {
    make(argv[2]);
  } else if (strcmp(argv[1], "modify") == 0) {
    modify(argv[2]);
  } else if (strcmp(argv[1], "check") == 0) {
    check(argv[2]);
  } else {
    return 2;
  }
  blosc2_destroy();
  printf("%d passed, %d failed\n", checks - failures, failures);
  return failures != 0;
}
