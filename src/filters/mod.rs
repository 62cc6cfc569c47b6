//! Filters: shuffle, bitshuffle, delta, trunc_prec, bytedelta; SIMD kernels beside scalar twins.

pub mod bitshuffle;
pub mod bytedelta;
pub mod delta;
pub mod shuffle;
pub mod trunc_prec;
