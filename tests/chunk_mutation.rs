//! Deterministic mutation test of the chunk decoder: valid chunks of every kind (each codec,
//! filter pipelines, split and non-split, memcpyed, special values, VL blocks, the 16-byte
//! legacy header, lz4/zstd dictionaries, and the c-blosc 1.x/2.x compat files) are corrupted in
//! many ways (bit flips, overwritten header bytes, truncations, length fields and block-offset
//! entries set to awkward values) and fed to every reader: cbuffer_sizes, decompress with 1 and
//! 2 threads, getitem on ranges, maskout, and the VL-block readers. Each must return (any result
//! or error) without a panic; a panic is caught per mutant and reported with the chunk and the
//! mutation that caused it. A mutant taking more than 5 s counts as a hang.
//!
//! `CHUNK_MUTANTS` sets the number of mutants per generated chunk (default 1200; the compat files,
//! which decompress to 4 MB, get a sixth of that), e.g. `CHUNK_MUTANTS=10` under valgrind;
//! `CHUNK_MUTANTS_SEED` (an integer) draws another set of mutants, to look for new failures;
//! `CHUNK_MUTANTS_DUMP=DIR` writes every mutant with our decompress result into DIR, for
//! `capi-tests/mutant_codes.c` to compare with c-blosc2's error codes.

use blosc2::chunk::header::{
    ChunkHeader, Special, BITSHUFFLE, DELTA, EXTENDED_HEADER_LENGTH, MIN_HEADER_LENGTH, SHUFFLE,
    TRUNC_PREC,
};
use blosc2::chunk::params::{ALWAYS_SPLIT, NEVER_SPLIT};
use blosc2::chunk::pipeline::BYTEDELTA;
use blosc2::chunk::{cbuffer_sizes, special, vlblocks, CParams, Compressor, DParams, Decompressor};
use std::panic::{self, AssertUnwindSafe};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// xorshift64*: the same mutants on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() >> 16) as usize % n
        }
    }
}

struct Sample {
    name: String,
    chunk: Vec<u8>,
    /// The chunk's nbytes (the destination size the readers get).
    nbytes: usize,
    mutants: usize,
}

fn data(len: usize, kind: u32) -> Vec<u8> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ kind as u64);
    (0..len)
        .map(|i| match kind {
            0 => (i / 4) as u8 ^ (i / 1024) as u8,
            1 => ((i as f64 / 300.0).sin() * 100.0) as i8 as u8,
            2 => rng.next() as u8,
            _ => (i % 13) as u8,
        })
        .collect()
}

fn compress(p: &CParams, src: &[u8]) -> Vec<u8> {
    let c = Compressor::new(p.clone()).unwrap();
    let mut dst = vec![0u8; src.len() + 64];
    let n = c
        .compress(src, &mut dst)
        .unwrap_or_else(|e| panic!("{p:?}: {e}"));
    assert!(n > 0, "{p:?} did not compress");
    dst.truncate(n);
    dst
}

fn filters(list: &[u8]) -> [u8; 6] {
    let mut f = [0u8; 6];
    f[6 - list.len()..].copy_from_slice(list);
    f
}

/// Outside a super-chunk bytedelta takes its item size from its meta.
fn bytedelta_meta(f: &[u8; 6], meta: &[u8; 6], typesize: i32) -> [u8; 6] {
    let mut m = *meta;
    for (slot, id) in m.iter_mut().zip(f) {
        if *id == BYTEDELTA {
            *slot = typesize as u8;
        }
    }
    m
}

fn corpus(per_chunk: usize) -> Vec<Sample> {
    let mut out = Vec::new();
    let mut push = |name: String, chunk: Vec<u8>, mutants: usize| {
        let nbytes = ChunkHeader::parse(&chunk).unwrap().nbytes as usize;
        out.push(Sample {
            name,
            chunk,
            nbytes,
            mutants,
        });
    };
    let pipelines: [(&str, [u8; 6], [u8; 6]); 7] = [
        ("noshuffle", filters(&[]), [0; 6]),
        ("shuffle", filters(&[SHUFFLE]), [0; 6]),
        ("bitshuffle", filters(&[BITSHUFFLE]), [0; 6]),
        ("delta+shuffle", filters(&[DELTA, SHUFFLE]), [0; 6]),
        (
            "trunc+bitshuffle",
            filters(&[TRUNC_PREC, BITSHUFFLE]),
            [0, 0, 0, 0, 10, 0],
        ),
        ("shuffle+bytedelta", filters(&[SHUFFLE, BYTEDELTA]), [0; 6]),
        (
            "delta+bitshuffle+bytedelta",
            filters(&[DELTA, BITSHUFFLE, BYTEDELTA]),
            [0; 6],
        ),
    ];
    // 5 codecs x 7 pipelines, alternating split modes, typesizes and data; 4 KiB blocks and a
    // short last block.
    for (ci, compcode) in [0u8, 1, 2, 4, 5].into_iter().enumerate() {
        for (pi, (pname, f, meta)) in pipelines.iter().enumerate() {
            // trunc_prec works on 4- and 8-byte floats only.
            let typesize = if *pname == "trunc+bitshuffle" {
                [4, 8][ci % 2]
            } else {
                [4, 8, 2, 4, 1, 8, 3][(ci + pi) % 7]
            };
            let split = if (ci + pi) % 2 == 0 {
                ALWAYS_SPLIT
            } else {
                NEVER_SPLIT
            };
            let p = CParams {
                compcode,
                clevel: [1, 5, 9][(ci + pi) % 3],
                typesize,
                blocksize: 4096,
                splitmode: split,
                filters: *f,
                filters_meta: bytedelta_meta(f, meta, typesize),
                ..Default::default()
            };
            let src = data(
                4096 * 4 + 1000 + typesize as usize * 3,
                (ci + pi) as u32 % 4,
            );
            let chunk = compress(&p, &src);
            push(
                format!("codec{compcode}-{pname}-ts{typesize}-split{split}"),
                chunk,
                per_chunk,
            );
        }
    }
    // Memcpyed (incompressible data, and clevel 0), and the 16-byte legacy header.
    let random = data(20_000, 2);
    push(
        "memcpyed-random".into(),
        compress(
            &CParams {
                compcode: 1,
                typesize: 4,
                blocksize: 4096,
                ..Default::default()
            },
            &random,
        ),
        per_chunk,
    );
    push(
        "clevel0".into(),
        compress(
            &CParams {
                clevel: 0,
                typesize: 4,
                ..Default::default()
            },
            &data(9000, 0),
        ),
        per_chunk,
    );
    for compcode in [0u8, 1, 4] {
        push(
            format!("legacy-header-codec{compcode}"),
            compress(
                &CParams {
                    compcode,
                    typesize: 4,
                    blocksize: 4096,
                    legacy_header: true,
                    ..Default::default()
                },
                &data(15_000, 0),
            ),
            per_chunk,
        );
    }
    // Dictionaries (lz4, lz4hc, zstd).
    for compcode in [1u8, 2, 5] {
        push(
            format!("dict-codec{compcode}"),
            compress(
                &CParams {
                    compcode,
                    typesize: 4,
                    blocksize: 8192,
                    use_dict: true,
                    ..Default::default()
                },
                &data(40_000, 3),
            ),
            per_chunk,
        );
    }
    // Special values.
    for (kind, value) in [
        (Special::Zero, None),
        (Special::Nan, None),
        (Special::Uninit, None),
        (Special::Value, Some(&[1u8, 2, 3, 4][..])),
    ] {
        let mut dst = vec![0u8; 64];
        let p = CParams {
            typesize: 4,
            ..Default::default()
        };
        let n = special::make(&p, kind, 40_000, value, &mut dst).unwrap();
        dst.truncate(n);
        push(format!("special-{kind:?}"), dst, per_chunk / 2);
    }
    // VL blocks, without and with a dictionary.
    let blocks: Vec<Vec<u8>> = (1..12).map(|i| data(i * 700, i as u32 % 4)).collect();
    let refs: Vec<&[u8]> = blocks.iter().map(|b| &b[..]).collect();
    for (compcode, use_dict, f) in [
        (0u8, false, filters(&[SHUFFLE])),
        (1, false, filters(&[DELTA, BITSHUFFLE])),
        (5, true, filters(&[SHUFFLE])),
        (1, true, filters(&[SHUFFLE, BYTEDELTA])),
    ] {
        let p = CParams {
            compcode,
            typesize: 4,
            use_dict,
            filters: f,
            filters_meta: bytedelta_meta(&f, &[0; 6], 4),
            ..Default::default()
        };
        let mut dst = vec![0u8; 100_000];
        let n = vlblocks::vlcompress(&p, &refs, &mut dst).unwrap();
        dst.truncate(n);
        push(
            format!("vlblocks-codec{compcode}-dict{use_dict}"),
            dst,
            per_chunk,
        );
    }
    // Chunks written by c-blosc 1.3 ... c-blosc2 3.0.
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/compat");
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "cdata"))
        .collect();
    names.sort();
    for path in names {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        push(name, std::fs::read(&path).unwrap(), per_chunk.div_ceil(6));
    }
    out
}

/// i32 values that stress length and offset checks.
fn awkward_i32(rng: &mut Rng, orig: i32, chunk_len: usize) -> i32 {
    let len = chunk_len as i32;
    let choices = [
        0,
        1,
        -1,
        i32::MIN,
        i32::MAX,
        i32::MAX - 31,
        orig.wrapping_add(1),
        orig.wrapping_sub(1),
        orig.wrapping_mul(2),
        orig / 2,
        len,
        len - 1,
        len + 1,
        len - 4,
        16,
        31,
        32,
        33,
        4096,
        1 << 20,
        536_866_816,
        rng.next() as i32,
    ];
    choices[rng.below(choices.len())]
}

fn put_i32(chunk: &mut [u8], at: usize, v: i32) {
    let end = (at + 4).min(chunk.len());
    if at < end {
        chunk[at..end].copy_from_slice(&v.to_le_bytes()[..end - at]);
    }
}

fn get_i32(chunk: &[u8], at: usize) -> i32 {
    chunk
        .get(at..at + 4)
        .map_or(0, |b| i32::from_le_bytes(b.try_into().unwrap()))
}

/// Applies one random mutation; returns its description.
fn mutate(rng: &mut Rng, chunk: &mut Vec<u8>) -> String {
    let len = chunk.len();
    let header_len = if len > 2 && (chunk[2] & 0x1) != 0 && (chunk[2] & 0x4) != 0 {
        EXTENDED_HEADER_LENGTH
    } else {
        MIN_HEADER_LENGTH
    }
    .min(len);
    match rng.below(16) {
        // One bit anywhere.
        0 | 1 => {
            let at = rng.below(len);
            let bit = rng.below(8);
            chunk[at] ^= 1 << bit;
            format!("flip byte {at} bit {bit}")
        }
        // One bit of the header.
        2 | 3 => {
            let at = rng.below(header_len);
            let bit = rng.below(8);
            chunk[at] ^= 1 << bit;
            format!("flip header byte {at} bit {bit}")
        }
        // A header byte overwritten.
        4 | 5 => {
            let at = rng.below(header_len.clamp(1, 32));
            let v = [
                0u8, 1, 2, 3, 4, 5, 6, 0x7f, 0x80, 0xff, 0x10, 0x20, 0x35, 0x22,
            ][rng.below(14)]
                ^ if rng.below(4) == 0 {
                    rng.next() as u8
                } else {
                    0
                };
            if at < len {
                chunk[at] = v;
            }
            format!("header byte {at} = {v:#x}")
        }
        // A length field of the header (nbytes, blocksize, cbytes).
        6 | 7 => {
            let at = [4, 8, 12][rng.below(3)];
            let v = awkward_i32(rng, get_i32(chunk, at), len);
            put_i32(chunk, at, v);
            format!("header i32 at {at} = {v}")
        }
        // An entry of the block-offset table.
        8 | 9 => {
            let entries = (len.saturating_sub(header_len) / 4).clamp(1, 16);
            let at = header_len + 4 * rng.below(entries);
            let v = awkward_i32(rng, get_i32(chunk, at), len);
            put_i32(chunk, at, v);
            format!("bstarts i32 at {at} = {v}")
        }
        // A stream's size field (the i32 a block start points at) or any aligned i32.
        10 => {
            let bstart = get_i32(chunk, header_len);
            let at = if bstart > 0 && (bstart as usize) < len && rng.below(2) == 0 {
                bstart as usize
            } else {
                rng.below(len) & !3
            };
            let v = awkward_i32(rng, get_i32(chunk, at), len);
            put_i32(chunk, at, v);
            format!("i32 at {at} = {v}")
        }
        // Truncation, often inside the header or block table.
        11 | 12 => {
            let to = if rng.below(2) == 0 {
                rng.below(len.min(header_len + 64))
            } else {
                rng.below(len)
            };
            chunk.truncate(to);
            format!("truncate to {to}")
        }
        // Garbage appended (cbytes then disagrees with the length).
        13 => {
            let n = 1 + rng.below(64);
            for _ in 0..n {
                chunk.push(rng.next() as u8);
            }
            format!("append {n}")
        }
        // A run of bytes overwritten.
        14 => {
            let at = rng.below(len);
            let n = (1 + rng.below(16)).min(len - at);
            let v = rng.next() as u8;
            chunk[at..at + n].fill(v);
            format!("fill {n} at {at} with {v:#x}")
        }
        // Several bits anywhere.
        _ => {
            let k = 2 + rng.below(6);
            for _ in 0..k {
                let at = rng.below(len);
                chunk[at] ^= 1 << rng.below(8);
            }
            format!("flip {k} bits")
        }
    }
}

/// Runs every reader on one mutant.
fn exercise(chunk: &[u8], nbytes: usize, d1: &Decompressor, d2: &Decompressor, out: &mut [u8]) {
    let _ = cbuffer_sizes(chunk);
    let _ = ChunkHeader::parse(chunk).map(|h| {
        let _ = h.special();
        let _ = h.nblocks_leftover();
    });
    let _ = d1.decompress(chunk, &mut out[..nbytes], None);
    let _ = d2.decompress(chunk, &mut out[..nbytes], None);
    // A destination too short by one byte, and an empty one.
    let _ = d1.decompress(chunk, &mut out[..nbytes.saturating_sub(1)], None);
    let _ = d1.decompress(chunk, &mut out[..0], None);
    // A larger nbytes written into the header still gets a destination that fits.
    if let Ok((claimed, _, _)) = cbuffer_sizes(chunk) {
        if claimed > 0 && (claimed as usize) <= out.len() && claimed as usize != nbytes {
            let _ = d1.decompress(chunk, &mut out[..claimed as usize], None);
        }
    }
    let maskout: Vec<bool> = (0..8).map(|i| i % 2 == 1).collect();
    let _ = d1.decompress(chunk, &mut out[..nbytes], Some(&maskout));
    let ranges = [
        (0, nbytes.min(7)),
        (nbytes / 3, nbytes / 3),
        (nbytes.saturating_sub(5), 5.min(nbytes)),
        (4095.min(nbytes), 2.min(nbytes - 4095.min(nbytes))),
        (0, nbytes),
    ];
    for (start, n) in ranges {
        let _ = d1.getitem_bytes(chunk, start, n, &mut out[..n]);
    }
    if let Ok(n) = vlblocks::nblocks(chunk) {
        let dp = DParams::default();
        for k in [0, 1, n / 2, n - 1, n, -1] {
            let _ = vlblocks::decompress_block(&dp, chunk, k);
        }
        let _ = vlblocks::decompress_blocks(&dp, chunk);
    }
}

/// The message and place of the last panic, kept by the panic hook.
static LAST_PANIC: Mutex<String> = Mutex::new(String::new());

#[test]
fn mutated_chunks_never_panic() {
    let per_chunk: usize = std::env::var("CHUNK_MUTANTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1200);
    let corpus = corpus(per_chunk);
    let d1 = Decompressor::new(DParams::default()).unwrap();
    let d2 = Decompressor::new(DParams {
        nthreads: 2,
        ..Default::default()
    })
    .unwrap();

    // The unmutated chunks decode (so the mutants start from something valid).
    for s in &corpus {
        let mut out = vec![0u8; s.nbytes];
        let n = d1.decompress(&s.chunk, &mut out, None);
        assert_eq!(n, Ok(s.nbytes), "{}", s.name);
    }

    panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let place = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let trace = if std::env::var_os("CHUNK_MUTANTS_BACKTRACE").is_some() {
            format!("\n{}", std::backtrace::Backtrace::force_capture())
        } else {
            String::new()
        };
        *LAST_PANIC.lock().unwrap_or_else(|e| e.into_inner()) = format!("{msg}{trace} at {place}");
    }));

    let mut failures = Vec::new();
    let mut total = 0usize;
    let started = Instant::now();
    let seed = std::env::var("CHUNK_MUTANTS_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x0123_4567_89ab_cdef_u64);
    let mut rng = Rng(seed | 1);
    for s in &corpus {
        // Room for a mutated nbytes up to twice the real one.
        let mut out = vec![0u8; 2 * s.nbytes + 64];
        for m in 0..s.mutants {
            let mut chunk = s.chunk.clone();
            let mut what = mutate(&mut rng, &mut chunk);
            if m % 5 == 4 && !chunk.is_empty() {
                what += " + ";
                what += &mutate(&mut rng, &mut chunk);
            }
            total += 1;
            if let Some(dir) = std::env::var_os("CHUNK_MUTANTS_DUMP") {
                let mut o = vec![0u8; s.nbytes];
                let code = match d1.decompress(&chunk, &mut o, None) {
                    Ok(n) => n as i64,
                    Err(e) => e.code() as i64,
                };
                let path =
                    std::path::Path::new(&dir).join(format!("{total:06}_{}_{}", s.nbytes, code));
                std::fs::write(path, &chunk).unwrap();
            }
            let t = Instant::now();
            let r = panic::catch_unwind(AssertUnwindSafe(|| {
                exercise(&chunk, s.nbytes, &d1, &d2, &mut out)
            }));
            if r.is_err() {
                let msg = LAST_PANIC.lock().unwrap_or_else(|e| e.into_inner()).clone();
                failures.push(format!("{} / {what}: panic: {msg}", s.name));
            } else if t.elapsed() > Duration::from_secs(5) {
                failures.push(format!("{} / {what}: took {:?}", s.name, t.elapsed()));
            }
        }
    }
    let _ = panic::take_hook();
    eprintln!(
        "{total} mutants of {} chunks in {:?}: {} failures",
        corpus.len(),
        started.elapsed(),
        failures.len()
    );
    // One example per distinct panic place (the text after "panic: "), with its count.
    let mut by_place: Vec<(String, usize, &String)> = Vec::new();
    for f in &failures {
        let place = f.rsplit(" at ").next().unwrap_or(f).to_string();
        match by_place.iter_mut().find(|(p, _, _)| *p == place) {
            Some(entry) => entry.1 += 1,
            None => by_place.push((place, 1, f)),
        }
    }
    let summary: Vec<String> = by_place
        .iter()
        .map(|(_, n, example)| format!("{n} x {example}"))
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {total} mutants failed:\n{}",
        failures.len(),
        summary.join("\n")
    );
}

/// Found by the mutation test: getitem on a DELTA chunk over a range that starts in block 0 and
/// ends in a later block panicked (block 0 was not kept as the reference for the others).
#[test]
fn getitem_from_block0_into_later_blocks_of_a_delta_chunk() {
    let src: Vec<u8> = (0..10_000u32).flat_map(|i| (i * 3).to_le_bytes()).collect();
    for compcode in [0u8, 1, 5] {
        let p = CParams {
            compcode,
            typesize: 4,
            blocksize: 4096,
            filters: filters(&[DELTA, SHUFFLE]),
            ..Default::default()
        };
        let chunk = compress(&p, &src);
        let d = Decompressor::new(DParams::default()).unwrap();
        for (start, n) in [(0, 4097), (10, 9000), (0, src.len()), (4000, 30_000)] {
            let mut out = vec![0u8; n];
            assert_eq!(d.getitem_bytes(&chunk, start, n, &mut out), Ok(n));
            assert_eq!(out, src[start..start + n], "codec {compcode} {start}+{n}");
        }
    }
}

/// Found by the mutation test: a VL block whose size field exceeds the chunk's nbytes is
/// corrupt (it made us allocate up to 2 GiB), and a block start near i32::MAX overflowed.
#[test]
fn vl_block_sizes_and_starts_are_bounded() {
    let blocks: Vec<Vec<u8>> = (1..5).map(|i| data(i * 500, 0)).collect();
    let refs: Vec<&[u8]> = blocks.iter().map(|b| &b[..]).collect();
    let p = CParams {
        compcode: 1,
        typesize: 4,
        ..Default::default()
    };
    let mut chunk = vec![0u8; 10_000];
    let n = vlblocks::vlcompress(&p, &refs, &mut chunk).unwrap();
    chunk.truncate(n);
    let dp = DParams::default();
    assert_eq!(
        vlblocks::decompress_block(&dp, &chunk, 1),
        Ok(blocks[1].clone())
    );
    let bstart1 = get_i32(&chunk, EXTENDED_HEADER_LENGTH + 4) as usize;

    let mut big = chunk.clone();
    put_i32(&mut big, bstart1, 5000 + 1);
    assert_eq!(
        vlblocks::decompress_block(&dp, &big, 1),
        Err(blosc2::Error::Data)
    );
    assert_eq!(
        vlblocks::decompress_blocks(&dp, &big),
        Err(blosc2::Error::Data)
    );

    let mut far = chunk.clone();
    put_i32(&mut far, EXTENDED_HEADER_LENGTH + 4, i32::MAX);
    assert_eq!(
        vlblocks::decompress_block(&dp, &far, 1),
        Err(blosc2::Error::Data)
    );
}
