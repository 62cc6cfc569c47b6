//! n-dimensional arrays over a chunk store.
//!
//! Every chunk holds `extchunkshape` items (blocks in C order, items in C order inside a
//! block) and its padding is kept zero, so a chunk written here is the chunk c-blosc2 writes
//! for the same data and parameters.

use super::meta::{self, Meta};
use super::scratch::Scratch;
use super::shape::{for_each_index, strides, Geometry};
use super::slice::{check_slice, copy_buffer, for_each_block, for_each_chunk, Part, PartCopier};
use super::store::{ChunkStore, MemStore};
use super::MAX_DIM;
use crate::chunk::decompress::BlockSpan;
use crate::chunk::header::Special;
use crate::chunk::{CParams, DParams};
use crate::{Error, Result};
use std::borrow::Cow;
use std::sync::Mutex;

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
    store: S,
    geom: Geometry,
    dtype: Option<String>,
    dtype_format: i8,
    /// A view (`view::DimMap`): `geom` is not what the store's metalayer describes, so the
    /// shape cannot change through this array.
    view: bool,
}

/// Fewest blocks of a chunk a slice needs for their decompression to be shared among the
/// decompressor's threads (below that, handing them out costs more than it saves: a thin
/// column needs one block per chunk).
const PARALLEL_MIN_BLOCKS: usize = 4;

/// Most locks a slice read by several threads splits its buffer into (row groups along the
/// first dimension).
const ROW_GROUPS: usize = 64;

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
    fn without_chunks(params: &Params<S::Options>) -> Result<Self> {
        let mut cparams = params.cparams.clone();
        let typesize = cparams.typesize.max(1) as usize;
        let geom = Geometry::new(
            &params.shape,
            &params.chunkshape,
            &params.blockshape,
            typesize,
        )?;
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

    fn new_filled(params: &Params<S::Options>, fill: Fill) -> Result<Self> {
        let mut a = Self::without_chunks(params)?;
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
                    a.store.update_chunk(n, chunk.clone())?;
                }
            }
        }
        Ok(a)
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
        if (buffer.len() as u64) < a.geom.nitems as u64 * a.geom.typesize as u64 {
            return Err(Error::InvalidParam);
        }
        if a.geom.nitems == 0 {
            return Ok(a);
        }
        let start = vec![0; a.ndim()];
        let shape = a.geom.shape.clone();
        a.set_slice_cbuffer(buffer, &shape, &start, &shape)?;
        Ok(a)
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

    fn check_buffer(
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
        Ok(())
    }

    /// The chunk that `[start, stop)` is exactly, when that chunk's bytes are its items in C
    /// order (no padding; blocks of whole rows: leading block extents 1, then one dividing
    /// extent, then whole extents) and the buffer is exactly the slice: the chunk can then be
    /// (de)compressed straight from (into) the buffer.
    fn whole_chunk_in_c_order(
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
    fn read_chunk(&self, nchunk: i64, maskout: Option<&[bool]>, data: &mut Vec<u8>) -> Result<()> {
        // Only growth is zeroed: the bytes kept are overwritten or, when masked out, unread.
        let n = self.geom.chunk_nbytes();
        data.resize(n, 0);
        // A chunk of another size than the array's chunks is corrupt.
        if self.store.decompress_chunk(nchunk, data, maskout)? != n {
            return Err(Error::Data);
        }
        Ok(())
    }

    /// Copies the region `[start, stop)` into `buffer`, a C-order buffer of `buffershape`
    /// whose first item receives item `start` (the rest of the buffer is zeroed).
    pub fn get_slice_cbuffer(
        &self,
        start: &[i64],
        stop: &[i64],
        buffer: &mut [u8],
        buffershape: &[i64],
    ) -> Result<()> {
        // As c-blosc2: the whole read under the shared lock, so another handle's change
        // (held exclusively) is seen entirely or not at all.
        let _held = self.store.hold(false)?;
        self.check_buffer(buffer.len(), buffershape, start, stop)?;
        let ts = self.geom.typesize;
        // Items outside the slice are zeroed; when the slice fills the buffer, every byte is
        // written below.
        if (0..self.ndim()).any(|d| buffershape[d] != stop[d] - start[d]) {
            buffer.fill(0);
        }
        if self.ndim() == 0 {
            let mut data = Scratch::chunk_data();
            self.read_chunk(0, None, &mut data)?;
            buffer[..ts].copy_from_slice(&data[..ts]);
            return Ok(());
        }
        if let Some(nchunk) = self.whole_chunk_in_c_order(start, stop, buffershape) {
            let n = self.geom.chunk_nbytes();
            if self
                .store
                .decompress_chunk(nchunk, &mut buffer[..n], None)?
                != n
            {
                return Err(Error::Data);
            }
            return Ok(());
        }
        let copier = PartCopier::new(ts, &self.geom.blockshape, buffershape, start)?;
        let mut chunks: Vec<(i64, Vec<i64>)> = Vec::new();
        for_each_chunk(&self.geom, start, stop, |nchunk, coords| {
            chunks.push((nchunk, coords.to_vec()));
            Ok(())
        })?;
        let nthreads = self.store.dparams().nthreads.max(1) as usize;
        if nthreads > 1 && chunks.len() >= nthreads {
            return self.get_chunks_in_parallel(&chunks, start, stop, &copier, buffer);
        }
        let mut parts = Vec::new();
        let mut spans = Vec::new();
        let mut data = Scratch::chunk_data();
        for (nchunk, coords) in &chunks {
            self.plan_chunk(coords, start, stop, &copier, &mut parts, &mut spans);
            // With threads and several blocks to decode, the chunk path below shares them
            // out; otherwise each block's part is copied out as it is decoded.
            if nthreads > 1 && parts.len() >= PARALLEL_MIN_BLOCKS
                || !self.stream_chunk(*nchunk, &parts, &spans, &copier, buffer)?
            {
                self.copy_from_whole_chunk(*nchunk, &parts, &copier, &mut data, buffer)?;
            }
        }
        Ok(())
    }

    /// The parts of the slice `[start, stop)` in the blocks of the chunk at `coords`, and
    /// the bytes of its block that each spans.
    fn plan_chunk(
        &self,
        coords: &[i64],
        start: &[i64],
        stop: &[i64],
        copier: &PartCopier,
        parts: &mut Vec<Part>,
        spans: &mut Vec<BlockSpan>,
    ) {
        parts.clear();
        spans.clear();
        // for_each_block calls nothing that fails.
        let _ = for_each_block(&self.geom, coords, start, stop, |p| {
            let part = copier.part(&p);
            let (from, to) = copier.span(&part);
            spans.push(BlockSpan {
                nblock: p.nblock,
                from,
                to,
                used: copier.part_bytes(&part),
            });
            parts.push(part);
            Ok(())
        });
    }

    /// Decodes the parts of the blocks of chunk `nchunk` one at a time and copies each out;
    /// `Ok(false)`, nothing copied, for a chunk that must be read whole.
    fn stream_chunk(
        &self,
        nchunk: i64,
        parts: &[Part],
        spans: &[BlockSpan],
        copier: &PartCopier,
        buffer: &mut [u8],
    ) -> Result<bool> {
        self.store
            .for_each_block_part(nchunk, spans, &mut |k, block| {
                let part = parts.get(k).ok_or(Error::Data)?;
                copier.copy_decoded(part, block, buffer)
            })
    }

    /// Decompresses the blocks of chunk `nchunk` that `parts` lie in into `data` (with the
    /// store's threads) and copies the parts out.
    fn copy_from_whole_chunk(
        &self,
        nchunk: i64,
        parts: &[Part],
        copier: &PartCopier,
        data: &mut Vec<u8>,
        buffer: &mut [u8],
    ) -> Result<()> {
        let bn = self.geom.block_nbytes();
        let mut mask = vec![true; self.geom.nblocks()];
        for part in parts {
            *mask.get_mut(part.nblock).ok_or(Error::Data)? = false;
        }
        let mask = mask.iter().any(|m| *m).then_some(&mask[..]);
        self.read_chunk(nchunk, mask, data)?;
        for part in parts {
            let block = data
                .get(part.nblock * bn..(part.nblock + 1) * bn)
                .ok_or(Error::Data)?;
            copier.copy(part, block, buffer)?;
        }
        Ok(())
    }

    /// `get_slice_cbuffer` of a slice over several chunks with a multi-threaded store: the
    /// chunks are shared out among the threads, each decoding its chunk's blocks one at a
    /// time and copying its parts into the buffer under the locks of the row groups they
    /// write (at most `ROW_GROUPS` groups along the buffer's first dimension). Chunks that
    /// must be read whole are read afterwards, on the calling thread, where the store's
    /// threads can share their blocks.
    fn get_chunks_in_parallel(
        &self,
        chunks: &[(i64, Vec<i64>)],
        start: &[i64],
        stop: &[i64],
        copier: &PartCopier,
        buffer: &mut [u8],
    ) -> Result<()> {
        let row_bytes = copier.row_bytes();
        let nrows = buffer.len().checked_div(row_bytes).unwrap_or(0).max(1);
        let rows_per_group = nrows.div_ceil(ROW_GROUPS);
        let groups: Vec<Mutex<&mut [u8]>> = buffer
            .chunks_mut((rows_per_group * row_bytes).max(1))
            .map(Mutex::new)
            .collect();
        let whole: Mutex<Vec<usize>> = Mutex::new(Vec::new());
        self.store.for_each_item(chunks.len(), &|i| {
            let (nchunk, coords) = &chunks[i];
            let (mut parts, mut spans) = (Vec::new(), Vec::new());
            self.plan_chunk(coords, start, stop, copier, &mut parts, &mut spans);
            let streamed = self
                .store
                .for_each_block_part(*nchunk, &spans, &mut |k, block| {
                    let part = parts.get(k).ok_or(Error::Data)?;
                    copier.copy_to_row_groups(part, &groups, rows_per_group, |sub, rows| {
                        copier.copy_decoded(sub, block, rows)
                    })
                })?;
            if !streamed {
                whole.lock().unwrap_or_else(|e| e.into_inner()).push(i);
            }
            Ok(())
        })?;
        let mut whole = whole.into_inner().unwrap_or_else(|e| e.into_inner());
        if whole.is_empty() {
            return Ok(());
        }
        whole.sort_unstable();
        drop(groups);
        let (mut parts, mut spans) = (Vec::new(), Vec::new());
        let mut data = Scratch::chunk_data();
        for i in whole {
            let (nchunk, coords) = &chunks[i];
            self.plan_chunk(coords, start, stop, copier, &mut parts, &mut spans);
            self.copy_from_whole_chunk(*nchunk, &parts, copier, &mut data, buffer)?;
        }
        Ok(())
    }

    /// Writes `buffer` (C order, shape `buffershape`, its first item going to `start`) into
    /// the region `[start, stop)`.
    pub fn set_slice_cbuffer(
        &mut self,
        buffer: &[u8],
        buffershape: &[i64],
        start: &[i64],
        stop: &[i64],
    ) -> Result<()> {
        // As c-blosc2: one change for other handles however many chunks it rewrites.
        let _held = self.store.hold(true)?;
        self.check_buffer(buffer.len(), buffershape, start, stop)?;
        let ts = self.geom.typesize;
        if self.ndim() == 0 {
            let chunk = self.store.compress_chunk(&buffer[..ts])?;
            self.store.update_chunk(0, chunk)?;
            return Ok(());
        }
        if let Some(nchunk) = self.whole_chunk_in_c_order(start, stop, buffershape) {
            let chunk = self
                .store
                .compress_chunk(&buffer[..self.geom.chunk_nbytes()])?;
            self.store.update_chunk(nchunk, chunk)?;
            return Ok(());
        }
        let geom = self.geom.clone();
        let mut data = Scratch::chunk_data();
        for_each_chunk(&geom, start, stop, |nchunk, coords| {
            let (cstart, cstop) = geom.chunk_region(coords);
            let whole = (0..geom.ndim()).all(|d| start[d] <= cstart[d] && cstop[d] <= stop[d]);
            if whole {
                // Every item of the chunk is written below; only padding must be zeroed.
                let padded =
                    (0..geom.ndim()).any(|d| cstop[d] - cstart[d] != geom.extchunkshape[d]);
                if padded {
                    data.clear();
                }
                data.resize(geom.chunk_nbytes(), 0);
            } else {
                self.read_chunk(nchunk, None, &mut data)?;
            }
            let bn = geom.block_nbytes();
            for_each_block(&geom, coords, start, stop, |p| {
                let block = &mut data[p.nblock * bn..(p.nblock + 1) * bn];
                let src_start: Vec<i64> =
                    (0..p.start.len()).map(|d| p.start[d] - start[d]).collect();
                let src_stop: Vec<i64> = (0..p.start.len()).map(|d| p.stop[d] - start[d]).collect();
                let dst_start: Vec<i64> = (0..p.start.len())
                    .map(|d| p.start[d] - p.block_origin[d])
                    .collect();
                copy_buffer(
                    ts,
                    buffer,
                    buffershape,
                    &src_start,
                    &src_stop,
                    block,
                    &geom.blockshape,
                    &dst_start,
                )
            })?;
            // Stored at once: keeping every compressed chunk until the end held a second copy
            // of the array's compressed bytes (from_cbuffer peaked at twice c-blosc2's).
            let chunk = self.store.compress_chunk(&data)?;
            self.store.update_chunk(nchunk, chunk)?;
            Ok(())
        })
    }

    /// A new array holding the region `[start, stop)`; `params` gives its chunk and block
    /// shapes and storage (its shape is replaced by `stop - start`).
    pub fn get_slice<T: ChunkStore>(
        &self,
        params: &Params<T::Options>,
        start: &[i64],
        stop: &[i64],
    ) -> Result<Array<T>> {
        // A stop past the shape is allowed here (c-blosc2 3.3.5 takes it, and its own tests
        // rely on it): the items outside the array are zeros in the result.
        let inside: Vec<i64> = (0..self.ndim().min(stop.len()))
            .map(|d| {
                stop[d]
                    .min(self.geom.shape[d])
                    .max(start.get(d).copied().unwrap_or(0))
            })
            .collect();
        check_slice(&self.geom, start, &inside)?;
        if (0..self.ndim()).any(|d| start[d] > stop[d]) {
            return Err(Error::InvalidParam);
        }
        let mut params = params.clone();
        params.shape = (0..self.ndim()).map(|d| stop[d] - start[d]).collect();
        let mut out = Array::<T>::empty(&params)?;
        if out.geom.typesize != self.geom.typesize {
            return Err(Error::InvalidParam);
        }
        out.copy_region_from(self, start)?;
        Ok(out)
    }

    /// Fills every chunk of `self` with `src`'s items at offset `offset`.
    fn copy_region_from<T: ChunkStore>(&mut self, src: &Array<T>, offset: &[i64]) -> Result<()> {
        if self.geom.nitems == 0 {
            return Ok(());
        }
        if self.ndim() == 0 {
            let v = src.to_vec()?;
            return self.set_slice_cbuffer(&v, &[], &[], &[]);
        }
        let grid = self.geom.chunks_per_dim();
        let mut buf = Vec::new();
        let geom = self.geom.clone();
        for_each_index(&grid, |coords| {
            let (cstart, mut cstop) = geom.chunk_region(coords);
            // Only the part inside `src`: the rest of the chunk keeps the zeros it was made with.
            for d in 0..cstart.len() {
                cstop[d] = cstop[d].min(src.geom.shape[d] - offset[d]).max(cstart[d]);
            }
            if (0..cstart.len()).any(|d| cstop[d] == cstart[d]) {
                return Ok(());
            }
            let cshape: Vec<i64> = (0..cstart.len()).map(|d| cstop[d] - cstart[d]).collect();
            let sstart: Vec<i64> = (0..cstart.len()).map(|d| cstart[d] + offset[d]).collect();
            let sstop: Vec<i64> = (0..cstart.len()).map(|d| cstop[d] + offset[d]).collect();
            buf.clear();
            buf.resize(cshape.iter().product::<i64>() as usize * geom.typesize, 0);
            src.get_slice_cbuffer(&sstart, &sstop, &mut buf, &cshape)?;
            self.set_slice_cbuffer(&buf, &cshape, &cstart, &cstop)
        })
    }

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
            self.read_chunk(nchunk, None, &mut data)?;
            zero_cut_items(&old, &geom.shape, &cut_dims, coords, &mut data)?;
            let chunk = self.store.compress_chunk(&data)?;
            self.store.update_chunk(nchunk, chunk)?;
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
                self.store.insert_chunk(n, zeros.clone())?;
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
        // Chunks that line up with ours and share our compression can be copied as they are.
        let aligned = self.geom.chunkshape == other.geom.chunkshape
            && self.geom.blockshape == other.geom.blockshape
            && old_shape[axis] % self.geom.chunkshape[axis] == 0
            && same_chunk_format(self.store.cparams(), other.store.cparams());
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
                let chunk = other.store.chunk(ravel(coords, &other_grid))?.into_owned();
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
        let mut params = params.clone();
        params.shape = self.geom.shape.clone();
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
        let mut out = Array::<T>::without_chunks(&params)?;
        if out.geom.typesize != self.geom.typesize {
            return Err(Error::InvalidParam);
        }
        let same_layout = out.geom.chunkshape == self.geom.chunkshape
            && out.geom.blockshape == self.geom.blockshape;
        let nchunks = if self.geom.nitems == 0 {
            0
        } else {
            self.geom.nchunks()
        };
        if same_layout {
            let raw = same_chunk_format(self.store.cparams(), out.store.cparams());
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
        for name in self.store.vlmeta_names() {
            out.store
                .vlmeta_add(&name, &self.store.vlmeta_get(&name)?)?;
        }
        Ok(out)
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

    /// Reads the items at the cross product of `selection` (one list of indices per
    /// dimension) into `buffer`, a C-order buffer of `buffershape`: item
    /// `(selection[0][i0], selection[1][i1], ...)` goes to position `(i0, i1, ...)`.
    pub fn get_orthogonal_selection(
        &self,
        selection: &[&[i64]],
        buffer: &mut [u8],
        buffershape: &[i64],
    ) -> Result<()> {
        let _held = self.store.hold(false)?;
        let plan = self.plan_selection(selection, buffer.len(), buffershape)?;
        let ts = self.geom.typesize;
        let mut data = Scratch::chunk_data();
        for chunk in &plan.chunks {
            let mut mask = vec![true; self.geom.nblocks()];
            for it in &chunk.items {
                mask[it.nblock] = false;
            }
            self.read_chunk(chunk.nchunk, Some(&mask), &mut data)?;
            for it in &chunk.items {
                buffer[it.buffer_pos * ts..(it.buffer_pos + 1) * ts]
                    .copy_from_slice(&data[it.chunk_pos * ts..(it.chunk_pos + 1) * ts]);
            }
        }
        Ok(())
    }

    /// Writes `buffer` (see `get_orthogonal_selection`) to the selected items. With repeated
    /// indices, the last occurrence wins.
    pub fn set_orthogonal_selection(
        &mut self,
        selection: &[&[i64]],
        buffer: &[u8],
        buffershape: &[i64],
    ) -> Result<()> {
        let plan = self.plan_selection(selection, buffer.len(), buffershape)?;
        let ts = self.geom.typesize;
        let mut data = Scratch::chunk_data();
        for chunk in &plan.chunks {
            self.read_chunk(chunk.nchunk, None, &mut data)?;
            for it in &chunk.items {
                data[it.chunk_pos * ts..(it.chunk_pos + 1) * ts]
                    .copy_from_slice(&buffer[it.buffer_pos * ts..(it.buffer_pos + 1) * ts]);
            }
            let c = self.store.compress_chunk(&data)?;
            self.store.update_chunk(chunk.nchunk, c)?;
        }
        Ok(())
    }

    /// Gathers the items at flat C-order positions `coords` (each in `[0, nitems)`, repeats and
    /// any order allowed) into `buffer`, in the order of `coords`.
    pub fn get_sparse_cbuffer(&self, coords: &[i64], buffer: &mut [u8]) -> Result<()> {
        let g = &self.geom;
        let ts = g.typesize;
        if (buffer.len() as u64) < coords.len() as u64 * ts as u64 {
            return Err(Error::InvalidParam);
        }
        if coords.iter().any(|c| *c < 0 || *c >= g.nitems) {
            return Err(Error::InvalidIndex);
        }
        let ndim = g.ndim();
        let grid_strides = strides(&g.chunks_per_dim());
        let block_strides = strides(&g.blocks_per_dim());
        let item_strides = strides(&g.blockshape);
        // (nchunk, nblock, position in chunk, position in buffer), sorted by chunk.
        let mut items: Vec<(i64, usize, usize, usize)> = coords
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let idx = unravel(*c, &g.shape);
                let (mut nchunk, mut nblock, mut item) = (0i64, 0i64, 0i64);
                for d in 0..ndim {
                    let (cs, bs) = (g.chunkshape[d], g.blockshape[d]);
                    nchunk += idx[d] / cs * grid_strides[d];
                    nblock += idx[d] % cs / bs * block_strides[d];
                    item += idx[d] % cs % bs * item_strides[d];
                }
                let pos = (nblock * g.blocknitems + item) as usize;
                (nchunk, nblock as usize, pos, i)
            })
            .collect();
        items.sort_unstable();
        let mut data = Scratch::chunk_data();
        for group in items.chunk_by(|a, b| a.0 == b.0) {
            let mut mask = vec![true; g.nblocks()];
            for it in group {
                mask[it.1] = false;
            }
            self.read_chunk(group[0].0, Some(&mask), &mut data)?;
            for &(_, _, pos, i) in group {
                buffer[i * ts..(i + 1) * ts].copy_from_slice(&data[pos * ts..(pos + 1) * ts]);
            }
        }
        Ok(())
    }

    /// Groups the selected items by chunk, each with its place in the chunk and the buffer.
    fn plan_selection(
        &self,
        selection: &[&[i64]],
        buffer_len: usize,
        buffershape: &[i64],
    ) -> Result<SelectionPlan> {
        let g = &self.geom;
        let ndim = g.ndim();
        if selection.len() != ndim || buffershape.len() != ndim {
            return Err(Error::InvalidParam);
        }
        let mut sel_bytes = g.typesize as i64;
        let mut buf_items = 1i64;
        for d in 0..ndim {
            // c-blosc2 accepts an index equal to the extent (and reads padding); not here.
            if selection[d].iter().any(|i| *i < 0 || *i >= g.shape[d]) {
                return Err(Error::InvalidIndex);
            }
            if buffershape[d] < selection[d].len() as i64 {
                return Err(Error::InvalidParam);
            }
            sel_bytes = sel_bytes
                .checked_mul(selection[d].len() as i64)
                .ok_or(Error::InvalidParam)?;
            buf_items = buf_items
                .checked_mul(buffershape[d])
                .ok_or(Error::InvalidParam)?;
        }
        let ts = g.typesize as i64;
        if (buffer_len as i64) < sel_bytes
            || buf_items
                .checked_mul(ts)
                .is_none_or(|n| n > buffer_len as i64)
        {
            return Err(Error::InvalidParam);
        }
        if sel_bytes == 0 {
            return Ok(SelectionPlan { chunks: Vec::new() });
        }
        if ndim == 0 {
            return Ok(SelectionPlan {
                chunks: vec![PlannedChunk {
                    nchunk: 0,
                    items: vec![PlannedItem {
                        nblock: 0,
                        chunk_pos: 0,
                        buffer_pos: 0,
                    }],
                }],
            });
        }
        // Per dimension: (value, position in the selection), sorted by value then position so
        // that, when writing, the last occurrence of a repeated index is applied last.
        let sorted: Vec<Vec<(i64, i64)>> = selection
            .iter()
            .map(|s| {
                let mut v: Vec<(i64, i64)> =
                    s.iter().enumerate().map(|(i, x)| (*x, i as i64)).collect();
                v.sort_unstable();
                v
            })
            .collect();
        let bstrides = strides(buffershape);
        let grid_strides = strides(&g.chunks_per_dim());
        let block_strides = strides(&g.blocks_per_dim());
        let item_strides = strides(&g.blockshape);
        // Per dimension, the ranges of `sorted` falling in each chunk.
        let groups: Vec<Vec<(i64, usize, usize)>> = sorted
            .iter()
            .enumerate()
            .map(|(d, v)| {
                let mut out = Vec::new();
                let mut i = 0;
                while i < v.len() {
                    let c = v[i].0 / g.chunkshape[d];
                    let mut j = i;
                    while j < v.len() && v[j].0 / g.chunkshape[d] == c {
                        j += 1;
                    }
                    out.push((c, i, j));
                    i = j;
                }
                out
            })
            .collect();
        let counts: Vec<i64> = groups.iter().map(|v| v.len() as i64).collect();
        let mut chunks = Vec::new();
        for_each_index(&counts, |gi| {
            let mut nchunk = 0;
            let mut ranges = Vec::with_capacity(ndim);
            for d in 0..ndim {
                let (c, a, b) = groups[d][gi[d] as usize];
                nchunk += c * grid_strides[d];
                ranges.push(b as i64 - a as i64);
            }
            let mut items = Vec::new();
            for_each_index(&ranges, |ri| {
                let (mut nblock, mut chunk_item, mut buf) = (0i64, 0i64, 0i64);
                for d in 0..ndim {
                    let (value, pos) = sorted[d][groups[d][gi[d] as usize].1 + ri[d] as usize];
                    let in_chunk = value % g.chunkshape[d];
                    nblock += in_chunk / g.blockshape[d] * block_strides[d];
                    chunk_item += in_chunk % g.blockshape[d] * item_strides[d];
                    buf += pos * bstrides[d];
                }
                items.push(PlannedItem {
                    nblock: nblock as usize,
                    chunk_pos: (nblock * g.blocknitems + chunk_item) as usize,
                    buffer_pos: buf as usize,
                });
                Ok(())
            })?;
            chunks.push(PlannedChunk { nchunk, items });
            Ok(())
        })?;
        Ok(SelectionPlan { chunks })
    }
}

struct PlannedItem {
    nblock: usize,
    chunk_pos: usize,
    buffer_pos: usize,
}

struct PlannedChunk {
    nchunk: i64,
    items: Vec<PlannedItem>,
}

struct SelectionPlan {
    chunks: Vec<PlannedChunk>,
}

/// Chunks an array of this geometry is stored in (one for 0-d).
fn nchunks_of(g: &Geometry) -> i64 {
    if g.ndim() == 0 {
        1
    } else {
        g.nchunks()
    }
}

/// Whether chunks compressed with `a` can be stored as they are where `b` compresses.
fn same_chunk_format(a: &CParams, b: &CParams) -> bool {
    a.typesize == b.typesize
        && a.compcode == b.compcode
        && a.compcode_meta == b.compcode_meta
        && a.clevel == b.clevel
        && a.filters == b.filters
        && a.filters_meta == b.filters_meta
        && a.blocksize == b.blocksize
        && a.splitmode == b.splitmode
        && a.use_dict == b.use_dict
}

/// The grid coordinates of linear position `n` (C order).
fn unravel(mut n: i64, grid: &[i64]) -> Vec<i64> {
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
fn ravel(coords: &[i64], grid: &[i64]) -> i64 {
    let s = strides(grid);
    coords.iter().zip(&s).map(|(c, s)| c * s).sum()
}

/// Zeroes, in the data of chunk `coords` (of geometry `old`), the items inside `old`'s shape
/// that a shrink to `new_shape` along `cut_dims` cut off.
fn zero_cut_items(
    old: &Geometry,
    new_shape: &[i64],
    cut_dims: &[usize],
    coords: &[i64],
    data: &mut [u8],
) -> Result<()> {
    let (cstart, cstop) = old.chunk_region(coords);
    let (ts, bn) = (old.typesize, old.block_nbytes());
    let item_strides = strides(&old.blockshape);
    for &d in cut_dims {
        let mut start = cstart.clone();
        start[d] = start[d].max(new_shape[d]);
        if start[d] >= cstop[d] {
            continue;
        }
        for_each_block(old, coords, &start, &cstop, |p| {
            let ndim = p.start.len();
            let shape: Vec<i64> = (0..ndim).map(|i| p.stop[i] - p.start[i]).collect();
            for_each_index(&shape, |rel| {
                let item: i64 = (0..ndim)
                    .map(|i| (p.start[i] - p.block_origin[i] + rel[i]) * item_strides[i])
                    .sum();
                let at = p.nblock * bn + item as usize * ts;
                data.get_mut(at..at + ts).ok_or(Error::Data)?.fill(0);
                Ok(())
            })
        })?;
    }
    Ok(())
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
    let nchunks = if geom.ndim() == 0 { 1 } else { geom.nchunks() };
    if store.nchunks() < nchunks {
        return Err(Error::Data);
    }
    // A metalayer that does not describe the chunks (checked on the first one) is corrupt;
    // catching it here avoids allocating chunk buffers of a size nothing in the store has.
    if nchunks > 0 {
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
