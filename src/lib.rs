//! rblosc2: c-blosc2 3.3.5 re-implemented in Rust.
//!
//! Blosc2 compresses binary data, typically arrays of fixed-size items, in *chunks* of up to
//! 2 GiB: a chunk is split into blocks, each block goes through a pipeline of filters (shuffle,
//! bitshuffle, delta, ...) and a codec (BloscLZ, LZ4, zlib, Zstd), and the chunk records in its
//! header everything needed to decompress it. This crate writes and reads the same chunks,
//! frames and `.b2nd` files as c-blosc2 3.3.5, byte for byte.
//!
//! The crate builds three things: this Rust library (`blosc2`), the C library `libblosc2`
//! (a drop-in for c-blosc2's, same headers and ABI, from the crate's private C layer), and the
//! `b2inspect` tool. This documentation covers the Rust library, the safe core the other two
//! are built on; the C API is documented by c-blosc2 and the headers in `include/`.
//!
//! # How the modules fit
//!
//! Data flows down the layers, never back up:
//!
//! - [`chunk`]: one buffer in, one self-describing chunk out. [`chunk::Compressor`] and
//!   [`chunk::Decompressor`] hold [`chunk::CParams`] / [`chunk::DParams`] and a thread pool;
//!   [`chunk::header`] is the chunk header, [`chunk::special`] the chunks that stand for
//!   zeros, NaNs or one repeated value, [`chunk::registry`] the user codecs and filters. It runs
//!   the [`filters`] and [`codecs`].
//! - [`schunk`]: a [`schunk::Schunk`] (super-chunk) is a sequence of chunks that share their
//!   parameters, plus named *metalayers* (small, fixed-size) and *vlmetalayers* (compressed,
//!   any size). Its chunks live in a plain list in memory or in a frame.
//! - [`frame`]: the serialised super-chunk. A *contiguous* frame is one buffer or file
//!   (header, chunks, offsets index, trailer); a *sparse* frame is a directory with one file
//!   per chunk. [`frame::io`] is where the bytes live (memory, files, your own backend).
//! - [`b2nd`]: n-dimensional arrays ([`b2nd::Array`]) cut into chunks and blocks along every
//!   dimension, stored in any [`b2nd::ChunkStore`]: a `Schunk` (what c-blosc2 writes as
//!   `.b2nd`) or the in-memory [`b2nd::MemStore`].
//! - [`inspect`]: what `b2inspect` does on top of the rest: recognise a file, describe it,
//!   verify every chunk, recover the chunks of a frame whose tail is damaged.
//!
//! Errors are one enum, [`Error`], whose variants map one to one to c-blosc2's negative
//! `BLOSC2_ERROR_*` codes ([`Error::code`]). Nothing in the core panics on bad input: every
//! length and offset read from a chunk or a file is checked and gives an `Err`.
//!
//! # Compressing a chunk
//!
//! ```
//! use blosc2::chunk::header::MAX_OVERHEAD;
//! use blosc2::chunk::{cbuffer_sizes, CParams, Compressor, DParams, Decompressor};
//! use blosc2::codecs::ZSTD;
//!
//! // 4-byte items: shuffle (the default filter) groups their bytes, which compresses well.
//! let data: Vec<u8> = (0..100_000u32).flat_map(|i| i.to_le_bytes()).collect();
//! let cparams = CParams { compcode: ZSTD, clevel: 5, typesize: 4, ..CParams::default() };
//! let compressor = Compressor::new(cparams)?;
//!
//! // A destination of len + MAX_OVERHEAD bytes always holds the chunk.
//! let mut chunk = vec![0u8; data.len() + MAX_OVERHEAD];
//! let cbytes = compressor.compress(&data, &mut chunk)?;
//! chunk.truncate(cbytes);
//! assert!(cbytes < data.len() / 10);
//!
//! // The chunk's header says how large it decompresses.
//! let (nbytes, _cbytes, _blocksize) = cbuffer_sizes(&chunk)?;
//! let mut restored = vec![0u8; nbytes as usize];
//! let decompressor = Decompressor::new(DParams::default())?;
//! assert_eq!(decompressor.decompress(&chunk, &mut restored, None)?, data.len());
//! assert_eq!(restored, data);
//! # Ok::<(), blosc2::Error>(())
//! ```
//!
//! # Building and reading a super-chunk
//!
//! ```
//! use blosc2::chunk::CParams;
//! use blosc2::schunk::{Schunk, Storage};
//!
//! let path = std::env::temp_dir().join(format!("rblosc2-doc-{}.b2frame", std::process::id()));
//! # blosc2::urlpath::remove_urlpath(&path)?;
//! let storage = Storage {
//!     contiguous: true,
//!     urlpath: Some(path.clone()),
//!     cparams: CParams { typesize: 8, ..CParams::default() },
//!     ..Storage::default()
//! };
//! let mut sc = Schunk::new(storage)?;
//! sc.meta_add("units", b"metres")?;
//! for c in 0..3i64 {
//!     let values: Vec<u8> = (0..1000i64).flat_map(|i| (c * 1000 + i).to_le_bytes()).collect();
//!     sc.append_buffer(&values)?;
//! }
//! sc.vlmeta_add("comment", b"three chunks of 1000 i64", None)?;
//! drop(sc); // every change is already in the file
//!
//! let sc = Schunk::open(&path)?;
//! assert_eq!(sc.nchunks(), 3);
//! assert_eq!(sc.nbytes(), 3 * 8000);
//! assert_eq!(sc.meta_get("units")?, b"metres");
//! assert_eq!(sc.vlmeta_get("comment")?, b"three chunks of 1000 i64");
//!
//! // Whole chunks, or a slice of items across chunk boundaries.
//! let second = sc.decompress_chunk_vec(1)?;
//! assert_eq!(&second[..8], &1000i64.to_le_bytes());
//! let mut items = vec![0u8; 2 * 8];
//! sc.get_slice_buffer(999, 1001, &mut items)?;
//! assert_eq!(&items[8..], &1000i64.to_le_bytes());
//! # blosc2::urlpath::remove_urlpath(&path)?;
//! # Ok::<(), blosc2::Error>(())
//! ```
#![warn(missing_docs)]
// Every unsafe operation sits in its own `unsafe {}` block with a `// SAFETY:` line, also inside
// unsafe fns.
#![deny(unsafe_op_in_unsafe_fn)]

pub mod b2nd;
pub mod b2nd_meta;
mod capi;
pub mod chunk;
pub mod codecs;
pub mod error;
#[cfg(test)]
pub(crate) mod fault;
pub mod filters;
pub mod frame;
pub mod global;
#[cfg(test)]
mod header_text;
pub mod inspect;
pub(crate) mod kept;
pub mod schunk;
pub mod urlpath;

pub use error::{Error, Result};

/// The c-blosc2 release whose API and formats this crate implements.
pub const VERSION_STRING: &str = "3.3.5";
