//! Frames: a super-chunk serialised as header + chunks + offsets index + trailer, either
//! contiguous (one buffer or file, possibly at an offset inside a larger file) or sparse (a
//! directory holding the index frame `chunks.b2frame` and one `NNNNNNNN.chunk` file per chunk).
//!
//! `Frame` keeps the header fields and the decoded offsets in memory; reads go to the byte
//! store through `&self` (positional), writes rewrite the index, trailer and header after each
//! change, in the order and layout c-blosc2 3.3.5 uses, so that the bytes match.

pub(crate) mod crc32c;
pub mod fingerprint;
pub mod header;
pub mod io;
pub(crate) mod lock;
pub(crate) mod offsets;
pub(crate) mod trailer;
mod verify;
mod write;

pub(crate) use write::DataEdit;

use std::borrow::Cow;
use std::cell::Cell;
use std::mem::MaybeUninit;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::chunk::header::{Special, EXTENDED_HEADER_LENGTH, MIN_HEADER_LENGTH};
use crate::chunk::scratch::reuse;
use crate::chunk::{CParams, ChunkHeader};
use crate::{Error, Result};

pub use header::{FrameHeader, Meta};
use io::{read_exact_at, read_vec, ByteStore, Io, MemStore, OpenMode, Store};

/// Name of the index frame inside an sframe directory.
pub const SFRAME_INDEX: &str = "chunks.b2frame";

/// Path of chunk file `id` of the sframe in `dir`.
pub fn sframe_chunk_path(dir: &Path, id: i64) -> PathBuf {
    dir.join(format!("{:08X}.chunk", id as u32))
}

/// Where a frame's bytes are.
pub(crate) enum Backing {
    /// A contiguous frame starting at `offset` in `store` (a buffer or a file).
    Contiguous {
        /// The bytes: memory, a file, or a user I/O backend.
        store: Store,
        /// Byte position of the frame's first byte in `store`.
        offset: u64,
    },
    /// A sparse frame: the index frame in `index`, chunk files in `dir`.
    Sparse {
        /// The directory holding `chunks.b2frame` and the `NNNNNNNN.chunk` files.
        dir: PathBuf,
        /// The opened index frame ([`SFRAME_INDEX`]).
        index: Box<dyn ByteStore>,
    },
}

/// A chunk [`Frame::locate_chunk`] found.
/// A chunk as [`Frame::chunk_into`] gives it.
pub enum ChunkBytes<'a, 'b> {
    /// In memory (borrowed from the frame or the chunk list) or made (a special chunk).
    Stored(Cow<'a, [u8]>),
    /// Read from disk into the caller's buffer.
    Read(&'b [u8]),
}

enum Located<'a> {
    /// Borrowed from a frame in memory, or made (a special chunk).
    Ready(Cow<'a, [u8]>),
    /// On disk, its header read and checked.
    Disk(DiskChunk),
}

/// A regular chunk on disk: `len` bytes at `pos` of `file` (an sframe chunk file) or of the
/// frame's store, the first `head_len` of which are in `head`.
struct DiskChunk {
    file: Option<Box<dyn ByteStore>>,
    pos: u64,
    head: [u8; EXTENDED_HEADER_LENGTH],
    head_len: usize,
    len: usize,
}

thread_local! {
    /// The buffer [`Frame::with_chunk`] reads chunks into, kept across calls.
    static CHUNK_BUF: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

/// Larger chunk buffers are not kept after use (a thread should not hold on to a huge chunk).
const CHUNK_BUF_KEEP: usize = 8 << 20;

/// Runs `f` on this thread's reused chunk buffer, `len` bytes long (their contents are left
/// over from earlier uses: `f` overwrites what it reads). Taken out while in use: a call nested
/// in `f` (a callback) gets a buffer of its own.
pub(crate) fn with_chunk_buf<R>(len: usize, f: impl FnOnce(&mut [u8]) -> R) -> R {
    let mut buf = CHUNK_BUF.with(Cell::take);
    let r = f(reuse(&mut buf, len));
    if buf.len() <= CHUNK_BUF_KEEP {
        CHUNK_BUF.with(|c| c.set(buf));
    }
    r
}

/// Where the bytes of a regular chunk of a frame are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ChunkPlace {
    /// At this byte position of a contiguous frame's store.
    InStore(u64),
    /// In the sframe chunk file with this id.
    File(i64),
}

/// What opening a frame finds besides the frame itself.
pub(crate) struct Opened {
    /// The frame, its header and chunk offsets read and checked.
    pub frame: Frame,
    /// The fixed-length metalayers of the header, in order.
    pub metas: Vec<Meta>,
    /// The variable-length metalayers of the trailer (contents still compressed).
    pub vlmetas: Vec<Meta>,
    /// `blosc2_flags2` of the first chunk (tells VL-block super-chunks), 0 without chunks.
    pub flags2: u8,
}

/// An open frame.
pub struct Frame {
    backing: Backing,
    io: Arc<dyn Io>,
    /// The header as last read or written (sizes, chunk size, header and frame lengths).
    header: FrameHeader,
    offsets: Vec<i64>,
    trailer_len: u32,
    /// What the offsets chunks written from now on take in their parameters (see
    /// [`offsets::encode_with_room`]).
    offsets_adjust: Option<crate::chunk::params::CParamsAdjust>,
    /// Whether the frame is being built by the call that created it (see
    /// [`Frame::set_building`]): changes are written straight, not in the kill-safe order.
    building: bool,
    /// Fingerprints (docs/FINGERPRINTS.md).
    fp: FpState,
}

/// A frame's fingerprint: what it holds and what is done with it.
#[derive(Debug, Clone, Default)]
pub(crate) struct FpState {
    /// The per-chunk table of the fingerprint the frame holds (as opened, or as last written);
    /// None when it holds none that holds.
    pub table: Option<Vec<fingerprint::Entry>>,
    /// What opening found when the fingerprint did not hold.
    pub damaged: Option<fingerprint::Region>,
    /// Whether changes are written with fingerprints.
    pub write: bool,
    /// Whether chunk reads are checked against the table.
    pub verify_reads: bool,
}

/// The parts of a frame as read from its store, checked as opening checks them.
struct Parts {
    header: FrameHeader,
    header_bytes: Vec<u8>,
    offsets: Vec<i64>,
    off_bytes: Vec<u8>,
    trailer_len: u32,
    trailer_bytes: Vec<u8>,
    metas: Vec<Meta>,
    vlmetas: Vec<Meta>,
}

impl Parts {
    /// What the frame's fingerprint says of these parts; its table's vlmetalayer is taken out
    /// of `vlmetas` (it is not one of the user's).
    fn fingerprint(&mut self) -> fingerprint::State {
        let table = fingerprint::take_table_meta(&mut self.vlmetas);
        fingerprint::evaluate(
            &self.header_bytes,
            &self.off_bytes,
            &self.trailer_bytes,
            table.as_ref(),
            self.offsets.len(),
        )
    }
}

impl Frame {
    /// Marks the frame as being built (`true`) by the call that created its file, or done
    /// (`false`); returns the previous mark. While built, nothing in the file has been
    /// acknowledged to anyone (c-blosc2 itself creates or truncates such a file), so every
    /// change is written straight, in plain single writes, as in memory; once done, every
    /// later change goes through the kill-safe order again (docs/CRASH-SAFETY.md, "A file
    /// being created"). The bytes are the same either way.
    pub(crate) fn set_building(&mut self, on: bool) -> bool {
        std::mem::replace(&mut self.building, on)
    }

    /// Writes the offsets chunks from now on with the parameters `adjust` changes.
    pub fn set_offsets_adjust(&mut self, adjust: Option<crate::chunk::params::CParamsAdjust>) {
        self.offsets_adjust = adjust;
    }

    /// The offsets chunk of `offsets`, its destination sized for `room` offsets (see
    /// [`offsets::encode_with_room`]).
    pub(crate) fn encode_offsets(&self, offsets: &[i64], room: usize) -> Result<Vec<u8>> {
        offsets::encode_with_room(offsets, room, self.offsets_adjust.as_ref())
    }

    /// The header fields as last read or written.
    pub fn header(&self) -> &FrameHeader {
        &self.header
    }

    /// Length of the frame in bytes (for an sframe, of its index frame).
    pub fn len(&self) -> i64 {
        self.header.frame_len
    }

    /// Whether the frame holds no bytes at all (never true for a valid frame).
    pub fn is_empty(&self) -> bool {
        self.header.frame_len == 0
    }

    /// Number of chunks (entries of the offsets index).
    pub fn nchunks(&self) -> i64 {
        self.offsets.len() as i64
    }

    /// The decoded chunk offsets (negative: special chunk; sframe: chunk file ids).
    pub fn offsets(&self) -> &[i64] {
        &self.offsets
    }

    /// Whether this is a sparse frame (a directory of chunk files).
    pub fn is_sparse(&self) -> bool {
        matches!(self.backing, Backing::Sparse { .. })
    }

    /// The sframe directory, for sparse frames.
    pub fn dir(&self) -> Option<&Path> {
        match &self.backing {
            Backing::Sparse { dir, .. } => Some(dir),
            Backing::Contiguous { .. } => None,
        }
    }

    /// The whole frame when it is a contiguous frame in memory.
    pub fn as_bytes(&self) -> Option<&[u8]> {
        match &self.backing {
            Backing::Contiguous { store, offset: 0 } => store.as_slice(),
            _ => None,
        }
    }

    /// The in-memory bytes of a frame that starts its buffer, taken out of the frame (which is
    /// left empty); None for files, sparse frames and borrowed buffers.
    pub(crate) fn take_owned_bytes(&mut self) -> Option<Vec<u8>> {
        match &mut self.backing {
            Backing::Contiguous { store, offset: 0 } => store.take_owned(),
            _ => None,
        }
    }

    fn main_store(&self) -> (&dyn ByteStore, u64) {
        match &self.backing {
            Backing::Contiguous { store, offset } => (&**store, *offset),
            Backing::Sparse { index, .. } => (&**index, 0),
        }
    }

    /// Where the frame starts in its file (0 for sparse frames and buffers).
    pub fn file_offset(&self) -> u64 {
        self.main_store().1
    }

    /// Whether the frame's file (an sframe's index file) was replaced at its path since the
    /// frame was opened (see `ByteStore::replaced`).
    pub fn store_replaced(&self) -> bool {
        self.main_store().0.replaced()
    }

    /// The frame length its header in the store says now (another handle on the same file may
    /// have changed it since this one read it).
    pub fn len_in_store(&self) -> Result<i64> {
        let (store, base) = self.main_store();
        let mut buf = [0u8; 8];
        read_exact_at(store, base + header::POS_FRAME_LEN as u64, &mut buf)?;
        Ok(i64::from_be_bytes(buf))
    }

    /// Reads the whole frame (index frame for sframes) into a vector.
    pub fn to_vec(&self) -> Result<Vec<u8>> {
        let (store, base) = self.main_store();
        let len = usize::try_from(self.header.frame_len).map_err(|_| Error::MemoryAlloc)?;
        read_vec(store, base, len)
    }

    // ----- opening -------------------------------------------------------------------------

    /// Opens a contiguous frame held in memory; `frame_len` in its header must equal its size.
    pub(crate) fn from_memory(store: MemStore) -> Result<Opened> {
        let len = store.bytes().len() as u64;
        Self::open_store(
            Backing::Contiguous {
                store: store.into(),
                offset: 0,
            },
            Arc::new(io::FileIo),
            Some(len),
        )
    }

    /// Opens the frame at `urlpath` (a cframe file, or an sframe directory) whose header
    /// starts at byte `offset` of the file.
    pub(crate) fn open(io: Arc<dyn Io>, urlpath: &Path, offset: u64) -> Result<Opened> {
        let meta = std::fs::metadata(urlpath).map_err(|_| Error::FileOpen)?;
        if meta.is_dir() {
            let index = io.open(&urlpath.join(SFRAME_INDEX), OpenMode::ReadWrite)?;
            let backing = Backing::Sparse {
                dir: urlpath.to_path_buf(),
                index,
            };
            return Self::open_store(backing, io, None);
        }
        let store = io
            .open(urlpath, OpenMode::ReadWrite)
            .or_else(|_| io.open(urlpath, OpenMode::Read))?;
        let size = store.size()?;
        if offset > size {
            return Err(Error::FileRead);
        }
        Self::open_store(
            Backing::Contiguous {
                store: store.into(),
                offset,
            },
            io,
            None,
        )
    }

    fn open_store(backing: Backing, io: Arc<dyn Io>, exact_len: Option<u64>) -> Result<Opened> {
        let (store, base) = match &backing {
            Backing::Contiguous { store, offset } => (&**store, *offset),
            Backing::Sparse { index, .. } => (&**index, 0),
        };
        let sparse = matches!(backing, Backing::Sparse { .. });
        let mut parts = read_parts(store, base, exact_len, sparse)?;
        let mut fp = FpState::default();
        match parts.fingerprint() {
            fingerprint::State::Valid(t) => fp.table = Some(t),
            fingerprint::State::Damaged(r) => fp.damaged = Some(r),
            fingerprint::State::Absent(_) => {}
        }
        let frame = Frame {
            backing,
            io,
            header: parts.header,
            offsets: parts.offsets,
            trailer_len: parts.trailer_len,
            offsets_adjust: None,
            building: false,
            fp,
        };
        let mut flags2 = 0;
        if frame.nchunks() > 0 {
            flags2 = frame.chunk_header(0)?.blosc2_flags2;
        }
        Ok(Opened {
            frame,
            metas: parts.metas,
            vlmetas: parts.vlmetas,
            flags2,
        })
    }

    // ----- reading -------------------------------------------------------------------------

    /// Uncompressed size of chunk `n` when it is special (it has no header of its own).
    fn special_nbytes(&self, n: usize) -> Result<i32> {
        let cs = self.header.chunksize;
        if cs <= 0 {
            return Err(Error::InvalidHeader);
        }
        let rem = self.header.nbytes % cs as i64;
        if n + 1 == self.offsets.len() && rem != 0 {
            Ok(rem as i32)
        } else {
            Ok(cs)
        }
    }

    /// The header of chunk `n`, reading no more than the header.
    pub fn chunk_header(&self, n: i64) -> Result<ChunkHeader> {
        let idx = usize::try_from(n).map_err(|_| Error::InvalidParam)?;
        let offset = *self.offsets.get(idx).ok_or(Error::InvalidParam)?;
        if self.is_sparse() && offset >= 0 {
            // The chunk file's first bytes, not the whole file.
            return self.located_chunk_header(n);
        }
        if offset < 0 || self.as_bytes().is_some() {
            return ChunkHeader::parse(&self.chunk_unchecked(n)?);
        }
        let Backing::Contiguous {
            store,
            offset: base,
        } = &self.backing
        else {
            return Err(Error::FrameType);
        };
        if offset
            > self
                .header
                .cbytes
                .saturating_sub(EXTENDED_HEADER_LENGTH as i64)
        {
            return Err(Error::InvalidHeader);
        }
        let pos = base + self.header.header_len as u64 + offset as u64;
        ChunkHeader::parse(&read_vec(&**store, pos, EXTENDED_HEADER_LENGTH)?)
    }

    /// The header of chunk `n` as [`Frame::chunk`] returns the chunk (the same checks), read
    /// without the rest of the chunk.
    pub fn located_chunk_header(&self, n: i64) -> Result<ChunkHeader> {
        match self.locate_chunk(n)? {
            Located::Ready(c) => ChunkHeader::parse(&c),
            Located::Disk(d) => ChunkHeader::parse(&d.head[..d.head_len]),
        }
    }

    /// The (compressed) chunk `n`: borrowed from an in-memory frame, read from disk otherwise;
    /// special chunks stored as offset values are materialised as c-blosc2 returns them.
    pub fn chunk(&self, n: i64) -> Result<Cow<'_, [u8]>> {
        let c = self.chunk_unchecked(n)?;
        self.check_read(n, &c)?;
        Ok(c)
    }

    fn chunk_unchecked(&self, n: i64) -> Result<Cow<'_, [u8]>> {
        match self.locate_chunk(n)? {
            Located::Ready(c) => Ok(c),
            Located::Disk(d) => {
                // Read into fresh memory without zeroing it first (see ByteStore's
                // read_exact_append).
                let known = d.head_len.min(d.len);
                let mut v = Vec::with_capacity(d.len);
                v.extend_from_slice(&d.head[..known]);
                if d.len > known {
                    let store = d.file.as_deref().unwrap_or(self.main_store().0);
                    store.read_exact_append(d.pos + known as u64, d.len - known, &mut v)?;
                }
                Ok(Cow::Owned(v))
            }
        }
    }

    /// Chunk `n` as [`Frame::chunk`] gives it, except that a chunk on disk is read into the
    /// buffer `alloc` returns for its length (one the caller hands on as it is, e.g. to C),
    /// without being zeroed first.
    pub fn chunk_into<'b>(
        &self,
        n: i64,
        alloc: &mut dyn FnMut(usize) -> Result<&'b mut [MaybeUninit<u8>]>,
    ) -> Result<ChunkBytes<'_, 'b>> {
        match self.locate_chunk(n)? {
            Located::Ready(c) => {
                self.check_read(n, &c)?;
                Ok(ChunkBytes::Stored(c))
            }
            Located::Disk(d) => {
                let store = d.file.as_deref().unwrap_or(self.main_store().0);
                // The header is read again with the rest: one read, from the page cache.
                let buf = alloc(d.len)?;
                let read = store.read_exact_uninit(d.pos, buf)?;
                self.check_read(n, read)?;
                Ok(ChunkBytes::Read(read))
            }
        }
    }

    /// Runs `f` on chunk `n` (as [`Frame::chunk`] returns it). A chunk on disk is read into
    /// this thread's reusable buffer rather than a fresh zeroed vector: c-blosc2 reads into
    /// malloc'd memory, and zeroing a chunk-sized allocation before each read cost a tenth of
    /// decompressing a super-chunk from a file.
    pub fn with_chunk<R>(&self, n: i64, f: impl FnOnce(&[u8]) -> Result<R>) -> Result<R> {
        let d = match self.locate_chunk(n)? {
            Located::Ready(c) => {
                self.check_read(n, &c)?;
                return f(&c);
            }
            Located::Disk(d) => d,
        };
        with_chunk_buf(d.len, |buf| {
            self.read_located(&d, buf)?;
            self.check_read(n, buf)?;
            f(buf)
        })
    }

    /// Chunk `n` ready (in memory, or special) or located on disk with its header checked.
    fn locate_chunk(&self, n: i64) -> Result<Located<'_>> {
        let idx = usize::try_from(n).map_err(|_| Error::InvalidParam)?;
        let offset = *self.offsets.get(idx).ok_or(Error::InvalidParam)?;
        if let Some(kind) = offsets::offset_special(offset) {
            let kind = kind?;
            let params = CParams {
                typesize: self.header.typesize,
                blocksize: self.header.blocksize,
                ..CParams::default()
            };
            let mut buf = vec![0u8; EXTENDED_HEADER_LENGTH];
            let nbytes = self.special_nbytes(idx)?;
            crate::chunk::special::make(&params, kind, nbytes, None, &mut buf)?;
            return Ok(Located::Ready(Cow::Owned(buf)));
        }
        match &self.backing {
            Backing::Sparse { dir, .. } => {
                // c-blosc2 hands an sframe chunk file out whole, whatever its header says (the
                // bytes are checked when decompressed); only a file shorter than the smallest
                // chunk header is a read failure.
                let store = self
                    .io
                    .open(&sframe_chunk_path(dir, offset), OpenMode::Read)?;
                let size = store.size()?;
                if size < MIN_HEADER_LENGTH as u64 {
                    return Err(Error::FileRead);
                }
                let len = usize::try_from(size)
                    .ok()
                    .filter(|&l| i32::try_from(l).is_ok())
                    .ok_or(Error::FileRead)?;
                let mut head = [0u8; EXTENDED_HEADER_LENGTH];
                let head_len = EXTENDED_HEADER_LENGTH.min(len);
                read_exact_at(&*store, 0, &mut head[..head_len])?;
                Ok(Located::Disk(DiskChunk {
                    file: Some(store),
                    pos: 0,
                    head,
                    head_len,
                    len,
                }))
            }
            Backing::Contiguous {
                store,
                offset: base,
            } => {
                let (pos, head, h) = self.contiguous_chunk_head(&**store, *base, offset)?;
                let len = h.cbytes as usize;
                if let Some(all) = store.as_slice() {
                    let start = pos as usize;
                    return all
                        .get(start..start + len)
                        .map(|c| Located::Ready(Cow::Borrowed(c)))
                        .ok_or(Error::ReadBuffer);
                }
                Ok(Located::Disk(DiskChunk {
                    file: None,
                    pos,
                    head,
                    head_len: EXTENDED_HEADER_LENGTH,
                    len,
                }))
            }
        }
    }

    /// Reads a located chunk into `buf` (`d.len` bytes): the header bytes already read, then
    /// the rest.
    fn read_located(&self, d: &DiskChunk, buf: &mut [u8]) -> Result<()> {
        let known = d.head_len.min(buf.len());
        buf[..known].copy_from_slice(&d.head[..known]);
        if buf.len() > known {
            let store = d.file.as_deref().unwrap_or(self.main_store().0);
            read_exact_at(store, d.pos + known as u64, &mut buf[known..])?;
        }
        Ok(())
    }

    /// Where the chunk at `offset` of a contiguous frame starting at `base` of `store` is, its
    /// header bytes and the header parsed, checked to lie inside the frame's chunk area.
    fn contiguous_chunk_head(
        &self,
        store: &dyn ByteStore,
        base: u64,
        offset: i64,
    ) -> Result<(u64, [u8; EXTENDED_HEADER_LENGTH], ChunkHeader)> {
        let cbytes = self.header.cbytes;
        if offset > cbytes.saturating_sub(EXTENDED_HEADER_LENGTH as i64) {
            return Err(Error::InvalidHeader);
        }
        let pos = base + self.header.header_len as u64 + offset as u64;
        let mut head = [0u8; EXTENDED_HEADER_LENGTH];
        read_exact_at(store, pos, &mut head)?;
        let h = ChunkHeader::parse(&head)?;
        if (h.cbytes as usize) < EXTENDED_HEADER_LENGTH || offset + h.cbytes as i64 > cbytes {
            return Err(Error::InvalidHeader);
        }
        Ok((pos, head, h))
    }

    /// Chunk `n` as a copy of the frame needs it: its first [`EXTENDED_HEADER_LENGTH`] bytes (for
    /// a special offset, the whole chunk `chunk` materialises) and, for a regular chunk, where
    /// its bytes are, checked as `chunk` checks them.
    pub(crate) fn chunk_head(&self, n: i64) -> Result<(Vec<u8>, Option<ChunkPlace>)> {
        let idx = usize::try_from(n).map_err(|_| Error::InvalidParam)?;
        let offset = *self.offsets.get(idx).ok_or(Error::InvalidParam)?;
        if offset < 0 {
            return Ok((self.chunk(n)?.into_owned(), None));
        }
        let (head, place) = match &self.backing {
            Backing::Sparse { dir, .. } => {
                let store = self
                    .io
                    .open(&sframe_chunk_path(dir, offset), OpenMode::Read)?;
                let size = store.size()?;
                let head = read_vec(&*store, 0, EXTENDED_HEADER_LENGTH)?;
                let h = ChunkHeader::parse(&head)?;
                if (h.cbytes as u64) > size {
                    return Err(Error::ReadBuffer);
                }
                (head, ChunkPlace::File(offset))
            }
            Backing::Contiguous {
                store,
                offset: base,
            } => {
                let (pos, head, _) = self.contiguous_chunk_head(&**store, *base, offset)?;
                (head.to_vec(), ChunkPlace::InStore(pos))
            }
        };
        Ok((head, Some(place)))
    }

    /// Reads the first `buf.len()` bytes of the chunk stored at `place` (from `chunk_head`).
    pub(crate) fn read_chunk_at(&self, place: ChunkPlace, buf: &mut [u8]) -> Result<()> {
        match (place, &self.backing) {
            (ChunkPlace::InStore(pos), Backing::Contiguous { store, .. }) => {
                read_exact_at(&**store, pos, buf)
            }
            (ChunkPlace::File(id), Backing::Sparse { dir, .. }) => {
                let store = self.io.open(&sframe_chunk_path(dir, id), OpenMode::Read)?;
                read_exact_at(&*store, 0, buf)
            }
            _ => Err(Error::FrameType),
        }
    }

    /// Where the stored chunk at `offset` starts: its own file (sframes, returned open), or a
    /// position in the frame's store.
    fn chunk_store(&self, offset: i64) -> Result<(Option<Box<dyn ByteStore>>, u64)> {
        match &self.backing {
            Backing::Contiguous { offset: base, .. } => {
                let last = self
                    .header
                    .cbytes
                    .saturating_sub(EXTENDED_HEADER_LENGTH as i64);
                if offset < 0 || offset > last {
                    return Err(Error::InvalidHeader);
                }
                Ok((None, base + self.header.header_len as u64 + offset as u64))
            }
            Backing::Sparse { dir, .. } => {
                let f = self
                    .io
                    .open(&sframe_chunk_path(dir, offset), OpenMode::Read)?;
                Ok((Some(f), 0))
            }
        }
    }

    /// Chunk `n` as c-blosc2's `frame_get_lazychunk` returns it: the chunk itself when the
    /// frame is in memory (or the chunk is special); for frames on disk a *lazy* chunk: the
    /// header and block starts only, flagged lazy, followed by the chunk's number, its position
    /// (in the frame; for sframes its file id) and the compressed size of every block, so that
    /// decompression reads just the blocks it needs (see the `LazyBlocks` impl).
    pub fn lazy_chunk(&self, n: i64) -> Result<Cow<'_, [u8]>> {
        let idx = usize::try_from(n).map_err(|_| Error::InvalidParam)?;
        let offset = *self.offsets.get(idx).ok_or(Error::InvalidParam)?;
        // Verified reads check whole chunks: no lazy ones then.
        if offset < 0 || self.as_bytes().is_some() || self.fp.verify_reads {
            return self.chunk(n);
        }
        let (file, pos) = self.chunk_store(offset)?;
        let store: &dyn ByteStore = match &file {
            Some(f) => &**f,
            None => self.main_store().0,
        };
        let head = read_vec(store, pos, EXTENDED_HEADER_LENGTH)?;
        let h = ChunkHeader::parse(&head)?;
        if (h.cbytes as usize) < EXTENDED_HEADER_LENGTH || h.blocksize <= 0 {
            return Err(Error::InvalidHeader);
        }
        let (nblocks, leftover) = h.nblocks_leftover();
        if nblocks == 0 || nblocks > i32::MAX as usize {
            return Err(Error::InvalidHeader);
        }
        // A chunk must lie inside its file, and a memcpyed one holds its nbytes: that bounds the
        // block count (and the lazy chunk built below) by the file's size, whatever a damaged
        // header claims (a 141 KB frame once asked for 16 GiB of block sizes here). An sframe
        // chunk file need only hold what the lazy chunk takes of it, its header and block
        // starts, as c-blosc2 reads no more (the blocks fail when decompressed); those bound
        // the block count as well.
        let needed = if self.is_sparse() {
            let starts = if h.memcpyed() { 0 } else { 4 * nblocks as u64 };
            EXTENDED_HEADER_LENGTH as u64 + starts
        } else {
            h.cbytes as u64
        };
        let end = pos.checked_add(needed).ok_or(Error::FileRead)?;
        if end > store.size()? {
            return Err(Error::FileRead);
        }
        if h.memcpyed() && (h.cbytes as i64) < h.nbytes as i64 + EXTENDED_HEADER_LENGTH as i64 {
            return Err(Error::InvalidHeader);
        }
        let special = h.special_raw();
        if special == Special::Value as u8 {
            // The value is the chunk's bytes after the header (cbytes, inside the file).
            return Ok(Cow::Owned(read_vec(store, pos, h.cbytes as usize)?));
        }
        if special != 0 {
            return Err(Error::InvalidHeader);
        }
        let bstarts_len = 4 * nblocks;
        if !h.memcpyed() && bstarts_len > h.cbytes as usize - EXTENDED_HEADER_LENGTH {
            return Err(Error::InvalidHeader);
        }
        let streams_at = if h.memcpyed() {
            EXTENDED_HEADER_LENGTH
        } else {
            EXTENDED_HEADER_LENGTH + bstarts_len
        };
        let trailer_at = EXTENDED_HEADER_LENGTH + bstarts_len;
        let mut lazy = vec![0u8; trailer_at + 12 + bstarts_len];
        read_exact_at(store, pos, &mut lazy[..streams_at])?;
        lazy[31] |= crate::chunk::header::LAZY_CHUNK;
        let (id, at) = if self.is_sparse() {
            (offset as i32, offset)
        } else {
            (n as i32, self.header.header_len as i64 + offset)
        };
        lazy[trailer_at..trailer_at + 4].copy_from_slice(&id.to_le_bytes());
        lazy[trailer_at + 4..trailer_at + 12].copy_from_slice(&at.to_le_bytes());
        let mut csizes = vec![0i32; nblocks];
        if h.memcpyed() {
            csizes.fill(h.blocksize);
            if leftover > 0 {
                csizes[nblocks - 1] = leftover as i32;
            }
        } else {
            // Blocks may be stored out of order (written by several threads): a block's size is
            // the distance to the next start in storage order, the last one runs to the end.
            let starts: Vec<i32> = lazy[EXTENDED_HEADER_LENGTH..trailer_at]
                .as_chunks::<4>()
                .0
                .iter()
                .map(|&b| i32::from_le_bytes(b))
                .collect();
            let mut order: Vec<usize> = (0..nblocks).collect();
            order.sort_by_key(|&i| starts[i]);
            for w in order.windows(2) {
                csizes[w[0]] = starts[w[1]].wrapping_sub(starts[w[0]]);
            }
            let last = order[nblocks - 1];
            csizes[last] = h.cbytes.wrapping_sub(starts[last]);
        }
        for (i, c) in csizes.iter().enumerate() {
            let at = trailer_at + 12 + 4 * i;
            lazy[at..at + 4].copy_from_slice(&c.to_le_bytes());
        }
        Ok(Cow::Owned(lazy))
    }

    /// The whole chunk a lazy chunk stands for (read from where its trailer says it is).
    pub fn unlazy(&self, lazy: &[u8]) -> Result<Vec<u8>> {
        let h = ChunkHeader::parse(lazy)?;
        let (nblocks, _) = h.nblocks_leftover();
        let at = EXTENDED_HEADER_LENGTH + 4 * nblocks;
        let t = lazy.get(at..at + 12).ok_or(Error::ReadBuffer)?;
        let position = i64::from_le_bytes(t[4..12].try_into().map_err(|_| Error::ReadBuffer)?);
        let cbytes = usize::try_from(h.cbytes).map_err(|_| Error::InvalidHeader)?;
        let mut whole = crate::chunk::decompress::LazyBlocks::read_block(
            self,
            0,
            position,
            0,
            i32::try_from(cbytes).map_err(|_| Error::InvalidHeader)?,
        )?;
        if whole.len() > 31 {
            whole[31] &= !crate::chunk::header::LAZY_CHUNK;
        }
        Ok(whole)
    }
}

/// The special kind of a chunk frames store only as an offset value (zeros, NaNs, uninit).
pub fn chunk_special(chunk: &[u8]) -> Option<Special> {
    offsets::chunk_offset_special(chunk)
}

impl crate::chunk::decompress::LazyBlocks for Frame {
    /// Reads `len` bytes at `offset` of the chunk that starts at `chunk_offset` of the frame (for
    /// sframes, `chunk_offset` is the chunk file id).
    fn read_block(
        &self,
        _nchunk: i32,
        chunk_offset: i64,
        offset: i64,
        len: i32,
    ) -> Result<Vec<u8>> {
        let (Ok(chunk_offset), Ok(offset), Ok(len)) = (
            u64::try_from(chunk_offset),
            u64::try_from(offset),
            usize::try_from(len),
        ) else {
            return Err(Error::Data);
        };
        match &self.backing {
            Backing::Contiguous {
                store,
                offset: base,
            } => {
                let end = chunk_offset
                    .checked_add(offset)
                    .and_then(|p| p.checked_add(len as u64))
                    .ok_or(Error::Data)?;
                if end > self.header.frame_len as u64 {
                    return Err(Error::ReadBuffer);
                }
                read_vec(&**store, base + chunk_offset + offset, len)
            }
            Backing::Sparse { dir, .. } => {
                let f = self
                    .io
                    .open(&sframe_chunk_path(dir, chunk_offset as i64), OpenMode::Read)?;
                if offset.saturating_add(len as u64) > f.size()? {
                    return Err(Error::ReadBuffer);
                }
                read_vec(&*f, offset, len)
            }
        }
    }
}

/// Reads and checks the header, offsets index and trailer of the frame at `base` of `store`
/// (`exact_len`: the length the frame must have, for frames in memory).
fn read_parts(
    store: &dyn ByteStore,
    base: u64,
    exact_len: Option<u64>,
    sparse: bool,
) -> Result<Parts> {
    let avail = store.size()?.saturating_sub(base);
    if avail < header::HEADER_MINLEN as u64 {
        return Err(Error::ReadBuffer);
    }
    let fixed = read_vec(store, base, header::HEADER_MINLEN)?;
    let h = FrameHeader::parse(&fixed)?;
    let frame_len = h.frame_len;
    if let Some(exact) = exact_len {
        if frame_len as u64 != exact {
            return Err(Error::ReadBuffer);
        }
    }
    let min_len = (header::HEADER_MINLEN + trailer::TRAILER_MINLEN) as i64;
    if frame_len < min_len || frame_len as u64 > avail {
        return Err(Error::ReadBuffer);
    }
    if h.sparse != sparse {
        return Err(Error::FrameType);
    }
    let tail = read_vec(
        store,
        base + frame_len as u64 - trailer::TRAILER_MINLEN as u64,
        trailer::TRAILER_MINLEN,
    )?;
    let trailer_len = trailer::trailer_len_from_tail(&tail, frame_len)?;
    let header_len = h.header_len as i64;
    let header_bytes = read_vec(store, base, header_len as usize)?;
    let metas = header::parse_metalayers(&header_bytes)?;

    // Chunk count and offsets.
    let trailer_at = frame_len - trailer_len as i64;
    let off_pos = if sparse {
        header_len
    } else {
        header_len
            .checked_add(h.cbytes)
            .ok_or(Error::InvalidHeader)?
    };
    let mut nchunks = h.nchunks_from_sizes()?;
    let mut offsets = Vec::new();
    let mut off_bytes = Vec::new();
    if nchunks != Some(0) {
        if off_pos < 0 || off_pos.saturating_add(EXTENDED_HEADER_LENGTH as i64) > trailer_at {
            return Err(Error::InvalidHeader);
        }
        let off_head = read_vec(store, base + off_pos as u64, EXTENDED_HEADER_LENGTH)?;
        let oh = ChunkHeader::parse(&off_head)?;
        if off_pos.saturating_add(oh.cbytes as i64) > trailer_at {
            return Err(Error::InvalidHeader);
        }
        let n = match nchunks {
            Some(n) => n,
            None => {
                if oh.nbytes % 8 != 0 {
                    return Err(Error::InvalidHeader);
                }
                (oh.nbytes / 8) as i64
            }
        };
        nchunks = Some(n);
        offsets::offsets_nbytes(n).map_err(|_| Error::InvalidHeader)?;
        off_bytes = read_vec(store, base + off_pos as u64, oh.cbytes as usize)?;
        offsets = offsets::decode(&off_bytes, n)?;
        if !sparse {
            for &o in &offsets {
                if o >= 0 && o > h.cbytes.saturating_sub(EXTENDED_HEADER_LENGTH as i64) {
                    return Err(Error::InvalidHeader);
                }
            }
        }
    }
    debug_assert_eq!(offsets.len() as i64, nchunks.unwrap_or(0));

    let vl_at = if h.nbytes > 0 { trailer_at } else { header_len };
    if vl_at < EXTENDED_HEADER_LENGTH as i64 || vl_at + trailer_len as i64 > frame_len {
        return Err(Error::ReadBuffer);
    }
    let trailer_bytes = read_vec(store, base + vl_at as u64, trailer_len as usize)?;
    let vlmetas = trailer::parse_vlmetalayers(&trailer_bytes)?;
    Ok(Parts {
        header: h,
        header_bytes,
        offsets,
        off_bytes,
        trailer_len,
        trailer_bytes,
        metas,
        vlmetas,
    })
}
