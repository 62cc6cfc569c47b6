//! Geometry of a b2nd array: shape, chunk and block grids, padded ("extended") shapes.
//!
//! A chunk holds `extchunkshape` items: its blocks in C order, each block's items in C order,
//! edge chunks and blocks padded. Chunks cover `extshape` (the shape rounded up to whole chunks).

use super::{Dims, MAX_DIM};
use crate::chunk::header::MAX_BUFFERSIZE;
use crate::{Error, Result};

/// The validated geometry of an array. All products, the padded chunk's bytes included, fit in
/// i64, so the arithmetic below cannot overflow. The padded chunk may exceed what a Blosc chunk
/// holds (see [`Geometry::chunk_buffer_len`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Geometry {
    /// Items along each dimension (0 to 16 dimensions; 0-d is a single item).
    pub shape: Dims,
    /// Items of a chunk along each dimension.
    pub chunkshape: Dims,
    /// Items of a block along each dimension (a block larger than the chunk pads it to one
    /// block, as c-blosc2 allows).
    pub blockshape: Dims,
    /// `shape` rounded up to whole chunks: the extent the chunk grid covers.
    pub extshape: Dims,
    /// `chunkshape` rounded up to whole blocks: the items a stored chunk holds per dimension.
    pub extchunkshape: Dims,
    /// Items in the array (product of `shape`).
    pub nitems: i64,
    /// Items in a chunk's unpadded region (product of `chunkshape`).
    pub chunknitems: i64,
    /// Items in a block (product of `blockshape`).
    pub blocknitems: i64,
    /// Items a stored chunk holds, padding included (product of `extchunkshape`).
    pub extchunknitems: i64,
    /// Bytes of one item.
    pub typesize: usize,
}

fn checked_product(v: &[i64]) -> Result<i64> {
    v.iter()
        .try_fold(1i64, |acc, x| acc.checked_mul(*x))
        .ok_or(Error::InvalidParam)
}

/// The bytes of one block of `blockshape` items of `typesize` bytes, after c-blosc2 3.3.5's
/// checks of a block shape against its chunk shape (`b2nd_create_ctx` makes them, and so does
/// every geometry): no negative block extent, a zero one only where the chunk's is zero, and a
/// block whose bytes a chunk header's i32 blocksize can state. `InvalidParam` otherwise.
pub fn checked_block_nbytes(chunkshape: &[i32], blockshape: &[i32], typesize: i64) -> Result<i32> {
    let mut nbytes = typesize;
    for (b, c) in blockshape.iter().zip(chunkshape) {
        if *b < 0 || (*b == 0 && *c != 0) {
            return Err(Error::InvalidParam);
        }
        nbytes = nbytes.saturating_mul(i64::from(*b));
    }
    i32::try_from(nbytes)
        .ok()
        .filter(|n| *n >= 0)
        .ok_or(Error::InvalidParam)
}

impl Geometry {
    /// Checks and builds the geometry. Rules: at most 16 dims, non-negative extents, a zero
    /// chunk extent only for a zero shape extent, no overflow, a chunk of at most `i32::MAX`
    /// items and a block of at most `i32::MAX` bytes. A padded chunk larger than the maximum
    /// Blosc buffer is taken (see [`Geometry::chunk_buffer_len`]). A block extent above the
    /// chunk's is allowed (c-blosc2 3.3.5 takes it): the chunk is then padded to one block
    /// along that dimension.
    pub fn new(
        shape: &[i64],
        chunkshape: &[i32],
        blockshape: &[i32],
        typesize: usize,
    ) -> Result<Geometry> {
        let ndim = shape.len();
        if ndim > MAX_DIM || chunkshape.len() != ndim || blockshape.len() != ndim {
            return Err(Error::InvalidParam);
        }
        if typesize == 0 || typesize > i32::MAX as usize {
            return Err(Error::InvalidParam);
        }
        // The block's own rules, c-blosc2's, before the chunk's size is looked at.
        checked_block_nbytes(chunkshape, blockshape, typesize as i64)?;
        let mut extshape = Dims::filled(ndim, 0);
        let mut extchunkshape = Dims::filled(ndim, 0);
        for d in 0..ndim {
            let (s, c, b) = (shape[d], chunkshape[d] as i64, blockshape[d] as i64);
            if s < 0 || c < 0 {
                return Err(Error::InvalidParam);
            }
            if c == 0 {
                if s != 0 || b != 0 {
                    return Err(Error::InvalidParam);
                }
                continue;
            }
            extshape[d] = s.checked_add((c - s % c) % c).ok_or(Error::InvalidParam)?;
            extchunkshape[d] = c + (b - c % b) % b;
        }
        let nitems = checked_product(shape)?;
        checked_product(&extshape)?;
        let chunkshape: Dims = chunkshape.iter().map(|c| *c as i64).collect();
        let blockshape: Dims = blockshape.iter().map(|b| *b as i64).collect();
        let chunknitems = checked_product(&chunkshape)?;
        let blocknitems = checked_product(&blockshape)?;
        // b2nd_array_t states the items of a chunk in an int32 (c-blosc2 refuses more).
        if chunknitems > i32::MAX as i64 {
            return Err(Error::InvalidParam);
        }
        let extchunknitems = checked_product(&extchunkshape)?;
        // The padded chunk's bytes fit in i64; whether they fit in a Blosc chunk is checked
        // where a chunk is made or read ([`Geometry::chunk_buffer_len`]): c-blosc2 opens an
        // array whose chunks could not exist, and refuses only its chunk reads and writes.
        extchunknitems
            .checked_mul(typesize as i64)
            .ok_or(Error::MaxBufsizeExceeded)?;
        Ok(Geometry {
            shape: shape.into(),
            chunkshape,
            blockshape,
            extshape,
            extchunkshape,
            nitems,
            chunknitems,
            blocknitems,
            extchunknitems,
            typesize,
        })
    }

    /// The same chunk and block shapes over another shape.
    pub fn with_shape(&self, shape: &[i64]) -> Result<Geometry> {
        Geometry::new(
            shape,
            &self.chunkshape_i32(),
            &self.blockshape_i32(),
            self.typesize,
        )
    }

    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// `chunkshape` in the `i32` the b2nd metalayer and C API use (each extent fits, checked
    /// by [`Geometry::new`]).
    pub fn chunkshape_i32(&self) -> Vec<i32> {
        self.chunkshape.iter().map(|c| *c as i32).collect()
    }

    /// `blockshape` in the `i32` the b2nd metalayer and C API use.
    pub fn blockshape_i32(&self) -> Vec<i32> {
        self.blockshape.iter().map(|b| *b as i32).collect()
    }

    /// Bytes of one (padded) chunk.
    pub fn chunk_nbytes(&self) -> usize {
        self.extchunknitems as usize * self.typesize
    }

    /// Bytes of one (padded) chunk when a Blosc chunk can hold that many, else `err`: the
    /// check made before a chunk of this geometry is made, read or written.
    pub fn chunk_buffer_len(&self, err: Error) -> Result<usize> {
        if self.chunk_nbytes() as i64 > MAX_BUFFERSIZE {
            return Err(err);
        }
        Ok(self.chunk_nbytes())
    }

    /// Bytes of one block.
    pub fn block_nbytes(&self) -> usize {
        self.blocknitems as usize * self.typesize
    }

    /// Chunks along each dimension.
    pub fn chunks_per_dim(&self) -> Vec<i64> {
        (0..self.ndim())
            .map(|d| {
                if self.chunkshape[d] == 0 {
                    0
                } else {
                    self.extshape[d] / self.chunkshape[d]
                }
            })
            .collect()
    }

    /// Blocks along each dimension of a chunk.
    pub fn blocks_per_dim(&self) -> Vec<i64> {
        (0..self.ndim())
            .map(|d| {
                if self.blockshape[d] == 0 {
                    0
                } else {
                    self.extchunkshape[d] / self.blockshape[d]
                }
            })
            .collect()
    }

    /// Number of chunks the array is stored in (1 for a 0-d array, 0 for an empty one).
    pub fn nchunks(&self) -> i64 {
        if self.nitems == 0 {
            return 0;
        }
        self.chunks_per_dim().iter().product()
    }

    /// Number of blocks in a chunk.
    pub fn nblocks(&self) -> usize {
        if self.blocknitems == 0 {
            return 0;
        }
        (self.extchunknitems / self.blocknitems) as usize
    }

    /// The array region `[start, stop)` covered by chunk `coords` (clipped to the shape).
    pub fn chunk_region(&self, coords: &[i64]) -> (Vec<i64>, Vec<i64>) {
        let start: Vec<i64> = (0..self.ndim())
            .map(|d| coords[d] * self.chunkshape[d])
            .collect();
        let stop = (0..self.ndim())
            .map(|d| (start[d] + self.chunkshape[d]).min(self.shape[d]))
            .collect();
        (start, stop)
    }
}

/// The stride tables `b2nd_array_t` exposes, computed as c-blosc2's `update_shape` does
/// (including its quirks: all zero above a zero extent, and chunk-grid strides multiplied by
/// `extshape * chunkshape`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct CStrides {
    pub item_array: Dims,
    pub item_extchunk: Dims,
    pub item_chunk: Dims,
    pub item_block: Dims,
    pub block_chunk: Dims,
    pub chunk_array: Dims,
}

impl Geometry {
    pub(crate) fn c_strides(&self) -> CStrides {
        let n = self.ndim();
        let mut s = CStrides {
            item_array: Dims::filled(n, 1),
            item_extchunk: Dims::filled(n, 1),
            item_chunk: Dims::filled(n, 1),
            item_block: Dims::filled(n, 1),
            block_chunk: Dims::filled(n, 1),
            chunk_array: Dims::filled(n, 1),
        };
        for i in (0..n.saturating_sub(1)).rev() {
            if self.shape[i + 1] == 0 {
                s.item_array[i] = 0;
                s.item_extchunk[i] = 0;
                s.item_chunk[i] = 0;
                s.item_block[i] = 0;
                s.block_chunk[i] = 0;
                s.chunk_array[i] = 0;
                continue;
            }
            let w = |a: i64, b: i64| a.wrapping_mul(b);
            s.item_array[i] = w(s.item_array[i + 1], self.shape[i + 1]);
            s.item_extchunk[i] = w(s.item_extchunk[i + 1], self.extchunkshape[i + 1]);
            s.item_chunk[i] = w(s.item_chunk[i + 1], self.chunkshape[i + 1]);
            s.item_block[i] = w(s.item_block[i + 1], self.blockshape[i + 1]);
            s.block_chunk[i] = w(
                s.block_chunk[i + 1],
                self.extchunkshape[i + 1] / self.blockshape[i + 1],
            );
            s.chunk_array[i] = w(
                s.chunk_array[i + 1],
                w(self.extshape[i + 1], self.chunkshape[i + 1]),
            );
        }
        s
    }
}

/// Row-major strides (in items) of a buffer of `shape`.
pub fn strides(shape: &[i64]) -> Vec<i64> {
    let mut s = vec![1i64; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        s[d] = s[d + 1] * shape[d + 1];
    }
    s
}

/// Calls `f` with every index of the grid `shape`, in C order (once, with an empty index, for
/// a 0-d grid; never when an extent is zero).
pub fn for_each_index(shape: &[i64], mut f: impl FnMut(&[i64]) -> Result<()>) -> Result<()> {
    if shape.iter().any(|s| *s <= 0) {
        return Ok(());
    }
    let mut idx = vec![0i64; shape.len()];
    loop {
        f(&idx)?;
        let mut d = shape.len();
        loop {
            if d == 0 {
                return Ok(());
            }
            d -= 1;
            idx[d] += 1;
            if idx[d] < shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padded_shapes() {
        let g = Geometry::new(&[10, 7], &[4, 7], &[3, 2], 4).unwrap();
        assert_eq!(g.extshape, vec![12, 7]);
        assert_eq!(g.extchunkshape, vec![6, 8]);
        assert_eq!(g.nchunks(), 3);
        assert_eq!(g.nblocks(), 8);
        assert_eq!(g.chunk_nbytes(), 6 * 8 * 4);
        let g = Geometry::new(&[], &[], &[], 8).unwrap();
        assert_eq!((g.nitems, g.nchunks(), g.nblocks()), (1, 1, 1));
        let g = Geometry::new(&[0, 5], &[0, 5], &[0, 5], 8).unwrap();
        assert_eq!((g.nitems, g.nchunks()), (0, 0));
    }

    #[test]
    fn c_strides_as_update_shape() {
        // Values of b2nd_array_t's stride fields from c-blosc2 3.3.5 for this geometry.
        let g = Geometry::new(&[10, 7, 5], &[4, 5, 5], &[3, 2, 5], 4).unwrap();
        let s = g.c_strides();
        assert_eq!(s.item_array, vec![35, 5, 1]);
        assert_eq!(s.item_extchunk, vec![30, 5, 1]);
        assert_eq!(s.item_chunk, vec![25, 5, 1]);
        assert_eq!(s.item_block, vec![10, 5, 1]);
        assert_eq!(s.block_chunk, vec![3, 1, 1]);
        assert_eq!(s.chunk_array, vec![1250, 25, 1]);
    }

    #[test]
    fn bad_geometries() {
        assert!(Geometry::new(&[5], &[0], &[0], 1).is_err());
        // A block over the chunk pads the chunk to one block (c-blosc2 3.3.5's extchunkshape).
        let g = Geometry::new(&[10], &[4], &[5], 4).unwrap();
        assert_eq!((g.extchunkshape[0], g.extshape[0], g.nchunks()), (5, 12, 3));
        assert!(Geometry::new(&[5], &[2], &[0], 1).is_err());
        assert!(Geometry::new(&[-1], &[2], &[1], 1).is_err());
        assert!(Geometry::new(&[i64::MAX, 4], &[1, 1], &[1, 1], 1).is_err());
        assert!(Geometry::new(&[i64::MAX], &[10], &[10], 1).is_err());
        // A chunk of 2^32 items: more than b2nd_array_t's int32 item count.
        assert_eq!(
            Geometry::new(&[1 << 20, 1 << 20], &[1 << 16, 1 << 16], &[1, 1], 1),
            Err(Error::InvalidParam)
        );
        // 2^30 + 128 items of 4 bytes: a chunk no Blosc chunk can hold, in a geometry that is
        // taken; only making or reading such a chunk is refused.
        let g = Geometry::new(&[(1 << 30) + 128], &[(1 << 30) + 128], &[128], 4).unwrap();
        assert_eq!(g.chunk_nbytes(), ((1usize << 30) + 128) * 4);
        assert_eq!(
            g.chunk_buffer_len(Error::InvalidParam),
            Err(Error::InvalidParam)
        );
        let g = Geometry::new(&[(1 << 29) - 128], &[(1 << 29) - 128], &[128], 4).unwrap();
        assert_eq!(
            g.chunk_buffer_len(Error::InvalidParam),
            Ok(((1 << 29) - 128) * 4)
        );
        assert!(Geometry::new(&[1; 17], &[1; 17], &[1; 17], 1).is_err());
    }

    #[test]
    fn index_iteration() {
        let mut seen = Vec::new();
        for_each_index(&[2, 3], |i| {
            seen.push(i.to_vec());
            Ok(())
        })
        .unwrap();
        assert_eq!(seen.len(), 6);
        assert_eq!(seen[4], vec![1, 1]);
        let mut n = 0;
        for_each_index(&[], |_| {
            n += 1;
            Ok(())
        })
        .unwrap();
        assert_eq!(n, 1);
        for_each_index(&[3, 0], |_| unreachable!()).unwrap();
    }
}
