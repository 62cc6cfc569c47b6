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



#define BLOSC2_VERSION_MAJOR 3  /* major: changes that break the interface or the formats */

#define BLOSC2_VERSION_MINOR 3  /* minor: compatible additions to the interface or the formats */

#define BLOSC2_VERSION_RELEASE 5  /* tweaks: bug fixes and other compatible changes */

#define BLOSC2_MAX_METALAYERS 16

#define BLOSC2_METALAYER_NAME_MAXLEN 31

#define BLOSC2_MAX_VLMETALAYERS (8 * 1024)

#define BLOSC2_VLMETALAYERS_NAME_MAXLEN BLOSC2_METALAYER_NAME_MAXLEN

typedef struct {
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

typedef int (*blosc2_prefilter_fn)(blosc2_prefilter_params*);

typedef struct {
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
  blosc2_prefilter_params *preparams;
  void *tuner_params;
  int tuner_id;
  bool instr_codec;
  void *codec_params;
  void *filter_params[6];
} blosc2_cparams;

typedef struct {
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

typedef int (*blosc2_postfilter_fn)(blosc2_postfilter_params*);

typedef struct {
  int16_t nthreads;
  void *schunk;
  blosc2_postfilter_fn postfilter;
  blosc2_postfilter_params *postparams;
  int32_t typesize;
} blosc2_dparams;

typedef struct {
  uint8_t id;
  const char *name;
  void *params;
} blosc2_io;

typedef struct {
  bool contiguous;
  char *urlpath;
  blosc2_cparams *cparams;
  blosc2_dparams *dparams;
  blosc2_io *io;
} blosc2_storage;

typedef void (*blosc_threads_callback)(void*, void(*)(void*), int, size_t, void*);

typedef int (*blosc2_codec_encoder_cb)(const uint8_t*,
                                       int32_t,
                                       uint8_t*,
                                       int32_t,
                                       uint8_t,
                                       blosc2_cparams*,
                                       const void*);

typedef int (*blosc2_codec_decoder_cb)(const uint8_t*,
                                       int32_t,
                                       uint8_t*,
                                       int32_t,
                                       uint8_t,
                                       blosc2_dparams*,
                                       const void*);

typedef struct {
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
                                        blosc2_cparams*,
                                        uint8_t);

typedef int (*blosc2_filter_backward_cb)(const uint8_t*,
                                         uint8_t*,
                                         int32_t,
                                         uint8_t,
                                         blosc2_dparams*,
                                         uint8_t);

typedef struct {
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
  blosc2_storage *storage;
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

typedef struct {
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

typedef struct {
  int (*init)(void*, struct blosc2_context_s*, struct blosc2_context_s*);
  int (*next_blocksize)(struct blosc2_context_s*);
  int (*next_cparams)(struct blosc2_context_s*);
  int (*update)(struct blosc2_context_s*, double);
  int (*free)(struct blosc2_context_s*);
  int id;
  char *name;
} blosc2_tuner;

typedef struct {
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

/**
 * Initialises the library's global state (the settings of the global compression functions and
 * the tuner registry). Call it once before the other functions; calling it again while the
 * library is initialised does nothing. The global compression functions initialise the library
 * themselves when needed.
 */
BLOSC_EXPORT void blosc2_init(void);

/**
 * Marks the library uninitialised (the global settings keep their values, as in c-blosc2) and
 * lets the threads kept for the global thread count end. Contexts and super-chunks the program still holds stay valid and must still be freed by the
 * program; a later `blosc2_init` starts the tuner registry over.
 */
BLOSC_EXPORT
void blosc2_destroy(void);

/**
 * Lets the worker threads kept for the global thread count (see `blosc2_set_nthreads`) end once
 * no context uses them; the next call of the global API starts them again. Returns 0.
 */
BLOSC_EXPORT int blosc2_free_resources(void);

/**
 * The version of the c-blosc2 API this library implements ("3.3.5"). The string is static: do
 * not free or modify it.
 */
BLOSC_EXPORT const char *blosc2_get_version_string(void);

/**
 * The names of the built-in codecs, separated by commas (e.g. "blosclz,lz4,lz4hc,zlib,zstd").
 * The string is static: do not free or modify it.
 */
BLOSC_EXPORT const char *blosc2_list_compressors(void);

/**
 * Looks up the name of codec `compcode` (a built-in, a known plugin or a registered codec).
 * When `compname` is not NULL, `*compname` receives the name (a static string owned by the
 * library; do not free it) or NULL for an unknown code. Returns `compcode`, or -1 when no codec
 * has that code.
 */
BLOSC_EXPORT int blosc2_compcode_to_compname(int compcode, const char **compname);

/**
 * The code of the codec named `compname` (built-in, known plugin or registered), or -1 for an
 * unknown name or NULL.
 */
BLOSC_EXPORT int blosc2_compname_to_compcode(const char *compname);

/**
 * Information on the library behind codec `compname`: `*complib` receives its name (e.g.
 * "BloscLZ", "LZ4", "Zlib", "Zstd") and `*version` its version, both as strings allocated with
 * malloc that the caller releases with free(). Either output pointer may be NULL when not
 * wanted. Returns the codec's code, or -1 for an unknown codec (the outputs are then set to
 * NULL).
 */
BLOSC_EXPORT int blosc2_get_complib_info(const char *compname, char **complib, char **version);

/**
 * The number of threads set for the global compression functions (1 unless changed with
 * `blosc2_set_nthreads`; the BLOSC_NTHREADS variable, when set, wins at each call).
 */
BLOSC_EXPORT int16_t blosc2_get_nthreads(void);

/**
 * Sets the number of threads the global compression functions use (`nthreads` >= 1) and starts
 * them: they are kept between calls until `blosc2_free_resources` or `blosc2_destroy`. Returns the
 * previous number, BLOSC2_ERROR_INVALID_PARAM for `nthreads` <= 0, or
 * BLOSC2_ERROR_THREAD_CREATE when the threads cannot start (the setting unchanged).
 */
BLOSC_EXPORT int16_t blosc2_set_nthreads(int16_t nthreads);

/**
 * The name of the codec the global compression functions use (static string; do not free it),
 * or NULL when an unknown name was set.
 */
BLOSC_EXPORT const char *blosc1_get_compressor(void);

/**
 * Selects, by name, the codec the global compression functions use. Returns its code, -1 for an
 * unknown name (or NULL), or BLOSC2_ERROR_CODEC_SUPPORT for a codec that is known but not
 * built in.
 */
BLOSC_EXPORT int blosc1_set_compressor(const char *compname);

/**
 * The block size (bytes) set for the global compression functions, 0 meaning "chosen
 * automatically".
 */
BLOSC_EXPORT int blosc1_get_blocksize(void);

/**
 * Forces the block size (bytes) of the global compression functions; 0 goes back to choosing it
 * automatically.
 */
BLOSC_EXPORT void blosc1_set_blocksize(size_t blocksize);

/**
 * Sets the split mode of the global compression functions (one of the BLOSC_*_SPLIT values).
 * The value is not checked.
 */
BLOSC_EXPORT void blosc1_set_splitmode(int splitmode);

/**
 * Adds the delta filter to the pipeline of the global compression functions when `dodelta` is
 * positive, and removes it otherwise.
 */
BLOSC_EXPORT void blosc2_set_delta(int dodelta);

/**
 * A short English message for a (negative) BLOSC2_ERROR_* code, "Unknown error" for any other
 * value. The string is static: do not free or modify it.
 */
BLOSC_EXPORT const char *blosc2_error_string(int error_code);

/**
 * The default compression parameters, by value (the same as `BLOSC2_CPARAMS_DEFAULTS`).
 */
BLOSC_EXPORT blosc2_cparams blosc2_get_blosc2_cparams_defaults(void);

/**
 * The default decompression parameters, by value (the same as `BLOSC2_DPARAMS_DEFAULTS`).
 */
BLOSC_EXPORT blosc2_dparams blosc2_get_blosc2_dparams_defaults(void);

/**
 * The default storage, by value: in memory, not contiguous, default parameters (the same as
 * `BLOSC2_STORAGE_DEFAULTS`).
 */
BLOSC_EXPORT blosc2_storage blosc2_get_blosc2_storage_defaults(void);

/**
 * The default I/O backend, by value: the filesystem (the same as `BLOSC2_IO_DEFAULTS`).
 */
BLOSC_EXPORT blosc2_io blosc2_get_blosc2_io_defaults(void);

/**
 * Memory-mapped I/O defaults: read-only, 1 GiB initial mapping, nothing mapped or opened yet.
 */
BLOSC_EXPORT blosc2_stdio_mmap blosc2_get_blosc2_stdio_mmap_defaults(void);

/**
 * Stores the current time of the monotonic clock in `*timestamp` (nothing for NULL), for
 * `blosc_elapsed_nsecs` and `blosc_elapsed_secs`.
 */
BLOSC_EXPORT void blosc_set_timestamp(blosc_timestamp_t *timestamp);

/**
 * The time from `start_time` to `end_time` (both from `blosc_set_timestamp`), in nanoseconds.
 */
BLOSC_EXPORT double blosc_elapsed_nsecs(blosc_timestamp_t start_time, blosc_timestamp_t end_time);

/**
 * The time from `start_time` to `end_time` (both from `blosc_set_timestamp`), in seconds.
 */
BLOSC_EXPORT double blosc_elapsed_secs(blosc_timestamp_t start_time, blosc_timestamp_t end_time);

/**
 * Converts the `ndim`-dimensional `index` into a linear position, given the `strides` of each
 * dimension (in items), and writes it to `*i` (0 when `ndim` is 0). Nothing is written when a
 * pointer needed is NULL.
 */
BLOSC_EXPORT
void blosc2_multidim_to_unidim(const int64_t *index,
                               int8_t ndim,
                               const int64_t *strides,
                               int64_t *i);

/**
 * Converts the linear position `i` in an array of `shape` (`ndim` dimensions, C order) into an
 * `ndim`-dimensional index written to `index`. Nothing is written when a pointer is NULL or
 * `ndim` exceeds `B2ND_MAX_DIM`.
 */
BLOSC_EXPORT
void blosc2_unidim_to_multidim(uint8_t ndim,
                               int64_t *shape,
                               int64_t i,
                               int64_t *index);

/**
 * Removes the directory `path` and the files in it (one level, as a sparse frame's directory
 * holds). Returns 0, BLOSC2_ERROR_NOT_FOUND when the directory cannot be read,
 * BLOSC2_ERROR_NULL_POINTER for NULL, or BLOSC2_ERROR_FAILURE when removing fails.
 */
BLOSC_EXPORT int blosc2_remove_dir(const char *path);

/**
 * Removes what a super-chunk stored at `path`: a file (contiguous frame) or a directory (sparse
 * frame). A path that does not exist, or NULL, is not an error. Returns 0, or a negative code
 * (BLOSC2_ERROR_FILE_REMOVE, BLOSC2_ERROR_FAILURE) when removing fails.
 */
BLOSC_EXPORT int blosc2_remove_urlpath(const char *path);

/**
 * Renames the file or directory `old_urlpath` to `new_path`. Returns 0,
 * BLOSC2_ERROR_NULL_POINTER for a NULL argument, or BLOSC2_ERROR_FAILURE when the rename fails.
 */
BLOSC_EXPORT int blosc2_rename_urlpath(char *old_urlpath, char *new_path);

/**
 * Creates a compression context from `cparams` (copied; start from `BLOSC2_CPARAMS_DEFAULTS`).
 * BLOSC_NTHREADS, when set, overrides `cparams.nthreads`; the tuner named by `tuner_id` is
 * initialised on the new context. Returns the context, which the caller releases with
 * `blosc2_free_ctx`, or NULL when the parameters are invalid (bad clevel, typesize, codec or
 * filter) or memory runs out.
 */
BLOSC_EXPORT struct blosc2_context_s *blosc2_create_cctx(blosc2_cparams cparams);

/**
 * Creates a decompression context from `dparams` (copied; start from
 * `BLOSC2_DPARAMS_DEFAULTS`). BLOSC_NTHREADS, when set, overrides `dparams.nthreads`. Returns the
 * context, which the caller releases with `blosc2_free_ctx`, or NULL on invalid parameters or
 * when memory runs out.
 */
BLOSC_EXPORT struct blosc2_context_s *blosc2_create_dctx(blosc2_dparams dparams);

/**
 * Releases a context made by `blosc2_create_cctx` or `blosc2_create_dctx`, with its threads and
 * buffers (and runs its tuner's free callback). NULL is accepted and ignored. The context must not
 * be used afterwards.
 */
BLOSC_EXPORT void blosc2_free_ctx(struct blosc2_context_s *context);

/**
 * Copies the compression parameters of context `ctx` into `*cparams` (pointers in it, such as
 * `schunk` or `codec_params`, are the context's own: do not free them). Returns 0, or
 * BLOSC2_ERROR_NULL_POINTER for a NULL argument.
 */
BLOSC_EXPORT
int blosc2_ctx_get_cparams(struct blosc2_context_s *ctx,
                           blosc2_cparams *cparams);

/**
 * Copies the decompression parameters of context `ctx` into `*dparams`. Returns 0, or
 * BLOSC2_ERROR_NULL_POINTER for a NULL argument.
 */
BLOSC_EXPORT
int blosc2_ctx_get_dparams(struct blosc2_context_s *ctx,
                           blosc2_dparams *dparams);

/**
 * Sets, for the next decompression with the decompression context `ctx` only, which blocks to
 * skip: `maskout` holds `nblocks` flags (the chunk's number of blocks), true meaning "do not
 * decompress this block" (its bytes in the destination are left untouched). The flags are
 * copied. Returns 0, BLOSC2_ERROR_NULL_POINTER or BLOSC2_ERROR_INVALID_PARAM (negative
 * `nblocks`).
 */
BLOSC_EXPORT int blosc2_set_maskout(struct blosc2_context_s *ctx, bool *maskout, int nblocks);

/**
 * Compresses the `srcsize` bytes at `src` into a chunk written to `dest` (room for `destsize`
 * bytes), with the parameters of compression context `context`. Returns the size of the chunk
 * (> 0); 0 when it does not fit in `destsize` (a `destsize` of `srcsize + BLOSC2_MAX_OVERHEAD`
 * always suffices); or a negative code: BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_INVALID_PARAM,
 * BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED (over `BLOSC2_MAX_BUFFERSIZE`), BLOSC2_ERROR_CODEC_SUPPORT,
 * a filter or prefilter error. `src` and `dest` stay the caller's.
 */
BLOSC_EXPORT
int blosc2_compress_ctx(struct blosc2_context_s *context,
                        const void *src,
                        int32_t srcsize,
                        void *dest,
                        int32_t destsize);

/**
 * Decompresses the chunk at `src` (`srcsize` bytes) into `dest` (room for `destsize` bytes),
 * with decompression context `context` (a mask set with `blosc2_set_maskout` applies to this
 * call only). Returns the number of bytes written (the chunk's nbytes), or a negative code:
 * BLOSC2_ERROR_WRITE_BUFFER when `destsize` is smaller than the chunk's content,
 * BLOSC2_ERROR_READ_BUFFER / BLOSC2_ERROR_INVALID_HEADER for a short or damaged chunk,
 * BLOSC2_ERROR_NULL_POINTER, a codec or filter error.
 */
BLOSC_EXPORT
int blosc2_decompress_ctx(struct blosc2_context_s *context,
                          const void *src,
                          int32_t srcsize,
                          void *dest,
                          int32_t destsize);

/**
 * Decompresses items `start` .. `start + nitems` (in units of the chunk's typesize) of the chunk
 * at `src` (`srcsize` bytes) into `dest` (room for `destsize` bytes), decompressing only the
 * blocks they lie in. `context` may be a compression or a decompression context. Returns the
 * number of bytes written, or a negative code: BLOSC2_ERROR_WRITE_BUFFER when `dest` is too
 * small, BLOSC2_ERROR_INVALID_PARAM for a range outside the chunk, BLOSC2_ERROR_NULL_POINTER,
 * or a decompression error.
 */
BLOSC_EXPORT
int blosc2_getitem_ctx(struct blosc2_context_s *context,
                       const void *src,
                       int32_t srcsize,
                       int start,
                       int nitems,
                       void *dest,
                       int32_t destsize);

/**
 * As `blosc2_getitem_ctx`, with `start` and `nbytes` counted in bytes rather than items:
 * writes `nbytes` bytes from byte offset `start` of the chunk's content to `dest`. Returns the
 * number of bytes written or a negative code.
 */
BLOSC_EXPORT
int blosc2_getitem_bytes_ctx(struct blosc2_context_s *context,
                             const void *src,
                             int32_t srcsize,
                             int32_t start,
                             int32_t nbytes,
                             void *dest,
                             int32_t destsize);

/**
 * Compresses `srcsize` bytes at `src` into `dest` (room for `destsize` bytes) with the global
 * settings (codec, block size, split mode, delta, threads; see `blosc1_set_compressor`,
 * `blosc2_set_nthreads` and BLOSC_* environment variables), at level `clevel` (0-9), with
 * shuffle mode `doshuffle` (BLOSC_NOSHUFFLE, BLOSC_SHUFFLE, BLOSC_BITSHUFFLE) for items of
 * `typesize` bytes. Returns the chunk size, 0 when it does not fit in `destsize`, or a negative
 * code (BLOSC2_ERROR_CODEC_PARAM for a bad clevel, BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED, ...).
 * Initialises the library when needed.
 */
BLOSC_EXPORT
int blosc2_compress(int clevel,
                    int doshuffle,
                    int32_t typesize,
                    const void *src,
                    int32_t srcsize,
                    void *dest,
                    int32_t destsize);

/**
 * Decompresses the chunk at `src` (`srcsize` bytes) into `dest` (room for `destsize` bytes)
 * with the global settings (thread count). Returns the number of bytes written or a negative
 * code (BLOSC2_ERROR_WRITE_BUFFER when `dest` is too small, BLOSC2_ERROR_READ_BUFFER or
 * BLOSC2_ERROR_INVALID_HEADER for a damaged chunk, ...).
 */
BLOSC_EXPORT int blosc2_decompress(const void *src, int32_t srcsize, void *dest, int32_t destsize);

/**
 * Decompresses items `start` .. `start + nitems` (in units of the chunk's typesize) of the chunk
 * at `src` (`srcsize` bytes) into `dest` (room for `destsize` bytes), without a context.
 * Returns the number of bytes written, or a negative code (BLOSC2_ERROR_WRITE_BUFFER,
 * BLOSC2_ERROR_INVALID_PARAM for a range outside the chunk, a decompression error).
 */
BLOSC_EXPORT
int blosc2_getitem(const void *src,
                   int32_t srcsize,
                   int start,
                   int nitems,
                   void *dest,
                   int32_t destsize);

/**
 * The Blosc1 form of `blosc2_compress`: compresses `nbytes` bytes at `src` into `dest` (room
 * for `destsize` bytes; sizes beyond INT32_MAX are clamped) at level `clevel`, shuffle mode
 * `doshuffle`, items of `typesize` bytes, with the global settings. Returns the chunk size, 0
 * when it does not fit, or a negative code (BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED for `nbytes` over
 * `BLOSC2_MAX_BUFFERSIZE`, ...).
 */
BLOSC_EXPORT
int blosc1_compress(int clevel,
                    int doshuffle,
                    size_t typesize,
                    size_t nbytes,
                    const void *src,
                    void *dest,
                    size_t destsize);

/**
 * The Blosc1 form of `blosc2_decompress`: the chunk's size is taken from its own header (so
 * `src` must hold a complete chunk). Decompresses into `dest` (room for `destsize` bytes).
 * Returns the number of bytes written or a negative code.
 */
BLOSC_EXPORT int blosc1_decompress(const void *src, void *dest, size_t destsize);

/**
 * The Blosc1 form of `blosc2_getitem`: the chunk's size comes from its header, and `dest` must
 * have room for `nitems` items of the chunk's typesize. Returns the number of bytes written or
 * a negative code.
 */
BLOSC_EXPORT int blosc1_getitem(const void *src, int start, int nitems, void *dest);

/**
 * With a callback installed, contexts with several threads hand their blocks to it as
 * `nthreads` jobs (each job takes blocks until none is left) instead of to their worker pool;
 * NULL restores the pools.
 */
BLOSC_EXPORT void blosc2_set_threads_callback(blosc_threads_callback callback, void *callback_data);

/**
 * Reads the sizes recorded in the header of the chunk at `cbuffer`: `*nbytes` its uncompressed
 * size, `*cbytes` its compressed size and `*blocksize` its block size, in bytes (any output may
 * be NULL). Returns 0, or a negative code for a header that cannot be read (the outputs are then
 * set to 0).
 */
BLOSC_EXPORT
int blosc2_cbuffer_sizes(const void *cbuffer,
                         int32_t *nbytes,
                         int32_t *cbytes,
                         int32_t *blocksize);

/**
 * The Blosc1 form of `blosc2_cbuffer_sizes`, with `size_t` outputs and no return code (the
 * outputs are 0 for a header that cannot be read).
 */
BLOSC_EXPORT
void blosc1_cbuffer_sizes(const void *cbuffer,
                          size_t *nbytes,
                          size_t *cbytes,
                          size_t *blocksize);

/**
 * Checks that `cbuffer` holds a chunk of exactly `cbytes` bytes whose header is readable and
 * whose content fits in a buffer, and writes its uncompressed size to `*nbytes` (0 on error).
 * Returns 0, or a negative code: BLOSC2_ERROR_WRITE_BUFFER when `cbytes` is below the minimal
 * header, BLOSC2_ERROR_INVALID_HEADER when the header's cbytes differs, BLOSC2_ERROR_MEMORY_ALLOC
 * when nbytes exceeds `BLOSC2_MAX_BUFFERSIZE`.
 */
BLOSC_EXPORT int blosc1_cbuffer_validate(const void *cbuffer, size_t cbytes, size_t *nbytes);

/**
 * Reads the item size (`*typesize`) and the flags byte (`*flags`: shuffle, memcpyed, ... bits)
 * from the header of the chunk at `cbuffer`; both are 0 for a header that cannot be read. Either
 * output may be NULL.
 */
BLOSC_EXPORT void blosc1_cbuffer_metainfo(const void *cbuffer, size_t *typesize, int *flags);

/**
 * Reads the chunk format version (`*version`) and the codec format version (`*versionlz`) from
 * the header of the chunk at `cbuffer`; both are 0 for a header that cannot be read. Either
 * output may be NULL.
 */
BLOSC_EXPORT void blosc2_cbuffer_versions(const void *cbuffer, int *version, int *versionlz);

/**
 * The name of the compression library that produced the chunk at `cbuffer` ("BloscLZ", "LZ4",
 * "Zlib", "Zstd", or a registered codec's name), or NULL when the header cannot be read or the
 * library is unknown. The string is static: do not free it.
 */
BLOSC_EXPORT const char *blosc2_cbuffer_complib(const void *cbuffer);

/**
 * Writes to `dest` (room for `destsize` bytes) a chunk that stands for `nbytes` zero bytes
 * without storing them: just a header (`BLOSC_EXTENDED_HEADER_LENGTH` bytes). `cparams` gives
 * the typesize and the other header fields; `nbytes` must be a multiple of the typesize. Returns
 * the chunk size, or a negative code (BLOSC2_ERROR_DATA when `destsize` is too small,
 * BLOSC2_ERROR_INVALID_PARAM, BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED, BLOSC2_ERROR_CODEC_PARAM).
 */
BLOSC_EXPORT
int blosc2_chunk_zeros(blosc2_cparams cparams,
                       int32_t nbytes,
                       void *dest,
                       int32_t destsize);

/**
 * As `blosc2_chunk_zeros`, for a chunk that stands for `nbytes` bytes of NaNs (float32 or
 * float64: `cparams.typesize` must be 4 or 8). Returns the chunk size or a negative code.
 */
BLOSC_EXPORT
int blosc2_chunk_nans(blosc2_cparams cparams,
                      int32_t nbytes,
                      void *dest,
                      int32_t destsize);

/**
 * As `blosc2_chunk_zeros`, for a chunk that stands for `nbytes` bytes of the value at
 * `repeatval` (one item of `cparams.typesize` bytes) repeated; the chunk is the header followed
 * by that value. Returns the chunk size or a negative code.
 */
BLOSC_EXPORT
int blosc2_chunk_repeatval(blosc2_cparams cparams,
                           int32_t nbytes,
                           void *dest,
                           int32_t destsize,
                           const void *repeatval);

/**
 * As `blosc2_chunk_zeros`, for a chunk of `nbytes` bytes whose content is unspecified
 * (decompressing it leaves the destination untouched). Returns the chunk size or a negative
 * code.
 */
BLOSC_EXPORT
int blosc2_chunk_uninit(blosc2_cparams cparams,
                        int32_t nbytes,
                        void *dest,
                        int32_t destsize);

/**
 * Compresses `nblocks` buffers of different sizes (`srcs[i]` of `srcsizes[i]` bytes) into one
 * variable-length-block chunk written to `dest` (room for `destsize` bytes), with compression
 * context `context`: each buffer becomes one block. Returns the chunk size, 0 when it does not
 * fit, or a negative code (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_INVALID_PARAM for a
 * non-positive `nblocks` or a negative size, BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED when `destsize`
 * is below BLOSC2_MAX_OVERHEAD, a codec error).
 */
BLOSC_EXPORT
int blosc2_vlcompress_ctx(struct blosc2_context_s *context,
                          const void *const *srcs,
                          const int32_t *srcsizes,
                          int32_t nblocks,
                          void *dest,
                          int32_t destsize);

/**
 * Decompresses every block of the variable-length-block chunk at `src` (`srcsize` bytes) with
 * decompression context `context`. For each block i, `dests[i]` receives a new buffer allocated
 * with malloc (the caller frees each with free()) and `destsizes[i]` its size. `dests` and
 * `destsizes` must have room for `maxblocks` entries. Returns the number of blocks, or a
 * negative code (BLOSC2_ERROR_INVALID_PARAM when the chunk has more than `maxblocks` blocks,
 * BLOSC2_ERROR_NULL_POINTER, a decompression error); on error nothing is left allocated.
 */
BLOSC_EXPORT
int blosc2_vldecompress_ctx(struct blosc2_context_s *context,
                            const void *src,
                            int32_t srcsize,
                            void **dests,
                            int32_t *destsizes,
                            int32_t maxblocks);

/**
 * Writes to `*nblocks` the number of blocks of the variable-length-block chunk at `src`
 * (`srcsize` bytes). Returns 0, or a negative code (BLOSC2_ERROR_INVALID_PARAM for a NULL
 * argument, an error for a chunk that is not a readable VL-block chunk).
 */
BLOSC_EXPORT int blosc2_vlchunk_get_nblocks(const void *src, int32_t srcsize, int32_t *nblocks);

/**
 * Decompresses block `nblock` of the variable-length-block chunk at `src` (`srcsize` bytes) with
 * decompression context `context` into a new buffer allocated with malloc: `*dest` receives it
 * (the caller frees it with free()) and `*destsize` its size. Returns the block's size, or a
 * negative code (BLOSC2_ERROR_INVALID_PARAM for a block number out of range,
 * BLOSC2_ERROR_NULL_POINTER, a decompression error).
 */
BLOSC_EXPORT
int blosc2_vldecompress_block_ctx(struct blosc2_context_s *context,
                                  const void *src,
                                  int32_t srcsize,
                                  int32_t nblock,
                                  uint8_t **dest,
                                  int32_t *destsize);

/**
 * Registers a user codec: its `compcode` (from `BLOSC2_USER_REGISTERED_CODECS_START`), name,
 * library code, version and encoder/decoder callbacks are copied, so `*codec` may go away. The
 * codec can then be selected through `cparams.compcode`. Registering the same codec again is
 * accepted (under the same name). Returns 0, or a negative code (BLOSC2_ERROR_INVALID_PARAM for
 * NULL, BLOSC2_ERROR_CODEC_PARAM for a reserved code or one taken by another codec,
 * BLOSC2_ERROR_CODEC_SUPPORT when the registry is full).
 */
BLOSC_EXPORT int blosc2_register_codec(blosc2_codec *codec);

/**
 * Registers a user filter: its `id` (from `BLOSC2_USER_REGISTERED_FILTERS_START`), name, version
 * and forward/backward callbacks are copied, so `*filter` may go away. The filter can then be
 * placed in `cparams.filters`. Registering the same id under the same name again is accepted.
 * Returns 0, or a negative code (BLOSC2_ERROR_INVALID_PARAM for
 * NULL, BLOSC2_ERROR_FAILURE for a reserved id or one taken by another filter,
 * BLOSC2_ERROR_CODEC_SUPPORT when the registry is full).
 */
BLOSC_EXPORT int blosc2_register_filter(blosc2_filter *filter);

/**
 * Creates an empty super-chunk stored as `storage` says (NULL: in memory with default
 * parameters): in memory or on disk at `storage->urlpath`, as a contiguous frame or (sparse) a
 * directory. `storage` and what it points to are copied, except `storage->io`, whose params
 * must outlive the super-chunk. Returns the super-chunk, which the caller releases with
 * `blosc2_schunk_free`, or NULL on invalid parameters or when the file cannot be created.
 */
BLOSC_EXPORT struct blosc2_schunk *blosc2_schunk_new(blosc2_storage *storage);

/**
 * Copies `schunk` (chunks, metalayers and vlmetalayers) into a new super-chunk stored as
 * `storage` says. Chunks are copied as they are when the compression parameters match and
 * recompressed otherwise; without `storage->cparams` the source's parameters are kept. Returns
 * the copy, which the caller releases with `blosc2_schunk_free`, or NULL on error.
 */
BLOSC_EXPORT
struct blosc2_schunk *blosc2_schunk_copy(struct blosc2_schunk *schunk,
                                         blosc2_storage *storage);

/**
 * Releases `schunk`: its chunks, metalayers, contexts and frame (a file-backed frame stays on
 * disk; use `blosc2_remove_urlpath` to delete it), and calls the `destroy` callback of a user I/O
 * backend. A frame buffer obtained from `blosc2_schunk_to_buffer` after
 * `blosc2_schunk_avoid_cframe_free(schunk, true)` is left to the caller. NULL is accepted.
 * Returns 0.
 */
BLOSC_EXPORT int blosc2_schunk_free(struct blosc2_schunk *schunk);

/**
 * With `avoid_cframe_free` true, `blosc2_schunk_free` leaves the in-memory frame buffer of
 * `schunk` alive: for a caller that took that buffer from `blosc2_schunk_to_buffer`
 * (needs_free false) and will free it itself with free(). Does nothing for NULL.
 */
BLOSC_EXPORT
void blosc2_schunk_avoid_cframe_free(struct blosc2_schunk *schunk,
                                     bool avoid_cframe_free);

/**
 * Compresses the `nbytes` bytes at `src` into a new chunk with the super-chunk's compression
 * context (`schunk->cctx`) and appends it; the caller keeps `src`. All chunks but the last must
 * hold `schunk->chunksize` bytes. Returns the new number of chunks, or a negative code
 * (BLOSC2_ERROR_INVALID_PARAM for a NULL `src` or a negative size, BLOSC2_ERROR_NULL_POINTER, a
 * compression error, BLOSC2_ERROR_CHUNK_APPEND when the size does not fit the super-chunk, a
 * frame-writing error).
 */
BLOSC_EXPORT
int64_t blosc2_schunk_append_buffer(struct blosc2_schunk *schunk,
                                    const void *src,
                                    int32_t nbytes);

/**
 * Appends the already compressed `chunk` (size taken from its header) to `schunk`. With `copy`
 * true the super-chunk stores a copy and the caller keeps `chunk`; with `copy` false the
 * super-chunk takes ownership of `chunk` (it must come from malloc) and frees it once stored.
 * On error the caller keeps ownership in both cases. Returns the new number of chunks, or a
 * negative code (BLOSC2_ERROR_NULL_POINTER, a header error, BLOSC2_ERROR_CHUNK_APPEND for a
 * chunk whose size or typesize does not fit the super-chunk, a frame-writing error).
 */
BLOSC_EXPORT
int64_t blosc2_schunk_append_chunk(struct blosc2_schunk *schunk,
                                   uint8_t *chunk,
                                   bool copy);

/**
 * Inserts the compressed `chunk` at position `nchunk` (0 .. nchunks), shifting the following
 * chunks. Ownership of `chunk` as in `blosc2_schunk_append_chunk` (`copy` false: the
 * super-chunk frees it on success). Returns the new number of chunks, or a negative code
 * (BLOSC2_ERROR_INVALID_PARAM for a position out of range, BLOSC2_ERROR_CHUNK_INSERT, a header or
 * frame-writing error).
 */
BLOSC_EXPORT
int64_t blosc2_schunk_insert_chunk(struct blosc2_schunk *schunk,
                                   int64_t nchunk,
                                   uint8_t *chunk,
                                   bool copy);

/**
 * Replaces chunk `nchunk` with the compressed `chunk`. Ownership of `chunk` as in
 * `blosc2_schunk_append_chunk` (`copy` false: the super-chunk frees it on success). Returns the
 * number of chunks, or a negative code (BLOSC2_ERROR_INVALID_PARAM for a chunk number out of
 * range, BLOSC2_ERROR_CHUNK_UPDATE, a header or frame-writing error).
 */
BLOSC_EXPORT
int64_t blosc2_schunk_update_chunk(struct blosc2_schunk *schunk,
                                   int64_t nchunk,
                                   uint8_t *chunk,
                                   bool copy);

/**
 * Removes chunk `nchunk` from `schunk`. Returns the number of chunks left, or a negative code
 * (BLOSC2_ERROR_INVALID_PARAM for a chunk number out of range, BLOSC2_ERROR_NULL_POINTER, a
 * frame-writing error).
 */
BLOSC_EXPORT int64_t blosc2_schunk_delete_chunk(struct blosc2_schunk *schunk, int64_t nchunk);

/**
 * Decompresses chunk `nchunk` of `schunk` into `dest` (room for `nbytes` bytes) with the
 * super-chunk's decompression context. Returns the number of bytes written, or a negative
 * code (BLOSC2_ERROR_INVALID_PARAM for a NULL `dest`, a negative size or a chunk number out of
 * range, BLOSC2_ERROR_WRITE_BUFFER when `dest` is too small, a read or decompression error).
 */
BLOSC_EXPORT
int blosc2_schunk_decompress_chunk(struct blosc2_schunk *schunk,
                                   int64_t nchunk,
                                   void *dest,
                                   int32_t nbytes);

/**
 * Gives chunk `nchunk` of `schunk`, compressed: `*chunk` receives a pointer to it and
 * `*needs_free` tells who owns it. When `*needs_free` is true, `*chunk` is a copy allocated with
 * malloc that the caller frees with free(); when false, it points into the super-chunk's memory
 * and is valid only until the super-chunk changes or is freed (do not free it). Returns the
 * chunk's size in bytes, or a negative code (BLOSC2_ERROR_INVALID_PARAM for a chunk number out
 * of range, BLOSC2_ERROR_NULL_POINTER, a read error).
 */
BLOSC_EXPORT
int blosc2_schunk_get_chunk(struct blosc2_schunk *schunk,
                            int64_t nchunk,
                            uint8_t **chunk,
                            bool *needs_free);

/**
 * As `blosc2_schunk_get_chunk`, but for a super-chunk on disk the chunk may be "lazy": its header
 * and block offsets only, the blocks being read from the file when the chunk is decompressed
 * with the super-chunk's (or a context made for it) decompression context. Ownership of `*chunk`
 * follows `*needs_free` as in `blosc2_schunk_get_chunk`. Returns the size of what `*chunk` holds,
 * or a negative code.
 */
BLOSC_EXPORT
int blosc2_schunk_get_lazychunk(struct blosc2_schunk *schunk,
                                int64_t nchunk,
                                uint8_t **chunk,
                                bool *needs_free);

/**
 * Decompresses items `start` .. `stop` (in units of the super-chunk's typesize, `stop`
 * exclusive) into `buffer`, which must hold `(stop - start) * typesize` bytes. Returns 0, or a
 * negative code (BLOSC2_ERROR_INVALID_PARAM for `stop < start` or a NULL `buffer`,
 * BLOSC2_ERROR_FAILURE for a range past the end, a decompression error).
 */
BLOSC_EXPORT
int blosc2_schunk_get_slice_buffer(struct blosc2_schunk *schunk,
                                   int64_t start,
                                   int64_t stop,
                                   void *buffer);

/**
 * Overwrites items `start` .. `stop` (typesize units, `stop` exclusive) of `schunk` with the
 * bytes at `buffer` (`(stop - start) * typesize` bytes), recompressing the chunks involved.
 * Returns 0, or a negative code (as for `blosc2_schunk_get_slice_buffer`, plus compression and
 * frame-writing errors).
 */
BLOSC_EXPORT
int blosc2_schunk_set_slice_buffer(struct blosc2_schunk *schunk,
                                   int64_t start,
                                   int64_t stop,
                                   void *buffer);

/**
 * Gives the compression parameters of `schunk` in a new `blosc2_cparams` allocated with malloc:
 * `*cparams` receives it and the caller frees it with free() (the pointers inside it belong to
 * the super-chunk; do not free them). Returns 0, or BLOSC2_ERROR_NULL_POINTER /
 * BLOSC2_ERROR_MEMORY_ALLOC.
 */
BLOSC_EXPORT
int blosc2_schunk_get_cparams(struct blosc2_schunk *schunk,
                              blosc2_cparams **cparams);

/**
 * Gives the decompression parameters of `schunk` in a new `blosc2_dparams` allocated with
 * malloc: `*dparams` receives it and the caller frees it with free(). Returns 0, or
 * BLOSC2_ERROR_NULL_POINTER / BLOSC2_ERROR_MEMORY_ALLOC.
 */
BLOSC_EXPORT
int blosc2_schunk_get_dparams(struct blosc2_schunk *schunk,
                              blosc2_dparams **dparams);

/**
 * Reorders the chunks of `schunk` without recompressing them: `offsets_order` holds `nchunks`
 * distinct indexes, new chunk i being old chunk `offsets_order[i]` (the array is read, not
 * kept). Returns 0, or a negative code (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_DATA for an
 * order that is not a permutation, a frame-writing error).
 */
BLOSC_EXPORT
int blosc2_schunk_reorder_offsets(struct blosc2_schunk *schunk,
                                  int64_t *offsets_order);

/**
 * The length in bytes of the frame behind `schunk` (header, chunks, index and trailer); for a
 * super-chunk without frame, c-blosc2's estimate (its compressed bytes plus 8 per chunk).
 * BLOSC2_ERROR_NULL_POINTER for a NULL `schunk`.
 */
BLOSC_EXPORT int64_t blosc2_schunk_frame_len(struct blosc2_schunk *schunk);

/**
 * Fills an empty `schunk` with `nitems` items of a special value without storing data: one
 * special chunk per `chunksize` bytes (a multiple of the typesize). `special_value` is
 * BLOSC2_SPECIAL_ZERO, BLOSC2_SPECIAL_NAN or BLOSC2_SPECIAL_UNINIT. Returns the number of
 * chunks, or a negative code (BLOSC2_ERROR_INVALID_PARAM for a super-chunk that already has
 * chunks, a bad `chunksize` or an unsupported value, ...).
 */
BLOSC_EXPORT
int64_t blosc2_schunk_fill_special(struct blosc2_schunk *schunk,
                                   int64_t nitems,
                                   int special_value,
                                   int32_t chunksize);

/**
 * Decompresses the `ncoords` items whose positions (in items) are in `coords` into `buffer`, one
 * after the other (`buffer` holds `ncoords * typesize` bytes). Returns 0, or a negative code
 * (BLOSC2_ERROR_INVALID_PARAM for a negative count, a NULL array or a position out of range, a
 * decompression error).
 */
BLOSC_EXPORT
int blosc2_schunk_get_sparse_buffer(struct blosc2_schunk *schunk,
                                    int64_t ncoords,
                                    const int64_t *coords,
                                    void *buffer);

/**
 * Decompresses block `nblock` of chunk `nchunk` (a variable-length-block chunk) of `schunk` into
 * a new buffer allocated with malloc: `*dest` receives it (the caller frees it with free()) and
 * `*destsize` its size. Returns the block's size, or a negative code (BLOSC2_ERROR_NULL_POINTER,
 * BLOSC2_ERROR_INVALID_PARAM for a chunk or block number out of range, a decompression error).
 */
BLOSC_EXPORT
int blosc2_schunk_get_vlblock(struct blosc2_schunk *schunk,
                              int64_t nchunk,
                              int32_t nblock,
                              uint8_t **dest,
                              int32_t *destsize);

/**
 * Lists the chunks that hold the items `start` .. `stop`. For a plain super-chunk `start` and
 * `stop` point to one item position each; for one carrying a "b2nd" (or "caterva") metalayer
 * they hold one coordinate per dimension and chunk numbers are in C order. `*chunks_idx`
 * receives a new array allocated with malloc (the caller frees it with free()). Returns the
 * number of chunks listed, or a negative code (BLOSC2_ERROR_NULL_POINTER,
 * BLOSC2_ERROR_INVALID_PARAM for a range outside the array).
 */
BLOSC_EXPORT
int64_t blosc2_get_slice_nchunks(struct blosc2_schunk *schunk,
                                 int64_t *start,
                                 int64_t *stop,
                                 int64_t **chunks_idx);

/**
 * Takes the frame lock of a file-backed `schunk` exclusively (when locking is enabled through
 * its `blosc2_stdio_params` or BLOSC_LOCKING), so that other handles on the same frame wait;
 * nested calls on the same handle are counted. Does nothing for super-chunks without locking.
 * Returns 0 or a negative code (BLOSC2_ERROR_NULL_POINTER, a locking error).
 */
BLOSC_EXPORT int blosc2_schunk_lock(struct blosc2_schunk *schunk);

/**
 * Releases the frame lock taken by `blosc2_schunk_lock` (the outermost unlock releases it).
 * Returns 0 or a negative code.
 */
BLOSC_EXPORT int blosc2_schunk_unlock(struct blosc2_schunk *schunk);

/**
 * Opens the contiguous frame in `cframe` (`len` bytes) as a super-chunk. With `copy` true the
 * super-chunk works on its own copy and the caller may free `cframe` at once; with `copy` false
 * it reads `cframe` in place, which the caller must keep alive and unchanged until
 * `blosc2_schunk_free` (and still frees itself afterwards). Returns the super-chunk, which the
 * caller releases with `blosc2_schunk_free`, or NULL for a NULL buffer, a non-positive `len` or
 * a buffer that is not a valid frame.
 */
BLOSC_EXPORT
struct blosc2_schunk *blosc2_schunk_from_buffer(uint8_t *cframe,
                                                int64_t len,
                                                bool copy);

/**
 * Serialises `schunk` as a contiguous frame. `*cframe` receives the frame and `*needs_free`
 * who owns it: for an in-memory contiguous super-chunk, its own frame buffer (`*needs_free`
 * false: do not free it; it stays valid until the super-chunk changes or is freed, see
 * `blosc2_schunk_avoid_cframe_free`); otherwise a copy allocated with malloc (`*needs_free`
 * true: the caller frees it with free()). Returns the frame's length in bytes, or a negative
 * code (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_SCHUNK_COPY, a read error).
 */
BLOSC_EXPORT
int64_t blosc2_schunk_to_buffer(struct blosc2_schunk *schunk,
                                uint8_t **cframe,
                                bool *needs_free);

/**
 * Writes `schunk` as a contiguous frame to the file `urlpath` (replaced if it exists); the
 * super-chunk itself is unchanged. Returns the number of bytes written, or a negative code
 * (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_INVALID_PARAM for a NULL path,
 * BLOSC2_ERROR_SCHUNK_COPY, a file error).
 */
BLOSC_EXPORT int64_t blosc2_schunk_to_file(struct blosc2_schunk *schunk, const char *urlpath);

/**
 * Appends `schunk`, as a contiguous frame, to the end of the file `urlpath` (created if needed),
 * so that it can be opened later with `blosc2_schunk_open_offset`. Returns the offset in the
 * file where the frame starts, or a negative code (BLOSC2_ERROR_NULL_POINTER,
 * BLOSC2_ERROR_INVALID_PARAM, BLOSC2_ERROR_SCHUNK_COPY, a file error).
 */
BLOSC_EXPORT int64_t blosc2_schunk_append_file(struct blosc2_schunk *schunk, const char *urlpath);

/**
 * Opens the super-chunk stored at `urlpath` (a contiguous frame file or a sparse frame
 * directory), through the filesystem backend. Chunks are read from disk as needed and changes
 * are written back. Returns the super-chunk, which the caller releases with
 * `blosc2_schunk_free`, or NULL when the path is NULL, missing or not a valid frame.
 */
BLOSC_EXPORT struct blosc2_schunk *blosc2_schunk_open(const char *urlpath);

/**
 * As `blosc2_schunk_open`, for a contiguous frame that starts `offset` bytes into the file (see
 * `blosc2_schunk_append_file`). Returns the super-chunk (freed with `blosc2_schunk_free`) or
 * NULL.
 */
BLOSC_EXPORT struct blosc2_schunk *blosc2_schunk_open_offset(const char *urlpath, int64_t offset);

/**
 * As `blosc2_schunk_open`, reading and writing through the I/O backend `udio` (NULL: the
 * filesystem). `*udio` is copied; its `params` must stay valid until the super-chunk is freed.
 * Returns the super-chunk (freed with `blosc2_schunk_free`) or NULL.
 */
BLOSC_EXPORT
struct blosc2_schunk *blosc2_schunk_open_udio(const char *urlpath,
                                              const blosc2_io *udio);

/**
 * As `blosc2_schunk_open_offset`, through the I/O backend `udio` (NULL: the filesystem; its
 * `params` must outlive the super-chunk). Returns the super-chunk (freed with
 * `blosc2_schunk_free`) or NULL.
 */
BLOSC_EXPORT
struct blosc2_schunk *blosc2_schunk_open_offset_udio(const char *urlpath,
                                                     int64_t offset,
                                                     const blosc2_io *udio);

/**
 * The offsets of the chunks of a frame-backed `schunk` in its frame (one per chunk, in chunk
 * order), as a new array allocated with malloc that the caller frees with free(). Returns NULL
 * for a NULL `schunk`, a super-chunk without frame, or when memory runs out.
 */
BLOSC_EXPORT int64_t *blosc2_frame_get_offsets(struct blosc2_schunk *schunk);

/**
 * Re-reads a disk-based super-chunk that another handle changed: 1 when it did, 0 when it was
 * current (and for super-chunks not on disk).
 */
BLOSC_EXPORT int blosc2_schunk_refresh(struct blosc2_schunk *schunk);

/**
 * Adds the fixed-size metalayer `name` (at most `BLOSC2_METALAYER_NAME_MAXLEN` characters) to
 * `schunk`, with a copy of the `content_len` bytes at `content` (the caller keeps its buffer).
 * A frame-backed super-chunk accepts metalayers only before its first chunk. Returns the new
 * metalayer's index, or a negative code: BLOSC2_ERROR_NULL_POINTER for a NULL `schunk`,
 * BLOSC2_ERROR_INVALID_PARAM for a bad or duplicate name, too many metalayers (more than
 * `BLOSC2_MAX_METALAYERS`) or data already present, or the error of rewriting the frame.
 */
BLOSC_EXPORT
int blosc2_meta_add(struct blosc2_schunk *schunk,
                    const char *name,
                    uint8_t *content,
                    int32_t content_len);

/**
 * Overwrites the start of the existing metalayer `name` with the `content_len` bytes at
 * `content` (copied). The content cannot grow: a longer `content_len` than the metalayer's is
 * BLOSC2_ERROR_INVALID_PARAM. Returns the metalayer's index, or a negative code:
 * BLOSC2_ERROR_NOT_FOUND when there is no such metalayer, BLOSC2_ERROR_NULL_POINTER for a NULL
 * `schunk`, or the error of rewriting the frame.
 */
BLOSC_EXPORT
int blosc2_meta_update(struct blosc2_schunk *schunk,
                       const char *name,
                       uint8_t *content,
                       int32_t content_len);

/**
 * The index of the variable-length metalayer `name` in `schunk`, or BLOSC2_ERROR_NOT_FOUND when
 * there is none (BLOSC2_ERROR_NULL_POINTER / BLOSC2_ERROR_INVALID_PARAM for bad arguments). A
 * frame another handle changed is re-read first.
 */
BLOSC_EXPORT int blosc2_vlmeta_exists(struct blosc2_schunk *schunk, const char *name);

/**
 * Adds the variable-length metalayer `name` to `schunk`: the `content_len` bytes at `content`
 * are compressed with `cparams` (NULL: the library defaults) and stored; the caller keeps both
 * buffers. Unlike fixed metalayers, vlmetalayers can be added at any time. Returns the new
 * vlmetalayer's index, or a negative code: BLOSC2_ERROR_INVALID_PARAM for a bad or duplicate
 * name or too many vlmetalayers (more than `BLOSC2_MAX_VLMETALAYERS`), BLOSC2_ERROR_NULL_POINTER
 * for a NULL `schunk`, or a compression or frame-writing error.
 */
BLOSC_EXPORT
int blosc2_vlmeta_add(struct blosc2_schunk *schunk,
                      const char *name,
                      uint8_t *content,
                      int32_t content_len,
                      blosc2_cparams *cparams);

/**
 * Replaces the content of the existing variable-length metalayer `name` with the `content_len`
 * bytes at `content`, compressed with `cparams` (NULL: the library defaults). The size may
 * change. Returns the vlmetalayer's index, or a negative code (BLOSC2_ERROR_NOT_FOUND when there
 * is no such vlmetalayer, BLOSC2_ERROR_NULL_POINTER, or a compression or frame-writing error).
 */
BLOSC_EXPORT
int blosc2_vlmeta_update(struct blosc2_schunk *schunk,
                         const char *name,
                         uint8_t *content,
                         int32_t content_len,
                         blosc2_cparams *cparams);

/**
 * Decompresses the variable-length metalayer `name` of `schunk` into a new buffer: `*content`
 * receives it and `*content_len` its length in bytes. The buffer is allocated with malloc; the
 * caller releases it with free(). Returns the vlmetalayer's index, or a negative code
 * (BLOSC2_ERROR_NOT_FOUND, BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_MEMORY_ALLOC, or a
 * decompression error); on error `*content` is not set.
 *
 * The content is malloc'd (the caller frees it), as in c-blosc2.
 */
BLOSC_EXPORT
int blosc2_vlmeta_get(struct blosc2_schunk *schunk,
                      const char *name,
                      uint8_t **content,
                      int32_t *content_len);

/**
 * Removes the variable-length metalayer `name` from `schunk`. Returns the number of
 * vlmetalayers left, or a negative code (BLOSC2_ERROR_NOT_FOUND when there is no such
 * vlmetalayer, BLOSC2_ERROR_NULL_POINTER, or a frame-writing error).
 */
BLOSC_EXPORT int blosc2_vlmeta_delete(struct blosc2_schunk *schunk, const char *name);

/**
 * Variable-length metalayer names of `schunk`.
 *
 * `names` must have room for `schunk->nvlmetalayers` pointers. The pointers are the super-chunk's
 * own strings, not copies: do not free them, and do not use them after the super-chunk changes
 * its vlmetalayers or is freed. Returns the number of names written, or
 * BLOSC2_ERROR_NULL_POINTER.
 *
 * Fills `names[0..nvlmetalayers]` with the names the super-chunk keeps (not copies, as in
 * c-blosc2); returns how many.
 */
BLOSC_EXPORT int blosc2_vlmeta_get_names(struct blosc2_schunk *schunk, char **names);

/**
 * Registers a user I/O backend: a copy of `*io` is kept for the life of the process, so the
 * caller's struct may go away. Its `id` must be at least `BLOSC2_IO_REGISTERED` (lower ids are
 * the library's own backends); registering an id again is accepted and changes nothing. Returns
 * 0, BLOSC2_ERROR_INVALID_PARAM for a NULL `io`, or BLOSC2_ERROR_FAILURE for a reserved id or a
 * full registry.
 */
BLOSC_EXPORT int blosc2_register_io_cb(const blosc2_io_cb *io);

/**
 * The registered I/O backend with identifier `id` (the built-in filesystem and memory-mapped
 * ones included), or NULL when none has that id. The returned struct belongs to the library and
 * stays valid for the life of the process; do not free it.
 */
BLOSC_EXPORT blosc2_io_cb *blosc2_get_io_cb(uint8_t id);

/**
 * Registers a user tuner, which compression contexts then run when their `tuner_id` names it.
 * The library keeps the tuner's callbacks and a copy of its name; `tuner->id` must be at least
 * `BLOSC2_USER_REGISTERED_TUNER_START`. Registering the same id and name again is accepted.
 * Returns 0, or BLOSC2_ERROR_INVALID_PARAM for a NULL `tuner`, BLOSC2_ERROR_FAILURE for a
 * reserved id or an id already taken by another name, BLOSC2_ERROR_CODEC_SUPPORT when the
 * registry is full.
 */
BLOSC_EXPORT int blosc2_register_tuner(blosc2_tuner *tuner);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

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

#endif /* BLOSC_BLOSC2_H */
