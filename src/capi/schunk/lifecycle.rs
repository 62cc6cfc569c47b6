//! Creating, copying and freeing super-chunks.

use std::ptr;

use libc::c_int;

use super::access::resync_whole;
use super::handle::{handle, handle_mut, recycle, storage_from_c_for, SchunkHandle};
use crate::capi::ffi::{entry, guard, Castable};
use crate::capi::io::destroy_io;
use crate::capi::types::*;
use crate::schunk::Schunk;
use crate::Error;

/// Creates an empty super-chunk stored as `storage` says (NULL: in memory with default
/// parameters): in memory or on disk at `storage->urlpath`, as a contiguous frame or (sparse) a
/// directory. `storage` and what it points to are copied, except `storage->io`, whose params
/// must outlive the super-chunk. Returns the super-chunk, which the caller releases with
/// `blosc2_schunk_free`, or NULL on invalid parameters or when the file cannot be created.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_new(storage: *mut blosc2_storage) -> *mut blosc2_schunk {
    entry(|| {
        // The handle keeps the caller's blosc2_io; the storage is converted again once the
        // handle's address (the parameters' schunk back-pointer) is known.
        // SAFETY: storage is NULL or valid per the API.
        let (_, io) = unsafe { storage_from_c_for(storage, ptr::null_mut()) }?;
        let p = SchunkHandle::create(io, |at| {
            // SAFETY: as above; `at` is where the handle will live.
            let (st, _) = unsafe { storage_from_c_for(storage, at) }?;
            Schunk::new(st)
        })?;
        // SAFETY: storage is NULL or valid per the API; p was just created.
        unsafe { show_caller_nthreads(p, storage, None) };
        Ok(p)
    })
}

/// Shows in the storage of the new super-chunk `p` the thread counts the caller's `storage`
/// names (`cparams_nthreads` when given, for a copy's cparams of its own; 1 for what it leaves
/// NULL), which BLOSC_NTHREADS replaced in its contexts only.
///
/// # Safety
/// `p` is a live handle; `storage` is NULL or valid.
unsafe fn show_caller_nthreads(
    p: *mut blosc2_schunk,
    storage: *const blosc2_storage,
    cparams_nthreads: Option<i16>,
) {
    // SAFETY: per the contract.
    let s = unsafe { storage.as_ref() };
    // SAFETY: non-NULL parameter pointers of a valid storage are valid.
    let (c, d) = unsafe {
        (
            s.and_then(|s| s.cparams.as_ref()).map_or(1, |c| c.nthreads),
            s.and_then(|s| s.dparams.as_ref()).map_or(1, |d| d.nthreads),
        )
    };
    // SAFETY: per the contract.
    if let Some(h) = unsafe { handle_mut(p) } {
        h.show_storage_nthreads(cparams_nthreads.unwrap_or(c), d);
    }
}

/// Copies `schunk` (chunks, metalayers and vlmetalayers) into a new super-chunk stored as
/// `storage` says. Chunks are copied as they are when the compression parameters match and
/// recompressed otherwise; without `storage->cparams` the source's parameters are kept. Returns
/// the copy, which the caller releases with `blosc2_schunk_free`, or NULL on error.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_copy(
    schunk: *mut blosc2_schunk,
    storage: *mut blosc2_storage,
) -> *mut blosc2_schunk {
    entry(|| {
        // SAFETY: schunk is NULL or live per the API.
        unsafe { resync_whole(schunk) }?;
        // SAFETY: as above.
        let h = unsafe { handle(schunk) }.ok_or(Error::NullPointer)?;
        // SAFETY: storage is NULL or valid per the API.
        let (_, io) = unsafe { storage_from_c_for(storage, ptr::null_mut()) }?;
        // c-blosc2 keeps the source's compression parameters when the storage names none.
        // SAFETY: storage is NULL or valid per the API.
        let keep_cparams = unsafe { storage.as_ref() }.is_none_or(|s| s.cparams.is_null());
        let p = SchunkHandle::create(io, |at| {
            // SAFETY: as above.
            let (mut st, _) = unsafe { storage_from_c_for(storage, at) }?;
            if keep_cparams {
                st.cparams = h.copy_cparams(at);
            }
            h.copy_to(st, None).map_err(|_| Error::SchunkCopy)
        })?;
        // c-blosc2's copy parameters of its own have no thread count.
        // SAFETY: storage is NULL or valid per the API; p was just created.
        unsafe { show_caller_nthreads(p, storage, keep_cparams.then_some(0)) };
        Ok(p)
    })
}

/// Releases `schunk`: its chunks, metalayers, contexts and frame (a file-backed frame stays on
/// disk; use `blosc2_remove_urlpath` to delete it), and calls the `destroy` callback of a user I/O
/// backend. A frame buffer obtained from `blosc2_schunk_to_buffer` after
/// `blosc2_schunk_avoid_cframe_free(schunk, true)` is left to the caller. NULL is accepted.
/// Returns 0.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_free(schunk: *mut blosc2_schunk) -> c_int {
    entry(|| {
        if schunk.is_null() {
            return Ok(0);
        }
        // SAFETY: a live handle from this module, not used after this call (per the API).
        let mut h = unsafe { blosc2_schunk::try_take(schunk) }?;
        if h.avoid_cframe_free {
            // The caller took the frame buffer (from blosc2_schunk_to_buffer) and frees it
            // itself: leave that one allocation alive, free the rest of the super-chunk.
            if let Some(bytes) = h.schunk.take_frame_bytes() {
                std::mem::forget(bytes);
            }
        }
        let io = h.io;
        recycle(h);
        // SAFETY: the super-chunk and its stores are gone; io is the one it was used with.
        unsafe { destroy_io(&io) };
        Ok(0)
    })
}

/// With `avoid_cframe_free` true, `blosc2_schunk_free` leaves the in-memory frame buffer of
/// `schunk` alive: for a caller that took that buffer from `blosc2_schunk_to_buffer`
/// (needs_free false) and will free it itself with free(). Does nothing for NULL.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_avoid_cframe_free(
    schunk: *mut blosc2_schunk,
    avoid_cframe_free: bool,
) {
    guard((), || {
        // SAFETY: schunk is NULL or live per the API.
        if let Some(h) = unsafe { handle_mut(schunk) } {
            h.avoid_cframe_free = avoid_cframe_free;
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capi::meta::{blosc2_meta_add, blosc2_vlmeta_add};

    /// A freed handle's box comes back for the next super-chunk (see `handle::recycle`): the
    /// new one shows nothing of the old one's metalayers, vlmetalayers, chunks or fields.
    #[test]
    fn a_recycled_handle_shows_nothing_of_the_freed_one() {
        for round in 0..20 {
            // SAFETY: NULL storage (defaults); every pointer is the live handle just made,
            // read before it is freed.
            unsafe {
                let sc = blosc2_schunk_new(ptr::null_mut());
                assert!(!sc.is_null());
                let m = &*sc;
                assert_eq!((m.nmetalayers, m.nvlmetalayers, m.nchunks), (0, 0, 0));
                assert!(m.metalayers.iter().all(|p| p.is_null()));
                assert!(m.vlmetalayers.iter().all(|p| p.is_null()), "round {round}");
                assert!(m.data.is_null() && m.frame.is_null() && !m.view);
                assert_eq!((m.nbytes, m.cbytes, m.change_tick), (0, 0, 0));
                let mut content = *b"abc";
                assert_eq!(
                    blosc2_meta_add(sc, c"m".as_ptr(), content.as_mut_ptr(), 3),
                    0
                );
                for name in [c"v0", c"v1", c"v2", c"v3"] {
                    let p = content.as_mut_ptr();
                    assert!(blosc2_vlmeta_add(sc, name.as_ptr(), p, 3, ptr::null_mut()) >= 0);
                }
                let chunk = [7u8; 64];
                let n =
                    crate::capi::schunk::blosc2_schunk_append_buffer(sc, chunk.as_ptr().cast(), 64);
                assert_eq!(n, 1);
                assert_eq!((m.nmetalayers, m.nvlmetalayers, m.nchunks), (1, 4, 1));
                assert_eq!(blosc2_schunk_free(sc), 0);
            }
        }
    }
}
