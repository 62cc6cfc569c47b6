//! The opaque `blosc2_context` handle: [`Context`] (what a `blosc2_context *` points at, reached
//! through [`Castable`] on `blosc2_context_s`), [`Context::new_compress`] /
//! [`Context::new_decompress`], [`Context::into_handle`] / [`Context::free_handle`], and
//! [`OwnedContext`], a handle Rust code owns until it gives it to C.

use std::ptr;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use crate::capi::ffi::Castable;
use crate::capi::params::{cparams_from_c_with, dparams_from_c_with};
use crate::capi::types::*;
use crate::chunk::decompress::LazyBlocks;
use crate::chunk::params::ArrayLayout;
use crate::chunk::{CParams, Compressor, DParams, Decompressor};
use crate::{Error, Result};

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

    /// Frees a handle (NULL is ignored).
    ///
    /// # Safety
    /// `h` is NULL or a live handle from [`Context::into_handle`], not used afterwards.
    pub unsafe fn free_handle(h: *mut blosc2_context_s) {
        if !h.is_null() {
            // A tuner plugin's block for this context goes with it.
            crate::capi::tuner::forget_context(h);
            // SAFETY: per the contract, h came from Box::into_raw in into_handle.
            drop(unsafe { blosc2_context_s::try_take(h) });
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
// SAFETY: every `blosc2_context *` the library hands out is a leaked Box<Context>
// (Context::into_handle).
unsafe impl Castable for blosc2_context_s {
    type RustType = Context;
}

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
