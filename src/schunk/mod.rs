//! Super-chunks: a sequence of chunks sharing compression parameters, with metalayers
//! (fixed-size, in the frame header) and vlmetalayers (compressed, in the frame trailer), kept
//! either as a plain list of chunks in memory or in a frame (see `crate::frame`).

mod chunks;
pub use chunks::ONE_PASS_BYTES;
mod copy;
pub mod env;
mod fingerprint;
pub use fingerprint::{FingerprintMode, FINGERPRINT_ENV};
mod meta;
mod open;
mod read;
mod sharing;
pub use sharing::read_shared;
mod slices;
mod storage;
pub(crate) use storage::compress_list_chunk;
use storage::Chunks;
pub use storage::{GivenChunk, HandedChunk, Handover, ListChunk};

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use crate::chunk::{CParams, Compressor, DParams, Decompressor};
use crate::frame::io::{FileIo, Io};
use crate::frame::lock::FrameLock;
use crate::frame::{Frame, Meta};
use crate::Result;

/// Where a super-chunk keeps its chunks (the core of `blosc2_storage`).
#[derive(Clone)]
pub struct Storage {
    /// A contiguous frame (true) or chunks kept apart: a list in memory, or an sframe on disk.
    pub contiguous: bool,
    /// A file (contiguous) or directory (sparse); `None` keeps everything in memory.
    pub urlpath: Option<PathBuf>,
    /// Parameters every chunk the super-chunk compresses uses.
    pub cparams: CParams,
    /// Parameters chunks are decompressed with.
    pub dparams: DParams,
    /// How files are opened (stdio by default; a user backend otherwise).
    pub io: Arc<dyn Io>,
    /// What the owner changes in `cparams` for the compressor the super-chunk builds itself
    /// (None: nothing). The super-chunk's parameters (`Schunk::cparams`, the frame header)
    /// stay `cparams`.
    pub compressor_adjust: Option<CParamsAdjust>,
}

pub use crate::chunk::params::CParamsAdjust;

impl Storage {
    /// The parameters the super-chunk's own compressor is built from: `cparams` as
    /// `compressor_adjust` changes them.
    pub fn compressor_cparams(&self) -> CParams {
        let mut c = self.cparams.clone();
        if let Some(adjust) = &self.compressor_adjust {
            adjust(&mut c);
        }
        c
    }
}

impl Default for Storage {
    fn default() -> Self {
        Storage {
            contiguous: false,
            urlpath: None,
            cparams: CParams::default(),
            dparams: DParams::default(),
            io: Arc::new(FileIo),
            compressor_adjust: None,
        }
    }
}

/// What [`Schunk::set_chunk_observer`] takes.
pub type ChunkObserver = Arc<dyn Fn(i64) + Send + Sync>;

/// A super-chunk.
pub struct Schunk {
    storage: Storage,
    /// What chunks are compressed and decompressed with: built from `storage`'s parameters,
    /// or put in by the owner ([`Schunk::use_compressor`], [`Schunk::use_decompressor`]). Behind
    /// locks so that an owner may swap the decompressor while threads read (each read takes
    /// the one current when it starts).
    compressor: RwLock<Arc<Compressor>>,
    decompressor: RwLock<Arc<Decompressor>>,
    /// Bumped by every change to the metalayers or vlmetalayers and by a refresh that re-read
    /// the frame, never lowered: a cheap "did anything but chunks change since I looked".
    change_tick: i64,
    /// The first position of the in-memory chunk list whose buffer changed since
    /// [`Schunk::take_list_changes`] was last called (None: nothing changed), for owners that
    /// mirror the list.
    list_changed_from: Option<usize>,
    /// Told the number of each chunk the super-chunk is about to decompress for its own
    /// operations, before the decompressor's callbacks run (c-blosc2's postfilters read it as
    /// `schunk->current_nchunk`).
    chunk_observer: Option<ChunkObserver>,
    /// -1 until the first chunk arrives; 0 for variable-size chunks.
    chunksize: i32,
    blocksize: i32,
    nbytes: i64,
    cbytes: i64,
    /// `blosc2_flags2` of the chunks (VL blocks).
    flags2: u8,
    metas: Vec<Meta>,
    vlmetas: Vec<Meta>,
    chunks: Chunks,
    /// The cross-process frame lock, for a frame on disk whose I/O backend asks for it.
    lock: Option<Arc<FrameLock>>,
    /// What is done with fingerprints (docs/FINGERPRINTS.md).
    fingerprint: FingerprintMode,
}

/// The local path of a urlpath: c-blosc2 drops a leading "file:///" (and only that).
pub fn local_path(urlpath: &Path) -> PathBuf {
    match urlpath.to_str().and_then(|s| s.strip_prefix("file:///")) {
        Some(rest) => PathBuf::from(rest),
        None => urlpath.to_path_buf(),
    }
}

impl Schunk {
    // ----- properties ----------------------------------------------------------------------

    /// Where the chunks live and with which parameters (the urlpath without `file:///`).
    pub fn storage(&self) -> &Storage {
        &self.storage
    }
    /// The compression parameters (for a reopened frame: those its header records).
    pub fn cparams(&self) -> &CParams {
        &self.storage.cparams
    }
    /// The decompression parameters.
    pub fn dparams(&self) -> &DParams {
        &self.storage.dparams
    }
    /// The compressor chunks are compressed with (for callers that compress chunks
    /// themselves): built from `cparams`, or the one given to [`Schunk::use_compressor`].
    pub fn compressor(&self) -> Arc<Compressor> {
        self.compressor
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
    /// The decompressor chunks are decompressed with: built from `dparams`, or the one given
    /// to [`Schunk::use_decompressor`].
    pub fn decompressor(&self) -> Arc<Decompressor> {
        self.decompressor
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
    /// Compresses from now on with `compressor` (its parameters become the super-chunk's, as
    /// when c-blosc2's client swaps `schunk->cctx` with the matching `storage->cparams`); the
    /// array layout stays the super-chunk's.
    pub fn use_compressor(&mut self, mut compressor: Compressor) {
        compressor.set_layout(self.storage.cparams.layout.clone());
        let mut cparams = compressor.params().clone();
        cparams.layout = self.storage.cparams.layout.clone();
        self.storage.cparams = cparams;
        self.set_compressor(compressor);
    }
    /// Decompresses from now on with `decompressor` (a postfilter, another thread count);
    /// reads already started finish with the previous one.
    pub fn use_decompressor(&self, mut decompressor: Decompressor) {
        decompressor.set_layout(self.storage.dparams.layout.clone());
        self.set_decompressor(decompressor);
    }
    fn set_compressor(&self, c: Compressor) {
        *self.compressor.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(c);
    }

    fn set_decompressor(&self, d: Decompressor) {
        *self.decompressor.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(d);
    }

    /// Compresses and decompresses from now on with `nthreads_c` and `nthreads_d` threads
    /// (engines rebuilt from the super-chunk's parameters with these counts, which the frame
    /// header records at its next write, as c-blosc2's records its contexts' counts).
    pub fn set_nthreads(&mut self, nthreads_c: i16, nthreads_d: i16) -> Result<()> {
        let (c, d) = (&mut self.storage.cparams, &mut self.storage.dparams);
        if (c.nthreads, d.nthreads) == (nthreads_c, nthreads_d) {
            return Ok(());
        }
        c.nthreads = nthreads_c;
        d.nthreads = nthreads_d;
        self.use_own_compressor()?;
        self.use_own_decompressor()
    }
    /// Goes back to a compressor built from the super-chunk's parameters.
    pub fn use_own_compressor(&mut self) -> Result<()> {
        let c = Compressor::new(self.storage.compressor_cparams())?;
        self.set_compressor(c);
        Ok(())
    }
    /// Builds its own compressors from now on with the parameters `adjust` changes (see
    /// [`Storage::compressor_adjust`]), starting with a new one now.
    pub fn set_compressor_adjust(&mut self, adjust: Option<CParamsAdjust>) -> Result<()> {
        if let Chunks::Frame(f) = &mut self.chunks {
            f.set_offsets_adjust(adjust.clone());
        }
        self.storage.compressor_adjust = adjust;
        self.use_own_compressor()
    }
    /// Goes back to a decompressor built from the super-chunk's parameters.
    pub fn use_own_decompressor(&self) -> Result<()> {
        let d = Decompressor::new(self.storage.dparams.clone())?;
        self.set_decompressor(d);
        Ok(())
    }
    /// How many times the metalayers, the vlmetalayers or (through a refresh) the frame
    /// changed since the super-chunk was made or opened (c-blosc2's `change_tick`).
    pub fn change_tick(&self) -> i64 {
        self.change_tick
    }
    /// The chunks of a super-chunk kept as a list in memory, in order (None for frames).
    pub fn chunk_list(&self) -> Option<&[ListChunk]> {
        self.chunks.list()
    }
    /// The first position from which [`Schunk::chunk_list`] holds other buffers than when
    /// this was last called (None when it holds the same ones); positions past the list's end
    /// count as changed when the list shrank.
    pub fn take_list_changes(&mut self) -> Option<usize> {
        self.list_changed_from.take()
    }

    /// Marks the chunk list as changed from position `from` on (for an owner that could not
    /// take a change in).
    pub fn mark_list_changed(&mut self, from: usize) {
        self.list_changed_from = Some(self.list_changed_from.map_or(from, |f| f.min(from)));
    }
    /// Has `observer` told the number of each chunk the super-chunk decompresses, before it
    /// does (for pre/postfilters that ask which chunk they work on).
    pub fn set_chunk_observer(&mut self, observer: ChunkObserver) {
        self.chunk_observer = Some(observer);
    }

    fn observe_chunk(&self, nchunk: i64) {
        if let Some(o) = &self.chunk_observer {
            o(nchunk);
        }
    }

    /// Sets the chunk size new chunks are held to (c-blosc2's clients write
    /// `schunk->chunksize`): -1 takes the next chunk's size.
    pub fn set_chunksize(&mut self, chunksize: i32) {
        self.chunksize = chunksize;
    }
    /// Bytes of one item.
    pub fn typesize(&self) -> i32 {
        self.storage.cparams.typesize
    }
    /// Bytes of data per chunk as c-blosc2 keeps it: set by the first chunk, -1 before,
    /// 0 once chunks differ in size (only the last may be shorter).
    pub fn chunksize(&self) -> i32 {
        self.chunksize
    }
    /// Block size in bytes as c-blosc2 reports it: the cparams' (0 = automatic) for a new
    /// super-chunk, the frame header's for an opened one, 0 once chunks copied into memory
    /// disagree.
    pub fn blocksize(&self) -> i32 {
        self.blocksize
    }
    /// Bytes of data in all chunks, uncompressed.
    pub fn nbytes(&self) -> i64 {
        self.nbytes
    }
    /// Bytes of all chunks as stored, headers included (not the frame's own overhead).
    pub fn cbytes(&self) -> i64 {
        self.cbytes
    }
    /// The `blosc2_flags2` byte of the first chunk ([`VL_BLOCKS`] for a super-chunk of
    /// variable-length-block chunks).
    pub fn flags2(&self) -> u8 {
        self.flags2
    }
    /// Number of chunks.
    pub fn nchunks(&self) -> i64 {
        self.chunks.len()
    }
    /// The bytes of an in-memory frame, taken out of the super-chunk (see
    /// `Frame::take_owned_bytes`); the super-chunk must not be used afterwards.
    pub fn take_frame_bytes(&mut self) -> Option<Vec<u8>> {
        match &mut self.chunks {
            Chunks::Frame(f) => f.take_owned_bytes(),
            Chunks::List(_) => None,
        }
    }

    /// Runs `f` on a super-chunk that the current call created (its file made or truncated
    /// by this call) and has not handed to anyone yet, such as a copy being filled: its frame
    /// is written straight, in plain single writes, with the bytes of the kill-safe order but
    /// none of its extra writes, since nothing in the file has been acknowledged yet. Every
    /// change after `f` returns is kill-safe again (docs/CRASH-SAFETY.md, "A file being
    /// created"). Calls nest.
    pub fn building<R>(&mut self, f: impl FnOnce(&mut Schunk) -> Result<R>) -> Result<R> {
        let was = self.set_building(true);
        let r = f(self);
        self.set_building(was);
        r
    }

    /// Sets whether the frame is being built (see [`Schunk::building`]); returns the previous
    /// setting (false without a frame).
    pub(crate) fn set_building(&mut self, on: bool) -> bool {
        match &mut self.chunks {
            Chunks::Frame(f) => f.set_building(on),
            Chunks::List(_) => false,
        }
    }

    /// The frame behind the super-chunk, if any (none for a plain in-memory list of chunks).
    pub fn frame(&self) -> Option<&Frame> {
        self.chunks.frame()
    }
    /// The fixed-length metalayers, in the order they were added.
    pub fn metalayers(&self) -> &[Meta] {
        &self.metas
    }
    /// The vlmetalayers as stored (contents are compressed chunks).
    pub fn vlmetalayers(&self) -> &[Meta] {
        &self.vlmetas
    }

    /// Length of the frame (or, without one, c-blosc2's estimate cbytes + 8 per chunk).
    pub fn frame_len(&self) -> i64 {
        match &self.chunks {
            Chunks::Frame(f) => f.len(),
            Chunks::List(l) => self.cbytes + 8 * l.len() as i64,
        }
    }
}

#[cfg(test)]
mod tests;
