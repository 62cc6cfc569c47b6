//! Super-chunks: a sequence of chunks sharing compression parameters, with metalayers
//! (fixed-size, in the frame header) and vlmetalayers (compressed, in the frame trailer), kept
//! either as a plain list of chunks in memory or in a frame (see `crate::frame`).

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use crate::chunk::header::{Special, EXTENDED_HEADER_LENGTH, MAX_OVERHEAD, VL_BLOCKS};
use crate::chunk::scratch::with_chunk_out;
use crate::chunk::{CParams, ChunkHeader, Compressor, DParams, Decompressor};
use crate::frame::header::{MAX_METALAYERS, METALAYER_NAME_MAXLEN};
use crate::frame::io::{ByteStore, FileIo, Io, MemStore, OpenMode, SharedBytes};
use crate::frame::lock::{FrameLock, LockGuard};
use crate::frame::offsets::chunk_offset_special;
use crate::frame::trailer::MAX_VLMETALAYERS;
use crate::frame::{Backing, ChunkPlace, Frame, FrameHeader, Meta, Opened, SFRAME_INDEX};
use crate::{Error, Result};

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
}

impl Default for Storage {
    fn default() -> Self {
        Storage {
            contiguous: false,
            urlpath: None,
            cparams: CParams::default(),
            dparams: DParams::default(),
            io: Arc::new(FileIo),
        }
    }
}

/// Where a chunk `append_stored_chunks` copies is stored.
#[derive(Clone, Copy, PartialEq, Eq)]
enum StoredAt<'a> {
    /// In a chunk list in memory.
    Bytes(&'a [u8]),
    /// In a frame.
    Frame(ChunkPlace),
    /// Nowhere: a special chunk a frame keeps as an offset value.
    Nowhere,
}

/// A source chunk as `append_stored_chunks` plans to copy it.
struct PlannedChunk<'a> {
    nbytes: i32,
    cbytes: i32,
    flags2: u8,
    /// Stored as an offset value in the copy (zeros, NaNs, uninit).
    special: Option<Special>,
    from: StoredAt<'a>,
}

enum Chunks {
    /// Chunks kept apart in memory (`storage.contiguous == false`, no urlpath).
    List(Vec<Vec<u8>>),
    /// Chunks in a frame (contiguous in memory or on disk, or sparse on disk).
    Frame(Frame),
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
}

/// What replacing or deleting a chunk of an in-memory list takes off the super-chunk's cbytes:
/// c-blosc2 counts a chunk of exactly MAX_OVERHEAD bytes (a header-only special chunk, such
/// as b2nd_empty's) as 0 there, although appending it added its 32 bytes; a b2nd array filled
/// after `empty` reports 32 bytes per chunk more than its chunks hold, in both libraries.
fn list_counted_cbytes(old_cbytes: i64) -> i64 {
    if old_cbytes == MAX_OVERHEAD as i64 {
        0
    } else {
        old_cbytes
    }
}

/// The local path of a urlpath: c-blosc2 drops a leading "file:///" (and only that).
pub fn local_path(urlpath: &Path) -> PathBuf {
    match urlpath.to_str().and_then(|s| s.strip_prefix("file:///")) {
        Some(rest) => PathBuf::from(rest),
        None => urlpath.to_path_buf(),
    }
}

fn check_name(name: &str) -> Result<()> {
    if name.len() > METALAYER_NAME_MAXLEN {
        Err(Error::InvalidParam)
    } else {
        Ok(())
    }
}

impl Schunk {
    /// Creates an empty super-chunk in `storage` (an existing cframe file or sframe directory
    /// at `urlpath` is an error, as in c-blosc2).
    ///
    /// With a `urlpath` the file or directory is written at once, and every later change
    /// (chunks, metalayers) goes to it before the call returns: there is nothing to flush or
    /// close.
    ///
    /// # Errors
    /// [`Error::FileOpen`] when `urlpath` exists or cannot be created; [`Error::CodecSupport`],
    /// [`Error::FilterPipeline`] or [`Error::ThreadCreate`] for cparams no compressor can be
    /// built from; write errors of the I/O backend.
    pub fn new(mut storage: Storage) -> Result<Schunk> {
        storage.urlpath = storage.urlpath.as_deref().map(local_path);
        let mut sc = Schunk::bare(storage, Chunks::List(Vec::new()))?;
        sc.chunks = match (&sc.storage.urlpath, sc.storage.contiguous) {
            (None, false) => Chunks::List(Vec::new()),
            (None, true) => Chunks::Frame(sc.create_frame(Backing::Contiguous {
                store: MemStore::default().into(),
                offset: 0,
            })?),
            (Some(path), true) => {
                if path.exists() {
                    return Err(Error::FileOpen);
                }
                let store = sc.storage.io.open(path, OpenMode::Create)?;
                Chunks::Frame(sc.create_frame(Backing::Contiguous {
                    store: store.into(),
                    offset: 0,
                })?)
            }
            (Some(path), false) => {
                std::fs::create_dir(path).map_err(|_| Error::FileOpen)?;
                let index = sc
                    .storage
                    .io
                    .open(&path.join(SFRAME_INDEX), OpenMode::Create)?;
                Chunks::Frame(sc.create_frame(Backing::Sparse {
                    dir: path.clone(),
                    index,
                })?)
            }
        };
        sc.lock = Schunk::frame_lock(&sc.storage, !sc.storage.contiguous);
        Ok(sc)
    }

    fn bare(mut storage: Storage, chunks: Chunks) -> Result<Schunk> {
        // The contexts belong to this super-chunk: BYTEDELTA with meta 0 takes its typesize.
        storage.cparams.schunk_typesize = Some(storage.cparams.typesize);
        storage.dparams.schunk_typesize = Some(storage.cparams.typesize);
        let compressor = Compressor::new(storage.cparams.clone())?;
        let decompressor = Decompressor::new(storage.dparams.clone())?;
        Ok(Schunk {
            blocksize: storage.cparams.blocksize,
            storage,
            compressor: RwLock::new(Arc::new(compressor)),
            decompressor: RwLock::new(Arc::new(decompressor)),
            change_tick: 0,
            list_changed_from: Some(0),
            chunk_observer: None,
            chunksize: -1,
            nbytes: 0,
            cbytes: 0,
            flags2: 0,
            metas: Vec::new(),
            vlmetas: Vec::new(),
            chunks,
            lock: None,
        })
    }

    /// The frame lock a super-chunk on disk at `urlpath` takes (None when its backend takes
    /// none).
    fn frame_lock(storage: &Storage, sparse: bool) -> Option<Arc<FrameLock>> {
        let path = storage.urlpath.as_ref()?;
        storage
            .io
            .locks_frames()
            .then(|| Arc::new(FrameLock::new(path, sparse)))
    }

    fn create_frame(&self, backing: Backing) -> Result<Frame> {
        Frame::create(
            backing,
            self.storage.io.clone(),
            self.frame_header(),
            &self.metas,
            &self.vlmetas,
        )
    }

    /// The frame header that describes this super-chunk now.
    fn frame_header(&self) -> FrameHeader {
        let cp = &self.storage.cparams;
        FrameHeader {
            nbytes: self.nbytes,
            cbytes: self.cbytes,
            typesize: cp.typesize,
            blocksize: self.blocksize,
            chunksize: self.chunksize,
            nthreads_c: cp.nthreads,
            nthreads_d: self.storage.dparams.nthreads,
            has_vlmeta: !self.vlmetas.is_empty(),
            compcode: cp.compcode,
            clevel: cp.clevel,
            splitmode: cp.splitmode.clamp(1, 4) as u8,
            compcode_meta: cp.compcode_meta,
            filters: cp.filters,
            filters_meta: cp.filters_meta,
            use_dict: cp.use_dict,
            vl_blocks: self.flags2 & VL_BLOCKS != 0,
            ..FrameHeader::default()
        }
    }

    fn from_opened(opened: Opened, storage_base: Storage) -> Result<Schunk> {
        let Opened {
            frame,
            metas,
            vlmetas,
            flags2,
        } = opened;
        let h = frame.header().clone();
        let cparams = CParams {
            compcode: h.compcode,
            compcode_meta: h.compcode_meta,
            clevel: h.clevel,
            typesize: h.typesize,
            blocksize: h.blocksize,
            splitmode: h.splitmode as i32,
            filters: h.filters,
            filters_meta: h.filters_meta,
            use_dict: h.use_dict,
            nthreads: storage_base.cparams.nthreads,
            ..storage_base.cparams.clone()
        };
        let dparams = DParams {
            typesize: h.typesize,
            ..storage_base.dparams.clone()
        };
        let storage = Storage {
            contiguous: !frame.is_sparse(),
            cparams,
            dparams,
            ..storage_base
        };
        let sparse = frame.is_sparse();
        let mut sc = Schunk::bare(storage, Chunks::Frame(frame))?;
        sc.lock = Schunk::frame_lock(&sc.storage, sparse);
        sc.chunksize = h.chunksize;
        sc.blocksize = h.blocksize;
        sc.nbytes = h.nbytes;
        sc.cbytes = h.cbytes;
        sc.flags2 = flags2;
        sc.metas = metas;
        sc.vlmetas = vlmetas;
        sc.refresh_layout()?;
        Ok(sc)
    }

    /// Opens the super-chunk in a cframe buffer. `copy` false keeps the buffer shared (no
    /// copy until the super-chunk is modified); true loads its chunks into a plain list.
    pub fn from_buffer(bytes: SharedBytes, copy: bool) -> Result<Schunk> {
        #[cfg(test)]
        crate::fault::hit("schunk::from_buffer");
        // c-blosc2 checks the magic of in-memory frames only (after parsing the rest), so a
        // file or sparse-frame index with a damaged magic still opens, as it does there.
        let has_magic = (*bytes).as_ref().get(2..10) == Some(b"b2frame\0".as_slice());
        let opened = Frame::from_memory(MemStore::Shared(bytes))?;
        if !has_magic {
            return Err(Error::Failure);
        }
        let sc = Schunk::from_opened(opened, Storage::default())?;
        if copy {
            return sc.into_chunk_list();
        }
        Ok(sc)
    }

    /// Opens the super-chunk in a cframe held in `bytes` (always copied into the result).
    pub fn from_vec(bytes: Vec<u8>) -> Result<Schunk> {
        let opened = Frame::from_memory(MemStore::Owned(bytes))?;
        Schunk::from_opened(opened, Storage::default())
    }

    /// Opens a cframe file or sframe directory, for reading and (when the file allows it)
    /// writing. The parameters come from the frame header.
    ///
    /// # Errors
    /// [`Error::FileOpen`] when the path does not exist or cannot be opened;
    /// [`Error::ReadBuffer`], [`Error::InvalidHeader`], [`Error::Data`],
    /// [`Error::FrameType`] or [`Error::VersionSupport`] when it is not a frame this library
    /// reads (checked: header, offsets index and trailer).
    pub fn open(urlpath: &Path) -> Result<Schunk> {
        Schunk::open_offset_with(urlpath, 0, Arc::new(FileIo))
    }

    /// Opens the cframe that starts at byte `offset` of the file `urlpath`.
    pub fn open_offset(urlpath: &Path, offset: i64) -> Result<Schunk> {
        Schunk::open_offset_with(urlpath, offset, Arc::new(FileIo))
    }

    /// `open_offset` through a given I/O backend.
    pub fn open_offset_with(urlpath: &Path, offset: i64, io: Arc<dyn Io>) -> Result<Schunk> {
        let offset = u64::try_from(offset).map_err(|_| Error::InvalidParam)?;
        let urlpath = &local_path(urlpath);
        // As c-blosc2, a handle that locks reads the frame under the shared lock, so that it
        // never sees a change half made.
        let lock = io
            .locks_frames()
            .then(|| Arc::new(FrameLock::new(urlpath, urlpath.is_dir())));
        if let Some(l) = &lock {
            l.acquire(false)?;
        }
        let opened = Frame::open(io.clone(), urlpath, offset);
        if let Some(l) = &lock {
            l.release()?;
        }
        let base = Storage {
            urlpath: Some(urlpath.to_path_buf()),
            io,
            ..Storage::default()
        };
        let mut sc = Schunk::from_opened(opened?, base)?;
        if lock.is_some() {
            sc.lock = lock;
        }
        Ok(sc)
    }

    /// Turns a frame-backed super-chunk into one whose chunks are a list in memory.
    fn into_chunk_list(mut self) -> Result<Schunk> {
        let Chunks::Frame(frame) = &self.chunks else {
            return Ok(self);
        };
        let mut list = Vec::with_capacity(frame.nchunks() as usize);
        let mut cbytes = 0;
        let mut nbytes = 0;
        let mut blocksize = None;
        for n in 0..frame.nchunks() {
            let c = frame.chunk(n)?.into_owned();
            let h = ChunkHeader::parse(&c)?;
            cbytes += h.cbytes as i64;
            nbytes += h.nbytes as i64;
            blocksize = match blocksize {
                None => Some(h.blocksize),
                Some(b) if b == h.blocksize => Some(b),
                Some(_) => Some(0),
            };
            list.push(c);
        }
        if nbytes != self.nbytes {
            return Err(Error::InvalidHeader);
        }
        self.cbytes = cbytes;
        if let Some(b) = blocksize {
            self.blocksize = b;
        }
        self.storage.contiguous = false;
        self.storage.urlpath = None;
        self.chunks = Chunks::List(list);
        self.mark_list_changed(0);
        Ok(self)
    }

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

    /// Goes back to a compressor built from the super-chunk's parameters.
    pub fn use_own_compressor(&mut self) -> Result<()> {
        let c = Compressor::new(self.storage.cparams.clone())?;
        self.set_compressor(c);
        Ok(())
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
    pub fn chunk_list(&self) -> Option<&[Vec<u8>]> {
        match &self.chunks {
            Chunks::List(l) => Some(l),
            Chunks::Frame(_) => None,
        }
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
        match &self.chunks {
            Chunks::List(l) => l.len() as i64,
            Chunks::Frame(f) => f.nchunks(),
        }
    }
    /// The bytes of an in-memory frame, taken out of the super-chunk (see
    /// `Frame::take_owned_bytes`); the super-chunk must not be used afterwards.
    pub fn take_frame_bytes(&mut self) -> Option<Vec<u8>> {
        match &mut self.chunks {
            Chunks::Frame(f) => f.take_owned_bytes(),
            Chunks::List(_) => None,
        }
    }

    /// The frame behind the super-chunk, if any (none for a plain in-memory list of chunks).
    pub fn frame(&self) -> Option<&Frame> {
        match &self.chunks {
            Chunks::Frame(f) => Some(f),
            Chunks::List(_) => None,
        }
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

    // ----- sharing a frame on disk with other handles -----------------------------------
    //
    // As in c-blosc2 3.3.5: a handle whose backend locks frames takes the frame lock
    // exclusively for each change (every method below that changes chunks or metalayers,
    // except `meta_update`, which c-blosc2 does not lock either), so each such call bumps the
    // generation counter once, and shared for each chunk read; callers bracket several calls
    // (`hold`, or `lock`/`unlock`) to make them one change or one read. A shared hold must not
    // enclose a change: nested acquisitions only count, they never upgrade the lock. Any handle on a frame on disk
    // re-reads it (`refresh`) on the calls where c-blosc2 does, when another handle changed it.

    /// Holds the frame lock (exclusive: for a change) until the guard goes, nesting in an
    /// acquisition this handle holds; holds nothing without locking.
    pub fn hold(&self, exclusive: bool) -> Result<LockGuard> {
        LockGuard::acquire(self.lock.as_ref(), exclusive)
    }

    /// Takes the frame lock exclusively, or nests in the one this handle holds; a no-op
    /// without locking.
    pub fn lock(&self) -> Result<()> {
        self.lock.as_ref().map_or(Ok(()), |l| l.acquire(true))
    }

    /// Takes the frame lock shared (for reads), or nests in the one this handle holds.
    pub fn lock_shared(&self) -> Result<()> {
        self.lock.as_ref().map_or(Ok(()), |l| l.acquire(false))
    }

    /// Gives back one [`Schunk::lock`] or [`Schunk::lock_shared`].
    pub fn unlock(&self) -> Result<()> {
        self.lock.as_ref().map_or(Ok(()), |l| l.release())
    }

    /// Whether another handle changed the frame on disk since this one last read or wrote it:
    /// it took the frame lock exclusively since, the file at the frame's path is not the one
    /// this handle opened (renamed over it: c-blosc2 compares inodes), or the frame length in
    /// the file's header is not the one this handle knows. Always false for super-chunks not
    /// on disk.
    pub fn is_stale(&self) -> bool {
        if self.storage.urlpath.is_none() {
            return false;
        }
        let Chunks::Frame(f) = &self.chunks else {
            return false;
        };
        if self.lock.as_ref().is_some_and(|l| l.is_stale()) || f.store_replaced() {
            return true;
        }
        // A header that cannot be read now is left to the operation itself to report.
        f.len_in_store().is_ok_and(|len| len != f.len())
    }

    /// Re-reads a stale frame on disk (header, offsets, metalayers, vlmetalayers, counters),
    /// keeping this handle's compression and decompression parameters; true when it did.
    pub fn refresh(&mut self) -> Result<bool> {
        // The frame is re-read under the shared lock, which also tells this handle the
        // generation it now knows.
        let _held = self.hold(false)?;
        if !self.is_stale() {
            return Ok(false);
        }
        let (Some(path), Chunks::Frame(f)) = (&self.storage.urlpath, &self.chunks) else {
            return Ok(false);
        };
        let Opened {
            frame,
            metas,
            vlmetas,
            flags2,
        } = Frame::open(self.storage.io.clone(), path, f.file_offset())?;
        let h = frame.header();
        self.chunksize = h.chunksize;
        self.blocksize = h.blocksize;
        self.nbytes = h.nbytes;
        self.cbytes = h.cbytes;
        self.flags2 = flags2;
        self.metas = metas;
        self.vlmetas = vlmetas;
        self.chunks = Chunks::Frame(frame);
        self.change_tick += 1;
        if let Some(l) = &self.lock {
            l.clear_stale();
        }
        Ok(true)
    }

    // ----- reading chunks ------------------------------------------------------------------

    fn index(&self, nchunk: i64) -> Result<usize> {
        if nchunk < 0 || nchunk >= self.nchunks() {
            return Err(Error::InvalidParam);
        }
        Ok(nchunk as usize)
    }

    /// The compressed chunk `nchunk` (borrowed when it is in memory).
    pub fn get_chunk(&self, nchunk: i64) -> Result<Cow<'_, [u8]>> {
        let _held = self.hold(false)?;
        let i = self.index(nchunk)?;
        match &self.chunks {
            Chunks::List(l) => Ok(Cow::Borrowed(&l[i])),
            Chunks::Frame(f) => f.chunk(nchunk),
        }
    }

    /// Like `get_chunk`, but a chunk of a frame on disk comes back lazy (see
    /// `Frame::lazy_chunk`); decompress it with `decompress_lazy`.
    pub fn get_lazychunk(&self, nchunk: i64) -> Result<Cow<'_, [u8]>> {
        let _held = self.hold(false)?;
        let i = self.index(nchunk)?;
        match &self.chunks {
            Chunks::List(l) => Ok(Cow::Borrowed(&l[i])),
            Chunks::Frame(f) => f.lazy_chunk(nchunk),
        }
    }

    /// Decompresses a chunk returned by `get_lazychunk` (lazy or not) into `dst`.
    pub fn decompress_lazy(
        &self,
        chunk: &[u8],
        dst: &mut [u8],
        maskout: Option<&[bool]>,
    ) -> Result<usize> {
        let h = ChunkHeader::parse(chunk)?;
        let frame = self.frame();
        if h.is_lazy() && h.is_vl_blocks() {
            // The chunk engine decodes VL-block chunks from whole chunks only.
            let whole = frame.ok_or(Error::InvalidParam)?.unlazy(chunk)?;
            return self.decompressor().decompress(&whole, dst, maskout);
        }
        let reader = frame.map(|f| f as &dyn crate::chunk::decompress::LazyBlocks);
        self.decompressor()
            .decompress_with(chunk, dst, maskout, reader)
    }

    /// Decompresses chunk `nchunk` into `dst`; returns its size. `maskout` skips blocks.
    pub fn decompress_chunk(
        &self,
        nchunk: i64,
        dst: &mut [u8],
        maskout: Option<&[bool]>,
    ) -> Result<usize> {
        // Held through the decompression: a lazy chunk reads its blocks then.
        let _held = self.hold(false)?;
        self.observe_chunk(nchunk);
        let mut decode = |chunk: &[u8]| {
            let h = ChunkHeader::parse(chunk)?;
            if dst.len() < h.nbytes as usize {
                // c-blosc2 says so with different codes for frames and chunk lists.
                return Err(if self.frame().is_some() {
                    Error::Data
                } else {
                    Error::InvalidParam
                });
            }
            let n = self.decompress_lazy(chunk, dst, maskout)?;
            if n != h.nbytes as usize {
                return Err(Error::Failure);
            }
            Ok(n)
        };
        // With a mask, a chunk on disk is read lazily: masked-out blocks are never read.
        match &self.chunks {
            Chunks::Frame(f) if maskout.is_none() => {
                self.index(nchunk)?;
                f.with_chunk(nchunk, |chunk| {
                    // c-blosc2 checks a frame's chunk against the size its header gives first:
                    // a shorter one (an sframe chunk file cut short) is invalid data.
                    let cbytes = chunk
                        .get(12..16)
                        .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]));
                    if cbytes.is_some_and(|c| (chunk.len() as i64) < i64::from(c)) {
                        return Err(Error::Data);
                    }
                    decode(chunk)
                })
            }
            _ if maskout.is_some() => decode(&self.get_lazychunk(nchunk)?),
            _ => decode(&self.get_chunk(nchunk)?),
        }
    }

    /// Decompresses chunk `nchunk` into a new vector.
    pub fn decompress_chunk_vec(&self, nchunk: i64) -> Result<Vec<u8>> {
        let chunk = self.get_chunk(nchunk)?;
        self.observe_chunk(nchunk);
        let h = ChunkHeader::parse(&chunk)?;
        let mut dst = vec![0u8; h.nbytes as usize];
        let n = self.decompressor().decompress(&chunk, &mut dst, None)?;
        dst.truncate(n);
        Ok(dst)
    }

    // ----- writing chunks ------------------------------------------------------------------

    /// Compresses `src` with the super-chunk's parameters and appends it; returns nchunks.
    pub fn append_buffer(&mut self, src: &[u8]) -> Result<i64> {
        let _held = self.hold(true)?;
        let compressor = self.compressor();
        // Compressed into the thread's reused buffer, then stored at its compressed size (a
        // frame copies it in, a list keeps an exact-size copy). A chunk-sized buffer per call
        // was zeroed by calloc once glibc served it from the heap, and, above glibc's mmap
        // threshold, mapped, shrunk and unmapped per chunk (faulting its pages in each time).
        with_chunk_out(src.len() + MAX_OVERHEAD, |chunk| {
            let n = compressor.compress(src, chunk)?;
            if n == 0 {
                return Err(Error::Failure);
            }
            self.insert_at(self.nchunks(), Cow::Borrowed(&chunk[..n]))
        })
    }

    /// Appends a copy of `chunk`; returns the new number of chunks.
    pub fn append_chunk(&mut self, chunk: &[u8]) -> Result<i64> {
        let _held = self.hold(true)?;
        self.check_chunk_kind(chunk, Error::ChunkAppend)?;
        self.insert_at(self.nchunks(), Cow::Borrowed(chunk))
    }

    /// Appends `chunk`, taking ownership (no copy for in-memory lists).
    pub fn append_chunk_owned(&mut self, chunk: Vec<u8>) -> Result<i64> {
        let _held = self.hold(true)?;
        self.check_chunk_kind(&chunk, Error::ChunkAppend)?;
        self.insert_at(self.nchunks(), Cow::Owned(chunk))
    }

    /// Inserts `chunk` at position `nchunk`; returns the new number of chunks.
    pub fn insert_chunk(&mut self, nchunk: i64, chunk: &[u8]) -> Result<i64> {
        let _held = self.hold(true)?;
        if nchunk < 0 || nchunk > self.nchunks() {
            return Err(Error::InvalidParam);
        }
        self.check_chunk_kind(chunk, Error::ChunkInsert)?;
        self.insert_at(nchunk, Cow::Borrowed(chunk))
    }

    /// As in c-blosc2, the chunks of a super-chunk are all VL-block chunks or all regular ones
    /// (its `flags2`, set by the first): once it has chunks, one of the other kind is refused
    /// with `refused`, the error of the operation.
    fn check_chunk_kind(&self, chunk: &[u8], refused: Error) -> Result<()> {
        let vl = ChunkHeader::parse(chunk)?.blosc2_flags2 & VL_BLOCKS;
        if self.nchunks() > 0 && vl != self.flags2 & VL_BLOCKS {
            return Err(refused);
        }
        Ok(())
    }

    /// Checks a chunk to add and returns (nbytes, cbytes) of it.
    fn chunk_sizes(chunk: &[u8]) -> Result<(i32, i32)> {
        let h = ChunkHeader::parse(chunk)?;
        if (h.cbytes as usize) > chunk.len() {
            return Err(Error::ReadBuffer);
        }
        Ok((h.nbytes, h.cbytes))
    }

    fn insert_at(&mut self, at: i64, chunk: Cow<'_, [u8]>) -> Result<i64> {
        let (nbytes, cbytes) = Schunk::chunk_sizes(&chunk)?;
        let chunk = match chunk {
            Cow::Owned(mut v) => {
                v.truncate(cbytes as usize);
                Cow::Owned(v)
            }
            Cow::Borrowed(b) => Cow::Borrowed(&b[..cbytes as usize]),
        };
        let nchunks = self.nchunks();
        let chunksize = self.chunksize_after(at, at == nchunks, nbytes)?;
        if nchunks == 0 {
            self.flags2 = ChunkHeader::parse(&chunk)?.blosc2_flags2;
        }
        let special = chunk_offset_special(&chunk);
        let base_h = self.frame_header();
        self.mark_list_changed(at as usize);
        match &mut self.chunks {
            Chunks::List(list) => {
                list.insert(at as usize, chunk.into_owned());
                self.chunksize = chunksize;
                self.nbytes += nbytes as i64;
                self.cbytes += cbytes as i64;
            }
            Chunks::Frame(frame) => {
                let sparse = frame.is_sparse();
                let mut offsets = frame.offsets().to_vec();
                let stored_len = if special.is_some() { 0 } else { cbytes as i64 };
                let (offset, write) = match special {
                    Some(kind) => (crate::frame::offsets::special_offset(kind), None),
                    None if sparse => {
                        let id = offsets.iter().copied().max().unwrap_or(-1).max(-1) + 1;
                        (id, Some((id, &chunk[..])))
                    }
                    None => (self.cbytes, Some((self.cbytes, &chunk[..]))),
                };
                offsets.insert(at as usize, offset);
                let mut h = base_h.clone();
                h.chunksize = chunksize;
                h.nbytes = self.nbytes + nbytes as i64;
                h.cbytes = self.cbytes + stored_len;
                frame.commit(h, &self.metas, &self.vlmetas, write, offsets)?;
                self.chunksize = chunksize;
                self.nbytes += nbytes as i64;
                self.cbytes += stored_len;
            }
        }
        Ok(self.nchunks())
    }

    /// Uncompressed size of chunk `n`, reading only its header.
    pub(crate) fn chunk_nbytes(&self, n: i64) -> Result<i32> {
        match &self.chunks {
            Chunks::List(l) => Ok(ChunkHeader::parse(&l[self.index(n)?])?.nbytes),
            Chunks::Frame(f) => Ok(f.chunk_header(n)?.nbytes),
        }
    }

    /// The chunk size once a chunk of `nbytes` is put at position `at` (a new chunk there when
    /// `adding`, else a replacement). As in c-blosc2 3.3.5 the first chunk sets it; it stays
    /// while every chunk but the last has that size and the last no more; otherwise it becomes
    /// 0 (variable-size chunks) for good.
    fn chunksize_after(&self, at: i64, appending: bool, nbytes: i32) -> Result<i32> {
        let n = self.nchunks();
        let cs = if self.chunksize == -1 {
            nbytes
        } else {
            self.chunksize
        };
        if cs <= 0 {
            return Ok(cs.max(0));
        }
        let ok = if appending {
            nbytes <= cs && (n == 0 || self.chunk_nbytes(n - 1)? == cs)
        } else if at == n - 1 {
            nbytes <= cs
        } else {
            nbytes == cs
        };
        Ok(if ok { cs } else { 0 })
    }

    /// Replaces chunk `nchunk` with `chunk`; returns the number of chunks.
    pub fn update_chunk(&mut self, nchunk: i64, chunk: &[u8]) -> Result<i64> {
        let _held = self.hold(true)?;
        let i = self.index(nchunk)?;
        let (nbytes, cbytes) = Schunk::chunk_sizes(chunk)?;
        self.check_chunk_kind(chunk, Error::ChunkUpdate)?;
        let chunk = &chunk[..cbytes as usize];
        let chunksize = self.chunksize_after(nchunk, false, nbytes)?;
        let old = self.get_chunk(nchunk)?;
        let old_h = ChunkHeader::parse(&old)?;
        let old_nbytes = old_h.nbytes as i64;
        let old_cbytes = old_h.cbytes as i64;
        drop(old);
        let special = chunk_offset_special(chunk);
        let base_h = self.frame_header();
        self.mark_list_changed(i);
        match &mut self.chunks {
            Chunks::List(list) => {
                list[i] = chunk.to_vec();
                self.nbytes += nbytes as i64 - old_nbytes;
                self.cbytes += cbytes as i64 - list_counted_cbytes(old_cbytes);
            }
            Chunks::Frame(frame) => {
                let mut offsets = frame.offsets().to_vec();
                let old_offset = offsets[i];
                let mut h = base_h.clone();
                h.chunksize = chunksize;
                h.nbytes = self.nbytes + nbytes as i64 - old_nbytes;
                let new_len = if special.is_some() { 0 } else { cbytes as i64 };
                let mut write = None;
                if frame.is_sparse() {
                    // The chunk files keep their ids; a special chunk frees its file.
                    let old_stored = if old_offset >= 0 { old_cbytes } else { 0 };
                    h.cbytes = self.cbytes - old_stored + new_len;
                    match special {
                        Some(kind) => offsets[i] = crate::frame::offsets::special_offset(kind),
                        None => {
                            if old_offset < 0 {
                                offsets[i] =
                                    offsets.iter().copied().max().unwrap_or(-1).max(-1) + 1;
                            }
                            write = Some((offsets[i], chunk));
                        }
                    }
                    frame.commit(h.clone(), &self.metas, &self.vlmetas, write, offsets)?;
                    if old_offset >= 0 {
                        frame.remove_unused_chunk_files(&[old_offset])?;
                    }
                } else {
                    // The data after the old chunk shifts so the new one fits in its place.
                    let (slot, old_stored) = if old_offset >= 0 {
                        (old_offset, old_cbytes)
                    } else {
                        (self.cbytes, 0)
                    };
                    frame.resize_chunk_slot(slot, old_stored, new_len)?;
                    let delta = new_len - old_stored;
                    for (j, o) in offsets.iter_mut().enumerate() {
                        if j != i && *o >= 0 && *o > slot {
                            *o += delta;
                        }
                    }
                    offsets[i] = match special {
                        Some(kind) => crate::frame::offsets::special_offset(kind),
                        None => slot,
                    };
                    h.cbytes = self.cbytes + delta;
                    if special.is_none() {
                        frame.write_in_data(slot, chunk)?;
                    }
                    frame.commit(h.clone(), &self.metas, &self.vlmetas, None, offsets)?;
                }
                self.nbytes = h.nbytes;
                self.cbytes = h.cbytes;
            }
        }
        self.chunksize = chunksize;
        Ok(self.nchunks())
    }

    /// Removes chunk `nchunk`; returns the number of chunks left.
    pub fn delete_chunk(&mut self, nchunk: i64) -> Result<i64> {
        let _held = self.hold(true)?;
        let i = self.index(nchunk)?;
        let old = self.get_chunk(nchunk)?;
        let old_h = ChunkHeader::parse(&old)?;
        drop(old);
        let base_h = self.frame_header();
        self.mark_list_changed(i);
        match &mut self.chunks {
            Chunks::List(list) => {
                list.remove(i);
                self.nbytes -= old_h.nbytes as i64;
                self.cbytes -= list_counted_cbytes(old_h.cbytes as i64);
            }
            Chunks::Frame(frame) => {
                let mut offsets = frame.offsets().to_vec();
                let old_offset = offsets.remove(i);
                let mut h = base_h.clone();
                h.nbytes = self.nbytes - old_h.nbytes as i64;
                if frame.is_sparse() && old_offset >= 0 {
                    h.cbytes = self.cbytes - old_h.cbytes as i64;
                }
                // With no chunk left commit_with writes no offsets index (as c-blosc2 does).
                let off_chunk = if offsets.is_empty() {
                    None
                } else {
                    let room = offsets.len() + 1;
                    Some(crate::frame::offsets::encode_with_room(&offsets, room)?)
                };
                frame.commit_with(
                    h.clone(),
                    &self.metas,
                    &self.vlmetas,
                    None,
                    offsets,
                    off_chunk,
                )?;
                frame.remove_unused_chunk_files(&[old_offset])?;
                self.nbytes = h.nbytes;
                self.cbytes = h.cbytes;
            }
        }
        Ok(self.nchunks())
    }

    /// Reorders the chunks: new chunk `i` is old chunk `order[i]`.
    pub fn reorder_offsets(&mut self, order: &[i64]) -> Result<()> {
        let _held = self.hold(true)?;
        let n = self.nchunks() as usize;
        if order.len() != n {
            return Err(Error::InvalidParam);
        }
        let mut seen = vec![false; n];
        for &o in order {
            let o = usize::try_from(o).map_err(|_| Error::Data)?;
            if o >= n || seen[o] {
                return Err(Error::Data);
            }
            seen[o] = true;
        }
        let base_h = self.frame_header();
        self.mark_list_changed(0);
        match &mut self.chunks {
            Chunks::List(list) => {
                let old = std::mem::take(list);
                let mut slots: Vec<Option<Vec<u8>>> = old.into_iter().map(Some).collect();
                *list = order
                    .iter()
                    .map(|&o| slots[o as usize].take().unwrap_or_default())
                    .collect();
            }
            Chunks::Frame(frame) => {
                let old = frame.offsets();
                let offsets = order.iter().map(|&o| old[o as usize]).collect();
                frame.commit(base_h.clone(), &self.metas, &self.vlmetas, None, offsets)?;
            }
        }
        Ok(())
    }

    /// Fills an empty super-chunk with `nitems` items of a special value (zeros, NaNs,
    /// uninitialised) in chunks of `chunksize` bytes; returns the number of chunks.
    pub fn fill_special(&mut self, nitems: i64, kind: Special, chunksize: i32) -> Result<i64> {
        let _held = self.hold(true)?;
        if nitems == 0 {
            return Ok(0);
        }
        let typesize = self.typesize();
        if chunksize <= 0 || nitems < 0 {
            return Err(Error::SchunkSpecial);
        }
        if nitems.saturating_mul(typesize as i64) / chunksize as i64 > i32::MAX as i64 {
            return Err(Error::SchunkSpecial);
        }
        if self.nbytes > 0 || self.cbytes > 0 {
            return Err(Error::FrameSpecial);
        }
        if !matches!(kind, Special::Zero | Special::Nan | Special::Uninit) {
            return Err(Error::SchunkSpecial);
        }
        let chunkitems = (chunksize / typesize) as i64;
        if chunkitems <= 0 {
            return Err(Error::FrameSpecial);
        }
        let full = nitems / chunkitems;
        let leftover = nitems % chunkitems;
        let mut params = self.storage.cparams.clone();
        params.typesize = typesize;
        let make = |nbytes: i32| -> Result<Vec<u8>> {
            let mut c = vec![0u8; EXTENDED_HEADER_LENGTH];
            crate::chunk::special::make(&params, kind, nbytes, None, &mut c)?;
            Ok(c)
        };
        if let Chunks::List(_) = self.chunks {
            let c = make(chunksize)?;
            for _ in 0..full {
                self.append_chunk(&c)?;
            }
            if leftover > 0 {
                self.append_chunk(&make((leftover * typesize as i64) as i32)?)?;
            }
            return Ok(self.nchunks());
        }
        // A frame gets every chunk as one run-length offsets chunk, written at once.
        let nchunks = full + i64::from(leftover > 0);
        let before = (self.blocksize, self.chunksize, self.nbytes);
        self.blocksize = ChunkHeader::parse(&make(chunksize)?)?.blocksize;
        self.chunksize = chunksize;
        self.nbytes = nitems * typesize as i64;
        let h = self.frame_header();
        let offsets = vec![crate::frame::offsets::special_offset(kind); nchunks as usize];
        let off_chunk = crate::frame::offsets::encode_all_special(nchunks, kind)?;
        if let Chunks::Frame(frame) = &mut self.chunks {
            let r = frame.commit_with(
                h,
                &self.metas,
                &self.vlmetas,
                None,
                offsets,
                Some(off_chunk),
            );
            if let Err(e) = r {
                (self.blocksize, self.chunksize, self.nbytes) = before;
                return Err(e);
            }
        }
        Ok(self.nchunks())
    }

    // ----- slices --------------------------------------------------------------------------

    fn check_slice(&self, start: i64, stop: i64) -> Result<(i64, i64, i64)> {
        let ts = self.typesize() as i64;
        let (bstart, bstop) = (
            start.checked_mul(ts).ok_or(Error::InvalidParam)?,
            stop.checked_mul(ts).ok_or(Error::InvalidParam)?,
        );
        if start < 0 || stop < start || bstop > self.nbytes {
            return Err(Error::InvalidParam);
        }
        if self.chunksize <= 0 {
            return Err(Error::InvalidParam);
        }
        Ok((bstart, bstop, self.chunksize as i64))
    }

    /// Reads items `start..stop` into `dst` (which holds at least that many bytes).
    ///
    /// As in c-blosc2, a whole chunk is decompressed and a part of one goes through getitem
    /// (which differs for `zfp_rate` chunks, see `chunk::decompress`), and a chunk that fails
    /// to read fails the call with `Failure`.
    pub fn get_slice_buffer(&self, start: i64, stop: i64, dst: &mut [u8]) -> Result<()> {
        let (bstart, bstop, cs) = self.check_slice(start, stop)?;
        if (dst.len() as i64) < bstop - bstart {
            return Err(Error::InvalidParam);
        }
        let mut pos = bstart;
        while pos < bstop {
            let n = pos / cs;
            let within = pos % cs;
            let take = (cs - within).min(bstop - pos);
            let out = &mut dst[(pos - bstart) as usize..(pos - bstart + take) as usize];
            let read = if within == 0 && take == cs {
                self.decompress_chunk(n, out, None).map(|_| ())
            } else {
                self.get_chunk(n).and_then(|chunk| {
                    self.observe_chunk(n);
                    self.decompressor()
                        .getitem_bytes(&chunk, within as usize, take as usize, out)
                        .map(|_| ())
                })
            };
            read.map_err(|_| Error::Failure)?;
            pos += take;
        }
        Ok(())
    }

    /// Writes items `start..stop` from `src`, recompressing the chunks touched.
    pub fn set_slice_buffer(&mut self, start: i64, stop: i64, src: &[u8]) -> Result<()> {
        let _held = self.hold(true)?;
        let (bstart, bstop, cs) = self.check_slice(start, stop)?;
        if (src.len() as i64) < bstop - bstart {
            return Err(Error::InvalidParam);
        }
        let mut pos = bstart;
        while pos < bstop {
            let n = pos / cs;
            let within = pos % cs;
            let take = (cs - within).min(bstop - pos);
            let mut data = self.decompress_chunk_vec(n)?;
            let from = (pos - bstart) as usize;
            data[within as usize..(within + take) as usize]
                .copy_from_slice(&src[from..from + take as usize]);
            let mut chunk = vec![0u8; data.len() + MAX_OVERHEAD];
            let c = self.compressor().compress(&data, &mut chunk)?;
            chunk.truncate(c);
            self.update_chunk(n, &chunk)?;
            pos += take;
        }
        Ok(())
    }

    // ----- metalayers ----------------------------------------------------------------------

    /// Index of metalayer `name`.
    pub fn meta_exists(&self, name: &str) -> Result<usize> {
        check_name(name)?;
        self.metas
            .iter()
            .position(|m| m.name == name)
            .ok_or(Error::NotFound)
    }

    /// Adds a metalayer (only before any data, when there is a frame); returns its index.
    pub fn meta_add(&mut self, name: &str, content: &[u8]) -> Result<usize> {
        let _held = self.hold(true)?;
        if self.meta_exists(name).is_ok() {
            return Err(Error::InvalidParam);
        }
        if self.metas.len() >= MAX_METALAYERS {
            return Err(Error::InvalidParam);
        }
        if self.frame().is_some() && self.cbytes > 0 {
            return Err(Error::InvalidParam);
        }
        self.metas.push(Meta {
            name: name.to_string(),
            content: content.to_vec(),
        });
        if let Err(e) = self.flush_frame() {
            self.metas.pop();
            return Err(e);
        }
        self.change_tick += 1;
        self.refresh_layout()?;
        Ok(self.metas.len() - 1)
    }

    /// Overwrites the start of metalayer `name` (content cannot grow); returns its index.
    pub fn meta_update(&mut self, name: &str, content: &[u8]) -> Result<usize> {
        let i = self.meta_exists(name)?;
        if content.len() > self.metas[i].content.len() {
            return Err(Error::InvalidParam);
        }
        self.metas[i].content[..content.len()].copy_from_slice(content);
        self.change_tick += 1;
        self.flush_frame()?;
        self.refresh_layout()?;
        Ok(i)
    }

    /// Gives its compression and decompression parameters the layer above's data (see
    /// [`crate::chunk::params::Owner`]) where they have none, as for a super-chunk opened from
    /// a frame, whose parameters come from the frame: the C layer's back-pointer to its handle,
    /// which c-blosc2 hands to user codecs and filters as `cparams->schunk`/`dparams->schunk`.
    pub fn adopt_owner(
        &mut self,
        cowner: Option<crate::chunk::params::Owner>,
        downer: Option<crate::chunk::params::Owner>,
    ) -> Result<()> {
        let (c, d) = (&mut self.storage.cparams, &mut self.storage.dparams);
        if c.owner.is_some() && d.owner.is_some() {
            return Ok(());
        }
        if c.owner.is_none() {
            c.owner = cowner;
        }
        if d.owner.is_none() {
            d.owner = downer;
        }
        let (c, d) = (Compressor::new(c.clone())?, Decompressor::new(d.clone())?);
        self.set_compressor(c);
        self.set_decompressor(d);
        Ok(())
    }

    /// The array layout the "b2nd" metalayer describes (None without one, or when it does not
    /// parse), handed to the compressor and decompressor for the filters that need it.
    pub fn layout(&self) -> Option<&Arc<crate::chunk::params::ArrayLayout>> {
        self.storage.cparams.layout.as_ref()
    }

    /// Re-reads the layout from the "b2nd" metalayer after a metalayer change, rebuilding the
    /// contexts when it differs. The super-chunk layer decodes the metalayer (with
    /// `b2nd::meta`, a plain parser) so the chunk engine never looks at metalayers.
    fn refresh_layout(&mut self) -> Result<()> {
        let layout = self
            .meta_get(crate::b2nd::array::META_NAME)
            .ok()
            .and_then(|m| crate::b2nd::meta::layout(m, self.storage.cparams.typesize))
            .map(Arc::new);
        if layout == self.storage.cparams.layout && layout == self.storage.dparams.layout {
            return Ok(());
        }
        let mut cparams = self.storage.cparams.clone();
        let mut dparams = self.storage.dparams.clone();
        cparams.layout = layout.clone();
        dparams.layout = layout;
        let mut c = self.compressor().as_ref().clone();
        c.set_layout(cparams.layout.clone());
        let mut d = self.decompressor().as_ref().clone();
        d.set_layout(dparams.layout.clone());
        self.set_compressor(c);
        self.set_decompressor(d);
        self.storage.cparams = cparams;
        self.storage.dparams = dparams;
        Ok(())
    }

    /// The content of metalayer `name`.
    pub fn meta_get(&self, name: &str) -> Result<&[u8]> {
        let i = self.meta_exists(name)?;
        Ok(&self.metas[i].content)
    }

    /// Rewrites the frame's header, index and trailer after a metadata change.
    fn flush_frame(&mut self) -> Result<()> {
        let h = self.frame_header();
        if let Chunks::Frame(frame) = &mut self.chunks {
            let offsets = frame.offsets().to_vec();
            frame.commit(h, &self.metas, &self.vlmetas, None, offsets)?;
        }
        Ok(())
    }

    // ----- vlmetalayers --------------------------------------------------------------------

    /// Index of vlmetalayer `name`.
    pub fn vlmeta_exists(&self, name: &str) -> Result<usize> {
        check_name(name)?;
        self.vlmetas
            .iter()
            .position(|m| m.name == name)
            .ok_or(Error::NotFound)
    }

    fn compress_vlmeta(content: &[u8], cparams: Option<&CParams>) -> Result<Vec<u8>> {
        let params = cparams.cloned().unwrap_or_default();
        let mut buf = vec![0u8; content.len() + MAX_OVERHEAD];
        let n = Compressor::new(params)?.compress(content, &mut buf)?;
        if n == 0 {
            return Err(Error::Failure);
        }
        buf.truncate(n);
        Ok(buf)
    }

    /// Adds a vlmetalayer, compressed with `cparams` (defaults when `None`); returns its index.
    pub fn vlmeta_add(
        &mut self,
        name: &str,
        content: &[u8],
        cparams: Option<&CParams>,
    ) -> Result<usize> {
        let _held = self.hold(true)?;
        if self.vlmeta_exists(name).is_ok() {
            return Err(Error::InvalidParam);
        }
        if self.vlmetas.len() >= MAX_VLMETALAYERS {
            return Err(Error::InvalidParam);
        }
        let content = Schunk::compress_vlmeta(content, cparams)?;
        self.vlmetas.push(Meta {
            name: name.to_string(),
            content,
        });
        if let Err(e) = self.flush_frame() {
            self.vlmetas.pop();
            return Err(e);
        }
        self.change_tick += 1;
        Ok(self.vlmetas.len() - 1)
    }

    /// Replaces the content of vlmetalayer `name`; returns its index.
    pub fn vlmeta_update(
        &mut self,
        name: &str,
        content: &[u8],
        cparams: Option<&CParams>,
    ) -> Result<usize> {
        let _held = self.hold(true)?;
        let i = self.vlmeta_exists(name)?;
        self.vlmetas[i].content = Schunk::compress_vlmeta(content, cparams)?;
        self.change_tick += 1;
        self.flush_frame()?;
        Ok(i)
    }

    /// The (decompressed) content of vlmetalayer `name`.
    pub fn vlmeta_get(&self, name: &str) -> Result<Vec<u8>> {
        let i = self.vlmeta_exists(name)?;
        let stored = &self.vlmetas[i].content;
        let h = ChunkHeader::parse(stored)?;
        if h.cbytes as usize != stored.len() {
            return Err(Error::Data);
        }
        let mut out = vec![0u8; h.nbytes as usize];
        // As c-blosc2: a context from the storage's dparams, not the super-chunk's (which its
        // owner may have given a postfilter for the data).
        let n =
            Decompressor::new(self.storage.dparams.clone())?.decompress(stored, &mut out, None)?;
        if n != out.len() {
            return Err(Error::ReadBuffer);
        }
        Ok(out)
    }

    /// Removes vlmetalayer `name`; returns the number left.
    pub fn vlmeta_delete(&mut self, name: &str) -> Result<usize> {
        let _held = self.hold(true)?;
        let i = self.vlmeta_exists(name)?;
        self.vlmetas.remove(i);
        self.change_tick += 1;
        self.flush_frame()?;
        Ok(self.vlmetas.len())
    }

    /// Names of the vlmetalayers, in order.
    pub fn vlmeta_names(&self) -> Vec<&str> {
        self.vlmetas.iter().map(|m| m.name.as_str()).collect()
    }

    // ----- copies and serialisation --------------------------------------------------------

    /// Copies the super-chunk into `storage`: chunks are copied as they are when the
    /// compression parameters match, recompressed otherwise; metalayers and vlmetalayers follow.
    pub fn copy(&self, storage: Storage) -> Result<Schunk> {
        let as_stored = self.copies_as_stored(&storage.cparams);
        self.copy_chunks(storage, as_stored)
    }

    /// Whether a copy with `cparams` can take the chunks as they are stored.
    fn copies_as_stored(&self, dst: &CParams) -> bool {
        let src = &self.storage.cparams;
        src.typesize == dst.typesize
            && src.clevel == dst.clevel
            && src.compcode == dst.compcode
            && src.use_dict == dst.use_dict
            && (dst.blocksize == 0 || src.blocksize == dst.blocksize)
            && src.filters == dst.filters
            && src.filters_meta == dst.filters_meta
            && src.prefilter.is_none()
            && self.storage.dparams.postfilter.is_none()
    }

    /// `copy` with the choice of how chunks travel made by the caller: `as_stored` copies the
    /// compressed chunks as they are (the C layer decides as c-blosc2 does, against the block
    /// size its context last used), otherwise each chunk is decompressed and compressed again
    /// with `storage`'s parameters.
    pub fn copy_chunks(&self, storage: Storage, as_stored: bool) -> Result<Schunk> {
        let out = Schunk::new(storage)?;
        self.copy_into(out, as_stored)
    }

    /// `copy_chunks` into a contiguous in-memory frame kept in `store`, an empty store the
    /// caller provides (the C layer's is malloc'd memory that C code may free); `storage`
    /// must be contiguous and without a urlpath.
    pub fn copy_to_store(
        &self,
        storage: Storage,
        store: Box<dyn ByteStore>,
        as_stored: bool,
    ) -> Result<Schunk> {
        if !storage.contiguous || storage.urlpath.is_some() {
            return Err(Error::InvalidParam);
        }
        let mut out = Schunk::bare(storage, Chunks::List(Vec::new()))?;
        out.chunks = Chunks::Frame(out.create_frame(Backing::Contiguous {
            store: store.into(),
            offset: 0,
        })?);
        self.copy_into(out, as_stored)
    }

    fn copy_into(&self, mut out: Schunk, as_stored: bool) -> Result<Schunk> {
        for m in &self.metas {
            out.meta_add(&m.name, &m.content)?;
        }
        if !as_stored || !out.append_stored_chunks(self)? {
            for n in 0..self.nchunks() {
                if as_stored {
                    out.append_chunk(&self.get_chunk(n)?)?;
                } else {
                    out.append_buffer(&self.decompress_chunk_vec(n)?)?;
                }
            }
        }
        for m in &self.vlmetas {
            // As c-blosc2 does: decompressed, then added again with the default parameters.
            out.vlmeta_add(&m.name, &self.vlmeta_get(&m.name)?, None)?;
        }
        Ok(out)
    }

    /// Appends the chunks of `src` as they are stored to this super-chunk, an empty contiguous
    /// frame, leaving the bytes appending them one by one leaves (same header, offsets and
    /// chunk-size rules), but with one index rewrite and one read per run of chunks stored
    /// next to each other, straight into the frame. Ok(false) when it does not apply (not an
    /// empty contiguous frame, or a source chunk this path does not take: the caller then
    /// appends one by one, which reports any error as before).
    fn append_stored_chunks(&mut self, src: &Schunk) -> Result<bool> {
        match &self.chunks {
            Chunks::Frame(f) if !f.is_sparse() && f.nchunks() == 0 && self.cbytes == 0 => {}
            _ => return Ok(false),
        }
        let Some(plan) = src.stored_chunk_plan().filter(|p| !p.is_empty()) else {
            return Ok(false);
        };
        // The header fields one append after another would leave (see insert_at and
        // chunksize_after; a special chunk's size as the frame itself derives it).
        let mut chunksize = self.chunksize;
        let (mut nbytes, mut cbytes) = (self.nbytes, self.cbytes);
        let mut offsets = Vec::with_capacity(plan.len());
        for (n, c) in plan.iter().enumerate() {
            let cs = if chunksize == -1 { c.nbytes } else { chunksize };
            chunksize = if cs <= 0 {
                cs.max(0)
            } else {
                let prev_ok = match n.checked_sub(1).map(|p| &plan[p]) {
                    None => true,
                    Some(prev) if prev.special.is_some() => {
                        if chunksize <= 0 {
                            return Ok(false);
                        }
                        let rem = (nbytes % chunksize as i64) as i32;
                        (if rem != 0 { rem } else { chunksize }) == cs
                    }
                    Some(prev) => prev.nbytes == cs,
                };
                if c.nbytes <= cs && prev_ok {
                    cs
                } else {
                    0
                }
            };
            nbytes += c.nbytes as i64;
            match c.special {
                Some(kind) => offsets.push(crate::frame::offsets::special_offset(kind)),
                None => {
                    offsets.push(cbytes);
                    cbytes += c.cbytes as i64;
                }
            }
        }
        self.flags2 = plan[0].flags2;
        let mut h = self.frame_header();
        h.chunksize = chunksize;
        h.nbytes = nbytes;
        h.cbytes = cbytes;
        let Chunks::Frame(frame) = &mut self.chunks else {
            return Ok(false);
        };
        // Room for the data, the index and the trailer the vlmetalayers will need.
        let index_len = 8 * plan.len() as u64 + MAX_OVERHEAD as u64;
        let vl_len: usize = src
            .vlmetas
            .iter()
            .map(|m| m.name.len() + m.content.len())
            .sum();
        let header_len = frame.header().header_len as u64;
        frame.reserve(header_len + cbytes as u64 + index_len + 2 * vl_len as u64 + 1024);

        // Groups of consecutive regular chunks of up to COPY_GROUP bytes, each written with
        // one fill of the frame, reading runs of adjacent source chunks with one read.
        const COPY_GROUP: usize = 8 << 20;
        let regular: Vec<&PlannedChunk<'_>> = plan.iter().filter(|c| c.special.is_none()).collect();
        let mut at = 0i64;
        let mut i = 0;
        while i < regular.len() {
            let mut j = i;
            let mut len = 0usize;
            while j < regular.len() && (j == i || len + regular[j].cbytes as usize <= COPY_GROUP) {
                len += regular[j].cbytes as usize;
                j += 1;
            }
            let group = &regular[i..j];
            frame.fill_data(at, len, &mut |buf| src.read_stored_chunks(group, buf))?;
            at += len as i64;
            i = j;
        }
        frame.commit(h, &self.metas, &self.vlmetas, None, offsets)?;
        self.chunksize = chunksize;
        self.nbytes = nbytes;
        self.cbytes = cbytes;
        Ok(true)
    }

    /// Each chunk's sizes, flags and place, for `append_stored_chunks`; None when a chunk is
    /// not one it takes (a short or damaged header, a special offset that does not read back).
    fn stored_chunk_plan(&self) -> Option<Vec<PlannedChunk<'_>>> {
        let mut plan = Vec::with_capacity(self.nchunks() as usize);
        for n in 0..self.nchunks() {
            let (head, from) = match &self.chunks {
                Chunks::List(l) => {
                    let c = l.get(n as usize)?;
                    (
                        c.get(..EXTENDED_HEADER_LENGTH)?.to_vec(),
                        StoredAt::Bytes(c),
                    )
                }
                Chunks::Frame(f) => match f.chunk_head(n).ok()? {
                    (head, Some(place)) => (head, StoredAt::Frame(place)),
                    (head, None) => (head, StoredAt::Nowhere),
                },
            };
            let h = ChunkHeader::parse(&head).ok()?;
            let special = chunk_offset_special(&head);
            let fits = match from {
                StoredAt::Bytes(c) => (h.cbytes as usize) <= c.len(),
                _ => true,
            };
            if !fits || h.cbytes < EXTENDED_HEADER_LENGTH as i32 {
                return None;
            }
            if special.is_none() && matches!(from, StoredAt::Nowhere) {
                return None;
            }
            plan.push(PlannedChunk {
                nbytes: h.nbytes,
                cbytes: h.cbytes,
                flags2: h.blosc2_flags2,
                special,
                from,
            });
        }
        Some(plan)
    }

    /// Reads the regular chunks of `group` one after another into `buf`, runs of chunks stored
    /// next to each other in one read, and checks that each chunk read is the one planned.
    fn read_stored_chunks(&self, group: &[&PlannedChunk<'_>], buf: &mut [u8]) -> Result<()> {
        let mut done = 0usize;
        let mut k = 0;
        while k < group.len() {
            let start = done;
            let first = group[k];
            done += first.cbytes as usize;
            match first.from {
                StoredAt::Bytes(c) => {
                    buf[start..done].copy_from_slice(&c[..first.cbytes as usize]);
                    k += 1;
                }
                StoredAt::Frame(place) => {
                    k += 1;
                    if let ChunkPlace::InStore(pos) = place {
                        let mut next = pos + first.cbytes as u64;
                        while k < group.len()
                            && group[k].from == StoredAt::Frame(ChunkPlace::InStore(next))
                        {
                            done += group[k].cbytes as usize;
                            next += group[k].cbytes as u64;
                            k += 1;
                        }
                    }
                    let Chunks::Frame(f) = &self.chunks else {
                        return Err(Error::FrameType);
                    };
                    f.read_chunk_at(place, &mut buf[start..done])?;
                }
                StoredAt::Nowhere => return Err(Error::Data),
            }
        }
        // What was read must still be the chunks the plan measured.
        let mut at = 0usize;
        for c in group {
            let h = ChunkHeader::parse(&buf[at..])?;
            if h.cbytes != c.cbytes || h.nbytes != c.nbytes {
                return Err(Error::ReadBuffer);
            }
            at += c.cbytes as usize;
        }
        Ok(())
    }

    /// The super-chunk as a contiguous frame (borrowed when it already is one in memory).
    /// The super-chunk as a contiguous frame (borrowed when it already is one in memory).
    pub fn to_buffer(&self) -> Result<Cow<'_, [u8]>> {
        if let Some(f) = self.frame() {
            if let Some(bytes) = f.as_bytes() {
                return Ok(Cow::Borrowed(bytes));
            }
        }
        let copy = self.copy(Storage {
            contiguous: true,
            urlpath: None,
            ..self.storage.clone()
        })?;
        let bytes = copy.frame().ok_or(Error::SchunkCopy)?.to_vec()?;
        Ok(Cow::Owned(bytes))
    }

    /// Writes the super-chunk as a cframe file at `urlpath`; returns its length.
    pub fn to_file(&self, urlpath: &Path) -> Result<i64> {
        if let Some(bytes) = self.frame().and_then(|f| f.as_bytes()) {
            let mut f = self.storage.io.open(urlpath, OpenMode::Create)?;
            f.write_at(0, bytes)?;
            return Ok(bytes.len() as i64);
        }
        let copy = self.copy(Storage {
            contiguous: true,
            urlpath: Some(urlpath.to_path_buf()),
            ..self.storage.clone()
        })?;
        Ok(copy.frame_len())
    }

    /// Appends the super-chunk as a cframe at the end of the file `urlpath`; returns the offset
    /// where it starts (open it again with `open_offset`); a missing file is created.
    pub fn append_file(&self, urlpath: &Path) -> Result<i64> {
        let bytes = self.to_buffer()?;
        // c-blosc2 opens the file "ab": a missing file is created and the frame lands at 0.
        let mut f = self.storage.io.open(urlpath, OpenMode::Append)?;
        let at = f.size()?;
        f.write_at(at, &bytes)?;
        Ok(at as i64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(n: usize, seed: u32) -> Vec<u8> {
        (0..n as u32)
            .flat_map(|i| (seed * 1000 + i * (seed + 1) + (i % 7) * 3).to_le_bytes())
            .collect()
    }

    fn storage(contiguous: bool) -> Storage {
        Storage {
            contiguous,
            cparams: CParams {
                typesize: 4,
                ..CParams::default()
            },
            ..Storage::default()
        }
    }

    #[test]
    fn memory_list_and_frame_agree() {
        for contiguous in [false, true] {
            let mut sc = Schunk::new(storage(contiguous)).unwrap();
            assert_eq!(sc.chunksize(), -1);
            sc.append_buffer(&data(1000, 1)).unwrap();
            sc.append_buffer(&data(1000, 2)).unwrap();
            assert_eq!(sc.append_buffer(&data(10, 3)).unwrap(), 3);
            assert_eq!(sc.chunksize(), 4000);
            assert_eq!(sc.nbytes(), 8040);
            assert_eq!(sc.decompress_chunk_vec(1).unwrap(), data(1000, 2));
            assert_eq!(sc.decompress_chunk_vec(2).unwrap(), data(10, 3));
            let mut slice = vec![0u8; 8];
            sc.get_slice_buffer(999, 1001, &mut slice).unwrap();
            assert_eq!(&slice[..4], &data(1000, 1)[3996..]);
            assert_eq!(&slice[4..], &data(1000, 2)[..4]);
            assert_eq!(sc.get_chunk(3).err(), Some(Error::InvalidParam));
        }
    }

    /// A copy made the way copies were made before `append_stored_chunks`: every chunk
    /// appended on its own.
    fn copy_one_by_one(src: &Schunk) -> Schunk {
        let mut out = Schunk::new(storage(true)).unwrap();
        for m in &src.metas {
            out.meta_add(&m.name, &m.content).unwrap();
        }
        for n in 0..src.nchunks() {
            out.append_chunk(&src.get_chunk(n).unwrap()).unwrap();
        }
        for m in &src.vlmetas {
            out.vlmeta_add(&m.name, &src.vlmeta_get(&m.name).unwrap(), None)
                .unwrap();
        }
        out
    }

    fn zeros_chunk(nbytes: i32) -> Vec<u8> {
        let mut c = vec![0u8; EXTENDED_HEADER_LENGTH];
        let params = storage(true).cparams;
        crate::chunk::special::make(&params, Special::Zero, nbytes, None, &mut c).unwrap();
        c
    }

    /// Chunks read from disk go through one reused buffer per thread: chunks of other sizes
    /// in any order (longer, shorter, special) still decompress to exactly their data, and a
    /// chunk read as a whole agrees with the decompression.
    #[test]
    fn chunks_on_disk_read_through_the_reused_buffer() {
        let dir = std::env::temp_dir();
        let pid = std::process::id();
        for (contiguous, name) in [(true, "b2frame"), (false, "b2sframe")] {
            let path = dir.join(format!("rblosc2-reuse-{pid}.{name}"));
            let _ = crate::urlpath::remove_urlpath(&path);
            let mut sc = Schunk::new(Storage {
                urlpath: Some(path.clone()),
                ..storage(contiguous)
            })
            .unwrap();
            // Items per chunk, 0 for a chunk of zeros (a special chunk), the short one last.
            let items = [1000usize, 0, 1000, 10];
            let want = |k: usize| match items[k] {
                0 => vec![0u8; 4000],
                n => data(n, k as u32),
            };
            for k in 0..items.len() {
                sc.append_buffer(&want(k)).unwrap();
            }
            for k in [0usize, 3, 1, 2, 3, 0] {
                let mut out = vec![0xAAu8; 4000];
                let n = sc.decompress_chunk(k as i64, &mut out, None).unwrap();
                assert_eq!(&out[..n], &want(k)[..], "chunk {k}");
                assert_eq!(sc.decompress_chunk_vec(k as i64).unwrap(), want(k));
            }
            let mut out = vec![0u8; 4000];
            assert_eq!(
                sc.decompress_chunk(4, &mut out, None),
                Err(Error::InvalidParam)
            );
            drop(sc);
            crate::urlpath::remove_urlpath(&path).unwrap();
        }
    }

    /// Copies that take the chunks as stored write the whole runs of chunks at once, yet leave
    /// the bytes appending them one by one leaves: chunk-size rules with special chunks (as
    /// offsets, whose size the frame derives) and a short last chunk, frames whose chunks
    /// were rewritten out of place, for every kind of source.
    #[test]
    fn stored_copies_write_what_appending_one_by_one_writes() {
        let dir = std::env::temp_dir();
        let pid = std::process::id();
        let sources = [
            (false, None),
            (true, None),
            (true, Some(dir.join(format!("rblosc2-copy-{pid}.b2frame")))),
            (
                false,
                Some(dir.join(format!("rblosc2-copy-{pid}.b2sframe"))),
            ),
        ];
        // Items per chunk, negative for a chunk of zeros.
        let histories: [&[i32]; 5] = [
            &[1000, 1000, 1000, 10],
            &[1000, 1000, -1000, -1000],
            &[1000, 1000, -500],
            &[-1000, 1000, -1000, 999],
            &[1000, -1000, -500, 1000],
        ];
        for (contiguous, urlpath) in sources {
            for (k, history) in histories.iter().enumerate() {
                if k == 4 && (contiguous || urlpath.is_some()) {
                    // A frame cannot even hand out such special chunks: only lists copy them.
                    continue;
                }
                if let Some(p) = &urlpath {
                    let _ = crate::urlpath::remove_urlpath(p);
                }
                let mut src = Schunk::new(Storage {
                    urlpath: urlpath.clone(),
                    ..storage(contiguous)
                })
                .unwrap();
                src.meta_add("m", b"meta").unwrap();
                for (i, &n) in history.iter().enumerate() {
                    if n < 0 {
                        src.append_chunk(&zeros_chunk(-n * 4)).unwrap();
                    } else {
                        src.append_buffer(&data(n as usize, i as u32)).unwrap();
                    }
                }
                if k == 0 {
                    // Rewritten in place, then out of place: the frame keeps a hole, and the
                    // chunk size turns variable. (Not with special chunks: a frame cannot
                    // tell their size then.)
                    let third = src.get_chunk(2).unwrap().to_vec();
                    src.update_chunk(0, &third).unwrap();
                    let mut big = vec![0u8; 8000 + MAX_OVERHEAD];
                    let n = src.compressor().compress(&data(2000, 9), &mut big).unwrap();
                    src.update_chunk(2, &big[..n]).unwrap();
                }
                src.vlmeta_add("v", b"vlmeta", None).unwrap();

                let mut fast = Schunk::new(storage(true)).unwrap();
                fast.meta_add("m", b"meta").unwrap();
                let what = format!("contiguous {contiguous}, {urlpath:?}, history {k}");
                assert!(fast.append_stored_chunks(&src).unwrap(), "{what}");
                fast.vlmeta_add("v", b"vlmeta", None).unwrap();
                let slow = copy_one_by_one(&src);
                assert_eq!(
                    fast.to_buffer().unwrap(),
                    slow.to_buffer().unwrap(),
                    "{what}"
                );
                assert_eq!(fast.chunksize(), slow.chunksize(), "{what}");
                assert_eq!(
                    src.copy(storage(true)).unwrap().to_buffer().unwrap(),
                    slow.to_buffer().unwrap(),
                    "{what}"
                );
                // (A frame cannot tell the size of its special chunks once the chunk size
                // turned variable: the last history only compares bytes.)
                for n in 0..src.nchunks() {
                    if k < 4 {
                        let got = fast.decompress_chunk_vec(n).unwrap();
                        assert_eq!(got, src.decompress_chunk_vec(n).unwrap(), "{what}");
                    }
                }
                if let Some(p) = &urlpath {
                    crate::urlpath::remove_urlpath(p).unwrap();
                }
            }
        }
    }

    #[test]
    fn file_urls_lose_their_prefix() {
        assert_eq!(local_path(Path::new("file:///tmp/x")), Path::new("tmp/x"));
        assert_eq!(local_path(Path::new("/tmp/x")), Path::new("/tmp/x"));
        assert_eq!(local_path(Path::new("file://x")), Path::new("file://x"));
    }

    /// The chunk-size rules c-blosc2 3.3.5 follows (sequences checked against it).
    #[test]
    fn chunksize_turns_variable_like_the_reference() {
        let run = |sizes: &[usize]| -> Vec<i32> {
            let mut sc = Schunk::new(storage(true)).unwrap();
            sizes
                .iter()
                .map(|&n| {
                    sc.append_buffer(&data(n / 4, 1)).unwrap();
                    sc.chunksize()
                })
                .collect()
        };
        assert_eq!(run(&[4000, 5000, 4000]), [4000, 0, 0]);
        assert_eq!(run(&[4000, 3000, 4000]), [4000, 4000, 0]);
        assert_eq!(run(&[4000, 4000, 3000, 3000]), [4000, 4000, 4000, 0]);
        let edit = |at: i64, n: usize, insert: bool| -> i32 {
            let mut sc = Schunk::new(storage(false)).unwrap();
            for _ in 0..3 {
                sc.append_buffer(&data(1000, 1)).unwrap();
            }
            let mut one = Schunk::new(storage(false)).unwrap();
            one.append_buffer(&data(n / 4, 2)).unwrap();
            let chunk = one.get_chunk(0).unwrap().into_owned();
            if insert {
                sc.insert_chunk(at, &chunk).unwrap();
            } else {
                sc.update_chunk(at, &chunk).unwrap();
            }
            sc.chunksize()
        };
        assert_eq!(edit(0, 3000, false), 0);
        assert_eq!(edit(2, 3000, false), 4000);
        assert_eq!(edit(1, 5000, false), 0);
        assert_eq!(edit(1, 3000, true), 0);
        assert_eq!(edit(3, 3000, true), 4000);
        assert_eq!(edit(1, 5000, true), 0);
    }
}

#[cfg(test)]
mod shared_frame_tests {
    use super::*;
    use crate::frame::io::LockingFileIo;
    use crate::frame::lock::sidecar_path;

    /// A reader handle sees what a writer handle added after `refresh` (not before) and keeps
    /// its own parameters; with locking, an exclusive lock by the writer bumps the sidecar's
    /// generation, which makes the reader stale at its next (shared) lock.
    #[test]
    fn reader_refreshes_after_writer_grows_the_frame() {
        for (contiguous, locking) in [(true, false), (true, true), (false, true)] {
            let path = std::env::temp_dir().join(format!(
                "rblosc2-shared-{}-{contiguous}-{locking}",
                std::process::id()
            ));
            let _ = crate::urlpath::remove_urlpath(&path);
            let io: Arc<dyn Io> = if locking {
                Arc::new(LockingFileIo)
            } else {
                Arc::new(FileIo)
            };
            let storage = Storage {
                contiguous,
                urlpath: Some(path.clone()),
                cparams: CParams {
                    typesize: 4,
                    ..Default::default()
                },
                io: io.clone(),
                ..Default::default()
            };
            let block: Vec<u8> = (0..4000u32).flat_map(|i| i.to_le_bytes()).collect();
            let mut writer = Schunk::new(storage).unwrap();
            writer.append_buffer(&block).unwrap();
            let mut reader = Schunk::open_offset_with(&path, 0, io).unwrap();
            reader.storage.dparams.nthreads = 3;
            assert!(!reader.is_stale());
            writer.append_buffer(&block).unwrap();
            writer.vlmeta_add("v", b"x", None).unwrap();
            assert!(reader.is_stale());
            assert_eq!(reader.nchunks(), 1);
            assert_eq!(reader.refresh(), Ok(true));
            assert_eq!(reader.refresh(), Ok(false));
            assert_eq!((reader.nchunks(), reader.nbytes()), (2, 32_000));
            assert_eq!(reader.vlmeta_get("v").unwrap(), b"x");
            assert_eq!(reader.dparams().nthreads, 3);
            assert_eq!(reader.decompress_chunk_vec(1).unwrap(), block);
            if locking {
                // Each change the writer made took the lock exclusively once (two appends
                // and a vlmetalayer), and so does an explicit bracket.
                writer.lock().unwrap();
                writer.lock().unwrap();
                writer.unlock().unwrap();
                writer.unlock().unwrap();
                let sidecar = std::fs::read(sidecar_path(&path, !contiguous)).unwrap();
                assert_eq!(sidecar[8..16], 4u64.to_ne_bytes());
                assert!(
                    !reader.is_stale(),
                    "the generation is only looked at under the lock"
                );
                reader.lock_shared().unwrap();
                reader.unlock().unwrap();
                assert!(
                    reader.is_stale(),
                    "another handle took the lock exclusively"
                );
                assert_eq!(reader.refresh(), Ok(true));
            }
            crate::urlpath::remove_urlpath(&path).unwrap();
        }
    }
}
