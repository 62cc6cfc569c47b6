//! Making and opening super-chunks: new ones in memory, in a cframe file or an sframe
//! directory; existing frames from a buffer, a file (at an offset) or a user I/O backend.

use std::borrow::Cow;
use std::path::Path;
use std::sync::{Arc, OnceLock, RwLock};

use super::{local_path, Chunks, Schunk, Storage};
use crate::chunk::header::VL_BLOCKS;
use crate::chunk::{CParams, ChunkHeader, Compressor, DParams, Decompressor};
use crate::frame::io::{FileIo, Io, MemStore, OpenMode, SharedBytes};
use crate::frame::lock::FrameLock;
use crate::frame::{Backing, Frame, FrameHeader, Opened, SFRAME_INDEX};
use crate::{Error, Result};

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
            (None, true) => Chunks::Frame(Box::new(sc.create_frame(Backing::Contiguous {
                store: MemStore::default().into(),
                offset: 0,
            })?)),
            (Some(path), true) => {
                if path.exists() {
                    return Err(Error::FileOpen);
                }
                let store = sc.storage.io.open(path, OpenMode::Create)?;
                Chunks::Frame(Box::new(sc.create_frame(Backing::Contiguous {
                    store: store.into(),
                    offset: 0,
                })?))
            }
            (Some(path), false) => {
                std::fs::create_dir(path).map_err(|_| Error::FileOpen)?;
                let index = sc
                    .storage
                    .io
                    .open(&path.join(SFRAME_INDEX), OpenMode::Create)?;
                Chunks::Frame(Box::new(sc.create_frame(Backing::Sparse {
                    dir: path.clone(),
                    index,
                })?))
            }
        };
        sc.lock = Schunk::frame_lock(&sc.storage, !sc.storage.contiguous);
        Ok(sc)
    }

    /// An empty in-memory super-chunk that holds a place until the real one takes it (a C
    /// handle being made, the slot of a super-chunk lent to an array). Placeholders share one
    /// compressor and decompressor built with the default parameters at the first call, so
    /// making one builds no engines and reads no environment: every b2nd array handle takes
    /// two (c-blosc2 makes neither; 2 of the 5 us b2nd_copy of a 100x100 array took).
    pub fn placeholder() -> Result<Schunk> {
        static SHARED: OnceLock<Schunk> = OnceLock::new();
        let shared = match SHARED.get() {
            Some(s) => s,
            None => {
                let first = Schunk::bare(Storage::default(), Chunks::List(Vec::new()))?;
                SHARED.get_or_init(|| first)
            }
        };
        let mut p = Schunk::with_engines(
            shared.storage.clone(),
            shared.compressor(),
            shared.decompressor(),
            Chunks::List(Vec::new()),
        );
        // Never written: no fingerprints; its (empty) chunk list is never reported to a C
        // mirror as a change.
        p.fingerprint = super::FingerprintMode::Off;
        p.list_changed_from = None;
        Ok(p)
    }

    pub(super) fn bare(mut storage: Storage, chunks: Chunks) -> Result<Schunk> {
        // The contexts belong to this super-chunk: BYTEDELTA with meta 0 takes its typesize.
        storage.cparams.schunk_typesize = Some(storage.cparams.typesize);
        storage.dparams.schunk_typesize = Some(storage.cparams.typesize);
        let compressor = Compressor::new(storage.compressor_cparams())?;
        let decompressor = Decompressor::new(storage.dparams.clone())?;
        let mut sc = Schunk::with_engines(
            storage,
            Arc::new(compressor),
            Arc::new(decompressor),
            chunks,
        );
        sc.fingerprint = super::FingerprintMode::from_env();
        Ok(sc)
    }

    /// A super-chunk without metalayers whose chunks are `chunks`, compressing and
    /// decompressing with the engines given (built for `storage`'s parameters).
    fn with_engines(
        storage: Storage,
        compressor: Arc<Compressor>,
        decompressor: Arc<Decompressor>,
        chunks: Chunks,
    ) -> Schunk {
        Schunk {
            blocksize: storage.cparams.blocksize,
            storage,
            compressor: RwLock::new(compressor),
            decompressor: RwLock::new(decompressor),
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
            fingerprint: super::FingerprintMode::Off,
        }
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

    pub(super) fn create_frame(&self, backing: Backing) -> Result<Frame> {
        let mode = self.fingerprint;
        let mut frame = Frame::create(
            backing,
            self.storage.io.clone(),
            self.frame_header(),
            &self.metas,
            &self.vlmetas,
            mode != super::FingerprintMode::Off,
        )?;
        frame.set_offsets_adjust(self.storage.compressor_adjust.clone());
        frame.set_fingerprinting(
            mode != super::FingerprintMode::Off,
            mode == super::FingerprintMode::Verify,
        );
        Ok(frame)
    }

    /// The frame header that describes this super-chunk now.
    pub(super) fn frame_header(&self) -> FrameHeader {
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
        let mut sc = Schunk::bare(storage, Chunks::List(Vec::new()))?;
        sc.lock = Schunk::frame_lock(&sc.storage, sparse);
        sc.take_opened(Opened {
            frame,
            metas,
            vlmetas,
            flags2,
        });
        sc.refresh_layout()?;
        Ok(sc)
    }

    /// Takes in a frame just opened: its chunks, the counters its header gives, its flags2 and
    /// its metalayers (the parameters stay the super-chunk's).
    pub(super) fn take_opened(&mut self, opened: Opened) {
        let Opened {
            frame,
            metas,
            vlmetas,
            flags2,
        } = opened;
        let h = frame.header();
        self.chunksize = h.chunksize;
        self.blocksize = h.blocksize;
        self.nbytes = h.nbytes;
        self.cbytes = h.cbytes;
        self.flags2 = flags2;
        self.metas = metas;
        self.vlmetas = vlmetas;
        let mut frame = frame;
        frame.set_offsets_adjust(self.storage.compressor_adjust.clone());
        self.chunks = Chunks::Frame(Box::new(frame));
        self.apply_fingerprint_mode();
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
            // Chunks of a frame in memory are copied into kept list buffers when there are
            // some (see storage::list_chunk); those read from disk are fresh already.
            let c = match frame.chunk(n)? {
                Cow::Borrowed(b) => super::storage::list_chunk(b),
                Cow::Owned(v) => v,
            };
            let h = ChunkHeader::parse(&c)?;
            cbytes += h.cbytes as i64;
            nbytes += h.nbytes as i64;
            blocksize = match blocksize {
                None => Some(h.blocksize),
                Some(b) if b == h.blocksize => Some(b),
                Some(_) => Some(0),
            };
            list.push(super::storage::ListChunk::Own(c));
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
}
