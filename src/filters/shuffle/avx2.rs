//! AVX2 byte shuffle: 32 elements per step, for every typesize from 2 up.
//!
//! Each 128-bit lane runs its own 16-element pipeline: lane 0 of the vectors holds elements
//! 0..16 of a step, lane 1 elements 16..32, so no lane-crossing permutes are needed and each
//! result vector holds 32 consecutive bytes of one stream.
//!
//! Typesizes 2, 4, 8, 16 load `typesize` whole vectors; within a lane a `pshufb` groups the
//! bytes of each element by byte index, and an unpack network transposes those groups across
//! the vectors. Unshuffling zips the streams back with unpacks alone. Other typesizes go by
//! 16-byte column tiles of the elements, each a 16x16 byte transpose per lane.
//!
//! The `unsafe fn` helpers without `target_feature` use AVX2 intrinsics and are only called,
//! always inlined, from the `#[target_feature(enable = "avx2")]` kernels.

use std::arch::x86_64::*;

const LANES: usize = 32;

/// `pshufb` control that regroups a 16-byte lane of `16 / TS` elements into `TS` units, unit
/// `b` holding byte `b` of each element.
const fn lane_control(ts: usize) -> [u8; 16] {
    let per_lane = 16 / ts;
    let mut c = [0u8; 16];
    let mut b = 0;
    while b < ts {
        let mut e = 0;
        while e < per_lane {
            c[b * per_lane + e] = (e * ts + b) as u8;
            e += 1;
        }
        b += 1;
    }
    c
}

/// The `pshufb` control for one typesize, computed at compile time.
struct Controls<const TS: usize>;

impl<const TS: usize> Controls<TS> {
    const GROUP: [u8; 16] = lane_control(TS);
}

/// One level of [`transpose`]: zips rows `j` and `j + D` (bit `D` of `j` clear) in units of
/// `UNIT` bytes; the `k`-th pair lands in rows `2k` and `2k + 1`.
// Inlined into the AVX2 kernels below, which are compiled with AVX2 enabled.
#[inline(always)]
unsafe fn zip_level<const TS: usize, const UNIT: usize, const D: usize>(v: &mut [__m256i; TS]) {
    // SAFETY: register-only AVX2 intrinsics; every caller runs with AVX2 enabled (this helper is
    // only inlined into this file's `#[target_feature(enable = "avx2")]` kernels).
    unsafe {
        let mut next = [_mm256_setzero_si256(); TS];
        let mut k = 0;
        for j in 0..TS {
            if j & D != 0 {
                continue;
            }
            let (a, b) = (v[j], v[j + D]);
            let (lo, hi) = match UNIT {
                1 => (_mm256_unpacklo_epi8(a, b), _mm256_unpackhi_epi8(a, b)),
                2 => (_mm256_unpacklo_epi16(a, b), _mm256_unpackhi_epi16(a, b)),
                4 => (_mm256_unpacklo_epi32(a, b), _mm256_unpackhi_epi32(a, b)),
                _ => (_mm256_unpacklo_epi64(a, b), _mm256_unpackhi_epi64(a, b)),
            };
            next[2 * k] = lo;
            next[2 * k + 1] = hi;
            k += 1;
        }
        *v = next;
    }
}

/// Transposes, in each 128-bit lane, the `TS x TS` matrix whose row `r` is `v[r]` and whose
/// cells are units of `16 / TS` bytes: log2(TS) zip levels at doubling unit sizes.
// Inlined into the AVX2 kernels below, which are compiled with AVX2 enabled.
#[inline(always)]
unsafe fn transpose<const TS: usize>(v: &mut [__m256i; TS]) {
    // SAFETY: only `zip_level`, whose AVX2 requirement the callers meet (see `zip_level`).
    unsafe {
        match TS {
            2 => zip_level::<TS, 8, 1>(v),
            4 => {
                zip_level::<TS, 4, 1>(v);
                zip_level::<TS, 8, 2>(v);
            }
            8 => {
                zip_level::<TS, 2, 1>(v);
                zip_level::<TS, 4, 2>(v);
                zip_level::<TS, 8, 4>(v);
            }
            _ => {
                zip_level::<TS, 1, 1>(v);
                zip_level::<TS, 2, 2>(v);
                zip_level::<TS, 4, 4>(v);
                zip_level::<TS, 8, 8>(v);
            }
        }
    }
}

/// Element-major vectors (lane 0: elements 0..16 of a step, lane 1: elements 16..32) to one
/// vector per byte stream.
// Inlined into the AVX2 kernels below, which are compiled with AVX2 enabled.
#[inline(always)]
unsafe fn to_streams<const TS: usize>(v: &mut [__m256i; TS]) {
    // SAFETY: AVX2 intrinsics on registers, and a 16-byte load of the 16-byte control array; every
    // caller runs with AVX2 enabled.
    unsafe {
        if TS < 16 {
            let c = Controls::<TS>::GROUP;
            let control =
                _mm256_broadcastsi128_si256(_mm_loadu_si128(c.as_ptr() as *const __m128i));
            for x in v.iter_mut() {
                *x = _mm256_shuffle_epi8(*x, control);
            }
        }
        transpose::<TS>(v);
    }
}

/// [`to_streams`] for 8-byte elements, for the bitshuffle kernels (eight bit rows per group
/// of eight elements are laid out like 8-byte elements).
///
/// # Safety
/// Only to be called, inlined, from functions compiled with AVX2 enabled.
#[inline(always)]
pub(crate) unsafe fn to_streams_8(v: &mut [__m256i; 8]) {
    // SAFETY: the caller runs with AVX2 enabled (this fn's contract), which is all `to_streams`
    // needs.
    unsafe {
        to_streams::<8>(v);
    }
}

/// Inverse of [`to_streams`]: zipping the streams at unit sizes 1, 2, 4, 8 rebuilds whole
/// elements directly (vector k, per lane, holds bytes 16k.. of that lane's 16 elements).
// Inlined into the AVX2 kernels below, which are compiled with AVX2 enabled.
#[inline(always)]
unsafe fn from_streams<const TS: usize>(v: &mut [__m256i; TS]) {
    // SAFETY: only `zip_level`, whose AVX2 requirement the callers meet.
    unsafe {
        match TS {
            2 => zip_level::<TS, 1, 1>(v),
            4 => {
                zip_level::<TS, 1, 1>(v);
                zip_level::<TS, 2, 2>(v);
            }
            8 => {
                zip_level::<TS, 1, 1>(v);
                zip_level::<TS, 2, 2>(v);
                zip_level::<TS, 4, 4>(v);
            }
            _ => {
                zip_level::<TS, 1, 1>(v);
                zip_level::<TS, 2, 2>(v);
                zip_level::<TS, 4, 4>(v);
                zip_level::<TS, 8, 8>(v);
            }
        }
    }
}

/// Loads 32 elements from `s` (lane 0: the first 16, lane 1: the next 16), with `XOR` each
/// byte XORed with the byte at the same offset from `x`, and turns them into `TS` stream
/// vectors.
// Inlined into the AVX2 kernels below, which are compiled with AVX2 enabled.
#[inline(always)]
unsafe fn streams_of_step<const TS: usize, const XOR: bool>(
    s: *const u8,
    x: *const u8,
) -> [__m256i; TS] {
    // SAFETY: AVX2 is enabled in every caller; the caller guarantees `32 * TS` readable bytes at
    // `s` (and at `x` with `XOR`), which is what the loads below read (k*16 + 16*TS + 16 <=
    // 32*TS).
    unsafe {
        let mut v = [_mm256_setzero_si256(); TS];
        for (k, y) in v.iter_mut().enumerate() {
            let lo = s.add(k * 16);
            *y = _mm256_inserti128_si256(
                _mm256_castsi128_si256(_mm_loadu_si128(lo as *const __m128i)),
                _mm_loadu_si128(lo.add(16 * TS) as *const __m128i),
                1,
            );
            if XOR {
                let xlo = x.add(k * 16);
                let xv = _mm256_inserti128_si256(
                    _mm256_castsi128_si256(_mm_loadu_si128(xlo as *const __m128i)),
                    _mm_loadu_si128(xlo.add(16 * TS) as *const __m128i),
                    1,
                );
                *y = _mm256_xor_si256(*y, xv);
            }
        }
        to_streams::<TS>(&mut v);
        v
    }
}

/// Shuffles elements `0..done` (`done` = `n` rounded down to a step) of `src` into `dst`; with
/// `XOR`, the shuffle of `src ^ xor` (`xor` at least `src.len()` bytes, else unused).
#[target_feature(enable = "avx2")]
unsafe fn shuffle_ts<const TS: usize, const XOR: bool>(
    src: &[u8],
    xor: &[u8],
    dst: &mut [u8],
) -> usize {
    // SAFETY: AVX2 is enabled here; each load and store is in bounds as the comment at it says (i
    // + 64, or i + 32, <= n elements; src, xor and dst hold n * TS bytes).
    unsafe {
        let n = src.len() / TS;
        let done = n - n % LANES;
        let (s, x, d) = (src.as_ptr(), xor.as_ptr(), dst.as_mut_ptr());
        let mut i = 0;
        // Two steps at a time, so that each stream receives a whole 64-byte cache line at once:
        // with many streams a power-of-two apart, half-written lines would be evicted early.
        while i + 2 * LANES <= done {
            // SAFETY: i + 64 <= n, so bytes i*TS .. (i+64)*TS lie within src (len >= n*TS), and
            // within xor when XOR (the caller checked xor.len() >= src.len()).
            let first = streams_of_step::<TS, XOR>(s.add(i * TS), x.wrapping_add(i * TS));
            let second = streams_of_step::<TS, XOR>(
                s.add((i + LANES) * TS),
                x.wrapping_add((i + LANES) * TS),
            );
            for b in 0..TS {
                // SAFETY: b*n + i + 64 <= TS*n <= dst.len() (the caller checked equal lengths).
                _mm256_storeu_si256(d.add(b * n + i) as *mut __m256i, first[b]);
                _mm256_storeu_si256(d.add(b * n + i + LANES) as *mut __m256i, second[b]);
            }
            i += 2 * LANES;
        }
        if i < done {
            // SAFETY: i + 32 <= n, as above.
            let last = streams_of_step::<TS, XOR>(s.add(i * TS), x.wrapping_add(i * TS));
            for (b, y) in last.iter().enumerate() {
                // SAFETY: b*n + i + 32 <= TS*n <= dst.len().
                _mm256_storeu_si256(d.add(b * n + i) as *mut __m256i, *y);
            }
        }
        done
    }
}

/// Unshuffles elements `0..done` (`done` = `n` rounded down to a step) from the `TS` streams
/// that `row(b)` points to (stream `b`, at least `n` bytes each) into `dst` (at least `n * TS`
/// bytes).
#[target_feature(enable = "avx2")]
unsafe fn unshuffle_ts<const TS: usize>(
    row: impl Fn(usize) -> *const u8,
    n: usize,
    dst: &mut [u8],
) -> usize {
    // SAFETY: AVX2 is enabled here; `unshuffle_xor_ts` without XOR never reads `xor`, and the
    // streams and `dst` are as its contract asks (the caller's own contract).
    unsafe { unshuffle_xor_ts::<TS, false>(row, std::ptr::null(), n, dst) }
}

/// [`unshuffle_ts`]; with `XOR`, each stored byte XORed with the byte at the same offset from
/// `xor` (which then holds at least `n * TS` bytes): DELTA's undoing fused with the store.
#[target_feature(enable = "avx2")]
unsafe fn unshuffle_xor_ts<const TS: usize, const XOR: bool>(
    row: impl Fn(usize) -> *const u8,
    xor: *const u8,
    n: usize,
    dst: &mut [u8],
) -> usize {
    // SAFETY: AVX2 is enabled here; each load and store is in bounds as the comment at it says (i
    // + 32 <= n, streams of n bytes, dst and xor of n * TS bytes).
    unsafe {
        let done = n - n % LANES;
        let rows: [*const u8; TS] = std::array::from_fn(row);
        let d = dst.as_mut_ptr();
        let mut i = 0;
        while i < done {
            let mut v = [_mm256_setzero_si256(); TS];
            for (x, r) in v.iter_mut().zip(rows) {
                // SAFETY: i + 32 <= n and every stream holds n bytes.
                *x = _mm256_loadu_si256(r.add(i) as *const __m256i);
            }
            from_streams::<TS>(&mut v);
            // Vector k holds bytes 16k.. of elements i.. (lane 0) and of elements i+16.. (lane 1):
            // pair up the lanes of vectors 2k and 2k+1 for whole 32-byte stores.
            for k in 0..TS / 2 {
                let (a, b) = (v[2 * k], v[2 * k + 1]);
                let at = i * TS + 32 * k;
                let (mut lo, mut hi) = (
                    _mm256_permute2x128_si256(a, b, 0x20),
                    _mm256_permute2x128_si256(a, b, 0x31),
                );
                if XOR {
                    // SAFETY: the same offsets as the stores, within the n*TS bytes of `xor`.
                    lo = _mm256_xor_si256(lo, _mm256_loadu_si256(xor.add(at) as *const __m256i));
                    hi = _mm256_xor_si256(
                        hi,
                        _mm256_loadu_si256(xor.add(at + 16 * TS) as *const __m256i),
                    );
                }
                // SAFETY: (i+32)*TS <= n*TS <= dst.len().
                _mm256_storeu_si256(d.add(at) as *mut __m256i, lo);
                _mm256_storeu_si256(d.add(at + 16 * TS) as *mut __m256i, hi);
            }
            i += LANES;
        }
        done
    }
}

/// Running byte sums (mod 256) of the 32 bytes of `x`: a prefix sum in each 128-bit lane, then
/// the low lane's total added to the high lane.
// Inlined into the AVX2 kernels below, which are compiled with AVX2 enabled.
#[inline(always)]
unsafe fn running_sums_32(x: __m256i) -> __m256i {
    // SAFETY: register-only AVX2 intrinsics; every caller runs with AVX2 enabled.
    unsafe {
        let mut x = _mm256_add_epi8(x, _mm256_slli_si256(x, 1));
        x = _mm256_add_epi8(x, _mm256_slli_si256(x, 2));
        x = _mm256_add_epi8(x, _mm256_slli_si256(x, 4));
        x = _mm256_add_epi8(x, _mm256_slli_si256(x, 8));
        let lane_totals = _mm256_shuffle_epi8(x, _mm256_set1_epi8(15));
        // Low lane zeroed, high lane gets the low lane's total.
        _mm256_add_epi8(x, _mm256_permute2x128_si256(lane_totals, lane_totals, 0x08))
    }
}

/// Byte 31 of `x` in all 32 bytes.
// Inlined into the AVX2 kernels below, which are compiled with AVX2 enabled.
#[inline(always)]
unsafe fn broadcast_last_32(x: __m256i) -> __m256i {
    // SAFETY: register-only AVX2 intrinsics; every caller runs with AVX2 enabled.
    unsafe {
        let lane_totals = _mm256_shuffle_epi8(x, _mm256_set1_epi8(15));
        _mm256_permute2x128_si256(lane_totals, lane_totals, 0x11)
    }
}

/// [`unshuffle_ts`] of the running byte sums of each stream (bytedelta's decoding fused with
/// the unshuffle that follows it): returns how many elements it did and each stream's sum so
/// far, from which the caller's scalar tail continues.
#[target_feature(enable = "avx2")]
unsafe fn unshuffle_sums_ts<const TS: usize>(
    streams: &[&[u8]],
    dst: &mut [u8],
) -> (usize, [u8; 16]) {
    // SAFETY: AVX2 is enabled here; the loads read i..i + 32 <= n bytes of streams of at least n
    // bytes (asserted first) and the stores end at (i + 32) * TS <= dst.len().
    unsafe {
        let n = dst.len() / TS;
        assert!(streams.len() == TS && streams.iter().all(|s| s.len() >= n));
        let done = n - n % LANES;
        let rows: [*const u8; TS] = std::array::from_fn(|b| streams[b].as_ptr());
        let d = dst.as_mut_ptr();
        let mut carry = [_mm256_setzero_si256(); TS]; // each stream's sum so far, in every byte
        let mut i = 0;
        while i < done {
            let mut v = [_mm256_setzero_si256(); TS];
            // Written out per stream: as a loop over the streams (which the compiler kept rolled)
            // `v` and `carry` lived on the stack; unrolled, the kernel runs 27% fewer instructions
            // (callgrind: 2.9M instead of 4.0M per 4 MiB chunk of 8-byte items) and
            // bytedelta+shuffle+zstd decompression is 2% faster.
            macro_rules! each_stream {
                ($($b:literal)*) => {$(
                    if $b < TS {
                        // SAFETY: i + 32 <= n and every stream holds n bytes.
                        let sums =
                            running_sums_32(_mm256_loadu_si256(rows[$b].add(i) as *const __m256i));
                        v[$b] = _mm256_add_epi8(sums, carry[$b]);
                        // Kept off the next step's dependency chain: carry + total of this piece.
                        carry[$b] = _mm256_add_epi8(carry[$b], broadcast_last_32(sums));
                    }
                )*};
            }
            each_stream!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
            from_streams::<TS>(&mut v);
            for k in 0..TS / 2 {
                let (a, b) = (v[2 * k], v[2 * k + 1]);
                let out = d.add(i * TS + 32 * k);
                // SAFETY: (i+32)*TS <= n*TS <= dst.len().
                _mm256_storeu_si256(out as *mut __m256i, _mm256_permute2x128_si256(a, b, 0x20));
                _mm256_storeu_si256(
                    out.add(16 * TS) as *mut __m256i,
                    _mm256_permute2x128_si256(a, b, 0x31),
                );
            }
            i += LANES;
        }
        let mut sums = [0u8; 16];
        for (s, c) in sums.iter_mut().zip(carry) {
            *s = _mm256_cvtsi256_si32(c) as u8;
        }
        (done, sums)
    }
}

/// Unshuffles the running byte sums of 2, 4, 8 or 16 streams (each at least
/// `dst.len() / streams.len()` bytes) for the leading whole groups of 32 elements; returns how
/// many elements it did and each stream's sum so far. None for other stream counts.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn unshuffle_running_sums(
    streams: &[&[u8]],
    dst: &mut [u8],
) -> Option<(usize, [u8; 16])> {
    // SAFETY: AVX2 is enabled here (this fn's contract), all that `unshuffle_sums_ts` asks beyond
    // what it asserts.
    unsafe {
        Some(match streams.len() {
            2 => unshuffle_sums_ts::<2>(streams, dst),
            4 => unshuffle_sums_ts::<4>(streams, dst),
            8 => unshuffle_sums_ts::<8>(streams, dst),
            16 => unshuffle_sums_ts::<16>(streams, dst),
            _ => return None,
        })
    }
}

/// How many leading elements the tiled kernels may handle: whole steps of 32 elements whose
/// 16-byte accesses (which run `16 - typesize` bytes past an element narrower than 16) stay
/// inside the block.
fn tiled_elements(typesize: usize, len: usize) -> usize {
    tiled_of(typesize, len / typesize, len)
}

/// [`tiled_elements`] for `n` elements in a destination of `len` bytes.
fn tiled_of(typesize: usize, n: usize, len: usize) -> usize {
    let mut done = n - n % LANES;
    while done > 0 && (done - 1) * typesize + typesize.max(16) > len {
        done -= LANES;
    }
    done
}

/// The 16-byte column tiles of an element: 0, 16, ..., and a last one ending at the element's
/// end (overlapping its predecessor; rewriting the same bytes is harmless). Narrower elements
/// have one tile of `typesize` useful bytes.
fn tiles(typesize: usize) -> impl Iterator<Item = (usize, usize)> {
    let count = typesize.div_ceil(16);
    (0..count).map(move |t| {
        if typesize <= 16 {
            (0, typesize)
        } else {
            ((16 * t).min(typesize - 16), 16)
        }
    })
}

/// Loads the 16-byte tile at column `c0` of 32 elements of `ts` bytes starting at `s` (lane 0:
/// the first 16 elements, lane 1: the next 16) and transposes it into 16 stream vectors.
// Inlined into the AVX2 kernels below, which are compiled with AVX2 enabled.
#[inline(always)]
unsafe fn tile_streams(s: *const u8, ts: usize, c0: usize) -> [__m256i; 16] {
    // SAFETY: AVX2 is enabled in every caller, which guarantees the bytes up to 31 * ts + c0 + 16
    // readable at `s` (see `tiled_elements`).
    unsafe {
        let mut v = [_mm256_setzero_si256(); 16];
        for (e, x) in v.iter_mut().enumerate() {
            let lo = s.add(e * ts + c0);
            *x = _mm256_inserti128_si256(
                _mm256_castsi128_si256(_mm_loadu_si128(lo as *const __m128i)),
                _mm_loadu_si128(lo.add(16 * ts) as *const __m128i),
                1,
            );
        }
        from_streams::<16>(&mut v); // a 16x16 byte transpose per lane (an involution)
        v
    }
}

/// Shuffle for any typesize of 3 or more: for each 16-byte column tile, loads that tile of 32
/// elements (16 per lane), transposes the 16x16 bytes of each lane and stores the tile's
/// streams, two steps at a time as in `shuffle_ts`. Returns how many elements it did.
#[target_feature(enable = "avx2")]
unsafe fn shuffle_tiled(ts: usize, src: &[u8], dst: &mut [u8]) -> usize {
    // SAFETY: AVX2 is enabled here; reads and writes stay in bounds as the comment at each says
    // (`tiled_elements` keeps the last 16-byte access inside the block).
    unsafe {
        let n = src.len() / ts;
        let done = tiled_elements(ts, src.len());
        let (s, d) = (src.as_ptr(), dst.as_mut_ptr());
        let mut i = 0;
        while i < done {
            let pair = i + 2 * LANES <= done;
            for (c0, width) in tiles(ts) {
                // SAFETY: the last byte read is (i+31)*ts + c0 + 15 < len (or i+63 when `pair`),
                // as tiled_elements ensured ((done-1)*ts + max(ts, 16) <= len, c0 + 16 <= max(ts, 16)).
                let first = tile_streams(s.add(i * ts), ts, c0);
                if pair {
                    // SAFETY: as above.
                    let second = tile_streams(s.add((i + LANES) * ts), ts, c0);
                    for b in 0..width {
                        let out = d.add((c0 + b) * n + i);
                        // SAFETY: (c0+b)*n + i + 64 <= ts*n <= dst.len() (equal lengths checked).
                        _mm256_storeu_si256(out as *mut __m256i, first[b]);
                        _mm256_storeu_si256(out.add(LANES) as *mut __m256i, second[b]);
                    }
                } else {
                    for (b, x) in first.iter().take(width).enumerate() {
                        // SAFETY: (c0+b)*n + i + 32 <= ts*n <= dst.len().
                        _mm256_storeu_si256(d.add((c0 + b) * n + i) as *mut __m256i, *x);
                    }
                }
            }
            i += if pair { 2 * LANES } else { LANES };
        }
        done
    }
}

/// Transposes 16 stream vectors (rows `width..` zero) of a tile back to element tiles and
/// stores them at `d` (element 0 of the step) for elements 0..32 of `ts` bytes at column `c0`.
// Inlined into the AVX2 kernels below, which are compiled with AVX2 enabled.
#[inline(always)]
unsafe fn store_tile(mut v: [__m256i; 16], d: *mut u8, ts: usize, c0: usize) {
    // SAFETY: AVX2 is enabled in every caller, which guarantees the bytes up to 31 * ts + c0 + 16
    // writable at `d` (see `tiled_elements`).
    unsafe {
        from_streams::<16>(&mut v);
        for (e, x) in v.iter().enumerate() {
            _mm_storeu_si128(
                d.add(e * ts + c0) as *mut __m128i,
                _mm256_castsi256_si128(*x),
            );
        }
        for (e, x) in v.iter().enumerate() {
            _mm_storeu_si128(
                d.add((16 + e) * ts + c0) as *mut __m128i,
                _mm256_extracti128_si256(*x, 1),
            );
        }
    }
}

/// Inverse of [`shuffle_tiled`], from the `ts` streams `row(b)` points to (at least `n` bytes
/// each) into `dst` (at least `n * ts` bytes). Elements narrower than 16 bytes are stored 16
/// bytes at a time in increasing order, each store's excess overwritten by the next one (the
/// excess of the last lies inside `dst` and is rewritten by the caller's scalar tail).
#[target_feature(enable = "avx2")]
unsafe fn unshuffle_tiled(
    ts: usize,
    row: impl Fn(usize) -> *const u8,
    n: usize,
    dst: &mut [u8],
) -> usize {
    // SAFETY: AVX2 is enabled here; loads read i..i + 64 <= n bytes of streams of n bytes and
    // `store_tile` writes within `dst` (`tiled_of`), as the comments below say.
    unsafe {
        let done = tiled_of(ts, n, dst.len());
        let d = dst.as_mut_ptr();
        let mut i = 0;
        while i < done {
            // Two steps at a time read whole 64-byte lines of each stream (see shuffle_ts).
            let pair = i + 2 * LANES <= done;
            for (c0, width) in tiles(ts) {
                let mut first = [_mm256_setzero_si256(); 16];
                let mut second = [_mm256_setzero_si256(); 16];
                for b in 0..width {
                    let r = row(c0 + b).add(i);
                    // SAFETY: i + 32 (64 when `pair`) <= n and every stream holds n bytes.
                    first[b] = _mm256_loadu_si256(r as *const __m256i);
                    if pair {
                        second[b] = _mm256_loadu_si256(r.add(LANES) as *const __m256i);
                    }
                }
                // SAFETY: writes end at (i+31)*ts + c0 + 16 <= dst.len() (i+63 when `pair`; see
                // tiled_elements), and the step's elements come before the next step's.
                store_tile(first, d.add(i * ts), ts, c0);
                if pair {
                    // SAFETY: as above.
                    store_tile(second, d.add((i + LANES) * ts), ts, c0);
                }
            }
            i += if pair { 2 * LANES } else { LANES };
        }
        done
    }
}

/// Shuffles the leading whole groups of 32 elements; returns how many elements it did.
/// Requires `src.len() == dst.len()` and `typesize >= 2`.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn shuffle(typesize: usize, src: &[u8], dst: &mut [u8]) -> usize {
    // SAFETY: AVX2 is enabled here (this fn's contract); the kernels need equal lengths and a
    // typesize of 2 or more, asserted first.
    unsafe {
        assert_eq!(src.len(), dst.len());
        assert!(typesize >= 2);
        match typesize {
            2 => shuffle_ts::<2, false>(src, &[], dst),
            4 => shuffle_ts::<4, false>(src, &[], dst),
            8 => shuffle_ts::<8, false>(src, &[], dst),
            16 => shuffle_ts::<16, false>(src, &[], dst),
            _ => shuffle_tiled(typesize, src, dst),
        }
    }
}

/// [`shuffle`] of `src ^ xor` for typesizes 2, 4, 8 and 16 (returns 0, having done nothing,
/// for the others): DELTA's XOR with block 0 and the shuffle after it in one pass. Requires
/// `src.len() == dst.len() <= xor.len()`.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn shuffle_xor(typesize: usize, src: &[u8], xor: &[u8], dst: &mut [u8]) -> usize {
    // SAFETY: AVX2 is enabled here (this fn's contract); the kernels need equal lengths and `xor`
    // at least as long, asserted first.
    unsafe {
        assert_eq!(src.len(), dst.len());
        assert!(xor.len() >= src.len());
        match typesize {
            2 => shuffle_ts::<2, true>(src, xor, dst),
            4 => shuffle_ts::<4, true>(src, xor, dst),
            8 => shuffle_ts::<8, true>(src, xor, dst),
            16 => shuffle_ts::<16, true>(src, xor, dst),
            _ => 0,
        }
    }
}

/// Unshuffles the leading whole groups of 32 elements; returns how many elements it did.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn unshuffle(typesize: usize, src: &[u8], dst: &mut [u8]) -> usize {
    // SAFETY: AVX2 is enabled here (this fn's contract); each `row(b)`, b < typesize, starts b * n
    // bytes into `src`, so n bytes from it lie in `src`, and `dst` is as long as `src` (asserted).
    unsafe {
        assert_eq!(src.len(), dst.len());
        assert!(typesize >= 2);
        let n = src.len() / typesize;
        let s = src.as_ptr();
        // SAFETY (of each `row`): b < typesize, so b*n + n <= src.len().
        unshuffle_rows(typesize, |b| s.add(b * n), n, dst)
    }
}

/// [`unshuffle`] from `streams.len()` streams lying anywhere, each at least
/// `n = dst.len() / streams.len()` bytes long.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn unshuffle_streams(streams: &[&[u8]], dst: &mut [u8]) -> usize {
    // SAFETY: AVX2 is enabled here (this fn's contract); every stream holds n bytes (asserted
    // first).
    unsafe {
        let ts = streams.len();
        assert!(ts >= 2);
        let n = dst.len() / ts;
        assert!(streams.iter().all(|s| s.len() >= n));
        unshuffle_rows(ts, |b| streams[b].as_ptr(), n, dst)
    }
}

/// [`unshuffle_streams`] of elements `first..first + dst.len() / streams.len()` of the
/// streams; returns how many of those elements it did.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn unshuffle_streams_at(
    streams: &[&[u8]],
    first: usize,
    dst: &mut [u8],
) -> usize {
    // SAFETY: AVX2 is enabled here (this fn's contract); every stream holds at least `first + n`
    // bytes (asserted first), so each row from `first` holds n.
    unsafe {
        let ts = streams.len();
        assert!(ts >= 2);
        let n = dst.len() / ts;
        assert!(streams.iter().all(|s| s.len() >= first + n));
        // SAFETY: every stream holds at least `first + n` bytes (asserted above).
        unshuffle_rows(ts, |b| streams[b].as_ptr().add(first), n, dst)
    }
}

/// [`unshuffle_streams`] with each output byte XORed with the same byte of `xor` (at least
/// `dst.len()` bytes). Returns how many elements it did that way: for typesizes other than 2,
/// 4, 8 and 16 none (the caller does everything).
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn unshuffle_streams_xor(streams: &[&[u8]], xor: &[u8], dst: &mut [u8]) -> usize {
    // SAFETY: AVX2 is enabled here (this fn's contract); the streams hold n bytes and `xor` n * ts
    // (asserted first).
    unsafe {
        let ts = streams.len();
        let n = dst.len() / ts.max(1);
        assert!(streams.iter().all(|s| s.len() >= n) && xor.len() >= n * ts);
        let row = |b: usize| streams[b].as_ptr();
        let x = xor.as_ptr();
        match ts {
            2 => unshuffle_xor_ts::<2, true>(row, x, n, dst),
            4 => unshuffle_xor_ts::<4, true>(row, x, n, dst),
            8 => unshuffle_xor_ts::<8, true>(row, x, n, dst),
            16 => unshuffle_xor_ts::<16, true>(row, x, n, dst),
            _ => 0,
        }
    }
}

/// The kernel for `typesize` over streams `row(0..typesize)` of at least `n` bytes each, into
/// `dst` of at least `n * typesize` bytes.
#[target_feature(enable = "avx2")]
unsafe fn unshuffle_rows(
    typesize: usize,
    row: impl Fn(usize) -> *const u8,
    n: usize,
    dst: &mut [u8],
) -> usize {
    // SAFETY: AVX2 is enabled here; the kernels get rows of n bytes (the caller's contract) and a
    // `dst` of n * typesize bytes (asserted first).
    unsafe {
        assert!(dst.len() >= n * typesize);
        match typesize {
            2 => unshuffle_ts::<2>(row, n, dst),
            4 => unshuffle_ts::<4>(row, n, dst),
            8 => unshuffle_ts::<8>(row, n, dst),
            16 => unshuffle_ts::<16>(row, n, dst),
            _ => unshuffle_tiled(typesize, row, n, dst),
        }
    }
}
