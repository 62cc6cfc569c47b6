/* b2nd views (b2nd_squeeze, b2nd_squeeze_index, b2nd_expand_dims) side by side with c-blosc2
 * 3.3.5: a view shares its base's chunks, so items written through the base show in its views
 * and items written through a view show in the base and in the other views; views of views;
 * the view's fields and its own super-chunk's b2nd metalayer (the base's is left as it was);
 * b2nd_save / to_cframe / save_append / print_meta / get_slice / copy of a view; error codes;
 * freeing base and views in either order (run.sh runs it under valgrind with
 * RBLOSC2_VALGRIND=1).
 *
 * Only what c-blosc2 3.3.5 does without corrupting memory is compared here. Where it does not,
 * rblosc2's own tests (src/capi/b2nd_tests.rs, tests/b2nd_props.rs) check rblosc2 alone:
 * writing through a view of a frame-backed array (c-blosc2 fails with -1 half way), views of
 * arrays with vlmetalayers (c-blosc2 frees them twice), using a view after freeing its base
 * (a use after free in c-blosc2), squeezing a dimension whose chunk extent is above 1
 * (c-blosc2's view cannot read its data; rblosc2 returns a copy), and resizing a view.
 */
#define _DEFAULT_SOURCE /* mkdtemp */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <b2nd.h>
#include <blosc2.h>
#include "check.h"
#include "helpers.h"
#include "fnv.h"

#define RC(expr)                                   \
  do {                                             \
    int rc_ = (int)(expr);                         \
    printf("  %s -> %d\n", #expr, rc_);            \
    CHECK(rc_ >= 0, "%s returned %d", #expr, rc_); \
  } while (0)

static char tmpdir[64];

static void print_fields(const char *label, const b2nd_array_t *a) {
  printf(" %s: ndim=%d nitems=%lld extnitems=%lld chunknitems=%d blocknitems=%d "
         "extchunknitems=%lld dtype=%s\n",
         label, a->ndim, (long long)a->nitems, (long long)a->extnitems, a->chunknitems,
         a->blocknitems, (long long)a->extchunknitems, a->dtype ? a->dtype : "(null)");
  printf("  shape/chunk/ext/block/extchunk:");
  for (int i = 0; i < a->ndim; i++)
    printf(" %lld/%d/%lld/%d/%lld", (long long)a->shape[i], a->chunkshape[i],
           (long long)a->extshape[i], a->blockshape[i], (long long)a->extchunkshape[i]);
  printf("\n  strides:");
  for (int i = 0; i < a->ndim; i++)
    printf(" %lld,%lld,%lld,%lld,%lld", (long long)a->item_array_strides[i],
           (long long)a->item_chunk_strides[i], (long long)a->item_extchunk_strides[i],
           (long long)a->item_block_strides[i], (long long)a->block_chunk_strides[i]);
  const blosc2_schunk *sc = a->sc;
  printf("\n  sc: view=%d typesize=%d nchunks=%lld nbytes=%lld chunksize=%d contiguous=%d "
         "urlpath=%s nmetalayers=%d",
         sc->view, sc->typesize, (long long)sc->nchunks, (long long)sc->nbytes, sc->chunksize,
         sc->storage->contiguous, sc->storage->urlpath ? "set" : "(null)", sc->nmetalayers);
  uint8_t *smeta;
  int32_t len;
  if (blosc2_meta_get(a->sc, "b2nd", &smeta, &len) >= 0) {
    int8_t nd;
    int64_t sh[B2ND_MAX_DIM];
    int32_t cs[B2ND_MAX_DIM], bs[B2ND_MAX_DIM];
    char *dt = NULL;
    int8_t fmt;
    b2nd_deserialize_meta(smeta, len, &nd, sh, cs, bs, &dt, &fmt);
    printf(" b2nd meta ndim=%d shape", nd);
    for (int i = 0; i < nd; i++) printf(" %lld", (long long)sh[i]);
    CHECK(nd == a->ndim, "meta ndim %d", nd);
    for (int i = 0; i < nd && i < a->ndim; i++)
      CHECK(sh[i] == a->shape[i] && cs[i] == a->chunkshape[i] && bs[i] == a->blockshape[i],
            "meta dim %d", i);
    free(dt);
    free(smeta);
  }
  printf("\n");
}

/* The items of `a` (int32) against `model` (nitems items). */
static void check_items(const char *label, const b2nd_array_t *a, const int32_t *model,
                        int64_t nitems) {
  int32_t *buf = calloc(nitems + 1, 4);
  int rc = b2nd_to_cbuffer(a, buf, nitems * 4);
  int same = rc == 0 && memcmp(buf, model, nitems * 4) == 0;
  printf("  %s: to_cbuffer -> %d checksum %016llx same=%d\n", label, rc,
         (unsigned long long)fnv(buf, nitems * 4), same);
  CHECK(same, "%s: items differ from the model", label);
  free(buf);
}

static b2nd_context_t *make_ctx(params_t *p, int ndim, const int64_t *shape,
                                const int32_t *chunks, const int32_t *blocks, int contiguous,
                                const char *urlpath, blosc2_metalayer *metas, int nmetas) {
  return b2nd_test_ctx(p, 4, ndim, shape, chunks, blocks, contiguous, urlpath, "<i4", metas,
                       nmetas);
}

/* An array of shape (1, 5, 1, 6) in memory (sparse: c-blosc2 writes through views of it), its
 * views, writes through each, and a free order (0: views first, 1: base first). */
static void shared_writes(int free_order) {
  params_t P;
  printf("shared writes, free order %d\n", free_order);
  int64_t shape[4] = {1, 5, 1, 6};
  int32_t chunks[4] = {1, 3, 1, 4}, blocks[4] = {1, 2, 1, 3};
  b2nd_context_t *ctx = make_ctx(&P, 4, shape, chunks, blocks, 0, NULL, NULL, 0);
  int32_t model[30];
  for (int i = 0; i < 30; i++) model[i] = i * 3 + 1;
  b2nd_array_t *a = NULL, *sq = NULL, *sqi = NULL, *ex = NULL, *exsq = NULL;
  RC(b2nd_from_cbuffer(ctx, &a, model, sizeof model));
  RC(b2nd_squeeze(a, &sq));
  bool idx[4] = {true, false, false, false};
  RC(b2nd_squeeze_index(a, &sqi, idx));
  bool axis[5] = {false, false, true, false, false};
  RC(b2nd_expand_dims(a, &ex, axis, 5));
  bool axis2[4] = {true, false, false, true};
  RC(b2nd_expand_dims(sq, &exsq, axis2, 4));
  print_fields("base", a);
  print_fields("squeeze", sq);
  print_fields("squeeze_index", sqi);
  print_fields("expand_dims", ex);
  print_fields("expand_dims of the squeezed view", exsq);
  check_items("squeeze", sq, model, 30);
  check_items("expand of squeeze", exsq, model, 30);

  /* Through the base: rows 1..3, columns 1..5. */
  int32_t patch[8] = {-1, -2, -3, -4, -5, -6, -7, -8};
  int64_t st4[4] = {0, 1, 0, 1}, sp4[4] = {1, 3, 1, 5}, sh4[4] = {1, 2, 1, 4};
  RC(b2nd_set_slice_cbuffer(patch, sh4, sizeof patch, st4, sp4, a));
  for (int r = 0; r < 2; r++)
    for (int c = 0; c < 4; c++) model[(r + 1) * 6 + c + 1] = patch[r * 4 + c];
  check_items("squeeze after a base write", sq, model, 30);
  check_items("squeeze_index after a base write", sqi, model, 30);
  check_items("expand_dims after a base write", ex, model, 30);

  /* Through the squeezed view: row 3 whole (crosses two chunks). */
  int32_t row[6] = {100, 101, 102, 103, 104, 105};
  int64_t st2[2] = {3, 0}, sp2[2] = {4, 6}, sh2[2] = {1, 6};
  RC(b2nd_set_slice_cbuffer(row, sh2, sizeof row, st2, sp2, sq));
  memcpy(model + 18, row, sizeof row);
  check_items("base after a view write", a, model, 30);
  check_items("expand_dims after a view write", ex, model, 30);

  /* Through the view of a view: one item in the last row. */
  int32_t one = 777;
  int64_t st1[4] = {0, 4, 5, 0}, sp1[4] = {1, 5, 6, 1}, sh1[4] = {1, 1, 1, 1};
  RC(b2nd_set_slice_cbuffer(&one, sh1, 4, st1, sp1, exsq));
  model[4 * 6 + 5] = one;
  check_items("base after a write through a view of a view", a, model, 30);
  check_items("squeeze_index after it", sqi, model, 30);

  /* A slice of a view, and the base's metalayer is still the base's. */
  int32_t box[6];
  int64_t bst[2] = {1, 2}, bsp[2] = {3, 5}, bsh[2] = {2, 3};
  RC(b2nd_get_slice_cbuffer(sq, bst, bsp, box, bsh, sizeof box));
  int same = 1;
  for (int r = 0; r < 2; r++)
    for (int c = 0; c < 3; c++) same &= box[r * 3 + c] == model[(r + 1) * 6 + c + 2];
  printf("  slice of the view same=%d\n", same);
  CHECK(same, "slice of a view");
  print_fields("base after the writes", a);
  print_fields("squeeze after the writes", sq);

  if (free_order == 0) {
    RC(b2nd_free(exsq));
    RC(b2nd_free(sq));
    RC(b2nd_free(ex));
    check_items("base after freeing three views", a, model, 30);
    RC(b2nd_free(a));
    RC(b2nd_free(sqi));
  } else {
    RC(b2nd_free(a));
    RC(b2nd_free(sq));
    RC(b2nd_free(exsq));
    RC(b2nd_free(ex));
    RC(b2nd_free(sqi));
  }
  RC(b2nd_free_ctx(ctx));
}

/* What can be done with a view besides reading and writing its items. */
static void view_as_array(void) {
  params_t P;
  printf("a view as an array\n");
  int64_t shape[3] = {4, 1, 7};
  int32_t chunks[3] = {3, 1, 4}, blocks[3] = {2, 1, 2};
  b2nd_context_t *ctx = make_ctx(&P, 3, shape, chunks, blocks, 0, NULL, NULL, 0);
  int32_t model[28];
  for (int i = 0; i < 28; i++) model[i] = 1000 - i * 7;
  b2nd_array_t *a = NULL, *v = NULL;
  RC(b2nd_from_cbuffer(ctx, &a, model, sizeof model));
  RC(b2nd_squeeze(a, &v));
  print_fields("squeeze", v);
  RC(b2nd_print_meta(v));
  fflush(stdout);

  /* Saved: c-blosc2 saves a view sparse (its super-chunk is not contiguous). */
  char path[128];
  snprintf(path, sizeof path, "%s/view.b2nd", tmpdir);
  RC(b2nd_save(v, path));
  struct stat stt;
  printf("  saved as a %s\n", stat(path, &stt) == 0 && S_ISDIR(stt.st_mode) ? "directory" : "file");
  b2nd_array_t *r = NULL;
  RC(b2nd_open(path, &r));
  if (r) {
    print_fields("saved view reopened", r);
    check_items("saved view reopened", r, model, 28);
    b2nd_free(r);
  }

  /* As a frame: the view's own metalayer with the base's chunks. */
  uint8_t *cframe = NULL;
  int64_t cframe_len = 0;
  bool needs_free = false;
  RC(b2nd_to_cframe(v, &cframe, &cframe_len, &needs_free));
  printf("  to_cframe len=%lld needs_free=%d\n", (long long)cframe_len, needs_free);
  b2nd_array_t *f = NULL;
  RC(b2nd_from_cframe(cframe, cframe_len, true, &f));
  if (f) {
    print_fields("view from its cframe", f);
    check_items("view from its cframe", f, model, 28);
    b2nd_free(f);
  }
  if (needs_free) free(cframe);

  /* Appended to a file, and opened at the offset. */
  snprintf(path, sizeof path, "%s/appended.b2frame", tmpdir);
  FILE *fp = fopen(path, "wb");
  fwrite("0123456789", 1, 10, fp);
  fclose(fp);
  int64_t off = b2nd_save_append(v, path);
  printf("  save_append -> %lld\n", (long long)off);
  CHECK(off >= 0, "save_append %lld", (long long)off);
  b2nd_array_t *o = NULL;
  if (off >= 0) {
    RC(b2nd_open_offset(path, &o, off));
    if (o) {
      print_fields("appended view", o);
      check_items("appended view", o, model, 28);
      b2nd_free(o);
    }
  }

  /* Copies and slices of a view are arrays of the view's shape. */
  int64_t vshape[2] = {4, 7};
  int32_t vchunks[2] = {2, 5}, vblocks[2] = {1, 5};
  params_t P2;
  b2nd_context_t *ctx2 = make_ctx(&P2, 2, vshape, vchunks, vblocks, 0, NULL, NULL, 0);
  b2nd_array_t *c = NULL, *s = NULL;
  RC(b2nd_copy(ctx2, v, &c));
  if (c) {
    print_fields("copy of the view", c);
    check_items("copy of the view", c, model, 28);
    b2nd_free(c);
  }
  int64_t start[2] = {1, 2}, stop[2] = {3, 6};
  RC(b2nd_get_slice(ctx2, &s, v, start, stop));
  if (s) {
    print_fields("get_slice of the view", s);
    int32_t want[8];
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 4; j++) want[i * 4 + j] = model[(i + 1) * 7 + j + 2];
    check_items("get_slice of the view", s, want, 8);
    b2nd_free(s);
  }
  RC(b2nd_free_ctx(ctx2));
  RC(b2nd_free(v));
  RC(b2nd_free(a));
  RC(b2nd_free_ctx(ctx));
}

/* Views of arrays in frames read their base's items and follow its writes. */
static void frame_bases(void) {
  for (int mode = 0; mode < 3; mode++) {
    const char *names[3] = {"contiguous in memory", "contiguous file", "sparse directory"};
    printf("view of an array %s\n", names[mode]);
    char path[128];
    snprintf(path, sizeof path, "%s/base%d.b2nd", tmpdir, mode);
    int64_t shape[3] = {6, 1, 5};
    int32_t chunks[3] = {4, 1, 2}, blocks[3] = {2, 1, 2};
    params_t P;
    b2nd_context_t *ctx =
        make_ctx(&P, 3, shape, chunks, blocks, mode < 2, mode == 0 ? NULL : path, NULL, 0);
    int32_t model[30];
    for (int i = 0; i < 30; i++) model[i] = i * i;
    b2nd_array_t *a = NULL, *v = NULL;
    RC(b2nd_from_cbuffer(ctx, &a, model, sizeof model));
    RC(b2nd_squeeze(a, &v));
    print_fields("squeeze", v);
    check_items("squeeze", v, model, 30);
    int32_t col[6] = {-9, -8, -7, -6, -5, -4};
    int64_t st[3] = {0, 0, 3}, sp[3] = {6, 1, 4}, sh[3] = {6, 1, 1};
    RC(b2nd_set_slice_cbuffer(col, sh, sizeof col, st, sp, a));
    for (int i = 0; i < 6; i++) model[i * 5 + 3] = col[i];
    check_items("squeeze after a base write", v, model, 30);
    if (mode == 1) {
      RC(b2nd_free(a));
      RC(b2nd_free(v));
    } else {
      RC(b2nd_free(v));
      RC(b2nd_free(a));
    }
    RC(b2nd_free_ctx(ctx));
  }
}

static void errors(void) {
  params_t P;
  printf("errors\n");
  int64_t shape[3] = {1, 5, 1};
  int32_t chunks[3] = {1, 2, 1}, blocks[3] = {1, 2, 1};
  b2nd_context_t *ctx = make_ctx(&P, 3, shape, chunks, blocks, 0, NULL, NULL, 0);
  int32_t model[5] = {1, 2, 3, 4, 5};
  b2nd_array_t *a = NULL, *v = NULL;
  RC(b2nd_from_cbuffer(ctx, &a, model, sizeof model));
  bool bad[3] = {false, true, false};
  printf("  squeeze_index of an extent-5 dimension -> %d\n", b2nd_squeeze_index(a, &v, bad));
  bool too_many[4] = {false, false, false, false};
  printf("  expand_dims with 4 old dimensions of 3 -> %d\n",
         b2nd_expand_dims(a, &v, too_many, 4));
  printf("  squeeze into NULL -> %d\n", b2nd_squeeze(a, NULL));
  /* All dimensions of extent 1 gone: a 0-d view of a 1-item array. */
  int64_t one[2] = {1, 1};
  int32_t ones[2] = {1, 1};
  params_t P1;
  b2nd_context_t *ctx1 = make_ctx(&P1, 2, one, ones, ones, 0, NULL, NULL, 0);
  b2nd_array_t *s = NULL, *z = NULL;
  int32_t item = 4242;
  RC(b2nd_from_cbuffer(ctx1, &s, &item, 4));
  RC(b2nd_squeeze(s, &z));
  if (z) {
    print_fields("0-d view", z);
    check_items("0-d view", z, &item, 1);
    b2nd_free(z);
  }
  b2nd_free(s);
  b2nd_free_ctx(ctx1);
  /* An array with a metalayer of its own cannot be viewed. */
  blosc2_metalayer meta = {.name = "other", .content = (uint8_t *)"x", .content_len = 1};
  params_t PM;
  b2nd_context_t *ctxm = make_ctx(&PM, 3, shape, chunks, blocks, 0, NULL, &meta, 1);
  b2nd_array_t *m = NULL;
  RC(b2nd_from_cbuffer(ctxm, &m, model, sizeof model));
  printf("  squeeze with another metalayer -> %d\n", b2nd_squeeze(m, &v));
  bool ax[4] = {true, false, false, false};
  printf("  expand_dims with another metalayer -> %d\n", b2nd_expand_dims(m, &v, ax, 4));
  b2nd_free(m);
  b2nd_free_ctx(ctxm);
  b2nd_free(a);
  b2nd_free_ctx(ctx);
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0); /* a crash keeps what came before */
  blosc2_init();
  strcpy(tmpdir, "/tmp/b2nd_views.XXXXXX");
  if (mkdtemp(tmpdir) == NULL) return 2;
  shared_writes(0);
  shared_writes(1);
  view_as_array();
  frame_bases();
  errors();
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
  if (system(cmd) != 0) printf("could not remove %s\n", tmpdir);
  blosc2_destroy();
  printf("%d checks, %d failures\n", checks, failures);
  return failures != 0;
}
