/* The context API, special-value and VL-block chunks, pre/postfilters, user codecs and filters,
 * and the error codes of bad input, printed so that ours and c-blosc2 3.3.5 can be diffed line
 * by line (run.sh's side-by-side and drop-in tests). Chunks are printed as size + checksum +
 * header, so any byte difference shows.
 *
 * Left out on purpose (c-blosc2 crashes or reads uninitialised memory there, so there is no
 * behaviour to match): NULL buffers, typesize 0, blosc2_ctx_get_cparams on a decompression
 * context, negative block sizes, split mode 9, typesize 300 or a dictionary with BloscLZ in a
 * context, blosc2_free_ctx(NULL), a VL chunk that does not fit. Nor where c-blosc2 accepts
 * garbage that ours refuses: special chunks of negative nbytes, getitem on a chunk whose
 * memcpyed flag lies (c-blosc2 reads past the data) or whose special type is undefined. The `chunk` argument c-blosc2 gives codec callbacks is not
 * printed (ours passes NULL). */
#include <blosc2.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

static uint64_t fnv(const uint8_t *p, int n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (int i = 0; i < n; i++) { h ^= p[i]; h *= 0x100000001b3ull; }
  return h;
}

static void show(const char *what, int rc, const uint8_t *chunk) {
  printf("%-44s rc=%d", what, rc);
  if (rc >= 16) {
    int hl = (chunk[2] & 0x5) == 0x5 && rc >= 32 ? 32 : 16;
    printf(" hdr=");
    for (int i = 0; i < hl; i++) printf("%02x", chunk[i]);
    printf(" fnv=%016llx", (unsigned long long)fnv(chunk, rc));
  }
  printf("\n");
}

static void expect(int ok, const char *what) {
  if (!ok) { failures++; printf("WRONG: %s\n", what); }
}

static void print_cparams(const char *what, blosc2_context *ctx) {
  if (ctx == NULL) { printf("%-44s NULL\n", what); return; }
  blosc2_cparams g;
  memset(&g, 0x55, sizeof g);
  int rc = blosc2_ctx_get_cparams(ctx, &g);
  printf("%-44s rc=%d codec=%d/%d clevel=%d dict=%d ts=%d nt=%d bs=%d split=%d f=%d,%d,%d,%d,%d,%d"
         " fm=%d,%d,%d,%d,%d,%d tuner=%d instr=%d schunk=%s pre=%s\n",
         what, rc, g.compcode, g.compcode_meta, g.clevel, g.use_dict, g.typesize, g.nthreads,
         g.blocksize, g.splitmode, g.filters[0], g.filters[1], g.filters[2], g.filters[3],
         g.filters[4], g.filters[5], g.filters_meta[0], g.filters_meta[1], g.filters_meta[2],
         g.filters_meta[3], g.filters_meta[4], g.filters_meta[5], g.tuner_id, g.instr_codec,
         g.schunk ? "set" : "NULL", g.prefilter ? "set" : "NULL");
}

static void fill(uint8_t *p, int n, int seed) {
  uint32_t x = 2463534242u + (uint32_t)seed;
  for (int i = 0; i < n; i++) {
    x ^= x << 13; x ^= x >> 17; x ^= x << 5;
    p[i] = (uint8_t)((i / 4) % 97 + ((x & 0xff) < 16 ? (x >> 8) : 0));
  }
}

/* ---- contexts and the environment ------------------------------------------------------ */
static void contexts(void) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  blosc2_context *c = blosc2_create_cctx(cp);
  print_cparams("cctx defaults", c);
  blosc2_free_ctx(c);
  struct { const char *var, *value; } envs[] = {
    {"BLOSC_CLEVEL", "9"}, {"BLOSC_CLEVEL", "x"}, {"BLOSC_CLEVEL", "-1"},
    {"BLOSC_SHUFFLE", "BITSHUFFLE"}, {"BLOSC_SHUFFLE", "NOSHUFFLE"}, {"BLOSC_SHUFFLE", "bogus"},
    {"BLOSC_TYPESIZE", "4"}, {"BLOSC_TYPESIZE", "0"}, {"BLOSC_COMPRESSOR", "zstd"},
    {"BLOSC_COMPRESSOR", "bogus"}, {"BLOSC_BLOCKSIZE", "8192"}, {"BLOSC_SPLITMODE", "NEVER"},
    {"BLOSC_SPLITMODE", "AUTO"}, {"BLOSC_DELTA", "1"}, {"BLOSC_NTHREADS", "2"},
    {"BLOSC_NTHREADS", "0"}, {"BLOSC_BLOSC1_COMPAT", "1"}, {"BLOSC_NOLOCK", "1"},
  };
  uint8_t *src = malloc(100000), *dst = malloc(100000 + BLOSC2_MAX_OVERHEAD);
  fill(src, 100000, 1);
  for (size_t i = 0; i < sizeof(envs) / sizeof(envs[0]); i++) {
    char what[80];
    snprintf(what, sizeof what, "cctx env %s=%s", envs[i].var, envs[i].value);
    setenv(envs[i].var, envs[i].value, 1);
    cp.typesize = 2;
    c = blosc2_create_cctx(cp);
    print_cparams(what, c);
    if (c) {
      int n = blosc2_compress_ctx(c, src, 100000, dst, 100000 + BLOSC2_MAX_OVERHEAD);
      show("  compress_ctx", n, dst);
      blosc2_free_ctx(c);
    }
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    blosc2_context *d = blosc2_create_dctx(dp);
    blosc2_dparams g;
    memset(&g, 0x55, sizeof g);
    int rc = blosc2_ctx_get_dparams(d, &g);
    printf("  dctx get_dparams rc=%d nt=%d schunk=%s post=%s\n", rc, g.nthreads,
           g.schunk ? "set" : "NULL", g.postfilter ? "set" : "NULL");
    blosc2_free_ctx(d);
    unsetenv(envs[i].var);
  }
  cp = (blosc2_cparams)BLOSC2_CPARAMS_DEFAULTS;
  const struct { const char *what; int field, value; } bad[] = {
    {"cctx filter 7", 0, 7}, {"cctx filter 31", 0, 31}, {"cctx filter 37", 0, 37},
    {"cctx filter 40", 0, 40}, {"cctx filter 159", 0, 159}, {"cctx filter 200", 0, 200},
    {"cctx tuner 5", 1, 5}, {"cctx codec 7", 2, 7}, {"cctx codec 200", 2, 200},
    {"cctx clevel 10", 3, 10}, {"cctx nthreads 0", 4, 0},
   
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    blosc2_cparams b = cp;
    switch (bad[i].field) {
      case 0: b.filters[0] = (uint8_t)bad[i].value; break;
      case 1: b.tuner_id = bad[i].value; break;
      case 2: b.compcode = (uint8_t)bad[i].value; break;
      case 3: b.clevel = (uint8_t)bad[i].value; break;
      case 4: b.nthreads = (int16_t)bad[i].value; break;
      case 5: b.splitmode = bad[i].value; break;
      case 6: b.typesize = bad[i].value; break;
      case 7: b.use_dict = 1; b.compcode = BLOSC_BLOSCLZ; break;
    }
    c = blosc2_create_cctx(b);
    print_cparams(bad[i].what, c);
    if (c) {
      int n = blosc2_compress_ctx(c, src, 100000, dst, 100000 + BLOSC2_MAX_OVERHEAD);
      show("  compress_ctx", n, dst);
      blosc2_free_ctx(c);
    }
  }
  free(src);
  free(dst);
}

/* ---- compress/decompress/getitem with contexts, and their errors ------------------------ */
static void context_calls(void) {
  enum { N = 200000 };
  uint8_t *src = malloc(N), *chunk = malloc(N + BLOSC2_MAX_OVERHEAD), *out = malloc(N);
  fill(src, N, 2);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.blocksize = 16384;
  blosc2_context *c = blosc2_create_cctx(cp);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_context *d = blosc2_create_dctx(dp);
  blosc2_dparams g;
  memset(&g, 0x55, sizeof g);
  int rc = blosc2_ctx_get_dparams(c, &g);
  printf("cctx get_dparams rc=%d nt=%d schunk=%s\n", rc, g.nthreads, g.schunk ? "set" : "NULL");

  int n = blosc2_compress_ctx(c, src, N, chunk, N + BLOSC2_MAX_OVERHEAD);
  show("compress_ctx", n, chunk);
  printf("compress_ctx with dctx=%d\n", blosc2_compress_ctx(d, src, N, chunk + N, 100));
  printf("compress_ctx destsize 10=%d\n", blosc2_compress_ctx(c, src, N, out, 10));
  printf("compress_ctx destsize 32=%d\n", blosc2_compress_ctx(c, src, N, out, 32));
  printf("compress_ctx destsize 200=%d\n", blosc2_compress_ctx(c, src, N, out, 200));
  int z = blosc2_compress_ctx(c, src, 0, out, 100);
  show("compress_ctx srcsize 0", z, out);
  printf("decompress_ctx empty chunk=%d\n", blosc2_decompress_ctx(d, out, z, out + 64, 0));

  memset(out, 0, N);
  rc = blosc2_decompress_ctx(d, chunk, n, out, N);
  printf("decompress_ctx=%d %s\n", rc, rc == N && memcmp(out, src, N) == 0 ? "ok" : "WRONG");
  expect(rc == N && memcmp(out, src, N) == 0, "decompress_ctx");
  printf("decompress_ctx with cctx=%d\n", blosc2_decompress_ctx(c, chunk, n, out, N));
  printf("decompress_ctx destsize N-1=%d\n", blosc2_decompress_ctx(d, chunk, n, out, N - 1));
  printf("decompress_ctx destsize -1=%d\n", blosc2_decompress_ctx(d, chunk, n, out, -1));
  printf("decompress_ctx srcsize 10=%d\n", blosc2_decompress_ctx(d, chunk, 10, out, N));
  printf("decompress_ctx srcsize 20=%d\n", blosc2_decompress_ctx(d, chunk, 20, out, N));
  printf("decompress_ctx srcsize n-1=%d\n", blosc2_decompress_ctx(d, chunk, n - 1, out, N));

  /* getitem in items (typesize 4) and in bytes */
  const int gi[][2] = {{0, 10}, {100, 5000}, {4000, 8000}, {49990, 10}, {49999, 1}, {0, 0},
                       {50000, 0}, {49995, 10}, {-1, 10}, {0, -1}, {50001, 0}};
  for (size_t i = 0; i < sizeof(gi) / sizeof(gi[0]); i++) {
    memset(out, 0, N);
    rc = blosc2_getitem_ctx(d, chunk, n, gi[i][0], gi[i][1], out, N);
    int ok = rc < 0 || (rc == gi[i][1] * 4 && memcmp(out, src + gi[i][0] * 4, (size_t)rc) == 0);
    printf("getitem_ctx(%d, %d)=%d %s\n", gi[i][0], gi[i][1], rc, ok ? "ok" : "WRONG");
    expect(ok, "getitem_ctx");
  }
  printf("getitem_ctx small dest=%d\n", blosc2_getitem_ctx(d, chunk, n, 0, 10, out, 39));
  printf("getitem_ctx with cctx=%d\n", blosc2_getitem_ctx(c, chunk, n, 3, 10, out, N));
  printf("getitem_ctx srcsize 10=%d\n", blosc2_getitem_ctx(d, chunk, 10, 0, 10, out, N));
  const int gb[][2] = {{0, 16}, {8, 16}, {16384, 40000}, {3, 16}, {8, 13}, {199996, 4},
                       {199996, 8}, {0, 0}, {-4, 8}, {4, -4}};
  for (size_t i = 0; i < sizeof(gb) / sizeof(gb[0]); i++) {
    memset(out, 0, N);
    rc = blosc2_getitem_bytes_ctx(d, chunk, n, gb[i][0], gb[i][1], out, N);
    int ok = rc < 0 || (rc == gb[i][1] && memcmp(out, src + gb[i][0], (size_t)rc) == 0);
    printf("getitem_bytes_ctx(%d, %d)=%d %s\n", gb[i][0], gb[i][1], rc, ok ? "ok" : "WRONG");
    expect(ok, "getitem_bytes_ctx");
  }
  printf("getitem_bytes_ctx small dest=%d\n", blosc2_getitem_bytes_ctx(d, chunk, n, 0, 16, out, 15));

  /* maskout: one-shot, per decompression */
  int nblocks = (N + 16383) / 16384;
  bool *mask = calloc((size_t)nblocks, 1);
  for (int i = 0; i < nblocks; i += 3) mask[i] = true;
  printf("set_maskout=%d\n", blosc2_set_maskout(d, mask, nblocks));
  memset(out, 0xEE, N);
  rc = blosc2_decompress_ctx(d, chunk, n, out, N);
  printf("decompress masked=%d", rc);
  for (int i = 0; i < nblocks; i++) {
    int len = i == nblocks - 1 ? N - i * 16384 : 16384;
    int same = memcmp(out + i * 16384, src + i * 16384, (size_t)len) == 0;
    printf(" %c", mask[i] ? (out[i * 16384] == 0xEE ? 'm' : '?') : (same ? 'd' : 'X'));
  }
  printf("\n");
  memset(out, 0xEE, N);
  rc = blosc2_decompress_ctx(d, chunk, n, out, N);
  printf("decompress after mask=%d %s\n", rc, memcmp(out, src, N) == 0 ? "ok" : "WRONG");
  printf("set_maskout wrong count=%d\n", blosc2_set_maskout(d, mask, nblocks - 1));
  printf("decompress wrong mask=%d\n", blosc2_decompress_ctx(d, chunk, n, out, N));
  printf("decompress after wrong mask=%d\n", blosc2_decompress_ctx(d, chunk, n, out, N));
  printf("set_maskout on cctx=%d\n", blosc2_set_maskout(c, mask, nblocks));
  free(mask);

  /* two threads: c-blosc2 may lay the blocks out in another order than with one thread (its
     workers append streams as they finish), so only the size and the round trip are compared */
  cp.nthreads = 2;
  blosc2_context *c2 = blosc2_create_cctx(cp);
  uint8_t *chunk2 = malloc(N + BLOSC2_MAX_OVERHEAD);
  int n2 = blosc2_compress_ctx(c2, src, N, chunk2, N + BLOSC2_MAX_OVERHEAD);
  rc = blosc2_decompress_ctx(d, chunk2, n2, out, N);
  printf("2 threads compress=%d decompress=%d %s\n", n2, rc, memcmp(out, src, N) == 0 ? "ok" : "WRONG");
  expect(rc == N && memcmp(out, src, N) == 0, "2 threads");
  blosc2_free_ctx(c2);
  free(chunk2);
  blosc2_free_ctx(c);
  blosc2_free_ctx(d);
  free(src); free(chunk); free(out);
}

/* ---- the global API's bad input ---------------------------------------------------------- */
static void global_errors(void) {
  uint8_t src[4000], chunk[4100], out[4000];
  fill(src, 4000, 3);
  blosc1_set_compressor("blosclz");
  printf("compress clevel -1=%d\n", blosc2_compress(-1, 1, 4, src, 4000, chunk, 4100));
  printf("compress clevel 10=%d\n", blosc2_compress(10, 1, 4, src, 4000, chunk, 4100));
  printf("compress doshuffle 7=%d\n", blosc2_compress(5, 7, 4, src, 4000, chunk, 4100));
  printf("compress destsize 31=%d\n", blosc2_compress(5, 1, 4, src, 4000, chunk, 31));
  printf("compress clevel 10 destsize 31=%d\n", blosc2_compress(10, 1, 4, src, 4000, chunk, 31));
  int rc = blosc2_compress(5, 1, 300, src, 4000, chunk, 4100);
  show("compress typesize 300", rc, chunk);
  rc = blosc2_compress(5, 2, 1, src, 4000, chunk, 4100);
  show("compress bitshuffle typesize 1", rc, chunk);
  rc = blosc2_compress(5, 1, 4, src, 4000, chunk, 4100);
  show("compress", rc, chunk);
  printf("decompress srcsize 15=%d\n", blosc2_decompress(chunk, 15, out, 4000));
  printf("decompress destsize 3999=%d\n", blosc2_decompress(chunk, rc, out, 3999));
  printf("getitem(990, 20)=%d\n", blosc2_getitem(chunk, rc, 990, 20, out, 4000));
  printf("getitem(0, 20) small dest=%d\n", blosc2_getitem(chunk, rc, 0, 20, out, 79));
  /* Two statements: printf's arguments are evaluated in no set order, and the comparison
   * must see what getitem wrote. */
  int got = blosc1_getitem(chunk, 10, 5, out);
  printf("blosc1_getitem(10, 5)=%d %s\n", got, memcmp(out, src + 40, 20) == 0 ? "ok" : "WRONG");
  printf("blosc1_decompress=%d\n", blosc1_decompress(chunk, out, 4000));
  printf("blosc1_decompress small=%d\n", blosc1_decompress(chunk, out, 100));
  /* A negative destsize (or a size_t that turns negative as int32_t) is too small even for a
   * chunk of 0 bytes; 0 is enough for it. */
  uint8_t empty_chunk[100];
  int empty = blosc2_compress(5, 1, 4, src, 0, empty_chunk, 100);
  printf("empty chunk=%d decompress destsize -1=%d 0=%d\n", empty,
         blosc2_decompress(empty_chunk, empty, out, -1), blosc2_decompress(empty_chunk, empty, out, 0));
  printf("blosc1_decompress empty SIZE_MAX=%d 2^32=%d\n", blosc1_decompress(empty_chunk, out, (size_t)-1),
         blosc1_decompress(empty_chunk, out, (size_t)1 << 32));
  printf("decompress destsize -1=%d\n", blosc2_decompress(chunk, rc, out, -1));
  blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
  printf("decompress_ctx empty destsize -1=%d\n", blosc2_decompress_ctx(dctx, empty_chunk, empty, out, -1));
  blosc2_free_ctx(dctx);

  /* corrupted headers */
  uint8_t bad[4100];
  const struct { const char *what; int at; uint8_t value; } corrupt[] = {
    {"version 9", 0, 9}, {"typesize 0", 3, 0}, {"cbytes 8", 12, 8}, {"cbytes huge", 15, 0x7f},
    {"blocksize 0", 8, 0}, {"nbytes huge", 7, 0x7f},
    {"codec 6", 22, 6},
  };
  for (size_t i = 0; i < sizeof(corrupt) / sizeof(corrupt[0]); i++) {
    memcpy(bad, chunk, (size_t)rc);
    if (corrupt[i].at == 8) memset(bad + 8, 0, 4);
    bad[corrupt[i].at] = corrupt[i].value;
    int32_t nb = -1, cb = -1, bs = -1;
    int s = blosc2_cbuffer_sizes(bad, &nb, &cb, &bs);
    size_t vn = 99;
    int v = blosc1_cbuffer_validate(bad, (size_t)rc, &vn);
    int dd = blosc2_decompress(bad, rc, out, 4000);
    int gg = blosc2_getitem(bad, rc, 1, 2, out, 4000);
    int version = -1, versionlz = -1;
    blosc2_cbuffer_versions(bad, &version, &versionlz);
    const char *lib = blosc2_cbuffer_complib(bad);
    printf("corrupt %-14s sizes=%d(%d,%d,%d) validate=%d(%zu) decompress=%d getitem=%d versions=%d,%d complib=%s\n",
           corrupt[i].what, s, nb, cb, bs, v, vn, dd, gg, version, versionlz, lib ? lib : "NULL");
  }
  size_t vn = 99;
  printf("validate cbytes 15=%d(%zu)\n", blosc1_cbuffer_validate(chunk, 15, &vn), vn);
  printf("validate cbytes+1=%d(%zu)\n", blosc1_cbuffer_validate(chunk, (size_t)rc + 1, &vn), vn);
  const char *libs[] = {"blosclz", "lz4", "lz4hc", "zlib", "zstd"};
  for (int i = 0; i < 5; i++) {
    blosc1_set_compressor(libs[i]);
    rc = blosc2_compress(5, 1, 4, src, 4000, chunk, 4100);
    int version, versionlz;
    blosc2_cbuffer_versions(chunk, &version, &versionlz);
    printf("complib %s=%s versions %d %d\n", libs[i], blosc2_cbuffer_complib(chunk), version, versionlz);
  }
  blosc1_set_compressor("blosclz");
}

/* ---- special-value chunks -------------------------------------------------------------- */
static void special_chunks(void) {
  uint8_t chunk[200], out[1 << 16];
  const int typesizes[] = {1, 2, 4, 8, 16};
  const int32_t sizes[] = {0, 64, 4096, 65536, 3 << 20};
  for (int t = 0; t < 5; t++) {
    for (int s = 0; s < 5; s++) {
      blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
      cp.typesize = typesizes[t];
      cp.compcode = (uint8_t)(s % 2 ? BLOSC_ZSTD : BLOSC_LZ4);
      cp.filters[4] = (uint8_t)(t == 3 ? BLOSC_DELTA : 0);
      int32_t nb = sizes[s];
      char what[80];
      uint64_t value = 0x1122334455667788ull;
      snprintf(what, sizeof what, "zeros ts %d nbytes %d", typesizes[t], nb);
      show(what, blosc2_chunk_zeros(cp, nb, chunk, sizeof chunk), chunk);
      snprintf(what, sizeof what, "nans ts %d nbytes %d", typesizes[t], nb);
      show(what, blosc2_chunk_nans(cp, nb, chunk, sizeof chunk), chunk);
      snprintf(what, sizeof what, "uninit ts %d nbytes %d", typesizes[t], nb);
      show(what, blosc2_chunk_uninit(cp, nb, chunk, sizeof chunk), chunk);
      snprintf(what, sizeof what, "repeatval ts %d nbytes %d", typesizes[t], nb);
      int rc = blosc2_chunk_repeatval(cp, nb, chunk, sizeof chunk, &value);
      show(what, rc, chunk);
      if (rc > 0 && nb <= (int32_t)sizeof out && nb > 0) {
        int d = blosc2_decompress(chunk, rc, out, nb);
        int ok = d == nb;
        for (int i = 0; ok && i < nb; i++) ok = out[i] == ((uint8_t *)&value)[i % typesizes[t]];
        printf("  decompress=%d %s\n", d, ok ? "ok" : "WRONG");
        expect(ok, "repeatval decompress");
        int g = blosc2_getitem(chunk, rc, 3, 5, out, nb);
        printf("  getitem=%d\n", g);
      }
    }
  }
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  double v = 1.5;
  printf("zeros nbytes 65 ts 8=%d\n", blosc2_chunk_zeros(cp, 65, chunk, 100));
  printf("zeros destsize 31=%d\n", blosc2_chunk_zeros(cp, 64, chunk, 31));
  printf("repeatval destsize 39=%d\n", blosc2_chunk_repeatval(cp, 64, chunk, 39, &v));
  cp.clevel = 12;
  printf("zeros clevel 12=%d\n", blosc2_chunk_zeros(cp, 64, chunk, 100));
  cp.clevel = 5;
  cp.filters[0] = 7;
  printf("zeros bad filter=%d\n", blosc2_chunk_zeros(cp, 64, chunk, 100));
  cp.filters[0] = 0;
  cp.typesize = 4;
  int rc = blosc2_chunk_nans(cp, 4096, chunk, 100);
  float f[1024];
  int d = blosc2_decompress(chunk, rc, f, sizeof f);
  int nans = 0;
  for (int i = 0; i < 1024; i++) nans += f[i] != f[i];
  printf("nans f32 decompress=%d nans=%d\n", d, nans);
  rc = blosc2_chunk_zeros(cp, 4096, chunk, 100);
  memset(out, 1, 4096);
  d = blosc2_decompress(chunk, rc, out, 4096);
  printf("zeros decompress=%d first=%d last=%d\n", d, out[0], out[4095]);
  rc = blosc2_chunk_uninit(cp, 4096, chunk, 100);
  printf("uninit decompress=%d\n", blosc2_decompress(chunk, rc, out, 4096));
  int32_t nb, cb, bs;
  printf("uninit cbuffer_sizes=%d", blosc2_cbuffer_sizes(chunk, &nb, &cb, &bs));
  printf(" %d %d %d\n", nb, cb, bs);
}

/* ---- VL-block chunks ------------------------------------------------------------------- */
static void vl_chunks(void) {
  const char *blocks[] = {"first", "the second block, a little longer",
                          "", "fourth: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"};
  const void *srcs[4];
  int32_t sizes[4];
  for (int i = 0; i < 4; i++) { srcs[i] = blocks[i]; sizes[i] = (int32_t)strlen(blocks[i]); }
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 1;
  blosc2_context *c = blosc2_create_cctx(cp);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_context *d = blosc2_create_dctx(dp);
  uint8_t chunk[1000];
  int n = blosc2_vlcompress_ctx(c, srcs, sizes, 4, chunk, sizeof chunk);
  show("vlcompress 4 blocks (one empty)", n, chunk);
  sizes[2] = 1;
  srcs[2] = "x";
  n = blosc2_vlcompress_ctx(c, srcs, sizes, 4, chunk, sizeof chunk);
  show("vlcompress 4 blocks", n, chunk);
  int32_t nblocks = -1;
  printf("vlchunk_get_nblocks=%d (%d)\n", blosc2_vlchunk_get_nblocks(chunk, n, &nblocks), nblocks);
  void *dests[8];
  int32_t dsizes[8];
  int r = blosc2_vldecompress_ctx(d, chunk, n, dests, dsizes, 8);
  printf("vldecompress=%d", r);
  for (int i = 0; i < r; i++) {
    int ok = dsizes[i] == sizes[i] && memcmp(dests[i], srcs[i], (size_t)sizes[i]) == 0;
    printf(" %d:%s", dsizes[i], ok ? "ok" : "WRONG");
    expect(ok, "vldecompress");
    free(dests[i]);
  }
  printf("\n");
  printf("vldecompress maxblocks 3=%d\n", blosc2_vldecompress_ctx(d, chunk, n, dests, dsizes, 3));
  for (int b = -1; b <= 4; b++) {
    uint8_t *block = NULL;
    int32_t bsize = -1;
    r = blosc2_vldecompress_block_ctx(d, chunk, n, b, &block, &bsize);
    printf("vldecompress_block(%d)=%d size=%d\n", b, r, bsize);
    if (r >= 0) free(block);
  }
  uint8_t flat[200];
  r = blosc2_decompress_ctx(d, chunk, n, flat, sizeof flat);
  printf("decompress_ctx of a VL chunk=%d\n", r);
  printf("getitem_ctx of a VL chunk=%d\n", blosc2_getitem_ctx(d, chunk, n, 0, 2, flat, 200));
  printf("vlcompress with dctx=%d\n", blosc2_vlcompress_ctx(d, srcs, sizes, 4, chunk, sizeof chunk));
  printf("vlcompress nblocks 0=%d\n", blosc2_vlcompress_ctx(c, srcs, sizes, 0, chunk, sizeof chunk));
  /* A destination shorter than BLOSC2_MAX_OVERHEAD (32 bytes; c-blosc2 3.3.5 crashes at exactly 32). */
  for (int ds = -1; ds <= 31; ds += 16)
    printf("vlcompress destsize %d=%d\n", ds, blosc2_vlcompress_ctx(c, srcs, sizes, 4, chunk, ds));
  uint8_t regular[200];
  int m = blosc2_compress_ctx(c, blocks[3], (int32_t)strlen(blocks[3]), regular, sizeof regular);
  printf("vlchunk_get_nblocks of a regular chunk=%d\n", blosc2_vlchunk_get_nblocks(regular, m, &nblocks));
  printf("vldecompress of a regular chunk=%d\n", blosc2_vldecompress_ctx(d, regular, m, dests, dsizes, 8));
  blosc2_free_ctx(c);
  blosc2_free_ctx(d);
}

/* ---- prefilters and postfilters ---------------------------------------------------------- */
static int prefilter(blosc2_prefilter_params *p) {
  printf("  prefilter size=%d ts=%d offset=%d nchunk=%lld nblock=%d tid=%d ttmp=%s ctx=%s disposable=%d user=%d\n",
         p->output_size, p->output_typesize, p->output_offset, (long long)p->nchunk, p->nblock,
         p->tid, p->ttmp ? "set" : "NULL", p->ctx ? "set" : "NULL", p->output_is_disposable,
         *(int *)p->user_data);
  for (int i = 0; i < p->output_size; i++) p->output[i] = (uint8_t)(p->input[i] + 1);
  return 0;
}

static int postfilter(blosc2_postfilter_params *p) {
  printf("  postfilter size=%d ts=%d offset=%d nchunk=%lld nblock=%d tid=%d ttmp=%s ctx=%s user=%d\n",
         p->size, p->typesize, p->offset, (long long)p->nchunk, p->nblock, p->tid,
         p->ttmp ? "set" : "NULL", p->ctx ? "set" : "NULL", *(int *)p->user_data);
  for (int i = 0; i < p->size; i++) p->output[i] = (uint8_t)(p->input[i] - 1);
  return 0;
}

static int failing_postfilter(blosc2_postfilter_params *p) { (void)p; return 1; }

static void pre_post_filters(void) {
  enum { N = 20000 };
  uint8_t *src = malloc(N), *chunk = malloc(N + 64), *out = malloc(N);
  fill(src, N, 4);
  int user = 42;
  blosc2_prefilter_params pp;
  memset(&pp, 0, sizeof pp);
  pp.user_data = &user;
  const int clevels[] = {5, 0};
  for (int l = 0; l < 2; l++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 4;
    cp.blocksize = 8192;
    cp.clevel = (uint8_t)clevels[l];
    cp.prefilter = prefilter;
    cp.preparams = &pp;
    blosc2_context *c = blosc2_create_cctx(cp);
    blosc2_cparams g;
    blosc2_ctx_get_cparams(c, &g);
    printf("prefilter clevel %d: get_cparams prefilter=%s preparams copied=%d user=%d\n", clevels[l],
           g.prefilter ? "set" : "NULL", g.preparams != &pp,
           g.preparams ? *(int *)g.preparams->user_data : -1);
    int n = blosc2_compress_ctx(c, src, N, chunk, N + 64);
    show("compress with prefilter", n, chunk);
    int d = blosc2_decompress(chunk, n, out, N);
    int ok = d == N;
    for (int i = 0; ok && i < N; i++) ok = out[i] == (uint8_t)(src[i] + 1);
    printf("  decompress=%d %s\n", d, ok ? "ok" : "WRONG");
    expect(ok, "prefilter");
    blosc2_free_ctx(c);
  }
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.blocksize = 8192;
  blosc2_context *c = blosc2_create_cctx(cp);
  int n = blosc2_compress_ctx(c, src, N, chunk, N + 64);
  blosc2_free_ctx(c);
  blosc2_postfilter_params qp;
  memset(&qp, 0, sizeof qp);
  qp.user_data = &user;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.typesize = 2;
  dp.postfilter = postfilter;
  dp.postparams = &qp;
  blosc2_context *d = blosc2_create_dctx(dp);
  int r = blosc2_decompress_ctx(d, chunk, n, out, N);
  int ok = r == N;
  for (int i = 0; ok && i < N; i++) ok = out[i] == (uint8_t)(src[i] - 1);
  printf("decompress with postfilter=%d %s\n", r, ok ? "ok" : "WRONG");
  expect(ok, "postfilter");
  r = blosc2_getitem_ctx(d, chunk, n, 3000, 10, out, N);
  ok = r == 40;
  for (int i = 0; ok && i < 40; i++) ok = out[i] == (uint8_t)(src[12000 + i] - 1);
  printf("getitem with postfilter=%d %s\n", r, ok ? "ok" : "WRONG");
  blosc2_free_ctx(d);
  dp.postfilter = failing_postfilter;
  d = blosc2_create_dctx(dp);
  printf("decompress with failing postfilter=%d\n", blosc2_decompress_ctx(d, chunk, n, out, N));
  blosc2_free_ctx(d);
  free(src); free(chunk); free(out);
}

/* ---- user codecs and filters ----------------------------------------------------------- */
static int encoder(const uint8_t *in, int32_t inlen, uint8_t *out, int32_t outlen, uint8_t meta,
                   blosc2_cparams *cp, const void *chunk) {
  (void)chunk;
  printf("  encoder in=%d out=%d meta=%d ts=%d clevel=%d codec=%d\n", inlen, outlen, meta,
         cp->typesize, cp->clevel, cp->compcode);
  /* XOR with meta, stored with a one-byte marker: never smaller, so also exercises "did not fit" */
  if (outlen < inlen + 1) return 0;
  out[0] = 0xAB;
  for (int i = 0; i < inlen; i++) out[i + 1] = in[i] ^ meta;
  return inlen + 1;
}

static int decoder(const uint8_t *in, int32_t inlen, uint8_t *out, int32_t outlen, uint8_t meta,
                   blosc2_dparams *dp, const void *chunk) {
  (void)chunk;
  (void)dp;
  printf("  decoder in=%d out=%d meta=%d\n", inlen, outlen, meta);
  if (in[0] != 0xAB || inlen - 1 > outlen) return -1;
  for (int i = 0; i < inlen - 1; i++) out[i] = in[i + 1] ^ meta;
  return inlen - 1;
}

static int halving_encoder(const uint8_t *in, int32_t inlen, uint8_t *out, int32_t outlen,
                           uint8_t meta, blosc2_cparams *cp, const void *chunk) {
  (void)meta; (void)cp; (void)chunk;
  /* run-length of equal byte pairs: compresses the test data well */
  int o = 0;
  for (int i = 0; i < inlen;) {
    int j = i;
    while (j < inlen && in[j] == in[i] && j - i < 255) j++;
    if (o + 2 > outlen) return 0;
    out[o++] = (uint8_t)(j - i);
    out[o++] = in[i];
    i = j;
  }
  return o;
}

static int halving_decoder(const uint8_t *in, int32_t inlen, uint8_t *out, int32_t outlen,
                           uint8_t meta, blosc2_dparams *dp, const void *chunk) {
  (void)meta; (void)dp; (void)chunk;
  int o = 0;
  for (int i = 0; i + 1 < inlen; i += 2) {
    if (o + in[i] > outlen) return -1;
    memset(out + o, in[i + 1], in[i]);
    o += in[i];
  }
  return o;
}

static int forward(const uint8_t *src, uint8_t *dest, int32_t size, uint8_t meta,
                   blosc2_cparams *cp, uint8_t id) {
  printf("  forward size=%d meta=%d id=%d ts=%d\n", size, meta, id, cp->typesize);
  for (int i = 0; i < size; i++) dest[i] = (uint8_t)(src[i] + meta);
  return 0;
}

static int backward(const uint8_t *src, uint8_t *dest, int32_t size, uint8_t meta,
                    blosc2_dparams *dp, uint8_t id) {
  printf("  backward size=%d meta=%d id=%d ts=%d\n", size, meta, id, dp->typesize);
  for (int i = 0; i < size; i++) dest[i] = (uint8_t)(src[i] - meta);
  return 0;
}

static int failing_forward(const uint8_t *src, uint8_t *dest, int32_t size, uint8_t meta,
                           blosc2_cparams *cp, uint8_t id) {
  (void)src; (void)dest; (void)size; (void)meta; (void)cp; (void)id;
  return -1;
}

static void user_plugins(void) {
  blosc2_codec codec;
  memset(&codec, 0, sizeof codec);
  codec.compname = "xorcodec";
  codec.complib = 170;
  codec.version = 1;
  codec.encoder = encoder;
  codec.decoder = decoder;
  const int ids[] = {0, 5, 31, 32, 100, 159, 160, 254};
  for (int i = 0; i < 8; i++) {
    codec.compcode = (uint8_t)ids[i];
    printf("register_codec(%d)=%d\n", ids[i], blosc2_register_codec(&codec));
  }
  codec.compcode = 160;
  printf("register_codec(160) again=%d\n", blosc2_register_codec(&codec));
  codec.compname = "other";
  printf("register_codec(160) other name=%d\n", blosc2_register_codec(&codec));
  blosc2_codec rle = {200, "rle", 4, 1, halving_encoder, halving_decoder};
  printf("register_codec(200 rle, complib 4)=%d\n", blosc2_register_codec(&rle));

  blosc2_filter filter;
  memset(&filter, 0, sizeof filter);
  filter.name = "addfilter";
  filter.version = 1;
  filter.forward = forward;
  filter.backward = backward;
  for (int i = 0; i < 8; i++) {
    filter.id = (uint8_t)ids[i];
    printf("register_filter(%d)=%d\n", ids[i], blosc2_register_filter(&filter));
  }
  filter.id = 160;
  printf("register_filter(160) again=%d\n", blosc2_register_filter(&filter));
  filter.name = "other";
  printf("register_filter(160) other name=%d\n", blosc2_register_filter(&filter));
  blosc2_filter bad = {201, "failing", 1, failing_forward, NULL};
  printf("register_filter(201)=%d\n", blosc2_register_filter(&bad));

  enum { N = 20000 };
  uint8_t *src = malloc(N), *chunk = malloc(N + 64), *out = malloc(N);
  for (int i = 0; i < N; i++) src[i] = (uint8_t)(i / 50);
  const struct { const char *what; int codec, meta, filter, fmeta; } cases[] = {
    {"xorcodec + addfilter", 160, 7, 160, 3},
    {"xorcodec only", 160, 9, 0, 0},
    {"rle + shuffle", 200, 0, 1, 0},
    {"lz4 + addfilter", BLOSC_LZ4, 0, 160, 5},
    {"failing filter", BLOSC_LZ4, 0, 201, 0},
    {"unregistered codec 210", 210, 0, 0, 0},
    {"unregistered filter 210", BLOSC_LZ4, 0, 210, 0},
  };
  for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 4;
    cp.blocksize = 8192;
    cp.compcode = (uint8_t)cases[k].codec;
    cp.compcode_meta = (uint8_t)cases[k].meta;
    cp.filters[4] = (uint8_t)cases[k].filter;
    cp.filters_meta[4] = (uint8_t)cases[k].fmeta;
    printf("%s:\n", cases[k].what);
    blosc2_context *c = blosc2_create_cctx(cp);
    if (c == NULL) { printf("  create_cctx NULL\n"); continue; }
    int n = blosc2_compress_ctx(c, src, N, chunk, N + 64);
    show("  compress", n, chunk);
    blosc2_free_ctx(c);
    if (n <= 0) continue;
    const char *lib = blosc2_cbuffer_complib(chunk);
    printf("  complib=%s\n", lib ? lib : "NULL");
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    blosc2_context *d = blosc2_create_dctx(dp);
    memset(out, 0, N);
    int r = blosc2_decompress_ctx(d, chunk, n, out, N);
    printf("  decompress=%d %s\n", r, r == N && memcmp(out, src, N) == 0 ? "ok" : "WRONG");
    expect(r == N && memcmp(out, src, N) == 0, cases[k].what);
    r = blosc2_getitem_ctx(d, chunk, n, 2100, 10, out, N);
    printf("  getitem=%d %s\n", r, r == 40 && memcmp(out, src + 8400, 40) == 0 ? "ok" : "WRONG");
    blosc2_free_ctx(d);
  }
  const char *name = NULL;
  int code = blosc2_compcode_to_compname(160, &name);
  printf("compcode_to_compname(160)=%d %s\n", code, name ? name : "NULL");
  printf("compname_to_compcode(rle)=%d\n", blosc2_compname_to_compcode("rle"));
  free(src); free(chunk); free(out);
}

/* ---- a caller's threads callback ------------------------------------------------------ */
static int callback_calls = 0, callback_jobs = 0;

struct job_arg { void (*dojob)(void *); void *data; };

static void *job_thread(void *p) {
  struct job_arg *a = p;
  a->dojob(a->data);
  return NULL;
}

/* One thread per job (c-blosc2's jobs wait for each other, so they must run concurrently). */
static void pthread_threads(void *data, void (*dojob)(void *), int numjobs, size_t elsize,
                            void *jobdata) {
  callback_calls++;
  *(int *)data = numjobs;
  pthread_t threads[64];
  struct job_arg args[64];
  for (int i = 0; i < numjobs && i < 64; i++) {
    args[i].dojob = dojob;
    args[i].data = (char *)jobdata + (size_t)i * elsize;
    pthread_create(&threads[i], NULL, job_thread, &args[i]);
  }
  for (int i = 0; i < numjobs && i < 64; i++) {
    pthread_join(threads[i], NULL);
    callback_jobs++;
  }
}

static void threads_callback(void) {
  enum { N = 300000 };
  uint8_t *src = malloc(N), *chunk = malloc(N + 64), *out = malloc(N);
  fill(src, N, 5);
  int numjobs = 0;
  blosc2_set_threads_callback(pthread_threads, &numjobs);
  const int nthreads[] = {1, 2, 3};
  for (int t = 0; t < 3; t++) {
    for (int delta = 0; delta < 2; delta++) {
      blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
      cp.typesize = 4;
      cp.blocksize = 32768;
      cp.nthreads = (int16_t)nthreads[t];
      cp.filters[4] = (uint8_t)(delta ? BLOSC_DELTA : 0);
      blosc2_context *c = blosc2_create_cctx(cp);
      callback_calls = callback_jobs = numjobs = 0;
      int n = blosc2_compress_ctx(c, src, N, chunk, N + 64);
      printf("callback nthreads %d delta %d: compress=%d calls=%d numjobs=%d jobs=%d\n",
             nthreads[t], delta, n, callback_calls, numjobs, callback_jobs);
      blosc2_free_ctx(c);
      blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
      dp.nthreads = (int16_t)nthreads[t];
      blosc2_context *d = blosc2_create_dctx(dp);
      callback_calls = callback_jobs = numjobs = 0;
      int r = blosc2_decompress_ctx(d, chunk, n, out, N);
      int ok = r == N && memcmp(out, src, N) == 0;
      printf("  decompress=%d %s calls=%d numjobs=%d jobs=%d\n", r, ok ? "ok" : "WRONG",
             callback_calls, numjobs, callback_jobs);
      expect(ok, "threads callback");
      blosc2_free_ctx(d);
    }
  }
  blosc2_set_threads_callback(NULL, NULL);
  free(src); free(chunk); free(out);
}

int main(void) {
  /* Line-buffered, so that the diff shows where a crash happened. */
  setvbuf(stdout, NULL, _IOLBF, 0);
  blosc2_init();
  contexts();
  context_calls();
  global_errors();
  special_chunks();
  vl_chunks();
  pre_post_filters();
  user_plugins();
  threads_callback();
  blosc2_destroy();
  printf("%s\n", failures ? "FAILED" : "all checks correct");
  return failures ? 1 : 0;
}
