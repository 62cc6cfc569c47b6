/* Writes frames with the reference c-blosc2 3.3.5 and prints, for every frame given or written,
 * one line per chunk: "<name> <nchunk> <nbytes> <fnv1a64 of the decompressed bytes>", plus the
 * metalayers and vlmetalayers.  Used to produce tests/data/frames/expected.txt and the
 * reference-written frames under tests/data/frames/ref/.
 *
 *   gen write DIR          write the representative frames into DIR
 *   gen dump FILE...       print the chunk checksums of existing frames (cframes, sframes, b2nd)
 */
#include <blosc2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

static uint64_t fnv1a(const uint8_t *p, size_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++) { h ^= p[i]; h *= 1099511628211ULL; }
  return h;
}

static void hexdump(const uint8_t *p, int n) {
  for (int i = 0; i < n; i++) printf("%02x", p[i]);
}

static int dump_schunk(const char *name, blosc2_schunk *sc) {
  printf("%s schunk nchunks=%lld nbytes=%lld cbytes=%lld chunksize=%d typesize=%d blocksize=%d"
         " compcode=%d clevel=%d\n", name, (long long)sc->nchunks, (long long)sc->nbytes,
         (long long)sc->cbytes, sc->chunksize, sc->typesize, sc->blocksize, sc->compcode, sc->clevel);
  for (int i = 0; i < sc->nmetalayers; i++) {
    printf("%s meta %s ", name, sc->metalayers[i]->name);
    hexdump(sc->metalayers[i]->content, sc->metalayers[i]->content_len);
    printf("\n");
  }
  for (int i = 0; i < sc->nvlmetalayers; i++) {
    uint8_t *c; int32_t len;
    if (blosc2_vlmeta_get(sc, sc->vlmetalayers[i]->name, &c, &len) < 0) return 1;
    printf("%s vlmeta %s ", name, sc->vlmetalayers[i]->name);
    hexdump(c, len);
    printf("\n");
    free(c);
  }
  for (int64_t n = 0; n < sc->nchunks; n++) {
    uint8_t *chunk; bool needs_free;
    int cb = blosc2_schunk_get_chunk(sc, n, &chunk, &needs_free);
    if (cb < 0) { printf("%s chunk %lld error %d\n", name, (long long)n, cb); continue; }
    int32_t nbytes, cbytes, bsize;
    blosc2_cbuffer_sizes(chunk, &nbytes, &cbytes, &bsize);
    uint64_t chash = fnv1a(chunk, cb);
    if (needs_free) free(chunk);
    uint8_t *buf = malloc(nbytes > 0 ? nbytes : 1);
    int d = blosc2_schunk_decompress_chunk(sc, n, buf, nbytes);
    printf("%s chunk %lld %d %d %016llx %016llx\n", name, (long long)n, d, cb,
           (unsigned long long)(d >= 0 ? fnv1a(buf, d) : 0), (unsigned long long)chash);
    free(buf);
    uint8_t *lazy;
    int lb = blosc2_schunk_get_lazychunk(sc, n, &lazy, &needs_free);
    if (lb < 0) { printf("%s lazy %lld error %d\n", name, (long long)n, lb); continue; }
    printf("%s lazy %lld %d %016llx\n", name, (long long)n, lb, (unsigned long long)fnv1a(lazy, lb));
    if (needs_free) free(lazy);
  }
  return 0;
}

static blosc2_schunk *new_schunk(const char *urlpath, bool contiguous, int typesize) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = typesize;
  cp.compcode = BLOSC_LZ4;
  cp.clevel = 5;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_storage st = {.contiguous = contiguous, .urlpath = (char *)urlpath, .cparams = &cp,
                       .dparams = &dp};
  return blosc2_schunk_new(&st);
}

static void fill(int32_t *buf, int n, int seed) {
  for (int i = 0; i < n; i++) buf[i] = seed * 1000 + i * (seed + 1) + (i % 7) * 3;
}

#define CHUNK_ITEMS 10000

static int append_data(blosc2_schunk *sc, int nchunks, int last_items) {
  int32_t *buf = malloc(CHUNK_ITEMS * 4);
  for (int c = 0; c < nchunks; c++) {
    int items = (c == nchunks - 1 && last_items) ? last_items : CHUNK_ITEMS;
    fill(buf, items, c);
    if (blosc2_schunk_append_buffer(sc, buf, items * 4) < 0) return -1;
  }
  free(buf);
  return 0;
}

static int write_to(blosc2_schunk *sc, const char *path) {
  uint8_t *cframe; bool needs_free;
  int64_t len = blosc2_schunk_to_buffer(sc, &cframe, &needs_free);
  if (len < 0) return -1;
  FILE *f = fopen(path, "wb");
  fwrite(cframe, 1, len, f);
  fclose(f);
  if (needs_free) free(cframe);
  return 0;
}

static int write_all(const char *dir) {
  char path[1024];
  int32_t *buf = malloc(CHUNK_ITEMS * 4);
  uint8_t meta1[] = {0x93, 0x01, 0x02, 0x03};
  uint8_t meta2[40]; for (int i = 0; i < 40; i++) meta2[i] = (uint8_t)i;
  const char *vl = "a variable-length metalayer: {\"k\": [1, 2, 3]}";

  /* 1. cframe file, metalayers + vlmetalayers, 3 chunks with a short last one */
  snprintf(path, sizeof path, "%s/cframe_meta.b2frame", dir); remove(path);
  blosc2_schunk *sc = new_schunk(path, true, 4);
  blosc2_meta_add(sc, "m1", meta1, sizeof meta1);
  blosc2_meta_add(sc, "second", meta2, sizeof meta2);
  append_data(sc, 3, 1234);
  blosc2_vlmeta_add(sc, "vl1", (uint8_t *)vl, strlen(vl), NULL);
  blosc2_vlmeta_add(sc, "empty", (uint8_t *)"", 0, NULL);
  blosc2_schunk_free(sc);

  /* 2. in-memory cframe with special chunks, saved with to_buffer */
  sc = new_schunk(NULL, true, 4);
  append_data(sc, 1, 0);
  uint8_t special[BLOSC_EXTENDED_HEADER_LENGTH + 8];
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS; cp.typesize = 4;
  blosc2_chunk_zeros(cp, CHUNK_ITEMS * 4, special, sizeof special);
  blosc2_schunk_append_chunk(sc, special, true);
  blosc2_chunk_nans(cp, CHUNK_ITEMS * 4, special, sizeof special);
  blosc2_schunk_append_chunk(sc, special, true);
  blosc2_chunk_uninit(cp, CHUNK_ITEMS * 4, special, sizeof special);
  blosc2_schunk_append_chunk(sc, special, true);
  int32_t v = 0x01020304;
  blosc2_chunk_repeatval(cp, CHUNK_ITEMS * 4, special, sizeof special, &v);
  blosc2_schunk_append_chunk(sc, special, true);
  fill(buf, CHUNK_ITEMS, 9);
  blosc2_schunk_append_buffer(sc, buf, CHUNK_ITEMS * 4);
  snprintf(path, sizeof path, "%s/memory_special.b2frame", dir);
  write_to(sc, path);
  blosc2_schunk_free(sc);

  /* 3. empty frame (0 chunks) with a metalayer */
  sc = new_schunk(NULL, true, 8);
  blosc2_meta_add(sc, "empty", meta1, sizeof meta1);
  snprintf(path, sizeof path, "%s/empty.b2frame", dir);
  write_to(sc, path);
  blosc2_schunk_free(sc);

  /* 4. sframe directory */
  snprintf(path, sizeof path, "%s/sframe.b2frame", dir);
  blosc2_remove_urlpath(path);
  sc = new_schunk(path, false, 4);
  blosc2_meta_add(sc, "m1", meta1, sizeof meta1);
  append_data(sc, 3, 500);
  blosc2_vlmeta_add(sc, "vl1", (uint8_t *)vl, strlen(vl), NULL);
  blosc2_schunk_free(sc);

  /* 5. after insert/update/delete on a cframe file */
  snprintf(path, sizeof path, "%s/edited.b2frame", dir); remove(path);
  sc = new_schunk(path, true, 4);
  append_data(sc, 4, 0);
  fill(buf, CHUNK_ITEMS, 42);
  uint8_t *chunk = malloc(CHUNK_ITEMS * 4 + BLOSC2_MAX_OVERHEAD);
  int cb = blosc2_compress_ctx(sc->cctx, buf, CHUNK_ITEMS * 4, chunk, CHUNK_ITEMS * 4 + BLOSC2_MAX_OVERHEAD);
  blosc2_schunk_insert_chunk(sc, 1, chunk, true);
  fill(buf, CHUNK_ITEMS, 77);
  cb = blosc2_compress_ctx(sc->cctx, buf, CHUNK_ITEMS * 4, chunk, CHUNK_ITEMS * 4 + BLOSC2_MAX_OVERHEAD);
  blosc2_schunk_update_chunk(sc, 3, chunk, true);
  blosc2_schunk_delete_chunk(sc, 0);
  (void)cb;
  free(chunk);
  blosc2_schunk_free(sc);

  /* 7. updates that grow, shrink, turn special and back, then a delete of the last chunk */
  snprintf(path, sizeof path, "%s/edited2.b2frame", dir); remove(path);
  sc = new_schunk(path, true, 4);
  append_data(sc, 4, 0);
  chunk = malloc(CHUNK_ITEMS * 4 + BLOSC2_MAX_OVERHEAD);
  uint32_t x = 12345;
  for (int i = 0; i < CHUNK_ITEMS; i++) { x = x * 1103515245u + 12345u; buf[i] = (int32_t)(x >> 8); }
  cb = blosc2_compress_ctx(sc->cctx, buf, CHUNK_ITEMS * 4, chunk, CHUNK_ITEMS * 4 + BLOSC2_MAX_OVERHEAD);
  blosc2_schunk_update_chunk(sc, 1, chunk, true);
  for (int i = 0; i < CHUNK_ITEMS; i++) buf[i] = 5;
  cb = blosc2_compress_ctx(sc->cctx, buf, CHUNK_ITEMS * 4, chunk, CHUNK_ITEMS * 4 + BLOSC2_MAX_OVERHEAD);
  blosc2_schunk_update_chunk(sc, 2, chunk, true);
  blosc2_chunk_zeros(cp, CHUNK_ITEMS * 4, special, sizeof special);
  blosc2_schunk_update_chunk(sc, 0, special, true);
  fill(buf, CHUNK_ITEMS, 33);
  cb = blosc2_compress_ctx(sc->cctx, buf, CHUNK_ITEMS * 4, chunk, CHUNK_ITEMS * 4 + BLOSC2_MAX_OVERHEAD);
  blosc2_schunk_update_chunk(sc, 0, chunk, true);
  blosc2_schunk_delete_chunk(sc, 3);
  free(chunk);
  blosc2_schunk_free(sc);

  /* 8. sframe edited: insert, update (regular and special), delete */
  snprintf(path, sizeof path, "%s/sframe_edited.b2frame", dir);
  blosc2_remove_urlpath(path);
  sc = new_schunk(path, false, 4);
  append_data(sc, 4, 0);
  chunk = malloc(CHUNK_ITEMS * 4 + BLOSC2_MAX_OVERHEAD);
  fill(buf, CHUNK_ITEMS, 42);
  cb = blosc2_compress_ctx(sc->cctx, buf, CHUNK_ITEMS * 4, chunk, CHUNK_ITEMS * 4 + BLOSC2_MAX_OVERHEAD);
  blosc2_schunk_insert_chunk(sc, 1, chunk, true);
  fill(buf, CHUNK_ITEMS, 77);
  cb = blosc2_compress_ctx(sc->cctx, buf, CHUNK_ITEMS * 4, chunk, CHUNK_ITEMS * 4 + BLOSC2_MAX_OVERHEAD);
  blosc2_schunk_update_chunk(sc, 3, chunk, true);
  blosc2_chunk_zeros(cp, CHUNK_ITEMS * 4, special, sizeof special);
  blosc2_schunk_update_chunk(sc, 0, special, true);
  blosc2_schunk_delete_chunk(sc, 1);
  blosc2_schunk_update_chunk(sc, 0, chunk, true);
  free(chunk);
  blosc2_schunk_free(sc);

  /* 6. fill_special frame */
  sc = new_schunk(NULL, true, 4);
  blosc2_schunk_fill_special(sc, 25000, BLOSC2_SPECIAL_ZERO, CHUNK_ITEMS * 4);
  snprintf(path, sizeof path, "%s/fill_special.b2frame", dir);
  write_to(sc, path);
  blosc2_schunk_free(sc);
  free(buf);
  return 0;
}

int main(int argc, char **argv) {
  blosc2_init();
  if (argc >= 3 && strcmp(argv[1], "write") == 0) return write_all(argv[2]);
  if (argc >= 2 && strcmp(argv[1], "dump") == 0) {
    for (int i = 2; i < argc; i++) {
      /* "path@offset" opens the frame at that offset of the file. */
      char path[4096];
      snprintf(path, sizeof path, "%s", argv[i]);
      char *at = strrchr(path, '@');
      blosc2_schunk *sc;
      if (at != NULL) {
        *at = '\0';
        sc = blosc2_schunk_open_offset(path, strtoll(at + 1, NULL, 10));
      } else {
        sc = blosc2_schunk_open(path);
      }
      const char *base = strrchr(argv[i], '/'); base = base ? base + 1 : argv[i];
      if (sc == NULL) { printf("%s open-failed\n", base); continue; }
      dump_schunk(base, sc);
      blosc2_schunk_free(sc);
    }
    return 0;
  }
  fprintf(stderr, "usage: gen write DIR | gen dump FILE...\n");
  return 2;
}
