/* Tuner plugins: tuners registered without their functions, which the library loads from
 * libblosc2_<name>.so (run.sh builds capi-tests/dynplugins/tuner.c), and c-blosc2's own btune
 * entry (id 32), which finds the blosc2-btune Python package's library.
 *   tuner_plugins plugins   the test plugin (it prints each call it gets), a plugin whose `info`
 *                           names a function it lacks, a missing one: context creation,
 *                           compressions and super-chunk appends, with their codes and chunks
 *   tuner_plugins btune     (run with blosc2-btune 1.2.1 importable by `python`) a super-chunk
 *                           with tuner_id 32 and an explicit block size: for each chunk, the
 *                           codec, filters, flags and block size the tuner left it, and its size.
 *                           (With the automatic block size c-blosc2 3.3.5 divides by zero at
 *                           the first append: btune 1.2.1 writes c-blosc2 2.x's private context
 *                           layout, so it never sets what 3.3.5 reads. Not run here.)
 * The outputs of both libraries must be identical (run.sh diffs them). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <blosc2.h>

#include "check.h"
#include "fnv.h"

#define NITEMS 100000

static int32_t data[NITEMS];

static void chunk_line(const char *what, const uint8_t *c, int cbytes) {
  printf("  %s: cbytes %d flags 0x%02x typesize %d blocksize %d filters %d %d %d %d %d %d "
         "compcode %d meta %d, fnv %016" PRIx64 "\n",
         what, cbytes, c[2], c[3], c[8] | c[9] << 8 | c[10] << 16 | c[11] << 24, c[16], c[17], c[18],
         c[19], c[20], c[21], c[28], c[29], fnv(c, (size_t)cbytes));
}

static void register_plugin(int id, const char *name) {
  blosc2_tuner t = {0};
  t.id = id;
  t.name = (char *)name;
  printf("register tuner %s (%d): %d\n", name, id, blosc2_register_tuner(&t));
}

static blosc2_cparams tuned(int id, void *config) {
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = sizeof(int32_t);
  cparams.blocksize = 32 * 1024;
  cparams.tuner_id = id;
  cparams.tuner_params = config;
  return cparams;
}

static void plugins(void) {
  static uint8_t chunk[sizeof data + BLOSC2_MAX_OVERHEAD];
  register_plugin(200, "rbtest_tuner");
  register_plugin(201, "rbtest_tuner_broken");
  register_plugin(202, "rbtest_no_such_tuner");
  int ok = 1, refuse = -1;
  struct {
    const char *label;
    int id;
    void *config;
  } cases[] = {{"plugin", 200, &ok},
               {"plugin, no config", 200, NULL},
               {"plugin refusing", 200, &refuse},
               {"broken plugin", 201, &ok},
               {"missing plugin", 202, &ok}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    printf("%s: create_cctx\n", cases[i].label);
    fflush(stdout);
    blosc2_context *cctx = blosc2_create_cctx(tuned(cases[i].id, cases[i].config));
    printf("  context %s\n", cctx ? "made" : "NULL");
    if (cctx == NULL) continue;
    for (int k = 0; k < 2; k++) {
      printf("%s: compress_ctx %d\n", cases[i].label, k);
      fflush(stdout);
      int rc = blosc2_compress_ctx(cctx, data, sizeof data, chunk, sizeof chunk);
      CHECK(rc > 0, "%s compress %d", cases[i].label, rc);
      if (rc > 0) chunk_line("chunk", chunk, rc);
    }
    printf("%s: free_ctx\n", cases[i].label);
    fflush(stdout);
    blosc2_free_ctx(cctx);
  }
  printf("super-chunk with the plugin\n");
  fflush(stdout);
  blosc2_cparams cparams = tuned(200, &ok);
  blosc2_storage storage = {.contiguous = true, .cparams = &cparams};
  blosc2_schunk *sc = blosc2_schunk_new(&storage);
  CHECK(sc != NULL, "schunk_new with the plugin");
  if (sc == NULL) return;
  for (int k = 0; k < 2; k++) {
    printf("append %d\n", k);
    fflush(stdout);
    CHECK(blosc2_schunk_append_buffer(sc, data, sizeof data) == k + 1, "append %d", k);
  }
  uint8_t *frame;
  bool needs_free;
  int64_t len = blosc2_schunk_to_buffer(sc, &frame, &needs_free);
  printf("frame: %" PRId64 " bytes, fnv %016" PRIx64 "\n", len, fnv(frame, (size_t)len));
  if (needs_free) free(frame);
  printf("schunk_free\n");
  fflush(stdout);
  blosc2_schunk_free(sc);
}

static void btune(void) {
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = sizeof(int32_t);
  cparams.blocksize = 64 * 1024;
  cparams.tuner_id = 32; /* BLOSC_BTUNE */
  blosc2_storage storage = {.contiguous = true, .cparams = &cparams};
  fflush(stdout);
  blosc2_schunk *sc = blosc2_schunk_new(&storage);
  fflush(stdout);
  printf("btune super-chunk: %s\n", sc ? "made" : "NULL");
  CHECK(sc != NULL, "schunk_new with btune (is blosc2_btune importable by python?)");
  if (sc == NULL) return;
  for (int c = 0; c < 12; c++) {
    for (int i = 0; i < NITEMS; i++) data[i] = i * (c % 3 + 1) + (i % (17 + c));
    fflush(stdout);
    int64_t rc = blosc2_schunk_append_buffer(sc, data, sizeof data);
    fflush(stdout);
    CHECK(rc == c + 1, "append %d: %" PRId64, c, rc);
    uint8_t *chunk;
    bool needs_free;
    int cbytes = blosc2_schunk_get_chunk(sc, c, &chunk, &needs_free);
    char what[32];
    snprintf(what, sizeof what, "chunk %d", c);
    if (cbytes > 0) chunk_line(what, chunk, cbytes);
    if (needs_free) free(chunk);
  }
  blosc2_schunk_free(sc);
}

int main(int argc, char **argv) {
  for (int i = 0; i < NITEMS; i++) data[i] = i / 5 + (i % 11) * 100;
  blosc2_init();
  if (argc > 1 && strcmp(argv[1], "btune") == 0) {
    btune();
  } else {
    plugins();
  }
  blosc2_destroy();
  printf("tuner_plugins: %d checks, %d failures\n", checks, failures);
  return failures != 0;
}
