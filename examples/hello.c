/* A first program against the installed libblosc2: prints what the library offers.
 *
 *   make install PREFIX=$PWD/_install && make example PREFIX=$PWD/_install
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <blosc2.h>

int main(void) {
  blosc2_init();
  const char *version = blosc2_get_version_string();
  printf("libblosc2 %s (headers %s)\n", version, BLOSC2_VERSION_STRING);
  printf("compressors: %s\n", blosc2_list_compressors());

  /* Each codec reports the library it comes from; the names double as a self-check. */
  const char *names[] = {"blosclz", "lz4", "lz4hc", "zlib", "zstd"};
  int failures = strcmp(version, BLOSC2_VERSION_STRING) != 0;
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
    char *complib = NULL, *complib_version = NULL;
    int code = blosc2_get_complib_info(names[i], &complib, &complib_version);
    if (code < 0 || complib == NULL || complib_version == NULL) {
      printf("  %-8s unavailable (%d)\n", names[i], code);
      failures++;
    } else {
      printf("  %-8s code %d, from %s %s\n", names[i], code, complib, complib_version);
    }
    free(complib);
    free(complib_version);
  }
  blosc2_destroy();
  return failures == 0 ? 0 : 1;
}
