/* b2nd functions that need no array: metalayer (de)serialization, n-d buffer copies, contexts.
 *
 * Built against rblosc2 and against c-blosc2 3.3.5; run.sh diffs the two outputs. Every
 * serialized metalayer is printed in hex, every copy's destination as a checksum, every return
 * code as is; values c-blosc2 is known to give are also checked here. Exit status 0 when every
 * check passed.
 */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <b2nd.h>
#include <blosc2.h>
#include "check.h"
#include "fnv.h"

static void print_hex(const char *label, const uint8_t *p, int n) {
  printf("%s (%d):", label, n);
  for (int i = 0; i < n; i++) printf("%02x", p[i]);
  printf("\n");
}

/* Serializes, prints, deserializes and checks the round trip. */
static void meta_case(int8_t ndim, const int64_t *shape, const int32_t *chunkshape,
                      const int32_t *blockshape, const char *dtype, int8_t dtype_format) {
  uint8_t *smeta = NULL;
  int len = b2nd_serialize_meta(ndim, shape, chunkshape, blockshape, dtype, dtype_format, &smeta);
  printf("serialize ndim=%d dtype=%s format=%d -> %d\n", ndim, dtype ? dtype : "(null)",
         dtype_format, len);
  CHECK(len > 0, "len %d", len);
  if (len <= 0) return;
  print_hex(" smeta", smeta, len);

  int8_t ndim2 = -1, fmt2 = -1;
  int64_t shape2[B2ND_MAX_DIM];
  int32_t chunk2[B2ND_MAX_DIM], block2[B2ND_MAX_DIM];
  char *dtype2 = NULL;
  int rc = b2nd_deserialize_meta(smeta, len, &ndim2, shape2, chunk2, block2, &dtype2, &fmt2);
  printf(" deserialize -> %d ndim=%d dtype=%s format=%d\n", rc, ndim2, dtype2 ? dtype2 : "(null)",
         fmt2);
  CHECK(rc == len, "rc %d len %d", rc, len);
  CHECK(ndim2 == ndim, "ndim %d", ndim2);
  for (int i = 0; i < ndim; i++) {
    CHECK(shape2[i] == shape[i] && chunk2[i] == chunkshape[i] && block2[i] == blockshape[i],
          "dim %d", i);
  }
  CHECK(strcmp(dtype2, dtype ? dtype : "|u1") == 0, "dtype %s", dtype2);
  free(dtype2);

  /* Without a dtype destination, the parse stops before the dtype entry. */
  rc = b2nd_deserialize_meta(smeta, len, &ndim2, shape2, chunk2, block2, NULL, &fmt2);
  printf(" deserialize without dtype -> %d\n", rc);
  CHECK(rc == 6 + 19 * ndim, "rc %d", rc);

  /* Every truncation is a clean error or a dtype-less parse. */
  int ok = 0, bad = 0;
  for (int cut = 1; cut < len; cut++) {
    dtype2 = NULL;
    rc = b2nd_deserialize_meta(smeta, cut, &ndim2, shape2, chunk2, block2, &dtype2, &fmt2);
    if (rc >= 0) ok++;
    else bad++;
    free(dtype2);
  }
  printf(" truncations: %d parsed, %d errors\n", ok, bad);
  free(smeta);
}

static void copy_case(int8_t ndim, int itemsize, const int64_t *src_shape, const int64_t *start,
                      const int64_t *stop, const int64_t *dst_shape, const int64_t *dst_start) {
  int64_t nsrc = 1, ndst = 1;
  for (int i = 0; i < ndim; i++) {
    nsrc *= src_shape[i];
    ndst *= dst_shape[i];
  }
  uint8_t *src = malloc(nsrc * itemsize);
  uint8_t *dst = calloc(ndst, itemsize);
  uint8_t *dst1 = calloc(ndst, itemsize);
  for (int64_t i = 0; i < nsrc * itemsize; i++) src[i] = (uint8_t)(i * 7 + i / 251);
  int rc = b2nd_copy_buffer2(ndim, itemsize, src, src_shape, start, stop, dst, dst_shape,
                             dst_start);
  printf("copy_buffer2 ndim=%d itemsize=%d -> %d checksum %016llx\n", ndim, itemsize, rc,
         (unsigned long long)fnv(dst, ndst * itemsize));
  CHECK(rc == 0, "rc %d", rc);
  /* Check against a naive copy. */
  int64_t n = 1, idx[B2ND_MAX_DIM] = {0};
  for (int i = 0; i < ndim; i++) n *= stop[i] - start[i];
  for (int64_t k = 0; k < n; k++) {
    int64_t rem = k, soff = 0, doff = 0, sst = 1, dstr = 1;
    for (int i = ndim - 1; i >= 0; i--) {
      int64_t ext = stop[i] - start[i];
      idx[i] = rem % ext;
      rem /= ext;
    }
    for (int i = ndim - 1; i >= 0; i--) {
      soff += (start[i] + idx[i]) * sst;
      doff += (dst_start[i] + idx[i]) * dstr;
      sst *= src_shape[i];
      dstr *= dst_shape[i];
    }
    memcpy(dst1 + doff * itemsize, src + soff * itemsize, itemsize);
  }
  CHECK(memcmp(dst, dst1, ndst * itemsize) == 0, "copy differs from the naive copy");
  if (itemsize <= 255) {
    memset(dst, 0, ndst * itemsize);
    rc = b2nd_copy_buffer(ndim, (uint8_t)itemsize, src, src_shape, start, stop, dst, dst_shape,
                          dst_start);
    printf("copy_buffer -> %d same=%d\n", rc, memcmp(dst, dst1, ndst * itemsize) == 0);
    CHECK(rc == 0 && memcmp(dst, dst1, ndst * itemsize) == 0, "copy_buffer");
  }
  free(src);
  free(dst);
  free(dst1);
}

int main(void) {
  blosc2_init();

  /* Metalayers of 0 to 8 dims, 12 and 16 dims, several dtypes and formats. */
  int64_t shape[B2ND_MAX_DIM];
  int32_t chunkshape[B2ND_MAX_DIM], blockshape[B2ND_MAX_DIM];
  for (int i = 0; i < B2ND_MAX_DIM; i++) {
    shape[i] = 3 + i * 5 + (i % 3) * 1000000007LL;
    chunkshape[i] = 2 + i;
    blockshape[i] = 1 + i / 2;
  }
  const char *dtypes[] = {NULL, "<f8", "|u1", "<i2", "<u4", "<c16",
                          "[('a', '<i4'), ('b', '<f8'), ('c', 'S3')]"};
  for (int8_t nd = 0; nd <= 8; nd++)
    meta_case(nd, shape, chunkshape, blockshape, dtypes[nd % 7], (int8_t)(nd % 2));
  meta_case(12, shape, chunkshape, blockshape, dtypes[6], 0);
  meta_case(16, shape, chunkshape, blockshape, "|S7", 3);

  /* Errors. */
  uint8_t *smeta = NULL;
  int rc = b2nd_serialize_meta(2, shape, chunkshape, blockshape, "<f8", -1, &smeta);
  printf("serialize dtype_format -1 -> %d\n", rc);
  CHECK(rc == BLOSC2_ERROR_FAILURE, "rc %d", rc);
  int8_t nd2, fmt2;
  int64_t s2[B2ND_MAX_DIM];
  int32_t c2[B2ND_MAX_DIM], b2[B2ND_MAX_DIM];
  char *dt2;
  uint8_t junk[40] = {0x97, 0, 17};
  rc = b2nd_deserialize_meta(junk, sizeof(junk), &nd2, s2, c2, b2, &dt2, &fmt2);
  printf("deserialize ndim 17 -> %d\n", rc);
  CHECK(rc == BLOSC2_ERROR_FAILURE, "rc %d", rc);
  junk[2] = 0x80;
  rc = b2nd_deserialize_meta(junk, sizeof(junk), &nd2, s2, c2, b2, &dt2, &fmt2);
  printf("deserialize ndim -128 -> %d\n", rc);
  CHECK(rc == BLOSC2_ERROR_FAILURE, "rc %d", rc);
  rc = b2nd_deserialize_meta(junk, 0, &nd2, s2, c2, b2, &dt2, &fmt2);
  printf("deserialize empty -> %d dtype=%s format=%d\n", rc, dt2 ? dt2 : "(null)", fmt2);
  CHECK(rc == BLOSC2_ERROR_FAILURE && dt2 == NULL && fmt2 == 0, "rc %d", rc);
  rc = b2nd_deserialize_meta(NULL, 10, &nd2, s2, c2, b2, &dt2, &fmt2);
  printf("deserialize NULL -> %d\n", rc);
  CHECK(rc == BLOSC2_ERROR_NULL_POINTER, "rc %d", rc);
  rc = b2nd_deserialize_meta(junk, 10, &nd2, NULL, c2, b2, &dt2, &fmt2);
  printf("deserialize NULL shape -> %d\n", rc);
  CHECK(rc == BLOSC2_ERROR_NULL_POINTER, "rc %d", rc);
  /* A caterva metalayer (no dtype entry). */
  uint8_t caterva[] = {0x95, 0, 1, 0x91, 0xd3, 0, 0, 0, 0, 0, 0, 0, 9,
                       0x91, 0xd2, 0, 0, 0, 4, 0x91, 0xd2, 0, 0, 0, 2};
  fmt2 = 5;
  rc = b2nd_deserialize_meta(caterva, sizeof(caterva), &nd2, s2, c2, b2, &dt2, &fmt2);
  printf("deserialize caterva -> %d ndim=%d shape=%lld chunk=%d block=%d dtype=%s format=%d\n",
         rc, nd2, (long long)s2[0], c2[0], b2[0], dt2 ? dt2 : "(null)", fmt2);
  CHECK(rc == (int)sizeof(caterva) && dt2 == NULL && s2[0] == 9, "rc %d", rc);

  /* Copies: 1-D to 8-D and 12-D, item sizes 1 to 300, regions at the edges. */
  const int itemsizes[] = {1, 2, 4, 8, 16, 3, 300};
  for (int8_t nd = 1; nd <= 12; nd++) {
    if (nd > 8 && nd != 12) continue;
    int64_t ss[B2ND_MAX_DIM], st[B2ND_MAX_DIM], sp[B2ND_MAX_DIM], ds[B2ND_MAX_DIM],
        dst_start[B2ND_MAX_DIM];
    for (int i = 0; i < nd; i++) {
      ss[i] = nd <= 4 ? 7 - i : (i % 2 ? 3 : 2);
      st[i] = i % 2;
      sp[i] = ss[i] - (i % 3 == 2);
      ds[i] = sp[i] - st[i] + 1 + (i % 2);
      dst_start[i] = (i % 2);
    }
    copy_case(nd, itemsizes[nd % 7], ss, st, sp, ds, dst_start);
  }
  /* An empty region copies nothing (a 0-d copy crashes c-blosc2: not tried here). */
  {
    uint8_t a[8] = {1, 2, 3, 4, 5, 6, 7, 8}, b[8] = {0};
    int64_t sh[1] = {8}, s0[1] = {3}, s1[1] = {3}, d0[1] = {0};
    rc = b2nd_copy_buffer2(1, 1, a, sh, s0, s1, b, sh, d0);
    printf("copy_buffer2 empty -> %d untouched=%d\n", rc, b[0] == 0);
    CHECK(rc == 0 && b[0] == 0, "rc %d", rc);
  }

  /* Contexts. */
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = 8;
  blosc2_storage storage = {.cparams = &cparams, .contiguous = true};
  blosc2_metalayer metas[2] = {{.name = "m1", .content = (uint8_t *)"abc", .content_len = 3},
                               {.name = "m2", .content = (uint8_t *)"z", .content_len = 1}};
  b2nd_context_t *ctx = b2nd_create_ctx(&storage, 3, shape, chunkshape, blockshape, "<f8", 0,
                                        metas, 2);
  printf("create_ctx -> %s\n", ctx ? "ctx" : "NULL");
  CHECK(ctx != NULL, "ctx");
  CHECK(cparams.blocksize == 0, "the caller's cparams stay untouched: %d", cparams.blocksize);
  rc = b2nd_free_ctx(ctx);
  printf("free_ctx -> %d\n", rc);
  CHECK(rc == 0, "rc %d", rc);
  ctx = b2nd_create_ctx(NULL, 0, NULL, NULL, NULL, NULL, 0, NULL, 0);
  printf("create_ctx NULL storage, 0-d -> %s\n", ctx ? "ctx" : "NULL");
  CHECK(ctx != NULL, "ctx");
  CHECK(b2nd_free_ctx(ctx) == 0, "free");

  blosc2_destroy();
  printf("%d checks, %d failures\n", checks, failures);
  return failures != 0;
}
