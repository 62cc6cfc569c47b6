/* Frame locking between the two libraries: one process (one library) writes a frame with
   locking on while another process (the other library) reads it, or holds the lock.

     swmr_interop create DIR       a cframe and an sframe with one chunk each, locking on
     swmr_interop write DIR N      appends N chunks to each (locked handles, 2 ms apart)
     swmr_interop read DIR N       polls blosc2_schunk_refresh until each frame has N+1 chunks,
                                   checking every chunk it learns of; exits 1 on a bad read
     swmr_interop hold DIR MS      holds blosc2_schunk_lock on the cframe for MS milliseconds
     swmr_interop append-one DIR MS  opens the cframe and appends one chunk; fails unless that
                                   took at least MS milliseconds

   run.sh starts `write` with one library and `read` with the other at the same time, and
   `hold` with one and `append-one` with the other: the open (which reads the frame under the
   shared lock) and the append wait for the bracket. */
#include <blosc2.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N 1000

static blosc2_stdio_params sparams = {true};
static blosc2_io io;

static void fill(int32_t *b, int k) {
  for (int i = 0; i < N; i++) b[i] = i * (k + 3) - k;
}

static void sleep_ms(int ms) {
  struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void paths(const char *dir, char *cpath, char *spath) {
  snprintf(cpath, 512, "%s/swmr.b2frame", dir);
  snprintf(spath, 512, "%s/swmr.b2dir", dir);
}

int main(int argc, char **argv) {
  if (argc != 3 && argc != 4) {
    fprintf(stderr, "usage: swmr_interop create|write|read|hold|append-one DIR [N]\n");
    return 2;
  }
  const char *mode = argv[1];
  char cpath[512], spath[512];
  paths(argv[2], cpath, spath);
  const char *both[2] = {cpath, spath};
  int n = argc == 4 ? atoi(argv[3]) : 0;
  io = (blosc2_io){BLOSC2_IO_FILESYSTEM, "filesystem", &sparams};
  int32_t buf[N], out[N];
  blosc2_init();
  int rc = 0;
  if (strcmp(mode, "create") == 0) {
    for (int i = 0; i < 2; i++) {
      blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
      cp.typesize = 4;
      cp.nthreads = 1;
      blosc2_storage st = {.contiguous = i == 0, .urlpath = (char *)both[i], .cparams = &cp,
                           .io = &io};
      blosc2_remove_urlpath(both[i]);
      blosc2_schunk *s = blosc2_schunk_new(&st);
      fill(buf, 0);
      if (s == NULL || blosc2_schunk_append_buffer(s, buf, sizeof buf) != 1) rc = 1;
      blosc2_schunk_free(s);
    }
    printf("created\n");
  } else if (strcmp(mode, "write") == 0) {
    blosc2_schunk *w[2];
    for (int i = 0; i < 2; i++) {
      w[i] = blosc2_schunk_open_udio(both[i], &io);
      if (w[i] == NULL) return 1;
    }
    for (int k = 1; k <= n; k++) {
      fill(buf, k);
      for (int i = 0; i < 2; i++) {
        if (blosc2_schunk_append_buffer(w[i], buf, sizeof buf) != k + 1) rc = 1;
      }
      sleep_ms(2);
    }
    for (int i = 0; i < 2; i++) blosc2_schunk_free(w[i]);
    printf("wrote %d chunks to each frame%s\n", n, rc ? " (with errors)" : "");
  } else if (strcmp(mode, "read") == 0) {
    for (int i = 0; i < 2; i++) {
      blosc2_schunk *r = blosc2_schunk_open_udio(both[i], &io);
      if (r == NULL) return 1;
      int64_t seen = 0;
      int bad = 0;
      for (int loops = 0; seen < n + 1 && loops < 30000; loops++) {
        if (blosc2_schunk_refresh(r) < 0) bad++;
        for (; seen < r->nchunks; seen++) {
          if (blosc2_schunk_decompress_chunk(r, seen, out, sizeof out) != (int)sizeof out) bad++;
          fill(buf, (int)seen);
          if (memcmp(out, buf, sizeof out) != 0) bad++;
        }
        sleep_ms(1);
      }
      printf("%s: read %" PRId64 " chunks, %d bad\n", i == 0 ? "cframe" : "sframe", seen, bad);
      if (bad != 0 || seen != n + 1) rc = 1;
      blosc2_schunk_free(r);
    }
  } else if (strcmp(mode, "hold") == 0) {
    blosc2_schunk *s = blosc2_schunk_open_udio(cpath, &io);
    if (s == NULL || blosc2_schunk_lock(s) != 0) return 1;
    printf("locked\n");
    fflush(stdout);
    sleep_ms(n);
    rc = blosc2_schunk_unlock(s) != 0;
    blosc2_schunk_free(s);
  } else if (strcmp(mode, "append-one") == 0) {
    double t0 = now_ms();
    blosc2_schunk *s = blosc2_schunk_open_udio(cpath, &io);
    if (s == NULL) return 1;
    fill(buf, 1);
    int64_t got = blosc2_schunk_append_buffer(s, buf, sizeof buf);
    double waited = now_ms() - t0;
    printf("opened and appended chunk %" PRId64 " %s\n", got,
           waited >= n ? "after the holder let go" : "while the lock was held");
    rc = got != 2 || waited < n;
    blosc2_schunk_free(s);
  } else {
    rc = 2;
  }
  blosc2_destroy();
  return rc;
}
