/* rblosc2: generated header, do not edit (see build.rs). */
#ifndef BLOSC_BLOSC2_BLOSC2_STDIO_H
#define BLOSC_BLOSC2_BLOSC2_STDIO_H

#include "blosc2-export.h"

#if defined(_MSC_VER)
#  include <io.h>
#else
#  include <unistd.h>
#endif
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdbool.h>
#if defined(_WIN32)
#  include <windows.h>
#endif


typedef struct blosc2_stdio_file {
  FILE *file;
} blosc2_stdio_file;

typedef struct blosc2_stdio_params {
  bool locking;
} blosc2_stdio_params;

typedef struct blosc2_stdio_mmap {
  const char *mode;
  size_t initial_mapping_size;
  bool needs_free;
  char *addr;
  char *urlpath;
  size_t file_size;
  size_t mapping_size;
  bool is_memory_only;
  FILE *file;
  int fd;
  int64_t access_flags;
  int64_t map_flags;
} blosc2_stdio_mmap;

#ifdef __cplusplus
extern "C" {
#endif // __cplusplus

BLOSC_EXPORT void *blosc2_stdio_open(const char *urlpath, const char *mode, void *_params);

BLOSC_EXPORT int blosc2_stdio_close(void *stream);

BLOSC_EXPORT int64_t blosc2_stdio_size(void *stream);

BLOSC_EXPORT
int64_t blosc2_stdio_write(const void *ptr,
                           int64_t size,
                           int64_t nitems,
                           int64_t position,
                           void *stream);

BLOSC_EXPORT
int64_t blosc2_stdio_read(void **ptr,
                          int64_t size,
                          int64_t nitems,
                          int64_t position,
                          void *stream);

BLOSC_EXPORT int blosc2_stdio_truncate(void *stream, int64_t size);

BLOSC_EXPORT int blosc2_stdio_destroy(void *params);

BLOSC_EXPORT void *blosc2_stdio_mmap_open(const char *urlpath, const char *_mode, void *params);

BLOSC_EXPORT int blosc2_stdio_mmap_close(void *_stream);

BLOSC_EXPORT int64_t blosc2_stdio_mmap_size(void *stream);

BLOSC_EXPORT
int64_t blosc2_stdio_mmap_write(const void *ptr,
                                int64_t size,
                                int64_t nitems,
                                int64_t position,
                                void *stream);

BLOSC_EXPORT
int64_t blosc2_stdio_mmap_read(void **ptr,
                               int64_t size,
                               int64_t nitems,
                               int64_t position,
                               void *stream);

BLOSC_EXPORT int blosc2_stdio_mmap_truncate(void *stream, int64_t size);

BLOSC_EXPORT int blosc2_stdio_mmap_destroy(void *params);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

/* Default filesystem I/O parameters (no locking). */
static const blosc2_stdio_params BLOSC2_STDIO_PARAMS_DEFAULTS = {false};

/* Default memory-mapped I/O parameters: read-only, 1 GiB initial mapping. */
static const blosc2_stdio_mmap BLOSC2_STDIO_MMAP_DEFAULTS = {
  "r", ((size_t)1 << 30), false, NULL, NULL, 0, 0, false, NULL, -1, -1, -1
#if defined(_WIN32)
  , INVALID_HANDLE_VALUE
#endif
};

#endif /* BLOSC_BLOSC2_BLOSC2_STDIO_H */
