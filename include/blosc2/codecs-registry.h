/* rblosc2: generated header, do not edit (see build.rs). */
#ifndef BLOSC_BLOSC2_CODECS_REGISTRY_H
#define BLOSC_BLOSC2_CODECS_REGISTRY_H

enum {
  BLOSC_CODEC_NDLZ = 32,
  BLOSC_CODEC_ZFP_FIXED_ACCURACY = 33,
  BLOSC_CODEC_ZFP_FIXED_PRECISION = 34,
  BLOSC_CODEC_ZFP_FIXED_RATE = 35,
  BLOSC_CODEC_OPENHTJ2K = 36,
  BLOSC_CODEC_GROK = 37,
  BLOSC_CODEC_OPENZL = 38,
  BLOSC_CODEC_J2K = 39,
  BLOSC_CODEC_HTJ2K = 40,
};



typedef struct {
  char *encoder;
  char *decoder;
} codec_info;

#ifdef __cplusplus
extern "C" {
#endif // __cplusplus

void register_codecs(void);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus


#endif /* BLOSC_BLOSC2_CODECS_REGISTRY_H */
