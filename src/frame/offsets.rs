//! The chunk-offsets index of a frame: a Blosc2 chunk of little-endian int64 offsets (from the
//! end of the header), where a negative value stands for a special chunk stored nowhere.

use crate::chunk::header::{Special, SPECIAL_MASK};
use crate::chunk::params::{CParamsAdjust, NEVER_SPLIT};
use crate::chunk::{CParams, ChunkHeader, Compressor, DParams, Decompressor};
use crate::{Error, Result};

/// Bytes of the offsets of `nchunks` chunks, if it fits a chunk.
pub fn offsets_nbytes(nchunks: i64) -> Result<usize> {
    if nchunks < 0 {
        return Err(Error::InvalidParam);
    }
    let n = nchunks.checked_mul(8).ok_or(Error::Data)?;
    if n > crate::chunk::header::MAX_BUFFERSIZE {
        return Err(Error::Data);
    }
    Ok(n as usize)
}

/// The offset value that stands for a special chunk of `kind` (zeros, NaNs, uninit).
pub fn special_offset(kind: Special) -> i64 {
    ((1u64 << 63) | ((kind as u64) << 56)) as i64
}

/// The special kind an offset stands for (`None` for a regular offset).
pub fn offset_special(offset: i64) -> Option<Result<Special>> {
    if offset >= 0 {
        return None;
    }
    let v = offset as u64;
    // c-blosc2 tests the kind bits in this order.
    Some(if v & ((Special::Zero as u64) << 56) != 0 {
        Ok(Special::Zero)
    } else if v & ((Special::Uninit as u64) << 56) != 0 {
        Ok(Special::Uninit)
    } else if v & ((Special::Nan as u64) << 56) != 0 {
        Ok(Special::Nan)
    } else {
        Err(Error::Data)
    })
}

/// The special kind a chunk stores in its header that frames keep as an offset value only.
pub fn chunk_offset_special(chunk: &[u8]) -> Option<Special> {
    let flags = *chunk.get(31)?;
    match (flags >> 4) & SPECIAL_MASK {
        1 => Some(Special::Zero),
        2 => Some(Special::Nan),
        4 => Some(Special::Uninit),
        _ => None,
    }
}

/// The parameters c-blosc2 compresses the offsets with when it appends, inserts, updates,
/// as `adjust` changes them (c-blosc2's context takes the environment's settings) but for the
/// typesize, which stays 8.
fn offsets_cparams_with(adjust: Option<&CParamsAdjust>) -> CParams {
    let mut c = offsets_cparams();
    if let Some(adjust) = adjust {
        adjust(&mut c);
        c.typesize = 8;
    }
    c
}

/// The parameters c-blosc2 compresses the offsets with when it appends, inserts, updates.
fn offsets_cparams() -> CParams {
    CParams {
        compcode: crate::codecs::BLOSCLZ,
        clevel: 5,
        typesize: 8,
        blocksize: 16 * 1024,
        splitmode: NEVER_SPLIT,
        nthreads: 1,
        ..CParams::default()
    }
}

/// Compresses offsets into an offsets chunk.
pub fn encode(offsets: &[i64]) -> Result<Vec<u8>> {
    encode_with_room(offsets, offsets.len(), None)
}

/// Compresses offsets into a destination sized for `room` offsets. c-blosc2 sizes it for the
/// count before a deletion, which decides whether a chunk that does not shrink is stored as
/// it came out of the codec or memcpyed; the bytes differ, so we size it the same way. The
/// parameters are c-blosc2's as `adjust` changes them (see [`CParamsAdjust`]).
pub fn encode_with_room(
    offsets: &[i64],
    room: usize,
    adjust: Option<&CParamsAdjust>,
) -> Result<Vec<u8>> {
    let nbytes = offsets_nbytes(offsets.len() as i64)?;
    let room_nbytes = offsets_nbytes(room.max(offsets.len()) as i64)?;
    let mut src = Vec::with_capacity(nbytes);
    for o in offsets {
        src.extend_from_slice(&o.to_le_bytes());
    }
    let mut dst = vec![0u8; room_nbytes + crate::chunk::header::MAX_OVERHEAD];
    let n = Compressor::new(offsets_cparams_with(adjust))?.compress(&src, &mut dst)?;
    if n == 0 {
        return Err(Error::Data);
    }
    dst.truncate(n);
    Ok(dst)
}

/// The offsets chunk of `nchunks` chunks that are all special chunks of `kind` (a run-length
/// chunk of one repeated offset, as c-blosc2's fill_special writes it), its parameters as
/// `adjust` changes them (see [`offsets_cparams_with`]).
pub fn encode_all_special(
    nchunks: i64,
    kind: Special,
    adjust: Option<&CParamsAdjust>,
) -> Result<Vec<u8>> {
    let nbytes = offsets_nbytes(nchunks)?;
    let params = offsets_cparams_with(adjust);
    let mut dst = vec![0u8; crate::chunk::header::EXTENDED_HEADER_LENGTH + 8];
    let value = special_offset(kind).to_le_bytes();
    let n = crate::chunk::special::make(
        &params,
        Special::Value,
        nbytes as i32,
        Some(&value),
        &mut dst,
    )?;
    dst.truncate(n);
    Ok(dst)
}

/// Decompresses an offsets chunk that must hold exactly `nchunks` offsets.
pub fn decode(chunk: &[u8], nchunks: i64) -> Result<Vec<i64>> {
    let nbytes = offsets_nbytes(nchunks)?;
    let h = ChunkHeader::parse(chunk)?;
    if h.nbytes as usize != nbytes {
        return Err(Error::Data);
    }
    let mut dst = vec![0u8; nbytes];
    let dparams = DParams {
        typesize: 8,
        ..DParams::default()
    };
    let n = Decompressor::new(dparams)?.decompress(chunk, &mut dst, None)?;
    if n != nbytes {
        return Err(Error::Data);
    }
    Ok(dst
        .as_chunks::<8>()
        .0
        .iter()
        .map(|&b| i64::from_le_bytes(b))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_round_trip() {
        let offs: Vec<i64> = vec![0, 2475, special_offset(Special::Zero), 4452];
        let chunk = encode(&offs).unwrap();
        assert_eq!(decode(&chunk, 4).unwrap(), offs);
        assert_eq!(decode(&chunk, 3), Err(Error::Data));
        assert_eq!(
            offset_special(special_offset(Special::Nan)),
            Some(Ok(Special::Nan))
        );
        assert_eq!(offset_special(7), None);
        assert_eq!(offset_special(-1), Some(Ok(Special::Zero)));
        assert_eq!(offset_special(i64::MIN), Some(Err(Error::Data)));
    }
}
