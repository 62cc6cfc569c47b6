//! LZ4 and LZ4HC through the lz4 C library (lz4-sys), with c-blosc2's parameters:
//! acceleration 1 for LZ4, clevel passed through for LZ4HC, and raw-dictionary variants.

use std::os::raw::{c_char, c_int, c_void};

extern "C" {
    // Declared here because lz4-sys does not bind the dictionary and partial entry points; the
    // symbols are in the lz4 library that lz4-sys builds and links.
    fn LZ4_decompress_safe_usingDict(
        src: *const c_char,
        dst: *mut c_char,
        src_size: c_int,
        dst_capacity: c_int,
        dict_start: *const c_char,
        dict_size: c_int,
    ) -> c_int;
    fn LZ4_decompress_safe_partial(
        src: *const c_char,
        dst: *mut c_char,
        src_size: c_int,
        target_output_size: c_int,
        dst_capacity: c_int,
    ) -> c_int;
    fn LZ4_createStream() -> *mut c_void;
    fn LZ4_freeStream(stream: *mut c_void) -> c_int;
    fn LZ4_loadDict(stream: *mut c_void, dictionary: *const c_char, dict_size: c_int) -> c_int;
    fn LZ4_compress_fast_continue(
        stream: *mut c_void,
        src: *const c_char,
        dst: *mut c_char,
        src_size: c_int,
        dst_capacity: c_int,
        acceleration: c_int,
    ) -> c_int;
    fn LZ4_createStreamHC() -> *mut c_void;
    fn LZ4_freeStreamHC(stream: *mut c_void) -> c_int;
    fn LZ4_resetStreamHC_fast(stream: *mut c_void, level: c_int);
    fn LZ4_loadDictHC(stream: *mut c_void, dictionary: *const c_char, dict_size: c_int) -> c_int;
    fn LZ4_compress_HC_continue(
        stream: *mut c_void,
        src: *const c_char,
        dst: *mut c_char,
        src_size: c_int,
        dst_capacity: c_int,
    ) -> c_int;
}

fn len_i32(n: usize) -> c_int {
    n.min(c_int::MAX as usize) as c_int
}

/// Compresses with LZ4 at `accel`eration; 0 when the output does not fit.
pub fn compress(src: &[u8], dst: &mut [u8], accel: i32) -> usize {
    // SAFETY: both pointers are valid for the lengths passed; LZ4 never writes past dst_capacity.
    let n = unsafe {
        lz4_sys::LZ4_compress_fast(
            src.as_ptr() as *const c_char,
            dst.as_mut_ptr() as *mut c_char,
            len_i32(src.len()),
            len_i32(dst.len()),
            accel,
        )
    };
    n.max(0) as usize
}

/// Compresses with LZ4HC at `clevel`; 0 when the output does not fit.
pub fn compress_hc(src: &[u8], dst: &mut [u8], clevel: i32) -> usize {
    // SAFETY: as in `compress`.
    let n = unsafe {
        lz4_sys::LZ4_compress_HC(
            src.as_ptr() as *const c_char,
            dst.as_mut_ptr() as *mut c_char,
            len_i32(src.len()),
            len_i32(dst.len()),
            clevel,
        )
    };
    n.max(0) as usize
}

/// Compresses with LZ4 against a raw dictionary.
pub fn compress_with_dict(src: &[u8], dst: &mut [u8], dict: &[u8]) -> usize {
    // SAFETY: the stream is created, used with valid buffers, and freed here; the dictionary
    // outlives the calls.
    unsafe {
        let stream = LZ4_createStream();
        if stream.is_null() {
            return 0;
        }
        LZ4_loadDict(stream, dict.as_ptr() as *const c_char, len_i32(dict.len()));
        let n = LZ4_compress_fast_continue(
            stream,
            src.as_ptr() as *const c_char,
            dst.as_mut_ptr() as *mut c_char,
            len_i32(src.len()),
            len_i32(dst.len()),
            1,
        );
        LZ4_freeStream(stream);
        n.max(0) as usize
    }
}

/// Compresses with LZ4HC against a raw dictionary.
pub fn compress_hc_with_dict(src: &[u8], dst: &mut [u8], clevel: i32, dict: &[u8]) -> usize {
    // SAFETY: as in `compress_with_dict`.
    unsafe {
        let stream = LZ4_createStreamHC();
        if stream.is_null() {
            return 0;
        }
        LZ4_resetStreamHC_fast(stream, clevel);
        LZ4_loadDictHC(stream, dict.as_ptr() as *const c_char, len_i32(dict.len()));
        let n = LZ4_compress_HC_continue(
            stream,
            src.as_ptr() as *const c_char,
            dst.as_mut_ptr() as *mut c_char,
            len_i32(src.len()),
            len_i32(dst.len()),
        );
        LZ4_freeStreamHC(stream);
        n.max(0) as usize
    }
}

/// Decompresses an LZ4 block; returns `dst.len()` on success, 0 otherwise (as c-blosc2 does).
pub fn decompress(src: &[u8], dst: &mut [u8]) -> usize {
    // SAFETY: LZ4_decompress_safe never reads past src_size nor writes past dst_capacity.
    let n = unsafe {
        lz4_sys::LZ4_decompress_safe(
            src.as_ptr() as *const c_char,
            dst.as_mut_ptr() as *mut c_char,
            len_i32(src.len()),
            len_i32(dst.len()),
        )
    };
    if n >= 0 && n as usize == dst.len() {
        dst.len()
    } else {
        0
    }
}

/// Decompresses the start of an LZ4 block: at least its first `want` bytes (fewer only when
/// the block is shorter or invalid), stopping soon after. `dst` has room for the whole block.
/// Returns how many leading bytes of `dst` were decoded, 0 on error.
pub fn decompress_prefix(src: &[u8], dst: &mut [u8], want: usize) -> usize {
    // SAFETY: LZ4_decompress_safe_partial never reads past src_size nor writes past
    // dst_capacity; the target is clamped to the capacity.
    let n = unsafe {
        LZ4_decompress_safe_partial(
            src.as_ptr() as *const c_char,
            dst.as_mut_ptr() as *mut c_char,
            len_i32(src.len()),
            len_i32(want.min(dst.len())),
            len_i32(dst.len()),
        )
    };
    n.max(0) as usize
}

/// Decompresses an LZ4 block compressed against `dict`.
pub fn decompress_with_dict(src: &[u8], dst: &mut [u8], dict: &[u8]) -> usize {
    // SAFETY: as in `decompress`; the dictionary is a valid slice.
    let n = unsafe {
        LZ4_decompress_safe_usingDict(
            src.as_ptr() as *const c_char,
            dst.as_mut_ptr() as *mut c_char,
            len_i32(src.len()),
            len_i32(dst.len()),
            dict.as_ptr() as *const c_char,
            len_i32(dict.len()),
        )
    };
    if n >= 0 && n as usize == dst.len() {
        dst.len()
    } else {
        0
    }
}

/// The linked lz4 version as "major.minor.release".
pub fn version_string() -> String {
    // SAFETY: LZ4_versionNumber has no preconditions.
    let v = unsafe { lz4_sys::LZ4_versionNumber() };
    format!("{}.{}.{}", v / 10000, (v / 100) % 100, v % 100)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let src: Vec<u8> = (0..10000u32).map(|i| (i % 37) as u8).collect();
        let mut c = vec![0u8; 10000];
        let n = compress(&src, &mut c, 1);
        assert!(n > 0 && n < 1000);
        let mut d = vec![0u8; 10000];
        assert_eq!(decompress(&c[..n], &mut d), 10000);
        assert_eq!(d, src);
        let n = compress_hc(&src, &mut c, 9);
        assert!(n > 0);
        assert_eq!(decompress(&c[..n], &mut d), 10000);
        assert_eq!(d, src);
        let dict: Vec<u8> = (0..300u32).map(|i| (i % 37) as u8).collect();
        let n = compress_with_dict(&src, &mut c, &dict);
        assert_eq!(decompress_with_dict(&c[..n], &mut d, &dict), 10000);
        assert_eq!(d, src);
        assert_eq!(version_string(), "1.10.0");
    }

    #[test]
    fn prefix_decodes_at_least_what_is_wanted() {
        let src: Vec<u8> = (0..20000u32).map(|i| (i * 7 % 251) as u8).collect();
        let mut c = vec![0u8; 30000];
        let n = compress(&src, &mut c, 1);
        for want in [0usize, 1, 2, 100, 4095, 19999, 20000, 30000] {
            let mut d = vec![0u8; 20000];
            let got = decompress_prefix(&c[..n], &mut d, want);
            assert!(
                got >= want.min(20000) && got <= 20000,
                "want {want} got {got}"
            );
            assert_eq!(d[..got], src[..got]);
        }
        assert_eq!(decompress_prefix(&[0xff; 10], &mut [0u8; 100], 50), 0);
    }

    #[test]
    fn rejects_garbage() {
        let mut d = vec![0u8; 100];
        assert_eq!(decompress(&[0xff; 10], &mut d), 0);
    }
}
