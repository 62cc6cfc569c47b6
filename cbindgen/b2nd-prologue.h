#include "blosc2/blosc2-export.h"
#include "blosc2.h"

#include <stdio.h>
#include <stdlib.h>

#if defined(_MSC_VER)
#  define B2ND_DEPRECATED(msg) __declspec(deprecated(msg))
#elif defined(__GNUC__) || defined(__clang__)
#  define B2ND_DEPRECATED(msg) __attribute__((deprecated(msg)))
#else
#  define B2ND_DEPRECATED(msg)
#endif

#define B2ND_DEFAULT_DTYPE "|u1"
