#include "blosc2-export.h"

#if defined(_MSC_VER)
#  include <io.h>
#else
#  include <unistd.h>
#endif
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdbool.h>
#if defined(_WIN32)
#  include <windows.h>
#endif
