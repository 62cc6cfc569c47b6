/* Side by side: prefilters whose output is disposable. python-blosc2 computes reductions
 * (blosc2.sum(a), expr.sum()) in a prefilter that accumulates into its own memory and sets
 * `output_is_disposable` in the preparams given to blosc2_create_cctx: c-blosc2 then runs no
 * codec on the blocks and stores each stream as a zero run (the chunk becomes a zeros chunk),
 * takes a failing prefilter for a success, and does not zero the prefilter's output first.
 * The flag is read from the context's copy of the preparams: a prefilter setting it in the
 * params it is called with changes nothing.
 *
 * Printed for each case: the compression's return, the chunk's digest and sizes, the prefilter's
 * calls and what it summed (every block must be seen once), the user codec's encoder calls, and
 * what the chunk decompresses to. Run with both libraries and diffed by run.sh. */
#include <blosc2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fnv.h"

enum { WRITE_NONE, WRITE_INC, FAIL, SET_FLAG };

typedef struct {
  int mode;
  int calls;
  uint64_t sum;  /* sum of every input byte seen, order-independent */
  uint64_t offsets; /* sum of the output offsets, each block once */
} acc_t;

static int reduce(blosc2_prefilter_params *p) {
  acc_t *a = p->user_data;
  uint64_t s = 0;
  for (int32_t i = 0; i < p->output_size; i++) s += p->input[i];
  __atomic_fetch_add(&a->sum, s, __ATOMIC_RELAXED);
  __atomic_fetch_add(&a->offsets, (uint64_t)p->output_offset, __ATOMIC_RELAXED);
  __atomic_fetch_add(&a->calls, 1, __ATOMIC_RELAXED);
  switch (a->mode) {
    case WRITE_INC:
      for (int32_t i = 0; i < p->output_size; i++) p->output[i] = (uint8_t)(p->input[i] + 1);
      return 0;
    case FAIL:
      return 1;
    case SET_FLAG:
      p->output_is_disposable = true;
      for (int32_t i = 0; i < p->output_size; i++) p->output[i] = (uint8_t)(p->input[i] + 1);
      return 0;
    default:
      return 0;
  }
}

/* A user codec that counts its encoder calls and stores its input as it is. */
static int encoder_calls;

static int copy_encoder(const uint8_t *in, int32_t in_len, uint8_t *out, int32_t out_len,
                        uint8_t meta, blosc2_cparams *cp, const void *chunk) {
  (void)meta; (void)cp; (void)chunk;
  __atomic_fetch_add(&encoder_calls, 1, __ATOMIC_RELAXED);
  if (in_len > out_len) return 0;
  memcpy(out, in, (size_t)in_len);
  return in_len;
}

static int copy_decoder(const uint8_t *in, int32_t in_len, uint8_t *out, int32_t out_len,
                        uint8_t meta, blosc2_dparams *dp, const void *chunk) {
  (void)meta; (void)dp; (void)chunk;
  if (in_len > out_len) return -1;
  memcpy(out, in, (size_t)in_len);
  return in_len;
}

#define COPY_CODEC 244

static void fill(uint8_t *p, int n) {
  uint32_t x = 2463534242u;
  for (int i = 0; i < n; i++) {
    x ^= x << 13; x ^= x >> 17; x ^= x << 5;
    /* doubles that compress somewhat: slowly varying high bytes, noisy low bytes */
    p[i] = (uint8_t)((i % 8) < 5 ? (int)(x & 0xff) : (i / 4096) % 7 + (i % 8));
  }
}

static void run(const char *what, blosc2_cparams cp, int disposable, int mode, const uint8_t *src,
                int n) {
  acc_t acc = {mode, 0, 0, 0};
  blosc2_prefilter_params pp;
  memset(&pp, 0, sizeof pp);
  pp.user_data = &acc;
  pp.output_is_disposable = disposable;
  cp.prefilter = reduce;
  cp.preparams = &pp;
  blosc2_context *c = blosc2_create_cctx(cp);
  if (c == NULL) {
    printf("%s: create_cctx failed\n", what);
    return;
  }
  int cap = n + BLOSC2_MAX_OVERHEAD;
  uint8_t *chunk = malloc((size_t)cap), *out = malloc((size_t)n + 1);
  /* What the library leaves unwritten shows in the digest. */
  memset(chunk, 0xa5, (size_t)cap);
  encoder_calls = 0;
  int csize = blosc2_compress_ctx(c, src, n, chunk, cap);
  /* How many blocks a failing compression handled before it stopped, and an incompressible
   * one before it fell back to a copy, depends on the threads' timing: those counts are left
   * out (a disposable output neither fails nor falls back). */
  int fallback = csize > 0 && (chunk[2] & BLOSC_MEMCPYED) && cp.clevel > 0 &&
                 n >= BLOSC_MIN_BUFFERSIZE;
  if (!disposable && (csize < 0 || fallback)) {
    printf("%s: csize=%d", what, csize);
  } else {
    printf("%s: csize=%d calls=%d sum=%llu offsets=%llu encoder=%d", what, csize, acc.calls,
           (unsigned long long)acc.sum, (unsigned long long)acc.offsets, encoder_calls);
  }
  if (csize > 0) {
    int32_t nbytes, cbytes, blocksize;
    blosc2_cbuffer_sizes(chunk, &nbytes, &cbytes, &blocksize);
    memset(out, 0x5a, (size_t)n);
    int d = blosc2_decompress(chunk, csize, out, n);
    /* c-blosc2 places blocks compressed by several threads as they finish: only chunks
     * without compressed blocks have one layout then. */
    int one_layout = cp.nthreads == 1 || (chunk[2] & BLOSC_MEMCPYED) ||
                     csize == BLOSC_EXTENDED_HEADER_LENGTH;
    printf(" chunk=%016llx nbytes=%d cbytes=%d blocksize=%d flags=%02x/%02x d=%d out=%016llx",
           one_layout ? (unsigned long long)fnv(chunk, (size_t)csize) : 0ULL, nbytes, cbytes,
           blocksize, chunk[2], csize > 31 ? chunk[31] : 0, d,
           (unsigned long long)fnv(out, (size_t)n));
  }
  printf("\n");
  blosc2_free_ctx(c);
  free(chunk);
  free(out);
}

static void vl_run(const char *what, blosc2_cparams cp, int disposable, const uint8_t *src, int n) {
  acc_t acc = {WRITE_INC, 0, 0, 0};
  blosc2_prefilter_params pp;
  memset(&pp, 0, sizeof pp);
  pp.user_data = &acc;
  pp.output_is_disposable = disposable;
  cp.prefilter = reduce;
  cp.preparams = &pp;
  blosc2_context *c = blosc2_create_cctx(cp);
  const void *srcs[3] = {src, src + 1000, src + 5000};
  int32_t sizes[3] = {1000, 4000, 2400};
  int cap = 7400 + BLOSC2_MAX_OVERHEAD + 64;
  uint8_t *chunk = malloc((size_t)cap);
  memset(chunk, 0xa5, (size_t)cap);
  encoder_calls = 0;
  int csize = blosc2_vlcompress_ctx(c, srcs, sizes, 3, chunk, cap);
  printf("%s: csize=%d calls=%d sum=%llu encoder=%d chunk=%016llx\n", what, csize, acc.calls,
         (unsigned long long)acc.sum, encoder_calls,
         csize > 0 ? (unsigned long long)fnv(chunk, (size_t)csize) : 0ULL);
  (void)n;
  blosc2_free_ctx(c);
  free(chunk);
}

int main(void) {
  blosc2_init();
  blosc2_codec codec = {COPY_CODEC, "copy_counting", 0, 1, copy_encoder, copy_decoder};
  printf("register_codec=%d\n", blosc2_register_codec(&codec));

  /* 1 MiB + 40 bytes: several blocks and a leftover one. */
  const int n = (1 << 20) + 40;
  uint8_t *src = malloc((size_t)n);
  fill(src, n);

  const uint8_t codecs[] = {BLOSC_BLOSCLZ, BLOSC_LZ4, BLOSC_LZ4HC, BLOSC_ZLIB, BLOSC_ZSTD,
                            COPY_CODEC};
  const uint8_t clevels[] = {1, 5, 9};
  const int32_t typesizes[] = {1, 4, 8};
  const uint8_t filters[] = {BLOSC_SHUFFLE, BLOSC_BITSHUFFLE, BLOSC_NOSHUFFLE};
  char what[160];
  for (int nt = 1; nt <= 2; nt++) {
    for (size_t ci = 0; ci < sizeof codecs; ci++) {
      for (size_t li = 0; li < sizeof clevels; li++) {
        for (size_t ti = 0; ti < 3; ti++) {
          for (size_t fi = 0; fi < sizeof filters; fi++) {
            blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
            cp.compcode = codecs[ci];
            cp.clevel = clevels[li];
            cp.typesize = typesizes[ti];
            cp.nthreads = (int16_t)nt;
            cp.filters[BLOSC2_MAX_FILTERS - 1] = filters[fi];
            snprintf(what, sizeof what, "nt=%d codec=%d clevel=%d ts=%d filter=%d", nt,
                     codecs[ci], clevels[li], typesizes[ti], filters[fi]);
            run(what, cp, 1, WRITE_INC, src, n);
          }
        }
      }
    }
  }

  /* The other prefilter behaviours, at 1 and 2 threads, a few parameter sets. */
  const char *modes[] = {"none", "inc", "fail", "setflag"};
  for (int nt = 1; nt <= 2; nt++) {
    for (int disposable = 0; disposable <= 1; disposable++) {
      for (int mode = WRITE_NONE; mode <= SET_FLAG; mode++) {
        const struct { uint8_t codec, clevel; int32_t typesize; int32_t blocksize; int32_t split; int size; } sets[] = {
          {BLOSC_LZ4, 5, 8, 0, BLOSC_FORWARD_COMPAT_SPLIT, n},
          {BLOSC_ZSTD, 1, 8, 0, BLOSC_NEVER_SPLIT, n},
          {BLOSC_BLOSCLZ, 9, 4, 16384, BLOSC_ALWAYS_SPLIT, n},
          {COPY_CODEC, 5, 8, 0, BLOSC_ALWAYS_SPLIT, n},
          {BLOSC_LZ4, 0, 8, 0, BLOSC_FORWARD_COMPAT_SPLIT, n},  /* memcpyed */
          {BLOSC_LZ4, 5, 4, 0, BLOSC_FORWARD_COMPAT_SPLIT, 24},  /* below the minimum size */
          {BLOSC_ZSTD, 3, 8, 0, BLOSC_FORWARD_COMPAT_SPLIT, 64},  /* one small block */
        };
        for (size_t s = 0; s < sizeof sets / sizeof sets[0]; s++) {
          blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
          cp.compcode = sets[s].codec;
          cp.clevel = sets[s].clevel;
          cp.typesize = sets[s].typesize;
          cp.blocksize = sets[s].blocksize;
          cp.splitmode = sets[s].split;
          cp.nthreads = (int16_t)nt;
          snprintf(what, sizeof what, "nt=%d disposable=%d prefilter=%s set=%zu", nt, disposable,
                   modes[mode], s);
          run(what, cp, disposable, mode, src, sets[s].size);
        }
      }
    }
    /* Variable-length blocks: the codec runs on disposable output (c-blosc2 writes zero runs
     * only for regular blocks). */
    for (int disposable = 0; disposable <= 1; disposable++) {
      blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
      cp.compcode = COPY_CODEC;
      cp.typesize = 4;
      cp.nthreads = (int16_t)nt;
      snprintf(what, sizeof what, "vlblocks nt=%d disposable=%d", nt, disposable);
      vl_run(what, cp, disposable, src, n);
    }
  }

  /* A context used for several chunks, as python-blosc2 drives a reduction. */
  {
    acc_t acc = {WRITE_NONE, 0, 0, 0};
    blosc2_prefilter_params pp;
    memset(&pp, 0, sizeof pp);
    pp.user_data = &acc;
    pp.output_is_disposable = true;
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.compcode = BLOSC_ZSTD;
    cp.clevel = 1;
    cp.typesize = 8;
    cp.nthreads = 2;
    cp.splitmode = BLOSC_NEVER_SPLIT;
    cp.prefilter = reduce;
    cp.preparams = &pp;
    blosc2_context *c = blosc2_create_cctx(cp);
    uint8_t *chunk = malloc((size_t)n + BLOSC2_MAX_OVERHEAD);
    uint64_t digest = 0;
    int total = 0;
    for (int k = 0; k < 4; k++) {
      int csize = blosc2_compress_ctx(c, src + k * 1000, n - 4000, chunk, n + BLOSC2_MAX_OVERHEAD);
      total += csize;
      digest = digest * 31 + fnv(chunk, csize > 0 ? (size_t)csize : 0);
    }
    printf("reused context: total=%d digest=%016llx calls=%d sum=%llu\n", total,
           (unsigned long long)digest, acc.calls, (unsigned long long)acc.sum);
    blosc2_free_ctx(c);
    free(chunk);
  }

  free(src);
  blosc2_destroy();
  printf("prefilter_disposable: done\n");
  return 0;
}
