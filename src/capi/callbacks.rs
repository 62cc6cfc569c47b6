//! The C callbacks of a compression, wrapped as the core's traits: the prefilter and postfilter
//! (`BlockCallback`) and the codecs and filters registered from C (`UserCodec`, `UserFilter`).

use std::sync::atomic::Ordering;
use std::sync::OnceLock;

use libc::{c_int, c_void};

use crate::capi::params::{cparams_to_c, dparams_to_c};
use crate::capi::plugin_loader;
use crate::capi::types::*;
use crate::chunk::params::{BlockCallback, BlockInfo, UserCodec, UserFilter};
use crate::chunk::{CParams, DParams};
use crate::Error;

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
pub(crate) struct CPrefilter {
    pub func: unsafe extern "C" fn(*mut blosc2_prefilter_params) -> c_int,
    /// The caller's params (user_data is what the callback needs from it).
    pub user_data: *mut c_void,
    /// The params' `output_is_disposable` when the context was made (c-blosc2 reads its copy
    /// of them; what a prefilter writes in the params it is called with is not read back).
    pub disposable: bool,
    pub schunk: *mut c_void,
    pub handle: HandleCell,
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
pub(crate) struct CPostfilter {
    pub func: unsafe extern "C" fn(*mut blosc2_postfilter_params) -> c_int,
    pub user_data: *mut c_void,
    pub schunk: *mut c_void,
    pub handle: HandleCell,
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
