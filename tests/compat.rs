//! Chunks written by c-blosc 1.3.0 … c-blosc2 3.0.0 (test vectors from the c-blosc2 repository)
//! decompress to the data they were made from: little-endian int32 0, 1, 2, … over the whole
//! int32s of nbytes.
//!
//! The bitshuffle files come from c-blosc's `test_bitshuffle_leftovers` (python-blosc#220): its
//! 1.18 version sizes the buffer to 641091 bytes and sets each of the 3 bytes past the last whole
//! int32 to its own index (`data[i] = (uint8_t)i`); the 1.17.1 files are from a draft with 641092
//! bytes (all int32s). In the 1.x format (version byte 2) a block of `n` items with `n % 8 == 0`
//! is bit-transposed and its trailing `len % typesize` bytes are stored as they are; c-blosc2
//! 3.3.5 never writes those bytes into the destination (its output there is whatever the
//! caller's buffer held: checked with two fillers), we copy them from the stream. c-blosc
//! 1.17.1's writer did not put the source bytes there but what its scratch buffer still held
//! (zeros here, as are the bit-shuffled bytes of the previous block at those offsets); 1.18
//! fixed it ("fixed the copy of the leftovers of a chunk when its size is not a multiple of the
//! typesize", python-blosc#220). So for
//! `blosc-1.17.1-lz4-bitshuffle8-nomemcpy.cdata` the last 4 source bytes are not in the file at
//! all: we return what the file holds, the same way every time.

use blosc2::chunk::{cbuffer_sizes, DParams, Decompressor};

/// The buffer c-blosc's compat generators compressed: int32 arange, then trailing bytes that
/// hold their own index.
fn source_bytes(nbytes: usize) -> Vec<u8> {
    let whole = nbytes / 4 * 4;
    (0..(whole / 4) as i32)
        .flat_map(|i| i.to_le_bytes())
        .chain((whole..nbytes).map(|i| i as u8))
        .collect()
}

/// The bytes of `name` that its writer did not take from the source, with what the file holds
/// there instead.
fn writer_residue(name: &str) -> Option<(usize, &'static [u8])> {
    // nbytes 641092, typesize 8, last block 116804 bytes = 14600 items (a multiple of 8) and 4
    // trailing bytes; the 1.17.1 writer left there bytes 116800..116804 of block 0 bit-shuffled,
    // which are zero for this data.
    (name == "blosc-1.17.1-lz4-bitshuffle8-nomemcpy.cdata").then_some((641088, &[0u8, 0, 0, 0][..]))
}

#[test]
fn every_compat_chunk_decompresses_exactly() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/compat");
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "cdata"))
        .collect();
    names.sort();
    assert_eq!(names.len(), 27);
    for threads in [1, 2] {
        let d = Decompressor::new(DParams {
            nthreads: threads,
            ..Default::default()
        })
        .unwrap();
        for path in &names {
            let name = path.file_name().unwrap().to_string_lossy();
            let chunk = std::fs::read(path).unwrap();
            let (nbytes, cbytes, _) = cbuffer_sizes(&chunk).unwrap();
            assert_eq!(cbytes as usize, chunk.len(), "{path:?}");
            let mut expected = source_bytes(nbytes as usize);
            if let Some((at, held)) = writer_residue(&name) {
                expected[at..at + held.len()].copy_from_slice(held);
            }
            // Two different fillers: a byte we do not write would show up as a difference.
            for filler in [0xAAu8, 0x55] {
                let mut out = vec![filler; nbytes as usize];
                let n = d
                    .decompress(&chunk, &mut out, None)
                    .unwrap_or_else(|e| panic!("{path:?}: {e}"));
                assert_eq!(n, nbytes as usize);
                if let Some(i) = (0..n).find(|&i| out[i] != expected[i]) {
                    panic!(
                        "{path:?} ({threads} threads) byte {i}: {} instead of {}",
                        out[i], expected[i]
                    );
                }
            }
            // The tail again through getitem, which decodes the last block on its own.
            let n = nbytes as usize;
            let start = n - 37;
            let mut tail = vec![0xAAu8; 37];
            assert_eq!(d.getitem_bytes(&chunk, start, 37, &mut tail).unwrap(), 37);
            assert_eq!(tail, expected[start..], "{path:?} getitem tail");
        }
    }
}

#[test]
fn source_bytes_follow_the_generator() {
    let s = source_bytes(641091);
    assert_eq!(&s[641084..], &[15, 114, 2, 0, 64, 65, 66]);
    let s = source_bytes(641092);
    assert_eq!(&s[641084..], &[15, 114, 2, 0, 16, 114, 2, 0]);
}
