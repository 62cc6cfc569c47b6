//! Reading and writing items: whole buffers, slices, sparse and orthogonal selections.

use libc::{c_int, c_void};

use super::handle::with_array;
use super::sync::{follow_writer, hold_shared};
use crate::b2nd::MAX_DIM;
use crate::capi::ffi::{entry, in_bytes, in_slice, out_bytes};
use crate::capi::types::*;
use crate::{Error, Result};

/// The array's ndim (0 for NULL; the caller's function reports NULL itself).
///
/// # Safety
/// `p` is NULL or a live array.
pub(super) unsafe fn ndim_of(p: *const b2nd_array_t) -> usize {
    // SAFETY: forwarded contract.
    unsafe { p.as_ref() }.map_or(0, |a| a.ndim.clamp(0, MAX_DIM as i8) as usize)
}

/// Decompresses the whole `array` into the C-ordered buffer `buffer` of `buffersize` bytes (at
/// least the item count times the item size). Returns 0, or a negative code
/// (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_INVALID_PARAM when `buffersize` is too small, a
/// decompression error).
#[no_mangle]
pub unsafe extern "C" fn b2nd_to_cbuffer(
    array: *const b2nd_array_t,
    buffer: *mut c_void,
    buffersize: i64,
) -> c_int {
    entry(|| {
        // SAFETY: NULL or a live array per the API.
        let _held = unsafe { hold_shared(array) }?;
        // SAFETY: as above.
        unsafe { follow_writer(array) }?;
        if array.is_null() || buffer.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: live array; the buffer holds buffersize bytes.
        unsafe {
            let out = out_bytes(buffer, buffersize)?;
            with_array(array, |a| a.to_cbuffer(out))?;
        }
        Ok(0)
    })
}

/// Decompresses the region `start` .. `stop` (one entry per dimension, stop exclusive) of
/// `array` into `buffer`, a C-ordered buffer of shape `buffershape` (which must be at least the
/// region's shape) and `buffersize` bytes; the region is written at the buffer's origin. Returns
/// 0, or a negative code (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_INVALID_PARAM for a region
/// outside the array or a buffer too small, a decompression error).
#[no_mangle]
pub unsafe extern "C" fn b2nd_get_slice_cbuffer(
    array: *const b2nd_array_t,
    start: *const i64,
    stop: *const i64,
    buffer: *mut c_void,
    buffershape: *const i64,
    buffersize: i64,
) -> c_int {
    entry(|| {
        // SAFETY: NULL or a live array per the API.
        let _held = unsafe { hold_shared(array) }?;
        // SAFETY: as above.
        unsafe { follow_writer(array) }?;
        if array.is_null() || start.is_null() || stop.is_null() || buffershape.is_null() {
            return Err(Error::NullPointer);
        }
        if buffer.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: live array; ndim items in each coordinate list; buffersize bytes of buffer.
        unsafe {
            let n = ndim_of(array);
            let (start, stop, shape) = (
                in_slice(start, n)?,
                in_slice(stop, n)?,
                in_slice(buffershape, n)?,
            );
            let out = out_bytes(buffer, buffersize)?;
            with_array(array, |a| a.get_slice_cbuffer(start, stop, out, shape))?;
        }
        Ok(0)
    })
}

/// Writes the C-ordered `buffer` (shape `buffershape`, `buffersize` bytes) into the region
/// `start` .. `stop` (stop exclusive) of `array`, recompressing the chunks involved. The buffer is
/// only read. Returns 0, or a negative code (BLOSC2_ERROR_NULL_POINTER,
/// BLOSC2_ERROR_INVALID_PARAM for a region outside the array or a buffer too small, a compression
/// or storage error).
#[no_mangle]
pub unsafe extern "C" fn b2nd_set_slice_cbuffer(
    buffer: *const c_void,
    buffershape: *const i64,
    buffersize: i64,
    start: *const i64,
    stop: *const i64,
    array: *mut b2nd_array_t,
) -> c_int {
    entry(|| {
        // SAFETY: NULL or a live array per the API.
        unsafe { follow_writer(array) }?;
        if array.is_null() || start.is_null() || stop.is_null() || buffer.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: live array; ndim items in each coordinate list; buffersize bytes of buffer.
        unsafe {
            let n = ndim_of(array);
            let (start, stop, shape) = (
                in_slice(start, n)?,
                in_slice(stop, n)?,
                in_slice(buffershape, n)?,
            );
            let data = in_bytes(buffer, buffersize)?;
            with_array(array, |a| a.set_slice_cbuffer(data, shape, start, stop))?;
        }
        Ok(0)
    })
}

/// Decompresses the `ncoords` items whose coordinates are in `coords` (`ncoords * ndim` entries,
/// one item after another) into `buffer` (`buffersize` bytes, at least `ncoords` items). Returns
/// 0, or a negative code (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_INVALID_PARAM for a coordinate
/// outside the array or a buffer too small).
#[no_mangle]
pub unsafe extern "C" fn b2nd_get_sparse_cbuffer(
    array: *const b2nd_array_t,
    ncoords: i64,
    coords: *const i64,
    buffer: *mut c_void,
    buffersize: i64,
) -> c_int {
    entry(|| {
        // SAFETY: NULL or a live array per the API.
        let _held = unsafe { hold_shared(array) }?;
        // SAFETY: as above.
        unsafe { follow_writer(array) }?;
        if array.is_null() {
            return Err(Error::NullPointer);
        }
        let n = usize::try_from(ncoords).map_err(|_| Error::InvalidParam)?;
        // SAFETY: ncoords coordinates and buffersize bytes, per the contract.
        unsafe {
            let coords = in_slice(coords, n)?;
            // c-blosc2 reports a coordinate outside the array as a bad parameter.
            let nitems = (*array).nitems;
            if coords.iter().any(|c| *c < 0 || *c >= nitems) {
                return Err(Error::InvalidParam);
            }
            let out = if n == 0 {
                &mut []
            } else {
                if buffer.is_null() {
                    return Err(Error::NullPointer);
                }
                out_bytes(buffer, buffersize)?
            };
            with_array(array, |a| a.get_sparse_cbuffer(coords, out))?;
        }
        Ok(0)
    })
}

/// The per-dimension index lists of an orthogonal selection, with c-blosc2's checks (an index
/// above the extent is `InvalidIndex`; a buffer larger than the selection `InvalidParam`).
///
/// # Safety
/// `selection` holds ndim pointers to `selection_size[i]` indices each.
pub(super) unsafe fn selection_of<'a>(
    array: *const b2nd_array_t,
    selection: *mut *mut i64,
    selection_size: *mut i64,
    buffersize: i64,
) -> Result<Vec<&'a [i64]>> {
    if array.is_null() || selection.is_null() || selection_size.is_null() {
        return Err(Error::NullPointer);
    }
    // SAFETY: live array.
    let (n, typesize) = unsafe { (ndim_of(array), (*(*array).sc).typesize) };
    // SAFETY: ndim pointers and sizes per the contract.
    let (lists, sizes) = unsafe {
        (
            in_slice(selection.cast_const(), n)?,
            in_slice(selection_size.cast_const(), n)?,
        )
    };
    let mut out = Vec::with_capacity(n);
    let mut sel_bytes = i64::from(typesize);
    for (p, size) in lists.iter().zip(sizes) {
        if p.is_null() {
            return Err(Error::NullPointer);
        }
        let len = usize::try_from(*size).map_err(|_| Error::InvalidParam)?;
        // SAFETY: `size` indices at `p`, per the contract.
        out.push(unsafe { in_slice(p.cast_const(), len)? });
        sel_bytes = sel_bytes.saturating_mul(*size);
    }
    if sel_bytes < buffersize {
        return Err(Error::InvalidParam);
    }
    Ok(out)
}

/// Reads an orthogonal selection of `array`: for each dimension d, `selection[d]` lists
/// `selection_size[d]` indexes along it; the result (every combination, C order) goes to
/// `buffer`, of shape `buffershape` (`selection_size`) and `buffersize` bytes. Returns 0, or a
/// negative code (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_INVALID_PARAM for an index out of
/// range or a buffer too small).
#[no_mangle]
pub unsafe extern "C" fn b2nd_get_orthogonal_selection(
    array: *const b2nd_array_t,
    selection: *mut *mut i64,
    selection_size: *mut i64,
    buffer: *mut c_void,
    buffershape: *mut i64,
    buffersize: i64,
) -> c_int {
    entry(|| {
        // SAFETY: NULL or a live array per the API.
        let _held = unsafe { hold_shared(array) }?;
        // SAFETY: as above.
        unsafe { follow_writer(array) }?;
        // SAFETY: per the contract (see selection_of); buffersize bytes of buffer, ndim extents.
        unsafe {
            let sel = selection_of(array, selection, selection_size, buffersize)?;
            let shape = in_slice(buffershape.cast_const(), ndim_of(array))?;
            let out = out_bytes(buffer, buffersize)?;
            with_array(array, |a| a.get_orthogonal_selection(&sel, out, shape))?;
        }
        Ok(0)
    })
}

/// Writes `buffer` (shape `buffershape`, `buffersize` bytes) to the orthogonal selection of
/// `array` that `selection` / `selection_size` describe (as in `b2nd_get_orthogonal_selection`).
/// Returns 0 or a negative code.
#[no_mangle]
pub unsafe extern "C" fn b2nd_set_orthogonal_selection(
    array: *mut b2nd_array_t,
    selection: *mut *mut i64,
    selection_size: *mut i64,
    buffer: *const c_void,
    buffershape: *mut i64,
    buffersize: i64,
) -> c_int {
    entry(|| {
        // SAFETY: NULL or a live array per the API.
        unsafe { follow_writer(array) }?;
        // SAFETY: as in b2nd_get_orthogonal_selection.
        unsafe {
            let sel = selection_of(array, selection, selection_size, buffersize)?;
            let shape = in_slice(buffershape.cast_const(), ndim_of(array))?;
            let data = in_bytes(buffer, buffersize)?;
            with_array(array, |a| a.set_orthogonal_selection(&sel, data, shape))?;
        }
        Ok(0)
    })
}
