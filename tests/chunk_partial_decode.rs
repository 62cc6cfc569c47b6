//! The decoder's shortcuts against the plain definition (the data that was compressed):
//! unshuffling straight from streams stored raw in the chunk, and getitem decoding each stream
//! only as far as the wanted bytes (LZ4/BloscLZ prefixes) and unshuffling only their items.
//! Chunks mix every kind of stream (compressed, stored raw, zero, run-length), over typesizes,
//! codecs, split modes and filter pipelines; getitem is checked on ranges starting and ending
//! at every position of a block's first and last items and across block boundaries.

use blosc2::chunk::decompress::BlockSpan;
use blosc2::chunk::header::{ChunkHeader, DELTA, SHUFFLE};
use blosc2::chunk::params::{ALWAYS_SPLIT, NEVER_SPLIT};
use blosc2::chunk::pipeline::BYTEDELTA;
use blosc2::chunk::{CParams, Compressor, DParams, Decompressor};

/// `n` items of `typesize` bytes whose byte planes differ: byte 0 noise (stored raw when
/// split), byte 1 a slow ramp (compressible), the last byte constant (a run) and, for
/// typesizes above 3, byte 2 zero; the rest a mild pattern.
fn mixed_items(n: usize, typesize: usize) -> Vec<u8> {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut out = Vec::with_capacity(n * typesize);
    for i in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        for b in 0..typesize {
            out.push(match b {
                0 => x as u8,
                _ if b == typesize - 1 => 0x3C,
                1 => (i / 97) as u8,
                2 if typesize > 3 => 0,
                _ => ((i / 5) as u8).wrapping_mul(b as u8),
            });
        }
    }
    out
}

fn compress(p: &CParams, src: &[u8]) -> Vec<u8> {
    let c = Compressor::new(p.clone()).unwrap();
    let mut dst = vec![0u8; src.len() + 64];
    let n = c.compress(src, &mut dst).unwrap();
    dst.truncate(n);
    dst
}

/// Ranges (start, len) in bytes: around the first and last items of each block, single items
/// at block boundaries, whole blocks and spans over several blocks.
fn ranges(nbytes: usize, blocksize: usize, typesize: usize) -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    let mut b = 0;
    while b < nbytes {
        let end = (b + blocksize).min(nbytes);
        for start in [
            b,
            b + 1,
            b + typesize,
            end.saturating_sub(typesize),
            end - 1,
        ] {
            for len in [1, typesize, 3 * typesize + 1, blocksize / 3, blocksize] {
                if start >= b && start < nbytes {
                    v.push((start, len.min(nbytes - start).max(1)));
                }
            }
        }
        // Items in the middle of the block, the spot of the benchmark's getitem.
        let mid = b + (end - b) / 2 / typesize * typesize;
        v.push((mid, typesize));
        v.push((mid + 3 * typesize, 2 * typesize));
        b = end;
    }
    v.push((0, nbytes));
    v.push((blocksize / 2, nbytes - blocksize / 2));
    v
}

fn check(p: &CParams, data: &[u8], what: &str) {
    let chunk = compress(p, data);
    let h = ChunkHeader::parse(&chunk).unwrap();
    let d = Decompressor::new(DParams::default()).unwrap();
    let mut out = vec![0u8; data.len()];
    assert_eq!(d.decompress(&chunk, &mut out, None).unwrap(), data.len());
    assert!(out == data, "{what}: decompress");
    let bs = h.blocksize as usize;
    for (start, len) in ranges(data.len(), bs, p.typesize as usize) {
        let mut got = vec![0xA5u8; len];
        assert_eq!(
            d.getitem_bytes(&chunk, start, len, &mut got).unwrap(),
            len,
            "{what}: getitem({start}, {len})"
        );
        assert!(
            got == data[start..start + len],
            "{what}: getitem({start}, {len}) gave other bytes"
        );
    }
    check_block_parts(&d, &chunk, data, bs, p.typesize as usize, what);
}

/// `for_each_block_part` over every block, with spans used densely (unshuffled whole) and
/// sparsely (gathered run by run from the streams): runs at every alignment give the data's
/// bytes, and runs outside the span are refused (or right, for blocks decoded whole).
fn check_block_parts(
    d: &Decompressor,
    chunk: &[u8],
    data: &[u8],
    bs: usize,
    ts: usize,
    what: &str,
) {
    let nblocks = data.len().div_ceil(bs);
    let blen = |b: usize| bs.min(data.len() - b * bs);
    // (from, to, used) of a block of `blen` bytes and items of `ts`.
    type SpanOf = fn(usize, usize) -> (usize, usize, usize);
    let cases: [(&str, SpanOf); 4] = [
        ("whole", |blen, _| (0, blen, blen)),
        ("sparse", |blen, ts| (ts.min(blen - 1), blen, 1)),
        ("one item", |blen, ts| {
            let at = blen / 2 / ts * ts;
            (at, (at + ts).min(blen), ts)
        }),
        ("dense tail", |blen, ts| {
            (blen / 3, blen - ts.min(blen / 2), blen)
        }),
    ];
    for (case, span_of) in cases {
        let spans: Vec<BlockSpan> = (0..nblocks)
            .map(|b| {
                let (from, to, used) = span_of(blen(b), ts);
                BlockSpan {
                    nblock: b,
                    from,
                    to,
                    used,
                }
            })
            .collect();
        let mut seen = 0;
        let handled = d
            .for_each_block_part(chunk, &spans, None, |k, part| {
                let BlockSpan {
                    nblock, from, to, ..
                } = spans[k];
                let base = nblock * bs;
                let mut at = from;
                let mut len = 1;
                while at < to {
                    let n = len.min(to - at);
                    let mut got = vec![0xA5u8; n];
                    part.copy_to(at, &mut got)?;
                    assert!(
                        got == data[base + at..base + at + n],
                        "{what} {case}: block {nblock} bytes {at}+{n}"
                    );
                    at += n;
                    len = len * 3 + ts;
                }
                // Outside the span: refused, or right where the block was decoded whole.
                let blen = blen(nblock);
                for (at, n) in [(to - 1, 2), (from.wrapping_sub(1), 1), (blen, 1)] {
                    let mut got = vec![0u8; n];
                    if part.copy_to(at, &mut got).is_ok() {
                        assert!(at + n <= blen, "{what} {case}: past the block");
                        assert!(got == data[base + at..base + at + n], "{what} {case}");
                    }
                }
                seen += 1;
                Ok(())
            })
            .unwrap();
        assert!(handled, "{what} {case}");
        assert_eq!(seen, nblocks, "{what} {case}");
    }
}

#[test]
fn shuffled_blocks_decode_and_getitem_exactly() {
    for typesize in [2usize, 3, 4, 7, 8, 12, 16, 17, 24, 32, 33] {
        let n = 6000 / typesize * 4 + 5; // a leftover block, not a multiple of the block size
        let data = mixed_items(n, typesize);
        let blocksize = (2048 / typesize * typesize) as i32;
        for compcode in [0u8, 1, 2, 5] {
            for splitmode in [ALWAYS_SPLIT, NEVER_SPLIT] {
                for pipeline in ["shuffle", "delta+shuffle", "bytedelta+shuffle", "none"] {
                    let mut p = CParams {
                        compcode,
                        clevel: 5,
                        typesize: typesize as i32,
                        blocksize,
                        splitmode,
                        ..Default::default()
                    };
                    p.filters = [0; 6];
                    match pipeline {
                        "shuffle" => p.filters[5] = SHUFFLE,
                        "delta+shuffle" => {
                            p.filters[4] = DELTA;
                            p.filters[5] = SHUFFLE;
                        }
                        "bytedelta+shuffle" => {
                            // Unshuffled first on decompression: the unshuffle writes a buffer
                            // that bytedelta then reads.
                            p.filters[4] = BYTEDELTA;
                            p.filters_meta[4] = typesize as u8;
                            p.filters[5] = SHUFFLE;
                        }
                        _ => {}
                    }
                    let what = format!(
                        "typesize {typesize} codec {compcode} split {splitmode} {pipeline}"
                    );
                    check(&p, &data, &what);
                }
            }
        }
    }
}

#[test]
fn shuffle_with_fewer_streams_than_the_typesize() {
    // filters_meta sets the shuffle's stream count: no longer the codec's streams, so the
    // decoder takes its general path; the results must not change.
    let data = mixed_items(3000, 8);
    for meta in [2u8, 4] {
        let mut p = CParams {
            compcode: 1,
            typesize: 8,
            blocksize: 4096,
            splitmode: ALWAYS_SPLIT,
            ..Default::default()
        };
        p.filters = [0, 0, 0, 0, 0, SHUFFLE];
        p.filters_meta[5] = meta;
        check(&p, &data, &format!("meta {meta}"));
    }
}

#[test]
fn getitem_of_a_corrupt_stream_fails() {
    // Items at the start of a block need only a prefix of each stream: a stream whose start
    // is garbage still fails.
    let data = mixed_items(4096, 8);
    for compcode in [0u8, 1] {
        let mut p = CParams {
            compcode,
            typesize: 8,
            blocksize: 8192,
            splitmode: ALWAYS_SPLIT,
            ..Default::default()
        };
        p.filters = [0, 0, 0, 0, 0, SHUFFLE];
        let chunk = compress(&p, &data);
        let h = ChunkHeader::parse(&chunk).unwrap();
        let hl = h.header_len();
        let block1 = i32::from_le_bytes(chunk[hl + 4..hl + 8].try_into().unwrap()) as usize;
        // The second stream (byte 1, the ramp) is compressed; trash its first bytes.
        let s0 = i32::from_le_bytes(chunk[block1..block1 + 4].try_into().unwrap()) as usize;
        let s1 = block1 + 4 + s0;
        let c1 = i32::from_le_bytes(chunk[s1..s1 + 4].try_into().unwrap());
        assert!(
            c1 > 0 && (c1 as usize) < 1024,
            "codec {compcode}: stream 1 not compressed"
        );
        let mut bad = chunk.clone();
        for b in &mut bad[s1 + 4..s1 + 4 + 8] {
            *b = 0xFF;
        }
        let d = Decompressor::new(DParams::default()).unwrap();
        let mut out = [0u8; 8];
        let r = d.getitem_bytes(&bad, 8192, 8, &mut out);
        assert!(
            r.is_err() || out[..] != data[8192..8200],
            "codec {compcode}: corrupt stream gave the right item"
        );
    }
}
