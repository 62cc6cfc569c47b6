//! I/O backends for C: the registry of `blosc2_io_cb` (`blosc2_register_io_cb`,
//! `blosc2_get_io_cb`), the stdio functions of blosc2/blosc2-stdio.h, and a `blosc2_io` turned
//! into the core's `Io` trait (the filesystem ids map to the core's own file backend; a
//! registered user backend is called through its callbacks).

use std::ffi::{CStr, CString};
use std::path::Path;
use std::ptr;
use std::sync::{Arc, Mutex};

use libc::{c_int, c_void};

use crate::capi::ffi::entry;
use crate::capi::stdio::*;
use crate::capi::types::*;
use crate::frame::io::{ByteStore, FileIo, Io, LockingFileIo, OpenMode};
use crate::{Error, Result};

/// `BLOSC2_IO_DEFAULTS.name`.
pub(crate) const FILESYSTEM_NAME: &CStr = c"filesystem";
const FILESYSTEM_MMAP_NAME: &CStr = c"filesystem_mmap";

const IO_FILESYSTEM: u8 = 0;
const IO_FILESYSTEM_MMAP: u8 = 1;
/// Ids below this are reserved for Blosc (`BLOSC2_IO_REGISTERED`).
const IO_REGISTERED: u8 = 160;
/// At most this many user backends (c-blosc2's `BLOSC2_IO_MAX_REGISTERED` minus the builtins).
const MAX_REGISTERED: usize = 256 - IO_REGISTERED as usize;

/// A registered backend; boxed and never freed, so `blosc2_get_io_cb` can return a stable
/// pointer to it.
struct Entry(*mut blosc2_io_cb);

// SAFETY: the entries are leaked boxes only read after registration; their function pointers
// are the caller's, who registered them for use from any thread (as c-blosc2 does).
unsafe impl Send for Entry {}

fn registry() -> &'static Mutex<Vec<Entry>> {
    static REG: std::sync::OnceLock<Mutex<Vec<Entry>>> = std::sync::OnceLock::new();
    REG.get_or_init(|| {
        let builtin = |id, name: &'static CStr| {
            let cb = blosc2_io_cb {
                id,
                name: name.as_ptr().cast_mut(),
                is_allocation_necessary: true,
                open: Some(blosc2_stdio_open),
                close: Some(blosc2_stdio_close),
                size: Some(blosc2_stdio_size),
                write: Some(blosc2_stdio_write),
                read: Some(blosc2_stdio_read),
                truncate: Some(blosc2_stdio_truncate),
                destroy: Some(blosc2_stdio_destroy),
            };
            Entry(Box::into_raw(Box::new(cb)))
        };
        let mmap = blosc2_io_cb {
            id: IO_FILESYSTEM_MMAP,
            name: FILESYSTEM_MMAP_NAME.as_ptr().cast_mut(),
            is_allocation_necessary: false,
            open: Some(blosc2_stdio_mmap_open),
            close: Some(blosc2_stdio_mmap_close),
            size: Some(blosc2_stdio_mmap_size),
            write: Some(blosc2_stdio_mmap_write),
            read: Some(blosc2_stdio_mmap_read),
            truncate: Some(blosc2_stdio_mmap_truncate),
            destroy: Some(blosc2_stdio_mmap_destroy),
        };
        Mutex::new(vec![
            builtin(IO_FILESYSTEM, FILESYSTEM_NAME),
            Entry(Box::into_raw(Box::new(mmap))),
        ])
    })
}

fn lookup(id: u8) -> Option<*mut blosc2_io_cb> {
    let reg = registry().lock().ok()?;
    // SAFETY: entries are leaked boxes, valid forever.
    reg.iter().map(|e| e.0).find(|&p| unsafe { (*p).id } == id)
}

/// Registers a user I/O backend: a copy of `*io` is kept for the life of the process, so the
/// caller's struct may go away. Its `id` must be at least `BLOSC2_IO_REGISTERED` (lower ids are
/// the library's own backends); registering an id again is accepted and changes nothing. Returns
/// 0, BLOSC2_ERROR_INVALID_PARAM for a NULL `io`, or BLOSC2_ERROR_FAILURE for a reserved id or a
/// full registry.
#[no_mangle]
pub unsafe extern "C" fn blosc2_register_io_cb(io: *const blosc2_io_cb) -> c_int {
    entry(|| {
        // SAFETY: io is NULL or valid per the API.
        let cb = unsafe { io.as_ref() }.ok_or(Error::InvalidParam)?;
        if cb.id < IO_REGISTERED {
            return Err(Error::Failure);
        }
        let mut reg = registry().lock().map_err(|_| Error::Failure)?;
        // SAFETY: entries are leaked boxes, valid forever.
        if reg.iter().any(|e| unsafe { (*e.0).id } == cb.id) {
            // Registering the same id again is accepted (and changes nothing), as in
            // c-blosc2.
            return Ok(0);
        }
        if reg.len() >= MAX_REGISTERED + 2 {
            return Err(Error::Failure);
        }
        reg.push(Entry(Box::into_raw(Box::new(*cb))));
        Ok(0)
    })
}

/// The registered I/O backend with identifier `id` (the built-in filesystem and memory-mapped
/// ones included), or NULL when none has that id. The returned struct belongs to the library and
/// stays valid for the life of the process; do not free it.
#[no_mangle]
pub unsafe extern "C" fn blosc2_get_io_cb(id: u8) -> *mut blosc2_io_cb {
    entry(|| lookup(id).ok_or(Error::Failure))
}

/// The core backend for a `blosc2_io`: the filesystem id uses the core's file backend (same
/// bytes as c-blosc2's stdio backend), other ids (the memory-mapped backend included) their
/// registered callbacks.
///
/// # Safety
/// `io.params` is what the registered callbacks expect (the caller's contract).
pub(crate) unsafe fn io_from_c(io: &blosc2_io) -> Result<Arc<dyn Io>> {
    match io.id {
        // SAFETY: the filesystem backend's params are NULL or a blosc2_stdio_params.
        IO_FILESYSTEM if unsafe { stdio_locking(io.params) } => Ok(Arc::new(LockingFileIo)),
        IO_FILESYSTEM => Ok(Arc::new(FileIo)),
        id => {
            let cb = lookup(id).ok_or(Error::PluginIo)?;
            // SAFETY: registered entries are valid forever.
            let cb = unsafe { *cb };
            Ok(Arc::new(CallbackIo {
                cb,
                params: io.params,
            }))
        }
    }
}

/// Whether frames on the filesystem backend take the frame lock: its params ask for it, or
/// BLOSC_LOCKING is set to anything but "" or "0" (read when a frame is opened or created).
///
/// # Safety
/// `params` is NULL or points to a `blosc2_stdio_params`.
unsafe fn stdio_locking(params: *mut c_void) -> bool {
    // SAFETY: forwarded contract.
    let asked = unsafe { params.cast::<blosc2_stdio_params>().as_ref() }.is_some_and(|p| p.locking);
    asked || std::env::var_os("BLOSC_LOCKING").is_some_and(|v| !v.is_empty() && v != "0")
}

/// Calls the `destroy` callback of a non-default backend with its params, as c-blosc2 does
/// when a super-chunk using it is freed.
///
/// # Safety
/// `io.params` is what the registered callbacks expect, and no store of it is open.
pub(crate) unsafe fn destroy_io(io: &blosc2_io) {
    if io.id == IO_FILESYSTEM {
        return;
    }
    // SAFETY: registered entries are valid forever.
    if let Some(destroy) = lookup(io.id).and_then(|cb| unsafe { (*cb).destroy }) {
        // SAFETY: the backend's own callback with the params it was opened with.
        unsafe { destroy(io.params) };
    }
}

/// A user backend: the registered callbacks and the `blosc2_io.params` given to `open`.
struct CallbackIo {
    cb: blosc2_io_cb,
    params: *mut c_void,
}

// SAFETY: the callbacks and params are the caller's, registered for use by the library from
// any thread it runs (c-blosc2 makes the same assumption).
unsafe impl Send for CallbackIo {}
// SAFETY: as for Send.
unsafe impl Sync for CallbackIo {}

impl Io for CallbackIo {
    /// Opens nothing for long: as c-blosc2 does with user backends, every operation on the
    /// store opens the file, does its reads or writes and closes it again, so nothing the
    /// library wrote stays buffered in the backend between calls (another handle opening the
    /// same frame through the backend sees it whole). Here the file is opened once to check
    /// it can be (and, for `Create`/`Append`, to create it) and closed at once.
    fn open(&self, path: &Path, mode: OpenMode) -> Result<Box<dyn ByteStore>> {
        let path =
            CString::new(path.to_string_lossy().as_bytes()).map_err(|_| Error::InvalidParam)?;
        let store = CallbackStore {
            cb: self.cb,
            params: self.params,
            path,
            // Later writes go to the existing file: "wb" would truncate it, "ab" ignore the
            // position.
            write_mode: match mode {
                OpenMode::Read => OpenMode::Read,
                _ => OpenMode::ReadWrite,
            },
        };
        drop(store.open(mode)?);
        Ok(Box::new(store))
    }
}

/// A file of a user backend, opened around each operation.
struct CallbackStore {
    cb: blosc2_io_cb,
    params: *mut c_void,
    path: CString,
    /// How writes and truncations open it (`Read` for a store opened read-only, whose
    /// writes the backend then refuses).
    write_mode: OpenMode,
}

// SAFETY: see CallbackIo.
unsafe impl Send for CallbackStore {}
// SAFETY: see CallbackIo.
unsafe impl Sync for CallbackStore {}

impl CallbackStore {
    fn open(&self, mode: OpenMode) -> Result<CallbackStream> {
        let open = self.cb.open.ok_or(Error::PluginIo)?;
        let cmode = CString::new(mode.as_c_mode()).map_err(|_| Error::InvalidParam)?;
        // SAFETY: the callback's contract: two C strings and the caller's params.
        let stream = unsafe { open(self.path.as_ptr(), cmode.as_ptr(), self.params) };
        if stream.is_null() {
            return Err(Error::FileOpen);
        }
        Ok(CallbackStream {
            cb: self.cb,
            stream,
        })
    }
}

impl ByteStore for CallbackStore {
    fn size(&self) -> Result<u64> {
        self.open(OpenMode::Read)?.size()
    }

    fn read_at(&self, pos: u64, buf: &mut [u8]) -> Result<usize> {
        self.open(OpenMode::Read)?.read_at(pos, buf)
    }

    fn write_at(&mut self, pos: u64, data: &[u8]) -> Result<()> {
        self.open(self.write_mode)?.write_at(pos, data)
    }

    fn truncate(&mut self, len: u64) -> Result<()> {
        self.open(self.write_mode)?.truncate(len)
    }
}

/// A stream opened by a user backend for one operation; closed when dropped.
struct CallbackStream {
    cb: blosc2_io_cb,
    stream: *mut c_void,
}

impl CallbackStream {
    fn size(&self) -> Result<u64> {
        let size = self.cb.size.ok_or(Error::PluginIo)?;
        // SAFETY: a stream from this backend's open.
        let n = unsafe { size(self.stream) };
        u64::try_from(n).map_err(|_| Error::FileRead)
    }

    fn read_at(&self, pos: u64, buf: &mut [u8]) -> Result<usize> {
        let read = self.cb.read.ok_or(Error::PluginIo)?;
        let pos = i64::try_from(pos).map_err(|_| Error::FileRead)?;
        let len = buf.len() as i64;
        let mut p: *mut c_void = if self.cb.is_allocation_necessary {
            buf.as_mut_ptr().cast()
        } else {
            ptr::null_mut()
        };
        // SAFETY: p is our buffer of len bytes (or, for backends that allocate nothing, a
        // pointer the callback sets to its own memory holding the bytes read).
        let n = unsafe { read(&mut p, 1, len, pos, self.stream) };
        if n < 0 {
            return Err(Error::FileRead);
        }
        let n = (n as usize).min(buf.len());
        if !self.cb.is_allocation_necessary && n > 0 {
            if p.is_null() {
                return Err(Error::FileRead);
            }
            // SAFETY: the callback made p point at n readable bytes.
            buf[..n].copy_from_slice(unsafe { std::slice::from_raw_parts(p.cast::<u8>(), n) });
        }
        Ok(n)
    }

    fn write_at(&mut self, pos: u64, data: &[u8]) -> Result<()> {
        let write = self.cb.write.ok_or(Error::PluginIo)?;
        let pos = i64::try_from(pos).map_err(|_| Error::FileWrite)?;
        // SAFETY: data is readable for its length.
        let n = unsafe { write(data.as_ptr().cast(), 1, data.len() as i64, pos, self.stream) };
        if n != data.len() as i64 {
            return Err(Error::FileWrite);
        }
        Ok(())
    }

    fn truncate(&mut self, len: u64) -> Result<()> {
        let truncate = self.cb.truncate.ok_or(Error::PluginIo)?;
        let len = i64::try_from(len).map_err(|_| Error::FileTruncate)?;
        // SAFETY: a stream from this backend's open.
        if unsafe { truncate(self.stream, len) } != 0 {
            return Err(Error::FileTruncate);
        }
        Ok(())
    }
}

impl Drop for CallbackStream {
    fn drop(&mut self) {
        if let Some(close) = self.cb.close {
            // SAFETY: a stream from this backend's open, closed once.
            unsafe { close(self.stream) };
        }
    }
}
