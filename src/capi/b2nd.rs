//! The functions of b2nd.h: contexts, metalayer (de)serialization, n-d buffer copies, and the
//! `b2nd_array_t` handle over a `blosc2_schunk` handle of the schunk C layer.
//!
//! Each function translates: C pointers into slices (NULL is `BLOSC2_ERROR_NULL_POINTER` where
//! c-blosc2 checks it, and everywhere it would crash), core errors into c-blosc2's codes, and
//! no panic crosses into C. The array's public fields are rewritten from the core after every
//! call that may change them.

use std::ffi::CString;
use std::ptr;
use std::sync::Arc;

use libc::{c_char, c_int, c_void};

use crate::b2nd::array::{read_meta, store_layout};
use crate::b2nd::{meta, slice, Array, DimMap, Params, MAX_DIM};
use crate::capi::ffi::{
    c_str, entry, in_bytes, in_slice, malloc_copy, malloc_cstring, out_bytes, out_slice,
};
use crate::capi::library::blosc2_get_blosc2_cparams_defaults;
use crate::capi::schunk::{
    blosc2_schunk_append_file, blosc2_schunk_free, blosc2_schunk_from_buffer, blosc2_schunk_open,
    blosc2_schunk_open_offset, blosc2_schunk_refresh, blosc2_schunk_to_buffer, schunk_into_c,
    schunk_mut, schunk_ref, set_chunk_source, storage_from_c, sync_mirror,
};
use crate::capi::types::*;
use crate::frame::lock::LockGuard;
use crate::schunk::{Schunk, Storage};
use crate::{Error, Result};

/// `ndim` as a dimension count, or `InvalidParam` outside `0..=B2ND_MAX_DIM`.
fn dims(ndim: i8) -> Result<usize> {
    usize::try_from(ndim)
        .ok()
        .filter(|n| *n <= MAX_DIM)
        .ok_or(Error::InvalidParam)
}

// ---------------------------------------------------------------------------------------------
// Contexts

/// Metalayers a context holds (`B2ND_MAX_METALAYERS`: one of the super-chunk's is `b2nd`).
const MAX_CTX_METALAYERS: usize = crate::frame::header::MAX_METALAYERS - 1;

/// What a `b2nd_context_t *` points at. b2nd.h keeps the struct opaque, but c-blosc2's own
/// tests (and programs written like them) include its private header and read `ctx->ndim`,
/// `ctx->shape`, ... (and c-blosc2's `b2nd_get_slice` / `b2nd_copy` rewrite `ndim` and
/// `shape`), so the leading fields are c-blosc2 3.3.5's `struct b2nd_context_s`
/// (blosc/context.h) field for field, and they are what the functions here read; the fields
/// after them own what those point at.
#[repr(C)]
pub(crate) struct B2ndCtx {
    /// Dimensions (`ndim`); the functions check it is in `0..=B2ND_MAX_DIM` before use.
    pub ndim: i8,
    pub shape: [i64; MAX_DIM],
    pub chunkshape: [i32; MAX_DIM],
    pub blockshape: [i32; MAX_DIM],
    /// NUL-terminated, pointing into `dtype_owned`.
    dtype: *mut c_char,
    pub dtype_format: i8,
    /// Points at `storage`.
    b2_storage: *mut blosc2_storage,
    /// Names and contents pointing into `metalayer_names` / `metalayer_contents`.
    metalayers: [blosc2_metalayer; MAX_CTX_METALAYERS],
    nmetalayers: i32,
    // Owned by this context (not part of c-blosc2's struct).
    /// The caller's storage with `cparams`/`dparams`/`urlpath` pointing into this context.
    storage: blosc2_storage,
    cparams: Box<blosc2_cparams>,
    dparams: Option<Box<blosc2_dparams>>,
    urlpath: Option<CString>,
    dtype_owned: CString,
    metalayer_names: Vec<CString>,
    metalayer_contents: Vec<Vec<u8>>,
}

impl B2ndCtx {
    fn into_handle(self) -> *mut b2nd_context_s {
        let raw = Box::into_raw(Box::new(self));
        // SAFETY: `raw` is the live allocation just made; the pointers set here point into
        // it and into its own heap fields, which stay put until it is freed.
        unsafe { (*raw).fix_pointers() };
        raw.cast()
    }

    /// # Safety
    /// `h` is NULL or a live handle from [`B2ndCtx::into_handle`].
    pub(crate) unsafe fn from_handle<'a>(h: *mut b2nd_context_s) -> Result<&'a mut B2ndCtx> {
        // SAFETY: per the contract, a non-NULL handle is a live boxed B2ndCtx.
        unsafe { h.cast::<B2ndCtx>().as_mut() }.ok_or(Error::NullPointer)
    }

    /// Points the C-visible fields at the copies this context owns.
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
        self.b2_storage = &mut self.storage;
        self.dtype = self.dtype_owned.as_ptr().cast_mut();
        for (i, (name, content)) in self
            .metalayer_names
            .iter()
            .zip(&mut self.metalayer_contents)
            .enumerate()
        {
            self.metalayers[i] = blosc2_metalayer {
                name: name.as_ptr().cast_mut(),
                content: content.as_mut_ptr(),
                content_len: content.len() as i32,
            };
        }
        self.nmetalayers = self.metalayer_names.len() as i32;
    }

    /// `ndim` as a dimension count (`InvalidParam` if a caller stored one out of range).
    pub(crate) fn dims(&self) -> Result<usize> {
        dims(self.ndim)
    }

    pub(crate) fn shape(&self) -> Result<&[i64]> {
        Ok(&self.shape[..self.dims()?])
    }
    pub(crate) fn chunkshape(&self) -> Result<&[i32]> {
        Ok(&self.chunkshape[..self.dims()?])
    }
    pub(crate) fn blockshape(&self) -> Result<&[i32]> {
        Ok(&self.blockshape[..self.dims()?])
    }

    /// The metalayers as (name, content) pairs.
    fn metalayers(&self) -> Vec<(String, Vec<u8>)> {
        self.metalayer_names
            .iter()
            .zip(&self.metalayer_contents)
            .map(|(n, c)| (n.to_string_lossy().into_owned(), c.clone()))
            .collect()
    }
}

/// Creates the parameters for making b2nd arrays: storage `b2_storage` (NULL: in memory with
/// default compression parameters), `ndim` dimensions (up to `B2ND_MAX_DIM`), the array's
/// `shape`, its `chunkshape` and `blockshape` (each `ndim` entries), the item type `dtype`
/// (NULL: "|u1"-style default; a NUL-terminated string in format `dtype_format`, 0 for NumPy)
/// and `nmetalayers` extra metalayers to add to each array. Everything is copied, so the
/// arguments may go away. Returns the context, which the caller releases with `b2nd_free_ctx`
/// (arrays made from it do not keep it), or NULL on invalid parameters.
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
                in_slice(shape, n)?,
                in_slice(chunkshape, n)?,
                in_slice(blockshape, n)?,
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
        // As c-blosc2 3.3.5: no negative block extent, a zero one only where the chunk's is
        // zero, and a block (in bytes) that a header's i32 blocksize can state.
        let mut block_bytes = i64::from(cparams.typesize);
        for (b, c) in blockshape.iter().zip(chunkshape) {
            if *b < 0 || (*b == 0 && *c != 0) {
                return Err(Error::InvalidParam);
            }
            block_bytes = block_bytes.saturating_mul(i64::from(*b));
        }
        cparams.blocksize = i32::try_from(block_bytes)
            .ok()
            .filter(|b| *b >= 0)
            .ok_or(Error::InvalidParam)?;
        let dparams = storage.and_then(|s| {
            // SAFETY: a storage's dparams is NULL or valid.
            unsafe { s.dparams.as_ref() }.copied()
        });
        let urlpath = storage
            .map(|s| s.urlpath)
            .filter(|p| !p.is_null())
            // SAFETY: a non-NULL urlpath is a NUL-terminated string.
            .map(|p| unsafe { std::ffi::CStr::from_ptr(p) }.to_owned());
        let dtype = if dtype.is_null() {
            format!("|S{}", cparams.typesize)
        } else {
            // SAFETY: a non-NULL dtype is a NUL-terminated string.
            unsafe { c_str(dtype) }
                .ok_or(Error::InvalidParam)?
                .to_string()
        };
        let nmeta = usize::try_from(nmetalayers.max(0)).map_err(|_| Error::InvalidParam)?;
        if nmeta > MAX_CTX_METALAYERS {
            return Err(Error::InvalidParam);
        }
        // SAFETY: `nmetalayers` entries per the contract.
        let metas = unsafe { in_slice(metalayers, nmeta)? };
        let mut copied = Vec::with_capacity(nmeta);
        for m in metas {
            // SAFETY: each metalayer has a NUL-terminated name and content_len bytes.
            let name = unsafe { c_str(m.name) }.ok_or(Error::NullPointer)?;
            let len = usize::try_from(m.content_len).map_err(|_| Error::InvalidParam)?;
            // SAFETY: as above.
            let content = unsafe { in_slice(m.content, len)? };
            copied.push((name.to_string(), content.to_vec()));
        }
        let dtype_owned = CString::new(dtype).map_err(|_| Error::InvalidParam)?;
        let mut metalayer_names = Vec::with_capacity(copied.len());
        let mut metalayer_contents = Vec::with_capacity(copied.len());
        for (name, content) in copied {
            metalayer_names.push(CString::new(name).map_err(|_| Error::InvalidParam)?);
            metalayer_contents.push(content);
        }
        let mut ctx = B2ndCtx {
            ndim,
            shape: [0; MAX_DIM],
            chunkshape: [0; MAX_DIM],
            blockshape: [0; MAX_DIM],
            dtype: ptr::null_mut(),
            dtype_format,
            b2_storage: ptr::null_mut(),
            metalayers: std::array::from_fn(|_| blosc2_metalayer {
                name: ptr::null_mut(),
                content: ptr::null_mut(),
                content_len: 0,
            }),
            nmetalayers: 0,
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
            dtype_owned,
            metalayer_names,
            metalayer_contents,
        };
        ctx.shape[..n].copy_from_slice(shape);
        ctx.chunkshape[..n].copy_from_slice(chunkshape);
        ctx.blockshape[..n].copy_from_slice(blockshape);
        Ok(ctx)
    };
    entry(|| make().map(B2ndCtx::into_handle))
}

/// Releases a context made by `b2nd_create_ctx`. Returns 0, or BLOSC2_ERROR_NULL_POINTER for
/// NULL.
#[no_mangle]
pub unsafe extern "C" fn b2nd_free_ctx(ctx: *mut b2nd_context_s) -> c_int {
    entry(|| {
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

/// Encodes the "b2nd" metalayer content for an array of `ndim` dimensions with `shape`,
/// `chunkshape`, `blockshape` and `dtype` (NULL: the default) in `dtype_format`. `*smeta`
/// receives a new buffer allocated with malloc that the caller frees with free(). Returns the
/// buffer's length in bytes, or a negative code (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_FAILURE
/// for a bad `dtype_format`, BLOSC2_ERROR_INVALID_PARAM for bad dimensions).
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
    entry(|| {
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
                in_slice(shape, n)?,
                in_slice(chunkshape, n)?,
                in_slice(blockshape, n)?,
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

/// Decodes the "b2nd" metalayer content `smeta` (`smeta_len` bytes): writes the number of
/// dimensions to `*ndim` and fills `shape`, `chunkshape` and `blockshape` (each with room for
/// `B2ND_MAX_DIM` entries). When `dtype` and `dtype_format` are both non-NULL, `*dtype_format`
/// receives the format and `*dtype` a new string allocated with malloc (the caller frees it with
/// free()), or NULL when the metalayer has no dtype. Returns the number of bytes decoded, or a
/// negative code (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_FAILURE or BLOSC2_ERROR_DATA for
/// content that is not a valid metalayer).
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
    entry(|| {
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
        let mut bytes = unsafe { in_slice(smeta, smeta_len as usize)? };
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
            out_slice(shape, n)?.copy_from_slice(&m.shape);
            out_slice(chunkshape, n)?.copy_from_slice(&m.chunkshape);
            out_slice(blockshape, n)?.copy_from_slice(&m.blockshape);
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
            in_slice(src_pad_shape, n)?,
            in_slice(src_start, n)?,
            in_slice(src_stop, n)?,
            in_slice(dst_pad_shape, n)?,
            in_slice(dst_start, n)?,
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

/// Copies the region `src_start` .. `src_stop` (per dimension, stop exclusive) of the C-ordered
/// `ndim`-dimensional buffer `src`, whose full shape is `src_pad_shape`, into the C-ordered
/// buffer `dst` of shape `dst_pad_shape` at position `dst_start`. Items are `itemsize` bytes (at
/// most 255; see `b2nd_copy_buffer2` for larger). Returns 0, or a negative code
/// (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_INVALID_PARAM for a region outside either buffer).
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
    entry(|| {
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

/// As `b2nd_copy_buffer`, with an `int32_t` item size (items of any size). Returns 0 or a
/// negative code.
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
    entry(|| {
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

// ---------------------------------------------------------------------------------------------
// The array handle

/// What C holds as a `b2nd_array_t *`: the public struct first (so both addresses agree), then
/// an empty super-chunk that is swapped into `sc`'s handle while the core works on the array's
/// own super-chunk (the core's `Array` owns its store; the C layer keeps it in `sc`).
///
/// Views (`b2nd_squeeze`, `b2nd_squeeze_index`, `b2nd_expand_dims`) share their base's
/// super-chunk: a view's handle holds a clone of the base's `owner` and the `map` of its
/// dimensions onto the base's, so reads and writes through either reach the same chunks. As in
/// c-blosc2, a view's `sc` is a super-chunk of its own (in memory, `view` set, a b2nd metalayer
/// of the view's shape, the chunk counts of the base) that holds no chunks. The base's
/// super-chunk is freed with the last array that shares it, whatever the order of the
/// `b2nd_free` calls.
#[repr(C)]
struct ArrayHandle {
    c: b2nd_array_t,
    spare: Option<Schunk>,
    /// The super-chunk holding the chunks (`c.sc` of the base), shared by the array and its
    /// views (`None` only while the handle is built).
    owner: Option<Arc<SharedSchunk>>,
    /// For a view: its dimensions as dimensions of the array in `owner`.
    map: Option<DimMap>,
    /// For a view: its own `c.sc`, freed with it.
    description: Option<SharedSchunk>,
}

/// A super-chunk handle of the schunk C layer that several arrays share. Atomically counted:
/// C may free a base and its view from different threads.
struct SharedSchunk(*mut blosc2_schunk);

// SAFETY: the pointer is never dereferenced through a shared reference; the only use is the
// single free in `drop`, which the last owner runs, on whichever thread that is.
unsafe impl Send for SharedSchunk {}
// SAFETY: as above.
unsafe impl Sync for SharedSchunk {}

impl Drop for SharedSchunk {
    fn drop(&mut self) {
        // SAFETY: the last array sharing this live handle is gone; nothing else frees it.
        unsafe { blosc2_schunk_free(self.0) };
    }
}

/// An empty in-memory super-chunk (what stands in `sc`'s handle during a call).
fn placeholder() -> Result<Schunk> {
    let mut p = Schunk::new(Storage::default())?;
    // Its (empty) chunk list must never be mirrored into `schunk->data` while it stands in.
    p.take_list_changes();
    Ok(p)
}

/// # Safety
/// `p` is NULL or a live `b2nd_array_t *` from this module, with no other reference to it live.
unsafe fn array_handle<'a>(p: *const b2nd_array_t) -> Result<&'a mut ArrayHandle> {
    // SAFETY: the public struct is the first field of the repr(C) handle.
    unsafe { p.cast_mut().cast::<ArrayHandle>().as_mut() }.ok_or(Error::NullPointer)
}

/// Rewrites the public fields of `c` from the array, as c-blosc2's `update_shape` computes
/// them (dimensions past `ndim` are 1).
fn fill_fields(c: &mut b2nd_array_t, a: &Array<Schunk>) -> Result<()> {
    let g = a.geometry();
    let n = g.ndim();
    let strides = g.c_strides();
    c.ndim = n as i8;
    c.nitems = 1;
    c.extnitems = 1;
    c.extchunknitems = 1;
    c.chunknitems = 1;
    c.blocknitems = 1;
    for i in 0..MAX_DIM {
        if i < n {
            c.shape[i] = g.shape[i];
            c.chunkshape[i] = g.chunkshape[i] as i32;
            c.blockshape[i] = g.blockshape[i] as i32;
            c.extshape[i] = g.extshape[i];
            c.extchunkshape[i] = g.extchunkshape[i];
            c.item_array_strides[i] = strides.item_array[i];
            c.item_extchunk_strides[i] = strides.item_extchunk[i];
            c.item_chunk_strides[i] = strides.item_chunk[i];
            c.item_block_strides[i] = strides.item_block[i];
            c.block_chunk_strides[i] = strides.block_chunk[i];
            c.chunk_array_strides[i] = strides.chunk_array[i];
        } else {
            c.shape[i] = 1;
            c.chunkshape[i] = 1;
            c.blockshape[i] = 1;
            c.extshape[i] = 1;
            c.extchunkshape[i] = 1;
        }
        c.nitems = c.nitems.wrapping_mul(c.shape[i]);
        c.extnitems = c.extnitems.wrapping_mul(c.extshape[i]);
        c.extchunknitems = c.extchunknitems.wrapping_mul(c.extchunkshape[i]);
        c.chunknitems = c.chunknitems.wrapping_mul(c.chunkshape[i]);
        c.blocknitems = c.blocknitems.wrapping_mul(c.blockshape[i]);
    }
    // SAFETY: c.dtype is NULL or a malloc'd C string of ours.
    let current = unsafe { c_str(c.dtype) };
    if current != a.dtype() || (c.dtype.is_null() != a.dtype().is_none()) {
        let new = match a.dtype() {
            Some(d) => malloc_cstring(d)?,
            None => ptr::null_mut(),
        };
        // SAFETY: the old string is ours (malloc'd) and no longer referenced.
        unsafe { libc::free(c.dtype.cast()) };
        c.dtype = new;
    }
    c.dtype_format = a.dtype_format();
    if !c.sc.is_null() {
        // SAFETY: sc is the array's live super-chunk handle.
        c.last_tick = unsafe { (*c.sc).change_tick };
    }
    Ok(())
}

/// Runs `f` on the core array behind `p`, then puts the super-chunk back in `sc`'s handle and
/// re-syncs the public fields of both.
///
/// # Safety
/// As for [`array_handle`]; `sc` is a live super-chunk handle.
unsafe fn with_array<R>(
    p: *const b2nd_array_t,
    f: impl FnOnce(&mut Array<Schunk>) -> Result<R>,
) -> Result<R> {
    // SAFETY: forwarded contract.
    let h = unsafe { array_handle(p) }?;
    let sc = h.c.sc;
    // A view's chunks are in its base's super-chunk.
    let data_sc = match (&h.map, &h.owner) {
        (Some(_), Some(owner)) => owner.0,
        _ => sc,
    };
    // SAFETY: data_sc is NULL or the array's live super-chunk handle.
    let slot = unsafe { schunk_mut(data_sc) }.ok_or(Error::NullPointer)?;
    // Checked first: a failing from_store (or view_of) would take the super-chunk down with it.
    let (_, base) = store_layout(&*slot)?;
    if let Some(map) = &h.map {
        map.apply(&base)?;
    }
    let spare = match h.spare.take() {
        Some(s) => s,
        None => placeholder()?,
    };
    let store = std::mem::replace(slot, spare);
    let mut a = match &h.map {
        Some(map) => Array::view_of(store, map)?,
        None => Array::from_store(store)?,
    };
    let r = f(&mut a);
    let mut filled = fill_fields(&mut h.c, &a);
    if data_sc != sc {
        // SAFETY: sc is NULL or the view's own live super-chunk handle (not data_sc's).
        if let Some(desc) = unsafe { schunk_mut(sc) } {
            filled = filled.and(a.describe_into(desc));
        }
    }
    h.spare = Some(std::mem::replace(slot, a.into_store()));
    // SAFETY: as above; the slot reference is not used after this point.
    unsafe { sync_mirror(data_sc) };
    if data_sc != sc && !sc.is_null() {
        // SAFETY: both live handles; the view's mirror shows its base's chunk counts, as the
        // view's super-chunk does in c-blosc2 (it points at the base's chunks).
        unsafe {
            sync_mirror(sc);
            (*sc).view = true;
            // As c-blosc2: the view's super-chunk points at its base's chunk pointers (the
            // view's handle neither fills nor frees them).
            (*sc).data = (*data_sc).data;
            set_chunk_source(sc, data_sc);
            (*sc).data_len = (*data_sc).data_len;
            (*sc).nchunks = (*data_sc).nchunks;
            (*sc).chunksize = (*data_sc).chunksize;
            (*sc).nbytes = (*data_sc).nbytes;
            (*sc).cbytes = (*data_sc).cbytes;
        }
    }
    if !sc.is_null() {
        // SAFETY: live handle.
        h.c.last_tick = unsafe { (*sc).change_tick };
    }
    filled?;
    r
}

/// A new C array around a super-chunk handle already holding an array.
///
/// # Safety
/// `sc` is a live super-chunk handle; the new array owns it.
unsafe fn handle_for_schunk(sc: *mut blosc2_schunk) -> Result<*mut b2nd_array_t> {
    // SAFETY: forwarded contract.
    let p = unsafe { new_handle(sc, None) }?;
    // SAFETY: p is the live handle just made; from now on it owns sc.
    unsafe { array_handle(p) }?.owner = Some(Arc::new(SharedSchunk(sc)));
    Ok(p)
}

/// A new C array around `sc`: the array the super-chunk holds, or with `view`, a view of it
/// sharing `sc` through `owner`. On failure `sc` is left as it was.
///
/// # Safety
/// `sc` is a live super-chunk handle.
unsafe fn new_handle(
    sc: *mut blosc2_schunk,
    view: Option<(Arc<SharedSchunk>, DimMap)>,
) -> Result<*mut b2nd_array_t> {
    // SAFETY: every field of b2nd_array_t is an integer or a raw pointer: all-zero is valid.
    let c: b2nd_array_t = unsafe { std::mem::zeroed() };
    let (owner, map) = match view {
        Some((owner, map)) => (Some(owner), Some(map)),
        None => (None, None),
    };
    let is_view = map.is_some();
    let mut h = Box::new(ArrayHandle {
        c,
        spare: Some(placeholder()?),
        owner,
        map,
        description: None,
    });
    // A view gets its own super-chunk below, once its shape is known.
    h.c.sc = if is_view { ptr::null_mut() } else { sc };
    h.c.chunk_cache = chunk_cache_s {
        data: ptr::null_mut(),
        nchunk: -1,
    };
    let p: *mut b2nd_array_t = &mut h.c;
    let raw = Box::into_raw(h);
    // SAFETY: p points into the live box `raw`; the view's own super-chunk goes into it as
    // soon as it exists, so that the error path frees it.
    let made = unsafe {
        with_array(p, |a| match is_view {
            true => a.view_description().map(Some),
            false => Ok(None),
        })
        .and_then(|desc| match desc {
            Some(desc) => {
                let own = schunk_into_c(desc);
                if own.is_null() {
                    return Err(Error::Failure);
                }
                (*raw).description = Some(SharedSchunk(own));
                (*raw).c.sc = own;
                // Again, now that the view's super-chunk is there to follow the base.
                with_array(p, |_| Ok(()))
            }
            None => Ok(()),
        })
    };
    match made {
        Ok(()) => Ok(raw.cast()),
        Err(e) => {
            // SAFETY: raw came from Box::into_raw above; sc stays the caller's (or, for a
            // view, its base's: dropping the owner clone leaves the base's reference).
            let h = unsafe { Box::from_raw(raw) };
            // SAFETY: the dtype is ours.
            unsafe { libc::free(h.c.dtype.cast()) };
            Err(e)
        }
    }
}

/// Gives a core array to C.
fn into_c(a: Array<Schunk>) -> Result<*mut b2nd_array_t> {
    let sc = schunk_into_c(a.into_store());
    if sc.is_null() {
        return Err(Error::Failure);
    }
    // SAFETY: sc is the fresh handle just made; on failure it is freed here.
    unsafe {
        handle_for_schunk(sc).inspect_err(|_| {
            blosc2_schunk_free(sc);
        })
    }
}

/// Writes a new array into `*out` (NULL `out` is an error).
///
/// # Safety
/// `out` is NULL or writable.
unsafe fn put(out: *mut *mut b2nd_array_t, a: Array<Schunk>) -> Result<c_int> {
    if out.is_null() {
        return Err(Error::NullPointer);
    }
    let p = into_c(a)?;
    // SAFETY: non-NULL and writable per the contract.
    unsafe { *out = p };
    Ok(0)
}

/// Whether `p` is a view (see [`ArrayHandle`]).
///
/// # Safety
/// `p` is NULL or a live array of ours.
unsafe fn is_view(p: *const b2nd_array_t) -> bool {
    // SAFETY: forwarded contract; the reference ends here.
    unsafe { array_handle(p) }.is_ok_and(|h| h.map.is_some())
}

/// The parameters of a copy of `a` with its own chunk and block shapes, in `options`.
fn copy_params(a: &Array<Schunk>, options: Storage) -> Params<Storage> {
    let src = a.store();
    Params {
        cparams: src.cparams().clone(),
        dparams: src.dparams().clone(),
        options,
        shape: a.shape().to_vec(),
        chunkshape: a.chunkshape(),
        blockshape: a.blockshape(),
        dtype: a.dtype().unwrap_or(meta::DEFAULT_DTYPE).to_string(),
        dtype_format: a.dtype_format(),
        metalayers: Vec::new(),
    }
}

/// A view as a super-chunk of its own in a contiguous frame in memory (its chunks copied as
/// they are, its own b2nd metalayer): what c-blosc2 serialises for a view.
fn view_frame(a: &Array<Schunk>) -> Result<Schunk> {
    let options = Storage {
        contiguous: true,
        ..Storage::default()
    };
    Ok(a.copy::<Schunk>(&copy_params(a, options))?.into_store())
}

/// The core parameters of a context.
fn params_of(ctx: &B2ndCtx) -> Result<Params<Storage>> {
    // SAFETY: `b2_storage` points at the context's own storage (or, if a caller repointed it
    // as c-blosc2's struct allows, at theirs), whose pointers are NULL or live.
    let storage = unsafe { storage_from_c(ctx.b2_storage) }?;
    Ok(Params {
        cparams: storage.cparams.clone(),
        dparams: storage.dparams.clone(),
        shape: ctx.shape()?.to_vec(),
        chunkshape: ctx.chunkshape()?.to_vec(),
        blockshape: ctx.blockshape()?.to_vec(),
        dtype: ctx.dtype_owned.to_string_lossy().into_owned(),
        dtype_format: ctx.dtype_format,
        metalayers: ctx.metalayers(),
        options: storage,
    })
}

/// The shared body of the constructors from a context.
///
/// # Safety
/// `ctx` is NULL or a live context; `array` is NULL or writable.
unsafe fn create(
    ctx: *mut b2nd_context_s,
    array: *mut *mut b2nd_array_t,
    make: impl FnOnce(&Params<Storage>) -> Result<Array<Schunk>>,
) -> c_int {
    entry(|| {
        // SAFETY: forwarded contract.
        let ctx = unsafe { B2ndCtx::from_handle(ctx) }?;
        if array.is_null() {
            return Err(Error::NullPointer);
        }
        let a = make(&params_of(ctx)?)?;
        // SAFETY: forwarded contract.
        unsafe { put(array, a) }
    })
}

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
    // SAFETY: forwarded contract; the buffer holds buffersize bytes.
    unsafe {
        create(ctx, array, |p| {
            let len = usize::try_from(buffersize).map_err(|_| Error::InvalidParam)?;
            Array::from_cbuffer(p, in_slice(buffer.cast::<u8>(), len)?)
        })
    }
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
unsafe fn adopt(sc: *mut blosc2_schunk, array: *mut *mut b2nd_array_t, null: Error) -> c_int {
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
    if cframe.is_null() || array.is_null() {
        return Error::NullPointer.code();
    }
    // SAFETY: forwarded contract (cframe holds cframe_len bytes).
    unsafe {
        let sc = blosc2_schunk_from_buffer(cframe, cframe_len, copy);
        adopt(sc, array, Error::Failure)
    }
}

/// Opens the array stored at `urlpath` (a contiguous frame file or a sparse frame directory).
/// Changes to the array are written back to it. `*array` receives the array; the caller releases
/// it with `b2nd_free` (which leaves the file on disk). Returns 0, or a negative code
/// (BLOSC2_ERROR_FILE_OPEN when it cannot be opened as a frame, BLOSC2_ERROR_METALAYER_NOT_FOUND,
/// ...).
#[no_mangle]
pub unsafe extern "C" fn b2nd_open(urlpath: *const c_char, array: *mut *mut b2nd_array_t) -> c_int {
    if urlpath.is_null() || array.is_null() {
        return Error::NullPointer.code();
    }
    // SAFETY: forwarded contract.
    unsafe { adopt(blosc2_schunk_open(urlpath), array, Error::NullPointer) }
}

/// As `b2nd_open`, for a frame that starts `offset` bytes into the file (see `b2nd_save_append`).
/// Returns 0 or a negative code.
#[no_mangle]
pub unsafe extern "C" fn b2nd_open_offset(
    urlpath: *const c_char,
    array: *mut *mut b2nd_array_t,
    offset: i64,
) -> c_int {
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
}

/// Releases `array`: its super-chunk (unless a view still shares it: the last of an array and its
/// views to be freed frees it) and its fields. Data on disk stays. Returns 0, or
/// BLOSC2_ERROR_NULL_POINTER for NULL.
#[no_mangle]
pub unsafe extern "C" fn b2nd_free(array: *mut b2nd_array_t) -> c_int {
    entry(|| {
        if array.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: a live array of ours, not used after this call (per the API).
        let h = unsafe { Box::from_raw(array.cast::<ArrayHandle>()) };
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

// ---------------------------------------------------------------------------------------------
// Reading and writing items

/// The array's ndim (0 for NULL; the caller's function reports NULL itself).
///
/// # Safety
/// `p` is NULL or a live array.
unsafe fn ndim_of(p: *const b2nd_array_t) -> usize {
    // SAFETY: forwarded contract.
    unsafe { p.as_ref() }.map_or(0, |a| a.ndim.clamp(0, MAX_DIM as i8) as usize)
}

/// Decompresses the whole `array` into the C-ordered buffer `buffer` of `buffersize` bytes (at
/// least the item count times the item size). Returns 0, or a negative code
/// (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_INVALID_PARAM when `buffersize` is too small, a
/// decompression error).
#[no_mangle]
pub unsafe extern "C" fn b2nd_to_cbuffer(
    array: *const b2nd_array_t,
    buffer: *mut c_void,
    buffersize: i64,
) -> c_int {
    entry(|| {
        // SAFETY: NULL or a live array per the API.
        let _held = unsafe { hold_shared(array) }?;
        // SAFETY: as above.
        unsafe { follow_writer(array) }?;
        if array.is_null() || buffer.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: live array; the buffer holds buffersize bytes.
        unsafe {
            let out = out_bytes(buffer, buffersize)?;
            with_array(array, |a| a.to_cbuffer(out))?;
        }
        Ok(0)
    })
}

/// Decompresses the region `start` .. `stop` (one entry per dimension, stop exclusive) of
/// `array` into `buffer`, a C-ordered buffer of shape `buffershape` (which must be at least the
/// region's shape) and `buffersize` bytes; the region is written at the buffer's origin. Returns
/// 0, or a negative code (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_INVALID_PARAM for a region
/// outside the array or a buffer too small, a decompression error).
#[no_mangle]
pub unsafe extern "C" fn b2nd_get_slice_cbuffer(
    array: *const b2nd_array_t,
    start: *const i64,
    stop: *const i64,
    buffer: *mut c_void,
    buffershape: *const i64,
    buffersize: i64,
) -> c_int {
    entry(|| {
        // SAFETY: NULL or a live array per the API.
        let _held = unsafe { hold_shared(array) }?;
        // SAFETY: as above.
        unsafe { follow_writer(array) }?;
        if array.is_null() || start.is_null() || stop.is_null() || buffershape.is_null() {
            return Err(Error::NullPointer);
        }
        if buffer.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: live array; ndim items in each coordinate list; buffersize bytes of buffer.
        unsafe {
            let n = ndim_of(array);
            let (start, stop, shape) = (
                in_slice(start, n)?,
                in_slice(stop, n)?,
                in_slice(buffershape, n)?,
            );
            let out = out_bytes(buffer, buffersize)?;
            with_array(array, |a| a.get_slice_cbuffer(start, stop, out, shape))?;
        }
        Ok(0)
    })
}

/// Writes the C-ordered `buffer` (shape `buffershape`, `buffersize` bytes) into the region
/// `start` .. `stop` (stop exclusive) of `array`, recompressing the chunks involved. The buffer is
/// only read. Returns 0, or a negative code (BLOSC2_ERROR_NULL_POINTER,
/// BLOSC2_ERROR_INVALID_PARAM for a region outside the array or a buffer too small, a compression
/// or storage error).
#[no_mangle]
pub unsafe extern "C" fn b2nd_set_slice_cbuffer(
    buffer: *const c_void,
    buffershape: *const i64,
    buffersize: i64,
    start: *const i64,
    stop: *const i64,
    array: *mut b2nd_array_t,
) -> c_int {
    entry(|| {
        // SAFETY: NULL or a live array per the API.
        unsafe { follow_writer(array) }?;
        if array.is_null() || start.is_null() || stop.is_null() || buffer.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: live array; ndim items in each coordinate list; buffersize bytes of buffer.
        unsafe {
            let n = ndim_of(array);
            let (start, stop, shape) = (
                in_slice(start, n)?,
                in_slice(stop, n)?,
                in_slice(buffershape, n)?,
            );
            let data = in_bytes(buffer, buffersize)?;
            with_array(array, |a| a.set_slice_cbuffer(data, shape, start, stop))?;
        }
        Ok(0)
    })
}

/// Decompresses the `ncoords` items whose coordinates are in `coords` (`ncoords * ndim` entries,
/// one item after another) into `buffer` (`buffersize` bytes, at least `ncoords` items). Returns
/// 0, or a negative code (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_INVALID_PARAM for a coordinate
/// outside the array or a buffer too small).
#[no_mangle]
pub unsafe extern "C" fn b2nd_get_sparse_cbuffer(
    array: *const b2nd_array_t,
    ncoords: i64,
    coords: *const i64,
    buffer: *mut c_void,
    buffersize: i64,
) -> c_int {
    entry(|| {
        // SAFETY: NULL or a live array per the API.
        let _held = unsafe { hold_shared(array) }?;
        // SAFETY: as above.
        unsafe { follow_writer(array) }?;
        if array.is_null() {
            return Err(Error::NullPointer);
        }
        let n = usize::try_from(ncoords).map_err(|_| Error::InvalidParam)?;
        // SAFETY: ncoords coordinates and buffersize bytes, per the contract.
        unsafe {
            let coords = in_slice(coords, n)?;
            // c-blosc2 reports a coordinate outside the array as a bad parameter.
            let nitems = (*array).nitems;
            if coords.iter().any(|c| *c < 0 || *c >= nitems) {
                return Err(Error::InvalidParam);
            }
            let out = if n == 0 {
                &mut []
            } else {
                if buffer.is_null() {
                    return Err(Error::NullPointer);
                }
                out_bytes(buffer, buffersize)?
            };
            with_array(array, |a| a.get_sparse_cbuffer(coords, out))?;
        }
        Ok(0)
    })
}

/// The per-dimension index lists of an orthogonal selection, with c-blosc2's checks (an index
/// above the extent is `InvalidIndex`; a buffer larger than the selection `InvalidParam`).
///
/// # Safety
/// `selection` holds ndim pointers to `selection_size[i]` indices each.
unsafe fn selection_of<'a>(
    array: *const b2nd_array_t,
    selection: *mut *mut i64,
    selection_size: *mut i64,
    buffersize: i64,
) -> Result<Vec<&'a [i64]>> {
    if array.is_null() || selection.is_null() || selection_size.is_null() {
        return Err(Error::NullPointer);
    }
    // SAFETY: live array.
    let (n, typesize) = unsafe { (ndim_of(array), (*(*array).sc).typesize) };
    // SAFETY: ndim pointers and sizes per the contract.
    let (lists, sizes) = unsafe {
        (
            in_slice(selection.cast_const(), n)?,
            in_slice(selection_size.cast_const(), n)?,
        )
    };
    let mut out = Vec::with_capacity(n);
    let mut sel_bytes = i64::from(typesize);
    for (p, size) in lists.iter().zip(sizes) {
        if p.is_null() {
            return Err(Error::NullPointer);
        }
        let len = usize::try_from(*size).map_err(|_| Error::InvalidParam)?;
        // SAFETY: `size` indices at `p`, per the contract.
        out.push(unsafe { in_slice(p.cast_const(), len)? });
        sel_bytes = sel_bytes.saturating_mul(*size);
    }
    if sel_bytes < buffersize {
        return Err(Error::InvalidParam);
    }
    Ok(out)
}

/// Reads an orthogonal selection of `array`: for each dimension d, `selection[d]` lists
/// `selection_size[d]` indexes along it; the result (every combination, C order) goes to
/// `buffer`, of shape `buffershape` (`selection_size`) and `buffersize` bytes. Returns 0, or a
/// negative code (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_INVALID_PARAM for an index out of
/// range or a buffer too small).
#[no_mangle]
pub unsafe extern "C" fn b2nd_get_orthogonal_selection(
    array: *const b2nd_array_t,
    selection: *mut *mut i64,
    selection_size: *mut i64,
    buffer: *mut c_void,
    buffershape: *mut i64,
    buffersize: i64,
) -> c_int {
    entry(|| {
        // SAFETY: NULL or a live array per the API.
        let _held = unsafe { hold_shared(array) }?;
        // SAFETY: as above.
        unsafe { follow_writer(array) }?;
        // SAFETY: per the contract (see selection_of); buffersize bytes of buffer, ndim extents.
        unsafe {
            let sel = selection_of(array, selection, selection_size, buffersize)?;
            let shape = in_slice(buffershape.cast_const(), ndim_of(array))?;
            let out = out_bytes(buffer, buffersize)?;
            with_array(array, |a| a.get_orthogonal_selection(&sel, out, shape))?;
        }
        Ok(0)
    })
}

/// Writes `buffer` (shape `buffershape`, `buffersize` bytes) to the orthogonal selection of
/// `array` that `selection` / `selection_size` describe (as in `b2nd_get_orthogonal_selection`).
/// Returns 0 or a negative code.
#[no_mangle]
pub unsafe extern "C" fn b2nd_set_orthogonal_selection(
    array: *mut b2nd_array_t,
    selection: *mut *mut i64,
    selection_size: *mut i64,
    buffer: *const c_void,
    buffershape: *mut i64,
    buffersize: i64,
) -> c_int {
    entry(|| {
        // SAFETY: NULL or a live array per the API.
        unsafe { follow_writer(array) }?;
        // SAFETY: as in b2nd_get_orthogonal_selection.
        unsafe {
            let sel = selection_of(array, selection, selection_size, buffersize)?;
            let shape = in_slice(buffershape.cast_const(), ndim_of(array))?;
            let data = in_bytes(buffer, buffersize)?;
            with_array(array, |a| a.set_orthogonal_selection(&sel, data, shape))?;
        }
        Ok(0)
    })
}

// ---------------------------------------------------------------------------------------------
// New arrays from arrays

/// Creates a new array, with the storage and shapes `ctx` gives (its shape is replaced by the
/// region's), holding a copy of the region `start` .. `stop` (stop exclusive) of `src`. `*array`
/// receives it; the caller releases it with `b2nd_free`. Returns 0, or a negative code
/// (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_INVALID_PARAM for a region outside `src`, ...).
#[no_mangle]
pub unsafe extern "C" fn b2nd_get_slice(
    ctx: *mut b2nd_context_s,
    array: *mut *mut b2nd_array_t,
    src: *const b2nd_array_t,
    start: *const i64,
    stop: *const i64,
) -> c_int {
    entry(|| {
        // SAFETY: NULL or a live array per the API.
        let _held = unsafe { hold_shared(src) }?;
        // SAFETY: as above.
        unsafe { follow_writer(src) }?;
        if src.is_null() || start.is_null() || stop.is_null() || array.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: live context and array; ndim coordinates each.
        unsafe {
            let ctx = B2ndCtx::from_handle(ctx)?;
            let n = ndim_of(src);
            let (start, stop) = (in_slice(start, n)?, in_slice(stop, n)?);
            // As c-blosc2 does, the context takes the slice's shape.
            ctx.ndim = n as i8;
            for d in 0..n {
                ctx.shape[d] = stop[d].wrapping_sub(start[d]);
            }
            let params = params_of(ctx)?;
            let out = with_array(src, |a| a.get_slice::<Schunk>(&params, start, stop))?;
            put(array, out)
        }
    })
}

/// Copies `src` into a new array with the storage, chunk shape and block shape `ctx` gives
/// (chunks are reused as they are when the layouts match). `*array` receives the copy; the caller
/// releases it with `b2nd_free`. Returns 0 or a negative code.
#[no_mangle]
pub unsafe extern "C" fn b2nd_copy(
    ctx: *mut b2nd_context_s,
    src: *const b2nd_array_t,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    entry(|| {
        // SAFETY: NULL or a live array per the API.
        let _held = unsafe { hold_shared(src) }?;
        // SAFETY: as above.
        unsafe { follow_writer(src) }?;
        if src.is_null() || array.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: live context and array.
        unsafe {
            let ctx = B2ndCtx::from_handle(ctx)?;
            let n = ndim_of(src);
            ctx.ndim = n as i8;
            let shape = (*src).shape;
            ctx.shape[..n].copy_from_slice(&shape[..n]);
            let params = params_of(ctx)?;
            let out = with_array(src, |a| a.copy::<Schunk>(&params))?;
            put(array, out)
        }
    })
}

/// Joins `src2` to `src1` along `axis`, into a copy made with `ctx` or (`copy` false) into
/// `src1` itself. `src1` and `src2` may be the same array in both modes; in place, c-blosc2
/// 3.3.5 then reads the second half from the already grown array and fails part way
/// (-1 or -12, the array half written); here the array ends up holding its content twice.
#[no_mangle]
pub unsafe extern "C" fn b2nd_concatenate(
    ctx: *mut b2nd_context_s,
    src1: *const b2nd_array_t,
    src2: *const b2nd_array_t,
    axis: i8,
    copy: bool,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    entry(|| {
        // SAFETY: NULL or a live array per the API.
        unsafe { follow_writer(src1) }?;
        // SAFETY: as above.
        unsafe { follow_writer(src2) }?;
        if src1.is_null() || src2.is_null() || array.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: live arrays (and context when copying).
        unsafe {
            let n = ndim_of(src1);
            let axis = usize::try_from(axis)
                .ok()
                .filter(|a| *a < n)
                .ok_or(Error::InvalidParam)?;
            if copy {
                let mut fresh = ptr::null_mut();
                let rc = b2nd_copy(ctx, src1, &mut fresh);
                if rc < 0 {
                    return Ok(rc);
                }
                let joined = with_array(src2, |b| with_array(fresh, |a| a.concatenate(b, axis)));
                if let Err(e) = joined {
                    b2nd_free(fresh);
                    return Err(e);
                }
                *array = fresh;
            } else if ptr::eq(src1, src2) {
                // The core array owns its super-chunk while a call runs: the same handle
                // cannot be taken twice, and the second half must be read before it grows.
                with_array(src1, |a| a.concatenate_self(axis))?;
                *array = src1.cast_mut();
            } else {
                with_array(src2, |b| with_array(src1, |a| a.concatenate(b, axis)))?;
                *array = src1.cast_mut();
            }
        }
        Ok(0)
    })
}

/// Shared body of squeeze / squeeze_index / expand_dims: `derive` gives the view's map from
/// the array's own (identity for a base) and geometry; the view shares the array's super-chunk.
/// When `derive` gives `None` (the chunks' layout would differ), `copy` makes an in-memory
/// copy instead: c-blosc2's view then cannot read its data.
///
/// # Safety
/// `array` is NULL or live; `view` is NULL or writable.
unsafe fn view_of(
    array: *const b2nd_array_t,
    view: *mut *mut b2nd_array_t,
    derive: impl FnOnce(&DimMap, &crate::b2nd::shape::Geometry) -> Result<Option<DimMap>>,
    copy: impl FnOnce(&Array<Schunk>) -> Result<Array<Schunk>>,
) -> c_int {
    entry(|| {
        // SAFETY: NULL or a live array per the API.
        let _held = unsafe { hold_shared(array) }?;
        // SAFETY: as above.
        unsafe { follow_writer(array) }?;
        if array.is_null() || view.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: forwarded contract; the handle reference ends before with_array.
        let (sc, owner, own_map) = {
            let h = unsafe { array_handle(array) }?;
            (h.c.sc, h.owner.clone(), h.map.clone())
        };
        // SAFETY: forwarded contract.
        let map = unsafe {
            with_array(array, |a| {
                a.check_only_b2nd_meta()?;
                let own = own_map.unwrap_or_else(|| DimMap::identity(a.ndim()));
                derive(&own, a.geometry())
            })
        }?;
        match (map, owner) {
            (Some(map), Some(owner)) => {
                // SAFETY: sc is the array's live super-chunk, kept alive by `owner`.
                let p = unsafe { new_handle(sc, Some((owner, map))) }?;
                // SAFETY: non-NULL and writable per the contract.
                unsafe { *view = p };
                Ok(0)
            }
            (Some(_), None) => Err(Error::Failure),
            // SAFETY: forwarded contract.
            (None, _) => unsafe {
                let out = with_array(array, |a| copy(a))?;
                put(view, out)
            },
        }
    })
}

/// A view of `array` without the dimensions `index` marks (ndim entries; each marked dimension
/// must have extent 1, else BLOSC2_ERROR_INVALID_INDEX). The view shares `array`'s chunks:
/// writes through either show in both, and the two are freed with b2nd_free in either order.
/// Its `sc` is a super-chunk of its own in memory (`view` set, a b2nd metalayer of the view's
/// shape) that holds no chunks. A view cannot change its shape (BLOSC2_ERROR_INVALID_PARAM);
/// it follows its base's. When a dropped dimension has a chunk or block extent above 1 (its
/// chunks hold padding along it), the result is an in-memory copy instead: c-blosc2 3.3.5
/// returns a view that cannot read its items. For threads, a view and its base are one array:
/// calls on them must not overlap (as in c-blosc2, where they share one chunk list).
#[no_mangle]
pub unsafe extern "C" fn b2nd_squeeze_index(
    array: *mut b2nd_array_t,
    view: *mut *mut b2nd_array_t,
    index: *const bool,
) -> c_int {
    // SAFETY: ndim flags at `index`, per the contract.
    let index = match unsafe { in_slice(index, ndim_of(array)) } {
        Ok(i) => i,
        Err(e) => return e.code(),
    };
    // SAFETY: forwarded contract.
    unsafe {
        view_of(
            array,
            view,
            |m, g| m.squeeze(g, index),
            |a| a.squeeze_index(index),
        )
    }
}

/// b2nd_squeeze_index with every dimension of extent 1 marked.
#[no_mangle]
pub unsafe extern "C" fn b2nd_squeeze(
    array: *mut b2nd_array_t,
    view: *mut *mut b2nd_array_t,
) -> c_int {
    // SAFETY: forwarded contract.
    unsafe {
        view_of(
            array,
            view,
            |m, g| {
                let index: Vec<bool> = g.shape.iter().map(|s| *s == 1).collect();
                m.squeeze(g, &index)
            },
            Array::squeeze,
        )
    }
}

#[no_mangle]
pub unsafe extern "C" fn b2nd_expand_dims(
    array: *const b2nd_array_t,
    view: *mut *mut b2nd_array_t,
    axis: *const bool,
    final_dims: u8,
) -> c_int {
    // SAFETY: final_dims flags at `axis`, per the contract.
    let axis = match unsafe { in_slice(axis, usize::from(final_dims)) } {
        Ok(a) => a,
        Err(e) => return e.code(),
    };
    // SAFETY: forwarded contract.
    unsafe {
        view_of(
            array,
            view,
            |m, _| m.expand(axis).map(Some),
            |a| a.expand_dims(axis),
        )
    }
}

// ---------------------------------------------------------------------------------------------
// Changing the shape

/// Changes the shape of `array` to `new_shape` (`ndim` entries). A dimension that grows gets new
/// zero items at `start[d]` (NULL `start`: at the end); one that shrinks loses items from
/// `start[d]` (NULL: from the end). Away from the end, `start[d]` and the change must be
/// multiples of the chunk shape. Returns 0, or a negative code (BLOSC2_ERROR_NULL_POINTER,
/// BLOSC2_ERROR_INVALID_PARAM for a view, a misaligned start or a bad shape, a storage error).
#[no_mangle]
pub unsafe extern "C" fn b2nd_resize(
    array: *mut b2nd_array_t,
    new_shape: *const i64,
    start: *const i64,
) -> c_int {
    entry(|| {
        // SAFETY: NULL or a live array per the API.
        unsafe { follow_writer(array) }?;
        if array.is_null() || new_shape.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: live array; ndim items each (start may be NULL).
        unsafe {
            let n = ndim_of(array);
            let shape = in_slice(new_shape, n)?;
            let start = if start.is_null() {
                None
            } else {
                Some(in_slice(start, n)?)
            };
            with_array(array, |a| a.resize(shape, start))?;
        }
        Ok(0)
    })
}

/// `axis` as a dimension of the array, or `InvalidParam`.
///
/// # Safety
/// `array` is live.
unsafe fn axis_of(array: *const b2nd_array_t, axis: i8) -> Result<usize> {
    // SAFETY: forwarded contract.
    let n = unsafe { ndim_of(array) };
    usize::try_from(axis)
        .ok()
        .filter(|a| *a < n)
        .ok_or(Error::InvalidParam)
}

/// Inserts the C-ordered `buffer` (`buffersize` bytes; its shape is the array's with
/// dimension `axis` set to what the size gives) into `array` along `axis`, at index
/// `insert_start`. Returns 0, or a negative code (BLOSC2_ERROR_NULL_POINTER,
/// BLOSC2_ERROR_INVALID_PARAM for a bad axis, position or size).
#[no_mangle]
pub unsafe extern "C" fn b2nd_insert(
    array: *mut b2nd_array_t,
    buffer: *const c_void,
    buffersize: i64,
    axis: i8,
    insert_start: i64,
) -> c_int {
    entry(|| {
        // SAFETY: NULL or a live array per the API.
        unsafe { follow_writer(array) }?;
        if array.is_null() || buffer.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: live array; buffersize bytes of buffer.
        unsafe {
            let axis = axis_of(array, axis)?;
            let data = in_bytes(buffer, buffersize)?;
            with_array(array, |a| a.insert(data, axis, insert_start))?;
        }
        Ok(0)
    })
}

/// Appends the C-ordered `buffer` (`buffersize` bytes) to `array` along `axis` (as `b2nd_insert`
/// at the end of that axis). Returns 0 or a negative code.
#[no_mangle]
pub unsafe extern "C" fn b2nd_append(
    array: *mut b2nd_array_t,
    buffer: *const c_void,
    buffersize: i64,
    axis: i8,
) -> c_int {
    entry(|| {
        // SAFETY: NULL or a live array per the API.
        unsafe { follow_writer(array) }?;
        if array.is_null() || buffer.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: live array; buffersize bytes of buffer.
        unsafe {
            let axis = axis_of(array, axis)?;
            let data = in_bytes(buffer, buffersize)?;
            with_array(array, |a| a.append(data, axis))?;
        }
        Ok(0)
    })
}

/// Removes `delete_len` items along `axis`, starting at index `delete_start`, from `array`.
/// Returns 0, or a negative code (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_INVALID_PARAM for a bad
/// axis or range).
#[no_mangle]
pub unsafe extern "C" fn b2nd_delete(
    array: *mut b2nd_array_t,
    axis: i8,
    delete_start: i64,
    delete_len: i64,
) -> c_int {
    entry(|| {
        // SAFETY: NULL or a live array per the API.
        unsafe { follow_writer(array) }?;
        if array.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: live array.
        unsafe {
            let axis = axis_of(array, axis)?;
            with_array(array, |a| a.delete(axis, delete_start, delete_len))?;
        }
        Ok(0)
    })
}

/// Re-reads a disk-based array another handle changed: the super-chunk is refreshed
/// (`blosc2_schunk_refresh`: 1 when it changed, 0 when current or not on disk) and the public
/// fields follow the new shape; a changed ndim, chunk shape or block shape is
/// BLOSC2_ERROR_DATA. As in c-blosc2, the data functions (slices, selections, copies, shape
/// changes, save) do this first by themselves; calling it is for seeing another handle's shape
/// change without touching data. For a view (b2nd_squeeze, b2nd_expand_dims), its base's
/// super-chunk is refreshed and the view's fields follow its base's shape (1 when the view's
/// shape changed); a dimension the view dropped that grew past 1 is BLOSC2_ERROR_INVALID_PARAM.
#[no_mangle]
pub unsafe extern "C" fn b2nd_refresh(array: *mut b2nd_array_t) -> c_int {
    // SAFETY: forwarded contract.
    entry(|| unsafe { refresh_array(array) })
}

/// The body of [`b2nd_refresh`].
///
/// # Safety
/// `array` is NULL or a live array of ours.
unsafe fn refresh_array(array: *mut b2nd_array_t) -> Result<c_int> {
    // SAFETY: a live array per the contract (the handle reference ends here).
    let (ndim, chunkshape, blockshape, sc, view_of) = {
        let h = unsafe { array_handle(array) }?;
        let base = h.map.as_ref().and(h.owner.as_ref()).map(|o| o.0);
        (h.c.ndim, h.c.chunkshape, h.c.blockshape, h.c.sc, base)
    };
    if let Some(base) = view_of {
        // A view follows its base's super-chunk, which this or another handle may have
        // changed: its fields follow through its map (an error once the base no longer fits
        // the view). 1 when the view's shape changed.
        // SAFETY: the base's live super-chunk handle, kept alive by the view.
        let rc = unsafe { blosc2_schunk_refresh(base) };
        if rc < 0 {
            return Ok(rc);
        }
        // SAFETY: a live array.
        let before = unsafe { (*array).shape };
        // SAFETY: a live array.
        unsafe { with_array(array, |_| Ok(())) }?;
        // SAFETY: a live array.
        let changed = unsafe { (*array).shape } != before;
        return Ok(rc.max(c_int::from(changed)));
    }
    // SAFETY: its live super-chunk handle.
    let rc = unsafe { blosc2_schunk_refresh(sc) };
    if rc < 0 {
        return Ok(rc);
    }
    // The super-chunk may have been refreshed before (a client refreshing it first, as
    // python-blosc2's holding_lock does): as c-blosc2, the array re-reads its metalayer
    // whenever the super-chunk's change tick moved since the array last looked.
    // SAFETY: a live array and its live super-chunk handle.
    let stale_array = unsafe { (*array).last_tick != (*sc).change_tick };
    if rc == 0 && !stale_array {
        return Ok(0);
    }
    // SAFETY: as above.
    let sc = unsafe { schunk_ref(sc) }.ok_or(Error::NullPointer)?;
    let m = read_meta(sc)?;
    let n = m.ndim();
    if n != ndim as usize
        || m.chunkshape[..] != chunkshape[..n]
        || m.blockshape[..] != blockshape[..n]
    {
        return Err(Error::Data);
    }
    // SAFETY: a live array; with_array rewrites its fields from the refreshed super-chunk.
    unsafe { with_array(array, |_| Ok(())) }?;
    Ok(1)
}

/// The shared frame lock of the array's super-chunk (nothing for arrays not on disk or not
/// locking), taken by the read calls before they follow another handle's changes and held
/// through the read: the re-sync and the read then see one state of the frame, never part of
/// a change (c-blosc2 re-syncs before it locks, and its reads can mix two writes).
///
/// # Safety
/// `array` is NULL or a live array of ours.
unsafe fn hold_shared(array: *const b2nd_array_t) -> Result<LockGuard> {
    // SAFETY: forwarded contract.
    let sc = unsafe { array.as_ref() }.map_or(ptr::null_mut(), |c| c.sc);
    // SAFETY: a live array's super-chunk handle (or NULL).
    match unsafe { schunk_ref(sc) } {
        Some(s) => s.hold(false),
        None => LockGuard::acquire(None, false),
    }
}

/// What c-blosc2's data functions do first: an array on disk follows the changes another
/// handle made to its frame (shape, chunks). A no-op for arrays in memory.
///
/// # Safety
/// `array` is NULL or a live array of ours (C's `const` notwithstanding: c-blosc2 updates it
/// the same way).
unsafe fn follow_writer(array: *const b2nd_array_t) -> Result<()> {
    // SAFETY: forwarded contract.
    match unsafe { refresh_array(array.cast_mut()) }? {
        rc if rc < 0 => Err(Error::from_code(rc).unwrap_or(Error::Failure)),
        _ => Ok(()),
    }
}
