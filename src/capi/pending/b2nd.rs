//! Declarations of b2nd functions not implemented yet (see `super` for the mechanism).

use crate::capi::types::*;
use libc::{c_char, c_int, c_void};

#[no_mangle]
pub unsafe extern "C" fn b2nd_refresh(array: *mut b2nd_array_t) -> c_int {
    unreachable!()
}
