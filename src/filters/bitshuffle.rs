//! Bit shuffle filter (`BLOSC_BITSHUFFLE`), as in c-blosc2 (after Kiyo Masui's bitshuffle).
//!
//! Of a block of `n = len / typesize` elements, the first `m = n - n % 8` are transposed at bit
//! level and the bytes after them are copied unchanged. The output has `8 * typesize` rows of
//! `m / 8` bytes: bit `i` of row `8 * j + k` (byte `i / 8`, least significant bit first) is bit
//! `k` of byte `j` of element `i`. We get there as c-blosc2 does in two steps: a byte shuffle of
//! the `m` elements, then a bit transposition of each of the `typesize` byte streams.
//!
//! Chunks of format version 2 (c-blosc 1.x) were written by a bitshuffle that only ran when
//! `n % 8 == 0` and otherwise copied the whole block; [`bitunshuffle`] takes the chunk's version
//! byte to undo either. In both cases the bytes after the transposed items are copied from the
//! stream: c-blosc2 3.3.5 leaves them unwritten for version 2 (whatever the caller's buffer
//! held), but c-blosc >= 1.18 stored the source bytes there, so copying them is the only way to
//! give back the data (see tests/compat.rs for the c-blosc 1.17.1 writer, which did not).

#[cfg(target_arch = "x86_64")]
mod avx2;
mod scalar;
#[cfg(target_arch = "x86_64")]
mod sse2;

use super::cpu::{self, Isa};
use super::shuffle;
use crate::{Error, Result};
use std::cell::RefCell;

/// The chunk format version (c-blosc 1.x) whose bitunshuffle copies blocks with `n % 8 != 0`.
pub const BLOSC1_FORMAT_VERSION: u8 = 2;

/// The chunk format version c-blosc2 3.3.5 writes (`BLOSC2_VERSION_FORMAT`); any version but 2
/// unshuffles the same way.
pub const CURRENT_FORMAT_VERSION: u8 = 6;

/// Bit-shuffles one block. Errors with `InvalidParam` if `typesize == 0` or the lengths differ.
pub fn bitshuffle(typesize: usize, src: &[u8], dst: &mut [u8]) -> Result<()> {
    bitshuffle_on(cpu::isa(), typesize, src, dst)
}

/// Inverse of [`bitshuffle`] for a block of a chunk with version byte `format_version`.
///
/// For version 2 (c-blosc 1.x) blocks whose element count is not a multiple of 8 are plain
/// copies; every other version (1 included, as in the reference) transposes the leading
/// multiple of 8 elements and copies the rest. Errors as [`bitshuffle`].
pub fn bitunshuffle(typesize: usize, src: &[u8], dst: &mut [u8], format_version: u8) -> Result<()> {
    bitunshuffle_on(cpu::isa(), typesize, src, dst, format_version)
}

thread_local! {
    /// Scratch space for the byte-shuffled stage, kept per thread to avoid an allocation per block.
    static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Blocks up to this size reuse the per-thread scratch buffer; larger ones (rare: c-blosc2's
/// automatic blocks are far smaller) get a temporary one, so no thread keeps a huge buffer.
const SCRATCH_KEPT: usize = 4 << 20;

/// Runs `f` with a scratch buffer of `len` bytes.
fn with_scratch<R>(len: usize, f: impl FnOnce(&mut [u8]) -> R) -> R {
    if len > SCRATCH_KEPT {
        return f(&mut vec![0u8; len]);
    }
    SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut buf) => {
            if buf.len() < len {
                buf.resize(len, 0);
            }
            f(&mut buf[..len])
        }
        // Re-entered from within `f` (cannot happen today): fall back to a fresh buffer.
        Err(_) => f(&mut vec![0u8; len]),
    })
}

fn check(typesize: usize, src: &[u8], dst: &[u8]) -> Result<()> {
    if typesize == 0 || src.len() != dst.len() {
        return Err(Error::InvalidParam);
    }
    Ok(())
}

pub(crate) fn rows_from_bytes_on(isa: Isa, stream: &[u8], rows: &mut [u8]) {
    let done = match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `isa` is Avx2Gfni only when the CPU was detected to support AVX2 and GFNI.
        Isa::Avx2Gfni => unsafe { avx2::rows_from_bytes_gfni(stream, rows) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `isa` is Avx2 only when the CPU was detected to support AVX2.
        Isa::Avx2 => unsafe { avx2::rows_from_bytes(stream, rows) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `isa` is Sse2 or better only when the CPU supports SSE2.
        Isa::Sse2 => unsafe { sse2::rows_from_bytes(stream, rows) },
        _ => 0,
    };
    scalar::rows_from_bytes(done, stream, rows);
}

pub(crate) fn bytes_from_rows_on(isa: Isa, rows: &[u8], stream: &mut [u8]) {
    let done = match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `isa` is Avx2Gfni only when the CPU was detected to support AVX2 and GFNI.
        Isa::Avx2Gfni => unsafe { avx2::bytes_from_rows_gfni(rows, stream) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `isa` is Avx2 only when the CPU was detected to support AVX2.
        Isa::Avx2 => unsafe { avx2::bytes_from_rows(rows, stream) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `isa` is Sse2 or better only when the CPU supports SSE2.
        Isa::Sse2 => unsafe { sse2::bytes_from_rows(rows, stream) },
        _ => 0,
    };
    scalar::bytes_from_rows(done, rows, stream);
}

pub(crate) fn bitshuffle_on(isa: Isa, typesize: usize, src: &[u8], dst: &mut [u8]) -> Result<()> {
    check(typesize, src, dst)?;
    let m = (src.len() / typesize) & !7;
    let body = m * typesize;
    if m > 0 {
        if typesize == 1 {
            rows_from_bytes_on(isa, &src[..body], &mut dst[..body]);
        } else {
            with_scratch(body, |streams| {
                shuffle::shuffle_on(isa, typesize, &src[..body], streams);
                for (stream, rows) in streams.chunks_exact(m).zip(dst.chunks_exact_mut(m)) {
                    rows_from_bytes_on(isa, stream, rows);
                }
            });
        }
    }
    dst[body..].copy_from_slice(&src[body..]);
    Ok(())
}

pub(crate) fn bitunshuffle_on(
    isa: Isa,
    typesize: usize,
    src: &[u8],
    dst: &mut [u8],
    format_version: u8,
) -> Result<()> {
    check(typesize, src, dst)?;
    let n = src.len() / typesize;
    if format_version == BLOSC1_FORMAT_VERSION && !n.is_multiple_of(8) {
        dst.copy_from_slice(src);
        return Ok(());
    }
    let m = n & !7;
    let body = m * typesize;
    if m > 0 {
        if typesize == 1 {
            bytes_from_rows_on(isa, &src[..body], &mut dst[..body]);
        } else {
            with_scratch(body, |streams| {
                for (rows, stream) in src.chunks_exact(m).zip(streams.chunks_exact_mut(m)) {
                    bytes_from_rows_on(isa, rows, stream);
                }
                shuffle::unshuffle_on(isa, typesize, streams, &mut dst[..body]);
            });
        }
    }
    dst[body..].copy_from_slice(&src[body..]);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filters::testutil::{fnv1a, lengths, pattern, TYPESIZES};

    /// The transform written out bit by bit, independent of the kernels.
    fn naive_bitshuffle(typesize: usize, src: &[u8]) -> Vec<u8> {
        let m = (src.len() / typesize) & !7;
        let mut out = src.to_vec();
        out[..m * typesize].fill(0);
        for i in 0..m {
            for j in 0..typesize {
                for k in 0..8 {
                    let bit = (src[i * typesize + j] >> k) & 1;
                    let row = (8 * j + k) * (m / 8);
                    out[row + i / 8] |= bit << (i % 8);
                }
            }
        }
        out
    }

    #[test]
    fn every_kernel_matches_the_definition_and_round_trips() {
        for isa in cpu::available() {
            for &ts in TYPESIZES {
                for len in lengths(ts).into_iter().filter(|l| *l <= 70_000) {
                    let src = pattern(len);
                    let mut out = vec![0xAA; len];
                    bitshuffle_on(isa, ts, &src, &mut out).unwrap();
                    assert_eq!(out, naive_bitshuffle(ts, &src), "{isa:?} ts {ts} len {len}");
                    let mut back = vec![0x55; len];
                    bitunshuffle_on(isa, ts, &out, &mut back, CURRENT_FORMAT_VERSION).unwrap();
                    assert_eq!(back, src, "{isa:?} ts {ts} len {len}");
                }
            }
        }
    }

    #[test]
    fn stream_kernels_match_scalar() {
        for isa in cpu::available() {
            for len in (0..3000).step_by(8).chain([65536, 65536 + 8, 65536 + 248]) {
                let src = pattern(len);
                let (mut rows, mut want) = (vec![0; len], vec![0; len]);
                rows_from_bytes_on(isa, &src, &mut rows);
                scalar::rows_from_bytes(0, &src, &mut want);
                assert_eq!(rows, want, "{isa:?} len {len}");
                let (mut bytes, mut want) = (vec![0; len], vec![0; len]);
                bytes_from_rows_on(isa, &src, &mut bytes);
                scalar::bytes_from_rows(0, &src, &mut want);
                assert_eq!(bytes, want, "{isa:?} len {len}");
            }
        }
    }

    // FNV-1a of c-blosc2 3.3.5's blosc2_bitshuffle / blosc2_bitunshuffle output on `pattern(len)`.
    const BITSHUFFLE_KAT: [(usize, usize, u64); 16] = [
        (1, 1000, 0x68aa14e15e9dbbe0),
        (2, 4098, 0x19c7bfb6833da357),
        (3, 3001, 0x9f8dc7f3c64b7790),
        (4, 65536, 0x1874e91a0cce5c5b),
        (4, 65539, 0xf99aa2c4da8e5dfb),
        (5, 777, 0x41fe32ca7a6df70b),
        (7, 8191, 0x4a15cb83fad40186),
        (8, 65536, 0x0697b7dfe0a20d23),
        (8, 65541, 0x45311f2f38f74f06),
        (12, 6000, 0x45da36b79c42132e),
        (16, 65536, 0x6b8922b6de0c0567),
        (16, 4100, 0xfdc643d982961414),
        (17, 9999, 0x3508ed283a880649),
        (32, 8200, 0xd0bc5d884b6a3ba5),
        (255, 20000, 0x7ed2e524a7282aa1),
        (256, 70000, 0xa0a7d50216786e6a),
    ];
    const BITUNSHUFFLE_KAT: [(usize, usize, u64); 16] = [
        (1, 1000, 0x4c92ea5d225504a1),
        (2, 4098, 0xfd32b1916fc44a05),
        (3, 3001, 0x5bbfbc6c85daf415),
        (4, 65536, 0x47c66e6ea821eb67),
        (4, 65539, 0xb737e7070638379f),
        (5, 777, 0xeea2fb2facf1cf3d),
        (7, 8191, 0xac7c48f60b815d40),
        (8, 65536, 0xf165c69449fea6e0),
        (8, 65541, 0x263619b8920fab23),
        (12, 6000, 0x300344433e2be1ca),
        (16, 65536, 0xd7561898d4978c62),
        (16, 4100, 0xf0adccf5cbdc2809),
        (17, 9999, 0xfd48fa0e2b37a670),
        (32, 8200, 0xd0bc5d884b6a3ba5),
        (255, 20000, 0x4e8727108021b84d),
        (256, 70000, 0xd0de294d1785c262),
    ];

    #[test]
    fn matches_reference_known_answers() {
        for isa in cpu::available() {
            for (ts, len, hash) in BITSHUFFLE_KAT {
                let mut out = vec![0; len];
                bitshuffle_on(isa, ts, &pattern(len), &mut out).unwrap();
                assert_eq!(fnv1a(&out), hash, "bitshuffle {isa:?} ts {ts} len {len}");
            }
            for (ts, len, hash) in BITUNSHUFFLE_KAT {
                let mut out = vec![0; len];
                bitunshuffle_on(isa, ts, &pattern(len), &mut out, 6).unwrap();
                assert_eq!(fnv1a(&out), hash, "bitunshuffle {isa:?} ts {ts} len {len}");
            }
        }
    }

    #[test]
    fn small_vector_from_reference() {
        let mut out = [0u8; 32];
        bitshuffle(4, &pattern(32), &mut out).unwrap();
        assert_eq!(
            out,
            [
                7, 151, 142, 1, 158, 6, 103, 221, 16, 10, 178, 199, 236, 23, 119, 105, 148, 123,
                71, 216, 125, 189, 53, 43, 122, 0, 25, 125, 100, 228, 189, 205
            ]
        );
    }

    #[test]
    fn blosc1_chunks_copy_blocks_with_partial_groups() {
        // 12 elements of 4 bytes: version 2 copies, versions 1 and 3+ unshuffle 8 elements.
        let src = pattern(48);
        let mut out = vec![0; 48];
        bitunshuffle(4, &src, &mut out, 2).unwrap();
        assert_eq!(out, src);
        for version in [1, 3, 5, 6] {
            bitunshuffle(4, &src, &mut out, version).unwrap();
            assert_ne!(out[..32], src[..32]);
            assert_eq!(out[32..], src[32..]);
        }
        // 16 elements: every version unshuffles.
        let src = pattern(64);
        let (mut a, mut b) = (vec![0; 64], vec![0; 64]);
        bitunshuffle(4, &src, &mut a, 2).unwrap();
        bitunshuffle(4, &src, &mut b, 6).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn rejects_bad_arguments() {
        let mut out = [0u8; 8];
        assert_eq!(bitshuffle(0, &[0; 8], &mut out), Err(Error::InvalidParam));
        assert_eq!(bitshuffle(1, &[0; 7], &mut out), Err(Error::InvalidParam));
        assert_eq!(
            bitunshuffle(0, &[0; 8], &mut out, 6),
            Err(Error::InvalidParam)
        );
    }
}
