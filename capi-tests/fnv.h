/* FNV-1a of a buffer: the C tests print it to compare data between libraries and processes. */
#ifndef RBLOSC2_CAPI_TESTS_FNV_H
#define RBLOSC2_CAPI_TESTS_FNV_H
#include <stddef.h>
#include <stdint.h>

static inline uint64_t fnv(const void *data, size_t n) {
  const uint8_t *p = data;
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ULL;
  return h;
}

#endif
