/* The global (non-context) chunk API and the BLOSC_* environment variables it honours, printed so
 * that ours and c-blosc2 3.3.5 can be diffed line by line (run.sh's side-by-side and drop-in
 * tests). Chunk bytes are printed as a checksum plus the header, so any difference shows. */
#include <blosc2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N (256 * 1024)
static int failures = 0;

static uint64_t fnv(const uint8_t *p, int n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (int i = 0; i < n; i++) { h ^= p[i]; h *= 0x100000001b3ull; }
  return h;
}

static void show(const char *what, int rc, const uint8_t *chunk) {
  printf("%-40s rc=%d", what, rc);
  if (rc > 0) {
    int hl = (chunk[2] & 0x5) == 0x5 ? 32 : 16;
    printf(" hdr=");
    for (int i = 0; i < hl; i++) printf("%02x", chunk[i]);
    printf(" fnv=%016llx", (unsigned long long)fnv(chunk, rc));
  }
  printf("\n");
}

static void roundtrip(const char *what, const uint8_t *src, uint8_t *chunk, uint8_t *out,
                      int clevel, int doshuffle, int typesize) {
  int rc = blosc2_compress(clevel, doshuffle, typesize, src, N, chunk, N + BLOSC2_MAX_OVERHEAD);
  show(what, rc, chunk);
  if (rc <= 0) return;
  memset(out, 0, N);
  int d = blosc2_decompress(chunk, rc, out, N);
  int ok = d == N && memcmp(out, src, N) == 0;
  printf("%-40s decompress=%d %s\n", what, d, ok ? "ok" : "WRONG");
  if (!ok) failures++;
  int g = blosc2_getitem(chunk, rc, 1000, 50, out, N);
  int ts = chunk[3];
  ok = g == 50 * ts && memcmp(out, src + 1000 * ts, (size_t)g) == 0;
  printf("%-40s getitem=%d %s\n", what, g, ok ? "ok" : "WRONG");
  if (!ok) failures++;
}

int main(void) {
  uint8_t *src = malloc(N), *chunk = malloc(N + BLOSC2_MAX_OVERHEAD), *out = malloc(N);
  for (int i = 0; i < N; i++) src[i] = (uint8_t)((i / 4) % 251 + (i % 4 == 3 ? (i >> 12) : 0));
  blosc2_init();
  roundtrip("defaults", src, chunk, out, 5, BLOSC_SHUFFLE, 4);
  roundtrip("noshuffle ts1", src, chunk, out, 5, BLOSC_NOSHUFFLE, 1);
  roundtrip("shuffle ts1", src, chunk, out, 5, BLOSC_SHUFFLE, 1);
  roundtrip("bitshuffle ts4", src, chunk, out, 5, BLOSC_BITSHUFFLE, 4);
  roundtrip("clevel 0", src, chunk, out, 0, BLOSC_SHUFFLE, 4);
  roundtrip("clevel 9", src, chunk, out, 9, BLOSC_SHUFFLE, 8);
  roundtrip("typesize 300", src, chunk, out, 5, BLOSC_SHUFFLE, 300);
  const char *names[] = {"blosclz", "lz4", "lz4hc", "zlib", "zstd"};
  for (int i = 0; i < 5; i++) {
    printf("set_compressor(%s)=%d get=%s\n", names[i], blosc1_set_compressor(names[i]), blosc1_get_compressor());
    roundtrip(names[i], src, chunk, out, 5, BLOSC_SHUFFLE, 4);
  }
  blosc1_set_compressor("lz4");
  blosc2_set_delta(1);
  roundtrip("delta", src, chunk, out, 5, BLOSC_SHUFFLE, 4);
  blosc2_set_delta(0);
  blosc1_set_blocksize(16384);
  printf("get_blocksize=%d\n", blosc1_get_blocksize());
  roundtrip("blocksize 16384", src, chunk, out, 5, BLOSC_SHUFFLE, 4);
  blosc1_set_blocksize(0);
  blosc1_set_splitmode(BLOSC_NEVER_SPLIT);
  roundtrip("never split", src, chunk, out, 5, BLOSC_SHUFFLE, 4);
  blosc1_set_splitmode(BLOSC_ALWAYS_SPLIT);
  roundtrip("always split", src, chunk, out, 5, BLOSC_SHUFFLE, 4);
  blosc1_set_splitmode(BLOSC_FORWARD_COMPAT_SPLIT);
  printf("set_nthreads(2)=%d\n", blosc2_set_nthreads(2));
  roundtrip("2 threads", src, chunk, out, 5, BLOSC_SHUFFLE, 4);
  printf("set_nthreads(1)=%d\n", blosc2_set_nthreads(1));

  /* Environment variables, read at each call. */
  struct { const char *var, *value; } envs[] = {
    {"BLOSC_CLEVEL", "9"}, {"BLOSC_SHUFFLE", "NOSHUFFLE"}, {"BLOSC_SHUFFLE", "BITSHUFFLE"},
    {"BLOSC_TYPESIZE", "8"}, {"BLOSC_COMPRESSOR", "zstd"}, {"BLOSC_BLOCKSIZE", "8192"},
    {"BLOSC_SPLITMODE", "NEVER"}, {"BLOSC_SPLITMODE", "ALWAYS"}, {"BLOSC_DELTA", "1"},
    {"BLOSC_NTHREADS", "2"}, {"BLOSC_BLOSC1_COMPAT", "1"}, {"BLOSC_NOLOCK", "1"},
  };
  for (size_t i = 0; i < sizeof(envs) / sizeof(envs[0]); i++) {
    char what[80];
    snprintf(what, sizeof(what), "env %s=%s", envs[i].var, envs[i].value);
    setenv(envs[i].var, envs[i].value, 1);
    roundtrip(what, src, chunk, out, 5, BLOSC_SHUFFLE, 4);
    unsetenv(envs[i].var);
    blosc2_set_delta(0);
    blosc1_set_compressor("lz4");
    blosc1_set_blocksize(0);
    blosc2_set_nthreads(1);
  }

  /* blosc1 API: sizes in size_t, no srcsize on decompression. */
  int rc = blosc1_compress(5, BLOSC_SHUFFLE, 4, N, src, chunk, N + BLOSC2_MAX_OVERHEAD);
  show("blosc1_compress", rc, chunk);
  size_t nbytes, cbytes, blocksize, typesize;
  int flags;
  blosc1_cbuffer_sizes(chunk, &nbytes, &cbytes, &blocksize);
  blosc1_cbuffer_metainfo(chunk, &typesize, &flags);
  printf("blosc1_cbuffer_sizes %zu %zu %zu metainfo %zu %d validate=%d\n", nbytes, cbytes, blocksize,
         typesize, flags, blosc1_cbuffer_validate(chunk, cbytes, &nbytes));
  printf("blosc1_cbuffer_validate(short)=%d\n", blosc1_cbuffer_validate(chunk, cbytes - 1, &nbytes));
  int d = blosc1_decompress(chunk, out, N);
  printf("blosc1_decompress=%d %s\n", d, d == N && memcmp(out, src, N) == 0 ? "ok" : "WRONG");
  d = blosc1_getitem(chunk, 10, 20, out);
  printf("blosc1_getitem=%d %s\n", d, d == 80 && memcmp(out, src + 40, 80) == 0 ? "ok" : "WRONG");
  int version, versionlz;
  blosc2_cbuffer_versions(chunk, &version, &versionlz);
  printf("cbuffer_versions %d %d complib %s\n", version, versionlz, blosc2_cbuffer_complib(chunk));
  printf("decompress small dest=%d\n", blosc2_decompress(chunk, rc, out, N - 1));
  printf("decompress short src=%d\n", blosc2_decompress(chunk, 20, out, N));
  printf("compress small dest=%d\n", blosc2_compress(5, 1, 4, src, N, chunk, 100));
  printf("compress tiny dest=%d\n", blosc2_compress(5, 1, 4, src, N, chunk, 10));
  printf("compress clevel 12=%d\n", blosc2_compress(12, 1, 4, src, N, chunk, N + 32));
  blosc2_destroy();
  free(src); free(chunk); free(out);
  printf("%s\n", failures ? "FAILED" : "all round trips correct");
  return failures ? 1 : 0;
}
