/* b2nd edge cases side by side with c-blosc2 3.3.5 (rblosc2 issue 22, items 15-19):
 * - a blockshape larger than the chunkshape in some dimension (zeros, from_cbuffer, slices,
 *   copy, concatenate, resize);
 * - the padding b2nd_full / b2nd_zeros wrote, exposed by growing the array (with and without a
 *   shrink in the same resize);
 * - b2nd_get_slice with a stop past the shape (c-blosc2's own squeeze tests rely on it: the
 *   part outside the array reads as zeros; the cbuffer calls past the first dimension fail on
 *   both);
 * - b2nd_create_ctx with a block of 2^32 items (c-blosc2: NULL);
 * - the leading fields of the b2nd context (ndim, shape, chunkshape, blockshape, dtype,
 *   dtype_format, b2_storage), which c-blosc2's tests read through its private header and which
 *   b2nd_get_slice / b2nd_copy rewrite. The struct is declared here as c-blosc2 declares it in
 *   blosc/context.h; b2nd.h keeps it opaque.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <b2nd.h>
#include <blosc2.h>
#include "check.h"
#include "helpers.h"
#include "fnv.h"

/* c-blosc2 3.3.5's struct b2nd_context_s (blosc/context.h). */
typedef struct {
  int8_t ndim;
  int64_t shape[B2ND_MAX_DIM];
  int32_t chunkshape[B2ND_MAX_DIM];
  int32_t blockshape[B2ND_MAX_DIM];
  char *dtype;
  int8_t dtype_format;
  blosc2_storage *b2_storage;
  blosc2_metalayer metalayers[B2ND_MAX_METALAYERS];
  int32_t nmetalayers;
} ctx_fields_t;

#define FIELDS(ctx) ((ctx_fields_t *)(void *)(ctx))

static void print_ctx(const char *label, b2nd_context_t *ctx) {
  ctx_fields_t *f = FIELDS(ctx);
  printf(" ctx %s: ndim=%d shape/chunk/block:", label, f->ndim);
  for (int i = 0; i < f->ndim; i++)
    printf(" %lld/%d/%d", (long long)f->shape[i], f->chunkshape[i], f->blockshape[i]);
  printf(" dtype=%s format=%d", f->dtype ? f->dtype : "(null)", f->dtype_format);
  if (f->b2_storage != NULL) {
    blosc2_storage *s = f->b2_storage;
    printf(" contiguous=%d urlpath=%s", s->contiguous, s->urlpath ? s->urlpath : "(null)");
    if (s->cparams != NULL)
      printf(" typesize=%d blocksize=%d clevel=%d compcode=%d", s->cparams->typesize,
             s->cparams->blocksize, s->cparams->clevel, s->cparams->compcode);
  }
  printf(" nmetalayers=%d", f->nmetalayers);
  for (int i = 0; i < f->nmetalayers && i < B2ND_MAX_METALAYERS; i++)
    printf(" %s(%d)", f->metalayers[i].name, f->metalayers[i].content_len);
  printf("\n");
}

static void print_array(const char *label, const b2nd_array_t *a) {
  printf(" %s: ndim=%d nitems=%lld extnitems=%lld chunknitems=%d blocknitems=%d "
         "extchunknitems=%lld nchunks=%lld chunksize=%d\n  shape/chunk/ext/block/extchunk:",
         label, a->ndim, (long long)a->nitems, (long long)a->extnitems, a->chunknitems,
         a->blocknitems, (long long)a->extchunknitems, (long long)a->sc->nchunks,
         a->sc->chunksize);
  for (int i = 0; i < a->ndim; i++)
    printf(" %lld/%d/%lld/%d/%lld", (long long)a->shape[i], a->chunkshape[i],
           (long long)a->extshape[i], a->blockshape[i], (long long)a->extchunkshape[i]);
  printf("\n");
}

/* The items of an int32 array, with their checksum; returns a malloc'd copy. */
static int32_t *items(const char *label, const b2nd_array_t *a) {
  int64_t n = a->nitems;
  int32_t *buf = calloc(n + 1, 4);
  int rc = b2nd_to_cbuffer(a, buf, n * 4);
  printf("  %s: to_cbuffer -> %d checksum %016llx\n", label, rc,
         (unsigned long long)fnv(buf, n * 4));
  CHECK(rc == 0, "%s: to_cbuffer %d", label, rc);
  return buf;
}

/* The decompressed chunks of an array, one checksum each. */
static void chunk_sums(const char *label, const b2nd_array_t *a) {
  int32_t nbytes = a->sc->chunksize;
  uint8_t *buf = malloc(nbytes > 0 ? nbytes : 1);
  printf("  %s chunks:", label);
  for (int64_t i = 0; i < a->sc->nchunks; i++) {
    int rc = blosc2_schunk_decompress_chunk(a->sc, i, buf, nbytes);
    printf(" %d:%016llx", rc, rc > 0 ? (unsigned long long)fnv(buf, rc) : 0ULL);
  }
  printf("\n");
  free(buf);
}

static b2nd_context_t *make_ctx(params_t *p, int typesize, int ndim, const int64_t *shape,
                                const int32_t *chunks, const int32_t *blocks) {
  return b2nd_test_ctx(p, typesize, ndim, shape, chunks, blocks, 0, NULL, NULL, NULL, 0);
}

/* Item 15: blocks larger than chunks. */
static void block_over_chunk(void) {
  printf("block larger than chunk\n");
  params_t P, P2;
  int64_t shape[1] = {10};
  int32_t chunks[1] = {4}, blocks[1] = {5};
  b2nd_context_t *ctx = make_ctx(&P, 4, 1, shape, chunks, blocks);
  b2nd_array_t *z = NULL, *a = NULL, *c = NULL, *cat = NULL;
  int rc = b2nd_zeros(ctx, &z);
  printf("  zeros -> %d\n", rc);
  CHECK(rc == 0, "zeros %d", rc);
  if (rc == 0) {
    print_array("zeros", z);
    free(items("zeros", z));
    chunk_sums("zeros", z);
  }
  int32_t model[10];
  for (int i = 0; i < 10; i++) model[i] = i * 11 + 3;
  rc = b2nd_from_cbuffer(ctx, &a, model, sizeof model);
  printf("  from_cbuffer -> %d\n", rc);
  CHECK(rc == 0, "from_cbuffer %d", rc);
  if (rc == 0) {
    print_array("from_cbuffer", a);
    free(items("from_cbuffer", a));
    chunk_sums("from_cbuffer", a);
    int32_t part[5] = {0};
    int64_t st[1] = {3}, sp[1] = {8}, sh[1] = {5};
    rc = b2nd_get_slice_cbuffer(a, st, sp, part, sh, sizeof part);
    printf("  get_slice_cbuffer [3,8) -> %d: %d %d %d %d %d\n", rc, part[0], part[1], part[2],
           part[3], part[4]);
    int32_t patch[3] = {-1, -2, -3};
    int64_t pst[1] = {2}, psp[1] = {5}, psh[1] = {3};
    rc = b2nd_set_slice_cbuffer(patch, psh, sizeof patch, pst, psp, a);
    printf("  set_slice_cbuffer [2,5) -> %d\n", rc);
    free(items("after set_slice", a));
    chunk_sums("after set_slice", a);
    /* A copy into blocks of 3 (<= chunk) and one into blocks of 6 (> chunk). */
    int32_t blocks3[1] = {3}, blocks6[1] = {6};
    b2nd_context_t *ctx3 = make_ctx(&P2, 4, 1, shape, chunks, blocks3);
    rc = b2nd_copy(ctx3, a, &c);
    printf("  copy to blocks 3 -> %d\n", rc);
    if (rc == 0) {
      free(items("copy 3", c));
      b2nd_free(c);
      c = NULL;
    }
    b2nd_free_ctx(ctx3);
    ctx3 = make_ctx(&P2, 4, 1, shape, chunks, blocks6);
    rc = b2nd_copy(ctx3, a, &c);
    printf("  copy to blocks 6 -> %d\n", rc);
    if (rc == 0) {
      print_array("copy 6", c);
      free(items("copy 6", c));
      chunk_sums("copy 6", c);
    }
    if (c != NULL) {
      rc = b2nd_concatenate(ctx3, a, c, 0, true, &cat);
      printf("  concatenate -> %d\n", rc);
      if (rc == 0) {
        print_array("concatenate", cat);
        free(items("concatenate", cat));
        b2nd_free(cat);
      }
      b2nd_free(c);
    }
    b2nd_free_ctx(ctx3);
    int64_t grown[1] = {13};
    rc = b2nd_resize(a, grown, NULL);
    printf("  resize to 13 -> %d\n", rc);
    if (rc == 0) {
      print_array("resized", a);
      free(items("resized", a));
    }
    int64_t shrunk[1] = {6};
    rc = b2nd_resize(a, shrunk, NULL);
    printf("  resize to 6 -> %d\n", rc);
    if (rc == 0) free(items("shrunk", a));
    b2nd_free(a);
  }
  if (z != NULL) b2nd_free(z);
  b2nd_free_ctx(ctx);

  /* 2-d: blocks over chunks in one dimension only. */
  int64_t shape2[2] = {7, 9};
  int32_t chunks2[2] = {3, 4}, blocks2[2] = {2, 6};
  ctx = make_ctx(&P, 4, 2, shape2, chunks2, blocks2);
  int32_t model2[63];
  for (int i = 0; i < 63; i++) model2[i] = 1000 - i;
  rc = b2nd_from_cbuffer(ctx, &a, model2, sizeof model2);
  printf("  2-d from_cbuffer -> %d\n", rc);
  if (rc == 0) {
    print_array("2-d", a);
    int32_t *got = items("2-d", a);
    CHECK(memcmp(got, model2, sizeof model2) == 0, "2-d items");
    free(got);
    chunk_sums("2-d", a);
    b2nd_free(a);
  }
  b2nd_free_ctx(ctx);
}

/* Item 16: the padding full/zeros wrote, exposed by growing. */
static void grow_into_padding(int shrink_too) {
  printf("full(1) grown into its padding, shrink in the same resize: %d\n", shrink_too);
  params_t P;
  int64_t shape[2] = {50, 50};
  int32_t chunks[2] = {25, 13}, blocks[2] = {5, 5};
  b2nd_context_t *ctx = make_ctx(&P, 4, 2, shape, chunks, blocks);
  b2nd_array_t *a = NULL;
  int32_t one = 1;
  int rc = b2nd_full(ctx, &a, &one);
  printf("  full -> %d\n", rc);
  int64_t newshape[2] = {shrink_too ? 49 : 50, 51};
  rc = b2nd_resize(a, newshape, NULL);
  printf("  resize -> %d\n", rc);
  int32_t *got = items("resized", a);
  int ones = 0, zeros = 0;
  printf("  column 50:");
  for (int r = 0; r < newshape[0]; r++) {
    int32_t v = got[r * 51 + 50];
    ones += v == 1;
    zeros += v == 0;
    printf("%d", v);
  }
  printf("\n  ones=%d zeros=%d\n", ones, zeros);
  free(got);
  b2nd_free(a);

  /* zeros then a write inside the last chunk column: the padding stays zero. */
  rc = b2nd_zeros(ctx, &a);
  int32_t patch[4] = {5, 6, 7, 8};
  int64_t st[2] = {30, 47}, sp[2] = {32, 49}, sh[2] = {2, 2};
  rc = b2nd_set_slice_cbuffer(patch, sh, sizeof patch, st, sp, a);
  printf("  zeros + set_slice -> %d\n", rc);
  rc = b2nd_resize(a, newshape, NULL);
  printf("  resize -> %d\n", rc);
  free(items("zeros resized", a));
  b2nd_free(a);

  /* full(1) and a write that covers chunk row 1 of the last chunk column partly. */
  rc = b2nd_full(ctx, &a, &one);
  rc = b2nd_set_slice_cbuffer(patch, sh, sizeof patch, st, sp, a);
  printf("  full + set_slice -> %d\n", rc);
  rc = b2nd_resize(a, newshape, NULL);
  printf("  resize -> %d\n", rc);
  got = items("full + set_slice resized", a);
  printf("  column 50:");
  for (int r = 0; r < newshape[0]; r++) printf("%d", got[r * 51 + 50]);
  printf("\n");
  free(got);
  b2nd_free(a);
  b2nd_free_ctx(ctx);
}

/* Item 17: get_slice with a stop past the shape. */
static void slice_past_shape(void) {
  printf("get_slice with a stop past the shape\n");
  params_t P, P2;
  int64_t shape[4] = {10, 7, 6, 4};
  int32_t chunks[4] = {5, 4, 3, 3}, blocks[4] = {2, 2, 2, 2};
  b2nd_context_t *ctx = make_ctx(&P, 4, 4, shape, chunks, blocks);
  int32_t *model = malloc(10 * 7 * 6 * 4 * 4);
  for (int i = 0; i < 10 * 7 * 6 * 4; i++) model[i] = i + 1;
  b2nd_array_t *a = NULL, *s = NULL;
  int rc = b2nd_from_cbuffer(ctx, &a, model, 10 * 7 * 6 * 4 * 4);
  printf("  from_cbuffer -> %d\n", rc);
  int32_t chunks2[4] = {2, 3, 4, 2}, blocks2[4] = {1, 2, 2, 1};
  b2nd_context_t *ctx2 = make_ctx(&P2, 4, 4, shape, chunks2, blocks2);
  int64_t start[4] = {1, 2, 3, 1}, stop[4] = {5, 5, 10, 5};
  rc = b2nd_get_slice(ctx2, &s, a, start, stop);
  printf("  get_slice -> %d\n", rc);
  CHECK(rc == 0, "get_slice %d", rc);
  print_ctx("after get_slice", ctx2);
  if (rc == 0) {
    print_array("slice", s);
    int32_t *got = items("slice", s);
    /* Inside the array the items are the model's; outside, print what is there. */
    int inside_ok = 1, outside_zero = 1;
    int64_t n = 0;
    for (int64_t i = 0; i < 4; i++)
      for (int64_t j = 0; j < 3; j++)
        for (int64_t k = 0; k < 7; k++)
          for (int64_t l = 0; l < 4; l++, n++) {
            int64_t I = i + 1, J = j + 2, K = k + 3, L = l + 1;
            if (K < 6 && L < 4)
              inside_ok &= got[n] == model[((I * 7 + J) * 6 + K) * 4 + L];
            else
              outside_zero &= got[n] == 0;
          }
    printf("  inside same=%d outside zero=%d\n", inside_ok, outside_zero);
    CHECK(inside_ok, "items inside the array");
    free(got);
    bool idx[4] = {false, false, false, false};
    b2nd_array_t *v = NULL;
    rc = b2nd_squeeze_index(s, &v, idx);
    printf("  squeeze_index -> %d\n", rc);
    if (rc == 0) b2nd_free(v);
    b2nd_free(s);
  }
  /* Stop past the shape in the first dimension only, and the cbuffer calls. */
  int64_t start1[4] = {8, 0, 0, 0}, stop1[4] = {12, 7, 6, 4};
  rc = b2nd_get_slice(ctx2, &s, a, start1, stop1);
  printf("  get_slice past dim 0 -> %d\n", rc);
  if (rc == 0) {
    free(items("slice past dim 0", s));
    b2nd_free(s);
  }
  int32_t buf[4 * 7 * 6 * 4];
  int64_t bshape[4] = {4, 7, 6, 4};
  rc = b2nd_get_slice_cbuffer(a, start1, stop1, buf, bshape, sizeof buf);
  printf("  get_slice_cbuffer past dim 0 -> %d\n", rc);
  /* (A stop past another dimension: c-blosc2 3.3.5 returns 0 for the cbuffer calls, ours
   * fails; see the README.) */
  free(model);
  b2nd_free(a);
  b2nd_free_ctx(ctx);
  b2nd_free_ctx(ctx2);
}

/* Item 18: a block of 2^32 items. */
static void huge_block(void) {
  printf("create_ctx with a huge block\n");
  params_t P;
  int64_t shape[2] = {65536, 65536};
  int32_t chunks[2] = {65536, 65536}, blocks[2] = {65536, 65536};
  b2nd_context_t *ctx = make_ctx(&P, 1, 2, shape, chunks, blocks);
  printf("  65536x65536 block: ctx %s\n", ctx ? "non-NULL" : "NULL");
  if (ctx != NULL) {
    b2nd_array_t *a = NULL;
    int rc = b2nd_zeros(ctx, &a);
    printf("  zeros -> %d\n", rc);
    if (rc == 0) b2nd_free(a);
    b2nd_free_ctx(ctx);
  }
  int32_t chunks2[2] = {65536, 32768}, blocks2[2] = {65536, 32768};
  ctx = make_ctx(&P, 1, 2, shape, chunks2, blocks2);
  printf("  65536x32768 block: ctx %s\n", ctx ? "non-NULL" : "NULL");
  if (ctx != NULL) {
    print_ctx("65536x32768", ctx);
    b2nd_array_t *a = NULL;
    int rc = b2nd_zeros(ctx, &a);
    printf("  zeros -> %d\n", rc);
    if (rc == 0) b2nd_free(a);
    b2nd_free_ctx(ctx);
  }
}

/* Item 19: the context's fields. */
static void ctx_fields(void) {
  printf("context fields\n");
  params_t P;
  int64_t shape[3] = {6, 5, 4};
  int32_t chunks[3] = {3, 5, 2}, blocks[3] = {2, 2, 2};
  uint8_t content[3] = {1, 2, 3};
  blosc2_metalayer metas[2] = {{.name = "first", .content = content, .content_len = 3},
                               {.name = "second", .content = content, .content_len = 2}};
  P.cp = (blosc2_cparams)BLOSC2_CPARAMS_DEFAULTS;
  P.cp.typesize = 4;
  P.cp.clevel = 7;
  P.dp = (blosc2_dparams)BLOSC2_DPARAMS_DEFAULTS;
  P.st = (blosc2_storage){.contiguous = true, .cparams = &P.cp, .dparams = &P.dp};
  b2nd_context_t *ctx =
      b2nd_create_ctx(&P.st, 3, shape, chunks, blocks, "<i4", 0, metas, 2);
  print_ctx("created", ctx);
  ctx_fields_t *f = FIELDS(ctx);
  CHECK(f->ndim == 3 && f->shape[2] == 4 && f->blockshape[1] == 2, "fields");
  CHECK(f->b2_storage != &P.st && f->b2_storage->cparams != &P.cp, "own storage copy");
  b2nd_context_t *ctx_default = b2nd_create_ctx(NULL, 2, shape, chunks, blocks, NULL, 3, NULL, 0);
  print_ctx("default storage", ctx_default);
  b2nd_free_ctx(ctx_default);

  /* Build as c-blosc2's tests do: the buffer size from ctx->ndim and ctx->shape. */
  size_t n = 4;
  for (int i = 0; i < f->ndim; i++) n *= (size_t)f->shape[i];
  int32_t *model = malloc(n);
  for (size_t i = 0; i < n / 4; i++) model[i] = (int32_t)(i * 7);
  b2nd_array_t *a = NULL, *s = NULL, *c = NULL;
  int rc = b2nd_from_cbuffer(ctx, &a, model, (int64_t)n);
  printf("  from_cbuffer(%zu bytes) -> %d\n", n, rc);
  print_ctx("after from_cbuffer", ctx);
  int64_t start[3] = {1, 0, 1}, stop[3] = {3, 4, 3};
  rc = b2nd_get_slice(ctx, &s, a, start, stop);
  printf("  get_slice -> %d\n", rc);
  print_ctx("after get_slice", ctx);
  if (rc == 0) {
    print_array("slice", s);
    b2nd_free(s);
  }
  /* A test changes the context's chunkshape between arrays (c-blosc2 sized the block from
   * the blockshape given to b2nd_create_ctx, so that stays). */
  f->chunkshape[0] = 2;
  rc = b2nd_copy(ctx, a, &c);
  printf("  copy -> %d\n", rc);
  print_ctx("after copy", ctx);
  if (rc == 0) {
    print_array("copy", c);
    free(items("copy", c));
    b2nd_free(c);
  }
  free(model);
  b2nd_free(a);
  b2nd_free_ctx(ctx);
}

int main(void) {
  blosc2_init();
  block_over_chunk();
  grow_into_padding(0);
  grow_into_padding(1);
  slice_past_shape();
  huge_block();
  ctx_fields();
  blosc2_destroy();
  printf("checks: %d, failures: %d\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
