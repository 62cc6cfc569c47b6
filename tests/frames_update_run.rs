//! A call that rewrites several chunks next to each other in a frame file (a slice of a
//! super-chunk) commits them in one kill-safe pass (docs/CRASH-SAFETY.md, "Several chunks in
//! one call"): the file ends with the bytes of the updates one by one, the chunks after them
//! are moved once (fewer bytes written), and every state a kill can leave between two of its
//! writes opens as the frame before the call or after it, never with only some chunks new.
//! The writes are seen through an I/O backend that records them on the way to real files.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use blosc2::chunk::CParams;
use blosc2::schunk::{Schunk, Storage};
use common::recording::{Log, Op, Recording};

fn scratch(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("rblosc2-run-{}-{name}", std::process::id()));
    let _ = std::fs::remove_file(&p);
    p
}

const ITEMS: usize = 8192;
const NCHUNKS: usize = 8;

/// Chunk data whose compressed size depends on `seed`: a run of noise, then a ramp.
fn data(seed: u64) -> Vec<u8> {
    let noisy = 2000 + (seed as usize * 7919) % 40000;
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..ITEMS * 8)
        .map(|i| {
            if i < noisy {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            } else {
                (i / 64) as u8
            }
        })
        .collect()
}

fn cparams() -> CParams {
    CParams {
        typesize: 8,
        clevel: 5,
        nthreads: 1,
        ..CParams::default()
    }
}

/// The frame file every case starts from: chunks of seeds 0..NCHUNKS.
fn original() -> Vec<u8> {
    let path = scratch("original.b2frame");
    let mut sc = Schunk::new(Storage {
        contiguous: true,
        urlpath: Some(path.clone()),
        cparams: cparams(),
        ..Storage::default()
    })
    .unwrap();
    for seed in 0..NCHUNKS as u64 {
        sc.append_buffer(&data(seed)).unwrap();
    }
    drop(sc);
    let bytes = std::fs::read(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    bytes
}

/// The chunk seeds of the frame in file `path`, or None when one chunk is no seed's.
fn seeds_in(path: &Path, candidates: &[u64]) -> Option<Vec<u64>> {
    let sc = Schunk::open(path).ok()?;
    (0..sc.nchunks())
        .map(|i| {
            let got = sc.decompress_chunk_vec(i).ok()?;
            candidates.iter().copied().find(|&s| data(s) == got)
        })
        .collect()
}

/// Replaces chunks `first..first + seeds.len()` of a copy of `start` with data of `seeds`, in
/// one call (a slice) or one update per chunk; returns the file's bytes after and the changes
/// the call made.
fn rewrite(
    start: &[u8],
    name: &str,
    first: usize,
    seeds: &[u64],
    one_call: bool,
) -> (Vec<u8>, Vec<Op>) {
    let path = scratch(name);
    std::fs::write(&path, start).unwrap();
    let log = Log::default();
    let mut sc = Schunk::open_offset_with(&path, 0, Arc::new(Recording(log.clone()))).unwrap();
    if one_call {
        let buf: Vec<u8> = seeds.iter().flat_map(|&s| data(s)).collect();
        let (a, b) = (first * ITEMS, (first + seeds.len()) * ITEMS);
        sc.set_slice_buffer(a as i64, b as i64, &buf).unwrap();
    } else {
        let compressor = sc.compressor();
        for (k, &s) in seeds.iter().enumerate() {
            let d = data(s);
            let mut chunk = vec![0u8; d.len() + 64];
            let n = compressor.compress(&d, &mut chunk).unwrap();
            chunk.truncate(n);
            sc.update_chunk((first + k) as i64, &chunk).unwrap();
        }
    }
    drop(sc);
    let bytes = std::fs::read(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    let ops = common::recording::take(&log);
    (bytes, ops)
}

fn written(ops: &[Op]) -> usize {
    ops.iter()
        .map(|o| match o {
            Op::Write(_, d) => d.len(),
            Op::Truncate(_) => 0,
        })
        .sum()
}

#[test]
fn a_slice_over_neighbouring_chunks_is_one_kill_safe_change() {
    let start = original();
    // Chunks 2, 3, 4 grow (more noise), then 1..=5 shrink: the chunks after them move.
    for (case, first, seeds) in [
        ("grow", 2, vec![20u64, 21, 22]),
        ("shrink", 1, vec![40u64, 48, 56, 64, 72]),
    ] {
        let (one, ops) = rewrite(&start, &format!("{case}-one.b2frame"), first, &seeds, true);
        let (each, each_ops) = rewrite(
            &start,
            &format!("{case}-each.b2frame"),
            first,
            &seeds,
            false,
        );
        assert_eq!(one, each, "{case}: not the bytes of the updates one by one");
        assert!(
            written(&ops) < written(&each_ops),
            "{case}: {} bytes written in one pass, {} one by one",
            written(&ops),
            written(&each_ops)
        );
        let old: Vec<u64> = (0..NCHUNKS as u64).collect();
        let mut new = old.clone();
        new[first..first + seeds.len()].copy_from_slice(&seeds);
        let candidates: Vec<u64> = old.iter().chain(&seeds).copied().collect();
        // Every state a kill between two changes of the file leaves.
        let path = scratch(&format!("{case}-state.b2frame"));
        let mut file = start.clone();
        for (i, op) in ops.iter().enumerate() {
            match op {
                Op::Write(pos, d) => {
                    let end = *pos as usize + d.len();
                    if file.len() < end {
                        file.resize(end, 0);
                    }
                    file[*pos as usize..end].copy_from_slice(d);
                }
                Op::Truncate(len) => file.truncate(*len as usize),
            }
            std::fs::write(&path, &file).unwrap();
            let seen = seeds_in(&path, &candidates);
            let last = i + 1 == ops.len();
            assert!(
                seen.as_ref() == Some(&old) && !last || seen.as_ref() == Some(&new),
                "{case}: after change {i} of {} the frame holds {seen:?}",
                ops.len()
            );
        }
        assert_eq!(file, one);
        std::fs::remove_file(&path).unwrap();
    }
}
