//! Round trips through the chunk engine over codecs, levels, filters, split modes and threads;
//! getitem and maskout against full decompression; corrupted chunks never panic.

use blosc2::chunk::header::{ChunkHeader, Special};
use blosc2::chunk::params::{ALWAYS_SPLIT, AUTO_SPLIT, NEVER_SPLIT};
use blosc2::chunk::{special, vlblocks, CParams, Compressor, DParams, Decompressor};
use blosc2::Error;

fn datasets() -> Vec<(&'static str, Vec<u8>)> {
    let mut rng = 0x1234_5678_9abc_def0u64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    vec![
        (
            "ramp_i64",
            (0..50_000i64).flat_map(|i| i.to_le_bytes()).collect(),
        ),
        (
            "sine_f32",
            (0..70_001)
                .flat_map(|i| ((i as f32 / 50.0).sin() * 1000.0).to_le_bytes())
                .collect(),
        ),
        ("random", (0..40_000).map(|_| next() as u8).collect()),
        ("zeros", vec![0u8; 100_000]),
        ("run7", vec![7u8; 65_536]),
        ("tiny", (0..20u8).collect()),
        ("empty", Vec::new()),
    ]
}

fn compress(p: &CParams, src: &[u8]) -> Vec<u8> {
    let c = Compressor::new(p.clone()).unwrap();
    let mut dst = vec![0u8; src.len() + 32];
    let n = c.compress(src, &mut dst).unwrap();
    assert!(n >= 32, "compress returned {n}");
    dst.truncate(n);
    dst
}

fn decompress(chunk: &[u8], nthreads: i16) -> Vec<u8> {
    let d = Decompressor::new(DParams {
        nthreads,
        ..Default::default()
    })
    .unwrap();
    let h = ChunkHeader::parse(chunk).unwrap();
    let mut out = vec![0u8; h.nbytes as usize];
    let n = d.decompress(chunk, &mut out, None).unwrap();
    assert_eq!(n, out.len());
    out
}

#[test]
fn round_trips_across_parameters() {
    for (name, data) in datasets() {
        for compcode in [1u8, 2, 4, 5] {
            for clevel in [0u8, 1, 5, 9] {
                for typesize in [1, 4, 8] {
                    for splitmode in [ALWAYS_SPLIT, NEVER_SPLIT, AUTO_SPLIT] {
                        let p = CParams {
                            compcode,
                            clevel,
                            typesize,
                            splitmode,
                            ..Default::default()
                        };
                        let chunk = compress(&p, &data);
                        let h = ChunkHeader::parse(&chunk).unwrap();
                        assert_eq!(h.nbytes as usize, data.len());
                        assert_eq!(h.cbytes as usize, chunk.len());
                        assert!(
                            chunk.len() <= data.len() + 32,
                            "{name}: chunk larger than data + header"
                        );
                        assert_eq!(
                            decompress(&chunk, 1),
                            data,
                            "{name} {compcode} {clevel} {typesize} {splitmode}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn threads_give_the_same_chunk_and_data() {
    let data: Vec<u8> = (0..1_000_000u32)
        .flat_map(|i| (i / 3).to_le_bytes())
        .collect();
    for compcode in [1u8, 5] {
        let p1 = CParams {
            compcode,
            typesize: 4,
            blocksize: 32 * 1024,
            ..Default::default()
        };
        let p2 = CParams {
            nthreads: 2,
            ..p1.clone()
        };
        let c1 = compress(&p1, &data);
        let c2 = compress(&p2, &data);
        assert_eq!(c1, c2, "parallel compression must write the same bytes");
        assert_eq!(decompress(&c1, 2), data);
        assert_eq!(decompress(&c1, 3), data);
    }
}

/// DELTA chunks decoded on several threads, where block 0 (every other block's reference) is
/// decoded at the same time as the others: the data and maskouts must match one thread.
#[test]
fn delta_chunks_decode_alike_on_any_thread_count() {
    use blosc2::chunk::header::{DELTA, SHUFFLE};
    let data: Vec<u8> = (0..600_000u64)
        .flat_map(|i| (i * 3 + (i % 17)).to_le_bytes())
        .collect();
    for compcode in [1u8, 5] {
        let mut p = CParams {
            compcode,
            typesize: 8,
            blocksize: 64 * 1024,
            ..Default::default()
        };
        p.filters[4] = DELTA;
        p.filters[5] = SHUFFLE;
        let chunk = compress(&p, &data);
        let nblocks = data.len().div_ceil(64 * 1024);
        for nthreads in [1i16, 2, 3, 4] {
            assert_eq!(decompress(&chunk, nthreads), data, "nthreads {nthreads}");
            let d = Decompressor::new(DParams {
                nthreads,
                ..Default::default()
            })
            .unwrap();
            // Block 0 masked out (still needed as the reference) and every third block.
            let mask: Vec<bool> = (0..nblocks).map(|i| i % 3 == 0).collect();
            let mut out = vec![0xAAu8; data.len()];
            d.decompress(&chunk, &mut out, Some(&mask)).unwrap();
            for (i, (got, want)) in out
                .chunks(64 * 1024)
                .zip(data.chunks(64 * 1024))
                .enumerate()
            {
                if mask[i] {
                    assert!(got.iter().all(|&b| b == 0xAA), "masked block {i} written");
                } else {
                    assert_eq!(got, want, "block {i}, nthreads {nthreads}");
                }
            }
        }
        // A corrupt block 0 fails every thread count with an error, never a hang.
        let mut bad = chunk.clone();
        let h = ChunkHeader::parse(&bad).unwrap();
        let start = h.header_len() + 4 * nblocks;
        let first_stream =
            i32::from_le_bytes(bad[h.header_len()..h.header_len() + 4].try_into().unwrap())
                as usize;
        assert!(first_stream >= start);
        for b in &mut bad[first_stream..first_stream + 64] {
            *b ^= 0x5A;
        }
        for nthreads in [1i16, 2, 4] {
            let d = Decompressor::new(DParams {
                nthreads,
                ..Default::default()
            })
            .unwrap();
            let mut out = vec![0u8; data.len()];
            let r = d.decompress(&bad, &mut out, None);
            assert!(
                r.is_err() || out != data,
                "nthreads {nthreads}: corrupt block 0 went unnoticed"
            );
        }
    }
}

#[test]
fn zero_chunk_becomes_special() {
    let p = CParams {
        compcode: 1,
        ..Default::default()
    };
    let chunk = compress(&p, &vec![0u8; 100_000]);
    assert_eq!(chunk.len(), 32);
    let h = ChunkHeader::parse(&chunk).unwrap();
    assert_eq!(h.special().unwrap(), Special::Zero);
    assert_eq!(decompress(&chunk, 1), vec![0u8; 100_000]);
}

#[test]
fn incompressible_data_is_memcpyed_when_tight() {
    let mut x = 88172645463325252u64;
    let data: Vec<u8> = (0..100_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect();
    let c = Compressor::new(CParams {
        compcode: 1,
        ..Default::default()
    })
    .unwrap();
    let mut dst = vec![0u8; data.len() + 32];
    let n = c.compress(&data, &mut dst).unwrap();
    assert_eq!(n, data.len() + 32);
    let h = ChunkHeader::parse(&dst[..n]).unwrap();
    assert!(h.memcpyed());
    // One byte less than header + data: it cannot fit at all.
    let mut small = vec![0u8; data.len() + 31];
    assert_eq!(c.compress(&data, &mut small).unwrap(), 0);
}

/// Memcpyed and special-value chunks of many blocks are copied or filled block by block on
/// the context's threads: every thread count, with and without a maskout, gives one thread's
/// bytes, and the compressor's plain copy writes the same chunk on any thread count.
#[test]
fn plain_chunks_alike_on_any_thread_count() {
    let data: Vec<u8> = (0..300_000u32).map(|i| (i * 7 + i / 1000) as u8).collect();
    let bs = 16 * 1024;
    let nblocks = data.len().div_ceil(bs);
    let p1 = CParams {
        compcode: 1,
        clevel: 0,
        blocksize: bs as i32,
        ..Default::default()
    };
    let memcpyed = compress(&p1, &data);
    assert!(ChunkHeader::parse(&memcpyed).unwrap().memcpyed());
    for nthreads in [2i16, 3] {
        let pn = CParams {
            nthreads,
            ..p1.clone()
        };
        assert_eq!(compress(&pn, &data), memcpyed, "nthreads {nthreads}");
    }
    let v = 0x0102030405060708u64.to_le_bytes();
    let p8 = CParams {
        typesize: 8,
        blocksize: bs as i32,
        ..Default::default()
    };
    let mut value = [0u8; 64];
    let n = special::make(&p8, Special::Value, data.len() as i32, Some(&v), &mut value).unwrap();
    let repeated: Vec<u8> = v.iter().copied().cycle().take(data.len()).collect();
    let mask: Vec<bool> = (0..nblocks).map(|i| i % 3 == 1).collect();
    for (chunk, want) in [(&memcpyed[..], &data), (&value[..n], &repeated)] {
        let h = ChunkHeader::parse(chunk).unwrap();
        assert!(h.blocksize as usize == bs, "{} blocks", h.blocksize);
        for nthreads in [1i16, 2, 3] {
            assert_eq!(&decompress(chunk, nthreads), want, "nthreads {nthreads}");
            let d = Decompressor::new(DParams {
                nthreads,
                ..Default::default()
            })
            .unwrap();
            let mut out = vec![0xAAu8; data.len()];
            d.decompress(chunk, &mut out, Some(&mask)).unwrap();
            for (i, (got, want)) in out.chunks(bs).zip(want.chunks(bs)).enumerate() {
                if mask[i] {
                    assert!(got.iter().all(|&b| b == 0xAA), "masked block {i} written");
                } else {
                    assert_eq!(got, want, "block {i}, nthreads {nthreads}");
                }
            }
        }
    }
}

#[test]
fn getitem_and_maskout_agree_with_full_decompression() {
    let data: Vec<u8> = (0..200_000u32)
        .flat_map(|i| (i % 1000).to_le_bytes())
        .collect();
    let p = CParams {
        compcode: 1,
        typesize: 4,
        blocksize: 16 * 1024,
        ..Default::default()
    };
    let chunk = compress(&p, &data);
    let d = Decompressor::new(DParams::default()).unwrap();
    for (start, len) in [
        (0usize, 4usize),
        (16380, 8),
        (100_000, 50_000),
        (799_996, 4),
        (4, 799_996),
    ] {
        let mut out = vec![0u8; len];
        assert_eq!(d.getitem_bytes(&chunk, start, len, &mut out).unwrap(), len);
        assert_eq!(out, &data[start..start + len]);
    }
    let mut out = vec![0u8; 4];
    assert_eq!(
        d.getitem_bytes(&chunk, 799_998, 4, &mut out),
        Err(Error::InvalidParam)
    );
    let nblocks = data.len().div_ceil(16 * 1024);
    let mask: Vec<bool> = (0..nblocks).map(|i| i % 2 == 1).collect();
    let mut out = vec![0xEEu8; data.len()];
    d.decompress(&chunk, &mut out, Some(&mask)).unwrap();
    for (i, block) in out.chunks(16 * 1024).enumerate() {
        if mask[i] {
            assert!(
                block.iter().all(|&b| b == 0xEE),
                "masked block {i} was written"
            );
        } else {
            assert_eq!(block, &data[i * 16 * 1024..i * 16 * 1024 + block.len()]);
        }
    }
    assert_eq!(
        d.decompress(&chunk, &mut out, Some(&mask[1..])),
        Err(Error::Data)
    );
}

#[test]
fn special_chunks() {
    let p = CParams {
        typesize: 8,
        ..Default::default()
    };
    let mut buf = [0u8; 64];
    let n = special::make(&p, Special::Nan, 800, None, &mut buf).unwrap();
    assert_eq!(n, 32);
    let out = decompress(&buf[..n], 1);
    assert!(out
        .chunks(8)
        .all(|c| f64::from_le_bytes(c.try_into().unwrap()).is_nan()));
    let v = 0x0102030405060708u64.to_le_bytes();
    let n = special::make(&p, Special::Value, 800, Some(&v), &mut buf).unwrap();
    assert_eq!(n, 40);
    let out = decompress(&buf[..n], 1);
    assert!(out.chunks(8).all(|c| c == v));
    assert_eq!(
        special::make(&p, Special::Zero, 801, None, &mut buf),
        Err(Error::InvalidParam)
    );
    let p4 = CParams {
        typesize: 3,
        ..Default::default()
    };
    assert_eq!(
        special::make(&p4, Special::Nan, 300, None, &mut buf),
        Err(Error::InvalidParam)
    );
}

#[test]
fn vl_blocks_round_trip() {
    let blocks: Vec<Vec<u8>> = (1..30)
        .map(|i| (0..i * 37).map(|j| (j % (i + 3)) as u8).collect())
        .collect();
    let refs: Vec<&[u8]> = blocks.iter().map(|b| &b[..]).collect();
    for compcode in [1u8, 2, 4, 5] {
        let p = CParams {
            compcode,
            typesize: 4,
            ..Default::default()
        };
        let mut dst = vec![0u8; 100_000];
        let n = vlblocks::vlcompress(&p, &refs, &mut dst).unwrap();
        let chunk = &dst[..n];
        assert_eq!(vlblocks::nblocks(chunk).unwrap(), 29);
        let all = vlblocks::decompress_blocks(&DParams::default(), chunk).unwrap();
        assert_eq!(all, blocks);
        assert_eq!(
            vlblocks::decompress_block(&DParams::default(), chunk, 7).unwrap(),
            blocks[7]
        );
        assert_eq!(decompress(chunk, 1), blocks.concat());
    }
    let p = CParams::default();
    let mut dst = vec![0u8; 1000];
    assert_eq!(
        vlblocks::vlcompress(&p, &[b"abc", b""], &mut dst),
        Err(Error::InvalidParam)
    );
}

#[test]
fn corrupted_chunks_never_panic() {
    let data: Vec<u8> = (0..30_000u32)
        .flat_map(|i| (i % 777).to_le_bytes())
        .collect();
    let d = Decompressor::new(DParams::default()).unwrap();
    let mut rng = 42u64;
    for compcode in [1u8, 4, 5] {
        let p = CParams {
            compcode,
            typesize: 4,
            blocksize: 8192,
            ..Default::default()
        };
        let chunk = compress(&p, &data);
        let mut out = vec![0u8; data.len()];
        for _ in 0..3000 {
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let mut bad = chunk.clone();
            let pos = (rng >> 33) as usize
                % if rng & 1 == 0 {
                    64.min(bad.len())
                } else {
                    bad.len()
                };
            bad[pos] ^= 1 << ((rng >> 20) & 7);
            if rng & 0x300 == 0 {
                bad.truncate((rng >> 40) as usize % bad.len());
            }
            let _ = d.decompress(&bad, &mut out, None);
            let _ = d.getitem_bytes(&bad, 4000, 400, &mut out);
        }
    }
}

/// Serves the blocks of a lazy chunk from a full chunk kept in memory.
struct InMemory(Vec<u8>);

impl blosc2::chunk::decompress::LazyBlocks for InMemory {
    fn read_block(
        &self,
        nchunk: i32,
        chunk_offset: i64,
        offset: i64,
        len: i32,
    ) -> Result<Vec<u8>, Error> {
        assert_eq!((nchunk, chunk_offset), (3, 1000));
        Ok(self.0[offset as usize..offset as usize + len as usize].to_vec())
    }
}

#[test]
fn lazy_chunks_read_blocks_through_the_reader() {
    let data: Vec<u8> = (0..300_000u32)
        .flat_map(|i| (i / 7).to_le_bytes())
        .collect();
    let p = CParams {
        compcode: 1,
        typesize: 4,
        blocksize: 64 * 1024,
        ..Default::default()
    };
    let chunk = compress(&p, &data);
    let h = ChunkHeader::parse(&chunk).unwrap();
    let nblocks = data.len().div_ceil(64 * 1024);
    let bstart = |i: usize| i32::from_le_bytes(chunk[32 + 4 * i..36 + 4 * i].try_into().unwrap());
    let mut lazy = chunk[..32 + 4 * nblocks].to_vec();
    lazy[31] |= 0x08;
    lazy.extend_from_slice(&3i32.to_le_bytes());
    lazy.extend_from_slice(&1000i64.to_le_bytes());
    for i in 0..nblocks {
        let end = if i + 1 < nblocks {
            bstart(i + 1)
        } else {
            h.cbytes
        };
        lazy.extend_from_slice(&(end - bstart(i)).to_le_bytes());
    }
    let reader = InMemory(chunk.clone());
    for nthreads in [1, 2] {
        let d = Decompressor::new(DParams {
            nthreads,
            ..Default::default()
        })
        .unwrap();
        let mut out = vec![0u8; data.len()];
        assert_eq!(
            d.decompress(&lazy, &mut out, None),
            Err(Error::InvalidParam)
        );
        assert_eq!(
            d.decompress_with(&lazy, &mut out, None, Some(&reader))
                .unwrap(),
            data.len()
        );
        assert_eq!(out, data);
        let mut part = vec![0u8; 1000];
        d.getitem_bytes_with(&lazy, 200_000, 1000, &mut part, Some(&reader))
            .unwrap();
        assert_eq!(part, &data[200_000..201_000]);
    }
}

/// getitem of zero and uninitialised chunks (their own path, without building a decoder):
/// zeros written, uninitialised bytes left as they were, and the checks of the general path.
#[test]
fn special_chunk_getitem() {
    let p = CParams {
        typesize: 8,
        ..Default::default()
    };
    let d = Decompressor::new(DParams::default()).unwrap();
    let mut zeros = [0u8; 64];
    let n = special::make(&p, Special::Zero, 800, None, &mut zeros).unwrap();
    let zeros = &zeros[..n];
    let mut uninit = [0u8; 64];
    let n = special::make(&p, Special::Uninit, 800, None, &mut uninit).unwrap();
    let uninit = &uninit[..n];
    let mut out = [0xAAu8; 100];
    assert_eq!(d.getitem_bytes(zeros, 16, 80, &mut out), Ok(80));
    assert!(out[..80].iter().all(|&b| b == 0));
    assert!(out[80..].iter().all(|&b| b == 0xAA));
    let mut out = [0xAAu8; 100];
    assert_eq!(d.getitem_bytes(uninit, 720, 80, &mut out), Ok(80));
    assert!(out.iter().all(|&b| b == 0xAA));
    for chunk in [zeros, uninit] {
        assert_eq!(d.getitem_bytes(chunk, 0, 0, &mut out), Ok(0));
        assert_eq!(
            d.getitem_bytes(chunk, 0, 101, &mut out),
            Err(Error::WriteBuffer)
        );
        assert_eq!(
            d.getitem_bytes(chunk, 721, 80, &mut out),
            Err(Error::InvalidParam)
        );
    }
}

#[test]
fn a_compressor_made_in_its_box_compresses_as_one_made_alone() {
    let src: Vec<u8> = (0..20_000i64).flat_map(|i| (i * 3).to_le_bytes()).collect();
    let params = CParams {
        compcode: blosc2::codecs::LZ4,
        clevel: 5,
        nthreads: 2,
        ..CParams::default()
    };
    let boxed = Compressor::new_boxed_in(|| params.clone(), |c| (c, 7u32)).unwrap();
    assert_eq!(boxed.1, 7);
    assert_eq!(boxed.0.params().nthreads, 2);
    assert_eq!(boxed.0.params().compcode, blosc2::codecs::LZ4);
    let mut a = vec![0u8; src.len() + 32];
    let mut b = vec![0u8; src.len() + 32];
    let na = boxed.0.compress(&src, &mut a).unwrap();
    let nb = Compressor::new(params.clone())
        .unwrap()
        .compress(&src, &mut b)
        .unwrap();
    assert_eq!(a[..na], b[..nb]);
    assert_eq!(decompress(&a[..na], 1), src);
    // Parameters a compressor refuses: the error, and `wrap` never runs.
    let mut wrapped = false;
    let bad = CParams {
        filters: [0, 0, 0, 0, 0, 100],
        ..params
    };
    let r = Compressor::new_boxed_in(
        || bad,
        |c| {
            wrapped = true;
            c
        },
    );
    assert_eq!(r.err(), Some(Error::FilterPipeline));
    assert!(!wrapped);
}
