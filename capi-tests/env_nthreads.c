/* The BLOSC_* variables and the frames super-chunks write. c-blosc2 gives every context it
   makes (blosc2_create_cctx/dctx) what BLOSC_NTHREADS, BLOSC_CLEVEL, BLOSC_COMPRESSOR,
   BLOSC_TYPESIZE, BLOSC_SHUFFLE, BLOSC_DELTA, BLOSC_BLOCKSIZE and BLOSC_SPLITMODE say, a
   super-chunk's own contexts included: its chunks are compressed that way, while its frame
   header records the super-chunk's own parameters but its contexts' thread counts (bytes 62-67:
   d1 <cctx> d1 <dctx>); the storage keeps the caller's parameters. For each setting below (each
   variable, some together, bad values; set with setenv in this process), this writes frames
   every way a super-chunk makes one: in memory, in a file and in a directory (cframe, sframe),
   copies, to_buffer/to_file, an opened frame appended to, and b2nd arrays; and prints, for each,
   the frame's length and FNV-1a digest, the header's parameter fields, the first chunk's header
   and the parameters the super-chunk reports (get_cparams, its contexts, its storage).

   Output is compared line by line with the reference's. */
#include <blosc2.h>
#include <b2nd.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fnv.h"

/* Whole chunks only: c-blosc2's blosc2_schunk_copy pads a short last chunk it recompresses to a
   full one with stale bytes (a defect of its own, not what this test is about). */
#define NITEMS 60000
#define CHUNKITEMS 20000

static int32_t data[NITEMS];
static char dir[] = "/tmp/rblosc2-env-nthreads-XXXXXX";

static uint8_t *read_file(const char *path, int64_t *len) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  *len = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *buf = malloc(*len > 0 ? (size_t)*len : 1);
  if (fread(buf, 1, (size_t)*len, f) != (size_t)*len) *len = -1;
  fclose(f);
  return buf;
}

/* The frame bytes: length, digest (of the header only when `whole` is false) and the header's
   thread fields. */
static void frame_line_of(const char *what, const uint8_t *frame, int64_t len, bool whole) {
  CHECK(frame != NULL && len >= 68, "%s: no frame (%" PRId64 ")", what, len);
  if (frame == NULL || len < 68) return;
  size_t n = whole ? (size_t)len : 68;
  printf("  %s: %" PRId64 " bytes, fnv %016" PRIx64 "%s, header[62..68] %02x %02x %02x %02x %02x %02x\n",
         what, len, fnv(frame, n), whole ? "" : " (header)", frame[62], frame[63], frame[64],
         frame[65], frame[66], frame[67]);
  /* codecs and flags (27, 28), typesize, blocksize, chunksize (48-61), filter pipeline and
     codec (70-79), other flags (85). */
  if (len >= 86) {
    printf("    header:");
    for (int i = 27; i < 29; i++) printf(" %02x", frame[i]);
    printf(" |");
    for (int i = 48; i < 62; i++) printf(" %02x", frame[i]);
    printf(" |");
    for (int i = 70; i < 80; i++) printf(" %02x", frame[i]);
    printf(" | %02x\n", frame[85]);
  }
}

static void frame_line(const char *what, const uint8_t *frame, int64_t len) {
  frame_line_of(what, frame, len, true);
}

static void file_line_of(const char *what, const char *path, bool whole) {
  int64_t len = 0;
  uint8_t *buf = read_file(path, &len);
  frame_line_of(what, buf, len, whole);
  free(buf);
}

static void file_line(const char *what, const char *path) { file_line_of(what, path, true); }

/* A sparse frame: its index file as a frame, then a digest over the chunk files in order. */
static void sframe_lines(const char *what, const char *path) {
  char p[544]; /* path (512) and a file name */
  snprintf(p, sizeof p, "%s/chunks.b2frame", path);
  file_line(what, p);
  uint64_t h = 0;
  int n = 0;
  for (;; n++) {
    snprintf(p, sizeof p, "%s/%08X.chunk", path, n);
    int64_t len = 0;
    uint8_t *buf = read_file(p, &len);
    if (buf == NULL) break;
    h = h * 31 + fnv(buf, (size_t)len);
    free(buf);
  }
  printf("  %s chunk files: %d, fnv %016" PRIx64 "\n", what, n, h);
}

/* With_blocksize false for a context's: c-blosc2's keeps the block size it last compressed
   with (and compresses the next chunks with it), ours the one it was made with. */
static void params_line(const char *what, const blosc2_cparams *c, bool with_blocksize) {
  printf("    %s: typesize %d clevel %d compcode %d", what, c->typesize, c->clevel, c->compcode);
  if (with_blocksize) printf(" blocksize %d", c->blocksize);
  printf(" splitmode %d filters", c->splitmode);
  for (int i = 0; i < BLOSC2_MAX_FILTERS; i++) printf(" %d", c->filters[i]);
  printf("\n");
}

/* The parameters the super-chunk reports: get_cparams/get_dparams, its contexts, storage. */
static void counts_line_of(const char *what, blosc2_schunk *sc, bool storage) {
  if (sc == NULL) return;
  blosc2_cparams *cp = NULL;
  blosc2_dparams *dp = NULL;
  CHECK(blosc2_schunk_get_cparams(sc, &cp) == 0, "%s get_cparams", what);
  CHECK(blosc2_schunk_get_dparams(sc, &dp) == 0, "%s get_dparams", what);
  blosc2_cparams ccp;
  blosc2_dparams cdp;
  CHECK(blosc2_ctx_get_cparams(sc->cctx, &ccp) == 0, "%s ctx_get_cparams", what);
  CHECK(blosc2_ctx_get_dparams(sc->dctx, &cdp) == 0, "%s ctx_get_dparams", what);
  printf("  %s: get_cparams %d get_dparams %d, cctx %d dctx %d", what, cp->nthreads,
         dp->nthreads, ccp.nthreads, cdp.nthreads);
  if (storage) {
    printf(", storage %d %d", sc->storage->cparams->nthreads, sc->storage->dparams->nthreads);
  }
  printf("\n");
  params_line("get_cparams", cp, true);
  params_line("cctx", &ccp, false);
  if (storage) params_line("storage", sc->storage->cparams, true);
  printf("    schunk: typesize %d clevel %d compcode %d blocksize %d splitmode %d filters",
         sc->typesize, sc->clevel, sc->compcode, sc->blocksize, sc->splitmode);
  for (int i = 0; i < BLOSC2_MAX_FILTERS; i++) printf(" %d", sc->filters[i]);
  printf("\n");
  if (sc->nchunks > 0) {
    uint8_t *chunk = NULL;
    bool needs_free = false;
    int rc = blosc2_schunk_get_chunk(sc, 0, &chunk, &needs_free);
    if (rc >= 32) {
      printf("    chunk 0 (%d bytes):", rc);
      for (int i = 0; i < 32; i++) printf(" %02x", chunk[i]);
      printf("\n");
    } else {
      printf("    chunk 0: %d\n", rc);
    }
    if (needs_free) free(chunk);
  }
  free(cp);
  free(dp);
}

static void counts_line(const char *what, blosc2_schunk *sc) { counts_line_of(what, sc, true); }

/* Appends the data; a failure (a bad variable makes the contexts fail) is printed, as the
   reference's is compared. */
static void fill(blosc2_schunk *sc, const char *what) {
  if (sc == NULL) return;
  for (int i = 0; i < NITEMS; i += CHUNKITEMS) {
    int n = NITEMS - i < CHUNKITEMS ? NITEMS - i : CHUNKITEMS;
    int64_t rc = blosc2_schunk_append_buffer(sc, data + i, n * (int)sizeof(int32_t));
    if (rc <= 0) {
      printf("  %s: append %" PRId64 "\n", what, rc);
      return;
    }
  }
}

static void append_some(blosc2_schunk *sc, const char *what) {
  if (sc == NULL) return;
  int64_t rc = blosc2_schunk_append_buffer(sc, data, 1000 * sizeof(int32_t));
  if (rc <= 0) printf("  %s: append %" PRId64 "\n", what, rc);
}

/* Whether every chunk decompresses to the data fill() appended. */
static void data_line(const char *what, blosc2_schunk *sc) {
  static int32_t out[CHUNKITEMS];
  int64_t done = 0;
  for (int64_t i = 0; i < sc->nchunks; i++) {
    int n = blosc2_schunk_decompress_chunk(sc, i, out, (int32_t)sizeof(out));
    CHECK(n > 0 && done + n / (int)sizeof(int32_t) <= NITEMS &&
              memcmp(out, data + done, (size_t)n) == 0,
          "%s: chunk %" PRId64 " decompresses to the data (%d)", what, i, n);
    if (n > 0) done += n / (int)sizeof(int32_t);
  }
  printf("  %s: %" PRId64 " items decompressed\n", what, done);
}

static void buffer_line(const char *what, blosc2_schunk *sc) {
  if (sc == NULL) return;
  uint8_t *frame = NULL;
  bool needs_free = false;
  int64_t len = blosc2_schunk_to_buffer(sc, &frame, &needs_free);
  frame_line(what, frame, len);
  if (needs_free) free(frame);
}

/* Prints what could not be made (a bad variable can make contexts fail, and so new super-chunks
   and copies, on the reference too). */
static bool made(const void *p, const char *what) {
  if (p == NULL) printf("  %s: NULL\n", what);
  return p != NULL;
}

static void sc_free(blosc2_schunk *sc) {
  if (sc != NULL) blosc2_schunk_free(sc);
}

static void path_of(char *out, size_t n, const char *name) { snprintf(out, n, "%s/%s", dir, name); }

static void schunks(void) {
  char path[512];
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = sizeof(int32_t);
  cparams.clevel = 5;
  cparams.compcode = BLOSC_LZ4;
  blosc2_dparams dparams = BLOSC2_DPARAMS_DEFAULTS;

  /* A contiguous frame in memory. */
  blosc2_storage mem = {.contiguous = true, .cparams = &cparams, .dparams = &dparams};
  blosc2_schunk *sc = blosc2_schunk_new(&mem);
  made(sc, "new in memory");
  buffer_line("cframe in memory, empty", sc);
  fill(sc, "cframe in memory");
  counts_line("cframe in memory", sc);
  buffer_line("cframe in memory", sc);

  /* Its copy (the source's parameters) and a copy with parameters of the caller's. */
  blosc2_storage copy_storage = {.contiguous = true};
  blosc2_schunk *copy = blosc2_schunk_copy(sc, &copy_storage);
  made(copy, "copy");
  counts_line("copy", copy);
  buffer_line("copy", copy);
  sc_free(copy);
  blosc2_cparams other = cparams;
  other.clevel = 7;
  other.nthreads = 3;
  blosc2_storage other_storage = {.contiguous = true, .cparams = &other, .dparams = &dparams};
  copy = blosc2_schunk_copy(sc, &other_storage);
  made(copy, "copy with cparams");
  counts_line("copy with cparams", copy);
  /* The frame's header and the data only: with 3 threads c-blosc2 stores a chunk's blocks in
     the order its threads finish them, so its block offsets (and the frame's bytes) change
     from run to run whenever a chunk has several blocks (BLOSC_DELTA=1, BLOSC_BLOCKSIZE=2048:
     every one of 12 runs differed); ours are always in block order. */
  if (copy != NULL) {
    uint8_t *frame = NULL;
    bool needs_free = false;
    int64_t len = blosc2_schunk_to_buffer(copy, &frame, &needs_free);
    frame_line_of("copy with cparams", frame, len, false);
    if (needs_free) free(frame);
    data_line("copy with cparams", copy);
  }
  sc_free(copy);
  sc_free(sc);

  /* Chunks in memory (no frame): to_buffer and to_file make the frame. */
  blosc2_storage list = {.contiguous = false, .cparams = &cparams, .dparams = &dparams};
  sc = blosc2_schunk_new(&list);
  made(sc, "new sparse in memory");
  fill(sc, "sparse in memory");
  counts_line("sparse in memory", sc);
  buffer_line("sparse in memory, to_buffer", sc);
  path_of(path, sizeof path, "tofile.b2frame");
  if (sc != NULL) {
    int64_t rc = blosc2_schunk_to_file(sc, path);
    if (rc > 0) {
      file_line("sparse in memory, to_file", path);
    } else {
      printf("  sparse in memory, to_file: %" PRId64 "\n", rc);
    }
  }
  sc_free(sc);

  /* Default storage (NULL parameters). */
  blosc2_storage defaults = {.contiguous = true};
  sc = blosc2_schunk_new(&defaults);
  made(sc, "new with default parameters");
  fill(sc, "default parameters");
  counts_line("default parameters", sc);
  buffer_line("default parameters", sc);
  sc_free(sc);

  /* A contiguous frame on disk: empty, filled, then opened and appended to. */
  path_of(path, sizeof path, "cframe.b2frame");
  blosc2_storage file = {.contiguous = true, .urlpath = path, .cparams = &cparams, .dparams = &dparams};
  sc = blosc2_schunk_new(&file);
  made(sc, "new cframe file");
  file_line("cframe file, empty", path);
  fill(sc, "cframe file");
  counts_line("cframe file", sc);
  sc_free(sc);
  file_line("cframe file", path);
  sc = blosc2_schunk_open(path);
  made(sc, "open cframe file");
  counts_line("cframe file opened", sc);
  append_some(sc, "cframe file opened");
  sc_free(sc);
  file_line("cframe file opened, appended to", path);

  /* A frame from a buffer, appended to (copy) */
  sc = blosc2_schunk_open(path);
  uint8_t *frame = NULL;
  bool needs_free = false;
  int64_t len = sc != NULL ? blosc2_schunk_to_buffer(sc, &frame, &needs_free) : -1;
  blosc2_schunk *fb = len > 0 ? blosc2_schunk_from_buffer(frame, len, true) : NULL;
  made(fb, "from_buffer");
  counts_line("from_buffer copy", fb);
  append_some(fb, "from_buffer copy");
  buffer_line("from_buffer copy, appended to", fb);
  sc_free(fb);
  if (needs_free) free(frame);
  sc_free(sc);
  blosc2_remove_urlpath(path);

  /* A sparse frame (directory). */
  path_of(path, sizeof path, "sframe.b2frame");
  blosc2_storage sdir = {.contiguous = false, .urlpath = path, .cparams = &cparams, .dparams = &dparams};
  sc = blosc2_schunk_new(&sdir);
  made(sc, "new sframe");
  fill(sc, "sframe");
  counts_line("sframe", sc);
  buffer_line("sframe, to_buffer", sc);
  sc_free(sc);
  sframe_lines("sframe", path);
  blosc2_remove_urlpath(path);
  path_of(path, sizeof path, "tofile.b2frame");
  blosc2_remove_urlpath(path);
}

static void arrays(const char *label) {
  char path[512];
  int64_t shape[2] = {250, 200};
  int32_t chunkshape[2] = {100, 100};
  int32_t blockshape[2] = {25, 50};
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = sizeof(int32_t);
  blosc2_dparams dparams = BLOSC2_DPARAMS_DEFAULTS;
  const char *nthreads = getenv("BLOSC_NTHREADS");
  bool threaded = nthreads != NULL && atoi(nthreads) > 1;
  for (int on_disk = 0; on_disk < 2; on_disk++) {
    path_of(path, sizeof path, "array.b2nd");
    blosc2_storage storage = {.contiguous = true, .urlpath = on_disk ? path : NULL,
                              .cparams = &cparams, .dparams = &dparams};
    b2nd_context_t *ctx = b2nd_create_ctx(&storage, 2, shape, chunkshape, blockshape, NULL, 0, NULL, 0);
    b2nd_array_t *arr = NULL;
    const char *what = on_disk ? "b2nd file" : "b2nd in memory";
    if (!made(ctx, what)) continue;
    int rc = b2nd_from_cbuffer(ctx, &arr, data, sizeof data);
    if (rc != 0 || arr == NULL) {
      printf("  %s: from_cbuffer %d\n", what, rc);
      if (arr != NULL) b2nd_free(arr);
      b2nd_free_ctx(ctx);
      if (on_disk) blosc2_remove_urlpath(path);
      continue;
    }
    /* Not the storage: an array's shows BLOSC_NTHREADS here (c-blosc2's the caller's). */
    counts_line_of(what, arr->sc, false);
    uint8_t *frame = NULL;
    bool needs_free = false;
    int64_t len = 0;
    CHECK(b2nd_to_cframe(arr, &frame, &len, &needs_free) == 0, "%s to_cframe", label);
    /* The header only with 2 threads: c-blosc2 3.3.5's arrays get chunk bytes that vary from
       run to run then (in memory: 4 runs of 8 differed from the others; on disk 1 of 12), where
       ours are the same every time (and the same as the reference's usual ones). */
    frame_line_of(what, frame, len, !threaded);
    if (needs_free) free(frame);
    b2nd_free(arr);
    b2nd_free_ctx(ctx);
    if (on_disk) {
      file_line_of("b2nd file on disk", path, !threaded);
      blosc2_remove_urlpath(path);
    }
  }
}

int main(void) {
  for (int i = 0; i < NITEMS; i++) data[i] = i / 3 + (i % 7) * 1000;
  if (mkdtemp(dir) == NULL) {
    perror("mkdtemp");
    return 1;
  }
  blosc2_init();
  /* Each setting: space-separated NAME=VALUE pairs (empty: none set). */
  const char *settings[] = {
      "",
      "BLOSC_NTHREADS=1",
      "BLOSC_NTHREADS=2",
      "BLOSC_CLEVEL=9",
      "BLOSC_CLEVEL=0",
      "BLOSC_COMPRESSOR=zstd",
      "BLOSC_COMPRESSOR=blosclz",
      "BLOSC_TYPESIZE=8",
      "BLOSC_TYPESIZE=1",
      "BLOSC_SHUFFLE=BITSHUFFLE",
      "BLOSC_SHUFFLE=NOSHUFFLE",
      "BLOSC_DELTA=1",
      /* Smaller than the 4000-byte chunk appended to opened frames: c-blosc2's context keeps
         the block size it last compressed with (a larger one cut to the chunk's size), which
         copies then take, where ours keeps the one it was made with. */
      "BLOSC_BLOCKSIZE=2048",
      "BLOSC_SPLITMODE=NEVER",
      "BLOSC_SPLITMODE=ALWAYS",
      "BLOSC_CLEVEL=1 BLOSC_COMPRESSOR=zlib BLOSC_SHUFFLE=BITSHUFFLE BLOSC_DELTA=1",
      "BLOSC_TYPESIZE=2 BLOSC_BLOCKSIZE=1024 BLOSC_SPLITMODE=NEVER BLOSC_NTHREADS=1",
      /* Values c-blosc2 does not take: ignored (with a warning). An unknown BLOSC_COMPRESSOR
         (codec -1: every compression fails) is left out, as its failed compressions leave
         c-blosc2's context the block size they computed (see BLOSC_BLOCKSIZE above). */
      "BLOSC_CLEVEL=-2 BLOSC_TYPESIZE=none BLOSC_BLOCKSIZE=0 BLOSC_SHUFFLE=shuffle BLOSC_DELTA=yes "
      "BLOSC_SPLITMODE=auto BLOSC_NTHREADS=0",
  };
  const char *names[] = {"BLOSC_NTHREADS",  "BLOSC_CLEVEL", "BLOSC_COMPRESSOR",
                         "BLOSC_TYPESIZE",  "BLOSC_SHUFFLE", "BLOSC_DELTA",
                         "BLOSC_BLOCKSIZE", "BLOSC_SPLITMODE"};
  for (size_t v = 0; v < sizeof settings / sizeof settings[0]; v++) {
    for (size_t n = 0; n < sizeof names / sizeof names[0]; n++) unsetenv(names[n]);
    char buf[256];
    snprintf(buf, sizeof buf, "%s", settings[v]);
    for (char *tok = strtok(buf, " "); tok != NULL; tok = strtok(NULL, " ")) {
      char *eq = strchr(tok, '=');
      *eq = '\0';
      setenv(tok, eq + 1, 1);
    }
    printf("setting: %s\n", settings[v][0] ? settings[v] : "(none)");
    schunks();
    /* c-blosc2 fails to make arrays under a BLOSC_TYPESIZE other than 8: the offsets chunk of
       their special chunks takes it, and then cannot be read. */
    const char *ts = getenv("BLOSC_TYPESIZE");
    if (ts == NULL || atoi(ts) <= 0 || atoi(ts) == 8) arrays(settings[v]);
  }
  for (size_t n = 0; n < sizeof names / sizeof names[0]; n++) unsetenv(names[n]);
  blosc2_destroy();
  rmdir(dir);
  printf("env_nthreads: %d checks, %d failures\n", checks, failures);
  return failures != 0;
}
