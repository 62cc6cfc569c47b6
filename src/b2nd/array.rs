//! n-dimensional arrays over a chunk store.
//!
//! Every chunk holds `extchunkshape` items (blocks in C order, items in C order inside a
//! block) and its padding is kept zero, so a chunk written here is the chunk c-blosc2 writes
//! for the same data and parameters.

use super::meta::{self, Meta};
use super::shape::{strides, Geometry};
use super::slice::check_slice;
use super::store::ChunkStore;
use crate::chunk::header::Special;
use crate::chunk::{CParams, DParams};
use crate::{Error, Result};
use std::borrow::Cow;

pub use crate::b2nd_meta::{CATERVA_META_NAME, META_NAME};

/// What a new array is made of (the `b2nd_context_t` of c-blosc2).
#[derive(Clone)]
pub struct Params<O> {
    /// Compression parameters of the chunks; `typesize` is the item size. The block size is
    /// replaced by one block shape's bytes.
    pub cparams: CParams,
    /// Decompression parameters.
    pub dparams: DParams,
    /// Where the store lives (for a [`Schunk`](crate::schunk::Schunk): its
    /// [`Storage`](crate::schunk::Storage)).
    pub options: O,
    /// Items along each dimension (at most 16 dimensions).
    pub shape: Vec<i64>,
    /// Items of a chunk along each dimension.
    pub chunkshape: Vec<i32>,
    /// Items of a block along each dimension (one above the chunk's pads the chunk to a block).
    pub blockshape: Vec<i32>,
    /// The item type, written into the b2nd metalayer, in NumPy's notation (`"<f8"`, `"|S4"`,
    /// ...; [`Params::new`] sets `"|S<typesize>"`). The array itself only uses the typesize.
    pub dtype: String,
    /// Which notation `dtype` uses (0 = NumPy, [`meta::DTYPE_NUMPY_FORMAT`]).
    pub dtype_format: i8,
    /// Extra fixed-length metalayers to add after the b2nd one.
    pub metalayers: Vec<(String, Vec<u8>)>,
}

impl<O: Default> Params<O> {
    /// Parameters with the default dtype of `b2nd_create_ctx`: raw bytes of the typesize.
    pub fn new(cparams: CParams, shape: &[i64], chunkshape: &[i32], blockshape: &[i32]) -> Self {
        let dtype = format!("|S{}", cparams.typesize);
        Params {
            cparams,
            dparams: DParams::default(),
            options: O::default(),
            shape: shape.to_vec(),
            chunkshape: chunkshape.to_vec(),
            blockshape: blockshape.to_vec(),
            dtype,
            dtype_format: meta::DTYPE_NUMPY_FORMAT,
            metalayers: Vec::new(),
        }
    }
}

/// An n-dimensional array of fixed-size items, stored in compressed chunks.
pub struct Array<S: ChunkStore> {
    pub(super) store: S,
    pub(super) geom: Geometry,
    pub(super) dtype: Option<String>,
    pub(super) dtype_format: i8,
    /// A view (`view::DimMap`): `geom` is not what the store's metalayer describes, so the
    /// shape cannot change through this array.
    pub(super) view: bool,
}

/// The value a fresh array is filled with.
enum Fill<'a> {
    Special(Special),
    Value(&'a [u8]),
}

impl<S: ChunkStore> Array<S> {
    /// The store holding the chunks and metalayers.
    pub fn store(&self) -> &S {
        &self.store
    }
    /// Gives the store back (e.g. the super-chunk, to save it or hand it to the C layer).
    pub fn into_store(self) -> S {
        self.store
    }
    /// Shapes and item counts (padded shapes included).
    pub fn geometry(&self) -> &Geometry {
        &self.geom
    }
    /// Number of dimensions (0 for a single item).
    pub fn ndim(&self) -> usize {
        self.geom.ndim()
    }
    /// Items along each dimension.
    pub fn shape(&self) -> &[i64] {
        &self.geom.shape
    }
    /// Items of a chunk along each dimension.
    pub fn chunkshape(&self) -> Vec<i32> {
        self.geom.chunkshape_i32()
    }
    /// Items of a block along each dimension.
    pub fn blockshape(&self) -> Vec<i32> {
        self.geom.blockshape_i32()
    }
    /// Items in the array.
    pub fn nitems(&self) -> i64 {
        self.geom.nitems
    }
    /// Bytes of one item.
    pub fn typesize(&self) -> usize {
        self.geom.typesize
    }
    /// The dtype string; `None` for a legacy caterva array, which has none.
    pub fn dtype(&self) -> Option<&str> {
        self.dtype.as_deref()
    }
    /// Notation of the dtype string (0 = NumPy).
    pub fn dtype_format(&self) -> i8 {
        self.dtype_format
    }

    /// The array a store holds, described by its `b2nd` (or legacy `caterva`) metalayer.
    pub fn from_store(store: S) -> Result<Self> {
        Array::from_store_or_back(store).map_err(|(e, _)| e)
    }

    /// [`Array::from_store`] that gives the store back with the error.
    pub fn from_store_or_back(store: S) -> std::result::Result<Self, (Error, S)> {
        let (m, geom) = match store_layout(&store) {
            Ok(layout) => layout,
            Err(e) => return Err((e, store)),
        };
        Ok(Array {
            store,
            geom,
            dtype: m.dtype,
            dtype_format: m.dtype_format,
            view: false,
        })
    }

    /// This array's store under the geometry of a view of it (see `view::DimMap::apply`,
    /// which guarantees the chunks' layout is the same).
    pub(super) fn with_view_geometry(self, geom: Geometry) -> Self {
        Array {
            geom,
            view: true,
            ..self
        }
    }

    /// Whether this array is a view of another's chunks (see [`Array::view_of`]).
    pub fn is_view(&self) -> bool {
        self.view
    }

    /// An array whose store has the b2nd metalayer and no chunks yet.
    pub(super) fn without_chunks(params: &Params<S::Options>) -> Result<Self> {
        let mut cparams = params.cparams.clone();
        let typesize = cparams.typesize.max(1) as usize;
        let geom = Geometry::new(
            &params.shape,
            &params.chunkshape,
            &params.blockshape,
            typesize,
        )?;
        // Its chunks must be ones a Blosc chunk can hold (c-blosc2's code when not).
        geom.chunk_buffer_len(Error::MaxBufsizeExceeded)?;
        // As b2nd_create_ctx does: one block is exactly one blockshape.
        cparams.blocksize = (geom.blocknitems * typesize as i64) as i32;
        let mut store = S::create(cparams, params.dparams.clone(), &params.options)?;
        let smeta = meta::serialize(
            &params.shape,
            &params.chunkshape,
            &params.blockshape,
            Some(&params.dtype),
            params.dtype_format,
        )?;
        store.meta_add(META_NAME, &smeta)?;
        for (name, content) in &params.metalayers {
            store.meta_add(name, content)?;
        }
        Ok(Array {
            store,
            geom,
            dtype: Some(params.dtype.clone()),
            dtype_format: params.dtype_format,
            view: false,
        })
    }

    /// Runs `f` on an array that the current call created and has not handed to anyone yet
    /// (such as a copy being filled): a file it is stored in is written as one being built,
    /// in plain single writes; every change after `f` returns is kill-safe again (see
    /// [`crate::schunk::Schunk::building`], docs/CRASH-SAFETY.md). Calls nest.
    pub fn building<R>(&mut self, f: impl FnOnce(&mut Self) -> Result<R>) -> Result<R> {
        let was = self.store.set_building(true);
        let r = f(self);
        self.store.set_building(was);
        r
    }

    fn new_filled(params: &Params<S::Options>, fill: Fill) -> Result<Self> {
        let mut a = Self::without_chunks(params)?;
        a.building(|a| a.fill(fill))?;
        Ok(a)
    }

    fn fill(&mut self, fill: Fill) -> Result<()> {
        let a = self;
        let nchunks = if a.geom.nitems == 0 {
            0
        } else {
            a.geom.nchunks()
        };
        let nbytes = a.geom.chunk_nbytes();
        match fill {
            Fill::Special(kind) => a.store.fill_special(nchunks, kind, nbytes)?,
            Fill::Value(v) => {
                if v.len() < a.geom.typesize {
                    return Err(Error::InvalidParam);
                }
                // As c-blosc2 does (and so with as many changes of a shared frame): zeros
                // first, then each chunk replaced by the repeated value.
                let chunk = a.store.special_chunk(Special::Value, nbytes, Some(v))?;
                a.store.fill_special(nchunks, Special::Zero, nbytes)?;
                for n in 0..nchunks {
                    a.store.update_chunk(n, Cow::Borrowed(&chunk))?;
                }
            }
        }
        Ok(())
    }

    /// An array of zeros (`b2nd_empty` fills with zeros too, to keep ratios stable).
    pub fn empty(params: &Params<S::Options>) -> Result<Self> {
        Self::new_filled(params, Fill::Special(Special::Zero))
    }
    /// An array of zeros, stored as special zero chunks (a header each).
    pub fn zeros(params: &Params<S::Options>) -> Result<Self> {
        Self::new_filled(params, Fill::Special(Special::Zero))
    }
    /// An array whose contents are undefined (reads give zeros here).
    pub fn uninit(params: &Params<S::Options>) -> Result<Self> {
        Self::new_filled(params, Fill::Special(Special::Uninit))
    }
    /// An array of NaNs; the typesize must be 4 or 8.
    pub fn nans(params: &Params<S::Options>) -> Result<Self> {
        if params.cparams.typesize != 4 && params.cparams.typesize != 8 {
            return Err(Error::Data);
        }
        Self::new_filled(params, Fill::Special(Special::Nan))
    }
    /// An array with every item equal to `value` (one item's bytes).
    pub fn full(params: &Params<S::Options>, value: &[u8]) -> Result<Self> {
        Self::new_filled(params, Fill::Value(value))
    }

    /// An array holding `buffer`, a C-order buffer of the params' shape.
    pub fn from_cbuffer(params: &Params<S::Options>, buffer: &[u8]) -> Result<Self> {
        let mut a = Self::empty(params)?;
        a.building(|a| a.set_cbuffer(buffer))?;
        Ok(a)
    }

    /// Writes the whole array from `buffer`, a C-order buffer of its shape (the second half of
    /// [`Array::from_cbuffer`], as c-blosc2's `b2nd_from_cbuffer` writes into an empty array).
    pub fn set_cbuffer(&mut self, buffer: &[u8]) -> Result<()> {
        if (buffer.len() as u64) < self.geom.nitems as u64 * self.geom.typesize as u64 {
            return Err(Error::InvalidParam);
        }
        if self.geom.nitems == 0 {
            return Ok(());
        }
        let start = vec![0; self.ndim()];
        let shape = self.geom.shape.clone();
        let _released = super::scratch::CompressedReleased::all();
        self.set_slice_cbuffer(buffer, &shape, &start, &shape)
    }

    /// The whole array as a C-order buffer.
    pub fn to_cbuffer(&self, buffer: &mut [u8]) -> Result<()> {
        if (buffer.len() as u64) < self.geom.nitems as u64 * self.geom.typesize as u64 {
            return Err(Error::InvalidParam);
        }
        if self.geom.nitems == 0 {
            return Ok(());
        }
        let start = vec![0; self.ndim()];
        self.get_slice_cbuffer(&start, &self.geom.shape, buffer, &self.geom.shape)
    }

    /// The whole array as a new C-order vector.
    pub fn to_vec(&self) -> Result<Vec<u8>> {
        let mut v = vec![0u8; self.geom.nitems as usize * self.geom.typesize];
        self.to_cbuffer(&mut v)?;
        Ok(v)
    }

    pub(super) fn check_buffer(
        &self,
        buffer_len: usize,
        buffershape: &[i64],
        start: &[i64],
        stop: &[i64],
    ) -> Result<()> {
        check_slice(&self.geom, start, stop)?;
        if buffershape.len() != self.ndim() {
            return Err(Error::InvalidParam);
        }
        let mut n = self.geom.typesize as i64;
        for d in 0..self.ndim() {
            if buffershape[d] < stop[d] - start[d] {
                return Err(Error::InvalidParam);
            }
            n = n.checked_mul(buffershape[d]).ok_or(Error::InvalidParam)?;
        }
        if (buffer_len as u64) < n as u64 {
            return Err(Error::InvalidParam);
        }
        // An array opened with chunks larger than a Blosc chunk cannot be read or written.
        self.geom.chunk_buffer_len(Error::InvalidParam)?;
        Ok(())
    }

    /// The chunk that `[start, stop)` is exactly, when that chunk's bytes are its items in C
    /// order (no padding; blocks of whole rows: leading block extents 1, then one dividing
    /// extent, then whole extents) and the buffer is exactly the slice: the chunk can then be
    /// (de)compressed straight from (into) the buffer.
    pub(super) fn whole_chunk_in_c_order(
        &self,
        start: &[i64],
        stop: &[i64],
        buffershape: &[i64],
    ) -> Option<i64> {
        let g = &self.geom;
        let mut k = 0;
        for d in 0..g.ndim() {
            let (c, b) = (g.chunkshape[d], g.blockshape[d]);
            if c == 0
                || start[d] % c != 0
                || stop[d] - start[d] != c
                || buffershape[d] != c
                || c % b != 0
            {
                return None;
            }
            if d > k && c != b {
                return None;
            }
            if d == k && b == 1 {
                k += 1;
            }
        }
        if g.ndim() == 0 {
            return None;
        }
        let grid = g.chunks_per_dim();
        let coords: Vec<i64> = (0..g.ndim()).map(|d| start[d] / g.chunkshape[d]).collect();
        Some(ravel(&coords, &grid))
    }

    /// Decompresses chunk `nchunk` into `data` (resized to a chunk). Blocks `maskout` skips
    /// keep whatever `data` held: callers only read the blocks they asked for.
    pub(super) fn read_chunk(
        &self,
        nchunk: i64,
        maskout: Option<&[bool]>,
        data: &mut Vec<u8>,
    ) -> Result<()> {
        // Only growth is zeroed: the bytes kept are overwritten or, when masked out, unread.
        let n = self.geom.chunk_buffer_len(Error::InvalidParam)?;
        data.resize(n, 0);
        // A chunk of another size than the array's chunks is corrupt.
        if self.store.decompress_chunk(nchunk, data, maskout)? != n {
            return Err(Error::Data);
        }
        Ok(())
    }
}

/// Chunks an array of this geometry is stored in (one for 0-d).
pub(super) fn nchunks_of(g: &Geometry) -> i64 {
    if g.ndim() == 0 {
        1
    } else {
        g.nchunks()
    }
}

/// Whether chunks compressed with `a` are stored as they are where `b` compresses: the
/// parameters `blosc2_schunk_copy` compares (not the split mode nor the codec's meta), and no
/// prefilter on the source (c-blosc2 then recompresses).
pub(super) fn same_chunk_format(a: &CParams, b: &CParams) -> bool {
    a.typesize == b.typesize
        && a.compcode == b.compcode
        && a.clevel == b.clevel
        && a.filters == b.filters
        && a.filters_meta == b.filters_meta
        && a.blocksize == b.blocksize
        && a.use_dict == b.use_dict
        && a.prefilter.is_none()
}

/// The grid coordinates of linear position `n` (C order).
pub(super) fn unravel(mut n: i64, grid: &[i64]) -> Vec<i64> {
    let mut c = vec![0i64; grid.len()];
    for d in (0..grid.len()).rev() {
        if grid[d] > 0 {
            c[d] = n % grid[d];
            n /= grid[d];
        }
    }
    c
}

/// The linear position (C order) of grid coordinates.
pub(super) fn ravel(coords: &[i64], grid: &[i64]) -> i64 {
    let s = strides(grid);
    coords.iter().zip(&s).map(|(c, s)| c * s).sum()
}

/// The metadata and geometry of the array `store` holds, after every check `Array::from_store`
/// makes: a caller that cannot give the store up on failure (the C layer, whose super-chunk
/// handle owns it) checks with this first.
pub fn store_layout<S: ChunkStore>(store: &S) -> Result<(Meta, Geometry)> {
    let smeta = store
        .meta_get(META_NAME)
        .or_else(|| store.meta_get(CATERVA_META_NAME))
        .ok_or(Error::MetalayerNotFound)?;
    let (m, _) = meta::deserialize(&smeta)?;
    let geom = Geometry::new(&m.shape, &m.chunkshape, &m.blockshape, store.typesize())?;
    // A store with fewer chunks than the metalayer describes is taken, as c-blosc2 takes it
    // (reading a missing chunk fails then). A metalayer that does not describe the chunks
    // (checked on the first one) is corrupt; catching it here avoids allocating chunk buffers
    // of a size nothing in the store has.
    let nchunks = if geom.ndim() == 0 { 1 } else { geom.nchunks() };
    if nchunks > 0 && store.nchunks() > 0 {
        let nbytes = store.chunk_nbytes(0)?;
        if nbytes as i64 != geom.chunk_nbytes() as i64 {
            return Err(Error::Data);
        }
    }
    Ok((m, geom))
}

/// The metadata of a store's b2nd (or caterva) metalayer.
pub fn read_meta<S: ChunkStore>(store: &S) -> Result<Meta> {
    let smeta = store
        .meta_get(META_NAME)
        .or_else(|| store.meta_get(CATERVA_META_NAME))
        .ok_or(Error::MetalayerNotFound)?;
    Ok(meta::deserialize(&smeta)?.0)
}
