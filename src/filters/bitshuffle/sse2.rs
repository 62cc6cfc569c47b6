//! SSE2 bit transposition of one byte stream (see `scalar` for the layout).

use std::arch::x86_64::*;

/// Bit rows of the leading whole 16-byte pieces of `stream`; returns how many bytes it did.
///
/// # Safety
/// The CPU must support SSE2.
#[target_feature(enable = "sse2")]
pub(crate) unsafe fn rows_from_bytes(stream: &[u8], rows: &mut [u8]) -> usize {
    // SAFETY: SSE2 is enabled here (this fn's contract); the loads and stores are in bounds as the
    // comment at each says.
    unsafe {
        assert_eq!(stream.len(), rows.len());
        let n = stream.len();
        let nrow = n / 8;
        let done = n - n % 16;
        let (s, r) = (stream.as_ptr(), rows.as_mut_ptr());
        let mut i = 0;
        while i < done {
            // SAFETY: i + 16 <= n.
            let mut x = _mm_loadu_si128(s.add(i) as *const __m128i);
            for k in (0..8).rev() {
                // movemask gathers the top bit of every byte, byte 0 into bit 0.
                let bits = _mm_movemask_epi8(x) as u16;
                // SAFETY: k*nrow + i/8 + 2 <= 7*nrow + nrow = n (i/8 + 2 <= nrow since i + 16 <= n).
                std::ptr::write_unaligned(r.add(k * nrow + i / 8) as *mut u16, bits.to_le());
                x = _mm_add_epi8(x, x);
            }
            i += 16;
        }
        done
    }
}

#[inline]
#[target_feature(enable = "sse2")]
unsafe fn transpose_8x8(x: __m128i) -> __m128i {
    let t = _mm_and_si128(
        _mm_xor_si128(x, _mm_srli_epi64(x, 7)),
        _mm_set1_epi64x(0x00AA_00AA_00AA_00AA),
    );
    let x = _mm_xor_si128(_mm_xor_si128(x, t), _mm_slli_epi64(t, 7));
    let t = _mm_and_si128(
        _mm_xor_si128(x, _mm_srli_epi64(x, 14)),
        _mm_set1_epi64x(0x0000_CCCC_0000_CCCC),
    );
    let x = _mm_xor_si128(_mm_xor_si128(x, t), _mm_slli_epi64(t, 14));
    let t = _mm_and_si128(
        _mm_xor_si128(x, _mm_srli_epi64(x, 28)),
        _mm_set1_epi64x(0x0000_0000_F0F0_F0F0),
    );
    _mm_xor_si128(_mm_xor_si128(x, t), _mm_slli_epi64(t, 28))
}

/// Stream bytes from the bit rows, 128 bytes (16 groups of 8) per step; returns how many
/// stream bytes it rebuilt.
///
/// # Safety
/// The CPU must support SSE2.
#[target_feature(enable = "sse2")]
pub(crate) unsafe fn bytes_from_rows(rows: &[u8], stream: &mut [u8]) -> usize {
    // SAFETY: SSE2 is enabled here (this fn's contract); the loads and stores are in bounds as the
    // comment at each says.
    unsafe {
        assert_eq!(stream.len(), rows.len());
        let nrow = rows.len() / 8;
        let (r, s) = (rows.as_ptr(), stream.as_mut_ptr());
        let mut g = 0;
        while g + 16 <= nrow {
            let mut v = [_mm_setzero_si128(); 8];
            for (k, x) in v.iter_mut().enumerate() {
                // SAFETY: k*nrow + g + 16 <= 8*nrow <= rows.len().
                *x = _mm_loadu_si128(r.add(k * nrow + g) as *const __m128i);
            }
            // Byte transpose: after three unpack levels each 64-bit lane holds rows 0..7 of a group.
            let a0 = _mm_unpacklo_epi8(v[0], v[1]);
            let a1 = _mm_unpackhi_epi8(v[0], v[1]);
            let b0 = _mm_unpacklo_epi8(v[2], v[3]);
            let b1 = _mm_unpackhi_epi8(v[2], v[3]);
            let c0 = _mm_unpacklo_epi8(v[4], v[5]);
            let c1 = _mm_unpackhi_epi8(v[4], v[5]);
            let d0 = _mm_unpacklo_epi8(v[6], v[7]);
            let d1 = _mm_unpackhi_epi8(v[6], v[7]);
            let e = [
                _mm_unpacklo_epi16(a0, b0),
                _mm_unpackhi_epi16(a0, b0),
                _mm_unpacklo_epi16(a1, b1),
                _mm_unpackhi_epi16(a1, b1),
            ];
            let f = [
                _mm_unpacklo_epi16(c0, d0),
                _mm_unpackhi_epi16(c0, d0),
                _mm_unpacklo_epi16(c1, d1),
                _mm_unpackhi_epi16(c1, d1),
            ];
            for q in 0..4 {
                let lo = transpose_8x8(_mm_unpacklo_epi32(e[q], f[q]));
                let hi = transpose_8x8(_mm_unpackhi_epi32(e[q], f[q]));
                // SAFETY: groups g+4q .. g+4q+4 < nrow, so bytes up to 8*(g+16) <= stream.len().
                _mm_storeu_si128(s.add(8 * (g + 4 * q)) as *mut __m128i, lo);
                _mm_storeu_si128(s.add(8 * (g + 4 * q + 2)) as *mut __m128i, hi);
            }
            g += 16;
        }
        8 * g
    }
}
