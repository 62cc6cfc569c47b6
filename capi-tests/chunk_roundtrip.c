/* Chunk compression round trips through the libblosc2 C API.
 *
 * NEEDS THE CHUNK ENGINE: this program links only once rblosc2 exports blosc2_compress and
 * friends. Until then it stays out of capi-tests/programs.list (run.sh builds only the programs
 * listed there).
 *
 * Like library_side_by_side.c it is built against both rblosc2 and c-blosc2 3.3.5 and the two
 * outputs are diffed: every compressed chunk is summarised by its size and a checksum of its
 * bytes, so the diff demands byte-identical chunks. It also checks on its own that every chunk
 * decompresses to its source, fits the documented bound, and that bad input gives errors.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <blosc2.h>
#include "check.h"

/* FNV-1a, enough to tell two byte strings apart in a diff. */
static uint64_t fnv1a(const uint8_t *bytes, size_t len) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t k = 0; k < len; k++) {
    h ^= bytes[k];
    h *= 1099511628211ULL;
  }
  return h;
}

enum { PATTERN_RAMP, PATTERN_NOISE, PATTERN_SPARSE, PATTERN_ZEROS, PATTERN_TEXT, N_PATTERNS };
static const char *pattern_names[N_PATTERNS] = {"ramp", "noise", "sparse", "zeros", "text"};

static void fill(uint8_t *buf, size_t len, int pattern) {
  uint32_t state = 0x9e3779b9u;
  static const char words[] = "blosc shuffles bytes then compresses blocks of them; ";
  for (size_t k = 0; k < len; k++) {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    switch (pattern) {
      case PATTERN_RAMP: {
        /* little-endian int32 counter */
        uint32_t v = (uint32_t)(k / 4) * 3u;
        buf[k] = (uint8_t)(v >> (8 * (k % 4)));
        break;
      }
      case PATTERN_NOISE: buf[k] = (uint8_t)state; break;
      case PATTERN_SPARSE: buf[k] = (state % 97 == 0) ? (uint8_t)(state >> 8) : 0; break;
      case PATTERN_ZEROS: buf[k] = 0; break;
      default: buf[k] = (uint8_t)words[k % (sizeof(words) - 1)]; break;
    }
  }
}

static const char *codecs[] = {"blosclz", "lz4", "lz4hc", "zlib", "zstd"};
#define N_CODECS (sizeof(codecs) / sizeof(codecs[0]))

/* blosc2_compress/blosc2_decompress with the global (blosc1-style) settings. */
static void test_global_api(void) {
  static const int32_t sizes[] = {0, 1, 31, 32, 1000, 65536 + 7, 1 << 20};
  static const int clevels[] = {0, 1, 5, 9};
  static const int shuffles[] = {BLOSC_NOSHUFFLE, BLOSC_SHUFFLE, BLOSC_BITSHUFFLE};
  static const int32_t typesizes[] = {1, 4, 8};
  uint8_t *src = malloc((1 << 20) + 64);
  uint8_t *dest = malloc((1 << 20) + BLOSC2_MAX_OVERHEAD);
  uint8_t *back = malloc((1 << 20) + 64);
  for (size_t c = 0; c < N_CODECS; c++) {
    CHECK(blosc1_set_compressor(codecs[c]) >= 0, "%s", codecs[c]);
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
      for (int p = 0; p < N_PATTERNS; p++) {
        int32_t size = sizes[s];
        fill(src, (size_t)size, p);
        for (size_t l = 0; l < sizeof(clevels) / sizeof(clevels[0]); l++) {
          for (size_t f = 0; f < sizeof(shuffles) / sizeof(shuffles[0]); f++) {
            int32_t typesize = typesizes[(s + (size_t)p + f) % 3];
            int32_t cbytes = blosc2_compress(clevels[l], shuffles[f], typesize, src, size, dest,
                                             size + BLOSC2_MAX_OVERHEAD);
            printf("compress %s clevel %d shuffle %d typesize %d %s %d -> %d %016llx\n",
                   codecs[c], clevels[l], shuffles[f], typesize, pattern_names[p], size, cbytes,
                   cbytes > 0 ? (unsigned long long)fnv1a(dest, (size_t)cbytes) : 0ULL);
            CHECK(cbytes > 0 && cbytes <= size + BLOSC2_MAX_OVERHEAD, "cbytes %d", cbytes);
            if (cbytes <= 0) continue;
            int32_t nbytes = -1, cb = -1, blocksize = -1;
            int ret = blosc2_cbuffer_sizes(dest, &nbytes, &cb, &blocksize);
            CHECK(ret == 0 && nbytes == size && cb == cbytes, "sizes %d %d %d", ret, nbytes, cb);
            memset(back, 0xA5, (size_t)size + 1);
            int32_t dbytes = blosc2_decompress(dest, cbytes, back, size);
            CHECK(dbytes == size && memcmp(src, back, (size_t)size) == 0, "dbytes %d", dbytes);
            if (size > 0) {
              dbytes = blosc2_decompress(dest, cbytes, back, size - 1);
              CHECK(dbytes < 0, "short destination accepted: %d", dbytes);
            }
          }
        }
      }
    }
  }
  blosc1_set_compressor("blosclz");
  free(src);
  free(dest);
  free(back);
}

/* The context API: filter pipelines, one and two threads. */
static void test_ctx_api(void) {
  const int32_t size = 3 * 65536 + 12;
  uint8_t *src = malloc((size_t)size);
  uint8_t *dest = malloc((size_t)size + BLOSC2_MAX_OVERHEAD);
  uint8_t *back = malloc((size_t)size);
  static const struct {
    const char *label;
    uint8_t filters[BLOSC2_MAX_FILTERS];
  } pipelines[] = {
    {"none", {0, 0, 0, 0, 0, 0}},
    {"shuffle", {0, 0, 0, 0, 0, BLOSC_SHUFFLE}},
    {"bitshuffle", {0, 0, 0, 0, 0, BLOSC_BITSHUFFLE}},
    {"delta+shuffle", {0, 0, 0, 0, BLOSC_DELTA, BLOSC_SHUFFLE}},
  };
  for (int p = 0; p < N_PATTERNS; p++) {
    fill(src, (size_t)size, p);
    for (size_t c = 0; c < N_CODECS; c++) {
      for (size_t f = 0; f < sizeof(pipelines) / sizeof(pipelines[0]); f++) {
        int32_t first_cbytes = 0;
        for (int16_t nthreads = 1; nthreads <= 2; nthreads++) {
          blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
          cparams.compcode = (uint8_t)blosc2_compname_to_compcode(codecs[c]);
          cparams.clevel = 5;
          cparams.typesize = 4;
          cparams.nthreads = nthreads;
          cparams.blocksize = 32768;
          memcpy(cparams.filters, pipelines[f].filters, BLOSC2_MAX_FILTERS);
          blosc2_context *cctx = blosc2_create_cctx(cparams);
          CHECK(cctx != NULL, "create_cctx");
          if (cctx == NULL) continue;
          int32_t cbytes =
              blosc2_compress_ctx(cctx, src, size, dest, size + BLOSC2_MAX_OVERHEAD);
          blosc2_free_ctx(cctx);
          uint64_t hash = cbytes > 0 ? fnv1a(dest, (size_t)cbytes) : 0;
          if (nthreads == 1) {
            first_cbytes = cbytes;
            printf("compress_ctx %s %s %s -> %d %016llx\n", codecs[c], pipelines[f].label,
                   pattern_names[p], cbytes, (unsigned long long)hash);
          } else {
            /* c-blosc2 writes blocks in the order its threads finish them, so only the size
             * (not the bytes) is the same as with one thread. */
            CHECK(cbytes == first_cbytes, "%s %s: 2 threads gave %d bytes, 1 thread %d",
                  codecs[c], pipelines[f].label, cbytes, first_cbytes);
          }
          CHECK(cbytes > 0, "cbytes %d", cbytes);
          if (cbytes <= 0) continue;
          blosc2_dparams dparams = BLOSC2_DPARAMS_DEFAULTS;
          dparams.nthreads = nthreads;
          blosc2_context *dctx = blosc2_create_dctx(dparams);
          CHECK(dctx != NULL, "create_dctx");
          if (dctx == NULL) continue;
          int32_t dbytes = blosc2_decompress_ctx(dctx, dest, cbytes, back, size);
          CHECK(dbytes == size && memcmp(src, back, (size_t)size) == 0, "dbytes %d", dbytes);
          /* A chunk cut short is an error, never a crash. */
          dbytes = blosc2_decompress_ctx(dctx, dest, cbytes / 2, back, size);
          CHECK(dbytes < 0, "truncated chunk accepted: %d", dbytes);
          blosc2_free_ctx(dctx);
        }
      }
    }
  }
  free(src);
  free(dest);
  free(back);
}

int main(void) {
  blosc2_init();
  test_global_api();
  test_ctx_api();
  blosc2_destroy();
  printf("chunk_roundtrip: %d checks, %d failed\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
