//! Conversions between the C parameter structs (`blosc2_cparams`, `blosc2_dparams`) and the
//! core's (`chunk::CParams`, `chunk::DParams`): [`cparams_from_c`] / [`cparams_to_c`],
//! [`dparams_from_c`] / [`dparams_to_c`]. The C-only fields (schunk back-pointer,
//! prefilter/postfilter and their params, tuner and plugin params) travel inside the core params
//! as [`CExtras`]/[`DExtras`] (`CParams::owner`), so a round trip C -> core -> C gives the same
//! struct back. The C callbacks are wrapped in `capi::callbacks`; the `blosc2_context` handle is
//! `capi::context`.

use std::ptr;
use std::sync::Arc;

use libc::{c_int, c_void};

use crate::capi::callbacks::{CPostfilter, CPrefilter};
use crate::capi::plugin_loader::ensure_plugin_codecs;
use crate::capi::types::*;
use crate::chunk::params::{BlockCallback, UserCodec, UserFilter};
use crate::chunk::{pipeline, registry, CParams, DParams};
use crate::codecs;

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

pub(crate) fn cparams_from_c_with(c: &blosc2_cparams, handle: Option<&HandleCell>) -> CParams {
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

pub(crate) fn dparams_from_c_with(c: &blosc2_dparams, handle: Option<&HandleCell>) -> DParams {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capi::context::Context;
    use crate::capi::ffi::Castable;
    use crate::chunk::Decompressor;

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
        let ctx = unsafe { blosc2_context_s::try_mut(h) }.ok().unwrap();
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
