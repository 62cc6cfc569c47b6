//! Byte shuffle filter (`BLOSC_SHUFFLE`): groups byte `j` of every element into stream `j`.
//!
//! For a block of `len` bytes and `n = len / typesize` elements, byte `j` of element `i` goes to
//! `j * n + i`; the `len % typesize` trailing bytes are copied unchanged. This is c-blosc2's
//! generic transform, which its SSE2/AVX2 kernels reproduce and so do ours.
//!
//! `filters_meta` of a SHUFFLE slot (c-blosc2 >= 2.23.1) is the number of byte streams: the
//! reference shuffles with that value in place of the typesize, 0 meaning the typesize itself
//! (checked against 3.3.5 chunks for typesizes 1..=17 and metas 0..=19, larger or smaller than
//! the typesize alike). See [`shuffle_with_meta`].

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2;
mod scalar;
#[cfg(target_arch = "x86_64")]
mod sse2;

use super::cpu::{self, Isa};

/// Shuffles one block. `src` and `dst` must have the same length (panics otherwise).
/// A typesize of 0 or 1 leaves the bytes as they are.
pub fn shuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    shuffle_on(cpu::isa(), typesize, src, dst);
}

/// Inverse of [`shuffle`].
pub fn unshuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    unshuffle_on(cpu::isa(), typesize, src, dst);
}

/// The number of byte streams a SHUFFLE filter slot uses: its `filters_meta`, or the typesize
/// when that is 0.
pub fn streams_for_meta(typesize: usize, meta: u8) -> usize {
    if meta == 0 {
        typesize
    } else {
        meta as usize
    }
}

/// Shuffle as a filter slot with `filters_meta == meta` does it.
pub fn shuffle_with_meta(typesize: usize, meta: u8, src: &[u8], dst: &mut [u8]) {
    shuffle(streams_for_meta(typesize, meta), src, dst);
}

/// Inverse of [`shuffle_with_meta`].
pub fn unshuffle_with_meta(typesize: usize, meta: u8, src: &[u8], dst: &mut [u8]) {
    unshuffle(streams_for_meta(typesize, meta), src, dst);
}

pub(crate) fn shuffle_on(isa: Isa, typesize: usize, src: &[u8], dst: &mut [u8]) {
    assert_eq!(
        src.len(),
        dst.len(),
        "shuffle: source and destination lengths differ"
    );
    if typesize <= 1 {
        dst.copy_from_slice(src);
        return;
    }
    let done = match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `isa` is Avx2 or above only when the CPU was detected to support AVX2.
        Isa::Avx2 | Isa::Avx2Gfni => unsafe { avx2::shuffle(typesize, src, dst) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `isa` is Sse2 or better only when the CPU supports SSE2.
        Isa::Sse2 => unsafe { sse2::shuffle(typesize, src, dst) },
        _ => 0,
    };
    scalar::shuffle_from(typesize, done, src, dst);
}

/// [`shuffle`] of `src` XORed byte by byte with `xor` (at least `src.len()` bytes), into `dst`
/// (`src.len()` bytes): DELTA's XOR with block 0 for a block after the first and the shuffle
/// after it in one pass over the block. Returns false, having written nothing, where no fused
/// kernel serves the typesize on this CPU (then XOR and shuffle separately).
pub fn shuffle_xor(typesize: usize, src: &[u8], xor: &[u8], dst: &mut [u8]) -> bool {
    shuffle_xor_on(cpu::isa(), typesize, src, xor, dst)
}

pub(crate) fn shuffle_xor_on(
    isa: Isa,
    typesize: usize,
    src: &[u8],
    xor: &[u8],
    dst: &mut [u8],
) -> bool {
    assert_eq!(
        src.len(),
        dst.len(),
        "shuffle_xor: source and destination lengths differ"
    );
    assert!(xor.len() >= src.len(), "shuffle_xor: xor too short");
    let fused = matches!(typesize, 2 | 4 | 8 | 16) && matches!(isa, Isa::Avx2 | Isa::Avx2Gfni);
    if !fused {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: `isa` is Avx2 or above only when the CPU was detected to support AVX2.
        let done = unsafe { avx2::shuffle_xor(typesize, src, xor, dst) };
        // The elements the kernel left, and the bytes past the last whole element.
        scalar::shuffle_xor_from(typesize, done, src, xor, dst);
        true
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

pub(crate) fn unshuffle_on(isa: Isa, typesize: usize, src: &[u8], dst: &mut [u8]) {
    assert_eq!(
        src.len(),
        dst.len(),
        "unshuffle: source and destination lengths differ"
    );
    if typesize <= 1 {
        dst.copy_from_slice(src);
        return;
    }
    let done = match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `isa` is Avx2 or above only when the CPU was detected to support AVX2.
        Isa::Avx2 | Isa::Avx2Gfni => unsafe { avx2::unshuffle(typesize, src, dst) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `isa` is Sse2 or better only when the CPU supports SSE2.
        Isa::Sse2 => unsafe { sse2::unshuffle(typesize, src, dst) },
        _ => 0,
    };
    scalar::unshuffle_from(typesize, done, src, dst);
}

/// Unshuffles byte streams that need not lie one after another (a block's streams partly in a
/// decoder's buffer and partly in the chunk, where incompressible ones are stored as they are):
/// `streams[j]` holds byte `j` of each of the `n = dst.len() / streams.len()` elements and must
/// be at least `n` bytes long; `dst.len()` must be a multiple of `streams.len()` (panics
/// otherwise). Gives what [`unshuffle`] gives for the streams laid end to end.
pub fn unshuffle_streams(streams: &[&[u8]], dst: &mut [u8]) {
    unshuffle_streams_on(cpu::isa(), streams, dst);
}

pub(crate) fn unshuffle_streams_on(isa: Isa, streams: &[&[u8]], dst: &mut [u8]) {
    let ts = streams.len();
    assert!(
        ts > 0 && dst.len().is_multiple_of(ts),
        "unshuffle_streams: destination not a whole number of elements"
    );
    let n = dst.len() / ts;
    assert!(
        streams.iter().all(|s| s.len() >= n),
        "unshuffle_streams: a stream is too short"
    );
    if ts == 1 {
        dst.copy_from_slice(&streams[0][..n]);
        return;
    }
    let done = match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `isa` is Avx2 or above only when the CPU was detected to support AVX2.
        Isa::Avx2 | Isa::Avx2Gfni => unsafe { avx2::unshuffle_streams(streams, dst) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `isa` is Sse2 or better only when the CPU supports SSE2.
        Isa::Sse2 => unsafe { sse2::unshuffle_streams(streams, dst) },
        _ => 0,
    };
    scalar::unshuffle_streams_from(streams, done, dst);
}

/// [`unshuffle_streams`] of elements `first..first + n` of the streams (`n = dst.len() /
/// streams.len()`; every stream at least `first + n` bytes long, panics otherwise): a run of a
/// block's elements unshuffled straight into its place elsewhere, e.g. one row of a b2nd slice,
/// without unshuffling the rest of the block. Runs of any length: the widest kernel that fits
/// does what it can, the next the rest (a 16-element row of 8-byte items is one SSE2 step).
pub fn unshuffle_streams_at(streams: &[&[u8]], first: usize, dst: &mut [u8]) {
    unshuffle_streams_at_on(cpu::isa(), streams, first, dst);
}

pub(crate) fn unshuffle_streams_at_on(isa: Isa, streams: &[&[u8]], first: usize, dst: &mut [u8]) {
    let ts = streams.len();
    assert!(
        ts > 0 && dst.len().is_multiple_of(ts),
        "unshuffle_streams_at: destination not a whole number of elements"
    );
    let n = dst.len() / ts;
    let end = first.checked_add(n);
    assert!(
        end.is_some_and(|end| streams.iter().all(|s| s.len() >= end)),
        "unshuffle_streams_at: a stream is too short"
    );
    if ts == 1 {
        dst.copy_from_slice(&streams[0][first..first + n]);
        return;
    }
    let mut done = 0;
    #[cfg(target_arch = "x86_64")]
    {
        if matches!(isa, Isa::Avx2 | Isa::Avx2Gfni) && n >= 32 {
            // SAFETY: `isa` is Avx2 or above only when the CPU was detected to support AVX2.
            done = unsafe { avx2::unshuffle_streams_at(streams, first, dst) };
        }
        if isa != Isa::Scalar && n - done >= 16 {
            let rest = &mut dst[done * ts..];
            // SAFETY: every `isa` but Scalar is one the CPU supports, all of them SSE2 or above.
            done += unsafe { sse2::unshuffle_streams_at(streams, first + done, rest) };
        }
    }
    for (e, elem) in dst.chunks_exact_mut(ts).enumerate().skip(done) {
        for (b, stream) in elem.iter_mut().zip(streams) {
            *b = stream[first + e];
        }
    }
}

/// [`unshuffle_streams`] with each output byte XORed with the same byte of `xor` (at least
/// `dst.len()` bytes long; panics otherwise): the unshuffle and DELTA's undoing for a block
/// after the first in one pass over the block.
pub fn unshuffle_streams_xor(streams: &[&[u8]], xor: &[u8], dst: &mut [u8]) {
    unshuffle_streams_xor_on(cpu::isa(), streams, xor, dst);
}

pub(crate) fn unshuffle_streams_xor_on(isa: Isa, streams: &[&[u8]], xor: &[u8], dst: &mut [u8]) {
    assert!(
        xor.len() >= dst.len(),
        "unshuffle_streams_xor: xor too short"
    );
    let fused = match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `isa` is Avx2 or above only when the CPU was detected to support AVX2.
        Isa::Avx2 | Isa::Avx2Gfni if streams.len() >= 2 => unsafe {
            avx2::unshuffle_streams_xor(streams, xor, dst)
        },
        _ => 0,
    };
    let from = fused * streams.len();
    if from < dst.len() {
        // What the fused kernel left: unshuffled as usual, then XORed.
        if fused == 0 {
            unshuffle_streams_on(isa, streams, dst);
        } else {
            scalar::unshuffle_streams_from(streams, fused, dst);
        }
        for (d, x) in dst[from..].iter_mut().zip(&xor[from..]) {
            *d ^= x;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filters::testutil::{fnv1a, lengths, pattern, TYPESIZES};

    /// The transform written out plainly, independent of the kernels.
    fn naive_shuffle(typesize: usize, src: &[u8]) -> Vec<u8> {
        let n = src.len() / typesize;
        let mut out = src.to_vec();
        for i in 0..n {
            for j in 0..typesize {
                out[j * n + i] = src[i * typesize + j];
            }
        }
        out
    }

    #[test]
    fn unshuffle_at_gives_the_elements_of_the_plain_unshuffle() {
        // Runs of every length at every start, as a b2nd slice asks for a block's rows.
        for isa in cpu::available() {
            for ts in 1..=17usize {
                let n = 80;
                let shuffled = pattern(n * ts);
                let streams: Vec<&[u8]> = shuffled.chunks(n).collect();
                let mut whole = vec![0u8; n * ts];
                unshuffle_on(isa, ts, &shuffled, &mut whole);
                for first in [0usize, 1, 3, 15, 16, 17, 31, 33, 47, 48] {
                    for len in [0usize, 1, 2, 7, 15, 16, 17, 31, 32, 33] {
                        if first + len > n {
                            continue;
                        }
                        let mut run = vec![0xA5; len * ts];
                        unshuffle_streams_at_on(isa, &streams, first, &mut run);
                        assert_eq!(
                            run,
                            whole[first * ts..(first + len) * ts],
                            "{isa:?} ts {ts} first {first} len {len}"
                        );
                    }
                }
                // Each stream just long enough, and one byte too short.
                let exact: Vec<&[u8]> = streams.iter().map(|s| &s[..50]).collect();
                let mut run = vec![0u8; 34 * ts];
                unshuffle_streams_at_on(isa, &exact, 16, &mut run);
                assert_eq!(run, whole[16 * ts..50 * ts]);
                let short = std::panic::catch_unwind(|| {
                    let mut run = vec![0u8; 35 * ts];
                    unshuffle_streams_at_on(isa, &exact, 16, &mut run);
                });
                assert!(short.is_err());
            }
        }
    }

    #[test]
    fn shuffle_xor_is_the_shuffle_of_the_xor() {
        for isa in cpu::available() {
            for &ts in TYPESIZES {
                for len in lengths(ts) {
                    let src = pattern(len);
                    let xor: Vec<u8> = pattern(len + 5).iter().rev().map(|b| b ^ 0x3C).collect();
                    let mut out = vec![0xAA; len];
                    let fused = shuffle_xor_on(isa, ts, &src, &xor, &mut out);
                    if !fused {
                        assert!(out.iter().all(|&b| b == 0xAA), "{isa:?} ts {ts} wrote");
                        continue;
                    }
                    assert!(matches!(ts, 2 | 4 | 8 | 16), "{isa:?} ts {ts}");
                    let xored: Vec<u8> = src.iter().zip(&xor).map(|(a, b)| a ^ b).collect();
                    assert_eq!(out, naive_shuffle(ts, &xored), "{isa:?} ts {ts} len {len}");
                }
            }
        }
    }

    #[test]
    fn every_kernel_matches_the_definition_and_round_trips() {
        for isa in cpu::available() {
            for &ts in TYPESIZES {
                for len in lengths(ts) {
                    let src = pattern(len);
                    let mut shuffled = vec![0xAA; len];
                    shuffle_on(isa, ts, &src, &mut shuffled);
                    assert_eq!(
                        shuffled,
                        naive_shuffle(ts, &src),
                        "{isa:?} ts {ts} len {len}"
                    );
                    let mut back = vec![0x55; len];
                    unshuffle_on(isa, ts, &shuffled, &mut back);
                    assert_eq!(back, src, "{isa:?} ts {ts} len {len}");
                }
            }
        }
    }

    // FNV-1a of c-blosc2 3.3.5's blosc2_shuffle / blosc2_unshuffle output on `pattern(len)`.
    const SHUFFLE_KAT: [(usize, usize, u64); 16] = [
        (1, 1000, 0xa70d7c971c57bdb9),
        (2, 4098, 0x323538cd50d54978),
        (3, 3001, 0x7150dd8dea531da8),
        (4, 65536, 0x7df0be5f996db7db),
        (4, 65539, 0x7b42faf4912dfa7b),
        (5, 777, 0x3624a1d398e953ea),
        (7, 8191, 0x9449181856a97ad2),
        (8, 65536, 0x512cd7ea03cda905),
        (8, 65541, 0x14ff96aa24d265c4),
        (12, 6000, 0x8402a1c88f5eeed2),
        (16, 65536, 0x7753ea7abdf72629),
        (16, 4100, 0x7de24fa946c83bc1),
        (17, 9999, 0xdc850ba8b2c9f4b3),
        (32, 8200, 0x5c69b372e25fd1bb),
        (255, 20000, 0xa99c137975c314fb),
        (256, 70000, 0x8b53534eed67bf00),
    ];
    const UNSHUFFLE_KAT: [(usize, usize, u64); 16] = [
        (1, 1000, 0xa70d7c971c57bdb9),
        (2, 4098, 0x75c748e9ae55c998),
        (3, 3001, 0x4a6a55e109701320),
        (4, 65536, 0x1a62fc3c356791c3),
        (4, 65539, 0xd0ab5dee815fbe03),
        (5, 777, 0x057954539e3b17d2),
        (7, 8191, 0x8365c6b1deb9550e),
        (8, 65536, 0x427f33bad04abff5),
        (8, 65541, 0xc4e6a9600d96f174),
        (12, 6000, 0xf4a81d0d00ea0e02),
        (16, 65536, 0x417d1cc954049cab),
        (16, 4100, 0x6752496290dfa499),
        (17, 9999, 0xbfcb8a8faff98d35),
        (32, 8200, 0x3762529fcdb56e67),
        (255, 20000, 0xce9e33a4f785a533),
        (256, 70000, 0x5a9e60d1aadea684),
    ];

    #[test]
    fn matches_reference_known_answers() {
        for isa in cpu::available() {
            for (ts, len, hash) in SHUFFLE_KAT {
                let mut out = vec![0; len];
                shuffle_on(isa, ts, &pattern(len), &mut out);
                assert_eq!(fnv1a(&out), hash, "shuffle {isa:?} ts {ts} len {len}");
            }
            for (ts, len, hash) in UNSHUFFLE_KAT {
                let mut out = vec![0; len];
                unshuffle_on(isa, ts, &pattern(len), &mut out);
                assert_eq!(fnv1a(&out), hash, "unshuffle {isa:?} ts {ts} len {len}");
            }
        }
    }

    #[test]
    fn unshuffle_of_scattered_streams_matches_unshuffle() {
        for isa in cpu::available() {
            for &ts in TYPESIZES {
                for len in lengths(ts) {
                    let n = len / ts;
                    let src = pattern(n * ts);
                    let mut want = vec![0; n * ts];
                    unshuffle_on(isa, ts, &src, &mut want);
                    // Each stream copied elsewhere, at an odd offset and with bytes after it.
                    let copies: Vec<Vec<u8>> = src
                        .chunks(n.max(1))
                        .take(ts)
                        .enumerate()
                        .map(|(j, s)| {
                            let mut c = vec![0xEE; j % 5];
                            c.extend_from_slice(s);
                            c.extend_from_slice(&[0x11; 40]);
                            c
                        })
                        .collect();
                    let mut streams: Vec<&[u8]> = copies
                        .iter()
                        .enumerate()
                        .map(|(j, c)| &c[j % 5..])
                        .collect();
                    streams.resize(ts, &[0x11; 40][..0]);
                    let mut got = vec![0xAA; n * ts];
                    unshuffle_streams_on(isa, &streams, &mut got);
                    assert_eq!(got, want, "{isa:?} ts {ts} len {len}");
                }
            }
        }
    }

    #[test]
    fn unshuffle_xor_is_unshuffle_then_xor() {
        for isa in cpu::available() {
            for &ts in TYPESIZES {
                for n in [0usize, 1, 31, 32, 33, 64, 100, 1000] {
                    let src = pattern(n * ts);
                    let xor: Vec<u8> = pattern(n * ts + 3).into_iter().skip(3).collect();
                    let mut want = vec![0; n * ts];
                    unshuffle_on(isa, ts, &src, &mut want);
                    for (w, x) in want.iter_mut().zip(&xor) {
                        *w ^= x;
                    }
                    let streams: Vec<&[u8]> = (0..ts).map(|j| &src[j * n..(j + 1) * n]).collect();
                    let mut got = vec![0xAA; n * ts];
                    unshuffle_streams_xor_on(isa, &streams, &xor, &mut got);
                    assert_eq!(got, want, "{isa:?} ts {ts} n {n}");
                }
            }
        }
    }

    #[test]
    fn small_vector_from_reference() {
        let src = pattern(32);
        let mut out = [0u8; 32];
        shuffle(4, &src, &mut out);
        assert_eq!(
            out,
            [
                203, 119, 247, 148, 146, 64, 192, 150, 232, 110, 120, 146, 101, 212, 216, 28, 246,
                134, 117, 186, 123, 242, 30, 41, 204, 1, 248, 205, 77, 121, 185, 224
            ]
        );
    }

    #[test]
    fn meta_sets_the_number_of_streams() {
        let src = pattern(1003);
        for (ts, meta, streams) in [(4, 0, 4), (4, 2, 2), (1, 5, 5), (8, 16, 16)] {
            let (mut a, mut b) = (vec![0; 1003], vec![0; 1003]);
            shuffle_with_meta(ts, meta, &src, &mut a);
            shuffle(streams, &src, &mut b);
            assert_eq!(a, b);
            unshuffle_with_meta(ts, meta, &a, &mut b);
            assert_eq!(b, src);
        }
    }
}
