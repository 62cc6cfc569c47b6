//! The super-chunk as a b2nd chunk store (c-blosc2 keeps a b2nd array in a `blosc2_schunk`).

use std::borrow::Cow;
use std::path::Path;

use super::array::{Array, Params};
use super::meta::DEFAULT_DTYPE;
use super::store::{compress_with, decompress_defined, with_compressed, ChunkStore};
use super::view::DimMap;
use crate::chunk::decompress::{BlockSpan, DecodedPart, LazyBlocks};
use crate::chunk::header::Special;
use crate::chunk::ChunkHeader;
use crate::chunk::{CParams, DParams};
use crate::frame::lock::LockGuard;
use crate::schunk::{Schunk, Storage};
use crate::{Error, Result};

impl ChunkStore for Schunk {
    /// Where the super-chunk lives (its `cparams`/`dparams` are replaced by `create`'s).
    type Options = Storage;

    fn set_building(&mut self, on: bool) -> bool {
        Schunk::set_building(self, on)
    }

    fn create(cparams: CParams, dparams: DParams, options: &Storage) -> Result<Self> {
        Schunk::new(Storage {
            cparams,
            dparams,
            ..options.clone()
        })
    }
    fn cparams(&self) -> &CParams {
        Schunk::cparams(self)
    }
    fn dparams(&self) -> &DParams {
        Schunk::dparams(self)
    }
    fn with_decoding_params<R>(&self, f: impl FnOnce(&DParams) -> R) -> R {
        f(self.decompressor().params())
    }
    /// Arrays derived from this one (squeezed or expanded views) live in memory, as c-blosc2's
    /// views do, whatever this super-chunk's own storage.
    fn options(&self) -> Storage {
        Storage {
            contiguous: false,
            urlpath: None,
            ..self.storage().clone()
        }
    }
    fn hold(&self, exclusive: bool) -> Result<LockGuard> {
        Schunk::hold(self, exclusive)
    }
    fn nchunks(&self) -> i64 {
        Schunk::nchunks(self)
    }
    fn chunk(&self, nchunk: i64) -> Result<Cow<'_, [u8]>> {
        self.get_chunk(nchunk)
    }
    fn chunk_nbytes(&self, nchunk: i64) -> Result<i32> {
        Schunk::chunk_nbytes(self, nchunk)
    }
    fn decompress_chunk(
        &self,
        nchunk: i64,
        dst: &mut [u8],
        maskout: Option<&[bool]>,
    ) -> Result<usize> {
        // Held through the decompression, as c-blosc2 holds it through its chunk reads.
        let _held = self.hold(false)?;
        let chunk = self.get_chunk(nchunk)?;
        decompress_defined(&self.decompressor(), &chunk, dst, maskout)
    }
    fn for_each_block_part(
        &self,
        nchunk: i64,
        spans: &[BlockSpan],
        f: &mut dyn FnMut(usize, &DecodedPart<'_>) -> Result<()>,
    ) -> Result<bool> {
        let _held = self.hold(false)?;
        // A chunk in a frame file of which the spans want few blocks is read block by block
        // (as c-blosc2 reads a slice of an array on disk): a thin slab needs a sixteenth of
        // each. (Not in a sparse frame: there each block read opens the chunk's file.)
        let contiguous_file = self.frame().is_some_and(|f| !f.is_sparse());
        let lazy = if contiguous_file {
            self.get_lazychunk(nchunk)?
        } else {
            self.get_chunk(nchunk)?
        };
        let h = ChunkHeader::parse(&lazy)?;
        if h.is_lazy() && h.blocksize > 0 {
            let nblocks = (h.nbytes as usize).div_ceil(h.blocksize as usize);
            let mut wanted: Vec<usize> = spans.iter().map(|s| s.nblock).collect();
            wanted.sort_unstable();
            wanted.dedup();
            if wanted.len() * 2 < nblocks {
                let reader = self.frame().map(|f| f as &dyn LazyBlocks);
                return self
                    .decompressor()
                    .for_each_block_part(&lazy, spans, reader, f);
            }
        }
        let chunk = match self.frame() {
            // The whole chunk from where its lazy form says it is (no second index lookup).
            Some(frame) if h.is_lazy() => Cow::Owned(frame.unlazy(&lazy)?),
            _ => lazy,
        };
        self.decompressor()
            .for_each_block_part(&chunk, spans, None, f)
    }
    fn for_each_item(&self, nitems: usize, f: &(dyn Fn(usize) -> Result<()> + Sync)) -> Result<()> {
        self.decompressor().for_each_item(nitems, f)
    }
    fn compress_chunk(&self, data: &[u8]) -> Result<Vec<u8>> {
        compress_with(&self.compressor(), data)
    }
    fn append_chunk(&mut self, chunk: Cow<'_, [u8]>) -> Result<i64> {
        self.append_chunk_given(chunk.into())
    }
    fn insert_chunk(&mut self, nchunk: i64, chunk: Cow<'_, [u8]>) -> Result<i64> {
        Schunk::insert_chunk_given(self, nchunk, chunk.into())
    }
    /// A borrowed chunk goes into an in-memory list as a copy in a kept buffer (whose pages
    /// are resident, see `crate::kept`), into a frame straight from where it is.
    fn update_chunk(&mut self, nchunk: i64, chunk: Cow<'_, [u8]>) -> Result<i64> {
        self.update_chunk_given(nchunk, chunk.into())
    }
    fn update_chunk_data(&mut self, nchunk: i64, data: &[u8]) -> Result<i64> {
        let compressor = self.compressor();
        if self.frame().is_none() {
            // An in-memory list keeps the buffer the chunk was compressed into, as c-blosc2's
            // b2nd hands its buffer over: no chunk-sized buffer zeroed, no copy (both were
            // 20% of a b2nd_from_cbuffer of an 8 MB LZ4 chunk).
            let chunk = compress_with(&compressor, data)?;
            return ChunkStore::update_chunk(self, nchunk, Cow::Owned(chunk));
        }
        // A frame copies the chunk in, so it gets the compressor's buffer itself: a copy of
        // every chunk on top of it made from_cbuffer's peak RSS 1.10x c-blosc2's on 2 MiB
        // chunks.
        with_compressed(&compressor, data, |chunk| {
            Schunk::update_chunk(self, nchunk, chunk)
        })
    }
    fn updates_in_one_pass(&self) -> bool {
        Schunk::updates_in_one_pass(self)
    }
    fn update_chunks(&mut self, first: i64, chunks: &[Vec<u8>]) -> Result<i64> {
        let chunks: Vec<&[u8]> = chunks.iter().map(|c| &c[..]).collect();
        Schunk::update_chunks(self, first, &chunks)
    }
    fn delete_chunk(&mut self, nchunk: i64) -> Result<i64> {
        Schunk::delete_chunk(self, nchunk)
    }
    fn meta_names(&self) -> Vec<String> {
        self.metalayers().iter().map(|m| m.name.clone()).collect()
    }
    fn meta_get(&self, name: &str) -> Option<Vec<u8>> {
        Schunk::meta_get(self, name).ok().map(<[u8]>::to_vec)
    }
    fn meta_add(&mut self, name: &str, content: &[u8]) -> Result<()> {
        Schunk::meta_add(self, name, content).map(drop)
    }
    fn meta_update(&mut self, name: &str, content: &[u8]) -> Result<()> {
        Schunk::meta_update(self, name, content).map(drop)
    }
    fn vlmeta_names(&self) -> Vec<String> {
        Schunk::vlmeta_names(self)
            .into_iter()
            .map(str::to_string)
            .collect()
    }
    fn vlmeta_get(&self, name: &str) -> Result<Vec<u8>> {
        Schunk::vlmeta_get(self, name)
    }
    fn vlmeta_add(&mut self, name: &str, content: &[u8]) -> Result<()> {
        Schunk::vlmeta_add(self, name, content, None).map(drop)
    }
    /// The super-chunk's own fill (what `b2nd_empty` and friends call): a frame records special
    /// chunks in its index without chunk bytes, as c-blosc2's does.
    fn fill_special(&mut self, nchunks: i64, kind: Special, chunk_nbytes: usize) -> Result<()> {
        if nchunks == 0 {
            return Ok(());
        }
        let chunksize = i32::try_from(chunk_nbytes).map_err(|_| Error::MaxBufsizeExceeded)?;
        let items_per_chunk = (chunk_nbytes / ChunkStore::typesize(self)) as i64;
        let nitems = nchunks
            .checked_mul(items_per_chunk)
            .ok_or(Error::MaxBufsizeExceeded)?;
        Schunk::fill_special(self, nitems, kind, chunksize).map(drop)
    }
}

impl Array<Schunk> {
    /// The array in the frame file (or sparse frame directory) `urlpath` (`b2nd_open`).
    pub fn open(urlpath: &Path) -> Result<Self> {
        Array::from_store(Schunk::open(urlpath)?)
    }

    /// The array in the frame starting at `offset` in file `urlpath` (`b2nd_open_offset`).
    pub fn open_offset(urlpath: &Path, offset: i64) -> Result<Self> {
        Array::from_store(Schunk::open_offset(urlpath, offset)?)
    }

    /// The array serialised in the contiguous frame `cframe` (`b2nd_from_cframe`).
    pub fn from_cframe(cframe: Vec<u8>) -> Result<Self> {
        Array::from_store(Schunk::from_vec(cframe)?)
    }

    /// The array as a contiguous frame (`b2nd_to_cframe`; borrowed when it already is one).
    pub fn to_cframe(&self) -> Result<Cow<'_, [u8]>> {
        self.store().to_buffer()
    }

    /// Writes a copy of the array to `urlpath`, contiguous or sparse as the array's own
    /// storage is (`b2nd_save`).
    pub fn save(&self, urlpath: &Path) -> Result<()> {
        let store = self.store();
        let params = Params {
            cparams: store.cparams().clone(),
            dparams: store.dparams().clone(),
            options: Storage {
                urlpath: Some(urlpath.to_path_buf()),
                ..store.storage().clone()
            },
            shape: self.shape().to_vec(),
            chunkshape: self.chunkshape(),
            blockshape: self.blockshape(),
            dtype: self.dtype().unwrap_or(DEFAULT_DTYPE).to_string(),
            dtype_format: self.dtype_format(),
            metalayers: Vec::new(),
        };
        self.copy::<Schunk>(&params).map(drop)
    }
}

/// A super-chunk some owner keeps (the C layer keeps it in a `blosc2_schunk` handle) lent to
/// the array it holds for one operation, and the stand-in that takes its place meanwhile.
///
/// The array owns its store, so for the length of an operation the super-chunk moves out of its
/// owner's slot into an [`Array`], and an empty super-chunk stands in the slot. Dropping the
/// loan puts the super-chunk back, also while a panic unwinds out of the operation, so the owner
/// never keeps the stand-in.
pub struct LentSchunk<'a> {
    slot: &'a mut Schunk,
    keep: &'a mut LoanKeep,
    array: Option<Array<Schunk>>,
    /// The super-chunk's change tick when lent.
    tick: i64,
}

impl LentSchunk<'_> {
    /// The array the loan made.
    pub fn array(&mut self) -> &mut Array<Schunk> {
        self.array
            .as_mut()
            .expect("the array is only taken out when the loan ends")
    }
}

impl Drop for LentSchunk<'_> {
    fn drop(&mut self) {
        let Some(a) = self.array.take() else {
            return;
        };
        let Array {
            store,
            geom,
            dtype,
            dtype_format,
            view,
        } = a;
        // Kept only when the operation changed no metalayer: one that did (a resize) may have
        // failed between writing the metalayer and updating the geometry.
        if self.tick == store.change_tick() {
            self.keep.layout = Some(KnownLayout::now(&store, geom, dtype, dtype_format, view));
        }
        self.keep.stand_in = Some(std::mem::replace(self.slot, store));
    }
}

/// What an owner keeps between loans of its super-chunk ([`lend_schunk`]): the stand-in for its
/// slot, and the layout the last loan found, which the next one takes instead of parsing the
/// b2nd metalayer again while the super-chunk's metalayers have not changed (its change tick
/// is the same). Parsing it, building the geometry and checking the first chunk against it was
/// a sixth of a `b2nd_copy` of a 100x100 array. A keep serves one owner, whose loans always
/// see the super-chunk through the same map (a view's layout is kept as the view's).
#[derive(Default)]
pub struct LoanKeep {
    stand_in: Option<Schunk>,
    layout: Option<KnownLayout>,
}

impl LoanKeep {
    /// A keep for the loans of a view of `base` (an array on loan now) through `map`: its
    /// first loan takes the view's layout from here instead of parsing the metalayer again.
    pub fn for_view(base: &Array<Schunk>, map: &DimMap) -> Result<LoanKeep> {
        if map.is_identity() {
            return Ok(LoanKeep::for_array(base));
        }
        Ok(LoanKeep::with_layout(
            base,
            map.apply(base.geometry())?,
            true,
        ))
    }

    /// A keep for the loans of `array` itself (just made, or on loan now): its first loan
    /// takes the layout from here (parsing the metalayer of a new 100x100 array cost a
    /// twentieth of a python-blosc2 `asarray` of it in the library).
    pub fn for_array(array: &Array<Schunk>) -> LoanKeep {
        LoanKeep::with_layout(array, array.geometry().clone(), array.is_view())
    }

    fn with_layout(array: &Array<Schunk>, geom: super::shape::Geometry, view: bool) -> LoanKeep {
        LoanKeep {
            stand_in: None,
            layout: Some(KnownLayout::now(
                array.store(),
                geom,
                array.dtype().map(str::to_string),
                array.dtype_format(),
                view,
            )),
        }
    }
}

/// An array layout as the b2nd metalayer of a super-chunk described it at `tick`.
struct KnownLayout {
    tick: i64,
    /// The super-chunk held chunks, so the first one was checked against the geometry.
    with_chunks: bool,
    geom: super::shape::Geometry,
    dtype: Option<String>,
    dtype_format: i8,
    /// The loan was of a view (its owner's map is fixed, so the geometry is the view's).
    view: bool,
}

impl KnownLayout {
    /// The layout of an array on `store` as it stands now.
    fn now(
        store: &Schunk,
        geom: super::shape::Geometry,
        dtype: Option<String>,
        dtype_format: i8,
        view: bool,
    ) -> KnownLayout {
        KnownLayout {
            tick: store.change_tick(),
            with_chunks: store.nchunks() > 0,
            geom,
            dtype,
            dtype_format,
            view,
        }
    }
}

/// Lends the super-chunk in `slot` to the array its b2nd metalayer describes (seen through
/// `map` for a view of it): `keep`'s stand-in (or a new [`Schunk::placeholder`]) takes its
/// place until the loan is dropped, which puts it back and keeps the stand-in in `keep` for
/// the next loan. A super-chunk that holds no such array stays in `slot`.
pub fn lend_schunk<'a>(
    slot: &'a mut Schunk,
    keep: &'a mut LoanKeep,
    map: Option<&DimMap>,
) -> Result<LentSchunk<'a>> {
    let stand_in = match keep.stand_in.take() {
        Some(s) => s,
        None => Schunk::placeholder()?,
    };
    let store = std::mem::replace(slot, stand_in);
    let tick = store.change_tick();
    let known = keep
        .layout
        .take()
        .filter(|k| k.tick == tick && (k.with_chunks || store.nchunks() == 0));
    let array = match (known, map) {
        (Some(k), _) => Ok(Array {
            store,
            geom: k.geom,
            dtype: k.dtype,
            dtype_format: k.dtype_format,
            view: k.view,
        }),
        (None, Some(map)) => Array::view_of_or_back(store, map),
        (None, None) => Array::from_store_or_back(store),
    };
    match array {
        Ok(a) => Ok(LentSchunk {
            slot,
            keep,
            array: Some(a),
            tick,
        }),
        Err((e, store)) => {
            keep.stand_in = Some(std::mem::replace(slot, store));
            Err(e)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::io::LockingFileIo;
    use crate::frame::lock::sidecar_path;
    use std::sync::Arc;

    /// A chunk updated from borrowed bytes (a concatenation copying another array's chunks)
    /// goes into an in-memory list in a kept buffer, whose pages are resident: a fresh one per
    /// chunk, while dropped results' buffers sat kept, faulted ~9 MB a call into the heap in
    /// python-blosc2's `stack` (5-6 ms against c-blosc2's 1.1).
    #[test]
    fn borrowed_chunks_go_into_kept_buffers() {
        let mut state = 7u64;
        let noisy: Vec<u8> = (0..180_000)
            .map(|_| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                (state >> 33) as u8
            })
            .collect();
        let mut src = Schunk::new(Storage::default()).unwrap();
        src.append_buffer(&noisy).unwrap();
        let chunk = src.get_chunk(0).unwrap().into_owned();
        // As in a concatenation: the slot holds a special-value chunk (resize added it).
        let mut sc = Schunk::new(Storage::default()).unwrap();
        sc.fill_special(1, Special::Zero, noisy.len() as i32)
            .unwrap();
        // An odd capacity that fits this chunk (no more than an eighth wasted) and no other
        // test's.
        let spare: Vec<u8> = Vec::with_capacity(chunk.len() + 9_999);
        let at = spare.as_ptr();
        crate::kept::keep([spare]);
        ChunkStore::update_chunk(&mut sc, 0, Cow::Borrowed(&chunk)).unwrap();
        let list = sc.chunk_list().unwrap();
        assert_eq!(&list[0][..], &chunk[..]);
        assert_eq!(list[0].as_ptr(), at);
        assert_eq!(sc.decompress_chunk_vec(0).unwrap(), noisy);
    }

    /// With a locking backend the array's super-chunk takes the frame lock once per change,
    /// and resize and set_slice_cbuffer once in all, as c-blosc2 does (capi-tests/b2nd_lock.c
    /// compares every call with the reference).
    #[test]
    fn changes_bump_the_generation_as_c_blosc2() {
        let path = std::env::temp_dir().join(format!("rblosc2-b2nd-lock-{}", std::process::id()));
        let _ = crate::urlpath::remove_urlpath(&path);
        let _ = std::fs::remove_file(sidecar_path(&path, false));
        let generation = || {
            let b = std::fs::read(sidecar_path(&path, false)).unwrap_or_default();
            b.get(8..16)
                .map_or(-1, |g| u64::from_ne_bytes(g.try_into().unwrap()) as i64)
        };
        let mut params = Params::<Storage>::new(
            CParams {
                typesize: 4,
                ..Default::default()
            },
            &[25, 25],
            &[10, 10],
            &[5, 5],
        );
        params.options = Storage {
            contiguous: true,
            urlpath: Some(path.clone()),
            io: Arc::new(LockingFileIo),
            ..Default::default()
        };
        // The b2nd metalayer, then all chunks as zeros.
        let mut a = Array::<Schunk>::zeros(&params).unwrap();
        assert_eq!(generation(), 2);
        let data: Vec<u8> = (0..625u32).flat_map(|i| i.to_le_bytes()).collect();
        a.set_slice_cbuffer(&data, &[25, 25], &[0, 0], &[25, 25])
            .unwrap();
        assert_eq!(generation(), 3, "nine chunks rewritten as one change");
        let mut out = vec![0u8; data.len()];
        a.to_cbuffer(&mut out).unwrap();
        assert_eq!(
            (out == data, generation()),
            (true, 3),
            "reads change nothing"
        );
        a.resize(&[30, 25], None).unwrap();
        assert_eq!(
            generation(),
            4,
            "chunks inserted and the metalayer as one change"
        );
        a.insert(&data[..10 * 25 * 4], 0, 0).unwrap();
        assert_eq!(generation(), 6, "a resize and a slice");
        drop(a);
        // (The sidecar goes with the frame.)
        crate::urlpath::remove_urlpath(&path).unwrap();
        assert_eq!(generation(), -1);
    }

    /// A super-chunk holding only a b2nd metalayer opens as an array, as c-blosc2 opens it,
    /// even when its chunks could not exist (2^30 + 128 items of 4 bytes each, over what a
    /// Blosc chunk holds): reading or writing through it is a bad parameter, and creating
    /// such an array a too-large buffer. Chunks the store lacks fail when read.
    #[test]
    fn metalayer_only_super_chunks_open() {
        let only_meta = |n: i64, chunk: i32, block: i32| {
            let mut sc = Schunk::new(Storage {
                cparams: CParams {
                    typesize: 4,
                    ..Default::default()
                },
                ..Default::default()
            })
            .unwrap();
            let smeta =
                super::super::meta::serialize(&[n], &[chunk], &[block], Some("<i4"), 0).unwrap();
            sc.meta_add("b2nd", &smeta).unwrap();
            sc
        };
        let items = (1 << 30) + 128;
        let a = Array::from_store(only_meta(items as i64, items, 128)).unwrap();
        assert_eq!((a.nitems(), a.chunkshape()), (items as i64, vec![items]));
        let mut out = [0u8; 8];
        assert_eq!(
            a.get_slice_cbuffer(&[0], &[1], &mut out, &[1]),
            Err(Error::InvalidParam)
        );
        let sel: &[i64] = &[0];
        assert_eq!(
            a.get_orthogonal_selection(&[sel], &mut out, &[1]),
            Err(Error::InvalidParam)
        );
        let params = Params::<Storage>::new(
            CParams {
                typesize: 4,
                ..Default::default()
            },
            &[items as i64],
            &[items],
            &[128],
        );
        assert_eq!(
            Array::<Schunk>::zeros(&params).err(),
            Some(Error::MaxBufsizeExceeded)
        );
        // An ordinary geometry whose four chunks are missing.
        let a = Array::from_store(only_meta(100, 30, 10)).unwrap();
        assert_eq!(a.store().nchunks(), 0);
        assert!(a.get_slice_cbuffer(&[0], &[1], &mut out, &[1]).is_err());
    }

    /// The super-chunk of a zero-filled 4-byte array of `shape` (10x10 chunks, 5x5 blocks).
    fn zeros_schunk(shape: &[i64]) -> Schunk {
        let params = Params::<Storage>::new(
            CParams {
                typesize: 4,
                ..Default::default()
            },
            shape,
            &[10, 10],
            &[5, 5],
        );
        Array::<Schunk>::zeros(&params).unwrap().into_store()
    }

    /// A loan takes the layout the last one found while the metalayers are unchanged, and
    /// parses the metalayer again once they changed: through the super-chunk (another shape
    /// written into "b2nd") or through the array (a resize inside the loan).
    #[test]
    fn loans_reuse_the_layout_until_a_metalayer_changes() {
        let mut slot = zeros_schunk(&[20, 20]);
        let mut keep = LoanKeep::default();
        let shape = |slot: &mut Schunk, keep: &mut LoanKeep| {
            lend_schunk(slot, keep, None)
                .unwrap()
                .array()
                .shape()
                .to_vec()
        };
        assert_eq!(shape(&mut slot, &mut keep), [20, 20]);
        assert!(keep.layout.is_some());
        assert_eq!(shape(&mut slot, &mut keep), [20, 20]);
        // Another shape written into the metalayer (same chunks: 2x2 of 10x10).
        let other =
            crate::b2nd_meta::serialize(&[20, 15], &[10, 10], &[5, 5], Some("<i4"), 0).unwrap();
        slot.meta_update("b2nd", &other).unwrap();
        assert_eq!(shape(&mut slot, &mut keep), [20, 15]);
        {
            let mut lent = lend_schunk(&mut slot, &mut keep, None).unwrap();
            lent.array().resize(&[30, 15], None).unwrap();
        }
        assert!(keep.layout.is_none());
        assert_eq!(shape(&mut slot, &mut keep), [30, 15]);
        assert_eq!(shape(&mut slot, &mut keep), [30, 15]);
    }

    /// A view's handle starts from the layout its base's loan derived, and parses the
    /// metalayer again once the base's metalayers changed.
    #[test]
    fn a_view_keep_starts_from_its_base_and_follows_its_changes() {
        let mut slot = zeros_schunk(&[20, 20]);
        let map = DimMap::identity(2).expand(&[false, true, false]).unwrap();
        let mut keep = {
            let mut base_keep = LoanKeep::default();
            let mut lent = lend_schunk(&mut slot, &mut base_keep, None).unwrap();
            LoanKeep::for_view(lent.array(), &map).unwrap()
        };
        let view = |slot: &mut Schunk, keep: &mut LoanKeep| {
            let mut lent = lend_schunk(slot, keep, Some(&map)).unwrap();
            let a = lent.array();
            (a.shape().to_vec(), a.is_view())
        };
        assert!(keep.layout.as_ref().is_some_and(|k| k.view));
        assert_eq!(view(&mut slot, &mut keep), (vec![20, 1, 20], true));
        let other =
            crate::b2nd_meta::serialize(&[30, 20], &[10, 10], &[5, 5], Some("<i4"), 0).unwrap();
        slot.meta_update("b2nd", &other).unwrap();
        assert_eq!(view(&mut slot, &mut keep), (vec![30, 1, 20], true));
    }

    /// A loan gives the array its super-chunk and puts it back when it goes: after a normal
    /// end, after a panic inside the operation, and (never moved) when the super-chunk holds
    /// no array; the stand-in stays in `keep` for the next loan.
    #[test]
    fn a_loan_always_gives_the_super_chunk_back() {
        let mut slot = zeros_schunk(&[25, 25]);
        let mut keep = LoanKeep::default();
        {
            let mut lent = lend_schunk(&mut slot, &mut keep, None).unwrap();
            assert_eq!(lent.array().shape(), &[25, 25]);
            let data: Vec<u8> = (0..625u32).flat_map(|i| i.to_le_bytes()).collect();
            lent.array()
                .set_slice_cbuffer(&data, &[25, 25], &[0, 0], &[25, 25])
                .unwrap();
        }
        assert_eq!(slot.nchunks(), 9);
        assert_eq!(keep.stand_in.as_ref().map(|s| s.nchunks()), Some(0));
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut lent = lend_schunk(&mut slot, &mut keep, None).unwrap();
            lent.array().resize(&[35, 25], None).unwrap();
            panic!("inside the operation");
        }));
        assert!(r.is_err());
        // The super-chunk is back (resized, as the operation left it), not the stand-in.
        assert_eq!(slot.nchunks(), 12);
        assert!(slot.meta_exists("b2nd").is_ok());
        assert!(keep.stand_in.is_some());
        let mut plain = Schunk::new(Storage::default()).unwrap();
        plain.append_buffer(&[7u8; 400]).unwrap();
        assert_eq!(
            lend_schunk(&mut plain, &mut keep, None).err(),
            Some(Error::MetalayerNotFound)
        );
        assert_eq!(plain.nchunks(), 1);
        assert!(keep.stand_in.is_some());
    }
}
