//! Chunk arguments whose length C does not pass: the header bytes, the whole chunk.

use libc::{c_int, c_void};

use crate::capi::ffi::{in_bytes, in_chunk_bytes};
use crate::chunk::header::{
    ChunkHeader, DOBITSHUFFLE, DOSHUFFLE, EXTENDED_HEADER_LENGTH, MIN_HEADER_LENGTH,
};
use crate::{Error, Result};

pub(super) fn len_of(size: usize) -> Result<c_int> {
    c_int::try_from(size).map_err(|_| Error::MaxBufsizeExceeded)
}

/// The header bytes of a chunk whose length the caller does not tell (the blosc1 API and the
/// cbuffer queries): 16 bytes, or 32 when the flags announce the extended header.
///
/// # Safety
/// `p` is NULL or points to a chunk header (32 readable bytes if its flags say extended).
pub(super) unsafe fn header_bytes<'a>(p: *const c_void) -> Result<&'a [u8]> {
    // SAFETY: per the contract, a chunk header has at least 16 bytes.
    let basic = unsafe { in_bytes(p, MIN_HEADER_LENGTH) }?;
    let flags = basic[2];
    if flags & DOSHUFFLE != 0 && flags & DOBITSHUFFLE != 0 {
        // SAFETY: per the contract, an extended header has 32 bytes.
        unsafe { in_bytes(p, EXTENDED_HEADER_LENGTH) }
    } else {
        Ok(basic)
    }
}

/// The whole chunk at `p` as its header tells its length (for the blosc1 calls that take no
/// source size).
///
/// # Safety
/// `p` is NULL or points to a complete chunk.
pub(super) unsafe fn whole_chunk<'a>(p: *const c_void) -> Result<&'a [u8]> {
    // SAFETY: forwarded contract.
    let h = ChunkHeader::parse(unsafe { header_bytes(p) }?)?;
    // SAFETY: a complete chunk holds the cbytes its header states.
    unsafe { in_chunk_bytes(p, h.cbytes) }
}
