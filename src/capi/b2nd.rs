//! The functions of b2nd.h: contexts, metalayer (de)serialization, n-d buffer copies, and the
//! `b2nd_array_t` handle over a `blosc2_schunk` handle of the schunk C layer.
//!
//! Each function translates: C pointers into slices (NULL is `BLOSC2_ERROR_NULL_POINTER` where
//! c-blosc2 checks it, and everywhere it would crash), core errors into c-blosc2's codes, and
//! no panic crosses into C. The array's public fields are rewritten from the core after every
//! call that may change them.

use std::ffi::CString;
use std::panic::AssertUnwindSafe;
use std::ptr;

use libc::{c_char, c_int, c_void};

use crate::b2nd::{meta, slice, MAX_DIM};
use crate::capi::library::{blosc2_get_blosc2_cparams_defaults, c_str, guard};
use crate::capi::types::*;
use crate::{Error, Result};

/// Runs an entry point body: errors become their codes, a panic becomes `Failure`.
fn run(f: impl FnOnce() -> Result<c_int>) -> c_int {
    guard(
        Error::Failure.code(),
        AssertUnwindSafe(|| f().unwrap_or_else(Error::code)),
    )
}

/// `ndim` as a dimension count, or `InvalidParam` outside `0..=B2ND_MAX_DIM`.
fn dims(ndim: i8) -> Result<usize> {
    usize::try_from(ndim)
        .ok()
        .filter(|n| *n <= MAX_DIM)
        .ok_or(Error::InvalidParam)
}

/// `n` items read from `p` (NULL is an error unless `n` is 0).
///
/// # Safety
/// `p` is NULL or valid for reads of `n` items.
unsafe fn in_items<'a, T>(p: *const T, n: usize) -> Result<&'a [T]> {
    if n == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(Error::NullPointer);
    }
    // SAFETY: non-NULL and valid for `n` items per the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(p, n) })
}

/// `n` items written at `p` (NULL is an error unless `n` is 0).
///
/// # Safety
/// `p` is NULL or valid for writes of `n` items, not aliased.
unsafe fn out_items<'a, T>(p: *mut T, n: usize) -> Result<&'a mut [T]> {
    if n == 0 {
        return Ok(&mut []);
    }
    if p.is_null() {
        return Err(Error::NullPointer);
    }
    // SAFETY: non-NULL and valid for `n` writable items per the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts_mut(p, n) })
}

/// A malloc'd copy of `bytes` (C callers release it with `free`).
fn malloc_copy(bytes: &[u8]) -> Result<*mut u8> {
    // SAFETY: malloc of at least one byte; the copy stays within the new allocation.
    unsafe {
        let p = libc::malloc(bytes.len().max(1)).cast::<u8>();
        if p.is_null() {
            return Err(Error::MemoryAlloc);
        }
        ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len());
        Ok(p)
    }
}

/// A malloc'd NUL-terminated copy of `s` (released with `free`, as c-blosc2's strings are).
fn malloc_cstring(s: &str) -> Result<*mut c_char> {
    let mut bytes = Vec::with_capacity(s.len() + 1);
    bytes.extend_from_slice(s.as_bytes());
    bytes.push(0);
    Ok(malloc_copy(&bytes)?.cast())
}

// ---------------------------------------------------------------------------------------------
// Contexts

/// The Rust side of a `b2nd_context_t *`: what `b2nd_create_ctx` was given, with the storage
/// and compression parameters copied (the blocksize set to one block shape, as c-blosc2 does).
pub(crate) struct B2ndCtx {
    /// The caller's storage with `cparams`/`dparams`/`urlpath` pointing into this context.
    pub storage: blosc2_storage,
    cparams: Box<blosc2_cparams>,
    dparams: Option<Box<blosc2_dparams>>,
    urlpath: Option<CString>,
    pub ndim: usize,
    pub shape: [i64; MAX_DIM],
    pub chunkshape: [i32; MAX_DIM],
    pub blockshape: [i32; MAX_DIM],
    pub dtype: String,
    pub dtype_format: i8,
    pub metalayers: Vec<(String, Vec<u8>)>,
}

impl B2ndCtx {
    fn into_handle(self) -> *mut b2nd_context_s {
        Box::into_raw(Box::new(self)).cast()
    }

    /// # Safety
    /// `h` is NULL or a live handle from [`B2ndCtx::into_handle`].
    pub(crate) unsafe fn from_handle<'a>(h: *mut b2nd_context_s) -> Result<&'a mut B2ndCtx> {
        // SAFETY: per the contract, a non-NULL handle is a live boxed B2ndCtx.
        unsafe { h.cast::<B2ndCtx>().as_mut() }.ok_or(Error::NullPointer)
    }

    pub(crate) fn cparams(&self) -> &blosc2_cparams {
        &self.cparams
    }

    /// A context for the same storage and parameters with other dimensions (views, copies).
    #[allow(dead_code)]
    pub(crate) fn with_dims(
        &self,
        shape: &[i64],
        chunkshape: &[i32],
        blockshape: &[i32],
    ) -> Result<B2ndCtx> {
        let mut cparams = *self.cparams;
        cparams.blocksize = blockshape.iter().fold(cparams.typesize, |a, b| a * b);
        let dparams = self.dparams.as_deref().copied();
        let ndim = shape.len();
        if ndim > MAX_DIM || chunkshape.len() != ndim || blockshape.len() != ndim {
            return Err(Error::InvalidParam);
        }
        let mut ctx = B2ndCtx {
            storage: self.storage_copy(),
            cparams: Box::new(cparams),
            dparams: dparams.map(Box::new),
            urlpath: self.urlpath.clone(),
            ndim,
            shape: [0; MAX_DIM],
            chunkshape: [0; MAX_DIM],
            blockshape: [0; MAX_DIM],
            dtype: self.dtype.clone(),
            dtype_format: self.dtype_format,
            metalayers: Vec::new(),
        };
        ctx.shape[..ndim].copy_from_slice(shape);
        ctx.chunkshape[..ndim].copy_from_slice(chunkshape);
        ctx.blockshape[..ndim].copy_from_slice(blockshape);
        ctx.fix_pointers();
        Ok(ctx)
    }

    fn storage_copy(&self) -> blosc2_storage {
        blosc2_storage {
            contiguous: self.storage.contiguous,
            urlpath: ptr::null_mut(),
            cparams: ptr::null_mut(),
            dparams: ptr::null_mut(),
            io: self.storage.io,
        }
    }

    /// Points `storage`'s fields at the copies this context owns.
    fn fix_pointers(&mut self) {
        self.storage.cparams = &mut *self.cparams;
        self.storage.dparams = self
            .dparams
            .as_deref_mut()
            .map_or(ptr::null_mut(), |d| d as *mut blosc2_dparams);
        self.storage.urlpath = self
            .urlpath
            .as_ref()
            .map_or(ptr::null_mut(), |u| u.as_ptr().cast_mut());
    }

    pub(crate) fn shape(&self) -> &[i64] {
        &self.shape[..self.ndim]
    }
    pub(crate) fn chunkshape(&self) -> &[i32] {
        &self.chunkshape[..self.ndim]
    }
    pub(crate) fn blockshape(&self) -> &[i32] {
        &self.blockshape[..self.ndim]
    }
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_create_ctx(
    b2_storage: *const blosc2_storage,
    ndim: i8,
    shape: *const i64,
    chunkshape: *const i32,
    blockshape: *const i32,
    dtype: *const c_char,
    dtype_format: i8,
    metalayers: *const blosc2_metalayer,
    nmetalayers: i32,
) -> *mut b2nd_context_s {
    let make = || -> Result<B2ndCtx> {
        let n = dims(ndim)?;
        // SAFETY: the caller passes `ndim` items in each shape (C contract).
        let (shape, chunkshape, blockshape) = unsafe {
            (
                in_items(shape, n)?,
                in_items(chunkshape, n)?,
                in_items(blockshape, n)?,
            )
        };
        // SAFETY: NULL or a valid storage per the contract.
        let storage = unsafe { b2_storage.as_ref() };
        let mut cparams = match storage.and_then(|s| {
            // SAFETY: a storage's cparams is NULL or valid.
            unsafe { s.cparams.as_ref() }
        }) {
            Some(c) => *c,
            // SAFETY: plain function returning a struct.
            None => unsafe { blosc2_get_blosc2_cparams_defaults() },
        };
        let blocknitems = blockshape.iter().fold(1i32, |a, b| a.wrapping_mul(*b));
        cparams.blocksize = blocknitems.wrapping_mul(cparams.typesize);
        let dparams = storage.and_then(|s| {
            // SAFETY: a storage's dparams is NULL or valid.
            unsafe { s.dparams.as_ref() }.copied()
        });
        let urlpath = match storage.map(|s| s.urlpath).filter(|p| !p.is_null()) {
            // SAFETY: a non-NULL urlpath is a NUL-terminated string.
            Some(p) => Some(unsafe { std::ffi::CStr::from_ptr(p) }.to_owned()),
            None => None,
        };
        let dtype = if dtype.is_null() {
            format!("|S{}", cparams.typesize)
        } else {
            // SAFETY: a non-NULL dtype is a NUL-terminated string.
            unsafe { c_str(dtype) }
                .ok_or(Error::InvalidParam)?
                .to_string()
        };
        let nmeta = usize::try_from(nmetalayers.max(0)).map_err(|_| Error::InvalidParam)?;
        if nmeta > crate::frame::header::MAX_METALAYERS {
            return Err(Error::InvalidParam);
        }
        // SAFETY: `nmetalayers` entries per the contract.
        let metas = unsafe { in_items(metalayers, nmeta)? };
        let mut copied = Vec::with_capacity(nmeta);
        for m in metas {
            // SAFETY: each metalayer has a NUL-terminated name and content_len bytes.
            let name = unsafe { c_str(m.name) }.ok_or(Error::NullPointer)?;
            let len = usize::try_from(m.content_len).map_err(|_| Error::InvalidParam)?;
            // SAFETY: as above.
            let content = unsafe { in_items(m.content, len)? };
            copied.push((name.to_string(), content.to_vec()));
        }
        let mut ctx = B2ndCtx {
            storage: blosc2_storage {
                contiguous: storage.is_some_and(|s| s.contiguous),
                urlpath: ptr::null_mut(),
                cparams: ptr::null_mut(),
                dparams: ptr::null_mut(),
                io: storage.map_or(ptr::null_mut(), |s| s.io),
            },
            cparams: Box::new(cparams),
            dparams: dparams.map(Box::new),
            urlpath,
            ndim: n,
            shape: [0; MAX_DIM],
            chunkshape: [0; MAX_DIM],
            blockshape: [0; MAX_DIM],
            dtype,
            dtype_format,
            metalayers: copied,
        };
        ctx.shape[..n].copy_from_slice(shape);
        ctx.chunkshape[..n].copy_from_slice(chunkshape);
        ctx.blockshape[..n].copy_from_slice(blockshape);
        ctx.fix_pointers();
        Ok(ctx)
    };
    guard(
        ptr::null_mut(),
        AssertUnwindSafe(|| make().map_or(ptr::null_mut(), B2ndCtx::into_handle)),
    )
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_free_ctx(ctx: *mut b2nd_context_s) -> c_int {
    run(|| {
        if ctx.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: a non-NULL handle came from b2nd_create_ctx and is freed once.
        drop(unsafe { Box::from_raw(ctx.cast::<B2ndCtx>()) });
        Ok(0)
    })
}

// ---------------------------------------------------------------------------------------------
// Metalayer

#[no_mangle]
pub unsafe extern "C" fn b2nd_serialize_meta(
    ndim: i8,
    shape: *const i64,
    chunkshape: *const i32,
    blockshape: *const i32,
    dtype: *const c_char,
    dtype_format: i8,
    smeta: *mut *mut u8,
) -> c_int {
    run(|| {
        if smeta.is_null() {
            return Err(Error::NullPointer);
        }
        if dtype_format < 0 {
            return Err(Error::Failure);
        }
        let n = dims(ndim)?;
        // SAFETY: `ndim` items each, per the contract.
        let (shape, chunkshape, blockshape) = unsafe {
            (
                in_items(shape, n)?,
                in_items(chunkshape, n)?,
                in_items(blockshape, n)?,
            )
        };
        let dtype = if dtype.is_null() {
            None
        } else {
            // SAFETY: a non-NULL dtype is a NUL-terminated string.
            Some(unsafe { c_str(dtype) }.ok_or(Error::InvalidParam)?)
        };
        let bytes = meta::serialize(shape, chunkshape, blockshape, dtype, dtype_format)?;
        let len = c_int::try_from(bytes.len()).map_err(|_| Error::Failure)?;
        // SAFETY: `smeta` is non-NULL and writable.
        unsafe { *smeta = malloc_copy(&bytes)? };
        Ok(len)
    })
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_deserialize_meta(
    smeta: *const u8,
    smeta_len: i32,
    ndim: *mut i8,
    shape: *mut i64,
    chunkshape: *mut i32,
    blockshape: *mut i32,
    dtype: *mut *mut c_char,
    dtype_format: *mut i8,
) -> c_int {
    run(|| {
        if smeta.is_null()
            || ndim.is_null()
            || shape.is_null()
            || chunkshape.is_null()
            || blockshape.is_null()
        {
            return Err(Error::NullPointer);
        }
        // SAFETY: both are NULL or writable, per the contract.
        unsafe {
            if let Some(d) = dtype.as_mut() {
                *d = ptr::null_mut();
            }
            if let Some(f) = dtype_format.as_mut() {
                *f = 0;
            }
        }
        if smeta_len <= 0 {
            return Err(Error::Failure);
        }
        // SAFETY: `smeta_len` readable bytes per the contract.
        let mut bytes = unsafe { in_items(smeta, smeta_len as usize)? };
        let want_dtype = !dtype.is_null() && !dtype_format.is_null();
        if !want_dtype && bytes.len() > 2 {
            // Without somewhere to put it, c-blosc2 stops before the dtype entry.
            let n = usize::from(bytes[2].min(MAX_DIM as u8));
            bytes = &bytes[..bytes.len().min(6 + 19 * n)];
        }
        let (m, used) = meta::deserialize(bytes)?;
        let n = m.ndim();
        // SAFETY: the caller's arrays hold B2ND_MAX_DIM items; ndim <= MAX_DIM.
        unsafe {
            *ndim = n as i8;
            out_items(shape, n)?.copy_from_slice(&m.shape);
            out_items(chunkshape, n)?.copy_from_slice(&m.chunkshape);
            out_items(blockshape, n)?.copy_from_slice(&m.blockshape);
            if want_dtype {
                *dtype_format = m.dtype_format;
                if let Some(d) = &m.dtype {
                    *dtype = malloc_cstring(d)?;
                }
            }
        }
        c_int::try_from(used).map_err(|_| Error::Failure)
    })
}

// ---------------------------------------------------------------------------------------------
// n-d buffer copies

/// What `b2nd_copy_buffer2` does; the buffers' lengths are those of their padded shapes.
#[allow(clippy::too_many_arguments)]
unsafe fn copy_buffer_c(
    ndim: i8,
    itemsize: i32,
    src: *const c_void,
    src_pad_shape: *const i64,
    src_start: *const i64,
    src_stop: *const i64,
    dst: *mut c_void,
    dst_pad_shape: *const i64,
    dst_start: *const i64,
) -> Result<c_int> {
    let n = dims(ndim)?;
    let itemsize = usize::try_from(itemsize)
        .ok()
        .filter(|s| *s > 0)
        .ok_or(Error::InvalidParam)?;
    // SAFETY: `ndim` items each, per the contract.
    let (src_pad, src_start, src_stop, dst_pad, dst_start) = unsafe {
        (
            in_items(src_pad_shape, n)?,
            in_items(src_start, n)?,
            in_items(src_stop, n)?,
            in_items(dst_pad_shape, n)?,
            in_items(dst_start, n)?,
        )
    };
    let copied = src_start
        .iter()
        .zip(src_stop)
        .try_fold(1i64, |acc, (a, b)| {
            acc.checked_mul(b.saturating_sub(*a).max(0))
        });
    if copied == Some(0) {
        return Ok(0);
    }
    let len_of = |shape: &[i64]| -> Result<usize> {
        shape
            .iter()
            .try_fold(itemsize as u64, |acc, s| {
                u64::try_from(*s).ok().and_then(|s| acc.checked_mul(s))
            })
            .and_then(|n| usize::try_from(n).ok())
            .filter(|n| *n <= isize::MAX as usize)
            .ok_or(Error::InvalidParam)
    };
    let (src_len, dst_len) = (len_of(src_pad)?, len_of(dst_pad)?);
    if src.is_null() || dst.is_null() {
        return Err(Error::NullPointer);
    }
    // SAFETY: the source buffer holds its padded shape's items and the destination buffer its
    // own (the function's contract); a copy within one buffer is not supported by c-blosc2
    // either, so the two do not overlap.
    let (src, dst) = unsafe {
        (
            std::slice::from_raw_parts(src.cast::<u8>(), src_len),
            std::slice::from_raw_parts_mut(dst.cast::<u8>(), dst_len),
        )
    };
    slice::copy_buffer(
        itemsize, src, src_pad, src_start, src_stop, dst, dst_pad, dst_start,
    )?;
    Ok(0)
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_copy_buffer(
    ndim: i8,
    itemsize: u8,
    src: *const c_void,
    src_pad_shape: *const i64,
    src_start: *const i64,
    src_stop: *const i64,
    dst: *mut c_void,
    dst_pad_shape: *const i64,
    dst_start: *const i64,
) -> c_int {
    run(|| {
        // SAFETY: forwarded contract.
        unsafe {
            copy_buffer_c(
                ndim,
                i32::from(itemsize),
                src,
                src_pad_shape,
                src_start,
                src_stop,
                dst,
                dst_pad_shape,
                dst_start,
            )
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_copy_buffer2(
    ndim: i8,
    itemsize: i32,
    src: *const c_void,
    src_pad_shape: *const i64,
    src_start: *const i64,
    src_stop: *const i64,
    dst: *mut c_void,
    dst_pad_shape: *const i64,
    dst_start: *const i64,
) -> c_int {
    run(|| {
        // SAFETY: forwarded contract.
        unsafe {
            copy_buffer_c(
                ndim,
                itemsize,
                src,
                src_pad_shape,
                src_start,
                src_stop,
                dst,
                dst_pad_shape,
                dst_start,
            )
        }
    })
}
