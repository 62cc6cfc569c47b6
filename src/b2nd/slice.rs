//! Slices of an array: n-d copies between C buffers, and the chunks and blocks a slice touches.

use super::shape::{for_each_index, strides, Geometry};
use crate::{Error, Result};

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
    for d in 0..ndim {
        if start[d] < 0 || start[d] > stop[d] || stop[d] > geom.shape[d] {
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
    let mut first = vec![0i64; ndim];
    let mut count = vec![0i64; ndim];
    for d in 0..ndim {
        let lo = start[d].max(cstart[d]);
        let hi = stop[d].min(cstop[d]);
        if lo >= hi {
            return Ok(());
        }
        let bs = geom.blockshape[d];
        first[d] = (lo - cstart[d]) / bs;
        count[d] = (hi - 1 - cstart[d]) / bs - first[d] + 1;
    }
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
    }
}
