//! Sharing a frame on disk with other handles: the frame lock and re-reading a frame another
//! handle changed.

use super::{Chunks, Schunk};
use crate::frame::lock::LockGuard;
use crate::frame::{Frame, Opened};
use crate::Result;

impl Schunk {
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
}
