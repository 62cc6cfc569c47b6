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

mod views {
    //! Views where c-blosc2 3.3.5 corrupts memory or fails: writes through views of arrays in
    //! frames, vlmetalayers, a view outliving its base, shape changes.

    use std::ffi::CString;
    use std::ptr;

    use crate::capi::b2nd::{
        b2nd_create_ctx, b2nd_free, b2nd_free_ctx, b2nd_from_cbuffer, b2nd_refresh, b2nd_resize,
        b2nd_set_slice_cbuffer, b2nd_squeeze, b2nd_to_cbuffer,
    };
    use crate::capi::meta::{blosc2_vlmeta_add, blosc2_vlmeta_get};
    use crate::capi::types::{b2nd_array_t, blosc2_storage};

    /// The items of an i64 array (a NULL-cparams storage has typesize 8), or the error code.
    fn items(a: *const b2nd_array_t) -> Result<Vec<i64>, i32> {
        // SAFETY: a live array of ours.
        let nitems = unsafe { (*a).nitems };
        let mut out = vec![0i64; nitems as usize];
        // SAFETY: out holds nitems * 8 bytes.
        match unsafe { b2nd_to_cbuffer(a, out.as_mut_ptr().cast(), nitems * 8) } {
            0 => Ok(out),
            rc => Err(rc),
        }
    }

    /// Writes `values` into the region [start, stop) of `a`.
    fn write(a: *mut b2nd_array_t, start: &[i64], stop: &[i64], values: &[i64]) -> i32 {
        let shape: Vec<i64> = start.iter().zip(stop).map(|(a, b)| b - a).collect();
        // SAFETY: values holds the region's items; the shapes hold ndim items.
        unsafe {
            b2nd_set_slice_cbuffer(
                values.as_ptr().cast(),
                shape.as_ptr(),
                values.len() as i64 * 8,
                start.as_ptr(),
                stop.as_ptr(),
                a,
            )
        }
    }

    /// An i64 array of `shape` holding 0, 1, 2, ... in `storage` (NULL: in memory, sparse).
    fn array(
        storage: *const blosc2_storage,
        shape: &[i64],
        chunks: &[i32],
        blocks: &[i32],
    ) -> *mut b2nd_array_t {
        let n = shape.len() as i8;
        // SAFETY: the shapes hold ndim items; NULL dtype and metalayers are allowed.
        let ctx = unsafe {
            b2nd_create_ctx(
                storage,
                n,
                shape.as_ptr(),
                chunks.as_ptr(),
                blocks.as_ptr(),
                ptr::null(),
                0,
                ptr::null(),
                0,
            )
        };
        assert!(!ctx.is_null());
        let data: Vec<i64> = (0..shape.iter().product::<i64>()).collect();
        let mut a = ptr::null_mut();
        // SAFETY: data holds every item.
        let rc =
            unsafe { b2nd_from_cbuffer(ctx, &mut a, data.as_ptr().cast(), data.len() as i64 * 8) };
        assert_eq!(rc, 0);
        // SAFETY: freed once.
        assert_eq!(unsafe { b2nd_free_ctx(ctx) }, 0);
        a
    }

    fn squeeze(a: *mut b2nd_array_t) -> *mut b2nd_array_t {
        let mut v = ptr::null_mut();
        // SAFETY: a live array.
        assert_eq!(unsafe { b2nd_squeeze(a, &mut v) }, 0);
        v
    }

    /// Views of arrays in a frame in memory, a frame file and a sparse directory: writes
    /// through the view reach the base and the other way round (c-blosc2 fails with -1 half
    /// way through the view's write), the view reads its base's vlmetalayers (c-blosc2 frees
    /// them twice), and the view works on after its base is freed (a use after free in
    /// c-blosc2).
    #[test]
    fn write_through_views_of_frames() {
        let dir = std::env::temp_dir().join(format!("rblosc2-views-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (k, (contiguous, on_disk)) in [(true, false), (true, true), (false, true)]
            .into_iter()
            .enumerate()
        {
            let path = CString::new(dir.join(format!("a{k}.b2nd")).to_str().unwrap()).unwrap();
            let storage = blosc2_storage {
                contiguous,
                urlpath: if on_disk {
                    path.as_ptr().cast_mut()
                } else {
                    ptr::null_mut()
                },
                cparams: ptr::null_mut(),
                dparams: ptr::null_mut(),
                io: ptr::null_mut(),
            };
            let a = array(&storage, &[1, 4, 5], &[1, 2, 3], &[1, 1, 2]);
            let name = c"tag";
            let mut content = *b"view";
            // SAFETY: a live super-chunk; content holds 4 bytes.
            let rc = unsafe {
                blosc2_vlmeta_add(
                    (*a).sc,
                    name.as_ptr(),
                    content.as_mut_ptr(),
                    4,
                    ptr::null_mut(),
                )
            };
            assert!(rc >= 0);
            let v = squeeze(a);
            // SAFETY: live arrays.
            unsafe {
                assert_eq!((*v).ndim, 2);
                assert!((*(*v).sc).view);
                assert!(!(*(*a).sc).view);
            }
            let mut model: Vec<i64> = (0..20).collect();
            // Through the view: rows 1..3, columns 2..5 (two chunks of each row).
            assert_eq!(write(v, &[1, 2], &[3, 5], &[-1, -2, -3, -4, -5, -6]), 0);
            model[7..10].copy_from_slice(&[-1, -2, -3]);
            model[12..15].copy_from_slice(&[-4, -5, -6]);
            assert_eq!(items(a), Ok(model.clone()), "storage {k}");
            // Through the base: column 0.
            assert_eq!(write(a, &[0, 0, 0], &[1, 4, 1], &[50, 51, 52, 53]), 0);
            for r in 0..4 {
                model[r * 5] = 50 + r as i64;
            }
            assert_eq!(items(v), Ok(model.clone()), "storage {k}");
            let mut got: *mut u8 = ptr::null_mut();
            let mut len = 0;
            // SAFETY: the view's live super-chunk; the content is malloc'd for us.
            unsafe {
                assert!(blosc2_vlmeta_get((*v).sc, name.as_ptr(), &mut got, &mut len) >= 0);
                assert_eq!(std::slice::from_raw_parts(got, len as usize), b"view");
                libc::free(got.cast());
            }
            // SAFETY: each freed once; the view outlives its base.
            unsafe { assert_eq!(b2nd_free(a), 0) };
            assert_eq!(write(v, &[3, 4], &[4, 5], &[99]), 0);
            model[19] = 99;
            assert_eq!(items(v), Ok(model), "storage {k}");
            // SAFETY: freed once; it frees the base's super-chunk too.
            unsafe { assert_eq!(b2nd_free(v), 0) };
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A view cannot change its shape; it follows its base's changes along the dimensions it
    /// keeps, and fails once a dimension it dropped is no longer of extent 1. Squeezing a
    /// dimension whose chunks hold padding along it gives a copy (c-blosc2's view of it
    /// cannot read its items).
    #[test]
    fn shapes_of_views() {
        let a = array(ptr::null(), &[3, 1, 4], &[2, 1, 3], &[1, 1, 2]);
        let v = squeeze(a);
        let grown = [4i64, 4];
        // SAFETY: live arrays; the shapes hold ndim items.
        unsafe {
            assert_eq!(b2nd_resize(v, grown.as_ptr(), ptr::null()), -12);
            let base_grown = [5i64, 1, 4];
            assert_eq!(b2nd_resize(a, base_grown.as_ptr(), ptr::null()), 0);
        }
        // SAFETY: a live array; its shape changed.
        assert_eq!(unsafe { b2nd_refresh(v) }, 1);
        // SAFETY: as above; now current.
        assert_eq!(unsafe { b2nd_refresh(v) }, 0);
        let mut want: Vec<i64> = (0..12).collect();
        want.extend([0; 8]);
        assert_eq!(items(v), Ok(want));
        // SAFETY: a live array.
        unsafe { assert_eq!((&(*v).shape)[..2], [5, 4]) };
        let base_wide = [5i64, 2, 4];
        // SAFETY: as above.
        unsafe { assert_eq!(b2nd_resize(a, base_wide.as_ptr(), ptr::null()), 0) };
        assert_eq!(items(v).err(), Some(-12));
        // SAFETY: each freed once.
        unsafe {
            assert_eq!(b2nd_free(v), 0);
            assert_eq!(b2nd_free(a), 0);
        }

        let a = array(ptr::null(), &[1, 5], &[2, 3], &[1, 2]);
        let c = squeeze(a);
        assert_eq!(items(c), Ok((0..5).collect()));
        // A copy: writes do not reach the base.
        assert_eq!(write(c, &[0], &[1], &[42]), 0);
        assert_eq!(items(a), Ok((0..5).collect()));
        // SAFETY: each freed once, in either order.
        unsafe {
            assert!(!(*(*c).sc).view);
            assert_eq!(b2nd_free(a), 0);
            assert_eq!(b2nd_free(c), 0);
        }
    }
}
