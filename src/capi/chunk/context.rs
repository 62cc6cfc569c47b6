//! Compression and decompression contexts and the functions that use them: create/free, parameters, maskout, compress/decompress/getitem with a context.

use std::panic::AssertUnwindSafe;
use std::ptr;

use libc::{c_int, c_void};

use super::buffers::len_of;
use super::env::{apply_cctx_env, BloscEnv};
use crate::capi::context::{self, Context, OwnedContext};
use crate::capi::ffi::{
    entry, guard, in_chunk_bytes, out_chunk_bytes, refuse_negative_dest, Castable,
};
use crate::capi::params::dparams_from_c;
use crate::capi::schunk::{schunk_layout, schunk_lazy_blocks, schunk_ref_as_is};
use crate::capi::types::*;
use crate::chunk::copy::copy_bytes;
use crate::chunk::decompress;
use crate::chunk::header::ChunkHeader;
use crate::{Error, Result};

/// `blosc2_create_cctx`: the environment applied, the context boxed, then the tuner the
/// parameters name (if any) initialised with it.
pub(super) fn create_cctx(c: &mut blosc2_cparams) -> Result<OwnedContext> {
    apply_cctx_env(c);
    // c-blosc2 replaces an id <= 0 by its default tuner's (0, its automatic block size).
    c.tuner_id = c.tuner_id.max(0);
    // SAFETY: a non-NULL `schunk` is a super-chunk of ours, per c-blosc2's contract.
    let (layout, schunk_ts) = unsafe { (schunk_layout(c.schunk), schunk_typesize(c.schunk)) };
    let ctx = Context::new_compress(c, |p| {
        p.layout = layout;
        p.schunk_typesize = schunk_ts;
    })?;
    context::boxed_with_tuner(ctx)
}

/// The typesize of the super-chunk at `schunk` (None for NULL), which c-blosc2's filters read
/// through `cparams->schunk` / `dparams->schunk`.
///
/// # Safety
/// `schunk` is NULL or a super-chunk of ours.
pub(crate) unsafe fn schunk_typesize(schunk: *mut c_void) -> Option<i32> {
    // SAFETY: forwarded contract.
    unsafe { schunk_ref_as_is(schunk.cast()) }.map(|s| s.cparams().typesize)
}

/// Creates a compression context from `cparams` (copied; start from `BLOSC2_CPARAMS_DEFAULTS`).
/// BLOSC_NTHREADS, when set, overrides `cparams.nthreads`; the tuner named by `tuner_id` is
/// initialised on the new context. Returns the context, which the caller releases with
/// `blosc2_free_ctx`, or NULL when the parameters are invalid (bad clevel, typesize, codec or
/// filter) or memory runs out.
#[no_mangle]
pub unsafe extern "C" fn blosc2_create_cctx(mut cparams: blosc2_cparams) -> *mut blosc2_context_s {
    // Changed in place (the caller's copy is ours): each copy of it is a memcpy call, which
    // showed in the cost of a create + free pair. After a panic it is dropped unread.
    let c = AssertUnwindSafe(&mut cparams);
    guard(ptr::null_mut(), move || {
        let c = c; // the whole wrapper, not its field (closures capture fields)
        create_cctx(c.0).map_or(ptr::null_mut(), OwnedContext::into_raw)
    })
}

/// Creates a decompression context from `dparams` (copied; start from
/// `BLOSC2_DPARAMS_DEFAULTS`). BLOSC_NTHREADS, when set, overrides `dparams.nthreads`. Returns the
/// context, which the caller releases with `blosc2_free_ctx`, or NULL on invalid parameters or
/// when memory runs out.
#[no_mangle]
pub unsafe extern "C" fn blosc2_create_dctx(dparams: blosc2_dparams) -> *mut blosc2_context_s {
    guard(ptr::null_mut(), || {
        let mut d = dparams;
        if let Some(n) = BloscEnv::now().nthreads() {
            d.nthreads = n;
        }
        // SAFETY: a non-NULL `schunk` is a super-chunk of ours, per c-blosc2's contract.
        let (layout, schunk_ts) = unsafe { (schunk_layout(d.schunk), schunk_typesize(d.schunk)) };
        let mut ctx = match Context::new_decompress(&d, |p| {
            p.layout = layout;
            p.schunk_typesize = schunk_ts;
        }) {
            Ok(ctx) => ctx,
            Err(_) => return ptr::null_mut(),
        };
        // Lazy chunks of that super-chunk (`blosc2_schunk_get_lazychunk`) decompress with this
        // context as with `schunk->dctx`: their blocks come from its frame.
        // SAFETY: as above; the super-chunk outlives the context's uses, per the same contract.
        ctx.lazy_blocks = unsafe { schunk_lazy_blocks(d.schunk) };
        ctx.into_handle()
    })
}

/// Releases a context made by `blosc2_create_cctx` or `blosc2_create_dctx`, with its threads and
/// buffers (and runs its tuner's free callback). NULL is accepted and ignored. The context must not
/// be used afterwards.
#[no_mangle]
pub unsafe extern "C" fn blosc2_free_ctx(context: *mut blosc2_context_s) {
    // SAFETY: context is NULL or a live handle the caller gives up, per the API.
    guard(
        (),
        AssertUnwindSafe(|| unsafe { Context::free_handle(context) }),
    )
}

/// Copies the compression parameters of context `ctx` into `*cparams` (pointers in it, such as
/// `schunk` or `codec_params`, are the context's own: do not free them). Returns 0, or
/// BLOSC2_ERROR_NULL_POINTER for a NULL argument.
#[no_mangle]
pub unsafe extern "C" fn blosc2_ctx_get_cparams(
    ctx: *mut blosc2_context_s,
    cparams: *mut blosc2_cparams,
) -> c_int {
    entry(|| {
        // SAFETY: ctx is NULL or a live handle, per the API.
        let ctx = unsafe { blosc2_context_s::try_ref(ctx) }?;
        if cparams.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: non-NULL and writable per the API.
        unsafe { cparams.write(ctx.cparams) };
        Ok(0)
    })
}

/// Copies the decompression parameters of context `ctx` into `*dparams`. Returns 0, or
/// BLOSC2_ERROR_NULL_POINTER for a NULL argument.
#[no_mangle]
pub unsafe extern "C" fn blosc2_ctx_get_dparams(
    ctx: *mut blosc2_context_s,
    dparams: *mut blosc2_dparams,
) -> c_int {
    entry(|| {
        // SAFETY: ctx is NULL or a live handle, per the API.
        let ctx = unsafe { blosc2_context_s::try_ref(ctx) }?;
        if dparams.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: non-NULL and writable per the API.
        unsafe { dparams.write(ctx.dparams) };
        Ok(0)
    })
}

/// Sets, for the next decompression with the decompression context `ctx` only, which blocks to
/// skip: `maskout` holds `nblocks` flags (the chunk's number of blocks), true meaning "do not
/// decompress this block" (its bytes in the destination are left untouched). The flags are
/// copied. Returns 0, BLOSC2_ERROR_NULL_POINTER or BLOSC2_ERROR_INVALID_PARAM (negative
/// `nblocks`).
#[no_mangle]
pub unsafe extern "C" fn blosc2_set_maskout(
    ctx: *mut blosc2_context_s,
    maskout: *mut bool,
    nblocks: c_int,
) -> c_int {
    entry(|| {
        // SAFETY: ctx is NULL or a live handle, per the API.
        let ctx = unsafe { blosc2_context_s::try_mut(ctx) }?;
        if nblocks < 0 {
            return Err(Error::InvalidParam);
        }
        // SAFETY: maskout holds nblocks bools, per the API.
        let mask = unsafe { in_chunk_bytes(maskout as *const c_void, nblocks) }?;
        ctx.maskout = Some(mask.iter().map(|&b| b != 0).collect());
        Ok(0)
    })
}

/// Compresses the `srcsize` bytes at `src` into a chunk written to `dest` (room for `destsize`
/// bytes), with the parameters of compression context `context`. Returns the size of the chunk
/// (> 0); 0 when it does not fit in `destsize` (a `destsize` of `srcsize + BLOSC2_MAX_OVERHEAD`
/// always suffices); or a negative code: BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_INVALID_PARAM,
/// BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED (over `BLOSC2_MAX_BUFFERSIZE`), BLOSC2_ERROR_CODEC_SUPPORT,
/// a filter or prefilter error. `src` and `dest` stay the caller's.
#[no_mangle]
pub unsafe extern "C" fn blosc2_compress_ctx(
    context: *mut blosc2_context_s,
    src: *const c_void,
    srcsize: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    entry(|| {
        // Read-only: a tuner or prefilter called during the compression may read the context.
        // SAFETY: context is NULL or a live handle, per the API.
        let ctx = unsafe { blosc2_context_s::try_ref(context) }?;
        let compressor = ctx.compressor()?;
        // SAFETY: src/dest hold srcsize/destsize bytes, per the API.
        let (src, dst) = unsafe {
            (
                in_chunk_bytes(src, srcsize)?,
                out_chunk_bytes(dest, destsize)?,
            )
        };
        len_of(compressor.compress(src, dst)?)
    })
}

/// Decompresses the chunk at `src` (`srcsize` bytes) into `dest` (room for `destsize` bytes),
/// with decompression context `context` (a mask set with `blosc2_set_maskout` applies to this
/// call only). Returns the number of bytes written (the chunk's nbytes), or a negative code:
/// BLOSC2_ERROR_WRITE_BUFFER when `destsize` is smaller than the chunk's content,
/// BLOSC2_ERROR_READ_BUFFER / BLOSC2_ERROR_INVALID_HEADER for a short or damaged chunk,
/// BLOSC2_ERROR_NULL_POINTER, a codec or filter error.
#[no_mangle]
pub unsafe extern "C" fn blosc2_decompress_ctx(
    context: *mut blosc2_context_s,
    src: *const c_void,
    srcsize: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    entry(|| {
        // SAFETY: context is NULL or a live handle, per the API.
        let ctx = unsafe { blosc2_context_s::try_mut(context) }?;
        ctx.decompressor()?;
        // The mask applies to this decompression only, whatever its outcome.
        let mask = ctx.maskout.take();
        let decompressor = ctx.decompressor()?;
        // SAFETY: src/dest hold srcsize/destsize bytes, per the API.
        let (src, dst) = unsafe {
            (
                in_chunk_bytes(src, srcsize)?,
                out_chunk_bytes(dest, destsize)?,
            )
        };
        let lazy = ctx
            .lazy_blocks
            .as_deref()
            .map(|l| l as &dyn decompress::LazyBlocks);
        let decompressed = decompressor.decompress_with(src, dst, mask.as_deref(), lazy);
        refuse_negative_dest(destsize as i64, len_of(decompressed?))
    })
}

/// getitem in items of the chunk's stored typesize, with c-blosc2's checks in its order.
pub(super) fn getitem_items(
    dparams: &crate::chunk::DParams,
    src: &[u8],
    start: c_int,
    nitems: c_int,
    dst: &mut [u8],
    lazy: Option<&dyn decompress::LazyBlocks>,
) -> Result<c_int> {
    let h = ChunkHeader::parse(src)?;
    let ts = h.typesize as i64;
    let (start, nitems) = (start as i64, nitems as i64);
    if nitems * ts > dst.len() as i64 {
        return Err(Error::WriteBuffer);
    }
    if nitems == 0 {
        return Ok(0);
    }
    let stop = start + nitems;
    if start < 0 || start * ts > h.nbytes as i64 || stop < start || stop * ts > h.nbytes as i64 {
        return Err(Error::InvalidParam);
    }
    let n = decompress::getitem_parsed(
        dparams,
        &h,
        src,
        (start * ts) as usize,
        (nitems * ts) as usize,
        dst,
        lazy,
    )?;
    len_of(n)
}

/// The decompression parameters a context uses for getitem (a compression context can serve
/// getitem too, as in c-blosc2).
pub(super) fn getitem_dparams(ctx: &Context) -> std::borrow::Cow<'_, crate::chunk::DParams> {
    match ctx.decompressor() {
        Ok(d) => std::borrow::Cow::Borrowed(d.params()),
        Err(_) => std::borrow::Cow::Owned(dparams_from_c(&ctx.dparams)),
    }
}

/// Decompresses items `start` .. `start + nitems` (in units of the chunk's typesize) of the chunk
/// at `src` (`srcsize` bytes) into `dest` (room for `destsize` bytes), decompressing only the
/// blocks they lie in. `context` may be a compression or a decompression context. Returns the
/// number of bytes written, or a negative code: BLOSC2_ERROR_WRITE_BUFFER when `dest` is too
/// small, BLOSC2_ERROR_INVALID_PARAM for a range outside the chunk, BLOSC2_ERROR_NULL_POINTER,
/// or a decompression error.
#[no_mangle]
pub unsafe extern "C" fn blosc2_getitem_ctx(
    context: *mut blosc2_context_s,
    src: *const c_void,
    srcsize: i32,
    start: c_int,
    nitems: c_int,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    entry(|| {
        // SAFETY: context is NULL or a live handle, per the API.
        let ctx = unsafe { blosc2_context_s::try_mut(context) }?;
        // SAFETY: src/dest hold srcsize/destsize bytes, per the API.
        let (src, dst) = unsafe {
            (
                in_chunk_bytes(src, srcsize)?,
                out_chunk_bytes(dest, destsize)?,
            )
        };
        let dparams = getitem_dparams(ctx);
        if dparams.postfilter.is_none() {
            // A memcpyed chunk: a header check and a copy.
            if let Some(items) = ChunkHeader::memcpyed_items(src, start as i64, nitems as i64) {
                if let Some(to) = dst.get_mut(..items.len()) {
                    copy_bytes(to, items);
                    return len_of(items.len());
                }
            }
        }
        let lazy = ctx
            .lazy_blocks
            .as_deref()
            .map(|l| l as &dyn decompress::LazyBlocks);
        getitem_items(&dparams, src, start, nitems, dst, lazy)
    })
}

/// As `blosc2_getitem_ctx`, with `start` and `nbytes` counted in bytes rather than items:
/// writes `nbytes` bytes from byte offset `start` of the chunk's content to `dest`. Returns the
/// number of bytes written or a negative code.
#[no_mangle]
pub unsafe extern "C" fn blosc2_getitem_bytes_ctx(
    context: *mut blosc2_context_s,
    src: *const c_void,
    srcsize: i32,
    start: i32,
    nbytes: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    entry(|| {
        // SAFETY: context is NULL or a live handle, per the API.
        let ctx = unsafe { blosc2_context_s::try_mut(context) }?;
        // SAFETY: src/dest hold srcsize/destsize bytes, per the API.
        let (src, dst) = unsafe {
            (
                in_chunk_bytes(src, srcsize)?,
                out_chunk_bytes(dest, destsize)?,
            )
        };
        let ts = ChunkHeader::parse(src)?.typesize as i32;
        // Whole items only, as c-blosc2 demands.
        if start < 0 || nbytes < 0 || start % ts != 0 || nbytes % ts != 0 {
            return Err(Error::InvalidParam);
        }
        let lazy = ctx
            .lazy_blocks
            .as_deref()
            .map(|l| l as &dyn decompress::LazyBlocks);
        let n = decompress::getitem_bytes_with(
            &getitem_dparams(ctx),
            src,
            start as usize,
            nbytes as usize,
            dst,
            lazy,
        )?;
        len_of(n)
    })
}
