//! b2nd: n-dimensional arrays on top of super-chunks.

// n-d geometry walks several per-dimension arrays (shape, start, stop, strides) in step; an
// index loop says that more plainly than zipped iterators.
#![allow(clippy::needless_range_loop)]

pub mod array;
pub mod index;
pub mod meta;
mod schunk_store;
mod scratch;
pub mod shape;
pub mod slice;
pub mod store;

pub use array::{Array, Params};
pub use store::{ChunkStore, MemStore};

/// Maximum number of dimensions of a b2nd array (`B2ND_MAX_DIM`).
pub const MAX_DIM: usize = 16;
