#ifdef __cplusplus
extern "C" {
#endif
/**
 * Byte-shuffles the `blocksize` bytes at `src` into `dest` (both caller-owned, `blocksize` bytes
 * each): with `typesize`-byte items, byte j of every item is gathered into stream j, as the
 * shuffle filter does inside a block. Bytes past the last whole item are copied unchanged.
 * Returns `blocksize` (0 for 0), or BLOSC2_ERROR_INVALID_PARAM for a `typesize` outside 1..256
 * or a negative `blocksize`, BLOSC2_ERROR_NULL_POINTER for a NULL buffer.
 */
BLOSC_EXPORT int32_t blosc2_shuffle(const int32_t typesize, const int32_t blocksize, const void *src, void *dest);
/**
 * Undoes `blosc2_shuffle`: rebuilds the `typesize`-byte items of the `blocksize` bytes at `src`
 * into `dest`. Returns `blocksize`, or BLOSC2_ERROR_INVALID_PARAM / BLOSC2_ERROR_NULL_POINTER
 * as `blosc2_shuffle`.
 */
BLOSC_EXPORT int32_t blosc2_unshuffle(const int32_t typesize, const int32_t blocksize, const void *src, void *dest);
/**
 * Bit-shuffles the `blocksize` bytes at `src` into `dest`: bit j of every `typesize`-byte item is
 * gathered into bit-plane j (the bitshuffle filter). Returns `blocksize`, or
 * BLOSC2_ERROR_INVALID_PARAM for a `typesize` outside 1..256 or a negative `blocksize`,
 * BLOSC2_ERROR_NULL_POINTER for a NULL buffer.
 */
BLOSC_EXPORT int32_t blosc2_bitshuffle(const int32_t typesize, const int32_t blocksize, const void *src, void *dest);
/**
 * Undoes `blosc2_bitshuffle`. Returns `blocksize`, BLOSC2_ERROR_INVALID_PARAM for a `typesize`
 * below 1, BLOSC2_ERROR_FAILURE for a negative `blocksize` (as c-blosc2), or
 * BLOSC2_ERROR_NULL_POINTER for a NULL buffer.
 */
BLOSC_EXPORT int32_t blosc2_bitunshuffle(const int32_t typesize, const int32_t blocksize, const void *src, void *dest);

/* Default values for the parameter structs (also returned by blosc2_get_blosc2_*_defaults). */
static const blosc2_io BLOSC2_IO_DEFAULTS = {BLOSC2_IO_FILESYSTEM, "filesystem", NULL};

static const blosc2_cparams BLOSC2_CPARAMS_DEFAULTS = {
  BLOSC_BLOSCLZ, 0, 5, 0, 8, 1, 0, BLOSC_FORWARD_COMPAT_SPLIT, NULL,
  {0, 0, 0, 0, 0, BLOSC_SHUFFLE}, {0, 0, 0, 0, 0, 0},
  NULL, NULL, NULL, 0, 0, NULL, {NULL, NULL, NULL, NULL, NULL, NULL}};

static const blosc2_dparams BLOSC2_DPARAMS_DEFAULTS = {1, NULL, NULL, NULL, 8};

static const blosc2_storage BLOSC2_STORAGE_DEFAULTS = {false, NULL, NULL, NULL, NULL};

/* The message of an error code; kept for code written against older headers. */
static char *print_error(int rc) BLOSC_ATTRIBUTE_UNUSED;
static char *print_error(int rc) { return (char *)blosc2_error_string(rc); }

/* Index of the fixed-length metalayer `name` in schunk, or a negative error code.
   Inline so that plugins can read metalayers without linking libblosc2. */
static inline int blosc2_meta_exists(blosc2_schunk *schunk, const char *name) {
  if (schunk == NULL || name == NULL) {
    BLOSC_TRACE_ERROR("schunk and name must not be NULL");
    return BLOSC2_ERROR_INVALID_PARAM;
  }
  if (strlen(name) > BLOSC2_METALAYER_NAME_MAXLEN) {
    BLOSC_TRACE_ERROR("Metalayer names are at most %d chars", BLOSC2_METALAYER_NAME_MAXLEN);
    return BLOSC2_ERROR_INVALID_PARAM;
  }
  for (int i = 0; i < schunk->nmetalayers && i < BLOSC2_MAX_METALAYERS; i++) {
    const blosc2_metalayer *meta = schunk->metalayers[i];
    if (meta != NULL && meta->name != NULL && strcmp(name, meta->name) == 0) {
      return i;
    }
  }
  return BLOSC2_ERROR_NOT_FOUND;
}

/* Copy the content of metalayer `name` into a new malloc'd buffer (*content, freed by the caller)
   and its length into *content_len.  Returns the metalayer's index or a negative error code. */
static inline int blosc2_meta_get(blosc2_schunk *schunk, const char *name, uint8_t **content,
                                  int32_t *content_len) {
  if (schunk == NULL || name == NULL || content == NULL || content_len == NULL) {
    BLOSC_TRACE_ERROR("Invalid parameters");
    return BLOSC2_ERROR_INVALID_PARAM;
  }
  int index = blosc2_meta_exists(schunk, name);
  if (index < 0) {
    BLOSC_TRACE_WARNING("Metalayer \"%s\" not found", name);
    return index;
  }
  const blosc2_metalayer *meta = schunk->metalayers[index];
  int32_t len = meta->content_len;
  if (len < 0 || (len > 0 && meta->content == NULL)) {
    BLOSC_TRACE_ERROR("Metalayer \"%s\" is corrupted", name);
    return BLOSC2_ERROR_DATA;
  }
  *content = NULL;
  *content_len = len;
  if (len == 0) {
    return index;
  }
  *content = (uint8_t *)malloc((size_t)len);
  if (*content == NULL) {
    *content_len = 0;
    BLOSC_TRACE_ERROR("Cannot allocate the metalayer content");
    return BLOSC2_ERROR_MEMORY_ALLOC;
  }
  memcpy(*content, meta->content, (size_t)len);
  return index;
}

/* Store the size-byte big-endian value at pa into dest in native byte order (size 1, 2, 4 or 8). */
static inline void swap_store(void *dest, const void *pa, int size) {
  const uint8_t *src = (const uint8_t *)pa;
  uint8_t *dst = (uint8_t *)dest;
  const uint16_t probe = 1;
  const int little_endian = *(const uint8_t *)&probe == 1;
  if (size <= 0) {
    return;
  }
  for (int i = 0; i < size; i++) {
    dst[i] = little_endian ? src[size - 1 - i] : src[i];
  }
}

/* The defaults and helpers above are inside the extern "C" block too, as in c-blosc2. */
#ifdef __cplusplus
}
#endif
