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

typedef struct {
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

/**
 * Creates the parameters for making b2nd arrays: storage `b2_storage` (NULL: in memory with
 * default compression parameters), `ndim` dimensions (up to `B2ND_MAX_DIM`), the array's
 * `shape`, its `chunkshape` and `blockshape` (each `ndim` entries), the item type `dtype`
 * (NULL: "|u1"-style default; a NUL-terminated string in format `dtype_format`, 0 for NumPy)
 * and `nmetalayers` extra metalayers to add to each array. Everything is copied, so the
 * arguments may go away. Returns the context, which the caller releases with `b2nd_free_ctx`
 * (arrays made from it do not keep it), or NULL on invalid parameters.
 */
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

/**
 * Releases a context made by `b2nd_create_ctx`. Returns 0, or BLOSC2_ERROR_NULL_POINTER for
 * NULL.
 */
BLOSC_EXPORT int b2nd_free_ctx(struct b2nd_context_s *ctx);

/**
 * Encodes the "b2nd" metalayer content for an array of `ndim` dimensions with `shape`,
 * `chunkshape`, `blockshape` and `dtype` (NULL: the default) in `dtype_format`. `*smeta`
 * receives a new buffer allocated with malloc that the caller frees with free(). Returns the
 * buffer's length in bytes, or a negative code (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_FAILURE
 * for a bad `dtype_format`, BLOSC2_ERROR_INVALID_PARAM for bad dimensions).
 */
BLOSC_EXPORT
int b2nd_serialize_meta(int8_t ndim,
                        const int64_t *shape,
                        const int32_t *chunkshape,
                        const int32_t *blockshape,
                        const char *dtype,
                        int8_t dtype_format,
                        uint8_t **smeta);

/**
 * Decodes the "b2nd" metalayer content `smeta` (`smeta_len` bytes): writes the number of
 * dimensions to `*ndim` and fills `shape`, `chunkshape` and `blockshape` (each with room for
 * `B2ND_MAX_DIM` entries). When `dtype` and `dtype_format` are both non-NULL, `*dtype_format`
 * receives the format and `*dtype` a new string allocated with malloc (the caller frees it with
 * free()), or NULL when the metalayer has no dtype. Returns the number of bytes decoded, or a
 * negative code (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_FAILURE or BLOSC2_ERROR_DATA for
 * content that is not a valid metalayer).
 */
BLOSC_EXPORT
int b2nd_deserialize_meta(const uint8_t *smeta,
                          int32_t smeta_len,
                          int8_t *ndim,
                          int64_t *shape,
                          int32_t *chunkshape,
                          int32_t *blockshape,
                          char **dtype,
                          int8_t *dtype_format);

/**
 * Copies the region `src_start` .. `src_stop` (per dimension, stop exclusive) of the C-ordered
 * `ndim`-dimensional buffer `src`, whose full shape is `src_pad_shape`, into the C-ordered
 * buffer `dst` of shape `dst_pad_shape` at position `dst_start`. Items are `itemsize` bytes (at
 * most 255; see `b2nd_copy_buffer2` for larger). Returns 0, or a negative code
 * (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_INVALID_PARAM for a region outside either buffer).
 */
BLOSC_EXPORT B2ND_DEPRECATED("Use b2nd_copy_buffer2 instead.")
int b2nd_copy_buffer(int8_t ndim,
                     uint8_t itemsize,
                     const void *src,
                     const int64_t *src_pad_shape,
                     const int64_t *src_start,
                     const int64_t *src_stop,
                     void *dst,
                     const int64_t *dst_pad_shape,
                     const int64_t *dst_start);

/**
 * As `b2nd_copy_buffer`, with an `int32_t` item size (items of any size). Returns 0 or a
 * negative code.
 */
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

/**
 * Creates an array as `ctx` describes whose content is undefined (stored as special
 * "uninitialised" chunks; reads give zeros here). `*array` receives it; the caller releases it with
 * `b2nd_free`. Returns 0, or a negative code (BLOSC2_ERROR_NULL_POINTER, invalid parameters,
 * a storage or file error).
 */
BLOSC_EXPORT int b2nd_uninit(struct b2nd_context_s *ctx, b2nd_array_t **array);

/**
 * Creates an array as `ctx` describes, "empty" in c-blosc2's sense: its content is not meant
 * to be read before being written; it is stored as special zero chunks (reads give zeros). `*array` receives it; the caller releases it with `b2nd_free`. Returns 0
 * or a negative code.
 */
BLOSC_EXPORT
int b2nd_empty(struct b2nd_context_s *ctx,
               b2nd_array_t **array);

/**
 * Creates an array as `ctx` describes filled with zero bytes (stored as special chunks, no
 * data). `*array` receives it; the caller releases it with `b2nd_free`. Returns 0 or a negative
 * code.
 */
BLOSC_EXPORT int b2nd_zeros(struct b2nd_context_s *ctx, b2nd_array_t **array);

/**
 * Creates an array as `ctx` describes filled with NaNs (the item size must be 4 or 8, float32 or
 * float64; else BLOSC2_ERROR_DATA). `*array` receives it; the caller releases it with
 * `b2nd_free`. Returns 0 or a negative code.
 */
BLOSC_EXPORT int b2nd_nans(struct b2nd_context_s *ctx, b2nd_array_t **array);

/**
 * Creates an array as `ctx` describes with every item equal to `fill_value` (one item of the
 * context's item size, copied). `*array` receives it; the caller releases it with `b2nd_free`.
 * Returns 0 or a negative code.
 */
BLOSC_EXPORT
int b2nd_full(struct b2nd_context_s *ctx,
              b2nd_array_t **array,
              const void *fill_value);

/**
 * Creates an array as `ctx` describes from the C-ordered buffer `buffer` of `buffersize` bytes
 * (exactly the array's item count times the item size; else BLOSC2_ERROR_INVALID_PARAM); the
 * buffer is copied and compressed. `*array` receives the array; the caller releases it with
 * `b2nd_free`. Returns 0 or a negative code.
 */
BLOSC_EXPORT
int b2nd_from_cbuffer(struct b2nd_context_s *ctx,
                      b2nd_array_t **array,
                      const void *buffer,
                      int64_t buffersize);

/**
 * Makes an array of the super-chunk `schunk`, which must carry a "b2nd" (or "caterva")
 * metalayer. The array takes ownership of `schunk`: `b2nd_free` frees it, so the caller must not
 * call `blosc2_schunk_free` on it. `*array` receives the array. Returns 0, or a negative code
 * (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_METALAYER_NOT_FOUND, BLOSC2_ERROR_DATA for a bad
 * metalayer).
 */
BLOSC_EXPORT int b2nd_from_schunk(blosc2_schunk *schunk, b2nd_array_t **array);

/**
 * Opens the contiguous frame `cframe` (`cframe_len` bytes) holding a b2nd array. With `copy`
 * true the array works on its own copy; with `copy` false it reads `cframe` in place, and the
 * caller keeps the buffer alive and unchanged until `b2nd_free` (and frees it afterwards).
 * `*array` receives the array; the caller releases it with `b2nd_free`. Returns 0 or a negative
 * code (invalid frame, missing metalayer).
 */
BLOSC_EXPORT
int b2nd_from_cframe(uint8_t *cframe,
                     int64_t cframe_len,
                     bool copy,
                     b2nd_array_t **array);

/**
 * Opens the array stored at `urlpath` (a contiguous frame file or a sparse frame directory).
 * Changes to the array are written back to it. `*array` receives the array; the caller releases
 * it with `b2nd_free` (which leaves the file on disk). Returns 0, or a negative code
 * (BLOSC2_ERROR_FILE_OPEN when it cannot be opened as a frame, BLOSC2_ERROR_METALAYER_NOT_FOUND,
 * ...).
 */
BLOSC_EXPORT int b2nd_open(const char *urlpath, b2nd_array_t **array);

/**
 * As `b2nd_open`, for a frame that starts `offset` bytes into the file (see `b2nd_save_append`).
 * Returns 0 or a negative code.
 */
BLOSC_EXPORT int b2nd_open_offset(const char *urlpath, b2nd_array_t **array, int64_t offset);

/**
 * Releases `array`: its super-chunk (unless a view still shares it: the last of an array and its
 * views to be freed frees it) and its fields. Data on disk stays. Returns 0, or
 * BLOSC2_ERROR_NULL_POINTER for NULL.
 */
BLOSC_EXPORT int b2nd_free(b2nd_array_t *array);

/**
 * Serialises `array` as a contiguous frame: `*cframe` receives it, `*cframe_len` its length and
 * `*needs_free` who owns it, as for `blosc2_schunk_to_buffer` (true: a malloc'd copy the caller
 * frees with free(); false: the array's own buffer, valid while the array is unchanged, not to be
 * freed). Returns 0, or a negative code (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_FAILURE).
 */
BLOSC_EXPORT
int b2nd_to_cframe(const b2nd_array_t *array,
                   uint8_t **cframe,
                   int64_t *cframe_len,
                   bool *needs_free);

/**
 * Writes a copy of `array` to `urlpath` (a contiguous frame file, or a sparse frame directory
 * when the array is sparse or a view). The array itself is unchanged. Returns 0, or a negative
 * code (BLOSC2_ERROR_NULL_POINTER, a file error).
 */
BLOSC_EXPORT int b2nd_save(const b2nd_array_t *array, char *urlpath);

/**
 * Appends `array`, as a contiguous frame, to the end of the file `urlpath` (created if needed).
 * Returns the offset in the file where the frame starts (for `b2nd_open_offset`), or a negative
 * code (BLOSC2_ERROR_NULL_POINTER, a file error).
 */
BLOSC_EXPORT int64_t b2nd_save_append(const b2nd_array_t *array, const char *urlpath);

/**
 * Prints the array's "b2nd" metalayer (dimensions, shapes, dtype) to stdout, for debugging.
 * Returns 0, or a negative code (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_METALAYER_NOT_FOUND).
 */
BLOSC_EXPORT int b2nd_print_meta(const b2nd_array_t *array);

/**
 * Decompresses the whole `array` into the C-ordered buffer `buffer` of `buffersize` bytes (at
 * least the item count times the item size). Returns 0, or a negative code
 * (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_INVALID_PARAM when `buffersize` is too small, a
 * decompression error).
 */
BLOSC_EXPORT
int b2nd_to_cbuffer(const b2nd_array_t *array,
                    void *buffer,
                    int64_t buffersize);

/**
 * Decompresses the region `start` .. `stop` (one entry per dimension, stop exclusive) of
 * `array` into `buffer`, a C-ordered buffer of shape `buffershape` (which must be at least the
 * region's shape) and `buffersize` bytes; the region is written at the buffer's origin. Returns
 * 0, or a negative code (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_INVALID_PARAM for a region
 * outside the array or a buffer too small, a decompression error).
 */
BLOSC_EXPORT
int b2nd_get_slice_cbuffer(const b2nd_array_t *array,
                           const int64_t *start,
                           const int64_t *stop,
                           void *buffer,
                           const int64_t *buffershape,
                           int64_t buffersize);

/**
 * Writes the C-ordered `buffer` (shape `buffershape`, `buffersize` bytes) into the region
 * `start` .. `stop` (stop exclusive) of `array`, recompressing the chunks involved. The buffer is
 * only read. Returns 0, or a negative code (BLOSC2_ERROR_NULL_POINTER,
 * BLOSC2_ERROR_INVALID_PARAM for a region outside the array or a buffer too small, a compression
 * or storage error).
 */
BLOSC_EXPORT
int b2nd_set_slice_cbuffer(const void *buffer,
                           const int64_t *buffershape,
                           int64_t buffersize,
                           const int64_t *start,
                           const int64_t *stop,
                           b2nd_array_t *array);

/**
 * Decompresses the `ncoords` items whose coordinates are in `coords` (`ncoords * ndim` entries,
 * one item after another) into `buffer` (`buffersize` bytes, at least `ncoords` items). Returns
 * 0, or a negative code (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_INVALID_PARAM for a coordinate
 * outside the array or a buffer too small).
 */
BLOSC_EXPORT
int b2nd_get_sparse_cbuffer(const b2nd_array_t *array,
                            int64_t ncoords,
                            const int64_t *coords,
                            void *buffer,
                            int64_t buffersize);

/**
 * Reads an orthogonal selection of `array`: for each dimension d, `selection[d]` lists
 * `selection_size[d]` indexes along it; the result (every combination, C order) goes to
 * `buffer`, of shape `buffershape` (`selection_size`) and `buffersize` bytes. Returns 0, or a
 * negative code (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_INVALID_PARAM for an index out of
 * range or a buffer too small).
 */
BLOSC_EXPORT
int b2nd_get_orthogonal_selection(const b2nd_array_t *array,
                                  int64_t **selection,
                                  int64_t *selection_size,
                                  void *buffer,
                                  int64_t *buffershape,
                                  int64_t buffersize);

/**
 * Writes `buffer` (shape `buffershape`, `buffersize` bytes) to the orthogonal selection of
 * `array` that `selection` / `selection_size` describe (as in `b2nd_get_orthogonal_selection`).
 * Returns 0 or a negative code.
 */
BLOSC_EXPORT
int b2nd_set_orthogonal_selection(b2nd_array_t *array,
                                  int64_t **selection,
                                  int64_t *selection_size,
                                  const void *buffer,
                                  int64_t *buffershape,
                                  int64_t buffersize);

/**
 * Creates a new array, with the storage and shapes `ctx` gives (its shape is replaced by the
 * region's), holding a copy of the region `start` .. `stop` (stop exclusive) of `src`. `*array`
 * receives it; the caller releases it with `b2nd_free`. Returns 0, or a negative code
 * (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_INVALID_PARAM for a region outside `src`, ...).
 */
BLOSC_EXPORT
int b2nd_get_slice(struct b2nd_context_s *ctx,
                   b2nd_array_t **array,
                   const b2nd_array_t *src,
                   const int64_t *start,
                   const int64_t *stop);

/**
 * Copies `src` into a new array with the storage, chunk shape and block shape `ctx` gives
 * (chunks are reused as they are when the layouts match). `*array` receives the copy; the caller
 * releases it with `b2nd_free`. Returns 0 or a negative code.
 */
BLOSC_EXPORT
int b2nd_copy(struct b2nd_context_s *ctx,
              const b2nd_array_t *src,
              b2nd_array_t **array);

/**
 * Joins `src2` to `src1` along `axis`, into a copy made with `ctx` or (`copy` false) into
 * `src1` itself. `src1` and `src2` may be the same array in both modes; in place, c-blosc2
 * 3.3.5 then reads the second half from the already grown array and fails part way
 * (-1 or -12, the array half written); here the array ends up holding its content twice.
 */
BLOSC_EXPORT
int b2nd_concatenate(struct b2nd_context_s *ctx,
                     const b2nd_array_t *src1,
                     const b2nd_array_t *src2,
                     int8_t axis,
                     bool copy,
                     b2nd_array_t **array);

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
int b2nd_squeeze_index(b2nd_array_t *array,
                       b2nd_array_t **view,
                       const bool *index);

/**
 * b2nd_squeeze_index with every dimension of extent 1 marked.
 */
BLOSC_EXPORT int b2nd_squeeze(b2nd_array_t *array, b2nd_array_t **view);

/**
 * Changes the shape of `array` to `new_shape` (`ndim` entries). A dimension that grows gets new
 * zero items at `start[d]` (NULL `start`: at the end); one that shrinks loses items from
 * `start[d]` (NULL: from the end). Away from the end, `start[d]` and the change must be
 * multiples of the chunk shape. Returns 0, or a negative code (BLOSC2_ERROR_NULL_POINTER,
 * BLOSC2_ERROR_INVALID_PARAM for a view, a misaligned start or a bad shape, a storage error).
 */
BLOSC_EXPORT
int b2nd_resize(b2nd_array_t *array,
                const int64_t *new_shape,
                const int64_t *start);

/**
 * Inserts the C-ordered `buffer` (`buffersize` bytes; its shape is the array's with
 * dimension `axis` set to what the size gives) into `array` along `axis`, at index
 * `insert_start`. Returns 0, or a negative code (BLOSC2_ERROR_NULL_POINTER,
 * BLOSC2_ERROR_INVALID_PARAM for a bad axis, position or size).
 */
BLOSC_EXPORT
int b2nd_insert(b2nd_array_t *array,
                const void *buffer,
                int64_t buffersize,
                int8_t axis,
                int64_t insert_start);

/**
 * Appends the C-ordered `buffer` (`buffersize` bytes) to `array` along `axis` (as `b2nd_insert`
 * at the end of that axis). Returns 0 or a negative code.
 */
BLOSC_EXPORT
int b2nd_append(b2nd_array_t *array,
                const void *buffer,
                int64_t buffersize,
                int8_t axis);

/**
 * Removes `delete_len` items along `axis`, starting at index `delete_start`, from `array`.
 * Returns 0, or a negative code (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_INVALID_PARAM for a bad
 * axis or range).
 */
BLOSC_EXPORT
int b2nd_delete(b2nd_array_t *array,
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
BLOSC_EXPORT int b2nd_refresh(b2nd_array_t *array);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

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

#endif /* BLOSC_B2ND_H */
