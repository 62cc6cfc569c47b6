/* The benchmark data, shared by bench.c, profile.c and abtime.c so that every tool measures the
 * same bytes.
 *
 * float64 data: NOISY is a smooth curve plus 3 digits of noise (compressible after shuffle),
 * SMOOTH the curve alone (what delta filters are for), RANDOM incompressible bytes. */
#ifndef RBLOSC2_BENCH_DATA_H
#define RBLOSC2_BENCH_DATA_H
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum { NOISY, SMOOTH, RANDOM };

static void fill(uint8_t *buf, size_t n, int kind) {
  uint64_t x = 0x243F6A8885A308D3ull;
  double *f = (double *)buf;
  for (size_t i = 0; i < n / 8; i++) {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    double curve = (double)(int64_t)(sin((double)i * 0.0005) * 1e6) * 1e-3;
    if (kind == SMOOTH) f[i] = curve;
    else if (kind == NOISY) f[i] = curve + (double)(x % 1000) * 1e-3;
    else memcpy(&f[i], &x, 8);
  }
}
#endif
