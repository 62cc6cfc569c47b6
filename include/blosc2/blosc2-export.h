/* rblosc2: generated header, do not edit (see build.rs). */
#ifndef BLOSC_BLOSC2_BLOSC2_EXPORT_H
#define BLOSC_BLOSC2_BLOSC2_EXPORT_H

/* BLOSC_EXPORT marks the library's public symbols when building it as a shared library;
   BLOSC_NO_EXPORT hides a symbol (BLOSC_TESTING makes it public for tests). */
#if defined(BLOSC_SHARED_LIBRARY)
#  if defined(_MSC_VER)
#    define BLOSC_EXPORT __declspec(dllexport)
#  elif defined(__GNUC__) || defined(__clang__)
#    if defined(_WIN32) || defined(__CYGWIN__) || defined(__MINGW32__)
#      define BLOSC_EXPORT __attribute__((dllexport))
#    else
#      define BLOSC_EXPORT __attribute__((visibility("default")))
#    endif
#  else
#    error "No way known to export symbols with this compiler"
#  endif
#else
#  define BLOSC_EXPORT
#endif

#if (defined(__GNUC__) || defined(__clang__)) && !defined(__MINGW32__)
#  define BLOSC_NO_EXPORT __attribute__((visibility("hidden")))
#else
#  define BLOSC_NO_EXPORT
#endif

#if defined(BLOSC_TESTING)
#  undef BLOSC_NO_EXPORT
#  define BLOSC_NO_EXPORT BLOSC_EXPORT
#endif

#endif /* BLOSC_BLOSC2_BLOSC2_EXPORT_H */
