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
