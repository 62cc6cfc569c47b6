//! b2inspect run as a user runs it: the built binary on the test vectors in tests/data, on
//! frames written here through the core, and on damaged copies of them.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use blosc2::chunk::params::CParams;
use blosc2::schunk::{Schunk, Storage};

const BIN: &str = env!("CARGO_BIN_EXE_b2inspect");
const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");

fn run(args: &[&str]) -> (i32, String, String) {
    let Output {
        status,
        stdout,
        stderr,
    } = Command::new(BIN).args(args).output().unwrap();
    let err = String::from_utf8_lossy(&stderr).into_owned();
    assert!(!err.contains("panicked"), "panic on {args:?}: {err}");
    (
        status.code().unwrap_or(-1),
        String::from_utf8_lossy(&stdout).into_owned(),
        err,
    )
}

fn data(rel: &str) -> String {
    format!("{DATA}/{rel}")
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("b2inspect-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn items(n: usize, seed: i32) -> Vec<u8> {
    (0..n as i32)
        .flat_map(|i| (seed * 1000 + i * (seed + 1) + (i % 7) * 3).to_le_bytes())
        .collect()
}

/// Writes a contiguous frame of `nchunks` chunks of 1000 i32 items; returns the chunks' data.
fn write_frame(path: &Path, nchunks: i32) -> Vec<Vec<u8>> {
    let mut sc = Schunk::new(Storage {
        contiguous: true,
        urlpath: Some(path.to_path_buf()),
        cparams: CParams {
            typesize: 4,
            compcode: blosc2::codecs::LZ4,
            ..CParams::default()
        },
        ..Storage::default()
    })
    .unwrap();
    sc.meta_add("tag", &[0x93, 1, 2, 3]).unwrap();
    sc.vlmeta_add("note", b"\xa5hello", None).unwrap();
    let mut all = Vec::new();
    for c in 0..nchunks {
        let d = items(1000, c);
        sc.append_buffer(&d).unwrap();
        all.push(d);
    }
    all
}

fn chunks_of(path: &Path) -> Vec<Vec<u8>> {
    let sc = Schunk::open(path).unwrap();
    (0..sc.nchunks())
        .map(|n| sc.decompress_chunk_vec(n).unwrap())
        .collect()
}

#[test]
fn info_on_frames_arrays_and_chunks() {
    let (code, out, _) = run(&["info", &data("frames/frame_simple-lz4.b2frame")]);
    assert_eq!(code, 0);
    assert!(out.contains("kind:        contiguous frame"), "{out}");
    assert!(out.contains("codec:       lz4 (clevel 5)"), "{out}");
    assert!(out.contains("chunks:      10 (1 special)"), "{out}");
    assert!(out.contains("nbytes:      2000000"), "{out}");

    let (code, out, _) = run(&["info", &data("example_day_month_temp.b2nd")]);
    assert_eq!(code, 0);
    assert!(out.contains("array (b2nd):"), "{out}");
    assert!(out.contains("shape:      [400, 3]"), "{out}");
    assert!(out.contains("chunkshape: [110, 3]"), "{out}");
    assert!(out.contains("blockshape: [57, 3]"), "{out}");

    let (code, out, _) = run(&["info", &data("frames/ref/sframe.b2frame")]);
    assert_eq!(code, 0);
    assert!(out.contains("kind:        sparse frame"), "{out}");
    assert!(out.contains("metalayer m1: [1, 2, 3]"), "{out}");
    assert!(
        out.contains(r#"vlmetalayer vl1: "a variable-length metalayer: {\"k\": [1, 2, 3]}""#),
        "{out}"
    );

    let (code, out, _) = run(&["info", &data("compat/blosc-lz4-3.0.0.cdata")]);
    assert_eq!(code, 0);
    assert!(out.contains("kind:        chunk"), "{out}");
    assert!(out.contains("nbytes:      4000000"), "{out}");
    assert!(out.contains("cbytes:      29915"), "{out}");

    let (code, out, _) = run(&["info", "--json", &data("frames/ref/cframe_meta.b2frame")]);
    assert_eq!(code, 0);
    assert!(
        out.starts_with('{') && out.trim_end().ends_with('}'),
        "{out}"
    );
    assert!(out.contains(r#""nchunks": 3"#), "{out}");
    assert!(
        out.contains(r#""metalayers": {"m1": [1, 2, 3], "second": "0x0001"#),
        "{out}"
    );
}

#[test]
fn legacy_caterva_metalayer_is_shown_as_an_array() {
    let dir = scratch("caterva");
    let path = dir.join("a.caterva");
    let mut sc = Schunk::new(Storage {
        contiguous: true,
        urlpath: Some(path.clone()),
        ..Storage::default()
    })
    .unwrap();
    // caterva's layout: [version, ndim, shape (int64), chunkshape (int32), blockshape (int32)].
    let mut meta = vec![0x95, 0, 2, 0x92];
    for s in [10i64, 20] {
        meta.push(0xd3);
        meta.extend(s.to_be_bytes());
    }
    for shape in [[5i32, 10], [5, 5]] {
        meta.push(0x92);
        for s in shape {
            meta.push(0xd2);
            meta.extend(s.to_be_bytes());
        }
    }
    sc.meta_add("caterva", &meta).unwrap();
    sc.append_buffer(&vec![7u8; 400]).unwrap();
    drop(sc);
    let (code, out, _) = run(&["info", path.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("array (caterva):"), "{out}");
    assert!(out.contains("shape:      [10, 20]"), "{out}");
    assert!(out.contains("chunkshape: [5, 10]"), "{out}");
    assert!(out.contains("blockshape: [5, 5]"), "{out}");
    assert!(out.contains("dtype:      (none)"), "{out}");
}

#[test]
fn chunk_tables() {
    let (code, out, _) = run(&["chunks", &data("frames/ref/edited.b2frame")]);
    assert_eq!(code, 0);
    let rows: Vec<&str> = out.lines().skip(1).collect();
    assert_eq!(rows.len(), 4, "{out}");
    let first: Vec<&str> = rows[0].split_whitespace().collect();
    assert_eq!(
        first,
        ["0", "10690", "4674", "40000", "lz4", "shuffle", "40000", "-", "5"]
    );

    let (code, out, _) = run(&["chunks", "--json", &data("frames/ref/fill_special.b2frame")]);
    assert_eq!(code, 0);
    assert_eq!(out.matches(r#""special": "zeros""#).count(), 3, "{out}");
    assert_eq!(out.matches(r#""offset": null"#).count(), 3, "{out}");

    let (code, out, _) = run(&["chunks", &data("frames/varchunks-lz4-3.0.0.b2frame")]);
    assert_eq!(code, 0);
    let nbytes: Vec<&str> = out
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().nth(3).unwrap())
        .collect();
    assert_eq!(nbytes, ["1000", "500", "2000", "520", "301"]);
}

#[test]
fn verify_passes_on_every_test_vector() {
    let mut files = Vec::new();
    for dir in ["frames", "frames/ref", "compat", ""] {
        for e in std::fs::read_dir(data(dir)).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let is_frame = name.ends_with(".b2frame") || name.ends_with(".b2nd");
            if is_frame || name.ends_with(".cdata") {
                files.push(p);
            }
        }
    }
    assert!(files.len() >= 45, "{}", files.len());
    for f in &files {
        let (code, out, err) = run(&["verify", f.to_str().unwrap()]);
        assert_eq!(code, 0, "{}: {out}{err}", f.display());
        let (code, out, _) = run(&["verify", "--json", f.to_str().unwrap()]);
        assert_eq!(code, 0);
        let fingerprint = if name_of(f).ends_with(".cdata") {
            "not a frame"
        } else {
            "none (written without fingerprints)"
        };
        assert_eq!(
            out.trim(),
            format!(r#"{{"ok": true, "fingerprint": "{fingerprint}", "problems": []}}"#)
        );
    }
}

#[test]
fn missing_foreign_and_damaged_files() {
    assert_eq!(run(&["info", "/nonexistent/file.b2frame"]).0, 3);
    let (code, _, err) = run(&["info", concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml")]);
    assert_eq!(code, 4);
    assert!(err.contains("not a Blosc2"), "{err}");
    assert_eq!(run(&["info", DATA]).0, 4); // a directory that is no sparse frame
    assert_eq!(run(&["bogus"]).0, 2);
    assert_eq!(run(&["info"]).0, 2);

    let dir = scratch("damaged");
    let good = dir.join("good.b2frame");
    write_frame(&good, 4);
    let bytes = std::fs::read(&good).unwrap();

    // Cut in the middle: the frame length no longer matches.
    let cut = dir.join("cut.b2frame");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let (code, _, err) = run(&["info", cut.to_str().unwrap()]);
    assert_eq!(code, 5);
    assert!(err.contains("damaged"), "{err}");

    // A flipped byte inside chunk 1's compressed data: verify names the chunk.
    let sc = Schunk::open(&good).unwrap();
    let f = sc.frame().unwrap();
    let at = f.header().header_len as usize + f.offsets()[1] as usize + 40;
    drop(sc);
    let mut bad = bytes.clone();
    for b in &mut bad[at..at + 16] {
        *b ^= 0x5a;
    }
    let flipped = dir.join("flipped.b2frame");
    std::fs::write(&flipped, &bad).unwrap();
    let (code, out, _) = run(&["verify", flipped.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("chunk 1 (offset "), "{out}");
    assert!(out.ends_with("1 problem(s)\n"), "{out}");
}

#[test]
fn mutated_frames_never_panic() {
    let dir = scratch("mutants");
    let good = dir.join("good.b2frame");
    write_frame(&good, 3);
    let bytes = std::fs::read(&good).unwrap();
    let m = dir.join("m.b2frame");
    // A deterministic spread of positions over the whole frame, header and trailer included.
    let mut pos = 7usize;
    for i in 0..60 {
        pos = (pos * 31 + 17) % bytes.len();
        let mut b = bytes.clone();
        b[pos] = b[pos].wrapping_add(1 + i as u8);
        std::fs::write(&m, &b).unwrap();
        for cmd in ["info", "chunks", "verify"] {
            let (code, _, _) = run(&[cmd, m.to_str().unwrap()]);
            assert!([0, 1, 4, 5].contains(&code), "{cmd} at {pos}: {code}");
        }
    }
}

#[test]
fn recover_every_cut_of_the_last_append() {
    let dir = scratch("cuts");
    let full = dir.join("full.b2frame");
    let data = write_frame(&full, 5);
    let bytes = std::fs::read(&full).unwrap();
    let sc = Schunk::open(&full).unwrap();
    let f = sc.frame().unwrap();
    let last_start = f.header().header_len as usize + f.offsets()[4] as usize;
    drop(sc);
    let tail = bytes.len() - last_start;
    assert!(tail < 2000, "tail of {tail} bytes would make the test slow");
    let cut = dir.join("cut.b2frame");
    for len in last_start..=bytes.len() {
        std::fs::write(&cut, &bytes[..len]).unwrap();
        let out = dir.join(format!("out{len}.b2frame"));
        let (code, stdout, err) = run(&["recover", cut.to_str().unwrap(), out.to_str().unwrap()]);
        assert_eq!(code, 0, "cut at {len}: {err}");
        assert_eq!(
            std::fs::read(&cut).unwrap(),
            &bytes[..len],
            "input modified"
        );
        let got = chunks_of(&out);
        assert!(got.len() >= 4, "cut at {len}: {stdout}");
        assert_eq!(got[..], data[..got.len()], "cut at {len}");
        assert!(
            stdout.starts_with(&format!("saved {} of 5 chunks", got.len())),
            "{stdout}"
        );
        // The metalayer lives in the header, written before any chunk.
        assert_eq!(
            Schunk::open(&out).unwrap().meta_get("tag").unwrap(),
            [0x93, 1, 2, 3]
        );
        std::fs::remove_file(&out).unwrap();
    }
}

#[test]
fn recover_walks_past_a_destroyed_index() {
    let dir = scratch("index");
    let full = dir.join("full.b2frame");
    let data = write_frame(&full, 6);
    let mut bytes = std::fs::read(&full).unwrap();
    let sc = Schunk::open(&full).unwrap();
    let h = sc.frame().unwrap().header().clone();
    drop(sc);
    let index_at = (h.header_len as i64 + h.cbytes) as usize;
    for b in &mut bytes[index_at..] {
        *b = 0xff;
    }
    let broken = dir.join("broken.b2frame");
    std::fs::write(&broken, &bytes).unwrap();
    assert_eq!(run(&["info", broken.to_str().unwrap()]).0, 5);
    let out = dir.join("out.b2frame");
    let (code, stdout, _) = run(&["recover", broken.to_str().unwrap(), out.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(
        stdout.contains("saved 6 of 6 chunks (walked from the header)"),
        "{stdout}"
    );
    assert_eq!(chunks_of(&out), data);
    assert_eq!(run(&["verify", out.to_str().unwrap()]).0, 0);

    // An intact frame goes through its index and keeps its vlmetalayers.
    let out2 = dir.join("out2.b2frame");
    let (code, stdout, _) = run(&["recover", full.to_str().unwrap(), out2.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(
        stdout.contains("saved 6 of 6 chunks (read through the index)"),
        "{stdout}"
    );
    assert_eq!(
        Schunk::open(&out2).unwrap().vlmeta_get("note").unwrap(),
        b"\xa5hello"
    );

    // Never over an existing file, never onto the input.
    assert_eq!(
        run(&["recover", broken.to_str().unwrap(), out.to_str().unwrap()]).0,
        2
    );
    assert_eq!(
        run(&["recover", full.to_str().unwrap(), full.to_str().unwrap()]).0,
        2
    );
    assert_eq!(
        run(&["recover", "/nonexistent", out.to_str().unwrap()]).0,
        3
    );
}

fn name_of(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

/// verify on a fingerprinted frame says intact, then names the damaged chunk or region.
#[test]
fn verify_names_what_the_fingerprint_finds_damaged() {
    let dir = scratch("fingerprint");
    let path = dir.join("fp.b2frame");
    let mut sc = Schunk::new(Storage {
        contiguous: true,
        urlpath: Some(path.clone()),
        cparams: CParams {
            typesize: 4,
            ..CParams::default()
        },
        ..Storage::default()
    })
    .unwrap();
    sc.set_fingerprint_mode(blosc2::schunk::FingerprintMode::On)
        .unwrap();
    // Chunks stored as they are (memcpyed): damage in them still decompresses.
    for c in 0..3u8 {
        let data: Vec<u8> = (0..4000u32)
            .map(|i| (i * 7 + c as u32 * 13) as u8)
            .collect();
        let mut chunk = vec![0u8; data.len() + 32];
        let n = blosc2::chunk::Compressor::new(CParams {
            typesize: 4,
            clevel: 0,
            ..CParams::default()
        })
        .unwrap()
        .compress(&data, &mut chunk)
        .unwrap();
        sc.append_chunk(&chunk[..n]).unwrap();
    }
    let f = sc.frame().unwrap();
    let hl = f.header().header_len as usize;
    let chunk1 = hl + f.offsets()[1] as usize + 100;
    drop(sc);
    let p = path.to_str().unwrap();
    let (code, out, _) = run(&["verify", p]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("fingerprint: intact (3 stored chunks"),
        "{out}"
    );
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[chunk1] ^= 0x10;
    std::fs::write(&path, &bytes).unwrap();
    let (code, out, _) = run(&["verify", p]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("fingerprint: DAMAGED (1 region(s))"), "{out}");
    assert!(
        out.contains("chunk 1: stored bytes differ from the frame's fingerprint"),
        "{out}"
    );
    // Only the fingerprint sees it: the memcpyed chunk still decompresses.
    assert!(out.contains("1 problem(s)"), "{out}");
    bytes[chunk1] ^= 0x10;
    bytes[86] ^= 0x01; // the header byte holding (half) the fingerprint marker
    std::fs::write(&path, &bytes).unwrap();
    let (code, out, _) = run(&["verify", "--json", p]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(r#""location": "header (fixed fields or metalayers)""#),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
