//! Declarations of b2nd functions not implemented yet (see `super` for the mechanism).

use crate::capi::types::*;
use libc::{c_char, c_int, c_void};

#[no_mangle]
pub unsafe extern "C" fn b2nd_uninit(
    ctx: *mut b2nd_context_s,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_empty(
    ctx: *mut b2nd_context_s,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_zeros(
    ctx: *mut b2nd_context_s,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_nans(
    ctx: *mut b2nd_context_s,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_full(
    ctx: *mut b2nd_context_s,
    array: *mut *mut b2nd_array_t,
    fill_value: *const c_void,
) -> c_int {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_free(array: *mut b2nd_array_t) -> c_int {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_from_schunk(
    schunk: *mut blosc2_schunk,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_to_cframe(
    array: *const b2nd_array_t,
    cframe: *mut *mut u8,
    cframe_len: *mut i64,
    needs_free: *mut bool,
) -> c_int {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_from_cframe(
    cframe: *mut u8,
    cframe_len: i64,
    copy: bool,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_open(urlpath: *const c_char, array: *mut *mut b2nd_array_t) -> c_int {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_open_offset(
    urlpath: *const c_char,
    array: *mut *mut b2nd_array_t,
    offset: i64,
) -> c_int {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_save(array: *const b2nd_array_t, urlpath: *mut c_char) -> c_int {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_save_append(
    array: *const b2nd_array_t,
    urlpath: *const c_char,
) -> i64 {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_from_cbuffer(
    ctx: *mut b2nd_context_s,
    array: *mut *mut b2nd_array_t,
    buffer: *const c_void,
    buffersize: i64,
) -> c_int {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_to_cbuffer(
    array: *const b2nd_array_t,
    buffer: *mut c_void,
    buffersize: i64,
) -> c_int {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_get_sparse_cbuffer(
    array: *const b2nd_array_t,
    ncoords: i64,
    coords: *const i64,
    buffer: *mut c_void,
    buffersize: i64,
) -> c_int {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_get_slice(
    ctx: *mut b2nd_context_s,
    array: *mut *mut b2nd_array_t,
    src: *const b2nd_array_t,
    start: *const i64,
    stop: *const i64,
) -> c_int {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_squeeze_index(
    array: *mut b2nd_array_t,
    view: *mut *mut b2nd_array_t,
    index: *const bool,
) -> c_int {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_squeeze(
    array: *mut b2nd_array_t,
    view: *mut *mut b2nd_array_t,
) -> c_int {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_expand_dims(
    array: *const b2nd_array_t,
    view: *mut *mut b2nd_array_t,
    axis: *const bool,
    final_dims: u8,
) -> c_int {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_get_slice_cbuffer(
    array: *const b2nd_array_t,
    start: *const i64,
    stop: *const i64,
    buffer: *mut c_void,
    buffershape: *const i64,
    buffersize: i64,
) -> c_int {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_set_slice_cbuffer(
    buffer: *const c_void,
    buffershape: *const i64,
    buffersize: i64,
    start: *const i64,
    stop: *const i64,
    array: *mut b2nd_array_t,
) -> c_int {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_copy(
    ctx: *mut b2nd_context_s,
    src: *const b2nd_array_t,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_concatenate(
    ctx: *mut b2nd_context_s,
    src1: *const b2nd_array_t,
    src2: *const b2nd_array_t,
    axis: i8,
    copy: bool,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_print_meta(array: *const b2nd_array_t) -> c_int {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_resize(
    array: *mut b2nd_array_t,
    new_shape: *const i64,
    start: *const i64,
) -> c_int {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_refresh(array: *mut b2nd_array_t) -> c_int {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_insert(
    array: *mut b2nd_array_t,
    buffer: *const c_void,
    buffersize: i64,
    axis: i8,
    insert_start: i64,
) -> c_int {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_append(
    array: *mut b2nd_array_t,
    buffer: *const c_void,
    buffersize: i64,
    axis: i8,
) -> c_int {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_delete(
    array: *mut b2nd_array_t,
    axis: i8,
    delete_start: i64,
    delete_len: i64,
) -> c_int {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_get_orthogonal_selection(
    array: *const b2nd_array_t,
    selection: *mut *mut i64,
    selection_size: *mut i64,
    buffer: *mut c_void,
    buffershape: *mut i64,
    buffersize: i64,
) -> c_int {
    unreachable!()
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_set_orthogonal_selection(
    array: *mut b2nd_array_t,
    selection: *mut *mut i64,
    selection_size: *mut i64,
    buffer: *const c_void,
    buffershape: *mut i64,
    buffersize: i64,
) -> c_int {
    unreachable!()
}
