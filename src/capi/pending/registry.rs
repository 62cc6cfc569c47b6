//! Declarations of registry functions not implemented yet (see `super` for the mechanism).

use crate::capi::types::*;
use libc::{c_char, c_int, c_void};

#[no_mangle]
pub unsafe extern "C" fn register_codecs() {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn register_filters() {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn register_tuners() {
    unreachable!()
}
