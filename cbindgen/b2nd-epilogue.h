#ifdef __cplusplus
extern "C" {
#endif
/**
 * Adds new dimensions of extent 1 to `array`, as a view: `axis` holds `final_dims` flags, true
 * for a new axis; its false entries take `array`'s dimensions in order (exactly ndim of them,
 * else BLOSC2_ERROR_INVALID_PARAM). `*view` receives the view, which shares `array`'s chunks
 * as the views of b2nd_squeeze_index do; release it with b2nd_free (in either order with
 * `array`). Returns 0 or a negative code (BLOSC2_ERROR_NULL_POINTER,
 * BLOSC2_ERROR_INVALID_PARAM).
 */
BLOSC_EXPORT int b2nd_expand_dims(const b2nd_array_t *array, b2nd_array_t **view, const bool *axis,
                                  const uint8_t final_dims);

/* Fail with BLOSC2_ERROR_FAILURE unless nbytes more bytes are left after pmeta in smeta[0..smeta_len). */
#define B2ND_REQUIRE_META_NBYTES(nbytes)                                             \
  do {                                                                               \
    size_t used_ = (size_t)(pmeta - smeta);                                          \
    if (used_ > (size_t)smeta_len || (size_t)smeta_len - used_ < (size_t)(nbytes)) { \
      BLOSC_TRACE_ERROR("Truncated b2nd metalayer");                                 \
      return BLOSC2_ERROR_FAILURE;                                                   \
    }                                                                                \
  } while (0)

/* Parse the msgpack "b2nd" metalayer (see README_B2ND_METALAYER.rst).  Fills ndim and the first
   ndim entries of shape, chunkshape and blockshape; when both dtype and dtype_format are given,
   *dtype becomes a malloc'd NUL-terminated copy of the dtype (NULL when absent).  Returns the
   number of bytes parsed or a negative error code.  Inline so that plugins can use it without
   linking libblosc2. */
static inline int b2nd_deserialize_meta_inline(const uint8_t *smeta, int32_t smeta_len, int8_t *ndim,
                                               int64_t *shape, int32_t *chunkshape, int32_t *blockshape,
                                               char **dtype, int8_t *dtype_format) {
  BLOSC_ERROR_NULL(smeta, BLOSC2_ERROR_NULL_POINTER);
  BLOSC_ERROR_NULL(ndim, BLOSC2_ERROR_NULL_POINTER);
  BLOSC_ERROR_NULL(shape, BLOSC2_ERROR_NULL_POINTER);
  BLOSC_ERROR_NULL(chunkshape, BLOSC2_ERROR_NULL_POINTER);
  BLOSC_ERROR_NULL(blockshape, BLOSC2_ERROR_NULL_POINTER);
  if (dtype != NULL) {
    *dtype = NULL;
  }
  if (dtype_format != NULL) {
    *dtype_format = 0;
  }
  if (smeta_len <= 0) {
    BLOSC_TRACE_ERROR("Empty b2nd metalayer");
    return BLOSC2_ERROR_FAILURE;
  }
  const uint8_t *pmeta = smeta;

  /* fixarray marker, version fixnum, ndim fixnum */
  B2ND_REQUIRE_META_NBYTES(3);
  pmeta += 2;
  int8_t nd = (int8_t)pmeta[0];
  if (nd < 0 || nd > B2ND_MAX_DIM) {
    BLOSC_TRACE_ERROR("b2nd ndim %d out of range", nd);
    return BLOSC2_ERROR_FAILURE;
  }
  *ndim = nd;
  pmeta += 1;

  /* shape: fixarray of int64 (0xd3 + 8 big-endian bytes each) */
  B2ND_REQUIRE_META_NBYTES(1);
  pmeta += 1;
  for (int i = 0; i < nd; i++) {
    B2ND_REQUIRE_META_NBYTES(1 + sizeof(int64_t));
    swap_store(&shape[i], pmeta + 1, sizeof(int64_t));
    pmeta += 1 + sizeof(int64_t);
  }
  /* chunkshape and blockshape: fixarrays of int32 (0xd2 + 4 big-endian bytes each) */
  B2ND_REQUIRE_META_NBYTES(1);
  pmeta += 1;
  for (int i = 0; i < nd; i++) {
    B2ND_REQUIRE_META_NBYTES(1 + sizeof(int32_t));
    swap_store(&chunkshape[i], pmeta + 1, sizeof(int32_t));
    pmeta += 1 + sizeof(int32_t);
  }
  B2ND_REQUIRE_META_NBYTES(1);
  pmeta += 1;
  for (int i = 0; i < nd; i++) {
    B2ND_REQUIRE_META_NBYTES(1 + sizeof(int32_t));
    swap_store(&blockshape[i], pmeta + 1, sizeof(int32_t));
    pmeta += 1 + sizeof(int32_t);
  }

  /* dtype_format fixnum + str32 dtype; absent in legacy caterva metalayers */
  if (dtype == NULL || dtype_format == NULL || pmeta - smeta >= smeta_len) {
    return (int)(pmeta - smeta);
  }
  B2ND_REQUIRE_META_NBYTES(2 + sizeof(int32_t));
  int8_t format = (int8_t)pmeta[0];
  if (format < 0 || pmeta[1] != 0xdb) {
    BLOSC_TRACE_ERROR("Malformed b2nd dtype entry");
    return BLOSC2_ERROR_FAILURE;
  }
  pmeta += 2;
  int32_t dtype_len;
  swap_store(&dtype_len, pmeta, sizeof(int32_t));
  pmeta += sizeof(int32_t);
  if (dtype_len < 0) {
    BLOSC_TRACE_ERROR("Negative b2nd dtype length");
    return BLOSC2_ERROR_FAILURE;
  }
  B2ND_REQUIRE_META_NBYTES(dtype_len);
  char *copy = (char *)malloc((size_t)dtype_len + 1);
  BLOSC_ERROR_NULL(copy, BLOSC2_ERROR_MEMORY_ALLOC);
  memcpy(copy, pmeta, (size_t)dtype_len);
  copy[dtype_len] = '\0';
  pmeta += dtype_len;
  *dtype = copy;
  *dtype_format = format;
  return (int)(pmeta - smeta);
}

#undef B2ND_REQUIRE_META_NBYTES

#ifdef __cplusplus
}
#endif
