//! The chunk functions of blosc2.h: contexts, compression and decompression (with a context
//! and through the global settings), getitem, compressed-buffer info, special-value chunks,
//! VL-block chunks.
//!
//! Each function translates: C pointers and sizes into slices (NULL with a non-zero size is
//! `BLOSC2_ERROR_NULL_POINTER`), the BLOSC_* environment variables c-blosc2 reads into
//! parameters, core errors into c-blosc2's codes, and no panic crosses into C.

use std::ffi::CStr;
use std::panic::AssertUnwindSafe;
use std::ptr;

use libc::{c_char, c_int, c_void};

use crate::capi::ffi::{
    entry, guard, in_bytes, len_or_empty, malloc_copy, name_of, out_bytes, static_cstr,
};
use crate::capi::params::{
    self, cparams_from_c, dparams_from_c, CCodec, CFilter, Context, OwnedContext,
};
use crate::capi::schunk::{schunk_layout, schunk_lazy_blocks, schunk_ref};
use crate::capi::types::*;
use crate::chunk::copy::copy_bytes;
use crate::chunk::header::{
    ChunkHeader, Special, DOBITSHUFFLE, DOSHUFFLE, EXTENDED_HEADER_LENGTH, MAX_BUFFERSIZE,
    MAX_OVERHEAD, MIN_HEADER_LENGTH, NOFILTER,
};
use crate::chunk::params::{ALWAYS_SPLIT, AUTO_SPLIT, FORWARD_COMPAT_SPLIT, NEVER_SPLIT};
use crate::chunk::{decompress, registry, special, vlblocks, CParams, Compressor, Decompressor};
use crate::codecs::names;
use crate::{global, Error, Result};

fn len_of(size: usize) -> Result<c_int> {
    c_int::try_from(size).map_err(|_| Error::MaxBufsizeExceeded)
}

/// The header bytes of a chunk whose length the caller does not tell (the blosc1 API and the
/// cbuffer queries): 16 bytes, or 32 when the flags announce the extended header.
///
/// # Safety
/// `p` is NULL or points to a chunk header (32 readable bytes if its flags say extended).
unsafe fn header_bytes<'a>(p: *const c_void) -> Result<&'a [u8]> {
    // SAFETY: per the contract, a chunk header has at least 16 bytes.
    let basic = unsafe { in_bytes(p, MIN_HEADER_LENGTH) }?;
    let flags = basic[2];
    if flags & DOSHUFFLE != 0 && flags & DOBITSHUFFLE != 0 {
        // SAFETY: per the contract, an extended header has 32 bytes.
        unsafe { in_bytes(p, EXTENDED_HEADER_LENGTH) }
    } else {
        Ok(basic)
    }
}

/// The whole chunk at `p` as its header tells its length (for the blosc1 calls that take no
/// source size).
///
/// # Safety
/// `p` is NULL or points to a complete chunk.
unsafe fn whole_chunk<'a>(p: *const c_void) -> Result<&'a [u8]> {
    // SAFETY: forwarded contract.
    let h = ChunkHeader::parse(unsafe { header_bytes(p) }?)?;
    // SAFETY: a complete chunk holds the cbytes its header states.
    unsafe { in_bytes(p, len_or_empty(h.cbytes as i64)) }
}

// ------------------------------------------------------------------------------------------
// Environment variables

/// `strtol(s, NULL, 10)` as c-blosc2 uses it: the leading integer of `s`, 0 when there is none.
fn leading_int(s: &str) -> i64 {
    let t = s.trim_start();
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let mut v: i64 = 0;
    for b in digits.bytes().take_while(u8::is_ascii_digit) {
        v = v.saturating_mul(10).saturating_add((b - b'0') as i64);
    }
    if neg {
        -v
    } else {
        v
    }
}

fn env(name: &str) -> Option<String> {
    std::env::var_os(name).map(|v| v.to_string_lossy().into_owned())
}

/// BLOSC_SHUFFLE: the shuffle it names, None when unset or not recognised.
fn env_shuffle() -> Option<c_int> {
    match env("BLOSC_SHUFFLE")?.as_str() {
        "NOSHUFFLE" => Some(0),
        "SHUFFLE" => Some(1),
        "BITSHUFFLE" => Some(2),
        _ => None,
    }
}

/// BLOSC_DELTA: Some(true/false) for "1"/"0", None otherwise.
fn env_delta() -> Option<bool> {
    match env("BLOSC_DELTA")?.as_str() {
        "1" => Some(true),
        "0" => Some(false),
        _ => None,
    }
}

/// BLOSC_SPLITMODE: the split mode it names.
fn env_splitmode() -> Option<i32> {
    match env("BLOSC_SPLITMODE")?.as_str() {
        "ALWAYS" => Some(ALWAYS_SPLIT),
        "NEVER" => Some(NEVER_SPLIT),
        "AUTO" => Some(AUTO_SPLIT),
        "FORWARD_COMPAT" => Some(FORWARD_COMPAT_SPLIT),
        _ => None,
    }
}

/// A numeric variable's value when it satisfies `ok`.
fn env_int(name: &str, ok: impl Fn(i64) -> bool) -> Option<i64> {
    env(name).map(|v| leading_int(&v)).filter(|&v| ok(v))
}

/// BLOSC_NTHREADS, honoured when positive.
fn env_nthreads() -> Option<i16> {
    env_int("BLOSC_NTHREADS", |v| v > 0).map(|v| v as i16)
}

/// The filter pipeline the blosc1-style `doshuffle` and delta flags stand for (c-blosc2 puts
/// the shuffle last and DELTA just before it; byte shuffle is dropped for 1-byte items).
fn build_filters(doshuffle: c_int, delta: bool, typesize: i32, filters: &mut [u8; 6]) {
    match doshuffle {
        1 if typesize > 1 => filters[5] = 1,
        2 => filters[5] = 2,
        0 => filters[5] = NOFILTER,
        _ => {}
    }
    if delta {
        filters[4] = crate::chunk::header::DELTA;
    }
}

/// What `blosc2_create_cctx` takes from the environment, applied to the caller's cparams
/// (c-blosc2 3.3.5 reads these on every context creation).
fn apply_cctx_env(c: &mut blosc2_cparams) {
    if let Some(v) = env_int("BLOSC_TYPESIZE", |v| v > 0) {
        c.typesize = v as i32;
    }
    build_filters(
        env_shuffle().unwrap_or(-1),
        env_delta() == Some(true),
        c.typesize,
        &mut c.filters,
    );
    if let Some(v) = env_int("BLOSC_CLEVEL", |v| v >= 0) {
        c.clevel = v as u8;
    }
    if let Some(name) = env("BLOSC_COMPRESSOR") {
        c.compcode = names::code_of(&name).unwrap_or(-1) as u8;
    }
    if let Some(v) = env_int("BLOSC_BLOCKSIZE", |v| v > 0) {
        c.blocksize = v as i32;
    }
    if let Some(n) = env_nthreads() {
        c.nthreads = n;
    }
    if let Some(s) = env_splitmode() {
        c.splitmode = s;
    }
}

// ------------------------------------------------------------------------------------------
// Contexts

/// `blosc2_create_cctx`: the environment applied, the context boxed, then the tuner the
/// parameters name (if any) initialised with it.
fn create_cctx(cparams: &blosc2_cparams) -> Result<OwnedContext> {
    let mut c = *cparams;
    apply_cctx_env(&mut c);
    // c-blosc2 replaces an id <= 0 by its default tuner's (0, its automatic block size).
    c.tuner_id = c.tuner_id.max(0);
    // SAFETY: a non-NULL `schunk` is a super-chunk of ours, per c-blosc2's contract.
    let (layout, schunk_ts) = unsafe { (schunk_layout(c.schunk), schunk_typesize(c.schunk)) };
    let ctx = Context::new_compress(&c, |p| {
        p.layout = layout;
        p.schunk_typesize = schunk_ts;
    })?;
    params::boxed_with_tuner(ctx, &c)
}

/// The typesize of the super-chunk at `schunk` (None for NULL), which c-blosc2's filters read
/// through `cparams->schunk` / `dparams->schunk`.
///
/// # Safety
/// `schunk` is NULL or a super-chunk of ours.
pub(crate) unsafe fn schunk_typesize(schunk: *mut c_void) -> Option<i32> {
    // SAFETY: forwarded contract.
    unsafe { schunk_ref(schunk.cast()) }.map(|s| s.cparams().typesize)
}

/// Creates a compression context from `cparams` (copied; start from `BLOSC2_CPARAMS_DEFAULTS`).
/// BLOSC_NTHREADS, when set, overrides `cparams.nthreads`; the tuner named by `tuner_id` is
/// initialised on the new context. Returns the context, which the caller releases with
/// `blosc2_free_ctx`, or NULL when the parameters are invalid (bad clevel, typesize, codec or
/// filter) or memory runs out.
#[no_mangle]
pub unsafe extern "C" fn blosc2_create_cctx(cparams: blosc2_cparams) -> *mut blosc2_context_s {
    guard(ptr::null_mut(), || {
        create_cctx(&cparams).map_or(ptr::null_mut(), OwnedContext::into_raw)
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
        if let Some(n) = env_nthreads() {
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
        let ctx = unsafe { Context::ref_from_handle(ctx) }.ok_or(Error::NullPointer)?;
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
        let ctx = unsafe { Context::ref_from_handle(ctx) }.ok_or(Error::NullPointer)?;
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
        let ctx = unsafe { Context::from_handle(ctx) }.ok_or(Error::NullPointer)?;
        if nblocks < 0 {
            return Err(Error::InvalidParam);
        }
        // SAFETY: maskout holds nblocks bools, per the API.
        let mask = unsafe { in_bytes(maskout as *const c_void, len_or_empty(nblocks as i64)) }?;
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
        let ctx = unsafe { Context::ref_from_handle(context) }.ok_or(Error::NullPointer)?;
        let compressor = ctx.compressor()?;
        // SAFETY: src/dest hold srcsize/destsize bytes, per the API.
        let (src, dst) = unsafe {
            (
                in_bytes(src, len_or_empty(srcsize as i64))?,
                out_bytes(dest, len_or_empty(destsize as i64))?,
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
        let ctx = unsafe { Context::from_handle(context) }.ok_or(Error::NullPointer)?;
        ctx.decompressor()?;
        // The mask applies to this decompression only, whatever its outcome.
        let mask = ctx.maskout.take();
        let decompressor = ctx.decompressor()?;
        // SAFETY: src/dest hold srcsize/destsize bytes, per the API.
        let (src, dst) = unsafe {
            (
                in_bytes(src, len_or_empty(srcsize as i64))?,
                out_bytes(dest, len_or_empty(destsize as i64))?,
            )
        };
        let lazy = ctx
            .lazy_blocks
            .as_deref()
            .map(|l| l as &dyn decompress::LazyBlocks);
        len_of(decompressor.decompress_with(src, dst, mask.as_deref(), lazy)?)
    })
}

/// getitem in items of the chunk's stored typesize, with c-blosc2's checks in its order.
fn getitem_items(
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
fn getitem_dparams(ctx: &Context) -> std::borrow::Cow<'_, crate::chunk::DParams> {
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
        let ctx = unsafe { Context::from_handle(context) }.ok_or(Error::NullPointer)?;
        // SAFETY: src/dest hold srcsize/destsize bytes, per the API.
        let (src, dst) = unsafe {
            (
                in_bytes(src, len_or_empty(srcsize as i64))?,
                out_bytes(dest, len_or_empty(destsize as i64))?,
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
        let ctx = unsafe { Context::from_handle(context) }.ok_or(Error::NullPointer)?;
        // SAFETY: src/dest hold srcsize/destsize bytes, per the API.
        let (src, dst) = unsafe {
            (
                in_bytes(src, len_or_empty(srcsize as i64))?,
                out_bytes(dest, len_or_empty(destsize as i64))?,
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

// ------------------------------------------------------------------------------------------
// The global API

fn ensure_init() {
    crate::capi::library::init_library();
}

/// `blosc2_compress`: the environment first (c-blosc2 stores what it finds in the global
/// settings, where it stays), then one compression with the global settings.
fn global_compress(
    clevel: c_int,
    doshuffle: c_int,
    typesize: i32,
    src: &[u8],
    dst: &mut [u8],
) -> Result<c_int> {
    ensure_init();
    let mut clevel = clevel;
    let mut doshuffle = doshuffle;
    let mut typesize = typesize;
    if let Some(v) = env_int("BLOSC_CLEVEL", |v| v >= 0) {
        clevel = v as c_int;
    }
    if let Some(s) = env_shuffle() {
        doshuffle = s;
    }
    if let Some(d) = env_delta() {
        global::set_delta(d);
    }
    if let Some(v) = env_int("BLOSC_TYPESIZE", |v| v > 0) {
        typesize = v as i32;
    }
    if let Some(name) = env("BLOSC_COMPRESSOR") {
        match global::set_compressor(&name) {
            Ok(_) => {}
            Err(Some(e)) => return Err(e),
            // An unknown name leaves the compressor unset: the compression below then fails
            // with BLOSC2_ERROR_CODEC_SUPPORT, as c-blosc2's does.
            Err(None) => {}
        }
    }
    if let Some(v) = env_int("BLOSC_BLOCKSIZE", |v| v > 0) {
        global::set_blocksize(v as usize);
    }
    if let Some(n) = env_nthreads() {
        global::set_nthreads(n)?;
    }
    if let Some(s) = env_splitmode() {
        global::set_splitmode(s);
    }
    let s = global::settings();
    let mut filters = [0u8; 6];
    build_filters(doshuffle, s.delta, typesize, &mut filters);

    if env("BLOSC_NOLOCK").is_some() {
        // c-blosc2 compresses through a temporary context here, built from the defaults
        // (so without the global block size, and always with the extended header).
        // SAFETY: returns a plain struct.
        let mut c = unsafe { crate::capi::library::blosc2_get_blosc2_cparams_defaults() };
        c.filters = filters;
        c.typesize = typesize;
        c.compcode = s.compcode as u8;
        c.clevel = clevel as u8;
        c.nthreads = s.nthreads;
        c.splitmode = s.splitmode;
        let ctx = create_cctx(&c).map_err(|_| Error::NullPointer)?;
        return len_of(ctx.get().compressor()?.compress(src, dst)?);
    }

    if src.len() as i64 > MAX_BUFFERSIZE || dst.len() < MAX_OVERHEAD {
        return Err(Error::MaxBufsizeExceeded);
    }
    if !(0..=9).contains(&clevel) {
        return Err(Error::CodecParam);
    }
    let params = CParams {
        compcode: s.compcode as u8,
        clevel: clevel as u8,
        typesize,
        nthreads: s.nthreads,
        blocksize: s.blocksize.min(i32::MAX as usize) as i32,
        splitmode: s.splitmode,
        filters,
        legacy_header: env("BLOSC_BLOSC1_COMPAT").is_some(),
        ..cparams_from_c(&unsafe_defaults())
    };
    len_of(Compressor::new(params)?.compress(src, dst)?)
}

/// c-blosc2's default cparams.
fn unsafe_defaults() -> blosc2_cparams {
    // SAFETY: returns a plain struct by value.
    unsafe { crate::capi::library::blosc2_get_blosc2_cparams_defaults() }
}

/// A decompressor for the global API (registered codecs and filters included).
fn global_decompressor(nthreads: i16) -> Result<Decompressor> {
    // SAFETY: returns a plain struct by value.
    let mut d = unsafe { crate::capi::library::blosc2_get_blosc2_dparams_defaults() };
    d.nthreads = nthreads;
    Decompressor::new(dparams_from_c(&d))
}

fn global_decompress(src: &[u8], dst: &mut [u8]) -> Result<c_int> {
    ensure_init();
    // Unlike compression, c-blosc2's decompression takes any value set (not only a positive
    // one) to blosc2_set_nthreads, which refuses one below 1.
    if let Some(v) = env("BLOSC_NTHREADS") {
        global::set_nthreads(leading_int(&v) as i16)?;
    }
    len_of(global_decompressor(global::nthreads())?.decompress(src, dst, None)?)
}

fn global_getitem(src: &[u8], start: c_int, nitems: c_int, dst: &mut [u8]) -> Result<c_int> {
    // c-blosc2 serves getitem serially from a minimal context of its own.
    getitem_items(
        global_decompressor(1)?.params(),
        src,
        start,
        nitems,
        dst,
        None,
    )
}

/// Compresses `srcsize` bytes at `src` into `dest` (room for `destsize` bytes) with the global
/// settings (codec, block size, split mode, delta, threads; see `blosc1_set_compressor`,
/// `blosc2_set_nthreads` and BLOSC_* environment variables), at level `clevel` (0-9), with
/// shuffle mode `doshuffle` (BLOSC_NOSHUFFLE, BLOSC_SHUFFLE, BLOSC_BITSHUFFLE) for items of
/// `typesize` bytes. Returns the chunk size, 0 when it does not fit in `destsize`, or a negative
/// code (BLOSC2_ERROR_CODEC_PARAM for a bad clevel, BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED, ...).
/// Initialises the library when needed.
#[no_mangle]
pub unsafe extern "C" fn blosc2_compress(
    clevel: c_int,
    doshuffle: c_int,
    typesize: i32,
    src: *const c_void,
    srcsize: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    entry(|| {
        // SAFETY: src/dest hold srcsize/destsize bytes, per the API.
        let (src, dst) = unsafe {
            (
                in_bytes(src, len_or_empty(srcsize as i64))?,
                out_bytes(dest, len_or_empty(destsize as i64))?,
            )
        };
        global_compress(clevel, doshuffle, typesize, src, dst)
    })
}

/// Decompresses the chunk at `src` (`srcsize` bytes) into `dest` (room for `destsize` bytes)
/// with the global settings (thread count). Returns the number of bytes written or a negative
/// code (BLOSC2_ERROR_WRITE_BUFFER when `dest` is too small, BLOSC2_ERROR_READ_BUFFER or
/// BLOSC2_ERROR_INVALID_HEADER for a damaged chunk, ...).
#[no_mangle]
pub unsafe extern "C" fn blosc2_decompress(
    src: *const c_void,
    srcsize: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    entry(|| {
        // SAFETY: src/dest hold srcsize/destsize bytes, per the API.
        let (src, dst) = unsafe {
            (
                in_bytes(src, len_or_empty(srcsize as i64))?,
                out_bytes(dest, len_or_empty(destsize as i64))?,
            )
        };
        global_decompress(src, dst)
    })
}

/// Decompresses items `start` .. `start + nitems` (in units of the chunk's typesize) of the chunk
/// at `src` (`srcsize` bytes) into `dest` (room for `destsize` bytes), without a context.
/// Returns the number of bytes written, or a negative code (BLOSC2_ERROR_WRITE_BUFFER,
/// BLOSC2_ERROR_INVALID_PARAM for a range outside the chunk, a decompression error).
#[no_mangle]
pub unsafe extern "C" fn blosc2_getitem(
    src: *const c_void,
    srcsize: i32,
    start: c_int,
    nitems: c_int,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    entry(|| {
        // SAFETY: src/dest hold srcsize/destsize bytes, per the API.
        let (src, dst) = unsafe {
            (
                in_bytes(src, len_or_empty(srcsize as i64))?,
                out_bytes(dest, len_or_empty(destsize as i64))?,
            )
        };
        global_getitem(src, start, nitems, dst)
    })
}

/// The Blosc1 form of `blosc2_compress`: compresses `nbytes` bytes at `src` into `dest` (room
/// for `destsize` bytes; sizes beyond INT32_MAX are clamped) at level `clevel`, shuffle mode
/// `doshuffle`, items of `typesize` bytes, with the global settings. Returns the chunk size, 0
/// when it does not fit, or a negative code (BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED for `nbytes` over
/// `BLOSC2_MAX_BUFFERSIZE`, ...).
#[no_mangle]
pub unsafe extern "C" fn blosc1_compress(
    clevel: c_int,
    doshuffle: c_int,
    typesize: usize,
    nbytes: usize,
    src: *const c_void,
    dest: *mut c_void,
    destsize: usize,
) -> c_int {
    entry(|| {
        // c-blosc2 passes the sizes on as int32_t; a destination beyond that is not usable.
        let destsize = destsize.min(i32::MAX as usize) as i64;
        if nbytes as i64 > MAX_BUFFERSIZE {
            return Err(Error::MaxBufsizeExceeded);
        }
        // SAFETY: src/dest hold nbytes/destsize bytes, per the API.
        let (src, dst) = unsafe {
            (
                in_bytes(src, len_or_empty(nbytes as i64))?,
                out_bytes(dest, len_or_empty(destsize))?,
            )
        };
        global_compress(clevel, doshuffle, typesize as i32, src, dst)
    })
}

/// The Blosc1 form of `blosc2_decompress`: the chunk's size is taken from its own header (so
/// `src` must hold a complete chunk). Decompresses into `dest` (room for `destsize` bytes).
/// Returns the number of bytes written or a negative code.
#[no_mangle]
pub unsafe extern "C" fn blosc1_decompress(
    src: *const c_void,
    dest: *mut c_void,
    destsize: usize,
) -> c_int {
    entry(|| {
        // The blosc1 call has no source size: the header's cbytes is trusted, as c-blosc2 does.
        // SAFETY: src is a complete chunk and dest holds destsize bytes, per the API.
        let (src, dst) = unsafe {
            (
                whole_chunk(src)?,
                out_bytes(dest, len_or_empty(destsize.min(i32::MAX as usize) as i64))?,
            )
        };
        global_decompress(src, dst)
    })
}

/// The Blosc1 form of `blosc2_getitem`: the chunk's size comes from its header, and `dest` must
/// have room for `nitems` items of the chunk's typesize. Returns the number of bytes written or
/// a negative code.
#[no_mangle]
pub unsafe extern "C" fn blosc1_getitem(
    src: *const c_void,
    start: c_int,
    nitems: c_int,
    dest: *mut c_void,
) -> c_int {
    entry(|| {
        // SAFETY: src is a complete chunk, per the API.
        let src = unsafe { whole_chunk(src) }?;
        let ts = ChunkHeader::parse(src)?.typesize as i64;
        // The destination is as large as the items asked for, as the blosc1 API promises.
        let want = (nitems.max(0) as i64 * ts).min(i32::MAX as i64);
        // SAFETY: dest holds nitems items, per the API.
        let dst = unsafe { out_bytes(dest, len_or_empty(want)) }?;
        global_getitem(src, start, nitems, dst)
    })
}

/// A C threads callback as the core's job runner.
struct CThreadsCallback {
    callback: unsafe extern "C" fn(
        *mut c_void,
        Option<unsafe extern "C" fn(*mut c_void)>,
        c_int,
        usize,
        *mut c_void,
    ),
    data: *mut c_void,
}

// SAFETY: the callback and its data are the caller's, installed for use from any thread (c-blosc2
// calls it from whichever thread compresses).
unsafe impl Send for CThreadsCallback {}
// SAFETY: see Send; the wrapper is never mutated.
unsafe impl Sync for CThreadsCallback {}

/// One element of the job array handed to the C callback.
struct JobSlot<'a> {
    job: &'a (dyn Fn(usize) + Sync),
    index: usize,
}

/// The `dojob` the C callback calls with a pointer to one `JobSlot`.
unsafe extern "C" fn run_job_slot(slot: *mut c_void) {
    // SAFETY: the callback passes back pointers into the JobSlot array given to it, which
    // lives until the callback returns.
    if let Some(slot) = unsafe { slot.cast::<JobSlot<'_>>().as_ref() } {
        // A panic must not unwind into the caller's C code; a job that did not finish leaves
        // its result missing, which the core reports.
        guard((), AssertUnwindSafe(|| (slot.job)(slot.index)));
    }
}

impl crate::chunk::runner::JobRunner for CThreadsCallback {
    fn run(&self, njobs: usize, job: &(dyn Fn(usize) + Sync)) {
        let mut slots: Vec<JobSlot<'_>> = (0..njobs).map(|index| JobSlot { job, index }).collect();
        // SAFETY: the caller's callback, given `njobs` elements of `size_of::<JobSlot>()` bytes
        // and the dojob that runs one of them.
        unsafe {
            (self.callback)(
                self.data,
                Some(run_job_slot),
                njobs as c_int,
                std::mem::size_of::<JobSlot<'_>>(),
                slots.as_mut_ptr().cast(),
            )
        }
    }
}

/// With a callback installed, contexts with several threads hand their blocks to it as
/// `nthreads` jobs (each job takes blocks until none is left) instead of to their worker pool;
/// NULL restores the pools.
#[no_mangle]
pub unsafe extern "C" fn blosc2_set_threads_callback(
    callback: blosc_threads_callback,
    callback_data: *mut c_void,
) {
    guard((), || {
        crate::chunk::runner::set_job_runner(callback.map(|callback| {
            std::sync::Arc::new(CThreadsCallback {
                callback,
                data: callback_data,
            }) as std::sync::Arc<dyn crate::chunk::runner::JobRunner>
        }))
    })
}

// ------------------------------------------------------------------------------------------
// Compressed-buffer info

/// The header at `p` as c-blosc2's cbuffer queries read it: its first 16 bytes only, whatever
/// the flags say (a 16-byte header may be all there is before an unmapped page).
///
/// # Safety
/// `p` is NULL or points to 16 readable bytes.
unsafe fn cbuffer_header(p: *const c_void) -> Result<ChunkHeader> {
    // SAFETY: forwarded contract.
    ChunkHeader::parse_min(unsafe { in_bytes(p, MIN_HEADER_LENGTH) }?)
}

/// Reads the sizes recorded in the header of the chunk at `cbuffer`: `*nbytes` its uncompressed
/// size, `*cbytes` its compressed size and `*blocksize` its block size, in bytes (any output may
/// be NULL). Returns 0, or a negative code for a header that cannot be read (the outputs are then
/// set to 0).
#[no_mangle]
pub unsafe extern "C" fn blosc2_cbuffer_sizes(
    cbuffer: *const c_void,
    nbytes: *mut i32,
    cbytes: *mut i32,
    blocksize: *mut i32,
) -> c_int {
    entry(|| {
        // SAFETY: cbuffer points to a chunk header, per the API.
        let h = unsafe { cbuffer_header(cbuffer) };
        // c-blosc2 reports zeros for a header it cannot read.
        let (n, c, b) = h.map_or((0, 0, 0), |h| (h.nbytes, h.cbytes, h.blocksize));
        // SAFETY: each output is NULL or writable, per the API.
        unsafe {
            if !nbytes.is_null() {
                *nbytes = n;
            }
            if !cbytes.is_null() {
                *cbytes = c;
            }
            if !blocksize.is_null() {
                *blocksize = b;
            }
        }
        h.map(|_| 0)
    })
}

/// The Blosc1 form of `blosc2_cbuffer_sizes`, with `size_t` outputs and no return code (the
/// outputs are 0 for a header that cannot be read).
#[no_mangle]
pub unsafe extern "C" fn blosc1_cbuffer_sizes(
    cbuffer: *const c_void,
    nbytes: *mut usize,
    cbytes: *mut usize,
    blocksize: *mut usize,
) {
    let (mut n, mut c, mut b) = (0i32, 0i32, 0i32);
    // SAFETY: forwarded contract; the locals are writable.
    unsafe { blosc2_cbuffer_sizes(cbuffer, &mut n, &mut c, &mut b) };
    // SAFETY: each output is NULL or writable, per the API (c-blosc2 requires all three).
    unsafe {
        if !nbytes.is_null() {
            *nbytes = n as usize;
        }
        if !cbytes.is_null() {
            *cbytes = c as usize;
        }
        if !blocksize.is_null() {
            *blocksize = b as usize;
        }
    }
}

/// Checks that `cbuffer` holds a chunk of exactly `cbytes` bytes whose header is readable and
/// whose content fits in a buffer, and writes its uncompressed size to `*nbytes` (0 on error).
/// Returns 0, or a negative code: BLOSC2_ERROR_WRITE_BUFFER when `cbytes` is below the minimal
/// header, BLOSC2_ERROR_INVALID_HEADER when the header's cbytes differs, BLOSC2_ERROR_MEMORY_ALLOC
/// when nbytes exceeds `BLOSC2_MAX_BUFFERSIZE`.
#[no_mangle]
pub unsafe extern "C" fn blosc1_cbuffer_validate(
    cbuffer: *const c_void,
    cbytes: usize,
    nbytes: *mut usize,
) -> c_int {
    entry(|| {
        let result = (|| {
            if cbytes < MIN_HEADER_LENGTH {
                return Err(Error::WriteBuffer);
            }
            // SAFETY: cbuffer holds cbytes >= 16 bytes, per the API. c-blosc2 reads them
            // as blosc2_cbuffer_sizes does.
            let h = unsafe { cbuffer_header(cbuffer) }?;
            if h.cbytes as i64 != cbytes as i64 {
                return Err(Error::InvalidHeader);
            }
            // c-blosc2 compares the nbytes stored in a size_t: a negative one is huge.
            if h.nbytes as isize as usize > MAX_BUFFERSIZE as usize {
                return Err(Error::MemoryAlloc);
            }
            Ok(h.nbytes as usize)
        })();
        if !nbytes.is_null() {
            // SAFETY: non-NULL and writable, per the API.
            unsafe { *nbytes = *result.as_ref().unwrap_or(&0) };
        }
        result.map(|_| 0)
    })
}

/// Reads the item size (`*typesize`) and the flags byte (`*flags`: shuffle, memcpyed, ... bits)
/// from the header of the chunk at `cbuffer`; both are 0 for a header that cannot be read. Either
/// output may be NULL.
#[no_mangle]
pub unsafe extern "C" fn blosc1_cbuffer_metainfo(
    cbuffer: *const c_void,
    typesize: *mut usize,
    flags: *mut c_int,
) {
    guard((), || {
        // SAFETY: cbuffer points to a chunk header, per the API.
        let (t, f) = unsafe { cbuffer_header(cbuffer) }
            .map_or((0, 0), |h| (h.typesize as usize, h.flags as c_int));
        // SAFETY: each output is NULL or writable, per the API.
        unsafe {
            if !typesize.is_null() {
                *typesize = t;
            }
            if !flags.is_null() {
                *flags = f;
            }
        }
    })
}

/// Reads the chunk format version (`*version`) and the codec format version (`*versionlz`) from
/// the header of the chunk at `cbuffer`; both are 0 for a header that cannot be read. Either
/// output may be NULL.
#[no_mangle]
pub unsafe extern "C" fn blosc2_cbuffer_versions(
    cbuffer: *const c_void,
    version: *mut c_int,
    versionlz: *mut c_int,
) {
    guard((), || {
        // SAFETY: cbuffer points to a chunk header, per the API.
        let (v, vlz) = unsafe { cbuffer_header(cbuffer) }
            .map_or((0, 0), |h| (h.version as c_int, h.versionlz as c_int));
        // SAFETY: each output is NULL or writable, per the API.
        unsafe {
            if !version.is_null() {
                *version = v;
            }
            if !versionlz.is_null() {
                *versionlz = vlz;
            }
        }
    })
}

/// The library name for a chunk's 3-bit format code: the built-in libraries, else a
/// registered codec whose `complib` is that code.
fn complib_name(format: u8) -> Option<&'static CStr> {
    match format {
        0 => Some(c"BloscLZ"),
        1 => Some(c"LZ4"),
        2 => Some(c"Snappy"),
        3 => Some(c"Zlib"),
        4 => Some(c"Zstd"),
        _ => registry::codec_by_complib(format).map(|e| static_cstr(&e.name)),
    }
}

/// The name of the compression library that produced the chunk at `cbuffer` ("BloscLZ", "LZ4",
/// "Zlib", "Zstd", or a registered codec's name), or NULL when the header cannot be read or the
/// library is unknown. The string is static: do not free it.
#[no_mangle]
pub unsafe extern "C" fn blosc2_cbuffer_complib(cbuffer: *const c_void) -> *const c_char {
    guard(ptr::null(), || {
        // SAFETY: cbuffer points to a chunk header, per the API.
        match unsafe { cbuffer_header(cbuffer) } {
            Ok(h) => complib_name(h.compformat()).map_or(ptr::null(), CStr::as_ptr),
            Err(_) => ptr::null(),
        }
    })
}

// ------------------------------------------------------------------------------------------
// Special-value chunks

/// One special chunk, with c-blosc2's checks in its order.
fn special_chunk(
    cparams: &blosc2_cparams,
    kind: Special,
    nbytes: i32,
    dst: &mut [u8],
    value: Option<&[u8]>,
) -> Result<c_int> {
    if dst.len() < EXTENDED_HEADER_LENGTH {
        return Err(Error::Data);
    }
    let ts = cparams.typesize;
    if ts <= 0 || (nbytes > 0 && nbytes % ts != 0) {
        return Err(Error::Data);
    }
    if kind == Special::Value && dst.len() < EXTENDED_HEADER_LENGTH + ts as usize {
        return Err(Error::Data);
    }
    let ctx = create_cctx(cparams).map_err(|_| Error::NullPointer)?;
    let params = ctx.get().compressor()?.params();
    params.consult_tuner()?;
    if nbytes as i64 > MAX_BUFFERSIZE {
        return Err(Error::MaxBufsizeExceeded);
    }
    if params.clevel > 9 {
        return Err(Error::CodecParam);
    }
    len_of(special::write(params, kind, nbytes, value, dst)?)
}

/// Writes to `dest` (room for `destsize` bytes) a chunk that stands for `nbytes` zero bytes
/// without storing them: just a header (`BLOSC_EXTENDED_HEADER_LENGTH` bytes). `cparams` gives
/// the typesize and the other header fields; `nbytes` must be a multiple of the typesize. Returns
/// the chunk size, or a negative code (BLOSC2_ERROR_DATA when `destsize` is too small,
/// BLOSC2_ERROR_INVALID_PARAM, BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED, BLOSC2_ERROR_CODEC_PARAM).
#[no_mangle]
pub unsafe extern "C" fn blosc2_chunk_zeros(
    cparams: blosc2_cparams,
    nbytes: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    entry(|| {
        // SAFETY: dest holds destsize bytes, per the API.
        let dst = unsafe { out_bytes(dest, len_or_empty(destsize as i64)) }?;
        special_chunk(&cparams, Special::Zero, nbytes, dst, None)
    })
}

/// As `blosc2_chunk_zeros`, for a chunk that stands for `nbytes` bytes of NaNs (float32 or
/// float64: `cparams.typesize` must be 4 or 8). Returns the chunk size or a negative code.
#[no_mangle]
pub unsafe extern "C" fn blosc2_chunk_nans(
    cparams: blosc2_cparams,
    nbytes: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    entry(|| {
        // SAFETY: dest holds destsize bytes, per the API.
        let dst = unsafe { out_bytes(dest, len_or_empty(destsize as i64)) }?;
        special_chunk(&cparams, Special::Nan, nbytes, dst, None)
    })
}

/// As `blosc2_chunk_zeros`, for a chunk that stands for `nbytes` bytes of the value at
/// `repeatval` (one item of `cparams.typesize` bytes) repeated; the chunk is the header followed
/// by that value. Returns the chunk size or a negative code.
#[no_mangle]
pub unsafe extern "C" fn blosc2_chunk_repeatval(
    cparams: blosc2_cparams,
    nbytes: i32,
    dest: *mut c_void,
    destsize: i32,
    repeatval: *const c_void,
) -> c_int {
    entry(|| {
        // SAFETY: dest holds destsize bytes and repeatval one item, per the API.
        let dst = unsafe { out_bytes(dest, len_or_empty(destsize as i64)) }?;
        let value = unsafe { in_bytes(repeatval, len_or_empty(cparams.typesize as i64)) }?;
        special_chunk(&cparams, Special::Value, nbytes, dst, Some(value))
    })
}

/// As `blosc2_chunk_zeros`, for a chunk of `nbytes` bytes whose content is unspecified
/// (decompressing it leaves the destination untouched). Returns the chunk size or a negative
/// code.
#[no_mangle]
pub unsafe extern "C" fn blosc2_chunk_uninit(
    cparams: blosc2_cparams,
    nbytes: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    entry(|| {
        // SAFETY: dest holds destsize bytes, per the API.
        let dst = unsafe { out_bytes(dest, len_or_empty(destsize as i64)) }?;
        special_chunk(&cparams, Special::Uninit, nbytes, dst, None)
    })
}

// ------------------------------------------------------------------------------------------
// VL-block chunks

/// Compresses `nblocks` buffers of different sizes (`srcs[i]` of `srcsizes[i]` bytes) into one
/// variable-length-block chunk written to `dest` (room for `destsize` bytes), with compression
/// context `context`: each buffer becomes one block. Returns the chunk size, 0 when it does not
/// fit, or a negative code (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_INVALID_PARAM for a
/// non-positive `nblocks` or a negative size, a codec error).
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
        let ctx = unsafe { Context::ref_from_handle(context) }.ok_or(Error::NullPointer)?;
        let compressor = ctx.compressor()?;
        if nblocks <= 0 {
            return Err(Error::InvalidParam);
        }
        let n = nblocks as usize;
        if srcs.is_null() || srcsizes.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: srcs and srcsizes hold nblocks entries, per the API.
        let (ptrs, sizes) = unsafe {
            (
                std::slice::from_raw_parts(srcs, n),
                std::slice::from_raw_parts(srcsizes, n),
            )
        };
        let mut blocks = Vec::with_capacity(n);
        for (&p, &len) in ptrs.iter().zip(sizes) {
            if len < 0 {
                return Err(Error::InvalidParam);
            }
            // SAFETY: each source holds its size in bytes, per the API.
            blocks.push(unsafe { in_bytes(p, len_or_empty(len as i64)) }?);
        }
        // SAFETY: dest holds destsize bytes, per the API.
        let dst = unsafe { out_bytes(dest, len_or_empty(destsize as i64)) }?;
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
        let ctx = unsafe { Context::from_handle(context) }.ok_or(Error::NullPointer)?;
        let decompressor = ctx.decompressor()?;
        // SAFETY: src holds srcsize bytes, per the API.
        let src = unsafe { in_bytes(src, len_or_empty(srcsize as i64)) }?;
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
        let src = unsafe { in_bytes(src, len_or_empty(srcsize as i64)) }?;
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
        let ctx = unsafe { Context::from_handle(context) }.ok_or(Error::NullPointer)?;
        let decompressor = ctx.decompressor()?;
        // SAFETY: src holds srcsize bytes, per the API.
        let src = unsafe { in_bytes(src, len_or_empty(srcsize as i64)) }?;
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

// ------------------------------------------------------------------------------------------
// Extension points

/// Registers a user codec: its `compcode` (from `BLOSC2_USER_REGISTERED_CODECS_START`), name,
/// library code, version and encoder/decoder callbacks are copied, so `*codec` may go away. The
/// codec can then be selected through `cparams.compcode`. Registering the same codec again is
/// accepted (under the same name). Returns 0, or a negative code (BLOSC2_ERROR_INVALID_PARAM for
/// NULL, BLOSC2_ERROR_CODEC_PARAM for a reserved code or one taken by another codec,
/// BLOSC2_ERROR_CODEC_SUPPORT when the registry is full).
#[no_mangle]
pub unsafe extern "C" fn blosc2_register_codec(codec: *mut blosc2_codec) -> c_int {
    entry(|| {
        // SAFETY: codec is NULL or points to a blosc2_codec, per the API.
        let c = unsafe { codec.as_ref() }.ok_or(Error::InvalidParam)?;
        // SAFETY: compname is NULL or a C string, per the API.
        let name = unsafe { name_of(c.compname) };
        registry::register_codec(registry::CodecEntry {
            id: c.compcode,
            name: name.clone(),
            complib: c.complib,
            version: c.version,
            codec: std::sync::Arc::new(CCodec::new(name, c.encoder, c.decoder)),
        })?;
        Ok(0)
    })
}

/// Registers a user filter: its `id` (from `BLOSC2_USER_REGISTERED_FILTERS_START`), name, version
/// and forward/backward callbacks are copied, so `*filter` may go away. The filter can then be
/// placed in `cparams.filters`. Registering the same id under the same name again is accepted.
/// Returns 0, or a negative code (BLOSC2_ERROR_INVALID_PARAM for
/// NULL, BLOSC2_ERROR_FAILURE for a reserved id or one taken by another filter,
/// BLOSC2_ERROR_CODEC_SUPPORT when the registry is full).
#[no_mangle]
pub unsafe extern "C" fn blosc2_register_filter(filter: *mut blosc2_filter) -> c_int {
    entry(|| {
        // SAFETY: filter is NULL or points to a blosc2_filter, per the API.
        let f = unsafe { filter.as_ref() }.ok_or(Error::InvalidParam)?;
        // SAFETY: name is NULL or a C string, per the API.
        let name = unsafe { name_of(f.name) };
        registry::register_filter(registry::FilterEntry {
            id: f.id,
            name: name.clone(),
            version: f.version,
            filter: std::sync::Arc::new(CFilter::new(f.id, name, f.forward, f.backward)),
        })?;
        Ok(0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capi::library::{
        blosc2_get_blosc2_cparams_defaults, blosc2_get_blosc2_dparams_defaults,
    };
    use crate::chunk::header::MEMCPYED;
    use std::sync::Arc;

    /// Serves a lazy chunk's blocks from the full chunk.
    struct InMemory(Vec<u8>);

    impl decompress::LazyBlocks for InMemory {
        fn read_block(&self, _: i32, _: i64, offset: i64, len: i32) -> Result<Vec<u8>> {
            let at = offset as usize;
            self.0
                .get(at..at + len as usize)
                .map(<[u8]>::to_vec)
                .ok_or(Error::ReadBuffer)
        }
    }

    fn le32(b: &[u8], at: usize) -> usize {
        i32::from_le_bytes(b[at..at + 4].try_into().unwrap()) as usize
    }

    #[test]
    fn contexts_round_trip_and_read_lazy_chunks_through_their_reader() {
        let data: Vec<u8> = (0..100_000u32)
            .flat_map(|i| (i / 5).to_le_bytes())
            .collect();
        // SAFETY: plain structs by value; every buffer below is valid for the sizes passed, and
        // the handles are freed once.
        unsafe {
            let mut cp = blosc2_get_blosc2_cparams_defaults();
            cp.typesize = 4;
            cp.blocksize = 64 * 1024;
            let c = blosc2_create_cctx(cp);
            assert!(!c.is_null());
            let mut chunk = vec![0u8; data.len() + 32];
            let n = blosc2_compress_ctx(
                c,
                data.as_ptr().cast(),
                data.len() as i32,
                chunk.as_mut_ptr().cast(),
                chunk.len() as i32,
            );
            assert!(n > 32 && (n as usize) < data.len());
            chunk.truncate(n as usize);
            blosc2_free_ctx(c);

            let d = blosc2_create_dctx(blosc2_get_blosc2_dparams_defaults());
            let mut out = vec![0u8; data.len()];
            let len = out.len() as i32;
            let m =
                blosc2_decompress_ctx(d, chunk.as_ptr().cast(), n, out.as_mut_ptr().cast(), len);
            assert_eq!(m, len);
            assert_eq!(out, data);
            // NULL with a size is refused, not dereferenced.
            let bad = blosc2_decompress_ctx(d, ptr::null(), n, out.as_mut_ptr().cast(), len);
            assert_eq!(bad, Error::NullPointer.code());

            // The lazy form: header, block starts, then nchunk, offset and block sizes.
            let nblocks = data.len().div_ceil(64 * 1024);
            let mut lazy = chunk[..32 + 4 * nblocks].to_vec();
            lazy[31] |= crate::chunk::header::LAZY_CHUNK;
            lazy.extend_from_slice(&0i32.to_le_bytes());
            lazy.extend_from_slice(&0i64.to_le_bytes());
            for i in 0..nblocks {
                let start = le32(&chunk, 32 + 4 * i);
                let end = if i + 1 < nblocks {
                    le32(&chunk, 32 + 4 * (i + 1))
                } else {
                    chunk.len()
                };
                lazy.extend_from_slice(&((end - start) as i32).to_le_bytes());
            }
            let lazy_len = lazy.len() as i32;
            out.fill(0);
            let without = blosc2_decompress_ctx(
                d,
                lazy.as_ptr().cast(),
                lazy_len,
                out.as_mut_ptr().cast(),
                len,
            );
            assert_eq!(
                without,
                Error::InvalidParam.code(),
                "no reader, no lazy chunk"
            );
            Context::from_handle(d).unwrap().lazy_blocks = Some(Arc::new(InMemory(chunk.clone())));
            let m = blosc2_decompress_ctx(
                d,
                lazy.as_ptr().cast(),
                lazy_len,
                out.as_mut_ptr().cast(),
                len,
            );
            assert_eq!(m, len);
            assert_eq!(out, data);
            let mut part = [0u8; 40];
            let g = blosc2_getitem_ctx(
                d,
                lazy.as_ptr().cast(),
                lazy_len,
                20_000,
                10,
                part.as_mut_ptr().cast(),
                40,
            );
            assert_eq!(g, 40);
            assert_eq!(&part[..], &data[80_000..80_040]);
            blosc2_free_ctx(d);
        }
    }

    /// `blosc2_getitem_ctx`'s memcpyed shortcut answers only where the general path answers the
    /// same: over memcpyed chunks with 16- and 32-byte headers, every header byte set to values
    /// that matter (flag bits, sizes around the truth, zero) and item ranges around the edges.
    #[test]
    fn memcpyed_shortcut_agrees_with_the_general_getitem() {
        let data: Vec<u8> = (0..4000u32).map(|i| (i * 37 + i / 7) as u8).collect();
        let dparams = crate::chunk::DParams::default();
        let (mut agreed, mut shortcut) = (0, 0);
        for extended in [false, true] {
            let hl = if extended { 32 } else { 16 };
            let mut chunk = vec![0u8; hl];
            chunk[0] = 2;
            chunk[1] = 1;
            chunk[2] = MEMCPYED
                | if extended {
                    DOSHUFFLE | DOBITSHUFFLE
                } else {
                    0
                };
            chunk[3] = 4;
            chunk[4..8].copy_from_slice(&(data.len() as i32).to_le_bytes());
            chunk[8..12].copy_from_slice(&1024i32.to_le_bytes());
            chunk[12..16].copy_from_slice(&((data.len() + hl) as i32).to_le_bytes());
            chunk.extend_from_slice(&data);
            let mut variants = vec![chunk.clone()];
            for at in 0..hl {
                for v in [0u8, 1, 2, 3, 4, 5, 6, 8, 0x10, 0x20, 0x37, 0x80, 0xff] {
                    let mut c = chunk.clone();
                    c[at] = v;
                    variants.push(c);
                }
            }
            for cut in [8, 16, 31, hl + 100, chunk.len() - 1] {
                variants.push(chunk[..cut].to_vec());
            }
            for c in &variants {
                for (start, nitems) in [
                    (0i64, 1i64),
                    (0, 1000),
                    (999, 1),
                    (999, 2),
                    (500, 0),
                    (-1, 2),
                    (1000, 1),
                    (3, 7),
                ] {
                    let mut general = vec![0u8; 4100];
                    let g = getitem_items(
                        &dparams,
                        c,
                        start as c_int,
                        nitems as c_int,
                        &mut general,
                        None,
                    );
                    if let Some(items) = ChunkHeader::memcpyed_items(c, start, nitems) {
                        shortcut += 1;
                        assert_eq!(g, Ok(items.len() as c_int), "{start} {nitems} {c:?}");
                        assert_eq!(&general[..items.len()], items);
                        let from = start as usize * c[3] as usize;
                        assert_eq!(items, &data[from..from + items.len()]);
                    } else if g.is_ok() {
                        agreed += 1;
                    }
                }
            }
        }
        // The shortcut covers the plain cases, the general path the rest (nitems 0 included).
        assert!(shortcut > 100 && agreed > 0, "{shortcut} {agreed}");
    }

    #[test]
    fn environment_values_parse_like_strtol() {
        assert_eq!(leading_int("12"), 12);
        assert_eq!(leading_int("  7x"), 7);
        assert_eq!(leading_int("x"), 0);
        assert_eq!(leading_int("-3"), -3);
        assert_eq!(leading_int("+4"), 4);
        let mut f = [0u8; 6];
        build_filters(1, true, 1, &mut f);
        assert_eq!(f, [0, 0, 0, 0, 3, 0], "no byte shuffle of 1-byte items");
        build_filters(2, false, 1, &mut f);
        assert_eq!(f[5], 2);
    }
}
