//! Compressed-buffer info: sizes, validation, metainfo, versions, library name.

use std::ffi::CStr;
use std::ptr;

use libc::{c_char, c_int, c_void};

use crate::capi::ffi::{entry, guard, in_bytes, static_cstr};
use crate::chunk::header::{ChunkHeader, MAX_BUFFERSIZE, MIN_HEADER_LENGTH};
use crate::chunk::registry;
use crate::{Error, Result};

/// The header at `p` as c-blosc2's cbuffer queries read it: its first 16 bytes only, whatever
/// the flags say (a 16-byte header may be all there is before an unmapped page).
///
/// # Safety
/// `p` is NULL or points to 16 readable bytes.
pub(super) unsafe fn cbuffer_header(p: *const c_void) -> Result<ChunkHeader> {
    // SAFETY: forwarded contract.
    ChunkHeader::parse_min(unsafe { in_bytes(p, MIN_HEADER_LENGTH) }?)
}

/// Reads the sizes recorded in the header of the chunk at `cbuffer`: `*nbytes` its uncompressed
/// size, `*cbytes` its compressed size and `*blocksize` its block size, in bytes (any output may
/// be NULL). Returns 0, or a negative code for a header that cannot be read (the outputs are then
/// set to 0).
#[no_mangle]
pub unsafe extern "C" fn blosc2_cbuffer_sizes(
    cbuffer: *const c_void,
    nbytes: *mut i32,
    cbytes: *mut i32,
    blocksize: *mut i32,
) -> c_int {
    entry(|| {
        // SAFETY: cbuffer points to a chunk header, per the API.
        let h = unsafe { cbuffer_header(cbuffer) };
        // c-blosc2 reports zeros for a header it cannot read.
        let (n, c, b) = h.map_or((0, 0, 0), |h| (h.nbytes, h.cbytes, h.blocksize));
        // SAFETY: each output is NULL or writable, per the API.
        unsafe {
            if !nbytes.is_null() {
                *nbytes = n;
            }
            if !cbytes.is_null() {
                *cbytes = c;
            }
            if !blocksize.is_null() {
                *blocksize = b;
            }
        }
        h.map(|_| 0)
    })
}

/// The Blosc1 form of `blosc2_cbuffer_sizes`, with `size_t` outputs and no return code (the
/// outputs are 0 for a header that cannot be read).
#[no_mangle]
pub unsafe extern "C" fn blosc1_cbuffer_sizes(
    cbuffer: *const c_void,
    nbytes: *mut usize,
    cbytes: *mut usize,
    blocksize: *mut usize,
) {
    guard((), || {
        let (mut n, mut c, mut b) = (0i32, 0i32, 0i32);
        // SAFETY: forwarded contract; the locals are writable.
        unsafe { blosc2_cbuffer_sizes(cbuffer, &mut n, &mut c, &mut b) };
        // SAFETY: each output is NULL or writable, per the API (c-blosc2 requires all three).
        unsafe {
            if !nbytes.is_null() {
                *nbytes = n as usize;
            }
            if !cbytes.is_null() {
                *cbytes = c as usize;
            }
            if !blocksize.is_null() {
                *blocksize = b as usize;
            }
        }
    })
}

/// Checks that `cbuffer` holds a chunk of exactly `cbytes` bytes whose header is readable and
/// whose content fits in a buffer, and writes its uncompressed size to `*nbytes` (0 on error).
/// Returns 0, or a negative code: BLOSC2_ERROR_WRITE_BUFFER when `cbytes` is below the minimal
/// header, BLOSC2_ERROR_INVALID_HEADER when the header's cbytes differs, BLOSC2_ERROR_MEMORY_ALLOC
/// when nbytes exceeds `BLOSC2_MAX_BUFFERSIZE`.
#[no_mangle]
pub unsafe extern "C" fn blosc1_cbuffer_validate(
    cbuffer: *const c_void,
    cbytes: usize,
    nbytes: *mut usize,
) -> c_int {
    entry(|| {
        let result = (|| {
            if cbytes < MIN_HEADER_LENGTH {
                return Err(Error::WriteBuffer);
            }
            // SAFETY: cbuffer holds cbytes >= 16 bytes, per the API. c-blosc2 reads them
            // as blosc2_cbuffer_sizes does.
            let h = unsafe { cbuffer_header(cbuffer) }?;
            if h.cbytes as i64 != cbytes as i64 {
                return Err(Error::InvalidHeader);
            }
            // c-blosc2 compares the nbytes stored in a size_t: a negative one is huge.
            if h.nbytes as isize as usize > MAX_BUFFERSIZE as usize {
                return Err(Error::MemoryAlloc);
            }
            Ok(h.nbytes as usize)
        })();
        if !nbytes.is_null() {
            // SAFETY: non-NULL and writable, per the API.
            unsafe { *nbytes = *result.as_ref().unwrap_or(&0) };
        }
        result.map(|_| 0)
    })
}

/// Reads the item size (`*typesize`) and the flags byte (`*flags`: shuffle, memcpyed, ... bits)
/// from the header of the chunk at `cbuffer`; both are 0 for a header that cannot be read. Either
/// output may be NULL.
#[no_mangle]
pub unsafe extern "C" fn blosc1_cbuffer_metainfo(
    cbuffer: *const c_void,
    typesize: *mut usize,
    flags: *mut c_int,
) {
    guard((), || {
        // SAFETY: cbuffer points to a chunk header, per the API.
        let (t, f) = unsafe { cbuffer_header(cbuffer) }
            .map_or((0, 0), |h| (h.typesize as usize, h.flags as c_int));
        // SAFETY: each output is NULL or writable, per the API.
        unsafe {
            if !typesize.is_null() {
                *typesize = t;
            }
            if !flags.is_null() {
                *flags = f;
            }
        }
    })
}

/// Reads the chunk format version (`*version`) and the codec format version (`*versionlz`) from
/// the header of the chunk at `cbuffer`; both are 0 for a header that cannot be read. Either
/// output may be NULL.
#[no_mangle]
pub unsafe extern "C" fn blosc2_cbuffer_versions(
    cbuffer: *const c_void,
    version: *mut c_int,
    versionlz: *mut c_int,
) {
    guard((), || {
        // SAFETY: cbuffer points to a chunk header, per the API.
        let (v, vlz) = unsafe { cbuffer_header(cbuffer) }
            .map_or((0, 0), |h| (h.version as c_int, h.versionlz as c_int));
        // SAFETY: each output is NULL or writable, per the API.
        unsafe {
            if !version.is_null() {
                *version = v;
            }
            if !versionlz.is_null() {
                *versionlz = vlz;
            }
        }
    })
}

/// The library name for a chunk's 3-bit format code: the built-in libraries, else a
/// registered codec whose `complib` is that code.
pub(super) fn complib_name(format: u8) -> Option<&'static CStr> {
    match format {
        0 => Some(c"BloscLZ"),
        1 => Some(c"LZ4"),
        2 => Some(c"Snappy"),
        3 => Some(c"Zlib"),
        4 => Some(c"Zstd"),
        _ => registry::codec_by_complib(format).map(|e| static_cstr(&e.name)),
    }
}

/// The name of the compression library that produced the chunk at `cbuffer` ("BloscLZ", "LZ4",
/// "Zlib", "Zstd", or a registered codec's name), or NULL when the header cannot be read or the
/// library is unknown. The string is static: do not free it.
#[no_mangle]
pub unsafe extern "C" fn blosc2_cbuffer_complib(cbuffer: *const c_void) -> *const c_char {
    guard(ptr::null(), || {
        // SAFETY: cbuffer points to a chunk header, per the API.
        match unsafe { cbuffer_header(cbuffer) } {
            Ok(h) => complib_name(h.compformat()).map_or(ptr::null(), CStr::as_ptr),
            Err(_) => ptr::null(),
        }
    })
}
