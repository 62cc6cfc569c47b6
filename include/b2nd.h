/* rblosc2: generated header, do not edit (see build.rs). */
#ifndef BLOSC_B2ND_H
#define BLOSC_B2ND_H

#include "blosc2/blosc2-export.h"
#include "blosc2.h"

#include <stdio.h>
#include <stdlib.h>

#if defined(_MSC_VER)
#  define B2ND_DEPRECATED(msg) __declspec(deprecated(msg))
#elif defined(__GNUC__) || defined(__clang__)
#  define B2ND_DEPRECATED(msg) __attribute__((deprecated(msg)))
#else
#  define B2ND_DEPRECATED(msg)
#endif

#define B2ND_DEFAULT_DTYPE "|u1"


#define B2ND_METALAYER_VERSION 0

#define B2ND_MAX_DIM 16

#define B2ND_MAX_METALAYERS (BLOSC2_MAX_METALAYERS - 1)

#define DTYPE_NUMPY_FORMAT 0

#define B2ND_DEFAULT_DTYPE_FORMAT DTYPE_NUMPY_FORMAT

struct chunk_cache_s {
  uint8_t *data;
  int64_t nchunk;
};

typedef struct b2nd_array_t {
  blosc2_schunk *sc;
  int64_t shape[16];
  int32_t chunkshape[16];
  int64_t extshape[16];
  int32_t blockshape[16];
  int64_t extchunkshape[16];
  int64_t nitems;
  int32_t chunknitems;
  int64_t extnitems;
  int32_t blocknitems;
  int64_t extchunknitems;
  int8_t ndim;
  struct chunk_cache_s chunk_cache;
  int64_t item_array_strides[16];
  int64_t item_chunk_strides[16];
  int64_t item_extchunk_strides[16];
  int64_t item_block_strides[16];
  int64_t block_chunk_strides[16];
  int64_t chunk_array_strides[16];
  char *dtype;
  int8_t dtype_format;
  int64_t last_tick;
} b2nd_array_t;

typedef struct b2nd_context_s b2nd_context_t;

#ifdef __cplusplus
extern "C" {
#endif // __cplusplus

BLOSC_EXPORT
struct b2nd_context_s *b2nd_create_ctx(const blosc2_storage *b2_storage,
                                       int8_t ndim,
                                       const int64_t *shape,
                                       const int32_t *chunkshape,
                                       const int32_t *blockshape,
                                       const char *dtype,
                                       int8_t dtype_format,
                                       const blosc2_metalayer *metalayers,
                                       int32_t nmetalayers);

BLOSC_EXPORT int b2nd_free_ctx(struct b2nd_context_s *ctx);

BLOSC_EXPORT
int b2nd_serialize_meta(int8_t ndim,
                        const int64_t *shape,
                        const int32_t *chunkshape,
                        const int32_t *blockshape,
                        const char *dtype,
                        int8_t dtype_format,
                        uint8_t **smeta);

BLOSC_EXPORT
int b2nd_deserialize_meta(const uint8_t *smeta,
                          int32_t smeta_len,
                          int8_t *ndim,
                          int64_t *shape,
                          int32_t *chunkshape,
                          int32_t *blockshape,
                          char **dtype,
                          int8_t *dtype_format);

BLOSC_EXPORT
int b2nd_copy_buffer(int8_t ndim,
                     uint8_t itemsize,
                     const void *src,
                     const int64_t *src_pad_shape,
                     const int64_t *src_start,
                     const int64_t *src_stop,
                     void *dst,
                     const int64_t *dst_pad_shape,
                     const int64_t *dst_start);

BLOSC_EXPORT
int b2nd_copy_buffer2(int8_t ndim,
                      int32_t itemsize,
                      const void *src,
                      const int64_t *src_pad_shape,
                      const int64_t *src_start,
                      const int64_t *src_stop,
                      void *dst,
                      const int64_t *dst_pad_shape,
                      const int64_t *dst_start);

BLOSC_EXPORT int b2nd_uninit(struct b2nd_context_s *ctx, struct b2nd_array_t **array);

BLOSC_EXPORT int b2nd_empty(struct b2nd_context_s *ctx, struct b2nd_array_t **array);

BLOSC_EXPORT int b2nd_zeros(struct b2nd_context_s *ctx, struct b2nd_array_t **array);

BLOSC_EXPORT int b2nd_nans(struct b2nd_context_s *ctx, struct b2nd_array_t **array);

BLOSC_EXPORT
int b2nd_full(struct b2nd_context_s *ctx,
              struct b2nd_array_t **array,
              const void *fill_value);

BLOSC_EXPORT
int b2nd_from_cbuffer(struct b2nd_context_s *ctx,
                      struct b2nd_array_t **array,
                      const void *buffer,
                      int64_t buffersize);

BLOSC_EXPORT int b2nd_from_schunk(blosc2_schunk *schunk, struct b2nd_array_t **array);

BLOSC_EXPORT
int b2nd_from_cframe(uint8_t *cframe,
                     int64_t cframe_len,
                     bool copy,
                     struct b2nd_array_t **array);

BLOSC_EXPORT int b2nd_open(const char *urlpath, struct b2nd_array_t **array);

BLOSC_EXPORT int b2nd_open_offset(const char *urlpath, struct b2nd_array_t **array, int64_t offset);

BLOSC_EXPORT int b2nd_free(struct b2nd_array_t *array);

BLOSC_EXPORT
int b2nd_to_cframe(const struct b2nd_array_t *array,
                   uint8_t **cframe,
                   int64_t *cframe_len,
                   bool *needs_free);

BLOSC_EXPORT int b2nd_save(const struct b2nd_array_t *array, char *urlpath);

BLOSC_EXPORT int64_t b2nd_save_append(const struct b2nd_array_t *array, const char *urlpath);

BLOSC_EXPORT int b2nd_print_meta(const struct b2nd_array_t *array);

BLOSC_EXPORT
int b2nd_to_cbuffer(const struct b2nd_array_t *array,
                    void *buffer,
                    int64_t buffersize);

BLOSC_EXPORT
int b2nd_get_slice_cbuffer(const struct b2nd_array_t *array,
                           const int64_t *start,
                           const int64_t *stop,
                           void *buffer,
                           const int64_t *buffershape,
                           int64_t buffersize);

BLOSC_EXPORT
int b2nd_set_slice_cbuffer(const void *buffer,
                           const int64_t *buffershape,
                           int64_t buffersize,
                           const int64_t *start,
                           const int64_t *stop,
                           struct b2nd_array_t *array);

BLOSC_EXPORT
int b2nd_get_sparse_cbuffer(const struct b2nd_array_t *array,
                            int64_t ncoords,
                            const int64_t *coords,
                            void *buffer,
                            int64_t buffersize);

BLOSC_EXPORT
int b2nd_get_orthogonal_selection(const struct b2nd_array_t *array,
                                  int64_t **selection,
                                  int64_t *selection_size,
                                  void *buffer,
                                  int64_t *buffershape,
                                  int64_t buffersize);

BLOSC_EXPORT
int b2nd_set_orthogonal_selection(struct b2nd_array_t *array,
                                  int64_t **selection,
                                  int64_t *selection_size,
                                  const void *buffer,
                                  int64_t *buffershape,
                                  int64_t buffersize);

BLOSC_EXPORT
int b2nd_get_slice(struct b2nd_context_s *ctx,
                   struct b2nd_array_t **array,
                   const struct b2nd_array_t *src,
                   const int64_t *start,
                   const int64_t *stop);

BLOSC_EXPORT
int b2nd_copy(struct b2nd_context_s *ctx,
              const struct b2nd_array_t *src,
              struct b2nd_array_t **array);

/**
 * Joins `src2` to `src1` along `axis`, into a copy made with `ctx` or (`copy` false) into
 * `src1` itself. `src1` and `src2` may be the same array in both modes; in place, c-blosc2
 * 3.3.5 then reads the second half from the already grown array and fails part way
 * (-1 or -12, the array half written); here the array ends up holding its content twice.
 */
BLOSC_EXPORT
int b2nd_concatenate(struct b2nd_context_s *ctx,
                     const struct b2nd_array_t *src1,
                     const struct b2nd_array_t *src2,
                     int8_t axis,
                     bool copy,
                     struct b2nd_array_t **array);

/**
 * A view of `array` without the dimensions `index` marks (ndim entries; each marked dimension
 * must have extent 1, else BLOSC2_ERROR_INVALID_INDEX). The view shares `array`'s chunks:
 * writes through either show in both, and the two are freed with b2nd_free in either order.
 * Its `sc` is a super-chunk of its own in memory (`view` set, a b2nd metalayer of the view's
 * shape) that holds no chunks. A view cannot change its shape (BLOSC2_ERROR_INVALID_PARAM);
 * it follows its base's. When a dropped dimension has a chunk or block extent above 1 (its
 * chunks hold padding along it), the result is an in-memory copy instead: c-blosc2 3.3.5
 * returns a view that cannot read its items. For threads, a view and its base are one array:
 * calls on them must not overlap (as in c-blosc2, where they share one chunk list).
 */
BLOSC_EXPORT
int b2nd_squeeze_index(struct b2nd_array_t *array,
                       struct b2nd_array_t **view,
                       const bool *index);

/**
 * b2nd_squeeze_index with every dimension of extent 1 marked.
 */
BLOSC_EXPORT int b2nd_squeeze(struct b2nd_array_t *array, struct b2nd_array_t **view);

BLOSC_EXPORT
int b2nd_resize(struct b2nd_array_t *array,
                const int64_t *new_shape,
                const int64_t *start);

BLOSC_EXPORT
int b2nd_insert(struct b2nd_array_t *array,
                const void *buffer,
                int64_t buffersize,
                int8_t axis,
                int64_t insert_start);

BLOSC_EXPORT
int b2nd_append(struct b2nd_array_t *array,
                const void *buffer,
                int64_t buffersize,
                int8_t axis);

BLOSC_EXPORT
int b2nd_delete(struct b2nd_array_t *array,
                int8_t axis,
                int64_t delete_start,
                int64_t delete_len);

/**
 * Re-reads a disk-based array another handle changed: the super-chunk is refreshed
 * (`blosc2_schunk_refresh`: 1 when it changed, 0 when current or not on disk) and the public
 * fields follow the new shape; a changed ndim, chunk shape or block shape is
 * BLOSC2_ERROR_DATA. As in c-blosc2, the data functions (slices, selections, copies, shape
 * changes, save) do this first by themselves; calling it is for seeing another handle's shape
 * change without touching data. For a view (b2nd_squeeze, b2nd_expand_dims), its base's
 * super-chunk is refreshed and the view's fields follow its base's shape (1 when the view's
 * shape changed); a dimension the view dropped that grew past 1 is BLOSC2_ERROR_INVALID_PARAM.
 */
BLOSC_EXPORT int b2nd_refresh(struct b2nd_array_t *array);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#ifdef __cplusplus
extern "C" {
#endif
/* Add the new axes marked true in axis (final_dims entries; its false entries take array's
 * dimensions in order, exactly ndim of them, else BLOSC2_ERROR_INVALID_PARAM) to array, as a
 * view in *view: it shares array's chunks as the views of b2nd_squeeze_index do. */
BLOSC_EXPORT int b2nd_expand_dims(const b2nd_array_t *array, b2nd_array_t **view, const bool *axis,
                                  const uint8_t final_dims);
#ifdef __cplusplus
}
#endif

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

#endif /* BLOSC_B2ND_H */
