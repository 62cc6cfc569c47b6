//! `blosc2_shuffle`, `blosc2_unshuffle`, `blosc2_bitshuffle`, `blosc2_bitunshuffle`: the raw
//! block filters of blosc2.h, translated onto `crate::filters`.
//!
//! Argument checks follow c-blosc2 3.3.5's return values where it returns one: typesize outside
//! 1..=256 or a negative blocksize give `BLOSC2_ERROR_INVALID_PARAM` for the first three;
//! `blosc2_bitunshuffle` accepts any positive typesize and gives `BLOSC2_ERROR_FAILURE` for a
//! negative blocksize. Where the reference crashes (a typesize <= 0 for the bit filters, NULL
//! buffers with a positive blocksize) these return `BLOSC2_ERROR_INVALID_PARAM` and
//! `BLOSC2_ERROR_NULL_POINTER` instead. Overlapping buffers, which the reference forbids, are
//! handled by copying the source first.

use crate::capi::ffi::{entry, in_bytes, out_bytes};
use crate::filters::{bitshuffle, shuffle};
use crate::{Error, Result};
use std::ffi::c_void;

/// Which of the four filters an entry point runs.
#[derive(Clone, Copy)]
enum Op {
    Shuffle,
    Unshuffle,
    Bitshuffle,
    Bitunshuffle,
}

fn run(op: Op, typesize: i32, blocksize: i32, src: *const c_void, dest: *mut c_void) -> i32 {
    entry(|| filter_block(op, typesize, blocksize, src, dest))
}

/// The checks in c-blosc2's order, then the filter; returns `blocksize`.
fn filter_block(
    op: Op,
    typesize: i32,
    blocksize: i32,
    src: *const c_void,
    dest: *mut c_void,
) -> Result<i32> {
    let typesize_ok = match op {
        Op::Bitunshuffle => typesize >= 1,
        _ => (1..=256).contains(&typesize),
    };
    if !typesize_ok {
        return Err(Error::InvalidParam);
    }
    if blocksize < 0 {
        return Err(match op {
            Op::Bitunshuffle => Error::Failure,
            _ => Error::InvalidParam,
        });
    }
    if blocksize == 0 {
        return Ok(0);
    }
    if src.is_null() || dest.is_null() {
        return Err(Error::NullPointer);
    }
    let len = blocksize as usize;
    let typesize = typesize as usize;
    let (s, d) = (src as usize, dest as usize);
    let overlap = s < d + len && d < s + len;
    let copy;
    let src: &[u8] = if overlap {
        // SAFETY: the caller provides `blocksize` readable bytes at `src`.
        copy = unsafe { in_bytes(src, len) }?.to_vec();
        &copy
    } else {
        // SAFETY: as above; `dest` does not overlap it, so no aliasing with `dst`.
        unsafe { in_bytes(src, len) }?
    };
    // SAFETY: the caller provides `blocksize` writable bytes at `dest`.
    let dst = unsafe { out_bytes(dest, len) }?;
    match op {
        Op::Shuffle => {
            shuffle::shuffle(typesize, src, dst);
            Ok(())
        }
        Op::Unshuffle => {
            shuffle::unshuffle(typesize, src, dst);
            Ok(())
        }
        Op::Bitshuffle => bitshuffle::bitshuffle(typesize, src, dst),
        Op::Bitunshuffle => bitshuffle::bitunshuffle(
            typesize,
            src,
            dst,
            crate::filters::bitshuffle::CURRENT_FORMAT_VERSION,
        ),
    }?;
    Ok(blocksize)
}

/// Byte-shuffles `blocksize` bytes of `src` into `dest` as elements of `typesize` bytes.
///
/// # Safety
/// `src` and `dest` must be valid for `blocksize` bytes of reading and writing respectively.
#[no_mangle]
pub unsafe extern "C" fn blosc2_shuffle(
    typesize: i32,
    blocksize: i32,
    src: *const c_void,
    dest: *mut c_void,
) -> i32 {
    run(Op::Shuffle, typesize, blocksize, src, dest)
}

/// Inverse of `blosc2_shuffle`.
///
/// # Safety
/// As for `blosc2_shuffle`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_unshuffle(
    typesize: i32,
    blocksize: i32,
    src: *const c_void,
    dest: *mut c_void,
) -> i32 {
    run(Op::Unshuffle, typesize, blocksize, src, dest)
}

/// Bit-shuffles the leading multiple of 8 elements and copies the remaining bytes.
///
/// # Safety
/// As for `blosc2_shuffle`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_bitshuffle(
    typesize: i32,
    blocksize: i32,
    src: *const c_void,
    dest: *mut c_void,
) -> i32 {
    run(Op::Bitshuffle, typesize, blocksize, src, dest)
}

/// Inverse of `blosc2_bitshuffle` (current chunk format rule for leftovers).
///
/// # Safety
/// As for `blosc2_shuffle`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_bitunshuffle(
    typesize: i32,
    blocksize: i32,
    src: *const c_void,
    dest: *mut c_void,
) -> i32 {
    run(Op::Bitunshuffle, typesize, blocksize, src, dest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(
        f: unsafe extern "C" fn(i32, i32, *const c_void, *mut c_void) -> i32,
        typesize: i32,
        src: &[u8],
        dst: &mut [u8],
    ) -> i32 {
        // SAFETY: both buffers hold src.len() bytes.
        unsafe {
            f(
                typesize,
                src.len() as i32,
                src.as_ptr().cast(),
                dst.as_mut_ptr().cast(),
            )
        }
    }

    #[test]
    fn return_values_match_the_reference() {
        let src: Vec<u8> = (0..64).collect();
        let mut dst = vec![0u8; 64];
        let all = [
            (blosc2_shuffle as unsafe extern "C" fn(_, _, _, _) -> _, -12),
            (blosc2_unshuffle, -12),
            (blosc2_bitshuffle, -12),
            (blosc2_bitunshuffle, -1),
        ];
        for (f, negative_blocksize) in all {
            for ts in [1, 2, 3, 255, 256] {
                assert_eq!(call(f, ts, &src, &mut dst), 64);
            }
            assert_eq!(call(f, 4, &src[..0], &mut dst[..0]), 0);
            assert_eq!(call(f, 4, &src[..63], &mut dst[..63]), 63);
            // SAFETY: a negative blocksize is rejected before any access.
            let rc = unsafe { f(4, -1, src.as_ptr().cast(), dst.as_mut_ptr().cast()) };
            assert_eq!(rc, negative_blocksize);
            assert_eq!(call(f, 0, &src, &mut dst), -12);
            assert_eq!(call(f, -3, &src, &mut dst), -12);
            // SAFETY: NULL is detected before any access.
            let rc = unsafe { f(4, 64, std::ptr::null(), dst.as_mut_ptr().cast()) };
            assert_eq!(rc, Error::NullPointer.code());
        }
        for f in [blosc2_shuffle, blosc2_unshuffle, blosc2_bitshuffle] {
            assert_eq!(call(f, 257, &src, &mut dst), -12);
        }
        // The reference's bitunshuffle takes any positive typesize.
        assert_eq!(call(blosc2_bitunshuffle, 1000, &src, &mut dst), 64);
        assert_eq!(dst, src);
    }

    #[test]
    fn transforms_round_trip_even_in_place() {
        let src: Vec<u8> = (0..1000u32).map(|i| (i * 7 + i / 13) as u8).collect();
        let mut mid = vec![0u8; 1000];
        let mut back = vec![0u8; 1000];
        assert_eq!(call(blosc2_shuffle, 8, &src, &mut mid), 1000);
        assert_ne!(mid, src);
        assert_eq!(call(blosc2_unshuffle, 8, &mid, &mut back), 1000);
        assert_eq!(back, src);
        // Same buffer as source and destination.
        let mut buf = src.clone();
        let p = buf.as_mut_ptr();
        // SAFETY: p is valid for 1000 bytes; overlap is handled by copying the source.
        assert_eq!(
            // SAFETY: p is valid for 1000 bytes; overlap is handled by copying the source.
            unsafe { blosc2_bitshuffle(4, 1000, p.cast(), p.cast()) },
            1000
        );
        assert_eq!(
            // SAFETY: as above.
            unsafe { blosc2_bitunshuffle(4, 1000, p.cast(), p.cast()) },
            1000
        );
        assert_eq!(buf, src);
    }
}
