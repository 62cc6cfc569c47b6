/* Several handles on one frame on disk: the frame lock (blosc2_stdio_params.locking and
   BLOSC_LOCKING: a .b2lock sidecar, flock, a generation counter at byte 8) and the re-sync of
   a handle whose frame another handle changed (single writer, many readers).

   Part 1, one process: a writer handle grows a frame (3 more chunks and a vlmetalayer) after a
   reader handle opened it; then one call is made on the reader, and its counters, the call's
   result, the sidecar's generation and the frame reopened are printed. Which calls re-sync
   (and which fail first because the index is past what the handle knows) is c-blosc2's
   behaviour, for cframes and sframes, with and without locking.
   Then the frame file replaced by another of the same length (renamed over it) after the
   reader opened it, and one call made on the reader.
   Part 2, two processes: a child appends chunks through a locked handle while the parent
   polls blosc2_schunk_refresh and reads every chunk it learns of; and a child's append waits
   while the parent holds blosc2_schunk_lock.

   Output is compared line by line with the reference c-blosc2 3.3.5's. */
#include <blosc2.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"

#define N 1000
#define NOPS 20

static char dir[64];
static blosc2_stdio_params sparams;
static blosc2_io io;

static void fill(int32_t *b, int k) {
  for (int i = 0; i < N; i++) b[i] = i * (k + 1) + k;
}

static blosc2_schunk *create(const char *path, bool contiguous) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.nthreads = 1;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = 1;
  blosc2_storage st = {.contiguous = contiguous, .urlpath = (char *)path, .cparams = &cp,
                       .dparams = &dp, .io = &io};
  blosc2_remove_urlpath(path);
  return blosc2_schunk_new(&st);
}

static void counters(const char *tag, blosc2_schunk *s) {
  printf(" %s: nchunks=%" PRId64 " nbytes=%" PRId64 " cbytes=%" PRId64 " nvlmetalayers=%d", tag,
         s->nchunks, s->nbytes, s->cbytes, s->nvlmetalayers);
}

static const char *op_name[NOPS] = {
    "nothing", "refresh", "decompress(new chunk)", "decompress(0)", "get_chunk(0)",
    "get_lazychunk(0)", "get_slice(0..10)", "get_slice(new items)", "frame_len",
    "vlmeta_get", "vlmeta_exists", "vlmeta_get_names", "append_buffer", "insert_chunk(0)",
    "update_chunk(new chunk)", "update_chunk(1)", "delete_chunk(new chunk)", "delete_chunk(1)",
    "to_buffer", "copy"};

static long call(int op, blosc2_schunk *r) {
  int32_t buf[N], out[N];
  uint8_t chunk[N * 4 + BLOSC2_MAX_OVERHEAD];
  uint8_t *c = NULL;
  bool needs_free = false;
  long rc = 0;
  fill(buf, 9);
  int csize = blosc2_compress(5, 1, 4, buf, sizeof buf, chunk, sizeof chunk);
  if (csize <= 0) return -1000;
  switch (op) {
    case 0: break;
    case 1: rc = blosc2_schunk_refresh(r); break;
    case 2:
      rc = blosc2_schunk_decompress_chunk(r, 4, out, sizeof out);
      if (rc > 0) rc = out[N - 1];
      break;
    case 3:
      rc = blosc2_schunk_decompress_chunk(r, 0, out, sizeof out);
      if (rc > 0) rc = out[N - 1];
      break;
    case 4: rc = blosc2_schunk_get_chunk(r, 0, &c, &needs_free); break;
    case 5: rc = blosc2_schunk_get_lazychunk(r, 0, &c, &needs_free); break;
    case 6:
      rc = blosc2_schunk_get_slice_buffer(r, 0, 10, out);
      if (rc == 0) rc = out[9];
      break;
    case 7:
      rc = blosc2_schunk_get_slice_buffer(r, 4000, 4010, out);
      if (rc == 0) rc = out[9];
      break;
    case 8: rc = (long)blosc2_schunk_frame_len(r); break;
    case 9: {
      uint8_t *v = NULL;
      int32_t vlen = 0;
      rc = blosc2_vlmeta_get(r, "vl", &v, &vlen);
      if (rc >= 0) {
        rc = rc * 1000 + vlen;
        free(v);
      }
      break;
    }
    case 10: rc = blosc2_vlmeta_exists(r, "vl"); break;
    case 11: {
      char *names[16];
      rc = blosc2_vlmeta_get_names(r, names);
      break;
    }
    case 12: rc = (long)blosc2_schunk_append_buffer(r, buf, sizeof buf); break;
    case 13: rc = (long)blosc2_schunk_insert_chunk(r, 0, chunk, true); break;
    case 14: rc = (long)blosc2_schunk_update_chunk(r, 4, chunk, true); break;
    case 15: rc = (long)blosc2_schunk_update_chunk(r, 1, chunk, true); break;
    case 16: rc = (long)blosc2_schunk_delete_chunk(r, 4); break;
    case 17: rc = (long)blosc2_schunk_delete_chunk(r, 1); break;
    case 18: rc = (long)blosc2_schunk_to_buffer(r, &c, &needs_free); break;
    case 19: {
      blosc2_storage mem = {.contiguous = false};
      blosc2_schunk *copy = blosc2_schunk_copy(r, &mem);
      rc = copy ? (long)copy->nchunks : -1000;
      blosc2_schunk_free(copy);
      break;
    }
  }
  if (needs_free) free(c);
  return rc;
}

static int one_process(bool contiguous, bool locking, int op) {
  char path[128];
  snprintf(path, sizeof path, "%s/%s", dir, contiguous ? "frame.b2frame" : "frame.b2dir");
  sparams.locking = locking;
  int32_t buf[N];
  blosc2_schunk *w = create(path, contiguous);
  if (w == NULL) return 1;
  for (int k = 0; k < 2; k++) {
    fill(buf, k);
    if (blosc2_schunk_append_buffer(w, buf, sizeof buf) != k + 1) return 1;
  }
  blosc2_schunk *r = blosc2_schunk_open_udio(path, &io);
  if (r == NULL) return 1;
  for (int k = 2; k < 5; k++) {
    fill(buf, k);
    if (blosc2_schunk_append_buffer(w, buf, sizeof buf) != k + 1) return 1;
  }
  if (blosc2_vlmeta_add(w, "vl", (uint8_t *)"abc", 3, NULL) < 0) return 1;
  long rc = call(op, r);
  printf("%s locking=%d %-24s rc=%ld", contiguous ? "cframe" : "sframe", locking, op_name[op],
         rc);
  counters("reader", r);
  blosc2_schunk_free(r);
  blosc2_schunk_free(w);
  printf(" generation=%ld", lock_generation(path, contiguous));
  blosc2_schunk *z = blosc2_schunk_open_udio(path, &io);
  if (z == NULL) return 1;
  counters("reopened", z);
  printf("\n");
  blosc2_schunk_free(z);
  blosc2_remove_urlpath(path);
  return 0;
}

/* The frame file replaced by another of the same length (its two chunks in the other order,
   renamed over it) after a reader opened it; then one call on the reader. c-blosc2 notices (its
   stdio backend compares the inode of the open file with the path's) where it re-syncs. */
static blosc2_schunk *two_chunks(const char *p, bool swapped) {
  blosc2_schunk *s = create(p, true);
  int32_t buf[N];
  for (int k = 0; k < 2 && s != NULL; k++) {
    fill(buf, swapped ? 1 - k : k);
    if (blosc2_schunk_append_buffer(s, buf, sizeof buf) != k + 1) return NULL;
  }
  return s;
}

static int replaced(bool locking, int op) {
  char path[128], other[128];
  snprintf(path, sizeof path, "%s/replaced.b2frame", dir);
  snprintf(other, sizeof other, "%s/other.b2frame", dir);
  sparams.locking = locking;
  blosc2_schunk *w = two_chunks(path, false);
  if (w == NULL) return 1;
  blosc2_schunk *r = blosc2_schunk_open_udio(path, &io);
  blosc2_schunk *o = two_chunks(other, true);
  if (r == NULL || o == NULL) return 1;
  int64_t len = blosc2_schunk_frame_len(w), other_len = blosc2_schunk_frame_len(o);
  blosc2_schunk_free(o);
  if (rename(other, path) != 0) return 1;
  long rc = call(op, r);
  int32_t out[N];
  int first = blosc2_schunk_decompress_chunk(r, 0, out, sizeof out) > 0 ? out[0] : -1;
  printf("replaced locking=%d %-24s rc=%ld then chunk 0 starts %d, same length=%d", locking,
         op_name[op], rc, first, len == other_len);
  counters("reader", r);
  blosc2_schunk_free(r);
  blosc2_schunk_free(w);
  blosc2_schunk *z = blosc2_schunk_open_udio(path, &io);
  if (z == NULL) return 1;
  first = blosc2_schunk_decompress_chunk(z, 0, out, sizeof out) > 0 ? out[0] : -1;
  counters("reopened", z);
  printf(" chunk 0 starts %d\n", first);
  blosc2_schunk_free(z);
  blosc2_remove_urlpath(path);
  return 0;
}

static void sleep_ms(int ms) {
  struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

/* A child appends NCHILD chunks (locked handle); the parent refreshes and reads each chunk it
   learns of, checking its content, until it has seen them all. */
#define NCHILD 40
static int writer_and_reader(bool contiguous) {
  char path[128];
  snprintf(path, sizeof path, "%s/%s", dir, contiguous ? "swmr.b2frame" : "swmr.b2dir");
  sparams.locking = true;
  int32_t buf[N], out[N];
  blosc2_schunk *w = create(path, contiguous);
  fill(buf, 0);
  if (w == NULL || blosc2_schunk_append_buffer(w, buf, sizeof buf) != 1) return 1;
  blosc2_schunk *r = blosc2_schunk_open_udio(path, &io);
  if (r == NULL) return 1;
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    for (int k = 1; k <= NCHILD; k++) {
      fill(buf, k);
      if (blosc2_schunk_append_buffer(w, buf, sizeof buf) != k + 1) _exit(2);
      sleep_ms(2);
    }
    _exit(0);
  }
  int64_t seen = 1;
  int bad = 0, refreshes = 0, loops = 0;
  while (seen < NCHILD + 1 && loops++ < 20000) {
    int rc = blosc2_schunk_refresh(r);
    if (rc < 0) {
      bad++;
      break;
    }
    refreshes += rc;
    for (; seen < r->nchunks; seen++) {
      if (blosc2_schunk_decompress_chunk(r, seen, out, sizeof out) != (int)sizeof out) bad++;
      fill(buf, (int)seen);
      if (memcmp(out, buf, sizeof out) != 0) bad++;
    }
    sleep_ms(1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  blosc2_schunk_refresh(r);
  printf("%s two processes: writer exit=%d, reader saw %" PRId64 " chunks (%" PRId64
         " in the frame), bad reads=%d, refreshed=%s\n",
         contiguous ? "cframe" : "sframe", WIFEXITED(status) ? WEXITSTATUS(status) : -1, seen,
         r->nchunks, bad, refreshes > 0 ? "yes" : "no");
  blosc2_schunk_free(r);
  blosc2_schunk_free(w);
  blosc2_remove_urlpath(path);
  return bad != 0 || seen != NCHILD + 1;
}

/* A child's append waits while the parent holds blosc2_schunk_lock on its own handle. */
static int bracket_blocks_writer(bool contiguous) {
  char path[128];
  snprintf(path, sizeof path, "%s/%s", dir, contiguous ? "lock.b2frame" : "lock.b2dir");
  sparams.locking = true;
  int32_t buf[N];
  fill(buf, 0);
  blosc2_schunk *s = create(path, contiguous);
  if (s == NULL || blosc2_schunk_append_buffer(s, buf, sizeof buf) != 1) return 1;
  blosc2_schunk *other = blosc2_schunk_open_udio(path, &io);
  if (other == NULL) return 1;
  int lock_rc = blosc2_schunk_lock(s);
  int nested = blosc2_schunk_lock(s);
  int64_t inside = blosc2_schunk_append_buffer(s, buf, sizeof buf);
  int fds[2];
  if (pipe(fds) != 0) return 1;
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    int64_t n = blosc2_schunk_append_buffer(other, buf, sizeof buf);
    char c = (char)n;
    if (write(fds[1], &c, 1) != 1) _exit(2);
    _exit(0);
  }
  close(fds[1]);
  sleep_ms(300);
  int flags = fcntl(fds[0], F_GETFL);
  fcntl(fds[0], F_SETFL, flags | O_NONBLOCK);
  char c = 0;
  ssize_t early = read(fds[0], &c, 1);
  int unlock1 = blosc2_schunk_unlock(s);
  sleep_ms(100);
  ssize_t still = read(fds[0], &c, 1);
  int unlock2 = blosc2_schunk_unlock(s);
  int unlock3 = blosc2_schunk_unlock(s);
  fcntl(fds[0], F_SETFL, flags);
  ssize_t late = read(fds[0], &c, 1);
  int status = 0;
  waitpid(pid, &status, 0);
  close(fds[0]);
  printf("%s bracket: lock=%d nested=%d append inside=%" PRId64
         " child done while held=%s after one unlock=%s unlocks=%d,%d,%d child appended=%d\n",
         contiguous ? "cframe" : "sframe", lock_rc, nested, inside, early == 1 ? "yes" : "no",
         still == 1 ? "yes" : "no", unlock1, unlock2, unlock3, late == 1 ? c : -1);
  blosc2_schunk_free(other);
  blosc2_schunk_free(s);
  blosc2_remove_urlpath(path);
  return early == 1 || still == 1 || late != 1;
}

/* Which handles take the lock: the stdio params, BLOSC_LOCKING, in-memory super-chunks. */
static int who_locks(void) {
  char path[128];
  snprintf(path, sizeof path, "%s/env.b2frame", dir);
  const char *values[] = {NULL, "", "0", "1", "no"};
  for (int i = 0; i < 5; i++) {
    if (values[i] == NULL) unsetenv("BLOSC_LOCKING");
    else setenv("BLOSC_LOCKING", values[i], 1);
    sparams.locking = false;
    blosc2_schunk *s = create(path, true);
    int32_t buf[N];
    fill(buf, 0);
    if (s == NULL || blosc2_schunk_append_buffer(s, buf, sizeof buf) != 1) return 1;
    blosc2_schunk_free(s);
    printf("BLOSC_LOCKING=%s: generation=%ld\n", values[i] ? values[i] : "(unset)",
           lock_generation(path, true));
    blosc2_remove_urlpath(path);
    printf("  sidecar after remove_urlpath: %ld\n", lock_generation(path, true));
  }
  unsetenv("BLOSC_LOCKING");
  blosc2_storage mem = {.contiguous = true};
  blosc2_schunk *m = blosc2_schunk_new(&mem);
  printf("in memory: lock=%d unlock=%d refresh=%d\n", blosc2_schunk_lock(m),
         blosc2_schunk_unlock(m), blosc2_schunk_refresh(m));
  blosc2_schunk_free(m);
  printf("NULL: refresh=%d\n", blosc2_schunk_refresh(NULL));
  return 0;
}

int main(void) {
  unsetenv("BLOSC_LOCKING");
  snprintf(dir, sizeof dir, "/tmp/rblosc2-swmr-XXXXXX");
  if (mkdtemp(dir) == NULL) return 1;
  io = (blosc2_io){BLOSC2_IO_FILESYSTEM, "filesystem", &sparams};
  blosc2_init();
  int failed = 0;
  for (int contiguous = 1; contiguous >= 0; contiguous--) {
    for (int locking = 0; locking <= 1; locking++) {
      for (int op = 0; op < NOPS; op++) {
        if (one_process(contiguous, locking, op) != 0) {
          printf("FAILED: %s locking=%d %s\n", contiguous ? "cframe" : "sframe", locking,
                 op_name[op]);
          failed++;
        }
      }
    }
  }
  for (int locking = 0; locking <= 1; locking++) {
    for (int op = 0; op < NOPS; op++) {
      if (replaced(locking, op) != 0) {
        printf("FAILED: replaced locking=%d %s\n", locking, op_name[op]);
        failed++;
      }
    }
  }
  for (int contiguous = 1; contiguous >= 0; contiguous--) {
    failed += writer_and_reader(contiguous);
    failed += bracket_blocks_writer(contiguous);
  }
  failed += who_locks();
  blosc2_destroy();
  rmdir(dir);
  printf("schunk_swmr: %s\n", failed ? "FAILED" : "all checks passed");
  return failed != 0;
}
