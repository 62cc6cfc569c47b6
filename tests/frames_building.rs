//! A file that one call creates and fills (a super-chunk or array copy, an array made from a
//! buffer or filled with a value) is written in plain single writes, each byte of the frame
//! once, as c-blosc2 writes it; every change after that call returns is written in the
//! kill-safe order again (docs/CRASH-SAFETY.md, "A file being created"). The writes are seen
//! through an I/O backend that records them on the way to real files.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use blosc2::b2nd::{Array, Params};
use blosc2::chunk::CParams;
use blosc2::schunk::{Schunk, Storage};
use common::recording::{Log, Op, Recording};

fn scratch(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("rblosc2-build-{}-{name}", std::process::id()));
    let _ = blosc2::urlpath::remove_urlpath(&p);
    p
}

/// Bytes no codec shrinks: a chunk stores about as many bytes as it holds.
fn noise(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

fn cparams(clevel: u8) -> CParams {
    CParams {
        typesize: 8,
        clevel,
        ..CParams::default()
    }
}

fn file_storage(path: &Path, log: &Log, clevel: u8) -> Storage {
    Storage {
        contiguous: true,
        urlpath: Some(path.to_path_buf()),
        cparams: cparams(clevel),
        io: Arc::new(Recording(log.clone())),
        ..Storage::default()
    }
}

/// Takes the writes recorded so far: (bytes written, whether one went to `end` or past it).
fn take(log: &Log, end: u64) -> (u64, bool) {
    let writes: Vec<(u64, u64)> = common::recording::take(log)
        .into_iter()
        .filter_map(|op| match op {
            Op::Write(pos, data) => Some((pos, data.len() as u64)),
            Op::Truncate(_) => None,
        })
        .collect();
    let bytes = writes.iter().map(|w| w.1).sum();
    (bytes, writes.iter().any(|w| w.0 >= end))
}

/// The writes a call made that created and filled `path`: each byte of the frame written once
/// (the headers, index and trailer of the steps on the way add a few hundred bytes), nothing
/// past the frame's end; and the file holds the bytes of the same frame made in memory.
fn built_once(log: &Log, path: &Path, frame_len: u64, in_memory: &[u8]) {
    let (bytes, past_end) = take(log, frame_len);
    assert!(!past_end, "a write past the end of a file being built");
    assert!(
        bytes < frame_len + 4096,
        "{bytes} bytes written for a frame of {frame_len}"
    );
    assert_eq!(std::fs::read(path).unwrap(), in_memory);
}

/// A change after the creating call returned: the kill-safe order, whose first write copies
/// the old index and trailer past both the old and the new end (or puts the new chunk there).
fn kill_safe(log: &Log, frame_len: u64) {
    let (_, past_end) = take(log, frame_len);
    assert!(
        past_end,
        "the change was not written in the kill-safe order"
    );
}

#[test]
fn schunk_copies_are_built_straight_then_changed_safely() {
    let mut src = Schunk::new(Storage {
        contiguous: true,
        cparams: cparams(5),
        ..Storage::default()
    })
    .unwrap();
    for seed in 0..3 {
        src.append_buffer(&noise(200_000, seed)).unwrap();
    }
    // Other parameters: recompressed and appended chunk by chunk (the first chunk of an empty
    // frame was written twice, at the end first); the same: copied as stored.
    for (name, clevel) in [("recompressed", 1), ("as-stored", 5)] {
        let log: Log = Log::default();
        let path = scratch(&format!("{name}.b2frame"));
        let mut copy = src.copy(file_storage(&path, &log, clevel)).unwrap();
        let in_memory = src
            .copy(Storage {
                contiguous: true,
                cparams: cparams(clevel),
                ..Storage::default()
            })
            .unwrap();
        built_once(
            &log,
            &path,
            copy.frame_len() as u64,
            &in_memory.to_buffer().unwrap(),
        );
        copy.append_buffer(&noise(200_000, 9)).unwrap();
        kill_safe(&log, copy.frame_len() as u64);
        let reopened = Schunk::open(&path).unwrap();
        assert_eq!(reopened.nchunks(), 4);
        assert_eq!(reopened.decompress_chunk_vec(3).unwrap(), noise(200_000, 9));
        drop(copy);
        blosc2::urlpath::remove_urlpath(&path).unwrap();
    }
}

#[test]
fn arrays_made_from_a_buffer_or_copied_are_built_straight_then_changed_safely() {
    let shape = [100i64, 500];
    let data = noise(100 * 500 * 8, 3);
    let params = |options: Storage| Params {
        options,
        ..Params::new(cparams(5), &shape, &[50, 500], &[10, 500])
    };
    let in_memory = |a: &Array<Schunk>| {
        let mut p = params(Storage {
            contiguous: true,
            ..Storage::default()
        });
        p.cparams = a.store().cparams().clone();
        a.copy::<Schunk>(&p)
            .unwrap()
            .into_store()
            .to_buffer()
            .unwrap()
            .into_owned()
    };

    let log: Log = Log::default();
    let path = scratch("from-cbuffer.b2nd");
    let mut a =
        Array::<Schunk>::from_cbuffer(&params(file_storage(&path, &log, 5)), &data).unwrap();
    built_once(&log, &path, a.store().frame_len() as u64, &in_memory(&a));
    // The first chunk rewritten with other values (another compressed size): an update.
    let other = noise(50 * 500 * 8, 4);
    a.set_slice_cbuffer(&other, &[50, 500], &[0, 0], &[50, 500])
        .unwrap();
    kill_safe(&log, a.store().frame_len() as u64);

    let log2: Log = Log::default();
    let path2 = scratch("copy.b2nd");
    let mut c = a
        .copy::<Schunk>(&params(file_storage(&path2, &log2, 5)))
        .unwrap();
    built_once(&log2, &path2, c.store().frame_len() as u64, &in_memory(&c));
    c.set_slice_cbuffer(&data[..50 * 500 * 8], &[50, 500], &[50, 0], &[100, 500])
        .unwrap();
    kill_safe(&log2, c.store().frame_len() as u64);
    let mut back = vec![0u8; data.len()];
    Array::<Schunk>::from_store(Schunk::open(&path2).unwrap())
        .unwrap()
        .to_cbuffer(&mut back)
        .unwrap();
    assert_eq!(&back[..other.len()], &other[..]);
    assert_eq!(&back[other.len()..], &data[..50 * 500 * 8]);
    drop((a, c));
    blosc2::urlpath::remove_urlpath(&path).unwrap();
    blosc2::urlpath::remove_urlpath(&path2).unwrap();
}
