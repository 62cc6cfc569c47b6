//! Tests of the chunk functions of blosc2.h.

use std::ptr;

use libc::c_int;

use super::*;
use crate::capi::ffi::Castable;
use crate::capi::library::{
    blosc2_get_blosc2_cparams_defaults, blosc2_get_blosc2_dparams_defaults,
};
use crate::capi::types::blosc2_context_s;
use crate::chunk::decompress;
use crate::chunk::header::MEMCPYED;
use crate::chunk::header::{ChunkHeader, DOBITSHUFFLE, DOSHUFFLE};
use crate::schunk::env::build_filters;
use crate::{Error, Result};
use std::sync::Arc;

/// Serves a lazy chunk's blocks from the full chunk.
struct InMemory(Vec<u8>);

impl decompress::LazyBlocks for InMemory {
    fn read_block(&self, _: i32, _: i64, offset: i64, len: i32) -> Result<Vec<u8>> {
        let at = offset as usize;
        self.0
            .get(at..at + len as usize)
            .map(<[u8]>::to_vec)
            .ok_or(Error::ReadBuffer)
    }
}

fn le32(b: &[u8], at: usize) -> usize {
    i32::from_le_bytes(b[at..at + 4].try_into().unwrap()) as usize
}

#[test]
fn contexts_round_trip_and_read_lazy_chunks_through_their_reader() {
    let data: Vec<u8> = (0..100_000u32)
        .flat_map(|i| (i / 5).to_le_bytes())
        .collect();
    // SAFETY: plain structs by value; every buffer below is valid for the sizes passed, and
    // the handles are freed once.
    unsafe {
        let mut cp = blosc2_get_blosc2_cparams_defaults();
        cp.typesize = 4;
        cp.blocksize = 64 * 1024;
        let c = blosc2_create_cctx(cp);
        assert!(!c.is_null());
        let mut chunk = vec![0u8; data.len() + 32];
        let n = blosc2_compress_ctx(
            c,
            data.as_ptr().cast(),
            data.len() as i32,
            chunk.as_mut_ptr().cast(),
            chunk.len() as i32,
        );
        assert!(n > 32 && (n as usize) < data.len());
        chunk.truncate(n as usize);
        blosc2_free_ctx(c);

        let d = blosc2_create_dctx(blosc2_get_blosc2_dparams_defaults());
        let mut out = vec![0u8; data.len()];
        let len = out.len() as i32;
        let m = blosc2_decompress_ctx(d, chunk.as_ptr().cast(), n, out.as_mut_ptr().cast(), len);
        assert_eq!(m, len);
        assert_eq!(out, data);
        // NULL with a size is refused, not dereferenced.
        let bad = blosc2_decompress_ctx(d, ptr::null(), n, out.as_mut_ptr().cast(), len);
        assert_eq!(bad, Error::NullPointer.code());

        // The lazy form: header, block starts, then nchunk, offset and block sizes.
        let nblocks = data.len().div_ceil(64 * 1024);
        let mut lazy = chunk[..32 + 4 * nblocks].to_vec();
        lazy[31] |= crate::chunk::header::LAZY_CHUNK;
        lazy.extend_from_slice(&0i32.to_le_bytes());
        lazy.extend_from_slice(&0i64.to_le_bytes());
        for i in 0..nblocks {
            let start = le32(&chunk, 32 + 4 * i);
            let end = if i + 1 < nblocks {
                le32(&chunk, 32 + 4 * (i + 1))
            } else {
                chunk.len()
            };
            lazy.extend_from_slice(&((end - start) as i32).to_le_bytes());
        }
        let lazy_len = lazy.len() as i32;
        out.fill(0);
        let without = blosc2_decompress_ctx(
            d,
            lazy.as_ptr().cast(),
            lazy_len,
            out.as_mut_ptr().cast(),
            len,
        );
        assert_eq!(
            without,
            Error::InvalidParam.code(),
            "no reader, no lazy chunk"
        );
        blosc2_context_s::try_mut(d).unwrap().lazy_blocks = Some(Arc::new(InMemory(chunk.clone())));
        let m = blosc2_decompress_ctx(
            d,
            lazy.as_ptr().cast(),
            lazy_len,
            out.as_mut_ptr().cast(),
            len,
        );
        assert_eq!(m, len);
        assert_eq!(out, data);
        let mut part = [0u8; 40];
        let g = blosc2_getitem_ctx(
            d,
            lazy.as_ptr().cast(),
            lazy_len,
            20_000,
            10,
            part.as_mut_ptr().cast(),
            40,
        );
        assert_eq!(g, 40);
        assert_eq!(&part[..], &data[80_000..80_040]);
        blosc2_free_ctx(d);
    }
}

/// `blosc2_getitem_ctx`'s memcpyed shortcut answers only where the general path answers the
/// same: over memcpyed chunks with 16- and 32-byte headers, every header byte set to values
/// that matter (flag bits, sizes around the truth, zero) and item ranges around the edges.
#[test]
fn memcpyed_shortcut_agrees_with_the_general_getitem() {
    let data: Vec<u8> = (0..4000u32).map(|i| (i * 37 + i / 7) as u8).collect();
    let dparams = crate::chunk::DParams::default();
    let (mut agreed, mut shortcut) = (0, 0);
    for extended in [false, true] {
        let hl = if extended { 32 } else { 16 };
        let mut chunk = vec![0u8; hl];
        chunk[0] = 2;
        chunk[1] = 1;
        chunk[2] = MEMCPYED
            | if extended {
                DOSHUFFLE | DOBITSHUFFLE
            } else {
                0
            };
        chunk[3] = 4;
        chunk[4..8].copy_from_slice(&(data.len() as i32).to_le_bytes());
        chunk[8..12].copy_from_slice(&1024i32.to_le_bytes());
        chunk[12..16].copy_from_slice(&((data.len() + hl) as i32).to_le_bytes());
        chunk.extend_from_slice(&data);
        let mut variants = vec![chunk.clone()];
        for at in 0..hl {
            for v in [0u8, 1, 2, 3, 4, 5, 6, 8, 0x10, 0x20, 0x37, 0x80, 0xff] {
                let mut c = chunk.clone();
                c[at] = v;
                variants.push(c);
            }
        }
        for cut in [8, 16, 31, hl + 100, chunk.len() - 1] {
            variants.push(chunk[..cut].to_vec());
        }
        for c in &variants {
            for (start, nitems) in [
                (0i64, 1i64),
                (0, 1000),
                (999, 1),
                (999, 2),
                (500, 0),
                (-1, 2),
                (1000, 1),
                (3, 7),
            ] {
                let mut general = vec![0u8; 4100];
                let g = getitem_items(
                    &dparams,
                    c,
                    start as c_int,
                    nitems as c_int,
                    &mut general,
                    None,
                );
                if let Some(items) = ChunkHeader::memcpyed_items(c, start, nitems) {
                    shortcut += 1;
                    assert_eq!(g, Ok(items.len() as c_int), "{start} {nitems} {c:?}");
                    assert_eq!(&general[..items.len()], items);
                    let from = start as usize * c[3] as usize;
                    assert_eq!(items, &data[from..from + items.len()]);
                } else if g.is_ok() {
                    agreed += 1;
                }
            }
        }
    }
    // The shortcut covers the plain cases, the general path the rest (nitems 0 included).
    assert!(shortcut > 100 && agreed > 0, "{shortcut} {agreed}");
}

#[test]
fn environment_values_parse_like_strtol() {
    assert_eq!(leading_int("12"), 12);
    assert_eq!(leading_int("  7x"), 7);
    assert_eq!(leading_int("x"), 0);
    assert_eq!(leading_int("-3"), -3);
    assert_eq!(leading_int("+4"), 4);
    let mut f = [0u8; 6];
    build_filters(1, true, 1, &mut f);
    assert_eq!(f, [0, 0, 0, 0, 3, 0], "no byte shuffle of 1-byte items");
    build_filters(2, false, 1, &mut f);
    assert_eq!(f[5], 2);
}
