//! Frames we write are read by the reference c-blosc2 3.3.5 as we read them: the reference's
//! `tests/frames_ref/gen.c dump` of each frame must print what our `describe` prints.
//!
//! Needs the reference (capi-tests/get-reference.sh caches it) and a C compiler; the test is
//! skipped with a message when either is missing.

use std::path::{Path, PathBuf};
use std::process::Command;

use blosc2::chunk::header::{Special, BITSHUFFLE, DELTA, EXTENDED_HEADER_LENGTH};
use blosc2::chunk::CParams;
use blosc2::schunk::{Schunk, Storage};

mod common;
use common::{describe, dumper};

fn fill(items: usize, seed: i64) -> Vec<u8> {
    (0..items as i64)
        .flat_map(|i| (seed * 1_000_003 + i * (seed + 1) + (i % 11) * 5).to_le_bytes())
        .collect()
}

fn zstd_storage(urlpath: Option<PathBuf>, contiguous: bool) -> Storage {
    Storage {
        contiguous,
        urlpath,
        cparams: CParams {
            typesize: 8,
            compcode: blosc2::codecs::ZSTD,
            clevel: 7,
            filters: [DELTA, 0, 0, 0, 0, BITSHUFFLE],
            ..CParams::default()
        },
        ..Storage::default()
    }
}

fn zero_chunk(nbytes: i32) -> Vec<u8> {
    let params = CParams {
        typesize: 8,
        ..CParams::default()
    };
    let mut c = vec![0u8; EXTENDED_HEADER_LENGTH];
    blosc2::chunk::special::make(&params, Special::Zero, nbytes, None, &mut c).unwrap();
    c
}

/// Writes the frames; returns (argument for the dumper, our own reopened super-chunk).
fn write_frames(work: &Path) -> Vec<(String, Schunk)> {
    let mut out = Vec::new();
    const ITEMS: usize = 5000;

    // 1. A cframe file edited every way there is.
    let p = work.join("edited.b2frame");
    let mut sc = Schunk::new(zstd_storage(Some(p.clone()), true)).unwrap();
    sc.meta_add("shape", &[0x92, 0x10, 0x20]).unwrap();
    sc.meta_add("other", b"0123456789").unwrap();
    for c in 0..4 {
        sc.append_buffer(&fill(ITEMS, c)).unwrap();
    }
    sc.append_buffer(&fill(ITEMS / 3, 9)).unwrap();
    sc.vlmeta_add("keep", b"kept content", None).unwrap();
    sc.vlmeta_add("gone", b"deleted later", None).unwrap();
    sc.insert_chunk(1, &zero_chunk((ITEMS * 8) as i32)).unwrap();
    let small = {
        let mut l = Schunk::new(zstd_storage(None, false)).unwrap();
        l.append_buffer(&vec![7u8; ITEMS * 8]).unwrap();
        l.get_chunk(0).unwrap().into_owned()
    };
    sc.update_chunk(3, &small).unwrap();
    sc.update_chunk(0, &zero_chunk((ITEMS * 8) as i32)).unwrap();
    sc.update_chunk(1, &small).unwrap();
    sc.delete_chunk(2).unwrap();
    sc.reorder_offsets(&[3, 0, 2, 1, 4]).unwrap();
    sc.meta_update("other", b"abc").unwrap();
    sc.vlmeta_update("keep", b"kept, but longer than before", None)
        .unwrap();
    sc.vlmeta_delete("gone").unwrap();
    drop(sc);
    out.push((p.display().to_string(), Schunk::open(&p).unwrap()));

    // 2. An in-memory frame written out with to_file.
    let mut sc = Schunk::new(zstd_storage(None, true)).unwrap();
    for c in 0..3 {
        sc.append_buffer(&fill(ITEMS, 10 + c)).unwrap();
    }
    sc.vlmeta_add("v", b"in memory", None).unwrap();
    let p = work.join("memory.b2frame");
    sc.to_file(&p).unwrap();
    out.push((p.display().to_string(), Schunk::open(&p).unwrap()));

    // 3. An sframe directory.
    let p = work.join("sparse.b2frame");
    let mut sc = Schunk::new(zstd_storage(Some(p.clone()), false)).unwrap();
    sc.meta_add("m", b"sparse").unwrap();
    for c in 0..4 {
        sc.append_buffer(&fill(ITEMS, 20 + c)).unwrap();
    }
    sc.update_chunk(1, &small).unwrap();
    sc.delete_chunk(0).unwrap();
    sc.insert_chunk(2, &zero_chunk((ITEMS * 8) as i32)).unwrap();
    sc.vlmeta_add("v", b"sparse vlmeta", None).unwrap();
    drop(sc);
    out.push((p.display().to_string(), Schunk::open(&p).unwrap()));

    // 4. A plain list of chunks copied into a file, and appended to another file.
    let mut sc = Schunk::new(zstd_storage(None, false)).unwrap();
    for c in 0..3 {
        sc.append_buffer(&fill(ITEMS, 30 + c)).unwrap();
    }
    sc.meta_add("list", b"x").unwrap();
    let p = work.join("list.b2frame");
    sc.to_file(&p).unwrap();
    out.push((p.display().to_string(), Schunk::open(&p).unwrap()));
    let p = work.join("appended.bin");
    std::fs::write(&p, vec![0xaau8; 1000]).unwrap();
    let at = sc.append_file(&p).unwrap();
    out.push((
        format!("{}@{}", p.display(), at),
        Schunk::open_offset(&p, at).unwrap(),
    ));

    // 6. Variable-size chunks (chunksize 0, version 3 frame) in a cframe file and an sframe.
    for (name, contiguous) in [("varlen.b2frame", true), ("varlen-sparse.b2frame", false)] {
        let p = work.join(name);
        let mut sc = Schunk::new(zstd_storage(Some(p.clone()), contiguous)).unwrap();
        for (c, items) in [4000, 3000, 5000, 100].into_iter().enumerate() {
            sc.append_buffer(&fill(items, 40 + c as i64)).unwrap();
        }
        assert_eq!(sc.chunksize(), 0);
        drop(sc);
        out.push((p.display().to_string(), Schunk::open(&p).unwrap()));
    }

    // 5. fill_special with NaNs in a cframe file.
    let p = work.join("nans.b2frame");
    let mut sc = Schunk::new(zstd_storage(Some(p.clone()), true)).unwrap();
    sc.fill_special(12345, Special::Nan, 8000).unwrap();
    drop(sc);
    out.push((p.display().to_string(), Schunk::open(&p).unwrap()));
    out
}

#[test]
fn reference_reads_our_frames() {
    let work = std::env::temp_dir().join(format!("rblosc2-byref-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let Some(gen) = dumper(&work) else {
        return;
    };
    for (arg, ours) in write_frames(&work) {
        let out = Command::new(&gen).arg("dump").arg(&arg).output().unwrap();
        assert!(out.status.success(), "{arg}");
        let text = String::from_utf8(out.stdout).unwrap();
        let theirs: Vec<String> = text
            .lines()
            .map(|l| l.split_once(' ').unwrap().1.trim_end().to_string())
            .collect();
        assert_eq!(describe(&ours), theirs, "{arg}");
    }
    std::fs::remove_dir_all(&work).unwrap();
}
