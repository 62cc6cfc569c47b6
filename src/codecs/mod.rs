//! Codecs: BloscLZ (pure Rust), LZ4/LZ4HC, zlib, Zstd. User codecs are registered in
//! [`crate::chunk::registry`]; [`names::CODECS`] lists every codec id c-blosc2 names.
//!
//! The chunk engine calls `compress_stream`/`decompress_stream` once per data stream of a block.
//! LZ4, zlib and Zstd are the same C libraries c-blosc2 links (lz4 1.10, zstd 1.5.7, zlib-ng);
//! their thin safe wrappers live in `lz4.rs`, `zlib.rs` and `zstd.rs`. LZ4 blocks without a
//! dictionary are decoded in Rust first (`lz4_block.rs`), lz4's decoder deciding any block that
//! decoder refuses.

// Every unsafe operation sits in its own `unsafe {}` block with a SAFETY line, also inside
// `unsafe fn`s (the coordinator moves this to lib.rs once src/capi is clean too).

pub mod blosclz;
pub mod lz4;
mod lz4_block;
mod lz_match;
pub mod ndlz;
pub mod zfp;
pub mod zlib;
pub mod zstd;

/// Codec id (as stored in cparams and in the extended chunk header) of BloscLZ
/// (`BLOSC_BLOSCLZ`), the default.
pub const BLOSCLZ: u8 = 0;
/// Codec id of LZ4 (`BLOSC_LZ4`).
pub const LZ4: u8 = 1;
/// Codec id of LZ4HC (`BLOSC_LZ4HC`): slower compression, LZ4's format and decompressor.
pub const LZ4HC: u8 = 2;
/// Codec id of zlib (`BLOSC_ZLIB`; zlib-ng here, as in c-blosc2).
pub const ZLIB: u8 = 4;
/// Codec id of Zstandard (`BLOSC_ZSTD`).
pub const ZSTD: u8 = 5;
/// First id that is not one of the codecs c-blosc2 defines itself.
pub const LAST_CODEC: u8 = 6;
/// Codec id of NDLZ (`BLOSC_CODEC_NDLZ`), registered at start-up (`chunk::plugins`).
pub const NDLZ: u8 = 32;
/// Codec id of zfp in fixed-accuracy mode (`BLOSC_CODEC_ZFP_FIXED_ACCURACY`).
pub const ZFP_ACC: u8 = 33;
/// Codec id of zfp in fixed-precision mode (`BLOSC_CODEC_ZFP_FIXED_PRECISION`).
pub const ZFP_PREC: u8 = 34;
/// Codec id of zfp in fixed-rate mode (`BLOSC_CODEC_ZFP_FIXED_RATE`).
pub const ZFP_RATE: u8 = 35;

/// Codec library id (the 3-bit "format" field in the chunk flags) of BloscLZ.
pub const BLOSCLZ_FORMAT: u8 = 0;
/// Codec library id of LZ4 and LZ4HC.
pub const LZ4_FORMAT: u8 = 1;
/// Codec library id of zlib.
pub const ZLIB_FORMAT: u8 = 3;
/// Codec library id of Zstandard.
pub const ZSTD_FORMAT: u8 = 4;
/// Codec library id saying "a user codec: its id is in the extended header".
pub const UDCODEC_FORMAT: u8 = 6;

pub use names::{compformat, is_builtin};

/// A dictionary prepared for one chunk (compression or decompression side).
pub(crate) enum Dict<'a> {
    None,
    Zstd(&'a zstd::PreparedDict),
    Lz4(&'a [u8]),
}

/// Per-thread codec state reused across blocks (Zstd contexts are expensive to create, LZ4's
/// states to clear).
#[derive(Default)]
pub(crate) struct CodecScratch {
    pub(crate) zstd: zstd::ZstdContexts,
    pub(crate) lz4: lz4::Lz4States,
}

/// Compresses one stream with a built-in codec. Returns the compressed size, or 0 when the
/// output did not fit in `dst` (the caller then stores the stream raw).
pub(crate) fn compress_stream(
    compcode: u8,
    clevel: u8,
    src: &[u8],
    dst: &mut [u8],
    dict: &Dict<'_>,
    scratch: &mut CodecScratch,
) -> crate::Result<usize> {
    Ok(match compcode {
        BLOSCLZ => blosclz::compress(clevel as i32, src, dst),
        LZ4 => match dict {
            Dict::Lz4(d) => lz4::compress_with_dict(src, dst, d),
            // c-blosc2 trades ratio for speed at low levels: acceleration 10 - clevel.
            _ => scratch.lz4.compress(src, dst, 10 - clevel as i32),
        },
        LZ4HC => match dict {
            Dict::Lz4(d) => lz4::compress_hc_with_dict(src, dst, clevel as i32, d),
            _ => scratch.lz4.compress_hc(src, dst, clevel as i32),
        },
        ZLIB => zlib::compress(src, dst, clevel as i32),
        ZSTD => match dict {
            Dict::Zstd(d) => scratch.zstd.compress_with_dict(src, dst, d),
            _ => scratch.zstd.compress(src, dst, clevel as i32),
        },
        _ => return Err(crate::Error::CodecSupport),
    })
}

/// Decompresses one stream whose codec is given by its format code (bits 5..7 of the flags).
/// `short_periods`: the stream is a byte plane of shuffled items of 8 bytes or more (see
/// [`lz4::decompress`]). Returns the number of bytes written, which must equal `dst.len()`
/// for a valid stream.
pub(crate) fn decompress_stream(
    format: u8,
    src: &[u8],
    dst: &mut [u8],
    dict: &Dict<'_>,
    scratch: &mut CodecScratch,
    short_periods: bool,
) -> crate::Result<usize> {
    Ok(match format {
        BLOSCLZ_FORMAT => blosclz::decompress(src, dst),
        LZ4_FORMAT => match dict {
            Dict::Lz4(d) => lz4::decompress_with_dict(src, dst, d),
            _ => lz4::decompress(src, dst, short_periods),
        },
        ZLIB_FORMAT => zlib::decompress(src, dst),
        ZSTD_FORMAT => match dict {
            Dict::Zstd(d) => scratch.zstd.decompress_with_dict(src, dst, d),
            _ => scratch.zstd.decompress(src, dst),
        },
        _ => return Err(crate::Error::CodecSupport),
    })
}
pub mod names;

/// Decompresses the start of one stream: at least its first `want` bytes into `dst` (which has
/// room for the whole stream). BloscLZ stops soon after `want` bytes, and so does LZ4 (without
/// a dictionary) when `want` is at most a quarter of the stream: LZ4's partial decoder copies
/// the match that crosses its target byte by byte, which costs more than decoding a highly
/// compressible stream whole once that match is long (measured with callgrind: 1.7 against
/// 0.6 instructions per byte for half of 2 KiB streams of smooth float64 data). The other
/// codecs decode the whole stream. Returns how many leading bytes of `dst` hold decoded data:
/// at least `want` for a valid stream (callers check), 0 on error.
pub(crate) fn decompress_stream_prefix(
    format: u8,
    src: &[u8],
    dst: &mut [u8],
    want: usize,
    dict: &Dict<'_>,
    scratch: &mut CodecScratch,
    short_periods: bool,
) -> crate::Result<usize> {
    match (format, dict) {
        (BLOSCLZ_FORMAT, _) => Ok(blosclz::decompress_prefix(src, dst, want)),
        (LZ4_FORMAT, Dict::None) if want.saturating_mul(4) <= dst.len() => {
            Ok(lz4::decompress_prefix(src, dst, want))
        }
        _ => decompress_stream(format, src, dst, dict, scratch, short_periods),
    }
}
