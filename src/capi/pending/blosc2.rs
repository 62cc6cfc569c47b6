//! Declarations of blosc2.h functions not implemented yet (see `super` for the mechanism).
//! blosc2_(bit)(un)shuffle are declared by hand in cbindgen/blosc2-epilogue.h (const by-value
//! parameters); their Rust signatures here are still the ones to implement.

use crate::capi::types::*;
use libc::{c_char, c_int, c_void};

#[no_mangle]
pub unsafe extern "C" fn blosc2_register_tuner(tuner: *mut blosc2_tuner) -> c_int {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_shuffle(
    typesize: i32,
    blocksize: i32,
    src: *const c_void,
    dest: *mut c_void,
) -> i32 {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_unshuffle(
    typesize: i32,
    blocksize: i32,
    src: *const c_void,
    dest: *mut c_void,
) -> i32 {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_bitshuffle(
    typesize: i32,
    blocksize: i32,
    src: *const c_void,
    dest: *mut c_void,
) -> i32 {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn blosc2_bitunshuffle(
    typesize: i32,
    blocksize: i32,
    src: *const c_void,
    dest: *mut c_void,
) -> i32 {
    unreachable!()
}
