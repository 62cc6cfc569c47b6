//! zfp (`BLOSC_CODEC_ZFP_FIXED_ACCURACY` 33, `_PRECISION` 34, `_RATE` 35): LLNL's lossy codec
//! for blocks of 1- to 4-D float32/float64 arrays, through the zfp 1.0 C library that the
//! `zfp-sys-cc` crate builds from its bundled sources (c-blosc2 3.3.5 bundles zfp 1.0.1, whose
//! codec is the same: the streams are byte-identical).
//!
//! As in c-blosc2's plugin, a block is one zfp field whose dimensions are the array's block
//! shape (the last dimension varying fastest), compressed in one of three modes chosen by the
//! codec id, with the mode's setting in `compcode_meta`:
//! - accuracy: absolute error tolerance `10^meta`, `meta` read as a signed byte;
//! - precision: `meta + 5`, `+ 7`, `+ 9` or `+ 11` bit planes for 1 to 4 dimensions (at most 64);
//! - rate: `meta` percent of the input's bits, i.e. `meta / 100 * typesize * 8` bits per value.
//!
//! The zfp stream carries no header: decoding needs the same mode, type and block shape.
//! zfp's bit-stream reader does not check the end of its buffer, so [`decompress`] hands it a
//! copy padded to the most bits any block can consume, and [`rate_cell`] (c-blosc2's getitem
//! shortcut for fixed-rate blocks, one 4^d cell decoded alone) a zero-padded copy of the words
//! holding its cell.

use std::ffi::c_void;

use zfp_sys_cc as ffi;

use crate::{Error, Result};

/// How zfp trades accuracy for size, with the setting c-blosc2 derives from `compcode_meta`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Mode {
    /// Fixed accuracy: values decode within `10^exponent` of the input.
    Accuracy(i8),
    /// Fixed precision: `meta` plus a per-dimensionality offset uncompressed bit planes.
    Precision(u8),
    /// Fixed rate: `percent` of the input's size.
    Rate(u8),
}

/// The most bit planes zfp encodes (`ZFP_MAX_PREC`).
const MAX_PRECISION: u32 = 64;

/// A block's geometry as zfp sees it.
struct Geometry {
    scalar: ffi::zfp_type,
    /// Extents fastest-varying first (zfp's nx, ny, ...).
    extents: Vec<usize>,
    nbytes: usize,
}

impl Geometry {
    /// Checks what c-blosc2's plugin checks: 1 to 4 dimensions, float32 or float64 items.
    fn new(blockshape: &[i32], typesize: usize) -> Result<Geometry> {
        if blockshape.is_empty() || blockshape.len() > 4 {
            return Err(Error::Failure);
        }
        let scalar = match typesize {
            4 => ffi::zfp_type_zfp_type_float,
            8 => ffi::zfp_type_zfp_type_double,
            _ => return Err(Error::Failure),
        };
        let mut extents = Vec::with_capacity(blockshape.len());
        let mut nbytes = typesize;
        for &dim in blockshape.iter().rev() {
            let dim = usize::try_from(dim).map_err(|_| Error::Failure)?;
            if dim == 0 {
                return Err(Error::Failure);
            }
            nbytes = nbytes.checked_mul(dim).ok_or(Error::Failure)?;
            extents.push(dim);
        }
        Ok(Geometry {
            scalar,
            extents,
            nbytes,
        })
    }

    fn ndim(&self) -> u32 {
        self.extents.len() as u32
    }
}

/// A zfp stream and field over one buffer, closed on drop.
struct Session {
    zfp: *mut ffi::zfp_stream,
    field: *mut ffi::zfp_field,
    bits: *mut ffi::bitstream,
}

impl Session {
    /// Opens a stream in `mode` (or zfp's default, its loosest bounds, for `None`) and a field
    /// over `values`, which must hold `geometry.nbytes` bytes aligned for the scalar type.
    fn open(mode: Option<Mode>, geometry: &Geometry, values: *mut c_void) -> Result<Session> {
        // SAFETY: a null bit stream is allowed (one is attached later); the result is checked.
        let zfp = unsafe { ffi::zfp_stream_open(std::ptr::null_mut()) };
        if zfp.is_null() {
            return Err(Error::MemoryAlloc);
        }
        let e = &geometry.extents;
        // SAFETY: `values` points to nbytes bytes of the scalar type (callers' contract); zfp
        // only records the pointer and extents here.
        let field = unsafe {
            match e.len() {
                1 => ffi::zfp_field_1d(values, geometry.scalar, e[0]),
                2 => ffi::zfp_field_2d(values, geometry.scalar, e[0], e[1]),
                3 => ffi::zfp_field_3d(values, geometry.scalar, e[0], e[1], e[2]),
                _ => ffi::zfp_field_4d(values, geometry.scalar, e[0], e[1], e[2], e[3]),
            }
        };
        let session = Session {
            zfp,
            field,
            bits: std::ptr::null_mut(),
        };
        if field.is_null() {
            return Err(Error::MemoryAlloc);
        }
        // SAFETY: `zfp` is a live stream; the setters only store parameters.
        unsafe {
            match mode {
                Some(Mode::Accuracy(exponent)) => {
                    ffi::zfp_stream_set_accuracy(zfp, 10f64.powi(exponent.into()));
                }
                Some(Mode::Precision(meta)) => {
                    let offset = 3 + 2 * geometry.ndim();
                    let precision = (u32::from(meta) + offset).min(MAX_PRECISION);
                    ffi::zfp_stream_set_precision(zfp, precision);
                }
                Some(Mode::Rate(percent)) => {
                    let typesize = if geometry.scalar == ffi::zfp_type_zfp_type_float {
                        4.0
                    } else {
                        8.0
                    };
                    let rate = f64::from(percent) / 100.0 * typesize * 8.0;
                    ffi::zfp_stream_set_rate(zfp, rate, geometry.scalar, geometry.ndim(), 0);
                }
                None => {}
            }
        }
        Ok(session)
    }

    /// The most bytes a stream of this field can take in this session's mode.
    fn maximum_size(&self) -> usize {
        // SAFETY: both pointers are live; the call only reads their parameters.
        unsafe { ffi::zfp_stream_maximum_size(self.zfp, self.field) }
    }

    /// Attaches `buffer` (of `len` bytes, alive as long as this session) as the bit stream.
    fn attach(&mut self, buffer: *mut c_void, len: usize) -> Result<()> {
        // SAFETY: the caller keeps `buffer` valid for `len` bytes while the session lives.
        let bits = unsafe { ffi::stream_open(buffer, len) };
        if bits.is_null() {
            return Err(Error::MemoryAlloc);
        }
        self.bits = bits;
        // SAFETY: `zfp` and `bits` are live.
        unsafe {
            ffi::zfp_stream_set_bit_stream(self.zfp, bits);
            ffi::zfp_stream_rewind(self.zfp);
        }
        Ok(())
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // SAFETY: each pointer was returned by its zfp constructor and is freed once.
        unsafe {
            if !self.field.is_null() {
                ffi::zfp_field_free(self.field);
            }
            ffi::zfp_stream_close(self.zfp);
            if !self.bits.is_null() {
                ffi::stream_close(self.bits);
            }
        }
    }
}

/// A zeroed buffer of at least `nbytes` bytes aligned for float64 (zfp reads and writes the
/// scalars and its 64-bit stream words through typed pointers).
fn aligned(nbytes: usize) -> Vec<u64> {
    vec![0u64; nbytes.div_ceil(8)]
}

fn as_bytes_mut(words: &mut [u64]) -> &mut [u8] {
    let len = words.len() * 8;
    // SAFETY: u64 has no padding and every byte pattern is a valid u8; the length is the same
    // memory's.
    unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), len) }
}

/// Compresses one block (`src`: the block's items, `blockshape` C-order) into `dst`. Returns
/// the compressed size, or 0 when the stream would not be smaller than the input or does not
/// fit in `dst` (the block is then stored raw). Errors, as c-blosc2's plugin: 1 to 4 dimensions
/// of at least 4 items each, items of 4 or 8 bytes, `src` one whole block.
pub fn compress(
    mode: Mode,
    blockshape: &[i32],
    typesize: usize,
    src: &[u8],
    dst: &mut [u8],
) -> Result<usize> {
    let geometry = Geometry::new(blockshape, typesize)?;
    if blockshape.iter().any(|&d| d < 4) || geometry.nbytes != src.len() {
        return Err(Error::Failure);
    }
    let mut values = aligned(src.len());
    as_bytes_mut(&mut values)[..src.len()].copy_from_slice(src);
    let mut session = Session::open(Some(mode), &geometry, values.as_mut_ptr().cast())?;
    let mut out = aligned(session.maximum_size());
    let out_len = out.len() * 8;
    session.attach(out.as_mut_ptr().cast(), out_len)?;
    // SAFETY: the field covers `values` (nbytes, aligned) and the stream `out` (out_len bytes,
    // zfp's own bound for this field and mode); both outlive the session.
    let size = unsafe { ffi::zfp_compress(session.zfp, session.field) };
    drop(session);
    if size == 0 {
        return Err(Error::Failure);
    }
    if size >= src.len() || size > dst.len() || size > out_len {
        return Ok(0);
    }
    dst[..size].copy_from_slice(&as_bytes_mut(&mut out)[..size]);
    Ok(size)
}

/// Decompresses one block into `dst`, which must hold the block (`blockshape` items of
/// `typesize` bytes); like c-blosc2's plugin, returns `dst.len()`.
pub fn decompress(
    mode: Mode,
    blockshape: &[i32],
    typesize: usize,
    src: &[u8],
    dst: &mut [u8],
) -> Result<usize> {
    let geometry = Geometry::new(blockshape, typesize)?;
    if geometry.nbytes > dst.len() {
        return Err(Error::Failure);
    }
    let mut values = aligned(geometry.nbytes);
    let mut session = Session::open(Some(mode), &geometry, values.as_mut_ptr().cast())?;
    // The reader never looks past what the blocks can consume: the larger of the mode's bound
    // (fixed-rate blocks may exceed zfp's default) and the default's, plus a stream word.
    let bound = {
        let loosest = Session::open(None, &geometry, std::ptr::null_mut())?;
        loosest.maximum_size().max(session.maximum_size())
    };
    let mut padded = aligned(bound.max(src.len()) + 16);
    let padded_len = padded.len() * 8;
    as_bytes_mut(&mut padded)[..src.len()].copy_from_slice(src);
    session.attach(padded.as_mut_ptr().cast(), padded_len)?;
    // SAFETY: the field covers `values` (nbytes, aligned); the stream is `padded`, longer than
    // anything the decoder can read for this field; both outlive the session.
    let size = unsafe { ffi::zfp_decompress(session.zfp, session.field) };
    drop(session);
    if size == 0 {
        return Err(Error::Failure);
    }
    dst[..geometry.nbytes].copy_from_slice(&as_bytes_mut(&mut values)[..geometry.nbytes]);
    Ok(dst.len())
}

/// zfp's cells: 4 items along each dimension, each encoded on its own.
const CELL_SIDE: usize = 4;

/// The most bytes a cell's items take (4^4 float64 values).
pub const MAX_CELL_BYTES: usize = 256 * 8;

/// c-blosc2's fast getitem for `zfp_rate` blocks (its plugin's `zfp_getcell`): in fixed-rate
/// mode every cell of a block takes the same number of bits, so the items asked for, when
/// they all lie in the cell holding the first one, are decoded from that cell alone.
///
/// `stream` is the block's zfp stream, `items` the items' indices in the block (C order over
/// `blockshape`); `block_nbytes` the block's size. On success `out` receives the items of the cell starting at `start`'s place in it, in the cell's
/// own order (the last dimension fastest within the 4-item cell side, so a run that passes
/// the end of a cell row continues on the cell's next row, not the block's), and the result
/// is their size in bytes. `Ok(None)` when the items do not fit in that cell: the caller then
/// decodes the whole block, as c-blosc2 does. Errors as c-blosc2's fail (its caller turns
/// them all into `Data`): items of other than 4 or 8 bytes, a stream too short for the cell,
/// or more bits asked for than the cell holds (`nitems * typesize * 8` greater than the
/// cell's bit budget, a check of the reference's that fails requests it could serve).
pub fn rate_cell(
    meta: u8,
    blockshape: &[i32],
    typesize: usize,
    stream: &[u8],
    items: std::ops::Range<usize>,
    block_nbytes: usize,
    out: &mut [u8],
) -> Result<Option<usize>> {
    let (start, nitems) = (items.start, items.len());
    let ndim = blockshape.len();
    if ndim == 0 || ndim > 4 || blockshape.iter().any(|&d| d <= 0) {
        return Err(Error::Failure);
    }
    // The start's coordinates in the block, then its cell (cells numbered as zfp stores
    // them: the last dimension fastest) and its place in that cell.
    // (As c-blosc2, the first coordinate is not wrapped: a start past the block, which only
    // a metalayer disagreeing with the chunk gives, lands past the stream's cells.)
    let mut coords = [0usize; 4];
    let mut rem = start;
    for i in (1..ndim).rev() {
        let side = blockshape[i] as usize;
        coords[i] = rem % side;
        rem /= side;
    }
    coords[0] = rem;
    let (mut ncell, mut cell_stride) = (0usize, 1usize);
    let (mut in_cell, mut in_cell_stride) = (0usize, 1usize);
    for i in (0..ndim).rev() {
        ncell = ncell.saturating_add((coords[i] / CELL_SIDE).saturating_mul(cell_stride));
        in_cell += coords[i] % CELL_SIDE * in_cell_stride;
        cell_stride = cell_stride.saturating_mul((blockshape[i] as usize).div_ceil(CELL_SIDE));
        in_cell_stride *= CELL_SIDE;
    }
    let cell_nitems = in_cell_stride;
    if nitems > cell_nitems || in_cell + nitems > cell_nitems {
        return Ok(None);
    }
    let scalar = match typesize {
        4 => ffi::zfp_type_zfp_type_float,
        8 => ffi::zfp_type_zfp_type_double,
        _ => return Err(Error::Failure),
    };
    // The rate as the reference's getitem computes it (an integer product, then / 100).
    let rate = f64::from(u32::from(meta) * typesize as u32 * 8) / 100.0;
    // SAFETY: a null bit stream is allowed; the result is checked.
    let zfp = unsafe { ffi::zfp_stream_open(std::ptr::null_mut()) };
    if zfp.is_null() {
        return Err(Error::MemoryAlloc);
    }
    let session = Session {
        zfp,
        field: std::ptr::null_mut(),
        bits: std::ptr::null_mut(),
    };
    // SAFETY: `zfp` is a live stream; set_rate only stores parameters, which are then read.
    let maxbits = unsafe {
        ffi::zfp_stream_set_rate(zfp, rate, scalar, ndim as u32, 0);
        (*zfp).maxbits as usize
    };
    if maxbits == 0 || ncell >= stream.len() * 8 / maxbits {
        return Err(Error::Failure);
    }
    // zfp's reader takes 64-bit words and does not check the end of its buffer: hand it the
    // words holding the cell (from a word boundary, so the bits keep their places), plus the
    // one it reads ahead and spare zeros.
    let first_bit = ncell * maxbits;
    let word_start = first_bit / 64 * 8;
    let words = (first_bit % 64 + maxbits).div_ceil(64) + 4;
    let (mut small, mut large) = ([0u64; 16], Vec::new());
    let window: &mut [u64] = if words <= small.len() {
        &mut small[..words]
    } else {
        large.resize(words, 0);
        &mut large
    };
    let have = stream.len().saturating_sub(word_start).min(words * 8);
    as_bytes_mut(window)[..have].copy_from_slice(&stream[word_start..word_start + have]);
    let mut session = session;
    session.attach(window.as_mut_ptr().cast(), words * 8)?;
    // SAFETY: `first_bit % 64` lies in the window's first word.
    unsafe { ffi::stream_rseek(session.bits, (first_bit % 64) as u64) };
    let nbytes = nitems * typesize;
    let from = in_cell * typesize;
    // The reference's checks of what the decoder took, then the items asked for.
    let finish = |bits: usize, cell: &[u8]| {
        if bits == 0
            || bits > block_nbytes * 8
            || bits > cell_nitems * typesize * 8
            || nbytes * 8 > bits
            || out.len() < nbytes
        {
            return Err(Error::Failure);
        }
        out[..nbytes].copy_from_slice(&cell[from..from + nbytes]);
        Ok(Some(nbytes))
    };
    let result = match ndim {
        1 => decode_cell::<4, _>(zfp, typesize, finish),
        2 => decode_cell::<16, _>(zfp, typesize, finish),
        3 => decode_cell::<64, _>(zfp, typesize, finish),
        _ => decode_cell::<256, _>(zfp, typesize, finish),
    };
    drop(session);
    result
}

/// Decodes the cell at `zfp`'s stream position, `N` (4^ndim) scalars of `typesize` (4 or 8)
/// bytes, and hands `finish` the bits it took and the cell's bytes.
fn decode_cell<const N: usize, R>(
    zfp: *mut ffi::zfp_stream,
    typesize: usize,
    finish: impl FnOnce(usize, &[u8]) -> R,
) -> R {
    let mut words = [0u64; N];
    let p = words.as_mut_ptr();
    // SAFETY: `zfp` reads a stream positioned by the caller over a buffer holding every word
    // the cell can touch; `words` holds N float64 (or 2N float32) values, a cell's N.
    let bits = unsafe {
        match (N, typesize) {
            (4, 4) => ffi::zfp_decode_block_float_1(zfp, p.cast()),
            (16, 4) => ffi::zfp_decode_block_float_2(zfp, p.cast()),
            (64, 4) => ffi::zfp_decode_block_float_3(zfp, p.cast()),
            (_, 4) => ffi::zfp_decode_block_float_4(zfp, p.cast()),
            (4, _) => ffi::zfp_decode_block_double_1(zfp, p.cast()),
            (16, _) => ffi::zfp_decode_block_double_2(zfp, p.cast()),
            (64, _) => ffi::zfp_decode_block_double_3(zfp, p.cast()),
            _ => ffi::zfp_decode_block_double_4(zfp, p.cast()),
        }
    };
    finish(bits, &as_bytes_mut(&mut words)[..N * typesize])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(n: usize) -> Vec<u8> {
        (0..n)
            .flat_map(|i| ((i as f32 * 0.1).sin() * 100.0).to_le_bytes())
            .collect()
    }

    #[test]
    fn accuracy_round_trip_within_tolerance() {
        let src = field(16 * 12);
        let mut dst = vec![0u8; src.len()];
        let n = compress(Mode::Accuracy(-3), &[16, 12], 4, &src, &mut dst).unwrap();
        assert!(n > 0 && n < src.len());
        let mut back = vec![0u8; src.len()];
        assert_eq!(
            decompress(Mode::Accuracy(-3), &[16, 12], 4, &dst[..n], &mut back),
            Ok(src.len())
        );
        for (a, b) in src.chunks(4).zip(back.chunks(4)) {
            let a = f32::from_le_bytes(a.try_into().unwrap());
            let b = f32::from_le_bytes(b.try_into().unwrap());
            assert!((a - b).abs() <= 1e-3, "{a} {b}");
        }
    }

    #[test]
    fn rate_stream_has_the_rate_size() {
        // 25% of 32 bits = 8 bits per value, 4x4x4 blocks of 64 values: 64 bytes a block.
        let src: Vec<u8> = (0..8 * 8 * 8)
            .flat_map(|i| (i as f64).to_le_bytes())
            .collect();
        let mut dst = vec![0u8; src.len()];
        let n = compress(Mode::Rate(25), &[8, 8, 8], 8, &src, &mut dst).unwrap();
        assert_eq!(n, 8 * 16 * 8 * 8 / 8);
    }

    #[test]
    fn refusals() {
        let src = field(16);
        let mut dst = vec![0u8; 64];
        assert_eq!(
            compress(Mode::Precision(10), &[4, 2, 2], 4, &field(16), &mut dst),
            Err(Error::Failure)
        );
        assert_eq!(
            compress(Mode::Precision(10), &[8, 8], 2, &src, &mut dst),
            Err(Error::Failure)
        );
        assert_eq!(
            compress(Mode::Precision(10), &[4, 4, 4, 4, 4], 4, &src, &mut dst),
            Err(Error::Failure)
        );
        // A block shape bigger than the output.
        assert_eq!(
            decompress(Mode::Rate(50), &[64, 64], 8, &src, &mut dst),
            Err(Error::Failure)
        );
    }

    #[test]
    fn truncated_and_garbage_streams_do_not_overread() {
        let src = field(32 * 32);
        let mut dst = vec![0u8; src.len()];
        for mode in [Mode::Accuracy(-2), Mode::Precision(12), Mode::Rate(40)] {
            let n = compress(mode, &[32, 32], 4, &src, &mut dst).unwrap();
            let mut back = vec![0u8; src.len()];
            for cut in [0, 1, n / 2, n] {
                let _ = decompress(mode, &[32, 32], 4, &dst[..cut], &mut back);
            }
            let garbage: Vec<u8> = (0..n).map(|i| (i * 37 % 251) as u8).collect();
            let _ = decompress(mode, &[32, 32], 4, &garbage, &mut back);
        }
    }

    #[test]
    fn rate_cells_are_the_blocks_items() {
        // A 2-D block of 7x9 float64 values: cells cut by both edges.
        let src: Vec<u8> = (0..7 * 9)
            .flat_map(|i| ((i as f64 * 0.3).cos() * 50.0).to_le_bytes())
            .collect();
        let mut stream = vec![0u8; src.len()];
        let n = compress(Mode::Rate(40), &[7, 9], 8, &src, &mut stream).unwrap();
        let stream = &stream[..n];
        let mut whole = vec![0u8; src.len()];
        decompress(Mode::Rate(40), &[7, 9], 8, stream, &mut whole).unwrap();
        let mut out = [0u8; 8];
        for i in 0..7 * 9 {
            let got = rate_cell(40, &[7, 9], 8, stream, i..i + 1, src.len(), &mut out);
            assert_eq!(got, Ok(Some(8)));
            assert_eq!(out, whole[i * 8..i * 8 + 8], "item {i}");
        }
        // More items than the start's cell has left: not served from the cell.
        let mut big = [0u8; MAX_CELL_BYTES];
        assert_eq!(
            rate_cell(40, &[7, 9], 8, stream, 3..17, src.len(), &mut big),
            Ok(None)
        );
        // 40% of 64 bits a value: 410 bits a cell, fewer than 7 values' 448.
        assert_eq!(
            rate_cell(40, &[7, 9], 8, stream, 0..6, src.len(), &mut big),
            Ok(Some(48))
        );
        assert_eq!(
            rate_cell(40, &[7, 9], 8, stream, 0..7, src.len(), &mut big),
            Err(Error::Failure)
        );
        // A stream too short for the cell, other item sizes.
        assert_eq!(
            rate_cell(40, &[7, 9], 8, &stream[..60], 60..61, src.len(), &mut big),
            Err(Error::Failure)
        );
        assert_eq!(
            rate_cell(40, &[7, 9], 2, stream, 0..1, src.len(), &mut big),
            Err(Error::Failure)
        );
    }
}
