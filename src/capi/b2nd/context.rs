//! Contexts (`b2nd_create_ctx`, `b2nd_free_ctx`): the `b2nd_context_t` a C caller holds.

use std::ffi::{CStr, CString};
use std::ptr;

use libc::{c_char, c_int};

use crate::b2nd::shape::checked_block_nbytes;
use crate::b2nd::MAX_DIM;
use crate::capi::ffi::{c_str, entry, in_slice, Castable};
use crate::capi::library::cparams_defaults;
use crate::capi::types::*;
use crate::{Error, Result};

/// `ndim` as a dimension count, or `InvalidParam` outside `0..=B2ND_MAX_DIM`.
pub(super) fn dims(ndim: i8) -> Result<usize> {
    usize::try_from(ndim)
        .ok()
        .filter(|n| *n <= MAX_DIM)
        .ok_or(Error::InvalidParam)
}

/// Metalayers a context holds (`B2ND_MAX_METALAYERS`: one of the super-chunk's is `b2nd`).
pub(super) const MAX_CTX_METALAYERS: usize = crate::frame::header::MAX_METALAYERS - 1;

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
    pub(super) b2_storage: *mut blosc2_storage,
    /// Names and contents pointing into `metalayer_names` / `metalayer_contents`.
    metalayers: [blosc2_metalayer; MAX_CTX_METALAYERS],
    nmetalayers: i32,
    // Owned by this context (not part of c-blosc2's struct).
    /// The caller's storage with `cparams`/`dparams`/`urlpath` pointing into this context.
    storage: blosc2_storage,
    cparams: Box<blosc2_cparams>,
    dparams: Option<Box<blosc2_dparams>>,
    urlpath: Option<CString>,
    pub(super) dtype_owned: CString,
    metalayer_names: Vec<CString>,
    metalayer_contents: Vec<Vec<u8>>,
}

// SAFETY: every `b2nd_context_t *` the library hands out is a leaked Box<B2ndCtx>
// (B2ndCtx::into_handle).
unsafe impl Castable for b2nd_context_s {
    type RustType = B2ndCtx;
}

/// Names every field of [`B2ndCtx`] (without `..`), so that a field added to it fails to
/// compile here until `b2nd_create_ctx`, which writes the fields one by one into the box,
/// writes it too.
#[allow(dead_code)]
fn fields_b2nd_create_ctx_writes(c: B2ndCtx) {
    let B2ndCtx {
        ndim: _,
        shape: _,
        chunkshape: _,
        blockshape: _,
        dtype: _,
        dtype_format: _,
        b2_storage: _,
        metalayers: _,
        nmetalayers: _,
        storage: _,
        cparams: _,
        dparams: _,
        urlpath: _,
        dtype_owned: _,
        metalayer_names: _,
        metalayer_contents: _,
    } = c;
}

impl B2ndCtx {
    fn into_handle(self: Box<Self>) -> *mut b2nd_context_s {
        let raw = Box::into_raw(self);
        // SAFETY: `raw` is the live allocation just made; the pointers set here point into
        // it and into its own heap fields, which stay put until it is freed.
        unsafe { (*raw).fix_pointers() };
        raw.cast()
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
    pub(super) fn metalayers(&self) -> Vec<(String, Vec<u8>)> {
        self.metalayer_names
            .iter()
            .zip(&self.metalayer_contents)
            .map(|(n, c)| (n.to_string_lossy().into_owned(), c.clone()))
            .collect()
    }
}

/// Copies of the `n` metalayers at `metalayers` (names and contents), at most
/// `MAX_CTX_METALAYERS` (a negative count is none).
///
/// # Safety
/// `metalayers` holds `n` entries, each with a NUL-terminated name and `content_len` bytes.
unsafe fn copy_metalayers(
    metalayers: *const blosc2_metalayer,
    n: i32,
) -> Result<(Vec<CString>, Vec<Vec<u8>>)> {
    let n = usize::try_from(n.max(0)).map_err(|_| Error::InvalidParam)?;
    if n > MAX_CTX_METALAYERS {
        return Err(Error::InvalidParam);
    }
    // SAFETY: forwarded contract.
    let metas = unsafe { in_slice(metalayers, n)? };
    let mut copied = Vec::with_capacity(n);
    for m in metas {
        // SAFETY: each metalayer has a NUL-terminated name and content_len bytes.
        let name = unsafe { c_str(m.name) }.ok_or(Error::NullPointer)?;
        let len = usize::try_from(m.content_len).map_err(|_| Error::InvalidParam)?;
        // SAFETY: as above.
        let content = unsafe { in_slice(m.content, len)? };
        copied.push((name.to_string(), content.to_vec()));
    }
    let mut names = Vec::with_capacity(copied.len());
    let mut contents = Vec::with_capacity(copied.len());
    for (name, content) in copied {
        names.push(CString::new(name).map_err(|_| Error::InvalidParam)?);
        contents.push(content);
    }
    Ok((names, contents))
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
    let make = || -> Result<Box<B2ndCtx>> {
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
            None => cparams_defaults(),
        };
        cparams.blocksize =
            checked_block_nbytes(chunkshape, blockshape, i64::from(cparams.typesize))?;
        let dparams = storage.and_then(|s| {
            // SAFETY: a storage's dparams is NULL or valid.
            unsafe { s.dparams.as_ref() }.copied()
        });
        let urlpath = storage
            .map(|s| s.urlpath)
            .filter(|p| !p.is_null())
            // SAFETY: a non-NULL urlpath is a NUL-terminated string.
            .map(|p| unsafe { CStr::from_ptr(p) }.to_owned());
        let dtype = if dtype.is_null() {
            format!("|S{}", cparams.typesize)
        } else {
            // SAFETY: a non-NULL dtype is a NUL-terminated string.
            unsafe { c_str(dtype) }
                .ok_or(Error::InvalidParam)?
                .to_string()
        };
        // SAFETY: `nmetalayers` entries per the contract.
        let (metalayer_names, metalayer_contents) =
            unsafe { copy_metalayers(metalayers, nmetalayers) }?;
        let dtype_owned = CString::new(dtype).map_err(|_| Error::InvalidParam)?;
        // Built in its box: the context is most of a kilobyte (the metalayer array), and
        // moving a finished one into a box was two thirds of this call.
        let mut boxed = Box::<B2ndCtx>::new_uninit();
        let p = boxed.as_mut_ptr();
        // SAFETY: `p` is the box's allocation, properly aligned; every field is written once
        // before `assume_init`: the arrays and raw pointers as zero bytes (0 and NULL are
        // valid values of the integers and pointers they hold), the others with their values.
        let mut ctx = unsafe {
            ptr::addr_of_mut!((*p).shape).write_bytes(0, 1);
            ptr::addr_of_mut!((*p).chunkshape).write_bytes(0, 1);
            ptr::addr_of_mut!((*p).blockshape).write_bytes(0, 1);
            ptr::addr_of_mut!((*p).metalayers).write_bytes(0, 1);
            ptr::addr_of_mut!((*p).ndim).write(ndim);
            ptr::addr_of_mut!((*p).dtype).write(ptr::null_mut());
            ptr::addr_of_mut!((*p).dtype_format).write(dtype_format);
            ptr::addr_of_mut!((*p).b2_storage).write(ptr::null_mut());
            ptr::addr_of_mut!((*p).nmetalayers).write(0);
            ptr::addr_of_mut!((*p).storage).write(blosc2_storage {
                contiguous: storage.is_some_and(|s| s.contiguous),
                urlpath: ptr::null_mut(),
                cparams: ptr::null_mut(),
                dparams: ptr::null_mut(),
                io: storage.map_or(ptr::null_mut(), |s| s.io),
            });
            ptr::addr_of_mut!((*p).cparams).write(Box::new(cparams));
            ptr::addr_of_mut!((*p).dparams).write(dparams.map(Box::new));
            ptr::addr_of_mut!((*p).urlpath).write(urlpath);
            ptr::addr_of_mut!((*p).dtype_owned).write(dtype_owned);
            ptr::addr_of_mut!((*p).metalayer_names).write(metalayer_names);
            ptr::addr_of_mut!((*p).metalayer_contents).write(metalayer_contents);
            boxed.assume_init()
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
        // SAFETY: NULL or a handle from b2nd_create_ctx, freed once (per the API).
        drop(unsafe { b2nd_context_s::try_take(ctx) }?);
        Ok(0)
    })
}
