/* Several builds of the library (and the reference) in ONE process, one chunk workload of
 * bench.c, calls alternating between the libraries: the machine's load, frequency and the
 * process's memory layout then fall on all of them alike, which separate processes (bench.c)
 * cannot give on a busy 2-core machine. Each library is dlopen'ed RTLD_LOCAL.
 *
 *   abtime WORKLOAD OP ROUNDS NTHREADS LIB.so...
 *     WORKLOAD: as bench/profile.c (lz4 blosclz zstd bitshuffle delta bytedelta random ...)
 *     OP:       compress decompress getitem1 getitem1pct
 *
 * prints min, 25th percentile and median milliseconds per call for each library; bench/abtime.sh
 * runs it under perf and sums each library's cpu-clock samples over several processes.
 *
 * At NTHREADS > 1 every library keeps its own worker threads in the process, and threads that
 * wait awake after a call (ours spin up to 100 us, the rayon pool's a while longer) take a core
 * from the next library's call: there its figures are biased (a change to our parallel
 * compressor measured 12% slower here and 14% faster in bench.c's process per library).
 * Compare multi-threaded builds with bench.c (`bench/bench A.so B.so --only ...`). */
#include <blosc2.h>
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chunk_workloads.h"
#include "timing.h"


#include <time.h>
typedef struct { __typeof__(&blosc2_compress_ctx) comp; __typeof__(&blosc2_decompress_ctx) dec; __typeof__(&blosc2_getitem_ctx) get; blosc2_context *cctx, *dctx; uint8_t *chunk, *out; int csize; double *t; } lib_t;
int main(int argc, char **argv) {
  if (argc < 6 || argc - 5 > 8) {
    fprintf(stderr, "usage: abtime WORKLOAD OP ROUNDS NTHREADS LIB.so... (at most 8)\n");
    return 2;
  }
  const workload_t *w = NULL;
  for (size_t i = 0; i < sizeof(workloads) / sizeof(workloads[0]); i++) if (strcmp(workloads[i].name, argv[1]) == 0) w = &workloads[i];
  const char *ops = argv[2];
  int rounds = atoi(argv[3]), nt = atoi(argv[4]), nl = argc - 5;
  if (!w || rounds < 1) { fprintf(stderr, "unknown workload or bad ROUNDS\n"); return 2; }
  int n = w->size, nitems = n / 8;
  uint8_t *src = malloc(n);
  fill(src, n, w->data);
  lib_t L[8];
  for (int k = 0; k < nl; k++) {
    void *h = dlopen(argv[5 + k], RTLD_NOW | RTLD_LOCAL);
    if (!h) { fprintf(stderr, "%s\n", dlerror()); return 3; }
    ((void (*)(void))dlsym(h, "blosc2_init"))();
    __typeof__(&blosc2_create_cctx) ccx = dlsym(h, "blosc2_create_cctx");
    __typeof__(&blosc2_create_dctx) dcx = dlsym(h, "blosc2_create_dctx");
    L[k].comp = dlsym(h, "blosc2_compress_ctx"); L[k].dec = dlsym(h, "blosc2_decompress_ctx"); L[k].get = dlsym(h, "blosc2_getitem_ctx");
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.compcode = w->codec; cp.clevel = w->clevel; cp.typesize = 8; cp.nthreads = nt;
    memcpy(cp.filters, w->filters, 6);
    for (int i = 0; i < 6; i++) if (cp.filters[i] == BD) cp.filters_meta[i] = 8;
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS; dp.nthreads = nt;
    L[k].cctx = ccx(cp); L[k].dctx = dcx(dp);
    L[k].chunk = malloc(n + BLOSC2_MAX_OVERHEAD); L[k].out = malloc(n);
    L[k].csize = L[k].comp(L[k].cctx, src, n, L[k].chunk, n + BLOSC2_MAX_OVERHEAD);
    L[k].t = malloc(sizeof(double) * rounds);
  }
  for (int i = -2; i < rounds; i++) for (int k0 = 0; k0 < nl; k0++) {
    int k = (i & 1) ? nl - 1 - k0 : k0; /* every other round in reverse order */
    lib_t *l = &L[k]; int r;
    double t0 = now();
    if (!strcmp(ops, "compress")) r = l->comp(l->cctx, src, n, l->chunk, n + BLOSC2_MAX_OVERHEAD);
    else if (!strcmp(ops, "decompress")) r = l->dec(l->dctx, l->chunk, l->csize, l->out, n);
    else if (!strcmp(ops, "getitem1")) r = l->get(l->dctx, l->chunk, l->csize, nitems / 2 + 3, 1, l->out, 8);
    else r = l->get(l->dctx, l->chunk, l->csize, nitems / 2 - nitems / 200 + 1, nitems / 100, l->out, n);
    double dt = now() - t0;
    if (r <= 0) { fprintf(stderr, "fail %d\n", r); return 1; }
    if (i >= 0) l->t[i] = dt;
  }
  for (int k = 0; k < nl; k++) {
    /* Decompression must give the source back (compress and getitem only check r > 0). */
    if (!strcmp(ops, "decompress") && memcmp(L[k].out, src, (size_t)n)) { fprintf(stderr, "WRONG\n"); return 1; }
    qsort(L[k].t, rounds, sizeof(double), cmp_double);
    printf("%-60s min %8.3f  p25 %8.3f  med %8.3f ms\n", argv[5 + k], L[k].t[0] * 1e3, L[k].t[rounds / 4] * 1e3, L[k].t[rounds / 2] * 1e3);
  }
  return 0;
}
