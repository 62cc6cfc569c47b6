//! New arrays from arrays: slices, copies, concatenation, squeezed and expanded views.

use std::ptr;

use libc::c_int;

use super::handle::{array_handle, into_c, new_handle, params_of, put, with_array};
use super::items::ndim_of;
use super::lifecycle::b2nd_free;
use super::sync::{follow_writer, hold_shared};
use crate::b2nd::{Array, DimMap, LoanKeep};
use crate::capi::ffi::{entry, guard, in_slice, Castable};
use crate::capi::types::*;
use crate::schunk::Schunk;
use crate::{Error, Result};

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
            let ctx = b2nd_context_s::try_mut(ctx)?;
            let n = ndim_of(src);
            let (start, stop) = (in_slice(start, n)?, in_slice(stop, n)?);
            // As c-blosc2 does, the context takes the slice's shape.
            ctx.ndim = n as i8;
            for d in 0..n {
                ctx.shape[d] = stop[d].wrapping_sub(start[d]);
            }
            let mut params = params_of(ctx)?;
            params.shape = with_array(src, |a| a.slice_shape(start, stop))?;
            // As c-blosc2: an empty array first, then the region written into it through its
            // super-chunk, which codecs, filters and tuners get in their parameters.
            let fresh = into_c(Array::empty(&params)?)?;
            let filled = with_array(fresh, |out| {
                with_array(src, |a| out.building(|out| out.fill_from(a, start)))
            });
            if let Err(e) = filled {
                b2nd_free(fresh);
                return Err(e);
            }
            *array = fresh;
            Ok(0)
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
            let ctx = b2nd_context_s::try_mut(ctx)?;
            let n = ndim_of(src);
            ctx.ndim = n as i8;
            let shape = (*src).shape;
            ctx.shape[..n].copy_from_slice(&shape[..n]);
            let params = params_of(ctx)?;
            // One loan: the copy when the shapes allow, else the parameters back.
            let copied = with_array(src, |a| {
                let g = a.geometry();
                let same = |ours: &[i64], theirs: &[i32]| {
                    ours.iter().map(|v| *v as i32).eq(theirs.iter().copied())
                };
                Ok(
                    if same(&g.chunkshape, &params.chunkshape)
                        && same(&g.blockshape, &params.blockshape)
                    {
                        Ok(a.copy_with::<Schunk>(params)?)
                    } else {
                        Err(params)
                    },
                )
            })?;
            let params = match copied {
                Ok(out) => return put(array, out),
                Err(params) => params,
            };
            // Other shapes: as c-blosc2 (a slice of the whole), an empty array first, then the
            // items written into it through its super-chunk (which codecs, filters and tuners
            // get in their parameters), then the vlmetalayers.
            let params = with_array(src, |a| Ok(a.copy_params(&params)))?;
            let fresh = into_c(Array::empty(&params)?)?;
            let filled = with_array(fresh, |out| {
                with_array(src, |a| {
                    out.building(|out| {
                        out.fill_from(a, &vec![0; a.ndim()])?;
                        a.copy_vlmetas_to(out)
                    })
                })
            });
            if let Err(e) = filled {
                b2nd_free(fresh);
                return Err(e);
            }
            *array = fresh;
            Ok(0)
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
                let joined = with_array(src2, |b| {
                    with_array(fresh, |a| a.building(|a| a.concatenate(b, axis)))
                });
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
pub(super) unsafe fn view_of(
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
        // The handle reference ends before with_array.
        let (sc, owner, own_map) = {
            // SAFETY: forwarded contract.
            let h = unsafe { array_handle(array) }?;
            (h.c.sc, h.owner.clone(), h.map.clone())
        };
        // SAFETY: forwarded contract.
        // With the view's layout when `array` is its base (a view of a view maps onto the
        // base, whose geometry this loan does not have).
        let derived = unsafe {
            with_array(array, |a| {
                a.check_only_b2nd_meta()?;
                let base = own_map.is_none();
                let own = own_map.unwrap_or_else(|| DimMap::identity(a.ndim()));
                let map = derive(&own, a.geometry())?;
                let keep = match (&map, base) {
                    (Some(m), true) => Some(LoanKeep::for_view(a, m)?),
                    _ => None,
                };
                Ok(map.map(|m| (m, keep)))
            })
        }?;
        match (derived, owner) {
            (Some((map, keep)), Some(owner)) => {
                // SAFETY: sc is the array's live super-chunk, kept alive by `owner`.
                let p = unsafe { new_handle(sc, Some((owner, map, keep.unwrap_or_default()))) }?;
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
    guard(Error::Failure.code(), || {
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
    })
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
    guard(Error::Failure.code(), || {
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
    })
}
