/*
 * rblosc2's extensions to c-blosc2 3.3.5's API: frame fingerprints (docs/FINGERPRINTS.md).
 * Only rblosc2's libblosc2 defines these functions; programs that use them also run with
 * c-blosc2 only if they check for rblosc2 first (e.g. with dlsym).
 */
#include "blosc2.h"
