//! Truncate-precision filter (`BLOSC_TRUNC_PREC`): zeroes low mantissa bits of float32/float64.
//!
//! `filters_meta` is read as a signed byte: `meta > 0` keeps that many mantissa bits, `meta < 0`
//! zeroes `-meta` bits. The elements are masked as little-endian 32- or 64-bit integers; the
//! filter is lossy and has no inverse (decompression skips it).
//!
//! Like c-blosc2 3.3.5 we refuse typesizes other than 4 and 8, `|meta|` above the mantissa width
//! (23 or 52), and any setting that would zero the whole mantissa (`meta == 0`,
//! `meta == -23`/`-52`): the reference's compressor then fails with
//! `BLOSC2_ERROR_FILTER_PIPELINE`, which is the error returned here. Bytes after the last whole
//! element (only in a chunk's last block) are left unwritten by the reference, whose output
//! there is stale scratch memory; we copy them from the source.

use crate::{Error, Result};

/// Mantissa bits of float32 and float64.
const MANTISSA_BITS_F32: i32 = 23;
const MANTISSA_BITS_F64: i32 = 52;

/// How many low bits to zero, or an error for settings c-blosc2 refuses.
fn zeroed_bits(meta: i8, mantissa: i32) -> Result<u32> {
    let meta = meta as i32;
    if meta.abs() > mantissa {
        return Err(Error::FilterPipeline);
    }
    let zeroed = if meta >= 0 { mantissa - meta } else { -meta };
    if zeroed >= mantissa {
        return Err(Error::FilterPipeline);
    }
    Ok(zeroed as u32)
}

/// Truncates the precision of one block of float32 (`typesize == 4`) or float64 (`8`) values.
/// `dst` must be as long as `src` (else `InvalidParam`).
pub fn truncate_precision(meta: i8, typesize: usize, src: &[u8], dst: &mut [u8]) -> Result<()> {
    if src.len() != dst.len() {
        return Err(Error::InvalidParam);
    }
    let body = src.len() - src.len() % typesize.max(1);
    match typesize {
        4 => {
            let mask = !((1u32 << zeroed_bits(meta, MANTISSA_BITS_F32)?) - 1);
            for (d, s) in dst
                .as_chunks_mut::<4>()
                .0
                .iter_mut()
                .zip(src.as_chunks::<4>().0)
            {
                *d = (u32::from_le_bytes(*s) & mask).to_le_bytes();
            }
        }
        8 => {
            let mask = !((1u64 << zeroed_bits(meta, MANTISSA_BITS_F64)?) - 1);
            for (d, s) in dst
                .as_chunks_mut::<8>()
                .0
                .iter_mut()
                .zip(src.as_chunks::<8>().0)
            {
                *d = (u64::from_le_bytes(*s) & mask).to_le_bytes();
            }
        }
        _ => return Err(Error::FilterPipeline),
    }
    dst[body..].copy_from_slice(&src[body..]);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filters::testutil::{fnv1a, pattern};

    #[test]
    fn masks() {
        let src = 0xFFFF_FFFFu32.to_le_bytes();
        let mut dst = [0u8; 4];
        truncate_precision(10, 4, &src, &mut dst).unwrap();
        assert_eq!(u32::from_le_bytes(dst), 0xFFFF_E000); // 23 - 10 = 13 bits zeroed
        truncate_precision(-5, 4, &src, &mut dst).unwrap();
        assert_eq!(u32::from_le_bytes(dst), 0xFFFF_FFE0);
        let src = u64::MAX.to_le_bytes();
        let mut dst = [0u8; 8];
        truncate_precision(51, 8, &src, &mut dst).unwrap();
        assert_eq!(u64::from_le_bytes(dst), !1);
    }

    #[test]
    fn refuses_what_the_reference_refuses() {
        let (src, mut dst) = ([0u8; 16], [0u8; 16]);
        for (meta, ts) in [
            (0, 4),
            (24, 4),
            (-23, 4),
            (-24, 4),
            (127, 4),
            (0, 8),
            (53, 8),
            (-52, 8),
        ] {
            assert_eq!(
                truncate_precision(meta, ts, &src, &mut dst),
                Err(Error::FilterPipeline),
                "meta {meta} ts {ts}"
            );
        }
        for ts in [1, 2, 3, 16] {
            assert_eq!(
                truncate_precision(5, ts, &src, &mut dst),
                Err(Error::FilterPipeline)
            );
        }
        for (meta, ts) in [(23, 4), (-22, 4), (1, 4), (52, 8), (-51, 8), (24, 8)] {
            assert!(
                truncate_precision(meta, ts, &src, &mut dst).is_ok(),
                "meta {meta} ts {ts}"
            );
        }
    }

    // FNV-1a of c-blosc2 3.3.5's filter output over all blocks of the chunk of `pattern(12384)`
    // compressed with blocksize 64 * typesize and TRUNC_PREC alone.
    #[test]
    fn matches_reference_chunks() {
        let chunk = pattern(12384);
        for (ts, meta, hash) in [
            (4, 10, 0x848243a0faf0da3f_u64),
            (4, -5, 0x9215cd5254bb36b3),
            (4, 1, 0xe7a7690a20822dd7),
            (4, 22, 0xd0037aa86ebbb8f5),
            (8, 20, 0x8a875017dcebc27f),
            (8, -13, 0x198ab9256bb94058),
            (8, 51, 0x7c9efeb8124083a4),
            (8, 1, 0xf5861d82d88de1f6),
        ] {
            let mut all = Vec::new();
            for block in chunk.chunks(64 * ts) {
                let mut out = vec![0; block.len()];
                truncate_precision(meta, ts, block, &mut out).unwrap();
                all.extend_from_slice(&out);
            }
            assert_eq!(fnv1a(&all), hash, "ts {ts} meta {meta}");
        }
    }
}
