/* b2nd interop between two libblosc2 builds (ours and c-blosc2 3.3.5), run as two processes:
 *   b2nd_interop write DIR     save the arrays below into DIR (b2nd_save, arrays created on
 *                              disk, b2nd_save_append at an offset of an existing file)
 *   b2nd_interop read DIR      open each, check its metadata and every item against the model
 *   b2nd_interop examples DIR  open DIR/example_*.b2nd and print their metadata and data
 *                              checksums (run.sh diffs this output between the libraries)
 * The same binary runs against either library (LD_LIBRARY_PATH), so each library reads what the
 * other wrote. Arrays: 1-D to 8-D and 12-D, typesizes 1 to 16 and a structured dtype,
 * contiguous and sparse, shapes not multiples of chunk shapes, with an extra metalayer and a
 * vlmetalayer. Prints "N passed, M failed"; exits non-zero on failure. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <b2nd.h>
#include <blosc2.h>
#include "fnv.h"
#include "check.h"

#define NARRAYS 11

typedef struct {
  int8_t ndim;
  int64_t shape[B2ND_MAX_DIM];
  int32_t chunkshape[B2ND_MAX_DIM];
  int32_t blockshape[B2ND_MAX_DIM];
  int typesize;
  const char *dtype;
  int contiguous;
  int how; /* 0: created on disk, 1: b2nd_save, 2: b2nd_save_append */
} spec_t;

static spec_t spec(int k) {
  static const int typesizes[] = {1, 2, 4, 8, 16};
  static const char *dtypes[] = {"|u1", "<i2", "<f4", "<f8", "<c16"};
  spec_t s = {0};
  s.ndim = (int8_t)(k < 8 ? k + 1 : (k == 8 ? 12 : 2 + k % 3));
  s.typesize = typesizes[k % 5];
  s.dtype = dtypes[k % 5];
  if (k == 9) {
    s.typesize = 16;
    s.dtype = "[('a', '<i4'), ('b', '<f8'), ('c', 'S4')]";
  }
  for (int i = 0; i < s.ndim; i++) {
    if (s.ndim <= 3) {
      s.shape[i] = 13 + 2 * i + k;
      s.chunkshape[i] = 6 - i;
      s.blockshape[i] = 4 - i;
    } else {
      s.shape[i] = s.ndim == 12 ? 2 + (i < 2) : 3 + (i % 3);
      s.chunkshape[i] = 2;
      s.blockshape[i] = 1 + (i % 2);
    }
  }
  s.contiguous = k % 2 == 0;
  s.how = k % 3;
  if (s.how == 2) s.contiguous = 1; /* only frames can be appended */
  return s;
}

static int64_t nitems_of(const spec_t *s) {
  int64_t n = 1;
  for (int i = 0; i < s->ndim; i++) n *= s->shape[i];
  return n;
}

static uint8_t *model(const spec_t *s, int k) {
  int64_t n = nitems_of(s) * s->typesize;
  uint8_t *d = malloc(n + 1);
  for (int64_t i = 0; i < n; i++) d[i] = (uint8_t)(i * 13 + k * 5 + i / 97);
  return d;
}

static const uint8_t META[] = {0x93, 1, 2, 3};
static const char *VLMETA = "b2nd interop vlmetalayer";

static void path_of(char *out, size_t n, const char *dir, int k, const spec_t *s) {
  snprintf(out, n, "%s/array%d.%s", dir, k, s->how == 2 ? "bin" : "b2nd");
}

static int write_all(const char *dir) {
  for (int k = 0; k < NARRAYS; k++) {
    spec_t s = spec(k);
    char path[512];
    path_of(path, sizeof(path), dir, k, &s);
    blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
    cparams.typesize = s.typesize;
    cparams.nthreads = 1;
    blosc2_storage storage = {.cparams = &cparams, .contiguous = s.contiguous,
                              .urlpath = s.how == 0 ? path : NULL};
    blosc2_metalayer meta = {.name = "extra", .content = (uint8_t *)META,
                             .content_len = sizeof(META)};
    b2nd_context_t *ctx = b2nd_create_ctx(&storage, s.ndim, s.shape, s.chunkshape,
                                          s.blockshape, s.dtype, 0, &meta, 1);
    uint8_t *data = model(&s, k);
    b2nd_array_t *a = NULL;
    int rc = b2nd_from_cbuffer(ctx, &a, data, nitems_of(&s) * s.typesize);
    CHECK(rc == 0, "array %d: from_cbuffer %d", k, rc);
    if (rc == 0) {
      rc = blosc2_vlmeta_add(a->sc, "vl", (uint8_t *)VLMETA, (int32_t)strlen(VLMETA), NULL);
      CHECK(rc >= 0, "array %d: vlmeta_add %d", k, rc);
      if (s.how == 1) {
        rc = b2nd_save(a, path);
        CHECK(rc == 0, "array %d: save %d", k, rc);
      } else if (s.how == 2) {
        FILE *f = fopen(path, "wb");
        fwrite("prefix-bytes", 1, 12, f);
        fclose(f);
        int64_t off = b2nd_save_append(a, path);
        CHECK(off == 12, "array %d: save_append %lld", k, (long long)off);
      }
      b2nd_free(a);
    }
    b2nd_free_ctx(ctx);
    free(data);
  }
  printf("%d passed, %d failed\n", checks - failures, failures);
  return failures != 0;
}

static int read_all(const char *dir) {
  for (int k = 0; k < NARRAYS; k++) {
    spec_t s = spec(k);
    char path[512];
    path_of(path, sizeof(path), dir, k, &s);
    b2nd_array_t *a = NULL;
    int rc = s.how == 2 ? b2nd_open_offset(path, &a, 12) : b2nd_open(path, &a);
    CHECK(rc == 0 && a != NULL, "array %d: open %d", k, rc);
    if (rc != 0 || a == NULL) continue;
    CHECK(a->ndim == s.ndim, "array %d: ndim %d", k, a->ndim);
    for (int i = 0; i < s.ndim; i++) {
      CHECK(a->shape[i] == s.shape[i] && a->chunkshape[i] == s.chunkshape[i] &&
                a->blockshape[i] == s.blockshape[i],
            "array %d: dim %d", k, i);
    }
    CHECK(a->dtype != NULL && strcmp(a->dtype, s.dtype) == 0, "array %d: dtype %s", k,
          a->dtype ? a->dtype : "(null)");
    CHECK(a->sc->typesize == s.typesize, "array %d: typesize %d", k, a->sc->typesize);
    uint8_t *content;
    int32_t len;
    rc = blosc2_meta_get(a->sc, "extra", &content, &len);
    CHECK(rc >= 0 && len == (int32_t)sizeof(META) && memcmp(content, META, len) == 0,
          "array %d: metalayer %d", k, rc);
    if (rc >= 0) free(content);
    rc = blosc2_vlmeta_get(a->sc, "vl", &content, &len);
    CHECK(rc >= 0 && len == (int32_t)strlen(VLMETA) && memcmp(content, VLMETA, len) == 0,
          "array %d: vlmetalayer %d", k, rc);
    if (rc >= 0) free(content);
    int64_t nbytes = nitems_of(&s) * s.typesize;
    uint8_t *buf = malloc(nbytes + 1), *want = model(&s, k);
    rc = b2nd_to_cbuffer(a, buf, nbytes);
    CHECK(rc == 0 && memcmp(buf, want, nbytes) == 0, "array %d: data (rc %d)", k, rc);
    free(buf);
    free(want);
    b2nd_free(a);
  }
  printf("%d passed, %d failed\n", checks - failures, failures);
  return failures != 0;
}

static int examples(const char *dir) {
  const char *names[] = {"example_day_month_temp.b2nd", "example_item_prices.b2nd"};
  for (int k = 0; k < 2; k++) {
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, names[k]);
    b2nd_array_t *a = NULL;
    int rc = b2nd_open(path, &a);
    printf("%s: open -> %d\n", names[k], rc);
    CHECK(rc == 0, "open %s", names[k]);
    if (rc != 0) continue;
    printf(" ndim=%d dtype=%s format=%d typesize=%d nchunks=%lld\n", a->ndim,
           a->dtype ? a->dtype : "(null)", a->dtype_format, a->sc->typesize,
           (long long)a->sc->nchunks);
    for (int i = 0; i < a->ndim; i++)
      printf(" dim %d: shape %lld chunk %d block %d\n", i, (long long)a->shape[i],
             a->chunkshape[i], a->blockshape[i]);
    int64_t nbytes = a->nitems * a->sc->typesize;
    uint8_t *buf = malloc(nbytes + 1);
    rc = b2nd_to_cbuffer(a, buf, nbytes);
    printf(" to_cbuffer -> %d checksum %016llx\n", rc, (unsigned long long)fnv(buf, nbytes));
    CHECK(rc == 0, "read %s", names[k]);
    /* A slice of the middle too. */
    int64_t start[B2ND_MAX_DIM], stop[B2ND_MAX_DIM], shape[B2ND_MAX_DIM], n = 1;
    for (int i = 0; i < a->ndim; i++) {
      start[i] = a->shape[i] / 3;
      stop[i] = a->shape[i] - a->shape[i] / 4;
      shape[i] = stop[i] - start[i];
      n *= shape[i];
    }
    rc = b2nd_get_slice_cbuffer(a, start, stop, buf, shape, n * a->sc->typesize);
    printf(" slice -> %d checksum %016llx\n", rc,
           (unsigned long long)fnv(buf, n * a->sc->typesize));
    free(buf);
    b2nd_print_meta(a);
    fflush(stdout);
    b2nd_free(a);
  }
  printf("%d passed, %d failed\n", checks - failures, failures);
  return failures != 0;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s write|read|examples DIR\n", argv[0]);
    return 2;
  }
  blosc2_init();
  int rc = 2;
  if (strcmp(argv[1], "write") == 0) rc = write_all(argv[2]);
  else if (strcmp(argv[1], "read") == 0) rc = read_all(argv[2]);
  else if (strcmp(argv[1], "examples") == 0) rc = examples(argv[2]);
  blosc2_destroy();
  return rc;
}
