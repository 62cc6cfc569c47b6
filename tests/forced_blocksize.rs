//! A forced block size that is not a multiple of the typesize: c-blosc2 3.3.5 cuts the blocks at
//! the size rounded down to a typesize multiple but writes the caller's size in the header, so
//! its compressed chunks disagree with their own header and it cannot decode them. Ours cut the
//! same blocks and record the rounded size: every byte but the header's blocksize field equals
//! the reference's. Chunks without blocks (plain copies, zeros) keep the caller's size, as
//! c-blosc2 writes it, and are then byte-identical. Digests were taken from c-blosc2 3.3.5.

use blosc2::chunk::header::{ChunkHeader, Special};
use blosc2::chunk::{CParams, Compressor, DParams, Decompressor};

/// FNV-1a (with the offset basis the comparison harness used) over the chunk, optionally without the header's blocksize field (bytes 8..12).
fn digest(chunk: &[u8], skip_blocksize: bool) -> u64 {
    let mut h = 1_469_598_103_934_665_603u64;
    for (i, &b) in chunk.iter().enumerate() {
        if skip_blocksize && (8..12).contains(&i) {
            continue;
        }
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn compress(p: CParams, src: &[u8]) -> Vec<u8> {
    let c = Compressor::new(p).unwrap();
    let mut dst = vec![0u8; src.len() + 64];
    let n = c.compress(src, &mut dst).unwrap();
    dst.truncate(n);
    dst
}

fn decompress(chunk: &[u8]) -> Vec<u8> {
    let d = Decompressor::new(DParams::default()).unwrap();
    let h = ChunkHeader::parse(chunk).unwrap();
    let mut out = vec![0u8; h.nbytes as usize];
    let n = d.decompress(chunk, &mut out, None).unwrap();
    assert_eq!(n, out.len());
    out
}

fn params(typesize: i32, blocksize: i32, clevel: u8, shuffle: bool) -> CParams {
    let mut p = CParams {
        clevel,
        typesize,
        blocksize,
        nthreads: 1,
        ..Default::default()
    };
    p.filters[5] = u8::from(shuffle);
    p
}

fn ramp(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 7 + i / 13) as u8).collect()
}

/// Shuffled blocks split into typesize streams: 1030 is cut at 1028 (two blocks and a leftover
/// of 2000 - 2 * 1028 bytes).
#[test]
fn split_blocks_are_cut_at_the_rounded_size() {
    let src: Vec<u8> = (0..2000).map(|i| (i / 37 + (i % 4) * 50) as u8).collect();
    let chunk = compress(params(4, 1030, 5, true), &src);
    assert_eq!(chunk.len(), 1187);
    assert_eq!(digest(&chunk, true), 0xecbe_2313_50fc_ff17);
    assert_eq!(ChunkHeader::parse(&chunk).unwrap().blocksize, 1028);
    assert_eq!(decompress(&chunk), src);
}

/// One unsplit block forced to the whole 206-byte buffer: 204 bytes and a 2-byte leftover
/// block (a run).
#[test]
fn a_whole_buffer_block_leaves_a_leftover_block() {
    let src = ramp(206);
    let chunk = compress(params(4, 206, 5, false), &src);
    assert_eq!(chunk.len(), 254);
    assert_eq!(digest(&chunk, true), 0x8df8_c52b_ff41_6c67);
    let h = ChunkHeader::parse(&chunk).unwrap();
    assert_eq!(h.blocksize, 204);
    assert_eq!(
        u32::from_le_bytes(chunk[32..36].try_into().unwrap()),
        40,
        "two blocks"
    );
    assert_eq!(decompress(&chunk), src);
}

#[test]
fn a_plain_copy_keeps_the_callers_blocksize() {
    let src = ramp(400);
    let chunk = compress(params(4, 130, 5, true), &src);
    assert_eq!(chunk.len(), 432);
    assert!(ChunkHeader::parse(&chunk).unwrap().memcpyed());
    assert_eq!(digest(&chunk, false), 0xc4c9_ede5_9ab3_d73a);
    assert_eq!(decompress(&chunk), src);
}

#[test]
fn a_zeros_chunk_keeps_the_callers_blocksize() {
    let src = vec![0u8; 1000];
    let chunk = compress(params(4, 302, 5, true), &src);
    assert_eq!(chunk.len(), 32);
    let h = ChunkHeader::parse(&chunk).unwrap();
    assert_eq!(h.special().unwrap(), Special::Zero);
    assert_eq!(h.blocksize, 302);
    assert_eq!(digest(&chunk, false), 0xc9da_0911_f1a6_3167);
    assert_eq!(decompress(&chunk), src);
}
