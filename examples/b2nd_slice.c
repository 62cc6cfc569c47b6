/* A 2-d b2nd array from a C buffer: save it, reopen it, read a slice. */
#include <b2nd.h>
#include <stdio.h>

#define ROWS 100
#define COLS 80

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "b2nd_slice.b2nd";
  static double grid[ROWS][COLS];
  for (int r = 0; r < ROWS; r++)
    for (int c = 0; c < COLS; c++) grid[r][c] = r * 1000.0 + c;
  blosc2_init();
  blosc2_remove_urlpath(path);

  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = sizeof(double);
  blosc2_storage storage = {.cparams = &cparams};
  int64_t shape[] = {ROWS, COLS};
  int32_t chunkshape[] = {25, 40}, blockshape[] = {5, 10};
  b2nd_context_t *ctx = b2nd_create_ctx(&storage, 2, shape, chunkshape, blockshape, "<f8",
                                        DTYPE_NUMPY_FORMAT, NULL, 0);
  b2nd_array_t *arr;
  if (ctx == NULL || b2nd_from_cbuffer(ctx, &arr, grid, sizeof(grid)) < 0) return 1;
  if (b2nd_save(arr, (char *)path) < 0) return 1;
  b2nd_free(arr);
  b2nd_free_ctx(ctx);

  if (b2nd_open(path, &arr) < 0) { fprintf(stderr, "cannot open %s\n", path); return 1; }
  int64_t start[] = {10, 30}, stop[] = {13, 34}, slice_shape[] = {3, 4};
  double slice[3][4];
  if (b2nd_get_slice_cbuffer(arr, start, stop, slice, slice_shape, sizeof(slice)) < 0) return 1;
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 4; c++)
      if (slice[r][c] != grid[10 + r][30 + c]) { fprintf(stderr, "wrong item\n"); return 1; }
  printf("b2nd_slice: shape %lld x %lld, dtype %s, slice [10:13, 30:34] ok (%g .. %g)\n",
         (long long)arr->shape[0], (long long)arr->shape[1], arr->dtype, slice[0][0], slice[2][3]);
  b2nd_free(arr);
  blosc2_destroy();
  return 0;
}
