//! Chunks compressed on several threads are byte for byte the chunks one thread writes, for
//! every filter and codec combination, whatever the order in which the threads finish their
//! blocks; and a destination too small fails the same way.

use blosc2::chunk::header::{BITSHUFFLE, DELTA, SHUFFLE};
use blosc2::chunk::pipeline::BYTEDELTA;
use blosc2::chunk::{CParams, Compressor, DParams, Decompressor};
use blosc2::codecs::{BLOSCLZ, LZ4, LZ4HC, ZLIB, ZSTD};

/// bench/bench.c's float64 data: a smooth curve, optionally with noise, or random bytes (or
/// 32 KiB of the curve and 32 KiB of random bytes in turn).
fn data(kind: &str, n: usize) -> Vec<u8> {
    let mut x = 0x243F_6A88_85A3_08D3u64;
    (0..n / 8)
        .flat_map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let curve = ((i as f64 * 0.0005).sin() * 1e6) as i64 as f64 * 1e-3;
            match kind {
                "smooth" => curve.to_le_bytes(),
                "noisy" => (curve + (x % 1000) as f64 * 1e-3).to_le_bytes(),
                "half random" if i % 8192 < 4096 => curve.to_le_bytes(),
                _ => x.to_le_bytes(),
            }
        })
        .collect()
}

fn compress(p: &CParams, src: &[u8], dst_len: usize) -> (blosc2::Result<usize>, Vec<u8>) {
    let c = Compressor::new(p.clone()).unwrap();
    let mut dst = vec![0u8; dst_len];
    let r = c.compress(src, &mut dst);
    if let Ok(n) = r {
        dst.truncate(n);
    }
    (r, dst)
}

fn filters(list: &[(u8, u8)]) -> ([u8; 6], [u8; 6]) {
    let mut f = [0u8; 6];
    let mut m = [0u8; 6];
    for (i, &(id, meta)) in list.iter().enumerate() {
        f[6 - list.len() + i] = id;
        m[6 - list.len() + i] = meta;
    }
    (f, m)
}

/// Name, codec, level, filters with their meta, and data.
type Combo = (&'static str, u8, u8, &'static [(u8, u8)], &'static str);

/// The workloads of bench/run.sh and a few more codecs, with default and small block sizes (the
/// small ones give many blocks, so threads overtake each other often).
fn cases() -> Vec<(String, CParams, Vec<u8>)> {
    let combos: &[Combo] = &[
        ("shuffle+lz4", LZ4, 5, &[(SHUFFLE, 0)], "noisy"),
        ("shuffle+blosclz", BLOSCLZ, 5, &[(SHUFFLE, 0)], "noisy"),
        ("shuffle+zstd3", ZSTD, 3, &[(SHUFFLE, 0)], "noisy"),
        ("bitshuffle+zstd5", ZSTD, 5, &[(BITSHUFFLE, 0)], "noisy"),
        (
            "delta+shuffle+lz4",
            LZ4,
            5,
            &[(DELTA, 0), (SHUFFLE, 0)],
            "smooth",
        ),
        (
            "shuffle+bytedelta+zstd",
            ZSTD,
            5,
            &[(SHUFFLE, 0), (BYTEDELTA, 8)],
            "smooth",
        ),
        ("noshuffle+lz4 random", LZ4, 5, &[], "random"),
        // Blocks stored raw in a chunk that is kept (one thread defers their copies).
        ("noshuffle+lz4 half random", LZ4, 5, &[], "half random"),
        (
            "noshuffle+blosclz half random",
            BLOSCLZ,
            5,
            &[],
            "half random",
        ),
        ("shuffle+lz4hc", LZ4HC, 5, &[(SHUFFLE, 0)], "noisy"),
        ("shuffle+zlib", ZLIB, 1, &[(SHUFFLE, 0)], "noisy"),
        (
            "shuffle+blosclz smooth",
            BLOSCLZ,
            9,
            &[(SHUFFLE, 0)],
            "smooth",
        ),
    ];
    let mut out = Vec::new();
    for &(name, compcode, clevel, list, kind) in combos {
        let (filters, filters_meta) = filters(list);
        for (nbytes, blocksize) in [(1 << 20, 0), (300_000, 8192), (1 << 20, 32 * 1024)] {
            let p = CParams {
                compcode,
                clevel,
                typesize: 8,
                blocksize,
                filters,
                filters_meta,
                ..Default::default()
            };
            let label = format!("{name} {nbytes} bytes, blocksize {blocksize}");
            out.push((label, p, data(kind, nbytes)));
        }
    }
    out
}

#[test]
fn several_threads_write_the_chunk_one_thread_writes() {
    for (label, p1, src) in cases() {
        let (r1, chunk1) = compress(&p1, &src, src.len() + 32);
        assert!(r1.unwrap() > 32, "{label}");
        for nthreads in [2i16, 3, 4] {
            let pn = CParams {
                nthreads,
                ..p1.clone()
            };
            // Repeated: which thread finishes first varies from run to run.
            for _ in 0..4 {
                let (rn, chunkn) = compress(&pn, &src, src.len() + 32);
                assert_eq!(rn, r1, "{label}, nthreads {nthreads}");
                assert!(
                    chunkn == chunk1,
                    "{label}, nthreads {nthreads}: other bytes"
                );
            }
        }
    }
}

#[test]
fn with_dictionaries_too() {
    let src = data("noisy", 1 << 20);
    for compcode in [ZSTD, LZ4] {
        let p1 = CParams {
            compcode,
            use_dict: true,
            blocksize: 32 * 1024,
            ..Default::default()
        };
        let (r1, chunk1) = compress(&p1, &src, src.len() + 32);
        assert!(r1.unwrap() > 32);
        let p2 = CParams {
            nthreads: 2,
            ..p1.clone()
        };
        for _ in 0..4 {
            let (r2, chunk2) = compress(&p2, &src, src.len() + 32);
            assert_eq!(r2, r1, "codec {compcode}");
            assert!(chunk2 == chunk1, "codec {compcode}: other bytes");
        }
    }
}

/// Compressed into a vector (appended to, nothing zeroed), a chunk is the chunk compressed
/// into a buffer of `src.len() + MAX_OVERHEAD` bytes, on one thread or several, and the vector
/// holds exactly its bytes, whatever it held before.
#[test]
fn a_chunk_compressed_into_a_vector_is_the_chunk_compressed_into_a_buffer() {
    let mut cases = cases();
    // Plain copies: clevel 0, and data too small to compress.
    let (filters0, meta0) = filters(&[(SHUFFLE, 0)]);
    for (label, clevel, n) in [("clevel 0", 0, 1 << 20), ("tiny", 5, 100)] {
        let p = CParams {
            compcode: LZ4,
            clevel,
            typesize: 8,
            filters: filters0,
            filters_meta: meta0,
            ..Default::default()
        };
        cases.push((label.to_string(), p, data("noisy", n)));
    }
    // A chunk of zeros only: a special zeros chunk (just the header).
    let p = CParams {
        compcode: ZSTD,
        typesize: 8,
        blocksize: 8192,
        ..Default::default()
    };
    cases.push(("zeros".to_string(), p, vec![0u8; 1 << 20]));
    for (label, p1, src) in cases {
        let (r1, chunk1) = compress(&p1, &src, src.len() + 32);
        let n1 = r1.unwrap();
        assert!(n1 > 0, "{label}");
        for nthreads in [1i16, 2, 3] {
            let c = Compressor::new(CParams {
                nthreads,
                ..p1.clone()
            })
            .unwrap();
            // A vector that held more than a chunk before, and an empty one.
            let mut v = vec![0xA5u8; src.len() + 100];
            for _ in 0..3 {
                assert_eq!(
                    c.compress_to_vec(&src, &mut v),
                    Ok(n1),
                    "{label}, nthreads {nthreads}"
                );
                assert!(v == chunk1, "{label}, nthreads {nthreads}: other bytes");
                v = Vec::new();
            }
        }
    }
}

/// Destinations from too small for the compressed blocks to just large enough. Threads
/// compress into buffers of their own, where a codec sees more room than one thread writing
/// into a tight destination does (c-blosc2 alike), so a chunk that just fits can be 0 on one
/// thread and the chunk on several; but several threads always give the same answer (0, a
/// plain copy, or one thread's chunk), whichever of them writes a block.
#[test]
fn small_destinations_fail_alike() {
    for (label, p1, src) in cases() {
        let (r1, full_chunk) = compress(&p1, &src, src.len() + 32);
        let full = full_chunk.len();
        assert_eq!(r1, Ok(full));
        for dst_len in [32, 100, full / 3, full / 2, full - 1, full, src.len() + 31] {
            let one = compress(&p1, &src, dst_len);
            let mut first: Option<(blosc2::Result<usize>, Vec<u8>)> = None;
            for nthreads in [2i16, 3, 2, 4, 2] {
                let pn = CParams {
                    nthreads,
                    ..p1.clone()
                };
                let got = compress(&pn, &src, dst_len);
                let what = format!("{label}, destination {dst_len}, nthreads {nthreads}");
                assert!(
                    got == one || got.0 == Ok(0) || (got.0 == Ok(full) && got.1 == full_chunk),
                    "{what}: {:?} where one thread gives {:?}",
                    got.0,
                    one.0
                );
                match &first {
                    None => first = Some(got),
                    Some(f) => assert!(*f == got, "{what}: differs from another run"),
                }
            }
        }
    }
}

/// Many small blocks on two threads, many times: the threads hand blocks to each other
/// thousands of times per second, so a wake-up that can be missed is missed (python-blosc2's
/// test_setitem hung this way: a thread that had just found its block could not be kept
/// compact went to sleep after the block before it was placed, while the other thread waited
/// for a buffer). A watchdog ends the process if a compression never returns.
#[test]
fn two_threads_never_wait_for_each_other_forever() {
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watch = done.clone();
    std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_secs(120));
        if !watch.load(std::sync::atomic::Ordering::SeqCst) {
            eprintln!("two_threads_never_wait_for_each_other_forever: a compression hung");
            std::process::abort();
        }
    });
    // Three callers at once on two cores: threads are preempted inside their windows.
    let callers: Vec<_> = (0..3)
        .map(|_| std::thread::spawn(hand_blocks_to_each_other))
        .collect();
    for c in callers {
        c.join().unwrap();
    }
    done.store(true, std::sync::atomic::Ordering::SeqCst);
}

/// Compresses small-block chunks on two threads again and again, each time checking the bytes,
/// and decompresses them on two threads (DELTA's blocks wait for block 0 from the other thread),
/// whole and with every other block masked out.
fn hand_blocks_to_each_other() {
    let d2 = Decompressor::new(DParams {
        nthreads: 2,
        ..Default::default()
    })
    .unwrap();
    for (kind, compcode, list) in [
        ("smooth", ZSTD, &[(SHUFFLE, 0)][..]),
        ("smooth", LZ4, &[(DELTA, 0), (SHUFFLE, 0)][..]),
        ("noisy", LZ4, &[(SHUFFLE, 0)][..]),
        ("half random", BLOSCLZ, &[][..]),
        ("random", LZ4, &[][..]),
    ] {
        let (filters, filters_meta) = filters(list);
        for blocksize in [128, 256, 1024] {
            let src = data(kind, 16 * 1024 + 40);
            let p = CParams {
                compcode,
                clevel: 1,
                typesize: 4,
                blocksize,
                filters,
                filters_meta,
                nthreads: 2,
                ..Default::default()
            };
            let (first, chunk) = compress(&p, &src, src.len() + 32);
            assert!(first.unwrap() > 32);
            let nblocks = src.len().div_ceil(blocksize as usize);
            let mask: Vec<bool> = (0..nblocks).map(|b| b % 2 == 1).collect();
            let mut out = vec![0u8; src.len()];
            for i in 0..1500 {
                let (r, again) = compress(&p, &src, src.len() + 32);
                assert_eq!(r, first, "{kind}, blocksize {blocksize}");
                assert!(again == chunk, "{kind}, blocksize {blocksize}: other bytes");
                out.fill(0);
                let masked = i % 2 == 1;
                let n = d2.decompress(&chunk, &mut out, masked.then_some(&mask[..]));
                assert_eq!(n, Ok(src.len()), "{kind}, blocksize {blocksize}");
                for (b, (got, want)) in out
                    .chunks(blocksize as usize)
                    .zip(src.chunks(blocksize as usize))
                    .enumerate()
                {
                    let skipped = masked && mask[b];
                    assert!(
                        skipped && got.iter().all(|&x| x == 0) || !skipped && got == want,
                        "{kind}, blocksize {blocksize}, block {b} (masked out: {skipped})"
                    );
                }
            }
        }
    }
}
