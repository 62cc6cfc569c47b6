/* Chunks of other sizes than the super-chunk's chunksize, appended with
   blosc2_schunk_append_chunk: a chunk larger than chunksize (anywhere), a short chunk that is
   not the last one. c-blosc2 3.3.5 accepts them all, returns the new chunk count and turns the
   super-chunk into a variable-chunksize one (chunksize 0) from the first chunk that does not
   fit; the same in memory, in a cframe in memory, in a cframe file and in an sframe, and the
   frames reopen with the same chunks. (Appending a special zeros chunk larger than chunksize
   crashes c-blosc2 3.3.5, so it is not compared here.)

   Output is compared line by line with the reference's. */
#include <blosc2.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXITEMS 3000
static int32_t data[MAXITEMS];

static int64_t append(blosc2_schunk *s, int nitems) {
  int32_t size = nitems * 4;
  uint8_t *c = malloc((size_t)size + BLOSC2_MAX_OVERHEAD);
  if (c == NULL) return -1000;
  int csize = blosc2_compress(5, 1, 4, data, size, c, size + BLOSC2_MAX_OVERHEAD);
  int64_t r = csize > 0 ? blosc2_schunk_append_chunk(s, c, true) : -1000;
  free(c);
  return r;
}

static int check(blosc2_schunk *s, const int *sizes, const char *tag) {
  static int32_t out[MAXITEMS];
  int bad = 0;
  printf(" %s(nchunks=%" PRId64 " chunksize=%d nbytes=%" PRId64 ")", tag, s->nchunks,
         s->chunksize, s->nbytes);
  for (int i = 0; i < s->nchunks; i++) {
    int n = blosc2_schunk_decompress_chunk(s, i, out, sizeof out);
    printf(" %d", n);
    if (n != sizes[i] * 4 || memcmp(out, data, (size_t)n) != 0) bad++;
  }
  return bad;
}

int main(void) {
  for (int i = 0; i < MAXITEMS; i++) data[i] = i * 3 + 1;
  char dir[64];
  snprintf(dir, sizeof dir, "/tmp/rblosc2-varlen-XXXXXX");
  if (mkdtemp(dir) == NULL) return 1;
  char cpath[128], spath[128];
  snprintf(cpath, sizeof cpath, "%s/v.b2frame", dir);
  snprintf(spath, sizeof spath, "%s/v.b2dir", dir);
  blosc2_init();
  const int seqs[][6] = {{1000, 2000, 500, 1000, 1000, 0},
                         {1000, 500, 2000, 0},
                         {500, 1000, 0},
                         {1000, 500, 1000, 0},
                         {1000, 1000, 500, 500, 0},
                         {1000, 3000, 0}};
  const char *kinds[] = {"memory", "cframe-in-memory", "cframe-file", "sframe"};
  int bad = 0;
  for (int q = 0; q < 6; q++) {
    for (int kind = 0; kind < 4; kind++) {
      blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
      cp.typesize = 4;
      cp.nthreads = 1;
      char *urlpath = kind == 2 ? cpath : kind == 3 ? spath : NULL;
      blosc2_storage st = {.contiguous = kind == 1 || kind == 2, .urlpath = urlpath,
                           .cparams = &cp};
      blosc2_remove_urlpath(urlpath);
      blosc2_schunk *s = blosc2_schunk_new(&st);
      if (s == NULL) return 1;
      printf("sequence %d %-16s", q, kinds[kind]);
      int n = 0;
      for (; seqs[q][n]; n++) {
        int64_t rc = append(s, seqs[q][n]);
        printf(" %d->%" PRId64 "(chunksize %d)", seqs[q][n], rc, s->chunksize);
      }
      bad += check(s, seqs[q], "read");
      blosc2_schunk *again = NULL;
      uint8_t *cframe = NULL;
      bool needs_free = false;
      if (urlpath != NULL) {
        blosc2_schunk_free(s);
        s = NULL;
        again = blosc2_schunk_open(urlpath);
      } else {
        int64_t len = blosc2_schunk_to_buffer(s, &cframe, &needs_free);
        again = len > 0 ? blosc2_schunk_from_buffer(cframe, len, true) : NULL;
      }
      if (again == NULL) {
        printf(" reopen failed");
        bad++;
      } else {
        bad += check(again, seqs[q], "reopened");
        blosc2_schunk_free(again);
      }
      printf("\n");
      if (needs_free) free(cframe);
      if (s != NULL) blosc2_schunk_free(s); /* c-blosc2 3.3.5 crashes on NULL */
      blosc2_remove_urlpath(urlpath);
    }
  }
  blosc2_destroy();
  rmdir(dir);
  printf("schunk_varlen: %s\n", bad ? "FAILED" : "all checks passed");
  return bad != 0;
}
