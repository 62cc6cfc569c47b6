//! rblosc2: c-blosc2 re-implemented in Rust.
//!
//! The crate is a safe Rust core (everything but `capi`) under a thin C layer (`capi`) that
//! mirrors c-blosc2 3.3.5's public C API: same names, struct layouts, constants and file formats.
//! Data flows down: capi -> b2nd -> schunk -> frame -> io, and schunk/b2nd -> chunk -> filters/codecs.

pub mod b2nd;
mod capi;
pub mod chunk;
pub mod codecs;
pub mod error;
#[cfg(test)]
pub(crate) mod fault;
pub mod filters;
pub mod frame;
pub mod global;
pub mod inspect;
pub mod schunk;
pub mod urlpath;

pub use error::{Error, Result};

/// The c-blosc2 release whose API and formats this crate implements.
pub const VERSION_STRING: &str = "3.3.5";
