//! Declarations of blosc2.h functions not implemented yet (see `super` for the mechanism).
//! blosc2_(bit)(un)shuffle are declared by hand in cbindgen/blosc2-epilogue.h (const by-value
//! parameters); their Rust signatures here are still the ones to implement.

use crate::capi::types::*;
use libc::{c_char, c_int, c_void};

#[no_mangle]
pub unsafe extern "C" fn blosc2_register_tuner(tuner: *mut blosc2_tuner) -> c_int {
    unreachable!()
}
