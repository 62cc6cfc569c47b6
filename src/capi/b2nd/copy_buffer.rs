//! n-d buffer copies: `b2nd_copy_buffer`, `b2nd_copy_buffer2`.

use libc::{c_int, c_void};

use super::context::dims;
use crate::b2nd::slice;
use crate::capi::ffi::{entry, in_bytes, in_slice, out_bytes};
use crate::{Error, Result};

/// What `b2nd_copy_buffer2` does; the buffers' lengths are those of their padded shapes.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn copy_buffer_c(
    ndim: i8,
    itemsize: i32,
    src: *const c_void,
    src_pad_shape: *const i64,
    src_start: *const i64,
    src_stop: *const i64,
    dst: *mut c_void,
    dst_pad_shape: *const i64,
    dst_start: *const i64,
) -> Result<c_int> {
    let n = dims(ndim)?;
    let itemsize = usize::try_from(itemsize)
        .ok()
        .filter(|s| *s > 0)
        .ok_or(Error::InvalidParam)?;
    // SAFETY: `ndim` items each, per the contract.
    let (src_pad, src_start, src_stop, dst_pad, dst_start) = unsafe {
        (
            in_slice(src_pad_shape, n)?,
            in_slice(src_start, n)?,
            in_slice(src_stop, n)?,
            in_slice(dst_pad_shape, n)?,
            in_slice(dst_start, n)?,
        )
    };
    let copied = src_start
        .iter()
        .zip(src_stop)
        .try_fold(1i64, |acc, (a, b)| {
            acc.checked_mul(b.saturating_sub(*a).max(0))
        });
    if copied == Some(0) {
        return Ok(0);
    }
    let len_of = |shape: &[i64]| -> Result<usize> {
        shape
            .iter()
            .try_fold(itemsize as u64, |acc, s| {
                u64::try_from(*s).ok().and_then(|s| acc.checked_mul(s))
            })
            .and_then(|n| usize::try_from(n).ok())
            .filter(|n| *n <= isize::MAX as usize)
            .ok_or(Error::InvalidParam)
    };
    let (src_len, dst_len) = (len_of(src_pad)?, len_of(dst_pad)?);
    if src.is_null() || dst.is_null() {
        return Err(Error::NullPointer);
    }
    // SAFETY: the source buffer holds its padded shape's items and the destination buffer its
    // own (the function's contract); a copy within one buffer is not supported by c-blosc2
    // either, so the two do not overlap.
    let (src, dst) = unsafe { (in_bytes(src, src_len)?, out_bytes(dst, dst_len)?) };
    slice::copy_buffer(
        itemsize, src, src_pad, src_start, src_stop, dst, dst_pad, dst_start,
    )?;
    Ok(0)
}

/// Copies the region `src_start` .. `src_stop` (per dimension, stop exclusive) of the C-ordered
/// `ndim`-dimensional buffer `src`, whose full shape is `src_pad_shape`, into the C-ordered
/// buffer `dst` of shape `dst_pad_shape` at position `dst_start`. Items are `itemsize` bytes (at
/// most 255; see `b2nd_copy_buffer2` for larger). Returns 0, or a negative code
/// (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_INVALID_PARAM for a region outside either buffer).
#[no_mangle]
pub unsafe extern "C" fn b2nd_copy_buffer(
    ndim: i8,
    itemsize: u8,
    src: *const c_void,
    src_pad_shape: *const i64,
    src_start: *const i64,
    src_stop: *const i64,
    dst: *mut c_void,
    dst_pad_shape: *const i64,
    dst_start: *const i64,
) -> c_int {
    entry(|| {
        // SAFETY: forwarded contract.
        unsafe {
            copy_buffer_c(
                ndim,
                i32::from(itemsize),
                src,
                src_pad_shape,
                src_start,
                src_stop,
                dst,
                dst_pad_shape,
                dst_start,
            )
        }
    })
}

/// As `b2nd_copy_buffer`, with an `int32_t` item size (items of any size). Returns 0 or a
/// negative code.
#[no_mangle]
pub unsafe extern "C" fn b2nd_copy_buffer2(
    ndim: i8,
    itemsize: i32,
    src: *const c_void,
    src_pad_shape: *const i64,
    src_start: *const i64,
    src_stop: *const i64,
    dst: *mut c_void,
    dst_pad_shape: *const i64,
    dst_start: *const i64,
) -> c_int {
    entry(|| {
        // SAFETY: forwarded contract.
        unsafe {
            copy_buffer_c(
                ndim,
                itemsize,
                src,
                src_pad_shape,
                src_start,
                src_stop,
                dst,
                dst_pad_shape,
                dst_start,
            )
        }
    })
}
