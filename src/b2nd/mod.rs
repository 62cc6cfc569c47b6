//! b2nd: n-dimensional arrays on top of super-chunks.
//!
//! An [`Array`] cuts its items into chunks along every dimension (`chunkshape`) and each
//! chunk into blocks (`blockshape`), so that reading a slice decompresses only the blocks it
//! touches. The chunks live in a [`ChunkStore`]: a [`Schunk`](crate::schunk::Schunk) (with
//! the array described in its `b2nd` metalayer, it is a `.b2nd` array as c-blosc2 writes
//! it), or a [`MemStore`].
//!
//! ```
//! use blosc2::b2nd::{Array, Params};
//! use blosc2::chunk::CParams;
//! use blosc2::schunk::{Schunk, Storage};
//!
//! // 100 x 60 f64 items, in chunks of 25 x 20 items made of 5 x 10-item blocks.
//! let values: Vec<u8> = (0..6000).flat_map(|i| (i as f64).to_le_bytes()).collect();
//! let cparams = CParams { typesize: 8, ..CParams::default() };
//! let mut params = Params::<Storage>::new(cparams, &[100, 60], &[25, 20], &[5, 10]);
//! params.dtype = "<f8".into();
//! let array: Array<Schunk> = Array::from_cbuffer(&params, &values)?;
//! assert_eq!(array.store().nchunks(), 4 * 3);
//!
//! // Rows 10..12, columns 0..3, into a 2 x 3 C-order buffer.
//! let mut out = vec![0u8; 2 * 3 * 8];
//! array.get_slice_cbuffer(&[10, 0], &[12, 3], &mut out, &[2, 3])?;
//! let got: Vec<f64> = out.chunks(8).map(|b| f64::from_le_bytes(b.try_into().unwrap())).collect();
//! assert_eq!(got, [600.0, 601.0, 602.0, 660.0, 661.0, 662.0]);
//!
//! // As a frame (what a .b2nd file holds) and back.
//! let frame = array.into_store().to_buffer()?.into_owned();
//! let reopened: Array<Schunk> = Array::from_store(Schunk::from_vec(frame)?)?;
//! assert_eq!(reopened.shape(), &[100, 60]);
//! assert_eq!(reopened.dtype(), Some("<f8"));
//! # Ok::<(), blosc2::Error>(())
//! ```

// Every unsafe operation sits in its own `unsafe {}` block with a SAFETY line, also inside
// `unsafe fn`s (the coordinator moves this to lib.rs once src/capi is clean too).
// n-d geometry walks several per-dimension arrays (shape, start, stop, strides) in step; an
// index loop says that more plainly than zipped iterators.
#![allow(clippy::needless_range_loop)]

pub mod array;
mod array_reshape;
mod array_select;
mod array_slices;
pub mod dims;
pub mod index;
/// The b2nd metalayer format, which lives below super-chunks (`crate::b2nd_meta`).
pub use crate::b2nd_meta as meta;
mod schunk_store;
mod scratch;
pub mod shape;
pub mod slice;
pub mod store;
pub mod view;

pub use array::{Array, Params};
pub use dims::Dims;
pub use schunk_store::{lend_schunk, LentSchunk, LoanKeep};
pub use store::{ChunkStore, MemStore};
pub use view::DimMap;

pub use crate::b2nd_meta::MAX_DIM;
