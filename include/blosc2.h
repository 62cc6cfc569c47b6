/* rblosc2: generated header, do not edit (see build.rs). */
#ifndef BLOSC_BLOSC2_H
#define BLOSC_BLOSC2_H

#include "blosc2/blosc2-export.h"
#include "blosc2/blosc2-common.h"
#include "blosc2/blosc2-stdio.h"

#if defined(_WIN32) && !defined(__MINGW32__)
#  include <windows.h>
#  include <malloc.h>
#  include <process.h>
#  define getpid _getpid
#endif

#include <limits.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>

/* Programs written for c-blosc 1.x define BLOSC1_COMPAT to keep the old names. */
#ifdef BLOSC1_COMPAT
#  define BLOSC_VERSION_MAJOR BLOSC2_VERSION_MAJOR
#  define BLOSC_VERSION_MINOR BLOSC2_VERSION_MINOR
#  define BLOSC_VERSION_RELEASE BLOSC2_VERSION_RELEASE
#  define BLOSC_VERSION_STRING BLOSC2_VERSION_STRING
#  define BLOSC_VERSION_DATE BLOSC2_VERSION_DATE
#  define BLOSC_MAX_OVERHEAD BLOSC2_MAX_OVERHEAD
#  define BLOSC_MAX_BUFFERSIZE BLOSC2_MAX_BUFFERSIZE
#  define blosc_compress blosc1_compress
#  define blosc_decompress blosc1_decompress
#  define blosc_getitem blosc1_getitem
#  define blosc_get_compressor blosc1_get_compressor
#  define blosc_set_compressor blosc1_set_compressor
#  define blosc_cbuffer_sizes blosc1_cbuffer_sizes
#  define blosc_cbuffer_validate blosc1_cbuffer_validate
#  define blosc_cbuffer_metainfo blosc1_cbuffer_metainfo
#  define blosc_get_blocksize blosc1_get_blocksize
#  define blosc_set_blocksize blosc1_set_blocksize
#  define blosc_set_splitmode blosc1_set_splitmode
#  define blosc_init blosc2_init
#  define blosc_destroy blosc2_destroy
#  define blosc_free_resources blosc2_free_resources
#  define blosc_get_nthreads blosc2_get_nthreads
#  define blosc_set_nthreads blosc2_set_nthreads
#  define blosc_compcode_to_compname blosc2_compcode_to_compname
#  define blosc_compname_to_compcode blosc2_compname_to_compcode
#  define blosc_list_compressors blosc2_list_compressors
#  define blosc_get_version_string blosc2_get_version_string
#  define blosc_get_complib_info blosc2_get_complib_info
#  define blosc_cbuffer_versions blosc2_cbuffer_versions
#  define blosc_cbuffer_complib blosc2_cbuffer_complib
#endif

/* Diagnostics on stderr, only when the BLOSC_TRACE (or BLOSC_INFO) environment variable is set. */
#define BLOSC_TRACE_ERROR(msg, ...) BLOSC_TRACE(error, msg, ##__VA_ARGS__)
#define BLOSC_TRACE_WARNING(msg, ...) BLOSC_TRACE(warning, msg, ##__VA_ARGS__)
#define BLOSC_TRACE_INFO(msg, ...) BLOSC_TRACE(info, msg, ##__VA_ARGS__)
#define BLOSC_TRACE(cat, msg, ...)                                                   \
  do {                                                                               \
    if (getenv("BLOSC_TRACE") != NULL) {                                             \
      fprintf(stderr, "[%s] - " msg " (%s:%d)\n", #cat, ##__VA_ARGS__, __FILE__, __LINE__); \
    }                                                                                \
  } while (0)
#define BLOSC_INFO(msg, ...)                                                         \
  do {                                                                               \
    if (getenv("BLOSC_INFO") != NULL) {                                              \
      fprintf(stderr, "[INFO] - " msg "\n", ##__VA_ARGS__);                          \
    }                                                                                \
  } while (0)
/* Return rc from the calling function when pointer is NULL. */
#define BLOSC_ERROR_NULL(pointer, rc)                                                \
  do {                                                                               \
    if ((pointer) == NULL) {                                                         \
      BLOSC_TRACE_ERROR("Pointer is null");                                          \
      return (rc);                                                                   \
    }                                                                                \
  } while (0)
/* Return rc from the calling function when it is an error code. */
#define BLOSC_ERROR(rc)                                                              \
  do {                                                                               \
    int blosc_rc_ = (rc);                                                            \
    if (blosc_rc_ < BLOSC2_ERROR_SUCCESS) {                                          \
      BLOSC_TRACE_ERROR("%s", print_error(blosc_rc_));                               \
      return blosc_rc_;                                                              \
    }                                                                                \
  } while (0)

#ifdef __GNUC__
#  define BLOSC_ATTRIBUTE_UNUSED __attribute__((unused))
#else
#  define BLOSC_ATTRIBUTE_UNUSED
#endif

#define BLOSC2_VERSION_STRING "3.3.5"
#define BLOSC2_VERSION_DATE "$Date:: 2026-09-24 #$"

#ifndef BLOSC_H
#  define BLOSC_BLOSCLZ_COMPNAME "blosclz"
#  define BLOSC_LZ4_COMPNAME "lz4"
#  define BLOSC_LZ4HC_COMPNAME "lz4hc"
#  define BLOSC_ZLIB_COMPNAME "zlib"
#  define BLOSC_ZSTD_COMPNAME "zstd"
#  define BLOSC_BLOSCLZ_LIBNAME "BloscLZ"
#  define BLOSC_LZ4_LIBNAME "LZ4"
#  define BLOSC_ZLIB_LIBNAME "Zlib"
#  define BLOSC_ZSTD_LIBNAME "Zstd"
#endif

#if defined(_WIN32)
typedef LARGE_INTEGER blosc_timestamp_t;
#else
typedef struct timespec blosc_timestamp_t;
#endif

enum {
  BLOSC1_VERSION_FORMAT_PRE1 = 1,
  BLOSC1_VERSION_FORMAT = 2,
  BLOSC2_VERSION_FORMAT_ALPHA = 3,
  BLOSC2_VERSION_FORMAT_BETA1 = 4,
  BLOSC2_VERSION_FORMAT_STABLE = 5,
  BLOSC2_VERSION_FORMAT_VL_BLOCKS = 6,
  BLOSC2_VERSION_FORMAT = 6,
};

enum {
  BLOSC2_VERSION_FRAME_FORMAT_BETA2 = 1,
  BLOSC2_VERSION_FRAME_FORMAT_RC1 = 2,
  BLOSC2_VERSION_FRAME_FORMAT_VL_BLOCKS = 3,
  BLOSC2_VERSION_FRAME_FORMAT = 3,
};

enum {
#ifndef BLOSC_H
  BLOSC_MIN_HEADER_LENGTH = 16,
#endif
  BLOSC_EXTENDED_HEADER_LENGTH = 32,
  BLOSC2_MAX_OVERHEAD = 32,
  BLOSC2_MAX_BUFFERSIZE = 2147483615,
#ifndef BLOSC_H
  BLOSC_MAX_TYPESIZE = 255,
#endif
  BLOSC_MIN_BUFFERSIZE = 32,
};

enum {
  BLOSC2_DEFINED_TUNER_START = 0,
  BLOSC2_DEFINED_TUNER_STOP = 31,
  BLOSC2_GLOBAL_REGISTERED_TUNER_START = 32,
  BLOSC2_GLOBAL_REGISTERED_TUNER_STOP = 159,
  BLOSC2_GLOBAL_REGISTERED_TUNERS = 0,
  BLOSC2_USER_REGISTERED_TUNER_START = 160,
  BLOSC2_USER_REGISTERED_TUNER_STOP = 255,
};

enum {
  BLOSC_STUNE = 0,
  BLOSC_LAST_TUNER = 1,
  BLOSC_LAST_REGISTERED_TUNE = 31,
};

enum {
  BLOSC2_DEFINED_FILTERS_START = 0,
  BLOSC2_DEFINED_FILTERS_STOP = 31,
  BLOSC2_GLOBAL_REGISTERED_FILTERS_START = 32,
  BLOSC2_GLOBAL_REGISTERED_FILTERS_STOP = 159,
  BLOSC2_GLOBAL_REGISTERED_FILTERS = 5,
  BLOSC2_USER_REGISTERED_FILTERS_START = 160,
  BLOSC2_USER_REGISTERED_FILTERS_STOP = 255,
  BLOSC2_MAX_FILTERS = 6,
  BLOSC2_MAX_UDFILTERS = 16,
};

enum {
#ifndef BLOSC_H
  BLOSC_NOSHUFFLE = 0,
  BLOSC_NOFILTER = 0,
  BLOSC_SHUFFLE = 1,
  BLOSC_BITSHUFFLE = 2,
#endif
  BLOSC_DELTA = 3,
  BLOSC_TRUNC_PREC = 4,
  BLOSC_LAST_FILTER = 5,
  BLOSC_LAST_REGISTERED_FILTER = 36,
};

enum {
#ifndef BLOSC_H
  BLOSC_DOSHUFFLE = 1,
  BLOSC_MEMCPYED = 2,
  BLOSC_DOBITSHUFFLE = 4,
#endif
  BLOSC_DODELTA = 8,
};

enum {
  BLOSC2_USEDICT = 1,
  BLOSC2_BIGENDIAN = 2,
  BLOSC2_INSTR_CODEC = 128,
};

enum {
  BLOSC2_VL_BLOCKS = 1,
};

enum {
  BLOSC2_MAXDICTSIZE = 32768,
  BLOSC2_MINUSEFULDICT = 256,
  BLOSC2_MAXBLOCKSIZE = 536866816,
  BLOSC2_MAXTYPESIZE = 536866816,
};

enum {
  BLOSC2_DEFINED_CODECS_START = 0,
  BLOSC2_DEFINED_CODECS_STOP = 31,
  BLOSC2_GLOBAL_REGISTERED_CODECS_START = 32,
  BLOSC2_GLOBAL_REGISTERED_CODECS_STOP = 159,
  BLOSC2_GLOBAL_REGISTERED_CODECS = 5,
  BLOSC2_USER_REGISTERED_CODECS_START = 160,
  BLOSC2_USER_REGISTERED_CODECS_STOP = 255,
};

enum {
#ifndef BLOSC_H
  BLOSC_BLOSCLZ = 0,
  BLOSC_LZ4 = 1,
  BLOSC_LZ4HC = 2,
  BLOSC_ZLIB = 4,
  BLOSC_ZSTD = 5,
#endif
  BLOSC_LAST_CODEC = 6,
  BLOSC_LAST_REGISTERED_CODEC = 36,
};

enum {
#ifndef BLOSC_H
  BLOSC_BLOSCLZ_LIB = 0,
  BLOSC_LZ4_LIB = 1,
  BLOSC_ZLIB_LIB = 3,
  BLOSC_ZSTD_LIB = 4,
#endif
  BLOSC_UDCODEC_LIB = 6,
  BLOSC_SCHUNK_LIB = 7,
};

enum {
#ifndef BLOSC_H
  BLOSC_BLOSCLZ_FORMAT = 0,
  BLOSC_LZ4_FORMAT = 1,
  BLOSC_LZ4HC_FORMAT = 1,
  BLOSC_ZLIB_FORMAT = 3,
  BLOSC_ZSTD_FORMAT = 4,
#endif
  BLOSC_UDCODEC_FORMAT = 6,
};

enum {
#ifndef BLOSC_H
  BLOSC_BLOSCLZ_VERSION_FORMAT = 1,
  BLOSC_LZ4_VERSION_FORMAT = 1,
  BLOSC_LZ4HC_VERSION_FORMAT = 1,
  BLOSC_ZLIB_VERSION_FORMAT = 1,
  BLOSC_ZSTD_VERSION_FORMAT = 1,
#endif
  BLOSC_UDCODEC_VERSION_FORMAT = 1,
};

enum {
#ifndef BLOSC_H
  BLOSC_ALWAYS_SPLIT = 1,
  BLOSC_NEVER_SPLIT = 2,
  BLOSC_AUTO_SPLIT = 3,
  BLOSC_FORWARD_COMPAT_SPLIT = 4,
#endif
};

enum {
  BLOSC2_CHUNK_VERSION = 0,
  BLOSC2_CHUNK_VERSIONLZ = 1,
  BLOSC2_CHUNK_FLAGS = 2,
  BLOSC2_CHUNK_TYPESIZE = 3,
  BLOSC2_CHUNK_NBYTES = 4,
  BLOSC2_CHUNK_BLOCKSIZE = 8,
  BLOSC2_CHUNK_CBYTES = 12,
  BLOSC2_CHUNK_FILTER_CODES = 16,
  BLOSC2_CHUNK_FILTER_META = 24,
  BLOSC2_CHUNK_BLOSC2_FLAGS2 = 30,
  BLOSC2_CHUNK_BLOSC2_FLAGS = 31,
};

enum {
  BLOSC2_NO_SPECIAL = 0,
  BLOSC2_SPECIAL_ZERO = 1,
  BLOSC2_SPECIAL_NAN = 2,
  BLOSC2_SPECIAL_VALUE = 3,
  BLOSC2_SPECIAL_UNINIT = 4,
  BLOSC2_SPECIAL_LASTID = 4,
  BLOSC2_SPECIAL_MASK = 7,
};

enum {
  BLOSC2_ERROR_SUCCESS = 0,
  BLOSC2_ERROR_FAILURE = -1,
  BLOSC2_ERROR_STREAM = -2,
  BLOSC2_ERROR_DATA = -3,
  BLOSC2_ERROR_MEMORY_ALLOC = -4,
  BLOSC2_ERROR_READ_BUFFER = -5,
  BLOSC2_ERROR_WRITE_BUFFER = -6,
  BLOSC2_ERROR_CODEC_SUPPORT = -7,
  BLOSC2_ERROR_CODEC_PARAM = -8,
  BLOSC2_ERROR_CODEC_DICT = -9,
  BLOSC2_ERROR_VERSION_SUPPORT = -10,
  BLOSC2_ERROR_INVALID_HEADER = -11,
  BLOSC2_ERROR_INVALID_PARAM = -12,
  BLOSC2_ERROR_FILE_READ = -13,
  BLOSC2_ERROR_FILE_WRITE = -14,
  BLOSC2_ERROR_FILE_OPEN = -15,
  BLOSC2_ERROR_NOT_FOUND = -16,
  BLOSC2_ERROR_RUN_LENGTH = -17,
  BLOSC2_ERROR_FILTER_PIPELINE = -18,
  BLOSC2_ERROR_CHUNK_INSERT = -19,
  BLOSC2_ERROR_CHUNK_APPEND = -20,
  BLOSC2_ERROR_CHUNK_UPDATE = -21,
  BLOSC2_ERROR_2GB_LIMIT = -22,
  BLOSC2_ERROR_SCHUNK_COPY = -23,
  BLOSC2_ERROR_FRAME_TYPE = -24,
  BLOSC2_ERROR_FILE_TRUNCATE = -25,
  BLOSC2_ERROR_THREAD_CREATE = -26,
  BLOSC2_ERROR_POSTFILTER = -27,
  BLOSC2_ERROR_FRAME_SPECIAL = -28,
  BLOSC2_ERROR_SCHUNK_SPECIAL = -29,
  BLOSC2_ERROR_PLUGIN_IO = -30,
  BLOSC2_ERROR_FILE_REMOVE = -31,
  BLOSC2_ERROR_NULL_POINTER = -32,
  BLOSC2_ERROR_INVALID_INDEX = -33,
  BLOSC2_ERROR_METALAYER_NOT_FOUND = -34,
  BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED = -35,
  BLOSC2_ERROR_TUNER = -36,
  BLOSC2_ERROR_LOCK = -37,
};

enum {
  BLOSC2_IO_FILESYSTEM = 0,
  BLOSC2_IO_FILESYSTEM_MMAP = 1,
  BLOSC_IO_LAST_BLOSC_DEFINED = 2,
  BLOSC_IO_LAST_REGISTERED = 32,
};

enum {
  BLOSC2_IO_BLOSC_DEFINED = 32,
  BLOSC2_IO_REGISTERED = 160,
  BLOSC2_IO_USER_DEFINED = 256,
};



#define BLOSC2_VERSION_MAJOR 3

#define BLOSC2_VERSION_MINOR 3

#define BLOSC2_VERSION_RELEASE 5

#define BLOSC2_MAX_METALAYERS 16

#define BLOSC2_METALAYER_NAME_MAXLEN 31

#define BLOSC2_MAX_VLMETALAYERS (8 * 1024)

#define BLOSC2_VLMETALAYERS_NAME_MAXLEN BLOSC2_METALAYER_NAME_MAXLEN

typedef struct blosc2_prefilter_params {
  void *user_data;
  const uint8_t *input;
  uint8_t *output;
  int32_t output_size;
  int32_t output_typesize;
  int32_t output_offset;
  int64_t nchunk;
  int32_t nblock;
  int32_t tid;
  uint8_t *ttmp;
  size_t ttmp_nbytes;
  struct blosc2_context_s *ctx;
  bool output_is_disposable;
} blosc2_prefilter_params;

typedef int (*blosc2_prefilter_fn)(struct blosc2_prefilter_params*);

typedef struct blosc2_cparams {
  uint8_t compcode;
  uint8_t compcode_meta;
  uint8_t clevel;
  int use_dict;
  int32_t typesize;
  int16_t nthreads;
  int32_t blocksize;
  int32_t splitmode;
  void *schunk;
  uint8_t filters[6];
  uint8_t filters_meta[6];
  blosc2_prefilter_fn prefilter;
  struct blosc2_prefilter_params *preparams;
  void *tuner_params;
  int tuner_id;
  bool instr_codec;
  void *codec_params;
  void *filter_params[6];
} blosc2_cparams;

typedef struct blosc2_postfilter_params {
  void *user_data;
  const uint8_t *input;
  uint8_t *output;
  int32_t size;
  int32_t typesize;
  int32_t offset;
  int64_t nchunk;
  int32_t nblock;
  int32_t tid;
  uint8_t *ttmp;
  size_t ttmp_nbytes;
  struct blosc2_context_s *ctx;
} blosc2_postfilter_params;

typedef int (*blosc2_postfilter_fn)(struct blosc2_postfilter_params*);

typedef struct blosc2_dparams {
  int16_t nthreads;
  void *schunk;
  blosc2_postfilter_fn postfilter;
  struct blosc2_postfilter_params *postparams;
  int32_t typesize;
} blosc2_dparams;

typedef struct blosc2_io {
  uint8_t id;
  const char *name;
  void *params;
} blosc2_io;

typedef struct blosc2_storage {
  bool contiguous;
  char *urlpath;
  struct blosc2_cparams *cparams;
  struct blosc2_dparams *dparams;
  struct blosc2_io *io;
} blosc2_storage;

typedef void (*blosc_threads_callback)(void*, void(*)(void*), int, size_t, void*);

typedef int (*blosc2_codec_encoder_cb)(const uint8_t*,
                                       int32_t,
                                       uint8_t*,
                                       int32_t,
                                       uint8_t,
                                       struct blosc2_cparams*,
                                       const void*);

typedef int (*blosc2_codec_decoder_cb)(const uint8_t*,
                                       int32_t,
                                       uint8_t*,
                                       int32_t,
                                       uint8_t,
                                       struct blosc2_dparams*,
                                       const void*);

typedef struct blosc2_codec {
  uint8_t compcode;
  char *compname;
  uint8_t complib;
  uint8_t version;
  blosc2_codec_encoder_cb encoder;
  blosc2_codec_decoder_cb decoder;
} blosc2_codec;

typedef int (*blosc2_filter_forward_cb)(const uint8_t*,
                                        uint8_t*,
                                        int32_t,
                                        uint8_t,
                                        struct blosc2_cparams*,
                                        uint8_t);

typedef int (*blosc2_filter_backward_cb)(const uint8_t*,
                                         uint8_t*,
                                         int32_t,
                                         uint8_t,
                                         struct blosc2_dparams*,
                                         uint8_t);

typedef struct blosc2_filter {
  uint8_t id;
  char *name;
  uint8_t version;
  blosc2_filter_forward_cb forward;
  blosc2_filter_backward_cb backward;
} blosc2_filter;

typedef struct blosc2_metalayer {
  char *name;
  uint8_t *content;
  int32_t content_len;
} blosc2_metalayer;

typedef struct blosc2_schunk {
  uint8_t version;
  uint8_t compcode;
  uint8_t compcode_meta;
  uint8_t clevel;
  uint8_t splitmode;
  int32_t typesize;
  int32_t blocksize;
  int32_t chunksize;
  uint8_t flags2;
  uint8_t use_dict;
  uint8_t filters[6];
  uint8_t filters_meta[6];
  int64_t nchunks;
  int64_t current_nchunk;
  int64_t nbytes;
  int64_t cbytes;
  uint8_t **data;
  size_t data_len;
  struct blosc2_storage *storage;
  struct blosc2_frame_s *frame;
  struct blosc2_context_s *cctx;
  struct blosc2_context_s *dctx;
  struct blosc2_metalayer *metalayers[16];
  uint16_t nmetalayers;
  struct blosc2_metalayer *vlmetalayers[8192];
  int16_t nvlmetalayers;
  void *tuner_params;
  int tuner_id;
  int8_t ndim;
  int64_t *blockshape;
  bool view;
  int64_t change_tick;
} blosc2_schunk;

typedef void *(*blosc2_open_cb)(const char*, const char*, void*);

typedef int (*blosc2_close_cb)(void*);

typedef int64_t (*blosc2_size_cb)(void*);

typedef int64_t (*blosc2_write_cb)(const void*, int64_t, int64_t, int64_t, void*);

typedef int64_t (*blosc2_read_cb)(void**, int64_t, int64_t, int64_t, void*);

typedef int (*blosc2_truncate_cb)(void*, int64_t);

typedef int (*blosc2_destroy_cb)(void*);

typedef struct blosc2_io_cb {
  uint8_t id;
  char *name;
  bool is_allocation_necessary;
  blosc2_open_cb open;
  blosc2_close_cb close;
  blosc2_size_cb size;
  blosc2_write_cb write;
  blosc2_read_cb read;
  blosc2_truncate_cb truncate;
  blosc2_destroy_cb destroy;
} blosc2_io_cb;

typedef struct blosc2_tuner {
  int (*init)(void*, struct blosc2_context_s*, struct blosc2_context_s*);
  int (*next_blocksize)(struct blosc2_context_s*);
  int (*next_cparams)(struct blosc2_context_s*);
  int (*update)(struct blosc2_context_s*, double);
  int (*free)(struct blosc2_context_s*);
  int id;
  char *name;
} blosc2_tuner;

typedef struct blosc2_instr {
  float cratio;
  float cspeed;
  float filter_speed;
  uint8_t flags[4];
} blosc2_instr;

typedef struct blosc2_context_s blosc2_context;

typedef struct blosc2_frame_s blosc2_frame;

#ifdef __cplusplus
extern "C" {
#endif // __cplusplus

BLOSC_EXPORT void blosc2_init(void);

BLOSC_EXPORT void blosc2_destroy(void);

/**
 * Nothing is cached between calls outside contexts, so there is nothing to free.
 */
BLOSC_EXPORT int blosc2_free_resources(void);

BLOSC_EXPORT const char *blosc2_get_version_string(void);

BLOSC_EXPORT const char *blosc2_list_compressors(void);

BLOSC_EXPORT int blosc2_compcode_to_compname(int compcode, const char **compname);

BLOSC_EXPORT int blosc2_compname_to_compcode(const char *compname);

BLOSC_EXPORT int blosc2_get_complib_info(const char *compname, char **complib, char **version);

BLOSC_EXPORT int16_t blosc2_get_nthreads(void);

BLOSC_EXPORT int16_t blosc2_set_nthreads(int16_t nthreads);

BLOSC_EXPORT const char *blosc1_get_compressor(void);

BLOSC_EXPORT int blosc1_set_compressor(const char *compname);

BLOSC_EXPORT int blosc1_get_blocksize(void);

BLOSC_EXPORT void blosc1_set_blocksize(size_t blocksize);

BLOSC_EXPORT void blosc1_set_splitmode(int splitmode);

BLOSC_EXPORT void blosc2_set_delta(int dodelta);

BLOSC_EXPORT const char *blosc2_error_string(int error_code);

BLOSC_EXPORT struct blosc2_cparams blosc2_get_blosc2_cparams_defaults(void);

BLOSC_EXPORT struct blosc2_dparams blosc2_get_blosc2_dparams_defaults(void);

BLOSC_EXPORT struct blosc2_storage blosc2_get_blosc2_storage_defaults(void);

BLOSC_EXPORT struct blosc2_io blosc2_get_blosc2_io_defaults(void);

/**
 * Memory-mapped I/O defaults: read-only, 1 GiB initial mapping, nothing mapped or opened yet.
 */
BLOSC_EXPORT blosc2_stdio_mmap blosc2_get_blosc2_stdio_mmap_defaults(void);

BLOSC_EXPORT void blosc_set_timestamp(blosc_timestamp_t *timestamp);

BLOSC_EXPORT double blosc_elapsed_nsecs(blosc_timestamp_t start_time, blosc_timestamp_t end_time);

BLOSC_EXPORT double blosc_elapsed_secs(blosc_timestamp_t start_time, blosc_timestamp_t end_time);

BLOSC_EXPORT
void blosc2_multidim_to_unidim(const int64_t *index,
                               int8_t ndim,
                               const int64_t *strides,
                               int64_t *i);

BLOSC_EXPORT
void blosc2_unidim_to_multidim(uint8_t ndim,
                               int64_t *shape,
                               int64_t i,
                               int64_t *index);

BLOSC_EXPORT int blosc2_remove_dir(const char *path);

BLOSC_EXPORT int blosc2_remove_urlpath(const char *path);

BLOSC_EXPORT int blosc2_rename_urlpath(char *old_urlpath, char *new_path);

BLOSC_EXPORT struct blosc2_context_s *blosc2_create_cctx(struct blosc2_cparams cparams);

BLOSC_EXPORT struct blosc2_context_s *blosc2_create_dctx(struct blosc2_dparams dparams);

BLOSC_EXPORT void blosc2_free_ctx(struct blosc2_context_s *context);

BLOSC_EXPORT
int blosc2_ctx_get_cparams(struct blosc2_context_s *ctx,
                           struct blosc2_cparams *cparams);

BLOSC_EXPORT
int blosc2_ctx_get_dparams(struct blosc2_context_s *ctx,
                           struct blosc2_dparams *dparams);

BLOSC_EXPORT int blosc2_set_maskout(struct blosc2_context_s *ctx, bool *maskout, int nblocks);

BLOSC_EXPORT
int blosc2_compress_ctx(struct blosc2_context_s *context,
                        const void *src,
                        int32_t srcsize,
                        void *dest,
                        int32_t destsize);

BLOSC_EXPORT
int blosc2_decompress_ctx(struct blosc2_context_s *context,
                          const void *src,
                          int32_t srcsize,
                          void *dest,
                          int32_t destsize);

BLOSC_EXPORT
int blosc2_getitem_ctx(struct blosc2_context_s *context,
                       const void *src,
                       int32_t srcsize,
                       int start,
                       int nitems,
                       void *dest,
                       int32_t destsize);

BLOSC_EXPORT
int blosc2_getitem_bytes_ctx(struct blosc2_context_s *context,
                             const void *src,
                             int32_t srcsize,
                             int32_t start,
                             int32_t nbytes,
                             void *dest,
                             int32_t destsize);

BLOSC_EXPORT
int blosc2_compress(int clevel,
                    int doshuffle,
                    int32_t typesize,
                    const void *src,
                    int32_t srcsize,
                    void *dest,
                    int32_t destsize);

BLOSC_EXPORT int blosc2_decompress(const void *src, int32_t srcsize, void *dest, int32_t destsize);

BLOSC_EXPORT
int blosc2_getitem(const void *src,
                   int32_t srcsize,
                   int start,
                   int nitems,
                   void *dest,
                   int32_t destsize);

BLOSC_EXPORT
int blosc1_compress(int clevel,
                    int doshuffle,
                    size_t typesize,
                    size_t nbytes,
                    const void *src,
                    void *dest,
                    size_t destsize);

BLOSC_EXPORT int blosc1_decompress(const void *src, void *dest, size_t destsize);

BLOSC_EXPORT int blosc1_getitem(const void *src, int start, int nitems, void *dest);

/**
 * With a callback installed, contexts with several threads hand their blocks to it as
 * `nthreads` jobs (each job takes blocks until none is left) instead of to their worker pool;
 * NULL restores the pools.
 */
BLOSC_EXPORT void blosc2_set_threads_callback(blosc_threads_callback callback, void *callback_data);

BLOSC_EXPORT
int blosc2_cbuffer_sizes(const void *cbuffer,
                         int32_t *nbytes,
                         int32_t *cbytes,
                         int32_t *blocksize);

BLOSC_EXPORT
void blosc1_cbuffer_sizes(const void *cbuffer,
                          size_t *nbytes,
                          size_t *cbytes,
                          size_t *blocksize);

BLOSC_EXPORT int blosc1_cbuffer_validate(const void *cbuffer, size_t cbytes, size_t *nbytes);

BLOSC_EXPORT void blosc1_cbuffer_metainfo(const void *cbuffer, size_t *typesize, int *flags);

BLOSC_EXPORT void blosc2_cbuffer_versions(const void *cbuffer, int *version, int *versionlz);

BLOSC_EXPORT const char *blosc2_cbuffer_complib(const void *cbuffer);

BLOSC_EXPORT
int blosc2_chunk_zeros(struct blosc2_cparams cparams,
                       int32_t nbytes,
                       void *dest,
                       int32_t destsize);

BLOSC_EXPORT
int blosc2_chunk_nans(struct blosc2_cparams cparams,
                      int32_t nbytes,
                      void *dest,
                      int32_t destsize);

BLOSC_EXPORT
int blosc2_chunk_repeatval(struct blosc2_cparams cparams,
                           int32_t nbytes,
                           void *dest,
                           int32_t destsize,
                           const void *repeatval);

BLOSC_EXPORT
int blosc2_chunk_uninit(struct blosc2_cparams cparams,
                        int32_t nbytes,
                        void *dest,
                        int32_t destsize);

BLOSC_EXPORT
int blosc2_vlcompress_ctx(struct blosc2_context_s *context,
                          const void *const *srcs,
                          const int32_t *srcsizes,
                          int32_t nblocks,
                          void *dest,
                          int32_t destsize);

BLOSC_EXPORT
int blosc2_vldecompress_ctx(struct blosc2_context_s *context,
                            const void *src,
                            int32_t srcsize,
                            void **dests,
                            int32_t *destsizes,
                            int32_t maxblocks);

BLOSC_EXPORT int blosc2_vlchunk_get_nblocks(const void *src, int32_t srcsize, int32_t *nblocks);

BLOSC_EXPORT
int blosc2_vldecompress_block_ctx(struct blosc2_context_s *context,
                                  const void *src,
                                  int32_t srcsize,
                                  int32_t nblock,
                                  uint8_t **dest,
                                  int32_t *destsize);

BLOSC_EXPORT int blosc2_register_codec(struct blosc2_codec *codec);

BLOSC_EXPORT int blosc2_register_filter(struct blosc2_filter *filter);

BLOSC_EXPORT struct blosc2_schunk *blosc2_schunk_new(struct blosc2_storage *storage);

BLOSC_EXPORT
struct blosc2_schunk *blosc2_schunk_copy(struct blosc2_schunk *schunk,
                                         struct blosc2_storage *storage);

BLOSC_EXPORT int blosc2_schunk_free(struct blosc2_schunk *schunk);

BLOSC_EXPORT
void blosc2_schunk_avoid_cframe_free(struct blosc2_schunk *schunk,
                                     bool avoid_cframe_free);

/**
 * Compresses with the super-chunk's compression context (`cctx`, as c-blosc2 does) and
 * appends the chunk.
 */
BLOSC_EXPORT
int64_t blosc2_schunk_append_buffer(struct blosc2_schunk *schunk,
                                    const void *src,
                                    int32_t nbytes);

/**
 * Ownership as in c-blosc2: with `copy` false the super-chunk takes the (malloc'd) chunk and
 * frees it once stored.
 */
BLOSC_EXPORT
int64_t blosc2_schunk_append_chunk(struct blosc2_schunk *schunk,
                                   uint8_t *chunk,
                                   bool copy);

BLOSC_EXPORT
int64_t blosc2_schunk_insert_chunk(struct blosc2_schunk *schunk,
                                   int64_t nchunk,
                                   uint8_t *chunk,
                                   bool copy);

BLOSC_EXPORT
int64_t blosc2_schunk_update_chunk(struct blosc2_schunk *schunk,
                                   int64_t nchunk,
                                   uint8_t *chunk,
                                   bool copy);

BLOSC_EXPORT int64_t blosc2_schunk_delete_chunk(struct blosc2_schunk *schunk, int64_t nchunk);

BLOSC_EXPORT
int blosc2_schunk_decompress_chunk(struct blosc2_schunk *schunk,
                                   int64_t nchunk,
                                   void *dest,
                                   int32_t nbytes);

BLOSC_EXPORT
int blosc2_schunk_get_chunk(struct blosc2_schunk *schunk,
                            int64_t nchunk,
                            uint8_t **chunk,
                            bool *needs_free);

BLOSC_EXPORT
int blosc2_schunk_get_lazychunk(struct blosc2_schunk *schunk,
                                int64_t nchunk,
                                uint8_t **chunk,
                                bool *needs_free);

BLOSC_EXPORT
int blosc2_schunk_get_slice_buffer(struct blosc2_schunk *schunk,
                                   int64_t start,
                                   int64_t stop,
                                   void *buffer);

BLOSC_EXPORT
int blosc2_schunk_set_slice_buffer(struct blosc2_schunk *schunk,
                                   int64_t start,
                                   int64_t stop,
                                   void *buffer);

BLOSC_EXPORT
int blosc2_schunk_get_cparams(struct blosc2_schunk *schunk,
                              struct blosc2_cparams **cparams);

BLOSC_EXPORT
int blosc2_schunk_get_dparams(struct blosc2_schunk *schunk,
                              struct blosc2_dparams **dparams);

BLOSC_EXPORT
int blosc2_schunk_reorder_offsets(struct blosc2_schunk *schunk,
                                  int64_t *offsets_order);

BLOSC_EXPORT int64_t blosc2_schunk_frame_len(struct blosc2_schunk *schunk);

BLOSC_EXPORT
int64_t blosc2_schunk_fill_special(struct blosc2_schunk *schunk,
                                   int64_t nitems,
                                   int special_value,
                                   int32_t chunksize);

BLOSC_EXPORT
int blosc2_schunk_get_sparse_buffer(struct blosc2_schunk *schunk,
                                    int64_t ncoords,
                                    const int64_t *coords,
                                    void *buffer);

BLOSC_EXPORT
int blosc2_schunk_get_vlblock(struct blosc2_schunk *schunk,
                              int64_t nchunk,
                              int32_t nblock,
                              uint8_t **dest,
                              int32_t *destsize);

BLOSC_EXPORT
int64_t blosc2_get_slice_nchunks(struct blosc2_schunk *schunk,
                                 int64_t *start,
                                 int64_t *stop,
                                 int64_t **chunks_idx);

BLOSC_EXPORT int blosc2_schunk_lock(struct blosc2_schunk *schunk);

BLOSC_EXPORT int blosc2_schunk_unlock(struct blosc2_schunk *schunk);

BLOSC_EXPORT
struct blosc2_schunk *blosc2_schunk_from_buffer(uint8_t *cframe,
                                                int64_t len,
                                                bool copy);

/**
 * The super-chunk as a cframe: the in-memory frame itself (needs_free false) or a copy
 * (malloc'd, needs_free true).
 */
BLOSC_EXPORT
int64_t blosc2_schunk_to_buffer(struct blosc2_schunk *schunk,
                                uint8_t **cframe,
                                bool *needs_free);

BLOSC_EXPORT int64_t blosc2_schunk_to_file(struct blosc2_schunk *schunk, const char *urlpath);

BLOSC_EXPORT int64_t blosc2_schunk_append_file(struct blosc2_schunk *schunk, const char *urlpath);

BLOSC_EXPORT struct blosc2_schunk *blosc2_schunk_open(const char *urlpath);

BLOSC_EXPORT struct blosc2_schunk *blosc2_schunk_open_offset(const char *urlpath, int64_t offset);

BLOSC_EXPORT
struct blosc2_schunk *blosc2_schunk_open_udio(const char *urlpath,
                                              const struct blosc2_io *udio);

BLOSC_EXPORT
struct blosc2_schunk *blosc2_schunk_open_offset_udio(const char *urlpath,
                                                     int64_t offset,
                                                     const struct blosc2_io *udio);

BLOSC_EXPORT int64_t *blosc2_frame_get_offsets(struct blosc2_schunk *schunk);

/**
 * Re-reads a disk-based super-chunk that another handle changed: 1 when it did, 0 when it was
 * current (and for super-chunks not on disk).
 */
BLOSC_EXPORT int blosc2_schunk_refresh(struct blosc2_schunk *schunk);

BLOSC_EXPORT
int blosc2_meta_add(struct blosc2_schunk *schunk,
                    const char *name,
                    uint8_t *content,
                    int32_t content_len);

BLOSC_EXPORT
int blosc2_meta_update(struct blosc2_schunk *schunk,
                       const char *name,
                       uint8_t *content,
                       int32_t content_len);

BLOSC_EXPORT int blosc2_vlmeta_exists(struct blosc2_schunk *schunk, const char *name);

BLOSC_EXPORT
int blosc2_vlmeta_add(struct blosc2_schunk *schunk,
                      const char *name,
                      uint8_t *content,
                      int32_t content_len,
                      struct blosc2_cparams *cparams);

BLOSC_EXPORT
int blosc2_vlmeta_update(struct blosc2_schunk *schunk,
                         const char *name,
                         uint8_t *content,
                         int32_t content_len,
                         struct blosc2_cparams *cparams);

/**
 * The content is malloc'd (the caller frees it), as in c-blosc2.
 */
BLOSC_EXPORT
int blosc2_vlmeta_get(struct blosc2_schunk *schunk,
                      const char *name,
                      uint8_t **content,
                      int32_t *content_len);

BLOSC_EXPORT int blosc2_vlmeta_delete(struct blosc2_schunk *schunk, const char *name);

/**
 * Fills `names[0..nvlmetalayers]` with the names the super-chunk keeps (not copies, as in
 * c-blosc2); returns how many.
 */
BLOSC_EXPORT int blosc2_vlmeta_get_names(struct blosc2_schunk *schunk, char **names);

BLOSC_EXPORT int blosc2_register_io_cb(const struct blosc2_io_cb *io);

BLOSC_EXPORT struct blosc2_io_cb *blosc2_get_io_cb(uint8_t id);

BLOSC_EXPORT int blosc2_register_tuner(struct blosc2_tuner *tuner);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#ifdef __cplusplus
extern "C" {
#endif
/* Byte (un)shuffle and bit (un)shuffle of blocksize bytes of typesize-byte items. */
BLOSC_EXPORT int32_t blosc2_shuffle(const int32_t typesize, const int32_t blocksize, const void *src, void *dest);
BLOSC_EXPORT int32_t blosc2_unshuffle(const int32_t typesize, const int32_t blocksize, const void *src, void *dest);
BLOSC_EXPORT int32_t blosc2_bitshuffle(const int32_t typesize, const int32_t blocksize, const void *src, void *dest);
BLOSC_EXPORT int32_t blosc2_bitunshuffle(const int32_t typesize, const int32_t blocksize, const void *src, void *dest);
#ifdef __cplusplus
}
#endif

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

#endif /* BLOSC_BLOSC2_H */
