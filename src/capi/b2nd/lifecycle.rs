//! New, opened, freed and saved arrays.

use std::ffi::CString;
use std::ptr;

use libc::{c_char, c_int, c_void};

use super::handle::{copy_params, create, handle_for_schunk, is_view, view_frame, with_array};
use super::sync::{follow_writer, hold_shared};
use crate::b2nd::{meta, Array};
use crate::capi::ffi::{c_str, entry, guard, in_slice, malloc_copy, Castable};
use crate::capi::schunk::{
    blosc2_schunk_append_file, blosc2_schunk_free, blosc2_schunk_from_buffer, blosc2_schunk_open,
    blosc2_schunk_open_offset, blosc2_schunk_to_buffer, schunk_ref, storage_from_c,
};
use crate::capi::types::*;
use crate::schunk::{Schunk, Storage};
use crate::{Error, Result};

/// Creates an array as `ctx` describes whose content is undefined (stored as special
/// "uninitialised" chunks; reads give zeros here). `*array` receives it; the caller releases it with
/// `b2nd_free`. Returns 0, or a negative code (BLOSC2_ERROR_NULL_POINTER, invalid parameters,
/// a storage or file error).
#[no_mangle]
pub unsafe extern "C" fn b2nd_uninit(
    ctx: *mut b2nd_context_s,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { create(ctx, array, Array::uninit) }
}

/// Creates an array as `ctx` describes, "empty" in c-blosc2's sense: its content is not meant
/// to be read before being written; it is stored as special zero chunks (reads give zeros). `*array` receives it; the caller releases it with `b2nd_free`. Returns 0
/// or a negative code.
#[no_mangle]
pub unsafe extern "C" fn b2nd_empty(
    ctx: *mut b2nd_context_s,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { create(ctx, array, Array::empty) }
}

/// Creates an array as `ctx` describes filled with zero bytes (stored as special chunks, no
/// data). `*array` receives it; the caller releases it with `b2nd_free`. Returns 0 or a negative
/// code.
#[no_mangle]
pub unsafe extern "C" fn b2nd_zeros(
    ctx: *mut b2nd_context_s,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { create(ctx, array, Array::zeros) }
}

/// Creates an array as `ctx` describes filled with NaNs (the item size must be 4 or 8, float32 or
/// float64; else BLOSC2_ERROR_DATA). `*array` receives it; the caller releases it with
/// `b2nd_free`. Returns 0 or a negative code.
#[no_mangle]
pub unsafe extern "C" fn b2nd_nans(
    ctx: *mut b2nd_context_s,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { create(ctx, array, Array::nans) }
}

/// Creates an array as `ctx` describes with every item equal to `fill_value` (one item of the
/// context's item size, copied). `*array` receives it; the caller releases it with `b2nd_free`.
/// Returns 0 or a negative code.
#[no_mangle]
pub unsafe extern "C" fn b2nd_full(
    ctx: *mut b2nd_context_s,
    array: *mut *mut b2nd_array_t,
    fill_value: *const c_void,
) -> c_int {
    // SAFETY: forwarded contract; the fill value holds one item of the context's typesize.
    unsafe {
        create(ctx, array, |p| {
            let ts = usize::try_from(p.cparams.typesize).map_err(|_| Error::InvalidParam)?;
            let value = in_slice(fill_value.cast::<u8>(), ts.max(1))?;
            Array::full(p, value)
        })
    }
}

/// Creates an array as `ctx` describes from the C-ordered buffer `buffer` of `buffersize` bytes
/// (exactly the array's item count times the item size; else BLOSC2_ERROR_INVALID_PARAM); the
/// buffer is copied and compressed. `*array` receives the array; the caller releases it with
/// `b2nd_free`. Returns 0 or a negative code.
#[no_mangle]
pub unsafe extern "C" fn b2nd_from_cbuffer(
    ctx: *mut b2nd_context_s,
    array: *mut *mut b2nd_array_t,
    buffer: *const c_void,
    buffersize: i64,
) -> c_int {
    if buffer.is_null() {
        return Error::NullPointer.code();
    }
    // As c-blosc2: an empty array first, then the buffer written into it through its
    // super-chunk, so that codecs, filters and tuners get that super-chunk (with its "b2nd"
    // metalayer) in their parameters.
    // SAFETY: forwarded contract.
    let rc = unsafe { create(ctx, array, Array::empty) };
    if rc < 0 {
        return rc;
    }
    entry(|| {
        // SAFETY: `create` succeeded, so `*array` is the live array it made.
        let a = unsafe { *array };
        // SAFETY: the buffer holds buffersize bytes (C contract); `a` is live.
        let written = usize::try_from(buffersize)
            .map_err(|_| Error::InvalidParam)
            .and_then(|len| unsafe { in_slice(buffer.cast::<u8>(), len) })
            .and_then(|data| unsafe {
                with_array(a, |arr| arr.building(|arr| arr.set_cbuffer(data)))
            });
        if written.is_err() {
            // SAFETY: the array made above, not handed out: freed and withdrawn.
            unsafe {
                b2nd_free(a);
                *array = ptr::null_mut();
            }
        }
        written.map(|()| 0)
    })
}

/// Makes an array of the super-chunk `schunk`, which must carry a "b2nd" (or "caterva")
/// metalayer. The array takes ownership of `schunk`: `b2nd_free` frees it, so the caller must not
/// call `blosc2_schunk_free` on it. `*array` receives the array. Returns 0, or a negative code
/// (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_METALAYER_NOT_FOUND, BLOSC2_ERROR_DATA for a bad
/// metalayer).
#[no_mangle]
pub unsafe extern "C" fn b2nd_from_schunk(
    schunk: *mut blosc2_schunk,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    entry(|| {
        if schunk.is_null() || array.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: a live super-chunk handle of ours, per the contract; the array takes it.
        let p = unsafe { handle_for_schunk(schunk) }?;
        // SAFETY: non-NULL and writable.
        unsafe { *array = p };
        Ok(0)
    })
}

/// `from_schunk` for a super-chunk this layer just opened (freed again on failure).
///
/// # Safety
/// `sc` is NULL or a fresh super-chunk handle; `array` is writable.
pub(super) unsafe fn adopt(
    sc: *mut blosc2_schunk,
    array: *mut *mut b2nd_array_t,
    null: Error,
) -> c_int {
    if sc.is_null() {
        return null.code();
    }
    // SAFETY: forwarded contract.
    let rc = unsafe { b2nd_from_schunk(sc, array) };
    if rc < 0 {
        // SAFETY: the array did not take the handle.
        unsafe { blosc2_schunk_free(sc) };
    }
    rc
}

/// Opens the contiguous frame `cframe` (`cframe_len` bytes) holding a b2nd array. With `copy`
/// true the array works on its own copy; with `copy` false it reads `cframe` in place, and the
/// caller keeps the buffer alive and unchanged until `b2nd_free` (and frees it afterwards).
/// `*array` receives the array; the caller releases it with `b2nd_free`. Returns 0 or a negative
/// code (invalid frame, missing metalayer).
#[no_mangle]
pub unsafe extern "C" fn b2nd_from_cframe(
    cframe: *mut u8,
    cframe_len: i64,
    copy: bool,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    guard(Error::Failure.code(), || {
        if cframe.is_null() || array.is_null() {
            return Error::NullPointer.code();
        }
        // SAFETY: forwarded contract (cframe holds cframe_len bytes).
        unsafe {
            let sc = blosc2_schunk_from_buffer(cframe, cframe_len, copy);
            adopt(sc, array, Error::Failure)
        }
    })
}

/// Opens the array stored at `urlpath` (a contiguous frame file or a sparse frame directory).
/// Changes to the array are written back to it. `*array` receives the array; the caller releases
/// it with `b2nd_free` (which leaves the file on disk). Returns 0, or a negative code
/// (BLOSC2_ERROR_FILE_OPEN when it cannot be opened as a frame, BLOSC2_ERROR_METALAYER_NOT_FOUND,
/// ...).
#[no_mangle]
pub unsafe extern "C" fn b2nd_open(urlpath: *const c_char, array: *mut *mut b2nd_array_t) -> c_int {
    guard(Error::Failure.code(), || {
        if urlpath.is_null() || array.is_null() {
            return Error::NullPointer.code();
        }
        // SAFETY: forwarded contract.
        unsafe { adopt(blosc2_schunk_open(urlpath), array, Error::NullPointer) }
    })
}

/// As `b2nd_open`, for a frame that starts `offset` bytes into the file (see `b2nd_save_append`).
/// Returns 0 or a negative code.
#[no_mangle]
pub unsafe extern "C" fn b2nd_open_offset(
    urlpath: *const c_char,
    array: *mut *mut b2nd_array_t,
    offset: i64,
) -> c_int {
    guard(Error::Failure.code(), || {
        if urlpath.is_null() || array.is_null() {
            return Error::NullPointer.code();
        }
        // SAFETY: forwarded contract.
        unsafe {
            adopt(
                blosc2_schunk_open_offset(urlpath, offset),
                array,
                Error::NullPointer,
            )
        }
    })
}

/// Releases `array`: its super-chunk (unless a view still shares it: the last of an array and its
/// views to be freed frees it) and its fields. Data on disk stays. Returns 0, or
/// BLOSC2_ERROR_NULL_POINTER for NULL.
#[no_mangle]
pub unsafe extern "C" fn b2nd_free(array: *mut b2nd_array_t) -> c_int {
    entry(|| {
        // SAFETY: NULL or a live array of ours, not used after this call (per the API).
        let h = unsafe { b2nd_array_t::try_take(array) }?;
        // SAFETY: the array owns its malloc'd dtype.
        unsafe { libc::free(h.c.dtype.cast()) };
        // The super-chunk goes with the last array sharing it (the owner's drop).
        drop(h);
        Ok(0)
    })
}

/// Serialises `array` as a contiguous frame: `*cframe` receives it, `*cframe_len` its length and
/// `*needs_free` who owns it, as for `blosc2_schunk_to_buffer` (true: a malloc'd copy the caller
/// frees with free(); false: the array's own buffer, valid while the array is unchanged, not to be
/// freed). Returns 0, or a negative code (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_FAILURE).
#[no_mangle]
pub unsafe extern "C" fn b2nd_to_cframe(
    array: *const b2nd_array_t,
    cframe: *mut *mut u8,
    cframe_len: *mut i64,
    needs_free: *mut bool,
) -> c_int {
    entry(|| {
        if array.is_null() || cframe.is_null() || cframe_len.is_null() || needs_free.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: live array and writable out-parameters, per the contract.
        if unsafe { is_view(array) } {
            // The super-chunk is the base's: serialise the view's own.
            // SAFETY: a live array per the contract.
            let bytes =
                unsafe { with_array(array, |a| Ok(view_frame(a)?.to_buffer()?.into_owned())) }?;
            let len = i64::try_from(bytes.len()).map_err(|_| Error::Failure)?;
            // SAFETY: writable out-parameters, per the contract.
            unsafe {
                *cframe = malloc_copy(&bytes)?;
                *cframe_len = len;
                *needs_free = true;
            }
            return Ok(0);
        }
        // SAFETY: live array and writable out-parameters, per the contract.
        unsafe {
            let len = blosc2_schunk_to_buffer((*array).sc, cframe, needs_free);
            *cframe_len = len;
            if len <= 0 {
                return Err(Error::Failure);
            }
        }
        Ok(0)
    })
}

/// Writes a copy of `array` to `urlpath` (a contiguous frame file, or a sparse frame directory
/// when the array is sparse or a view). The array itself is unchanged. Returns 0, or a negative
/// code (BLOSC2_ERROR_NULL_POINTER, a file error).
#[no_mangle]
pub unsafe extern "C" fn b2nd_save(array: *const b2nd_array_t, urlpath: *mut c_char) -> c_int {
    entry(|| {
        // SAFETY: NULL or a live array per the API.
        let _held = unsafe { hold_shared(array) }?;
        // SAFETY: as above.
        unsafe { follow_writer(array) }?;
        if array.is_null() || urlpath.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: a NUL-terminated path per the contract.
        let path = unsafe { c_str(urlpath) }.ok_or(Error::InvalidParam)?;
        // SAFETY: a live array per the contract.
        let view = unsafe { is_view(array) };
        // SAFETY: a live array per the contract.
        unsafe {
            with_array(array, |a| {
                // A view is saved sparse, as c-blosc2 saves it (its own super-chunk is never
                // contiguous); an array as its super-chunk is.
                // As c-blosc2's BLOSC2_STORAGE_DEFAULTS: the default backend (which locks
                // under BLOSC_LOCKING). (NULL is the default storage.)
                let defaults = storage_from_c(ptr::null())?;
                let options = Storage {
                    contiguous: !view && a.store().storage().contiguous,
                    urlpath: Some(path.into()),
                    ..defaults
                };
                a.copy::<Schunk>(&copy_params(a, options)).map(drop)
            })
        }?;
        Ok(0)
    })
}

/// Appends `array`, as a contiguous frame, to the end of the file `urlpath` (created if needed).
/// Returns the offset in the file where the frame starts (for `b2nd_open_offset`), or a negative
/// code (BLOSC2_ERROR_NULL_POINTER, a file error).
#[no_mangle]
pub unsafe extern "C" fn b2nd_save_append(
    array: *const b2nd_array_t,
    urlpath: *const c_char,
) -> i64 {
    if array.is_null() {
        return Error::NullPointer.code() as i64;
    }
    // SAFETY: a live array per the contract.
    if unsafe { is_view(array) } {
        let append = || -> Result<i64> {
            // SAFETY: NULL or a NUL-terminated path per the contract.
            let path = unsafe { c_str(urlpath) }.ok_or(Error::NullPointer)?;
            // SAFETY: a live array per the contract.
            unsafe {
                with_array(array, |a| {
                    view_frame(a)?.append_file(&crate::schunk::local_path(path.as_ref()))
                })
            }
        };
        return entry(append);
    }
    // SAFETY: a live array per the contract.
    unsafe { blosc2_schunk_append_file((*array).sc, urlpath) }
}

/// Prints the array's "b2nd" metalayer (dimensions, shapes, dtype) to stdout, for debugging.
/// Returns 0, or a negative code (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_METALAYER_NOT_FOUND).
#[no_mangle]
pub unsafe extern "C" fn b2nd_print_meta(array: *const b2nd_array_t) -> c_int {
    entry(|| {
        // SAFETY: a live array per the contract.
        let sc = unsafe { array.as_ref() }.ok_or(Error::NullPointer)?.sc;
        // SAFETY: a live array per the contract.
        if unsafe { is_view(array) } {
            // A view's own super-chunk describes it once its shape follows its base's.
            // SAFETY: a live array.
            unsafe { with_array(array, |_| Ok(())) }?;
        }
        // SAFETY: its live super-chunk handle.
        let sc = unsafe { schunk_ref(sc) }.ok_or(Error::NullPointer)?;
        let smeta = Schunk::meta_get(sc, "b2nd")
            .or_else(|_| Schunk::meta_get(sc, "caterva"))
            .map_err(|_| Error::MetalayerNotFound)?;
        let (m, _) = meta::deserialize(smeta)?;
        let join = |v: Vec<String>| v.join(", ");
        let first_or_zero = |v: &[String]| {
            if v.is_empty() {
                vec!["0".to_string()]
            } else {
                v.to_vec()
            }
        };
        let shape: Vec<String> = m.shape.iter().map(i64::to_string).collect();
        let chunks: Vec<String> = m.chunkshape.iter().map(i32::to_string).collect();
        let blocks: Vec<String> = m.blockshape.iter().map(i32::to_string).collect();
        let mut text = format!(
            "b2nd metalayer parameters:\n Ndim:       {}\n shape:      {}\n chunkshape: {}",
            m.ndim(),
            join(first_or_zero(&shape)),
            join(first_or_zero(&chunks)),
        );
        if let Some(d) = &m.dtype {
            text += &format!("\n dtype: {d}");
        }
        text += &format!("\n blockshape: {}\n", join(first_or_zero(&blocks)));
        let text = CString::new(text.replace('\0', "")).map_err(|_| Error::Failure)?;
        // SAFETY: printf with a "%s" format and one NUL-terminated string; C's stdout keeps
        // the output in order with the caller's own printf calls.
        unsafe { libc::printf(c"%s".as_ptr(), text.as_ptr()) };
        Ok(0)
    })
}
