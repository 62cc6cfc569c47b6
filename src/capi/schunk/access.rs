//! Argument helpers of the super-chunk functions and the locking/refresh sequence every call on a shared frame goes through (lock, refresh if stale, operate, unlock).

use std::borrow::Cow;
use std::mem::MaybeUninit;
use std::path::PathBuf;

use libc::{c_char, c_int};

use super::handle::{handle_mut, schunk_ref};
use crate::capi::ffi::{c_str, entry, in_slice, malloc_copy};
use crate::capi::types::*;
use crate::frame::ChunkBytes;
use crate::schunk::{GivenChunk, Handover, Schunk};
use crate::{Error, Result};

pub(super) fn to_c_int(n: i64) -> Result<c_int> {
    c_int::try_from(n).map_err(|_| Error::Failure)
}

/// The compressed chunk at `p`: its header's cbytes bytes.
///
/// # Safety
/// `p` is NULL or points to a chunk whose header's cbytes bytes are readable for 'a.
pub(super) unsafe fn c_chunk<'a>(p: *const u8) -> Result<&'a [u8]> {
    if p.is_null() {
        return Err(Error::NullPointer);
    }
    // SAFETY: every chunk starts with the 16-byte minimal header, cbytes at 12..16.
    let head = unsafe { in_slice(p, 16usize) }?;
    let cbytes = i32::from_le_bytes([head[12], head[13], head[14], head[15]]);
    if cbytes < 16 {
        return Err(Error::ReadBuffer);
    }
    // SAFETY: the caller's chunk holds cbytes bytes, per the API.
    unsafe { in_slice(p, cbytes) }
}

/// Hands a chunk to C: borrowed ones as pointers into the super-chunk (needs_free false),
/// others malloc'd (needs_free true). Returns the chunk's length.
///
/// # Safety
/// `chunk` and `needs_free` are NULL or writable.
pub(super) unsafe fn give_chunk(
    c: Cow<'_, [u8]>,
    chunk: *mut *mut u8,
    needs_free: *mut bool,
) -> Result<c_int> {
    let len = c_int::try_from(c.len()).map_err(|_| Error::MaxBufsizeExceeded)?;
    let (p, free) = match c {
        Cow::Borrowed(b) => (b.as_ptr().cast_mut(), false),
        Cow::Owned(v) => (malloc_copy(&v)?, true),
    };
    // SAFETY: forwarded contract; p is malloc'd when free is true.
    unsafe { hand_out(p, free, chunk, needs_free) };
    Ok(len)
}

/// Writes the two out-parameters of the chunk getters: the chunk `p` and whether the caller
/// must free it (`free`: `p` is malloc'd). With no `chunk` to hand it to, a malloc'd `p` is
/// freed here.
///
/// # Safety
/// `chunk` and `needs_free` are NULL or writable; `p` is malloc'd when `free` is true.
unsafe fn hand_out(p: *mut u8, free: bool, chunk: *mut *mut u8, needs_free: *mut bool) {
    // SAFETY: NULL-checked outputs, writable per the contract; p is ours to free when `free`.
    unsafe {
        if !chunk.is_null() {
            *chunk = p;
        } else if free {
            libc::free(p.cast());
        }
        if !needs_free.is_null() {
            *needs_free = free;
        }
    }
}

/// Hands chunk `nchunk` of `s` to C as [`give_chunk`] does; one read from disk goes straight
/// into the malloc'd buffer C receives (as c-blosc2 reads it), with no copy.
///
/// # Safety
/// `chunk` and `needs_free` are NULL or writable.
pub(super) unsafe fn give_chunk_read(
    s: &Schunk,
    nchunk: i64,
    chunk: *mut *mut u8,
    needs_free: *mut bool,
) -> Result<c_int> {
    let mut malloced: *mut u8 = std::ptr::null_mut();
    let got = s.get_chunk_into(nchunk, &mut |len| {
        // SAFETY: a plain allocation of at least one byte; NULL is checked.
        let p = unsafe { libc::malloc(len.max(1)) }.cast::<u8>();
        if p.is_null() {
            return Err(Error::MemoryAlloc);
        }
        malloced = p;
        // SAFETY: p is a fresh allocation of len bytes, lent as uninitialised bytes until
        // the chunk is read into it; nothing else refers to it.
        Ok(unsafe { std::slice::from_raw_parts_mut(p.cast::<MaybeUninit<u8>>(), len) })
    });
    let read = match got {
        Ok(ChunkBytes::Stored(c)) => {
            // SAFETY: forwarded contract.
            return unsafe { give_chunk(c, chunk, needs_free) };
        }
        Ok(ChunkBytes::Read(bytes)) => {
            c_int::try_from(bytes.len()).map_err(|_| Error::MaxBufsizeExceeded)
        }
        Err(e) => Err(e),
    };
    let Ok(len) = read else {
        // SAFETY: NULL or our own allocation, not handed out.
        unsafe { libc::free(malloced.cast()) };
        return read;
    };
    // SAFETY: forwarded contract; `malloced` is our malloc'd buffer holding the chunk.
    unsafe { hand_out(malloced, true, chunk, needs_free) };
    Ok(len)
}

/// A C path argument.
///
/// # Safety
/// `s` is NULL or a NUL-terminated string.
pub(super) unsafe fn c_path(s: *const c_char) -> Result<PathBuf> {
    // SAFETY: forwarded contract.
    let s = unsafe { c_str(s) }.ok_or(Error::InvalidParam)?;
    Ok(PathBuf::from(s.strip_suffix(['/', '\\']).unwrap_or(s)))
}

/// The common part of append/insert/update_chunk: hands the caller's `chunk` to `op`, as a copy
/// to make (`copy` true) or handed over (`copy` false: the caller's malloc'd chunk, which the
/// core keeps in an in-memory list as c-blosc2 keeps the pointer, or copies into a frame and
/// frees; refused, it stays the caller's).
///
/// # Safety
/// `schunk` is NULL or live; `chunk` is NULL or a valid malloc'd chunk.
pub(super) unsafe fn store_given_chunk(
    schunk: *mut blosc2_schunk,
    chunk: *mut u8,
    copy: bool,
    resync: impl FnOnce(&Schunk) -> bool,
    op: impl FnOnce(&mut Schunk, GivenChunk<'_>) -> Result<i64>,
) -> i64 {
    entry(|| {
        // SAFETY: chunk is NULL or a valid chunk per the API.
        let c = unsafe { c_chunk(chunk) }?;
        // SAFETY: schunk is NULL or live per the API.
        unsafe {
            change_shared_frame(schunk, resync, |s| {
                // Made only here, where the core takes it: a Handover dropped unused gives
                // the chunk back, but one never made cannot free it.
                let given = if copy {
                    GivenChunk::Borrowed(c)
                } else {
                    GivenChunk::Handed(Handover::new(Box::new(MallocChunk {
                        ptr: std::ptr::NonNull::from(c).cast(),
                        len: c.len(),
                    })))
                };
                op(s, given)
            })
        }
    })
}

/// A chunk a C caller malloc'd and handed over (`copy = false`): kept by an in-memory chunk
/// list where it is and freed when the list lets it go, or freed once copied into a frame;
/// given back (left to the caller, not freed) when the change does not take it.
struct MallocChunk {
    ptr: std::ptr::NonNull<u8>,
    len: usize,
}

// SAFETY: from the handover on the list owns the bytes alone (the caller no longer touches
// them, per the API); they are only read through `bytes` and freed once.
unsafe impl Send for MallocChunk {}
// SAFETY: as above; shared access only reads.
unsafe impl Sync for MallocChunk {}

impl crate::schunk::HandedChunk for MallocChunk {
    fn bytes(&self) -> &[u8] {
        // SAFETY: `ptr` holds `len` readable bytes (checked as a chunk by c_chunk at the
        // handover), owned by this value until it drops.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    fn give_back(self: Box<Self>) {
        std::mem::forget(*self);
    }
}

impl Drop for MallocChunk {
    fn drop(&mut self) {
        // SAFETY: `ptr` is the caller's malloc'd chunk, handed over and not freed elsewhere.
        unsafe { libc::free(self.ptr.as_ptr().cast()) };
    }
}

/// Runs a change on the super-chunk behind `p` and re-syncs the mirror (also on failure: the
/// core may have done part of the work, as c-blosc2's counters show).
///
/// # Safety
/// `p` is NULL or a live handle, not used concurrently.
pub(super) unsafe fn modify<T>(
    p: *mut blosc2_schunk,
    f: impl FnOnce(&mut Schunk) -> Result<T>,
) -> Result<T> {
    // SAFETY: forwarded contract.
    unsafe { change_shared_frame(p, |_| false, f) }
}

/// Runs a change through the core's change sequence (`Schunk::change_shared`: lock, re-read
/// when stale and `resync` says so, change, unlock) and re-syncs the mirror after, also on
/// failure.
///
/// # Safety
/// `p` is NULL or a live handle, not used concurrently.
pub(crate) unsafe fn change_shared_frame<T>(
    p: *mut blosc2_schunk,
    resync: impl FnOnce(&Schunk) -> bool,
    f: impl FnOnce(&mut Schunk) -> Result<T>,
) -> Result<T> {
    // SAFETY: forwarded contract.
    let h = unsafe { handle_mut(p) }.ok_or(Error::NullPointer)?;
    let r = h.schunk.change_shared(resync, f);
    h.sync();
    r
}

/// Runs a read call through the core's read sequence (`crate::schunk::read_shared`), giving it
/// the handle behind `p` and a refresh that re-syncs the mirror.
///
/// # Safety
/// `p` is NULL or a live handle; other threads may only be reading it.
pub(crate) unsafe fn read_shared_frame<T>(
    p: *mut blosc2_schunk,
    resync: impl FnOnce(&Schunk) -> bool,
    f: impl FnOnce(&Schunk) -> Result<T>,
) -> Result<T> {
    crate::schunk::read_shared(
        // SAFETY: forwarded contract; re-derived after a refresh.
        || unsafe { read(p) },
        || {
            // SAFETY: live per the contract; read_shared refreshes only while no other read
            // call uses the handle, and changes are not made concurrently (the API's contract).
            let h = unsafe { handle_mut(p) }.ok_or(Error::NullPointer)?;
            let refreshed = h.schunk.refresh();
            h.sync();
            refreshed.map(|_| ())
        },
        resync,
        f,
    )
}

/// # Safety
/// `p` is NULL or a live handle.
pub(super) unsafe fn read<'a>(p: *const blosc2_schunk) -> Result<&'a Schunk> {
    // SAFETY: forwarded contract.
    unsafe { schunk_ref(p) }.ok_or(Error::NullPointer)
}

/// Re-reads the frame if another handle changed it, for calls that read the whole super-chunk
/// (copies, serialisations), which c-blosc2 re-syncs by reading its chunks.
///
/// # Safety
/// `p` is NULL or a live handle.
pub(super) unsafe fn resync_whole(p: *mut blosc2_schunk) -> Result<()> {
    // SAFETY: forwarded contract.
    unsafe { read_shared_frame(p, |_| true, |_| Ok(())) }
}

/// Whether `nchunk` is a chunk the super-chunk knows of (calls on others fail before reading).
pub(super) fn known_chunk(s: &Schunk, nchunk: i64) -> bool {
    (0..s.nchunks()).contains(&nchunk)
}
