/* Build a file-backed super-chunk with a metalayer and a vlmetalayer, then reopen and read it. */
#include <blosc2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_ITEMS 50000
#define NCHUNKS 4

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "schunk_file.b2frame";
  static int64_t buf[CHUNK_ITEMS];
  blosc2_init();
  blosc2_remove_urlpath(path);

  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = sizeof(int64_t);
  cparams.compcode = BLOSC_LZ4;
  blosc2_storage storage = {.contiguous = true, .urlpath = (char *)path, .cparams = &cparams};
  blosc2_schunk *sc = blosc2_schunk_new(&storage);
  if (sc == NULL) { fprintf(stderr, "cannot create %s\n", path); return 1; }
  uint8_t units[] = {0xa6, 'm', 'e', 't', 'r', 'e', 's'}; /* msgpack "metres" */
  if (blosc2_meta_add(sc, "units", units, sizeof(units)) < 0) return 1;
  uint8_t note[] = {0xa5, 'h', 'e', 'l', 'l', 'o'};
  if (blosc2_vlmeta_add(sc, "note", note, sizeof(note), NULL) < 0) return 1;
  for (int c = 0; c < NCHUNKS; c++) {
    for (int i = 0; i < CHUNK_ITEMS; i++) buf[i] = (int64_t)c * CHUNK_ITEMS + i;
    if (blosc2_schunk_append_buffer(sc, buf, sizeof(buf)) != c + 1) return 1;
  }
  blosc2_schunk_free(sc);

  sc = blosc2_schunk_open(path);
  if (sc == NULL || sc->nchunks != NCHUNKS) { fprintf(stderr, "cannot reopen %s\n", path); return 1; }
  uint8_t *content;
  int32_t len;
  if (blosc2_meta_get(sc, "units", &content, &len) < 0 || len != sizeof(units) ||
      memcmp(content, units, len) != 0) return 1;
  free(content);
  if (blosc2_vlmeta_get(sc, "note", &content, &len) < 0 || len != sizeof(note) ||
      memcmp(content, note, len) != 0) return 1;
  free(content);
  if (blosc2_schunk_decompress_chunk(sc, 2, buf, sizeof(buf)) != (int)sizeof(buf) ||
      buf[7] != 2 * CHUNK_ITEMS + 7) return 1;
  printf("schunk_file: %lld chunks, %lld -> %lld bytes, metalayers ok\n", (long long)sc->nchunks,
         (long long)sc->nbytes, (long long)sc->cbytes);
  blosc2_schunk_free(sc);
  blosc2_destroy();
  return 0;
}
