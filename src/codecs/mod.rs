//! Codecs: BloscLZ (pure Rust), LZ4/LZ4HC, zlib, Zstd, and the registry of user codecs.

pub mod blosclz;
pub mod names;
