/* b2nd arrays through the C API, side by side with c-blosc2 3.3.5.
 *
 * For arrays of 1 to 8 dimensions and one of 12, with shapes that are not multiples of their
 * chunk shapes (nor chunk shapes of block shapes), typesizes 1, 2, 4, 8, 16 and a structured
 * dtype, contiguous and sparse, in memory and on disk: every b2nd function is called, the
 * public fields of b2nd_array_t are printed after each call that may change them, and the data
 * read back is compared with a naive model computed here (printed as checksums). Error codes
 * on bad arguments are printed too. run.sh diffs this program's output under both libraries.
 *
 * b2nd_refresh: a reader follows the writer's changes explicitly (b2nd_refresh) and implicitly
 * (the data functions refresh first, in both libraries).
 *
 * Not exercised here: DELTA-filtered arrays (c-blosc2 returns wrong data for slices that skip
 * block 0 of such chunks), 0-d copy_buffer (crashes c-blosc2), b2nd_print_meta of 0-d arrays
 * (prints uninitialised memory in c-blosc2).
 */
#define _DEFAULT_SOURCE /* mkdtemp */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <b2nd.h>
#include <blosc2.h>
#include "check.h"
#include "fnv.h"

#define RC(expr)                                              \
  do {                                                        \
    int rc_ = (expr);                                         \
    printf("  %s -> %d\n", #expr, rc_);                       \
    CHECK(rc_ >= 0, "%s returned %d", #expr, rc_);            \
  } while (0)

static char tmpdir[64];

static int64_t prod(const int64_t *v, int n) {
  int64_t p = 1;
  for (int i = 0; i < n; i++) p *= v[i];
  return p;
}

/* Item k of the source data (typesize bytes). */
static void fill_item(uint8_t *dst, int64_t k, int typesize, int seed) {
  for (int j = 0; j < typesize; j++) dst[j] = (uint8_t)(k * 31 + j * 7 + seed + (k >> 8));
}

static uint8_t *make_data(int64_t nitems, int typesize, int seed) {
  uint8_t *d = malloc(nitems * typesize + 1);
  for (int64_t k = 0; k < nitems; k++) fill_item(d + k * typesize, k, typesize, seed);
  return d;
}

/* Copies region [start, stop) of a C-order buffer of shape `shape` into `dst` (C order of the
 * region's shape), or the other way round when `into_src` is set. */
static void model_region(uint8_t *buf, const int64_t *shape, int ndim, const int64_t *start,
                         const int64_t *stop, uint8_t *dst, int typesize, int into_src) {
  int64_t rshape[B2ND_MAX_DIM], idx[B2ND_MAX_DIM];
  for (int i = 0; i < ndim; i++) rshape[i] = stop[i] - start[i];
  int64_t n = prod(rshape, ndim);
  for (int64_t k = 0; k < n; k++) {
    int64_t rem = k;
    for (int i = ndim - 1; i >= 0; i--) {
      idx[i] = rem % rshape[i];
      rem /= rshape[i];
    }
    int64_t off = 0;
    for (int i = 0; i < ndim; i++) off = off * shape[i] + start[i] + idx[i];
    if (into_src) memcpy(buf + off * typesize, dst + k * typesize, typesize);
    else memcpy(dst + k * typesize, buf + off * typesize, typesize);
  }
}

static void print_fields(const char *label, const b2nd_array_t *a) {
  int n = a->ndim;
  printf(" %s: ndim=%d nitems=%lld extnitems=%lld chunknitems=%d blocknitems=%d "
         "extchunknitems=%lld dtype=%s format=%d\n",
         label, n, (long long)a->nitems, (long long)a->extnitems, a->chunknitems,
         a->blocknitems, (long long)a->extchunknitems, a->dtype ? a->dtype : "(null)",
         a->dtype_format);
  printf("  shape/chunk/ext/block/extchunk:");
  for (int i = 0; i < n; i++)
    printf(" %lld/%d/%lld/%d/%lld", (long long)a->shape[i], a->chunkshape[i],
           (long long)a->extshape[i], a->blockshape[i], (long long)a->extchunkshape[i]);
  printf("\n  strides:");
  for (int i = 0; i < n; i++)
    printf(" %lld,%lld,%lld,%lld,%lld,%lld", (long long)a->item_array_strides[i],
           (long long)a->item_chunk_strides[i], (long long)a->item_extchunk_strides[i],
           (long long)a->item_block_strides[i], (long long)a->block_chunk_strides[i],
           (long long)a->chunk_array_strides[i]);
  printf("\n  sc: typesize=%d nchunks=%lld nbytes=%lld contiguous=%d nmetalayers=%d",
         a->sc->typesize, (long long)a->sc->nchunks, (long long)a->sc->nbytes,
         a->sc->storage->contiguous, a->sc->nmetalayers);
  for (int i = 0; i < a->sc->nmetalayers; i++) printf(" %s", a->sc->metalayers[i]->name);
  printf(" nvlmetalayers=%d\n", a->sc->nvlmetalayers);
  /* The metalayer agrees with the fields. */
  uint8_t *smeta;
  int32_t len;
  if (blosc2_meta_get(a->sc, "b2nd", &smeta, &len) >= 0) {
    int8_t nd;
    int64_t sh[B2ND_MAX_DIM];
    int32_t cs[B2ND_MAX_DIM], bs[B2ND_MAX_DIM];
    char *dt = NULL;
    int8_t fmt;
    b2nd_deserialize_meta(smeta, len, &nd, sh, cs, bs, &dt, &fmt);
    CHECK(nd == n, "meta ndim %d", nd);
    for (int i = 0; i < nd && i < n; i++)
      CHECK(sh[i] == a->shape[i] && cs[i] == a->chunkshape[i] && bs[i] == a->blockshape[i],
            "meta dim %d", i);
    free(dt);
    free(smeta);
  }
}

/* Reads the whole array and compares it with `model`. */
static void check_data(const char *label, const b2nd_array_t *a, const uint8_t *model) {
  int ts = a->sc->typesize;
  int64_t nbytes = a->nitems * ts;
  uint8_t *buf = malloc(nbytes + 1);
  int rc = b2nd_to_cbuffer(a, buf, nbytes);
  int same = rc == 0 && memcmp(buf, model, nbytes) == 0;
  printf("  %s: to_cbuffer -> %d checksum %016llx same=%d\n", label, rc,
         (unsigned long long)fnv(buf, nbytes), same);
  CHECK(same, "%s: data differs from the model", label);
  free(buf);
}

typedef struct {
  int ndim;
  int64_t shape[B2ND_MAX_DIM];
  int32_t chunkshape[B2ND_MAX_DIM];
  int32_t blockshape[B2ND_MAX_DIM];
  int typesize;
  const char *dtype;
  int contiguous;
  int on_disk;
} spec_t;

static b2nd_context_t *make_ctx(const spec_t *s, const char *urlpath, blosc2_cparams *cparams,
                                blosc2_storage *storage) {
  *cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams->typesize = s->typesize;
  cparams->clevel = 5;
  cparams->nthreads = 1;
  *storage = (blosc2_storage){.cparams = cparams, .contiguous = s->contiguous,
                              .urlpath = (char *)urlpath};
  return b2nd_create_ctx(storage, (int8_t)s->ndim, s->shape, s->chunkshape, s->blockshape,
                         s->dtype, 0, NULL, 0);
}

static void run_case(int ncase, const spec_t *s) {
  int n = s->ndim, ts = s->typesize;
  printf("case %d: ndim=%d typesize=%d dtype=%s contiguous=%d on_disk=%d\n", ncase, n, ts,
         s->dtype ? s->dtype : "(null)", s->contiguous, s->on_disk);
  char path[128], path2[128];
  snprintf(path, sizeof(path), "%s/a%d.b2nd", tmpdir, ncase);
  snprintf(path2, sizeof(path2), "%s/s%d.b2nd", tmpdir, ncase);
  blosc2_cparams cparams;
  blosc2_storage storage;
  b2nd_context_t *ctx = make_ctx(s, s->on_disk ? path : NULL, &cparams, &storage);
  CHECK(ctx != NULL, "ctx");

  int64_t nitems = prod(s->shape, n);
  uint8_t *model = make_data(nitems, ts, ncase);
  b2nd_array_t *a = NULL;
  RC(b2nd_from_cbuffer(ctx, &a, model, nitems * ts));
  if (a == NULL) return;
  print_fields("from_cbuffer", a);
  check_data("from_cbuffer", a, model);

  /* A slice inside the array, not aligned with chunks or blocks. */
  int64_t start[B2ND_MAX_DIM], stop[B2ND_MAX_DIM], sshape[B2ND_MAX_DIM];
  for (int i = 0; i < n; i++) {
    start[i] = s->shape[i] > 2 ? 1 : 0;
    stop[i] = s->shape[i] - (s->shape[i] > 3 ? 1 : 0);
    sshape[i] = stop[i] - start[i];
  }
  int64_t snitems = prod(sshape, n);
  uint8_t *sbuf = calloc(snitems * ts + 1, 1), *smodel = calloc(snitems * ts + 1, 1);
  RC(b2nd_get_slice_cbuffer(a, start, stop, sbuf, sshape, snitems * ts));
  model_region(model, s->shape, n, start, stop, smodel, ts, 0);
  printf("  get_slice_cbuffer checksum %016llx same=%d\n",
         (unsigned long long)fnv(sbuf, snitems * ts), memcmp(sbuf, smodel, snitems * ts) == 0);
  CHECK(memcmp(sbuf, smodel, snitems * ts) == 0, "slice differs");

  /* Writing a slice. */
  for (int64_t k = 0; k < snitems; k++) fill_item(sbuf + k * ts, k, ts, 99);
  RC(b2nd_set_slice_cbuffer(sbuf, sshape, snitems * ts, start, stop, a));
  model_region(model, s->shape, n, start, stop, sbuf, ts, 1);
  check_data("set_slice_cbuffer", a, model);

  /* get_slice: a new array of the slice. */
  b2nd_array_t *sl = NULL;
  blosc2_cparams mcparams;
  blosc2_storage mstorage;
  b2nd_context_t *mctx = make_ctx(s, NULL, &mcparams, &mstorage);
  RC(b2nd_get_slice(mctx, &sl, a, start, stop));
  if (sl) {
    print_fields("get_slice", sl);
    model_region(model, s->shape, n, start, stop, smodel, ts, 0);
    check_data("get_slice", sl, smodel);
    RC(b2nd_free(sl));
  }
  RC(b2nd_free_ctx(mctx));

  /* Orthogonal selection: a few indices per dimension, unsorted and repeated. */
  int64_t *sel[B2ND_MAX_DIM], selsize[B2ND_MAX_DIM];
  for (int i = 0; i < n; i++) {
    selsize[i] = s->shape[i] > 1 ? 3 : 1;
    sel[i] = malloc(3 * sizeof(int64_t));
    sel[i][0] = s->shape[i] - 1;
    sel[i][1] = 0;
    sel[i][2] = s->shape[i] / 2;
  }
  int64_t onitems = prod(selsize, n);
  uint8_t *obuf = calloc(onitems * ts + 1, 1);
  RC(b2nd_get_orthogonal_selection(a, sel, selsize, obuf, selsize, onitems * ts));
  int osame = 1;
  for (int64_t k = 0; k < onitems; k++) {
    int64_t rem = k, off = 0, idx[B2ND_MAX_DIM];
    for (int i = n - 1; i >= 0; i--) {
      idx[i] = rem % selsize[i];
      rem /= selsize[i];
    }
    for (int i = 0; i < n; i++) off = off * s->shape[i] + sel[i][idx[i]];
    osame &= memcmp(obuf + k * ts, model + off * ts, ts) == 0;
  }
  printf("  orthogonal get checksum %016llx same=%d\n",
         (unsigned long long)fnv(obuf, onitems * ts), osame);
  CHECK(osame, "orthogonal selection differs");
  /* ... and set: distinct indices only (repeats make the written value order-dependent). */
  for (int i = 0; i < n; i++) {
    selsize[i] = s->shape[i] > 2 ? 2 : 1;
    sel[i][0] = s->shape[i] - 1;
    sel[i][1] = 0;
  }
  onitems = prod(selsize, n);
  for (int64_t k = 0; k < onitems; k++) fill_item(obuf + k * ts, k, ts, 42);
  RC(b2nd_set_orthogonal_selection(a, sel, selsize, obuf, selsize, onitems * ts));
  for (int64_t k = 0; k < onitems; k++) {
    int64_t rem = k, off = 0, idx[B2ND_MAX_DIM];
    for (int i = n - 1; i >= 0; i--) {
      idx[i] = rem % selsize[i];
      rem /= selsize[i];
    }
    for (int i = 0; i < n; i++) off = off * s->shape[i] + sel[i][idx[i]];
    memcpy(model + off * ts, obuf + k * ts, ts);
  }
  check_data("set_orthogonal_selection", a, model);
  for (int i = 0; i < n; i++) free(sel[i]);
  free(obuf);

  /* Sparse gather. */
  int64_t coords[5] = {nitems - 1, 0, nitems / 2, nitems / 3, nitems - 1};
  uint8_t *gbuf = calloc(5 * ts, 1);
  RC(b2nd_get_sparse_cbuffer(a, 5, coords, gbuf, 5 * ts));
  int gsame = 1;
  for (int k = 0; k < 5; k++) gsame &= memcmp(gbuf + k * ts, model + coords[k] * ts, ts) == 0;
  printf("  sparse gather same=%d\n", gsame);
  CHECK(gsame, "sparse gather differs");
  free(gbuf);

  /* Copy with other chunk and block shapes, in memory. */
  {
    spec_t s2 = *s;
    for (int i = 0; i < n; i++) {
      s2.chunkshape[i] = s->chunkshape[i] > 1 ? s->chunkshape[i] - 1 : 1;
      s2.blockshape[i] = 1;
    }
    s2.contiguous = 0;
    blosc2_cparams cp2;
    blosc2_storage st2;
    b2nd_context_t *ctx2 = make_ctx(&s2, NULL, &cp2, &st2);
    b2nd_array_t *c = NULL;
    RC(b2nd_copy(ctx2, a, &c));
    if (c) {
      print_fields("copy", c);
      check_data("copy", c, model);
      RC(b2nd_free(c));
    }
    RC(b2nd_free_ctx(ctx2));
  }

  /* cframe round trip. */
  {
    uint8_t *cframe;
    int64_t cframe_len;
    bool needs_free;
    RC(b2nd_to_cframe(a, &cframe, &cframe_len, &needs_free));
    b2nd_array_t *f = NULL;
    RC(b2nd_from_cframe(cframe, cframe_len, true, &f));
    if (f) {
      print_fields("from_cframe", f);
      check_data("from_cframe", f, model);
      RC(b2nd_free(f));
    }
    if (needs_free) free(cframe);
  }

  /* Save, open; save_append, open_offset. */
  {
    int rc = b2nd_save(a, path2);
    printf("  b2nd_save -> %d\n", rc);
    CHECK(rc == 0, "save %d", rc);
    b2nd_array_t *o = NULL;
    RC(b2nd_open(path2, &o));
    if (o) {
      print_fields("open", o);
      check_data("open", o, model);
      RC(b2nd_free(o));
    }
    if (s->contiguous) {
      char path3[160];
      snprintf(path3, sizeof(path3), "%s/app%d.bin", tmpdir, ncase);
      FILE *fp = fopen(path3, "wb");
      fwrite("0123456789", 1, 10, fp);
      fclose(fp);
      int64_t off = b2nd_save_append(a, path3);
      printf("  b2nd_save_append -> %lld\n", (long long)off);
      CHECK(off == 10, "offset %lld", (long long)off);
      RC(b2nd_open_offset(path3, &o, off));
      if (o) {
        check_data("open_offset", o, model);
        RC(b2nd_free(o));
      }
    }
  }

  /* Shape changes: resize up (new items are zero), append, insert, delete. */
  {
    int64_t newshape[B2ND_MAX_DIM];
    for (int i = 0; i < n; i++) newshape[i] = s->shape[i] + (i == 0 ? 3 : 0);
    RC(b2nd_resize(a, newshape, NULL));
    print_fields("resize", a);
    int64_t nn = prod(newshape, n);
    uint8_t *m2 = calloc(nn * ts + 1, 1);
    int64_t zero[B2ND_MAX_DIM] = {0};
    model_region(m2, newshape, n, zero, s->shape, model, ts, 1);
    check_data("resize", a, m2);

    /* append one slab along axis 0 */
    int64_t slab = nn / newshape[0];
    uint8_t *app = make_data(slab, ts, 7);
    RC(b2nd_append(a, app, slab * ts, 0));
    uint8_t *m3 = malloc((nn + slab) * ts + 1);
    memcpy(m3, m2, nn * ts);
    memcpy(m3 + nn * ts, app, slab * ts);
    print_fields("append", a);
    check_data("append", a, m3);

    /* Deleting or inserting inside the array works on whole chunks only. */
    int rc = b2nd_delete(a, 0, 1, 1);
    printf("  delete of one unaligned slab -> %d\n", rc);
    CHECK(rc == BLOSC2_ERROR_INVALID_PARAM, "rc %d", rc);
    int64_t c0 = s->chunkshape[0];
    RC(b2nd_delete(a, 0, 0, c0));
    print_fields("delete", a);
    check_data("delete", a, m3 + c0 * slab * ts);

    /* insert c0 slabs at the start of axis 0 */
    uint8_t *ins = make_data(c0 * slab, ts, 5);
    RC(b2nd_insert(a, ins, c0 * slab * ts, 0, 0));
    int64_t rows = a->shape[0];
    uint8_t *m4 = malloc(rows * slab * ts + 1);
    memcpy(m4, ins, c0 * slab * ts);
    memcpy(m4 + c0 * slab * ts, m3 + c0 * slab * ts, (rows - c0) * slab * ts);
    print_fields("insert", a);
    check_data("insert", a, m4);
    free(ins);
    free(m2);
    free(m3);
    free(m4);
    free(app);
  }

  RC(b2nd_free(a));
  RC(b2nd_free_ctx(ctx));
  free(model);
  free(sbuf);
  free(smodel);
}

static void constructors(void) {
  printf("constructors\n");
  const int typesizes[] = {1, 2, 4, 8, 16};
  for (int t = 0; t < 5; t++) {
    int ts = typesizes[t];
    spec_t s = {.ndim = 2, .shape = {7, 5}, .chunkshape = {4, 3}, .blockshape = {3, 2},
                .typesize = ts};
    blosc2_cparams cp;
    blosc2_storage st;
    b2nd_context_t *ctx = make_ctx(&s, NULL, &cp, &st);
    int64_t nitems = 35;
    uint8_t *zeros = calloc(nitems, ts);
    b2nd_array_t *a = NULL;
    RC(b2nd_zeros(ctx, &a));
    print_fields("zeros", a);
    check_data("zeros", a, zeros);
    RC(b2nd_free(a));
    RC(b2nd_empty(ctx, &a));
    print_fields("empty", a);
    RC(b2nd_free(a));
    RC(b2nd_uninit(ctx, &a));
    print_fields("uninit", a);
    RC(b2nd_free(a));
    uint8_t value[16];
    for (int j = 0; j < 16; j++) value[j] = (uint8_t)(0xa0 + j);
    RC(b2nd_full(ctx, &a, value));
    uint8_t *full = malloc(nitems * ts);
    for (int64_t k = 0; k < nitems; k++) memcpy(full + k * ts, value, ts);
    print_fields("full", a);
    check_data("full", a, full);
    RC(b2nd_free(a));
    a = NULL;
    int rc = b2nd_nans(ctx, &a);
    printf("  b2nd_nans typesize %d -> %d\n", ts, rc);
    if (rc == 0) {
      uint8_t *buf = malloc(nitems * ts);
      b2nd_to_cbuffer(a, buf, nitems * ts);
      int nan = 1;
      for (int64_t k = 0; k < nitems; k++) {
        if (ts == 4) { float f; memcpy(&f, buf + 4 * k, 4); nan &= f != f; }
        if (ts == 8) { double d; memcpy(&d, buf + 8 * k, 8); nan &= d != d; }
      }
      printf("  nans all NaN=%d\n", nan);
      CHECK(nan, "nans");
      free(buf);
      b2nd_free(a);
    } else {
      CHECK(rc == BLOSC2_ERROR_DATA, "nans rc %d", rc);
    }
    free(zeros);
    free(full);
    RC(b2nd_free_ctx(ctx));
  }
}

static void views_and_concat(void) {
  printf("views and concatenate\n");
  spec_t s = {.ndim = 3, .shape = {5, 1, 6}, .chunkshape = {3, 1, 4}, .blockshape = {2, 1, 3},
              .typesize = 4, .dtype = "<i4"};
  blosc2_cparams cp;
  blosc2_storage st;
  b2nd_context_t *ctx = make_ctx(&s, NULL, &cp, &st);
  uint8_t *model = make_data(30, 4, 3);
  b2nd_array_t *a = NULL, *v = NULL, *w = NULL;
  RC(b2nd_from_cbuffer(ctx, &a, model, 30 * 4));
  RC(b2nd_squeeze(a, &v));
  print_fields("squeeze", v);
  check_data("squeeze", v, model);
  bool axis[4] = {true, false, false, false};
  RC(b2nd_expand_dims(v, &w, axis, 3));
  print_fields("expand_dims", w);
  check_data("expand_dims", w, model);
  b2nd_free(w);
  w = NULL;
  bool idx[3] = {false, true, false};
  RC(b2nd_squeeze_index(a, &w, idx));
  print_fields("squeeze_index", w);
  check_data("squeeze_index", w, model);
  bool bad[3] = {true, false, false};
  b2nd_array_t *x = NULL;
  int rc = b2nd_squeeze_index(a, &x, bad);
  printf("  squeeze_index of an extent-5 dim -> %d\n", rc);
  CHECK(rc == BLOSC2_ERROR_INVALID_INDEX, "rc %d", rc);
  b2nd_free(v);
  b2nd_free(w);

  /* concatenate along each axis, copying and in place */
  for (int8_t ax = 0; ax < 3; ax++) {
    b2nd_array_t *b = NULL, *c = NULL;
    RC(b2nd_from_cbuffer(ctx, &b, model, 30 * 4));
    RC(b2nd_concatenate(ctx, a, b, ax, true, &c));
    if (c) {
      print_fields("concatenate", c);
      int64_t sh2[3] = {5, 1, 6};
      sh2[ax] *= 2;
      uint8_t *m = malloc(60 * 4);
      int64_t st0[3] = {0, 0, 0}, sp0[3] = {5, 1, 6}, st1[3] = {0, 0, 0}, sp1[3] = {5, 1, 6};
      st1[ax] += sp0[ax];
      sp1[ax] += sp0[ax];
      model_region(m, sh2, 3, st0, sp0, model, 4, 1);
      model_region(m, sh2, 3, st1, sp1, model, 4, 1);
      check_data("concatenate", c, m);
      free(m);
      b2nd_free(c);
    }
    b2nd_free(b);
  }
  /* an array concatenated with itself into a copy (in place, c-blosc2 3.3.5 fails part way:
     src2 is src1, already grown, so that case is tested in rblosc2's own tests only) */
  for (int8_t ax = 0; ax < 3; ax++) {
    b2nd_array_t *c = NULL;
    RC(b2nd_concatenate(ctx, a, a, ax, true, &c));
    if (c) {
      print_fields("concatenate with itself", c);
      int64_t sh2[3] = {5, 1, 6};
      sh2[ax] *= 2;
      uint8_t *m = malloc(60 * 4);
      int64_t st0[3] = {0, 0, 0}, sp0[3] = {5, 1, 6}, st1[3] = {0, 0, 0}, sp1[3] = {5, 1, 6};
      st1[ax] += sp0[ax];
      sp1[ax] += sp0[ax];
      model_region(m, sh2, 3, st0, sp0, model, 4, 1);
      model_region(m, sh2, 3, st1, sp1, model, 4, 1);
      check_data("concatenate with itself", c, m);
      check_data("source after concatenating it with itself", a, model);
      free(m);
      b2nd_free(c);
    }
  }
  {
    b2nd_array_t *b = NULL, *c = NULL, *a2 = NULL;
    RC(b2nd_from_cbuffer(ctx, &b, model, 30 * 4));
    RC(b2nd_from_cbuffer(ctx, &a2, model, 30 * 4));
    RC(b2nd_concatenate(ctx, a2, b, 2, false, &c));
    printf("  in place: same array=%d\n", c == a2);
    CHECK(c == a2, "in-place concatenate returns src1");
    print_fields("concatenate in place", c);
    b2nd_free(b);
    b2nd_free(a2);
  }
  {
    b2nd_array_t *b = NULL, *c = NULL;
    spec_t s2 = s;
    s2.shape[2] = 5;
    blosc2_cparams cp2;
    blosc2_storage st2;
    b2nd_context_t *ctx2 = make_ctx(&s2, NULL, &cp2, &st2);
    RC(b2nd_zeros(ctx2, &b));
    rc = b2nd_concatenate(ctx, a, b, 0, true, &c);
    printf("  concatenate mismatched shapes -> %d\n", rc);
    CHECK(rc == BLOSC2_ERROR_INVALID_PARAM, "rc %d", rc);
    rc = b2nd_concatenate(ctx, a, b, 3, true, &c);
    printf("  concatenate axis 3 -> %d\n", rc);
    CHECK(rc == BLOSC2_ERROR_INVALID_PARAM, "rc %d", rc);
    b2nd_free(b);
    b2nd_free_ctx(ctx2);
  }
  b2nd_print_meta(a);
  fflush(stdout);

  /* b2nd_from_schunk over a super-chunk holding an array. */
  {
    uint8_t *cframe;
    int64_t len;
    bool needs_free;
    RC(b2nd_to_cframe(a, &cframe, &len, &needs_free));
    blosc2_schunk *sc = blosc2_schunk_from_buffer(cframe, len, true);
    b2nd_array_t *f = NULL;
    RC(b2nd_from_schunk(sc, &f));
    print_fields("from_schunk", f);
    check_data("from_schunk", f, model);
    b2nd_free(f);
    if (needs_free) free(cframe);
    blosc2_storage plain = BLOSC2_STORAGE_DEFAULTS;
    blosc2_schunk *empty = blosc2_schunk_new(&plain);
    rc = b2nd_from_schunk(empty, &f);
    printf("  from_schunk without metalayer -> %d\n", rc);
    CHECK(rc == BLOSC2_ERROR_METALAYER_NOT_FOUND, "rc %d", rc);
    blosc2_schunk_free(empty);
  }

  /* Errors. */
  b2nd_array_t *e = NULL;
  printf("  empty NULL ctx -> %d\n", b2nd_empty(NULL, &e));
  printf("  empty NULL array -> %d\n", b2nd_empty(ctx, NULL));
  printf("  free NULL -> %d\n", b2nd_free(NULL));
  printf("  from_cbuffer NULL buffer -> %d\n", b2nd_from_cbuffer(ctx, &e, NULL, 0));
  printf("  from_cbuffer short buffer -> %d\n", b2nd_from_cbuffer(ctx, &e, model, 10));
  b2nd_free(e);
  uint8_t small[8];
  printf("  to_cbuffer short buffer -> %d\n", b2nd_to_cbuffer(a, small, 8));
  printf("  to_cbuffer NULL -> %d\n", b2nd_to_cbuffer(a, NULL, 8));
  int64_t st0[3] = {0, 0, 0}, sp0[3] = {5, 1, 6}, bshape[3] = {1, 1, 1};
  printf("  get_slice_cbuffer small buffershape -> %d\n",
         b2nd_get_slice_cbuffer(a, st0, sp0, small, bshape, 8));
  printf("  get_slice_cbuffer negative buffersize -> %d\n",
         b2nd_get_slice_cbuffer(a, st0, sp0, small, sp0, -1));
  printf("  get_slice_cbuffer NULL start -> %d\n",
         b2nd_get_slice_cbuffer(a, NULL, sp0, small, sp0, 8));
  printf("  insert axis 3 -> %d\n", b2nd_insert(a, small, 8, 3, 0));
  printf("  delete axis 3 -> %d\n", b2nd_delete(a, 3, 0, 1));
  int64_t bigger[3] = {6, 1, 6};
  int64_t bad_start[3] = {1, 0, 0};
  printf("  resize with unaligned start -> %d\n", b2nd_resize(a, bigger, bad_start));
  printf("  resize NULL shape -> %d\n", b2nd_resize(a, NULL, NULL));
  int64_t coords[1] = {30};
  printf("  sparse gather past the end -> %d\n", b2nd_get_sparse_cbuffer(a, 1, coords, small, 8));
  int64_t sel0[1] = {0}, *sel[3] = {sel0, sel0, sel0}, one[3] = {1, 1, 1};
  printf("  orthogonal buffer larger than selection -> %d\n",
         b2nd_get_orthogonal_selection(a, sel, one, small, one, 8));
  int64_t far[1] = {6};
  int64_t *selfar[3] = {far, sel0, sel0};
  printf("  orthogonal index past the extent -> %d\n",
         b2nd_get_orthogonal_selection(a, selfar, one, small, one, 4));
  printf("  open missing file -> %d\n", b2nd_open("/nonexistent/x.b2nd", &e));
  printf("  print_meta NULL -> %d\n", b2nd_print_meta(NULL));
  printf("  nans typesize 4 NULL array -> %d\n", b2nd_nans(ctx, NULL));
  b2nd_free(a);
  b2nd_free_ctx(ctx);
  free(model);
}

/* A 0-d array, an array with a zero extent, and a frame opened without copying. */
static void special_shapes(void) {
  printf("special shapes\n");
  blosc2_cparams cp;
  blosc2_storage st;
  spec_t s0 = {.ndim = 0, .typesize = 8, .dtype = "<f8"};
  b2nd_context_t *ctx = make_ctx(&s0, NULL, &cp, &st);
  double x = 2.5, y = 0;
  b2nd_array_t *a = NULL;
  RC(b2nd_from_cbuffer(ctx, &a, &x, 8));
  print_fields("0-d", a);
  RC(b2nd_to_cbuffer(a, &y, 8));
  printf("  0-d value %g\n", y);
  CHECK(y == 2.5, "0-d value");
  double z = -1;
  int64_t none[1] = {0}; /* c-blosc2 wants non-NULL coordinates even for 0-d */
  RC(b2nd_set_slice_cbuffer(&z, none, 8, none, none, a));
  RC(b2nd_get_slice_cbuffer(a, none, none, &y, none, 8));
  printf("  0-d value after set %g\n", y);
  CHECK(y == -1, "0-d set");
  b2nd_free(a);
  b2nd_free_ctx(ctx);

  spec_t sz = {.ndim = 2, .shape = {0, 5}, .chunkshape = {2, 3}, .blockshape = {1, 2},
               .typesize = 4};
  ctx = make_ctx(&sz, NULL, &cp, &st);
  RC(b2nd_zeros(ctx, &a));
  print_fields("zero extent", a);
  uint8_t dummy[4];
  RC(b2nd_to_cbuffer(a, dummy, 0));
  int64_t newshape[2] = {3, 5};
  RC(b2nd_resize(a, newshape, NULL));
  print_fields("zero extent resized", a);
  uint8_t zeros[60] = {0};
  check_data("zero extent resized", a, zeros);
  b2nd_free(a);
  b2nd_free_ctx(ctx);

  spec_t s1 = {.ndim = 2, .shape = {9, 7}, .chunkshape = {4, 4}, .blockshape = {2, 3},
               .typesize = 2, .contiguous = 1};
  ctx = make_ctx(&s1, NULL, &cp, &st);
  uint8_t *m = make_data(63, 2, 8);
  RC(b2nd_from_cbuffer(ctx, &a, m, 126));
  uint8_t *cframe;
  int64_t len;
  bool needs_free;
  RC(b2nd_to_cframe(a, &cframe, &len, &needs_free));
  printf("  to_cframe needs_free=%d\n", needs_free);
  b2nd_array_t *f = NULL;
  RC(b2nd_from_cframe(cframe, len, false, &f));
  print_fields("from_cframe without copy", f);
  check_data("from_cframe without copy", f, m);
  b2nd_free(f);
  b2nd_print_meta(a);
  fflush(stdout);
  if (needs_free) free(cframe);
  b2nd_free(a);
  b2nd_free_ctx(ctx);
  free(m);
}

/* A reader following a writer on the same file: b2nd_refresh. */
static void refresh(void) {
  printf("refresh\n");
  for (int contiguous = 1; contiguous >= 0; contiguous--) {
    char path[128];
    snprintf(path, sizeof(path), "%s/refresh%d.b2nd", tmpdir, contiguous);
    spec_t s = {.ndim = 2, .shape = {10, 6}, .chunkshape = {4, 3}, .blockshape = {2, 3},
                .typesize = 4, .dtype = "<i4", .contiguous = contiguous};
    blosc2_cparams cp;
    blosc2_storage st;
    b2nd_context_t *ctx = make_ctx(&s, path, &cp, &st);
    b2nd_array_t *w = NULL, *r = NULL, *m = NULL;
    RC(b2nd_zeros(ctx, &w));
    RC(b2nd_open(path, &r));
    int rc = b2nd_refresh(r);
    printf("  refresh when current -> %d\n", rc);
    CHECK(rc == 0, "rc %d", rc);
    int64_t ns[2] = {14, 6};
    RC(b2nd_resize(w, ns, NULL));
    rc = b2nd_refresh(r);
    printf("  refresh after a resize -> %d\n", rc);
    CHECK(rc == 1, "rc %d", rc);
    print_fields("refreshed", r);
    uint8_t zeros[14 * 6 * 4] = {0};
    check_data("refreshed", r, zeros);
    rc = b2nd_refresh(r);
    printf("  refresh again -> %d\n", rc);
    CHECK(rc == 0, "rc %d", rc);
    /* The data functions follow the writer by themselves: a slice of rows the writer
       appended, then a whole read after it shrank the array, with no b2nd_refresh. */
    int32_t fives[4 * 6];
    for (int i = 0; i < 4 * 6; i++) fives[i] = 5;
    RC(b2nd_append(w, fives, sizeof fives, 0));
    int64_t s0[2] = {15, 2}, s1[2] = {17, 5}, bsh[2] = {2, 3};
    int32_t got[6] = {0};
    rc = b2nd_get_slice_cbuffer(r, s0, s1, got, bsh, sizeof got);
    printf("  slice of appended rows -> %d, shape[0] %lld, items %d %d\n", rc,
           (long long)r->shape[0], got[0], got[5]);
    CHECK(rc == 0 && r->shape[0] == 18 && got[0] == 5 && got[5] == 5, "rc %d", rc);
    rc = b2nd_refresh(r);
    printf("  refresh after a data call -> %d\n", rc);
    CHECK(rc == 0, "rc %d", rc);
    int64_t small[2] = {8, 6};
    RC(b2nd_resize(w, small, NULL));
    rc = b2nd_to_cbuffer(r, zeros, 8 * 6 * 4);
    printf("  to_cbuffer after a shrink -> %d, shape[0] %lld\n", rc, (long long)r->shape[0]);
    CHECK(rc == 0 && r->shape[0] == 8, "rc %d", rc);
    b2nd_free(w);
    b2nd_free(r);
    b2nd_free_ctx(ctx);
    if (!contiguous) {
      /* (c-blosc2 returns 1 for the first refresh of a contiguous in-memory array) */
      ctx = make_ctx(&s, NULL, &cp, &st);
      RC(b2nd_zeros(ctx, &m));
      rc = b2nd_refresh(m);
      printf("  refresh in memory -> %d\n", rc);
      CHECK(rc == 0, "rc %d", rc);
      b2nd_free(m);
      b2nd_free_ctx(ctx);
    }
  }
  printf("  refresh NULL -> %d\n", b2nd_refresh(NULL));
}

/* Slice arguments outside the array: the codes c-blosc2 3.3.5 returns where it refuses them
 * (where it returns 0 and reads or writes outside the array, ours refuses: not printed). */
static void slice_arguments(void) {
  printf("slice arguments\n");
  int64_t shape[2] = {10, 10};
  int32_t cs[2] = {5, 5}, bs[2] = {5, 5};
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 8;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_storage st = {.cparams = &cp, .dparams = &dp};
  b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, shape, cs, bs, NULL, 0, NULL, 0);
  b2nd_array_t *a = NULL;
  double seven = 7.0;
  CHECK(b2nd_full(ctx, &a, &seven) == 0, "slice arguments: full");
  static double buf[400];
  int64_t bsh[2] = {20, 20}, small[2] = {2, 2};
  struct {
    const char *name;
    int64_t start[2], stop[2];
    bool get_slice;
  } cases[] = {
      {"inside", {0, 0}, {2, 2}, true},      {"stop past dim 0", {0, 0}, {11, 5}, false},
      {"start -1", {-1, 0}, {2, 5}, true},   {"empty", {3, 3}, {3, 3}, true},
      {"start at the end", {10, 0}, {10, 5}, true},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int get = b2nd_get_slice_cbuffer(a, cases[i].start, cases[i].stop, buf, bsh, sizeof buf);
    int set = b2nd_set_slice_cbuffer(buf, bsh, sizeof buf, cases[i].start, cases[i].stop, a);
    printf("  %s: get %d set %d", cases[i].name, get, set);
    if (cases[i].get_slice) {
      b2nd_array_t *v = NULL;
      int rc = b2nd_get_slice(ctx, &v, a, cases[i].start, cases[i].stop);
      printf(" get_slice %d", rc);
      if (rc == 0 && v != NULL) {
        printf(" shape %lld,%lld", (long long)v->shape[0], (long long)v->shape[1]);
        b2nd_free(v);
      }
    }
    printf("\n");
  }
  int64_t s[2] = {0, 0}, e[2] = {4, 4};
  printf("  buffershape smaller than the slice: get %d set %d\n",
         b2nd_get_slice_cbuffer(a, s, e, buf, small, sizeof buf),
         b2nd_set_slice_cbuffer(buf, small, sizeof buf, s, e, a));
  printf("  buffer too short: get %d set %d\n", b2nd_get_slice_cbuffer(a, s, e, buf, bsh, 8),
         b2nd_set_slice_cbuffer(buf, bsh, 8, s, e, a));
  printf("  NULL buffer: get %d set %d\n", b2nd_get_slice_cbuffer(a, s, e, NULL, bsh, sizeof buf),
         b2nd_set_slice_cbuffer(NULL, bsh, sizeof buf, s, e, a));
  b2nd_free(a);
  b2nd_free_ctx(ctx);
}

int main(void) {
  blosc2_init();
  strcpy(tmpdir, "/tmp/b2nd_array.XXXXXX");
  if (mkdtemp(tmpdir) == NULL) return 2;

  constructors();
  views_and_concat();
  special_shapes();
  refresh();
  slice_arguments();

  const int typesizes[] = {1, 2, 4, 8, 16};
  int ncase = 0;
  for (int nd = 1; nd <= 12; nd++) {
    if (nd > 8 && nd != 12) continue;
    for (int variant = 0; variant < 3; variant++) {
      spec_t s = {.ndim = nd, .typesize = typesizes[(nd + variant) % 5]};
      for (int i = 0; i < nd; i++) {
        if (nd <= 3) {
          s.shape[i] = 11 + 3 * i + variant;
          s.chunkshape[i] = 5 + (i % 2);
          s.blockshape[i] = 2 + (i + variant) % 2;
        } else {
          s.shape[i] = (i % 3 == 0) ? 5 : (i % 3 == 1 ? 3 : 4);
          s.chunkshape[i] = s.shape[i] > 3 ? 3 : 2;
          s.blockshape[i] = (i + variant) % 2 ? 2 : 1;
        }
      }
      if (nd == 12) {
        for (int i = 0; i < nd; i++) {
          s.shape[i] = i < 3 ? 3 : 2;
          s.chunkshape[i] = 2;
          s.blockshape[i] = i % 2 ? 1 : 2;
        }
      }
      s.contiguous = variant != 1;
      s.on_disk = variant == 2 || (variant == 1 && nd % 2 == 0);
      if (nd == 2 && variant == 2) {
        s.typesize = 16;
        s.dtype = "[('a', '<i4'), ('b', '<f8'), ('c', 'S4')]";
      }
      run_case(ncase++, &s);
    }
  }

  char cmd[128];
  snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
  if (system(cmd) != 0) printf("could not remove %s\n", tmpdir);
  blosc2_destroy();
  printf("%d checks, %d failures\n", checks, failures);
  return failures != 0;
}
