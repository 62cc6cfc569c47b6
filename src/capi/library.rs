//! Library-wide functions of blosc2.h: init/destroy, global settings, codec names and libraries,
//! versions, error strings, default parameter structs, timing and path helpers.
//!
//! Each function only translates between C and the core (`crate::global`, `crate::codecs::names`,
//! `crate::urlpath`, `crate::b2nd::index`): NULL checks, C strings, error codes, catch_unwind.

use std::collections::HashMap;
use std::ffi::{CStr, CString};
use std::path::Path;
use std::ptr;
use std::sync::OnceLock;

use libc::timespec as blosc_timestamp_t;
use libc::{c_char, c_int, c_void};

use crate::b2nd;
use crate::capi::ffi::{c_str, entry, guard, in_slice, malloc_cstring, out_slice, static_cstr};
use crate::capi::types::*;
use crate::chunk::params::{CPARAMS_DEFAULTS, DPARAMS_DEFAULTS};
use crate::codecs::names;
use crate::{global, urlpath, Error};

/// A C path argument as a Path; None for NULL or invalid UTF-8.
unsafe fn c_path<'a>(s: *const c_char) -> Option<&'a Path> {
    // SAFETY: forwarded contract.
    unsafe { c_str(s) }.map(Path::new)
}

/// NUL-terminated, never freed copies of the codec names, for the `const char *` results.
fn codec_name_cstr(code: i32) -> Option<&'static CStr> {
    static NAMES: OnceLock<HashMap<i32, CString>> = OnceLock::new();
    let table = NAMES.get_or_init(|| {
        (-1..=255)
            .filter_map(|c| names::name_of(c).map(|n| (c, CString::new(n).unwrap())))
            .collect()
    });
    table.get(&code).map(CString::as_c_str)
}

/// A malloc'd copy of `s`, NULL when out of memory (the caller frees it, as
/// blosc2_get_complib_info documents).
fn malloc_string(s: &str) -> *mut c_char {
    malloc_cstring(s).unwrap_or(ptr::null_mut())
}

/// Initialises the library's global state (the settings of the global compression functions and
/// the tuner registry). Call it once before the other functions; calling it again while the
/// library is initialised does nothing. The global compression functions initialise the library
/// themselves when needed.
#[no_mangle]
pub unsafe extern "C" fn blosc2_init() {
    guard((), init_library)
}

/// What `blosc2_init` does (also done implicitly by the global compression functions, as in
/// c-blosc2): nothing when the library is initialised; otherwise the tuner registry starts over.
pub(crate) fn init_library() {
    crate::chunk::compress::set_tuning_report(crate::capi::chunk::print_tuning_info);
    if !global::settings().initialized {
        crate::capi::tuner::reset_registry();
    }
    global::init();
}

/// Marks the library uninitialised (the global settings keep their values, as in c-blosc2) and
/// lets the threads kept for the global thread count end. Contexts and super-chunks the program still holds stay valid and must still be freed by the
/// program; a later `blosc2_init` starts the tuner registry over.
#[no_mangle]
pub unsafe extern "C" fn blosc2_destroy() {
    guard((), global::destroy)
}

/// Lets the worker threads kept for the global thread count (see `blosc2_set_nthreads`) end once
/// no context uses them; the next call of the global API starts them again. Returns 0.
#[no_mangle]
pub unsafe extern "C" fn blosc2_free_resources() -> c_int {
    guard(0, || {
        global::free_resources();
        0
    })
}

/// The version of the c-blosc2 API this library implements ("3.3.5"). The string is static: do
/// not free or modify it.
#[no_mangle]
pub unsafe extern "C" fn blosc2_get_version_string() -> *const c_char {
    c"3.3.5".as_ptr()
}

/// The names of the built-in codecs, separated by commas (e.g. "blosclz,lz4,lz4hc,zlib,zstd").
/// The string is static: do not free or modify it.
#[no_mangle]
pub unsafe extern "C" fn blosc2_list_compressors() -> *const c_char {
    guard(ptr::null(), || {
        static LIST: OnceLock<CString> = OnceLock::new();
        LIST.get_or_init(|| CString::new(names::builtin_list()).unwrap())
            .as_ptr()
    })
}

/// Looks up the name of codec `compcode` (a built-in, a known plugin or a registered codec).
/// When `compname` is not NULL, `*compname` receives the name (a static string owned by the
/// library; do not free it) or NULL for an unknown code. Returns `compcode`, or -1 when no codec
/// has that code.
#[no_mangle]
pub unsafe extern "C" fn blosc2_compcode_to_compname(
    compcode: c_int,
    compname: *mut *const c_char,
) -> c_int {
    guard(Error::Failure.code(), || {
        // Built-in and known plugin codecs first, then those registered by the program.
        let name = codec_name_cstr(compcode).or_else(|| {
            let id = u8::try_from(compcode).ok()?;
            crate::chunk::registry::codec(id).map(|e| static_cstr(&e.name))
        });
        if !compname.is_null() {
            // SAFETY: compname is non-NULL and points to a writable `const char *`.
            unsafe { *compname = name.map_or(ptr::null(), CStr::as_ptr) };
        }
        if name.is_some() {
            compcode
        } else {
            -1
        }
    })
}

/// The code of the codec named `compname` (built-in, known plugin or registered), or -1 for an
/// unknown name or NULL.
#[no_mangle]
pub unsafe extern "C" fn blosc2_compname_to_compcode(compname: *const c_char) -> c_int {
    guard(-1, || {
        // SAFETY: compname is NULL or a C string, per the API.
        unsafe { c_str(compname) }
            .and_then(|n| {
                names::code_of(n)
                    .or_else(|| crate::chunk::registry::codec_by_name(n).map(|e| e.id as c_int))
            })
            .unwrap_or(-1)
    })
}

/// The version of the library behind a codec, as the library itself reports it.
fn complib_version(libcode: i32) -> String {
    match libcode {
        0 => names::BLOSCLZ_VERSION.to_string(),
        1 => {
            // SAFETY: LZ4_versionNumber takes no arguments and only returns a constant.
            let v = unsafe { lz4_sys::LZ4_versionNumber() };
            format!("{}.{}.{}", v / 10000, v / 100 % 100, v % 100)
        }
        3 => option_env!("RBLOSC2_ZLIBNG_VERSION")
            .map(str::to_string)
            .unwrap_or_else(|| {
                // SAFETY: zlibVersion returns a pointer to a static NUL-terminated string.
                unsafe { CStr::from_ptr(libz_sys::zlibVersion()) }
                    .to_string_lossy()
                    .into_owned()
            }),
        4 => {
            // SAFETY: ZSTD_versionString returns a pointer to a static NUL-terminated string.
            unsafe { CStr::from_ptr(zstd_sys::ZSTD_versionString()) }
                .to_string_lossy()
                .into_owned()
        }
        _ => "unknown".to_string(),
    }
}

/// Information on the library behind codec `compname`: `*complib` receives its name (e.g.
/// "BloscLZ", "LZ4", "Zlib", "Zstd") and `*version` its version, both as strings allocated with
/// malloc that the caller releases with free(). Either output pointer may be NULL when not
/// wanted. Returns the codec's code, or -1 for an unknown codec (the outputs are then set to
/// NULL).
#[no_mangle]
pub unsafe extern "C" fn blosc2_get_complib_info(
    compname: *const c_char,
    complib: *mut *mut c_char,
    version: *mut *mut c_char,
) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: compname is NULL or a C string, per the API.
        let lib = unsafe { c_str(compname) }.and_then(names::library_of);
        let (code, name, ver) = match lib {
            Some((code, name)) => (
                code,
                malloc_string(name),
                malloc_string(&complib_version(code)),
            ),
            None => (-1, ptr::null_mut(), ptr::null_mut()),
        };
        // SAFETY: each output pointer is written only when non-NULL; the caller owns the strings.
        unsafe {
            if !complib.is_null() {
                *complib = name;
            } else if !name.is_null() {
                libc::free(name.cast());
            }
            if !version.is_null() {
                *version = ver;
            } else if !ver.is_null() {
                libc::free(ver.cast());
            }
        }
        code
    })
}

/// The number of threads set for the global compression functions (1 unless changed with
/// `blosc2_set_nthreads`; the BLOSC_NTHREADS variable, when set, wins at each call).
#[no_mangle]
pub unsafe extern "C" fn blosc2_get_nthreads() -> i16 {
    guard(1, global::nthreads)
}

/// Sets the number of threads the global compression functions use (`nthreads` >= 1) and starts
/// them: they are kept between calls until `blosc2_free_resources` or `blosc2_destroy`. Returns the
/// previous number, BLOSC2_ERROR_INVALID_PARAM for `nthreads` <= 0, or
/// BLOSC2_ERROR_THREAD_CREATE when the threads cannot start (the setting unchanged).
#[no_mangle]
pub unsafe extern "C" fn blosc2_set_nthreads(nthreads: i16) -> i16 {
    entry(|| global::set_nthreads(nthreads))
}

/// The name of the codec the global compression functions use (static string; do not free it),
/// or NULL when an unknown name was set.
#[no_mangle]
pub unsafe extern "C" fn blosc1_get_compressor() -> *const c_char {
    guard(ptr::null(), || {
        codec_name_cstr(global::compcode()).map_or(ptr::null(), CStr::as_ptr)
    })
}

/// Selects, by name, the codec the global compression functions use. Returns its code, -1 for an
/// unknown name (or NULL), or BLOSC2_ERROR_CODEC_SUPPORT for a codec that is known but not
/// built in.
#[no_mangle]
pub unsafe extern "C" fn blosc1_set_compressor(compname: *const c_char) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: compname is NULL or a C string, per the API.
        let name = unsafe { c_str(compname) }.unwrap_or("");
        match global::set_compressor(name) {
            Ok(code) => code,
            Err(Some(e)) => e.code(),
            Err(None) => -1,
        }
    })
}

/// The block size (bytes) set for the global compression functions, 0 meaning "chosen
/// automatically".
#[no_mangle]
pub unsafe extern "C" fn blosc1_get_blocksize() -> c_int {
    // c-blosc2 returns the stored size_t converted to int.
    guard(0, || global::blocksize() as c_int)
}

/// Forces the block size (bytes) of the global compression functions; 0 goes back to choosing it
/// automatically.
#[no_mangle]
pub unsafe extern "C" fn blosc1_set_blocksize(blocksize: usize) {
    guard((), || global::set_blocksize(blocksize))
}

/// Sets the split mode of the global compression functions (one of the BLOSC_*_SPLIT values).
/// The value is not checked.
#[no_mangle]
pub unsafe extern "C" fn blosc1_set_splitmode(splitmode: c_int) {
    guard((), || global::set_splitmode(splitmode))
}

/// Adds the delta filter to the pipeline of the global compression functions when `dodelta` is
/// positive, and removes it otherwise.
#[no_mangle]
pub unsafe extern "C" fn blosc2_set_delta(dodelta: c_int) {
    guard((), || global::set_delta(dodelta > 0))
}

/// A short English message for a (negative) BLOSC2_ERROR_* code, "Unknown error" for any other
/// value. The string is static: do not free or modify it.
#[no_mangle]
pub unsafe extern "C" fn blosc2_error_string(error_code: c_int) -> *const c_char {
    guard(ptr::null(), || {
        static MESSAGES: OnceLock<Vec<CString>> = OnceLock::new();
        let messages = MESSAGES.get_or_init(|| {
            Error::ALL
                .iter()
                .map(|e| CString::new(e.message()).unwrap())
                .collect()
        });
        match Error::from_code(error_code) {
            Some(e) => messages[(-e.code() - 1) as usize].as_ptr(),
            None => c"Unknown error".as_ptr(),
        }
    })
}

/// The default compression parameters, by value (the same as `BLOSC2_CPARAMS_DEFAULTS`).
#[no_mangle]
pub unsafe extern "C" fn blosc2_get_blosc2_cparams_defaults() -> blosc2_cparams {
    cparams_defaults()
}

/// `BLOSC2_CPARAMS_DEFAULTS`, for the C layer's own use.
pub(crate) const fn cparams_defaults() -> blosc2_cparams {
    let d = CPARAMS_DEFAULTS;
    blosc2_cparams {
        compcode: d.compcode,
        compcode_meta: d.compcode_meta,
        clevel: d.clevel,
        use_dict: d.use_dict as c_int,
        typesize: d.typesize,
        nthreads: d.nthreads,
        blocksize: d.blocksize,
        splitmode: d.splitmode,
        schunk: ptr::null_mut(),
        filters: d.filters,
        filters_meta: d.filters_meta,
        prefilter: None,
        preparams: ptr::null_mut(),
        tuner_params: ptr::null_mut(),
        tuner_id: 0,
        instr_codec: d.instr_codec,
        codec_params: ptr::null_mut(),
        filter_params: [ptr::null_mut(); 6],
    }
}

/// The default decompression parameters, by value (the same as `BLOSC2_DPARAMS_DEFAULTS`).
#[no_mangle]
pub unsafe extern "C" fn blosc2_get_blosc2_dparams_defaults() -> blosc2_dparams {
    dparams_defaults()
}

/// `BLOSC2_DPARAMS_DEFAULTS`, for the C layer's own use.
pub(crate) const fn dparams_defaults() -> blosc2_dparams {
    blosc2_dparams {
        nthreads: DPARAMS_DEFAULTS.nthreads,
        schunk: ptr::null_mut(),
        postfilter: None,
        postparams: ptr::null_mut(),
        typesize: DPARAMS_DEFAULTS.typesize,
    }
}

/// The default storage, by value: in memory, not contiguous, default parameters (the same as
/// `BLOSC2_STORAGE_DEFAULTS`).
#[no_mangle]
pub unsafe extern "C" fn blosc2_get_blosc2_storage_defaults() -> blosc2_storage {
    blosc2_storage {
        contiguous: false,
        urlpath: ptr::null_mut(),
        cparams: ptr::null_mut(),
        dparams: ptr::null_mut(),
        io: ptr::null_mut(),
    }
}

/// The default I/O backend, by value: the filesystem (the same as `BLOSC2_IO_DEFAULTS`).
#[no_mangle]
pub unsafe extern "C" fn blosc2_get_blosc2_io_defaults() -> blosc2_io {
    blosc2_io {
        id: 0, // BLOSC2_IO_FILESYSTEM
        name: c"filesystem".as_ptr(),
        params: ptr::null_mut::<c_void>(),
    }
}

/// Memory-mapped I/O defaults: read-only, 1 GiB initial mapping, nothing mapped or opened yet.
#[no_mangle]
pub unsafe extern "C" fn blosc2_get_blosc2_stdio_mmap_defaults() -> blosc2_stdio_mmap {
    blosc2_stdio_mmap {
        mode: c"r".as_ptr(),
        initial_mapping_size: 1 << 30,
        needs_free: false,
        addr: ptr::null_mut(),
        urlpath: ptr::null_mut(),
        file_size: 0,
        mapping_size: 0,
        is_memory_only: false,
        file: ptr::null_mut(),
        fd: -1,
        access_flags: -1,
        map_flags: -1,
    }
}

/// Stores the current time of the monotonic clock in `*timestamp` (nothing for NULL), for
/// `blosc_elapsed_nsecs` and `blosc_elapsed_secs`.
#[no_mangle]
pub unsafe extern "C" fn blosc_set_timestamp(timestamp: *mut blosc_timestamp_t) {
    guard((), || {
        if timestamp.is_null() {
            return;
        }
        // SAFETY: timestamp is non-NULL and points to a writable struct timespec.
        unsafe {
            libc::clock_gettime(libc::CLOCK_MONOTONIC, timestamp);
        }
    })
}

/// The time from `start_time` to `end_time` (both from `blosc_set_timestamp`), in nanoseconds.
#[no_mangle]
pub unsafe extern "C" fn blosc_elapsed_nsecs(
    start_time: blosc_timestamp_t,
    end_time: blosc_timestamp_t,
) -> f64 {
    guard(f64::NAN, || nanoseconds_between(&start_time, &end_time))
}

fn nanoseconds_between(start: &blosc_timestamp_t, end: &blosc_timestamp_t) -> f64 {
    (end.tv_sec - start.tv_sec) as f64 * 1e9 + (end.tv_nsec - start.tv_nsec) as f64
}

/// The time from `start_time` to `end_time` (both from `blosc_set_timestamp`), in seconds.
#[no_mangle]
pub unsafe extern "C" fn blosc_elapsed_secs(
    start_time: blosc_timestamp_t,
    end_time: blosc_timestamp_t,
) -> f64 {
    guard(f64::NAN, || {
        nanoseconds_between(&start_time, &end_time) / 1e9
    })
}

/// Converts the `ndim`-dimensional `index` into a linear position, given the `strides` of each
/// dimension (in items), and writes it to `*i` (0 when `ndim` is 0). Nothing is written when a
/// pointer needed is NULL.
#[no_mangle]
pub unsafe extern "C" fn blosc2_multidim_to_unidim(
    index: *const i64,
    ndim: i8,
    strides: *const i64,
    i: *mut i64,
) {
    let n = (ndim.max(0) as usize).min(b2nd::MAX_DIM);
    // With no dimensions the index and strides are never read: c-blosc2 writes 0 even when
    // they are NULL.
    if i.is_null() || (n > 0 && (index.is_null() || strides.is_null())) {
        return;
    }
    if n == 0 {
        // SAFETY: i is non-NULL and writable per the API.
        unsafe { *i = 0 };
        return;
    }
    guard((), || {
        // SAFETY: index and strides hold ndim (<= B2ND_MAX_DIM) values per the API; i is writable.
        unsafe {
            if let (Ok(index), Ok(strides)) = (in_slice(index, n), in_slice(strides, n)) {
                *i = b2nd::index::multidim_to_unidim(index, strides);
            }
        }
    })
}

/// Converts the linear position `i` in an array of `shape` (`ndim` dimensions, C order) into an
/// `ndim`-dimensional index written to `index`. Nothing is written when a pointer is NULL or
/// `ndim` exceeds `B2ND_MAX_DIM`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_unidim_to_multidim(
    ndim: u8,
    shape: *mut i64,
    i: i64,
    index: *mut i64,
) {
    if shape.is_null() || index.is_null() || ndim as usize > b2nd::MAX_DIM {
        return;
    }
    let n = ndim as usize;
    guard((), || {
        // SAFETY: shape and index hold ndim values per the API; they are distinct arrays.
        unsafe {
            if let (Ok(shape), Ok(index)) = (in_slice(shape, n), out_slice(index, n)) {
                b2nd::index::unidim_to_multidim(shape, i, index);
            }
        }
    })
}

/// Removes the directory `path` and the files in it (one level, as a sparse frame's directory
/// holds). Returns 0, BLOSC2_ERROR_NOT_FOUND when the directory cannot be read,
/// BLOSC2_ERROR_NULL_POINTER for NULL, or BLOSC2_ERROR_FAILURE when removing fails.
#[no_mangle]
pub unsafe extern "C" fn blosc2_remove_dir(path: *const c_char) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: path is NULL or a C string, per the API.
        match unsafe { c_path(path) } {
            None => Error::NullPointer.code(),
            Some(p) => urlpath::remove_dir(p).map_or_else(Error::code, |()| 0),
        }
    })
}

/// Removes what a super-chunk stored at `path`: a file (contiguous frame) or a directory (sparse
/// frame). A path that does not exist, or NULL, is not an error. Returns 0, or a negative code
/// (BLOSC2_ERROR_FILE_REMOVE, BLOSC2_ERROR_FAILURE) when removing fails.
#[no_mangle]
pub unsafe extern "C" fn blosc2_remove_urlpath(path: *const c_char) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: path is NULL or a C string, per the API.
        match unsafe { c_path(path) } {
            // c-blosc2 treats a NULL urlpath as "nothing to remove".
            None => 0,
            Some(p) => urlpath::remove_urlpath(p).map_or_else(Error::code, |()| 0),
        }
    })
}

/// Renames the file or directory `old_urlpath` to `new_path`. Returns 0,
/// BLOSC2_ERROR_NULL_POINTER for a NULL argument, or BLOSC2_ERROR_FAILURE when the rename fails.
#[no_mangle]
pub unsafe extern "C" fn blosc2_rename_urlpath(
    old_urlpath: *mut c_char,
    new_path: *mut c_char,
) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: both are NULL or C strings, per the API.
        match unsafe { (c_path(old_urlpath), c_path(new_path)) } {
            (Some(old), Some(new)) => {
                urlpath::rename_urlpath(old, new).map_or_else(Error::code, |()| 0)
            }
            _ => Error::NullPointer.code(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(p: *const c_char) -> Option<String> {
        (!p.is_null()).then(|| {
            // SAFETY: non-NULL strings the library returns are NUL-terminated.
            unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_string()
        })
    }

    #[test]
    fn codec_names() {
        let mut name: *const c_char = c"sentinel".as_ptr();
        // SAFETY: valid pointers to locals; the library writes a static string pointer.
        unsafe {
            assert_eq!(blosc2_compcode_to_compname(2, &mut name), 2);
            assert_eq!(text(name).as_deref(), Some("lz4hc"));
            assert_eq!(blosc2_compcode_to_compname(38, &mut name), 38);
            assert_eq!(text(name).as_deref(), Some("openzl"));
            assert_eq!(blosc2_compcode_to_compname(3, &mut name), -1);
            assert!(name.is_null());
            assert_eq!(blosc2_compcode_to_compname(1, ptr::null_mut()), 1);
            assert_eq!(blosc2_compname_to_compcode(c"zstd".as_ptr()), 5);
            assert_eq!(blosc2_compname_to_compcode(c"j2k".as_ptr()), 39);
            assert_eq!(blosc2_compname_to_compcode(c"snappy".as_ptr()), -1);
            assert_eq!(blosc2_compname_to_compcode(ptr::null()), -1);
            assert_eq!(
                text(blosc2_list_compressors()).as_deref(),
                Some("blosclz,lz4,lz4hc,zlib,zstd")
            );
            assert_eq!(text(blosc2_get_version_string()).as_deref(), Some("3.3.5"));
        }
    }

    fn complib(name: &CStr) -> (c_int, Option<String>, Option<String>) {
        let mut lib = ptr::null_mut();
        let mut version = ptr::null_mut();
        // SAFETY: a NUL-terminated name and pointers to locals.
        let code = unsafe { blosc2_get_complib_info(name.as_ptr(), &mut lib, &mut version) };
        let result = (code, text(lib), text(version));
        // SAFETY: the strings were malloc'd by blosc2_get_complib_info.
        unsafe {
            libc::free(lib.cast());
            libc::free(version.cast());
        }
        result
    }

    #[test]
    fn complib_info_reports_the_linked_libraries() {
        let some = |s: &str| Some(s.to_string());
        assert_eq!(complib(c"blosclz"), (0, some("BloscLZ"), some("2.5.3")));
        assert_eq!(complib(c"lz4hc"), (1, some("LZ4"), some("1.10.0")));
        assert_eq!(complib(c"zlib"), (3, some("Zlib"), some("2.3.3")));
        assert_eq!(complib(c"zstd"), (4, some("Zstd"), some("1.5.7")));
        assert_eq!(complib(c"ndlz"), (32, some("ndlz"), some("unknown")));
        assert_eq!(complib(c"nope"), (-1, None, None));
    }

    #[test]
    fn error_strings() {
        // SAFETY: the functions return static strings or take plain values.
        unsafe {
            assert_eq!(
                text(blosc2_error_string(-1)).as_deref(),
                Some("Generic failure")
            );
            assert_eq!(
                text(blosc2_error_string(-37)).as_deref(),
                Some("Frame lock failure")
            );
            for code in [0, 1, -38, i32::MIN] {
                assert_eq!(
                    text(blosc2_error_string(code)).as_deref(),
                    Some("Unknown error")
                );
            }
        }
    }

    #[test]
    fn defaults_and_helpers() {
        // SAFETY: plain values and pointers to locals.
        unsafe {
            let c = blosc2_get_blosc2_cparams_defaults();
            assert_eq!((c.compcode, c.clevel, c.typesize, c.nthreads), (0, 5, 8, 1));
            assert_eq!((c.splitmode, c.filters), (4, [0, 0, 0, 0, 0, 1]));
            let d = blosc2_get_blosc2_dparams_defaults();
            assert_eq!((d.nthreads, d.typesize), (1, 8));
            let io = blosc2_get_blosc2_io_defaults();
            assert_eq!((io.id, text(io.name).as_deref()), (0, Some("filesystem")));
            assert!(!blosc2_get_blosc2_storage_defaults().contiguous);
            let m = blosc2_get_blosc2_stdio_mmap_defaults();
            assert_eq!(
                (m.initial_mapping_size, m.fd, m.map_flags),
                (1 << 30, -1, -1)
            );

            let start = blosc_timestamp_t {
                tv_sec: 1,
                tv_nsec: 500,
            };
            let end = blosc_timestamp_t {
                tv_sec: 3,
                tv_nsec: 200,
            };
            assert_eq!(blosc_elapsed_nsecs(start, end), 1_999_999_700.0);
            assert_eq!(blosc_elapsed_secs(start, end), 1.9999997);
            let mut now = start;
            blosc_set_timestamp(&mut now);
            blosc_set_timestamp(ptr::null_mut());

            let mut shape = [4i64, 5, 6];
            let mut index = [0i64; 3];
            blosc2_unidim_to_multidim(3, shape.as_mut_ptr(), 119, index.as_mut_ptr());
            assert_eq!(index, [3, 4, 5]);
            let mut flat = 0;
            blosc2_multidim_to_unidim(index.as_ptr(), 3, [30i64, 6, 1].as_ptr(), &mut flat);
            assert_eq!(flat, 119);

            assert_eq!(blosc2_remove_urlpath(ptr::null()), 0);
            assert_eq!(blosc2_remove_dir(c"/nonexistent/rblosc2".as_ptr()), -16);
            assert_eq!(
                blosc2_rename_urlpath(
                    c"/nonexistent/a".as_ptr() as *mut _,
                    c"/nonexistent/b".as_ptr() as *mut _
                ),
                -1
            );
        }
    }
}
