/* The compressed-buffer queries that take no length (blosc2_cbuffer_sizes, blosc1_cbuffer_sizes,
   blosc1_cbuffer_metainfo, blosc2_cbuffer_versions, blosc2_cbuffer_complib) read the 16 bytes
   of BLOSC_MIN_HEADER_LENGTH only, even when the flags announce an extended header: each header
   below sits in the last 16 bytes of a page followed by a PROT_NONE page, so a read past them
   faults. Also blosc1_cbuffer_validate with cbytes 16 there. Prints what each call reports.

   Output is compared line by line with the reference's. */
#include <blosc2.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"

static void put32(uint8_t *p, int32_t v) { memcpy(p, &v, 4); }

static void query(const char *name, const uint8_t *h) {
  int32_t nbytes = -7, cbytes = -7, blocksize = -7;
  int rc = blosc2_cbuffer_sizes(h, &nbytes, &cbytes, &blocksize);
  printf("%s: blosc2_cbuffer_sizes %d nbytes %d cbytes %d blocksize %d\n", name, rc, nbytes,
         cbytes, blocksize);
  size_t n1 = 7, c1 = 7, b1 = 7;
  blosc1_cbuffer_sizes(h, &n1, &c1, &b1);
  printf("%s: blosc1_cbuffer_sizes nbytes %zu cbytes %zu blocksize %zu\n", name, n1, c1, b1);
  size_t typesize = 7;
  int flags = -7;
  blosc1_cbuffer_metainfo(h, &typesize, &flags);
  printf("%s: blosc1_cbuffer_metainfo typesize %zu flags %d\n", name, typesize, flags);
  int version = -7, versionlz = -7;
  blosc2_cbuffer_versions(h, &version, &versionlz);
  printf("%s: blosc2_cbuffer_versions %d %d\n", name, version, versionlz);
  const char *complib = blosc2_cbuffer_complib(h);
  printf("%s: blosc2_cbuffer_complib %s\n", name, complib ? complib : "(null)");
  size_t vn = 7;
  int vrc = blosc1_cbuffer_validate(h, 16, &vn);
  printf("%s: blosc1_cbuffer_validate(16) %d nbytes %zu\n", name, vrc, vn);
}

int main(void) {
  blosc2_init();
  long page = sysconf(_SC_PAGESIZE);
  uint8_t *map = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                      -1, 0);
  CHECK(map != MAP_FAILED, "mmap");
  if (map == MAP_FAILED) return 1;
  CHECK(mprotect(map + page, (size_t)page, PROT_NONE) == 0, "mprotect");
  uint8_t *h = map + page - BLOSC_MIN_HEADER_LENGTH;

  /* {version, versionlz, flags, typesize, nbytes, blocksize, cbytes, name} */
  struct {
    uint8_t version, versionlz, flags, typesize;
    int32_t nbytes, blocksize, cbytes;
    const char *name;
  } cases[] = {
      {2, 1, 0x01, 4, 4000, 4000, 4016, "basic shuffle"},
      {5, 1, 0x05, 4, 4000, 4000, 4032, "extended"},
      {5, 1, 0x07, 4, 4000, 4000, 4032, "extended memcpyed"},
      {5, 1, 0x05 | (1 << 5), 8, 800, 800, 300, "extended lz4"},
      {5, 1, 0x05 | (6 << 5), 8, 800, 800, 300, "extended udcodec format"},
      {5, 1, 0x05, 4, 4000, 4000, 20, "extended cbytes 20"},
      {5, 1, 0x05, 4, 4000, 4000, 16, "extended cbytes 16"},
      {5, 1, 0x05, 0, 4000, 4000, 4032, "extended typesize 0"},
      {5, 1, 0x05, 4, -1, 4000, 4032, "extended nbytes -1"},
      {5, 1, 0x05, 4, 4000, 0, 4032, "extended blocksize 0"},
      {5, 1, 0x05, 4, 4000, 8000, 4032, "extended blocksize > nbytes"},
      {5, 1, 0x05, 3, 4000, 4000, 4032, "extended typesize 3"},
      {7, 1, 0x05, 4, 4000, 4000, 4032, "extended version 7"},
      {200, 9, 0x05, 4, 4000, 4000, 4032, "extended version 200"},
      {5, 1, 0x03, 4, 4000, 4000, 16, "basic cbytes 16"},
      {5, 1, 0x01, 4, 4000, 4000, 15, "basic cbytes 15"},
      {5, 1, 0x04 | (4 << 5), 1, 1 << 30, 1 << 20, 1 << 29, "bitshuffle zstd"},
      {5, 1, 0xff, 4, 4000, 4000, 4032, "flags 0xff"},
      {5, 1, 0x01, 4, -1, 4000, 4016, "basic nbytes -1"},
      {5, 1, 0x01, 4, -1, 4000, 16, "basic nbytes -1 cbytes 16"},
      {5, 1, 0x05, 4, -1, 4000, 16, "extended nbytes -1 cbytes 16"},
      {5, 1, 0x05, 4, 0x7fffffff, 4000, 16, "extended nbytes max cbytes 16"},
      {7, 1, 0x05, 4, 4000, 4000, 16, "extended version 7 cbytes 16"},
      {5, 1, 0x01, 4, 4000, (1 << 29), 4016, "basic blocksize 2^29"},
      {5, 1, 0x05, 4, 0, 4000, 4032, "extended nbytes 0"},
      {5, 1, 0x05, 4, 4000, -5, 4032, "extended blocksize -5"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    memset(h, 0, BLOSC_MIN_HEADER_LENGTH);
    h[0] = cases[i].version;
    h[1] = cases[i].versionlz;
    h[2] = cases[i].flags;
    h[3] = cases[i].typesize;
    put32(h + 4, cases[i].nbytes);
    put32(h + 8, cases[i].blocksize);
    put32(h + 12, cases[i].cbytes);
    query(cases[i].name, h);
  }

  /* A real chunk's first 16 bytes (extended header) at the page end. */
  int32_t data[1000];
  for (int i = 0; i < 1000; i++) data[i] = i;
  uint8_t chunk[4000 + BLOSC2_MAX_OVERHEAD];
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  int csize = blosc2_compress_ctx(cctx, data, sizeof data, chunk, sizeof chunk);
  blosc2_free_ctx(cctx);
  CHECK(csize > 32, "compress %d", csize);
  memcpy(h, chunk, BLOSC_MIN_HEADER_LENGTH);
  query("real chunk", h);
  /* And a zeros chunk (its special flag lives in byte 31, beyond what is read). */
  int zsize = blosc2_chunk_zeros(cp, 4000, chunk, sizeof chunk);
  CHECK(zsize == BLOSC_EXTENDED_HEADER_LENGTH, "zeros %d", zsize);
  memcpy(h, chunk, BLOSC_MIN_HEADER_LENGTH);
  query("zeros chunk", h);

  munmap(map, 2 * (size_t)page);
  blosc2_destroy();
  printf("header_guard: %d checks, %d failures\n", checks, failures);
  return failures != 0;
}
