/* Library-wide functions of the libblosc2 C API, exercised side by side.
 *
 * The same source is built once against rblosc2 and once against c-blosc2 3.3.5; run.sh runs
 * both (separate processes) and diffs their stdout, with the bundled codec versions masked
 * (lines starting "complib_version"). Every result is printed, and the values that c-blosc2
 * 3.3.5 is known to give are also checked here, so the program fails on its own when a value
 * is wrong. Exit status: 0 when every check passed.
 *
 * Known reference quirks this program records rather than trips over:
 *  - blosc2_get_complib_info() with a name it does not know crashes c-blosc2 (NULL strdup), so
 *    only the five built-in codec names are asked;
 *  - blosc1_set_compressor("unknown") returns -1 and leaves no current compressor, so that
 *    blosc1_get_compressor() returns NULL until the next valid set.
 */
#define _DEFAULT_SOURCE /* mkdtemp */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <blosc2.h>
#include "check.h"

static const char *show(const char *s) { return s == NULL ? "(null)" : s; }

static int same_string(const char *a, const char *b) {
  if (a == NULL || b == NULL) return a == b;
  return strcmp(a, b) == 0;
}

/* The codecs c-blosc2 3.3.5 knows by code: built-ins and the globally registered plugins. */
static const struct {
  int code;
  const char *name;
} known_codecs[] = {
  {0, "blosclz"}, {1, "lz4"}, {2, "lz4hc"}, {4, "zlib"}, {5, "zstd"},
  {32, "ndlz"}, {33, "zfp_acc"}, {34, "zfp_prec"}, {35, "zfp_rate"}, {36, "openhtj2k"},
  {37, "grok"}, {38, "openzl"}, {39, "j2k"}, {40, "htj2k"},
};
#define N_KNOWN_CODECS (sizeof(known_codecs) / sizeof(known_codecs[0]))

static const char *known_name(int code) {
  for (size_t k = 0; k < N_KNOWN_CODECS; k++)
    if (known_codecs[k].code == code) return known_codecs[k].name;
  return NULL;
}

static void test_version_and_list(void) {
  const char *version = blosc2_get_version_string();
  printf("version_string = %s\n", show(version));
  CHECK(same_string(version, BLOSC2_VERSION_STRING), "got %s", show(version));
  CHECK(same_string(version, "3.3.5"), "got %s", show(version));

  const char *list = blosc2_list_compressors();
  printf("list_compressors = %s\n", show(list));
  CHECK(same_string(list, "blosclz,lz4,lz4hc,zlib,zstd"), "got %s", show(list));
}

static void test_compcodes(void) {
  static const char untouched[] = "untouched";
  for (int code = -1; code <= 260; code++) {
    const char *name = untouched;
    int ret = blosc2_compcode_to_compname(code, &name);
    printf("compcode_to_compname(%d) = %d %s\n", code, ret,
           name == untouched ? "<untouched>" : show(name));
    const char *expected = known_name(code);
    if (expected != NULL) {
      CHECK(ret == code && same_string(name, expected), "code %d: %d %s", code, ret,
            name == untouched ? "<untouched>" : show(name));
    } else {
      CHECK(ret == -1 && name == NULL, "code %d: %d %s", code, ret,
            name == untouched ? "<untouched>" : show(name));
    }
  }

  static const struct {
    const char *name;
    int code;
  } names[] = {
    {"blosclz", 0}, {"lz4", 1}, {"lz4hc", 2}, {"zlib", 4}, {"zstd", 5},
    {"ndlz", 32}, {"zfp_acc", 33}, {"zfp_prec", 34}, {"zfp_rate", 35}, {"openhtj2k", 36},
    {"grok", 37}, {"openzl", 38}, {"j2k", 39}, {"htj2k", 40},
    {"snappy", -1}, {"BLOSCLZ", -1}, {"Zstd", -1}, {"", -1}, {"zstd ", -1}, {"lz", -1},
    {"blosclz2", -1}, {"unknown-codec", -1},
  };
  for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
    int code = blosc2_compname_to_compcode(names[k].name);
    printf("compname_to_compcode(\"%s\") = %d\n", names[k].name, code);
    CHECK(code == names[k].code, "\"%s\": %d, want %d", names[k].name, code, names[k].code);
  }
}

static void test_complib_info(void) {
  static const struct {
    const char *name;
    int libcode;
    const char *complib;
  } codecs[] = {
    {"blosclz", 0, "BloscLZ"}, {"lz4", 1, "LZ4"}, {"lz4hc", 1, "LZ4"},
    {"zlib", 3, "Zlib"}, {"zstd", 4, "Zstd"},
  };
  for (size_t k = 0; k < sizeof(codecs) / sizeof(codecs[0]); k++) {
    char *complib = NULL;
    char *version = NULL;
    int ret = blosc2_get_complib_info(codecs[k].name, &complib, &version);
    printf("complib_info(\"%s\") = %d %s\n", codecs[k].name, ret, show(complib));
    /* Bundled codec versions may legitimately differ between the two libraries. */
    printf("complib_version(\"%s\") = %s\n", codecs[k].name, show(version));
    CHECK(ret == codecs[k].libcode, "\"%s\": %d", codecs[k].name, ret);
    CHECK(same_string(complib, codecs[k].complib), "\"%s\": %s", codecs[k].name, show(complib));
    CHECK(version != NULL && version[0] >= '0' && version[0] <= '9', "\"%s\": version %s",
          codecs[k].name, show(version));
    free(complib);
    free(version);
  }
}

static void test_nthreads(void) {
  int16_t initial = blosc2_get_nthreads();
  printf("get_nthreads() = %d\n", initial);
  CHECK(initial == 1, "got %d", initial);
  int16_t previous = blosc2_set_nthreads(4);
  printf("set_nthreads(4) = %d\n", previous);
  CHECK(previous == 1, "got %d", previous);
  int16_t now = blosc2_get_nthreads();
  printf("get_nthreads() = %d\n", now);
  CHECK(now == 4, "got %d", now);
  static const int16_t invalid[] = {0, -1, -32768};
  for (size_t k = 0; k < sizeof(invalid) / sizeof(invalid[0]); k++) {
    int16_t ret = blosc2_set_nthreads(invalid[k]);
    int16_t after = blosc2_get_nthreads();
    printf("set_nthreads(%d) = %d, then get_nthreads() = %d\n", invalid[k], ret, after);
    CHECK(ret == BLOSC2_ERROR_INVALID_PARAM && after == 4, "ret %d after %d", ret, after);
  }
  previous = blosc2_set_nthreads(2);
  printf("set_nthreads(2) = %d\n", previous);
  CHECK(previous == 4, "got %d", previous);
  previous = blosc2_set_nthreads(1);
  printf("set_nthreads(1) = %d\n", previous);
  CHECK(previous == 2, "got %d", previous);
}

static void test_blosc1_compressor(void) {
  const char *current = blosc1_get_compressor();
  printf("get_compressor() = %s\n", show(current));
  CHECK(same_string(current, "blosclz"), "got %s", show(current));

  static const struct {
    const char *name;
    int ret;
    const char *after;
  } steps[] = {
    {"lz4", 1, "lz4"}, {"lz4hc", 2, "lz4hc"}, {"zlib", 4, "zlib"}, {"zstd", 5, "zstd"},
    /* A plugin codec cannot be the blosc1 compressor and leaves the current one in place. */
    {"ndlz", BLOSC2_ERROR_CODEC_SUPPORT, "zstd"},
    {"bogus", -1, NULL}, {"blosclz", 0, "blosclz"},
  };
  for (size_t k = 0; k < sizeof(steps) / sizeof(steps[0]); k++) {
    int ret = blosc1_set_compressor(steps[k].name);
    const char *after = blosc1_get_compressor();
    printf("set_compressor(\"%s\") = %d, then get_compressor() = %s\n", steps[k].name, ret,
           show(after));
    CHECK(ret == steps[k].ret && same_string(after, steps[k].after), "ret %d after %s", ret,
          show(after));
  }
}

static void test_blosc1_blocksize(void) {
  int blocksize = blosc1_get_blocksize();
  printf("get_blocksize() = %d\n", blocksize);
  CHECK(blocksize == 0, "got %d", blocksize);
  static const size_t sizes[] = {256, 4096, 1 << 20, 17, 0};
  for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
    blosc1_set_blocksize(sizes[k]);
    blocksize = blosc1_get_blocksize();
    printf("set_blocksize(%zu), then get_blocksize() = %d\n", sizes[k], blocksize);
    CHECK(blocksize == (int)sizes[k], "got %d", blocksize);
  }
  /* No getters: these must only be accepted (their effect shows in compressed chunks). */
  blosc1_set_splitmode(BLOSC_ALWAYS_SPLIT);
  blosc1_set_splitmode(BLOSC_NEVER_SPLIT);
  blosc1_set_splitmode(BLOSC_FORWARD_COMPAT_SPLIT);
  blosc2_set_delta(1);
  blosc2_set_delta(0);
  printf("set_splitmode/set_delta accepted\n");
}

static void test_error_strings(void) {
  static const struct {
    int code;
    const char *text;
  } spot[] = {
    {BLOSC2_ERROR_SUCCESS, "Unknown error"},
    {BLOSC2_ERROR_FAILURE, "Generic failure"},
    {BLOSC2_ERROR_INVALID_PARAM, "Invalid parameter supplied to function"},
    {BLOSC2_ERROR_NOT_FOUND, "Not found"},
    {BLOSC2_ERROR_NULL_POINTER, "Pointer is null"},
    {BLOSC2_ERROR_PLUGIN_IO, "IO plugin error"},
    {-37, "Frame lock failure"},
    {-38, "Unknown error"},
  };
  for (int code = -40; code <= 2; code++) {
    const char *text = blosc2_error_string(code);
    printf("error_string(%d) = %s\n", code, show(text));
    CHECK(text != NULL && text[0] != '\0', "code %d", code);
    for (size_t k = 0; k < sizeof(spot) / sizeof(spot[0]); k++)
      if (spot[k].code == code)
        CHECK(same_string(text, spot[k].text), "code %d: %s", code, show(text));
  }
}

static void print_filters(const char *label, const uint8_t *values) {
  printf("%s = {", label);
  for (int k = 0; k < BLOSC2_MAX_FILTERS; k++) printf(k ? ", %d" : "%d", values[k]);
  printf("}\n");
}

static void test_defaults(void) {
  blosc2_cparams c = blosc2_get_blosc2_cparams_defaults();
  const blosc2_cparams want = BLOSC2_CPARAMS_DEFAULTS;
  printf("cparams.compcode = %d\n", c.compcode);
  printf("cparams.compcode_meta = %d\n", c.compcode_meta);
  printf("cparams.clevel = %d\n", c.clevel);
  printf("cparams.use_dict = %d\n", c.use_dict);
  printf("cparams.typesize = %d\n", c.typesize);
  printf("cparams.nthreads = %d\n", c.nthreads);
  printf("cparams.blocksize = %d\n", c.blocksize);
  printf("cparams.splitmode = %d\n", c.splitmode);
  printf("cparams.schunk is %s\n", c.schunk ? "set" : "NULL");
  print_filters("cparams.filters", c.filters);
  print_filters("cparams.filters_meta", c.filters_meta);
  printf("cparams.prefilter is %s\n", c.prefilter ? "set" : "NULL");
  printf("cparams.preparams is %s\n", c.preparams ? "set" : "NULL");
  printf("cparams.tuner_params is %s\n", c.tuner_params ? "set" : "NULL");
  printf("cparams.tuner_id = %d\n", c.tuner_id);
  printf("cparams.instr_codec = %d\n", c.instr_codec);
  printf("cparams.codec_params is %s\n", c.codec_params ? "set" : "NULL");
  int filter_params_set = 0;
  for (int k = 0; k < BLOSC2_MAX_FILTERS; k++) filter_params_set += c.filter_params[k] != NULL;
  printf("cparams.filter_params set: %d\n", filter_params_set);
  CHECK(c.compcode == want.compcode && c.compcode == BLOSC_BLOSCLZ, "compcode %d", c.compcode);
  CHECK(c.compcode_meta == want.compcode_meta, "compcode_meta %d", c.compcode_meta);
  CHECK(c.clevel == want.clevel && c.clevel == 5, "clevel %d", c.clevel);
  CHECK(c.use_dict == want.use_dict, "use_dict %d", c.use_dict);
  CHECK(c.typesize == want.typesize && c.typesize == 8, "typesize %d", c.typesize);
  CHECK(c.nthreads == want.nthreads && c.nthreads == 1, "nthreads %d", c.nthreads);
  CHECK(c.blocksize == want.blocksize, "blocksize %d", c.blocksize);
  CHECK(c.splitmode == want.splitmode && c.splitmode == BLOSC_FORWARD_COMPAT_SPLIT,
        "splitmode %d", c.splitmode);
  CHECK(c.schunk == NULL && c.prefilter == NULL && c.preparams == NULL, "pointers set");
  CHECK(c.tuner_params == NULL && c.codec_params == NULL && filter_params_set == 0,
        "pointers set");
  CHECK(memcmp(c.filters, want.filters, sizeof c.filters) == 0, "filters differ");
  CHECK(c.filters[BLOSC2_MAX_FILTERS - 1] == BLOSC_SHUFFLE, "last filter %d",
        c.filters[BLOSC2_MAX_FILTERS - 1]);
  CHECK(memcmp(c.filters_meta, want.filters_meta, sizeof c.filters_meta) == 0,
        "filters_meta differ");
  CHECK(c.tuner_id == want.tuner_id && c.instr_codec == want.instr_codec, "tuner/instr");

  blosc2_dparams d = blosc2_get_blosc2_dparams_defaults();
  const blosc2_dparams dwant = BLOSC2_DPARAMS_DEFAULTS;
  printf("dparams.nthreads = %d\n", d.nthreads);
  printf("dparams.schunk is %s\n", d.schunk ? "set" : "NULL");
  printf("dparams.postfilter is %s\n", d.postfilter ? "set" : "NULL");
  printf("dparams.postparams is %s\n", d.postparams ? "set" : "NULL");
  printf("dparams.typesize = %d\n", d.typesize);
  CHECK(d.nthreads == dwant.nthreads && d.nthreads == 1, "nthreads %d", d.nthreads);
  CHECK(d.typesize == dwant.typesize && d.typesize == 8, "typesize %d", d.typesize);
  CHECK(d.schunk == NULL && d.postfilter == NULL && d.postparams == NULL, "pointers set");

  blosc2_storage s = blosc2_get_blosc2_storage_defaults();
  const blosc2_storage swant = BLOSC2_STORAGE_DEFAULTS;
  printf("storage.contiguous = %d\n", s.contiguous);
  printf("storage.urlpath = %s\n", show(s.urlpath));
  printf("storage.cparams is %s\n", s.cparams ? "set" : "NULL");
  printf("storage.dparams is %s\n", s.dparams ? "set" : "NULL");
  printf("storage.io is %s\n", s.io ? "set" : "NULL");
  CHECK(s.contiguous == swant.contiguous && !s.contiguous, "contiguous %d", s.contiguous);
  CHECK(s.urlpath == NULL && s.cparams == NULL && s.dparams == NULL && s.io == NULL,
        "pointers set");
}

static void test_timestamps(void) {
  blosc_timestamp_t start, end;
  blosc_set_timestamp(&start);
  blosc_set_timestamp(&end);
  double ns = blosc_elapsed_nsecs(start, end);
  double s = blosc_elapsed_secs(start, end);
  printf("elapsed between two consecutive timestamps is non-negative: %d\n", ns >= 0 && s >= 0);
  CHECK(ns >= 0 && ns < 1e9 && s >= 0 && s < 1, "ns %g s %g", ns, s);

  /* blosc_timestamp_t is struct timespec on POSIX systems. */
  blosc_timestamp_t a = {0}, b = {0};
  a.tv_sec = 10;
  a.tv_nsec = 250000000;
  b.tv_sec = 12;
  b.tv_nsec = 750000000;
  ns = blosc_elapsed_nsecs(a, b);
  s = blosc_elapsed_secs(a, b);
  printf("elapsed(10.25s, 12.75s) = %.1f ns = %.6f s\n", ns, s);
  CHECK(ns == 2.5e9 && s == 2.5, "ns %g s %g", ns, s);
  ns = blosc_elapsed_nsecs(b, a);
  printf("elapsed(12.75s, 10.25s) = %.1f ns\n", ns);
  CHECK(ns == -2.5e9, "ns %g", ns);
}

static void test_index_conversions(void) {
  static const struct {
    int8_t ndim;
    int64_t shape[4];
  } cases[] = {{1, {7}}, {2, {3, 5}}, {3, {2, 3, 4}}, {4, {2, 1, 3, 2}}};
  for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
    int8_t ndim = cases[c].ndim;
    int64_t shape[4], strides[4];
    int64_t total = 1;
    for (int k = ndim - 1; k >= 0; k--) {
      shape[k] = cases[c].shape[k];
      strides[k] = total;
      total *= shape[k];
    }
    int round_trips = 0;
    for (int64_t i = 0; i < total; i++) {
      int64_t index[4] = {-9, -9, -9, -9};
      blosc2_unidim_to_multidim((uint8_t)ndim, shape, i, index);
      int64_t back = -9;
      blosc2_multidim_to_unidim(index, ndim, strides, &back);
      /* Row-major: the last dimension varies fastest. */
      int64_t rest = i, expect_ok = 1;
      for (int k = 0; k < ndim; k++) {
        expect_ok &= index[k] == rest / strides[k];
        rest %= strides[k];
      }
      round_trips += back == i && expect_ok;
      if (i == total - 1 || i == 1) {
        printf("ndim %d: unidim %lld -> {", ndim, (long long)i);
        for (int k = 0; k < ndim; k++) printf(k ? ", %lld" : "%lld", (long long)index[k]);
        printf("} -> %lld\n", (long long)back);
      }
    }
    printf("ndim %d: %d of %lld indexes round-trip\n", ndim, round_trips, (long long)total);
    CHECK(round_trips == total, "ndim %d: %d of %lld", ndim, round_trips, (long long)total);
  }
  int64_t none = -9;
  blosc2_multidim_to_unidim(NULL, 0, NULL, &none);
  printf("multidim_to_unidim(ndim 0) = %lld\n", (long long)none);
  CHECK(none == 0, "got %lld", (long long)none);
}

static int exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

static void touch(const char *path) {
  FILE *f = fopen(path, "w");
  if (f != NULL) {
    fputs("rblosc2", f);
    fclose(f);
  }
}

static void test_paths(void) {
  int ret = blosc2_remove_dir("/nonexistent-rblosc2-dir/sub");
  printf("remove_dir(missing) = %d\n", ret);
  CHECK(ret == BLOSC2_ERROR_NOT_FOUND, "got %d", ret);
  ret = blosc2_remove_urlpath("/nonexistent-rblosc2-dir/file.b2frame");
  printf("remove_urlpath(missing) = %d\n", ret);
  CHECK(ret == 0, "got %d", ret);
  ret = blosc2_remove_urlpath(NULL);
  printf("remove_urlpath(NULL) = %d\n", ret);
  CHECK(ret == 0, "got %d", ret);
  char missing_from[] = "/nonexistent-rblosc2-dir/a";
  char missing_to[] = "/nonexistent-rblosc2-dir/b";
  ret = blosc2_rename_urlpath(missing_from, missing_to);
  printf("rename_urlpath(missing) = %d\n", ret);
  CHECK(ret == BLOSC2_ERROR_FAILURE, "got %d", ret);

  /* The same calls on real paths, in a private scratch directory. */
  const char *tmp = getenv("TMPDIR");
  char base[4096];
  snprintf(base, sizeof base, "%s/rblosc2-paths-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (mkdtemp(base) == NULL) {
    CHECK(0, "mkdtemp: %s", strerror(errno));
    return;
  }
  char file[4200], renamed[4200], dir[4200], inner[4300];
  snprintf(file, sizeof file, "%s/frame.b2frame", base);
  snprintf(renamed, sizeof renamed, "%s/renamed.b2frame", base);
  snprintf(dir, sizeof dir, "%s/sframe.b2frame", base);
  snprintf(inner, sizeof inner, "%s/chunk.0000", dir);

  touch(file);
  ret = blosc2_rename_urlpath(file, renamed);
  printf("rename_urlpath(file) = %d, old exists %d, new exists %d\n", ret, exists(file),
         exists(renamed));
  CHECK(ret == 0 && !exists(file) && exists(renamed), "ret %d", ret);
  ret = blosc2_remove_urlpath(renamed);
  printf("remove_urlpath(file) = %d, exists %d\n", ret, exists(renamed));
  CHECK(ret == 0 && !exists(renamed), "ret %d", ret);

  mkdir(dir, 0700);
  touch(inner);
  ret = blosc2_remove_dir(dir);
  printf("remove_dir(dir with a file) = %d, exists %d\n", ret, exists(dir));
  CHECK(ret == 0 && !exists(dir), "ret %d", ret);
  mkdir(dir, 0700);
  touch(inner);
  ret = blosc2_remove_urlpath(dir);
  printf("remove_urlpath(dir with a file) = %d, exists %d\n", ret, exists(dir));
  CHECK(ret == 0 && !exists(dir), "ret %d", ret);
  rmdir(base);
}

int main(void) {
  blosc2_init();
  test_version_and_list();
  test_compcodes();
  test_complib_info();
  test_nthreads();
  test_blosc1_compressor();
  test_blosc1_blocksize();
  test_error_strings();
  test_defaults();
  test_timestamps();
  test_index_conversions();
  test_paths();
  int ret = blosc2_free_resources();
  printf("free_resources() = %d\n", ret);
  CHECK(ret == 0, "got %d", ret);
  blosc2_destroy();

  /* The library can be brought up again after blosc2_destroy(). */
  blosc2_init();
  const char *list = blosc2_list_compressors();
  printf("after re-init: list_compressors = %s\n", show(list));
  CHECK(same_string(list, "blosclz,lz4,lz4hc,zlib,zstd"), "got %s", show(list));
  blosc2_destroy();

  printf("library_side_by_side: %d checks, %d failed\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
