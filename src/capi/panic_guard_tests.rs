//! No panic crosses the C boundary: a panic forced inside the core (crate::fault) during an
//! exported call comes back as an error code or NULL, and the library keeps working after it
//! (no poisoned lock, no half-built handle).

use std::ptr;

use libc::c_void;

use crate::capi::b2nd::{b2nd_free, b2nd_from_cframe};
use crate::capi::chunk::{
    blosc2_compress, blosc2_create_dctx, blosc2_decompress, blosc2_decompress_ctx, blosc2_free_ctx,
    blosc2_getitem,
};
use crate::capi::library::blosc2_get_blosc2_dparams_defaults;
use crate::capi::schunk::{
    blosc2_schunk_decompress_chunk, blosc2_schunk_free, blosc2_schunk_from_buffer,
};
use crate::capi::types::b2nd_array_t;
use crate::fault;
use crate::Error;

const FRAME: &[u8] = include_bytes!("../../tests/data/frames/frame_simple-lz4.b2frame");
const B2ND: &[u8] = include_bytes!("../../tests/data/example_day_month_temp.b2nd");

/// 4000 bytes of i32 and their compressed chunk.
fn chunk() -> (Vec<u8>, Vec<u8>) {
    let data: Vec<u8> = (0..1000i32).flat_map(|i| (i * 7).to_le_bytes()).collect();
    let mut chunk = vec![0u8; data.len() + 32];
    // SAFETY: both buffers hold the sizes passed.
    let cbytes = unsafe {
        blosc2_compress(
            5,
            1,
            4,
            data.as_ptr().cast(),
            data.len() as i32,
            chunk.as_mut_ptr().cast(),
            chunk.len() as i32,
        )
    };
    assert!(cbytes > 0, "compress: {cbytes}");
    chunk.truncate(cbytes as usize);
    (data, chunk)
}

#[test]
fn panic_in_chunk_decompression_is_an_error_code() {
    let (data, chunk) = chunk();
    let mut out = vec![0u8; data.len()];
    let decompress = |out: &mut [u8]| {
        // SAFETY: both buffers hold the sizes passed.
        unsafe {
            blosc2_decompress(
                chunk.as_ptr().cast(),
                chunk.len() as i32,
                out.as_mut_ptr().cast(),
                out.len() as i32,
            )
        }
    };
    fault::arm("chunk::decompress");
    let rc = decompress(&mut out);
    fault::disarm();
    assert_eq!(rc, Error::Failure.code());
    assert_eq!(decompress(&mut out), 4000);
    assert_eq!(out, data);

    // The same through a context, twice: a panic must leave the context usable.
    // SAFETY: the defaults are a valid dparams.
    let dctx = unsafe { blosc2_create_dctx(blosc2_get_blosc2_dparams_defaults()) };
    assert!(!dctx.is_null());
    let with_ctx = |out: &mut [u8]| {
        // SAFETY: dctx is live; both buffers hold the sizes passed.
        unsafe {
            blosc2_decompress_ctx(
                dctx,
                chunk.as_ptr().cast(),
                chunk.len() as i32,
                out.as_mut_ptr().cast(),
                out.len() as i32,
            )
        }
    };
    fault::arm("chunk::decompress");
    let rc = with_ctx(&mut out);
    fault::disarm();
    assert_eq!(rc, Error::Failure.code());
    out.fill(0);
    assert_eq!(with_ctx(&mut out), 4000);
    assert_eq!(out, data);
    // SAFETY: dctx came from blosc2_create_dctx and is freed once.
    unsafe { blosc2_free_ctx(dctx) };

    // getitem does not go through the full decompressor; it still works after the panics.
    let mut items = [0u8; 8];
    // SAFETY: both buffers hold the sizes passed.
    let rc = unsafe {
        blosc2_getitem(
            chunk.as_ptr().cast(),
            chunk.len() as i32,
            10,
            2,
            items.as_mut_ptr() as *mut c_void,
            items.len() as i32,
        )
    };
    assert_eq!(rc, 8);
    assert_eq!(items, [70, 0, 0, 0, 77, 0, 0, 0]);
}

#[test]
fn panic_in_frame_parsing_is_null_or_an_error_code() {
    let mut frame = FRAME.to_vec();
    fault::arm("schunk::from_buffer");
    // SAFETY: frame holds frame.len() bytes.
    let sc = unsafe { blosc2_schunk_from_buffer(frame.as_mut_ptr(), frame.len() as i64, true) };
    fault::disarm();
    assert!(sc.is_null());

    let mut b2nd = B2ND.to_vec();
    let mut array: *mut b2nd_array_t = ptr::null_mut();
    fault::arm("schunk::from_buffer");
    // SAFETY: b2nd holds b2nd.len() bytes; array is writable.
    let rc = unsafe { b2nd_from_cframe(b2nd.as_mut_ptr(), b2nd.len() as i64, true, &mut array) };
    fault::disarm();
    assert!(rc < 0, "b2nd_from_cframe: {rc}");
    assert!(array.is_null());

    // After the panics the same inputs open, and a panic while reading a chunk of an open
    // super-chunk leaves it readable.
    // SAFETY: as above.
    let sc = unsafe { blosc2_schunk_from_buffer(frame.as_mut_ptr(), frame.len() as i64, true) };
    assert!(!sc.is_null());
    // SAFETY: sc is live.
    let (nchunks, chunksize) = unsafe { ((*sc).nchunks, (*sc).chunksize) };
    assert!(nchunks > 0 && chunksize > 0);
    let mut out = vec![0u8; chunksize as usize];
    // SAFETY: sc is live; out holds chunksize bytes.
    let read = |out: &mut [u8]| unsafe {
        blosc2_schunk_decompress_chunk(sc, 0, out.as_mut_ptr().cast(), out.len() as i32)
    };
    fault::arm("chunk::decompress");
    let rc = read(&mut out);
    fault::disarm();
    assert!(rc < 0, "decompress_chunk under a panic: {rc}");
    let rc = read(&mut out);
    assert!(rc > 0 && rc <= chunksize, "decompress_chunk: {rc}");
    // SAFETY: sc came from blosc2_schunk_from_buffer and is freed once.
    assert_eq!(unsafe { blosc2_schunk_free(sc) }, 0);

    // SAFETY: as above.
    let rc = unsafe { b2nd_from_cframe(b2nd.as_mut_ptr(), b2nd.len() as i64, true, &mut array) };
    assert_eq!(rc, 0);
    // SAFETY: array is live; shape is plain data.
    assert!(unsafe { (*array).ndim } >= 1);
    // SAFETY: array came from b2nd_from_cframe and is freed once.
    assert_eq!(unsafe { b2nd_free(array) }, 0);
}
