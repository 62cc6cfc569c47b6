//! Malformed frames (truncated, bad trailer length, offsets past the end, overflowing counts,
//! every byte mutated) give errors, never panics.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use blosc2::schunk::Schunk;
use blosc2::Error;

fn frame(name: &str) -> Vec<u8> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/frames");
    let p = dir.join(name);
    std::fs::read(if p.exists() {
        p
    } else {
        dir.join("ref").join(name)
    })
    .unwrap()
}

/// Opens `bytes` as a frame and touches everything in it; Ok when all of it reads.
fn exercise(bytes: Vec<u8>) -> blosc2::Result<()> {
    let sc = Schunk::from_buffer(Arc::new(bytes), false)?;
    for name in sc.vlmeta_names() {
        sc.vlmeta_get(name)?;
    }
    for m in sc.metalayers() {
        sc.meta_get(&m.name)?;
    }
    for n in 0..sc.nchunks() {
        sc.get_chunk(n)?;
        sc.decompress_chunk_vec(n)?;
    }
    Ok(())
}

fn be_u32_at(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_be_bytes());
}

fn be_i64_at(b: &mut [u8], at: usize, v: i64) {
    b[at..at + 8].copy_from_slice(&v.to_be_bytes());
}

#[test]
fn truncated_frames_are_errors() {
    for name in [
        "cframe_meta.b2frame",
        "memory_special.b2frame",
        "empty.b2frame",
    ] {
        let bytes = frame(name);
        for len in 0..bytes.len() {
            assert!(
                exercise(bytes[..len].to_vec()).is_err(),
                "{name} cut to {len}"
            );
        }
        // The frame length fixed up to the cut: still an error (trailer or offsets missing).
        for len in (90..bytes.len()).step_by(7) {
            let mut cut = bytes[..len].to_vec();
            be_i64_at(&mut cut, 16, len as i64);
            assert!(
                exercise(cut).is_err(),
                "{name} cut to {len} with length fixed"
            );
        }
    }
}

#[test]
fn truncated_files_are_errors() {
    let bytes = frame("cframe_meta.b2frame");
    let path: PathBuf =
        std::env::temp_dir().join(format!("rblosc2-malformed-{}", std::process::id()));
    for len in [0, 10, 86, 87, 200, bytes.len() - 25, bytes.len() - 1] {
        std::fs::write(&path, &bytes[..len]).unwrap();
        assert!(Schunk::open(&path).is_err(), "cut to {len}");
    }
    assert_eq!(
        Schunk::open_offset(&path, i64::MAX).err(),
        Some(Error::FileRead)
    );
    assert_eq!(
        Schunk::open_offset(&path, -1).err(),
        Some(Error::InvalidParam)
    );
    std::fs::remove_file(&path).unwrap();
    assert_eq!(Schunk::open(&path).err(), Some(Error::FileOpen));
}

#[test]
fn bad_trailer_lengths_are_errors() {
    let bytes = frame("cframe_meta.b2frame");
    let at = bytes.len() - 22;
    for v in [
        0u32,
        24,
        0x7fff_ffff,
        0x8000_0000,
        u32::MAX,
        bytes.len() as u32,
    ] {
        let mut b = bytes.clone();
        be_u32_at(&mut b, at, v);
        assert!(exercise(b).is_err(), "trailer length {v}");
    }
    let mut b = bytes.clone();
    b[at - 1] = 0xcf; // not the uint32 marker
    assert_eq!(exercise(b), Err(Error::InvalidHeader));
}

#[test]
fn sizes_and_offsets_out_of_range_are_errors() {
    let bytes = frame("cframe_meta.b2frame");
    // cbytes (offset 39) moving the offsets index past the end, or before the chunks.
    for v in [i64::MAX, i64::MIN, -1, 1, 1 << 40] {
        let mut b = bytes.clone();
        be_i64_at(&mut b, 39, v);
        assert!(exercise(b).is_err(), "cbytes {v}");
    }
    // nbytes (offset 30) implying more chunks than the index holds, or absurdly many.
    for v in [i64::MAX, 1 << 40, 40000 * 7] {
        let mut b = bytes.clone();
        be_i64_at(&mut b, 30, v);
        assert!(exercise(b).is_err(), "nbytes {v}");
    }
    // chunksize (offset 58): negative, 1 (too many chunks).
    for v in [-5i32, 1] {
        let mut b = bytes.clone();
        b[58..62].copy_from_slice(&v.to_be_bytes());
        assert!(exercise(b).is_err(), "chunksize {v}");
    }
    // header length past the frame.
    let mut b = bytes.clone();
    b[11..15].copy_from_slice(&i32::MAX.to_be_bytes());
    assert_eq!(exercise(b), Err(Error::InvalidHeader));
    // a future frame version, a frame type of the wrong kind.
    let mut b = bytes.clone();
    b[25] = 0x1f;
    assert_eq!(exercise(b), Err(Error::VersionSupport));
    let mut b = bytes.clone();
    b[26] = 1;
    assert_eq!(exercise(b), Err(Error::FrameType));
}

#[test]
fn every_byte_mutated_never_panics() {
    for name in [
        "cframe_meta.b2frame",
        "memory_special.b2frame",
        "fill_special.b2frame",
        "varchunks-lz4-3.0.0.b2frame",
    ] {
        let bytes = frame(name);
        let mut errors = 0;
        // Every byte of the header, the offsets index and the trailer; every 5th in between
        // (chunk data, where most mutations only change the decompressed bytes).
        let len = bytes.len();
        let positions = (0..len).filter(|&at| at < 256 || at + 256 >= len || at % 5 == 0);
        for at in positions {
            for v in [0x00u8, 0xff, 0x80, 0x7f, bytes[at] ^ 1] {
                let mut b = bytes.clone();
                b[at] = v;
                let r = std::panic::catch_unwind(|| exercise(b));
                assert!(r.is_ok(), "{name}: byte {at} set to {v:#x} panicked");
                errors += usize::from(r.unwrap().is_err());
            }
        }
        assert!(errors > 0, "{name}: no mutation was detected");
    }
}

/// As in c-blosc2, an in-memory frame must carry the "b2frame" magic, while a frame file (or a
/// sparse frame's index) with a damaged magic still opens.
#[test]
fn damaged_magic_refuses_buffers_but_not_files() {
    let good = frame("frame_simple-lz4.b2frame");
    assert!(exercise(good.clone()).is_ok());
    for at in 2..10 {
        let mut bad = good.clone();
        bad[at] ^= 0x20;
        assert_eq!(
            Schunk::from_buffer(Arc::new(bad.clone()), false).err(),
            Some(Error::Failure),
            "magic byte {at}"
        );
        let path =
            std::env::temp_dir().join(format!("rblosc2-magic-{}-{at}.b2frame", std::process::id()));
        std::fs::write(&path, &bad).unwrap();
        let opened = Schunk::open(&path);
        std::fs::remove_file(&path).unwrap();
        assert!(
            opened.is_ok(),
            "file with magic byte {at} damaged: {:?}",
            opened.err()
        );
    }
}
