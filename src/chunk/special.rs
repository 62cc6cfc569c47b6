//! Special-value chunks: a header (plus one value) that stands for a whole chunk of zeros,
//! NaNs, a repeated value, or uninitialised bytes.

use super::blocksize::choose_blocksize;
use super::header::*;
use super::params::CParams;
use crate::{Error, Result};

/// Writes a special chunk of `nbytes` bytes into `dst`; returns its length.
pub fn make(
    params: &CParams,
    kind: Special,
    nbytes: i32,
    value: Option<&[u8]>,
    dst: &mut [u8],
) -> Result<usize> {
    let typesize = params.typesize;
    if typesize <= 0 || typesize > MAXBLOCKSIZE {
        return Err(Error::InvalidParam);
    }
    if nbytes < 0 || nbytes % typesize != 0 {
        return Err(Error::InvalidParam);
    }
    if kind == Special::Nan && typesize != 4 && typesize != 8 {
        return Err(Error::InvalidParam);
    }
    write(params, kind, nbytes, value, dst)
}

/// Writes a special chunk without `make`'s checks of the item size (the C layer checks what
/// c-blosc2 checks, which writes NaN chunks of any typesize). Like c-blosc2, the header names
/// no codec or filters and states the block size a compression of `nbytes` would use.
///
/// Items wider than the header's typesize byte (256 bytes up to `MAXBLOCKSIZE`, c-blosc2's
/// limit) are written as c-blosc2 3.3.5 writes them: typesize byte 1, and for a repeated value
/// the whole item after the header (`cbytes` = 32 + typesize), which is how a reader finds the
/// item's width (see the decompressor's `fill_plain`).
pub fn write(
    params: &CParams,
    kind: Special,
    nbytes: i32,
    value: Option<&[u8]>,
    dst: &mut [u8],
) -> Result<usize> {
    let typesize = params.typesize;
    if typesize <= 0 || typesize > MAXBLOCKSIZE || nbytes < 0 {
        return Err(Error::InvalidParam);
    }
    let header_typesize = if typesize > MAX_TYPESIZE as i32 {
        1
    } else {
        typesize as u8
    };
    let len = EXTENDED_HEADER_LENGTH
        + if kind == Special::Value {
            typesize as usize
        } else {
            0
        };
    if dst.len() < len {
        return Err(Error::WriteBuffer);
    }
    let header = ChunkHeader {
        version: VERSION_FORMAT_STABLE,
        versionlz: 1,
        flags: DOSHUFFLE | DOBITSHUFFLE,
        typesize: header_typesize,
        nbytes,
        blocksize: choose_blocksize(
            params.compcode,
            params.clevel,
            typesize,
            nbytes,
            params.blocksize,
            params.splitmode,
            flags_from_filters(&params.filters),
        )
        .0,
        cbytes: len as i32,
        filters: [0; MAX_FILTERS],
        udcompcode: 0,
        compcode_meta: 0,
        filters_meta: [0; MAX_FILTERS],
        blosc2_flags2: 0,
        blosc2_flags: (kind as u8) << 4,
        extended: true,
    };
    header.write(dst);
    if kind == Special::Value {
        let v = value
            .and_then(|v| v.get(..typesize as usize))
            .ok_or(Error::NullPointer)?;
        dst[EXTENDED_HEADER_LENGTH..len].copy_from_slice(v);
    }
    Ok(len)
}
