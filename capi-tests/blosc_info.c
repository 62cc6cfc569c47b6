/* What the library prints on stderr when the BLOSC_INFO environment variable is set (as
   python-blosc2's tests read it): the block size the automatic tuner picks for each compression
   and the opening of a memory-mapped file. stderr is sent to stdout here, which is compared
   line by line with the reference's. Temporary files are made in a fresh directory the program
   changes into, so the paths printed are the same for both libraries. */
#include <blosc2.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#define NITEMS 20000
static int32_t data[NITEMS];
static uint8_t chunk[NITEMS * 4 + BLOSC2_MAX_OVERHEAD];

static void compress_with(const char *tag, int compcode, int clevel, int typesize, int32_t nbytes,
                          int32_t blocksize, int splitmode) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = (uint8_t)compcode;
  cp.clevel = (uint8_t)clevel;
  cp.typesize = typesize;
  cp.blocksize = blocksize;
  cp.splitmode = splitmode;
  cp.nthreads = 1;
  blosc2_context *c = blosc2_create_cctx(cp);
  printf("%s:\n", tag);
  int n = blosc2_compress_ctx(c, data, nbytes, chunk, sizeof chunk);
  printf("%s -> %s\n", tag, n > 0 ? "compressed" : "error");
  blosc2_free_ctx(c);
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  if (dup2(1, 2) < 0) return 1;
  setenv("BLOSC_INFO", "1", 1);
  char dir[64];
  snprintf(dir, sizeof dir, "/tmp/rblosc2-info-XXXXXX");
  if (mkdtemp(dir) == NULL || chdir(dir) != 0) return 1;
  blosc2_init();
  for (int i = 0; i < NITEMS; i++) data[i] = (i / 9) * 7;

  compress_with("blosclz auto", BLOSC_BLOSCLZ, 5, 4, sizeof data, 0, BLOSC_FORWARD_COMPAT_SPLIT);
  compress_with("zstd 9 never", BLOSC_ZSTD, 9, 4, sizeof data, 0, BLOSC_NEVER_SPLIT);
  compress_with("lz4 1 always", BLOSC_LZ4, 1, 8, sizeof data, 0, BLOSC_ALWAYS_SPLIT);
  compress_with("clevel 0", BLOSC_BLOSCLZ, 0, 4, sizeof data, 0, BLOSC_FORWARD_COMPAT_SPLIT);
  compress_with("small", BLOSC_BLOSCLZ, 5, 4, 100, 0, BLOSC_FORWARD_COMPAT_SPLIT);
  compress_with("tiny", BLOSC_BLOSCLZ, 5, 4, 3, 0, BLOSC_FORWARD_COMPAT_SPLIT);
  compress_with("forced 4096", BLOSC_BLOSCLZ, 5, 4, sizeof data, 4096, BLOSC_FORWARD_COMPAT_SPLIT);
  compress_with("forced 4096 never", BLOSC_BLOSCLZ, 5, 4, sizeof data, 4096, BLOSC_NEVER_SPLIT);
  compress_with("forced 4096 always", BLOSC_LZ4, 5, 4, sizeof data, 4096, BLOSC_ALWAYS_SPLIT);
  compress_with("forced 1001 zstd", BLOSC_ZSTD, 3, 4, sizeof data, 1001, BLOSC_AUTO_SPLIT);
  compress_with("forced large", BLOSC_BLOSCLZ, 5, 4, 1000, 1 << 20, BLOSC_FORWARD_COMPAT_SPLIT);
  printf("blosc2_compress:\n");
  printf("-> %d\n", blosc2_compress(5, BLOSC_SHUFFLE, 4, data, sizeof data, chunk, sizeof chunk) > 0);
  printf("blosc1_compress:\n");
  printf("-> %d\n", blosc1_compress(5, BLOSC_SHUFFLE, 4, sizeof data, data, chunk, sizeof chunk) > 0);

  printf("schunk appends:\n");
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.nthreads = 1;
  blosc2_storage st = {.contiguous = true, .cparams = &cp};
  blosc2_schunk *s = blosc2_schunk_new(&st);
  for (int c = 0; c < 2; c++) printf("append -> %" PRId64 "\n", blosc2_schunk_append_buffer(s, data, sizeof data));
  blosc2_schunk_free(s);

  printf("mmap w+:\n");
  blosc2_stdio_mmap mm = BLOSC2_STDIO_MMAP_DEFAULTS;
  mm.mode = "w+";
  mm.initial_mapping_size = 1 << 16;
  blosc2_io io = {.id = BLOSC2_IO_FILESYSTEM_MMAP, .name = "filesystem_mmap", .params = &mm};
  blosc2_storage mst = {.contiguous = true, .urlpath = "info.b2frame", .cparams = &cp, .io = &io};
  s = blosc2_schunk_new(&mst);
  CHECK(s != NULL, "mmap schunk");
  if (s != NULL) {
    printf("append -> %" PRId64 "\n", blosc2_schunk_append_buffer(s, data, sizeof data));
    blosc2_schunk_free(s);
  }
  printf("mmap r:\n");
  blosc2_stdio_mmap mr = BLOSC2_STDIO_MMAP_DEFAULTS;
  mr.mode = "r";
  blosc2_io ior = {.id = BLOSC2_IO_FILESYSTEM_MMAP, .name = "filesystem_mmap", .params = &mr};
  s = blosc2_schunk_open_udio("info.b2frame", &ior);
  CHECK(s != NULL, "mmap open");
  if (s != NULL) {
    printf("decompress -> %d\n", blosc2_schunk_decompress_chunk(s, 0, data, sizeof data));
    blosc2_schunk_free(s);
  }
  blosc2_remove_urlpath("info.b2frame");
  if (chdir("/") != 0) return 1;
  rmdir(dir);
  blosc2_destroy();
  printf("checks=%d failures=%d\n", checks, failures);
  return failures != 0;
}
