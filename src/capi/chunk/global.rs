//! The global API: the blosc2_*/blosc1_* functions that compress through the global settings, and the threads callback.

use std::panic::AssertUnwindSafe;

use libc::{c_int, c_void};

use super::buffers::{len_of, whole_chunk};
use super::context::{create_cctx, getitem_items};
use super::env::{leading_int, BloscEnv};
use crate::capi::ffi::{entry, guard, in_chunk_bytes, out_chunk_bytes, refuse_negative_dest};
use crate::capi::params::cparams_from_c;
use crate::capi::types::*;
use crate::chunk::header::{ChunkHeader, MAX_BUFFERSIZE, MAX_OVERHEAD};
use crate::chunk::{CParams, Compressor, Decompressor};
use crate::schunk::env::build_filters;
use crate::{global, Error, Result};

pub(super) fn ensure_init() {
    crate::capi::library::init_library();
}

/// `blosc2_compress`: the environment first (c-blosc2 stores what it finds in the global
/// settings, where it stays), then one compression with the global settings.
pub(super) fn global_compress(
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
    let env = BloscEnv::now();
    if let Some(v) = env.int(c"BLOSC_CLEVEL", |v| v >= 0) {
        clevel = v as c_int;
    }
    if let Some(s) = env.shuffle() {
        doshuffle = s;
    }
    if let Some(d) = env.delta() {
        global::set_delta(d);
    }
    if let Some(v) = env.int(c"BLOSC_TYPESIZE", |v| v > 0) {
        typesize = v as i32;
    }
    if let Some(name) = env.var(c"BLOSC_COMPRESSOR") {
        match global::set_compressor(&name) {
            Ok(_) => {}
            Err(Some(e)) => return Err(e),
            // An unknown name leaves the compressor unset: the compression below then fails
            // with BLOSC2_ERROR_CODEC_SUPPORT, as c-blosc2's does.
            Err(None) => {}
        }
    }
    if let Some(v) = env.int(c"BLOSC_BLOCKSIZE", |v| v > 0) {
        global::set_blocksize(v as usize);
    }
    if let Some(n) = env.nthreads() {
        global::set_nthreads(n)?;
    }
    if let Some(s) = env.splitmode() {
        global::set_splitmode(s);
    }
    global::keep_threads()?;
    let s = global::settings();
    let mut filters = [0u8; 6];
    build_filters(doshuffle, s.delta, typesize, &mut filters);

    if env.var(c"BLOSC_NOLOCK").is_some() {
        // c-blosc2 compresses through a temporary context here, built from the defaults
        // (so without the global block size, and always with the extended header).
        let mut c = crate::capi::library::cparams_defaults();
        c.filters = filters;
        c.typesize = typesize;
        c.compcode = s.compcode as u8;
        c.clevel = clevel as u8;
        c.nthreads = s.nthreads;
        c.splitmode = s.splitmode;
        let ctx = create_cctx(&mut c).map_err(|_| Error::NullPointer)?;
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
        legacy_header: env.var(c"BLOSC_BLOSC1_COMPAT").is_some(),
        ..cparams_from_c(&crate::capi::library::cparams_defaults())
    };
    len_of(Compressor::new(params)?.compress(src, dst)?)
}

/// A decompressor for the global API (registered codecs and filters included).
pub(super) fn global_decompressor(nthreads: i16) -> Result<Decompressor> {
    // The plugin codecs c-blosc2 registers at init are in the registry before it is read.
    crate::capi::plugin_loader::ensure_plugin_codecs();
    Decompressor::with_defaults(nthreads)
}

/// Runs `f` with this thread's single-threaded decompressor for the global functions (the
/// core keeps it while no codec or filter is registered).
fn with_serial_decompressor<R>(f: impl FnOnce(&Decompressor) -> Result<R>) -> Result<R> {
    crate::capi::plugin_loader::ensure_plugin_codecs();
    Decompressor::with_serial_default(f)
}

pub(super) fn global_decompress(src: &[u8], dst: &mut [u8]) -> Result<c_int> {
    ensure_init();
    // Unlike compression, c-blosc2's decompression takes any value set (not only a positive
    // one) to blosc2_set_nthreads, which refuses one below 1.
    if let Some(v) = BloscEnv::now().var(c"BLOSC_NTHREADS") {
        global::set_nthreads(leading_int(&v) as i16)?;
    }
    let nthreads = global::nthreads();
    if nthreads == 1 {
        return with_serial_decompressor(|d| len_of(d.decompress(src, dst, None)?));
    }
    global::keep_threads()?;
    len_of(global_decompressor(nthreads)?.decompress(src, dst, None)?)
}

pub(super) fn global_getitem(
    src: &[u8],
    start: c_int,
    nitems: c_int,
    dst: &mut [u8],
) -> Result<c_int> {
    // c-blosc2 serves getitem serially from a minimal context of its own.
    with_serial_decompressor(|d| getitem_items(d.params(), src, start, nitems, dst, None))
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
                in_chunk_bytes(src, srcsize)?,
                out_chunk_bytes(dest, destsize)?,
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
                in_chunk_bytes(src, srcsize)?,
                out_chunk_bytes(dest, destsize)?,
            )
        };
        refuse_negative_dest(destsize as i64, global_decompress(src, dst))
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
                in_chunk_bytes(src, srcsize)?,
                out_chunk_bytes(dest, destsize)?,
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
                in_chunk_bytes(src, nbytes as i64)?,
                out_chunk_bytes(dest, destsize)?,
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
        // Its destsize goes on as an int32_t, as c-blosc2 passes it (a size_t of 2^31 or more
        // turns negative there).
        let destsize = destsize as i32;
        // SAFETY: src is a complete chunk and dest holds destsize bytes, per the API.
        let (src, dst) = unsafe { (whole_chunk(src)?, out_chunk_bytes(dest, destsize)?) };
        refuse_negative_dest(destsize as i64, global_decompress(src, dst))
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
        let dst = unsafe { out_chunk_bytes(dest, want) }?;
        global_getitem(src, start, nitems, dst)
    })
}

/// A C threads callback as the core's job runner.
pub(super) struct CThreadsCallback {
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
pub(super) struct JobSlot<'a> {
    job: &'a (dyn Fn(usize) + Sync),
    index: usize,
}

/// The `dojob` the C callback calls with a pointer to one `JobSlot`.
pub(super) unsafe extern "C" fn run_job_slot(slot: *mut c_void) {
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
