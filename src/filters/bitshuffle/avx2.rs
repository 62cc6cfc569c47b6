//! AVX2 bit transposition of one byte stream (see `scalar` for the layout).

use std::arch::x86_64::*;

/// Bit rows of the leading whole 32-byte pieces of `stream`; returns how many bytes it did.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn rows_from_bytes(stream: &[u8], rows: &mut [u8]) -> usize {
    // SAFETY: AVX2 is enabled here (this fn's contract); the loads and stores are in bounds as the
    // comment at each says (i + 32 <= n, rows of n / 8 bytes).
    unsafe {
        assert_eq!(stream.len(), rows.len());
        let n = stream.len();
        let nrow = n / 8;
        let done = n - n % 32;
        let (s, r) = (stream.as_ptr(), rows.as_mut_ptr());
        let mut i = 0;
        while i < done {
            // SAFETY: i + 32 <= n.
            let mut x = _mm256_loadu_si256(s.add(i) as *const __m256i);
            for k in (0..8).rev() {
                // movemask gathers the top bit of every byte, byte 0 into bit 0.
                let bits = _mm256_movemask_epi8(x) as u32;
                // SAFETY: k*nrow + i/8 + 4 <= 8*nrow = n (i/8 + 4 <= nrow since i + 32 <= n).
                std::ptr::write_unaligned(r.add(k * nrow + i / 8) as *mut u32, bits.to_le());
                x = _mm256_add_epi8(x, x);
            }
            i += 32;
        }
        done
    }
}

/// Bit rows of the leading whole 256-byte pieces of `stream`, with GFNI: each 8-byte group is
/// bit-transposed in one instruction (giving its byte of each row), then the groups are
/// scattered to the rows like 8-byte elements to byte streams. Returns how many bytes it did.
///
/// # Safety
/// The CPU must support AVX2 and GFNI.
#[target_feature(enable = "avx2,gfni")]
pub(crate) unsafe fn rows_from_bytes_gfni(stream: &[u8], rows: &mut [u8]) -> usize {
    // SAFETY: AVX2 and GFNI are enabled here (this fn's contract); the loads and stores are in
    // bounds as the comment at each says (i + 256 <= n).
    unsafe {
        assert_eq!(stream.len(), rows.len());
        let n = stream.len();
        let nrow = n / 8;
        let done = n - n % 256;
        let (s, r) = (stream.as_ptr(), rows.as_mut_ptr());
        // Reverses the bytes of each 64-bit lane, as transpose_8x8_gfni wants its rows.
        let reverse = _mm256_set_epi8(
            8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0,
            1, 2, 3, 4, 5, 6, 7,
        );
        let mut i = 0;
        while i < done {
            let mut v = [_mm256_setzero_si256(); 8];
            for (k, x) in v.iter_mut().enumerate() {
                // Lane 0 takes groups 0..16 of the step (bytes 0..128), lane 1 groups 16..32.
                let lo = s.add(i + 16 * k);
                // SAFETY: i + 256 <= n, and 16k + 128 + 16 <= 256.
                let bytes = _mm256_inserti128_si256(
                    _mm256_castsi128_si256(_mm_loadu_si128(lo as *const __m128i)),
                    _mm_loadu_si128(lo.add(128) as *const __m128i),
                    1,
                );
                // Each group's 8 stream bytes become its byte of rows 0..7.
                *x = transpose_8x8_gfni(_mm256_shuffle_epi8(bytes, reverse));
            }
            crate::filters::shuffle::avx2::to_streams_8(&mut v);
            for (k, x) in v.iter().enumerate() {
                // SAFETY: k*nrow + i/8 + 32 <= 8*nrow = n, since i + 256 <= n.
                _mm256_storeu_si256(r.add(k * nrow + i / 8) as *mut __m256i, *x);
            }
            i += 256;
        }
        done
    }
}

#[inline]
#[target_feature(enable = "avx2")]
unsafe fn transpose_8x8(x: __m256i) -> __m256i {
    let t = _mm256_and_si256(
        _mm256_xor_si256(x, _mm256_srli_epi64(x, 7)),
        _mm256_set1_epi64x(0x00AA_00AA_00AA_00AA),
    );
    let x = _mm256_xor_si256(_mm256_xor_si256(x, t), _mm256_slli_epi64(t, 7));
    let t = _mm256_and_si256(
        _mm256_xor_si256(x, _mm256_srli_epi64(x, 14)),
        _mm256_set1_epi64x(0x0000_CCCC_0000_CCCC),
    );
    let x = _mm256_xor_si256(_mm256_xor_si256(x, t), _mm256_slli_epi64(t, 14));
    let t = _mm256_and_si256(
        _mm256_xor_si256(x, _mm256_srli_epi64(x, 28)),
        _mm256_set1_epi64x(0x0000_0000_F0F0_F0F0),
    );
    _mm256_xor_si256(_mm256_xor_si256(x, t), _mm256_slli_epi64(t, 28))
}

/// Stream bytes from the bit rows, 256 bytes (32 groups of 8) per step; returns how many
/// stream bytes it rebuilt.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn bytes_from_rows(rows: &[u8], stream: &mut [u8]) -> usize {
    // SAFETY: AVX2 is enabled here (this fn's contract), all `bytes_from_rows_with::<false>`
    // needs.
    unsafe { bytes_from_rows_with::<false>(rows, stream) }
}

/// [`bytes_from_rows`] with each 8x8 bit transpose done by one GFNI affine instruction.
///
/// # Safety
/// The CPU must support AVX2 and GFNI.
#[target_feature(enable = "avx2,gfni")]
pub(crate) unsafe fn bytes_from_rows_gfni(rows: &[u8], stream: &mut [u8]) -> usize {
    // SAFETY: AVX2 and GFNI are enabled here (this fn's contract), all
    // `bytes_from_rows_with::<true>` needs.
    unsafe { bytes_from_rows_with::<true>(rows, stream) }
}

/// The transpose `gf2p8affineqb` does when the matrix operand holds the 8 rows in reverse
/// order and the data operand the unit bytes 1, 2, 4, ..., 128: result bit `i` of byte `b` is
/// bit `b` of matrix byte `7 - i`, i.e. of row `i`.
// Inlined into `bytes_from_rows_gfni`, compiled with AVX2 and GFNI enabled.
#[inline(always)]
unsafe fn transpose_8x8_gfni(reversed_rows: __m256i) -> __m256i {
    // SAFETY: register-only GFNI/AVX2 intrinsics; its one caller runs with AVX2 and GFNI enabled.
    unsafe {
        let units = _mm256_set1_epi64x(0x8040_2010_0804_0201_u64 as i64);
        _mm256_gf2p8affine_epi64_epi8::<0>(units, reversed_rows)
    }
}

// Inlined into the two entry points above, which enable the instructions it uses.
#[inline(always)]
unsafe fn bytes_from_rows_with<const GFNI: bool>(rows: &[u8], stream: &mut [u8]) -> usize {
    // SAFETY: the callers enable AVX2 (and GFNI for `GFNI`); the loads and stores are in bounds as
    // the comment at each says (g + 32 <= nrow).
    unsafe {
        assert_eq!(stream.len(), rows.len());
        let nrow = rows.len() / 8;
        let (r, s) = (rows.as_ptr(), stream.as_mut_ptr());
        let mut g = 0;
        while g + 32 <= nrow {
            let mut v = [_mm256_setzero_si256(); 8];
            for (k, x) in v.iter_mut().enumerate() {
                // The GFNI transpose wants each group's rows in reverse order.
                let row = if GFNI { 7 - k } else { k };
                // SAFETY: row*nrow + g + 32 <= 8*nrow <= rows.len().
                *x = _mm256_loadu_si256(r.add(row * nrow + g) as *const __m256i);
            }
            // Byte transpose within each 128-bit lane (lane 0: groups g..g+16, lane 1: g+16..g+32):
            // after three unpack levels each 64-bit lane holds rows 0..7 of one group.
            let a0 = _mm256_unpacklo_epi8(v[0], v[1]);
            let a1 = _mm256_unpackhi_epi8(v[0], v[1]);
            let b0 = _mm256_unpacklo_epi8(v[2], v[3]);
            let b1 = _mm256_unpackhi_epi8(v[2], v[3]);
            let c0 = _mm256_unpacklo_epi8(v[4], v[5]);
            let c1 = _mm256_unpackhi_epi8(v[4], v[5]);
            let d0 = _mm256_unpacklo_epi8(v[6], v[7]);
            let d1 = _mm256_unpackhi_epi8(v[6], v[7]);
            let e = [
                _mm256_unpacklo_epi16(a0, b0),
                _mm256_unpackhi_epi16(a0, b0),
                _mm256_unpacklo_epi16(a1, b1),
                _mm256_unpackhi_epi16(a1, b1),
            ];
            let f = [
                _mm256_unpacklo_epi16(c0, d0),
                _mm256_unpackhi_epi16(c0, d0),
                _mm256_unpacklo_epi16(c1, d1),
                _mm256_unpackhi_epi16(c1, d1),
            ];
            for q in 0..4 {
                // lo: groups 4q, 4q+1 (lane 0) and 16+4q, 17+4q (lane 1); hi: the next two of each.
                let (lo, hi) = (
                    _mm256_unpacklo_epi32(e[q], f[q]),
                    _mm256_unpackhi_epi32(e[q], f[q]),
                );
                let (lo, hi) = if GFNI {
                    (transpose_8x8_gfni(lo), transpose_8x8_gfni(hi))
                } else {
                    (transpose_8x8(lo), transpose_8x8(hi))
                };
                let first = _mm256_permute2x128_si256(lo, hi, 0x20);
                let second = _mm256_permute2x128_si256(lo, hi, 0x31);
                // SAFETY: groups up to g+32 <= nrow, so bytes up to 8*(g+32) <= stream.len().
                _mm256_storeu_si256(s.add(8 * (g + 4 * q)) as *mut __m256i, first);
                _mm256_storeu_si256(s.add(8 * (g + 16 + 4 * q)) as *mut __m256i, second);
            }
            g += 32;
        }
        8 * g
    }
}
