/* Clock reading and sorting of timings, shared by bench.c, abtime.c and slice_ab.c. */
#ifndef RBLOSC2_BENCH_TIMING_H
#define RBLOSC2_BENCH_TIMING_H
#include <time.h>

/* Seconds on `clock` (CLOCK_MONOTONIC for wall time, a CPU-time clock for CPU time). */
static inline double clock_seconds(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Wall-clock seconds. */
static inline double now(void) { return clock_seconds(CLOCK_MONOTONIC); }

/* qsort comparator for doubles, ascending. */
static inline int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

#endif
