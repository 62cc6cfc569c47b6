//! Integer truncation filter (`BLOSC_FILTER_INT_TRUNC`, plugin id 36): zeroes low bits of
//! unsigned integers of 1, 2, 4 or 8 bytes.
//!
//! `filters_meta` is read as a signed byte: `meta >= 0` keeps that many high bits, `meta < 0`
//! zeroes `-meta` low bits. The filter is lossy; its backward step is a plain copy.
//!
//! As c-blosc2 3.3.5 does, we refuse other typesizes and any setting that zeroes the whole
//! element (including `meta` wider than the element), which makes compression fail with
//! `BLOSC2_ERROR_FILTER_PIPELINE`. Bytes after the last whole element are copied (the
//! reference leaves them unwritten).

use crate::{Error, Result};

/// How many low bits of a `width`-bit element to zero, or an error for settings c-blosc2 refuses.
fn zeroed_bits(meta: i8, width: u32) -> Result<u32> {
    let meta = i32::from(meta);
    let zeroed = if meta >= 0 {
        width as i32 - meta
    } else {
        -meta
    };
    // The reference computes this in a u8, so a negative count wraps to a large one: refused too.
    if zeroed < 0 || zeroed >= width as i32 {
        return Err(Error::FilterPipeline);
    }
    Ok(zeroed as u32)
}

/// Truncates one block of `typesize`-byte integers from `src` into `dst` (same length).
pub fn int_trunc_forward(meta: i8, typesize: usize, src: &[u8], dst: &mut [u8]) -> Result<()> {
    if src.len() != dst.len() {
        return Err(Error::InvalidParam);
    }
    if !matches!(typesize, 1 | 2 | 4 | 8) {
        return Err(Error::FilterPipeline);
    }
    let width = typesize as u32 * 8;
    let zeroed = zeroed_bits(meta, width)?;
    let mask = !((1u64 << zeroed) - 1);
    let body = src.len() - src.len() % typesize;
    // Little-endian elements: masking the low `zeroed` bits is masking each byte with the
    // matching byte of the mask.
    let mask_bytes = mask.to_le_bytes();
    for (d, s) in dst[..body]
        .chunks_exact_mut(typesize)
        .zip(src[..body].chunks_exact(typesize))
    {
        for ((db, sb), mb) in d.iter_mut().zip(s).zip(&mask_bytes) {
            *db = sb & mb;
        }
    }
    dst[body..].copy_from_slice(&src[body..]);
    Ok(())
}

/// The backward step: truncation cannot be undone, the block is copied.
pub fn int_trunc_backward(src: &[u8], dst: &mut [u8]) -> Result<()> {
    if src.len() != dst.len() {
        return Err(Error::InvalidParam);
    }
    dst.copy_from_slice(src);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_and_zeroes_bits_per_width() {
        let src: Vec<u8> = vec![0xff; 16];
        let mut dst = vec![0u8; 16];
        int_trunc_forward(3, 1, &src, &mut dst).unwrap();
        assert!(dst.iter().all(|&b| b == 0xe0));
        int_trunc_forward(-4, 2, &src, &mut dst).unwrap();
        assert_eq!(&dst[..4], &[0xf0, 0xff, 0xf0, 0xff]);
        int_trunc_forward(-31, 4, &src, &mut dst).unwrap();
        assert_eq!(&dst[..4], &[0, 0, 0, 0x80]);
        int_trunc_forward(20, 8, &src, &mut dst).unwrap();
        assert_eq!(
            u64::from_le_bytes(dst[..8].try_into().unwrap()),
            0xffff_f000_0000_0000
        );
        int_trunc_forward(64, 8, &src, &mut dst).unwrap();
        assert_eq!(dst, src);
    }

    #[test]
    fn refuses_what_c_blosc2_refuses() {
        let src = [0u8; 8];
        let mut dst = [0u8; 8];
        for (meta, ts) in [(0, 1), (-8, 1), (9, 1), (-128, 8), (0, 8), (1, 3), (1, 16)] {
            assert_eq!(
                int_trunc_forward(meta, ts, &src, &mut dst),
                Err(Error::FilterPipeline),
                "meta {meta} typesize {ts}"
            );
        }
        assert_eq!(
            int_trunc_forward(1, 1, &src, &mut dst[..4]),
            Err(Error::InvalidParam)
        );
    }

    #[test]
    fn tail_is_copied_and_backward_copies() {
        let src: Vec<u8> = (0..11u8).map(|i| i | 0xf0).collect();
        let mut dst = vec![0u8; 11];
        int_trunc_forward(-4, 4, &src, &mut dst).unwrap();
        assert_eq!(&dst[8..], &src[8..]);
        assert_eq!(dst[0], 0xf0);
        let mut back = vec![0u8; 11];
        int_trunc_backward(&dst, &mut back).unwrap();
        assert_eq!(back, dst);
    }
}
