//! Bytedelta filter (global plugin id 35, `BLOSC_FILTER_BYTEDELTA`) and its predecessor
//! (id 34, `BLOSC_FILTER_BYTEDELTA_BUGGY`), usually placed after SHUFFLE.
//!
//! The block is seen as `typesize` streams of `len / typesize` bytes (the layout SHUFFLE
//! leaves); each stream is replaced by its byte-wise differences (mod 256), the first byte
//! against 0. The `len % typesize` trailing bytes are copied unchanged (c-blosc2 3.3.2+).
//!
//! `typesize` here is what c-blosc2 takes from the filter slot: its `filters_meta`, or the
//! super-chunk's typesize when that is 0 (without a super-chunk the reference fails).
//!
//! The buggy variant was the SIMD code of c-blosc2 < 2.7.1 (issue #524, and still what 3.3.5
//! runs for id 34): after its 16-byte SIMD loop the scalar tail of each stream restarted the
//! running value at 0. So in streams longer than 15 bytes the bytes from
//! `16 * (stream_len / 16)` on are differenced against 0 anew. Its trailing `len % typesize`
//! bytes were never written (stale memory in the reference); we copy them.
//!
//! The SSE2 kernels (`sse2.rs`, used on every x86_64 CPU) do the whole 16-byte pieces of each
//! stream, the scalar loop the rest, which is also where the buggy variant's restart falls.

#[cfg(target_arch = "x86_64")]
mod sse2;

use super::cpu::{self, Isa};
use crate::{Error, Result};

fn check(typesize: usize, src: &[u8], dst: &[u8]) -> Result<()> {
    if typesize == 0 || src.len() != dst.len() {
        return Err(Error::InvalidParam);
    }
    Ok(())
}

/// Where the buggy variant restarts the running value within a stream, if it does.
fn restart_at(stream_len: usize, buggy: bool) -> usize {
    if buggy && stream_len > 15 {
        stream_len - stream_len % 16
    } else {
        usize::MAX
    }
}

/// Differences of one stream. The SIMD kernels cover whole 16-byte pieces, as c-blosc2's
/// SIMD loop did; the rest continues from their last byte, or from 0 in the buggy variant.
fn forward_stream(isa: Isa, s: &[u8], d: &mut [u8], buggy: bool) {
    let (done, last) = match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: every x86_64 CPU has SSE2; `isa` is never below Sse2 unless forced.
        Isa::Sse2 | Isa::Avx2 | Isa::Avx2Gfni => unsafe { sse2::forward(s, d) },
        _ => (0, 0),
    };
    let restart = restart_at(s.len(), buggy);
    let mut prev = last;
    for (i, (x, y)) in s.iter().zip(d.iter_mut()).enumerate().skip(done) {
        if i == restart {
            prev = 0;
        }
        *y = x.wrapping_sub(prev);
        prev = *x;
    }
}

/// Running sums of one stream (inverse of [`forward_stream`]).
fn backward_stream(isa: Isa, s: &[u8], d: &mut [u8], buggy: bool) {
    let (done, last) = match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: every x86_64 CPU has SSE2; `isa` is never below Sse2 unless forced.
        Isa::Sse2 | Isa::Avx2 | Isa::Avx2Gfni => unsafe { sse2::backward(s, d) },
        _ => (0, 0),
    };
    let restart = restart_at(s.len(), buggy);
    let mut acc = last;
    for (i, (x, y)) in s.iter().zip(d.iter_mut()).enumerate().skip(done) {
        if i == restart {
            acc = 0;
        }
        acc = acc.wrapping_add(*x);
        *y = acc;
    }
}

fn forward_on(isa: Isa, typesize: usize, src: &[u8], dst: &mut [u8], buggy: bool) -> Result<()> {
    check(typesize, src, dst)?;
    let stream_len = src.len() / typesize;
    let body = stream_len * typesize;
    if stream_len > 0 {
        for (s, d) in src[..body]
            .chunks_exact(stream_len)
            .zip(dst.chunks_exact_mut(stream_len))
        {
            forward_stream(isa, s, d, buggy);
        }
    }
    dst[body..].copy_from_slice(&src[body..]);
    Ok(())
}

fn backward_on(isa: Isa, typesize: usize, src: &[u8], dst: &mut [u8], buggy: bool) -> Result<()> {
    check(typesize, src, dst)?;
    let stream_len = src.len() / typesize;
    let body = stream_len * typesize;
    if stream_len > 0 {
        for (s, d) in src[..body]
            .chunks_exact(stream_len)
            .zip(dst.chunks_exact_mut(stream_len))
        {
            backward_stream(isa, s, d, buggy);
        }
    }
    dst[body..].copy_from_slice(&src[body..]);
    Ok(())
}

fn forward(typesize: usize, src: &[u8], dst: &mut [u8], buggy: bool) -> Result<()> {
    forward_on(cpu::isa(), typesize, src, dst, buggy)
}

fn backward(typesize: usize, src: &[u8], dst: &mut [u8], buggy: bool) -> Result<()> {
    backward_on(cpu::isa(), typesize, src, dst, buggy)
}

/// Bytedelta (id 35) encoding of one block. Errors with `InvalidParam` if `typesize == 0` or
/// the lengths differ.
pub fn bytedelta_forward(typesize: usize, src: &[u8], dst: &mut [u8]) -> Result<()> {
    forward(typesize, src, dst, false)
}

/// Bytedelta (id 35) decoding of one block.
pub fn bytedelta_backward(typesize: usize, src: &[u8], dst: &mut [u8]) -> Result<()> {
    backward(typesize, src, dst, false)
}

/// Encoding of the buggy bytedelta (id 34), as c-blosc2 3.3.5 still writes it.
pub fn bytedelta_buggy_forward(typesize: usize, src: &[u8], dst: &mut [u8]) -> Result<()> {
    forward(typesize, src, dst, true)
}

/// Decoding of blocks written by the buggy bytedelta (id 34).
pub fn bytedelta_buggy_backward(typesize: usize, src: &[u8], dst: &mut [u8]) -> Result<()> {
    backward(typesize, src, dst, true)
}

/// Bytedelta (id 35) decoding fused with the SHUFFLE undone after it: `streams[j]` holds the
/// differences of byte `j` of each of the `n = dst.len() / streams.len()` elements (at least
/// `n` bytes, lying anywhere), `dst` receives the elements. The same bytes as
/// [`bytedelta_backward`] then [`super::shuffle::unshuffle`] of the streams laid end to end,
/// without the block in between. Returns false, leaving `dst` as it was, where there is no
/// fused kernel (2, 4, 8 or 16 streams with AVX2 only): the caller then runs the two filters.
pub fn bytedelta_backward_unshuffle(streams: &[&[u8]], dst: &mut [u8]) -> bool {
    backward_unshuffle_on(cpu::isa(), streams, dst)
}

/// Whether [`bytedelta_backward_unshuffle`] has a kernel for `nstreams` streams here.
pub fn has_backward_unshuffle(nstreams: usize) -> bool {
    cfg!(target_arch = "x86_64") && cpu::isa() >= Isa::Avx2 && [2, 4, 8, 16].contains(&nstreams)
}

fn backward_unshuffle_on(isa: Isa, streams: &[&[u8]], dst: &mut [u8]) -> bool {
    let ts = streams.len();
    if ts == 0 || !dst.len().is_multiple_of(ts) {
        return false;
    }
    let n = dst.len() / ts;
    if streams.iter().any(|s| s.len() < n) {
        return false;
    }
    let fused = match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `isa` is Avx2 or above only when the CPU was detected to support AVX2.
        Isa::Avx2 | Isa::Avx2Gfni => unsafe {
            super::shuffle::avx2::unshuffle_running_sums(streams, dst)
        },
        _ => None,
    };
    let Some((done, mut sums)) = fused else {
        return false;
    };
    for i in done..n {
        for (j, stream) in streams.iter().enumerate() {
            sums[j] = sums[j].wrapping_add(stream[i]);
            dst[i * ts + j] = sums[j];
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filters::testutil::{fnv1a, pattern};

    #[test]
    fn fused_with_unshuffle_matches_the_two_filters() {
        for isa in cpu::available() {
            for ts in [1usize, 2, 3, 4, 8, 16, 17] {
                for n in [0usize, 1, 31, 32, 33, 64, 95, 1000, 8192 + 7] {
                    let src = pattern(n * ts);
                    let mut sums = vec![0; n * ts];
                    backward_on(Isa::Scalar, ts, &src, &mut sums, false).unwrap();
                    let mut want = vec![0; n * ts];
                    crate::filters::shuffle::unshuffle(ts, &sums, &mut want);
                    let streams: Vec<&[u8]> = (0..ts).map(|j| &src[j * n..(j + 1) * n]).collect();
                    let mut got = vec![0xAA; n * ts];
                    if backward_unshuffle_on(isa, &streams, &mut got) {
                        assert_eq!(got, want, "{isa:?} ts {ts} n {n}");
                    } else {
                        assert!(got.iter().all(|&b| b == 0xAA), "{isa:?} ts {ts}: wrote");
                        assert!(isa < Isa::Avx2 || ![2, 4, 8, 16].contains(&ts));
                    }
                }
            }
        }
    }

    #[test]
    fn small_example() {
        // Two streams of 3 bytes and one trailing byte.
        let src = [1, 3, 6, 10, 10, 9, 42];
        let mut enc = [0; 7];
        bytedelta_forward(2, &src, &mut enc).unwrap();
        assert_eq!(enc, [1, 2, 3, 10, 0, 255, 42]);
        let mut dec = [0; 7];
        bytedelta_backward(2, &enc, &mut dec).unwrap();
        assert_eq!(dec, src);
    }

    #[test]
    fn round_trips() {
        for ts in [1, 2, 3, 4, 7, 8, 16, 17] {
            for len in [0, 1, 15, 16, 17, 31, 32, 33, 100, 1000, 4099] {
                let src = pattern(len);
                let (mut enc, mut dec) = (vec![0; len], vec![0; len]);
                bytedelta_forward(ts, &src, &mut enc).unwrap();
                bytedelta_backward(ts, &enc, &mut dec).unwrap();
                assert_eq!(dec, src);
                bytedelta_buggy_forward(ts, &src, &mut enc).unwrap();
                bytedelta_buggy_backward(ts, &enc, &mut dec).unwrap();
                assert_eq!(dec, src);
            }
        }
    }

    #[test]
    fn every_kernel_matches_scalar() {
        for isa in cpu::available() {
            for ts in [1, 2, 3, 4, 8, 16, 17] {
                for len in [
                    0,
                    5,
                    16,
                    17,
                    31,
                    32,
                    33,
                    47,
                    48,
                    100,
                    1000,
                    4099,
                    65536 + 13,
                ] {
                    let src = pattern(len);
                    for buggy in [false, true] {
                        let (mut a, mut b) = (vec![0; len], vec![0; len]);
                        forward_on(isa, ts, &src, &mut a, buggy).unwrap();
                        forward_on(Isa::Scalar, ts, &src, &mut b, buggy).unwrap();
                        assert_eq!(a, b, "{isa:?} ts {ts} len {len} buggy {buggy}");
                        backward_on(isa, ts, &src, &mut a, buggy).unwrap();
                        backward_on(Isa::Scalar, ts, &src, &mut b, buggy).unwrap();
                        assert_eq!(a, b, "{isa:?} ts {ts} len {len} buggy {buggy}");
                    }
                }
            }
        }
    }

    #[test]
    fn buggy_restarts_after_the_last_whole_16_bytes() {
        let src: Vec<u8> = (1..=20).collect();
        let mut enc = vec![0; 20];
        bytedelta_buggy_forward(1, &src, &mut enc).unwrap();
        let mut want = vec![1u8; 20];
        want[16] = 17;
        assert_eq!(enc, want);
        bytedelta_forward(1, &src, &mut enc).unwrap();
        assert_eq!(enc, vec![1u8; 20]);
    }

    #[test]
    fn rejects_bad_arguments() {
        let mut out = [0u8; 4];
        assert_eq!(
            bytedelta_forward(0, &[0; 4], &mut out),
            Err(Error::InvalidParam)
        );
        assert_eq!(
            bytedelta_backward(1, &[0; 3], &mut out),
            Err(Error::InvalidParam)
        );
    }

    // FNV-1a of c-blosc2 3.3.5's filter output over all blocks of the chunk of `pattern(12384)`
    // compressed with the filter alone: (typesize, filters_meta, blocksize, hash). For id 34 the
    // hash skips each block's trailing `len % meta` bytes, which the reference leaves stale.
    const FIXED: [(usize, usize, usize, u64); 9] = [
        (1, 1, 1000, 0x8cac9ca3f269e5fb),
        (2, 2, 128, 0xe1dee75a14ebc924),
        (4, 4, 256, 0x4e50764c13c90e3f),
        (4, 4, 4000, 0xbd9f1c86a8ca4e0e),
        (8, 8, 8000, 0xa1f2097462830cf5),
        (4, 3, 300, 0xa91fd812c13e55d7),
        (16, 16, 1600, 0xbac34f94a12e6ce5),
        (3, 3, 3000, 0x9f2d002ae53d0c07),
        (4, 2, 1000, 0xe2c2409006d6c945),
    ];
    const BUGGY: [(usize, usize, usize, u64); 9] = [
        (1, 1, 1000, 0xdc55b4c9a58c7baa),
        (2, 2, 128, 0xe1dee75a14ebc924),
        (4, 4, 256, 0x21d1012a48e4f66b),
        (4, 4, 4000, 0x5a6839f08225d6af),
        (8, 8, 8000, 0x91d21a0105c19b61),
        (4, 3, 300, 0xd387d13858bebe1d),
        (16, 16, 1600, 0xbbf98cefc1609637),
        (3, 3, 3000, 0xccbc83477ad55cd6),
        (4, 2, 1000, 0x28f31bfddf791e29),
    ];

    #[test]
    fn matches_reference_chunks() {
        let chunk = pattern(12384);
        for (table, buggy) in [(&FIXED, false), (&BUGGY, true)] {
            for &(_typesize, meta, bs, hash) in table.iter() {
                let mut all = Vec::new();
                for block in chunk.chunks(bs) {
                    let mut out = vec![0; block.len()];
                    forward(meta, block, &mut out, buggy).unwrap();
                    let keep = if buggy {
                        block.len() - block.len() % meta
                    } else {
                        block.len()
                    };
                    all.extend_from_slice(&out[..keep]);
                    let mut back = vec![0; block.len()];
                    backward(meta, &out, &mut back, buggy).unwrap();
                    assert_eq!(back, block);
                }
                assert_eq!(fnv1a(&all), hash, "meta {meta} bs {bs} buggy {buggy}");
            }
        }
    }
}
