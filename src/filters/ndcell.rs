//! The ndcell filter (`BLOSC_FILTER_NDCELL`, plugin id 32): reorders the items of an
//! n-dimensional block so that each cell of `meta` items per side (smaller at the block's far
//! edges) is contiguous, cells in C order, each cell's items in C order. Lossless; the backward
//! step puts the items back.
//!
//! The block's shape comes from the "b2nd" metalayer of the array the chunk belongs to. As in
//! c-blosc2 3.3.5, the filter fails (so compression or decompression fails) when the data is
//! not a whole block of that shape or the block holds fewer items than one full cell;
//! `meta` is read as a signed byte and must be positive (the reference divides by it).
//!
//! `Cells` is the walk over a block's cells that ndmean shares.

use crate::{Error, Result};

/// The cells of one block: which items each cell holds, as runs along the last dimension.
pub(crate) struct Cells {
    blockshape: Vec<usize>,
    /// Cell extent per dimension (the far-edge cells are cut to the block).
    cellshape: Vec<usize>,
    /// How far apart, in items along each dimension, consecutive cells start. c-blosc2's ndmean
    /// uses the first dimension's cell extent for every dimension; ndcell's cells are cubes.
    step: usize,
    /// Cells per dimension.
    grid: Vec<usize>,
}

impl Cells {
    /// The cells of a block of `blockshape` items whose cells span `cellshape` items (same
    /// length, every entry positive), consecutive cells `step` items apart.
    pub(crate) fn new(blockshape: &[i32], cellshape: &[usize], step: usize) -> Result<Cells> {
        let blockshape = positive_dims(blockshape)?;
        if blockshape.len() != cellshape.len() || cellshape.contains(&0) || step == 0 {
            return Err(Error::Failure);
        }
        let grid = blockshape
            .iter()
            .zip(cellshape)
            .map(|(&b, &c)| b.div_ceil(c))
            .collect();
        Ok(Cells {
            blockshape,
            cellshape: cellshape.to_vec(),
            step,
            grid,
        })
    }

    /// Items in the block.
    pub(crate) fn block_items(&self) -> usize {
        self.blockshape.iter().product()
    }

    /// Calls `visit` for each cell in C order with the cell's runs of items, as (first item,
    /// item count) in the block, in C order. Runs are always inside the block.
    pub(crate) fn for_each(
        &self,
        mut visit: impl FnMut(&[(usize, usize)]) -> Result<()>,
    ) -> Result<()> {
        let ndim = self.blockshape.len();
        let mut strides = vec![1usize; ndim];
        for d in (0..ndim.saturating_sub(1)).rev() {
            strides[d] = strides[d + 1] * self.blockshape[d + 1];
        }
        let ncells: usize = self.grid.iter().product();
        let mut cell = vec![0usize; ndim];
        let mut extent = vec![0usize; ndim];
        let mut runs = Vec::new();
        for _ in 0..ncells {
            let mut origin = 0;
            for d in 0..ndim {
                let b = self.blockshape[d];
                let c = self.cellshape[d];
                let start = cell[d] * self.step;
                // The far-edge cell of a dimension the cells do not divide is cut to the rest.
                extent[d] = if !b.is_multiple_of(c) && cell[d] == self.grid[d] - 1 {
                    b % c
                } else {
                    c
                };
                if start + extent[d] > b {
                    return Err(Error::Failure);
                }
                origin += start * strides[d];
            }
            runs.clear();
            let rows: usize = extent[..ndim - 1].iter().product();
            let mut row = vec![0usize; ndim - 1];
            for _ in 0..rows {
                let at: usize = row.iter().zip(&strides).map(|(r, s)| r * s).sum();
                runs.push((origin + at, extent[ndim - 1]));
                next_index(&mut row, &extent[..ndim - 1]);
            }
            visit(&runs)?;
            next_index(&mut cell, &self.grid);
        }
        Ok(())
    }
}

/// Advances a C-order multi-index within `shape` (wrapping to all zeros after the last).
fn next_index(index: &mut [usize], shape: &[usize]) {
    for d in (0..index.len()).rev() {
        index[d] += 1;
        if index[d] < shape[d] {
            return;
        }
        index[d] = 0;
    }
}

/// The block shape as item counts: 1 to 8 dimensions, each positive.
fn positive_dims(blockshape: &[i32]) -> Result<Vec<usize>> {
    if blockshape.is_empty() || blockshape.len() > 8 {
        return Err(Error::Failure);
    }
    blockshape
        .iter()
        .map(|&b| {
            usize::try_from(b)
                .ok()
                .filter(|&b| b > 0)
                .ok_or(Error::Failure)
        })
        .collect()
}

/// The cells ndcell uses, after c-blosc2's checks: `meta` positive (as a signed byte), the data
/// exactly one block, the block at least one full cell.
fn ndcell_cells(blockshape: &[i32], typesize: usize, meta: u8, len: usize) -> Result<Cells> {
    let side = usize::try_from(meta as i8)
        .ok()
        .filter(|&s| s > 0)
        .ok_or(Error::Failure)?;
    let cells = Cells::new(blockshape, &vec![side; blockshape.len()], side)?;
    let block_bytes = cells.block_items().checked_mul(typesize);
    if typesize == 0 || block_bytes != Some(len) {
        return Err(Error::Failure);
    }
    let cell_items = (0..blockshape.len()).try_fold(1usize, |n, _| n.checked_mul(side));
    if cell_items
        .and_then(|n| n.checked_mul(typesize))
        .is_none_or(|n| len < n)
    {
        return Err(Error::Failure);
    }
    Ok(cells)
}

/// Gathers the items of each cell of the block in `src` into `dst`, cell after cell.
pub fn ndcell_forward(
    blockshape: &[i32],
    typesize: usize,
    meta: u8,
    src: &[u8],
    dst: &mut [u8],
) -> Result<()> {
    if src.len() != dst.len() {
        return Err(Error::Failure);
    }
    let cells = ndcell_cells(blockshape, typesize, meta, src.len())?;
    let mut out = 0;
    cells.for_each(|runs| {
        for &(first, n) in runs {
            let bytes = n * typesize;
            dst[out..out + bytes].copy_from_slice(&src[first * typesize..][..bytes]);
            out += bytes;
        }
        Ok(())
    })
}

/// Scatters the cells in `src` back to their places in the block `dst`.
pub fn ndcell_backward(
    blockshape: &[i32],
    typesize: usize,
    meta: u8,
    src: &[u8],
    dst: &mut [u8],
) -> Result<()> {
    if src.len() != dst.len() {
        return Err(Error::Failure);
    }
    let cells = ndcell_cells(blockshape, typesize, meta, src.len())?;
    scatter(&cells, typesize, src, dst)
}

/// Puts the runs of `cells`, stored one after another in `src`, at their places in `dst`; fails
/// as c-blosc2 does when the last run does not end at the end of the block.
pub(crate) fn scatter(cells: &Cells, typesize: usize, src: &[u8], dst: &mut [u8]) -> Result<()> {
    let mut at = 0;
    let mut end = 0;
    cells.for_each(|runs| {
        for &(first, n) in runs {
            let bytes = n * typesize;
            let from = src.get(at..at + bytes).ok_or(Error::Failure)?;
            dst[first * typesize..][..bytes].copy_from_slice(from);
            at += bytes;
            end = first + n;
        }
        Ok(())
    })?;
    if end != cells.block_items() {
        return Err(Error::Failure);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(n: usize) -> Vec<u8> {
        (0..n).map(|i| i as u8).collect()
    }

    #[test]
    fn cells_of_a_2d_block_in_order() {
        // A 3x5 block, cells of 2: [0,1,5,6] [2,3,7,8] [4,9] [10,11] [12,13] [14].
        let src = items(15);
        let mut dst = vec![0; 15];
        ndcell_forward(&[3, 5], 1, 2, &src, &mut dst).unwrap();
        assert_eq!(dst, [0, 1, 5, 6, 2, 3, 7, 8, 4, 9, 10, 11, 12, 13, 14]);
        let mut back = vec![0; 15];
        ndcell_backward(&[3, 5], 1, 2, &dst, &mut back).unwrap();
        assert_eq!(back, src);
    }

    #[test]
    fn round_trip_3d_wide_items() {
        let shape = [5, 4, 7];
        let n = 5 * 4 * 7 * 4;
        let src = items(n);
        for meta in 1..=4 {
            let mut dst = vec![0; n];
            ndcell_forward(&shape, 4, meta, &src, &mut dst).unwrap();
            let mut back = vec![0; n];
            ndcell_backward(&shape, 4, meta, &dst, &mut back).unwrap();
            assert_eq!(back, src, "meta {meta}");
        }
    }

    #[test]
    fn refusals_as_c_blosc2() {
        let src = items(16);
        let mut dst = vec![0; 16];
        // Not one whole block, a cell larger than the block, meta 0 or negative.
        assert_eq!(
            ndcell_forward(&[4, 3], 1, 2, &src, &mut dst),
            Err(Error::Failure)
        );
        assert_eq!(
            ndcell_forward(&[4, 4], 1, 5, &src, &mut dst),
            Err(Error::Failure)
        );
        assert_eq!(
            ndcell_forward(&[4, 4], 1, 0, &src, &mut dst),
            Err(Error::Failure)
        );
        assert_eq!(
            ndcell_forward(&[4, 4], 1, 200, &src, &mut dst),
            Err(Error::Failure)
        );
        assert_eq!(
            ndcell_backward(&[4, 0], 1, 2, &src, &mut dst),
            Err(Error::Failure)
        );
        assert_eq!(
            ndcell_backward(&[-4, -4], 1, 2, &src, &mut dst),
            Err(Error::Failure)
        );
        // A cell may be longer than the block along one dimension if the block holds a full one.
        assert!(ndcell_forward(&[2, 8], 1, 4, &src, &mut dst).is_ok());
    }
}
