//! Special-value chunks: zeros, NaNs, a repeated value, uninitialised.

use libc::{c_int, c_void};

use super::buffers::len_of;
use super::context::create_cctx;
use crate::capi::ffi::{entry, in_chunk_bytes, out_chunk_bytes};
use crate::capi::types::*;
use crate::chunk::header::{Special, EXTENDED_HEADER_LENGTH, MAX_BUFFERSIZE};
use crate::chunk::special;
use crate::{Error, Result};

/// One special chunk, with c-blosc2's checks in its order.
pub(super) fn special_chunk(
    cparams: &blosc2_cparams,
    kind: Special,
    nbytes: i32,
    dst: &mut [u8],
    value: Option<&[u8]>,
) -> Result<c_int> {
    if dst.len() < EXTENDED_HEADER_LENGTH {
        return Err(Error::Data);
    }
    let ts = cparams.typesize;
    if ts <= 0 || (nbytes > 0 && nbytes % ts != 0) {
        return Err(Error::Data);
    }
    if kind == Special::Value && dst.len() < EXTENDED_HEADER_LENGTH + ts as usize {
        return Err(Error::Data);
    }
    let ctx = create_cctx(&mut { *cparams }).map_err(|_| Error::NullPointer)?;
    let params = ctx.get().compressor()?.params();
    params.consult_tuner()?;
    if nbytes as i64 > MAX_BUFFERSIZE {
        return Err(Error::MaxBufsizeExceeded);
    }
    if params.clevel > 9 {
        return Err(Error::CodecParam);
    }
    len_of(special::write(params, kind, nbytes, value, dst)?)
}

/// Writes to `dest` (room for `destsize` bytes) a chunk that stands for `nbytes` zero bytes
/// without storing them: just a header (`BLOSC_EXTENDED_HEADER_LENGTH` bytes). `cparams` gives
/// the typesize and the other header fields; `nbytes` must be a multiple of the typesize. Returns
/// the chunk size, or a negative code (BLOSC2_ERROR_DATA when `destsize` is too small,
/// BLOSC2_ERROR_INVALID_PARAM, BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED, BLOSC2_ERROR_CODEC_PARAM).
#[no_mangle]
pub unsafe extern "C" fn blosc2_chunk_zeros(
    cparams: blosc2_cparams,
    nbytes: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    entry(|| {
        // SAFETY: dest holds destsize bytes, per the API.
        let dst = unsafe { out_chunk_bytes(dest, destsize) }?;
        special_chunk(&cparams, Special::Zero, nbytes, dst, None)
    })
}

/// As `blosc2_chunk_zeros`, for a chunk that stands for `nbytes` bytes of NaNs (float32 or
/// float64: `cparams.typesize` must be 4 or 8). Returns the chunk size or a negative code.
#[no_mangle]
pub unsafe extern "C" fn blosc2_chunk_nans(
    cparams: blosc2_cparams,
    nbytes: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    entry(|| {
        // SAFETY: dest holds destsize bytes, per the API.
        let dst = unsafe { out_chunk_bytes(dest, destsize) }?;
        special_chunk(&cparams, Special::Nan, nbytes, dst, None)
    })
}

/// As `blosc2_chunk_zeros`, for a chunk that stands for `nbytes` bytes of the value at
/// `repeatval` (one item of `cparams.typesize` bytes) repeated; the chunk is the header followed
/// by that value. Returns the chunk size or a negative code.
#[no_mangle]
pub unsafe extern "C" fn blosc2_chunk_repeatval(
    cparams: blosc2_cparams,
    nbytes: i32,
    dest: *mut c_void,
    destsize: i32,
    repeatval: *const c_void,
) -> c_int {
    entry(|| {
        // SAFETY: dest holds destsize bytes, per the API.
        let dst = unsafe { out_chunk_bytes(dest, destsize) }?;
        // SAFETY: repeatval holds one item of typesize bytes, per the API.
        let value = unsafe { in_chunk_bytes(repeatval, cparams.typesize) }?;
        special_chunk(&cparams, Special::Value, nbytes, dst, Some(value))
    })
}

/// As `blosc2_chunk_zeros`, for a chunk of `nbytes` bytes whose content is unspecified
/// (decompressing it leaves the destination untouched). Returns the chunk size or a negative
/// code.
#[no_mangle]
pub unsafe extern "C" fn blosc2_chunk_uninit(
    cparams: blosc2_cparams,
    nbytes: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    entry(|| {
        // SAFETY: dest holds destsize bytes, per the API.
        let dst = unsafe { out_chunk_bytes(dest, destsize) }?;
        special_chunk(&cparams, Special::Uninit, nbytes, dst, None)
    })
}
