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


typedef struct {
  FILE *file;
} blosc2_stdio_file;

typedef struct {
  bool locking;
} blosc2_stdio_params;

typedef struct {
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

/**
 * Opens `urlpath` with `fopen(urlpath, mode)` for the stdio I/O backend.
 * `mode` is an fopen mode string ("rb", "wb+", ...); `_params` (a `blosc2_stdio_params *`) is
 * not used here. Returns a new `blosc2_stdio_file *` (as `void *`), to be released with
 * `blosc2_stdio_close`, or NULL when `urlpath` or `mode` is NULL, the file cannot be opened or
 * memory runs out.
 */
BLOSC_EXPORT void *blosc2_stdio_open(const char *urlpath, const char *mode, void *_params);

/**
 * Closes a stream returned by `blosc2_stdio_open`: `fclose`s its FILE and frees the stream.
 * Returns fclose's result (0 on success), or -1 for a NULL stream. The stream must not be
 * used afterwards.
 */
BLOSC_EXPORT int blosc2_stdio_close(void *stream);

/**
 * The size in bytes of the file behind `stream` (seeks to its end), or -1 for a NULL stream or
 * a failed seek.
 */
BLOSC_EXPORT int64_t blosc2_stdio_size(void *stream);

/**
 * Writes `nitems` items of `size` bytes from `ptr` at byte offset `position` of the stream's
 * file. Returns the number of items written (fwrite's count; 0 on a NULL argument, negative
 * sizes or a failed seek).
 */
BLOSC_EXPORT
int64_t blosc2_stdio_write(const void *ptr,
                           int64_t size,
                           int64_t nitems,
                           int64_t position,
                           void *stream);

/**
 * Reads `nitems` items of `size` bytes at byte offset `position` of the stream's file into the
 * buffer `*ptr` (allocated by the caller, at least `size * nitems` bytes; it is not replaced).
 * Returns the number of items read (fread's count; 0 on a NULL argument, negative sizes or a
 * failed seek).
 */
BLOSC_EXPORT
int64_t blosc2_stdio_read(void **ptr,
                          int64_t size,
                          int64_t nitems,
                          int64_t position,
                          void *stream);

/**
 * Flushes the stream and sets its file's length to `size` bytes (ftruncate). Returns 0 on
 * success, -1 on failure or for a NULL stream.
 */
BLOSC_EXPORT int blosc2_stdio_truncate(void *stream, int64_t size);

/**
 * The stdio backend's `destroy` callback. Its params (`blosc2_stdio_params`) belong to the
 * caller, so nothing is freed; always returns 0.
 */
BLOSC_EXPORT int blosc2_stdio_destroy(void *params);

/**
 * Opens and memory-maps `urlpath` for the memory-mapped backend. `params` is the caller's
 * `blosc2_stdio_mmap` (start from `BLOSC2_STDIO_MMAP_DEFAULTS`); its `mode` picks the access:
 * "r" read-only, "r+" an existing file read-write, "w+" a new (truncated) file, "c" copy on
 * write (changes stay in memory, the file is never written). `_mode` is ignored. The mapping
 * lives in `params`, which is also the returned stream: a later open of the same path returns
 * it again, another path returns NULL. Returns NULL on a NULL argument, an unknown mode or
 * when the file cannot be opened or mapped. The mapping stays until `blosc2_stdio_mmap_destroy`.
 */
BLOSC_EXPORT void *blosc2_stdio_mmap_open(const char *urlpath, const char *_mode, void *params);

/**
 * Does nothing and returns 0: the mapping is kept open until `blosc2_stdio_mmap_destroy`, so
 * that later opens of the same file reuse it.
 */
BLOSC_EXPORT int blosc2_stdio_mmap_close(void *_stream);

/**
 * The current size in bytes of the mapped file (including writes past its original end), or -1
 * for a NULL stream.
 */
BLOSC_EXPORT int64_t blosc2_stdio_mmap_size(void *stream);

/**
 * Copies `nitems` items of `size` bytes from `ptr` to byte offset `position` of the mapped file.
 * Writing past the end grows the file (in memory only in mode "c") and, past the mapping,
 * remaps it at least twice as large. Returns `nitems` on success, 0 on a NULL argument, a
 * read-only mapping, negative or overflowing sizes, or a failed resize.
 */
BLOSC_EXPORT
int64_t blosc2_stdio_mmap_write(const void *ptr,
                                int64_t size,
                                int64_t nitems,
                                int64_t position,
                                void *stream);

/**
 * Reads without copying: sets `*ptr` to the mapped bytes at offset `position` (the pointer
 * stays valid until the mapping is remapped by a growing write or destroyed; the caller must not
 * free it). Returns the number of whole items of `size` bytes available there, at most
 * `nitems`; 0 on a NULL argument, non-positive `size` or a position past the end.
 */
BLOSC_EXPORT
int64_t blosc2_stdio_mmap_read(void **ptr,
                               int64_t size,
                               int64_t nitems,
                               int64_t position,
                               void *stream);

/**
 * Sets the mapped file's size to `size` bytes (the file itself is not touched in mode "c").
 * Returns 0, or -1 for a NULL stream, a negative size or a failed ftruncate.
 */
BLOSC_EXPORT int blosc2_stdio_mmap_truncate(void *stream, int64_t size);

/**
 * The memory-mapped backend's `destroy` callback: syncs (unless mode "c") and unmaps the
 * mapping, closes the file, and frees `params` itself when its `needs_free` is set. Returns 0,
 * or -1 when `params` is NULL or unmapping/closing failed.
 */
BLOSC_EXPORT int blosc2_stdio_mmap_destroy(void *params);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#ifdef __cplusplus
extern "C" {
#endif

/* Default filesystem I/O parameters (no locking). */
static const blosc2_stdio_params BLOSC2_STDIO_PARAMS_DEFAULTS = {false};

/* Default memory-mapped I/O parameters: read-only, 1 GiB initial mapping. */
static const blosc2_stdio_mmap BLOSC2_STDIO_MMAP_DEFAULTS = {
  "r", ((size_t)1 << 30), false, NULL, NULL, 0, 0, false, NULL, -1, -1, -1
#if defined(_WIN32)
  , INVALID_HANDLE_VALUE
#endif
};

#ifdef __cplusplus
}
#endif

#endif /* BLOSC_BLOSC2_BLOSC2_STDIO_H */
