//! Views: an array's chunks seen under another list of dimensions (what `b2nd_squeeze`,
//! `b2nd_squeeze_index` and `b2nd_expand_dims` return in c-blosc2).
//!
//! Removing a dimension of extent 1 whose chunk and block extents are 1 too, or adding such a
//! dimension, changes neither the bytes of a chunk nor the order of the chunks: the view can
//! read and write the base array's chunks as they are. A [`DimMap`] records which dimension
//! of the base each dimension of the view is; [`Array::view_of`] lays it over the base's
//! store, deriving the view's geometry from the base's current one each time, so a view
//! follows its base's later changes along the dimensions it keeps, and fails cleanly once the
//! base no longer fits (a removed dimension grown past 1). Whoever shares the store between
//! the base and its views (the C layer shares one super-chunk) keeps it alive for both.

use super::array::Array;
use super::shape::Geometry;
use super::store::ChunkStore;
use super::MAX_DIM;
use crate::{Error, Result};

/// The dimensions of a view as dimensions of its base array.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DimMap {
    /// Dimensions of the base.
    base_ndim: usize,
    /// For each dimension of the view: the base dimension it is, or `None` for a dimension
    /// of extent 1 the view adds.
    dims: Vec<Option<usize>>,
}

/// Whether dimension `d` of `g` can be dropped or added without changing the chunks' bytes.
fn is_unit(g: &Geometry, d: usize) -> bool {
    g.shape[d] == 1 && g.chunkshape[d] == 1 && g.blockshape[d] == 1
}

impl DimMap {
    /// The map of an array onto itself.
    pub fn identity(ndim: usize) -> DimMap {
        DimMap {
            base_ndim: ndim,
            dims: (0..ndim).map(Some).collect(),
        }
    }

    /// Dimensions of the view.
    pub fn ndim(&self) -> usize {
        self.dims.len()
    }

    /// Dimensions of the base.
    pub fn base_ndim(&self) -> usize {
        self.base_ndim
    }

    /// For each dimension of the view: the base dimension it is, or `None` for a dimension
    /// of extent 1 the view adds.
    pub fn dims(&self) -> &[Option<usize>] {
        &self.dims
    }

    /// Whether the view is the base itself (same dimensions in the same order).
    pub fn is_identity(&self) -> bool {
        self.dims.len() == self.base_ndim
            && self.dims.iter().enumerate().all(|(i, d)| *d == Some(i))
    }

    /// The map of this view without the dimensions `index` marks, `g` being this view's
    /// geometry. Each marked dimension must have extent 1 (`InvalidIndex` otherwise, as in
    /// c-blosc2). `None` when a marked dimension has a chunk or block extent above 1: its
    /// chunks then hold padding along it, so the squeezed array's chunks are other bytes and
    /// cannot be shared.
    pub fn squeeze(&self, g: &Geometry, index: &[bool]) -> Result<Option<DimMap>> {
        if index.len() != self.ndim() || g.ndim() != self.ndim() {
            return Err(Error::InvalidParam);
        }
        if (0..g.ndim()).any(|d| index[d] && g.shape[d] != 1) {
            return Err(Error::InvalidIndex);
        }
        if (0..g.ndim()).any(|d| index[d] && !is_unit(g, d)) {
            return Ok(None);
        }
        let dims = (0..self.ndim())
            .filter(|d| !index[*d])
            .map(|d| self.dims[d])
            .collect();
        Ok(Some(DimMap {
            base_ndim: self.base_ndim,
            dims,
        }))
    }

    /// The map of this view with new dimensions of extent 1 where `axis` is true; `axis.len()`
    /// is the new number of dimensions and its `false` entries take this view's dimensions in
    /// order (there must be exactly as many).
    pub fn expand(&self, axis: &[bool]) -> Result<DimMap> {
        if axis.len() > MAX_DIM || axis.iter().filter(|a| !**a).count() != self.ndim() {
            return Err(Error::InvalidParam);
        }
        let mut old = self.dims.iter();
        let dims = axis
            .iter()
            .map(|a| {
                if *a {
                    None
                } else {
                    old.next().copied().flatten()
                }
            })
            .collect();
        Ok(DimMap {
            base_ndim: self.base_ndim,
            dims,
        })
    }

    /// The view's geometry over a base of geometry `base`. `InvalidParam` when the base no
    /// longer fits the view: another number of dimensions, or a dimension the view dropped
    /// that is no longer of extent 1 (a resize of the base).
    pub fn apply(&self, base: &Geometry) -> Result<Geometry> {
        if base.ndim() != self.base_ndim {
            return Err(Error::InvalidParam);
        }
        let mut used = [false; MAX_DIM];
        for d in self.dims.iter().flatten() {
            used[*d] = true;
        }
        if (0..base.ndim()).any(|d| !used[d] && !is_unit(base, d)) {
            return Err(Error::InvalidParam);
        }
        let pick = |d: &Option<usize>| match d {
            Some(d) => (
                base.shape[*d],
                base.chunkshape[*d] as i32,
                base.blockshape[*d] as i32,
            ),
            None => (1, 1, 1),
        };
        let n = self.dims.len();
        if n > MAX_DIM {
            return Err(Error::InvalidParam);
        }
        let (mut shape, mut chunkshape, mut blockshape) =
            ([0i64; MAX_DIM], [0; MAX_DIM], [0; MAX_DIM]);
        for (i, d) in self.dims.iter().enumerate() {
            (shape[i], chunkshape[i], blockshape[i]) = pick(d);
        }
        Geometry::new(
            &shape[..n],
            &chunkshape[..n],
            &blockshape[..n],
            base.typesize,
        )
    }
}

impl<S: ChunkStore> Array<S> {
    /// The array `store` holds (per its b2nd metalayer), seen through `map`: reads and writes
    /// go to the store's chunks, which the view shares with its base. The view cannot change
    /// its shape (`resize` and what builds on it fail with `InvalidParam`): the store's
    /// metalayer describes the base. `into_store` gives the store back, for the base.
    pub fn view_of(store: S, map: &DimMap) -> Result<Array<S>> {
        Array::view_of_or_back(store, map).map_err(|(e, _)| e)
    }

    /// [`Array::view_of`] that gives the store back with the error.
    pub fn view_of_or_back(store: S, map: &DimMap) -> std::result::Result<Array<S>, (Error, S)> {
        let base = Array::from_store_or_back(store)?;
        if map.is_identity() {
            return Ok(base);
        }
        match map.apply(base.geometry()) {
            Ok(geom) => Ok(base.with_view_geometry(geom)),
            Err(e) => Err((e, base.into_store())),
        }
    }
}

impl Array<crate::schunk::Schunk> {
    /// The super-chunk describing this array when it is a view, as c-blosc2 gives each view
    /// one of its own: in memory (sparse), this array's compression parameters, a b2nd
    /// metalayer of the view's shape, and copies of the vlmetalayers. It holds no chunks: they
    /// stay in the base's super-chunk.
    pub fn view_description(&self) -> Result<crate::schunk::Schunk> {
        let mut desc = crate::schunk::Schunk::new(self.store().options())?;
        self.describe_into(&mut desc)?;
        for name in self.store().vlmeta_names() {
            desc.vlmeta_add(name, &self.store().vlmeta_get(name)?, None)?;
        }
        Ok(desc)
    }

    /// Brings `desc`'s b2nd metalayer up to this array's shape (a view follows its base).
    pub fn describe_into(&self, desc: &mut crate::schunk::Schunk) -> Result<()> {
        let g = self.geometry();
        let smeta = super::meta::serialize(
            &g.shape,
            &g.chunkshape_i32(),
            &g.blockshape_i32(),
            self.dtype(),
            self.dtype_format(),
        )?;
        match desc.meta_get(super::meta::META_NAME) {
            Ok(current) if current == smeta.as_slice() => Ok(()),
            Ok(_) => desc.meta_update(super::meta::META_NAME, &smeta).map(drop),
            Err(_) => desc.meta_add(super::meta::META_NAME, &smeta).map(drop),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geom(shape: &[i64], chunks: &[i32], blocks: &[i32]) -> Geometry {
        Geometry::new(shape, chunks, blocks, 4).unwrap()
    }

    #[test]
    fn squeeze_then_expand_maps_onto_the_base() {
        let base = geom(&[1, 5, 1, 6], &[1, 3, 1, 4], &[1, 2, 1, 3]);
        let id = DimMap::identity(4);
        assert!(id.is_identity());
        let sq = id
            .squeeze(&base, &[true, false, true, false])
            .unwrap()
            .unwrap();
        assert_eq!(sq.dims(), &[Some(1), Some(3)]);
        let g = sq.apply(&base).unwrap();
        assert_eq!(g.shape, [5, 6]);
        assert_eq!(g.chunkshape, [3, 4]);
        assert_eq!(g.blockshape, [2, 3]);
        let ex = sq.expand(&[false, true, false]).unwrap();
        assert_eq!(ex.dims(), &[Some(1), None, Some(3)]);
        let g = ex.apply(&base).unwrap();
        assert_eq!(g.shape, [5, 1, 6]);
        assert_eq!(g.extchunknitems, base.extchunknitems);
        // All dimensions gone: a 0-d view of a one-item array.
        let one = geom(&[1, 1], &[1, 1], &[1, 1]);
        let zero = DimMap::identity(2)
            .squeeze(&one, &[true, true])
            .unwrap()
            .unwrap();
        assert_eq!(zero.apply(&one).unwrap().ndim(), 0);
    }

    #[test]
    fn refusals() {
        let base = geom(&[1, 5], &[2, 3], &[1, 2]);
        let id = DimMap::identity(2);
        // An extent other than 1, as c-blosc2.
        assert_eq!(
            id.squeeze(&base, &[false, true]).err(),
            Some(Error::InvalidIndex)
        );
        // Padding along the dropped dimension: no shared view.
        assert_eq!(id.squeeze(&base, &[true, false]).unwrap(), None);
        assert_eq!(id.squeeze(&base, &[true]).err(), Some(Error::InvalidParam));
        // expand_dims needs exactly ndim `false` entries.
        assert_eq!(id.expand(&[true, false]).err(), Some(Error::InvalidParam));
        assert_eq!(
            id.expand(&[false, true, true, false, true, false]).err(),
            Some(Error::InvalidParam)
        );
        assert_eq!(id.expand(&[true; 17]).err(), Some(Error::InvalidParam));
        // The base lost the fit: a dropped dimension grew, or ndim differs.
        let unit = geom(&[1, 5], &[1, 3], &[1, 2]);
        let sq = id.squeeze(&unit, &[true, false]).unwrap().unwrap();
        assert!(sq.apply(&unit).is_ok());
        let grown = geom(&[2, 5], &[1, 3], &[1, 2]);
        assert_eq!(sq.apply(&grown).err(), Some(Error::InvalidParam));
        let other = geom(&[5], &[3], &[2]);
        assert_eq!(sq.apply(&other).err(), Some(Error::InvalidParam));
    }
}
