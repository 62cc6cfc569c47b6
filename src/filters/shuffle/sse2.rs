//! SSE2 byte shuffle for typesizes 2, 4, 8 and 16: 16 elements per step.
//!
//! A step loads `typesize` vectors (16 whole elements) and splits them into even and odd bytes
//! log2(typesize) times; each split halves the bytes per element, so the last level leaves one
//! vector per byte stream. Unshuffling interleaves the streams back in the opposite order.

use std::arch::x86_64::*;

const LANES: usize = 16;

/// Even and odd bytes of the 32 bytes `a ++ b`.
#[inline]
#[target_feature(enable = "sse2")]
unsafe fn split(a: __m128i, b: __m128i) -> (__m128i, __m128i) {
    let low = _mm_set1_epi16(0x00ff);
    let evens = _mm_packus_epi16(_mm_and_si128(a, low), _mm_and_si128(b, low));
    let odds = _mm_packus_epi16(_mm_srli_epi16(a, 8), _mm_srli_epi16(b, 8));
    (evens, odds)
}

/// Inverse of [`split`]: interleaves even and odd bytes back into 32 bytes.
#[inline]
#[target_feature(enable = "sse2")]
unsafe fn join(evens: __m128i, odds: __m128i) -> (__m128i, __m128i) {
    (
        _mm_unpacklo_epi8(evens, odds),
        _mm_unpackhi_epi8(evens, odds),
    )
}

/// Turns `TS` vectors of whole elements into `TS` byte-stream vectors (stream `b` in `v[b]`).
#[inline]
#[target_feature(enable = "sse2")]
unsafe fn to_streams<const TS: usize>(v: &mut [__m128i; TS]) {
    // SAFETY: only `split`, which needs SSE2, enabled here.
    unsafe {
        // Groups of `size` vectors; after a level, group id `c` holds the bytes whose index has
        // low bits `c`, so the odd half of group `c` becomes group `c + groups`.
        let mut size = TS;
        while size > 1 {
            let groups = TS / size;
            let half = size / 2;
            let mut next = [_mm_setzero_si128(); TS];
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
}

/// Inverse of [`to_streams`].
#[inline]
#[target_feature(enable = "sse2")]
unsafe fn from_streams<const TS: usize>(v: &mut [__m128i; TS]) {
    // SAFETY: only `join`, which needs SSE2, enabled here.
    unsafe {
        let mut size = 2;
        while size <= TS {
            let groups = TS / size;
            let half = size / 2;
            let mut prev = [_mm_setzero_si128(); TS];
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
}

#[target_feature(enable = "sse2")]
unsafe fn shuffle_ts<const TS: usize>(src: &[u8], dst: &mut [u8]) -> usize {
    // SAFETY: SSE2 is enabled here; each load and store is in bounds as the comment at it says (i
    // + 16 <= n elements; src and dst hold n * TS bytes).
    unsafe {
        let n = src.len() / TS;
        let done = n - n % LANES;
        let (s, d) = (src.as_ptr(), dst.as_mut_ptr());
        let mut i = 0;
        while i < done {
            let mut v = [_mm_setzero_si128(); TS];
            for (k, x) in v.iter_mut().enumerate() {
                // SAFETY: i + 16 <= n, so bytes i*TS .. (i+16)*TS lie within src (len >= n*TS).
                *x = _mm_loadu_si128(s.add(i * TS + k * LANES) as *const __m128i);
            }
            to_streams::<TS>(&mut v);
            for (b, x) in v.iter().enumerate() {
                // SAFETY: b*n + i + 16 <= TS*n <= dst.len() (the caller checked equal lengths).
                _mm_storeu_si128(d.add(b * n + i) as *mut __m128i, *x);
            }
            i += LANES;
        }
        done
    }
}

/// Unshuffles elements `0..done` (`done` = `n` rounded down to a step) from the `TS` streams
/// that `row(b)` points to (at least `n` bytes each) into `dst` (at least `n * TS` bytes).
#[target_feature(enable = "sse2")]
unsafe fn unshuffle_ts<const TS: usize>(
    row: impl Fn(usize) -> *const u8,
    n: usize,
    dst: &mut [u8],
) -> usize {
    // SAFETY: SSE2 is enabled here; loads read i..i + 16 <= n bytes of rows of n bytes (the
    // caller's contract), stores end at (i + 16) * TS <= dst.len() (asserted first).
    unsafe {
        assert!(dst.len() >= n * TS);
        let done = n - n % LANES;
        let rows: [*const u8; TS] = std::array::from_fn(row);
        let d = dst.as_mut_ptr();
        let mut i = 0;
        while i < done {
            let mut v = [_mm_setzero_si128(); TS];
            for (x, r) in v.iter_mut().zip(rows) {
                // SAFETY: i + 16 <= n and every stream holds n bytes.
                *x = _mm_loadu_si128(r.add(i) as *const __m128i);
            }
            from_streams::<TS>(&mut v);
            for (k, x) in v.iter().enumerate() {
                // SAFETY: (i+16)*TS <= n*TS <= dst.len().
                _mm_storeu_si128(d.add(i * TS + k * LANES) as *mut __m128i, *x);
            }
            i += LANES;
        }
        done
    }
}

/// Shuffles the leading whole groups of 16 elements; returns how many elements it did
/// (0 for typesizes it has no kernel for). Requires `src.len() == dst.len()`.
///
/// # Safety
/// The CPU must support SSE2.
#[target_feature(enable = "sse2")]
pub(crate) unsafe fn shuffle(typesize: usize, src: &[u8], dst: &mut [u8]) -> usize {
    // SAFETY: SSE2 is enabled here (this fn's contract); the kernels need equal lengths, asserted
    // first.
    unsafe {
        assert_eq!(src.len(), dst.len());
        match typesize {
            2 => shuffle_ts::<2>(src, dst),
            4 => shuffle_ts::<4>(src, dst),
            8 => shuffle_ts::<8>(src, dst),
            16 => shuffle_ts::<16>(src, dst),
            _ => 0,
        }
    }
}

/// Unshuffles the leading whole groups of 16 elements; returns how many elements it did.
///
/// # Safety
/// The CPU must support SSE2.
#[target_feature(enable = "sse2")]
pub(crate) unsafe fn unshuffle(typesize: usize, src: &[u8], dst: &mut [u8]) -> usize {
    // SAFETY: SSE2 is enabled here (this fn's contract); each `row(b)`, b < typesize, starts b * n
    // bytes into `src`, so n bytes from it lie in `src`.
    unsafe {
        assert_eq!(src.len(), dst.len());
        let n = src.len() / typesize.max(1);
        let s = src.as_ptr();
        // SAFETY (of each `row`): b < typesize, so b*n + n <= src.len().
        unshuffle_rows(typesize, |b| s.add(b * n), n, dst)
    }
}

/// [`unshuffle`] from `streams.len()` streams lying anywhere, each at least
/// `n = dst.len() / streams.len()` bytes long.
///
/// # Safety
/// The CPU must support SSE2.
#[target_feature(enable = "sse2")]
pub(crate) unsafe fn unshuffle_streams(streams: &[&[u8]], dst: &mut [u8]) -> usize {
    // SAFETY: SSE2 is enabled here (this fn's contract); every stream holds n bytes (asserted
    // first).
    unsafe {
        let ts = streams.len();
        let n = dst.len() / ts.max(1);
        assert!(streams.iter().all(|s| s.len() >= n));
        unshuffle_rows(ts, |b| streams[b].as_ptr(), n, dst)
    }
}

/// [`unshuffle_streams`] of elements `first..first + dst.len() / streams.len()` of the
/// streams; returns how many of those elements it did (0 for typesizes other than 2, 4, 8, 16).
///
/// # Safety
/// The CPU must support SSE2.
#[target_feature(enable = "sse2")]
pub(crate) unsafe fn unshuffle_streams_at(
    streams: &[&[u8]],
    first: usize,
    dst: &mut [u8],
) -> usize {
    // SAFETY: SSE2 is enabled here (this fn's contract); every stream holds at least `first + n`
    // bytes (asserted first), so each row from `first` holds n.
    unsafe {
        let ts = streams.len();
        let n = dst.len() / ts.max(1);
        assert!(streams.iter().all(|s| s.len() >= first + n));
        // SAFETY: every stream holds at least `first + n` bytes (asserted above).
        unshuffle_rows(ts, |b| streams[b].as_ptr().add(first), n, dst)
    }
}

#[target_feature(enable = "sse2")]
unsafe fn unshuffle_rows(
    typesize: usize,
    row: impl Fn(usize) -> *const u8,
    n: usize,
    dst: &mut [u8],
) -> usize {
    // SAFETY: SSE2 is enabled here; rows of n bytes and `dst` of n * typesize bytes are the
    // caller's contract, passed on.
    unsafe {
        match typesize {
            2 => unshuffle_ts::<2>(row, n, dst),
            4 => unshuffle_ts::<4>(row, n, dst),
            8 => unshuffle_ts::<8>(row, n, dst),
            16 => unshuffle_ts::<16>(row, n, dst),
            _ => 0,
        }
    }
}
