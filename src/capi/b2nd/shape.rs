//! Changing the shape: resize, insert, append, delete.

use libc::{c_int, c_void};

use super::handle::with_array;
use super::items::ndim_of;
use super::sync::follow_writer;
use crate::capi::ffi::{entry, in_bytes, in_slice};
use crate::capi::types::*;
use crate::{Error, Result};

/// Changes the shape of `array` to `new_shape` (`ndim` entries). A dimension that grows gets new
/// zero items at `start[d]` (NULL `start`: at the end); one that shrinks loses items from
/// `start[d]` (NULL: from the end). Away from the end, `start[d]` and the change must be
/// multiples of the chunk shape. Returns 0, or a negative code (BLOSC2_ERROR_NULL_POINTER,
/// BLOSC2_ERROR_INVALID_PARAM for a view, a misaligned start or a bad shape, a storage error).
#[no_mangle]
pub unsafe extern "C" fn b2nd_resize(
    array: *mut b2nd_array_t,
    new_shape: *const i64,
    start: *const i64,
) -> c_int {
    entry(|| {
        // SAFETY: NULL or a live array per the API.
        unsafe { follow_writer(array) }?;
        if array.is_null() || new_shape.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: live array; ndim items each (start may be NULL).
        unsafe {
            let n = ndim_of(array);
            let shape = in_slice(new_shape, n)?;
            let start = if start.is_null() {
                None
            } else {
                Some(in_slice(start, n)?)
            };
            with_array(array, |a| a.resize(shape, start))?;
        }
        Ok(0)
    })
}

/// `axis` as a dimension of the array, or `InvalidParam`.
///
/// # Safety
/// `array` is live.
pub(super) unsafe fn axis_of(array: *const b2nd_array_t, axis: i8) -> Result<usize> {
    // SAFETY: forwarded contract.
    let n = unsafe { ndim_of(array) };
    usize::try_from(axis)
        .ok()
        .filter(|a| *a < n)
        .ok_or(Error::InvalidParam)
}

/// Inserts the C-ordered `buffer` (`buffersize` bytes; its shape is the array's with
/// dimension `axis` set to what the size gives) into `array` along `axis`, at index
/// `insert_start`. Returns 0, or a negative code (BLOSC2_ERROR_NULL_POINTER,
/// BLOSC2_ERROR_INVALID_PARAM for a bad axis, position or size).
#[no_mangle]
pub unsafe extern "C" fn b2nd_insert(
    array: *mut b2nd_array_t,
    buffer: *const c_void,
    buffersize: i64,
    axis: i8,
    insert_start: i64,
) -> c_int {
    entry(|| {
        // SAFETY: NULL or a live array per the API.
        unsafe { follow_writer(array) }?;
        if array.is_null() || buffer.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: live array; buffersize bytes of buffer.
        unsafe {
            let axis = axis_of(array, axis)?;
            let data = in_bytes(buffer, buffersize)?;
            with_array(array, |a| a.insert(data, axis, insert_start))?;
        }
        Ok(0)
    })
}

/// Appends the C-ordered `buffer` (`buffersize` bytes) to `array` along `axis` (as `b2nd_insert`
/// at the end of that axis). Returns 0 or a negative code.
#[no_mangle]
pub unsafe extern "C" fn b2nd_append(
    array: *mut b2nd_array_t,
    buffer: *const c_void,
    buffersize: i64,
    axis: i8,
) -> c_int {
    entry(|| {
        // SAFETY: NULL or a live array per the API.
        unsafe { follow_writer(array) }?;
        if array.is_null() || buffer.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: live array; buffersize bytes of buffer.
        unsafe {
            let axis = axis_of(array, axis)?;
            let data = in_bytes(buffer, buffersize)?;
            with_array(array, |a| a.append(data, axis))?;
        }
        Ok(0)
    })
}

/// Removes `delete_len` items along `axis`, starting at index `delete_start`, from `array`.
/// Returns 0, or a negative code (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_INVALID_PARAM for a bad
/// axis or range).
#[no_mangle]
pub unsafe extern "C" fn b2nd_delete(
    array: *mut b2nd_array_t,
    axis: i8,
    delete_start: i64,
    delete_len: i64,
) -> c_int {
    entry(|| {
        // SAFETY: NULL or a live array per the API.
        unsafe { follow_writer(array) }?;
        if array.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: live array.
        unsafe {
            let axis = axis_of(array, axis)?;
            with_array(array, |a| a.delete(axis, delete_start, delete_len))?;
        }
        Ok(0)
    })
}
