//! Declarations of stdio functions not implemented yet (see `super` for the mechanism).

use crate::capi::types::*;
use libc::{c_char, c_int, c_void};

#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_open(
    urlpath: *const c_char,
    mode: *const c_char,
    params: *mut c_void,
) -> *mut c_void {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_close(stream: *mut c_void) -> c_int {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_size(stream: *mut c_void) -> i64 {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_write(
    ptr: *const c_void,
    size: i64,
    nitems: i64,
    position: i64,
    stream: *mut c_void,
) -> i64 {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_read(
    ptr: *mut *mut c_void,
    size: i64,
    nitems: i64,
    position: i64,
    stream: *mut c_void,
) -> i64 {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_truncate(stream: *mut c_void, size: i64) -> c_int {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_destroy(params: *mut c_void) -> c_int {
    unreachable!()
}
