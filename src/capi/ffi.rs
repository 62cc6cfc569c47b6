//! The helpers every entry point of the C layer is written with, and the only ones: the panic
//! boundary, the failure value each return type gives C, and the argument conversions.
//!
//! - [`entry`] runs an entry point's body (`FnOnce() -> Result<T>`): an error becomes
//!   [`FailureValue::from_error`] of the return type (the error's code for `c_int`/`i64`, NULL
//!   for pointers) and a panic becomes [`FailureValue::on_panic`] (`BLOSC2_ERROR_FAILURE`, NULL),
//!   so no unwinding crosses into C. [`guard`] is the same boundary for bodies that cannot fail
//!   (or that compute their own failure value).
//! - C strings: [`c_str`] (UTF-8 or nothing), [`c_str_lossy`] (lossy, NULL is ""), [`static_cstr`]
//!   (an interned copy for `const char *` results).
//! - Slices: [`in_slice`] / [`out_slice`] (and [`in_bytes`] / [`out_bytes`] for `void *`) take the C pointer and a length of any integer type.
//!   One rule for lengths: **a negative length is `BLOSC2_ERROR_INVALID_PARAM`**, a zero length
//!   is an empty slice whatever the pointer, and NULL with a positive length is
//!   `BLOSC2_ERROR_NULL_POINTER`. The chunk-buffer functions of blosc2.h (`blosc2_compress`,
//!   `blosc2_decompress_ctx`, `blosc2_chunk_zeros`, ...) are the one family where c-blosc2 reads a
//!   negative `srcsize`/`destsize` as an empty buffer (`blosc2_compress(.., src, -1, ..)` returns
//!   a 32-byte empty chunk, `blosc2_decompress(src, -1, ..)` BLOSC2_ERROR_READ_BUFFER, measured
//!   on the reference); their entry points say so by taking the buffers with [`in_chunk_bytes`] / [`out_chunk_bytes`]
//!   ([`len_or_empty`] sizes).
//! - Results handed to C to `free`: [`malloc_copy`], [`malloc_cstring`].

use std::collections::HashMap;
use std::ffi::{CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe, UnwindSafe};
use std::ptr;
use std::sync::Mutex;

use libc::{c_char, c_int, c_void};

use crate::{Error, Result};

/// What an entry point returning `Self` gives C when its body fails or panics.
pub(crate) trait FailureValue: Sized {
    /// The value for a body that returned `Err(e)`.
    fn from_error(e: Error) -> Self;
    /// The value for a body that panicked (c-blosc2 has no panics; `BLOSC2_ERROR_FAILURE` is
    /// its catch-all code).
    fn on_panic() -> Self {
        Self::from_error(Error::Failure)
    }
}

impl FailureValue for c_int {
    fn from_error(e: Error) -> Self {
        e.code()
    }
}

impl FailureValue for i16 {
    fn from_error(e: Error) -> Self {
        e.code() as i16
    }
}

impl FailureValue for i64 {
    fn from_error(e: Error) -> Self {
        e.code() as i64
    }
}

impl<T> FailureValue for *mut T {
    fn from_error(_: Error) -> Self {
        ptr::null_mut()
    }
}

impl<T> FailureValue for *const T {
    fn from_error(_: Error) -> Self {
        ptr::null()
    }
}

/// Runs an entry point's body: `Ok(v)` gives `v`, an error or a panic the return type's
/// [`FailureValue`].
#[inline(always)]
pub(crate) fn entry<T: FailureValue>(body: impl FnOnce() -> Result<T>) -> T {
    catch_unwind(AssertUnwindSafe(|| body().unwrap_or_else(T::from_error)))
        .unwrap_or_else(|_| T::on_panic())
}

/// Runs `f`, turning a panic into `on_panic` so that no unwinding crosses into C.
#[inline(always)]
pub(crate) fn guard<T>(on_panic: T, f: impl FnOnce() -> T + UnwindSafe) -> T {
    catch_unwind(f).unwrap_or(on_panic)
}

// ---------------------------------------------------------------------------------------------
// Handles

/// A C type whose pointers, as this library hands them out, point at a Rust object
/// (rustls-ffi's `Castable` shape): `blosc2_context *` at a [`Context`](crate::capi::context::Context),
/// `b2nd_context_t *` at a `B2ndCtx`, `blosc2_schunk *` at a `SchunkHandle`, `b2nd_array_t *`
/// at an `ArrayHandle`. [`Castable::try_ref`] / [`Castable::try_mut`] (and [`Castable::try_take`]
/// for the functions that free one) are how the C layer reaches the object behind such a
/// pointer; NULL is [`Castable::NULL_ERROR`].
///
/// # Safety
/// Implementers guarantee that every non-NULL `*Self` the library gives C is the address of a
/// live `RustType` (boxed by the library, or a `repr(C)` struct whose first field is `Self`).
pub(crate) unsafe trait Castable: Sized {
    /// The Rust object behind the pointer.
    type RustType;
    /// c-blosc2's code for a NULL handle.
    const NULL_ERROR: Error = Error::NullPointer;

    /// The object behind `p`, shared.
    ///
    /// # Safety
    /// `p` is NULL or a pointer this library handed out and has not freed, not mutated through
    /// another reference meanwhile.
    unsafe fn try_ref<'a>(p: *const Self) -> Result<&'a Self::RustType> {
        // SAFETY: per the trait's and the caller's contracts, a non-NULL p is a live RustType.
        unsafe { p.cast::<Self::RustType>().as_ref() }.ok_or(Self::NULL_ERROR)
    }

    /// The object behind `p`, exclusive.
    ///
    /// # Safety
    /// As for [`Castable::try_ref`], and no other reference to the object is live.
    unsafe fn try_mut<'a>(p: *mut Self) -> Result<&'a mut Self::RustType> {
        // SAFETY: as in try_ref, and unaliased per the contract.
        unsafe { p.cast::<Self::RustType>().as_mut() }.ok_or(Self::NULL_ERROR)
    }

    /// Takes back the box behind `p` (for the functions that free a handle).
    ///
    /// # Safety
    /// `p` is NULL or a pointer this library handed out as a leaked `Box<RustType>` and has not
    /// freed; it is not used afterwards.
    unsafe fn try_take(p: *mut Self) -> Result<Box<Self::RustType>> {
        if p.is_null() {
            return Err(Self::NULL_ERROR);
        }
        // SAFETY: per the contract, p came from Box::into_raw of a RustType and is freed once.
        Ok(unsafe { Box::from_raw(p.cast::<Self::RustType>()) })
    }
}

// ---------------------------------------------------------------------------------------------
// C strings

/// The UTF-8 text of a C string; None for NULL or invalid UTF-8.
///
/// # Safety
/// `s` is NULL or points to a NUL-terminated string that outlives 'a.
pub(crate) unsafe fn c_str<'a>(s: *const c_char) -> Option<&'a str> {
    if s.is_null() {
        return None;
    }
    // SAFETY: non-NULL and NUL-terminated per the caller's contract.
    unsafe { CStr::from_ptr(s) }.to_str().ok()
}

/// The text of a C name, invalid UTF-8 replaced (NULL gives "").
///
/// # Safety
/// `s` is NULL or a NUL-terminated string.
pub(crate) unsafe fn c_str_lossy(s: *const c_char) -> String {
    if s.is_null() {
        return String::new();
    }
    // SAFETY: non-NULL and NUL-terminated per the contract.
    unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned()
}

/// A NUL-terminated copy of `name` that lives as long as the process, made once per name (for
/// `const char *` results naming registered codecs: registrations are never undone either).
pub(crate) fn static_cstr(name: &str) -> &'static CStr {
    static NAMES: Mutex<Option<HashMap<String, &'static CStr>>> = Mutex::new(None);
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    let map = names.get_or_insert_with(HashMap::new);
    map.entry(name.to_string()).or_insert_with(|| {
        let c = CString::new(name.replace('\0', "")).unwrap_or_default();
        Box::leak(c.into_boxed_c_str())
    })
}

/// Writes one line to stderr, ignoring a failed write (`eprintln!` panics on one, and a panic
/// must not be what a diagnostic costs): the C layer's messages that c-blosc2 prints under
/// BLOSC_TRACE / BLOSC_INFO.
pub(crate) fn stderr_line(line: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{line}");
}

// ---------------------------------------------------------------------------------------------
// Slices

/// A C length as a slice length: negative is `InvalidParam` (the rule of this module).
pub(crate) fn length<L: TryInto<usize>>(len: L) -> Result<usize> {
    len.try_into().map_err(|_| Error::InvalidParam)
}

/// c-blosc2's reading of a chunk-buffer size (`srcsize`, `destsize` of the blosc2.h compression
/// functions): a negative size is an empty buffer. See the module documentation.
pub(crate) fn len_or_empty(size: i64) -> usize {
    size.max(0) as usize
}

/// [`in_bytes`] for a chunk-buffer argument of blosc2.h: `size` read as [`len_or_empty`] (a
/// negative size is an empty buffer, as c-blosc2 reads it).
///
/// # Safety
/// As for [`in_slice`].
pub(crate) unsafe fn in_chunk_bytes<'a>(
    p: *const c_void,
    size: impl Into<i64>,
) -> Result<&'a [u8]> {
    // SAFETY: forwarded contract.
    unsafe { in_bytes(p, len_or_empty(size.into())) }
}

/// [`out_bytes`] for a chunk-buffer argument of blosc2.h, `size` read as [`len_or_empty`].
///
/// # Safety
/// As for [`out_slice`].
pub(crate) unsafe fn out_chunk_bytes<'a>(
    p: *mut c_void,
    size: impl Into<i64>,
) -> Result<&'a mut [u8]> {
    // SAFETY: forwarded contract.
    unsafe { out_bytes(p, len_or_empty(size.into())) }
}

/// What a decompression into a buffer of `destsize` bytes returns, given what it returned with
/// that size read as [`len_or_empty`]: c-blosc2 compares `destsize` with the chunk's
/// uncompressed size as signed numbers once the header is read, so a negative one is too small
/// even for an empty chunk (BLOSC2_ERROR_WRITE_BUFFER); errors found before stay as they are.
pub(crate) fn refuse_negative_dest(destsize: i64, decompressed: Result<c_int>) -> Result<c_int> {
    match decompressed {
        Ok(_) if destsize < 0 => Err(Error::WriteBuffer),
        other => other,
    }
}

/// `len` items read from `p`: empty for a zero length (whatever `p`), `InvalidParam` for a
/// negative one, `NullPointer` for NULL with a positive one.
///
/// # Safety
/// `p` is NULL or valid for reads of `len` items for 'a.
pub(crate) unsafe fn in_slice<'a, T, L: TryInto<usize>>(p: *const T, len: L) -> Result<&'a [T]> {
    let len = length(len)?;
    if len == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(Error::NullPointer);
    }
    // SAFETY: non-NULL and valid for `len` items per the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(p, len) })
}

/// `len` items written at `p`, with [`in_slice`]'s rules.
///
/// # Safety
/// `p` is NULL or valid for writes of `len` items for 'a, and not aliased meanwhile.
pub(crate) unsafe fn out_slice<'a, T, L: TryInto<usize>>(p: *mut T, len: L) -> Result<&'a mut [T]> {
    let len = length(len)?;
    if len == 0 {
        return Ok(&mut []);
    }
    if p.is_null() {
        return Err(Error::NullPointer);
    }
    // SAFETY: non-NULL and valid for `len` writable, unaliased items per the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts_mut(p, len) })
}

/// [`in_slice`] for a `void *` buffer of `len` bytes.
///
/// # Safety
/// As for [`in_slice`].
pub(crate) unsafe fn in_bytes<'a, L: TryInto<usize>>(p: *const c_void, len: L) -> Result<&'a [u8]> {
    // SAFETY: forwarded contract.
    unsafe { in_slice(p.cast::<u8>(), len) }
}

/// [`out_slice`] for a `void *` buffer of `len` bytes.
///
/// # Safety
/// As for [`out_slice`].
pub(crate) unsafe fn out_bytes<'a, L: TryInto<usize>>(
    p: *mut c_void,
    len: L,
) -> Result<&'a mut [u8]> {
    // SAFETY: forwarded contract.
    unsafe { out_slice(p.cast::<u8>(), len) }
}

// ---------------------------------------------------------------------------------------------
// malloc'd results

/// A malloc'd copy of `bytes` (C callers release it with `free`, as c-blosc2 documents for the
/// buffers it returns). At least one byte is allocated, so an empty copy is not NULL.
pub(crate) fn malloc_copy(bytes: &[u8]) -> Result<*mut u8> {
    // SAFETY: malloc of at least one byte; NULL is checked.
    let p = unsafe { libc::malloc(bytes.len().max(1)) }.cast::<u8>();
    if p.is_null() {
        return Err(Error::MemoryAlloc);
    }
    // SAFETY: p has room for bytes.len() bytes and does not overlap bytes.
    unsafe { ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len()) };
    Ok(p)
}

/// A malloc'd NUL-terminated copy of `s` (released with `free`, as c-blosc2's strings are).
pub(crate) fn malloc_cstring(s: &str) -> Result<*mut c_char> {
    let mut bytes = Vec::with_capacity(s.len() + 1);
    bytes.extend_from_slice(s.as_bytes());
    bytes.push(0);
    Ok(malloc_copy(&bytes)?.cast())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_maps_errors_and_panics_per_return_type() {
        assert_eq!(entry(|| Ok::<c_int, Error>(7)), 7);
        assert_eq!(
            entry(|| Err::<c_int, _>(Error::ReadBuffer)),
            Error::ReadBuffer.code()
        );
        assert_eq!(entry(|| Err::<i64, _>(Error::InvalidParam)), -12);
        assert!(entry(|| Err::<*mut u8, _>(Error::Failure)).is_null());
        assert!(entry::<*const u8>(|| panic!("boom")).is_null());
        assert_eq!(entry::<c_int>(|| panic!("boom")), Error::Failure.code());
        assert_eq!(
            entry::<i64>(|| panic!("boom")),
            Error::Failure.code() as i64
        );
    }

    #[test]
    fn slices_follow_one_length_rule() {
        let data = [1u8, 2, 3];
        // SAFETY: `data` holds 3 bytes; NULL is only passed with lengths that are not read.
        unsafe {
            assert_eq!(in_slice(data.as_ptr(), 3i64).unwrap(), &data);
            assert_eq!(in_slice(data.as_ptr(), -1i64), Err(Error::InvalidParam));
            assert_eq!(in_slice(ptr::null::<u8>(), 0i32).unwrap(), &[] as &[u8]);
            assert_eq!(in_slice(ptr::null::<u8>(), 2usize), Err(Error::NullPointer));
            assert_eq!(
                out_slice(ptr::null_mut::<u8>(), -5i32).err(),
                Some(Error::InvalidParam)
            );
        }
        assert_eq!(len_or_empty(-1), 0);
        assert_eq!(len_or_empty(9), 9);
    }

    #[test]
    fn malloc_copies_are_freeable_copies() {
        let p = malloc_cstring("lz4").unwrap();
        // SAFETY: p is a fresh malloc'd NUL-terminated string.
        unsafe {
            assert_eq!(CStr::from_ptr(p).to_str().unwrap(), "lz4");
            libc::free(p.cast());
        }
        assert_eq!(static_cstr("x").as_ptr(), static_cstr("x").as_ptr());
    }
}
