/* User tuners (blosc2_register_tuner), side by side with the reference c-blosc2 3.3.5.
 *
 * A counting tuner records every call of its five callbacks, the config and contexts it was
 * given, and what blosc2_ctx_get_cparams reports from inside init and next_blocksize. The program prints
 * the counts after each library call, so run.sh's diff shows that both libraries make the same
 * calls in the same places: registration codes; init at context creation (contexts, special-value
 * chunks, super-chunks, b2nd arrays); next_blocksize before every compression; next_cparams,
 * update and free never (c-blosc2 calls them only for a tuner that wrote its private context);
 * the error codes of refusing callbacks, NULL callbacks and unregistered ids; blosc2_init
 * restarting the registry.
 *
 * Not exercised, because the reference crashes: blosc2_register_tuner(NULL) (SIGSEGV; ours
 * returns BLOSC2_ERROR_INVALID_PARAM) and a compression with blocksize 0 whose tuner leaves the
 * private blocksize at 0 (SIGFPE; ours uses the automatic block size). b2nd arrays are only
 * counted: ours calls next_blocksize before the array's super-chunk context exists (see README).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <b2nd.h>
#include <blosc2.h>
#include "check.h"
#include "fnv.h"

/* What the counting tuner saw. */
static int n_init, n_next_blocksize, n_next_cparams, n_update, n_free;
static void *seen_config;
static blosc2_context *seen_init_cctx, *seen_init_dctx, *seen_nb_ctx;
static int seen_tuner_id, seen_blocksize, seen_typesize, seen_clevel, seen_compcode;
/* What its callbacks answer. */
static int init_answer = 0, next_blocksize_answer = 0;

static int init_view_tuner_id, init_view_typesize, init_view_blocksize, init_view_codec_params;

static int count_init(void *config, blosc2_context *cctx, blosc2_context *dctx) {
  n_init++;
  seen_config = config;
  seen_init_cctx = cctx;
  seen_init_dctx = dctx;
  /* What the context reports while init runs (c-blosc2 stores the tuner id and codec params
   * only after init returns). */
  blosc2_cparams cp;
  memset(&cp, 0, sizeof cp);
  if (blosc2_ctx_get_cparams(cctx, &cp) == 0) {
    init_view_tuner_id = cp.tuner_id;
    init_view_typesize = cp.typesize;
    init_view_blocksize = cp.blocksize;
    init_view_codec_params = cp.codec_params != NULL;
  }
  return init_answer;
}

static int count_next_blocksize(blosc2_context *ctx) {
  n_next_blocksize++;
  seen_nb_ctx = ctx;
  blosc2_cparams cp;
  memset(&cp, 0, sizeof cp);
  if (ctx != NULL && blosc2_ctx_get_cparams(ctx, &cp) == 0) {
    seen_tuner_id = cp.tuner_id;
    seen_blocksize = cp.blocksize;
    seen_typesize = cp.typesize;
    seen_clevel = cp.clevel;
    seen_compcode = cp.compcode;
  }
  return next_blocksize_answer;
}

static int count_next_cparams(blosc2_context *ctx) {
  (void)ctx;
  n_next_cparams++;
  return 0;
}

static int count_update(blosc2_context *ctx, double ctime) {
  (void)ctx;
  (void)ctime;
  n_update++;
  return 0;
}

static int count_free(blosc2_context *ctx) {
  (void)ctx;
  n_free++;
  return 0;
}

static void counts(const char *after) {
  printf("%-34s init=%d next_blocksize=%d next_cparams=%d update=%d free=%d\n", after, n_init,
         n_next_blocksize, n_next_cparams, n_update, n_free);
}

static char tuner_config[] = "tuner config";

static blosc2_cparams tuned_cparams(int tuner_id, int32_t blocksize) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.clevel = 5;
  cp.compcode = BLOSC_LZ4;
  cp.blocksize = blocksize;
  cp.tuner_id = tuner_id;
  cp.tuner_params = tuner_config;
  cp.codec_params = tuner_config;
  return cp;
}

#define N_ITEMS 50000

static void registration(void) {
  blosc2_tuner t = {count_init, count_next_blocksize, count_next_cparams, count_update,
                    count_free, 170, "counter"};
  printf("register 170 = %d\n", blosc2_register_tuner(&t));
  printf("register 170 again, same name = %d\n", blosc2_register_tuner(&t));
  blosc2_tuner other = t;
  other.name = "other";
  printf("register 170 under another name = %d\n", blosc2_register_tuner(&other));
  int ids[] = {159, 32, 0, -5, 300, 100000};
  for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
    other.id = ids[i];
    printf("register %d = %d\n", ids[i], blosc2_register_tuner(&other));
  }
  blosc2_tuner refusing = {count_init, NULL, NULL, NULL, NULL, 171, "no next_blocksize"};
  printf("register 171 = %d\n", blosc2_register_tuner(&refusing));
  blosc2_tuner no_init = {NULL, count_next_blocksize, NULL, NULL, NULL, 172, "no init"};
  printf("register 172 = %d\n", blosc2_register_tuner(&no_init));
}

static void contexts(const int32_t *src, uint8_t *dst, int32_t dsize) {
  int32_t nbytes = N_ITEMS * 4;
  blosc2_cparams cp = tuned_cparams(170, 8192);
  blosc2_context *cctx = blosc2_create_cctx(cp);
  printf("create_cctx(tuner 170) %s\n", cctx ? "ok" : "NULL");
  CHECK(cctx != NULL, "no context");
  CHECK(seen_config == tuner_config, "init got config %p", seen_config);
  CHECK(seen_init_cctx == cctx, "init got another context");
  CHECK(seen_init_dctx == NULL, "init got a dctx");
  printf("inside init: tuner_id=%d typesize=%d blocksize=%d codec_params set=%d\n",
         init_view_tuner_id, init_view_typesize, init_view_blocksize, init_view_codec_params);
  blosc2_cparams after;
  blosc2_ctx_get_cparams(cctx, &after);
  printf("after create_cctx: tuner_id=%d codec_params set=%d\n", after.tuner_id,
         after.codec_params != NULL);
  counts("after create_cctx");

  /* The chunk a tuned context writes is the one an untuned context writes. */
  blosc2_cparams plain_cp = tuned_cparams(0, 8192);
  blosc2_context *plain = blosc2_create_cctx(plain_cp);
  uint8_t *plain_dst = malloc(dsize);
  int plain_n = blosc2_compress_ctx(plain, src, nbytes, plain_dst, dsize);
  for (int k = 0; k < 3; k++) {
    int n = blosc2_compress_ctx(cctx, src, nbytes, dst, dsize);
    printf("compress_ctx #%d = %d fnv=%016llx same as untuned: %d\n", k, n,
           (unsigned long long)fnv(dst, n > 0 ? n : 0),
           n == plain_n && memcmp(dst, plain_dst, n) == 0);
    CHECK(seen_nb_ctx == cctx, "next_blocksize got another context");
    counts("after compress_ctx");
  }
  printf("inside next_blocksize: tuner_id=%d blocksize=%d typesize=%d clevel=%d compcode=%d\n",
         seen_tuner_id, seen_blocksize, seen_typesize, seen_clevel, seen_compcode);
  printf("compress_ctx, 0 bytes = %d\n", blosc2_compress_ctx(cctx, src, 0, dst, dsize));
  counts("after compress_ctx of 0 bytes");
  printf("compress_ctx, dest too small = %d\n", blosc2_compress_ctx(cctx, src, nbytes, dst, 16));
  counts("after compress_ctx, small dest");

  next_blocksize_answer = -3;
  printf("compress_ctx, next_blocksize -3 = %d\n",
         blosc2_compress_ctx(cctx, src, nbytes, dst, dsize));
  next_blocksize_answer = 0;
  counts("after refused compress_ctx");

  /* VL blocks: the block checks come before the tuner. */
  const void *srcs[2] = {src, src + 1000};
  int32_t sizes[2] = {4000, 0};
  printf("vlcompress, 0 blocks = %d\n", blosc2_vlcompress_ctx(cctx, srcs, sizes, 0, dst, dsize));
  printf("vlcompress, empty block = %d\n",
         blosc2_vlcompress_ctx(cctx, srcs, sizes, 2, dst, dsize));
  counts("after refused vlcompress");
  sizes[1] = 8000;
  int n = blosc2_vlcompress_ctx(cctx, srcs, sizes, 2, dst, dsize);
  printf("vlcompress = %d\n", n);
  counts("after vlcompress");

  /* Decompression never involves the tuner. */
  int32_t *back = malloc(nbytes);
  n = blosc2_compress_ctx(cctx, src, nbytes, dst, dsize);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  int dn = blosc2_decompress_ctx(dctx, dst, n, back, nbytes);
  printf("decompress_ctx = %d equal=%d\n", dn, memcmp(back, src, nbytes) == 0);
  printf("getitem_ctx = %d\n", blosc2_getitem_ctx(dctx, dst, n, 10, 5, back, nbytes));
  blosc2_free_ctx(dctx);
  counts("after decompression");

  blosc2_free_ctx(cctx);
  blosc2_free_ctx(plain);
  counts("after free_ctx");
  free(back);
  free(plain_dst);

  init_answer = -1;
  cctx = blosc2_create_cctx(cp);
  printf("create_cctx, init -1: %s\n", cctx ? "ok" : "NULL");
  init_answer = 0;
  counts("after refused create_cctx");
  if (cctx) blosc2_free_ctx(cctx);

  int others[] = {171, 172, 173, 32, -3};
  for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
    blosc2_cparams ocp = tuned_cparams(others[i], 8192);
    blosc2_context *c = blosc2_create_cctx(ocp);
    printf("create_cctx(tuner %d): %s", others[i], c ? "ok" : "NULL");
    if (c != NULL) {
      blosc2_cparams got;
      blosc2_ctx_get_cparams(c, &got);
      printf(", tuner_id=%d, compress = %d", got.tuner_id,
             blosc2_compress_ctx(c, src, nbytes, dst, dsize));
      blosc2_free_ctx(c);
    }
    printf("\n");
  }
  counts("after other tuner ids");
}

static void special_chunks(void) {
  blosc2_cparams cp = tuned_cparams(170, 8192);
  uint8_t chunk[BLOSC_EXTENDED_HEADER_LENGTH + 16];
  int32_t value = 7;
  printf("chunk_zeros = %d\n", blosc2_chunk_zeros(cp, 4000, chunk, sizeof chunk));
  counts("after chunk_zeros");
  printf("chunk_nans = %d\n", blosc2_chunk_nans(cp, 4000, chunk, sizeof chunk));
  printf("chunk_uninit = %d\n", blosc2_chunk_uninit(cp, 4000, chunk, sizeof chunk));
  printf("chunk_repeatval = %d\n",
         blosc2_chunk_repeatval(cp, 4000, chunk, sizeof chunk, &value));
  counts("after chunk_nans/uninit/repeatval");
  printf("chunk_zeros, nbytes not items = %d\n", blosc2_chunk_zeros(cp, 4001, chunk, sizeof chunk));
  printf("chunk_zeros, dest too small = %d\n", blosc2_chunk_zeros(cp, 4000, chunk, 8));
  counts("after refused chunk_zeros");
  next_blocksize_answer = -1;
  printf("chunk_zeros, next_blocksize -1 = %d\n",
         blosc2_chunk_zeros(cp, 4000, chunk, sizeof chunk));
  next_blocksize_answer = 0;
  counts("after chunk_zeros refused by tuner");
}

static void super_chunks(const int32_t *src) {
  blosc2_cparams cp = tuned_cparams(170, 4096);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_storage storage = {.contiguous = true, .cparams = &cp, .dparams = &dp};
  blosc2_schunk *sc = blosc2_schunk_new(&storage);
  CHECK(sc != NULL, "schunk_new failed");
  CHECK(seen_init_cctx == sc->cctx, "init did not get the super-chunk's context");
  CHECK(seen_config == tuner_config, "init got config %p", seen_config);
  counts("after schunk_new");
  for (int k = 0; k < 3; k++) {
    printf("append_buffer = %lld\n", (long long)blosc2_schunk_append_buffer(sc, src, 40000));
  }
  CHECK(seen_nb_ctx == sc->cctx, "next_blocksize did not get the super-chunk's context");
  printf("inside next_blocksize: tuner_id=%d blocksize=%d\n", seen_tuner_id, seen_blocksize);
  counts("after 3 append_buffer");
  int32_t *back = malloc(40000);
  printf("decompress_chunk = %d\n", blosc2_schunk_decompress_chunk(sc, 1, back, 40000));
  free(back);
  counts("after decompress_chunk");
  blosc2_schunk *filled = blosc2_schunk_new(&storage);
  printf("fill_special = %lld\n",
         (long long)blosc2_schunk_fill_special(filled, 30000, BLOSC2_SPECIAL_ZERO, 40000));
  blosc2_schunk_free(filled);
  counts("after schunk_new + fill_special");
  blosc2_schunk *copy = blosc2_schunk_copy(sc, &storage);
  printf("schunk_copy: %s nchunks=%lld\n", copy ? "ok" : "NULL",
         copy ? (long long)copy->nchunks : -1LL);
  counts("after schunk_copy");
  blosc2_schunk_free(copy);
  next_blocksize_answer = -1;
  printf("append_buffer, next_blocksize -1 = %lld\n",
         (long long)blosc2_schunk_append_buffer(sc, src, 40000));
  next_blocksize_answer = 0;
  printf("nchunks = %lld\n", (long long)sc->nchunks);
  blosc2_schunk_free(sc);
  counts("after schunk_free");

  init_answer = -1;
  sc = blosc2_schunk_new(&storage);
  printf("schunk_new, init -1: %s\n", sc ? "ok" : "NULL");
  init_answer = 0;
  if (sc) blosc2_schunk_free(sc);
  cp.tuner_id = 173;
  sc = blosc2_schunk_new(&storage);
  printf("schunk_new, unregistered tuner: %s\n", sc ? "ok" : "NULL");
  if (sc) blosc2_schunk_free(sc);
  counts("after refused schunk_new");
}

static void b2nd_arrays(const int32_t *src) {
  blosc2_cparams cp = tuned_cparams(170, 0);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_storage storage = {.contiguous = false, .cparams = &cp, .dparams = &dp};
  int64_t shape[1] = {10000};
  int32_t chunkshape[1] = {5000}, blockshape[1] = {1000};
  b2nd_context_t *ctx = b2nd_create_ctx(&storage, 1, shape, chunkshape, blockshape, NULL, 0, NULL, 0);
  counts("after b2nd_create_ctx");
  b2nd_array_t *array = NULL;
  printf("b2nd_from_cbuffer = %d\n", b2nd_from_cbuffer(ctx, &array, src, 40000));
  counts("after b2nd_from_cbuffer");
  int32_t *back = malloc(40000);
  int rc = b2nd_to_cbuffer(array, back, 40000);
  printf("b2nd_to_cbuffer = %d equal=%d\n", rc, memcmp(back, src, 40000) == 0);
  free(back);
  b2nd_free(array);
  b2nd_free_ctx(ctx);
  counts("after b2nd_to_cbuffer and frees");
}

static void reinitialisation(void) {
  blosc2_cparams cp = tuned_cparams(170, 8192);
  blosc2_destroy();
  blosc2_init();
  blosc2_context *c = blosc2_create_cctx(cp);
  printf("after destroy + init, create_cctx(tuner 170): %s\n", c ? "ok" : "NULL");
  if (c) blosc2_free_ctx(c);
  blosc2_tuner t = {count_init, count_next_blocksize, NULL, NULL, NULL, 170, "again"};
  printf("register 170 again after init = %d\n", blosc2_register_tuner(&t));
  c = blosc2_create_cctx(cp);
  printf("create_cctx(tuner 170): %s\n", c ? "ok" : "NULL");
  if (c) blosc2_free_ctx(c);
  counts("after re-registration");

  static char names[300][16];
  int registered = 0, rc = 0;
  for (int i = 0; i < 300; i++) {
    snprintf(names[i], sizeof names[i], "tuner%d", i);
    blosc2_tuner more = {count_init, count_next_blocksize, NULL, NULL, NULL, 1000 + i, names[i]};
    rc = blosc2_register_tuner(&more);
    if (rc != 0) break;
    registered++;
  }
  printf("registered %d more, then %d\n", registered, rc);
  printf("register 170 again when full = %d\n", blosc2_register_tuner(&t));
  t.id = 150;
  printf("register 150 when full = %d\n", blosc2_register_tuner(&t));
}

int main(void) {
  blosc2_init();
  int32_t *src = malloc(N_ITEMS * 4);
  for (int i = 0; i < N_ITEMS; i++) src[i] = i / 3 + (i % 7 == 0);
  int32_t dsize = N_ITEMS * 4 + BLOSC2_MAX_OVERHEAD;
  uint8_t *dst = malloc(dsize);

  registration();
  contexts(src, dst, dsize);
  special_chunks();
  super_chunks(src);
  b2nd_arrays(src);
  reinitialisation();

  free(src);
  free(dst);
  blosc2_destroy();
  printf("tuner_side_by_side: %d checks, %d failures\n", checks, failures);
  return failures != 0;
}
