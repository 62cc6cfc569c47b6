//! SSE2 bytedelta of one stream, 16 bytes at a time (what c-blosc2's SIMD loop covers).

use std::arch::x86_64::*;

/// Byte 15 of `x` in all 16 bytes.
#[inline]
#[target_feature(enable = "sse2")]
unsafe fn broadcast_last(x: __m128i) -> __m128i {
    let t = _mm_srli_si128(x, 15);
    let t = _mm_unpacklo_epi8(t, t);
    let t = _mm_shufflelo_epi16(t, 0);
    _mm_shuffle_epi32(t, 0)
}

/// Differences over the whole 16-byte pieces of `s`; returns how many bytes it did and the
/// last source byte (the running value the scalar tail continues from).
///
/// # Safety
/// The CPU must support SSE2 (all x86_64 CPUs do).
#[target_feature(enable = "sse2")]
pub(crate) unsafe fn forward(s: &[u8], d: &mut [u8]) -> (usize, u8) {
    // SAFETY: SSE2 is enabled here (this fn's contract); the loads and stores read and write i..i
    // + 16 <= done <= len bytes of two slices of equal length (asserted first).
    unsafe {
        assert_eq!(s.len(), d.len());
        let done = s.len() - s.len() % 16;
        let (sp, dp) = (s.as_ptr(), d.as_mut_ptr());
        let mut prev = _mm_setzero_si128();
        let mut i = 0;
        while i < done {
            // SAFETY: i + 16 <= len.
            let v = _mm_loadu_si128(sp.add(i) as *const __m128i);
            // The previous byte of each byte: v shifted up one, with the last byte of `prev`.
            let before = _mm_or_si128(_mm_slli_si128(v, 1), _mm_srli_si128(prev, 15));
            _mm_storeu_si128(dp.add(i) as *mut __m128i, _mm_sub_epi8(v, before));
            prev = v;
            i += 16;
        }
        (done, if done > 0 { s[done - 1] } else { 0 })
    }
}

/// Running sums over the whole 16-byte pieces of `s`; returns how many bytes it did and the
/// last sum.
///
/// # Safety
/// The CPU must support SSE2 (all x86_64 CPUs do).
#[target_feature(enable = "sse2")]
pub(crate) unsafe fn backward(s: &[u8], d: &mut [u8]) -> (usize, u8) {
    // SAFETY: SSE2 is enabled here (this fn's contract); the loads and stores read and write i..i
    // + 16 <= done <= len bytes of two slices of equal length (asserted first).
    unsafe {
        assert_eq!(s.len(), d.len());
        let done = s.len() - s.len() % 16;
        let (sp, dp) = (s.as_ptr(), d.as_mut_ptr());
        let mut carry = _mm_setzero_si128(); // the running sum, in every byte
        let mut i = 0;
        while i < done {
            // SAFETY: i + 16 <= len.
            let mut x = _mm_loadu_si128(sp.add(i) as *const __m128i);
            x = _mm_add_epi8(x, _mm_slli_si128(x, 1));
            x = _mm_add_epi8(x, _mm_slli_si128(x, 2));
            x = _mm_add_epi8(x, _mm_slli_si128(x, 4));
            x = _mm_add_epi8(x, _mm_slli_si128(x, 8));
            _mm_storeu_si128(dp.add(i) as *mut __m128i, _mm_add_epi8(x, carry));
            // Kept off the store's dependency chain: carry + total of this piece.
            carry = _mm_add_epi8(carry, broadcast_last(x));
            i += 16;
        }
        (done, _mm_cvtsi128_si32(carry) as u8)
    }
}
