//! The stdio backend of blosc2/blosc2-stdio.h (`blosc2_stdio_*`): a `blosc2_stdio_file` around
//! a C `FILE`, positional reads and writes. The library itself reads and writes files through
//! the core's file backend; these are for C code that calls or wraps them.

use std::ptr;

use libc::{c_char, c_int, c_void};

use crate::capi::types::*;

/// The FILE of a `blosc2_stdio_file *` stream (None for NULL).
///
/// # Safety
/// `stream` is NULL or from `blosc2_stdio_open`.
unsafe fn stdio_file(stream: *mut c_void) -> Option<*mut libc::FILE> {
    // SAFETY: forwarded contract.
    unsafe { stream.cast::<blosc2_stdio_file>().as_ref() }.map(|s| s.file)
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_open(
    urlpath: *const c_char,
    mode: *const c_char,
    _params: *mut c_void,
) -> *mut c_void {
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
        let s = libc::malloc(std::mem::size_of::<blosc2_stdio_file>()).cast::<blosc2_stdio_file>();
        if s.is_null() {
            libc::fclose(file);
            return ptr::null_mut();
        }
        s.write(blosc2_stdio_file { file });
        s.cast()
    }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_close(stream: *mut c_void) -> c_int {
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
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_size(stream: *mut c_void) -> i64 {
    // SAFETY: stream is NULL or from blosc2_stdio_open, per the API.
    let Some(file) = (unsafe { stdio_file(stream) }) else {
        return -1;
    };
    // SAFETY: an open FILE.
    unsafe {
        if libc::fseeko(file, 0, libc::SEEK_END) != 0 {
            return -1;
        }
        libc::ftello(file)
    }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_write(
    ptr: *const c_void,
    size: i64,
    nitems: i64,
    position: i64,
    stream: *mut c_void,
) -> i64 {
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
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_read(
    ptr: *mut *mut c_void,
    size: i64,
    nitems: i64,
    position: i64,
    stream: *mut c_void,
) -> i64 {
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
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_truncate(stream: *mut c_void, size: i64) -> c_int {
    // SAFETY: stream is NULL or from blosc2_stdio_open, per the API.
    let Some(file) = (unsafe { stdio_file(stream) }) else {
        return -1;
    };
    // SAFETY: an open FILE: flush buffered writes, then cut the descriptor.
    unsafe {
        libc::fflush(file);
        libc::ftruncate(libc::fileno(file), size)
    }
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_destroy(params: *mut c_void) -> c_int {
    // The stdio backend's params (blosc2_stdio_params) belong to the caller: nothing to free.
    let _ = params;
    0
}
