//! The codec streams of a block, both ways: each stream is a 4-byte size and the codec's
//! bytes (or a run of one byte), written by the compressor and read by the decoders.

use super::header::ChunkHeader;
use super::params::{CParams, DParams};
use crate::codecs::{self, Dict};
use crate::{Error, Result};

/// Compresses one stream with the chunk's codec (built-in or user-registered); 0 when it did
/// not fit in `dst`. `source` is the whole buffer being compressed, for user codecs.
pub(crate) fn encode_stream(
    params: &CParams,
    stream: &[u8],
    dst: &mut [u8],
    dict: &Dict<'_>,
    codec: &mut codecs::CodecScratch,
    source: &[u8],
) -> Result<usize> {
    match &params.user_codec {
        Some(uc) if !codecs::is_builtin(params.compcode) => {
            if !uc.encoder_available() {
                return Err(Error::CodecSupport);
            }
            let r = uc.encode(stream, dst, params.compcode_meta, params, source);
            // c-blosc2 answers any negative encoder result with BLOSC2_ERROR_DATA.
            if r < 0 {
                return Err(Error::Data);
            }
            Ok(r as usize)
        }
        _ => codecs::compress_stream(params.compcode, params.clevel, stream, dst, dict, codec),
    }
}

/// One codec stream of a block, as its 4-byte size announces it.
#[derive(Clone, Copy)]
pub(super) enum Stream<'s> {
    /// Zeros (size 0) or a run of one byte (negative size, then a token byte).
    Repeat(u8),
    /// The stream's bytes: coded, or the stream stored as it is when as long as the stream.
    Coded(&'s [u8]),
}

/// Reads the next stream of a block from `src` and moves `src` past it.
pub(super) fn next_stream<'s>(src: &mut &'s [u8]) -> Result<Stream<'s>> {
    let rest: &'s [u8] = src;
    let head = rest.get(..4).ok_or(Error::ReadBuffer)?;
    let csize = i32::from_le_bytes([head[0], head[1], head[2], head[3]]);
    let rest = &rest[4..];
    if csize == 0 {
        *src = rest;
        return Ok(Stream::Repeat(0));
    }
    if csize < 0 {
        let token = *rest.first().ok_or(Error::ReadBuffer)?;
        *src = &rest[1..];
        if token & 1 == 0 || csize < -255 {
            return Err(Error::RunLength);
        }
        return Ok(Stream::Repeat((-csize) as u8));
    }
    let cdata = rest.get(..csize as usize).ok_or(Error::ReadBuffer)?;
    *src = &rest[csize as usize..];
    Ok(Stream::Coded(cdata))
}

/// Decompresses one stream with the chunk's codec (built-in or user-registered); returns the
/// bytes written. `chunk` is the whole chunk, for user codecs.
pub(crate) fn decode_stream(
    h: &ChunkHeader,
    cdata: &[u8],
    out: &mut [u8],
    dict: &Dict<'_>,
    dparams: &DParams,
    codec: &mut codecs::CodecScratch,
    chunk: &[u8],
) -> Result<usize> {
    if h.compformat() != codecs::UDCODEC_FORMAT {
        return codecs::decompress_stream(
            h.compformat(),
            cdata,
            out,
            dict,
            codec,
            short_periods(h),
        );
    }
    // The params' own codec, or a registered one (the plugins c-blosc2 registers at init are
    // there from the start, for params built without the C layer).
    let uc = dparams
        .user_codecs
        .iter()
        .find(|(id, _)| *id == h.udcompcode)
        .map(|(_, c)| c.clone())
        .or_else(|| super::registry::codec(h.udcompcode).map(|e| e.codec))
        .ok_or(Error::CodecSupport)?;
    if !uc.decoder_available() {
        return Err(Error::CodecSupport);
    }
    let r = uc.decode(
        cdata,
        out,
        h.compcode_meta,
        dparams,
        chunk,
        i32::from(h.typesize),
    );
    // c-blosc2 answers any result but the stream's full length, error codes included, with
    // BLOSC2_ERROR_DATA.
    if r < 0 || r as usize != out.len() {
        return Err(Error::Data);
    }
    Ok(r as usize)
}

/// [`decode_stream`] of at least the first `want` bytes of a stream (see
/// `codecs::decompress_stream_prefix`); user codecs decode the whole stream.
#[allow(clippy::too_many_arguments)]
pub(super) fn decode_stream_prefix(
    h: &ChunkHeader,
    cdata: &[u8],
    out: &mut [u8],
    want: usize,
    dict: &Dict<'_>,
    dparams: &DParams,
    codec: &mut codecs::CodecScratch,
    chunk: &[u8],
) -> Result<usize> {
    if h.compformat() == codecs::UDCODEC_FORMAT {
        return decode_stream(h, cdata, out, dict, dparams, codec, chunk);
    }
    codecs::decompress_stream_prefix(
        h.compformat(),
        cdata,
        out,
        want,
        dict,
        codec,
        short_periods(h),
    )
}

/// Whether the chunk holds byte-shuffled items of 8 bytes or more, whose LZ4 streams'
/// matches mostly repeat short periods (the case of the Rust LZ4 decoder, see
/// `codecs::lz4::decompress`).
fn short_periods(h: &ChunkHeader) -> bool {
    h.typesize >= 8 && h.filters.contains(&super::header::SHUFFLE)
}
