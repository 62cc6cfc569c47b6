//! AVX2 byte shuffle for typesizes 2, 4, 8 and 16: 32 elements per step.
//!
//! A step loads `typesize` vectors (32 whole elements) and splits them into even and odd bytes
//! log2(typesize) times; each split halves the bytes per element, so the last level leaves one
//! vector per byte stream. Unshuffling interleaves the streams back in the opposite order.

use std::arch::x86_64::*;

const LANES: usize = 32;

/// Even and odd bytes of the 64 bytes `a ++ b`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn split(a: __m256i, b: __m256i) -> (__m256i, __m256i) {
    let low = _mm256_set1_epi16(0x00ff);
    // packus works per 128-bit lane, giving 8-byte quarters in the order a0 b0 a1 b1.
    let evens = _mm256_packus_epi16(_mm256_and_si256(a, low), _mm256_and_si256(b, low));
    let odds = _mm256_packus_epi16(_mm256_srli_epi16(a, 8), _mm256_srli_epi16(b, 8));
    (
        _mm256_permute4x64_epi64(evens, 0b11_01_10_00),
        _mm256_permute4x64_epi64(odds, 0b11_01_10_00),
    )
}

/// Inverse of [`split`]: interleaves even and odd bytes back into 64 bytes.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn join(evens: __m256i, odds: __m256i) -> (__m256i, __m256i) {
    // unpack works per 128-bit lane: bring quarters 0,1 to the low halves of the two lanes.
    let e = _mm256_permute4x64_epi64(evens, 0b11_01_10_00);
    let o = _mm256_permute4x64_epi64(odds, 0b11_01_10_00);
    (_mm256_unpacklo_epi8(e, o), _mm256_unpackhi_epi8(e, o))
}

/// Turns `TS` vectors of whole elements into `TS` byte-stream vectors (stream `b` in `v[b]`).
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn to_streams<const TS: usize>(v: &mut [__m256i; TS]) {
    // Groups of `size` vectors; after a level, group id `c` holds the bytes whose index has
    // low bits `c`, so the odd half of group `c` becomes group `c + groups`.
    let mut size = TS;
    while size > 1 {
        let groups = TS / size;
        let half = size / 2;
        let mut next = [_mm256_setzero_si256(); TS];
        for c in 0..groups {
            for q in 0..half {
                let (e, o) = split(v[c * size + 2 * q], v[c * size + 2 * q + 1]);
                next[c * half + q] = e;
                next[(c + groups) * half + q] = o;
            }
        }
        *v = next;
        size = half;
    }
}

/// Inverse of [`to_streams`].
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn from_streams<const TS: usize>(v: &mut [__m256i; TS]) {
    let mut size = 2;
    while size <= TS {
        let groups = TS / size;
        let half = size / 2;
        let mut prev = [_mm256_setzero_si256(); TS];
        for c in 0..groups {
            for q in 0..half {
                let (lo, hi) = join(v[c * half + q], v[(c + groups) * half + q]);
                prev[c * size + 2 * q] = lo;
                prev[c * size + 2 * q + 1] = hi;
            }
        }
        *v = prev;
        size *= 2;
    }
}

#[target_feature(enable = "avx2")]
unsafe fn shuffle_ts<const TS: usize>(src: &[u8], dst: &mut [u8]) -> usize {
    let n = src.len() / TS;
    let done = n - n % LANES;
    let (s, d) = (src.as_ptr(), dst.as_mut_ptr());
    let mut i = 0;
    while i < done {
        let mut v = [_mm256_setzero_si256(); TS];
        for (k, x) in v.iter_mut().enumerate() {
            // SAFETY: i + 32 <= n, so bytes i*TS .. (i+32)*TS lie within src (len >= n*TS).
            *x = _mm256_loadu_si256(s.add(i * TS + k * LANES) as *const __m256i);
        }
        to_streams::<TS>(&mut v);
        for (b, x) in v.iter().enumerate() {
            // SAFETY: b*n + i + 32 <= TS*n <= dst.len() (the caller checked equal lengths).
            _mm256_storeu_si256(d.add(b * n + i) as *mut __m256i, *x);
        }
        i += LANES;
    }
    done
}

#[target_feature(enable = "avx2")]
unsafe fn unshuffle_ts<const TS: usize>(src: &[u8], dst: &mut [u8]) -> usize {
    let n = src.len() / TS;
    let done = n - n % LANES;
    let (s, d) = (src.as_ptr(), dst.as_mut_ptr());
    let mut i = 0;
    while i < done {
        let mut v = [_mm256_setzero_si256(); TS];
        for (b, x) in v.iter_mut().enumerate() {
            // SAFETY: b*n + i + 32 <= TS*n <= src.len().
            *x = _mm256_loadu_si256(s.add(b * n + i) as *const __m256i);
        }
        from_streams::<TS>(&mut v);
        for (k, x) in v.iter().enumerate() {
            // SAFETY: (i+32)*TS <= n*TS <= dst.len() (the caller checked equal lengths).
            _mm256_storeu_si256(d.add(i * TS + k * LANES) as *mut __m256i, *x);
        }
        i += LANES;
    }
    done
}

/// Shuffles the leading whole groups of 32 elements; returns how many elements it did
/// (0 for typesizes it has no kernel for). Requires `src.len() == dst.len()`.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn shuffle(typesize: usize, src: &[u8], dst: &mut [u8]) -> usize {
    assert_eq!(src.len(), dst.len());
    match typesize {
        2 => shuffle_ts::<2>(src, dst),
        4 => shuffle_ts::<4>(src, dst),
        8 => shuffle_ts::<8>(src, dst),
        16 => shuffle_ts::<16>(src, dst),
        _ => 0,
    }
}

/// Unshuffles the leading whole groups of 32 elements; returns how many elements it did.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn unshuffle(typesize: usize, src: &[u8], dst: &mut [u8]) -> usize {
    assert_eq!(src.len(), dst.len());
    match typesize {
        2 => unshuffle_ts::<2>(src, dst),
        4 => unshuffle_ts::<4>(src, dst),
        8 => unshuffle_ts::<8>(src, dst),
        16 => unshuffle_ts::<16>(src, dst),
        _ => 0,
    }
}
