/* rblosc2: generated header, do not edit (see build.rs). */
#ifndef RBLOSC2_RBLOSC2_H
#define RBLOSC2_RBLOSC2_H

/*
 * rblosc2's extensions to c-blosc2 3.3.5's API: frame fingerprints (docs/FINGERPRINTS.md).
 * Only rblosc2's libblosc2 defines these functions; programs that use them also run with
 * c-blosc2 only if they check for rblosc2 first (e.g. with dlsym).
 */
#include "blosc2.h"


/**
 * Fingerprint mode: frames are written without fingerprints, as c-blosc2 writes them.
 */
#define RBLOSC2_FINGERPRINT_OFF 0

/**
 * Fingerprint mode: frames are written with fingerprints.
 */
#define RBLOSC2_FINGERPRINT_ON 1

/**
 * Fingerprint mode: as RBLOSC2_FINGERPRINT_ON, and every chunk read is checked first (a
 * damaged chunk is refused with BLOSC2_ERROR_DATA).
 */
#define RBLOSC2_FINGERPRINT_VERIFY 2

/**
 * `rblosc2_schunk_verify`: every part the frame's fingerprint covers matches it.
 */
#define RBLOSC2_VERIFY_INTACT 0

/**
 * `rblosc2_schunk_verify`: the frame holds no fingerprint (written without one, or changed
 * since by a writer that keeps none, such as c-blosc2): nothing was checked.
 */
#define RBLOSC2_VERIFY_NO_FINGERPRINT 1

/**
 * `rblosc2_schunk_verify`: some part of the frame does not match its fingerprint.
 */
#define RBLOSC2_VERIFY_DAMAGED 2

#ifdef __cplusplus
extern "C" {
#endif // __cplusplus

/**
 * Sets what `schunk` does with frame fingerprints: `mode` is RBLOSC2_FINGERPRINT_OFF, _ON or
 * _VERIFY. A frame that holds no fingerprint and is to have one gets it at once (every stored
 * chunk is read once); one that holds one and is to have none is rewritten without it at
 * once. Frames made from `schunk` later (copies, serialisations) follow the mode. The
 * environment variable BLOSC_FINGERPRINT (1, on, verify) sets the mode of super-chunks made
 * or opened; a frame that holds a fingerprint keeps it when opened. Returns 0, or a negative
 * code: BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_INVALID_PARAM for another mode,
 * BLOSC2_ERROR_DATA for a frame whose fingerprint did not hold when opened (it can only be
 * turned off), the errors of reading the chunks and rewriting the frame.
 */
BLOSC_EXPORT int rblosc2_schunk_set_fingerprint(blosc2_schunk *schunk, int mode);

/**
 * The fingerprint mode of `schunk` (RBLOSC2_FINGERPRINT_OFF, _ON or _VERIFY), or
 * BLOSC2_ERROR_NULL_POINTER.
 */
BLOSC_EXPORT int rblosc2_schunk_get_fingerprint(blosc2_schunk *schunk);

/**
 * Verifies the frame of `schunk` as it is in its store now: header, offsets index and trailer
 * against the fingerprint in the trailer, then every stored chunk against its own. Returns
 * RBLOSC2_VERIFY_INTACT, RBLOSC2_VERIFY_NO_FINGERPRINT or RBLOSC2_VERIFY_DAMAGED; for a
 * damaged frame, `*first_damaged_chunk` (when not NULL) receives the first damaged chunk's
 * number, or -1 when the damage is in the header, index or trailer (or the frame's parts no
 * longer fit together); otherwise -1. Negative codes: BLOSC2_ERROR_NULL_POINTER,
 * BLOSC2_ERROR_INVALID_PARAM for a super-chunk without a frame (a chunk list in memory).
 */
BLOSC_EXPORT int rblosc2_schunk_verify(blosc2_schunk *schunk, int64_t *first_damaged_chunk);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus


#endif /* RBLOSC2_RBLOSC2_H */
