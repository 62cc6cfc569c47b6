/*
 * Error-code parity table: malformed inputs for each parser, built from valid inputs that the
 * library under test writes itself, each fed to the public C API in a forked child; one line a
 * row with what the calls returned. capi-tests/parity.sh runs it against c-blosc2 3.3.5 and
 * against ours and compares the lines: a row matches when both print the same; where the
 * reference dies (CRASH) ours must return an error.
 *
 *   error_parity WORKDIR      (WORKDIR: an existing directory for the on-disk rows)
 */
#include <blosc2.h>
#include <b2nd.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define NITEMS 1000
#define TYPESIZE 4
#define CHUNK_BYTES (NITEMS * TYPESIZE)

enum target {
  CHUNK_DECOMPRESS, /* blosc2_decompress into a CHUNK_BYTES destination */
  CHUNK_GETITEM,    /* blosc2_getitem(start, n) */
  CHUNK_SIZES,      /* blosc2_cbuffer_sizes */
  CHUNK_VALIDATE,   /* blosc1_cbuffer_validate with the (mutated) length */
  FRAME_BUFFER,     /* blosc2_schunk_from_buffer, then chunk 0, metalayer and vlmetalayer */
  FRAME_FILE,       /* the same frame written to a file, blosc2_schunk_open */
  B2ND_CFRAME,      /* b2nd_from_cframe + b2nd_to_cbuffer */
  B2ND_META,        /* b2nd_deserialize_meta on the metalayer content alone */
  SFRAME_INDEX,     /* sparse frame directory with a mutated index file (chunks.b2frame) */
  SFRAME_CHUNK,     /* sparse frame directory with a mutated 00000000.chunk */
  SPECIAL_MAKE,     /* blosc2_chunk_zeros/nans/uninit/repeatval with a bad size (.start says which) */
};

enum anchor { AT_START, AT_END, AT_B2ND_META };

struct edit {
  enum anchor anchor;
  int64_t at; /* offset from the anchor (AT_END: bytes before the end) */
  int width;  /* 1, 2, 4 or 8 */
  bool big_endian;
  int64_t value;
};

struct row {
  const char *name;
  enum target target;
  bool truncate;
  int64_t keep; /* truncate to this many bytes; with keep_from_end, drop that many instead */
  bool keep_from_end;
  int nedits;
  struct edit edits[3];
  int start, nitems; /* CHUNK_GETITEM */
  int64_t len_delta; /* added to the length passed to the API (not to the bytes) */
};

#define LE(a, w, v) {AT_START, a, w, false, v}
#define BE(a, w, v) {AT_START, a, w, true, v}
#define END_BE(a, w, v) {AT_END, a, w, true, v}
#define META(a, w, v) {AT_B2ND_META, a, w, true, v}
#define ROW(n, t) .name = n, .target = t

/* Chunk header: 0 version, 1 versionlz, 2 flags, 3 typesize, 4 nbytes, 8 blocksize,
 * 12 cbytes (little endian), 16..31 extended header; bstarts follow. Frame header offsets are
 * those of README_CFRAME_FORMAT; the trailer length is a big-endian uint32 22 bytes from the
 * end. */
static const struct row rows[] = {
    /* ---- chunk header ---- */
    {ROW("chunk ok decompress", CHUNK_DECOMPRESS)},
    {ROW("chunk len 0", CHUNK_DECOMPRESS), .truncate = true, .keep = 0},
    {ROW("chunk len 15", CHUNK_DECOMPRESS), .truncate = true, .keep = 15},
    {ROW("chunk len 16", CHUNK_DECOMPRESS), .truncate = true, .keep = 16},
    {ROW("chunk len 31", CHUNK_DECOMPRESS), .truncate = true, .keep = 31},
    {ROW("chunk len 32", CHUNK_DECOMPRESS), .truncate = true, .keep = 32},
    {ROW("chunk cut last byte", CHUNK_DECOMPRESS), .truncate = true, .keep = 1, .keep_from_end = true},
    {ROW("chunk version 0", CHUNK_DECOMPRESS), .nedits = 1, .edits = {LE(0, 1, 0)}},
    {ROW("chunk version 9", CHUNK_DECOMPRESS), .nedits = 1, .edits = {LE(0, 1, 9)}},
    {ROW("chunk version 255", CHUNK_DECOMPRESS), .nedits = 1, .edits = {LE(0, 1, 255)}},
    {ROW("chunk typesize 0", CHUNK_DECOMPRESS), .nedits = 1, .edits = {LE(3, 1, 0)}},
    {ROW("chunk nbytes negative", CHUNK_DECOMPRESS), .nedits = 1, .edits = {LE(4, 4, -1)}},
    {ROW("chunk nbytes INT32_MIN", CHUNK_DECOMPRESS), .nedits = 1,
     .edits = {LE(4, 4, INT32_MIN)}},
    {ROW("chunk nbytes > dest", CHUNK_DECOMPRESS), .nedits = 1,
     .edits = {LE(4, 4, CHUNK_BYTES + 4)}},
    {ROW("chunk nbytes 0", CHUNK_DECOMPRESS), .nedits = 1, .edits = {LE(4, 4, 0)}},
    {ROW("chunk blocksize 0", CHUNK_DECOMPRESS), .nedits = 1, .edits = {LE(8, 4, 0)}},
    {ROW("chunk blocksize negative", CHUNK_DECOMPRESS), .nedits = 1, .edits = {LE(8, 4, -4)}},
    {ROW("chunk blocksize > nbytes", CHUNK_DECOMPRESS), .nedits = 1,
     .edits = {LE(8, 4, CHUNK_BYTES * 2)}},
    {ROW("chunk blocksize INT32_MAX", CHUNK_DECOMPRESS), .nedits = 1,
     .edits = {LE(8, 4, INT32_MAX)}},
    {ROW("chunk cbytes > len", CHUNK_DECOMPRESS), .nedits = 1, .edits = {LE(12, 4, 100000)}},
    {ROW("chunk cbytes < header", CHUNK_DECOMPRESS), .nedits = 1, .edits = {LE(12, 4, 20)}},
    {ROW("chunk cbytes negative", CHUNK_DECOMPRESS), .nedits = 1, .edits = {LE(12, 4, -1)}},
    {ROW("chunk srcsize < cbytes", CHUNK_DECOMPRESS), .len_delta = -8},
    {ROW("chunk bstart 0 past end", CHUNK_DECOMPRESS), .nedits = 1,
     .edits = {LE(32, 4, 0x7fffff00)}},
    {ROW("chunk bstart 0 negative", CHUNK_DECOMPRESS), .nedits = 1, .edits = {LE(32, 4, -5)}},
    {ROW("chunk bstart 0 inside header", CHUNK_DECOMPRESS), .nedits = 1,
     .edits = {LE(32, 4, 8)}},
    {ROW("chunk memcpyed flag", CHUNK_DECOMPRESS), .nedits = 1, .edits = {LE(2, 1, 0x03)}},
    {ROW("chunk codec 7", CHUNK_DECOMPRESS), .nedits = 1, .edits = {LE(2, 1, 0xe1)}},
    {ROW("chunk filter 99", CHUNK_DECOMPRESS), .nedits = 1, .edits = {LE(16, 1, 99)}},
    {ROW("chunk special 7", CHUNK_DECOMPRESS), .nedits = 1, .edits = {LE(31, 1, 0x70)}},
    {ROW("chunk zeros special short", CHUNK_DECOMPRESS), .truncate = true, .keep = 32, .nedits = 1,
     .edits = {LE(31, 1, 0x10)}},
    {ROW("chunk getitem ok", CHUNK_GETITEM), .start = 10, .nitems = 5},
    {ROW("chunk getitem start negative", CHUNK_GETITEM), .start = -1, .nitems = 5},
    {ROW("chunk getitem nitems negative", CHUNK_GETITEM), .start = 0, .nitems = -5},
    {ROW("chunk getitem past end", CHUNK_GETITEM), .start = NITEMS - 2, .nitems = 5},
    {ROW("chunk getitem start overflow", CHUNK_GETITEM), .start = INT_MAX, .nitems = 2},
    {ROW("chunk getitem truncated", CHUNK_GETITEM), .truncate = true, .keep = 40, .start = 0, .nitems = 5},
    {ROW("chunk getitem typesize 0", CHUNK_GETITEM), .start = 0, .nitems = 5, .nedits = 1,
     .edits = {LE(3, 1, 0)}},
    {ROW("chunk sizes ok", CHUNK_SIZES)},
    {ROW("chunk sizes version 0", CHUNK_SIZES), .nedits = 1, .edits = {LE(0, 1, 0)}},
    {ROW("chunk sizes version 255", CHUNK_SIZES), .nedits = 1, .edits = {LE(0, 1, 255)}},
    {ROW("chunk validate ok", CHUNK_VALIDATE)},
    {ROW("chunk validate short", CHUNK_VALIDATE), .len_delta = -1},
    {ROW("chunk validate nbytes negative", CHUNK_VALIDATE), .nedits = 1,
     .edits = {LE(4, 4, -1)}},
    {ROW("chunk validate cbytes > len", CHUNK_VALIDATE), .nedits = 1,
     .edits = {LE(12, 4, 1 << 30)}},
    /* ---- special-value chunks made with bad sizes ---- */
    {ROW("special zeros nbytes negative", SPECIAL_MAKE), .start = 0},
    {ROW("special nans nbytes negative", SPECIAL_MAKE), .start = 1},
    {ROW("special uninit nbytes negative", SPECIAL_MAKE), .start = 2},
    {ROW("special repeatval nbytes negative", SPECIAL_MAKE), .start = 3},
    {ROW("special repeatval typesize negative", SPECIAL_MAKE), .start = 4},
    {ROW("special repeatval nbytes not multiple", SPECIAL_MAKE), .start = 5},
    /* ---- frame header ---- */
    {ROW("frame ok", FRAME_BUFFER)},
    {ROW("frame len 0", FRAME_BUFFER), .truncate = true, .keep = 0},
    {ROW("frame len 16", FRAME_BUFFER), .truncate = true, .keep = 16},
    {ROW("frame len 86", FRAME_BUFFER), .truncate = true, .keep = 86},
    {ROW("frame header only", FRAME_BUFFER), .truncate = true, .keep = 100},
    {ROW("frame bad magic", FRAME_BUFFER), .nedits = 1, .edits = {LE(2, 1, 'x')}},
    {ROW("frame bad array marker", FRAME_BUFFER), .nedits = 1, .edits = {LE(0, 1, 0x00)}},
    {ROW("frame version 0", FRAME_BUFFER), .nedits = 1, .edits = {LE(0x19, 1, 0x10)}},
    {ROW("frame version 15", FRAME_BUFFER), .nedits = 1, .edits = {LE(0x19, 1, 0x1f)}},
    {ROW("frame header_size past end", FRAME_BUFFER), .nedits = 1,
     .edits = {BE(0x0b, 4, 0x7fff0000)}},
    {ROW("frame header_size negative", FRAME_BUFFER), .nedits = 1, .edits = {BE(0x0b, 4, -1)}},
    {ROW("frame header_size 10", FRAME_BUFFER), .nedits = 1, .edits = {BE(0x0b, 4, 10)}},
    {ROW("frame frame_size past end", FRAME_BUFFER), .nedits = 1,
     .edits = {BE(0x10, 8, 1LL << 40)}},
    {ROW("frame frame_size negative", FRAME_BUFFER), .nedits = 1, .edits = {BE(0x10, 8, -1)}},
    {ROW("frame frame_size short", FRAME_BUFFER), .nedits = 1, .edits = {BE(0x10, 8, 50)}},
    {ROW("frame frame_type 5", FRAME_BUFFER), .nedits = 1, .edits = {LE(0x1a, 1, 5)}},
    {ROW("frame uncompressed negative", FRAME_BUFFER), .nedits = 1,
     .edits = {BE(0x1e, 8, -1)}},
    {ROW("frame uncompressed huge", FRAME_BUFFER), .nedits = 1,
     .edits = {BE(0x1e, 8, INT64_MAX)}},
    {ROW("frame compressed negative", FRAME_BUFFER), .nedits = 1, .edits = {BE(0x27, 8, -1)}},
    {ROW("frame compressed past end", FRAME_BUFFER), .nedits = 1,
     .edits = {BE(0x27, 8, 1LL << 40)}},
    {ROW("frame typesize 0", FRAME_BUFFER), .nedits = 1, .edits = {BE(0x30, 4, 0)}},
    {ROW("frame typesize negative", FRAME_BUFFER), .nedits = 1, .edits = {BE(0x30, 4, -4)}},
    {ROW("frame blocksize negative", FRAME_BUFFER), .nedits = 1, .edits = {BE(0x35, 4, -1)}},
    {ROW("frame chunksize 0", FRAME_BUFFER), .nedits = 1, .edits = {BE(0x3a, 4, 0)}},
    {ROW("frame chunksize negative", FRAME_BUFFER), .nedits = 1, .edits = {BE(0x3a, 4, -8)}},
    {ROW("frame chunksize 1", FRAME_BUFFER), .nedits = 1, .edits = {BE(0x3a, 4, 1)}},
    {ROW("frame nthreads negative", FRAME_BUFFER), .nedits = 2,
     .edits = {BE(0x3f, 2, -3), BE(0x42, 2, -3)}},
    {ROW("frame nfilters 7", FRAME_BUFFER), .nedits = 1, .edits = {LE(0x46, 1, 7)}},
    {ROW("frame filter 200", FRAME_BUFFER), .nedits = 1, .edits = {LE(0x47, 1, 200)}},
    /* ---- metalayers (msgpack) ---- */
    {ROW("frame metalayers marker", FRAME_BUFFER), .nedits = 1, .edits = {LE(0x57, 1, 0x00)}},
    {ROW("frame metalayers map marker", FRAME_BUFFER), .nedits = 1,
     .edits = {LE(0x5b, 1, 0x00)}},
    {ROW("frame metalayers count 16", FRAME_BUFFER), .nedits = 1, .edits = {BE(0x5c, 2, 16)}},
    {ROW("frame metalayers count 65535", FRAME_BUFFER), .nedits = 1,
     .edits = {BE(0x5c, 2, 0xffff)}},
    {ROW("frame metalayers count 0", FRAME_BUFFER), .nedits = 1, .edits = {BE(0x5c, 2, 0)}},
    {ROW("frame metalayer name marker", FRAME_BUFFER), .nedits = 1,
     .edits = {LE(0x5e, 1, 0xc1)}},
    {ROW("frame metalayer name long", FRAME_BUFFER), .nedits = 1, .edits = {LE(0x5e, 1, 0xbf)}},
    {ROW("frame metalayer offset marker", FRAME_BUFFER), .nedits = 1,
     .edits = {LE(0x64, 1, 0x00)}},
    {ROW("frame metalayer offset past end", FRAME_BUFFER), .nedits = 1,
     .edits = {BE(0x65, 4, 0x7fffffff)}},
    {ROW("frame metalayer offset negative", FRAME_BUFFER), .nedits = 1,
     .edits = {BE(0x65, 4, -100)}},
    {ROW("frame metalayer offset 0", FRAME_BUFFER), .nedits = 1, .edits = {BE(0x65, 4, 0)}},
    /* ---- trailer ---- */
    {ROW("trailer cut 1", FRAME_BUFFER), .truncate = true, .keep = 1, .keep_from_end = true},
    {ROW("trailer cut 30", FRAME_BUFFER), .truncate = true, .keep = 30, .keep_from_end = true},
    {ROW("trailer len 0", FRAME_BUFFER), .nedits = 1, .edits = {END_BE(22, 4, 0)}},
    {ROW("trailer len past start", FRAME_BUFFER), .nedits = 1,
     .edits = {END_BE(22, 4, 0x7fffffff)}},
    {ROW("trailer len negative", FRAME_BUFFER), .nedits = 1, .edits = {END_BE(22, 4, -1)}},
    {ROW("trailer len +8", FRAME_BUFFER), .nedits = 1, .edits = {END_BE(22, 4, 8)}},
    {ROW("trailer fixext marker", FRAME_BUFFER), .nedits = 1, .edits = {END_BE(24, 1, 0)}},
    {ROW("frame file ok", FRAME_FILE)},
    {ROW("frame file cut trailer", FRAME_FILE), .truncate = true, .keep = 30, .keep_from_end = true},
    {ROW("frame file bad magic", FRAME_FILE), .nedits = 1, .edits = {LE(3, 1, 'x')}},
    {ROW("frame file header_size past end", FRAME_FILE), .nedits = 1,
     .edits = {BE(0x0b, 4, 0x7fff0000)}},
    {ROW("frame file trailer len huge", FRAME_FILE), .nedits = 1,
     .edits = {END_BE(22, 4, 0x7fffffff)}},
    /* ---- b2nd metalayer, alone and inside its frame ---- */
    {ROW("b2nd meta ok", B2ND_META)},
    {ROW("b2nd meta len 0", B2ND_META), .truncate = true, .keep = 0},
    {ROW("b2nd meta len 3", B2ND_META), .truncate = true, .keep = 3},
    {ROW("b2nd meta cut shape", B2ND_META), .truncate = true, .keep = 10},
    {ROW("b2nd meta cut dtype", B2ND_META), .truncate = true, .keep = 2, .keep_from_end = true},
    {ROW("b2nd meta array marker", B2ND_META), .nedits = 1, .edits = {META(0, 1, 0x00)}},
    {ROW("b2nd meta version 9", B2ND_META), .nedits = 1, .edits = {META(1, 1, 9)}},
    {ROW("b2nd meta ndim 0", B2ND_META), .nedits = 1, .edits = {META(2, 1, 0)}},
    {ROW("b2nd meta ndim 9", B2ND_META), .nedits = 1, .edits = {META(2, 1, 9)}},
    {ROW("b2nd meta ndim 127", B2ND_META), .nedits = 1, .edits = {META(2, 1, 127)}},
    {ROW("b2nd meta ndim negative", B2ND_META), .nedits = 1, .edits = {META(2, 1, 0xff)}},
    {ROW("b2nd meta shape array 9", B2ND_META), .nedits = 1, .edits = {META(3, 1, 0x99)}},
    {ROW("b2nd meta shape negative", B2ND_META), .nedits = 1, .edits = {META(5, 8, -10)}},
    {ROW("b2nd meta shape int marker", B2ND_META), .nedits = 1, .edits = {META(4, 1, 0xc0)}},
    {ROW("b2nd meta dtype len huge", B2ND_META), .nedits = 1, .edits = {META(56, 4, 1 << 30)}},
    {ROW("b2nd cframe ok", B2ND_CFRAME)},
    {ROW("b2nd cframe ndim 9", B2ND_CFRAME), .nedits = 1, .edits = {META(2, 1, 9)}},
    {ROW("b2nd cframe ndim 0", B2ND_CFRAME), .nedits = 1, .edits = {META(2, 1, 0)}},
    {ROW("b2nd cframe shape negative", B2ND_CFRAME), .nedits = 1,
     .edits = {META(5, 8, -10)}},
    {ROW("b2nd cframe shape huge", B2ND_CFRAME), .nedits = 1,
     .edits = {META(5, 8, INT64_MAX / 2)}},
    {ROW("b2nd cframe shape product overflow", B2ND_CFRAME), .nedits = 2,
     .edits = {META(5, 8, 1LL << 40), META(14, 8, 1LL << 40)}},
    {ROW("b2nd cframe chunkshape 0", B2ND_CFRAME), .nedits = 1, .edits = {META(24, 4, 0)}},
    {ROW("b2nd cframe chunkshape negative", B2ND_CFRAME), .nedits = 1,
     .edits = {META(24, 4, -2)}},
    {ROW("b2nd cframe chunkshape > shape", B2ND_CFRAME), .nedits = 1,
     .edits = {META(24, 4, 1 << 20)}},
    {ROW("b2nd cframe blockshape 0", B2ND_CFRAME), .nedits = 1, .edits = {META(35, 4, 0)}},
    {ROW("b2nd cframe blockshape > chunk", B2ND_CFRAME), .nedits = 1,
     .edits = {META(35, 4, 1 << 20)}},
    {ROW("b2nd cframe blockshape product overflow", B2ND_CFRAME), .nedits = 2,
     .edits = {META(35, 4, 1 << 30), META(40, 4, 1 << 30)}},
    /* ---- sparse frame index ---- */
    {ROW("sframe ok", SFRAME_INDEX)},
    {ROW("sframe index empty", SFRAME_INDEX), .truncate = true, .keep = 0},
    {ROW("sframe index header only", SFRAME_INDEX), .truncate = true, .keep = 100},
    {ROW("sframe index bad magic", SFRAME_INDEX), .nedits = 1, .edits = {LE(2, 1, 'x')}},
    {ROW("sframe index frame_type 0", SFRAME_INDEX), .nedits = 1, .edits = {LE(0x1a, 1, 0)}},
    {ROW("sframe index cut trailer", SFRAME_INDEX), .truncate = true, .keep = 30, .keep_from_end = true},
    {ROW("sframe index trailer len huge", SFRAME_INDEX), .nedits = 1,
     .edits = {END_BE(22, 4, 0x7fffffff)}},
    {ROW("sframe index uncompressed huge", SFRAME_INDEX), .nedits = 1,
     .edits = {BE(0x1e, 8, 1LL << 50)}},
    {ROW("sframe chunk file empty", SFRAME_CHUNK), .truncate = true, .keep = 0},
    {ROW("sframe chunk file cut", SFRAME_CHUNK), .truncate = true, .keep = 40},
    {ROW("sframe chunk cbytes huge", SFRAME_CHUNK), .nedits = 1,
     .edits = {LE(12, 4, 1 << 30)}},
    {ROW("sframe chunk nbytes > chunksize", SFRAME_CHUNK), .nedits = 1,
     .edits = {LE(4, 4, CHUNK_BYTES * 4)}},
};

/* ---- valid inputs, written by the library under test ---------------------------------------- */

static int32_t data[NITEMS];
static uint8_t chunk[CHUNK_BYTES + BLOSC2_MAX_OVERHEAD];
static int32_t chunk_len;
static uint8_t *frame;
static int64_t frame_len;
static uint8_t *b2nd_frame;
static int64_t b2nd_frame_len;
static uint8_t *smeta;
static int32_t smeta_len;
static int64_t smeta_at; /* where smeta sits inside b2nd_frame */
static char workdir[PATH_MAX];

static void fail(const char *what) {
  fprintf(stderr, "setup failed: %s\n", what);
  exit(2);
}

static blosc2_cparams cparams_1thread(void) {
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = TYPESIZE;
  cparams.nthreads = 1;
  cparams.clevel = 5;
  return cparams;
}

static blosc2_schunk *new_schunk(bool contiguous, const char *urlpath) {
  blosc2_cparams cparams = cparams_1thread();
  blosc2_dparams dparams = BLOSC2_DPARAMS_DEFAULTS;
  dparams.nthreads = 1;
  blosc2_storage storage = {.contiguous = contiguous, .urlpath = (char *)urlpath,
                            .cparams = &cparams, .dparams = &dparams};
  blosc2_schunk *schunk = blosc2_schunk_new(&storage);
  if (schunk == NULL) fail("schunk_new");
  uint8_t meta[] = {0x93, 1, 2, 3};
  if (blosc2_meta_add(schunk, "meta1", meta, sizeof meta) < 0) fail("meta_add");
  uint8_t vl[] = {0xa3, 'a', 'b', 'c'};
  if (blosc2_vlmeta_add(schunk, "vl1", vl, sizeof vl, NULL) < 0) fail("vlmeta_add");
  for (int c = 0; c < 3; c++) {
    if (blosc2_schunk_append_buffer(schunk, data, CHUNK_BYTES) < 0) fail("append");
  }
  return schunk;
}

static void setup(void) {
  for (int i = 0; i < NITEMS; i++) data[i] = i * 3;
  blosc2_set_nthreads(1);
  chunk_len = blosc2_compress(5, BLOSC_SHUFFLE, TYPESIZE, data, CHUNK_BYTES, chunk, sizeof chunk);
  if (chunk_len <= 0) fail("compress");

  blosc2_schunk *schunk = new_schunk(true, NULL);
  bool needs_free = false;
  uint8_t *bytes = NULL;
  frame_len = blosc2_schunk_to_buffer(schunk, &bytes, &needs_free);
  if (frame_len <= 0) fail("to_buffer");
  frame = malloc((size_t)frame_len);
  memcpy(frame, bytes, (size_t)frame_len);
  if (needs_free) free(bytes);
  blosc2_schunk_free(schunk);

  int64_t shape[2] = {40, 25};
  int32_t chunkshape[2] = {20, 10};
  int32_t blockshape[2] = {10, 5};
  blosc2_cparams cparams = cparams_1thread();
  blosc2_storage storage = {.contiguous = true, .cparams = &cparams};
  b2nd_context_t *ctx = b2nd_create_ctx(&storage, 2, shape, chunkshape, blockshape, "<i4", 0,
                                        NULL, 0);
  if (ctx == NULL) fail("create_ctx");
  b2nd_array_t *array = NULL;
  if (b2nd_from_cbuffer(ctx, &array, data, CHUNK_BYTES) < 0) fail("from_cbuffer");
  if (b2nd_to_cframe(array, &bytes, &b2nd_frame_len, &needs_free) < 0) fail("to_cframe");
  b2nd_frame = malloc((size_t)b2nd_frame_len);
  memcpy(b2nd_frame, bytes, (size_t)b2nd_frame_len);
  if (needs_free) free(bytes);
  b2nd_free(array);
  b2nd_free_ctx(ctx);
  smeta_len = b2nd_serialize_meta(2, shape, chunkshape, blockshape, "<i4", 0, &smeta);
  if (smeta_len <= 0) fail("serialize_meta");
  smeta_at = -1;
  for (int64_t i = 0; i + smeta_len <= b2nd_frame_len; i++) {
    if (memcmp(b2nd_frame + i, smeta, (size_t)smeta_len) == 0) {
      smeta_at = i;
      break;
    }
  }
  if (smeta_at < 0) fail("b2nd metalayer not found in its frame");
}

/* ---- running a row -------------------------------------------------------------------------- */

static void put(uint8_t *buf, int64_t len, int64_t at, const struct edit *e) {
  for (int b = 0; b < e->width; b++) {
    int shift = e->big_endian ? 8 * (e->width - 1 - b) : 8 * b;
    if (at + b >= 0 && at + b < len) buf[at + b] = (uint8_t)((uint64_t)e->value >> shift);
  }
}

/* The row's bytes: `base` truncated and edited (a fresh allocation). */
static uint8_t *mutated(const struct row *r, const uint8_t *base, int64_t base_len,
                        int64_t meta_at, int64_t *len) {
  uint8_t *buf = malloc((size_t)base_len + 1);
  memcpy(buf, base, (size_t)base_len);
  int64_t n = base_len;
  for (int i = 0; i < r->nedits; i++) {
    const struct edit *e = &r->edits[i];
    int64_t at = e->anchor == AT_START ? e->at
                 : e->anchor == AT_END ? n - e->at
                                       : meta_at + e->at;
    put(buf, n, at, e);
  }
  if (r->truncate) n = r->keep_from_end ? (n > r->keep ? n - r->keep : 0) : r->keep;
  *len = n;
  return buf;
}

static void spill(const char *path, const uint8_t *buf, int64_t len) {
  FILE *f = fopen(path, "wb");
  if (f == NULL || (len > 0 && fwrite(buf, 1, (size_t)len, f) != (size_t)len)) fail(path);
  fclose(f);
}

static void print_schunk(blosc2_schunk *schunk) {
  if (schunk == NULL) {
    printf("NULL\n");
    return;
  }
  static uint8_t out[CHUNK_BYTES * 4];
  int rc = blosc2_schunk_decompress_chunk(schunk, 0, out, CHUNK_BYTES);
  uint8_t *content = NULL;
  int32_t content_len = 0;
  int meta = blosc2_meta_get(schunk, "meta1", &content, &content_len);
  if (meta >= 0) free(content);
  content = NULL;
  int vl = blosc2_vlmeta_get(schunk, "vl1", &content, &content_len);
  if (vl >= 0) free(content);
  printf("nchunks=%lld chunk0=%d meta=%d vlmeta=%d\n", (long long)schunk->nchunks, rc, meta, vl);
  blosc2_schunk_free(schunk);
}

static void run_row(const struct row *r) {
  static uint8_t out[CHUNK_BYTES * 4];
  int64_t len = 0;
  uint8_t *buf;
  char path[PATH_MAX + 64];
  switch (r->target) {
  case CHUNK_DECOMPRESS:
  case CHUNK_GETITEM:
  case CHUNK_SIZES:
  case CHUNK_VALIDATE: {
    buf = mutated(r, chunk, chunk_len, 0, &len);
    int32_t srclen = (int32_t)(len + r->len_delta);
    if (r->target == CHUNK_DECOMPRESS) {
      printf("%d\n", blosc2_decompress(buf, srclen, out, CHUNK_BYTES));
    } else if (r->target == CHUNK_GETITEM) {
      printf("%d\n", blosc2_getitem(buf, srclen, r->start, r->nitems, out, sizeof out));
    } else if (r->target == CHUNK_SIZES) {
      int32_t nbytes = 0, cbytes = 0, blocksize = 0;
      int rc = blosc2_cbuffer_sizes(buf, &nbytes, &cbytes, &blocksize);
      printf("%d nbytes=%d cbytes=%d blocksize=%d\n", rc, nbytes, cbytes, blocksize);
    } else {
      size_t nbytes = 0;
      int rc = blosc1_cbuffer_validate(buf, (size_t)srclen, &nbytes);
      printf("%d\n", rc);
    }
    break;
  }
  case FRAME_BUFFER:
    buf = mutated(r, frame, frame_len, 0, &len);
    print_schunk(blosc2_schunk_from_buffer(buf, len, false));
    break;
  case FRAME_FILE:
    buf = mutated(r, frame, frame_len, 0, &len);
    snprintf(path, sizeof path, "%s/row.b2frame", workdir);
    spill(path, buf, len);
    print_schunk(blosc2_schunk_open(path));
    break;
  case B2ND_META: {
    buf = mutated(r, smeta, smeta_len, 0, &len);
    int8_t ndim = 0, dtype_format = 0;
    int64_t shape[B2ND_MAX_DIM];
    int32_t chunkshape[B2ND_MAX_DIM], blockshape[B2ND_MAX_DIM];
    char *dtype = NULL;
    int rc = b2nd_deserialize_meta(buf, (int32_t)len, &ndim, shape, chunkshape, blockshape,
                                   &dtype, &dtype_format);
    printf("%d", rc);
    if (rc >= 0) printf(" ndim=%d dtype=%s", ndim, dtype != NULL ? dtype : "(null)");
    printf("\n");
    free(dtype);
    break;
  }
  case B2ND_CFRAME: {
    buf = mutated(r, b2nd_frame, b2nd_frame_len, smeta_at, &len);
    b2nd_array_t *array = NULL;
    int rc = b2nd_from_cframe(buf, len, false, &array);
    printf("%d", rc);
    if (rc >= 0 && array != NULL) {
      printf(" to_cbuffer=%d", b2nd_to_cbuffer(array, out, CHUNK_BYTES));
      b2nd_free(array);
    }
    printf("\n");
    break;
  }
  case SFRAME_INDEX:
  case SFRAME_CHUNK: {
    snprintf(path, sizeof path, "%s/row-sframe-%d", workdir, (int)getpid());
    blosc2_schunk *schunk = new_schunk(false, path);
    blosc2_schunk_free(schunk);
    char file[PATH_MAX + 128];
    snprintf(file, sizeof file, "%s/%s", path,
             r->target == SFRAME_INDEX ? "chunks.b2frame" : "00000000.chunk");
    FILE *f = fopen(file, "rb");
    if (f == NULL) fail(file);
    static uint8_t original[1 << 16];
    int64_t original_len = (int64_t)fread(original, 1, sizeof original, f);
    fclose(f);
    buf = mutated(r, original, original_len, 0, &len);
    spill(file, buf, len);
    print_schunk(blosc2_schunk_open(path));
    break;
  }
  case SPECIAL_MAKE: {
    blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
    cparams.typesize = r->start == 4 ? -1 : 4;
    int32_t value = 7, nbytes = r->start == 5 ? 18 : r->start == 4 ? 16 : -4;
    int rc;
    if (r->start == 0) rc = blosc2_chunk_zeros(cparams, nbytes, out, sizeof out);
    else if (r->start == 1) rc = blosc2_chunk_nans(cparams, nbytes, out, sizeof out);
    else if (r->start == 2) rc = blosc2_chunk_uninit(cparams, nbytes, out, sizeof out);
    else rc = blosc2_chunk_repeatval(cparams, nbytes, out, sizeof out, &value);
    printf("%d\n", rc);
    return;
  }
  default:
    fail("target");
    return;
  }
  free(buf);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s WORKDIR\n", argv[0]);
    return 2;
  }
  snprintf(workdir, sizeof workdir, "%s", argv[1]);
  blosc2_init();
  setup();
  int n = (int)(sizeof rows / sizeof rows[0]);
  for (int i = 0; i < n; i++) {
    printf("%-44s ", rows[i].name);
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) fail("fork");
    if (pid == 0) {
      struct rlimit lim = {2ULL << 30, 2ULL << 30};
      setrlimit(RLIMIT_AS, &lim);
      alarm(20);
      run_row(&rows[i]);
      fflush(stdout);
      _exit(0);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
      if (errno != EINTR) fail("waitpid");
    }
    if (WIFSIGNALED(status)) {
      printf("CRASH %s\n", WTERMSIG(status) == SIGALRM ? "hang" : strsignal(WTERMSIG(status)));
    } else if (WEXITSTATUS(status) != 0) {
      printf("EXIT %d\n", WEXITSTATUS(status));
    }
  }
  printf("rows: %d\n", n);
  blosc2_destroy();
  return 0;
}
