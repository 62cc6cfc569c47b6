/* A b2nd writer and a b2nd reader of one array on disk in two processes, with BLOSC_LOCKING:
   the child overwrites the whole array (several chunks) with one value at a time, k = 1..N,
   while the parent reads it whole, again and again, through its own handle (opened before the
   writes). No read may mix two values (a torn write), fail, or go back to an older value, and
   the last read sees N. The filter registered here only copies, slowly, so writes and reads
   last long enough to overlap.

   Run against ours only (capi-tests/run.sh): c-blosc2 3.3.5 does tear here, a few reads in a
   hundred (its reader re-syncs before it takes the lock for the read). */
#include <blosc2.h>
#include <b2nd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#define SLOW_FILTER_US 1000
#include "helpers.h"

#define SLOW_FILTER 200
#define SIDE 40
#define NITEMS (SIDE * SIDE)

static blosc2_cparams cp;
static blosc2_dparams dp;

static int run(const char *path, bool contiguous, int nwrites) {
  blosc2_remove_urlpath(path);
  cp = (blosc2_cparams)BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.nthreads = 1;
  for (int i = 0; i < BLOSC2_MAX_FILTERS; i++) cp.filters[i] = 0;
  cp.filters[BLOSC2_MAX_FILTERS - 1] = SLOW_FILTER;
  dp = (blosc2_dparams)BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = 1;
  blosc2_storage st = {.contiguous = contiguous, .urlpath = (char *)path, .cparams = &cp,
                       .dparams = &dp};
  int64_t shape[2] = {SIDE, SIDE}, start[2] = {0, 0};
  int32_t chunkshape[2] = {SIDE / 2, SIDE / 2}, blockshape[2] = {SIDE / 2, SIDE / 2};
  b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, shape, chunkshape, blockshape, "<i4", 0, NULL, 0);
  b2nd_array_t *w = NULL, *r = NULL;
  CHECK(ctx != NULL && b2nd_zeros(ctx, &w) == 0, "writer created");
  CHECK(b2nd_open(path, &r) == 0, "reader opened");
  if (w == NULL || r == NULL) return 1;
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    static int32_t wbuf[NITEMS];
    for (int k = 1; k <= nwrites; k++) {
      for (int i = 0; i < NITEMS; i++) wbuf[i] = k;
      if (b2nd_set_slice_cbuffer(wbuf, shape, sizeof wbuf, start, shape, w) != 0) _exit(2);
      sleep_us(2000);
    }
    _exit(0);
  }
  static int32_t buf[NITEMS];
  int reads = 0, torn = 0, failed = 0, backwards = 0, last = 0, status = 0;
  for (;;) {
    int done = waitpid(pid, &status, WNOHANG) == pid;
    if (b2nd_get_slice_cbuffer(r, start, shape, buf, shape, sizeof buf) != 0) {
      failed++;
    } else {
      reads++;
      for (int i = 1; i < NITEMS; i++) {
        if (buf[i] != buf[0]) {
          torn++;
          break;
        }
      }
      if (buf[0] < last) backwards++;
      last = buf[0];
    }
    if (done) break;
  }
  printf("%s: %d writes, %d reads: torn=%d failed=%d backwards=%d last=%d writer exit=%d\n",
         contiguous ? "cframe" : "sframe", nwrites, reads, torn, failed, backwards, last,
         WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  CHECK(torn == 0 && failed == 0 && backwards == 0, "consistent reads");
  CHECK(last == nwrites && WIFEXITED(status) && WEXITSTATUS(status) == 0, "all writes seen");
  b2nd_free(r);
  b2nd_free(w);
  b2nd_free_ctx(ctx);
  blosc2_remove_urlpath(path);
  return 0;
}

int main(int argc, char **argv) {
  int nwrites = argc > 1 ? atoi(argv[1]) : 40;
  setenv("BLOSC_LOCKING", "1", 1);
  char dir[64];
  snprintf(dir, sizeof dir, "/tmp/rblosc2-b2nd-swmr-XXXXXX");
  if (mkdtemp(dir) == NULL) return 1;
  blosc2_init();
  blosc2_filter slow = {.id = SLOW_FILTER, .name = "slow", .version = 1,
                        .forward = slow_forward, .backward = slow_backward};
  CHECK(blosc2_register_filter(&slow) == 0, "filter registered");
  char path[128];
  snprintf(path, sizeof path, "%s/a.b2nd", dir);
  run(path, true, nwrites);
  snprintf(path, sizeof path, "%s/a.b2dir", dir);
  run(path, false, nwrites);
  blosc2_destroy();
  rmdir(dir);
  printf("b2nd_swmr: %d checks, %s\n", checks, failures ? "FAILED" : "all passed");
  return failures != 0;
}
