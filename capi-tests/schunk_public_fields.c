/* The public fields of blosc2_schunk and b2nd_array_t are live both ways, as in c-blosc2 3.3.5
 * (issue 21 A, C, D, E): the library keeps `data`/`data_len`, `nchunks`, `chunksize` and
 * `change_tick` current, and honours what the client writes into `chunksize`, `cctx`, `dctx`
 * and `storage->cparams`. Prints what it observes; run side by side with the reference.
 * Last part: several processes append to one b2nd array under BLOSC_LOCKING the way
 * python-blosc2's NDArray.append does (lock, refresh, resize, set_slice, unlock); every item
 * must be there at the end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include "b2nd.h"
#include "blosc2.h"

static char dir[64];

#define P(label)                                                                          \
  printf("%-22s tick=%lld nchunks=%lld chunksize=%d data=%s data_len=%zu\n", label,       \
         (long long)sc->change_tick, (long long)sc->nchunks, sc->chunksize,                \
         sc->data ? "set" : "NULL", sc->data_len)

/* A new in-memory super-chunk of int32 items (typesize 4, `*cp` and `*st` filled in, the
 * caller's to reuse) and 1000 items 0, 1, ... in `buf` to append to it. */
static blosc2_schunk *new_int_schunk(int32_t buf[1000], blosc2_cparams *cp, blosc2_storage *st) {
  for (int i = 0; i < 1000; i++) buf[i] = i;
  *cp = (blosc2_cparams)BLOSC2_CPARAMS_DEFAULTS;
  cp->typesize = 4;
  *st = (blosc2_storage){.contiguous = false, .cparams = cp};
  return blosc2_schunk_new(st);
}

/* A: data/data_len; C: client's chunksize; D: change_tick. */
static void fields(void) {
  int32_t buf[1000];
  blosc2_cparams cp;
  blosc2_storage st;
  blosc2_schunk *sc = new_int_schunk(buf, &cp, &st);
  P("new");
  printf("version=%d ndim=%d blockshape=%s tuner_id=%d tuner_params=%s view=%d storage->io=%s "
         "cparams->schunk==sc %d dparams->schunk==sc %d\n",
         sc->version, sc->ndim, sc->blockshape ? "set" : "NULL", sc->tuner_id,
         sc->tuner_params ? "set" : "NULL", sc->view, sc->storage->io ? "set" : "NULL",
         sc->storage->cparams->schunk == sc, sc->storage->dparams->schunk == sc);
  blosc2_schunk_append_buffer(sc, buf, sizeof buf);
  P("append");
  blosc2_schunk_append_buffer(sc, buf, sizeof buf);
  P("append2");
  blosc2_meta_add(sc, "m", (uint8_t *)"abc", 3);
  P("meta_add");
  blosc2_meta_update(sc, "m", (uint8_t *)"abd", 3);
  P("meta_update");
  blosc2_vlmeta_add(sc, "v", (uint8_t *)"abc", 3, NULL);
  P("vlmeta_add");
  blosc2_vlmeta_update(sc, "v", (uint8_t *)"abcd", 4, NULL);
  P("vlmeta_update");
  blosc2_vlmeta_delete(sc, "v");
  P("vlmeta_delete");
  uint8_t *c;
  bool nf;
  int cb = blosc2_schunk_get_chunk(sc, 0, &c, &nf);
  printf("get_chunk=%d same_as_data0=%d needs_free=%d\n", cb, c == sc->data[0], nf);
  int rc = blosc2_schunk_insert_chunk(sc, 0, c, true);
  P("insert");
  printf("rc=%d data0==data1:%d\n", rc, sc->data[0] != sc->data[1]);
  rc = blosc2_schunk_update_chunk(sc, 1, c, true);
  P("update");
  rc = blosc2_schunk_delete_chunk(sc, 0);
  P("delete");
  printf("rc=%d data[nchunks]=%s\n", rc, sc->data[sc->nchunks] ? "set" : "NULL");
  int32_t out[1000];
  for (int64_t n = 0; n < sc->nchunks; n++) {
    rc = blosc2_decompress_ctx(sc->dctx, sc->data[n], 100000, out, sizeof out);
    printf("decompress data[%lld]=%d last=%d\n", (long long)n, rc, out[999]);
  }
  for (int i = 0; i < 600; i++) blosc2_schunk_append_buffer(sc, buf, sizeof buf);
  P("602 chunks");
  int bad = 0;
  for (int64_t n = 0; n < sc->nchunks; n++) {
    uint8_t *chunk;
    blosc2_schunk_get_chunk(sc, n, &chunk, &nf);
    bad += chunk != sc->data[n];
  }
  printf("data[] == get_chunk for all: %s\n", bad ? "no" : "yes");
  int64_t order[602];
  for (int i = 0; i < 602; i++) order[i] = 601 - i;
  uint8_t *first = sc->data[0];
  blosc2_schunk_reorder_offsets(sc, order);
  printf("reorder: data[601] is old data[0]: %d\n", sc->data[601] == first);
  sc->chunksize = 8192;
  P("client chunksize 8192");
  rc = blosc2_schunk_append_buffer(sc, buf, 185);
  printf("append 185 bytes -> %d\n", rc);
  P("after");
  rc = blosc2_vlmeta_add(sc, "w", (uint8_t *)"abc", 3, NULL);
  printf("vlmeta_add -> %d\n", rc);
  P("after");
  /* (A copy's last chunk is left out: c-blosc2 3.3.5 copies this 185-byte chunk as 184.) */
  blosc2_schunk *copy = blosc2_schunk_copy(sc, &st);
  printf("copy: nchunks=%lld data_len=%zu data[0] decompresses to %d\n",
         (long long)copy->nchunks, copy->data_len,
         blosc2_decompress_ctx(copy->dctx, copy->data[0], 100000, out, sizeof out));
  blosc2_schunk_free(copy);
  blosc2_schunk_free(sc);

  /* A fresh super-chunk whose client sets the chunk size before the first chunk. */
  sc = blosc2_schunk_new(&st);
  sc->chunksize = 8000;
  rc = blosc2_schunk_append_buffer(sc, buf, 185 * 4);
  printf("fresh, chunksize 8000, append 740 bytes -> %d\n", rc);
  P("after");
  rc = blosc2_schunk_append_buffer(sc, buf, 4000);
  printf("then 4000 bytes -> %d\n", rc);
  P("after");
  blosc2_schunk_free(sc);

  /* Frames: data stays NULL; the tick moves on vlmeta changes and on a refresh that found one. */
  char path[128];
  snprintf(path, sizeof path, "%s/t.b2frame", dir);
  blosc2_storage st2 = {.contiguous = true, .cparams = &cp, .urlpath = path};
  sc = blosc2_schunk_new(&st2);
  P("file new");
  blosc2_schunk_append_buffer(sc, buf, sizeof buf);
  P("file append");
  blosc2_schunk *sc2 = blosc2_schunk_open(path);
  printf("second handle tick=%lld\n", (long long)sc2->change_tick);
  blosc2_schunk_append_buffer(sc, buf, sizeof buf);
  P("file append2");
  blosc2_vlmeta_add(sc, "v", (uint8_t *)"abc", 3, NULL);
  P("file vlmeta");
  rc = blosc2_schunk_refresh(sc2);
  printf("refresh second -> %d tick=%lld nchunks=%lld nvlmetalayers=%d\n", rc,
         (long long)sc2->change_tick, (long long)sc2->nchunks, sc2->nvlmetalayers);
  rc = blosc2_schunk_refresh(sc2);
  printf("refresh second again -> %d tick=%lld\n", rc, (long long)sc2->change_tick);
  blosc2_schunk_free(sc2);
  blosc2_schunk_free(sc);
  blosc2_remove_urlpath(path);
  blosc2_storage st3 = {.contiguous = true, .cparams = &cp};
  sc = blosc2_schunk_new(&st3);
  blosc2_schunk_append_buffer(sc, buf, sizeof buf);
  P("cframe in memory");
  blosc2_schunk_free(sc);
}

/* The postfilters' body: each int32 item of the block plus `delta`. */
static int add_to_items(blosc2_postfilter_params *p, int32_t delta) {
  const int32_t *in = (const int32_t *)p->input;
  int32_t *out = (int32_t *)p->output;
  for (int i = 0; i < p->size / 4; i++) out[i] = in[i] + delta;
  return 0;
}

static int add_one(blosc2_postfilter_params *p) { return add_to_items(p, 1); }

static int add_chunk_number(blosc2_postfilter_params *p) {
  return add_to_items(p, 100000 * (int32_t)p->nchunk);
}

/* E: contexts the client swaps into the super-chunk. */
static void contexts(void) {
  int32_t buf[1000];
  blosc2_cparams cp;
  blosc2_storage st;
  blosc2_schunk *sc = new_int_schunk(buf, &cp, &st);
  blosc2_schunk_append_buffer(sc, buf, sizeof buf);
  blosc2_schunk_append_buffer(sc, buf, sizeof buf);
  int32_t out[2000];
  int rc = blosc2_schunk_decompress_chunk(sc, 0, out, sizeof buf);
  printf("plain decompress %d out[5]=%d\n", rc, out[5]);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_postfilter_params pp = {0};
  dp.postfilter = add_one;
  dp.postparams = &pp;
  dp.schunk = sc;
  blosc2_free_ctx(sc->dctx);
  sc->dctx = blosc2_create_dctx(dp);
  rc = blosc2_schunk_decompress_chunk(sc, 0, out, sizeof buf);
  printf("postfilter decompress %d out[5]=%d\n", rc, out[5]);
  rc = blosc2_schunk_get_slice_buffer(sc, 990, 1010, out);
  printf("postfilter slice %d out[0]=%d out[15]=%d\n", rc, out[0], out[15]);
  /* The postfilter sees which chunk it works on (schunk->current_nchunk) in slices too. */
  blosc2_dparams dp2 = dp;
  dp2.postfilter = add_chunk_number;
  blosc2_free_ctx(sc->dctx);
  sc->dctx = blosc2_create_dctx(dp2);
  rc = blosc2_schunk_get_slice_buffer(sc, 0, 2000, out);
  printf("nchunk postfilter slice %d out[1]=%d out[1001]=%d\n", rc, out[1], out[1001]);
  rc = blosc2_schunk_get_slice_buffer(sc, 1500, 1510, out);
  printf("nchunk postfilter partial slice %d out[0]=%d\n", rc, out[0]);
  rc = blosc2_schunk_decompress_chunk(sc, 1, out, sizeof buf);
  printf("nchunk postfilter decompress_chunk(1) %d out[0]=%d current_nchunk=%lld\n", rc, out[0],
         (long long)sc->current_nchunk);
  blosc2_free_ctx(sc->dctx);
  sc->dctx = blosc2_create_dctx(dp);
  uint8_t *content;
  int32_t clen;
  blosc2_vlmeta_add(sc, "v", (uint8_t *)buf, 40, NULL);
  rc = blosc2_vlmeta_get(sc, "v", &content, &clen);
  printf("vlmeta_get (no postfilter) %d [1]=%d\n", rc, ((int32_t *)content)[1]);
  free(content);
  sc->storage->cparams->compcode = BLOSC_ZSTD;
  blosc2_free_ctx(sc->cctx);
  sc->cctx = blosc2_create_cctx(*sc->storage->cparams);
  sc->compcode = BLOSC_ZSTD;
  rc = blosc2_schunk_set_slice_buffer(sc, 0, 1000, buf);
  uint8_t *ch;
  bool nf;
  blosc2_schunk_get_chunk(sc, 0, &ch, &nf);
  printf("set_slice %d, chunk 0 codec format %d\n", rc, ch[2] >> 5);
  blosc2_schunk_append_buffer(sc, buf, sizeof buf);
  blosc2_schunk_get_chunk(sc, 2, &ch, &nf);
  printf("appended chunk codec format %d\n", ch[2] >> 5);
  blosc2_cparams *gcp;
  blosc2_schunk_get_cparams(sc, &gcp);
  printf("get_cparams compcode=%d\n", gcp->compcode);
  free(gcp);
  blosc2_schunk_free(sc);

  int64_t shape[2] = {100, 100};
  int32_t cs[2] = {50, 50};
  int32_t bs[2] = {10, 10};
  blosc2_cparams cp2 = BLOSC2_CPARAMS_DEFAULTS;
  cp2.typesize = 8;
  cp2.compcode = BLOSC_LZ4;
  blosc2_storage st2 = {.contiguous = false, .cparams = &cp2};
  b2nd_context_t *ctx = b2nd_create_ctx(&st2, 2, shape, cs, bs, NULL, 0, NULL, 0);
  b2nd_array_t *arr;
  rc = b2nd_zeros(ctx, &arr);
  printf("b2nd_zeros %d data=%s data_len=%zu\n", rc, arr->sc->data ? "set" : "NULL",
         arr->sc->data_len);
  arr->sc->storage->cparams->compcode = BLOSC_ZSTD;
  blosc2_free_ctx(arr->sc->cctx);
  arr->sc->cctx = blosc2_create_cctx(*arr->sc->storage->cparams);
  double *d = malloc(100 * 100 * 8);
  for (int i = 0; i < 10000; i++) d[i] = i;
  int64_t start[2] = {0, 0}, stop[2] = {100, 100}, bshape[2] = {100, 100};
  rc = b2nd_set_slice_cbuffer(d, bshape, 100 * 100 * 8, start, stop, arr);
  printf("b2nd_set_slice_cbuffer %d\n", rc);
  for (int n = 0; n < arr->sc->nchunks; n++) {
    blosc2_schunk_get_chunk(arr->sc, n, &ch, &nf);
    printf("b2nd chunk %d codec format %d\n", n, ch[2] >> 5);
    if (nf) free(ch);
  }
  rc = blosc2_decompress_ctx(arr->sc->dctx, arr->sc->data[3], 1 << 20, d, 50 * 50 * 8);
  printf("b2nd data[3] decompress %d d[1]=%g\n", rc, d[1]);
  b2nd_free(arr);
  b2nd_free_ctx(ctx);
  free(d);
}

/* A': a b2nd view's super-chunk shows its base's chunks: data[] and chunk reads. */
static void views(void) {
  for (int contiguous = 0; contiguous < 2; contiguous++) {
    int64_t shape[2] = {6, 6};
    int32_t cs[2] = {6, 6};
    int32_t bs[2] = {3, 3};
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 8;
    blosc2_storage st = {.contiguous = contiguous, .cparams = &cp};
    b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, shape, cs, bs, NULL, 0, NULL, 0);
    double d[36];
    for (int i = 0; i < 36; i++) d[i] = i;
    b2nd_array_t *a, *v, *sq;
    b2nd_from_cbuffer(ctx, &a, d, sizeof d);
    bool axis[3] = {true, false, false};
    int rc = b2nd_expand_dims(a, &v, axis, 3);
    printf("view (contiguous %d): %d, view sc is base sc %d, same data %d, view flag %d\n",
           contiguous, rc, v->sc == a->sc, v->sc->data == a->sc->data, v->sc->view);
    uint8_t *c;
    bool nf;
    rc = blosc2_schunk_get_chunk(v->sc, 0, &c, &nf);
    printf("view get_chunk %d\n", rc);
    if (rc > 0 && nf) free(c);
    rc = blosc2_schunk_get_lazychunk(v->sc, 0, &c, &nf);
    printf("view get_lazychunk %d\n", rc);
    if (rc > 0 && nf) free(c);
    double out[36];
    rc = blosc2_schunk_decompress_chunk(v->sc, 0, out, sizeof out);
    printf("view decompress_chunk %d out[7]=%g\n", rc, out[7]);
    rc = blosc2_schunk_get_chunk(v->sc, 1, &c, &nf);
    printf("view get_chunk(1) %d\n", rc);
    rc = b2nd_squeeze(v, &sq);
    printf("squeeze %d same data %d\n", rc, sq->sc->data == a->sc->data);
    b2nd_free(sq);
    b2nd_free(v);
    b2nd_free(a);
    b2nd_free_ctx(ctx);
  }
}

/* D: concurrent appends to one b2nd array under BLOSC_LOCKING, python-blosc2's way. */
#define WRITERS 4
#define ROUNDS 4
#define ITEMS 25
static int append_rounds(const char *path, int id) {
  b2nd_array_t *arr;
  if (b2nd_open(path, &arr) < 0) return 1;
  for (int r = 0; r < ROUNDS; r++) {
    if (blosc2_schunk_lock(arr->sc) < 0) return 2;
    if (blosc2_schunk_refresh(arr->sc) < 0) return 3;
    if (b2nd_refresh(arr) < 0) return 4;
    int64_t old = arr->shape[0];
    int64_t newshape[1] = {old + ITEMS};
    if (b2nd_resize(arr, newshape, NULL) < 0) return 5;
    int32_t items[ITEMS];
    for (int i = 0; i < ITEMS; i++) items[i] = 1000 * id + 100 * r + i + 1;
    int64_t start[1] = {old}, stop[1] = {old + ITEMS}, bshape[1] = {ITEMS};
    if (b2nd_set_slice_cbuffer(items, bshape, sizeof items, start, stop, arr) < 0) return 6;
    if (blosc2_schunk_unlock(arr->sc) < 0) return 7;
  }
  b2nd_free(arr);
  return 0;
}

static void concurrent_appends(void) {
  char path[128];
  snprintf(path, sizeof path, "%s/append.b2nd", dir);
  setenv("BLOSC_LOCKING", "1", 1);
  int64_t shape[1] = {37};
  int32_t cs[1] = {10};
  int32_t bs[1] = {5};
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.nthreads = 1;
  blosc2_storage st = {.contiguous = true, .urlpath = path, .cparams = &cp};
  b2nd_context_t *ctx = b2nd_create_ctx(&st, 1, shape, cs, bs, "<i4", 0, NULL, 0);
  b2nd_array_t *arr;
  int rc = b2nd_zeros(ctx, &arr);
  b2nd_free(arr);
  b2nd_free_ctx(ctx);
  printf("concurrent appends: created %d\n", rc);
  pid_t pids[WRITERS];
  for (int w = 0; w < WRITERS; w++) {
    pids[w] = fork();
    if (pids[w] == 0) _exit(append_rounds(path, w + 1));
  }
  int ok = 0;
  for (int w = 0; w < WRITERS; w++) {
    int status;
    waitpid(pids[w], &status, 0);
    ok += WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  printf("writers ok: %d of %d\n", ok, WRITERS);
  rc = b2nd_open(path, &arr);
  printf("final shape %lld (want %d)\n", (long long)arr->shape[0], 37 + WRITERS * ROUNDS * ITEMS);
  int32_t *all = malloc(arr->shape[0] * 4);
  b2nd_to_cbuffer(arr, all, arr->shape[0] * 4);
  int found = 0;
  for (int w = 1; w <= WRITERS; w++)
    for (int r = 0; r < ROUNDS; r++)
      for (int i = 0; i < ITEMS; i++) {
        int32_t want = 1000 * w + 100 * r + i + 1;
        for (int64_t k = 37; k < arr->shape[0]; k++)
          if (all[k] == want) { found++; break; }
      }
  int zeros = 0;
  for (int k = 0; k < 37; k++) zeros += all[k] == 0;
  printf("appended items found: %d of %d, leading zeros %d of 37\n", found, WRITERS * ROUNDS * ITEMS, zeros);
  free(all);
  b2nd_free(arr);
  blosc2_remove_urlpath(path);
  unsetenv("BLOSC_LOCKING");
}

/* A client replacing the super-chunk's dctx frees the old one before it stores the new one,
 * made from dparams naming the super-chunk (python-blosc2's _set_postfilter): creating it
 * must not read the freed context. */
static void dctx_replaced(void) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_storage st = {.contiguous = true, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  int32_t data[1000], out[1000];
  for (int i = 0; i < 1000; i++) data[i] = i * 3;
  blosc2_schunk_append_buffer(sc, data, sizeof data);
  for (int round = 0; round < 3; round++) {
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    dp.schunk = sc;
    blosc2_free_ctx(sc->dctx);
    /* What a freed context's memory holds is the allocator's business: make it garbage. */
    void *junk[8];
    for (int k = 0; k < 8; k++) { junk[k] = malloc(600); memset(junk[k], 0xa5, 600); }
    sc->dctx = blosc2_create_dctx(dp);
    for (int k = 0; k < 8; k++) free(junk[k]);
    int rc = blosc2_schunk_decompress_chunk(sc, 0, out, sizeof out);
    printf("dctx replaced %d: %s decompress=%d data=%s\n", round, sc->dctx ? "ok" : "NULL", rc,
           memcmp(out, data, sizeof data) == 0 ? "same" : "DIFFERENT");
  }
  blosc2_schunk_free(sc);
}

/* Copies read the chunks through the dctx the client swapped in: with a postfilter there (set
 * as python-blosc2's SChunk._set_postfilter does: in storage->dparams, then a new dctx from
 * them), blosc2_schunk_copy and b2nd_copy decompress, run it and recompress, as c-blosc2 does,
 * instead of taking the stored chunks as they are. */
static void copies_through_swapped_postfilter(void) {
  int32_t buf[1000], out[1000];
  blosc2_cparams cp;
  blosc2_storage st;
  blosc2_schunk *sc = new_int_schunk(buf, &cp, &st);
  blosc2_schunk_append_buffer(sc, buf, sizeof buf);
  blosc2_postfilter_params pp = {0};
  sc->storage->dparams->postfilter = add_one;
  sc->storage->dparams->postparams = &pp;
  blosc2_free_ctx(sc->dctx);
  sc->dctx = blosc2_create_dctx(*sc->storage->dparams);
  blosc2_cparams cp2 = BLOSC2_CPARAMS_DEFAULTS;
  cp2.typesize = 4;
  blosc2_storage st2 = {.contiguous = true, .cparams = &cp2};
  blosc2_schunk *copy = blosc2_schunk_copy(sc, &st2);
  int rc = blosc2_schunk_decompress_chunk(copy, 0, out, sizeof out);
  printf("schunk_copy through a postfilter: %d out[5]=%d\n", rc, out[5]);
  blosc2_schunk_free(copy);
  blosc2_schunk_free(sc);

  for (int i = 0; i < 1000; i++) buf[i] = i;
  int64_t shape[1] = {1000};
  int32_t cs[1] = {1000}, bs[1] = {250};
  blosc2_storage st3 = {.contiguous = false, .cparams = &cp2};
  b2nd_context_t *ctx = b2nd_create_ctx(&st3, 1, shape, cs, bs, "<i4", 0, NULL, 0);
  b2nd_array_t *a = NULL, *b = NULL;
  rc = b2nd_from_cbuffer(ctx, &a, buf, sizeof buf);
  a->sc->storage->dparams->postfilter = add_one;
  a->sc->storage->dparams->postparams = &pp;
  blosc2_free_ctx(a->sc->dctx);
  a->sc->dctx = blosc2_create_dctx(*a->sc->storage->dparams);
  int rc2 = b2nd_copy(ctx, a, &b);
  int64_t start[1] = {0}, stop[1] = {1000}, bshape[1] = {1000};
  memset(out, 0, sizeof out);
  int rc3 = b2nd_get_slice_cbuffer(b, start, stop, out, bshape, sizeof out);
  printf("b2nd_copy through a postfilter: %d %d %d out[5]=%d\n", rc, rc2, rc3, out[5]);
  b2nd_free(a);
  b2nd_free(b);
  b2nd_free_ctx(ctx);
}

/* The threads the user codec below decoded blocks on (distinct pthread ids, up to 8). */
static pthread_t decoders[8];
static int ndecoders = 0;
static pthread_mutex_t decoders_lock = PTHREAD_MUTEX_INITIALIZER;

/* A run-length codec: (count, byte) pairs, runs of up to 255. */
static int rle_encoder(const uint8_t *src, int32_t len, uint8_t *dest, int32_t cap, uint8_t meta,
                       blosc2_cparams *cp, const void *chunk) {
  (void)meta; (void)cp; (void)chunk;
  int32_t o = 0;
  for (int32_t i = 0; i < len;) {
    int32_t run = 1;
    while (i + run < len && run < 255 && src[i + run] == src[i]) run++;
    if (o + 2 > cap || o + 2 >= len) return 0;
    dest[o++] = (uint8_t)run;
    dest[o++] = src[i];
    i += run;
  }
  return o;
}

static int counting_decoder(const uint8_t *src, int32_t len, uint8_t *dest, int32_t cap,
                            uint8_t meta, blosc2_dparams *dp, const void *chunk) {
  (void)meta; (void)dp; (void)chunk;
  int32_t o = 0;
  for (int32_t i = 0; i + 1 < len; i += 2) {
    if (o + src[i] > cap) return -1;
    memset(dest + o, src[i + 1], src[i]);
    o += src[i];
  }
  /* Slow enough that every thread of a pool is awake before the blocks run out. */
  usleep(200);
  pthread_mutex_lock(&decoders_lock);
  int seen = 0;
  for (int k = 0; k < ndecoders; k++) seen |= pthread_equal(decoders[k], pthread_self());
  if (!seen && ndecoders < 8) decoders[ndecoders++] = pthread_self();
  pthread_mutex_unlock(&decoders_lock);
  return o;
}

/* A b2nd array opened from a file decodes with the dctx its client put in `sc->dctx`:
 * python-blosc2 opens every array with 1 thread (the global count), then sets
 * `sc->storage->dparams->nthreads` and swaps in a dctx of its own thread count. Slices must
 * then be decoded on that many threads (a user codec counts them), as c-blosc2 does. */
static void opened_array_dctx(void) {
  blosc2_codec codec = {.compcode = 250, .compname = "fields-copy", .complib = 250,
                        .version = 1, .encoder = rle_encoder, .decoder = counting_decoder};
  printf("register_codec(250)=%d\n", blosc2_register_codec(&codec));
  enum { N = 256 };
  static double src[N * N], out[N * N];
  for (int i = 0; i < N * N; i++) src[i] = (i % 1000) * 0.25;
  char path[128];
  snprintf(path, sizeof path, "%s/opened.b2nd", dir);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 8;
  cp.compcode = 250;
  cp.nthreads = 1;
  blosc2_storage st = {.contiguous = true, .urlpath = path, .cparams = &cp};
  int64_t shape[2] = {N, N};
  int32_t chunkshape[2] = {64, 64}, blockshape[2] = {16, 16};
  b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, shape, chunkshape, blockshape, "<f8", 0, NULL, 0);
  b2nd_array_t *arr = NULL;
  int rc = b2nd_from_cbuffer(ctx, &arr, src, sizeof src);
  printf("opened dctx: from_cbuffer=%d\n", rc);
  b2nd_free(arr);
  b2nd_free_ctx(ctx);
  for (int nthreads = 1; nthreads <= 2; nthreads++) {
    arr = NULL;
    rc = b2nd_open(path, &arr);
    blosc2_schunk *sc = arr->sc;
    /* As python-blosc2's SChunk.update_dparams. */
    sc->storage->dparams->nthreads = (int16_t)nthreads;
    blosc2_free_ctx(sc->dctx);
    sc->dctx = blosc2_create_dctx(*sc->storage->dparams);
    ndecoders = 0;
    int64_t start[2] = {0, 0}, stop[2] = {N, N}, bshape[2] = {N, N};
    memset(out, 0, sizeof out);
    int rc2 = b2nd_get_slice_cbuffer(arr, start, stop, out, bshape, sizeof out);
    printf("opened dctx nthreads=%d: open=%d get_slice=%d data=%s decoded on %s\n", nthreads, rc,
           rc2, memcmp(out, src, sizeof src) == 0 ? "same" : "DIFFERENT",
           ndecoders >= nthreads ? (nthreads > 1 ? "several threads" : "one thread or more")
                                 : "fewer threads");
    b2nd_free(arr);
  }
  blosc2_remove_urlpath(path);
}

int main(void) {
  snprintf(dir, sizeof dir, "/tmp/rblosc2-fields-XXXXXX");
  if (mkdtemp(dir) == NULL) return 1;
  blosc2_init();
  fields();
  contexts();
  views();
  concurrent_appends();
  dctx_replaced();
  opened_array_dctx();
  copies_through_swapped_postfilter();
  blosc2_destroy();
  rmdir(dir);
  printf("schunk_public_fields: done\n");
  return 0;
}
