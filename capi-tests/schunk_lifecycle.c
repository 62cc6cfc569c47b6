/* Super-chunk C API, side by side with c-blosc2 3.3.5: every blosc2_schunk_* call on in-memory
 * chunk lists, in-memory cframes, cframe files and sframe directories, printing the return
 * values and the public fields of blosc2_schunk after each call; metalayers through the header's
 * inline helpers, vlmetalayers, buffers, files, offsets, special chunks, user I/O callbacks and
 * error codes on bad arguments. Frame bytes are printed as FNV-1a hashes (the two libraries must
 * write the same bytes). Closes with "N passed, M failed". */
#include <blosc2.h>
#include <blosc2/blosc2-stdio.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int npassed = 0, nfailed = 0;

#define CHECK(cond)                                                        \
  do {                                                                     \
    if (cond) {                                                            \
      npassed++;                                                           \
    } else {                                                               \
      nfailed++;                                                           \
      printf("FAILED %s:%d: %s\n", __FILE__, __LINE__, #cond);             \
    }                                                                      \
  } while (0)

static uint64_t fnv(const void *p, int64_t n) {
  const uint8_t *b = p;
  uint64_t h = 1469598103934665603ull;
  for (int64_t i = 0; i < n; i++) {
    h ^= b[i];
    h *= 1099511628211ull;
  }
  return h;
}

static void fields(const char *label, blosc2_schunk *sc) {
  printf("%s: nchunks=%lld nbytes=%lld cbytes=%lld typesize=%d chunksize=%d blocksize=%d "
         "compcode=%d clevel=%d filters=%d,%d,%d,%d,%d,%d nmeta=%d nvlmeta=%d contiguous=%d "
         "urlpath=%s cctx=%d dctx=%d\n",
         label, (long long)sc->nchunks, (long long)sc->nbytes, (long long)sc->cbytes,
         sc->typesize, sc->chunksize, sc->blocksize, sc->compcode, sc->clevel, sc->filters[0],
         sc->filters[1], sc->filters[2], sc->filters[3], sc->filters[4], sc->filters[5],
         sc->nmetalayers, sc->nvlmetalayers, sc->storage->contiguous,
         sc->storage->urlpath ? sc->storage->urlpath : "(null)", sc->cctx != NULL,
         sc->dctx != NULL);
  printf("%s: storage cparams typesize=%d clevel=%d compcode=%d schunk_is_self=%d dparams "
         "schunk_is_self=%d\n",
         label, sc->storage->cparams->typesize, sc->storage->cparams->clevel,
         sc->storage->cparams->compcode, sc->storage->cparams->schunk == (void *)sc,
         sc->storage->dparams->schunk == (void *)sc);
}

#define CHUNKITEMS 5000
#define TS 4

static void fill(int32_t *buf, int n, int seed) {
  for (int i = 0; i < n; i++) buf[i] = seed * 100000 + i * (seed + 1) + (i % 13);
}

static void print_frame(const char *label, blosc2_schunk *sc) {
  uint8_t *buf = NULL;
  bool needs_free = false;
  int64_t len = blosc2_schunk_to_buffer(sc, &buf, &needs_free);
  printf("%s: to_buffer len=%lld hash=%016llx frame_len=%lld\n", label, (long long)len,
         len > 0 ? (unsigned long long)fnv(buf, len) : 0ull,
         (long long)blosc2_schunk_frame_len(sc));
  if (needs_free) free(buf);
}

/* Decompresses every chunk and checks it against fill(seed = chunk index + 1). */
static void check_data(const char *label, blosc2_schunk *sc, const int *seeds) {
  int32_t want[CHUNKITEMS], got[CHUNKITEMS];
  for (int i = 0; i < sc->nchunks; i++) {
    int rc = blosc2_schunk_decompress_chunk(sc, i, got, sizeof(got));
    fill(want, CHUNKITEMS, seeds[i]);
    if (rc != (int)sizeof(got) || memcmp(want, got, sizeof(got)) != 0) {
      printf("%s: chunk %d rc=%d differs\n", label, i, rc);
      nfailed++;
      return;
    }
  }
  npassed++;
  printf("%s: %lld chunks ok\n", label, (long long)sc->nchunks);
}

static void lifecycle(const char *name, bool contiguous, const char *urlpath) {
  printf("== %s\n", name);
  blosc2_remove_urlpath(urlpath);
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = TS;
  cparams.clevel = 5;
  cparams.compcode = BLOSC_LZ4;
  cparams.nthreads = 2;
  blosc2_dparams dparams = BLOSC2_DPARAMS_DEFAULTS;
  dparams.nthreads = 2;
  blosc2_storage storage = {.contiguous = contiguous, .urlpath = (char *)urlpath,
                            .cparams = &cparams, .dparams = &dparams};
  blosc2_schunk *sc = blosc2_schunk_new(&storage);
  CHECK(sc != NULL);
  if (sc == NULL) return;
  fields("new", sc);
  printf("new: chunksize=%d current_nchunk=%lld version=%d\n", sc->chunksize,
         (long long)sc->current_nchunk, sc->version);

  /* metalayers before any data (frames only accept them then) */
  uint8_t meta1[] = {1, 2, 3, 4, 5};
  printf("meta_add m1 -> %d\n", blosc2_meta_add(sc, "m1", meta1, sizeof(meta1)));
  printf("meta_add m2 -> %d\n", blosc2_meta_add(sc, "m2", meta1, 3));
  printf("meta_add m1 again -> %d\n", blosc2_meta_add(sc, "m1", meta1, 2));
  printf("meta_exists m2 -> %d, nope -> %d\n", blosc2_meta_exists(sc, "m2"),
         blosc2_meta_exists(sc, "nope"));
  uint8_t upd[] = {9, 8};
  printf("meta_update m1 -> %d\n", blosc2_meta_update(sc, "m1", upd, 2));
  printf("meta_update m1 too long -> %d\n", blosc2_meta_update(sc, "m1", meta1, 5) < 0 ? -1 : 0);
  uint8_t *content = NULL;
  int32_t content_len = 0;
  int idx = blosc2_meta_get(sc, "m1", &content, &content_len);
  printf("meta_get m1 -> %d len=%d bytes=%d,%d,%d\n", idx, content_len, content[0], content[1],
         content[2]);
  free(content);

  int seeds[16];
  int32_t buf[CHUNKITEMS];
  for (int i = 0; i < 6; i++) {
    fill(buf, CHUNKITEMS, i + 1);
    seeds[i] = i + 1;
    int64_t n = blosc2_schunk_append_buffer(sc, buf, sizeof(buf));
    printf("append_buffer %d -> %lld current_nchunk=%lld\n", i, (long long)n,
           (long long)sc->current_nchunk);
  }
  fields("appended", sc);
  check_data("appended", sc, seeds);

  /* get_chunk / lazychunk */
  uint8_t *chunk;
  bool needs_free;
  int cb = blosc2_schunk_get_chunk(sc, 2, &chunk, &needs_free);
  int32_t nb, cbb, bs;
  blosc2_cbuffer_sizes(chunk, &nb, &cbb, &bs);
  printf("get_chunk 2 -> %d needs_free=%d nbytes=%d cbytes=%d\n", cb, needs_free, nb, cbb);
  /* append a copy of chunk 2 (copy=true); the chunk may point into the frame itself */
  uint8_t *chunk2 = malloc(cbb);
  memcpy(chunk2, chunk, cbb);
  if (needs_free) free(chunk);
  printf("append_chunk copy -> %lld\n", (long long)blosc2_schunk_append_chunk(sc, chunk2, true));
  free(chunk2);
  seeds[6] = 3;
  cb = blosc2_schunk_get_lazychunk(sc, 1, &chunk, &needs_free);
  printf("get_lazychunk 1 -> %d needs_free=%d hash=%016llx\n", cb, needs_free,
         cb > 0 ? (unsigned long long)fnv(chunk, cb) : 0ull);
  {
    /* a lazy chunk decompresses through the super-chunk's dctx */
    int32_t out[CHUNKITEMS], want[CHUNKITEMS];
    fill(want, CHUNKITEMS, 2);
    int rc = blosc2_decompress_ctx(sc->dctx, chunk, cb, out, sizeof(out));
    printf("decompress lazychunk with dctx -> %d same=%d\n", rc, memcmp(out, want, sizeof(out)) == 0);
    rc = blosc2_getitem_ctx(sc->dctx, chunk, cb, 4000, 10, out, sizeof(out));
    printf("getitem lazychunk with dctx -> %d same=%d\n", rc, memcmp(out, want + 4000, 40) == 0);
  }
  if (needs_free) free(chunk);

  /* append_chunk without copy: the super-chunk takes the malloc'd chunk */
  fill(buf, CHUNKITEMS, 8);
  uint8_t *own = malloc(sizeof(buf) + BLOSC2_MAX_OVERHEAD);
  int csize = blosc2_compress_ctx(sc->cctx, buf, sizeof(buf), own, sizeof(buf) + BLOSC2_MAX_OVERHEAD);
  printf("compress_ctx with schunk cctx -> %s\n", csize > 0 ? "ok" : "error");
  printf("append_chunk no copy -> %lld\n", (long long)blosc2_schunk_append_chunk(sc, own, false));
  /* a chunk list keeps the caller's buffer itself, as its data pointer (frames copy it in) */
  if (sc->storage->contiguous || sc->storage->urlpath != NULL)
    printf("data holds the chunk handed over -> (frame)\n");
  else
    printf("data holds the chunk handed over -> %d\n", sc->data[sc->nchunks - 1] == own);
  seeds[7] = 8;
  fields("chunks", sc);
  check_data("chunks", sc, seeds);

  /* insert / update / delete */
  fill(buf, CHUNKITEMS, 20);
  uint8_t *c20 = malloc(sizeof(buf) + BLOSC2_MAX_OVERHEAD);
  csize = blosc2_compress_ctx(sc->cctx, buf, sizeof(buf), c20, sizeof(buf) + BLOSC2_MAX_OVERHEAD);
  printf("insert_chunk 1 -> %lld\n", (long long)blosc2_schunk_insert_chunk(sc, 1, c20, true));
  memmove(seeds + 2, seeds + 1, 7 * sizeof(int));
  seeds[1] = 20;
  fields("inserted", sc);
  check_data("inserted", sc, seeds);
  printf("update_chunk 4 -> %lld\n", (long long)blosc2_schunk_update_chunk(sc, 4, c20, true));
  seeds[4] = 20;
  fields("updated", sc);
  check_data("updated", sc, seeds);
  /* update_chunk without copy: a chunk list keeps the caller's buffer too */
  fill(buf, CHUNKITEMS, 21);
  uint8_t *c21 = malloc(sizeof(buf) + BLOSC2_MAX_OVERHEAD);
  csize = blosc2_compress_ctx(sc->cctx, buf, sizeof(buf), c21, sizeof(buf) + BLOSC2_MAX_OVERHEAD);
  printf("update_chunk 3 no copy -> %lld\n", (long long)blosc2_schunk_update_chunk(sc, 3, c21, false));
  if (sc->storage->contiguous || sc->storage->urlpath != NULL)
    printf("data holds the updated chunk handed over -> (frame)\n");
  else
    printf("data holds the updated chunk handed over -> %d\n", sc->data[3] == c21);
  seeds[3] = 21;
  fields("updated no copy", sc);
  check_data("updated no copy", sc, seeds);
  printf("delete_chunk 0 -> %lld\n", (long long)blosc2_schunk_delete_chunk(sc, 0));
  memmove(seeds, seeds + 1, 8 * sizeof(int));
  fields("deleted", sc);
  check_data("deleted", sc, seeds);
  free(c20);
  print_frame("after edits", sc);

  /* slices */
  int32_t slice[300];
  int rc = blosc2_schunk_get_slice_buffer(sc, CHUNKITEMS - 100, CHUNKITEMS + 200, slice);
  int32_t a[CHUNKITEMS], b[CHUNKITEMS];
  fill(a, CHUNKITEMS, seeds[0]);
  fill(b, CHUNKITEMS, seeds[1]);
  CHECK(rc == 0 && memcmp(slice, a + CHUNKITEMS - 100, 400) == 0 && memcmp(slice + 100, b, 800) == 0);
  printf("get_slice_buffer -> %d\n", rc);
  for (int i = 0; i < 300; i++) slice[i] = -i;
  rc = blosc2_schunk_set_slice_buffer(sc, CHUNKITEMS - 100, CHUNKITEMS + 200, slice);
  printf("set_slice_buffer -> %d\n", rc);
  int32_t back[300];
  rc = blosc2_schunk_get_slice_buffer(sc, CHUNKITEMS - 100, CHUNKITEMS + 200, back);
  CHECK(rc == 0 && memcmp(back, slice, sizeof(slice)) == 0);
  fields("sliced", sc);
  print_frame("after slices", sc);
  int32_t *big = malloc(sc->nbytes + 64 * TS);
  rc = blosc2_schunk_get_slice_buffer(sc, 0, sc->nbytes / TS + 1, big);
  printf("get_slice_buffer past the end -> %d\n", rc < 0 ? rc : 0);
  free(big);

  /* parameters */
  blosc2_cparams *cp;
  blosc2_dparams *dp;
  printf("get_cparams -> %d\n", blosc2_schunk_get_cparams(sc, &cp));
  printf("cparams: compcode=%d clevel=%d typesize=%d nthreads=%d blocksize=%d splitmode=%d "
         "filters=%d,%d schunk_is_self=%d\n",
         cp->compcode, cp->clevel, cp->typesize, cp->nthreads, cp->blocksize, cp->splitmode,
         cp->filters[4], cp->filters[5], cp->schunk == (void *)sc);
  free(cp);
  printf("get_dparams -> %d\n", blosc2_schunk_get_dparams(sc, &dp));
  printf("dparams: nthreads=%d schunk_is_self=%d\n", dp->nthreads, dp->schunk == (void *)sc);
  free(dp);

  /* reorder */
  int64_t order[16];
  int n = (int)sc->nchunks;
  for (int i = 0; i < n; i++) order[i] = n - 1 - i;
  printf("reorder_offsets -> %d\n", blosc2_schunk_reorder_offsets(sc, order));
  int rseeds[16];
  for (int i = 0; i < n; i++) rseeds[i] = seeds[n - 1 - i];
  /* slices changed chunks 0 and 1: compare those by slice, the rest by data */
  int32_t got[CHUNKITEMS];
  for (int i = 0; i < n - 2; i++) {
    fill(a, CHUNKITEMS, rseeds[i]);
    rc = blosc2_schunk_decompress_chunk(sc, i, got, sizeof(got));
    CHECK(rc == (int)sizeof(got) && memcmp(a, got, sizeof(got)) == 0);
  }
  fields("reordered", sc);
  print_frame("after reorder", sc);

  /* vlmetalayers */
  printf("vlmeta_add v1 -> %d\n", blosc2_vlmeta_add(sc, "v1", (uint8_t *)"hello", 5, NULL));
  blosc2_cparams vlcp = BLOSC2_CPARAMS_DEFAULTS;
  vlcp.compcode = BLOSC_ZSTD;
  vlcp.typesize = 1;
  printf("vlmeta_add v2 -> %d\n",
         blosc2_vlmeta_add(sc, "v2", (uint8_t *)"a longer vlmetalayer content", 28, &vlcp));
  printf("vlmeta_add v1 again -> %d\n", blosc2_vlmeta_add(sc, "v1", (uint8_t *)"x", 1, NULL));
  printf("vlmeta_exists v2 -> %d, nope -> %d\n", blosc2_vlmeta_exists(sc, "v2"),
         blosc2_vlmeta_exists(sc, "nope"));
  printf("vlmeta_update v1 -> %d\n",
         blosc2_vlmeta_update(sc, "v1", (uint8_t *)"hello world!", 12, NULL));
  printf("vlmeta_update nope -> %d\n", blosc2_vlmeta_update(sc, "nope", (uint8_t *)"x", 1, NULL));
  content = NULL;
  idx = blosc2_vlmeta_get(sc, "v1", &content, &content_len);
  printf("vlmeta_get v1 -> %d len=%d '%.*s'\n", idx, content_len, content_len, (char *)content);
  free(content);
  char *names[8];
  int nn = blosc2_vlmeta_get_names(sc, names);
  printf("vlmeta_get_names -> %d:", nn);
  for (int i = 0; i < nn; i++) printf(" %s", names[i]);
  printf("\n");
  fields("vlmeta", sc);
  print_frame("with vlmeta", sc);
  printf("vlmeta_delete v1 -> %d\n", blosc2_vlmeta_delete(sc, "v1"));
  printf("vlmeta_delete v1 again -> %d\n", blosc2_vlmeta_delete(sc, "v1"));
  nn = blosc2_vlmeta_get_names(sc, names);
  printf("vlmeta_get_names -> %d: %s\n", nn, nn > 0 ? names[0] : "");
  fields("vldeleted", sc);

  /* offsets */
  int64_t *offsets = blosc2_frame_get_offsets(sc);
  if (offsets != NULL) {
    printf("frame_get_offsets:");
    for (int i = 0; i < sc->nchunks; i++) printf(" %lld", (long long)offsets[i]);
    printf("\n");
    free(offsets);
  } else {
    printf("frame_get_offsets: NULL\n");
  }

  /* copies to other storages */
  blosc2_storage mem = {.contiguous = true};
  blosc2_schunk *copy = blosc2_schunk_copy(sc, &mem);
  CHECK(copy != NULL);
  if (copy) {
    fields("copy to cframe", copy);
    print_frame("copy to cframe", copy);
    blosc2_schunk_free(copy);
  }
  blosc2_storage mem2 = {.contiguous = false};
  copy = blosc2_schunk_copy(sc, &mem2);
  CHECK(copy != NULL);
  if (copy) {
    fields("copy to list", copy);
    blosc2_schunk_free(copy);
  }

  /* to_file / open / append_file / open_offset */
  blosc2_remove_urlpath("lifecycle_out.b2frame");
  printf("to_file -> %lld\n", (long long)blosc2_schunk_to_file(sc, "lifecycle_out.b2frame"));
  blosc2_schunk *opened = blosc2_schunk_open("lifecycle_out.b2frame");
  CHECK(opened != NULL);
  if (opened) {
    fields("opened", opened);
    content = NULL;
    idx = blosc2_meta_get(opened, "m2", &content, &content_len);
    printf("opened meta_get m2 -> %d len=%d\n", idx, content_len);
    free(content);
    print_frame("opened", opened);
    blosc2_schunk_free(opened);
  }
  int64_t off = blosc2_schunk_append_file(sc, "lifecycle_out.b2frame");
  printf("append_file -> %lld\n", (long long)off);
  opened = blosc2_schunk_open_offset("lifecycle_out.b2frame", off);
  CHECK(opened != NULL);
  if (opened) {
    fields("open_offset", opened);
    blosc2_schunk_free(opened);
  }
  blosc2_remove_urlpath("lifecycle_out.b2frame");

  printf("free -> %d\n", blosc2_schunk_free(sc));
  blosc2_remove_urlpath(urlpath);
}

static void buffers(void) {
  printf("== buffers\n");
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = TS;
  blosc2_storage storage = {.contiguous = true, .cparams = &cparams};
  blosc2_schunk *sc = blosc2_schunk_new(&storage);
  int32_t buf[CHUNKITEMS];
  int seeds[4] = {1, 2, 3, 4};
  for (int i = 0; i < 4; i++) {
    fill(buf, CHUNKITEMS, i + 1);
    blosc2_schunk_append_buffer(sc, buf, sizeof(buf));
  }
  uint8_t *cframe;
  bool needs_free;
  int64_t len = blosc2_schunk_to_buffer(sc, &cframe, &needs_free);
  printf("to_buffer -> %lld needs_free=%d hash=%016llx\n", (long long)len, needs_free,
         (unsigned long long)fnv(cframe, len));
  uint8_t *mine = malloc(len);
  memcpy(mine, cframe, len);
  if (needs_free) free(cframe);

  blosc2_schunk *nocopy = blosc2_schunk_from_buffer(mine, len, false);
  CHECK(nocopy != NULL);
  fields("from_buffer nocopy", nocopy);
  check_data("from_buffer nocopy", nocopy, seeds);
  uint8_t *chunk;
  int cb = blosc2_schunk_get_chunk(nocopy, 1, &chunk, &needs_free);
  printf("nocopy get_chunk -> %d needs_free=%d inside_buffer=%d\n", cb, needs_free,
         chunk >= mine && chunk < mine + len);
  blosc2_schunk_free(nocopy);

  blosc2_schunk *copied = blosc2_schunk_from_buffer(mine, len, true);
  CHECK(copied != NULL);
  memset(mine, 0, len);
  free(mine);
  fields("from_buffer copy", copied);
  check_data("from_buffer copy", copied, seeds);
  cb = blosc2_schunk_get_chunk(copied, 1, &chunk, &needs_free);
  printf("copy get_chunk -> %d needs_free=%d\n", cb, needs_free);
  if (needs_free) free(chunk);
  print_frame("from_buffer copy", copied);
  blosc2_schunk_free(copied);

  /* avoid_cframe_free: the caller keeps the in-memory frame */
  len = blosc2_schunk_to_buffer(sc, &cframe, &needs_free);
  printf("to_buffer of a cframe -> needs_free=%d\n", needs_free);
  blosc2_schunk_avoid_cframe_free(sc, true);
  blosc2_schunk_free(sc);
  blosc2_schunk *again = blosc2_schunk_from_buffer(cframe, len, true);
  CHECK(again != NULL && again->nchunks == 4);
  blosc2_schunk_free(again);
  free(cframe);

  printf("from_buffer garbage -> %s\n",
         blosc2_schunk_from_buffer((uint8_t *)"not a frame at all, not at all", 30, true) == NULL
             ? "NULL" : "non-NULL");
}

static void specials(void) {
  printf("== specials\n");
  for (int contiguous = 0; contiguous < 2; contiguous++) {
    blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
    cparams.typesize = 8;
    blosc2_storage storage = {.contiguous = contiguous, .cparams = &cparams};
    blosc2_schunk *sc = blosc2_schunk_new(&storage);
    int64_t n = blosc2_schunk_fill_special(sc, 100000, BLOSC2_SPECIAL_ZERO, 8 * 30000);
    printf("fill_special zeros contiguous=%d -> %lld\n", contiguous, (long long)n);
    fields("zeros", sc);
    double d[30000];
    int rc = blosc2_schunk_decompress_chunk(sc, 3, d, sizeof(d));
    printf("decompress last -> %d first=%g\n", rc, d[0]);
    uint8_t *chunk;
    bool needs_free;
    rc = blosc2_schunk_get_chunk(sc, 0, &chunk, &needs_free);
    printf("get_chunk special -> %d needs_free=%d\n", rc, needs_free);
    if (needs_free) free(chunk);
    printf("fill_special again -> %lld\n",
           (long long)blosc2_schunk_fill_special(sc, 10, BLOSC2_SPECIAL_ZERO, 80));
    if (contiguous) print_frame("zeros", sc);
    blosc2_schunk_free(sc);

    sc = blosc2_schunk_new(&storage);
    n = blosc2_schunk_fill_special(sc, 1000, BLOSC2_SPECIAL_NAN, 8 * 300);
    printf("fill_special nans -> %lld\n", (long long)n);
    rc = blosc2_schunk_decompress_chunk(sc, 3, d, sizeof(d));
    printf("decompress nan chunk -> %d isnan=%d\n", rc, d[0] != d[0]);
    printf("fill_special bad value -> %lld\n",
           (long long)blosc2_schunk_fill_special(sc, 10, 3, 80) < 0 ? -1LL : 0LL);
    blosc2_schunk_free(sc);
  }
}

/* msgpack of a b2nd metalayer, as b2nd_serialize_meta writes it */
static int b2nd_meta(uint8_t *out, int ndim, const int64_t *shape, const int32_t *chunkshape,
                     const int32_t *blockshape, const char *dtype) {
  uint8_t *p = out;
  *p++ = 0x97;
  *p++ = 0; /* version */
  *p++ = (uint8_t)ndim;
  *p++ = (uint8_t)(0x90 + ndim);
  for (int i = 0; i < ndim; i++) {
    *p++ = 0xd3;
    for (int b = 7; b >= 0; b--) *p++ = (uint8_t)(shape[i] >> (8 * b));
  }
  for (int k = 0; k < 2; k++) {
    const int32_t *v = k == 0 ? chunkshape : blockshape;
    *p++ = (uint8_t)(0x90 + ndim);
    for (int i = 0; i < ndim; i++) {
      *p++ = 0xd2;
      for (int b = 3; b >= 0; b--) *p++ = (uint8_t)(v[i] >> (8 * b));
    }
  }
  *p++ = 0; /* dtype format */
  *p++ = 0xdb;
  int32_t len = (int32_t)strlen(dtype);
  for (int b = 3; b >= 0; b--) *p++ = (uint8_t)(len >> (8 * b));
  memcpy(p, dtype, len);
  p += len;
  return (int)(p - out);
}

static void print_slice_nchunks(blosc2_schunk *sc, int64_t *start, int64_t *stop) {
  int64_t *idx = NULL;
  int64_t n = blosc2_get_slice_nchunks(sc, start, stop, &idx);
  printf("get_slice_nchunks -> %lld:", (long long)n);
  for (int64_t i = 0; i < n; i++) printf(" %lld", (long long)idx[i]);
  printf("\n");
  if (n >= 0) free(idx);
}

static void slices_and_vlblocks(void) {
  printf("== slice chunks and vl blocks\n");
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = TS;
  blosc2_storage storage = {.contiguous = false, .cparams = &cparams};
  blosc2_schunk *sc = blosc2_schunk_new(&storage);
  int32_t buf[CHUNKITEMS];
  for (int i = 0; i < 4; i++) {
    fill(buf, CHUNKITEMS, i + 1);
    blosc2_schunk_append_buffer(sc, buf, sizeof(buf));
  }
  int64_t cases[][2] = {{0, CHUNKITEMS}, {CHUNKITEMS - 1, CHUNKITEMS + 1}, {100, 3 * CHUNKITEMS + 7},
                        {2 * CHUNKITEMS, 4 * CHUNKITEMS}, {0, 1}};
  for (int i = 0; i < 5; i++) print_slice_nchunks(sc, &cases[i][0], &cases[i][1]);
  blosc2_schunk_free(sc);

  /* an array of 10 x 12 items in chunks of 4 x 5 */
  storage.contiguous = true;
  sc = blosc2_schunk_new(&storage);
  uint8_t meta[256];
  int64_t shape[2] = {10, 12};
  int32_t chunkshape[2] = {4, 5}, blockshape[2] = {2, 5};
  int mlen = b2nd_meta(meta, 2, shape, chunkshape, blockshape, "<i4");
  printf("meta_add b2nd -> %d\n", blosc2_meta_add(sc, "b2nd", meta, mlen));
  /* its 3 x 3 chunks of 4 x 5 items (c-blosc2 sizes the index list by the chunks present) */
  printf("fill_special -> %lld\n",
         (long long)blosc2_schunk_fill_special(sc, 9 * 20, BLOSC2_SPECIAL_ZERO, 20 * TS));
  int64_t s1[2] = {1, 2}, e1[2] = {9, 11};
  int64_t s2[2] = {4, 5}, e2[2] = {8, 10};
  int64_t s3[2] = {0, 0}, e3[2] = {10, 12};
  int64_t s4[2] = {9, 11}, e4[2] = {10, 12};
  print_slice_nchunks(sc, s1, e1);
  print_slice_nchunks(sc, s2, e2);
  print_slice_nchunks(sc, s3, e3);
  print_slice_nchunks(sc, s4, e4);
  blosc2_schunk_free(sc);

  /* VL-block chunks */
  storage.contiguous = false;
  sc = blosc2_schunk_new(&storage);
  const char *blocks[3] = {"first block", "the second, longer block of this chunk", "3rd"};
  int32_t sizes[3] = {11, 38, 3};
  uint8_t chunk[512];
  int cb = blosc2_vlcompress_ctx(sc->cctx, (const void *const *)blocks, sizes, 3, chunk, sizeof(chunk));
  printf("vlcompress_ctx -> %s\n", cb > 0 ? "ok" : "error");
  printf("append vl chunk -> %lld\n", (long long)blosc2_schunk_append_chunk(sc, chunk, true));
  printf("flags2=%d\n", sc->flags2);
  for (int b = 0; b < 4; b++) {
    uint8_t *dest = NULL;
    int32_t destsize = 0;
    int rc = blosc2_schunk_get_vlblock(sc, 0, b, &dest, &destsize);
    printf("get_vlblock %d -> %d '%.*s'\n", b, rc, rc > 0 ? destsize : 0, rc > 0 ? (char *)dest : "");
    if (rc > 0) free(dest);
  }
  blosc2_schunk_free(sc);
}

static void mmap_io(void) {
  printf("== mmap io\n");
  const char *urlpath = "lifecycle_mmap.b2frame";
  blosc2_remove_urlpath(urlpath);
  blosc2_stdio_mmap mm = BLOSC2_STDIO_MMAP_DEFAULTS;
  mm.mode = "w+";
  mm.initial_mapping_size = 4096; /* small: appends remap */
  blosc2_io io = {.id = BLOSC2_IO_FILESYSTEM_MMAP, .name = "filesystem_mmap", .params = &mm};
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = TS;
  blosc2_storage storage = {.contiguous = true, .urlpath = (char *)urlpath, .cparams = &cparams,
                            .io = &io};
  blosc2_schunk *sc = blosc2_schunk_new(&storage);
  CHECK(sc != NULL);
  if (sc == NULL) return;
  int32_t buf[CHUNKITEMS];
  int seeds[8];
  for (int i = 0; i < 8; i++) {
    fill(buf, CHUNKITEMS, i + 1);
    seeds[i] = i + 1;
    blosc2_schunk_append_buffer(sc, buf, sizeof(buf));
  }
  fields("mmap w+", sc);
  check_data("mmap w+", sc, seeds);
  print_frame("mmap w+", sc);
  int64_t len = blosc2_schunk_frame_len(sc);
  blosc2_schunk_free(sc);
  printf("after free: mapped=%d\n", mm.addr != NULL);
  FILE *f = fopen(urlpath, "rb");
  fseek(f, 0, SEEK_END);
  printf("file size matches frame_len: %d\n", ftell(f) == len);
  fclose(f);

  blosc2_stdio_mmap mr = BLOSC2_STDIO_MMAP_DEFAULTS;
  mr.mode = "r";
  blosc2_io ior = {.id = BLOSC2_IO_FILESYSTEM_MMAP, .name = "filesystem_mmap", .params = &mr};
  sc = blosc2_schunk_open_udio(urlpath, &ior);
  CHECK(sc != NULL);
  if (sc) {
    fields("mmap r", sc);
    check_data("mmap r", sc, seeds);
    blosc2_schunk_free(sc);
  }

  /* copy-on-write: changes stay in memory */
  blosc2_stdio_mmap mc = BLOSC2_STDIO_MMAP_DEFAULTS;
  mc.mode = "c";
  mc.initial_mapping_size = 1 << 20;
  blosc2_io ioc = {.id = BLOSC2_IO_FILESYSTEM_MMAP, .name = "filesystem_mmap", .params = &mc};
  sc = blosc2_schunk_open_udio(urlpath, &ioc);
  CHECK(sc != NULL);
  if (sc) {
    fill(buf, CHUNKITEMS, 50);
    uint8_t *c = malloc(sizeof(buf) + BLOSC2_MAX_OVERHEAD);
    blosc2_compress_ctx(sc->cctx, buf, sizeof(buf), c, sizeof(buf) + BLOSC2_MAX_OVERHEAD);
    printf("mmap c update_chunk -> %lld\n", (long long)blosc2_schunk_update_chunk(sc, 0, c, false));
    int cseeds[8];
    memcpy(cseeds, seeds, sizeof(seeds));
    cseeds[0] = 50;
    check_data("mmap c", sc, cseeds);
    blosc2_schunk_free(sc);
  }
  sc = blosc2_schunk_open(urlpath);
  CHECK(sc != NULL);
  if (sc) {
    check_data("file unchanged after c", sc, seeds);
    blosc2_schunk_free(sc);
  }
  blosc2_remove_urlpath(urlpath);
}

static void refresh_and_lock(void) {
  printf("== refresh and lock\n");
  const char *urlpath = "lifecycle_refresh.b2frame";
  blosc2_remove_urlpath(urlpath);
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = TS;
  blosc2_storage storage = {.contiguous = true, .urlpath = (char *)urlpath, .cparams = &cparams};
  blosc2_schunk *writer = blosc2_schunk_new(&storage);
  int32_t buf[CHUNKITEMS];
  fill(buf, CHUNKITEMS, 1);
  blosc2_schunk_append_buffer(writer, buf, sizeof(buf));
  blosc2_schunk *reader = blosc2_schunk_open(urlpath);
  printf("reader nchunks=%lld\n", (long long)reader->nchunks);
  printf("refresh unchanged -> %d\n", blosc2_schunk_refresh(reader));
  fill(buf, CHUNKITEMS, 2);
  blosc2_schunk_append_buffer(writer, buf, sizeof(buf));
  int refreshed = blosc2_schunk_refresh(reader);
  printf("refresh after append -> %d nchunks=%lld nbytes=%lld\n", refreshed,
         (long long)reader->nchunks, (long long)reader->nbytes);
  printf("refresh again -> %d\n", blosc2_schunk_refresh(reader));
  int seeds[2] = {1, 2};
  check_data("refreshed", reader, seeds);
  int locked = blosc2_schunk_lock(writer);
  printf("lock -> %d, unlock -> %d\n", locked, blosc2_schunk_unlock(writer));
  blosc2_schunk_free(reader);
  blosc2_schunk_free(writer);
  blosc2_storage mem = {.contiguous = false, .cparams = &cparams};
  blosc2_schunk *m = blosc2_schunk_new(&mem);
  printf("refresh in memory -> %d\n", blosc2_schunk_refresh(m));
  locked = blosc2_schunk_lock(m);
  printf("lock in memory -> %d, unlock -> %d\n", locked, blosc2_schunk_unlock(m));
  blosc2_schunk_free(m);
  blosc2_remove_urlpath(urlpath);
}

static void errors(void) {
  printf("== errors\n");
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = TS;
  blosc2_storage storage = {.contiguous = false, .cparams = &cparams};
  blosc2_schunk *sc = blosc2_schunk_new(&storage);
  int32_t buf[CHUNKITEMS];
  fill(buf, CHUNKITEMS, 1);
  blosc2_schunk_append_buffer(sc, buf, sizeof(buf));
  blosc2_schunk_append_buffer(sc, buf, sizeof(buf));
  uint8_t *chunk;
  bool needs_free;
  printf("get_chunk 5 -> %d\n", blosc2_schunk_get_chunk(sc, 5, &chunk, &needs_free));
  printf("get_chunk -1 -> %d\n", blosc2_schunk_get_chunk(sc, -1, &chunk, &needs_free));
  printf("decompress_chunk 7 -> %d\n", blosc2_schunk_decompress_chunk(sc, 7, buf, sizeof(buf)));
  printf("decompress_chunk small dest -> %d\n", blosc2_schunk_decompress_chunk(sc, 0, buf, 100));
  printf("delete_chunk 9 -> %lld\n", (long long)(blosc2_schunk_delete_chunk(sc, 9) < 0 ? -1 : 0));
  printf("meta_add NULL name -> %d\n", blosc2_meta_add(sc, NULL, NULL, 0) < 0 ? -1 : 0);
  printf("meta_exists long name -> %d\n",
         blosc2_meta_exists(sc, "a_very_long_metalayer_name_over_31_chars"));
  printf("vlmeta_get nope -> %d\n", blosc2_vlmeta_get(sc, "nope", &chunk, &(int32_t){0}));
  printf("vlmeta_delete nope -> %d\n", blosc2_vlmeta_delete(sc, "nope"));
  printf("to_file NULL -> %lld\n", (long long)blosc2_schunk_to_file(sc, NULL));
  printf("open missing -> %s\n", blosc2_schunk_open("no/such/frame.b2frame") == NULL ? "NULL" : "?");
  blosc2_schunk_free(sc);

  /* an existing cframe file or sframe directory is not overwritten */
  blosc2_remove_urlpath("errors_exists.b2frame");
  storage.contiguous = true;
  storage.urlpath = "errors_exists.b2frame";
  sc = blosc2_schunk_new(&storage);
  blosc2_schunk_append_buffer(sc, buf, sizeof(buf));
  blosc2_schunk_free(sc);
  printf("new over existing file -> %s\n", blosc2_schunk_new(&storage) == NULL ? "NULL" : "?");
  blosc2_remove_urlpath("errors_exists.b2frame");
}

/* A user I/O backend over the stdio functions, counting calls. */
static int n_open, n_close, n_write, n_read;
static void *uopen(const char *urlpath, const char *mode, void *params) {
  n_open++;
  return blosc2_stdio_open(urlpath, mode, params);
}
static int uclose(void *stream) {
  n_close++;
  return blosc2_stdio_close(stream);
}
static int64_t usize(void *stream) { return blosc2_stdio_size(stream); }
static int64_t uwrite(const void *ptr, int64_t size, int64_t nitems, int64_t position, void *stream) {
  n_write++;
  return blosc2_stdio_write(ptr, size, nitems, position, stream);
}
static int64_t uread(void **ptr, int64_t size, int64_t nitems, int64_t position, void *stream) {
  n_read++;
  return blosc2_stdio_read(ptr, size, nitems, position, stream);
}
static int utruncate(void *stream, int64_t size) { return blosc2_stdio_truncate(stream, size); }
static int n_destroy;
static int udestroy(void *params) {
  (void)params;
  n_destroy++;
  return 0;
}

static void user_io(void) {
  printf("== user io\n");
  blosc2_io_cb cb = {.id = 200, .name = "counting", .is_allocation_necessary = true,
                     .open = uopen, .close = uclose, .size = usize, .write = uwrite,
                     .read = uread, .truncate = utruncate, .destroy = udestroy};
  printf("register_io_cb 200 -> %d\n", blosc2_register_io_cb(&cb));
  printf("register_io_cb 200 again -> %d\n", blosc2_register_io_cb(&cb) < 0 ? -1 : 0);
  blosc2_io_cb low = cb;
  low.id = 5;
  printf("register_io_cb 5 -> %d\n", blosc2_register_io_cb(&low) < 0 ? -1 : 0);
  blosc2_io_cb *got = blosc2_get_io_cb(200);
  printf("get_io_cb 200 -> %s name=%s\n", got ? "found" : "NULL", got ? got->name : "");
  printf("get_io_cb 201 -> %s\n", blosc2_get_io_cb(201) ? "found" : "NULL");
  got = blosc2_get_io_cb(BLOSC2_IO_FILESYSTEM);
  printf("get_io_cb filesystem -> %s\n", got ? "found" : "NULL");

  blosc2_io io = {.id = 200, .name = "counting", .params = NULL};
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = TS;
  blosc2_remove_urlpath("user_io.b2frame");
  blosc2_storage storage = {.contiguous = true, .urlpath = "user_io.b2frame",
                            .cparams = &cparams, .io = &io};
  blosc2_schunk *sc = blosc2_schunk_new(&storage);
  CHECK(sc != NULL);
  int32_t buf[CHUNKITEMS];
  int seeds[3] = {1, 2, 3};
  for (int i = 0; i < 3; i++) {
    fill(buf, CHUNKITEMS, i + 1);
    blosc2_schunk_append_buffer(sc, buf, sizeof(buf));
  }
  printf("user io: storage io id=%d\n", sc->storage->io->id);
  check_data("user io", sc, seeds);
  printf("user io used: open=%d write=%d read=%d closes_match=%d\n", n_open > 0, n_write > 0,
         n_read > 0, n_open >= n_close);
  blosc2_schunk_free(sc);
  n_read = 0;
  sc = blosc2_schunk_open_udio("user_io.b2frame", &io);
  CHECK(sc != NULL);
  if (sc) {
    fields("open_udio", sc);
    check_data("open_udio", sc, seeds);
    printf("open_udio read through callbacks: %d\n", n_read > 0);
    blosc2_schunk_free(sc);
  }
  blosc2_io bad = {.id = 222, .name = "missing", .params = NULL};
  printf("destroy calls: %d\n", n_destroy);
  printf("open_udio unregistered -> %s\n",
         blosc2_schunk_open_udio("user_io.b2frame", &bad) == NULL ? "NULL" : "?");
  blosc2_remove_urlpath("user_io.b2frame");

  /* the stdio functions themselves */
  void *f = blosc2_stdio_open("stdio_test.bin", "wb+", NULL);
  printf("stdio_open -> %s\n", f ? "ok" : "NULL");
  printf("stdio_write -> %lld\n", (long long)blosc2_stdio_write("abcdefgh", 1, 8, 0, f));
  printf("stdio_write at 10 -> %lld\n", (long long)blosc2_stdio_write("XY", 2, 1, 10, f));
  printf("stdio_size -> %lld\n", (long long)blosc2_stdio_size(f));
  char rb[8] = {0};
  void *rp = rb;
  printf("stdio_read -> %lld '%.4s'\n", (long long)blosc2_stdio_read(&rp, 1, 4, 2, f), rb);
  printf("stdio_truncate -> %d\n", blosc2_stdio_truncate(f, 5));
  printf("stdio_size -> %lld\n", (long long)blosc2_stdio_size(f));
  printf("stdio_close -> %d\n", blosc2_stdio_close(f));
  printf("stdio_open missing -> %s\n",
         blosc2_stdio_open("no/such/dir/x.bin", "rb", NULL) ? "ok" : "NULL");
  unlink("stdio_test.bin");
}

int main(void) {
  blosc2_init();
  lifecycle("memory list", false, NULL);
  lifecycle("memory cframe", true, NULL);
  lifecycle("cframe file", true, "lifecycle.b2frame");
  lifecycle("sframe dir", false, "lifecycle.b2sframe");
  buffers();
  specials();
  slices_and_vlblocks();
  mmap_io();
  refresh_and_lock();
  errors();
  user_io();
  blosc2_destroy();
  printf("%d passed, %d failed\n", npassed, nfailed);
  return nfailed != 0;
}
