//! Shape changes of an [`Array`]: resize, insert, append, delete, concatenate, copy into
//! another store, squeeze and expand_dims.

use super::array::{
    nchunks_of, ravel, same_chunk_format, unravel, Array, Params, CATERVA_META_NAME, META_NAME,
};
use super::meta;
use super::scratch::Scratch;
use super::shape::{for_each_index, strides, Geometry};
use super::slice::{for_each_block, BlockPart};
use super::store::{ChunkStore, MemStore};
use super::MAX_DIM;
use crate::chunk::header::Special;
use crate::{Error, Result};
use std::borrow::Cow;

impl<S: ChunkStore> Array<S> {
    /// Rewrites the b2nd metalayer after a shape change.
    fn update_meta(&mut self) -> Result<()> {
        let smeta = meta::serialize(
            &self.geom.shape,
            &self.geom.chunkshape_i32(),
            &self.geom.blockshape_i32(),
            self.dtype.as_deref(),
            self.dtype_format,
        )?;
        if self.store.meta_get(META_NAME).is_some() {
            self.store.meta_update(META_NAME, &smeta)
        } else {
            self.store.meta_add(META_NAME, &smeta)
        }
    }

    /// Changes the shape. Without `start`, items are added or removed at the end of each
    /// dimension; with it, at `start` (which must then be a multiple of the chunk shape, as
    /// must the change, unless it is at the end). New items are zero.
    pub fn resize(&mut self, new_shape: &[i64], start: Option<&[i64]>) -> Result<()> {
        // The store's metalayer describes the base; c-blosc2's views corrupt their base's
        // chunk list when resized.
        if self.view {
            return Err(Error::InvalidParam);
        }
        let ndim = self.ndim();
        if new_shape.len() != ndim {
            return Err(Error::InvalidParam);
        }
        if let Some(start) = start {
            if start.len() != ndim {
                return Err(Error::InvalidParam);
            }
            for d in 0..ndim {
                let (old, new, c) = (self.geom.shape[d], new_shape[d], self.geom.chunkshape[d]);
                if start[d] < 0 || start[d] > old {
                    return Err(Error::InvalidParam);
                }
                // (A shrink at the end removes the items from `new` on.)
                let not_at_end = (new > old && start[d] != old) || (new < old && start[d] != new);
                let change = new.checked_sub(old).ok_or(Error::InvalidParam)?;
                if not_at_end && (c == 0 || start[d] % c != 0 || change % c != 0) {
                    return Err(Error::InvalidParam);
                }
            }
        }
        // As c-blosc2 (once `start` passed its checks, so a bad shape still counts as a change
        // for other handles): the chunk and metalayer changes are one change.
        let _held = self.store.hold(true)?;
        if new_shape.iter().any(|s| *s < 0) {
            return Err(Error::InvalidParam);
        }
        // Validate the final geometry before touching any chunk.
        self.geom.with_shape(new_shape)?;
        let shrunk: Vec<i64> = (0..ndim)
            .map(|d| new_shape[d].min(self.geom.shape[d]))
            .collect();
        self.shrink(&shrunk, start)?;
        self.extend(new_shape, start)
    }

    fn shrink(&mut self, new_shape: &[i64], start: Option<&[i64]>) -> Result<()> {
        if new_shape == self.geom.shape.as_slice() {
            return Ok(());
        }
        let old = self.geom.clone();
        let new = old.with_shape(new_shape)?;
        let start = start.unwrap_or(new_shape).to_vec();
        let old_grid = old.chunks_per_dim();
        let old_nchunks = self.store.nchunks().min(old.nchunks());
        for n in (0..old_nchunks).rev() {
            let coords = unravel(n, &old_grid);
            let removed = (0..old.ndim()).any(|d| {
                let origin = coords[d] * old.chunkshape[d];
                start[d] <= origin && origin < start[d] + old.shape[d] - new_shape[d]
            });
            if removed {
                self.store.delete_chunk(n)?;
            }
        }
        self.geom = new;
        self.update_meta()?;
        // Cutting inside a chunk leaves the cut items in its padding; zero them (and only them:
        // the padding that was never inside the array keeps what was written there, e.g. by
        // b2nd_full, as in c-blosc2) so that later growth exposes zeros where the cut items
        // were. c-blosc2 3.3.5 rewrites nothing here and re-exposes them.
        let cut_dims: Vec<usize> = (0..old.ndim())
            .filter(|d| {
                new_shape[*d] < old.shape[*d]
                    && start[*d] == new_shape[*d]
                    && new_shape[*d] % old.chunkshape[*d] != 0
            })
            .collect();
        if cut_dims.is_empty() || self.geom.nitems == 0 {
            return Ok(());
        }
        let grid = self.geom.chunks_per_dim();
        let geom = self.geom.clone();
        let mut data = Scratch::chunk_data();
        for_each_index(&grid, |coords| {
            let on_cut = cut_dims.iter().any(|d| coords[*d] == grid[*d] - 1);
            if !on_cut {
                return Ok(());
            }
            let nchunk = ravel(coords, &grid);
            // Only the blocks holding cut items are read first: cut items that are zeros
            // already (an array filled only up to where it is cut, as python-blosc2's filters
            // leave theirs) need neither the rest of the chunk nor its recompression. Reading
            // and checking the whole chunk was 17% of a where filter on a 32x256x256 int32.
            let mask = cut_blocks_maskout(&old, &geom.shape, &cut_dims, coords)?;
            self.read_chunk(nchunk, Some(&mask), &mut data)?;
            if zero_cut_items(&old, &geom.shape, &cut_dims, coords, &mut data)? {
                self.read_chunk(nchunk, None, &mut data)?;
                zero_cut_items(&old, &geom.shape, &cut_dims, coords, &mut data)?;
                self.store.update_chunk_data(nchunk, &data)?;
            }
            Ok(())
        })
    }

    fn extend(&mut self, new_shape: &[i64], start: Option<&[i64]>) -> Result<()> {
        if new_shape == self.geom.shape.as_slice() {
            return Ok(());
        }
        let old = self.geom.clone();
        let new = old.with_shape(new_shape)?;
        let start = start.unwrap_or(&old.shape).to_vec();
        let old_nchunks = self.store.nchunks();
        let nchunks = new.nchunks();
        self.geom = new;
        self.update_meta()?;
        if nchunks == old_nchunks {
            return Ok(());
        }
        let grid = self.geom.chunks_per_dim();
        let zeros = self
            .store
            .special_chunk(Special::Zero, self.geom.chunk_nbytes(), None)?;
        for n in 0..nchunks {
            let coords = unravel(n, &grid);
            let added = (0..old.ndim()).any(|d| {
                let origin = coords[d] * self.geom.chunkshape[d];
                start[d] <= origin && origin < start[d] + new_shape[d] - old.shape[d]
            });
            // A dimension that was empty had no chunks: every chunk is new.
            if added || old.nitems == 0 {
                self.store.insert_chunk(n, Cow::Borrowed(&zeros))?;
            }
        }
        Ok(())
    }

    /// Inserts `buffer` along `axis` at `insert_start` (the other extents stay).
    pub fn insert(&mut self, buffer: &[u8], axis: usize, insert_start: i64) -> Result<()> {
        let ndim = self.ndim();
        if axis >= ndim {
            return Err(Error::InvalidParam);
        }
        let shape = self.geom.shape.clone();
        if insert_start < 0 || insert_start > shape[axis] {
            return Err(Error::InvalidParam);
        }
        let mut axis_size = self.geom.typesize as i64;
        for (d, s) in shape.iter().enumerate() {
            if d != axis {
                axis_size = axis_size.checked_mul(*s).ok_or(Error::InvalidParam)?;
            }
        }
        if axis_size == 0 || buffer.len() as i64 % axis_size != 0 {
            return Err(Error::InvalidParam);
        }
        let added = buffer.len() as i64 / axis_size;
        let mut new_shape = shape.clone();
        new_shape[axis] += added;
        let mut start = vec![0i64; ndim];
        start[axis] = insert_start;
        if insert_start == shape[axis] {
            self.resize(&new_shape, None)?;
        } else {
            self.resize(&new_shape, Some(&start))?;
        }
        let mut buffershape = new_shape.clone();
        buffershape[axis] = added;
        let mut stop = new_shape;
        stop[axis] = insert_start + added;
        self.set_slice_cbuffer(buffer, &buffershape, &start, &stop)
    }

    /// Appends `buffer` at the end of `axis`.
    pub fn append(&mut self, buffer: &[u8], axis: usize) -> Result<()> {
        let end = *self.geom.shape.get(axis).ok_or(Error::InvalidParam)?;
        self.insert(buffer, axis, end)
    }

    /// Removes `delete_len` items of `axis` from `delete_start` on.
    pub fn delete(&mut self, axis: usize, delete_start: i64, delete_len: i64) -> Result<()> {
        let ndim = self.ndim();
        if axis >= ndim {
            return Err(Error::InvalidParam);
        }
        let len = self.geom.shape[axis];
        if delete_start < 0 || delete_len < 0 || delete_start > len - delete_len {
            return Err(Error::InvalidParam);
        }
        let mut new_shape = self.geom.shape.clone();
        new_shape[axis] -= delete_len;
        if delete_start == len - delete_len {
            self.resize(&new_shape, None)
        } else {
            let mut start = vec![0i64; ndim];
            start[axis] = delete_start;
            self.resize(&new_shape, Some(&start))
        }
    }

    /// Appends `other` to `self` along `axis` (all other extents must match).
    pub fn concatenate<T: ChunkStore>(&mut self, other: &Array<T>, axis: usize) -> Result<()> {
        let ndim = self.ndim();
        if ndim == 0 || other.ndim() != ndim || axis >= ndim {
            return Err(Error::InvalidParam);
        }
        if self.geom.typesize != other.geom.typesize {
            return Err(Error::InvalidParam);
        }
        let old_shape = self.geom.shape.clone();
        let mut new_shape = old_shape.clone();
        for d in 0..ndim {
            if d == axis {
                new_shape[d] = new_shape[d]
                    .checked_add(other.geom.shape[d])
                    .ok_or(Error::InvalidParam)?;
            } else if old_shape[d] != other.geom.shape[d] {
                return Err(Error::InvalidParam);
            }
        }
        self.resize(&new_shape, None)?;
        if other.geom.nitems == 0 {
            return Ok(());
        }
        // Chunks that line up with ours are copied as they are, whatever their compression
        // (a chunk says how to read it; same typesize, checked above), as c-blosc2 does.
        let aligned = self.geom.chunkshape == other.geom.chunkshape
            && self.geom.blockshape == other.geom.blockshape
            && old_shape[axis] % self.geom.chunkshape[axis] == 0;
        let grid = self.geom.chunks_per_dim();
        let other_grid = other.geom.chunks_per_dim();
        let chunk_offset = if aligned {
            old_shape[axis] / self.geom.chunkshape[axis]
        } else {
            0
        };
        let mut buf = Vec::new();
        let ogeom = other.geom.clone();
        for_each_index(&other_grid, |coords| {
            if aligned {
                let mut dest = coords.to_vec();
                dest[axis] += chunk_offset;
                let chunk = other.store.chunk(ravel(coords, &other_grid))?;
                self.store.update_chunk(ravel(&dest, &grid), chunk)?;
                return Ok(());
            }
            let (cstart, cstop) = ogeom.chunk_region(coords);
            let cshape: Vec<i64> = (0..ndim).map(|d| cstop[d] - cstart[d]).collect();
            buf.clear();
            buf.resize(cshape.iter().product::<i64>() as usize * ogeom.typesize, 0);
            other.get_slice_cbuffer(&cstart, &cstop, &mut buf, &cshape)?;
            let mut dstart = cstart.clone();
            let mut dstop = cstop.clone();
            dstart[axis] += old_shape[axis];
            dstop[axis] += old_shape[axis];
            self.set_slice_cbuffer(&buf, &cshape, &dstart, &dstop)
        })
    }

    /// Appends the array to itself along `axis` (`b2nd_concatenate` with the same array as both
    /// sources, in place). The second half is read from an in-memory snapshot of the chunks
    /// taken before the array grows: reading from the growing array itself would see the new
    /// shape and its own freshly written chunks.
    pub fn concatenate_self(&mut self, axis: usize) -> Result<()> {
        let mut params = Params::<()>::new(
            self.store.cparams().clone(),
            &self.geom.shape,
            &self.chunkshape(),
            &self.blockshape(),
        );
        params.dparams = self.store.dparams().clone();
        let snapshot = self.copy::<MemStore>(&params)?;
        self.concatenate(&snapshot, axis)
    }

    /// A copy of the array with `params`' chunk and block shapes, compression and storage
    /// (its shape is replaced by the source's). Metalayers other than b2nd are copied.
    pub fn copy<T: ChunkStore>(&self, params: &Params<T::Options>) -> Result<Array<T>> {
        self.copy_with(params.clone())
    }

    /// [`Array::copy`] taking the parameters (no copy of them is made).
    pub fn copy_with<T: ChunkStore>(&self, params: Params<T::Options>) -> Result<Array<T>> {
        let params = self.params_of_copy(params);
        let mut out = Array::<T>::without_chunks(&params)?;
        if out.geom.typesize != self.geom.typesize {
            return Err(Error::InvalidParam);
        }
        out.building(|out| self.fill_copy(out))?;
        Ok(out)
    }

    /// The chunks and vlmetalayers of [`Array::copy`], into `out` (just made, without chunks).
    fn fill_copy<T: ChunkStore>(&self, out: &mut Array<T>) -> Result<()> {
        let same_layout = out.geom.chunkshape == self.geom.chunkshape
            && out.geom.blockshape == self.geom.blockshape;
        let nchunks = if self.geom.nitems == 0 {
            0
        } else {
            self.geom.nchunks()
        };
        if same_layout {
            // A postfilter on the source makes c-blosc2 decompress (running it) and recompress.
            let raw = same_chunk_format(self.store.cparams(), out.store.cparams())
                && self.store.with_decoding_params(|d| d.postfilter.is_none());
            let mut data = Scratch::chunk_data();
            for n in 0..nchunks {
                let chunk = if raw {
                    self.store.chunk(n)?
                } else {
                    self.read_chunk(n, None, &mut data)?;
                    Cow::Owned(out.store.compress_chunk(&data)?)
                };
                out.store.append_chunk(chunk)?;
            }
        } else {
            out.store.fill_special(
                nchunks_of(&out.geom),
                Special::Zero,
                out.geom.chunk_nbytes(),
            )?;
            out.copy_region_from(self, &vec![0; self.ndim()])?;
        }
        self.copy_vlmetas_to(out)
    }

    /// Adds this array's vlmetalayers to `out` (as a copy gets them).
    pub fn copy_vlmetas_to<T: ChunkStore>(&self, out: &mut Array<T>) -> Result<()> {
        for name in self.store.vlmeta_names() {
            out.store
                .vlmeta_add(&name, &self.store.vlmeta_get(&name)?)?;
        }
        Ok(())
    }

    /// The parameters of a copy of this array made with `params`: its shape, metalayers other
    /// than b2nd and dtype are this array's.
    pub fn copy_params<O: Clone>(&self, params: &Params<O>) -> Params<O> {
        self.params_of_copy(params.clone())
    }

    /// [`Array::copy_params`] made from `params` in place.
    fn params_of_copy<O>(&self, mut params: Params<O>) -> Params<O> {
        params.shape = self.geom.shape.to_vec();
        params.metalayers = self
            .store
            .meta_names()
            .into_iter()
            .filter(|n| n != META_NAME && n != CATERVA_META_NAME)
            .filter_map(|n| self.store.meta_get(&n).map(|c| (n, c)))
            .collect();
        if let Some(d) = &self.dtype {
            params.dtype = d.clone();
        }
        params.dtype_format = self.dtype_format;
        params
    }

    /// A new array without the dimensions `index` marks (each must have extent 1).
    pub fn squeeze_index(&self, index: &[bool]) -> Result<Array<S>> {
        if index.len() != self.ndim() {
            return Err(Error::InvalidParam);
        }
        self.check_only_b2nd_meta()?;
        let keep: Vec<usize> = (0..self.ndim()).filter(|d| !index[*d]).collect();
        for d in 0..self.ndim() {
            if index[d] && self.geom.shape[d] != 1 {
                return Err(Error::InvalidIndex);
            }
        }
        self.relabel(&keep, index, &[])
    }

    /// A new array without the dimensions of extent 1.
    pub fn squeeze(&self) -> Result<Array<S>> {
        let index: Vec<bool> = self.geom.shape.iter().map(|s| *s == 1).collect();
        self.squeeze_index(&index)
    }

    /// A new array with dimensions of extent 1 where `axis` is true; `axis.len()` is the new
    /// number of dimensions and its `false` entries take the existing dimensions in order.
    pub fn expand_dims(&self, axis: &[bool]) -> Result<Array<S>> {
        if axis.len() > MAX_DIM || axis.iter().filter(|a| !**a).count() != self.ndim() {
            return Err(Error::InvalidParam);
        }
        self.check_only_b2nd_meta()?;
        let mut old = 0;
        let map: Vec<Option<usize>> = axis
            .iter()
            .map(|a| {
                if *a {
                    None
                } else {
                    old += 1;
                    Some(old - 1)
                }
            })
            .collect();
        let keep: Vec<usize> = (0..self.ndim()).collect();
        let removed = vec![false; self.ndim()];
        self.relabel(&keep, &removed, &map)
    }

    pub(crate) fn check_only_b2nd_meta(&self) -> Result<()> {
        if self.store.meta_names().iter().any(|n| n != META_NAME) {
            return Err(Error::InvalidParam);
        }
        Ok(())
    }

    /// The same items under another list of dimensions: `keep` the kept dimensions (after
    /// removing those `removed` marks), and, when `map` is not empty, the new dimension list
    /// as positions into `keep` (`None` for a new dimension of extent 1).
    fn relabel(&self, keep: &[usize], removed: &[bool], map: &[Option<usize>]) -> Result<Array<S>> {
        let g = &self.geom;
        let dims: Vec<Option<usize>> = if map.is_empty() {
            keep.iter().map(|d| Some(*d)).collect()
        } else {
            map.iter().map(|m| m.map(|i| keep[i])).collect()
        };
        let pick = |d: &Option<usize>| match d {
            Some(d) => (
                g.shape[*d],
                g.chunkshape[*d] as i32,
                g.blockshape[*d] as i32,
            ),
            None => (1, 1, 1),
        };
        let shape: Vec<i64> = dims.iter().map(|d| pick(d).0).collect();
        let chunkshape: Vec<i32> = dims.iter().map(|d| pick(d).1).collect();
        let blockshape: Vec<i32> = dims.iter().map(|d| pick(d).2).collect();
        let mut params = Params::<S::Options> {
            cparams: self.store.cparams().clone(),
            dparams: self.store.dparams().clone(),
            options: self.store.options(),
            shape,
            chunkshape,
            blockshape,
            dtype: self
                .dtype
                .clone()
                .unwrap_or_else(|| meta::DEFAULT_DTYPE.into()),
            dtype_format: self.dtype_format,
            metalayers: Vec::new(),
        };
        params.cparams.blocksize = 0;
        let mut out = Array::<S>::without_chunks(&params)?;
        out.dtype = self.dtype.clone();
        // Removing dimensions whose chunk and block extents are 1 (or adding such dimensions)
        // keeps every chunk's bytes: copy them. Otherwise the layout changes: copy the items.
        let same_chunks =
            (0..g.ndim()).all(|d| !removed[d] || (g.chunkshape[d] == 1 && g.blockshape[d] == 1));
        if same_chunks {
            let nchunks = if g.ndim() == 0 { 1 } else { nchunks_of(g) };
            for n in 0..nchunks {
                out.store.append_chunk(self.store.chunk(n)?)?;
            }
        } else {
            out.store.fill_special(
                nchunks_of(&out.geom),
                Special::Zero,
                out.geom.chunk_nbytes(),
            )?;
            let v = self.to_vec()?;
            let start = vec![0; out.ndim()];
            let shape = out.geom.shape.clone();
            if out.geom.nitems > 0 {
                out.set_slice_cbuffer(&v, &shape, &start, &shape)?;
            }
        }
        Ok(out)
    }
}

/// Zeroes, in the data of chunk `coords` (of geometry `old`), the items inside `old`'s shape
/// that a shrink to `new_shape` along `cut_dims` cut off; says whether any of them was not zero.
/// A maskout of the blocks of chunk `coords` that hold none of the items a shrink to
/// `new_shape` cuts along `cut_dims` (see [`zero_cut_items`]).
fn cut_blocks_maskout(
    old: &Geometry,
    new_shape: &[i64],
    cut_dims: &[usize],
    coords: &[i64],
) -> Result<Vec<bool>> {
    let mut mask = vec![true; old.nblocks()];
    for_each_cut_part(old, new_shape, cut_dims, coords, |p| {
        *mask.get_mut(p.nblock).ok_or(Error::Data)? = false;
        Ok(())
    })?;
    Ok(mask)
}

/// Calls `f` for every block part of chunk `coords` holding items that a shrink to
/// `new_shape` cuts along `cut_dims` (once per cut dimension that reaches into the chunk).
fn for_each_cut_part(
    old: &Geometry,
    new_shape: &[i64],
    cut_dims: &[usize],
    coords: &[i64],
    mut f: impl FnMut(BlockPart) -> Result<()>,
) -> Result<()> {
    let (cstart, cstop) = old.chunk_region(coords);
    for &d in cut_dims {
        let mut start = cstart.clone();
        start[d] = start[d].max(new_shape[d]);
        if start[d] < cstop[d] {
            for_each_block(old, coords, &start, &cstop, &mut f)?;
        }
    }
    Ok(())
}

/// Whether every byte of `s` is zero (a vectorisable fold, where `iter().any` goes byte by
/// byte: it was most of a shrink's time on large cut rows).
fn all_zeros(s: &[u8]) -> bool {
    s.chunks(4096)
        .all(|c| c.iter().fold(0u8, |a, &b| a | b) == 0)
}

fn zero_cut_items(
    old: &Geometry,
    new_shape: &[i64],
    cut_dims: &[usize],
    coords: &[i64],
    data: &mut [u8],
) -> Result<bool> {
    let mut changed = false;
    let (ts, bn) = (old.typesize, old.block_nbytes());
    let item_strides = strides(&old.blockshape);
    for_each_cut_part(old, new_shape, cut_dims, coords, |p| {
        // Row by row: the items along the last dimension are contiguous in a block.
        let last = p.start.len() - 1;
        let outer: Vec<i64> = (0..last).map(|i| p.stop[i] - p.start[i]).collect();
        let row = (p.stop[last] - p.start[last]) as usize * ts;
        for_each_index(&outer, |rel| {
            let item: i64 = (0..last)
                .map(|i| (p.start[i] - p.block_origin[i] + rel[i]) * item_strides[i])
                .sum::<i64>()
                + (p.start[last] - p.block_origin[last]) * item_strides[last];
            let at = p.nblock * bn + item as usize * ts;
            let cut = data.get_mut(at..at + row).ok_or(Error::Data)?;
            if !all_zeros(cut) {
                cut.fill(0);
                changed = true;
            }
            Ok(())
        })
    })?;
    Ok(changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_items_are_zeroed_and_reported_only_when_some_were_not_zero() {
        // A 10 x 6 array of u16 in one 12 x 8 chunk of 4 x 4 blocks (padding included), cut
        // to 7 rows: rows 7..10 of the 6 columns are the cut items.
        let old = Geometry::new(&[10, 6], &[12, 8], &[4, 4], 2).unwrap();
        let new_shape = [7, 6];
        let (ts, bn) = (2, old.block_nbytes());
        let at = |r: usize, c: usize| ((r / 4) * 2 + c / 4) * bn + ((r % 4) * 4 + c % 4) * ts;
        let n = old.chunk_nbytes();
        let mut data = vec![0u8; n];
        // Kept items and padding hold values; the cut items are zero.
        for r in 0..12 {
            for c in 0..8 {
                if !((7..10).contains(&r) && c < 6) {
                    data[at(r, c)] = 1 + (r * 8 + c) as u8;
                }
            }
        }
        let before = data.clone();
        assert!(!zero_cut_items(&old, &new_shape, &[0], &[0, 0], &mut data).unwrap());
        assert_eq!(data, before);
        // One cut item holding a value: all cut items zero afterwards, nothing else touched.
        data[at(8, 5) + 1] = 7;
        assert!(zero_cut_items(&old, &new_shape, &[0], &[0, 0], &mut data).unwrap());
        assert_eq!(data, before);
    }
    /// A shrink that cuts inside chunks of several blocks, then growth back: the kept items
    /// (in blocks with and without cut items) are intact, the cut ones read zero, whether the
    /// cut items were values (the chunk rewritten whole) or zeros already (left as it is).
    #[test]
    fn a_shrink_keeps_every_kept_block_and_zeroes_the_cut_items() {
        use super::super::array::{Array, Params};
        use crate::chunk::CParams;
        use crate::schunk::{Schunk, Storage};
        // 10 x 6 u16 in one 12 x 8 chunk of 3 x 2 blocks of 4 x 4: rows 0..4 hold no cut item.
        let cparams = CParams {
            typesize: 2,
            ..CParams::default()
        };
        for cut_values_are_zero in [false, true] {
            let params = Params::<Storage>::new(cparams.clone(), &[10, 6], &[12, 8], &[4, 4]);
            let values: Vec<u8> = (0..60u16)
                .flat_map(|i| {
                    let v = if cut_values_are_zero && i >= 7 * 6 {
                        0
                    } else {
                        1000 + i
                    };
                    v.to_le_bytes()
                })
                .collect();
            let mut a: Array<Schunk> = Array::from_cbuffer(&params, &values).unwrap();
            // Another array written through this thread's chunk buffer, which then holds its
            // chunk, not a's.
            let other: Vec<u8> = values.iter().map(|b| b ^ 0x5A).collect();
            let _b: Array<Schunk> = Array::from_cbuffer(&params, &other).unwrap();
            a.resize(&[7, 6], None).unwrap();
            a.resize(&[10, 6], None).unwrap();
            let got = a.to_vec().unwrap();
            let what = format!("cut values are zero: {cut_values_are_zero}");
            assert_eq!(got[..7 * 6 * 2], values[..7 * 6 * 2], "{what}");
            assert!(got[7 * 6 * 2..].iter().all(|&b| b == 0), "{what}");
        }
    }
}
