//! Conversions between the C parameter structs (`blosc2_cparams`, `blosc2_dparams`) and the
//! core's (`chunk::CParams`, `chunk::DParams`), the C callbacks wrapped as core traits, and the
//! opaque `blosc2_context` handle.
//!
//! Stable names other C-layer files build on (super-chunk, b2nd):
//! - [`cparams_from_c`] / [`cparams_to_c`], [`dparams_from_c`] / [`dparams_to_c`]: the C-only
//!   fields (schunk back-pointer, prefilter/postfilter and their params, tuner and plugin
//!   params) travel inside the core params as [`CExtras`]/[`DExtras`] (`CParams::owner`), so
//!   a round trip C -> core -> C gives the same struct back.
//! - [`Context`], [`Context::new_compress`], [`Context::new_decompress`], [`Context::into_handle`],
//!   [`Context::from_handle`], [`Context::free_handle`]: the `blosc2_context *` a C caller holds.

use std::ptr;
use std::sync::atomic::Ordering;
use std::sync::{Arc, OnceLock};

use libc::{c_int, c_void};

use crate::capi::plugin_loader;
use crate::capi::types::*;
use crate::chunk::decompress::LazyBlocks;
use crate::chunk::params::{ArrayLayout, BlockCallback, BlockInfo, UserCodec, UserFilter};
use crate::chunk::{pipeline, registry, CParams, Compressor, DParams, Decompressor};
use crate::codecs::{self, names};
use crate::{Error, Result};

/// The C-only fields of a `blosc2_cparams`, kept in `CParams::owner`.
#[derive(Clone, Copy)]
pub(crate) struct CExtras {
    pub schunk: *mut c_void,
    pub prefilter: blosc2_prefilter_fn,
    pub preparams: *mut blosc2_prefilter_params,
    pub tuner_params: *mut c_void,
    pub tuner_id: c_int,
    pub codec_params: *mut c_void,
    pub filter_params: [*mut c_void; 6],
}

// SAFETY: the pointers are opaque tokens the C caller handed us; the core never dereferences
// them and the callbacks that receive them are the caller's, who made them shareable.
unsafe impl Send for CExtras {}
// SAFETY: as for Send: read-only copies of caller-owned pointers.
unsafe impl Sync for CExtras {}

impl CExtras {
    /// All NULL and 0: what params that did not come from C have.
    fn is_unset(&self) -> bool {
        self.schunk.is_null()
            && self.prefilter.is_none()
            && self.preparams.is_null()
            && self.tuner_params.is_null()
            && self.tuner_id == 0
            && self.codec_params.is_null()
            && self.filter_params.iter().all(|p| p.is_null())
    }
}

/// The C-only fields of a `blosc2_dparams`, kept in `DParams::owner`.
#[derive(Clone, Copy)]
pub(crate) struct DExtras {
    pub schunk: *mut c_void,
    pub postfilter: blosc2_postfilter_fn,
    pub postparams: *mut blosc2_postfilter_params,
}

// SAFETY: see CExtras.
unsafe impl Send for DExtras {}
// SAFETY: see CExtras.
unsafe impl Sync for DExtras {}

fn c_extras(p: &CParams) -> Option<&CExtras> {
    p.owner.as_ref().and_then(|o| o.downcast_ref::<CExtras>())
}

fn d_extras(p: &DParams) -> Option<&DExtras> {
    p.owner.as_ref().and_then(|o| o.downcast_ref::<DExtras>())
}

/// Whether both parameters carry the back-pointer to the super-chunk `schunk`.
pub(crate) fn bound_to(c: &CParams, d: &DParams, schunk: *mut c_void) -> bool {
    c_extras(c).is_some_and(|x| x.schunk == schunk)
        && d_extras(d).is_some_and(|x| x.schunk == schunk)
}

/// The current chunk number of the super-chunk a context belongs to, -1 without one (what
/// c-blosc2 puts in the pre/postfilter params' `nchunk`).
fn current_nchunk(schunk: *mut c_void) -> i64 {
    if schunk.is_null() {
        return -1;
    }
    // SAFETY: a non-NULL `schunk` in cparams/dparams is the `blosc2_schunk` that owns the
    // context (the super-chunk layer sets it, or the caller did, per c-blosc2's contract), and
    // it outlives its contexts.
    unsafe { (*schunk.cast::<blosc2_schunk>()).current_nchunk }
}

/// The `blosc2_context *` c-blosc2 hands a pre/postfilter: the context its parameters belong
/// to, else the super-chunk's context (`pick`: its `cctx` or `dctx`, through which c-blosc2
/// compresses and decompresses a super-chunk's chunks), else NULL.
fn context_of(
    handle: &HandleCell,
    schunk: *mut c_void,
    pick: fn(&blosc2_schunk) -> *mut blosc2_context_s,
) -> *mut blosc2_context_s {
    let own = handle.load(Ordering::Acquire);
    if !own.is_null() || schunk.is_null() {
        return own;
    }
    // SAFETY: a non-NULL `schunk` in cparams/dparams is the `blosc2_schunk` that owns these
    // parameters (the super-chunk layer sets it, or the caller did per c-blosc2's contract),
    // and it outlives the (de)compressions made with them.
    pick(unsafe { &*schunk.cast::<blosc2_schunk>() })
}

/// Runs `f` with this thread's scratch buffer for a callback on a block of `block_len` bytes
/// (c-blosc2 lends its worker's temporary buffer, 4 blocks plus 64 bytes, as `ttmp`).
fn with_callback_scratch(block_len: usize, f: impl FnOnce(&mut [u8]) -> c_int) -> c_int {
    thread_local! {
        static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    let n = 4 * block_len + 64;
    SCRATCH.with(|s| match s.try_borrow_mut() {
        Ok(mut buf) => {
            if buf.len() < n {
                buf.resize(n, 0);
            }
            f(&mut buf[..n])
        }
        // A callback that re-enters the library on this thread gets a buffer of its own.
        Err(_) => f(&mut vec![0u8; n]),
    })
}

/// A C prefilter wrapped as a core block callback.
struct CPrefilter {
    func: unsafe extern "C" fn(*mut blosc2_prefilter_params) -> c_int,
    /// The caller's params (user_data is what the callback needs from it).
    user_data: *mut c_void,
    /// The params' `output_is_disposable` when the context was made (c-blosc2 reads its copy
    /// of them; what a prefilter writes in the params it is called with is not read back).
    disposable: bool,
    schunk: *mut c_void,
    handle: HandleCell,
}

// SAFETY: the raw pointers are caller-owned tokens passed back to the caller's own callback;
// c-blosc2 calls prefilters from its worker threads the same way.
unsafe impl Send for CPrefilter {}
// SAFETY: see Send; the wrapper itself is never mutated.
unsafe impl Sync for CPrefilter {}

impl BlockCallback for CPrefilter {
    fn call(&self, input: &[u8], output: &mut [u8], block: BlockInfo) -> i32 {
        with_callback_scratch(output.len(), |ttmp| {
            let mut p = blosc2_prefilter_params {
                user_data: self.user_data,
                input: input.as_ptr(),
                output: output.as_mut_ptr(),
                output_size: output.len() as i32,
                output_typesize: block.typesize,
                output_offset: block.offset,
                nchunk: current_nchunk(self.schunk),
                nblock: block.nblock,
                tid: block.tid,
                ttmp: ttmp.as_mut_ptr(),
                ttmp_nbytes: ttmp.len(),
                ctx: context_of(&self.handle, self.schunk, |s| s.cctx),
                output_is_disposable: self.disposable,
            };
            // SAFETY: `func` is the caller's prefilter; input, output and ttmp are valid for
            // the sizes given.
            unsafe { (self.func)(&mut p) }
        })
    }

    fn output_is_disposable(&self) -> bool {
        self.disposable
    }
}

/// A C postfilter wrapped as a core block callback.
struct CPostfilter {
    func: unsafe extern "C" fn(*mut blosc2_postfilter_params) -> c_int,
    user_data: *mut c_void,
    schunk: *mut c_void,
    handle: HandleCell,
}

// SAFETY: see CPrefilter.
unsafe impl Send for CPostfilter {}
// SAFETY: see CPrefilter.
unsafe impl Sync for CPostfilter {}

impl BlockCallback for CPostfilter {
    fn call(&self, input: &[u8], output: &mut [u8], block: BlockInfo) -> i32 {
        with_callback_scratch(output.len(), |ttmp| {
            let mut p = blosc2_postfilter_params {
                user_data: self.user_data,
                input: input.as_ptr(),
                output: output.as_mut_ptr(),
                size: output.len() as i32,
                typesize: block.typesize,
                offset: block.offset,
                nchunk: current_nchunk(self.schunk),
                nblock: block.nblock,
                tid: block.tid,
                ttmp: ttmp.as_mut_ptr(),
                ttmp_nbytes: ttmp.len(),
                ctx: context_of(&self.handle, self.schunk, |s| s.dctx),
            };
            // SAFETY: `func` is the caller's postfilter; input, output and ttmp are valid for
            // the sizes given.
            unsafe { (self.func)(&mut p) }
        })
    }
}

/// A codec registered from C (`blosc2_register_codec`), as the core's registry holds it.
/// Registered without an encoder or decoder, it loads them from its plugin library
/// (`libblosc2_<name>.so`, see `plugin_loader`) when a chunk first needs the missing one.
pub(crate) struct CCodec {
    pub name: String,
    pub encoder: blosc2_codec_encoder_cb,
    pub decoder: blosc2_codec_decoder_cb,
    pub loaded: OnceLock<(blosc2_codec_encoder_cb, blosc2_codec_decoder_cb)>,
}

// SAFETY: plain function pointers.
unsafe impl Send for CCodec {}
// SAFETY: plain function pointers.
unsafe impl Sync for CCodec {}

impl CCodec {
    pub fn new(
        name: String,
        encoder: blosc2_codec_encoder_cb,
        decoder: blosc2_codec_decoder_cb,
    ) -> Self {
        CCodec {
            name,
            encoder,
            decoder,
            loaded: OnceLock::new(),
        }
    }

    /// The plugin's encoder and decoder, loaded on first success (a failure is retried).
    fn plugin(&self) -> Option<(blosc2_codec_encoder_cb, blosc2_codec_decoder_cb)> {
        if let Some(pair) = self.loaded.get() {
            return Some(*pair);
        }
        let f = plugin_loader::load_plugin(&self.name)?;
        // SAFETY: the plugin interface makes `info.encoder`/`info.decoder` name functions of
        // c-blosc2's encoder/decoder signatures; both addresses are non-NULL.
        let pair = unsafe {
            (
                std::mem::transmute::<*mut c_void, blosc2_codec_encoder_cb>(f.first),
                std::mem::transmute::<*mut c_void, blosc2_codec_decoder_cb>(f.second),
            )
        };
        Some(*self.loaded.get_or_init(|| pair))
    }
}

impl UserCodec for CCodec {
    fn encoder_available(&self) -> bool {
        self.encoder.is_some() || self.plugin().is_some_and(|p| p.0.is_some())
    }

    fn decoder_available(&self) -> bool {
        self.decoder.is_some() || self.plugin().is_some_and(|p| p.1.is_some())
    }

    fn encode(&self, src: &[u8], dst: &mut [u8], meta: u8, params: &CParams, source: &[u8]) -> i32 {
        let encoder = self.encoder.or_else(|| self.plugin().and_then(|p| p.0));
        let Some(encoder) = encoder else {
            return Error::CodecSupport.code();
        };
        // Each call gets its own copy, whose `schunk` is the context's super-chunk.
        let mut cp = cparams_to_c(params);
        // SAFETY: the caller's encoder, given buffers valid for the lengths passed.
        unsafe {
            encoder(
                src.as_ptr(),
                src.len() as i32,
                dst.as_mut_ptr(),
                dst.len() as i32,
                meta,
                &mut cp,
                source.as_ptr().cast(),
            )
        }
    }

    fn decode(
        &self,
        src: &[u8],
        dst: &mut [u8],
        meta: u8,
        params: &DParams,
        chunk: &[u8],
        typesize: i32,
    ) -> i32 {
        let decoder = self.decoder.or_else(|| self.plugin().and_then(|p| p.1));
        let Some(decoder) = decoder else {
            return Error::CodecSupport.code();
        };
        let mut dp = dparams_to_c(params);
        // c-blosc2 reports the chunk's typesize in the dparams it gives codecs (blosc2-openzl
        // reads it).
        dp.typesize = typesize;
        // SAFETY: the caller's decoder, given buffers valid for the lengths passed.
        unsafe {
            decoder(
                src.as_ptr(),
                src.len() as i32,
                dst.as_mut_ptr(),
                dst.len() as i32,
                meta,
                &mut dp,
                chunk.as_ptr().cast(),
            )
        }
    }
}

/// A filter registered from C (`blosc2_register_filter`). Registered without its forward or
/// backward function, it loads them from its plugin library as [`CCodec`] does.
pub(crate) struct CFilter {
    pub id: u8,
    pub name: String,
    pub forward: blosc2_filter_forward_cb,
    pub backward: blosc2_filter_backward_cb,
    pub loaded: OnceLock<(blosc2_filter_forward_cb, blosc2_filter_backward_cb)>,
}

// SAFETY: plain function pointers.
unsafe impl Send for CFilter {}
// SAFETY: plain function pointers.
unsafe impl Sync for CFilter {}

impl CFilter {
    pub fn new(
        id: u8,
        name: String,
        forward: blosc2_filter_forward_cb,
        backward: blosc2_filter_backward_cb,
    ) -> Self {
        CFilter {
            id,
            name,
            forward,
            backward,
            loaded: OnceLock::new(),
        }
    }

    /// The plugin's forward and backward functions, loaded on first success.
    fn plugin(&self) -> Option<(blosc2_filter_forward_cb, blosc2_filter_backward_cb)> {
        if let Some(pair) = self.loaded.get() {
            return Some(*pair);
        }
        let f = plugin_loader::load_plugin(&self.name)?;
        // SAFETY: the plugin interface makes `info.forward`/`info.backward` name functions of
        // c-blosc2's filter signatures; both addresses are non-NULL.
        let pair = unsafe {
            (
                std::mem::transmute::<*mut c_void, blosc2_filter_forward_cb>(f.first),
                std::mem::transmute::<*mut c_void, blosc2_filter_backward_cb>(f.second),
            )
        };
        Some(*self.loaded.get_or_init(|| pair))
    }
}

impl UserFilter for CFilter {
    fn forward(
        &self,
        src: &[u8],
        dst: &mut [u8],
        meta: u8,
        params: &CParams,
        _nblock: i32,
        _typesize: i32,
    ) -> i32 {
        let forward = self.forward.or_else(|| self.plugin().and_then(|p| p.0));
        let Some(forward) = forward else {
            return Error::FilterPipeline.code();
        };
        let len = src.len().min(dst.len()) as i32;
        // `params` are the chunk's (its typesize and block size, see compress::compress).
        let mut cp = cparams_to_c(params);
        // SAFETY: the caller's filter, given `len` readable and writable bytes.
        unsafe { forward(src.as_ptr(), dst.as_mut_ptr(), len, meta, &mut cp, self.id) }
    }

    fn backward(
        &self,
        src: &[u8],
        dst: &mut [u8],
        meta: u8,
        params: &DParams,
        _nblock: i32,
        typesize: i32,
    ) -> i32 {
        let backward = self.backward.or_else(|| self.plugin().and_then(|p| p.1));
        let Some(backward) = backward else {
            return Error::FilterPipeline.code();
        };
        let len = src.len().min(dst.len()) as i32;
        let mut dp = dparams_to_c(params);
        // c-blosc2 reports the chunk's typesize in the dparams it gives filters.
        dp.typesize = typesize;
        // SAFETY: the caller's filter, given `len` readable and writable bytes.
        unsafe { backward(src.as_ptr(), dst.as_mut_ptr(), len, meta, &mut dp, self.id) }
    }
}

/// Puts the plugin codecs of [`names::CODECS`] (c-blosc2 3.3.5 registers them at init without
/// functions and loads them from `libblosc2_<name>.so` when first used) in the registry (once), before the C layer first resolves codecs for
/// a context, so a plugin built for c-blosc2 (blosc2_grok, ...) is loaded on ours the same way.
/// Their `complib` is their id, as c-blosc2 registers them.
pub(crate) fn ensure_plugin_codecs() {
    static DONE: std::sync::Once = std::sync::Once::new();
    DONE.call_once(|| {
        for c in names::plugin_codecs() {
            registry::register_global_codec(registry::CodecEntry {
                id: c.id,
                name: c.name.into(),
                complib: c.id,
                version: 1,
                codec: Arc::new(CCodec::new(c.name.into(), None, None)),
            });
        }
    });
}

/// The user codec a compression needs and the user filters it names, from the registry.
fn registered_for(compcode: u8, filters: &[u8; 6]) -> (Option<Arc<dyn UserCodec>>, UserFilters) {
    ensure_plugin_codecs();
    let codec = if codecs::is_builtin(compcode) {
        None
    } else {
        registry::codec(compcode).map(|e| e.codec)
    };
    let mut user_filters: UserFilters = Vec::new();
    for &f in filters {
        if f > pipeline::DEFINED_FILTERS_STOP && !user_filters.iter().any(|(id, _)| *id == f) {
            if let Some(e) = registry::filter(f) {
                user_filters.push((f, e.filter));
            }
        }
    }
    (codec, user_filters)
}

type UserFilters = Vec<(u8, Arc<dyn UserFilter>)>;

fn cparams_from_c_with(c: &blosc2_cparams, handle: Option<&HandleCell>) -> CParams {
    crate::chunk::compress::set_tuning_report(crate::capi::chunk::print_tuning_info);
    let (user_codec, user_filters) = registered_for(c.compcode, &c.filters);
    let prefilter = c.prefilter.map(|func| {
        let (user_data, disposable) = if c.preparams.is_null() {
            (ptr::null_mut(), false)
        } else {
            // SAFETY: a non-NULL preparams points to the caller's prefilter params.
            let p = unsafe { &*c.preparams };
            (p.user_data, p.output_is_disposable)
        };
        Arc::new(CPrefilter {
            func,
            user_data,
            disposable,
            schunk: c.schunk,
            handle: handle.cloned().unwrap_or_default(),
        }) as Arc<dyn BlockCallback>
    });
    let extras = CExtras {
        schunk: c.schunk,
        prefilter: c.prefilter,
        preparams: c.preparams,
        tuner_params: c.tuner_params,
        tuner_id: c.tuner_id,
        codec_params: c.codec_params,
        filter_params: c.filter_params,
    };
    // Nothing C-only set: no owner, which `cparams_to_c` reads back as the same NULLs and 0
    // (one allocation less per context, which c-blosc2 does not make either).
    let owner = (!extras.is_unset()).then(|| Arc::new(extras) as crate::chunk::params::Owner);
    CParams {
        compcode: c.compcode,
        compcode_meta: c.compcode_meta,
        clevel: c.clevel,
        use_dict: c.use_dict != 0,
        typesize: c.typesize,
        nthreads: c.nthreads,
        blocksize: c.blocksize,
        splitmode: c.splitmode,
        filters: c.filters,
        filters_meta: c.filters_meta,
        instr_codec: c.instr_codec,
        legacy_header: false,
        prefilter,
        user_codec,
        user_filters,
        layout: None,
        // Set by the context constructors that know the super-chunk (see schunk_typesize).
        schunk_typesize: None,
        tuner: crate::capi::tuner::hook_for(c, handle),
        owner,
    }
}

/// The core's parameters for a `blosc2_cparams`: the user codec and filters it names come from
/// the global registry (absent ones are left out, so compressing fails as in c-blosc2), a
/// prefilter is wrapped as a `BlockCallback` (its `ctx` is NULL outside a context), and the
/// C-only fields ride along in `owner` for [`cparams_to_c`].
pub(crate) fn cparams_from_c(c: &blosc2_cparams) -> CParams {
    cparams_from_c_with(c, None)
}

/// The `blosc2_cparams` for core parameters: the inverse of [`cparams_from_c`]. Params that did
/// not come from C get NULL for the C-only fields.
pub(crate) fn cparams_to_c(p: &CParams) -> blosc2_cparams {
    let x = c_extras(p).copied().unwrap_or(CExtras {
        schunk: ptr::null_mut(),
        prefilter: None,
        preparams: ptr::null_mut(),
        tuner_params: ptr::null_mut(),
        tuner_id: 0,
        codec_params: ptr::null_mut(),
        filter_params: [ptr::null_mut(); 6],
    });
    blosc2_cparams {
        compcode: p.compcode,
        compcode_meta: p.compcode_meta,
        clevel: p.clevel,
        use_dict: p.use_dict as c_int,
        typesize: p.typesize,
        nthreads: p.nthreads,
        blocksize: p.blocksize,
        splitmode: p.splitmode,
        schunk: x.schunk,
        filters: p.filters,
        filters_meta: p.filters_meta,
        prefilter: x.prefilter,
        preparams: x.preparams,
        tuner_params: x.tuner_params,
        tuner_id: x.tuner_id,
        instr_codec: p.instr_codec,
        codec_params: x.codec_params,
        filter_params: x.filter_params,
    }
}

fn dparams_from_c_with(c: &blosc2_dparams, handle: Option<&HandleCell>) -> DParams {
    let postfilter = c.postfilter.map(|func| {
        let user_data = if c.postparams.is_null() {
            ptr::null_mut()
        } else {
            // SAFETY: a non-NULL postparams points to the caller's postfilter params.
            unsafe { (*c.postparams).user_data }
        };
        Arc::new(CPostfilter {
            func,
            user_data,
            schunk: c.schunk,
            handle: handle.cloned().unwrap_or_default(),
        }) as Arc<dyn BlockCallback>
    });
    ensure_plugin_codecs();
    DParams {
        nthreads: c.nthreads,
        typesize: c.typesize,
        postfilter,
        user_codecs: registry::all_codecs(),
        user_filters: registry::all_filters(),
        layout: None,
        schunk_typesize: None,
        // Nothing C-only set: no owner (an allocation per context), which `dparams_to_c` reads
        // back as the same NULLs.
        owner: (!c.schunk.is_null() || c.postfilter.is_some() || !c.postparams.is_null()).then(
            || {
                Arc::new(DExtras {
                    schunk: c.schunk,
                    postfilter: c.postfilter,
                    postparams: c.postparams,
                }) as crate::chunk::params::Owner
            },
        ),
    }
}

/// The core's parameters for a `blosc2_dparams`: every registered codec and filter (a chunk may
/// name any), the postfilter wrapped as a `BlockCallback`, the C-only fields in `owner`.
pub(crate) fn dparams_from_c(c: &blosc2_dparams) -> DParams {
    dparams_from_c_with(c, None)
}

/// The `blosc2_dparams` for core parameters: the inverse of [`dparams_from_c`].
pub(crate) fn dparams_to_c(p: &DParams) -> blosc2_dparams {
    let x = d_extras(p).copied().unwrap_or(DExtras {
        schunk: ptr::null_mut(),
        postfilter: None,
        postparams: ptr::null_mut(),
    });
    blosc2_dparams {
        nthreads: p.nthreads,
        schunk: x.schunk,
        postfilter: x.postfilter,
        postparams: x.postparams,
        typesize: p.typesize,
    }
}

/// A boxed context (a `blosc2_context *`) that Rust code owns: freed on drop unless given to C
/// with [`OwnedContext::into_raw`].
pub(crate) struct OwnedContext(*mut blosc2_context_s);

impl OwnedContext {
    /// The handle C will see (the one tuners receive).
    pub fn as_ptr(&self) -> *mut blosc2_context_s {
        self.0
    }

    pub fn get(&self) -> &Context {
        // SAFETY: the box made by `Context::into_owned`, alive until drop or into_raw.
        unsafe { &*self.0.cast::<Context>() }
    }

    pub fn get_mut(&mut self) -> &mut Context {
        // SAFETY: as in `get`; `&mut self` makes this the only reference made through the
        // handle (C has not seen it yet, or is not using it during this call).
        unsafe { &mut *self.0.cast::<Context>() }
    }

    /// Gives the handle to C (freed by `blosc2_free_ctx`).
    pub fn into_raw(self) -> *mut blosc2_context_s {
        let p = self.0;
        std::mem::forget(self);
        p
    }
}

impl Drop for OwnedContext {
    fn drop(&mut self) {
        // SAFETY: the box made by `Context::into_owned`, not given to C.
        unsafe { Context::free_handle(self.0) }
    }
}

/// What a context does.
pub(crate) enum Engine {
    Compress(Compressor),
    Decompress(Decompressor),
}

/// The Rust side of a `blosc2_context *`.
pub(crate) struct Context {
    pub engine: Engine,
    /// What `blosc2_ctx_get_cparams` reports (for a decompression context: c-blosc2's defaults
    /// with the dparams' thread count and schunk).
    pub cparams: blosc2_cparams,
    /// What `blosc2_ctx_get_dparams` reports.
    pub dparams: blosc2_dparams,
    /// Owned copies of the caller's pre/postfilter params, which c-blosc2 also keeps (and
    /// reports back in `ctx_get_cparams`/`ctx_get_dparams`); only held, never read here.
    #[allow(dead_code)]
    preparams: Option<Box<blosc2_prefilter_params>>,
    #[allow(dead_code)]
    postparams: Option<Box<blosc2_postfilter_params>>,
    /// The block mask for the next decompression only (`blosc2_set_maskout`).
    pub maskout: Option<Vec<bool>>,
    /// Where the blocks of lazy chunks come from: set by the layer that owns the context (a
    /// super-chunk on a frame), used by `blosc2_decompress_ctx`/`blosc2_getitem_ctx`.
    pub lazy_blocks: Option<Arc<dyn LazyBlocks + Send>>,
    /// Where the pre/postfilter and tuner of this context find its handle (None: it has none).
    handle: Option<HandleCell>,
    /// Unique among all contexts ever made: a super-chunk tells with it whether the context
    /// its client put in `schunk->cctx`/`dctx` is the one it last adopted (an address alone
    /// could be a freed context's, reused).
    pub id: u64,
}

/// The next [`Context::id`].
fn next_context_id() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

fn copy_preparams(p: *const blosc2_prefilter_params) -> Option<Box<blosc2_prefilter_params>> {
    if p.is_null() {
        return None;
    }
    // SAFETY: non-NULL per the check; blosc2_prefilter_params is plain data (pointers and ints).
    Some(Box::new(unsafe { ptr::read(p) }))
}

fn copy_postparams(p: *const blosc2_postfilter_params) -> Option<Box<blosc2_postfilter_params>> {
    if p.is_null() {
        return None;
    }
    // SAFETY: non-NULL per the check; plain data.
    Some(Box::new(unsafe { ptr::read(p) }))
}

impl Context {
    /// A compression context, boxed (it is moved no more: it is large); `adjust` may change
    /// the core params (environment overrides) before the engine is built.
    pub fn new_compress(
        cparams: &mut blosc2_cparams,
        adjust: impl FnOnce(&mut CParams),
    ) -> Result<Box<Self>> {
        // Only a prefilter or a tuner is told its context: no cell (an allocation) otherwise.
        let handle =
            (cparams.prefilter.is_some() || cparams.tuner_id > 0).then(HandleCell::default);
        let mut preparams = None;
        if cparams.prefilter.is_some() {
            preparams = copy_preparams(cparams.preparams);
            cparams.preparams = preparams
                .as_deref_mut()
                .map_or(ptr::null_mut(), |p| p as *mut _);
        }
        // The compressor's params and the context are made in the context's box: each move of
        // these structs is a memcpy call, which showed in the cost of a create + free pair.
        let core_handle = handle.clone();
        let mut ctx = Compressor::new_boxed_in(
            || {
                let mut core = cparams_from_c_with(cparams, core_handle.as_ref());
                adjust(&mut core);
                core
            },
            |compressor| Context {
                engine: Engine::Compress(compressor),
                cparams: *cparams,
                // c-blosc2's default dparams with the cparams' super-chunk (and thread count,
                // below).
                dparams: blosc2_dparams {
                    schunk: cparams.schunk,
                    ..crate::capi::library::dparams_defaults()
                },
                preparams,
                postparams: None,
                maskout: None,
                lazy_blocks: None,
                handle,
                id: next_context_id(),
            },
        )?;
        ctx.show_engine_nthreads();
        Ok(ctx)
    }

    /// A decompression context; `adjust` as for [`Context::new_compress`].
    pub fn new_decompress(
        c: &blosc2_dparams,
        adjust: impl FnOnce(&mut DParams),
    ) -> Result<Box<Self>> {
        let handle = c.postfilter.is_some().then(HandleCell::default);
        let mut dparams = *c;
        let mut postparams = None;
        if dparams.postfilter.is_some() {
            postparams = copy_postparams(dparams.postparams);
            dparams.postparams = postparams
                .as_deref_mut()
                .map_or(ptr::null_mut(), |p| p as *mut _);
        }
        // Made in its box, as a compression context is (see new_compress).
        let core_handle = handle.clone();
        let mut ctx = Decompressor::new_boxed_in(
            || {
                let mut core = dparams_from_c_with(&dparams, core_handle.as_ref());
                adjust(&mut core);
                core
            },
            |decompressor| Context {
                engine: Engine::Decompress(decompressor),
                // c-blosc2's default cparams with the dparams' super-chunk (and thread count,
                // below).
                cparams: blosc2_cparams {
                    schunk: dparams.schunk,
                    ..crate::capi::library::cparams_defaults()
                },
                dparams,
                preparams: None,
                postparams,
                maskout: None,
                lazy_blocks: None,
                handle,
                id: next_context_id(),
            },
        )?;
        ctx.show_engine_nthreads();
        Ok(ctx)
    }

    /// Boxes the context into the handle given to C (freed by [`Context::free_handle`]).
    pub fn into_handle(self: Box<Self>) -> *mut blosc2_context_s {
        let cell = self.handle.clone();
        let raw = Box::into_raw(self).cast::<blosc2_context_s>();
        if let Some(cell) = cell {
            cell.store(raw, Ordering::Release);
        }
        raw
    }

    /// Boxes the context into a handle that Rust code owns until it gives it to C.
    pub fn into_owned(self: Box<Self>) -> OwnedContext {
        OwnedContext(self.into_handle())
    }

    /// The context behind a handle, for reading only; None for NULL.
    ///
    /// # Safety
    /// `h` is NULL or a live handle from [`Context::into_handle`], not mutated meanwhile (a
    /// user callback running during a compression may read its context through this).
    pub unsafe fn ref_from_handle<'a>(h: *mut blosc2_context_s) -> Option<&'a Context> {
        // SAFETY: per the contract, a non-NULL h is a Box<Context> we leaked.
        unsafe { h.cast::<Context>().as_ref() }
    }

    /// The context behind a handle; None for NULL.
    ///
    /// # Safety
    /// `h` is NULL or a live handle from [`Context::into_handle`], not used concurrently
    /// (c-blosc2 contexts are not thread-safe either).
    pub unsafe fn from_handle<'a>(h: *mut blosc2_context_s) -> Option<&'a mut Context> {
        // SAFETY: per the contract, a non-NULL h is a Box<Context> we leaked.
        unsafe { h.cast::<Context>().as_mut() }
    }

    /// Frees a handle (NULL is ignored).
    ///
    /// # Safety
    /// `h` is NULL or a live handle from [`Context::into_handle`], not used afterwards.
    pub unsafe fn free_handle(h: *mut blosc2_context_s) {
        if !h.is_null() {
            // A tuner plugin's block for this context goes with it.
            crate::capi::tuner::forget_context(h);
            // SAFETY: per the contract, h came from Box::into_raw in into_handle.
            drop(unsafe { Box::from_raw(h.cast::<Context>()) });
        }
    }

    /// Writes the engine's thread count (the C params' after the environment and `adjust`)
    /// into both C param structs, as c-blosc2's context reports it.
    fn show_engine_nthreads(&mut self) {
        let nthreads = match &self.engine {
            Engine::Compress(c) => c.params().nthreads,
            Engine::Decompress(d) => d.params().nthreads,
        };
        self.cparams.nthreads = nthreads;
        self.dparams.nthreads = nthreads;
    }

    /// The compressor, or `InvalidParam` for a decompression context (as c-blosc2 answers).
    pub fn compressor(&self) -> Result<&Compressor> {
        match &self.engine {
            Engine::Compress(c) => Ok(c),
            Engine::Decompress(_) => Err(Error::InvalidParam),
        }
    }

    /// Hands the engine the layout of the array it works for (ndcell and ndmean need it).
    pub fn set_layout(&mut self, layout: Option<Arc<ArrayLayout>>) {
        match &mut self.engine {
            Engine::Compress(c) => c.set_layout(layout),
            Engine::Decompress(d) => d.set_layout(layout),
        }
    }

    /// The decompressor, or `InvalidParam` for a compression context.
    pub fn decompressor(&self) -> Result<&Decompressor> {
        match &self.engine {
            Engine::Decompress(d) => Ok(d),
            Engine::Compress(_) => Err(Error::InvalidParam),
        }
    }
}

/// Hands over a new compression context after running the `init` of the tuner its cparams
/// name (none for `tuner_id` <= 0), as `blosc2_create_cctx` does. During `init` the context
/// reports, as c-blosc2's does, no tuner id and no codec params yet (c-blosc2 stores both after
/// `init` returns).
pub(crate) fn boxed_with_tuner(mut ctx: Box<Context>) -> Result<OwnedContext> {
    if ctx.cparams.tuner_id <= 0 {
        return Ok(ctx.into_owned());
    }
    let cparams = ctx.cparams;
    ctx.cparams.tuner_id = 0;
    ctx.cparams.codec_params = std::ptr::null_mut();
    let mut owned = ctx.into_owned();
    crate::capi::tuner::init_context(&cparams, owned.as_ptr())?;
    let ctx = owned.get_mut();
    ctx.cparams.tuner_id = cparams.tuner_id;
    ctx.cparams.codec_params = cparams.codec_params;
    Ok(owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c_defaults() -> blosc2_cparams {
        cparams_to_c(&CParams::default())
    }

    #[test]
    fn cparams_round_trip_keeps_c_only_fields() {
        let mut c = c_defaults();
        c.compcode = codecs::ZSTD;
        c.clevel = 7;
        c.typesize = 4;
        c.nthreads = 2;
        c.blocksize = 4096;
        c.splitmode = 2;
        c.use_dict = 1;
        c.filters = [0, 0, 0, 0, 3, 1];
        c.filters_meta = [0, 0, 0, 0, 0, 9];
        let mut token = 0u8;
        c.schunk = (&mut token as *mut u8).cast();
        c.tuner_id = 7;
        c.codec_params = (&mut token as *mut u8).cast();
        let core = cparams_from_c(&c);
        assert_eq!(core.compcode, codecs::ZSTD);
        assert_eq!(core.clevel, 7);
        assert!(core.use_dict);
        assert_eq!(core.filters, [0, 0, 0, 0, 3, 1]);
        assert!(core.prefilter.is_none() && core.user_codec.is_none());
        let back = cparams_to_c(&core);
        assert_eq!(back.schunk, c.schunk);
        assert_eq!(back.codec_params, c.codec_params);
        assert_eq!(back.tuner_id, 7);
        assert_eq!(back.filters_meta, c.filters_meta);
        assert_eq!(
            (back.blocksize, back.splitmode, back.nthreads),
            (4096, 2, 2)
        );
    }

    #[test]
    fn dparams_round_trip() {
        let mut d = dparams_to_c(&DParams::default());
        d.nthreads = 3;
        d.typesize = 2;
        let core = dparams_from_c(&d);
        assert_eq!((core.nthreads, core.typesize), (3, 2));
        let back = dparams_to_c(&core);
        assert_eq!((back.nthreads, back.typesize), (3, 2));
        assert!(back.schunk.is_null() && back.postfilter.is_none());
    }

    unsafe extern "C" fn add_one(p: *mut blosc2_prefilter_params) -> c_int {
        // SAFETY: called by CPrefilter with valid params.
        let p = unsafe { &mut *p };
        let n = p.output_size as usize;
        // SAFETY: input and output hold output_size bytes.
        let (i, o) = unsafe {
            (
                std::slice::from_raw_parts(p.input, n),
                std::slice::from_raw_parts_mut(p.output, n),
            )
        };
        for (o, i) in o.iter_mut().zip(i) {
            // SAFETY: the test's user_data points to one byte.
            *o = i.wrapping_add(unsafe { *p.user_data.cast::<u8>() });
        }
        assert_eq!(p.nchunk, -1);
        assert!(!p.ctx.is_null());
        0
    }

    #[test]
    fn prefilter_runs_through_a_context() {
        let mut delta_add = 1u8;
        let mut pre = blosc2_prefilter_params {
            user_data: (&mut delta_add as *mut u8).cast(),
            input: ptr::null(),
            output: ptr::null_mut(),
            output_size: 0,
            output_typesize: 0,
            output_offset: 0,
            nchunk: 0,
            nblock: 0,
            tid: 0,
            ttmp: ptr::null_mut(),
            ttmp_nbytes: 0,
            ctx: ptr::null_mut(),
            output_is_disposable: false,
        };
        let mut c = c_defaults();
        c.typesize = 1;
        c.prefilter = Some(add_one);
        c.preparams = &mut pre;
        let ctx = Context::new_compress(&mut { c }, |_| {}).unwrap();
        assert_ne!(
            ctx.cparams.preparams, c.preparams,
            "the context keeps its own copy"
        );
        let h = ctx.into_handle();
        // SAFETY: h is live until free_handle below.
        let ctx = unsafe { Context::from_handle(h) }.unwrap();
        let src: Vec<u8> = (0..1000u32).map(|i| (i % 7) as u8).collect();
        let mut chunk = vec![0u8; 2000];
        let n = ctx
            .compressor()
            .unwrap()
            .compress(&src, &mut chunk)
            .unwrap();
        assert!(ctx.decompressor().is_err());
        let d = Decompressor::new(DParams::default()).unwrap();
        let mut out = vec![0u8; 1000];
        d.decompress(&chunk[..n], &mut out, None).unwrap();
        assert!(out.iter().zip(&src).all(|(o, s)| *o == s + 1));
        // SAFETY: h came from into_handle and is not used afterwards.
        unsafe { Context::free_handle(h) };
    }
}
