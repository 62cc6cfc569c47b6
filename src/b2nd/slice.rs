//! Slices of an array: n-d copies between C buffers, and the chunks and blocks a slice touches.

use super::shape::{for_each_index, strides, Geometry};
use super::MAX_DIM;
use crate::chunk::decompress::DecodedPart;
use crate::{Error, Result};
use std::sync::Mutex;

/// Copies the region `[src_start, src_stop)` of a C-order buffer of shape `src_pad_shape` into
/// a C-order buffer of shape `dst_pad_shape` at `dst_start` (what `b2nd_copy_buffer2` does).
/// Unlike the C function, every coordinate and both buffer lengths are checked; an empty region
/// copies nothing. A 0-d copy copies one item.
#[allow(clippy::too_many_arguments)]
pub fn copy_buffer(
    itemsize: usize,
    src: &[u8],
    src_pad_shape: &[i64],
    src_start: &[i64],
    src_stop: &[i64],
    dst: &mut [u8],
    dst_pad_shape: &[i64],
    dst_start: &[i64],
) -> Result<()> {
    let ndim = src_pad_shape.len();
    if src_start.len() != ndim
        || src_stop.len() != ndim
        || dst_pad_shape.len() != ndim
        || dst_start.len() != ndim
    {
        return Err(Error::InvalidParam);
    }
    let mut copy_shape = Vec::with_capacity(ndim);
    for d in 0..ndim {
        let n = src_stop[d]
            .checked_sub(src_start[d])
            .ok_or(Error::InvalidParam)?;
        if n < 0 || src_start[d] < 0 || dst_start[d] < 0 {
            return Err(Error::InvalidParam);
        }
        if src_stop[d] > src_pad_shape[d] || dst_start[d].saturating_add(n) > dst_pad_shape[d] {
            return Err(Error::InvalidParam);
        }
        copy_shape.push(n);
    }
    if copy_shape.contains(&0) {
        return Ok(());
    }
    let fits = |shape: &[i64], len: usize| -> bool {
        shape
            .iter()
            .try_fold(itemsize as i64, |acc, s| acc.checked_mul(*s))
            .is_some_and(|n| n as u64 <= len as u64)
    };
    if !fits(src_pad_shape, src.len()) || !fits(dst_pad_shape, dst.len()) {
        return Err(Error::InvalidParam);
    }
    let sst = strides(src_pad_shape);
    let dst_strides = strides(dst_pad_shape);
    let src_off: i64 = (0..ndim).map(|d| src_start[d] * sst[d]).sum();
    let dst_off: i64 = (0..ndim).map(|d| dst_start[d] * dst_strides[d]).sum();
    // Merge trailing dimensions copied whole in both buffers into one contiguous run.
    let mut outer = ndim;
    let mut run = 1i64;
    while outer > 0 {
        let d = outer - 1;
        run *= copy_shape[d];
        outer -= 1;
        if copy_shape[d] != src_pad_shape[d] || copy_shape[d] != dst_pad_shape[d] {
            break;
        }
    }
    let run_bytes = run as usize * itemsize;
    if outer == 0 {
        let (s, t) = (src_off as usize * itemsize, dst_off as usize * itemsize);
        dst[t..t + run_bytes].copy_from_slice(&src[s..s + run_bytes]);
        return Ok(());
    }
    // The innermost remaining dimension is walked here in a plain strided loop (a slice of a
    // 3-d block is mostly short rows: one index-vector step per row would cost as much as the
    // row's copy); the dimensions above it go through for_each_index.
    let inner = outer - 1;
    let (rows, src_step, dst_step) = (
        copy_shape[inner] as usize,
        sst[inner] as usize * itemsize,
        dst_strides[inner] as usize * itemsize,
    );
    for_each_index(&copy_shape[..inner], |idx| {
        let mut s = src_off;
        let mut t = dst_off;
        for d in 0..inner {
            s += idx[d] * sst[d];
            t += idx[d] * dst_strides[d];
        }
        let (mut s, mut t) = (s as usize * itemsize, t as usize * itemsize);
        for _ in 0..rows {
            dst[t..t + run_bytes].copy_from_slice(&src[s..s + run_bytes]);
            s += src_step;
            t += dst_step;
        }
        Ok(())
    })
}

/// The part of a slice inside one block, in the block's and the slice buffer's coordinates.
#[derive(Clone, Copy)]
pub(crate) struct Part {
    /// Index of the block inside its chunk.
    pub nblock: usize,
    /// First item of the part, in the block.
    src: [i64; MAX_DIM],
    /// Items of the part along each dimension (all at least 1).
    len: [i64; MAX_DIM],
    /// Where the first item goes, in the buffer.
    dst: [i64; MAX_DIM],
}

/// Copies the parts of a slice out of decoded blocks into the slice's C-order buffer. The
/// strides and the contiguous run are worked out once per slice, not once per block, and the
/// rows are walked with a fixed-size index: a slice of a 3-d array is mostly rows of one
/// block's width, so any per-row bookkeeping costs as much as the row's copy.
pub(crate) struct PartCopier {
    ndim: usize,
    /// Bytes between consecutive items along each dimension of a block.
    block_strides: [usize; MAX_DIM],
    /// Bytes between consecutive items along each dimension of the buffer.
    buffer_strides: [usize; MAX_DIM],
    block_shape: [i64; MAX_DIM],
    buffer_shape: [i64; MAX_DIM],
    itemsize: usize,
    /// The slice's first item, in array coordinates.
    start: [i64; MAX_DIM],
}

impl PartCopier {
    /// A copier for slices starting at `start` into buffers of `buffer_shape`, from blocks of
    /// `block_shape` items of `itemsize` bytes.
    pub fn new(
        itemsize: usize,
        block_shape: &[i64],
        buffer_shape: &[i64],
        start: &[i64],
    ) -> Result<PartCopier> {
        let ndim = block_shape.len();
        if ndim > MAX_DIM || buffer_shape.len() != ndim || start.len() != ndim {
            return Err(Error::InvalidParam);
        }
        let mut c = PartCopier {
            ndim,
            block_strides: [0; MAX_DIM],
            buffer_strides: [0; MAX_DIM],
            block_shape: [0; MAX_DIM],
            buffer_shape: [0; MAX_DIM],
            itemsize,
            start: [0; MAX_DIM],
        };
        let (mut bs, mut ts) = (itemsize, itemsize);
        for d in (0..ndim).rev() {
            if block_shape[d] < 0 || buffer_shape[d] < 0 {
                return Err(Error::InvalidParam);
            }
            c.block_strides[d] = bs;
            c.buffer_strides[d] = ts;
            c.block_shape[d] = block_shape[d];
            c.buffer_shape[d] = buffer_shape[d];
            c.start[d] = start[d];
            bs = bs.saturating_mul(block_shape[d] as usize);
            ts = ts.saturating_mul(buffer_shape[d] as usize);
        }
        Ok(c)
    }

    /// The part `p` of a block (found by [`for_each_block`]) in this copier's coordinates.
    pub fn part(&self, p: &BlockPart) -> Part {
        let mut part = Part {
            nblock: p.nblock,
            src: [0; MAX_DIM],
            len: [0; MAX_DIM],
            dst: [0; MAX_DIM],
        };
        for d in 0..self.ndim {
            part.src[d] = p.start[d] - p.block_origin[d];
            part.len[d] = p.stop[d] - p.start[d];
            part.dst[d] = p.start[d] - self.start[d];
        }
        part
    }

    /// Bytes `from..to` of its block that `part` spans: from its first item to the end of its
    /// last.
    pub fn span(&self, part: &Part) -> (usize, usize) {
        let (mut from, mut last) = (0usize, 0usize);
        for d in 0..self.ndim {
            from += part.src[d].max(0) as usize * self.block_strides[d];
            last += (part.len[d] - 1).max(0) as usize * self.block_strides[d];
        }
        (from, from + last + self.itemsize)
    }

    /// Bytes of the items of `part`.
    pub fn part_bytes(&self, part: &Part) -> usize {
        (0..self.ndim).fold(self.itemsize, |n, d| {
            n.saturating_mul(part.len[d].max(0) as usize)
        })
    }

    /// Copies `part` from its decoded `block` into `buffer`; `Error::Data` (nothing copied)
    /// when either is too short for it.
    pub fn copy(&self, part: &Part, block: &[u8], buffer: &mut [u8]) -> Result<()> {
        self.copy_runs(part, block.len(), buffer, |at, out| {
            copy_run(out, &block[at..at + out.len()]);
            Ok(())
        })
    }

    /// Copies `part` from the bytes of its block decoded by `for_each_block_part` (which
    /// unshuffles each contiguous run straight into the buffer) into `buffer`.
    pub fn copy_decoded(&self, part: &Part, block: &DecodedPart, buffer: &mut [u8]) -> Result<()> {
        if let Some((bytes, decoded)) = block.block_bytes() {
            // One check of the part's span against the bytes decoded for the many rows.
            let (from, to) = self.span(part);
            if from < decoded.start || to > decoded.end {
                return Err(Error::Data);
            }
            return self.copy(part, bytes, buffer);
        }
        // `copy_to` checks each run against the bytes decoded.
        self.copy_runs(part, usize::MAX, buffer, |at, out| block.copy_to(at, out))
    }

    /// Calls `run(offset in the block, where in the buffer)` for each contiguous run of `part`;
    /// `Error::Data` (nothing copied) when the buffer or a block of `block_len` bytes is too
    /// short for it.
    #[inline(always)]
    fn copy_runs(
        &self,
        part: &Part,
        block_len: usize,
        buffer: &mut [u8],
        mut copy: impl FnMut(usize, &mut [u8]) -> Result<()>,
    ) -> Result<()> {
        let nd = self.ndim;
        let (bst, tst) = (&self.block_strides, &self.buffer_strides);
        // Trailing dimensions the part spans whole in both block and buffer merge into one
        // contiguous run.
        let mut outer = nd;
        let mut run = self.itemsize;
        while outer > 0 {
            let d = outer - 1;
            run *= part.len[d] as usize;
            outer -= 1;
            if part.len[d] != self.block_shape[d] || part.len[d] != self.buffer_shape[d] {
                break;
            }
        }
        let (mut src_off, mut dst_off) = (0usize, 0usize);
        let (mut src_end, mut dst_end) = (run, run);
        for d in 0..nd {
            let (s, t, n) = (part.src[d], part.dst[d], part.len[d]);
            if s < 0 || t < 0 || n < 1 {
                return Err(Error::Data);
            }
            src_off += s as usize * bst[d];
            dst_off += t as usize * tst[d];
            if d < outer {
                src_end += (n - 1) as usize * bst[d];
                dst_end += (n - 1) as usize * tst[d];
            }
        }
        if src_off + src_end > block_len || dst_off + dst_end > buffer.len() {
            return Err(Error::Data);
        }
        if outer == 0 {
            return copy(src_off, &mut buffer[dst_off..dst_off + run]);
        }
        let inner = outer - 1;
        let rows = part.len[inner] as usize;
        let (sstep, tstep) = (bst[inner], tst[inner]);
        let mut idx = [0i64; MAX_DIM];
        loop {
            let (mut s, mut t) = (src_off, dst_off);
            for d in 0..inner {
                s += idx[d] as usize * bst[d];
                t += idx[d] as usize * tst[d];
            }
            for _ in 0..rows {
                copy(s, &mut buffer[t..t + run])?;
                s += sstep;
                t += tstep;
            }
            let mut d = inner;
            loop {
                if d == 0 {
                    return Ok(());
                }
                d -= 1;
                idx[d] += 1;
                if idx[d] < part.len[d] {
                    break;
                }
                idx[d] = 0;
            }
        }
    }
}

impl PartCopier {
    /// Bytes of the buffer per index of its first dimension (0 for a 0-d buffer).
    pub fn row_bytes(&self) -> usize {
        if self.ndim == 0 {
            0
        } else {
            self.buffer_strides[0]
        }
    }

    /// `copy(sub_part, rows)` for the sub-parts of `part` in each group of `rows_per_group`
    /// rows of a buffer split along its first dimension, each group behind its own lock:
    /// threads copying parts of different chunks wait for each other only when they write the
    /// same rows. `copy` is [`copy`](Self::copy) or [`copy_decoded`](Self::copy_decoded).
    pub fn copy_to_row_groups(
        &self,
        part: &Part,
        groups: &[Mutex<&mut [u8]>],
        rows_per_group: usize,
        mut copy: impl FnMut(&Part, &mut [u8]) -> Result<()>,
    ) -> Result<()> {
        if self.ndim == 0 || rows_per_group == 0 {
            return Err(Error::Data);
        }
        let rpg = rows_per_group as i64;
        let (first, end) = (part.dst[0], part.dst[0] + part.len[0]);
        let mut row = first;
        while row < end {
            let g = row / rpg;
            let group_end = ((g + 1) * rpg).min(end);
            let mut sub = *part;
            sub.src[0] = part.src[0] + (row - first);
            sub.len[0] = group_end - row;
            sub.dst[0] = row - g * rpg;
            let group = groups.get(g as usize).ok_or(Error::Data)?;
            let mut rows = group.lock().unwrap_or_else(|e| e.into_inner());
            copy(&sub, &mut rows)?;
            row = group_end;
        }
        Ok(())
    }
}

/// `dst.copy_from_slice(src)`, with the short runs that slices of blocks are made of (a
/// 16-item row of f64 is 128 bytes, a box's edge row 80) copied inline: a box read makes tens
/// of thousands of them, and a call to `memcpy` dispatching on each one's size cost a slab
/// read 3-8% of its time.
#[inline(always)]
fn copy_run(dst: &mut [u8], src: &[u8]) {
    let n = dst.len();
    #[cfg(target_arch = "x86_64")]
    if (16..=128).contains(&n) && src.len() == n {
        // SAFETY: both slices hold `n` bytes, 16 <= n <= 128.
        unsafe { copy_16_to_128(dst.as_mut_ptr(), src.as_ptr(), n) };
        return;
    }
    dst.copy_from_slice(src);
}

/// Copies `n` bytes, 16 <= n <= 128, from `src` to `dst` with 16-byte moves and no loop: the
/// first and the last 16, 32 or 64 bytes, overlapping in the middle (as memcpy does for short
/// sizes), all loaded before any is stored.
///
/// # Safety
/// `src` and `dst` are valid for `n` bytes and do not overlap; 16 <= n <= 128.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn copy_16_to_128(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: SSE2 is baseline on x86_64; the caller guarantees 16 <= n <= 128 and `n` bytes
    // readable at `src` and writable at `dst`, and every access below lies within 0..n.
    unsafe {
        use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_storeu_si128};
        let load = |at: usize| _mm_loadu_si128(src.add(at) as *const __m128i);
        let store = |at: usize, v| _mm_storeu_si128(dst.add(at) as *mut __m128i, v);
        if n <= 32 {
            let (a, b) = (load(0), load(n - 16));
            store(0, a);
            store(n - 16, b);
        } else if n <= 64 {
            let (a0, a1, b0, b1) = (load(0), load(16), load(n - 32), load(n - 16));
            store(0, a0);
            store(16, a1);
            store(n - 32, b0);
            store(n - 16, b1);
        } else {
            let (a0, a1, a2, a3) = (load(0), load(16), load(32), load(48));
            let (b0, b1, b2, b3) = (load(n - 64), load(n - 48), load(n - 32), load(n - 16));
            store(0, a0);
            store(16, a1);
            store(32, a2);
            store(48, a3);
            store(n - 64, b0);
            store(n - 48, b1);
            store(n - 32, b2);
            store(n - 16, b3);
        }
    }
}

/// The part of a slice that falls in one block of one chunk.
pub(crate) struct BlockPart<'a> {
    /// Index of the block inside its chunk.
    pub nblock: usize,
    /// Array coordinates of the block's first item.
    pub block_origin: &'a [i64],
    /// The intersection of slice, block and array, in array coordinates: first item.
    pub start: &'a [i64],
    /// One past the intersection's last item along each dimension.
    pub stop: &'a [i64],
}

/// Validates `[start, stop)` against the array's shape.
pub fn check_slice(geom: &Geometry, start: &[i64], stop: &[i64]) -> Result<()> {
    let ndim = geom.ndim();
    if start.len() != ndim || stop.len() != ndim {
        return Err(Error::InvalidParam);
    }
    // c-blosc2's codes: a slice reaching outside the array fails with FAILURE, one whose
    // start passes its stop is an INVALID_PARAM.
    for d in 0..ndim {
        if start[d] < 0 || stop[d] > geom.shape[d] {
            return Err(Error::Failure);
        }
        if start[d] > stop[d] {
            return Err(Error::InvalidParam);
        }
    }
    Ok(())
}

/// Calls `f(nchunk, chunk_coords)` for every chunk a non-empty slice touches, in storage order.
pub(crate) fn for_each_chunk(
    geom: &Geometry,
    start: &[i64],
    stop: &[i64],
    mut f: impl FnMut(i64, &[i64]) -> Result<()>,
) -> Result<()> {
    let ndim = geom.ndim();
    if (0..ndim).any(|d| start[d] >= stop[d]) || geom.nitems == 0 {
        return Ok(());
    }
    let first: Vec<i64> = (0..ndim).map(|d| start[d] / geom.chunkshape[d]).collect();
    let count: Vec<i64> = (0..ndim)
        .map(|d| (stop[d] - 1) / geom.chunkshape[d] - first[d] + 1)
        .collect();
    let grid_strides = strides(&geom.chunks_per_dim());
    let mut coords = vec![0i64; ndim];
    for_each_index(&count, |rel| {
        let mut nchunk = 0;
        for d in 0..ndim {
            coords[d] = first[d] + rel[d];
            nchunk += coords[d] * grid_strides[d];
        }
        f(nchunk, &coords)
    })
}

/// How many blocks of chunk `chunk_coords` the slice `[start, stop)` touches (the blocks
/// [`for_each_block`] visits).
pub(crate) fn count_blocks(
    geom: &Geometry,
    chunk_coords: &[i64],
    start: &[i64],
    stop: &[i64],
) -> usize {
    let (cstart, cstop) = geom.chunk_region(chunk_coords);
    touched_blocks(geom, &cstart, &cstop, start, stop)
        .map_or(0, |(_, count)| count.iter().product::<i64>() as usize)
}

/// The first block and the number of blocks along each dimension of the chunk spanning
/// `[cstart, cstop)` that the slice `[start, stop)` touches; None when it touches none.
fn touched_blocks(
    geom: &Geometry,
    cstart: &[i64],
    cstop: &[i64],
    start: &[i64],
    stop: &[i64],
) -> Option<(Vec<i64>, Vec<i64>)> {
    let ndim = geom.ndim();
    let mut first = vec![0i64; ndim];
    let mut count = vec![0i64; ndim];
    for d in 0..ndim {
        let lo = start[d].max(cstart[d]);
        let hi = stop[d].min(cstop[d]);
        if lo >= hi {
            return None;
        }
        let bs = geom.blockshape[d];
        first[d] = (lo - cstart[d]) / bs;
        count[d] = (hi - 1 - cstart[d]) / bs - first[d] + 1;
    }
    Some((first, count))
}

/// Calls `f` for every block of chunk `chunk_coords` that the slice `[start, stop)` touches,
/// with the part of the slice inside it.
pub(crate) fn for_each_block(
    geom: &Geometry,
    chunk_coords: &[i64],
    start: &[i64],
    stop: &[i64],
    mut f: impl FnMut(BlockPart) -> Result<()>,
) -> Result<()> {
    let ndim = geom.ndim();
    let (cstart, cstop) = geom.chunk_region(chunk_coords);
    let Some((first, count)) = touched_blocks(geom, &cstart, &cstop, start, stop) else {
        return Ok(());
    };
    let bstrides = strides(&geom.blocks_per_dim());
    let mut origin = vec![0i64; ndim];
    let mut pstart = vec![0i64; ndim];
    let mut pstop = vec![0i64; ndim];
    for_each_index(&count, |rel| {
        let mut nblock = 0;
        for d in 0..ndim {
            let b = first[d] + rel[d];
            nblock += b * bstrides[d];
            origin[d] = cstart[d] + b * geom.blockshape[d];
            pstart[d] = start[d].max(origin[d]);
            pstop[d] = stop[d].min(origin[d] + geom.blockshape[d]).min(cstop[d]);
        }
        f(BlockPart {
            nblock: nblock as usize,
            block_origin: &origin,
            start: &pstart,
            stop: &pstop,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_2d_region() {
        let src: Vec<u8> = (0..20).collect(); // 4 x 5
        let mut dst = vec![0u8; 9]; // 3 x 3
        copy_buffer(
            1,
            &src,
            &[4, 5],
            &[1, 2],
            &[3, 5],
            &mut dst,
            &[3, 3],
            &[1, 0],
        )
        .unwrap();
        assert_eq!(dst, [0, 0, 0, 7, 8, 9, 12, 13, 14]);
        assert!(copy_buffer(
            1,
            &src,
            &[4, 5],
            &[1, 2],
            &[3, 6],
            &mut dst,
            &[3, 3],
            &[0, 0]
        )
        .is_err());
        assert!(copy_buffer(
            1,
            &src,
            &[4, 5],
            &[0, 0],
            &[2, 2],
            &mut dst,
            &[3, 3],
            &[2, 0]
        )
        .is_err());
        assert!(copy_buffer(
            1,
            &src[..19],
            &[4, 5],
            &[0, 0],
            &[1, 1],
            &mut dst,
            &[3, 3],
            &[0, 0]
        )
        .is_err());
        let mut one = [0u8; 2];
        copy_buffer(2, &[7, 9], &[], &[], &[], &mut one, &[], &[]).unwrap();
        assert_eq!(one, [7, 9]);
    }

    #[test]
    fn part_copies_whole_and_by_row_groups() {
        // A 10 x 7 array of 2-byte items, blocks 4 x 3, slice [1, 9) x [2, 7) into an 9 x 6
        // buffer (one spare row and column).
        let g = Geometry::new(&[10, 7], &[8, 6], &[4, 3], 2).unwrap();
        let (start, stop) = ([1i64, 2], [9i64, 7]);
        let bshape = [9i64, 6];
        let item = |i: i64, j: i64| [(i * 7 + j) as u8, 0xa0];
        let copier = PartCopier::new(2, &g.blockshape, &bshape, &start).unwrap();
        let mut whole = vec![0u8; 9 * 6 * 2];
        let mut by_groups = vec![0u8; 9 * 6 * 2];
        for rows_per_group in [1usize, 2, 3, 9] {
            by_groups.fill(0);
            let groups: Vec<Mutex<&mut [u8]>> = by_groups
                .chunks_mut(rows_per_group * copier.row_bytes())
                .map(Mutex::new)
                .collect();
            for_each_chunk(&g, &start, &stop, |_, coords| {
                for_each_block(&g, coords, &start, &stop, |p| {
                    // The block's items, C order, from the array's values.
                    let mut block = Vec::new();
                    for i in 0..4 {
                        for j in 0..3 {
                            block.extend(item(p.block_origin[0] + i, p.block_origin[1] + j));
                        }
                    }
                    let part = copier.part(&p);
                    copier.copy_to_row_groups(&part, &groups, rows_per_group, |sub, rows| {
                        copier.copy(sub, &block, rows)
                    })?;
                    if rows_per_group == 1 {
                        copier.copy(&part, &block, &mut whole)?;
                    }
                    Ok(())
                })
            })
            .unwrap();
            drop(groups);
            let mut want = vec![0u8; 9 * 6 * 2];
            for i in start[0]..stop[0] {
                for j in start[1]..stop[1] {
                    let at = (((i - start[0]) * 6 + (j - start[1])) * 2) as usize;
                    want[at..at + 2].copy_from_slice(&item(i, j));
                }
            }
            assert_eq!(by_groups, want, "rows per group {rows_per_group}");
            assert_eq!(whole, want);
        }
        // A part that does not fit the buffer is refused, not copied.
        let p = BlockPart {
            nblock: 0,
            block_origin: &[8, 6],
            start: &[8, 6],
            stop: &[10, 7],
        };
        let part = copier.part(&p);
        assert!(copier.copy(&part, &[0u8; 24], &mut [0u8; 20]).is_err());
    }

    #[test]
    fn runs_of_every_length_copy_exactly() {
        let src: Vec<u8> = (0..300u32).map(|i| (i * 7 + 3) as u8).collect();
        for n in 0..=300 {
            let mut dst = vec![0xEEu8; n + 1];
            copy_run(&mut dst[..n], &src[..n]);
            assert_eq!(&dst[..n], &src[..n], "{n}");
            assert_eq!(dst[n], 0xEE, "{n}: past the run");
        }
    }

    #[test]
    fn touched_chunks_and_blocks() {
        let g = Geometry::new(&[10, 10], &[4, 4], &[2, 3], 1).unwrap();
        let mut chunks = Vec::new();
        for_each_chunk(&g, &[3, 5], &[5, 6], |n, c| {
            chunks.push((n, c.to_vec()));
            Ok(())
        })
        .unwrap();
        assert_eq!(chunks, vec![(1, vec![0, 1]), (4, vec![1, 1])]);
        // Chunk (0,1) covers rows 0..4, cols 4..8; blocks 2x3 (extchunk 4x6, 2x2 blocks).
        let mut touched = Vec::new();
        for_each_block(&g, &[0, 1], &[3, 5], &[5, 6], |p| {
            touched.push(p.nblock);
            Ok(())
        })
        .unwrap();
        assert_eq!(touched, vec![2]);
        assert_eq!(count_blocks(&g, &[0, 1], &[3, 5], &[5, 6]), 1);
        // The whole of chunk (1,1) (rows 4..8, cols 4..8): its 2x2 blocks.
        assert_eq!(count_blocks(&g, &[1, 1], &[0, 0], &[10, 10]), 4);
        // Rows 1..7, cols 0..10 of chunk (0,0): both block rows, both block columns.
        assert_eq!(count_blocks(&g, &[0, 0], &[1, 0], &[7, 10]), 4);
        assert_eq!(count_blocks(&g, &[2, 2], &[3, 5], &[5, 6]), 0);
    }
}
