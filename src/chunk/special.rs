//! Special-value chunks: a header (plus one value) that stands for a whole chunk of zeros,
//! NaNs, a repeated value, or uninitialised bytes.

use super::header::*;
use super::params::CParams;
use crate::{Error, Result};

/// Writes a special chunk of `nbytes` bytes into `dst`; returns its length.
pub fn make(
    params: &CParams,
    kind: Special,
    nbytes: i32,
    value: Option<&[u8]>,
    dst: &mut [u8],
) -> Result<usize> {
    let typesize = params.typesize;
    if typesize <= 0 || typesize > MAX_TYPESIZE as i32 {
        return Err(Error::InvalidParam);
    }
    if nbytes < 0 || nbytes % typesize != 0 {
        return Err(Error::InvalidParam);
    }
    if kind == Special::Nan && typesize != 4 && typesize != 8 {
        return Err(Error::InvalidParam);
    }
    let len = EXTENDED_HEADER_LENGTH
        + if kind == Special::Value {
            typesize as usize
        } else {
            0
        };
    if dst.len() < len {
        return Err(Error::WriteBuffer);
    }
    let header = ChunkHeader {
        version: VERSION_FORMAT_STABLE,
        versionlz: 1,
        flags: DOSHUFFLE | DOBITSHUFFLE,
        typesize: typesize as u8,
        nbytes,
        // c-blosc2 3.3.5 writes a forced blocksize (at most nbytes), no filters and no codec in
        // special chunks.
        blocksize: if params.blocksize > 0 && params.blocksize < nbytes {
            params.blocksize
        } else {
            nbytes
        },
        cbytes: len as i32,
        filters: [0; MAX_FILTERS],
        udcompcode: 0,
        compcode_meta: 0,
        filters_meta: [0; MAX_FILTERS],
        blosc2_flags2: 0,
        blosc2_flags: (kind as u8) << 4,
        extended: true,
    };
    header.write(dst);
    if kind == Special::Value {
        let v = value.ok_or(Error::NullPointer)?;
        dst[EXTENDED_HEADER_LENGTH..len].copy_from_slice(&v[..typesize as usize]);
    }
    Ok(len)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    #[test]
    fn special_chunks_match_reference_bytes() {
        // blosc2_chunk_zeros/nans/repeatval of c-blosc2 3.3.5 with typesize 8, zstd, delta and
        // bitshuffle filters, blocksize 4096: none of the filters or codec ends up in the header.
        let params = CParams {
            typesize: 8,
            compcode: 5,
            compcode_meta: 7,
            blocksize: 4096,
            filters: [DELTA, 0, 0, 0, 0, BITSHUFFLE],
            filters_meta: [3, 0, 0, 0, 0, 0],
            ..CParams::default()
        };
        let mut buf = [0u8; 40];
        let n = make(&params, Special::Zero, 40000, None, &mut buf).unwrap();
        assert_eq!(
            hex(&buf[..n]),
            "05010508409c0000001000002000000000000000000000000000000000000010"
        );
        let v = 1.5f64.to_le_bytes();
        let n = make(&params, Special::Value, 40000, Some(&v), &mut buf).unwrap();
        assert_eq!(
            hex(&buf[..n]),
            "05010508409c0000001000002800000000000000000000000000000000000030000000000000f83f"
        );
        let params = CParams {
            typesize: 4,
            ..CParams::default()
        };
        let n = make(&params, Special::Uninit, 40000, None, &mut buf).unwrap();
        assert_eq!(
            hex(&buf[..n]),
            "05010504409c0000409c00002000000000000000000000000000000000000040"
        );
    }
}
