//! The `b2nd` metalayer (and the legacy `caterva` one it replaced): a format of its own, below
//! super-chunks (which read the array layout from it for the filters that need one) and the
//! b2nd array layer (which reads and writes it).
//!
//! Layout (msgpack): a fixarray of 7 entries (5 for caterva: no dtype) holding the version, ndim,
//! shape (int64 each), chunkshape and blockshape (int32 each), dtype format (fixint) and dtype
//! (str32). c-blosc2 always writes these exact widths, so the encoder here writes bytes by hand
//! instead of letting a msgpack library pick the smallest encoding.

use crate::chunk::params::ArrayLayout;
use crate::{Error, Result};

/// Name of the metalayer describing the array.
pub const META_NAME: &str = "b2nd";
/// Name of the metalayer written by caterva, b2nd's predecessor (read only).
pub const CATERVA_META_NAME: &str = "caterva";
/// Maximum number of dimensions of a b2nd array (`B2ND_MAX_DIM`).
pub const MAX_DIM: usize = 16;

/// Metalayer version written by c-blosc2 3.3.5 (`B2ND_METALAYER_VERSION`).
pub const METALAYER_VERSION: u8 = 0;
/// The dtype written when none is given (`B2ND_DEFAULT_DTYPE`).
pub const DEFAULT_DTYPE: &str = "|u1";
/// `DTYPE_NUMPY_FORMAT`: the dtype string is in NumPy's notation (`"<f8"`, `"|S4"`, ...).
pub const DTYPE_NUMPY_FORMAT: i8 = 0;

const MSGPACK_FIXARRAY: u8 = 0x90;
const MSGPACK_INT32: u8 = 0xd2;
const MSGPACK_INT64: u8 = 0xd3;
const MSGPACK_STR32: u8 = 0xdb;

/// The contents of a `b2nd` (or `caterva`) metalayer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Meta {
    /// Items along each dimension.
    pub shape: Vec<i64>,
    /// Items of a chunk along each dimension.
    pub chunkshape: Vec<i32>,
    /// Items of a block along each dimension.
    pub blockshape: Vec<i32>,
    /// `None` for a caterva metalayer, which has no dtype entry.
    pub dtype: Option<String>,
    /// Notation of `dtype` ([`DTYPE_NUMPY_FORMAT`]; 0 for caterva).
    pub dtype_format: i8,
}

impl Meta {
    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }
}

/// Serializes the metalayer exactly as `b2nd_serialize_meta` does. `dtype` defaults to "|u1".
pub fn serialize(
    shape: &[i64],
    chunkshape: &[i32],
    blockshape: &[i32],
    dtype: Option<&str>,
    dtype_format: i8,
) -> Result<Vec<u8>> {
    let ndim = shape.len();
    if ndim > MAX_DIM || chunkshape.len() != ndim || blockshape.len() != ndim {
        return Err(Error::InvalidParam);
    }
    if dtype_format < 0 {
        return Err(Error::Failure);
    }
    let dtype = dtype.unwrap_or(DEFAULT_DTYPE).as_bytes();
    let dtype_len = i32::try_from(dtype.len()).map_err(|_| Error::Failure)?;
    let mut out = Vec::with_capacity(3 + 3 + ndim * (9 + 5 + 5) + 2 + 4 + dtype.len());
    out.push(MSGPACK_FIXARRAY + 7);
    out.push(METALAYER_VERSION);
    out.push(ndim as u8);
    // The reference adds ndim to the fixarray marker even for ndim 16 (which overflows into the
    // fixstr range); readers skip the marker, so the same byte is written here.
    out.push(MSGPACK_FIXARRAY + ndim as u8);
    for s in shape {
        out.push(MSGPACK_INT64);
        out.extend_from_slice(&s.to_be_bytes());
    }
    for dims in [chunkshape, blockshape] {
        out.push(MSGPACK_FIXARRAY + ndim as u8);
        for d in dims {
            out.push(MSGPACK_INT32);
            out.extend_from_slice(&d.to_be_bytes());
        }
    }
    out.push(dtype_format as u8);
    out.push(MSGPACK_STR32);
    out.extend_from_slice(&dtype_len.to_be_bytes());
    out.extend_from_slice(dtype);
    Ok(out)
}

/// A bounds-checked reader over the metalayer bytes.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self.pos.checked_add(n).ok_or(Error::Failure)?;
        let s = self.bytes.get(self.pos..end).ok_or(Error::Failure)?;
        self.pos = end;
        Ok(s)
    }
    fn byte(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }
    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }
}

/// The array layout a "b2nd" metalayer gives the chunk engine's cell filters (ndcell,
/// ndmean) for a super-chunk of `typesize`; None when the metalayer does not parse.
pub fn layout(content: &[u8], typesize: i32) -> Option<ArrayLayout> {
    let p = parse(content).ok()?;
    Some(ArrayLayout {
        typesize,
        blockshape: p.blockshape[..p.ndim].to_vec(),
    })
}

/// Whether [`layout`] of `content` (None without a metalayer) is `current`, found without
/// building one: a super-chunk asks on every metalayer change, and its layout rarely changes.
pub fn layout_is(content: Option<&[u8]>, typesize: i32, current: Option<&ArrayLayout>) -> bool {
    match (content.map(parse), current) {
        (Some(Ok(p)), Some(l)) => l.typesize == typesize && l.blockshape == p.blockshape[..p.ndim],
        (None | Some(Err(_)), None) => true,
        _ => false,
    }
}

/// A metalayer as read, its dtype still the raw bytes in it.
struct Parsed<'a> {
    ndim: usize,
    shape: [i64; MAX_DIM],
    chunkshape: [i32; MAX_DIM],
    blockshape: [i32; MAX_DIM],
    dtype: Option<&'a [u8]>,
    dtype_format: i8,
    consumed: usize,
}

/// Parses a `b2nd` or `caterva` metalayer the way `b2nd_deserialize_meta` does: the array and
/// integer markers are skipped unchecked (as the reference does), the dtype entry is optional,
/// and every read is bounds-checked. Returns the metadata and the number of bytes consumed.
/// Errors are `Error::Failure`, the code c-blosc2 returns for a malformed metalayer.
pub fn deserialize(bytes: &[u8]) -> Result<(Meta, usize)> {
    let p = parse(bytes)?;
    let n = p.ndim;
    Ok((
        Meta {
            shape: p.shape[..n].to_vec(),
            chunkshape: p.chunkshape[..n].to_vec(),
            blockshape: p.blockshape[..n].to_vec(),
            dtype: p.dtype.map(|d| String::from_utf8_lossy(d).into_owned()),
            dtype_format: p.dtype_format,
        },
        p.consumed,
    ))
}

/// [`deserialize`] without copying anything out of `bytes`.
fn parse(bytes: &[u8]) -> Result<Parsed<'_>> {
    if bytes.is_empty() {
        return Err(Error::Failure);
    }
    let mut r = Reader { bytes, pos: 0 };
    r.byte()?; // array marker
    r.byte()?; // version
    let ndim = r.byte()? as i8;
    if ndim < 0 || ndim as usize > MAX_DIM {
        return Err(Error::Failure);
    }
    let ndim = ndim as usize;
    r.byte()?; // shape array marker
    let mut shape = [0i64; MAX_DIM];
    for s in shape.iter_mut().take(ndim) {
        r.byte()?;
        *s = i64::from_be_bytes(r.array()?);
    }
    let mut dims32 = || -> Result<[i32; MAX_DIM]> {
        r.byte()?;
        let mut v = [0i32; MAX_DIM];
        for d in v.iter_mut().take(ndim) {
            r.byte()?;
            *d = i32::from_be_bytes(r.array()?);
        }
        Ok(v)
    };
    let chunkshape = dims32()?;
    let blockshape = dims32()?;
    let mut dtype = None;
    let mut dtype_format = 0;
    if r.pos < bytes.len() {
        let head = r.take(6)?;
        dtype_format = head[0] as i8;
        if head[1] != MSGPACK_STR32 {
            return Err(Error::Failure);
        }
        let len = i32::from_be_bytes([head[2], head[3], head[4], head[5]]);
        if len < 0 {
            return Err(Error::Failure);
        }
        let raw = r.take(len as usize)?;
        // The reference copies the bytes into a C string; its readers stop at the first NUL.
        dtype = Some(raw.split(|b| *b == 0).next().unwrap_or(&[]));
    }
    Ok(Parsed {
        ndim,
        shape,
        chunkshape,
        blockshape,
        dtype,
        dtype_format,
        consumed: r.pos,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    #[test]
    fn bytes_equal_reference() {
        // Output of c-blosc2 3.3.5's b2nd_serialize_meta for the same arguments.
        let b = serialize(&[10, 0, 3], &[4, 1, 3], &[2, 1, 3], Some("<f8"), 0).unwrap();
        assert_eq!(
            hex(&b),
            "97000393d3000000000000000ad30000000000000000d3000000000000000393d200000004\
             d200000001d20000000393d200000002d200000001d20000000300db000000033c6638"
        );
        let b = serialize(&[], &[], &[], None, 0).unwrap();
        assert_eq!(hex(&b), "97000090909000db000000037c7531");
        let shape: Vec<i64> = (1..=16).collect();
        let ones = [1i32; 16];
        let b = serialize(&shape, &ones, &ones, Some("|S7"), 3).unwrap();
        let mut want = String::from("970010a0");
        for s in 1..=16 {
            want += &format!("d3{s:016x}");
        }
        for _ in 0..2 {
            want += "a0";
            for _ in 0..16 {
                want += "d200000001";
            }
        }
        want += "03db000000037c5337";
        assert_eq!(hex(&b), want);
        assert_eq!(serialize(&[1], &[1], &[1], None, -1), Err(Error::Failure));
    }

    #[test]
    fn caterva_has_no_dtype() {
        // A legacy caterva metalayer: c-blosc2 opens it with a NULL dtype and format 0.
        let cat = [
            0x95, 0, 1, 0x91, 0xd3, 0, 0, 0, 0, 0, 0, 0, 9, 0x91, 0xd2, 0, 0, 0, 4, 0x91, 0xd2, 0,
            0, 0, 2,
        ];
        let (m, n) = deserialize(&cat).unwrap();
        assert_eq!(n, cat.len());
        assert_eq!(
            (m.shape, m.chunkshape, m.blockshape),
            (vec![9], vec![4], vec![2])
        );
        assert_eq!((m.dtype, m.dtype_format), (None, 0));
    }

    #[test]
    fn round_trip() {
        let b = serialize(&[10, 0, 3], &[4, 1, 3], &[2, 1, 3], Some("<f8"), 0).unwrap();
        let (m, n) = deserialize(&b).unwrap();
        assert_eq!(n, b.len());
        assert_eq!(m.shape, vec![10, 0, 3]);
        assert_eq!(m.chunkshape, vec![4, 1, 3]);
        assert_eq!(m.blockshape, vec![2, 1, 3]);
        assert_eq!(m.dtype.as_deref(), Some("<f8"));
    }

    #[test]
    fn hostile_inputs_fail() {
        assert_eq!(deserialize(&[]), Err(Error::Failure));
        assert_eq!(deserialize(&[0x97, 0, 17]), Err(Error::Failure));
        assert_eq!(deserialize(&[0x97, 0, 0x80]), Err(Error::Failure));
        let b = serialize(&[10], &[4], &[2], Some("<f8"), 0).unwrap();
        for cut in 0..b.len() {
            // Cutting exactly at the dtype entry is a valid caterva-style metalayer.
            let r = deserialize(&b[..cut]);
            if cut == b.len() - 9 {
                assert!(r.is_ok());
            } else {
                assert_eq!(r, Err(Error::Failure), "cut {cut}");
            }
        }
        let mut long = b.clone();
        let n = long.len();
        long[n - 7..n - 3].copy_from_slice(&1000i32.to_be_bytes());
        assert_eq!(deserialize(&long), Err(Error::Failure));
        long[n - 7..n - 3].copy_from_slice(&(-1i32).to_be_bytes());
        assert_eq!(deserialize(&long), Err(Error::Failure));
        long[n - 8] = 0xd9;
        assert_eq!(deserialize(&long), Err(Error::Failure));
    }
}
