//! Zstd through zstd-sys (zstd 1.5.7, the version c-blosc2 3.3.5 bundles), with c-blosc2's
//! clevel mapping, per-thread contexts, and trained dictionaries.

use std::ffi::{c_void, CStr};
use zstd_sys as z;

/// c-blosc2's mapping of a Blosc clevel (1..=9) to a Zstd level.
pub fn zstd_level(clevel: i32) -> i32 {
    // SAFETY: ZSTD_maxCLevel has no preconditions.
    let max = unsafe { z::ZSTD_maxCLevel() };
    let level = if clevel < 9 { clevel * 2 - 1 } else { max };
    // Level 8 is brought close to the maximum, as c-blosc2 does.
    if level == 8 {
        max - 2
    } else {
        level
    }
}

fn is_error(code: usize) -> bool {
    // SAFETY: ZSTD_isError is a pure function of its argument.
    unsafe { z::ZSTD_isError(code) != 0 }
}

/// Compression and decompression contexts, created on first use and kept per thread.
pub struct ZstdContexts {
    cctx: *mut z::ZSTD_CCtx,
    dctx: *mut z::ZSTD_DCtx,
}

// SAFETY: the contexts are owned exclusively by this value and only used through &mut self.
unsafe impl Send for ZstdContexts {}

impl Default for ZstdContexts {
    fn default() -> Self {
        ZstdContexts {
            cctx: std::ptr::null_mut(),
            dctx: std::ptr::null_mut(),
        }
    }
}

impl Drop for ZstdContexts {
    fn drop(&mut self) {
        // SAFETY: the pointers are either null (accepted by the free functions) or were created
        // by ZSTD_create*Ctx and are freed exactly once.
        unsafe {
            z::ZSTD_freeCCtx(self.cctx);
            z::ZSTD_freeDCtx(self.dctx);
        }
    }
}

impl ZstdContexts {
    fn cctx(&mut self) -> *mut z::ZSTD_CCtx {
        if self.cctx.is_null() {
            // SAFETY: plain constructor.
            self.cctx = unsafe { z::ZSTD_createCCtx() };
        }
        self.cctx
    }

    fn dctx(&mut self) -> *mut z::ZSTD_DCtx {
        if self.dctx.is_null() {
            // SAFETY: plain constructor.
            self.dctx = unsafe { z::ZSTD_createDCtx() };
        }
        self.dctx
    }

    /// Compresses at Blosc `clevel`; 0 when the output does not fit.
    pub fn compress(&mut self, src: &[u8], dst: &mut [u8], clevel: i32) -> usize {
        let cctx = self.cctx();
        if cctx.is_null() {
            return 0;
        }
        // SAFETY: valid context and buffers of the given lengths.
        let code = unsafe {
            z::ZSTD_compressCCtx(
                cctx,
                dst.as_mut_ptr() as *mut c_void,
                dst.len(),
                src.as_ptr() as *const c_void,
                src.len(),
                zstd_level(clevel),
            )
        };
        if is_error(code) {
            0
        } else {
            code
        }
    }

    /// Compresses with a prepared dictionary.
    pub fn compress_with_dict(&mut self, src: &[u8], dst: &mut [u8], dict: &PreparedDict) -> usize {
        let cctx = self.cctx();
        if cctx.is_null() || dict.cdict.is_null() {
            return 0;
        }
        // SAFETY: valid context, dictionary and buffers.
        let code = unsafe {
            z::ZSTD_compress_usingCDict(
                cctx,
                dst.as_mut_ptr() as *mut c_void,
                dst.len(),
                src.as_ptr() as *const c_void,
                src.len(),
                dict.cdict,
            )
        };
        if is_error(code) {
            0
        } else {
            code
        }
    }

    /// Decompresses a frame; bytes written, 0 on error.
    pub fn decompress(&mut self, src: &[u8], dst: &mut [u8]) -> usize {
        let dctx = self.dctx();
        if dctx.is_null() {
            return 0;
        }
        // SAFETY: valid context and buffers; zstd bounds-checks the input.
        let code = unsafe {
            z::ZSTD_decompressDCtx(
                dctx,
                dst.as_mut_ptr() as *mut c_void,
                dst.len(),
                src.as_ptr() as *const c_void,
                src.len(),
            )
        };
        if is_error(code) {
            0
        } else {
            code
        }
    }

    /// Decompresses a frame compressed with a dictionary.
    pub fn decompress_with_dict(
        &mut self,
        src: &[u8],
        dst: &mut [u8],
        dict: &PreparedDict,
    ) -> usize {
        let dctx = self.dctx();
        if dctx.is_null() || dict.ddict.is_null() {
            return 0;
        }
        // SAFETY: valid context, dictionary and buffers.
        let code = unsafe {
            z::ZSTD_decompress_usingDDict(
                dctx,
                dst.as_mut_ptr() as *mut c_void,
                dst.len(),
                src.as_ptr() as *const c_void,
                src.len(),
                dict.ddict,
            )
        };
        if is_error(code) {
            0
        } else {
            code
        }
    }
}

/// A digested dictionary for one chunk (compression and/or decompression side).
pub struct PreparedDict {
    cdict: *mut z::ZSTD_CDict,
    ddict: *mut z::ZSTD_DDict,
}

// SAFETY: CDict/DDict are immutable after creation and zstd documents them as shareable
// between threads.
unsafe impl Send for PreparedDict {}
// SAFETY: see above.
unsafe impl Sync for PreparedDict {}

impl PreparedDict {
    /// Digests `dict` for compression at Blosc `clevel`.
    pub fn for_compression(dict: &[u8], clevel: i32) -> PreparedDict {
        // SAFETY: zstd copies the dictionary content.
        let cdict = unsafe {
            z::ZSTD_createCDict(
                dict.as_ptr() as *const c_void,
                dict.len(),
                zstd_level(clevel),
            )
        };
        PreparedDict {
            cdict,
            ddict: std::ptr::null_mut(),
        }
    }

    /// Digests `dict` for decompression.
    pub fn for_decompression(dict: &[u8]) -> PreparedDict {
        // SAFETY: zstd copies the dictionary content.
        let ddict = unsafe { z::ZSTD_createDDict(dict.as_ptr() as *const c_void, dict.len()) };
        PreparedDict {
            cdict: std::ptr::null_mut(),
            ddict,
        }
    }
}

impl Drop for PreparedDict {
    fn drop(&mut self) {
        // SAFETY: each pointer is null or owned by this value; freed once.
        unsafe {
            z::ZSTD_freeCDict(self.cdict);
            z::ZSTD_freeDDict(self.ddict);
        }
    }
}

/// Trains a dictionary of at most `max_size` bytes from equally sized samples.
pub fn train_dict(
    samples: &[u8],
    sample_sizes: &[usize],
    max_size: usize,
) -> crate::Result<Vec<u8>> {
    let mut dict = vec![0u8; max_size];
    if sample_sizes.iter().sum::<usize>() > samples.len() {
        return Err(crate::Error::CodecDict);
    }
    // SAFETY: the samples buffer holds sum(sample_sizes) bytes (just checked) and dict is
    // max_size bytes long.
    let code = unsafe {
        z::ZDICT_trainFromBuffer(
            dict.as_mut_ptr() as *mut c_void,
            dict.len(),
            samples.as_ptr() as *const c_void,
            sample_sizes.as_ptr(),
            sample_sizes.len() as u32,
        )
    };
    // SAFETY: pure function.
    if unsafe { z::ZDICT_isError(code) } != 0 {
        return Err(crate::Error::CodecDict);
    }
    dict.truncate(code);
    Ok(dict)
}

/// The linked zstd version string.
pub fn version_string() -> String {
    // SAFETY: returns a static NUL-terminated string.
    unsafe { CStr::from_ptr(z::ZSTD_versionString()) }
        .to_string_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_levels() {
        assert_eq!(zstd_level(1), 1);
        assert_eq!(zstd_level(5), 9);
        assert_eq!(zstd_level(9), 22);
        assert_eq!(version_string(), "1.5.7");
        let src: Vec<u8> = (0..10000u32).map(|i| (i % 37) as u8).collect();
        let mut ctx = ZstdContexts::default();
        let mut c = vec![0u8; 10000];
        let n = ctx.compress(&src, &mut c, 5);
        assert!(n > 0 && n < 500);
        let mut d = vec![0u8; 10000];
        assert_eq!(ctx.decompress(&c[..n], &mut d), 10000);
        assert_eq!(d, src);
        assert_eq!(ctx.decompress(&c[..n / 2], &mut d), 0);
    }
}
