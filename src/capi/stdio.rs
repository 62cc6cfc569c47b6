//! The stdio backend of blosc2/blosc2-stdio.h (`blosc2_stdio_*`): a `blosc2_stdio_file` around
//! a C `FILE`, positional reads and writes. The library itself reads and writes files through
//! the core's file backend; these are for C code that calls or wraps them.

use std::ptr;

use libc::{c_char, c_int, c_void};

use crate::capi::ffi::guard;
use crate::capi::types::*;

/// The FILE of a `blosc2_stdio_file *` stream (None for a NULL stream or a NULL FILE: c-blosc2
/// returns its error value for both).
///
/// # Safety
/// `stream` is NULL or points to a `blosc2_stdio_file` (from `blosc2_stdio_open`, or the
/// caller's own).
unsafe fn stdio_file(stream: *mut c_void) -> Option<*mut libc::FILE> {
    // SAFETY: forwarded contract.
    unsafe { stream.cast::<blosc2_stdio_file>().as_ref() }
        .map(|s| s.file)
        .filter(|f| !f.is_null())
}

/// Opens `urlpath` with `fopen(urlpath, mode)` for the stdio I/O backend.
/// `mode` is an fopen mode string ("rb", "wb+", ...); `_params` (a `blosc2_stdio_params *`) is
/// not used here. Returns a new `blosc2_stdio_file *` (as `void *`), to be released with
/// `blosc2_stdio_close`, or NULL when `urlpath` or `mode` is NULL, the file cannot be opened or
/// memory runs out.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_open(
    urlpath: *const c_char,
    mode: *const c_char,
    _params: *mut c_void,
) -> *mut c_void {
    guard(ptr::null_mut(), || {
        if urlpath.is_null() || mode.is_null() {
            return ptr::null_mut();
        }
        // SAFETY: two C strings per the API.
        let file = unsafe { libc::fopen(urlpath, mode) };
        if file.is_null() {
            return ptr::null_mut();
        }
        // SAFETY: a fresh allocation for one blosc2_stdio_file, written whole.
        unsafe {
            let s =
                libc::malloc(std::mem::size_of::<blosc2_stdio_file>()).cast::<blosc2_stdio_file>();
            if s.is_null() {
                libc::fclose(file);
                return ptr::null_mut();
            }
            s.write(blosc2_stdio_file { file });
            s.cast()
        }
    })
}

/// Closes a stream returned by `blosc2_stdio_open`: `fclose`s its FILE and frees the stream.
/// Returns fclose's result (0 on success), or -1 for a NULL stream. The stream must not be
/// used afterwards.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_close(stream: *mut c_void) -> c_int {
    guard(-1, || {
        // SAFETY: stream is NULL or from blosc2_stdio_open, per the API.
        let Some(file) = (unsafe { stdio_file(stream) }) else {
            return -1;
        };
        // SAFETY: the FILE and the struct are ours, closed and freed once.
        unsafe {
            let rc = libc::fclose(file);
            libc::free(stream);
            rc
        }
    })
}

/// The size in bytes of the file behind `stream` (seeks to its end), or -1 for a NULL stream or
/// a failed seek.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_size(stream: *mut c_void) -> i64 {
    guard(-1, || {
        // SAFETY: stream is NULL or from blosc2_stdio_open, per the API.
        let Some(file) = (unsafe { stdio_file(stream) }) else {
            return -1;
        };
        // SAFETY: an open FILE. The position is put back: c-blosc2's size does not move it.
        unsafe {
            let here = libc::ftello(file);
            if here < 0 || libc::fseeko(file, 0, libc::SEEK_END) != 0 {
                return -1;
            }
            let size = libc::ftello(file);
            if libc::fseeko(file, here, libc::SEEK_SET) != 0 {
                return -1;
            }
            size
        }
    })
}

/// Writes `nitems` items of `size` bytes from `ptr` at byte offset `position` of the stream's
/// file. Returns the number of items written (fwrite's count; 0 on a NULL argument, negative
/// sizes or a failed seek).
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_write(
    ptr: *const c_void,
    size: i64,
    nitems: i64,
    position: i64,
    stream: *mut c_void,
) -> i64 {
    guard(0, || {
        // SAFETY: stream is NULL or from blosc2_stdio_open, per the API.
        let Some(file) = (unsafe { stdio_file(stream) }) else {
            return 0;
        };
        if size < 0 || nitems < 0 || ptr.is_null() {
            return 0;
        }
        // SAFETY: an open FILE; ptr holds size * nitems bytes per the API.
        unsafe {
            if libc::fseeko(file, position, libc::SEEK_SET) != 0 {
                return 0;
            }
            libc::fwrite(ptr, size as usize, nitems as usize, file) as i64
        }
    })
}

/// Reads `nitems` items of `size` bytes at byte offset `position` of the stream's file into the
/// buffer `*ptr` (allocated by the caller, at least `size * nitems` bytes; it is not replaced).
/// Returns the number of items read (fread's count; 0 on a NULL argument, negative sizes or a
/// failed seek).
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_read(
    ptr: *mut *mut c_void,
    size: i64,
    nitems: i64,
    position: i64,
    stream: *mut c_void,
) -> i64 {
    guard(0, || {
        // SAFETY: stream is NULL or from blosc2_stdio_open, per the API.
        let Some(file) = (unsafe { stdio_file(stream) }) else {
            return 0;
        };
        if size < 0 || nitems < 0 || ptr.is_null() {
            return 0;
        }
        // SAFETY: an open FILE; *ptr holds size * nitems writable bytes per the API.
        unsafe {
            if (*ptr).is_null() || libc::fseeko(file, position, libc::SEEK_SET) != 0 {
                return 0;
            }
            libc::fread(*ptr, size as usize, nitems as usize, file) as i64
        }
    })
}

/// Flushes the stream and sets its file's length to `size` bytes (ftruncate). Returns 0 on
/// success, -1 on failure or for a NULL stream.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_truncate(stream: *mut c_void, size: i64) -> c_int {
    guard(-1, || {
        // SAFETY: stream is NULL or from blosc2_stdio_open, per the API.
        let Some(file) = (unsafe { stdio_file(stream) }) else {
            return -1;
        };
        // SAFETY: an open FILE: flush buffered writes, then cut the descriptor.
        unsafe {
            libc::fflush(file);
            libc::ftruncate(libc::fileno(file), size)
        }
    })
}

/// The stdio backend's `destroy` callback. Its params (`blosc2_stdio_params`) belong to the
/// caller, so nothing is freed; always returns 0.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_destroy(params: *mut c_void) -> c_int {
    guard(-1, || {
        // The stdio backend's params (blosc2_stdio_params) belong to the caller: nothing to free.
        let _ = params;
        0
    })
}

// ----- memory-mapped files (blosc2_stdio_mmap) ------------------------------------------------
//
// The `blosc2_stdio_mmap` the caller passes as params is the stream: the first open maps the
// file (mode from the struct: "r" read-only, "r+" existing file, "w+" new file, "c" copy on
// write, changes kept in memory), later opens of the same path return it again, close keeps
// the mapping, and destroy unmaps and closes the file. Writes past the file end grow the file
// (not in "c" mode) and, past the mapping, remap it twice as large.

/// The mapping behind a stream (None for NULL).
///
/// # Safety
/// `stream` is NULL or a `blosc2_stdio_mmap` the caller owns.
unsafe fn mmap_of<'a>(stream: *mut c_void) -> Option<&'a mut blosc2_stdio_mmap> {
    // SAFETY: forwarded contract.
    unsafe { stream.cast::<blosc2_stdio_mmap>().as_mut() }
}

/// Maps `len` bytes of the file for `m` (its access and map flags already set).
///
/// # Safety
/// `m.fd` is an open descriptor.
unsafe fn map(m: &blosc2_stdio_mmap, len: usize) -> *mut c_char {
    // SAFETY: a fresh mapping of an open descriptor; failure is reported as MAP_FAILED.
    let p = unsafe {
        libc::mmap(
            ptr::null_mut(),
            len,
            m.access_flags as c_int,
            m.map_flags as c_int,
            m.fd,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        ptr::null_mut()
    } else {
        p.cast()
    }
}

/// Opens and memory-maps `urlpath` for the memory-mapped backend. `params` is the caller's
/// `blosc2_stdio_mmap` (start from `BLOSC2_STDIO_MMAP_DEFAULTS`); its `mode` picks the access:
/// "r" read-only, "r+" an existing file read-write, "w+" a new (truncated) file, "c" copy on
/// write (changes stay in memory, the file is never written). `_mode` is ignored. The mapping
/// lives in `params`, which is also the returned stream: a later open of the same path returns
/// it again, another path returns NULL. Returns NULL on a NULL argument, an unknown mode or
/// when the file cannot be opened or mapped. The mapping stays until `blosc2_stdio_mmap_destroy`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_open(
    urlpath: *const c_char,
    _mode: *const c_char,
    params: *mut c_void,
) -> *mut c_void {
    guard(ptr::null_mut(), || {
        // SAFETY: params is NULL or the caller's blosc2_stdio_mmap, per the API.
        let Some(m) = (unsafe { mmap_of(params) }) else {
            return ptr::null_mut();
        };
        if urlpath.is_null() {
            return ptr::null_mut();
        }
        if !m.addr.is_null() {
            // Already mapped: the same file again gives the same stream.
            // SAFETY: both are C strings (m.urlpath is our strdup).
            let same = !m.urlpath.is_null() && unsafe { libc::strcmp(m.urlpath, urlpath) } == 0;
            return if same { params } else { ptr::null_mut() };
        }
        let mode = if m.mode.is_null() {
            "r"
        } else {
            // SAFETY: a non-NULL mode is a C string, per the API.
            unsafe { std::ffi::CStr::from_ptr(m.mode) }
                .to_str()
                .unwrap_or("")
        };
        let (fopen_mode, prot, flags, memory_only): (&std::ffi::CStr, c_int, c_int, bool) =
            match mode {
                "r" => (c"rb", libc::PROT_READ, libc::MAP_SHARED, false),
                "r+" => (
                    c"rb+",
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_SHARED,
                    false,
                ),
                "w+" => (
                    c"wb+",
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_SHARED,
                    false,
                ),
                "c" => (
                    c"rb",
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE,
                    true,
                ),
                _ => return ptr::null_mut(),
            };
        // SAFETY: C strings; the FILE is ours until destroy.
        unsafe {
            let file = libc::fopen(urlpath, fopen_mode.as_ptr());
            if file.is_null() {
                return ptr::null_mut();
            }
            let fd = libc::fileno(file);
            let end = libc::lseek(fd, 0, libc::SEEK_END);
            if end < 0 {
                libc::fclose(file);
                return ptr::null_mut();
            }
            m.file = file;
            m.fd = fd;
            m.file_size = end as usize;
            m.is_memory_only = memory_only;
            m.access_flags = prot as i64;
            m.map_flags = flags as i64;
            m.mapping_size = if mode == "r" {
                m.file_size
            } else {
                m.file_size.max(m.initial_mapping_size)
            }
            .max(1);
            m.addr = map(m, m.mapping_size);
            if m.addr.is_null() {
                libc::fclose(file);
                m.file = ptr::null_mut();
                m.fd = -1;
                return ptr::null_mut();
            }
            m.urlpath = libc::strdup(urlpath);
        }
        // c-blosc2 says so on stderr when BLOSC_INFO is set (python-blosc2's tests read it).
        if std::env::var_os("BLOSC_INFO").is_some() {
            // SAFETY: urlpath checked non-NULL, a C string per the API.
            let path = unsafe { std::ffi::CStr::from_ptr(urlpath) }.to_string_lossy();
            crate::capi::ffi::stderr_line(format_args!(
            "[INFO] - Opened memory-mapped file {path} in mode {mode} with an mapping size of {} bytes.",
            m.mapping_size
        ));
        }
        params
    })
}

/// Does nothing and returns 0: the mapping is kept open until `blosc2_stdio_mmap_destroy`, so
/// that later opens of the same file reuse it.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_close(_stream: *mut c_void) -> c_int {
    guard(-1, || {
        // The mapping lives until blosc2_stdio_mmap_destroy.
        0
    })
}

/// The current size in bytes of the mapped file (including writes past its original end), or -1
/// for a NULL stream.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_size(stream: *mut c_void) -> i64 {
    guard(-1, || {
        // SAFETY: stream is NULL or an open mapping, per the API.
        unsafe { mmap_of(stream) }.map_or(-1, |m| m.file_size as i64)
    })
}

/// Copies `nitems` items of `size` bytes from `ptr` to byte offset `position` of the mapped file.
/// Writing past the end grows the file (in memory only in mode "c") and, past the mapping,
/// remaps it at least twice as large. Returns `nitems` on success, 0 on a NULL argument, a
/// read-only mapping, negative or overflowing sizes, or a failed resize.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_write(
    ptr: *const c_void,
    size: i64,
    nitems: i64,
    position: i64,
    stream: *mut c_void,
) -> i64 {
    guard(0, || {
        // SAFETY: stream is NULL or an open mapping, per the API.
        let Some(m) = (unsafe { mmap_of(stream) }) else {
            return 0;
        };
        let Some(n) = size.checked_mul(nitems).filter(|&n| n >= 0) else {
            return 0;
        };
        let Some(end) = position.checked_add(n).filter(|_| position >= 0) else {
            return 0;
        };
        if m.addr.is_null() || ptr.is_null() || m.access_flags & libc::PROT_WRITE as i64 == 0 {
            return 0;
        }
        let end = end as usize;
        if end > m.file_size {
            if !m.is_memory_only {
                // SAFETY: our open descriptor.
                if unsafe { libc::ftruncate(m.fd, end as libc::off_t) } != 0 {
                    return 0;
                }
            }
            m.file_size = end;
        }
        if end > m.mapping_size {
            let new_size = end.max(m.mapping_size.saturating_mul(2));
            // SAFETY: remaps our mapping; the old address is not used afterwards.
            let p = unsafe {
                libc::mremap(
                    m.addr.cast(),
                    m.mapping_size,
                    new_size,
                    libc::MREMAP_MAYMOVE,
                )
            };
            if p == libc::MAP_FAILED {
                return 0;
            }
            m.addr = p.cast();
            m.mapping_size = new_size;
        }
        // SAFETY: position..end lies inside the mapping (grown above) and ptr holds n bytes.
        unsafe {
            ptr::copy_nonoverlapping(
                ptr.cast::<u8>(),
                m.addr.cast::<u8>().add(position as usize),
                n as usize,
            )
        };
        nitems
    })
}

/// Reads without copying: sets `*ptr` to the mapped bytes at offset `position` (the pointer
/// stays valid until the mapping is remapped by a growing write or destroyed; the caller must not
/// free it). Returns the number of whole items of `size` bytes available there, at most
/// `nitems`; 0 on a NULL argument, non-positive `size` or a position past the end.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_read(
    ptr: *mut *mut c_void,
    size: i64,
    nitems: i64,
    position: i64,
    stream: *mut c_void,
) -> i64 {
    guard(0, || {
        if ptr.is_null() {
            return 0;
        }
        // SAFETY: stream is NULL or an open mapping, per the API.
        let m = unsafe { mmap_of(stream) };
        // As c-blosc2: all the items or none; `*ptr` is NULL when none.
        let start = m.filter(|m| !m.addr.is_null()).and_then(|m| {
            let n = size
                .checked_mul(nitems)
                .filter(|_| size >= 0 && nitems >= 0)?;
            let end = position.checked_add(n).filter(|_| position >= 0)?;
            // SAFETY: position..end lies inside the file and the mapping (a truncate may have
            // grown the file past the mapping).
            (end as u64 <= m.file_size.min(m.mapping_size) as u64)
                .then(|| unsafe { m.addr.add(position as usize) })
        });
        // SAFETY: ptr is writable, per the API; the caller reads the bytes in place.
        unsafe { *ptr = start.map_or(ptr::null_mut(), |p| p.cast()) };
        if start.is_some() {
            nitems
        } else {
            0
        }
    })
}

/// Sets the mapped file's size to `size` bytes (the file itself is not touched in mode "c").
/// Returns 0, or -1 for a NULL stream, a negative size or a failed ftruncate.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_truncate(stream: *mut c_void, size: i64) -> c_int {
    guard(-1, || {
        // SAFETY: stream is NULL or an open mapping, per the API.
        let Some(m) = (unsafe { mmap_of(stream) }) else {
            return -1;
        };
        if size < 0 {
            return -1;
        }
        if !m.is_memory_only {
            // SAFETY: our open descriptor.
            if unsafe { libc::ftruncate(m.fd, size as libc::off_t) } != 0 {
                return -1;
            }
        }
        m.file_size = size as usize;
        0
    })
}

/// The memory-mapped backend's `destroy` callback: syncs (unless mode "c") and unmaps the
/// mapping, closes the file, and frees `params` itself when its `needs_free` is set. Returns 0,
/// or -1 when `params` is NULL or unmapping/closing failed.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_destroy(params: *mut c_void) -> c_int {
    guard(-1, || {
        // SAFETY: params is NULL or the caller's blosc2_stdio_mmap, per the API.
        let Some(m) = (unsafe { mmap_of(params) }) else {
            return -1;
        };
        let mut rc = 0;
        // SAFETY: our mapping, FILE and strdup'd path, released once and reset.
        unsafe {
            if !m.addr.is_null() {
                if !m.is_memory_only {
                    libc::msync(m.addr.cast(), m.mapping_size, libc::MS_SYNC);
                }
                rc |= libc::munmap(m.addr.cast(), m.mapping_size);
                m.addr = ptr::null_mut();
            } else {
                // Never mapped (or destroyed already): c-blosc2's munmap of it fails.
                rc = -1;
            }
            if !m.file.is_null() {
                rc |= libc::fclose(m.file);
                m.file = ptr::null_mut();
            }
            libc::free(m.urlpath.cast());
            m.urlpath = ptr::null_mut();
            m.fd = -1;
            if m.needs_free {
                libc::free(params);
            }
        }
        if rc == 0 {
            0
        } else {
            -1
        }
    })
}
