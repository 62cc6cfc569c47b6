//! Portable bit transposition of one byte stream: the definition the SIMD kernels reproduce.
//!
//! A stream of `n` bytes (n a multiple of 8) becomes 8 rows of `n / 8` bytes: bit `i` of row
//! `k` (byte `i / 8`, least significant bit first) is bit `k` of stream byte `i`.

/// Transposes the 8x8 bit matrix held in `x`: bit `c` of byte `r` moves to bit `r` of byte `c`.
#[inline]
pub(crate) fn transpose_8x8(mut x: u64) -> u64 {
    let t = (x ^ (x >> 7)) & 0x00AA_00AA_00AA_00AA;
    x ^= t ^ (t << 7);
    let t = (x ^ (x >> 14)) & 0x0000_CCCC_0000_CCCC;
    x ^= t ^ (t << 14);
    let t = (x ^ (x >> 28)) & 0x0000_0000_F0F0_F0F0;
    x ^ t ^ (t << 28)
}

/// Writes the bit rows of stream bytes `first..n` (`first` a multiple of 8).
pub(crate) fn rows_from_bytes(first: usize, stream: &[u8], rows: &mut [u8]) {
    let nrow = stream.len() / 8;
    for g in first / 8..nrow {
        let bytes: [u8; 8] = stream[8 * g..8 * g + 8].try_into().expect("8 bytes");
        let t = transpose_8x8(u64::from_le_bytes(bytes)).to_le_bytes();
        for (k, b) in t.iter().enumerate() {
            rows[k * nrow + g] = *b;
        }
    }
}

/// Inverse of [`rows_from_bytes`]: rebuilds stream bytes `first..n` from the bit rows.
pub(crate) fn bytes_from_rows(first: usize, rows: &[u8], stream: &mut [u8]) {
    let nrow = rows.len() / 8;
    for g in first / 8..nrow {
        let mut bytes = [0u8; 8];
        for (k, b) in bytes.iter_mut().enumerate() {
            *b = rows[k * nrow + g];
        }
        let t = transpose_8x8(u64::from_le_bytes(bytes));
        stream[8 * g..8 * g + 8].copy_from_slice(&t.to_le_bytes());
    }
}
