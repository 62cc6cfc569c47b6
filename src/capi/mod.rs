//! The C layer: the only place with extern "C", repr(C) mirrors and catch_unwind.
pub mod shuffle;
