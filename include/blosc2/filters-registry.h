/* rblosc2: generated header, do not edit (see build.rs). */
#ifndef BLOSC_BLOSC2_FILTERS_REGISTRY_H
#define BLOSC_BLOSC2_FILTERS_REGISTRY_H

enum {
  BLOSC_FILTER_NDCELL = 32,
  BLOSC_FILTER_NDMEAN = 33,
  BLOSC_FILTER_BYTEDELTA_BUGGY = 34,
  BLOSC_FILTER_BYTEDELTA = 35,
  BLOSC_FILTER_INT_TRUNC = 36,
};



typedef struct {
  char *forward;
  char *backward;
} filter_info;

#ifdef __cplusplus
extern "C" {
#endif // __cplusplus

void register_filters(void);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus


#endif /* BLOSC_BLOSC2_FILTERS_REGISTRY_H */
