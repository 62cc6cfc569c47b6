/* What a user codec's encoder and decoder receive as cparams->schunk / dparams->schunk (and
   whether the chunk argument is set) in each path: a new super-chunk in memory and on disk
   (cframe, sframe), reopened with blosc2_schunk_open, _open_offset and _open_udio, from a
   cframe buffer, copied, and bare contexts with and without a super-chunk. The codec halves
   each block (the data repeats every half block) and its decoder reads the typesize of the
   super-chunk it is given, failing without one, as a codec written for c-blosc2 can. A user
   filter (a copy) in the pipeline reports its cparams->schunk / dparams->schunk too. The
   encoder's chunk argument is the source buffer, the decoder's the chunk. Then what a
   decoder's other results (error codes, short lengths) make of a decompression.
   Temporary files in the current directory.

   Output is compared line by line with the reference's. */
#include <blosc2.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define CODEC_ID 244
#define BLOCK 4096
#define NBYTES (8 * BLOCK)
#define FILTER_ID 250

static uint8_t data[NBYTES], out[NBYTES];
static int decoder_result; /* what the second codec's decoder returns (1: the full length) */
static const uint8_t *data_start(void) { return data; }

static blosc2_schunk *expected; /* the super-chunk the current step works with */
static const void *expected_chunk; /* the chunk the current step decompresses, if known */

static const char *which_chunk(const void *chunk, const void *known) {
  if (chunk == NULL) return "NULL";
  if (chunk == (const void *)data_start()) return "the source data";
  return chunk == known ? "the chunk" : "another pointer";
}
static char log_line[512];

static const char *who(const void *schunk) {
  if (schunk == NULL) return "NULL";
  return schunk == expected ? "the super-chunk" : "another pointer";
}

static void note(const char *what) {
  if (strstr(log_line, what) == NULL && strlen(log_line) + strlen(what) + 3 < sizeof log_line) {
    strcat(log_line, " [");
    strcat(log_line, what);
    strcat(log_line, "]");
  }
}

/* Notes one call of a callback: "<what> schunk <who>", then " chunk <which>" when given. */
static void note_call(const char *what, const void *schunk, const char *chunk) {
  char buf[96];
  if (chunk != NULL)
    snprintf(buf, sizeof buf, "%s schunk %s chunk %s", what, who(schunk), chunk);
  else
    snprintf(buf, sizeof buf, "%s schunk %s", what, who(schunk));
  note(buf);
}

static int encoder(const uint8_t *in, int32_t inlen, uint8_t *out, int32_t outlen, uint8_t meta,
                   blosc2_cparams *cparams, const void *chunk) {
  (void)meta;
  note_call("enc", cparams->schunk, which_chunk(chunk, NULL));
  int32_t half = inlen / 2;
  if (inlen % 2 || half > outlen || memcmp(in, in + half, (size_t)half) != 0) return 0;
  memcpy(out, in, (size_t)half);
  return half;
}

static int decoder(const uint8_t *in, int32_t inlen, uint8_t *out, int32_t outlen, uint8_t meta,
                   blosc2_dparams *dparams, const void *chunk) {
  (void)meta;
  note_call("dec", dparams->schunk, which_chunk(chunk, expected_chunk));
  blosc2_schunk *s = dparams->schunk;
  if (s == NULL || s->typesize != 1) return -1;
  if (inlen * 2 != outlen) return -1;
  memcpy(out, in, (size_t)inlen);
  memcpy(out + inlen, in, (size_t)inlen);
  return outlen;
}

static int fixed_decoder(const uint8_t *in, int32_t inlen, uint8_t *out_, int32_t outlen,
                         uint8_t meta, blosc2_dparams *dparams, const void *chunk) {
  (void)in, (void)inlen, (void)meta, (void)dparams, (void)chunk;
  memset(out_, 0, (size_t)outlen);
  return decoder_result == 1 ? outlen : decoder_result;
}

/* A decoder's result other than the stream's length, error codes included: c-blosc2 answers
   each with BLOSC2_ERROR_DATA. */
static void decoder_results(void) {
  blosc2_codec fixed = {.compcode = CODEC_ID + 1, .compname = "fixed", .complib = CODEC_ID + 1,
                        .version = 1, .encoder = encoder, .decoder = fixed_decoder};
  printf("register_codec fixed %d\n", blosc2_register_codec(&fixed));
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 1;
  cp.compcode = CODEC_ID + 1;
  cp.blocksize = BLOCK;
  cp.splitmode = BLOSC_NEVER_SPLIT;
  cp.filters[5] = BLOSC_NOFILTER;
  static uint8_t chunk[NBYTES + BLOSC2_MAX_OVERHEAD];
  blosc2_context *cctx = blosc2_create_cctx(cp);
  int cs = blosc2_compress_ctx(cctx, data, sizeof data, chunk, sizeof chunk);
  blosc2_free_ctx(cctx);
  log_line[0] = '\0';
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  static const int results[] = {-1, -2, -3, -5, -7, -11, -18, -37, -100, 0, 5, 1};
  for (size_t i = 0; i < sizeof results / sizeof results[0]; i++) {
    decoder_result = results[i];
    int d = blosc2_decompress_ctx(dctx, chunk, cs, out, sizeof out);
    uint8_t items[4];
    int g = blosc2_getitem_ctx(dctx, chunk, cs, 1, 4, items, sizeof items);
    printf("decoder returns %d: decompress_ctx %d getitem_ctx %d\n", results[i], d, g);
  }
  blosc2_free_ctx(dctx);
}

static int filter_forward(const uint8_t *src, uint8_t *dest, int32_t size, uint8_t meta,
                          blosc2_cparams *cparams, uint8_t id) {
  (void)meta, (void)id;
  note_call("fwd", cparams->schunk, NULL);
  memcpy(dest, src, (size_t)size);
  return 0;
}

static int filter_backward(const uint8_t *src, uint8_t *dest, int32_t size, uint8_t meta,
                           blosc2_dparams *dparams, uint8_t id) {
  (void)meta, (void)id;
  note_call("bwd", dparams->schunk, NULL);
  memcpy(dest, src, (size_t)size);
  return 0;
}

static blosc2_cparams cparams(void) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 1;
  cp.compcode = CODEC_ID;
  cp.blocksize = BLOCK;
  cp.splitmode = BLOSC_NEVER_SPLIT;
  cp.filters[5] = BLOSC_NOFILTER;
  cp.filters[4] = FILTER_ID;
  return cp;
}

static void report(const char *step, int rc) {
  printf("%s: %d%s\n", step, rc, log_line);
  log_line[0] = '\0';
}

static void decompress_all(const char *name, blosc2_schunk *s) {
  expected = s;
  expected_chunk = NULL;
  memset(out, 0, sizeof out);
  int rc = blosc2_schunk_decompress_chunk(s, 0, out, sizeof out);
  char step[128];
  snprintf(step, sizeof step, "%s: decompress_chunk (same %d)", name,
           rc == NBYTES && memcmp(out, data, sizeof data) == 0);
  report(step, rc);
  /* The super-chunk's own dctx on its chunk. */
  uint8_t *chunk;
  bool needs_free;
  int cs = blosc2_schunk_get_chunk(s, 0, &chunk, &needs_free);
  expected_chunk = chunk;
  if (cs > 0) {
    rc = blosc2_decompress_ctx(s->dctx, chunk, cs, out, sizeof out);
    snprintf(step, sizeof step, "%s: decompress_ctx(schunk->dctx)", name);
    report(step, rc);
    uint8_t items[8];
    rc = blosc2_getitem_ctx(s->dctx, chunk, cs, 5, 8, items, sizeof items);
    snprintf(step, sizeof step, "%s: getitem_ctx(schunk->dctx)", name);
    report(step, rc);
    if (needs_free) free(chunk);
  }
}

static void append(const char *name, blosc2_schunk *s) {
  expected = s;
  int64_t n = blosc2_schunk_append_buffer(s, data, sizeof data);
  char step[128];
  snprintf(step, sizeof step, "%s: append_buffer", name);
  report(step, (int)n);
}

int main(void) {
  blosc2_init();
  for (int i = 0; i < NBYTES; i++) data[i] = (uint8_t)((i % (BLOCK / 2)) * 7 + (i / BLOCK));
  blosc2_codec codec = {.compcode = CODEC_ID, .compname = "halves", .complib = CODEC_ID,
                        .version = 1, .encoder = encoder, .decoder = decoder};
  printf("register_codec %d\n", blosc2_register_codec(&codec));
  blosc2_filter filter = {.id = FILTER_ID, .name = "copy", .version = 1,
                          .forward = filter_forward, .backward = filter_backward};
  printf("register_filter %d\n", blosc2_register_filter(&filter));

  /* In memory. */
  blosc2_cparams cp = cparams();
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_storage st = {.contiguous = true, .cparams = &cp, .dparams = &dp};
  blosc2_schunk *s = blosc2_schunk_new(&st);
  append("memory", s);
  decompress_all("memory", s);

  /* A cframe buffer of it, reopened. */
  uint8_t *cframe;
  bool needs_free;
  int64_t len = blosc2_schunk_to_buffer(s, &cframe, &needs_free);
  blosc2_schunk *b = blosc2_schunk_from_buffer(cframe, len, true);
  if (b) {
    decompress_all("from_buffer copy", b);
    blosc2_schunk_free(b);
  }
  b = blosc2_schunk_from_buffer(cframe, len, false);
  if (b) {
    decompress_all("from_buffer shared", b);
    blosc2_schunk_free(b);
  }
  /* A copy. */
  blosc2_storage st2 = {.contiguous = true, .cparams = &cp, .dparams = &dp};
  blosc2_schunk *c = blosc2_schunk_copy(s, &st2);
  if (c) {
    decompress_all("copy", c);
    blosc2_schunk_free(c);
  }

  /* Bare contexts. */
  uint8_t chunk[NBYTES + BLOSC2_MAX_OVERHEAD];
  expected = s;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  int cs = blosc2_compress_ctx(cctx, data, sizeof data, chunk, sizeof chunk);
  report("bare cctx compress", cs);
  blosc2_free_ctx(cctx);
  expected_chunk = chunk;
  blosc2_dparams bare = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_context *dctx = blosc2_create_dctx(bare);
  report("bare dctx decompress", blosc2_decompress_ctx(dctx, chunk, cs, out, sizeof out));
  blosc2_free_ctx(dctx);
  blosc2_cparams withs = cp;
  withs.schunk = s;
  cctx = blosc2_create_cctx(withs);
  cs = blosc2_compress_ctx(cctx, data, sizeof data, chunk, sizeof chunk);
  report("cctx with schunk compress", cs);
  blosc2_free_ctx(cctx);
  bare.schunk = s;
  dctx = blosc2_create_dctx(bare);
  report("dctx with schunk decompress", blosc2_decompress_ctx(dctx, chunk, cs, out, sizeof out));
  blosc2_free_ctx(dctx);
  if (needs_free) free(cframe);
  blosc2_schunk_free(s);

  /* On disk, reopened. */
  const char *paths[2] = {"codec_schunk.b2frame", "codec_schunk.b2sframe"};
  for (int contiguous = 1; contiguous >= 0; contiguous--) {
    const char *path = paths[1 - contiguous];
    char name[64];
    blosc2_remove_urlpath(path);
    blosc2_storage fs = {.contiguous = contiguous, .urlpath = (char *)path, .cparams = &cp,
                         .dparams = &dp};
    s = blosc2_schunk_new(&fs);
    snprintf(name, sizeof name, "%s new", contiguous ? "cframe" : "sframe");
    append(name, s);
    decompress_all(name, s);
    blosc2_schunk_free(s);
    s = blosc2_schunk_open(path);
    snprintf(name, sizeof name, "%s open", contiguous ? "cframe" : "sframe");
    if (s) {
      decompress_all(name, s);
      append(name, s);
      blosc2_schunk_free(s);
    }
    if (contiguous) {
      s = blosc2_schunk_open_offset(path, 0);
      if (s) {
        decompress_all("cframe open_offset", s);
        blosc2_schunk_free(s);
      }
      blosc2_dparams dp2 = BLOSC2_DPARAMS_DEFAULTS;
      blosc2_io io = BLOSC2_IO_DEFAULTS;
      blosc2_storage os = {.contiguous = true, .urlpath = (char *)path, .dparams = &dp2,
                           .io = &io};
      s = blosc2_schunk_open_udio(path, &io);
      (void)os;
      if (s) {
        decompress_all("cframe open_udio", s);
        blosc2_schunk_free(s);
      }
    }
    blosc2_remove_urlpath(path);
  }
  decoder_results();
  blosc2_destroy();
  printf("codec_schunk: %d checks, %d failures\n", checks, failures);
  return failures != 0;
}
