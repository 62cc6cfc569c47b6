/* Frame interop between two libblosc2 builds (ours and c-blosc2 3.3.5), run as two processes:
 *   schunk_interop write DIR   write the frames below into DIR
 *   schunk_interop read DIR    open each frame, check chunks, slices, metalayers, vlmetalayers
 * The same binary runs against either library (LD_LIBRARY_PATH), so each library reads what the
 * other wrote. Frames: a cframe file, an in-memory cframe saved with to_buffer (read back with
 * from_buffer, copy and no copy), an sframe directory, a chunk list appended at an offset of an
 * existing file, and a cframe of special chunks partly overwritten; all but the last went
 * through insert/update/delete/reorder and carry metalayers and vlmetalayers.
 * Prints "N passed, M failed"; exits non-zero on failure. */
#include <blosc2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

#define ITEMS 4000
#define NOPS 8

static void fill(int32_t *buf, int seed) {
  for (int i = 0; i < ITEMS; i++) buf[i] = seed * 7919 + i * (seed % 5 + 1) + (i % 17);
}

static const uint8_t META1[] = {0x93, 1, 2, 3, 4, 5, 6, 7, 8, 9};
static const char *VL1 = "interop vlmetalayer";

/* The edits applied to every edited frame; expected() replays them on a list of seeds. */
static int edit(blosc2_schunk *sc) {
  int32_t buf[ITEMS];
  for (int i = 1; i <= NOPS; i++) {
    fill(buf, i);
    if (blosc2_schunk_append_buffer(sc, buf, sizeof(buf)) != i) return -1;
  }
  uint8_t *chunk = malloc(sizeof(buf) + BLOSC2_MAX_OVERHEAD);
  fill(buf, 100);
  int cb = blosc2_compress_ctx(sc->cctx, buf, sizeof(buf), chunk, sizeof(buf) + BLOSC2_MAX_OVERHEAD);
  if (cb < 0 || blosc2_schunk_insert_chunk(sc, 2, chunk, true) < 0) return -2;
  fill(buf, 200);
  cb = blosc2_compress_ctx(sc->cctx, buf, sizeof(buf), chunk, sizeof(buf) + BLOSC2_MAX_OVERHEAD);
  if (cb < 0 || blosc2_schunk_update_chunk(sc, 5, chunk, true) < 0) return -3;
  /* a zero chunk in place of chunk 6 */
  cb = blosc2_chunk_zeros(BLOSC2_CPARAMS_DEFAULTS, sizeof(buf), chunk, sizeof(buf) + BLOSC2_MAX_OVERHEAD);
  if (cb < 0 || blosc2_schunk_update_chunk(sc, 6, chunk, true) < 0) return -4;
  free(chunk);
  if (blosc2_schunk_delete_chunk(sc, 0) < 0) return -5;
  int64_t order[NOPS];
  int n = (int)sc->nchunks;
  for (int i = 0; i < n; i++) order[i] = (i * 3) % n; /* n == 8, 3 coprime with 8 */
  if (blosc2_schunk_reorder_offsets(sc, order) < 0) return -6;
  uint8_t vl2[100];
  for (int i = 0; i < 100; i++) vl2[i] = (uint8_t)(i % 7);
  if (blosc2_vlmeta_add(sc, "vl1", (uint8_t *)VL1, (int32_t)strlen(VL1), NULL) < 0) return -7;
  if (blosc2_vlmeta_add(sc, "vl2", vl2, sizeof(vl2), NULL) < 0) return -8;
  if (blosc2_vlmeta_update(sc, "vl2", vl2, 50, NULL) < 0) return -9;
  return 0;
}

/* Seeds of the chunks after edit(); 0 is the zero chunk. */
static int expected(int *seeds) {
  int list[NOPS + 1], n = 0;
  for (int i = 1; i <= NOPS; i++) list[n++] = i;
  memmove(list + 3, list + 2, (n - 2) * sizeof(int));
  list[2] = 100;
  n++;
  list[5] = 200;
  list[6] = 0;
  memmove(list, list + 1, (n - 1) * sizeof(int));
  n--;
  for (int i = 0; i < n; i++) seeds[i] = list[(i * 3) % n];
  return n;
}

static blosc2_schunk *new_schunk(bool contiguous, const char *urlpath) {
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = 4;
  cparams.compcode = BLOSC_ZSTD;
  cparams.clevel = 3;
  cparams.nthreads = 2;
  blosc2_storage storage = {.contiguous = contiguous, .urlpath = (char *)urlpath,
                            .cparams = &cparams};
  blosc2_schunk *sc = blosc2_schunk_new(&storage);
  if (sc == NULL) return NULL;
  if (blosc2_meta_add(sc, "m1", (uint8_t *)META1, sizeof(META1)) < 0 ||
      blosc2_meta_add(sc, "m2", (uint8_t *)"abc", 3) < 0) {
    blosc2_schunk_free(sc);
    return NULL;
  }
  return sc;
}

static char *path(const char *dir, const char *name) {
  static char buf[4][4096];
  static int k = 0;
  k = (k + 1) % 4;
  snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, name);
  return buf[k];
}

static int write_file(const char *p, const void *data, int64_t len) {
  FILE *f = fopen(p, "wb");
  if (!f) return -1;
  int ok = fwrite(data, 1, len, f) == (size_t)len;
  fclose(f);
  return ok ? 0 : -1;
}

static int do_write(const char *dir) {
  int rc;
  /* cframe file */
  blosc2_schunk *sc = new_schunk(true, path(dir, "cframe.b2frame"));
  if (!sc || (rc = edit(sc)) < 0) { printf("cframe: %d\n", sc ? rc : -100); return 1; }
  blosc2_schunk_free(sc);
  /* in-memory cframe saved with to_buffer */
  sc = new_schunk(true, NULL);
  if (!sc || (rc = edit(sc)) < 0) { printf("buffer: %d\n", sc ? rc : -100); return 1; }
  uint8_t *cframe;
  bool needs_free;
  int64_t len = blosc2_schunk_to_buffer(sc, &cframe, &needs_free);
  if (len < 0 || write_file(path(dir, "buffer.cframe"), cframe, len) < 0) return 1;
  if (needs_free) free(cframe);
  blosc2_schunk_free(sc);
  /* sframe directory */
  sc = new_schunk(false, path(dir, "sframe.b2sframe"));
  if (!sc || (rc = edit(sc)) < 0) { printf("sframe: %d\n", sc ? rc : -100); return 1; }
  blosc2_schunk_free(sc);
  /* chunk list appended at an offset of an existing file */
  char prefix[123];
  memset(prefix, 'p', sizeof(prefix));
  if (write_file(path(dir, "appended.bin"), prefix, sizeof(prefix)) < 0) return 1;
  sc = new_schunk(false, NULL);
  if (!sc || (rc = edit(sc)) < 0) { printf("list: %d\n", sc ? rc : -100); return 1; }
  int64_t off = blosc2_schunk_append_file(sc, path(dir, "appended.bin"));
  blosc2_schunk_free(sc);
  if (off != (int64_t)sizeof(prefix)) { printf("append_file: %lld\n", (long long)off); return 1; }
  /* special chunks, partly overwritten */
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = 4;
  blosc2_storage storage = {.contiguous = true, .urlpath = path(dir, "special.b2frame"),
                            .cparams = &cparams};
  sc = blosc2_schunk_new(&storage);
  if (!sc || blosc2_schunk_fill_special(sc, 10 * ITEMS, BLOSC2_SPECIAL_ZERO, 4 * ITEMS) != 10) return 1;
  int32_t buf[ITEMS];
  fill(buf, 7);
  uint8_t *chunk = malloc(sizeof(buf) + BLOSC2_MAX_OVERHEAD);
  int cb = blosc2_compress_ctx(sc->cctx, buf, sizeof(buf), chunk, sizeof(buf) + BLOSC2_MAX_OVERHEAD);
  if (cb < 0 || blosc2_schunk_update_chunk(sc, 3, chunk, true) < 0) return 1;
  free(chunk);
  blosc2_schunk_free(sc);
  printf("wrote 5 frames\n");
  return 0;
}

static void check(const char *name, blosc2_schunk *sc, const int *seeds, int n, bool metas) {
  if (sc == NULL) {
    CHECK(0, "%s: could not open", name);
    return;
  }
  CHECK(sc->nchunks == n, "%s: nchunks %lld", name, (long long)sc->nchunks);
  CHECK(sc->nbytes == (int64_t)n * ITEMS * 4, "%s: nbytes %lld", name, (long long)sc->nbytes);
  CHECK(sc->typesize == 4 && sc->chunksize == ITEMS * 4, "%s: typesize %d chunksize %d", name,
        sc->typesize, sc->chunksize);
  int32_t want[ITEMS], got[ITEMS];
  for (int i = 0; i < n && i < sc->nchunks; i++) {
    if (seeds[i] == 0) memset(want, 0, sizeof(want)); else fill(want, seeds[i]);
    int rc = blosc2_schunk_decompress_chunk(sc, i, got, sizeof(got));
    CHECK(rc == (int)sizeof(got) && memcmp(want, got, sizeof(got)) == 0, "%s: chunk %d rc %d", name, i, rc);
  }
  /* a slice across chunks 1 and 2 */
  int32_t slice[ITEMS];
  int rc = blosc2_schunk_get_slice_buffer(sc, 2 * ITEMS - 10, 3 * ITEMS - 10, slice);
  if (seeds[1] == 0) memset(want, 0, sizeof(want)); else fill(want, seeds[1]);
  if (seeds[2] == 0) memset(got, 0, sizeof(got)); else fill(got, seeds[2]);
  CHECK(rc == 0 && memcmp(slice, want + ITEMS - 10, 40) == 0 && memcmp(slice + 10, got, 4 * (ITEMS - 10)) == 0,
        "%s: slice rc %d", name, rc);
  if (!metas) return;
  uint8_t *content;
  int32_t len;
  rc = blosc2_meta_get(sc, "m1", &content, &len);
  CHECK(rc == 0 && len == (int)sizeof(META1) && memcmp(content, META1, len) == 0, "%s: m1 rc %d", name, rc);
  if (rc >= 0) free(content);
  rc = blosc2_meta_get(sc, "m2", &content, &len);
  CHECK(rc == 1 && len == 3 && memcmp(content, "abc", 3) == 0, "%s: m2 rc %d", name, rc);
  if (rc >= 0) free(content);
  CHECK(sc->nvlmetalayers == 2, "%s: nvlmetalayers %d", name, sc->nvlmetalayers);
  rc = blosc2_vlmeta_get(sc, "vl1", &content, &len);
  CHECK(rc == 0 && len == (int)strlen(VL1) && memcmp(content, VL1, len) == 0, "%s: vl1 rc %d", name, rc);
  if (rc >= 0) free(content);
  rc = blosc2_vlmeta_get(sc, "vl2", &content, &len);
  int ok = rc == 1 && len == 50;
  for (int i = 0; ok && i < 50; i++) ok = content[i] == i % 7;
  CHECK(ok, "%s: vl2 rc %d len %d", name, rc, len);
  if (rc >= 0) free(content);
}

static uint8_t *read_all(const char *p, int64_t *len) {
  FILE *f = fopen(p, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  *len = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *b = malloc(*len);
  if (fread(b, 1, *len, f) != (size_t)*len) { free(b); b = NULL; }
  fclose(f);
  return b;
}

static int do_read(const char *dir) {
  int seeds[NOPS + 1];
  int n = expected(seeds);
  blosc2_schunk *sc = blosc2_schunk_open(path(dir, "cframe.b2frame"));
  check("cframe", sc, seeds, n, true);
  if (sc) blosc2_schunk_free(sc);

  int64_t len;
  uint8_t *buf = read_all(path(dir, "buffer.cframe"), &len);
  CHECK(buf != NULL, "buffer.cframe unreadable");
  if (buf) {
    sc = blosc2_schunk_from_buffer(buf, len, false);
    check("buffer nocopy", sc, seeds, n, true);
    if (sc) blosc2_schunk_free(sc);
    sc = blosc2_schunk_from_buffer(buf, len, true);
    check("buffer copy", sc, seeds, n, true);
    if (sc) blosc2_schunk_free(sc);
    free(buf);
  }

  sc = blosc2_schunk_open(path(dir, "sframe.b2sframe"));
  check("sframe", sc, seeds, n, true);
  if (sc) blosc2_schunk_free(sc);

  sc = blosc2_schunk_open_offset(path(dir, "appended.bin"), 123);
  check("appended", sc, seeds, n, true);
  if (sc) blosc2_schunk_free(sc);

  int sseeds[10] = {0, 0, 0, 7, 0, 0, 0, 0, 0, 0};
  sc = blosc2_schunk_open(path(dir, "special.b2frame"));
  check("special", sc, sseeds, 10, false);
  if (sc) blosc2_schunk_free(sc);

  printf("%d passed, %d failed\n", checks - failures, failures);
  return failures != 0;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s write|read DIR\n", argv[0]);
    return 2;
  }
  blosc2_init();
  int rc = strcmp(argv[1], "write") == 0 ? do_write(argv[2]) : do_read(argv[2]);
  blosc2_destroy();
  return rc;
}
