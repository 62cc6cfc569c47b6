//! The "b2nd" metalayer: `b2nd_serialize_meta`, `b2nd_deserialize_meta`.

use std::ptr;

use libc::{c_char, c_int};

use super::context::dims;
use crate::b2nd::{meta, MAX_DIM};
use crate::capi::ffi::{c_str, entry, in_slice, malloc_copy, malloc_cstring, out_slice};
use crate::Error;

/// Encodes the "b2nd" metalayer content for an array of `ndim` dimensions with `shape`,
/// `chunkshape`, `blockshape` and `dtype` (NULL: the default) in `dtype_format`. `*smeta`
/// receives a new buffer allocated with malloc that the caller frees with free(). Returns the
/// buffer's length in bytes, or a negative code (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_FAILURE
/// for a bad `dtype_format`, BLOSC2_ERROR_INVALID_PARAM for bad dimensions).
#[no_mangle]
pub unsafe extern "C" fn b2nd_serialize_meta(
    ndim: i8,
    shape: *const i64,
    chunkshape: *const i32,
    blockshape: *const i32,
    dtype: *const c_char,
    dtype_format: i8,
    smeta: *mut *mut u8,
) -> c_int {
    entry(|| {
        if smeta.is_null() {
            return Err(Error::NullPointer);
        }
        if dtype_format < 0 {
            return Err(Error::Failure);
        }
        let n = dims(ndim)?;
        // SAFETY: `ndim` items each, per the contract.
        let (shape, chunkshape, blockshape) = unsafe {
            (
                in_slice(shape, n)?,
                in_slice(chunkshape, n)?,
                in_slice(blockshape, n)?,
            )
        };
        let dtype = if dtype.is_null() {
            None
        } else {
            // SAFETY: a non-NULL dtype is a NUL-terminated string.
            Some(unsafe { c_str(dtype) }.ok_or(Error::InvalidParam)?)
        };
        let bytes = meta::serialize(shape, chunkshape, blockshape, dtype, dtype_format)?;
        let len = c_int::try_from(bytes.len()).map_err(|_| Error::Failure)?;
        // SAFETY: `smeta` is non-NULL and writable.
        unsafe { *smeta = malloc_copy(&bytes)? };
        Ok(len)
    })
}

/// Decodes the "b2nd" metalayer content `smeta` (`smeta_len` bytes): writes the number of
/// dimensions to `*ndim` and fills `shape`, `chunkshape` and `blockshape` (each with room for
/// `B2ND_MAX_DIM` entries). When `dtype` and `dtype_format` are both non-NULL, `*dtype_format`
/// receives the format and `*dtype` a new string allocated with malloc (the caller frees it with
/// free()), or NULL when the metalayer has no dtype. Returns the number of bytes decoded, or a
/// negative code (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_FAILURE or BLOSC2_ERROR_DATA for
/// content that is not a valid metalayer).
#[no_mangle]
pub unsafe extern "C" fn b2nd_deserialize_meta(
    smeta: *const u8,
    smeta_len: i32,
    ndim: *mut i8,
    shape: *mut i64,
    chunkshape: *mut i32,
    blockshape: *mut i32,
    dtype: *mut *mut c_char,
    dtype_format: *mut i8,
) -> c_int {
    entry(|| {
        if smeta.is_null()
            || ndim.is_null()
            || shape.is_null()
            || chunkshape.is_null()
            || blockshape.is_null()
        {
            return Err(Error::NullPointer);
        }
        // SAFETY: both are NULL or writable, per the contract.
        unsafe {
            if let Some(d) = dtype.as_mut() {
                *d = ptr::null_mut();
            }
            if let Some(f) = dtype_format.as_mut() {
                *f = 0;
            }
        }
        if smeta_len <= 0 {
            return Err(Error::Failure);
        }
        // SAFETY: `smeta_len` readable bytes per the contract.
        let mut bytes = unsafe { in_slice(smeta, smeta_len as usize)? };
        let want_dtype = !dtype.is_null() && !dtype_format.is_null();
        if !want_dtype && bytes.len() > 2 {
            // Without somewhere to put it, c-blosc2 stops before the dtype entry.
            let n = usize::from(bytes[2].min(MAX_DIM as u8));
            bytes = &bytes[..bytes.len().min(6 + 19 * n)];
        }
        let (m, used) = meta::deserialize(bytes)?;
        let n = m.ndim();
        // SAFETY: the caller's arrays hold B2ND_MAX_DIM items; ndim <= MAX_DIM.
        unsafe {
            *ndim = n as i8;
            out_slice(shape, n)?.copy_from_slice(&m.shape);
            out_slice(chunkshape, n)?.copy_from_slice(&m.chunkshape);
            out_slice(blockshape, n)?.copy_from_slice(&m.blockshape);
            if want_dtype {
                *dtype_format = m.dtype_format;
                if let Some(d) = &m.dtype {
                    *dtype = malloc_cstring(d)?;
                }
            }
        }
        c_int::try_from(used).map_err(|_| Error::Failure)
    })
}
