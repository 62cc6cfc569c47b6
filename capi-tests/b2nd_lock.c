/* The frame lock on b2nd arrays on disk (BLOSC_LOCKING: a .b2lock sidecar, flock, a generation
   counter at byte 8 that every exclusive acquisition bumps).

   Part 1, one process: every b2nd call that touches a file-backed array (constructors, slices,
   selections, shape changes, copies and saves to another file, opens, frees; failing calls
   too), for a cframe and an sframe, each followed by its return code and the sidecar's
   generation. c-blosc2 takes the lock once per super-chunk change and brackets b2nd_resize and
   b2nd_set_slice_cbuffer as one change, so the counters tell which calls change the frame and
   how many times.
   Then the array's file replaced by another of the same length, after a reader opened it.
   Part 2, two processes, with a registered filter that sleeps so calls last: whether another
   process can take the lock (exclusively, or shared) while a call runs. (b2nd_swmr.c has a
   writer and a reader of one array in two processes.)

   Output is compared line by line with the reference c-blosc2 3.3.5's. */
#include <blosc2.h>
#include <b2nd.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#define SLOW_FILTER_US 2000
#include "helpers.h"

static char dir[64];
static char path[128], path2[128];
static int contiguous;

/* The call first, then the counter (not both as printf arguments: their order is unspecified). */
#define STEP(tag, call)                                                         \
  do {                                                                          \
    long rc_ = (long)(call);                                                    \
    printf("%s %-36s rc=%-4ld generation=%ld\n", contiguous ? "cframe" : "sframe", tag, rc_, \
           lock_generation(path, contiguous));                                               \
  } while (0)

static void remove_all(const char *p) {
  blosc2_remove_urlpath(p);
  char lp[160];
  snprintf(lp, sizeof lp, "%s.b2lock", p);
  remove(lp);
}

/* The parameters outlive the contexts: c-blosc2's keep pointing at the caller's dparams. */
static blosc2_cparams cp;
static blosc2_dparams dp;

static b2nd_context_t *context(const char *urlpath, const int64_t *shape) {
  cp = (blosc2_cparams)BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.nthreads = 1;
  dp = (blosc2_dparams)BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = 1;
  blosc2_storage st = {.contiguous = urlpath ? contiguous : false, .urlpath = (char *)urlpath,
                       .cparams = &cp, .dparams = &dp};
  int32_t chunkshape[2] = {10, 10}, blockshape[2] = {5, 5};
  return b2nd_create_ctx(&st, 2, shape, chunkshape, blockshape, "<i4", 0, NULL, 0);
}

static int32_t buf[100 * 100];

static void one_process(void) {
  int64_t shape[2] = {25, 25};
  remove_all(path);
  remove_all(path2);
  b2nd_context_t *ctx = context(path, shape);
  b2nd_array_t *a = NULL;
  STEP("zeros", b2nd_zeros(ctx, &a));
  int64_t start[2] = {0, 0}, stop[2] = {5, 5}, small[2] = {5, 5};
  int64_t whole[2] = {25, 25};
  STEP("set_slice_cbuffer 5x5", b2nd_set_slice_cbuffer(buf, small, 100, start, stop, a));
  STEP("set_slice_cbuffer all", b2nd_set_slice_cbuffer(buf, whole, 625 * 4, start, whole, a));
  STEP("get_slice_cbuffer", b2nd_get_slice_cbuffer(a, start, stop, buf, small, 100));
  STEP("to_cbuffer", b2nd_to_cbuffer(a, buf, 625 * 4));
  int64_t coords[2] = {0, 7};
  STEP("get_sparse_cbuffer", b2nd_get_sparse_cbuffer(a, 2, coords, buf, 8));
  {
    int64_t rows[2] = {0, 1}, cols[2] = {2, 3}, far[2] = {0, 15};
    int64_t *one_chunk[2] = {rows, cols}, *four_chunks[2] = {far, far};
    int64_t sizes[2] = {2, 2}, bshape[2] = {2, 2};
    STEP("get_orthogonal_selection",
         b2nd_get_orthogonal_selection(a, one_chunk, sizes, buf, bshape, 16));
    STEP("set_orthogonal_selection 1 chunk",
         b2nd_set_orthogonal_selection(a, one_chunk, sizes, buf, bshape, 16));
    STEP("set_orthogonal_selection 4 chunks",
         b2nd_set_orthogonal_selection(a, four_chunks, sizes, buf, bshape, 16));
  }
  int64_t grown[2] = {30, 25}, shrunk[2] = {20, 25};
  STEP("resize grow", b2nd_resize(a, grown, NULL));
  STEP("resize shrink", b2nd_resize(a, shrunk, NULL));
  STEP("resize same", b2nd_resize(a, shrunk, NULL));
  STEP("insert 10 rows at 0", b2nd_insert(a, buf, 10 * 25 * 4, 0, 0));
  STEP("insert unaligned (fails)", b2nd_insert(a, buf, 5 * 25 * 4, 0, 3));
  {
    int64_t s0[2] = {0, 0}, tiny[2] = {5, 5};
    STEP("set_slice_cbuffer small buffer (fails)",
         b2nd_set_slice_cbuffer(buf, tiny, 4, s0, tiny, a));
    int64_t negative[2] = {-1, 5};
    STEP("resize negative (fails)", b2nd_resize(a, negative, NULL));
    int64_t bigger[2] = {40, 25}, unaligned[2] = {3, 0};
    STEP("resize unaligned start (fails)", b2nd_resize(a, bigger, unaligned));
    STEP("delete unaligned (fails)", b2nd_delete(a, 0, 3, 5));
    STEP("delete bad axis (fails)", b2nd_delete(a, 5, 0, 5));
  }
  STEP("append 10 rows", b2nd_append(a, buf, 10 * 25 * 4, 0));
  STEP("append 5 columns", b2nd_append(a, buf, 40 * 5 * 4, 1));
  STEP("delete rows 0..10", b2nd_delete(a, 0, 0, 10));
  STEP("delete last 5 rows", b2nd_delete(a, 0, a->shape[0] - 5, 5));
  STEP("refresh", b2nd_refresh(a));
  {
    b2nd_context_t *mem = context(NULL, shape);
    b2nd_array_t *out = NULL, *view = NULL;
    STEP("get_slice into memory", b2nd_get_slice(mem, &out, a, start, stop));
    b2nd_free(out);
    STEP("copy into memory", b2nd_copy(mem, a, &out));
    b2nd_free(out);
    bool axis[3] = {true, false, false};
    STEP("expand_dims", b2nd_expand_dims(a, &view, axis, 3));
    STEP("free the view", b2nd_free(view));
    STEP("squeeze", b2nd_squeeze(a, &view));
    b2nd_free(view);
    uint8_t *cframe = NULL;
    int64_t cframe_len = 0;
    bool needs_free = false;
    STEP("to_cframe", b2nd_to_cframe(a, &cframe, &cframe_len, &needs_free));
    if (needs_free) free(cframe);
    int64_t other_shape[2] = {20, 30};
    b2nd_context_t *mem2 = context(NULL, other_shape);
    b2nd_array_t *other = NULL;
    CHECK(b2nd_zeros(mem2, &other) == 0, "zeros in memory");
    STEP("concatenate in place", b2nd_concatenate(mem2, a, other, 0, false, &a));
    b2nd_free(other);
    b2nd_free_ctx(mem);
    b2nd_free_ctx(mem2);
  }
  STEP("save to another file", b2nd_save(a, path2));
  printf("  that file's generation=%ld\n", lock_generation(path2, contiguous));
  {
    b2nd_context_t *ctx2 = context(path2, shape);
    b2nd_array_t *out = NULL;
    remove_all(path2);
    STEP("copy to another file", b2nd_copy(ctx2, a, &out));
    printf("  that file's generation=%ld\n", lock_generation(path2, contiguous));
    b2nd_free(out);
    remove_all(path2);
    STEP("get_slice to another file", b2nd_get_slice(ctx2, &out, a, start, stop));
    printf("  that file's generation=%ld\n", lock_generation(path2, contiguous));
    b2nd_free(out);
    remove_all(path2);
    b2nd_free_ctx(ctx2);
  }
  if (contiguous) {
    FILE *f = fopen(path2, "wb");
    CHECK(f != NULL && fwrite("0123456789", 1, 10, f) == 10, "prefix written");
    if (f) fclose(f);
    int64_t offset = b2nd_save_append(a, path2);
    STEP("save_append", offset);
    printf("  that file's generation=%ld\n", lock_generation(path2, contiguous));
    b2nd_array_t *o = NULL;
    STEP("open_offset", b2nd_open_offset(path2, &o, offset));
    printf("  that file's generation=%ld\n", lock_generation(path2, contiguous));
    b2nd_free(o);
    remove_all(path2);
  }
  STEP("free", b2nd_free(a));
  STEP("open", b2nd_open(path, &a));
  STEP("get_slice_cbuffer", b2nd_get_slice_cbuffer(a, start, stop, buf, small, 100));
  STEP("free", b2nd_free(a));
  b2nd_free_ctx(ctx);
  const char *names[] = {"uninit", "empty", "full", "nans", "from_cbuffer"};
  for (int k = 0; k < 5; k++) {
    remove_all(path);
    ctx = context(path, shape);
    int32_t fill = 7;
    int rc = -1;
    switch (k) {
      case 0: rc = b2nd_uninit(ctx, &a); break;
      case 1: rc = b2nd_empty(ctx, &a); break;
      case 2: rc = b2nd_full(ctx, &a, &fill); break;
      case 3: rc = b2nd_nans(ctx, &a); break;
      case 4: rc = b2nd_from_cbuffer(ctx, &a, buf, 625 * 4); break;
    }
    STEP(names[k], rc);
    if (rc >= 0) b2nd_free(a);
    b2nd_free_ctx(ctx);
  }
  remove_all(path);
}

/* The array's file replaced by another of the same length (its two chunks swapped, renamed
   over it) after a reader opened it: the reader's next read follows the new file, as in
   c-blosc2 (which compares inodes). */
static b2nd_array_t *halves(const char *p, bool swapped) {
  int64_t shape[2] = {20, 20}, half[2] = {10, 20};
  blosc2_cparams hcp = BLOSC2_CPARAMS_DEFAULTS;
  hcp.typesize = 4;
  hcp.nthreads = 1;
  blosc2_storage st = {.contiguous = true, .urlpath = (char *)p, .cparams = &hcp, .dparams = &dp};
  int32_t chunkshape[2] = {10, 20}, blockshape[2] = {5, 20};
  b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, shape, chunkshape, blockshape, "<i4", 0, NULL, 0);
  b2nd_array_t *a = NULL;
  remove_all(p);
  CHECK(b2nd_zeros(ctx, &a) == 0, "zeros");
  static int32_t part[200];
  for (int h = 0; h < 2; h++) {
    for (int i = 0; i < 200; i++) part[i] = ((swapped ? 1 - h : h) + 1) * 1000 + i;
    int64_t from[2] = {10 * h, 0}, to[2] = {10 * h + 10, 20};
    CHECK(b2nd_set_slice_cbuffer(part, half, sizeof part, from, to, a) == 0, "half written");
  }
  b2nd_free_ctx(ctx);
  return a;
}

static void replaced_file(void) {
  b2nd_array_t *w = halves(path, false);
  b2nd_array_t *r = NULL;
  CHECK(b2nd_open(path, &r) == 0, "reader opened");
  b2nd_array_t *o = halves(path2, true);
  int64_t len = w->sc->cbytes, other_len = o->sc->cbytes;
  b2nd_free(o);
  CHECK(rename(path2, path) == 0, "renamed over");
  int64_t start[2] = {0, 0}, stop[2] = {1, 1}, one[2] = {1, 1};
  int32_t first = -1;
  int rc = b2nd_get_slice_cbuffer(r, start, stop, &first, one, 4);
  printf("cframe replaced by a file of the same length (%d): get_slice_cbuffer rc=%d first=%d",
         len == other_len, rc, first);
  first = -1;
  rc = b2nd_get_slice_cbuffer(w, start, stop, &first, one, 4);
  printf(", writer's handle rc=%d first=%d\n", rc, first);
  b2nd_free(r);
  b2nd_free(w);
  remove_all(path);
}

/* ----- two processes ------------------------------------------------------------------- */

#define SLOW_FILTER 200

static b2nd_context_t *slow_context(const int64_t *shape, const int32_t *chunkshape,
                                    const int32_t *blockshape) {
  cp = (blosc2_cparams)BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.nthreads = 1;
  for (int i = 0; i < BLOSC2_MAX_FILTERS; i++) cp.filters[i] = 0;
  cp.filters[BLOSC2_MAX_FILTERS - 1] = SLOW_FILTER;
  dp = (blosc2_dparams)BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = 1;
  blosc2_storage st = {.contiguous = contiguous, .urlpath = path, .cparams = &cp, .dparams = &dp};
  return b2nd_create_ctx(&st, 2, shape, chunkshape, blockshape, "<i4", 0, NULL, 0);
}

/* While `call` runs here, a child tries the lock (exclusive, then shared) without waiting:
   prints whether it ever found it taken. */
static int cmd[2], rep[2];

static void poller(void) {
  char lp[160];
  snprintf(lp, sizeof lp, contiguous ? "%s.b2lock" : "%s/.b2lock", path);
  for (;;) {
    char c;
    if (read(cmd[0], &c, 1) != 1 || c == 'q') _exit(0);
    int mode = c == 'x' ? LOCK_EX : LOCK_SH;
    int fd = open(lp, O_RDWR | O_CREAT, 0666);
    int flags = fcntl(cmd[0], F_GETFL);
    fcntl(cmd[0], F_SETFL, flags | O_NONBLOCK);
    int busy = 0;
    while (read(cmd[0], &c, 1) != 1) {
      if (flock(fd, mode | LOCK_NB) == 0) flock(fd, LOCK_UN);
      else if (errno == EWOULDBLOCK) busy++;
      sleep_us(300);
    }
    fcntl(cmd[0], F_SETFL, flags);
    close(fd);
    if (write(rep[1], &busy, sizeof busy) != sizeof busy) _exit(3);
  }
}

static int polled_busy;
static void poll_start(char mode) {
  if (write(cmd[1], &mode, 1) != 1) exit(1);
  sleep_us(20000); /* the poller has opened the sidecar */
}
static void poll_stop(void) {
  if (write(cmd[1], "e", 1) != 1 || read(rep[0], &polled_busy, sizeof polled_busy) != sizeof polled_busy) exit(1);
}

#define HELD(tag, call)                                                                 \
  do {                                                                                  \
    int rc_x, rc_s, busy_x;                                                             \
    poll_start('x');                                                                    \
    rc_x = (call);                                                                      \
    poll_stop();                                                                        \
    busy_x = polled_busy;                                                               \
    poll_start('s');                                                                    \
    rc_s = (call);                                                                      \
    poll_stop();                                                                        \
    printf("%s %-28s rc=%d,%d lock taken during the call: %s\n",                        \
           contiguous ? "cframe" : "sframe", tag, rc_x, rc_s,                           \
           polled_busy > 0 ? "exclusively" : busy_x > 0 ? "shared" : "no");             \
  } while (0)

static void lock_during_calls(void) {
  remove_all(path);
  int64_t shape[2] = {40, 40};
  int32_t chunkshape[2] = {20, 20}, blockshape[2] = {10, 10};
  b2nd_context_t *ctx = slow_context(shape, chunkshape, blockshape);
  b2nd_array_t *a = NULL;
  CHECK(b2nd_zeros(ctx, &a) == 0, "zeros");
  for (int i = 0; i < 1600; i++) buf[i] = i % 7;
  int64_t start[2] = {0, 0};
  if (pipe(cmd) != 0 || pipe(rep) != 0) exit(1);
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    close(cmd[1]);
    close(rep[0]);
    poller();
  }
  close(cmd[0]);
  close(rep[1]);
  HELD("set_slice_cbuffer (4 chunks)", b2nd_set_slice_cbuffer(buf, shape, 1600 * 4, start, shape, a));
  HELD("get_slice_cbuffer (4 chunks)", b2nd_get_slice_cbuffer(a, start, shape, buf, shape, 1600 * 4));
  HELD("to_cbuffer", b2nd_to_cbuffer(a, buf, 1600 * 4));
  {
    int64_t idx[4] = {0, 11, 22, 33};
    int64_t *sel[2] = {idx, idx};
    int64_t sizes[2] = {4, 4};
    HELD("get_orthogonal_selection", b2nd_get_orthogonal_selection(a, sel, sizes, buf, sizes, 64));
  }
  if (write(cmd[1], "q", 1) != 1) exit(1);
  waitpid(pid, NULL, 0);
  close(cmd[1]);
  close(rep[0]);
  b2nd_free(a);
  b2nd_free_ctx(ctx);
  remove_all(path);
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  setenv("BLOSC_LOCKING", "1", 1);
  snprintf(dir, sizeof dir, "/tmp/rblosc2-b2nd-lock-XXXXXX");
  if (mkdtemp(dir) == NULL) return 1;
  blosc2_init();
  blosc2_filter slow = {.id = SLOW_FILTER, .name = "slow", .version = 1,
                        .forward = slow_forward, .backward = slow_backward};
  CHECK(blosc2_register_filter(&slow) == 0, "filter registered");
  for (int i = 0; i < 100 * 100; i++) buf[i] = i;
  for (contiguous = 1; contiguous >= 0; contiguous--) {
    snprintf(path, sizeof path, "%s/%s", dir, contiguous ? "a.b2nd" : "a.b2dir");
    snprintf(path2, sizeof path2, "%s/%s", dir, contiguous ? "b.b2nd" : "b.b2dir");
    one_process();
  }
  contiguous = 1;
  snprintf(path, sizeof path, "%s/a.b2nd", dir);
  snprintf(path2, sizeof path2, "%s/b.b2nd", dir);
  replaced_file();
  for (contiguous = 1; contiguous >= 0; contiguous--) {
    snprintf(path, sizeof path, "%s/%s", dir, contiguous ? "a.b2nd" : "a.b2dir");
    lock_during_calls();
  }
  blosc2_destroy();
  rmdir(dir);
  printf("b2nd_lock: %d checks, %s\n", checks, failures ? "FAILED" : "all passed");
  return failures != 0;
}
