/* A tiny codec plugin in the shape c-blosc2 loads (libblosc2_<name>.so exporting `info`, which
 * names its encoder and decoder). Built by run.sh as libblosc2_rbtest_codec.so; the same object
 * with -DBROKEN_INFO becomes libblosc2_rbtest_broken.so, whose `info` names a missing decoder,
 * and with -DNO_INFO libblosc2_rbtest_noinfo.so, which has no `info` at all.
 * It needs nothing from libblosc2: the parameter structs are only passed through. */
#include <stdint.h>

typedef struct {
  char *encoder;
  char *decoder;
} codec_info;

/* Run-length pairs (count, byte ^ meta): it compresses runs, so chunks really hold its output
 * (not blocks stored raw), and compcode_meta changes the bytes. */
int rbtest_encode(const uint8_t *in, int32_t inlen, uint8_t *out, int32_t outlen, uint8_t meta,
                  void *cparams, const void *chunk) {
  (void)cparams;
  (void)chunk;
  int32_t o = 0;
  for (int32_t i = 0; i < inlen;) {
    int32_t run = 1;
    while (i + run < inlen && run < 255 && in[i + run] == in[i]) run++;
    if (o + 2 > outlen) return 0;
    out[o++] = (uint8_t)run;
    out[o++] = in[i] ^ meta;
    i += run;
  }
  return o;
}

int rbtest_decode(const uint8_t *in, int32_t inlen, uint8_t *out, int32_t outlen, uint8_t meta,
                  void *dparams, const void *chunk) {
  (void)dparams;
  (void)chunk;
  int32_t o = 0;
  for (int32_t i = 0; i + 1 < inlen; i += 2) {
    if (in[i] == 0 || o + in[i] > outlen) return -1;
    for (int r = 0; r < in[i]; r++) out[o++] = in[i + 1] ^ meta;
  }
  return o;
}

#if defined(NO_INFO)
#elif defined(BROKEN_INFO)
__attribute__((visibility("default"))) codec_info info = {"rbtest_encode", "no_such_decoder"};
#else
__attribute__((visibility("default"))) codec_info info = {"rbtest_encode", "rbtest_decode"};
#endif
