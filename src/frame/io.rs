//! The byte stores frames live in: one trait for an open store (`ByteStore`), one for opening
//! stores by path (`Io`), and the backends: plain files (`FileIo`/`FileStore`, and
//! `LockingFileIo` for frames that take the cross-process frame lock), memory (`MemStore`) and
//! whatever a user plugs in by implementing both traits. The C layer does so over
//! `blosc2_io_cb`, which is also how c-blosc2's memory-mapped backend
//! (`BLOSC2_IO_FILESYSTEM_MMAP`, a real mapping in `src/capi/stdio.rs`) reaches frames.
//!
//! Reads take `&self` and are positional, so several threads can read chunks of one frame at
//! once; writes take `&mut self`.

use std::fs::{File, OpenOptions};
use std::mem::MaybeUninit;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::crc32c;
use crate::{Error, Result};

/// How a store is opened (the `mode` strings c-blosc2 passes to `blosc2_io_cb.open`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenMode {
    /// "rb": read an existing store.
    Read,
    /// "rb+": read and write an existing store.
    ReadWrite,
    /// "wb": create (or truncate) a store for writing and reading.
    Create,
    /// "ab": open a store to add bytes at its end, creating it when missing (never truncated).
    Append,
}

impl OpenMode {
    /// The C `fopen` mode string for this mode.
    pub fn as_c_mode(self) -> &'static str {
        match self {
            OpenMode::Read => "rb",
            OpenMode::ReadWrite => "rb+",
            OpenMode::Create => "wb",
            OpenMode::Append => "ab",
        }
    }
}

/// An open byte store: a file, a memory buffer, or a user backend.
pub trait ByteStore: Send + Sync {
    /// Current size in bytes.
    fn size(&self) -> Result<u64>;
    /// Reads up to `buf.len()` bytes at `pos`; returns how many were read (short at the end).
    fn read_at(&self, pos: u64, buf: &mut [u8]) -> Result<usize>;
    /// Fills `buf` with the bytes at `pos` and returns it initialised, or fails with
    /// `FileRead` if the store ends before. `buf` need not be initialised: files read into it
    /// directly, so that nothing is zeroed first (c-blosc2 reads chunks into malloc'd memory,
    /// and zeroing a chunk before reading it cost as much as the read).
    fn read_exact_uninit<'b>(
        &self,
        pos: u64,
        buf: &'b mut [MaybeUninit<u8>],
    ) -> Result<&'b mut [u8]> {
        for b in buf.iter_mut() {
            b.write(0);
        }
        // SAFETY: every byte of buf was initialised just above.
        let buf = unsafe { &mut *(buf as *mut [MaybeUninit<u8>] as *mut [u8]) };
        read_exact_at(self, pos, buf)?;
        Ok(buf)
    }
    /// Appends the `len` bytes at `pos` to `out` (see [`ByteStore::read_exact_uninit`]), or
    /// fails with `FileRead`, leaving `out` as it was.
    fn read_exact_append(&self, pos: u64, len: usize, out: &mut Vec<u8>) -> Result<()> {
        let start = out.len();
        out.reserve(len);
        self.read_exact_uninit(pos, &mut out.spare_capacity_mut()[..len])?;
        // SAFETY: read_exact_uninit initialised the `len` bytes after the former length.
        unsafe { out.set_len(start + len) };
        Ok(())
    }
    /// Writes all of `data` at `pos`, growing the store if needed.
    fn write_at(&mut self, pos: u64, data: &[u8]) -> Result<()>;
    /// [`ByteStore::write_at`], returning the CRC-32C of `data` (a chunk's fingerprint):
    /// in-memory stores compute it as they copy the bytes in, in the same pass.
    fn write_at_crc(&mut self, pos: u64, data: &[u8]) -> Result<u32> {
        self.write_at(pos, data)?;
        Ok(super::crc32c::crc32c(data))
    }
    /// Sets the size to `len` bytes.
    fn truncate(&mut self, len: u64) -> Result<()>;
    /// The whole store as one slice, when it is in memory (lets readers borrow instead of copy).
    fn as_slice(&self) -> Option<&[u8]> {
        None
    }
    /// Hands over the store's own in-memory bytes, leaving it empty; None when it has none
    /// (a file, or bytes it only borrows).
    fn take_owned(&mut self) -> Option<Vec<u8>> {
        None
    }
    /// Writes at `pos` the `len` bytes `fill` puts in the buffer it is given, growing the store
    /// if needed. In-memory stores hand `fill` their own bytes, so that data read from
    /// elsewhere lands in place instead of going through a buffer of its own.
    fn write_with(
        &mut self,
        pos: u64,
        len: usize,
        fill: &mut dyn FnMut(&mut [u8]) -> Result<()>,
    ) -> Result<()> {
        let mut buf = vec![0u8; len];
        fill(&mut buf)?;
        self.write_at(pos, &buf)
    }
    /// Copies the `len` bytes at `from` to `to` (the ranges may overlap), growing the store if
    /// needed. In-memory stores move them in place (one pass, no buffer), files through a
    /// buffer of at most `MOVE_PIECE` bytes; others read them all, then write them (one call
    /// each, as c-blosc2 calls a user backend).
    fn move_within(&mut self, from: u64, to: u64, len: usize) -> Result<()> {
        let mut buf = vec![0u8; len];
        let mut done = 0;
        while done < len {
            let n = self.read_at(from + done as u64, &mut buf[done..])?;
            if n == 0 {
                return Err(Error::FileRead);
            }
            done += n;
        }
        self.write_at(to, &buf)
    }
    /// A hint that the store is about to grow to `len` bytes: in-memory stores make room for
    /// exactly that much at once instead of growing by doubling.
    fn reserve(&mut self, _len: u64) {}
    /// Whether frames in this store are written in the order that keeps the last committed
    /// state readable when the writer is killed (docs/CRASH-SAFETY.md). True for plain files;
    /// memory has nothing to keep, and user backends keep c-blosc2's order (the mapped-file
    /// backend in mode "c" cannot write past the file's end, which that order does).
    fn ordered_writes(&self) -> bool {
        false
    }
    /// Whether the path the store was opened from now names another file (one renamed over
    /// it, or deleted and made again): an open file keeps reading the file it opened, so a
    /// frame must then be opened again. False for stores that are not files.
    fn replaced(&self) -> bool {
        false
    }
}

/// Opens byte stores by path (the frame file, or an sframe's index and chunk files).
pub trait Io: Send + Sync {
    /// Opens the store at `path`; fails with [`Error::FileOpen`] when it cannot (e.g. `Read`
    /// of a path that does not exist).
    fn open(&self, path: &Path, mode: OpenMode) -> Result<Box<dyn ByteStore>>;
    /// Whether frames opened through this backend take the cross-process frame lock
    /// (`frame::lock`): c-blosc2 does so for its filesystem backend when asked to.
    fn locks_frames(&self) -> bool {
        false
    }
    /// Removes a store (an sframe chunk file that is no longer used).
    fn remove(&self, path: &Path) -> Result<()> {
        std::fs::remove_file(path).map_err(|_| Error::FileRemove)
    }
    /// Whether [`Io::rename`] replaces a store atomically: sframes then write a changed index
    /// or chunk file under a temporary name and rename it over the old one, so that a writer
    /// killed half-way leaves the old file whole (see docs/CRASH-SAFETY.md). Backends that
    /// cannot (user callbacks have no rename) rewrite the files in place.
    fn renames(&self) -> bool {
        false
    }
    /// Renames the store at `from` to `to`, replacing what `to` named, in one step.
    fn rename(&self, _from: &Path, _to: &Path) -> Result<()> {
        Err(Error::FileWrite)
    }
}

/// Reads exactly `buf.len()` bytes at `pos`, or fails with `FileRead`.
pub fn read_exact_at<S: ByteStore + ?Sized>(store: &S, pos: u64, buf: &mut [u8]) -> Result<()> {
    let mut done = 0;
    while done < buf.len() {
        let n = store.read_at(pos + done as u64, &mut buf[done..])?;
        if n == 0 {
            return Err(Error::FileRead);
        }
        done += n;
    }
    Ok(())
}

/// The most bytes [`move_in_pieces`] holds at once: the chunks after an updated one (tens of
/// MiB) move twice in a file (docs/CRASH-SAFETY.md), and held whole they more than doubled the
/// peak memory of the call.
const MOVE_PIECE: usize = 1 << 20;

/// [`ByteStore::move_within`] through a buffer of at most [`MOVE_PIECE`] bytes: pieces are taken
/// from the end first when the destination overlaps the source from above, so that no piece
/// overwrites bytes not yet moved.
fn move_in_pieces(store: &mut FileStore, from: u64, to: u64, len: usize) -> Result<()> {
    let mut buf = vec![0u8; len.min(MOVE_PIECE)];
    let backwards = to > from && to - from < len as u64;
    let mut left = len;
    while left > 0 {
        let n = left.min(MOVE_PIECE);
        let done = len - left;
        let at = if backwards { left - n } else { done } as u64;
        read_exact_at(store, from + at, &mut buf[..n])?;
        store.write_at(to + at, &buf[..n])?;
        left -= n;
    }
    Ok(())
}

/// Reads `len` bytes at `pos` into a new vector.
pub fn read_vec(store: &dyn ByteStore, pos: u64, len: usize) -> Result<Vec<u8>> {
    let mut v = Vec::with_capacity(len);
    store.read_exact_append(pos, len, &mut v)?;
    Ok(v)
}

/// The default backend: files through positional reads and writes (c-blosc2's stdio backend).
#[derive(Debug, Default, Clone, Copy)]
pub struct FileIo;

impl Io for FileIo {
    fn open(&self, path: &Path, mode: OpenMode) -> Result<Box<dyn ByteStore>> {
        Ok(Box::new(FileStore::open(path, mode)?))
    }
    fn renames(&self) -> bool {
        true
    }
    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        std::fs::rename(from, to).map_err(|_| Error::FileWrite)
    }
}

/// Files as `FileIo`, for frames that take the cross-process frame lock (`frame::lock`).
#[derive(Debug, Default, Clone, Copy)]
pub struct LockingFileIo;

impl Io for LockingFileIo {
    fn open(&self, path: &Path, mode: OpenMode) -> Result<Box<dyn ByteStore>> {
        FileIo.open(path, mode)
    }
    fn locks_frames(&self) -> bool {
        true
    }
    fn renames(&self) -> bool {
        FileIo.renames()
    }
    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        FileIo.rename(from, to)
    }
}

/// A file on disk.
#[derive(Debug)]
pub struct FileStore {
    file: File,
    /// The path it was opened from, and the identity of the file it opened (to tell whether
    /// the path still names this file).
    path: PathBuf,
    identity: Option<FileIdentity>,
}

impl FileStore {
    /// Opens the file at `path` as `mode` says; [`Error::FileOpen`] when the OS refuses.
    pub fn open(path: &Path, mode: OpenMode) -> Result<FileStore> {
        let mut opts = OpenOptions::new();
        match mode {
            OpenMode::Read => opts.read(true),
            OpenMode::ReadWrite => opts.read(true).write(true),
            OpenMode::Create => opts.read(true).write(true).create(true).truncate(true),
            OpenMode::Append => opts.read(true).write(true).create(true),
        };
        let file = opts.open(path).map_err(|_| Error::FileOpen)?;
        let identity = file.metadata().ok().and_then(|m| identity(&m));
        Ok(FileStore {
            file,
            path: path.to_path_buf(),
            identity,
        })
    }
}

/// What tells two files apart: device and inode, as c-blosc2's stdio backend compares them.
type FileIdentity = (u64, u64);

#[cfg(unix)]
fn identity(m: &std::fs::Metadata) -> Option<FileIdentity> {
    use std::os::unix::fs::MetadataExt;
    Some((m.dev(), m.ino()))
}

/// Without inodes no replacement is seen.
#[cfg(not(unix))]
fn identity(_: &std::fs::Metadata) -> Option<FileIdentity> {
    None
}

#[cfg(unix)]
pub(crate) fn file_read_at(file: &File, pos: u64, buf: &mut [u8]) -> std::io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, pos)
}

#[cfg(unix)]
pub(crate) fn file_write_all_at(file: &File, pos: u64, data: &[u8]) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(file, data, pos)
}

#[cfg(windows)]
pub(crate) fn file_read_at(file: &File, pos: u64, buf: &mut [u8]) -> std::io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buf, pos)
}

#[cfg(windows)]
pub(crate) fn file_write_all_at(file: &File, mut pos: u64, mut data: &[u8]) -> std::io::Result<()> {
    while !data.is_empty() {
        let n = std::os::windows::fs::FileExt::seek_write(file, data, pos)?;
        if n == 0 {
            return Err(std::io::ErrorKind::WriteZero.into());
        }
        data = &data[n..];
        pos += n as u64;
    }
    Ok(())
}

impl ByteStore for FileStore {
    fn size(&self) -> Result<u64> {
        Ok(self.file.metadata().map_err(|_| Error::FileRead)?.len())
    }

    fn read_at(&self, pos: u64, buf: &mut [u8]) -> Result<usize> {
        loop {
            match file_read_at(&self.file, pos, buf) {
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => return Err(Error::FileRead),
            }
        }
    }

    #[cfg(unix)]
    fn read_exact_uninit<'b>(
        &self,
        pos: u64,
        buf: &'b mut [MaybeUninit<u8>],
    ) -> Result<&'b mut [u8]> {
        use std::os::fd::AsRawFd;
        let mut done = 0;
        while done < buf.len() {
            let rest = &mut buf[done..];
            let at = libc::off_t::try_from(pos + done as u64).map_err(|_| Error::FileRead)?;
            // SAFETY: pread writes at most `rest.len()` bytes into `rest`, memory the caller
            // lent us exclusively; it never reads from it.
            let n = unsafe {
                libc::pread(
                    self.file.as_raw_fd(),
                    rest.as_mut_ptr().cast(),
                    rest.len(),
                    at,
                )
            };
            if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            if n <= 0 {
                return Err(Error::FileRead);
            }
            done += n as usize;
        }
        // SAFETY: the preads above initialised every byte of buf.
        Ok(unsafe { &mut *(buf as *mut [MaybeUninit<u8>] as *mut [u8]) })
    }

    fn write_at(&mut self, pos: u64, data: &[u8]) -> Result<()> {
        file_write_all_at(&self.file, pos, data).map_err(|_| Error::FileWrite)
    }

    fn truncate(&mut self, len: u64) -> Result<()> {
        self.file.set_len(len).map_err(|_| Error::FileTruncate)
    }

    fn move_within(&mut self, from: u64, to: u64, len: usize) -> Result<()> {
        move_in_pieces(self, from, to, len)
    }

    fn ordered_writes(&self) -> bool {
        true
    }

    fn replaced(&self) -> bool {
        // A path that names nothing now (or metadata that cannot be read) is not a
        // replacement: reads go on from the open file.
        let Some(opened) = self.identity else {
            return false;
        };
        std::fs::metadata(&self.path)
            .ok()
            .and_then(|m| identity(&m))
            .is_some_and(|named| named != opened)
    }
}

/// Bytes shared with the store's creator without a copy (a no-copy view of a frame buffer).
pub type SharedBytes = Arc<dyn AsRef<[u8]> + Send + Sync>;

/// The store of a contiguous frame: memory kept inline, so that reaching an in-memory frame's
/// bytes (`blosc2_schunk_to_buffer`, chunk reads) is a field access rather than a call through
/// a boxed trait object (two more cache lines and a code page a cold call pays for), or any
/// other backend. Dereferences to the `ByteStore` either is.
pub enum Store {
    /// A frame in memory.
    Memory(MemStore),
    /// A file or a user backend.
    Other(Box<dyn ByteStore>),
}

impl Store {
    /// The whole store as one slice when it is in memory ([`ByteStore::as_slice`], without the
    /// dynamic call for memory).
    #[inline]
    pub fn as_slice(&self) -> Option<&[u8]> {
        match self {
            Store::Memory(m) => Some(m.bytes()),
            Store::Other(s) => s.as_slice(),
        }
    }
}

impl From<MemStore> for Store {
    fn from(m: MemStore) -> Store {
        Store::Memory(m)
    }
}

impl From<Box<dyn ByteStore>> for Store {
    fn from(s: Box<dyn ByteStore>) -> Store {
        Store::Other(s)
    }
}

impl std::ops::Deref for Store {
    type Target = dyn ByteStore;
    fn deref(&self) -> &(dyn ByteStore + 'static) {
        match self {
            Store::Memory(m) => m,
            Store::Other(s) => &**s,
        }
    }
}

impl std::ops::DerefMut for Store {
    fn deref_mut(&mut self) -> &mut (dyn ByteStore + 'static) {
        match self {
            Store::Memory(m) => m,
            Store::Other(s) => &mut **s,
        }
    }
}

/// The largest room an in-memory frame's buffer takes while its bytes fit (see
/// `MemStore::owned_with_room`), and the largest buffer kept as the spare frame buffer:
/// glibc's mmap threshold tops out at 32 MiB, less the allocator's own words and a page.
const HEAP_FRAME_MAX: usize = (32 << 20) - 8192;

/// The smallest buffer kept as the spare frame buffer, and the size from which a growing
/// in-memory frame takes it (a new frame takes it at its first write).
const SPARE_FRAME_MIN: usize = 1 << 20;

/// Takes the largest kept buffer (see [`crate::kept`]) of [`SPARE_FRAME_MIN`] to
/// [`HEAP_FRAME_MAX`] bytes with room for `len` bytes: a frame buffer of megabytes is mapped by
/// glibc and its pages faulted in anew for every frame (c-blosc2's exact-size reallocs land in
/// the heap, whose pages stay resident); a super-chunk rebuilt or a frame re-made in a loop
/// reuses a dropped frame's pages instead.
fn take_spare_frame(len: usize) -> Option<Vec<u8>> {
    let fits = |cap: usize| cap >= len.max(SPARE_FRAME_MIN) && cap <= HEAP_FRAME_MAX;
    crate::kept::take(|buffers| {
        (0..buffers.len())
            .filter(|&i| fits(buffers[i].capacity()))
            .max_by_key(|&i| buffers[i].capacity())
    })
}

/// Keeps a frame's `buffer` for the next frames when its size is in range.
fn keep_spare_frame(buffer: Vec<u8>) {
    if (SPARE_FRAME_MIN..=HEAP_FRAME_MAX).contains(&buffer.capacity()) {
        crate::kept::keep([buffer]);
    }
}

/// A frame in memory: owned bytes, or a shared read-only view that is copied on first write.
pub enum MemStore {
    /// Bytes the store owns and may grow.
    Owned(Vec<u8>),
    /// Bytes borrowed from the creator; the first write copies them into `Owned`.
    Shared(SharedBytes),
}

impl Default for MemStore {
    fn default() -> Self {
        MemStore::Owned(Vec::new())
    }
}

impl MemStore {
    /// A store owning `bytes`.
    pub fn new(bytes: Vec<u8>) -> MemStore {
        MemStore::Owned(bytes)
    }

    /// The stored bytes.
    pub fn bytes(&self) -> &[u8] {
        match self {
            MemStore::Owned(v) => v,
            MemStore::Shared(s) => (**s).as_ref(),
        }
    }

    /// The owned bytes with room for `end` bytes. The room doubles, as a vector's does, but
    /// stays under glibc's largest mmap threshold (32 MiB) while the frame fits there: a
    /// mapped buffer freed below it raises the threshold to its size, so the next frames of
    /// that size come from the heap, whose pages stay resident, instead of being mapped anew
    /// and faulted in page by page (c-blosc2's exact-size reallocs get there too). A buffer
    /// of twice 16+ MiB is mapped and unmapped for every frame.
    fn owned_with_room(&mut self, end: usize) -> &mut Vec<u8> {
        let v = self.owned();
        // A new frame takes the spare at once: taken only once it had grown, the spare and the
        // frame's own first megabyte were both resident (from_cbuffer of a 2 MB array peaked
        // at 1.16x c-blosc2's RSS).
        if end > v.capacity() && (end >= SPARE_FRAME_MIN || v.capacity() == 0) {
            if let Some(mut spare) = take_spare_frame(end) {
                spare.extend_from_slice(v);
                keep_spare_frame(std::mem::replace(v, spare));
            }
        }
        if end > v.capacity() {
            let doubled = v.capacity().saturating_mul(2);
            let target = if end <= HEAP_FRAME_MAX {
                doubled.min(HEAP_FRAME_MAX).max(end)
            } else {
                doubled.max(end)
            };
            v.reserve_exact(target - v.len());
        }
        v
    }

    /// Room for writing `len` bytes at `pos`: the bytes, with capacity for them all and
    /// zeros up to `pos`, `pos` as an index, and how many of the `len` fall within the current
    /// length (the rest are appended, not zero-filled first and then overwritten: an
    /// in-memory frame grows by each appended chunk, and the fill was a second pass over it).
    fn room_for(&mut self, pos: u64, len: usize) -> Result<(&mut Vec<u8>, usize, usize)> {
        let pos = usize::try_from(pos).map_err(|_| Error::MemoryAlloc)?;
        let end = pos.checked_add(len).ok_or(Error::MemoryAlloc)?;
        let v = self.owned_with_room(end);
        if v.len() < pos {
            v.resize(pos, 0);
        }
        let overlap = (v.len() - pos).min(len);
        Ok((v, pos, overlap))
    }

    fn owned(&mut self) -> &mut Vec<u8> {
        if let MemStore::Shared(s) = self {
            *self = MemStore::Owned((**s).as_ref().to_vec());
        }
        match self {
            MemStore::Owned(v) => v,
            MemStore::Shared(_) => unreachable!("converted to owned just above"),
        }
    }
}

impl Drop for MemStore {
    fn drop(&mut self) {
        if let MemStore::Owned(v) = self {
            keep_spare_frame(std::mem::take(v));
        }
    }
}

impl ByteStore for MemStore {
    fn size(&self) -> Result<u64> {
        Ok(self.bytes().len() as u64)
    }

    fn read_at(&self, pos: u64, buf: &mut [u8]) -> Result<usize> {
        let bytes = self.bytes();
        let Ok(pos) = usize::try_from(pos) else {
            return Ok(0);
        };
        if pos >= bytes.len() {
            return Ok(0);
        }
        let n = buf.len().min(bytes.len() - pos);
        buf[..n].copy_from_slice(&bytes[pos..pos + n]);
        Ok(n)
    }

    fn write_at(&mut self, pos: u64, data: &[u8]) -> Result<()> {
        let (v, pos, overlap) = self.room_for(pos, data.len())?;
        v[pos..pos + overlap].copy_from_slice(&data[..overlap]);
        v.extend_from_slice(&data[overlap..]);
        Ok(())
    }

    fn write_at_crc(&mut self, pos: u64, data: &[u8]) -> Result<u32> {
        let (v, pos, overlap) = self.room_for(pos, data.len())?;
        let (inside, past) = data.split_at(overlap);
        let crc = crc32c::copy_crc32c_init(0, &mut v[pos..pos + overlap], inside);
        let start = v.len();
        let crc = crc32c::copy_crc32c_append(crc, &mut v.spare_capacity_mut()[..past.len()], past);
        // SAFETY: the copy initialised the `past.len()` bytes after the former length, within
        // the capacity `room_for` made.
        unsafe { v.set_len(start + past.len()) };
        Ok(crc)
    }

    fn truncate(&mut self, len: u64) -> Result<()> {
        let len = usize::try_from(len).map_err(|_| Error::MemoryAlloc)?;
        self.owned().resize(len, 0);
        Ok(())
    }

    fn as_slice(&self) -> Option<&[u8]> {
        Some(self.bytes())
    }

    fn take_owned(&mut self) -> Option<Vec<u8>> {
        match self {
            MemStore::Owned(v) => Some(std::mem::take(v)),
            MemStore::Shared(_) => None,
        }
    }

    fn write_with(
        &mut self,
        pos: u64,
        len: usize,
        fill: &mut dyn FnMut(&mut [u8]) -> Result<()>,
    ) -> Result<()> {
        let pos = usize::try_from(pos).map_err(|_| Error::MemoryAlloc)?;
        let end = pos.checked_add(len).ok_or(Error::MemoryAlloc)?;
        let v = self.owned_with_room(end);
        if v.len() < end {
            v.resize(end, 0);
        }
        fill(&mut v[pos..end])
    }

    fn move_within(&mut self, from: u64, to: u64, len: usize) -> Result<()> {
        let (Ok(from), Ok(to)) = (usize::try_from(from), usize::try_from(to)) else {
            return Err(Error::MemoryAlloc);
        };
        let src_end = from.checked_add(len).ok_or(Error::FileRead)?;
        let dst_end = to.checked_add(len).ok_or(Error::MemoryAlloc)?;
        if src_end > self.bytes().len() {
            return Err(Error::FileRead);
        }
        let v = self.owned_with_room(dst_end);
        if v.len() < dst_end {
            v.resize(dst_end, 0);
        }
        v.copy_within(from..src_end, to);
        Ok(())
    }

    fn reserve(&mut self, len: u64) {
        let Ok(len) = usize::try_from(len) else {
            return;
        };
        self.owned_with_room(len);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mem_store_reads_writes_and_copies_on_write() {
        let shared: SharedBytes = Arc::new(vec![1u8, 2, 3]);
        let mut m = MemStore::Shared(shared.clone());
        let mut buf = [0u8; 5];
        assert_eq!(m.read_at(1, &mut buf).unwrap(), 2);
        assert_eq!(&buf[..2], &[2, 3]);
        assert_eq!(m.read_at(7, &mut buf).unwrap(), 0);
        m.write_at(4, &[9]).unwrap();
        assert_eq!(m.bytes(), &[1, 2, 3, 0, 9]);
        assert_eq!((*shared).as_ref(), &[1, 2, 3]);
        m.truncate(2).unwrap();
        assert_eq!(m.size().unwrap(), 2);
        // A write overlapping the end overwrites and appends.
        m.write_at(1, &[7, 8, 9]).unwrap();
        assert_eq!(m.bytes(), &[1, 7, 8, 9]);
        m.write_at(4, &[5]).unwrap();
        assert_eq!(m.bytes(), &[1, 7, 8, 9, 5]);
        m.write_at(0, &[6]).unwrap();
        assert_eq!(m.bytes(), &[6, 7, 8, 9, 5]);
        // Moves within overlap either way and grow the store past its end.
        m.move_within(1, 2, 4).unwrap();
        assert_eq!(m.bytes(), &[6, 7, 7, 8, 9, 5]);
        m.move_within(2, 0, 3).unwrap();
        assert_eq!(m.bytes(), &[7, 8, 9, 8, 9, 5]);
        assert_eq!(m.move_within(4, 0, 3), Err(Error::FileRead));
    }

    #[test]
    fn mem_store_moves_into_the_spare_frame_buffer_with_its_bytes() {
        // A dropped frame's buffer is kept; a store growing past SPARE_FRAME_MIN moves into
        // it (or into a buffer of its own when another test took it) with its bytes.
        let mut big = MemStore::default();
        big.write_at(0, &vec![7u8; SPARE_FRAME_MIN + 10]).unwrap();
        drop(big);
        let mut m = MemStore::default();
        let head: Vec<u8> = (0..1000u32).map(|i| (i % 251) as u8).collect();
        m.write_at(0, &head).unwrap();
        let tail = vec![3u8; SPARE_FRAME_MIN];
        m.write_at(head.len() as u64, &tail).unwrap();
        assert_eq!(m.size().unwrap(), (head.len() + tail.len()) as u64);
        assert_eq!(&m.bytes()[..head.len()], &head[..]);
        assert!(m.bytes()[head.len()..].iter().all(|&b| b == 3));
        // A spare buffer outside the kept range is not kept.
        keep_spare_frame(Vec::with_capacity(16));
        assert!(take_spare_frame(17).is_none_or(|v| v.capacity() >= SPARE_FRAME_MIN));
    }

    #[test]
    fn file_store_positional() {
        let path = std::env::temp_dir().join(format!("rblosc2-io-{}", std::process::id()));
        let mut f = FileIo.open(&path, OpenMode::Create).unwrap();
        f.write_at(3, b"abc").unwrap();
        assert_eq!(f.size().unwrap(), 6);
        assert_eq!(read_vec(&*f, 2, 4).unwrap(), b"\0abc");
        assert_eq!(read_vec(&*f, 4, 4), Err(Error::FileRead));
        f.truncate(4).unwrap();
        assert_eq!(f.size().unwrap(), 4);
        drop(f);
        assert!(FileIo.open(&path, OpenMode::Read).is_ok());
        std::fs::remove_file(&path).unwrap();
        assert_eq!(
            FileIo.open(&path, OpenMode::Read).err(),
            Some(Error::FileOpen)
        );
    }

    #[test]
    fn file_store_moves_in_pieces_either_way() {
        // Longer than two pieces, moved by less than a piece: up (pieces from the end first),
        // down, and past the file's end.
        let len = 2 * MOVE_PIECE + 12_345;
        let bytes: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
        let path = std::env::temp_dir().join(format!("rblosc2-move-{}", std::process::id()));
        let mut f = FileIo.open(&path, OpenMode::Create).unwrap();
        f.write_at(0, &bytes).unwrap();
        f.move_within(0, 1000, len).unwrap();
        assert_eq!(f.size().unwrap(), (len + 1000) as u64);
        assert_eq!(read_vec(&*f, 1000, len).unwrap(), bytes);
        f.move_within(1000, 7, len).unwrap();
        assert_eq!(read_vec(&*f, 7, len).unwrap(), bytes);
        let far = (3 * len) as u64;
        f.move_within(7, far, len).unwrap();
        assert_eq!(read_vec(&*f, far, len).unwrap(), bytes);
        assert_eq!(f.move_within(far, 0, len + 1), Err(Error::FileRead));
        drop(f);
        std::fs::remove_file(&path).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn file_store_sees_its_path_replaced() {
        let dir = std::env::temp_dir().join(format!("rblosc2-replaced-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (path, other) = (dir.join("a"), dir.join("b"));
        std::fs::write(&path, b"old").unwrap();
        let f = FileIo.open(&path, OpenMode::Read).unwrap();
        assert!(!f.replaced());
        std::fs::write(&path, b"new").unwrap();
        assert!(!f.replaced(), "rewritten in place: the same file");
        std::fs::write(&other, b"NEW").unwrap();
        std::fs::rename(&other, &path).unwrap();
        assert!(f.replaced(), "another file renamed over the path");
        assert_eq!(
            read_vec(&*f, 0, 3).unwrap(),
            b"new",
            "reads go on from the open file"
        );
        std::fs::remove_file(&path).unwrap();
        assert!(!f.replaced(), "a path naming nothing is not a replacement");
        assert!(!MemStore::default().replaced());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
