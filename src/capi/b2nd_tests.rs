//! b2nd C entry points in cases the side-by-side C programs cannot hold because c-blosc2
//! 3.3.5 gets them wrong.

use std::ptr;

use crate::capi::b2nd::{
    b2nd_concatenate, b2nd_create_ctx, b2nd_free, b2nd_free_ctx, b2nd_from_cbuffer, b2nd_to_cbuffer,
};
use crate::capi::types::b2nd_array_t;

/// The items of a 2-d array of i64 (the default typesize of a NULL storage is 8).
fn items(a: *const b2nd_array_t) -> (Vec<i64>, Vec<i64>) {
    // SAFETY: a live array of ours.
    let c = unsafe { &*a };
    let (nitems, shape) = (c.nitems, c.shape[..2].to_vec());
    let mut out = vec![0i64; nitems as usize];
    // SAFETY: out holds nitems * 8 bytes.
    let rc = unsafe { b2nd_to_cbuffer(a, out.as_mut_ptr().cast(), nitems * 8) };
    assert_eq!(rc, 0);
    (shape, out)
}

/// In place with the same array as both sources (c-blosc2 returns -1 or -12 there, with the
/// array grown and partly filled): the array ends up holding its content twice, whether the
/// second half is copied as whole chunks (aligned) or item by item.
#[test]
fn concatenate_in_place_with_itself() {
    for (rows, axis) in [(3i64, 0i8), (3, 1), (4, 0), (4, 1)] {
        let shape = [rows, 3];
        let (chunkshape, blockshape) = ([2i32, 3], [1i32, 3]);
        // SAFETY: NULL storage and metalayers are allowed; shapes hold ndim items.
        let ctx = unsafe {
            b2nd_create_ctx(
                ptr::null(),
                2,
                shape.as_ptr(),
                chunkshape.as_ptr(),
                blockshape.as_ptr(),
                ptr::null(),
                0,
                ptr::null(),
                0,
            )
        };
        assert!(!ctx.is_null());
        let data: Vec<i64> = (1..=rows * 3).collect();
        let mut a: *mut b2nd_array_t = ptr::null_mut();
        // SAFETY: data holds rows * 3 items of 8 bytes.
        let rc = unsafe { b2nd_from_cbuffer(ctx, &mut a, data.as_ptr().cast(), rows * 24) };
        assert_eq!(rc, 0);
        let mut out: *mut b2nd_array_t = ptr::null_mut();
        // SAFETY: live context and array.
        let rc = unsafe { b2nd_concatenate(ctx, a, a, axis, false, &mut out) };
        assert_eq!(rc, 0, "rows {rows} axis {axis}");
        assert_eq!(out, a);
        let (got_shape, got) = items(a);
        let want: Vec<i64> = if axis == 0 {
            data.iter().chain(&data).copied().collect()
        } else {
            data.chunks(3)
                .flat_map(|r| r.iter().chain(r))
                .copied()
                .collect()
        };
        let want_shape = if axis == 0 {
            vec![rows * 2, 3]
        } else {
            vec![rows, 6]
        };
        assert_eq!(
            (got_shape, got),
            (want_shape, want),
            "rows {rows} axis {axis}"
        );
        // SAFETY: freed once each.
        unsafe {
            assert_eq!(b2nd_free(a), 0);
            assert_eq!(b2nd_free_ctx(ctx), 0);
        }
    }
}
