/* rblosc2: generated header, do not edit (see build.rs). */
#ifndef BLOSC_BLOSC2_BLOSC2_COMMON_H
#define BLOSC_BLOSC2_BLOSC2_COMMON_H

#include "blosc2-export.h"

#include <stdint.h>
#include <string.h>

/* Attributes that silence "unused" warnings. */
#ifdef __GNUC__
#  define BLOSC_GCC_VERSION (__GNUC__ * 100 + __GNUC_MINOR__)
#  define BLOSC_UNUSED_VAR __attribute__ ((unused))
#else
#  define BLOSC_UNUSED_VAR
#endif
#define BLOSC_UNUSED_PARAM(x) ((void)(x))

/* Pre-C99 MSVC in C mode spells inline differently. */
#if defined(_MSC_VER) && !defined(__cplusplus)
#  define inline __inline
#endif

/* MSVC targeting SSE2 does not announce it; other compilers do. */
#if !defined(__SSE2__) && defined(_MSC_VER) && \
    (defined(_M_X64) || (defined(_M_IX86) && _M_IX86_FP >= 2))
#  define __SSE2__
#endif

/* BLOSC_STRICT_ALIGN is defined on architectures where unaligned loads are not cheap. */
#if !defined(BLOSC_STRICT_ALIGN)
#  define BLOSC_STRICT_ALIGN
#  if defined(__i386__) || defined(__386) || defined(__amd64) || defined(__i486__) || \
      defined(__i586__) || defined(__i686__) || defined(_M_IX86) || defined(_M_X64) || \
      defined(_X86_) || defined(__I86__) || \
      (defined(__ARM_FEATURE_UNALIGNED) && defined(__ARM64_ARCH_8__)) || \
      defined(_ARCH_PPC) || defined(__PPC__)
#    undef BLOSC_STRICT_ALIGN
#  endif
#endif

#if defined(__SSE2__)
#  include <emmintrin.h>
#endif
#if defined(__AVX2__) || defined(__AVX512F__) || defined(__AVX512BW__)
#  include <immintrin.h>
#endif

#endif /* BLOSC_BLOSC2_BLOSC2_COMMON_H */
