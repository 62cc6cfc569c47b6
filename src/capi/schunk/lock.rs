//! The frame lock: `blosc2_schunk_lock`, `blosc2_schunk_unlock`.

use libc::c_int;

use super::access::read;
use crate::capi::ffi::entry;
use crate::capi::types::*;

// The frame lock (src/frame/lock.rs) is taken only by handles whose filesystem backend asks
// for it (blosc2_stdio_params `locking` or BLOSC_LOCKING); for the others, and for super-chunks
// not on disk, lock and unlock succeed and do nothing, as in c-blosc2.

/// Takes the frame lock of a file-backed `schunk` exclusively (when locking is enabled through
/// its `blosc2_stdio_params` or BLOSC_LOCKING), so that other handles on the same frame wait;
/// nested calls on the same handle are counted. Does nothing for super-chunks without locking.
/// Returns 0 or a negative code (BLOSC2_ERROR_NULL_POINTER, a locking error).
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_lock(schunk: *mut blosc2_schunk) -> c_int {
    // SAFETY: schunk is NULL or live per the API.
    entry(|| unsafe { read(schunk) }?.lock().map(|_| 0))
}

/// Releases the frame lock taken by `blosc2_schunk_lock` (the outermost unlock releases it).
/// Returns 0 or a negative code.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_unlock(schunk: *mut blosc2_schunk) -> c_int {
    // SAFETY: schunk is NULL or live per the API.
    entry(|| unsafe { read(schunk) }?.unlock().map(|_| 0))
}
