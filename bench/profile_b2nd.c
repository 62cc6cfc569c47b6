/* bench.c's b2nd slice reads (256^3 float64, chunks 64^3, blocks 16^3, default cparams,
 * nthreads 1), one operation repeated: for instruction counts under callgrind and for perf
 * record, on either library.
 *
 *   profile_b2nd LIB.so OP ITERS      OP: slab column box
 *
 *   valgrind --tool=callgrind --toggle-collect=run_ops profile_b2nd LIB.so slab 3
 *
 * counts only the calls of OP (building the array is outside run_ops); the output is checked
 * after the loop. bench/callgrind.sh runs it for the workload name "b2nd". */
#include <b2nd.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "b2nd_array.h"

static __typeof__(&b2nd_get_slice_cbuffer) get_slice;

/* Everything callgrind counts. */
__attribute__((noinline)) int run_ops(b2nd_array_t *a, int iters, const int64_t *s0, const int64_t *s1,
                                      double *out, const int64_t *bsh, int64_t bytes) {
  int r = 0;
  for (int i = 0; i < iters; i++) r |= get_slice(a, s0, s1, out, bsh, bytes);
  return r;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: profile_b2nd LIB.so slab|column|box ITERS\n");
    return 2;
  }
  int64_t slab[2][3] = {{100, 0, 0}, {110, N3, N3}}, column[2][3] = {{0, 37, 91}, {N3, 38, 92}},
          box[2][3] = {{30, 50, 70}, {130, 150, 170}};
  int64_t(*op)[3] = strcmp(argv[2], "slab") == 0     ? slab
                    : strcmp(argv[2], "column") == 0 ? column
                    : strcmp(argv[2], "box") == 0    ? box
                                                     : NULL;
  if (!op) {
    fprintf(stderr, "unknown op\n");
    return 2;
  }
  void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!h) { fprintf(stderr, "dlopen: %s\n", dlerror()); return 3; }
  get_slice = (__typeof__(get_slice))dlsym(h, "b2nd_get_slice_cbuffer");
  if (!get_slice) { fprintf(stderr, "%s: missing symbols\n", argv[1]); return 3; }
  double *src = b2nd_array_source();
  b2nd_array_t *a = b2nd_array_build(h, argv[1], src);
  int64_t bsh[3], n = 1;
  for (int d = 0; d < 3; d++) n *= bsh[d] = op[1][d] - op[0][d];
  double *out = calloc((size_t)n, 8);
  /* One warm-up call outside the count: first-use allocations and page faults. */
  run_ops(a, 1, op[0], op[1], out, bsh, n * 8);
  memset(out, 0, (size_t)n * 8);
  int r = run_ops(a, atoi(argv[3]), op[0], op[1], out, bsh, n * 8);
  int ok = r == 0;
  size_t p = 0;
  for (int64_t i = op[0][0]; i < op[1][0]; i++)
    for (int64_t j = op[0][1]; j < op[1][1]; j++)
      for (int64_t k = op[0][2]; k < op[1][2]; k++) ok &= out[p++] == src[(i * N3 + j) * N3 + k];
  printf("b2nd %s: %lld items, %s\n", argv[2], (long long)n, ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
