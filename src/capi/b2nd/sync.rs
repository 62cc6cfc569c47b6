//! Following other writers of the array's frame: refresh and the frame lock.

use std::ptr;

use libc::c_int;

use super::handle::{array_handle, with_array};
use crate::b2nd::array::read_meta;
use crate::capi::ffi::entry;
use crate::capi::schunk::{blosc2_schunk_refresh, schunk_ref};
use crate::capi::types::*;
use crate::frame::lock::LockGuard;
use crate::{Error, Result};

/// Re-reads a disk-based array another handle changed: the super-chunk is refreshed
/// (`blosc2_schunk_refresh`: 1 when it changed, 0 when current or not on disk) and the public
/// fields follow the new shape; a changed ndim, chunk shape or block shape is
/// BLOSC2_ERROR_DATA. As in c-blosc2, the data functions (slices, selections, copies, shape
/// changes, save) do this first by themselves; calling it is for seeing another handle's shape
/// change without touching data. For a view (b2nd_squeeze, b2nd_expand_dims), its base's
/// super-chunk is refreshed and the view's fields follow its base's shape (1 when the view's
/// shape changed); a dimension the view dropped that grew past 1 is BLOSC2_ERROR_INVALID_PARAM.
#[no_mangle]
pub unsafe extern "C" fn b2nd_refresh(array: *mut b2nd_array_t) -> c_int {
    // SAFETY: forwarded contract.
    entry(|| unsafe { refresh_array(array) })
}

/// The body of [`b2nd_refresh`].
///
/// # Safety
/// `array` is NULL or a live array of ours.
pub(super) unsafe fn refresh_array(array: *mut b2nd_array_t) -> Result<c_int> {
    // The handle reference ends with this block.
    let (ndim, chunkshape, blockshape, sc, view_of) = {
        // SAFETY: a live array per the contract.
        let h = unsafe { array_handle(array) }?;
        let base = h.map.as_ref().and(h.owner.as_ref()).map(|o| o.0);
        (h.c.ndim, h.c.chunkshape, h.c.blockshape, h.c.sc, base)
    };
    if let Some(base) = view_of {
        // A view follows its base's super-chunk, which this or another handle may have
        // changed: its fields follow through its map (an error once the base no longer fits
        // the view). 1 when the view's shape changed.
        // SAFETY: the base's live super-chunk handle, kept alive by the view.
        let rc = unsafe { blosc2_schunk_refresh(base) };
        if rc < 0 {
            return Ok(rc);
        }
        // SAFETY: a live array.
        let before = unsafe { (*array).shape };
        // SAFETY: a live array.
        unsafe { with_array(array, |_| Ok(())) }?;
        // SAFETY: a live array.
        let changed = unsafe { (*array).shape } != before;
        return Ok(rc.max(c_int::from(changed)));
    }
    // SAFETY: its live super-chunk handle.
    let rc = unsafe { blosc2_schunk_refresh(sc) };
    if rc < 0 {
        return Ok(rc);
    }
    // The super-chunk may have been refreshed before (a client refreshing it first, as
    // python-blosc2's holding_lock does): as c-blosc2, the array re-reads its metalayer
    // whenever the super-chunk's change tick moved since the array last looked.
    // SAFETY: a live array and its live super-chunk handle.
    let stale_array = unsafe { (*array).last_tick != (*sc).change_tick };
    if rc == 0 && !stale_array {
        return Ok(0);
    }
    // SAFETY: as above.
    let sc = unsafe { schunk_ref(sc) }.ok_or(Error::NullPointer)?;
    let m = read_meta(sc)?;
    let n = m.ndim();
    if n != ndim as usize
        || m.chunkshape[..] != chunkshape[..n]
        || m.blockshape[..] != blockshape[..n]
    {
        return Err(Error::Data);
    }
    // SAFETY: a live array; with_array rewrites its fields from the refreshed super-chunk.
    unsafe { with_array(array, |_| Ok(())) }?;
    Ok(1)
}

/// The shared frame lock of the array's super-chunk (nothing for arrays not on disk or not
/// locking), taken by the read calls before they follow another handle's changes and held
/// through the read: the re-sync and the read then see one state of the frame, never part of
/// a change (c-blosc2 re-syncs before it locks, and its reads can mix two writes).
///
/// # Safety
/// `array` is NULL or a live array of ours.
pub(super) unsafe fn hold_shared(array: *const b2nd_array_t) -> Result<LockGuard> {
    // SAFETY: forwarded contract.
    let sc = unsafe { array.as_ref() }.map_or(ptr::null_mut(), |c| c.sc);
    // SAFETY: a live array's super-chunk handle (or NULL).
    match unsafe { schunk_ref(sc) } {
        Some(s) => s.hold(false),
        None => LockGuard::acquire(None, false),
    }
}

/// What c-blosc2's data functions do first: an array on disk follows the changes another
/// handle made to its frame (shape, chunks). A no-op for arrays in memory.
///
/// # Safety
/// `array` is NULL or a live array of ours (C's `const` notwithstanding: c-blosc2 updates it
/// the same way).
pub(super) unsafe fn follow_writer(array: *const b2nd_array_t) -> Result<()> {
    // SAFETY: forwarded contract.
    match unsafe { refresh_array(array.cast_mut()) }? {
        rc if rc < 0 => Err(Error::from_code(rc).unwrap_or(Error::Failure)),
        _ => Ok(()),
    }
}
