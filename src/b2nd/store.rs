//! What a b2nd array needs from the container that holds its chunks (a super-chunk in
//! c-blosc2), and an in-memory implementation.

use super::scratch::Scratch;
use crate::chunk::decompress::{BlockSpan, DecodedPart};
use crate::chunk::header::{Special, EXTENDED_HEADER_LENGTH, MAX_OVERHEAD};
use crate::chunk::{special, CParams, ChunkHeader, Compressor, DParams, Decompressor};
use crate::frame::lock::LockGuard;
use crate::{Error, Result};
use std::borrow::Cow;
use std::sync::Arc;

/// A sequence of compressed chunks with metalayers and compression parameters.
pub trait ChunkStore: Sized + Sync {
    /// Where and how a new store is kept (file name, contiguous or sparse, ...).
    type Options: Clone + Default;

    /// A new empty store compressing with `cparams`.
    fn create(cparams: CParams, dparams: DParams, options: &Self::Options) -> Result<Self>;
    /// The parameters new chunks are compressed with.
    fn cparams(&self) -> &CParams;
    /// The parameters chunks are decompressed with.
    fn dparams(&self) -> &DParams;
    /// The parameters of the decompressor in use, which a C client may have swapped in for one
    /// of its own (python-blosc2 does on every array it opens, and for a postfilter) while
    /// [`ChunkStore::dparams`] stays the store's record, which derived stores inherit (as
    /// c-blosc2 reads `schunk->dctx` to decompress and `storage->dparams` to copy), handed to
    /// `f` (read in every slice: not cloned).
    fn with_decoding_params<R>(&self, f: impl FnOnce(&DParams) -> R) -> R {
        f(self.dparams())
    }
    /// The options a store derived from this one (an array view) is created with.
    fn options(&self) -> Self::Options;
    /// Bytes of one item: the cparams' typesize, at least 1.
    fn typesize(&self) -> usize {
        self.cparams().typesize.max(1) as usize
    }

    /// Number of chunks held.
    fn nchunks(&self) -> i64;
    /// The compressed bytes of chunk `nchunk`.
    fn chunk(&self, nchunk: i64) -> Result<Cow<'_, [u8]>>;
    /// Uncompressed bytes of chunk `nchunk`, from its header (a store on disk reads no more).
    fn chunk_nbytes(&self, nchunk: i64) -> Result<i32> {
        Ok(ChunkHeader::parse(&self.chunk(nchunk)?)?.nbytes)
    }
    /// Decompresses chunk `nchunk` into `dst`, skipping the blocks `maskout` marks `true`.
    /// Every block not skipped is written: an uninitialised special-value chunk reads as zeros
    /// (the decompressor leaves such bytes untouched, and `dst` may hold another chunk).
    fn decompress_chunk(
        &self,
        nchunk: i64,
        dst: &mut [u8],
        maskout: Option<&[bool]>,
    ) -> Result<usize>;
    /// Decodes the byte spans of blocks of chunk `nchunk` one at a time,
    /// handing each to `f` with its index in `spans` (see `Decompressor::for_each_block_part`);
    /// `Ok(false)`, with `f` not called, when the chunk must be decompressed whole instead.
    fn for_each_block_part(
        &self,
        nchunk: i64,
        spans: &[BlockSpan],
        f: &mut dyn FnMut(usize, &DecodedPart<'_>) -> Result<()>,
    ) -> Result<bool>;
    /// Runs `f(item)` for every item in `0..nitems`, on the store's decompression threads
    /// when it has several; returns the error of the lowest failed item.
    fn for_each_item(&self, nitems: usize, f: &(dyn Fn(usize) -> Result<()> + Sync)) -> Result<()> {
        (0..nitems).try_for_each(f)
    }
    /// Compresses `data` as one chunk with the store's parameters.
    fn compress_chunk(&self, data: &[u8]) -> Result<Vec<u8>>;
    /// Adds a compressed chunk at the end; returns the new number of chunks.
    /// Appends a compressed chunk, copied only where the store must own it (a file-backed
    /// super-chunk writes a borrowed chunk straight to the file).
    fn append_chunk(&mut self, chunk: Cow<'_, [u8]>) -> Result<i64>;
    /// Inserts a compressed chunk before position `nchunk` (copied only where the store must
    /// own it, as [`ChunkStore::append_chunk`]); returns the new number of chunks.
    fn insert_chunk(&mut self, nchunk: i64, chunk: Cow<'_, [u8]>) -> Result<i64>;
    /// Replaces chunk `nchunk` (the chunk copied only where the store must own it); returns
    /// the number of chunks.
    fn update_chunk(&mut self, nchunk: i64, chunk: Cow<'_, [u8]>) -> Result<i64>;
    /// Compresses `data` with the store's parameters and replaces chunk `nchunk` with the
    /// result; returns the number of chunks.
    fn update_chunk_data(&mut self, nchunk: i64, data: &[u8]) -> Result<i64> {
        let chunk = self.compress_chunk(data)?;
        self.update_chunk(nchunk, Cow::Owned(chunk))
    }
    /// Whether [`ChunkStore::update_chunks`] commits chunks that sit next to each other in one
    /// pass, so that a caller rewriting several gains by handing them over together.
    fn updates_in_one_pass(&self) -> bool {
        false
    }
    /// Replaces chunks `first`, `first + 1`, ... with `chunks` (compressed), ending as
    /// [`ChunkStore::update_chunk`] of each in turn; returns the number of chunks.
    fn update_chunks(&mut self, first: i64, chunks: &[Vec<u8>]) -> Result<i64> {
        let mut n = self.nchunks();
        for (k, chunk) in chunks.iter().enumerate() {
            n = self.update_chunk(first + k as i64, Cow::Borrowed(chunk))?;
        }
        Ok(n)
    }
    /// Removes chunk `nchunk`; returns the new number of chunks.
    fn delete_chunk(&mut self, nchunk: i64) -> Result<i64>;

    /// Names of the fixed-length metalayers, in order.
    fn meta_names(&self) -> Vec<String>;
    /// The content of metalayer `name`, if there is one.
    fn meta_get(&self, name: &str) -> Option<Vec<u8>>;
    /// Adds metalayer `name`; fails with [`Error::InvalidParam`] if it exists.
    fn meta_add(&mut self, name: &str, content: &[u8]) -> Result<()>;
    /// Replaces the content of existing metalayer `name`; metalayers are fixed-length, so a
    /// longer `content` fails with [`Error::InvalidParam`].
    fn meta_update(&mut self, name: &str, content: &[u8]) -> Result<()>;

    /// Names of the variable-length metalayers, in order.
    fn vlmeta_names(&self) -> Vec<String>;
    /// The (uncompressed) content of vlmetalayer `name`.
    fn vlmeta_get(&self, name: &str) -> Result<Vec<u8>>;
    /// Adds vlmetalayer `name` holding `content` (stored compressed).
    fn vlmeta_add(&mut self, name: &str, content: &[u8]) -> Result<()>;

    /// Marks the store as being built by the call that created it, or done; returns the
    /// previous mark (see [`crate::schunk::Schunk::building`]). Stores that are not files keep
    /// nothing to protect: the default ignores it.
    fn set_building(&mut self, _on: bool) -> bool {
        false
    }

    /// Holds the store's cross-process lock until the guard goes (exclusive: for a change),
    /// so that other handles see several chunk changes as one, and do not change the store
    /// under a read. Stores no one else shares hold nothing.
    fn hold(&self, exclusive: bool) -> Result<LockGuard> {
        LockGuard::acquire(None, exclusive)
    }

    /// A special-value chunk (zeros, NaNs, uninitialised, or `value` repeated) of `nbytes`.
    fn special_chunk(&self, kind: Special, nbytes: usize, value: Option<&[u8]>) -> Result<Vec<u8>> {
        let nbytes = i32::try_from(nbytes).map_err(|_| Error::MaxBufsizeExceeded)?;
        let mut dst = vec![0u8; EXTENDED_HEADER_LENGTH + self.typesize()];
        let n = special::make(self.cparams(), kind, nbytes, value, &mut dst)?;
        dst.truncate(n);
        Ok(dst)
    }

    /// Appends `nchunks` special chunks of `chunk_nbytes` each (what
    /// `blosc2_schunk_fill_special` does for a fresh super-chunk).
    fn fill_special(&mut self, nchunks: i64, kind: Special, chunk_nbytes: usize) -> Result<()> {
        let chunk = self.special_chunk(kind, chunk_nbytes, None)?;
        for _ in 0..nchunks {
            self.append_chunk(Cow::Borrowed(&chunk))?;
        }
        Ok(())
    }
}

/// `maskout` if it fits the chunk's blocks, else `None` (decompress everything): special-value
/// chunks have a single block whatever the array's block shape, and a mask is only an
/// optimisation.
pub(crate) fn usable_maskout<'m>(chunk: &[u8], maskout: Option<&'m [bool]>) -> Option<&'m [bool]> {
    let m = maskout?;
    let h = ChunkHeader::parse(chunk).ok()?;
    (h.nblocks_leftover().0 == m.len()).then_some(m)
}

/// Decompresses `chunk` as `ChunkStore::decompress_chunk` requires: the mask only when it fits,
/// and zeros for an uninitialised chunk.
pub(crate) fn decompress_defined(
    decompressor: &Decompressor,
    chunk: &[u8],
    dst: &mut [u8],
    maskout: Option<&[bool]>,
) -> Result<usize> {
    let h = ChunkHeader::parse(chunk)?;
    if h.special_raw() == Special::Uninit as u8 {
        let n = usize::try_from(h.nbytes).map_err(|_| Error::InvalidHeader)?;
        dst.get_mut(..n).ok_or(Error::WriteBuffer)?.fill(0);
        return Ok(n);
    }
    decompressor.decompress(chunk, dst, usable_maskout(chunk, maskout))
}

/// [`crate::schunk::compress_list_chunk`] with c-blosc2's b2nd answer to any compression error
/// (a filter that refuses the data, say): BLOSC2_ERROR_FAILURE.
pub(crate) fn compress_with(compressor: &Compressor, data: &[u8]) -> Result<Vec<u8>> {
    crate::schunk::compress_list_chunk(compressor, data).map_err(|_| Error::Failure)
}

/// Compresses `data` as one chunk into this thread's reused buffer and runs `f` on the
/// compressed bytes (for a store that copies them anyway: no chunk-sized copy of its own).
pub(crate) fn with_compressed<R>(
    compressor: &Compressor,
    data: &[u8],
    f: impl FnOnce(&[u8]) -> Result<R>,
) -> Result<R> {
    let mut dst = Scratch::compressed();
    // Appended to, not zeroed first: only the chunk's bytes are written.
    dst.clear();
    dst.reserve(data.len() + MAX_OVERHEAD);
    // c-blosc2's b2nd answers any compression error (a filter that refuses the data, say)
    // with BLOSC2_ERROR_FAILURE.
    match compressor.compress_to_vec(data, &mut dst) {
        Ok(n) if n > 0 => f(&dst[..n]),
        _ => Err(Error::Failure),
    }
}

/// Chunks and metalayers kept in memory.
pub struct MemStore {
    compressor: Compressor,
    decompressor: Decompressor,
    chunks: Vec<Vec<u8>>,
    metalayers: Vec<(String, Vec<u8>)>,
    vlmetalayers: Vec<(String, Vec<u8>)>,
}

impl MemStore {
    /// Hands the contexts the layout of the "b2nd" metalayer (for ndcell and ndmean), as a
    /// super-chunk does.
    fn refresh_layout(&mut self) {
        let typesize = self.compressor.params().typesize;
        let layout = self
            .meta_get(super::meta::META_NAME)
            .and_then(|m| super::meta::layout(&m, typesize))
            .map(Arc::new);
        self.compressor.set_layout(layout.clone());
        self.decompressor.set_layout(layout);
    }

    fn index(&self, nchunk: i64, len: usize) -> Result<usize> {
        usize::try_from(nchunk)
            .ok()
            .filter(|i| *i < len)
            .ok_or(Error::InvalidIndex)
    }
}

impl ChunkStore for MemStore {
    type Options = ();

    fn create(cparams: CParams, dparams: DParams, _: &()) -> Result<Self> {
        Ok(MemStore {
            compressor: Compressor::new(cparams)?,
            decompressor: Decompressor::new(dparams)?,
            chunks: Vec::new(),
            metalayers: Vec::new(),
            vlmetalayers: Vec::new(),
        })
    }
    fn cparams(&self) -> &CParams {
        self.compressor.params()
    }
    fn dparams(&self) -> &DParams {
        self.decompressor.params()
    }
    fn options(&self) {}
    fn nchunks(&self) -> i64 {
        self.chunks.len() as i64
    }
    fn chunk(&self, nchunk: i64) -> Result<Cow<'_, [u8]>> {
        let i = self.index(nchunk, self.chunks.len())?;
        Ok(Cow::Borrowed(&self.chunks[i]))
    }
    fn decompress_chunk(
        &self,
        nchunk: i64,
        dst: &mut [u8],
        maskout: Option<&[bool]>,
    ) -> Result<usize> {
        let i = self.index(nchunk, self.chunks.len())?;
        let chunk = &self.chunks[i];
        decompress_defined(&self.decompressor, chunk, dst, maskout)
    }
    fn for_each_block_part(
        &self,
        nchunk: i64,
        spans: &[BlockSpan],
        f: &mut dyn FnMut(usize, &DecodedPart<'_>) -> Result<()>,
    ) -> Result<bool> {
        let i = self.index(nchunk, self.chunks.len())?;
        self.decompressor
            .for_each_block_part(&self.chunks[i], spans, None, f)
    }
    fn for_each_item(&self, nitems: usize, f: &(dyn Fn(usize) -> Result<()> + Sync)) -> Result<()> {
        self.decompressor.for_each_item(nitems, f)
    }
    fn compress_chunk(&self, data: &[u8]) -> Result<Vec<u8>> {
        compress_with(&self.compressor, data)
    }
    fn append_chunk(&mut self, chunk: Cow<'_, [u8]>) -> Result<i64> {
        self.chunks.push(chunk.into_owned());
        Ok(self.chunks.len() as i64)
    }
    fn insert_chunk(&mut self, nchunk: i64, chunk: Cow<'_, [u8]>) -> Result<i64> {
        let i = self.index(nchunk, self.chunks.len() + 1)?;
        self.chunks.insert(i, chunk.into_owned());
        Ok(self.chunks.len() as i64)
    }
    fn update_chunk(&mut self, nchunk: i64, chunk: Cow<'_, [u8]>) -> Result<i64> {
        let i = self.index(nchunk, self.chunks.len())?;
        self.chunks[i] = chunk.into_owned();
        Ok(self.chunks.len() as i64)
    }
    fn delete_chunk(&mut self, nchunk: i64) -> Result<i64> {
        let i = self.index(nchunk, self.chunks.len())?;
        self.chunks.remove(i);
        Ok(self.chunks.len() as i64)
    }
    fn meta_names(&self) -> Vec<String> {
        self.metalayers.iter().map(|(n, _)| n.clone()).collect()
    }
    fn meta_get(&self, name: &str) -> Option<Vec<u8>> {
        self.metalayers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, c)| c.clone())
    }
    fn meta_add(&mut self, name: &str, content: &[u8]) -> Result<()> {
        if self.meta_get(name).is_some() {
            return Err(Error::InvalidParam);
        }
        self.metalayers.push((name.to_string(), content.to_vec()));
        self.refresh_layout();
        Ok(())
    }
    fn meta_update(&mut self, name: &str, content: &[u8]) -> Result<()> {
        let m = self
            .metalayers
            .iter_mut()
            .find(|(n, _)| n == name)
            .ok_or(Error::MetalayerNotFound)?;
        // Metalayers are fixed-length in a frame: an update cannot grow them.
        if content.len() > m.1.len() {
            return Err(Error::InvalidParam);
        }
        m.1 = content.to_vec();
        self.refresh_layout();
        Ok(())
    }
    fn vlmeta_names(&self) -> Vec<String> {
        self.vlmetalayers.iter().map(|(n, _)| n.clone()).collect()
    }
    fn vlmeta_get(&self, name: &str) -> Result<Vec<u8>> {
        self.vlmetalayers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, c)| c.clone())
            .ok_or(Error::NotFound)
    }
    fn vlmeta_add(&mut self, name: &str, content: &[u8]) -> Result<()> {
        if self.vlmetalayers.iter().any(|(n, _)| n == name) {
            return Err(Error::InvalidParam);
        }
        self.vlmetalayers.push((name.to_string(), content.to_vec()));
        Ok(())
    }
}
