//! The chunk functions of blosc2.h: contexts, compression and decompression (with a context
//! and through the global settings), getitem, compressed-buffer info, special-value chunks,
//! VL-block chunks.
//!
//! Each function translates: C pointers and sizes into slices (NULL with a non-zero size is
//! `BLOSC2_ERROR_NULL_POINTER`), the BLOSC_* environment variables c-blosc2 reads into
//! parameters, core errors into c-blosc2's codes, and no panic crosses into C.

mod buffers;
mod context;
mod env;
mod global;
mod info;
mod register;
mod special_chunks;
mod vlchunks;

#[cfg(test)]
mod tests;

// The entry points stay reachable as `capi::chunk::name` (the Rust tests call them so).
#[allow(unused_imports)]
pub(crate) use self::{
    buffers::*, context::*, env::*, global::*, info::*, register::*, special_chunks::*, vlchunks::*,
};
