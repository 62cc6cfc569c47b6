//! Chunks of a super-chunk: append, insert, update, delete, read, slices, parameters, special fills.

use libc::{c_int, c_void};

use super::access::{
    change_shared_frame, give_chunk, give_chunk_read, known_chunk, modify, read, read_shared_frame,
    store_given_chunk, to_c_int,
};
use super::handle::{chunk_source, handle, handle_mut, schunk_mut, set_current_nchunk};
use crate::capi::ffi::{entry, in_bytes, in_slice, malloc_copy, out_bytes, Castable};
use crate::capi::types::*;
use crate::chunk::header::{Special, MAX_OVERHEAD};
use crate::chunk::scratch::with_chunk_out;
use crate::chunk::{vlblocks, ChunkHeader};
use crate::schunk::Schunk;
use crate::{Error, Result};

/// Compresses the `nbytes` bytes at `src` into a new chunk with the super-chunk's compression
/// context (`schunk->cctx`) and appends it; the caller keeps `src`. All chunks but the last must
/// hold `schunk->chunksize` bytes. Returns the new number of chunks, or a negative code
/// (BLOSC2_ERROR_INVALID_PARAM for a NULL `src` or a negative size, BLOSC2_ERROR_NULL_POINTER, a
/// compression error, BLOSC2_ERROR_CHUNK_APPEND when the size does not fit the super-chunk, a
/// frame-writing error).
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_append_buffer(
    schunk: *mut blosc2_schunk,
    src: *const c_void,
    nbytes: i32,
) -> i64 {
    entry(|| {
        if src.is_null() || nbytes < 0 {
            return Err(Error::InvalidParam);
        }
        // SAFETY: src holds nbytes readable bytes per the API.
        let data = unsafe { in_bytes(src, nbytes) }?;
        // SAFETY: schunk is NULL or live per the API.
        let h = unsafe { handle_mut(schunk) }.ok_or(Error::NullPointer)?;
        h.mirror.current_nchunk = h.schunk.nchunks();
        // SAFETY: the handle's own context, live while the handle is.
        let ctx = unsafe { blosc2_context_s::try_mut(h.mirror.cctx) }?;
        let compressor = ctx.compressor()?;
        // Compressed into the thread's reused buffer, then stored at its compressed size (a
        // frame copies it in, a list keeps an exact-size copy). A chunk-sized buffer per call
        // was zeroed by calloc once glibc served it from the heap, and, above glibc's mmap
        // threshold, mapped, shrunk and unmapped per chunk (faulting its pages in each time).
        with_chunk_out(data.len() + MAX_OVERHEAD, |chunk| {
            let n = compressor.compress(data, chunk)?;
            if n == 0 {
                return Err(Error::Failure);
            }
            let chunk = &chunk[..n];
            h.cctx_blocksize = ChunkHeader::parse(chunk)?.blocksize;
            // SAFETY: schunk is live per the API; `h` is not used after this.
            unsafe { change_shared_frame(schunk, |_| true, |s| s.append_chunk(chunk)) }
        })
    })
}

/// Appends the already compressed `chunk` (size taken from its header) to `schunk`. With `copy`
/// true the super-chunk stores a copy and the caller keeps `chunk`; with `copy` false the
/// super-chunk takes ownership of `chunk` (it must come from malloc) and frees it once stored.
/// On error the caller keeps ownership in both cases. Returns the new number of chunks, or a
/// negative code (BLOSC2_ERROR_NULL_POINTER, a header error, BLOSC2_ERROR_CHUNK_APPEND for a
/// chunk whose size or typesize does not fit the super-chunk, a frame-writing error).
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_append_chunk(
    schunk: *mut blosc2_schunk,
    chunk: *mut u8,
    copy: bool,
) -> i64 {
    // SAFETY: forwarded contract.
    unsafe {
        store_given_chunk(
            schunk,
            chunk,
            copy,
            |_| true,
            |s, c| s.append_chunk_given(c),
        )
    }
}

/// Inserts the compressed `chunk` at position `nchunk` (0 .. nchunks), shifting the following
/// chunks. Ownership of `chunk` as in `blosc2_schunk_append_chunk` (`copy` false: the
/// super-chunk frees it on success). Returns the new number of chunks, or a negative code
/// (BLOSC2_ERROR_INVALID_PARAM for a position out of range, BLOSC2_ERROR_CHUNK_INSERT, a header or
/// frame-writing error).
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_insert_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut u8,
    copy: bool,
) -> i64 {
    // SAFETY: forwarded contract.
    unsafe {
        store_given_chunk(
            schunk,
            chunk,
            copy,
            |_| true,
            |s, c| s.insert_chunk_given(nchunk, c),
        )
    }
}

/// Replaces chunk `nchunk` with the compressed `chunk`. Ownership of `chunk` as in
/// `blosc2_schunk_append_chunk` (`copy` false: the super-chunk frees it on success). Returns the
/// number of chunks, or a negative code (BLOSC2_ERROR_INVALID_PARAM for a chunk number out of
/// range, BLOSC2_ERROR_CHUNK_UPDATE, a header or frame-writing error).
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_update_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut u8,
    copy: bool,
) -> i64 {
    // SAFETY: forwarded contract.
    unsafe {
        store_given_chunk(
            schunk,
            chunk,
            copy,
            |s| known_chunk(s, nchunk),
            |s, c| s.update_chunk_given(nchunk, c),
        )
    }
}

/// Removes chunk `nchunk` from `schunk`. Returns the number of chunks left, or a negative code
/// (BLOSC2_ERROR_INVALID_PARAM for a chunk number out of range, BLOSC2_ERROR_NULL_POINTER, a
/// frame-writing error).
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_delete_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
) -> i64 {
    // SAFETY: schunk is NULL or live per the API.
    entry(|| unsafe {
        change_shared_frame(
            schunk,
            |s| known_chunk(s, nchunk),
            |s| s.delete_chunk(nchunk),
        )
    })
}

/// Decompresses chunk `nchunk` of `schunk` into `dest` (room for `nbytes` bytes) with the
/// super-chunk's decompression context. Returns the number of bytes written, or a negative
/// code (BLOSC2_ERROR_INVALID_PARAM for a NULL `dest`, a negative size or a chunk number out of
/// range, BLOSC2_ERROR_WRITE_BUFFER when `dest` is too small, a read or decompression error).
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_decompress_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    dest: *mut c_void,
    nbytes: i32,
) -> c_int {
    // SAFETY: schunk is NULL or live per the API.
    let schunk = unsafe { chunk_source(schunk) };
    entry(|| {
        if dest.is_null() || nbytes < 0 {
            // SAFETY: schunk is NULL or live per the API.
            unsafe { read(schunk) }?;
            return Err(Error::InvalidParam);
        }
        // SAFETY: dest holds nbytes writable bytes per the API.
        let out = unsafe { out_bytes(dest, nbytes) }?;
        // SAFETY: schunk is NULL or live per the API.
        unsafe {
            read_shared_frame(
                schunk,
                |s| known_chunk(s, nchunk),
                |s| {
                    // SAFETY: live (read succeeded).
                    set_current_nchunk(schunk, nchunk);
                    to_c_int(s.decompress_chunk(nchunk, out, None)? as i64)
                },
            )
        }
    })
}

/// Gives chunk `nchunk` of `schunk`, compressed: `*chunk` receives a pointer to it and
/// `*needs_free` tells who owns it. When `*needs_free` is true, `*chunk` is a copy allocated with
/// malloc that the caller frees with free(); when false, it points into the super-chunk's memory
/// and is valid only until the super-chunk changes or is freed (do not free it). Returns the
/// chunk's size in bytes, or a negative code (BLOSC2_ERROR_INVALID_PARAM for a chunk number out
/// of range, BLOSC2_ERROR_NULL_POINTER, a read error).
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut *mut u8,
    needs_free: *mut bool,
) -> c_int {
    let asked = schunk;
    // SAFETY: schunk is NULL or live per the API.
    let schunk = unsafe { chunk_source(schunk) };
    entry(|| {
        // SAFETY: schunk is NULL or live per the API; outputs are NULL or writable.
        unsafe {
            read_shared_frame(
                schunk,
                |s| known_chunk(s, nchunk),
                |s| {
                    // As c-blosc2: the chunk asked for becomes the current one (which
                    // pre/postfilters see as their `nchunk`).
                    // SAFETY: `asked` is the caller's live handle (checked by the read).
                    set_current_nchunk(asked, nchunk);
                    give_chunk_read(s, nchunk, chunk, needs_free)
                },
            )
        }
    })
}

/// As `blosc2_schunk_get_chunk`, but for a super-chunk on disk the chunk may be "lazy": its header
/// and block offsets only, the blocks being read from the file when the chunk is decompressed
/// with the super-chunk's (or a context made for it) decompression context. Ownership of `*chunk`
/// follows `*needs_free` as in `blosc2_schunk_get_chunk`. Returns the size of what `*chunk` holds,
/// or a negative code.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_lazychunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut *mut u8,
    needs_free: *mut bool,
) -> c_int {
    let asked = schunk;
    // SAFETY: schunk is NULL or live per the API.
    let schunk = unsafe { chunk_source(schunk) };
    entry(|| {
        // SAFETY: schunk is NULL or live per the API; outputs are NULL or writable.
        unsafe {
            read_shared_frame(
                schunk,
                |s| known_chunk(s, nchunk),
                |s| {
                    // As c-blosc2: the chunk asked for becomes the current one (which
                    // pre/postfilters see as their `nchunk`).
                    // SAFETY: `asked` is the caller's live handle (checked by the read).
                    set_current_nchunk(asked, nchunk);
                    give_chunk(s.get_lazychunk(nchunk)?, chunk, needs_free)
                },
            )
        }
    })
}

/// Byte length of items `start..stop` of the super-chunk, checked.
pub(super) fn slice_len(s: &Schunk, start: i64, stop: i64) -> Result<usize> {
    // c-blosc2 answers a slice past the end with a plain failure.
    if stop
        .checked_mul(s.typesize() as i64)
        .is_none_or(|b| b > s.nbytes())
    {
        return Err(Error::Failure);
    }
    let n = stop
        .checked_sub(start)
        .and_then(|n| n.checked_mul(s.typesize() as i64))
        .ok_or(Error::InvalidParam)?;
    usize::try_from(n).map_err(|_| Error::InvalidParam)
}

/// Decompresses items `start` .. `stop` (in units of the super-chunk's typesize, `stop`
/// exclusive) into `buffer`, which must hold `(stop - start) * typesize` bytes. Returns 0, or a
/// negative code (BLOSC2_ERROR_INVALID_PARAM for `stop < start` or a NULL `buffer`,
/// BLOSC2_ERROR_FAILURE for a range past the end, a decompression error).
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_slice_buffer(
    schunk: *mut blosc2_schunk,
    start: i64,
    stop: i64,
    buffer: *mut c_void,
) -> c_int {
    entry(|| {
        // SAFETY: schunk is NULL or live per the API.
        let len = slice_len(unsafe { read(schunk) }?, start, stop)?;
        if buffer.is_null() {
            return Err(Error::InvalidParam);
        }
        // SAFETY: buffer holds (stop - start) items per the API.
        let out = unsafe { out_bytes(buffer, len) }?;
        // SAFETY: schunk is live per the API.
        unsafe { read_shared_frame(schunk, |_| true, |s| s.get_slice_buffer(start, stop, out)) }?;
        Ok(0)
    })
}

/// Overwrites items `start` .. `stop` (typesize units, `stop` exclusive) of `schunk` with the
/// bytes at `buffer` (`(stop - start) * typesize` bytes), recompressing the chunks involved.
/// Returns 0, or a negative code (as for `blosc2_schunk_get_slice_buffer`, plus compression and
/// frame-writing errors).
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_set_slice_buffer(
    schunk: *mut blosc2_schunk,
    start: i64,
    stop: i64,
    buffer: *mut c_void,
) -> c_int {
    entry(|| {
        // SAFETY: schunk is NULL or live per the API.
        let len = slice_len(unsafe { read(schunk) }?, start, stop)?;
        if buffer.is_null() {
            return Err(Error::InvalidParam);
        }
        // SAFETY: buffer holds (stop - start) items per the API.
        let src = unsafe { in_bytes(buffer, len) }?;
        // SAFETY: schunk is live per the API.
        unsafe { change_shared_frame(schunk, |_| true, |s| s.set_slice_buffer(start, stop, src)) }?;
        Ok(0)
    })
}

/// Gives the compression parameters of `schunk` in a new `blosc2_cparams` allocated with malloc:
/// `*cparams` receives it and the caller frees it with free() (the pointers inside it belong to
/// the super-chunk; do not free them). Returns 0, or BLOSC2_ERROR_NULL_POINTER /
/// BLOSC2_ERROR_MEMORY_ALLOC.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_cparams(
    schunk: *mut blosc2_schunk,
    cparams: *mut *mut blosc2_cparams,
) -> c_int {
    entry(|| {
        // SAFETY: schunk is NULL or live per the API.
        let h = unsafe { handle(schunk) }.ok_or(Error::NullPointer)?;
        if cparams.is_null() {
            return Err(Error::NullPointer);
        }
        let mut c = h.cparams;
        c.schunk = schunk.cast();
        c.blocksize = h.schunk.blocksize();
        c.nthreads = h.context_nthreads(h.mirror.cctx);
        // SAFETY: a fresh allocation for one blosc2_cparams, written whole; the caller frees.
        unsafe {
            let p = libc::calloc(1, std::mem::size_of::<blosc2_cparams>()).cast::<blosc2_cparams>();
            if p.is_null() {
                return Err(Error::MemoryAlloc);
            }
            p.write(c);
            *cparams = p;
        }
        Ok(0)
    })
}

/// Gives the decompression parameters of `schunk` in a new `blosc2_dparams` allocated with
/// malloc: `*dparams` receives it and the caller frees it with free(). Returns 0, or
/// BLOSC2_ERROR_NULL_POINTER / BLOSC2_ERROR_MEMORY_ALLOC.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_dparams(
    schunk: *mut blosc2_schunk,
    dparams: *mut *mut blosc2_dparams,
) -> c_int {
    entry(|| {
        // SAFETY: schunk is NULL or live per the API.
        let h = unsafe { handle(schunk) }.ok_or(Error::NullPointer)?;
        if dparams.is_null() {
            return Err(Error::NullPointer);
        }
        let mut d = h.dparams;
        d.schunk = schunk.cast();
        d.nthreads = h.context_nthreads(h.mirror.dctx);
        // SAFETY: as in get_cparams.
        unsafe {
            let p = libc::calloc(1, std::mem::size_of::<blosc2_dparams>()).cast::<blosc2_dparams>();
            if p.is_null() {
                return Err(Error::MemoryAlloc);
            }
            p.write(d);
            *dparams = p;
        }
        Ok(0)
    })
}

/// Reorders the chunks of `schunk` without recompressing them: `offsets_order` holds `nchunks`
/// distinct indexes, new chunk i being old chunk `offsets_order[i]` (the array is read, not
/// kept). Returns 0, or a negative code (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_DATA for an
/// order that is not a permutation, a frame-writing error).
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_reorder_offsets(
    schunk: *mut blosc2_schunk,
    offsets_order: *mut i64,
) -> c_int {
    entry(|| {
        // SAFETY: schunk is NULL or live per the API.
        let n = unsafe { read(schunk) }?.nchunks();
        if offsets_order.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: the order holds nchunks entries per the API.
        let order = unsafe { in_slice(offsets_order, n) }?.to_vec();
        // SAFETY: schunk is live per the API.
        unsafe { modify(schunk, |s| s.reorder_offsets(&order)) }?;
        Ok(0)
    })
}

/// The length in bytes of the frame behind `schunk` (header, chunks, index and trailer); for a
/// super-chunk without frame, c-blosc2's estimate (its compressed bytes plus 8 per chunk).
/// BLOSC2_ERROR_NULL_POINTER for a NULL `schunk`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_frame_len(schunk: *mut blosc2_schunk) -> i64 {
    // SAFETY: schunk is NULL or live per the API.
    entry(|| Ok(unsafe { read(schunk) }?.frame_len()))
}

/// Fills an empty `schunk` with `nitems` items of a special value without storing data: one
/// special chunk per `chunksize` bytes (a multiple of the typesize). `special_value` is
/// BLOSC2_SPECIAL_ZERO, BLOSC2_SPECIAL_NAN or BLOSC2_SPECIAL_UNINIT. Returns the number of
/// chunks, or a negative code (BLOSC2_ERROR_INVALID_PARAM for a super-chunk that already has
/// chunks, a bad `chunksize` or an unsupported value, ...).
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_fill_special(
    schunk: *mut blosc2_schunk,
    nitems: i64,
    special_value: c_int,
    chunksize: i32,
) -> i64 {
    entry(|| {
        let kind = match special_value {
            1 => Special::Zero,
            2 => Special::Nan,
            4 => Special::Uninit,
            _ => Special::None,
        };
        // c-blosc2 refuses a super-chunk that has chunks before taking the frame lock.
        // SAFETY: schunk is NULL or live per the API.
        if unsafe { read(schunk) }?.nchunks() > 0 {
            // SAFETY: as above.
            return unsafe { schunk_mut(schunk) }
                .ok_or(Error::NullPointer)?
                .fill_special(nitems, kind, chunksize);
        }
        // SAFETY: schunk is NULL or live per the API.
        unsafe { modify(schunk, |s| s.fill_special(nitems, kind, chunksize)) }
    })
}

/// Decompresses the `ncoords` items whose positions (in items) are in `coords` into `buffer`, one
/// after the other (`buffer` holds `ncoords * typesize` bytes). Returns 0, or a negative code
/// (BLOSC2_ERROR_INVALID_PARAM for a negative count, a NULL array or a position out of range, a
/// decompression error).
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_sparse_buffer(
    schunk: *mut blosc2_schunk,
    ncoords: i64,
    coords: *const i64,
    buffer: *mut c_void,
) -> c_int {
    entry(|| {
        // SAFETY: schunk is NULL or live per the API.
        let s = unsafe { read(schunk) }?;
        if ncoords < 0 || (ncoords > 0 && (coords.is_null() || buffer.is_null())) {
            return Err(Error::InvalidParam);
        }
        let ts = s.typesize() as usize;
        let n = ncoords as usize;
        // SAFETY: coords holds ncoords entries and buffer ncoords items per the API.
        let (coords, out) = unsafe { (in_slice(coords, n)?, out_bytes(buffer, n * ts)?) };
        for (c, item) in coords.iter().zip(out.chunks_exact_mut(ts.max(1))) {
            let end = c.checked_add(1).ok_or(Error::InvalidParam)?;
            s.get_slice_buffer(*c, end, item)?;
        }
        Ok(0)
    })
}

/// Decompresses block `nblock` of chunk `nchunk` (a variable-length-block chunk) of `schunk` into
/// a new buffer allocated with malloc: `*dest` receives it (the caller frees it with free()) and
/// `*destsize` its size. Returns the block's size, or a negative code (BLOSC2_ERROR_NULL_POINTER,
/// BLOSC2_ERROR_INVALID_PARAM for a chunk or block number out of range, a decompression error).
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_vlblock(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    nblock: i32,
    dest: *mut *mut u8,
    destsize: *mut i32,
) -> c_int {
    entry(|| {
        // SAFETY: schunk is NULL or live per the API.
        let s = unsafe { read(schunk) }?;
        if dest.is_null() || destsize.is_null() {
            return Err(Error::NullPointer);
        }
        let chunk = s.get_chunk(nchunk)?;
        let block = vlblocks::decompress_block(s.dparams(), &chunk, nblock)?;
        let n = c_int::try_from(block.len()).map_err(|_| Error::MaxBufsizeExceeded)?;
        let p = malloc_copy(&block)?;
        // SAFETY: both outputs checked non-NULL, writable per the API.
        unsafe {
            *dest = p;
            *destsize = n;
        }
        Ok(n)
    })
}

/// Indexes of the chunks holding items `start..stop`: of a plain super-chunk (one coordinate)
/// or, when it carries a `b2nd`/`caterva` metalayer, of an n-dimensional array (`start` and
/// `stop` hold ndim coordinates; chunk indexes in C order).
pub(super) fn slice_chunks(s: &Schunk, start: &[i64], stop: &[i64]) -> Result<Vec<i64>> {
    let meta = s
        .meta_get("b2nd")
        .or_else(|_| s.meta_get("caterva"))
        .ok()
        .map(crate::b2nd::meta::deserialize)
        .transpose()?;
    match meta {
        // c-blosc2 answers no chunks for a super-chunk without any, whatever its chunksize
        // (-1 until the first chunk, or that of chunks since deleted).
        None if s.nchunks() == 0 => Ok(Vec::new()),
        None => {
            let (ts, cs) = (s.typesize() as i64, s.chunksize() as i64);
            if cs <= 0 {
                return Err(Error::InvalidParam);
            }
            let bstart = start[0].checked_mul(ts).ok_or(Error::InvalidParam)?;
            let bstop = stop[0].checked_mul(ts).ok_or(Error::InvalidParam)?;
            let first = bstart / cs;
            let end = bstop / cs + i64::from(bstop % cs != 0);
            Ok((first..end.max(first)).collect())
        }
        Some((m, _)) => {
            let ndim = m.ndim();
            let mut ranges = Vec::with_capacity(ndim);
            let mut grid = Vec::with_capacity(ndim);
            for d in 0..ndim {
                let cs = m.chunkshape[d] as i64;
                if cs <= 0 || start[d] < 0 || stop[d] < start[d] || stop[d] > m.shape[d] {
                    return Err(Error::InvalidParam);
                }
                grid.push((m.shape[d] + cs - 1) / cs);
                ranges.push((start[d] / cs, (stop[d] + cs - 1) / cs));
            }
            let mut out = Vec::new();
            let mut idx: Vec<i64> = ranges.iter().map(|r| r.0).collect();
            if ranges.iter().any(|r| r.0 >= r.1) {
                return Ok(out);
            }
            loop {
                let linear = idx.iter().zip(&grid).fold(0i64, |acc, (i, g)| acc * g + i);
                out.push(linear);
                let mut d = ndim;
                loop {
                    if d == 0 {
                        return Ok(out);
                    }
                    d -= 1;
                    idx[d] += 1;
                    if idx[d] < ranges[d].1 {
                        break;
                    }
                    idx[d] = ranges[d].0;
                }
            }
        }
    }
}

/// Lists the chunks that hold the items `start` .. `stop`. For a plain super-chunk `start` and
/// `stop` point to one item position each; for one carrying a "b2nd" (or "caterva") metalayer
/// they hold one coordinate per dimension and chunk numbers are in C order. `*chunks_idx`
/// receives a new array allocated with malloc (the caller frees it with free()). Returns the
/// number of chunks listed, or a negative code (BLOSC2_ERROR_NULL_POINTER,
/// BLOSC2_ERROR_INVALID_PARAM for a range outside the array).
#[no_mangle]
pub unsafe extern "C" fn blosc2_get_slice_nchunks(
    schunk: *mut blosc2_schunk,
    start: *mut i64,
    stop: *mut i64,
    chunks_idx: *mut *mut i64,
) -> i64 {
    entry(|| {
        // SAFETY: schunk is NULL or live per the API.
        let s = unsafe { read(schunk) }?;
        if start.is_null() || stop.is_null() || chunks_idx.is_null() {
            return Err(Error::NullPointer);
        }
        let ndim = match s.meta_get("b2nd").or_else(|_| s.meta_get("caterva")) {
            Ok(m) => crate::b2nd::meta::deserialize(m)?.0.ndim(),
            Err(_) => 1,
        };
        // SAFETY: start and stop hold ndim coordinates per the API.
        let (a, b) = unsafe { (in_slice(start, ndim)?, in_slice(stop, ndim)?) };
        let idx = slice_chunks(s, a, b)?;
        let bytes: Vec<u8> = idx.iter().flat_map(|i| i.to_ne_bytes()).collect();
        // SAFETY: chunks_idx checked non-NULL, writable per the API.
        unsafe { *chunks_idx = malloc_copy(&bytes)?.cast() };
        Ok(idx.len() as i64)
    })
}
