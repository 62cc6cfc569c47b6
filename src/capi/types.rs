//! `#[repr(C)]` mirrors of every public C struct, the callback typedefs and the opaque handles.
//!
//! Layouts must equal c-blosc2 3.3.5's (`api-diff` checks size, alignment, field names, types and
//! offsets). build.rs decides which header each type is emitted into (see `HEADER_TYPES`).
#![allow(non_camel_case_types)]

use libc::{c_char, c_int, c_void, FILE};
use std::sync::atomic::AtomicPtr;
use std::sync::Arc;
pub type blosc_threads_callback = Option<
    unsafe extern "C" fn(
        *mut c_void,
        Option<unsafe extern "C" fn(*mut c_void)>,
        c_int,
        usize,
        *mut c_void,
    ),
>;
pub type blosc2_open_cb =
    Option<unsafe extern "C" fn(*const c_char, *const c_char, *mut c_void) -> *mut c_void>;
pub type blosc2_close_cb = Option<unsafe extern "C" fn(*mut c_void) -> c_int>;
pub type blosc2_size_cb = Option<unsafe extern "C" fn(*mut c_void) -> i64>;
pub type blosc2_write_cb =
    Option<unsafe extern "C" fn(*const c_void, i64, i64, i64, *mut c_void) -> i64>;
pub type blosc2_read_cb =
    Option<unsafe extern "C" fn(*mut *mut c_void, i64, i64, i64, *mut c_void) -> i64>;
pub type blosc2_truncate_cb = Option<unsafe extern "C" fn(*mut c_void, i64) -> c_int>;
pub type blosc2_destroy_cb = Option<unsafe extern "C" fn(*mut c_void) -> c_int>;
pub type blosc2_prefilter_fn = Option<unsafe extern "C" fn(*mut blosc2_prefilter_params) -> c_int>;
pub type blosc2_postfilter_fn =
    Option<unsafe extern "C" fn(*mut blosc2_postfilter_params) -> c_int>;
pub type blosc2_codec_encoder_cb = Option<
    unsafe extern "C" fn(
        *const u8,
        i32,
        *mut u8,
        i32,
        u8,
        *mut blosc2_cparams,
        *const c_void,
    ) -> c_int,
>;
pub type blosc2_codec_decoder_cb = Option<
    unsafe extern "C" fn(
        *const u8,
        i32,
        *mut u8,
        i32,
        u8,
        *mut blosc2_dparams,
        *const c_void,
    ) -> c_int,
>;
pub type blosc2_filter_forward_cb =
    Option<unsafe extern "C" fn(*const u8, *mut u8, i32, u8, *mut blosc2_cparams, u8) -> c_int>;
pub type blosc2_filter_backward_cb =
    Option<unsafe extern "C" fn(*const u8, *mut u8, i32, u8, *mut blosc2_dparams, u8) -> c_int>;

#[repr(C)]
pub struct chunk_cache_s {
    pub data: *mut u8,
    pub nchunk: i64,
}

/// Opaque to C.
pub struct b2nd_context_s {
    _private: [u8; 0],
}

#[repr(C)]
pub struct b2nd_array_t {
    pub sc: *mut blosc2_schunk,
    pub shape: [i64; 16],
    pub chunkshape: [i32; 16],
    pub extshape: [i64; 16],
    pub blockshape: [i32; 16],
    pub extchunkshape: [i64; 16],
    pub nitems: i64,
    pub chunknitems: i32,
    pub extnitems: i64,
    pub blocknitems: i32,
    pub extchunknitems: i64,
    pub ndim: i8,
    pub chunk_cache: chunk_cache_s,
    pub item_array_strides: [i64; 16],
    pub item_chunk_strides: [i64; 16],
    pub item_extchunk_strides: [i64; 16],
    pub item_block_strides: [i64; 16],
    pub block_chunk_strides: [i64; 16],
    pub chunk_array_strides: [i64; 16],
    pub dtype: *mut c_char,
    pub dtype_format: i8,
    pub last_tick: i64,
}

#[repr(C)]
pub struct blosc2_instr {
    pub cratio: f32,
    pub cspeed: f32,
    pub filter_speed: f32,
    pub flags: [u8; 4],
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct blosc2_io_cb {
    pub id: u8,
    pub name: *mut c_char,
    pub is_allocation_necessary: bool,
    pub open: blosc2_open_cb,
    pub close: blosc2_close_cb,
    pub size: blosc2_size_cb,
    pub write: blosc2_write_cb,
    pub read: blosc2_read_cb,
    pub truncate: blosc2_truncate_cb,
    pub destroy: blosc2_destroy_cb,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct blosc2_io {
    pub id: u8,
    pub name: *const c_char,
    pub params: *mut c_void,
}

/// Opaque to C.
pub struct blosc2_context_s {
    _private: [u8; 0],
}

#[repr(C)]
pub struct blosc2_tuner {
    pub init: Option<
        unsafe extern "C" fn(*mut c_void, *mut blosc2_context_s, *mut blosc2_context_s) -> c_int,
    >,
    pub next_blocksize: Option<unsafe extern "C" fn(*mut blosc2_context_s) -> c_int>,
    pub next_cparams: Option<unsafe extern "C" fn(*mut blosc2_context_s) -> c_int>,
    pub update: Option<unsafe extern "C" fn(*mut blosc2_context_s, f64) -> c_int>,
    pub free: Option<unsafe extern "C" fn(*mut blosc2_context_s) -> c_int>,
    pub id: c_int,
    pub name: *mut c_char,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct blosc2_prefilter_params {
    pub user_data: *mut c_void,
    pub input: *const u8,
    pub output: *mut u8,
    pub output_size: i32,
    pub output_typesize: i32,
    pub output_offset: i32,
    pub nchunk: i64,
    pub nblock: i32,
    pub tid: i32,
    pub ttmp: *mut u8,
    pub ttmp_nbytes: usize,
    pub ctx: *mut blosc2_context_s,
    pub output_is_disposable: bool,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct blosc2_postfilter_params {
    pub user_data: *mut c_void,
    pub input: *const u8,
    pub output: *mut u8,
    pub size: i32,
    pub typesize: i32,
    pub offset: i32,
    pub nchunk: i64,
    pub nblock: i32,
    pub tid: i32,
    pub ttmp: *mut u8,
    pub ttmp_nbytes: usize,
    pub ctx: *mut blosc2_context_s,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct blosc2_cparams {
    pub compcode: u8,
    pub compcode_meta: u8,
    pub clevel: u8,
    pub use_dict: c_int,
    pub typesize: i32,
    pub nthreads: i16,
    pub blocksize: i32,
    pub splitmode: i32,
    pub schunk: *mut c_void,
    pub filters: [u8; 6],
    pub filters_meta: [u8; 6],
    pub prefilter: blosc2_prefilter_fn,
    pub preparams: *mut blosc2_prefilter_params,
    pub tuner_params: *mut c_void,
    pub tuner_id: c_int,
    pub instr_codec: bool,
    pub codec_params: *mut c_void,
    pub filter_params: [*mut c_void; 6],
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct blosc2_dparams {
    pub nthreads: i16,
    pub schunk: *mut c_void,
    pub postfilter: blosc2_postfilter_fn,
    pub postparams: *mut blosc2_postfilter_params,
    pub typesize: i32,
}

#[repr(C)]
pub struct blosc2_storage {
    pub contiguous: bool,
    pub urlpath: *mut c_char,
    pub cparams: *mut blosc2_cparams,
    pub dparams: *mut blosc2_dparams,
    pub io: *mut blosc2_io,
}

/// Opaque to C.
pub struct blosc2_frame_s {
    _private: [u8; 0],
}

#[repr(C)]
pub struct blosc2_metalayer {
    pub name: *mut c_char,
    pub content: *mut u8,
    pub content_len: i32,
}

#[repr(C)]
pub struct blosc2_schunk {
    pub version: u8,
    pub compcode: u8,
    pub compcode_meta: u8,
    pub clevel: u8,
    pub splitmode: u8,
    pub typesize: i32,
    pub blocksize: i32,
    pub chunksize: i32,
    pub flags2: u8,
    pub use_dict: u8,
    pub filters: [u8; 6],
    pub filters_meta: [u8; 6],
    pub nchunks: i64,
    pub current_nchunk: i64,
    pub nbytes: i64,
    pub cbytes: i64,
    pub data: *mut *mut u8,
    pub data_len: usize,
    pub storage: *mut blosc2_storage,
    pub frame: *mut blosc2_frame_s,
    pub cctx: *mut blosc2_context_s,
    pub dctx: *mut blosc2_context_s,
    pub metalayers: [*mut blosc2_metalayer; 16],
    pub nmetalayers: u16,
    pub vlmetalayers: [*mut blosc2_metalayer; 8192],
    pub nvlmetalayers: i16,
    pub tuner_params: *mut c_void,
    pub tuner_id: c_int,
    pub ndim: i8,
    pub blockshape: *mut i64,
    pub view: bool,
    pub change_tick: i64,
}

#[repr(C)]
pub struct blosc2_codec {
    pub compcode: u8,
    pub compname: *mut c_char,
    pub complib: u8,
    pub version: u8,
    pub encoder: blosc2_codec_encoder_cb,
    pub decoder: blosc2_codec_decoder_cb,
}

#[repr(C)]
pub struct blosc2_filter {
    pub id: u8,
    pub name: *mut c_char,
    pub version: u8,
    pub forward: blosc2_filter_forward_cb,
    pub backward: blosc2_filter_backward_cb,
}

#[repr(C)]
pub struct blosc2_stdio_file {
    pub file: *mut FILE,
}

#[repr(C)]
pub struct blosc2_stdio_params {
    pub locking: bool,
}

#[repr(C)]
pub struct blosc2_stdio_mmap {
    pub mode: *const c_char,
    pub initial_mapping_size: usize,
    pub needs_free: bool,
    pub addr: *mut c_char,
    pub urlpath: *mut c_char,
    pub file_size: usize,
    pub mapping_size: usize,
    pub is_memory_only: bool,
    pub file: *mut FILE,
    pub fd: c_int,
    pub access_flags: i64,
    pub map_flags: i64,
}

#[repr(C)]
pub struct codec_info {
    pub encoder: *mut c_char,
    pub decoder: *mut c_char,
}

#[repr(C)]
pub struct filter_info {
    pub forward: *mut c_char,
    pub backward: *mut c_char,
}

#[repr(C)]
pub struct tuner_info {
    pub init: *mut c_char,
    pub next_blocksize: *mut c_char,
    pub next_cparams: *mut c_char,
    pub update: *mut c_char,
    pub free: *mut c_char,
}

// The typedef names of the headers; cbindgen emits them, Rust code names the structs.
#[allow(dead_code)]
pub type blosc2_context = blosc2_context_s;
#[allow(dead_code)]
pub type blosc2_frame = blosc2_frame_s;
#[allow(dead_code)]
pub type b2nd_context_t = b2nd_context_s;

/// Where a context's callbacks find the context handle they report in `ctx` (known only once
/// the context is boxed, after the params were converted).
pub(crate) type HandleCell = Arc<AtomicPtr<blosc2_context_s>>;

// The reference layouts (c-blosc2 3.3.5 on LP64), checked at compile time.
#[cfg(target_pointer_width = "64")]
const _: () = {
    use std::mem::{align_of, size_of};
    assert!(size_of::<b2nd_array_t>() == 1376 && align_of::<b2nd_array_t>() == 8);
    assert!(size_of::<blosc2_codec>() == 40 && align_of::<blosc2_codec>() == 8);
    assert!(size_of::<blosc2_cparams>() == 136 && align_of::<blosc2_cparams>() == 8);
    assert!(size_of::<blosc2_dparams>() == 40 && align_of::<blosc2_dparams>() == 8);
    assert!(size_of::<blosc2_filter>() == 40 && align_of::<blosc2_filter>() == 8);
    assert!(size_of::<blosc2_instr>() == 16 && align_of::<blosc2_instr>() == 4);
    assert!(size_of::<blosc2_io>() == 24 && align_of::<blosc2_io>() == 8);
    assert!(size_of::<blosc2_io_cb>() == 80 && align_of::<blosc2_io_cb>() == 8);
    assert!(size_of::<blosc2_metalayer>() == 24 && align_of::<blosc2_metalayer>() == 8);
    assert!(
        size_of::<blosc2_postfilter_params>() == 80 && align_of::<blosc2_postfilter_params>() == 8
    );
    assert!(
        size_of::<blosc2_prefilter_params>() == 88 && align_of::<blosc2_prefilter_params>() == 8
    );
    assert!(size_of::<blosc2_schunk>() == 65840 && align_of::<blosc2_schunk>() == 8);
    assert!(size_of::<blosc2_stdio_file>() == 8 && align_of::<blosc2_stdio_file>() == 8);
    assert!(size_of::<blosc2_stdio_mmap>() == 96 && align_of::<blosc2_stdio_mmap>() == 8);
    assert!(size_of::<blosc2_stdio_params>() == 1 && align_of::<blosc2_stdio_params>() == 1);
    assert!(size_of::<blosc2_storage>() == 40 && align_of::<blosc2_storage>() == 8);
    assert!(size_of::<blosc2_tuner>() == 56 && align_of::<blosc2_tuner>() == 8);
    assert!(size_of::<chunk_cache_s>() == 16 && align_of::<chunk_cache_s>() == 8);
    assert!(size_of::<codec_info>() == 16 && align_of::<codec_info>() == 8);
    assert!(size_of::<filter_info>() == 16 && align_of::<filter_info>() == 8);
    assert!(size_of::<tuner_info>() == 40 && align_of::<tuner_info>() == 8);
};
