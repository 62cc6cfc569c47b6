/* User I/O backends (issue 22 item 13): a frame written through a blosc2_io_cb is opened and
 * closed around each operation, as c-blosc2 does, so nothing stays buffered in the backend
 * between calls: a second handle opening the frame through the backend while the writer is
 * still open sees every chunk appended so far, and decompresses it. The backend buffers writes
 * (stdio FILE) and counts its opens and closes; the program prints whether every open was
 * closed after each call (the counts themselves differ between implementations). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blosc2.h"

static int opens, closes;

static void *t_open(const char *path, const char *mode, void *params) {
  (void)params;
  FILE *f = fopen(path, mode);
  if (f != NULL) opens++;
  return f;
}
static int t_close(void *stream) {
  closes++;
  return fclose((FILE *)stream);
}
static int64_t t_size(void *stream) {
  FILE *f = (FILE *)stream;
  long pos = ftell(f);
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, pos, SEEK_SET);
  return size;
}
static int64_t t_write(const void *ptr, int64_t size, int64_t nitems, int64_t position,
                       void *stream) {
  FILE *f = (FILE *)stream;
  fseek(f, position, SEEK_SET);
  return (int64_t)fwrite(ptr, (size_t)size, (size_t)nitems, f);
}
static int64_t t_read(void **ptr, int64_t size, int64_t nitems, int64_t position, void *stream) {
  FILE *f = (FILE *)stream;
  fseek(f, position, SEEK_SET);
  return (int64_t)fread(*ptr, (size_t)size, (size_t)nitems, f);
}
static int t_truncate(void *stream, int64_t size) {
  FILE *f = (FILE *)stream;
  fflush(f);
  return ftruncate(fileno(f), size);
}

/* c-blosc2 calls destroy when a super-chunk is freed, whatever the backend. */
static int t_destroy(void *params) {
  (void)params;
  return 0;
}

#define ID 200

int main(void) {
  char dir[64];
  snprintf(dir, sizeof dir, "/tmp/rblosc2-udio-XXXXXX");
  if (mkdtemp(dir) == NULL) return 1;
  blosc2_init();
  blosc2_io_cb cb = {.id = ID, .name = "counting", .is_allocation_necessary = true,
                     .open = t_open, .close = t_close, .size = t_size, .write = t_write,
                     .read = t_read, .truncate = t_truncate, .destroy = t_destroy};
  printf("register %d\n", blosc2_register_io_cb(&cb));
  blosc2_io io = {.id = ID, .name = "counting", .params = NULL};
  for (int contiguous = 1; contiguous >= 0; contiguous--) {
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, contiguous ? "f.b2frame" : "f.b2dir");
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 4;
    cp.nthreads = 1;
    blosc2_storage st = {.contiguous = contiguous, .urlpath = path, .cparams = &cp, .io = &io};
    blosc2_schunk *w = blosc2_schunk_new(&st);
    printf("%s: new %s, all closed %d\n", contiguous ? "cframe" : "sframe", w ? "ok" : "NULL",
           opens == closes);
    int32_t buf[1000];
    for (int k = 0; k < 3; k++) {
      for (int i = 0; i < 1000; i++) buf[i] = i + 1000 * k;
      int64_t n = blosc2_schunk_append_buffer(w, buf, sizeof buf);
      printf("  append %d -> %lld, all closed %d\n", k, (long long)n, opens == closes);
    }
    int rc = blosc2_vlmeta_add(w, "attr", (uint8_t *)"value", 5, NULL);
    printf("  vlmeta_add %d, all closed %d\n", rc, opens == closes);
    blosc2_schunk *r = blosc2_schunk_open_udio(path, &io);
    printf("  second handle while the writer is open: %s", r ? "opened" : "NULL");
    if (r != NULL) {
      printf(", nchunks %lld, nvlmetalayers %d", (long long)r->nchunks, r->nvlmetalayers);
      int32_t out[1000];
      rc = blosc2_schunk_decompress_chunk(r, 2, out, sizeof out);
      printf(", chunk 2 -> %d, out[5] %d", rc, out[5]);
      blosc2_schunk_free(r);
    }
    printf(", all closed %d\n", opens == closes);
    int32_t out[1000];
    rc = blosc2_schunk_decompress_chunk(w, 1, out, sizeof out);
    printf("  writer reads chunk 1 -> %d, out[5] %d, all closed %d\n", rc, out[5],
           opens == closes);
    blosc2_schunk_free(w);
    printf("  freed, all closed %d\n", opens == closes);
    blosc2_remove_urlpath(path);
  }
  printf("opens %s\n", opens > 0 ? "counted" : "none");
  blosc2_destroy();
  rmdir(dir);
  return 0;
}
