//! Frames: super-chunks from and to buffers and files, opening, offsets, refresh.

use std::path::Path;
use std::ptr;
use std::sync::Arc;

use libc::{c_char, c_int};

use super::access::{c_path, resync_whole};
use super::handle::{default_io, handle, handle_mut, schunk_ref, SchunkHandle};
use crate::capi::ffi::{entry, in_slice, malloc_copy};
use crate::capi::io::io_from_c;
use crate::capi::malloc_frame::MallocFrame;
use crate::capi::types::*;
use crate::frame::io::{Io, SharedBytes};
use crate::schunk::Schunk;
use crate::{Error, Result};

/// A C buffer shared with a no-copy super-chunk (`blosc2_schunk_from_buffer(copy=false)`):
/// the caller keeps it alive and unchanged for the super-chunk's life, per c-blosc2's API.
pub(super) struct CBuffer {
    ptr: *const u8,
    len: usize,
}

// SAFETY: read-only view of caller memory that outlives the super-chunk (API contract).
unsafe impl Send for CBuffer {}
// SAFETY: as for Send.
unsafe impl Sync for CBuffer {}

impl AsRef<[u8]> for CBuffer {
    fn as_ref(&self) -> &[u8] {
        // SAFETY: ptr holds len readable bytes for the buffer's life (see the type's doc).
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

/// Opens the contiguous frame in `cframe` (`len` bytes) as a super-chunk. With `copy` true the
/// super-chunk works on its own copy and the caller may free `cframe` at once; with `copy` false
/// it reads `cframe` in place, which the caller must keep alive and unchanged until
/// `blosc2_schunk_free` (and still frees itself afterwards). Returns the super-chunk, which the
/// caller releases with `blosc2_schunk_free`, or NULL for a NULL buffer, a non-positive `len` or
/// a buffer that is not a valid frame.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_from_buffer(
    cframe: *mut u8,
    len: i64,
    copy: bool,
) -> *mut blosc2_schunk {
    entry(|| {
        if cframe.is_null() || len <= 0 {
            return Err(Error::InvalidParam);
        }
        let len = usize::try_from(len).map_err(|_| Error::InvalidParam)?;
        opened_handle(default_io(), || {
            let shared: SharedBytes = Arc::new(CBuffer { ptr: cframe, len });
            if !copy {
                return Schunk::from_buffer(shared, false);
            }
            // A copy is read from the caller's buffer during this call only: the super-chunk
            // copies each chunk out of it (as c-blosc2 does), with no copy of the whole frame
            // first. Should anything still hold the buffer afterwards, the copy is made from a
            // private copy of the frame instead, since the caller may free it at once.
            let during_call = Arc::clone(&shared);
            let sc = Schunk::from_buffer(shared, true)?;
            if Arc::strong_count(&during_call) == 1 {
                return Ok(sc);
            }
            drop(sc);
            // SAFETY: cframe holds len bytes per the API.
            let bytes = unsafe { in_slice(cframe, len) }?.to_vec();
            Schunk::from_buffer(Arc::new(bytes), true)
        })
    })
}

/// Serialises `schunk` as a contiguous frame. `*cframe` receives the frame and `*needs_free`
/// who owns it: for an in-memory contiguous super-chunk, its own frame buffer (`*needs_free`
/// false: do not free it; it stays valid until the super-chunk changes or is freed, see
/// `blosc2_schunk_avoid_cframe_free`); otherwise a copy allocated with malloc (`*needs_free`
/// true: the caller frees it with free()). Returns the frame's length in bytes, or a negative
/// code (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_SCHUNK_COPY, a read error).
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_to_buffer(
    schunk: *mut blosc2_schunk,
    cframe: *mut *mut u8,
    needs_free: *mut bool,
) -> i64 {
    entry(|| {
        // An in-memory frame is handed out as it is, first and touching as little as can be
        // (nothing to re-sync; a cold call pays for every cache line and page it reaches).
        // SAFETY: schunk is NULL or live per the API.
        let in_memory = unsafe { handle(schunk) }
            .filter(|h| h.schunk.storage().urlpath.is_none())
            .and_then(|h| h.schunk.frame().and_then(|f| f.as_bytes()));
        if let (Some(b), false, false) = (in_memory, cframe.is_null(), needs_free.is_null()) {
            // SAFETY: outputs checked non-NULL, writable per the API.
            unsafe {
                *cframe = b.as_ptr().cast_mut();
                *needs_free = false;
            }
            return Ok(b.len() as i64);
        }
        // SAFETY: schunk is NULL or live per the API.
        unsafe { resync_whole(schunk) }?;
        // SAFETY: as above (re-derived after a refresh).
        let h = unsafe { handle(schunk) }.ok_or(Error::NullPointer)?;
        if cframe.is_null() || needs_free.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: as below. c-blosc2 sets these first, so that they are defined on errors.
        unsafe {
            *cframe = ptr::null_mut();
            *needs_free = false;
        }
        let (p, len, free) = match h.schunk.frame().and_then(|f| f.as_bytes()) {
            Some(b) => (b.as_ptr().cast_mut(), b.len(), false),
            None => {
                // The copy's frame is built in malloc'd memory and handed over as it is.
                let buf = MallocFrame::new();
                let copy = h.copy_to(h.contiguous_storage(None), Some(Box::new(buf.clone())));
                drop(copy.map_err(|_| Error::SchunkCopy)?);
                let (p, len) = buf.take()?;
                (p, len, true)
            }
        };
        // SAFETY: outputs checked non-NULL, writable per the API.
        unsafe {
            *cframe = p;
            *needs_free = free;
        }
        Ok(len as i64)
    })
}

/// Writes `schunk` as a contiguous frame to the file `urlpath` (replaced if it exists); the
/// super-chunk itself is unchanged. Returns the number of bytes written, or a negative code
/// (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_INVALID_PARAM for a NULL path,
/// BLOSC2_ERROR_SCHUNK_COPY, a file error).
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_to_file(
    schunk: *mut blosc2_schunk,
    urlpath: *const c_char,
) -> i64 {
    entry(|| {
        // SAFETY: schunk is NULL or live per the API.
        unsafe { resync_whole(schunk) }?;
        // SAFETY: schunk is NULL or live; urlpath NULL or a C string, per the API.
        let (h, path) = unsafe { (handle(schunk).ok_or(Error::NullPointer)?, c_path(urlpath)?) };
        if h.schunk.frame().and_then(|f| f.as_bytes()).is_some() {
            return h.schunk.to_file(&path);
        }
        Ok(h.contiguous_copy(Some(path))
            .map_err(|_| Error::SchunkCopy)?
            .frame_len())
    })
}

/// Appends `schunk`, as a contiguous frame, to the end of the file `urlpath` (created if needed),
/// so that it can be opened later with `blosc2_schunk_open_offset`. Returns the offset in the
/// file where the frame starts, or a negative code (BLOSC2_ERROR_NULL_POINTER,
/// BLOSC2_ERROR_INVALID_PARAM, BLOSC2_ERROR_SCHUNK_COPY, a file error).
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_append_file(
    schunk: *mut blosc2_schunk,
    urlpath: *const c_char,
) -> i64 {
    entry(|| {
        // SAFETY: as in to_file.
        let (h, path) = unsafe { (handle(schunk).ok_or(Error::NullPointer)?, c_path(urlpath)?) };
        if h.schunk.frame().and_then(|f| f.as_bytes()).is_some() {
            return h.schunk.append_file(&path);
        }
        let copy = h.contiguous_copy(None).map_err(|_| Error::SchunkCopy)?;
        copy.append_file(&path)
    })
}

/// Opens a frame at `urlpath` (offset, I/O) into a new handle.
///
/// # Safety
/// `urlpath` NULL or a C string; `udio` NULL or valid.
pub(super) unsafe fn open_c(
    urlpath: *const c_char,
    offset: i64,
    udio: *const blosc2_io,
) -> *mut blosc2_schunk {
    entry(|| {
        // SAFETY: forwarded contract.
        let path = unsafe { c_path(urlpath) }?;
        // SAFETY: forwarded contract.
        let io = unsafe { udio.as_ref() }.copied().unwrap_or_else(default_io);
        // SAFETY: io is a valid copy.
        let backend: Arc<dyn Io> = unsafe { io_from_c(&io) }?;
        let p = opened_handle(io, || open_with(&path, offset, backend))?;
        // SAFETY: just created.
        if let Some(h) = unsafe { handle_mut(p) } {
            h.offset = offset;
        }
        Ok(p)
    })
}

/// The handle of a super-chunk `open` opens from a frame. As c-blosc2's frame_to_schunk, its
/// contexts get the global thread count (`blosc2_get_nthreads`; BLOSC_NTHREADS wins in
/// them), which its storage shows.
fn opened_handle(
    io: blosc2_io,
    open: impl FnOnce() -> Result<Schunk>,
) -> Result<*mut blosc2_schunk> {
    let n = crate::global::nthreads();
    let p = SchunkHandle::create(io, |_| {
        let mut sc = open()?;
        sc.set_nthreads(n, n)?;
        Ok(sc)
    })?;
    // SAFETY: just created.
    if let Some(h) = unsafe { handle_mut(p) } {
        h.show_storage_nthreads(n, n);
    }
    Ok(p)
}

pub(super) fn open_with(path: &Path, offset: i64, io: Arc<dyn Io>) -> Result<Schunk> {
    Schunk::open_offset_with(path, offset, io)
}

/// Opens the super-chunk stored at `urlpath` (a contiguous frame file or a sparse frame
/// directory), through the filesystem backend. Chunks are read from disk as needed and changes
/// are written back. Returns the super-chunk, which the caller releases with
/// `blosc2_schunk_free`, or NULL when the path is NULL, missing or not a valid frame.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_open(urlpath: *const c_char) -> *mut blosc2_schunk {
    // SAFETY: forwarded API contract.
    unsafe { open_c(urlpath, 0, ptr::null()) }
}

/// As `blosc2_schunk_open`, for a contiguous frame that starts `offset` bytes into the file (see
/// `blosc2_schunk_append_file`). Returns the super-chunk (freed with `blosc2_schunk_free`) or
/// NULL.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_open_offset(
    urlpath: *const c_char,
    offset: i64,
) -> *mut blosc2_schunk {
    // SAFETY: forwarded API contract.
    unsafe { open_c(urlpath, offset, ptr::null()) }
}

/// As `blosc2_schunk_open`, reading and writing through the I/O backend `udio` (NULL: the
/// filesystem). `*udio` is copied; its `params` must stay valid until the super-chunk is freed.
/// Returns the super-chunk (freed with `blosc2_schunk_free`) or NULL.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_open_udio(
    urlpath: *const c_char,
    udio: *const blosc2_io,
) -> *mut blosc2_schunk {
    // SAFETY: forwarded API contract.
    unsafe { open_c(urlpath, 0, udio) }
}

/// As `blosc2_schunk_open_offset`, through the I/O backend `udio` (NULL: the filesystem; its
/// `params` must outlive the super-chunk). Returns the super-chunk (freed with
/// `blosc2_schunk_free`) or NULL.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_open_offset_udio(
    urlpath: *const c_char,
    offset: i64,
    udio: *const blosc2_io,
) -> *mut blosc2_schunk {
    // SAFETY: forwarded API contract.
    unsafe { open_c(urlpath, offset, udio) }
}

/// The offsets of the chunks of a frame-backed `schunk` in its frame (one per chunk, in chunk
/// order), as a new array allocated with malloc that the caller frees with free(). Returns NULL
/// for a NULL `schunk`, a super-chunk without frame, or when memory runs out.
#[no_mangle]
pub unsafe extern "C" fn blosc2_frame_get_offsets(schunk: *mut blosc2_schunk) -> *mut i64 {
    entry(|| {
        // SAFETY: schunk is NULL or live per the API.
        let s = unsafe { schunk_ref(schunk) }.ok_or(Error::NullPointer)?;
        let f = s.frame().ok_or(Error::Failure)?;
        let bytes: Vec<u8> = f.offsets().iter().flat_map(|o| o.to_ne_bytes()).collect();
        Ok(malloc_copy(&bytes)?.cast())
    })
}

/// Re-reads a disk-based super-chunk that another handle changed: 1 when it did, 0 when it was
/// current (and for super-chunks not on disk).
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_refresh(schunk: *mut blosc2_schunk) -> c_int {
    entry(|| {
        // Under the shared lock, as c-blosc2 (a refresh changes nothing on disk).
        // SAFETY: schunk is NULL or live per the API, not used concurrently.
        let h = unsafe { handle_mut(schunk) }.ok_or(Error::NullPointer)?;
        let refreshed = h.schunk.refresh_shared();
        h.sync();
        Ok(c_int::from(refreshed?))
    })
}
