//! b2nd: n-dimensional arrays on top of super-chunks.

pub mod index;

/// Maximum number of dimensions of a b2nd array (`B2ND_MAX_DIM`).
pub const MAX_DIM: usize = 16;
