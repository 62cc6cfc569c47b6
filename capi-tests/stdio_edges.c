/* The stdio and mmap I/O backends of blosc2-stdio.h on edge cases: a blosc2_stdio_file whose
   FILE is NULL (every call returns an error code, none crashes), blosc2_stdio_size leaves the
   file position where it was, blosc2_stdio_mmap_destroy of a default-initialised struct,
   blosc2_stdio_mmap_read's pointer and count on bad arguments and reads near the end of the
   mapping. Temporary files in the current directory.

   Output is compared line by line with the reference's. */
#include <blosc2.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static void null_file(void) {
  blosc2_stdio_file s = {.file = NULL};
  printf("NULL FILE: size %" PRId64 "\n", blosc2_stdio_size(&s));
  char buf[8] = "abcdefg";
  printf("NULL FILE: write %" PRId64 "\n", blosc2_stdio_write(buf, 1, 8, 0, &s));
  void *p = buf;
  printf("NULL FILE: read %" PRId64 "\n", blosc2_stdio_read(&p, 1, 8, 0, &s));
  printf("NULL FILE: truncate %d\n", blosc2_stdio_truncate(&s, 0));
}

static void size_keeps_position(void) {
  const char *path = "stdio_edges.bin";
  remove(path);
  void *s = blosc2_stdio_open(path, "wb+", NULL);
  CHECK(s != NULL, "open");
  if (s == NULL) return;
  char buf[100];
  for (int i = 0; i < 100; i++) buf[i] = (char)i;
  printf("write %" PRId64 "\n", blosc2_stdio_write(buf, 1, 100, 0, s));
  FILE *f = ((blosc2_stdio_file *)s)->file;
  fseek(f, 10, SEEK_SET);
  printf("size %" PRId64 ", position after %ld\n", blosc2_stdio_size(s), ftell(f));
  fseek(f, 0, SEEK_END);
  printf("size %" PRId64 ", position after %ld\n", blosc2_stdio_size(s), ftell(f));
  printf("truncate 40: %d\n", blosc2_stdio_truncate(s, 40));
  fseek(f, 3, SEEK_SET);
  printf("size %" PRId64 ", position after %ld\n", blosc2_stdio_size(s), ftell(f));
  char in[8] = {0};
  void *p = in;
  printf("read 8 at 36: %" PRId64 " first %d\n", blosc2_stdio_read(&p, 1, 8, 36, s), in[0]);
  printf("close %d\n", blosc2_stdio_close(s));
  remove(path);
}

static void mmap_edges(void) {
  blosc2_stdio_mmap defaults = BLOSC2_STDIO_MMAP_DEFAULTS;
  printf("mmap_destroy(defaults) %d\n", blosc2_stdio_mmap_destroy(&defaults));

  const char *path = "stdio_edges.mmap";
  remove(path);
  FILE *f = fopen(path, "wb");
  uint8_t data[32];
  for (int i = 0; i < 32; i++) data[i] = (uint8_t)(i + 1);
  fwrite(data, 1, 32, f);
  fclose(f);

  blosc2_stdio_mmap mm = BLOSC2_STDIO_MMAP_DEFAULTS;
  mm.mode = "r";
  void *s = blosc2_stdio_mmap_open(path, "rb", &mm);
  CHECK(s != NULL, "mmap_open");
  if (s == NULL) return;
  printf("mmap size %" PRId64 "\n", blosc2_stdio_mmap_size(s));
  struct {
    int64_t size, nitems, position;
  } reads[] = {{1, 8, 0},  {1, 8, 24}, {1, 8, 28}, {8, 1, 28}, {1, 4, 28}, {4, 1, 28},
               {8, 4, 0},  {8, 5, 0},  {1, 0, 0},  {1, 1, 32}, {1, 0, 32}, {1, 1, 33},
               {0, 1, 0},  {-1, 1, 0}, {1, -1, 0}, {1, 1, -1}, {16, 1, 16}, {16, 1, 17},
               {3, 3, 24}, {1, 100, 0}};
  for (size_t i = 0; i < sizeof reads / sizeof reads[0]; i++) {
    void *p = data; /* a non-NULL marker: NULL afterwards if the read set it */
    int64_t n = blosc2_stdio_mmap_read(&p, reads[i].size, reads[i].nitems, reads[i].position, s);
    long off = p == NULL ? -1 : (p == (void *)data ? -2 : (long)((uint8_t *)p - (uint8_t *)mm.addr));
    printf("mmap_read size %" PRId64 " nitems %" PRId64 " at %" PRId64 ": %" PRId64
           ", ptr %s %ld\n",
           reads[i].size, reads[i].nitems, reads[i].position, n,
           p == NULL ? "NULL" : (p == (void *)data ? "unchanged" : "offset"), off);
  }
  printf("mmap_close %d\n", blosc2_stdio_mmap_close(s));
  printf("mmap_destroy %d\n", blosc2_stdio_mmap_destroy(&mm));
  remove(path);
}

int main(void) {
  blosc2_init();
  null_file();
  size_keeps_position();
  mmap_edges();
  blosc2_destroy();
  printf("stdio_edges: %d checks, %d failures\n", checks, failures);
  return failures != 0;
}
