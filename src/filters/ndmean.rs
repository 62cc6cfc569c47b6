//! The ndmean filter (`BLOSC_FILTER_NDMEAN`, plugin id 33): replaces every item of each cell of
//! an n-dimensional block by the cell's mean, stored cell after cell as ndcell stores items.
//! Lossy; for float32 and float64 items only. The backward step puts the cells back in place.
//!
//! Bytes follow c-blosc2 3.3.5: the mean is a sum in the cell's C order in the item's own
//! precision, divided by the cell's item count, so edge cells of an array average the zero
//! padding of the block too. A cell spans `meta` items per dimension, cut to the block's extent
//! in a dimension shorter than that; as in the reference, consecutive cells start the first
//! dimension's cell extent apart along every dimension (they overlap when the block is shorter
//! than `meta` in the first dimension only; decompression then fails there as it does in the
//! reference).

use super::ndcell::{scatter, Cells};
use crate::{Error, Result};

/// The cells ndmean uses, after c-blosc2's checks: `meta` positive (as a signed byte), the data
/// exactly one block.
fn ndmean_cells(blockshape: &[i32], typesize: usize, meta: u8, len: usize) -> Result<Cells> {
    let side = i32::from(meta as i8);
    if side <= 0 {
        return Err(Error::Failure);
    }
    let cellshape: Vec<usize> = blockshape
        .iter()
        .map(|&b| side.min(b).max(1) as usize)
        .collect();
    let step = cellshape.first().copied().unwrap_or(1);
    let cells = Cells::new(blockshape, &cellshape, step)?;
    if typesize == 0 || cells.block_items().checked_mul(typesize) != Some(len) {
        return Err(Error::Failure);
    }
    Ok(cells)
}

/// Writes, for each cell of the block in `src`, the cell's mean once per item into `dst`.
pub fn ndmean_forward(
    blockshape: &[i32],
    typesize: usize,
    meta: u8,
    src: &[u8],
    dst: &mut [u8],
) -> Result<()> {
    if src.len() != dst.len() || !matches!(typesize, 4 | 8) {
        return Err(Error::Failure);
    }
    let cells = ndmean_cells(blockshape, typesize, meta, src.len())?;
    let mut out = 0;
    cells.for_each(|runs| {
        let count: usize = runs.iter().map(|r| r.1).sum();
        let items = runs.iter().flat_map(|&(first, n)| {
            src[first * typesize..(first + n) * typesize].chunks_exact(typesize)
        });
        let dst = dst
            .get_mut(out..out + count * typesize)
            .ok_or(Error::Failure)?;
        if typesize == 4 {
            let mut sum = 0f32;
            for item in items {
                sum += f32::from_le_bytes(item.try_into().map_err(|_| Error::Failure)?);
            }
            let mean = (sum / count as f32).to_le_bytes();
            dst.as_chunks_mut::<4>().0.fill(mean);
        } else {
            let mut sum = 0f64;
            for item in items {
                sum += f64::from_le_bytes(item.try_into().map_err(|_| Error::Failure)?);
            }
            let mean = (sum / count as f64).to_le_bytes();
            dst.as_chunks_mut::<8>().0.fill(mean);
        }
        out += count * typesize;
        Ok(())
    })?;
    if out != dst.len() {
        return Err(Error::Failure);
    }
    Ok(())
}

/// Scatters the cells in `src` back to their places in the block `dst` (any typesize, as the
/// reference's backward step does not check it).
pub fn ndmean_backward(
    blockshape: &[i32],
    typesize: usize,
    meta: u8,
    src: &[u8],
    dst: &mut [u8],
) -> Result<()> {
    if src.len() != dst.len() {
        return Err(Error::Failure);
    }
    let cells = ndmean_cells(blockshape, typesize, meta, src.len())?;
    scatter(&cells, typesize, src, dst)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn means_of_2d_cells_f32() {
        // A 3x3 block, cells of 2: [0,1,3,4] [2,5] [6,7] [8].
        let block: Vec<f32> = (0..9).map(|i| i as f32).collect();
        let src = f32s(&block);
        let mut dst = vec![0; src.len()];
        ndmean_forward(&[3, 3], 4, 2, &src, &mut dst).unwrap();
        assert_eq!(dst, f32s(&[2.0, 2.0, 2.0, 2.0, 3.5, 3.5, 6.5, 6.5, 8.0]));
        let mut back = vec![0; src.len()];
        ndmean_backward(&[3, 3], 4, 2, &dst, &mut back).unwrap();
        assert_eq!(back, f32s(&[2.0, 2.0, 3.5, 2.0, 2.0, 3.5, 6.5, 6.5, 8.0]));
    }

    #[test]
    fn f64_and_cells_cut_to_the_block() {
        // A 4x2 block with meta 3: cells are 3x2 and 1x2.
        let block: Vec<f64> = (0..8).map(|i| i as f64).collect();
        let src: Vec<u8> = block.iter().flat_map(|x| x.to_le_bytes()).collect();
        let mut dst = vec![0; src.len()];
        ndmean_forward(&[4, 2], 8, 3, &src, &mut dst).unwrap();
        let mut back = vec![0; src.len()];
        ndmean_backward(&[4, 2], 8, 3, &dst, &mut back).unwrap();
        let got: Vec<f64> = back
            .as_chunks::<8>()
            .0
            .iter()
            .map(|&c| f64::from_le_bytes(c))
            .collect();
        assert_eq!(got, [2.5, 2.5, 2.5, 2.5, 2.5, 2.5, 6.5, 6.5]);
    }

    #[test]
    fn refusals_as_c_blosc2() {
        let src = vec![0u8; 32];
        let mut dst = vec![0u8; 32];
        assert_eq!(
            ndmean_forward(&[2, 4], 2, 2, &src, &mut dst),
            Err(Error::Failure)
        );
        assert_eq!(
            ndmean_forward(&[2, 2], 4, 2, &src, &mut dst),
            Err(Error::Failure)
        );
        assert_eq!(
            ndmean_forward(&[2, 4], 4, 0, &src, &mut dst),
            Err(Error::Failure)
        );
        assert_eq!(
            ndmean_backward(&[2, 4], 4, 255, &src, &mut dst),
            Err(Error::Failure)
        );
        // The block shorter than meta in the first dimension only: cells overlap, and the last
        // run does not end the block, so the reference's backward step fails.
        assert!(ndmean_forward(&[2, 4], 4, 3, &src, &mut dst).is_ok());
        assert_eq!(
            ndmean_backward(&[2, 4], 4, 3, &src, &mut dst),
            Err(Error::Failure)
        );
    }
}
