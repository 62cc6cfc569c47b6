/* rblosc2: generated header, do not edit (see build.rs). */
#ifndef BLOSC_BLOSC2_TUNERS_REGISTRY_H
#define BLOSC_BLOSC2_TUNERS_REGISTRY_H

enum {
  BLOSC_BTUNE = 32,
};



typedef struct {
  char *init;
  char *next_blocksize;
  char *next_cparams;
  char *update;
  char *free;
} tuner_info;

#ifdef __cplusplus
extern "C" {
#endif // __cplusplus

void register_tuners(void);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus


#endif /* BLOSC_BLOSC2_TUNERS_REGISTRY_H */
