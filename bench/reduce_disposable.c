/* A reduction the way python-blosc2 computes blosc2.sum(a) with miniexpr: a prefilter that
 * reads its input block, accumulates it into its own memory and declares its output disposable
 * (blosc2_prefilter_params.output_is_disposable, set in the preparams given to
 * blosc2_create_cctx), driven by one blosc2_compress_ctx per chunk whose result is thrown
 * away. A 2000x2000 float64 array in chunks of 500 rows.
 *
 *   reduce_disposable CODEC CLEVEL NTHREADS REPEATS
 *     CODEC: lz4 zstd blosclz ...
 *
 * Prints the median and minimum wall-clock milliseconds per reduction, the median process CPU
 * milliseconds (all threads: steadier than wall time on a loaded machine) and the sum (which
 * must be the same for every library). bench/reduce_disposable.sh runs it against several libraries in
 * alternating processes. */
#include <blosc2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timing.h"

enum { ROWS = 2000, COLS = 2000, CHUNK_ROWS = 500 };

typedef struct {
  double *partial; /* one per block of a chunk */
  int32_t nblocks;
} reduc_t;

static int sum_block(blosc2_prefilter_params *p) {
  reduc_t *r = p->user_data;
  const double *x = (const double *)p->input;
  int32_t n = p->output_size / 8;
  double s = 0;
  for (int32_t i = 0; i < n; i++) s += x[i];
  if (p->nblock < 0 || p->nblock >= r->nblocks) return 1;
  r->partial[p->nblock] += s;
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: reduce_disposable CODEC CLEVEL NTHREADS REPEATS\n");
    return 2;
  }
  blosc2_init();
  int codec = blosc2_compname_to_compcode(argv[1]);
  int clevel = atoi(argv[2]), nthreads = atoi(argv[3]), repeats = atoi(argv[4]);
  if (codec < 0 || repeats < 1) {
    fprintf(stderr, "bad codec or repeats\n");
    return 2;
  }
  size_t n = (size_t)ROWS * COLS;
  double *a = malloc(n * sizeof(double));
  for (size_t i = 0; i < n; i++) a[i] = (double)(i % 1000) * 0.5;
  int32_t chunkbytes = CHUNK_ROWS * COLS * (int32_t)sizeof(double);
  int nchunks = ROWS / CHUNK_ROWS;

  /* The operand is made first, as python-blosc2's blosc2.asarray(a) compresses it in the
   * process: the libraries' block buffers then hold data, not zeros, when the reduction's
   * prefilter leaves them unwritten. */
  blosc2_cparams op = BLOSC2_CPARAMS_DEFAULTS;
  op.compcode = (uint8_t)codec;
  op.clevel = (uint8_t)clevel;
  op.typesize = 8;
  op.nthreads = (int16_t)nthreads;
  blosc2_context *oc = blosc2_create_cctx(op);
  uint8_t *operand = malloc((size_t)chunkbytes + BLOSC2_MAX_OVERHEAD);
  for (int ch = 0; ch < nchunks; ch++) {
    if (blosc2_compress_ctx(oc, a + (size_t)ch * CHUNK_ROWS * COLS, chunkbytes, operand,
                            chunkbytes + BLOSC2_MAX_OVERHEAD) <= 0) {
      fprintf(stderr, "operand compression failed\n");
      return 1;
    }
  }
  blosc2_free_ctx(oc);
  free(operand);

  reduc_t r = {calloc((size_t)chunkbytes / 8, sizeof(double)), chunkbytes / 8};
  blosc2_prefilter_params pp;
  memset(&pp, 0, sizeof pp);
  pp.user_data = &r;
  pp.output_is_disposable = true;
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = (uint8_t)codec;
  cp.clevel = (uint8_t)clevel;
  cp.typesize = 8;
  cp.nthreads = (int16_t)nthreads;
  cp.splitmode = BLOSC_NEVER_SPLIT;
  cp.prefilter = sum_block;
  cp.preparams = &pp;
  blosc2_context *c = blosc2_create_cctx(cp);
  uint8_t *chunk = malloc((size_t)chunkbytes + BLOSC2_MAX_OVERHEAD);
  double *ms = malloc((size_t)repeats * sizeof(double));
  double *cpu = malloc((size_t)repeats * sizeof(double));
  double total = 0;
  int csize = 0;
  for (int k = 0; k < repeats; k++) {
    memset(r.partial, 0, (size_t)r.nblocks * sizeof(double));
    double t0 = now(), c0 = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
    for (int ch = 0; ch < nchunks; ch++) {
      csize = blosc2_compress_ctx(c, a + (size_t)ch * CHUNK_ROWS * COLS, chunkbytes, chunk,
                                  chunkbytes + BLOSC2_MAX_OVERHEAD);
      if (csize < 0) {
        fprintf(stderr, "compress: %d\n", csize);
        return 1;
      }
    }
    total = 0;
    for (int32_t b = 0; b < r.nblocks; b++) total += r.partial[b];
    ms[k] = (now() - t0) * 1e3;
    cpu[k] = (clock_seconds(CLOCK_PROCESS_CPUTIME_ID) - c0) * 1e3;
  }
  qsort(ms, (size_t)repeats, sizeof(double), cmp_double);
  qsort(cpu, (size_t)repeats, sizeof(double), cmp_double);
  printf("%s clevel=%d nthreads=%d: median %.3f ms min %.3f ms cpu %.3f ms (chunk %d bytes) "
         "sum=%.1f\n", argv[1], clevel, nthreads, ms[repeats / 2], ms[0], cpu[repeats / 2], csize,
         total);
  blosc2_free_ctx(c);
  free(chunk);
  free(ms);
  free(cpu);
  free(r.partial);
  free(a);
  blosc2_destroy();
  return 0;
}
