//! zlib through libz-sys built as zlib-ng in zlib-compat mode (the flavour c-blosc2 bundles).

use std::ffi::CStr;

/// Compresses with `compress2` at `clevel`; 0 when the output does not fit.
pub fn compress(src: &[u8], dst: &mut [u8], clevel: i32) -> usize {
    let mut out_len = dst.len() as libz_sys::uLongf;
    // SAFETY: compress2 writes at most out_len bytes into dst and reads src.len() bytes.
    let rc = unsafe {
        libz_sys::compress2(
            dst.as_mut_ptr(),
            &mut out_len,
            src.as_ptr(),
            src.len() as libz_sys::uLong,
            clevel,
        )
    };
    if rc == libz_sys::Z_OK {
        out_len as usize
    } else {
        0
    }
}

/// Decompresses a zlib stream; the number of bytes written, 0 on error.
pub fn decompress(src: &[u8], dst: &mut [u8]) -> usize {
    let mut out_len = dst.len() as libz_sys::uLongf;
    // SAFETY: uncompress writes at most out_len bytes into dst and reads src.len() bytes.
    let rc = unsafe {
        libz_sys::uncompress(
            dst.as_mut_ptr(),
            &mut out_len,
            src.as_ptr(),
            src.len() as libz_sys::uLong,
        )
    };
    if rc == libz_sys::Z_OK {
        out_len as usize
    } else {
        0
    }
}

/// The linked zlib version string.
pub fn version_string() -> String {
    // SAFETY: zlibVersion returns a static NUL-terminated string.
    unsafe { CStr::from_ptr(libz_sys::zlibVersion()) }
        .to_string_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let src: Vec<u8> = (0..10000u32).map(|i| (i % 37) as u8).collect();
        let mut c = vec![0u8; 10000];
        let n = compress(&src, &mut c, 5);
        assert!(n > 0 && n < 1000);
        let mut d = vec![0u8; 10000];
        assert_eq!(decompress(&c[..n], &mut d), 10000);
        assert_eq!(d, src);
        assert_eq!(decompress(&[1, 2, 3], &mut d), 0);
        assert!(!version_string().is_empty());
    }
}
