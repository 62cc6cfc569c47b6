/* bench.c's chunk workloads by short name, for the single-operation tools (profile.c, abtime.c). */
#ifndef RBLOSC2_BENCH_CHUNK_WORKLOADS_H
#define RBLOSC2_BENCH_CHUNK_WORKLOADS_H
#include <blosc2.h>
#include "data.h"

typedef struct {
  const char *name;
  int codec, clevel, data, size;
  uint8_t filters[6];
} workload_t;

#define SH BLOSC_SHUFFLE
#define BS BLOSC_BITSHUFFLE
#define DL BLOSC_DELTA
#define BD 35
static const workload_t workloads[] = {
    {"lz4", BLOSC_LZ4, 5, NOISY, 4 << 20, {0, 0, 0, 0, 0, SH}},
    {"blosclz", BLOSC_BLOSCLZ, 5, NOISY, 4 << 20, {0, 0, 0, 0, 0, SH}},
    {"zstd", BLOSC_ZSTD, 3, NOISY, 4 << 20, {0, 0, 0, 0, 0, SH}},
    {"bitshuffle", BLOSC_ZSTD, 5, NOISY, 4 << 20, {0, 0, 0, 0, 0, BS}},
    {"delta", BLOSC_LZ4, 5, SMOOTH, 4 << 20, {0, 0, 0, 0, DL, SH}},
    {"bytedelta", BLOSC_ZSTD, 5, SMOOTH, 4 << 20, {0, 0, 0, 0, SH, BD}},
    {"random", BLOSC_LZ4, 5, RANDOM, 4 << 20, {0, 0, 0, 0, 0, 0}},
    {"lz4-16k", BLOSC_LZ4, 5, NOISY, 16 << 10, {0, 0, 0, 0, 0, SH}},
    {"lz4-256k", BLOSC_LZ4, 5, NOISY, 256 << 10, {0, 0, 0, 0, 0, SH}},
    {"zstd-256k", BLOSC_ZSTD, 3, NOISY, 256 << 10, {0, 0, 0, 0, 0, SH}},
};
#endif
