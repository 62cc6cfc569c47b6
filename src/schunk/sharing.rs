//! Sharing a frame on disk with other handles: the frame lock and re-reading a frame another
//! handle changed.

use std::sync::RwLock;

use super::{Chunks, Schunk};
use crate::frame::lock::LockGuard;
use crate::frame::Frame;
use crate::Result;

/// Read calls hold this shared while they use a super-chunk; a read call that must re-read a
/// frame another handle changed does so holding it exclusively, so threads reading one handle
/// at once never see it change under them. Only ever tried for exclusive use (`try_write`):
/// a read that cannot have it (other reads in progress) reads the frame as it knew it, and a
/// read made from inside a callback of another read cannot deadlock.
static READ_GATE: RwLock<()> = RwLock::new(());

/// The read sequence of a handle that threads may read at once, as c-blosc2 runs it on a
/// frame other handles may share: holding the frame lock shared (when the handle locks), after
/// re-reading the frame if another handle changed it and `resync` says this call re-syncs
/// (c-blosc2 re-syncs on calls that read a chunk or a vlmetalayer). The owner of the handle
/// gives access to it through `get` (called again after a refresh) and performs the refresh
/// through `refresh`, which runs only while no other read is in progress; a super-chunk not on
/// disk is read at once (no other handle can change it: nothing to re-sync, no lock).
pub fn read_shared<'a, T>(
    get: impl Fn() -> Result<&'a Schunk>,
    refresh: impl FnOnce() -> Result<()>,
    resync: impl FnOnce(&Schunk) -> bool,
    f: impl FnOnce(&Schunk) -> Result<T>,
) -> Result<T> {
    let s = get()?;
    if s.storage.urlpath.is_none() {
        return f(s);
    }
    let gate = READ_GATE.read().unwrap_or_else(|e| e.into_inner());
    s.lock_shared()?;
    let mut gate = Some(gate);
    if resync(s) && s.is_stale() {
        drop(gate.take());
        if let Ok(exclusive) = READ_GATE.try_write() {
            if let Err(e) = refresh() {
                let _ = get().map(|s| s.unlock());
                return Err(e);
            }
            drop(exclusive);
        }
        gate = Some(READ_GATE.read().unwrap_or_else(|e| e.into_inner()));
    }
    let s = get()?;
    let r = f(s);
    let unlocked = s.unlock();
    drop(gate);
    let v = r?;
    unlocked?;
    Ok(v)
}

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

    /// The change sequence as c-blosc2 runs it on a frame other handles may share: holding the
    /// frame lock exclusively (when the handle locks), first re-reading the frame if another
    /// handle changed it and `resync` says this change re-syncs (c-blosc2 re-syncs on appends
    /// and inserts, and on changes that read a chunk, once the index passed its own checks).
    /// An error of `f` wins over one of the unlock.
    pub fn change_shared<T>(
        &mut self,
        resync: impl FnOnce(&Schunk) -> bool,
        f: impl FnOnce(&mut Schunk) -> Result<T>,
    ) -> Result<T> {
        self.lock()?;
        let r = if resync(self) {
            self.refresh().and_then(|_| f(self))
        } else {
            f(self)
        };
        let unlocked = self.unlock();
        let v = r?;
        unlocked?;
        Ok(v)
    }

    /// `refresh` under the shared frame lock (a refresh changes nothing on disk), as c-blosc2's
    /// `blosc2_schunk_refresh`: true when the frame was re-read.
    pub fn refresh_shared(&mut self) -> Result<bool> {
        self.lock_shared()?;
        let refreshed = self.refresh();
        let unlocked = self.unlock();
        let refreshed = refreshed?;
        unlocked?;
        Ok(refreshed)
    }

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
        let opened = Frame::open(self.storage.io.clone(), path, f.file_offset())?;
        self.take_opened(opened);
        self.change_tick += 1;
        if let Some(l) = &self.lock {
            l.clear_stale();
        }
        Ok(true)
    }
}
