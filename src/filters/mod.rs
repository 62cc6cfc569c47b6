//! Filters: shuffle, bitshuffle, delta, trunc_prec, bytedelta; SIMD kernels beside scalar twins.
//!
//! Every filter works on one block (the unit c-blosc2's chunk engine filters and compresses) and
//! produces exactly the bytes c-blosc2 3.3.5 produces, so chunks written by either library decode
//! in the other. The SIMD kernels (SSE2, AVX2, AVX2+GFNI on x86_64) are chosen once at run
//! time and must give the same bytes as their scalar twins; the tests check that on many sizes.

// Every unsafe operation sits in its own `unsafe {}` block with a SAFETY line, also inside
// `unsafe fn`s (the coordinator moves this to lib.rs once src/capi is clean too).

pub mod bitshuffle;
pub mod bytedelta;
pub(crate) mod cpu;
pub mod delta;
pub mod int_trunc;
pub mod names;
pub mod ndcell;
pub mod ndmean;
pub mod shuffle;
#[cfg(test)]
pub(crate) mod testutil;
pub mod trunc_prec;
