//! VL-block chunks: compressing buffers of different sizes into one chunk, and reading them back.

use libc::{c_int, c_void};

use super::buffers::len_of;
use crate::capi::ffi::{entry, in_chunk_bytes, in_slice, malloc_copy, out_chunk_bytes, Castable};
use crate::capi::types::*;
use crate::chunk::{decompress, vlblocks};
use crate::Error;

/// Compresses `nblocks` buffers of different sizes (`srcs[i]` of `srcsizes[i]` bytes) into one
/// variable-length-block chunk written to `dest` (room for `destsize` bytes), with compression
/// context `context`: each buffer becomes one block. Returns the chunk size, 0 when it does not
/// fit, or a negative code (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_INVALID_PARAM for a
/// non-positive `nblocks` or a negative size, BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED when `destsize`
/// is below BLOSC2_MAX_OVERHEAD, a codec error).
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlcompress_ctx(
    context: *mut blosc2_context_s,
    srcs: *const *const c_void,
    srcsizes: *const i32,
    nblocks: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    entry(|| {
        // SAFETY: context is NULL or a live handle, per the API (read-only, as in
        // blosc2_compress_ctx).
        let ctx = unsafe { blosc2_context_s::try_ref(context) }?;
        let compressor = ctx.compressor()?;
        if nblocks <= 0 {
            return Err(Error::InvalidParam);
        }
        let n = nblocks as usize;
        if srcs.is_null() || srcsizes.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: srcs and srcsizes hold nblocks entries, per the API.
        let (ptrs, sizes) = unsafe { (in_slice(srcs, n)?, in_slice(srcsizes, n)?) };
        let mut blocks = Vec::with_capacity(n);
        for (&p, &len) in ptrs.iter().zip(sizes) {
            if len < 0 {
                return Err(Error::InvalidParam);
            }
            // SAFETY: each source holds its size in bytes, per the API.
            blocks.push(unsafe { in_chunk_bytes(p, len) }?);
        }
        // SAFETY: dest holds destsize bytes, per the API.
        let dst = unsafe { out_chunk_bytes(dest, destsize) }?;
        len_of(vlblocks::vlcompress(compressor.params(), &blocks, dst)?)
    })
}

/// Decompresses every block of the variable-length-block chunk at `src` (`srcsize` bytes) with
/// decompression context `context`. For each block i, `dests[i]` receives a new buffer allocated
/// with malloc (the caller frees each with free()) and `destsizes[i]` its size. `dests` and
/// `destsizes` must have room for `maxblocks` entries. Returns the number of blocks, or a
/// negative code (BLOSC2_ERROR_INVALID_PARAM when the chunk has more than `maxblocks` blocks,
/// BLOSC2_ERROR_NULL_POINTER, a decompression error); on error nothing is left allocated.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vldecompress_ctx(
    context: *mut blosc2_context_s,
    src: *const c_void,
    srcsize: i32,
    dests: *mut *mut c_void,
    destsizes: *mut i32,
    maxblocks: i32,
) -> c_int {
    entry(|| {
        // SAFETY: context is NULL or a live handle, per the API.
        let ctx = unsafe { blosc2_context_s::try_mut(context) }?;
        let decompressor = ctx.decompressor()?;
        // SAFETY: src holds srcsize bytes, per the API.
        let src = unsafe { in_chunk_bytes(src, srcsize) }?;
        let nblocks = vlblocks::nblocks(src)?;
        if maxblocks < nblocks {
            return Err(Error::InvalidParam);
        }
        if dests.is_null() || destsizes.is_null() {
            return Err(Error::NullPointer);
        }
        let blocks = vlblocks::decompress_blocks(decompressor.params(), src)?;
        let mut out = Vec::with_capacity(blocks.len());
        for b in &blocks {
            match malloc_copy(b) {
                Ok(p) => out.push(p),
                Err(e) => {
                    for p in out {
                        // SAFETY: p came from malloc above and was not handed out.
                        unsafe { libc::free(p.cast()) };
                    }
                    return Err(e);
                }
            }
        }
        for (i, (p, b)) in out.into_iter().zip(&blocks).enumerate() {
            // SAFETY: dests/destsizes hold maxblocks >= nblocks entries, per the API.
            unsafe {
                *dests.add(i) = p.cast();
                *destsizes.add(i) = b.len() as i32;
            }
        }
        Ok(blocks.len() as c_int)
    })
}

/// Writes to `*nblocks` the number of blocks of the variable-length-block chunk at `src`
/// (`srcsize` bytes). Returns 0, or a negative code (BLOSC2_ERROR_INVALID_PARAM for a NULL
/// argument, an error for a chunk that is not a readable VL-block chunk).
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlchunk_get_nblocks(
    src: *const c_void,
    srcsize: i32,
    nblocks: *mut i32,
) -> c_int {
    entry(|| {
        // c-blosc2 takes a missing source or output for an invalid parameter.
        if src.is_null() || nblocks.is_null() {
            return Err(Error::InvalidParam);
        }
        // SAFETY: src holds srcsize bytes, per the API.
        let src = unsafe { in_chunk_bytes(src, srcsize) }?;
        let n = vlblocks::nblocks(src)?;
        // SAFETY: checked non-NULL, writable per the API.
        unsafe { *nblocks = n };
        Ok(0)
    })
}

/// Decompresses block `nblock` of the variable-length-block chunk at `src` (`srcsize` bytes) with
/// decompression context `context` into a new buffer allocated with malloc: `*dest` receives it
/// (the caller frees it with free()) and `*destsize` its size. Returns the block's size, or a
/// negative code (BLOSC2_ERROR_INVALID_PARAM for a block number out of range,
/// BLOSC2_ERROR_NULL_POINTER, a decompression error).
#[no_mangle]
pub unsafe extern "C" fn blosc2_vldecompress_block_ctx(
    context: *mut blosc2_context_s,
    src: *const c_void,
    srcsize: i32,
    nblock: i32,
    dest: *mut *mut u8,
    destsize: *mut i32,
) -> c_int {
    entry(|| {
        // SAFETY: context is NULL or a live handle, per the API.
        let ctx = unsafe { blosc2_context_s::try_mut(context) }?;
        let decompressor = ctx.decompressor()?;
        // SAFETY: src holds srcsize bytes, per the API.
        let src = unsafe { in_chunk_bytes(src, srcsize) }?;
        if dest.is_null() || destsize.is_null() {
            return Err(Error::NullPointer);
        }
        let lazy = ctx
            .lazy_blocks
            .as_deref()
            .map(|l| l as &dyn decompress::LazyBlocks);
        let block =
            vlblocks::decompress_block_maybe_lazy(decompressor.params(), src, nblock, lazy)?;
        let n = len_of(block.len())?;
        let p = malloc_copy(&block)?;
        // SAFETY: both outputs are non-NULL and writable, per the API.
        unsafe {
            *dest = p;
            *destsize = n;
        }
        Ok(n)
    })
}
