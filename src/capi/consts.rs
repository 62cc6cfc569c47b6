//! Object-like macros of the public headers that are numbers (cbindgen cannot emit string
//! constants; those are in the cbindgen/*-prologue.h fragments).
//!
//! build.rs emits each into the header that owns it (see `HEADERS` there).

// Most of these exist only for cbindgen to copy into the headers; no Rust code reads them.
#![allow(dead_code)]

use std::ffi::c_int;

pub const BLOSC2_VERSION_MAJOR: c_int = 3;
pub const BLOSC2_VERSION_MINOR: c_int = 3;
pub const BLOSC2_VERSION_RELEASE: c_int = 5;

pub const BLOSC2_MAX_METALAYERS: c_int = 16;
pub const BLOSC2_METALAYER_NAME_MAXLEN: c_int = 31;
pub const BLOSC2_MAX_VLMETALAYERS: c_int = 8 * 1024;
pub const BLOSC2_VLMETALAYERS_NAME_MAXLEN: c_int = BLOSC2_METALAYER_NAME_MAXLEN;

pub const B2ND_METALAYER_VERSION: c_int = 0;
pub const B2ND_MAX_DIM: c_int = 16;
pub const B2ND_MAX_METALAYERS: c_int = BLOSC2_MAX_METALAYERS - 1;
pub const DTYPE_NUMPY_FORMAT: c_int = 0;
pub const B2ND_DEFAULT_DTYPE_FORMAT: c_int = DTYPE_NUMPY_FORMAT;
