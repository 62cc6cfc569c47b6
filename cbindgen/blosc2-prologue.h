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

/* What blosc_timestamp_t needs, from the headers c-blosc2 includes for it on each platform
   (programs may rely on them being included). */
#if defined(_WIN32)
#  include <windows.h>
#elif defined(__MACH__) && defined(__APPLE__)
#  include <mach/clock.h>
#  include <mach/mach.h>
#  include <time.h>
#elif defined(__unix__) && defined(__linux__)
#  include <time.h>
#elif defined(__unix__)
#  include <sys/time.h>
#else
#  error "blosc2.h: blosc_timestamp_t is defined for Windows, macOS and Unix systems only"
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

/* Every enumerator of this enum is also in c-blosc 1.x's blosc.h: the whole enum is left out
   when that header came first (an enum with no enumerators is not valid C). */
#ifndef BLOSC_H
enum {
  BLOSC_ALWAYS_SPLIT = 1,
  BLOSC_NEVER_SPLIT = 2,
  BLOSC_AUTO_SPLIT = 3,
  BLOSC_FORWARD_COMPAT_SPLIT = 4,
};
#endif

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

