/* The automatic block size c-blosc2 picks, over the whole parameter matrix: codecs x clevel
 * 0..9 x typesizes x split modes x filter pipelines x chunk sizes from 0 to 9 MiB.
 *
 * Each cell compresses a buffer of zeros but its first byte with blocksize 0 (automatic) and
 * reads the block size back from the chunk with blosc2_cbuffer_sizes. Zeros keep the run fast
 * (streams of zeros are runs); the block size does not depend on the data.
 *
 * Built against the reference c-blosc2 3.3.5 it writes tests/data/blocksizes.txt, which
 * tests/blocksize_parity.rs checks src/chunk/blocksize.rs against:
 *
 *   REF=$(capi-tests/get-reference.sh)
 *   cc -O2 -I$REF/include capi-tests/blocksize_table.c -L$REF/lib -lblosc2 \
 *      -Wl,-rpath,$REF/lib -o /tmp/blocksize_table && /tmp/blocksize_table > tests/data/blocksizes.txt
 *
 * (It takes some ten minutes; codec names as arguments print only those codecs' lines, without
 * the heading, so parts can run in parallel and be appended in codec order.)
 *
 * Format: '#' lines are comments; the "sizes:" line lists the chunk sizes; then one line per
 * (codec, clevel, typesize) and group of (split mode, pipeline) combinations that give the same
 * block sizes: "codec clevel typesize SP,SP,...: blocksize per size", where S is the split mode
 * (BLOSC_*_SPLIT value), P a pipeline digit (see set_pipeline), "v*n" stands for n cells of
 * value v and a failed compression prints "E<code>".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <blosc2.h>
#include <blosc2/filters-registry.h>

static const int32_t SIZES[] = {
    0,       1,       2,       3,       7,       8,       15,      16,      31,      32,
    33,      63,      64,      100,     127,     128,     255,     256,     257,     1000,
    1024,    4095,    4096,    8191,    8192,    10000,   16384,   16385,   32767,   32768,
    32769,   40000,   65535,   65536,   65537,   100000,  131072,  131073,  200000,  262144,
    262145,  400000,  524288,  524289,  1000000, 1048576, 1048577, 2000000, 2097152, 2097153,
    3000000, 4194304, 4194305, 6000000, 8388608, 9437184};
#define N_SIZES (sizeof(SIZES) / sizeof(SIZES[0]))

static const int CODECS[] = {BLOSC_BLOSCLZ, BLOSC_LZ4, BLOSC_LZ4HC, BLOSC_ZLIB, BLOSC_ZSTD};
static const char *CODEC_NAMES[] = {"blosclz", "lz4", "lz4hc", "zlib", "zstd"};
#define N_CODECS 5

static const int32_t TYPESIZES[] = {1, 2, 3, 4, 7, 8, 16, 33};
#define N_TYPESIZES 8

static const int SPLITMODES[] = {BLOSC_ALWAYS_SPLIT, BLOSC_NEVER_SPLIT, BLOSC_AUTO_SPLIT,
                                 BLOSC_FORWARD_COMPAT_SPLIT};
#define N_SPLITMODES 4

/* Filter pipelines (last slot last): 0 none, 1 shuffle, 2 bitshuffle, 3 delta+shuffle,
 * 4 shuffle+bytedelta (meta = typesize). */
#define N_PIPELINES 5
static void set_pipeline(blosc2_cparams *cp, int pipeline) {
  memset(cp->filters, 0, sizeof(cp->filters));
  memset(cp->filters_meta, 0, sizeof(cp->filters_meta));
  switch (pipeline) {
    case 1:
      cp->filters[5] = BLOSC_SHUFFLE;
      break;
    case 2:
      cp->filters[5] = BLOSC_BITSHUFFLE;
      break;
    case 3:
      cp->filters[4] = BLOSC_DELTA;
      cp->filters[5] = BLOSC_SHUFFLE;
      break;
    case 4:
      cp->filters[4] = BLOSC_SHUFFLE;
      cp->filters[5] = BLOSC_FILTER_BYTEDELTA;
      cp->filters_meta[5] = (uint8_t)cp->typesize;
      break;
    default:
      break;
  }
}

/* Arguments: codec names to restrict the table to (default: all, with the heading lines). */
static int wanted(int argc, char **argv, const char *codec) {
  if (argc < 2) {
    return 1;
  }
  for (int a = 1; a < argc; a++) {
    if (strcmp(argv[a], codec) == 0) {
      return 1;
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  blosc2_init();
  int32_t max_size = SIZES[N_SIZES - 1];
  uint8_t *src = calloc(1, (size_t)max_size);
  uint8_t *dst = malloc((size_t)max_size + BLOSC2_MAX_OVERHEAD);
  if (src == NULL || dst == NULL) {
    return 1;
  }
  /* All zeros would become a special-value chunk; one non-zero byte in block 0 keeps it a
   * regular chunk whose other blocks are cheap zero runs. */
  src[0] = 1;
  if (argc < 2) {
    printf("# Automatic block sizes of c-blosc2 %s (capi-tests/blocksize_table.c)\n",
           BLOSC2_VERSION_STRING);
    printf("# codec clevel typesize combos: blocksize per size (v*n: v n times)\n");
    printf("# combo SP: split mode S (1 always, 2 never, 3 auto, 4 forward compat), pipeline P\n");
    printf("# pipelines: 0 none, 1 shuffle, 2 bitshuffle, 3 delta+shuffle, 4 shuffle+bytedelta\n");
    printf("sizes:");
    for (size_t k = 0; k < N_SIZES; k++) {
      printf(" %d", SIZES[k]);
    }
    printf("\n");
  }

  /* The cells of one (codec, clevel, typesize), per combination of split mode and pipeline. */
#define N_COMBOS (N_SPLITMODES * N_PIPELINES)
  static char cells[N_COMBOS][N_SIZES][16];
  for (int c = 0; c < N_CODECS; c++) {
    if (!wanted(argc, argv, CODEC_NAMES[c])) {
      continue;
    }
    for (int clevel = 0; clevel <= 9; clevel++) {
      for (int t = 0; t < N_TYPESIZES; t++) {
        memset(cells, 0, sizeof(cells));
        for (int combo = 0; combo < N_COMBOS; combo++) {
          blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
          cp.compcode = (uint8_t)CODECS[c];
          cp.clevel = (uint8_t)clevel;
          cp.typesize = TYPESIZES[t];
          cp.splitmode = SPLITMODES[combo / N_PIPELINES];
          cp.nthreads = 1;
          cp.blocksize = 0;
          set_pipeline(&cp, combo % N_PIPELINES);
          for (size_t k = 0; k < N_SIZES; k++) {
            /* A fresh context per chunk: c-blosc2 keeps the block size it chose in the
             * context and reuses it as if the user had set it on the next call. */
            blosc2_context *ctx = blosc2_create_cctx(cp);
            int32_t nbytes = SIZES[k];
            int rc = blosc2_compress_ctx(ctx, src, nbytes, dst, nbytes + BLOSC2_MAX_OVERHEAD);
            blosc2_free_ctx(ctx);
            if (rc < 0) {
              snprintf(cells[combo][k], sizeof(cells[combo][k]), "E%d", rc);
              continue;
            }
            int32_t cnbytes, cbytes, blocksize;
            blosc2_cbuffer_sizes(dst, &cnbytes, &cbytes, &blocksize);
            snprintf(cells[combo][k], sizeof(cells[combo][k]), "%d", blocksize);
          }
        }
        /* One line per group of combinations with the same block sizes. */
        int printed[N_COMBOS] = {0};
        for (int combo = 0; combo < N_COMBOS; combo++) {
          if (printed[combo]) {
            continue;
          }
          printf("%s %d %d", CODEC_NAMES[c], clevel, TYPESIZES[t]);
          const char *sep = " ";
          for (int other = combo; other < N_COMBOS; other++) {
            if (!printed[other] && memcmp(cells[combo], cells[other], sizeof(cells[combo])) == 0) {
              printed[other] = 1;
              printf("%s%d%d", sep, SPLITMODES[other / N_PIPELINES], other % N_PIPELINES);
              sep = ",";
            }
          }
          printf(":");
          for (size_t k = 0; k < N_SIZES;) {
            size_t run = 1;
            while (k + run < N_SIZES && strcmp(cells[combo][k], cells[combo][k + run]) == 0) {
              run++;
            }
            if (run > 1) {
              printf(" %s*%zu", cells[combo][k], run);
            } else {
              printf(" %s", cells[combo][k]);
            }
            k += run;
          }
          printf("\n");
        }
      }
    }
  }
  free(src);
  free(dst);
  blosc2_destroy();
  return 0;
}
