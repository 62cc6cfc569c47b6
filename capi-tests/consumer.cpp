// A C++ program using the installed headers and library: the headers must compile as C++
// (extern "C" linkage) and the library-wide functions must answer as c-blosc2 3.3.5 does.
#include <blosc2.h>
#include <b2nd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

int failures = 0;

void expect(bool ok, const std::string &what) {
  if (!ok) {
    ++failures;
    std::printf("FAIL: %s\n", what.c_str());
  }
}

std::string or_null(const char *s) { return s == nullptr ? "(null)" : s; }

}  // namespace

int main() {
  blosc2_init();
  const std::string version = or_null(blosc2_get_version_string());
  std::printf("C++ consumer: libblosc2 %s\n", version.c_str());
  expect(version == BLOSC2_VERSION_STRING, "version " + version);

  const std::vector<std::pair<std::string, int>> codecs = {
      {"blosclz", BLOSC_BLOSCLZ}, {"lz4", BLOSC_LZ4}, {"lz4hc", BLOSC_LZ4HC},
      {"zlib", BLOSC_ZLIB},       {"zstd", BLOSC_ZSTD}};
  for (const auto &codec : codecs) {
    const int code = blosc2_compname_to_compcode(codec.first.c_str());
    const char *name = nullptr;
    const int back = blosc2_compcode_to_compname(code, &name);
    expect(code == codec.second && back == code && or_null(name) == codec.first,
           "codec " + codec.first + " -> " + std::to_string(code) + " -> " + or_null(name));
  }
  expect(blosc2_compname_to_compcode("no-such-codec") < 0, "unknown codec name accepted");

  expect(blosc2_set_nthreads(3) == 1, "set_nthreads(3) did not return the old count 1");
  expect(blosc2_get_nthreads() == 3, "get_nthreads after set(3)");
  expect(blosc2_set_nthreads(1) == 3, "set_nthreads(1) did not return 3");

  const blosc2_cparams cparams = blosc2_get_blosc2_cparams_defaults();
  expect(cparams.clevel == 5 && cparams.typesize == 8 && cparams.nthreads == 1,
         "cparams defaults");
  expect(cparams.filters[BLOSC2_MAX_FILTERS - 1] == BLOSC_SHUFFLE, "default filter pipeline");

  int64_t index[B2ND_MAX_DIM] = {0};
  int64_t shape[3] = {2, 3, 4};
  blosc2_unidim_to_multidim(3, shape, 17, index);
  expect(index[0] == 1 && index[1] == 1 && index[2] == 1, "unidim_to_multidim(17)");

  expect(std::string(blosc2_error_string(BLOSC2_ERROR_NOT_FOUND)) == "Not found",
         "error_string(NOT_FOUND)");
  blosc2_destroy();
  std::printf("C++ consumer: %s\n", failures == 0 ? "ok" : "FAILED");
  return failures == 0 ? 0 : 1;
}
