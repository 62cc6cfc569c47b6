//! rblosc2's extensions to c-blosc2's API, declared in `include/blosc2/rblosc2.h` (not in
//! blosc2.h, which stays c-blosc2's): frame fingerprints (docs/FINGERPRINTS.md).

use libc::c_int;

use crate::capi::ffi::entry;
use crate::capi::schunk::{change_shared_frame, read_shared_frame};
use crate::capi::types::blosc2_schunk;
use crate::schunk::FingerprintMode;
use crate::Error;

/// Fingerprint mode: frames are written without fingerprints, as c-blosc2 writes them.
pub const RBLOSC2_FINGERPRINT_OFF: c_int = 0;
/// Fingerprint mode: frames are written with fingerprints.
pub const RBLOSC2_FINGERPRINT_ON: c_int = 1;
/// Fingerprint mode: as RBLOSC2_FINGERPRINT_ON, and every chunk read is checked first (a
/// damaged chunk is refused with BLOSC2_ERROR_DATA).
pub const RBLOSC2_FINGERPRINT_VERIFY: c_int = 2;

/// `rblosc2_schunk_verify`: every part the frame's fingerprint covers matches it.
pub const RBLOSC2_VERIFY_INTACT: c_int = 0;
/// `rblosc2_schunk_verify`: the frame holds no fingerprint (written without one, or changed
/// since by a writer that keeps none, such as c-blosc2): nothing was checked.
pub const RBLOSC2_VERIFY_NO_FINGERPRINT: c_int = 1;
/// `rblosc2_schunk_verify`: some part of the frame does not match its fingerprint.
pub const RBLOSC2_VERIFY_DAMAGED: c_int = 2;

/// Sets what `schunk` does with frame fingerprints: `mode` is RBLOSC2_FINGERPRINT_OFF, _ON or
/// _VERIFY. A frame that holds no fingerprint and is to have one gets it at once (every stored
/// chunk is read once); one that holds one and is to have none is rewritten without it at
/// once. Frames made from `schunk` later (copies, serialisations) follow the mode. The
/// environment variable BLOSC_FINGERPRINT (1, on, verify) sets the mode of super-chunks made
/// or opened; a frame that holds a fingerprint keeps it when opened. Returns 0, or a negative
/// code: BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_INVALID_PARAM for another mode,
/// BLOSC2_ERROR_DATA for a frame whose fingerprint did not hold when opened (it can only be
/// turned off), the errors of reading the chunks and rewriting the frame.
#[no_mangle]
pub unsafe extern "C" fn rblosc2_schunk_set_fingerprint(
    schunk: *mut blosc2_schunk,
    mode: c_int,
) -> c_int {
    entry(|| {
        let mode = match mode {
            RBLOSC2_FINGERPRINT_OFF => FingerprintMode::Off,
            RBLOSC2_FINGERPRINT_ON => FingerprintMode::On,
            RBLOSC2_FINGERPRINT_VERIFY => FingerprintMode::Verify,
            _ => return Err(Error::InvalidParam),
        };
        // SAFETY: schunk is NULL or live, not used concurrently, per the API.
        unsafe { change_shared_frame(schunk, |_| false, |s| s.set_fingerprint_mode(mode)) }
            .map(|_| 0)
    })
}

/// The fingerprint mode of `schunk` (RBLOSC2_FINGERPRINT_OFF, _ON or _VERIFY), or
/// BLOSC2_ERROR_NULL_POINTER.
#[no_mangle]
pub unsafe extern "C" fn rblosc2_schunk_get_fingerprint(schunk: *mut blosc2_schunk) -> c_int {
    entry(|| {
        // SAFETY: schunk is NULL or live per the API.
        let mode = unsafe { read_shared_frame(schunk, |_| false, |s| Ok(s.fingerprint_mode())) }?;
        Ok(match mode {
            FingerprintMode::Off => RBLOSC2_FINGERPRINT_OFF,
            FingerprintMode::On => RBLOSC2_FINGERPRINT_ON,
            FingerprintMode::Verify => RBLOSC2_FINGERPRINT_VERIFY,
        })
    })
}

/// Verifies the frame of `schunk` as it is in its store now: header, offsets index and trailer
/// against the fingerprint in the trailer, then every stored chunk against its own. Returns
/// RBLOSC2_VERIFY_INTACT, RBLOSC2_VERIFY_NO_FINGERPRINT or RBLOSC2_VERIFY_DAMAGED; for a
/// damaged frame, `*first_damaged_chunk` (when not NULL) receives the first damaged chunk's
/// number, or -1 when the damage is in the header, index or trailer (or the frame's parts no
/// longer fit together); otherwise -1. Negative codes: BLOSC2_ERROR_NULL_POINTER,
/// BLOSC2_ERROR_INVALID_PARAM for a super-chunk without a frame (a chunk list in memory).
#[no_mangle]
pub unsafe extern "C" fn rblosc2_schunk_verify(
    schunk: *mut blosc2_schunk,
    first_damaged_chunk: *mut i64,
) -> c_int {
    entry(|| {
        // SAFETY: schunk is NULL or live per the API.
        let report = unsafe { read_shared_frame(schunk, |_| false, |s| s.verify()) }?
            .ok_or(Error::InvalidParam)?;
        let first = report
            .damaged
            .iter()
            .find_map(|r| match r {
                crate::frame::fingerprint::Region::Chunk(n) => Some(*n),
                _ => None,
            })
            .filter(|_| report.damaged.len() == report.chunks_damaged())
            .unwrap_or(-1);
        if !first_damaged_chunk.is_null() {
            // SAFETY: non-NULL pointers point to a writable int64_t per the API.
            unsafe { first_damaged_chunk.write(first) };
        }
        Ok(if report.absent.is_some() {
            RBLOSC2_VERIFY_NO_FINGERPRINT
        } else if report.damaged.is_empty() {
            RBLOSC2_VERIFY_INTACT
        } else {
            RBLOSC2_VERIFY_DAMAGED
        })
    })
}
