//! NDLZ (`BLOSC_CODEC_NDLZ`, plugin id 32): a codec for the blocks of 2-D arrays that works on
//! square cells of 4x4 or 8x8 bytes (`compcode_meta` 4 or 8) instead of on a byte stream.
//!
//! Stream format (as c-blosc2's plugin writes and reads it): 1 byte ndim (2), the block shape
//! as two little-endian i32, then one record per cell in C order of the cell grid. Each record
//! starts with a token:
//! - `0`: the cell's bytes follow (for the cells cut by the block's far edges, just the bytes
//!   inside the block, row after row);
//! - `64`: one byte follows, which fills the whole cell;
//! - `192`: a u16 `offset` follows; the cell equals the bytes `offset` before this token;
//! - row matches, where some rows come from `offset` bytes before the token and the others
//!   follow: in 4x4 cells, tokens 128..=191 (two rows), 224..=255 (three rows) and 40..=63
//!   (two pairs of rows with two offsets); in 8x8 cells, `17 << 3 | row` (rows `row`,
//!   `row + 1`) and `21 << 3 | row` (rows `row` to `row + 2`).
//!
//! The decoder reads all of these, bounds-checking every reference. The encoder here is our
//! own and simpler than the reference's: it writes literal cells, uniform cells and whole-cell
//! matches (found through a hash of earlier literal cells), which c-blosc2 decodes alike; its
//! output is therefore valid NDLZ but not byte-identical to the reference's, and row matches
//! are not searched for.

use crate::{Error, Result};

/// Bytes before the first cell record: ndim and the two block dimensions.
const HEADER_LEN: usize = 9;
/// References must lie closer than this (the reference's `MAX_DISTANCE`).
const MAX_DISTANCE: usize = 65535;
const TOKEN_LITERAL: u8 = 0;
const TOKEN_UNIFORM: u8 = 1 << 6;
const TOKEN_CELL_MATCH: u8 = (1 << 7) | (1 << 6);
const HASH_BITS: u32 = 12;

/// The cell side for a `compcode_meta`.
fn cell_side(meta: u8) -> Result<usize> {
    match meta {
        4 | 8 => Ok(meta as usize),
        _ => Err(Error::Failure),
    }
}

/// Extent of cell `index` of `count` along a dimension of `len` items cut in cells of `side`.
fn cell_extent(index: usize, count: usize, len: usize, side: usize) -> usize {
    if index + 1 == count && !len.is_multiple_of(side) {
        len % side
    } else {
        side
    }
}

fn hash_cell(cell: &[u8]) -> usize {
    let mut h: u32 = 0x9e37_79b9;
    for &word in cell.as_chunks::<4>().0 {
        let v = u32::from_le_bytes(word);
        h = (h ^ v).wrapping_mul(0x85eb_ca6b).rotate_left(13);
    }
    (h >> (32 - HASH_BITS)) as usize
}

/// Compresses one block of a 2-D array (`blockshape`, one byte per item) into `dst`. Returns
/// the compressed size, or 0 when it does not fit in `dst` or would not be smaller than the
/// input (the block is then stored raw, as with the reference). Errors, as c-blosc2's: not a
/// 2-D array, the data not one whole block, a cell side other than 4 or 8.
pub fn compress(meta: u8, blockshape: &[i32], src: &[u8], dst: &mut [u8]) -> Result<usize> {
    let side = cell_side(meta)?;
    let &[rows, cols] = blockshape else {
        return Err(Error::Failure);
    };
    let (Ok(rows), Ok(cols)) = (usize::try_from(rows), usize::try_from(cols)) else {
        return Err(Error::Failure);
    };
    if rows.checked_mul(cols) != Some(src.len()) || dst.len() < HEADER_LEN {
        return Err(Error::Failure);
    }
    let cell_size = side * side;
    if src.len() < cell_size {
        return Ok(0);
    }
    dst[0] = 2;
    dst[1..5].copy_from_slice(&(rows as i32).to_le_bytes());
    dst[5..9].copy_from_slice(&(cols as i32).to_le_bytes());
    let mut op = HEADER_LEN;
    // Where the literal bytes of an earlier full cell start, by hash of their content.
    let mut table = vec![0usize; 1 << HASH_BITS];
    let mut cell = vec![0u8; cell_size];
    let (grid_rows, grid_cols) = (rows.div_ceil(side), cols.div_ceil(side));
    for cr in 0..grid_rows {
        for cc in 0..grid_cols {
            if op + cell_size + 1 > dst.len() {
                return Ok(0);
            }
            let height = cell_extent(cr, grid_rows, rows, side);
            let width = cell_extent(cc, grid_cols, cols, side);
            let origin = cr * side * cols + cc * side;
            if height < side || width < side {
                dst[op] = TOKEN_LITERAL;
                op += 1;
                for r in 0..height {
                    let at = origin + r * cols;
                    dst[op..op + width].copy_from_slice(&src[at..at + width]);
                    op += width;
                }
            } else {
                for r in 0..side {
                    let at = origin + r * cols;
                    cell[r * side..(r + 1) * side].copy_from_slice(&src[at..at + side]);
                }
                let h = hash_cell(&cell);
                let earlier = table[h];
                if cell.iter().all(|&b| b == cell[0]) {
                    dst[op] = TOKEN_UNIFORM;
                    dst[op + 1] = cell[0];
                    op += 2;
                } else if earlier != 0
                    && op - earlier < MAX_DISTANCE
                    && dst[earlier..earlier + cell_size] == cell[..]
                {
                    dst[op] = TOKEN_CELL_MATCH;
                    dst[op + 1..op + 3].copy_from_slice(&((op - earlier) as u16).to_le_bytes());
                    op += 3;
                } else {
                    dst[op] = TOKEN_LITERAL;
                    dst[op + 1..op + 1 + cell_size].copy_from_slice(&cell);
                    table[h] = op + 1;
                    op += 1 + cell_size;
                }
            }
            if op > src.len() {
                return Ok(0);
            }
        }
    }
    Ok(op)
}

/// Bytes `len` at `pos` of `src`, or the reference's error for a reference out of the stream.
fn range(src: &[u8], pos: i64, len: usize) -> Result<&[u8]> {
    let pos = usize::try_from(pos).map_err(|_| Error::Failure)?;
    src.get(pos..pos.checked_add(len).ok_or(Error::Failure)?)
        .ok_or(Error::Failure)
}

fn read_u16(src: &[u8], pos: usize) -> Result<i64> {
    let b = range(src, pos as i64, 2)?;
    Ok(i64::from(u16::from_le_bytes([b[0], b[1]])))
}

/// Decompresses one NDLZ stream into `dst`; returns the block's size in bytes. Damaged input
/// gives an error (never a read outside `src` or a write outside `dst`).
pub fn decompress(meta: u8, src: &[u8], dst: &mut [u8]) -> Result<usize> {
    let side = cell_side(meta)?;
    if src.len() < 8 {
        return Ok(0);
    }
    if src[0] != 2 {
        return Err(Error::Failure);
    }
    let dim = |at: usize| -> Result<usize> {
        let b = range(src, at as i64, 4)?;
        usize::try_from(i32::from_le_bytes([b[0], b[1], b[2], b[3]])).map_err(|_| Error::Failure)
    };
    let (rows, cols) = (dim(1)?, dim(5)?);
    let total = rows.checked_mul(cols).ok_or(Error::Failure)?;
    if total > i32::MAX as usize {
        return Err(Error::Failure);
    }
    if dst.len() < total {
        return Ok(0);
    }
    dst[..total].fill(0);
    let cell_size = side * side;
    let mut cell = vec![0u8; cell_size];
    let mut ip = HEADER_LEN;
    let (grid_rows, grid_cols) = (rows.div_ceil(side), cols.div_ceil(side));
    for cr in 0..grid_rows {
        for cc in 0..grid_cols {
            let height = cell_extent(cr, grid_rows, rows, side);
            let width = cell_extent(cc, grid_cols, cols, side);
            let cur = ip;
            let token = range(src, cur as i64, 1)?[0];
            ip += 1;
            // The cell's rows, `width` bytes apart: a slice of `src` or of `cell`.
            let from_src: Option<&[u8]>;
            match token {
                TOKEN_LITERAL => {
                    from_src = Some(range(src, ip as i64, height * width)?);
                    ip += height * width;
                }
                TOKEN_CELL_MATCH => {
                    let offset = read_u16(src, ip)?;
                    from_src = Some(range(src, cur as i64 - offset, height * width)?);
                    ip += 2;
                }
                TOKEN_UNIFORM => {
                    let b = range(src, ip as i64, 1)?[0];
                    cell.fill(b);
                    ip += 1;
                    from_src = None;
                }
                _ if side == 4 => {
                    ip = rows_match_4x4(src, token, cur, &mut cell)?;
                    from_src = None;
                }
                _ => {
                    ip = rows_match_8x8(src, token, cur, &mut cell)?;
                    from_src = None;
                }
            }
            let data = from_src.unwrap_or(&cell);
            let origin = cr * side * cols + cc * side;
            for r in 0..height {
                let at = origin + r * cols;
                dst[at..at + width].copy_from_slice(&data[r * width..(r + 1) * width]);
            }
        }
    }
    Ok(total)
}

/// Copies the rows of `take` (in order) from `src` at `pos`, `side` bytes each, into `cell`.
fn rows_from(src: &[u8], pos: i64, take: &[usize], side: usize, cell: &mut [u8]) -> Result<()> {
    let bytes = range(src, pos, take.len() * side)?;
    for (k, &r) in take.iter().enumerate() {
        cell[r * side..(r + 1) * side].copy_from_slice(&bytes[k * side..(k + 1) * side]);
    }
    Ok(())
}

/// Decodes a row-match record of a 4x4 cell whose token is at `cur`; returns where the next
/// record starts.
fn rows_match_4x4(src: &[u8], token: u8, cur: usize, cell: &mut [u8]) -> Result<usize> {
    let mut ip = cur + 1;
    let others =
        |matched: &[usize]| -> Vec<usize> { (0..4).filter(|r| !matched.contains(r)).collect() };
    let matched: Vec<usize> = match token {
        224..=255 => match token >> 3 {
            28 => vec![1, 2, 3],
            29 => vec![0, 1, 2],
            30 => vec![0, 1, 3],
            _ => vec![0, 2, 3],
        },
        128..=191 => {
            if token == 128 {
                vec![2, 3]
            } else {
                let i = usize::from((token - 128) >> 5);
                let j = usize::from((token - 128) >> 3) - (i << 2);
                if j > 3 || j == i {
                    return Err(Error::Failure);
                }
                vec![i, j]
            }
        }
        40..=63 => {
            let j = usize::from((token - 32) >> 3);
            let first = read_u16(src, ip)?;
            let second = read_u16(src, ip + 2)?;
            rows_from(src, cur as i64 - first, &[0, j], 4, cell)?;
            rows_from(src, cur as i64 - second, &others(&[0, j]), 4, cell)?;
            return Ok(ip + 4);
        }
        _ => return Err(Error::Failure),
    };
    let offset = read_u16(src, ip)?;
    ip += 2;
    rows_from(src, cur as i64 - offset, &matched, 4, cell)?;
    for r in others(&matched) {
        rows_from(src, ip as i64, &[r], 4, cell)?;
        ip += 4;
    }
    Ok(ip)
}

/// As [`rows_match_4x4`] for 8x8 cells.
fn rows_match_8x8(src: &[u8], token: u8, cur: usize, cell: &mut [u8]) -> Result<usize> {
    let row = usize::from(token & 7);
    let n = match token >> 3 {
        21 => 3,
        17 => 2,
        _ => return Err(Error::Failure),
    };
    if row + n > 8 {
        return Err(Error::Failure);
    }
    let offset = read_u16(src, cur + 1)?;
    let matched: Vec<usize> = (row..row + n).collect();
    rows_from(src, cur as i64 - offset, &matched, 8, cell)?;
    let mut ip = cur + 3;
    for r in (0..8).filter(|r| !matched.contains(r)) {
        rows_from(src, ip as i64, &[r], 8, cell)?;
        ip += 8;
    }
    Ok(ip)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(rows: usize, cols: usize) -> Vec<u8> {
        // Repeating tiles, uniform areas and noise.
        (0..rows * cols)
            .map(|k| {
                let (r, c) = (k / cols, k % cols);
                if r < 8 {
                    7
                } else if r < 24 {
                    ((r % 4) * 3 + c % 4) as u8
                } else {
                    (k as u32).wrapping_mul(2_654_435_761).rotate_left(7) as u8
                }
            })
            .collect()
    }

    #[test]
    fn round_trips_with_both_cell_sizes_and_edge_cells() {
        for (rows, cols) in [(32, 32), (37, 21), (9, 64), (40, 13)] {
            let src = block(rows, cols);
            for meta in [4, 8] {
                let mut c = vec![0u8; src.len() + 64];
                let n = compress(meta, &[rows as i32, cols as i32], &src, &mut c).unwrap();
                if n == 0 {
                    continue;
                }
                let mut back = vec![0u8; src.len()];
                assert_eq!(decompress(meta, &c[..n], &mut back), Ok(src.len()));
                assert_eq!(back, src, "{rows}x{cols} meta {meta}");
            }
        }
    }

    #[test]
    fn refusals() {
        let src = block(16, 16);
        let mut c = vec![0u8; 512];
        assert_eq!(compress(5, &[16, 16], &src, &mut c), Err(Error::Failure));
        assert_eq!(compress(4, &[16, 16, 1], &src, &mut c), Err(Error::Failure));
        assert_eq!(compress(4, &[16, 15], &src, &mut c), Err(Error::Failure));
        assert_eq!(compress(8, &[2, 128], &src, &mut c), Ok(0));
    }

    #[test]
    fn row_match_records_decode() {
        // Hand-made 4x4 stream for an 4x8 block: a literal cell, then a two-row match taking
        // rows 0 and 1 from it (token 0b1000_1000: i 0, j 1) with rows 2 and 3 literal.
        let mut s = vec![2, 4, 0, 0, 0, 8, 0, 0, 0];
        s.push(0);
        s.extend(1..=16u8);
        let cur = s.len();
        s.push(0b1000_1000);
        s.extend(((cur - 10) as u16).to_le_bytes());
        s.extend([21, 22, 23, 24, 31, 32, 33, 34]);
        let mut out = vec![0u8; 32];
        assert_eq!(decompress(4, &s, &mut out), Ok(32));
        assert_eq!(&out[4..8], &[1, 2, 3, 4]);
        assert_eq!(&out[12..16], &[5, 6, 7, 8]);
        assert_eq!(&out[20..24], &[21, 22, 23, 24]);
        assert_eq!(&out[28..32], &[31, 32, 33, 34]);
    }

    #[test]
    fn damaged_streams_fail_without_panicking() {
        let src = block(37, 21);
        let mut c = vec![0u8; src.len() + 64];
        let n = compress(4, &[37, 21], &src, &mut c).unwrap();
        assert!(n > 0);
        let mut out = vec![0u8; src.len()];
        let mut x = 1u32;
        for _ in 0..3000 {
            let mut m = c[..n].to_vec();
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let at = x as usize % n;
            m[at] ^= (x >> 24) as u8 | 1;
            let _ = decompress(4, &m, &mut out);
            let _ = decompress(8, &m[..at.max(1)], &mut out);
        }
    }
}
