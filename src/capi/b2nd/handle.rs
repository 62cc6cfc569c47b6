//! The `b2nd_array_t` handle over a `blosc2_schunk` handle: making, filling and reaching it.

use std::ptr;
use std::sync::Arc;

use libc::c_int;

use super::context::B2ndCtx;

use crate::b2nd::{lend_schunk, meta, Array, DimMap, LoanKeep, Params, MAX_DIM};
use crate::capi::ffi::{c_str, entry, malloc_cstring, Castable};
use crate::capi::schunk::{
    blosc2_schunk_free, schunk_into_c, schunk_mut, set_chunk_source, storage_from_c, sync_mirror,
};
use crate::capi::types::*;
use crate::schunk::{Schunk, Storage};
use crate::{Error, Result};

/// What C holds as a `b2nd_array_t *`: the public struct first (so both addresses agree), then
/// what the core's loans (`b2nd::lend_schunk`) keep between calls: the stand-in super-chunk put
/// into `sc`'s handle while the core's `Array` works on the array's own super-chunk (the
/// `Array` owns its store; the C layer keeps it in `sc`), and the layout the last loan found.
///
/// Views (`b2nd_squeeze`, `b2nd_squeeze_index`, `b2nd_expand_dims`) share their base's
/// super-chunk: a view's handle holds a clone of the base's `owner` and the `map` of its
/// dimensions onto the base's, so reads and writes through either reach the same chunks. As in
/// c-blosc2, a view's `sc` is a super-chunk of its own (in memory, `view` set, a b2nd metalayer
/// of the view's shape, the chunk counts of the base) that holds no chunks. The base's
/// super-chunk is freed with the last array that shares it, whatever the order of the
/// `b2nd_free` calls.
#[repr(C)]
pub(crate) struct ArrayHandle {
    pub(super) c: b2nd_array_t,
    keep: LoanKeep,
    /// The super-chunk holding the chunks (`c.sc` of the base), shared by the array and its
    /// views (`None` only while the handle is built).
    pub(super) owner: Option<Arc<SharedSchunk>>,
    /// For a view: its dimensions as dimensions of the array in `owner`.
    pub(super) map: Option<DimMap>,
    /// For a view: its own `c.sc`, freed with it.
    description: Option<SharedSchunk>,
}

impl ArrayHandle {
    /// A handle around the public fields `c`, with an empty chunk cache (as c-blosc2's).
    fn boxed(
        mut c: b2nd_array_t,
        keep: LoanKeep,
        owner: Option<Arc<SharedSchunk>>,
        map: Option<DimMap>,
    ) -> Box<ArrayHandle> {
        c.chunk_cache = chunk_cache_s {
            data: ptr::null_mut(),
            nchunk: -1,
        };
        Box::new(ArrayHandle {
            c,
            keep,
            owner,
            map,
            description: None,
        })
    }
}

/// A super-chunk handle of the schunk C layer that several arrays share. Atomically counted:
/// C may free a base and its view from different threads.
pub(super) struct SharedSchunk(pub(super) *mut blosc2_schunk);

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

/// # Safety
/// `p` is NULL or a live `b2nd_array_t *` from this module, with no other reference to it live.
pub(super) unsafe fn array_handle<'a>(p: *const b2nd_array_t) -> Result<&'a mut ArrayHandle> {
    // SAFETY: forwarded contract.
    unsafe { b2nd_array_t::try_mut(p.cast_mut()) }
}

// SAFETY: every `b2nd_array_t *` the library hands out is a boxed ArrayHandle, whose first field
// is the public `b2nd_array_t` (repr(C)), so the addresses agree.
unsafe impl Castable for b2nd_array_t {
    type RustType = ArrayHandle;
}

/// Rewrites the public fields of `c` from the array, as c-blosc2's `update_shape` computes
/// them (dimensions past `ndim` are 1).
pub(super) fn fill_fields(c: &mut b2nd_array_t, a: &Array<Schunk>) -> Result<()> {
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
pub(super) unsafe fn with_array<R>(
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
    let (r, filled) = {
        // The loan puts the super-chunk back in its handle when it goes, also on a panic.
        let mut lent = lend_schunk(slot, &mut h.keep, h.map.as_ref())?;
        let a = lent.array();
        let r = f(a);
        let mut filled = fill_fields(&mut h.c, a);
        if data_sc != sc {
            // SAFETY: sc is NULL or the view's own live super-chunk handle (not data_sc's).
            if let Some(desc) = unsafe { schunk_mut(sc) } {
                filled = filled.and(a.describe_into(desc));
            }
        }
        (r, filled)
    };
    // SAFETY: as above; the loan and its slot reference are gone.
    unsafe { follow_loan(h, data_sc) };
    filled?;
    r
}

/// After a loan of `data_sc` (the array's super-chunk, or a view's base's): brings the C
/// mirrors up to date, for a view its own super-chunk's too (which shows its base's chunks).
///
/// # Safety
/// `data_sc` and `h.c.sc` are NULL or live super-chunk handles with no loan out.
unsafe fn follow_loan(h: &mut ArrayHandle, data_sc: *mut blosc2_schunk) {
    let sc = h.c.sc;
    // SAFETY: forwarded contract.
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
}

/// A new C array around a super-chunk handle already holding an array.
///
/// # Safety
/// `sc` is a live super-chunk handle; the new array owns it.
pub(super) unsafe fn handle_for_schunk(sc: *mut blosc2_schunk) -> Result<*mut b2nd_array_t> {
    // SAFETY: forwarded contract.
    let p = unsafe { new_handle(sc, None) }?;
    // SAFETY: p is the live handle just made; from now on it owns sc.
    unsafe { array_handle(p) }?.owner = Some(Arc::new(SharedSchunk(sc)));
    Ok(p)
}

/// A new C array around `sc`: the array the super-chunk holds, or with `view`, a view of it
/// sharing `sc` through `owner`, whose loans start from `keep`. On failure `sc` is left as
/// it was.
///
/// # Safety
/// `sc` is a live super-chunk handle.
pub(super) unsafe fn new_handle(
    sc: *mut blosc2_schunk,
    view: Option<(Arc<SharedSchunk>, DimMap, LoanKeep)>,
) -> Result<*mut b2nd_array_t> {
    // SAFETY: every field of b2nd_array_t is an integer or a raw pointer: all-zero is valid.
    let c: b2nd_array_t = unsafe { std::mem::zeroed() };
    let (owner, map, keep) = match view {
        Some((owner, map, keep)) => (Some(owner), Some(map), keep),
        None => (None, None, LoanKeep::default()),
    };
    let is_view = map.is_some();
    let mut h = ArrayHandle::boxed(c, keep, owner, map);
    // A view gets its own super-chunk below, once its shape is known.
    h.c.sc = if is_view { ptr::null_mut() } else { sc };
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
                // The view's super-chunk follows its base's from now on (the loan above
                // described it; nothing changed since).
                let base = (*raw).owner.as_ref().map_or(ptr::null_mut(), |o| o.0);
                follow_loan(&mut *raw, base);
                Ok(())
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
pub(super) fn into_c(a: Array<Schunk>) -> Result<*mut b2nd_array_t> {
    // The public fields come from the array in hand: lending the super-chunk back out of its
    // new handle (`handle_for_schunk`) would rebuild this same array from its metalayer
    // (a third of a b2nd_zeros of a 100x100 array).
    // SAFETY: every field of b2nd_array_t is an integer or a raw pointer: all-zero is valid.
    let mut c: b2nd_array_t = unsafe { std::mem::zeroed() };
    if let Err(e) = fill_fields(&mut c, &a) {
        // SAFETY: the dtype is NULL or ours.
        unsafe { libc::free(c.dtype.cast()) };
        return Err(e);
    }
    let keep = LoanKeep::for_array(&a);
    let sc = schunk_into_c(a.into_store());
    if sc.is_null() {
        // SAFETY: as above.
        unsafe { libc::free(c.dtype.cast()) };
        return Err(Error::Failure);
    }
    c.sc = sc;
    // SAFETY: sc is the live handle just made (its mirror synced when it was made).
    c.last_tick = unsafe { (*sc).change_tick };
    let owner = Some(Arc::new(SharedSchunk(sc)));
    let h = ArrayHandle::boxed(c, keep, owner, None);
    Ok(Box::into_raw(h).cast())
}

/// Writes a new array into `*out` (NULL `out` is an error).
///
/// # Safety
/// `out` is NULL or writable.
pub(super) unsafe fn put(out: *mut *mut b2nd_array_t, a: Array<Schunk>) -> Result<c_int> {
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
pub(super) unsafe fn is_view(p: *const b2nd_array_t) -> bool {
    // SAFETY: forwarded contract; the reference ends here.
    unsafe { array_handle(p) }.is_ok_and(|h| h.map.is_some())
}

/// The parameters of a copy of `a` with its own chunk and block shapes, in `options`: its
/// compression parameters without a prefilter (c-blosc2 makes them from the context's fields).
pub(super) fn copy_params(a: &Array<Schunk>, options: Storage) -> Params<Storage> {
    let src = a.store();
    Params {
        cparams: crate::chunk::CParams {
            prefilter: None,
            ..src.cparams().clone()
        },
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
pub(super) fn view_frame(a: &Array<Schunk>) -> Result<Schunk> {
    let options = Storage {
        contiguous: true,
        ..Storage::default()
    };
    Ok(a.copy::<Schunk>(&copy_params(a, options))?.into_store())
}

/// The core parameters of a context.
pub(super) fn params_of(ctx: &B2ndCtx) -> Result<Params<Storage>> {
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
pub(super) unsafe fn create(
    ctx: *mut b2nd_context_s,
    array: *mut *mut b2nd_array_t,
    make: impl FnOnce(&Params<Storage>) -> Result<Array<Schunk>>,
) -> c_int {
    entry(|| {
        // SAFETY: forwarded contract.
        let ctx = unsafe { b2nd_context_s::try_mut(ctx) }?;
        if array.is_null() {
            return Err(Error::NullPointer);
        }
        let a = make(&params_of(ctx)?)?;
        // SAFETY: forwarded contract.
        unsafe { put(array, a) }
    })
}
