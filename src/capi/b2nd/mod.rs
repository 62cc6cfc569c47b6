//! The functions of b2nd.h: contexts, metalayer (de)serialization, n-d buffer copies, and the
//! `b2nd_array_t` handle over a `blosc2_schunk` handle of the schunk C layer.
//!
//! Each function translates: C pointers into slices (NULL is `BLOSC2_ERROR_NULL_POINTER` where
//! c-blosc2 checks it, and everywhere it would crash), core errors into c-blosc2's codes, and
//! no panic crosses into C. The array's public fields are rewritten from the core after every
//! call that may change them.

mod context;
mod copy_buffer;
mod handle;
mod items;
mod lifecycle;
mod serialize;
mod shape;
mod sync;
mod views;

#[cfg(test)]
mod tests;

// The entry points stay reachable as `capi::b2nd::name` (the Rust tests call them so).
#[allow(unused_imports)]
pub(crate) use self::{
    context::*, copy_buffer::*, handle::*, items::*, lifecycle::*, serialize::*, shape::*, sync::*,
    views::*,
};
