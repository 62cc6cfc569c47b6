/* b2nd arrays opened from a super-chunk that carries only the b2nd metalayer, side by side with
 * c-blosc2 3.3.5 (rblosc2 issue 31):
 * - a 1-D geometry of 1,073,741,952 four-byte items in one chunk (128-item blocks): a chunk of
 *   over 4 GiB, which no Blosc chunk holds. b2nd_from_schunk takes it (every product fits its
 *   field); slice and selection reads and writes fail, serializing works; b2nd_zeros /
 *   b2nd_uninit of the same geometry fail with BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED;
 * - a chunk of 2^32 items (65,536 x 65,536): refused by b2nd_from_schunk (b2nd_array_t counts
 *   a chunk's items in an int32);
 * - an ordinary geometry whose chunks are missing: opens; reading it fails.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <b2nd.h>
#include <blosc2.h>
#include "check.h"

/* A fresh in-memory super-chunk of 4-byte items holding nothing but a b2nd metalayer for the
 * given geometry, handed to b2nd_from_schunk; the super-chunk is freed when that fails. */
static int open_meta_only(int8_t ndim, const int64_t *shape, const int32_t *chunkshape,
                          const int32_t *blockshape, b2nd_array_t **array) {
  uint8_t *meta = NULL;
  int32_t meta_len = b2nd_serialize_meta(ndim, shape, chunkshape, blockshape, "<i4", 0, &meta);
  if (meta_len < 0) return meta_len;
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = 4;
  blosc2_storage storage = BLOSC2_STORAGE_DEFAULTS;
  storage.cparams = &cparams;
  blosc2_schunk *sc = blosc2_schunk_new(&storage);
  if (sc == NULL) {
    free(meta);
    return -999;
  }
  int rc = blosc2_meta_add(sc, "b2nd", meta, meta_len);
  free(meta);
  if (rc >= 0) rc = b2nd_from_schunk(sc, array);
  if (rc < 0) blosc2_schunk_free(sc);
  return rc;
}

static void huge_chunk(void) {
  printf("huge chunk:\n");
  const int64_t items = 1073741952;
  int64_t shape[1] = {items};
  int32_t chunkshape[1] = {(int32_t)items};
  int32_t blockshape[1] = {128};
  b2nd_array_t *a = NULL;
  int rc = open_meta_only(1, shape, chunkshape, blockshape, &a);
  printf("  from_schunk -> %d\n", rc);
  CHECK(rc == 0 && a != NULL, "a metalayer with a 4 GiB chunk opens (rc %d)", rc);
  if (rc == 0) {
    printf("  nitems=%lld chunknitems=%lld extchunknitems=%lld blocknitems=%lld nchunks=%lld\n",
           (long long)a->nitems, (long long)a->chunknitems, (long long)a->extchunknitems,
           (long long)a->blocknitems, (long long)a->sc->nchunks);
    CHECK(a->extchunknitems == items && a->blocknitems == 128, "geometry fields");

    int64_t start[1] = {5}, stop[1] = {7}, bshape[1] = {2};
    int32_t buf[2] = {11, 12};
    rc = b2nd_get_slice_cbuffer(a, start, stop, buf, bshape, sizeof(buf));
    printf("  get_slice_cbuffer -> %d\n", rc);
    CHECK(rc < 0, "a slice of a chunk no buffer can hold is refused");
    rc = b2nd_set_slice_cbuffer(buf, bshape, sizeof(buf), start, stop, a);
    printf("  set_slice_cbuffer -> %d\n", rc);
    CHECK(rc < 0, "writing into such a chunk is refused");
    int64_t picks[2] = {3, 9};
    int64_t *selection[1] = {picks};
    int64_t selsize[1] = {2};
    rc = b2nd_get_orthogonal_selection(a, selection, selsize, buf, bshape, sizeof(buf));
    printf("  get_orthogonal_selection -> %d\n", rc);
    CHECK(rc < 0, "a selection in such a chunk is refused");

    uint8_t *cframe = NULL;
    int64_t cframe_len = 0;
    bool needs_free = false;
    rc = b2nd_to_cframe(a, &cframe, &cframe_len, &needs_free);
    printf("  to_cframe -> %d (len>0: %d)\n", rc, cframe_len > 0);
    CHECK(rc == 0 && cframe_len > 0, "the array still serializes");
    if (rc == 0) {
      b2nd_array_t *b = NULL;
      rc = b2nd_from_cframe(cframe, cframe_len, true, &b);
      printf("  from_cframe of it -> %d\n", rc);
      CHECK(rc == 0, "and reopens from its frame");
      if (rc == 0) {
        CHECK(b->shape[0] == items && b->chunkshape[0] == items, "reopened geometry");
        b2nd_free(b);
      }
      if (needs_free) free(cframe);
    }
    rc = b2nd_free(a);
    CHECK(rc == 0, "free (rc %d)", rc);
  }

  /* Making such an array is refused for the buffer size. */
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = 4;
  blosc2_storage storage = BLOSC2_STORAGE_DEFAULTS;
  storage.cparams = &cparams;
  b2nd_context_t *ctx = b2nd_create_ctx(&storage, 1, shape, chunkshape, blockshape, "<i4", 0,
                                        NULL, 0);
  printf("  create_ctx -> %s\n", ctx != NULL ? "ctx" : "NULL");
  CHECK(ctx != NULL, "the context is made");
  if (ctx != NULL) {
    a = NULL;
    rc = b2nd_zeros(ctx, &a);
    printf("  zeros -> %d\n", rc);
    CHECK(rc == BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED && a == NULL, "zeros refused (rc %d)", rc);
    rc = b2nd_uninit(ctx, &a);
    printf("  uninit -> %d\n", rc);
    CHECK(rc == BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED && a == NULL, "uninit refused (rc %d)", rc);
    b2nd_free_ctx(ctx);
  }
}

static void chunk_items_over_int32(void) {
  printf("2^32-item chunk:\n");
  int64_t shape[2] = {65536, 65536};
  int32_t chunkshape[2] = {65536, 65536};
  int32_t blockshape[2] = {16, 16};
  b2nd_array_t *a = NULL;
  int rc = open_meta_only(2, shape, chunkshape, blockshape, &a);
  printf("  from_schunk -> %d\n", rc);
  CHECK(rc < 0 && a == NULL, "a chunk of 2^32 items is refused (rc %d)", rc);
}

static void missing_chunks(void) {
  printf("missing chunks:\n");
  int64_t shape[2] = {40, 9};
  int32_t chunkshape[2] = {16, 9};
  int32_t blockshape[2] = {4, 3};
  b2nd_array_t *a = NULL;
  int rc = open_meta_only(2, shape, chunkshape, blockshape, &a);
  printf("  from_schunk -> %d\n", rc);
  CHECK(rc == 0, "a metalayer without its chunks opens (rc %d)", rc);
  if (rc == 0) {
    printf("  nchunks=%lld shape=%lldx%lld\n", (long long)a->sc->nchunks,
           (long long)a->shape[0], (long long)a->shape[1]);
    int64_t start[2] = {0, 0}, stop[2] = {2, 2}, bshape[2] = {2, 2};
    int32_t buf[4] = {0};
    rc = b2nd_get_slice_cbuffer(a, start, stop, buf, bshape, sizeof(buf));
    /* The codes differ (c-blosc2: BLOSC2_ERROR_FAILURE); both refuse. */
    printf("  get_slice_cbuffer fails: %d\n", rc < 0);
    CHECK(rc < 0, "reading a missing chunk fails");
    b2nd_free(a);
  }
}

int main(void) {
  blosc2_init();
  huge_chunk();
  chunk_items_over_int32();
  missing_chunks();
  blosc2_destroy();
  printf("checks: %d, failures: %d\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
