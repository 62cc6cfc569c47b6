//! Cross-process frame locking, as c-blosc2 3.3.5 does it when locking is enabled on a handle
//! (`blosc2_stdio_params.locking` or `BLOSC_LOCKING`): an advisory `flock` on a sidecar file
//! next to the frame (`<file>.b2lock` for a cframe, `<dir>/.b2lock` for an sframe), shared for
//! reads and exclusive for changes, plus a generation counter in that file.
//!
//! The sidecar holds a native-endian `u64` at byte 8 that every exclusive acquisition
//! increments, so a handle learns that another handle changed the frame (even when the frame
//! kept its length) by comparing it with the value it saw last. The lock nests: a handle that
//! holds it (`blosc2_schunk_lock`, or an operation in progress) only counts further
//! acquisitions, and the last release unlocks. The sidecar is opened on the first acquisition
//! and kept open while the handle lives.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use super::io::{file_read_at, file_write_all_at};
use crate::{Error, Result};

/// Byte offset of the generation counter in the sidecar (c-blosc2 leaves bytes 0..8 alone).
const GENERATION_AT: u64 = 8;

/// Name of the sidecar of a cframe file (appended to its path) or inside an sframe directory.
pub const SIDECAR_SUFFIX: &str = ".b2lock";

/// The sidecar lock file of the frame at `urlpath`.
pub fn sidecar_path(urlpath: &Path, sparse: bool) -> PathBuf {
    if sparse {
        urlpath.join(SIDECAR_SUFFIX)
    } else {
        let mut s = urlpath.as_os_str().to_os_string();
        s.push(SIDECAR_SUFFIX);
        PathBuf::from(s)
    }
}

#[derive(Default)]
struct State {
    file: Option<File>,
    /// How many acquisitions are outstanding on this handle (0: not locked).
    depth: u32,
    /// The generation this handle saw last (after its own increment when exclusive); `None`
    /// before its first acquisition, which sees the frame as the handle read or made it.
    generation: Option<u64>,
    /// Another handle took the lock exclusively since this one last looked.
    stale: bool,
}

/// The lock of one handle on one frame.
pub struct FrameLock {
    path: PathBuf,
    state: Mutex<State>,
}

impl FrameLock {
    pub fn new(urlpath: &Path, sparse: bool) -> FrameLock {
        FrameLock {
            path: sidecar_path(urlpath, sparse),
            state: Mutex::new(State::default()),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // The state stays consistent whatever panicked while holding it.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Takes the lock (exclusive: for a change), or nests in the one this handle holds.
    pub fn acquire(&self, exclusive: bool) -> Result<()> {
        let mut st = self.state();
        if st.depth > 0 {
            st.depth += 1;
            return Ok(());
        }
        if st.file.is_none() {
            let file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&self.path)
                .map_err(|_| Error::Lock)?;
            st.file = Some(file);
        }
        let Some(file) = st.file.as_ref() else {
            return Err(Error::Lock);
        };
        loop {
            let r = if exclusive {
                file.lock()
            } else {
                file.lock_shared()
            };
            match r {
                Ok(()) => break,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => return Err(Error::Lock),
            }
        }
        let seen = match read_generation(file) {
            Ok(g) => g,
            Err(e) => {
                let _ = file.unlock();
                return Err(e);
            }
        };
        let now = if exclusive {
            let next = seen.wrapping_add(1);
            if write_generation(file, next).is_err() {
                let _ = file.unlock();
                return Err(Error::Lock);
            }
            next
        } else {
            seen
        };
        if st.generation.is_some_and(|g| g != seen) {
            st.stale = true;
        }
        st.generation = Some(now);
        st.depth = 1;
        Ok(())
    }

    /// Gives back one acquisition; the last one unlocks. Unbalanced calls are ignored.
    pub fn release(&self) -> Result<()> {
        let mut st = self.state();
        if st.depth == 0 {
            return Ok(());
        }
        st.depth -= 1;
        if st.depth > 0 {
            return Ok(());
        }
        match st.file.as_ref() {
            Some(f) => f.unlock().map_err(|_| Error::Lock),
            None => Ok(()),
        }
    }

    /// Whether another handle took the lock exclusively since this handle last refreshed.
    pub fn is_stale(&self) -> bool {
        self.state().stale
    }

    /// Forgets the staleness (the handle just re-read the frame).
    pub fn clear_stale(&self) {
        self.state().stale = false;
    }
}

/// One acquisition of a frame lock (or of none, for frames nobody locks), given back when
/// dropped or by [`LockGuard::release`], which reports a failed unlock.
#[must_use = "the lock is given back as soon as the guard is dropped"]
pub struct LockGuard(Option<Arc<FrameLock>>);

impl LockGuard {
    /// Takes `lock` (exclusive: for a change), or nests in the acquisition its handle holds;
    /// `None` holds nothing.
    pub fn acquire(lock: Option<&Arc<FrameLock>>, exclusive: bool) -> Result<LockGuard> {
        if let Some(l) = lock {
            l.acquire(exclusive)?;
        }
        Ok(LockGuard(lock.cloned()))
    }

    /// Gives the acquisition back now.
    pub fn release(mut self) -> Result<()> {
        self.0.take().map_or(Ok(()), |l| l.release())
    }
}

impl Drop for LockGuard {
    fn drop(&mut self) {
        if let Some(l) = self.0.take() {
            // Reached only on an early return, whose own error is the one to report.
            let _ = l.release();
        }
    }
}

/// The counter in the sidecar; a sidecar too short to hold one reads as 0.
fn read_generation(file: &File) -> Result<u64> {
    let mut buf = [0u8; 8];
    let mut done = 0;
    while done < buf.len() {
        match file_read_at(file, GENERATION_AT + done as u64, &mut buf[done..]) {
            Ok(0) => return Ok(0),
            Ok(n) => done += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return Err(Error::Lock),
        }
    }
    Ok(u64::from_ne_bytes(buf))
}

fn write_generation(file: &File, generation: u64) -> std::io::Result<()> {
    file_write_all_at(file, GENERATION_AT, &generation.to_ne_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nests_counts_generations_and_sees_other_handles() {
        let dir = std::env::temp_dir().join(format!("rblosc2-lock-{}", std::process::id()));
        let _ = std::fs::remove_file(sidecar_path(&dir, false));
        let a = FrameLock::new(&dir, false);
        let b = FrameLock::new(&dir, false);
        a.acquire(true).unwrap();
        a.acquire(false).unwrap();
        a.release().unwrap();
        a.release().unwrap();
        a.release().unwrap();
        let bytes = std::fs::read(sidecar_path(&dir, false)).unwrap();
        assert_eq!(bytes.len(), 16);
        assert_eq!(bytes[8..], 1u64.to_ne_bytes());
        assert!(!a.is_stale(), "its own change does not make a handle stale");
        b.acquire(true).unwrap();
        b.release().unwrap();
        a.acquire(false).unwrap();
        a.release().unwrap();
        assert!(a.is_stale());
        a.clear_stale();
        a.acquire(false).unwrap();
        a.release().unwrap();
        assert!(!a.is_stale());
        std::fs::remove_file(sidecar_path(&dir, false)).unwrap();
        assert_eq!(
            sidecar_path(Path::new("d"), true),
            Path::new("d").join(".b2lock")
        );
    }
}
